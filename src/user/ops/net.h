/* SPDX-License-Identifier: MIT */
/*
 * net.h - the socket opcodes (net.c): SOCKET, BIND, LISTEN, SHUTDOWN,
 * CONNECT, ACCEPT, SEND, RECV, SENDMSG, RECVMSG, SEND_ZC, SENDMSG_ZC.
 */
#ifndef ANYRING_USER_OPS_NET_H
#define ANYRING_USER_OPS_NET_H

#include <errno.h>
#include <sys/socket.h>
#include "user/types.h"

/* an int SOL_SOCKET option of fd into *v: 0 or -errno (net.c, cmd_net.c) */
static inline int ar_sockopt_int(int fd, int opt, int *v)
{
	socklen_t len = sizeof(*v);

	return getsockopt(fd, SOL_SOCKET, opt, v, &len) ? -errno : 0;
}

int ar_socket_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_socket_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_bind_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_bind_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_listen_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_listen_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_shutdown_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_shutdown_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_connect_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_connect_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_accept_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_accept_issue(struct ar_ureq *req, unsigned issue_flags);

int ar_send_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_recv_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_send_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_sendrecv_issue(struct ar_ureq *req, unsigned issue_flags);
/* SEND and RECV's cleanup: a bundle's iovec array back to the ring's cache */
void ar_sr_cleanup(struct ar_ureq *req);
int ar_sendmsg_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_recvmsg_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_sendmsg_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_msg_issue(struct ar_ureq *req, unsigned issue_flags);
/* URING_CMD's socket commands: ar_uring_cmd_sock(), declared in uring_cmd.h */

#endif
