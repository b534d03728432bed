/* SPDX-License-Identifier: MIT */
/*
 * futex.h - IORING_OP_FUTEX_WAIT, FUTEX_WAKE, FUTEX_WAITV (futex.c).
 */
#ifndef ANYRING_USER_OPS_FUTEX_H
#define ANYRING_USER_OPS_FUTEX_H

#include "engine/compat.h"
#include "user/types.h"

int ar_futex_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_futexv_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_futex_wait_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_futexv_wait_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_futex_wake_issue(struct ar_ureq *req, unsigned issue_flags);
/*
 * The cancellation of a wait of futex.c or waitid.c (the cold table's
 * cancel_locked for FUTEX_WAIT, FUTEX_WAITV and WAITID: cancel.c), under
 * ctx->lock, answering as ar_cancel_extract_locked(): AR_CANCEL_OWN_COUNT
 * for one cancelled that its own thread completes (the kernel's count)
 */
int ar_futex_cancel_locked(struct ar_ureq *req);

#endif
