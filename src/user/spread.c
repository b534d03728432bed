/* SPDX-License-Identifier: MIT */
/*
 * spread.c - issue=spread: a second thread shares the inline issue of a
 * submit's reads and writes. The kernel's io_uring copies a batch of
 * page-cache reads in one system call on one CPU; here the copies cost
 * a system call per read (or a share of one io_submit(), batch.c), so
 * one submitting thread is bound by system calls. With a second CPU, a
 * helper thread per ring takes part of a large batch:
 *
 *   - the submitter puts the batch's independent reads and writes on a
 *     bounded queue, then takes them itself a chunk at a time, as the
 *     helper does: whoever is free issues the next ones, so a helper that
 *     is slow to wake costs nothing but its wakeup;
 *   - a request the helper issues is an inline attempt as in the
 *     submitter (AR_ISSUE_NONBLOCK: a read that would block goes to
 *     io-wq); it completes as a request finished in another thread does
 *     (complete= decides: the task list, or posted at once);
 *   - the helper polls for the next batch for AR_SPREAD_SPIN_NS after its
 *     last request (about a futex sleep/wake round trip: waking it
 *     costs that much again), then sleeps on a futex. It is
 *     woken for a batch of AR_SPREAD_WAKE_MIN or more; smaller batches
 *     are shared only while it is awake;
 *   - a helper only pays with a CPU nobody else wants: when its poll
 *     finds another thread waiting for its CPU, or it wakes too late to
 *     find work AR_SPREAD_MISSES times in a row, batches stay with their
 *     submitters but for one in AR_SPREAD_PROBE, which looks again.
 *
 * Only requests that stand alone are shared: no link, drain,
 * IOSQE_ASYNC or IOSQE_BUFFER_SELECT, and not while ANYRING_FAULTS rules apply (their nth and
 * every counts follow issue order). CQE order among them may differ from
 * submission order, as it may on the kernel for independent requests.
 *
 * A cancel sees what the kernel's would: every request submitted before
 * it has been issued. ar_spread_sync(), called by each cancel before it
 * looks, issues what is still queued itself and waits for the claimers
 * (the helper) to finish the requests in their hands, so a request is
 * cancellable from the moment its submit returns, and a submit's
 * ASYNC_CANCEL ends the shared part of its batch: the requests behind it
 * are issued after it, in order.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include "user/backend.h"
#include "user/fault.h"
#include "lib/waitpol.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/submit.h"
#include "user/complete.h"
#include "user/spread.h"
#include "user/wait.h"
#include "lib/thread.h"

#define AR_SPREAD_Q		128	/* queue slots (a power of two) */
#define AR_SPREAD_MIN		2	/* shared while the helper is awake */
#define AR_SPREAD_WAKE_MIN	8	/* worth waking the helper for */
#define AR_SPREAD_SPIN_NS	50000	/* the helper's poll for the next batch */
#define AR_SPREAD_MISSES	4	/* idle runs in a row before the backoff */
#define AR_SPREAD_PROBE		16	/* in backoff: every 16th batch wakes it */
#define AR_SPREAD_CHUNK		8	/* claimed at once, read in one call */
#define AR_SPREAD_YIELD_NS	10000	/* a yield this long: another thread ran */

struct ar_spread {
	struct ar_uctx *ctx;
	pthread_t tid;
	/* the queue: one pusher at a time (push_busy), any thread claims */
	atomic_uint head;		/* next to claim: advanced by CAS */
	atomic_uint tail;		/* next free: written by the pusher */
	atomic_bool push_busy;
	atomic_uint sleeping;		/* futex: 1 while the helper sleeps */
	atomic_bool exiting;
	/* threads in ar_spread_run() (futex): claiming or issuing requests */
	atomic_uint active;
	atomic_uint sync_waiters;	/* threads in ar_spread_sync() asleep on active */
	/* helper runs in a row that issued nothing (capped); a hint */
	atomic_uint misses;
	/* the helper's last poll gave its CPU to another thread; a hint */
	atomic_bool crowded;
	atomic_uint batches;		/* batches seen in backoff; a hint */
	_Atomic(struct ar_ureq *) q[AR_SPREAD_Q];
};

/* The next queued request, claimed; NULL when the queue is empty. */
static struct ar_ureq *ar_spread_claim(struct ar_spread *sp)
{
	unsigned h = atomic_load_explicit(&sp->head, memory_order_relaxed);
	struct ar_ureq *req;

	for (;;) {
		/* acquire pairs with the pusher's store of tail: slots are written */
		if (h == atomic_load_explicit(&sp->tail, memory_order_acquire))
			return NULL;
		req = atomic_load_explicit(&sp->q[h % AR_SPREAD_Q],
					   memory_order_relaxed);
		/*
		 * The slot is rewritten only once head passed it, so the read
		 * is good if head is still h. acq_rel: release orders the read
		 * before the pusher may reuse the slot (it loads head with
		 * acquire); acquire takes the request's fields.
		 */
		if (atomic_compare_exchange_weak_explicit(&sp->head, &h, h + 1,
							  memory_order_acq_rel,
							  memory_order_relaxed))
			return req;
	}
}

/*
 * Issue queued requests until none is left; how many. The thread counts
 * in sp->active from before its first claim until its last request was
 * issued (completed, or waiting where a cancel finds it). They are
 * claimed AR_SPREAD_CHUNK at a time and issued under a plug, whose end
 * reads a chunk's reads in one system call (backend/batch.c): a thread
 * that claimed one at a time made one preadv2() per read.
 */
static unsigned ar_spread_run(struct ar_spread *sp)
{
	struct ar_direct_plug plug;
	struct ar_ureq *req;
	unsigned n = 0, k;

	/*
	 * seq_cst: before the claims' CAS of head (sequenced), so that
	 * ar_spread_sync(), which reads head with acquire after its own
	 * drain, then reads active, sees this thread in it.
	 */
	atomic_fetch_add_explicit(&sp->active, 1, memory_order_seq_cst);
	do {
		ar_direct_plug_begin(sp->ctx, &plug);
		for (k = 0; k < AR_SPREAD_CHUNK && (req = ar_spread_claim(sp)); k++)
			ar_req_queue_plugged(&plug, req);
		ar_direct_plug_end(&plug);
		n += k;
	} while (k == AR_SPREAD_CHUNK);
	/*
	 * seq_cst, then the load of sync_waiters: pairs with
	 * ar_spread_sync()'s seq_cst store of sync_waiters before its load
	 * of active (the waiter sees 0, or this thread sees the waiter).
	 * The release in it publishes the issued requests' state to the
	 * waiter's acquire load of active.
	 */
	if (atomic_fetch_sub_explicit(&sp->active, 1, memory_order_seq_cst) == 1 &&
	    atomic_load_explicit(&sp->sync_waiters, memory_order_seq_cst))
		ar_futex_wake(&sp->active, INT32_MAX);
	return n;
}

#define AR_SPREAD_SYNC_SPINS	1024	/* polls of active before sleeping */

/* wait until no thread is in ar_spread_run(): a short poll, then the futex */
static void ar_spread_wait_idle(struct ar_spread *sp)
{
	unsigned v, n;

	for (n = 0; n < AR_SPREAD_SYNC_SPINS; n++) {
		/* acquire pairs with ar_spread_run()'s decrement: its issues are done */
		if (!atomic_load_explicit(&sp->active, memory_order_acquire))
			return;
		ar_cpu_relax();
	}
	atomic_fetch_add_explicit(&sp->sync_waiters, 1, memory_order_seq_cst);
	/* seq_cst: pairs with ar_spread_run()'s decrement, then its load of sync_waiters */
	while ((v = atomic_load_explicit(&sp->active, memory_order_seq_cst)))
		ar_futex_wait(&sp->active, v, 0);
	atomic_fetch_sub_explicit(&sp->sync_waiters, 1, memory_order_relaxed);
}

static bool ar_spread_pending(struct ar_spread *sp)
{
	/*
	 * seq_cst: after the helper's seq_cst store of sleeping, pairs with
	 * the pusher's seq_cst store of tail before its load of sleeping.
	 */
	return atomic_load_explicit(&sp->head, memory_order_relaxed) !=
	       atomic_load_explicit(&sp->tail, memory_order_seq_cst);
}

static bool ar_spread_exiting(struct ar_spread *sp)
{
	return atomic_load_explicit(&sp->exiting, memory_order_acquire);
}

/*
 * Poll for work for AR_SPREAD_SPIN_NS; true if some came. Every 64 looks
 * the thread yields its CPU: a yield that takes long means another
 * thread ran meanwhile, so more threads want the CPUs than there are,
 * and the poll only takes one from them. It ends then, and the helper
 * counts as crowded until a poll finds its CPU its own (relaxed: a hint
 * for the submitters, ar_spread_backoff()).
 */
static bool ar_spread_poll(struct ar_spread *sp)
{
	__u64 start = ar_now_ns(), now;
	unsigned n = 0;
	bool crowded = false;

	while (!ar_spread_pending(sp)) {
		if (ar_spread_exiting(sp))
			break;
		/* the clock every 16 looks, a yield every 64 */
		if (!(++n & 15)) {
			now = ar_now_ns();
			if (now - start >= AR_SPREAD_SPIN_NS)
				break;
			if (!(n & 63)) {
				sched_yield();
				if (ar_now_ns() - now >= AR_SPREAD_YIELD_NS) {
					crowded = true;
					break;
				}
			}
		}
		ar_cpu_relax();
	}
	atomic_store_explicit(&sp->crowded, crowded, memory_order_relaxed);
	return !crowded && ar_spread_pending(sp);
}

static void *ar_spread_thread(void *arg)
{
	struct ar_spread *sp = arg;

	unsigned n;

	while (!ar_spread_exiting(sp)) {
		n = ar_spread_run(sp);
		/*
		 * Poll for the next batch only after a run that issued
		 * something: one that found the submitter had taken it all
		 * was late (the CPUs are busy), and its spin would only take
		 * a CPU from the submitters. Relaxed: misses is a hint.
		 */
		if (n) {
			ar_stat_add(sp->ctx, spread_issued, n);
			atomic_store_explicit(&sp->misses, 0, memory_order_relaxed);
			if (ar_spread_poll(sp))
				continue;
		} else if (atomic_load_explicit(&sp->misses, memory_order_relaxed) <
			   AR_SPREAD_MISSES) {
			atomic_fetch_add_explicit(&sp->misses, 1, memory_order_relaxed);
		}
		/* seq_cst: pairs with the pusher's (see ar_spread_pending) */
		atomic_store_explicit(&sp->sleeping, 1, memory_order_seq_cst);
		if (!ar_spread_pending(sp) && !ar_spread_exiting(sp))
			/* re-check exit every 100 ms */
			ar_futex_wait(&sp->sleeping, 1,
				      ar_now_ns() + 100000000ULL);
		atomic_store_explicit(&sp->sleeping, 0, memory_order_relaxed);
	}
	return NULL;
}

/* end the helper: it finishes the request in its hands */
static void ar_spread_stop(struct ar_spread *sp, bool free_it)
{
	/*
	 * seq_cst, exiting then sleeping: pairs with the helper's seq_cst
	 * store of sleeping before it looks at exiting. It sees exiting, or
	 * its futex wait finds sleeping no longer 1, or the wake reaches it.
	 */
	atomic_store_explicit(&sp->exiting, true, memory_order_seq_cst);
	atomic_store_explicit(&sp->sleeping, 0, memory_order_seq_cst);
	ar_futex_wake(&sp->sleeping, 1);
	pthread_join(sp->tid, NULL);
	/* a submit still running claims what is left itself */
	ar_spread_run(sp);
	if (free_it)
		free(sp);
}

/* the ring's helper, started on first use; NULL if it cannot be */
static struct ar_spread *ar_spread_get(struct ar_uctx *ctx)
{
	/* acquire pairs with the release publishing it below */
	struct ar_spread *sp = __atomic_load_n(&ctx->spread, __ATOMIC_ACQUIRE);

	struct ar_spread *cur = NULL;

	if (sp || __atomic_load_n(&ctx->spread_failed, __ATOMIC_RELAXED))
		return sp;
	/* started without a lock (clone): a thread that loses the race stops its own */
	sp = calloc(1, sizeof(*sp));
	if (sp)
		sp->ctx = ctx;
	if (!sp || ar_thread_create(&sp->tid, ar_spread_thread, sp)) {
		free(sp);
		__atomic_store_n(&ctx->spread_failed, true, __ATOMIC_RELAXED);
		return NULL;
	}
	/* release pairs with the acquire loads of ctx->spread; acquire: the winner's */
	if (__atomic_compare_exchange_n(&ctx->spread, &cur, sp, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return sp;
	ar_spread_stop(sp, true);
	return cur;
}

/*
 * Is the request worth sharing? A standalone read or write whose backend
 * does the I/O in the issuing thread (->spread): a backend that queues
 * it (direct, a device) does so in well under a microsecond, so a second
 * thread would only add its cost. So does a write to a file whose
 * buffered writes refused RWF_NOWAIT before (wr_blocks): unless the
 * SQE asks for RWF_NOWAIT itself, it goes to io-wq without a try.
 */
static bool ar_spread_ok(struct ar_ureq *req)
{
	/*
	 * a provided buffer is chosen in issue order, after the
	 * PROVIDE_BUFFERS before it (kbuf.h): not shared
	 */
	if (!ar_issue_defs[req->opcode].spread ||
	    (req->flags & (AR_REQ_F_FAIL | AR_REQ_F_LINK |
			   AR_REQ_F_FORCE_ASYNC | AR_REQ_F_DRAIN_PATH)) ||
	    (req->sqe_flags & IOSQE_BUFFER_SELECT))
		return false;
	/* a registered file's fd: taken now rather than at issue (idempotent) */
	if (ar_req_assign_file(req))
		return false;
	if (ar_issue_defs[req->opcode].hash_reg_file && req->file.wr_blocks)
		return false;
	return req->file.be->spread;
}

/*
 * Requests after this one in the batch are not looked at for sharing: a
 * cancel sees the requests before it issued and none after; an op that
 * may change the registered file table (a direct close, FILES_UPDATE, a
 * direct open, accept, socket or pipe, MSG_RING's fd passing) must run
 * before a later request takes its slot's file (ar_spread_ok() takes it
 * early): close-direct-then-write-fixed-buffer-first.
 */
static bool ar_spread_barrier(const struct ar_ureq *req)
{
	return ar_issue_defs[req->opcode].spread_barrier;
}

/*
 * Is the helper asleep, and either crowded in its last poll
 * (ar_spread_poll()) or AR_SPREAD_MISSES runs in a row too late to find
 * anything left to issue? More threads want the CPUs than there are:
 * the helper's share of a batch then only costs the submitters a CPU.
 * Only every
 * AR_SPREAD_PROBE-th batch is shared, to find out whether it still is
 * so. Relaxed: hints, and a lost update only moves a probe.
 */
static bool ar_spread_backoff(struct ar_spread *sp)
{
	if (!atomic_load_explicit(&sp->sleeping, memory_order_relaxed) ||
	    (atomic_load_explicit(&sp->misses, memory_order_relaxed) <
	     AR_SPREAD_MISSES &&
	     !atomic_load_explicit(&sp->crowded, memory_order_relaxed)))
		return false;
	return atomic_fetch_add_explicit(&sp->batches, 1, memory_order_relaxed) %
	       AR_SPREAD_PROBE;
}

/* does the ready list start with enough requests worth sharing? */
static bool ar_spread_wanted(struct ar_uctx *ctx, struct ar_ureq *ready)
{
	struct ar_spread *sp;
	unsigned n = 0, need;

	if (__atomic_load_n(&ctx->pol.issue, __ATOMIC_RELAXED) !=
	    ANYRING_ISSUE_SPREAD || !ready->next || ar_faults_active() ||
	    ctx->exiting)
		return false;
	sp = __atomic_load_n(&ctx->spread, __ATOMIC_ACQUIRE);
	if (sp && ar_spread_backoff(sp))
		return false;
	need = sp && !atomic_load_explicit(&sp->sleeping, memory_order_relaxed) ?
	       AR_SPREAD_MIN : AR_SPREAD_WAKE_MIN;
	for (; ready && n < need && !ar_spread_barrier(ready) &&
	     ar_spread_ok(ready); ready = ready->next)
		n++;
	return n >= need;
}

/*
 * issue=spread, for a submit's ready list: queue the requests worth
 * sharing it starts with and wake the helper; the rest, from the first
 * that is not shared, is returned, in order, for the caller to issue
 * once the shared ones were (ar_spread_sync()): the kernel issues a
 * submit's requests in order, so a CLOSE, a write or a FALLOCATE after
 * reads must not run before them. *spread says whether anything was
 * queued: the caller then claims from the queue too.
 */
struct ar_ureq *ar_spread_offer(struct ar_uctx *ctx, struct ar_ureq *ready,
				bool *spread)
{
	struct ar_spread *sp;
	unsigned t, h;

	*spread = false;
	if (!ar_spread_wanted(ctx, ready) || !(sp = ar_spread_get(ctx)))
		return ready;
	if (atomic_exchange_explicit(&sp->push_busy, true, memory_order_acquire))
		return ready;	/* another submitter is pushing: not this batch */
	*spread = true;
	t = atomic_load_explicit(&sp->tail, memory_order_relaxed);
	/* acquire pairs with the claimers' release on head: their reads are done */
	h = atomic_load_explicit(&sp->head, memory_order_acquire);
	while (ready && t - h < AR_SPREAD_Q && !ar_spread_barrier(ready) &&
	       ar_spread_ok(ready)) {
		atomic_store_explicit(&sp->q[t % AR_SPREAD_Q], ready,
				      memory_order_relaxed);
		t++;
		ready = ready->next;
	}
	/*
	 * seq_cst: the slots before tail (release for the claimers), and
	 * tail before the load of sleeping; pairs with the helper's seq_cst
	 * store of sleeping before it looks at tail: it sees the work or we
	 * see it asleep.
	 */
	atomic_store_explicit(&sp->tail, t, memory_order_seq_cst);
	atomic_store_explicit(&sp->push_busy, false, memory_order_release);
	if (atomic_load_explicit(&sp->sleeping, memory_order_seq_cst) &&
	    atomic_exchange_explicit(&sp->sleeping, 0, memory_order_relaxed)) {
		ar_stat_add(ctx, worker_handoffs, 1);
		ar_futex_wake(&sp->sleeping, 1);
	}
	return ready;
}

/* The submitter's share: issue queued requests until none is left. */
void ar_spread_help(struct ar_uctx *ctx)
{
	struct ar_spread *sp = __atomic_load_n(&ctx->spread, __ATOMIC_ACQUIRE);

	if (sp)
		ar_spread_run(sp);
}

/*
 * Before a cancel looks for its matches, or a submit issues what follows
 * its shared requests: every request handed to the helper until now is
 * issued, so it completed or waits where the cancel finds it. What is still queued this thread issues itself; the requests
 * claimers hold are waited for (each is one non-blocking attempt).
 * Called without ctx->lock.
 */
void ar_spread_sync(struct ar_uctx *ctx)
{
	/* acquire pairs with the release publishing ctx->spread (ar_spread_get) */
	struct ar_spread *sp = __atomic_load_n(&ctx->spread, __ATOMIC_ACQUIRE);

	if (!sp)
		return;
	ar_spread_run(sp);
	/*
	 * acquire: head as the claims left it (each a release CAS after the
	 * claimer's seq_cst increment of active), so the load of active in
	 * ar_spread_wait_idle() sees every thread that claimed a request
	 * before this thread found the queue empty.
	 */
	(void)atomic_load_explicit(&sp->head, memory_order_acquire);
	ar_spread_wait_idle(sp);
}

/*
 * Ring exit: the helper finishes the request in its hands and ends. The
 * struct stays for a cancel still running in a worker (ar_spread_sync());
 * ar_spread_free() frees it once io-wq is gone.
 */
void ar_spread_exit(struct ar_uctx *ctx)
{
	struct ar_spread *sp = ctx->spread;

	if (sp)
		ar_spread_stop(sp, false);
}

void ar_spread_free(struct ar_uctx *ctx)
{
	free(ctx->spread);
	ctx->spread = NULL;
}
