/* SPDX-License-Identifier: MIT */
/*
 * wait.h - io_uring_enter on a user ring (wait.c) and its sleepers (waitq.c).
 */
#ifndef ANYRING_USER_WAIT_H
#define ANYRING_USER_WAIT_H

#include "lib/clock.h"
#include "user/types.h"

/* wait.c */
int ar_user_enter(void *obj, unsigned fd, unsigned to_submit,
		  unsigned min_complete, unsigned flags, const void *arg,
		  size_t argsz);

/* waitq.c */
struct ar_waiter *ar_waiter_self(void);
void ar_waitq_add(struct ar_uctx *ctx, struct ar_waiter *w);
void ar_waitq_del(struct ar_uctx *ctx, struct ar_waiter *w);
void ar_waitq_retarget(struct ar_uctx *ctx, struct ar_waiter *w,
		       unsigned target);
void ar_waitq_wake(struct ar_uctx *ctx, bool all);
int ar_waiter_sleep(struct ar_waiter *w, __u64 deadline_ns,
		    const sigset_t *sigmask, int xfd);

#endif
