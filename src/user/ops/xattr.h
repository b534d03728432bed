/* SPDX-License-Identifier: MIT */
/*
 * xattr.h - FSETXATTR, SETXATTR, FGETXATTR, GETXATTR (xattr.c).
 */
#ifndef ANYRING_USER_OPS_XATTR_H
#define ANYRING_USER_OPS_XATTR_H

#include "user/types.h"

int ar_fsetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_setxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_fgetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_getxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_xattr_issue(struct ar_ureq *req, unsigned issue_flags);
void ar_xattr_cleanup(struct ar_ureq *req);

#endif
