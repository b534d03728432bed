/* SPDX-License-Identifier: MIT */
/*
 * thread.h - the library's threads, futexes and thread ids (thread.c).
 */
#ifndef ANYRING_LIB_THREAD_H
#define ANYRING_LIB_THREAD_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Start one of the library's threads, with every signal blocked from its
 * first instruction (a process-directed signal never runs the
 * application's handler on it) and ar_hook_off set: 0 or an errno.
 */
int ar_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg);

/*
 * Name the calling thread prefix-n, as the kernel names its io_uring
 * threads ("iou-wrk-1234", "iou-sqp-1234"; 15 characters kept).
 */
void ar_thread_name(const char *prefix, int n);

/*
 * Not 0: this thread is the library's, or a program thread inside it.
 * Its poll, select and epoll calls are the library's own, which
 * engine/pollhook.c passes to libc without its look at the rings.
 */
extern __thread unsigned ar_hook_off;

static inline void ar_hook_off_enter(void)
{
	ar_hook_off++;
}

static inline void ar_hook_off_leave(void)
{
	ar_hook_off--;
}

/*
 * The engine's work on a program thread's way into one of libc's
 * functions (engine/pollhook.c's hooks): ar_hook_off set, errno kept,
 * and cancellation held off, so that a cancel of the thread never acts
 * at a cancellation point inside (a lock held, a reference taken): it
 * acts in libc's function after, as it would have.
 */
struct ar_quiet {
	int err;
	int cancel;
};

static inline void ar_quiet_enter(struct ar_quiet *q)
{
	q->err = errno;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &q->cancel);
	ar_hook_off_enter();
}

static inline void ar_quiet_leave(struct ar_quiet *q)
{
	ar_hook_off_leave();
	pthread_setcancelstate(q->cancel, NULL);
	errno = q->err;
}

/*
 * FUTEX_WAIT_BITSET: sleep while *word == val, until deadline_ns
 * (CLOCK_MONOTONIC, absolute; 0: none). 0 when woken, else -ETIMEDOUT,
 * -EAGAIN (*word had moved) or -EINTR; errno untouched.
 */
int ar_futex_wait(atomic_uint *word, unsigned val, uint64_t deadline_ns);
/* wake up to nr threads waiting on word */
void ar_futex_wake(atomic_uint *word, int nr);
/* Is thread or process id gone (a zombie included: it runs nothing more)? */
bool ar_tid_gone(pid_t tid);
/* a word in shared memory, waited on and woken from any process; no deadline */
int ar_futex_wait_shared(atomic_uint *word, unsigned val);
void ar_futex_wake_shared(atomic_uint *word, int nr);

/*
 * The calling thread's id, cached per thread (reset in a forked child).
 * Not pthread_self(): glibc reuses a joined thread's descriptor for the
 * next thread, which would inherit the issuer's rights; the kernel ties
 * them to the task.
 */
extern __thread pid_t ar_tid_cache;
pid_t ar_tid_slow(void);

static inline pid_t ar_self_tid(void)
{
	pid_t tid = ar_tid_cache;

	return tid ? tid : ar_tid_slow();
}

#endif
