/* SPDX-License-Identifier: MIT */
/*
 * diff_timeout.c - IORING_OP_TIMEOUT (relative, absolute, count based,
 * ETIME_SUCCESS, bad arguments), TIMEOUT_REMOVE and its update form, and
 * LINK_TIMEOUT guarding a read on an empty pipe: firing, or cancelled
 * because the read completed. Timeouts are 10-30 ms so the whole family
 * runs in well under a second.
 */
#include <time.h>
#include <unistd.h>
#include "harness.h"

#define LONG_MS		3000	/* never meant to fire */

static int fill_fires(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	return 0;
}

/* fire in the order of their expiry, not of submission */
static int fill_expiry_order(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 30);
	diff_ts(c, 1, 10);
	diff_ts(c, 2, 20);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	diff_prep_timeout(ring, c, 2, 1, 0, 0, 0);
	diff_prep_timeout(ring, c, 3, 2, 0, 0, 0);
	return 0;
}

/* a deadline a second in the past on CLOCK_MONOTONIC */
static int fill_abs_past(struct io_uring *ring, struct diff_ctx *c)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	c->ts[0].tv_sec = now.tv_sec - 1;
	c->ts[0].tv_nsec = now.tv_nsec;
	diff_prep_timeout(ring, c, 1, 0, 0, IORING_TIMEOUT_ABS, 0);
	return 0;
}

/* count 2: the two NOPs satisfy it long before it expires */
static int fill_count(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 2, 0, 0);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* count 3 with one NOP: expires */
static int fill_count_short(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 3, 0, 0);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

/* the kernel posts the removed timeout's CQE after the remove's */
static int fill_remove(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 1, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 99, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

/* 1 is pushed from 3 s to 10 ms; updating a missing one fails */
static int fill_update(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, LONG_MS);
	diff_ts(c, 1, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_update(sqe, &c->ts[1], 1, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_update(sqe, &c->ts[1], 99, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

/* the expiry fails the link unless IORING_TIMEOUT_ETIME_SUCCESS */
static int fill_etime_link(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_timeout(ring, c, 3, 0, 0, IORING_TIMEOUT_ETIME_SUCCESS,
			  IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/*
 * len must be 1; unknown flags; two clocks at once. The kernel refuses
 * each while reading the SQE, which ends the submit: one per submit.
 */
static int fill_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 10);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	sqe->len = 2;
	diff_tag(sqe, 1, 0);
	diff_prep_timeout(ring, c, 2, 0, 0, 1U << 7, 0);
	diff_prep_timeout(ring, c, 3, 0, 0, IORING_TIMEOUT_BOOTTIME |
			  IORING_TIMEOUT_REALTIME, 0);
	return 0;
}

/* val[0], val[1]: an empty pipe; read 1 guarded by link timeout 2 */
static int fill_guarded_read(struct io_uring *ring, struct diff_ctx *c,
			     long long ms, unsigned lt_flags)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	c->val[0] = p[0];
	c->val[1] = p[1];
	diff_ts(c, 0, ms);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, p[0], c->buf[0], 64, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, lt_flags);
	return 0;
}

static int fill_lt_fires(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_guarded_read(ring, c, 10, 0);
}

static int fill_lt_idle(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_guarded_read(ring, c, LONG_MS, 0);
}

/* data already there: the read completes at once */
static int fill_lt_ready(struct io_uring *ring, struct diff_ctx *c)
{
	if (fill_guarded_read(ring, c, LONG_MS, 0))
		return -1;
	return diff_feed_pipe(ring, c);
}

/* the link timeout is itself linked on: what follows is cancelled too */
static int fill_lt_chain(struct io_uring *ring, struct diff_ctx *c)
{
	if (fill_guarded_read(ring, c, 10, IOSQE_IO_LINK))
		return -1;
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* a LINK_TIMEOUT that follows no linked request */
static int fill_lt_alone(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 10);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 1, 0);
	return 0;
}

/*
 * A request whose file is not there (a closed fd, or an empty slot), a
 * LINK_TIMEOUT already due behind it, a NOP after that: the kernel looks
 * the file up before it arms the timer, so the request fails -EBADF and
 * the link timeout and the NOP are cancelled, inline or from io-wq.
 */
static int fill_lt_due_bad_file(struct io_uring *ring, struct diff_ctx *c,
				int op, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	if (flags & IOSQE_FIXED_FILE) {
		int ret = io_uring_register_files_sparse(ring, 2);

		if (ret)
			return diff_fail(c, "register files: %s",
					 strerror(-ret));
	}
	if (op == IORING_OP_FSYNC)
		io_uring_prep_fsync(sqe, -1, 0);
	else
		io_uring_prep_read(sqe, flags & IOSQE_FIXED_FILE ? 1 : 9999,
				   c->buf[0], 64, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK | flags);
	diff_ts(c, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_lt_due_closed_fd(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_lt_due_bad_file(ring, c, IORING_OP_READ, 0);
}

static int fill_lt_due_closed_fd_async(struct io_uring *ring,
				       struct diff_ctx *c)
{
	return fill_lt_due_bad_file(ring, c, IORING_OP_FSYNC, IOSQE_ASYNC);
}

static int fill_lt_due_empty_slot(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_lt_due_bad_file(ring, c, IORING_OP_READ, IOSQE_FIXED_FILE);
}

const struct scenario diff_timeout[] = {
	{
		.name = "timeout_fires",
		.fill = fill_fires,
		.nr_cqes = 1,
		.known = { { 1, -ETIME } },
	}, {
		.name = "timeout_expiry_order",
		.fill = fill_expiry_order,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 3 }, { 3, 1 } },
		.known = { { 1, -ETIME }, { 2, -ETIME }, { 3, -ETIME } },
	}, {
		.name = "timeout_abs_in_the_past",
		.fill = fill_abs_past,
		.nr_cqes = 1,
		.known = { { 1, -ETIME } },
	}, {
		.name = "timeout_count_satisfied",
		.fill = fill_count,
		.nr_cqes = 3,
		.known = { { 1, 0 } },
	}, {
		.name = "timeout_count_not_reached",
		.fill = fill_count_short,
		.nr_cqes = 2,
		.known = { { 1, -ETIME } },
	}, {
		.name = "timeout_remove",
		.fill = fill_remove,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 1 } },
		.known = { { 1, -ECANCELED }, { 2, 0 }, { 3, -ENOENT } },
	}, {
		.name = "timeout_update",
		.fill = fill_update,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 1 } },
		.known = { { 1, -ETIME }, { 2, 0 }, { 3, -ENOENT } },
	}, {
		.name = "timeout_etime_success_in_link",
		.fill = fill_etime_link,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 3, 4 } },
		.known = { { 2, -ECANCELED }, { 3, -ETIME }, { 4, 0 } },
	}, {
		.name = "timeout_bad_arguments",
		.fill = fill_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.known = { { 1, -EINVAL }, { 2, -EINVAL }, { 3, -EINVAL } },
	}, {
		.name = "link_timeout_fires",
		.fill = fill_lt_fires,
		.nr_cqes = 2,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "link_timeout_read_completes",
		.fill = fill_lt_idle,
		.after_submit = diff_feed_pipe,
		.nr_cqes = 2,
		.known = { { 1, 5 }, { 2, -ECANCELED } },
	}, {
		.name = "link_timeout_read_ready_at_submit",
		.fill = fill_lt_ready,
		.nr_cqes = 2,
		.known = { { 1, 5 } },
	}, {
		.name = "link_timeout_chained_on",
		.fill = fill_lt_chain,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 3 } },
		.known = { { 1, -ECANCELED }, { 2, -ETIME },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_due_closed_fd",
		.fill = fill_lt_due_closed_fd,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_due_closed_fd_async",
		.fill = fill_lt_due_closed_fd_async,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_due_empty_slot",
		.fill = fill_lt_due_empty_slot,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_without_head",
		.fill = fill_lt_alone,
		.nr_cqes = 1,
		.known = { { 1, -EINVAL } },
	},
	{ .name = NULL }
};
