/* SPDX-License-Identifier: MIT */
/*
 * tw.h - deferred and punted completion: task work (tw.c), the
 * complete= policies.
 */
#ifndef ANYRING_USER_TW_H
#define ANYRING_USER_TW_H

#include "lib/wake.h"
#include "user/types.h"

/* tw.c */
extern __thread struct ar_uctx *ar_tw_current;
bool ar_tw_add(struct ar_ureq *req);
unsigned ar_tw_run_list(struct ar_uctx *ctx);
int ar_tw_set_policy(struct ar_uctx *ctx, unsigned complete);
void ar_tw_stop_punt(struct ar_uctx *ctx);
void ar_tw_submit_end_run(struct ar_uctx *ctx);
void ar_tw_exit(struct ar_uctx *ctx);
/* IORING_SQ_TASKRUN down, up again for work still waiting (tw.c) */
void ar_tw_flag_settle(struct ar_uctx *ctx, bool list_waits);

/*
 * complete=deferred or single: completions from other threads wait for
 * the ring's task, which posts them when it enters (or waits)
 */
static inline bool ar_tw_by_task(const struct ar_uctx *ctx)
{
	unsigned char c = __atomic_load_n(&ctx->pol.complete, __ATOMIC_RELAXED);

	return c == ANYRING_COMPLETE_DEFERRED || c == ANYRING_COMPLETE_SINGLE;
}

static inline bool ar_tw_pending(struct ar_uctx *ctx)
{
	return atomic_load_explicit(&ctx->tw_head, memory_order_relaxed);
}

/*
 * The calls each enter and wait makes usually find nothing to do: each
 * is a peek first (relaxed loads, a hint; the callee looks again with the
 * ordering it needs), so the common case makes no call.
 */

/* Post everything queued, in arrival order, under one CQ lock; how many. */
static inline unsigned ar_tw_run(struct ar_uctx *ctx)
{
	return ar_tw_pending(ctx) ? ar_tw_run_list(ctx) : 0;
}

/*
 * A completion goes to task work unless this thread is the ring's task:
 * with complete=deferred or punt, and while a submit is being issued (its
 * own completions post first, as the kernel runs task work after them).
 */
static inline bool ar_tw_wanted(struct ar_uctx *ctx)
{
	/*
	 * Also behind completions queued during a submit that ended and not
	 * yet posted: CQEs keep the order their requests completed in (a
	 * worker's hashed writes). Relaxed: a list taken meanwhile is posted
	 * under ctx->lock, which a post made instead waits for.
	 */
	return (__atomic_load_n(&ctx->pol.complete, __ATOMIC_RELAXED) !=
		ANYRING_COMPLETE_INLINE ||
		atomic_load_explicit(&ctx->in_submit, memory_order_relaxed) ||
		ar_tw_pending(ctx)) &&
	       ar_tw_current != ctx &&
	       !__atomic_load_n(&ctx->tw_closed, __ATOMIC_RELAXED);
}

/*
 * The end of a submit's issue that counted itself in in_submit: the last
 * one out runs what task work came meanwhile (or kicks the punt thread).
 * wake.h (submit end, punt thread): step 1 is the seq_cst decrement,
 * step 2 the barrier after it, step 3 the look at the list (and
 * ar_punt_kick()'s at the flag); pairs with the barrier after the push
 * in ar_tw_add() and ar_wake_flag_raise() in ar_punt_thread().
 */
static inline void ar_tw_submit_end(struct ar_uctx *ctx)
{
	if (atomic_fetch_sub_explicit(&ctx->in_submit, 1, memory_order_seq_cst) != 1)
		return;
	ar_wake_mb_after_rmw();
	if (ar_tw_pending(ctx))
		ar_tw_submit_end_run(ctx);
}

#endif
