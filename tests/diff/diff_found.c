/* SPDX-License-Identifier: MIT */
/*
 * diff_found.c - the fuzzer's findings (tests/fuzz/findings), each as a
 * scenario once the user engine was fixed: the batch of the finding and
 * its neighbours, so the fix stays proved on the kernel.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "harness.h"

/*
 * val[0], val[1]: a unix stream socketpair; val[2]: an unconnected TCP
 * socket (a unix one answers shutdown() 0); val[3]: a file
 */
static int setup_socks(struct diff_ctx *c)
{
	int sv[2], s;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return diff_fail(c, "socketpair: %s", strerror(errno));
	c->val[0] = diff_track_fd(c, sv[0]);
	c->val[1] = diff_track_fd(c, sv[1]);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return diff_fail(c, "socket: %s", strerror(errno));
	c->val[2] = diff_track_fd(c, s);
	c->val[3] = diff_file(c, "f", "x", 1, O_RDWR);
	return c->val[0] < 0 || c->val[1] < 0 || c->val[2] < 0 ||
	       c->val[3] < 0 ? -1 : 0;
}

static void prep_shutdown(struct io_uring *ring, struct diff_ctx *c, int fd,
			  int how, __u64 ud)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_shutdown(sqe, fd, how);
	diff_tag(sqe, ud, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, ud + 1, 0);
}

/*
 * shutdown-error-does-not-break-link: io_shutdown() sets the socket's
 * answer as the result without failing the request, so a bad how
 * (-EINVAL) or an unconnected socket (-ENOTCONN) lets the linked NOP
 * run; a file that is no socket (-ENOTSOCK) fails it and breaks the link.
 */
static int fill_shutdown_link(struct io_uring *ring, struct diff_ctx *c)
{
	prep_shutdown(ring, c, c->val[0], 3, 1);
	prep_shutdown(ring, c, c->val[2], SHUT_RDWR, 3);
	prep_shutdown(ring, c, c->val[3], SHUT_RDWR, 5);
	prep_shutdown(ring, c, c->val[1], SHUT_WR, 7);
	return 0;
}


/* val[0]: a file of 8192 bytes */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, 8192, O_RDWR);
}

static void write_fixed(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
			void *buf)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_write_fixed(sqe, 0, buf, 512, 0, 0);
	diff_tag(sqe, ud, IOSQE_FIXED_FILE);
}

/*
 * close-direct-then-write-fixed-buffer-first: CLOSE of direct slot 0,
 * then WRITE_FIXED through the slot, one submit: the file is looked up
 * before the registered buffer is (io_assign_file() at issue), so the
 * emptied slot answers -EBADF, whatever the buffer's address.
 */
static int fill_close_then_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int fd = c->val[0], ret;

	c->iov[0].iov_base = c->buf[0];
	c->iov[0].iov_len = 4096;
	ret = io_uring_register_buffers(ring, c->iov, 1);
	if (!ret)
		ret = io_uring_register_files(ring, &fd, 1);
	if (ret)
		return diff_fail(c, "register: %s", strerror(-ret));
	io_uring_prep_close_direct(diff_sqe(ring, c), 0);
	diff_tag(&ring->sq.sqes[(ring->sq.sqe_tail - 1) & ring->sq.ring_mask],
		 1, 0);
	write_fixed(ring, c, 2, c->buf[1]);
	write_fixed(ring, c, 3, c->buf[0]);
	return 0;
}


/* val[0], val[1]: a unix stream socketpair, 8 bytes queued at val[1]; val[3]: a file */
static int setup_queued(struct diff_ctx *c)
{
	if (setup_socks(c))
		return -1;
	if (write(c->val[0], "abcdefgh", 8) != 8)
		return diff_fail(c, "write: %s", strerror(errno));
	return 0;
}

static struct io_uring_sqe *recv_sqe(struct io_uring *ring, struct diff_ctx *c,
				     __u64 ud, int fd, unsigned flags,
				     bool poll_first)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_recv(sqe, fd, c->buf[ud % DIFF_NBUF], 16, (int)flags);
	if (poll_first)
		sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, ud, 0);
	return sqe;
}

/*
 * recv-poll-first-dontwait-bad-fd, send-poll-first-dontwait-bad-fd:
 * POLL_FIRST with MSG_DONTWAIT answers -EAGAIN without a try only once
 * the file was assigned (-EBADF) and found a socket (-ENOTSOCK), as
 * io_send()/io_recvmsg() (io_recv() answers before it looks for a
 * socket: -EAGAIN on a file); ACCEPT's DONTWAIT|POLL_FIRST only
 * after the file (-EBADF). recv-peek-sock-nonempty: a receive that
 * peeked leaves the data queued: IORING_CQE_F_SOCK_NONEMPTY.
 */
static int fill_nowait_first(struct io_uring *ring, struct diff_ctx *c)
{
	static struct msghdr m;
	static struct iovec iov;
	struct io_uring_sqe *sqe;

	recv_sqe(ring, c, 1, 9999, MSG_DONTWAIT, true);
	recv_sqe(ring, c, 2, c->val[3], MSG_DONTWAIT, true);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send(sqe, c->val[3], "x", 1, MSG_DONTWAIT);
	sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 3, 0);
	iov.iov_base = c->buf[0];
	iov.iov_len = 16;
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_recvmsg(sqe, c->val[3], &m, MSG_DONTWAIT);
	sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, 9999, NULL, NULL, 0);
	sqe->ioprio |= 2 | 4;	/* IORING_ACCEPT_DONTWAIT | _POLL_FIRST */
	diff_tag(sqe, 5, 0);
	recv_sqe(ring, c, 6, c->val[1], MSG_PEEK, false);
	recv_sqe(ring, c, 7, c->val[1], MSG_PEEK | MSG_DONTWAIT, true);
	return 0;
}


/*
 * splice-into-read-end-offset-order: SPLICE from a directory (open for
 * reading) into a pipe's read end with an output offset: do_splice()
 * finds the output not open for writing first (-EBADF), where splice(2)
 * answers the offset on a pipe (-ESPIPE); the same into the write end
 * is -ESPIPE on both.
 */
static int fill_splice_order(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_splice(sqe, c->dirfd, -1, p[0], 0, 64, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_splice(sqe, c->val[3], -1, p[1], 0, 64, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_splice(sqe, p[1], -1, c->val[3], -1, 64, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}


/*
 * send-poll-first-file-waits: POLL_FIRST without MSG_DONTWAIT on a file
 * that is no socket: SENDMSG and SEND answer -ENOTSOCK at once (the
 * engine waited for the file's readiness, for good on a pipe's read
 * end); on a closed fd -EBADF, RECV too.
 */
static int fill_poll_first_file(struct io_uring *ring, struct diff_ctx *c)
{
	static struct msghdr m;
	static struct iovec iov;
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	iov.iov_base = c->buf[0];
	iov.iov_len = 16;
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_sendmsg(sqe, p[0], &m, 0);
	sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send(sqe, p[0], "x", 1, 0);
	sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 2, 0);
	recv_sqe(ring, c, 3, 9999, 0, true);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, 9999, NULL, NULL, 0);
	sqe->ioprio |= 4;	/* IORING_ACCEPT_POLL_FIRST */
	diff_tag(sqe, 4, 0);
	return 0;
}

/*
 * accept-mshot-poll-first-regular-file: a multishot ACCEPT (and RECV)
 * with POLL_FIRST on a regular file: the poll cannot be armed, the
 * request goes to io-wq, which fails a multishot request on a file it
 * cannot poll: -EBADFD (io_wq_submit_work). Without multishot, io-wq
 * issues it without REQ_F_POLLED and POLL_FIRST answers -EAGAIN again
 * (ACCEPT and RECV look at it before the socket). The user engine
 * answered -ENOTSOCK to all.
 */
static int fill_mshot_poll_first_file(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int fd = diff_file(c, "reg", "data", 4, O_RDWR);

	if (fd < 0)
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_multishot_accept(sqe, fd, NULL, NULL, 0);
	sqe->ioprio |= 4;	/* IORING_ACCEPT_POLL_FIRST */
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, fd, NULL, NULL, 0);
	sqe->ioprio |= 4;
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
	sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	sqe->buf_group = 3;
	diff_tag(sqe, 3, IOSQE_BUFFER_SELECT);
	sqe = diff_sqe(ring, c);
	io_uring_prep_recv(sqe, fd, c->buf[0], 16, 0);
	sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 4, 0);
	/* and no file at all: io-wq fails the assignment first, -EBADF */
	sqe = diff_sqe(ring, c);
	io_uring_prep_multishot_accept(sqe, -1, NULL, NULL, 0);
	sqe->ioprio |= 4 | 2;	/* POLL_FIRST | DONTWAIT */
	diff_tag(sqe, 5, IOSQE_ASYNC);
	return 0;
}

const struct scenario diff_found[] = {
	{
		.name = "found_shutdown_error_link",
		.entries = 16,
		.setup = setup_socks,
		.fill = fill_shutdown_link,
		.nr_cqes = 8,
		.order = ORDER_ANY,
		.known = { { 1, -EINVAL }, { 2, 0 }, { 3, -ENOTCONN }, { 4, 0 },
			   { 5, -ENOTSOCK }, { 6, -ECANCELED }, { 7, 0 },
			   { 8, 0 } },
	}, {
		.name = "found_close_direct_then_write_fixed",
		.setup = setup_data,
		.fill = fill_close_then_fixed,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 1, 0 }, { 2, -EBADF }, { 3, -EBADF } },
	}, {
		.name = "found_nowait_first_file_then_peek",
		.setup = setup_queued,
		.fill = fill_nowait_first,
		.nr_cqes = 7,
		.known = { { 1, -EBADF }, { 2, -EAGAIN }, { 3, -ENOTSOCK },
			   { 4, -ENOTSOCK }, { 5, -EBADF }, { 6, 8 }, { 7, -EAGAIN } },
	}, {
		.name = "found_splice_mode_before_offset",
		.setup = setup_socks,
		.fill = fill_splice_order,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ESPIPE }, { 3, -EBADF } },
	}, {
		.name = "found_poll_first_not_a_socket",
		.setup = setup_socks,
		.fill = fill_poll_first_file,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, -ENOTSOCK }, { 2, -ENOTSOCK }, { 3, -EBADF },
			   { 4, -EBADF } },
	}, {
		.name = "found_mshot_poll_first_regular_file",
		.setup = setup_socks,
		.fill = fill_mshot_poll_first_file,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.known = { { 1, -EBADFD }, { 2, -EAGAIN }, { 3, -EBADFD },
			   { 4, -EAGAIN }, { 5, -EBADF } },
	},
	{ .name = NULL },
};
