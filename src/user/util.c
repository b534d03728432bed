/* SPDX-License-Identifier: MIT */
/*
 * util.c - small helpers the user engine's files share.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include "engine/sysraw.h"
#include "engine/pollhook.h"
#include "lib/wake.h"
#include "user/types.h"
#include "user/ctx.h"
#include "user/complete.h"
#include "user/util.h"

struct ar_thread_start {
	void *(*fn)(void *);
	void *arg;
};

/* an engine thread's polls are the engine's (engine/pollhook.h) */
static void *ar_thread_main(void *p)
{
	struct ar_thread_start st = *(struct ar_thread_start *)p;

	free(p);
	ar_hook_off_enter();
	return st.fn(st.arg);
}

/*
 * Start an engine thread with every signal blocked from its first
 * instruction, so a process-directed signal never runs the application's
 * handler on it.
 */
int ar_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	struct ar_thread_start *st = malloc(sizeof(*st));
	sigset_t all, old;
	int ret;

	if (!st)
		return EAGAIN;
	st->fn = fn;
	st->arg = arg;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(tid, NULL, ar_thread_main, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		free(st);
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
