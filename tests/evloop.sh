#!/bin/sh
# evloop: an event loop shaped like Node.js's libuv, on raw io_uring
# system calls (tests/raw/evloop.c): an SQPOLL ring for awaited file
# operations (OPENAT, WRITE, FSYNC, READ, STATX, CLOSE, RENAMEAT,
# UNLINKAT; every CQE checked) and a ring batching EPOLL_CTL, both ring
# fds in an epoll set, CQEs reaped from memory when a ring fd polls
# readable. Runs once on the kernel (where io_uring_setup works), then
# under `anyring-run --deny-io-uring`, where the system-call trap serves
# it from the user engine (ANYRING_DEBUG must say so): EVLOOP_RUNS runs
# of 1000 ops (default 150, about 20 s on a 2-core machine), then
# variants: 4 chains at once, the SQ thread asleep between ops (every
# submit enters with SQ_WAKEUP), the ctl ring with an SQ array (Node 20),
# the file ring without SQPOLL, an idle period (the ring fds must stop
# polling readable) and the thread pool libuv falls back to. A lost
# ring-fd wakeup shows as a hang: evloop gives up after 10 s without
# progress, prints the rings' state and exits 2. Rare races need many
# runs: bench/evloop-soak.sh.
# Plain build only: a sanitized libanyring cannot be preloaded into a
# program built without the sanitizer.
set -eu
[ -z "$SAN" ] || { echo "skipped: preloading needs the plain build"; exit 77; }
case "$(uname -m)" in
x86_64) ;;
*) echo "skipped: the trap is x86_64 only"; exit 77 ;;
esac
run="$ANYRING_BUILD/bin/anyring-run"
runs=${EVLOOP_RUNS:-150}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-evloop.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$tmp/evloop" \
	"$ANYRING_TOP/tests/raw/evloop.c"

# ev LABEL CMD...: CMD (given 60 s; evloop itself gives up after 10 s
# without progress) exits 0 and says "evloop: ok"
ev() {
	label=$1; shift
	rc=0
	timeout -k 5 60 "$@" > "$tmp/out" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q "^evloop: ok" "$tmp/out"; then
		case $rc in
		2) echo "$label: hang (exit 2):" ;;
		124|137) echo "$label: killed by timeout after 60 s:" ;;
		*) echo "$label: failed (exit $rc):" ;;
		esac
		cat "$tmp/out"
		exit 1
	fi
}

# user LABEL ARGS...: evloop under the trap; both rings on the user engine
user() {
	label=$1; shift
	ev "$label" "$run" --deny-io-uring --debug -- "$tmp/evloop" -d "$tmp" "$@"
	if [ "$(grep -c ": engine user" "$tmp/out")" -lt 2 ]; then
		echo "$label: the user engine did not serve both rings:"
		cat "$tmp/out"
		exit 1
	fi
}

rc=0
"$tmp/evloop" -d "$tmp" > "$tmp/out" 2>&1 || rc=$?
case $rc in
0)	echo "kernel: $(grep '^evloop: ok' "$tmp/out")"
	ev "kernel -j 4" "$tmp/evloop" -d "$tmp" -j 4 ;;
3)	echo "kernel: io_uring refused here, not run ($(cat "$tmp/out"))" ;;
*)	echo "kernel: failed (exit $rc):"; cat "$tmp/out"; exit 1 ;;
esac

start=$(date +%s)
i=1
while [ "$i" -le "$runs" ]; do
	user "user run $i/$runs"
	i=$((i + 1))
done
echo "user: $runs runs of 1000 awaited ops in $(( $(date +%s) - start )) s, last:"
grep "^evloop: ok" "$tmp/out"

user "user -j 4" -j 4
echo "user -j 4: ok"
# sq_thread_idle 1 ms and 3 ms between ops: the SQ thread sleeps, every
# submit sees NEED_WAKEUP and enters with SQ_WAKEUP
user "user, SQ thread asleep" -n 200 --sq-idle 1 --think-ms 3
grep -q "sq_wakeups=[1-9]" "$tmp/out" || {
	echo "user, SQ thread asleep: no SQ_WAKEUP enter:"; cat "$tmp/out"; exit 1; }
echo "user, SQ thread asleep: ok ($(grep -o 'sq_wakeups=[0-9]*' "$tmp/out"))"
user "user, ctl ring with an SQ array" -n 200 --ctl-sqarray
echo "user, ctl ring with an SQ array: ok"
user "user, no SQPOLL" -n 200 --no-sqpoll
echo "user, no SQPOLL: ok"
# nothing in flight: the ring fds must not poll readable (the kernel's
# do not; a loop on one that stays readable spins)
user "user, idle 300 ms" -n 200 --idle 300 --idle-max-empty 3
echo "user, then idle: $(grep '^evloop: idle' "$tmp/out")"
ev "thread pool" "$run" --deny-io-uring -- "$tmp/evloop" -d "$tmp" --threadpool 4 -j 4
echo "thread pool: ok"
