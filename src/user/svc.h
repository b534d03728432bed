/* SPDX-License-Identifier: MIT */
/*
 * svc.h - the service thread: timers, readiness nobody else reaps (svc.c).
 */
#ifndef ANYRING_USER_SVC_H
#define ANYRING_USER_SVC_H

#include "user/types.h"

/* svc.c: timers, and readiness nobody else reaps (poll.c arms it) */
int ar_svc_start(struct ar_uctx *ctx);
int ar_svc_prepare_timer(struct ar_uctx *ctx);
int ar_svc_arm_timer_locked(struct ar_ureq *req);
bool ar_svc_disarm_locked(struct ar_ureq *req);
void ar_svc_kick(struct ar_uctx *ctx);
void ar_svc_fdcheck(struct ar_uctx *ctx);
void ar_svc_exit(struct ar_uctx *ctx);

#endif
