#!/bin/sh
# uaccess-pipe: the bad-pointer battery (tests/diff/diff_uaccess.c, the
# call cases named ua_*) with the user engine's fault-safe copies forced
# onto their fallback, the pipe (ANYRING_UACCESS=pipe, src/lib/uaccess.h),
# which is what runs where process_vm_readv is refused. The differential
# test runs the battery with the default, process_vm_readv.
# Env (from tests/run.sh): ANYRING_BUILD.
set -u
BIN="${ANYRING_BUILD:?ANYRING_BUILD is not set}/tests/differential"
[ -x "$BIN" ] || { echo "FAIL: $BIN not built"; exit 1; }
ANYRING_UACCESS=pipe "$BIN" -m calls ua_
