/* SPDX-License-Identifier: MIT */
/*
 * wake.h - how a thread about to sleep and a thread ending its wait keep
 * the wakeup from being lost. The ring's sleepers and their wakers follow
 * this protocol (the pairs are listed below); the helper threads that
 * keep a pair of their own (issue=spread's helper, the SQ poll thread,
 * the direct backend's reaper, a device's own thread) say so where they
 * sleep.
 *
 * Two threads, two shared words. A says "a sleeper is here", C says "the
 * wait is over":
 *
 *     sleeper                           waker
 *     1. announce: store A              1. publish: store C
 *     2. barrier                        2. barrier
 *     3. look: load C;                  3. look: load A;
 *        seen: do not sleep                seen: wake the sleeper
 *
 * Each barrier is a seq_cst fence (ar_wake_mb()), or a seq_cst
 * read-modify-write as step 1 followed by ar_wake_mb_after_rmw(). All of
 * them fall in the single total order of seq_cst operations, so one of
 * the two comes first, and the side whose barrier comes second sees the
 * other side's store: the sleeper sees C and does not sleep, or the waker
 * sees A and wakes it (or both). Never neither. Without the barriers
 * each side's load may complete before its own store is visible (store
 * buffering), and both miss. On x86, ar_wake_mb_after_rmw() is only a
 * compiler barrier: there the guarantee is the hardware's (a locked RMW
 * is a full barrier, and the compiler emits one for every seq_cst RMW),
 * not the C11 model's, which is what the kernel's smp_mb__after_atomic()
 * relies on too.
 *
 * Step 3's loads may be relaxed: the barrier orders them. A look that also
 * reads what the other side published (CQEs, requests on the task list)
 * is an acquire that pairs with the publisher's release, as usual.
 *
 * The pairs (A / C, each side's barrier):
 *
 *   CQ sleepers   A = ctx->cq_waiters, raised by ar_waitq_add()
 *                 (ar_wake_sleeper_add); C = the CQ tail, which
 *                 ar_cq_fill() stores and ar_cq_wake() follows with
 *                 ar_wake_mb() before it looks for sleepers. The
 *                 sleeper's look is ar_wait_done().
 *   Task work     A = the CQ tail a waiter stores when it posts task
 *   vs a waiter   work itself, then ar_wake_mb() in ar_cqring_wait_loop()
 *                 before its look at ctx->tw_head; C = ctx->tw_head,
 *                 pushed by ar_tw_add() (a seq_cst CAS, then
 *                 ar_wake_mb_after_rmw()), whose looks are cq_waiters
 *                 and, in ar_should_wake(), the CQ tail.
 *   Punt thread   A = punt->sleeping, raised by the completion thread
 *                 (ar_wake_flag_raise) before it looks at tw_head and
 *                 in_submit; C = ctx->tw_head (ar_tw_add()) or
 *                 ctx->in_submit (ar_tw_submit_end()), each followed by
 *                 ar_wake_mb_after_rmw() before ar_punt_kick() looks at
 *                 the flag.
 *   Submit end    symmetric: ar_tw_add() pushes tw_head and looks at
 *                 in_submit; ar_tw_submit_end() decrements in_submit and
 *                 looks at tw_head; whoever comes second posts the list.
 *   Ring fd       A = ctx->rfd.state, set IDLE by ar_ringfd_clear()
 *                 (lib/ringfd.h: a store, then ar_wake_mb()) before
 *                 it looks at the CQ; C = the CQ tail, then
 *                 ar_cq_wake()'s ar_wake_mb() before ar_ringfd_signal()
 *                 looks at the state.
 *
 * A DEFER_TASKRUN ring's issuer skips ar_cq_wake()'s barrier: only it
 * may wait on the ring, so no other thread sleeps on what it posts, and
 * its own later loads see its own stores.
 */
#ifndef ANYRING_LIB_WAKE_H
#define ANYRING_LIB_WAKE_H

#include <stdatomic.h>
#include <stdbool.h>

/* Step 2 after a plain store (either side). */
static inline void ar_wake_mb(void)
{
	atomic_thread_fence(memory_order_seq_cst);
}

/*
 * Step 2 right after a seq_cst read-modify-write as step 1 (either
 * side). x86's locked instructions are full barriers already, so there
 * it only keeps the compiler from moving step 3 above the RMW; elsewhere
 * it is a fence.
 */
static inline void ar_wake_mb_after_rmw(void)
{
#if defined(__x86_64__) || defined(__i386__)
	atomic_signal_fence(memory_order_seq_cst);
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* Sleeper, steps 1 and 2, for sleepers counted in *nr (a wait queue). */
static inline void ar_wake_sleeper_add(atomic_uint *nr)
{
	atomic_fetch_add_explicit(nr, 1, memory_order_seq_cst);
	ar_wake_mb_after_rmw();
}

/* The sleeper is done waiting: no ordering, a waker seeing it stale only wakes for nothing. */
static inline void ar_wake_sleeper_del(atomic_uint *nr)
{
	atomic_fetch_sub_explicit(nr, 1, memory_order_relaxed);
}

/* Waker, step 3 (after its barrier): sleepers to wake? */
static inline bool ar_wake_has_sleepers(atomic_uint *nr)
{
	return atomic_load_explicit(nr, memory_order_relaxed);
}

/* A lone sleeper (one thread), steps 1 and 2: its flag up, then the barrier. */
static inline void ar_wake_flag_raise(atomic_bool *f)
{
	atomic_exchange_explicit(f, true, memory_order_seq_cst);
	ar_wake_mb_after_rmw();
}

/* It is awake: no ordering, a waker seeing the flag stale only wakes for nothing. */
static inline void ar_wake_flag_lower(atomic_bool *f)
{
	atomic_store_explicit(f, false, memory_order_relaxed);
}

/* Waker, step 3 (after its barrier): is the lone sleeper asleep or about to be? */
static inline bool ar_wake_flag_up(atomic_bool *f)
{
	return atomic_load_explicit(f, memory_order_relaxed);
}

#endif
