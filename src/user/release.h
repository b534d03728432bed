/* SPDX-License-Identifier: MIT */
/*
 * release.h - a ring ends when its fd is closed for the last time
 * (release.c).
 */
#ifndef ANYRING_USER_RELEASE_H
#define ANYRING_USER_RELEASE_H

#include "user/types.h"

/* release.c: watch the ring's fd from setup on */
void ar_release_forget(struct ar_uctx *ctx);
int ar_release_watch(struct ar_uctx *ctx);
/*
 * release.c: look at the ring fd later (svc.c ar_svc_fdcheck()) from
 * the release thread; -ENOTSUP when there is none
 */
int ar_release_fdcheck(struct ar_uctx *ctx);
/* release.c: the ring ends; before its engine end (peer_fd) is closed */
void ar_release_unwatch(struct ar_uctx *ctx);
/*
 * ctx.c: the program's end of the ring's fd is gone; end the ring. false
 * while the program still maps the rings itself: ask again later.
 */
bool ar_user_release(struct ar_uctx *ctx);

#endif
