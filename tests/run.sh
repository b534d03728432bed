#!/bin/sh
# The test runner: runs every test program in $O/tests and every tests/*.sh
# with a timeout, counts exit 77 as skipped, and ends with the line
# "N passed, N failed, N skipped". Exits non-zero when anything failed.
# Env: O (build dir), SAN, CC, SANFLAGS; T_TIMEOUT (seconds per test, 300).
set -u
O=${O:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
LOGS="$O/tests/logs"
mkdir -p "$LOGS"
T_TIMEOUT=${T_TIMEOUT:-300}
export ANYRING_TOP="$TOP" ANYRING_BUILD="$TOP/$O" SAN="${SAN:-}" CC="${CC:-cc}" SANFLAGS="${SANFLAGS:-}"

[ "${SAN:-}" = thread ] &&
	export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$TOP/tests/tsan.supp:halt_on_error=1"
pass=0 fail=0 skip=0 failed=""
# run_one NAME ENGINE CMD...: ENGINE is the api tests' ANYRING_TEST_ENGINE
run_one() {
	tname=$1 tengine=$2; shift 2
	log="$LOGS/$tname.log"
	start=$(date +%s)
	ANYRING_TEST_ENGINE=$tengine timeout -k 10 "$T_TIMEOUT" "$@" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0)  pass=$((pass + 1)); printf '  PASS %-28s %3ss\n' "$tname" "$secs" ;;
	77) skip=$((skip + 1)); printf '  SKIP %-28s %s\n' "$tname" "$(tail -n 1 "$log")" ;;
	124|137) fail=$((fail + 1)); failed="$failed $tname"
	    printf '  FAIL %-28s timed out after %ss\n' "$tname" "$T_TIMEOUT"
	    sed 's/^/       | /' "$log" | tail -n 25 ;;
	*)  fail=$((fail + 1)); failed="$failed $tname"
	    printf '  FAIL %-28s exit %s\n' "$tname" "$rc"
	    sed 's/^/       | /' "$log" | tail -n 25 ;;
	esac
}

# api-* tests run once per engine (ANYRING_TEST_ENGINES, default both)
ENGINES=${ANYRING_TEST_ENGINES:-kernel user}
echo "anyring tests (${SAN:-no sanitizer}), logs in $LOGS"
for t in "$O"/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=$(basename "$t")
	case $name in
	api-*)
		for e in $ENGINES; do
			run_one "$name@$e" "$e" "$t"
		done ;;
	*)	run_one "$name" kernel "$t" ;;
	esac
done
for t in "$TOP"/tests/*.sh; do
	# deb-smoke.sh installs packages system-wide: make deb-check runs it
	case $(basename "$t") in run.sh|deb-smoke.sh) continue ;; esac
	run_one "$(basename "$t" .sh)" kernel sh "$t"
done

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
