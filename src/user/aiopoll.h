/* SPDX-License-Identifier: MIT */
/*
 * aiopoll.h - oneshot POLL_ADD through native AIO's IOCB_CMD_POLL
 * (aiopoll.c), beside the epoll backend (poll.c), which serves the rest.
 *
 * The kernel completes a poll from its wakeup's key: the events the
 * file reported as it woke its waiters, even when they are gone by the
 * time the completion runs. epoll looks at the file again when it hands
 * an edge over and drops it if it is no longer ready. AIO's poll, like
 * io_uring's, is on the file's wait queue and completes from the key.
 * A oneshot POLL_ADD on a pipe, FIFO, socket or character device is
 * armed there (struct ar_file's aio_poll); anon-inode files (eventfd,
 * timerfd, signalfd, epoll) stay with epoll: an eventfd wakes its waiters
 * with current->in_eventfd set, where AIO's completion could not signal
 * its own eventfd. So are EPOLLEXCLUSIVE polls (AIO has no exclusive wait).
 *
 * A request armed here is AR_REQ_ARMED with AR_REQ_F_POLLED and
 * AR_POLLF_AIO: the cancels take it through ar_poll_disarm_locked() as
 * any armed poll. Its iocb lives in a struct ar_aiopoll that outlives a
 * cancelled request, until the kernel has posted the iocb's event.
 */
#ifndef ANYRING_USER_AIOPOLL_H
#define ANYRING_USER_AIOPOLL_H

#include <stdbool.h>
#include <linux/types.h>

struct ar_ureq;
struct ar_uctx;

/* may req wait through AIO? (a oneshot POLL_ADD on an AIO-pollable file) */
bool ar_aiopoll_wanted(const struct ar_ureq *req, __u32 events);
/*
 * Arm req: 0 armed (or ended by its link timeout); AR_POLL_RETRY: it fired
 * already, issue it again (req->poll_res holds the events); -ECANCELED;
 * -EOPNOTSUPP: AIO refused it, epoll serves it.
 */
int ar_aiopoll_arm(struct ar_ureq *req, __u32 events);
/* a cancel takes an armed request (under ctx->lock); its iocb is cancelled */
void ar_aiopoll_disarm_locked(struct ar_ureq *req);
/*
 * An IOCB_CMD_POLL event from the AIO ring (aio.c), data its tagged
 * struct ar_aiopoll: the request it is for, now this thread's to issue
 * again, or NULL (it was cancelled; the iocb is freed).
 */
struct ar_ureq *ar_aiopoll_event(struct ar_uctx *ctx, __u64 data, __s64 res);
/* the ring's iocbs, at its end (every event has come) */
void ar_aiopoll_free(struct ar_uctx *ctx);

/* an AIO event's data with this bit set is a poll's (requests are aligned) */
#define AR_AIOPOLL_TAG		1ULL

#endif
