/* SPDX-License-Identifier: MIT */
/*
 * misc.h - the file and pipe opcodes of xattr.c (FSETXATTR, SETXATTR,
 * FGETXATTR, GETXATTR) and splice.c (SPLICE, TEE).
 */
#ifndef ANYRING_USER_OPS_MISC_H
#define ANYRING_USER_OPS_MISC_H

#include "user/types.h"

int ar_fsetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_setxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_fgetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_getxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_xattr_issue(struct ar_ureq *req, unsigned issue_flags);
void ar_xattr_cleanup(struct ar_ureq *req);

int ar_splice_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_tee_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_splice_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
