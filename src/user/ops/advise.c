/* SPDX-License-Identifier: MIT */
/*
 * advise.c - FADVISE and MADVISE, as the kernel's io_uring/advise.c.
 *
 * Each prep makes the SQE checks of Linux 6.18's io_uring/advise.c, in
 * their order, and copies what issue needs: once submit returns, the app
 * may reuse the SQE. Each issue is the system call the kernel's handler
 * wraps, so its result is the syscall's.
 *
 * Punted (-EAGAIN under AR_ISSUE_NONBLOCK, then run by a worker): MADVISE,
 * and FADVISE but with POSIX_FADV_NORMAL, RANDOM or SEQUENTIAL, which
 * runs inline as in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include "user/ops/advise.h"
#include "user/types.h"

/* a libc call's -1/errno as the kernel's -errno */
static int ar_fs_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/* FADVISE, MADVISE: a 64-bit length where the kernel takes one */
struct ar_advise {
	__u64 start;		/* file offset, or address */
	__u64 len;
	__u32 advice;
};

/* the kernel does these inline, the rest from io-wq (REQ_F_FORCE_ASYNC) */
static bool ar_fadvise_inline(__u32 advice)
{
	return advice == POSIX_FADV_NORMAL || advice == POSIX_FADV_RANDOM ||
	       advice == POSIX_FADV_SEQUENTIAL;
}

/* len in sqe->addr when non-zero, else sqe->len */
int ar_fadvise_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_advise *fa = ar_req_data(req, struct ar_advise);

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	fa->start = sqe->off;
	fa->len = sqe->addr ? sqe->addr : sqe->len;
	fa->advice = sqe->fadvise_advice;
	return 0;
}

int ar_fadvise_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_advise *fa = ar_req_data(req, struct ar_advise);

	if ((issue_flags & AR_ISSUE_NONBLOCK) && !ar_fadvise_inline(fa->advice))
		return -EAGAIN;
	/* returns the error number itself, not -1 */
	return -posix_fadvise64(req->fd, (off64_t)fa->start,
				(off64_t)fa->len, (int)fa->advice);
}

/* len in sqe->off when non-zero, else sqe->len */
int ar_madvise_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_advise *ma = ar_req_data(req, struct ar_advise);

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	ma->start = sqe->addr;
	ma->len = sqe->off ? sqe->off : sqe->len;
	ma->advice = sqe->fadvise_advice;
	return 0;
}

int ar_madvise_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_advise *ma = ar_req_data(req, struct ar_advise);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_fs_ret(madvise((void *)(uintptr_t)ma->start,
				 (size_t)ma->len, (int)ma->advice));
}
