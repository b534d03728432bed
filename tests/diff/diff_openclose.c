/* SPDX-License-Identifier: MIT */
/*
 * diff_openclose.c - OPENAT, OPENAT2, CLOSE, FIXED_FD_INSTALL and PIPE
 * (ops/openclose.c): OPENAT relative to a dirfd and absolute, creating,
 * missing, O_EXCL on an existing file, flag variants (TRUNC, TMPFILE,
 * PATH, DIRECTORY), a FIFO (the kernel's inline attempt is
 * non-blocking); OPENAT2 with resolve flags and bad open_how; CLOSE, also
 * of odd fds (a pipe end, the ring's own fd, IOSQE_FIXED_FILE);
 * FIXED_FD_INSTALL, close-on-exec or not; PIPE plain, with flags, direct
 * into the fixed table at a slot or allocated, and what a failed direct
 * PIPE leaves in the table: good and bad input for each. The fds that
 * CQEs return are normalized to "fd>=0" (the number depends on what else
 * the process has open); the post-checks fstat() the real fds and track
 * them for closing. Observations made afterwards (a file's size, an
 * fd's flags) are notes. OPENAT and CLOSE on direct descriptors (the
 * file table's slots): diff_rsrc.c.
 */
#include <fcntl.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include "harness.h"

#define FILE_LEN	8192
#define NOTE		1000

/* past liburing 2.3's header */
#define AR_OP_FIXED_FD_INSTALL	54
#define AR_OP_PIPE		62

/* val[0]: "data", FILE_LEN bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, FILE_LEN, O_RDWR);
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

static struct io_uring_sqe *sqe_openat2(struct io_uring *ring, struct diff_ctx *c,
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
	sqe_openat2(ring, c, 10, "data", 0, O_RDONLY, 0, 0);
	sqe_openat2(ring, c, 11, "new", 1, O_CREAT | O_WRONLY, 0600, 0);
	sqe_openat2(ring, c, 12, "d/../data", 2, O_RDONLY, 0, RESOLVE_BENEATH);
	sqe_openat2(ring, c, 13, "lnk", 3, O_RDONLY, 0, 0);
	sqe_openat2(ring, c, 14, "/data", 4, O_RDONLY, 0, RESOLVE_IN_ROOT);
	sqe_openat2(ring, c, 2, "lnk", 5, O_RDONLY, 0, RESOLVE_NO_SYMLINKS);
	sqe_openat2(ring, c, 3, "/tmp", 6, O_RDONLY, 0, RESOLVE_BENEATH);
	sqe_openat2(ring, c, 4, "lnk", 7, O_RDONLY | O_NOFOLLOW, 0, 0);
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

	sqe_openat2(ring, c, 1, "data", 0, O_RDONLY, 0, 0)->len = 16;
	memset(c->buf[3], 0, 64);
	big->flags = O_RDONLY;
	c->buf[3][sizeof(*big)] = 1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat2(sqe, c->dirfd, "data", big);
	sqe->len = sizeof(*big) + 8;
	diff_tag(sqe, 2, 0);
	sqe_openat2(ring, c, 3, "data", 1, O_RDONLY, 0, 1ULL << 40);
	sqe_openat2(ring, c, 4, "data", 2, O_RDONLY, 0600, 0);
	sqe_openat2(ring, c, 5, "data", 3, O_RDONLY | (1ULL << 40), 0, 0);
	sqe_openat2(ring, c, 10, "data", 4, O_RDONLY, 0, 0)->len =
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

/* the fd flags of what ud made, as a note; tracked for closing */
static void note_fd(struct diff_ctx *c, const struct diff_cqe *cqe,
		    unsigned nr, __u64 ud, __u64 key)
{
	const struct diff_cqe *q = diff_find(cqe, nr, ud);

	if (!q || q->res < 0)
		return;
	diff_track_fd(c, q->res);
	diff_note(c, key, fcntl(q->res, F_GETFD));
}

static void prep_pipe(struct io_uring_sqe *sqe, int *fds, unsigned flags,
		      unsigned file_index)
{
	io_uring_prep_rw(AR_OP_PIPE, sqe, 0, fds, 0, 0);
	sqe->rw_flags = (int)flags;
	sqe->file_index = file_index;
}

static int fill_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	int *fds = (int *)c->buf[0];
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	prep_pipe(sqe, fds, 0, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_pipe(sqe, fds + 2, O_CLOEXEC | O_NONBLOCK, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);	/* an unknown flag: -EINVAL */
	prep_pipe(sqe, fds + 4, O_APPEND, 0);
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);	/* sqe->fd set: -EINVAL */
	prep_pipe(sqe, fds + 4, 0, 0);
	sqe->fd = 1;
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);	/* nowhere to write them: -EFAULT */
	prep_pipe(sqe, NULL, 0, 0);
	diff_tag(sqe, 5, 0);
	sqe = diff_sqe(ring, c);	/* no file table: -ENXIO */
	prep_pipe(sqe, fds + 4, 0, 1);
	diff_tag(sqe, 6, 0);
	sqe = diff_sqe(ring, c);	/* ... and allocating: -ENFILE */
	prep_pipe(sqe, fds + 4, 0, IORING_FILE_INDEX_ALLOC);
	diff_tag(sqe, 7, 0);
	return 0;
}

/* the pipes work, and carry the flags asked for; fds tracked */
static int check_pipe(struct diff_ctx *c, const struct diff_cqe *cqe,
		      unsigned nr)
{
	int *fds = (int *)c->buf[0];
	char b[8];

	for (unsigned i = 0; i < 2; i++) {
		const struct diff_cqe *q = diff_find(cqe, nr, i + 1);

		if (!q || q->res)
			continue;
		diff_track_fd(c, fds[2 * i]);
		diff_track_fd(c, fds[2 * i + 1]);
		diff_note(c, NOTE + 4 * i, fcntl(fds[2 * i], F_GETFD));
		diff_note(c, NOTE + 4 * i + 1, fcntl(fds[2 * i + 1], F_GETFL) &
			  (O_NONBLOCK | O_ACCMODE));
		diff_note(c, NOTE + 4 * i + 2,
			  (int)write(fds[2 * i + 1], "ab", 2));
		diff_note(c, NOTE + 4 * i + 3, (int)read(fds[2 * i], b, 2));
	}
	diff_note(c, NOTE + 8, fds[4]);	/* untouched by the failures */
	return c->msg[0] ? -1 : 0;
}

/* 4 sparse slots; pipes at slot 1 (and 2), allocated, then failures */
static int fill_pipe_direct(struct io_uring *ring, struct diff_ctx *c)
{
	int *fds = (int *)c->buf[0];
	struct io_uring_sqe *sqe;
	int ret = io_uring_register_files_sparse(ring, 4);

	if (ret)
		return diff_fail(c, "register sparse: %d", ret);
	fds[0] = fds[1] = fds[2] = fds[3] = -7;
	sqe = diff_sqe(ring, c);
	prep_pipe(sqe, fds, 0, 2);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);	/* through the slots: write, then read */
	io_uring_prep_write(sqe, 2, "direct", 6, 0);
	diff_tag(sqe, 2, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, 1, c->buf[1], 6, 0);
	diff_tag(sqe, 3, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	/* hard links from here: the failures do not end the chain */
	sqe = diff_sqe(ring, c);	/* slots 0 and 3 are left: allocated */
	prep_pipe(sqe, fds + 2, 0, IORING_FILE_INDEX_ALLOC);
	diff_tag(sqe, 4, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);	/* the table is full: -ENFILE */
	prep_pipe(sqe, fds + 4, 0, IORING_FILE_INDEX_ALLOC);
	diff_tag(sqe, 5, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);	/* O_CLOEXEC: -EINVAL */
	prep_pipe(sqe, fds + 4, O_CLOEXEC, 1);
	diff_tag(sqe, 6, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);	/* replaces slot 3, fails at slot 4: -EINVAL */
	prep_pipe(sqe, fds + 4, 0, 4);
	diff_tag(sqe, 7, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);	/* ... which is left empty */
	io_uring_prep_close_direct(sqe, 3);
	diff_tag(sqe, 8, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);	/* ... and slot 0 still holds its end */
	io_uring_prep_close_direct(sqe, 0);
	diff_tag(sqe, 9, 0);
	return 0;
}

static int check_pipe_direct(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	int *fds = (int *)c->buf[0];

	(void)cqe;
	(void)nr;
	for (unsigned i = 0; i < 6; i++)
		diff_note(c, NOTE + i, fds[i]);
	if (memcmp(c->buf[1], "direct", 6))
		return diff_fail(c, "read the wrong bytes through the slots");
	return 0;
}

/* files [data, pipe read end] registered, then installed as fds */
static int fill_install(struct io_uring *ring, struct diff_ctx *c)
{
	const __u8 op = AR_OP_FIXED_FD_INSTALL;
	int fds[2] = { c->val[0], c->val[1] }, ret;
	struct io_uring_sqe *sqe;

	ret = io_uring_register_files(ring, fds, 2);
	if (ret)
		return diff_fail(c, "register files: %d", ret);
	diff_prep_op(ring, c, op, 0, 10, IOSQE_FIXED_FILE);
	sqe = diff_prep_op(ring, c, op, 1, 11, IOSQE_FIXED_FILE);
	sqe->rw_flags = 1;		/* IORING_FIXED_FD_NO_CLOEXEC */
	diff_prep_op(ring, c, op, c->val[0], 1, 0);		/* -EBADF */
	sqe = diff_prep_op(ring, c, op, 0, 2, IOSQE_FIXED_FILE);
	sqe->rw_flags = 2;		/* -EINVAL */
	sqe = diff_prep_op(ring, c, op, 0, 3, IOSQE_FIXED_FILE);
	sqe->off = 1;			/* -EINVAL */
	diff_prep_op(ring, c, op, 9, 4, IOSQE_FIXED_FILE);	/* -EBADF */
	/* with a personality: -EPERM, the task's own credentials only */
	ret = io_uring_register_personality(ring);
	if (ret < 0)
		return diff_fail(c, "register personality: %d", ret);
	sqe = diff_prep_op(ring, c, op, 0, 5, IOSQE_FIXED_FILE);
	sqe->personality = (__u16)ret;
	return 0;
}

/* the installed fds: close-on-exec or not, and the file behind them */
static int check_install(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	const struct diff_cqe *q = diff_find(cqe, nr, 10);
	struct stat a, b;

	note_fd(c, cqe, nr, 10, NOTE);
	note_fd(c, cqe, nr, 11, NOTE + 1);
	if (q && q->res >= 0 && !fstat(q->res, &a) && !fstat(c->val[0], &b))
		diff_note(c, NOTE + 2, a.st_ino == b.st_ino);
	return c->msg[0] ? -1 : 0;
}

const struct scenario diff_openclose[] = {
	{
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
		.name = "ops_close_odd_fds",
		.setup = setup_data,
		.fill = fill_close_odd,
		.check = check_close_odd,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { NOTE, 1 }, { NOTE + 1, 1 } },
	}, {
		.name = "misc_pipe",
		.fill = fill_pipe,
		.after_submit = diff_submit_rest,
		.check = check_pipe,
		.nr_cqes = 7,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, 0 }, { 3, -EINVAL }, { 5, -EFAULT },
			   { 6, -ENXIO }, { 7, -ENFILE } },
	}, {
		.name = "misc_pipe_direct",
		.entries = 16,
		.fill = fill_pipe_direct,
		.check = check_pipe_direct,
		.nr_cqes = 9,
		.order = ORDER_EXACT,
		.known = { { 1, 0 }, { 2, 6 }, { 3, 6 }, { 4, 0 },
			   { 5, -ENFILE }, { 6, -EINVAL }, { 7, -EINVAL },
			   { 9, 0 } },
	}, {
		.name = "misc_fixed_fd_install",
		.setup = diff_setup_data_pipe,
		.fill = fill_install,
		.after_submit = diff_submit_rest,
		.check = check_install,
		.normalize = normalize_fds,
		.nr_cqes = 7,
		.order = ORDER_ANY,
		.known = { { 10, DIFF_RES_FD }, { 11, DIFF_RES_FD },
			   { 1, -EBADF }, { 2, -EINVAL }, { 4, -EBADF },
			   { 5, -EPERM } },
	},
	{ .name = NULL }
};
