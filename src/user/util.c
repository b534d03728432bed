/* SPDX-License-Identifier: MIT */
/*
 * util.c - small helpers the user engine's files share.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include "engine/sysraw.h"
#include "lib/wake.h"
#include "user/types.h"
#include "user/ctx.h"
#include "user/complete.h"
#include "user/util.h"

/*
 * Start an engine thread with every signal blocked from its first
 * instruction, so a process-directed signal never runs the application's
 * handler on it.
 */
int ar_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * FUTEX_WAIT_BITSET: sleep while *word == val, until deadline_ns
 * (CLOCK_MONOTONIC, absolute; 0: none). 0 when woken, else -ETIMEDOUT,
 * -EAGAIN (*word had moved) or -EINTR; errno untouched.
 */
int ar_futex_wait(atomic_uint *word, unsigned val, uint64_t deadline_ns)
{
	struct timespec ts, *tsp = NULL;
	long ret;

	if (deadline_ns) {
		ts.tv_sec = (time_t)(deadline_ns / 1000000000ULL);
		ts.tv_nsec = (long)(deadline_ns % 1000000000ULL);
		tsp = &ts;
	}
	ret = ar_raw_syscall6(SYS_futex, (long)word, FUTEX_WAIT_BITSET_PRIVATE,
			      (long)val, (long)tsp, 0, FUTEX_BITSET_MATCH_ANY);
	return ret < 0 ? (int)ret : 0;
}

/* wake up to nr threads waiting on word */
void ar_futex_wake(atomic_uint *word, int nr)
{
	ar_raw_syscall6(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, nr, 0, 0, 0);
}

__thread pid_t ar_tid_cache;
static pthread_once_t ar_tid_once = PTHREAD_ONCE_INIT;

/* a forked child is another thread: it asks again */
static void ar_tid_forget(void)
{
	ar_tid_cache = 0;
}

static void ar_tid_atfork(void)
{
	pthread_atfork(NULL, NULL, ar_tid_forget);
}

pid_t ar_tid_slow(void)
{
	pthread_once(&ar_tid_once, ar_tid_atfork);
	ar_tid_cache = (pid_t)syscall(SYS_gettid);
	return ar_tid_cache;
}

/*
 * The CQ was found empty: the ring fd is reset, so that it polls readable
 * no more (D1), and made readable again at once if CQEs, task work or an
 * overflow backlog are there after all. A system call only when it was
 * signalled.
 */
void ar_ring_fd_clear(struct ar_uctx *ctx)
{
	uint64_t v;
	int fd, e;

	fd = __atomic_load_n(&ctx->ring_fd, __ATOMIC_ACQUIRE);
	/* the sleeper's step 1 of wake.h (ring fd): the flag down */
	if (fd < 0 || !atomic_exchange_explicit(&ctx->ring_fd_signalled, false,
						memory_order_relaxed))
		return;
	e = errno;
	(void)!read(fd, &v, sizeof(v));
	errno = e;
	/*
	 * Step 2: the flag store above before the loads below. Pairs with
	 * ar_wake_mb() in ar_cq_wake() between a poster's tail store (and
	 * overflow flag) and its exchange of the flag, and with
	 * ar_wake_mb_after_rmw() in ar_tw_add() between the push and the
	 * signal: either that side sees the flag down and signals, or this
	 * side sees its CQE, backlog or work and signals.
	 */
	ar_wake_mb();
	if ((IO_URING_READ_ONCE(ctx->rings->cq.head) !=
	     io_uring_smp_load_acquire(&ctx->rings->cq.tail) ||
	     atomic_load_explicit(&ctx->tw_head, memory_order_relaxed) ||
	     (__atomic_load_n(&ctx->rings->sq_flags, __ATOMIC_RELAXED) &
	      IORING_SQ_CQ_OVERFLOW)) &&
	    !atomic_exchange_explicit(&ctx->ring_fd_signalled, true,
				      memory_order_relaxed)) {
		v = 1;
		e = errno;
		(void)!write(fd, &v, sizeof(v));
		errno = e;
	}
}

/*
 * The program found the CQ empty through liburing and goes back to its
 * own loop without waiting here (a peek that found nothing, a submit
 * that does not wait). The kernel's ring fd polls POLLIN only while
 * there are CQEs or pending work, so an epoll loop on it sleeps now;
 * ours is an eventfd that stays readable until reset (D1), and such a
 * loop would spin on it. Reset it (ar_ring_fd_clear()).
 * Left alone: a ring with a registered eventfd (its loop polls that; the
 * reset would cost a read and a write per round) and a DEFER_TASKRUN
 * ring (AIO completions wait in the AIO ring for its task, unseen here).
 */
void ar_user_cq_idle(void *obj)
{
	struct ar_uctx *ctx = obj;

	if (!atomic_load_explicit(&ctx->ring_fd_signalled, memory_order_relaxed) ||
	    (ctx->flags & IORING_SETUP_DEFER_TASKRUN) ||
	    __atomic_load_n(&ctx->eventfd, __ATOMIC_RELAXED) >= 0)
		return;
	ar_ring_fd_clear(ctx);
}

/*
 * The engine's own fds are claimed with this marker: they are not the
 * application's, so io_uring calls on them fail -EBADF, CLOSE refuses
 * them and they cannot be registered.
 */
static int ar_internal_enter(void *obj, unsigned fd, unsigned to_submit,
			     unsigned min_complete, unsigned flags,
			     const void *arg, size_t argsz)
{
	(void)obj; (void)fd; (void)to_submit; (void)min_complete; (void)flags;
	(void)arg; (void)argsz;
	return -EBADF;
}

static int ar_internal_reg(void *obj, unsigned fd, unsigned opcode,
			   const void *arg, unsigned nr_args)
{
	(void)obj; (void)fd; (void)opcode; (void)arg; (void)nr_args;
	return -EBADF;
}

static int ar_internal_mmap(void *obj, int fd, struct io_uring_params *p,
			    struct io_uring *ring)
{
	(void)obj; (void)fd; (void)p; (void)ring;
	return -EBADF;
}

static void ar_internal_unmap(struct io_uring *ring)
{
	(void)ring;
}

static int ar_internal_setup(unsigned entries, struct io_uring_params *p)
{
	(void)entries; (void)p;
	return -EINVAL;
}

static int ar_internal_close_op(void *obj, int fd)
{
	(void)obj; (void)fd;
	return -EBADF;
}

const struct ar_engine ar_internal_fd = {
	.name	= "internal",
	.setup	= ar_internal_setup,
	.mmap	= ar_internal_mmap,
	.unmap	= ar_internal_unmap,
	.enter	= ar_internal_enter,
	.reg	= ar_internal_reg,
	.close	= ar_internal_close_op,
};

/* an fd of the engine's own, marked as such */
int ar_internal_claim(int fd)
{
	if (fd >= 0)
		ar_engine_claim_fd(fd, &ar_internal_fd, NULL);
	return fd;
}

void ar_internal_close(int fd)
{
	if (fd < 0)
		return;
	ar_engine_release_fd(fd);
	close(fd);
}
