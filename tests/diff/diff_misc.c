/* SPDX-License-Identifier: MIT */
/*
 * diff_misc.c - opcodes of several ops/ files: FTRUNCATE (truncate.c),
 * EPOLL_CTL and EPOLL_WAIT (epoll.c; ready at once, and waiting for a
 * pipe written after the submit), PIPE (openclose.c; plain, with flags,
 * direct into the fixed table at a slot or allocated, and what a failed
 * direct PIPE leaves in the table), FIXED_FD_INSTALL (openclose.c;
 * close-on-exec or not), URING_CMD on files that have none (uring_cmd.c),
 * and RECV_ZC with no zero-copy receive queue (zcrx.c): good and bad input
 * for each. Fds the requests make are tracked and normalized; their
 * flags are notes.
 */
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

#define NOTE	1000
#define AR_OP_FIXED_FD_INSTALL	54
#define AR_OP_FTRUNCATE		55
#define AR_OP_RECV_ZC		58
#define AR_OP_EPOLL_WAIT	59
#define AR_OP_PIPE		62

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

/* val[0]: an epoll fd; val[1], val[2]: pipe A; val[3]: pipe B's read end, "xy" in it */
static int setup_epoll(struct diff_ctx *c)
{
	int a[2], b[2], ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return diff_fail(c, "epoll_create1: %s", strerror(errno));
	c->val[0] = diff_track_fd(c, ep);
	if (c->val[0] < 0 || diff_pipe(c, a) || diff_pipe(c, b))
		return -1;
	c->val[1] = a[0];
	c->val[2] = a[1];
	c->val[3] = b[0];
	if (write(b[1], "xy", 2) != 2)
		return diff_fail(c, "write: %s", strerror(errno));
	return 0;
}

static void prep_epoll_ctl(struct io_uring_sqe *sqe, int ep, int fd, int op,
			   struct epoll_event *ev)
{
	io_uring_prep_rw(IORING_OP_EPOLL_CTL, sqe, ep, ev, (unsigned)op,
			 (__u64)fd);
}

/*
 * B (ready) added and waited for at once; A added, waited for while
 * empty, written after the submit. The events land in buf[0] and buf[1].
 */
static int fill_epoll(struct io_uring *ring, struct diff_ctx *c)
{
	struct epoll_event *ev = (struct epoll_event *)c->buf[2];
	struct io_uring_sqe *sqe;

	ev[0].events = EPOLLIN;
	ev[0].data.u64 = 0x1234;
	ev[1].events = EPOLLIN;
	ev[1].data.u64 = 0x5678;
	sqe = diff_sqe(ring, c);
	prep_epoll_ctl(sqe, c->val[0], c->val[3], EPOLL_CTL_ADD, &ev[0]);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_prep_op(ring, c, AR_OP_EPOLL_WAIT, c->val[0], 2,
			   IOSQE_IO_LINK);
	sqe->addr = (unsigned long)c->buf[0];
	sqe->len = 4;
	sqe = diff_sqe(ring, c);
	prep_epoll_ctl(sqe, c->val[0], c->val[3], EPOLL_CTL_DEL, NULL);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_epoll_ctl(sqe, c->val[0], c->val[1], EPOLL_CTL_ADD, &ev[1]);
	diff_tag(sqe, 4, IOSQE_IO_LINK);
	sqe = diff_prep_op(ring, c, AR_OP_EPOLL_WAIT, c->val[0], 5, 0);
	sqe->addr = (unsigned long)c->buf[1];
	sqe->len = 4;
	return 0;
}

/* "hello" into pipe A, once the waits are in */
static int feed_a(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	if (write(c->val[2], "hello", 5) != 5)
		return diff_fail(c, "write: %s", strerror(errno));
	return 0;
}

static int check_epoll(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	struct epoll_event *e0 = (struct epoll_event *)c->buf[0];
	struct epoll_event *e1 = (struct epoll_event *)c->buf[1];

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, (int)e0->data.u64);
	diff_note(c, NOTE + 1, (int)e0->events);
	diff_note(c, NOTE + 2, (int)e1->data.u64);
	diff_note(c, NOTE + 3, (int)e1->events);
	return 0;
}

static int fill_epoll_errors(struct io_uring *ring, struct diff_ctx *c)
{
	struct epoll_event *ev = (struct epoll_event *)c->buf[2];
	int ep = c->val[0];
	struct io_uring_sqe *sqe;

	ev->events = EPOLLIN;
	ev->data.u64 = 1;
	sqe = diff_sqe(ring, c);	/* not added: -ENOENT */
	prep_epoll_ctl(sqe, ep, c->val[1], EPOLL_CTL_MOD, ev);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);	/* not an epoll fd: -EINVAL */
	prep_epoll_ctl(sqe, c->val[1], c->val[3], EPOLL_CTL_ADD, ev);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);	/* a bad epfd: -EBADF */
	prep_epoll_ctl(sqe, 1000, c->val[3], EPOLL_CTL_ADD, ev);
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);	/* an unknown op: -EINVAL */
	prep_epoll_ctl(sqe, ep, c->val[3], 17, ev);
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);	/* DEL ignores the event pointer: -ENOENT */
	prep_epoll_ctl(sqe, ep, c->val[3], EPOLL_CTL_DEL,
		       (struct epoll_event *)8);
	diff_tag(sqe, 5, 0);
	sqe = diff_prep_op(ring, c, AR_OP_EPOLL_WAIT, c->val[1], 6, 0);
	sqe->addr = (unsigned long)c->buf[0];
	sqe->len = 4;			/* a pipe: -EINVAL */
	sqe = diff_prep_op(ring, c, AR_OP_EPOLL_WAIT, ep, 7, 0);
	sqe->addr = (unsigned long)c->buf[0];	/* maxevents 0: -EINVAL */
	sqe = diff_prep_op(ring, c, AR_OP_EPOLL_WAIT, 1000, 8, 0);
	sqe->addr = (unsigned long)c->buf[0];
	sqe->len = 4;			/* -EBADF */
	sqe = diff_prep_op(ring, c, AR_OP_EPOLL_WAIT, ep, 9, 0);
	sqe->len = 4;
	sqe->rw_flags = 1;		/* -EINVAL at prep */
	sqe = diff_sqe(ring, c);	/* an unreadable event: -EFAULT at prep */
	prep_epoll_ctl(sqe, ep, c->val[3], EPOLL_CTL_ADD, NULL);
	diff_tag(sqe, 10, 0);
	sqe = diff_sqe(ring, c);	/* -EINVAL at prep */
	prep_epoll_ctl(sqe, ep, c->val[3], EPOLL_CTL_ADD, ev);
	diff_tag(sqe, 11, 0);
	sqe->buf_index = 1;
	return 0;
}

/* user_data 10..19 return fds: tracked, and normalized */
static void normalize_fds(struct diff_cqe *cqe)
{
	if (cqe->user_data >= 10 && cqe->user_data < 20)
		diff_normalize_fd(cqe);
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

const struct scenario diff_misc[] = {
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
	}, {
		.name = "misc_epoll",
		.setup = setup_epoll,
		.fill = fill_epoll,
		.after_submit = feed_a,
		.check = check_epoll,
		.nr_cqes = 5,
		.order = ORDER_EXACT,
		.known = { { 1, 0 }, { 2, 1 }, { 3, 0 }, { 4, 0 }, { 5, 1 } },
	}, {
		.name = "misc_epoll_errors",
		.setup = setup_epoll,
		.fill = fill_epoll_errors,
		.after_submit = diff_submit_rest,
		.nr_cqes = 11,
		.order = ORDER_ANY,
		.known = { { 1, -ENOENT }, { 3, -EBADF }, { 6, -EINVAL },
			   { 7, -EINVAL }, { 10, -EFAULT } },
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
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 10, DIFF_RES_FD }, { 11, DIFF_RES_FD },
			   { 1, -EBADF }, { 2, -EINVAL }, { 4, -EBADF } },
	}, {
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
