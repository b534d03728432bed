/* SPDX-License-Identifier: MIT */
/* direct.h - the direct backend: O_DIRECT I/O through native AIO (direct.c) */
#ifndef ANYRING_USER_BACKEND_DIRECT_H
#define ANYRING_USER_BACKEND_DIRECT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <linux/aio_abi.h>

struct ar_ureq;
struct ar_uctx;

/* what an AIO read or write keeps in its request (its backend data) */
struct ar_aio_io {
	struct iocb cb;
};

/* the ring's side (backend.h's ar_backend_* call these) */
unsigned ar_direct_reap_ring(struct ar_uctx *ctx);
unsigned ar_direct_sleep_prepare(struct ar_uctx *ctx, int *fd);
struct ar_waiter;
int ar_direct_sleep(struct ar_uctx *ctx, struct ar_waiter *w,
		    __u64 deadline_ns, const sigset_t *sigmask);
void ar_direct_exit(struct ar_uctx *ctx);

/* aiopoll.c's polls, in the same AIO context (direct.c) */
int ar_direct_poll_prepare(struct ar_uctx *ctx);
void ar_direct_hold(struct ar_uctx *ctx, unsigned n);
void ar_direct_unhold(struct ar_uctx *ctx);
int ar_direct_poll_submit(struct ar_uctx *ctx, struct iocb *cb, int fd,
			  __u32 events, __u64 data);
void ar_direct_poll_cancel(struct ar_uctx *ctx, struct iocb *cb);

#endif
