#!/bin/sh
# evloop-soak.sh: tests/raw/evloop.c (a libuv-shaped event loop on raw
# io_uring system calls) run over and over where io_uring is refused, so
# the system-call trap serves it from the user engine; rare races (a
# lost ring-fd wakeup is a hang) show up only in many runs. Not part of
# `make test`.
#
#   bench/evloop-soak.sh [EVLOOP ARGS...]     e.g. -j 4, --think-ms 2
#
# Environment:
#   SOAK_RUNS   runs (default 10000)
#   SOAK_OPS    awaited file ops per run, evloop's -n (default 100)
#   SOAK_HANG   seconds without progress that make a hang, evloop's -t
#               (default 5)
#   SOAK_PAR    runs at once (default 1)
#   SOAK_LOGS   where the output of each failing run is kept
#               (default build/bench/evloop-soak)
#   ANYRING_BUILD  the build to run (default build/ of this tree)
#
# Prints a progress line every 1000 runs and the first lines of each
# failing run, then "evloop-soak: runs=N ok=N fail=N hang=N secs=S ...".
# Exit 0 only when every run passed. Exit codes of evloop: 0 ok, 1 wrong
# result, 2 hang (it prints the rings' state), 3 io_uring_setup refused;
# killed by the per-run timeout counts as a hang.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${ANYRING_BUILD:-$top/build}
runs=${SOAK_RUNS:-10000}
ops=${SOAK_OPS:-100}
hang=${SOAK_HANG:-5}
par=${SOAK_PAR:-1}
logs=${SOAK_LOGS:-$top/build/bench/evloop-soak}
run="$build/bin/anyring-run"
[ -x "$run" ] || { echo "evloop-soak: no $run: run make first"; exit 1; }
case "$(uname -m)" in
x86_64) ;;
*) echo "evloop-soak: the trap is x86_64 only"; exit 1 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/evloop-soak.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$tmp/evloop" \
	"$top/tests/raw/evloop.c"
mkdir -p "$logs"
rm -f "$logs"/run-*.log

# the user engine must be the one serving
"$run" --deny-io-uring --debug -- "$tmp/evloop" -n 8 -d "$tmp" > "$tmp/pre" 2>&1 || {
	echo "evloop-soak: the first run failed:"; cat "$tmp/pre"; exit 1; }
grep -q ": engine user" "$tmp/pre" || {
	echo "evloop-soak: not served by the user engine:"; cat "$tmp/pre"; exit 1; }

# the extra arguments, quoted for the run script
args=""
for a in "$@"; do
	args="$args '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
echo "evloop-soak: $runs runs of anyring-run --deny-io-uring -- evloop -n $ops -t $hang$args, $par at a time"
# one run: "<i> <exit code>"; the output is kept when it failed
cat > "$tmp/one" <<EOF
#!/bin/sh
i=\$1
out="$tmp/out.\$i"
rc=0
timeout -k 5 $((hang + 30)) "$run" --deny-io-uring -- "$tmp/evloop" -d "$tmp" \
	-n $ops -t $hang$args > "\$out" 2>&1 || rc=\$?
if [ \$rc -ne 0 ]; then mv "\$out" "$logs/run-\$i.log"; else rm -f "\$out"; fi
echo "\$i \$rc"
EOF
chmod +x "$tmp/one"

start=$(date +%s)
ok=0 fail=0 hangs=0 done=0
# the loop runs in a subshell (the end of a pipe): its counts come back
# through a file
seq 1 "$runs" | xargs -P "$par" -n 1 "$tmp/one" | {
	while read -r i rc; do
		done=$((done + 1))
		case $rc in
		0) ok=$((ok + 1)) ;;
		2|124|137) hangs=$((hangs + 1))
		   echo "run $i: hang (exit $rc), $logs/run-$i.log:"
		   sed -n '1,8s/^/  | /p' "$logs/run-$i.log" ;;
		*) fail=$((fail + 1))
		   echo "run $i: failed (exit $rc), $logs/run-$i.log:"
		   sed -n '1,8s/^/  | /p' "$logs/run-$i.log" ;;
		esac
		[ $((done % 1000)) -ne 0 ] ||
			echo "  $done/$runs: ok=$ok fail=$fail hang=$hangs ($(( $(date +%s) - start )) s)"
	done
	echo "$ok $fail $hangs" > "$tmp/counts"
}
read -r ok fail hangs < "$tmp/counts"
secs=$(( $(date +%s) - start ))
echo "evloop-soak: runs=$runs ok=$ok fail=$fail hang=$hangs secs=$secs ops_per_run=$ops args=$args"
[ "$fail" -eq 0 ] && [ "$hangs" -eq 0 ]
