/* SPDX-License-Identifier: MIT */
/*
 * iopoll.h - IOPOLL rings (iopoll.c): the ring's list of polled
 * requests, which io_uring_enter(GETEVENTS) polls as the kernel's
 * ctx->iopoll_list, and the count of device I/Os ring exit waits for.
 *
 * A device backend keeps a struct ar_iopoll_entry in its per-request
 * state for each I/O it starts: ar_iopoll_add() before handing the I/O to
 * the device, ar_iopoll_del() when the device is done with it (or did
 * not take it).
 */
#ifndef ANYRING_USER_IOPOLL_H
#define ANYRING_USER_IOPOLL_H

#include <stdint.h>
#include "user/types.h"

/* ip_flags: what the poller saw of a request (hybrid estimates) */
#define AR_IP_SEEN	(1U << 0)	/* a poll pass ran with it first in the list */
#define AR_IP_EXACT	(1U << 1)	/* ... and a later one found it still there */
#define AR_IP_SLEPT	(1U << 2)	/* hybrid: the poller slept for it */

struct ar_iopoll_entry {
	struct ar_iopoll_entry *ip_next;	/* the ring's IOPOLL list (ctx->lock) */
	const struct ar_backend *be;	/* the device's backend: ->iopoll */
	void *dev;
	uint64_t submit_ns;		/* when it was issued (CLOCK_MONOTONIC) */
	uint32_t slept_ns;		/* hybrid: the sleep taken for it */
	uint8_t ip_flags;		/* AR_IP_* (ctx->lock) */
	bool polled;			/* on the list (else only counted) */
};

/*
 * Before the I/O goes to the device: counted, and when polled, on the
 * list; -ECANCELED once the ring is exiting.
 */
int ar_iopoll_add(struct ar_uctx *ctx, struct ar_iopoll_entry *e);
/*
 * The list alone, for I/O whose backend waits for it at exit on its own
 * (direct.c's AIO): no device count, no ar_iopoll_io_end()
 */
int ar_iopoll_link(struct ar_uctx *ctx, struct ar_iopoll_entry *e);
/* the device is done (done: its completion feeds the estimates), or refused it */
void ar_iopoll_del(struct ar_uctx *ctx, struct ar_iopoll_entry *e, bool done);
/* the I/O is over: ring exit stops waiting for it (from_done: last touch of ctx) */
void ar_iopoll_io_end(struct ar_uctx *ctx, bool from_done);

int ar_iopoll_check(struct ar_uctx *ctx, unsigned min_events,
		    uint64_t deadline_ns);
bool ar_iopoll_reap(struct ar_uctx *ctx);
void ar_iopoll_forget(struct ar_uctx *ctx);
void ar_iopoll_exit(struct ar_uctx *ctx);

#endif
