#!/bin/sh
# ffi: liburing-ffi.so.2, built beside the drop-in (src/ffi/). Checks
# - what it is: soname liburing-ffi.so.2, DT_NEEDED liburing.so.2, and no
#   engine of its own (no libanyring.so.0, none of the engine's symbols);
# - its helpers: every function the build's <liburing.h> defines inline
#   (listed here from the preprocessed header, with the CFLAGS_EXTRA the
#   build had, if any), none else;
# - its exports: the (version, name) pairs of liburing 2.15's ffi map
#   (tests/data/liburing-ffi-2.15.symbols) that are the header's helpers,
#   or functions the drop-in exports under another version (forwarded);
#   a function the drop-in exports under the map's very version is the
#   drop-in's own (no forwarder: src/ffi/gen-forwarders.sh says why).
#   Nothing else;
# - each forwarder's jump is relocated against the drop-in's version of
#   its name, not against itself, and what the helpers call is the
#   drop-in's or such a forwarder;
# - tests/ffi/dlopen.c: SDL3's way, dlopen() and dlsym(), a file written,
#   fsynced, read back, a timeout cancelled, on the kernel engine (when the
#   kernel has io_uring), the user engine, and, plain build only, under
#   anyring-run --deny-io-uring with the drop-in preloaded (auto: the
#   kernel refuses, the user engine serves);
# - tests/ffi/link.c: a program linked to liburing-ffi.so.2 references
#   the ffi map's versions (LIBURING_2.4) and runs on both engines.
set -eu
dir="$ANYRING_BUILD/lib/dropin"
ffi="$dir/liburing-ffi.so.2"
helpers="$ANYRING_BUILD/obj/ffi/helpers.o"
fwdlist="$ANYRING_BUILD/obj/ffi/forwarders.inc"
data="$ANYRING_TOP/tests/data/liburing-ffi-2.15.symbols"
[ -f "$ffi" ] && [ -f "$dir/liburing.so.2" ] ||
	{ echo "$ffi or its liburing.so.2 is not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-ffi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; exit 1; }

# --- what it is ---
soname=$(objdump -p "$ffi" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = liburing-ffi.so.2 ] || fail "soname '$soname', not liburing-ffi.so.2"
needed=$(objdump -p "$ffi" | awk '$1 == "NEEDED" { print $2 }')
echo "$needed" | grep -qx liburing.so.2 || fail "no DT_NEEDED liburing.so.2: $needed"
echo "$needed" | grep -q libanyring && fail "needs libanyring: $needed"
# the engine's own functions (ar_*, anyring_*) are nowhere in it
if nm "$ffi" | awk '$2 ~ /^[TtDdBb]$/ && $3 ~ /^(ar_|anyring_)/' | grep -q .; then
	fail "it holds engine code: $(nm "$ffi" | awk '$3 ~ /^(ar_|anyring_)/ { print $3 }' | head -5)"
fi

# --- its helpers: the header's inline functions ---
# with IOURINGINLINE (liburing >= 2.4) the helpers are what it marks; in
# 2.3's header, every "static inline" function of liburing.h itself
printf '#include <liburing.h>\n' |
	$CC -std=gnu11 -D_GNU_SOURCE ${CFLAGS_EXTRA:-} -DIOURINGINLINE=ffi_helper_mark -E -x c - |
	awk '
	/^# [0-9]+ "/ { inh = ($3 ~ /\/liburing\.h"$/); next }
	!inh { next }
	/^[ \t]*(ffi_helper_mark|static[ \t]+(__)?inline)[ \t]/ {
		s = $0
		while (s !~ /\(/ && (getline l) > 0) s = s " " l
		sub(/\(.*/, "", s); n = split(s, w, /[ \t*]+/)
		if (s ~ /ffi_helper_mark/) mark[w[n]] = 1; else stat[w[n]] = 1
	}
	END { for (f in mark) { print f; m = 1 } if (!m) for (f in stat) print f }' |
	sort > "$tmp/header"
nm -g --defined-only "$helpers" | awk '{ print $NF }' | sort > "$tmp/helpers"
[ -s "$tmp/header" ] || fail "no helper found in <liburing.h>"
if ! cmp -s "$tmp/header" "$tmp/helpers"; then
	echo "the helper object and <liburing.h> (CFLAGS_EXTRA='${CFLAGS_EXTRA:-}') disagree:"
	diff "$tmp/header" "$tmp/helpers" || true
	exit 1
fi

# --- its exports ---
dynsyms() {
	# "VERSION NAME" of each defined function, default versions only
	objdump -T "$1" | awk '$4 == ".text" && $(NF-1) ~ /^[A-Z]/ { print $(NF-1), $NF }' | sort -u
}
dynsyms "$ffi" > "$tmp/ours"
dynsyms "$dir/liburing.so.2" > "$tmp/dropin"
grep -v '^#' "$data" | awk -v H="$tmp/helpers" -v D="$tmp/dropin" -v T="$tmp" '
	BEGIN {
		while ((getline l < H) > 0) helper[l] = 1
		while ((getline l < D) > 0) { split(l, f, " "); dropin[f[2]] = f[1] }
	}
	$2 in helper { print > (T "/expect"); nh++; next }
	$2 in dropin && dropin[$2] != $1 { print > (T "/expect"); print > (T "/fwd"); nf++; next }
	$2 in dropin { print > (T "/same"); ns++; next }
	{ print > (T "/absent"); na++ }
	END {
		printf "liburing 2.15 ffi map: %d helpers of the header, %d forwarded, " \
			"%d the drop-in'"'"'s own (same version), %d absent\n", nh, nf, ns, na
	}'
touch "$tmp/expect" "$tmp/fwd" "$tmp/same" "$tmp/absent"
sort -o "$tmp/expect" "$tmp/expect"
missing=$(comm -23 "$tmp/expect" "$tmp/ours")
[ -z "$missing" ] || fail "missing from liburing-ffi.so.2 (version name):
$missing"
extra=$(comm -13 "$tmp/expect" "$tmp/ours")
[ -z "$extra" ] || fail "liburing-ffi.so.2 exports beyond the expected:
$extra"
# a name the drop-in has under the map's version: the drop-in's, not ours
while read -r v n; do
	grep -q " $n\$" "$tmp/ours" && fail "$n is both ours and the drop-in's at $v"
done < "$tmp/same"
[ -s "$tmp/absent" ] && echo "absent (neither in this header nor exported by the drop-in):" \
	$(awk '{ print $2 }' "$tmp/absent")
# every node of the map is defined, empty or not: a program linked to
# liburing's ffi library needs each version it names from it
for v in $(grep -o '^LIBURING_[0-9.]*' "$ANYRING_TOP/src/ffi/liburing-ffi.map"); do
	objdump -p "$ffi" | grep -q " $v\$" || fail "version $v is not defined"
done
# the build's forwarder list is the forwarded set
awk -F'[(), ]+' '/^FWD/ { print $3, $2 }' "$fwdlist" | sort > "$tmp/fwdlist"
sort -o "$tmp/fwd" "$tmp/fwd"
cmp -s "$tmp/fwd" "$tmp/fwdlist" || { diff "$tmp/fwd" "$tmp/fwdlist"; fail "forwarders.inc differs"; }

# --- each forwarder jumps to the drop-in's version of its name ---
readelf -rW "$ffi" | awk '$3 ~ /JUMP_SLOT|GLOB_DAT/ { print $5 }' | sort -u > "$tmp/relocs"
while read -r v n; do
	dv=$(awk -v n="$n" '$2 == n { print $1 }' "$tmp/dropin")
	grep -qx "$n@$dv" "$tmp/relocs" || fail "forwarder $n@$v: no relocation against $n@$dv"
done < "$tmp/fwd"

# the functions the helpers call (io_uring_wait_cqe: __io_uring_get_cqe)
# are the drop-in's, or the ffi library's forwarders to them
for n in $(nm -u "$helpers" | awk '$NF ~ /uring/ { print $NF }'); do
	dv=$(awk -v n="$n" '$2 == n { print $1 }' "$tmp/dropin")
	[ -n "$dv" ] || fail "the helpers call $n, which the drop-in does not export"
	grep -q " $n\$" "$tmp/ours" && ! grep -q " $n\$" "$tmp/fwd" &&
		fail "the helpers call $n, defined in liburing-ffi.so.2 but not as a forwarder"
done

# --- dlopen, as SDL3 ---
$CC -std=gnu11 -O2 -g -Wall -Wextra -Werror ${CFLAGS_EXTRA:-} $SANFLAGS \
	-I"$ANYRING_TOP/include" -I"$ANYRING_TOP/tests" \
	-o "$tmp/dlopen" "$ANYRING_TOP/tests/ffi/dlopen.c" -ldl
if nm -u "$tmp/dlopen" | grep -q uring; then
	fail "tests/ffi/dlopen.c links to liburing: $(nm -u "$tmp/dlopen" | grep uring)"
fi
mkdir "$tmp/d"
run() {
	# run ENGINE CMD...: CMD with ANYRING_ENGINE=ENGINE, the drop-in's
	# directory first on the library path
	e=$1; shift
	env ANYRING_ENGINE="$e" LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}
# the kernel engine where the kernel has io_uring (auto says which)
kern=$(run auto "$tmp/dlopen" "$ffi" auto "$tmp/d" | sed -n 's/.*engine \([a-z]*\): ok/\1/p')
[ -n "$kern" ] || fail "ffi/dlopen failed on the auto engine"
if [ "$kern" = kernel ]; then
	run kernel "$tmp/dlopen" "$ffi" kernel "$tmp/d"
else
	echo "the kernel refuses io_uring here: kernel engine not tried"
fi
run user "$tmp/dlopen" "$ffi" user "$tmp/d"
# preloading needs a plain build (a sanitizer's runtime must come first)
run="$ANYRING_BUILD/bin/anyring-run"
if [ -z "$SAN" ] && [ -x "$run" ]; then
	out=$(env LD_LIBRARY_PATH="$dir" "$run" --deny-io-uring --lib="$dir/liburing.so.2" -- \
		"$tmp/dlopen" "$ffi" user "$tmp/d")
	echo "anyring-run --deny-io-uring: $out"
fi

# --- linked to it ---
$CC -std=gnu11 -O2 -g -Wall -Wextra -Werror ${CFLAGS_EXTRA:-} $SANFLAGS \
	-D_GNU_SOURCE -I"$ANYRING_TOP/include" -I"$ANYRING_TOP/tests" \
	-o "$tmp/link" "$ANYRING_TOP/tests/ffi/link.c" \
	-L"$dir" -l:liburing-ffi.so.2 -Wl,-rpath-link,"$dir"
objdump -T "$tmp/link" | awk '/\*UND\*/ && $NF ~ /uring/ { print $(NF-1), $NF }' > "$tmp/refs"
[ "$(wc -l < "$tmp/refs")" -ge 9 ] || fail "link: only $(wc -l < "$tmp/refs") liburing references"
grep -v '^(LIBURING_2.4)' "$tmp/refs" && fail "link: references not at LIBURING_2.4 (above)"
objdump -p "$tmp/link" | grep -q "required from liburing.so.2" &&
	fail "link: references liburing.so.2 itself"
for e in kernel user; do
	[ "$e" = kernel ] && [ "$kern" != kernel ] && continue
	run "$e" "$tmp/link"
done
echo "liburing-ffi.so.2: $(wc -l < "$tmp/ours") functions exported, $(wc -l < "$tmp/fwd") of them forwarders"
