/* SPDX-License-Identifier: MIT */
/*
 * complete.c - the completion side: posting CQEs (or parking them on the
 * overflow list: no CQE is ever dropped), the link rules (a failed member
 * cancels the rest of its chain unless hard-linked), count-based timeouts,
 * drain bookkeeping, and waking waiters, the ring fd and a registered
 * eventfd.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/wake.h"
#include "user/fork.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/lock.h"
#include "user/svc.h"
#include "user/ctx.h"
#include "user/req.h"
#include "user/submit.h"
#include "user/drain.h"
#include "user/complete.h"
#include "user/poll.h"
#include "user/tw.h"
#include "user/iowq.h"
#include "user/kbuf.h"
#include "user/wait.h"
#include "user/waitq.h"
#include "user/timeout.h"
#include "user/ringfd.h"

static void ar_batch_queue(struct ar_comp_batch *b, struct ar_ureq *req)
{
	ar_req_list_add(&b->queue, &b->queue_tail, req);
}

/* under the lock: CQEs wait on the overflow backlog, and a post goes behind them */
static inline bool ar_cq_backlog(struct ar_uctx *ctx)
{
	return ar_sh(ctx)->of_head != ar_sh(ctx)->of_tail;
}

static void ar_inflight_del_locked(struct ar_uctx *ctx, struct ar_ureq *req)
{
	ar_lockdep_assert_held(ctx);
	if (!(req->flags & AR_REQ_F_INFLIGHT))
		return;
	if (req->if_prev)
		req->if_prev->if_next = req->if_next;
	else
		ctx->inflight = req->if_next;
	if (req->if_next)
		req->if_next->if_prev = req->if_prev;
	else
		ctx->inflight_tail = req->if_prev;
	__atomic_store_n(&ctx->nr_inflight, ctx->nr_inflight - 1, __ATOMIC_RELAXED);
	req->flags &= ~AR_REQ_F_INFLIGHT;
	if (req->xslot)
		ar_xslot_put_locked(ctx, req);
	if (req->flags & AR_REQ_F_HASHED)
		ar_poll_unhash_locked(req);
}

/*
 * Park a CQE on the overflow backlog; out of line: the post's common
 * case then saves no registers. The backlog holds of_mask + 1 CQEs
 * (ar_uctx_alloc()); past that the CQE is lost and counted, the
 * kernel's own last resort when it cannot allocate one.
 */
static __attribute__((noinline, cold)) bool
ar_cq_overflow_add(struct ar_uctx *ctx, __u64 user_data, int res,
		   unsigned cflags, const struct ar_cqe_big *big)
{
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_cq_overflow *of;

	if (sh->of_tail - sh->of_head > sh->of_mask) {
		IO_URING_WRITE_ONCE(ctx->rings->cq_overflow,
				    ctx->rings->cq_overflow + 1);
		return false;
	}
	of = &sh->of_ring[sh->of_tail & sh->of_mask];
	of->user_data = user_data;
	of->res = res;
	of->flags = cflags;
	of->is_big = !!big;
	of->big[0] = big ? big->extra1 : 0;
	of->big[1] = big ? big->extra2 : 0;
	__atomic_store_n(&ctx->stats.completions,
			 __atomic_load_n(&ctx->stats.completions, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	/* relaxed: a hint to lock-free peeks (ar_cq_overflowed()) */
	__atomic_store_n(&sh->of_tail, sh->of_tail + 1, __ATOMIC_RELAXED);
	/* the application reads sq_flags with its own loads: an atomic RMW */
	__atomic_fetch_or(&ctx->rings->sq_flags, IORING_SQ_CQ_OVERFLOW,
			  __ATOMIC_RELEASE);
	return true;
}

/* the CQ's free slots */
static unsigned ar_cq_space(struct ar_uctx *ctx)
{
	/* acquire pairs with the application's release of the CQ head */
	unsigned head = io_uring_smp_load_acquire(&ctx->rings->cq.head);

	return ctx->cq_entries - (ar_sh(ctx)->cached_cq_tail - head);
}

/* the slot at the cached tail (a 32-byte one on a CQE32 ring) */
static struct io_uring_cqe *ar_cq_at_tail(struct ar_uctx *ctx)
{
	unsigned shift = !!(ctx->flags & IORING_SETUP_CQE32);

	return &ctx->rings->cqes[(ar_sh(ctx)->cached_cq_tail & (ctx->cq_entries - 1))
				 << shift];
}

/* the CQEs are written: the application may see them */
static void ar_cq_publish(struct ar_uctx *ctx, unsigned n)
{
	/* under ctx->lock: one writer; read relaxed */
	__atomic_store_n(&ctx->stats.completions,
			 __atomic_load_n(&ctx->stats.completions, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
	/* release pairs with the application's acquire of the CQ tail: the CQE is written */
	io_uring_smp_store_release(&ctx->rings->cq.tail, ar_sh(ctx)->cached_cq_tail);
}

/*
 * A 32-byte CQE on a CQE_MIXED ring, as 6.18 posts it: two slots, with
 * IORING_CQE_F_32; one never wraps, so at the ring's last slot a 16-byte
 * CQE with IORING_CQE_F_SKIP (user_data and res 0) goes first, and the
 * CQE itself at the start. The skip is posted whenever the last slot is
 * free, even if the CQE then has no room. false: no room for it.
 */
static __attribute__((noinline)) bool
ar_cq_fill_mixed32(struct ar_uctx *ctx, __u64 user_data, int res,
		   unsigned cflags, const struct ar_cqe_big *big)
{
	unsigned space = ar_cq_space(ctx), n = 0;
	struct io_uring_cqe *cqe;

	if (!space)
		return false;
	if ((ar_sh(ctx)->cached_cq_tail & (ctx->cq_entries - 1)) == ctx->cq_entries - 1) {
		cqe = ar_cq_at_tail(ctx);
		cqe->user_data = 0;
		cqe->res = 0;
		cqe->flags = IORING_CQE_F_SKIP;
		ar_sh(ctx)->cached_cq_tail++;
		space--;
		/* the skip counts as no completion: the tail alone moves */
		io_uring_smp_store_release(&ctx->rings->cq.tail, ar_sh(ctx)->cached_cq_tail);
	}
	if (space >= 2) {
		cqe = ar_cq_at_tail(ctx);
		cqe->user_data = user_data;
		cqe->res = res;
		cqe->flags = cflags | IORING_CQE_F_32;
		memcpy(cqe + 1, big, sizeof(*big));
		ar_sh(ctx)->cached_cq_tail += 2;
		n = 1;
		ar_cq_publish(ctx, n);
	}
	return n != 0;
}

/* one CQE into the CQ; false when it has no room (big NULL folds away) */
static inline __attribute__((always_inline)) bool
ar_cq_fill(struct ar_uctx *ctx, __u64 user_data, int res, unsigned cflags,
	   const struct ar_cqe_big *big)
{
	struct io_uring_cqe *cqe;

	if (__builtin_expect(big && (ctx->flags & IORING_SETUP_CQE_MIXED), 0))
		return ar_cq_fill_mixed32(ctx, user_data, res, cflags, big);
	if (!ar_cq_space(ctx))
		return false;
	cqe = ar_cq_at_tail(ctx);
	cqe->user_data = user_data;
	cqe->res = res;
	cqe->flags = cflags;
	/* a 32-byte CQE's second half: its extra words, or nothing */
	if (ctx->flags & IORING_SETUP_CQE32) {
		if (big)
			memcpy(cqe + 1, big, sizeof(*big));
		else
			memset(cqe + 1, 0, sizeof(*cqe));
	}
	ar_sh(ctx)->cached_cq_tail++;
	ar_cq_publish(ctx, 1);
	return true;
}

/* Post one CQE; behind earlier overflowed ones so the order holds. */
void ar_cq_post_locked(struct ar_uctx *ctx, __u64 user_data, int res,
		       unsigned cflags)
{
	ar_lockdep_assert_held(ctx);
	if (ar_cq_backlog(ctx) || !ar_cq_fill(ctx, user_data, res, cflags, NULL))
		ar_cq_overflow_add(ctx, user_data, res, cflags, NULL);
}

void ar_cq_post_big_locked(struct ar_uctx *ctx, __u64 user_data, int res,
			   unsigned cflags, const struct ar_cqe_big *big)
{
	ar_lockdep_assert_held(ctx);
	if (ar_cq_backlog(ctx) || !ar_cq_fill(ctx, user_data, res, cflags, big))
		ar_cq_overflow_add(ctx, user_data, res, cflags, big);
}

/* Move overflowed CQEs into the CQ as far as it has room. */
void ar_cq_flush_overflow_locked(struct ar_uctx *ctx)
{
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_cq_overflow *of;

	ar_lockdep_assert_held(ctx);
	while (sh->of_head != sh->of_tail) {
		of = &sh->of_ring[sh->of_head & sh->of_mask];
		if (!ar_cq_fill(ctx, of->user_data, of->res, of->flags,
				of->is_big ? (const struct ar_cqe_big *)of->big : NULL))
			break;
		/* relaxed: a hint to lock-free peeks (ar_cq_overflowed()) */
		__atomic_store_n(&sh->of_head, sh->of_head + 1, __ATOMIC_RELAXED);
	}
	if (sh->of_head == sh->of_tail)
		__atomic_fetch_and(&ctx->rings->sq_flags, ~IORING_SQ_CQ_OVERFLOW,
				   __ATOMIC_RELEASE);
}

/*
 * ar_cq_flush_overflow() saw an overflow list (complete.h); flushed CQEs count
 * for count-based timeouts, as posted ones do
 */
void ar_cq_flush_overflow_list(struct ar_uctx *ctx)
{
	struct ar_comp_batch b;
	unsigned tail;

	ar_batch_init(&b);
	ar_ctx_lock(ctx);
	tail = ar_sh(ctx)->cached_cq_tail;
	ar_cq_flush_overflow_locked(ctx);
	b.posted = tail != ar_sh(ctx)->cached_cq_tail;
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, false);
}

/*
 * io_eventfd_signal(): a registered eventfd is signalled unless it was
 * disabled, or registered async and this is not a worker. For posted
 * CQEs (cqe_event) only when the CQ tail moved since its last signal: a
 * signal means a new CQE in the CQ ring, so CQEs parked on the overflow
 * list signal when a flush brings them in, not before. Two posters may
 * share one signal; it comes after both tails were stored: each loads
 * the tail after its own store, and the one whose exchange finds the
 * value unchanged was preceded by a poster that loaded that same value
 * and signals.
 */
static void ar_eventfd_signal(struct ar_uctx *ctx, bool from_worker,
			      bool cqe_event)
{
	uint64_t one = 1;
	unsigned tail;
	int efd;

	/* acquire pairs with the release in ar_reg_eventfd(): eventfd_tail is set */
	efd = __atomic_load_n(&ctx->eventfd, __ATOMIC_ACQUIRE);
	if (efd < 0 || (ctx->eventfd_async && !from_worker) ||
	    (IO_URING_READ_ONCE(ctx->rings->cq_flags) & IORING_CQ_EVENTFD_DISABLED))
		return;
	if (cqe_event) {
		/* acquire pairs with the posters' release of the CQ tail */
		tail = io_uring_smp_load_acquire(&ctx->rings->cq.tail);
		if (__atomic_exchange_n(&ctx->eventfd_tail, tail,
					__ATOMIC_RELAXED) == tail)
			return;
	}
	/*
	 * the polls of it learn it is an io_uring signal, before its edge;
	 * relaxed: eventfd_app was published by the acquire load of efd
	 */
	ar_poll_uring_signal(__atomic_load_n(&ctx->eventfd_app, __ATOMIC_RELAXED));
	(void)!write(efd, &one, sizeof(one));
	ar_poll_readied = true;
}

/*
 * After CQEs were posted: wake io_cqring_wait sleepers, make the ring fd
 * readable, signal a registered eventfd.
 */
void ar_cq_wake(struct ar_uctx *ctx, bool from_worker)
{
	/*
	 * The submitter of a DEFER_TASKRUN ring is the only thread that may
	 * wait on it or clear its ring fd (enter refuses the others): when it
	 * posts, nobody sleeps, and its own later loads see its stores.
	 * Otherwise the waker's barrier of wake.h after the CQ tail store;
	 * pairs with ar_wake_sleeper_add() in ar_waitq_add() (CQ sleepers)
	 * and with the barrier in ar_ringfd_clear() (ring fd): either the
	 * waiter sees the CQE or we see the waiter.
	 */
	if (ar_issuer_sole_waiter(ctx))
		goto signal;
	ar_wake_mb();
	if (ar_wake_has_sleepers(&ctx->cq_waiters)) {
		/* a waiter learns its wait time from when this post was */
		__atomic_store_n(&ctx->last_post_ns, ar_now_ns(), __ATOMIC_RELAXED);
		ar_waitq_wake(ctx, false);
	}
	/*
	 * Waiters of other processes (fork.c): the same barrier pairs with
	 * the exchange of ar_xsleep_add() in ar_waitq_add().
	 */
	if (ar_ring_forked(ctx) && ar_xsleep_other(ctx))
		ar_xwake_post(ctx);
signal:
	ar_ring_fd_signal(ctx);
	ar_eventfd_signal(ctx, from_worker, true);
}

/*
 * Completion work was queued for the ring's task: make the ring fd
 * readable and signal a registered eventfd, for event loops that poll
 * them instead of entering the ring (the kernel's io_req_local_work_add()
 * signals the eventfd whatever the CQ tail).
 */
void ar_ring_signal(struct ar_uctx *ctx, bool from_worker)
{
	ar_ring_fd_signal(ctx);
	ar_eventfd_signal(ctx, from_worker, false);
}

/*
 * Readiness found for a DEFER_TASKRUN ring's task (poll.c): as
 * ar_ring_signal(), but a registered eventfd that is readable already
 * is not signalled again. When the readiness came from that eventfd
 * itself (a READ of it on the ring, made ready by a CQE's signal), the
 * kernel's second signal is raised inside the first one's wakeup, where
 * an eventfd cannot be signalled, and is deferred (call_rcu), so the
 * task's read finds the first alone; here it would race the read. A
 * loop that watches the eventfd is woken by the signal already there,
 * and enters the ring, which reaps the readiness.
 */
void ar_ring_signal_ready(struct ar_uctx *ctx)
{
	/* relaxed: a look; ar_eventfd_signal() loads it again with acquire */
	struct pollfd pfd = { .fd = __atomic_load_n(&ctx->eventfd, __ATOMIC_RELAXED),
			      .events = POLLIN };

	ar_ring_fd_signal(ctx);
	if (pfd.fd >= 0 && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN))
		return;
	ar_eventfd_signal(ctx, true, false);
}

/*
 * A zero-copy send's notification (the kernel's notif request), right
 * after its result CQE, which says MORE: posted whatever the result, as
 * the kernel flushes the notification of a send that failed too. This
 * engine always copies, so the buffer is free as soon as it is posted.
 */
static void ar_cq_post_notif_locked(struct ar_uctx *ctx, struct ar_ureq *req,
				    struct ar_comp_batch *b)
{
	__s32 res = req->flags & AR_REQ_F_NOTIF_COPIED ? (__s32)(1U << 31) : 0;

	ar_lockdep_assert_held(ctx);
	ar_cq_post_locked(ctx, req->user_data, res, IORING_CQE_F_NOTIF);
	b->posted = true;
}

/* io_fail_links: the rest of a failed chain, each -ECANCELED unless failed itself */
static void ar_fail_links_locked(struct ar_uctx *ctx, struct ar_ureq *req,
				 struct ar_comp_batch *b)
{
	bool ignore = req->flags & AR_REQ_F_SKIP_LINK_CQES;
	struct ar_ureq *link = req->link, *nxt;

	ar_lockdep_assert_held(ctx);
	req->link = NULL;
	for (; link; link = nxt) {
		nxt = link->link;
		link->link = NULL;
		if (!(link->flags & AR_REQ_F_FAIL))
			link->res = -ECANCELED;
		if (!ignore) {
			ar_cq_post_locked(ctx, link->user_data, link->res, 0);
			b->posted = true;
		}
		/* a cancelled zero-copy send: its NOTIF still follows (no MORE) */
		if (link->flags & AR_REQ_F_NOTIF)
			ar_cq_post_notif_locked(ctx, link, b);
		ar_req_set_state(link, AR_REQ_DONE);
		ar_inflight_del_locked(ctx, link);
		link->next = b->free;
		b->free = link;
	}
}

void ar_complete_locked(struct ar_uctx *ctx, struct ar_ureq *req,
			       struct ar_comp_batch *b)
{
	struct ar_ureq *lt = NULL;

	ar_lockdep_assert_held(ctx);
	ar_req_set_state(req, AR_REQ_DONE);
	if ((req->res < 0 && !(req->flags & AR_REQ_F_NOFAIL)) ||
	    (req->flags & (AR_REQ_F_SHORT | AR_REQ_F_FAIL)))
		ar_req_set_fail(req);
	/*
	 * a link timeout still armed for this request is now cancelled; so
	 * is one never armed, its target ending before its issue (failed at
	 * submit, cancelled while queued), as the kernel's io_disarm_next()
	 */
	if (req->lt)
		lt = ar_link_timeout_disarm_locked(req);
	else if (__builtin_expect(req->flags & AR_REQ_F_ARM_LT, 0))
		lt = ar_link_timeout_unarmed_locked(req);

	if (ar_issue_defs[req->opcode].cq_timeout)
		ar_timeout_count_locked(ctx, req);
	/*
	 * a provided buffer's flags (kbuf.h), put now if still held (a
	 * backend's later completion, a cancel): kbuf_lock nests inside
	 * ctx->lock, and nothing under it takes another lock
	 */
	req->cflags |= ar_kbuf_complete_cflags(req, req->res);
	if (req->flags & AR_REQ_F_NOTIF)
		req->cflags |= IORING_CQE_F_MORE;
	if (!(req->flags & AR_REQ_F_SKIP_CQE)) {
		if (__builtin_expect(req->flags & AR_REQ_F_CQE32, 0))
			ar_cq_post_big_locked(ctx, req->user_data, req->res,
					      req->cflags,
					      ar_req_data(req, struct ar_cqe_big));
		else
			ar_cq_post_locked(ctx, req->user_data, req->res,
					  req->cflags);
		b->posted = true;
	}
	if (req->flags & AR_REQ_F_NOTIF)
		ar_cq_post_notif_locked(ctx, req, b);
	if (lt) {
		/* posted after its target's CQE, like the kernel; not a failure */
		if (!(lt->flags & AR_REQ_F_SKIP_CQE)) {
			ar_cq_post_locked(ctx, lt->user_data,
					  lt->flags & AR_REQ_F_LT_EXPIRED ?
					  -ENOENT : -ECANCELED, 0);
			b->posted = true;
		}
		ar_req_set_state(lt, AR_REQ_DONE);
		ar_inflight_del_locked(ctx, lt);
		req->link = lt->link;
		lt->link = NULL;
		lt->next = b->free;
		b->free = lt;
	}
	if (req->link) {
		if ((req->flags & AR_REQ_F_FAIL) && !(req->flags & AR_REQ_F_HARDLINK)) {
			ar_fail_links_locked(ctx, req, b);
		} else {
			ar_batch_queue(b, req->link);
			req->link = NULL;
		}
	}
	/*
	 * a request of a forked ring may post another process's cancel's
	 * CQE as it goes (fork.c ar_xslot_put_locked()): a wake follows
	 */
	if (__builtin_expect(req->xslot != 0, 0))
		b->posted = true;
	ar_inflight_del_locked(ctx, req);
	req->next = b->free;
	b->free = req;
}

/* the next links of completed requests: no drain check for them */
static __attribute__((noinline)) void ar_batch_issue_links(struct ar_uctx *ctx,
							   struct ar_ureq *req)
{
	struct ar_ureq *next;

	for (; req; req = next) {
		next = req->next;
		if (ctx->exiting)
			ar_req_complete(req, -ECANCELED, 0);
		else if (!ar_submit_defer_link(req))
			ar_req_queue_nodrain(req, AR_ISSUE_LINKED);
	}
}

void ar_batch_finish(struct ar_uctx *ctx, struct ar_comp_batch *b,
			    bool from_worker)
{
	if (b->posted)
		ar_cq_wake(ctx, from_worker);
	if (b->free)
		ar_req_free_list(ctx, b->free);
	if (ar_drain_active(ctx))
		ar_queue_deferred(ctx);
	if (b->queue)
		ar_batch_issue_links(ctx, b->queue);
}

/*
 * An expired TIMEOUT went onto the task list: it ends every wait once
 * posted (cq_timeouts, ar_timeout_count_locked()), which the wake
 * checks cannot see yet (ar_should_wake()): wake them all, to post it.
 * ar_tw_add()'s barrier after the push pairs with ar_wake_sleeper_add()
 * in ar_waitq_add(): the waiter sees the list, or we see the waiter.
 */
static void ar_tw_timeout_wake(struct ar_uctx *ctx, bool timeout)
{
	if (timeout && ar_wake_has_sleepers(&ctx->cq_waiters))
		ar_waitq_wake(ctx, true);
}

/*
 * A worker's request that completes without a CQE (IOSQE_CQE_SKIP_SUCCESS
 * and success) and without a link timeout: nothing for the ring's task
 * to post, so the worker settles it itself, and its next link (a FSYNC
 * after a WRITE) goes on in this worker, as io-wq runs a linked request
 * in the worker that completed its predecessor. Through task work it
 * would cost the task a wakeup that posts nothing and a second handoff
 * back to a worker. What it posts later goes through task work as ever.
 */
static bool ar_req_worker_silent(struct ar_ureq *req)
{
	if (ar_req_state(req) != AR_REQ_RUNNING ||
	    !(req->flags & AR_REQ_F_SKIP_CQE) ||
	    (req->res < 0 && !(req->flags & AR_REQ_F_NOFAIL)))
		return false;
	/* a link timeout's CQE, a notification: posted by the task */
	if (req->flags & (AR_REQ_F_SHORT | AR_REQ_F_FAIL | AR_REQ_F_NOTIF |
			  AR_REQ_F_ARM_LT))
		return false;
	return !ar_issue_defs[req->opcode].timer;
}

/*
 * A completion that is not posted here: the submitting thread's batch,
 * or task work. True when req went there.
 */
static bool ar_req_complete_elsewhere(struct ar_uctx *ctx, struct ar_ureq *req)
{
	/* the submitting thread posts its completions in a batch (submit.c) */
	if (ar_submit_complete(req))
		return true;
	/* complete=deferred or punt, or a submit in progress: task work */
	if (ar_tw_wanted(ctx) && !ar_req_worker_silent(req)) {
		/* read before the push: from there another thread may free req */
		bool timeout = ar_timeout_expired(req);

		if (ar_tw_add(req)) {
			ar_tw_timeout_wake(ctx, timeout);
			return true;
		}
	}
	return false;
}

/*
 * io_submit_flush_completions: the completions a submit's issue gathered
 * (submit.c, ctx->submit_state), posted under one ctx->lock
 */
void ar_submit_flush(struct ar_uctx *ctx, struct ar_ureq *list)
{
	struct ar_ureq *req, *next;
	struct ar_comp_batch b;
	bool async = false;

	ar_batch_init(&b);
	ar_ctx_lock(ctx);
	for (req = list; req; req = next) {
		next = req->next;
		/* done blocking here in io-wq's place (submit.c ar_req_issue_blocking()) */
		async |= !!(req->flags & AR_REQ_F_ASYNC_DONE);
		ar_complete_locked(ctx, req, &b);
	}
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, async);
}

/*
 * Complete a request with res: post its CQE, settle its chain, release
 * it. Callable from any thread; takes ctx->lock.
 */
void ar_req_complete(struct ar_ureq *req, int res, unsigned cflags)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_comp_batch b;
	bool from_worker;

	req->res = res;
	req->cflags = cflags;
	if (ar_req_complete_elsewhere(ctx, req))
		return;
	from_worker = ar_req_state(req) == AR_REQ_RUNNING;
	ar_batch_init(&b);
	ar_ctx_lock(ctx);
	ar_complete_locked(ctx, req, &b);
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, from_worker);
}

/*
 * ar_req_complete() for many requests of one ring finished together (a
 * backend's reap): each is gathered, then those posted here are posted
 * under one CQ lock and followed by one wake and one eventfd signal, as
 * the kernel flushes a batch of completions. Requests that go to the
 * submitting thread's batch or to task work go there at once, as one by
 * one. The caller gathers and then posts (ar_req_complete_gathered())
 * in the same thread, before anything else may look at the requests.
 */
void ar_req_complete_gather(struct ar_comp_list *l, struct ar_ureq *req,
			    int res, unsigned cflags)
{
	req->res = res;
	req->cflags = cflags;
	if (ar_req_complete_elsewhere(req->ctx, req))
		return;
	l->from_worker |= ar_req_state(req) == AR_REQ_RUNNING;
	ar_req_list_add(&l->head, &l->tail, req);
	l->nr++;
}

void ar_req_complete_gathered(struct ar_uctx *ctx, struct ar_comp_list *l)
{
	struct ar_ureq *req, *next;
	struct ar_comp_batch b;

	if (!l->head)
		return;
	ar_batch_init(&b);
	ar_ctx_lock(ctx);
	for (req = l->head; req; req = next) {
		next = req->next;	/* ar_complete_locked() reuses it */
		ar_complete_locked(ctx, req, &b);
	}
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, l->from_worker);
	ar_comp_list_init(l);
}

/*
 * A multishot request's CQE with the request still alive (the kernel's
 * io_req_post_cqe()): posted only where the CQ has room and nothing has
 * overflowed before it. False: nothing was posted; the caller ends the
 * request, and its final CQE (which may overflow) carries res instead.
 * Called where the request is issued; takes ctx->lock.
 */
bool ar_req_post_more(struct ar_ureq *req, int res, unsigned cflags)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_comp_batch b;
	bool posted;

	ar_batch_init(&b);
	ar_ctx_lock(ctx);
	posted = !ar_cq_backlog(ctx) &&
		 ar_cq_fill(ctx, req->user_data, res, cflags, NULL);
	if (posted) {
		b.posted = true;
		ar_complete_timeouts_locked(ctx, &b);
	}
	ar_ctx_unlock(ctx);
	if (posted)
		ar_batch_finish(ctx, &b, ar_req_state(req) == AR_REQ_RUNNING);
	return posted;
}

/*
 * A multishot request's 32-byte CQE (the kernel's io_req_post_cqe32()),
 * posted as ar_req_post_more() posts, except that where the CQ has no
 * room it goes to the overflow backlog: its caller took what it reports
 * from a queue it cannot put it back on (ops/cmd_net.c).
 */
void ar_req_post_more_big(struct ar_ureq *req, int res, unsigned cflags,
			  const struct ar_cqe_big *big)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_comp_batch b;

	ar_batch_init(&b);
	ar_ctx_lock(ctx);
	ar_cq_post_big_locked(ctx, req->user_data, res, cflags, big);
	b.posted = true;
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, ar_req_state(req) == AR_REQ_RUNNING);
}

/* count-based timeouts satisfied by what was just posted complete with 0 */
void ar_complete_timeouts_due_locked(struct ar_uctx *ctx,
				     struct ar_comp_batch *b)
{
	struct ar_ureq *req;

	ar_lockdep_assert_held(ctx);
	while ((req = ar_timeout_next_satisfied_locked(ctx))) {
		req->res = 0;
		ar_complete_locked(ctx, req, b);
	}
}
