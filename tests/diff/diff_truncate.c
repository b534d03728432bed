/* SPDX-License-Identifier: MIT */
/*
 * diff_truncate.c - FTRUNCATE (ops/truncate.c) in a linked chain:
 * shrinking a file, a negative length and a pipe (-EINVAL; the link goes
 * on), a bad fd (it breaks the link); and prep's checks. The file's size
 * afterwards is a note.
 */
#include <sys/stat.h>
#include "harness.h"

#define NOTE	1000

/* past liburing 2.3's header */
#define AR_OP_FTRUNCATE	55

static int fill_ftruncate(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int fd = c->val[0];

	sqe = diff_prep_op(ring, c, AR_OP_FTRUNCATE, fd, 1, IOSQE_IO_LINK);
	sqe->off = 100;
	sqe = diff_prep_op(ring, c, AR_OP_FTRUNCATE, fd, 2, IOSQE_IO_LINK);
	sqe->off = (__u64)-1;		/* -EINVAL, and the link goes on */
	sqe = diff_prep_op(ring, c, AR_OP_FTRUNCATE, c->val[1], 3,
			   IOSQE_IO_LINK);
	sqe->off = 10;			/* a pipe: -EINVAL */
	sqe = diff_prep_op(ring, c, AR_OP_FTRUNCATE, 1000, 4, IOSQE_IO_LINK);
	sqe->off = 10;			/* -EBADF: breaks it */
	diff_prep_nop(ring, c, 5, 0);
	sqe = diff_prep_op(ring, c, AR_OP_FTRUNCATE, fd, 6, 0);
	sqe->len = 1;			/* -EINVAL at prep */
	sqe = diff_prep_op(ring, c, AR_OP_FTRUNCATE, fd, 7, 0);
	sqe->addr3 = 1;			/* -EINVAL at prep */
	return 0;
}

static int check_ftruncate(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	struct stat st;

	(void)cqe;
	(void)nr;
	if (fstat(c->val[0], &st))
		return diff_fail(c, "fstat: %s", strerror(errno));
	diff_note(c, NOTE, (int)st.st_size);
	return 0;
}

const struct scenario diff_truncate[] = {
	{
		.name = "misc_ftruncate",
		.setup = diff_setup_data_pipe,
		.fill = fill_ftruncate,
		.after_submit = diff_submit_rest,
		.check = check_ftruncate,
		.nr_cqes = 7,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, -EINVAL }, { 4, -EBADF },
			   { 5, -ECANCELED }, { 6, -EINVAL }, { 7, -EINVAL } },
	},
	{ .name = NULL }
};
