/* SPDX-License-Identifier: MIT */
/*
 * api-wait: the wait paths. wait_cqe_timeout and wait_cqes time out with
 * -ETIME; submit_and_wait_timeout returns the number submitted; the
 * anyring_submit_and_wait_ext() wait argument: relative and absolute
 * timeouts, min_wait, no-iowait, a sigmask, and bad flags.
 */
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
