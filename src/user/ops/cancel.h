/* SPDX-License-Identifier: MIT */
/*
 * cancel.h - what the core calls of cancel.c.
 */
#ifndef ANYRING_USER_OPS_CANCEL_H
#define ANYRING_USER_OPS_CANCEL_H

#include "user/types.h"

/* cancel.c */
int ar_cancel_extract_locked(struct ar_ureq *req);
void ar_cancel_all(struct ar_uctx *ctx);
int ar_sync_cancel(struct ar_uctx *ctx, const void *arg);

#endif
