/* SPDX-License-Identifier: MIT */
/*
 * diff_submit.c - what submit.c refuses, and when: requests the kernel
 * refuses (an unknown opcode, unknown SQE flags, bad fds, a bad buffer
 * address or offset, too many iovecs, buffer select with no buffers,
 * unknown fsync flags); and that CQE_SKIP_SUCCESS never hides a failure.
 *
 * Where the error is found matters: an SQE refused while the kernel reads
 * it (opcode, flags, the op's prep checks) ends the submit and leaves the
 * SQEs behind it queued; one that fails when issued (a bad fd) does not.
 * So each erroneous SQE is followed by a NOP (user_data 99) and the rest is
 * submitted by diff_submit_rest: the recorded submit results show which.
 */
#include <fcntl.h>
#include "harness.h"

static int tail(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 99, 0);
	return 0;
}

static int fill_bad_opcode(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0)->opcode = 250;
	return tail(ring, c);
}

static int fill_bad_flags(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 1U << 7);
	return tail(ring, c);
}

static int fill_bad_fd(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, -1, c->buf[0], 64, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, 99999, c->buf[0], 64, 0);
	diff_tag(sqe, 2, 0);
	return tail(ring, c);
}

/* the bad SQE is consumed and ends the submit; 3 waits for the next one */
static int fill_stops_submit(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0);
	diff_prep_nop(ring, c, 2, 0)->opcode = 250;
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_skip_failure(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, -1, c->buf[0], 64, 0);
	diff_tag(sqe, 1, IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 2, IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/*
 * The same in io-wq: FALLOCATE on fd -1 with ASYNC|CQE_SKIP_SUCCESS fails
 * there, late, and its CQE is posted (the fuzzer's finding
 * fallocate-bad-fd-skip-success-hides-error, whose skip flag the fuzzer
 * now takes off: it cannot tell when a skipped success would be over).
 */
static int fill_skip_failure_async(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_fallocate(sqe, -1, 0, 0, 4096);
	diff_tag(sqe, 1, IOSQE_ASYNC | IOSQE_CQE_SKIP_SUCCESS);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fsync(sqe, -1, 0);
	diff_tag(sqe, 2, IOSQE_ASYNC | IOSQE_CQE_SKIP_SUCCESS);
	return 0;
}

static int setup_file(struct diff_ctx *c)
{
	diff_pattern(c->buf[1], 512, 1);
	c->val[0] = diff_file(c, "data", c->buf[1], 512, O_RDONLY);
	return c->val[0] < 0 ? -1 : 0;
}

static int fill_write_rdonly(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_write(sqe, c->val[0], c->buf[0], 64, 0);
	diff_tag(sqe, 1, 0);
	return tail(ring, c);
}

static int fill_read_dir(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, c->dirfd, c->buf[0], 64, 0);
	diff_tag(sqe, 1, 0);
	return tail(ring, c);
}

static int fill_efault(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, c->val[0], NULL, 64, 0);
	diff_tag(sqe, 1, 0);
	return tail(ring, c);
}

static int fill_bad_offset(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, c->val[0], c->buf[0], 64, (__u64)-2);
	diff_tag(sqe, 1, 0);
	return tail(ring, c);
}

/* more than UIO_MAXIOV (1024) iovecs */
static int fill_many_iovecs(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_readv(sqe, c->val[0], c->iov, 1025, 0);
	diff_tag(sqe, 1, 0);
	return tail(ring, c);
}

static int fill_no_buffers(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, c->val[0], NULL, 64, 0);
	diff_tag(sqe, 1, IOSQE_BUFFER_SELECT);
	sqe->buf_group = 7;
	return tail(ring, c);
}

static int fill_fsync_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_fsync(sqe, c->val[0], 1U << 4);
	diff_tag(sqe, 1, 0);
	return tail(ring, c);
}

const struct scenario diff_submit_errors[] = {
	{
		.name = "err_invalid_opcode",
		.fill = fill_bad_opcode,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		.known = { { 1, -EINVAL }, { 99, 0 } },
	}, {
		.name = "err_unknown_sqe_flag",
		.fill = fill_bad_flags,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		.known = { { 1, -EINVAL }, { 99, 0 } },
	}, {
		.name = "err_bad_fd",
		.fill = fill_bad_fd,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.known = { { 1, -EBADF }, { 2, -EBADF }, { 99, 0 } },
	}, {
		.name = "err_failed_sqe_ends_submit",
		.fill = fill_stops_submit,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.known = { { 1, 0 }, { 2, -EINVAL }, { 3, 0 } },
	}, {
		.name = "err_skip_success_still_posts_failure",
		.fill = fill_skip_failure,
		.nr_cqes = 2,
		.known = { { 1, -EBADF }, { 3, 0 } },
	}, {
		.name = "err_skip_success_failure_async",
		.fill = fill_skip_failure_async,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -EBADF } },
	}, {
		.name = "err_write_to_rdonly_fd",
		.setup = setup_file,
		.fill = fill_write_rdonly,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		.known = { { 1, -EBADF }, { 99, 0 } },
	}, {
		.name = "err_read_directory",
		.fill = fill_read_dir,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		/* a directory read goes to a worker: no order with the NOP */
		.order = ORDER_ANY,
		.known = { { 1, -EISDIR }, { 99, 0 } },
	}, {
		.name = "err_read_null_buffer",
		.setup = setup_file,
		.fill = fill_efault,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
	}, {
		.name = "err_read_negative_offset",
		.setup = setup_file,
		.fill = fill_bad_offset,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
	}, {
		.name = "err_readv_too_many_iovecs",
		.setup = setup_file,
		.fill = fill_many_iovecs,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
	}, {
		.name = "err_buffer_select_no_buffers",
		.setup = setup_file,
		.fill = fill_no_buffers,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
	}, {
		.name = "err_fsync_unknown_flags",
		.setup = setup_file,
		.fill = fill_fsync_flags,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
	},
	{ .name = NULL }
};
