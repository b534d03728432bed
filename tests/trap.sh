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
# confirm, through each route: libc's syscall() served as a function call
# (uring-raw), call sites rewritten after their first trap (uring-raw
# built with the instruction inline, liburing.a, fio's enter), and with
# ANYRING_TRAP=syscall or =signal through the signal; with ANYRING_TRAP=0
# the refusal must reach the program. uring-raw also checks that an
# inline call keeps every register the system call keeps, that a site
# rewritten while other threads run it and one also reached by a jump to
# its syscall stay right, a fork, and which routes change the program's
# text (only the rewriting one).
# With SAN=address, uring-raw's modes run on every route with the
# sanitized library preloaded after libasan (the program is not built with
# it). With SAN=thread it is skipped: TSan cannot map the trap's site page
# (0x3f5a00000000 lies outside its application ranges).
set -eu
[ "$SAN" != thread ] || {
	echo "skipped: TSan cannot map the trap's fixed site page"; exit 77; }
case "$(uname -m)" in
x86_64) ;;
*) echo "skipped: the trap is x86_64 only"; exit 77 ;;
esac
run="$ANYRING_BUILD/bin/anyring-run"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-trap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$tmp/uring-raw" \
	"$ANYRING_TOP/tests/raw/uring-raw.c"
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -DRAW_INLINE \
	-o "$tmp/uring-inline" "$ANYRING_TOP/tests/raw/uring-raw.c"

if [ "$SAN" = address ]; then
	# libasan first, as a program built with it would have it; own-sigsys
	# is left out: ASan's sigaction() takes the program's SIGSYS handler
	# before the preload shim sees it
	asan=$($CC -print-file-name=libasan.so)
	lib="$ANYRING_BUILD/lib"
	for b in uring-raw uring-inline; do
		for m in "" blocked-but-sigsys altstack blocked-all small-stack close-reuse close-ends close-index close-mapped poll-ringfd pbuf-mmap threads fork regs jump-in rex-site; do
			for route in "" syscall signal; do
				label="asan $b ${route:+ANYRING_TRAP=$route }$m"
				env LD_PRELOAD="$asan:$lib/libanyring.so:$lib/libanyring-sig.so.0" \
					ANYRING_ENGINE=user ANYRING_DEBUG=1 \
					${route:+ANYRING_TRAP=$route} \
					"$tmp/$b" $m > "$tmp/out" 2>&1 || {
					echo "$label: failed:"; cat "$tmp/out"; exit 1; }
				grep -q "uring-raw: ok" "$tmp/out" || {
					echo "$label: not ok:"; cat "$tmp/out"; exit 1; }
				if [ -z "$route" ] && [ $b = uring-inline ] &&
				   ! grep -q "site at .* rewritten" "$tmp/out"; then
					echo "$label: no site rewritten:"; cat "$tmp/out"; exit 1
				fi
				echo "$label: ok"
			done
		done
	done
	exit 0
fi
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -o "$tmp/uring-static" \
	"$ANYRING_TOP/tests/raw/uring-static.c" -Wl,-Bstatic -luring -Wl,-Bdynamic
if ldd "$tmp/uring-static" | grep -q liburing; then
	echo "uring-static: linked to liburing.so"; exit 1
fi

# ok LABEL PATTERN CMD...: CMD succeeds and its output has PATTERN
ok() {
	label=$1 pat=$2; shift 2
	# the label again last: the suite shows a failure's last lines only
	"$@" > "$tmp/out" 2>&1 || {
		echo "$label: failed:"; cat "$tmp/out"; echo "($label: failed)"; exit 1; }
	grep -q "$pat" "$tmp/out" || {
		echo "$label: no '$pat' in:"; cat "$tmp/out"; echo "($label: no '$pat')"; exit 1; }
	echo "$label: ok"
}

# has OUT PATTERN WHAT: the last run's output has PATTERN
has() {
	grep -q "$1" "$tmp/out" || { echo "$2:"; cat "$tmp/out"; exit 1; }
}
hasnt() {
	! grep -q "$1" "$tmp/out" || { echo "$2:"; cat "$tmp/out"; exit 1; }
}

# uring-raw makes its calls through libc's syscall(): served as function
# calls (the dynamic route), and again through the signal alone
# (ANYRING_TRAP=signal), as a program with the syscall instruction inline.
# uring-inline has the instruction inline: each site trapped once, then
# rewritten; with ANYRING_TRAP=syscall, the signal every time.
modes="blocked-but-sigsys altstack blocked-all own-sigsys small-stack close-reuse close-ends close-index close-mapped poll-ringfd pbuf-mmap threads fork"
for m in "" $modes; do
	ok "kernel $m" "uring-raw: ok" "$tmp/uring-raw" $m
	ok "kernel, inline $m" "uring-raw: ok" "$tmp/uring-inline" $m
	ok "refused $m" "engine user" "$run" --deny-io-uring --debug -- "$tmp/uring-raw" $m
	has "uring-raw: ok" "refused $m: not ok"
	has "routes: syscall() as a function call" "refused $m: not the dynamic route"
	hasnt "site at .* rewritten" "refused $m: a site rewritten in a program with none"
	ok "refused, signal route $m" "engine user" \
		env ANYRING_TRAP=signal "$run" --deny-io-uring --debug -- "$tmp/uring-raw" $m
	has "uring-raw: ok" "ANYRING_TRAP=signal $m: not ok"
	has "routes: the signal only" "ANYRING_TRAP=signal $m: the fast route is on"
	ok "refused, inline $m" "engine user" \
		"$run" --deny-io-uring --debug -- "$tmp/uring-inline" $m
	has "uring-raw: ok" "refused, inline $m: not ok"
	has "site at .* rewritten: its calls skip the signal" "refused, inline $m: no site rewritten"
	ok "refused, inline, syscall route $m" "engine user" \
		env ANYRING_TRAP=syscall "$run" --deny-io-uring --debug -- "$tmp/uring-inline" $m
	has "uring-raw: ok" "ANYRING_TRAP=syscall, inline $m: not ok"
	hasnt "site at .* rewritten" "ANYRING_TRAP=syscall, inline $m: a site rewritten"
done
grep -q "trap: installed (auto: the kernel refuses io_uring_setup" "$tmp/out" || {
	echo "the trap did not say why it was installed:"; cat "$tmp/out"; exit 1; }
# calls made inline in either build: registers kept, a jump to a syscall
for m in regs jump-in rex-site; do
	for b in uring-raw uring-inline; do
		ok "kernel, $b $m" "uring-raw: ok" "$tmp/$b" $m
		for route in "" syscall signal; do
			ok "refused, $b ${route:+ANYRING_TRAP=$route }$m" "uring-raw: ok" \
				env ${route:+ANYRING_TRAP=$route} \
				"$run" --deny-io-uring --debug -- "$tmp/$b" $m
			has "trap: installed" "$b $m: no trap"
			if [ -z "$route" ] && [ $b = uring-inline ]; then
				has "site at .* rewritten" "$b $m: no site rewritten"
			fi
		done
	done
done
# the program's text: changed by the rewriting route only
ok "text, kernel" "text: unchanged" "$tmp/uring-inline" text
ok "text, syscall()" "text: unchanged" "$run" --deny-io-uring -- "$tmp/uring-raw" text
ok "text, rewritten" "text: changed" "$run" --deny-io-uring -- "$tmp/uring-inline" text
ok "text, ANYRING_TRAP=syscall" "text: unchanged" \
	env ANYRING_TRAP=syscall "$run" --deny-io-uring -- "$tmp/uring-inline" text
ok "text, ANYRING_TRAP=signal" "text: unchanged" \
	env ANYRING_TRAP=signal "$run" --deny-io-uring -- "$tmp/uring-inline" text
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
has "io_uring_enter site at .* rewritten" \
	"static liburing: its enter site not rewritten"
ok "static liburing, refused, signal" "uring-static: ok" \
	env ANYRING_TRAP=syscall "$run" --deny-io-uring -- "$tmp/uring-static"

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
	# randwrite, verified, on each route
	for route in syscall signal ""; do
		ok "fio randwrite ${route:+ANYRING_TRAP=$route}" "engine user" \
			env ${route:+ANYRING_TRAP=$route} "$run" --deny-io-uring --debug -- \
			fio --name=trap --ioengine=io_uring --filename="$f" --size=8M \
			--rw=randwrite --bs=4k --iodepth=16 --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --verify_state_save=0
		has "err= 0" "fio randwrite ${route:+ANYRING_TRAP=$route}: an error"
	done
	has "first io_uring_enter served through a rewritten call site" \
		"fio: no enter through a rewritten site"
	# fio's io_uring options, buffered and O_DIRECT, QD1 and QD32, 1 and
	# 4 jobs: randrw with every write verified (crc32c); each route
	for route in "" syscall signal; do
		for o in "" --sqthread_poll=1 --fixedbufs=1 --registerfiles=1 \
			 --nonvectored=1 "--fixedbufs=1 --registerfiles=1 --sqthread_poll=1"; do
			for d in 0 1; do
				for qd in 1 32; do
					# 4 jobs, a file each (jobs sharing one
					# overwrite each other's verified blocks)
					jobs=1 file="--filename=$f"
					[ "$qd" = 1 ] || jobs=4 \
						file="--directory=$tmp --filename_format=fio.\$jobnum"
					# only the default route takes every combination
					[ -z "$route" ] || [ "$qd" = 32 ] || continue
					# shellcheck disable=SC2086
					ok "fio randrw ${route:+ANYRING_TRAP=$route }$o direct=$d iodepth=$qd numjobs=$jobs" \
						"err= 0" env ${route:+ANYRING_TRAP=$route} \
						"$run" --deny-io-uring -- fio --name=m \
						--ioengine=io_uring $file --size=4M \
						--rw=randrw --bs=4k --direct=$d --iodepth=$qd \
						--numjobs=$jobs --verify=crc32c --do_verify=1 \
						--verify_fatal=1 --verify_state_save=0 $o
					if grep -q "err= *[1-9]" "$tmp/out"; then cat "$tmp/out"; exit 1; fi
				done
			done
		done
	done
else
	echo "fio: not installed (scripts/setup.sh installs it)"
fi
