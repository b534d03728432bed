#!/bin/sh
# secure-env: a secure-execution program (here setgid, started by another
# user) ignores the ANYRING_* variables: with ANYRING_ENGINE=bogus its ring
# still gets the default engine, and ANYRING_DEBUG prints nothing. The
# same program without the setgid bit follows them (and fails: EINVAL). This is what keeps the
# anyring-liburing drop-in, which serves setuid and setgid programs, from
# being steered by the environment of whoever starts them.
set -u
[ -z "$SAN" ] || { echo "skipped: checked on the plain build"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skipped: needs root to make a setgid file"; exit 77; }
command -v setpriv >/dev/null || { echo "skipped: no setpriv"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-sec.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
case ",$(findmnt -no OPTIONS -T "$tmp")," in
*,nosuid,*) echo "skipped: $tmp is on a nosuid mount"; exit 77 ;;
esac
cat > "$tmp/p.c" <<'C'
#include <anyring.h>
#include <stdio.h>
int main(void)
{
	struct io_uring ring;
	if (io_uring_queue_init(2, &ring, 0))
		return 1;
	printf("%s\n", anyring_ring_engine(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}
C
$CC -O2 -Iinclude -I"$ANYRING_TOP/include" -o "$tmp/plain" "$tmp/p.c" \
	-L"$ANYRING_BUILD/lib" -lanyring -Wl,-rpath,"$ANYRING_BUILD/lib" || exit 1
cp "$tmp/plain" "$tmp/setgid"
chgrp daemon "$tmp/setgid" && chmod 2755 "$tmp/setgid" || exit 1

# as nobody, so that the setgid bit makes the effective gid differ
as_nobody() {
	ANYRING_ENGINE=bogus ANYRING_DEBUG=1 setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$@"
}
if out=$(as_nobody "$tmp/plain" 2>"$tmp/err"); then
	echo "plain copy: ANYRING_ENGINE=bogus not followed, engine $out"; exit 1
fi
grep -q "^anyring.*unknown engine 'bogus'" "$tmp/err" ||
	{ echo "plain copy: no ANYRING_DEBUG line:"; cat "$tmp/err"; exit 1; }
out=$(as_nobody "$tmp/setgid" 2>"$tmp/err") ||
	{ echo "setgid copy failed (ANYRING_ENGINE=bogus followed?)"; cat "$tmp/err"; exit 1; }
case $out in
kernel|user) ;;
*) echo "setgid copy: engine '$out'"; exit 1 ;;
esac
[ -s "$tmp/err" ] && { echo "setgid copy wrote to stderr:"; cat "$tmp/err"; exit 1; }
echo "setgid copy ignores ANYRING_ENGINE and ANYRING_DEBUG (engine $out); the plain copy follows them"
