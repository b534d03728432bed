/* SPDX-License-Identifier: MIT */
/*
 * complete.h - posting CQEs (complete.c).
 */
#ifndef ANYRING_USER_COMPLETE_H
#define ANYRING_USER_COMPLETE_H

#include "user/types.h"

/* complete.c */
void ar_submit_flush(struct ar_uctx *ctx, struct ar_ureq *list);
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
void ar_req_post_more_big(struct ar_ureq *req, int res, unsigned cflags,
			  const struct ar_cqe_big *big);
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
/* a 32-byte CQE when big is given (CQE32 and CQE_MIXED rings only) */
void ar_cq_post_big_locked(struct ar_uctx *ctx, __u64 user_data, int res,
			   unsigned cflags, const struct ar_cqe_big *big);
void ar_cq_post_locked(struct ar_uctx *ctx, __u64 user_data, int res,
		       unsigned cflags);
void ar_cq_flush_overflow_list(struct ar_uctx *ctx);
void ar_cq_wake(struct ar_uctx *ctx, bool from_worker);
void ar_ring_signal(struct ar_uctx *ctx, bool from_worker);
/* ... for readiness a DEFER_TASKRUN ring's task reaps: not a readable eventfd */
void ar_ring_signal_ready(struct ar_uctx *ctx);

/*
 * The calls each enter and wait makes usually find nothing to do: each
 * is a peek first (relaxed loads, a hint; the callee looks again with the
 * ordering it needs), so the common case makes no call.
 */

/* Move overflowed CQEs into the CQ as far as it has room (rechecked under the lock). */
static inline void ar_cq_flush_overflow(struct ar_uctx *ctx)
{
	if (ar_cq_overflowed(ctx))
		ar_cq_flush_overflow_list(ctx);
}

static inline void ar_stat_poll_loops(struct ar_uctx *ctx, unsigned n)
{
	ar_stat_add(ctx, poll_loops, n);
}

#endif
