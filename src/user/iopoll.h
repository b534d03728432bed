/* SPDX-License-Identifier: MIT */
/*
 * iopoll.h - a request's simdev I/O, and the IOPOLL list it may be on.
 *
 * READ/WRITE (rw.c) and FSYNC (fs.c) on a simdev hand the device a
 * struct ar_sim_io kept at the end of the request's opdata, after the
 * opcode's own data. On an IOPOLL ring the request also joins the ring's
 * list of polled requests (iopoll.c), which io_uring_enter(GETEVENTS)
 * polls, as the kernel's ctx->iopoll_list.
 */
#ifndef ANYRING_USER_IOPOLL_H
#define ANYRING_USER_IOPOLL_H

#include <stddef.h>
#include "user/types.h"
#include "simdev/simdev.h"

/* ip_flags: what the poller saw of a request (hybrid estimates) */
#define AR_IP_SEEN	(1U << 0)	/* a poll pass ran with it first in the list */
#define AR_IP_EXACT	(1U << 1)	/* ... and a later one found it still there */
#define AR_IP_SLEPT	(1U << 2)	/* hybrid: the poller slept for it */

struct ar_rw_sim {
	struct ar_sim_io io;
	struct ar_simdev *dev;		/* the request's reference, put at done */
	struct ar_rw_sim *ip_next;	/* the ring's IOPOLL list (ctx->lock) */
	uint32_t slept_ns;		/* hybrid: the sleep taken for it */
	uint8_t ip_flags;		/* AR_IP_* (ctx->lock) */
};

#define AR_RW_SIM_OFF	(AR_REQ_OPDATA - sizeof(struct ar_rw_sim))

static inline struct ar_rw_sim *ar_rw_sim(struct ar_ureq *req)
{
	return (struct ar_rw_sim *)(req->opdata + AR_RW_SIM_OFF);
}

static inline struct ar_ureq *ar_rw_sim_req(struct ar_rw_sim *s)
{
	return (struct ar_ureq *)((char *)s - AR_RW_SIM_OFF -
				  offsetof(struct ar_ureq, opdata));
}

/* rw.c: FSYNC and SYNC_FILE_RANGE on a simdev; false when req->fd is not one */
bool ar_rw_sim_fsync(struct ar_ureq *req, int *ret);
bool ar_rw_sim_sync_range(struct ar_ureq *req, int *ret);

/* iopoll.c: a polled request joins the list before it is submitted ... */
int ar_iopoll_add(struct ar_uctx *ctx, struct ar_rw_sim *s);
/* ... and leaves it when done (done: its completion feeds the estimates) */
void ar_iopoll_del(struct ar_uctx *ctx, struct ar_rw_sim *s, bool done);

/* iopoll.c: IOPOLL rings (io_iopoll_check), simdev I/O at ring exit */
int ar_iopoll_check(struct ar_uctx *ctx, unsigned min_events,
		    uint64_t deadline_ns);
bool ar_iopoll_reap(struct ar_uctx *ctx);
void ar_iopoll_exit(struct ar_uctx *ctx);


#endif
