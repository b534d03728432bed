/* SPDX-License-Identifier: MIT */
/*
 * fuzz_net.c - the opcodes of the readiness era in the fuzzer: SEND, RECV,
 * POLL_ADD, SHUTDOWN, SOCKET, PROVIDE_BUFFERS, REMOVE_BUFFERS, FTRUNCATE,
 * FSETXATTR, FGETXATTR, EPOLL_CTL, URING_CMD (SIOCINQ, SIOCOUTQ,
 * TX_TIMESTAMP), ACCEPT, LISTEN, BIND and PIPE. An op byte from FZ_NET_OP_BYTE (0xe0) to 0xef
 * picks them; no stored input had an op byte in 0xda..0xfa, so every
 * one decodes as before.
 *
 * The files (fz_net_open()): a unix socketpair sa/sb holding data both
 * ways, sc whose peer sd (not selectable) wrote 50 bytes and shut down
 * its sending side, loopback UDP sockets ua and ub both connected to a
 * third (uc, not selectable; ua holds one datagram from it), an eventfd
 * with count 1, an empty epoll fd, a loopback TCP listener tl with one
 * connection queued (its client tc, not selectable, shut down its
 * sending side) and a TCP socket tu, neither bound nor connected.
 *
 * Determinism, per op:
 *  - nothing waits for good: every RECV but one on sc (which reads to
 *    EOF) gets MSG_DONTWAIT (so -EAGAIN, not a wait, when empty); a
 *    POLL_ADD asks only for what is always ready (POLLOUT, or POLLIN on sc,
 *    the eventfd or f0), is never multishot and never uses a fixed file
 *    (a slot may hold the pipe's read end); SENDs are at most 2 KiB, so
 *    16 never fill a socket's send buffer.
 *  - UDP sends go to uc, which nothing reads, so no result depends on
 *    when loopback delivers; SIOCOUTQ is not asked of UDP (in-flight).
 *  - the socket state is one resource for fuzz_order.c's rule 1
 *    (RES_NET), provided buffers another (RES_PBUF, groups 100, 101,
 *    FZ_INC_GROUP and 65535, never those a poked READ can name; with
 *    registered buffers, FZ_INC_GROUP is an incremental buffer ring),
 *    xattrs another.
 *  - SEND/RECV with IORING_RECVSEND_POLL_FIRST, SHUTDOWN, FTRUNCATE and
 *    the xattr ops are not "inline" (task work or io-wq on the kernel).
 *  - ACCEPT always says IORING_ACCEPT_DONTWAIT and is never multishot
 *    (no second connection ever comes); PIPE and ACCEPT are never direct
 *    by a poke, and a direct ACCEPT's socket reads EOF.
 *  - SOCKET's and ACCEPT's fds are compared as "an fd"; direct SOCKET
 *    makes only stream and seqpacket sockets (a read on an unconnected
 *    datagram socket in a slot would wait for good). BIND binds to
 *    127.0.0.1 port 0; no port or peer address is compared.
 *  - op bytes 0xf0..0xfa (no stored input had one): SENDMSG and RECVMSG
 *    (one iovec, as SEND and RECV, no provided buffers), SEND_ZC (only
 *    where it fails: unix sockets, tu, tl, files; a UDP send's
 *    notification would depend on loopback), CONNECT (127.0.0.1 port 1:
 *    refused; a unix path that does not exist; AF_UNSPEC; bad lengths),
 *    SPLICE (from a file or a bad fd into the pipe or a file: never from
 *    a pipe or socket, which could wait for good; the pipe is sized for
 *    two pages a splice), EPOLL_WAIT (only ew, always ready, or fds that
 *    fail), MSG_RING (DATA or SEND_FD to the ring itself, user_data 0 or
 *    above FZ_MAX_SQES), FUTEX_WAIT and FUTEX_WAITV (a word of 0 and
 *    values that are never 0: -EAGAIN, or a bad argument), FUTEX_WAKE
 *    (nobody waits: 0), WAITID (P_ALL only with WNOHANG, P_PID 1: not a
 *    child, P_PIDFD of a file).
 *  - op byte 0xfb (no stored input had one): a SEND or RECV bundle
 *    (IORING_RECVSEND_BUNDLE with IOSQE_BUFFER_SELECT) from the groups
 *    above, decoded as that SEND or RECV; a RECV bundle never says
 *    MSG_WAITALL (docs/semantics.md D74).
 * Compared besides the CQEs (fz_net_hash()): what sa, sb, sc, sd and ua
 * hold (SIOCINQ and a peek), the ready list of the epoll fd, and the
 * temp dir's xattrs (fuzz_run.c); sockets the requests made are counted
 * and closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/sockios.h>
#include "fuzz.h"

/* opcodes after liburing 2.3 */
#define FZ_OP_FTRUNCATE	55	/* IORING_OP_FTRUNCATE */
#define FZ_OP_BIND	56	/* IORING_OP_BIND */
#define FZ_OP_LISTEN	57	/* IORING_OP_LISTEN */
#define FZ_OP_PIPE	62	/* IORING_OP_PIPE */
#define FZ_ACCEPT_DONTWAIT	(1U << 1)	/* IORING_ACCEPT_DONTWAIT */
#define FZ_ACCEPT_POLL_FIRST	(1U << 2)	/* IORING_ACCEPT_POLL_FIRST */
#define FZ_SIOCINQ	0	/* SOCKET_URING_OP_SIOCINQ */
#define FZ_SIOCOUTQ	1	/* SOCKET_URING_OP_SIOCOUTQ */
/* its rings have 16-byte CQEs: -EINVAL on a socket, at once */
#define FZ_TX_TIMESTAMP	4	/* SOCKET_URING_OP_TX_TIMESTAMP */
#define FZ_PBUF_BASE	(7 * FZ_BUFSZ)	/* provided buffers: arena buf 7 */
#define FZ_OP_EPOLL_WAIT	59	/* IORING_OP_EPOLL_WAIT */
#define FZ_OP_FUTEX_WAIT	51	/* IORING_OP_FUTEX_WAIT */
#define FZ_OP_FUTEX_WAKE	52	/* IORING_OP_FUTEX_WAKE */
#define FZ_OP_FUTEX_WAITV	53	/* IORING_OP_FUTEX_WAITV */
#define FZ_OP_WAITID		50	/* IORING_OP_WAITID */
#define FZ_FUTEX2_U32		0x02	/* FUTEX2_SIZE_U32 */
#define FZ_FUTEX2_PRIVATE	128	/* FUTEX2_PRIVATE */
#define FZ_EW_DATA		0x5eU	/* ew's entry for the eventfd */
#define FZ_MSG_RING_FLAGS_PASS	(1U << 1)	/* IORING_MSG_RING_FLAGS_PASS */

#define PICK(tab, byte)	((tab)[(byte) % (sizeof(tab) / sizeof((tab)[0]))])

static const int net_fds[] = {
	FZ_FD_SA, FZ_FD_SB, FZ_FD_SC, FZ_FD_UA, FZ_FD_UB, FZ_FD_EV, FZ_FD_EP,
	FZ_FD_F0, FZ_FD_F1, FZ_FD_PIPE_R, FZ_FD_PIPE_W, FZ_FD_NEG, FZ_FD_BAD,
	FZ_FD_TL, FZ_FD_TU,
};
static const int accept_fds[] = {
	FZ_FD_TL, FZ_FD_TL, FZ_FD_TL, FZ_FD_TU, FZ_FD_SA, FZ_FD_F0, FZ_FD_NEG,
	FZ_FD_BAD,
};
static const int listen_fds[] = {
	FZ_FD_TU, FZ_FD_TL, FZ_FD_SA, FZ_FD_UA, FZ_FD_F0, FZ_FD_NEG,
};
static const uint32_t accept_iou[] = {
	FZ_ACCEPT_DONTWAIT, FZ_ACCEPT_DONTWAIT,
	FZ_ACCEPT_DONTWAIT | FZ_ACCEPT_POLL_FIRST, FZ_ACCEPT_DONTWAIT | (1U << 3),
};
static const uint32_t accept_flags[] = { 0, SOCK_NONBLOCK, SOCK_CLOEXEC, 1 };
static const uint32_t backlogs[] = { 0, 5, 0x7fffffff };
static const uint32_t bind_lens[] = {
	sizeof(struct sockaddr_in), sizeof(struct sockaddr_in), 0, 4, 200,
};
static const uint32_t pipe_flags[] = { 0, O_CLOEXEC, O_NONBLOCK, O_DIRECT, 1 };
static const int poll_fds[] = {
	FZ_FD_SA, FZ_FD_SB, FZ_FD_SC, FZ_FD_UA, FZ_FD_UB, FZ_FD_EV, FZ_FD_F0,
	FZ_FD_PIPE_W, FZ_FD_NEG, FZ_FD_BAD,
};
static const int file_fds[] = {
	FZ_FD_F0, FZ_FD_F1, FZ_FD_F2, FZ_FD_DIR, FZ_FD_PIPE_R, FZ_FD_SA,
	FZ_FD_NEG, FZ_FD_BAD,
};
static const int epoll_fds[] = {
	FZ_FD_EP, FZ_FD_EP, FZ_FD_EP, FZ_FD_SA, FZ_FD_F0, FZ_FD_NEG,
};
static const int epoll_targets[] = {
	FZ_FD_SA, FZ_FD_SB, FZ_FD_SC, FZ_FD_UA, FZ_FD_EV, FZ_FD_F0, FZ_FD_EP,
	FZ_FD_PIPE_R, FZ_FD_PIPE_W, FZ_FD_NEG,
};
static const uint32_t send_lens[] = { 0, 1, 64, 300, 2048, 100 };
static const uint32_t recv_lens[] = { 0, 1, 16, 100, 512, 4096 };
static const uint32_t send_flags[] = {
	0, 0, MSG_DONTWAIT, MSG_NOSIGNAL, MSG_MORE, MSG_OOB, MSG_WAITALL,
	MSG_CONFIRM,
};
static const uint32_t recv_flags[] = {
	0, 0, MSG_PEEK, MSG_WAITALL, MSG_TRUNC, MSG_DONTWAIT, MSG_OOB,
	MSG_ERRQUEUE,
};
#define FZ_RECVSEND_BUNDLE	(1U << 4)	/* IORING_RECVSEND_BUNDLE (6.10) */
static const uint32_t recvsend_flags[] = {
	0, 0, IORING_RECVSEND_POLL_FIRST, 1U << 7,
};
static const uint32_t groups[] = { 100, 101, FZ_INC_GROUP, 65535 };
static const uint32_t poll_events[] = {
	POLLOUT, POLLIN, POLLIN | POLLOUT, POLLOUT | POLLPRI,
	POLLIN | POLLRDHUP, POLLOUT | EPOLLEXCLUSIVE, POLLOUT | EPOLLONESHOT,
};
static const uint32_t poll_flags[] = {
	0, 0, IORING_POLL_ADD_LEVEL, 1U << 5, IORING_POLL_UPDATE_EVENTS,
};
static const int domains[] = { AF_UNIX, AF_INET, AF_INET6, 1234 };
static const int types[] = {
	SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_STREAM | SOCK_NONBLOCK,
	SOCK_DGRAM | SOCK_CLOEXEC, 0, 77,
};
static const int protocols[] = { 0, 0, IPPROTO_TCP, IPPROTO_UDP, 255 };
static const uint32_t pbuf_offs[] = { 0, 512, 1024, 2048 };
static const uint32_t pbuf_lens[] = { 64, 256, 0, 64 };
static const uint32_t pbuf_nrs[] = { 1, 2, 4, 8, 0, 65537 };
static const uint32_t pbuf_bids[] = { 0, 1, 65535, 7 };
static const uint32_t remove_nrs[] = { 1, 4, 0, 65537 };
static const uint64_t trunc_lens[] = { 0, 100, 8192, 20000, -1ULL };
static const char *const xattr_names[] = {
	"user.a", "user.b", "trusted.t", "bogus.x", "user.", "",
};
static const uint32_t setx_lens[] = { 0, 5, 64, 65537 };
static const uint32_t getx_lens[] = { 0, 5, 64, 1 };
static const uint32_t setx_flags[] = { 0, 0, XATTR_CREATE, XATTR_REPLACE, 8 };
static const uint32_t getx_flags[] = { 0, 0, 0, 1 };
static const int epoll_ops[] = {
	EPOLL_CTL_ADD, EPOLL_CTL_ADD, EPOLL_CTL_DEL, EPOLL_CTL_MOD, 0, 9,
};
static const uint32_t epoll_events[] = {
	EPOLLIN, EPOLLOUT, EPOLLIN | EPOLLET, EPOLLIN | EPOLLEXCLUSIVE,
	EPOLLIN | EPOLLONESHOT, 0,
};
static const uint32_t uring_cmds[] = {
	FZ_SIOCINQ, FZ_SIOCOUTQ, FZ_TX_TIMESTAMP, FZ_SIOCOUTQ, 99,
};
static const int zc_fds[] = {
	FZ_FD_SA, FZ_FD_SB, FZ_FD_TU, FZ_FD_TL, FZ_FD_F0, FZ_FD_PIPE_W,
	FZ_FD_NEG, FZ_FD_BAD,
};
static const uint32_t zc_flags[] = {
	0, 0, IORING_RECVSEND_POLL_FIRST, IORING_RECVSEND_FIXED_BUF, 1U << 7,
};
static const int connect_fds[] = {
	FZ_FD_TU, FZ_FD_TU, FZ_FD_UB, FZ_FD_SA, FZ_FD_TL, FZ_FD_F0, FZ_FD_NEG,
};
enum { FZ_CONN_REFUSED, FZ_CONN_UNIX_NONE, FZ_CONN_UNSPEC, FZ_CONN_SHORT,
       FZ_CONN_LONG, FZ_NR_CONN };
static const int splice_in[] = {
	FZ_FD_F0, FZ_FD_F0, FZ_FD_F1, FZ_FD_DIR, FZ_FD_EV, FZ_FD_PIPE_W,
	FZ_FD_NEG, FZ_FD_BAD,
};
static const int splice_out[] = {
	FZ_FD_PIPE_W, FZ_FD_PIPE_W, FZ_FD_F2, FZ_FD_PIPE_R, FZ_FD_SB,
	FZ_FD_NEG,
};
static const uint64_t splice_offs[] = { -1ULL, 0, 100, 4000, -2ULL };
static const uint32_t splice_lens[] = { 0, 1, 100, 2048 };
static const uint32_t splice_flags[] = {
	0, SPLICE_F_NONBLOCK, SPLICE_F_MOVE, 0x80, SPLICE_F_FD_IN_FIXED,
};
static const int ewait_fds[] = {
	FZ_FD_EW, FZ_FD_EW, FZ_FD_EW, FZ_FD_F0, FZ_FD_SA, FZ_FD_NEG, FZ_FD_BAD,
};
static const uint32_t ewait_max[] = { 1, 2, 16, 0, 0xffffffff };
static const int ring_fds[] = {
	FZ_FD_RING, FZ_FD_RING, FZ_FD_RING, FZ_FD_F0, FZ_FD_EV, FZ_FD_NEG,
};
static const uint64_t ring_cmds[] = { 0, 0, 0, 1, 9 };	/* DATA, SEND_FD */
static const uint32_t ring_flags[] = {
	0, 0, IORING_MSG_RING_CQE_SKIP, FZ_MSG_RING_FLAGS_PASS, 4,
};
static const uint32_t ring_lens[] = { 0, 7, 0xfffffffb };
static const uint64_t ring_datas[] = { 0, 0xdead0000ULL };
static const uint64_t futex_vals[] = { 1, 0xffffffff, 2, 0x100000000ULL };
static const uint64_t futex_masks[] = {
	0xffffffff, 0xffffffff, 1, 0, 0x100000000ULL,
};
static const uint32_t futex2_flags[] = {
	FZ_FUTEX2_U32 | FZ_FUTEX2_PRIVATE, FZ_FUTEX2_U32 | FZ_FUTEX2_PRIVATE,
	FZ_FUTEX2_U32, 0x03, 0x1000,
};
static const uint32_t wake_nrs[] = { 1, 0, 0x7fffffff, 5 };
static const uint32_t waitv_nrs[] = { 1, 2, 2, 0, 129 };
enum { FZ_WID_ALL, FZ_WID_PID1, FZ_WID_PIDFD_FILE, FZ_WID_BAD, FZ_NR_WID };
static const uint32_t wid_options[] = {
	WEXITED, WEXITED | WSTOPPED, 0, WEXITED | 0x40000000,
};

int fz_is_net(const struct fz_sqe *s)
{
	return s->op >= FZ_NR_BASE_OPS && s->op < FZ_NR_OPS;
}

/* an fd of net_fds, or a slot when the SQE says FIXED_FILE */
static int netsel(const struct fz_sqe *s, const int *tab, unsigned n,
		  uint8_t v)
{
	if (s->flags & IOSQE_FIXED_FILE)
		return v % (FZ_NSLOTS + 2);
	return tab[v % n];
}
#define NETSEL(s, tab, v) netsel(s, tab, sizeof(tab) / sizeof(tab[0]), v)

/* an arena buffer 0..6 (7 holds the provided buffers) and an offset */
static void net_buf(struct fz_sqe *s, uint8_t b, uint32_t len)
{
	s->buf = b % 7;
	s->boff = ((b >> 3) % 16) * 64;
	s->len = len;
	if (s->boff + s->len > FZ_BUFSZ)
		s->len = FZ_BUFSZ - s->boff;
}

static void decode_sendrecv(struct fz_sqe *s, const uint8_t *p)
{
	s->fd = NETSEL(s, net_fds, p[0]);
	if (s->op == FZ_SEND) {
		net_buf(s, p[1], PICK(send_lens, p[2]));
		s->op_flags = PICK(send_flags, p[3]);
	} else {
		net_buf(s, p[1], PICK(recv_lens, p[2]));
		s->op_flags = PICK(recv_flags, p[3]);
		/* only sc (EOF behind its data) may be read without it */
		if ((s->flags & IOSQE_FIXED_FILE) || s->fd != FZ_FD_SC)
			s->op_flags |= MSG_DONTWAIT;
	}
	s->mode = PICK(recvsend_flags, p[4]);
	s->count = PICK(groups, p[4] >> 3);
}

/* the ops of op bytes 0xf0..0xfa */
static void decode_more(struct fz_sqe *s, const uint8_t *p)
{
	switch (s->op) {
	case FZ_SENDMSG:
	case FZ_RECVMSG:
		s->flags &= ~IOSQE_BUFFER_SELECT;
		s->op = s->op == FZ_SENDMSG ? FZ_SEND : FZ_RECV;
		decode_sendrecv(s, p);
		s->op = s->op == FZ_SEND ? FZ_SENDMSG : FZ_RECVMSG;
		break;
	case FZ_SEND_ZC:
		s->fd = NETSEL(s, zc_fds, p[0]);
		net_buf(s, p[1], PICK(send_lens, p[2]));
		s->op_flags = PICK(send_flags, p[3]);
		s->mode = PICK(zc_flags, p[4]);
		/* a listener never turns writable: POLL_FIRST waits for ever, on both engines */
		if (s->fd == FZ_FD_TL)
			s->mode &= ~IORING_RECVSEND_POLL_FIRST;
		break;
	case FZ_CONNECT:
		s->fd = NETSEL(s, connect_fds, p[0]);
		s->mode = p[1] % FZ_NR_CONN;
		break;
	case FZ_SPLICE:
		s->fd2 = PICK(splice_in, p[0]);
		s->fd = NETSEL(s, splice_out, p[1]);
		s->off = PICK(splice_offs, p[2]);
		s->target = PICK(splice_offs, p[2] >> 4);
		s->len = PICK(splice_lens, p[3]);
		s->op_flags = PICK(splice_flags, p[4]);
		/* a fixed input is a slot: 0 and 1 hold f0 and f1 */
		if (s->op_flags & SPLICE_F_FD_IN_FIXED)
			s->fd2 = p[0] % 2;
		break;
	case FZ_EPOLL_WAIT:
		s->flags &= ~IOSQE_FIXED_FILE;
		s->fd = PICK(ewait_fds, p[0]);
		s->buf = p[1] % 7;
		s->boff = 0;
		s->len = PICK(ewait_max, p[2]);
		break;
	case FZ_MSG_RING:
		s->flags &= ~IOSQE_FIXED_FILE;
		s->fd = PICK(ring_fds, p[0]);
		s->off = PICK(ring_cmds, p[1]);
		s->op_flags = PICK(ring_flags, p[2]);
		s->len = PICK(ring_lens, p[3]);
		s->target = PICK(ring_datas, p[4]);
		s->slot = p[4] >> 4;	/* SEND_FD: source and target slots */
		break;
	case FZ_FUTEX_WAIT:
	case FZ_FUTEX_WAKE:
		s->off = s->op == FZ_FUTEX_WAIT ? PICK(futex_vals, p[0]) :
						  PICK(wake_nrs, p[0]);
		s->target = PICK(futex_masks, p[1]);
		s->op_flags = PICK(futex2_flags, p[2]);
		s->mode = p[3] % 8 == 7;	/* a misaligned word */
		break;
	case FZ_FUTEX_WAITV:
		s->nr = PICK(waitv_nrs, p[0]);
		s->off = PICK(futex_vals, p[1]);
		s->op_flags = PICK(futex2_flags, p[2]);
		s->mode = p[3] % 8 == 7;
		break;
	case FZ_WAITID:
		s->mode = p[0] % FZ_NR_WID;
		s->op_flags = PICK(wid_options, p[1]);
		/* P_ALL would wait for any child the process may have */
		if (s->mode == FZ_WID_ALL)
			s->op_flags |= WNOHANG;
		s->buf = p[2] % 7;
		s->boff = ((p[2] >> 3) % 16) * 64;
		break;
	default:
		break;
	}
}

/* op byte 0xfb: a bundle, as SEND or RECV (p[4] bit 2, unused by them) */
static void decode_bundle(struct fz_sqe *s, const uint8_t *p)
{
	s->op = (p[4] & 4) ? FZ_SEND : FZ_RECV;
	decode_sendrecv(s, p);
	s->flags |= IOSQE_BUFFER_SELECT;
	s->mode |= FZ_RECVSEND_BUNDLE;
	if (s->op == FZ_RECV)
		s->op_flags &= ~MSG_WAITALL;
}

void fz_net_decode(struct fz_sqe *s, const uint8_t *p)
{
	if (s->op == FZ_BUNDLE) {
		decode_bundle(s, p);
		return;
	}
	if (s->op >= FZ_SENDMSG) {
		decode_more(s, p);
		return;
	}
	switch (s->op) {
	case FZ_SEND:
	case FZ_RECV:
		decode_sendrecv(s, p);
		break;
	case FZ_POLL_ADD:
		s->flags &= ~IOSQE_FIXED_FILE;
		s->fd = PICK(poll_fds, p[0]);
		s->op_flags = PICK(poll_events, p[1]);
		if (s->fd != FZ_FD_SC && s->fd != FZ_FD_EV && s->fd != FZ_FD_F0)
			s->op_flags |= POLLOUT;
		s->mode = PICK(poll_flags, p[2]);
		break;
	case FZ_SHUTDOWN:
		s->fd = NETSEL(s, net_fds, p[0]);
		s->mode = p[1] % 4;
		break;
	case FZ_SOCKET:
		s->op_flags = PICK(domains, p[0]);
		s->mode = PICK(types, p[1]);
		s->off = PICK(protocols, p[2]);
		s->slot = p[3] < 0xa0 ? -1 : (p[3] % 10 == 9 ? -2 : p[3] % 10);
		if (s->slot != -1 && (s->mode & 0xf) != SOCK_STREAM &&
		    (s->mode & 0xf) != SOCK_SEQPACKET)
			s->mode = SOCK_STREAM;
		break;
	case FZ_PROVIDE_BUFFERS:
		s->boff = FZ_PBUF_BASE + PICK(pbuf_offs, p[0]);
		s->len = PICK(pbuf_lens, p[1]);
		s->nr = PICK(pbuf_nrs, p[2]);
		s->count = PICK(groups, p[3]);
		s->target = PICK(pbuf_bids, p[4]);
		break;
	case FZ_REMOVE_BUFFERS:
		s->nr = PICK(remove_nrs, p[0]);
		s->count = PICK(groups, p[1]);
		break;
	case FZ_FTRUNCATE:
		s->fd = NETSEL(s, file_fds, p[0]);
		s->off = PICK(trunc_lens, p[1]);
		break;
	case FZ_FSETXATTR:
	case FZ_FGETXATTR:
		s->fd = NETSEL(s, file_fds, p[0]);
		s->name = p[1] % (sizeof(xattr_names) / sizeof(xattr_names[0]));
		if (s->op == FZ_FSETXATTR) {
			net_buf(s, p[2], PICK(setx_lens, p[3]));
			/* E2BIG before any copy: the length as it is */
			s->len = PICK(setx_lens, p[3]);
			s->op_flags = PICK(setx_flags, p[4]);
		} else {
			net_buf(s, p[2], PICK(getx_lens, p[3]));
			s->op_flags = PICK(getx_flags, p[4]);
		}
		break;
	case FZ_EPOLL_CTL:
		s->flags &= ~IOSQE_FIXED_FILE;
		s->fd = PICK(epoll_fds, p[0]);
		s->mode = PICK(epoll_ops, p[1]);
		s->fd2 = PICK(epoll_targets, p[2]);
		s->op_flags = PICK(epoll_events, p[3]);
		break;
	case FZ_URING_CMD:
		s->fd = NETSEL(s, net_fds, p[0]);
		s->op_flags = PICK(uring_cmds, p[1]);
		/* a UDP send's bytes stay queued until loopback delivers */
		if (s->op_flags == FZ_SIOCOUTQ && !(s->flags & IOSQE_FIXED_FILE) &&
		    (s->fd == FZ_FD_UA || s->fd == FZ_FD_UB))
			s->op_flags = FZ_SIOCINQ;
		break;
	case FZ_ACCEPT:
		/* DONTWAIT: nothing else ever connects; never multishot */
		s->fd = NETSEL(s, accept_fds, p[0]);
		s->mode = PICK(accept_iou, p[1]);
		s->op_flags = PICK(accept_flags, p[2]);
		s->slot = p[3] < 0xa0 ? -1 : (p[3] % 10 == 9 ? -2 : p[3] % 10);
		break;
	case FZ_LISTEN:
		s->fd = NETSEL(s, listen_fds, p[0]);
		s->len = PICK(backlogs, p[1]);
		break;
	case FZ_BIND:
		s->fd = NETSEL(s, listen_fds, p[0] + 1);
		s->len = PICK(bind_lens, p[1]);
		break;
	case FZ_PIPE:
		s->op_flags = PICK(pipe_flags, p[0]);
		break;
	default:
		break;
	}
}

/* pokes: only fields the op does not read (a wrong one could wait) */
int fz_net_poke_ok(const struct fz_sqe *s, int field)
{
	/* the new ops: no poke that could make a wait or a multishot */
	if (s->op >= FZ_SENDMSG)
		return field == FZ_POKE_PERSONALITY ||
		       (field == FZ_POKE_IOPRIO && s->op != FZ_SENDMSG &&
			s->op != FZ_RECVMSG && s->op != FZ_SEND_ZC);
	switch (field) {
	case FZ_POKE_PERSONALITY:
		return 1;
	case FZ_POKE_IOPRIO:
		/*
		 * SEND/RECV: recvsend flags, ACCEPT: its own (multishot would
		 * never end)
		 */
		return s->op != FZ_SEND && s->op != FZ_RECV && s->op != FZ_ACCEPT;
	case FZ_POKE_BUF_INDEX:
		/* a group or a fixed buffer for these */
		return s->op != FZ_SEND && s->op != FZ_RECV &&
			s->op != FZ_PROVIDE_BUFFERS &&
			s->op != FZ_REMOVE_BUFFERS;
	case FZ_POKE_FILE_INDEX:
		/* a direct pipe's read end could make a fixed READ wait */
		return s->op != FZ_SOCKET && s->op != FZ_ACCEPT &&
			s->op != FZ_PIPE;
	default:
		return 0;
	}
}

/* how many pointers a bad address may replace (FZ_BF_BUF, _SECOND) */
int fz_net_pointers(const struct fz_sqe *s)
{
	switch (s->op) {
	case FZ_SEND:
	case FZ_PROVIDE_BUFFERS:
	case FZ_EPOLL_CTL:
	case FZ_BIND:
	case FZ_PIPE:
	case FZ_SENDMSG: case FZ_RECVMSG: case FZ_SEND_ZC: case FZ_CONNECT:
	case FZ_EPOLL_WAIT: case FZ_FUTEX_WAIT: case FZ_FUTEX_WAKE:
	case FZ_FUTEX_WAITV: case FZ_WAITID:
		return 1;
	case FZ_RECV:
		return s->flags & IOSQE_BUFFER_SELECT ? 0 : 1;
	case FZ_FSETXATTR:
	case FZ_FGETXATTR:
		return 2;
	default:
		return 0;
	}
}

/* does the kernel settle it during the submit, in order? */
int fz_net_inline(const struct fz_sqe *s)
{
	switch (s->op) {
	case FZ_SEND:
	case FZ_RECV:
		return !(s->mode & IORING_RECVSEND_POLL_FIRST);
	case FZ_POLL_ADD: case FZ_SOCKET: case FZ_PROVIDE_BUFFERS:
	case FZ_REMOVE_BUFFERS: case FZ_EPOLL_CTL: case FZ_URING_CMD:
	case FZ_LISTEN: case FZ_BIND: case FZ_PIPE:
		return 1;
	case FZ_ACCEPT:
		return !(s->mode & FZ_ACCEPT_POLL_FIRST);
	case FZ_SENDMSG: case FZ_RECVMSG: case FZ_SEND_ZC:
		return !(s->mode & IORING_RECVSEND_POLL_FIRST);
	case FZ_EPOLL_WAIT: case FZ_MSG_RING: case FZ_FUTEX_WAIT:
	case FZ_FUTEX_WAKE: case FZ_FUTEX_WAITV:
		return 1;
	default:
		return 0;	/* CONNECT polls, SPLICE and WAITID: io-wq */
	}
}

int fz_net_returns_fd(const struct fz_sqe *s)
{
	return (s->op == FZ_SOCKET || s->op == FZ_ACCEPT) && s->slot == -1;
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz: net: %s: %s\n", what, strerror(errno));
	abort();
}

static void fill(int fd, size_t len, unsigned seed)
{
	char buf[512];
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)('A' + (i * 5 + seed) % 26);
	if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		die("fill");
}

static int udp_socket(struct sockaddr_in *sin)
{
	socklen_t sl = sizeof(*sin);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sin, sizeof(*sin)) ||
	    getsockname(fd, (struct sockaddr *)sin, &sl))
		die("udp socket");
	return fd;
}

static void udp_connect(int fd, const struct sockaddr_in *to)
{
	if (connect(fd, (const struct sockaddr *)to, sizeof(*to)))
		die("udp connect");
}

static int uc = -1;

/*
 * tl listening on loopback with one connection queued whose client tc
 * shut down its sending side (an accepted socket reads EOF, never waits),
 * tu a TCP socket neither bound nor connected
 */
static void tcp_open(int *fd)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct pollfd pfd;

	fd[FZ_FD_TL] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	fd[FZ_FD_TC] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	fd[FZ_FD_TU] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd[FZ_FD_TL] < 0 || fd[FZ_FD_TC] < 0 || fd[FZ_FD_TU] < 0)
		die("tcp socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd[FZ_FD_TL], (struct sockaddr *)&sin, sizeof(sin)) ||
	    getsockname(fd[FZ_FD_TL], (struct sockaddr *)&sin, &sl) ||
	    listen(fd[FZ_FD_TL], 8) ||
	    connect(fd[FZ_FD_TC], (struct sockaddr *)&sin, sizeof(sin)) ||
	    shutdown(fd[FZ_FD_TC], SHUT_WR))
		die("tcp listener");
	pfd.fd = fd[FZ_FD_TL];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1)
		die("tcp connection not queued");
}

void fz_net_open(int *fd)
{
	struct sockaddr_in a, b, c;
	struct epoll_event ev;
	struct pollfd pfd;
	int sv[2];

	memset(&ev, 0, sizeof(ev));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair");
	fd[FZ_FD_SA] = sv[0];
	fd[FZ_FD_SB] = sv[1];
	fill(sv[1], 300, 1);
	fill(sv[0], 100, 2);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair");
	fd[FZ_FD_SC] = sv[0];
	fd[FZ_FD_SD] = sv[1];
	fill(sv[1], 50, 3);
	if (shutdown(sv[1], SHUT_WR))
		die("shutdown");
	fd[FZ_FD_UA] = udp_socket(&a);
	fd[FZ_FD_UB] = udp_socket(&b);
	uc = udp_socket(&c);
	udp_connect(fd[FZ_FD_UA], &c);
	udp_connect(fd[FZ_FD_UB], &c);
	udp_connect(uc, &a);
	fill(uc, 40, 4);
	/* loopback may deliver from softirq later: wait until it is there */
	pfd.fd = fd[FZ_FD_UA];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1)
		die("udp datagram not delivered");
	tcp_open(fd);
	fd[FZ_FD_EV] = eventfd(1, EFD_CLOEXEC);
	fd[FZ_FD_EP] = epoll_create1(EPOLL_CLOEXEC);
	fd[FZ_FD_EW] = epoll_create1(EPOLL_CLOEXEC);
	if (fd[FZ_FD_EV] < 0 || fd[FZ_FD_EP] < 0 || fd[FZ_FD_EW] < 0)
		die("eventfd/epoll");
	ev.events = EPOLLIN;
	ev.data.u64 = FZ_EW_DATA;
	if (epoll_ctl(fd[FZ_FD_EW], EPOLL_CTL_ADD, fd[FZ_FD_EV], &ev))
		die("epoll_ctl ew");
	fd[FZ_FD_RING] = -1;	/* fuzz_run.c: the ring's, once it exists */
}

void fz_net_close(int *fd)
{
	int i;

	for (i = FZ_FD_SA; i < FZ_NR_ALL_FDS; i++)
		if (i != FZ_FD_RING)	/* the ring's exit closes it */
			close(fd[i]);
	close(uc);
	uc = -1;
}

/* SQE i's object good (size bytes), or its bad form */
static void *obj(const struct fz_sqe *s, unsigned i, int field, void *good,
		 size_t size)
{
	if (!s->bad || s->bad_field != field)
		return good;
	return fz_bad_ptr(s->bad, i, good, size);
}

static int fd_of(const struct fz_sqe *s, const int *fd, int k)
{
	return s->flags & IOSQE_FIXED_FILE ? k : fd[k];
}

/* CONNECT's address of SQE i, and its length */
static void *connect_addr(const struct fz_sqe *s, unsigned i, socklen_t *len)
{
	static struct sockaddr_storage ss[FZ_MAX_SQES];
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss[i];
	struct sockaddr_un *sun = (struct sockaddr_un *)&ss[i];

	memset(&ss[i], 0, sizeof(ss[i]));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons(1);	/* nothing listens: refused */
	*len = sizeof(*sin);
	switch (s->mode) {
	case FZ_CONN_UNIX_NONE:
		sun->sun_family = AF_UNIX;
		snprintf(sun->sun_path, sizeof(sun->sun_path),
			 "/nonexistent-anyring-fuzz/s");
		*len = sizeof(*sun);
		break;
	case FZ_CONN_UNSPEC:
		sin->sin_family = AF_UNSPEC;
		break;
	case FZ_CONN_SHORT:
		*len = 4;
		break;
	case FZ_CONN_LONG:
		*len = sizeof(ss[i]) + 1;
		break;
	default:
		break;
	}
	return &ss[i];
}

/* the ops of op bytes 0xf0..0xfa */
static void prep_more(const struct fz_sqe *s, unsigned i, const int *fd,
		      void *buf, struct io_uring_sqe *sqe)
{
	static struct msghdr msg[FZ_MAX_SQES];
	static struct iovec iov[FZ_MAX_SQES];
	static uint32_t words[FZ_MAX_SQES][4] __attribute__((aligned(16)));
	static struct fz_waitv {
		uint64_t val, uaddr;
		uint32_t flags, reserved;
	} wv[FZ_MAX_SQES][2];
	/* futex words: 0, never a value a wait gives, so none waits */
	char *word = (char *)words[i] + (s->mode ? 1 : 0);
	socklen_t alen;
	void *addr;
	unsigned k;

	memset(words[i], 0, sizeof(words[i]));
	switch (s->op) {
	case FZ_SENDMSG:
	case FZ_RECVMSG:
		memset(&msg[i], 0, sizeof(msg[i]));
		iov[i].iov_base = buf;
		iov[i].iov_len = s->len;
		msg[i].msg_iov = &iov[i];
		msg[i].msg_iovlen = 1;
		addr = obj(s, i, FZ_BF_BUF, &msg[i], sizeof(msg[i]));
		if (s->op == FZ_SENDMSG)
			io_uring_prep_sendmsg(sqe, fd_of(s, fd, s->fd), addr,
					      s->op_flags);
		else
			io_uring_prep_recvmsg(sqe, fd_of(s, fd, s->fd), addr,
					      s->op_flags);
		sqe->ioprio = s->mode;
		break;
	case FZ_SEND_ZC:
		io_uring_prep_send_zc(sqe, fd_of(s, fd, s->fd),
				      obj(s, i, FZ_BF_BUF, buf, s->len), s->len,
				      s->op_flags, s->mode);
		break;
	case FZ_CONNECT:
		addr = connect_addr(s, i, &alen);
		io_uring_prep_connect(sqe, fd_of(s, fd, s->fd),
				      obj(s, i, FZ_BF_BUF, addr, sizeof(struct sockaddr_in)),
				      alen);
		break;
	case FZ_SPLICE:
		io_uring_prep_splice(sqe,
			s->op_flags & SPLICE_F_FD_IN_FIXED ? s->fd2 : fd[s->fd2],
			(int64_t)s->target, fd_of(s, fd, s->fd), (int64_t)s->off,
			s->len, s->op_flags);
		break;
	case FZ_EPOLL_WAIT:
		io_uring_prep_rw(FZ_OP_EPOLL_WAIT, sqe, fd[s->fd],
				 obj(s, i, FZ_BF_BUF, buf,
				     sizeof(struct epoll_event)),
				 s->len, 0);
		break;
	case FZ_MSG_RING:
		io_uring_prep_msg_ring(sqe, fd[s->fd], s->len, s->target,
				       s->op_flags);
		sqe->addr = s->off;
		if (s->off == 1) {	/* SEND_FD: source slot, target slot */
			sqe->addr3 = s->slot % 4;
			sqe->file_index = s->slot / 4;
		} else if (s->op_flags & FZ_MSG_RING_FLAGS_PASS) {
			sqe->file_index = 0x10000;	/* the CQE's flags */
		}
		break;
	case FZ_FUTEX_WAIT:
	case FZ_FUTEX_WAKE:
		io_uring_prep_rw(s->op == FZ_FUTEX_WAIT ? FZ_OP_FUTEX_WAIT :
				 FZ_OP_FUTEX_WAKE, sqe, (int)s->op_flags,
				 obj(s, i, FZ_BF_BUF, word, 4), 0, 0);
		sqe->addr2 = s->off;
		sqe->addr3 = s->target;
		break;
	case FZ_FUTEX_WAITV:
		for (k = 0; k < 2; k++) {
			wv[i][k].val = s->off;
			wv[i][k].uaddr = (uintptr_t)(word + 4 * k);
			wv[i][k].flags = s->op_flags;
			wv[i][k].reserved = 0;
		}
		io_uring_prep_rw(FZ_OP_FUTEX_WAITV, sqe, 0,
				 obj(s, i, FZ_BF_BUF, wv[i],
				     sizeof(wv[i][0]) * (s->nr > 2 ? 1 : s->nr ? s->nr : 1)),
				 s->nr, 0);
		break;
	case FZ_WAITID: {
		int which = P_ALL, id = 0;

		if (s->mode == FZ_WID_PID1) {
			which = P_PID;
			id = 1;
		} else if (s->mode == FZ_WID_PIDFD_FILE) {
			which = P_PIDFD;
			id = fd[FZ_FD_F0];
		} else if (s->mode == FZ_WID_BAD) {
			which = 99;
		}
		io_uring_prep_rw(FZ_OP_WAITID, sqe, id, NULL, (unsigned)which, 0);
		sqe->file_index = s->op_flags;
		sqe->addr2 = (uintptr_t)obj(s, i, FZ_BF_BUF, buf,
					    sizeof(siginfo_t));
		break;
	}
	default:
		io_uring_prep_nop(sqe);
		break;
	}
}

void fz_net_prep(const struct fz_sqe *s, unsigned i, const int *fd,
		 unsigned char *arena, struct io_uring_sqe *sqe)
{
	static struct epoll_event ev[FZ_MAX_SQES];
	static char names[FZ_MAX_SQES][16];
	static struct sockaddr_in sin[FZ_MAX_SQES];
	static int pfds[FZ_MAX_SQES][2];
	void *buf = arena + s->buf * FZ_BUFSZ + s->boff;

	if (s->op >= FZ_SENDMSG) {
		prep_more(s, i, fd, buf, sqe);
		return;
	}
	switch (s->op) {
	case FZ_SEND:
		io_uring_prep_send(sqe, fd_of(s, fd, s->fd),
				   obj(s, i, FZ_BF_BUF, buf, s->len), s->len,
				   s->op_flags);
		sqe->ioprio = s->mode;
		sqe->buf_group = s->count;
		break;
	case FZ_RECV:
		if (s->flags & IOSQE_BUFFER_SELECT)
			buf = NULL;
		io_uring_prep_recv(sqe, fd_of(s, fd, s->fd),
				   obj(s, i, FZ_BF_BUF, buf, s->len), s->len,
				   s->op_flags);
		sqe->ioprio = s->mode;
		sqe->buf_group = s->count;
		break;
	case FZ_POLL_ADD:
		io_uring_prep_poll_add(sqe, fd[s->fd], s->op_flags);
		sqe->len = s->mode;
		break;
	case FZ_SHUTDOWN:
		io_uring_prep_shutdown(sqe, fd_of(s, fd, s->fd), s->mode);
		break;
	case FZ_SOCKET:
		if (s->slot == -1)
			io_uring_prep_socket(sqe, s->op_flags, s->mode, s->off, 0);
		else if (s->slot == -2)
			io_uring_prep_socket_direct_alloc(sqe, s->op_flags,
							  s->mode, s->off, 0);
		else
			io_uring_prep_socket_direct(sqe, s->op_flags, s->mode,
						    s->off, s->slot, 0);
		break;
	case FZ_PROVIDE_BUFFERS:
		io_uring_prep_provide_buffers(sqe,
			obj(s, i, FZ_BF_BUF, arena + s->boff,
			    (size_t)s->len * (s->nr > 8 ? 1 : s->nr)),
			s->len, s->nr, s->count, s->target);
		break;
	case FZ_REMOVE_BUFFERS:
		io_uring_prep_remove_buffers(sqe, s->nr, s->count);
		break;
	case FZ_FTRUNCATE:
		io_uring_prep_rw(FZ_OP_FTRUNCATE, sqe, fd_of(s, fd, s->fd), NULL,
				 0, s->off);
		break;
	case FZ_FSETXATTR:
	case FZ_FGETXATTR:
		snprintf(names[i], sizeof(names[i]), "%s", xattr_names[s->name]);
		if (s->op == FZ_FSETXATTR)
			io_uring_prep_fsetxattr(sqe, fd_of(s, fd, s->fd),
				obj(s, i, FZ_BF_BUF, names[i], strlen(names[i]) + 1),
				obj(s, i, FZ_BF_SECOND, buf,
				    s->len > FZ_BUFSZ ? FZ_BUFSZ : s->len),
				s->op_flags, s->len);
		else
			io_uring_prep_fgetxattr(sqe, fd_of(s, fd, s->fd),
				obj(s, i, FZ_BF_BUF, names[i], strlen(names[i]) + 1),
				obj(s, i, FZ_BF_SECOND, buf, s->len), s->len);
		sqe->xattr_flags = s->op_flags;
		break;
	case FZ_EPOLL_CTL:
		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].events = s->op_flags;
		ev[i].data.u64 = s->fd2;
		io_uring_prep_epoll_ctl(sqe, fd[s->fd], fd[s->fd2], s->mode,
			obj(s, i, FZ_BF_BUF, &ev[i], sizeof(ev[i])));
		break;
	case FZ_ACCEPT:
		if (s->slot == -1)
			io_uring_prep_accept(sqe, fd_of(s, fd, s->fd), NULL, NULL,
					     s->op_flags);
		else if (s->slot == -2) {
			/* liburing 2.3 would encode ALLOC + 1 = 0: not direct */
			io_uring_prep_accept(sqe, fd_of(s, fd, s->fd), NULL, NULL,
					     s->op_flags);
			sqe->file_index = IORING_FILE_INDEX_ALLOC;
		}
		else
			io_uring_prep_accept_direct(sqe, fd_of(s, fd, s->fd),
				NULL, NULL, s->op_flags, s->slot);
		sqe->ioprio = s->mode;
		break;
	case FZ_LISTEN:
		io_uring_prep_rw(FZ_OP_LISTEN, sqe, fd_of(s, fd, s->fd), NULL,
				 s->len, 0);
		break;
	case FZ_BIND:
		memset(&sin[i], 0, sizeof(sin[i]));
		sin[i].sin_family = AF_INET;
		sin[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		io_uring_prep_rw(FZ_OP_BIND, sqe, fd_of(s, fd, s->fd),
				 obj(s, i, FZ_BF_BUF, &sin[i], sizeof(sin[i])),
				 0, s->len);
		break;
	case FZ_PIPE:
		io_uring_prep_rw(FZ_OP_PIPE, sqe, 0,
				 obj(s, i, FZ_BF_BUF, pfds[i], sizeof(pfds[i])),
				 0, 0);
		sqe->rw_flags = s->op_flags;
		break;
	case FZ_URING_CMD:
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd_of(s, fd, s->fd),
				 NULL, 0, 0);
		sqe->cmd_op = s->op_flags;
		break;
	default:
		io_uring_prep_nop(sqe);
		break;
	}
}

/* SIOCINQ and the first bytes (a peek) of one socket */
static uint64_t hash_queue(int fd, uint64_t h)
{
	static char buf[65536];
	ssize_t n;
	int inq = -1;

	if (ioctl(fd, SIOCINQ, &inq))
		inq = -errno;
	h = fz_hash(&inq, sizeof(inq), h);
	n = recv(fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		n = -errno;
	h = fz_hash(&n, sizeof(n), h);
	return n > 0 ? fz_hash(buf, n, h) : h;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct epoll_event *x = a, *y = b;

	if (x->data.u64 != y->data.u64)
		return x->data.u64 < y->data.u64 ? -1 : 1;
	return (x->events > y->events) - (x->events < y->events);
}

uint64_t fz_net_hash(const int *fd)
{
	static const int q[] = { FZ_FD_SA, FZ_FD_SB, FZ_FD_SC, FZ_FD_SD, FZ_FD_UA };
	struct epoll_event ev[16];
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned k;
	int n;

	for (k = 0; k < sizeof(q) / sizeof(q[0]); k++)
		h = hash_queue(fd[q[k]], h);
	memset(ev, 0, sizeof(ev));
	n = epoll_wait(fd[FZ_FD_EP], ev, 16, 0);
	if (n > 0) {
		qsort(ev, n, sizeof(ev[0]), ev_cmp);
		h = fz_hash(ev, n * sizeof(ev[0]), h);
	}
	return fz_hash(&n, sizeof(n), h);
}

static const char *const fd_names[] = {
	"f0", "f1", "f2", "pipe_r", "pipe_w", "dirfd", "-1", "9999(closed)",
	"sa", "sb", "sc", "ua", "ub", "eventfd", "epoll", "tl", "tu", "sd",
	"tc", "ew", "ring",
};

/* the ops of op bytes 0xf0..0xfa */
static void print_more(const struct fz_sqe *s)
{
	switch (s->op) {
	case FZ_SENDMSG: case FZ_RECVMSG: case FZ_SEND_ZC:
		printf(" buf=%d+%u len=%u msg_flags=0x%x ioprio=0x%x", s->buf,
		       s->boff, s->len, s->op_flags, s->mode);
		break;
	case FZ_CONNECT:
		printf(" addr=%s", (const char *const[]){ "127.0.0.1:1",
		       "unix-none", "unspec", "len4", "len-long" }[s->mode]);
		break;
	case FZ_SPLICE:
		printf(" in=%s%s off_in=%lld off_out=%lld len=%u flags=0x%x",
		       s->op_flags & SPLICE_F_FD_IN_FIXED ? "slot" : "",
		       s->op_flags & SPLICE_F_FD_IN_FIXED ? "" : fd_names[s->fd2],
		       (long long)s->target, (long long)s->off, s->len,
		       s->op_flags);
		break;
	case FZ_EPOLL_WAIT:
		printf(" events=buf%d maxevents=%d", s->buf, (int)s->len);
		break;
	case FZ_MSG_RING:
		printf(" cmd=%llu len=%d data=0x%llx flags=0x%x slots=%d",
		       (unsigned long long)s->off, (int)s->len,
		       (unsigned long long)s->target, s->op_flags, s->slot);
		break;
	case FZ_FUTEX_WAIT: case FZ_FUTEX_WAKE:
		printf(" val=0x%llx mask=0x%llx flags=0x%x%s",
		       (unsigned long long)s->off,
		       (unsigned long long)s->target, s->op_flags,
		       s->mode ? " misaligned" : "");
		break;
	case FZ_FUTEX_WAITV:
		printf(" nr=%d val=0x%llx flags=0x%x%s", s->nr,
		       (unsigned long long)s->off, s->op_flags,
		       s->mode ? " misaligned" : "");
		break;
	case FZ_WAITID:
		printf(" which=%s options=0x%x infop=buf%d+%u",
		       (const char *const[]){ "P_ALL", "P_PID 1", "P_PIDFD f0",
		       "99" }[s->mode], s->op_flags, s->buf, s->boff);
		break;
	default:
		break;
	}
}

void fz_net_print(const struct fz_sqe *s)
{
	if (s->op >= FZ_FUTEX_WAIT) {
		print_more(s);
		return;
	}
	if (s->op != FZ_SOCKET && s->op != FZ_PROVIDE_BUFFERS &&
	    s->op != FZ_REMOVE_BUFFERS && s->op != FZ_PIPE) {
		if (s->flags & IOSQE_FIXED_FILE)
			printf(" slot=%d", s->fd);
		else
			printf(" fd=%s", fd_names[s->fd]);
	}
	switch (s->op) {
	case FZ_SEND: case FZ_RECV:
		printf(" buf=%d+%u len=%u msg_flags=0x%x ioprio=0x%x group=%u",
		       s->buf, s->boff, s->len, s->op_flags, s->mode, s->count);
		break;
	case FZ_POLL_ADD:
		printf(" events=0x%x len=0x%x", s->op_flags, s->mode);
		break;
	case FZ_SHUTDOWN:
		printf(" how=%u", s->mode);
		break;
	case FZ_SOCKET:
		printf(" domain=%u type=0x%x protocol=%llu slot=%d", s->op_flags,
		       s->mode, (unsigned long long)s->off, s->slot);
		break;
	case FZ_PROVIDE_BUFFERS:
		printf(" addr=arena+%u len=%u nbufs=%d bgid=%u bid=%llu",
		       s->boff, s->len, s->nr, s->count,
		       (unsigned long long)s->target);
		break;
	case FZ_REMOVE_BUFFERS:
		printf(" nbufs=%d bgid=%u", s->nr, s->count);
		break;
	case FZ_FTRUNCATE:
		printf(" len=%lld", (long long)s->off);
		break;
	case FZ_FSETXATTR: case FZ_FGETXATTR:
		printf(" name=\"%s\" value=%d+%u len=%u flags=0x%x",
		       xattr_names[s->name], s->buf, s->boff, s->len,
		       s->op_flags);
		break;
	case FZ_EPOLL_CTL:
		printf(" op=%u target=%s events=0x%x", s->mode,
		       fd_names[s->fd2], s->op_flags);
		break;
	case FZ_URING_CMD:
		printf(" cmd_op=%u", s->op_flags);
		break;
	case FZ_ACCEPT:
		printf(" ioprio=0x%x flags=0x%x slot=%d", s->mode, s->op_flags,
		       s->slot);
		break;
	case FZ_LISTEN:
		printf(" backlog=%u", s->len);
		break;
	case FZ_BIND:
		printf(" addrlen=%u", s->len);
		break;
	case FZ_PIPE:
		printf(" flags=0x%x", s->op_flags);
		break;
	default:
		print_more(s);
		break;
	}
}
