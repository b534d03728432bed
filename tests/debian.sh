#!/bin/sh
# debian: debian/ agrees with what the build installs, without building a
# package (make deb does that, with debhelper and lintian): each package
# in debian/control has an .install file; every pattern in those files
# matches what `make install PREFIX=/usr` puts in a staging root (or, for
# the drop-in, the build tree), and every installed file is claimed by one
# package; anyring-liburing's preinst diverts exactly the files it ships
# and its postrm takes back exactly those diversions.
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

# the drop-in: what it ships (install and links destinations) is what
# preinst diverts and postrm undiverts
lib="/usr/lib/$ma"
ships=$( { sed "s/\${DEB_HOST_MULTIARCH}/$ma/g" "$D/anyring-liburing.install" |
	awk '{ n = split($1, a, "/"); d = $2; sub(/\/$/, "", d); print "/" d "/" a[n] }'
	sed "s/\${DEB_HOST_MULTIARCH}/$ma/g" "$D/anyring-liburing.links" | awk '{ print "/" $2 }'; } | sort)
divert() {	# divert SCRIPT OP: the paths SCRIPT gives dpkg-divert OP
	sed "s/#DEB_HOST_MULTIARCH#/$ma/g" "$D/anyring-liburing.$1" |
		awk -v op="--$2" '{ for (i = 1; i < NF; i++) if ($i == op) print $(i + 1) }' | sort
}
[ "$(divert preinst add)" = "$ships" ] ||
	fail "preinst diverts '$(divert preinst add | tr '\n' ' ')', the package ships '$(echo $ships)'"
[ "$(divert postrm remove)" = "$ships" ] ||
	fail "postrm undiverts '$(divert postrm remove | tr '\n' ' ')', the package ships '$(echo $ships)'"
for f in $ships; do
	case $f in "$lib"/liburing.so.2*) ;; *) fail "the drop-in ships $f" ;; esac
done
[ $bad -eq 0 ] && echo "anyring-liburing diverts and takes back what it ships: $(echo $ships)"
[ $bad -eq 0 ] && echo "debian: ok"
exit $bad
