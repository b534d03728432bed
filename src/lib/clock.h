/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the library's one clock for waits, deadlines and counters:
 * CLOCK_MONOTONIC in nanoseconds (a vDSO call, no system call).
 */
#ifndef ANYRING_LIB_CLOCK_H
#define ANYRING_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ar_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
