/* SPDX-License-Identifier: MIT */
/* fork.h - a ring in more than one process (fork.c) */
#ifndef ANYRING_USER_FORK_H
#define ANYRING_USER_FORK_H

#include <stdbool.h>
#include "user/types.h"

void ar_user_prefork(void *obj);
void ar_user_task_exit(const struct ar_engine *e, void *obj, int fd);
bool ar_user_forked(void *obj);

/* a fork has happened with the ring: posts may have to wake other processes */
static inline bool ar_ring_forked(const struct ar_uctx *ctx)
{
	/*
	 * relaxed: set before the fork that makes another process, whose
	 * sleepers count themselves with seq_cst (ar_xsleep_add()), and
	 * read by posters after their barrier (ar_cq_wake())
	 */
	return atomic_load_explicit(&ar_sh(ctx)->forked, memory_order_relaxed);
}

#define AR_XSLEEP_MIXED		0xffffffffU

void ar_xsleep_add(struct ar_uctx *ctx);
void ar_xsleep_del(struct ar_uctx *ctx);

/* a thread of another process may be asleep on the CQ (relaxed: after the waker's barrier) */
static inline bool ar_xsleep_other(const struct ar_uctx *ctx)
{
	uint64_t v = atomic_load_explicit(&ar_sh(ctx)->xsleep,
					  memory_order_relaxed);

	return (uint32_t)v && (uint32_t)(v >> 32) != (uint32_t)ctx->pid;
}

void ar_xslot_take_locked(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_xslot_put_locked(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_xslot_detach_locked(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_xslot_free_locked(struct ar_uctx *ctx, unsigned i);
unsigned ar_xslot_get_sync_locked(struct ar_uctx *ctx);
void ar_xslot_post_locked(struct ar_uctx *ctx, const struct ar_xslot *x, int res);
void ar_xslot_timer_locked(struct ar_uctx *ctx, struct ar_ureq *req,
			   __u64 deadline);
__u64 ar_xslot_next_timer(const struct ar_uctx *ctx);
void ar_xslot_sweep(struct ar_uctx *ctx);
bool ar_xslot_others(const struct ar_uctx *ctx);
void ar_xslot_submitted(struct ar_uctx *ctx);
#define AR_XSWEEP_NS	1000000000ULL	/* a forked ring's waiter looks each second */

void ar_xwake_post(struct ar_uctx *ctx);
void ar_xcancel_post(struct ar_uctx *ctx);
int ar_xsleeper_add(struct ar_waiter *w);
void ar_xsleeper_del(struct ar_waiter *w);
void ar_xwake_take(struct ar_waiter *self);
void ar_xwake_seen(struct ar_waiter *self);
bool ar_xwake_settle(struct ar_waiter *self);

#endif
