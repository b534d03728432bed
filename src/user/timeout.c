/* SPDX-License-Identifier: MIT */
/*
 * timeout.c - IORING_OP_TIMEOUT (relative, absolute, count-based,
 * ETIME_SUCCESS), TIMEOUT_REMOVE (and update) and LINK_TIMEOUT, with the
 * kernel's rules: a count-based timeout completes with 0 once that many
 * other CQEs were posted after it was armed (timeouts' own CQEs do not
 * count); on expiry it completes with -ETIME. Timers run on the service
 * thread (svc.c); the count side runs where CQEs are posted.
 */
#include <errno.h>
#include <time.h>
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/lock.h"
#include "user/complete.h"
#include "user/wait.h"
#include "user/svc.h"
#include "user/timeout.h"
#include "user/cancel.h"
#include "user/fork.h"

#define AR_TIMEOUT_FLAGS (IORING_TIMEOUT_ABS | IORING_TIMEOUT_CLOCK_MASK | \
			  IORING_TIMEOUT_ETIME_SUCCESS)

struct ar_timeout {
	__u64 rel_or_abs_ns;	/* as given */
	__u32 flags;
	__u32 off;		/* count; 0: a pure timer */
	__u32 target_seq;
	bool counted;		/* on ctx->timeouts */
	/*
	 * TIMEOUT: it expired or its count was reached, so it counts in
	 * ctx->cq_timeouts when its CQE is posted. LINK_TIMEOUT: its timer fired
	 * while its target was being issued; the target is cancelled where
	 * it next waits (ar_link_timeout_park_locked()). Under ctx->lock.
	 */
	bool expired;
	/* LINK_TIMEOUT: the request it guards, while armed (ctx->lock) */
	struct ar_ureq *target;
};

static struct ar_ureq **ar_lt_target(struct ar_ureq *lt)
{
	return &ar_req_data(lt, struct ar_timeout)->target;
}

struct ar_timeout_rem {
	__u64 addr;		/* user_data of the timeout */
	__u32 flags;
	__u64 ts_ns;
};

/* get_timespec64(): the application's timespec, copied fault-safe */
static int ar_get_timespec(__u64 addr, __u64 *ns)
{
	struct __kernel_timespec ts;

	if (ar_copy_from_user(&ts, (const void *)(unsigned long)addr,
			      sizeof(ts)))
		return -EFAULT;
	/* the kernel rejects negatives only; tv_nsec >= 1e9 is taken as given */
	if (ts.tv_sec < 0 || ts.tv_nsec < 0)
		return -EINVAL;
	/* too far to represent: never (the kernel saturates too) */
	if (__builtin_mul_overflow((__u64)ts.tv_sec, 1000000000ULL, ns) ||
	    __builtin_add_overflow(*ns, (__u64)ts.tv_nsec, ns))
		*ns = UINT64_MAX;
	return 0;
}

static int ar_clock_of(__u32 flags)
{
	switch (flags & IORING_TIMEOUT_CLOCK_MASK) {
	case IORING_TIMEOUT_BOOTTIME:
		return CLOCK_BOOTTIME;
	case IORING_TIMEOUT_REALTIME:
		return CLOCK_REALTIME;
	default:
		return CLOCK_MONOTONIC;
	}
}

/*
 * the CLOCK_MONOTONIC deadline of a timeout given relative or absolute;
 * *due (if asked): due as it is armed, a relative 0 or an absolute time
 * not after now on its clock
 */
static __u64 ar_deadline(__u64 ns, __u32 flags, bool *due)
{
	struct timespec now;
	__u64 now_ns, mono = ar_now_ns();

	if (!(flags & IORING_TIMEOUT_ABS)) {
		if (due)
			*due = !ns;
		return ns > UINT64_MAX - mono ? UINT64_MAX : mono + ns;
	}
	clock_gettime(ar_clock_of(flags), &now);
	now_ns = (__u64)now.tv_sec * 1000000000ULL + (__u64)now.tv_nsec;
	if (due)
		*due = ns <= now_ns;
	return ns > now_ns ? mono + (ns - now_ns) : mono;
}

static int ar_timeout_prep_common(struct ar_ureq *req,
				  const struct io_uring_sqe *sqe, bool link)
{
	struct ar_timeout *t = ar_req_data(req, struct ar_timeout);
	__u32 flags = sqe->timeout_flags;
	int ret;

	if (sqe->buf_index || sqe->len != 1 || sqe->splice_fd_in)
		return -EINVAL;
	if (flags & ~AR_TIMEOUT_FLAGS)
		return -EINVAL;
	/* more than one clock */
	if ((flags & IORING_TIMEOUT_CLOCK_MASK) == IORING_TIMEOUT_CLOCK_MASK)
		return -EINVAL;
	t->off = (__u32)sqe->off;
	t->counted = false;
	t->expired = false;
	if (link && t->off)
		return -EINVAL;
	t->flags = flags;
	ret = ar_get_timespec(sqe->addr, &t->rel_or_abs_ns);
	if (ret)
		return ret;
	if (flags & IORING_TIMEOUT_ETIME_SUCCESS)
		req->flags |= AR_REQ_F_NOFAIL;
	return 0;
}

int ar_timeout_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_timeout_prep_common(req, sqe, false);
}

/* a LINK_TIMEOUT guards the request submitted just before it in its chain */
int ar_link_timeout_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_ureq *last = ctx->submit_link_last;
	int ret;

	ret = ar_timeout_prep_common(req, sqe, true);
	if (ret)
		return ret;
	if (!ctx->submit_link_head || !last ||
	    last->opcode == IORING_OP_LINK_TIMEOUT)
		return -EINVAL;
	*ar_lt_target(req) = last;
	last->flags |= AR_REQ_F_ARM_LT;
	return 0;
}

/* insert a count-based timeout in target order; under ctx->lock */
static void ar_timeout_add_counted(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_timeout *t = ar_req_data(req, struct ar_timeout);
	__u32 tail = ar_sh(ctx)->cached_cq_tail - ar_sh(ctx)->cq_timeouts;
	struct ar_ureq **pp;

	t->target_seq = tail + t->off;
	ctx->cq_last_tm_flush = tail;
	for (pp = &ctx->timeouts; *pp; pp = &(*pp)->to_next) {
		struct ar_timeout *o = ar_req_data(*pp, struct ar_timeout);

		if (o->target_seq - tail > t->off)
			break;
	}
	req->to_next = *pp;
	*pp = req;
	t->counted = true;
}

static void ar_timeout_del_counted(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_timeout *t = ar_req_data(req, struct ar_timeout);
	struct ar_ureq **pp;

	if (!t->counted)
		return;
	for (pp = &ctx->timeouts; *pp; pp = &(*pp)->to_next) {
		if (*pp == req) {
			*pp = req->to_next;
			break;
		}
	}
	t->counted = false;
}

int ar_timeout_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_timeout *t = ar_req_data(req, struct ar_timeout);
	struct ar_uctx *ctx = req->ctx;
	int kick, ret;
	bool due;

	(void)issue_flags;
	ret = ar_svc_prepare_timer(ctx);
	if (ret)
		return ret;
	ar_ctx_lock(ctx);
	if (ar_link_timeout_park_locked(req))
		return AR_ISSUE_QUEUED;
	req->deadline_ns = ar_deadline(t->rel_or_abs_ns, t->flags, &due);
	/*
	 * Already due (0 ns, or ABS not in the future): the kernel's hrtimer
	 * fires as it is armed, before the submit's later SQEs run, so
	 * neither a TIMEOUT_REMOVE nor a count reaches it. It expires here,
	 * counted with its CQE as a fired one (ar_timeout_count_locked()).
	 * Decided by the time given, not by a clock read later: a thread
	 * preempted here must not turn 1 us into "already due".
	 */
	if (due) {
		t->expired = true;
		ar_ctx_unlock(ctx);
		return -ETIME;
	}
	ar_req_set_state(req, AR_REQ_ARMED);
	if (t->off)
		ar_timeout_add_counted(ctx, req);
	kick = ar_svc_arm_timer_locked(req);
	ar_ctx_unlock(ctx);
	if (kick)
		ar_svc_kick(ctx);
	return AR_ISSUE_QUEUED;
}

/*
 * The next count-based timeout whose count is reached, taken off every
 * list; NULL if none. Under ctx->lock, after CQEs were posted. One whose
 * timer the service thread already took (its disarm fails) is left to
 * ar_timeout_fire(), which completes it with -ETIME, as the kernel's
 * io_kill_timeout() leaves a timeout whose hrtimer it cannot cancel to
 * the timer: it completes once.
 */
struct ar_ureq *ar_timeout_next_satisfied_locked(struct ar_uctx *ctx)
{
	__u32 seq = ar_sh(ctx)->cached_cq_tail - ar_sh(ctx)->cq_timeouts;
	struct ar_ureq *req;
	struct ar_timeout *t;

	ar_lockdep_assert_held(ctx);
	while ((req = ctx->timeouts)) {
		t = ar_req_data(req, struct ar_timeout);
		if (seq - ctx->cq_last_tm_flush <
		    t->target_seq - ctx->cq_last_tm_flush) {
			ctx->cq_last_tm_flush = seq;
			return NULL;
		}
		ar_timeout_del_counted(ctx, req);
		if (!ar_svc_disarm_locked(req))
			continue;	/* its timer fired: not ours to complete */
		t->expired = true;
		return req;
	}
	return NULL;
}

/* Does req, when posted, count in cq_timeouts? */
bool ar_timeout_expired(struct ar_ureq *req)
{
	return req->opcode == IORING_OP_TIMEOUT &&
	       ar_req_data(req, struct ar_timeout)->expired;
}

/*
 * A TIMEOUT's CQE is about to be posted: one that expired or reached its
 * count is counted in cq_timeouts first, in the same ctx->lock section.
 * The CQ tail's release store (ar_cq_fill()) then publishes the count
 * with the CQE: a waiter that saw the CQE counts it when its next wait
 * starts (ar_cqring_wait()). One that sees the count first takes the
 * lock, so the CQE is there when it returns (ar_wait_done()). The
 * count-based sequence (cached_cq_tail minus cq_timeouts) does not move.
 */
void ar_timeout_count_locked(struct ar_uctx *ctx, struct ar_ureq *req)
{
	ar_lockdep_assert_held(ctx);
	if (!ar_req_data(req, struct ar_timeout)->expired)
		return;
	/* one writer (under ctx->lock); read without it by waiters */
	__atomic_store_n(&ar_sh(ctx)->cq_timeouts, ar_sh(ctx)->cq_timeouts + 1,
			 __ATOMIC_RELAXED);
}

/* Take a TIMEOUT out of play for remove/cancel; true if it was pending. */
bool ar_timeout_extract_locked(struct ar_uctx *ctx, struct ar_ureq *req)
{
	ar_lockdep_assert_held(ctx);
	if (req->opcode != IORING_OP_TIMEOUT || ar_req_state(req) != AR_REQ_ARMED ||
	    !ar_svc_disarm_locked(req))
		return false;
	ar_timeout_del_counted(ctx, req);
	return true;
}

/*
 * The process exits (exit(), fork.c ar_fork_exit()) while other
 * processes hold the forked ring: the kernel's task exit cancels only
 * the requests that hold a ring's file, and an armed TIMEOUT fires
 * after the task is gone. Its pure timers (no count, no link) are
 * handed to the in-flight table, whose sweepers post -ETIME when due
 * (fork.c); they end here without a CQE.
 */
void ar_timeout_hand_over(struct ar_uctx *ctx)
{
	struct ar_ureq *cur, *done = NULL, *next;
	struct ar_timeout *t;

	ar_ctx_lock(ctx);
	for (cur = ctx->inflight; cur; cur = cur->if_next) {
		t = ar_req_data(cur, struct ar_timeout);
		if (cur->opcode != IORING_OP_TIMEOUT || !cur->xslot || t->off ||
		    cur->link || ar_req_state(cur) != AR_REQ_ARMED ||
		    !ar_svc_disarm_locked(cur))
			continue;
		ar_xslot_timer_locked(ctx, cur, cur->deadline_ns);
		cur->flags |= AR_REQ_F_SKIP_CQE;
		cur->next = done;
		done = cur;
	}
	ar_ctx_unlock(ctx);
	for (cur = done; cur; cur = next) {
		next = cur->next;
		ar_req_complete(cur, 0, 0);
	}
}

/* The service thread found the timer due. */
void ar_timeout_fire(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;

	if (req->opcode == IORING_OP_LINK_TIMEOUT) {
		ar_link_timeout_fire(req);
		return;
	}
	ar_ctx_lock(ctx);
	ar_timeout_del_counted(ctx, req);
	ar_req_data(req, struct ar_timeout)->expired = true;
	ar_ctx_unlock(ctx);
	/* counted in cq_timeouts with its CQE (ar_timeout_count_locked()) */
	ar_req_complete(req, -ETIME, 0);
}

/*
 * TIMEOUT_REMOVE: without IORING_TIMEOUT_UPDATE a removal (also when only
 * IORING_LINK_TIMEOUT_UPDATE is set, as in the kernel); with it, an update
 * of a TIMEOUT, or of a LINK_TIMEOUT when LINK_TIMEOUT_UPDATE is set too.
 * An update takes no clock flags: the timeout keeps its own clock.
 */
int ar_timeout_remove_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_timeout_rem *r = ar_req_data(req, struct ar_timeout_rem);
	__u32 flags = sqe->timeout_flags;
	int ret;

	if (sqe->flags & (IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT))
		return -EINVAL;
	if (sqe->buf_index || sqe->len || sqe->splice_fd_in)
		return -EINVAL;
	r->addr = sqe->addr;
	r->flags = flags;
	if (flags & IORING_TIMEOUT_UPDATE_MASK) {
		if ((flags & IORING_TIMEOUT_CLOCK_MASK) == IORING_TIMEOUT_CLOCK_MASK)
			return -EINVAL;
		if (flags & ~(IORING_TIMEOUT_UPDATE_MASK | IORING_TIMEOUT_ABS))
			return -EINVAL;
		ret = ar_get_timespec(sqe->addr2, &r->ts_ns);
		if (ret)
			return ret;
	} else if (flags) {
		return -EINVAL;
	}
	return 0;
}

static struct ar_ureq *ar_find_timeout_locked(struct ar_uctx *ctx, __u8 op,
					      __u64 user_data)
{
	struct ar_ureq *req;

	ar_lockdep_assert_held(ctx);
	for (req = ctx->inflight; req; req = req->if_next)
		if (req->opcode == op && req->user_data == user_data &&
		    ar_req_state(req) == AR_REQ_ARMED && (req->flags & AR_REQ_F_TIMER))
			return req;
	return NULL;
}

/* re-arm with the new time on the timeout's own clock; a count no longer applies */
static int ar_timeout_update_locked(struct ar_uctx *ctx,
				    struct ar_timeout_rem *r)
{
	bool link = r->flags & IORING_LINK_TIMEOUT_UPDATE;
	struct ar_ureq *req = ar_find_timeout_locked(ctx,
		link ? IORING_OP_LINK_TIMEOUT : IORING_OP_TIMEOUT, r->addr);
	struct ar_timeout *t;

	ar_lockdep_assert_held(ctx);
	if (!req)
		return -ENOENT;
	t = ar_req_data(req, struct ar_timeout);
	ar_svc_disarm_locked(req);
	if (!link) {
		ar_timeout_del_counted(ctx, req);
		t->off = 0;
	}
	t->flags = (t->flags & ~IORING_TIMEOUT_ABS) |
		   (r->flags & IORING_TIMEOUT_ABS);
	t->rel_or_abs_ns = r->ts_ns;
	req->deadline_ns = ar_deadline(t->rel_or_abs_ns, t->flags, NULL);
	ar_svc_arm_timer_locked(req);
	return 0;
}

int ar_timeout_remove_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_timeout_rem *r = ar_req_data(req, struct ar_timeout_rem);
	struct ar_uctx *ctx = req->ctx;
	struct ar_ureq *t;

	(void)issue_flags;
	ar_ctx_lock(ctx);
	if (r->flags & IORING_TIMEOUT_UPDATE) {
		int ret = ar_timeout_update_locked(ctx, r);

		ar_ctx_unlock(ctx);
		if (!ret)
			ar_svc_kick(ctx);
		return ret;
	}
	t = ar_find_timeout_locked(ctx, IORING_OP_TIMEOUT, r->addr);
	if (t && !ar_timeout_extract_locked(ctx, t))
		t = NULL;
	ar_ctx_unlock(ctx);
	if (!t)
		return -ENOENT;
	/* the remove completes first, the removed timeout after it */
	ar_req_complete(req, 0, 0);
	ar_req_complete(t, -ECANCELED, 0);
	return AR_ISSUE_QUEUED;
}

/*
 * A LINK_TIMEOUT is armed by the request it guards and completed by it or
 * by its timer; it is never issued on its own unless its target failed at
 * submit, and then the chain is cancelled anyway.
 */
int ar_link_timeout_issue(struct ar_ureq *req, unsigned issue_flags)
{
	(void)req;
	(void)issue_flags;
	return -ECANCELED;
}

/* When a request with a LINK_TIMEOUT behind it is issued, start the timer. */
void ar_link_timeout_arm_slow(struct ar_ureq *req)
{
	struct ar_ureq *lt = req->link;
	struct ar_uctx *ctx = req->ctx;
	struct ar_timeout *t;
	int kick;

	if (!lt || lt->opcode != IORING_OP_LINK_TIMEOUT)
		return;
	req->flags &= ~AR_REQ_F_ARM_LT;
	if (ar_svc_prepare_timer(ctx))
		return;
	t = ar_req_data(lt, struct ar_timeout);
	ar_ctx_lock(ctx);
	req->lt = lt;
	*ar_lt_target(lt) = req;
	/*
	 * Until req waits where a cancel reaches it (or completes), a timer
	 * firing leaves the cancel to it (ar_link_timeout_fire()).
	 */
	ar_req_set_state(req, AR_REQ_ISSUING);
	/* the kernel never marks a link timeout failed (CQE_SKIP_SUCCESS holds) */
	lt->flags |= AR_REQ_F_NOFAIL;
	ar_req_set_state(lt, AR_REQ_ARMED);
	lt->deadline_ns = ar_deadline(t->rel_or_abs_ns, t->flags, NULL);
	/*
	 * Already due: in the kernel such a timer fires before the inline
	 * completion of its target is flushed and its cancel finds nothing
	 * (-ENOENT); the target's completion posts that (complete.c).
	 */
	if (lt->deadline_ns <= ar_now_ns())
		lt->flags |= AR_REQ_F_LT_EXPIRED;
	kick = ar_svc_arm_timer_locked(lt);
	ar_ctx_unlock(ctx);
	if (kick)
		ar_svc_kick(ctx);
}

/*
 * The guarded request completed first: stop the timer. Returns the link
 * timeout to be completed with -ECANCELED, or NULL if its timer already
 * fired. Under ctx->lock.
 */
struct ar_ureq *ar_link_timeout_disarm_locked(struct ar_ureq *req)
{
	struct ar_ureq *lt = req->lt;

	ar_lockdep_assert_held(req->ctx);
	req->lt = NULL;
	if (!lt)
		return NULL;
	*ar_lt_target(lt) = NULL;
	/*
	 * Stopped in time; or fired while req was being issued, which the
	 * kernel's timer, started only once req waits, never does: req
	 * completed first.
	 */
	if (ar_svc_disarm_locked(lt) || ar_req_data(lt, struct ar_timeout)->expired)
		return lt;
	/*
	 * The service thread took the timer and is about to fire it: it
	 * completes the link timeout (finding no target, -ETIME); the chain
	 * goes on from behind it.
	 */
	req->link = lt->link;
	lt->link = NULL;
	return NULL;
}

/*
 * The guarded request completed before it was issued, its link timeout
 * never armed: that link timeout, to be completed with -ECANCELED (its
 * CQE_SKIP_SUCCESS holds, as io_disarm_next() completes it without
 * failing it), or NULL. Under ctx->lock.
 */
struct ar_ureq *ar_link_timeout_unarmed_locked(struct ar_ureq *req)
{
	struct ar_ureq *lt = req->link;

	ar_lockdep_assert_held(req->ctx);
	req->flags &= ~AR_REQ_F_ARM_LT;
	if (!lt || lt->opcode != IORING_OP_LINK_TIMEOUT)
		return NULL;
	*ar_lt_target(lt) = NULL;
	lt->flags |= AR_REQ_F_NOFAIL;
	return lt;
}

/*
 * The link timeout expired with its target still in flight. ret is the
 * cancel's result: 0 when the target was taken out of where it waits,
 * then it completes -ECANCELED and the link timeout -ETIME; else the
 * link timeout completes with ret and the target runs on, as the
 * kernel's io_req_task_link_timeout. Under ctx->lock.
 */
static void ar_link_timeout_expire_locked(struct ar_uctx *ctx,
					  struct ar_ureq *lt,
					  struct ar_ureq *target, int ret,
					  struct ar_comp_batch *b)
{
	ar_lockdep_assert_held(ctx);
	/* unhook: the chain goes on from behind the link timeout */
	*ar_lt_target(lt) = NULL;
	target->lt = NULL;
	target->link = lt->link;
	lt->link = NULL;
	lt->res = ret ? ret : -ETIME;
	ar_complete_locked(ctx, lt, b);
	if (!ret) {
		target->res = -ECANCELED;
		ar_complete_locked(ctx, target, b);
	}
}

/* Has req's link timeout fired while req was being issued? Under ctx->lock. */
bool ar_link_timeout_expired_locked(const struct ar_ureq *req)
{
	ar_lockdep_assert_held(req->ctx);
	return req->lt && ar_req_data(req->lt, struct ar_timeout)->expired;
}

/*
 * req is about to wait: for readiness, a worker or its timer. If its
 * link timeout fired while it was being issued, the timeout's cancel
 * takes it here instead of where it would wait, as the kernel's would
 * once its timer, started only now, fired: true, and the link timeout
 * completed -ETIME, req -ECANCELED. Called under ctx->lock; when it
 * returns true it has dropped the lock.
 */
bool ar_link_timeout_park_locked(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_ureq *lt = req->lt;
	struct ar_comp_batch b;

	ar_lockdep_assert_held(req->ctx);
	if (!lt || !ar_req_data(lt, struct ar_timeout)->expired)
		return false;
	ar_batch_init(&b);
	ar_link_timeout_expire_locked(ctx, lt, req, 0, &b);
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, false);
	return true;
}

/*
 * req goes to a device (direct I/O, simdev), where no cancel reaches it:
 * block I/O in flight. If its link timeout fired while req was being
 * issued, the timeout's cancel finds nothing there, as the kernel's would
 * once its timer, started only now, fired: the link timeout completes
 * with -ENOENT now, not when req does, and req goes on without it. Called
 * under ctx->lock; drops it.
 */
void ar_link_timeout_park_device_locked(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_ureq *lt = req->lt;
	struct ar_comp_batch b;

	ar_lockdep_assert_held(req->ctx);
	if (!lt || !ar_req_data(lt, struct ar_timeout)->expired) {
		ar_ctx_unlock(ctx);
		return;
	}
	ar_batch_init(&b);
	ar_link_timeout_expire_locked(ctx, lt, req, -ENOENT, &b);
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, false);
}

/* The link timeout's timer fired: its target is cancelled, as the kernel's cancel would. */
void ar_link_timeout_fire(struct ar_ureq *lt)
{
	struct ar_uctx *ctx = lt->ctx;
	struct ar_comp_batch b;
	struct ar_ureq *target;
	int ret;

	ar_batch_init(&b);
	ar_ctx_lock(ctx);
	target = *ar_lt_target(lt);
	if (!target) {
		/* it completed as the timer fired: nothing to cancel */
		lt->res = -ETIME;
		ar_complete_locked(ctx, lt, &b);
	} else if (ar_req_state(target) == AR_REQ_ISSUING) {
		/*
		 * Being issued, where no cancel reaches it: it is cancelled
		 * where it next waits (ar_link_timeout_park_locked()), the
		 * link timeout completes -ENOENT as it goes to a device
		 * (ar_link_timeout_park_device_locked()), or it completes
		 * first and takes the link timeout with it
		 * (ar_link_timeout_disarm_locked()).
		 */
		ar_req_data(lt, struct ar_timeout)->expired = true;
	} else {
		ret = ar_cancel_extract_locked(target);
		/*
		 * The kernel's io_try_cancel goes on from io-wq's -EALREADY
		 * to the armed polls and timeouts, and reports what those
		 * found: nothing.
		 */
		if (ret == -EALREADY)
			ret = -ENOENT;
		/* a futex wait or WAITID ends by itself: the kernel's count */
		if (ret == AR_CANCEL_OWN_COUNT)
			ret = 1;
		ar_link_timeout_expire_locked(ctx, lt, target, ret, &b);
	}
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_batch_finish(ctx, &b, false);
}
