/* SPDX-License-Identifier: MIT */
/*
 * diff_link.c - links: IOSQE_IO_LINK and IOSQE_IO_HARDLINK, assembled at
 * submit (submit.c) and followed at completion (complete.c): a chain of
 * NOPs, a failure in the middle cancelling the rest, short reads (file
 * and pipe) breaking a chain, hard links carrying on, an invalid SQE
 * inside a chain, a chain left open at the end of a submit, chains with
 * CQE_SKIP_SUCCESS and ASYNC, a log's write, fsync and read back (also
 * on DEFER_TASKRUN rings). Then longer chains: 32 linked NOPs, a chain
 * longer than the SQ (cut by the submit), hard-linked chains with the
 * failure at the first, a middle and the last position, hard and soft
 * links mixed, IOSQE_ASYNC members, chains of timeouts, two chains side
 * by side, and chains moving data through registered files (and an empty
 * slot). Links fix the order, so most of these compare exactly. Which
 * opcodes' errors break a link: diff_opdef.c.
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

/* ---- longer chains, hard links, chains of timeouts and copies ---- */

#define CHAIN	6	/* members of the hard-linked chains */

static int fill_nops32(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 32; i++)
		diff_prep_nop(ring, c, i, i < 32 ? IOSQE_IO_LINK : 0);
	return 0;
}

/* 12 linked NOPs through an SQ of 8: the first submit ends the chain */
static int fill_longer_than_sq(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 12; i++)
		diff_prep_nop(ring, c, i, i < 12 ? IOSQE_IO_LINK : 0);
	return 0;
}

/* CHAIN hard-linked members; those in fail_mask (bit i: ud i+1) fail */
static int fill_hard(struct io_uring *ring, struct diff_ctx *c,
		     unsigned fail_mask)
{
	unsigned i, flags;

	for (i = 0; i < CHAIN; i++) {
		flags = i + 1 < CHAIN ? IOSQE_IO_HARDLINK : 0;
		if (fail_mask & (1U << i))
			diff_prep_read(ring, c, i + 1, -1, 64, 0, flags);
		else
			diff_prep_nop(ring, c, i + 1, flags);
	}
	return 0;
}

static int fill_hard_first(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_hard(ring, c, 1U << 0);
}

static int fill_hard_middle(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_hard(ring, c, 1U << 2);
}

static int fill_hard_last(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_hard(ring, c, 1U << (CHAIN - 1));
}

static int fill_hard_all(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_hard(ring, c, (1U << CHAIN) - 1);
}

/* 1 fails under a hard link: 2 runs; 2 fails under a soft one: 3, 4 go */
static int fill_hard_then_soft(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, -1, 64, 0, IOSQE_IO_HARDLINK);
	diff_prep_read(ring, c, 2, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* the soft link fails first: hard links behind it do not save the rest */
static int fill_soft_then_hard(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 3, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/*
 * A hard-linked head refused at submit (unknown opcode): the chain was
 * never started, so nothing behind it runs, hard link or not.
 */
static int fill_hard_head_refused(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_HARDLINK)->opcode = 250;
	diff_prep_nop(ring, c, 2, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* the same refusal in the middle of a hard-linked chain */
static int fill_hard_middle_refused(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_HARDLINK)->opcode = 250;
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* a failing hard-linked member with CQE_SKIP_SUCCESS, silent members after */
static int fill_hard_skip(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, -1, 64, 0,
		       IOSQE_IO_HARDLINK | IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 2, IOSQE_IO_HARDLINK | IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 3, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

static int fill_async_fail(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK | IOSQE_ASYNC);
	diff_prep_read(ring, c, 2, -1, 64, 0, IOSQE_IO_LINK | IOSQE_ASYNC);
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK | IOSQE_ASYNC);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* val[0]: "src", 8192 bytes of pattern seed 3; val[1]: "dst", empty */
static int setup_copy(struct diff_ctx *c)
{
	static char p[8192];

	diff_pattern(p, sizeof(p), 3);
	c->val[0] = diff_file(c, "src", p, sizeof(p), O_RDONLY);
	c->val[1] = diff_file(c, "dst", NULL, 0, O_RDWR);
	return c->val[0] < 0 || c->val[1] < 0 ? -1 : 0;
}

/* read src, write dst, fsync, read it back: async members in a chain */
static int fill_async_copy(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_read(ring, c, 1, c->val[0], 4096, 4096,
		       IOSQE_IO_LINK | IOSQE_ASYNC);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[1], c->buf[1], 4096, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK | IOSQE_ASYNC);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fsync(sqe, c->val[1], 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 4, c->val[1], 4096, 0, IOSQE_ASYNC);
	return 0;
}

static int check_copy(struct diff_ctx *c, const struct diff_cqe *cqe,
		      unsigned nr)
{
	static char p[8192];

	(void)cqe;
	(void)nr;
	diff_pattern(p, sizeof(p), 3);
	if (diff_check_buf(c, c->buf[0], p + 4096, 4096, "read back"))
		return -1;
	return diff_check_file(c, "dst", p + 4096, 4096);
}

/* the table: [src, -1, dst] */
static int reg_copy_files(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[3] = { c->val[0], -1, c->val[1] };
	int ret = io_uring_register_files(ring, fds, 3);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	return 0;
}

/* the same copy through slots 0 and 2, plain and fixed members mixed */
static int fill_fixed_copy(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (reg_copy_files(ring, c))
		return -1;
	diff_prep_read(ring, c, 1, 0, 4096, 4096,
		       IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, 2, c->buf[1], 4096, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fsync(sqe, 2, IORING_FSYNC_DATASYNC);
	diff_tag(sqe, 3, IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	diff_prep_read(ring, c, 4, c->val[1], 4096, 0, 0);
	return 0;
}

/* slot 1 is empty: the read from it fails and takes the rest with it */
static int fill_fixed_hole(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (reg_copy_files(ring, c))
		return -1;
	diff_prep_read(ring, c, 1, 0, 100, 0, IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	diff_prep_read(ring, c, 2, 1, 100, 0, IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, 2, c->buf[1], 100, 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

static int check_dst_empty(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_file(c, "dst", NULL, 0);
}

/* two 10 ms timeouts in a chain, both ETIME_SUCCESS: 20 ms, then the NOP */
static int fill_timeout_chain(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 10);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, IORING_TIMEOUT_ETIME_SUCCESS);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, IORING_TIMEOUT_ETIME_SUCCESS);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* chain A waits on an empty pipe, chain B runs meanwhile */
static int fill_side_by_side(struct io_uring *ring, struct diff_ctx *c)
{
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	c->val[0] = p[0];
	c->val[1] = p[1];
	diff_prep_read(ring, c, 1, p[0], 5, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 5, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 6, 0);
	return 0;
}

/* B's three CQEs are there before A is fed */
static int feed_after_b(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 3))
		return -1;
	return diff_feed_pipe(ring, c);
}

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
		.name = "chain_32_nops",
		.entries = 32,
		.fill = fill_nops32,
		.nr_cqes = 32,
		.known = { { 1, 0 }, { 32, 0 } },
	}, {
		.name = "chain_longer_than_sq",
		.fill = fill_longer_than_sq,
		.nr_cqes = 12,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 8 }, { 9, 10 }, { 10, 12 } },
		.known = { { 8, 0 }, { 12, 0 } },
	}, {
		.name = "chain_hardlink_fail_first",
		.fill = fill_hard_first,
		.nr_cqes = CHAIN,
		.known = { { 1, -EBADF }, { CHAIN, 0 } },
	}, {
		.name = "chain_hardlink_fail_middle",
		.fill = fill_hard_middle,
		.nr_cqes = CHAIN,
		.known = { { 3, -EBADF }, { CHAIN, 0 } },
	}, {
		.name = "chain_hardlink_fail_last",
		.fill = fill_hard_last,
		.nr_cqes = CHAIN,
		.known = { { CHAIN, -EBADF } },
	}, {
		.name = "chain_hardlink_all_fail",
		.fill = fill_hard_all,
		.nr_cqes = CHAIN,
		.known = { { 1, -EBADF }, { CHAIN, -EBADF } },
	}, {
		.name = "chain_hard_then_soft_failure",
		.fill = fill_hard_then_soft,
		.nr_cqes = 4,
		.known = { { 1, -EBADF }, { 2, -EBADF }, { 3, -ECANCELED },
			   { 4, -ECANCELED } },
	}, {
		.name = "chain_soft_failure_then_hard",
		.fill = fill_soft_then_hard,
		.nr_cqes = 4,
		.known = { { 1, -EBADF }, { 4, -ECANCELED } },
	}, {
		.name = "chain_hardlink_head_refused_at_submit",
		.fill = fill_hard_head_refused,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
		.known = { { 1, -EINVAL }, { 2, -ECANCELED }, { 3, -ECANCELED },
			   { 4, 0 } },
	}, {
		.name = "chain_hardlink_member_refused_at_submit",
		.fill = fill_hard_middle_refused,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
		.known = { { 1, -ECANCELED }, { 2, -EINVAL }, { 3, -ECANCELED },
			   { 4, 0 } },
	}, {
		.name = "chain_hardlink_skip_success",
		.fill = fill_hard_skip,
		.nr_cqes = 3,
		.known = { { 1, -EBADF } },
	}, {
		.name = "chain_async_member_fails",
		.fill = fill_async_fail,
		.nr_cqes = 4,
		.known = { { 2, -EBADF }, { 3, -ECANCELED } },
	}, {
		.name = "chain_async_copy",
		.setup = setup_copy,
		.fill = fill_async_copy,
		.check = check_copy,
		.nr_cqes = 4,
		.known = { { 1, 4096 }, { 2, 4096 }, { 3, 0 }, { 4, 4096 } },
	}, {
		.name = "chain_fixed_file_copy",
		.setup = setup_copy,
		.fill = fill_fixed_copy,
		.check = check_copy,
		.nr_cqes = 4,
		.known = { { 1, 4096 }, { 2, 4096 }, { 3, 0 }, { 4, 4096 } },
	}, {
		.name = "chain_fixed_file_empty_slot",
		.setup = setup_copy,
		.fill = fill_fixed_hole,
		.check = check_dst_empty,
		.nr_cqes = 4,
		.known = { { 1, 100 }, { 2, -EBADF }, { 3, -ECANCELED } },
	}, {
		.name = "chain_of_timeouts",
		.fill = fill_timeout_chain,
		.nr_cqes = 3,
		.known = { { 1, -ETIME }, { 2, -ETIME }, { 3, 0 } },
	}, {
		.name = "chain_side_by_side",
		.fill = fill_side_by_side,
		.after_submit = feed_after_b,
		.nr_cqes = 6,
		.known = { { 1, 5 } },
	},
	{ .name = NULL }
};
