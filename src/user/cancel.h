/* SPDX-License-Identifier: MIT */
/*
 * cancel.h - what the core calls of cancel.c.
 */
#ifndef ANYRING_USER_CANCEL_H
#define ANYRING_USER_CANCEL_H

#include "user/types.h"

/*
 * ar_cancel_extract_locked()'s answers for a request found that ends
 * -ECANCELED by itself (the caller does not complete it): the cancel
 * then answers 0 (a POLL_ADD being woken, as the kernel's poll cancel),
 * or 1 (a futex wait or a WAITID: the count the kernel's io_futex_cancel
 * and io_waitid_cancel report).
 */
#define AR_CANCEL_OWN		1
#define AR_CANCEL_OWN_COUNT	2

/* cancel.c */
int ar_cancel_extract_locked(struct ar_ureq *req);
void ar_cancel_all(struct ar_uctx *ctx);
int ar_sync_cancel(struct ar_uctx *ctx, const void *arg);
/* cancels across processes: an answer (fork.c), the owner's turn (poll.c) */
bool ar_xcancel_answer_locked(struct ar_uctx *ctx, unsigned i, int r);
void ar_xcancel_serve(struct ar_uctx *ctx);

/* the ASYNC_CANCEL opcode */
int ar_async_cancel_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_async_cancel_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
