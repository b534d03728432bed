/* SPDX-License-Identifier: MIT */
/*
 * drain.c - IOSQE_IO_DRAIN, as the kernel's io_drain_req: once a drain is
 * seen, new requests are deferred in submission order; the list is let go
 * whenever every request still alive is a deferred one, up to and
 * including the next request that drains. Released requests go to
 * workers (the kernel forces them async too). Under ctx->lock.
 */
#include "user/types.h"
#include "user/lock.h"
#include "user/submit.h"
#include "user/drain.h"

static unsigned ar_linked_nr(struct ar_ureq *req)
{
	unsigned n = 0;

	for (; req; req = req->link)
		n++;
	return n;
}

/* at init: the drain applies to the chain's head when inside a link */
void ar_drain_init(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_ureq *head = ctx->submit_link_head;

	ar_ctx_lock(ctx);
	__atomic_store_n(&ctx->drain_active, true, __ATOMIC_RELEASE);
	ar_ctx_unlock(ctx);
	if (head)
		head->flags |= AR_REQ_F_DRAIN | AR_REQ_F_FORCE_ASYNC |
			       AR_REQ_F_DRAIN_PATH;
	else
		req->flags |= AR_REQ_F_DRAIN;
}

/* release what may go now; the caller queues *out after unlocking */
static void ar_queue_deferred_locked(struct ar_uctx *ctx, struct ar_ureq **out)
{
	bool drain_seen = false, first = true;
	struct ar_ureq *req, **tail = out;

	ar_lockdep_assert_held(ctx);
	while ((req = ctx->defer_head)) {
		drain_seen |= !!(req->flags & AR_REQ_F_DRAIN);
		if ((drain_seen || first) && ctx->nr_inflight != ctx->nr_drained)
			break;
		ctx->defer_head = req->next;
		if (!ctx->defer_head)
			ctx->defer_tail = NULL;
		ctx->nr_drained -= ar_linked_nr(req);
		req->flags |= AR_REQ_F_FORCE_ASYNC;
		*tail = req;
		tail = &req->next;
		first = false;
	}
	*tail = NULL;
}

static void ar_queue_list(struct ar_ureq *req)
{
	struct ar_ureq *next;

	for (; req; req = next) {
		next = req->next;
		ar_req_queue_nodrain(req, 0);
	}
}

void ar_queue_deferred(struct ar_uctx *ctx)
{
	struct ar_ureq *ready;

	ar_ctx_lock(ctx);
	ar_queue_deferred_locked(ctx, &ready);
	ar_ctx_unlock(ctx);
	ar_queue_list(ready);
}

/* Defer a request while a drain is active. Always takes the request. */
void ar_drain_req(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	bool drain = req->flags & AR_REQ_F_DRAIN;
	struct ar_ureq *ready;

	ar_ctx_lock(ctx);
	ar_req_list_add(&ctx->defer_head, &ctx->defer_tail, req);
	ctx->nr_drained += ar_linked_nr(req);
	ar_queue_deferred_locked(ctx, &ready);
	if (!drain && !ctx->defer_head)
		__atomic_store_n(&ctx->drain_active, false, __ATOMIC_RELEASE);
	ar_ctx_unlock(ctx);
	ar_queue_list(ready);
}

/* ring exit: deferred requests never ran; they complete -ECANCELED */
struct ar_ureq *ar_drain_take_all_locked(struct ar_uctx *ctx)
{
	struct ar_ureq *all = ctx->defer_head;

	ar_lockdep_assert_held(ctx);
	ctx->defer_head = ctx->defer_tail = NULL;
	ctx->nr_drained = 0;
	return all;
}
