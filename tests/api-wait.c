/* SPDX-License-Identifier: MIT */
/*
 * api-wait: the wait paths. wait_cqe_timeout and wait_cqes time out with
 * -ETIME; submit_and_wait_timeout returns the number submitted; the
 * anyring_submit_and_wait_ext() wait argument: relative and absolute
 * timeouts, min_wait (also when it passes with no CQE), no-iowait, a
 * sigmask, and bad flags.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "test.h"
#include "compat.h"

static void t_timespec_in(struct __kernel_timespec *ts, long long ns)
{
	ts->tv_sec = ns / 1000000000LL;
	ts->tv_nsec = ns % 1000000000LL;
}

static void t_nops(struct io_uring *ring, unsigned n)
{
	while (n--)
		io_uring_prep_nop(io_uring_get_sqe(ring));
}

static void t_timeouts(struct io_uring *ring)
{
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;

	t_timespec_in(&ts, 5 * 1000 * 1000);
	CHECK_EQ(io_uring_wait_cqe_timeout(ring, &cqe, &ts), -ETIME);
	CHECK_EQ(io_uring_wait_cqes(ring, &cqe, 3, &ts, NULL), -ETIME);

	/* two NOPs, a wait for two: both there, returns the submit count */
	t_nops(ring, 2);
	CHECK_EQ(io_uring_submit_and_wait_timeout(ring, &cqe, 2, &ts, NULL), 2);
	CHECK(cqe);
	CHECK_EQ(io_uring_cq_ready(ring), 2);
	io_uring_cq_advance(ring, 2);

	/* one NOP, a wait for two: the timeout still expires, CQE returned */
	t_nops(ring, 1);
	CHECK_EQ(io_uring_submit_and_wait_timeout(ring, &cqe, 2, &ts, NULL), 1);
	CHECK(cqe);
	io_uring_cqe_seen(ring, cqe);
	/* wait_cqes with a CQE ready returns it at once */
	t_nops(ring, 1);
	CHECK_EQ(io_uring_submit(ring), 1);
	CHECK_EQ(io_uring_wait_cqes(ring, &cqe, 1, &ts, NULL), 0);
	io_uring_cqe_seen(ring, cqe);
}

struct t_late {
	int wfd;		/* the pipe the ring reads */
	int done_fd;		/* written by the main thread once its wait ended */
};

/*
 * One write, then a second only if the main thread's wait is still on
 * after T_HANG_SEC: a wait for 2 that ignores min_wait ends then with 2
 * CQEs instead of 1.
 */
static void *t_late_writer(void *arg)
{
	struct t_late *l = arg;
	struct pollfd pfd = { .fd = l->done_fd, .events = POLLIN };

	usleep(20000);
	CHECK_EQ(write(l->wfd, "a", 1), 1);
	if (poll(&pfd, 1, T_HANG_SEC * 1000) == 0)
		CHECK_EQ(write(l->wfd, "b", 1), 1);
	return NULL;
}

/*
 * min_wait passes with no CQE: the wait goes on, but the first CQE ends
 * it, whatever wait_nr asked (the kernel's io_cqring_min_timer_wakeup()):
 * a wait for 2 reads with a 1 ms min_wait ends with the one read the
 * other thread's first write completes.
 */
static void t_min_wait_empty(struct io_uring *ring)
{
	struct __kernel_timespec ts;
	struct anyring_wait w;
	struct io_uring_cqe *cqe;
	struct t_late l;
	pthread_t thread;
	static char buf[2][4];
	int p[2], done[2], i;

	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(pipe(done), 0);
	for (i = 0; i < 2; i++)
		io_uring_prep_read(t_sqe(ring), p[0], buf[i], 1, 0);
	l.wfd = p[1];
	l.done_fd = done[0];
	CHECK_EQ(pthread_create(&thread, NULL, t_late_writer, &l), 0);
	memset(&w, 0, sizeof(w));
	t_timespec_in(&ts, 3LL * T_HANG_SEC * 1000000000LL);
	w.ts = &ts;
	w.min_wait_usec = 1000;
	CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 2, &w), 2);
	CHECK_EQ(write(done[1], "x", 1), 1);
	CHECK_EQ(io_uring_cq_ready(ring), 1);
	CHECK_EQ(cqe->res, 1);
	io_uring_cqe_seen(ring, cqe);
	CHECK_EQ(pthread_join(thread, NULL), 0);
	/* the other read ends when the write end goes */
	close(p[1]);
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	CHECK(cqe->res == 0 || cqe->res == 1);
	io_uring_cqe_seen(ring, cqe);
	close(p[0]);
	close(done[0]);
	close(done[1]);
}

static void t_ext(struct io_uring *ring)
{
	struct __kernel_timespec ts, abs;
	struct anyring_wait w;
	struct io_uring_cqe *cqe;
	struct timespec now;
	sigset_t mask;

	memset(&w, 0, sizeof(w));
	t_timespec_in(&ts, 5 * 1000 * 1000);
	w.ts = &ts;
	CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 1, &w), -ETIME);
	/* no wait argument and nothing to wait for: a peek */
	CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 0, NULL), -EAGAIN);

	w.flags = 1U << 7;
	CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 1, &w), -EINVAL);

	/* absolute: a deadline 5 ms ahead on CLOCK_MONOTONIC */
	clock_gettime(CLOCK_MONOTONIC, &now);
	t_timespec_in(&abs, now.tv_sec * 1000000000LL + now.tv_nsec + 5000000);
	w.ts = &abs;
	w.flags = ANYRING_WAIT_ABS;
	if (!(ring->features & IORING_FEAT_MIN_TIMEOUT)) {
		CHECK(anyring_submit_and_wait_ext(ring, &cqe, 1, &w) < 0);
	} else {
		CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 1, &w), -ETIME);
		/* a deadline in the past expires at once */
		CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 1, &w), -ETIME);

		/*
		 * min_wait: one CQE, a wait for 4, 1 ms min_wait: it ends
		 * with the CQE once min_wait passed, long before the timeout
		 */
		t_timespec_in(&ts, T_HANG_SEC * 1000000000LL);
		w.ts = &ts;
		w.flags = 0;
		w.min_wait_usec = 1000;
		t_nops(ring, 1);
		CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 4, &w), 1);
		CHECK(cqe);
		io_uring_cqe_seen(ring, cqe);
		w.min_wait_usec = 0;
		t_min_wait_empty(ring);
	}

	if (ring->features & IORING_FEAT_NO_IOWAIT) {
		t_timespec_in(&ts, 1000 * 1000);
		w.ts = &ts;
		w.flags = ANYRING_WAIT_NO_IOWAIT;
		CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 1, &w), -ETIME);
		t_nops(ring, 1);
		CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 1, &w), 1);
		io_uring_cqe_seen(ring, cqe);
	}

	/* a sigmask is passed through */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	t_timespec_in(&ts, 1000 * 1000);
	w.ts = &ts;
	w.flags = 0;
	w.sigmask = &mask;
	CHECK_EQ(anyring_submit_and_wait_ext(ring, &cqe, 1, &w), -ETIME);
}

int main(void)
{
	struct io_uring ring;

	t_ring(&ring, 8, NULL);
	if (!(ring.features & IORING_FEAT_EXT_ARG))
		t_skip("engine without IORING_FEAT_EXT_ARG");
	t_timeouts(&ring);
	t_ext(&ring);
	io_uring_queue_exit(&ring);
	return 0;
}
