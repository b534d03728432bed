/* SPDX-License-Identifier: MIT */
/*
 * uring_cmd.h - URING_CMD (uring_cmd.c), and the socket commands
 * cmd_net.c serves for it.
 */
#ifndef ANYRING_USER_OPS_URING_CMD_H
#define ANYRING_USER_OPS_URING_CMD_H

#include "user/types.h"

int ar_uring_cmd_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_uring_cmd_issue(struct ar_ureq *req, unsigned issue_flags);

/* URING_CMD: the SQE's fields its commands read, taken at prep */
struct ar_uring_cmd {
	__u32 cmd_op;
	__u32 file_index;	/* sockopt: optlen */
	__u64 addr;		/* sockopt: level, and optname above bit 32 */
	__u64 addr3;		/* sockopt: optval */
};

/*
 * URING_CMD on a socket (the kernel's io_uring_cmd_sock(): SIOCINQ,
 * SIOCOUTQ, GETSOCKOPT, SETSOCKOPT, TX_TIMESTAMP): ops/cmd_net.c.
 */
int ar_uring_cmd_sock(struct ar_ureq *req, const struct ar_uring_cmd *uc,
		      unsigned issue_flags);

#endif
