/* SPDX-License-Identifier: MIT */
/*
 * waitid.c - IORING_OP_WAITID, as the kernel's io_uring/waitid.c: wait
 * for a child's state change (idtype sqe->len, id sqe->fd, options
 * sqe->file_index), result 0, and the kernel's six siginfo fields
 * (si_signo, si_errno, si_code, si_pid, si_uid, si_status) written to
 * sqe->addr2 unless it is NULL, fault-safe: a child reaped into memory
 * that cannot be written is -EFAULT, as the kernel's.
 *
 * The issue tries at once, waitid(2) with WNOHANG, in the submitting
 * thread (the kernel's issue runs there too): a child ready, a bad
 * argument (-EINVAL, -EBADF for a bad pidfd) or no child (-ECHILD) is
 * answered inline, as is "nothing yet" with WNOHANG. Otherwise a thread
 * of the wait's own waits in waitid(2) with WNOWAIT (leaving the child
 * for the reap, made under the wait's lock so that a cancel and the reap
 * cannot both win) and reaps with WNOHANG. A cancel (ASYNC_CANCEL, ring
 * exit) ends the thread's waitid(2) with pthread_cancel(), the only way
 * to interrupt it without a signal handler of the engine's; the thread
 * then completes it -ECANCELED. The cost and what differs:
 * docs/semantics.md D92.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "lib/sysraw.h"
#include "lib/uaccess.h"
#include "user/cancel.h"
#include "user/types.h"
#include "user/lock.h"
#include "user/complete.h"
#include "user/ctx.h"
#include "lib/thread.h"
#include "user/ops/futex.h"
#include "user/timeout.h"

struct ar_wid;

struct ar_waitid {
	int which;
	int upid;
	int options;
	__u64 infop;
	struct ar_wid *w;		/* armed, under ar_wid_lock */
};

/* an armed wait, shared by the request and its thread */
struct ar_wid {
	struct ar_ureq *req;		/* under ar_wid_lock; NULL once taken */
	pthread_t tid;
	bool has_tid;			/* tid is the thread's */
	bool cancelled;			/* its thread completes it -ECANCELED */
	bool exiting;			/* its thread is past its last waitid(2) */
	int refs;			/* the request's side, the thread's */
	struct ar_waitid wi;
};

static pthread_mutex_t ar_wid_lock = PTHREAD_MUTEX_INITIALIZER;

int ar_waitid_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_waitid *wi = ar_req_data(req, struct ar_waitid);

	if (sqe->addr || sqe->buf_index || sqe->addr3 || sqe->rw_flags)
		return -EINVAL;
	wi->which = (int)sqe->len;
	wi->upid = sqe->fd;
	wi->options = (int)sqe->file_index;
	wi->infop = sqe->addr2;
	wi->w = NULL;
	return 0;
}

static long ar_sys_waitid(const struct ar_waitid *wi, siginfo_t *si,
			  int options)
{
	return ar_raw_syscall6(SYS_waitid, wi->which, wi->upid, (long)si,
			       options, 0, 0);
}

/*
 * The kernel's io_waitid_copy_si(): six ints of the application's
 * siginfo, the rest of it untouched; 0 or -EFAULT.
 */
static int ar_waitid_copy_si(const struct ar_waitid *wi, const siginfo_t *si)
{
	int head[3] = { si->si_signo, 0, si->si_code };
	int tail[3] = { si->si_pid, (int)si->si_uid, si->si_status };
	char *u = (char *)(unsigned long)wi->infop;

	if (!u)
		return 0;
	if (ar_copy_to_user(u, head, sizeof(head)) ||
	    ar_copy_to_user(u + offsetof(siginfo_t, si_pid), tail, sizeof(tail)))
		return -EFAULT;
	return 0;
}

/*
 * A waitid(2) that returned ret into si, as the request's result. As the
 * kernel's io_waitid_finish(): what came from looking for a child (one
 * found, none ready with WNOHANG, none at all: -ECHILD, or a cancel)
 * writes the siginfo, zeroed but for a child found, and a siginfo that
 * cannot be written makes it -EFAULT; a bad argument (-EINVAL, -EBADF),
 * refused before the look, writes nothing; a cancelled one is
 * -ECANCELED even when the write faults, as 6.18 answers.
 */
static int ar_waitid_finish(const struct ar_waitid *wi, long ret,
			    const siginfo_t *si)
{
	static const siginfo_t zero;

	if (ret < 0 && ret != -ECHILD && ret != -ECANCELED)
		return (int)ret;
	/* a cancelled one stays -ECANCELED whatever the write did (measured) */
	if (ar_waitid_copy_si(wi, ret < 0 ? &zero : si) && ret != -ECANCELED)
		return -EFAULT;
	return ret < 0 ? (int)ret : 0;
}

static void ar_wid_put(struct ar_wid *w)
{
	bool last;

	pthread_mutex_lock(&ar_wid_lock);
	last = !--w->refs;
	pthread_mutex_unlock(&ar_wid_lock);
	if (last)
		free(w);
}

/* as futex.c: a completion ring exit waits for (dev_inflight) */
static void ar_wid_hold(struct ar_uctx *ctx)
{
	ar_uctx_get(ctx);
	/* relaxed: under ar_wid_lock, which exit's cancel takes before it reads */
	atomic_fetch_add_explicit(&ctx->dev_inflight, 1, memory_order_relaxed);
}

static void ar_wid_complete(struct ar_ureq *req, int res)
{
	struct ar_uctx *ctx = req->ctx;

	ar_req_complete(req, res, 0);
	/* release: pairs with the acquire in ar_iopoll_exit() */
	atomic_fetch_sub_explicit(&ctx->dev_inflight, 1, memory_order_release);
	ar_uctx_put(ctx);
}

/* under ar_wid_lock: the request leaves the wait */
static struct ar_ureq *ar_wid_take(struct ar_wid *w)
{
	struct ar_ureq *req = w->req;

	w->req = NULL;
	ar_req_data(req, struct ar_waitid)->w = NULL;
	w->refs--;	/* the request's: the thread holds its own until it ends */
	return req;
}

/* the thread's end: cancelled in waitid(2), or done */
static void ar_wid_cancelled(void *arg)
{
	struct ar_wid *w = arg;
	struct ar_ureq *req = NULL;

	pthread_mutex_lock(&ar_wid_lock);
	w->exiting = true;
	if (w->req && w->cancelled)
		req = ar_wid_take(w);
	pthread_mutex_unlock(&ar_wid_lock);
	/* the cancel holds the ring for this completion */
	if (req)
		ar_wid_complete(req, ar_waitid_finish(&w->wi, -ECANCELED, NULL));
	ar_wid_put(w);
}

/*
 * Block in waitid(2) for a child ready, leaving it there (WNOWAIT). The
 * one cancellation point of the thread: a cancel runs
 * ar_wid_cancelled() and ends the thread here.
 */
static int ar_wid_block(struct ar_wid *w)
{
	siginfo_t si;
	int ret, old;

	pthread_cleanup_push(ar_wid_cancelled, w);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	ret = waitid((idtype_t)w->wi.which, (id_t)w->wi.upid, &si,
		     (w->wi.options & ~WNOHANG) | WNOWAIT);
	if (ret < 0)
		ret = -errno;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_cleanup_pop(0);
	return ret;
}

static void *ar_wid_thread(void *arg)
{
	struct ar_wid *w = arg;
	struct ar_ureq *req = NULL;
	siginfo_t si;
	long ret;
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	for (;;) {
		ret = ar_wid_block(w);
		if (ret == -EINTR)
			continue;
		pthread_mutex_lock(&ar_wid_lock);
		if (!w->req || w->cancelled)
			break;
		/* the reap, under the lock: a cancel now finds it taken */
		memset(&si, 0, sizeof(si));
		if (!ret)
			ret = ar_sys_waitid(&w->wi, &si, w->wi.options | WNOHANG);
		if (!ret && !si.si_pid) {
			/* another waiter took it: wait again */
			pthread_mutex_unlock(&ar_wid_lock);
			continue;
		}
		req = ar_wid_take(w);
		ar_wid_hold(req->ctx);
		break;
	}
	pthread_mutex_unlock(&ar_wid_lock);
	if (req) {
		ar_wid_complete(req, ar_waitid_finish(&w->wi, ret, &si));
		req = NULL;
	}
	/* a cancelled one is completed here, as by a cancel in waitid(2) */
	ar_wid_cancelled(w);
	return NULL;
}

static int ar_wid_arm(struct ar_ureq *req)
{
	struct ar_waitid *wi = ar_req_data(req, struct ar_waitid);
	struct ar_wid *w = calloc(1, sizeof(*w));
	struct ar_ureq *done = NULL;
	pthread_t tid;
	int ret;

	if (!w)
		return -ENOMEM;
	w->req = req;
	w->wi = *wi;
	w->refs = 2;
	/*
	 * Under ctx->lock, armed and findable at once: a LINK_TIMEOUT that
	 * fired while it was issued cancels it here (timeout.c), one that
	 * fires from now on finds it armed (ar_waitid_cancel_locked()).
	 */
	ar_ctx_lock(req->ctx);
	if (ar_link_timeout_park_locked(req)) {
		/* completed -ECANCELED; the lock was dropped */
		free(w);
		return AR_ISSUE_QUEUED;
	}
	ar_req_set_state(req, AR_REQ_ARMED);
	pthread_mutex_lock(&ar_wid_lock);
	wi->w = w;
	pthread_mutex_unlock(&ar_wid_lock);
	ar_ctx_unlock(req->ctx);

	ret = ar_thread_create(&tid, ar_wid_thread, w);
	pthread_mutex_lock(&ar_wid_lock);
	if (!ret) {
		pthread_detach(tid);
		/* a cancel before the thread was known is delivered now */
		w->tid = tid;
		w->has_tid = true;
		if (w->cancelled && !w->exiting)
			pthread_cancel(tid);
		pthread_mutex_unlock(&ar_wid_lock);
		return AR_ISSUE_QUEUED;
	}
	ar_debug("waitid: cannot create a waiting thread");
	if (w->req)
		done = ar_wid_take(w);
	pthread_mutex_unlock(&ar_wid_lock);
	if (w->cancelled) {
		/* the cancel holds the ring for the thread that never came */
		ar_wid_complete(done, ar_waitid_finish(&w->wi, -ECANCELED, NULL));
		free(w);
		return AR_ISSUE_QUEUED;
	}
	ar_req_set_state(req, AR_REQ_PREP);
	free(w);
	return -ENOMEM;
}

int ar_waitid_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_waitid *wi = ar_req_data(req, struct ar_waitid);
	siginfo_t si;
	long ret;

	(void)issue_flags;
	memset(&si, 0, sizeof(si));
	ret = ar_sys_waitid(wi, &si, wi->options | WNOHANG);
	if (ret || si.si_pid || (wi->options & WNOHANG))
		return ar_waitid_finish(wi, ret, &si);
	return ar_wid_arm(req);
}

/*
 * Under ctx->lock (cancel.c through ar_futex_cancel_locked()): as the
 * kernel's io_waitid_cancel(), 1 for a wait cancelled, which its thread
 * completes -ECANCELED (cancel.c does not).
 */
int ar_waitid_cancel_locked(struct ar_ureq *req)
{
	struct ar_waitid *wi = ar_req_data(req, struct ar_waitid);
	int ret = -ENOENT;

	ar_lockdep_assert_held(req->ctx);
	pthread_mutex_lock(&ar_wid_lock);
	if (wi->w && !wi->w->cancelled) {
		wi->w->cancelled = true;
		ar_wid_hold(req->ctx);
		/*
		 * not past its last waitid(2): the thread is there to cancel
		 * (not known yet: ar_wid_arm() cancels it once it is)
		 */
		if (wi->w->has_tid && !wi->w->exiting)
			pthread_cancel(wi->w->tid);
		ret = AR_CANCEL_OWN_COUNT;
	}
	pthread_mutex_unlock(&ar_wid_lock);
	return ret;
}
