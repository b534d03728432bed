#!/bin/sh
# SPDX-License-Identifier: MIT
#
# readpath.sh - the path one page-cache READ takes through libanyring on
# the user engine, from io_uring_submit() to its CQE, as a call tree in
# execution order, with its measures (analyze.py): functions, files, file
# switches, entries into submit.c.
#
#   sh readpath.sh [LABEL LIBDIR SRCDIR]...
#
# LIBDIR holds libanyring.so.0 (a build's build/lib, or a copy);
# SRCDIR is the src/ its objects were compiled from (include/ beside it).
# Default: "tree build/lib src", this tree's build (after make).
# MODES (default "fast ioprio bufidx two"): readpath.c's kinds of submit;
# OUT (default build/readpath) gets, per LABEL and MODE:
#   LABEL-MODE.jsonl     trace.py's events (gdb, one instruction at a time)
#   LABEL-MODE.txt       analyze.py's trees and measures
#   LABEL-MODE.cg.*      callgrind's profile of the marked submit alone
#                        (--dump-before/--dump-after), its call edges
#                        compared with gdb's
# Needs gdb (with Python) and valgrind. Runs niced; one process at a time.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-$TOP/build/readpath}
MODES=${MODES:-fast ioprio bufidx two}
mkdir -p "$OUT"
[ $# -gt 0 ] || set -- tree "$TOP/build/lib" "$TOP/src"

# the engine's defaults: no policy, fault or trap from the environment
for v in $(env | sed -n 's/^\(ANYRING_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

# a 64 KiB file, read once so the page cache holds it
DATA=$OUT/data
[ -s "$DATA" ] || head -c 65536 /dev/urandom > "$DATA"
cat "$DATA" > /dev/null

summary=$OUT/summary.txt
: > "$summary"
while [ $# -ge 3 ]; do
	label=$1 lib=$2 src=$3
	shift 3
	inc=$(dirname "$src")/include
	prog=$OUT/readpath-$label
	nice cc -std=gnu11 -O2 -fno-optimize-sibling-calls -g -Wall -Wextra \
		-I"$inc" "$HERE/readpath.c" -o "$prog" \
		-L"$lib" -lanyring -Wl,-rpath,"$lib" -lpthread
	for m in $MODES; do
		base=$OUT/$label-$m
		READPATH_OUT=$base.jsonl nice gdb -q -batch -nx \
			-x "$HERE/trace.py" --args "$prog" "$m" "$DATA" \
			> "$base.gdb.log" 2>&1
		grep -q "readpath: $m ok" "$base.gdb.log" ||
			{ echo "readpath.sh: gdb run failed: $base.gdb.log" >&2; exit 1; }
		rm -f "$base.cg".*
		nice valgrind --tool=callgrind --callgrind-out-file="$base.cg" \
			--dump-instr=no --dump-before=mark_submit \
			--dump-after=mark_submit "$prog" "$m" "$DATA" \
			> /dev/null 2> "$base.cg.log"
		cg=$(grep -l "^desc: Trigger: --dump-after=mark_submit" "$base.cg".* |
		     head -n 1)
		python3 "$HERE/analyze.py" "$base.jsonl" "$src" "$cg" --tree \
			> "$base.txt"
		python3 - "$label" "$m" "$base.txt" >> "$summary" <<'EOF'
import json, sys
label, mode, path = sys.argv[1:4]
t = open(path).read()
cg = "callgrind agrees" if "callgrind: the same" in t else "CALLGRIND DIFFERS"
d = json.loads(t[t.index("\n{") + 1:])
s = d["mark_submit"]
for view in ("compiled", "compiled_to_cqe", "source", "source_to_cqe"):
    v = s[view]
    extra = ""
    if "switches_with_returns" in v:
        extra = "  (with returns: switches %d, submit.c %d; list " \
            "neighbours: %d)" % (v["switches_with_returns"],
                                 v["submit_c_entries_with_returns"],
                                 v["list_neighbour_switches"])
    print("%-6s %-6s %-15s functions %3d  files %2d  calls %3d  switches %2d"
          "  submit.c entries %d%s" % (label, mode, view, v["functions"],
                                       v["files"], v["calls"], v["switches"],
                                       v["submit_c_entries"], extra))
w = d["mark_wait"]["compiled"]
print("%-6s %-6s %-15s library functions in io_uring_wait_cqe: %d; "
      "instructions stepped: submit %d, wait %d; %s" % (
          label, mode, "", w["functions"], s["steps"],
          d["mark_wait"]["steps"], cg))
EOF
	done
done
cat "$summary"
