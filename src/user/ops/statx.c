/* SPDX-License-Identifier: MIT */
/*
 * statx.c - STATX, as the kernel's io_uring/statx.c.
 *
 * Prep makes the SQE checks of Linux 6.18's io_uring/statx.c, in their
 * order, and copies what issue needs: once submit returns, the app may
 * reuse the SQE and the memory it points to (the path). Issue is the
 * system call the kernel's handler wraps, so its result is the syscall's;
 * it is punted (-EAGAIN under AR_ISSUE_NONBLOCK, then run by a worker).
 *
 * The path is read with the fault-safe copy (lib/uaccess.h): memory that
 * cannot be read fails the prep with -EFAULT, as the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "user/ops/fs.h"
#include "user/ops/statx.h"
#include "user/types.h"

/* a libc call's -1/errno as the kernel's -errno */
static int ar_fs_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/* STATX: the buffer (sqe->addr2) is written at issue, as the kernel does */
struct ar_statx {
	const char *path;
	__u64 buffer;
	int dfd;
	__u32 mask;
	__u32 flags;
};

int ar_statx_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_statx *sx = ar_req_data(req, struct ar_statx);
	struct ar_fs_name name = { .addr = sqe->addr };
	int ret;

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	sx->dfd = sqe->fd;
	sx->mask = sqe->len;
	sx->buffer = sqe->addr2;
	sx->flags = sqe->statx_flags;
	/* getname_uflags(): "" only with AT_EMPTY_PATH; NULL is -EFAULT */
	name.empty_ok = sx->flags & AT_EMPTY_PATH;
	ret = ar_fs_getnames(req, &name, 1);
	if (ret)
		return ret;
	sx->path = name.path;
	return 0;
}

int ar_statx_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_statx *sx = ar_req_data(req, struct ar_statx);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	/* raw: glibc's statx() declares the buffer nonnull, NULL is -EFAULT */
	return ar_fs_ret(syscall(SYS_statx, sx->dfd, sx->path, (int)sx->flags,
				 sx->mask, (uintptr_t)sx->buffer));
}
