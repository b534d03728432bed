/* SPDX-License-Identifier: MIT */
/*
 * req.h - the request cache (req.c): no malloc per I/O once warm.
 */
#ifndef ANYRING_USER_REQ_H
#define ANYRING_USER_REQ_H

#include <stddef.h>
#include <string.h>
#include "user/types.h"

/* req.c */
/* the allocation list is empty: take the freed ones, or grow; false: none */
bool ar_req_refill(struct ar_uctx *ctx);

/* a request from the cache, its header cleared; NULL: no memory */
static inline struct ar_ureq *ar_req_alloc(struct ar_uctx *ctx)
{
	struct ar_ureq *req;

	if (!ctx->req_free && !ar_req_refill(ctx))
		return NULL;
	req = ctx->req_free;
	ctx->req_free = req->next;

	/* the header; ar_req_init() clears opdata */
	memset(req, 0, offsetof(struct ar_ureq, fault_sqe));
	req->alloc = NULL;
	req->ctx = ctx;
	req->fd = -1;
	return req;
}
void ar_req_free(struct ar_ureq *req);
void ar_req_free_list(struct ar_uctx *ctx, struct ar_ureq *list);
void ar_req_cache_free(struct ar_uctx *ctx);

#endif
