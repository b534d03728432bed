/* SPDX-License-Identifier: MIT */
/*
 * diff_nop.c - IORING_OP_NOP (ops/nop.c): one, a batch of 32,
 * CQE_SKIP_SUCCESS, IOSQE_ASYNC, user_data passed through untouched, a
 * CQ overflowing (16 CQEs into a CQ of 8 before anything is reaped: with
 * NODROP all 16 must arrive, in order), NOP's own flags (an injected
 * result, unknown flags), and its 32-byte CQEs on CQE_MIXED, CQE32 and
 * plain rings.
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

/* ---- 32-byte CQEs (IORING_NOP_CQE32: off and addr in the second half) ---- */

#define T_NOP_CQE32	(1U << 5)	/* IORING_NOP_CQE32, 6.18 */
#define T_CQE_MIXED	(1U << 18)	/* IORING_SETUP_CQE_MIXED, 6.18 */
/*
 * A liburing that knows CQE_MIXED (IORING_CQE_F_32 in its header: 2.12
 * and later) reaps a 32-byte CQE as one and steps over the skip: 6 CQEs;
 * an older one sees the 16-byte slots: 12.
 */
#ifdef IORING_CQE_F_32
#define T_MIXED_CQES	6
#else
#define T_MIXED_CQES	12
#endif

static struct io_uring_sqe *prep_nop32(struct io_uring *ring,
				       struct diff_ctx *c, __u64 ud)
{
	struct io_uring_sqe *sqe = diff_prep_nop(ring, c, ud, 0);

	sqe->rw_flags = T_NOP_CQE32;
	sqe->off = 1000 + ud;
	sqe->addr = 2000 + ud;
	return sqe;
}

/*
 * A 16-byte CQE, then 32-byte ones up to the CQ's last slot, where a
 * SKIP CQE pads and the next 32-byte one overflows, to be flushed at
 * the start once reaped. With a liburing older than CQE_MIXED the harness
 * reads 16-byte slots: both engines' slots must match, second halves
 * and the skip included.
 */
static int fill_nop32_mixed(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0);
	prep_nop32(ring, c, 2);
	prep_nop32(ring, c, 3);
	prep_nop32(ring, c, 4);
	prep_nop32(ring, c, 5);
	prep_nop32(ring, c, 6);
	return 0;
}

/* a CQE32 ring: every CQE is 32 bytes, NOP's carry off and addr */
static int fill_nop32_big(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0);
	prep_nop32(ring, c, 2);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* a ring of 16-byte CQEs refuses it (-EINVAL) */
static int fill_nop32_plain(struct io_uring *ring, struct diff_ctx *c)
{
	prep_nop32(ring, c, 1);
	diff_prep_nop(ring, c, 2, 0);
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
		.name = "nop32_mixed_skip_overflow",
		.entries = 8,
		.cq_entries = 8,
		.setup_flags = T_CQE_MIXED,
		.fill = fill_nop32_mixed,
		.nr_cqes = T_MIXED_CQES,
		.order = ORDER_EXACT,
	}, {
		.name = "nop32_cqe32_ring",
		.setup_flags = IORING_SETUP_CQE32,
		.fill = fill_nop32_big,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
	}, {
		.name = "nop32_plain_ring",
		.fill = fill_nop32_plain,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 1, -EINVAL }, { 2, 0 } },
	}, {
		.name = "ops_nop_flags",
		.fill = fill_nop_flags,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
	},
	{ .name = NULL }
};
