/* SPDX-License-Identifier: MIT */
/*
 * req.c - the request cache. Requests come from slabs that are never
 * returned until the ring goes away, so a warm ring allocates nothing per
 * I/O. Freed requests go back on a list under req_lock (a short critical
 * section, no system call inside).
 */
#include <stdlib.h>
#include <string.h>
#include "uring.h"

#define AR_REQ_SLAB	64

struct ar_req_slab {
	struct ar_req_slab *next;
	struct ar_ureq reqs[AR_REQ_SLAB];
};

static int ar_req_grow(struct ar_uctx *ctx)
{
	struct ar_req_slab *slab = malloc(sizeof(*slab));
	unsigned i;

	if (!slab)
		return -1;
	slab->next = ctx->slabs;
	ctx->slabs = slab;
	for (i = 0; i < AR_REQ_SLAB; i++) {
		slab->reqs[i].next = ctx->req_free;
		ctx->req_free = &slab->reqs[i];
	}
	return 0;
}

struct ar_ureq *ar_req_alloc(struct ar_uctx *ctx)
{
	struct ar_ureq *req;

	pthread_mutex_lock(&ctx->req_lock);
	if (!ctx->req_free && ar_req_grow(ctx)) {
		pthread_mutex_unlock(&ctx->req_lock);
		return NULL;
	}
	req = ctx->req_free;
	ctx->req_free = req->next;
	pthread_mutex_unlock(&ctx->req_lock);

	memset(req, 0, sizeof(*req));
	req->ctx = ctx;
	req->fd = -1;
	return req;
}

void ar_req_free(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	const struct ar_opdef *def = &ar_opdefs[req->opcode < ar_nr_opdefs ?
						 req->opcode : 0];

	/* cleanup handlers accept a request whose prep failed part way */
	if (req->opcode < ar_nr_opdefs && def->cleanup)
		def->cleanup(req);
	free(req->alloc);
	if (req->file_node)
		ar_rsrc_put(ctx, req->file_node);
	if (req->buf_node)
		ar_rsrc_put(ctx, req->buf_node);

	pthread_mutex_lock(&ctx->req_lock);
	req->next = ctx->req_free;
	ctx->req_free = req;
	pthread_mutex_unlock(&ctx->req_lock);
}

void ar_req_cache_free(struct ar_uctx *ctx)
{
	struct ar_req_slab *slab, *next;

	for (slab = ctx->slabs; slab; slab = next) {
		next = slab->next;
		free(slab);
	}
	ctx->slabs = NULL;
	ctx->req_free = NULL;
}
