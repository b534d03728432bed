#!/bin/sh
# symbols: libanyring.so exports every function of Debian's liburing.so.2
# (liburing 2.3) under the same symbol version, and nothing else but
# anyring's own ANYRING_* node and, unversioned, the libc functions that
# a program sleeps on fds with (src/engine/pollhook.c: a user ring's fd
# is brought up to date first); so does the drop-in that anyring-liburing
# installs in liburing.so.2's place, whose soname is liburing.so.2.
set -eu
lib="$ANYRING_BUILD/lib/libanyring.so"
dropin="$ANYRING_BUILD/lib/dropin/liburing.so.2.3"
ref=$(ls /usr/lib/*/liburing.so.2 2>/dev/null | head -n 1)
[ -n "$ref" ] || { echo "skipped: Debian's liburing.so.2 not installed"; exit 77; }

dynsyms() {
	# "VERSION NAME" for each defined, versioned dynamic function
	objdump -T "$1" | awk '$4 == ".text" { print $(NF-1), $NF }' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dynsyms "$ref" > "$tmp/ref"
n=$(wc -l < "$tmp/ref")
[ "$n" -ge 50 ] || { echo "reference lists only $n symbols"; exit 1; }

# the poll hooks: unversioned ("Base"), so they bind versioned references
HOOKS="poll ppoll __poll_chk __ppoll_chk select pselect epoll_wait epoll_pwait epoll_pwait2 epoll_ctl syscall"

# same_map LIB: LIB exports liburing's (version, symbol) pairs, and beyond
# them only ANYRING_* and the hooks, unversioned
same_map() {
	dynsyms "$1" > "$tmp/ours"
	missing=$(comm -23 "$tmp/ref" "$tmp/ours")
	if [ -n "$missing" ]; then
		echo "missing from $1 (version symbol):"
		echo "$missing"
		exit 1
	fi
	for h in $HOOKS; do
		grep -qx "Base $h" "$tmp/ours" || { echo "$1 lacks the hook $h, unversioned"; exit 1; }
	done
	extra=$(comm -13 "$tmp/ref" "$tmp/ours" | grep -v '^ANYRING_' |
		grep -vxE "Base ($(echo $HOOKS | tr ' ' '|'))" || true)
	if [ -n "$extra" ]; then
		echo "$1 exports beyond liburing's map, ANYRING_* and the poll hooks:"
		echo "$extra"
		exit 1
	fi
}
same_map "$lib"
[ -f "$dropin" ] || { echo "the drop-in $dropin is not built"; exit 1; }
same_map "$dropin"
soname=$(objdump -p "$dropin" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = liburing.so.2 ] || { echo "the drop-in's soname is '$soname', not liburing.so.2"; exit 1; }
# the version definitions a program linked against liburing.so.2 asks for
for v in $(objdump -p "$ref" | awk '/^Version definitions:/ { d = 1; next } /^$/ { d = 0 } d && $4 ~ /^LIBURING_/ { print $4 }'); do
	objdump -p "$dropin" | grep -q " $v\$" || { echo "the drop-in does not define version $v"; exit 1; }
done
# the static library has the same functions
for s in $(awk '{print $2}' "$tmp/ref"); do
	nm "$ANYRING_BUILD/lib/libanyring.a" | grep -q " T $s\$" || {
		echo "libanyring.a lacks $s"; exit 1; }
done
echo "all $n liburing 2.3 symbols exported with their versions, by libanyring and by the drop-in"
