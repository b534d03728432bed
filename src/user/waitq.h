/* SPDX-License-Identifier: MIT */
/*
 * waitq.h - the CQ wait queue: the threads sleeping on a ring (waitq.c).
 */
#ifndef ANYRING_USER_WAITQ_H
#define ANYRING_USER_WAITQ_H

#include <signal.h>
#include "user/types.h"

/* waitq.c */
struct ar_waiter *ar_waiter_self(void);
void ar_waitq_add(struct ar_uctx *ctx, struct ar_waiter *w);
void ar_waitq_xcount(struct ar_uctx *ctx, struct ar_waiter *w);
void ar_waitq_del(struct ar_uctx *ctx, struct ar_waiter *w);
void ar_waitq_retarget(struct ar_uctx *ctx, struct ar_waiter *w,
		       unsigned target);
void ar_waitq_wake(struct ar_uctx *ctx, bool all);
int ar_waiter_sleep(struct ar_waiter *w, __u64 deadline_ns,
		    const sigset_t *sigmask, int xfd, int xfd2, int xfd3,
		    bool *xfd3_ready);
struct epoll_event;
int ar_waiter_sleep_epoll(__u64 deadline_ns, const sigset_t *sigmask,
			  int epfd, struct epoll_event *evs, int max);
void ar_waiter_drain(struct ar_waiter *w);
void ar_waiter_get(struct ar_waiter *w);
void ar_waiter_put(struct ar_waiter *w);

#endif
