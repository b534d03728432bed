#!/bin/sh
# fuzz: a short run of the differential SQE fuzzer (tests/fuzz/fuzz_sqe.c):
# `make fuzz` (clang, libFuzzer, ASan+UBSan); then the fixed findings
# (tests/fuzz/findings/FIXED) replayed with FUZZ_KEEP_FINDINGS=1, each must
# still give the same results on both engines; then the seed corpus and up
# to FUZZ_RUNS inputs (default 3000, at most FUZZ_SECS seconds, default 25)
# from a fixed seed, each run on the kernel and the user engine. A mismatch
# between the engines, a crash, a leak, a run whose CQEs do not all come
# (the harness waits FZ_HANG_SEC, 20 s) or an input taking over 60 s fails;
# the input is kept in $ANYRING_BUILD/tests/logs/. Plain build only: the
# fuzzer has its own sanitizers. Long runs: see tests/fuzz/fuzz_sqe.c.
set -u
[ -z "${SAN:-}" ] || { echo "skipped: checked in the plain build (the fuzzer has its own sanitizers)"; exit 77; }
command -v clang >/dev/null || { echo "skipped: no clang (scripts/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# libFuzzer is in libclang-rt-*-dev, which clang only recommends
printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n < 0; }\n' > "$tmp/p.c"
clang -fsanitize=fuzzer -o "$tmp/p" "$tmp/p.c" > "$tmp/p.log" 2>&1 || {
	echo "skipped: clang cannot link libFuzzer: $(head -n 1 "$tmp/p.log")"; exit 77; }

start=$(date +%s)
make -s -C "$ANYRING_TOP" fuzz > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
echo "make fuzz: $(( $(date +%s) - start )) s"

# regression inputs: the findings fixed since they were recorded
findings="$ANYRING_TOP/tests/fuzz/findings"
set --
while read -r name; do
	case $name in ''|'#'*) continue ;; esac
	[ -f "$findings/$name" ] || { echo "FIXED names a missing finding: $name"; exit 1; }
	set -- "$@" "$findings/$name"
done < "$findings/FIXED"
start=$(date +%s)
FUZZ_KEEP_FINDINGS=1 "$ANYRING_TOP/build/fuzz/fuzz_sqe" -timeout=60 -error_exitcode=1 \
	"$@" > "$tmp/fixed" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
case $rc in
0)	echo "fixed findings: $# replayed, no mismatch in $secs s" ;;
77)	tail -n 1 "$tmp/fixed"; exit 77 ;;
*)	sed -n '/==== MISMATCH/,/^==[0-9]*== ERROR/p' "$tmp/fixed" |
		grep -Ev '^    ([df][0-9]? |d/|fd |arena |sockets )' | head -n 40
	grep -E "ERROR|SUMMARY|ALARM" "$tmp/fixed" | head -n 10
	echo "fixed finding fails again: $(grep '^Running: ' "$tmp/fixed" | tail -n 1 | sed 's/^Running: //')"
	echo "replay: FUZZ_VERBOSE=1 FUZZ_KEEP_FINDINGS=1 build/fuzz/fuzz_sqe <finding>"
	echo "fixed findings failed (exit $rc) after $secs s"
	exit 1 ;;
esac

mkdir "$tmp/corpus"
cp "$ANYRING_TOP"/tests/fuzz/corpus/* "$tmp/corpus/"
start=$(date +%s)
"$ANYRING_TOP/build/fuzz/fuzz_sqe" -seed=1 -runs="${FUZZ_RUNS:-3000}" \
	-max_total_time="${FUZZ_SECS:-25}" -max_len=160 -timeout=60 -error_exitcode=1 \
	-artifact_prefix="$tmp/" "$tmp/corpus" > "$tmp/out" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
case $rc in
0)	grep -E "^#[0-9]+.*(DONE|pulse)" "$tmp/out" | tail -n 1
	echo "fuzz_sqe: no mismatch, crash, leak or hang in $secs s" ;;
77)	tail -n 1 "$tmp/out"; exit 77 ;;
*)	# the batch and both runs' CQEs, without the file snapshots (the
	# runner shows a failed test's last 25 lines)
	sed -n '/==== MISMATCH/,/^==[0-9]*== ERROR/p' "$tmp/out" |
		grep -Ev '^    ([df][0-9]? |d/|fd |arena |sockets )' | head -n 40
	grep -E "ERROR|SUMMARY|ALARM|Test unit written" "$tmp/out" | head -n 10
	for a in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
		[ -f "$a" ] || continue
		mkdir -p "$ANYRING_BUILD/tests/logs"
		cp "$a" "$ANYRING_BUILD/tests/logs/fuzz-$(basename "$a")"
		echo "input kept: $ANYRING_BUILD/tests/logs/fuzz-$(basename "$a")"
		echo "replay: FUZZ_VERBOSE=1 build/fuzz/fuzz_sqe <input>"
	done
	echo "fuzz_sqe failed (exit $rc) after $secs s"
	exit 1 ;;
esac
