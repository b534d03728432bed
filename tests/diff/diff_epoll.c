/* SPDX-License-Identifier: MIT */
/*
 * diff_epoll.c - EPOLL_CTL and EPOLL_WAIT (ops/epoll.c): a pipe added and
 * waited for while ready, another waited for while empty and written
 * after the submit; and the errors of each: an fd not added, not an
 * epoll fd, a bad fd, an unknown op, a pipe or maxevents 0 for
 * EPOLL_WAIT, an unreadable event, prep's checks. The events returned
 * are notes.
 */
#include <sys/epoll.h>
#include <unistd.h>
#include "harness.h"

#define NOTE	1000

/* past liburing 2.3's header */
#define AR_OP_EPOLL_WAIT	59

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

const struct scenario diff_epoll[] = {
	{
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
	},
	{ .name = NULL }
};
