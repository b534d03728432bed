/* SPDX-License-Identifier: MIT */
/*
 * poll.h - the readiness backend (poll.c): requests waiting for a
 * pollable file (pipe, socket, eventfd, tty, ...) to become ready, served
 * by one epoll instance per ring. The kernel's poll.c and apoll.
 *
 * The contract the opcodes rely on (ops/rw.c, ops/net.c, and POLL_ADD
 * in poll.c itself):
 *
 *  - An opcode with .pollin or .pollout in ops/opdef.c whose issue returns
 *    AR_ISSUE_AGAIN under AR_ISSUE_NONBLOCK, on a file whose backend is
 *    .pollable, is armed here and issued again (AR_ISSUE_NONBLOCK) when
 *    the file is ready. The first try is made at once, as the kernel
 *    does; a request that sets AR_REQ_F_POLL_FIRST at prep (the kernel's
 *    IORING_RECVSEND_POLL_FIRST) is armed without it.
 *  - A request issued again after readiness stays on its fd's list while
 *    it runs: if it answers AR_ISSUE_AGAIN it is armed again with no
 *    epoll_ctl(), and readiness that came while it ran makes it try once
 *    more at once (no edge is lost). This is how a multishot opcode stays
 *    armed: it posts each CQE with ar_req_post_more() (IORING_CQE_F_MORE)
 *    and returns AR_ISSUE_AGAIN once the file answered "would block";
 *    its final CQE is its result, as any request's. It must not return
 *    AR_ISSUE_AGAIN while the file may still be ready (readiness is
 *    reported by edges: none would come for what is already there).
 *    Issued again after readiness, an opcode answers a result,
 *    AR_ISSUE_AGAIN or AR_ISSUE_PUNT, never AR_ISSUE_QUEUED: the request
 *    is still on its fd's list, which the core takes it off after.
 *    Before the first try, no epoll_ctl() is made: an opcode that needs no
 *    wait costs nothing here.
 *  - A request waiting here is AR_REQ_ARMED: ASYNC_CANCEL, sync cancel,
 *    a LINK_TIMEOUT and ring exit take it (ar_poll_disarm_locked()) and
 *    complete it -ECANCELED. While it is being issued again it is
 *    AR_REQ_ISSUING, out of their reach until it waits again.
 *
 * A request that waits here holds its file, as the kernel's request holds
 * a reference from its issue: from its first wait its fd is a dup of the
 * program's (AR_REQ_F_FD_REF, app_fd the program's number, which its fd's
 * list and the epoll registration keep using), so a close(2) of the
 * number leaves it waiting and issuing on the same file (a read then sees
 * the pipe's EOF when the other end goes). Fixed files are the ring's
 * own dups already.
 *
 * A oneshot POLL_ADD of a pipe, FIFO, socket or character device waits
 * through AIO instead (aiopoll.h), whose events the direct backend's
 * reaps hand over; it is armed, disarmed and cancelled through the same
 * calls (AR_POLLF_AIO), and is on no fd's list.
 *
 * Who reaps readiness: the thread waiting in io_uring_enter (it sleeps
 * in epoll_wait() on the epoll fd with its eventfd in the set,
 * ar_poll_sleep(); a second waiter sleeps in ppoll() on both), else the
 * service thread
 * (svc.c), which gives a waiter a head start. Both go through
 * ar_poll_reap(), one at a time.
 */
#ifndef ANYRING_USER_POLL_H
#define ANYRING_USER_POLL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include "user/types.h"

/*
 * AR_ISSUE_REQUEUE: a request that is still ready after its share (a
 * multishot receive, the kernel's IOU_REQUEUE) goes behind the batch
 * this thread is issuing, a reaper's ready requests or a submit's, so
 * the others go first, as task work queued behind the rest; the batch's
 * end issues it again. True when taken; false outside a batch (the
 * caller goes on with it).
 */
struct ar_poll_batch {
	struct ar_ureq *head, **tail;	/* requeued, in order */
	struct ar_uctx *ctx;
	struct ar_poll_batch *outer;
};
extern __thread struct ar_poll_batch *ar_poll_cur_batch;
void ar_poll_batch_drain(struct ar_poll_batch *b);
bool ar_poll_requeue(struct ar_ureq *req);

/* inline: every submit that issues requests opens one */
static inline void ar_poll_batch_begin(struct ar_uctx *ctx,
				       struct ar_poll_batch *b)
{
	b->head = NULL;
	b->tail = &b->head;
	b->ctx = ctx;
	b->outer = ar_poll_cur_batch;
	ar_poll_cur_batch = b;
}

static inline void ar_poll_batch_end(struct ar_poll_batch *b)
{
	if (__builtin_expect(b->head != NULL, 0))
		ar_poll_batch_drain(b);
	ar_poll_cur_batch = b->outer;
}

/* what every poll reports, asked for or not (the kernel's IO_POLL_UNMASK) */
#define AR_POLL_UNMASK		(EPOLLERR | EPOLLHUP | EPOLLRDHUP)

/* req->poll_flags, under ctx->lock */
#define AR_POLLF_BUSY		(1U << 0)	/* being issued after readiness */
#define AR_POLLF_AGAIN		(1U << 1)	/* ... and readiness came meanwhile */
#define AR_POLLF_CANCEL		(1U << 2)	/* ... and a cancel came: ends at rearm */
#define AR_POLLF_EXCL		(1U << 3)	/* EPOLLEXCLUSIVE: one per edge */
#define AR_POLLF_AIO		(1U << 4)	/* armed through AIO, on no fd's list (aiopoll.h) */
#define AR_POLLF_FIRED		(1U << 5)	/* ... whose event came while it was armed */
/* it ends only when cancelled (AR_REQ_F_POLL_ERR): one found busy is found */
#define AR_POLLF_CANCEL_ONLY	(1U << 6)

/* ar_poll_arm()'s answer besides 0 and -errno: try the operation again now */
#define AR_POLL_RETRY		1

/*
 * Wait for events on req->fd (EPOLLEXCLUSIVE among them: an edge wakes
 * the first such request only, as an exclusive wait queue entry). 0: armed (or completed by its link
 * timeout); AR_POLL_RETRY: the file may be ready already, issue again;
 * -errno: it cannot wait here (the caller punts it, or fails it).
 */
int ar_poll_arm(struct ar_ureq *req, __u32 events);
/* the program's number for req's fd: its list, a cancel by fd */
static inline int ar_req_app_fd(const struct ar_ureq *req)
{
	return req->flags & AR_REQ_F_FD_REF ? req->app_fd : req->fd;
}
/* the ring was forked: watch the family's cancel eventfd (poll.c) */
void ar_poll_xcancel_watch(struct ar_uctx *ctx);
void ar_poll_xcancel_ensure(struct ar_uctx *ctx);
/* Take an armed request off its fd; true if it was armed. Under ctx->lock. */
bool ar_poll_disarm_locked(struct ar_ureq *req);
/*
 * A request issued after readiness is done (or punted): off its fd's
 * list. True if a cancel reached it meanwhile.
 */
bool ar_poll_done(struct ar_ureq *req);
/* a POLL_ADD leaves the ring (AR_REQ_F_HASHED); under ctx->lock */
void ar_poll_unhash_locked(struct ar_ureq *req);

/* a send armed before req on its fd still waits: req waits behind it */
bool ar_poll_send_behind(struct ar_ureq *req);
/*
 * The service thread's: dispatch what is ready, how many requests it
 * reached; on a DEFER_TASKRUN ring, tell the task instead (0).
 */
unsigned ar_poll_reap(struct ar_uctx *ctx);
/* is readiness the task's own, reaped only where it enters (DEFER_TASKRUN)? */
bool ar_poll_task_reaps(struct ar_uctx *ctx);
/* ... and was the task told of readiness it has not reaped yet? */
bool ar_poll_deferred(struct ar_uctx *ctx);
/* the program is about to poll: tell DEFER_TASKRUN rings of readiness */
void ar_poll_prepoll(void);
/* ... or to read fd: readiness of requests armed on it is reaped first */
void ar_poll_preread(int fd);
/* a ring is about to signal its registered eventfd, the program's fd */
void ar_poll_uring_signal(int fd);
/* ... or -EBUSY: another thread is reaping (it dispatches what is ready) */
int ar_poll_try_reap(struct ar_uctx *ctx);
/*
 * A waiter's sleep in epoll_wait() on the epoll fd, reaping as it wakes:
 * > 0 requests issued, 0 woken, -ETIMEDOUT, -EINTR; -EAGAIN: sleep in
 * ppoll() instead (another waiter owns this sleep, or a reaper runs).
 * Between ar_poll_sleep_begin() and ar_poll_sleep_end().
 */
int ar_poll_sleep(struct ar_uctx *ctx, struct ar_waiter *w, __u64 deadline_ns,
		  const sigset_t *sigmask);
/*
 * A waiter about to sleep: the epoll fd to include (-1: nothing armed);
 * when it was one, ar_poll_sleep_end() once awake.
 */
int ar_poll_sleep_begin(struct ar_uctx *ctx);
void ar_poll_sleep_end(struct ar_uctx *ctx);
/*
 * does a waiter sleep on the epoll fd, or was the task told of readiness
 * it reaps at its next enter (DEFER_TASKRUN)? Then svc.c need not.
 */
bool ar_poll_has_sleepers(struct ar_uctx *ctx);
/* ... for the service thread, armed or not (-1: no backend yet) */
int ar_poll_epfd(struct ar_uctx *ctx);
/* ar_poll_reap() if anything is armed, else 0 */
unsigned ar_poll_reap_armed_slow(struct ar_uctx *ctx);

/*
 * The same behind a peek: a ring that never armed a poll has no epoll
 * backend (relaxed: a hint; the callee loads it again with acquire)
 */
static inline unsigned ar_poll_reap_armed(struct ar_uctx *ctx)
{
	return __atomic_load_n(&ctx->svc.poll, __ATOMIC_RELAXED) ?
	       ar_poll_reap_armed_slow(ctx) : 0;
}
/*
 * Set by a thread that made a ring fd or an eventfd readable; the end
 * of its enter runs other rings' polls that wait for it.
 */
extern __thread bool ar_poll_readied;
void ar_poll_run_others(struct ar_uctx *self);
/* the ring ends: what was held for its task waits again, to be cancelled */
void ar_poll_unhold(struct ar_uctx *ctx);
/* ring exit, after every armed request was cancelled; and the last free */
void ar_poll_exit(struct ar_uctx *ctx);
void ar_poll_free(struct ar_uctx *ctx);
void ar_poll_forget(struct ar_uctx *ctx);

/* POLL_ADD: a oneshot poll fires and completes, a multishot one posts */
struct ar_poll_add {
	__u32 events;		/* EPOLL* asked for (EXCLUSIVE too), plus AR_POLL_UNMASK */
	bool multi;		/* IORING_POLL_ADD_MULTI */
	unsigned uring_seq;	/* its fd's io_uring signals seen (poll.c): ctx->lock */
	struct ar_aiopoll *ap;	/* its iocb while armed through AIO: ctx->lock */
};

/* the POLL_ADD and POLL_REMOVE opcodes (the end of poll.c) */
int ar_poll_add_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_poll_add_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_poll_remove_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_poll_remove_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
