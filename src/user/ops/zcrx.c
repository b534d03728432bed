/* SPDX-License-Identifier: MIT */
/*
 * zcrx.c - RECV_ZC, as the kernel's io_uring/zcrx.c: the zero-copy
 * receive queues its prep looks up (the kernel's handlers themselves are
 * in its net.c).
 *
 * No zero-copy receive queue can be registered on a user ring, so every
 * SQE fails prep with -EINVAL, as the kernel's when the ifq index names
 * none.
 */
#include <errno.h>
#include "user/ops/zcrx.h"
#include "user/types.h"

/* RECV_ZC: the SQE's checks, then the ifq lookup, which finds none */
int ar_recv_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	(void)req;
	(void)sqe;
	return -EINVAL;
}
