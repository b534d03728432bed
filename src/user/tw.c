/* SPDX-License-Identifier: MIT */
/*
 * tw.c - where completion work runs (the complete= policy, docs/policies.md).
 *
 * A request that finishes outside the ring's own task (in an io-wq worker,
 * the service thread, a device thread) either posts its CQE there
 * (inline), or goes on the ring's lock-free task list (the kernel's
 * io_req_local_work_add):
 *   deferred  the ring's task posts the list when it enters or waits, all
 *             of it under one CQ lock; a waiter is woken only when the
 *             list plus the CQ reach what it waits for; IORING_SQ_TASKRUN
 *             tells liburing to enter;
 *   punt      a per-ring completion thread posts it (one more thread
 *             handoff per completion: the baseline the others are
 *             measured against).
 * The ring's task is the thread inside io_uring_enter on the ring
 * (ar_tw_current); its own completions always post directly.
 */
#include <errno.h>
#include <stdlib.h>
#include "lib/wake.h"
#include "user/types.h"
#include "user/lock.h"
#include "user/complete.h"
#include "user/tw.h"
#include "user/poll.h"
#include "user/wait.h"
#include "user/waitq.h"
#include "lib/thread.h"

__thread struct ar_uctx *ar_tw_current;

struct ar_punt {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_bool sleeping;
	bool exit;			/* under lock */
	bool joined;
};

static bool ar_tw_flag(struct ar_uctx *ctx)
{
	return !(ctx->flags & IORING_SETUP_DEFER_TASKRUN) ||
	       (ctx->flags & IORING_SETUP_TASKRUN_FLAG);
}

static void ar_punt_kick(struct ar_uctx *ctx)
{
	struct ar_punt *pt = ctx->punt;

	/*
	 * The waker's step 3 of wake.h (punt thread): the caller made its
	 * barrier after the push or the in_submit decrement; pairs with
	 * ar_wake_flag_raise() in the thread before it re-checks the list
	 * and in_submit, so either it sees the work or we see it asleep.
	 * Taking the lock orders us after its check; the signal is sent
	 * with the lock dropped.
	 */
	if (!ar_wake_flag_up(&pt->sleeping))
		return;
	pthread_mutex_lock(&pt->lock);
	pthread_mutex_unlock(&pt->lock);
	pthread_cond_signal(&pt->cond);
}

/*
 * IORING_SQ_TASKRUN comes down for what the caller is about to run: the
 * task list, or (list_waits) a DEFER_TASKRUN ring's readiness, its
 * p->deferred already lowered. It goes up again for the other kind if
 * that is still waiting: a pusher that finds the list non-empty does not
 * raise it, nor does a readiness told before. seq_cst RMW, then seq_cst
 * loads: pairs with the push's seq_cst CAS (before its raise, an RMW on
 * sq_flags after this one's or before it) and with ar_poll_tell_task()'s
 * seq_cst store of deferred (before its raise), so either this sees the
 * work or its raise comes after this clear.
 */
void ar_tw_flag_settle(struct ar_uctx *ctx, bool list_waits)
{
	__atomic_fetch_and(&ctx->rings->sq_flags, ~IORING_SQ_TASKRUN,
			   __ATOMIC_SEQ_CST);
	if ((list_waits &&
	     atomic_load_explicit(&ctx->tw_head, memory_order_seq_cst)) ||
	    ar_poll_deferred(ctx))
		__atomic_fetch_or(&ctx->rings->sq_flags, IORING_SQ_TASKRUN,
				  __ATOMIC_SEQ_CST);
}

/* Queue a finished request (res, cflags set); false: post it inline. */
bool ar_tw_add(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_ureq *old;
	bool async;

	if (ar_req_state(req) == AR_REQ_RUNNING)
		req->flags |= AR_REQ_F_ASYNC_DONE;
	/* read now: once pushed, the request is the ring's task's */
	async = req->flags & AR_REQ_F_ASYNC_DONE;
	/* finished: a cancel no longer finds it running */
	ar_req_set_state(req, AR_REQ_DONE);
	old = atomic_load_explicit(&ctx->tw_head, memory_order_relaxed);
	do {
		req->next = old;
		/*
		 * seq_cst: the waker's step 1 of wake.h (task work), an RMW;
		 * its release half publishes the request's fields to the
		 * runner's acquire exchange.
		 */
	} while (!atomic_compare_exchange_weak_explicit(&ctx->tw_head, &old, req,
							memory_order_seq_cst,
							memory_order_relaxed));
	/* read by wakers judging a wake (ar_should_wake()), a count only */
	atomic_fetch_add_explicit(&ctx->tw_nr, 1, memory_order_relaxed);
	/*
	 * Step 2 after the push; its looks below (the punt thread's flag,
	 * in_submit, cq_waiters, and the CQ tail in ar_should_wake()) pair
	 * with ar_wake_flag_raise() in ar_punt_thread(), the barrier in
	 * ar_tw_submit_end(), ar_wake_sleeper_add() in ar_waitq_add() and
	 * ar_wake_mb() in ar_cqring_wait_loop().
	 */
	ar_wake_mb_after_rmw();
	if (ctx->punt) {
		ar_stat_add(ctx, worker_handoffs, 1);
		ar_punt_kick(ctx);
		return true;
	}
	if (__atomic_load_n(&ctx->pol.complete, __ATOMIC_RELAXED) ==
	    ANYRING_COMPLETE_INLINE) {
		/*
		 * Queued only because a submit is being issued: its thread
		 * posts this when done. Step 3 (submit end): pairs with the
		 * barrier after its decrement of in_submit before it looks at
		 * the list: if it is done already, post it here.
		 */
		if (!atomic_load_explicit(&ctx->in_submit, memory_order_relaxed))
			ar_tw_run(ctx);
		return true;
	}
	/*
	 * The list went non-empty: IORING_SQ_TASKRUN makes liburing enter to
	 * run it. As the kernel, a DEFER_TASKRUN ring shows the flag only
	 * with IORING_SETUP_TASKRUN_FLAG (its CQEs wait for a GETEVENTS).
	 */
	if (!old && ar_tw_flag(ctx))
		__atomic_fetch_or(&ctx->rings->sq_flags, IORING_SQ_TASKRUN,
				  __ATOMIC_RELEASE);
	/*
	 * An event loop polling the ring fd or a registered eventfd learns
	 * of the work now, as from the kernel when it queues task work; the
	 * CQEs come when the ring's task runs the list.
	 */
	if (!old)
		ar_ring_signal(ctx, async);
	/*
	 * complete=single: as the kernel's task_work_add() before seed 001,
	 * every completion wakes the task, which posts it and looks again
	 */
	if (ar_wake_has_sleepers(&ctx->cq_waiters))
		ar_waitq_wake(ctx, __atomic_load_n(&ctx->pol.complete,
						   __ATOMIC_RELAXED) ==
				   ANYRING_COMPLETE_SINGLE);
	return true;
}

/*
 * complete=single, the baseline of seed 001: the list taken is posted
 * one request at a time, each under its own CQ lock and followed by its
 * own wakeups and eventfd signal, as each task_work item ran before
 * the patch batched them. In arrival order, as the kernel's FIFO
 * task_work list (behind whatever else was queued first).
 */
static unsigned ar_tw_run_single(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_ureq *next;
	struct ar_comp_batch b;
	unsigned n = 0;

	for (; req; req = next, n++) {
		next = req->next;
		ar_batch_init(&b);
		ar_ctx_lock(ctx);
		ar_complete_locked(ctx, req, &b);
		ar_complete_timeouts_locked(ctx, &b);
		ar_ctx_unlock(ctx);
		ar_batch_finish(ctx, &b, !!(req->flags & AR_REQ_F_ASYNC_DONE));
		ar_stat_add(ctx, tw_batches, 1);
		ar_stat_add(ctx, tw_items, 1);
	}
	return n;
}

/* ar_tw_run() found the list non-empty: post it all (complete.h) */
unsigned ar_tw_run_list(struct ar_uctx *ctx)
{
	struct ar_ureq *list, *req, *prev = NULL, *next;
	struct ar_comp_batch b;
	bool from_worker = false;
	unsigned n = 0;

	/* cleared before the list is taken: a push after it sets it again */
	if (!ctx->punt && ar_tw_flag(ctx))
		ar_tw_flag_settle(ctx, false);
	ar_batch_init(&b);
	/*
	 * The list is taken under the CQ lock: two runners (the punt
	 * thread and the ring's task) post their lists in the order they
	 * took them, so work pushed first is posted first.
	 */
	ar_ctx_lock(ctx);
	/*
	 * acquire pairs with the pushers' seq_cst CAS: their requests are
	 * written; seq_cst keeps it after the flag's clear above
	 */
	list = atomic_exchange_explicit(&ctx->tw_head, NULL, memory_order_seq_cst);
	for (req = list; req; req = next) {	/* the list is LIFO: reverse it */
		next = req->next;
		req->next = prev;
		prev = req;
		n++;
	}
	atomic_fetch_sub_explicit(&ctx->tw_nr, (int)n, memory_order_relaxed);
	if (__atomic_load_n(&ctx->pol.complete, __ATOMIC_RELAXED) ==
	    ANYRING_COMPLETE_SINGLE) {
		ar_ctx_unlock(ctx);
		return ar_tw_run_single(ctx, prev);
	}
	for (req = prev; req; req = next) {
		next = req->next;
		from_worker |= !!(req->flags & AR_REQ_F_ASYNC_DONE);
		ar_complete_locked(ctx, req, &b);
	}
	ar_complete_timeouts_locked(ctx, &b);
	ar_ctx_unlock(ctx);
	ar_stat_add(ctx, tw_batches, 1);
	ar_stat_add(ctx, tw_items, n);
	if (n > __atomic_load_n(&ctx->stats.tw_max_batch, __ATOMIC_RELAXED))
		__atomic_store_n(&ctx->stats.tw_max_batch, n, __ATOMIC_RELAXED);
	ar_batch_finish(ctx, &b, from_worker);
	return n;
}

static void *ar_punt_thread(void *arg)
{
	struct ar_uctx *ctx = arg;
	struct ar_punt *pt = ctx->punt;
	bool exit = false;

	ar_tw_current = ctx;
	while (!exit) {
		/*
		 * A submit being issued posts its own completions first. A
		 * hint (relaxed): the look after the flag is raised decides.
		 */
		if (!atomic_load_explicit(&ctx->in_submit, memory_order_relaxed) &&
		    ar_tw_run(ctx))
			continue;
		pthread_mutex_lock(&pt->lock);
		/*
		 * The sleeper's steps 1 and 2 of wake.h (punt thread), then
		 * its look at the work; pairs with the barrier after the push
		 * in ar_tw_add() and after the decrement in ar_tw_submit_end(),
		 * each followed by ar_punt_kick()'s look at the flag.
		 */
		ar_wake_flag_raise(&pt->sleeping);
		if (!pt->exit && (!atomic_load_explicit(&ctx->tw_head,
							memory_order_relaxed) ||
				  atomic_load_explicit(&ctx->in_submit,
						       memory_order_relaxed)))
			pthread_cond_wait(&pt->cond, &pt->lock);
		ar_wake_flag_lower(&pt->sleeping);
		exit = pt->exit;
		pthread_mutex_unlock(&pt->lock);
	}
	ar_tw_run(ctx);
	return NULL;
}

static int ar_punt_start(struct ar_uctx *ctx)
{
	struct ar_punt *pt = calloc(1, sizeof(*pt));
	int ret;

	if (!pt)
		return -ENOMEM;
	pthread_mutex_init(&pt->lock, NULL);
	pthread_cond_init(&pt->cond, NULL);
	ctx->punt = pt;
	ret = ar_thread_create(&pt->tid, ar_punt_thread, ctx);
	if (ret) {
		ctx->punt = NULL;
		pthread_cond_destroy(&pt->cond);
		pthread_mutex_destroy(&pt->lock);
		free(pt);
		return -ret;
	}
	return 0;
}

/*
 * Stop the completion thread. Its memory stays until ar_punt_free(): a
 * completing thread may still be kicking it (a kick finds it not asleep
 * and does nothing; what it queued is posted by ar_tw_exit()).
 */
void ar_tw_stop_punt(struct ar_uctx *ctx)
{
	struct ar_punt *pt = ctx->punt;

	if (!pt || pt->joined)
		return;
	pthread_mutex_lock(&pt->lock);
	pt->exit = true;
	pthread_mutex_unlock(&pt->lock);
	pthread_cond_signal(&pt->cond);
	pthread_join(pt->tid, NULL);
	pt->joined = true;
}

/* with nothing in flight, or at ring exit */
static void ar_punt_free(struct ar_uctx *ctx)
{
	struct ar_punt *pt = ctx->punt;

	if (!pt)
		return;
	ar_tw_stop_punt(ctx);
	ctx->punt = NULL;
	pthread_cond_destroy(&pt->cond);
	pthread_mutex_destroy(&pt->lock);
	free(pt);
}

/*
 * A thread finished issuing a submit: the completions other threads
 * queued meanwhile go out now (complete=inline: posted here; punt: the
 * completion thread; deferred, single: they wait for the ring's task
 * anyway).
 */
void ar_tw_submit_end_run(struct ar_uctx *ctx)
{
	if (ctx->punt)
		ar_punt_kick(ctx);
	else if (__atomic_load_n(&ctx->pol.complete, __ATOMIC_RELAXED) ==
		 ANYRING_COMPLETE_INLINE)
		ar_tw_run(ctx);
}

/*
 * Switch the complete= policy; the caller made sure nothing is in flight,
 * so no completion races the switch.
 */
int ar_tw_set_policy(struct ar_uctx *ctx, unsigned complete)
{
	int ret = 0;

	if (complete == ANYRING_COMPLETE_PUNT && !ctx->punt)
		ret = ar_punt_start(ctx);
	else if (complete != ANYRING_COMPLETE_PUNT)
		ar_punt_free(ctx);
	if (!ret)
		__atomic_store_n(&ctx->pol.complete, (unsigned char)complete,
				 __ATOMIC_RELAXED);
	return ret;
}

/* Ring exit, after every other completing thread is gone: post the rest. */
void ar_tw_exit(struct ar_uctx *ctx)
{
	struct ar_uctx *saved = ar_tw_current;

	ar_punt_free(ctx);
	ar_tw_current = ctx;
	while (ar_tw_run(ctx))
		;
	__atomic_store_n(&ctx->tw_closed, true, __ATOMIC_RELAXED);
	ar_tw_current = saved;
}
