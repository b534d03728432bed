#!/bin/sh
# make bench: the headline comparison of anyring's engines with
# anyring-bench, in about two minutes. Engines: kernel (io_uring), user
# (io_uring in the process), sync (preadv2), posixaio (glibc AIO) and, for
# O_DIRECT, libaio. Workloads: NOP; 4 KiB random reads from the page cache
# and with O_DIRECT (from a 1 GiB file on a disk), at QD1 and QD32, and
# O_DIRECT QD32 reaped by an event loop (--reap=eventfd); a simdev with a
# fixed 5 us latency (user engine); a loopback TCP echo server (64 B, 64
# connections: kernel, user, epoll; anyring-bench net); a libuv-shaped
# event loop's awaited file operations (tests/raw/evloop.c: kernel, user
# through the trap under denial, a thread pool) and its idle CPU on an
# SQPOLL ring. Prints a table (IOPS, p50/p99
# completion latency, CPU, CPU per I/O, IOPS relative to the kernel) and
# writes bench/report/latest.md with the machine, the table, the commands
# and plots (SVG beside it).
# Env: O (build dir), BENCH_SECS (per run, 3), BENCH_DIR (data file
# directory; must be on a disk for O_DIRECT), BENCH_SIM (the simdev spec),
# EXPERIMENTS=1 (then also the five seed experiments at their defaults,
# about 4 more minutes, into bench/report/experiments/ and latest.md).
set -u
O=${O:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN="$TOP/$O/bin/anyring-bench"
SECS=${BENCH_SECS:-3}
SIM=${BENCH_SIM:-size=1G,lat=fixed:5us}
REPORT="$TOP/bench/report"
start=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anyring-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -x "$BIN" ] || { echo "bench: $BIN not built (make)" >&2; exit 1; }

# ---- the data file: on a disk, not tmpfs, so O_DIRECT reaches a device
data_dir() {
	for d in "${BENCH_DIR:-$TOP/$O/bench}" /var/tmp/anyring-bench; do
		mkdir -p "$d" 2>/dev/null || continue
		case $(stat -f -c %T "$d") in
		tmpfs|ramfs) continue ;;
		esac
		echo "$d"
		return
	done
	echo "bench: no directory on a disk for the data file (BENCH_DIR)" >&2
	exit 1
}
DIR=$(data_dir) || exit 1
FILE="$DIR/randread-1g"
FSTYPE=$(stat -f -c %T "$DIR")
DEV=$(df -P "$DIR" | awk 'NR == 2 { print $1 }')
"$BIN" --engine=sync --size=1G -r 0.01 -q "$FILE" >/dev/null ||
	{ echo "bench: cannot make $FILE" >&2; exit 1; }

# ---- the runs: "scenario|engine|anyring-bench arguments"
QD1="-d 1 -s 1 -c 1"
QD32="-d 32 -s 1 -c 1"	# fio's defaults: submit each I/O, wait for one when full
runs="$tmp/runs"
: > "$runs"
add() { echo "$1|$2|$3" >> "$runs"; }
for e in kernel user; do add "NOP QD1" $e "-N 1 $QD1"; done
for e in kernel user; do add "NOP QD128" $e "-N 1 -d 128 -s 32 -c 32"; done
for e in kernel user sync posixaio; do add "page cache QD1" $e "$QD1 $FILE"; done
for e in kernel user posixaio; do add "page cache QD32" $e "$QD32 $FILE"; done
for e in kernel user sync posixaio libaio; do add "O_DIRECT QD1" $e "-O 1 $QD1 $FILE"; done
for e in kernel user posixaio libaio; do add "O_DIRECT QD32" $e "-O 1 $QD32 $FILE"; done
# an event loop's: epoll_wait on an eventfd, the CQ reaped without entering
for e in kernel user; do add "O_DIRECT QD32 evfd" $e "--reap=eventfd -O 1 $QD32 $FILE"; done
# loopback TCP echo (anyring-bench net): requests/s in the IOPS column
for e in kernel user epoll; do add "net echo 64B x64" $e "net --conns=64 -b 64"; done
# an event loop shaped like Node.js's libuv (tests/raw/evloop.c: an SQPOLL
# ring, raw system calls, the ring fd in epoll): awaited file operations
# per second in the IOPS column; user is the trap under denial, threadpool
# what libuv falls back to when io_uring is refused. Then the same loop
# idle for 3 s on an SQPOLL ring (sq_thread_idle 10 ms): CPU % of one CPU
EVLOOP="$tmp/evloop"
if ${CC:-cc} -std=gnu11 -O2 -pthread -o "$EVLOOP" "$TOP/tests/raw/evloop.c" 2>"$tmp/evloop.err"; then
	for e in kernel user threadpool; do add "event loop fs ops" $e "evloop -n 20000"; done
	for e in kernel user; do add "event loop idle" $e "evloop --idle-only --ring=sqpoll10 --idle 3000"; done
else
	echo "bench: evloop not built: $(head -n 1 "$tmp/evloop.err")" >&2
fi
if "$BIN" --engine=user -r 0.05 -q "sim:$SIM" >"$tmp/sim.err" 2>&1; then
	add "simdev QD1" user "$QD1 sim:$SIM"
	add "simdev QD32" user "$QD32 sim:$SIM"
	SIMNOTE=""
else
	SIMNOTE="simdev (sim:$SIM) skipped: $(head -n 1 "$tmp/sim.err")"
fi
total=$(wc -l < "$runs")

# a field of a run's JSON object (flat numbers; lat_ns values are unique keys)
jget() { sed -n "s/.*\"$1\":\([-0-9.enul]*\).*/\1/p" "$2"; }

echo "anyring-bench: $total runs of ${SECS} s, data file $FILE ($FSTYPE on $DEV)"
i=0
res="$tmp/results"
: > "$res"
while IFS='|' read -r scen eng args; do
	i=$((i + 1))
	printf '[%d/%d] %-8s %-16s ... ' "$i" "$total" "$eng" "$scen"
	case $scen in page*) cat "$FILE" > /dev/null ;; esac
	j="$tmp/run$i.json"
	# shellcheck disable=SC2086
	case $args in
	net\ *)	# its own JSON: requests/s, latency in us, the server's CPU
		# shellcheck disable=SC2086
		if "$BIN" net --engine="$eng" --json -r "$SECS" ${args#net } >"$j" 2>"$tmp/err"; then
			iops=$(jget reqs_per_s "$j")
			p50=$(jget p50_us "$j" | awk '{ print $1 * 1000 }')
			p99=$(jget p99_us "$j" | awk '{ print $1 * 1000 }')
			cpu=$(jget cpu_pct "$j" | awk '{ printf "%.0f", $1 }')
			cpio=$(jget cpu_us_per_req "$j")
			printf '%s req/s\n' "$(echo "$iops" | awk '{ printf "%.0f", $1 }')"
		else
			iops=-; p50=-; p99=-; cpu=-; cpio=-
			echo "failed: $(head -n 1 "$tmp/err")"
		fi
		echo "$scen|$eng|$iops|$p50|$p99|$cpu|$args|$cpio" >> "$res"
		continue ;;
	evloop\ *)	# its own output: ops/s, or the CPU of an idle period
		case $eng in
		kernel)	set -- "$EVLOOP" ;;
		user)	set -- "$TOP/$O/bin/anyring-run" --deny-io-uring -- "$EVLOOP" ;;
		*)	set -- "$EVLOOP" --threadpool 4 ;;
		esac
		iops=-; p50=-; p99=-; cpu=-; cpio=-
		# shellcheck disable=SC2086
		if "$@" -d "$tmp" ${args#evloop } >"$j" 2>"$tmp/err"; then
			case $args in
			*--idle-only*)
				cms=$(sed -n 's/.* cpu_ms=\([0-9.]*\).*/\1/p' "$j")
				cpu=$(echo "$cms" | awk '{ printf "%.2f", $1 / 30 }')
				echo "idle, ${cms} ms of CPU in 3 s" ;;
			*)	iops=$(sed -n 's/.* ops\/s=\([0-9.]*\).*/\1/p' "$j")
				echo "$iops ops/s" ;;
			esac
		else
			echo "failed: $(cat "$j" "$tmp/err" | head -n 1)"
		fi
		echo "$scen|$eng|$iops|$p50|$p99|$cpu|$args|$cpio" >> "$res"
		continue ;;
	esac
	if "$BIN" --engine="$eng" --json -t 1 -r "$SECS" $args >"$j" 2>"$tmp/err"; then
		iops=$(jget iops "$j"); p50=$(jget p50 "$j"); p99=$(jget p99 "$j")
		cpu=$(echo "$(jget usr "$j") $(jget sys "$j")" | awk '{ printf "%.0f", $1 + $2 }')
		cpio=$(jget cpu_per_io_us "$j")
		printf '%s IOPS\n' "$(echo "$iops" | awk '{ printf "%.0f", $1 }')"
	else
		iops=-; p50=-; p99=-; cpu=-; cpio=-
		echo "failed: $(grep -v '^anyring-bench: note' "$tmp/err" | head -n 1)"
	fi
	echo "$scen|$eng|$iops|$p50|$p99|$cpu|$args|$cpio" >> "$res"
done < "$runs"

# ---- the table: IOPS relative to the kernel engine's in the same scenario
table() {	# table FORMAT: text or md
	awk -F'|' -v fmt="$1" '
	function us(v) { return v == "-" || v == "null" ? "-" : sprintf("%.1f", v / 1000) }
	function cio(v) { return v == "-" || v == "" ? "-" : sprintf("%.2f", v) }
	{ scen[NR] = $1; eng[NR] = $2; iops[NR] = $3; p50[NR] = $4; p99[NR] = $5
	  cpu[NR] = $6; cpio[NR] = $8; if ($2 == "kernel" && $3 != "-") kern[$1] = $3 }
	END {
		if (fmt == "md") {
			print "| workload | engine | IOPS | p50 (us) | p99 (us) | CPU % | CPU us/IO | vs kernel |"
			print "|---|---|--:|--:|--:|--:|--:|--:|"
		} else {
			printf "%-18s %-8s %10s %9s %9s %6s %9s %9s\n", "workload", "engine",
			       "IOPS", "p50 us", "p99 us", "CPU %", "CPU us/IO", "vs kernel"
		}
		for (i = 1; i <= NR; i++) {
			r = "-"
			if (iops[i] != "-" && kern[scen[i]] > 0)
				r = sprintf("%.2fx", iops[i] / kern[scen[i]])
			# no IOPS but a CPU figure: a row that measures CPU only
			v = iops[i] != "-" ? sprintf("%.0f", iops[i]) : cpu[i] != "-" ? "-" : "failed"
			if (fmt == "md")
				printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", scen[i],
				       eng[i], v, us(p50[i]), us(p99[i]), cpu[i], cio(cpio[i]), r
			else
				printf "%-18s %-8s %10s %9s %9s %6s %9s %9s\n", scen[i], eng[i],
				       v, us(p50[i]), us(p99[i]), cpu[i], cio(cpio[i]), r
		}
	}' "$res"
}

# ---- plots: IOPS per workload and engine; O_DIRECT IOPS/latency vs depth
mkdir -p "$REPORT"
plots=""
if command -v gnuplot >/dev/null; then
	# columns: workload, then one per engine (in first-seen order)
	awk -F'|' '
	{ if (!($1 in seen)) { seen[$1]; w[++nw] = $1 }
	  if (!($2 in eseen)) { eseen[$2]; e[++ne] = $2 }
	  v[$1, $2] = $3 }
	END { printf "workload"; for (j = 1; j <= ne; j++) printf " %s", e[j]; print ""
	      for (i = 1; i <= nw; i++) { printf "\"%s\"", w[i]
	        for (j = 1; j <= ne; j++) printf " %s", ((w[i], e[j]) in v) ? v[w[i], e[j]] : "-"
	        print "" } }' "$res" > "$tmp/bars.dat"
	ncol=$(head -n 1 "$tmp/bars.dat" | wc -w)
	gnuplot <<GP 2>"$tmp/gp.err" && plots="$plots engines.svg"
set terminal svg size 1100,480 dynamic noenhanced font 'sans,11'
set output '$REPORT/engines.svg'
set title "anyring-bench: IOPS per workload and engine (${SECS} s each)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set datafile missing '-'
set logscale y
set ylabel 'IOPS (log scale)'
set grid ytics
set key outside right
set xtics rotate by -20
plot for [c=2:$ncol] '$tmp/bars.dat' using c:xtic(1) title columnheader(c)
GP
	echo "[sweep] O_DIRECT randread, depth 1..64, kernel/user/libaio, 1 s each ..."
	if "$BIN" -O 1 -s 1 -c 1 -r 1 --sweep depth=1,2,...,64 \
		--sweep engine=kernel,user,libaio "$FILE" \
		--plot "$REPORT/direct-depth.svg" >"$tmp/sweep.txt" 2>"$tmp/sweep.err"; then
		plots="$plots direct-depth.svg"
	else
		echo "sweep failed: $(tail -n 1 "$tmp/sweep.err")"
	fi
fi

echo
table text
[ -n "$SIMNOTE" ] && echo "$SIMNOTE"
secs=$(( $(date +%s) - start ))

# ---- bench/report/latest.md
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
	echo "# anyring-bench: the headline comparison"
	echo
	echo "Written by \`make bench\` (bench/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'), in ${secs} s."
	echo
	echo "## Machine"
	echo
	echo "- kernel: \`$(uname -srmv)\`"
	echo "- CPU: $cpu_model, $(nproc) online CPUs"
	echo "- memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- data file: \`$FILE\` (1 GiB, $FSTYPE on $DEV)"
	echo "- io_uring: $("$TOP/$O/bin/anyring-info" 2>/dev/null | sed -n 's/^io_uring_setup: *//p' | head -n 1)"
	echo
	echo "## Results"
	echo
	echo "Each run ${SECS} s, one thread, 4 KiB random reads (NOP: no I/O). p50/p99: completion"
	echo "latency from submission to reaping, fio's log-linear histogram. CPU: the process's"
	echo "user+system time as % of one CPU (the user engine's worker threads included); CPU"
	echo "us/IO: that time per I/O. \"evfd\": \`--reap=eventfd\`, an event loop's shape (epoll_wait"
	echo "on an eventfd registered on the ring, the CQ reaped without entering)."
	echo "\"vs kernel\": IOPS relative to the kernel engine on the same workload."
	echo "\"net echo 64B x64\": \`anyring-bench net --conns=64 -b 64\`, a one-thread server on loopback TCP"
	echo "(kernel io_uring, the user engine, a plain epoll loop) driven by one client thread: the"
	echo "IOPS column is requests/s, p50/p99 the client's round trip, CPU the server's only."
	echo "\"event loop fs ops\": \`tests/raw/evloop.c\`, a libuv-shaped loop (an SQPOLL ring driven"
	echo "by raw system calls, its fd in epoll) doing awaited file operations (open, write, fsync,"
	echo "read, statx, close, rename, unlink): the IOPS column is operations/s; user is the trap"
	echo "under \`anyring-run --deny-io-uring\`, threadpool its \`--threadpool 4\` (what libuv does"
	echo "when io_uring is refused). \"event loop idle\": the same loop idle for 3 s on an SQPOLL"
	echo "ring (sq_thread_idle 10 ms); the CPU column only."
	echo "Batching: \`-s 1 -c 1\` at QD1 and QD32 (fio's defaults: each I/O submitted as it is"
	echo "prepared, one completion waited for when the queue is full); NOP QD128 t/io_uring's"
	echo "\`-s 32 -c 32\`."
	echo
	table md
	echo
	echo "Each number is one run: on a shared VM disk results move by 10-20% from run to run."
	echo
	[ -n "$SIMNOTE" ] && { echo "$SIMNOTE"; echo; }
	for p in $plots; do echo "![$p]($p)"; echo; done
	if [ -s "$tmp/sweep.txt" ]; then
		echo "O_DIRECT depth sweep (1 s per point):"
		echo
		echo '```'
		cat "$tmp/sweep.txt"
		echo '```'
		echo
	fi
	echo "## Commands"
	echo
	echo '```'
	while IFS='|' read -r scen eng iops p50 p99 cpu args cpio; do
		case $args:$eng in
		evloop\ *:kernel) echo "evloop ${args#evloop }" ;;
		evloop\ *:user) echo "anyring-run --deny-io-uring -- evloop ${args#evloop }" ;;
		evloop\ *) echo "evloop --threadpool 4 ${args#evloop }" ;;
		net\ *) echo "anyring-bench net --engine=$eng --json -r $SECS ${args#net }" ;;
		*) echo "anyring-bench --engine=$eng --json -t 1 -r $SECS $args" ;;
		esac
	done < "$res"
	echo "(evloop: cc -O2 -pthread -o evloop tests/raw/evloop.c)"
	echo "anyring-bench -O 1 -s 1 -c 1 -r 1 --sweep depth=1,2,...,64 --sweep engine=kernel,user,libaio $FILE --plot direct-depth.svg"
	echo '```'
} > "$REPORT/latest.md"

# ---- EXPERIMENTS=1: the seed experiments (anyring-bench experiment NAME)
experiments() {
	out="$REPORT/experiments"
	{ echo; echo "## Seed experiments"; echo
	  echo "\`EXPERIMENTS=1 make bench\`: each experiment at its defaults; tables,"
	  echo "criteria and notes in \`experiments/NAME.txt\`, charts in \`experiments/NAME.svg\`."
	  echo; echo "| experiment | reproduced | measured |"; echo "|---|---|---|"
	} >> "$REPORT/latest.md"
	for x in wait-threshold hybrid-poll taskwork inline-completion iowait; do
		set -- experiment "$x" --out "$out"
		[ "$x" = iowait ] && set -- "$@" --file="$FILE"
		echo "[experiment] $x ..."
		if "$BIN" "$@" >"$tmp/exp.txt" 2>"$tmp/exp.err"; then
			v=$(sed -n 's/^reproduced: //p' "$tmp/exp.txt")
			m=$(sed -n 's/^measured: *//p' "$tmp/exp.txt")
		else
			v=failed; m=$(grep -v '^\[' "$tmp/exp.err" | head -n 1)
		fi
		echo "  reproduced: $v ($m)"
		echo "| [$x](experiments/$x.txt) | $v | $m |" >> "$REPORT/latest.md"
	done
}
[ "${EXPERIMENTS:-0}" = 1 ] && experiments
secs=$(( $(date +%s) - start ))
echo
echo "report: bench/report/latest.md${plots:+ (plots:$plots)}; ${secs} s"
