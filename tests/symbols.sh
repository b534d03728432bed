#!/bin/sh
# symbols: libanyring.so exports liburing 2.15's functions under its
# symbol versions, exactly the (version, name) pairs of liburing 2.15's
# map (tests/data/liburing-2.15.symbols: no more, no fewer), and nothing
# else but anyring's own ANYRING_* node and, unversioned, the libc
# functions that a program sleeps on fds with (src/engine/pollhook.c: a
# user ring's fd is brought up to date first) or reads an fd with (the
# readiness a ring's poll waits for is reaped first); so does the drop-in that
# anyring-liburing installs in liburing.so.2's place, whose soname is
# liburing.so.2. io_uring_enable_rings and io_uring_register_restrictions
# keep their old ANYRING_0.1 versions, as non-default aliases.
#
# The system's liburing.so.2, where installed, is a second reference:
# whatever version it is (Debian 12's 2.3, or up to 2.15), every (version,
# function) pair it exports is exported by libanyring too.
set -eu
lib="$ANYRING_BUILD/lib/libanyring.so"
data="$ANYRING_TOP/tests/data/liburing-2.15.symbols"
# the drop-in's file is named after the liburing version it stands in for
dropin=$(ls "$ANYRING_BUILD"/lib/dropin/liburing.so.2.* 2>/dev/null | head -n 1)
ref=$(ls /usr/lib/*/liburing.so.2 2>/dev/null | head -n 1)

export LC_ALL=C
dynsyms() {
	# "VERSION NAME" for each defined dynamic function; a non-default
	# version is "(VERSION)"
	objdump -T "$1" | awk '$4 == ".text" { print $(NF-1), $NF }' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sort -u "$data" > "$tmp/want"
nwant=$(wc -l < "$tmp/want")
[ "$nwant" -ge 80 ] || { echo "$data lists only $nwant symbols"; exit 1; }
if [ -n "$ref" ]; then
	dynsyms "$ref" > "$tmp/ref"
	n=$(wc -l < "$tmp/ref")
	[ "$n" -ge 50 ] || { echo "reference lists only $n symbols"; exit 1; }
	# a system liburing newer than 2.15 has functions anyring does not
	newer=$(comm -23 "$tmp/ref" "$tmp/want")
	if [ -n "$newer" ]; then
		echo "$ref exports beyond liburing 2.15's map (a newer liburing?):"
		echo "$newer"
		exit 1
	fi
else
	echo "no system liburing.so.2: comparing with liburing 2.15's map only"
	: > "$tmp/ref"
fi

# the poll and read hooks: unversioned ("Base"), so they bind versioned references
HOOKS="poll ppoll __poll_chk __ppoll_chk select pselect epoll_wait epoll_pwait epoll_pwait2 epoll_ctl syscall
read __read_chk readv recv __recv_chk recvfrom __recvfrom_chk recvmsg recvmmsg eventfd_read"
# the ANYRING_0.1 versions liburing 2.4's node took over
ALIASES="io_uring_enable_rings io_uring_register_restrictions"

# same_map LIB: LIB exports liburing 2.15's (version, symbol) pairs and
# no other LIBURING_* ones, the system's, and beyond them only
# ANYRING_* and the hooks, unversioned
same_map() {
	dynsyms "$1" > "$tmp/ours"
	grep '^LIBURING_' "$tmp/ours" > "$tmp/ours.liburing" || true
	missing=$(comm -23 "$tmp/want" "$tmp/ours.liburing")
	if [ -n "$missing" ]; then
		echo "missing from $1 (version symbol), of liburing 2.15's map:"
		echo "$missing"
		exit 1
	fi
	extra=$(comm -13 "$tmp/want" "$tmp/ours.liburing")
	if [ -n "$extra" ]; then
		echo "$1 exports LIBURING_* pairs that liburing 2.15's map has not:"
		echo "$extra"
		exit 1
	fi
	missing=$(comm -23 "$tmp/ref" "$tmp/ours")
	if [ -n "$missing" ]; then
		echo "missing from $1 (version symbol), of $ref:"
		echo "$missing"
		exit 1
	fi
	for h in $HOOKS; do
		grep -qx "Base $h" "$tmp/ours" || { echo "$1 lacks the hook $h, unversioned"; exit 1; }
	done
	for a in $ALIASES; do
		grep -qx "(ANYRING_0.1) $a" "$tmp/ours" || {
			echo "$1 lacks $a@ANYRING_0.1 (non-default)"; exit 1; }
		grep -qx "LIBURING_2.4 $a" "$tmp/ours" || {
			echo "$1 lacks $a@@LIBURING_2.4"; exit 1; }
		if grep -qx "ANYRING_0.1 $a" "$tmp/ours"; then
			echo "$1 exports $a@@ANYRING_0.1 as the default"; exit 1
		fi
	done
	extra=$(grep -v '^LIBURING_' "$tmp/ours" | grep -v '^(\{0,1\}ANYRING_' |
		grep -vxE "Base ($(echo $HOOKS | tr ' ' '|'))" || true)
	if [ -n "$extra" ]; then
		echo "$1 exports beyond liburing's map, ANYRING_* and the poll hooks:"
		echo "$extra"
		exit 1
	fi
}
same_map "$lib"
[ -n "$dropin" ] && [ -f "$dropin" ] || {
	echo "the drop-in $ANYRING_BUILD/lib/dropin/liburing.so.2.* is not built"; exit 1; }
same_map "$dropin"
soname=$(objdump -p "$dropin" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = liburing.so.2 ] || { echo "the drop-in's soname is '$soname', not liburing.so.2"; exit 1; }
# the version definitions a program linked against liburing.so.2 asks
# for: the system's, and all of liburing 2.15's (LIBURING_2.7 and the
# other empty nodes included)
vers=$(awk '{ print $1 }' "$tmp/want" | sort -u)
[ -n "$ref" ] && vers="$vers $(objdump -p "$ref" | awk '/^Version definitions:/ { d = 1; next } /^$/ { d = 0 } d && $4 ~ /^LIBURING_/ { print $4 }')"
for v in $vers LIBURING_2.7 LIBURING_2.12 LIBURING_2.13 LIBURING_2.14; do
	for so in "$lib" "$dropin"; do
		objdump -p "$so" | grep -q " $v\$" || { echo "$so does not define version $v"; exit 1; }
	done
done
# the static library has the same functions
nm "$ANYRING_BUILD/lib/libanyring.a" > "$tmp/nm"
for s in $(awk '{print $2}' "$tmp/want" "$tmp/ref" | sort -u); do
	grep -q " T $s\$" "$tmp/nm" || {
		echo "libanyring.a lacks $s"; exit 1; }
done
echo "all $nwant liburing 2.15 symbols exported with their versions, by libanyring and by the drop-in${ref:+; all $(wc -l < "$tmp/ref") of $ref too}"
