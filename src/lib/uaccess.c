/* SPDX-License-Identifier: MIT */
/*
 * uaccess.c - fault-safe copies of application memory (uaccess.h).
 *
 * process_vm_readv/writev on the process's own pid: one system call per
 * copy, no signal handler, nothing the application or a sanitizer has to
 * share. The pid is cached; a fork()ed child refreshes it (pthread_atfork)
 * so that it never reads its parent. Refused by the sandbox (checked once
 * with a copy that cannot fault), the copies go through a pipe.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "lib/sysraw.h"
#include "lib/uaccess.h"

/* protection is per page, and no page is smaller than this */
#define AR_UA_CHUNK		4096UL

enum ar_ua_mode {
	AR_UA_VM,		/* process_vm_readv/writev */
	AR_UA_PIPE,		/* write(2) then read(2) through a pipe */
};

static pthread_once_t ar_ua_once = PTHREAD_ONCE_INIT;
static enum ar_ua_mode ar_ua_mode;
/* relaxed: written before the first copy (pthread_once) and in a fork child */
static _Atomic pid_t ar_ua_pid;

/* the pipe fallback: one pipe, one copy at a time */
static pthread_mutex_t ar_ua_pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static int ar_ua_pipe[2] = { -1, -1 };

static void ar_ua_atfork_child(void)
{
	atomic_store_explicit(&ar_ua_pid, getpid(), memory_order_relaxed);
	/* a pipe shared with the parent would mix the two processes' copies */
	if (ar_ua_pipe[0] >= 0) {
		close(ar_ua_pipe[0]);
		close(ar_ua_pipe[1]);
		ar_ua_pipe[0] = ar_ua_pipe[1] = -1;
	}
	pthread_mutex_init(&ar_ua_pipe_lock, NULL);
}

static long ar_ua_vm(void *local, const void *remote, size_t n, bool write)
{
	struct iovec l = { local, n }, r = { (void *)remote, n };
	pid_t pid = atomic_load_explicit(&ar_ua_pid, memory_order_relaxed);

	return ar_raw_syscall6(write ? SYS_process_vm_writev :
			       SYS_process_vm_readv, pid, (long)&l, 1,
			       (long)&r, 1, 0);
}

static void ar_ua_init(void)
{
	const char *env = secure_getenv("ANYRING_UACCESS");
	unsigned long probe = 1, got = 0;
	int saved_errno = errno;	/* the application's: the probes must not change it */

	atomic_store_explicit(&ar_ua_pid, getpid(), memory_order_relaxed);
	pthread_atfork(NULL, NULL, ar_ua_atfork_child);
	ar_ua_mode = AR_UA_VM;
	if ((env && !strcmp(env, "pipe")) ||
	    ar_ua_vm(&got, &probe, sizeof(got), false) != sizeof(got) ||
	    got != probe)
		ar_ua_mode = AR_UA_PIPE;
	errno = saved_errno;
}

static inline void ar_ua_ready(void)
{
	pthread_once(&ar_ua_once, ar_ua_init);
}

/* empty what a failed copy left in the pipe; under ar_ua_pipe_lock */
static void ar_ua_pipe_drain(size_t n)
{
	char scratch[256];

	while (n) {
		long r = ar_raw_syscall6(SYS_read, ar_ua_pipe[0], (long)scratch,
					 (long)(n < sizeof(scratch) ? n : sizeof(scratch)),
					 0, 0, 0);
		if (r <= 0)
			return;
		n -= (size_t)r;
	}
}

/*
 * One chunk of at most PIPE_BUF bytes: the pipe is empty, so the write
 * never blocks; what it took, the read finds. Under ar_ua_pipe_lock.
 */
static int ar_ua_pipe_chunk(void *dst, const void *src, size_t n)
{
	long w, r;

	w = ar_raw_syscall6(SYS_write, ar_ua_pipe[1], (long)src, (long)n, 0, 0, 0);
	if (w != (long)n) {
		if (w > 0)
			ar_ua_pipe_drain((size_t)w);
		return -EFAULT;
	}
	r = ar_raw_syscall6(SYS_read, ar_ua_pipe[0], (long)dst, (long)n, 0, 0, 0);
	if (r != (long)n) {
		ar_ua_pipe_drain(r > 0 ? n - (size_t)r : n);
		return -EFAULT;
	}
	return 0;
}

static int ar_ua_pipe_copy(void *dst, const void *src, size_t n)
{
	int ret = 0, saved_errno = errno;

	pthread_mutex_lock(&ar_ua_pipe_lock);
	if (ar_ua_pipe[0] < 0 && pipe2(ar_ua_pipe, O_CLOEXEC)) {
		ar_ua_pipe[0] = ar_ua_pipe[1] = -1;
		errno = saved_errno;
		ret = -ENOMEM;
	}
	while (!ret && n) {
		size_t c = n < AR_UA_CHUNK ? n : AR_UA_CHUNK;

		ret = ar_ua_pipe_chunk(dst, src, c);
		dst = (char *)dst + c;
		src = (const char *)src + c;
		n -= c;
	}
	pthread_mutex_unlock(&ar_ua_pipe_lock);
	return ret ? -EFAULT : 0;
}

static int ar_ua_copy(void *dst, const void *src, size_t n, bool to_user)
{
	if (!n)
		return 0;
	ar_ua_ready();
	if (ar_ua_mode == AR_UA_PIPE)
		return ar_ua_pipe_copy(dst, src, n);
	if (to_user)
		return ar_ua_vm((void *)src, dst, n, true) == (long)n ? 0 : -EFAULT;
	return ar_ua_vm(dst, src, n, false) == (long)n ? 0 : -EFAULT;
}

int ar_copy_from_user(void *dst, const void *src, size_t n)
{
	return ar_ua_copy(dst, src, n, false);
}

int ar_copy_to_user(void *dst, const void *src, size_t n)
{
	return ar_ua_copy(dst, src, n, true);
}

/* bytes from p to the end of its chunk, at most n */
static size_t ar_ua_chunk_left(uintptr_t p, size_t n)
{
	size_t left = AR_UA_CHUNK - (p & (AR_UA_CHUNK - 1));

	return left < n ? left : n;
}

/*
 * Chunk by chunk, each inside one page: a page either reads whole or not
 * at all, so a string that ends before an unreadable page is found.
 */
long ar_strncpy_from_user(char *dst, const char *src, size_t n)
{
	size_t done = 0;

	while (done < n) {
		uintptr_t p = (uintptr_t)src + done;
		size_t c = ar_ua_chunk_left(p, n - done);
		const char *nul;

		if (ar_copy_from_user(dst + done, (const void *)p, c))
			return -EFAULT;
		nul = memchr(dst + done, '\0', c);
		if (nul)
			return nul - dst;
		done += c;
	}
	return (long)n;
}

int ar_check_zeroed_user(const void *src, size_t n)
{
	unsigned char buf[256];
	uintptr_t p = (uintptr_t)src;

	/* the whole range is checked against user space first, as the kernel's */
	if (n && !ar_access_ok(src, n))
		return -EFAULT;
	while (n) {
		size_t c = ar_ua_chunk_left(p, n);

		if (c > sizeof(buf))
			c = sizeof(buf);
		if (ar_copy_from_user(buf, (const void *)p, c))
			return -EFAULT;
		for (size_t i = 0; i < c; i++)
			if (buf[i])
				return 0;
		p += c;
		n -= c;
	}
	return 1;
}

