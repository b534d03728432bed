/* SPDX-License-Identifier: MIT */
/*
 * diff_ops.c - opcodes past their basic cases: SYNC_FILE_RANGE, OPENAT2
 * (resolve flags, bad open_how), OPENAT flag variants and a FIFO (the
 * kernel's inline attempt is non-blocking), STATX variants, CLOSE of odd
 * fds, FALLOCATE modes, MADV_DONTNEED really dropping pages, FADVISE on a
 * pipe, RENAME_EXCHANGE, UNLINKAT/RENAMEAT/LINKAT flags, READV/WRITEV on
 * registered files, per-request RWF_* flags, ioprio, and NOP's own flags.
 * Observations made afterwards (a file's contents, a mode) are notes.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <linux/ioprio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

#define NOTE	1000

/* val[0]: "data", 8192 bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, 8192, O_RDWR);
}

/* and "lnk" -> "data", dir "d", file "b" */
static int setup_tree(struct diff_ctx *c)
{
	if (setup_data(c) || diff_file(c, "b", "bb", 2, O_RDONLY) < 0)
		return -1;
	if (symlinkat("data", c->dirfd, "lnk") || mkdirat(c->dirfd, "d", 0755))
		return diff_fail(c, "symlink/mkdir: %s", strerror(errno));
	return 0;
}

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
static int fill_statx(struct io_uring *ring, struct diff_ctx *c)
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

static int check_statx(struct diff_ctx *c, const struct diff_cqe *cqe,
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
static int fill_close(struct io_uring *ring, struct diff_ctx *c)
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

static int check_close(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, fcntl(c->val[1], F_GETFD) < 0 && errno == EBADF);
	diff_note(c, NOTE + 1, fcntl(c->val[0], F_GETFD) >= 0);
	return 0;
}

/* punch a hole, zero a range, a negative length, a bad mode combination */
static int fill_fallocate(struct io_uring *ring, struct diff_ctx *c)
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

static int check_fallocate(struct diff_ctx *c, const struct diff_cqe *cqe,
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
static int fill_madvise(struct io_uring *ring, struct diff_ctx *c)
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

static int check_madvise(struct diff_ctx *c, const struct diff_cqe *cqe,
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
static int fill_fadvise(struct io_uring *ring, struct diff_ctx *c)
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

/* swap data and b; NOREPLACE|EXCHANGE refused; unknown flags */
static int fill_rename_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "data", c->dirfd, "b",
			       RENAME_EXCHANGE);
	diff_tag(sqe, 1, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "data", c->dirfd, "b",
			       RENAME_EXCHANGE | RENAME_NOREPLACE);
	diff_tag(sqe, 2, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "data", c->dirfd, "x", 1U << 10);
	diff_tag(sqe, 3, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "d", c->dirfd, "data", 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

static int check_rename_flags(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_file(c, "data", "bb", 2);
}

/*
 * Independent requests: unknown unlinkat/linkat flags; a symlink linked
 * with and without AT_SYMLINK_FOLLOW; a dir with AT_REMOVEDIR; a mode.
 */
static int fill_name_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "b", 1);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_linkat(sqe, c->dirfd, "lnk", c->dirfd, "hard",
			     AT_SYMLINK_FOLLOW);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_linkat(sqe, c->dirfd, "lnk", c->dirfd, "hard2", 0);
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_linkat(sqe, c->dirfd, "b", c->dirfd, "x", 1U << 20);
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "d", AT_REMOVEDIR);
	diff_tag(sqe, 5, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_mkdirat(sqe, c->dirfd, "m", 0701);
	diff_tag(sqe, 6, 0);
	return 0;
}

static int check_name_flags(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	struct stat st;

	(void)cqe;
	(void)nr;
	if (fstatat(c->dirfd, "hard", &st, AT_SYMLINK_NOFOLLOW))
		return diff_fail(c, "stat hard: %s", strerror(errno));
	diff_note(c, NOTE, S_ISREG(st.st_mode));
	if (fstatat(c->dirfd, "hard2", &st, AT_SYMLINK_NOFOLLOW))
		return diff_fail(c, "stat hard2: %s", strerror(errno));
	diff_note(c, NOTE + 1, S_ISLNK(st.st_mode));
	if (fstatat(c->dirfd, "m", &st, 0))
		return diff_fail(c, "stat m: %s", strerror(errno));
	diff_note(c, NOTE + 2, (int)(st.st_mode & 07777));
	return 0;
}

/* READV and WRITEV through registered files, chained */
static int fill_vec_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], -1 };
	struct io_uring_sqe *sqe;
	int ret = io_uring_register_files(ring, fds, 2);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	c->iov[0].iov_base = c->buf[0];
	c->iov[0].iov_len = 100;
	c->iov[1].iov_base = c->buf[1];
	c->iov[1].iov_len = 200;
	sqe = diff_sqe(ring, c);
	io_uring_prep_readv(sqe, 0, c->iov, 2, 1000);
	diff_tag(sqe, 1, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_writev(sqe, 0, c->iov, 2, 8192);
	diff_tag(sqe, 2, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_readv(sqe, 1, c->iov, 2, 0);
	diff_tag(sqe, 3, IOSQE_FIXED_FILE);
	return 0;
}

static int check_vec_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	static char want[8492];

	(void)cqe;
	(void)nr;
	diff_pattern(want, 8192, 1);
	memcpy(want + 8192, want + 1000, 300);
	return diff_check_file(c, "data", want, sizeof(want));
}

/* RWF_NOWAIT on cached data, RWF_APPEND, RWF_DSYNC, unknown RWF bits */
static int fill_rw_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[0], 4096, 0);
	sqe->rw_flags = RWF_NOWAIT;
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	memcpy(c->buf[1], "tail", 4);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[1], 4, 0);
	sqe->rw_flags = RWF_APPEND;
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[1], 4, 100);
	sqe->rw_flags = RWF_DSYNC;
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[2], 64, 0);
	sqe->rw_flags = 1U << 30;
	diff_tag(sqe, 4, 0);
	return 0;
}

static int check_rw_flags(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	static char want[8196];

	(void)cqe;
	(void)nr;
	diff_pattern(want, 8192, 1);
	memcpy(want + 8192, "tail", 4);
	memcpy(want + 100, "tail", 4);
	return diff_check_file(c, "data", want, sizeof(want));
}

/* ioprio: a valid class on a read, any on a NOP (which takes none) */
static int fill_ioprio(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[0], 64, 0);
	sqe->ioprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4);
	diff_tag(sqe, 1, 0);
	diff_prep_nop(ring, c, 2, 0)->ioprio = 1;
	diff_prep_nop(ring, c, 3, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[0], 64, 0);
	sqe->ioprio = IOPRIO_PRIO_VALUE(7, 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

/* sqe->nop_flags (rw_flags): an unknown bit, then INJECT_RESULT (1) */
static int fill_nop_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_prep_nop(ring, c, 1, 0);
	sqe->rw_flags = (int)(1U << 30);
	sqe = diff_prep_nop(ring, c, 2, 0);
	sqe->rw_flags = 1;
	sqe->len = (__u32)-EPERM;
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

const struct scenario diff_ops[] = {
	{
		.name = "ops_sync_file_range",
		.setup = setup_data,
		.fill = fill_sync_file_range,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
		.known = { { 1, 4096 }, { 2, 0 }, { 3, 0 } },
	}, {
		.name = "ops_openat2_resolve",
		.setup = setup_tree,
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
		.setup = setup_tree,
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
		.setup = setup_tree,
		.fill = fill_statx,
		.check = check_statx,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { NOTE, 1 }, { NOTE + 1, 1 }, { NOTE + 2, 1 } },
	}, {
		.name = "ops_close_odd_fds",
		.setup = setup_data,
		.fill = fill_close,
		.check = check_close,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { NOTE, 1 }, { NOTE + 1, 1 } },
	}, {
		.name = "ops_fallocate_modes",
		.setup = setup_data,
		.fill = fill_fallocate,
		.check = check_fallocate,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
		.known = { { 1, 0 }, { 2, 0 } },
	}, {
		.name = "ops_madvise_dontneed",
		.fill = fill_madvise,
		.check = check_madvise,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { NOTE, 1 }, { NOTE + 1, 1 } },
	}, {
		.name = "ops_fadvise_variants",
		.setup = setup_data,
		.fill = fill_fadvise,
		.nr_cqes = 8,
		.order = ORDER_ANY,
	}, {
		.name = "ops_rename_flags",
		.setup = setup_tree,
		.fill = fill_rename_flags,
		.check = check_rename_flags,
		.nr_cqes = 4,
		.known = { { 1, 0 }, { 2, -EINVAL }, { 3, -EINVAL } },
	}, {
		.name = "ops_name_flags",
		.setup = setup_tree,
		.fill = fill_name_flags,
		.after_submit = diff_submit_rest,
		.check = check_name_flags,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 2, 0 }, { 3, 0 }, { 5, 0 }, { 6, 0 },
			   { NOTE, 1 }, { NOTE + 1, 1 } },
	}, {
		.name = "ops_readv_writev_fixed_files",
		.setup = setup_data,
		.fill = fill_vec_fixed,
		.check = check_vec_fixed,
		.nr_cqes = 3,
		.known = { { 1, 300 }, { 2, 300 }, { 3, -EBADF } },
	}, {
		.name = "ops_rw_flags",
		.setup = setup_data,
		.fill = fill_rw_flags,
		.check = check_rw_flags,
		.nr_cqes = 4,
		.known = { { 1, 4096 }, { 2, 4 }, { 3, 4 } },
	}, {
		.name = "ops_ioprio",
		.setup = setup_data,
		.fill = fill_ioprio,
		.after_submit = diff_submit_rest,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 64 }, { 3, 0 } },
	}, {
		.name = "ops_nop_flags",
		.fill = fill_nop_flags,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
	},
	{ .name = NULL }
};
