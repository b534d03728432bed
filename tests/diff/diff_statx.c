/* SPDX-License-Identifier: MIT */
/*
 * diff_statx.c - STATX (ops/statx.c): a file by name and by its fd
 * (AT_EMPTY_PATH), a missing one, a symlink with and without
 * AT_SYMLINK_NOFOLLOW, a directory with AT_STATX_DONT_SYNC, unknown
 * flags, no buffer, an empty path without AT_EMPTY_PATH. What the buffers
 * say (type, size, inode) is checked, or noted.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "harness.h"

#define FILE_LEN	8192
#define NOTE		1000

/* val[0]: "data", FILE_LEN bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, FILE_LEN, O_RDWR);
}

static void prep_statx(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		  int dfd, const char *path, int flags, struct statx *stx)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_statx(sqe, dfd, path, flags, STATX_BASIC_STATS, stx);
	diff_tag(sqe, ud, 0);
}

/* 1: "data"; 2: the fd, AT_EMPTY_PATH (into buf[2]); 3: "missing" */
static int fill_statx(struct io_uring *ring, struct diff_ctx *c)
{
	prep_statx(ring, c, 1, c->dirfd, "data", 0, &c->stx);
	prep_statx(ring, c, 2, c->val[0], "", AT_EMPTY_PATH,
	      (struct statx *)c->buf[2]);
	prep_statx(ring, c, 3, c->dirfd, "missing", 0,
		   (struct statx *)c->buf[3]);
	return 0;
}

static int check_statx(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	const struct statx *byfd = (const struct statx *)c->buf[2];
	struct stat st;

	(void)cqe;
	(void)nr;
	if (fstat(c->val[0], &st))
		return diff_fail(c, "fstat: %s", strerror(errno));
	if (c->stx.stx_size != FILE_LEN || !S_ISREG(c->stx.stx_mode) ||
	    c->stx.stx_ino != st.st_ino)
		return diff_fail(c, "statx of data: size %llu mode 0%o",
				 (unsigned long long)c->stx.stx_size,
				 c->stx.stx_mode);
	if (byfd->stx_ino != st.st_ino || byfd->stx_size != FILE_LEN)
		return diff_fail(c, "statx by fd: wrong inode or size");
	return 0;
}

static void prep_stx(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		  const char *path, int flags, unsigned mask, void *buf)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_statx(sqe, c->dirfd, path, flags, mask, buf);
	diff_tag(sqe, ud, 0);
}

/* the link itself, through it, a dir, unknown flags, no buffer */
static int fill_statx_variants(struct io_uring *ring, struct diff_ctx *c)
{
	prep_stx(ring, c, 1, "lnk", AT_SYMLINK_NOFOLLOW, STATX_TYPE, c->buf[0]);
	prep_stx(ring, c, 2, "lnk", 0, STATX_SIZE | STATX_TYPE, c->buf[1]);
	prep_stx(ring, c, 3, "d", AT_STATX_DONT_SYNC, STATX_BASIC_STATS,
	      c->buf[2]);
	prep_stx(ring, c, 4, "data", 0x40000000, STATX_BASIC_STATS, c->buf[3]);
	prep_stx(ring, c, 5, "data", 0, STATX_BASIC_STATS, NULL);
	prep_stx(ring, c, 6, "", 0, STATX_BASIC_STATS, c->buf[3]);
	return 0;
}

static int check_statx_variants(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	const struct statx *a = (const void *)c->buf[0];
	const struct statx *b = (const void *)c->buf[1];
	const struct statx *d = (const void *)c->buf[2];

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, S_ISLNK(a->stx_mode));
	diff_note(c, NOTE + 1, S_ISREG(b->stx_mode) && b->stx_size == 8192);
	diff_note(c, NOTE + 2, S_ISDIR(d->stx_mode));
	return 0;
}

const struct scenario diff_statx[] = {
	{
		.name = "fs_statx",
		.setup = setup_data,
		.fill = fill_statx,
		.check = check_statx,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 3, -ENOENT } },
	}, {
		.name = "ops_statx_variants",
		.setup = diff_setup_tree,
		.fill = fill_statx_variants,
		.check = check_statx_variants,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { NOTE, 1 }, { NOTE + 1, 1 }, { NOTE + 2, 1 } },
	},
	{ .name = NULL }
};
