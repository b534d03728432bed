/* SPDX-License-Identifier: MIT */
/*
 * diff_poll.c - POLL_ADD and POLL_REMOVE, and requests waiting for
 * readiness (the readiness backend; both in poll.c), over pipes,
 * socketpairs, eventfds and loopback TCP and UDP: oneshot polls ready
 * at once and ready later, multishot polls (each step deterministic:
 * make the file ready, enter, reap), several polls on one fd, POLLIN
 * and POLLOUT on one socket, the mask the kernel reports (ERR, HUP and
 * RDHUP whether asked or not), updates and removal, the cancel flavours
 * (user_data, fd, fixed fd, opcode, ANY, ALL, sync), link timeouts,
 * links and drain, DEFER_TASKRUN and SQPOLL rings, and the kernel's
 * prep checks.
 */
#include <poll.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include "harness.h"

#define NOTE_SYNC	1000
/* IORING_ASYNC_CANCEL_OP, past liburing 2.3's header */
#define ASYNC_CANCEL_OP	(1U << 5)

static struct io_uring_sqe *prep_poll(struct io_uring *ring, struct diff_ctx *c,
				      __u64 ud, int fd, unsigned mask,
				      unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_poll_add(sqe, fd, mask);
	diff_tag(sqe, ud, flags);
	return sqe;
}

static struct io_uring_sqe *prep_multi(struct io_uring *ring,
				       struct diff_ctx *c, __u64 ud, int fd,
				       unsigned mask)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_poll_multishot(sqe, fd, mask);
	diff_tag(sqe, ud, 0);
	return sqe;
}

static struct io_uring_sqe *prep_remove(struct io_uring *ring,
					struct diff_ctx *c, __u64 ud,
					__u64 target)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_poll_remove(sqe, target);
	diff_tag(sqe, ud, 0);
	return sqe;
}

static int put(struct diff_ctx *c, int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		return diff_fail(c, "write: %s", strerror(errno));
	return 0;
}

static int drain(struct diff_ctx *c, int fd)
{
	char b[256];

	if (read(fd, b, sizeof(b)) <= 0)
		return diff_fail(c, "read: %s", strerror(errno));
	return 0;
}

/* make the file ready, enter, reap n */
static int step(struct io_uring *ring, struct diff_ctx *c, int fd,
		const char *s, unsigned n)
{
	if (put(c, fd, s) || diff_submit(ring, c) < 0)
		return -1;
	return diff_reap(ring, c, n);
}

/* setups */

static int setup_ready_pipe(struct diff_ctx *c)
{
	if (diff_setup_pipes(c))
		return -1;
	return put(c, c->val[1], "hello");
}

static int setup_socketpair(struct diff_ctx *c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return diff_fail(c, "socketpair: %s", strerror(errno));
	if (diff_track_fd(c, sv[0]) < 0 || diff_track_fd(c, sv[1]) < 0)
		return -1;
	c->val[0] = sv[0];
	c->val[1] = sv[1];
	return 0;
}

static int setup_eventfd(struct diff_ctx *c)
{
	int fd = eventfd(0, EFD_NONBLOCK);

	if (fd < 0)
		return diff_fail(c, "eventfd: %s", strerror(errno));
	if (diff_track_fd(c, fd) < 0)
		return -1;
	c->val[0] = c->val[1] = fd;
	return 0;
}

static int loopback(struct diff_ctx *c, int type, struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_INET, type, 0);

	if (fd < 0)
		return diff_fail(c, "socket: %s", strerror(errno));
	if (diff_track_fd(c, fd) < 0)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    getsockname(fd, (struct sockaddr *)sa, &len))
		return diff_fail(c, "bind: %s", strerror(errno));
	return fd;
}

/* val[0] a listening TCP socket, val[1] a client connected to it (not accepted) */
static int setup_tcp_listen(struct diff_ctx *c)
{
	struct sockaddr_in sa;
	int l = loopback(c, SOCK_STREAM, &sa), cl;

	if (l < 0)
		return -1;
	if (listen(l, 4))
		return diff_fail(c, "listen: %s", strerror(errno));
	c->val[0] = l;
	cl = socket(AF_INET, SOCK_STREAM, 0);
	if (cl < 0 || diff_track_fd(c, cl) < 0)
		return diff_fail(c, "socket: %s", strerror(errno));
	c->val[1] = cl;
	c->val[2] = sa.sin_port;
	return 0;
}

/* val[0] the accepted end of a loopback TCP connection, val[1] the client */
static int setup_tcp_conn(struct diff_ctx *c)
{
	struct sockaddr_in sa;
	int l = loopback(c, SOCK_STREAM, &sa), cl, a;

	if (l < 0)
		return -1;
	if (listen(l, 4))
		return diff_fail(c, "listen: %s", strerror(errno));
	cl = socket(AF_INET, SOCK_STREAM, 0);
	if (cl < 0 || diff_track_fd(c, cl) < 0)
		return diff_fail(c, "socket: %s", strerror(errno));
	if (connect(cl, (struct sockaddr *)&sa, sizeof(sa)))
		return diff_fail(c, "connect: %s", strerror(errno));
	a = accept(l, NULL, NULL);
	if (a < 0 || diff_track_fd(c, a) < 0)
		return diff_fail(c, "accept: %s", strerror(errno));
	c->val[0] = a;
	c->val[1] = cl;
	return 0;
}

/* val[0] a bound UDP socket, val[1] one connected to it */
static int setup_udp(struct diff_ctx *c)
{
	struct sockaddr_in sa, sb;
	int a = loopback(c, SOCK_DGRAM, &sa), b;

	if (a < 0)
		return -1;
	b = loopback(c, SOCK_DGRAM, &sb);
	if (b < 0)
		return -1;
	if (connect(b, (struct sockaddr *)&sa, sizeof(sa)))
		return diff_fail(c, "connect: %s", strerror(errno));
	c->val[0] = a;
	c->val[1] = b;
	return 0;
}

/* oneshot */

static int fill_poll_in(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	return 0;
}

static int feed(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	return put(c, c->val[1], "hello");
}

static int feed_eventfd(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	if (eventfd_write(c->val[0], 1))
		return diff_fail(c, "eventfd_write: %s", strerror(errno));
	return 0;
}

/* three oneshot polls for POLLIN on val[0] */
static int fill_three_in(struct io_uring *ring, struct diff_ctx *c)
{
	for (__u64 ud = 1; ud <= 3; ud++)
		prep_poll(ring, c, ud, c->val[0], POLLIN, 0);
	return 0;
}

/*
 * Data comes and is read again before the CQEs are waited for, as in
 * Debian's poll-bench example: the kernel's polls complete from the
 * wakeup, with POLLIN, though the file is empty by the time they post.
 */
static int feed_and_take_back(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	if (put(c, c->val[1], "x"))
		return -1;
	return drain(c, c->val[0]);
}

/* POLLIN|POLLOUT on a pipe's read end holding data: POLLIN only */
static int fill_ready_inout(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN | POLLOUT, 0);
	prep_poll(ring, c, 2, c->val[1], POLLIN | POLLOUT | POLLRDHUP, 0);
	return 0;
}

/* two polls on one pipe, and one on the other, which stays armed */
static int fill_two_on_one(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	prep_poll(ring, c, 2, c->val[0], POLLIN | POLLPRI, 0);
	prep_poll(ring, c, 3, c->val[2], POLLIN, 0);
	return 0;
}

static int feed_then_cancel_b(struct io_uring *ring, struct diff_ctx *c)
{
	if (step(ring, c, c->val[1], "x", 2))
		return -1;
	diff_prep_cancel(ring, c, 4, 3, 0);
	return 0;
}

/* POLLIN waits, POLLOUT on the same socket is ready at once */
static int fill_in_and_out(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	prep_poll(ring, c, 2, c->val[0], POLLOUT, 0);
	return 0;
}

static int reap_out_then_feed(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1))
		return -1;
	return put(c, c->val[1], "hello");
}

/* the peer shuts its side: POLLIN|POLLRDHUP, RDHUP not asked for */
static int peer_shutdown(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	if (shutdown(c->val[1], SHUT_WR))
		return diff_fail(c, "shutdown: %s", strerror(errno));
	return 0;
}

/* the peer closes: the read end sees POLLHUP, the asked POLLOUT end ERR */
static int fill_pipe_hup(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[2], POLLIN, 0);
	return 0;
}

static int close_writer_b(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	/* the harness closes what it tracks: give it a harmless fd instead */
	if (dup2(c->val[0], c->val[3]) < 0)
		return diff_fail(c, "dup2: %s", strerror(errno));
	return 0;
}

/* loopback TCP: a pending connection makes the listener readable */
static int fill_tcp_listen(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	return 0;
}

static int tcp_connect(struct io_uring *ring, struct diff_ctx *c)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = (in_port_t)c->val[2],
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	(void)ring;
	if (connect(c->val[1], (struct sockaddr *)&sa, sizeof(sa)))
		return diff_fail(c, "connect: %s", strerror(errno));
	return 0;
}

/* multishot */

/* each write to the empty pipe: one CQE with F_MORE; then a remove */
static int multi_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	if (step(ring, c, c->val[1], "a", 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "b", 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "c", 1))
		return -1;
	prep_remove(ring, c, 2, 1);
	return 0;
}

static int fill_multi_in(struct io_uring *ring, struct diff_ctx *c)
{
	prep_multi(ring, c, 1, c->val[0], POLLIN);
	return 0;
}

/*
 * DEFER_TASKRUN: a multishot armed on a socket that can be written is
 * looked at when the task waits, not at its submit: data that came
 * meanwhile is in its first CQE (liburing's poll test_missing_events).
 */
static int fill_multi_inout_sock(struct io_uring *ring, struct diff_ctx *c)
{
	prep_multi(ring, c, 1, c->val[0], POLLIN | POLLOUT);
	return 0;
}

static int defer_ready_at_arm(struct io_uring *ring, struct diff_ctx *c)
{
	/*
	 * Time for another thread to look at the armed request before the
	 * write (the user engine's service thread did, under wake=every):
	 * nothing may, whether it runs or not.
	 */
	usleep(5000);
	if (put(c, c->val[1], "x") || diff_reap(ring, c, 1))
		return -1;
	diff_prep_cancel(ring, c, 9, 1, 0);
	return 0;
}

/* eventfd: each write, a CQE; an ASYNC_CANCEL ends it */
static int multi_eventfd(struct io_uring *ring, struct diff_ctx *c)
{
	eventfd_t v;

	if (eventfd_write(c->val[0], 1) || diff_submit(ring, c) < 0 ||
	    diff_reap(ring, c, 1) || eventfd_read(c->val[0], &v) ||
	    eventfd_write(c->val[0], 2) || diff_submit(ring, c) < 0 ||
	    diff_reap(ring, c, 1))
		return diff_fail(c, "eventfd steps");
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* a multishot poll on a ready pipe: one CQE at arming, then one per write */
static int multi_ready(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "b", 1))
		return -1;
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* two multishot polls on one socket, IN and OUT, and a socket send */
static int fill_multi_sock(struct io_uring *ring, struct diff_ctx *c)
{
	prep_multi(ring, c, 1, c->val[0], POLLIN);
	return 0;
}

static int multi_sock(struct io_uring *ring, struct diff_ctx *c)
{
	if (step(ring, c, c->val[1], "one", 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "two", 1))
		return -1;
	diff_prep_cancel_fd(ring, c, 2, c->val[0], IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/* a full CQ: the multishot poll cannot post, it ends with the mask */
static int fill_multi_full(struct io_uring *ring, struct diff_ctx *c)
{
	prep_multi(ring, c, 1, c->val[0], POLLIN);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int multi_full(struct io_uring *ring, struct diff_ctx *c)
{
	int ret;

	if (eventfd_write(c->val[0], 1))
		return diff_fail(c, "eventfd_write: %s", strerror(errno));
	/* an enter (a submit of nothing makes none): the CQ is still full */
	ret = io_uring_get_events(ring);
	return ret < 0 ? diff_fail(c, "get_events: %s", strerror(-ret)) : 0;
}

/* CQE_SKIP_SUCCESS on a oneshot poll: a mask is a success, skipped */
static int fill_skip(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

/* EPOLLEXCLUSIVE: each edge wakes the first exclusive poll only */
static int fill_exclusive(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN | EPOLLEXCLUSIVE, 0);
	prep_poll(ring, c, 2, c->val[0], POLLIN | EPOLLEXCLUSIVE, 0);
	prep_multi(ring, c, 3, c->val[0], POLLIN | EPOLLEXCLUSIVE);
	return 0;
}

static int exclusive_steps(struct io_uring *ring, struct diff_ctx *c)
{
	if (step(ring, c, c->val[1], "a", 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "b", 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "c", 1))
		return -1;
	diff_prep_cancel(ring, c, 9, 3, 0);
	return 0;
}

/* update and remove */

static int remove_one(struct io_uring *ring, struct diff_ctx *c)
{
	prep_remove(ring, c, 2, 1);
	return 0;
}

/*
 * Two polls with one user_data (the masks tell them apart): a remove
 * takes the newest, as the kernel's table finds it (newest first in its
 * chain); the other fires when both pipes are written.
 */
static int fill_same_user_data(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	prep_poll(ring, c, 1, c->val[2], POLLIN | POLLRDNORM, 0);
	return 0;
}

static int remove_newest(struct io_uring *ring, struct diff_ctx *c)
{
	prep_remove(ring, c, 2, 1);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2) ||
	    put(c, c->val[1], "a") || put(c, c->val[3], "b"))
		return -1;
	return 0;
}

/* POLLOUT on a read end never comes: updated to POLLIN and user_data 5 */
static int fill_poll_out_on_reader(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLOUT, 0);
	return 0;
}

static int update_then_feed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_poll_update(sqe, 1, 5, POLLIN,
				  IORING_POLL_UPDATE_EVENTS |
				  IORING_POLL_UPDATE_USER_DATA);
	diff_tag(sqe, 2, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	return put(c, c->val[1], "hello");
}

/* only the user_data of a multishot poll: its next CQEs carry the new one */
static int update_ud_multi(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_poll_update(sqe, 1, 7, 0, IORING_POLL_UPDATE_USER_DATA);
	diff_tag(sqe, 2, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1) ||
	    step(ring, c, c->val[1], "x", 1))
		return -1;
	prep_remove(ring, c, 3, 7);
	return 0;
}

/* a oneshot that fired is gone: update and remove find nothing */
static int update_fired(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (diff_reap(ring, c, 1))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_poll_update(sqe, 1, 0, POLLIN, IORING_POLL_UPDATE_EVENTS);
	diff_tag(sqe, 2, 0);
	prep_remove(ring, c, 3, 1);
	prep_remove(ring, c, 4, 99);
	return 0;
}

/* cancel */

static int fill_cancel_kinds(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	prep_multi(ring, c, 2, c->val[0], POLLIN);
	prep_poll(ring, c, 3, c->val[2], POLLIN, 0);
	prep_multi(ring, c, 4, c->val[2], POLLIN);
	diff_prep_read(ring, c, 5, c->val[2], 16, 0, 0);
	return 0;
}

/*
 * By user_data, by fd with ALL, by opcode with ALL, then ANY: each in a
 * submit of its own, reaped before the next (a request cancelled in the
 * same submit is still found by the kernel's next cancel: an artifact).
 */
static int cancel_kinds(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_cancel(ring, c, 10, 1, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	diff_prep_cancel_fd(ring, c, 11, c->val[0], IORING_ASYNC_CANCEL_ALL);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_cancel64(sqe, 0, ASYNC_CANCEL_OP |
			       IORING_ASYNC_CANCEL_ALL);
	sqe->len = IORING_OP_POLL_ADD;
	diff_tag(sqe, 12, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 3))
		return -1;
	diff_prep_cancel(ring, c, 13, 0, IORING_ASYNC_CANCEL_ANY);
	return 0;
}

/* a fixed file: POLL_ADD on slot 0, cancelled by FD_FIXED */
static int fill_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int ret = io_uring_register_files(ring, &c->val[0], 1);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	prep_multi(ring, c, 1, 0, POLLIN)->flags |= IOSQE_FIXED_FILE;
	prep_poll(ring, c, 2, 0, POLLIN, IOSQE_FIXED_FILE);
	return 0;
}

static int fixed_steps(struct io_uring *ring, struct diff_ctx *c)
{
	if (step(ring, c, c->val[1], "x", 2))
		return -1;
	diff_prep_cancel_fd(ring, c, 3, 0, IORING_ASYNC_CANCEL_FD_FIXED |
			    IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/* unregistering the files: the armed poll keeps its file, as the kernel's */
static int fixed_unregister(struct io_uring *ring, struct diff_ctx *c)
{
	int ret = io_uring_unregister_files(ring);

	if (ret)
		return diff_fail(c, "unregister: %s", strerror(-ret));
	if (put(c, c->val[1], "x") || diff_reap(ring, c, 1))
		return -1;
	diff_prep_cancel(ring, c, 3, 1, 0);
	return 0;
}

static int fill_fixed_one(struct io_uring *ring, struct diff_ctx *c)
{
	int ret = io_uring_register_files(ring, &c->val[0], 1);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	prep_multi(ring, c, 1, 0, POLLIN)->flags |= IOSQE_FIXED_FILE;
	return 0;
}

/* IORING_REGISTER_SYNC_CANCEL of an armed multishot poll */
static int sync_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sync_cancel_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.addr = 1;
	reg.timeout.tv_sec = -1;
	reg.timeout.tv_nsec = -1;
	diff_note(c, NOTE_SYNC, io_uring_register_sync_cancel(ring, &reg));
	reg.addr = 1;
	diff_note(c, NOTE_SYNC + 1, io_uring_register_sync_cancel(ring, &reg));
	return 0;
}

/* links, link timeouts, drain */

static int fill_lt(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	prep_poll(ring, c, 1, c->val[0], POLLIN, IOSQE_IO_LINK);
	diff_ts(c, 0, 20);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

/* the poll fires first: the link timeout is cancelled */
static int fill_lt_ready(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	prep_poll(ring, c, 1, c->val[0], POLLIN, IOSQE_IO_LINK);
	diff_ts(c, 0, 10000);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

/* a read waiting on an empty pipe, guarded by a link timeout */
static int fill_lt_read(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_read(ring, c, 1, c->val[0], 16, 0, IOSQE_IO_LINK);
	diff_ts(c, 0, 20);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

/* a poll heads a chain: its mask is a success, the NOP runs after it */
static int fill_poll_link(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

/* a cancelled poll breaks its chain */
static int fill_poll_link_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int cancel_one(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 3, 1, 0);
	return 0;
}

/* IO_DRAIN behind an armed poll: it waits for the poll */
static int fill_drain(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* a poll with IOSQE_ASYNC */
static int fill_async(struct io_uring *ring, struct diff_ctx *c)
{
	prep_poll(ring, c, 1, c->val[0], POLLIN, IOSQE_ASYNC);
	return 0;
}

/* bad input */

static int fill_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	/* LEVEL: refused at prep on 6.18 */
	sqe = prep_poll(ring, c, 1, c->val[0], POLLIN, 0);
	sqe->len = IORING_POLL_ADD_LEVEL;
	sqe = prep_poll(ring, c, 2, c->val[0], POLLIN, 0);
	sqe->len = 1U << 5;
	sqe = prep_poll(ring, c, 3, c->val[0], POLLIN, 0);
	sqe->addr = 1;
	sqe = prep_poll(ring, c, 4, c->val[0], POLLIN, 0);
	sqe->off = 1;
	sqe = prep_poll(ring, c, 5, c->val[0], POLLIN, 0);
	sqe->buf_index = 1;
	sqe = prep_multi(ring, c, 6, c->val[0], POLLIN);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	sqe = prep_poll(ring, c, 7, c->val[0], POLLIN, 0);
	sqe->ioprio = 1;
	/* unknown mask bits are dropped, not refused: the pipe is ready */
	prep_poll(ring, c, 8, c->val[0], POLLIN | (1U << 20) | (1U << 16), 0);
	/* a closed fd */
	prep_poll(ring, c, 9, 1000, POLLIN, 0);
	/* nothing asked: ERR/HUP/RDHUP only, never on this pipe */
	prep_poll(ring, c, 10, c->val[2], 0, 0);
	return 0;
}

static int fill_bad_remove(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	prep_remove(ring, c, 1, 99);
	sqe = prep_remove(ring, c, 2, 99);
	sqe->len = IORING_POLL_ADD_MULTI;
	sqe = prep_remove(ring, c, 3, 99);
	sqe->off = 5;
	sqe = prep_remove(ring, c, 4, 99);
	sqe->poll32_events = POLLIN;
	sqe = prep_remove(ring, c, 5, 99);
	sqe->buf_index = 1;
	sqe = prep_remove(ring, c, 6, 99);
	sqe->len = 1U << 4;
	sqe = prep_remove(ring, c, 7, 99);
	sqe->splice_fd_in = 1;
	return 0;
}

/* the last submit of a scenario: cancel what is left */
static int cancel_multi(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 9, 1, 0);
	return 0;
}

static int defer_multi(struct io_uring *ring, struct diff_ctx *c)
{
	if (step(ring, c, c->val[1], "a", 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "b", 1))
		return -1;
	return cancel_multi(ring, c);
}

static int udp_steps(struct io_uring *ring, struct diff_ctx *c)
{
	if (step(ring, c, c->val[1], "dgram", 1) || drain(c, c->val[0]) ||
	    step(ring, c, c->val[1], "dgram2", 1))
		return -1;
	return cancel_multi(ring, c);
}

const struct scenario diff_poll[] = {
	{
		.name = "poll_ready_at_once",
		.setup = setup_ready_pipe,
		.fill = fill_ready_inout,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, POLLOUT } },
	}, {
		.name = "poll_pipe_waits",
		.setup = diff_setup_pipes,
		.fill = fill_poll_in,
		.after_submit = feed,
		.nr_cqes = 1,
		.known = { { 1, POLLIN } },
	}, {
		.name = "poll_eventfd_waits",
		.setup = setup_eventfd,
		.fill = fill_poll_in,
		.after_submit = feed_eventfd,
		.nr_cqes = 1,
		.known = { { 1, POLLIN } },
	}, {
		.name = "poll_pipe_emptied_before_wait",
		.setup = diff_setup_pipes,
		.fill = fill_three_in,
		.after_submit = feed_and_take_back,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, POLLIN }, { 2, POLLIN }, { 3, POLLIN } },
	}, {
		.name = "poll_socketpair_emptied_before_wait",
		.setup = setup_socketpair,
		.fill = fill_three_in,
		.after_submit = feed_and_take_back,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, POLLIN }, { 2, POLLIN }, { 3, POLLIN } },
	}, {
		.name = "poll_two_on_one_pipe",
		.setup = diff_setup_pipes,
		.fill = fill_two_on_one,
		.after_submit = feed_then_cancel_b,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, POLLIN }, { 2, POLLIN }, { 3, -ECANCELED },
			   { 4, 0 } },
	}, {
		.name = "poll_in_and_out_socketpair",
		.setup = setup_socketpair,
		.fill = fill_in_and_out,
		.after_submit = reap_out_then_feed,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 2, POLLOUT }, { 1, POLLIN } },
	}, {
		.name = "poll_peer_shutdown_rdhup",
		.setup = setup_socketpair,
		.fill = fill_poll_in,
		.after_submit = peer_shutdown,
		.nr_cqes = 1,
		.known = { { 1, POLLIN | POLLRDHUP } },
	}, {
		.name = "poll_pipe_writer_closed_hup",
		.setup = diff_setup_pipes,
		.fill = fill_pipe_hup,
		.after_submit = close_writer_b,
		.nr_cqes = 1,
		.known = { { 1, POLLHUP } },
	}, {
		.name = "poll_tcp_listener",
		.setup = setup_tcp_listen,
		.fill = fill_tcp_listen,
		.after_submit = tcp_connect,
		.nr_cqes = 1,
		.known = { { 1, POLLIN } },
	}, {
		.name = "poll_tcp_data",
		.setup = setup_tcp_conn,
		.fill = fill_poll_in,
		.after_submit = feed,
		.nr_cqes = 1,
		.known = { { 1, POLLIN } },
	}, {
		.name = "poll_multi_pipe",
		.setup = diff_setup_pipes,
		.fill = fill_multi_in,
		.after_submit = multi_pipe,
		.nr_cqes = 5,
		.order = ORDER_EXACT,
		.known = { { 2, 0 } },
	}, {
		.name = "poll_multi_eventfd",
		.setup = setup_eventfd,
		.fill = fill_multi_in,
		.after_submit = multi_eventfd,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, 0 } },
	}, {
		.name = "poll_multi_ready_at_arming",
		.setup = setup_ready_pipe,
		.fill = fill_multi_in,
		.after_submit = multi_ready,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, 0 } },
	}, {
		.name = "poll_multi_socketpair",
		.setup = setup_socketpair,
		.fill = fill_multi_sock,
		.after_submit = multi_sock,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, 1 } },
	}, {
		.name = "poll_multi_udp",
		.setup = setup_udp,
		.fill = fill_multi_sock,
		.after_submit = udp_steps,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 9, 0 } },
	}, {
		.name = "poll_multi_defer_taskrun",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.setup = diff_setup_pipes,
		.fill = fill_multi_in,
		.after_submit = defer_multi,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 9, 0 } },
	}, {
		.name = "poll_multi_defer_ready_at_arm",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.setup = setup_socketpair,
		.fill = fill_multi_inout_sock,
		.after_submit = defer_ready_at_arm,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN | POLLOUT }, { 9, 0 } },
	}, {
		.name = "poll_sqpoll",
		.setup_flags = IORING_SETUP_SQPOLL,
		.setup = setup_ready_pipe,
		.fill = fill_ready_inout,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, POLLIN }, { 2, POLLOUT } },
	}, {
		.name = "poll_sqpoll_link_timeout",
		.setup_flags = IORING_SETUP_SQPOLL,
		.setup = diff_setup_pipes,
		.fill = fill_lt,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "poll_multi_cq_full",
		.entries = 2,
		.cq_entries = 2,
		.setup = setup_eventfd,
		.fill = fill_multi_full,
		.after_submit = multi_full,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 2, 0 }, { 3, 0 }, { 1, POLLIN } },
	}, {
		.name = "poll_skip_success",
		.setup = setup_ready_pipe,
		.fill = fill_skip,
		.nr_cqes = 1,
		.known = { { 2, 0 } },
	}, {
		.name = "poll_exclusive",
		.setup = diff_setup_pipes,
		.fill = fill_exclusive,
		.after_submit = exclusive_steps,
		.nr_cqes = 5,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, POLLIN }, { 3, POLLIN },
			   { 9, 0 } },
	}, {
		.name = "poll_remove",
		.setup = diff_setup_pipes,
		.fill = fill_poll_in,
		.after_submit = remove_one,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 2, 0 }, { 1, -ECANCELED } },
	}, {
		.name = "poll_remove_same_user_data",
		.setup = diff_setup_pipes,
		.fill = fill_same_user_data,
		.after_submit = remove_newest,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 2, 0 }, { 1, -ECANCELED } },
	}, {
		.name = "poll_update_events_user_data",
		.setup = diff_setup_pipes,
		.fill = fill_poll_out_on_reader,
		.after_submit = update_then_feed,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 2, 0 }, { 5, POLLIN } },
	}, {
		.name = "poll_update_user_data_multi",
		.setup = diff_setup_pipes,
		.fill = fill_multi_in,
		.after_submit = update_ud_multi,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 2, 0 }, { 7, POLLIN }, { 3, 0 } },
	}, {
		.name = "poll_update_fired_oneshot",
		.setup = setup_ready_pipe,
		.fill = fill_poll_in,
		.after_submit = update_fired,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, -ENOENT }, { 3, -ENOENT },
			   { 4, -ENOENT } },
	}, {
		.name = "poll_cancel_kinds",
		.setup = diff_setup_pipes,
		.fill = fill_cancel_kinds,
		.after_submit = cancel_kinds,
		.nr_cqes = 9,
		.order = ORDER_ANY,
		.known = { { 10, 0 }, { 11, 1 }, { 12, 2 }, { 13, 1 },
			   { 5, -ECANCELED }, { 1, -ECANCELED } },
	}, {
		.name = "poll_fixed_file",
		.setup = diff_setup_pipes,
		.fill = fill_fixed,
		.after_submit = fixed_steps,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, POLLIN }, { 2, POLLIN }, { 3, 1 } },
	}, {
		.name = "poll_fixed_unregistered",
		.setup = diff_setup_pipes,
		.fill = fill_fixed_one,
		.after_submit = fixed_unregister,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 3, 0 } },
	}, {
		.name = "poll_sync_cancel",
		.setup = diff_setup_pipes,
		.fill = fill_multi_in,
		.after_submit = sync_cancel,
		.nr_cqes = 1,
		.known = { { 1, -ECANCELED } },
	}, {
		.name = "poll_link_timeout",
		.setup = diff_setup_pipes,
		.fill = fill_lt,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "poll_link_timeout_ready",
		.setup = setup_ready_pipe,
		.fill = fill_lt_ready,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, -ECANCELED } },
	}, {
		.name = "poll_read_link_timeout",
		.setup = diff_setup_pipes,
		.fill = fill_lt_read,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "poll_link_chain",
		.setup = diff_setup_pipes,
		.fill = fill_poll_link,
		.after_submit = feed,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, 0 } },
	}, {
		.name = "poll_link_chain_cancelled",
		.setup = diff_setup_pipes,
		.fill = fill_poll_link_cancel,
		.after_submit = cancel_one,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ECANCELED }, { 3, 0 } },
	}, {
		.name = "poll_drain",
		.setup = diff_setup_pipes,
		.fill = fill_drain,
		.after_submit = feed,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 1, POLLIN }, { 2, 0 }, { 3, 0 } },
	}, {
		.name = "poll_async",
		.setup = diff_setup_pipes,
		.fill = fill_async,
		.after_submit = feed,
		.nr_cqes = 1,
		.known = { { 1, POLLIN } },
	}, {
		.name = "poll_bad_input",
		.setup = setup_ready_pipe,
		.fill = fill_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 9,
		.order = ORDER_ANY,
		.known = { { 1, -EINVAL }, { 2, -EINVAL }, { 3, -EINVAL },
			   { 6, -EINVAL }, { 7, -EINVAL }, { 8, POLLIN },
			   { 9, -EBADF } },
	}, {
		.name = "poll_remove_bad_input",
		.fill = fill_bad_remove,
		.after_submit = diff_submit_rest,
		.nr_cqes = 7,
		.order = ORDER_ANY,
		.known = { { 1, -ENOENT }, { 2, -EINVAL }, { 3, -EINVAL },
			   { 4, -EINVAL }, { 5, -EINVAL }, { 6, -EINVAL },
			   { 7, -EINVAL } },
	},
	{ .name = NULL }
};
