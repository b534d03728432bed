/* SPDX-License-Identifier: MIT */
/*
 * submit.h - the submission side (submit.c).
 */
#ifndef ANYRING_USER_SUBMIT_H
#define ANYRING_USER_SUBMIT_H

#include "user/types.h"

/* submit.c */
unsigned ar_sq_entries_ready(struct ar_uctx *ctx);
int ar_submit_sqes(struct ar_uctx *ctx, unsigned nr);
bool ar_req_waiter_may_run(const struct ar_ureq *req);
int ar_submit_sqes_enter(struct ar_uctx *ctx, unsigned nr, unsigned flags,
			 unsigned min_complete, const void *arg);
void ar_req_queue(struct ar_ureq *req);
void ar_req_queue_nodrain(struct ar_ureq *req, unsigned issue_flags);
/* ctx->submit_state at ring setup */
void ar_submit_state_init(struct ar_uctx *ctx);
bool ar_submit_defer_link(struct ar_ureq *req);
bool ar_submit_complete(struct ar_ureq *req);
void ar_req_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_req_assign_file(struct ar_ureq *req);

#endif
