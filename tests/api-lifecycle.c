/* SPDX-License-Identifier: MIT */
/*
 * api-lifecycle: the ring as an object of the process. Its fd polls
 * readable once a CQE is there (event loops epoll it); a wait is
 * interrupted by a signal (-EINTR) and by one its sigmask unblocks;
 * io_uring_queue_exit with requests in flight (a pipe read, a timer, a
 * blocked worker) returns and leaves no thread and no fd behind.
 */
#include <dirent.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
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
	CHECK(t_readable(ring.ring_fd, 1000));
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

	/* a signal 20 ms into a wait with nothing in flight */
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = gettid();
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 20 * 1000 * 1000;
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
	usleep(10 * 1000);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

static int t_settled_threads(int want)
{
	/* the kernel reaps its io-wq workers asynchronously: give it a moment */
	int n = t_count("/proc/self/task");

	for (int i = 0; i < 100 && n != want; i++) {
		usleep(10 * 1000);
		n = t_count("/proc/self/task");
		if (want < 0 && i > 20)
			break;	/* no target: just let it settle */
	}
	return n;
}

static void t_exit_in_flight(void)
{
	struct __kernel_timespec ts = { 60, 0 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	static char buf[64];
	int threads, fds, p[2];

	/* a sanitizer runtime starts a thread of its own with the first one */
	t_exit_in_flight_once(true);
	threads = t_settled_threads(-1);
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
	usleep(20 * 1000);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
	CHECK_EQ(t_settled_threads(threads), threads);
	CHECK_EQ(t_count("/proc/self/fd"), fds);
}

int main(void)
{
	t_ring_fd_poll();
	t_eintr();
	t_exit_in_flight();
	return 0;
}
