/* SPDX-License-Identifier: MIT */
/*
 * aiopoll.c - oneshot POLL_ADD through native AIO's IOCB_CMD_POLL (the
 * why: aiopoll.h), in the ring's AIO context (aio.c), whose reaping
 * hands each poll's event here.
 *
 * An armed poll's iocb is a struct ar_aiopoll, named to the kernel by
 * its address (io_cancel() finds it so) and by the tagged aio_data of
 * its event. It is the ring's until that event has come: a cancel
 * detaches it from its request (ap->req = NULL) and asks the kernel to
 * cancel it, and the event, which comes either way, puts it back on the
 * ring's free list. The iocbs come in chunks, kept until the ring ends:
 * no allocation per poll once warm.
 *
 * Everything here is under ctx->lock: the request's state, ap->req, the
 * free list. The io_submit() of an arming request is made outside it,
 * with the request AR_REQ_ISSUING and AR_POLLF_BUSY, as poll.c arms: a
 * cancel or a link timeout that comes meanwhile marks it, and its event,
 * if it is reaped meanwhile, is left to the arming thread
 * (AR_POLLF_FIRED).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <linux/aio_abi.h>
#include "user/types.h"
#include "user/opdef.h"
#include "user/lock.h"
#include "user/aiopoll.h"
#include "user/poll.h"
#include "user/aio.h"
#include "user/timeout.h"
#include "engine/engine.h"

#define AR_AIOPOLL_CHUNK	64

struct ar_aiopoll {
	struct iocb cb;			/* its address is the kernel's name for it */
	struct ar_ureq *req;		/* the request it waits for; NULL: none */
	struct ar_aiopoll *next;	/* the free list */
};

struct ar_aiopoll_chunk {
	struct ar_aiopoll_chunk *next;
	struct ar_aiopoll ap[AR_AIOPOLL_CHUNK];
};

/*
 * A user ring's fd stays with epoll, whose edge is queued within the
 * write that makes it (AIO's poll may complete later, from a kworker):
 * the enter that posts to the ring then reaps it (ar_poll_run_others()).
 */
bool ar_aiopoll_wanted(const struct ar_ureq *req, __u32 events)
{
	return ar_issue_defs[req->opcode].poll_events && req->file.aio_poll &&
	       !(events & EPOLLEXCLUSIVE) &&
	       !ar_req_data(req, struct ar_poll_add)->multi &&
	       !__atomic_load_n(&req->ctx->aio_refused, __ATOMIC_RELAXED) &&
	       !ar_engine_obj(ar_req_app_fd(req), &ar_user_engine);
}

/* a chunk of free iocbs onto the list; false: no memory */
static bool ar_aiopoll_grow(struct ar_uctx *ctx)
{
	struct ar_aiopoll_chunk *c = calloc(1, sizeof(*c));

	if (!c)
		return false;
	ar_ctx_lock(ctx);
	c->next = ctx->aiopoll_chunks;
	ctx->aiopoll_chunks = c;
	for (unsigned i = 0; i < AR_AIOPOLL_CHUNK; i++) {
		c->ap[i].next = ctx->aiopoll_free;
		ctx->aiopoll_free = &c->ap[i];
	}
	ar_ctx_unlock(ctx);
	return true;
}

static void ar_aiopoll_put_locked(struct ar_uctx *ctx, struct ar_aiopoll *ap)
{
	ar_lockdep_assert_held(ctx);
	ap->req = NULL;
	ap->next = ctx->aiopoll_free;
	ctx->aiopoll_free = ap;
}

/* req no longer waits through AIO; under ctx->lock */
static void ar_aiopoll_unlink_locked(struct ar_ureq *req)
{
	ar_lockdep_assert_held(req->ctx);
	ar_req_data(req, struct ar_poll_add)->ap = NULL;
	req->flags &= ~AR_REQ_F_POLLED;
	req->poll_flags = 0;
}

void ar_aiopoll_disarm_locked(struct ar_ureq *req)
{
	struct ar_aiopoll *ap = ar_req_data(req, struct ar_poll_add)->ap;

	ar_lockdep_assert_held(req->ctx);
	ar_aiopoll_unlink_locked(req);
	/*
	 * Its event still comes (io_cancel()'s is posted by a kernel
	 * worker, and one already on its way is not stopped): it frees the
	 * iocb then. Cancelled under the lock, so that the event, which
	 * takes the lock, cannot free and reuse the iocb first.
	 */
	ap->req = NULL;
	ar_aio_cancel(req->ctx, &ap->cb);
}

/* arm's end, its lock held: where the request stands once io_submit() has answered */
static int ar_aiopoll_armed_locked(struct ar_ureq *req, struct ar_aiopoll *ap,
				   int ret)
{
	struct ar_uctx *ctx = req->ctx;

	ar_lockdep_assert_held(req->ctx);
	if (ret) {
		/* refused (a full context): not armed, epoll serves it */
		ar_aiopoll_put_locked(ctx, ap);
		ret = req->poll_flags & AR_POLLF_CANCEL ? -ECANCELED : -EOPNOTSUPP;
		ar_aiopoll_unlink_locked(req);
	} else if (req->poll_flags & AR_POLLF_FIRED) {
		/* its event was reaped meanwhile: issued again, still BUSY */
		req->poll_flags &= ~AR_POLLF_FIRED;
		ret = AR_POLL_RETRY;
	} else if ((req->poll_flags & AR_POLLF_CANCEL) || ctx->exiting) {
		ar_aiopoll_disarm_locked(req);
		ret = -ECANCELED;
	} else if (ar_link_timeout_expired_locked(req)) {
		ar_aiopoll_disarm_locked(req);
		ar_link_timeout_park_locked(req);	/* drops the lock */
		return 0;
	} else {
		req->poll_flags &= ~AR_POLLF_BUSY;
		ar_req_set_state(req, AR_REQ_ARMED);
	}
	ar_ctx_unlock(ctx);
	return ret;
}

int ar_aiopoll_arm(struct ar_ureq *req, __u32 events)
{
	struct ar_poll_add *pa = ar_req_data(req, struct ar_poll_add);
	struct ar_uctx *ctx = req->ctx;
	struct ar_aiopoll *ap;
	int ret;

	if (ar_aio_prepare(ctx))
		return -EOPNOTSUPP;
again:
	ar_ctx_lock(ctx);
	if (ctx->exiting) {
		ar_ctx_unlock(ctx);
		return -ECANCELED;
	}
	if (ar_link_timeout_park_locked(req))
		return 0;	/* its link timeout cancelled it instead */
	ap = ctx->aiopoll_free;
	if (!ap) {
		/* none free: a chunk more (no allocation once warm), then again */
		ar_ctx_unlock(ctx);
		if (!ar_aiopoll_grow(ctx))
			return -EOPNOTSUPP;
		goto again;
	}
	ctx->aiopoll_free = ap->next;
	ap->req = req;
	pa->ap = ap;
	req->poll_events = events;
	req->poll_res = 0;
	req->poll_flags = AR_POLLF_BUSY | AR_POLLF_AIO;
	req->flags |= AR_REQ_F_POLLED;
	ar_req_set_state(req, AR_REQ_ISSUING);
	/*
	 * Counted before ring exit can look (it sets exiting under this
	 * lock), twice: once for the iocb's event, once for this thread,
	 * which may still reap and cancel after another thread (ring exit's
	 * among them) has reaped that event.
	 */
	ar_aio_hold(ctx, 2);
	ar_ctx_unlock(ctx);

	memset(&ap->cb, 0, sizeof(ap->cb));
	ap->cb.aio_data = (__u64)(uintptr_t)ap | AR_AIOPOLL_TAG;
	ap->cb.aio_lio_opcode = IOCB_CMD_POLL;
	ap->cb.aio_fildes = (__u32)req->fd;
	/* the 16 bits AIO takes: EPOLLEXCLUSIVE and above never come here */
	ap->cb.aio_buf = events & 0xffff;
	ret = ar_aio_submit(ctx, &ap->cb, false);
	/*
	 * A file ready already completed the iocb in io_submit(): its
	 * event is in the AIO ring, and the request completes now, inline,
	 * as the kernel's does at arming (AR_POLLF_FIRED).
	 */
	if (!ret)
		ar_aio_reap_ring(ctx);
	ar_ctx_lock(ctx);
	ret = ar_aiopoll_armed_locked(req, ap, ret);
	ar_aio_unhold(ctx);
	return ret;
}

struct ar_ureq *ar_aiopoll_event(struct ar_uctx *ctx, __u64 data, __s64 res)
{
	struct ar_aiopoll *ap = (struct ar_aiopoll *)(uintptr_t)(data & ~AR_AIOPOLL_TAG);
	struct ar_ureq *req;

	ar_ctx_lock(ctx);
	req = ap->req;
	ar_aiopoll_put_locked(ctx, ap);
	if (!req) {
		ar_ctx_unlock(ctx);
		return NULL;
	}
	ar_req_data(req, struct ar_poll_add)->ap = NULL;
	/* mangle_poll()'s bits: the POLL* values, which POLL_ADD answers in */
	req->poll_res = res > 0 ? (__u32)res : 0;
	if (req->poll_flags & AR_POLLF_BUSY) {
		req->poll_flags |= AR_POLLF_FIRED;	/* ar_aiopoll_arm() issues it */
		ar_ctx_unlock(ctx);
		return NULL;
	}
	/*
	 * Issued again by the caller, as after an epoll edge: BUSY, so a
	 * cancel meanwhile marks it and ar_poll_done() ends it -ECANCELED.
	 */
	req->poll_flags |= AR_POLLF_BUSY;
	ar_req_set_state(req, AR_REQ_ISSUING);
	ar_ctx_unlock(ctx);
	return req;
}

void ar_aiopoll_free(struct ar_uctx *ctx)
{
	struct ar_aiopoll_chunk *c, *next;

	for (c = ctx->aiopoll_chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	ctx->aiopoll_chunks = NULL;
	ctx->aiopoll_free = NULL;
}
