/* SPDX-License-Identifier: MIT */
/*
 * truncate.h - FTRUNCATE (truncate.c).
 */
#ifndef ANYRING_USER_OPS_TRUNCATE_H
#define ANYRING_USER_OPS_TRUNCATE_H

#include "user/types.h"

int ar_ftruncate_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_ftruncate_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
