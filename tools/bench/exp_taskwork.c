/* SPDX-License-Identifier: MIT */
/*
 * exp_taskwork.c - seed 001, "task_work optimization": completions that
 * arrive from interrupt context are batched per ring and run before other
 * task work (new) instead of one task work item per request (old); fio
 * randread at depths 1..256, peak IOPS and average latency. Here the
 * device is an irq simdev, "new" is complete=deferred (the ring's task
 * posts the queued completions in one batch under one lock, woken once
 * they reach what it waits for) and "old" is complete=single (what
 * kernels before the patch did: each completion queued as its own task
 * work item, behind what was queued before it, and posted by the task
 * on its own, under its own lock, with its own wakeup); complete=inline
 * (posted by the device thread) and complete=punt (a completion thread)
 * are two more rows.
 */
#include <math.h>
#include "exp_common.h"
#include "exp_complete.h"
#include "exp_plot.h"

static const struct exp_def def = {
	.name = "taskwork",
	.seed_file = "001_a9812c8c50fdb3dc.txt",
	.seed_source = "Hao Xu, a series on the io-uring list (2021), merged for 5.17",
	.seed_title = "[PATCH 0/6] task_work optimization (2021, 5.17)",
	.seed_result = "peak 249K -> 314K IOPS; avg latency at depth 256: "
		       "1050.99 -> 815.15 us (fio randread 4k, direct, "
		       "'heavy' task works)",
	.runtime_s = 0.6,
	.reps = 3,
	.knobs = EXP_KNOB_SIM | EXP_KNOB_DEPTHS | EXP_KNOB_WAIT,
	.sim = "size=1G,lat=fixed:5us,qd=1024",
	.depths = "1,2,4,8,16,32,64,128,256",
	.wait = "sleep",
	.knob_help =
"  --sim=SPEC          the simdev (default size=1G,lat=fixed:5us,qd=1024)\n"
"  --depths=LIST       queue depths (default 1,2,4,...,256, at most 16)\n"
"  --wait=POLICY       the waiter: sleep (default: the task sleeps until\n"
"                      woken, as in the kernel), spin, hybrid, adaptive,\n"
"                      default\n"
"\n"
"Rows: complete=deferred (new: batched), complete=single (old: one task\n"
"work item per completion), complete=inline and complete=punt, at each\n"
"depth.\n",
};

/* seed 001's "depth and avg latency(usec)" table */
static const struct { unsigned depth; double new_us, old_us; } seed_lat[] = {
	{ 1, 22.80, 23.77 }, { 2, 23.48, 24.54 }, { 4, 24.26, 25.57 },
	{ 8, 29.21, 32.89 }, { 16, 53.61, 63.50 }, { 32, 106.29, 131.34 },
	{ 64, 217.21, 256.33 }, { 128, 421.59, 513.87 },
	{ 256, 815.15, 1050.99 },
};

static double seed_at(unsigned depth, bool new_)
{
	unsigned i;

	for (i = 0; i < sizeof(seed_lat) / sizeof(seed_lat[0]); i++)
		if (seed_lat[i].depth == depth)
			return new_ ? seed_lat[i].new_us : seed_lat[i].old_us;
	return NAN;
}

/* rows: depth-major, so a depth's modes run back to back */
static struct exp_row *row(const struct exp_report *rep, unsigned d,
			   unsigned mode)
{
	return &rep->rows[d * NCMODES + mode];
}

static void lat_table(FILE *f, const struct exp_report *rep)
{
	const struct exp_opts *o = rep->o;
	unsigned d, m;

	fputs("depth and avg latency (usec):\n", f);
	fprintf(f, "%6s", "depth");
	for (m = 0; m < NCMODES; m++)
		fprintf(f, " %10s", exp_cmode_names[m]);
	fprintf(f, "   | seed 001: %8s %8s\n", "new", "old");
	for (d = 0; d < o->ndepths; d++) {
		fprintf(f, "%6u", o->depths[d]);
		for (m = 0; m < NCMODES; m++)
			exp_put_prec(f, 10, 2, exp_mean_us(row(rep, d, m)));
		fprintf(f, "   | %9s", "");
		exp_put_prec(f, 8, 2, seed_at(o->depths[d], true));
		exp_put_prec(f, 8, 2, seed_at(o->depths[d], false));
		fputc('\n', f);
	}
}

static void iops_table(FILE *f, const struct exp_report *rep)
{
	const struct exp_opts *o = rep->o;
	char buf[32];
	unsigned d, m;

	fputs("\nIOPS, p50/p99 completion latency (us), CPU %; deferred: "
	      "requests per batch\n", f);
	fprintf(f, "%6s", "depth");
	for (m = 0; m < NCMODES; m++)
		fprintf(f, "  %9s %13s %5s", exp_cmode_names[m], "p50/p99",
			"cpu");
	fprintf(f, " %6s\n", "batch");
	for (d = 0; d < o->ndepths; d++) {
		fprintf(f, "%6u", o->depths[d]);
		for (m = 0; m < NCMODES; m++) {
			const struct exp_row *r = row(rep, d, m);
			char lat[32] = "-";

			if (r->med)
				snprintf(lat, sizeof(lat), "%.1f/%.1f",
					 exp_lat_us(r, 50), exp_lat_us(r, 99));
			fprintf(f, "  %9s %13s", exp_fmt_iops(exp_iops(r), buf,
							sizeof(buf)), lat);
			exp_put_prec(f, 5, 0, exp_cpu(r));
		}
		exp_put(f, 6, exp_tw_batch(row(rep, d, CMODE_DEFERRED)));
		fputc('\n', f);
	}
}

/* the highest IOPS of a mode over the depths, and where */
static double peak(const struct exp_report *rep, unsigned mode,
		   unsigned *at)
{
	double best = NAN;
	unsigned d;

	for (d = 0; d < rep->o->ndepths; d++) {
		double v = exp_iops(row(rep, d, mode));

		if (isfinite(v) && !(v <= best)) {
			best = v;
			*at = rep->o->depths[d];
		}
	}
	return best;
}

static void table(FILE *f, const struct exp_report *rep)
{
	char buf[32];
	unsigned at[NCMODES] = { 0 }, m;
	double v[NCMODES];

	lat_table(f, rep);
	iops_table(f, rep);
	for (m = 0; m < NCMODES; m++)
		v[m] = peak(rep, m, &at[m]);
	fputs("\npeak IOPS:", f);
	for (m = 0; m < NCMODES; m++)
		fprintf(f, " %s %s (QD%u)%s", exp_cmode_names[m],
			exp_fmt_iops(v[m], buf, sizeof(buf)), at[m],
			m + 1 < NCMODES ? "," : "");
	fputs("   | seed 001: new 314K, old 249K\n", f);
}

#define MIN_PEAK_GAIN	1.10	/* the seed's: 314/249 = 1.26 */
#define MAX_LAT_RATIO	0.90	/* the seed's: 815/1051 = 0.78 */

static void judge(struct exp_report *rep)
{
	unsigned last = rep->o->ndepths - 1, da = 0, db = 0;
	double pd = peak(rep, CMODE_DEFERRED, &da);
	double pi = peak(rep, CMODE_SINGLE, &db);
	double ld = exp_mean_us(row(rep, last, CMODE_DEFERRED));
	double li = exp_mean_us(row(rep, last, CMODE_SINGLE));

	snprintf(rep->criterion, sizeof(rep->criterion),
		 "peak IOPS of deferred >= %.2f x single's, and mean latency "
		 "at the deepest depth (QD%u) of deferred <= %.2f x single's "
		 "(the seed's: x%.2f and x%.2f)", MIN_PEAK_GAIN,
		 rep->o->depths[last], MAX_LAT_RATIO, 314.0 / 249.0,
		 815.15 / 1050.99);
	snprintf(rep->measured, sizeof(rep->measured),
		 "peak IOPS deferred %.0f (QD%u) vs single %.0f (QD%u): x%.2f; "
		 "mean latency at QD%u %.1f vs %.1f us: x%.2f", pd, da, pi, db,
		 pd / pi, rep->o->depths[last], ld, li, ld / li);
	if (!isfinite(pd / pi) || !isfinite(ld / li))
		rep->verdict = EXP_UNDECIDED;
	else
		rep->verdict = pd >= MIN_PEAK_GAIN * pi &&
			       ld <= MAX_LAT_RATIO * li ?
			       EXP_REPRODUCED : EXP_NOT_REPRODUCED;
}

static void chart(struct exp_chart *c, const struct exp_report *rep)
{
	const struct exp_opts *o = rep->o;
	struct exp_panel *iops, *lat;
	char title[200], name[16];
	unsigned d, m;

	snprintf(title, sizeof(title), "taskwork (seed 001): randread on "
		 "sim:%s, wait=%s", o->sim, o->wait);
	exp_chart_init(c, title, "queue depth", true);
	iops = exp_chart_panel(c, "IOPS", true);
	lat = exp_chart_panel(c, "mean completion latency (us)", false);
	lat->logy = true;
	for (m = 0; m < NCMODES; m++) {
		exp_panel_series(iops, exp_cmode_names[m]);
		exp_panel_series(lat, exp_cmode_names[m]);
	}
	exp_panel_series(lat, "seed 001 new");
	exp_panel_series(lat, "seed 001 old");
	for (d = 0; d < o->ndepths; d++) {
		int x;

		snprintf(name, sizeof(name), "%u", o->depths[d]);
		x = exp_chart_x(c, name, o->depths[d]);
		for (m = 0; m < NCMODES; m++) {
			iops->v[x][m] = exp_iops(row(rep, d, m));
			lat->v[x][m] = exp_mean_us(row(rep, d, m));
		}
		lat->v[x][NCMODES] = seed_at(o->depths[d], true);
		lat->v[x][NCMODES + 1] = seed_at(o->depths[d], false);
	}
}

int exp_taskwork(int argc, char **argv)
{
	static const struct exp_complete_kind kind = {
		.def = &def,
		.table = table,
		.judge = judge,
		.chart = chart,
		.notes = "the seed's device saturates (latency grows with depth "
			 "at a fixed IOPS); simdev with qd=1024 does not, so at "
			 "high depth the limit here is CPU: the submitting task "
			 "and the device thread (and punt's completion thread) "
			 "share the machine's CPUs. The seed's "
			 "'old' ran one task_work per completion in the task, "
			 "which single does; inline posts from the device "
			 "thread instead, so its per-completion cost is on "
			 "another CPU",
	};

	return exp_complete_main(argc, argv, &kind);
}
