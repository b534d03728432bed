/* SPDX-License-Identifier: MIT */
/*
 * sync.h - FSYNC, SYNC_FILE_RANGE and FALLOCATE (sync.c); fs.h has the
 * notes the file-system opcodes share.
 */
#ifndef ANYRING_USER_OPS_SYNC_H
#define ANYRING_USER_OPS_SYNC_H

#include "user/types.h"

int ar_fsync_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_fsync_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_sync_file_range_prep(struct ar_ureq *req,
			    const struct io_uring_sqe *sqe);
int ar_sync_file_range_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_fallocate_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_fallocate_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
