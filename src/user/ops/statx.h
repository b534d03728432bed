/* SPDX-License-Identifier: MIT */
/*
 * statx.h - STATX (statx.c); fs.h has the notes the file-system opcodes
 * share.
 */
#ifndef ANYRING_USER_OPS_STATX_H
#define ANYRING_USER_OPS_STATX_H

#include "user/types.h"

int ar_statx_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_statx_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
