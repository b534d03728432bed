/* SPDX-License-Identifier: MIT */
/*
 * drain.h - IOSQE_IO_DRAIN deferral (drain.c).
 */
#ifndef ANYRING_USER_DRAIN_H
#define ANYRING_USER_DRAIN_H

#include "user/types.h"

/* drain.c */
void ar_drain_init(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_drain_req(struct ar_ureq *req);
void ar_queue_deferred(struct ar_uctx *ctx);
struct ar_ureq *ar_drain_take_all_locked(struct ar_uctx *ctx);

/*
 * drain_active is written under ctx->lock and read without it: a stale
 * read only sends a request through ar_drain_req(), which decides under
 * the lock. Release/acquire pair the two sides.
 */
static inline bool ar_drain_active(struct ar_uctx *ctx)
{
	return __atomic_load_n(&ctx->drain_active, __ATOMIC_ACQUIRE);
}

#endif
