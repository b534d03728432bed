/* SPDX-License-Identifier: MIT */
/*
 * report.c - the text output of one run.
 */
#include <math.h>
#include <string.h>
#include "hist.h"
#include "report.h"
#include "units.h"

const char *report_rw_name(const struct job_spec *s)
{
	if (s->nop)
		return "nop";
	if (s->read_pct == 100)
		return s->random ? "randread" : "read";
	if (s->read_pct == 0)
		return s->random ? "randwrite" : "write";
	return s->random ? "randrw" : "rw";
}

const char *report_reap_name(const struct job_spec *s)
{
	static const char *const names[] = {
		[REAP_ENTER] = "enter", [REAP_EVENTFD] = "eventfd",
		[REAP_POLL_RINGFD] = "poll-ringfd",
	};

	return names[s->reap];
}

const char *report_alloc_name(const struct job_spec *s)
{
	return s->alloc == ALLOC_SPARSE ? "sparse" :
	       s->alloc == ALLOC_FALLOCATE ? "fallocate" : "none";
}

const char *report_setup_flags(unsigned flags, char *buf, size_t len)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ IORING_SETUP_IOPOLL, "IOPOLL" },
		{ IORING_SETUP_SQPOLL, "SQPOLL" },
		{ IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN" },
		{ IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER" },
		{ IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN" },
	};
	size_t used = 0;
	unsigned i;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s", used ? "|" : "", names[i].name);
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

void report_header(FILE *f, const struct job_spec *s, unsigned sq_ring,
		   unsigned cq_ring, unsigned setup_flags)
{
	char bs[32], flags[128];

	fprintf(f, "engine=%s, target=%s, rw=%s", s->engine,
		s->target ? s->target : "-", report_rw_name(s));
	if (s->read_pct && s->read_pct < 100)
		fprintf(f, " (%u%% reads)", s->read_pct);
	fprintf(f, ", bs=%s, QD=%u, submit=%u, complete=%u, threads=%u\n",
		fmt_size(s->bs, bs, sizeof(bs)), s->depth, s->batch_submit,
		s->batch_complete, s->threads);
	fprintf(f, "polled=%d, fixedbufs=%d, register_files=%d, buffered=%d, "
		"latency=%d, policy=%s, reap=%s", s->polled, s->fixed_bufs,
		s->reg_files, !s->direct, s->track_lat,
		s->policy ? s->policy : "default", report_reap_name(s));
	if (s->fdatasync)
		fputs(", fdatasync=1", f);
	if (s->cold)
		fputs(", cold", f);
	if (s->alloc)
		fprintf(f, ", alloc=%s", report_alloc_name(s));
	if (sq_ring)
		fprintf(f, ", sq_ring=%u, cq_ring=%u, setup=%s%s", sq_ring,
			cq_ring, report_setup_flags(setup_flags, flags,
						    sizeof(flags)),
			s->split_reap ? ", split reaper" : "");
	fputc('\n', f);
	fflush(f);
}

static void print_bw(FILE *f, double bytes_per_s)
{
	double mib = bytes_per_s / 1048576.0;

	if (mib > 2000)
		fprintf(f, "BW=%.2fGiB/s", mib / 1024.0);
	else
		fprintf(f, "BW=%.0fMiB/s", mib);
}

/* t/io_uring's: a whole number, -1 when there was no call */
static long long per_call(uint64_t n, uint64_t calls)
{
	return calls ? (long long)(n / calls) : -1;
}

void report_tick(FILE *f, const struct job_spec *s, double iops,
		 uint64_t submitted, uint64_t scalls, uint64_t done,
		 uint64_t rcalls)
{
	char buf[32];

	fprintf(f, "IOPS=%s, ", fmt_count(iops, buf, sizeof(buf)));
	if (!s->nop) {
		print_bw(f, iops * s->bs);
		fputs(", ", f);
	}
	fprintf(f, "IOS/call=%lld/%lld\n", per_call(submitted, scalls),
		per_call(done, rcalls));
	fflush(f);
}

void report_percentiles(FILE *f, const struct lat_hist *h)
{
	uint64_t v[HIST_NR_PCT];
	int width = 5, per_line;
	unsigned j;

	hist_percentiles(h, hist_pct_list, HIST_NR_PCT, v);
	if (v[HIST_NR_PCT - 1] > 0) {
		int digits = (int)log10((double)v[HIST_NR_PCT - 1]) + 1;

		width = digits > width ? digits : width;
	}
	/* fio: 80 columns less the "     |" lead, 2 decimals + "th=[],": 10 */
	per_line = (80 - 7) / (2 + 10 + width);
	fputs("    clat percentiles (nsec):\n", f);
	for (j = 0; j < HIST_NR_PCT; j++) {
		bool last = j == HIST_NR_PCT - 1;

		if (j % (unsigned)per_line == 0)
			fputs("     |", f);
		fprintf(f, " %5.2fth=[%*llu]%c", hist_pct_list[j], width,
			(unsigned long long)v[j], last ? '\n' : ',');
		if (!last && j % (unsigned)per_line == (unsigned)per_line - 1)
			fputc('\n', f);
	}
}

static void print_hist(FILE *f, const struct lat_hist *h)
{
	unsigned i;

	fputs("    clat histogram (nsec, bucket middle: count):\n", f);
	for (i = 0; i < HIST_NR; i++)
		if (h->bucket[i])
			fprintf(f, "     | %12llu: %llu\n",
				(unsigned long long)hist_bucket_value(i),
				(unsigned long long)h->bucket[i]);
}

static void print_latency(FILE *f, const struct job_result *r, bool hist)
{
	const struct lat_hist *h = &r->lat;

	if (!r->spec.track_lat) {
		fputs("  clat: not measured (-t 1 measures it)\n", f);
		return;
	}
	if (!h->count) {
		fputs("  clat: no completions\n", f);
		return;
	}
	fprintf(f, "  clat (nsec): min=%llu, max=%llu, avg=%.2f, stdev=%.2f\n",
		(unsigned long long)h->min, (unsigned long long)h->max,
		hist_mean(h), hist_stdev(h));
	report_percentiles(f, h);
	if (hist)
		print_hist(f, h);
}

void report_summary(FILE *f, const struct job_result *r, bool hist)
{
	const struct job_spec *s = &r->spec;
	char buf[32], bs[32];

	fprintf(f, "%s: %s", s->engine, report_rw_name(s));
	if (!s->nop)
		fprintf(f, " %s", fmt_size(s->bs, bs, sizeof(bs)));
	fprintf(f, " QD%u, %u thread%s, %.2f s\n", s->depth, s->threads,
		s->threads == 1 ? "" : "s", r->runtime_s);
	fprintf(f, "  IOPS=%s", fmt_count(r->iops, buf, sizeof(buf)));
	if (!s->nop) {
		fputs(", ", f);
		print_bw(f, r->bw_bytes);
	}
	fprintf(f, ", ios=%llu\n", (unsigned long long)r->ios);
	fprintf(f, "  cpu: usr=%.2f%%, sys=%.2f%% (of one CPU), %.2f us per I/O\n",
		r->cpu_usr, r->cpu_sys, r->cpu_per_io_us);
	fprintf(f, "  ctx switches: %llu (voluntary %llu, involuntary %llu)\n",
		(unsigned long long)r->ctx_switches,
		(unsigned long long)r->ctx_vol, (unsigned long long)r->ctx_invol);
	if (r->has_stats)
		fprintf(f, "  wakeups: %llu (%.4f per I/O)\n",
			(unsigned long long)r->stats.wakeups,
			r->ios ? (double)r->stats.wakeups / (double)r->ios : 0);
	else
		fputs("  wakeups: -\n", f);
	if (s->reap != REAP_ENTER)
		fprintf(f, "  reap=%s: %llu epoll_wait returns (%.4f per I/O), "
			"%llu found no CQE\n", report_reap_name(s),
			(unsigned long long)r->epoll_waits,
			r->ios ? (double)r->epoll_waits / (double)r->ios : 0,
			(unsigned long long)r->epoll_empty);
	if (s->cold)
		fprintf(f, "  page cache: %.1f%% of the file before the run, "
			"%.1f%% after\n", r->cache_start, r->cache_end);
	print_latency(f, r, hist);
	fflush(f);
}
