/* SPDX-License-Identifier: MIT */
/*
 * iowq.h - io-wq: the worker pool for blocking work (iowq.c).
 */
#ifndef ANYRING_USER_IOWQ_H
#define ANYRING_USER_IOWQ_H

#include "user/types.h"

/*
 * The linked successor the completing thread is queueing (complete.c):
 * if it punts from a worker, that worker keeps it (iowq.c ar_iowq_keep).
 */
extern __thread struct ar_ureq *ar_iowq_successor;

/* iowq.c */
void ar_iowq_init(struct ar_iowq *wq, unsigned sq_entries);
void ar_iowq_enqueue(struct ar_uctx *ctx, struct ar_ureq *req);
bool ar_iowq_cancel(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_iowq_exit(struct ar_uctx *ctx);
void ar_iowq_free(struct ar_iowq *wq);
int ar_iowq_max_workers(struct ar_uctx *ctx, unsigned *vals);

#endif
