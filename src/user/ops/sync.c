/* SPDX-License-Identifier: MIT */
/*
 * sync.c - FSYNC, SYNC_FILE_RANGE and FALLOCATE, as the kernel's
 * io_uring/sync.c.
 *
 * Each prep makes the SQE checks of Linux 6.18's io_uring/sync.c, in
 * their order, and copies what issue needs: once submit returns, the app
 * may reuse the SQE. Each issue is the system call the kernel's handler
 * wraps, so its result is the syscall's. All three are punted (-EAGAIN
 * under AR_ISSUE_NONBLOCK, then run by a worker).
 *
 * Where this differs from the kernel: FSYNC syncs the whole file where
 * the kernel syncs off..off+len.
 */
#include <errno.h>
#include <fcntl.h>
#include "user/ops/sync.h"
#include "user/backend.h"
#include "user/types.h"

/* a libc call's -1/errno as the kernel's -errno */
static int ar_fs_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/* FSYNC, SYNC_FILE_RANGE, FALLOCATE */
struct ar_sync {
	__u64 off;
	__u64 len;
	__u32 flags;
	__u32 mode;
};

int ar_fsync_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (sqe->addr || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (sqe->fsync_flags & ~IORING_FSYNC_DATASYNC)
		return -EINVAL;
	sync->flags = sqe->fsync_flags;
	/* off and len are read but unused: the whole file is synced */
	sync->off = sqe->off;
	sync->len = sqe->len;
	return 0;
}

int ar_fsync_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);
	struct ar_sync_io s = { sync->off, sync->len, sync->flags };

	/* the backend's: fsync(2) in a worker, or a device's flush */
	return req->file.be->fsync(req, &s, issue_flags);
}

int ar_sync_file_range_prep(struct ar_ureq *req,
			    const struct io_uring_sqe *sqe)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (sqe->addr || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	sync->off = sqe->off;
	sync->len = sqe->len;
	sync->flags = sqe->sync_range_flags;
	return 0;
}

int ar_sync_file_range_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);
	struct ar_sync_io s = { sync->off, sync->len, sync->flags };

	return req->file.be->sync_range(req, &s, issue_flags);
}

/* off in sqe->off, len in sqe->addr, mode in sqe->len */
int ar_fallocate_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	sync->off = sqe->off;
	sync->len = sqe->addr;
	sync->mode = sqe->len;
	return 0;
}

int ar_fallocate_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_fs_ret(fallocate64(req->fd, (int)sync->mode,
				     (off64_t)sync->off, (off64_t)sync->len));
}
