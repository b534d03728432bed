/* SPDX-License-Identifier: MIT */
/*
 * splice.h - SPLICE and TEE (splice.c).
 */
#ifndef ANYRING_USER_OPS_SPLICE_H
#define ANYRING_USER_OPS_SPLICE_H

#include "user/types.h"

int ar_splice_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_tee_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_splice_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
