/* SPDX-License-Identifier: MIT */
/*
 * iowq.h - io-wq: the worker pool for blocking work (iowq.c).
 */
#ifndef ANYRING_USER_IOWQ_H
#define ANYRING_USER_IOWQ_H

#include "user/types.h"

/*
 * iowq.c. linked: the request is the next link of one that completed in
 * this thread (AR_ISSUE_LINKED, complete.c): queued by a worker, that
 * worker keeps it (ar_iowq_keep()).
 */
void ar_iowq_init(struct ar_iowq *wq, unsigned sq_entries);
void ar_iowq_enqueue(struct ar_uctx *ctx, struct ar_ureq *req, bool linked);
bool ar_iowq_cancel(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_iowq_exit(struct ar_uctx *ctx);
/* a worker's successor on its pool's list (a forked child frees its copies: fork.c) */
struct ar_worker *ar_iowq_worker_next(struct ar_worker *w);
void ar_iowq_free(struct ar_iowq *wq);
int ar_iowq_max_workers(struct ar_uctx *ctx, unsigned *vals);

#endif
