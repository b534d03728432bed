#!/bin/sh
# examples-net: Debian's network examples of liburing, built against
# <liburing.h> and linked once with -lanyring and once with -luring, give
# the kernel's results on the user engine (issue 12):
#   io_uring-udp    a UDP echo server (multishot RECVMSG from a buffer ring,
#                   SENDMSG, a registered socket): 200 datagrams of 1-1000
#                   bytes from tests/ex/net-peer.c come back intact, and its
#                   -v log lists the same sizes as on the kernel;
#   send-zerocopy   SEND_ZC with a registered buffer, to a TCP and a UDP sink
#                   on 127.0.0.1 (net-peer): the sink checks every byte;
#   poll-bench      rounds of 32 oneshot POLL_ADDs of a pipe that a write
#                   makes readable and a read empties again before the
#                   wait: every round's 32 CQEs must come (the kernel's
#                   come from the wakeup; so do the user engine's, through
#                   AIO's poll, user/aiopoll.h). Its run is 10 s, written
#                   into it; the copy built here runs 2 s.
# The reference is the -luring build on the kernel. The -lanyring build
# runs on the user engine (ANYRING_ENGINE=user); in the plain build both
# builds also run under `anyring-run --deny-io-uring` (the -luring one with
# libanyring preloaded), where auto falls back to the user engine.
set -eu
ex=/usr/share/doc/liburing-dev/examples
[ -f "$ex/io_uring-udp.c" ] || { echo "skipped: liburing-dev examples not installed"; exit 77; }
lib="$ANYRING_BUILD/lib"
run="$ANYRING_BUILD/bin/anyring-run"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-exnet.XXXXXX")
srv=
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

sed 's/runtime_ms = 10000;/runtime_ms = 2000;/' "$ex/poll-bench.c" > "$tmp/poll-bench.c"
grep -q 'runtime_ms = 2000;' "$tmp/poll-bench.c" || {
	echo "poll-bench.c: its run time is not where it was"; exit 1; }
for e in io_uring-udp send-zerocopy poll-bench; do
	src="$ex/$e.c"
	[ "$e" = poll-bench ] && src="$tmp/$e.c"
	# shellcheck disable=SC2086
	$CC -O2 -w -D_GNU_SOURCE $SANFLAGS -o "$tmp/$e.anyring" "$src" -L"$lib" \
		-lanyring -Wl,-rpath,"$lib"
	$CC -O2 -w -D_GNU_SOURCE -o "$tmp/$e.uring" "$src" -luring
	ldd "$tmp/$e.anyring" | grep -q libanyring || { echo "$e: not linked to libanyring"; exit 1; }
done
$CC -O2 -Wall -o "$tmp/net-peer" "$ANYRING_TOP/tests/ex/net-peer.c"

# wait_line FILE PATTERN: up to 10 s for a line of FILE matching PATTERN
wait_line() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 100 ] || return 1
		sleep 0.1
	done
}

# udp LABEL BUILD PREFIX...: the echo server, 200 datagrams, its -v log
udp() {
	label=$1 build=$2; shift 2
	log="$tmp/udp.$label"
	"$@" "$tmp/io_uring-udp.$build" -v > "$log" 2>&1 &
	srv=$!
	wait_line "$log" "port bound to" || { echo "io_uring-udp ($label) did not start:"; cat "$log"; exit 1; }
	port=$(sed -n 's/^port bound to \([0-9]*\)$/\1/p' "$log")
	timeout -k 5 60 "$tmp/net-peer" udp-echo "$port" 200 > "$tmp/peer.$label" 2>&1 || {
		echo "io_uring-udp ($label):"; cat "$tmp/peer.$label" "$log"; exit 1; }
	kill "$srv"
	wait "$srv" 2>/dev/null || true
	srv=
	# the sizes and name lengths it received, in order (the example prints
	# the name's first bytes as an address, the client's port among them)
	sed -n 's/^received \([0-9]*\) bytes \([0-9]*\) from .*/\1 \2/p' \
		"$log" > "$tmp/sizes.$label"
	[ "$(wc -l < "$tmp/sizes.$label")" -eq 200 ] || {
		echo "io_uring-udp ($label): not 200 datagrams in its log:"; cat "$log"; exit 1; }
	[ "$label" = ref ] && return 0
	cmp -s "$tmp/sizes.ref" "$tmp/sizes.$label" || {
		echo "io_uring-udp ($label): its log differs from the kernel's:"
		diff "$tmp/sizes.ref" "$tmp/sizes.$label" | head; exit 1; }
}

# zc LABEL BUILD PROTO PREFIX...: 1.2 s of 1000-byte SEND_ZCs into a sink
zc() {
	label=$1 build=$2 proto=$3; shift 3
	rm -f "$tmp/port"
	timeout -k 5 90 "$tmp/net-peer" "$proto-sink" "$tmp/port" 1000 > "$tmp/sink.$label.$proto" 2>&1 &
	sink=$!
	wait_line "$tmp/port" "[0-9]" || { echo "net-peer $proto-sink did not start"; exit 1; }
	timeout -k 5 60 "$@" "$tmp/send-zerocopy.$build" -4 -D 127.0.0.1 -p "$(cat "$tmp/port")" \
		-s 1000 -t 1 "$proto" > "$tmp/zc.$label.$proto" 2>&1 || {
		echo "send-zerocopy $proto ($label) failed:"; cat "$tmp/zc.$label.$proto"; exit 1; }
	wait "$sink" || { echo "send-zerocopy $proto ($label): the sink says"
		cat "$tmp/sink.$label.$proto"; exit 1; }
	# liburing 2.3 prints "tx=N (MB=...), ..."; 2.9 and 2.15 "packets=N (MB=...), rps=...",
	# 2.15 after a warning with no newline on TCP
	grep -qE '(tx|packets)=[1-9][0-9]* ' "$tmp/zc.$label.$proto" || {
		echo "send-zerocopy $proto ($label):"; cat "$tmp/zc.$label.$proto"; exit 1; }
	# every payload sent over TCP arrived: the sink's count is the sender's
	if [ "$proto" = tcp ]; then
		tx=$(sed -nE 's/^.*(tx|packets)=([0-9]*) .*/\2/p' "$tmp/zc.$label.$proto")
		grep -q "^tcp: $tx payloads$" "$tmp/sink.$label.$proto" || {
			echo "send-zerocopy tcp ($label): sent $tx, the sink got:"
			cat "$tmp/sink.$label.$proto"; exit 1; }
	fi
}

# pb LABEL BUILD PREFIX...: 2 s of poll-bench, which waits for ever for
# a CQE that does not come (a minute is the bound here)
pb() {
	label=$1 build=$2; shift 2
	timeout -k 5 60 "$@" "$tmp/poll-bench.$build" > "$tmp/pb.$label" 2>&1 || {
		echo "poll-bench ($label) failed or hung:"; cat "$tmp/pb.$label"; exit 1; }
	grep -q '^requests/s: [1-9][0-9]*$' "$tmp/pb.$label" || {
		echo "poll-bench ($label):"; cat "$tmp/pb.$label"; exit 1; }
}

# all LABEL BUILD PREFIX...
all() {
	label=$1 build=$2; shift 2
	udp "$label" "$build" "$@"
	zc "$label" "$build" tcp "$@"
	zc "$label" "$build" udp "$@"
	pb "$label" "$build" "$@"
	echo "$label: io_uring-udp $(cat "$tmp/peer.$label");" \
		"send-zerocopy $(grep -h '^tcp\|^udp' "$tmp/sink.$label.tcp" "$tmp/sink.$label.udp" | tr '\n' ' ');" \
		"poll-bench $(cat "$tmp/pb.$label")"
}

all ref uring env
all user anyring env ANYRING_ENGINE=user
if [ -z "$SAN" ]; then
	all deny-anyring anyring "$run" --deny-io-uring --
	all deny-uring uring "$run" --deny-io-uring --
	# and the rings there were the user engine's, chosen by auto's fallback
	"$run" --deny-io-uring --debug -- "$tmp/send-zerocopy.uring" -4 \
		-D 127.0.0.1 -p 9 -s 100 -t 1 udp > "$tmp/out" 2>&1 || true
	grep -q "engine user (auto.*refused" "$tmp/out" || {
		echo "deny: auto did not fall back to the user engine:"; cat "$tmp/out"; exit 1; }
fi
