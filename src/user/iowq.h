/* SPDX-License-Identifier: MIT */
/*
 * iowq.h - io-wq: the worker pool for blocking work (iowq.c).
 */
#ifndef ANYRING_USER_IOWQ_H
#define ANYRING_USER_IOWQ_H

#include "user/types.h"

/* iowq.c */
void ar_iowq_init(struct ar_iowq *wq, unsigned sq_entries);
void ar_iowq_enqueue(struct ar_uctx *ctx, struct ar_ureq *req);
bool ar_iowq_cancel(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_iowq_exit(struct ar_uctx *ctx);
void ar_iowq_free(struct ar_iowq *wq);
int ar_iowq_max_workers(struct ar_uctx *ctx, unsigned *vals);

#endif
