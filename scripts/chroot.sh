#!/bin/sh
# chroot.sh SUITE [MAKE-ARGS...]: runs `make MAKE-ARGS` (default: test) on
# a copy of this tree inside a Debian SUITE chroot (trixie, sid, ...), so
# one machine checks the build and the suite against that release's
# compiler, libc and <liburing.h>. The kernel is the host's: io_uring and
# the trap behave as on the host.
#
# The chroot is made once with debootstrap (minbase, from Debian's
# archive) and kept in $ANYRING_CHROOTS/SUITE (default
# /var/cache/anyring/chroots) for the next run; the packages the suite
# needs are installed into it by the tree's own scripts/setup.sh, inside.
# A chroot older than ANYRING_CHROOT_DAYS (7) days is upgraded first.
# ANYRING_CHROOT_OUT=DIR: the .debs a `make deb` built in there are copied
# to DIR (the tree copy inside is removed after the run).
# Everything is mounted in a private mount namespace, so nothing stays
# mounted when the run ends, however it ends. Needs root.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 SUITE [MAKE-ARGS...]" >&2; exit 2; }
suite=$1; shift
[ $# -ge 1 ] || set -- test
top=$(cd "$(dirname "$0")/.." && pwd)
base=${ANYRING_CHROOTS:-/var/cache/anyring/chroots}
root=$base/$suite
mirror=${ANYRING_MIRROR:-http://deb.debian.org/debian}
days=${ANYRING_CHROOT_DAYS:-7}

[ "$(id -u)" = 0 ] || { echo "chroot: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }

need() {	# need COMMAND PACKAGE: install PACKAGE on the host if COMMAND is missing
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "chroot: installing $2 on the host"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2"
}
need debootstrap debootstrap
need unshare util-linux

# a chroot is complete once the stamp exists: an interrupted debootstrap
# is started again from nothing
if [ ! -f "$root/.anyring-stamp" ]; then
	echo "chroot: creating $suite in $root (debootstrap, once)"
	rm -rf "$root"
	mkdir -p "$base"
	debootstrap --variant=minbase --include=ca-certificates,make,gcc,libc6-dev \
		"$suite" "$root" "$mirror" > "$base/$suite.debootstrap.log" 2>&1 || {
		tail -n 20 "$base/$suite.debootstrap.log" >&2
		echo "chroot: debootstrap $suite failed" >&2
		exit 1
	}
	touch "$root/.anyring-stamp" "$root/.anyring-upgraded"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# unstable's Release file is valid for a week only; an archive served from
# a mirror or snapshot that lags this machine's clock would make apt refuse
# it (the signatures are still checked)
echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99anyring-valid-until"

# the copy of the tree: what git tracks, as a clean clone has it (the
# build and the working files of a developer's tree stay out)
dst=/src/anyring
rm -rf "${root:?}$dst"
mkdir -p "$root$dst"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 tar --no-recursion -cf - --) | tar -C "$root$dst" -xf -
else
	(cd "$top" && tar --exclude=./build -cf - .) | tar -C "$root$dst" -xf -
fi

upgrade=no
if [ -n "$(find "$root/.anyring-upgraded" -mtime +"$days" 2>/dev/null)" ]; then
	upgrade=yes
fi

# inside a private mount namespace: /proc, /sys, /dev and /dev/shm for the
# suite, gone when the namespace ends. /tmp stays the chroot's own
# directory, on the same file system as the host's /tmp here (tests that
# compare engines on files are written for a disk file system: tmpfs
# completes some reads in another order), emptied first.
find "$root/tmp" -mindepth 1 -delete 2>/dev/null || true
echo "chroot: $suite: make $* (liburing from the chroot's own packages)"
rc=0
unshare --mount --propagation private sh -eu -c '
	root=$1 dst=$2 upgrade=$3; shift 3
	# the chroot'"'"'s / a mount point, as a system'"'"'s is: tests that unshare
	# a mount namespace change its propagation
	mount --bind "$root" "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
	if [ "$upgrade" = yes ]; then
		chroot "$root" sh -c "DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get dist-upgrade -y -qq" &&
			touch "$root/.anyring-upgraded"
	fi
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root TERM=dumb LANG=C.UTF-8 ${CI:+CI=$CI} \
		make -C "$dst" "$@"
' sh "$root" "$dst" "$upgrade" "$@" || rc=$?
if [ -n "${ANYRING_CHROOT_OUT:-}" ] && ls "$root$dst"/build/deb/*.deb >/dev/null 2>&1; then
	mkdir -p "$ANYRING_CHROOT_OUT"
	cp "$root$dst"/build/deb/*.deb "$ANYRING_CHROOT_OUT"/
	echo "chroot: $suite's packages copied to $ANYRING_CHROOT_OUT"
fi
# a failed run's logs (and a fuzzer's input) outlive the tree copy
if [ "$rc" != 0 ] && [ -d "$root$dst/build/tests/logs" ]; then
	mkdir -p "$top/build/chroot-$suite-logs"
	cp -r "$root$dst/build/tests/logs/." "$top/build/chroot-$suite-logs/"
	echo "chroot: $suite's test logs copied to build/chroot-$suite-logs"
fi
rm -rf "${root:?}$dst"
exit $rc
