/* SPDX-License-Identifier: MIT */
/*
 * truncate.c - FTRUNCATE, as the kernel's io_uring/truncate.c.
 *
 * Prep makes Linux 6.18's checks in its order; issue is the system call
 * the kernel's handler wraps: ftruncate(2) in a worker
 * (REQ_F_FORCE_ASYNC); its errors do not fail a link.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "user/ops/truncate.h"
#include "user/types.h"

/* a libc call's -1/errno as the kernel's -errno */
static int ar_truncate_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/* FTRUNCATE: the length in sqe->off */
struct ar_ftrunc {
	__s64 len;
};

int ar_ftruncate_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_ftrunc *ft = ar_req_data(req, struct ar_ftrunc);

	if (sqe->rw_flags || sqe->addr || sqe->len || sqe->buf_index ||
	    sqe->splice_fd_in || sqe->addr3)
		return -EINVAL;
	ft->len = (__s64)sqe->off;
	return 0;
}

int ar_ftruncate_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_ftrunc *ft = ar_req_data(req, struct ar_ftrunc);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;		/* REQ_F_FORCE_ASYNC */
	/* ftruncate(2) checks the length first; the kernel has the file */
	if (ft->len < 0 && fcntl(req->fd, F_GETFD) < 0)
		return -EBADF;
	return ar_truncate_ret(ftruncate(req->fd, (off_t)ft->len));
}
