/* SPDX-License-Identifier: MIT */
/*
 * test.h - the little every test program shares. A test is a program:
 * exit 0 passed, 77 skipped, anything else failed. CHECK() prints the
 * failing expression with file and line and exits 1.
 */
#ifndef ANYRING_TEST_H
#define ANYRING_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>
#include "anyring.h"

#define T_SKIP	77
/*
 * Tests wait for events, never for a time. A wait that has to poll (a
 * flag, a counter, a thread count) gives up after T_HANG_SEC: that only
 * turns a hang into a failure, on however loaded a machine.
 */
#define T_HANG_SEC	30

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: CHECK failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		exit(1);						\
	}								\
} while (0)

/* a == b for integers, printing both values on failure */
#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, "	\
			"expected %s == %lld\n", __FILE__, __LINE__,	\
			#a, _a, #b, _b);				\
		exit(1);						\
	}								\
} while (0)

static inline long long t_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The process's threads but the kernel's own io_uring threads (io-wq
 * workers, the SQPOLL thread: PF_IO_WORKER in the flags of their stat,
 * set when they are created), which the kernel ends on its own time
 * after a ring is gone; *kernel gets how many of those.
 */
#define T_PF_IO_WORKER	0x00000010

static inline int t_threads(int *kernel)
{
	DIR *dp = opendir("/proc/self/task");
	char path[300], stat[512], *p;
	unsigned long flags;
	struct dirent *d;
	int others = 0;
	FILE *f;

	CHECK(dp);
	*kernel = 0;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* it exited since the readdir */
		p = fgets(stat, sizeof(stat), f);
		fclose(f);
		if (!p)
			continue;
		/* after "pid (comm)": state ppid pgrp session tty tpgid flags */
		p = strrchr(stat, ')');
		CHECK(p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu",
				  &flags) == 1);
		if (flags & T_PF_IO_WORKER)
			(*kernel)++;
		else
			others++;
	}
	closedir(dp);
	return others;
}

/*
 * A thread that pthread_join() saw end is still listed in /proc/self/task
 * for a while: the kernel wakes the joiner when it clears the thread's
 * tid (mm_release), before exit_notify() removes the task. Wait for the
 * count of threads that are not the kernel's to be back at want
 * (polling, T_HANG_SEC at most) and return it.
 */
static inline int t_threads_back(int want)
{
	long long end = t_now_ns() + T_HANG_SEC * 1000000000LL;
	int kernel, others = t_threads(&kernel);

	while (others != want && t_now_ns() < end) {
		usleep(1000);
		others = t_threads(&kernel);
	}
	return others;
}

/*
 * A file of nr blocks of bs bytes (each filled with fill, through buf)
 * opened O_RDONLY | O_DIRECT, or -1 where the file system refuses
 * O_DIRECT; unlinked, on a disk (/var/tmp).
 */
static inline int t_direct_file(void *buf, size_t bs, unsigned nr, int fill)
{
	char path[] = "/var/tmp/anyring-direct-XXXXXX";
	int fd = mkstemp(path), dfd;

	CHECK(fd >= 0);
	unlink(path);
	memset(buf, fill, bs);
	for (unsigned i = 0; i < nr; i++)
		CHECK_EQ(pwrite(fd, buf, bs, (off_t)(i * bs)), (long long)bs);
	fsync(fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dfd = open(path, O_RDONLY | O_DIRECT);
	close(fd);
	return dfd;
}

/* the fds this process has open */
static inline int t_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	CHECK(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static inline void t_skip(const char *why)
{
	printf("skipped: %s\n", why);
	exit(T_SKIP);
}

/* The engine tests run on: ANYRING_TEST_ENGINE, default "kernel". */
static inline const char *t_engine(void)
{
	const char *e = getenv("ANYRING_TEST_ENGINE");

	return e && *e ? e : ANYRING_ENGINE_KERNEL;
}

/* An SQE; a full SQ is submitted first to make room. */
static inline struct io_uring_sqe *t_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe) {
		CHECK(io_uring_submit(ring) >= 0);
		sqe = io_uring_get_sqe(ring);
	}
	CHECK(sqe != NULL);
	return sqe;
}

/* A ring on the test engine; skips when the engine cannot run here. */
static inline void t_ring(struct io_uring *ring, unsigned entries,
			  struct io_uring_params *p)
{
	struct io_uring_params zero;
	int ret;

	if (!p) {
		memset(&zero, 0, sizeof(zero));
		p = &zero;
	}
	ret = anyring_queue_init_engine(t_engine(), entries, ring, p);
	if (ret == -EPERM || ret == -EACCES || ret == -ENOSYS ||
	    ret == -EOPNOTSUPP) {
		char why[128];

		snprintf(why, sizeof(why), "engine %s unavailable: %s",
			 t_engine(), strerror(-ret));
		t_skip(why);
	}
	if (ret) {
		fprintf(stderr, "ring setup on %s: %s\n", t_engine(),
			strerror(-ret));
		exit(1);
	}
}

#endif
