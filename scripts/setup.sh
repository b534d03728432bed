#!/bin/sh
# Installs the Debian packages anyring's build, tests and benchmarks use,
# only those missing. Run by `make test`, `make bench` and `make deb`
# before anything.
set -eu

# clang and libclang-rt-dev (libFuzzer, the sanitizer runtimes; clang only
# recommends it): `make fuzz` and tests/fuzz.sh. libaio-dev: anyring-bench
# links libaio (its libaio engine), and `make test` builds it.
# man-db and groff-base: tests/man.sh renders the man pages; python3:
# tests/tools-info.sh reads anyring-info --json. fio: tests/trap.sh runs
# its io_uring engine through the system-call trap.
pkgs="gcc make libc6-dev liburing-dev liburing2 pkg-config binutils coreutils clang libclang-rt-dev libaio-dev man-db groff-base python3 fio"
# bench: python3 (bench/fio-crosscheck), gnuplot-nox (--plot)
[ "${1:-}" = bench ] && pkgs="$pkgs gnuplot-nox"
# liburing-suite: dpkg-source unpacks Debian's liburing source package
[ "${1:-}" = suite ] && pkgs="$pkgs dpkg-dev"
# deb: the Debian package build (debian/; dpkg-buildpackage checks for
# build-essential) and its lint; bfs and qemu-utils:
# Debian programs that load liburing, which make deb-check runs on the drop-in
[ "${1:-}" = deb ] && pkgs="$pkgs build-essential debhelper dpkg-dev fakeroot lintian bfs qemu-utils"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "setup: installing missing Debian packages:$missing"
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
	command -v sudo >/dev/null || {
		echo "setup: not root and no sudo; install as root: apt-get install$missing" >&2
		exit 1
	}
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
