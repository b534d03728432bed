#!/bin/sh
# tools-run: anyring-run preloads libanyring in place of liburing and can
# deny io_uring with a seccomp filter.
#  - under --deny-io-uring, anyring-info sees io_uring_setup fail with EPERM
#    and names a seccomp filter as the likely cause;
#  - a program linked against the system's liburing.so.2 (-luring), run with
#    --engine=kernel --debug, gets its ring from libanyring ("engine kernel"
#    on stderr: the preload interposes liburing's versioned symbols);
#  - the same program under --deny-io-uring fails with EPERM with
#    --engine=kernel, and runs on the user engine with auto;
#  - api-newer runs under --deny-io-uring (the calls on fd -1);
#  - bad usage (unknown engine or flag, no command) exits 2, --help 0.
# Sanitizer builds cannot preload their instrumented libanyring into other
# programs (the sanitizer runtime must come first), so with SAN set only the
# checks that exec nothing run, and the test ends skipped.
# Env (from tests/run.sh): ANYRING_BUILD, SAN, CC.
set -u
: "${ANYRING_BUILD:?ANYRING_BUILD is not set}"
RUN="$ANYRING_BUILD/bin/anyring-run"
INFO="$ANYRING_BUILD/bin/anyring-info"
CC=${CC:-cc}
SAN=${SAN:-}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
OUT="$TMP/out"

fail() {
	echo "FAIL: $*"
	[ -f "$OUT" ] && sed 's/^/  | /' "$OUT"
	exit 1
}

# expect STATUS CMD...: run CMD (stdout and stderr to $OUT), check its status
expect() {
	want=$1
	shift
	"$@" >"$OUT" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, not $want"
}

for b in "$RUN" "$INFO"; do
	[ -x "$b" ] || { echo "FAIL: $b not built (make tools)"; exit 1; }
done

# usage: nothing is exec'd, safe in every build
expect 0 "$RUN" --help
for flag in --engine= --deny-io-uring --debug --lib= --help; do
	grep -q -- "$flag" "$OUT" || fail "--help does not document $flag"
done
expect 2 "$RUN" --engine=bogus -- true
grep -q "unknown engine 'bogus'" "$OUT" || fail "no message for a bad engine"
expect 2 "$RUN" --bogus -- true
expect 2 "$RUN"
expect 2 "$RUN" --engine=kernel --
echo "usage checks: ok"

if [ -n "$SAN" ]; then
	echo "SKIP: SAN=$SAN: preload checks need an uninstrumented libanyring"
	exit 77
fi

# errors name the problem: a missing library (125), a missing command (127)
expect 125 "$RUN" --lib="$TMP/nonexistent.so" -- true
grep -q "nonexistent.so" "$OUT" || fail "no message naming the missing library"
expect 127 "$RUN" -- "$TMP/no-such-command"
grep -q "no-such-command" "$OUT" || fail "no message naming the command"

# anyring-info under the filter: EPERM, a seccomp filter as likely cause
expect 0 "$RUN" --deny-io-uring -- "$INFO"
grep -q '^io_uring_setup: *fails: EPERM' "$OUT" ||
	fail "io_uring_setup not refused with EPERM under --deny-io-uring"
grep -q '^likely cause: *a seccomp filter' "$OUT" ||
	fail "seccomp filter not named as the likely cause"
grep -q '^Seccomp: *2' "$OUT" || fail "Seccomp mode is not 2 (filter)"
echo "deny-io-uring with anyring-info: ok"

# a liburing program: ring, one NOP, its completion
cat >"$TMP/nop.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <liburing.h>

int main(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int ret;

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "io_uring_queue_init: error %d (%s)\n",
			-ret, strerror(-ret));
		return 1;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 42;
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret != 1) {
		fprintf(stderr, "io_uring_submit_and_wait: %d\n", ret);
		return 1;
	}
	ret = io_uring_peek_cqe(&ring, &cqe);
	if (ret || cqe->user_data != 42 || cqe->res != 0) {
		fprintf(stderr, "bad completion: %d\n", ret);
		return 1;
	}
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	printf("nop done\n");
	return 0;
}
PROG
if ! $CC -o "$TMP/nop" "$TMP/nop.c" -luring >"$OUT" 2>&1; then
	sed 's/^/  | /' "$OUT"
	echo "SKIP: cannot build a program against the system's liburing (-luring)"
	exit 77
fi
# it must really be linked against liburing, not libanyring
ldd "$TMP/nop" >"$OUT" 2>&1 || fail "ldd on the test program"
grep -q 'liburing\.so' "$OUT" || fail "test program not linked to liburing.so"

expect 0 "$TMP/nop"
grep -q 'anyring' "$OUT" && fail "libanyring ran without the preload"
expect 0 "$RUN" --engine=kernel --debug -- "$TMP/nop"
grep -q '^nop done$' "$OUT" || fail "the NOP did not complete"
grep -q 'anyring\[[0-9]*\]: .*engine kernel' "$OUT" ||
	fail "no 'engine kernel' debug line: libanyring not interposed"
echo "preload with --engine=kernel: ok"

expect 1 "$RUN" --deny-io-uring --engine=kernel --debug -- "$TMP/nop"
grep -q '^io_uring_queue_init: error 1 (' "$OUT" ||
	fail "io_uring_queue_init did not fail with EPERM (1)"
grep -q 'anyring\[[0-9]*\]: .*engine kernel failed' "$OUT" ||
	fail "the failure did not come through libanyring"
echo "preload with --deny-io-uring: ok"

# auto (the default) falls back to the user engine when io_uring is refused
expect 0 "$RUN" --deny-io-uring --debug -- "$TMP/nop"
grep -q '^nop done$' "$OUT" || fail "the NOP did not complete on the fallback"
grep -q 'anyring\[[0-9]*\]: .*engine user (auto' "$OUT" ||
	fail "auto did not fall back to the user engine"
echo "fallback under --deny-io-uring: ok"

# the calls liburing made after 2.3 under denial: those on no ring
# (fd -1: QUERY, SEND_MSG_RING) reach the user engine, not the kernel
expect 0 env ANYRING_TEST_ENGINE=user "$RUN" --deny-io-uring -- \
	"$ANYRING_BUILD/tests/api-newer"
grep -q 'newer API on user (io_uring denied): ok' "$OUT" ||
	fail "api-newer did not run with io_uring denied"
echo "api-newer under --deny-io-uring: ok"
exit 0
