/* SPDX-License-Identifier: MIT */
/*
 * thread.c - the library's threads, futexes and thread ids (thread.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include "lib/sysraw.h"
#include "lib/thread.h"

__thread unsigned ar_hook_off;

/*
 * Under ASan, ar_thread_create() returns once the new thread runs. The
 * ASan runtime of Debian 12's GCC allocates as a thread starts and does
 * not lock its allocator around fork(): a program that forks right
 * after its first ring setup (which starts the release thread) would
 * give its child a locked allocator, and the child would hang at its
 * first allocation. glibc's malloc has no such window.
 */
#if defined(__SANITIZE_ADDRESS__)
#define AR_THREAD_WAIT_START	1
#else
#define AR_THREAD_WAIT_START	0
#endif

struct ar_thread_start {
	void *(*fn)(void *);
	void *arg;
	sem_t started;		/* AR_THREAD_WAIT_START: posted once it runs */
};

/* a library thread's polls are the library's (ar_hook_off) */
static void *ar_thread_main(void *p)
{
	struct ar_thread_start st = *(struct ar_thread_start *)p;

	if (AR_THREAD_WAIT_START)
		sem_post(&((struct ar_thread_start *)p)->started);
	else
		free(p);
	ar_hook_off_enter();
	return st.fn(st.arg);
}

int ar_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	struct ar_thread_start *st = malloc(sizeof(*st));
	sigset_t all, old;
	int ret;

	if (!st)
		return EAGAIN;
	st->fn = fn;
	st->arg = arg;
	if (AR_THREAD_WAIT_START)
		sem_init(&st->started, 0, 0);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(tid, NULL, ar_thread_main, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (AR_THREAD_WAIT_START) {
		/* glibc's sem_post() is done with the semaphore when sem_wait() returns */
		while (!ret && sem_wait(&st->started) && errno == EINTR)
			;
		sem_destroy(&st->started);
	}
	if (ret || AR_THREAD_WAIT_START)
		free(st);
	return ret;
}

void ar_thread_name(const char *prefix, int n)
{
	char name[32];

	snprintf(name, sizeof(name), "%s%d", prefix, n);
	name[15] = '\0';	/* TASK_COMM_LEN - 1 */
	prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

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

void ar_futex_wake(atomic_uint *word, int nr)
{
	ar_raw_syscall6(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, nr, 0, 0, 0);
}

/* the same on a word in memory other processes share: no PRIVATE flag */
int ar_futex_wait_shared(atomic_uint *word, unsigned val)
{
	long ret = ar_raw_syscall6(SYS_futex, (long)word, FUTEX_WAIT_BITSET,
				   (long)val, 0, 0, FUTEX_BITSET_MATCH_ANY);

	return ret < 0 ? (int)ret : 0;
}

void ar_futex_wake_shared(atomic_uint *word, int nr)
{
	ar_raw_syscall6(SYS_futex, (long)word, FUTEX_WAKE, nr, 0, 0, 0);
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

bool ar_tid_gone(pid_t pid)
{
	char path[32], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	/* raw: libc's read() is a hook (engine/pollhook.c), and locks may be held here */
	n = ar_raw_syscall6(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* "pid (comm) S ...": the state after the last ')' */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}
