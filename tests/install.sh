#!/bin/sh
# install: `make install` into a staging root gives a library, <anyring.h>
# beside <liburing.h>'s directory, the tools, the man pages and a working
# anyring.pc; a program built with pkg-config's flags runs on the installed
# library. PREFIX=/usr puts the library in Debian's multiarch libdir and the
# pages under /usr/share/man.
set -eu
[ -z "$SAN" ] || { echo "skipped: install is checked on the plain build"; exit 77; }
command -v pkg-config >/dev/null || { echo "skipped: no pkg-config"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-inst.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
make -s -C "$ANYRING_TOP" install DESTDIR="$tmp/root" PREFIX=/opt/anyring > "$tmp/log" 2>&1 || {
	cat "$tmp/log"; exit 1; }
r="$tmp/root/opt/anyring"
for f in lib/libanyring.so lib/libanyring.so.0 lib/libanyring.a include/anyring.h \
	 lib/pkgconfig/anyring.pc bin/anyring-info bin/anyring-run \
	 share/man/man7/anyring.7 share/man/man1/anyring-run.1 \
	 share/man/man3/anyring_queue_init_engine.3; do
	[ -e "$r/$f" ] || { echo "not installed: $f"; exit 1; }
done
# every page of the tree, in its section
for p in "$ANYRING_TOP"/man/man*/*; do
	sec=$(basename "$(dirname "$p")")
	[ -f "$r/share/man/$sec/$(basename "$p")" ] || { echo "not installed: $sec/$(basename "$p")"; exit 1; }
done
if command -v man >/dev/null; then
	w=$(MANPATH="$r/share/man" man -w anyring_ring_policy) || { echo "man -w anyring_ring_policy fails"; exit 1; }
	echo "man -w: $w"
fi
make -s -C "$ANYRING_TOP" install DESTDIR="$tmp/usr" PREFIX=/usr > "$tmp/log" 2>&1 || {
	cat "$tmp/log"; exit 1; }
ma=$($CC -print-multiarch)
for f in "lib/$ma/libanyring.so.0" "lib/$ma/pkgconfig/anyring.pc" share/man/man7/anyring.7; do
	[ -e "$tmp/usr/usr/$f" ] || { echo "PREFIX=/usr: not installed: /usr/$f"; exit 1; }
done
flags=$(PKG_CONFIG_SYSROOT_DIR="$tmp/root" PKG_CONFIG_PATH="$r/lib/pkgconfig" \
	pkg-config --cflags --libs anyring)
echo "pkg-config: $flags"
cat > "$tmp/p.c" <<'C'
#include <anyring.h>
#include <stdio.h>
int main(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	if (io_uring_queue_init(4, &ring, 0))
		return 1;
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	if (io_uring_submit_and_wait(&ring, 1) != 1 || io_uring_wait_cqe(&ring, &cqe))
		return 1;
	printf("%s %d\n", anyring_ring_engine(&ring), cqe->res);
	io_uring_queue_exit(&ring);
	return 0;
}
C
# shellcheck disable=SC2086
$CC -o "$tmp/p" "$tmp/p.c" $flags
out=$(LD_LIBRARY_PATH="$r/lib" "$tmp/p")
[ "$out" = "kernel 0" ] || [ "$out" = "user 0" ] || { echo "unexpected: $out"; exit 1; }
echo "installed library serves a ring: $out"
