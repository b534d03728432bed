/* SPDX-License-Identifier: MIT */
/*
 * sqpoll.c - IORING_SETUP_SQPOLL: a thread that consumes the SQ so the
 * application submits without entering. It polls for sq_thread_idle ms
 * (default 1000) after its last work, then sets IORING_SQ_NEED_WAKEUP and
 * sleeps until io_uring_enter(IORING_ENTER_SQ_WAKEUP) (or SQ_WAIT, ring
 * exit), with no timeout: an idle ring's thread costs nothing. Polling is
 * bounded by that idle time after work, as in the kernel; a wakeup that
 * finds no work sleeps again at once.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include "lib/wake.h"
#include "user/types.h"
#include "user/submit.h"
#include "user/wait.h"
#include "user/sqpoll.h"
#include "lib/thread.h"
#include "user/iopoll.h"

struct ar_sqpoll {
	pthread_t thread;
	struct ar_uctx *ctx;
	__u64 idle_ns;
	int cpu;			/* -1: no affinity */
	atomic_bool exiting;
};

/*
 * sq_flags is read by the application (liburing's IO_URING_READ_ONCE after
 * its full barrier); release orders our earlier ring stores before the flag.
 */
static void ar_sq_flags_or(struct ar_uctx *ctx, unsigned f)
{
	__atomic_fetch_or(&ctx->rings->sq_flags, f, __ATOMIC_RELEASE);
}

static void ar_sq_flags_clear(struct ar_uctx *ctx, unsigned f)
{
	__atomic_fetch_and(&ctx->rings->sq_flags, ~f, __ATOMIC_RELEASE);
}

/* sleep until SQ_WAKEUP; NEED_WAKEUP is set first, and the SQ rechecked */
static void ar_sqpoll_sleep(struct ar_sqpoll *sq)
{
	struct ar_uctx *ctx = sq->ctx;
	/* acquire pairs with the release increment in ar_sqpoll_wake() */
	unsigned seq = atomic_load_explicit(&ar_sh(ctx)->sq_wake_seq, memory_order_acquire);

	ar_sq_flags_or(ctx, IORING_SQ_NEED_WAKEUP);
	/*
	 * Full barrier between setting NEED_WAKEUP and reading the SQ tail;
	 * pairs with the barrier liburing issues between its tail store and
	 * its read of the flags (io_uring_smp_mb in the submit path).
	 */
	atomic_thread_fence(memory_order_seq_cst);
	/*
	 * No deadline: a program that adds SQEs after the barrier above sees
	 * NEED_WAKEUP and enters with SQ_WAKEUP, which bumps wake_seq; one
	 * that added them before is seen by the look here. A disabled ring
	 * sleeps until IORING_REGISTER_ENABLE_RINGS wakes it.
	 */
	if ((ctx->disabled || !ar_sq_entries_ready(ctx)) &&
	    !atomic_load(&sq->exiting))
		ar_futex_wait_shared(&ar_sh(ctx)->sq_wake_seq, seq);
	ar_sq_flags_clear(ctx, IORING_SQ_NEED_WAKEUP);
}

static void *ar_sqpoll_main(void *arg)
{
	struct ar_sqpoll *sq = arg;
	struct ar_uctx *ctx = sq->ctx;
	__u64 last = ar_now_ns();
	unsigned n;

	/* the kernel's name for the SQPOLL thread, with its creator's id */
	ar_thread_name("iou-sqp-", ctx->creator);

	if (sq->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(sq->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!atomic_load(&sq->exiting)) {
		n = ctx->disabled ? 0 : ar_sq_entries_ready(ctx);
		if (n) {
			ar_submit_sqes(ctx, n);
			/*
			 * Waker of wake.h: the bump (a seq_cst RMW after the
			 * SQ head's release) and then the look at the SQ_WAIT
			 * sleepers; pairs with ar_wake_sleeper_add() in
			 * ar_sqpoll_wait_space(). No system call without one.
			 */
			atomic_fetch_add(&ar_sh(ctx)->sq_consumed_seq, 1);
			ar_wake_mb_after_rmw();
			if (ar_wake_has_sleepers(&ar_sh(ctx)->sq_space_waiters))
				ar_futex_wake_shared(&ar_sh(ctx)->sq_consumed_seq, INT32_MAX);
			last = ar_now_ns();
			continue;
		}
		/* IOPOLL: polled I/O in flight is work, as in the kernel's SQ thread */
		if ((ctx->flags & IORING_SETUP_IOPOLL) && ar_iopoll_reap(ctx)) {
			last = ar_now_ns();
			continue;
		}
		if (ar_now_ns() - last < sq->idle_ns && !ctx->disabled) {
			sched_yield();
			continue;
		}
		/*
		 * last stays: a wakeup that finds no work sleeps again
		 * without another idle spin; work found restarts it.
		 */
		ar_sqpoll_sleep(sq);
	}
	return NULL;
}

int ar_sqpoll_start(struct ar_uctx *ctx, struct io_uring_params *p)
{
	struct ar_sqpoll *sq;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	if ((p->flags & IORING_SETUP_SQ_AFF) &&
	    (cpus <= 0 || p->sq_thread_cpu >= (unsigned)cpus))
		return -EINVAL;
	sq = calloc(1, sizeof(*sq));
	if (!sq)
		return -ENOMEM;
	sq->ctx = ctx;
	sq->idle_ns = (__u64)(p->sq_thread_idle ? p->sq_thread_idle :
			      AR_SQ_THREAD_IDLE_MS) * 1000000ULL;
	sq->cpu = (p->flags & IORING_SETUP_SQ_AFF) ? (int)p->sq_thread_cpu : -1;
	ctx->sqpoll = sq;
	if (ar_thread_create(&sq->thread, ar_sqpoll_main, sq)) {
		ctx->sqpoll = NULL;
		free(sq);
		return -EAGAIN;
	}
	return 0;
}

/* from any process: the thread is the creator's (fork.c) */
void ar_sqpoll_wake(struct ar_uctx *ctx)
{
	if (!(ctx->flags & IORING_SETUP_SQPOLL))
		return;
	/* release pairs with the acquire load in ar_sqpoll_sleep() */
	atomic_fetch_add_explicit(&ar_sh(ctx)->sq_wake_seq, 1, memory_order_release);
	ar_futex_wake_shared(&ar_sh(ctx)->sq_wake_seq, 1);
}

/* IORING_ENTER_SQ_WAIT: until the SQ has room */
int ar_sqpoll_wait_space(struct ar_uctx *ctx)
{
	unsigned seq;
	int ret = 0;

	/* sleeper of wake.h: announced before the look at the SQ head */
	ar_wake_sleeper_add(&ar_sh(ctx)->sq_space_waiters);
	for (;;) {
		/* acquire pairs with the SQ thread's seq_cst increment after it consumed */
		seq = atomic_load_explicit(&ar_sh(ctx)->sq_consumed_seq, memory_order_acquire);
		/* the SQ thread's published head: acquire pairs with its release */
		if (io_uring_smp_load_acquire(&ctx->rings->sq.tail) -
		    io_uring_smp_load_acquire(&ctx->rings->sq.head) < ctx->sq_entries)
			break;
		ar_sqpoll_wake(ctx);
		if (ar_futex_wait_shared(&ar_sh(ctx)->sq_consumed_seq, seq) == -EINTR) {
			ret = -EINTR;
			break;
		}
	}
	ar_wake_sleeper_del(&ar_sh(ctx)->sq_space_waiters);
	return ret;
}

void ar_sqpoll_stop(struct ar_uctx *ctx)
{
	struct ar_sqpoll *sq = ctx->sqpoll;

	atomic_store(&sq->exiting, true);
	ar_sqpoll_wake(ctx);
	pthread_join(sq->thread, NULL);
	ctx->sqpoll = NULL;
	free(sq);
}
