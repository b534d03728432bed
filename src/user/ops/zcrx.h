/* SPDX-License-Identifier: MIT */
/*
 * zcrx.h - RECV_ZC (zcrx.c).
 */
#ifndef ANYRING_USER_OPS_ZCRX_H
#define ANYRING_USER_OPS_ZCRX_H

#include "user/types.h"

int ar_recv_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);

#endif
