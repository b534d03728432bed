/* SPDX-License-Identifier: MIT */
/*
 * misc.h - the file and pipe opcodes of xattr.c (FSETXATTR, SETXATTR,
 * FGETXATTR, GETXATTR), splice.c (SPLICE, TEE) and misc.c (FTRUNCATE,
 * EPOLL_CTL, EPOLL_WAIT, FIXED_FD_INSTALL, PIPE, URING_CMD, RECV_ZC).
 */
#ifndef ANYRING_USER_OPS_MISC_H
#define ANYRING_USER_OPS_MISC_H

#include "user/types.h"

int ar_fsetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_setxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_fgetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_getxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_xattr_issue(struct ar_ureq *req, unsigned issue_flags);
void ar_xattr_cleanup(struct ar_ureq *req);

int ar_splice_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_tee_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_splice_issue(struct ar_ureq *req, unsigned issue_flags);

int ar_ftruncate_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_ftruncate_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_epoll_ctl_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_epoll_ctl_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_epoll_wait_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_epoll_wait_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_fixed_fd_install_prep(struct ar_ureq *req,
			     const struct io_uring_sqe *sqe);
int ar_fixed_fd_install_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_pipe_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_pipe_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_uring_cmd_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_uring_cmd_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_recv_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);

/* URING_CMD: the SQE's fields its commands read, taken at prep */
struct ar_uring_cmd {
	__u32 cmd_op;
	__u32 file_index;	/* sockopt: optlen */
	__u64 addr;		/* sockopt: level, and optname above bit 32 */
	__u64 addr3;		/* sockopt: optval */
};

/*
 * URING_CMD on a socket (the kernel's io_uring_cmd_sock(): SIOCINQ,
 * SIOCOUTQ, GETSOCKOPT, SETSOCKOPT): the hook ops/net.c defines.
 */
int ar_uring_cmd_sock(struct ar_ureq *req, const struct ar_uring_cmd *uc,
		      unsigned issue_flags);

#endif
