/* SPDX-License-Identifier: MIT */
/*
 * complete.h - posting CQEs (complete.c) and task work (tw.c).
 */
#ifndef ANYRING_USER_COMPLETE_H
#define ANYRING_USER_COMPLETE_H

#include "user/types.h"

/* complete.c */
void ar_inflight_add_list(struct ar_uctx *ctx, struct ar_ureq *head,
			  struct ar_ureq *tail, unsigned nr);
void ar_req_complete(struct ar_ureq *req, int res, unsigned cflags);

/* requests completed together, posted as one batch (ar_req_complete_gather()) */
struct ar_comp_list {
	struct ar_ureq *head, *tail;
	unsigned nr;
	bool from_worker;
};

static inline void ar_comp_list_init(struct ar_comp_list *l)
{
	l->head = l->tail = NULL;
	l->nr = 0;
	l->from_worker = false;
}

void ar_req_complete_gather(struct ar_comp_list *l, struct ar_ureq *req,
			    int res, unsigned cflags);
void ar_req_complete_gathered(struct ar_uctx *ctx, struct ar_comp_list *l);
bool ar_req_post_more(struct ar_ureq *req, int res, unsigned cflags);
void ar_complete_locked(struct ar_uctx *ctx, struct ar_ureq *req,
			struct ar_comp_batch *b);
void ar_complete_timeouts_due_locked(struct ar_uctx *ctx,
				     struct ar_comp_batch *b);

/* count-based timeouts satisfied by what was just posted complete with 0 */
static inline void ar_complete_timeouts_locked(struct ar_uctx *ctx,
					       struct ar_comp_batch *b)
{
	if (b->posted && ctx->timeouts)
		ar_complete_timeouts_due_locked(ctx, b);
}
void ar_batch_finish(struct ar_uctx *ctx, struct ar_comp_batch *b,
		     bool from_worker);
void ar_cq_post_locked(struct ar_uctx *ctx, __u64 user_data, int res,
		       unsigned cflags);
void ar_cq_flush_overflow_list(struct ar_uctx *ctx);
void ar_cq_free_overflow(struct ar_uctx *ctx);
void ar_cq_wake(struct ar_uctx *ctx, bool from_worker);
void ar_ring_signal(struct ar_uctx *ctx, bool from_worker);

/* tw.c: deferred and punted completion (complete= policies) */
extern __thread struct ar_uctx *ar_tw_current;
bool ar_tw_add(struct ar_ureq *req);
unsigned ar_tw_run_list(struct ar_uctx *ctx);
int ar_tw_set_policy(struct ar_uctx *ctx, unsigned complete);
void ar_tw_stop_punt(struct ar_uctx *ctx);
void ar_tw_submit_end(struct ar_uctx *ctx);
void ar_tw_exit(struct ar_uctx *ctx);

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

/* Move overflowed CQEs into the CQ as far as it has room (rechecked under the lock). */
static inline void ar_cq_flush_overflow(struct ar_uctx *ctx)
{
	if (__atomic_load_n(&ctx->of_head, __ATOMIC_RELAXED))
		ar_cq_flush_overflow_list(ctx);
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

static inline void ar_stat_poll_loops(struct ar_uctx *ctx, unsigned n)
{
	ar_stat_add(ctx, poll_loops, n);
}

#endif
