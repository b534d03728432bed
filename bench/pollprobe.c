/* SPDX-License-Identifier: MIT */
/*
 * pollprobe.c - measurements of the readiness backend (src/user/poll.c)
 * against the kernel, for docs/performance.md:
 *
 *   cc -O2 -Iinclude bench/pollprobe.c -o build/bench/pollprobe \
 *      -Lbuild/lib -lanyring -Wl,-rpath,$PWD/build/lib -lpthread
 *
 * pollprobe pingpong ENGINE N
 *     A pipe ping-pong between this thread and a second one, N round
 *     trips: this thread arms a POLL_ADD on pipe A, writes a byte to pipe
 *     B and waits for the CQE; the other thread, blocked in read(2) on B,
 *     writes the byte back to A. Prints ns per round trip (two wakeups,
 *     one of them the ring's).
 *
 * pollprobe readpong ENGINE N
 *     The same with a 1-byte READ on pipe A instead of the POLL_ADD: the
 *     read would block, waits for readiness and is issued again.
 *
 * pollprobe idle ENGINE NFDS SECS [multi]
 *     NFDS pipes, a POLL_ADD (oneshot, or multishot) armed on each, none
 *     ever ready; this thread waits SECS in io_uring_wait_cqe_timeout().
 *     Prints the process's CPU over the wait (getrusage RUSAGE_SELF, all
 *     threads) as a percentage of one CPU.
 *
 * pollprobe exit ENGINE NFDS
 *     NFDS pipes with a multishot POLL_ADD armed on each, then
 *     io_uring_queue_exit(): prints how long the exit took (every poll
 *     cancelled, threads joined).
 */
#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "anyring.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "pollprobe: %s: %s\n", what, strerror(err));
	exit(1);
}

static void ring_init(const char *engine, unsigned entries, unsigned cq,
		      struct io_uring *ring)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	if (cq) {
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = cq;
	}
	ret = anyring_queue_init_engine(engine, entries, ring, &p);
	if (ret)
		die("ring", -ret);
}

static struct io_uring_sqe *get_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe) {
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	if (!sqe)
		die("sqe", EBUSY);
	return sqe;
}

static int pa[2], pb[2];

static void *echo(void *arg)
{
	long n = (long)arg;
	char c;

	while (n--) {
		if (read(pb[0], &c, 1) != 1 || write(pa[1], &c, 1) != 1)
			die("echo", errno);
	}
	return NULL;
}

static void pingpong(const char *engine, long n, bool rd)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	pthread_t th;
	long long t0;
	char c = 'x';
	long i;

	ring_init(engine, 8, 0, &ring);
	if (pipe(pa) || pipe(pb))
		die("pipe", errno);
	pthread_create(&th, NULL, echo, (void *)n);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (rd)
			io_uring_prep_read(get_sqe(&ring), pa[0], &c, 1, 0);
		else
			io_uring_prep_poll_add(get_sqe(&ring), pa[0], POLLIN);
		io_uring_submit(&ring);
		if (write(pb[1], &c, 1) != 1)
			die("write", errno);
		if (io_uring_wait_cqe(&ring, &cqe) || cqe->res != (rd ? 1 : POLLIN))
			die("cqe", EIO);
		io_uring_cqe_seen(&ring, cqe);
		if (!rd && read(pa[0], &c, 1) != 1)
			die("read", errno);
	}
	printf("%s %s: %.0f ns per round trip (%ld)\n",
	       rd ? "readpong" : "pingpong", engine,
	       (double)(now_ns() - t0) / (double)n, n);
	pthread_join(th, NULL);
	io_uring_queue_exit(&ring);
}

static int (*arm_pipes(struct io_uring *ring, unsigned n, bool multi))[2]
{
	int (*p)[2] = calloc(n, sizeof(*p));

	for (unsigned i = 0; i < n; i++) {
		struct io_uring_sqe *sqe;

		if (pipe(p[i]))
			die("pipe", errno);
		sqe = get_sqe(ring);
		if (multi)
			io_uring_prep_poll_multishot(sqe, p[i][0], POLLIN);
		else
			io_uring_prep_poll_add(sqe, p[i][0], POLLIN);
		sqe->user_data = i;
	}
	io_uring_submit(ring);
	return p;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void idle(const char *engine, unsigned n, unsigned secs, bool multi)
{
	struct __kernel_timespec ts = { .tv_sec = secs };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	double c0, c1;
	long long t0, t1;

	ring_init(engine, 64, 2 * n, &ring);
	arm_pipes(&ring, n, multi);
	c0 = cpu_s();
	t0 = now_ns();
	if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts) != -ETIME)
		die("idle wait", EIO);
	t1 = now_ns();
	c1 = cpu_s();
	printf("idle %s: %u %s polls armed, %.3f%% of a CPU over %.1f s\n",
	       engine, n, multi ? "multishot" : "oneshot",
	       100.0 * (c1 - c0) / ((double)(t1 - t0) / 1e9),
	       (double)(t1 - t0) / 1e9);
	io_uring_queue_exit(&ring);
}

static void ring_exit(const char *engine, unsigned n)
{
	struct io_uring ring;
	long long t0;

	ring_init(engine, 64, 2 * n, &ring);
	arm_pipes(&ring, n, true);
	t0 = now_ns();
	io_uring_queue_exit(&ring);
	printf("exit %s: %u multishot polls armed, exit took %.1f us\n",
	       engine, n, (double)(now_ns() - t0) / 1e3);
}

int main(int argc, char **argv)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (argc >= 4 && !strcmp(argv[1], "pingpong"))
		pingpong(argv[2], atol(argv[3]), false);
	else if (argc >= 4 && !strcmp(argv[1], "readpong"))
		pingpong(argv[2], atol(argv[3]), true);
	else if (argc >= 5 && !strcmp(argv[1], "idle"))
		idle(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]),
		     argc > 5 && !strcmp(argv[5], "multi"));
	else if (argc >= 4 && !strcmp(argv[1], "exit"))
		ring_exit(argv[2], (unsigned)atoi(argv[3]));
	else {
		fprintf(stderr, "usage: pollprobe pingpong|idle|exit ENGINE ...\n");
		return 2;
	}
	return 0;
}
