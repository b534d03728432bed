#!/bin/sh
# Runs liburing's own test suite twice: on the kernel's io_uring, and on
# the user engine through the system-call trap with io_uring refused
# (anyring-run --deny-io-uring), and compares the two test by test.
#
#   make liburing-suite                  fetch Debian unstable's liburing
#                                        source, build its tests, run all
#   LIBURING_SRC=DIR make liburing-suite use an unpacked liburing tree
#   SUITE_TESTS="poll nop" ...           run only these tests
#   SUITE_TIMEOUT=60                     seconds per test and engine
#   SUITE_SIDES="kernel user"            which sides to run
#
# The tests are linked with the tree's liburing.a, so they make io_uring's
# system calls themselves, as the issue's runs did. Results go to
# build/liburing-suite/results.txt; the last line is the summary.
set -eu

TOP=${ANYRING_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${ANYRING_BUILD:-$TOP/build}
WORK=$BUILD/liburing-suite
TMO=${SUITE_TIMEOUT:-60}
SIDES=${SUITE_SIDES:-kernel user}
RUN=$BUILD/bin/anyring-run
mkdir -p "$WORK"

fetch() {
	# A private apt state, so the machine's sources.list is left alone.
	st=$WORK/apt
	mkdir -p "$st/lists/partial" "$st/archives/partial"
	echo "deb-src http://deb.debian.org/debian unstable main" >"$st/sources.list"
	opts="-o Dir::Etc::SourceList=$st/sources.list -o Dir::Etc::SourceParts=/nonexistent \
	      -o Dir::State::Lists=$st/lists -o Dir::Cache::Archives=$st/archives"
	# shellcheck disable=SC2086
	apt-get -qq $opts update
	# shellcheck disable=SC2086
	(cd "$WORK" && apt-get -qq $opts source --download-only liburing)
	dsc=$(ls "$WORK"/liburing_*.dsc | tail -1)
	rm -rf "$WORK/src"
	dpkg-source --no-check -x "$dsc" "$WORK/src" >/dev/null
	echo "$WORK/src"
}

if [ -n "${LIBURING_SRC:-}" ]; then
	SRC=$LIBURING_SRC
elif [ -d "$WORK/src/test" ]; then
	SRC=$WORK/src
else
	SRC=$(fetch)
fi
echo "liburing-suite: liburing $(sed -n 's/^Version:[[:space:]]*//p' "$SRC/liburing.spec" 2>/dev/null || echo '?') in $SRC"

if [ ! -f "$SRC/src/liburing.a" ] || [ ! -f "$SRC/test/nop.t" ]; then
	(cd "$SRC" && ./configure >/dev/null && make -s -j"$(nproc)" -C src >/dev/null &&
		make -s -j"$(nproc)" -C test all >/dev/null)
fi
[ -x "$RUN" ] || make -s -C "$TOP" tools >/dev/null

if [ -n "${SUITE_TESTS:-}" ]; then
	tests=$SUITE_TESTS
else
	tests=$(cd "$SRC/test" && ls ./*.t | sed 's|^\./||; s|\.t$||')
fi

# pass (0), skip (77, liburing's T_EXIT_SKIP), hang (killed by timeout),
# crash (a signal), fail (anything else)
verdict() {
	case $1 in
	0) echo pass ;;
	77) echo skip ;;
	124 | 137) echo hang ;;
	1[3-9][0-9] | 2[0-5][0-9]) echo crash ;;
	*) echo fail ;;
	esac
}

run_one() { # side test -> "verdict seconds"
	t0=$(date +%s.%N)
	set +e
	if [ "$1" = kernel ]; then
		timeout -s INT -k 10 "$TMO" "./$2.t" >"$WORK/log/$2.$1" 2>&1
	else
		timeout -s INT -k 10 "$TMO" "$RUN" --deny-io-uring -- "./$2.t" \
			>"$WORK/log/$2.$1" 2>&1
	fi
	rc=$?
	set -e
	t1=$(date +%s.%N)
	echo "$(verdict $rc) $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
}

mkdir -p "$WORK/log"
out=$WORK/results.txt
: >"$out"
cd "$SRC/test"
printf '%-32s %-14s %-14s\n' test kernel user | tee -a "$out"
for t in $tests; do
	k="- 0"
	u="- 0"
	case " $SIDES " in *" kernel "*) k=$(run_one kernel "$t") ;; esac
	case " $SIDES " in *" user "*) u=$(run_one user "$t") ;; esac
	set -- $k $u
	printf '%-32s %-5s %7.2fs  %-5s %7.2fs%s\n' "$t" "$1" "$2" "$3" "$4" \
		"$([ "$1" = pass ] && [ "$3" != pass ] && echo '   <- differs')" | tee -a "$out"
done

awk 'NR > 1 {
	kn[$2]++; un[$4]++
	k = $3; u = $5; sub(/s$/, "", k); sub(/s$/, "", u)
	if ($2 == "pass" && $4 == "pass") { both++; kt += k; ut += u }
	if ($2 == "pass" && $4 != "pass") diff++
}
END {
	printf "kernel: %d pass, %d fail, %d skip, %d hang, %d crash\n",
		kn["pass"], kn["fail"], kn["skip"], kn["hang"], kn["crash"]
	printf "user:   %d pass, %d fail, %d skip, %d hang, %d crash\n",
		un["pass"], un["fail"], un["skip"], un["hang"], un["crash"]
	printf "%d tests pass on the kernel and not on the user engine\n", diff
	if (both && kt > 0)
		printf "%d tests pass on both: kernel %.1f s, user %.1f s (%.2fx)\n",
			both, kt, ut, ut / kt
}' "$out" | tee -a "$out"
