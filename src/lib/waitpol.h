/* SPDX-License-Identifier: MIT */
/*
 * waitpol.h - how a waiter for CQEs spends the time before they come: the
 * wait= policies both engines share (docs/policies.md).
 *
 *   sleep     sleep at once;
 *   spin      poll for up to spin_usec (default 1 ms), then sleep;
 *   hybrid    sleep the part of the expected wait we are sure of, then
 *             poll for up to spin_usec, then sleep;
 *   adaptive  the default: with nothing in flight sleep at once; else
 *             poll for up to twice the expected wait, never longer than
 *             one sleep/wake round trip (AR_ADAPT_SPIN_MAX_NS), then sleep;
 *             polls that keep failing back off exponentially.
 *
 * The expected wait is learned per ring: an exponentially weighted mean
 * of how long waits took (1/8 weight for the newest) and of their mean
 * absolute deviation. hybrid sleeps mean - 2 * deviation - the timer's
 * learned lateness, so most waits end in the poll, not the sleep.
 */
#ifndef ANYRING_LIB_WAITPOL_H
#define ANYRING_LIB_WAITPOL_H

#include <stdbool.h>
#include <stdint.h>
#include "anyring.h"

#define AR_SPIN_DEFAULT_NS	1000000ULL	/* wait=spin, hybrid: 1 ms */
/*
 * About one futex sleep/wake round trip between two threads: polling
 * longer than a sleep round trip costs more than the sleep it avoids (the
 * ski-rental bound), so adaptive never does (docs/policies.md has the
 * measurement behind the number).
 */
#define AR_ADAPT_SPIN_MAX_NS	40000ULL
#define AR_HYBRID_MIN_SLEEP_NS	5000ULL		/* shorter is all poll */

struct ar_wait_est {
	uint64_t mean_ns;	/* expected wait; 0 while unknown */
	uint64_t dev_ns;	/* mean absolute deviation */
	uint64_t late_ns;	/* how late a timed sleep wakes */
	unsigned backoff;	/* adaptive: polls that failed in a row (capped) */
	unsigned skip;		/* adaptive: waits left that do not poll */
};

#define AR_ADAPT_MAX_BACKOFF	8	/* at most 256 waits between probes */

struct ar_wait_plan {
	uint64_t sleep_ns;	/* timed sleep first (hybrid) */
	uint64_t spin_ns;	/* then poll this long */
};

/* The plan for a wait about to start; est is read racily (a hint). */
static inline void ar_wait_plan(const struct anyring_policy *p,
				struct ar_wait_est *est, bool inflight,
				struct ar_wait_plan *pl)
{
	uint64_t spin = p->spin_usec ? (uint64_t)p->spin_usec * 1000 :
			AR_SPIN_DEFAULT_NS;
	uint64_t mean = __atomic_load_n(&est->mean_ns, __ATOMIC_RELAXED);
	uint64_t dev = __atomic_load_n(&est->dev_ns, __ATOMIC_RELAXED);
	uint64_t late = __atomic_load_n(&est->late_ns, __ATOMIC_RELAXED);
	uint64_t sure;

	pl->sleep_ns = pl->spin_ns = 0;
	switch (p->wait) {
	case ANYRING_WAITP_SLEEP:
		return;
	case ANYRING_WAITP_SPIN:
		pl->spin_ns = spin;
		return;
	case ANYRING_WAITP_HYBRID:
		sure = 2 * dev + late;
		if (inflight && mean > sure + AR_HYBRID_MIN_SLEEP_NS)
			pl->sleep_ns = mean - sure;
		pl->spin_ns = spin;
		return;
	default:	/* adaptive */
		if (!inflight)
			return;
		/*
		 * Polls that keep failing (the completing thread needs the CPU
		 * this one polls on, as on a busy 2-CPU machine) back off
		 * exponentially: skip 2^n waits, then probe again.
		 */
		if (__atomic_load_n(&est->skip, __ATOMIC_RELAXED)) {
			__atomic_store_n(&est->skip,
					 __atomic_load_n(&est->skip, __ATOMIC_RELAXED) - 1,
					 __ATOMIC_RELAXED);
			return;
		}
		if (!mean)
			pl->spin_ns = AR_ADAPT_SPIN_MAX_NS;
		else if (mean < AR_ADAPT_SPIN_MAX_NS)
			pl->spin_ns = 2 * mean + 2000 < AR_ADAPT_SPIN_MAX_NS ?
				      2 * mean + 2000 : AR_ADAPT_SPIN_MAX_NS;
		if (p->spin_usec && pl->spin_ns > spin)
			pl->spin_ns = spin;
		return;
	}
}

static inline uint64_t ar_ewma8(uint64_t old, uint64_t v)
{
	return old ? old - old / 8 + v / 8 : v;
}

/* A wait took ns (from its start to the CQE that ended it). */
static inline void ar_wait_learn(struct ar_wait_est *est, uint64_t ns)
{
	uint64_t mean = __atomic_load_n(&est->mean_ns, __ATOMIC_RELAXED);
	uint64_t dev = __atomic_load_n(&est->dev_ns, __ATOMIC_RELAXED);
	uint64_t d = ns > mean ? ns - mean : mean - ns;

	/* racy read-modify-write from concurrent waiters: a hint, any value is safe */
	__atomic_store_n(&est->mean_ns, ar_ewma8(mean, ns), __ATOMIC_RELAXED);
	__atomic_store_n(&est->dev_ns, mean ? ar_ewma8(dev, d) : ns / 4,
			 __ATOMIC_RELAXED);
}

/* adaptive: a poll phase ended with (ok) or without the CQEs it waited for */
static inline void ar_wait_polled(struct ar_wait_est *est, bool ok)
{
	unsigned b = __atomic_load_n(&est->backoff, __ATOMIC_RELAXED);

	if (ok) {
		if (b)
			__atomic_store_n(&est->backoff, 0, __ATOMIC_RELAXED);
		return;
	}
	if (b < AR_ADAPT_MAX_BACKOFF)
		b++;
	__atomic_store_n(&est->backoff, b, __ATOMIC_RELAXED);
	__atomic_store_n(&est->skip, 1U << b, __ATOMIC_RELAXED);
}

/* A hybrid sleep found the wait already over: it slept too long, shrink. */
static inline void ar_wait_overslept(struct ar_wait_est *est)
{
	uint64_t mean = __atomic_load_n(&est->mean_ns, __ATOMIC_RELAXED);

	__atomic_store_n(&est->mean_ns, mean - mean / 8, __ATOMIC_RELAXED);
}

static inline void ar_wait_learn_late(struct ar_wait_est *est, uint64_t late)
{
	uint64_t old = __atomic_load_n(&est->late_ns, __ATOMIC_RELAXED);

	__atomic_store_n(&est->late_ns, ar_ewma8(old, late), __ATOMIC_RELAXED);
}

/* the CPU's spin-wait hint */
static inline void ar_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif
