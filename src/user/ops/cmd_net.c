/* SPDX-License-Identifier: MIT */
/*
 * cmd_net.c - URING_CMD on a socket (the kernel's io_uring/cmd_net.c,
 * io_uring_cmd_sock()), reached from uring_cmd.c's ar_uring_cmd_issue()
 * for a socket file: SIOCINQ, SIOCOUTQ, SOL_SOCKET getsockopt (the result
 * is optlen) and setsockopt, their arguments as prep took them from the
 * SQE (level and optname in addr, optlen in file_index, optval in addr3),
 * and TX_TIMESTAMP. SIOCINQ/SIOCOUTQ on a socket whose protocol has no
 * ioctl (unix) answer -EOPNOTSUPP, as the kernel.
 *
 * TX_TIMESTAMP is multishot: it waits for POLLERR on the socket and posts
 * a 32-byte CQE with IORING_CQE_F_MORE for each transmit timestamp in the
 * socket's error queue, the key in res, the type and the hardware bit in
 * the flags, the time in the CQE's second half; it ends only when
 * cancelled. The queue is read with recvmsg(MSG_ERRQUEUE), which takes
 * its head, where the kernel picks the timestamps out and leaves the rest:
 * docs/semantics.md D75 says what that changes.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include "lib/sysraw.h"
#include "user/complete.h"
#include "user/ops/net.h"
#include "user/ops/uring_cmd.h"
#include "user/types.h"

enum {
	AR_SOCK_OP_SIOCINQ,
	AR_SOCK_OP_SIOCOUTQ,
	AR_SOCK_OP_GETSOCKOPT,
	AR_SOCK_OP_SETSOCKOPT,
	AR_SOCK_OP_TX_TIMESTAMP,
};

/* past liburing 2.3's header: 6.13's TX timestamp CQE */
#define AR_TIMESTAMP_HW_SHIFT	16
#define AR_TIMESTAMP_TYPE_SHIFT	(AR_TIMESTAMP_HW_SHIFT + 1)
#define AR_CQE_F_TSTAMP_HW	(1U << AR_TIMESTAMP_HW_SHIFT)

/* an inet socket (its protocol has an ioctl)? */
static int ar_sock_cmd_check(struct ar_ureq *req, bool *inet)
{
	int domain, ret;

	if (req->ctx->flags & IORING_SETUP_IOPOLL)
		return -EOPNOTSUPP;	/* no ->uring_cmd_iopoll */
	ret = ar_sockopt_int(req->fd, SO_DOMAIN, &domain);
	if (ret)
		return ret == -EBADF ? -EBADF : -EOPNOTSUPP;
	*inet = domain == AF_INET || domain == AF_INET6;
	return 0;
}

/* SIOCINQ/SIOCOUTQ go to sk_prot->ioctl, which inet protocols have, unix not */
static int ar_sock_cmd_ioctl(int fd, bool inet, unsigned long what)
{
	int arg = 0;

	if (!inet)
		return -EOPNOTSUPP;
	if (ioctl(fd, what, &arg))
		return -errno;
	return arg;
}

/*
 * The socket's SO_TIMESTAMPING flags, if what its error queue holds can be
 * a timestamp the kernel's command takes: one without the packet
 * (OPT_TSONLY; the kernel skips those with a payload) that the socket
 * reports (SOFTWARE or RAW_HARDWARE, which skb_has_tx_timestamp() asks
 * for). 0: the command takes nothing, and the queue is left alone.
 */
static unsigned ar_tx_ts_flags(int fd)
{
	int flags;

	if (ar_sockopt_int(fd, SO_TIMESTAMPING, &flags))
		return 0;
	if (!(flags & SOF_TIMESTAMPING_OPT_TSONLY) ||
	    !(flags & (SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RAW_HARDWARE)))
		return 0;
	return (unsigned)flags;
}

/* the error queue's extended error, from the cmsg its family puts it in */
static bool ar_cmsg_is_recverr(const struct cmsghdr *cm)
{
	return (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
	       (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR) ||
	       (cm->cmsg_level == SOL_PACKET &&
		cm->cmsg_type == PACKET_TX_TIMESTAMP);
}

/*
 * One entry of the error queue as the kernel's io_process_timestamp_skb()
 * reads it: the key, the type, and the software time if the socket
 * reports it, else the raw hardware one (skb_get_tx_timestamp()). False
 * for an entry that is no payload-less transmit timestamp.
 */
static bool ar_tx_ts_parse(struct msghdr *msg, unsigned tsflags, int *key,
			   unsigned *cflags, struct ar_cqe_big *big)
{
	const struct sock_extended_err *ee = NULL;
	const struct scm_timestamping *tss = NULL;
	struct cmsghdr *cm;

	if (msg->msg_flags & MSG_TRUNC)
		return false;	/* it carries the packet: the kernel skips it */
	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPING &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(*tss)))
			tss = (const void *)CMSG_DATA(cm);
		else if (ar_cmsg_is_recverr(cm) &&
			 cm->cmsg_len >= CMSG_LEN(sizeof(*ee)))
			ee = (const void *)CMSG_DATA(cm);
	}
	if (!ee || !tss || ee->ee_errno != ENOMSG ||
	    ee->ee_origin != SO_EE_ORIGIN_TIMESTAMPING)
		return false;
	*key = (int)ee->ee_data;
	*cflags = IORING_CQE_F_MORE | ee->ee_info << AR_TIMESTAMP_TYPE_SHIFT;
	if ((tsflags & SOF_TIMESTAMPING_SOFTWARE) &&
	    (tss->ts[0].tv_sec || tss->ts[0].tv_nsec)) {
		big->extra1 = (__u64)tss->ts[0].tv_sec;
		big->extra2 = (__u64)tss->ts[0].tv_nsec;
		return true;
	}
	if ((tsflags & SOF_TIMESTAMPING_RAW_HARDWARE) &&
	    (tss->ts[2].tv_sec || tss->ts[2].tv_nsec)) {
		big->extra1 = (__u64)tss->ts[2].tv_sec;
		big->extra2 = (__u64)tss->ts[2].tv_nsec;
		*cflags |= AR_CQE_F_TSTAMP_HW;
		return true;
	}
	return false;
}

/*
 * TX_TIMESTAMP (the kernel's io_uring_cmd_timestamp()): post what the
 * error queue holds, then wait for POLLERR again (AR_REQ_F_POLL_ERR,
 * which the core arms). Each entry is taken off the queue before its CQE
 * is posted, so one the CQ has no room for goes to the overflow backlog,
 * where the kernel would leave it in the queue for the next edge.
 */
static int ar_sock_cmd_tx_timestamp(struct ar_ureq *req)
{
	/* room for OPT_CMSG's pktinfo and OPT_STATS too; a cut is not fatal */
	union {
		char buf[1024];
		struct cmsghdr align;
	} control;
	unsigned tsflags, cflags;
	struct ar_cqe_big big;
	int key;

	if (!(req->ctx->flags & (IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED)))
		return -EINVAL;
	req->flags |= AR_REQ_F_POLL_ERR;
	tsflags = ar_tx_ts_flags(req->fd);
	while (tsflags) {
		struct msghdr msg = {
			.msg_control = control.buf,
			.msg_controllen = sizeof(control.buf),
		};

		if (ar_raw_syscall6(SYS_recvmsg, req->fd, (long)&msg,
				    MSG_ERRQUEUE | MSG_DONTWAIT, 0, 0, 0) < 0)
			break;
		if (ar_tx_ts_parse(&msg, tsflags, &key, &cflags, &big))
			ar_req_post_more_big(req, key, cflags, &big);
	}
	return AR_ISSUE_AGAIN;
}

int ar_uring_cmd_sock(struct ar_ureq *req, const struct ar_uring_cmd *uc,
		      unsigned issue_flags)
{
	__u32 level = (__u32)uc->addr, optname = (__u32)(uc->addr >> 32);
	socklen_t optlen = uc->file_index;
	__u64 optval = uc->addr3;
	bool inet = false;
	int ret = ar_sock_cmd_check(req, &inet);

	(void)issue_flags;
	if (ret)
		return ret;
	switch (uc->cmd_op) {
	case AR_SOCK_OP_SIOCINQ:
		return ar_sock_cmd_ioctl(req->fd, inet, SIOCINQ);
	case AR_SOCK_OP_SIOCOUTQ:
		return ar_sock_cmd_ioctl(req->fd, inet, SIOCOUTQ);
	case AR_SOCK_OP_GETSOCKOPT:
		if (level != SOL_SOCKET)
			return -EOPNOTSUPP;
		if ((int)optlen < 0)
			return -EINVAL;
		/* optval is the application's: getsockopt(2) answers -EFAULT */
		ret = (int)ar_raw_syscall6(SYS_getsockopt, req->fd, SOL_SOCKET,
					   (long)optname, (long)optval,
					   (long)&optlen, 0);
		return ret ? ret : (int)optlen;
	case AR_SOCK_OP_SETSOCKOPT:
		return (int)ar_raw_syscall6(SYS_setsockopt, req->fd, (long)level,
					    (long)optname, (long)optval,
					    (long)optlen, 0);
	case AR_SOCK_OP_TX_TIMESTAMP:
		return ar_sock_cmd_tx_timestamp(req);
	default:
		return -EOPNOTSUPP;
	}
}
