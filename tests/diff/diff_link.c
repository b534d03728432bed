/* SPDX-License-Identifier: MIT */
/*
 * diff_link.c - IOSQE_IO_LINK, IOSQE_IO_HARDLINK and IOSQE_IO_DRAIN: a
 * chain of NOPs, a failure in the middle cancelling the rest, short reads
 * (file and pipe) breaking a chain, hard links carrying on, an invalid SQE
 * inside a chain, a chain left open at the end of a submit, chains with
 * CQE_SKIP_SUCCESS and ASYNC, and drains waiting for what came before.
 * Links and drains fix the order, so most of these compare exactly.
 */
#include <fcntl.h>
#include <unistd.h>
#include "harness.h"

static int fill_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

static int fill_fail_middle(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 2, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	diff_prep_nop(ring, c, 5, 0);	/* not in the chain */
	return 0;
}

/* val[0]: "small", 100 bytes */
static int setup_small(struct diff_ctx *c)
{
	char p[100];

	diff_pattern(p, sizeof(p), 1);
	c->val[0] = diff_file(c, "small", p, sizeof(p), O_RDONLY);
	return c->val[0] < 0 ? -1 : 0;
}

/* 1 is short: 2 is cancelled; 3 reads exactly the 100 bytes: 4 runs */
static int fill_short_file(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 4096, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_read(ring, c, 3, c->val[0], 100, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

static int fill_short_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	if (write(p[1], "0123456789", 10) != 10)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	diff_prep_read(ring, c, 1, p[0], 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int fill_hardlink(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, -1, 64, 0, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_HARDLINK);
	diff_prep_read(ring, c, 3, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/*
 * The kernel keeps assembling the chain past the invalid SQE and fails all
 * of it: 1 (never run) and 3, 4 get -ECANCELED, 2 -EINVAL; the submit does
 * not stop there (compare err_failed_sqe_ends_submit), 5 runs.
 */
static int fill_invalid_in_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK)->opcode = 250;
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	diff_prep_nop(ring, c, 5, 0);
	return 0;
}

/*
 * The last SQE of the submit still says LINK. The kernel ends the chain
 * there and hands it to its async workers, so it may well complete after
 * the chain of the next submit.
 */
static int fill_open_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK);
	return 0;
}

/* the next submit starts a chain of its own */
static int second_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 3, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

static int fill_skip_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/*
 * A failing request with CQE_SKIP_SUCCESS posts its own CQE, but the
 * kernel then skips the CQEs of every request its failure cancels, 3
 * (no SKIP flag) included.
 */
static int fill_skip_fail(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_read(ring, c, 2, -1, 64, 0,
		       IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 5, 0);
	return 0;
}

/* a failure without SKIP: the cancelled post, SKIP_SUCCESS or not */
static int fill_skip_cancelled(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_async_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK | IOSQE_ASYNC);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK | IOSQE_ASYNC);
	diff_prep_nop(ring, c, 3, IOSQE_ASYNC);
	return 0;
}

/* the drained NOP waits for the 20 ms timeout before it; so does 3 */
static int fill_drain_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 20);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	diff_tag(sqe, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_drain_nops(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 3, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* a drained chain: starts after 1, its members in order */
static int fill_drain_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN | IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

static int fill_write_read(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int fd = diff_file(c, "out", NULL, 0, O_RDWR);

	if (fd < 0)
		return -1;
	diff_pattern(c->buf[0], 3000, 7);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, fd, c->buf[0], 3000, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, fd, c->buf[1], 4096, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

static int check_write_read(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[1], c->buf[0], 3000, "read back");
}

/*
 * A log's write: WRITE with CQE_SKIP_SUCCESS linked to FSYNC(DATASYNC),
 * then a read back. flags are the write's extra flags (IOSQE_ASYNC: a
 * worker on every file system); rdonly: the write fails (-EBADF) and
 * posts its CQE; the CQEs of the requests its failure cancels are
 * skipped too, as in link_skip_success_on_failed_request.
 */
static int fill_log(struct io_uring *ring, struct diff_ctx *c,
		    unsigned flags, bool rdonly)
{
	struct io_uring_sqe *sqe;
	int fd = diff_file(c, "log", NULL, 0, rdonly ? O_RDONLY : O_RDWR);

	if (fd < 0)
		return -1;
	diff_pattern(c->buf[0], 4096, 11);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, fd, c->buf[0], 4096, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS | flags);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, fd, c->buf[1], 4096, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

static int fill_log_write(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_log(ring, c, 0, false);
}

static int fill_log_write_async(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_log(ring, c, IOSQE_ASYNC, false);
}

static int fill_log_write_fails(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_log(ring, c, IOSQE_ASYNC, true);
}

static int check_log(struct diff_ctx *c, const struct diff_cqe *cqe,
		     unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[1], c->buf[0], 4096, "log read back");
}

#define DIFF_DEFER	(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)

const struct scenario diff_link[] = {
	{
		.name = "link_nop_chain",
		.fill = fill_chain,
		.nr_cqes = 4,
	}, {
		.name = "link_failure_cancels_rest",
		.fill = fill_fail_middle,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
		.known = { { 1, 0 }, { 2, -EBADF }, { 3, -ECANCELED },
			   { 4, -ECANCELED }, { 5, 0 } },
	}, {
		.name = "link_short_file_read_breaks",
		.setup = setup_small,
		.fill = fill_short_file,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 3, 4 } },
		.known = { { 1, 100 }, { 3, 100 }, { 4, 0 } },
	}, {
		.name = "link_short_pipe_read_breaks",
		.fill = fill_short_pipe,
		.nr_cqes = 2,
	}, {
		.name = "link_hardlink_continues",
		.fill = fill_hardlink,
		.nr_cqes = 4,
		.known = { { 1, -EBADF }, { 2, 0 }, { 4, -ECANCELED } },
	}, {
		.name = "link_invalid_sqe_in_chain",
		.fill = fill_invalid_in_chain,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
	}, {
		.name = "link_left_open_at_submit_end",
		.fill = fill_open_chain,
		.after_submit = second_chain,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 3, 4 } },
	}, {
		.name = "link_skip_success_chain",
		.fill = fill_skip_chain,
		.nr_cqes = 1,
	}, {
		.name = "link_skip_success_on_failed_request",
		.fill = fill_skip_fail,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 2, -EBADF }, { 5, 0 } },
	}, {
		.name = "link_skip_success_on_cancelled_request",
		.fill = fill_skip_cancelled,
		.nr_cqes = 3,
		.known = { { 1, -EBADF }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_async_chain",
		.fill = fill_async_chain,
		.nr_cqes = 3,
	}, {
		.name = "link_write_fsync_read",
		.fill = fill_write_read,
		.check = check_write_read,
		.nr_cqes = 3,
		.known = { { 1, 3000 }, { 3, 3000 } },
	}, {
		.name = "link_log_write_fsync_defer",
		.setup_flags = DIFF_DEFER,
		.fill = fill_log_write,
		.check = check_log,
		.nr_cqes = 2,
		.known = { { 2, 0 }, { 3, 4096 } },
	}, {
		.name = "link_log_write_async_fsync",
		.fill = fill_log_write_async,
		.check = check_log,
		.nr_cqes = 2,
		.known = { { 2, 0 }, { 3, 4096 } },
	}, {
		.name = "link_log_write_async_fsync_defer",
		.setup_flags = DIFF_DEFER,
		.fill = fill_log_write_async,
		.check = check_log,
		.nr_cqes = 2,
		.known = { { 2, 0 }, { 3, 4096 } },
	}, {
		.name = "link_log_write_fails_defer",
		.setup_flags = DIFF_DEFER,
		.fill = fill_log_write_fails,
		.nr_cqes = 1,
		.known = { { 1, -EBADF } },
	}, {
		.name = "drain_waits_for_timeout",
		.fill = fill_drain_timeout,
		.nr_cqes = 3,
		.known = { { 1, -ETIME } },
	}, {
		.name = "drain_after_async",
		.fill = fill_drain_nops,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 3 }, { 2, 3 }, { 3, 4 } },
	}, {
		.name = "drain_chain",
		.fill = fill_drain_chain,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
	},
	{ .name = NULL }
};
