/* SPDX-License-Identifier: MIT */
/*
 * ops.h - prep and issue handlers of NOP (nop.c) and the reads and
 * writes (rw.c). The other opcodes' are declared with their files: the
 * ops/ headers, and, for the opcodes of core subsystems, timeout.h,
 * cancel.h, poll.h, kbuf.h and rsrc.h.
 */
#ifndef ANYRING_USER_OPS_OPS_H
#define ANYRING_USER_OPS_OPS_H

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

#endif
