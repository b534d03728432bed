/* SPDX-License-Identifier: MIT */
/*
 * aio.h - the ring's native AIO context (aio.c), made on first use: the
 * direct backend's reads and writes (backend/direct.c) and aiopoll.c's
 * polls queue iocbs in it; a waiter about to sleep, or the ring's reaper
 * thread, completes them.
 */
#ifndef ANYRING_USER_AIO_H
#define ANYRING_USER_AIO_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <linux/aio_abi.h>
#include "user/types.h"

struct ar_waiter;

/* the AIO ring the kernel maps at a context's address (fs/aio.c) */
#define AR_AIO_RING_MAGIC	0xa10a10a1
struct ar_aio_ring {
	unsigned id;
	unsigned nr;
	unsigned head;		/* written by the consumer (us) */
	unsigned tail;		/* written by the kernel */
	unsigned magic;
	unsigned compat_features;
	unsigned incompat_features;
	unsigned header_length;
	struct io_event io_events[];
};

/* 0: the ring's context is there (made if need be); -EOPNOTSUPP: AIO is refused */
int ar_aio_prepare(struct ar_uctx *ctx);
/*
 * Holds on the context: an iocb on its way, or a thread that will still
 * use the context, counted under ctx->lock before the ring's exit can
 * set exiting there. Ring exit waits until none is left.
 */
void ar_aio_hold(struct ar_uctx *ctx, unsigned n);
void ar_aio_unhold(struct ar_uctx *ctx);
/* queue a filled iocb (hold: take its hold here); 0, or -errno, hold dropped */
int ar_aio_submit(struct ar_uctx *ctx, struct iocb *cb, bool hold);
/*
 * queue n filled iocbs in one call, their holds taken: how many went in,
 * from the first, or -errno when none did (the first's hold dropped)
 */
int ar_aio_submit_many(struct ar_uctx *ctx, struct iocb **cbs, unsigned n);
/* ask the kernel to cancel a queued iocb; its event comes either way */
void ar_aio_cancel(struct ar_uctx *ctx, struct iocb *cb);

/*
 * The ring's side. A reap completes what the AIO ring holds (a peek
 * when empty); how many.
 */
unsigned ar_aio_reap_ring(struct ar_uctx *ctx);
/*
 * A thread about to sleep: *fd gets an fd that wakes it for AIO
 * completions (or -1), and what was already there is completed; how many.
 */
unsigned ar_aio_sleep_prepare(struct ar_uctx *ctx, int *fd);
/* ... and that sleep is over (after every *fd >= 0 the prepare gave) */
void ar_aio_sleep_done(struct ar_uctx *ctx);
/*
 * A sleep for AIO completions alone, in one system call: 1 reaped (look
 * again), 0 woken, -ETIMEDOUT, -EINTR; -EAGAIN: not here, the caller
 * sleeps in ppoll().
 */
int ar_aio_sleep(struct ar_uctx *ctx, struct ar_waiter *w, __u64 deadline_ns,
		 const sigset_t *sigmask);
/* ring exit: every iocb queued for the ring has completed, the context goes */
void ar_aio_exit(struct ar_uctx *ctx);
void ar_aio_forget(struct ar_uctx *ctx);

/*
 * The calls above that waiters make, behind a peek at whether the ring
 * has a context (a relaxed load, a hint: the callee loads it again with
 * acquire), so that the common case makes no call.
 */
static inline unsigned ar_ring_aio_reap(struct ar_uctx *ctx)
{
	return __atomic_load_n(&ctx->aio, __ATOMIC_RELAXED) ?
	       ar_aio_reap_ring(ctx) : 0;
}

static inline int ar_ring_aio_sleep(struct ar_uctx *ctx, struct ar_waiter *w,
				    __u64 deadline_ns, const sigset_t *sigmask)
{
	return __atomic_load_n(&ctx->aio, __ATOMIC_RELAXED) ?
	       ar_aio_sleep(ctx, w, deadline_ns, sigmask) : -EAGAIN;
}

#endif
