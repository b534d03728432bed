/* SPDX-License-Identifier: MIT */
/*
 * svc.c - the ring's service thread: the timers, and the readiness
 * nobody else reaps.
 *
 * TIMEOUT and LINK_TIMEOUT requests are timers here. Requests waiting for
 * a pollable file are armed in the readiness backend (poll.c), whose
 * epoll fd this thread sleeps on too: it reaps readiness when no thread
 * waiting in io_uring_enter did. The thread starts on first use, sleeps
 * in ppoll() on a wake eventfd and the epoll fd until the earliest timer,
 * and is joined at ring exit. The timer list is under ctx->lock.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "user/types.h"
#include "user/lock.h"
#include "user/submit.h"
#include "user/wait.h"
#include "user/svc.h"
#include "user/release.h"
#include "user/timeout.h"
#include "lib/thread.h"
#include "engine/engine.h"
#include "user/ringfd.h"
#include "user/poll.h"
#include "user/fork.h"

#define AR_SVC_REAP_GRACE_NS	20000	/* a waiter's head start */
#define AR_SVC_BLIND_NS		4000000	/* a look while a waiter reaps */

void ar_svc_kick(struct ar_uctx *ctx)
{
	uint64_t one = 1;

	if (ctx->svc.wake_fd >= 0)
		(void)!write(ctx->svc.wake_fd, &one, sizeof(one));
}

static void ar_svc_list_del(struct ar_ureq **head, struct ar_ureq *req)
{
	struct ar_ureq **pp;

	for (pp = head; *pp; pp = &(*pp)->svc_next) {
		if (*pp == req) {
			*pp = req->svc_next;
			req->svc_next = NULL;
			return;
		}
	}
}

/* take the fired timers; under ctx->lock */
static struct ar_ureq *ar_svc_collect(struct ar_uctx *ctx)
{
	struct ar_svc *svc = &ctx->svc;
	__u64 now = ar_now_ns();
	struct ar_ureq *req, *timers, **tail = &timers;

	while ((req = svc->timers) && req->deadline_ns <= now) {
		svc->timers = req->svc_next;
		req->svc_next = NULL;
		req->flags &= ~AR_REQ_F_TIMER;
		*tail = req;
		tail = &req->next;
	}
	*tail = NULL;
	return timers;
}

/*
 * Readiness came. A thread waiting in io_uring_enter sleeps on the epoll
 * fd too and reaps it itself, without a cross-thread hop: it gets a head
 * start, and this thread reaps only what it left (nobody entering: an
 * event loop on a registered eventfd or the ring fd, SQPOLL).
 */
static void ar_svc_reap(struct ar_uctx *ctx)
{
	struct timespec grace = { 0, AR_SVC_REAP_GRACE_NS };

	if (ar_poll_has_sleepers(ctx))
		nanosleep(&grace, NULL);
	ar_poll_reap(ctx);
}

/*
 * The epoll fd to sleep on: none while a waiter sleeps on it (it reaps,
 * and this thread would only wake with it); then the sleep is bounded,
 * to look again once that waiter may have gone.
 */
static int ar_svc_poll_fd(struct ar_uctx *ctx, struct timespec **tsp,
			  struct timespec *ts)
{
	if (!ar_poll_has_sleepers(ctx))
		return ar_poll_epfd(ctx);
	if (!*tsp || (*tsp)->tv_sec ||
	    (*tsp)->tv_nsec > AR_SVC_BLIND_NS) {
		ts->tv_sec = 0;
		ts->tv_nsec = AR_SVC_BLIND_NS;
		*tsp = ts;
	}
	return -1;
}

/*
 * The ring fd of a user ring is an eventfd, reset when the program is
 * seen about to poll with the CQ empty (ringfd.c; docs/semantics.md D1).
 * A program the trap serves that polls with raw system calls is not
 * seen: it would find the fd readable forever once its CQ is empty. For
 * such a ring (the trap on, its fd never seen going into an epoll set,
 * no libc poll seen in the process) a signalled ring fd gets a look from
 * the process's release thread (release.c ar_release_fdcheck(): one
 * thread for every ring), or this thread where there is none (TSan
 * builds): 1 ms later, then at doubling intervals (at most 64 ms)
 * while CQEs wait in the CQ; once the CQ is empty the fd is reset
 * (ar_user_cq_idle(), which signals again if a CQE came meanwhile). With
 * the CQ empty nothing is looked at: an idle ring costs nothing.
 */
#define AR_FDCHECK_FIRST_MS	1
#define AR_FDCHECK_MAX_MS	64

/* the ring fd was signalled: look at it later; any thread, no locks held */
void ar_svc_fdcheck(struct ar_uctx *ctx)
{
	struct ar_svc *svc = &ctx->svc;
	bool kick = false;

	/* the process's release thread looks, if there is one: no thread per ring */
	if ((ctx->flags & IORING_SETUP_DEFER_TASKRUN) || !ar_release_fdcheck(ctx) ||
	    ar_svc_start(ctx))
		return;
	ar_ctx_lock(ctx);
	if (!svc->fdcheck_ns) {
		svc->fdcheck_ms = AR_FDCHECK_FIRST_MS;
		svc->fdcheck_ns = ar_now_ns() + AR_FDCHECK_FIRST_MS * 1000000ULL;
		kick = !svc->timers || svc->timers->deadline_ns > svc->fdcheck_ns;
	}
	ar_ctx_unlock(ctx);
	if (kick)
		ar_svc_kick(ctx);
}

/* the look, when due: reset the fd if the CQ is empty, else look again later */
static void ar_svc_fdcheck_run(struct ar_uctx *ctx)
{
	struct ar_svc *svc = &ctx->svc;
	bool idle = false;
	__u64 now;

	ar_ctx_lock(ctx);
	now = ar_now_ns();
	if (svc->fdcheck_ns && svc->fdcheck_ns <= now) {
		/* acquire pairs with the posters' release of the CQ tail */
		idle = IO_URING_READ_ONCE(ctx->rings->cq.head) ==
		       io_uring_smp_load_acquire(&ctx->rings->cq.tail);
		if (idle) {
			svc->fdcheck_ns = 0;
		} else {
			if (svc->fdcheck_ms < AR_FDCHECK_MAX_MS)
				svc->fdcheck_ms *= 2;
			svc->fdcheck_ns = now + svc->fdcheck_ms * 1000000ULL;
		}
	}
	ar_ctx_unlock(ctx);
	if (idle)
		ar_user_cq_idle(ctx);
}

static void *ar_svc_main(void *arg)
{
	struct ar_uctx *ctx = arg;
	struct ar_svc *svc = &ctx->svc;
	struct ar_ureq *timers, *req, *next;
	struct pollfd fds[2];
	struct timespec ts, *tsp;
	uint64_t v;
	__u64 now, due;
	int n;

	fds[0].fd = svc->wake_fd;
	fds[0].events = POLLIN;
	fds[1].events = POLLIN;
	ar_ctx_lock(ctx);
	while (!svc->exiting) {
		/*
		 * Forked (a fork's prepare kicks this thread): the readiness
		 * backend, which watches the family's cancel eventfd. Its
		 * start kicks this thread, so the next look sleeps on it.
		 */
		if (__builtin_expect(ar_ring_forked(ctx), 0) &&
		    /* acquire pairs with the release in ar_poll_get() */
		    !__atomic_load_n(&svc->poll, __ATOMIC_ACQUIRE)) {
			ar_ctx_unlock(ctx);
			ar_poll_xcancel_ensure(ctx);
			ar_ctx_lock(ctx);
		}
		tsp = NULL;
		due = svc->timers ? svc->timers->deadline_ns : 0;
		if (svc->fdcheck_ns && (!due || svc->fdcheck_ns < due))
			due = svc->fdcheck_ns;
		if (due) {
			now = ar_now_ns();
			v = due > now ? due - now : 0;
			ts.tv_sec = (time_t)(v / 1000000000ULL);
			ts.tv_nsec = (long)(v % 1000000000ULL);
			tsp = &ts;
		}
		ar_ctx_unlock(ctx);
		/* the readiness backend, once made (ar_svc_kick() then) */
		fds[1].fd = ar_svc_poll_fd(ctx, &tsp, &ts);
		fds[1].revents = 0;
		n = ppoll(fds, 2, tsp, NULL);
		if (n > 0 && fds[0].revents)
			(void)!read(svc->wake_fd, &v, sizeof(v));
		else if (n < 0 && errno != EINTR)
			usleep(1000);	/* no busy loop */
		if (n > 0 && fds[1].revents)
			ar_svc_reap(ctx);
		ar_ctx_lock(ctx);
		timers = ar_svc_collect(ctx);
		ar_ctx_unlock(ctx);
		ar_svc_fdcheck_run(ctx);

		for (req = timers; req; req = next) {
			next = req->next;
			ar_timeout_fire(req);
		}
		ar_ctx_lock(ctx);
	}
	ar_ctx_unlock(ctx);
	return NULL;
}

/* start the thread on first use; called without ctx->lock */
int ar_svc_start(struct ar_uctx *ctx)
{
	struct ar_svc *svc = &ctx->svc;
	int ret = 0;

	pthread_mutex_lock(&svc->start_lock);
	if (svc->exiting) {
		ret = -ECANCELED;	/* the ring is gone */
	} else if (!svc->started) {
		svc->wake_fd = ar_internal_claim(ar_fd_high(eventfd(0, EFD_CLOEXEC |
								     EFD_NONBLOCK)));
		if (svc->wake_fd < 0) {
			ret = -errno;
		} else if (ar_thread_create(&svc->thread, ar_svc_main, ctx)) {
			ar_internal_close(svc->wake_fd);
			svc->wake_fd = -1;
			ret = -EAGAIN;
		} else {
			svc->started = true;
		}
	}
	pthread_mutex_unlock(&svc->start_lock);
	return ret;
}

/* Arm req's timer at req->deadline_ns; under ctx->lock. Kick after unlock. */
int ar_svc_arm_timer_locked(struct ar_ureq *req)
{
	struct ar_svc *svc = &req->ctx->svc;
	struct ar_ureq **pp;

	ar_lockdep_assert_held(req->ctx);
	for (pp = &svc->timers; *pp; pp = &(*pp)->svc_next)
		if ((*pp)->deadline_ns > req->deadline_ns)
			break;
	req->svc_next = *pp;
	*pp = req;
	req->flags |= AR_REQ_F_TIMER;
	return pp == &svc->timers;	/* the new earliest: kick the thread */
}

/* Take req off the armed lists; true if it was armed. Under ctx->lock. */
bool ar_svc_disarm_locked(struct ar_ureq *req)
{
	struct ar_svc *svc = &req->ctx->svc;

	ar_lockdep_assert_held(req->ctx);
	if (req->flags & AR_REQ_F_POLLED)
		return ar_poll_disarm_locked(req);
	if (req->flags & AR_REQ_F_TIMER) {
		ar_svc_list_del(&svc->timers, req);
		req->flags &= ~AR_REQ_F_TIMER;
		return true;
	}
	return false;
}

int ar_svc_prepare_timer(struct ar_uctx *ctx)
{
	return ar_svc_start(ctx);
}

void ar_svc_exit(struct ar_uctx *ctx)
{
	struct ar_svc *svc = &ctx->svc;

	bool started;

	/* both locks: the thread reads exiting under one, starters under the other */
	pthread_mutex_lock(&svc->start_lock);
	ar_ctx_lock(ctx);
	svc->exiting = true;
	ar_ctx_unlock(ctx);
	started = svc->started;
	pthread_mutex_unlock(&svc->start_lock);
	if (started) {
		ar_svc_kick(ctx);
		pthread_join(svc->thread, NULL);
		ar_internal_close(svc->wake_fd);
	}
	ar_poll_exit(ctx);
}
