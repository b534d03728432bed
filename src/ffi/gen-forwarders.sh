#!/bin/sh
# gen-forwarders.sh MAP HELPERS.o DROPIN.so: the forwarder list of
# liburing-ffi.so.2 (src/ffi/forwarders.S), one FWD(name, ffi node,
# drop-in version) per line on stdout: each name MAP (liburing 2.15's ffi
# map) lists that HELPERS.o (the header's helpers) does not define and
# DROPIN.so (liburing.so.2, libanyring) exports, under a version other
# than the map's. Under the same version no forwarder is made: the ffi
# library's NAME@V would come first in the lookup of its own reference
# to NAME@V and jump to itself; the drop-in's NAME@V, found through the
# ffi library's DT_NEEDED, serves dlsym() and programs linked to
# upstream's liburing-ffi.so.2 alike.
set -eu
map=$1 helpers=$2 dropin=$3
${NM:-nm} -g --defined-only "$helpers" | awk '{ print "H", $NF }' > "$helpers.defs"
# the drop-in's default versions: "VERSION NAME" of each defined function
${OBJDUMP:-objdump} -T "$dropin" |
	awk '$4 == ".text" && $(NF-1) ~ /^[A-Z]/ { print "D", $NF, $(NF-1) }' >> "$helpers.defs"
sed -e 's,/\*.*\*/,,' "$map" | awk '
	FILENAME != "-" {
		if ($1 == "H") helper[$2] = 1; else dropin[$2] = $3
		next
	}
	/^[A-Za-z_0-9.]+ *\{/ { node = $1; sub(/\{.*/, "", node); next }
	/^[ \t]*[A-Za-z_][A-Za-z_0-9]*;/ {
		name = $1; sub(/;.*/, "", name)
		if (name in helper || !(name in dropin) || dropin[name] == node)
			next
		printf "FWD(%s, %s, %s)\n", name, node, dropin[name]
	}' "$helpers.defs" -
rm -f "$helpers.defs"
