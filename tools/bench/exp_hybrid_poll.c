/* SPDX-License-Identifier: MIT */
/*
 * exp_hybrid_poll.c - seed 004, "releasing CPU resources when polling"
 * (IORING_SETUP_HYBRID_IOPOLL): IRQ completion vs IOPOLL vs hybrid
 * polling (sleep part of the expected completion time, then poll) for
 * write, read, randwrite and randread, IOPS and CPU. On a simdev: irq
 * rows use a completion=irq device and a sleeping waiter, the others a
 * completion=poll device on an IOPOLL ring, hybrid adds HYBRID_IOPOLL with
 * each of the user engine's estimators (ANYRING_HYBRID=half-min, the
 * kernel's rule, and learned; docs/simdev.md).
 */
#include <math.h>
#include <string.h>
#include "exp_common.h"
#include "exp_plot.h"

enum { MODE_POLL, MODE_IRQ, MODE_HALF_MIN, MODE_LEARNED, NMODES };
enum { RW_WRITE, RW_READ, RW_RANDWRITE, RW_RANDREAD, NRW };
#define NROWS	(NMODES * NRW)

static const struct exp_def def = {
	.name = "hybrid-poll",
	.seed_file = "004_0e93927c8d224c94.txt",
	.seed_source = "hexue, a patch on the io-uring list (2024), in mainline 6.13 as IORING_SETUP_HYBRID_IOPOLL",
	.seed_title = "io_uring: releasing CPU resources when polling (v6, 2024)",
	.seed_result = "randread: poll 526K IOPS @100% CPU, IRQ 216K @100%, "
		       "hybrid 390K @85% (fio 3.35, Gen4 NVMe; read/write: "
		       "same bandwidth, hybrid CPU 32-76%)",
	.runtime_s = 1,
	.reps = 3,
	.knobs = EXP_KNOB_SIM | EXP_KNOB_DEPTH | EXP_KNOB_WAIT,
	.sim = "size=256M,lat=fixed:200us",
	.depth = 1,
	.wait = "sleep",
	.knob_help =
"  --sim=SPEC          the simdev, without completion= (default\n"
"                      size=256M,lat=fixed:200us: at 20 us a sleep on this\n"
"                      kind of VM costs more than it saves)\n"
"  --depth=N           queue depth (default 1)\n"
"  --wait=POLICY       the irq rows' waiter (default sleep, as a task\n"
"                      sleeping until the interrupt)\n"
"\n"
"Rows: poll (IORING_SETUP_IOPOLL on a completion=poll simdev), irq (a\n"
"completion=irq simdev), hybrid half-min and hybrid learned\n"
"(IOPOLL|HYBRID_IOPOLL, ANYRING_HYBRID=half-min|learned), each for write,\n"
"read, randwrite and randread, 4 KiB, user engine.\n",
};

static const char *const mode_names[NMODES] = {
	"regular poll", "IRQ", "hybrid half-min", "hybrid learned",
};
static const char *const rw_names[NRW] = {
	"write", "read", "randwrite", "randread",
};
/* seed 004's table, as published (BW for the sequential columns) */
static const char *const seed_perf[3][NRW] = {
	{ "BW=3939MiB/s", "BW=6596MiB/s", "IOPS=190K", "IOPS=526K" },
	{ "BW=3927MiB/s", "BW=6567MiB/s", "IOPS=181K", "IOPS=216K" },
	{ "BW=3933MiB/s", "BW=6600MiB/s", "IOPS=190K", "IOPS=390K" },
};
static const char *const seed_cpu[3][NRW] = {
	{ "100%", "100%", "100%", "100%" },
	{ "38%", "53%", "100%", "100%" },
	{ "76%", "32%", "70%", "85%" },
};
static const char *const seed_rows[3] = { "regular poll", "IRQ", "hybrid poll" };

static unsigned row_of(unsigned mode, unsigned rw)
{
	return mode * NRW + rw;
}

static void build_row(const struct exp_opts *o, struct exp_row *r,
		      unsigned mode, unsigned rw)
{
	char label[64];

	snprintf(label, sizeof(label), "%s %s", mode_names[mode], rw_names[rw]);
	exp_row_init(r, o, label);
	r->spec.engine = "user";
	r->spec.depth = o->depth;
	r->spec.batch_submit = 1;
	r->spec.batch_complete = 1;
	r->spec.track_lat = true;
	r->spec.read_pct = rw == RW_READ || rw == RW_RANDREAD ? 100 : 0;
	r->spec.random = rw == RW_RANDREAD || rw == RW_RANDWRITE;
	exp_row_target(r, "sim:%s,completion=%s", o->sim,
		       mode == MODE_IRQ ? "irq" : "poll");
	if (mode == MODE_IRQ) {
		if (strcmp(o->wait, "default"))
			exp_row_policy(r, "wait=%s", o->wait);
		return;
	}
	r->spec.polled = true;
	if (mode == MODE_HALF_MIN || mode == MODE_LEARNED) {
		r->spec.ring_flags |= RINGF_HYBRID;
		r->hybrid = mode == MODE_HALF_MIN ? "half-min" : "learned";
	}
}

static void seed_table(FILE *f)
{
	unsigned m, rw;

	fputs("\nseed 004, as published (fio-3.35, Gen 4 device):\n", f);
	fprintf(f, "%-16s", "");
	for (rw = 0; rw < NRW; rw++)
		fprintf(f, " %13s", rw_names[rw]);
	fputc('\n', f);
	for (m = 0; m < 3; m++) {
		fprintf(f, "%-16s", seed_rows[m]);
		for (rw = 0; rw < NRW; rw++)
			fprintf(f, " %13s", seed_perf[m][rw]);
		fputc('\n', f);
	}
	fputs("CPU utilization\n", f);
	for (m = 0; m < 3; m++) {
		fprintf(f, "%-16s", seed_rows[m]);
		for (rw = 0; rw < NRW; rw++)
			fprintf(f, " %13s", seed_cpu[m][rw]);
		fputc('\n', f);
	}
}

enum { CELL_IOPS, CELL_CPU, CELL_LAT };

static void cell(char *buf, size_t len, const struct exp_row *r, int what)
{
	if (!r->med) {
		snprintf(buf, len, "-");
		return;
	}
	switch (what) {
	case CELL_IOPS:
		exp_fmt_iops(exp_iops(r), buf, len);
		break;
	case CELL_CPU:
		snprintf(buf, len, "%.0f%%", exp_cpu(r));
		break;
	default:
		snprintf(buf, len, "%.0f/%.0f", exp_lat_us(r, 50),
			 exp_lat_us(r, 99));
	}
}

/* one block of the table: a value per mode and rw */
static void block(FILE *f, const struct exp_report *rep, const char *title,
		  int what)
{
	char buf[48];
	unsigned m, rw;

	fprintf(f, "%s\n%-16s", title, "");
	for (rw = 0; rw < NRW; rw++)
		fprintf(f, " %13s", rw_names[rw]);
	fputc('\n', f);
	for (m = 0; m < NMODES; m++) {
		fprintf(f, "%-16s", mode_names[m]);
		for (rw = 0; rw < NRW; rw++) {
			cell(buf, sizeof(buf), &rep->rows[row_of(m, rw)], what);
			fprintf(f, " %13s", buf);
		}
		fputc('\n', f);
	}
}

static void table(FILE *f, const struct exp_report *rep)
{
	block(f, rep, "Performance (IOPS, 4 KiB)", CELL_IOPS);
	block(f, rep, "CPU utilization (process, % of one CPU)", CELL_CPU);
	block(f, rep, "Completion latency p50/p99 (us)", CELL_LAT);
	seed_table(f);
}

#define MIN_POLL_SHARE	0.70	/* the seed's hybrid: 390/526 = 0.74 */
#define MIN_CPU_SAVED	10.0	/* points; the seed's: 15 */

/* does a hybrid row sit between IRQ and poll as the seed's does? */
static bool hybrid_pays(const struct exp_row *h, const struct exp_row *poll,
			const struct exp_row *irq)
{
	return exp_iops(h) > exp_iops(irq) &&
	       exp_iops(h) >= MIN_POLL_SHARE * exp_iops(poll) &&
	       exp_cpu(h) <= exp_cpu(poll) - MIN_CPU_SAVED;
}

static void judge(struct exp_report *rep)
{
	const struct exp_row *poll = &rep->rows[row_of(MODE_POLL, RW_RANDREAD)];
	const struct exp_row *irq = &rep->rows[row_of(MODE_IRQ, RW_RANDREAD)];
	const struct exp_row *hm = &rep->rows[row_of(MODE_HALF_MIN, RW_RANDREAD)];
	const struct exp_row *lr = &rep->rows[row_of(MODE_LEARNED, RW_RANDREAD)];

	snprintf(rep->criterion, sizeof(rep->criterion),
		 "randread: a hybrid estimator has IOPS above IRQ's and >= "
		 "%.0f%% of poll's, at a CPU at least %.0f points below poll's "
		 "(the seed's hybrid: 1.8x IRQ, 74%% of poll, 15 points less)",
		 MIN_POLL_SHARE * 100, MIN_CPU_SAVED);
	snprintf(rep->measured, sizeof(rep->measured),
		 "randread IOPS / CPU%%: poll %.0f / %.0f, IRQ %.0f / %.0f, "
		 "half-min %.0f / %.0f (%s), learned %.0f / %.0f (%s)",
		 exp_iops(poll), exp_cpu(poll), exp_iops(irq), exp_cpu(irq),
		 exp_iops(hm), exp_cpu(hm),
		 hybrid_pays(hm, poll, irq) ? "pays" : "does not pay",
		 exp_iops(lr), exp_cpu(lr),
		 hybrid_pays(lr, poll, irq) ? "pays" : "does not pay");
	if (!poll->med || !irq->med || (!hm->med && !lr->med))
		rep->verdict = EXP_UNDECIDED;
	else if ((hm->med && hybrid_pays(hm, poll, irq)) ||
		 (lr->med && hybrid_pays(lr, poll, irq)))
		rep->verdict = EXP_REPRODUCED;
	else
		rep->verdict = EXP_NOT_REPRODUCED;
}

static void chart(struct exp_chart *c, const struct exp_opts *o,
		  const struct exp_row *rows)
{
	struct exp_panel *iops, *cpu;
	char title[200];
	unsigned m, rw;

	snprintf(title, sizeof(title), "hybrid-poll (seed 004): QD%u, sim:%s",
		 o->depth, o->sim);
	exp_chart_init(c, title, "I/O pattern (4 KiB)", false);
	iops = exp_chart_panel(c, "IOPS", true);
	cpu = exp_chart_panel(c, "CPU (process, % of one CPU)", false);
	for (m = 0; m < NMODES; m++) {
		exp_panel_series(iops, mode_names[m]);
		exp_panel_series(cpu, mode_names[m]);
	}
	for (rw = 0; rw < NRW; rw++) {
		int x = exp_chart_x(c, rw_names[rw], rw);

		for (m = 0; m < NMODES; m++) {
			iops->v[x][m] = exp_iops(&rows[row_of(m, rw)]);
			cpu->v[x][m] = exp_cpu(&rows[row_of(m, rw)]);
		}
	}
}

int exp_hybrid_poll(int argc, char **argv)
{
	struct exp_row rows[NROWS];
	struct exp_opts o;
	struct exp_chart c;
	struct exp_report rep;
	char setup[600];
	unsigned m, rw;
	int ret = exp_parse(argc, argv, &def, &o);

	if (ret)
		return ret == 1 ? 0 : 2;
	if (strstr(o.sim, "completion=")) {
		fprintf(stderr, "anyring-bench: experiment hybrid-poll: --sim "
			"without completion= (each row sets it)\n");
		return 2;
	}
	for (m = 0; m < NMODES; m++)
		for (rw = 0; rw < NRW; rw++)
			build_row(&o, &rows[row_of(m, rw)], m, rw);
	snprintf(setup, sizeof(setup), "user engine, sim:%s, QD%u, -s 1 -c 1, "
		 "4 KiB; poll: -p 1 on completion=poll; IRQ: completion=irq, "
		 "--policy=wait=%s; hybrid: -p 1 --ring-flags=coop,single,"
		 "defer,hybrid with ANYRING_HYBRID=half-min or learned",
		 o.sim, o.depth, o.wait);
	exp_report_run(&rep, &o, rows, NROWS, setup, table);
	judge(&rep);
	chart(&c, &o, rows);
	rep.chart = &c;
	rep.notes = "CPU is the whole process's usr+sys (getrusage): on poll "
		    "and hybrid rows the simdev's device thread is idle (the "
		    "ring finds completions by polling), so it is the polling "
		    "thread's; on IRQ rows it includes the device thread, "
		    "which busy-waits the last stretch before each due time "
		    "(the seed's IRQ CPU is the application's). simdev has no "
		    "seek or bandwidth model unless --sim sets bw=: "
		    "sequential and random patterns differ only in offsets";
	return exp_report_done(&rep);
}
