#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/callgrind.sh - user-space instructions per operation on the user
# engine, from callgrind: for each path, ringprobe's QD1 loop runs N and
# 2N operations and the cost is (Ir(2N) - Ir(N)) / N, which leaves out
# setup and exit (docs/performance.md, "How we measure"). Instruction
# counts do not depend on the machine's load, so they compare trees
# across refactors where timings cannot.
#
#   sh bench/callgrind.sh [BUILD]     after `make`; BUILD defaults to build
#
# Paths: nop, read (4 KiB random reads through the page cache), direct
# (the same with O_DIRECT), recv (4 KiB through a unix stream socket).
# Prints one line per path: "path Ir/op", the median of 3 runs.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
ENGINE=${ENGINE:-user}
W=$(mktemp -d "${TMPDIR:-/tmp}/cg.XXXXXX")
trap 'rm -rf "$W"' EXIT

command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
P=$W/ringprobe
cc -std=gnu11 -O2 -g -Wall -Wextra -I"$TOP/include" "$TOP/bench/ringprobe.c" -o "$P" \
	-L"$B/lib" -lanyring -Wl,-rpath,"$B/lib" -lpthread

# a 64 MiB file on a disk (O_DIRECT needs one; /tmp may be tmpfs)
D=${BENCH_DIR:-$TOP/build/bench}
mkdir -p "$D"
F=$D/callgrind-64m
[ -s "$F" ] || head -c 67108864 /dev/urandom > "$F"

ir() {	# ir MODE COUNT: total Ir of one run
	valgrind --tool=callgrind --callgrind-out-file="$W/cg" "$P" loop "$ENGINE" "$1" "$2" "$F" \
		>/dev/null 2>"$W/log" || { cat "$W/log" >&2; exit 1; }
	callgrind_annotate --auto=no "$W/cg" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

# the median of 3: a path with an engine thread (direct's AIO reaper)
# varies by how often that thread finds work
for spec in nop:20000 read:10000 direct:4000 recv:10000; do
	m=${spec%%:*} n=${spec#*:}
	for r in 1 2 3; do
		a=$(ir "$m" "$n")
		b=$(ir "$m" $((n * 2)))
		echo $(( (b - a) / n ))
	done | sort -n | sed -n 2p | sed "s/^/$m /"
done
