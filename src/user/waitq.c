/* SPDX-License-Identifier: MIT */
/*
 * waitq.c - the CQ wait queue (the kernel's ctx->cq_wait with
 * io_wake_function): each thread waiting on a ring is a waiter with its
 * own eventfd, queued on the ring with the CQ tail it waits for. Posting
 * CQEs wakes only the waiters whose target is reached (or whose wait must
 * end for another reason: a timeout completed), as io_should_wake does.
 *
 * A waiter sleeps in ppoll() on its eventfd: the sigmask is applied
 * atomically, and a signal handler always ends the wait with -EINTR (ppoll
 * is never restarted, SA_RESTART or not), as io_uring_enter behaves.
 *
 * Waiters are per thread and refcounted: a waker holds a reference while
 * it writes to the eventfd, so a thread that exits meanwhile does not have
 * its fd closed (and reused) under the write. wait_lock is never held
 * across a system call.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "lib/wake.h"
#include "user/types.h"
#include "user/complete.h"
#include "user/wait.h"
#include "user/waitq.h"
#include "user/fork.h"
#include "engine/engine.h"

#define AR_WAKE_BATCH	16

static pthread_key_t ar_waiter_key;
static pthread_once_t ar_waiter_once = PTHREAD_ONCE_INIT;
static __thread struct ar_waiter *ar_self;

void ar_waiter_get(struct ar_waiter *w)
{
	/* relaxed: the caller holds a reference already (a thread's own) */
	atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
}

void ar_waiter_put(struct ar_waiter *w)
{
	if (atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1)
		return;
	ar_internal_close(w->efd);
	free(w);
}

/* thread exit: drop the thread's own reference */
static void ar_waiter_dtor(void *arg)
{
	ar_waiter_put(arg);
}

/*
 * A forked child's thread has the forking thread's waiter, whose eventfd
 * is the parent's file: a wakeup for one would be read by the other. The
 * child's copy goes: what still names it are the child's copies of the
 * parent's wait queues and readiness owners, which the child drops
 * unread (fork.c).
 */
static void ar_waiter_atfork_child(void)
{
	if (!ar_self)
		return;
	ar_internal_close(ar_self->efd);
	free(ar_self);
	ar_self = NULL;
	pthread_setspecific(ar_waiter_key, NULL);
}

static void ar_waiter_key_init(void)
{
	pthread_key_create(&ar_waiter_key, ar_waiter_dtor);
	pthread_atfork(NULL, NULL, ar_waiter_atfork_child);
}

/* this thread's waiter, made on first use; NULL without memory or fds */
struct ar_waiter *ar_waiter_self(void)
{
	struct ar_waiter *w = ar_self;

	if (w)
		return w;
	pthread_once(&ar_waiter_once, ar_waiter_key_init);
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->efd = ar_internal_claim(ar_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)));
	if (w->efd < 0) {
		free(w);
		return NULL;
	}
	atomic_init(&w->refs, 1);
	ar_self = w;
	pthread_setspecific(ar_waiter_key, w);
	return w;
}

void ar_waitq_add(struct ar_uctx *ctx, struct ar_waiter *w)
{
	pthread_mutex_lock(&ctx->wait_lock);
	w->next = ctx->waitq;
	ctx->waitq = w;
	/*
	 * The sleeper's steps 1 and 2 of wake.h: its look at the CQ
	 * (ar_wait_done()) comes after; pairs with ar_wake_mb() in
	 * ar_cq_wake() after a post and ar_wake_mb_after_rmw() in
	 * ar_tw_add() after a push.
	 */
	ar_wake_sleeper_add(&ctx->cq_waiters);
	/*
	 * The same for posters of other processes (fork.c): pairs with
	 * ar_wake_mb() in ar_cq_wake() before its look at xsleep.
	 */
	w->xcounted = ar_ring_forked(ctx);
	if (w->xcounted) {
		w->xep = ar_xsleeper_add(w);
		ar_xsleep_add(ctx);
	}
	pthread_mutex_unlock(&ctx->wait_lock);
}

/* a waiter on the queue when its ring was first forked counts for other processes now */
void ar_waitq_xcount(struct ar_uctx *ctx, struct ar_waiter *w)
{
	pthread_mutex_lock(&ctx->wait_lock);
	if (!w->xcounted) {
		w->xcounted = true;
		w->xep = ar_xsleeper_add(w);
		ar_xsleep_add(ctx);
	}
	pthread_mutex_unlock(&ctx->wait_lock);
}

void ar_waitq_del(struct ar_uctx *ctx, struct ar_waiter *w)
{
	struct ar_waiter **pp;

	pthread_mutex_lock(&ctx->wait_lock);
	for (pp = &ctx->waitq; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	ar_wake_sleeper_del(&ctx->cq_waiters);
	if (w->xcounted) {
		ar_xsleep_del(ctx);
		ar_xsleeper_del(w);
	}
	pthread_mutex_unlock(&ctx->wait_lock);
}

void ar_waitq_retarget(struct ar_uctx *ctx, struct ar_waiter *w,
		       unsigned target)
{
	pthread_mutex_lock(&ctx->wait_lock);
	w->target = target;
	pthread_mutex_unlock(&ctx->wait_lock);
}

/* io_should_wake: the CQ tail reached the target, or a timeout completed */
static bool ar_should_wake(struct ar_uctx *ctx, struct ar_waiter *w)
{
	/*
	 * The waker's step 3 of wake.h (task work vs a waiter): the caller
	 * made its barrier after its post or push, which pairs with
	 * ar_wake_mb() before a waiter's last look at the task list
	 * (ar_cqring_wait_loop()): we see the CQEs it posted, or it sees
	 * our work. Acquire pairs with the poster's release of the tail.
	 */
	unsigned tail = __atomic_load_n(&ctx->rings->cq.tail, __ATOMIC_ACQUIRE);

	/*
	 * complete=deferred: queued completions count, the waiter posts
	 * them (complete=single wakes it for each anyway: ar_tw_add())
	 */
	if (__atomic_load_n(&ctx->pol.complete, __ATOMIC_RELAXED) ==
	    ANYRING_COMPLETE_DEFERRED)
		tail += (unsigned)atomic_load_explicit(&ctx->tw_nr,
						       memory_order_relaxed);

	/*
	 * CQEs parked on the overflow list wake it too: a poster that found
	 * the CQ full a moment before the waiter emptied it does not move the
	 * tail, and only the waiter's flush brings them in. The poster's
	 * fence in ar_cq_wake() orders its append before this check.
	 */
	return (int)(tail - w->target) >= 0 || w->force ||
	       __atomic_load_n(&ar_sh(ctx)->cq_timeouts, __ATOMIC_RELAXED) != w->nr_timeouts ||
	       ar_cq_overflowed(ctx);
}

/* Wake the waiters whose wait is over; the caller saw cq_waiters > 0. */
void ar_waitq_wake(struct ar_uctx *ctx, bool all)
{
	struct ar_waiter *stack[AR_WAKE_BATCH], **batch = stack, *w;
	unsigned n = 0, cap = AR_WAKE_BATCH, i;
	uint64_t one = 1;

	/* wake=every: each waiter rechecks on every post */
	if (__atomic_load_n(&ctx->pol.wake, __ATOMIC_RELAXED) == ANYRING_WAKE_EVERY)
		all = true;
	pthread_mutex_lock(&ctx->wait_lock);
	/* more waiters than the stack holds (many threads on one ring): rare */
	if (atomic_load_explicit(&ctx->cq_waiters, memory_order_relaxed) > cap) {
		cap = atomic_load_explicit(&ctx->cq_waiters, memory_order_relaxed);
		batch = malloc(cap * sizeof(*batch));
		if (!batch) {
			batch = stack;
			cap = AR_WAKE_BATCH;
		}
	}
	for (w = ctx->waitq; w && n < cap; w = w->next) {
		/* a waiter posting task work itself rechecks before it sleeps */
		if (w == ar_self || (!all && !ar_should_wake(ctx, w)))
			continue;
		atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
		batch[n++] = w;
	}
	pthread_mutex_unlock(&ctx->wait_lock);
	for (i = 0; i < n; i++) {
		(void)!write(batch[i]->efd, &one, sizeof(one));
		ar_waiter_put(batch[i]);
	}
	if (batch != stack)
		free(batch);
}

/*
 * The time left until the CLOCK_MONOTONIC deadline (0: none) into *ts:
 * 1 with it, 0 without one, -ETIMEDOUT once it passed.
 */
static int ar_sleep_ts(__u64 deadline_ns, struct timespec *ts)
{
	__u64 now;

	if (!deadline_ns)
		return 0;
	now = ar_now_ns();
	if (now >= deadline_ns)
		return -ETIMEDOUT;
	/* a deadline centuries away (a saturated timeout) is no deadline */
	if (deadline_ns - now >= (1ULL << 62))
		return 0;
	ts->tv_sec = (time_t)((deadline_ns - now) / 1000000000ULL);
	ts->tv_nsec = (long)((deadline_ns - now) % 1000000000ULL);
	return 1;
}

/*
 * Sleep until woken, the CLOCK_MONOTONIC deadline (0: none) passes
 * (-ETIMEDOUT) or a signal handler runs (-EINTR); sigmask as in ppoll.
 * xfd, xfd2 and xfd3 (-1: none) wake it too: backend completions,
 * readiness, other processes' posts (*xfd3_ready: it polled readable).
 */
int ar_waiter_sleep(struct ar_waiter *w, __u64 deadline_ns,
		    const sigset_t *sigmask, int xfd, int xfd2, int xfd3,
		    bool *xfd3_ready)
{
	struct pollfd pfd[4] = {
		{ .fd = w->efd, .events = POLLIN },
		{ .fd = xfd, .events = POLLIN },	/* ignored when -1 */
		{ .fd = xfd2, .events = POLLIN },
		{ .fd = xfd3, .events = POLLIN },
	};
	struct timespec ts, *tsp = NULL;
	uint64_t v;
	int e = errno, ret;

	ret = ar_sleep_ts(deadline_ns, &ts);
	if (ret < 0)
		return ret;
	if (ret)
		tsp = &ts;
	ret = ppoll(pfd, xfd3 >= 0 ? 4 : xfd2 >= 0 ? 3 : xfd >= 0 ? 2 : 1,
		    tsp, sigmask);
	if (ret < 0) {
		ret = errno == EINTR ? -EINTR : -errno;
	} else if (ret == 0) {
		ret = -ETIMEDOUT;
	} else {
		if (pfd[0].revents)
			(void)!read(w->efd, &v, sizeof(v));
		if (xfd3 >= 0 && pfd[3].revents)
			*xfd3_ready = true;
		ret = 0;
	}
	errno = e;
	return ret;
}

/*
 * The same sleep in epoll_pwait2() on a ring's epoll fd whose set holds
 * the waiter's eventfd (poll.c): one call sleeps and reaps. The events
 * into evs: how many, or -ETIMEDOUT, -EINTR (never restarted, as ppoll),
 * -errno. The sigmask is applied atomically, as ppoll's.
 */
int ar_waiter_sleep_epoll(__u64 deadline_ns, const sigset_t *sigmask,
			  int epfd, struct epoll_event *evs, int max)
{
	struct timespec ts;
	int e = errno, ret;

	ret = ar_sleep_ts(deadline_ns, &ts);
	if (ret < 0)
		return ret;
	ret = epoll_pwait2(epfd, evs, max, ret ? &ts : NULL, sigmask);
	if (ret < 0)
		ret = -errno;
	else if (ret == 0)
		ret = -ETIMEDOUT;
	errno = e;
	return ret;
}

/* the waiter's eventfd was written: reset it */
void ar_waiter_drain(struct ar_waiter *w)
{
	uint64_t v;
	int e = errno;

	(void)!read(w->efd, &v, sizeof(v));
	errno = e;
}
