#!/bin/sh
# debian: debian/ agrees with what the build installs, without building a
# package (make deb does that, with debhelper and lintian): each package
# in debian/control has an .install file; every pattern in those files
# matches what `make install PREFIX=/usr` puts in a staging root (or, for
# the drop-in, the build tree), and every installed file is claimed by one
# package; anyring-liburing's preinst diverts the files it ships and any
# other liburing library it finds, and its postrm takes them all back.
set -u
[ -z "$SAN" ] || { echo "skipped: checked on the plain build"; exit 77; }
TOP="${ANYRING_TOP:?}"
D="$TOP/debian"
ma=$($CC -print-multiarch)
[ -n "$ma" ] || { echo "skipped: $CC has no multiarch triplet"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-debian.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# the build's own variables: this runs beside other tests that use
# build/bin, which a relink with other flags would change under them
make -s -C "$TOP" install DESTDIR="$tmp/root" PREFIX=/usr > "$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; exit 1; }
(cd "$tmp/root" && find . ! -type d | sed 's|^\./||' | sort) > "$tmp/installed"

pkgs=$(awk '/^Package:/ { print $2 }' "$D/control")
[ -n "$pkgs" ] || { echo "FAIL: no Package in debian/control"; exit 1; }
: > "$tmp/claimed"
for p in $pkgs; do
	f="$D/$p.install"
	[ -f "$f" ] || { fail "$p has no debian/$p.install"; continue; }
	# "SOURCE [DEST]": SOURCE from the staging root, or build/ for the drop-in
	sed "s/\${DEB_HOST_MULTIARCH}/$ma/g" "$f" | while read -r src dest; do
		case $src in
		build/*) [ -e "$ANYRING_BUILD/${src#build/}" ] ||
				echo "FAIL: $p: $src is not built" ;;
		*)	# shellcheck disable=SC2086
			n=$(cd "$tmp/root" && for m in $src; do [ -e "$m" ] && find "$m" ! -type d; done | tee -a "$tmp/claimed" | wc -l)
			[ "$n" -gt 0 ] || echo "FAIL: $p: '$src' matches nothing make install installs" ;;
		esac
	done > "$tmp/out"
	[ -s "$tmp/out" ] && { cat "$tmp/out"; bad=1; }
done
sort "$tmp/claimed" | uniq -d > "$tmp/twice"
[ -s "$tmp/twice" ] && { fail "claimed by two packages:"; cat "$tmp/twice"; }
sort -u "$tmp/claimed" | comm -23 "$tmp/installed" - > "$tmp/unclaimed"
[ -s "$tmp/unclaimed" ] && { fail "installed but in no package:"; cat "$tmp/unclaimed"; }
[ $bad -eq 0 ] && echo "$(echo $pkgs | wc -w) packages; $(wc -l < "$tmp/installed") installed files, each in one package"

# the drop-in: its preinst and postrm run against a stand-in dpkg-divert
# and a library directory that holds what liburing2 2.9 installs plus a
# liburing.so.2.16 (a release newer than the package): preinst must divert
# everything the package ships and that newer file, postrm must undo every
# diversion and leave the directory as it was
ships=$( { sed "s/\${DEB_HOST_MULTIARCH}/$ma/g" "$D/anyring-liburing.install" |
	awk '{ n = split($1, a, "/"); print a[n] }'
	sed "s/\${DEB_HOST_MULTIARCH}/$ma/g" "$D/anyring-liburing.links" |
	awk '{ n = split($2, a, "/"); print a[n] }'; } | sort)
for f in $ships; do
	case $f in liburing.so.2*|liburing-ffi.so.2*) ;; *) fail "the drop-in ships $f" ;; esac
done
sb="$tmp/sandbox" fl="$tmp/sandbox/lib"
mkdir -p "$sb/bin" "$fl"
cat > "$sb/bin/dpkg-divert" <<'STUB'
#!/bin/sh
# records diversions in $SB/div ("FILE DIVERTED"), renames as --rename does
pkg= div= op= path=
while [ $# -gt 0 ]; do
	case $1 in
	--package) pkg=$2; shift ;;
	--divert) div=$2; shift ;;
	--rename) ;;
	--add|--remove) op=$1; path=$2; shift ;;
	--list) op=--list; path=$2; shift ;;
	*) echo "dpkg-divert stand-in: unexpected $1" >&2; exit 2 ;;
	esac
	shift
done
touch "$SB/div"
case $op in
--add)	grep -q "^$path " "$SB/div" && exit 0
	[ -e "$div" ] && { echo "dpkg-divert: $div exists" >&2; exit 2; }
	{ [ -e "$path" ] || [ -L "$path" ]; } && mv "$path" "$div"
	echo "$path $div" >> "$SB/div" ;;
--remove) grep -q "^$path " "$SB/div" || exit 0
	{ [ -e "$div" ] || [ -L "$div" ]; } && mv "$div" "$path"
	grep -v "^$path " "$SB/div" > "$SB/div.new"; mv "$SB/div.new" "$SB/div" ;;
--list)	while read -r f d; do
		case $f in $path) echo "diversion of $f to $d by anyring-liburing" ;; esac
	done < "$SB/div" ;;
esac
STUB
chmod +x "$sb/bin/dpkg-divert"
for f in liburing.so.2.9 liburing-ffi.so.2.9 liburing.so.2.16; do echo "$f" > "$fl/$f"; done
ln -s liburing.so.2.9 "$fl/liburing.so.2"
ln -s liburing-ffi.so.2.9 "$fl/liburing-ffi.so.2"
(cd "$fl" && ls -l | awk 'NR > 1 { print $1, $NF }') > "$tmp/before"
script() {	# script NAME ARG: run debian/anyring-liburing.NAME in the sandbox
	sed -e "s|/usr/lib/#DEB_HOST_MULTIARCH#|$fl|g" -e '/^#DEBHELPER#/d' \
		"$D/anyring-liburing.$1" > "$sb/$1"
	SB="$sb" PATH="$sb/bin:$PATH" sh -e "$sb/$1" "$2" || fail "$1 $2 exited $?"
}
script preinst install
diverted=$(awk '{ n = split($1, a, "/"); print a[n] }' "$sb/div" | sort)
for f in $ships liburing.so.2.16; do
	echo "$diverted" | grep -qx "$f" || fail "preinst does not divert $f"
done
left=$(cd "$fl" && ls -A | grep -v '^anyring-liburing$' || true)
[ -z "$left" ] || fail "after preinst, liburing2's files are still in place: $(echo $left)"
echo "$diverted" | grep -v '^liburing\(-ffi\)\?\.so\.2\(\.[0-9]*\)\?$' |
	grep . && fail "preinst diverts files that are no liburing library"
script postrm remove
[ -s "$sb/div" ] && fail "postrm leaves diversions: $(cat "$sb/div")"
(cd "$fl" && ls -l | awk 'NR > 1 { print $1, $NF }') > "$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || fail "postrm does not restore the directory: $(diff "$tmp/before" "$tmp/after")"
[ $bad -eq 0 ] && echo "anyring-liburing diverts $(echo "$diverted" | wc -l) names (all it ships, and liburing.so.2.16 found there) and takes them all back"
[ $bad -eq 0 ] && echo "debian: ok"
exit $bad
