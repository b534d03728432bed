#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/layers.sh - the source tree's structure (docs/architecture.md):
#   - no folder of src/ includes a header of a folder that includes one
#     of its own, directly or through others (no include cycle);
#   - src/lib/ includes nothing above it;
#   - no code compares opcodes but the opcode table (src/user/opdef.h,
#     src/user/ops/opdef.c) and the files that implement opcodes
#     (src/user/ops/, and the core subsystems that own theirs: timeout.c,
#     poll.c); the core asks the table's bits instead.
set -eu

TOP=${ANYRING_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP"
fail=0

# the folder graph: "from to" per include of another folder's header
edges=$(for f in $(find src -name '*.[ch]'); do
	d=$(dirname "$f" | sed 's|^src/||')
	sed -n 's/^#include "\([a-z_/]*\)\/[a-z_0-9]*\.h".*/\1/p' "$f" |
		while read -r hd; do
			if [ "$hd" != "$d" ]; then echo "$d $hd"; fi
		done
done | sort -u)

# a cycle: some folder reaches itself (tsort reports one when it finds it)
if ! echo "$edges" | tsort >/dev/null 2>/tmp/layers.$$; then
	echo "include cycle between folders of src/:"
	cat /tmp/layers.$$
	fail=1
fi
rm -f /tmp/layers.$$

up=$(echo "$edges" | awk '$1 == "lib" { print }')
if [ -n "$up" ]; then
	echo "src/lib/ includes headers above it:"
	echo "$up"
	fail=1
fi

# opcode comparisons outside the table and the opcode files
cmp=$(grep -rnE 'opcode *[!=]= *(IORING_OP_|AR_OP_)|case +(IORING_OP_|AR_OP_)' src \
	--include='*.c' --include='*.h' |
	grep -vE '^src/user/ops/|^src/user/opdef\.h:|^src/user/(timeout|poll)\.c:' || true)
if [ -n "$cmp" ]; then
	echo "opcodes compared outside the opcode table and the opcode files:"
	echo "$cmp"
	fail=1
fi

[ "$fail" -eq 0 ] || exit 1
echo "src/ folders: $(echo "$edges" | wc -l) include edges, no cycle; lib/ includes only lib/; opcodes compared only in the table and the opcode files"
