/* SPDX-License-Identifier: MIT */
/*
 * fork.c - a ring in more than one process (docs/architecture.md, "Rings
 * shared across processes"). What posting and consuming touch is shared
 * memory already (types.h struct ar_ushared); this file makes a forked
 * child's copy of the rest its own, and carries wakeups across processes.
 *
 * Before a fork (engine.c's prepare handler, in the parent): the ring is
 * marked forked for good, so the lock's issuer bias, which only reaches
 * the threads of one process (lock.c), is revoked and stays off; it gets
 * the in-flight table (below), and the process family's eventfd for
 * cross-process wakeups (xwake_fd), made at the first fork with a ring
 * and inherited by every child.
 *
 * In the child (engine.c's child handler, the child's only thread): the
 * per-process part of struct ar_uctx is a copy of the parent's, made at
 * an arbitrary moment. Its requests, threads, queues and fds are the
 * parent's: all of it is dropped (the fds closed, the copies freed), and
 * the child starts with none, as the kernel's io_uring knows a new task.
 * Nothing here makes a thread.
 *
 * Cross-process wakeups. A waiter of a forked ring counts itself in the
 * shared xsleep, with its pid; a post that finds a waiter of another
 * process there (or of several) writes xwake_fd. Each process has an
 * epoll fd (ar_xep) with xwake_fd in it edge-triggered: every write puts
 * an event there, in every process, until one of its threads takes it.
 * A waiter sleeps on its own eventfd and on ar_xep; the one that takes
 * the event wakes its process's other sleepers on forked rings through
 * their eventfds, so that one whose look at the CQ came before the post,
 * and whose sleep after the take, still wakes. A waiter that is its
 * process's only sleeper leaves the event for the process's next sleep
 * to take, which then looks again rather than sleep: the take's system
 * call is off the path from a post to its waiter. One eventfd serves all
 * the rings: a sleeper of another ring wakes for nothing, and the rings
 * cost the fds the kernel's would, plus their engine ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include "lib/wake.h"
#include "lib/clock.h"
#include "engine/engine.h"
#include "user/types.h"
#include "user/ctx.h"
#include "user/lock.h"
#include "user/poll.h"
#include "user/svc.h"
#include "user/aio.h"
#include "user/iowq.h"
#include "user/submit.h"
#include "user/waitq.h"
#include "user/complete.h"
#include "user/release.h"
#include "user/iopoll.h"
#include "user/aiopoll.h"
#include "user/kbuf.h"
#include "user/req.h"
#include "user/fork.h"
#include "user/cancel.h"

/*
 * The eventfd of every forked ring of this process family: made at the
 * first fork with a ring, inherited by the children, written by a post
 * that may end another process's wait. This process's epoll fd on it
 * (edge-triggered), made by its first sleeper; and its threads asleep
 * on forked rings, which the one that takes an event wakes.
 */
static int ar_xwake_efd = -1;		/* under ar_prefork_lock */
static int ar_xcancel_efd = -1;		/* the same, for cancels (cancel.c) */
static int ar_xep = -1;
static pthread_mutex_t ar_xlock = PTHREAD_MUTEX_INITIALIZER;
static struct ar_waiter *ar_xsleepers;	/* by xnext, under ar_xlock */
/*
 * An event on ar_xep that a waiter left untaken (ar_xwake_seen()): the
 * next sleeper of the process takes it before its sleep. Set under
 * ar_xlock, so a sleeper listed after it sees it (the lock orders the two).
 */
static atomic_bool ar_xtake_owed;
/* two threads that fork at once prepare the rings one after the other */
static pthread_mutex_t ar_prefork_lock = PTHREAD_MUTEX_INITIALIZER;

/* the child's: the parent's epoll fd and sleepers are not its own */
static void ar_xwake_atfork_child(void)
{
	ar_internal_close(ar_xep);
	ar_xep = -1;
	ar_xsleepers = NULL;
	atomic_store_explicit(&ar_xtake_owed, false, memory_order_relaxed);
	pthread_mutex_init(&ar_xlock, NULL);
	pthread_mutex_init(&ar_prefork_lock, NULL);
}

__attribute__((constructor)) static void ar_xwake_init(void)
{
	pthread_atfork(NULL, NULL, ar_xwake_atfork_child);
}

static int ar_xep_make(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	int ep, err;

	ep = ar_fd_high(epoll_create1(EPOLL_CLOEXEC));
	if (ep < 0)
		return -errno;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ar_xwake_efd, &ev)) {
		err = -errno;
		close(ep);
		return err;
	}
	return ar_internal_claim(ep);
}

#define AR_XSLOTS	(1U << 16)	/* requests in flight a forked ring tracks */

static void ar_xslot_set_locked(struct ar_uctx *ctx, struct ar_ureq *req,
				bool cqe32, int fd);

/* the in-flight table, and the parent's requests in flight into it */
static int ar_xslots_make(struct ar_uctx *ctx)
{
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_ureq *req;
	void *m;

	m = mmap(NULL, AR_XSLOTS * sizeof(struct ar_xslot), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	ar_ctx_lock(ctx);
	sh->xslots = m;
	sh->xslots_nr = AR_XSLOTS;
	/*
	 * Their flags and fds are their issuers' to change meanwhile: only
	 * what no issue changes is read (user_data, opcode; a CQE_MIXED
	 * ring's entries say 16 bytes, and no fd for a cancel to match)
	 */
	for (req = ctx->inflight; req; req = req->if_next)
		ar_xslot_set_locked(ctx, req, ctx->flags & IORING_SETUP_CQE32, -1);
	ar_ctx_unlock(ctx);
	return 0;
}

/* before fork(), in the parent, once per fd of the ring (engine.c) */
void ar_user_prefork(void *obj)
{
	struct ar_uctx *ctx = obj;
	struct ar_ushared *sh = ar_sh(ctx);
	int efd;

	if (ar_uctx_dead(ctx) || ctx->pid != getpid())
		return;
	pthread_mutex_lock(&ar_prefork_lock);
	if (!ar_ring_forked(ctx)) {
		/* the process family's, one fd for all its rings (prefork: one thread) */
		if (ar_xwake_efd < 0)
			ar_xwake_efd = ar_internal_claim(ar_fd_high(
				eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)));
		if (ar_xcancel_efd < 0)
			ar_xcancel_efd = ar_internal_claim(ar_fd_high(
				eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)));
		efd = ar_xwake_efd;
		/* else the child cannot use the ring */
		if (efd < 0 || ar_xcancel_efd < 0 ||
		    (!sh->xslots && ar_xslots_make(ctx))) {
			pthread_mutex_unlock(&ar_prefork_lock);
			return;
		}
		sh->xwake_fd = efd;
		sh->xcancel_fd = ar_xcancel_efd;
		/*
		 * Under the lock, with the table: requests submitted from
		 * now on take an entry. ar_ctx_bias_enable() reads it under the
		 * same lock (a ring enabled later stays unbiased), and the
		 * fork that follows copies nothing that is not stored.
		 */
		ar_ctx_lock(ctx);
		atomic_store_explicit(&sh->forked, true, memory_order_seq_cst);
		ar_ctx_unlock(ctx);
		/* the readiness epoll fd this process has already */
		ar_poll_xcancel_watch(ctx);
		/*
		 * or its service thread makes one (svc.c), for the answers
		 * to other processes' cancels of its timers: kicked to look
		 * (a thread that starts later sees the flag). Under its
		 * start lock, which keeps its eventfd open (ar_svc_exit()).
		 */
		pthread_mutex_lock(&ctx->svc.start_lock);
		if (ctx->svc.started && !ctx->svc.exiting)
			ar_svc_kick(ctx);
		pthread_mutex_unlock(&ctx->svc.start_lock);
		/* waiters asleep already sleep again, counted for other processes */
		if (ar_wake_has_sleepers(&ctx->cq_waiters))
			ar_waitq_wake(ctx, true);
	}
	pthread_mutex_unlock(&ar_prefork_lock);
	ar_ctx_bias_revoke(ctx);
}

/* is the page at addr mapped in this process? */
static bool ar_mapped(const void *addr)
{
	unsigned char vec;

	return !mincore((void *)((uintptr_t)addr & ~(uintptr_t)4095), 1, &vec);
}

/*
 * The parent's per-process state, as the child's copy: the fds the
 * child inherited are closed, the memory of the copies freed (nothing
 * of the child's refers to them once the ring is reset), the parent's
 * threads and kernel objects left alone.
 */
static void ar_fork_forget(struct ar_uctx *ctx)
{
	struct ar_worker *wk, *next;

	ar_poll_forget(ctx);
	ar_aio_forget(ctx);
	ar_internal_close(ctx->svc.wake_fd);
	ar_release_forget(ctx);
	ar_iopoll_forget(ctx);
	ar_aiopoll_free(ctx);
	ar_kbuf_free(ctx);
	ar_req_cache_free(ctx);
	for (wk = ctx->iowq.workers; wk; wk = next) {
		next = ar_iowq_worker_next(wk);
		free(wk);
	}
	free(ctx->punt);
	free(ctx->spread);
	ctx->punt = NULL;
	ctx->spread = NULL;
}

/* Is the child's copy of the ring usable? Decided once per ring (engine.c). */
static bool ar_fork_usable(struct ar_uctx *ctx)
{
	if (!ar_ring_forked(ctx) || ar_uctx_dead(ctx) ||
	    atomic_load_explicit(&ctx->ending, memory_order_relaxed))
		return false;
	/* io_uring_ring_dontfork(): the child has no rings */
	return ar_mapped(ctx->rings) && ar_mapped(ctx->sqes);
}

/*
 * Registered files and buffers: the child's copies of the tables, whose
 * fds fork duplicated. Their tags are posted once, when the parent's
 * tables let them go, not again when the child's copies go.
 */
static void ar_fork_rsrc_untag(struct ar_rsrc_table *t)
{
	for (unsigned i = 0; i < t->nr; i++)
		if (t->nodes[i])
			t->nodes[i]->tag = 0;
}

/* the child's own per-process part: nothing of the parent's */
static void ar_fork_reset(struct ar_uctx *ctx)
{
	struct ar_iowq *wq = &ctx->iowq;
	unsigned max[2] = { wq->max_workers[0], wq->max_workers[1] };
	bool has_cpus = wq->has_cpus;
	cpu_set_t cpus = wq->cpus;
	const struct ar_ushared *sh = ar_sh(ctx);

	ar_fork_forget(ctx);
	/*
	 * SQPOLL's thread is the creator's, as the kernel's: it consumes
	 * the child's SQEs too, with the creator's files; the child wakes
	 * it through the shared words (sqpoll.c).
	 */
	ctx->sqpoll = NULL;
	ar_fork_rsrc_untag(&ctx->files);
	ar_fork_rsrc_untag(&ctx->bufs);
	atomic_store_explicit(&ctx->refs, 1, memory_order_relaxed);
	atomic_store_explicit(&ctx->reg_indices, 0, memory_order_relaxed);
	ctx->fdcheck_next = NULL;
	ctx->fdcheck_queued = false;
	ctx->rfd_next = NULL;
	atomic_store_explicit(&ctx->rfd_listed, false, memory_order_relaxed);
	atomic_store_explicit(&ctx->rfd_clearing, 0, memory_order_relaxed);
	ctx->exiting = false;

	atomic_store_explicit(&ctx->lock_bias, AR_BIAS_OFF, memory_order_relaxed);
	atomic_store_explicit(&ctx->issuer_in, 0, memory_order_relaxed);
	atomic_store_explicit(&ctx->lock_owner, 0, memory_order_relaxed);

	ar_submit_state_init(ctx);
	ctx->submit_link_head = ctx->submit_link_last = NULL;
	atomic_store_explicit(&ctx->in_submit, 0, memory_order_relaxed);

	ctx->inflight = ctx->inflight_tail = NULL;
	ctx->nr_inflight = 0;
	ctx->xslots_mine = 0;	/* the parent's entries stay the parent's */
	ctx->drain_active = false;
	ctx->nr_drained = 0;
	ctx->defer_head = ctx->defer_tail = NULL;
	ctx->timeouts = NULL;
	ctx->cq_last_tm_flush = sh->cached_cq_tail - sh->cq_timeouts;

	pthread_mutex_init(&ctx->wait_lock, NULL);
	ctx->waitq = NULL;
	atomic_store_explicit(&ctx->cq_waiters, 0, memory_order_relaxed);

	memset(wq, 0, sizeof(*wq));
	ar_iowq_init(wq, ctx->sq_entries);
	wq->max_workers[0] = max[0];
	wq->max_workers[1] = max[1];
	wq->has_cpus = has_cpus;
	wq->cpus = cpus;

	memset(&ctx->svc, 0, sizeof(ctx->svc));
	pthread_mutex_init(&ctx->svc.start_lock, NULL);
	ctx->svc.wake_fd = -1;

	memset(&ctx->stats, 0, sizeof(ctx->stats));
	atomic_store_explicit(&ctx->tw_head, NULL, memory_order_relaxed);
	atomic_store_explicit(&ctx->tw_nr, 0, memory_order_relaxed);
	ctx->tw_closed = false;
	/* complete=punt's thread is the parent's: the child completes inline */
	if (ctx->pol.complete == ANYRING_COMPLETE_PUNT)
		ctx->pol.complete = ANYRING_COMPLETE_INLINE;
	ctx->aio_refused = false;
	ctx->spread_failed = false;

	/* provided buffers are the parent's: the child has none (D2, ar_fork_forget()) */
	ar_spin_lock_init(&ctx->kbuf_lock);

	atomic_store_explicit(&ctx->dev_inflight, 0, memory_order_relaxed);
}

/*
 * In the child, for each fd of a ring: true, the child keeps the ring as
 * its own; false, its calls fail -EOWNERDEAD (engine.c). Several fds
 * (dups) may name one ring: the first decides, by the ring's pid.
 */
bool ar_user_forked(void *obj)
{
	struct ar_uctx *ctx = obj;
	pid_t pid = getpid();

	if (ctx->pid == pid)
		return ctx->fork_ok;
	ctx->pid = pid;
	ctx->fork_ok = ar_fork_usable(ctx);
	if (ctx->fork_ok)
		ar_fork_reset(ctx);
	return ctx->fork_ok;
}

/*
 * A thread of this process goes to sleep on the CQ: counted, with its
 * pid, or MIXED when threads of another process sleep too (until none
 * does). Sleeper's step 1 of wake.h: a seq_cst exchange, then the
 * barrier, before its look at the CQ; pairs with ar_wake_mb() in
 * ar_cq_wake() before ar_xsleep_other().
 */
void ar_xsleep_add(struct ar_uctx *ctx)
{
	_Atomic uint64_t *x = &ar_sh(ctx)->xsleep;
	uint64_t old = atomic_load_explicit(x, memory_order_relaxed), new;
	uint32_t n, p;

	do {
		n = (uint32_t)old;
		p = (uint32_t)(old >> 32);
		if (!n)
			p = (uint32_t)ctx->pid;
		else if (p != (uint32_t)ctx->pid)
			p = AR_XSLEEP_MIXED;
		new = (uint64_t)p << 32 | (n + 1);
	} while (!atomic_compare_exchange_weak_explicit(x, &old, new,
							memory_order_seq_cst,
							memory_order_relaxed));
	ar_wake_mb_after_rmw();
}

/* the sleeper is done: no ordering, a poster seeing it stale writes for nothing */
void ar_xsleep_del(struct ar_uctx *ctx)
{
	_Atomic uint64_t *x = &ar_sh(ctx)->xsleep;
	uint64_t old = atomic_load_explicit(x, memory_order_relaxed), new;

	do {
		new = (uint32_t)old == 1 ? 0 : old - 1;
	} while (!atomic_compare_exchange_weak_explicit(x, &old, new,
							memory_order_relaxed,
							memory_order_relaxed));
}

/*
 * exit(3), return from main: the process's requests on rings other
 * processes share are cancelled and their CQEs posted, as the kernel's
 * io_uring_cancel_generic() does for an exiting task (ctx.c
 * ar_user_task_exit()). _exit(2), a fatal signal and exec run nothing
 * here: their requests post nothing (semantics.md D2).
 */
__attribute__((destructor)) static void ar_fork_exit(void)
{
	ar_engine_each_ring(&ar_user_engine, ar_user_task_exit);
}

/* a post may end a wait of another process: every process's xep gets an event */
void ar_xwake_post(struct ar_uctx *ctx)
{
	uint64_t one = 1;
	int e = errno;

	(void)!write(ar_sh(ctx)->xwake_fd, &one, sizeof(one));
	errno = e;
}

/* a cancel marked requests of other processes: every process's readiness epoll fds get an edge */
void ar_xcancel_post(struct ar_uctx *ctx)
{
	uint64_t one = 1;
	int e = errno;

	(void)!write(ar_sh(ctx)->xcancel_fd, &one, sizeof(one));
	errno = e;
}

/*
 * A thread of this process goes to sleep on a forked ring (waitq.c): on
 * the list the taker of an event wakes, and the fd to sleep on besides
 * its own (-1: none could be made; it then wakes at its next look).
 */
int ar_xsleeper_add(struct ar_waiter *w)
{
	int ep;

	pthread_mutex_lock(&ar_xlock);
	if (ar_xep < 0 && ar_xwake_efd >= 0)
		ar_xep = ar_xep_make();
	ep = ar_xep;
	w->xnext = ar_xsleepers;
	ar_xsleepers = w;
	pthread_mutex_unlock(&ar_xlock);
	return ep;
}

void ar_xsleeper_del(struct ar_waiter *w)
{
	struct ar_waiter **pp;

	pthread_mutex_lock(&ar_xlock);
	for (pp = &ar_xsleepers; *pp; pp = &(*pp)->xnext) {
		if (*pp == w) {
			*pp = w->xnext;
			break;
		}
	}
	pthread_mutex_unlock(&ar_xlock);
}

#define AR_XTAKE_BATCH	16

/*
 * A waiter's sleep ended with the epoll fd readable: take the event, and
 * wake the process's other sleepers on forked rings (the event may be
 * another ring's), whose look may have come before the post that wrote
 * it (see the top of the file). Each looks at its own ring again. A
 * sleeper past what could be allocated wakes at its next look (wait.c).
 */
void ar_xwake_take(struct ar_waiter *self)
{
	struct ar_waiter *stack[AR_XTAKE_BATCH], **batch = stack, *w;
	unsigned n = 0, cap = 0, i;
	struct epoll_event ev;
	uint64_t one = 1;
	int e = errno;

	if (epoll_wait(ar_xep, &ev, 1, 0) <= 0) {
		errno = e;
		return;
	}
	pthread_mutex_lock(&ar_xlock);
	for (w = ar_xsleepers; w; w = w->xnext)
		cap++;
	if (cap > AR_XTAKE_BATCH)
		batch = malloc(cap * sizeof(*batch));
	if (!batch) {
		batch = stack;
		cap = AR_XTAKE_BATCH;
	}
	for (w = ar_xsleepers; w && n < cap; w = w->xnext) {
		if (w == self)
			continue;
		ar_waiter_get(w);
		batch[n++] = w;
	}
	pthread_mutex_unlock(&ar_xlock);
	for (i = 0; i < n; i++) {
		(void)!write(batch[i]->efd, &one, sizeof(one));
		ar_waiter_put(batch[i]);
	}
	if (batch != stack)
		free(batch);
	errno = e;
}

/*
 * A waiter's sleep ended with ar_xep readable. The event is taken, and
 * the process's other sleepers woken (ar_xwake_take()), unless this
 * waiter is the only one: then the take waits for the process's next
 * sleep (ar_xwake_settle()), off the path from a post to its waiter.
 */
void ar_xwake_seen(struct ar_waiter *self)
{
	bool alone;

	pthread_mutex_lock(&ar_xlock);
	alone = ar_xsleepers == self && !self->xnext;
	if (alone)
		atomic_store_explicit(&ar_xtake_owed, true, memory_order_relaxed);
	pthread_mutex_unlock(&ar_xlock);
	if (!alone)
		ar_xwake_take(self);
}

/*
 * Before a sleep on ar_xep (listed already): an event left untaken is
 * taken, and the others woken. True then: the caller looks at its ring
 * again rather than sleep, as its look may have come before the post
 * that wrote the event.
 */
bool ar_xwake_settle(struct ar_waiter *self)
{
	/* relaxed: set under ar_xlock, which this waiter's listing took after */
	if (!atomic_load_explicit(&ar_xtake_owed, memory_order_relaxed) ||
	    !atomic_exchange_explicit(&ar_xtake_owed, false, memory_order_relaxed))
		return false;
	ar_xwake_take(self);
	return true;
}

/*
 * The in-flight table of a forked ring: a request takes an entry when
 * it is submitted and gives it back in the lock section that posts its
 * last CQE (complete.c), so an entry whose process is gone is a request
 * that will post nothing. A request finding the table full is not in
 * it. The lowest free entry is taken, so that the entries ever taken
 * (below xslots_hi, the part of the mapping that has memory) stay as
 * few as the requests that were in flight at once.
 */
/* the lowest free entry, its fields cleared, taken by pid: 1 + its index, or 0 */
static unsigned ar_xslot_get_locked(struct ar_uctx *ctx, pid_t pid)
{
	struct ar_ushared *sh = ar_sh(ctx);
	struct ar_xslot *x;

	for (unsigned i = sh->xslot_hint; i < sh->xslots_nr; i++) {
		x = &sh->xslots[i];
		if (__atomic_load_n(&x->pid, __ATOMIC_RELAXED))
			continue;
		x->user_data = 0;
		x->cqe32 = 0;
		x->fd = -1;
		x->opcode = 0;
		x->xc_all = x->xc_skip = x->xc_sync = 0;
		x->xc_from = x->xc_pending = 0;
		x->xc_res = 0;
		x->xc_waiter = 0;
		x->deadline = 0;
		/* relaxed: read by sleepers deciding on their look (wait.c) */
		__atomic_store_n(&sh->xslots_used, sh->xslots_used + 1, __ATOMIC_RELAXED);
		/* relaxed: read by ar_xslot_sweep()'s look without the lock */
		__atomic_store_n(&x->pid, pid, __ATOMIC_RELAXED);
		sh->xslot_hint = i + 1;
		if (i + 1 > sh->xslots_hi)
			/* relaxed: read by ar_xslot_sweep()'s look */
			__atomic_store_n(&sh->xslots_hi, i + 1, __ATOMIC_RELAXED);
		return i + 1;
	}
	return 0;
}

static void ar_xslot_set_locked(struct ar_uctx *ctx, struct ar_ureq *req,
				bool cqe32, int fd)
{
	struct ar_xslot *x;

	req->xslot = ar_xslot_get_locked(ctx, ctx->pid);
	if (!req->xslot)
		return;
	x = &ar_sh(ctx)->xslots[req->xslot - 1];
	x->user_data = req->user_data;
	x->cqe32 = cqe32;
	x->fd = fd;
	x->opcode = req->opcode;
	/* relaxed: read by sleepers deciding on their look (wait.c) */
	__atomic_store_n(&ctx->xslots_mine, ctx->xslots_mine + 1, __ATOMIC_RELAXED);
}

/*
 * An entry for a REGISTER_SYNC_CANCEL of this process that waits for the
 * answers of others (cancel.c): no request's, so detached from the
 * start. 1 + its index, or 0 when the table is full.
 */
unsigned ar_xslot_get_sync_locked(struct ar_uctx *ctx)
{
	unsigned s;

	ar_lockdep_assert_held(ctx);
	if (!ar_sh(ctx)->xslots)
		return 0;
	s = ar_xslot_get_locked(ctx, AR_XSLOT_DETACHED);
	if (s) {
		ar_sh(ctx)->xslots[s - 1].xc_sync = AR_XC_SYNC_WAITED;
		ar_sh(ctx)->xslots[s - 1].xc_waiter = ctx->pid;
	}
	return s;
}

/* a request being submitted: its submitter owns it */
void ar_xslot_take_locked(struct ar_uctx *ctx, struct ar_ureq *req)
{
	ar_lockdep_assert_held(ctx);
	if (req->flags & AR_REQ_F_AUX) {
		req->xslot = 0;	/* a carrier of another ring's CQE (msg_ring.c) */
		return;
	}
	/* not issued yet: its fd is the SQE's */
	ar_xslot_set_locked(ctx, req, req->flags & AR_REQ_F_CQE32,
			    ar_req_app_fd(req));
}

/*
 * The request completes: its entry is free. A cancel of another process
 * that marked it and has no answer yet gets "not found": it looked
 * after the completion. That may post the cancel's CQE, which the
 * completion's wake covers (complete.c).
 */
void ar_xslot_put_locked(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_ushared *sh = ar_sh(ctx);
	unsigned i = req->xslot - 1;

	ar_lockdep_assert_held(ctx);
	if (__builtin_expect(sh->xslots[i].xc_from != 0, 0))
		ar_xcancel_answer_locked(ctx, i, -ENOENT);
	ar_xslot_free_locked(ctx, i);
	/* relaxed: a sleeper's hint, as in ar_xslot_set_locked() */
	__atomic_store_n(&ctx->xslots_mine, ctx->xslots_mine - 1, __ATOMIC_RELAXED);
	req->xslot = 0;
}

/*
 * A cancel waits for other processes' answers (cancel.c): its entry is
 * no longer its process's, which completes it without a CQE
 */
void ar_xslot_detach_locked(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_ushared *sh = ar_sh(ctx);

	ar_lockdep_assert_held(ctx);
	/* relaxed: read by ar_xslot_sweep()'s look without the lock */
	__atomic_store_n(&sh->xslots[req->xslot - 1].pid, AR_XSLOT_DETACHED,
			 __ATOMIC_RELAXED);
	/* relaxed: a sleeper's hint, as in ar_xslot_set_locked() */
	__atomic_store_n(&ctx->xslots_mine, ctx->xslots_mine - 1, __ATOMIC_RELAXED);
	req->xslot = 0;
}

/*
 * The process exits with a TIMEOUT armed (timeout.c): the kernel fires
 * it after the task is gone. Its entry, detached, keeps the deadline,
 * and a sweeper of another process posts -ETIME (ar_xslot_sweep()).
 */
void ar_xslot_timer_locked(struct ar_uctx *ctx, struct ar_ureq *req,
			   __u64 deadline)
{
	struct ar_ushared *sh = ar_sh(ctx);

	sh->xslots[req->xslot - 1].deadline = deadline ? deadline : 1;
	if (!sh->xtimer_next || deadline < sh->xtimer_next)
		/* relaxed: a sleeper's hint (wait.c) */
		__atomic_store_n(&sh->xtimer_next, deadline ? deadline : 1,
				 __ATOMIC_RELAXED);
	ar_xslot_detach_locked(ctx, req);
}

/* when a waiter of a forked ring must look (wait.c): 0, no timer */
__u64 ar_xslot_next_timer(const struct ar_uctx *ctx)
{
	return __atomic_load_n(&ar_sh(ctx)->xtimer_next, __ATOMIC_RELAXED);
}

/*
 * Entry i is free again: its request completed, its process is gone, or
 * (a detached cancel's or TIMEOUT's) its CQE was posted. Under lock.
 */
void ar_xslot_free_locked(struct ar_uctx *ctx, unsigned i)
{
	struct ar_ushared *sh = ar_sh(ctx);

	ar_lockdep_assert_held(ctx);
	/* relaxed: read by ar_xslot_sweep()'s look and by sleepers (wait.c) */
	__atomic_store_n(&sh->xslots[i].pid, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->xslots_used, sh->xslots_used - 1, __ATOMIC_RELAXED);
	if (i < sh->xslot_hint)
		sh->xslot_hint = i;
}

/*
 * Must a sleeper on this ring look for processes that are gone? Only
 * while requests of another process are in flight on it (relaxed: the
 * caller counted itself in xsleep first, with its barrier, and a
 * submitter of another process wakes it after taking an entry:
 * ar_xslot_submitted()). A sleep with a timeout costs a few µs more.
 */
bool ar_xslot_others(const struct ar_uctx *ctx)
{
	const struct ar_ushared *sh = ar_sh(ctx);

	return __atomic_load_n(&sh->xslots_used, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&ctx->xslots_mine, __ATOMIC_RELAXED);
}

/*
 * Requests of this process took entries: a sleeper of another process
 * that decided on no look may now need one. The barrier after the
 * entries' stores pairs with the sleeper's after its xsleep update.
 */
void ar_xslot_submitted(struct ar_uctx *ctx)
{
	ar_wake_mb();
	if (ar_xsleep_other(ctx))
		ar_xwake_post(ctx);
}

#define AR_SWEEP_PIDS	16

/* entry x's CQE, posted by whichever process sees it end: res, no flags */
void ar_xslot_post_locked(struct ar_uctx *ctx, const struct ar_xslot *x, int res)
{
	struct ar_cqe_big zero = { 0, 0 };

	if (x->cqe32)
		ar_cq_post_big_locked(ctx, x->user_data, res, 0, &zero);
	else
		ar_cq_post_locked(ctx, x->user_data, res, 0);
}

/* a detached TIMEOUT is due: -ETIME, counted as the expired are (timeout.c) */
static void ar_xslot_timer_post_locked(struct ar_uctx *ctx, struct ar_xslot *x)
{
	struct ar_ushared *sh = ar_sh(ctx);

	/* one writer (under the lock); read without it by waiters */
	__atomic_store_n(&sh->cq_timeouts, sh->cq_timeouts + 1, __ATOMIC_RELAXED);
	ar_xslot_post_locked(ctx, x, -ETIME);
	ar_xslot_free_locked(ctx, (unsigned)(x - sh->xslots));
}

/*
 * Requests of processes that are gone (_exit, a fatal signal, exec's
 * pid stays: not seen): their CQEs are posted -ECANCELED, each once,
 * the entry given back in the same section. And the TIMEOUTs of
 * processes that exited, when due: -ETIME. Called by a waiter of a
 * forked ring at each second of its sleep, or at the first such
 * TIMEOUT's deadline (wait.c).
 */
void ar_xslot_sweep(struct ar_uctx *ctx)
{
	struct ar_ushared *sh = ar_sh(ctx);
	pid_t seen[AR_SWEEP_PIDS], dead[AR_SWEEP_PIDS], pid;
	unsigned nseen = 0, ndead = 0, i, j, hi;
	__u64 now = ar_now_ns(), next = 0, first;
	bool posted = false, due;
	int e = errno;

	if (!sh->xslots)
		return;
	first = ar_xslot_next_timer(ctx);
	due = first && first <= now;
	/* the look, without the lock: the section below decides */
	hi = __atomic_load_n(&sh->xslots_hi, __ATOMIC_RELAXED);
	for (i = 0; i < hi && nseen < AR_SWEEP_PIDS; i++) {
		pid = __atomic_load_n(&sh->xslots[i].pid, __ATOMIC_RELAXED);
		if (pid <= 0)
			continue;	/* free, or detached */
		for (j = 0; j < nseen && seen[j] != pid; j++)
			;
		if (j < nseen)
			continue;
		seen[nseen++] = pid;
		if (pid != ctx->pid && ar_tid_gone(pid))
			dead[ndead++] = pid;
	}
	errno = e;
	if (!ndead && !due)
		return;
	ar_ctx_lock(ctx);
	for (i = 0; i < sh->xslots_hi; i++) {
		struct ar_xslot *x = &sh->xslots[i];

		pid = __atomic_load_n(&x->pid, __ATOMIC_RELAXED);
		if (pid == AR_XSLOT_DETACHED && x->deadline) {
			if (x->deadline <= now) {
				ar_xslot_timer_post_locked(ctx, x);
				posted = true;
			} else if (!next || x->deadline < next) {
				next = x->deadline;
			}
			continue;
		}
		if (pid <= 0)
			continue;
		for (j = 0; j < ndead && dead[j] != pid; j++)
			;
		if (j == ndead)
			continue;
		/* a cancel waiting on it: found, it ends -ECANCELED */
		if (x->xc_from)
			ar_xcancel_answer_locked(ctx, i, 0);
		ar_xslot_post_locked(ctx, x, -ECANCELED);
		ar_xslot_free_locked(ctx, i);
		posted = true;
	}
	/* relaxed: a sleeper's hint; the lock orders it with the entries */
	__atomic_store_n(&sh->xtimer_next, next, __ATOMIC_RELAXED);
	ar_ctx_unlock(ctx);
	if (posted)
		ar_cq_wake(ctx, false);
}
