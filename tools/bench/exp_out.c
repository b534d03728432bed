/* SPDX-License-Identifier: MIT */
/*
 * exp_out.c - what an experiment leaves behind: the report (the seed and
 * its published figures, the setup, the experiment's own table, the
 * criterion, the measured numbers, the verdict) on stdout and in
 * DIR/NAME.txt, the chart DIR/NAME.svg, and with --json one object on
 * stdout instead of the text.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "exp_common.h"
#include "exp_plot.h"
#include "json.h"
#include "units.h"

const char *exp_fmt_iops(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	return fmt_count(v, buf, len);
}

void exp_put_prec(FILE *f, int w, int prec, double v)
{
	if (isfinite(v))
		fprintf(f, " %*.*f", w, prec, v);
	else
		fprintf(f, " %*s", w, "-");
}

void exp_put(FILE *f, int w, double v)
{
	exp_put_prec(f, w, 1, v);
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char buf[4096], *p, c;

	if (!dir[0])
		return -EINVAL;
	if (strlen(dir) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, dir);
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		c = *p;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

static const char *verdict_word(int v)
{
	return v == EXP_REPRODUCED ? "YES" :
	       v == EXP_NOT_REPRODUCED ? "NO" : "UNDECIDED";
}

static void skipped_rows(FILE *f, const struct exp_report *rep)
{
	unsigned i;

	for (i = 0; i < rep->n; i++) {
		const struct exp_row *r = &rep->rows[i];

		if (r->skip[0])
			fprintf(f, "skipped: %s: %s\n", r->label, r->skip);
		else if (r->failed)
			fprintf(f, "failed: %s (the error is on stderr)\n",
				r->label);
	}
}

/* "Linux 6.18.44 x86_64, 2 CPUs online, load average 1.17 1.58 1.20" */
static void machine(char *buf, size_t len)
{
	struct utsname u;
	double load[3] = { NAN, NAN, NAN };

	if (uname(&u))
		snprintf(u.sysname, sizeof(u.sysname), "?");
	getloadavg(load, 3);
	snprintf(buf, len, "%.20s %.60s %.20s, %ld CPUs online, load average %.2f "
		 "%.2f %.2f", u.sysname, u.release, u.machine,
		 sysconf(_SC_NPROCESSORS_ONLN), load[0], load[1], load[2]);
}

static void text_report(FILE *f, const struct exp_report *rep,
			const char *chart)
{
	const struct exp_opts *o = rep->o;
	const struct exp_def *d = o->def;

	fprintf(f, "== experiment %s: seed %.3s, \"%s\"\n", d->name,
		d->seed_file, d->seed_title);
	fprintf(f, "   source: %s\n", d->seed_source);
	fprintf(f, "   published: %s\n", d->seed_result);
	fprintf(f, "machine: %s\n", rep->machine);
	fprintf(f, "setup: %s\n", rep->setup);
	fprintf(f, "runs: %g s each, %u round%s (rows interleaved; each row "
		"shows its median-IOPS run)\n\n", o->runtime_s, o->reps,
		o->reps == 1 ? "" : "s");
	rep->table(f, rep);
	fputc('\n', f);
	skipped_rows(f, rep);
	fprintf(f, "criterion: %s\n", rep->criterion);
	fprintf(f, "measured:  %s\n", rep->measured);
	fprintf(f, "reproduced: %s\n", verdict_word(rep->verdict));
	if (rep->notes)
		fprintf(f, "notes: %s\n", rep->notes);
	if (chart)
		fprintf(f, "chart: %s\n", chart);
	fflush(f);
}

static void json_num(FILE *f, const char *key, double v)
{
	fprintf(f, ",\"%s\":", key);
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

static void json_row(FILE *f, const struct exp_row *r, unsigned first_run)
{
	unsigned j;

	fputs("{\"label\":", f);
	json_string(f, r->label);
	fputs(",\"skipped\":", f);
	json_string(f, r->skip[0] ? r->skip : NULL);
	fprintf(f, ",\"failed\":%s", r->failed ? "true" : "false");
	fputs(",\"hybrid\":", f);
	json_string(f, r->hybrid);
	json_num(f, "iops", exp_iops(r));
	json_num(f, "cpu", exp_cpu(r));
	json_num(f, "mean_us", exp_mean_us(r));
	json_num(f, "p50_us", exp_lat_us(r, 50));
	json_num(f, "p99_us", exp_lat_us(r, 99));
	json_num(f, "wakeups_per_io", EXP_PER_IO(r, wakeups));
	json_num(f, "spurious_per_io", EXP_PER_IO(r, spurious_wakeups));
	fputs(",\"iops_reps\":[", f);
	for (j = 0; j < r->nres; j++)
		fprintf(f, "%s%.1f", j ? "," : "", r->res[j]->iops);
	fputs("],\"runs\":[", f);
	for (j = 0; j < r->nres; j++)
		fprintf(f, "%s%u", j ? "," : "", first_run + j);
	fputs("],\"median_run\":", f);
	for (j = 0; j < r->nres && r->res[j] != r->med; j++)
		;
	if (j < r->nres)
		fprintf(f, "%u}", first_run + j);
	else
		fputs("null}", f);
}

static void json_report(FILE *f, const struct exp_report *rep,
			const char *chart)
{
	const struct exp_def *d = rep->o->def;
	unsigned i, j, k = 0;

	fputs("{\"experiment\":", f);
	json_string(f, d->name);
	fputs(",\"seed\":", f);
	json_string(f, d->seed_file);
	fputs(",\"published\":", f);
	json_string(f, d->seed_result);
	fprintf(f, ",\"reproduced\":%s", rep->verdict == EXP_UNDECIDED ? "null" :
		rep->verdict == EXP_REPRODUCED ? "true" : "false");
	fputs(",\"criterion\":", f);
	json_string(f, rep->criterion);
	fputs(",\"measured\":", f);
	json_string(f, rep->measured);
	fputs(",\"machine\":", f);
	json_string(f, rep->machine);
	fputs(",\"setup\":", f);
	json_string(f, rep->setup);
	fprintf(f, ",\"runtime_s\":%.3f,\"reps\":%u", rep->o->runtime_s,
		rep->o->reps);
	fputs(",\"notes\":", f);
	json_string(f, rep->notes);
	fputs(",\"plot\":", f);
	json_string(f, chart);
	fputs(",\n\"rows\":[", f);
	for (i = 0; i < rep->n; i++) {
		fputs(i ? ",\n" : "", f);
		json_row(f, &rep->rows[i], k);
		k += rep->rows[i].nres;
	}
	fputs("],\n\"runs\":[", f);
	for (i = 0, k = 0; i < rep->n; i++)
		for (j = 0; j < rep->rows[i].nres; j++) {
			fputs(k++ ? ",\n" : "", f);
			json_result(f, rep->rows[i].res[j]);
		}
	fputs("]}\n", f);
	fflush(f);
}

/* The chart's path, or NULL when there is none (said why). */
static const char *write_chart(const struct exp_report *rep, char *path,
			       size_t len)
{
	const struct exp_opts *o = rep->o;

	if (!o->plot || !rep->chart)
		return NULL;
	if (!exp_have_gnuplot()) {
		fprintf(stderr, "anyring-bench: gnuplot not found: no chart "
			"(scripts/setup.sh bench installs gnuplot-nox)\n");
		return NULL;
	}
	snprintf(path, len, "%s/%s.svg", o->out_dir, o->def->name);
	if (exp_chart_write(rep->chart, path))
		return NULL;
	fprintf(stderr, "anyring-bench: chart written to %s\n", path);
	return path;
}

static void write_text_file(const struct exp_report *rep, const char *chart)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.txt", rep->o->out_dir,
		 rep->o->def->name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "anyring-bench: %s: %s\n", path, strerror(errno));
		return;
	}
	text_report(f, rep, chart);
	fclose(f);
}

static int exit_status(const struct exp_report *rep)
{
	unsigned i, ran = 0;
	bool failed = false;

	for (i = 0; i < rep->n; i++) {
		ran += rep->rows[i].nres > 0;
		failed |= rep->rows[i].failed;
	}
	return failed || !ran ? 1 : 0;
}

int exp_finish(struct exp_report *rep)
{
	char chart_path[4200];
	const char *chart = NULL;
	int ret = make_dirs(rep->o->out_dir);

	machine(rep->machine, sizeof(rep->machine));
	if (ret)
		fprintf(stderr, "anyring-bench: --out %s: %s (no chart, no "
			"report file)\n", rep->o->out_dir, strerror(-ret));
	else
		chart = write_chart(rep, chart_path, sizeof(chart_path));
	if (rep->o->json)
		json_report(stdout, rep, chart);
	else
		text_report(stdout, rep, chart);
	if (!ret)
		write_text_file(rep, chart);
	return exit_status(rep);
}
