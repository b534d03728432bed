/* SPDX-License-Identifier: MIT */
/*
 * aio.c - the ring's native AIO context (io_setup/io_submit), usually
 * allowed where io_uring is refused (Docker's default seccomp profile
 * allows it). Two users queue iocbs in it: the direct backend's O_DIRECT
 * reads and writes (backend/direct.c) and aiopoll.c's one-shot polls.
 *
 * Completions land in the AIO context's ring, which is mapped in our
 * memory (struct aio_ring below, fs/aio.c's layout). It is read here
 * without a system call, so a polling waiter sees a completion as soon as
 * the device reports it. IOCB_FLAG_RESFD signals an eventfd per
 * completion, for sleepers:
 *   - a thread waiting for CQEs sleeps on its own wake fd and this one,
 *     and reaps the ring itself: no handoff, as the kernel's task work
 *     (the ring's first such thread in one epoll_pwait2() on both,
 *     edge-triggered, ar_aio_sleep(); others in ppoll());
 *   - a reaper thread per ring covers the time nobody waits, on rings
 *     whose CQEs appear without entering; it gives a waiting thread the
 *     first go, and leaves a completion to the waiters asleep on the
 *     eventfd (ar_aio_reaper_sleep()). A DEFER_TASKRUN ring has none:
 *     as the kernel's deferred task work, its AIO completions are
 *     posted when its task waits. With IORING_SETUP_TASKRUN_FLAG the
 *     reaper stays, as it is what raises IORING_SQ_TASKRUN.
 * Whoever drains the eventfd reaps the ring after draining, waiting for
 * the reap lock (ar_aio_sleep_prepare()), so a completion is never
 * left without a signal.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <linux/aio_abi.h>
#include "user/aio.h"
#include "user/types.h"
#include "user/complete.h"
#include "lib/thread.h"
#include "engine/engine.h"
#include "user/wait.h"
#include "user/waitq.h"
#include "user/submit.h"
#include "user/aiopoll.h"
#include "user/backend.h"

#define AR_AIO_MAX_EVENTS	1024
#define AR_AIO_REAP_GRACE_NS	20000	/* a waiter's head start on the reaper */
#define AR_AIO_REAP_BATCH	32	/* completions posted under one CQ lock */

struct ar_aio {
	struct ar_uctx *ctx;
	aio_context_t id;
	struct ar_aio_ring *ring;
	int efd;
	int epfd;			/* the owner's sleep (ar_aio_sleep()); -1: none */
	int reaper_ep;			/* the reaper's sleep; -1: none */
	struct ar_waiter *owner;	/* set once, under reap_lock */
	bool no_owner;			/* its eventfd could not be added */
	bool ep_failed;			/* the epoll sleep was refused */
	unsigned nr;			/* the events the context was made for */
	pthread_mutex_t reap_lock;	/* one consumer of the ring at a time */
	atomic_uint inflight;
	/* waiters asleep on efd (the owner, in ppoll()), which reap after */
	atomic_uint sleepers;
	atomic_bool exiting;
	pthread_t reaper;
	bool has_reaper;
};

static long ar_io_setup(unsigned nr, aio_context_t *id)
{
	return syscall(SYS_io_setup, nr, id);
}

static long ar_io_destroy(aio_context_t id)
{
	return syscall(SYS_io_destroy, id);
}

static long ar_io_submit(aio_context_t id, long n, struct iocb **cbs)
{
	return syscall(SYS_io_submit, id, n, cbs);
}

/*
 * The AIO eventfd is blocking where the kernel lets a read of it be
 * non-blocking on its own (RWF_NOWAIT: eventfd has FMODE_NOWAIT since
 * 5.10, probed once): the reaper then sleeps and drains in one read(2),
 * where poll(2) and a read made two. Elsewhere it is O_NONBLOCK and the
 * reaper polls.
 */
static bool ar_aio_efd_blocks;

static void ar_efd_drain(int efd)
{
	uint64_t v;
	struct iovec iov = { &v, sizeof(v) };

	if (ar_aio_efd_blocks)
		(void)!preadv2(efd, &iov, 1, -1, RWF_NOWAIT);
	else
		(void)!read(efd, &v, sizeof(v));
}

/* the probe: an empty eventfd read with RWF_NOWAIT answers EAGAIN */
static void ar_aio_efd_probe(void)
{
	uint64_t v;
	struct iovec iov = { &v, sizeof(v) };
	int fd = eventfd(0, EFD_CLOEXEC), e = errno;

	ar_aio_efd_blocks = fd >= 0 && preadv2(fd, &iov, 1, -1, RWF_NOWAIT) < 0 &&
			    errno == EAGAIN;
	if (fd >= 0)
		close(fd);
	errno = e;
}

/*
 * complete the requests of the events in the ring, posted in batches of
 * up to AR_AIO_REAP_BATCH (one CQ lock, one wake, one eventfd signal
 * each); how many
 */
static unsigned ar_aio_reap_locked(struct ar_aio *a, struct ar_ureq ***polls)
{
	struct ar_aio_ring *r = a->ring;
	unsigned head = __atomic_load_n(&r->head, __ATOMIC_RELAXED), tail, n = 0;
	struct ar_comp_list done;
	struct io_event ev;
	struct ar_ureq *req;

	ar_comp_list_init(&done);

	/* acquire pairs with the kernel's smp_wmb before publishing the tail */
	tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	while (head != tail) {
		ev = r->io_events[head];
		head = (head + 1) % r->nr;
		/* release: the event is read before the kernel may reuse its slot */
		__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
		req = (struct ar_ureq *)(unsigned long)ev.data;
		/*
		 * acq_rel: acquire pairs with the release increment made
		 * before this request's io_submit (the kernel carries the
		 * rest, unseen by sanitizers); release pairs with exit's wait.
		 */
		atomic_fetch_sub_explicit(&a->inflight, 1, memory_order_acq_rel);
		n++;
		if (ev.data & AR_AIOPOLL_TAG) {
			/* a poll's: issued again once the reap lock is let go */
			req = ar_aiopoll_event(a->ctx, ev.data, ev.res);
			if (req) {
				req->next = NULL;
				**polls = req;
				*polls = &req->next;
			}
			goto next;
		}
		if (a->ctx->flags & IORING_SETUP_IOPOLL)
			ar_direct_reaped(req);	/* off the polled list */
		if (ev.res >= 0 && (__u64)ev.res != req->expect)
			req->flags |= AR_REQ_F_SHORT;
		ar_req_complete_gather(&done, req, (int)ev.res, 0);
		if (done.nr == AR_AIO_REAP_BATCH)
			ar_req_complete_gathered(a->ctx, &done);
next:
		if (head == tail)
			tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	}
	ar_req_complete_gathered(a->ctx, &done);
	return n;
}

/*
 * The polls whose events a reap found, issued by the reaping thread
 * after it let the reap lock go (an issue may submit a chain's next
 * request, which may come back here).
 */
static void ar_aio_issue_polls(struct ar_ureq *polls)
{
	struct ar_ureq *req, *next;

	for (req = polls; req; req = next) {
		next = req->next;
		ar_req_issue(req, AR_ISSUE_NONBLOCK);
	}
}

/* reap under the reap lock, waited for or tried (0: another thread has it) */
static unsigned ar_aio_reap(struct ar_aio *a, bool wait)
{
	struct ar_ureq *polls = NULL, **tail = &polls;
	unsigned n;

	if (wait)
		pthread_mutex_lock(&a->reap_lock);
	else if (pthread_mutex_trylock(&a->reap_lock))
		return 0;
	n = ar_aio_reap_locked(a, &tail);
	pthread_mutex_unlock(&a->reap_lock);
	ar_aio_issue_polls(polls);
	return n;
}

static struct ar_aio *ar_aio_get(struct ar_uctx *ctx)
{
	/* acquire pairs with the release in ar_aio_create() */
	return __atomic_load_n(&ctx->aio, __ATOMIC_ACQUIRE);
}

/* Complete what the AIO ring holds (a peek when empty); how many. */
unsigned ar_aio_reap_ring(struct ar_uctx *ctx)
{
	struct ar_aio *a = ar_aio_get(ctx);

	if (!a || __atomic_load_n(&a->ring->head, __ATOMIC_RELAXED) ==
		  __atomic_load_n(&a->ring->tail, __ATOMIC_RELAXED))
		return 0;
	return ar_aio_reap(a, false);	/* tried: another thread may be at it */
}

/*
 * A thread about to sleep: *fd gets the eventfd that wakes it for AIO
 * (-1: none in flight), drained, and what the AIO ring holds is
 * completed; how many. The drain and the reap go together, the reap
 * under the reap lock waited for: a completion whose signal the drain
 * took may be one the lock's holder no longer looks for (past its last
 * look at the ring tail), so a trylock that fails would leave it in the
 * ring with no signal left to wake anyone for it.
 */
unsigned ar_aio_sleep_prepare(struct ar_uctx *ctx, int *fd)
{
	struct ar_aio *a = ar_aio_get(ctx);
	unsigned n;

	*fd = -1;
	if (!a || !atomic_load_explicit(&a->inflight, memory_order_relaxed))
		return 0;
	/*
	 * Counted before the drain and the reap: a completion the reaper
	 * leaves to this thread (ar_aio_reaper()) signalled before the
	 * drain is seen by the reap; one after it ends the sleep. seq_cst:
	 * the count is in one order with the reaper's load of it, which
	 * follows its wakeup by the completion's signal.
	 */
	atomic_fetch_add_explicit(&a->sleepers, 1, memory_order_seq_cst);
	ar_efd_drain(a->efd);
	*fd = a->efd;
	n = ar_aio_reap(a, true);
	if (n) {
		ar_aio_sleep_done(ctx);	/* no sleep: this thread looks again */
		*fd = -1;
	}
	return n;
}

/*
 * The sleep on the eventfd is over. A completion whose signal the
 * reaper left to this thread is in the ring: reaped here, the reap lock
 * waited for, as in the prepare (a holder may be past its last look, and
 * the reaper will not come for it). seq_cst: the count's drop is in one
 * order with the reaper's load of it; the look at the ring follows it.
 */
void ar_aio_sleep_done(struct ar_uctx *ctx)
{
	struct ar_aio *a = ar_aio_get(ctx);

	atomic_fetch_sub_explicit(&a->sleepers, 1, memory_order_seq_cst);
	/*
	 * After the drop (a full barrier): the tail's acquire pairs with the
	 * kernel's publishing of it, after the event, in aio_complete();
	 * head is this process's own, read relaxed as in the peek above.
	 */
	if (__atomic_load_n(&a->ring->head, __ATOMIC_RELAXED) !=
	    __atomic_load_n(&a->ring->tail, __ATOMIC_ACQUIRE))
		ar_aio_reap(a, true);
}

/*
 * The reaper's sleep until completions signal the eventfd, which it
 * drains: true when it did (then it reaps: a completion after the drain
 * signals again).
 *
 * Where it can, in an epoll set of its own with the eventfd edge-
 * triggered, which wakes it on each signal without draining:
 *  - The eventfd is EPOLLEXCLUSIVE there, as in the owner's set, made
 *    first (ar_aio_create()): a signal wakes the first exclusive wait
 *    that has a sleeper, so an owner asleep in its set takes it alone
 *    and the reaper is not woken at all.
 *  - A signal that does reach it while a waiter sleeps on the eventfd
 *    (a->sleepers: the owner, or a waiter in ppoll(), which every
 *    signal wakes) is left to that waiter, undrained, for its sleep to
 *    see and for it to reap; the reaper sleeps again at once, where it
 *    would have slept out a waiter's head start and found the
 *    completion reaped.
 * An edge that comes while the reaper is awake waits in its set for its
 * next sleep. Without the set: a blocking read does both, else poll(),
 * then a read.
 */
static int ar_aio_reaper_epoll(int efd)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLET | EPOLLEXCLUSIVE,
	};
	int fd = ar_internal_claim(ar_fd_high(epoll_create1(EPOLL_CLOEXEC)));

	if (fd >= 0 && epoll_ctl(fd, EPOLL_CTL_ADD, efd, &ev)) {
		ar_internal_close(fd);
		fd = -1;
	}
	return fd;
}

static bool ar_aio_reaper_sleep(struct ar_aio *a)
{
	struct pollfd pfd = { .fd = a->efd, .events = POLLIN };
	struct epoll_event ev;
	uint64_t v;

	if (a->reaper_ep >= 0) {
		if (epoll_wait(a->reaper_ep, &ev, 1, -1) != 1)
			return false;
		/* seq_cst: pairs with the waiters' count (ar_aio_sleep_prepare()) */
		if (atomic_load_explicit(&a->sleepers, memory_order_seq_cst))
			return false;
		ar_efd_drain(a->efd);
		return true;
	}
	if (ar_aio_efd_blocks)
		return read(a->efd, &v, sizeof(v)) == sizeof(v);
	if (poll(&pfd, 1, 100) <= 0)
		return false;
	ar_efd_drain(a->efd);
	return true;
}

/*
 * The owner's sleep: an epoll set with the AIO eventfd and the owner's
 * wake eventfd, both edge-triggered. Every signal of either is an edge
 * (eventfd wakes its waiters on each write), whatever its count, so
 * neither needs draining before the sleep: one epoll_pwait2() per sleep,
 * where a drain of the AIO eventfd and a ppoll() of both made two calls.
 * The AIO eventfd's count is left to grow (2^64 signals); the threads
 * that poll it level-triggered (other waiters, the reaper) drain it first
 * as before, which takes no edge away.
 */
#define AR_AIO_EP_AIO	1
#define AR_AIO_EP_WAKE	2

static int ar_aio_epoll_create(int efd)
{
	/* exclusive, queued before the reaper's: ar_aio_reaper_sleep() */
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLET | EPOLLEXCLUSIVE,
		.data.u64 = AR_AIO_EP_AIO,
	};
	int fd = ar_internal_claim(ar_fd_high(epoll_create1(EPOLL_CLOEXEC)));

	if (fd >= 0 && epoll_ctl(fd, EPOLL_CTL_ADD, efd, &ev)) {
		ar_internal_close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The first waiter to sleep on the ring's AIO becomes the owner of the
 * epoll sleep: its eventfd joins the set (edge-triggered, a reference
 * held while it is there). Other waiters sleep in ppoll() as before.
 */
static bool ar_aio_own(struct ar_aio *a, struct ar_waiter *w)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLET,
		.data.u64 = AR_AIO_EP_WAKE,
	};
	/* acquire pairs with the release below: set once, never changed */
	struct ar_waiter *o = __atomic_load_n(&a->owner, __ATOMIC_ACQUIRE);

	if (o || __atomic_load_n(&a->no_owner, __ATOMIC_RELAXED))
		return o == w;
	pthread_mutex_lock(&a->reap_lock);
	if (!a->owner && !a->no_owner) {
		if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, w->efd, &ev)) {
			__atomic_store_n(&a->no_owner, true, __ATOMIC_RELAXED);
		} else {
			ar_waiter_get(w);
			__atomic_store_n(&a->owner, w, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&a->reap_lock);
	return __atomic_load_n(&a->owner, __ATOMIC_RELAXED) == w;
}

/*
 * epoll_pwait2() for a deadline; without one epoll_pwait(), which older
 * kernels and tools (valgrind) know too. Events, -ETIMEDOUT, -EINTR or
 * -errno; errno untouched.
 */
static int ar_aio_epoll_sleep(struct ar_aio *a, __u64 deadline_ns,
			      const sigset_t *sigmask, struct epoll_event *evs)
{
	int e = errno, ret;

	if (deadline_ns)
		return ar_waiter_sleep_epoll(deadline_ns, sigmask, a->epfd, evs, 2);
	ret = epoll_pwait(a->epfd, evs, 2, -1, sigmask);
	if (ret < 0)
		ret = -errno;
	errno = e;
	return ret;
}

/*
 * A waiter's sleep while only AIO may be what it waits for (nothing armed
 * for readiness): what the AIO ring holds is completed first (1: look
 * again), then one epoll_pwait2() until a completion, a waker (its
 * eventfd) or the deadline: 0 woken, -ETIMEDOUT, -EINTR. -EAGAIN: not
 * here (nothing in flight, no epoll set, another thread owns it).
 *
 * No completion is left unseen: its event is in the ring before the
 * kernel signals the eventfd (aio_complete()), and its edge stays queued
 * in the epoll set until an epoll_wait() takes it. An edge taken by this
 * sleep is followed by a look at the ring (the caller's); one that
 * came before the reap below ends the next sleep at once, for nothing.
 */
int ar_aio_sleep(struct ar_uctx *ctx, struct ar_waiter *w,
		    __u64 deadline_ns, const sigset_t *sigmask)
{
	struct ar_aio *a = ar_aio_get(ctx);
	struct epoll_event evs[2];
	unsigned n;
	int ret, i;

	/* relaxed: ep_failed and inflight are hints; a late look costs one ppoll() */
	if (!a || a->epfd < 0 || __atomic_load_n(&a->ep_failed, __ATOMIC_RELAXED) ||
	    !atomic_load_explicit(&a->inflight, memory_order_relaxed) ||
	    !ar_aio_own(a, w))
		return -EAGAIN;
	/* counted asleep on the eventfd, as in ar_aio_sleep_prepare() */
	atomic_fetch_add_explicit(&a->sleepers, 1, memory_order_seq_cst);
	/* waited for, as in ar_aio_sleep_prepare(): the holder may be past its last look */
	n = ar_aio_reap(a, true);
	if (n) {
		ar_aio_sleep_done(ctx);
		return 1;
	}
	ret = ar_aio_epoll_sleep(a, deadline_ns, sigmask, evs);
	ar_aio_sleep_done(ctx);
	if (ret == -ETIMEDOUT || ret == -EINTR)
		return ret;
	if (ret < 0) {
		/* refused (ENOSYS before 5.11, a sandbox): ppoll() from now on */
		__atomic_store_n(&a->ep_failed, true, __ATOMIC_RELAXED);
		return -EAGAIN;
	}
	/* woken by a waker: its eventfd is drained for the level-triggered sleeps */
	for (i = 0; i < ret; i++)
		if (evs[i].data.u64 == AR_AIO_EP_WAKE)
			ar_waiter_drain(w);
	return 0;
}

/* nobody waits on the ring: the reaper posts (after a waiter's head start) */
static void *ar_aio_reaper(void *arg)
{
	struct ar_aio *a = arg;
	struct ar_uctx *ctx = a->ctx;
	struct timespec grace = { 0, AR_AIO_REAP_GRACE_NS };

	/* acquire pairs with the release store in ar_aio_exit() */
	while (!atomic_load_explicit(&a->exiting, memory_order_acquire)) {
		if (!ar_aio_reaper_sleep(a))
			continue;
		if (atomic_load_explicit(&ctx->cq_waiters, memory_order_relaxed))
			nanosleep(&grace, NULL);
		ar_aio_reap(a, true);
	}
	return NULL;
}

/* do CQEs appear without the ring's task entering? (see the top) */
static bool ar_aio_needs_reaper(const struct ar_uctx *ctx)
{
	return !(ctx->flags & IORING_SETUP_DEFER_TASKRUN) ||
	       (ctx->flags & IORING_SETUP_TASKRUN_FLAG);
}

/*
 * Contexts kept for the next ring: io_destroy() waits for the kernel to
 * retire the context (an RCU grace period, tens of milliseconds), which
 * would make every ring exit that slow. A ring's context, idle and
 * drained at its exit, is kept here instead, up to AR_AIO_POOL of them;
 * a forked child forgets them (they belong to the parent's mm).
 */
#define AR_AIO_POOL		2

struct ar_aio_kctx {
	aio_context_t id;
	struct ar_aio_ring *ring;
	int efd;
	unsigned nr;		/* the events it was made for */
};

static struct ar_aio_kctx ar_aio_pool[AR_AIO_POOL];
static unsigned ar_aio_pool_nr;
static pthread_mutex_t ar_aio_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t ar_aio_pool_once = PTHREAD_ONCE_INIT;

static void ar_aio_pool_atfork_child(void)
{
	/* the kernel's contexts are the parent's; our eventfd copies are ours to close */
	for (unsigned i = 0; i < ar_aio_pool_nr; i++)
		ar_internal_close(ar_aio_pool[i].efd);
	ar_aio_pool_nr = 0;
	pthread_mutex_init(&ar_aio_pool_lock, NULL);
}

static void ar_aio_pool_init(void)
{
	ar_aio_efd_probe();
	pthread_atfork(NULL, NULL, ar_aio_pool_atfork_child);
}

/* a kept context for at least nr events, into a; false if none */
static bool ar_aio_pool_take(struct ar_aio *a, unsigned nr)
{
	bool found = false;

	pthread_mutex_lock(&ar_aio_pool_lock);
	for (unsigned i = 0; i < ar_aio_pool_nr && !found; i++) {
		if (ar_aio_pool[i].nr < nr)
			continue;
		a->id = ar_aio_pool[i].id;
		a->ring = ar_aio_pool[i].ring;
		a->efd = ar_aio_pool[i].efd;
		a->nr = ar_aio_pool[i].nr;
		ar_aio_pool[i] = ar_aio_pool[--ar_aio_pool_nr];
		found = true;
	}
	pthread_mutex_unlock(&ar_aio_pool_lock);
	return found;
}

/* keep a's context (idle, its ring and eventfd drained); false if full */
static bool ar_aio_pool_put(const struct ar_aio *a)
{
	bool kept = false;

	pthread_mutex_lock(&ar_aio_pool_lock);
	if (ar_aio_pool_nr < AR_AIO_POOL) {
		ar_aio_pool[ar_aio_pool_nr++] = (struct ar_aio_kctx){
			a->id, a->ring, a->efd, a->nr };
		kept = true;
	}
	pthread_mutex_unlock(&ar_aio_pool_lock);
	return kept;
}

/* a new kernel context and its eventfd into a; -errno */
static int ar_aio_setup_kctx(struct ar_aio *a, unsigned nr)
{
	int err;

	a->efd = ar_internal_claim(ar_fd_high(eventfd(0, EFD_CLOEXEC |
				   (ar_aio_efd_blocks ? 0 : EFD_NONBLOCK))));
	if (a->efd < 0)
		return -ENOMEM;
	if (ar_io_setup(nr, &a->id) < 0) {
		err = -errno;
		ar_debug("user engine: io_setup refused (%s): O_DIRECT I/O goes "
			 "to workers", strerror(errno));
		ar_internal_close(a->efd);
		return err;
	}
	a->ring = (struct ar_aio_ring *)(unsigned long)a->id;
	a->nr = nr;
	if (a->ring->magic != AR_AIO_RING_MAGIC || a->ring->incompat_features) {
		ar_io_destroy(a->id);
		ar_internal_close(a->efd);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* give a's kernel context up: kept for the next ring, or destroyed */
static void ar_aio_release_kctx(struct ar_aio *a)
{
	if (ar_aio_pool_put(a))
		return;
	ar_io_destroy(a->id);
	ar_internal_close(a->efd);
}

/* the ring's AIO context, made on first use; NULL when AIO is refused */
static struct ar_aio *ar_aio_create(struct ar_uctx *ctx)
{
	struct ar_aio *a, *cur = NULL;
	unsigned nr = ctx->cq_entries < AR_AIO_MAX_EVENTS ? ctx->cq_entries :
		      AR_AIO_MAX_EVENTS;

	pthread_once(&ar_aio_pool_once, ar_aio_pool_init);
	/* made without a lock (system calls): a thread that loses the race gives its own up */
	a = calloc(1, sizeof(*a));
	if (!a)
		goto refused;
	a->ctx = ctx;
	a->reaper_ep = -1;
	if (!ar_aio_pool_take(a, nr) && ar_aio_setup_kctx(a, nr))
		goto refused;
	/* without it, every waiter sleeps in ppoll() */
	a->epfd = ar_aio_epoll_create(a->efd);
	pthread_mutex_init(&a->reap_lock, NULL);
	/* release pairs with the acquire in ar_aio_get(); acquire: the winner's context */
	if (!__atomic_compare_exchange_n(&ctx->aio, &cur, a, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		ar_aio_release_kctx(a);
		ar_internal_close(a->epfd);
		pthread_mutex_destroy(&a->reap_lock);
		free(a);
		return cur;
	}
	/* read at ring exit only, which follows every enter */
	if (ar_aio_needs_reaper(ctx)) {
		a->reaper_ep = ar_aio_reaper_epoll(a->efd);
		a->has_reaper = !ar_thread_create(&a->reaper, ar_aio_reaper, a);
	}
	return a;
refused:
	free(a);
	__atomic_store_n(&ctx->aio_refused, true, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * 0 when the ring's context is there (made if need be), -EOPNOTSUPP when
 * AIO is refused. aiopoll.c's polls are iocbs of the same context, whose
 * events the reaps above hand to ar_aiopoll_event().
 */
int ar_aio_prepare(struct ar_uctx *ctx)
{
	if (ar_aio_get(ctx))
		return 0;
	if (__atomic_load_n(&ctx->aio_refused, __ATOMIC_RELAXED))
		return -EOPNOTSUPP;
	return ar_aio_create(ctx) ? 0 : -EOPNOTSUPP;
}

/*
 * Holds on the context: an iocb on its way, or a thread that will still
 * use the context, counted under ctx->lock before the ring's exit can
 * set exiting there. Ring exit waits until none is left.
 */
void ar_aio_hold(struct ar_uctx *ctx, unsigned n)
{
	/* release pairs with the reap's acq_rel decrement and exit's acquire */
	atomic_fetch_add_explicit(&ar_aio_get(ctx)->inflight, n,
				  memory_order_release);
}

/* a holder is done with the context (before this, ring exit waits) */
void ar_aio_unhold(struct ar_uctx *ctx)
{
	/* release pairs with exit's acquire load: this thread's uses come first */
	atomic_fetch_sub_explicit(&ar_aio_get(ctx)->inflight, 1,
				  memory_order_release);
}

/*
 * Queue cb, which its user filled (its data, command, fd, buffer): its
 * completion signals the context's eventfd. hold: take the context's
 * hold here (a read or write); else the caller took it (a poll). 0, or
 * -errno with the hold dropped.
 */
int ar_aio_submit(struct ar_uctx *ctx, struct iocb *cb, bool hold)
{
	struct ar_aio *a = ar_aio_get(ctx);
	int e = errno, ret = 0;

	cb->aio_flags |= IOCB_FLAG_RESFD;
	cb->aio_resfd = (__u32)a->efd;
	/* release: the request is written before a reaper may see its event */
	if (hold)
		atomic_fetch_add_explicit(&a->inflight, 1, memory_order_release);
	if (ar_io_submit(a->id, 1, &cb) != 1) {
		ret = -errno;
		atomic_fetch_sub_explicit(&a->inflight, 1, memory_order_relaxed);
	}
	errno = e;
	return ret;
}

/*
 * Queue n filled iocbs in one io_submit(), each with its hold taken
 * (ar_aio_hold()). How many the kernel took, from the first; it stops
 * at the first it refuses. -errno when it took none: that first one's
 * hold is dropped.
 */
int ar_aio_submit_many(struct ar_uctx *ctx, struct iocb **cbs, unsigned n)
{
	struct ar_aio *a = ar_aio_get(ctx);
	int e = errno;
	long ret;

	for (unsigned i = 0; i < n; i++) {
		cbs[i]->aio_flags |= IOCB_FLAG_RESFD;
		cbs[i]->aio_resfd = (__u32)a->efd;
	}
	ret = ar_io_submit(a->id, (long)n, cbs);
	if (ret <= 0) {
		ret = ret ? -errno : -EAGAIN;
		/* relaxed: no event will come for it, so no reap pairs with it */
		atomic_fetch_sub_explicit(&a->inflight, 1, memory_order_relaxed);
	}
	errno = e;
	return (int)ret;
}

/* ask the kernel to cancel a queued iocb; its event comes either way */
void ar_aio_cancel(struct ar_uctx *ctx, struct iocb *cb)
{
	struct io_event ev;
	int e = errno;

	(void)syscall(SYS_io_cancel, ar_aio_get(ctx)->id, cb, &ev);
	errno = e;
}

/* Ring exit: every queued I/O completes (they cannot be cancelled), then free. */
void ar_aio_exit(struct ar_uctx *ctx)
{
	struct ar_aio *a = ctx->aio;
	struct ar_waiter *owner;
	struct pollfd pfd;
	uint64_t one = 1;

	if (!a)
		return;

	atomic_store_explicit(&a->exiting, true, memory_order_release);
	/*
	 * The reaper sleeps on the eventfd: a write ends the sleep now (it
	 * has no timeout), and it sees exiting (the flag's release store,
	 * before the write, pairs with its acquire load after the sleep).
	 * The owner's set lets the eventfd go first: an owner still asleep
	 * there (a thread that waits on the ring as it ends) would take the
	 * write from the reaper's exclusive wait.
	 */
	if (a->has_reaper) {
		if (a->epfd >= 0)
			epoll_ctl(a->epfd, EPOLL_CTL_DEL, a->efd, NULL);
		(void)!write(a->efd, &one, sizeof(one));
		pthread_join(a->reaper, NULL);
	}
	ar_internal_close(a->reaper_ep);
	pfd.fd = a->efd;
	pfd.events = POLLIN;
	/* acquire pairs with the reapers' release decrement */
	while (atomic_load_explicit(&a->inflight, memory_order_acquire)) {
		ar_efd_drain(a->efd);
		ar_aio_reap(a, true);
		if (atomic_load_explicit(&a->inflight, memory_order_acquire))
			poll(&pfd, 1, 100);
	}
	/* idle and reaped: its eventfd drained, the context kept or destroyed */
	ar_efd_drain(a->efd);
	/* no waiter is left (exit follows every enter): the owner's sleep goes */
	ar_internal_close(a->epfd);
	/* relaxed: set under reap_lock by a waiter whose enter has ended */
	owner = __atomic_load_n(&a->owner, __ATOMIC_RELAXED);
	if (owner)
		ar_waiter_put(owner);
	ar_aio_release_kctx(a);
	pthread_mutex_destroy(&a->reap_lock);
	ctx->aio = NULL;
	free(a);
}

/*
 * A forked child's copy of the ring's AIO context: the context is the
 * parent's mm's (a child has none), its eventfds the parent's files; the
 * child's copies of the fds go, and the child makes its own context on
 * first use (fork.c).
 */
void ar_aio_forget(struct ar_uctx *ctx)
{
	struct ar_aio *a = ctx->aio;

	if (a) {
		ar_internal_close(a->efd);
		ar_internal_close(a->epfd);
		ar_internal_close(a->reaper_ep);
		free(a);	/* the child's copy; its ring stayed with the parent's mm */
	}
	ctx->aio = NULL;
}
