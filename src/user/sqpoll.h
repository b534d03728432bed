/* SPDX-License-Identifier: MIT */
/*
 * sqpoll.h - the SQ poll thread (sqpoll.c).
 */
#ifndef ANYRING_USER_SQPOLL_H
#define ANYRING_USER_SQPOLL_H

#include "user/types.h"

/* sqpoll.c */
int ar_sqpoll_start(struct ar_uctx *ctx, struct io_uring_params *p);
void ar_sqpoll_wake(struct ar_uctx *ctx);
int ar_sqpoll_wait_space(struct ar_uctx *ctx);
void ar_sqpoll_stop(struct ar_uctx *ctx);

#endif
