/* SPDX-License-Identifier: MIT */
/*
 * openclose.h - OPENAT, OPENAT2, CLOSE, FIXED_FD_INSTALL and PIPE
 * (openclose.c); fs.h has the notes the file-system opcodes share (of
 * these, OPENAT, OPENAT2 and CLOSE).
 */
#ifndef ANYRING_USER_OPS_OPENCLOSE_H
#define ANYRING_USER_OPS_OPENCLOSE_H

#include "user/types.h"

int ar_openat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_openat_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_openat2_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_openat2_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_close_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_close_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_fixed_fd_install_prep(struct ar_ureq *req,
			     const struct io_uring_sqe *sqe);
int ar_fixed_fd_install_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_pipe_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_pipe_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
