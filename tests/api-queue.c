/* SPDX-License-Identifier: MIT */
/*
 * api-queue: the queue API of liburing 2.3 on the test engine: setup and
 * engine choice, get_sqe until the SQ is full, submit counts, peek and
 * wait, peek_batch_cqe, cq_advance, dontfork, mlock_size, probes.
 */
#include <unistd.h>
#include "test.h"

static void t_engine_choice(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	char *saved;
	int ret;

	memset(&p, 0, sizeof(p));
	CHECK_EQ(anyring_queue_init_engine("bogus", 8, &ring, &p), -EINVAL);
	/* NULL: the engine ANYRING_ENGINE names (anyring.h) */
	saved = getenv("ANYRING_ENGINE");
	saved = saved ? strdup(saved) : NULL;
	setenv("ANYRING_ENGINE", t_engine(), 1);
	ret = anyring_queue_init_engine(NULL, 8, &ring, &p);
	CHECK(ret == 0 || ret == -EPERM || ret == -EACCES || ret == -ENOSYS);
	if (!ret) {
		CHECK(!strcmp(anyring_ring_engine(&ring), t_engine()));
		io_uring_queue_exit(&ring);
	}
	if (saved)
		setenv("ANYRING_ENGINE", saved, 1);
	else
		unsetenv("ANYRING_ENGINE");
	free(saved);
	memset(&p, 0, sizeof(p));
	/* the user engine: absent (-EOPNOTSUPP) or a working ring */
	ret = anyring_queue_init_engine("user", 8, &ring, &p);
	CHECK(ret == -EOPNOTSUPP || ret == 0);
	if (!ret) {
		CHECK(!strcmp(anyring_ring_engine(&ring), "user"));
		io_uring_queue_exit(&ring);
	}
	t_ring(&ring, 8, NULL);
	CHECK(!strcmp(anyring_ring_engine(&ring), t_engine()));
	io_uring_queue_exit(&ring);
}

static void t_sizes(void)
{
	struct io_uring_params p;
	struct io_uring ring;

	memset(&p, 0, sizeof(p));
	CHECK_EQ(anyring_queue_init_engine(t_engine(), 0, &ring, &p), -EINVAL);
	/* 6 rounds up to 8; the CQ is twice the SQ */
	t_ring(&ring, 6, &p);
	CHECK_EQ(p.sq_entries, 8);
	CHECK_EQ(p.cq_entries, 16);
	CHECK_EQ(ring.sq.ring_entries, 8);
	CHECK_EQ(ring.sq.ring_mask, 7);
	CHECK_EQ(ring.cq.ring_entries, 16);
	CHECK(ring.features & IORING_FEAT_NODROP);
	CHECK_EQ(ring.features, p.features);
	CHECK_EQ(ring.ring_fd, ring.enter_ring_fd);
	io_uring_queue_exit(&ring);
}

static void t_nop_round_trip(void)
{
	struct io_uring_cqe *cqe, *cqes[8];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	unsigned i, n;

	t_ring(&ring, 4, NULL);
	CHECK_EQ(io_uring_sq_space_left(&ring), 4);
	for (i = 0; i < 4; i++) {
		sqe = io_uring_get_sqe(&ring);
		CHECK(sqe);
		io_uring_prep_nop(sqe);
		sqe->user_data = 100 + i;
	}
	/* the SQ is full until submitted */
	CHECK(io_uring_get_sqe(&ring) == NULL);
	CHECK_EQ(io_uring_sq_ready(&ring), 4);
	CHECK_EQ(io_uring_submit(&ring), 4);
	CHECK_EQ(io_uring_submit(&ring), 0);

	CHECK_EQ(io_uring_wait_cqe_nr(&ring, &cqe, 4), 0);
	n = io_uring_peek_batch_cqe(&ring, cqes, 8);
	CHECK_EQ(n, 4);
	for (i = 0; i < n; i++) {
		CHECK_EQ(cqes[i]->user_data, 100 + i);
		CHECK_EQ(cqes[i]->res, 0);
	}
	CHECK_EQ(io_uring_peek_batch_cqe(&ring, cqes, 2), 2);
	io_uring_cq_advance(&ring, n);
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	CHECK_EQ(io_uring_peek_batch_cqe(&ring, cqes, 8), 0);

	/* submit_and_wait returns the number submitted */
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit_and_wait(&ring, 2), 2);
	CHECK_EQ(io_uring_cq_ready(&ring), 2);
	io_uring_cq_advance(&ring, 2);

	/* wait_cqe on a NOP submitted by submit_and_get_events */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, 7);
	CHECK_EQ(io_uring_submit_and_get_events(&ring), 1);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(io_uring_cqe_get_data64(cqe), 7);
	io_uring_cqe_seen(&ring, cqe);
	CHECK(io_uring_get_events(&ring) >= 0);
	io_uring_queue_exit(&ring);
}

static void t_misc(void)
{
	struct io_uring_probe *probe;
	struct io_uring ring;

	t_ring(&ring, 8, NULL);
	CHECK_EQ(io_uring_ring_dontfork(&ring), 0);
	probe = io_uring_get_probe_ring(&ring);
	CHECK(probe);
	CHECK(io_uring_opcode_supported(probe, IORING_OP_NOP));
	CHECK(!io_uring_opcode_supported(probe, 255));
	io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);

	memset(&ring, 0, sizeof(ring));
	CHECK_EQ(io_uring_ring_dontfork(&ring), -EINVAL);
	CHECK(io_uring_mlock_size(8, 0) >= 0);
	CHECK(io_uring_mlock_size(0, 0) <= 0);
}

int main(void)
{
	t_engine_choice();
	t_sizes();
	t_nop_round_trip();
	t_misc();
	return 0;
}
