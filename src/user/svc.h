/* SPDX-License-Identifier: MIT */
/*
 * svc.h - the service thread: armed readiness polls and timers (svc.c).
 */
#ifndef ANYRING_USER_SVC_H
#define ANYRING_USER_SVC_H

#include "user/types.h"

/* svc.c: readiness polls and timers */
int ar_svc_arm_poll(struct ar_ureq *req, short events);
int ar_svc_prepare_timer(struct ar_uctx *ctx);
int ar_svc_arm_timer_locked(struct ar_ureq *req);
bool ar_svc_disarm_locked(struct ar_ureq *req);
void ar_svc_kick(struct ar_uctx *ctx);
void ar_svc_exit(struct ar_uctx *ctx);

#endif
