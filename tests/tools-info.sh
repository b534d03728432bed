#!/bin/sh
# tools-info: anyring-info reports the kernel release, the io_uring_setup
# status and, where setup works, the kernel's opcodes and features; --help
# exits 0 and a bad flag exits 2.
# Env (from tests/run.sh): ANYRING_BUILD.
set -u
BIN="${ANYRING_BUILD:?ANYRING_BUILD is not set}/bin/anyring-info"
OUT=$(mktemp) || exit 1
trap 'rm -f "$OUT"' EXIT

# the value of a key, with its wrapped continuation lines
value() {
	sed -n "/^$1 */,/^[^ ]/{/^$1 */{s/^$1 *//;p;d;};/^ /p;}" "$OUT"
}

fail() {
	echo "FAIL: $*"
	sed 's/^/  | /' "$OUT"
	exit 1
}

[ -x "$BIN" ] || { echo "FAIL: $BIN not built (make tools)"; exit 1; }

"$BIN" >"$OUT" 2>&1 || fail "anyring-info exited $?"
grep -q "^kernel release: *$(uname -r)\$" "$OUT" ||
	fail "no kernel release $(uname -r)"
grep -q '^io_uring_setup: *\(works\|fails: E\)' "$OUT" ||
	fail "no io_uring_setup status"
grep -q '^kernel.io_uring_disabled: ' "$OUT" || fail "no io_uring_disabled"
grep -q '^Seccomp: ' "$OUT" || fail "no Seccomp mode"
grep -q '^default ring: ' "$OUT" || fail "no default ring"
if grep -q '^io_uring_setup: *works' "$OUT"; then
	value 'opcodes ([0-9]*):' | grep -qw NOP || fail "no NOP opcode"
	value 'opcodes ([0-9]*):' | grep -qw READ || fail "no READ opcode"
	value 'features:' | grep -qw EXT_ARG || fail "no EXT_ARG feature"
	grep -q '^last_op: *[0-9]' "$OUT" || fail "no last_op"
	grep -q '^auto engine: *kernel' "$OUT" || fail "auto is not kernel"
	echo "setup works: opcodes and features listed"
else
	grep -q '^likely cause: ' "$OUT" || fail "setup fails, no likely cause"
	echo "setup fails here: $(grep '^io_uring_setup:' "$OUT")"
fi
# no line past 78 columns (wrapped lists)
awk 'length > 78 { exit 1 }' "$OUT" || fail "a line is longer than 78 columns"

"$BIN" --help >"$OUT" 2>&1 || fail "--help exited $?"
grep -q -- '--help' "$OUT" || fail "--help does not document --help"
"$BIN" --bogus >"$OUT" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--bogus exited $rc, not 2"
"$BIN" extra >"$OUT" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "an extra argument exited $rc, not 2"
echo "anyring-info: ok"
exit 0
