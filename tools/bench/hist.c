/* SPDX-License-Identifier: MIT */
/*
 * hist.c - the latency histogram's merge, percentiles and moments.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "hist.h"

const double hist_pct_list[HIST_NR_PCT] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95,
	99.99,
};

void hist_init(struct lat_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_merge(struct lat_hist *dst, const struct lat_hist *src)
{
	unsigned i;

	if (!src->count)
		return;
	for (i = 0; i < HIST_NR; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_bucket_value(unsigned idx)
{
	unsigned shift;
	uint64_t base, width;

	if (idx < 2 * HIST_VAL)
		return idx;	/* exact below 128 */
	shift = (idx >> HIST_BITS) - 1;
	base = (uint64_t)1 << (shift + HIST_BITS);
	width = (uint64_t)1 << shift;
	return base + (idx & (HIST_VAL - 1)) * width + width / 2;
}

/*
 * Walk the buckets in order, accumulating counts; a percentile p is the
 * first bucket where the running count reaches p% of the total.
 */
void hist_percentiles(const struct lat_hist *h, const double *pct, unsigned n,
		      uint64_t *out)
{
	uint64_t seen = 0;
	unsigned i, j = 0;

	memset(out, 0, n * sizeof(*out));
	if (!h->count)
		return;
	for (i = 0; i < HIST_NR && j < n; i++) {
		seen += h->bucket[i];
		while (j < n && (double)seen >= pct[j] / 100.0 * (double)h->count)
			out[j++] = hist_bucket_value(i);
	}
}

double hist_mean(const struct lat_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

double hist_stdev(const struct lat_hist *h)
{
	double mean, var;

	if (h->count < 2)
		return 0;
	mean = hist_mean(h);
	var = (h->sumsq - mean * mean * (double)h->count) / (double)(h->count - 1);
	return var > 0 ? sqrt(var) : 0;
}
