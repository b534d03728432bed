/* SPDX-License-Identifier: MIT */
/*
 * nop.c - IORING_OP_NOP and its 6.18 flags (sqe->rw_flags is nop_flags):
 * an injected result, and checks of a file or a registered buffer.
 * A plain NOP with no flags usually never gets here: the submit path
 * posts its CQE directly (submit.c).
 */
#include <errno.h>
#include <fcntl.h>
#include "user/types.h"
#include "user/rsrc.h"
#include "engine/engine.h"
#include "user/ops/ops.h"

/* nop_flags */
#define AR_NOP_INJECT_RESULT	(1U << 0)
#define AR_NOP_FILE		(1U << 1)
#define AR_NOP_FIXED_FILE	(1U << 2)
#define AR_NOP_FIXED_BUFFER	(1U << 3)
#define AR_NOP_TW		(1U << 4)
#define AR_NOP_CQE32		(1U << 5)
#define AR_NOP_FLAGS		(AR_NOP_INJECT_RESULT | AR_NOP_FILE | \
				 AR_NOP_FIXED_FILE | AR_NOP_FIXED_BUFFER | AR_NOP_TW | \
				 AR_NOP_CQE32)

struct ar_nop {
	struct ar_cqe_big big;	/* first: IORING_NOP_CQE32's words */
	__u32 flags;
	int result;
	int fd;
	__u16 buf_index;
};

/*
 * AR_NOP_CQE32: a 32-byte CQE whose second half is the SQE's off and
 * addr, on a ring with 32-byte CQEs (CQE32, or CQE_MIXED, where it is
 * flagged IORING_CQE_F_32); elsewhere -EINVAL, as 6.18. TW changes
 * nothing here.
 */
int ar_nop_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_nop *nop = ar_req_data(req, struct ar_nop);

	nop->flags = sqe->rw_flags;
	if (nop->flags & ~AR_NOP_FLAGS)
		return -EINVAL;
	if (nop->flags & AR_NOP_CQE32) {
		if (!(req->ctx->flags & (IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED)))
			return -EINVAL;
		nop->big.extra1 = sqe->off;
		nop->big.extra2 = sqe->addr;
		req->flags |= AR_REQ_F_CQE32;
	}
	nop->result = (nop->flags & AR_NOP_INJECT_RESULT) ? (int)sqe->len : 0;
	nop->fd = sqe->fd;
	nop->buf_index = sqe->buf_index;
	return 0;
}

int ar_nop_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_nop *nop = ar_req_data(req, struct ar_nop);
	struct ar_rsrc_node *node;

	(void)issue_flags;
	if (nop->flags & AR_NOP_FILE) {
		if (nop->flags & AR_NOP_FIXED_FILE) {
			node = ar_rsrc_get_file(req->ctx, (unsigned)nop->fd);
			if (!node)
				return -EBADF;
			ar_rsrc_put(req->ctx, node);
		} else if (fcntl(nop->fd, F_GETFD) < 0 ||
			   ar_fd_internal(nop->fd)) {
			return -EBADF;
		}
	}
	if (nop->flags & AR_NOP_FIXED_BUFFER) {
		node = ar_rsrc_get_buf(req->ctx, nop->buf_index);
		if (!node)
			return -EFAULT;
		ar_rsrc_put(req->ctx, node);
	}
	return nop->result;
}
