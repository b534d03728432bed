/* SPDX-License-Identifier: MIT */
/*
 * msg_ring.h - IORING_OP_MSG_RING (msg_ring.c).
 */
#ifndef ANYRING_USER_OPS_MSG_RING_H
#define ANYRING_USER_OPS_MSG_RING_H

#include "user/types.h"

int ar_msg_ring_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_msg_ring_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
