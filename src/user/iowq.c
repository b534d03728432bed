/* SPDX-License-Identifier: MIT */
/*
 * iowq.c - the worker pool for work that may block (the kernel's io-wq).
 *
 * Two classes, as io-wq has: bounded work (regular files and block
 * devices, whose blocking is bounded) and unbounded work (anything that may
 * block indefinitely). Each class has its own limit (default: bounded
 * min(SQ entries, 4 * CPUs), unbounded RLIMIT_NPROC), changed by
 * IORING_REGISTER_IOWQ_MAX_WORKERS. Workers are created when work finds
 * no idle worker, and exit after AR_WORKER_IDLE_MS without work.
 * Threads are joined: an exited worker is reaped by the next enqueue or at
 * ring exit. Pool locks are never held across a system call.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/clock.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/submit.h"
#include "user/complete.h"
#include "user/iowq.h"
#include "lib/thread.h"
#include "user/backend.h"

#define AR_WORKER_IDLE_MS	5000

struct ar_worker {
	struct ar_worker *next;
	struct ar_uctx *ctx;
	pthread_t tid;
	int acct;		/* AR_IOWQ_BOUND or AR_IOWQ_UNBOUND: its class */
	bool exited;
	unsigned nr_kept;	/* successors kept since its last pop (queue order) */
};

/* the worker this thread is, if it is one (its successors stay with it) */
static __thread struct ar_worker *ar_iowq_self;

static unsigned ar_default_bounded(unsigned sq_entries)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned max = cpus > 0 ? 4 * (unsigned)cpus : 4;

	return sq_entries < max ? sq_entries : max;
}

static unsigned ar_default_unbounded(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > 1U << 20)
		return 1U << 20;
	return (unsigned)rl.rlim_cur;
}

void ar_iowq_init(struct ar_iowq *wq, unsigned sq_entries)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&wq->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wq->exit_cond, &ca);
	pthread_condattr_destroy(&ca);
	wq->max_workers[0] = ar_default_bounded(sq_entries);
	wq->max_workers[1] = ar_default_unbounded();
}

/*
 * io-wq's hashed work: buffered writes to a regular file are serialised
 * per inode hash bucket (the kernel hashes the REQ_F_ISREG requests of
 * the ops with hash_reg_file), so one worker streams a file's writes and
 * the others do not contend on its inode lock. 0: not hashed; else 1 +
 * the bucket (file.c: from the look at the file before the punt).
 */
static unsigned ar_req_hash(const struct ar_ureq *req)
{
	if (!ar_issue_defs[req->opcode].hash_reg_file || !req->file.isreg ||
	    !req->file.be || !req->file.be->page_cache)
		return 0;
	return req->file.ihash;
}

static bool ar_hash_busy(const struct ar_iowq *wq, unsigned hash)
{
	return hash && (wq->hash_busy & (1ULL << (hash - 1)));
}

/*
 * Is req, just queued, a hashed write that a worker will come to without
 * a wakeup of its own? Its bucket is busy (the worker writing it takes it
 * next), or a write of its bucket waits before it: whichever worker takes
 * that one streams the bucket and takes this one after, as io-wq's
 * hashed work runs. A wakeup for it would end in a worker that finds the
 * bucket busy and sleeps again. Under wq->lock.
 */
static bool ar_hash_follows(const struct ar_iowq *wq, int acct,
			    const struct ar_ureq *req)
{
	unsigned hash = acct == AR_IOWQ_BOUND ? ar_req_hash(req) : 0;
	const struct ar_ureq *r;

	if (!hash)
		return false;
	if (ar_hash_busy(wq, hash))
		return true;
	for (r = wq->q[acct].head; r && r != req; r = r->next)
		if (ar_req_hash(r) == hash)
			return true;
	return false;
}

/*
 * The work a worker takes next, under wq->lock: after a hashed write, the
 * next one of its bucket (nobody was woken for those: they wait for this
 * worker, ar_iowq_enqueue()); else the first whose bucket no worker is
 * writing. *hash: its bucket, now busy, or 0.
 */
static struct ar_ureq *ar_iowq_next(struct ar_iowq *wq, int acct,
				    unsigned last, unsigned *hash)
{
	struct ar_ureq *req, *prev = NULL, *pick = NULL, *pick_prev = NULL;
	unsigned h, pick_h = 0;

	for (req = wq->q[acct].head; req; prev = req, req = req->next) {
		h = ar_req_hash(req);
		if (last && h == last) {
			pick = req;
			pick_prev = prev;
			pick_h = h;
			break;
		}
		if (!pick && !ar_hash_busy(wq, h)) {
			pick = req;
			pick_prev = prev;
			pick_h = h;
			if (!last)
				break;
		}
	}
	*hash = pick_h;
	if (!pick)
		return NULL;
	if (pick_prev)
		pick_prev->next = pick->next;
	else
		wq->q[acct].head = pick->next;
	if (wq->q[acct].tail == pick)
		wq->q[acct].tail = pick_prev;
	pick->next = NULL;
	if (pick_h)
		wq->hash_busy |= 1ULL << (pick_h - 1);
	return pick;
}

/*
 * IORING_REGISTER_IOWQ_AFF: a worker applies the pool's CPU set when it
 * sees a new generation, before its next work item (no syscall under the
 * pool lock). Under wq->lock; returns whether to apply *set.
 */
static bool ar_worker_aff_changed(struct ar_iowq *wq, unsigned *gen,
				  cpu_set_t *set)
{
	if (*gen == wq->aff_gen)
		return false;
	*gen = wq->aff_gen;
	if (wq->has_cpus) {
		*set = wq->cpus;
	} else {
		/* unregistered: every CPU again */
		CPU_ZERO(set);
		for (int i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, set);
	}
	return true;
}

static unsigned ar_iowq_limit(struct ar_iowq *wq, int acct);

static void *ar_worker_main(void *arg)
{
	struct ar_worker *w = arg;
	struct ar_uctx *ctx = w->ctx;
	struct ar_iowq *wq = &ctx->iowq;
	struct ar_ureq *req;
	unsigned aff_gen = 0, seq;
	cpu_set_t set;
	bool apply, timed_out;
	unsigned hash, last = 0;

	ar_iowq_self = w;
	/* the kernel's name for an io-wq worker, with its ring's creator's id */
	ar_thread_name("iou-wrk-", ctx->creator);
	pthread_mutex_lock(&wq->lock);
	for (;;) {
		req = ar_iowq_next(wq, w->acct, last, &hash);
		last = 0;
		w->nr_kept = 0;
		if (req) {
			ar_req_set_state(req, AR_REQ_RUNNING);
			req->worker = pthread_self();
			apply = ar_worker_aff_changed(wq, &aff_gen, &set);
			pthread_mutex_unlock(&wq->lock);
			if (apply)
				pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
			ar_req_issue(req, AR_ISSUE_WORKER);
			pthread_mutex_lock(&wq->lock);
			if (hash) {
				/* its bucket's next write is this worker's */
				wq->hash_busy &= ~(1ULL << (hash - 1));
				last = hash;
			}
			continue;
		}
		if (wq->exiting)
			break;
		/*
		 * Idle: counted, and the class's word read, under the lock;
		 * whoever queues work after we drop it bumps the word after
		 * taking the lock, so the futex wait sees the change or is
		 * woken. A futex of its own, not a condition variable: the
		 * woken worker does not retake a mutex in contended mode
		 * (one FUTEX_WAKE more per handoff with glibc's).
		 */
		wq->nr_idle[w->acct]++;
		seq = atomic_load_explicit(&wq->idle_seq[w->acct],
					   memory_order_relaxed);
		pthread_mutex_unlock(&wq->lock);
		timed_out = ar_futex_wait(&wq->idle_seq[w->acct], seq,
					  ar_now_ns() + AR_WORKER_IDLE_MS *
					  1000000ULL) == -ETIMEDOUT;
		pthread_mutex_lock(&wq->lock);
		wq->nr_idle[w->acct]--;
		/*
		 * A wakeup claimed for an idle worker: this one took it,
		 * whoever it was claimed for. Each claim's futex wake ends
		 * one wait (or finds the word moved before one began); left
		 * claimed, it would make the next work spawn a worker while
		 * this one sleeps on.
		 */
		if (wq->nr_wakeups[w->acct])
			wq->nr_wakeups[w->acct]--;
		if (wq->nr_wakeups[w->acct] > wq->nr_idle[w->acct])
			wq->nr_wakeups[w->acct] = wq->nr_idle[w->acct];
		if (timed_out && !wq->q[w->acct].head)
			break;
	}
	wq->nr_workers[w->acct]--;
	w->exited = true;
	pthread_cond_broadcast(&wq->exit_cond);
	pthread_mutex_unlock(&wq->lock);
	return NULL;
}

/* join workers that exited; under wq->lock, their list entries are freed after */
static struct ar_worker *ar_iowq_take_exited(struct ar_iowq *wq)
{
	struct ar_worker **pp = &wq->workers, *w, *done = NULL;

	while ((w = *pp)) {
		if (w->exited) {
			*pp = w->next;
			w->next = done;
			done = w;
		} else {
			pp = &w->next;
		}
	}
	return done;
}

static void ar_iowq_join(struct ar_worker *done)
{
	struct ar_worker *w;

	while ((w = done)) {
		done = w->next;
		pthread_join(w->tid, NULL);
		free(w);
	}
}

/*
 * Does this request's work belong to the unbounded class (io-wq's
 * IO_WQ_ACCT_UNBOUND: work that may block for long, on a pipe or
 * socket)? Its backend says, looked at afresh (a plain fd's kind is
 * cached; file.c). A request queued before it got its file (IOSQE_ASYNC)
 * gets its plain fd's backend now; a registered file is taken by the
 * worker, as the kernel's io-wq takes it, and counts as bound until then.
 */
static int ar_req_acct(struct ar_ureq *req)
{
	if (!ar_issue_defs[req->opcode].needs_file)
		return AR_IOWQ_BOUND;
	if (!req->file.be && !(req->flags & AR_REQ_F_FIXED_FILE))
		ar_req_assign_file(req);
	ar_req_file_recheck(req);
	req->flags |= AR_REQ_F_FILE_FRESH;
	return req->file.be && req->file.be->unbound ? AR_IOWQ_UNBOUND :
						      AR_IOWQ_BOUND;
}

/*
 * Work queued by a worker of its own class and ring, while it runs a
 * request: the next link of what it just completed (a FSYNC after a
 * WRITE). As io-wq runs a request's linked successor in the worker that
 * completed it, it goes first in the queue and wakes nobody: this worker
 * takes it as soon as it returns to its loop, with no thread handoff. It
 * stays on the queue meanwhile, where a cancel finds it. Bounded work
 * only: its blocking ends, so the kept request cannot wait on something
 * the worker's current request waits for (a pipe's other end) for ever.
 * Under wq->lock.
 */
static bool ar_iowq_keep(struct ar_iowq *wq, struct ar_uctx *ctx,
			 struct ar_ureq *req, int acct, bool linked)
{
	struct ar_worker *self = ar_iowq_self;
	struct ar_ureq **pp = &wq->q[acct].head, *prev = NULL;

	/* a successor only (complete.c): not work a drain released */
	if (!linked || !self || self->ctx != ctx ||
	    acct != AR_IOWQ_BOUND || self->acct != acct)
		return false;
	/* behind those kept before it, in the order they came */
	for (unsigned i = 0; i < self->nr_kept && *pp; i++) {
		prev = *pp;
		pp = &prev->next;
	}
	req->next = *pp;
	*pp = req;
	if (wq->q[acct].tail == prev)
		wq->q[acct].tail = req;
	self->nr_kept++;
	return true;
}

enum { AR_IOWQ_NONE, AR_IOWQ_SIGNAL, AR_IOWQ_SPAWN };

/* wake one idle worker of a class (nr: all); see ar_worker_main() */
static void ar_iowq_wake_idle(struct ar_iowq *wq, int acct, int nr)
{
	/* relaxed: the queue itself is read under wq->lock */
	atomic_fetch_add_explicit(&wq->idle_seq[acct], 1, memory_order_relaxed);
	ar_futex_wake(&wq->idle_seq[acct], nr);
}

/*
 * New work for a class: claim an idle worker not yet claimed by earlier
 * work (AR_IOWQ_SIGNAL: the caller wakes one once it has dropped the
 * lock, so the woken worker does not block on the lock the waker still
 * holds), or have one made (AR_IOWQ_SPAWN: the caller creates it).
 * Under wq->lock. The claim, counted under the lock, keeps the wakeup:
 * the worker read its word before it dropped the lock.
 */
static int ar_iowq_wake_locked(struct ar_iowq *wq, int acct)
{
	if (wq->nr_idle[acct] > wq->nr_wakeups[acct]) {
		wq->nr_wakeups[acct]++;
		return AR_IOWQ_SIGNAL;
	}
	if (wq->nr_workers[acct] < ar_iowq_limit(wq, acct) ||
	    !wq->nr_workers[acct]) {
		wq->nr_workers[acct]++;
		/* ring exit waits for it to be listed, so that it is joined */
		wq->nr_starting++;
		return AR_IOWQ_SPAWN;
	}
	return AR_IOWQ_NONE;
}

void ar_iowq_enqueue(struct ar_uctx *ctx, struct ar_ureq *req, bool linked)
{
	struct ar_iowq *wq = &ctx->iowq;
	struct ar_worker *w = NULL, *done;
	int acct = ar_req_acct(req);
	int wake = AR_IOWQ_NONE;

	ar_req_set_state(req, AR_REQ_QUEUED);
	pthread_mutex_lock(&wq->lock);
	if (wq->exiting) {
		/* the ring is gone (its fd closed): no worker will come */
		pthread_mutex_unlock(&wq->lock);
		ar_req_complete(req, -ECANCELED, 0);
		return;
	}
	if (ar_iowq_keep(wq, ctx, req, acct, linked)) {
		pthread_mutex_unlock(&wq->lock);
		return;
	}
	ar_stat_add(ctx, worker_handoffs, 1);
	ar_req_list_add(&wq->q[acct].head, &wq->q[acct].tail, req);
	if (!ar_hash_follows(wq, acct, req))
		wake = ar_iowq_wake_locked(wq, acct);
	done = ar_iowq_take_exited(wq);
	pthread_mutex_unlock(&wq->lock);

	if (wake == AR_IOWQ_SIGNAL)
		ar_iowq_wake_idle(wq, acct, 1);
	ar_iowq_join(done);
	if (wake != AR_IOWQ_SPAWN)
		return;
	w = calloc(1, sizeof(*w));
	if (w) {
		w->ctx = ctx;
		w->acct = acct;
		if (ar_thread_create(&w->tid, ar_worker_main, w)) {
			free(w);
			w = NULL;
		}
	}
	pthread_mutex_lock(&wq->lock);
	if (w) {
		w->next = wq->workers;
		wq->workers = w;
	} else {
		/* no thread: the queued work waits for a worker that exists */
		wq->nr_workers[acct]--;
		ar_debug("io-wq: cannot create a worker thread");
	}
	wq->nr_starting--;
	pthread_cond_broadcast(&wq->exit_cond);
	pthread_mutex_unlock(&wq->lock);
}

/* Take a request off the queue before a worker starts it. */
bool ar_iowq_cancel(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_iowq *wq = &ctx->iowq;
	struct ar_ureq **pp, *prev;
	bool found = false;
	int b;

	pthread_mutex_lock(&wq->lock);
	for (b = 0; b < 2 && !found; b++) {
		prev = NULL;
		for (pp = &wq->q[b].head; *pp; prev = *pp, pp = &(*pp)->next) {
			if (*pp != req)
				continue;
			*pp = req->next;
			if (wq->q[b].tail == req)
				wq->q[b].tail = prev;
			req->next = NULL;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&wq->lock);
	return found;
}

/*
 * IORING_REGISTER_IOWQ_MAX_WORKERS: in the kernel the limits belong to the
 * task's io-wq, which all its rings share, so a limit set through one ring
 * is seen through the others. Here the set limits are process-wide (0:
 * the ring's default); non-zero values are set, the previous ones returned.
 */
static pthread_mutex_t ar_iowq_limits_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned ar_iowq_limits[2];

static unsigned ar_iowq_limit(struct ar_iowq *wq, int acct)
{
	unsigned v = __atomic_load_n(&ar_iowq_limits[acct], __ATOMIC_RELAXED);

	return v ? v : wq->max_workers[acct];
}

int ar_iowq_max_workers(struct ar_uctx *ctx, unsigned *vals)
{
	struct ar_iowq *wq = &ctx->iowq;
	unsigned old[2];
	int i;

	pthread_mutex_lock(&ar_iowq_limits_lock);
	for (i = 0; i < 2; i++) {
		old[i] = ar_iowq_limit(wq, i);
		if (vals[i])
			__atomic_store_n(&ar_iowq_limits[i], vals[i],
					 __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&ar_iowq_limits_lock);
	vals[0] = old[0];
	vals[1] = old[1];
	return 0;
}

/* Ring exit: queued work was cancelled before; wait for the running, join all. */
void ar_iowq_exit(struct ar_uctx *ctx)
{
	struct ar_iowq *wq = &ctx->iowq;
	struct ar_worker *all;

	pthread_mutex_lock(&wq->lock);
	wq->exiting = true;
	ar_iowq_wake_idle(wq, 0, INT32_MAX);
	ar_iowq_wake_idle(wq, 1, INT32_MAX);
	/*
	 * A worker being created by an enqueue that raced this exit is
	 * listed (and so joined) only once its enqueue relocks: wait for it.
	 */
	while (wq->nr_workers[0] + wq->nr_workers[1] || wq->nr_starting)
		pthread_cond_wait(&wq->exit_cond, &wq->lock);
	all = wq->workers;
	wq->workers = NULL;
	pthread_mutex_unlock(&wq->lock);
	/* every listed worker has exited: joining does not block long */
	ar_iowq_join(all);
}

/* with the ring's memory: requests may still be handed in after exit */
struct ar_worker *ar_iowq_worker_next(struct ar_worker *w)
{
	return w->next;
}

void ar_iowq_free(struct ar_iowq *wq)
{
	pthread_cond_destroy(&wq->exit_cond);
	pthread_mutex_destroy(&wq->lock);
}
