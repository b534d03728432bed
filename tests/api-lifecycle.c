/* SPDX-License-Identifier: MIT */
/*
 * api-lifecycle: the ring as an object of the process. Its fd polls
 * readable once a CQE is there (event loops epoll it); a wait is
 * interrupted by a signal (-EINTR) and by one its sigmask unblocks;
 * io_uring_queue_exit with requests in flight (a pipe read, a timer, a
 * blocked worker) returns and leaves no thread and no fd behind; work
 * handed to io-wq one request at a time reuses its idle workers, and
 * writes to one file take one worker.
 */
#include <dirent.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "test.h"

static int t_count(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	CHECK(dp);
	while ((d = readdir(dp)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dp);
	return n;
}

static int t_readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	CHECK(poll(&pfd, 1, ms) >= 0);
	return !!(pfd.revents & POLLIN);
}

static void t_ring_fd_poll(void)
{
	struct __kernel_timespec ts = { 0, 1000000 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;

	t_ring(&ring, 4, NULL);
	CHECK(!t_readable(ring.ring_fd, 0));
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK(t_readable(ring.ring_fd, T_HANG_SEC * 1000));
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	io_uring_cqe_seen(&ring, cqe);
	/* empty again once the ring was waited on */
	CHECK_EQ(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), -ETIME);
	CHECK(!t_readable(ring.ring_fd, 0));
	io_uring_queue_exit(&ring);
}

static void t_on_signal(int sig)
{
	(void)sig;
}

static void t_eintr(void)
{
	struct sigaction sa;
	struct itimerspec its;
	struct sigevent sev;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	sigset_t mask, old;
	timer_t timer;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = t_on_signal;	/* no SA_RESTART */
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	t_ring(&ring, 4, NULL);

	/*
	 * a signal during a wait with nothing in flight: every 20 ms, so
	 * that one comes while the thread waits however late it gets there
	 */
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = gettid();
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 20 * 1000 * 1000;
	its.it_interval = its.it_value;
	CHECK_EQ(timer_settime(timer, 0, &its, NULL), 0);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), -EINTR);
	timer_delete(timer);

	/* a blocked, pending signal that the wait's sigmask unblocks */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &mask, &old), 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);
	sigemptyset(&mask);
	CHECK_EQ(io_uring_wait_cqes(&ring, &cqe, 1, NULL, &mask), -EINTR);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	io_uring_queue_exit(&ring);
}

/*
 * A NOP and its CQE, the only one that can come: the engine has taken in
 * what was submitted before it.
 */
static void t_fence(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;

	CHECK(sqe);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, 0xfe);
	CHECK_EQ(io_uring_submit(ring), 1);
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 0xfe);
	io_uring_cqe_seen(ring, cqe);
}

/* a ring that starts engine threads and ends with them running */
static void t_exit_in_flight_once(bool async)
{
	struct io_uring ring;
	static char buf[8];
	struct io_uring_sqe *sqe;
	int p[2];

	CHECK_EQ(pipe(p), 0);
	t_ring(&ring, 4, NULL);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	if (async)
		sqe->flags |= IOSQE_ASYNC;
	CHECK_EQ(io_uring_submit(&ring), 1);
	t_fence(&ring);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

/*
 * The kernel ends its io_uring threads after the ring is gone, on its
 * own time: wait for that (polling, T_HANG_SEC at most), and for the
 * other threads to be back at want. Returns how many are left.
 */
static int t_settled_threads(int want)
{
	long long end = t_now_ns() + T_HANG_SEC * 1000000000LL;
	int kernel, others;

	others = t_threads(&kernel);
	while ((kernel || others != want) && t_now_ns() < end) {
		usleep(1000);
		others = t_threads(&kernel);
	}
	return kernel + others;
}

static void t_exit_in_flight(void)
{
	struct __kernel_timespec ts = { 60, 0 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	static char buf[64];
	int threads, kernel, fds, p[2];

	/* a sanitizer runtime starts a thread of its own with the first one */
	t_exit_in_flight_once(true);
	threads = t_threads(&kernel);
	fds = t_count("/proc/self/fd");
	CHECK_EQ(pipe(p), 0);
	t_ring(&ring, 8, NULL);
	/* a read waiting for data, the same forced to a worker, a long timer */
	io_uring_prep_read(io_uring_get_sqe(&ring), p[0], buf, sizeof(buf), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_ASYNC;
	io_uring_prep_timeout(io_uring_get_sqe(&ring), &ts, 0, 0);
	CHECK_EQ(io_uring_submit(&ring), 3);
	t_fence(&ring);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
	CHECK_EQ(t_settled_threads(threads), threads);
	CHECK_EQ(t_count("/proc/self/fd"), fds);
}

/*
 * Work handed to io-wq one request at a time is served by the workers
 * already there, unbounded (4000 RECVs on a socket) and bounded (4000
 * NOPs) alike: a few threads, not one per handoff. The user engine once
 * counted a wakeup as still owed to its idle workers after the worker
 * woken had taken it, so most handoffs made a thread while the others
 * slept on (500 to 700 threads here after the RECVs). The bound is far
 * above what a sequential loop needs, even where a woken worker is slow
 * to run.
 */
static void t_worker_reuse(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int sv[2], kernel, before, i;
	char c;

	t_ring(&ring, 4, NULL);
	CHECK(!socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	before = t_threads(&kernel);
	for (i = 0; i < 8000; i++) {
		struct io_uring_sqe *sqe = t_sqe(&ring);

		if (i >= 4000) {
			io_uring_prep_nop(sqe);
		} else {
			CHECK_EQ(send(sv[1], "x", 1, 0), 1);
			io_uring_prep_recv(sqe, sv[0], &c, 1, 0);
		}
		sqe->flags |= IOSQE_ASYNC;
		CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->res, i >= 4000 ? 0 : 1);
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK(t_threads(&kernel) - before < 32);
	io_uring_queue_exit(&ring);
	close(sv[0]);
	close(sv[1]);
}

/*
 * Writes to one file handed to io-wq in one submit are io-wq's hashed
 * work: one worker streams them in order, and no other is woken for them
 * (each would find the file's bucket taken and sleep again). One worker
 * at most, and the file holds every write where it was asked.
 */
static void t_hashed_writes(void)
{
	char path[] = "/var/tmp/anyring-hash-XXXXXX", buf[32][64], back[64];
	struct io_uring_params p = { 0 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int fd, kernel, before, i;

	t_ring(&ring, 32, &p);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	unlink(path);
	before = t_threads(&kernel);
	for (i = 0; i < 32; i++) {
		struct io_uring_sqe *sqe = t_sqe(&ring);

		memset(buf[i], 'a' + i % 26, sizeof(buf[i]));
		io_uring_prep_write(sqe, fd, buf[i], sizeof(buf[i]),
				    (__u64)i * sizeof(buf[i]));
		sqe->flags |= IOSQE_ASYNC;
	}
	CHECK_EQ(io_uring_submit_and_wait(&ring, 32), 32);
	for (i = 0; i < 32; i++) {
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->res, (int)sizeof(buf[0]));
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK(t_threads(&kernel) - before <= 1);
	for (i = 0; i < 32; i++) {
		CHECK_EQ(pread(fd, back, sizeof(back), i * sizeof(back)),
			 (long long)sizeof(back));
		CHECK(!memcmp(back, buf[i], sizeof(back)));
	}
	close(fd);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	t_ring_fd_poll();
	t_eintr();
	t_exit_in_flight();
	t_worker_reuse();
	t_hashed_writes();
	return 0;
}
