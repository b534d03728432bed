/* SPDX-License-Identifier: MIT */
/*
 * svc.c - the ring's service thread: the readiness reactor and the timer.
 *
 * A request that would block on a pipe, socket or other pollable file is
 * armed here (the kernel's FAST_POLL) instead of tying up a worker; when
 * the file is ready the request is issued again. TIMEOUT and LINK_TIMEOUT
 * requests are timers here. The thread starts on first use, sleeps in
 * ppoll() on the armed fds plus a wake eventfd until the earliest timer,
 * and is joined at ring exit. The armed lists are under ctx->lock.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "user/types.h"
#include "user/submit.h"
#include "user/wait.h"
#include "user/svc.h"
#include "user/ops/timeout.h"
#include "user/util.h"

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

/*
 * Snapshot the armed polls into the pollfd array; under ctx->lock. The
 * thread polls the snapshot without the lock; a request leaving the
 * armed set meanwhile (ar_svc_disarm_locked()) clears its entry in
 * svc->reqs, so the snapshot never names a request that may have
 * completed and been reused since.
 */
static int ar_svc_build(struct ar_svc *svc)
{
	struct ar_ureq *req;
	unsigned n = 1;

	for (req = svc->polls; req; req = req->svc_next)
		n++;
	if (n > svc->cap) {
		struct pollfd *fds = realloc(svc->fds, n * sizeof(*fds));
		struct ar_ureq **reqs = realloc(svc->reqs, n * sizeof(*reqs));

		if (fds)
			svc->fds = fds;
		if (reqs)
			svc->reqs = reqs;
		if (!fds || !reqs)
			return -ENOMEM;
		svc->cap = n;
	}
	svc->fds[0].fd = svc->wake_fd;
	svc->fds[0].events = POLLIN;
	n = 1;
	for (req = svc->polls; req; req = req->svc_next, n++) {
		svc->fds[n].fd = req->fd;
		svc->fds[n].events = req->poll_events;
		svc->fds[n].revents = 0;
		svc->reqs[n] = req;
	}
	svc->nfds = n;
	return 0;
}

/* take what is due: fired timers and ready polls; under ctx->lock */
static void ar_svc_collect(struct ar_uctx *ctx, struct ar_ureq **timers,
			   struct ar_ureq **ready)
{
	struct ar_svc *svc = &ctx->svc;
	__u64 now = ar_now_ns();
	struct ar_ureq *req, **tail = timers;
	unsigned i;

	while ((req = svc->timers) && req->deadline_ns <= now) {
		svc->timers = req->svc_next;
		req->svc_next = NULL;
		req->flags &= ~AR_REQ_F_TIMER;
		*tail = req;
		tail = &req->next;
	}
	*tail = NULL;
	tail = ready;
	for (i = 1; i < svc->nfds; i++) {
		req = svc->reqs[i];
		/* NULL: disarmed (cancelled) since the snapshot */
		if (!req || !svc->fds[i].revents)
			continue;
		ar_svc_list_del(&svc->polls, req);
		req->flags &= ~AR_REQ_F_POLLED;
		/* issued again by this thread: no cancel reaches it until it waits */
		ar_req_set_state(req, AR_REQ_ISSUING);
		*tail = req;
		tail = &req->next;
	}
	*tail = NULL;
}

static void *ar_svc_main(void *arg)
{
	struct ar_uctx *ctx = arg;
	struct ar_svc *svc = &ctx->svc;
	struct ar_ureq *timers, *ready, *req, *next;
	struct timespec ts, *tsp;
	uint64_t v;
	__u64 now;
	int n;

	ar_spin_lock(&ctx->lock);
	while (!svc->exiting) {
		if (ar_svc_build(svc))
			svc->nfds = 1;	/* out of memory: keep timers going */
		tsp = NULL;
		if (svc->timers) {
			now = ar_now_ns();
			v = svc->timers->deadline_ns > now ?
			    svc->timers->deadline_ns - now : 0;
			ts.tv_sec = (time_t)(v / 1000000000ULL);
			ts.tv_nsec = (long)(v % 1000000000ULL);
			tsp = &ts;
		}
		ar_spin_unlock(&ctx->lock);
		n = ppoll(svc->fds, svc->nfds, tsp, NULL);
		if (n > 0 && svc->fds[0].revents)
			(void)!read(svc->wake_fd, &v, sizeof(v));
		else if (n < 0 && errno != EINTR)
			usleep(1000);	/* (too many fds armed) no busy loop */
		ar_spin_lock(&ctx->lock);
		ar_svc_collect(ctx, &timers, &ready);
		ar_spin_unlock(&ctx->lock);

		for (req = timers; req; req = next) {
			next = req->next;
			ar_timeout_fire(req);
		}
		for (req = ready; req; req = next) {
			next = req->next;
			ar_req_issue(req, AR_ISSUE_NONBLOCK);
		}
		ar_spin_lock(&ctx->lock);
	}
	ar_spin_unlock(&ctx->lock);
	return NULL;
}

/* start the thread on first use; called without ctx->lock */
static int ar_svc_start(struct ar_uctx *ctx)
{
	struct ar_svc *svc = &ctx->svc;
	int ret = 0;

	pthread_mutex_lock(&svc->start_lock);
	if (svc->exiting) {
		ret = -ECANCELED;	/* the ring is gone */
	} else if (!svc->started) {
		svc->wake_fd = ar_internal_claim(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
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

/* Wait for fd readiness, then issue again. 0, or an error: use a worker. */
int ar_svc_arm_poll(struct ar_ureq *req, short events)
{
	struct ar_uctx *ctx = req->ctx;

	if (ar_svc_start(ctx))
		return -EAGAIN;
	ar_spin_lock(&ctx->lock);
	if (ar_link_timeout_park_locked(req))
		return 0;	/* its link timeout cancelled it instead */
	req->poll_events = events;
	ar_req_set_state(req, AR_REQ_ARMED);
	req->flags |= AR_REQ_F_POLLED;
	req->svc_next = ctx->svc.polls;
	ctx->svc.polls = req;
	ar_spin_unlock(&ctx->lock);
	ar_svc_kick(ctx);
	return 0;
}

/* Arm req's timer at req->deadline_ns; under ctx->lock. Kick after unlock. */
int ar_svc_arm_timer_locked(struct ar_ureq *req)
{
	struct ar_svc *svc = &req->ctx->svc;
	struct ar_ureq **pp;

	for (pp = &svc->timers; *pp; pp = &(*pp)->svc_next)
		if ((*pp)->deadline_ns > req->deadline_ns)
			break;
	req->svc_next = *pp;
	*pp = req;
	req->flags |= AR_REQ_F_TIMER;
	return pp == &svc->timers;	/* the new earliest: kick the thread */
}

/* req is no longer armed: out of the thread's snapshot too (ar_svc_build()) */
static void ar_svc_snapshot_del(struct ar_svc *svc, struct ar_ureq *req)
{
	unsigned i;

	for (i = 1; i < svc->nfds; i++) {
		if (svc->reqs[i] == req) {
			svc->reqs[i] = NULL;
			return;
		}
	}
}

/* Take req off the armed lists; true if it was armed. Under ctx->lock. */
bool ar_svc_disarm_locked(struct ar_ureq *req)
{
	struct ar_svc *svc = &req->ctx->svc;

	if (req->flags & AR_REQ_F_POLLED) {
		ar_svc_list_del(&svc->polls, req);
		req->flags &= ~AR_REQ_F_POLLED;
		ar_svc_snapshot_del(svc, req);
		return true;
	}
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
	ar_spin_lock(&ctx->lock);
	svc->exiting = true;
	ar_spin_unlock(&ctx->lock);
	started = svc->started;
	pthread_mutex_unlock(&svc->start_lock);
	if (started) {
		ar_svc_kick(ctx);
		pthread_join(svc->thread, NULL);
		ar_internal_close(svc->wake_fd);
	}
	/* no snapshot left for ar_svc_disarm_locked() to look at */
	ar_spin_lock(&ctx->lock);
	svc->nfds = 0;
	ar_spin_unlock(&ctx->lock);
	free(svc->fds);
	free(svc->reqs);
	svc->fds = NULL;
	svc->reqs = NULL;
}
