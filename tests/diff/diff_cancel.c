/* SPDX-License-Identifier: MIT */
/*
 * diff_cancel.c - IORING_OP_ASYNC_CANCEL against reads waiting on empty
 * pipes: by user_data (in the same submit and a later one), of a missing
 * or already completed request, by fd (plain and fixed), with
 * IORING_ASYNC_CANCEL_ALL and _ANY, of a pending timeout, with unknown
 * flags; of reads from a batch large enough for the user engine's
 * issue=spread helper to share, in the next submit and in the same one. A cancelled read completes with -ECANCELED; the cancel with 0,
 * the number cancelled (with ALL or ANY) or -ENOENT. Cancellations complete
 * through deferred work, so most compare as multisets.
 */
#include <unistd.h>
#include "harness.h"

static int fill_read_a(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	return 0;
}

/* after the read went to wait on the pipe */
static int cancel_read_a(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

static int fill_same_submit(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/*
 * 99 was never submitted; 1 has completed by the time 2 looks. With ALL a
 * cancel that finds nothing returns 0 (the count), not -ENOENT.
 */
static int fill_missing(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_cancel(ring, c, 2, 1, 0);
	diff_prep_cancel(ring, c, 3, 99, 0);
	diff_prep_cancel(ring, c, 4, 99, IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/* by fd: only pipe A's read; B's is cancelled by user_data after */
static int fill_by_fd(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[2], 64, 0, 0);
	diff_prep_cancel_fd(ring, c, 3, c->val[0], 0);
	diff_prep_cancel(ring, c, 4, 2, 0);
	return 0;
}

/* three reads on A, one on B: FD|ALL takes A's three (res 3) */
static int fill_fd_all(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 3, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 4, c->val[2], 64, 0, 0);
	diff_prep_cancel_fd(ring, c, 5, c->val[0], IORING_ASYNC_CANCEL_ALL);
	diff_prep_cancel(ring, c, 6, 4, 0);
	return 0;
}

/* two reads sharing user_data 7: ALL cancels both (res 2) */
static int fill_ud_all(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 7, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 7, c->val[2], 64, 0, 0);
	diff_prep_cancel(ring, c, 8, 7, IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/* ANY|ALL: every pending request, whatever its user_data (res 3) */
static int fill_any_all(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[2], 64, 0, 0);
	diff_prep_read(ring, c, 3, c->val[2], 64, 0, 0);
	diff_prep_cancel(ring, c, 4, 0,
			 IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/*
 * ANY alone: the kernel treats it as ANY|ALL (res 2). A second ANY in the
 * next submit finds nothing: res 0, a count like ALL's. (Two ANY cancels
 * in one submit both report 2 on Linux 6.18: the cancelled reads stay
 * findable until their deferred completion runs. Not tested: an
 * artifact, not a contract.)
 */
static int fill_any(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[2], 64, 0, 0);
	diff_prep_cancel(ring, c, 3, 0, IORING_ASYNC_CANCEL_ANY);
	return 0;
}

static int cancel_any_again(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 4, 0, IORING_ASYNC_CANCEL_ANY);
	return 0;
}

/* slot 0 of the file table is pipe A's read end */
static int fill_fd_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int ret = io_uring_register_files(ring, &c->val[0], 1);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	diff_prep_read(ring, c, 1, 0, 64, 0, IOSQE_FIXED_FILE);
	diff_prep_cancel_fd(ring, c, 2, 0, IORING_ASYNC_CANCEL_FD_FIXED);
	return 0;
}

static int fill_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 3000);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	diff_tag(sqe, 1, 0);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* an unknown cancel flag: refused while reading the SQE */
static int fill_bad_flags(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 1, 1, 1U << 20);
	return 0;
}

/* a batch issue=spread shares: 16 reads on pipe A */
static int fill_spread_batch(struct io_uring *ring, struct diff_ctx *c)
{
	for (__u64 ud = 1; ud <= 16; ud++)
		diff_prep_read(ring, c, ud, c->val[0], 64, 0, 0);
	return 0;
}

/* right after the submit returns, each read is found: last one first */
static int cancel_spread_batch(struct io_uring *ring, struct diff_ctx *c)
{
	for (__u64 ud = 16; ud >= 1; ud--)
		diff_prep_cancel(ring, c, 100 + ud, ud, 0);
	return 0;
}

/*
 * Cancels inside such a batch see the reads before them issued and none
 * after: 21 and 22 find reads 12 and 1 (0), 23 does not find read 30,
 * which follows it (-ENOENT); the next submit's cancels by fd count what
 * is left on each pipe.
 */
static int fill_spread_same(struct io_uring *ring, struct diff_ctx *c)
{
	for (__u64 ud = 1; ud <= 12; ud++)
		diff_prep_read(ring, c, ud, c->val[0], 64, 0, 0);
	diff_prep_cancel(ring, c, 21, 12, 0);
	diff_prep_cancel(ring, c, 22, 1, 0);
	diff_prep_cancel(ring, c, 23, 30, 0);
	for (__u64 ud = 30; ud < 40; ud++)
		diff_prep_read(ring, c, ud, c->val[2], 64, 0, 0);
	return 0;
}

static int cancel_spread_rest(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel_fd(ring, c, 41, c->val[0], IORING_ASYNC_CANCEL_ALL);
	diff_prep_cancel_fd(ring, c, 42, c->val[2], IORING_ASYNC_CANCEL_ALL);
	return 0;
}

const struct scenario diff_cancel[] = {
	{
		.name = "cancel_by_user_data",
		.setup = diff_setup_pipes,
		.fill = fill_read_a,
		.after_submit = cancel_read_a,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_in_same_submit",
		.setup = diff_setup_pipes,
		.fill = fill_same_submit,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_missing_or_completed",
		.fill = fill_missing,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, -ENOENT }, { 3, -ENOENT } },
	}, {
		.name = "cancel_by_fd",
		.setup = diff_setup_pipes,
		.fill = fill_by_fd,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ECANCELED }, { 3, 0 },
			   { 4, 0 } },
	}, {
		.name = "cancel_fd_all",
		.setup = diff_setup_pipes,
		.fill = fill_fd_all,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 5, 3 }, { 6, 0 } },
	}, {
		.name = "cancel_user_data_all",
		.setup = diff_setup_pipes,
		.fill = fill_ud_all,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 8, 2 } },
	}, {
		.name = "cancel_any_all",
		.setup = diff_setup_pipes,
		.fill = fill_any_all,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 4, 3 } },
	}, {
		.name = "cancel_any",
		.setup = diff_setup_pipes,
		.fill = fill_any,
		.after_submit = cancel_any_again,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 3, 2 }, { 4, 0 } },
	}, {
		.name = "cancel_fd_fixed",
		.setup = diff_setup_pipes,
		.fill = fill_fd_fixed,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_pending_timeout",
		.fill = fill_timeout,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_after_spread_batch",
		.entries = 32,
		.setup = diff_setup_pipes,
		.fill = fill_spread_batch,
		.after_submit = cancel_spread_batch,
		.nr_cqes = 32,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 16, -ECANCELED }, { 101, 0 },
			   { 116, 0 } },
	}, {
		.name = "cancel_inside_spread_batch",
		.entries = 32,
		.setup = diff_setup_pipes,
		.fill = fill_spread_same,
		.after_submit = cancel_spread_rest,
		.nr_cqes = 27,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 12, -ECANCELED }, { 21, 0 },
			   { 22, 0 }, { 23, -ENOENT }, { 30, -ECANCELED },
			   { 41, 10 }, { 42, 10 } },
	}, {
		.name = "cancel_unknown_flags",
		.fill = fill_bad_flags,
		.nr_cqes = 1,
		.known = { { 1, -EINVAL } },
	},
	{ .name = NULL }
};
