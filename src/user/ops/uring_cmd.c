/* SPDX-License-Identifier: MIT */
/*
 * uring_cmd.c - URING_CMD, as the kernel's io_uring/uring_cmd.c.
 *
 * Prep makes Linux 6.18's checks in its order. No file this engine
 * serves has ->uring_cmd but sockets (ops/cmd_net.c, ar_uring_cmd_sock()) and
 * /dev/null (0): -EOPNOTSUPP.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "user/ops/uring_cmd.h"
#include "user/types.h"

#define AR_URING_CMD_FIXED		(1U << 0)
#define AR_URING_CMD_MULTISHOT		(1U << 1)

/* URING_CMD */
int ar_uring_cmd_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_uring_cmd *uc = ar_req_data(req, struct ar_uring_cmd);
	__u32 flags;

	if (sqe->__pad1)
		return -EINVAL;
	flags = sqe->uring_cmd_flags;
	if (flags & ~(AR_URING_CMD_FIXED | AR_URING_CMD_MULTISHOT))
		return -EINVAL;
	if ((flags & AR_URING_CMD_FIXED) && (flags & AR_URING_CMD_MULTISHOT))
		return -EINVAL;
	/* multishot takes provided buffers, and only it does */
	if (!(flags & AR_URING_CMD_MULTISHOT) !=
	    !(req->sqe_flags & IOSQE_BUFFER_SELECT))
		return -EINVAL;
	uc->cmd_op = sqe->cmd_op;
	uc->file_index = sqe->file_index;
	uc->addr = sqe->addr;
	uc->addr3 = sqe->addr3;
	return 0;
}

/*
 * The file's ->uring_cmd: sockets have one (io_uring_cmd_sock()), and
 * /dev/null (uring_cmd_null(), which does nothing and answers 0); no
 * other file this engine serves has one.
 */
int ar_uring_cmd_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_uring_cmd *uc = ar_req_data(req, struct ar_uring_cmd);
	struct stat st;

	if (fstat(req->fd, &st))
		return -EBADF;
	if (S_ISSOCK(st.st_mode))
		return ar_uring_cmd_sock(req, uc, issue_flags);
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
		return 0;
	return -EOPNOTSUPP;
}
