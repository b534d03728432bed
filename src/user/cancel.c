/* SPDX-License-Identifier: MIT */
/*
 * cancel.c - IORING_OP_ASYNC_CANCEL and ring-exit cancellation.
 *
 * As the kernel's io_try_cancel: a request still queued for a worker, an
 * armed readiness poll (POLL_ADD, or a request waiting for its file), or
 * a pending TIMEOUT can be cancelled (it completes -ECANCELED, the cancel
 * 0); one a worker is running, or one being issued again after readiness,
 * answers -EALREADY (the latter then ends -ECANCELED where it would wait
 * again); nothing matching, -ENOENT. With IORING_ASYNC_CANCEL_ALL or
 * _ANY every match is cancelled and the cancel completes with the count.
 */
#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/lock.h"
#include "user/submit.h"
#include "user/drain.h"
#include "user/complete.h"
#include "user/wait.h"
#include "user/iowq.h"
#include "user/svc.h"
#include "user/poll.h"
#include "user/timeout.h"
#include "user/cancel.h"
#include "user/rsrc.h"
#include "user/spread.h"
#include "user/fork.h"
#include "lib/thread.h"
#include "lib/clock.h"

#define AR_CANCEL_FLAGS (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_FD | \
	IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_FD_FIXED |	\
	AR_ASYNC_CANCEL_USERDATA | AR_ASYNC_CANCEL_OP)

struct ar_cancel {
	__u64 addr;
	__u32 flags;
	int fd;
	int match_fd;			/* fd, a fixed one looked up (ar_cancel_run()) */
	__u8 opcode;
	unsigned seq;
};

/*
 * Take req out of where it waits so the caller can complete it with
 * -ECANCELED: 0; AR_CANCEL_OWN(_COUNT) when it was found and ends
 * -ECANCELED by itself (cancel.h);
 * -EALREADY when a worker runs it; -ENOENT when it is not at a
 * cancellable point. Under ctx->lock.
 */
int ar_cancel_extract_locked(struct ar_ureq *req)
{
	const struct ar_cold_def *def = &ar_cold_defs[req->opcode];

	ar_lockdep_assert_held(req->ctx);
	/* an opcode that waits somewhere of its own (a futex, a child) */
	if (def->cancel_locked)
		return def->cancel_locked(req);
	switch (ar_req_state(req)) {
	case AR_REQ_QUEUED:
		if (ar_iowq_cancel(req->ctx, req))
			return 0;
		/* fall through - a worker took it meanwhile */
	case AR_REQ_RUNNING:
		/*
		 * io-wq signals the worker; the waits that can be told
		 * (splice.c) end as an interrupted system call. Only a flag:
		 * its reader polls it, no ordering to pair with.
		 */
		__atomic_store_n(&req->interrupted, true, __ATOMIC_RELAXED);
		return -EALREADY;
	case AR_REQ_ISSUING:
		/*
		 * Issued again after readiness (poll.h): marked, it ends
		 * -ECANCELED where it would wait again. A POLL_ADD always
		 * does, as the kernel's poll cancel, and so does a request
		 * that ends only when cancelled (TX_TIMESTAMP): found, it
		 * ends by itself; another request may end with its result
		 * first, as one a worker runs (-EALREADY).
		 */
		if (!(req->poll_flags & AR_POLLF_BUSY))
			return -ENOENT;
		req->poll_flags |= AR_POLLF_CANCEL;
		return ar_issue_defs[req->opcode].poll_events ||
		       (req->poll_flags & AR_POLLF_CANCEL_ONLY) ? AR_CANCEL_OWN :
								  -EALREADY;
	case AR_REQ_ARMED:
		/* a timeout's timer: a LINK_TIMEOUT goes with its target only */
		if (ar_issue_defs[req->opcode].timer)
			return ar_issue_defs[req->opcode].cq_timeout &&
			       ar_timeout_extract_locked(req->ctx, req) ? 0 : -ENOENT;
		return ar_svc_disarm_locked(req) ? 0 : -ENOENT;
	default:
		return -ENOENT;
	}
}

int ar_async_cancel_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_cancel *c = ar_req_data(req, struct ar_cancel);

	if (sqe->flags & IOSQE_BUFFER_SELECT)
		return -EINVAL;
	if (sqe->off || sqe->splice_fd_in)
		return -EINVAL;
	c->addr = sqe->addr;
	c->flags = sqe->cancel_flags;
	if (c->flags & ~AR_CANCEL_FLAGS)
		return -EINVAL;
	/* IOSQE_FIXED_FILE on the cancel makes its fd a fixed one */
	if ((c->flags & IORING_ASYNC_CANCEL_FD) && (sqe->flags & IOSQE_FIXED_FILE))
		c->flags |= IORING_ASYNC_CANCEL_FD_FIXED;
	if (c->flags & IORING_ASYNC_CANCEL_FD) {
		if (c->flags & IORING_ASYNC_CANCEL_ANY)
			return -EINVAL;
		c->fd = sqe->fd;
	}
	if (c->flags & AR_ASYNC_CANCEL_OP) {
		if (c->flags & IORING_ASYNC_CANCEL_ANY)
			return -EINVAL;
		c->opcode = (__u8)sqe->len;
	}
	return 0;
}

/* io_cancel_req_match, without marking */
static bool ar_cancel_match(struct ar_ureq *self, struct ar_cancel *c,
			    struct ar_ureq *req, int fd)
{
	bool match_ud = !(c->flags & (IORING_ASYNC_CANCEL_FD | AR_ASYNC_CANCEL_OP));

	if (req == self || req->cancel_seq == c->seq)
		return false;	/* each request counts once per cancel */
	if (c->flags & IORING_ASYNC_CANCEL_ANY)
		return true;
	if ((c->flags & IORING_ASYNC_CANCEL_FD) && ar_req_app_fd(req) != fd)
		return false;
	if ((c->flags & AR_ASYNC_CANCEL_OP) && req->opcode != c->opcode)
		return false;
	return !((match_ud || (c->flags & AR_ASYNC_CANCEL_USERDATA)) &&
		 req->user_data != c->addr);
}

static bool ar_in_iowq(struct ar_ureq *req)
{
	return ar_req_state(req) == AR_REQ_QUEUED || ar_req_state(req) == AR_REQ_RUNNING;
}

/*
 * Find and extract the matches of c (self excluded), in the kernel's
 * order: io-wq work first, then armed polls and timeouts. With ALL/ANY the
 * kernel cancels all matching io-wq work in one step and counts it once;
 * polls and timeouts count one each. Returns the canceller's result, the
 * extracted requests in *done_out (submission order).
 */
static int ar_cancel_run(struct ar_uctx *ctx, struct ar_cancel *c,
			 struct ar_ureq *self, struct ar_ureq **done_out)
{
	bool all = c->flags & (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY);
	struct ar_ureq *cur, *done = NULL, **tail = &done;
	int fd = c->fd, ret = -ENOENT, nr = 0, r, pass;
	bool wq_hit = false;

	if ((c->flags & IORING_ASYNC_CANCEL_FD_FIXED) &&
	    (c->flags & IORING_ASYNC_CANCEL_FD)) {
		struct ar_rsrc_node *node = ar_rsrc_get_file(ctx, (unsigned)fd);

		if (!node)
			return -EBADF;
		fd = node->fd;
		ar_rsrc_put(ctx, node);
	}
	c->match_fd = fd;
	/* issue=spread: the requests the helper was given are issued first */
	ar_spread_sync(ctx);
	ar_ctx_lock(ctx);
	if (self)
		c->seq = ++ctx->cancel_seq;
	for (pass = 0; pass < 2; pass++) {
		for (cur = ctx->inflight; cur; cur = cur->if_next) {
			if (ar_in_iowq(cur) != (pass == 0) ||
			    !ar_cancel_match(self, c, cur, fd))
				continue;
			r = ar_cancel_extract_locked(cur);
			if (r == -ENOENT)
				continue;
			cur->cancel_seq = c->seq;
			/* found; it completes by itself: the cancel's answer */
			if (r == AR_CANCEL_OWN)
				r = 0;
			else if (r == AR_CANCEL_OWN_COUNT)
				r = 1;
			else if (!r) {
				*tail = cur;
				tail = &cur->next;
				*tail = NULL;
			}
			ret = r;
			if (!all)
				goto out;
			if (pass == 0)
				wq_hit = true;
			else
				nr++;
		}
		if (pass == 0 && wq_hit)
			nr++;
	}
out:
	ar_ctx_unlock(ctx);
	*done_out = done;
	return all ? nr : ret;
}

static void ar_cancel_complete(struct ar_ureq *done)
{
	struct ar_ureq *next;

	for (; done; done = next) {
		next = done->next;
		ar_req_complete(done, -ECANCELED, 0);
	}
}

/*
 * Cancels across processes (docs/semantics.md D2). The requests other
 * processes have in flight on a forked ring are seen only in its
 * in-flight table (fork.c): user_data, fd number and opcode. A cancel
 * that found no match in its own process (or, with ALL or ANY, after
 * its own) marks theirs, and its entry is detached: the cancel ends in
 * its process without a CQE, and the table holds what its CQE will be.
 * Each owner answers for its marked requests, woken through the family's
 * cancel eventfd, which its readiness epoll fd watches (poll.c); one
 * that completes first answers "not found" (fork.c), as a cancel that
 * looked after the completion; one whose process is gone, "found" (its
 * CQE is -ECANCELED). The last answer posts the cancel's CQE.
 */
static bool ar_xcancel_match(const struct ar_cancel *c, const struct ar_xslot *x)
{
	bool match_ud = !(c->flags & (IORING_ASYNC_CANCEL_FD | AR_ASYNC_CANCEL_OP));

	if (c->flags & IORING_ASYNC_CANCEL_ANY)
		return true;
	if ((c->flags & IORING_ASYNC_CANCEL_FD) && x->fd != c->match_fd)
		return false;
	if ((c->flags & AR_ASYNC_CANCEL_OP) && x->opcode != c->opcode)
		return false;
	return !((match_ud || (c->flags & AR_ASYNC_CANCEL_USERDATA)) &&
		 x->user_data != c->addr);
}

/*
 * Mark the matches of other processes for the cancel in entry self
 * (every one with all, else the first); how many. Under ctx->lock.
 */
static unsigned ar_xcancel_mark_locked(struct ar_uctx *ctx,
				       const struct ar_cancel *c,
				       unsigned self, bool all)
{
	struct ar_ushared *sh = ar_sh(ctx);
	unsigned i, n = 0;
	pid_t pid;

	for (i = 0; i < sh->xslots_hi; i++) {
		struct ar_xslot *x = &sh->xslots[i];

		pid = __atomic_load_n(&x->pid, __ATOMIC_RELAXED);
		if (pid <= 0 || pid == ctx->pid || x->xc_from ||
		    !ar_xcancel_match(c, x))
			continue;
		x->xc_from = self + 1;
		n++;
		if (!all)
			break;
	}
	return n;
}

/*
 * The cancel req found nothing of its own (res: the count, with all):
 * true if it marked requests of other processes and is detached. A
 * cancel in a link chain, whose answer the chain waits for, stays here.
 */
static bool ar_xcancel_detach(struct ar_ureq *req, const struct ar_cancel *c,
			      int res, bool all)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_xslot *me;
	unsigned n;

	if (!ar_ring_forked(ctx) || !req->xslot || sh->xcancel_fd < 0 ||
	    req->link || req->lt || (req->flags & AR_REQ_F_ARM_LT))
		return false;
	ar_ctx_lock(ctx);
	n = ar_xcancel_mark_locked(ctx, c, req->xslot - 1, all);
	if (n) {
		me = &sh->xslots[req->xslot - 1];
		me->xc_pending = n;
		me->xc_res = all ? res : -ENOENT;
		me->xc_all = all;
		me->xc_skip = !!(req->flags & AR_REQ_F_SKIP_CQE);
		ar_xslot_detach_locked(ctx, req);
		req->flags |= AR_REQ_F_SKIP_CQE;
	}
	ar_ctx_unlock(ctx);
	if (!n)
		return false;
	ar_xcancel_post(ctx);
	/* no CQE here: the entry's answers post it */
	ar_req_complete(req, 0, 0);
	return true;
}

/*
 * Entry i's process answers the cancel that marked it: r as
 * ar_cancel_extract_locked()'s (0 found, -EALREADY running, -ENOENT
 * not found). True if this was the last answer, which posted the
 * cancel's CQE. Under ctx->lock.
 */
bool ar_xcancel_answer_locked(struct ar_uctx *ctx, unsigned i, int r)
{
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_xslot *x = &sh->xslots[i];
	unsigned from = x->xc_from - 1;
	struct ar_xslot *cs = &sh->xslots[from];

	ar_lockdep_assert_held(ctx);
	x->xc_from = 0;
	if (r != -ENOENT)
		cs->xc_res = cs->xc_all ? cs->xc_res + 1 : r;
	if (--cs->xc_pending)
		return false;
	/* a sync cancel's: its caller reads the answer, if it is still there */
	if (cs->xc_sync) {
		if (cs->xc_sync == AR_XC_SYNC_LEFT || ar_tid_gone(cs->xc_waiter))
			ar_xslot_free_locked(ctx, from);
		return false;
	}
	if (!(cs->xc_skip && cs->xc_res >= 0))
		ar_xslot_post_locked(ctx, cs, cs->xc_res);
	ar_xslot_free_locked(ctx, from);
	return true;
}

/* this process's requests that a cancel of another process marked (poll.c) */
void ar_xcancel_serve(struct ar_uctx *ctx)
{
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_ureq *cur, *done = NULL, **tail = &done;
	bool posted = false;
	int r;

	if (!sh->xslots)
		return;
	ar_ctx_lock(ctx);
	for (cur = ctx->inflight; cur; cur = cur->if_next) {
		if (!cur->xslot || !sh->xslots[cur->xslot - 1].xc_from)
			continue;
		r = ar_cancel_extract_locked(cur);
		if (!r) {
			*tail = cur;
			tail = &cur->next;
			*tail = NULL;
		} else if (r == AR_CANCEL_OWN) {
			r = 0;
		} else if (r == AR_CANCEL_OWN_COUNT) {
			r = 1;
		}
		posted |= ar_xcancel_answer_locked(ctx, cur->xslot - 1, r);
	}
	ar_ctx_unlock(ctx);
	if (posted)
		ar_cq_wake(ctx, false);
	/* after the cancel's CQE, as for a cancel of this process */
	ar_cancel_complete(done);
}

int ar_async_cancel_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_cancel *c = ar_req_data(req, struct ar_cancel);
	bool all = c->flags & (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY);
	struct ar_ureq *done = NULL;
	int ret;

	(void)issue_flags;
	/* a plain fd is looked up first, as the kernel's fget */
	if ((c->flags & IORING_ASYNC_CANCEL_FD) &&
	    !(c->flags & IORING_ASYNC_CANCEL_FD_FIXED) && fcntl(c->fd, F_GETFD) < 0)
		return -EBADF;
	ret = ar_cancel_run(req->ctx, c, req, &done);
	if (__builtin_expect(ar_ring_forked(req->ctx), 0) &&
	    (all ? ret >= 0 : ret == -ENOENT) &&
	    ar_xcancel_detach(req, c, ret, all)) {
		ar_cancel_complete(done);
		return AR_ISSUE_QUEUED;
	}
	/* the cancel's CQE first, then the cancelled requests' */
	ar_req_complete(req, ret, 0);
	ar_cancel_complete(done);
	return AR_ISSUE_QUEUED;
}

#define AR_XCANCEL_SYNC_POLL_US	1000	/* a sync cancel's look for answers */

/*
 * A sync cancel that found nothing of its own (res: the count, with
 * all) on a forked ring: the matches of other processes are marked for
 * an entry of its own, and it waits for their answers as an ASYNC_CANCEL's
 * CQE would (ar_xcancel_detach()), looking for processes that are gone
 * meanwhile. Their answer, res if nothing was marked, or -ETIME at the
 * deadline (0: none); then the entry is the last answer's to free.
 */
static int ar_xcancel_sync(struct ar_uctx *ctx, const struct ar_cancel *c,
			   int res, bool all, __u64 deadline)
{
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_xslot *me;
	unsigned s, n = 0;

	if (sh->xcancel_fd < 0)
		return res;
	ar_ctx_lock(ctx);
	s = ar_xslot_get_sync_locked(ctx);
	if (s)
		n = ar_xcancel_mark_locked(ctx, c, s - 1, all);
	if (!n) {
		if (s)
			ar_xslot_free_locked(ctx, s - 1);
		ar_ctx_unlock(ctx);
		return res;
	}
	me = &sh->xslots[s - 1];
	me->xc_pending = n;
	me->xc_res = all ? res : -ENOENT;
	me->xc_all = all;
	ar_ctx_unlock(ctx);
	ar_xcancel_post(ctx);
	for (;;) {
		ar_ctx_lock(ctx);
		if (!me->xc_pending) {
			res = me->xc_res;
			ar_xslot_free_locked(ctx, s - 1);
			ar_ctx_unlock(ctx);
			return res;
		}
		if (deadline && ar_now_ns() >= deadline) {
			me->xc_sync = AR_XC_SYNC_LEFT;
			ar_ctx_unlock(ctx);
			return -ETIME;
		}
		ar_ctx_unlock(ctx);
		/* a process that is gone answers "found" (fork.c) */
		ar_xslot_sweep(ctx);
		usleep(AR_XCANCEL_SYNC_POLL_US);
	}
}

/*
 * IORING_REGISTER_SYNC_CANCEL: cancel and wait. A match a worker is
 * running is waited for (up to the timeout, -ETIME) rather than reported.
 * On a forked ring, other processes' requests too (ar_xcancel_sync()).
 */
int ar_sync_cancel(struct ar_uctx *ctx, const void *arg)
{
	struct ar_sync_cancel_reg sc, *reg = &sc;
	struct ar_cancel c;
	struct ar_ureq *done;
	__u64 deadline = 0;
	unsigned i;
	bool all;
	int ret;

	_Static_assert(sizeof(*reg) == sizeof(struct io_uring_sync_cancel_reg),
		       "sync cancel layout");
	if (ar_copy_from_user(&sc, arg, sizeof(sc)))
		return -EFAULT;
	memset(&c, 0, sizeof(c));
	c.addr = reg->addr;
	c.flags = reg->flags;
	c.fd = reg->fd;
	c.opcode = reg->opcode;
	if (c.flags & ~AR_CANCEL_FLAGS)
		return -EINVAL;
	for (i = 0; i < sizeof(reg->pad); i++)
		if (reg->pad[i])
			return -EINVAL;
	for (i = 0; i < 3; i++)
		if (reg->pad2[i])
			return -EINVAL;
	if ((c.flags & IORING_ASYNC_CANCEL_FD) &&
	    !(c.flags & IORING_ASYNC_CANCEL_FD_FIXED) && fcntl(c.fd, F_GETFD) < 0)
		return -EBADF;
	all = c.flags & (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY);
	if (reg->timeout.tv_sec != -1 || reg->timeout.tv_nsec != -1)
		deadline = ar_now_ns() + (__u64)reg->timeout.tv_sec * 1000000000ULL +
			   (__u64)reg->timeout.tv_nsec;
	for (;;) {
		ar_ctx_lock(ctx);
		c.seq = ++ctx->cancel_seq;
		ar_ctx_unlock(ctx);
		done = NULL;
		ret = ar_cancel_run(ctx, &c, NULL, &done);
		ar_cancel_complete(done);
		if (__builtin_expect(ar_ring_forked(ctx), 0) &&
		    (all ? ret >= 0 : ret == -ENOENT))
			ret = ar_xcancel_sync(ctx, &c, ret, all, deadline);
		if (ret != -EALREADY)
			return ret;
		/* a worker is finishing the match: wait for it, then look again */
		if (deadline && ar_now_ns() >= deadline)
			return -ETIME;
		usleep(1000);
	}
}

/* Ring exit: everything still waiting completes -ECANCELED; wait for the running. */
void ar_cancel_all(struct ar_uctx *ctx)
{
	struct ar_ureq *cur, *next, *done;

	ar_ctx_lock(ctx);
	ctx->exiting = true;
	done = ar_drain_take_all_locked(ctx);
	ar_ctx_unlock(ctx);
	ar_cancel_complete(done);
	for (;;) {
		done = NULL;
		ar_ctx_lock(ctx);
		for (cur = ctx->inflight; cur; cur = next) {
			next = cur->if_next;
			if (ar_cancel_extract_locked(cur))
				continue;
			cur->next = done;
			done = cur;
		}
		ar_ctx_unlock(ctx);
		if (!done)
			break;
		for (cur = done; cur; cur = next) {
			next = cur->next;
			ar_req_complete(cur, -ECANCELED, 0);
		}
	}
}
