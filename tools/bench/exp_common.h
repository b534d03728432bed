/* SPDX-License-Identifier: MIT */
/*
 * exp_common.h - what the seed experiments (anyring-bench experiment
 * NAME) share.
 *
 * An experiment is a list of rows. A row is one configuration (a job spec,
 * optionally an ANYRING_HYBRID estimator); every row runs once per round,
 * rounds interleave the rows (A B C A B C ...) so that load from other
 * processes on a shared machine spreads over all of them, and the row's
 * result is the run with the median IOPS. A row that cannot run here (the
 * kernel refuses io_uring, a feature is missing) is skipped with a reason;
 * a skipped row is not a failure, but a verdict that needs it is
 * undecided.
 *
 * exp_opts.c parses the common arguments, exp_run.c runs the rows,
 * exp_out.c prints the table, the verdict and the JSON and writes the
 * files, exp_plot.c draws the chart. Each experiment is exp_NAME.c.
 */
#ifndef BENCH_EXP_COMMON_H
#define BENCH_EXP_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include "job.h"

#define EXP_MAX_REPS	9
#define EXP_MAX_DEPTHS	16
#define EXP_DEFAULT_OUT	"bench/report/experiments"

/* the knobs an experiment takes besides the common ones */
#define EXP_KNOB_SIM	(1u << 0)	/* --sim=SPEC */
#define EXP_KNOB_FILE	(1u << 1)	/* --file=PATH */
#define EXP_KNOB_DEPTHS	(1u << 2)	/* --depths=LIST */
#define EXP_KNOB_DEPTH	(1u << 3)	/* --depth=N */
#define EXP_KNOB_WAIT	(1u << 4)	/* --wait=POLICY */

/* What an experiment is, and its defaults. */
struct exp_def {
	const char *name;
	const char *seed_file;	/* the seed's number and id, as the docs name it */
	const char *seed_title;
	const char *seed_source;	/* where it is public: author, list, commit */
	const char *seed_result;	/* the published figures, one line */
	double runtime_s;	/* per run */
	unsigned reps;		/* rounds */
	unsigned knobs;		/* EXP_KNOB_* */
	const char *sim;	/* default simdev spec (EXP_KNOB_SIM) */
	const char *depths;	/* default depth list (EXP_KNOB_DEPTHS) */
	unsigned depth;		/* default depth (EXP_KNOB_DEPTH) */
	const char *wait;	/* default wait policy (EXP_KNOB_WAIT) */
	const char *knob_help;	/* what its knobs mean here, for --help */
};

struct exp_opts {
	const struct exp_def *def;
	double runtime_s;
	unsigned reps;
	const char *out_dir;
	bool json;
	bool plot;
	const char *sim;
	const char *file;
	unsigned depths[EXP_MAX_DEPTHS];
	unsigned ndepths;
	unsigned depth;
	const char *wait;
};

/* 0: run; 1: --help was printed; 2: a usage error was printed. */
int exp_parse(int argc, char **argv, const struct exp_def *def,
	      struct exp_opts *o);

struct exp_row {
	char label[64];		/* the table's name for it */
	struct job_spec spec;
	const char *hybrid;	/* ANYRING_HYBRID while it runs, or NULL */
	char policy[128];	/* spec.policy points here when set */
	char target[512];	/* spec.target points here */
	char skip[200];		/* set: not run, and why */
	bool failed;		/* a run failed (it said why on stderr) */
	unsigned nres;
	struct job_result *res[EXP_MAX_REPS];
	const struct job_result *med;	/* the median-IOPS run, or NULL */
};

/* A row with the spec defaults, the run time and no policy. */
void exp_row_init(struct exp_row *r, const struct exp_opts *o,
		  const char *label);
void exp_row_policy(struct exp_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void exp_row_target(struct exp_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void exp_row_skip(struct exp_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Run every row o->reps times, interleaved, progress on stderr. Returns
 * how many rows failed; Ctrl-C stops after the run in progress.
 */
unsigned exp_run_rows(const struct exp_opts *o, struct exp_row *rows,
		      unsigned n);
void exp_rows_free(struct exp_row *rows, unsigned n);

/* The median run's numbers, NAN when the row has none. */
double exp_iops(const struct exp_row *r);
double exp_cpu(const struct exp_row *r);		/* usr+sys, % of one CPU */
double exp_lat_us(const struct exp_row *r, double pct);	/* -t runs */
double exp_mean_us(const struct exp_row *r);
/* a counter of anyring_stats per I/O; NAN without counters */
double exp_per_io(const struct exp_row *r, unsigned long long count);
#define EXP_PER_IO(r, field) \
	((r)->med && (r)->med->has_stats ? \
	 exp_per_io((r), (r)->med->stats.field) : NAN)

/* Is the kernel's io_uring usable here? 0, or -errno and why. */
int exp_kernel_ring_check(unsigned *features, char *why, size_t len);

/* ---- output (exp_out.c) ---- */

enum { EXP_UNDECIDED = -1, EXP_NOT_REPRODUCED = 0, EXP_REPRODUCED = 1 };

struct exp_chart;

struct exp_report {
	const struct exp_opts *o;
	struct exp_row *rows;
	unsigned n;
	const char *setup;	/* one paragraph: what ran */
	int verdict;		/* EXP_* */
	char criterion[400];	/* the rule the verdict applies */
	char measured[600];	/* the numbers it was applied to */
	const char *notes;	/* caveats, or NULL */
	char machine[200];	/* exp_finish: kernel, CPUs, load average */
	/* the experiment's table, in the seed's shape */
	void (*table)(FILE *f, const struct exp_report *rep);
	const struct exp_chart *chart;	/* or NULL */
	const void *priv;
};

/*
 * Print the report (text, or JSON with o->json), write DIR/NAME.txt and
 * the chart DIR/NAME.svg. Returns the exit status: 0, or 1 when a row
 * failed or nothing ran.
 */
int exp_finish(struct exp_report *rep);
/*
 * What every experiment does once its rows are built: run them, then
 * start the report on them (the verdict, chart and notes come next).
 */
void exp_report_run(struct exp_report *rep, const struct exp_opts *o,
		    struct exp_row *rows, unsigned n, const char *setup,
		    void (*table)(FILE *f, const struct exp_report *rep));
/* exp_finish(), then the rows' results freed; its exit status */
int exp_report_done(struct exp_report *rep);

/* "595.31K" or "-" */
const char *exp_fmt_iops(double v, char *buf, size_t len);
/* "%.1f" or "-" in width w */
void exp_put(FILE *f, int w, double v);
void exp_put_prec(FILE *f, int w, int prec, double v);

/* The experiments. */
int exp_iowait(int argc, char **argv);
int exp_taskwork(int argc, char **argv);
int exp_inline_completion(int argc, char **argv);
int exp_wait_threshold(int argc, char **argv);
int exp_hybrid_poll(int argc, char **argv);

#endif
