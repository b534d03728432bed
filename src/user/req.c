/* SPDX-License-Identifier: MIT */
/*
 * req.c - the request cache. Requests come from slabs that are never
 * returned until the ring goes away, so a warm ring allocates nothing per
 * I/O. Allocation happens only under uring_lock (the submit path), from a
 * list that lock protects; any thread frees onto a lock-free list the
 * allocator takes whole when its own runs dry (the kernel's
 * io_alloc_req with its locked_free_list, without the lock). The issuer
 * of a SINGLE_ISSUER ring allocates without uring_lock and frees straight
 * onto its own list.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "user/types.h"
#include "user/opdef.h"
#include "user/ctx.h"
#include "user/req.h"
#include "user/cred.h"
#include "user/rsrc.h"
#include "user/backend.h"
#include "user/fault.h"

#define AR_REQ_SLAB	64

struct ar_req_slab {
	struct ar_req_slab *next;
	struct io_uring_sqe *sqes;	/* ANYRING_FAULTS only: one per request */
	struct ar_ureq reqs[AR_REQ_SLAB];
};

/* under uring_lock */
static int ar_req_grow(struct ar_uctx *ctx)
{
	struct ar_req_slab *slab = malloc(sizeof(*slab));
	unsigned i;

	if (!slab)
		return -1;
	/* fault rules match on the SQE at issue (fault.c); parsed here first */
	ar_faults_init();
	slab->sqes = NULL;
	if (ar_faults_active()) {
		slab->sqes = calloc(AR_REQ_SLAB, sizeof(*slab->sqes));
		if (!slab->sqes) {
			free(slab);
			return -1;
		}
	}
	slab->next = ctx->slabs;
	ctx->slabs = slab;
	for (i = 0; i < AR_REQ_SLAB; i++) {
		slab->reqs[i].fault_sqe = slab->sqes ? &slab->sqes[i] : NULL;
		slab->reqs[i].next = ctx->req_free;
		ctx->req_free = &slab->reqs[i];
	}
	return 0;
}

/* under uring_lock */
bool ar_req_refill(struct ar_uctx *ctx)
{
	/* acquire pairs with the release in ar_req_free(): the requests are written */
	ctx->req_free = atomic_exchange_explicit(&ctx->req_freed, NULL,
						 memory_order_acquire);
	return ctx->req_free || !ar_req_grow(ctx);
}

/* what a request holds besides itself */
static void ar_req_release(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	/* an unknown opcode was made a NOP at init (submit.c) */
	const struct ar_cold_def *def = &ar_cold_defs[req->opcode];

	/* cleanup handlers accept a request whose prep failed part way */
	if (def->cleanup)
		def->cleanup(req);
	if (req->alloc)
		free(req->alloc);
	ar_file_release(&req->file);
	/* the file reference a wait took (poll.c ar_poll_hold_file()) */
	if (req->flags & AR_REQ_F_FD_REF)
		ar_internal_close(req->fd);
	if (req->file_node)
		ar_rsrc_put(ctx, req->file_node);
	if (req->buf_node)
		ar_rsrc_put(ctx, req->buf_node);
	if (req->cred)
		ar_cred_put(req->cred);
}

/* requests first..last (linked by next) onto the lock-free free list */
static void ar_req_push(struct ar_uctx *ctx, struct ar_ureq *first,
			struct ar_ureq *last)
{
	struct ar_ureq *old;

	/*
	 * A push onto a list only ever taken whole: no ABA. Release pairs
	 * with the allocator's acquire exchange.
	 */
	old = atomic_load_explicit(&ctx->req_freed, memory_order_relaxed);
	do {
		last->next = old;
	} while (!atomic_compare_exchange_weak_explicit(&ctx->req_freed, &old, first,
							memory_order_release,
							memory_order_relaxed));
}

void ar_req_free(struct ar_ureq *req)
{
	ar_req_release(req);
	if (req->flags & AR_REQ_F_AUX)
		free(req);
	else
		ar_req_push(req->ctx, req, req);
}

/*
 * The allocator's own thread: the issuer of a SINGLE_ISSUER ring, whose
 * submit takes no uring_lock (ctx.h), is the only thread that
 * allocates, so it may return requests to the allocation list directly.
 */
static bool ar_req_owner(const struct ar_uctx *ctx)
{
	return ar_issuer_lockless(ctx) && ar_self_tid() == ctx->submitter;
}

/* a batch of one ring's requests, linked by next: one atomic for all */
void ar_req_free_list(struct ar_uctx *ctx, struct ar_ureq *list)
{
	struct ar_ureq *req, *next, *last = NULL, **pp = &list;

	if (!list)	/* most batches free nothing (a NOP's fast path) */
		return;
	for (req = list; req; req = next) {
		next = req->next;
		ar_req_release(req);
		if (req->flags & AR_REQ_F_AUX) {
			/* not the cache's (msg_ring.c): unlinked and freed */
			*pp = next;
			free(req);
			continue;
		}
		last = req;
		pp = &req->next;
	}
	if (!list)
		return;
	if (ar_req_owner(ctx)) {
		last->next = ctx->req_free;
		ctx->req_free = list;
	} else {
		ar_req_push(ctx, list, last);
	}
}

void ar_req_cache_free(struct ar_uctx *ctx)
{
	struct ar_req_slab *slab, *next;

	for (slab = ctx->slabs; slab; slab = next) {
		next = slab->next;
		free(slab->sqes);
		free(slab);
	}
	ctx->slabs = NULL;
	ctx->req_free = NULL;
	atomic_store_explicit(&ctx->req_freed, NULL, memory_order_relaxed);
}
