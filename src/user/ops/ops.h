/* SPDX-License-Identifier: MIT */
/*
 * ops.h - prep and issue handlers of the opcodes outside fs.h: NOP
 * (nop.c), read/write (rw.c), timeouts (timeout.c), cancel (cancel.c), polls (poll.c), and
 * FILES_UPDATE (rsrc.c).
 */
#ifndef ANYRING_USER_OPS_H
#define ANYRING_USER_OPS_H

#include "user/types.h"

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

int ar_poll_add_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_poll_add_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_poll_remove_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_poll_remove_issue(struct ar_ureq *req, unsigned issue_flags);

int ar_files_update_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_files_update_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
