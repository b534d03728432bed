/* SPDX-License-Identifier: MIT */
/*
 * json.c - results as JSON.
 */
#include "hist.h"
#include "json.h"
#include "report.h"

void json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* "p99.5" for 99.5, "p1" for 1 */
static void pct_key(FILE *f, double pct)
{
	fprintf(f, "\"p%g\"", pct);
}

static void json_latency(FILE *f, const struct job_result *r)
{
	const struct lat_hist *h = &r->lat;
	uint64_t v[HIST_NR_PCT];
	bool have = r->spec.track_lat && h->count;
	unsigned i;

	hist_percentiles(h, hist_pct_list, HIST_NR_PCT, v);
	fputs("\"lat_ns\":{\"mean\":", f);
	if (have)
		fprintf(f, "%.1f", hist_mean(h));
	else
		fputs("null", f);
	for (i = 0; i < HIST_NR_PCT; i++) {
		fputc(',', f);
		pct_key(f, hist_pct_list[i]);
		if (have)
			fprintf(f, ":%llu", (unsigned long long)v[i]);
		else
			fputs(":null", f);
	}
	if (have)
		fprintf(f, ",\"max\":%llu}", (unsigned long long)h->max);
	else
		fputs(",\"max\":null}", f);
}

/* --reap, --fdatasync, --alloc, --cold and what they measured */
static void json_modes(FILE *f, const struct job_result *r)
{
	const struct job_spec *s = &r->spec;

	fputs("\"reap\":", f);
	json_string(f, report_reap_name(s));
	if (s->reap != REAP_ENTER)
		fprintf(f, ",\"epoll_waits\":%llu,\"epoll_empty\":%llu",
			(unsigned long long)r->epoll_waits,
			(unsigned long long)r->epoll_empty);
	else
		fputs(",\"epoll_waits\":null,\"epoll_empty\":null", f);
	fprintf(f, ",\"fdatasync\":%s,\"alloc\":", s->fdatasync ? "true" :
		"false");
	json_string(f, report_alloc_name(s));
	if (s->cold && r->cache_start >= 0 && r->cache_end >= 0)
		fprintf(f, ",\"cached_pct_start\":%.2f,\"cached_pct_end\":%.2f,",
			r->cache_start, r->cache_end);
	else
		fputs(",\"cached_pct_start\":null,\"cached_pct_end\":null,", f);
}

void json_result(FILE *f, const struct job_result *r)
{
	const struct job_spec *s = &r->spec;

	fputs("{\"engine\":", f);
	json_string(f, s->engine);
	fputs(",\"policy\":", f);
	json_string(f, s->policy ? s->policy : "default");
	fputs(",\"target\":", f);
	json_string(f, s->target);
	fputs(",\"rw\":", f);
	json_string(f, report_rw_name(s));
	fprintf(f, ",\"bs\":%u,\"depth\":%u,\"threads\":%u,\"runtime_s\":%.3f",
		s->bs, s->depth, s->threads, r->runtime_s);
	fprintf(f, ",\"ios\":%llu,\"iops\":%.1f,\"bw_bytes\":%.0f",
		(unsigned long long)r->ios, r->iops, r->bw_bytes);
	fprintf(f, ",\"cpu\":{\"usr\":%.2f,\"sys\":%.2f}", r->cpu_usr,
		r->cpu_sys);
	fprintf(f, ",\"cpu_per_io_us\":%.3f", r->cpu_per_io_us);
	fprintf(f, ",\"ctx_switches\":%llu", (unsigned long long)r->ctx_switches);
	if (r->has_stats)
		fprintf(f, ",\"wakeups\":%llu,",
			(unsigned long long)r->stats.wakeups);
	else
		fputs(",\"wakeups\":null,", f);
	json_modes(f, r);
	json_latency(f, r);
	fputc('}', f);
}

void json_runs(FILE *f, const struct job_result *r, unsigned n)
{
	unsigned i;

	fputs("{\"runs\":[", f);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(",\n", f);
		json_result(f, &r[i]);
	}
	fputs("]}\n", f);
}
