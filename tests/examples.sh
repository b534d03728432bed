#!/bin/sh
# examples: Debian's liburing examples, built against <liburing.h> and
# linked once with -lanyring and once with -luring, give the same results:
# io_uring-cp and link-cp copy a 64 MiB random file byte-identically,
# ucontext-cp copies small files (it sleeps 1 s per KiB), and io_uring-test
# reads the same number of bytes.
set -eu
ex=/usr/share/doc/liburing-dev/examples
[ -f "$ex/io_uring-cp.c" ] || { echo "skipped: liburing-dev examples not installed"; exit 77; }
lib="$ANYRING_BUILD/lib"
# the examples free nothing at exit (io_uring-test leaks its buffers):
# leak checks of the library are the api-* tests' job, not theirs
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-ex.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for e in io_uring-cp io_uring-test link-cp ucontext-cp; do
	src="$ex/$e.c"
	[ -f "$src" ] || [ -f "$src.gz" ] || { echo "missing $src"; exit 1; }
	[ -f "$src" ] || { gunzip -c "$src.gz" > "$tmp/$e.c"; src="$tmp/$e.c"; }
	# under UBSan, link-cp.c's own misaligned struct access (the example
	# puts its struct after an odd-sized buffer) is not ours to report:
	# the examples skip the alignment check, the library keeps it
	exflags="$SANFLAGS"
	[ -n "$SANFLAGS" ] && exflags="$SANFLAGS -fno-sanitize=alignment"
	# shellcheck disable=SC2086
	$CC -O2 -w -D_GNU_SOURCE $exflags -o "$tmp/$e.anyring" "$src" -L"$lib" \
		-lanyring -Wl,-rpath,"$lib"
	$CC -O2 -w -D_GNU_SOURCE -o "$tmp/$e.uring" "$src" -luring
	# the anyring build must really use libanyring, not liburing
	ldd "$tmp/$e.anyring" | grep -q libanyring || { echo "$e: not linked to libanyring"; exit 1; }
	if ldd "$tmp/$e.anyring" | grep -q 'liburing\.so'; then
		echo "$e: also linked to liburing"; exit 1
	fi
done

# 64 MiB of random data, not a multiple of the examples' block sizes
head -c $((64 * 1024 * 1024 + 12345)) /dev/urandom > "$tmp/src"
for e in io_uring-cp link-cp; do
	for v in anyring uring; do
		rm -f "$tmp/dst.$v"
		"$tmp/$e.$v" "$tmp/src" "$tmp/dst.$v" > "$tmp/$e.$v.out" 2>&1 || {
			echo "$e ($v) failed:"; cat "$tmp/$e.$v.out"; exit 1; }
		cmp "$tmp/src" "$tmp/dst.$v" || { echo "$e ($v): copy differs"; exit 1; }
	done
	echo "$e: identical 64 MiB copies with -lanyring and -luring"
done

# ucontext-cp sleeps 1 s (an IORING_OP_TIMEOUT) after each 1 KiB block:
# copy two small files at once, both builds side by side
head -c 2600 /dev/urandom > "$tmp/u1"
head -c 1500 /dev/urandom > "$tmp/u2"
for v in anyring uring; do
	"$tmp/ucontext-cp.$v" "$tmp/u1" "$tmp/u1.$v" "$tmp/u2" "$tmp/u2.$v" \
		> "$tmp/ucontext.$v.out" 2>&1 &
done
wait
for v in anyring uring; do
	grep -q "finished with 2 success(es) and 0 failure(s)" "$tmp/ucontext.$v.out" || {
		echo "ucontext-cp ($v) failed:"; cat "$tmp/ucontext.$v.out"; exit 1; }
	cmp "$tmp/u1" "$tmp/u1.$v" && cmp "$tmp/u2" "$tmp/u2.$v" || {
		echo "ucontext-cp ($v): copy differs"; exit 1; }
done
# (ASan warns once about swapcontext: its own "==pid==" lines are not output)
grep -v "^==[0-9]*==" "$tmp/ucontext.anyring.out" | sort > "$tmp/ua"
sort "$tmp/ucontext.uring.out" > "$tmp/uu"
cmp -s "$tmp/ua" "$tmp/uu" || { echo "ucontext-cp output differs:"; diff "$tmp/uu" "$tmp/ua"; exit 1; }
echo "ucontext-cp: identical copies and output with -lanyring and -luring"

# io_uring-test reads with O_DIRECT: use a file on a filesystem that has it
dd if="$tmp/src" of="$tmp/direct" bs=1M count=4 status=none
for v in anyring uring; do
	"$tmp/io_uring-test.$v" "$tmp/direct" > "$tmp/test.$v.out" 2>&1 || {
		echo "io_uring-test ($v) failed:"; cat "$tmp/test.$v.out"; exit 1; }
done
if ! cmp -s "$tmp/test.anyring.out" "$tmp/test.uring.out"; then
	echo "io_uring-test output differs:"
	diff "$tmp/test.uring.out" "$tmp/test.anyring.out"
	exit 1
fi
echo "io_uring-test: $(cat "$tmp/test.anyring.out")"
