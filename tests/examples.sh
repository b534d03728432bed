#!/bin/sh
# examples: Debian's liburing examples, built against <liburing.h> and
# linked once with -lanyring and once with -luring, give the same results:
# io_uring-cp and link-cp copy a 64 MiB random file byte-identically,
# ucontext-cp copies small files (it sleeps 1 s per KiB), and io_uring-test
# reads the same number of bytes. The -lanyring builds run on each engine
# (ANYRING_ENGINE=kernel, =user); in the plain build both builds also run
# under `anyring-run --deny-io-uring` (io_uring refused as in Docker, so
# auto falls back to the user engine; the -luring build gets libanyring
# preloaded). A third build links liburing.a statically: it runs on the
# kernel, and under denial through the system-call trap (docs/trap.md),
# its call sites rewritten, and again with ANYRING_TRAP=syscall (inline
# calls through the signal).
set -eu
ex=/usr/share/doc/liburing-dev/examples
[ -f "$ex/io_uring-cp.c" ] || { echo "skipped: liburing-dev examples not installed"; exit 77; }
lib="$ANYRING_BUILD/lib"
run="$ANYRING_BUILD/bin/anyring-run"
# the examples free nothing at exit (io_uring-test leaks its buffers):
# leak checks of the library are the api-* tests' job, not theirs
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-ex.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for e in io_uring-cp io_uring-test link-cp ucontext-cp; do
	src="$ex/$e.c"
	[ -f "$src" ] || { echo "missing $src"; exit 1; }
	# under UBSan, link-cp.c's own misaligned struct access (the example
	# puts its struct after an odd-sized buffer) is not ours to report:
	# the examples skip the alignment check, the library keeps it
	exflags="$SANFLAGS"
	[ -n "$SANFLAGS" ] && exflags="$SANFLAGS -fno-sanitize=alignment"
	# shellcheck disable=SC2086
	$CC -O2 -w -D_GNU_SOURCE $exflags -o "$tmp/$e.anyring" "$src" -L"$lib" \
		-lanyring -Wl,-rpath,"$lib"
	$CC -O2 -w -D_GNU_SOURCE -o "$tmp/$e.uring" "$src" -luring
	$CC -O2 -w -D_GNU_SOURCE -o "$tmp/$e.static" "$src" \
		-Wl,-Bstatic -luring -Wl,-Bdynamic
	if ldd "$tmp/$e.static" | grep -q 'liburing\.so'; then
		echo "$e: the static build uses liburing.so"; exit 1
	fi
	# the anyring build must really use libanyring, not liburing
	ldd "$tmp/$e.anyring" | grep -q libanyring || { echo "$e: not linked to libanyring"; exit 1; }
	if ldd "$tmp/$e.anyring" | grep -q 'liburing\.so'; then
		echo "$e: also linked to liburing"; exit 1
	fi
done

# 64 MiB of random data, not a multiple of the examples' block sizes
head -c $((64 * 1024 * 1024 + 12345)) /dev/urandom > "$tmp/src"
head -c 2600 /dev/urandom > "$tmp/u1"
head -c 1500 /dev/urandom > "$tmp/u2"
# io_uring-test reads with O_DIRECT: a file on the temp filesystem
dd if="$tmp/src" of="$tmp/direct" bs=1M count=4 status=none

# check LABEL BUILD [PREFIX...]: every example through PREFIX (env, anyring-run)
check() {
	label=$1 build=$2; shift 2
	for e in io_uring-cp link-cp; do
		rm -f "$tmp/dst"
		"$@" "$tmp/$e.$build" "$tmp/src" "$tmp/dst" > "$tmp/out" 2>&1 || {
			echo "$e ($label) failed:"; cat "$tmp/out"; exit 1; }
		cmp "$tmp/src" "$tmp/dst" || { echo "$e ($label): copy differs"; exit 1; }
	done
	"$@" "$tmp/io_uring-test.$build" "$tmp/direct" > "$tmp/test.$label" 2>&1 || {
		echo "io_uring-test ($label) failed:"; cat "$tmp/test.$label"; exit 1; }
	grep -v '^==[0-9]*==' "$tmp/test.$label" > "$tmp/t" || true
	cmp -s "$tmp/t" "$tmp/test.ref" || {
		echo "io_uring-test ($label) differs:"; diff "$tmp/test.ref" "$tmp/t"; exit 1; }
	rm -f "$tmp/u1.$label" "$tmp/u2.$label"
	# ucontext-cp waits 1 s (an IORING_OP_TIMEOUT) per KiB: run it beside the others
	"$@" "$tmp/ucontext-cp.$build" "$tmp/u1" "$tmp/u1.$label" "$tmp/u2" \
		"$tmp/u2.$label" > "$tmp/ucontext.$label" 2>&1 &
	echo "$label: io_uring-cp, link-cp, io_uring-test as with -luring"
}

# the reference: the -luring builds on the kernel
"$tmp/io_uring-test.uring" "$tmp/direct" > "$tmp/test.ref" 2>&1
"$tmp/ucontext-cp.uring" "$tmp/u1" "$tmp/u1.ref" "$tmp/u2" "$tmp/u2.ref" \
	> "$tmp/ucontext.ref" 2>&1 &
labels="ref"
check uring uring env
check kernel anyring env ANYRING_ENGINE=kernel
check user anyring env ANYRING_ENGINE=user
labels="$labels uring kernel user"
if [ -z "$SAN" ]; then
	check deny-anyring anyring "$run" --deny-io-uring --
	check deny-uring uring "$run" --deny-io-uring --
	check static static env
	check deny-static static "$run" --deny-io-uring --
	# liburing.a's sites rewritten (above) and left to the signal
	check deny-static-signal static env ANYRING_TRAP=syscall "$run" --deny-io-uring --
	labels="$labels deny-anyring deny-uring static deny-static deny-static-signal"
	# and the rings there were the user engine's, chosen by auto's fallback
	rm -f "$tmp/dst"
	"$run" --deny-io-uring --debug -- "$tmp/io_uring-cp.uring" "$tmp/src" \
		"$tmp/dst" > "$tmp/out" 2>&1
	grep -q "engine user (auto.*refused" "$tmp/out" || {
		echo "deny: auto did not fall back to the user engine:"; cat "$tmp/out"; exit 1; }
	# liburing.a's own system calls: served by the trap, on the user engine
	rm -f "$tmp/dst"
	"$run" --deny-io-uring --debug -- "$tmp/io_uring-cp.static" "$tmp/src" \
		"$tmp/dst" > "$tmp/out" 2>&1
	grep -q "trap: installed" "$tmp/out" && grep -q "engine user" "$tmp/out" || {
		echo "deny, static: not served by the trap:"; cat "$tmp/out"; exit 1; }
	grep -q "first io_uring_enter served through a rewritten call site" "$tmp/out" || {
		echo "deny, static: no enter through a rewritten site:"; cat "$tmp/out"; exit 1; }
fi
wait
sort "$tmp/ucontext.ref" > "$tmp/uref"
for l in $labels; do
	grep -q "finished with 2 success(es) and 0 failure(s)" "$tmp/ucontext.$l" || {
		echo "ucontext-cp ($l) failed:"; cat "$tmp/ucontext.$l"; exit 1; }
	cmp "$tmp/u1" "$tmp/u1.$l" && cmp "$tmp/u2" "$tmp/u2.$l" || {
		echo "ucontext-cp ($l): copy differs"; exit 1; }
	# (ASan warns about swapcontext once: its "==pid==" lines are not output)
	grep -v '^==[0-9]*==' "$tmp/ucontext.$l" | sort > "$tmp/ul"
	cmp -s "$tmp/ul" "$tmp/uref" || {
		echo "ucontext-cp ($l) output differs:"; diff "$tmp/uref" "$tmp/ul"; exit 1; }
done
echo "ucontext-cp: identical copies and output ($labels)"
echo "io_uring-test: $(cat "$tmp/test.ref")"
