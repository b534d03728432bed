#!/bin/sh
# deb-smoke: the packages `make deb` built, installed system-wide and used
# from their installed paths; then removed, leaving the system as it was.
# Run by `make deb-check` (as root), never by `make test`: it installs
# packages and, for a few seconds, replaces the system's liburing.so.2.
#
#  1. dpkg -i libanyring0, libanyring-dev, anyring-tools: pkg-config finds
#     anyring, a liburing example builds against the installed files and
#     runs, anyring-info (text and --json) runs, man finds the pages.
#  2. dpkg -i anyring-liburing: liburing.so.2 and liburing.so.2.3 are
#     diverted (and stay so when it is installed again); with io_uring allowed, Debian's liburing examples (built
#     with -luring before the drop-in came) run on the kernel engine; with
#     io_uring denied by anyring-run --deny-io-uring and no LD_PRELOAD in
#     their environment, on the user engine; a setgid copy, started by
#     nobody under a seccomp filter that leaves privileges alone (so the
#     setgid bit takes effect), too.
#  3. dpkg -r anyring-liburing: the diversions are gone, liburing.so.2 and
#     liburing.so.2.3 are back byte for byte. The /etc/ld.so.preload route
#     is tried in a private mount namespace (the real /etc is untouched).
#  4. dpkg -r the rest: no file of any package is left.
#
# Usage: tests/deb-smoke.sh DIR (the .debs)
set -u
DIR=${1:?usage: deb-smoke.sh DIR-WITH-DEBS}
CC=${CC:-cc}
PKGS="libanyring0 libanyring-dev anyring-tools anyring-liburing"
ex=/usr/share/doc/liburing-dev/examples
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $CC -print-multiarch)
libdir=/usr/lib/$ma

die() { echo "FAIL: $*"; exit 1; }
step() { echo; echo "== $*"; }
[ "$(id -u)" = 0 ] || die "run as root: it installs packages"
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" &&
		die "$p is installed already: remove it first, this test leaves the system as it found it"
done
for e in io_uring-cp link-cp io_uring-test ucontext-cp; do
	[ -f "$ex/$e.c" ] || die "$ex/$e.c missing (liburing-dev)"
done
# linked_to BIN SONAME: BIN loads SONAME from $libdir (/lib/$ma on a
# merged-/usr system is the same directory)
linked_to() {
	got=$(ldd "$1" | awk -v s="$2" '$1 == s { print $3 }')
	[ -n "$got" ] && [ "$(readlink -f "$(dirname "$got")")" = "$(readlink -f "$libdir")" ]
}
deb() {	# deb PKG: the .deb of PKG in DIR (a missing one fails dpkg)
	set -- "$DIR"/"$1"_*.deb
	[ -f "$1" ] || echo "FAIL: no $1" >&2
	echo "$1"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-debsmoke.XXXXXX") || exit 1
chmod 755 "$tmp"
# whatever happens, the packages go and the system's liburing comes back
cleanup() {
	for p in anyring-liburing anyring-tools libanyring-dev libanyring0; do
		if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv "not-installed"; then
			echo "cleanup: purging $p"
			dpkg -P "$p" > /dev/null
		fi
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- before: what must come back ----
sum_before=$(sha256sum "$libdir/liburing.so.2.3" | cut -d' ' -f1)
link_before=$(readlink "$libdir/liburing.so.2")
diversions_before=$(dpkg-divert --list | sort)
echo "before: $libdir/liburing.so.2 -> $link_before, liburing.so.2.3 sha256 $sum_before"

# Debian's examples linked against the system's liburing (-luring), built
# now, before anything of anyring is installed
for e in io_uring-cp link-cp io_uring-test ucontext-cp; do
	$CC -O2 -w -D_GNU_SOURCE -o "$tmp/$e" "$ex/$e.c" -luring || die "building $e"
	linked_to "$tmp/$e" liburing.so.2 || die "$e is not linked to $libdir/liburing.so.2"
done
head -c $((8 * 1024 * 1024 + 12345)) /dev/urandom > "$tmp/src"
head -c 1500 /dev/urandom > "$tmp/small"
dd if="$tmp/src" of="$tmp/direct" bs=1M count=4 status=none

# ---- 1. the library, the headers, the tools ----
step "dpkg -i libanyring0 libanyring-dev anyring-tools"
dpkg -i "$(deb libanyring0)" "$(deb libanyring-dev)" "$(deb anyring-tools)" ||
	die "dpkg -i"
libs=$(pkg-config --libs anyring) || die "pkg-config --libs anyring"
cflags=$(pkg-config --cflags anyring) || die "pkg-config --cflags anyring"
echo "pkg-config --libs anyring: $libs"
echo "pkg-config --cflags anyring: $cflags"
# shellcheck disable=SC2086
$CC -O2 -w -D_GNU_SOURCE $cflags -o "$tmp/cp-anyring" "$ex/io_uring-cp.c" $libs ||
	die "io_uring-cp.c does not build with pkg-config's flags"
linked_to "$tmp/cp-anyring" libanyring.so.0 ||
	die "io_uring-cp is not linked to the installed libanyring"
"$tmp/cp-anyring" "$tmp/src" "$tmp/dst" && cmp "$tmp/src" "$tmp/dst" ||
	die "io_uring-cp built against the installed files does not copy"
echo "io_uring-cp.c built with \$(pkg-config --cflags --libs anyring) copies 8 MiB"
cat > "$tmp/engine.c" <<'C'
#include <anyring.h>
#include <stdio.h>
int main(void)
{
	struct io_uring ring;
	if (io_uring_queue_init(2, &ring, 0))
		return 1;
	printf("%s\n", anyring_ring_engine(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}
C
# shellcheck disable=SC2086
$CC -o "$tmp/engine" "$tmp/engine.c" $cflags $libs || die "<anyring.h> program does not build"
echo "a program using <anyring.h>: engine $("$tmp/engine")"
anyring-info > "$tmp/info" || die "anyring-info"
grep -E '^(io_uring_setup|auto engine|default ring):' "$tmp/info"
anyring-info --json | python3 -m json.tool > /dev/null || die "anyring-info --json does not parse"
echo "anyring-info --json parses"
for page in anyring anyring-info anyring-run anyring-bench anyring_queue_init_engine anyring_ring_policy; do
	w=$(man -w "$page") || die "man -w $page"
	echo "man -w $page: $w"
done

# ---- 2. the drop-in ----
step "dpkg -i anyring-liburing"
dpkg -i "$(deb anyring-liburing)" || die "dpkg -i anyring-liburing"
dpkg-divert --list | grep anyring-liburing
[ "$(dpkg-divert --list | grep -c 'by anyring-liburing')" = 2 ] || die "not two diversions"
soname=$(objdump -p "$(readlink -f "$libdir/liburing.so.2")" | awk '$1 == "SONAME" { print $2 }')
objdump -p "$libdir/liburing.so.2" | grep -q ' ANYRING_' ||
	die "$libdir/liburing.so.2 is not libanyring"
[ "$soname" = liburing.so.2 ] || die "soname $soname"
# installing it again (dpkg's upgrade path) keeps the same two diversions
dpkg -i "$(deb anyring-liburing)" > /dev/null || die "dpkg -i anyring-liburing, again"
[ "$(dpkg-divert --list | grep -c 'by anyring-liburing')" = 2 ] || die "not two diversions after reinstalling"
objdump -p "$libdir/liburing.so.2" | grep -q ' ANYRING_' || die "reinstalling lost the drop-in"
ldconfig -p | grep -F 'liburing.so.2 ' || die "ldconfig does not list liburing.so.2"
echo "$libdir/liburing.so.2 is libanyring (soname liburing.so.2)"

# run_examples LABEL ENGINE PREFIX...: each example through PREFIX, on ENGINE
# (ANYRING_DEBUG=1 says which engine serves each ring)
run_examples() {
	label=$1 want=$2; shift 2
	for e in io_uring-cp link-cp; do
		rm -f "$tmp/dst"
		"$@" env ANYRING_DEBUG=1 "$tmp/$e" "$tmp/src" "$tmp/dst" 2> "$tmp/err" ||
			{ cat "$tmp/err"; die "$e ($label)"; }
		cmp "$tmp/src" "$tmp/dst" || die "$e ($label): the copy differs"
		check_engine "$e ($label)" "$want"
	done
	"$@" env ANYRING_DEBUG=1 "$tmp/io_uring-test" "$tmp/direct" > "$tmp/out" 2> "$tmp/err" ||
		{ cat "$tmp/out" "$tmp/err"; die "io_uring-test ($label)"; }
	grep -q "Submitted=4, completed=4, bytes=16384" "$tmp/out" ||
		{ cat "$tmp/out"; die "io_uring-test ($label): not 4 reads of 4 KiB"; }
	check_engine "io_uring-test ($label)" "$want"
	rm -f "$tmp/small.cp"
	"$@" env ANYRING_DEBUG=1 "$tmp/ucontext-cp" "$tmp/small" "$tmp/small.cp" > /dev/null 2> "$tmp/err" ||
		{ cat "$tmp/err"; die "ucontext-cp ($label)"; }
	cmp "$tmp/small" "$tmp/small.cp" || die "ucontext-cp ($label): the copy differs"
	check_engine "ucontext-cp ($label)" "$want"
	echo "$label: io_uring-cp, link-cp, io_uring-test, ucontext-cp right, on the $want engine"
}
check_engine() {
	grep -q "^anyring\\[[0-9]*\\]: ring fd [0-9]*: engine $2 " "$tmp/err" ||
		{ sed 's/^/  | /' "$tmp/err"; die "$1: no ANYRING_DEBUG line naming the $2 engine"; }
	grep "^anyring\\[[0-9]*\\]: ring fd" "$tmp/err" | grep -qv "engine $2 " &&
		{ sed 's/^/  | /' "$tmp/err"; die "$1: a ring on another engine than $2"; }
	grep -v '^anyring\[' "$tmp/err" | grep -q . && { cat "$tmp/err"; die "$1: unexpected stderr"; }
	return 0
}
run_examples "io_uring allowed" kernel env
# anyring-run's own LD_PRELOAD serves env(1) only: env -u drops it for the example
run_examples "io_uring denied, no LD_PRELOAD" user \
	anyring-run --deny-io-uring -- env -u LD_PRELOAD
anyring-run --deny-io-uring -- env -u LD_PRELOAD sh -c 'test -z "${LD_PRELOAD+set}"' ||
	die "LD_PRELOAD is still set under env -u"

# the setgid copy: anyring-run's filter sets no_new_privs, which would
# disable the setgid bit, so a filter installed by root without it denies
# io_uring here; nobody runs the copy, whose effective group becomes daemon
cat > "$tmp/deny.c" <<'C'
/* deny CMD...: run CMD with io_uring_setup/enter/register failing EPERM,
 * installed with CAP_SYS_ADMIN instead of no_new_privs, so that setuid and
 * setgid bits keep working under it */
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 425, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 427, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (argc < 2 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		perror("deny");
		return 125;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
C
if [ "$ma" = x86_64-linux-gnu ]; then
	$CC -o "$tmp/deny" "$tmp/deny.c" || die "building deny"
	mkdir "$tmp/out.d" && chmod 1777 "$tmp/out.d"
	cp "$tmp/io_uring-cp" "$tmp/cp-setgid"
	chgrp daemon "$tmp/cp-setgid" && chmod 2755 "$tmp/cp-setgid"
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# shellcheck disable=SC2086
	"$tmp/deny" $nobody anyring-info > "$tmp/info"
	grep -q '^io_uring_setup: *fails: EPERM' "$tmp/info" || { cat "$tmp/info"; die "deny does not deny"; }
	# shellcheck disable=SC2086
	"$tmp/deny" $nobody "$tmp/cp-setgid" "$tmp/src" "$tmp/out.d/dst" ||
		die "the setgid copy fails with io_uring denied"
	cmp "$tmp/src" "$tmp/out.d/dst" || die "the setgid copy's copy differs"
	grp=$(stat -c %G "$tmp/out.d/dst")
	[ "$grp" = daemon ] || die "the setgid copy ran with group $grp, not daemon: not setgid"
	echo "setgid copy of io_uring-cp, run by nobody with io_uring denied: copies, its file's group is $grp (setgid in effect, so LD_PRELOAD would be ignored)"
	# and under anyring-run: no_new_privs, so the bit does not take effect
	rm -f "$tmp/out.d/dst"
	# shellcheck disable=SC2086
	anyring-run --deny-io-uring -- env -u LD_PRELOAD $nobody "$tmp/cp-setgid" "$tmp/src" "$tmp/out.d/dst" ||
		die "the setgid copy under anyring-run --deny-io-uring"
	cmp "$tmp/src" "$tmp/out.d/dst" || die "the setgid copy's copy differs"
	echo "setgid copy under anyring-run --deny-io-uring: copies (group $(stat -c %G "$tmp/out.d/dst"): no_new_privs drops the bit)"
else
	echo "setgid check skipped: deny.c knows x86-64 only"
fi

# ---- 3. removing the drop-in ----
step "dpkg -r anyring-liburing"
dpkg -r anyring-liburing || die "dpkg -r anyring-liburing"
sum_after=$(sha256sum "$libdir/liburing.so.2.3" | cut -d' ' -f1)
link_after=$(readlink "$libdir/liburing.so.2")
echo "after: $libdir/liburing.so.2 -> $link_after, liburing.so.2.3 sha256 $sum_after"
[ "$sum_after" = "$sum_before" ] || die "liburing.so.2.3 differs from before"
[ "$link_after" = "$link_before" ] || die "liburing.so.2 points elsewhere than before"
[ "$(dpkg-divert --list | sort)" = "$diversions_before" ] || die "diversions differ from before"
[ -e "$libdir/anyring-liburing" ] && die "$libdir/anyring-liburing is left"
objdump -p "$libdir/liburing.so.2" | grep -q ' ANYRING_' && die "liburing.so.2 is still libanyring"
ANYRING_DEBUG=1 "$tmp/io_uring-cp" "$tmp/src" "$tmp/dst" 2> "$tmp/err" || die "io_uring-cp on liburing2"
[ -s "$tmp/err" ] && { cat "$tmp/err"; die "libanyring still answers"; }
echo "the system's liburing is back byte for byte, no diversion left"

# /etc/ld.so.preload, in a mount namespace of its own: a copy of /etc
# with the file is mounted over /etc there, and nowhere else
if command -v unshare >/dev/null; then
	cp -a /etc "$tmp/etc"
	echo "$libdir/libanyring.so.0" > "$tmp/etc/ld.so.preload"
	rm -f "$tmp/out.d/dst"
	# shellcheck disable=SC2016
	unshare -m sh -c 'mount --make-rprivate / && mount --bind "$1/etc" /etc &&
		exec "$1/deny" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$1/cp-setgid" "$1/src" "$1/out.d/dst"' sh "$tmp" ||
		die "/etc/ld.so.preload: the setgid copy fails with io_uring denied"
	cmp "$tmp/src" "$tmp/out.d/dst" || die "/etc/ld.so.preload: the copy differs"
	[ -e /etc/ld.so.preload ] && die "/etc/ld.so.preload exists outside the namespace"
	echo "/etc/ld.so.preload naming libanyring.so.0: the setgid copy, io_uring denied, copies (group $(stat -c %G "$tmp/out.d/dst"))"
	"$tmp/deny" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/cp-setgid" "$tmp/src" "$tmp/out.d/dst2" 2>/dev/null &&
		die "without the preload the setgid copy works with io_uring denied?"
	echo "without it, the same run fails (liburing2 gets EPERM)"
fi

# ---- 4. removing the rest ----
step "dpkg -r anyring-tools libanyring-dev libanyring0"
# every file of the four packages, but the drop-in's two, which are
# liburing2's again (checked above)
for p in anyring-liburing anyring-tools libanyring-dev libanyring0; do
	dpkg-deb -c "$(deb "$p")" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' |
		grep -v "^$libdir/liburing\.so\.2" >> "$tmp/files"
done
dpkg -r anyring-tools libanyring-dev libanyring0 || die "dpkg -r"
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case $st in
	""|*not-installed) ;;
	*config-files) dpkg -P "$p" > /dev/null || die "dpkg -P $p" ;;
	*) die "$p: $st after dpkg -r" ;;
	esac
done
left=0
while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		echo "left behind: $f"; left=1
	fi
done < "$tmp/files"
[ $left = 0 ] || die "files left after dpkg -r"
[ "$(sha256sum "$libdir/liburing.so.2.3" | cut -d' ' -f1)" = "$sum_before" ] ||
	die "liburing.so.2.3 changed"
echo "all $(wc -l < "$tmp/files") files of the four packages (the drop-in's two aside) are gone"
echo
echo "deb-smoke: ok"
