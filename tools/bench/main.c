/* SPDX-License-Identifier: MIT */
/*
 * anyring-bench - a fio-class benchmark for anyring's engines: t/io_uring's
 * flags and loop, fio's latency percentiles, sweeps with a table and a
 * plot, JSON, the seed experiments (anyring-bench experiment NAME) and a
 * network workload over loopback TCP (anyring-bench net, net.c).
 *
 * Exit status: 0 done, 1 a run failed, 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "experiment.h"
#include "job.h"
#include "json.h"
#include "net.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "sweep.h"
#include "units.h"

static int run_one(struct bench_opts *o)
{
	struct job_spec check = o->spec;
	struct job_result *r;
	char why[256];
	int ret;

	/* a spec the engine cannot run is a usage error (2), not a failure */
	check.quiet = true;
	if (job_check(&check, why, sizeof(why))) {
		fprintf(stderr, "anyring-bench: %s\n", why);
		return 2;
	}
	r = malloc(sizeof(*r));
	if (!r)
		return 1;
	if (o->json)
		o->spec.quiet = true;
	ret = job_run(&o->spec, r);
	if (!ret) {
		if (o->json) {
			json_result(stdout, r);
			fputc('\n', stdout);
		} else {
			report_summary(stdout, r, o->hist);
		}
	}
	free(r);
	return ret ? 1 : 0;
}

/* Every combination is checked before the first one runs. */
static int sweep_check(const struct bench_opts *o)
{
	unsigned n = sweep_count(&o->sweep), i;
	char why[256];

	if (o->plot && plot_check(o->plot, &o->sweep, why, sizeof(why))) {
		fprintf(stderr, "anyring-bench: %s\n", why);
		return 2;
	}
	for (i = 0; i < n; i++) {
		struct job_spec s = o->spec;

		s.quiet = true;
		sweep_apply(&o->sweep, i, &s);
		if (job_check(&s, why, sizeof(why))) {
			fprintf(stderr, "anyring-bench: sweep run %u: %s\n",
				i + 1, why);
			return 2;
		}
	}
	return 0;
}

static void plot_title(const struct job_spec *s, char *buf, size_t len)
{
	char bs[32];

	snprintf(buf, len, "anyring-bench: %s %s%s on %s", report_rw_name(s),
		 fmt_size(s->bs, bs, sizeof(bs)), s->direct ? " O_DIRECT" : "",
		 s->nop ? "NOP" : s->target ? s->target : "-");
}

static int run_sweep(struct bench_opts *o)
{
	struct job_result *r = NULL;
	char title[256];
	int n, ret = sweep_check(o);

	if (ret)
		return ret;
	n = sweep_run(&o->sweep, &o->spec, &r);
	if (n < 0) {
		free(r);
		return 1;
	}
	if (o->json)
		json_runs(stdout, r, (unsigned)n);
	else
		sweep_table(stdout, &o->sweep, r, (unsigned)n);
	if (o->plot) {
		plot_title(&o->spec, title, sizeof(title));
		if (plot_write(o->plot, &o->sweep, r, (unsigned)n, title))
			ret = 1;
		else
			fprintf(stderr, "anyring-bench: plot written to %s\n",
				o->plot);
	}
	free(r);
	return ret;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "experiment"))
		return experiment_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "net"))
		return net_main(argc - 1, argv + 1);
	ret = options_parse(argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : 2;
	job_catch_sigint();
	ret = o.sweep.naxes ? run_sweep(&o) : run_one(&o);
	sweep_free(&o.sweep);
	return ret;
}
