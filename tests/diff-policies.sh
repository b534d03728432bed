#!/bin/sh
# diff-policies: the differential suite's scenarios (kernel vs user,
# tests/diff; -m scenarios: the call cases, setup/register/enter results,
# run once in the differential test, but for the enter arguments' bad
# pointers, ua_enter*, which a wait= policy reads) under every completion-path policy
# combination: wake= x complete= x wait= (2 x 4 x 4 = 32), then block=worker twice
# and issue=inline twice. ANYRING_POLICY applies to the rings of both engines
# (the kernel engine takes wait= only). With a sanitizer, where one run
# takes several seconds, each value of each axis runs once at least
# (8 combinations: wake x complete, wait rotating).
# Env (from tests/run.sh): ANYRING_BUILD, SAN.
set -u
BIN="${ANYRING_BUILD:?ANYRING_BUILD is not set}/tests/differential"
[ -x "$BIN" ] || { echo "FAIL: $BIN not built"; exit 1; }
waits="sleep spin hybrid adaptive"
fails=0 runs=0 i=0
for complete in inline deferred punt single; do
	for wake in threshold every; do
		if [ -n "${SAN:-}" ]; then
			set -- $waits
			shift $((i % 4))
			ws=$1
			i=$((i + 1))
		else
			ws=$waits
		fi
		for wait in $ws; do
			pol="wake=$wake,complete=$complete,wait=$wait"
			runs=$((runs + 1))
			if out=$(ANYRING_POLICY=$pol "$BIN" -m scenarios 2>&1) &&
			   out2=$(ANYRING_POLICY=$pol "$BIN" -m calls ua_enter 2>&1); then
				echo "ok   $pol: $(echo "$out" | tail -n 1)"
			else
				fails=$((fails + 1))
				echo "FAIL $pol:"
				echo "$out" "${out2:-}" | grep -v '^PASS' | tail -n 30
			fi
		done
	done
done
# block=worker: blocking work in io-wq, as the kernel (the default,
# block=waiter, runs in every combination above); issue=inline: the
# submitting thread issues a batch alone, its reads in one io_submit
# (the default with two CPUs, issue=spread, shares them with a helper)
for pol in block=worker block=worker,complete=deferred issue=inline \
	   issue=inline,complete=deferred; do
	runs=$((runs + 1))
	if out=$(ANYRING_POLICY=$pol "$BIN" -m scenarios 2>&1); then
		echo "ok   $pol: $(echo "$out" | tail -n 1)"
	else
		fails=$((fails + 1))
		echo "FAIL $pol:"
		echo "$out" | grep -v '^PASS' | tail -n 30
	fi
done
echo "$runs policy combinations, $fails failed"
[ "$fails" -eq 0 ]
