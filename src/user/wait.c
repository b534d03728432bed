/* SPDX-License-Identifier: MIT */
/*
 * wait.c - io_uring_enter for the user engine: submit, then wait for CQEs
 * as io_cqring_wait does (min_complete, EXT_ARG relative or absolute
 * timeout, min_wait, sigmask, -ETIME and -EINTR where the kernel returns
 * them). Sleepers queue on the ring's wait queue (waitq.c).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/wake.h"
#include "lib/waitloop.h"
#include "user/fork.h"
#include "user/types.h"
#include "user/lock.h"
#include "user/ctx.h"
#include "user/submit.h"
#include "user/complete.h"
#include "user/tw.h"
#include "user/wait.h"
#include "user/waitq.h"
#include "user/sqpoll.h"
#include "user/ringfd.h"
#include "lib/thread.h"
#include "user/iopoll.h"
#include "user/aio.h"
#include "user/poll.h"
#include "user/query.h"
#include "user/region.h"
#include "lib/uaccess.h"

#define AR_ENTER_KNOWN (IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP | \
	IORING_ENTER_SQ_WAIT | IORING_ENTER_EXT_ARG |			\
	IORING_ENTER_REGISTERED_RING | IORING_ENTER_ABS_TIMER |		\
	IORING_ENTER_EXT_ARG_REG | IORING_ENTER_NO_IOWAIT)

__u64 ar_user_enter_flags(void)
{
	return AR_ENTER_KNOWN;
}

/* registered ring fds are per thread, as the kernel's are per task */
__thread struct ar_uctx *ar_registered_rings[AR_RINGFD_REG_MAX];
__thread bool ar_user_task;

struct ar_wait_arg {
	const sigset_t *sigmask;	/* &sigmask_copy once copied, else NULL */
	const void *usigmask;		/* the application's, not yet read */
	size_t sigmask_sz;
	__u64 deadline_ns;		/* 0: wait without a timeout */
	__u64 min_wait_ns;
	sigset_t sigmask_copy;
};

/* io_get_ext_arg: the sigmask, or with EXT_ARG the whole wait argument */
/*
 * An absolute time on the ring's clock (IORING_REGISTER_CLOCK: MONOTONIC
 * by default, or BOOTTIME) as a CLOCK_MONOTONIC deadline.
 */
static __u64 ar_abs_to_mono(struct ar_uctx *ctx, __u64 abs_ns)
{
	struct timespec t;
	__u64 now;

	if (ctx->clockid == CLOCK_MONOTONIC)
		return abs_ns;
	clock_gettime(ctx->clockid, &t);
	now = (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
	return abs_ns > now ? ar_now_ns() + (abs_ns - now) : 1;
}

/* the kernel's ctx->syscall_iopoll: IOPOLL without SQPOLL */
static bool ar_wait_iopoll(const struct ar_uctx *ctx)
{
	return (ctx->flags & (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL)) ==
	       IORING_SETUP_IOPOLL;
}

/*
 * The timeout of the wait argument. On an IOPOLL ring the kernel never
 * reads it (io_validate_ext_arg): there a timespec that cannot be read
 * means no timeout rather than -EFAULT.
 */
static void ar_wait_deadline(struct ar_uctx *ctx, unsigned flags,
			     struct __kernel_timespec ts, struct ar_wait_arg *w)
{
	__s64 ns;

	/*
	 * Like the kernel, no range check: the value is taken as a sum of
	 * nanoseconds; a time at or before now has already expired.
	 */
	if (__builtin_mul_overflow((__s64)ts.tv_sec, 1000000000LL, &ns) ||
	    __builtin_add_overflow(ns, (__s64)ts.tv_nsec, &ns))
		ns = ts.tv_sec < 0 ? -1 : INT64_MAX;	/* saturate, as the kernel */
	if (flags & IORING_ENTER_ABS_TIMER)
		w->deadline_ns = ns > 0 ? ar_abs_to_mono(ctx, (__u64)ns) : 1;
	else if (ns <= 0)
		w->deadline_ns = ar_now_ns();
	else
		w->deadline_ns = (__u64)ns > UINT64_MAX / 2 ? UINT64_MAX / 2 :
				 ar_now_ns() + (__u64)ns;
}

static int ar_get_wait_ts(struct ar_uctx *ctx, unsigned flags, __u64 uts,
			  struct ar_wait_arg *w)
{
	struct __kernel_timespec ts;

	if (ar_copy_from_user(&ts, (const void *)(unsigned long)uts,
			      sizeof(ts)))
		return ar_wait_iopoll(ctx) ? 0 : -EFAULT;
	ar_wait_deadline(ctx, flags, ts, w);
	return 0;
}

/*
 * IORING_ENTER_EXT_ARG_REG: arg is the byte offset of a struct
 * io_uring_reg_wait in the registered wait region (region.c), whose
 * timeout is inline. IOPOLL's wait takes no argument: -EINVAL there,
 * as io_validate_ext_arg().
 */
static __attribute__((noinline, cold))
int ar_get_wait_reg(struct ar_uctx *ctx, unsigned flags, const void *arg,
		    size_t argsz, struct ar_wait_arg *w)
{
	struct ar_reg_wait rw;
	int ret;

	if (ar_wait_iopoll(ctx) || argsz != sizeof(rw))
		return -EINVAL;
	ret = ar_region_wait_arg(ctx, (unsigned long)arg, &rw);
	if (ret)
		return ret;
	if (rw.flags & ~AR_REG_WAIT_TS)
		return -EINVAL;
	w->min_wait_ns = (__u64)rw.min_wait_usec * 1000;
	w->usigmask = (const void *)(unsigned long)rw.sigmask;
	w->sigmask_sz = rw.sigmask_sz;
	if (rw.flags & AR_REG_WAIT_TS)
		ar_wait_deadline(ctx, flags, rw.ts, w);
	return 0;
}

/*
 * io_get_ext_arg: without EXT_ARG, arg is the sigmask; with it, the
 * struct is copied (fault-safe), then its timespec. The sigmask itself
 * is read only when the wait begins (ar_wait_get_sigmask).
 */
static int ar_get_wait_arg(struct ar_uctx *ctx, unsigned flags,
			   const void *arg, size_t argsz,
			   struct ar_wait_arg *w)
{
	struct ar_getevents_arg ea;

	/* not sigmask_copy: it is written only when a sigmask is copied */
	w->sigmask = NULL;
	w->usigmask = NULL;
	w->sigmask_sz = 0;
	w->deadline_ns = 0;
	w->min_wait_ns = 0;
	if (!(flags & IORING_ENTER_EXT_ARG)) {
		if (flags & IORING_ENTER_ABS_TIMER)
			return -EINVAL;
		w->usigmask = arg;
		w->sigmask_sz = argsz;
		return 0;
	}
	if (flags & IORING_ENTER_EXT_ARG_REG)
		return ar_get_wait_reg(ctx, flags, arg, argsz, w);
	if (argsz != sizeof(ea))
		return -EINVAL;
	if (ar_copy_from_user(&ea, arg, sizeof(ea)))
		return -EFAULT;
	w->usigmask = (const void *)(unsigned long)ea.sigmask;
	w->sigmask_sz = ea.sigmask_sz;
	w->min_wait_ns = (__u64)ea.min_wait_usec * 1000;
	return ea.ts ? ar_get_wait_ts(ctx, flags, ea.ts, w) : 0;
}

/* set_user_sigmask(): the size, then the copy, as the wait begins */
static int ar_wait_get_sigmask(struct ar_wait_arg *a)
{
	if (!a->usigmask)
		return 0;
	if (a->sigmask_sz != _NSIG / 8)
		return -EINVAL;
	sigemptyset(&a->sigmask_copy);
	if (ar_copy_from_user(&a->sigmask_copy, a->usigmask, _NSIG / 8))
		return -EFAULT;
	a->sigmask = &a->sigmask_copy;
	return 0;
}

static unsigned ar_cq_events_user(struct ar_uctx *ctx)
{
	/* acquire pairs with the posting side's release of the CQ tail */
	return io_uring_smp_load_acquire(&ctx->rings->cq.tail) -
	       IO_URING_READ_ONCE(ctx->rings->cq.head);
}

/* a wait is over: enough CQEs (posting queued task work first) or a timeout came */
static bool ar_wait_done(struct ar_uctx *ctx, unsigned min_events,
			 unsigned nr_timeouts)
{
	ar_ring_aio_reap(ctx);
	/*
	 * Until the list is seen empty after posting: a completion queued
	 * while this thread posted a batch was judged against a CQ tail not
	 * yet advanced, and did not wake it. Before a sleep, the fence in
	 * ar_cqring_wait_loop() orders the posts before the last look.
	 */
	while (ar_tw_run(ctx))
		;
	ar_cq_flush_overflow(ctx);
	if (ar_cq_events_user(ctx) >= min_events)
		return true;
	if (__atomic_load_n(&ar_sh(ctx)->cq_timeouts, __ATOMIC_RELAXED) == nr_timeouts)
		return false;
	/*
	 * A timeout completed: it was counted just before its CQE was
	 * posted, in one ctx->lock section (ar_timeout_count_locked()).
	 * Taking the lock waits for the end of that section: the CQE is
	 * there for the caller (the lock's acquire pairs with its release).
	 */
	ar_ctx_lock(ctx);
	ar_ctx_unlock(ctx);
	return true;
}

/*
 * A sleep and its counters: time asleep, and whether a waker ended it
 * (0) or the clock (-ETIMEDOUT) or a signal (-EINTR); 1 when backend
 * completions were reaped instead.
 */
static int ar_wait_sleep(struct ar_uctx *ctx, struct ar_waiter *w,
			 __u64 wake_at, const sigset_t *sigmask)
{
	bool forked = ar_ring_forked(ctx), xready = false, look = false;
	int ret, afd, pfd, xfd = -1;
	__u64 t0, cap, timer;

	/*
	 * A forked ring: other processes' posts wake it through xep
	 * (fork.c), which only the ppoll() below sleeps on. A waiter that
	 * was asleep when the first fork came is counted now, then looks
	 * again.
	 */
	if (forked) {
		if (!w->xcounted) {
			ar_waitq_xcount(ctx, w);
			return 1;
		}
		xfd = w->xep;
		if (xfd >= 0 && ar_xwake_settle(w))
			return 1;	/* not a sleep: look again */
		/*
		 * Each second asleep, a look for requests of processes
		 * that are gone, which post nothing themselves (fork.c):
		 * while another process has requests in flight here
		 */
		cap = ar_now_ns() + AR_XSWEEP_NS;
		/* or when a TIMEOUT of a process that exited is due */
		timer = ar_xslot_next_timer(ctx);
		if (timer && timer < cap)
			cap = timer;
		if (ar_xslot_others(ctx) && (!wake_at || wake_at > cap)) {
			wake_at = cap;
			look = true;
		}
	}

	/*
	 * Readiness of armed requests wakes this thread too: it reaps it
	 * and issues them again itself, with no hop to the service thread
	 * (poll.c). Nothing to reap before the sleep: a ready epoll fd
	 * ends it at once.
	 */
	pfd = -1;
	/*
	 * wake=every, the baseline: readiness comes as posts, as before,
	 * except where it is the task's own (DEFER_TASKRUN)
	 */
	if ((__atomic_load_n(&ctx->pol.wake, __ATOMIC_RELAXED) != ANYRING_WAKE_EVERY ||
	     ar_poll_task_reaps(ctx)) && !w->poll_skip)
		pfd = ar_poll_sleep_begin(ctx);
	w->poll_skip = false;
	/* backend completions alone: one call reaps what is there and sleeps */
	if (pfd < 0 && !forked) {
		t0 = ar_now_ns();
		ret = ar_ring_aio_sleep(ctx, w, wake_at, sigmask);
		if (ret != -EAGAIN) {
			if (ret != 1) {
				ar_stat_add(ctx, sleeps, 1);
				ar_stat_add(ctx, sleep_ns, ar_now_ns() - t0);
			}
			if (!ret)
				ar_stat_add(ctx, wakeups, 1);
			return ret;
		}
	}
	/* so do they otherwise: the fd drained, then reaped once more */
	if (ar_aio_sleep_prepare(ctx, &afd)) {
		if (pfd >= 0)
			ar_poll_sleep_end(ctx);
		return 1;	/* not a sleep: look again */
	}
	t0 = ar_now_ns();
	ar_stat_add(ctx, sleeps, 1);
	/*
	 * Readiness alone: one epoll_wait() both sleeps and reaps (poll.c).
	 * Backend completions need the ppoll() of both fds.
	 */
	if (pfd >= 0 && afd < 0 && !forked) {
		ret = ar_poll_sleep(ctx, w, wake_at, sigmask);
		if (ret != -EAGAIN) {
			ar_stat_add(ctx, sleep_ns, ar_now_ns() - t0);
			ar_poll_sleep_end(ctx);
			if (ret > 0)
				return 1;	/* requests were issued: look again */
			if (!ret)
				ar_stat_add(ctx, wakeups, 1);
			return ret;
		}
	}
	ret = ar_waiter_sleep(w, wake_at, sigmask, afd, pfd, xfd, &xready);
	if (afd >= 0)
		ar_aio_sleep_done(ctx);
	if (xready)
		ar_xwake_seen(w);
	if (look && ret == -ETIMEDOUT) {
		ar_xslot_sweep(ctx);
		ret = 1;	/* not the wait's own deadline: look again */
	}
	ar_stat_add(ctx, sleep_ns, ar_now_ns() - t0);
	if (pfd >= 0) {
		ar_poll_sleep_end(ctx);
		if (ret != -EINTR) {
			int n = ar_poll_try_reap(ctx);

			if (n > 0)
				return 1;	/* requests were issued: look again */
			/*
			 * Another thread is reaping what woke this one: until
			 * it has, the epoll fd stays readable, and sleeping on
			 * it again would spin. The next sleep leaves it to
			 * that thread (a CQE it brings wakes this one).
			 */
			if (n == -EBUSY) {
				w->poll_skip = true;
				return 1;
			}
		}
	}
	if (!ret)
		ar_stat_add(ctx, wakeups, 1);
	return ret;
}

/*
 * io_cqring_wait's loop. It ends with 0 once min_events CQEs are there or
 * a timeout request completed (old-style wait timeouts rely on that),
 * -ETIME at the deadline, -EINTR on a signal. min_wait: once it passed,
 * any CQE ends the wait, and with no later deadline it ends there; a
 * deadline before it is not looked at until then.
 */
static int ar_cqring_wait_loop(struct ar_uctx *ctx, struct ar_waiter *w,
			       unsigned min_events, const struct ar_wait_arg *a)
{
	__u64 min_deadline = a->min_wait_ns ? ar_now_ns() + a->min_wait_ns : 0;
	bool woken = false;
	__u64 wake_at;
	int ret;

	for (;;) {
		if (ar_wait_done(ctx, min_events, w->nr_timeouts))
			return 0;
		/* woken, yet the wait goes on (wake=every, or a race): spurious */
		if (woken)
			ar_stat_add(ctx, spurious_wakeups, 1);
		wake_at = a->deadline_ns;
		if (min_deadline) {
			if (ar_now_ns() >= min_deadline) {
				if (!a->deadline_ns || min_deadline >= a->deadline_ns ||
				    ar_cq_events_user(ctx))
					return -ETIME;
				/* from here, any CQE ends the wait */
				min_deadline = 0;
				min_events = 1;
				ar_waitq_retarget(ctx, w,
					IO_URING_READ_ONCE(ctx->rings->cq.head) + 1);
				woken = false;
				continue;
			}
			/*
			 * Before min_wait passes the timeout does not end the
			 * wait, even a shorter one: the kernel runs only the
			 * min_wait timer until then.
			 */
			wake_at = min_deadline;
		}
		/*
		 * The last look before sleeping (wake.h, task work vs a
		 * waiter): the CQ tail this thread just stored (posting task
		 * work above), the barrier, then its load of the task list;
		 * pairs with ar_wake_mb_after_rmw() in ar_tw_add() after a
		 * push, which ar_should_wake()'s tail load follows: either
		 * this thread sees the work, or the completer sees the tail
		 * and judges the wake against it. ar_cq_wake()'s barrier
		 * cannot serve: the issuer of a DEFER_TASKRUN ring skips it.
		 */
		ar_wake_mb();
		if (ar_tw_pending(ctx)) {
			woken = false;
			continue;
		}
		ret = ar_wait_sleep(ctx, w, wake_at, a->sigmask);
		if (ret == -EINTR)
			return -EINTR;
		if (ret == -ETIMEDOUT && wake_at == a->deadline_ns)
			return -ETIME;
		woken = !ret;
	}
}

/* one thread's wait on a user ring, for the poll loop's callbacks */
struct ar_uwait {
	struct ar_uctx *ctx;
	unsigned min_events;
	unsigned nr_timeouts;
};

static bool ar_uwait_done(void *arg)
{
	struct ar_uwait *w = arg;

	return ar_wait_done(w->ctx, w->min_events, w->nr_timeouts);
}

static void ar_uwait_count_sleep(void *arg, uint64_t ns)
{
	struct ar_uctx *ctx = ((struct ar_uwait *)arg)->ctx;

	ar_stat_add(ctx, sleeps, 1);
	ar_stat_add(ctx, sleep_ns, ns);
}

static void ar_uwait_count_polls(void *arg, uint64_t n)
{
	ar_stat_poll_loops(((struct ar_uwait *)arg)->ctx, n);
}

/* a signal during the timed sleep ends the wait, as in the final sleep */
static const struct ar_wait_poll_ops ar_uwait_poll_ops = {
	.done		= ar_uwait_done,
	.count_sleep	= ar_uwait_count_sleep,
	.count_polls	= ar_uwait_count_polls,
	.stop_on_signal	= true,
};

/*
 * The wait= policy's part before sleeping (waitloop.h): a timed sleep
 * (hybrid), then polling the CQ. 1: the wait is over; 0: go to sleep;
 * -EINTR: a signal came during the timed sleep.
 */
static int ar_cqring_poll(struct ar_uctx *ctx, unsigned min_events,
			  unsigned nr_timeouts, const struct ar_wait_arg *a,
			  __u64 start)
{
	struct ar_uwait w = {
		.ctx = ctx,
		.min_events = min_events,
		.nr_timeouts = nr_timeouts,
	};
	bool inflight = __atomic_load_n(&ctx->nr_inflight, __ATOMIC_RELAXED) ||
			ar_tw_pending(ctx);

	return ar_wait_poll(&ctx->pol, &ctx->west, inflight, start,
			    a->deadline_ns, a->sigmask, &ar_uwait_poll_ops, &w);
}

static int ar_cqring_wait(struct ar_uctx *ctx, unsigned min_events,
			  struct ar_wait_arg *a)
{
	struct ar_waiter *w;
	unsigned nr_timeouts;
	__u64 start, posted;
	int ret;

	/*
	 * Timeouts completed before this wait do not end it. One whose CQE
	 * this thread saw is in the count: it was stored before the CQ tail
	 * this thread loaded with acquire (ar_timeout_count_locked()).
	 */
	nr_timeouts = __atomic_load_n(&ar_sh(ctx)->cq_timeouts, __ATOMIC_RELAXED);
	if (ar_wait_done(ctx, min_events, nr_timeouts))
		return 0;
	ret = ar_wait_get_sigmask(a);
	if (ret)
		return ret;
	start = ar_now_ns();
	/* min_wait has its own rules: no polling in front of it */
	if (!a->min_wait_ns) {
		ret = ar_cqring_poll(ctx, min_events, nr_timeouts, a, start);
		if (ret > 0)
			return 0;
		if (ret)
			goto out;	/* a signal */
	}
	/*
	 * The ring fd is left as it is while this thread sleeps (D1): a
	 * reset now and the post that ends the wait would cost a read and
	 * a write per wait, for an fd nobody polls while its task waits.
	 * An epoll loop on another thread that finds it readable with the
	 * CQ empty resets it itself (its peek or submit, ar_user_cq_idle()).
	 */
	w = ar_waiter_self();
	if (!w)
		return -ENOMEM;
	w->target = IO_URING_READ_ONCE(ctx->rings->cq.head) + min_events;
	w->nr_timeouts = nr_timeouts;
	w->force = false;
	ar_waitq_add(ctx, w);
	ret = ar_cqring_wait_loop(ctx, w, min_events, a);
	ar_waitq_del(ctx, w);
	if (!ret) {
		/* learn the wait as lasting until the post that ended it */
		posted = __atomic_load_n(&ctx->last_post_ns, __ATOMIC_RELAXED);
		ar_wait_learn(&ctx->west, (posted > start ? posted : ar_now_ns()) -
			      start);
	}
out:
	/* like the kernel: CQEs there, the wait did not fail */
	if (ret && IO_URING_READ_ONCE(ctx->rings->cq.head) !=
		   IO_URING_READ_ONCE(ctx->rings->cq.tail))
		return 0;
	/*
	 * Ended empty (a timeout, a signal): the ring fd polls readable no
	 * more. Not on a DEFER_TASKRUN ring, as ar_user_cq_idle(): AIO
	 * completions wait in the AIO ring for its task, unseen there.
	 */
	if (ret && !(ctx->flags & IORING_SETUP_DEFER_TASKRUN))
		ar_ring_fd_clear(ctx);
	return ret;
}

/* an fd the seam found no user ring for: closed -EBADF, else no ring */
int ar_uctx_unnamed(unsigned fd)
{
	int saved = errno, ret;

	ret = fcntl((int)fd, F_GETFD) < 0 ? -EBADF : -EOPNOTSUPP;
	errno = saved;
	return ret;
}

/* the ring an enter is for, held while the enter runs (as the kernel's fdget) */
static struct ar_uctx *ar_enter_ctx(void *obj, unsigned fd, unsigned flags,
				    int *err)
{
	struct ar_uctx *ctx;

	ctx = ar_uctx_named(obj, fd, flags & IORING_ENTER_REGISTERED_RING, err);
	if (!ctx)
		return NULL;
	/*
	 * A registered index needs no reference: its entry holds one, and
	 * only this thread can drop it.
	 */
	if (!(flags & IORING_ENTER_REGISTERED_RING))
		ar_uctx_get(ctx);
	return ctx;
}

static int ar_enter_ring(struct ar_uctx *ctx, unsigned to_submit,
			       unsigned min_complete, unsigned flags,
			       const void *arg, size_t argsz);

int ar_user_enter(void *obj, unsigned fd, unsigned to_submit,
		  unsigned min_complete, unsigned flags, const void *arg,
		  size_t argsz)
{
	struct ar_uctx *ctx, *prev;
	int ret, err = 0;

	if (flags & ~AR_ENTER_KNOWN)
		return -EINVAL;
	ctx = ar_enter_ctx(obj, fd, flags, &err);
	if (!ctx)
		return err;
	/*
	 * Not an atomic add (a bus-locked instruction per enter): two threads
	 * entering one ring at once may count one enter between them.
	 */
	__atomic_store_n(&ctx->stats.enters,
			 __atomic_load_n(&ctx->stats.enters, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	prev = ar_tw_current;
	/* this thread is the ring's task while it is in here (tw.c) */
	ar_tw_current = ctx;
	/* a submit makes the thread an io_uring task (register.c) */
	if (to_submit)
		ar_user_task = true;
	/* the engine's own polls and reads inside skip the program's look (pollhook.c) */
	ar_hook_off_enter();
	ret = ar_enter_ring(ctx, to_submit, min_complete, flags, arg, argsz);
	/*
	 * A submit that does not wait and leaves the CQ empty: the ring fd
	 * stops polling readable (D1), for programs that enter by hand and
	 * reap from memory (libuv through the system-call trap). A look
	 * first: a hint, ar_user_cq_idle() looks again after its reset.
	 */
	if (!(flags & IORING_ENTER_GETEVENTS) &&
	    IO_URING_READ_ONCE(ctx->rings->cq.head) ==
	    IO_URING_READ_ONCE(ctx->rings->cq.tail))
		ar_user_cq_idle(ctx);
	ar_hook_off_leave();
	ar_tw_current = prev;
	if (!(flags & IORING_ENTER_REGISTERED_RING))
		ar_uctx_put(ctx);
	return ret;
}

static int ar_enter_ring(struct ar_uctx *ctx, unsigned to_submit,
			       unsigned min_complete, unsigned flags,
			       const void *arg, size_t argsz)
{
	struct ar_wait_arg w;
	int ret = 0, ret2;

	if (ctx->disabled)
		return -EBADFD;
	/* SINGLE_ISSUER: another thread may not submit, nor wait with DEFER_TASKRUN */
	if (ar_issuer_other(ctx) &&
	    ((to_submit && !(ctx->flags & IORING_SETUP_SQPOLL)) ||
	     ((flags & IORING_ENTER_GETEVENTS) &&
	      (ctx->flags & IORING_SETUP_DEFER_TASKRUN))))
		return -EEXIST;

	if (ctx->flags & IORING_SETUP_SQPOLL) {
		if (flags & IORING_ENTER_SQ_WAKEUP)
			ar_sqpoll_wake(ctx);
		if (flags & IORING_ENTER_SQ_WAIT)
			ar_sqpoll_wait_space(ctx);
		ret = (int)to_submit;
	} else if (to_submit) {
		ret = ar_submit_sqes_enter(ctx, to_submit, flags, min_complete, arg);
		if (ret != (int)to_submit)
			return ret;
	}
	/*
	 * The kernel runs the task's work on every enter: readiness of armed
	 * requests is reaped here too, so that a poll whose file became
	 * ready before this call has its CQE when it returns (poll.c). A
	 * DEFER_TASKRUN ring's work runs only where the task asks for
	 * events (io_cqring_wait()), and readiness is looked at then: a
	 * multishot POLL_ADD armed on a ready file reports the file as it
	 * is at that wait, not at its submit (liburing's poll test).
	 */
	/* and other rings' polls on what this enter made readable (poll.c) */
	if (ar_poll_readied)
		ar_poll_run_others(ctx);
	if (!(ctx->flags & IORING_SETUP_DEFER_TASKRUN) ||
	    (flags & IORING_ENTER_GETEVENTS))
		ar_poll_reap_armed(ctx);
	if (flags & IORING_ENTER_GETEVENTS) {
		if (min_complete > ctx->cq_entries)
			min_complete = ctx->cq_entries;
		ret2 = ar_get_wait_arg(ctx, flags, arg, argsz, &w);
		/* IOPOLL without SQPOLL: poll, never sleep (the kernel's syscall_iopoll) */
		if (!ret2 && ar_wait_iopoll(ctx))
			ret2 = ar_iopoll_check(ctx, min_complete, w.deadline_ns);
		else if (!ret2)
			ret2 = ar_cqring_wait(ctx, min_complete, &w);
		if (!ret)
			ret = ret2;
		/* ... and what the wait's task work made readable */
		if (ar_poll_readied)
			ar_poll_run_others(ctx);
	}
	return ret;
}
