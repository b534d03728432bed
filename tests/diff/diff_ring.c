/* SPDX-License-Identifier: MIT */
/*
 * diff_ring.c - the same kinds of requests on rings set up differently:
 * IORING_SETUP_SUBMIT_ALL (a refused SQE no longer ends the submit),
 * SINGLE_ISSUER|DEFER_TASKRUN (completions run only when the task waits),
 * COOP_TASKRUN|TASKRUN_FLAG, SQPOLL, and CLAMP of an oversized ring.
 */
#include "harness.h"

/*
 * An unknown opcode and unknown SQE flags amid NOPs: with SUBMIT_ALL one
 * submit takes all five, without it each refusal ends a submit.
 */
static int fill_refused_amid_nops(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_nop(ring, c, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_nop(sqe);
	diff_tag(sqe, 2, 0);
	sqe->opcode = 250;
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, 1U << 7);
	diff_prep_nop(ring, c, 5, 0);
	return 0;
}

/*
 * An empty pipe: a read and its cancel; a read under a 10 ms link timeout.
 * Also diff_cfg.c's, on an SQPOLL ring.
 */
int diff_fill_pipe_mix(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	diff_prep_read(ring, c, 1, p[0], 64, 0, 0);
	diff_prep_cancel(ring, c, 2, 1, 0);
	diff_prep_read(ring, c, 3, p[0], 64, 0, IOSQE_IO_LINK);
	diff_ts(c, 0, 10);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

/* a failing chain and a drain */
static int fill_chain_mix(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 2, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 5, IOSQE_IO_DRAIN);
	return 0;
}

static int fill_nops8(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 8; i++)
		diff_prep_nop(ring, c, i, 0);
	return 0;
}

const struct scenario diff_ring[] = {
	{
		.name = "ring_submit_all",
		.setup_flags = IORING_SETUP_SUBMIT_ALL,
		.fill = fill_refused_amid_nops,
		.nr_cqes = 5,
		.known = { { 1, 0 }, { 2, -EINVAL }, { 3, 0 }, { 4, -EINVAL },
			   { 5, 0 } },
	}, {
		.name = "ring_refused_sqes_without_submit_all",
		.fill = fill_refused_amid_nops,
		.after_submit = diff_submit_rest,
		.nr_cqes = 5,
	}, {
		.name = "ring_defer_taskrun_pipe",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.fill = diff_fill_pipe_mix,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 4, 3 } },
		.known = { { 1, -ECANCELED }, { 2, 0 }, { 3, -ECANCELED },
			   { 4, -ETIME } },
	}, {
		.name = "ring_defer_taskrun_chain",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.fill = fill_chain_mix,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 4, 5 }, { 3, 5 } },
	}, {
		.name = "ring_coop_taskrun_pipe",
		.setup_flags = IORING_SETUP_COOP_TASKRUN |
			       IORING_SETUP_TASKRUN_FLAG,
		.fill = diff_fill_pipe_mix,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 4, 3 } },
	}, {
		.name = "ring_sqpoll_nops",
		.setup_flags = IORING_SETUP_SQPOLL,
		.fill = fill_nops8,
		.nr_cqes = 8,
	}, {
		.name = "ring_clamp_oversized",
		.entries = 1U << 20,
		.setup_flags = IORING_SETUP_CLAMP,
		.fill = fill_chain_mix,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 4, 5 }, { 3, 5 } },
	},
	{ .name = NULL }
};
