/* SPDX-License-Identifier: MIT */
/*
 * diff_opdef.c - the opcode table's nofail_res (ops/opdef.c), opcode by
 * opcode: one opcode failing at issue inside a link, followed by a NOP
 * (user_data 2). Whether the NOP runs (0) or is cancelled (-ECANCELED) is
 * the opcode's business: some post their error without failing the
 * request (FSYNC, STATX, the name operations, ...), most fail it and so
 * break the chain. The *_skip variants add CQE_SKIP_SUCCESS to
 * the failing request: a request that is not marked failed stays silent
 * even with an error result. Each scenario is one chain: exact order.
 */
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include "harness.h"

/* val[0]: "data" (100 bytes); val[1], val[2]: a pipe; dir "d" */
static int setup_files(struct diff_ctx *c)
{
	int p[2];

	diff_pattern(c->buf[3], 100, 1);
	c->val[0] = diff_file(c, "data", c->buf[3], 100, O_RDWR);
	if (c->val[0] < 0 || diff_pipe(c, p))
		return -1;
	c->val[1] = p[0];
	c->val[2] = p[1];
	if (mkdirat(c->dirfd, "d", 0755))
		return diff_fail(c, "mkdir d: %s", strerror(errno));
	return 0;
}

/* the NOP behind the failing request */
static int tail(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static struct io_uring_sqe *head(struct io_uring *ring, struct diff_ctx *c)
{
	return diff_sqe(ring, c);
}

/* fsync(2) of a pipe: -EINVAL */
static int fill_fsync(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_fsync(sqe, c->val[1], 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_fsync_skip(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_fsync(sqe, c->val[1], 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	return tail(ring, c);
}

/* sync_file_range(2) of a pipe: -ESPIPE */
static int fill_sfr(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_sync_file_range(sqe, c->val[1], 100, 0,
				      SYNC_FILE_RANGE_WRITE);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* fallocate(2) of a pipe's write end: -ESPIPE */
static int fill_fallocate(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_fallocate(sqe, c->val[2], 0, 0, 4096);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* an advice fadvise(2) does not know: -EINVAL */
static int fill_fadvise(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_fadvise(sqe, c->val[0], 0, 100, 99);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* an advice madvise(2) does not know: -EINVAL */
static int fill_madvise(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_madvise(sqe, c->buf[0], DIFF_BUFSZ, 999);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_madvise_skip(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_madvise(sqe, c->buf[0], DIFF_BUFSZ, 999);
	diff_tag(sqe, 1, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	return tail(ring, c);
}

static int fill_openat(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_openat(sqe, c->dirfd, "missing", O_RDONLY, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_openat_skip(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_openat(sqe, c->dirfd, "missing", O_RDONLY, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	return tail(ring, c);
}

/* RESOLVE_BENEATH and a path that leaves the dir: -EXDEV */
static int fill_openat2(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);
	struct open_how *how = (struct open_how *)c->buf[1];

	memset(how, 0, sizeof(*how));
	how->flags = O_RDONLY;
	how->resolve = RESOLVE_BENEATH;
	io_uring_prep_openat2(sqe, c->dirfd, "../x", how);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_close(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_close(sqe, 99999);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_statx(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_statx(sqe, c->dirfd, "missing", 0, STATX_BASIC_STATS,
			    &c->stx);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_statx_skip(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_statx(sqe, c->dirfd, "missing", 0, STATX_BASIC_STATS,
			    &c->stx);
	diff_tag(sqe, 1, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS);
	return tail(ring, c);
}

static int fill_renameat(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_renameat(sqe, c->dirfd, "missing", c->dirfd, "x", 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_unlinkat(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_unlinkat(sqe, c->dirfd, "missing", 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_mkdirat(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_mkdirat(sqe, c->dirfd, "d", 0755);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_symlinkat(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_symlinkat(sqe, "data", c->dirfd, "d");
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_linkat(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_linkat(sqe, c->dirfd, "missing", c->dirfd, "x", 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_timeout_remove(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_timeout_remove(sqe, 77, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

static int fill_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_cancel64(sqe, 77, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* FILES_UPDATE with no file table registered */
static int fill_files_update(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_files_update(sqe, &c->val[0], 1, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* a write to a pipe's read end: -EBADF */
static int fill_write(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_write(sqe, c->val[1], c->buf[0], 10, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* an iovec pointing nowhere: -EFAULT */
static int fill_readv(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	c->iov[0].iov_base = (void *)16;
	c->iov[0].iov_len = 64;
	io_uring_prep_readv(sqe, c->val[0], c->iov, 1, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* a read of 100 bytes at EOF: 0 is short, the link breaks */
static int fill_read_eof(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_read(sqe, c->val[0], c->buf[0], 100, 100);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

/* a zero-length read is not short: the link goes on */
static int fill_read_zero(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = head(ring, c);

	io_uring_prep_read(sqe, c->val[0], c->buf[0], 0, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	return tail(ring, c);
}

#define LINKERR(nm, fn)							\
	{								\
		.name = nm,						\
		.setup = setup_files,					\
		.fill = fn,						\
		.nr_cqes = 2,						\
	}

const struct scenario diff_opdef[] = {
	LINKERR("linkerr_fsync", fill_fsync),
	{
		.name = "linkerr_fsync_skip_success",
		.setup = setup_files,
		.fill = fill_fsync_skip,
		.nr_cqes = 1,
	},
	LINKERR("linkerr_sync_file_range", fill_sfr),
	LINKERR("linkerr_fallocate", fill_fallocate),
	LINKERR("linkerr_fadvise", fill_fadvise),
	LINKERR("linkerr_madvise", fill_madvise),
	{
		.name = "linkerr_madvise_skip_success",
		.setup = setup_files,
		.fill = fill_madvise_skip,
		.nr_cqes = 1,
	},
	LINKERR("linkerr_openat", fill_openat),
	{
		.name = "linkerr_openat_skip_success",
		.setup = setup_files,
		.fill = fill_openat_skip,
		/* failed: it posts, the NOP it cancels does not */
		.nr_cqes = 1,
	},
	LINKERR("linkerr_openat2", fill_openat2),
	LINKERR("linkerr_close", fill_close),
	LINKERR("linkerr_statx", fill_statx),
	{
		.name = "linkerr_statx_skip_success",
		.setup = setup_files,
		.fill = fill_statx_skip,
		.nr_cqes = 1,
	},
	LINKERR("linkerr_renameat", fill_renameat),
	LINKERR("linkerr_unlinkat", fill_unlinkat),
	LINKERR("linkerr_mkdirat", fill_mkdirat),
	LINKERR("linkerr_symlinkat", fill_symlinkat),
	LINKERR("linkerr_linkat", fill_linkat),
	LINKERR("linkerr_timeout_remove", fill_timeout_remove),
	LINKERR("linkerr_async_cancel", fill_cancel),
	LINKERR("linkerr_files_update", fill_files_update),
	LINKERR("linkerr_write_bad_fd", fill_write),
	LINKERR("linkerr_readv_efault", fill_readv),
	LINKERR("linkerr_read_at_eof", fill_read_eof),
	LINKERR("linkerr_read_zero_length", fill_read_zero),
	{ .name = NULL }
};
