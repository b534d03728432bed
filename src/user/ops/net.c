/* SPDX-License-Identifier: MIT */
/*
 * net.c - the socket opcodes (the kernel's io_uring/net.c): SOCKET,
 * BIND, LISTEN, SHUTDOWN, CONNECT, ACCEPT, SEND, RECV, SENDMSG, RECVMSG,
 * SEND_ZC and SENDMSG_ZC.
 *
 * Each prep makes Linux 6.18's SQE checks in their order and copies what
 * the kernel copies at prep (addresses, the msghdr, the iovec array) with
 * the fault-safe copies of lib/uaccess.h: once submit returns the
 * application may reuse that memory. Buffers and the pointers the kernel
 * writes at completion (accept's addr/addrlen, recvmsg's name and
 * control) go to the system call, which answers -EFAULT.
 *
 * Issue is the system call with MSG_DONTWAIT (or an accept made only
 * when the listener is ready): "would block" answers AR_ISSUE_AGAIN and
 * the core waits for readiness, as the kernel's poll-armed retry. The
 * program's O_NONBLOCK is never changed. IORING_RECVSEND_POLL_FIRST and
 * IORING_ACCEPT_POLL_FIRST skip the first try (op->polled). A request
 * whose CQE carries flags (SOCK_NONEMPTY, a multishot's MORE) sets them
 * in req->cflags with its result.
 *
 * SEND_ZC and SENDMSG_ZC copy (no MSG_ZEROCOPY): the result CQE has
 * IORING_CQE_F_MORE and the IORING_CQE_F_NOTIF CQE follows it
 * (AR_REQ_F_NOTIF, complete.c), with IORING_NOTIF_USAGE_ZC_COPIED under
 * IORING_SEND_ZC_REPORT_USAGE, as the kernel reports a copied send.
 *
 * Where this differs from the kernel (docs/semantics.md D70-D74):
 *  - a blocking listener is polled before accept4(); a connection taken
 *    by another process in between blocks the issuing thread until the
 *    next one comes;
 *  - CONNECT on a blocking socket sets O_NONBLOCK on it for its own
 *    connect() calls, which another thread's call on the socket meanwhile
 *    sees;
 *  - SOCK_NONEMPTY is found after the receive, not atomically with it:
 *    a ppoll() with no timeout, then, for TCP and unix stream sockets,
 *    SIOCINQ where the poll alone cannot tell (ar_net_nonempty());
 *  - SEND selects no provided buffer (-ENOENT, the kernel's answer with
 *    no buffer group), and a RECV bundle takes one buffer per CQE.
 *
 * RECV and RECVMSG take IOSQE_BUFFER_SELECT (user/kbuf.h): a buffer is
 * selected per receive, given back on "would block" or when nothing was
 * received, consumed with data; a multishot receive posts one CQE with
 * MORE per buffer (ar_req_post_more()) and stays armed only once the
 * socket would block.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include "lib/sysraw.h"
#include "lib/uaccess.h"
#include "user/ops/net.h"
#include "user/complete.h"
#include "user/kbuf.h"
#include "user/poll.h"
#include "user/rsrc.h"
#include "user/types.h"

/* flags past liburing 2.3's header */
#define AR_ACCEPT_MULTISHOT	(1U << 0)	/* IORING_ACCEPT_MULTISHOT */
#define AR_ACCEPT_DONTWAIT	(1U << 1)	/* IORING_ACCEPT_DONTWAIT */
#define AR_ACCEPT_POLL_FIRST	(1U << 2)	/* IORING_ACCEPT_POLL_FIRST */
#define AR_RECVSEND_POLL_FIRST	(1U << 0)
#define AR_RECV_MULTISHOT	(1U << 1)
#define AR_RECVSEND_FIXED_BUF	(1U << 2)
#define AR_SEND_ZC_REPORT_USAGE	(1U << 3)
#define AR_RECVSEND_BUNDLE	(1U << 4)

#define AR_ACCEPT_FLAGS	(AR_ACCEPT_MULTISHOT | AR_ACCEPT_DONTWAIT | \
			 AR_ACCEPT_POLL_FIRST)
#define AR_SEND_FLAGS	(AR_RECVSEND_POLL_FIRST | AR_RECVSEND_BUNDLE)
#define AR_RECV_FLAGS	(AR_RECVSEND_POLL_FIRST | AR_RECV_MULTISHOT | \
			 AR_RECVSEND_BUNDLE)
#define AR_ZC_FLAGS	(AR_RECVSEND_POLL_FIRST | AR_RECVSEND_FIXED_BUF)
#define AR_ZC_FLAGS_VALID (AR_ZC_FLAGS | AR_SEND_ZC_REPORT_USAGE)

#define AR_NET_ADDR_INLINE	28	/* sockaddr_in and _in6 stay in the request */

/* what a socket is, looked up once per request where it matters */
enum {
	AR_SK_UNKNOWN,
	AR_SK_TCP,
	AR_SK_UDP,
	AR_SK_UNIX_STREAM,
	AR_SK_STREAM,		/* another SOCK_STREAM or SOCK_SEQPACKET */
	AR_SK_DGRAM,		/* anything else */
};

/* a libc call's -1/errno as the kernel's -errno */
static int ar_net_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/*
 * The calls that take the application's pointers (buffers, names,
 * control data, accept's addr/addrlen, optval) are made raw: the kernel
 * answers -EFAULT for them, where a sanitizer's libc interceptor would
 * touch the memory itself first.
 */
static long ar_sys_sendmsg(int fd, const struct msghdr *m, unsigned flags)
{
	return ar_raw_syscall6(SYS_sendmsg, fd, (long)m, (long)flags, 0, 0, 0);
}

static long ar_sys_recvmsg(int fd, struct msghdr *m, unsigned flags)
{
	return ar_raw_syscall6(SYS_recvmsg, fd, (long)m, (long)flags, 0, 0, 0);
}

/* the socket's kind into *kind (once); -ENOTSOCK, -EBADF */
static int ar_net_kind(int fd, __u8 *kind)
{
	int proto, type, domain, ret;

	if (*kind != AR_SK_UNKNOWN)
		return 0;
	ret = ar_sockopt_int(fd, SO_PROTOCOL, &proto);
	if (ret)
		return ret;
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		*kind = proto == IPPROTO_TCP ? AR_SK_TCP : AR_SK_UDP;
		return 0;
	}
	ret = ar_sockopt_int(fd, SO_TYPE, &type);
	if (!ret && (type == SOCK_STREAM || type == SOCK_SEQPACKET)) {
		*kind = AR_SK_STREAM;
		if (type == SOCK_STREAM && !ar_sockopt_int(fd, SO_DOMAIN, &domain) &&
		    domain == AF_UNIX)
			*kind = AR_SK_UNIX_STREAM;
		return 0;
	}
	*kind = AR_SK_DGRAM;
	return ret;
}

/* a plain fd that is not open: the kernel fails it before the issue */
static bool ar_net_bad_fd(struct ar_ureq *req)
{
	return !req->file_node && fcntl(req->fd, F_GETFD) < 0;
}

/*
 * A blocking worker issue: the file could not be polled (submit.c issues
 * a file a worker can poll without blocking). For a POLL_FIRST request
 * that is io-wq after a poll that could not be armed: io_wq_submit_work()
 * fails a multishot one -EBADFD, and ACCEPT and RECV, issued there
 * without REQ_F_POLLED, answer POLL_FIRST's -EAGAIN again.
 */
static bool ar_net_unpollable_worker(struct ar_ureq *req, unsigned issue_flags)
{
	/* a bad fd fails io-wq's io_assign_file() first: -EBADF from the call */
	return (issue_flags & AR_ISSUE_WORKER) &&
	       !(issue_flags & AR_ISSUE_NONBLOCK) && !ar_net_bad_fd(req);
}

/*
 * POLL_FIRST's first issue: no try, a wait for readiness (or -EAGAIN
 * with the program's MSG_DONTWAIT), once the file was assigned (-EBADF)
 * and, with sock, found a socket: io_send(), io_sendmsg(), io_recvmsg()
 * answer -ENOTSOCK first, io_recv() looks at POLL_FIRST before the socket.
 * 0: go on to wait.
 */
static int ar_net_poll_first(struct ar_ureq *req, __u8 *kind, bool sock,
			     bool nowait)
{
	int ret;

	if (ar_net_bad_fd(req))
		return -EBADF;
	if (sock) {
		ret = ar_net_kind(req->fd, kind);
		if (ret == -ENOTSOCK || ret == -EBADF)
			return ret;
	}
	return nowait ? -EAGAIN : 0;
}

/* io_net_retry: does a partial MSG_WAITALL transfer go on? */
static bool ar_net_retry(int fd, __u8 *kind, unsigned flags)
{
	if (!(flags & MSG_WAITALL) || ar_net_kind(fd, kind))
		return false;
	return *kind == AR_SK_TCP || *kind == AR_SK_UNIX_STREAM ||
	       *kind == AR_SK_STREAM;
}

/*
 * After a receive that did not fail: is more queued (the kernel's
 * msg_inq > 0, IORING_CQE_F_SOCK_NONEMPTY)? TCP and unix stream sockets
 * report it; TCP also once its FIN is in (tcp_inq_hint()), not after a
 * reset. A receive that got less than it asked for drained the queue
 * (unless it peeked): only the FIN is left to look for. *empty (if
 * asked): the socket had nothing to read, so a receive now would only
 * say "would block".
 */
static unsigned ar_net_nonempty(int fd, __u8 *kind, bool full, bool *empty)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec now = { 0, 0 };
	int n;

	if (empty)
		*empty = false;
	/*
	 * The poll comes first: with nothing to read (revents 0: no data,
	 * no FIN, no error) no socket reports more queued, whatever its
	 * kind, so a request/response server's usual receive needs one
	 * system call here, not two. Unlike a peek, a poll leaves a pending
	 * error (a reset) for the program's next receive. A failed poll
	 * reports nothing. ppoll made raw: no cancellation-point bracket.
	 */
	if (ar_raw_syscall6(SYS_ppoll, (long)&p, 1, (long)&now, 0, 0, 0) < 0)
		return 0;
	if (!p.revents) {
		if (empty)
			*empty = true;
		return 0;
	}
	if (!(p.revents & POLLIN) || ar_net_kind(fd, kind) ||
	    (*kind != AR_SK_TCP && *kind != AR_SK_UNIX_STREAM))
		return 0;
	if (*kind != AR_SK_TCP)
		return full && !ioctl(fd, SIOCINQ, &n) && n > 0 ?
		       IORING_CQE_F_SOCK_NONEMPTY : 0;
	/*
	 * TCP's POLLIN: data, or the read side shut; by a FIN when neither
	 * POLLERR nor POLLHUP (a reset, or both sides shut) comes with it.
	 */
	if (!(p.revents & (POLLERR | POLLHUP))) {
		if (full)
			return IORING_CQE_F_SOCK_NONEMPTY;
		/* drained: the FIN if nothing came since (SIOCINQ leaves it out) */
		return !ioctl(fd, SIOCINQ, &n) && !n ?
		       IORING_CQE_F_SOCK_NONEMPTY : 0;
	}
	return full && !ioctl(fd, SIOCINQ, &n) && n > 0 ?
	       IORING_CQE_F_SOCK_NONEMPTY : 0;
}

/*
 * move_addr_to_kernel(): len bytes of a sockaddr at uaddr into the
 * request (inline, else on req->alloc). -EINVAL for a length beyond
 * sockaddr_storage, -EFAULT for memory that cannot be read.
 */
static int ar_net_copy_addr(struct ar_ureq *req, void *inline_buf,
			    void **dst, __u64 uaddr, long len)
{
	void *buf = inline_buf;

	if (len < 0 || len > (long)sizeof(struct sockaddr_storage))
		return -EINVAL;
	*dst = buf;
	if (!len)
		return 0;
	if (len > AR_NET_ADDR_INLINE) {
		buf = malloc(sizeof(struct sockaddr_storage));
		if (!buf)
			return -ENOMEM;
		req->alloc = buf;
		*dst = buf;
	}
	return ar_copy_from_user(buf, (const void *)(uintptr_t)uaddr,
				 (size_t)len);
}

/*
 * A result with CQE flags: the core posts req->cflags with it
 * (submit.c). Never completed here: a request issued again after
 * readiness must come back to the core, which takes it off its fd.
 */
static int ar_net_done(struct ar_ureq *req, int res, unsigned cflags, bool fail)
{
	if (fail)
		ar_req_set_fail(req);
	req->cflags = cflags;
	return res;
}

/* a fixed slot install: the file table owns fd from here */
static int ar_net_install(struct ar_ureq *req, int fd, __u32 file_slot)
{
	bool alloc = file_slot == IORING_FILE_INDEX_ALLOC;

	return ar_rsrc_install_file(req->ctx, fd, alloc ? 0 : file_slot - 1,
				    alloc);
}

/* SOCKET: domain in fd, type in off, protocol in len */
struct ar_socket {
	int domain, type, protocol;
	__u32 file_slot;
};

int ar_socket_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_socket *s = ar_req_data(req, struct ar_socket);
	int flags;

	if (sqe->addr || sqe->rw_flags || sqe->buf_index)
		return -EINVAL;
	s->domain = sqe->fd;
	s->type = (int)sqe->off;
	s->protocol = (int)sqe->len;
	s->file_slot = sqe->file_index;
	flags = s->type & ~0xf;		/* ~SOCK_TYPE_MASK */
	if (s->file_slot && (flags & SOCK_CLOEXEC))
		return -EINVAL;
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	return 0;
}

int ar_socket_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_socket *s = ar_req_data(req, struct ar_socket);
	int fd, ret;

	(void)issue_flags;
	/* an fd only until the file table has it: not for a child to see */
	fd = socket(s->domain, s->type | (s->file_slot ? SOCK_CLOEXEC : 0),
		    s->protocol);
	if (fd < 0 || !s->file_slot)
		return ar_net_ret(fd);
	ret = ar_net_install(req, fd, s->file_slot);
	/*
	 * The kernel fails the request (its links) only when the socket
	 * cannot be made; a direct descriptor it cannot install is only
	 * the result (measured on 6.18: fuzz finding
	 * socket-direct-install-error-keeps-link)
	 */
	if (ret < 0)
		req->flags |= AR_REQ_F_NOFAIL;
	return ret;
}

/* CONNECT and BIND: a sockaddr at addr, its length in addr2 */
struct ar_sockaddr_op {
	void *addr;
	int addr_len;
	bool in_progress;
	bool seen_econnaborted;
	_Alignas(8) unsigned char addr_buf[AR_NET_ADDR_INLINE];
};

static int ar_sockaddr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sockaddr_op *c = ar_req_data(req, struct ar_sockaddr_op);

	if (sqe->len || sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	c->addr_len = (int)sqe->addr2;
	c->in_progress = c->seen_econnaborted = false;
	return ar_net_copy_addr(req, c->addr_buf, &c->addr, sqe->addr,
				c->addr_len);
}

int ar_bind_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_sockaddr_prep(req, sqe);
}

int ar_bind_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sockaddr_op *c = ar_req_data(req, struct ar_sockaddr_op);

	(void)issue_flags;
	return ar_net_ret(bind(req->fd, c->addr, (socklen_t)c->addr_len));
}

int ar_connect_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_sockaddr_prep(req, sqe);
}

/*
 * connect(2) without blocking on a socket the program keeps blocking:
 * O_NONBLOCK for the call, as the kernel's io_connect() passes it for
 * its own call only (docs/semantics.md D71).
 */
static int ar_connect_nonblock(struct ar_ureq *req, struct ar_sockaddr_op *c,
			       int fl)
{
	int ret, e;

	if (fcntl(req->fd, F_SETFL, fl | O_NONBLOCK))
		return -errno;
	ret = ar_net_ret(connect(req->fd, c->addr, (socklen_t)c->addr_len));
	e = errno;
	(void)fcntl(req->fd, F_SETFL, fl);
	errno = e;
	return ret;
}

/*
 * io_connect: a non-blocking connect, then readiness for POLLOUT, then
 * connect again, whose -EISCONN means the first succeeded: SO_ERROR
 * says how it ended. A worker (IOSQE_ASYNC) connects a blocking socket
 * blocking, as the kernel's io-wq does.
 */
int ar_connect_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sockaddr_op *c = ar_req_data(req, struct ar_sockaddr_op);
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	int ret, fl = O_NONBLOCK, err;

	if (nonblock) {
		fl = fcntl(req->fd, F_GETFL);
		if (fl < 0)
			return -errno;
	}
	if (nonblock && !(fl & O_NONBLOCK))
		ret = ar_connect_nonblock(req, c, fl);
	else
		ret = ar_net_ret(connect(req->fd, c->addr, (socklen_t)c->addr_len));
	if (nonblock && (ret == -EAGAIN || ret == -EINPROGRESS ||
			 ret == -ECONNABORTED)) {
		if (ret == -EINPROGRESS) {
			c->in_progress = true;
		} else if (ret == -ECONNABORTED) {
			if (c->seen_econnaborted)
				return ret;
			c->seen_econnaborted = true;
		}
		return AR_ISSUE_AGAIN;
	}
	if (c->in_progress && (ret == -EBADFD || ret == -EISCONN)) {
		ret = ar_sockopt_int(req->fd, SO_ERROR, &err);
		if (!ret)
			ret = -err;
	}
	return ret;
}

/* LISTEN: the backlog in len */
int ar_listen_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	int *backlog = ar_req_data(req, int);

	if (sqe->addr || sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in ||
	    sqe->addr2)
		return -EINVAL;
	*backlog = (int)sqe->len;
	return 0;
}

int ar_listen_issue(struct ar_ureq *req, unsigned issue_flags)
{
	(void)issue_flags;
	return ar_net_ret(listen(req->fd, *ar_req_data(req, int)));
}

/* SHUTDOWN: how in len; the kernel always runs it in io-wq */
int ar_shutdown_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	int *how = ar_req_data(req, int);

	if (sqe->off || sqe->addr || sqe->rw_flags || sqe->buf_index ||
	    sqe->splice_fd_in)
		return -EINVAL;
	*how = (int)sqe->len;
	req->flags |= AR_REQ_F_FORCE_ASYNC;
	return 0;
}

/*
 * The kernel's io_shutdown() fails the request (and its link) only for
 * a file that is no socket; the socket's own answer (-EINVAL for a bad
 * how, -ENOTCONN) is set as the result without req_set_fail().
 */
int ar_shutdown_issue(struct ar_ureq *req, unsigned issue_flags)
{
	int ret;

	(void)issue_flags;
	ret = ar_net_ret(shutdown(req->fd, *ar_req_data(req, int)));
	if (ret < 0 && ret != -ENOTSOCK && ret != -EBADF)
		req->flags |= AR_REQ_F_NOFAIL;
	return ret;
}

/* ACCEPT: addr and addrlen (addr2) are the application's, for accept4 */
struct ar_accept {
	__u64 addr, addr_len;
	int flags;
	__u32 file_slot;
	__u16 iou_flags;
	bool polled;
	__u8 kind;		/* the listener's AR_SK_* */
};

int ar_accept_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_accept *a = ar_req_data(req, struct ar_accept);

	if (sqe->len || sqe->buf_index)
		return -EINVAL;
	a->addr = sqe->addr;
	a->addr_len = sqe->addr2;
	a->flags = (int)sqe->accept_flags;
	a->iou_flags = sqe->ioprio;
	a->polled = false;
	a->kind = AR_SK_UNKNOWN;
	if (a->iou_flags & ~AR_ACCEPT_FLAGS)
		return -EINVAL;
	a->file_slot = sqe->file_index;
	if (a->file_slot) {
		if (a->flags & SOCK_CLOEXEC)
			return -EINVAL;
		if ((a->iou_flags & AR_ACCEPT_MULTISHOT) &&
		    a->file_slot != IORING_FILE_INDEX_ALLOC)
			return -EINVAL;
	}
	if (a->flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	return 0;
}

/*
 * May accept4() be called without blocking? On an O_NONBLOCK listener,
 * yes; on a blocking one only when a connection waits (or the socket
 * does not listen, which accept4() refuses at once). 0, or -EAGAIN.
 */
static int ar_accept_ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int fl = fcntl(fd, F_GETFL), listening;

	if (fl < 0 || (fl & O_NONBLOCK))
		return 0;	/* accept4() answers for a bad fd */
	if (ar_sockopt_int(fd, SO_ACCEPTCONN, &listening) || !listening)
		return 0;
	return poll(&p, 1, 0) == 0 ? -EAGAIN : 0;
}

/* one accept4(): a new fd, a slot, or -errno; *cflags SOCK_NONEMPTY */
static int ar_accept_one(struct ar_ureq *req, struct ar_accept *a,
			 bool nonblock, unsigned *cflags)
{
	struct pollfd p = { .fd = req->fd, .events = POLLIN };
	int fd, ret;

	*cflags = 0;
	if (nonblock) {
		ret = ar_accept_ready(req->fd);
		if (ret)
			return ret;
	}
	fd = (int)ar_raw_syscall6(SYS_accept4, req->fd, (long)a->addr,
				  (long)a->addr_len,
				  a->flags | (a->file_slot ? SOCK_CLOEXEC : 0),
				  0, 0);
	if (fd < 0)
		return fd;
	/* inet_csk_accept()'s arg.is_empty (TCP only): another connection queued */
	if (!ar_net_kind(req->fd, &a->kind) && a->kind == AR_SK_TCP &&
	    poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
		*cflags = IORING_CQE_F_SOCK_NONEMPTY;
	if (!a->file_slot)
		return fd;
	return ar_net_install(req, fd, a->file_slot);
}

int ar_accept_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_accept *a = ar_req_data(req, struct ar_accept);
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	unsigned cflags;
	int ret;

	if (ar_net_unpollable_worker(req, issue_flags) &&
	    (a->iou_flags & (AR_ACCEPT_MULTISHOT | AR_ACCEPT_POLL_FIRST)))
		return a->iou_flags & AR_ACCEPT_MULTISHOT ? -EBADFD : -EAGAIN;
	if ((a->iou_flags & AR_ACCEPT_POLL_FIRST) && !a->polled && nonblock) {
		/* DONTWAIT is the kernel's REQ_F_NOWAIT: no wait, -EAGAIN */
		ret = ar_net_poll_first(req, &a->kind, false,
					a->iou_flags & AR_ACCEPT_DONTWAIT);
		if (ret)
			return ret;
		a->polled = true;
		return AR_ISSUE_AGAIN;
	}
	for (;;) {
		ret = ar_accept_one(req, a, nonblock, &cflags);
		if (ret == -EAGAIN && nonblock &&
		    !(a->iou_flags & AR_ACCEPT_DONTWAIT))
			return AR_ISSUE_AGAIN;
		/* multishot: each connection a CQE with MORE while the CQ has room */
		if (ret < 0 || !(a->iou_flags & AR_ACCEPT_MULTISHOT) ||
		    !ar_req_post_more(req, ret, cflags | IORING_CQE_F_MORE))
			break;
	}
	return ar_net_done(req, ret, cflags, false);
}

/*
 * SEND, RECV, SEND_ZC: one buffer. buf/len move on past what a partial
 * MSG_WAITALL transfer did, counted in done.
 */
struct ar_sr {
	__u64 buf;
	__u32 len;
	__u32 done;
	__u32 msg_flags;
	__u16 flags;		/* IORING_RECVSEND_* (sqe->ioprio) */
	__u16 buf_index;
	__u8 kind;		/* AR_SK_* */
	__u8 send : 1, zc : 1, polled : 1;
	__u8 rflags;		/* AR_RECV_RETRY.. (the kernel's sr_retry_flags) */
	bool drained;		/* the last receive's peek saw the queue empty */
	__u8 loops;		/* multishot receives in a row (nr_multishot_loops) */
	__u32 sel_len;		/* BUFFER_SELECT: the length asked (0: all); mshot_len */
	__u32 mshot_total;	/* RECV multishot: bytes left of sqe->optlen's limit */
	/* bundles */
	int inq;		/* msg_inq: bytes queued after a receive, -1 unknown */
	__u32 saved_cflags;	/* a retried bundle's first flags (req->cqe.flags) */
	__u16 nr_seg;		/* buffers mapped */
	__u16 vec_cap;		/* kmsg->vec.nr: how many the array maps unasked */
	int addr_len;		/* SEND's destination (sendto) */
	void *addr;
	struct iovec *vec;	/* the mapped buffers (ar_kbuf_vec_get()) */
	_Alignas(8) unsigned char addr_buf[AR_NET_ADDR_INLINE];
};

/* sr->rflags, the kernel's sr_retry_flags */
#define AR_RECV_RETRY		(1U << 0)	/* a bundle appends to its first receive */
#define AR_RECV_PARTIAL_MAP	(1U << 1)	/* ... whose last buffer was not mapped */
#define AR_RECV_MSHOT_CAP	(1U << 2)	/* a multishot's receive filled mshot_len */
#define AR_RECV_MSHOT_LIM	(1U << 3)	/* sqe->optlen limits the multishot */
#define AR_RECV_MSHOT_DONE	(1U << 4)	/* ... and it is reached */
#define AR_RECV_NO_RETRY	(AR_RECV_RETRY | AR_RECV_PARTIAL_MAP | \
				 AR_RECV_MSHOT_CAP | AR_RECV_MSHOT_DONE)

/* io_send_setup / the RECV part of io_recvmsg_prep_setup */
static int ar_sr_setup(struct ar_ureq *req, const struct io_uring_sqe *sqe,
		       struct ar_sr *sr)
{
	size_t len = sr->len < AR_MAX_RW_COUNT ? sr->len : AR_MAX_RW_COUNT;
	int ret;

	if (sr->send) {
		if (sqe->__pad3[0])
			return -EINVAL;
		if (sqe->addr2) {
			ret = ar_net_copy_addr(req, sr->addr_buf, &sr->addr,
					       sqe->addr2, sqe->addr_len);
			if (ret)
				return ret;
			sr->addr_len = sqe->addr_len;
		}
	}
	if (!(req->sqe_flags & IOSQE_BUFFER_SELECT) &&
	    !ar_access_ok((const void *)(uintptr_t)sr->buf, len))
		return -EFAULT;
	return 0;
}

static void ar_sr_init(struct ar_ureq *req, struct ar_sr *sr,
		       const struct io_uring_sqe *sqe, bool send, bool zc)
{
	memset(sr, 0, offsetof(struct ar_sr, addr_buf));
	sr->buf = sqe->addr;
	sr->len = sqe->len;
	sr->flags = sqe->ioprio;
	if (sr->flags & AR_RECVSEND_POLL_FIRST)
		req->flags |= AR_REQ_F_RS_POLL_FIRST;
	sr->send = send;
	sr->zc = zc;
}

int ar_send_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sr *sr = ar_req_data(req, struct ar_sr);

	ar_sr_init(req, sr, sqe, true, false);
	if ((int)sqe->len < 0 || (sr->flags & ~AR_SEND_FLAGS))
		return -EINVAL;
	sr->msg_flags = sqe->msg_flags | MSG_NOSIGNAL;
	sr->buf_index = sqe->buf_group;
	/* a bundle sends all it took: MSG_WAITALL, as io_sendmsg_prep() adds */
	if (sr->flags & AR_RECVSEND_BUNDLE)
		sr->msg_flags |= MSG_WAITALL;
	return ar_sr_setup(req, sqe, sr);
}

/*
 * RECV and RECVMSG's checks of io_recvmsg_prep, in its order. sqe->optlen
 * (file_index's word) is RECV multishot's byte limit, refused elsewhere.
 */
static int ar_recv_checks(struct ar_ureq *req, const struct io_uring_sqe *sqe,
			  unsigned flags, unsigned msg_flags, bool msg)
{
	if (sqe->addr2 || (int)sqe->len < 0)
		return -EINVAL;
	if (flags & ~AR_RECV_FLAGS)
		return -EINVAL;
	if (flags & AR_RECV_MULTISHOT) {
		if (!(req->sqe_flags & IOSQE_BUFFER_SELECT))
			return -EINVAL;
		if (msg_flags & MSG_WAITALL)
			return -EINVAL;
		if (msg && sqe->file_index)
			return -EINVAL;
	} else if (sqe->file_index) {
		return -EINVAL;
	}
	if ((flags & AR_RECVSEND_BUNDLE) && msg)
		return -EINVAL;
	return 0;
}

int ar_recv_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sr *sr = ar_req_data(req, struct ar_sr);
	int ret;

	ar_sr_init(req, sr, sqe, false, false);
	sr->msg_flags = sqe->msg_flags;
	ret = ar_recv_checks(req, sqe, sr->flags, sr->msg_flags, false);
	if (ret)
		return ret;
	sr->buf_index = sqe->buf_group;
	/* a multishot's length caps each receive (mshot_len); optlen all of them */
	sr->sel_len = sr->len;
	if (sr->flags & AR_RECV_MULTISHOT) {
		sr->mshot_total = sqe->file_index;
		if (sr->mshot_total)
			sr->rflags |= AR_RECV_MSHOT_LIM;
	}
	return ar_sr_setup(req, sqe, sr);
}

/*
 * SEND_ZC/SENDMSG_ZC's first checks; past them the kernel has its
 * notification, so every later failure posts MORE and then the NOTIF.
 */
static int ar_zc_prep_head(struct ar_ureq *req, const struct io_uring_sqe *sqe,
			   __u16 flags, bool msg)
{
	if (sqe->__pad2[0] || sqe->addr3)
		return -EINVAL;
	if (req->flags & AR_REQ_F_SKIP_CQE)
		return -EINVAL;
	req->flags |= AR_REQ_F_NOTIF;
	if (flags & ~AR_ZC_FLAGS) {
		if (flags & ~AR_ZC_FLAGS_VALID)
			return -EINVAL;
		/* always copied here: reported as the kernel reports a copy */
		req->flags |= AR_REQ_F_NOTIF_COPIED;
	}
	/* 6.18 takes FIXED_BUF on SENDMSG_ZC too: the iovecs in a registered buffer */
	if (msg && (sqe->addr2 || sqe->file_index))
		return -EINVAL;
	return 0;
}

int ar_send_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sr *sr = ar_req_data(req, struct ar_sr);
	int ret;

	ar_sr_init(req, sr, sqe, true, true);
	ret = ar_zc_prep_head(req, sqe, sr->flags, false);
	if (ret)
		return ret;
	sr->msg_flags = sqe->msg_flags | MSG_NOSIGNAL;
	sr->buf_index = sqe->buf_index;
	return ar_sr_setup(req, sqe, sr);
}

/* SOCK_SUPPORT_ZC: TCP and UDP sockets */
static int ar_zc_check(struct ar_ureq *req, __u8 *kind)
{
	int ret = ar_net_kind(req->fd, kind);

	if (ret)
		return ret;
	return *kind == AR_SK_TCP || *kind == AR_SK_UDP ? 0 : -EOPNOTSUPP;
}

/* IORING_RECVSEND_FIXED_BUF: [addr, addr + len) must lie in registered buffer index */
static struct ar_rsrc_node *ar_zc_fixed_node(struct ar_ureq *req, __u16 index)
{
	if (!req->buf_node)
		req->buf_node = ar_rsrc_get_buf(req->ctx, index);
	return req->buf_node;
}

static int ar_zc_fixed_range(struct ar_ureq *req, __u16 index, __u64 addr,
			     __u64 len)
{
	struct ar_rsrc_node *node = ar_zc_fixed_node(req, index);
	__u64 start, end;

	if (!node)
		return -EFAULT;
	start = (uintptr_t)node->iov.iov_base;
	end = start + node->iov.iov_len;
	if (addr < start || addr + len > end || addr + len < addr)
		return -EFAULT;
	return 0;
}

static int ar_zc_import_fixed(struct ar_ureq *req, struct ar_sr *sr)
{
	return ar_zc_fixed_range(req, sr->buf_index, sr->buf, sr->len);
}

/* ---- provided buffers for SEND, and bundles ---- */

/*
 * The buffers a request maps: a bundle's in its array (one from the
 * ring's cache, kept for the request's life and given back by
 * ar_sr_cleanup()), a single one in sr->buf and sr->len.
 */
static int ar_sr_vec(struct ar_ureq *req, struct ar_sr *sr)
{
	if (!sr->vec)
		sr->vec = ar_kbuf_vec_get(req->ctx);
	return sr->vec ? 0 : -ENOMEM;
}

void ar_sr_cleanup(struct ar_ureq *req)
{
	struct ar_sr *sr = ar_req_data(req, struct ar_sr);

	if (sr->vec) {
		ar_kbuf_vec_put(req->ctx, sr->vec);
		sr->vec = NULL;
	}
}

/* what was mapped becomes the request's buffer: one in sr->buf, or the array */
static int ar_sr_mapped(struct ar_sr *sr, const struct ar_kbuf_peek *arg,
			int nr)
{
	sr->nr_seg = (__u16)nr;
	sr->len = (__u32)arg->out_len;
	if (nr == 1) {
		sr->buf = (uintptr_t)arg->iovs[0].iov_base;
		sr->len = (__u32)arg->iovs[0].iov_len;
		/* import_ubuf(): a buffer beyond user space */
		return ar_access_ok(arg->iovs[0].iov_base, sr->len) ? 0 : -EFAULT;
	}
	return 0;
}

/*
 * SEND with IOSQE_BUFFER_SELECT (io_send_select_buffer): at most the
 * SQE's length (0: all) from the group, consumed at selection; a bundle
 * maps as many buffers as that length needs, one SEND's worth otherwise.
 */
static int ar_send_select(struct ar_ureq *req, struct ar_sr *sr)
{
	struct iovec one;
	struct ar_kbuf_peek arg = {
		.iovs = &one,
		.nr_iovs = 1,
		.max_len = sr->len ? sr->len : INT_MAX,
	};
	int ret;

	if (sr->flags & AR_RECVSEND_BUNDLE) {
		ret = ar_sr_vec(req, sr);
		if (ret)
			return ret;
		arg.iovs = sr->vec;
		arg.nr_iovs = sr->vec_cap ? sr->vec_cap : 1;
		arg.expand = true;
	}
	ret = ar_buffers_select(req, sr->buf_index, &arg, true);
	if (ret < 0)
		return ret;
	if (arg.grew)
		sr->vec_cap = (__u16)ret;
	if (ret > 1 || arg.iovs == sr->vec)
		return ar_sr_mapped(sr, &arg, ret);
	sr->nr_seg = 1;
	sr->buf = (uintptr_t)one.iov_base;
	sr->len = (__u32)one.iov_len;
	return ar_access_ok(one.iov_base, sr->len) ? 0 : -EFAULT;
}

/* the buffer, past POLL_FIRST: a registered one, or a provided one */
static int ar_sr_import(struct ar_ureq *req, struct ar_sr *sr)
{
	if (sr->zc)
		return (sr->flags & AR_RECVSEND_FIXED_BUF) && !sr->done ?
		       ar_zc_import_fixed(req, sr) : 0;
	if ((req->sqe_flags & IOSQE_BUFFER_SELECT) && !ar_kbuf_selected(req))
		return ar_send_select(req, sr);
	return 0;
}

/*
 * io_bundle_nbufs(): how many of the mapped buffers n bytes reached
 * (all when it took them all, as the kernel's iterator math)
 */
static unsigned ar_bundle_nbufs(const struct ar_sr *sr, long n)
{
	unsigned i;

	if (n <= 0)
		return 0;
	if (sr->nr_seg <= 1)
		return 1;
	for (i = 0; i < sr->nr_seg && n > 0; i++)
		n -= (long)sr->vec[i].iov_len;
	return i;
}

/*
 * sendmsg() or recvmsg() of the mapped buffers past what is done of them
 * (sr->len is what is left): the first one reached is cut for the call
 * and put back after.
 */
static long ar_sr_vec_call(struct ar_ureq *req, struct ar_sr *sr,
			   unsigned flags, int *out_flags)
{
	struct msghdr m = { 0 };
	size_t skip = 0, total = 0;
	struct iovec save;
	unsigned i;
	long ret;

	for (i = 0; i < sr->nr_seg; i++)
		total += sr->vec[i].iov_len;
	skip = total > sr->len ? total - sr->len : 0;
	for (i = 0; i < sr->nr_seg && skip >= sr->vec[i].iov_len; i++)
		skip -= sr->vec[i].iov_len;
	if (i == sr->nr_seg)
		i = sr->nr_seg - 1;
	save = sr->vec[i];
	sr->vec[i].iov_base = (char *)save.iov_base + skip;
	sr->vec[i].iov_len = save.iov_len - skip;
	m.msg_iov = &sr->vec[i];
	m.msg_iovlen = sr->nr_seg - i;
	if (sr->send) {
		m.msg_name = sr->addr_len ? sr->addr : NULL;
		m.msg_namelen = (socklen_t)sr->addr_len;
		ret = ar_sys_sendmsg(req->fd, &m, flags);
	} else {
		ret = ar_sys_recvmsg(req->fd, &m, flags);
	}
	sr->vec[i] = save;
	*out_flags = m.msg_flags;
	return ret;
}

static bool ar_send_bundle_more(struct ar_ureq *req, struct ar_sr *sr, long ret)
{
	if (!sr->send || sr->zc || !(sr->flags & AR_RECVSEND_BUNDLE) || ret <= 0)
		return false;
	return ar_req_post_more(req, (int)ret, IORING_CQE_F_MORE);
}

/*
 * One send or receive of sr's buffer: sendto() and recvfrom(), which
 * make the kernel's msghdr themselves, unless a MSG_WAITALL receive
 * needs recvmsg()'s MSG_TRUNC and MSG_CTRUNC.
 */
static inline __attribute__((always_inline))
long ar_sr_call(struct ar_ureq *req, struct ar_sr *sr, unsigned flags,
		int *out_flags)
{
	size_t len = sr->len < AR_MAX_RW_COUNT ? sr->len : AR_MAX_RW_COUNT;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)sr->buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	long ret;

	*out_flags = 0;
	if (sr->nr_seg > 1)
		return ar_sr_vec_call(req, sr, flags, out_flags);
	if (sr->send) {
		/* a zero-copy send copies here: no MSG_ZEROCOPY (D73) */
		if (sr->zc)
			flags &= ~MSG_ZEROCOPY;
		return ar_raw_syscall6(SYS_sendto, req->fd, (long)sr->buf,
				       (long)len, (long)flags,
				       sr->addr_len ? (long)sr->addr : 0,
				       sr->addr_len);
	}
	if (!(flags & MSG_WAITALL))
		return ar_raw_syscall6(SYS_recvfrom, req->fd, (long)sr->buf,
				       (long)len, (long)flags, 0, 0);
	ret = ar_sys_recvmsg(req->fd, &m, flags);
	*out_flags = m.msg_flags;
	return ret;
}

/* a partial MSG_WAITALL transfer: what is left goes on from there */
static void ar_sr_advance(struct ar_sr *sr, long ret)
{
	sr->buf += (__u64)ret;
	sr->len -= (__u32)ret;
	sr->done += (__u32)ret;
}

/*
 * io_kbuf_recycle() as the kernel's receives call it, on "would block"
 * and on a result that is no data: a list buffer goes back to its list,
 * a ring buffer back to the ring unless it was consumed at selection (a
 * worker's). A request that received part of a MSG_WAITALL keeps it.
 */
static void ar_recv_kbuf_recycle(struct ar_ureq *req)
{
	ar_kbuf_recycle(req, req->kbuf.state == AR_KBUF_LEGACY);
}

/*
 * RECV with IOSQE_BUFFER_SELECT (io_recv_buf_select): the group's next
 * buffer, at most the SQE's length; a buffer beyond user space -EFAULT
 * (import_ubuf). One held already (a partial MSG_WAITALL) is kept, with
 * sr->buf and sr->len past what it received.
 */
static int ar_recv_select(struct ar_ureq *req, struct ar_sr *sr,
			  unsigned issue_flags)
{
	size_t len = sr->sel_len;
	void *addr;
	int ret;

	if (ar_kbuf_selected(req))
		return 0;
	if (sr->flags & AR_RECV_MULTISHOT)
		issue_flags = ar_kbuf_mshot_flags(issue_flags);
	ret = ar_buffer_select(req, sr->buf_index, &addr, &len, issue_flags);
	if (ret)
		return ret;
	if (len > AR_MAX_RW_COUNT)
		len = AR_MAX_RW_COUNT;
	sr->buf = (uintptr_t)addr;
	sr->len = (__u32)len;
	return ar_access_ok(addr, len) ? 0 : -EFAULT;
}

/*
 * One receive of io_recv: the result, or AR_ISSUE_AGAIN (the buffer
 * given back) when the socket would block and the request may wait.
 * *fail: the request fails (its link breaks).
 */
static long ar_recv_once(struct ar_ureq *req, struct ar_sr *sr,
			 unsigned issue_flags, bool *fail, unsigned *cflags)
{
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	unsigned flags = sr->msg_flags | (nonblock ? MSG_DONTWAIT : 0);
	int out_flags = 0;
	long ret, min_ret;

	*fail = false;
	*cflags = 0;
	if (req->sqe_flags & IOSQE_BUFFER_SELECT) {
		ret = ar_recv_select(req, sr, issue_flags);
		if (ret) {
			*fail = true;
			return ret;
		}
	}
	for (;;) {
		min_ret = (flags & MSG_WAITALL) ? (long)sr->len : 0;
		ret = ar_sr_call(req, sr, flags, &out_flags);
		if (ret >= min_ret)
			break;
		/* the program's own MSG_DONTWAIT: -EAGAIN is its answer */
		if (ret == -EAGAIN && nonblock && !(sr->msg_flags & MSG_DONTWAIT)) {
			ar_recv_kbuf_recycle(req);
			return AR_ISSUE_AGAIN;
		}
		if (ret > 0 && ar_net_retry(req->fd, &sr->kind, flags)) {
			ar_sr_advance(sr, ret);
			/*
			 * Try again at once: only "would block" may wait
			 * (poll.h: an edge that came already is not seen
			 * again, as at EOF); with the program's MSG_DONTWAIT
			 * that -EAGAIN ends it with the bytes done.
			 */
			continue;
		}
		*fail = true;
		break;
	}
	if (!*fail && (flags & MSG_WAITALL) &&
	    (out_flags & (MSG_TRUNC | MSG_CTRUNC)))
		*fail = true;
	sr->drained = false;
	if (ret >= 0)
		*cflags = ar_net_nonempty(req->fd, &sr->kind,
					  (__u64)ret >= sr->len ||
					  (flags & MSG_PEEK), &sr->drained);
	return ret;
}

/*
 * RECV multishot's byte limit (sqe->optlen, io_recv_finish()): each
 * receive's bytes count against it; true once it is reached, which ends
 * the multishot with that receive's CQE.
 */
static bool ar_recv_limit(struct ar_sr *sr, long ret)
{
	__u32 n;

	if (ret <= 0 || !(sr->rflags & AR_RECV_MSHOT_LIM))
		return false;
	n = (__u64)ret < sr->mshot_total ? (__u32)ret : sr->mshot_total;
	sr->mshot_total -= n;
	if (sr->mshot_total)
		return false;
	sr->rflags |= AR_RECV_MSHOT_DONE;
	return true;
}

/* receives a multishot makes in a row while data is queued (MULTISHOT_MAX_RETRY) */
#define AR_MULTISHOT_MAX_RETRY	32

/*
 * A multishot receive goes on while data is queued, but after its share
 * (AR_MULTISHOT_MAX_RETRY receives, or a bundle that filled the SQE's
 * length) the other ready requests go first, as the kernel requeues it
 * behind the task work queued meanwhile: true to answer
 * AR_ISSUE_REQUEUE (a blocking issue goes on).
 */
static bool ar_recv_mshot_yield(struct ar_sr *sr, unsigned issue_flags)
{
	if (sr->loops++ < AR_MULTISHOT_MAX_RETRY &&
	    !(sr->rflags & AR_RECV_MSHOT_CAP))
		return false;
	sr->loops = 0;
	sr->rflags &= (__u8)~AR_RECV_MSHOT_CAP;
	return issue_flags & AR_ISSUE_NONBLOCK;
}

/*
 * io_recv: oneshot, or multishot (IORING_RECV_MULTISHOT), whose every
 * receive of data consumes a buffer and posts a CQE with MORE while the
 * CQ has room; it stays armed only once the socket would block. It ends
 * with an error (-ENOBUFS when the group is empty), EOF (res 0), a full
 * CQ (that receive's CQE, without MORE), its byte limit, or a cancel. A
 * receive of no data gives its buffer back.
 */
static int ar_recv_single_issue(struct ar_ureq *req, struct ar_sr *sr,
				unsigned issue_flags)
{
	bool mshot = sr->flags & AR_RECV_MULTISHOT, fail, done;
	unsigned cflags;
	long ret;

	for (;;) {
		ret = ar_recv_once(req, sr, issue_flags, &fail, &cflags);
		if (ret == AR_ISSUE_AGAIN)
			return AR_ISSUE_AGAIN;
		done = ar_recv_limit(sr, ret);
		if (ret > 0 || sr->done) {
			ret = ret > 0 ? ret + sr->done : sr->done;
			cflags |= ar_put_kbuf(req, (int)ret);
		} else {
			ar_recv_kbuf_recycle(req);
		}
		if (!mshot || ret <= 0 || done ||
		    !ar_req_post_more(req, (int)ret, cflags | IORING_CQE_F_MORE))
			break;
		/*
		 * The peek after this receive saw the queue empty: the next
		 * try could only answer "would block" (and would take a
		 * buffer to give it back), so the request waits at once, as
		 * after that try (data that comes later is a new edge).
		 */
		if (sr->drained && (issue_flags & AR_ISSUE_NONBLOCK) &&
		    !(sr->msg_flags & MSG_DONTWAIT))
			return AR_ISSUE_AGAIN;
		if (ar_recv_mshot_yield(sr, issue_flags))
			return AR_ISSUE_REQUEUE;
	}
	return ar_net_done(req, (int)ret, cflags, fail);
}

/*
 * msg_inq after a receive, as the kernel's sockets set it: the bytes
 * queued (SIOCINQ), a TCP FIN that came counting one (tcp_inq_hint());
 * -1 for sockets that do not say.
 */
static int ar_net_inq(int fd, __u8 *kind)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };
	struct timespec now = { 0, 0 };
	int n;

	if (ar_net_kind(fd, kind) ||
	    (*kind != AR_SK_TCP && *kind != AR_SK_UNIX_STREAM) ||
	    ioctl(fd, SIOCINQ, &n))
		return -1;
	/* the FIN, not a reset (as ar_net_nonempty()) */
	if (*kind == AR_SK_TCP &&
	    ar_raw_syscall6(SYS_ppoll, (long)&p, 1, (long)&now, 0, 0, 0) > 0 &&
	    (p.revents & POLLRDHUP) && !(p.revents & (POLLERR | POLLHUP)))
		n++;
	return n;
}

/*
 * A bundle's buffers (io_recv_buf_select()): as many of the ring's as
 * the length asked needs (the SQE's, or what the last receive left
 * queued when it gave 0; a first receive with neither maps as many as
 * the request's array holds, one at first), capped by a multishot's
 * byte limit. In a worker, one buffer, consumed at once, as the
 * kernel's unlocked issue.
 */
static int ar_recv_bundle_select(struct ar_ureq *req, struct ar_sr *sr,
				 unsigned issue_flags)
{
	size_t want = (sr->rflags & AR_RECV_RETRY) ? (size_t)sr->inq : sr->sel_len;
	struct ar_kbuf_peek arg = { .expand = true };
	void *addr;
	int ret;

	if (issue_flags & AR_ISSUE_WORKER) {
		ret = ar_buffer_select(req, sr->buf_index, &addr, &want,
				       issue_flags);
		if (ret)
			return ret;
		sr->nr_seg = 1;
		sr->buf = (uintptr_t)addr;
		sr->len = (__u32)want;
		return ar_access_ok(addr, want) ? 0 : -EFAULT;
	}
	ret = ar_sr_vec(req, sr);
	if (ret)
		return ret;
	arg.iovs = sr->vec;
	arg.nr_iovs = sr->vec_cap ? sr->vec_cap : 1;
	if (want)
		arg.max_len = want;
	else if (sr->inq > 1)
		arg.max_len = (size_t)sr->inq;
	if ((sr->rflags & AR_RECV_MSHOT_LIM) &&
	    (!arg.max_len || arg.max_len > sr->mshot_total))
		arg.max_len = sr->mshot_total;
	ret = ar_buffers_select(req, sr->buf_index, &arg, false);
	if (ret < 0)
		return ret;
	if (arg.grew)
		sr->vec_cap = (__u16)ret;
	if (arg.partial_map)
		sr->rflags |= AR_RECV_PARTIAL_MAP;
	return ar_sr_mapped(sr, &arg, ret);
}

/*
 * One receive of a bundle: the bytes, or AR_ISSUE_AGAIN (the buffers
 * given back) when the socket would block and the request may wait.
 * sr->inq says what is left queued after it.
 */
static long ar_recv_bundle_once(struct ar_ureq *req, struct ar_sr *sr,
				unsigned issue_flags, bool *fail)
{
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	unsigned flags = sr->msg_flags | (nonblock ? MSG_DONTWAIT : 0);
	int out_flags = 0;
	long ret;

	*fail = false;
	if (!ar_kbuf_selected(req)) {
		if (sr->flags & AR_RECV_MULTISHOT)
			issue_flags = ar_kbuf_mshot_flags(issue_flags);
		ret = ar_recv_bundle_select(req, sr, issue_flags);
		if (ret) {
			ar_kbuf_recycle(req, true);
			sr->inq = -1;
			*fail = true;
			return ret;
		}
	}
	sr->inq = -1;
	ret = ar_sr_call(req, sr, flags, &out_flags);
	if (ret == -EAGAIN && nonblock && !(sr->msg_flags & MSG_DONTWAIT)) {
		ar_kbuf_recycle(req, true);
		return AR_ISSUE_AGAIN;
	}
	if (ret < 0 || ((flags & MSG_WAITALL) && ((__u64)ret < sr->len ||
			(out_flags & (MSG_TRUNC | MSG_CTRUNC)))))
		*fail = true;
	if (ret >= 0)
		sr->inq = ar_net_inq(req->fd, &sr->kind);
	return ret;
}

/* bits a retried bundle takes from its second receive (CQE_F_MASK) */
#define AR_BUNDLE_CQE_MASK	(IORING_CQE_F_SOCK_NONEMPTY | IORING_CQE_F_MORE | \
				 AR_CQE_F_BUF_MORE)
#define AR_CQE_F_BUF_MORE	(1U << 4)	/* IORING_CQE_F_BUF_MORE */

/*
 * RECV with IORING_RECVSEND_BUNDLE (io_recv, io_recv_finish()): one CQE
 * for the buffers a receive filled, the first one's id in it. A receive
 * that filled all it mapped while more is queued goes on once into more
 * buffers and adds to the same CQE. A multishot bundle posts that CQE
 * with MORE and goes on while the group has buffers; one that takes the
 * group's last ends with it.
 */
static int ar_recv_bundle_issue(struct ar_ureq *req, struct ar_sr *sr,
				unsigned issue_flags)
{
	bool mshot = sr->flags & AR_RECV_MULTISHOT, fail, finished, empty;
	unsigned cflags;
	long ret, this_ret;
	__u32 mapped;

	for (;;) {
		ret = ar_recv_bundle_once(req, sr, issue_flags, &fail);
		if (ret == AR_ISSUE_AGAIN)
			return AR_ISSUE_AGAIN;
		mapped = sr->len;
		empty = req->kbuf.empty;
		finished = ret <= 0;
		if (ret > 0)
			ret += sr->done;
		else if (sr->done)
			ret = sr->done;
		else
			ar_kbuf_recycle(req, true);
		cflags = sr->inq > 0 ? IORING_CQE_F_SOCK_NONEMPTY : 0;
		if (ar_recv_limit(sr, ret))
			finished = true;
		this_ret = ret - (long)sr->done;
		cflags |= ar_put_kbufs(req, (int)this_ret,
				       ar_bundle_nbufs(sr, this_ret));
		if (sr->rflags & AR_RECV_RETRY)
			cflags = sr->saved_cflags | (cflags & AR_BUNDLE_CQE_MASK);
		if (mshot && sr->sel_len && ret >= (long)sr->sel_len)
			sr->rflags |= AR_RECV_MSHOT_CAP;
		if (empty)
			break;
		/* all it mapped was filled and more is queued: add to this CQE */
		if (!(sr->rflags & AR_RECV_NO_RETRY) && sr->inq > 1 &&
		    this_ret > 0 && (__u32)this_ret == mapped) {
			sr->saved_cflags = cflags & ~AR_BUNDLE_CQE_MASK;
			sr->done += (__u32)this_ret;
			sr->rflags |= AR_RECV_RETRY;
			continue;
		}
		if (!mshot || finished ||
		    !ar_req_post_more(req, (int)ret, cflags | IORING_CQE_F_MORE))
			break;
		/* io_mshot_prep_retry() */
		sr->done = 0;
		sr->rflags &= (__u8)~(AR_RECV_RETRY | AR_RECV_PARTIAL_MAP);
		/* nothing left queued: wait for more (a later edge) */
		if (!(cflags & IORING_CQE_F_SOCK_NONEMPTY) && sr->inq >= 0 &&
		    (issue_flags & AR_ISSUE_NONBLOCK) &&
		    !(sr->msg_flags & MSG_DONTWAIT))
			return AR_ISSUE_AGAIN;
		if (ar_recv_mshot_yield(sr, issue_flags))
			return AR_ISSUE_REQUEUE;
	}
	return ar_net_done(req, (int)ret, cflags, fail);
}

static int ar_recv_issue(struct ar_ureq *req, struct ar_sr *sr,
			 unsigned issue_flags)
{
	bool mshot = sr->flags & AR_RECV_MULTISHOT;

	if (ar_net_unpollable_worker(req, issue_flags) &&
	    (mshot || (sr->flags & AR_RECVSEND_POLL_FIRST)))
		return mshot ? -EBADFD : -EAGAIN;
	if ((sr->flags & AR_RECVSEND_BUNDLE) &&
	    (req->sqe_flags & IOSQE_BUFFER_SELECT))
		return ar_recv_bundle_issue(req, sr, issue_flags);
	return ar_recv_single_issue(req, sr, issue_flags);
}

/*
 * io_send_finish() with provided buffers: a plain SEND's CQE names its
 * buffer; a bundle's, the first of those it took, and while data went
 * out, the group has more and no wait was needed, it posts that CQE
 * with MORE and sends the next bundle (ar_sendrecv_issue() again).
 */
static bool ar_send_finish(struct ar_ureq *req, struct ar_sr *sr, long ret,
			   bool fail, int *res)
{
	bool empty = req->kbuf.empty;
	unsigned cflags;

	if (!(sr->flags & AR_RECVSEND_BUNDLE)) {
		*res = ar_net_done(req, (int)ret, ar_put_kbuf(req, (int)ret), fail);
		return false;
	}
	cflags = ar_put_kbufs(req, (int)ret, ar_bundle_nbufs(sr, ret));
	if (ret <= 0 || empty || (req->flags & AR_REQ_F_POLLED) ||
	    !ar_req_post_more(req, (int)ret, cflags | IORING_CQE_F_MORE)) {
		*res = ar_net_done(req, (int)ret, cflags, fail);
		return false;
	}
	sr->len = sr->done = 0;
	sr->nr_seg = 0;
	return true;
}

/*
 * io_send: a partial MSG_WAITALL send on a stream socket goes on (at
 * once: only "would block" waits) and reports the bytes done. With
 * provided buffers they are selected first, and a bundle goes on with
 * the next ones (ar_send_finish()).
 */
static int ar_send_issue(struct ar_ureq *req, struct ar_sr *sr,
			 unsigned issue_flags)
{
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK, fail;
	unsigned flags = sr->msg_flags;
	int out_flags = 0, res;
	long ret, min_ret;

	/* an older send on the socket waits: this one goes after it */
	if (nonblock && !(sr->msg_flags & MSG_DONTWAIT) && ar_poll_send_behind(req))
		return AR_ISSUE_AGAIN;
	if (nonblock)
		flags |= MSG_DONTWAIT;
	for (;;) {
		fail = false;
		ret = ar_sr_import(req, sr);
		if (ret)
			return ar_net_done(req, (int)ret, 0, true);
		for (;;) {
			min_ret = (flags & MSG_WAITALL) ? (long)sr->len : 0;
			ret = ar_sr_call(req, sr, flags, &out_flags);
			if (ret >= min_ret)
				break;
			/* the program's own MSG_DONTWAIT: -EAGAIN is its answer */
			if (ret == -EAGAIN && nonblock &&
			    !(sr->msg_flags & MSG_DONTWAIT))
				return AR_ISSUE_AGAIN;
			if (ret > 0 && ar_net_retry(req->fd, &sr->kind, flags)) {
				ar_sr_advance(sr, ret);
				continue;
			}
			fail = true;
			break;
		}
		if (ret >= 0)
			ret += sr->done;
		else if (sr->done)
			ret = sr->done;
		if (ar_kbuf_selected(req)) {
			if (ar_send_finish(req, sr, ret, fail, &res))
				continue;
			return res;
		}
		/*
		 * 6.18's bundle send without a selected buffer: the bytes
		 * sent are a CQE with MORE, then it goes on with nothing left
		 * to send (unless it had to wait: io_send_finish()).
		 */
		if (!(req->flags & AR_REQ_F_POLLED) &&
		    ar_send_bundle_more(req, sr, ret)) {
			sr->len = sr->done = 0;
			continue;
		}
		return ar_net_done(req, (int)ret, 0, fail);
	}
}

/*
 * A bundle SEND is multishot (REQ_F_MULTISHOT, not REQ_F_APOLL_MULTISHOT)
 * and io-wq runs no multishot request: io_wq_submit_work() arms a poll
 * for it instead, whose arming fails it -ECANCELED when the socket is
 * writable already (a oneshot poll ready at arming answers
 * IO_APOLL_READY). So an IOSQE_ASYNC or drained bundle send fails
 * -ECANCELED on a writable socket and waits on a full one, then sends
 * as any bundle (measured on 6.18). 0: go on, or the answer.
 */
static int ar_send_bundle_worker(struct ar_ureq *req, struct ar_sr *sr,
				 unsigned issue_flags)
{
	struct pollfd pfd = { .fd = req->fd, .events = POLLOUT };

	if (!sr->send || sr->zc || !(sr->flags & AR_RECVSEND_BUNDLE) ||
	    !(issue_flags & AR_ISSUE_WORKER) || (req->flags & AR_REQ_F_POLLED) ||
	    ar_net_bad_fd(req))
		return 0;
	/* a worker's poll is the engine's own (ar_hook_off) */
	if (poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & (POLLOUT | POLLERR | POLLHUP)))
		return -ECANCELED;
	return AR_ISSUE_AGAIN;
}

/*
 * io_send, io_recv, io_send_zc: a partial MSG_WAITALL transfer on a
 * stream socket goes on (after readiness, or at once when blocking) and
 * reports the bytes done; other failures fail the request.
 */
int ar_sendrecv_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sr *sr = ar_req_data(req, struct ar_sr);
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	long ret;

	ret = ar_send_bundle_worker(req, sr, issue_flags);
	if (ret)
		return (int)ret;

	if (sr->zc) {
		ret = ar_zc_check(req, &sr->kind);
		if (ret)
			return ar_net_done(req, (int)ret, 0, true);
	}
	if ((sr->flags & AR_RECVSEND_POLL_FIRST) && !sr->polled && nonblock) {
		/* the program's MSG_DONTWAIT is REQ_F_NOWAIT: -EAGAIN */
		ret = ar_net_poll_first(req, &sr->kind, sr->send,
					sr->msg_flags & MSG_DONTWAIT);
		if (ret)
			return (int)ret;
		sr->polled = true;
		return AR_ISSUE_AGAIN;
	}
	if (!sr->send)
		return ar_recv_issue(req, sr, issue_flags);
	return ar_send_issue(req, sr, issue_flags);
}

/*
 * SENDMSG, RECVMSG, SENDMSG_ZC: the msghdr and its iovec array copied at
 * prep; SENDMSG's name too. RECVMSG's name and control buffers are the
 * application's, written by recvmsg(); msg_namelen, msg_controllen and
 * msg_flags are written back to its msghdr, as __sys_recvmsg_sock().
 */
struct ar_msg {
	__u64 umsg;		/* the application's msghdr */
	void *name;
	struct iovec *iov;	/* &fast_iov, or req->alloc */
	void *control;
	size_t controllen;
	int namelen;
	__u32 nr_iov;
	__u32 done;
	__u32 msg_flags;
	__u16 flags;
	__u8 kind;
	__u8 send : 1, zc : 1, polled : 1, has_name : 1;
	__u16 buf_index;	/* SENDMSG_ZC's FIXED_BUF; RECVMSG's buffer group */
	struct iovec fast_iov;
	union {
		_Alignas(8) unsigned char name_buf[24];	/* SENDMSG's sockaddr_in */
		__u32 sel_len;	/* RECVMSG's BUFFER_SELECT: the length asked (0: all) */
	};
};

/* __import_iovec's checks on the copied array; the total capped at MAX_RW_COUNT */
static int ar_msg_check_iov(struct ar_msg *m)
{
	size_t total = 0, len;
	__u32 i;

	for (i = 0; i < m->nr_iov; i++)
		if ((ssize_t)m->iov[i].iov_len < 0)
			return -EINVAL;
	for (i = 0; i < m->nr_iov; i++) {
		len = m->iov[i].iov_len;
		if (!ar_access_ok(m->iov[i].iov_base, len))
			return -EFAULT;
		if (len > AR_MAX_RW_COUNT - total)
			m->iov[i].iov_len = len = AR_MAX_RW_COUNT - total;
		total += len;
	}
	return 0;
}

/*
 * Room beyond the request for what does not fit in it: SENDMSG's name
 * (past sockaddr_in) and more than one iovec, in one block on req->alloc.
 */
static int ar_msg_alloc(struct ar_ureq *req, struct ar_msg *m,
			const struct msghdr *um)
{
	bool big_name = m->send && (size_t)m->namelen > sizeof(m->name_buf);
	size_t nr = um->msg_iovlen > 1 && um->msg_iovlen <= UIO_MAXIOV &&
		    !(req->sqe_flags & IOSQE_BUFFER_SELECT) ? um->msg_iovlen : 0;
	size_t name_sz = big_name ? sizeof(struct sockaddr_storage) : 0;
	char *p;

	if (!big_name && !nr)
		return 0;
	p = malloc(name_sz + nr * sizeof(struct iovec));
	if (!p)
		return -ENOMEM;
	req->alloc = p;
	if (big_name)
		m->name = p;
	if (nr)
		m->iov = (struct iovec *)(p + name_sz);
	return 0;
}

/* the iovec array (BUFFER_SELECT: at most one, only its length matters) */
static int ar_msg_copy_iov(struct ar_ureq *req, struct ar_msg *m,
			   const struct msghdr *um)
{
	if (req->sqe_flags & IOSQE_BUFFER_SELECT) {
		if (um->msg_iovlen > 1)
			return -EINVAL;
		m->nr_iov = 0;
		if (!um->msg_iovlen)
			return 0;
		return ar_copy_from_user(&m->fast_iov, um->msg_iov,
					 sizeof(m->fast_iov));
	}
	m->nr_iov = (__u32)um->msg_iovlen;
	if (m->nr_iov && ar_copy_from_user(m->iov, um->msg_iov,
					   m->nr_iov * sizeof(struct iovec)))
		return -EFAULT;
	return ar_msg_check_iov(m);
}

/*
 * io_recvmsg_mshot_prep: a multishot RECVMSG lays out each buffer with
 * the msghdr's own msg_namelen (even with msg_name NULL, and beyond
 * sockaddr_storage) and msg_controllen; a negative name length or a
 * header past INT_MAX is -EOVERFLOW.
 */
static int ar_recvmsg_mshot_prep(struct ar_msg *m, int namelen, size_t controllen)
{
	if (namelen < 0 ||
	    (size_t)namelen + sizeof(struct io_uring_recvmsg_out) + controllen >
	    (size_t)INT_MAX || controllen > (size_t)INT_MAX)
		return -EOVERFLOW;
	m->namelen = namelen;
	return 0;
}

/* io_msg_copy_hdr and __copy_msghdr */
static int ar_msg_setup(struct ar_ureq *req, const struct io_uring_sqe *sqe,
			struct ar_msg *m)
{
	struct msghdr um;
	int ret;

	m->umsg = sqe->addr;
	m->iov = &m->fast_iov;
	m->name = m->name_buf;
	/*
	 * The whole struct must be user memory, but only the fields up to
	 * msg_controllen are read, one by one, as io_msg_copy_hdr(): a
	 * msghdr whose msg_flags (or padding) cannot be read is not -EFAULT.
	 */
	memset(&um, 0, sizeof(um));
	if (!ar_access_ok((const void *)(uintptr_t)m->umsg, sizeof(um)) ||
	    ar_copy_from_user(&um, (const void *)(uintptr_t)m->umsg,
			      offsetof(struct msghdr, msg_flags)))
		return -EFAULT;
	m->namelen = (int)um.msg_namelen;
	m->has_name = um.msg_name != NULL;
	if (!um.msg_name)
		m->namelen = 0;
	if (m->namelen < 0)
		return -EINVAL;
	if (m->namelen > (int)sizeof(struct sockaddr_storage))
		m->namelen = sizeof(struct sockaddr_storage);
	ret = ar_msg_alloc(req, m, &um);
	if (ret)
		return ret;
	if (!m->send)
		m->name = um.msg_name;	/* recvmsg() writes it */
	else if (m->namelen && ar_copy_from_user(m->name, um.msg_name,
						 (size_t)m->namelen))
		return -EFAULT;
	if (um.msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	m->control = um.msg_control;
	m->controllen = um.msg_controllen;
	ret = ar_msg_copy_iov(req, m, &um);
	if (ret || m->send || !(m->flags & AR_RECV_MULTISHOT))
		return ret;
	return ar_recvmsg_mshot_prep(m, um.msg_namelen, um.msg_controllen);
}

static void ar_msg_init(struct ar_ureq *req, struct ar_msg *m,
			const struct io_uring_sqe *sqe, bool send, bool zc)
{
	memset(m, 0, offsetof(struct ar_msg, name_buf));
	m->flags = sqe->ioprio;
	if (m->flags & AR_RECVSEND_POLL_FIRST)
		req->flags |= AR_REQ_F_RS_POLL_FIRST;
	m->send = send;
	m->zc = zc;
}

int ar_sendmsg_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_msg *m = ar_req_data(req, struct ar_msg);

	ar_msg_init(req, m, sqe, true, false);
	if (sqe->addr2 || sqe->file_index)
		return -EINVAL;
	if (m->flags & ~AR_SEND_FLAGS)
		return -EINVAL;
	m->msg_flags = sqe->msg_flags | MSG_NOSIGNAL;
	if (m->flags & AR_RECVSEND_BUNDLE)
		return -EINVAL;		/* not for SENDMSG */
	return ar_msg_setup(req, sqe, m);
}

int ar_recvmsg_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_msg *m = ar_req_data(req, struct ar_msg);
	int ret;

	ar_msg_init(req, m, sqe, false, false);
	m->msg_flags = sqe->msg_flags;
	ret = ar_recv_checks(req, sqe, m->flags, m->msg_flags, true);
	if (ret)
		return ret;
	m->buf_index = sqe->buf_group;
	ret = ar_msg_setup(req, sqe, m);
	/* BUFFER_SELECT: the one iovec's length is the length asked */
	m->sel_len = (__u32)m->fast_iov.iov_len;
	return ret;
}

int ar_sendmsg_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_msg *m = ar_req_data(req, struct ar_msg);
	int ret;

	ar_msg_init(req, m, sqe, true, true);
	ret = ar_zc_prep_head(req, sqe, m->flags, true);
	if (ret)
		return ret;
	m->buf_index = sqe->buf_index;
	m->msg_flags = sqe->msg_flags | MSG_NOSIGNAL;
	return ar_msg_setup(req, sqe, m);
}

/* the iovecs past n bytes done */
static void ar_msg_advance(struct ar_msg *m, size_t n)
{
	while (n && m->nr_iov) {
		if (n < m->iov->iov_len) {
			m->iov->iov_base = (char *)m->iov->iov_base + n;
			m->iov->iov_len -= n;
			return;
		}
		n -= m->iov->iov_len;
		m->iov++;
		m->nr_iov--;
	}
}

static size_t ar_msg_left(const struct ar_msg *m)
{
	size_t n = 0;

	for (__u32 i = 0; i < m->nr_iov; i++)
		n += m->iov[i].iov_len;
	return n;
}

/* recvmsg's fields back into the application's msghdr */
static int ar_msg_put_user(struct ar_msg *m, const struct msghdr *mh)
{
	/* the application's msghdr may be misaligned: byte offsets, no member access */
	char *um = (char *)(uintptr_t)m->umsg;
	int flags = mh->msg_flags;

	if (m->has_name &&
	    ar_copy_to_user(um + offsetof(struct msghdr, msg_namelen),
			    &mh->msg_namelen, sizeof(mh->msg_namelen)))
		return -EFAULT;
	if (ar_copy_to_user(um + offsetof(struct msghdr, msg_flags), &flags,
			    sizeof(flags)))
		return -EFAULT;
	if (ar_copy_to_user(um + offsetof(struct msghdr, msg_controllen),
			    &mh->msg_controllen, sizeof(mh->msg_controllen)))
		return -EFAULT;
	return 0;
}

/*
 * A ring's fd is not passed over a socket: the kernel refuses an io_uring
 * fd in SCM_RIGHTS (-EINVAL, scm_fp_copy(), since Linux 6.7), checking
 * the fds in order (a closed one before it: its -EBADF). A user ring's fd
 * is an eventfd, which it would pass: the SCM_RIGHTS fds of the control
 * data (the program's memory, read fault-safe) are looked at first.
 * -EINVAL, or 0 (unreadable data too: the system call's answer then).
 */
static int ar_scm_fds_check(uintptr_t p, size_t len)
{
	int fds[64], saved = errno;
	size_t n, i;

	while (len >= sizeof(int)) {
		n = len / sizeof(int);
		if (n > sizeof(fds) / sizeof(fds[0]))
			n = sizeof(fds) / sizeof(fds[0]);
		if (ar_copy_from_user(fds, (const void *)p, n * sizeof(int)))
			return 0;
		for (i = 0; i < n; i++) {
			if (fds[i] < 0 || fcntl(fds[i], F_GETFD) < 0) {
				errno = saved;
				return 0;	/* the kernel's -EBADF first */
			}
			if (ar_engine_fd_user_ring(fds[i]))
				return -EINVAL;
		}
		p += n * sizeof(int);
		len -= n * sizeof(int);
	}
	return 0;
}

/* the program's addresses as numbers: any value, no pointer arithmetic on them */
static int ar_scm_rights_check(const void *control, size_t controllen)
{
	uintptr_t p = (uintptr_t)control;
	size_t left = control ? controllen : 0, step;
	struct cmsghdr h;
	int ret;

	while (left >= sizeof(h)) {
		if (ar_copy_from_user(&h, (const void *)p, sizeof(h)) ||
		    h.cmsg_len < sizeof(h) || h.cmsg_len > left)
			return 0;	/* the system call's answer */
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
			ret = ar_scm_fds_check(p + CMSG_LEN(0),
					       h.cmsg_len - CMSG_LEN(0));
			if (ret)
				return ret;
		}
		step = CMSG_ALIGN(h.cmsg_len);
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
	return 0;
}

static long ar_msg_call(struct ar_ureq *req, struct ar_msg *m, unsigned flags,
			int *out_flags)
{
	struct msghdr mh = {
		.msg_name = m->namelen || !m->send ? m->name : NULL,
		.msg_namelen = (socklen_t)m->namelen,
		.msg_iov = m->iov,
		.msg_iovlen = m->nr_iov,
		.msg_control = m->control,
		.msg_controllen = m->controllen,
	};
	long ret;
	int err;

	if (m->send) {
		/* a ring's fd is not passed: the kernel's -EINVAL */
		err = ar_scm_rights_check(m->control, m->controllen);
		if (err)
			return err;
		return ar_sys_sendmsg(req->fd, &mh, m->zc ? flags & ~MSG_ZEROCOPY : flags);
	}
	if (!m->namelen)
		mh.msg_name = NULL;
	ret = ar_sys_recvmsg(req->fd, &mh, flags);
	*out_flags = mh.msg_flags;
	if (ret >= 0) {
		if (!m->namelen)
			mh.msg_namelen = 0;
		err = ar_msg_put_user(m, &mh);
		if (err)
			return err;
	}
	return ret;
}

/* SENDMSG_ZC with FIXED_BUF: each iovec inside the registered buffer */
static int ar_msg_import_fixed(struct ar_ureq *req, struct ar_msg *m)
{
	int ret;

	if (!(m->flags & AR_RECVSEND_FIXED_BUF) || m->done)
		return 0;
	if (!ar_zc_fixed_node(req, m->buf_index))
		return -EFAULT;
	for (__u32 i = 0; i < m->nr_iov; i++) {
		ret = ar_zc_fixed_range(req, m->buf_index,
					(uintptr_t)m->iov[i].iov_base,
					m->iov[i].iov_len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * RECVMSG with IOSQE_BUFFER_SELECT: the group's next buffer is the one
 * iovec (a multishot's holds the io_uring_recvmsg_out header, the name
 * and the control data first). One held already is kept.
 */
static int ar_recvmsg_select(struct ar_ureq *req, struct ar_msg *m,
			     unsigned issue_flags)
{
	size_t len = m->sel_len;
	void *addr;
	int ret;

	if (ar_kbuf_selected(req))
		return 0;
	if (m->flags & AR_RECV_MULTISHOT)
		issue_flags = ar_kbuf_mshot_flags(issue_flags);
	ret = ar_buffer_select(req, m->buf_index, &addr, &len, issue_flags);
	if (ret)
		return ret;
	if (len > AR_MAX_RW_COUNT)
		len = AR_MAX_RW_COUNT;
	m->fast_iov.iov_base = addr;
	m->fast_iov.iov_len = len;
	m->iov = &m->fast_iov;
	m->nr_iov = 1;
	return 0;
}

/*
 * One multishot RECVMSG receive (io_recvmsg_prep_multishot and
 * io_recvmsg_multishot): the buffer is struct io_uring_recvmsg_out,
 * then namelen bytes for the name, controllen for the control data,
 * then the payload. The header and the name (as much of it as fits)
 * are written with the fault-safe copy; the control data and payload
 * by recvmsg(2). The result counts the whole header, name and control
 * space and the payload. *finished: the receive got no data (EOF, an
 * error): the request ends.
 */
static long ar_recvmsg_mshot_call(struct ar_ureq *req, struct ar_msg *m,
				  unsigned flags, bool *finished)
{
	struct {
		struct io_uring_recvmsg_out out;
		struct sockaddr_storage addr;
	} hdr;
	char *buf = m->fast_iov.iov_base;
	size_t len = m->fast_iov.iov_len, hlen, copy;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	long ret;

	*finished = true;
	hlen = sizeof(hdr.out) + (size_t)m->namelen + m->controllen;
	if (len < hlen)
		return -EFAULT;
	iov.iov_base = buf + hlen;
	iov.iov_len = len - hlen;
	if (m->namelen) {
		mh.msg_name = &hdr.addr;
		mh.msg_namelen = sizeof(hdr.addr);
	}
	if (m->controllen) {
		mh.msg_control = buf + hlen - m->controllen;
		mh.msg_controllen = m->controllen;
	}
	ret = ar_sys_recvmsg(req->fd, &mh, flags);
	*finished = ret <= 0;
	if (ret < 0)
		return ret;
	memset(&hdr.out, 0, sizeof(hdr.out));
	hdr.out.namelen = m->namelen ? mh.msg_namelen : 0;
	hdr.out.controllen = m->controllen ? (__u32)mh.msg_controllen : 0;
	hdr.out.payloadlen = (__u32)ret;
	hdr.out.flags = (__u32)mh.msg_flags;
	if ((size_t)ret > iov.iov_len)
		ret = (long)iov.iov_len;	/* MSG_TRUNC asked: the real length */
	copy = sizeof(hdr.out) + (hdr.out.namelen < (__u32)m->namelen ?
				  hdr.out.namelen : (size_t)m->namelen);
	if (ar_copy_to_user(buf, &hdr, copy)) {
		*finished = true;
		return -EFAULT;
	}
	return (long)hlen + ret;
}

/*
 * One receive of io_recvmsg with a selected buffer: the result, or
 * AR_ISSUE_AGAIN (the buffer given back). *fail: the request fails;
 * *finished: a multishot ends.
 */
static long ar_recvmsg_once(struct ar_ureq *req, struct ar_msg *m,
			    unsigned issue_flags, bool *fail, bool *finished)
{
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	bool mshot = m->flags & AR_RECV_MULTISHOT;
	unsigned flags = m->msg_flags | (nonblock ? MSG_DONTWAIT : 0);
	int out_flags = 0;
	long ret, min_ret;

	*fail = false;
	*finished = true;
	ret = ar_recvmsg_select(req, m, issue_flags);
	if (ret) {
		*fail = true;
		return ret;
	}
	for (;;) {
		/* recvmsg with control data does not retry a partial MSG_WAITALL */
		min_ret = (flags & MSG_WAITALL) && !m->controllen ?
			  (long)ar_msg_left(m) : 0;
		if (mshot) {
			ret = ar_recvmsg_mshot_call(req, m, flags, finished);
		} else {
			ret = ar_msg_call(req, m, flags, &out_flags);
			*finished = ret <= 0;
		}
		if (ret >= min_ret)
			break;
		if (ret == -EAGAIN && nonblock && !(m->msg_flags & MSG_DONTWAIT)) {
			ar_recv_kbuf_recycle(req);
			return AR_ISSUE_AGAIN;
		}
		if (ret > 0 && ar_net_retry(req->fd, &m->kind, flags)) {
			ar_msg_advance(m, (size_t)ret);
			m->done += (__u32)ret;
			continue;	/* as above: only "would block" waits */
		}
		*fail = true;
		break;
	}
	if (!*fail && (flags & MSG_WAITALL) &&
	    (out_flags & (MSG_TRUNC | MSG_CTRUNC)))
		*fail = true;
	return ret;
}

/*
 * io_recvmsg with a selected buffer, oneshot or multishot: as RECV's
 * (ar_recv_issue); a multishot CQE's result is its header, name and
 * control space plus the payload, and the application's msghdr is not
 * written.
 */
static int ar_recvmsg_sel_issue(struct ar_ureq *req, struct ar_msg *m,
				unsigned issue_flags)
{
	bool mshot = m->flags & AR_RECV_MULTISHOT, fail, finished;
	unsigned cflags;
	long ret;

	if (mshot && ar_net_unpollable_worker(req, issue_flags))
		return -EBADFD;
	for (;;) {
		cflags = 0;
		ret = ar_recvmsg_once(req, m, issue_flags, &fail, &finished);
		if (ret == AR_ISSUE_AGAIN)
			return AR_ISSUE_AGAIN;
		if (ret >= 0 && !fail)
			cflags = ar_net_nonempty(req->fd, &m->kind,
						 mshot || (size_t)ret >= ar_msg_left(m) ||
						 (m->msg_flags & MSG_PEEK), NULL);
		if (ret > 0 || m->done) {
			ret = ret > 0 ? ret + m->done : m->done;
			cflags |= ar_put_kbuf(req, (int)ret);
		} else {
			ar_recv_kbuf_recycle(req);
		}
		if (!mshot || finished ||
		    !ar_req_post_more(req, (int)ret, cflags | IORING_CQE_F_MORE))
			break;
	}
	return ar_net_done(req, (int)ret, cflags, fail);
}

/* io_sendmsg, io_recvmsg, io_sendmsg_zc */
int ar_msg_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_msg *m = ar_req_data(req, struct ar_msg);
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	unsigned flags = m->msg_flags, cflags = 0;
	bool fail = false;
	int out_flags = 0;
	long ret, min_ret;

	if (m->zc) {
		/* 6.18 imports the registered iovecs before it looks at the socket */
		ret = ar_msg_import_fixed(req, m);
		if (!ret)
			ret = ar_zc_check(req, &m->kind);
		if (ret)
			return ar_net_done(req, (int)ret, 0, true);
	}
	if ((m->flags & AR_RECVSEND_POLL_FIRST) && !m->polled && nonblock) {
		ret = ar_net_poll_first(req, &m->kind, true,
					m->msg_flags & MSG_DONTWAIT);
		if (ret)
			return (int)ret;
		m->polled = true;
		return AR_ISSUE_AGAIN;
	}
	if (!m->send && (req->sqe_flags & IOSQE_BUFFER_SELECT))
		return ar_recvmsg_sel_issue(req, m, issue_flags);
	/* an older send on the socket waits: this one goes after it */
	if (m->send && nonblock && !(m->msg_flags & MSG_DONTWAIT) &&
	    ar_poll_send_behind(req))
		return AR_ISSUE_AGAIN;

	if (nonblock)
		flags |= MSG_DONTWAIT;
	for (;;) {
		/* recvmsg with control data does not retry a partial MSG_WAITALL */
		min_ret = (flags & MSG_WAITALL) && (m->send || !m->controllen) ?
			  (long)ar_msg_left(m) : 0;
		ret = ar_msg_call(req, m, flags, &out_flags);
		if (ret >= min_ret)
			break;
		if (ret == -EAGAIN && nonblock && !(m->msg_flags & MSG_DONTWAIT))
			return AR_ISSUE_AGAIN;
		if (ret > 0 && ar_net_retry(req->fd, &m->kind, flags)) {
			ar_msg_advance(m, (size_t)ret);
			m->done += (__u32)ret;
			if (m->send) {
				m->control = NULL;
				m->controllen = 0;
			}
			continue;	/* as above: only "would block" waits */
		}
		fail = true;
		break;
	}
	if (!fail && !m->send && (flags & MSG_WAITALL) &&
	    (out_flags & (MSG_TRUNC | MSG_CTRUNC)))
		fail = true;
	if (!m->send && ret >= 0)
		cflags = ar_net_nonempty(req->fd, &m->kind,
					 (size_t)ret >= ar_msg_left(m) ||
					 (m->msg_flags & MSG_PEEK), NULL);
	if (ret >= 0)
		ret += m->done;
	else if (m->done)
		ret = m->done;
	return ar_net_done(req, (int)ret, cflags, fail);
}
