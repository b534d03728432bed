/* SPDX-License-Identifier: MIT */
/*
 * diff_fixed.c - registered resources: READ_FIXED/WRITE_FIXED on
 * registered buffers (and a bad buf_index, an address outside the
 * buffer, no buffers at all), IOSQE_FIXED_FILE on registered files (and
 * an index past the table, an empty slot, no table at all).
 */
#include <fcntl.h>
#include "harness.h"

#define FILE_LEN	8192

/* val[0]: "data", FILE_LEN bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, FILE_LEN, O_RDWR);
}

/* buf[0] and buf[1] registered as buffers 0 and 1 */
static int reg_bufs(struct io_uring *ring, struct diff_ctx *c)
{
	int ret;

	c->iov[0].iov_base = c->buf[0];
	c->iov[0].iov_len = DIFF_BUFSZ;
	c->iov[1].iov_base = c->buf[1];
	c->iov[1].iov_len = DIFF_BUFSZ;
	ret = io_uring_register_buffers(ring, c->iov, 2);
	if (ret)
		return diff_fail(c, "register buffers: %s", strerror(-ret));
	return 0;
}

/* the table [-1, val[0]]: slot 0 empty, slot 1 the data file */
static int reg_files(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { -1, c->val[0] };
	int ret = io_uring_register_files(ring, fds, 2);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	return 0;
}

static void read_fixed(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		       void *buf, int index)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read_fixed(sqe, c->val[0], buf, 4096, 0, index);
	diff_tag(sqe, ud, 0);
}

static int fill_read_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_bufs(ring, c))
		return -1;
	read_fixed(ring, c, 1, c->buf[1], 1);
	return 0;
}

static int check_read_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	char p[4096];

	(void)cqe;
	(void)nr;
	diff_pattern(p, 4096, 1);
	return diff_check_buf(c, c->buf[1], p, 4096, "buffer 1");
}

static int fill_write_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (reg_bufs(ring, c))
		return -1;
	diff_pattern(c->buf[0] + 100, 1000, 5);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write_fixed(sqe, c->val[0], c->buf[0] + 100, 1000, 4096,
				  0);
	diff_tag(sqe, 1, 0);
	return 0;
}

static int check_write_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	char p[FILE_LEN];

	(void)cqe;
	(void)nr;
	diff_pattern(p, FILE_LEN, 1);
	diff_pattern(p + 4096, 1000, 5);
	return diff_check_file(c, "data", p, FILE_LEN);
}

/* index 5 of 2; index 0 with buffer 1's address; index 1 in range */
static int fill_fixed_bad(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_bufs(ring, c))
		return -1;
	read_fixed(ring, c, 1, c->buf[0], 5);
	read_fixed(ring, c, 2, c->buf[1], 0);
	read_fixed(ring, c, 3, c->buf[1] + 4000, 1);	/* runs past the end */
	return 0;
}

static int fill_fixed_none(struct io_uring *ring, struct diff_ctx *c)
{
	read_fixed(ring, c, 1, c->buf[0], 0);
	return 0;
}

static void read_file(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		      int fd, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, fd, c->buf[ud % DIFF_NBUF], 4096, 0);
	diff_tag(sqe, ud, flags);
}

static int fill_fixed_file(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_files(ring, c))
		return -1;
	read_file(ring, c, 1, 1, IOSQE_FIXED_FILE);
	return 0;
}

static int check_fixed_file(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	char p[4096];

	(void)cqe;
	(void)nr;
	diff_pattern(p, 4096, 1);
	return diff_check_buf(c, c->buf[1], p, 4096, "buf 1");
}

/* slot 0 empty, index 2 past the table, a negative index */
static int fill_fixed_file_bad(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_files(ring, c))
		return -1;
	read_file(ring, c, 1, 0, IOSQE_FIXED_FILE);
	read_file(ring, c, 2, 2, IOSQE_FIXED_FILE);
	read_file(ring, c, 3, -1, IOSQE_FIXED_FILE);
	return 0;
}

static int fill_fixed_file_none(struct io_uring *ring, struct diff_ctx *c)
{
	read_file(ring, c, 1, 0, IOSQE_FIXED_FILE);
	return 0;
}

const struct scenario diff_fixed[] = {
	{
		.name = "fixed_read_fixed",
		.setup = setup_data,
		.fill = fill_read_fixed,
		.check = check_read_fixed,
		.nr_cqes = 1,
		.known = { { 1, 4096 } },
	}, {
		.name = "fixed_write_fixed",
		.setup = setup_data,
		.fill = fill_write_fixed,
		.check = check_write_fixed,
		.nr_cqes = 1,
		.known = { { 1, 1000 } },
	}, {
		.name = "fixed_bad_buf_index_or_range",
		.setup = setup_data,
		.fill = fill_fixed_bad,
		.nr_cqes = 3,
		.order = ORDER_ANY,
	}, {
		.name = "fixed_no_buffers_registered",
		.setup = setup_data,
		.fill = fill_fixed_none,
		.nr_cqes = 1,
	}, {
		.name = "fixed_file_read",
		.setup = setup_data,
		.fill = fill_fixed_file,
		.check = check_fixed_file,
		.nr_cqes = 1,
		.known = { { 1, 4096 } },
	}, {
		.name = "fixed_file_bad_index",
		.setup = setup_data,
		.fill = fill_fixed_file_bad,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -EBADF }, { 3, -EBADF } },
	}, {
		.name = "fixed_file_none_registered",
		.setup = setup_data,
		.fill = fill_fixed_file_none,
		.nr_cqes = 1,
		.known = { { 1, -EBADF } },
	},
	{ .name = NULL }
};
