#!/bin/sh
# tools-info: anyring-info reports the kernel release, the io_uring_setup
# status and, where setup works, the kernel's opcodes and features; --help
# exits 0 and a bad flag exits 2; --json is valid JSON with the same facts
# as the text, here and under anyring-run --deny-io-uring.
# Env (from tests/run.sh): ANYRING_BUILD.
set -u
BIN="${ANYRING_BUILD:?ANYRING_BUILD is not set}/bin/anyring-info"
OUT=$(mktemp) || exit 1
trap 'rm -f "$OUT" "$OUT.json" "$OUT.err" "$OUT.sgid" "$OUT.static"' EXIT

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

# json_same PREFIX...: anyring-info's text and --json, run through PREFIX,
# parse and agree
json_same() {
	"$@" "$BIN" >"$OUT" 2>&1 || fail "anyring-info exited $?"
	"$@" "$BIN" --json >"$OUT.json" 2>"$OUT.err" || fail "--json exited $?"
	[ -s "$OUT.err" ] && fail "--json wrote to stderr: $(cat "$OUT.err")"
	python3 -m json.tool "$OUT.json" >/dev/null || fail "--json is not JSON: $(cat "$OUT.json")"
	python3 - "$OUT" "$OUT.json" <<'PY' || fail "--json and the text differ"
import json, re, sys
text = open(sys.argv[1]).read()
j = json.load(open(sys.argv[2]))
# "key: value" lines, continuation lines joined
kv, key = {}, None
for line in text.splitlines():
    if line.startswith(" ") and key:
        kv[key] += " " + line.strip()
        continue
    key, _, val = line.partition(":")
    key = re.sub(r" \(\d+\)$", "", key)
    kv[key] = val.strip()
def same(what, a, b):
    if a != b:
        print("%s: text %r, json %r" % (what, a, b))
        sys.exit(1)
same("kernel release", kv["kernel release"], j["kernel_release"])
same("machine", kv["machine"], j["machine"])
d = kv["kernel.io_uring_disabled"].split()[0]
same("io_uring_disabled", None if d == "absent" else int(d), j["io_uring_disabled"])
same("CAP_SYS_ADMIN", kv["CAP_SYS_ADMIN"] == "yes", j["cap_sys_admin"])
same("Seccomp", int(kv["Seccomp"].split()[0]), j["seccomp"]["mode"])
works = kv["io_uring_setup"].startswith("works")
same("io_uring_setup works", works, j["io_uring_setup"]["works"])
if works:
    same("features", kv["features"].split(), j["features"])
    same("opcodes", kv["opcodes"].split(), j["opcodes"])
    same("last_op", int(kv["last_op"].split()[0]), j["last_op"]["op"])
else:
    same("errno", kv["io_uring_setup"].split()[1], j["io_uring_setup"]["errno"])
    same("likely cause", kv["likely cause"], j["io_uring_setup"]["likely_cause"])
same("engines", kv["engines in this build"].split(), j["engines"])
same("auto engine", kv["auto engine"], j["auto_engine"]["detail"])
same("auto engine name", kv["auto engine"].split()[0].rstrip(","), j["auto_engine"]["engine"])
same("default ring", kv["default ring"], "engine %s" % j["default_ring"]["engine"])
for k, jk in (("kernel ring policy", "kernel_ring_policy"), ("user ring policy", "user_ring_policy")):
    same(k, kv[k].replace(", ", ",") if k in kv else None, j[jk])
PY
}
json_same env
echo "--json: the same facts as the text"
# anyring-run preloads libanyring: a sanitizer build's cannot be preloaded
# into an uninstrumented program (tools-run skips the same way)
if [ -z "${SAN:-}" ]; then
	json_same "$ANYRING_BUILD/bin/anyring-run" --deny-io-uring --
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(j["io_uring_setup"]["works"] or j["auto_engine"]["engine"] != "user")' "$OUT.json" ||
		fail "--json under --deny-io-uring: setup works or auto is not user"
	echo "--json under --deny-io-uring: the same facts, auto is user"
fi

# --program: a preload honoured, ignored (set-group-ID of another group)
# or impossible (static)
"$BIN" --program=true >"$OUT" 2>&1 || fail "--program exited $?"
grep -q '^preload: *honoured$' "$OUT" || fail "--program=true: not honoured"
# a set-group-ID copy of another group (chgrp before chmod: a change of
# group clears the bit); only root can give it another group
if cp /bin/true "$OUT.sgid" &&
   chgrp "$(id -g nobody 2>/dev/null || echo 65534)" "$OUT.sgid" 2>/dev/null &&
   chmod 2755 "$OUT.sgid"; then
	"$BIN" --program="$OUT.sgid" >"$OUT" 2>&1 || fail "--program exited $?"
	grep -q '^preload: *ignored: set-group-ID' "$OUT" || fail "a set-group-ID copy: not ignored"
	"$BIN" --json --program="$OUT.sgid" >"$OUT.json" 2>&1 || fail "--json --program exited $?"
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["program"]; sys.exit(p["preload"] != "ignored" or not p["secure_execution"])' "$OUT.json" ||
		fail "--json --program: not ignored"
else
	echo "--program: no set-group-ID check (needs root to give a copy another group)"
fi
if printf 'int main(void) { return 0; }\n' | ${CC:-cc} -static -x c -o "$OUT.static" - 2>/dev/null; then
	"$BIN" --program="$OUT.static" >"$OUT" 2>&1 || fail "--program exited $?"
	grep -q '^preload: *impossible: statically linked' "$OUT" || fail "a static program: not impossible"
fi
"$BIN" --program=/no/such/program >"$OUT" 2>&1 || fail "--program exited $?"
grep -q '^preload: *cannot tell' "$OUT" || fail "a missing program: no 'cannot tell'"
echo "--program: honoured, ignored, impossible"

"$BIN" --help >"$OUT" 2>&1 || fail "--help exited $?"
grep -q -- '--help' "$OUT" || fail "--help does not document --help"
"$BIN" --bogus >"$OUT" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--bogus exited $rc, not 2"
"$BIN" extra >"$OUT" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "an extra argument exited $rc, not 2"
"$BIN" --json extra >"$OUT" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--json with an extra argument exited $rc, not 2"
echo "anyring-info: ok"
exit 0
