/* SPDX-License-Identifier: MIT */
/*
 * plot.h - --plot FILE.svg|FILE.png: a sweep drawn by gnuplot (Debian's
 * gnuplot-nox): IOPS, and mean and p99 completion latency, against the
 * swept depth (or block size), one series per combination of the other
 * swept keys (engine, policy, ...).
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H

#include "job.h"
#include "sweep.h"

/* Can path be plotted (extension, an x axis to sweep)? 0, or -1 and why. */
int plot_check(const char *path, const struct sweep *sw, char *why,
	       size_t len);
/* Write the plot; 0, or -1 after saying why on stderr. */
int plot_write(const char *path, const struct sweep *sw,
	       const struct job_result *r, unsigned n, const char *title);

#endif
