/* SPDX-License-Identifier: MIT */
/*
 * ops.h - prep and issue handlers of the opcodes outside fs.h: NOP
 * (nop.c), read/write (rw.c), timeouts (timeout.c), cancel (cancel.c) and
 * FILES_UPDATE (rsrc.c); POLL_ADD and POLL_REMOVE are poll.h's.
 */
#ifndef ANYRING_USER_OPS_OPS_H
#define ANYRING_USER_OPS_OPS_H

#include <stddef.h>
#include "user/types.h"

/*
 * The SQEs submit.c's fast paths serve without a request. A NOP with no
 * SQE flags, priority or personality, and no nop_flags but
 * INJECT_RESULT: true, with its result.
 */
static inline bool ar_nop_sqe_plain(const struct io_uring_sqe *sqe, __s32 *res)
{
	__u32 nop_flags;

	if (sqe->opcode != IORING_OP_NOP || sqe->flags || sqe->ioprio ||
	    sqe->personality)
		return false;
	nop_flags = sqe->rw_flags;
	if (nop_flags & ~1U)	/* IORING_NOP_INJECT_RESULT */
		return false;
	*res = nop_flags ? (__s32)sqe->len : 0;
	return true;
}

/*
 * sqe->buf_index read once from the application's SQE. Newer headers put
 * it in a packed union, whose member's address may not be taken: the
 * load goes through its offset instead.
 */
static inline __u16 ar_sqe_buf_index_once(const struct io_uring_sqe *sqe)
{
	return *(const volatile __u16 *)((const char *)sqe +
					 offsetof(struct io_uring_sqe, buf_index));
}

/*
 * A READ with no SQE flags, priority, RWF_* flags, personality or buffer
 * index: true, with its fd, buffer and offset. Each field is read once
 * from the application's SQE, which it may be rewriting.
 */
static inline bool ar_read_sqe_plain(const struct io_uring_sqe *sqe, int *fd,
				     struct iovec *iov, __s64 *off)
{
	if (IO_URING_READ_ONCE(sqe->opcode) != IORING_OP_READ ||
	    IO_URING_READ_ONCE(sqe->flags) || IO_URING_READ_ONCE(sqe->ioprio) ||
	    IO_URING_READ_ONCE(sqe->rw_flags) ||
	    ar_sqe_buf_index_once(sqe) ||
	    IO_URING_READ_ONCE(sqe->personality))
		return false;
	*off = (__s64)IO_URING_READ_ONCE(sqe->off);
	iov->iov_len = IO_URING_READ_ONCE(sqe->len);
	iov->iov_base = (void *)(unsigned long)IO_URING_READ_ONCE(sqe->addr);
	*fd = IO_URING_READ_ONCE(sqe->fd);
	return true;
}

int ar_nop_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_nop_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_read_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_write_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_readv_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_writev_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_read_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_write_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_readv_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_writev_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_read_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_read_mshot_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_read_mshot_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_write_issue(struct ar_ureq *req, unsigned issue_flags);

int ar_timeout_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_timeout_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_timeout_remove_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_timeout_remove_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_link_timeout_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_link_timeout_issue(struct ar_ureq *req, unsigned issue_flags);

int ar_async_cancel_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_async_cancel_issue(struct ar_ureq *req, unsigned issue_flags);


int ar_files_update_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_files_update_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
