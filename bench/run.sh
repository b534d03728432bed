#!/bin/sh
# make bench, until anyring-bench lands: report the machine's io_uring
# (anyring-info), then run Debian's liburing examples on the default engine
# linked with -lanyring, beside the same examples linked with -luring, on a
# file this script creates. Prints the median of 3 runs: wall time, MiB/s.
set -eu
O=${O:-build}
CC=${CC:-cc}
TOP=$(cd "$(dirname "$0")/.." && pwd)
MIB=${BENCH_MIB:-256}
ex=/usr/share/doc/liburing-dev/examples
lib="$TOP/$O/lib"

echo "== anyring-info"
"$TOP/$O/bin/anyring-info"
echo

tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for e in io_uring-cp link-cp; do
	$CC -O2 -w -o "$tmp/$e.anyring" "$ex/$e.c" -L"$lib" -lanyring -Wl,-rpath,"$lib"
	$CC -O2 -w -o "$tmp/$e.uring" "$ex/$e.c" -luring
done
echo "== examples: copy a $MIB MiB file (page cache), engine ${ANYRING_ENGINE:-auto}"
head -c $((MIB * 1024 * 1024)) /dev/urandom > "$tmp/src"
cat "$tmp/src" > /dev/null
# one untimed copy first (the first write of a new file pays for block
# allocation), then 3 rounds alternating the libraries; the median is shown
"$tmp/io_uring-cp.uring" "$tmp/src" "$tmp/dst"
run() {
	rm -f "$tmp/dst"
	t0=$(date +%s.%N)
	"$tmp/$1.$2" "$tmp/src" "$tmp/dst"
	t1=$(date +%s.%N)
	cmp -s "$tmp/src" "$tmp/dst" || { echo "$1 ($2): copy differs" >&2; exit 1; }
	echo "$t0 $t1" | awk '{ printf "%.4f\n", $2 - $1 }' >> "$tmp/$1.$2.times"
}
printf '%-12s %-10s %10s %10s\n' example library "median s" MiB/s
for e in io_uring-cp link-cp; do
	for r in 1 2 3; do
		run "$e" anyring
		run "$e" uring
	done
	for v in anyring uring; do
		sort -n "$tmp/$e.$v.times" | sed -n 2p | awk -v e="$e" -v v="lib$v" \
			-v m="$MIB" '{ printf "%-12s %-10s %10.3f %10.0f\n", e, v, $1, m / $1 }'
	done
done
echo
echo "anyring-bench (engines, policies, latency percentiles) is not built yet;"
echo "this is the examples' wall time only."
