/* SPDX-License-Identifier: MIT */
/*
 * diff_fs.c - operations on an open file or opening one: FSYNC (plain and
 * DATASYNC), FALLOCATE, FADVISE, MADVISE, OPENAT (relative to a dirfd and
 * absolute, creating, missing, O_EXCL on an existing file), CLOSE, STATX.
 * OPENAT scenarios normalize the returned fd to "fd>=0" (the number
 * depends on what else the process has open); their post-check fstat()s
 * the real fd and closes it.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
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

static int fill_fadvise(struct io_uring *ring, struct diff_ctx *c)
{
	static const int advice[] = {
		POSIX_FADV_NORMAL, POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, 99
	};
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < 4; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_fadvise(sqe, c->val[0], 0, 4096, advice[i]);
		diff_tag(sqe, i + 1, 0);
	}
	return 0;
}

/* on a buffer of the run, and an advice madvise(2) does not know */
static int fill_madvise(struct io_uring *ring, struct diff_ctx *c)
{
	static const int advice[] = { MADV_NORMAL, MADV_WILLNEED, 999 };
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < 3; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_madvise(sqe, c->buf[0], DIFF_BUFSZ, advice[i]);
		diff_tag(sqe, i + 1, 0);
	}
	return 0;
}

static void prep_openat(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		   int dfd, const char *path, int flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_openat(sqe, dfd, path, flags, 0640);
	diff_tag(sqe, ud, 0);
}

/*
 * 1: "data" read-only; 2: "new" created; 3: "data" by absolute path
 * (in buf[3]); 4: "missing"; 5: O_EXCL on "data"; 6: O_DIRECTORY on "data"
 */
static int fill_openat(struct io_uring *ring, struct diff_ctx *c)
{
	snprintf(c->buf[3], DIFF_BUFSZ, "%s/data", c->dir);
	prep_openat(ring, c, 1, c->dirfd, "data", O_RDONLY);
	prep_openat(ring, c, 2, c->dirfd, "new", O_CREAT | O_EXCL | O_WRONLY);
	prep_openat(ring, c, 3, AT_FDCWD, c->buf[3], O_RDWR);
	prep_openat(ring, c, 4, c->dirfd, "missing", O_RDONLY);
	prep_openat(ring, c, 5, c->dirfd, "data", O_CREAT | O_EXCL | O_RDWR);
	prep_openat(ring, c, 6, c->dirfd, "data", O_RDONLY | O_DIRECTORY);
	return 0;
}

/* the fds are real and name the right files; closes them */
static int check_openat(struct diff_ctx *c, const struct diff_cqe *cqe,
			unsigned nr)
{
	struct stat data, st;
	unsigned i;

	if (fstat(c->val[0], &data))
		return diff_fail(c, "fstat: %s", strerror(errno));
	for (i = 0; i < nr; i++) {
		if (cqe[i].res < 0)
			continue;
		diff_track_fd(c, cqe[i].res);
		if (fstat(cqe[i].res, &st))
			return diff_fail(c, "fd %d of user_data %llu: %s",
					 cqe[i].res,
					 (unsigned long long)cqe[i].user_data,
					 strerror(errno));
		if ((cqe[i].user_data == 2) == (st.st_ino == data.st_ino))
			return diff_fail(c, "fd of user_data %llu is the wrong file",
					 (unsigned long long)cqe[i].user_data);
	}
	return diff_path_exists(c, "new", S_IFREG);
}

/* val[1]: an fd the scenario closes itself, so not tracked */
static int fill_close(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	c->val[1] = dup(c->val[0]);
	if (c->val[1] < 0)
		return diff_fail(c, "dup: %s", strerror(errno));
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, c->val[1]);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, c->val[1]);	/* now a closed fd */
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, 99999);
	diff_tag(sqe, 3, 0);
	return 0;
}

static int check_close(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (fcntl(c->val[1], F_GETFD) != -1 || errno != EBADF) {
		close(c->val[1]);
		return diff_fail(c, "fd %d still open after CLOSE", c->val[1]);
	}
	return 0;
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

const struct scenario diff_fs[] = {
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
		.name = "fs_fadvise",
		.setup = setup_data,
		.fill = fill_fadvise,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 4, -EINVAL } },
	}, {
		.name = "fs_madvise",
		.fill = fill_madvise,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 3, -EINVAL } },
	}, {
		.name = "fs_openat",
		.setup = setup_data,
		.fill = fill_openat,
		.check = check_openat,
		.normalize = diff_normalize_fd,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 1, DIFF_RES_FD }, { 4, -ENOENT }, { 5, -EEXIST },
			   { 6, -ENOTDIR } },
	}, {
		.name = "fs_close",
		.setup = setup_data,
		.fill = fill_close,
		.check = check_close,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 2 } },
		.known = { { 1, 0 }, { 2, -EBADF }, { 3, -EBADF } },
	}, {
		.name = "fs_statx",
		.setup = setup_data,
		.fill = fill_statx,
		.check = check_statx,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 3, -ENOENT } },
	},
	{ .name = NULL }
};
