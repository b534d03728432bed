/* SPDX-License-Identifier: MIT */
/*
 * advise.h - FADVISE and MADVISE (advise.c); fs.h has the notes the
 * file-system opcodes share.
 */
#ifndef ANYRING_USER_OPS_ADVISE_H
#define ANYRING_USER_OPS_ADVISE_H

#include "user/types.h"

int ar_fadvise_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_fadvise_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_madvise_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_madvise_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
