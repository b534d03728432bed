/* SPDX-License-Identifier: MIT */
/*
 * options.c - parsing anyring-bench's command line into a job spec plus
 * output choices, and --help. Every bad value is an error naming the flag
 * (exit 2), never silently clamped.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "experiment.h"
#include "options.h"
#include "units.h"

enum {
	OPT_ENGINE = 256, OPT_POLICY, OPT_RW, OPT_RWMIX, OPT_SIZE, OPT_JSON,
	OPT_SWEEP, OPT_PLOT, OPT_HIST, OPT_SPLIT, OPT_RING_FLAGS, OPT_QUIET,
	OPT_REAP, OPT_FDATASYNC, OPT_COLD, OPT_ALLOC,
};

static const struct option long_opts[] = {
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "rwmix", required_argument, NULL, OPT_RWMIX },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "split-reap", no_argument, NULL, OPT_SPLIT },
	{ "ring-flags", required_argument, NULL, OPT_RING_FLAGS },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "reap", required_argument, NULL, OPT_REAP },
	{ "fdatasync", required_argument, NULL, OPT_FDATASYNC },
	{ "cold", no_argument, NULL, OPT_COLD },
	{ "alloc", required_argument, NULL, OPT_ALLOC },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char short_opts[] = ":d:s:c:b:p:B:F:n:N:O:R:r:t:S:qh";

void options_usage(FILE *f)
{
	unsigned i;

	fprintf(f,
"usage: anyring-bench [OPTIONS] [TARGET]\n"
"       anyring-bench experiment NAME [ARGS]\n"
"       anyring-bench net [OPTIONS]   (loopback TCP echo/stream; net --help)\n"
"\n"
"A fio-class I/O benchmark with t/io_uring's flags, on any of anyring's\n"
"engines. TARGET is a file (created and filled with data if missing, given\n"
"--size), a block device, or sim:SPEC (a simdev, user engine only). A line\n"
"per second, then a summary with fio's completion-latency percentiles.\n"
"\n"
"t/io_uring's flags (each takes a value; booleans are 0 or 1):\n"
"  -d N      queue depth per thread (1..%d), default 128\n"
"  -s N      submit batch: I/Os prepared per submit call, default 32\n"
"  -c N      complete batch: completions waited for per call, default 32\n"
"            (both clamped to the depth)\n"
"  -b SIZE   block size, default 4096 (suffixes K, M: 4k, 64K)\n"
"  -p 0|1    polled I/O: IORING_SETUP_IOPOLL (sync: RWF_HIPRI), default 0\n"
"  -B 0|1    fixed buffers: registered, READ_FIXED/WRITE_FIXED, default 0\n"
"  -F 0|1    registered file (IOSQE_FIXED_FILE), default 0\n"
"  -n N      threads, each with its own ring and fd (1..%d), default 1\n"
"  -N 0|1    NOP requests only, no target (kernel, user), default 0\n"
"  -O 0|1    O_DIRECT, default 0 (buffered)\n"
"  -R 0|1    random offsets (1) or sequential (0); overrides --rw's\n"
"  -r SECS   runtime in seconds, fractions allowed (0.5); 0 (default)\n"
"            runs until Ctrl-C\n"
"  -t 0|1    track completion latency (two clock reads per batch),\n"
"            default 0; sweeps turn it on unless -t is given\n"
"  -S 0|1    sync I/O: the same as --engine=sync\n"
"\n"
"More:\n"
"  --engine=E      kernel (default), user, sync, libaio, posixaio:\n",
		BENCH_MAX_DEPTH, BENCH_MAX_THREADS);
	for (i = 0; engine_list[i]; i++)
		fprintf(f, "                    %-9s %s\n", engine_list[i]->name,
			engine_list[i]->help);
	fprintf(f,
"  --policy=STR    completion-path policy of each ring, as\n"
"                  \"wake=threshold,complete=deferred,wait=spin,spin_usec=N\"\n"
"                  (anyring_policy_parse; kernel and user engines)\n"
"  --rw=MODE       randread (default), read, randwrite, write, randrw, rw\n"
"  --rwmix=PCT     reads in %% for randrw/rw, default 50\n"
"  --size=SIZE     bytes of the target to use; creates a missing file of\n"
"                  that size (filled with data, fsync'ed)\n"
"  --ring-flags=L  t/io_uring's setup flags, any of coop,single,defer\n"
"                  (default all three), or none; each is dropped when the\n"
"                  engine refuses it; hybrid (with -p 1) adds\n"
"                  IORING_SETUP_HYBRID_IOPOLL, never dropped (the user\n"
"                  engine reads ANYRING_HYBRID=half-min|learned)\n"
"  --split-reap    a second thread per ring waits for -c completions at a\n"
"                  time while the first submits -s at a time (kernel, user)\n"
"  --reap=MODE     how completions are waited for (kernel, user):\n"
"                  enter (default): io_uring_enter submits and waits;\n"
"                  eventfd: an eventfd registered on the ring, in an epoll\n"
"                  set; poll-ringfd: the ring fd itself in an epoll set.\n"
"                  Both wait in epoll_wait and reap the CQ from memory,\n"
"                  entering only to submit, as an event loop (libuv, QEMU)\n"
"                  does; the ring then has neither COOP_TASKRUN nor\n"
"                  DEFER_TASKRUN, which need the task to enter\n"
"  --fdatasync=0|1 each write followed by fdatasync, the pair counted as\n"
"                  one I/O (a log): WRITE linked to FSYNC with\n"
"                  IORING_FSYNC_DATASYNC (the write's CQE skipped on\n"
"                  success); sync: pwritev2 then fdatasync\n"
"  --cold          evict the file's pages (POSIX_FADV_DONTNEED) before\n"
"                  the run; the share in the page cache (mincore) before\n"
"                  and after the run is reported\n"
"  --alloc=MODE    the target is a new file, made for the run (of --size\n"
"                  bytes) and removed after it, so that writes allocate:\n"
"                  sparse (ftruncate) or fallocate (unwritten extents);\n"
"                  the path must not exist\n"
"  --json          one JSON object per run ({\"runs\":[...]} for sweeps)\n"
"                  instead of text\n"
"  --sweep K=V,..  run every value of K (depth, engine, policy, bs);\n"
"                  1,2,4,...,256 continues the ratio; several --sweep run\n"
"                  every combination; prints a table\n"
"  --plot FILE     with --sweep depth (or bs): IOPS and mean/p99 latency\n"
"                  drawn by gnuplot to FILE.svg or FILE.png\n"
"  --hist          also print every non-empty latency bucket\n"
"  -q, --quiet     no per-second lines\n"
"  -h, --help      this text\n"
"\n"
"experiment NAME runs one of the seed experiments:\n");
	experiment_list(f);
	fprintf(f,
"\n"
"Latency is per I/O, from just before its batch is submitted to the reap\n"
"pass that finds its completion (CLOCK_MONOTONIC, vDSO). CPU is the whole\n"
"process's usr/sys time over the run as %% of one CPU (getrusage), and\n"
"per I/O ((usr+sys)/IOs; the engine's threads count);\n"
"wakeups come from anyring_ring_stats() (\"-\" for engines without it).\n");
}

static int bad(const char *flag, const char *val, const char *want)
{
	fprintf(stderr, "anyring-bench: %s: '%s' is not %s (see --help)\n",
		flag, val, want);
	return 2;
}

static int parse_bool(const char *flag, const char *val, bool *out)
{
	if (strcmp(val, "0") && strcmp(val, "1"))
		return bad(flag, val, "0 or 1");
	*out = val[0] == '1';
	return 0;
}

static int parse_runtime(const char *val, double *out)
{
	char *end;
	double v = strtod(val, &end);

	if (end == val || *end || !isfinite(v) || v < 0 || v > 1e7)
		return bad("-r", val, "a number of seconds >= 0");
	*out = v;
	return 0;
}

static int parse_rw(const char *val, struct job_spec *s, bool *random_set)
{
	static const struct { const char *name; unsigned read_pct; bool rnd; }
	modes[] = {
		{ "randread", 100, true }, { "read", 100, false },
		{ "randwrite", 0, true }, { "write", 0, false },
		{ "randrw", 50, true }, { "rw", 50, false },
	};
	unsigned i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(val, modes[i].name)) {
			s->read_pct = modes[i].read_pct;
			if (!*random_set)
				s->random = modes[i].rnd;
			return 0;
		}
	return bad("--rw", val, "randread, read, randwrite, write, randrw or rw");
}

#define RING_FLAGS_WANT	"coop,single,defer,hybrid or none"

static int parse_ring_flags(const char *val, unsigned *out)
{
	char buf[64], *tok, *save = NULL;

	*out = 0;
	if (!strcmp(val, "none"))
		return 0;
	if (strlen(val) >= sizeof(buf))
		return bad("--ring-flags", val, "coop,single,defer or none");
	strcpy(buf, val);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "coop"))
			*out |= RINGF_COOP;
		else if (!strcmp(tok, "single"))
			*out |= RINGF_SINGLE;
		else if (!strcmp(tok, "defer"))
			*out |= RINGF_DEFER;
		else if (!strcmp(tok, "hybrid"))
			*out |= RINGF_HYBRID;
		else
			return bad("--ring-flags", val, RING_FLAGS_WANT);
	}
	return 0;
}

static int parse_reap(const char *val, enum reap_mode *out)
{
	if (!strcmp(val, "enter"))
		*out = REAP_ENTER;
	else if (!strcmp(val, "eventfd"))
		*out = REAP_EVENTFD;
	else if (!strcmp(val, "poll-ringfd"))
		*out = REAP_POLL_RINGFD;
	else
		return bad("--reap", val, "enter, eventfd or poll-ringfd");
	return 0;
}

static int parse_alloc(const char *val, enum alloc_mode *out)
{
	if (!strcmp(val, "sparse"))
		*out = ALLOC_SPARSE;
	else if (!strcmp(val, "fallocate"))
		*out = ALLOC_FALLOCATE;
	else
		return bad("--alloc", val, "sparse or fallocate");
	return 0;
}

static int parse_num(const char *flag, const char *val, unsigned min,
		     unsigned max, unsigned *out)
{
	char want[64];

	if (!parse_uint(val, min, max, out))
		return 0;
	snprintf(want, sizeof(want), "a whole number in %u..%u", min, max);
	return bad(flag, val, want);
}

/* rwmix/random flags seen, kept between options */
struct parse_state {
	bool random_set;
	bool rwmix_set;
	unsigned rwmix;
};

static int short_opt(int c, const char *val, struct bench_opts *o,
		     struct parse_state *ps)
{
	struct job_spec *s = &o->spec;
	char flag[3] = { '-', (char)c, 0 };
	uint64_t size;
	bool b;
	int ret = 0;

	switch (c) {
	case 'd': return parse_num(flag, val, 1, BENCH_MAX_DEPTH, &s->depth);
	case 's': return parse_num(flag, val, 1, BENCH_MAX_DEPTH, &s->batch_submit);
	case 'c': return parse_num(flag, val, 1, BENCH_MAX_DEPTH, &s->batch_complete);
	case 'n': return parse_num(flag, val, 1, BENCH_MAX_THREADS, &s->threads);
	case 'b':
		if (parse_size(val, &size) || !size || size > (1u << 30))
			return bad(flag, val, "a block size (1..1G)");
		s->bs = (unsigned)size;
		return 0;
	case 'r': return parse_runtime(val, &s->runtime_s);
	case 'p': return parse_bool(flag, val, &s->polled);
	case 'B': return parse_bool(flag, val, &s->fixed_bufs);
	case 'F': return parse_bool(flag, val, &s->reg_files);
	case 'N': return parse_bool(flag, val, &s->nop);
	case 'O': return parse_bool(flag, val, &s->direct);
	case 't':
		o->track_given = true;
		return parse_bool(flag, val, &s->track_lat);
	case 'R':
		ps->random_set = true;
		return parse_bool(flag, val, &s->random);
	case 'S':
		ret = parse_bool(flag, val, &b);
		if (!ret && b)
			s->engine = "sync";
		return ret;
	}
	return -1;
}

static int long_opt(int c, const char *val, struct bench_opts *o,
		    struct parse_state *ps)
{
	struct job_spec *s = &o->spec;
	char why[256];

	switch (c) {
	case OPT_ENGINE:
		if (!engine_find(val))
			return bad("--engine", val, engine_names());
		s->engine = val;
		return 0;
	case OPT_POLICY: s->policy = val; return 0;
	case OPT_RW: return parse_rw(val, s, &ps->random_set);
	case OPT_RWMIX:
		ps->rwmix_set = true;
		return parse_num("--rwmix", val, 0, 100, &ps->rwmix);
	case OPT_SIZE:
		if (parse_size(val, &s->size) || !s->size)
			return bad("--size", val, "a size (4096, 1G, 512M)");
		return 0;
	case OPT_JSON: o->json = true; return 0;
	case OPT_HIST: o->hist = true; return 0;
	case OPT_SPLIT: s->split_reap = true; return 0;
	case OPT_QUIET: s->quiet = true; return 0;
	case OPT_PLOT: o->plot = val; return 0;
	case OPT_RING_FLAGS: return parse_ring_flags(val, &s->ring_flags);
	case OPT_REAP: return parse_reap(val, &s->reap);
	case OPT_FDATASYNC: return parse_bool("--fdatasync", val, &s->fdatasync);
	case OPT_COLD: s->cold = true; return 0;
	case OPT_ALLOC: return parse_alloc(val, &s->alloc);
	case OPT_SWEEP:
		if (sweep_add(&o->sweep, val, why, sizeof(why))) {
			fprintf(stderr, "anyring-bench: %s\n", why);
			return 2;
		}
		return 0;
	}
	return -1;
}

static int unknown(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, "anyring-bench: %s needs a value (see --help)\n",
			arg);
	else if (optopt && optopt < 256)
		fprintf(stderr, "anyring-bench: unknown option -%c (see --help)\n",
			optopt);
	else
		fprintf(stderr, "anyring-bench: unknown option %s (see --help)\n",
			arg);
	return 2;
}

static int finish(struct bench_opts *o, struct parse_state *ps, int argc,
		  char **argv)
{
	if (optind < argc)
		o->spec.target = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "anyring-bench: one target only; extra '%s'\n",
			argv[optind]);
		return 2;
	}
	if (ps->rwmix_set) {
		if (o->spec.read_pct != 50) {
			fprintf(stderr, "anyring-bench: --rwmix goes with "
				"--rw=randrw or rw\n");
			return 2;
		}
		o->spec.read_pct = ps->rwmix;
	}
	if ((o->spec.ring_flags & RINGF_HYBRID) && !o->spec.polled) {
		fprintf(stderr, "anyring-bench: --ring-flags=hybrid goes with "
			"-p 1 (HYBRID_IOPOLL is a kind of IOPOLL)\n");
		return 2;
	}
	if (o->plot && !o->sweep.naxes) {
		fprintf(stderr, "anyring-bench: --plot needs --sweep\n");
		return 2;
	}
	if (o->sweep.naxes && !o->track_given)
		o->spec.track_lat = true;
	return 0;
}

int options_parse(int argc, char **argv, struct bench_opts *o)
{
	struct parse_state ps = { false, false, 50 };
	int c, ret;

	memset(o, 0, sizeof(*o));
	job_spec_defaults(&o->spec);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		if (c == 'h') {
			options_usage(stdout);
			return 1;
		}
		if (c == 'q') {
			o->spec.quiet = true;
			continue;
		}
		if (c == '?' || c == ':')
			return unknown(c, argv);
		ret = c >= 256 ? long_opt(c, optarg, o, &ps) :
				 short_opt(c, optarg, o, &ps);
		if (ret)
			return ret < 0 ? unknown('?', argv) : ret;
	}
	return finish(o, &ps, argc, argv);
}
