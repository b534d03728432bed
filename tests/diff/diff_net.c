/* SPDX-License-Identifier: MIT */
/*
 * diff_net.c - the socket opcodes (ops/net.c) against the kernel:
 * SOCKET (plain and direct), BIND, LISTEN, SHUTDOWN, CONNECT, ACCEPT
 * (oneshot, multishot, direct), SEND/RECV (MSG_WAITALL's partial rules,
 * POLL_FIRST, SOCK_NONEMPTY), SENDMSG/RECVMSG (iovecs, names, the
 * msghdr written back), SEND_ZC/SENDMSG_ZC (the result, then the
 * NOTIF), and the bad input of each. Over socketpairs and loopback TCP,
 * UDP and unix sockets; ports are the kernel's (bind port 0) and never
 * compared: notes say whether an address was the expected one. fds that
 * CQEs return are normalized (user_data 10..19); slots are compared as
 * they are. Every scenario is deterministic: data is in place before
 * the submit, or the order comes from links. The found_* scenarios are
 * the fuzzer's findings (tests/fuzz/findings): POLL_FIRST on what is
 * not a socket, MSG_PEEK, SHUTDOWN's errors in a link.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/net_tstamp.h>
#include <unistd.h>
#include <stdbool.h>
#include "harness.h"

#define NOTE	1000

/* flags past liburing 2.3's header */
#define ACCEPT_DONTWAIT		(1U << 1)
#define ACCEPT_POLL_FIRST	(1U << 2)
#define SEND_ZC_REPORT_USAGE	(1U << 3)
#define RECVSEND_BUNDLE		(1U << 4)
#define OP_BIND			56
#define OP_LISTEN		57

/* c->buf[3] holds the scenario's addresses */
static struct sockaddr_in *addr_slot(struct diff_ctx *c, unsigned i)
{
	return (struct sockaddr_in *)c->buf[3] + i;
}

static int track(struct diff_ctx *c, int fd, const char *what)
{
	if (fd < 0)
		return diff_fail(c, "%s: %s", what, strerror(errno));
	return diff_track_fd(c, fd);
}

/* a socket bound to 127.0.0.1, port 0; its address in addr_slot(c, i) */
static int bound(struct diff_ctx *c, int type, unsigned i)
{
	struct sockaddr_in *a = addr_slot(c, i);
	socklen_t len = sizeof(*a);
	int fd = track(c, socket(AF_INET, type, 0), "socket");

	if (fd < 0)
		return -1;
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a->sin_port = 0;
	if (bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    getsockname(fd, (struct sockaddr *)a, &len))
		return diff_fail(c, "bind: %s", strerror(errno));
	return fd;
}

/* val[0]: a TCP listener, its address in slot 0 */
static int listener(struct diff_ctx *c)
{
	c->val[0] = bound(c, SOCK_STREAM, 0);
	if (c->val[0] < 0)
		return -1;
	if (listen(c->val[0], 8))
		return diff_fail(c, "listen: %s", strerror(errno));
	return 0;
}

static int tcp_client(struct diff_ctx *c, int flags)
{
	int fd = track(c, socket(AF_INET, SOCK_STREAM | flags, 0), "socket");

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)addr_slot(c, 0), sizeof(struct sockaddr_in)) &&
	    errno != EINPROGRESS)
		return diff_fail(c, "connect: %s", strerror(errno));
	return fd;
}

/* val[0] listener, val[1] client, val[2] the accepted end */
static int setup_tcp_pair(struct diff_ctx *c)
{
	if (listener(c))
		return -1;
	c->val[1] = tcp_client(c, 0);
	if (c->val[1] < 0)
		return -1;
	c->val[2] = track(c, accept(c->val[0], NULL, NULL), "accept");
	return c->val[2] < 0 ? -1 : 0;
}

/* val[0], val[1]: a unix stream socketpair */
static int setup_pair_type(struct diff_ctx *c, int type)
{
	int sv[2];

	if (socketpair(AF_UNIX, type, 0, sv))
		return diff_fail(c, "socketpair: %s", strerror(errno));
	c->val[0] = track(c, sv[0], "socketpair");
	c->val[1] = track(c, sv[1], "socketpair");
	return c->val[0] < 0 || c->val[1] < 0 ? -1 : 0;
}

static int setup_pair(struct diff_ctx *c)
{
	return setup_pair_type(c, SOCK_STREAM);
}

static int setup_pair_dgram(struct diff_ctx *c)
{
	return setup_pair_type(c, SOCK_DGRAM);
}

/* and 8 bytes queued at val[1] */
static int setup_pair_data(struct diff_ctx *c)
{
	if (setup_pair(c))
		return -1;
	if (write(c->val[0], "abcdefgh", 8) != 8)
		return diff_fail(c, "write: %s", strerror(errno));
	return 0;
}

/* val[0], val[1]: UDP sockets on 127.0.0.1 (addresses in slots 0, 1) */
static int setup_udp(struct diff_ctx *c)
{
	c->val[0] = bound(c, SOCK_DGRAM, 0);
	if (c->val[0] < 0)
		return -1;
	c->val[1] = bound(c, SOCK_DGRAM, 1);
	return c->val[1] < 0 ? -1 : 0;
}

static struct io_uring_sqe *sqe_at(struct io_uring *ring, struct diff_ctx *c,
				   __u64 ud, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_nop(sqe);
	diff_tag(sqe, ud, flags);
	return sqe;
}

static void prep_send(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		      int fd, const void *buf, unsigned len, int msg_flags,
		      unsigned sqe_flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_send(sqe, fd, buf, len, msg_flags);
	diff_tag(sqe, ud, sqe_flags);
}

static void prep_recv(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		      int fd, void *buf, unsigned len, int msg_flags,
		      unsigned sqe_flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_recv(sqe, fd, buf, len, msg_flags);
	diff_tag(sqe, ud, sqe_flags);
}

/* user_data 10..19 return fds */
static void normalize_fds(struct diff_cqe *cqe)
{
	if (cqe->user_data >= 10 && cqe->user_data < 20)
		diff_normalize_fd(cqe);
}

static int check_fds(struct diff_ctx *c, const struct diff_cqe *cqe,
		     unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (cqe[i].res >= 0 && cqe[i].user_data >= 10 &&
		    cqe[i].user_data < 20 && !(cqe[i].flags & IORING_CQE_F_NOTIF))
			diff_track_fd(c, cqe[i].res);
	return c->msg[0] ? -1 : 0;
}

/*
 * val[2]: an accepted TCP socket with 8 bytes queued and then a reset
 * from its peer (closed with SO_LINGER 0), which has arrived: an error
 * pending behind the data.
 */
static int setup_tcp_reset(struct diff_ctx *c)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct pollfd p;
	int cl;

	if (listener(c))
		return -1;
	cl = socket(AF_INET, SOCK_STREAM, 0);
	if (cl < 0 || connect(cl, (struct sockaddr *)addr_slot(c, 0),
			      sizeof(struct sockaddr_in)))
		return diff_fail(c, "connect: %s", strerror(errno));
	c->val[2] = track(c, accept(c->val[0], NULL, NULL), "accept");
	if (c->val[2] < 0 || write(cl, "abcdefgh", 8) != 8 ||
	    setsockopt(cl, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) || close(cl))
		return diff_fail(c, "reset: %s", strerror(errno));
	p.fd = c->val[2];
	p.events = POLLIN;
	p.revents = 0;
	if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLERR))
		return diff_fail(c, "the reset did not arrive");
	return 0;
}

/*
 * The data, then the reset's -ECONNRESET, then EOF: the first receive's
 * SOCK_NONEMPTY check must not take the pending error (a peek would).
 */
static int fill_tcp_reset(struct io_uring *ring, struct diff_ctx *c)
{
	prep_recv(ring, c, 1, c->val[2], c->buf[1], 8, 0, IOSQE_IO_HARDLINK);
	prep_recv(ring, c, 2, c->val[2], c->buf[1] + 8, 64, 0, IOSQE_IO_HARDLINK);
	prep_recv(ring, c, 3, c->val[2], c->buf[1] + 8, 64, 0, 0);
	return 0;
}

/* ---- socketpair: send, recv, SOCK_NONEMPTY, WAITALL, POLL_FIRST ---- */

/* a send and two receives in a chain: 8 bytes, read as 3 (NONEMPTY) then 5 */
static int fill_pair_basic(struct io_uring *ring, struct diff_ctx *c)
{
	memcpy(c->buf[0], "abcdefgh", 8);
	prep_send(ring, c, 1, c->val[0], c->buf[0], 8, 0, IOSQE_IO_LINK);
	prep_recv(ring, c, 2, c->val[1], c->buf[1], 3, 0, IOSQE_IO_LINK);
	prep_recv(ring, c, 3, c->val[1], c->buf[1] + 3, 64, 0, 0);
	return 0;
}

static int check_pair_basic(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[1], "abcdefgh", 8, "received");
}

/*
 * MSG_WAITALL for 16 with 8 queued: the receive waits for the rest (the
 * peer writes it after the submit) and reports 16. Then one for 8 with
 * 4 queued and the peer's end shut: 4, and the link breaks (NOP 4).
 */
static int fill_waitall(struct io_uring *ring, struct diff_ctx *c)
{
	prep_recv(ring, c, 1, c->val[1], c->buf[1], 16, MSG_WAITALL, 0);
	return 0;
}

static int waitall_rest(struct io_uring *ring, struct diff_ctx *c)
{
	if (write(c->val[0], "ijklmnop", 8) != 8)
		return diff_fail(c, "write: %s", strerror(errno));
	if (diff_reap(ring, c, 1))
		return -1;
	if (write(c->val[0], "wxyz", 4) != 4 || shutdown(c->val[0], SHUT_WR))
		return diff_fail(c, "write: %s", strerror(errno));
	prep_recv(ring, c, 3, c->val[1], c->buf[2], 8, MSG_WAITALL, IOSQE_IO_LINK);
	sqe_at(ring, c, 4, 0);
	return 0;
}

static int check_waitall(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[1], "abcdefghijklmnop", 16, "waitall"))
		return -1;
	return diff_check_buf(c, c->buf[2], "wxyz", 4, "waitall eof");
}

/*
 * Sends that wait on one TCP socket: its buffers filled first, SEND of
 * 4 KiB of 'A', SENDMSG of 'B', SEND of 'C' (MSG_WAITALL), then the peer
 * reads everything. Each send's bytes arrive whole on both engines; 6.18
 * re-issues the waiting sends newest first (C, B, A), the user engine in
 * submission order (A, B, C: docs/semantics.md D95), which the user
 * engine's run checks. val[1] sends, val[2] reads, val[3] counts the fill.
 */
static int setup_tcp_full(struct diff_ctx *c)
{
	char junk[4096];
	int sz = 4096;

	memset(junk, 'j', sizeof(junk));
	if (setup_tcp_pair(c))
		return -1;
	if (setsockopt(c->val[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) ||
	    fcntl(c->val[1], F_SETFL, O_NONBLOCK))
		return diff_fail(c, "setup: %s", strerror(errno));
	c->val[3] = 0;
	for (;;) {
		ssize_t n = write(c->val[1], junk, sizeof(junk));

		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return diff_fail(c, "fill: %s", strerror(errno));
		c->val[3] += (int)n;
	}
}

static int fill_send_order(struct io_uring *ring, struct diff_ctx *c)
{
	static struct iovec iov;
	static struct msghdr mh;
	struct io_uring_sqe *sqe;

	memset(c->buf[0], 'A', DIFF_BUFSZ);
	memset(c->buf[1], 'B', DIFF_BUFSZ);
	memset(c->buf[2], 'C', DIFF_BUFSZ);
	prep_send(ring, c, 1, c->val[1], c->buf[0], DIFF_BUFSZ, MSG_WAITALL, 0);
	iov = (struct iovec){ c->buf[1], DIFF_BUFSZ };
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	sqe = diff_sqe(ring, c);
	io_uring_prep_sendmsg(sqe, c->val[1], &mh, MSG_WAITALL);
	diff_tag(sqe, 2, 0);
	prep_send(ring, c, 3, c->val[1], c->buf[2], DIFF_BUFSZ, MSG_WAITALL, 0);
	return 0;
}

/* read the fill and the three sends: the order of the sends' bytes */
static int send_order_rest(struct io_uring *ring, struct diff_ctx *c)
{
	long want = c->val[3] + 3L * DIFF_BUFSZ, got = 0;
	char b[4096], order[4] = "";
	int k = 0;

	while (got < want) {
		ssize_t n = read(c->val[2], b, sizeof(b));

		if (n <= 0)
			return diff_fail(c, "read: %s", n ? strerror(errno) : "EOF");
		for (ssize_t i = 0; i < n; i++, got++) {
			if (got < c->val[3] || (k && order[k - 1] == b[i]))
				continue;
			if (k == 3)
				return diff_fail(c, "the sends' bytes interleaved");
			order[k++] = b[i];
		}
	}
	if (!strcmp(c->engine, "user") && strcmp(order, "ABC"))
		return diff_fail(c, "the sends went out as %s", order);
	return diff_reap(ring, c, 3);
}

/* MSG_WAITALL on a datagram socket: no retry, the datagram's size */
static int fill_waitall_dgram(struct io_uring *ring, struct diff_ctx *c)
{
	if (write(c->val[0], "abc", 3) != 3)
		return diff_fail(c, "write: %s", strerror(errno));
	prep_recv(ring, c, 1, c->val[1], c->buf[1], 16, MSG_WAITALL, 0);
	return 0;
}

/*
 * POLL_FIRST with the socket ready (both go at once), MSG_DONTWAIT with
 * nothing to read (-EAGAIN, not a wait), MSG_PEEK, then a POLL_FIRST
 * receive that waits for the peer's write after the submit.
 */
static int fill_poll_first(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_recv(sqe, c->val[1], c->buf[1], 4, MSG_PEEK);
	sqe->ioprio = IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_recv(sqe, c->val[1], c->buf[1], 64, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	prep_recv(ring, c, 3, c->val[1], c->buf[2], 64, MSG_DONTWAIT, 0);
	return 0;
}

static int poll_first_rest(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (diff_reap(ring, c, 3))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_recv(sqe, c->val[1], c->buf[2], 64, 0);
	sqe->ioprio = IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send(sqe, c->val[0], "xy", 2, 0);
	sqe->ioprio = IORING_RECVSEND_POLL_FIRST;
	diff_tag(sqe, 5, 0);
	return 0;
}

/* ---- SENDMSG / RECVMSG ---- */

/*
 * SENDMSG of three iovecs (12 bytes); RECVMSG into two of 4 (NONEMPTY,
 * the msghdr written back); the rest with MSG_TRUNC on a datagram pair.
 */
static int fill_msg(struct io_uring *ring, struct diff_ctx *c)
{
	struct msghdr *sm = (struct msghdr *)c->buf[2];
	struct msghdr *rm = sm + 1;
	struct iovec *siov = (struct iovec *)(rm + 1), *riov = siov + 3;
	struct io_uring_sqe *sqe;

	memcpy(c->buf[0], "0123456789ab", 12);
	siov[0] = (struct iovec){ c->buf[0], 2 };
	siov[1] = (struct iovec){ c->buf[0] + 2, 0 };
	siov[2] = (struct iovec){ c->buf[0] + 2, 10 };
	riov[0] = (struct iovec){ c->buf[1], 4 };
	riov[1] = (struct iovec){ c->buf[1] + 4, 4 };
	memset(sm, 0, 2 * sizeof(*sm));
	sm->msg_iov = siov;
	sm->msg_iovlen = 3;
	rm->msg_iov = riov;
	rm->msg_iovlen = 2;
	rm->msg_name = c->buf[3] + 512;
	rm->msg_namelen = 64;
	rm->msg_flags = 0x7777;
	sqe = diff_sqe(ring, c);
	io_uring_prep_sendmsg(sqe, c->val[0], sm, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_recvmsg(sqe, c->val[1], rm, 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

static int check_msg(struct diff_ctx *c, const struct diff_cqe *cqe,
		     unsigned nr)
{
	struct msghdr *rm = (struct msghdr *)c->buf[2] + 1;

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, (int)rm->msg_namelen);
	diff_note(c, NOTE + 1, rm->msg_flags);
	diff_note(c, NOTE + 2, (int)rm->msg_controllen);
	return diff_check_buf(c, c->buf[1], "01234567", 8, "recvmsg");
}

/* UDP: sendto (SEND with addr2), RECVMSG with a name, SENDMSG with one, RECV */
static int fill_udp(struct io_uring *ring, struct diff_ctx *c)
{
	struct msghdr *sm = (struct msghdr *)c->buf[2];
	struct msghdr *rm = sm + 1;
	struct iovec *iov = (struct iovec *)(rm + 1);
	struct io_uring_sqe *sqe;

	memcpy(c->buf[0], "datagram", 8);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send(sqe, c->val[0], c->buf[0], 8, 0);
	sqe->addr2 = (unsigned long)addr_slot(c, 1);
	sqe->addr_len = sizeof(struct sockaddr_in);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	iov[0] = (struct iovec){ c->buf[1], 5 };
	memset(sm, 0, 2 * sizeof(*sm));
	rm->msg_iov = iov;
	rm->msg_iovlen = 1;
	rm->msg_name = addr_slot(c, 4);
	rm->msg_namelen = sizeof(struct sockaddr_in);
	sqe = diff_sqe(ring, c);
	io_uring_prep_recvmsg(sqe, c->val[1], rm, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	iov[1] = (struct iovec){ c->buf[0], 8 };
	sm->msg_iov = iov + 1;
	sm->msg_iovlen = 1;
	sm->msg_name = addr_slot(c, 0);
	sm->msg_namelen = sizeof(struct sockaddr_in);
	sqe = diff_sqe(ring, c);
	io_uring_prep_sendmsg(sqe, c->val[1], sm, 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	prep_recv(ring, c, 4, c->val[0], c->buf[2] + 1024, 64, 0, IOSQE_IO_LINK);
	/* SEND_ZC with a destination, on UDP */
	sqe = diff_sqe(ring, c);
	io_uring_prep_send(sqe, c->val[0], c->buf[0], 8, 0);
	sqe->opcode = IORING_OP_SEND_ZC;
	sqe->addr2 = (unsigned long)addr_slot(c, 1);
	sqe->addr_len = sizeof(struct sockaddr_in);
	diff_tag(sqe, 5, IOSQE_IO_LINK);
	prep_recv(ring, c, 6, c->val[1], c->buf[2] + 2048, 64, 0, 0);
	return 0;
}

static int check_udp(struct diff_ctx *c, const struct diff_cqe *cqe,
		     unsigned nr)
{
	struct msghdr *rm = (struct msghdr *)c->buf[2] + 1;
	struct sockaddr_in *from = addr_slot(c, 4);

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, (int)rm->msg_namelen);
	diff_note(c, NOTE + 1, rm->msg_flags);
	diff_note(c, NOTE + 2, from->sin_port == addr_slot(c, 0)->sin_port);
	return diff_check_buf(c, c->buf[2] + 1024, "datagram", 8, "udp");
}

/* ---- TCP: accept, connect, send/recv, shutdown, FIN's NONEMPTY ---- */

/* an ACCEPT waiting, then a CONNECT to it from a blocking socket */
static int setup_tcp_listen(struct diff_ctx *c)
{
	if (listener(c))
		return -1;
	c->val[1] = track(c, socket(AF_INET, SOCK_STREAM, 0), "socket");
	return c->val[1] < 0 ? -1 : 0;
}

static int fill_tcp_accept(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);
	socklen_t *len = (socklen_t *)(c->buf[3] + 256);

	*len = sizeof(struct sockaddr_in);
	io_uring_prep_accept(sqe, c->val[0], (struct sockaddr *)addr_slot(c, 2),
			     len, SOCK_CLOEXEC);
	diff_tag(sqe, 10, 0);
	return 0;
}

static int tcp_accept_rest(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	const struct diff_cqe *acc;
	int fd;

	sqe = diff_sqe(ring, c);
	io_uring_prep_connect(sqe, c->val[1], (struct sockaddr *)addr_slot(c, 0),
			      sizeof(struct sockaddr_in));
	diff_tag(sqe, 1, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	acc = diff_find(c->early, c->nr_early, 10);
	if (!acc || acc->res < 0)
		return diff_fail(c, "no accepted fd");
	fd = diff_track_fd(c, acc->res);
	if (fd < 0)
		return -1;
	diff_note(c, NOTE, fcntl(fd, F_GETFD));
	diff_note(c, NOTE + 1, *(socklen_t *)(c->buf[3] + 256));
	memcpy(c->buf[0], "request!", 8);
	prep_send(ring, c, 2, c->val[1], c->buf[0], 8, 0, IOSQE_IO_LINK);
	prep_recv(ring, c, 3, fd, c->buf[1], 3, 0, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_shutdown(sqe, c->val[1], SHUT_WR);
	diff_tag(sqe, 4, IOSQE_IO_LINK);
	/* the rest (5 bytes) and the FIN: NONEMPTY from tcp_inq_hint */
	prep_recv(ring, c, 5, fd, c->buf[1] + 3, 5, MSG_WAITALL, IOSQE_IO_LINK);
	prep_recv(ring, c, 6, fd, c->buf[1] + 8, 64, 0, 0);
	return 0;
}

/* the pair's order varies (which ends first); their sums do not */
static void normalize_tcp(struct diff_cqe *cqe)
{
	normalize_fds(cqe);
}

/* ACCEPT with connections queued: NONEMPTY on the first; DONTWAIT with none */
static int setup_tcp_backlog(struct diff_ctx *c)
{
	if (listener(c) || tcp_client(c, 0) < 0 || tcp_client(c, 0) < 0)
		return -1;
	return 0;
}

static int fill_accept_backlog(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, c->val[0], NULL, NULL, 0);
	diff_tag(sqe, 10, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, c->val[0], NULL, NULL, SOCK_NONBLOCK);
	sqe->ioprio = ACCEPT_POLL_FIRST;
	diff_tag(sqe, 11, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, c->val[0], NULL, NULL, 0);
	sqe->ioprio = ACCEPT_DONTWAIT;
	diff_tag(sqe, 1, 0);
	return 0;
}

static int check_accept_backlog(struct diff_ctx *c, const struct diff_cqe *cqe,
				unsigned nr)
{
	const struct diff_cqe *nb = diff_find(cqe, nr, 11);

	if (check_fds(c, cqe, nr))
		return -1;
	if (nb && nb->res >= 0)
		diff_note(c, NOTE, !!(fcntl(nb->res, F_GETFL) & O_NONBLOCK));
	return 0;
}

/*
 * Multishot ACCEPT with two connections queued, a third after the
 * submit, then cancelled: three CQEs with MORE, the final -ECANCELED.
 */
static int fill_accept_multi(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_multishot_accept(sqe, c->val[0], NULL, NULL, 0);
	diff_tag(sqe, 10, 0);
	return 0;
}

/*
 * The listener shut down ends it (-EINVAL, no MORE): deterministic, where
 * a cancel right after a CQE may meet the request between its CQE and
 * its re-arm on the user engine (docs/semantics.md).
 */
static int accept_multi_rest(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 2))
		return -1;
	if (tcp_client(c, 0) < 0 || diff_reap(ring, c, 1))
		return -1;
	if (shutdown(c->val[0], SHUT_RDWR))
		return diff_fail(c, "shutdown: %s", strerror(errno));
	return 0;
}

static int check_accept_multi(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (cqe[i].user_data == 10 && cqe[i].res >= 0 &&
		    diff_track_fd(c, cqe[i].res) < 0)
			return -1;
	return 0;
}

/* multishot ACCEPT into allocated slots; a fixed slot is refused for it */
static int fill_accept_direct(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int ret = io_uring_register_files_sparse(ring, 4);

	if (ret)
		return diff_fail(c, "register: %s", strerror(-ret));
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept_direct(sqe, c->val[0], NULL, NULL, 0, 2);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_multishot_accept_direct(sqe, c->val[0], NULL, NULL, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_multishot_accept_direct(sqe, c->val[0], NULL, NULL, 0);
	sqe->file_index = 3;
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept_direct(sqe, c->val[0], NULL, NULL, SOCK_CLOEXEC, 1);
	diff_tag(sqe, 4, 0);
	return 0;
}

static int accept_direct_rest(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 5))
		return -1;
	if (shutdown(c->val[0], SHUT_RDWR))
		return diff_fail(c, "shutdown: %s", strerror(errno));
	return 0;
}

static int setup_tcp_backlog3(struct diff_ctx *c)
{
	if (setup_tcp_backlog(c) || tcp_client(c, 0) < 0)
		return -1;
	return 0;
}

/* CONNECT from an O_NONBLOCK socket: still completes (0), then EISCONN */
static int setup_tcp_nb(struct diff_ctx *c)
{
	if (listener(c))
		return -1;
	c->val[1] = track(c, socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0),
			  "socket");
	/* a bound, not listening port: a connect there is refused */
	c->val[2] = bound(c, SOCK_STREAM, 1);
	c->val[3] = track(c, socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0),
			  "socket");
	return c->val[1] < 0 || c->val[2] < 0 || c->val[3] < 0 ? -1 : 0;
}

static int fill_connect_nb(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_connect(sqe, c->val[1], (struct sockaddr *)addr_slot(c, 0),
			      sizeof(struct sockaddr_in));
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_connect(sqe, c->val[1], (struct sockaddr *)addr_slot(c, 0),
			      sizeof(struct sockaddr_in));
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_connect(sqe, c->val[3], (struct sockaddr *)addr_slot(c, 1),
			      sizeof(struct sockaddr_in));
	diff_tag(sqe, 3, 0);
	return 0;
}

/*
 * IOSQE_ASYNC CONNECT on a DEFER_TASKRUN ring: io-wq arms its wait for
 * POLLOUT after the task went to sleep in the ring, and the readiness
 * must still reach the task (it waited for good)
 */
static int fill_connect_async(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_connect(sqe, c->val[1], (struct sockaddr *)addr_slot(c, 0),
			      sizeof(struct sockaddr_in));
	diff_tag(sqe, 1, IOSQE_ASYNC);
	return 0;
}

/*
 * val[0] a listener whose accept queue (backlog 0) a first connection
 * fills, so that another SYN is dropped and the next connect stalls for
 * a second or more; val[2] a blocking socket to connect there
 */
static int setup_backlog_full(struct diff_ctx *c)
{
	c->val[0] = bound(c, SOCK_STREAM, 0);
	if (c->val[0] < 0)
		return -1;
	if (listen(c->val[0], 0))
		return diff_fail(c, "listen: %s", strerror(errno));
	c->val[1] = tcp_client(c, 0);
	c->val[2] = track(c, socket(AF_INET, SOCK_STREAM, 0), "socket");
	return c->val[1] < 0 || c->val[2] < 0 ? -1 : 0;
}

/*
 * CONNECT on a blocking socket waits for POLLOUT without blocking, as the
 * kernel's: a LINK_TIMEOUT ends it (-ECANCELED, the timeout -ETIME)
 */
static int fill_connect_block_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	static struct __kernel_timespec ts = { 0, 1000000 };
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_connect(sqe, c->val[2], (struct sockaddr *)addr_slot(c, 0),
			      sizeof(struct sockaddr_in));
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

/* ---- SOCKET, BIND, LISTEN, direct ---- */

static int fill_socket(struct io_uring *ring, struct diff_ctx *c)
{
	struct sockaddr_in *a = addr_slot(c, 0);
	struct io_uring_sqe *sqe;
	int ret = io_uring_register_files_sparse(ring, 4);

	if (ret)
		return diff_fail(c, "register: %s", strerror(-ret));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, 0);
	diff_tag(sqe, 10, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket(sqe, AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, 0);
	diff_tag(sqe, 11, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM | O_APPEND, 0, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket(sqe, 4242, SOCK_STREAM, 0, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, 1, 0);
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket(sqe, AF_INET, SOCK_DGRAM, IPPROTO_TCP, 0);
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, 9, 0);
	diff_tag(sqe, 5, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM, 0, 0);
	sqe->addr = 1;
	diff_tag(sqe, 6, 0);
	/* a direct socket in slot 2, bound and listening through the slot */
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, 2, 0);
	diff_tag(sqe, 20, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_rw(OP_BIND, sqe, 2, a, 0, sizeof(*a));
	diff_tag(sqe, 21, IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	sqe = diff_sqe(ring, c);
	io_uring_prep_rw(OP_LISTEN, sqe, 2, NULL, 4, 0);
	diff_tag(sqe, 22, IOSQE_IO_LINK | IOSQE_FIXED_FILE);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket_direct_alloc(sqe, AF_INET, SOCK_DGRAM, 0, 0);
	diff_tag(sqe, 23, 0);
	return 0;
}

static int fill_socket_unreg(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, 1, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_socket_direct_alloc(sqe, AF_INET, SOCK_STREAM, 0, 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

/* ---- zero copy ---- */

/* over a TCP pair: SEND_ZC (reported, fixed buffer), SENDMSG_ZC, all received */
static int fill_zc(struct io_uring *ring, struct diff_ctx *c)
{
	struct msghdr *m = (struct msghdr *)c->buf[2];
	struct iovec *iov = (struct iovec *)(m + 1);
	struct io_uring_sqe *sqe;
	int ret;

	c->iov[0] = (struct iovec){ c->buf[0], DIFF_BUFSZ };
	ret = io_uring_register_buffers(ring, c->iov, 1);
	if (ret)
		return diff_fail(c, "register buffers: %s", strerror(-ret));
	memcpy(c->buf[0], "zerocopysendmsgz", 16);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send_zc(sqe, c->val[1], c->buf[0], 4, 0, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send_zc(sqe, c->val[1], c->buf[0] + 4, 4, 0,
			      SEND_ZC_REPORT_USAGE);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send_zc_fixed(sqe, c->val[1], c->buf[0] + 8, 4, 0, 0, 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	iov[0] = (struct iovec){ c->buf[0] + 12, 4 };
	memset(m, 0, sizeof(*m));
	m->msg_iov = iov;
	m->msg_iovlen = 1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_sendmsg_zc(sqe, c->val[1], m, 0);
	diff_tag(sqe, 4, IOSQE_IO_LINK);
	prep_recv(ring, c, 5, c->val[2], c->buf[1], 16, MSG_WAITALL, 0);
	/* a fixed range past the registered buffer; an unregistered index */
	sqe = diff_sqe(ring, c);
	io_uring_prep_send_zc_fixed(sqe, c->val[1], c->buf[0] + 4000, 200, 0, 0, 0);
	diff_tag(sqe, 6, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send_zc_fixed(sqe, c->val[1], c->buf[0], 4, 0, 0, 3);
	diff_tag(sqe, 7, 0);
	return 0;
}

static int check_zc(struct diff_ctx *c, const struct diff_cqe *cqe, unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[1], "zerocopysendmsgz", 16, "zc");
}

/* ---- bad input ---- */

static int setup_bad(struct diff_ctx *c)
{
	int p[2];

	if (setup_pair(c) || diff_pipe(c, p))
		return -1;
	c->val[2] = p[1];
	c->val[3] = diff_file(c, "f", "x", 1, O_RDWR);
	return c->val[3] < 0 ? -1 : 0;
}

static struct io_uring_sqe *bad_sqe(struct io_uring *ring, struct diff_ctx *c,
				    __u64 ud)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_tag(sqe, ud, 0);
	return sqe;
}

static int fill_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct sockaddr_in *a = addr_slot(c, 0);
	struct io_uring_sqe *sqe;
	int s0 = c->val[0], pipe_w = c->val[2], file = c->val[3];

	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	io_uring_prep_rw(OP_BIND, bad_sqe(ring, c, 1), pipe_w, a, 0, sizeof(*a));
	io_uring_prep_rw(OP_LISTEN, bad_sqe(ring, c, 2), file, NULL, 1, 0);
	io_uring_prep_connect(bad_sqe(ring, c, 3), 999, (struct sockaddr *)a, sizeof(*a));
	io_uring_prep_accept(bad_sqe(ring, c, 4), s0, NULL, NULL, O_APPEND);
	sqe = bad_sqe(ring, c, 5);
	io_uring_prep_accept(sqe, s0, NULL, NULL, 0);
	sqe->len = 1;
	io_uring_prep_accept(bad_sqe(ring, c, 6), s0, NULL, NULL, 0);
	sqe = bad_sqe(ring, c, 7);
	io_uring_prep_shutdown(sqe, s0, SHUT_RD);
	sqe->off = 1;
	io_uring_prep_shutdown(bad_sqe(ring, c, 8), s0, 7);
	io_uring_prep_send(bad_sqe(ring, c, 9), pipe_w, "x", 1, 0);
	io_uring_prep_recv(bad_sqe(ring, c, 20), file, c->buf[1], 1, 0);
	sqe = bad_sqe(ring, c, 21);
	io_uring_prep_send(sqe, s0, "x", 1, 0);
	sqe->ioprio = IORING_RECVSEND_FIXED_BUF;
	sqe = bad_sqe(ring, c, 22);
	io_uring_prep_recv(sqe, s0, c->buf[1], 0, 0);
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe = bad_sqe(ring, c, 23);
	io_uring_prep_send(sqe, s0, "x", 1, 0);
	sqe->ioprio = RECVSEND_BUNDLE;
	sqe = bad_sqe(ring, c, 24);
	io_uring_prep_recv(sqe, s0, c->buf[1], 1, 0);
	sqe->addr2 = 1;
	io_uring_prep_rw(OP_BIND, bad_sqe(ring, c, 25), s0, a, 0, 129);
	io_uring_prep_connect(bad_sqe(ring, c, 26), s0, (struct sockaddr *)a, 0);
	io_uring_prep_send_zc(bad_sqe(ring, c, 27), s0, "x", 1, 0, 0);
	sqe = bad_sqe(ring, c, 28);
	io_uring_prep_send_zc(sqe, s0, "x", 1, 0, 1U << 7);
	sqe = bad_sqe(ring, c, 29);
	io_uring_prep_sendmsg_zc(sqe, s0, (struct msghdr *)c->buf[2], 0);
	sqe->ioprio = IORING_RECVSEND_FIXED_BUF;
	sqe = bad_sqe(ring, c, 30);
	io_uring_prep_send_zc(sqe, s0, "x", 1, 0, 0);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	sqe = bad_sqe(ring, c, 31);
	io_uring_prep_recv(sqe, s0, NULL, 1, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe = bad_sqe(ring, c, 32);
	io_uring_prep_recvmsg(sqe, s0, (struct msghdr *)c->buf[2], 0);
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe->flags |= IOSQE_BUFFER_SELECT;
	io_uring_prep_send_zc(bad_sqe(ring, c, 33), 999, "x", 1, 0, 0);
	io_uring_prep_send_zc(bad_sqe(ring, c, 34), pipe_w, "x", 1, 0, 0);
	sqe = bad_sqe(ring, c, 35);
	io_uring_prep_sendmsg(sqe, s0, (struct msghdr *)c->buf[2], 0);
	sqe->addr2 = 8;
	sqe = bad_sqe(ring, c, 36);
	io_uring_prep_send(sqe, s0, "x", 1, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe = bad_sqe(ring, c, 19);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe = bad_sqe(ring, c, 38);
	io_uring_prep_rw(OP_LISTEN, sqe, s0, NULL, 1, 0);
	sqe->addr2 = 1;
	return 0;
}

/* a msghdr's own bad fields: namelen < 0, too many iovecs, a negative length */
static int fill_bad_msg(struct io_uring *ring, struct diff_ctx *c)
{
	struct msghdr *m = (struct msghdr *)c->buf[2];
	struct iovec *iov = (struct iovec *)(m + 4);
	int s0 = c->val[0];

	memset(m, 0, 4 * sizeof(*m));
	iov[0] = (struct iovec){ c->buf[0], (size_t)-1 };
	m[0].msg_name = c->buf[1];
	m[0].msg_namelen = (socklen_t)-1;
	m[1].msg_iov = iov;
	m[1].msg_iovlen = 1025;
	m[2].msg_iov = iov;
	m[2].msg_iovlen = 1;
	m[3].msg_name = c->buf[1];
	m[3].msg_namelen = 4096;
	io_uring_prep_sendmsg(bad_sqe(ring, c, 1), s0, &m[0], 0);
	io_uring_prep_recvmsg(bad_sqe(ring, c, 2), s0, &m[1], 0);
	io_uring_prep_sendmsg(bad_sqe(ring, c, 3), s0, &m[2], 0);
	io_uring_prep_recvmsg(bad_sqe(ring, c, 4), s0, &m[2], 0);
	io_uring_prep_sendmsg(bad_sqe(ring, c, 5), s0, &m[3], 0);
	return 0;
}

/* SHUTDOWN of the write side: the peer's RECV sees EOF */
static int fill_shutdown(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_shutdown(sqe, c->val[0], SHUT_WR);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	prep_recv(ring, c, 2, c->val[1], c->buf[1], 8, 0, IOSQE_IO_LINK);
	prep_send(ring, c, 3, c->val[0], "x", 1, 0, 0);
	return 0;
}

/* ---- io-wq (IOSQE_ASYNC), registered files, link timeouts, a full CQ ---- */

/*
 * IOSQE_ASYNC: a RECV that waits for the peer (written after the
 * submit), a SEND, a SEND_ZC and an ACCEPT with a connection waiting, a
 * CONNECT from a blocking socket.
 */
static int setup_async(struct diff_ctx *c)
{
	int sv[2];

	if (setup_tcp_pair(c))
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return diff_fail(c, "socketpair: %s", strerror(errno));
	c->val[3] = track(c, sv[0], "socketpair");
	if (c->val[3] < 0 || track(c, sv[1], "socketpair") < 0)
		return -1;
	/* a second connection waits in the listener's queue */
	return tcp_client(c, 0) < 0 ? -1 : 0;
}

static int fill_async(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	prep_recv(ring, c, 1, c->val[2], c->buf[1], 4, MSG_WAITALL, IOSQE_ASYNC);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, c->val[0], NULL, NULL, 0);
	diff_tag(sqe, 10, IOSQE_ASYNC);
	sqe = diff_sqe(ring, c);
	/* a unix socket: no zero copy, even from io-wq */
	io_uring_prep_send_zc(sqe, c->val[3], "zc", 2, 0, 0);
	diff_tag(sqe, 3, IOSQE_ASYNC);
	return 0;
}

static int async_rest(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 3))
		return -1;
	prep_send(ring, c, 2, c->val[1], "ping", 4, 0, IOSQE_ASYNC);
	return 0;
}

/* registered sockets: SEND, RECV, SHUTDOWN and ACCEPT through their slots */
static int fill_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[3] = { c->val[0], c->val[1], c->val[2] };
	struct io_uring_sqe *sqe;
	int ret = io_uring_register_files(ring, fds, 3);

	if (ret)
		return diff_fail(c, "register: %s", strerror(-ret));
	prep_send(ring, c, 1, 1, "fixed", 5, 0, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	prep_recv(ring, c, 2, 2, c->buf[1], 64, 0, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_shutdown(sqe, 1, SHUT_WR);
	diff_tag(sqe, 3, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	prep_recv(ring, c, 4, 2, c->buf[1], 64, 0, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	/* slot 2 is connected, not listening */
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, 2, NULL, NULL, 0);
	diff_tag(sqe, 5, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	prep_recv(ring, c, 6, 3, c->buf[1], 64, 0, IOSQE_FIXED_FILE);
	return 0;
}

/* a RECV and an ACCEPT with nothing coming, each under a LINK_TIMEOUT */
static int fill_link_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 20);
	prep_recv(ring, c, 1, c->val[2], c->buf[1], 64, 0, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_multishot_accept(sqe, c->val[0], NULL, NULL, 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

/* four connections queued, a CQ of two: multishot ACCEPT meets a full CQ */
static int setup_backlog4(struct diff_ctx *c)
{
	if (listener(c))
		return -1;
	for (int i = 0; i < 4; i++)
		if (tcp_client(c, 0) < 0)
			return -1;
	return 0;
}

static int fill_accept_full_cq(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_multishot_accept(sqe, c->val[0], NULL, NULL, SOCK_CLOEXEC);
	diff_tag(sqe, 10, 0);
	return 0;
}

/* fds of user_data 10 (multishot: several CQEs) */
static void normalize_accept_any(struct diff_cqe *cqe)
{
	if (cqe->user_data == 10)
		diff_normalize_fd(cqe);
}

/* a zero-copy send cancelled by its failed link head; one after a good head */
static int fill_zc_linked(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	prep_recv(ring, c, 1, c->val[3], c->buf[1], 1, 0, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send_zc(sqe, c->val[0], "x", 1, 0, 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

/* a unix listener with two connections queued: two ACCEPTs, then none left */
static int setup_unix_backlog(struct diff_ctx *c)
{
	struct sockaddr_un *a = (struct sockaddr_un *)(c->buf[3] + 1024);
	int i, fd;

	a->sun_family = AF_UNIX;
	if (snprintf(a->sun_path, sizeof(a->sun_path), "%s/sock", c->dir) >=
	    (int)sizeof(a->sun_path))
		return diff_fail(c, "path too long");
	c->val[0] = track(c, socket(AF_UNIX, SOCK_STREAM, 0), "socket");
	if (c->val[0] < 0)
		return -1;
	if (bind(c->val[0], (struct sockaddr *)a, sizeof(*a)) || listen(c->val[0], 4))
		return diff_fail(c, "bind: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		fd = track(c, socket(AF_UNIX, SOCK_STREAM, 0), "socket");
		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)a, sizeof(*a)))
			return diff_fail(c, "connect: %s", strerror(errno));
	}
	return 0;
}

static int fill_accept_unix(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, c->val[0], NULL, NULL, 0);
	diff_tag(sqe, 10, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, c->val[0], NULL, NULL, 0);
	diff_tag(sqe, 11, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_accept(sqe, c->val[0], NULL, NULL, 0);
	sqe->ioprio = ACCEPT_DONTWAIT;
	diff_tag(sqe, 1, 0);
	return 0;
}

/* ---- URING_CMD on sockets ---- */

static struct io_uring_sqe *sock_cmd(struct io_uring *ring, struct diff_ctx *c,
				     __u64 ud, int fd, __u32 op, __u32 level,
				     __u32 optname, void *optval, __u32 optlen)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = op;
	sqe->addr = (__u64)optname << 32 | level;
	sqe->file_index = optlen;
	sqe->addr3 = (unsigned long)optval;
	diff_tag(sqe, ud, 0);
	return sqe;
}

/* val[1]/val[2] a TCP pair with 3 bytes queued at val[2], val[3] a unix socket */
static int setup_sock_cmd(struct diff_ctx *c)
{
	int sv[2];

	if (setup_tcp_pair(c))
		return -1;
	if (write(c->val[1], "abc", 3) != 3)
		return diff_fail(c, "write: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return diff_fail(c, "socketpair: %s", strerror(errno));
	c->val[3] = track(c, sv[0], "socketpair");
	return c->val[3] < 0 || track(c, sv[1], "socketpair") < 0 ? -1 : 0;
}

static int fill_sock_cmd(struct io_uring *ring, struct diff_ctx *c)
{
	int *one = (int *)(c->buf[2] + 64), *val = (int *)c->buf[2];
	struct io_uring_sqe *sqe;

	*one = 1;
	sock_cmd(ring, c, 1, c->val[2], 0, 0, 0, NULL, 0);		/* SIOCINQ */
	sock_cmd(ring, c, 2, c->val[1], 1, 0, 0, NULL, 0);		/* SIOCOUTQ */
	sock_cmd(ring, c, 3, c->val[1], 2, SOL_SOCKET, SO_TYPE, val, 4);
	sock_cmd(ring, c, 4, c->val[1], 2, IPPROTO_TCP, TCP_NODELAY, val, 4);
	sock_cmd(ring, c, 5, c->val[1], 3, SOL_SOCKET, SO_KEEPALIVE, one, 4);
	sock_cmd(ring, c, 6, c->val[1], 3, IPPROTO_TCP, TCP_NODELAY, one, 4);
	sock_cmd(ring, c, 7, c->val[1], 99, 0, 0, NULL, 0);
	sock_cmd(ring, c, 8, c->val[3], 0, 0, 0, NULL, 0);		/* unix */
	sock_cmd(ring, c, 9, c->val[3], 2, SOL_SOCKET, SO_TYPE, val + 4, 4);
	sock_cmd(ring, c, 20, c->val[0], 0, 0, 0, NULL, 0);		/* listening */
	sock_cmd(ring, c, 21, 999, 0, 0, 0, NULL, 0);
	sock_cmd(ring, c, 22, c->val[1], 2, SOL_SOCKET, SO_TYPE, NULL, 4);
	sock_cmd(ring, c, 23, c->val[1], 2, SOL_SOCKET, SO_TYPE, val + 8, (__u32)-1);
	sqe = sock_cmd(ring, c, 24, c->val[1], 0, 0, 0, NULL, 0);
	sqe->uring_cmd_flags = 1U << 5;
	sqe = sock_cmd(ring, c, 25, c->val[1], 0, 0, 0, NULL, 0);
	sqe->uring_cmd_flags = 1U << 1;		/* MULTISHOT without a buffer */
	sqe = sock_cmd(ring, c, 26, c->val[1], 0, 0, 0, NULL, 0);
	sqe->__pad1 = 1;
	sock_cmd(ring, c, 27, c->dirfd, 0, 0, 0, NULL, 0);	/* not a socket */
	sqe = sock_cmd(ring, c, 28, c->val[2], 0, 0, 0, NULL, 0);
	sqe->flags |= IOSQE_ASYNC;
	sock_cmd(ring, c, 29, c->val[1], 4, 0, 0, NULL, 0);	/* TX_TIMESTAMP */
	return 0;
}

static int check_sock_cmd(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	int *val = (int *)c->buf[2], v = 0;
	socklen_t len = sizeof(v);

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, val[0]);
	if (getsockopt(c->val[1], SOL_SOCKET, SO_KEEPALIVE, &v, &len))
		return diff_fail(c, "getsockopt: %s", strerror(errno));
	diff_note(c, NOTE + 1, v);
	len = sizeof(v);
	if (getsockopt(c->val[1], IPPROTO_TCP, TCP_NODELAY, &v, &len))
		return diff_fail(c, "getsockopt: %s", strerror(errno));
	diff_note(c, NOTE + 2, !!v);
	return 0;
}

/* ---- TX_TIMESTAMP: a socket's transmit timestamps, multishot ---- */

#define TS_FLAGS	(SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID | \
			 SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_TX_SCHED)
#define TS_CMD		4	/* SOCKET_URING_OP_TX_TIMESTAMP */

/* a UDP socket sending to slot 1 with SO_TIMESTAMPING flags, n datagrams sent */
static int ts_sender(struct diff_ctx *c, unsigned flags, int n)
{
	int fd = track(c, socket(AF_INET, SOCK_DGRAM, 0), "socket");

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)addr_slot(c, 1), sizeof(struct sockaddr_in)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
		return diff_fail(c, "timestamping: %s", strerror(errno));
	while (n--)
		if (send(fd, "abcdefghij", 10, 0) != 10)
			return diff_fail(c, "send: %s", strerror(errno));
	return fd;
}

/*
 * val[0], val[1] UDP on 127.0.0.1; val[2] sent two datagrams with
 * timestamps that leave the packet out (OPT_TSONLY): four in its error
 * queue, SCHED and SND for each (loopback takes both in send()); val[3]
 * sent one with timestamps that carry the packet, which the command
 * leaves in the queue.
 */
static int setup_tx_ts(struct diff_ctx *c)
{
	if (setup_udp(c))
		return -1;
	c->val[2] = ts_sender(c, TS_FLAGS | SOF_TIMESTAMPING_OPT_TSONLY, 2);
	if (c->val[2] < 0)
		return -1;
	c->val[3] = ts_sender(c, TS_FLAGS, 1);
	return c->val[3] < 0 ? -1 : 0;
}

/* the timestamps already queued, on val[3] none, on val[0] none (not asked) */
static int fill_tx_ts(struct io_uring *ring, struct diff_ctx *c)
{
	sock_cmd(ring, c, 1, c->val[2], TS_CMD, 0, 0, NULL, 0);
	sock_cmd(ring, c, 2, c->val[3], TS_CMD, 0, 0, NULL, 0);
	sock_cmd(ring, c, 3, c->val[0], TS_CMD, 0, 0, NULL, 0);
	sock_cmd(ring, c, 4, c->dirfd, TS_CMD, 0, 0, NULL, 0);	/* -EOPNOTSUPP */
	return 0;
}

/* a datagram sent while it waits: two more (keys 2), then all cancelled */
static int after_tx_ts(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 5))
		return -1;
	if (send(c->val[2], "abcdefghij", 10, 0) != 10)
		return diff_fail(c, "send: %s", strerror(errno));
	if (diff_reap(ring, c, 2))
		return -1;
	diff_prep_cancel(ring, c, 11, 1, 0);
	diff_prep_cancel(ring, c, 12, 2, 0);
	diff_prep_cancel(ring, c, 13, 3, 0);
	return diff_submit_rest(ring, c);
}

/* val[3]'s timestamp with its packet is still queued */
static int check_tx_ts(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	char buf[128];

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, recv(c->val[3], buf, sizeof(buf),
				MSG_ERRQUEUE | MSG_DONTWAIT) > 0);
	return 0;
}

/* ---- the fuzzer's findings (tests/fuzz/findings) ---- */

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

const struct scenario diff_net[] = {
	{
		.name = "net_pair_send_recv",
		.setup = setup_pair,
		.fill = fill_pair_basic,
		.check = check_pair_basic,
		.nr_cqes = 3,
		.known = { { 1, 8 }, { 2, 3 }, { 3, 5 } },
	}, {
		.name = "net_recv_nonempty",
		.setup = setup_pair_data,
		.fill = fill_poll_first,
		.after_submit = poll_first_rest,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.known = { { 1, 4 }, { 2, 8 }, { 3, -EAGAIN }, { 4, 2 }, { 5, 2 } },
	}, {
		.name = "net_recv_waitall",
		.setup = setup_pair_data,
		.fill = fill_waitall,
		.after_submit = waitall_rest,
		.check = check_waitall,
		.nr_cqes = 3,
		.known = { { 1, 16 }, { 3, 4 }, { 4, -ECANCELED } },
	}, {
		.name = "net_tcp_send_order_waiting",
		.setup = setup_tcp_full,
		.fill = fill_send_order,
		.after_submit = send_order_rest,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, DIFF_BUFSZ }, { 2, DIFF_BUFSZ }, { 3, DIFF_BUFSZ } },
	}, {
		.name = "net_recv_waitall_dgram",
		.setup = setup_pair_dgram,
		.fill = fill_waitall_dgram,
		.nr_cqes = 1,
		.known = { { 1, 3 } },
	}, {
		.name = "net_msg_unix",
		.setup = setup_pair,
		.fill = fill_msg,
		.check = check_msg,
		.nr_cqes = 2,
		.known = { { 1, 12 }, { 2, 8 } },
	}, {
		.name = "net_udp",
		.setup = setup_udp,
		.fill = fill_udp,
		.check = check_udp,
		.nr_cqes = 7,
		.known = { { 1, 8 }, { 2, 5 }, { 3, 8 }, { 4, 8 }, { NOTE + 2, 1 } },
	}, {
		.name = "net_tcp_accept_connect",
		.setup = setup_tcp_listen,
		.fill = fill_tcp_accept,
		.after_submit = tcp_accept_rest,
		.normalize = normalize_tcp,
		.nr_cqes = 7,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, 8 }, { 3, 3 }, { 4, 0 }, { 5, 5 },
			   { 6, 0 }, { NOTE + 1, sizeof(struct sockaddr_in) } },
	}, {
		.name = "net_accept_backlog",
		.setup = setup_tcp_backlog,
		.fill = fill_accept_backlog,
		.check = check_accept_backlog,
		.normalize = normalize_fds,
		.nr_cqes = 3,
		.known = { { 10, DIFF_RES_FD }, { 11, DIFF_RES_FD }, { 1, -EAGAIN },
			   { NOTE, 1 } },
	}, {
		.name = "net_accept_multishot",
		.setup = setup_tcp_backlog,
		.fill = fill_accept_multi,
		.after_submit = accept_multi_rest,
		.check = check_accept_multi,
		.normalize = normalize_fds,
		.nr_cqes = 4,
		.order = ORDER_ANY,
	}, {
		.name = "net_accept_direct",
		.setup = setup_tcp_backlog3,
		.fill = fill_accept_direct,
		.after_submit = accept_direct_rest,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 3, -EINVAL }, { 4, -EINVAL } },
	}, {
		.name = "net_connect_nonblock",
		.setup = setup_tcp_nb,
		.fill = fill_connect_nb,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, -EISCONN } },
	}, {
		.name = "net_connect_async_defer",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.setup = setup_tcp_nb,
		.fill = fill_connect_async,
		.nr_cqes = 1,
		.known = { { 1, 0 } },
	}, {
		.name = "net_connect_block_timeout",
		.setup = setup_backlog_full,
		.fill = fill_connect_block_timeout,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "net_socket",
		.fill = fill_socket,
		.after_submit = diff_submit_rest,
		.check = check_fds,
		.normalize = normalize_fds,
		.nr_cqes = 12,
		.order = ORDER_ANY,
		.known = { { 10, DIFF_RES_FD }, { 11, DIFF_RES_FD }, { 1, -EINVAL },
			   { 3, -EINVAL }, { 20, 0 }, { 21, 0 }, { 22, 0 } },
	}, {
		.name = "net_socket_unregistered",
		.fill = fill_socket_unreg,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ENXIO }, { 2, -ENFILE } },
	}, {
		.name = "net_zc",
		.setup = setup_tcp_pair,
		.fill = fill_zc,
		.check = check_zc,
		.nr_cqes = 13,
		.order = ORDER_ANY,
		.known = { { 5, 16 } },
	}, {
		.name = "net_bad_input",
		.setup = setup_bad,
		.fill = fill_bad,
		.after_submit = diff_submit_rest,
		.check = check_fds,
		.normalize = normalize_fds,
		.nr_cqes = 34,
		.order = ORDER_ANY,
		.known = { { 1, -ENOTSOCK }, { 2, -ENOTSOCK }, { 3, -EBADF },
			   { 4, -EINVAL }, { 9, -ENOTSOCK }, { 20, -ENOTSOCK } },
	}, {
		.name = "net_bad_msghdr",
		.setup = setup_bad,
		.fill = fill_bad_msg,
		.after_submit = diff_submit_rest,
		.nr_cqes = 5,
		.order = ORDER_ANY,
	}, {
		.name = "net_tcp_reset_pending",
		.setup = setup_tcp_reset,
		.fill = fill_tcp_reset,
		.nr_cqes = 3,
		.known = { { 1, 8 }, { 2, -ECONNRESET }, { 3, 0 } },
	}, {
		.name = "net_shutdown",
		.setup = setup_pair,
		.fill = fill_shutdown,
		.nr_cqes = 3,
		.known = { { 1, 0 }, { 2, 0 }, { 3, -EPIPE } },
	}, {
		.name = "net_async",
		.setup = setup_async,
		.fill = fill_async,
		.after_submit = async_rest,
		.check = check_fds,
		.normalize = normalize_fds,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.known = { { 1, 4 }, { 2, 4 }, { 3, -EOPNOTSUPP },
			   { 10, DIFF_RES_FD } },
	}, {
		.name = "net_fixed_files",
		.setup = setup_tcp_pair,
		.fill = fill_fixed,
		.nr_cqes = 6,
		.known = { { 1, 5 }, { 2, 5 }, { 3, 0 }, { 4, 0 }, { 5, -EINVAL },
			   { 6, -ECANCELED } },
	}, {
		.name = "net_link_timeout",
		.setup = setup_tcp_pair,
		.fill = fill_link_timeout,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME }, { 3, -ECANCELED },
			   { 4, -ETIME } },
	}, {
		.name = "net_accept_full_cq",
		.entries = 2,
		.cq_entries = 2,
		.setup = setup_backlog4,
		.fill = fill_accept_full_cq,
		.check = check_accept_multi,
		.normalize = normalize_accept_any,
		.nr_cqes = 3,
		.known = { { 10, DIFF_RES_FD } },
	}, {
		.name = "net_zc_linked",
		.setup = setup_bad,
		.fill = fill_zc_linked,
		.nr_cqes = 3,
		.known = { { 1, -ENOTSOCK }, { 2, -ECANCELED } },
	}, {
		.name = "net_accept_unix",
		.setup = setup_unix_backlog,
		.fill = fill_accept_unix,
		.check = check_fds,
		.normalize = normalize_fds,
		.nr_cqes = 3,
		.known = { { 10, DIFF_RES_FD }, { 11, DIFF_RES_FD }, { 1, -EAGAIN } },
	}, {
		.name = "net_uring_cmd",
		.setup = setup_sock_cmd,
		.fill = fill_sock_cmd,
		.after_submit = diff_submit_rest,
		.check = check_sock_cmd,
		.nr_cqes = 19,
		.order = ORDER_ANY,
		.known = { { 1, 3 }, { 3, 4 }, { 5, 0 }, { 27, -EOPNOTSUPP },
			   { 28, 3 }, { NOTE, SOCK_STREAM }, { NOTE + 1, 1 } },
	}, {
		.name = "net_tx_timestamp",
		.setup_flags = IORING_SETUP_CQE32,
		.setup = setup_tx_ts,
		.fill = fill_tx_ts,
		.after_submit = after_tx_ts,
		.check = check_tx_ts,
		.nr_cqes = 13,
		.order = ORDER_ANY,
		.known = { { 4, -EOPNOTSUPP }, { 11, 0 }, { 12, 0 }, { 13, 0 },
			   { NOTE, 1 } },
	}, {
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
		.name = "found_nowait_first_file_then_peek",
		.setup = setup_queued,
		.fill = fill_nowait_first,
		.nr_cqes = 7,
		.known = { { 1, -EBADF }, { 2, -EAGAIN }, { 3, -ENOTSOCK },
			   { 4, -ENOTSOCK }, { 5, -EBADF }, { 6, 8 }, { 7, -EAGAIN } },
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
	{ .name = NULL }
};
