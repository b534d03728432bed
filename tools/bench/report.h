/* SPDX-License-Identifier: MIT */
/*
 * report.h - what a person reads: the run's header, t/io_uring's line per
 * second, and the summary with fio's completion-latency layout.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "job.h"

/* "randread", "write", "randrw", ... or "nop" */
const char *report_rw_name(const struct job_spec *s);
/* --reap's and --alloc's names: "enter", "eventfd", ...; "none", "sparse" */
const char *report_reap_name(const struct job_spec *s);
const char *report_alloc_name(const struct job_spec *s);
/* "COOP_TASKRUN|SINGLE_ISSUER|DEFER_TASKRUN" (IORING_SETUP_* named) */
const char *report_setup_flags(unsigned flags, char *buf, size_t len);

void report_header(FILE *f, const struct job_spec *s, unsigned sq_ring,
		   unsigned cq_ring, unsigned setup_flags);
/*
 * IOPS=..., BW=...MiB/s, IOS/call=S/R: I/Os submitted per submitting call,
 * completions per reaping call (the same calls unless --split-reap)
 */
void report_tick(FILE *f, const struct job_spec *s, double iops,
		 uint64_t submitted, uint64_t scalls, uint64_t done,
		 uint64_t rcalls);
/* The summary; with hist, also every non-empty latency bucket. */
void report_summary(FILE *f, const struct job_result *r, bool hist);
/* fio's "clat percentiles (nsec):" block */
void report_percentiles(FILE *f, const struct lat_hist *h);

#endif
