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
#include "lib/thread.h"

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

/* sleeps between two looks at whether the holder still exists: about 1 ms */
#define AR_HOLDER_LOOK_SLEEPS	50

void ar_spin_lock_tid_slow(struct ar_spinlock *l, unsigned tid)
{
	unsigned round = 0, sleeps = 0, holder;

	for (;;) {
		/* relaxed: a hint; the compare-and-swap decides */
		holder = atomic_load_explicit(&l->locked, memory_order_relaxed);
		if (!holder && ar_spin_trylock_tid(l, tid))
			return;
		/*
		 * Long held: its holder's process may have been killed in
		 * the section. Taken over then, with whatever the section
		 * had written (semantics.md D2). Acquire, as the lock.
		 */
		if (holder > 1 && round >= AR_SPIN_ROUNDS + AR_YIELD_ROUNDS &&
		    ++sleeps % AR_HOLDER_LOOK_SLEEPS == 0 &&
		    ar_tid_gone((pid_t)holder) &&
		    atomic_compare_exchange_strong_explicit(&l->locked, &holder,
							    tid,
							    memory_order_acquire,
							    memory_order_relaxed))
			return;
		ar_spin_backoff(&round);
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
