/* SPDX-License-Identifier: MIT */
/*
 * diff_uring_cmd.c - URING_CMD (ops/uring_cmd.c) on files that have no
 * ->uring_cmd (a regular file, a pipe: -EOPNOTSUPP), on /dev/null (0),
 * on a bad fd, and prep's checks of its flags and fields. The same
 * scenario also sends RECV_ZC with no zero-copy receive queue
 * (ops/zcrx.c: -EINVAL, with BUFFER_SELECT -EOPNOTSUPP): one scenario,
 * kept whole under its name. URING_CMD on sockets: diff_net.c.
 */
#include <fcntl.h>
#include "harness.h"

/* past liburing 2.3's header */
#define AR_OP_RECV_ZC	58

/* "data", the pipe: no ->uring_cmd; /dev/null's answers 0 */
static int fill_uring_cmd(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0 || diff_track_fd(c, null) < 0)
		return diff_fail(c, "open /dev/null: %s", strerror(errno));
	diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 1, 0);
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[1], 2, 0);
	sqe->cmd_op = 1;
	diff_prep_op(ring, c, IORING_OP_URING_CMD, null, 3, 0);
	diff_prep_op(ring, c, IORING_OP_URING_CMD, 1000, 4, 0);	/* -EBADF */
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 5, 0);
	sqe->uring_cmd_flags = 1;	/* FIXED, any buf_index: the file answers */
	sqe->buf_index = 5;
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 6,
			   IOSQE_BUFFER_SELECT);
	sqe->uring_cmd_flags = 2;	/* MULTISHOT with BUFFER_SELECT */
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 7, 0);
	sqe->uring_cmd_flags = 2;	/* MULTISHOT alone: -EINVAL */
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 8,
			   IOSQE_BUFFER_SELECT);	/* alone: -EINVAL */
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 9,
			   IOSQE_BUFFER_SELECT);
	sqe->uring_cmd_flags = 3;	/* FIXED and MULTISHOT: -EINVAL */
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 10, 0);
	sqe->uring_cmd_flags = 4;	/* -EINVAL */
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 11, 0);
	sqe->__pad1 = 1;		/* -EINVAL */
	sqe = diff_prep_op(ring, c, IORING_OP_URING_CMD, c->val[0], 12, 0);
	sqe->ioprio = 1;		/* -EINVAL */
	diff_prep_op(ring, c, AR_OP_RECV_ZC, c->val[1], 13, 0);	/* -EINVAL */
	diff_prep_op(ring, c, AR_OP_RECV_ZC, c->val[1], 14,
		     IOSQE_BUFFER_SELECT);	/* -EOPNOTSUPP */
	sqe = diff_prep_op(ring, c, AR_OP_RECV_ZC, c->val[1], 15, 0);
	sqe->ioprio = 1;
	return 0;
}

const struct scenario diff_uring_cmd[] = {
	{
		.name = "misc_uring_cmd_recv_zc",
		.setup = diff_setup_data_pipe,
		.fill = fill_uring_cmd,
		.after_submit = diff_submit_rest,
		.nr_cqes = 15,
		.order = ORDER_ANY,
		.known = { { 1, -EOPNOTSUPP }, { 2, -EOPNOTSUPP },
			   { 3, 0 }, { 4, -EBADF }, { 7, -EINVAL },
			   { 13, -EINVAL }, { 14, -EOPNOTSUPP } },
	},
	{ .name = NULL }
};
