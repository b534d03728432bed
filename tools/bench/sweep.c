/* SPDX-License-Identifier: MIT */
/*
 * sweep.c - parameter sweeps: parsing, the runs, the table.
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "hist.h"
#include "report.h"
#include "sweep.h"
#include "units.h"

static const char *const key_names[] = {
	[SWEEP_DEPTH] = "depth", [SWEEP_ENGINE] = "engine",
	[SWEEP_POLICY] = "policy", [SWEEP_BS] = "bs",
};

const char *sweep_key_name(enum sweep_key key)
{
	return key_names[key];
}

static int key_parse(const char *s, size_t n, enum sweep_key *key)
{
	unsigned i;

	for (i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
		if (strlen(key_names[i]) == n && !strncmp(s, key_names[i], n)) {
			*key = (enum sweep_key)i;
			return 0;
		}
	return -1;
}

static bool numeric(enum sweep_key key)
{
	return key == SWEEP_DEPTH || key == SWEEP_BS;
}

static int add_value(struct sweep_axis *a, const char *v, uint64_t num,
		     char *why, size_t len)
{
	if (a->n == SWEEP_MAX_VALUES) {
		snprintf(why, len, "--sweep %s: more than %d values",
			 key_names[a->key], SWEEP_MAX_VALUES);
		return -1;
	}
	a->str[a->n] = strdup(v);
	a->num[a->n] = num;
	a->n++;
	return 0;
}

/* "...": continue the ratio of the last two values up to (not incl.) end */
static int expand(struct sweep_axis *a, uint64_t end, char *why, size_t len)
{
	uint64_t x, r;
	char buf[32];

	if (a->n < 2 || a->num[a->n - 2] == 0 ||
	    a->num[a->n - 1] % a->num[a->n - 2] ||
	    a->num[a->n - 1] / a->num[a->n - 2] < 2) {
		snprintf(why, len, "--sweep %s: \"...\" needs two values before "
			 "it with a whole ratio >= 2 (1,2,4,...,256)",
			 key_names[a->key]);
		return -1;
	}
	r = a->num[a->n - 1] / a->num[a->n - 2];
	for (x = a->num[a->n - 1] * r; x < end; x *= r) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)x);
		if (add_value(a, buf, x, why, len))
			return -1;
	}
	return 0;
}

static int value_parse(struct sweep_axis *a, const char *v, char *why,
		       size_t len)
{
	uint64_t num = 0;

	if (a->key == SWEEP_ENGINE && !engine_find(v)) {
		snprintf(why, len, "--sweep engine: unknown engine %s (%s)", v,
			 engine_names());
		return -1;
	}
	if (numeric(a->key) && (parse_size(v, &num) || !num ||
	    num > (a->key == SWEEP_DEPTH ? BENCH_MAX_DEPTH : 1u << 30))) {
		snprintf(why, len, "--sweep %s: bad value '%s'",
			 key_names[a->key], v);
		return -1;
	}
	return add_value(a, v, num, why, len);
}

static int values_parse(struct sweep_axis *a, char *list, char *why,
			size_t len)
{
	bool pending = false;	/* a "..." waits for its end value */
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "...") && numeric(a->key) && !pending) {
			pending = true;
			continue;
		}
		if (pending) {
			uint64_t end;

			if (parse_size(tok, &end) || expand(a, end, why, len))
				return -1;
			pending = false;
		}
		if (value_parse(a, tok, why, len))
			return -1;
	}
	if (pending || !a->n) {
		snprintf(why, len, "--sweep %s: no values", key_names[a->key]);
		return -1;
	}
	return 0;
}

int sweep_add(struct sweep *sw, const char *arg, char *why, size_t len)
{
	const char *eq = strchr(arg, '=');
	struct sweep_axis *a;
	enum sweep_key key;
	char *list;
	unsigned i;
	int ret;

	if (!eq || key_parse(arg, (size_t)(eq - arg), &key)) {
		snprintf(why, len, "--sweep %s: want KEY=V1,V2,... with KEY "
			 "depth, engine, policy or bs", arg);
		return -1;
	}
	for (i = 0; i < sw->naxes; i++)
		if (sw->axis[i].key == key) {
			snprintf(why, len, "--sweep %s given twice",
				 key_names[key]);
			return -1;
		}
	if (sw->naxes == SWEEP_MAX_AXES) {
		snprintf(why, len, "at most %d --sweep", SWEEP_MAX_AXES);
		return -1;
	}
	a = &sw->axis[sw->naxes++];
	memset(a, 0, sizeof(*a));
	a->key = key;
	list = strdup(eq + 1);
	ret = list ? values_parse(a, list, why, len) : -1;
	free(list);
	return ret;
}

void sweep_free(struct sweep *sw)
{
	unsigned i, j;

	for (i = 0; i < sw->naxes; i++)
		for (j = 0; j < sw->axis[i].n; j++)
			free(sw->axis[i].str[j]);
	sw->naxes = 0;
}

const struct sweep_axis *sweep_find(const struct sweep *sw, enum sweep_key key)
{
	unsigned i;

	for (i = 0; i < sw->naxes; i++)
		if (sw->axis[i].key == key)
			return &sw->axis[i];
	return NULL;
}

unsigned sweep_count(const struct sweep *sw)
{
	unsigned i, n = 1;

	for (i = 0; i < sw->naxes; i++)
		n *= sw->axis[i].n;
	return n;
}

void sweep_apply(const struct sweep *sw, unsigned idx, struct job_spec *s)
{
	unsigned i = sw->naxes;

	while (i--) {
		const struct sweep_axis *a = &sw->axis[i];
		unsigned v = idx % a->n;

		idx /= a->n;
		switch (a->key) {
		case SWEEP_DEPTH:
			s->depth = (unsigned)a->num[v];
			break;
		case SWEEP_BS:
			s->bs = (unsigned)a->num[v];
			break;
		case SWEEP_ENGINE:
			s->engine = a->str[v];
			break;
		case SWEEP_POLICY:
			s->policy = strcmp(a->str[v], "default") ? a->str[v] : NULL;
			break;
		}
	}
}

const char *sweep_value(const struct job_result *r, enum sweep_key key,
			char *buf, size_t len)
{
	switch (key) {
	case SWEEP_DEPTH:
		snprintf(buf, len, "%u", r->spec.depth);
		break;
	case SWEEP_BS:
		fmt_size(r->spec.bs, buf, len);
		break;
	case SWEEP_ENGINE:
		snprintf(buf, len, "%s", r->spec.engine);
		break;
	case SWEEP_POLICY:
		snprintf(buf, len, "%s", r->spec.policy ? r->spec.policy :
			 "default");
		break;
	}
	return buf;
}

static void progress(const struct sweep *sw, unsigned i, unsigned n,
		     const struct job_spec *s)
{
	char buf[64];
	struct job_result tmp;
	unsigned k;

	tmp.spec = *s;
	fprintf(stderr, "[%u/%u]", i + 1, n);
	for (k = 0; k < sw->naxes; k++)
		fprintf(stderr, " %s=%s", key_names[sw->axis[k].key],
			sweep_value(&tmp, sw->axis[k].key, buf, sizeof(buf)));
	fprintf(stderr, " (%s, %.1f s) ...\n", report_rw_name(s), s->runtime_s);
}

int sweep_run(const struct sweep *sw, const struct job_spec *base,
	      struct job_result **res)
{
	unsigned n = sweep_count(sw), i;
	struct job_result *r = calloc(n, sizeof(*r));

	*res = r;
	if (!r)
		return -1;
	for (i = 0; i < n; i++) {
		struct job_spec s = *base;

		sweep_apply(sw, i, &s);
		s.quiet = true;
		progress(sw, i, n, &s);
		if (job_run(&s, &r[i]))
			return -1;
		if (job_interrupted()) {
			fprintf(stderr, "interrupted: %u of %u runs\n", i + 1, n);
			return (int)i + 1;
		}
	}
	return (int)n;
}

static void us(FILE *f, bool have, uint64_t ns)
{
	if (have)
		fprintf(f, " %10.2f", (double)ns / 1000.0);
	else
		fprintf(f, " %10s", "-");
}

void sweep_table(FILE *f, const struct sweep *sw, const struct job_result *r,
		 unsigned n)
{
	static const double pcts[] = { 50, 99 };
	char buf[64];
	unsigned i, k;

	for (k = 0; k < sw->naxes; k++)
		fprintf(f, "%-10s ", key_names[sw->axis[k].key]);
	fprintf(f, "%12s %10s %10s %10s %10s %8s %8s\n", "IOPS", "MiB/s",
		"mean_us", "p50_us", "p99_us", "cpu%", "wake/io");
	for (i = 0; i < n; i++) {
		const struct lat_hist *h = &r[i].lat;
		bool have = r[i].spec.track_lat && h->count;
		uint64_t p[2];

		hist_percentiles(h, pcts, 2, p);
		for (k = 0; k < sw->naxes; k++)
			fprintf(f, "%-10s ", sweep_value(&r[i], sw->axis[k].key,
							 buf, sizeof(buf)));
		fprintf(f, "%12.0f %10.1f", r[i].iops, r[i].bw_bytes / 1048576.0);
		us(f, have, (uint64_t)hist_mean(h));
		us(f, have, p[0]);
		us(f, have, p[1]);
		fprintf(f, " %8.1f", r[i].cpu_usr + r[i].cpu_sys);
		if (r[i].has_stats && r[i].ios)
			fprintf(f, " %8.4f\n", (double)r[i].stats.wakeups /
				(double)r[i].ios);
		else
			fprintf(f, " %8s\n", "-");
	}
	fflush(f);
}
