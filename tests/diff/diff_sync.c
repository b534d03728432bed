/* SPDX-License-Identifier: MIT */
/*
 * diff_sync.c - FSYNC, SYNC_FILE_RANGE and FALLOCATE (ops/sync.c) on a
 * file of the run: FSYNC plain and with IORING_FSYNC_DATASYNC;
 * SYNC_FILE_RANGE after a linked write, with its flags, an empty range,
 * unknown flags and a range that wraps; FALLOCATE growing the file, with
 * FALLOC_FL_KEEP_SIZE, punching a hole, zeroing a range, and its bad
 * modes and lengths. The file's size and contents are checked
 * afterwards.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "harness.h"

#define FILE_LEN	8192

/* val[0]: "data", FILE_LEN bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, FILE_LEN, O_RDWR);
}

static int fill_fsync(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_fsync(sqe, c->val[0], 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fsync(sqe, c->val[0], IORING_FSYNC_DATASYNC);
	diff_tag(sqe, 2, 0);
	return 0;
}

/* grow to 16384; KEEP_SIZE to 32768 keeps it; a bad mode */
static int fill_fallocate(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_fallocate(sqe, c->val[0], 0, 0, 16384);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fallocate(sqe, c->val[0], FALLOC_FL_KEEP_SIZE, 0, 32768);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fallocate(sqe, c->val[0], 0x4000, 0, 4096);
	diff_tag(sqe, 3, 0);
	return 0;
}

static int check_fallocate(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	struct stat st;

	(void)cqe;
	(void)nr;
	if (fstat(c->val[0], &st))
		return diff_fail(c, "fstat: %s", strerror(errno));
	if (st.st_size != 16384)
		return diff_fail(c, "size %lld, expected 16384",
				 (long long)st.st_size);
	return 0;
}

static int fill_sync_file_range(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_pattern(c->buf[0], 4096, 4);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[0], 4096, 4096);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_sync_file_range(sqe, c->val[0], 4096, 4096,
				      SYNC_FILE_RANGE_WAIT_BEFORE |
				      SYNC_FILE_RANGE_WRITE |
				      SYNC_FILE_RANGE_WAIT_AFTER);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_sync_file_range(sqe, c->val[0], 0, 0, 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_sync_file_range(sqe, c->val[0], 0, 0, 1U << 7);
	diff_tag(sqe, 4, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_sync_file_range(sqe, c->val[0], 4096, (__u64)-4096, 0);
	diff_tag(sqe, 5, 0);
	return 0;
}

/* punch a hole, zero a range, a negative length, a bad mode combination */
static int fill_fallocate_modes(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_fallocate(sqe, c->val[0],
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				0, 4096);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fallocate(sqe, c->val[0], FALLOC_FL_ZERO_RANGE, 6000,
				1000);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fallocate(sqe, c->val[0], 0, 0, (__u64)-1);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fallocate(sqe, c->val[0], FALLOC_FL_PUNCH_HOLE, 0, 10);
	diff_tag(sqe, 4, 0);
	return 0;
}

static int check_fallocate_modes(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	static char want[8192];

	(void)cqe;
	(void)nr;
	diff_pattern(want, sizeof(want), 1);
	memset(want, 0, 4096);
	memset(want + 6000, 0, 1000);
	return diff_check_file(c, "data", want, sizeof(want));
}

const struct scenario diff_sync[] = {
	{
		.name = "fs_fsync_and_datasync",
		.setup = setup_data,
		.fill = fill_fsync,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, 0 } },
	}, {
		.name = "fs_fallocate",
		.setup = setup_data,
		.fill = fill_fallocate,
		.check = check_fallocate,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 2 } },
		.known = { { 1, 0 }, { 2, 0 } },
	}, {
		.name = "ops_sync_file_range",
		.setup = setup_data,
		.fill = fill_sync_file_range,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
		.known = { { 1, 4096 }, { 2, 0 }, { 3, 0 } },
	}, {
		.name = "ops_fallocate_modes",
		.setup = setup_data,
		.fill = fill_fallocate_modes,
		.check = check_fallocate_modes,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
		.known = { { 1, 0 }, { 2, 0 } },
	},
	{ .name = NULL }
};
