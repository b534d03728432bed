/* SPDX-License-Identifier: MIT */
/*
 * diff_nop.c - IORING_OP_NOP (ops/nop.c): one, a batch of 32,
 * CQE_SKIP_SUCCESS, IOSQE_ASYNC, user_data passed through untouched, a
 * CQ overflowing (16 CQEs into a CQ of 8 before anything is reaped: with
 * NODROP all 16 must arrive, in order), and NOP's own flags (an injected
 * result, unknown flags).
 */
#include "harness.h"

static int fill_single(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0);
	return 0;
}

static int fill_batch32(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 32; i++)
		diff_prep_nop(ring, c, i, 0);
	return 0;
}

/* 1 and 3 succeed silently; only 2 posts */
static int fill_skip(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, IOSQE_CQE_SKIP_SUCCESS);
	return 0;
}

/* punted to the async workers: completion order is theirs */
static int fill_async(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 4; i++)
		diff_prep_nop(ring, c, i, IOSQE_ASYNC);
	return 0;
}

static int fill_user_data(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 0, 0);
	diff_prep_nop(ring, c, ~0ULL, 0);
	diff_prep_nop(ring, c, 1ULL << 63, 0);
	diff_prep_nop(ring, c, 0x0123456789abcdefULL, 0);
	return 0;
}

/* SQ of 4: diff_sqe() submits every 4, nothing is reaped in between */
static int fill_overflow(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 16; i++)
		diff_prep_nop(ring, c, i, 0);
	return 0;
}

/* ---- NOP's own flags ---- */

/* sqe->nop_flags (rw_flags): an unknown bit, then INJECT_RESULT (1) */
static int fill_nop_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_prep_nop(ring, c, 1, 0);
	sqe->rw_flags = (int)(1U << 30);
	sqe = diff_prep_nop(ring, c, 2, 0);
	sqe->rw_flags = 1;
	sqe->len = (__u32)-EPERM;
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

const struct scenario diff_nop[] = {
	{
		.name = "nop_single",
		.fill = fill_single,
		.nr_cqes = 1,
		.order = ORDER_EXACT,
		.known = { { 1, 0 } },
	}, {
		.name = "nop_batch32",
		.entries = 32,
		.fill = fill_batch32,
		.nr_cqes = 32,
		.order = ORDER_EXACT,
		.known = { { 1, 0 }, { 32, 0 } },
	}, {
		.name = "nop_cqe_skip_success",
		.fill = fill_skip,
		.nr_cqes = 1,
		.order = ORDER_EXACT,
		.known = { { 2, 0 } },
	}, {
		.name = "nop_async",
		.fill = fill_async,
		.nr_cqes = 4,
		.order = ORDER_ANY,
	}, {
		.name = "nop_user_data_passthrough",
		.fill = fill_user_data,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
	}, {
		.name = "nop_cq_overflow_nodrop",
		.entries = 4,
		.cq_entries = 8,
		.fill = fill_overflow,
		.nr_cqes = 16,
		.order = ORDER_EXACT,
		.known = { { 16, 0 } },
	}, {
		.name = "ops_nop_flags",
		.fill = fill_nop_flags,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
	},
	{ .name = NULL }
};
