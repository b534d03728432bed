#!/bin/sh
# trap: programs that make io_uring's system calls themselves, served by
# the system-call trap where io_uring is refused (`anyring-run
# --deny-io-uring`, as Docker's default profile refuses it) or the user
# engine is forced. tests/raw/uring-raw.c maps the ring with mmap(2) and
# drives it by hand: in main, with every signal blocked but SIGSYS or
# with SIGSYS too (in main and a thread), inside a signal handler on an
# alternate stack, with its own SIGSYS handler and seccomp filter, on a
# coroutine's 8 KiB stack, closing rings with close(2) and reusing
# their numbers, polling the ring fd as libuv does, and mapping a buffer
# ring the ring allocated; uring-static.c links
# liburing.a; fio's io_uring engine writes and verifies a file. Each runs
# on the kernel first, then on the user engine, which ANYRING_DEBUG must
# confirm, through libc's syscall() served as a function call and, with
# ANYRING_TRAP=signal, through the signal; with ANYRING_TRAP=0 the refusal
# must reach the program.
# Plain build only: a sanitized libanyring cannot be preloaded into a
# program built without the sanitizer.
set -eu
[ -z "$SAN" ] || { echo "skipped: preloading needs the plain build"; exit 77; }
case "$(uname -m)" in
x86_64) ;;
*) echo "skipped: the trap is x86_64 only"; exit 77 ;;
esac
run="$ANYRING_BUILD/bin/anyring-run"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-trap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$tmp/uring-raw" \
	"$ANYRING_TOP/tests/raw/uring-raw.c"
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -o "$tmp/uring-static" \
	"$ANYRING_TOP/tests/raw/uring-static.c" -Wl,-Bstatic -luring -Wl,-Bdynamic
if ldd "$tmp/uring-static" | grep -q liburing; then
	echo "uring-static: linked to liburing.so"; exit 1
fi

# ok LABEL PATTERN CMD...: CMD succeeds and its output has PATTERN
ok() {
	label=$1 pat=$2; shift 2
	"$@" > "$tmp/out" 2>&1 || { echo "$label: failed:"; cat "$tmp/out"; exit 1; }
	grep -q "$pat" "$tmp/out" || { echo "$label: no '$pat' in:"; cat "$tmp/out"; exit 1; }
	echo "$label: ok"
}

# uring-raw makes its calls through libc's syscall(): served as function
# calls (the dynamic route), and again through the signal alone
# (ANYRING_TRAP=signal), as a program with the syscall instruction inline
for m in "" blocked-but-sigsys altstack blocked-all own-sigsys small-stack close-reuse poll-ringfd pbuf-mmap; do
	ok "kernel $m" "uring-raw: ok" "$tmp/uring-raw" $m
	ok "refused $m" "engine user" "$run" --deny-io-uring --debug -- "$tmp/uring-raw" $m
	grep -q "uring-raw: ok" "$tmp/out" || { cat "$tmp/out"; exit 1; }
	grep -q "routes: syscall() as a function call" "$tmp/out" || {
		echo "refused $m: not the dynamic route:"; cat "$tmp/out"; exit 1; }
	ok "refused, signal route $m" "engine user" \
		env ANYRING_TRAP=signal "$run" --deny-io-uring --debug -- "$tmp/uring-raw" $m
	grep -q "uring-raw: ok" "$tmp/out" || { cat "$tmp/out"; exit 1; }
	grep -q "routes: the signal only" "$tmp/out" || {
		echo "ANYRING_TRAP=signal $m: the fast route is on:"; cat "$tmp/out"; exit 1; }
done
grep -q "trap: installed (auto: the kernel refuses io_uring_setup" "$tmp/out" || {
	echo "the trap did not say why it was installed:"; cat "$tmp/out"; exit 1; }
ok "forced user" "trap: installed (auto: ANYRING_ENGINE=user)" \
	"$run" --engine=user --debug -- "$tmp/uring-raw"
# a shell with the trap runs the program (it inherits the filter and adds
# its own) and a static program (the filter, no handler: nothing to trap)
printf 'int main(void) { return 0; }\n' > "$tmp/static.c"
$CC -static -o "$tmp/static" "$tmp/static.c" 2> /dev/null || cp /bin/true "$tmp/static"
ok "exec under the trap" "uring-raw: ok" "$run" --deny-io-uring -- \
	/bin/sh -c "'$tmp/static' && '$tmp/uring-raw' && '$tmp/uring-static'"
grep -q "uring-static: ok" "$tmp/out" || { cat "$tmp/out"; exit 1; }
# trapped on a kernel that allows io_uring: the kernel's rings, through the seam
ok "forced trap, kernel" "engine kernel" \
	env ANYRING_TRAP=1 "$run" --debug -- "$tmp/uring-raw"
grep -q "trap: installed (ANYRING_TRAP=1)" "$tmp/out" || { cat "$tmp/out"; exit 1; }
ok "static liburing" "uring-static: ok" "$tmp/uring-static"
ok "static liburing, refused" "engine user" \
	"$run" --deny-io-uring --debug -- "$tmp/uring-static"

# without the trap the refusal reaches the program
if ANYRING_TRAP=0 "$run" --deny-io-uring -- "$tmp/uring-raw" > "$tmp/out" 2>&1; then
	echo "ANYRING_TRAP=0: the program ran although io_uring was refused"; exit 1
fi
grep -q "io_uring_setup: Operation not permitted" "$tmp/out" || { cat "$tmp/out"; exit 1; }
echo "ANYRING_TRAP=0: refused, as without anyring"

# a fully static program takes no preload: anyring-run says so
if ! ldd "$tmp/static" > /dev/null 2>&1; then
	ok "fully static" "is statically linked: no library can be preloaded" \
		"$run" -- "$tmp/static"
fi

if command -v fio > /dev/null; then
	f="$tmp/fio.dat"
	ok "fio, refused" "engine user" "$run" --deny-io-uring --debug -- \
		fio --name=trap --ioengine=io_uring --filename="$f" --size=8M \
		--rw=randwrite --bs=4k --iodepth=16 --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_state_save=0
	grep -q "err= 0" "$tmp/out" || { echo "fio: an error:"; cat "$tmp/out"; exit 1; }
	# fio's io_uring options, buffered and O_DIRECT, QD1 and QD32: randrw
	# with every write verified (crc32c)
	for o in "" --sqthread_poll=1 --fixedbufs=1 --registerfiles=1 \
		 --nonvectored=1 "--fixedbufs=1 --registerfiles=1 --sqthread_poll=1"; do
		for d in 0 1; do
			for qd in 1 32; do
				# shellcheck disable=SC2086
				ok "fio randrw $o direct=$d iodepth=$qd" "err= 0" \
					"$run" --deny-io-uring -- fio --name=m \
					--ioengine=io_uring --filename="$f" --size=4M \
					--rw=randrw --bs=4k --direct=$d --iodepth=$qd \
					--verify=crc32c --do_verify=1 --verify_fatal=1 \
					--verify_state_save=0 $o
			done
		done
	done
else
	echo "fio: not installed (scripts/setup.sh installs it)"
fi
