/* SPDX-License-Identifier: MIT */
/*
 * req.h - the request cache (req.c): no malloc per I/O once warm.
 */
#ifndef ANYRING_USER_REQ_H
#define ANYRING_USER_REQ_H

#include "user/types.h"

/* req.c */
struct ar_ureq *ar_req_alloc(struct ar_uctx *ctx);
void ar_req_free(struct ar_ureq *req);
void ar_req_free_list(struct ar_uctx *ctx, struct ar_ureq *list);
void ar_req_cache_free(struct ar_uctx *ctx);

#endif
