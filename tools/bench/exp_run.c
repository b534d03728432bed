/* SPDX-License-Identifier: MIT */
/*
 * exp_run.c - running an experiment's rows: each row once per round, the
 * rows interleaved, the median-IOPS run kept as the row's result; and the
 * numbers the tables read from it.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "exp_common.h"
#include "hist.h"
#include "units.h"

void exp_row_init(struct exp_row *r, const struct exp_opts *o,
		  const char *label)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%s", label);
	job_spec_defaults(&r->spec);
	r->spec.runtime_s = o->runtime_s;
	r->spec.quiet = true;
}

void exp_row_policy(struct exp_row *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->policy, sizeof(r->policy), fmt, ap);
	va_end(ap);
	r->spec.policy = r->policy[0] ? r->policy : NULL;
}

void exp_row_target(struct exp_row *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->target, sizeof(r->target), fmt, ap);
	va_end(ap);
	r->spec.target = r->target;
}

void exp_row_skip(struct exp_row *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->skip, sizeof(r->skip), fmt, ap);
	va_end(ap);
}

/* ANYRING_HYBRID for one run; the old value comes back after it */
struct env_save {
	char *old;
	bool set;
};

static void hybrid_env_set(const char *v, struct env_save *save)
{
	const char *old = getenv("ANYRING_HYBRID");

	save->set = v != NULL;
	save->old = old ? strdup(old) : NULL;
	if (v)
		setenv("ANYRING_HYBRID", v, 1);
}

static void hybrid_env_restore(struct env_save *save)
{
	if (save->set) {
		if (save->old)
			setenv("ANYRING_HYBRID", save->old, 1);
		else
			unsetenv("ANYRING_HYBRID");
	}
	free(save->old);
}

static int run_once(struct exp_row *r)
{
	struct job_result *res = malloc(sizeof(*res));
	struct env_save save;
	int ret;

	if (!res) {
		fprintf(stderr, "anyring-bench: out of memory\n");
		return -1;
	}
	hybrid_env_set(r->hybrid, &save);
	ret = job_run(&r->spec, res);
	hybrid_env_restore(&save);
	if (ret) {
		free(res);
		return -1;
	}
	r->res[r->nres++] = res;
	return 0;
}

static void progress(const struct exp_opts *o, const struct exp_row *r,
		     unsigned i, unsigned total)
{
	fprintf(stderr, "[%u/%u] %s: %s (%g s) ... ", i, total,
		o->def->name, r->label, r->spec.runtime_s);
	fflush(stderr);
}

static int cmp_iops(const void *a, const void *b)
{
	const struct job_result *x = *(const struct job_result *const *)a;
	const struct job_result *y = *(const struct job_result *const *)b;

	return (x->iops > y->iops) - (x->iops < y->iops);
}

/* the median run (the lower one of an even count) */
static void pick_median(struct exp_row *r)
{
	const struct job_result *v[EXP_MAX_REPS];

	if (!r->nres)
		return;
	memcpy(v, r->res, r->nres * sizeof(v[0]));
	qsort(v, r->nres, sizeof(v[0]), cmp_iops);
	r->med = v[(r->nres - 1) / 2];
}

static unsigned runnable(const struct exp_row *rows, unsigned n)
{
	unsigned i, k = 0;

	for (i = 0; i < n; i++)
		k += !rows[i].skip[0];
	return k;
}

unsigned exp_run_rows(const struct exp_opts *o, struct exp_row *rows,
		      unsigned n)
{
	unsigned total = runnable(rows, n) * o->reps, done = 0, rep, i;
	unsigned failed = 0;
	char buf[32];

	job_catch_sigint();
	for (rep = 0; rep < o->reps && !job_interrupted(); rep++) {
		for (i = 0; i < n && !job_interrupted(); i++) {
			struct exp_row *r = &rows[i];

			if (r->skip[0] || r->failed)
				continue;
			progress(o, r, ++done, total);
			if (run_once(r)) {
				r->failed = true;
				failed++;
				fprintf(stderr, "[%s: failed]\n", r->label);
				continue;
			}
			fprintf(stderr, "%s IOPS\n", fmt_count(
				r->res[r->nres - 1]->iops, buf, sizeof(buf)));
		}
	}
	if (job_interrupted())
		fprintf(stderr, "interrupted: %u of %u runs\n", done, total);
	for (i = 0; i < n; i++)
		pick_median(&rows[i]);
	return failed;
}

void exp_rows_free(struct exp_row *rows, unsigned n)
{
	unsigned i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < rows[i].nres; j++)
			free(rows[i].res[j]);
		rows[i].nres = 0;
		rows[i].med = NULL;
	}
}

double exp_iops(const struct exp_row *r)
{
	return r->med ? r->med->iops : NAN;
}

double exp_cpu(const struct exp_row *r)
{
	return r->med ? r->med->cpu_usr + r->med->cpu_sys : NAN;
}

double exp_lat_us(const struct exp_row *r, double pct)
{
	uint64_t v;

	if (!r->med || !r->med->spec.track_lat || !r->med->lat.count)
		return NAN;
	hist_percentiles(&r->med->lat, &pct, 1, &v);
	return (double)v / 1000.0;
}

double exp_mean_us(const struct exp_row *r)
{
	if (!r->med || !r->med->spec.track_lat || !r->med->lat.count)
		return NAN;
	return hist_mean(&r->med->lat) / 1000.0;
}

double exp_per_io(const struct exp_row *r, unsigned long long count)
{
	if (!r->med || !r->med->has_stats || !r->med->ios)
		return NAN;
	return (double)count / (double)r->med->ios;
}

int exp_kernel_ring_check(unsigned *features, char *why, size_t len)
{
	struct io_uring ring;
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine("kernel", 2, &ring, &p);
	if (ret < 0) {
		snprintf(why, len, "the kernel's io_uring is refused here "
			 "(io_uring_setup: %s)", strerror(-ret));
		return ret;
	}
	if (features)
		*features = p.features;
	io_uring_queue_exit(&ring);
	return 0;
}

void exp_report_run(struct exp_report *rep, const struct exp_opts *o,
		    struct exp_row *rows, unsigned n, const char *setup,
		    void (*table)(FILE *f, const struct exp_report *rep))
{
	exp_run_rows(o, rows, n);
	memset(rep, 0, sizeof(*rep));
	rep->o = o;
	rep->rows = rows;
	rep->n = n;
	rep->setup = setup;
	rep->table = table;
}

int exp_report_done(struct exp_report *rep)
{
	int ret = exp_finish(rep);

	exp_rows_free(rep->rows, rep->n);
	return ret;
}
