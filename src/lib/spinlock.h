/* SPDX-License-Identifier: MIT */
/*
 * spinlock.h - ctx->lock, the kernel's completion_lock: a spinlock.
 *
 * Its sections are short and make no I/O and no sleep (types.h says what
 * else they may do), the kind the kernel guards with spinlock_t. A glibc
 * mutex costs two bus-locked instructions per pair once the process has
 * a second thread (lock and unlock both use an atomic RMW); this lock's
 * release is a plain store, so a pair costs one.
 *
 * Contended, a thread spins on loads for a bounded number of rounds,
 * then yields the CPU, then sleeps in short steps: a holder that was
 * preempted gets to run, even one of lower priority on the same CPU.
 * The price of the plain-store release: nothing wakes a sleeping waiter,
 * so one that reached the sleeps waits up to one step (20 µs plus the
 * thread's timer slack, 50 µs by default) after the lock is free. Only a
 * holder that lost its CPU, or blocked in malloc or io-wq's mutex, makes
 * a waiter go that far.
 */
#ifndef ANYRING_LIB_SPINLOCK_H
#define ANYRING_LIB_SPINLOCK_H

#include <stdatomic.h>
#include <stdbool.h>

struct ar_spinlock {
	atomic_uint locked;
};

void ar_spin_lock_slow(struct ar_spinlock *l);
/* one step of the contended wait: spin, then yield, then sleep (*round from 0) */
void ar_spin_backoff(unsigned *round);

static inline void ar_spin_lock_init(struct ar_spinlock *l)
{
	atomic_init(&l->locked, 0);
}

static inline bool ar_spin_trylock(struct ar_spinlock *l)
{
	/* acquire pairs with the release in ar_spin_unlock() */
	return !atomic_exchange_explicit(&l->locked, 1, memory_order_acquire);
}

static inline void ar_spin_lock(struct ar_spinlock *l)
{
	if (__builtin_expect(!ar_spin_trylock(l), 0))
		ar_spin_lock_slow(l);
}

/*
 * A lock other processes share (a ring's CQ lock: user/lock.h): the word
 * holds the holder's thread id (never 0 or 1), so that a waiter can take
 * it over from a holder whose process died in its section, killed with
 * SIGKILL (ar_spin_lock_tid_slow()).
 */
static inline bool ar_spin_trylock_tid(struct ar_spinlock *l, unsigned tid)
{
	unsigned free = 0;

	/* acquire pairs with the release in ar_spin_unlock() */
	return atomic_compare_exchange_strong_explicit(&l->locked, &free, tid,
						       memory_order_acquire,
						       memory_order_relaxed);
}

void ar_spin_lock_tid_slow(struct ar_spinlock *l, unsigned tid);

static inline void ar_spin_lock_tid(struct ar_spinlock *l, unsigned tid)
{
	if (__builtin_expect(!ar_spin_trylock_tid(l, tid), 0))
		ar_spin_lock_tid_slow(l, tid);
}

static inline void ar_spin_unlock(struct ar_spinlock *l)
{
	/* release pairs with the acquire exchange of the next holder */
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

#endif
