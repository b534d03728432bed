/* SPDX-License-Identifier: MIT */
/*
 * ctx.h - a user ring's lifetime (ctx.c) and its single issuer.
 */
#ifndef ANYRING_USER_CTX_H
#define ANYRING_USER_CTX_H

#include "lib/thread.h"
#include "user/types.h"

/* ctx.c */
struct ar_uctx *ar_uctx_of_fd(int fd);
/* ctx.c: a ring whose last reference went */
void ar_uctx_free(struct ar_uctx *ctx);
/* ctx.c: the last registered index of a ring went (register.c) */
void ar_user_index_gone(struct ar_uctx *ctx);
/* ctx.c: IORING_REGISTER_RESIZE_RINGS; arg the application's params */
int ar_user_resize_rings(struct ar_uctx *ctx, void *arg);

/* a reference on the ring, for a call on it (an enter, a register) */
static inline void ar_uctx_get(struct ar_uctx *ctx)
{
	atomic_fetch_add_explicit(&ctx->refs, 1, memory_order_relaxed);
}

/* the last reference frees it: registered-ring entries can outlive the fd */
static inline void ar_uctx_put(struct ar_uctx *ctx)
{
	/* acq_rel: every holder's uses come before the free */
	if (atomic_fetch_sub_explicit(&ctx->refs, 1, memory_order_acq_rel) == 1)
		ar_uctx_free(ctx);
}

static inline bool ar_uctx_dead(struct ar_uctx *ctx)
{
	return atomic_load_explicit(&ctx->dead, memory_order_acquire);
}

/*
 * IORING_SETUP_SINGLE_ISSUER, as 6.18 enforces it (measured): another
 * thread's submit, register (any opcode) and, with DEFER_TASKRUN, wait
 * get -EEXIST; with SQPOLL, other threads may still submit.
 */
static inline bool ar_issuer_set(const struct ar_uctx *ctx)
{
	/* acquire pairs with the release that sets it at ENABLE_RINGS */
	return (ctx->flags & IORING_SETUP_SINGLE_ISSUER) &&
	       __atomic_load_n(&ctx->has_submitter, __ATOMIC_ACQUIRE);
}

/* is the calling thread another than the ring's single issuer? */
static inline bool ar_issuer_other(const struct ar_uctx *ctx)
{
	return ar_issuer_set(ctx) && ar_self_tid() != ctx->submitter;
}

/*
 * Only the submitter submits: the submit path needs no uring_lock. The
 * state it guards is the submit side's own (the SQ, the request cache,
 * links, personalities and restrictions, which only register changes,
 * and register is the submitter's too); the registered-file and buffer
 * tables take uring_lock on their own (rsrc.c) and are not read here.
 */
static inline bool ar_issuer_lockless(const struct ar_uctx *ctx)
{
	return !(ctx->flags & IORING_SETUP_SQPOLL) && ar_issuer_set(ctx);
}

/*
 * Is the calling thread the only one that can wait on this ring's CQ? A
 * DEFER_TASKRUN ring's waits are its submitter's: the submitter posting
 * CQEs itself needs no check for sleepers (the kernel's task_complete).
 */
static inline bool ar_issuer_sole_waiter(const struct ar_uctx *ctx)
{
	return (ctx->flags & IORING_SETUP_DEFER_TASKRUN) && ar_issuer_set(ctx) &&
	       ar_self_tid() == ctx->submitter;
}

#endif
