#!/bin/sh
# symbols: libanyring.so exports every function of Debian's liburing.so.2
# (liburing 2.3) under the same symbol version, and nothing else but
# anyring's own ANYRING_* node.
set -eu
lib="$ANYRING_BUILD/lib/libanyring.so"
ref=$(ls /usr/lib/*/liburing.so.2 2>/dev/null | head -n 1)
[ -n "$ref" ] || { echo "skipped: Debian's liburing.so.2 not installed"; exit 77; }

dynsyms() {
	# "VERSION NAME" for each defined, versioned dynamic function
	objdump -T "$1" | awk '$4 == ".text" { print $(NF-1), $NF }' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dynsyms "$ref" > "$tmp/ref"
dynsyms "$lib" > "$tmp/ours"
n=$(wc -l < "$tmp/ref")
[ "$n" -ge 50 ] || { echo "reference lists only $n symbols"; exit 1; }

missing=$(comm -23 "$tmp/ref" "$tmp/ours")
if [ -n "$missing" ]; then
	echo "missing from libanyring (version symbol):"
	echo "$missing"
	exit 1
fi
extra=$(comm -13 "$tmp/ref" "$tmp/ours" | grep -v '^ANYRING_' || true)
if [ -n "$extra" ]; then
	echo "exported beyond liburing's map and ANYRING_*:"
	echo "$extra"
	exit 1
fi
# the static library has the same functions
for s in $(awk '{print $2}' "$tmp/ref"); do
	nm "$ANYRING_BUILD/lib/libanyring.a" | grep -q " T $s\$" || {
		echo "libanyring.a lacks $s"; exit 1; }
done
echo "all $n liburing 2.3 symbols exported with their versions"
