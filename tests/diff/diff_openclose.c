/* SPDX-License-Identifier: MIT */
/*
 * diff_fs.c - the opcodes of ops/sync.c, ops/advise.c, ops/openclose.c
 * and ops/statx.c, on an open file or opening one: FSYNC (plain and
 * DATASYNC), SYNC_FILE_RANGE, FALLOCATE (and its modes), FADVISE (also
 * on a pipe), MADVISE (MADV_DONTNEED really dropping
 * pages), OPENAT (relative to a dirfd and absolute, creating, missing,
 * O_EXCL on an existing file, flag variants, a FIFO: the kernel's inline
 * attempt is non-blocking), OPENAT2 (resolve flags, bad open_how), CLOSE
 * (also of odd fds), STATX (and its variants). OPENAT scenarios normalize
 * the returned fd to "fd>=0" (the number depends on what else the process
 * has open); their post-check fstat()s the real fd and closes it.
 * Observations made afterwards (a file's contents, a mode) are notes.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/openat2.h>
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

/* ---- SYNC_FILE_RANGE, OPENAT2, the flags and modes of each ---- */

#define NOTE	1000

/* track the fds that the CQEs return, and say which are fds */
static int check_fds(struct diff_ctx *c, const struct diff_cqe *cqe,
		     unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (cqe[i].res >= 0 && cqe[i].user_data >= 10 &&
		    cqe[i].user_data < 100)
			diff_track_fd(c, cqe[i].res);
	return c->msg[0] ? -1 : 0;
}

/* user_data 10..99 return fds */
static void normalize_fds(struct diff_cqe *cqe)
{
	if (cqe->user_data >= 10 && cqe->user_data < 100)
		diff_normalize_fd(cqe);
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

static struct io_uring_sqe *openat2(struct io_uring *ring, struct diff_ctx *c,
				    __u64 ud, const char *path, unsigned i,
				    __u64 flags, __u64 mode, __u64 resolve)
{
	struct open_how *how = (struct open_how *)c->buf[2] + i;
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	memset(how, 0, sizeof(*how));
	how->flags = flags;
	how->mode = mode;
	how->resolve = resolve;
	io_uring_prep_openat2(sqe, c->dirfd, path, how);
	diff_tag(sqe, ud, 0);
	return sqe;
}

/* valid opens (10..14) and resolve rules refusing (2..4) */
static int fill_openat2(struct io_uring *ring, struct diff_ctx *c)
{
	openat2(ring, c, 10, "data", 0, O_RDONLY, 0, 0);
	openat2(ring, c, 11, "new", 1, O_CREAT | O_WRONLY, 0600, 0);
	openat2(ring, c, 12, "d/../data", 2, O_RDONLY, 0, RESOLVE_BENEATH);
	openat2(ring, c, 13, "lnk", 3, O_RDONLY, 0, 0);
	openat2(ring, c, 14, "/data", 4, O_RDONLY, 0, RESOLVE_IN_ROOT);
	openat2(ring, c, 2, "lnk", 5, O_RDONLY, 0, RESOLVE_NO_SYMLINKS);
	openat2(ring, c, 3, "/tmp", 6, O_RDONLY, 0, RESOLVE_BENEATH);
	openat2(ring, c, 4, "lnk", 7, O_RDONLY | O_NOFOLLOW, 0, 0);
	return 0;
}

/*
 * A malformed open_how (one per submit where the kernel refuses it while
 * reading the SQE): a size below the first version, a larger size with a
 * non-zero tail, unknown resolve bits, a mode without O_CREAT, unknown
 * open flags; and a larger size with a zero tail, which is fine (10).
 */
static int fill_openat2_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct open_how *big = (struct open_how *)c->buf[3];
	struct io_uring_sqe *sqe;

	openat2(ring, c, 1, "data", 0, O_RDONLY, 0, 0)->len = 16;
	memset(c->buf[3], 0, 64);
	big->flags = O_RDONLY;
	c->buf[3][sizeof(*big)] = 1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat2(sqe, c->dirfd, "data", big);
	sqe->len = sizeof(*big) + 8;
	diff_tag(sqe, 2, 0);
	openat2(ring, c, 3, "data", 1, O_RDONLY, 0, 1ULL << 40);
	openat2(ring, c, 4, "data", 2, O_RDONLY, 0600, 0);
	openat2(ring, c, 5, "data", 3, O_RDONLY | (1ULL << 40), 0, 0);
	openat2(ring, c, 10, "data", 4, O_RDONLY, 0, 0)->len =
		sizeof(struct open_how) + 8;
	return 0;
}

static void prep_open(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		   const char *path, int flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_openat(sqe, c->dirfd, path, flags, 0600);
	diff_tag(sqe, ud, 0);
}

/* flags that change how the open runs: TRUNC, TMPFILE, PATH, DIRECTORY */
static int fill_openat_flags(struct io_uring *ring, struct diff_ctx *c)
{
	prep_open(ring, c, 10, "b", O_WRONLY | O_TRUNC);
	prep_open(ring, c, 11, ".", O_TMPFILE | O_RDWR);
	prep_open(ring, c, 12, "lnk", O_PATH | O_NOFOLLOW);
	prep_open(ring, c, 13, "d", O_RDONLY | O_DIRECTORY);
	prep_open(ring, c, 14, "data", O_RDONLY | O_CLOEXEC | O_NOATIME);
	prep_open(ring, c, 2, "d", O_WRONLY);
	prep_open(ring, c, 3, "lnk", O_RDONLY | O_NOFOLLOW);
	return 0;
}

static int check_openat_flags(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	struct stat st;

	if (check_fds(c, cqe, nr))
		return -1;
	if (fstatat(c->dirfd, "b", &st, 0))
		return diff_fail(c, "stat b: %s", strerror(errno));
	diff_note(c, NOTE, (int)st.st_size);
	return 0;
}

/*
 * A FIFO nobody has open: for writing, the kernel's inline attempt fails
 * -ENXIO; for reading it opens at once; then writing works.
 */
static int setup_fifo(struct diff_ctx *c)
{
	if (mkfifoat(c->dirfd, "fifo", 0600))
		return diff_fail(c, "mkfifo: %s", strerror(errno));
	return 0;
}

static int fill_fifo(struct io_uring *ring, struct diff_ctx *c)
{
	prep_open(ring, c, 1, "fifo", O_WRONLY);
	return 0;
}

/* the test opens the read end itself: releases an open blocked on it */
static void unblock_fifo(struct diff_ctx *c)
{
	int fd = openat(c->dirfd, "fifo", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		diff_track_fd(c, fd);
}

static int fifo_reader(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1)) {
		/* else an open blocked on the FIFO hangs the ring's exit */
		unblock_fifo(c);
		return -1;
	}
	prep_open(ring, c, 10, "fifo", O_RDONLY);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	prep_open(ring, c, 11, "fifo", O_WRONLY);
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

/* a pipe end; this ring's own fd; CLOSE with IOSQE_FIXED_FILE */
static int fill_close_odd(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (pipe(p))
		return diff_fail(c, "pipe: %s", strerror(errno));
	c->val[1] = p[0];
	if (diff_track_fd(c, p[1]) < 0)
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, p[0]);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, ring->ring_fd);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, c->val[0]);
	diff_tag(sqe, 3, IOSQE_FIXED_FILE);
	return 0;
}

static int check_close_odd(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, fcntl(c->val[1], F_GETFD) < 0 && errno == EBADF);
	diff_note(c, NOTE + 1, fcntl(c->val[0], F_GETFD) >= 0);
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

/* MADV_DONTNEED on a private anonymous page: it reads back as zeroes */
static int fill_madvise_dontneed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	void *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return diff_fail(c, "mmap: %s", strerror(errno));
	c->iov[0].iov_base = m;
	memset(m, 'x', 8192);
	sqe = diff_sqe(ring, c);
	io_uring_prep_madvise(sqe, m, 4096, MADV_DONTNEED);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_madvise(sqe, (char *)m + 1, 4096, MADV_NORMAL);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_madvise(sqe, m, 0, MADV_DONTNEED);
	diff_tag(sqe, 3, 0);
	return 0;
}

static int check_madvise_dontneed(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	const char *m = c->iov[0].iov_base;

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, m[0] == 0 && m[4095] == 0);
	diff_note(c, NOTE + 1, m[4096] == 'x');
	munmap(c->iov[0].iov_base, 8192);
	return 0;
}

/* on a pipe, with a negative length, every advice value in range */
static int fill_fadvise_variants(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2], i;

	if (diff_pipe(c, p))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_fadvise(sqe, p[0], 0, 100, POSIX_FADV_NORMAL);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fadvise(sqe, c->val[0], 0, (off_t)-1, POSIX_FADV_NORMAL);
	diff_tag(sqe, 2, 0);
	for (i = 0; i <= 5; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_fadvise(sqe, c->val[0], 0, 0, i);
		diff_tag(sqe, 10 + i, 0);
	}
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
	}, {
		.name = "ops_sync_file_range",
		.setup = setup_data,
		.fill = fill_sync_file_range,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
		.known = { { 1, 4096 }, { 2, 0 }, { 3, 0 } },
	}, {
		.name = "ops_openat2_resolve",
		.setup = diff_setup_tree,
		.fill = fill_openat2,
		.check = check_fds,
		.normalize = normalize_fds,
		.nr_cqes = 8,
		.order = ORDER_ANY,
		.known = { { 10, DIFF_RES_FD }, { 11, DIFF_RES_FD },
			   { 2, -ELOOP }, { 3, -EXDEV }, { 4, -ELOOP } },
	}, {
		.name = "ops_openat2_bad_how",
		.setup = setup_data,
		.fill = fill_openat2_bad,
		.after_submit = diff_submit_rest,
		.check = check_fds,
		.normalize = normalize_fds,
		.nr_cqes = 6,
		.order = ORDER_ANY,
	}, {
		.name = "ops_openat_flags",
		.setup = diff_setup_tree,
		.fill = fill_openat_flags,
		.check = check_openat_flags,
		.normalize = normalize_fds,
		.nr_cqes = 7,
		.order = ORDER_ANY,
		.known = { { NOTE, 0 }, { 2, -EISDIR }, { 3, -ELOOP } },
	}, {
		.name = "ops_openat_fifo",
		.setup = setup_fifo,
		.fill = fill_fifo,
		.after_submit = fifo_reader,
		.check = check_fds,
		.normalize = normalize_fds,
		.nr_cqes = 3,
		.known = { { 1, -ENXIO }, { 10, DIFF_RES_FD },
			   { 11, DIFF_RES_FD } },
	}, {
		.name = "ops_statx_variants",
		.setup = diff_setup_tree,
		.fill = fill_statx_variants,
		.check = check_statx_variants,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { NOTE, 1 }, { NOTE + 1, 1 }, { NOTE + 2, 1 } },
	}, {
		.name = "ops_close_odd_fds",
		.setup = setup_data,
		.fill = fill_close_odd,
		.check = check_close_odd,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { NOTE, 1 }, { NOTE + 1, 1 } },
	}, {
		.name = "ops_fallocate_modes",
		.setup = setup_data,
		.fill = fill_fallocate_modes,
		.check = check_fallocate_modes,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
		.known = { { 1, 0 }, { 2, 0 } },
	}, {
		.name = "ops_madvise_dontneed",
		.fill = fill_madvise_dontneed,
		.check = check_madvise_dontneed,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { NOTE, 1 }, { NOTE + 1, 1 } },
	}, {
		.name = "ops_fadvise_variants",
		.setup = setup_data,
		.fill = fill_fadvise_variants,
		.nr_cqes = 8,
		.order = ORDER_ANY,
	},
	{ .name = NULL }
};
