/* SPDX-License-Identifier: MIT */
/*
 * submit.h - the submission side (submit.c).
 */
#ifndef ANYRING_USER_SUBMIT_H
#define ANYRING_USER_SUBMIT_H

#include "lib/thread.h"
#include "user/types.h"

struct ar_direct_plug;

/* submit.c */
unsigned ar_sq_entries_ready(struct ar_uctx *ctx);
int ar_submit_sqes(struct ar_uctx *ctx, unsigned nr);
bool ar_req_waiter_may_run(const struct ar_ureq *req);
int ar_submit_sqes_enter(struct ar_uctx *ctx, unsigned nr, unsigned flags,
			 unsigned min_complete, const void *arg);
void ar_req_queue(struct ar_ureq *req);
/*
 * ar_req_queue() under this thread's plug p (backend.h): a request that
 * is not a read the plug may batch first flushes the reads it holds
 */
void ar_req_queue_plugged(struct ar_direct_plug *p, struct ar_ureq *req);
void ar_req_queue_nodrain(struct ar_ureq *req, unsigned issue_flags);
/* ctx->submit_state at ring setup */
void ar_submit_state_init(struct ar_uctx *ctx);
void ar_req_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_req_assign_file(struct ar_ureq *req);

/*
 * ctx->submit_state (types.h): is the calling thread issuing a submit on
 * the ring? Then its completions (ar_submit_complete()) and the next
 * links of what completed (ar_submit_defer_link()) wait for the end of
 * that submit's issue, and true; else false.
 */
static inline bool ar_submit_owner(const struct ar_uctx *ctx)
{
	/* relaxed: only the owner stores its own id; a reader asks "is it me?" */
	return atomic_load_explicit(&ctx->submit_state.owner,
				    memory_order_relaxed) == ar_self_tid();
}

static inline bool ar_submit_defer_link(struct ar_ureq *req)
{
	struct ar_submit_issue *ss = &req->ctx->submit_state;

	if (!ar_submit_owner(req->ctx))
		return false;
	req->next = NULL;
	*ss->links_tail = req;
	ss->links_tail = &req->next;
	return true;
}

/* a completion in the submitting thread: posted with the batch */
static inline bool ar_submit_complete(struct ar_ureq *req)
{
	struct ar_submit_issue *ss = &req->ctx->submit_state;

	if (!ar_submit_owner(req->ctx))
		return false;
	req->next = NULL;
	*ss->compl_tail = req;
	ss->compl_tail = &req->next;
	return true;
}

#endif
