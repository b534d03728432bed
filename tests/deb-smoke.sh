#!/bin/sh
# deb-smoke: the packages `make deb` built, installed system-wide and used
# from their installed paths; then removed, leaving the system as it was.
# Run by `make deb-check` (as root), never by `make test`: it installs
# packages and, for a few seconds, replaces the system's liburing.so.2.
#
#  1. dpkg -i libanyring0, libanyring-dev, anyring-tools: pkg-config finds
#     anyring, a liburing example builds against the installed files and
#     runs, anyring-info (text and --json) runs, man finds the pages.
#  2. dpkg -i anyring-liburing: liburing2's liburing.so.2 and its file
#     (liburing.so.2.N, whichever release), and liburing-ffi.so.2 where
#     liburing2 has it, are diverted (and stay so when it is installed
#     again); ldconfig resolves liburing.so.2 to ours; a program that
#     dlopen()s liburing-ffi.so.2 runs a ring through it, with io_uring
#     allowed and denied; with io_uring allowed, Debian's liburing examples (built
#     with -luring before the drop-in came) run on the kernel engine; with
#     io_uring denied by anyring-run --deny-io-uring and no LD_PRELOAD in
#     their environment, on the user engine; a setgid copy, started by
#     nobody under a seccomp filter that leaves privileges alone (so the
#     setgid bit takes effect), too.
#  3. dpkg -r anyring-liburing: the diversions are gone, liburing2's
#     libraries are back byte for byte. The /etc/ld.so.preload route
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
# liburing2's files: liburing.so.2.N (2.3 on Debian 12, 2.9 on Debian 13)
# and, from 2.4 on, liburing-ffi.so.2.N
sysfiles() {
	for l in liburing.so.2 liburing-ffi.so.2; do
		[ -L "$libdir/$l" ] || continue
		f=$(readlink -f "$libdir/$l")
		echo "$l -> $(readlink "$libdir/$l") $(basename "$f") $(sha256sum "$f" | cut -d' ' -f1)"
	done
}
sysfiles > "$tmp/sys.before"
sysfile=$(basename "$(readlink -f "$libdir/liburing.so.2")")
diversions_before=$(dpkg-divert --list | sort)
echo "before: liburing2's libraries (link, target, file, sha256):"
sed 's/^/  /' "$tmp/sys.before"
[ -s "$tmp/sys.before" ] || die "no $libdir/liburing.so.2 (liburing2)"

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
ndiv=$(dpkg-divert --list | grep -c 'by anyring-liburing')
echo "$ndiv diversions by anyring-liburing"
for l in liburing.so.2 "$sysfile" $(awk '$1 == "liburing-ffi.so.2" { print $4 }' "$tmp/sys.before"); do
	[ "$(dpkg-divert --truename "$libdir/$l")" = "$libdir/anyring-liburing/$l" ] ||
		die "$libdir/$l is not diverted"
	[ -e "$libdir/anyring-liburing/$l" ] || [ -L "$libdir/anyring-liburing/$l" ] ||
		die "liburing2's $l is not in $libdir/anyring-liburing"
done
for l in liburing.so.2 liburing-ffi.so.2; do
	soname=$(objdump -p "$(readlink -f "$libdir/$l")" | awk '$1 == "SONAME" { print $2 }')
	[ "$soname" = "$l" ] || die "$libdir/$l: soname $soname"
done
objdump -p "$libdir/liburing.so.2" | grep -q ' ANYRING_' ||
	die "$libdir/liburing.so.2 is not libanyring"
# installing it again (dpkg's upgrade path) keeps the same diversions
dpkg -i "$(deb anyring-liburing)" > /dev/null || die "dpkg -i anyring-liburing, again"
[ "$(dpkg-divert --list | grep -c 'by anyring-liburing')" = "$ndiv" ] || die "diversions changed on reinstalling"
objdump -p "$libdir/liburing.so.2" | grep -q ' ANYRING_' || die "reinstalling lost the drop-in"
# ldconfig's choice: the soname links lead to ours
for l in liburing.so.2 liburing-ffi.so.2; do
	got=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64|AArch64|64bit|\(libc6\)/ { print $NF; exit }')
	[ -n "$got" ] || got=$(ldconfig -p | awk -v l="$l" '$1 == l { print $NF; exit }')
	[ -n "$got" ] || die "ldconfig does not list $l"
	case $(basename "$(readlink -f "$got")") in
	liburing.so.2.15|liburing-ffi.so.2.15) echo "ldconfig: $l => $got -> $(readlink "$got")" ;;
	*) die "ldconfig resolves $l to $got -> $(readlink -f "$got"), not ours" ;;
	esac
done
echo "$libdir/liburing.so.2 is libanyring (soname liburing.so.2)"

# a program that dlopen()s liburing-ffi.so.2 by soname and uses the
# inline helpers from it (as SDL3 does): a ring, a NOP, a write and a read
cat > "$tmp/ffi.c" <<'C'
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
struct io_uring_sqe;
struct io_uring_cqe { unsigned long long user_data; int res; unsigned flags; };
#define SYM(v, n) if (!(v = dlsym(h, n))) { printf("no %s\n", n); return 1; }
int main(int argc, char **argv)
{
	static char ring[4096] __attribute__((aligned(64)));
	char buf[64] = "", msg[] = "through liburing-ffi.so.2";
	void *h = dlopen("liburing-ffi.so.2", RTLD_NOW);
	int (*init)(unsigned, void *, unsigned), (*submit)(void *);
	int (*wait)(void *, struct io_uring_cqe **);
	void (*seen)(void *, struct io_uring_cqe *), (*exit_)(void *);
	struct io_uring_sqe *(*get)(void *);
	void (*nop)(struct io_uring_sqe *);
	void (*wr)(struct io_uring_sqe *, int, const void *, unsigned, unsigned long long);
	void (*rd)(struct io_uring_sqe *, int, void *, unsigned, unsigned long long);
	struct io_uring_cqe *cqe;
	int fd, i;
	if (argc < 2 || !h) { printf("dlopen: %s\n", dlerror()); return 1; }
	SYM(init, "io_uring_queue_init") SYM(submit, "io_uring_submit")
	SYM(wait, "io_uring_wait_cqe") SYM(seen, "io_uring_cqe_seen")
	SYM(exit_, "io_uring_queue_exit") SYM(get, "io_uring_get_sqe")
	SYM(nop, "io_uring_prep_nop") SYM(wr, "io_uring_prep_write")
	SYM(rd, "io_uring_prep_read")
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || init(8, ring, 0)) { printf("setup failed\n"); return 1; }
	nop(get(ring));
	wr(get(ring), fd, msg, sizeof(msg), 0);
	for (i = 0; i < 2; i++) {
		if ((i == 0 && submit(ring) != 2) || wait(ring, &cqe) || cqe->res < 0) {
			printf("op %d failed\n", i); return 1;
		}
		seen(ring, cqe);
	}
	rd(get(ring), fd, buf, sizeof(msg), 0);
	if (submit(ring) != 1 || wait(ring, &cqe) || cqe->res != (int)sizeof(msg) ||
	    memcmp(buf, msg, sizeof(msg))) { printf("read back failed\n"); return 1; }
	seen(ring, cqe);
	exit_(ring);
	printf("ok\n");
	return 0;
}
C
$CC -O2 -o "$tmp/ffi" "$tmp/ffi.c" -ldl || die "building the dlopen program"
for how in allowed denied; do
	pre=; [ $how = denied ] && pre="anyring-run --deny-io-uring -- env -u LD_PRELOAD"
	# shellcheck disable=SC2086
	$pre env ANYRING_DEBUG=1 "$tmp/ffi" "$tmp/ffi.out" > "$tmp/out" 2> "$tmp/err" ||
		{ cat "$tmp/out" "$tmp/err"; die "the dlopen program, io_uring $how"; }
	want=kernel; [ $how = denied ] && want=user
	grep -q "engine $want " "$tmp/err" || { cat "$tmp/err"; die "the dlopen program, io_uring $how: not on the $want engine"; }
	echo "a program that dlopen()s liburing-ffi.so.2, io_uring $how: $(cat "$tmp/out") ($want engine)"
done

# Debian's own programs, io_uring denied and no LD_PRELOAD: those that load
# liburing.so.2 (qemu-img, qemu-io, bfs) through the drop-in; fio, which
# makes io_uring's system calls itself and loads no liburing, through the
# trap, from /etc/ld.so.preload in a private mount namespace. Each must
# give the right result on the user engine (ANYRING_DEBUG names it).
denied="anyring-run --deny-io-uring -- env -u LD_PRELOAD ANYRING_DEBUG=1"
on_user() {	# on_user WHAT: $tmp/err shows user rings only
	grep -q "engine user " "$tmp/err" || { cat "$tmp/err"; die "$1: no ring on the user engine"; }
	grep "^anyring\[[0-9]*\]: ring fd" "$tmp/err" | grep -qv "engine user " &&
		{ cat "$tmp/err"; die "$1: a ring on another engine"; }
	return 0
}
loads_liburing() { ldd "$(command -v "$1")" 2>/dev/null | grep -q 'liburing\.so\.2 '; }
if command -v qemu-img >/dev/null && loads_liburing qemu-img; then
	f=driver=file,aio=io_uring,filename
	# shellcheck disable=SC2086
	# a 4 MiB image: raw images are whole 512-byte sectors
	$denied qemu-img convert -p --image-opts "$f=$tmp/direct" -O raw "$tmp/qemu.raw" > /dev/null 2> "$tmp/err" ||
		{ cat "$tmp/err"; die "qemu-img convert"; }
	on_user "qemu-img convert"
	cmp "$tmp/direct" "$tmp/qemu.raw" || die "qemu-img convert: the copy differs"
	# shellcheck disable=SC2086
	$denied qemu-img compare --image-opts "$f=$tmp/direct" "$f=$tmp/qemu.raw" > "$tmp/out" 2> "$tmp/err" ||
		{ cat "$tmp/out" "$tmp/err"; die "qemu-img compare"; }
	on_user "qemu-img compare"
	grep -q "Images are identical" "$tmp/out" || die "qemu-img compare: $(cat "$tmp/out")"
	# shellcheck disable=SC2086
	$denied qemu-io --image-opts "$f=$tmp/qemu.raw" -c 'write -P 0x5a 4096 1M' \
		-c 'read -P 0x5a 4096 1M' > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/out" "$tmp/err"; die "qemu-io"; }
	on_user "qemu-io"
	grep -q "Pattern verification failed" "$tmp/out" && die "qemu-io: $(cat "$tmp/out")"
	echo "qemu-img convert and compare, qemu-io write and read back (aio=io_uring), io_uring denied: right, on the user engine"
else
	echo "qemu-img: not installed or not linked with liburing, skipped"
fi
if command -v bfs >/dev/null && loads_liburing bfs; then
	mkdir -p "$tmp/tree"
	for d in a b c d; do
		mkdir -p "$tmp/tree/$d/x/y"
		for i in 1 2 3 4 5 6 7 8; do echo "$d$i" > "$tmp/tree/$d/x/f$i"; done
	done
	# shellcheck disable=SC2086
	$denied bfs -j4 "$tmp/tree" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; die "bfs"; }
	find "$tmp/tree" | sort > "$tmp/want"
	sort "$tmp/out" | cmp -s - "$tmp/want" || die "bfs lists other files than find"
	on_user "bfs -j4"
	echo "bfs -j4, io_uring denied: the same $(wc -l < "$tmp/want") paths as find, on the user engine"
else
	echo "bfs: not installed or not linked with liburing, skipped"
fi
if command -v fio >/dev/null && command -v unshare >/dev/null; then
	mkdir -p "$tmp/etc-fio"
	cp -a /etc/. "$tmp/etc-fio/"
	printf '%s\n' "$libdir/libanyring.so.0" "$libdir/libanyring-sig.so.0" > "$tmp/etc-fio/ld.so.preload"
	# shellcheck disable=SC2016
	unshare -m sh -c 'mount --make-rprivate / && mount --bind "$1/etc-fio" /etc &&
		exec anyring-run --deny-io-uring -- env -u LD_PRELOAD ANYRING_DEBUG=1 \
		fio --name=verify --filename="$1/fio.dat" --size=8M --bs=4k \
		--rw=randwrite --ioengine=io_uring --iodepth=8 --verify=crc32c \
		--do_verify=1 --verify_state_save=0 --output="$1/fio.out"' sh "$tmp" 2> "$tmp/err" ||
		{ cat "$tmp/fio.out" "$tmp/err"; die "fio verify=crc32c"; }
	on_user "fio"
	grep -q "err= 0" "$tmp/fio.out" || { cat "$tmp/fio.out"; die "fio: errors"; }
	echo "fio $(fio --version) ioengine=io_uring verify=crc32c, io_uring denied, trap from /etc/ld.so.preload: no error, on the user engine"
fi

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
sysfiles > "$tmp/sys.after"
echo "after:"
sed 's/^/  /' "$tmp/sys.after"
cmp -s "$tmp/sys.before" "$tmp/sys.after" || die "liburing2's libraries differ from before"
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
# every file of the four packages, but the drop-in's libraries, whose
# names are liburing2's again (checked above)
for p in anyring-liburing anyring-tools libanyring-dev libanyring0; do
	dpkg-deb -c "$(deb "$p")" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' |
		grep -v "^$libdir/liburing\(-ffi\)\?\.so\.2" >> "$tmp/files"
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
sysfiles > "$tmp/sys.after"
cmp -s "$tmp/sys.before" "$tmp/sys.after" || die "liburing2's libraries changed"
echo "all $(wc -l < "$tmp/files") files of the four packages (the drop-in's libraries aside) are gone"
echo
echo "deb-smoke: ok"
