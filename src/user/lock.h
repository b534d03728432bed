/* SPDX-License-Identifier: MIT */
/*
 * lock.h - ctx->lock, biased to a SINGLE_ISSUER ring's issuer.
 *
 * ctx->lock is a spinlock (lib/spinlock.h): a pair costs one bus-locked
 * exchange. On a SINGLE_ISSUER ring that only its issuer ever locks, as
 * a DEFER_TASKRUN ring of NOPs or page-cache reads, the issuer takes it
 * by a plain store instead (the kernel posts such a ring's CQEs without
 * a lock at all: lockless_cq). The first other thread that locks it
 * revokes the bias for good: it marks the bias REVOKING, makes every
 * thread of the process pass a full barrier (membarrier(2)), waits for
 * the issuer to leave a section it may be in, then the bias is OFF and
 * everybody takes the spinlock. lock.c has the proof sketch.
 *
 * Who is the issuer: ctx->submitter, set before the bias is turned on;
 * a ring is biased only while the bias is ON. A thread that holds the
 * lock by the bias has issuer_in set and is the submitter: that is how
 * ar_ctx_unlock() tells the two kinds of holder apart.
 */
#ifndef ANYRING_USER_LOCK_H
#define ANYRING_USER_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include "lib/spinlock.h"
#include "user/types.h"
#include "user/ctx.h"

enum {
	AR_BIAS_OFF = 0,	/* every holder takes the spinlock */
	AR_BIAS_ON,		/* the issuer holds it by issuer_in */
	AR_BIAS_REVOKING,	/* a thread is waiting for the issuer to leave */
};

void ar_ctx_lock_bias_slow(struct ar_uctx *ctx);
void ar_lockdep_fail(const char *func);

/*
 * Lock assertions, the kernel's lockdep_assert_held(): a function whose
 * name ends in _locked and that expects ctx->lock held says so with
 * ar_lockdep_assert_held(ctx). A build with AR_LOCKDEP (the sanitizer
 * builds of make test) records the holder and checks; other builds
 * compile the assertions away.
 */
#ifdef AR_LOCKDEP
static inline void ar_lockdep_acquired(struct ar_uctx *ctx)
{
	/* relaxed: only the holder writes its own id; a reader asks "is it me?" */
	atomic_store_explicit(&ctx->lock_owner, ar_self_tid(), memory_order_relaxed);
}

static inline void ar_lockdep_released(struct ar_uctx *ctx)
{
	atomic_store_explicit(&ctx->lock_owner, 0, memory_order_relaxed);
}

#define ar_lockdep_assert_held(ctx)					\
	do {								\
		if (atomic_load_explicit(&(ctx)->lock_owner,		\
					 memory_order_relaxed) !=	\
		    ar_self_tid())					\
			ar_lockdep_fail(__func__);			\
	} while (0)
#else
static inline void ar_lockdep_acquired(struct ar_uctx *ctx)
{
	(void)ctx;
}

static inline void ar_lockdep_released(struct ar_uctx *ctx)
{
	(void)ctx;
}

#define ar_lockdep_assert_held(ctx)	((void)(ctx))
#endif
void ar_ctx_bias_enable(struct ar_uctx *ctx);
void ar_ctx_bias_revoke(struct ar_uctx *ctx);

/* the issuer, on a biased ring: enter without a bus-locked instruction */
static inline bool ar_ctx_lock_biased(struct ar_uctx *ctx)
{
	if (ar_self_tid() != ctx->submitter)
		return false;
	atomic_store_explicit(&ctx->issuer_in, 1, memory_order_relaxed);
	/*
	 * No fence: the revoker's membarrier() stands in for one (lock.c).
	 * Either that barrier comes after the store above, and the revoker
	 * sees issuer_in set, or before it, and the load below sees the
	 * revoker's REVOKING. The compiler must not move the load up.
	 */
	atomic_signal_fence(memory_order_seq_cst);
	if (__builtin_expect(atomic_load_explicit(&ctx->lock_bias,
			memory_order_relaxed) == AR_BIAS_ON, 1))
		return true;
	/* release pairs with the revoker's acquire in ar_ctx_lock_bias_slow() */
	atomic_store_explicit(&ctx->issuer_in, 0, memory_order_release);
	return false;
}

static inline void ar_ctx_lock(struct ar_uctx *ctx)
{
	/* relaxed: a biased holder's own load above decides (lock.c) */
	if (__builtin_expect(atomic_load_explicit(&ctx->lock_bias,
			memory_order_relaxed) == AR_BIAS_ON, 0) &&
	    ar_ctx_lock_biased(ctx)) {
		ar_lockdep_acquired(ctx);
		return;
	}
	ar_spin_lock_tid(&ar_sh(ctx)->lock, (unsigned)ar_self_tid());
	/*
	 * Looked at under the lock: the bias is turned ON under it, so a
	 * thread that finds it OFF here got the lock before it was turned
	 * on, and its section ends before the issuer's first biased one
	 * (the spinlock orders the two).
	 */
	if (__builtin_expect(atomic_load_explicit(&ctx->lock_bias,
			memory_order_relaxed) != AR_BIAS_OFF, 0))
		ar_ctx_lock_bias_slow(ctx);
	ar_lockdep_acquired(ctx);
}

static inline void ar_ctx_unlock(struct ar_uctx *ctx)
{
	ar_lockdep_released(ctx);
	/* issuer_in is only ever set by the submitter, for its own section */
	if (atomic_load_explicit(&ctx->issuer_in, memory_order_relaxed) &&
	    ar_self_tid() == ctx->submitter) {
		/* release pairs with the revoker's acquire in ar_ctx_lock_bias_slow() */
		atomic_store_explicit(&ctx->issuer_in, 0, memory_order_release);
		return;
	}
	ar_spin_unlock(&ar_sh(ctx)->lock);
}

#endif
