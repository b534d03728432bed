/* SPDX-License-Identifier: MIT */
/*
 * futex.c - IORING_OP_FUTEX_WAIT, FUTEX_WAKE and FUTEX_WAITV, as the
 * kernel's io_uring/futex.c, on the futex2 system calls (futex_wait(2),
 * futex_wake(2), futex_waitv(2); Linux 6.7+). The futex words are the
 * application's memory: only the system calls touch them (and, for a
 * WAITV that saw a value move, ar_copy_from_user).
 *
 * A wait first tries at once: the system call with a timeout already
 * expired answers a moved value (-EAGAIN), a bad address (-EFAULT) or bad
 * flags (-EINVAL) the way the kernel's issue does, and -ETIMEDOUT means
 * it would block. It is then armed:
 *  - in a process-wide table of armed waits (ar_futexes), keyed by
 *    address and privacy, where a FUTEX_WAKE of this engine finds it at
 *    once, respecting its mask, as the kernel's hash bucket would: a wait
 *    and a wake in one submission behave as on the kernel;
 *  - and in a thread of its own blocked in futex_waitv(2) on its words
 *    plus a private stop word, so that a wake from anywhere else (another
 *    process, a thread calling futex(2)) ends it too.
 * Whoever claims an armed wait first (a FUTEX_WAKE here, the thread
 * seeing a wake from outside, a cancel, ring exit) decides its result; the
 * others see it gone. A claim by anyone but the thread sets the stop word
 * and wakes it, so the thread leaves the kernel. The CQE of a wait whose
 * thread was in the kernel is posted by that thread once it is out, so
 * that a wake the application sends after seeing the CQE cannot be taken
 * by a thread of ours still queued on the word. A FUTEX_WAKE that still
 * has wakes to hand out after its claims waits for those threads to have
 * left (ar_futexes.leaving) before it asks the kernel, so that a claimed
 * wait is not woken twice and the count is the kernel's.
 *
 * The cost: one thread per armed wait (created at arming, about 30 us,
 * ending with the wait); see docs/semantics.md D91 for what differs.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/futex.h>
#include "lib/sysraw.h"
#include "lib/uaccess.h"
#include "user/cancel.h"
#include "user/types.h"
#include "user/lock.h"
#include "user/complete.h"
#include "user/ctx.h"
#include "user/iowq.h"
#include "lib/thread.h"
#include "user/ops/futex.h"
#include "user/ops/waitid.h"
#include "user/timeout.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv		449
#endif
#ifndef SYS_futex_wake
#define SYS_futex_wake		454
#endif
#ifndef SYS_futex_wait
#define SYS_futex_wait		455
#endif

/* futex2 flags, 6.18's FUTEX2_VALID_MASK */
#define AR_FUTEX2_SIZE_MASK	0x03
#define AR_FUTEX2_SIZE_U32	0x02
#define AR_FUTEX2_NUMA		0x04
#define AR_FUTEX2_MPOL		0x08
#define AR_FUTEX2_PRIVATE	128
#define AR_FUTEX2_VALID		(AR_FUTEX2_SIZE_MASK | AR_FUTEX2_NUMA | \
				 AR_FUTEX2_MPOL | AR_FUTEX2_PRIVATE)
#define AR_FUTEX_WAITV_MAX	128
#define AR_FUTEX_MATCH_ANY	0xffffffffU

struct ar_waitv {
	__u64 val;
	__u64 uaddr;
	__u32 flags;
	__u32 reserved;
};

struct ar_fwait;

/* one armed futex word of a wait, on a bucket of ar_futexes */
struct ar_fkey {
	struct ar_fkey *next;
	struct ar_fwait *w;
	__u64 uaddr;
	__u32 mask;
	bool priv;
	unsigned index;
};

/* an armed wait, shared by the request and its thread */
struct ar_fwait {
	/* under the lock */
	struct ar_ureq *req;		/* NULL once claimed by a waker */
	int refs;			/* the table's, the thread's, wakers' */
	unsigned paused;		/* wakers that want it out of the kernel */
	unsigned pause_gen;		/* pauses so far */
	unsigned long mark;		/* the last waker that paused it */
	bool cancelled;			/* cancelled: the thread completes it */
	bool in_kernel;			/* the thread is in (or entering) futex_waitv */
	bool leaving;			/* counted in ar_futexes.leaving */
	/*
	 * 0 while the thread may sleep; 1 when it must leave the kernel
	 * (claimed, cancelled or paused): written under the lock, read by
	 * futex_waitv(2) and by the paused thread's futex_wait
	 */
	atomic_uint stop;
	int res;			/* what its waker completes it with */
	unsigned nr;			/* futex words (1 for FUTEX_WAIT) */
	bool waitv;
	struct ar_ureq *claimed;	/* its waker's: the request taken */
	struct ar_fwait *claim_next;	/* its waker's list */
	/*
	 * claimed while the thread was in the kernel: the thread completes
	 * it once out (ar_fwait_thread())
	 */
	struct ar_ureq *done;
	struct ar_waitv *vec;		/* nr words + the stop word */
	struct ar_fkey keys[];
};

#define AR_FUTEX_BUCKETS	64

/*
 * The armed waits of every ring, by address. leaving[b]: threads of
 * claimed or paused waits with a word in bucket b that may still be
 * queued in the kernel; a waker's futex_wake(2) waits for none to be
 * left, so that it cannot wake (and count) them.
 */
static struct {
	pthread_mutex_t lock;
	struct ar_fkey *bucket[AR_FUTEX_BUCKETS];
	unsigned long wakers;
	atomic_uint leaving[AR_FUTEX_BUCKETS];
} ar_futexes = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct ar_futex {
	__u64 uaddr;
	__u64 val;
	__u64 mask;
	__u32 flags;
	__u32 nr;			/* FUTEX_WAITV: the vector, in req->alloc */
	struct ar_fwait *w;		/* armed, not yet claimed */
};

static unsigned ar_futex_hash(__u64 uaddr)
{
	return (unsigned)((uaddr >> 2) ^ (uaddr >> 12)) % AR_FUTEX_BUCKETS;
}

/* futex2_to_flags + futex_flags_valid: only 32-bit futexes exist */
static bool ar_futex2_valid(__u32 flags)
{
	if (flags & ~AR_FUTEX2_VALID)
		return false;
	return (flags & AR_FUTEX2_SIZE_MASK) == AR_FUTEX2_SIZE_U32;
}

/* futex_validate_input: a value or mask fits the futex's size */
static bool ar_futex_fits(__u64 v)
{
	return !(v >> 32);
}

int ar_futex_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_futex *f = ar_req_data(req, struct ar_futex);

	if (sqe->len || sqe->rw_flags || sqe->buf_index || sqe->file_index)
		return -EINVAL;
	f->uaddr = sqe->addr;
	f->val = sqe->addr2;
	f->mask = sqe->addr3;
	f->flags = (__u32)sqe->fd;
	f->w = NULL;
	if (!ar_futex2_valid(f->flags))
		return -EINVAL;
	if (!ar_futex_fits(f->val) || !ar_futex_fits(f->mask))
		return -EINVAL;
	return 0;
}

/* futex_parse_waitv, on a copy made fault-safe; one spare entry: the stop word */
int ar_futexv_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_futex *f = ar_req_data(req, struct ar_futex);
	struct ar_waitv *v;
	unsigned i;

	if (sqe->fd || sqe->buf_index || sqe->file_index || sqe->addr2 ||
	    sqe->rw_flags || sqe->addr3)
		return -EINVAL;
	f->uaddr = sqe->addr;
	f->nr = sqe->len;
	f->w = NULL;
	if (!f->nr || f->nr > AR_FUTEX_WAITV_MAX)
		return -EINVAL;
	v = calloc(f->nr + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	req->alloc = v;
	/* entry by entry, as futex_parse_waitv(): a bad entry before a fault is -EINVAL */
	for (i = 0; i < f->nr; i++) {
		if (ar_copy_from_user(&v[i], (const void *)(unsigned long)
				      (f->uaddr + i * sizeof(*v)), sizeof(*v)))
			return -EFAULT;
		if (v[i].reserved || !ar_futex2_valid(v[i].flags) ||
		    !ar_futex_fits(v[i].val))
			return -EINVAL;
	}
	return 0;
}

static long ar_sys_futex_wait(const struct ar_futex *f,
			      const struct timespec *ts)
{
	return ar_raw_syscall6(SYS_futex_wait, (long)f->uaddr, (long)f->val,
			       (long)f->mask, (long)f->flags, (long)ts,
			       CLOCK_MONOTONIC);
}

static long ar_sys_futex_waitv(struct ar_waitv *v, unsigned nr,
			       const struct timespec *ts)
{
	return ar_raw_syscall6(SYS_futex_waitv, (long)v, (long)nr, 0, (long)ts,
			       ts ? CLOCK_MONOTONIC : 0, 0);
}

/* under the lock: off the table; the table's reference goes */
static void ar_fwait_unhash(struct ar_fwait *w)
{
	struct ar_fkey **pp;
	unsigned i;

	for (i = 0; i < w->nr; i++) {
		pp = &ar_futexes.bucket[ar_futex_hash(w->keys[i].uaddr)];
		while (*pp && *pp != &w->keys[i])
			pp = &(*pp)->next;
		if (*pp)
			*pp = w->keys[i].next;
	}
	w->refs--;
}

/* drop a reference */
static void ar_fwait_put(struct ar_fwait *w)
{
	bool last;

	pthread_mutex_lock(&ar_futexes.lock);
	last = !--w->refs;
	pthread_mutex_unlock(&ar_futexes.lock);
	if (last) {
		free(w->vec);
		free(w);
	}
}

/*
 * Under the lock: the thread must leave the kernel. The stop word's wake
 * is a system call under the lock because once the lock is dropped the
 * thread may be gone; it never blocks. A thread that may be queued on
 * the words is counted as leaving until it is out.
 */
static void ar_fwait_kick(struct ar_fwait *w)
{
	unsigned i;

	if (w->in_kernel && !w->leaving) {
		w->leaving = true;
		for (i = 0; i < w->nr; i++)
			atomic_fetch_add_explicit(&ar_futexes.leaving[
				ar_futex_hash(w->keys[i].uaddr)], 1,
				memory_order_relaxed);
	}
	/* relaxed: the futex calls order it (their own locks) */
	atomic_store_explicit(&w->stop, 1, memory_order_relaxed);
	ar_futex_wake(&w->stop, INT_MAX);
}

/*
 * Under the lock: the thread left the kernel. Its buckets' counts go
 * down; returns whether to wake wakers waiting on them.
 */
static bool ar_fwait_left(struct ar_fwait *w)
{
	unsigned i;

	w->in_kernel = false;
	if (!w->leaving)
		return false;
	w->leaving = false;
	for (i = 0; i < w->nr; i++)
		/* release: pairs with the waker's acquire in ar_futex_wait_leaving() */
		atomic_fetch_sub_explicit(&ar_futexes.leaving[
			ar_futex_hash(w->keys[i].uaddr)], 1,
			memory_order_release);
	return true;
}

static void ar_fwait_wake_leaving(struct ar_fwait *w)
{
	unsigned i;

	for (i = 0; i < w->nr; i++)
		ar_futex_wake(&ar_futexes.leaving[ar_futex_hash(w->keys[i].uaddr)],
			      INT_MAX);
}

/*
 * A completion that will come from a thread ring exit does not join: the
 * ring's memory stays (a reference), and exit waits for the completion
 * before it closes the ring fd that completion signals (dev_inflight,
 * which ar_iopoll_exit() waits for). Under the futex lock, which ring
 * exit's cancel takes (ar_futex_cancel_locked()) before exit reads the
 * count: relaxed.
 */
static void ar_fwait_hold(struct ar_uctx *ctx)
{
	ar_uctx_get(ctx);
	atomic_fetch_add_explicit(&ctx->dev_inflight, 1, memory_order_relaxed);
}

/*
 * Under the lock: the wait leaves its request and the table. The caller
 * completes the request; hold_ctx: it holds the ring for that (ring exit
 * does not wait for a request its cancel no longer finds).
 */
static struct ar_ureq *ar_fwait_take(struct ar_fwait *w, bool hold_ctx)
{
	struct ar_ureq *req = w->req;

	w->req = NULL;
	ar_req_data(req, struct ar_futex)->w = NULL;
	ar_fwait_unhash(w);
	if (hold_ctx)
		ar_fwait_hold(req->ctx);
	return req;
}

static void ar_fwait_complete(struct ar_ureq *req, int res)
{
	struct ar_uctx *ctx = req->ctx;

	ar_req_complete(req, res, 0);
	/*
	 * release: pairs with the acquire in ar_iopoll_exit(); ctx is not
	 * touched after but for the reference
	 */
	atomic_fetch_sub_explicit(&ctx->dev_inflight, 1, memory_order_release);
	ar_uctx_put(ctx);
}

/* the result of a futex_waitv(2) that returned ret for this wait */
static int ar_fwait_result(struct ar_fwait *w, long ret)
{
	unsigned i;
	__u32 cur;

	if (ret >= 0)
		return w->waitv ? (int)ret : 0;
	if (ret != -EAGAIN)
		return (int)ret;
	/*
	 * A value moved after the wait was armed: the kernel had it queued
	 * by then, and a wake follows such a move; report it woken (a
	 * spurious wakeup, which futex users allow): the first word moved.
	 */
	if (!w->waitv)
		return 0;
	for (i = 0; i < w->nr; i++) {
		if (ar_copy_from_user(&cur, (const void *)(unsigned long)
				      w->vec[i].uaddr, sizeof(cur)) ||
		    cur != (__u32)w->vec[i].val)
			return (int)i;
	}
	return 0;
}

/*
 * The wait's thread: in futex_waitv(2) on its words and its stop word
 * until a wake from outside ends it (it completes the request), a waker
 * of this engine or a cancel claims it, or a waker pauses it (out of the
 * kernel until that waker's futex_wake(2) is done, then back in).
 */
static void *ar_fwait_thread(void *arg)
{
	struct ar_fwait *w = arg;
	struct ar_ureq *req = NULL;
	unsigned gen;
	long ret;
	int res = 0;

	pthread_mutex_lock(&ar_futexes.lock);
	for (;;) {
		if (!w->req) {
			/* a waker's claim, left to this thread: it is out now */
			req = w->done;
			res = w->res;
			w->done = NULL;
			break;
		}
		if (w->cancelled) {
			/* the cancel holds the ring for this completion */
			req = ar_fwait_take(w, false);
			res = -ECANCELED;
			break;
		}
		if (w->paused) {
			pthread_mutex_unlock(&ar_futexes.lock);
			ar_futex_wait(&w->stop, 1, 0);
			pthread_mutex_lock(&ar_futexes.lock);
			continue;
		}
		w->in_kernel = true;
		gen = w->pause_gen;
		pthread_mutex_unlock(&ar_futexes.lock);
		do {
			ret = ar_sys_futex_waitv(w->vec, w->nr + 1, NULL);
		} while (ret == -EINTR);
		pthread_mutex_lock(&ar_futexes.lock);
		/*
		 * At once, under the lock: a paused thread goes on to wait
		 * for its waker's unpause, and that waker may be asleep on
		 * the count until this wake; deferring it deadlocks both.
		 */
		if (ar_fwait_left(w))
			ar_fwait_wake_leaving(w);
		if (!w->req || w->cancelled)
			continue;
		/* the stop word, or a pause since: not a wake of its words */
		if ((unsigned long)ret == w->nr || w->paused ||
		    (ret == -EAGAIN && gen != w->pause_gen))
			continue;
		res = ar_fwait_result(w, ret);
		req = ar_fwait_take(w, true);
		break;
	}
	pthread_mutex_unlock(&ar_futexes.lock);
	if (req)
		ar_fwait_complete(req, res);
	ar_fwait_put(w);
	return NULL;
}

/* Arm a wait that would block: into the table, and its thread started. */
static int ar_fwait_arm(struct ar_ureq *req, struct ar_waitv *vec,
			unsigned nr, __u32 mask, bool waitv)
{
	struct ar_futex *f = ar_req_data(req, struct ar_futex);
	struct ar_fwait *w = calloc(1, sizeof(*w) + nr * sizeof(w->keys[0]));
	struct ar_fkey **head;
	bool claimed, last;
	pthread_t tid;
	unsigned i;
	int ret;

	if (!w)
		return -ENOMEM;
	w->vec = vec;
	w->nr = nr;
	w->waitv = waitv;
	w->req = req;
	w->refs = 2;		/* the table's, the thread's */
	vec[nr].uaddr = (unsigned long)&w->stop;
	vec[nr].val = 0;
	vec[nr].flags = AR_FUTEX2_SIZE_U32 | AR_FUTEX2_PRIVATE;
	/*
	 * Under ctx->lock, armed and in the table at once: a LINK_TIMEOUT
	 * that fired while it was issued cancels it here (timeout.c), one
	 * that fires from now on finds it armed (ar_futex_cancel_locked()).
	 */
	ar_ctx_lock(req->ctx);
	if (ar_link_timeout_park_locked(req)) {
		/* completed -ECANCELED; the lock was dropped */
		free(vec);
		free(w);
		return AR_ISSUE_QUEUED;
	}
	ar_req_set_state(req, AR_REQ_ARMED);
	pthread_mutex_lock(&ar_futexes.lock);
	for (i = 0; i < nr; i++) {
		w->keys[i].w = w;
		w->keys[i].uaddr = vec[i].uaddr;
		w->keys[i].mask = waitv ? AR_FUTEX_MATCH_ANY : mask;
		w->keys[i].priv = vec[i].flags & AR_FUTEX2_PRIVATE;
		w->keys[i].index = i;
		/* at the tail: wakes go in arming order, as the kernel's queue */
		head = &ar_futexes.bucket[ar_futex_hash(vec[i].uaddr)];
		while (*head)
			head = &(*head)->next;
		w->keys[i].next = NULL;
		*head = &w->keys[i];
	}
	f->w = w;
	pthread_mutex_unlock(&ar_futexes.lock);
	ar_ctx_unlock(req->ctx);
	ret = ar_thread_create(&tid, ar_fwait_thread, w);
	if (!ret) {
		pthread_detach(tid);
		return AR_ISSUE_QUEUED;
	}
	ar_debug("futex: cannot create a waiting thread");
	pthread_mutex_lock(&ar_futexes.lock);
	claimed = !w->req || w->cancelled;
	if (!claimed)
		ar_fwait_take(w, false);
	last = !--w->refs;	/* the thread's */
	pthread_mutex_unlock(&ar_futexes.lock);
	if (claimed) {
		/*
		 * A waker completes it; a cancel left it to the thread
		 * that never came: complete it here
		 */
		if (w->req) {
			pthread_mutex_lock(&ar_futexes.lock);
			req = ar_fwait_take(w, false);
			pthread_mutex_unlock(&ar_futexes.lock);
			ar_fwait_complete(req, -ECANCELED);
		}
		if (last) {
			free(w->vec);
			free(w);
		} else {
			ar_fwait_put(w);
		}
		return AR_ISSUE_QUEUED;
	}
	ar_req_set_state(req, AR_REQ_PREP);
	free(w);
	return -ENOMEM;
}
static const struct timespec ar_expired = { 0, 0 };

int ar_futex_wait_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_futex *f = ar_req_data(req, struct ar_futex);
	struct ar_waitv *vec;
	long ret;

	(void)issue_flags;
	if (!f->mask)
		return -EINVAL;
	do {
		ret = ar_sys_futex_wait(f, &ar_expired);
	} while (ret == -EINTR);
	if (ret != -ETIMEDOUT)
		return (int)ret;
	vec = calloc(2, sizeof(*vec));
	if (!vec)
		return -ENOMEM;
	vec[0].uaddr = f->uaddr;
	vec[0].val = f->val;
	vec[0].flags = f->flags;
	ret = ar_fwait_arm(req, vec, 1, (__u32)f->mask, false);
	if (ret != AR_ISSUE_QUEUED)
		free(vec);
	return (int)ret;
}

int ar_futexv_wait_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_futex *f = ar_req_data(req, struct ar_futex);
	struct ar_waitv *vec = req->alloc;
	long ret;

	(void)issue_flags;
	do {
		ret = ar_sys_futex_waitv(vec, f->nr, &ar_expired);
	} while (ret == -EINTR);
	if (ret != -ETIMEDOUT)
		return (int)ret;
	/* the vector goes with the wait, which may outlive the request */
	req->alloc = NULL;
	ret = ar_fwait_arm(req, vec, f->nr, AR_FUTEX_MATCH_ANY, true);
	if (ret != AR_ISSUE_QUEUED)
		req->alloc = vec;	/* not armed: the request's again */
	return (int)ret;
}

/* under the lock: the first armed word a wake of f reaches, in arming order */
static struct ar_fkey *ar_futex_match(const struct ar_futex *f, bool priv)
{
	struct ar_fkey *k;

	for (k = ar_futexes.bucket[ar_futex_hash(f->uaddr)]; k; k = k->next)
		if (k->uaddr == f->uaddr && k->priv == priv &&
		    (k->mask & (__u32)f->mask) && !k->w->cancelled)
			return k;
	return NULL;
}

/*
 * Under the lock: the waits still armed on f's word (their masks miss
 * f's) leave the kernel while f's futex_wake(2) runs, which would wake
 * them whatever their mask (their threads wait with futex_waitv(2),
 * which has none). They go back when it is done (ar_futex_unpause()).
 * Returns them, referenced, in a malloc'd array (NULL if none or no
 * memory: then they stay, and may see a spurious wakeup).
 */
static struct ar_fwait **ar_futex_pause(const struct ar_futex *f, bool priv,
					unsigned *nr_out)
{
	unsigned long mark = ++ar_futexes.wakers;
	struct ar_fwait **v = NULL, **nv;
	unsigned nr = 0, cap = 0;
	struct ar_fkey *k;

	for (k = ar_futexes.bucket[ar_futex_hash(f->uaddr)]; k; k = k->next) {
		if (k->uaddr != f->uaddr || k->priv != priv ||
		    k->w->mark == mark || k->w->cancelled)
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 4;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		k->w->mark = mark;
		k->w->paused++;
		k->w->pause_gen++;
		k->w->refs++;
		ar_fwait_kick(k->w);
		v[nr++] = k->w;
	}
	*nr_out = nr;
	return v;
}

static void ar_futex_unpause(struct ar_fwait **v, unsigned nr)
{
	unsigned i;

	pthread_mutex_lock(&ar_futexes.lock);
	for (i = 0; i < nr; i++) {
		if (--v[i]->paused || !v[i]->req || v[i]->cancelled)
			continue;
		atomic_store_explicit(&v[i]->stop, 0, memory_order_relaxed);
		ar_futex_wake(&v[i]->stop, INT_MAX);
	}
	pthread_mutex_unlock(&ar_futexes.lock);
	for (i = 0; i < nr; i++)
		ar_fwait_put(v[i]);
	free(v);
}

/* no thread this engine told to leave is still queued on f's bucket */
static void ar_futex_wait_leaving(const struct ar_futex *f)
{
	atomic_uint *cnt = &ar_futexes.leaving[ar_futex_hash(f->uaddr)];
	unsigned v;

	/* acquire pairs with the release in ar_fwait_left() */
	while ((v = atomic_load_explicit(cnt, memory_order_acquire)))
		ar_futex_wait(cnt, v, 0);
}

/*
 * FUTEX_WAKE: armed waits of this engine first, in arming order and by
 * mask, as the kernel's queue would have them; what is left of the count
 * goes to the kernel for waiters outside (threads in futex(2), other
 * processes), once no thread of this engine can be among them. The
 * kernel also checks the address and mask when nothing here matched.
 */
int ar_futex_wake_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_futex *f = ar_req_data(req, struct ar_futex);
	struct ar_fwait *claims = NULL, *w, *next, **paused = NULL;
	bool priv = f->flags & AR_FUTEX2_PRIVATE;
	int nr = (int)f->val, limit, count = 0;
	unsigned nr_paused = 0;
	struct ar_fkey *k;
	long ret = 0;

	(void)issue_flags;
	/* as futex_wake(): a negative count wakes one */
	limit = nr > 0 ? nr : (nr < 0 ? 1 : 0);
	pthread_mutex_lock(&ar_futexes.lock);
	while (count < limit && (k = ar_futex_match(f, priv))) {
		w = k->w;
		w->res = w->waitv ? (int)k->index : 0;
		count++;
		if (w->in_kernel) {
			/*
			 * Its CQE waits for the thread to be off the word:
			 * once the application sees it, no thread of this
			 * engine takes a wake meant for another waiter.
			 */
			w->done = ar_fwait_take(w, true);
			ar_fwait_kick(w);
			continue;
		}
		w->refs++;	/* the claims list's */
		w->claimed = ar_fwait_take(w, true);
		ar_fwait_kick(w);
		w->claim_next = claims;
		claims = w;
	}
	/* a count of 0 wakes nobody: the kernel only checks the arguments */
	if (count < limit)
		paused = ar_futex_pause(f, priv, &nr_paused);
	pthread_mutex_unlock(&ar_futexes.lock);
	if (count < limit || !count) {
		if (count < limit)
			ar_futex_wait_leaving(f);
		ret = ar_raw_syscall6(SYS_futex_wake, (long)f->uaddr,
				      (long)f->mask, count ? limit - count : nr,
				      (long)f->flags, 0, 0);
		if (nr_paused)
			ar_futex_unpause(paused, nr_paused);
		else
			free(paused);
	}
	for (w = claims; w; w = next) {
		next = w->claim_next;
		ar_fwait_complete(w->claimed, w->res);
		ar_fwait_put(w);
	}
	return ret < 0 ? (int)ret : count + (int)ret;
}

/*
 * Cancellation (cancel.c, under ctx->lock). The kernel's io_futex_cancel()
 * answers the count it cancelled, 1, and completes the wait -ECANCELED
 * itself: here the wait's thread does, holding the ring
 * (AR_CANCEL_OWN_COUNT tells cancel.c not to). One queued for a worker (IOSQE_ASYNC) is taken off
 * the queue as any request.
 */
int ar_futex_cancel_locked(struct ar_ureq *req)
{
	struct ar_futex *f = ar_req_data(req, struct ar_futex);
	int ret = -ENOENT;

	ar_lockdep_assert_held(req->ctx);
	switch (ar_req_state(req)) {
	case AR_REQ_QUEUED:
		return ar_iowq_cancel(req->ctx, req) ? 0 : -EALREADY;
	case AR_REQ_RUNNING:
		return -EALREADY;
	case AR_REQ_ARMED:
		break;
	default:
		return -ENOENT;
	}
	if (req->opcode == AR_OP_WAITID)
		return ar_waitid_cancel_locked(req);
	pthread_mutex_lock(&ar_futexes.lock);
	if (f->w && !f->w->cancelled) {
		f->w->cancelled = true;
		ar_fwait_hold(req->ctx);
		ar_fwait_kick(f->w);
		ret = AR_CANCEL_OWN_COUNT;
	}
	pthread_mutex_unlock(&ar_futexes.lock);
	return ret;
}
