/* SPDX-License-Identifier: MIT */
/*
 * hist.h - completion latency histogram, log-linear as fio's: values below
 * 2 * 64 ns have a bucket each, then every power of two is split into 64
 * buckets (FIO_IO_U_PLAT_BITS = 6), 29 groups (up to ~17 s). A percentile
 * is reported as its bucket's middle value, as fio does.
 */
#ifndef BENCH_HIST_H
#define BENCH_HIST_H

#include <stdint.h>

#define HIST_BITS	6
#define HIST_VAL	(1u << HIST_BITS)
#define HIST_GROUPS	29
#define HIST_NR		(HIST_GROUPS * HIST_VAL)

/* fio's default percentile list */
#define HIST_NR_PCT	17
extern const double hist_pct_list[HIST_NR_PCT];

struct lat_hist {
	uint64_t count;
	uint64_t min, max;
	double sum, sumsq;
	uint64_t bucket[HIST_NR];
};

static inline unsigned hist_index(uint64_t ns)
{
	unsigned msb, shift, idx;

	if (ns < 2 * HIST_VAL)
		return (unsigned)ns;
	msb = 63 - (unsigned)__builtin_clzll(ns);
	shift = msb - HIST_BITS;	/* low bits the bucket does not keep */
	idx = ((shift + 1) << HIST_BITS) + (unsigned)((ns >> shift) & (HIST_VAL - 1));
	return idx < HIST_NR ? idx : HIST_NR - 1;
}

/* nr completions that each took ns */
static inline void hist_add(struct lat_hist *h, uint64_t ns, unsigned nr)
{
	double d = (double)ns;

	h->bucket[hist_index(ns)] += nr;
	h->count += nr;
	h->sum += d * nr;
	h->sumsq += d * d * nr;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

void hist_init(struct lat_hist *h);
void hist_merge(struct lat_hist *dst, const struct lat_hist *src);
/* The value a bucket stands for: its middle. */
uint64_t hist_bucket_value(unsigned idx);
/* out[i] = the pct[i]-th percentile (pct sorted ascending); 0s when empty */
void hist_percentiles(const struct lat_hist *h, const double *pct, unsigned n,
		      uint64_t *out);
double hist_mean(const struct lat_hist *h);
double hist_stdev(const struct lat_hist *h);

#endif
