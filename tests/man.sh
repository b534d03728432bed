#!/bin/sh
# man: every page under man/ renders without a warning (as lintian renders
# it), every flag a tool's --help lists is in the tool's page, every
# function <anyring.h> declares has a section-3 page, and anyring(7) names
# every ANYRING_* variable the library reads.
# Env (from tests/run.sh): ANYRING_TOP, ANYRING_BUILD.
set -u
TOP="${ANYRING_TOP:?ANYRING_TOP is not set}"
BIN="${ANYRING_BUILD:?ANYRING_BUILD is not set}/bin"
MAN="$TOP/man"
command -v man >/dev/null || { echo "skipped: no man (make setup installs man-db)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# 1. rendering: groff's warnings on stderr, as lintian's manpage check;
# from $MAN so that ".so man3/x.3" resolves
pages=$(cd "$MAN" && ls man1/*.1 man3/*.3 man7/*.7)
[ -n "$pages" ] || { echo "FAIL: no pages under $MAN"; exit 1; }
for p in $pages; do
	(cd "$MAN" && LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$p" > "$tmp/out" 2> "$tmp/err")
	rc=$?
	[ $rc -eq 0 ] || fail "$p: man exited $rc"
	[ -s "$tmp/err" ] && { fail "$p renders with warnings:"; sed 's/^/  | /' "$tmp/err"; }
	[ -s "$tmp/out" ] || fail "$p renders nothing"
done
echo "$(echo "$pages" | wc -l) pages render without warnings"

# a page's text with roff's escapes for '-' and font changes undone
page_text() {
	sed -e 's/\\-/-/g' -e 's/\\[%&]//g' -e 's/\\f[BIRP]//g' "$1"
}

# the flags a --help text lists: -x and --long, "=VALUE" dropped
help_flags() {
	grep -oE '(^|[][ ,(|])--?[A-Za-z][A-Za-z0-9-]*' "$1" |
		sed 's/^[][ ,(|]*//' | sort -u
}

# check_flags PAGE HELPFILE LABEL
check_flags() {
	page_text "$MAN/$1" > "$tmp/page"
	n=0
	for f in $(help_flags "$2"); do
		n=$((n + 1))
		grep -qe "$f\([^A-Za-z0-9-]\|\$\)" "$tmp/page" ||
			fail "$3 --help lists $f, $1 does not"
	done
	[ $n -gt 0 ] || fail "$3 --help lists no flags"
	echo "$3: $n flags of --help in $1"
}

for t in anyring-info anyring-run anyring-bench; do
	[ -x "$BIN/$t" ] || { fail "$BIN/$t not built"; continue; }
	"$BIN/$t" --help > "$tmp/help" 2>&1 || fail "$t --help exited $?"
	check_flags "man1/$t.1" "$tmp/help" "$t"
done
# anyring-bench's experiments have options of their own
exps=$(sed -n '/^experiment NAME/,/^$/p' "$tmp/help" | awk 'NR > 1 && NF { print $1 }')
[ -n "$exps" ] || fail "anyring-bench --help lists no experiments"
for e in $exps; do
	"$BIN/anyring-bench" experiment "$e" --help > "$tmp/ehelp" 2>&1 ||
		fail "anyring-bench experiment $e --help exited $?"
	check_flags man1/anyring-bench.1 "$tmp/ehelp" "anyring-bench experiment $e"
	page_text "$MAN/man1/anyring-bench.1" | grep -q "^\.B $e\$" ||
		fail "anyring-bench.1 does not describe experiment $e"
done
# ... and so has its network workload
"$BIN/anyring-bench" net --help > "$tmp/nhelp" 2>&1 ||
	fail "anyring-bench net --help exited $?"
check_flags man1/anyring-bench.1 "$tmp/nhelp" "anyring-bench net"

# 2. a section-3 page for each function of <anyring.h>
fns=$(grep -oE '^[a-z].*[ *](anyring_[a-z_]+)\(' "$TOP/include/anyring.h" |
	grep -oE 'anyring_[a-z_]+\($' | tr -d '(' | sort -u)
[ "$(echo "$fns" | wc -w)" -ge 10 ] || fail "found only: $fns"
for f in $fns; do
	[ -f "$MAN/man3/$f.3" ] || fail "<anyring.h> declares $f, no man3/$f.3"
done
echo "$(echo "$fns" | wc -w) functions of <anyring.h> have pages"

# 3. anyring(7) names every variable the library reads
vars=$(grep -rhoE 'getenv\("ANYRING_[A-Z_]+"' "$TOP/src" | grep -oE 'ANYRING_[A-Z_]+' | sort -u)
page_text "$MAN/man7/anyring.7" > "$tmp/page"
for v in $vars; do
	grep -q "^\.B $v\$" "$tmp/page" || fail "the library reads $v, anyring.7 does not describe it"
done
echo "anyring.7 describes $(echo "$vars" | wc -w) variables: $(echo $vars)"
[ $bad -eq 0 ] && echo "man: ok"
exit $bad
