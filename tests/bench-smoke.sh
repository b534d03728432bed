#!/bin/sh
# bench-smoke: anyring-bench runs short jobs on every engine and its output
# parses: the summary, fio's percentile block, JSON with the documented
# keys, sweeps; bad flags are refused with a message and exit 2. No timing
# is asserted (make test checks behaviour, make bench measures).
# Env (from tests/run.sh): ANYRING_BUILD, SAN.
set -u
BIN="${ANYRING_BUILD:?ANYRING_BUILD is not set}/bin/anyring-bench"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-bench-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
OUT="$tmp/out"
F="$tmp/data"
R=0.2	# seconds per run

fail() {
	echo "FAIL: $*"
	sed 's/^/  | /' "$OUT" | tail -n 30
	exit 1
}

run() {	# run ARGS...: must exit 0
	"$BIN" "$@" >"$OUT" 2>&1 || fail "anyring-bench $* exited $?"
}

refused() {	# refused PATTERN ARGS...: exit 2 and PATTERN in the message
	pat=$1; shift
	"$BIN" "$@" >"$OUT" 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "anyring-bench $* exited $rc, not 2"
	grep -q -- "$pat" "$OUT" || fail "anyring-bench $*: no '$pat' in the error"
}

json_keys() {	# json_keys FILE: one run object with exactly the documented keys
	python3 - "$1" <<'PY' || fail "JSON keys differ"
import json, sys
want = ["engine", "policy", "target", "rw", "bs", "depth", "threads",
        "runtime_s", "ios", "iops", "bw_bytes", "cpu", "cpu_per_io_us",
        "ctx_switches", "wakeups", "reap", "epoll_waits", "epoll_empty",
        "fdatasync", "alloc", "cached_pct_start", "cached_pct_end", "lat_ns"]
lat = ["mean", "p1", "p5", "p10", "p20", "p30", "p40", "p50", "p60", "p70",
       "p80", "p90", "p95", "p99", "p99.5", "p99.9", "p99.95", "p99.99", "max"]
doc = json.load(open(sys.argv[1]))
runs = doc["runs"] if "runs" in doc else [doc]
for r in runs:
    assert list(r) == want, list(r)
    assert list(r["cpu"]) == ["usr", "sys"], r["cpu"]
    assert list(r["lat_ns"]) == lat, list(r["lat_ns"])
    assert r["ios"] >= 0 and r["iops"] >= 0 and r["cpu_per_io_us"] >= 0
    assert r["reap"] in ("enter", "eventfd", "poll-ringfd"), r["reap"]
print(len(runs), "run(s) with the documented keys")
PY
}

[ -x "$BIN" ] || { echo "FAIL: $BIN not built (make tools)"; exit 1; }

# --help names every flag
run --help
for f in -d -s -c -b -p -B -F -n -N -O -R -r -t -S --engine --policy --rw \
	 --rwmix --size --json --sweep --plot --hist --split-reap --ring-flags \
	 --reap --fdatasync --cold --alloc --quiet --help experiment; do
	grep -q -- "$f" "$OUT" || fail "--help does not document $f"
done

# engines that can run here: kernel only when io_uring_setup works
ENGINES="user"
if "$BIN" -N 1 -d 4 -r 0.05 -q >"$OUT" 2>&1; then
	ENGINES="kernel user"
else
	echo "kernel io_uring refused here: the user engine only"
fi

# a file is created with data, then every engine reads it
run --size=1M -r $R -d 4 -t 1 --engine=user "$F"
[ "$(stat -c %s "$F")" = 1048576 ] || fail "the file was not made 1 MiB"
for e in $ENGINES sync libaio posixaio; do
	run --engine=$e -d 8 -s 4 -c 2 -r $R -t 1 "$F"
	grep -q "^$e: randread 4KiB QD" "$OUT" || fail "$e: no summary line"
	grep -q '^  IOPS=[0-9.]*[KM]*, BW=' "$OUT" || fail "$e: no IOPS/BW"
	grep -q '^  cpu: usr=[0-9.]*%, sys=[0-9.]*% (of one CPU), [0-9.]* us per I/O$' \
		"$OUT" || fail "$e: no cpu (per I/O)"
	grep -q '^  ctx switches: [0-9]' "$OUT" || fail "$e: no ctx switches"
	grep -q '^  wakeups: ' "$OUT" || fail "$e: no wakeups"
	grep -q '^    clat percentiles (nsec):$' "$OUT" || fail "$e: no percentiles"
	grep -q '^     |  1.00th=\[ *[0-9]*\],  5.00th=\[' "$OUT" ||
		fail "$e: not fio's percentile layout"
	grep -q '99.99th=\[ *[0-9]*\]$' "$OUT" || fail "$e: no 99.99th"
done
echo "engines ran: $ENGINES sync libaio posixaio"

# t/io_uring's per-second line (one second is the shortest run with one)
run -N 1 -r 1.2 --engine=user -d 8
grep -q '^IOPS=[0-9.]*[KM]*, IOS/call=[0-9-]*/[0-9-]*$' "$OUT" ||
	fail "no per-second line"

# the options t/io_uring has, and the split reaper
for e in $ENGINES; do
	run --engine=$e -B 1 -F 1 -d 8 -s 2 -c 2 -n 2 -R 0 -r $R -q "$F"
	run --engine=$e --rw=randrw --rwmix=70 -r $R -q "$F"
	run --engine=$e -N 1 -d 16 -s 1 -c 4 --split-reap -r $R -t 1 -q
	grep -q 'clat percentiles' "$OUT" || fail "$e --split-reap: no latency"
	run --engine=$e -N 1 --ring-flags=none -r $R -q
done
# a simdev (user engine), when this libanyring has it
if "$BIN" --engine=user -r 0.05 -q sim:size=1M,lat=fixed:5us >"$OUT" 2>&1; then
	run --engine=user -d 8 -t 1 -r $R sim:size=1M,lat=fixed:5us
	grep -q 'clat percentiles' "$OUT" || fail "simdev: no latency"
	run --engine=user -d 32 -s 1 -c 8 --split-reap -r $R -q sim:size=1M,lat=fixed:5us
else
	echo "simdev not available: $(head -n 1 "$OUT")"
fi
run -S 1 -d 4 -r 0.1 "$F"
grep -q 'depth 1' "$OUT" || fail "sync does not say the depth is 1"

# the event-loop reap modes: epoll_wait, the CQ reaped from memory
for e in $ENGINES; do
	for m in eventfd poll-ringfd; do
		run --engine=$e --reap=$m -d 8 -s 2 -c 2 -t 1 -r $R "$F"
		grep -q "^  reap=$m: [0-9]* epoll_wait returns (.* per I/O), [0-9]* found no CQE$" \
			"$OUT" || fail "$e --reap=$m: no epoll line"
		grep -q "reap=$m" "$OUT" || fail "$e --reap=$m: not in the header"
		grep -q 'clat percentiles' "$OUT" || fail "$e --reap=$m: no latency"
	done
	run --engine=$e --reap=eventfd -N 1 -d 1 -s 1 -c 1 -r $R -q
done
# a log: each write followed by fdatasync; cold reads; allocating writes
for e in $ENGINES sync; do
	run --engine=$e --rw=randwrite --fdatasync=1 -d 2 -s 1 -c 1 -t 1 -r $R "$F"
	grep -q 'fdatasync=1' "$OUT" || fail "$e --fdatasync=1: not in the header"
	grep -q "^$e: randwrite 4KiB QD" "$OUT" || fail "$e --fdatasync=1: no summary"
done
for e in $ENGINES; do
	run --engine=$e --cold -d 4 -r $R "$F"
	grep -q '^  page cache: [0-9.]*% of the file before the run, [0-9.]*% after$' \
		"$OUT" || fail "$e --cold: no residency"
	for a in sparse fallocate; do
		run --engine=$e --alloc=$a --size=1M --rw=randwrite -d 4 -r $R "$tmp/new"
		grep -q "alloc=$a" "$OUT" || fail "$e --alloc=$a: not in the header"
		[ ! -e "$tmp/new" ] || fail "$e --alloc=$a: the new file was left behind"
	done
done
"$BIN" --json --engine=user --reap=eventfd --cold -r $R "$F" >"$tmp/ev.json" \
	2>"$OUT" || fail "--json --reap=eventfd --cold exited $?"
json_keys "$tmp/ev.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
assert r["reap"] == "eventfd" and r["epoll_waits"] >= 0
assert 0 <= r["cached_pct_start"] <= 100 and 0 <= r["cached_pct_end"] <= 100' \
	"$tmp/ev.json" || fail "--reap/--cold JSON values"
echo "reap modes, fdatasync, cold and alloc ran"

# the seed experiments, each with tiny runs: a table, a verdict, JSON whose
# runs have the documented keys, the report file and (with gnuplot) the chart
exp_smoke() {	# exp_smoke NAME HEADER ARGS...: HEADER starts a table line
	name=$1 head=$2; shift 2
	d="$tmp/exp"
	run experiment "$name" --exp-runtime=0.05 --reps=1 --out "$d" "$@"
	grep -q "^== experiment $name: seed 00[0-4]" "$OUT" || fail "$name: no title"
	grep -q "^$head" "$OUT" || fail "$name: no table ('$head')"
	grep -q '^criterion: ' "$OUT" || fail "$name: no criterion"
	grep -Eq '^reproduced: (YES|NO|UNDECIDED)$' "$OUT" || fail "$name: no verdict"
	[ -s "$d/$name.txt" ] || fail "$name: no $d/$name.txt"
	if command -v gnuplot >/dev/null; then
		grep -q '<svg' "$d/$name.svg" || fail "$name: no chart"
	fi
	"$BIN" experiment "$name" --exp-runtime=0.05 --reps=1 --out "$d" \
		--no-plot --json "$@" >"$tmp/exp.json" 2>"$OUT" ||
		fail "experiment $name --json exited $?"
	json_keys "$tmp/exp.json"
	python3 - "$tmp/exp.json" "$name" <<'PY' || fail "$name: experiment JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["experiment"] == sys.argv[2], doc["experiment"]
assert doc["reproduced"] in (True, False, None), doc["reproduced"]
assert doc["criterion"] and doc["seed"].endswith(".txt")
ran = [r for r in doc["rows"] if r["runs"]]
assert ran and len(doc["runs"]) == sum(len(r["runs"]) for r in doc["rows"])
PY
}
if "$BIN" --engine=user -r 0.05 -q sim:size=1M,lat=fixed:5us >"$OUT" 2>&1; then
	run --engine=user -p 1 --ring-flags=hybrid -d 4 -r $R -q \
		sim:size=1M,lat=fixed:20us,completion=poll
	exp_smoke wait-threshold "waiter policy  *IOPS  *wakeups/IO" \
		--sim=size=1M,lat=fixed:5us,qd=512
	exp_smoke hybrid-poll "Performance (IOPS" --sim=size=1M,lat=fixed:50us
	exp_smoke taskwork "depth and avg latency" --depths=1,8 \
		--sim=size=1M,lat=fixed:5us,qd=64
	exp_smoke inline-completion "  QD  *punt" --depths=1,2 \
		--sim=size=1M,lat=fixed:5us
fi
if "$BIN" --engine=sync -O 1 -r 0.05 -q "$F" >"$OUT" 2>&1; then
	exp_smoke iowait "QD1 O_DIRECT 4k  *IOPS" --file="$F"
else
	echo "O_DIRECT refused on $tmp: no iowait experiment"
fi
echo "experiments ran"

# JSON: one object, and {"runs":[...]} for a sweep
"$BIN" --json --engine=user -t 1 -r $R "$F" >"$tmp/one.json" 2>"$OUT" ||
	fail "--json exited $?"
python3 -m json.tool "$tmp/one.json" >/dev/null || fail "--json is not JSON"
json_keys "$tmp/one.json"
"$BIN" --json --engine=libaio -r 0.1 "$F" >"$tmp/nolat.json" 2>"$OUT" ||
	fail "--json libaio exited $?"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
assert r["lat_ns"]["p50"] is None and r["wakeups"] is None' "$tmp/nolat.json" ||
	fail "unmeasured values are not null"
"$BIN" --json --sweep depth=1,2,...,8 --sweep engine=user,sync -r 0.1 "$F" \
	>"$tmp/sweep.json" 2>"$OUT" || fail "--sweep --json exited $?"
json_keys "$tmp/sweep.json"
python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["runs"]) == 8' \
	"$tmp/sweep.json" || fail "depth=1,2,...,8 x 2 engines is not 8 runs"
grep -q '^\[8/8\] depth=8 engine=sync' "$OUT" || fail "no sweep progress"

# a sweep table, and a plot when gnuplot is there
if command -v gnuplot >/dev/null; then
	run --sweep depth=1,4 --engine=user -r 0.1 "$F" --plot "$tmp/p.svg"
	grep -q '<svg' "$tmp/p.svg" || fail "--plot wrote no SVG"
else
	run --sweep depth=1,4 --engine=user -r 0.1 "$F"
fi
grep -q '^depth  *IOPS  *MiB/s  *mean_us  *p50_us  *p99_us' "$OUT" ||
	fail "no sweep table header"

# refusals: exit 2 and a message naming the problem
refused "'0' is not" -d 0 "$F"
refused "'abc' is not" -d abc "$F"
refused "'2' is not 0 or 1" -p 2 "$F"
refused "'x' is not" -r x "$F"
refused "unknown option --bogus" --bogus "$F"
refused "unknown option -z" -z 1 "$F"
refused "needs a value" "$F" -d
refused "--engine: 'nope'" --engine=nope "$F"
refused "--rw: 'sideways'" --rw=sideways "$F"
refused "--reap: 'sideways'" --reap=sideways "$F"
refused "not with --split-reap" --reap=eventfd --split-reap --engine=user "$F"
refused "needs --engine=kernel or user" --reap=eventfd --engine=sync "$F"
refused "goes with writes only" --fdatasync=1 --engine=user "$F"
refused "needs --engine=kernel, user or sync" --fdatasync=1 --rw=write --engine=libaio "$F"
refused "goes with writes" --alloc=sparse --size=1M --engine=user "$tmp/new"
refused "needs --size" --alloc=sparse --rw=write --engine=user "$tmp/new"
refused "--alloc: 'x'" --alloc=x "$F"
refused "needs a file target" --cold -N 1 --engine=user
refused "needs --engine=kernel or user" -N 1 --engine=sync
refused "needs --engine=kernel or user" -B 1 --engine=libaio "$F"
refused "needs --engine=user" --engine=sync sim:size=1M
refused "one target only" "$F" "$F"
refused "no target" --engine=user
refused "--plot needs --sweep" --plot x.svg "$F"
refused "KEY=V1,V2" --sweep colour=red "$F"
refused "unknown" experiment nosuch
refused "goes with -p 1" --ring-flags=hybrid --engine=user "$F"
refused "not an option of this experiment" experiment iowait --sim=size=1M
refused "'0' is not" experiment taskwork --exp-runtime=0
"$BIN" --engine=user --alloc=sparse --size=1M --rw=write -r $R "$F" >"$OUT" 2>&1
[ $? -eq 1 ] && grep -q 'makes a new file' "$OUT" || fail "--alloc on an existing file"
[ "$(stat -c %s "$F")" = 1048576 ] || fail "--alloc touched an existing file"
"$BIN" --engine=user -r $R "$tmp/missing" >"$OUT" 2>&1
[ $? -eq 1 ] && grep -q 'give --size' "$OUT" || fail "a missing file: no clear error"
# the network workload (loopback TCP): every server and mode, tiny runs,
# JSON with its documented keys and work done; its usage errors
for args in "--engine=kernel" "--engine=user" "--engine=epoll" \
	"--engine=user --recv=multishot --conns=8 -b 4k" \
	"--engine=kernel --recv=multishot --conns=8" \
	"--engine=user --mode=stream --conns=2" \
	"--engine=user --mode=stream --recv=multishot" "--engine=epoll --mode=stream"; do
	# shellcheck disable=SC2086
	"$BIN" net $args -r 0.3 --json >"$tmp/net.json" 2>"$OUT" ||
		{ fail "net $args exited $?: $(head -n 1 "$OUT")"; continue; }
	python3 - "$tmp/net.json" <<'PY' || fail "net $args: JSON"
import json, sys
j = json.load(open(sys.argv[1]))
keys = {"workload", "engine", "mode", "recv", "conns", "size", "secs", "reqs",
        "reqs_per_s", "bytes", "mb_per_s", "p50_us", "p99_us", "cpu_pct",
        "cpu_us_per_req", "cpu_us_per_mb"}
assert set(j) == keys, set(j) ^ keys
assert j["workload"] == "net"
assert (j["reqs"] if j["mode"] == "echo" else j["bytes"]) > 0, j
PY
done
run net --engine=user --conns=2 -r 0.2
grep -q "requests/s, round trip p50" "$OUT" || fail "net: no text summary"
refused "--engine: 'nope'" net --engine=nope
refused "--mode: 'x'" net --mode=x
refused "--conns: '0'" net --conns=0
refused "goes with the kernel and user" net --engine=epoll --recv=multishot
refused "is not an option" net --bogus
echo "anyring-bench: ok"
exit 0
