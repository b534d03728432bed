/* SPDX-License-Identifier: MIT */
/*
 * timeout.h - what the core calls of timeout.c.
 */
#ifndef ANYRING_USER_TIMEOUT_H
#define ANYRING_USER_TIMEOUT_H

#include "user/types.h"

/* timeout.c */
struct ar_ureq *ar_timeout_next_satisfied_locked(struct ar_uctx *ctx);
bool ar_timeout_extract_locked(struct ar_uctx *ctx, struct ar_ureq *req);
bool ar_timeout_expired(struct ar_ureq *req);
void ar_timeout_count_locked(struct ar_uctx *ctx, struct ar_ureq *req);
void ar_timeout_fire(struct ar_ureq *req);
void ar_link_timeout_arm_slow(struct ar_ureq *req);
struct ar_ureq *ar_link_timeout_disarm_locked(struct ar_ureq *req);
struct ar_ureq *ar_link_timeout_unarmed_locked(struct ar_ureq *req);
void ar_link_timeout_fire(struct ar_ureq *lt);
bool ar_link_timeout_expired_locked(const struct ar_ureq *req);
bool ar_link_timeout_park_locked(struct ar_ureq *req);
void ar_link_timeout_park_device_locked(struct ar_ureq *req);

/*
 * Arm the LINK_TIMEOUT linked after req, if it has one (AR_REQ_F_ARM_LT,
 * set at submit), as its issue begins: the look at the flag is inline,
 * the arming out of line.
 */
static inline void ar_link_timeout_arm(struct ar_ureq *req)
{
	if (__builtin_expect(req->flags & AR_REQ_F_ARM_LT, 0))
		ar_link_timeout_arm_slow(req);
}

/* the TIMEOUT, TIMEOUT_REMOVE and LINK_TIMEOUT opcodes */
int ar_timeout_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_timeout_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_timeout_remove_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_timeout_remove_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_link_timeout_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_link_timeout_issue(struct ar_ureq *req, unsigned issue_flags);

void ar_timeout_hand_over(struct ar_uctx *ctx);

#endif
