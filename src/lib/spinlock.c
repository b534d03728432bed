/* SPDX-License-Identifier: MIT */
/*
 * spinlock.c - the contended side of ar_spin_lock(): spin on loads while
 * the holder is likely running, then give the CPU away. Every step is
 * bounded; only the sleeping one repeats until the lock is free.
 */
#include <sched.h>
#include <time.h>
#include "lib/spinlock.h"
#include "lib/waitpol.h"

#define AR_SPIN_ROUNDS	128	/* pause loops: a few µs, longer than any section */
#define AR_YIELD_ROUNDS	16	/* then the holder was likely preempted */
#define AR_SLEEP_NS	20000	/* then sleep: a holder of lower priority runs too */

void ar_spin_backoff(unsigned *round)
{
	if (*round < AR_SPIN_ROUNDS) {
		ar_cpu_relax();
		(*round)++;
	} else if (*round < AR_SPIN_ROUNDS + AR_YIELD_ROUNDS) {
		sched_yield();
		(*round)++;
	} else {
		struct timespec ts = { 0, AR_SLEEP_NS };

		nanosleep(&ts, NULL);
	}
}

void ar_spin_lock_slow(struct ar_spinlock *l)
{
	unsigned round = 0;

	/* relaxed: a hint; the exchange in ar_spin_trylock() decides */
	while (atomic_load_explicit(&l->locked, memory_order_relaxed) ||
	       !ar_spin_trylock(l))
		ar_spin_backoff(&round);
}
