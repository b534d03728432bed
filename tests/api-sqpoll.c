/* SPDX-License-Identifier: MIT */
/*
 * api-sqpoll: the SQPOLL protocol (the poll thread idles, sets
 * IORING_SQ_NEED_WAKEUP, and io_uring_submit wakes it), __io_uring_sqring_wait
 * on a full SQ, and CQ overflow: more completions than the CQ holds are
 * kept (IORING_SQ_CQ_OVERFLOW) and all arrive, in order, once reaped.
 */
#include <unistd.h>
#include "test.h"

static void t_reap(struct io_uring *ring, unsigned n, __u64 first)
{
	struct io_uring_cqe *cqe;
	unsigned i;

	for (i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, first + i);
		CHECK_EQ(cqe->res, 0);
		io_uring_cqe_seen(ring, cqe);
	}
}

static void t_queue_nops(struct io_uring *ring, unsigned n, __u64 first)
{
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < n; i++) {
		sqe = io_uring_get_sqe(ring);
		CHECK(sqe);
		io_uring_prep_nop(sqe);
		sqe->user_data = first + i;
	}
}

static void t_sqpoll(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	long long end;
	int woke = 0;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL;
	p.sq_thread_idle = 5;	/* ms */
	t_ring(&ring, 8, &p);

	t_queue_nops(&ring, 4, 0);
	CHECK_EQ(io_uring_submit(&ring), 4);
	t_reap(&ring, 4, 0);

	/*
	 * let the thread idle out: it must ask for a wakeup (the flag is
	 * the event; T_HANG_SEC only ends a wait for one that never comes)
	 */
	end = t_now_ns() + T_HANG_SEC * 1000000000LL;
	while (!woke && t_now_ns() < end) {
		usleep(1000);
		woke = IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP;
	}
	CHECK(woke);
	t_queue_nops(&ring, 8, 10);
	CHECK_EQ(io_uring_submit(&ring), 8);
	/* a full SQ: sqring_wait returns once the thread consumed entries */
	CHECK(io_uring_sqring_wait(&ring) >= 0);
	CHECK(io_uring_sq_space_left(&ring) > 0);
	t_reap(&ring, 8, 10);
	io_uring_queue_exit(&ring);
}

static void t_overflow(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	unsigned i;

	memset(&p, 0, sizeof(p));
	t_ring(&ring, 4, &p);	/* CQ of 8 */
	CHECK_EQ(ring.cq.ring_entries, 8);
	for (i = 0; i < 4; i++) {
		t_queue_nops(&ring, 4, 4 * i);
		CHECK_EQ(io_uring_submit(&ring), 4);
	}
	CHECK_EQ(io_uring_cq_ready(&ring), 8);
	CHECK(io_uring_cq_has_overflow(&ring));
	/* all 16 arrive, in submission order, as the CQ drains */
	t_reap(&ring, 16, 0);
	CHECK(!io_uring_cq_has_overflow(&ring));
	CHECK_EQ(*ring.cq.koverflow, 0);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	t_overflow();
	t_sqpoll();
	return 0;
}
