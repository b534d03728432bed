/* SPDX-License-Identifier: MIT */
/*
 * poll.c - readiness, as the kernel's io_uring/poll.c: requests waiting
 * for a pollable file, served by one epoll instance per ring (the
 * contract: poll.h), and the POLL_ADD and POLL_REMOVE opcodes at the end
 * (a oneshot POLL_ADD of a pipe, socket or character device waits
 * through AIO instead: aiopoll.c).
 *
 * Each fd with armed requests has an entry: its requests, newest
 * first, and what epoll has registered for it, always edge-triggered
 * (EPOLLET), the union of their events. An edge reaches every request
 * on the fd that waits for one of its events, as the kernel's wakeup
 * reaches every poll on the file's wait queue.
 *
 * epoll_ctl() is made only where readiness could otherwise be missed:
 *   - a request armed on an fd with nothing else armed (ADD, or MOD,
 *     which looks at the file's readiness anew and queues an edge if it
 *     is ready already: the kernel's vfs_poll() at arming);
 *   - an fd whose registration must grow (new events).
 * An fd that has other requests armed with the events already registered
 * gets a poll(2) instead (one system call either way). A request issued
 * again after readiness and armed again makes none: it stayed on the
 * list, and an edge that came while it ran marked it (AR_POLLF_AGAIN).
 * An entry with nothing armed is left registered; the first edge that
 * finds it idle removes it (EPOLL_CTL_DEL), so a fd used again soon costs
 * nothing more.
 *
 * Locks: the entries and their lists are under ctx->lock; epoll_ctl()
 * and what an entry has registered under ctl_lock, which is never taken
 * under ctx->lock (it is held across the system call); one reaper at a
 * time (reap_lock, tried, never waited for).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include "lib/wake.h"
#include "lib/sysraw.h"
#include "lib/thread.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/lock.h"
#include "user/poll.h"
#include "user/fork.h"
#include "user/cancel.h"
#include "user/aiopoll.h"
#include "user/svc.h"
#include "user/submit.h"
#include "user/complete.h"
#include "user/timeout.h"
#include "user/tw.h"
#include "engine/engine.h"
#include "user/wait.h"
#include "user/waitq.h"
#include "user/ringfd.h"

#define AR_POLL_BATCH		64

/* events epoll can register; the rest of a poll mask is dropped */
#define AR_POLL_EVENTS (EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDNORM |	\
			EPOLLRDBAND | EPOLLWRNORM | EPOLLWRBAND | EPOLLMSG | \
			AR_POLL_UNMASK)

/* the event bits a request can wait for: EPOLLIN (bit 0) to EPOLLRDHUP (13) */
#define AR_POLL_NR_BITS		14
_Static_assert(!(AR_POLL_EVENTS >> AR_POLL_NR_BITS), "an event bit not counted");

struct ar_pollent {
	/* armed here, in order (svc_next, poll_prev): ctx->lock */
	struct ar_ureq *head, *tail;
	/* how many of them wait for each event bit: ctx->lock */
	unsigned nr_want[AR_POLL_NR_BITS];
	__u32 reg;			/* registered with epoll: ctl_lock */
	bool in_epoll;			/* ctl_lock */
};

/*
 * The armed POLL_ADDs by user_data, for POLL_REMOVE: the kernel's
 * cancel table (io_poll_req_insert()), newest first in a chain.
 */
#define AR_POLL_HASH_BITS	10

struct ar_poll {
	int epfd;
	pthread_mutex_t ctl_lock;
	pthread_mutex_t reap_lock;
	/* reapers issuing what they took, after reap_lock: under it */
	unsigned issuing;
	unsigned issued_nr;		/* ... how many have finished: under it */
	pthread_cond_t issued;		/* ... dropped to 0 */
	struct ar_pollent **ents;	/* by fd: ctx->lock */
	unsigned nr_ents;
	atomic_uint nr_armed;		/* on the lists: a sleeper's hint */
	atomic_uint sleepers;		/* waiters asleep on epfd (svc.c's hint) */
	/*
	 * readiness left to the task (DEFER_TASKRUN), told and not reaped
	 * yet; set by a teller and reset by a reap, each under tell_lock
	 */
	atomic_bool deferred;
	pthread_mutex_t tell_lock;
	/*
	 * The waiter whose eventfd is in the epoll set (AR_POLL_WAKE_TAG),
	 * so that it sleeps in epoll_wait() itself: set once under
	 * reap_lock, a reference held until the ring is freed.
	 */
	struct ar_waiter *owner;
	bool no_owner;			/* its registration failed: reap_lock */
	atomic_bool ep_sleeper;		/* the owner sleeps on epfd: no other reaps */
	bool wake_seen;			/* another reaper took the owner's edge: reap_lock */
	bool xcancel_in;		/* the family's cancel eventfd is in epfd: ctl_lock */
	/*
	 * DEFER_TASKRUN: edges a program thread's read took for the task
	 * (ar_poll_hold()), their requests dispatched and not issued yet,
	 * oldest first; and whether the cancel eventfd's edge was among
	 * them. Under reap_lock; the task's next reap issues them.
	 */
	struct ar_ureq *held, **held_tail;
	bool held_xcancel;
};

/* an edge of the owner's eventfd (an fd's events carry the fd, below 2^32) */
#define AR_POLL_WAKE_TAG	(1ULL << 32)
/* an edge of the process family's cancel eventfd (fork.c, cancel.c) */
#define AR_POLL_XCANCEL_TAG	(2ULL << 32)

static struct ar_poll *ar_poll_of(struct ar_uctx *ctx)
{
	/* acquire pairs with the release in ar_poll_get(): p is initialized */
	return __atomic_load_n(&ctx->svc.poll, __ATOMIC_ACQUIRE);
}

/*
 * A forked ring's epoll fd has the process family's cancel eventfd,
 * edge-triggered: a cancel of another process that marked requests of
 * this one writes it, and the reaper of the edge answers
 * (ar_xcancel_serve()). Nothing reads the eventfd: each write is an
 * edge in every process's epoll fds.
 */
static void ar_poll_xcancel_add(struct ar_uctx *ctx, struct ar_poll *p)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLET,
		.data.u64 = AR_POLL_XCANCEL_TAG,
	};
	int fd = ar_sh(ctx)->xcancel_fd;

	/* seq_cst: see ar_poll_get() */
	if (fd < 0 || !atomic_load_explicit(&ar_sh(ctx)->forked, memory_order_seq_cst))
		return;
	pthread_mutex_lock(&p->ctl_lock);
	if (!p->xcancel_in && p->epfd >= 0) {
		p->xcancel_in = !epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev);
		/* a cancel that marked and wrote before: an edge to find it */
		if (p->xcancel_in)
			ar_xcancel_post(ctx);
	}
	pthread_mutex_unlock(&p->ctl_lock);
}

/* the ring was forked: the epoll fd this process has already (fork.c) */
void ar_poll_xcancel_watch(struct ar_uctx *ctx)
{
	/* seq_cst, after the forked flag's store: see ar_poll_get() */
	struct ar_poll *p = __atomic_load_n(&ctx->svc.poll, __ATOMIC_SEQ_CST);

	if (p)
		ar_poll_xcancel_add(ctx, p);
}

static struct ar_poll *ar_poll_create(void)
{
	struct ar_poll *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->epfd = ar_internal_claim(ar_fd_high(epoll_create1(EPOLL_CLOEXEC)));
	if (p->epfd < 0) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->ctl_lock, NULL);
	pthread_mutex_init(&p->reap_lock, NULL);
	pthread_mutex_init(&p->tell_lock, NULL);
	pthread_cond_init(&p->issued, NULL);
	p->held_tail = &p->held;
	return p;
}

/*
 * The process's rings with a readiness backend, for the task work of an
 * enter (ar_poll_run_others()). Changed at a backend's birth and end
 * only; a ring on it holds its own reference still (ar_poll_exit() takes
 * it off before the ring's end lets go), so a look under the lock may
 * take another.
 */
static struct {
	pthread_mutex_t lock;
	struct ar_uctx **rings;
	unsigned nr, cap;
	unsigned nr_task;	/* of them, DEFER_TASKRUN rings (ar_poll_prepoll()) */
} ar_pollers = { .lock = PTHREAD_MUTEX_INITIALIZER };
static pthread_once_t ar_pollers_once = PTHREAD_ONCE_INIT;
/* this thread made a file readable that a poll may wait for */
__thread bool ar_poll_readied;

/*
 * The fds with requests armed, over the process's rings: for each fd,
 * how many rings list a request on it; their sum is ar_preread_armed
 * (engine.h). ar_poll_preread()'s filter, so that a read of any other
 * fd costs two loads. Relaxed throughout: a
 * listing made before the read in the program's order (its own thread,
 * or another that the program synchronized with) is seen; one made
 * concurrently is as if made after the read. A forked child's counts
 * are the parent's until its copies of the rings are forgotten
 * (ar_poll_forget()): a read of such an fd only looks for nothing.
 */
#define AR_POLL_FD_MAP		65536

struct ar_armed_slot {
	atomic_uint nr;			/* rings listing a request on the fd */
	atomic_uint uring_seq;		/* io_uring signals of it (ar_poll_uring_signal()) */
};

static struct {
	/* fds listed, over every ring: ar_preread_armed (engine.h) */
	atomic_uint big;		/* of them, past the map or without it */
	_Atomic(struct ar_armed_slot *) map;	/* made at the first listing */
} ar_armed_fds;
static pthread_once_t ar_armed_fds_once = PTHREAD_ONCE_INIT;

static void ar_armed_fds_init(void)
{
	/* pages never listed on are never touched */
	atomic_store_explicit(&ar_armed_fds.map,
			      calloc(AR_POLL_FD_MAP, sizeof(struct ar_armed_slot)),
			      memory_order_release);
}

/* fd's listing in some ring came (by 1) or went (-1) */
static void ar_armed_fd_count(int fd, int by)
{
	struct ar_armed_slot *map;

	pthread_once(&ar_armed_fds_once, ar_armed_fds_init);
	/* acquire pairs with the release in ar_armed_fds_init() */
	map = atomic_load_explicit(&ar_armed_fds.map, memory_order_acquire);
	if (map && fd >= 0 && fd < AR_POLL_FD_MAP)
		atomic_fetch_add_explicit(&map[fd].nr, (unsigned)by,
					  memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&ar_armed_fds.big, (unsigned)by,
					  memory_order_relaxed);
	atomic_fetch_add_explicit(&ar_preread_armed, (unsigned)by,
				  memory_order_relaxed);
}

static bool ar_armed_fd(int fd)
{
	struct ar_armed_slot *map;

	if (!atomic_load_explicit(&ar_preread_armed, memory_order_relaxed))
		return false;
	/* acquire pairs with the release in ar_armed_fds_init() */
	map = atomic_load_explicit(&ar_armed_fds.map, memory_order_acquire);
	if (map && fd >= 0 && fd < AR_POLL_FD_MAP)
		return atomic_load_explicit(&map[fd].nr, memory_order_relaxed);
	return atomic_load_explicit(&ar_armed_fds.big, memory_order_relaxed);
}

/* fd's slot in the map, if it has one */
static struct ar_armed_slot *ar_armed_slot(int fd)
{
	/* acquire pairs with the release in ar_armed_fds_init() */
	struct ar_armed_slot *map = atomic_load_explicit(&ar_armed_fds.map,
							 memory_order_acquire);

	return map && fd >= 0 && fd < AR_POLL_FD_MAP ? &map[fd] : NULL;
}

/*
 * A ring is about to signal its registered eventfd, which the program
 * knows as fd: the kernel's signal wakes the file's polls with
 * EPOLL_URING_WAKE, which makes a multishot POLL_ADD that takes the
 * wakeup oneshot (io_poll_wake()), to break the loop of a CQE that
 * readies the file that posts the next CQE. Counted here, before the
 * write; the dispatch of the edge the write makes compares
 * (ar_poll_uring_woken()). Only for an fd with requests armed: a poll
 * armed later takes the count as it finds it. Release pairs with the
 * dispatcher's acquire, through the eventfd write and epoll's wakeup.
 */
void ar_poll_uring_signal(int fd)
{
	struct ar_armed_slot *slot;

	if (!ar_armed_fd(fd) || !(slot = ar_armed_slot(fd)))
		return;
	atomic_fetch_add_explicit(&slot->uring_seq, 1, memory_order_release);
}

/* fd's io_uring signals so far (0 without a slot) */
static unsigned ar_poll_uring_seq(int fd)
{
	struct ar_armed_slot *slot = ar_armed_slot(fd);

	/* acquire pairs with the release in ar_poll_uring_signal() */
	return slot ? atomic_load_explicit(&slot->uring_seq, memory_order_acquire) : 0;
}

/*
 * An edge on fd reaches req, a POLL_ADD: did an io_uring signal of fd
 * come since its last edge? Its multishot ends with this one then
 * (true), unless it is busy (the kernel's wakeup that finds the poll
 * owned only has it look again). Under ctx->lock.
 */
static bool ar_poll_uring_woken(struct ar_ureq *req, unsigned seq)
{
	struct ar_poll_add *pa = ar_req_data(req, struct ar_poll_add);
	bool woken = pa->uring_seq != seq;

	pa->uring_seq = seq;
	if (!woken || !pa->multi || !(pa->events & POLLIN) ||
	    (req->poll_flags & AR_POLLF_BUSY))
		return false;
	pa->multi = false;
	return true;
}

/*
 * The parent's rings are not the child's: each forked one joins again
 * with its own backend. The lock may have been held by a thread of the
 * parent: made anew.
 */
static void ar_pollers_atfork_child(void)
{
	pthread_mutex_init(&ar_pollers.lock, NULL);
	__atomic_store_n(&ar_pollers.nr, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ar_pollers.nr_task, 0, __ATOMIC_RELAXED);
}

static void ar_pollers_init(void)
{
	pthread_atfork(NULL, NULL, ar_pollers_atfork_child);
}

static void ar_pollers_add(struct ar_uctx *ctx)
{
	struct ar_uctx **r;

	/* relaxed: the flag is the list's own, changed under no other order */
	if (atomic_load_explicit(&ctx->on_pollers, memory_order_relaxed) ||
	    atomic_exchange_explicit(&ctx->on_pollers, true, memory_order_relaxed))
		return;
	pthread_once(&ar_pollers_once, ar_pollers_init);
	pthread_mutex_lock(&ar_pollers.lock);
	if (ar_pollers.nr == ar_pollers.cap) {
		r = realloc(ar_pollers.rings,
			    (ar_pollers.cap * 2 + 4) * sizeof(*r));
		if (!r) {
			/* off: only its own enters run its polls' work */
			atomic_store_explicit(&ctx->on_pollers, false,
					      memory_order_relaxed);
			goto out;
		}
		ar_pollers.rings = r;
		ar_pollers.cap = ar_pollers.cap * 2 + 4;
	}
	ar_pollers.rings[ar_pollers.nr] = ctx;
	/* relaxed: ar_poll_run_others()' hint, looked at again under the lock */
	__atomic_store_n(&ar_pollers.nr, ar_pollers.nr + 1, __ATOMIC_RELAXED);
	/* the same for ar_poll_prepoll() */
	if (ar_poll_task_reaps(ctx))
		__atomic_store_n(&ar_pollers.nr_task, ar_pollers.nr_task + 1,
				 __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&ar_pollers.lock);
}

static void ar_pollers_del(struct ar_uctx *ctx)
{
	unsigned i;

	if (!atomic_exchange_explicit(&ctx->on_pollers, false, memory_order_relaxed))
		return;
	pthread_mutex_lock(&ar_pollers.lock);
	for (i = 0; i < ar_pollers.nr; i++) {
		if (ar_pollers.rings[i] == ctx) {
			ar_pollers.rings[i] = ar_pollers.rings[ar_pollers.nr - 1];
			__atomic_store_n(&ar_pollers.nr, ar_pollers.nr - 1,
					 __ATOMIC_RELAXED);
			if (ar_poll_task_reaps(ctx))
				__atomic_store_n(&ar_pollers.nr_task,
						 ar_pollers.nr_task - 1,
						 __ATOMIC_RELAXED);
			break;
		}
	}
	pthread_mutex_unlock(&ar_pollers.lock);
}

/* the ring's backend, made on first use, with the service thread behind it */
static struct ar_poll *ar_poll_get(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);
	bool made = false;

	if (p)
		return p;
	pthread_mutex_lock(&ctx->svc.start_lock);
	p = ctx->svc.poll;
	if (!p && !ctx->svc.exiting) {
		p = ar_poll_create();
		/*
		 * release pairs with the acquire in ar_poll_of(); seq_cst,
		 * then the forked flag's load (ar_poll_xcancel_add()), as a
		 * fork's prepare stores the flag, then loads this: one of
		 * the two adds the cancel eventfd
		 */
		if (p)
			__atomic_store_n(&ctx->svc.poll, p, __ATOMIC_SEQ_CST);
		made = p != NULL;
		/* under start_lock: before ar_svc_exit() sees exiting, so its del follows */
		if (made)
			ar_pollers_add(ctx);
	}
	pthread_mutex_unlock(&ctx->svc.start_lock);
	if (made)
		ar_poll_xcancel_add(ctx, p);
	if (p && ar_svc_start(ctx))
		return NULL;
	if (made)
		ar_svc_kick(ctx);	/* the thread sleeps on the epoll fd from now */
	return p;
}

/*
 * A forked ring's service thread makes the readiness backend, so that
 * the process answers other processes' cancels of its timers at once
 * (ar_xcancel_serve()) even with nothing armed for readiness.
 */
void ar_poll_xcancel_ensure(struct ar_uctx *ctx)
{
	if (!ar_poll_of(ctx))
		(void)ar_poll_get(ctx);
}

/* fd's entry, made if need be; under ctx->lock */
static struct ar_pollent *ar_pollent_get_locked(struct ar_poll *p, int fd)
{
	struct ar_pollent **ents;
	unsigned n;

	if ((unsigned)fd >= p->nr_ents) {
		n = p->nr_ents ? p->nr_ents : 64;
		while (n <= (unsigned)fd)
			n *= 2;
		ents = realloc(p->ents, n * sizeof(*ents));
		if (!ents)
			return NULL;
		memset(ents + p->nr_ents, 0, (n - p->nr_ents) * sizeof(*ents));
		p->ents = ents;
		p->nr_ents = n;
	}
	if (!p->ents[fd])
		p->ents[fd] = calloc(1, sizeof(**ents));
	return p->ents[fd];
}

static struct ar_pollent *ar_pollent_find_locked(struct ar_poll *p, int fd)
{
	return (unsigned)fd < p->nr_ents ? p->ents[fd] : NULL;
}

static bool ar_req_is_send(const struct ar_ureq *req)
{
	const struct ar_issue_def *def = &ar_issue_defs[req->opcode];

	return def->sock_call && def->pollout;
}

static void ar_pollent_count(struct ar_pollent *ent, __u32 events, int by)
{
	unsigned b;

	for (b = 0; b < AR_POLL_NR_BITS; b++)
		if (events & (1U << b))
			ent->nr_want[b] += by;
}

/* what the requests armed on ent wait for, together */
static __u32 ar_pollent_want(const struct ar_pollent *ent)
{
	__u32 want = 0;
	unsigned b;

	for (b = 0; b < AR_POLL_NR_BITS; b++)
		if (ent->nr_want[b])
			want |= 1U << b;
	return want;
}

/*
 * The newest first: the kernel's poll adds itself at the head of the
 * file's wait queue, so an edge reaches the last armed request first;
 * an exclusive one goes at the tail, in arming order, as
 * add_wait_queue_exclusive(). So does a send: the sends waiting on a
 * socket are issued again oldest first (ar_poll_send_behind()).
 */
static void ar_pollent_add_locked(struct ar_poll *p, struct ar_pollent *ent,
				  struct ar_ureq *req)
{
	if (!ent->head)
		ar_armed_fd_count(ar_req_app_fd(req), 1);
	if (ent->head && ((req->poll_flags & AR_POLLF_EXCL) || ar_req_is_send(req))) {
		req->poll_prev = ent->tail;
		req->svc_next = NULL;
		ent->tail->svc_next = req;
		ent->tail = req;
	} else {
		req->poll_prev = NULL;
		req->svc_next = ent->head;
		if (ent->head)
			ent->head->poll_prev = req;
		else
			ent->tail = req;
		ent->head = req;
	}
	ar_pollent_count(ent, req->poll_events, 1);
	atomic_fetch_add_explicit(&p->nr_armed, 1, memory_order_relaxed);
}

static void ar_pollent_del_locked(struct ar_poll *p, struct ar_ureq *req)
{
	struct ar_pollent *ent = ar_pollent_find_locked(p, ar_req_app_fd(req));

	if (!ent || (!req->poll_prev && ent->head != req))
		return;		/* on no list */
	if (req->poll_prev)
		req->poll_prev->svc_next = req->svc_next;
	else
		ent->head = req->svc_next;
	if (req->svc_next)
		req->svc_next->poll_prev = req->poll_prev;
	else
		ent->tail = req->poll_prev;
	if (!ent->head)
		ar_armed_fd_count(ar_req_app_fd(req), -1);
	req->svc_next = req->poll_prev = NULL;
	ar_pollent_count(ent, req->poll_events, -1);
	atomic_fetch_sub_explicit(&p->nr_armed, 1, memory_order_relaxed);
}

static struct ar_ureq **ar_poll_bucket(struct ar_ureq **hash, __u64 user_data)
{
	/* the 64-bit golden ratio multiplier: the kernel's hash_64() */
	return &hash[(user_data * 0x61C8864680B583EBULL) >> (64 - AR_POLL_HASH_BITS)];
}

/* a POLL_ADD into the ring's table, once; under ctx->lock. 0 or -ENOMEM */
static int ar_poll_hash_locked(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_ureq **b;

	if (req->flags & AR_REQ_F_HASHED)
		return 0;
	if (!ctx->poll_hash) {
		ctx->poll_hash = calloc(1U << AR_POLL_HASH_BITS, sizeof(*ctx->poll_hash));
		if (!ctx->poll_hash)
			return -ENOMEM;
	}
	b = ar_poll_bucket(ctx->poll_hash, req->user_data);
	req->hash_next = *b;
	if (*b)
		(*b)->hash_pprev = &req->hash_next;
	req->hash_pprev = b;
	*b = req;
	req->flags |= AR_REQ_F_HASHED;
	return 0;
}

void ar_poll_unhash_locked(struct ar_ureq *req)
{
	ar_lockdep_assert_held(req->ctx);
	*req->hash_pprev = req->hash_next;
	if (req->hash_next)
		req->hash_next->hash_pprev = req->hash_pprev;
	req->hash_next = NULL;
	req->hash_pprev = NULL;
	req->flags &= ~AR_REQ_F_HASHED;
}

/*
 * Does a send armed on req's fd before it still wait? Then req must not
 * send now: sends on one socket go out whole, in the order they were
 * submitted (D95; 6.18 re-issues waiting sends newest first, but its
 * sends seldom wait, and Debian's send-zerocopy example keeps 8
 * MSG_WAITALL sends in flight on one TCP socket). Takes ctx->lock only
 * when something is armed at all.
 */
bool ar_poll_send_behind(struct ar_ureq *req)
{
	struct ar_poll *p = ar_poll_of(req->ctx);
	struct ar_pollent *ent;
	struct ar_ureq *r;
	bool behind = false;

	/* relaxed: a hint; a send armed by this ring's other threads races either way */
	if (!p || !atomic_load_explicit(&p->nr_armed, memory_order_relaxed))
		return false;
	ar_ctx_lock(req->ctx);
	ent = ar_pollent_find_locked(p, ar_req_app_fd(req));
	for (r = ent ? ent->head : NULL; r && r != req; r = r->svc_next) {
		if (ar_req_is_send(r)) {
			behind = true;
			break;
		}
	}
	ar_ctx_unlock(req->ctx);
	return behind;
}

/*
 * A cancel found the request RUNNING (a worker's: it answered -EALREADY
 * and marked it, cancel.c) before it came to wait: it ends -ECANCELED
 * instead, as io-wq's work that sees the cancel. Under ctx->lock, as the
 * mark is made: one or the other comes first.
 */
static bool ar_req_interrupted_locked(struct ar_ureq *req)
{
	return __atomic_load_n(&req->interrupted, __ATOMIC_RELAXED);
}

/* off the list (an AIO poll is on none); under ctx->lock */
static void ar_poll_unlink_locked(struct ar_poll *p, struct ar_ureq *req)
{
	if (!(req->poll_flags & AR_POLLF_AIO))
		ar_pollent_del_locked(p, req);
	req->flags &= ~AR_REQ_F_POLLED;
	req->poll_flags = 0;
}

static int ar_poll_ctl(struct ar_poll *p, int op, int fd, __u32 events)
{
	struct epoll_event ev = {
		.events = events | AR_POLL_UNMASK | EPOLLET,
		.data.u64 = (unsigned)fd,
	};

	return epoll_ctl(p->epfd, op, fd, &ev) ? -errno : 0;
}

/*
 * Register fd for what its requests wait for. 1: nothing registered anew
 * (the registration covers them and force was not asked): the caller
 * looks at readiness itself; 0: registered, an edge is queued if the
 * file is ready; -errno.
 */
static int ar_poll_update(struct ar_uctx *ctx, struct ar_poll *p, int fd,
			  bool force)
{
	struct ar_pollent *ent;
	__u32 want = 0;
	int ret;

	pthread_mutex_lock(&p->ctl_lock);
	ar_ctx_lock(ctx);
	ent = ar_pollent_find_locked(p, fd);
	if (ent)
		want = ar_pollent_want(ent);
	ar_ctx_unlock(ctx);
	if (!want) {
		ret = 0;	/* taken off meanwhile: nothing to wait for */
	} else if (!force && ent->in_epoll && !(want & ~ent->reg)) {
		ret = 1;
	} else {
		ret = ar_poll_ctl(p, ent->in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
				  fd, want);
		/* the file was released (closed) or is new under this number */
		if (ret == -ENOENT)
			ret = ar_poll_ctl(p, EPOLL_CTL_ADD, fd, want);
		else if (ret == -EEXIST)
			ret = ar_poll_ctl(p, EPOLL_CTL_MOD, fd, want);
		ent->in_epoll = !ret;
		ent->reg = ret ? 0 : want;
	}
	pthread_mutex_unlock(&p->ctl_lock);
	return ret;
}

/* ar_poll_rearm()'s answer for a request that must be armed anew */
#define AR_POLL_ANEW		2

/*
 * A request that was issued after readiness wants to wait again. It
 * stayed on its list: no system call. Readiness that came while it ran
 * makes it try again at once; a cancel or a link timeout that reached it
 * meanwhile ends it here.
 */
static int ar_poll_rearm(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_poll *p = ar_poll_of(ctx);

	ar_ctx_lock(ctx);
	if ((req->poll_flags & AR_POLLF_CANCEL) || ctx->exiting ||
	    ar_req_interrupted_locked(req)) {
		ar_poll_unlink_locked(p, req);
		ar_ctx_unlock(ctx);
		return -ECANCELED;
	}
	if (req->poll_flags & AR_POLLF_AIO) {
		/* its AIO poll fired and the file had nothing after all */
		ar_poll_unlink_locked(p, req);
		ar_ctx_unlock(ctx);
		return AR_POLL_ANEW;
	}
	if (req->lt) {
		__u8 pf = req->poll_flags;

		/* off the list first: the park may complete and free it */
		ar_poll_unlink_locked(p, req);
		if (ar_link_timeout_park_locked(req))
			return 0;
		req->flags |= AR_REQ_F_POLLED;
		req->poll_flags = pf;
		ar_pollent_add_locked(p, p->ents[ar_req_app_fd(req)], req);
	}
	if (req->poll_flags & AR_POLLF_AGAIN) {
		req->poll_flags &= ~AR_POLLF_AGAIN;
		req->poll_res = 0;
		ar_ctx_unlock(ctx);
		return AR_POLL_RETRY;
	}
	req->poll_flags &= ~AR_POLLF_BUSY;
	ar_req_set_state(req, AR_REQ_ARMED);
	ar_ctx_unlock(ctx);
	return 0;
}

/* no new registration: is the file ready already? */
static bool ar_poll_ready_now(int fd, __u32 events)
{
	struct pollfd pfd = { .fd = fd, .events = (short)events };

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & (events | AR_POLL_UNMASK));
}

/*
 * The request's own reference on its file from its first wait, as the
 * kernel's (poll.h): a dup at a high number, out of the program's way.
 * Where none can be made it waits on the number, as before.
 */
static void ar_poll_hold_file(struct ar_ureq *req)
{
	int d;

	if ((req->flags & (AR_REQ_F_FIXED_FILE | AR_REQ_F_FD_REF)) || req->fd < 0)
		return;
	d = fcntl(req->fd, F_DUPFD_CLOEXEC, ar_fd_floor());
	if (d < 0)
		return;
	req->app_fd = req->fd;
	req->fd = ar_internal_claim(d);
	req->flags |= AR_REQ_F_FD_REF;
}

/*
 * A request starts waiting. It goes on its fd's list still this
 * thread's (AR_POLLF_BUSY: an edge meanwhile marks it, a cancel too),
 * the registration is made or the file looked at, and then it is let go
 * as any request that waits again (ar_poll_rearm()). So no edge between
 * its try and its arming is lost, and nothing else can end it while this
 * thread still looks at it.
 */
int ar_poll_arm(struct ar_ureq *req, __u32 events)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_pollent *ent;
	struct ar_poll *p;
	int ret, fd;
	bool idle;

	__u8 pf = (events & EPOLLEXCLUSIVE ? AR_POLLF_EXCL : 0) |
		  (req->flags & AR_REQ_F_POLL_ERR ? AR_POLLF_CANCEL_ONLY : 0);

	if (req->flags & AR_REQ_F_POLLED) {
		ret = ar_poll_rearm(req);
		if (ret != AR_POLL_ANEW)
			return ret;
	}
	/* a POLL_ADD is found by its user_data from its first arming on */
	if (req->opcode == IORING_OP_POLL_ADD && !(req->flags & AR_REQ_F_HASHED)) {
		ar_ctx_lock(ctx);
		ret = ar_poll_hash_locked(ctx, req);
		ar_ctx_unlock(ctx);
		if (ret)
			return ret;
	}
	if (ar_aiopoll_wanted(req, events)) {
		ret = ar_aiopoll_arm(req, events);
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	p = ar_poll_get(ctx);
	if (!p)
		return -EAGAIN;
	ar_poll_hold_file(req);
	fd = ar_req_app_fd(req);
	events &= AR_POLL_EVENTS;
	ar_ctx_lock(ctx);
	if (ctx->exiting || ar_req_interrupted_locked(req)) {
		ar_ctx_unlock(ctx);
		return -ECANCELED;
	}
	ent = ar_pollent_get_locked(p, fd);
	if (!ent) {
		ar_ctx_unlock(ctx);
		return -ENOMEM;
	}
	if (ar_link_timeout_park_locked(req))
		return 0;	/* its link timeout cancelled it instead */
	idle = !ent->head;
	/* io_uring signals before a POLL_ADD's arming are not its wakeups */
	if (req->opcode == IORING_OP_POLL_ADD)
		ar_req_data(req, struct ar_poll_add)->uring_seq =
			ar_poll_uring_seq(fd);
	req->poll_events = events;
	req->poll_flags = AR_POLLF_BUSY | pf;
	req->flags |= AR_REQ_F_POLLED;
	ar_pollent_add_locked(p, ent, req);
	ar_req_set_state(req, AR_REQ_ISSUING);
	ar_ctx_unlock(ctx);

	ret = ar_poll_update(ctx, p, fd, idle);
	if (ret == 1 && ar_poll_ready_now(fd, events))
		return AR_POLL_RETRY;	/* still this thread's: it tries again */
	/*
	 * A file epoll refuses (a regular file, a directory) has no wait
	 * queue: the kernel's poll finds it ready or never. The request
	 * stays armed, for a cancel to end.
	 */
	if (ret < 0 && ret != -EPERM) {
		ar_ctx_lock(ctx);
		if (req->poll_flags & AR_POLLF_CANCEL)
			ret = -ECANCELED;
		ar_poll_unlink_locked(p, req);
		ar_ctx_unlock(ctx);
		return ret;
	}
	return ar_poll_rearm(req);
}

bool ar_poll_disarm_locked(struct ar_ureq *req)
{
	struct ar_poll *p = ar_poll_of(req->ctx);

	ar_lockdep_assert_held(req->ctx);
	if (!(req->flags & AR_REQ_F_POLLED))
		return false;
	if (req->poll_flags & AR_POLLF_BUSY) {
		/* being issued: it ends when it would wait again (ar_poll_rearm()) */
		req->poll_flags |= AR_POLLF_CANCEL;
		return false;
	}
	if (req->poll_flags & AR_POLLF_AIO)
		ar_aiopoll_disarm_locked(req);
	else
		ar_poll_unlink_locked(p, req);
	return true;
}

bool ar_poll_done(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	bool cancelled;

	ar_ctx_lock(ctx);
	cancelled = req->poll_flags & AR_POLLF_CANCEL;
	ar_poll_unlink_locked(ar_poll_of(ctx), req);
	ar_ctx_unlock(ctx);
	return cancelled;
}

/* an edge on fd: the requests it is for are issued again; under ctx->lock */
static void ar_poll_dispatch_locked(struct ar_poll *p, int fd, __u32 revents,
				    struct ar_ureq ***tail, int *idle_fd)
{
	struct ar_pollent *ent = ar_pollent_find_locked(p, fd);
	bool excl_woken = false;
	struct ar_ureq *req;
	unsigned seq;
	__u32 mask;

	if (!ent)
		return;
	if (!ent->head)
		*idle_fd = fd;
	seq = ar_poll_uring_seq(fd);
	for (req = ent->head; req; req = req->svc_next) {
		mask = revents & (req->poll_events | AR_POLL_UNMASK);
		if (!mask)
			continue;
		/* the exclusive ones are last: the first takes the edge */
		if (req->poll_flags & AR_POLLF_EXCL) {
			if (excl_woken)
				break;
			excl_woken = true;
		}
		/* an io_uring signal's wakeup carries POLLIN alone */
		if (req->opcode == IORING_OP_POLL_ADD &&
		    ar_poll_uring_woken(req, seq))
			mask = POLLIN;
		if (req->poll_flags & AR_POLLF_BUSY) {
			req->poll_flags |= AR_POLLF_AGAIN;
			continue;
		}
		req->poll_flags |= AR_POLLF_BUSY;
		req->poll_res = mask;
		ar_req_set_state(req, AR_REQ_ISSUING);
		req->next = NULL;
		**tail = req;
		*tail = &req->next;
	}
}

/* an edge found fd with nothing armed: stop watching it */
static void ar_poll_drop_idle(struct ar_uctx *ctx, struct ar_poll *p, int fd)
{
	struct ar_pollent *ent;

	pthread_mutex_lock(&p->ctl_lock);
	ar_ctx_lock(ctx);
	ent = ar_pollent_find_locked(p, fd);
	if (ent && (ent->head || !ent->in_epoll))
		ent = NULL;	/* armed again meanwhile: its arming registered it */
	ar_ctx_unlock(ctx);
	if (ent) {
		(void)!epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
		ent->in_epoll = false;
		ent->reg = 0;
	}
	pthread_mutex_unlock(&p->ctl_lock);
}

/*
 * The edges epoll gave, taken by the caller as the one reaper: the
 * requests they are for appended at *tail (a list's end, NULL), the
 * idle fds marked in evs (-1 otherwise). True if the owner's eventfd
 * was among them.
 */
static bool ar_poll_dispatch_evs(struct ar_uctx *ctx, struct ar_poll *p,
				 struct epoll_event *evs, int n,
				 struct ar_ureq **tail)
{
	bool woken = false;
	int i, idle_fd;

	ar_ctx_lock(ctx);
	for (i = 0; i < n; i++) {
		idle_fd = -1;
		if (evs[i].data.u64 == AR_POLL_WAKE_TAG)
			woken = true;
		else if (evs[i].data.u64 == AR_POLL_XCANCEL_TAG)
			continue;	/* answered after the reap (ar_poll_issue_ready()) */
		else
			ar_poll_dispatch_locked(p, (int)evs[i].data.u64,
						evs[i].events, &tail, &idle_fd);
		evs[i].data.u64 = (__u64)(__s64)idle_fd;
	}
	ar_ctx_unlock(ctx);
	return woken;
}

/* the batch this thread is issuing, for requeues (poll.h) */
__thread struct ar_poll_batch *ar_poll_cur_batch;

void ar_poll_batch_drain(struct ar_poll_batch *b)
{
	struct ar_ureq *req;

	while ((req = b->head)) {
		/* off the batch before its issue, which may free or requeue it */
		b->head = req->next;
		if (!b->head)
			b->tail = &b->head;
		ar_req_issue(req, AR_ISSUE_NONBLOCK);
	}
}

bool ar_poll_requeue(struct ar_ureq *req)
{
	struct ar_poll_batch *b = ar_poll_cur_batch;

	/* after readiness it stays AR_POLLF_BUSY on its fd's list meanwhile */
	if (!b || b->ctx != req->ctx)
		return false;
	req->next = NULL;
	*b->tail = req;
	b->tail = &req->next;
	return true;
}

/*
 * The idle fds ar_poll_dispatch_evs() marked in evs are dropped, out of
 * reap_lock; true if the cancel eventfd's edge was among them.
 */
static bool ar_poll_drop_idles(struct ar_uctx *ctx, struct ar_poll *p,
			       const struct epoll_event *evs, int n)
{
	bool xcancel = false;
	int i;

	for (i = 0; i < n; i++) {
		if (evs[i].data.u64 == AR_POLL_XCANCEL_TAG)
			xcancel = true;
		else if ((__s64)evs[i].data.u64 >= 0)
			ar_poll_drop_idle(ctx, p, (int)evs[i].data.u64);
	}
	return xcancel;
}

/* ... then, no longer the reaper: idle fds dropped, the requests issued */
static int ar_poll_issue_ready(struct ar_uctx *ctx, struct ar_poll *p,
			       struct epoll_event *evs, int n,
			       struct ar_ureq *ready)
{
	struct ar_poll_batch b;
	struct ar_ureq *req, *next;
	int nr = 0;

	/* out of reap_lock: the cancelled complete, which may disarm */
	if (ar_poll_drop_idles(ctx, p, evs, n))
		ar_xcancel_serve(ctx);
	ar_poll_batch_begin(ctx, &b);
	for (req = ready; req; req = next) {
		next = req->next;
		ar_req_issue(req, AR_ISSUE_NONBLOCK);
		nr++;
	}
	ar_poll_batch_end(&b);
	return nr;
}

/*
 * The edges a DEFER_TASKRUN ring's task was told of are taken (a reap,
 * or the owner's sleep on the epoll fd): what it was told goes, a hint
 * for svc.c's sleep (ar_poll_has_sleepers()) and what keeps a
 * TASKRUN_FLAG ring's IORING_SQ_TASKRUN up. seq_cst, before the flag
 * comes down (ar_tw_flag_settle()); the task list keeps it up unless
 * the punt thread runs it, which leaves the flag alone. Under tell_lock.
 */
static void ar_poll_untell_locked(struct ar_uctx *ctx, struct ar_poll *p)
{
	if (atomic_exchange_explicit(&p->deferred, false, memory_order_seq_cst) &&
	    (ctx->flags & IORING_SETUP_TASKRUN_FLAG))
		ar_tw_flag_settle(ctx, !ctx->punt);
}

/*
 * Wait for the reapers issuing now to finish: as many finishes as there
 * are issuers, or none issuing. Bounded: reapers that begin later only
 * end the wait sooner (their finishes count too). Under reap_lock.
 */
static void ar_poll_issued_wait_locked(struct ar_poll *p)
{
	unsigned target = p->issued_nr + p->issuing;

	while (p->issuing && (int)(p->issued_nr - target) < 0)
		pthread_cond_wait(&p->issued, &p->reap_lock);
}

/*
 * The requests held for the task (ar_poll_hold()), taken as the start
 * of a reap's ready list: *tail is where the reap's own go. Under
 * reap_lock.
 */
static struct ar_ureq *ar_poll_take_held_locked(struct ar_poll *p,
						bool *xcancel,
						struct ar_ureq ***tail)
{
	struct ar_ureq *held = p->held;

	*xcancel = p->held_xcancel;
	p->held_xcancel = false;
	*tail = held ? p->held_tail : NULL;
	p->held = NULL;
	p->held_tail = &p->held;
	return held;
}

/* how a reap goes (ar_poll_reap_locking()) */
enum {
	/* wait for reap_lock and for the issues of reapers before */
	AR_REAP_SYNC	= 1U << 0,
	/* reap though the owner waiter sleeps on the epoll fd */
	AR_REAP_FORCE	= 1U << 1,
};

/*
 * The owner waiter's eventfd edge was taken by a reap that did not wait
 * for its sleep to end (AR_REAP_FORCE): written again, so that the
 * sleep still ends. Raw: no errno to keep, the engine's own write.
 */
static void ar_poll_rewake_owner(struct ar_poll *p)
{
	uint64_t one = 1;

	/* the owner's eventfd stays open while registered (ar_poll_own_locked()) */
	(void)ar_raw_syscall6(SYS_write, p->owner->efd, (long)&one,
			      sizeof(one), 0, 0, 0);
}

/*
 * A reaper took the owner's eventfd edge: its next sleep does not
 * begin; or, asleep now (a FORCE reap, a hold), it wakes from this one.
 * Relaxed: a sleep that ended meanwhile only wakes its next one early.
 * Under reap_lock.
 */
static void ar_poll_owner_edge_locked(struct ar_poll *p)
{
	if (atomic_load_explicit(&p->ep_sleeper, memory_order_relaxed))
		ar_poll_rewake_owner(p);
	else
		p->wake_seen = true;
}

/*
 * The reap: the edges epoll holds, dispatched under reap_lock (waited
 * for with AR_REAP_SYNC, else tried: -EBUSY), their requests issued
 * after it. SYNC also waits for the issues of other reapers that took
 * edges before: what epoll held is then all posted. While the owner
 * waiter sleeps on the epoll fd, it is the one reaper, unless FORCE.
 */
static int ar_poll_reap_locking(struct ar_uctx *ctx, struct ar_poll *p,
				unsigned how)
{
	struct epoll_event evs[AR_POLL_BATCH];
	struct ar_ureq *ready = NULL, **tail;
	bool issuing, task, sync = how & AR_REAP_SYNC, xcancel = false;
	int n;

	if (sync)
		pthread_mutex_lock(&p->reap_lock);
	else if (pthread_mutex_trylock(&p->reap_lock))
		return -EBUSY;
	/*
	 * The owner asleep on the epoll fd reaps what comes (ar_poll_sleep()).
	 * Set under reap_lock, cleared with release after its dispatch
	 * (acquire here): a reaper that sees it clear sees those requests
	 * dispatched.
	 */
	if (!(how & AR_REAP_FORCE) &&
	    atomic_load_explicit(&p->ep_sleeper, memory_order_acquire)) {
		pthread_mutex_unlock(&p->reap_lock);
		return -EBUSY;
	}
	/*
	 * A DEFER_TASKRUN ring's take of the edges and the reset of what its
	 * task was told are one step under tell_lock: a telling is before
	 * both, or after both and about edges that came after the take.
	 */
	task = ar_poll_task_reaps(ctx);
	if (task)
		pthread_mutex_lock(&p->tell_lock);
	/* the fd changes only under reap_lock (ar_poll_exit()) */
	n = p->epfd >= 0 ? epoll_wait(p->epfd, evs, AR_POLL_BATCH, 0) : 0;
	if (task) {
		ar_poll_untell_locked(ctx, p);
		pthread_mutex_unlock(&p->tell_lock);
	}
	if (n < 0)
		n = 0;
	/* edges held for the task come first: they are older */
	ready = ar_poll_take_held_locked(p, &xcancel, &tail);
	if (!ready)
		tail = &ready;
	if (!n && !ready && !xcancel) {
		if (sync)
			ar_poll_issued_wait_locked(p);
		pthread_mutex_unlock(&p->reap_lock);
		return 0;
	}
	/* the owner's wake, taken here */
	if (ar_poll_dispatch_evs(ctx, p, evs, n, tail))
		ar_poll_owner_edge_locked(p);
	issuing = ready != NULL;
	p->issuing += issuing;
	pthread_mutex_unlock(&p->reap_lock);
	if (xcancel)
		ar_xcancel_serve(ctx);
	n = ar_poll_issue_ready(ctx, p, evs, n, ready);
	if (!issuing && !sync)
		return n;
	pthread_mutex_lock(&p->reap_lock);
	if (issuing) {
		/* each finish: a waiter counts them (ar_poll_issued_wait_locked()) */
		p->issued_nr++;
		p->issuing--;
		pthread_cond_broadcast(&p->issued);
	}
	if (sync)
		ar_poll_issued_wait_locked(p);
	pthread_mutex_unlock(&p->reap_lock);
	return n;
}

/*
 * Wait for reapers that took edges before to finish issuing them: an
 * edge taken is no longer in the epoll fd, and its CQE may not be
 * posted yet.
 */
static void ar_poll_reap_wait(struct ar_poll *p)
{
	pthread_mutex_lock(&p->reap_lock);
	ar_poll_issued_wait_locked(p);
	pthread_mutex_unlock(&p->reap_lock);
}

int ar_poll_try_reap(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);

	return p ? ar_poll_reap_locking(ctx, p, 0) : 0;
}

/*
 * The first waiter to sleep here puts its eventfd in the epoll set,
 * edge-triggered: each write to it (a waker's, waitq.c) is one edge,
 * which the owner asleep in epoll_wait() takes, or another reaper
 * (wake_seen). Under reap_lock, which ar_poll_exit() closes the fd
 * under. Other threads keep sleeping in ppoll() (ar_waiter_sleep()).
 */
static bool ar_poll_own_locked(struct ar_poll *p, struct ar_waiter *w)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLET,
		.data.u64 = AR_POLL_WAKE_TAG,
	};

	if (p->owner || p->no_owner)
		return p->owner == w;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, w->efd, &ev)) {
		p->no_owner = true;
		return false;
	}
	ar_waiter_get(w);	/* its eventfd stays open while registered */
	p->owner = w;
	return true;
}

/*
 * A waiter with armed requests sleeps in epoll_wait() on the epoll fd
 * (its eventfd in the set) and dispatches what it got: one system call
 * where ppoll() and then epoll_wait() made two. While it sleeps no other
 * thread reaps (try_reap answers -EBUSY), so no edge meant for it is
 * taken elsewhere; one taken before it went to sleep was marked
 * (wake_seen) and ends this sleep before it begins.
 * n > 0: requests were issued; 0: woken; -ETIMEDOUT, -EINTR;
 * -EAGAIN: not here (not the owner, another thread reaping, exit): the
 * caller sleeps in ppoll() instead.
 */
int ar_poll_sleep(struct ar_uctx *ctx, struct ar_waiter *w, __u64 deadline_ns,
		  const sigset_t *sigmask)
{
	struct ar_poll *p = ar_poll_of(ctx);
	struct epoll_event evs[AR_POLL_BATCH];
	struct ar_ureq *ready = NULL;
	bool woken;
	int n, epfd;

	if (!p || pthread_mutex_trylock(&p->reap_lock))
		return -EAGAIN;
	epfd = p->epfd;
	if (epfd < 0 || !ar_poll_own_locked(p, w)) {
		pthread_mutex_unlock(&p->reap_lock);
		return -EAGAIN;
	}
	if (p->wake_seen) {
		p->wake_seen = false;
		pthread_mutex_unlock(&p->reap_lock);
		ar_waiter_drain(w);
		return 0;
	}
	/* edges held for the task (ar_poll_hold()): issued, not slept on */
	if (p->held || p->held_xcancel) {
		pthread_mutex_unlock(&p->reap_lock);
		n = ar_poll_reap_locking(ctx, p, 0);
		return n > 0 ? n : 0;
	}
	/* relaxed: under reap_lock, which a reaper takes before its look */
	atomic_store_explicit(&p->ep_sleeper, true, memory_order_relaxed);
	pthread_mutex_unlock(&p->reap_lock);

	n = ar_waiter_sleep_epoll(deadline_ns, sigmask, epfd, evs,
				  AR_POLL_BATCH);
	if (n < 0) {
		/* pairs with the acquire in ar_poll_try_reap() */
		atomic_store_explicit(&p->ep_sleeper, false, memory_order_release);
		/* a closed fd (ring exit): look again, the next sleep is ppoll's */
		return n == -ETIMEDOUT || n == -EINTR ? n : 0;
	}
	woken = ar_poll_dispatch_evs(ctx, p, evs, n, &ready);
	/* the edges taken: what the task was told of goes (no telling while it slept) */
	if (ar_poll_task_reaps(ctx)) {
		pthread_mutex_lock(&p->tell_lock);
		ar_poll_untell_locked(ctx, p);
		pthread_mutex_unlock(&p->tell_lock);
	}
	/* pairs with the acquire in ar_poll_try_reap(): dispatched first */
	atomic_store_explicit(&p->ep_sleeper, false, memory_order_release);
	if (woken)
		ar_waiter_drain(w);
	return ar_poll_issue_ready(ctx, p, evs, n, ready);
}

/*
 * DEFER_TASKRUN: readiness is the task's local work, which the kernel
 * runs only when the task enters to wait, telling the ring fd, a
 * registered eventfd and, with TASKRUN_FLAG, IORING_SQ_TASKRUN when it
 * is queued (io_req_local_work_add()). Every enter here reaps it
 * (ar_enter_ring(), ar_wait_sleep()), so the service thread need not
 * issue it: it tells the ring, as ar_tw_add() does for queued work, and
 * leaves the epoll fd alone until the task has reaped (has_sleepers).
 * Issuing it there moved each request to another thread and woke that
 * thread for every edge while the task was busy between two enters.
 * Under wake=every too: readiness issued by the service thread would
 * post what the file was when it looked, before the task's wait.
 */
bool ar_poll_task_reaps(struct ar_uctx *ctx)
{
	return (ctx->flags & IORING_SETUP_DEFER_TASKRUN) &&
	       !(ctx->flags & IORING_SETUP_IOPOLL);
}

bool ar_poll_deferred(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);

	/* seq_cst: pairs with the flag's RMWs (ar_tw_flag_settle()) */
	return p && atomic_load_explicit(&p->deferred, memory_order_seq_cst);
}

static int ar_poll_armed_fd(struct ar_poll *p)
{
	if (!p || !atomic_load_explicit(&p->nr_armed, memory_order_relaxed))
		return -1;
	/* relaxed: a sleep on a number closed at exit only ends early */
	return __atomic_load_n(&p->epfd, __ATOMIC_RELAXED);
}

/*
 * Does the epoll fd hold an edge, as the service thread's sleep sees it
 * (armed requests' or the owner waiter's)? Raw: libc's poll() is a hook.
 */
static bool ar_poll_epfd_ready(struct ar_poll *p)
{
	/* relaxed: a look at a number closed at exit only ends early */
	struct pollfd pfd = { .fd = __atomic_load_n(&p->epfd, __ATOMIC_RELAXED),
			      .events = POLLIN };
	struct timespec now = { 0, 0 };

	/* a number closed at the ring's exit polls POLLNVAL: not ready */
	return pfd.fd >= 0 &&
	       ar_raw_syscall6(SYS_ppoll, (long)&pfd, 1, (long)&now, 0, 0, 0) == 1 &&
	       (pfd.revents & POLLIN);
}

/*
 * tell_lock for a program thread in a poll hook, which may be a signal
 * handler's poll on a thread that holds it: tried a bounded number of
 * times, yielding, so the handler never waits on its own thread. A
 * holder that keeps it longer (descheduled) leaves the telling to it.
 */
#define AR_POLL_TELL_TRIES	64

static bool ar_poll_tell_trylock(struct ar_poll *p)
{
	for (unsigned i = 0; i < AR_POLL_TELL_TRIES; i++) {
		if (!pthread_mutex_trylock(&p->tell_lock))
			return true;
		sched_yield();
	}
	return false;
}

/*
 * Tell the task of a DEFER_TASKRUN ring that it has readiness to reap:
 * "told" (p->deferred), IORING_SQ_TASKRUN with TASKRUN_FLAG, its ring fd
 * and registered eventfd signalled, a waiter in the ring woken. Under
 * tell_lock.
 */
static void ar_poll_tell_locked(struct ar_uctx *ctx, struct ar_poll *p)
{
	/* seq_cst, before the flag goes up: pairs with ar_tw_flag_settle() */
	atomic_store_explicit(&p->deferred, true, memory_order_seq_cst);
	/* before the signals: a loop they wake sees the flag */
	if (ctx->flags & IORING_SETUP_TASKRUN_FLAG)
		__atomic_fetch_or(&ctx->rings->sq_flags, IORING_SQ_TASKRUN,
				  __ATOMIC_SEQ_CST);
	ar_ring_signal_ready(ctx);
	/*
	 * The task may wait in the ring without the epoll fd (it went to
	 * sleep before anything was armed, as when io-wq arms an
	 * IOSQE_ASYNC request): woken, it looks again and reaps, as the
	 * kernel's io_req_local_work_add() wakes it. The barrier pairs with
	 * the waiter's ar_wake_mb() between its registration
	 * (ar_waitq_add()) and its look at what is armed
	 * (ar_poll_sleep_begin()): either it sleeps on the epoll fd or it
	 * is seen here.
	 */
	ar_wake_mb();
	if (ar_wake_has_sleepers(&ctx->cq_waiters))
		ar_waitq_wake(ctx, true);	/* no CQE to judge by */
}

/*
 * Readiness is there for the task of a DEFER_TASKRUN ring: tell it, once
 * until it reaps (p->deferred). Not while a waiter sleeps on the epoll
 * fd: it reaps that itself. sync (the program about to poll): if another
 * thread is telling, wait for it (bounded: ar_poll_tell_trylock()), so
 * that the fd polls as the kernel's when this returns; else (the service
 * thread) a telling done or under way is enough.
 */
static void ar_poll_tell_task(struct ar_uctx *ctx, struct ar_poll *p,
			      bool sync)
{
	if (atomic_load_explicit(&p->sleepers, memory_order_relaxed) ||
	    (!sync && atomic_load_explicit(&p->deferred, memory_order_relaxed)))
		return;
	if (!sync)
		pthread_mutex_lock(&p->tell_lock);
	else if (!ar_poll_tell_trylock(p))
		return;
	/*
	 * The edge that sent the caller here may have been reaped by the
	 * task since (the service thread's look comes late): still there,
	 * or nothing to tell. A ring past ar_poll_exit() has no epoll fd.
	 */
	if (!atomic_load_explicit(&p->deferred, memory_order_relaxed) &&
	    ar_poll_epfd_ready(p))
		ar_poll_tell_locked(ctx, p);
	pthread_mutex_unlock(&p->tell_lock);
}

/*
 * The task of a DEFER_TASKRUN ring has requests held (ar_poll_hold()):
 * told as ar_poll_tell_task() tells it, without the look at the epoll
 * fd; a waiter asleep on that fd is woken too (ar_waitq_wake() writes
 * its eventfd, which is in the set).
 */
static void ar_poll_tell_held(struct ar_uctx *ctx, struct ar_poll *p)
{
	pthread_mutex_lock(&p->tell_lock);
	ar_poll_tell_locked(ctx, p);
	pthread_mutex_unlock(&p->tell_lock);
}

/*
 * A program thread's read may take what a DEFER_TASKRUN ring's edges
 * are for (ar_poll_preread()): the edges are taken now and their
 * requests dispatched, as the kernel's wakeup queues the task's local
 * work with the mask it carried, and held until the task reaps, which
 * issues them first (ar_poll_reap_locking(), ar_poll_sleep()). The
 * task is told as for readiness still in the epoll fd, and a waiter
 * asleep on the fd is woken: the held requests are not there.
 */
static void ar_poll_hold(struct ar_uctx *ctx, struct ar_poll *p)
{
	struct epoll_event evs[AR_POLL_BATCH];
	struct ar_ureq **tail;
	bool woken, held;
	int n, i;

	pthread_mutex_lock(&p->reap_lock);
	/*
	 * A ring that is ending holds nothing more: its end's ar_poll_unhold()
	 * takes reap_lock after dead is set (acquire pairs with that release)
	 */
	n = atomic_load_explicit(&ctx->dead, memory_order_acquire) ||
	    p->epfd < 0 ? 0 : epoll_wait(p->epfd, evs, AR_POLL_BATCH, 0);
	if (n <= 0) {
		pthread_mutex_unlock(&p->reap_lock);
		return;
	}
	for (i = 0; i < n; i++)
		if (evs[i].data.u64 == AR_POLL_XCANCEL_TAG)
			p->held_xcancel = true;
	tail = p->held_tail;
	woken = ar_poll_dispatch_evs(ctx, p, evs, n, tail);
	/* the list's new end: the dispatch appended behind the old one */
	while (*tail)
		tail = &(*tail)->next;
	p->held_tail = tail;
	if (woken)
		ar_poll_owner_edge_locked(p);
	held = p->held || p->held_xcancel;
	pthread_mutex_unlock(&p->reap_lock);
	/* idle fds are dropped now; nothing else is issued here */
	(void)ar_poll_drop_idles(ctx, p, evs, n);
	/* edges of idle fds or the owner's alone: nothing to tell */
	if (held)
		ar_poll_tell_held(ctx, p);
}

/* the service thread's reap (svc.c) */
unsigned ar_poll_reap(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);
	int n;

	/*
	 * With nothing armed the edge is an idle fd's or the owner waiter's:
	 * nothing for the task, and no reap of its would take it. Taken
	 * here (the service thread would wake for it again), issuing none.
	 */
	if (p && ar_poll_task_reaps(ctx) && ar_poll_armed_fd(p) >= 0) {
		ar_poll_tell_task(ctx, p, false);
		return 0;
	}
	n = ar_poll_try_reap(ctx);
	return n > 0 ? (unsigned)n : 0;
}

unsigned ar_poll_reap_armed_slow(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);
	int n = 0;

	/* or the task was told of edges that are still to be taken */
	if (ar_poll_armed_fd(p) >= 0 ||
	    (p && atomic_load_explicit(&p->deferred, memory_order_relaxed)))
		n = ar_poll_try_reap(ctx);
	return n > 0 ? (unsigned)n : 0;
}

/* at most this many rings a round, and rounds an enter */
#define AR_POLL_OTHERS		16
#define AR_POLL_OTHER_ROUNDS	4

/*
 * Under ar_pollers.lock: up to max live rings other than self with
 * requests armed, DEFER_TASKRUN ones (task) or the others, each with a
 * reference the caller puts.
 */
static unsigned ar_pollers_pick(struct ar_uctx **got, struct ar_uctx *self,
				bool task, unsigned max)
{
	struct ar_uctx *c;
	unsigned i, n = 0;

	for (i = 0; i < ar_pollers.nr && n < max; i++) {
		c = ar_pollers.rings[i];
		/* acquire pairs with the release that sets dead in ar_user_end() */
		if (c == self || ar_poll_task_reaps(c) != task ||
		    atomic_load_explicit(&c->dead, memory_order_acquire) ||
		    ar_poll_armed_fd(ar_poll_of(c)) < 0)
			continue;
		ar_uctx_get(c);
		got[n++] = c;
	}
	return n;
}

/* one round: the rings other than self with requests armed */
static bool ar_poll_run_round(struct ar_uctx *self)
{
	struct ar_uctx *got[AR_POLL_OTHERS], *c;
	unsigned i, n;

	pthread_mutex_lock(&ar_pollers.lock);
	n = ar_pollers_pick(got, self, false, AR_POLL_OTHERS);
	pthread_mutex_unlock(&ar_pollers.lock);
	for (i = 0; i < n; i++) {
		c = got[i];
		(void)ar_poll_reap_locking(c, ar_poll_of(c), AR_REAP_SYNC);
		ar_uctx_put(c);
	}
	return n > 0;
}

/*
 * The task work an enter ends with, for readiness it made itself: a
 * CQE posted here made a ring fd or an eventfd readable, and another
 * ring of the process polls it. The kernel's poll wakeup queues that
 * ring's work for the task that armed it, which runs it on its way out
 * of this system call, so the CQE is there when the enter returns
 * (liburing's poll test, a ring polling a second ring's fd). Here the
 * enter reaps those rings' epoll sets, which the write filled before it
 * returned. Rounds, bounded: a CQE posted by a round may ready more.
 * DEFER_TASKRUN rings are left to their own task's wait, as the kernel
 * leaves them. Polls armed by other threads are reaped here too, where
 * the kernel would interrupt their task: the service thread's work,
 * done sooner.
 */
void ar_poll_run_others(struct ar_uctx *self)
{
	unsigned r, nr;

	for (r = 0; r < AR_POLL_OTHER_ROUNDS && ar_poll_readied; r++) {
		ar_poll_readied = false;
		/* relaxed: hints, the round looks under the lock */
		nr = __atomic_load_n(&ar_pollers.nr, __ATOMIC_RELAXED);
		if (!nr || (nr == 1 && atomic_load_explicit(&self->on_pollers,
							     memory_order_relaxed)) ||
		    !ar_poll_run_round(self))
			break;
	}
	ar_poll_readied = false;
}

/*
 * A thread of the program is about to sleep on fds, or to look at them
 * (ringfd.c ar_user_prepoll()): a DEFER_TASKRUN ring whose armed files
 * are ready is told now, as the kernel queued its local work at the
 * wakeup: its ring fd and registered eventfd poll readable and, with
 * TASKRUN_FLAG, IORING_SQ_TASKRUN is up (liburing's defer-taskrun: an
 * eventfd written, then polled, then the flag). The service thread
 * tells it too, a moment later. One poll(2) of each such ring's epoll
 * fd, at most AR_POLL_OTHERS rings. Its locks are only tried: a signal
 * handler's poll on a thread that holds one leaves the telling to the
 * service thread.
 */
void ar_poll_prepoll(void)
{
	struct ar_uctx *got[AR_POLL_OTHERS], *c;
	struct ar_quiet q;
	struct ar_poll *p;
	unsigned i, n;

	/* relaxed: a hint, looked at again under the lock */
	if (!__atomic_load_n(&ar_pollers.nr_task, __ATOMIC_RELAXED))
		return;
	/*
	 * The engine's own polls inside are not the program's; nor is a
	 * signal handler's read meanwhile (ar_poll_preread() waits for
	 * ar_pollers.lock)
	 */
	ar_quiet_enter(&q);
	/* a signal handler's poll may interrupt a holder: never wait for it */
	if (pthread_mutex_trylock(&ar_pollers.lock)) {
		ar_quiet_leave(&q);
		return;
	}
	n = ar_pollers_pick(got, NULL, true, AR_POLL_OTHERS);
	pthread_mutex_unlock(&ar_pollers.lock);
	for (i = 0; i < n; i++) {
		c = got[i];
		p = ar_poll_of(c);
		if (atomic_load_explicit(&p->deferred, memory_order_relaxed)) {
			/* told, or being told: the telling is done after this */
			if (ar_poll_tell_trylock(p))
				pthread_mutex_unlock(&p->tell_lock);
		} else if (ar_poll_epfd_ready(p)) {
			ar_poll_tell_task(c, p, true);
		}
		ar_uctx_put(c);
	}
	ar_quiet_leave(&q);
}

/*
 * A thread of the program is about to read fd, which a request of one
 * of the process's rings waits on (the user engine's preread: libc's
 * read and receive families, engine/pollhook.c). The kernel's wakeup
 * took the file's readiness at the write that made it, and the poll's
 * task work posts that mask even if the file has nothing left when it
 * runs. epoll keeps no mask: it looks at the file again when its edges
 * are reaped, and this read may take what the edge was for (liburing's
 * poll-mshot-wake: an eventfd written, then read, then the wait). So
 * the edges are reaped first, here: one ppoll(2) of the rings' epoll
 * fds, and a reap of each that holds one, at most AR_POLL_OTHERS rings. Each ring's
 * reap, or a look at it where ppoll() found nothing, waits for another
 * reaper (the service thread) that took edges first, so that what they
 * were for is posted when the read begins, as the kernel's task work is
 * done when the write returns. A reap while the owner waiter sleeps on
 * the epoll fd wakes it again.
 *
 * A DEFER_TASKRUN ring's requests are issued only where its task
 * enters: their edges are taken and held for it (ar_poll_hold()), once,
 * with no rounds (nothing is posted here). The locks are waited for:
 * the thread holds none of the engine's, since a read made inside the
 * engine (a signal handler's, on a thread in an enter or in the poll
 * hook's look) skips all this (ar_hook_off).
 */
void ar_poll_preread(int fd)
{
	struct ar_uctx *got[AR_POLL_OTHERS];
	struct pollfd pfd[AR_POLL_OTHERS];
	struct timespec now = { 0, 0 };
	struct ar_quiet q;
	struct ar_poll *p;
	unsigned i, n, nt, r;
	bool issued;
	long ready;

	if (!ar_armed_fd(fd))
		return;
	/* the engine's own reads and polls inside are not the program's */
	ar_quiet_enter(&q);
	pthread_mutex_lock(&ar_pollers.lock);
	n = ar_pollers_pick(got, NULL, false, AR_POLL_OTHERS);
	nt = ar_pollers_pick(got + n, NULL, true, AR_POLL_OTHERS - n);
	pthread_mutex_unlock(&ar_pollers.lock);
	/* DEFER_TASKRUN rings: what their edges are for is held for the task */
	for (i = n; i < n + nt; i++) {
		p = ar_poll_of(got[i]);
		if (ar_poll_epfd_ready(p))
			ar_poll_hold(got[i], p);
		ar_uctx_put(got[i]);
	}
	/* rounds, bounded: a CQE posted by one may ready more (an eventfd) */
	for (r = 0; r < AR_POLL_OTHER_ROUNDS && n; r++) {
		for (i = 0; i < n; i++) {
			/* -1 once disarmed: ppoll() skips it */
			pfd[i].fd = ar_poll_armed_fd(ar_poll_of(got[i]));
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		/* raw: libc's ppoll() is a hook */
		ready = ar_raw_syscall6(SYS_ppoll, (long)pfd, n, (long)&now,
					0, 0, 0);
		issued = false;
		for (i = 0; i < n; i++) {
			p = ar_poll_of(got[i]);
			if (ready > 0 && (pfd[i].revents & POLLIN))
				issued |= ar_poll_reap_locking(got[i], p,
						AR_REAP_SYNC | AR_REAP_FORCE) > 0;
			else if (!r)
				ar_poll_reap_wait(p);
		}
		if (!issued)
			break;
	}
	for (i = 0; i < n; i++)
		ar_uctx_put(got[i]);
	ar_quiet_leave(&q);
}

/*
 * Counted while asleep, so that the service thread leaves the epoll fd
 * to it (svc.c). Relaxed: a hint either way; a stale count costs the
 * service thread one needless wakeup, or its bounded blind sleep.
 */
int ar_poll_sleep_begin(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);
	int fd = ar_poll_armed_fd(p);

	if (fd >= 0)
		atomic_fetch_add_explicit(&p->sleepers, 1, memory_order_relaxed);
	return fd;
}

void ar_poll_sleep_end(struct ar_uctx *ctx)
{
	atomic_fetch_sub_explicit(&ar_poll_of(ctx)->sleepers, 1,
				  memory_order_relaxed);
}

bool ar_poll_has_sleepers(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);

	/* deferred: the task was told, and reaps when it enters (no spin) */
	return p && (atomic_load_explicit(&p->sleepers, memory_order_relaxed) ||
		     atomic_load_explicit(&p->deferred, memory_order_relaxed));
}

int ar_poll_epfd(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);

	return p ? __atomic_load_n(&p->epfd, __ATOMIC_RELAXED) : -1;
}

/*
 * The ring ends: requests held for its task (ar_poll_hold()) wait again,
 * as if their edge had not come, so that the cancels find them armed
 * (a held request's issue would wait for its issuer). Not issued: the
 * program may have unmapped what they would use (its buffer ring).
 */
void ar_poll_unhold(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);
	struct ar_ureq *req, *next;
	bool xcancel;

	if (!p)
		return;
	pthread_mutex_lock(&p->reap_lock);
	req = ar_poll_take_held_locked(p, &xcancel, &(struct ar_ureq **){ NULL });
	pthread_mutex_unlock(&p->reap_lock);
	ar_ctx_lock(ctx);
	for (; req; req = next) {
		next = req->next;
		req->next = NULL;
		req->poll_flags &= ~(AR_POLLF_BUSY | AR_POLLF_AGAIN);
		req->poll_res = 0;
		ar_req_set_state(req, AR_REQ_ARMED);
	}
	ar_ctx_unlock(ctx);
}

/*
 * Ring exit: every armed request was cancelled (ar_cancel_all()), the
 * service thread is gone. A waiter still in an enter may hold the fd
 * number: it is closed under the reap lock, and the struct stays until
 * the ring is freed.
 */
void ar_poll_exit(struct ar_uctx *ctx)
{
	struct ar_poll *p = ar_poll_of(ctx);
	int fd;

	if (!p)
		return;
	ar_pollers_del(ctx);
	pthread_mutex_lock(&p->reap_lock);
	/*
	 * Under tell_lock too: a telling (a program thread's poll hook, which
	 * may have picked the ring before its end) is over, and a later one
	 * finds no epoll fd and tells nothing: the eventfd and the ring fd's
	 * other end, closed after this, are no longer written (ctx.c).
	 */
	pthread_mutex_lock(&p->tell_lock);
	fd = p->epfd;
	__atomic_store_n(&p->epfd, -1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->tell_lock);
	pthread_mutex_unlock(&p->reap_lock);
	if (fd >= 0)
		ar_internal_close(fd);
}

/*
 * A forked child's copy of the parent's readiness backend: its epoll set
 * is the parent's (an epoll fd shares it), so the child's copy of the fd
 * goes, and the child makes its own on first use (fork.c).
 */
void ar_poll_forget(struct ar_uctx *ctx)
{
	struct ar_poll *p = ctx->svc.poll;

	free(ctx->poll_hash);
	ctx->poll_hash = NULL;
	ctx->svc.poll = NULL;
	/*
	 * Off the list without its lock, which a parent's thread may have
	 * held at the fork: the child's list starts empty (atfork, above)
	 */
	atomic_store_explicit(&ctx->on_pollers, false, memory_order_relaxed);
	if (!p)
		return;
	ar_internal_close(p->epfd);
	/* the copy's memory is the child's: freed, its owner waiter not put */
	for (unsigned i = 0; i < p->nr_ents; i++) {
		if (p->ents[i] && p->ents[i]->head)
			ar_armed_fd_count((int)i, -1);
		free(p->ents[i]);
	}
	free(p->ents);
	free(p);
}

void ar_poll_free(struct ar_uctx *ctx)
{
	struct ar_poll *p = ctx->svc.poll;
	unsigned i;

	free(ctx->poll_hash);
	ctx->poll_hash = NULL;
	ar_pollers_del(ctx);	/* a ring whose setup failed had no end */
	if (!p)
		return;
	for (i = 0; i < p->nr_ents; i++) {
		/* none listed after the exit's cancels; a failed setup's too */
		if (p->ents[i] && p->ents[i]->head)
			ar_armed_fd_count((int)i, -1);
		free(p->ents[i]);
	}
	free(p->ents);
	if (p->owner)
		ar_waiter_put(p->owner);
	pthread_mutex_destroy(&p->ctl_lock);
	pthread_mutex_destroy(&p->reap_lock);
	pthread_mutex_destroy(&p->tell_lock);
	pthread_cond_destroy(&p->issued);
	free(p);
	ctx->svc.poll = NULL;
}

/* ---- IORING_OP_POLL_ADD and IORING_OP_POLL_REMOVE ----
 * A oneshot poll completes with the ready mask, a multishot one
 * (IORING_POLL_ADD_MULTI) posts it with IORING_CQE_F_MORE on each
 * readiness edge and stays armed; POLL_REMOVE cancels one by user_data
 * or updates its events and user_data in place.
 */

/* the poll bits the kernel keeps of poll32_events (demangle_poll) */
#define AR_POLL_KNOWN (POLLIN | POLLOUT | POLLPRI | POLLERR | POLLHUP |	\
		       POLLNVAL | POLLRDNORM | POLLRDBAND | POLLWRNORM |	\
		       POLLWRBAND | POLLMSG | POLLRDHUP)

#define AR_POLL_UPDATE_FLAGS (IORING_POLL_UPDATE_EVENTS |		\
			      IORING_POLL_UPDATE_USER_DATA |		\
			      IORING_POLL_ADD_MULTI)

struct ar_poll_update {
	__u64 old_user_data;
	__u64 new_user_data;
	__u32 events;
	bool update_events;
	bool update_user_data;
};

/* io_poll_parse_events: other bits are dropped, not refused */
static __u32 ar_poll_parse_events(__u32 events)
{
	return (events & (AR_POLL_KNOWN | EPOLLEXCLUSIVE)) | AR_POLL_UNMASK;
}

int ar_poll_add_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_poll_add *pa = ar_req_data(req, struct ar_poll_add);
	__u32 flags;

	if (sqe->buf_index || sqe->off || sqe->addr)
		return -EINVAL;
	flags = sqe->len;
	/* IORING_POLL_ADD_LEVEL too: the kernel refuses it here (6.18) */
	if (flags & ~IORING_POLL_ADD_MULTI)
		return -EINVAL;
	if ((flags & IORING_POLL_ADD_MULTI) && (req->flags & AR_REQ_F_SKIP_CQE))
		return -EINVAL;
	pa->events = ar_poll_parse_events(sqe->poll32_events);
	pa->multi = flags & IORING_POLL_ADD_MULTI;
	return 0;
}

/* a user ring's fd: as the kernel's io_uring_poll() finds it now */
static void ar_poll_ring_fd(int fd)
{
	void *ring = ar_engine_obj(fd, &ar_user_engine);

	if (ring)
		ar_ring_fd_clear(ring);
}

/* what the file reports now, or -EBADF */
static int ar_poll_now(struct ar_ureq *req, __u32 events, __u32 *mask)
{
	struct pollfd pfd = { .fd = req->fd, .events = (short)events };

	/* poll(2) skips a negative fd (revents 0): it would be armed */
	if (req->fd < 0)
		return -EBADF;
	ar_poll_ring_fd(ar_req_app_fd(req));
	if (poll(&pfd, 1, 0) < 0)
		return -errno;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	*mask = (__u32)(unsigned short)pfd.revents;
	return 0;
}

/*
 * A multishot poll posted a CQE, which signals the ring's registered
 * eventfd; is that the file it waits on (by the program's fd number)?
 * The kernel's poll wakeup from an io_uring eventfd signal
 * (EPOLL_URING_WAKE) makes a multishot poll oneshot, to break the loop
 * of a CQE that readies the file that posts the next CQE
 * (io_poll_wake()); the poll then completes with that wakeup's POLLIN.
 * The signal comes after the poll's task work, so the wakeup finds it
 * idle. Another ring's eventfd signal reaches the poll through
 * ar_poll_uring_signal() instead.
 */
static bool ar_poll_own_eventfd(struct ar_ureq *req,
				const struct ar_poll_add *pa)
{
	struct ar_uctx *ctx = req->ctx;

	/*
	 * Relaxed, and eventfd_async read plain as ar_eventfd_signal() reads
	 * it: a registration made before the poll's submit is seen through
	 * the program's order (ar_reg_eventfd() stores them before the fd,
	 * with release); one made concurrently may be missed, as if after
	 */
	return (pa->events & POLLIN) &&
	       __atomic_load_n(&ctx->eventfd, __ATOMIC_RELAXED) >= 0 &&
	       __atomic_load_n(&ctx->eventfd_app, __ATOMIC_RELAXED) ==
	       ar_req_app_fd(req) &&
	       !ctx->eventfd_async &&
	       !(IO_URING_READ_ONCE(ctx->rings->cq_flags) &
		 IORING_CQ_EVENTFD_DISABLED);
}

/*
 * The first issue looks at the file (the kernel's vfs_poll at arming);
 * after readiness the reaper hands the events over (req->poll_res). A
 * multishot poll does not look first: arming registers it, which queues
 * an edge if the file is ready, so its first CQE is posted once.
 */
int ar_poll_add_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_poll_add *pa = ar_req_data(req, struct ar_poll_add);
	__u32 mask = req->poll_res;
	int ret;

	(void)issue_flags;
	req->poll_res = 0;
	if (!mask) {
		if (pa->multi && !(req->flags & AR_REQ_F_POLLED)) {
			if (fcntl(req->fd, F_GETFD) < 0)
				return -EBADF;
			return AR_ISSUE_AGAIN;
		}
		/*
		 * Nor does one AIO polls: its arming looks at the file (and
		 * completes at once if it is ready), as the kernel's vfs_poll()
		 * at arming does (aiopoll.h). A user ring's fd (a socket) is
		 * made to poll as the kernel's first.
		 */
		if (!(req->flags & AR_REQ_F_POLLED) &&
		    ar_aiopoll_wanted(req, pa->events)) {
			if (req->fd >= 0)
				ar_poll_ring_fd(ar_req_app_fd(req));
			return AR_ISSUE_AGAIN;
		}
		ret = ar_poll_now(req, pa->events, &mask);
		if (ret)
			return ret;
	}
	mask &= pa->events;
	if (!mask)
		return AR_ISSUE_AGAIN;
	if (!pa->multi)
		return (int)mask;
	/* stays armed; a full CQ ends it, the mask in its final CQE */
	if (!ar_req_post_more(req, (int)mask, IORING_CQE_F_MORE))
		return (int)mask;
	/* ... or its own CQE's eventfd signal: that wakeup's POLLIN */
	return ar_poll_own_eventfd(req, pa) ? POLLIN : AR_ISSUE_AGAIN;
}

int ar_poll_remove_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_poll_update *upd = ar_req_data(req, struct ar_poll_update);
	__u32 flags;

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	flags = sqe->len;
	if (flags & ~AR_POLL_UPDATE_FLAGS)
		return -EINVAL;
	/* meaningless without an update */
	if (flags == IORING_POLL_ADD_MULTI)
		return -EINVAL;
	upd->old_user_data = sqe->addr;
	upd->update_events = flags & IORING_POLL_UPDATE_EVENTS;
	upd->update_user_data = flags & IORING_POLL_UPDATE_USER_DATA;
	upd->new_user_data = sqe->off;
	if (!upd->update_user_data && upd->new_user_data)
		return -EINVAL;
	if (upd->update_events)
		upd->events = ar_poll_parse_events(sqe->poll32_events);
	else if (sqe->poll32_events)
		return -EINVAL;
	return 0;
}

/*
 * The armed POLL_ADD with this user_data, taken off its fd: 0;
 * -EALREADY when it is being issued after readiness (a remove instead
 * marks it: it ends -ECANCELED by itself, *found stays NULL, 0);
 * -ENOENT when there is none. Under ctx->lock.
 */
static int ar_poll_find_disarm_locked(struct ar_uctx *ctx, __u64 user_data,
				      bool remove, struct ar_ureq **found)
{
	struct ar_ureq *cur;

	ar_lockdep_assert_held(ctx);
	if (!ctx->poll_hash)
		return -ENOENT;
	for (cur = *ar_poll_bucket(ctx->poll_hash, user_data); cur; cur = cur->hash_next) {
		if (cur->user_data != user_data)
			continue;
		/*
		 * A multishot's CQE is out and the poll thread is arming it
		 * again: the kernel's remove finds it (its task work is done
		 * by the time the program sees the CQE). Answered -EALREADY,
		 * the multishot would live on and its end never come.
		 */
		if (ar_req_state(cur) == AR_REQ_ISSUING &&
		    (cur->poll_flags & AR_POLLF_BUSY)) {
			if (!remove)
				return -EALREADY;
			cur->poll_flags |= AR_POLLF_CANCEL;
			return 0;
		}
		if (ar_req_state(cur) != AR_REQ_ARMED || !ar_poll_disarm_locked(cur))
			continue;
		/* this thread's now, as a request being issued */
		ar_req_set_state(cur, AR_REQ_ISSUING);
		*found = cur;
		return 0;
	}
	return -ENOENT;
}

int ar_poll_remove_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_poll_update *upd = ar_req_data(req, struct ar_poll_update);
	struct ar_uctx *ctx = req->ctx;
	struct ar_ureq *preq = NULL;
	struct ar_poll_add *pa;
	int ret;

	(void)issue_flags;
	ar_ctx_lock(ctx);
	ret = ar_poll_find_disarm_locked(ctx, upd->old_user_data,
					 !upd->update_events &&
					 !upd->update_user_data, &preq);
	ar_ctx_unlock(ctx);
	if (ret || !preq)
		return ret;
	if (!upd->update_events && !upd->update_user_data) {
		/* the remove's CQE first, then the poll's, as the kernel posts them */
		ar_req_complete(req, 0, 0);
		ar_req_set_fail(preq);
		ar_req_complete(preq, -ECANCELED, 0);
		return AR_ISSUE_QUEUED;
	}
	/* the event bits change; oneshot or multishot stays as it was */
	pa = ar_req_data(preq, struct ar_poll_add);
	if (upd->update_events)
		pa->events = (pa->events & ~0xffffU) | (upd->events & 0xffffU) |
			     AR_POLL_UNMASK;
	/* under the lock: cancels look at every request's user_data */
	if (upd->update_user_data) {
		ar_ctx_lock(ctx);
		/* into its new chain when it is armed again */
		if (preq->flags & AR_REQ_F_HASHED)
			ar_poll_unhash_locked(preq);
		preq->user_data = upd->new_user_data;
		ar_ctx_unlock(ctx);
	}
	/* armed again as at its first issue (it may be ready at once) */
	ar_req_issue(preq, AR_ISSUE_NONBLOCK);
	return 0;
}
