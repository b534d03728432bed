/* SPDX-License-Identifier: MIT */
/*
 * exp_opts.c - the arguments of `anyring-bench experiment NAME`: the
 * common ones (run time, rounds, output directory, JSON, plot) and the
 * knobs an experiment declares (exp_def.knobs). A knob the experiment
 * does not take is an error, as every bad value (exit 2).
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "exp_common.h"
#include "sweep.h"
#include "units.h"

enum {
	XO_RUNTIME = 256, XO_REPS, XO_OUT, XO_JSON, XO_NO_PLOT, XO_SIM,
	XO_FILE, XO_DEPTHS, XO_DEPTH, XO_WAIT,
};

static const struct option exp_long_opts[] = {
	{ "exp-runtime", required_argument, NULL, XO_RUNTIME },
	{ "reps", required_argument, NULL, XO_REPS },
	{ "out", required_argument, NULL, XO_OUT },
	{ "json", no_argument, NULL, XO_JSON },
	{ "no-plot", no_argument, NULL, XO_NO_PLOT },
	{ "sim", required_argument, NULL, XO_SIM },
	{ "file", required_argument, NULL, XO_FILE },
	{ "depths", required_argument, NULL, XO_DEPTHS },
	{ "depth", required_argument, NULL, XO_DEPTH },
	{ "wait", required_argument, NULL, XO_WAIT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* which knob each long option is; 0 for the common ones */
static unsigned knob_of(int c)
{
	switch (c) {
	case XO_SIM: return EXP_KNOB_SIM;
	case XO_FILE: return EXP_KNOB_FILE;
	case XO_DEPTHS: return EXP_KNOB_DEPTHS;
	case XO_DEPTH: return EXP_KNOB_DEPTH;
	case XO_WAIT: return EXP_KNOB_WAIT;
	}
	return 0;
}

static void usage(FILE *f, const struct exp_def *d)
{
	fprintf(f,
"usage: anyring-bench experiment %s [OPTIONS]\n"
"\n"
"Reproduces seed %.3s:\n"
"  %s\n"
"  %s\n"
"  published: %s\n"
"\n"
"  --exp-runtime=SECS  seconds per run (default %g)\n"
"  --reps=N            rounds; every configuration runs once per round,\n"
"                      the table shows the run with the median IOPS\n"
"                      (default %u, at most %d)\n"
"  --out=DIR           where NAME.svg and NAME.txt go (default %s)\n"
"  --json              {\"experiment\":..., \"reproduced\":..., \"runs\":[...]}\n"
"                      on stdout instead of the table\n"
"  --no-plot           no chart\n",
		d->name, d->seed_file, d->seed_title, d->seed_source,
		d->seed_result, d->runtime_s, d->reps,
		EXP_MAX_REPS, EXP_DEFAULT_OUT);
	if (d->knob_help)
		fputs(d->knob_help, f);
}

static int bad(const char *name, const char *flag, const char *val,
	       const char *want)
{
	fprintf(stderr, "anyring-bench: experiment %s: %s: '%s' is not %s "
		"(see --help)\n", name, flag, val, want);
	return 2;
}

static int parse_depths(struct exp_opts *o, const char *val)
{
	struct sweep sw;
	char arg[256], why[256];
	unsigned i;
	int ret = 0;

	memset(&sw, 0, sizeof(sw));
	snprintf(arg, sizeof(arg), "depth=%s", val);
	if (strlen(val) > 200 || sweep_add(&sw, arg, why, sizeof(why)))
		ret = -1;
	else if (sw.axis[0].n > EXP_MAX_DEPTHS)
		ret = -1;
	for (i = 0; !ret && i < sw.axis[0].n; i++)
		o->depths[i] = (unsigned)sw.axis[0].num[i];
	if (!ret)
		o->ndepths = sw.axis[0].n;
	sweep_free(&sw);
	return ret;
}

static int parse_wait(const char *val)
{
	static const char *const ok[] = {
		"sleep", "spin", "hybrid", "adaptive", "default",
	};
	unsigned i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(val, ok[i]))
			return 0;
	return -1;
}

static int one_opt(struct exp_opts *o, int c, const char *val)
{
	const char *name = o->def->name;
	char *end;

	switch (c) {
	case XO_RUNTIME:
		o->runtime_s = strtod(val, &end);
		if (end == val || *end || !isfinite(o->runtime_s) ||
		    o->runtime_s < 0.01 || o->runtime_s > 3600)
			return bad(name, "--exp-runtime", val,
				   "a number of seconds in 0.01..3600");
		return 0;
	case XO_REPS:
		if (parse_uint(val, 1, EXP_MAX_REPS, &o->reps))
			return bad(name, "--reps", val, "a whole number in 1..9");
		return 0;
	case XO_OUT: o->out_dir = val; return 0;
	case XO_JSON: o->json = true; return 0;
	case XO_NO_PLOT: o->plot = false; return 0;
	case XO_SIM: o->sim = val; return 0;
	case XO_FILE: o->file = val; return 0;
	case XO_DEPTHS:
		if (parse_depths(o, val))
			return bad(name, "--depths", val,
				   "a list of up to 16 depths (1,2,4,...,256)");
		return 0;
	case XO_DEPTH:
		if (parse_uint(val, 1, BENCH_MAX_DEPTH, &o->depth))
			return bad(name, "--depth", val, "a queue depth");
		return 0;
	case XO_WAIT:
		if (parse_wait(val))
			return bad(name, "--wait", val,
				   "sleep, spin, hybrid, adaptive or default");
		o->wait = val;
		return 0;
	}
	return 2;
}

static void defaults(struct exp_opts *o, const struct exp_def *def)
{
	memset(o, 0, sizeof(*o));
	o->def = def;
	o->runtime_s = def->runtime_s;
	o->reps = def->reps;
	o->out_dir = EXP_DEFAULT_OUT;
	o->plot = true;
	o->sim = def->sim;
	o->depth = def->depth;
	o->wait = def->wait;
	if (def->depths)
		parse_depths(o, def->depths);
}

int exp_parse(int argc, char **argv, const struct exp_def *def,
	      struct exp_opts *o)
{
	int c, ret;

	defaults(o, def);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", exp_long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout, def);
			return 1;
		}
		if (c == '?' || c == ':' || (knob_of(c) &&
					      !(def->knobs & knob_of(c)))) {
			fprintf(stderr, "anyring-bench: experiment %s: %s %s "
				"(see --help)\n", def->name, argv[optind - 1],
				c == ':' ? "needs a value" :
				"is not an option of this experiment");
			return 2;
		}
		ret = one_opt(o, c, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "anyring-bench: experiment %s: unexpected '%s' "
			"(see --help)\n", def->name, argv[optind]);
		return 2;
	}
	return 0;
}
