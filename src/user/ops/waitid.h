/* SPDX-License-Identifier: MIT */
/*
 * waitid.h - IORING_OP_WAITID (waitid.c).
 */
#ifndef ANYRING_USER_OPS_WAITID_H
#define ANYRING_USER_OPS_WAITID_H

#include "user/types.h"

int ar_waitid_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_waitid_issue(struct ar_ureq *req, unsigned issue_flags);
/* futex.c's ar_futex_cancel_locked() hands it an armed WAITID */
int ar_waitid_cancel_locked(struct ar_ureq *req);

#endif
