/* SPDX-License-Identifier: MIT */
/*
 * now.h - the clock of latency timestamps: CLOCK_MONOTONIC through the
 * vDSO (about 20 ns with the TSC clocksource; no syscall). Read once per
 * submit batch and once per reap pass, only with -t.
 */
#ifndef BENCH_NOW_H
#define BENCH_NOW_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
