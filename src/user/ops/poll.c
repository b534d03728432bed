/* SPDX-License-Identifier: MIT */
/*
 * poll.c - IORING_OP_POLL_ADD and IORING_OP_POLL_REMOVE, as the kernel's
 * io_uring/poll.c: a oneshot poll completes with the ready mask, a
 * multishot one (IORING_POLL_ADD_MULTI) posts it with IORING_CQE_F_MORE
 * on each readiness edge and stays armed; POLL_REMOVE cancels one by
 * user_data or updates its events and user_data in place. The waiting is
 * the readiness backend's (user/poll.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include "user/ops/ops.h"
#include "user/types.h"
#include "user/lock.h"
#include "user/poll.h"
#include "user/aiopoll.h"
#include <sys/epoll.h>
#include "user/complete.h"
#include "user/submit.h"
#include "user/ringfd.h"

/* the poll bits the kernel keeps of poll32_events (demangle_poll) */
#define AR_POLL_KNOWN (POLLIN | POLLOUT | POLLPRI | POLLERR | POLLHUP |	\
		       POLLNVAL | POLLRDNORM | POLLRDBAND | POLLWRNORM |	\
		       POLLWRBAND | POLLMSG | POLLRDHUP)

#define AR_POLL_UPDATE_FLAGS (IORING_POLL_UPDATE_EVENTS |		\
			      IORING_POLL_UPDATE_USER_DATA |		\
			      IORING_POLL_ADD_MULTI)

struct ar_poll_update {
	__u64 old_user_data;
	__u64 new_user_data;
	__u32 events;
	bool update_events;
	bool update_user_data;
};

/* io_poll_parse_events: other bits are dropped, not refused */
static __u32 ar_poll_parse_events(__u32 events)
{
	return (events & (AR_POLL_KNOWN | EPOLLEXCLUSIVE)) | AR_POLL_UNMASK;
}

int ar_poll_add_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_poll_add *pa = ar_req_data(req, struct ar_poll_add);
	__u32 flags;

	if (sqe->buf_index || sqe->off || sqe->addr)
		return -EINVAL;
	flags = sqe->len;
	/* IORING_POLL_ADD_LEVEL too: the kernel refuses it here (6.18) */
	if (flags & ~IORING_POLL_ADD_MULTI)
		return -EINVAL;
	if ((flags & IORING_POLL_ADD_MULTI) && (req->flags & AR_REQ_F_SKIP_CQE))
		return -EINVAL;
	pa->events = ar_poll_parse_events(sqe->poll32_events);
	pa->multi = flags & IORING_POLL_ADD_MULTI;
	return 0;
}

/* what the file reports now, or -EBADF */
static int ar_poll_now(struct ar_ureq *req, __u32 events, __u32 *mask)
{
	struct pollfd pfd = { .fd = req->fd, .events = (short)events };
	void *ring;

	/* poll(2) skips a negative fd (revents 0): it would be armed */
	if (req->fd < 0)
		return -EBADF;
	/* a user ring's fd: as the kernel's io_uring_poll() finds it now */
	ring = ar_engine_obj(req->fd, &ar_user_engine);
	if (ring)
		ar_ring_fd_clear(ring);
	if (poll(&pfd, 1, 0) < 0)
		return -errno;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	*mask = (__u32)(unsigned short)pfd.revents;
	return 0;
}

/*
 * The first issue looks at the file (the kernel's vfs_poll at arming);
 * after readiness the reaper hands the events over (req->poll_res). A
 * multishot poll does not look first: arming registers it, which queues
 * an edge if the file is ready, so its first CQE is posted once.
 */
int ar_poll_add_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_poll_add *pa = ar_req_data(req, struct ar_poll_add);
	__u32 mask = req->poll_res;
	int ret;

	(void)issue_flags;
	req->poll_res = 0;
	if (!mask) {
		if (pa->multi && !(req->flags & AR_REQ_F_POLLED)) {
			if (fcntl(req->fd, F_GETFD) < 0)
				return -EBADF;
			return AR_ISSUE_AGAIN;
		}
		/*
		 * Nor does one AIO polls: its arming looks at the file (and
		 * completes at once if it is ready), as the kernel's vfs_poll()
		 * at arming does (aiopoll.h).
		 */
		if (!(req->flags & AR_REQ_F_POLLED) &&
		    ar_aiopoll_wanted(req, pa->events))
			return AR_ISSUE_AGAIN;
		ret = ar_poll_now(req, pa->events, &mask);
		if (ret)
			return ret;
	}
	mask &= pa->events;
	if (!mask)
		return AR_ISSUE_AGAIN;
	if (!pa->multi)
		return (int)mask;
	/* stays armed; a full CQ ends it, the mask in its final CQE */
	if (ar_req_post_more(req, (int)mask, IORING_CQE_F_MORE))
		return AR_ISSUE_AGAIN;
	return (int)mask;
}

int ar_poll_remove_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_poll_update *upd = ar_req_data(req, struct ar_poll_update);
	__u32 flags;

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	flags = sqe->len;
	if (flags & ~AR_POLL_UPDATE_FLAGS)
		return -EINVAL;
	/* meaningless without an update */
	if (flags == IORING_POLL_ADD_MULTI)
		return -EINVAL;
	upd->old_user_data = sqe->addr;
	upd->update_events = flags & IORING_POLL_UPDATE_EVENTS;
	upd->update_user_data = flags & IORING_POLL_UPDATE_USER_DATA;
	upd->new_user_data = sqe->off;
	if (!upd->update_user_data && upd->new_user_data)
		return -EINVAL;
	if (upd->update_events)
		upd->events = ar_poll_parse_events(sqe->poll32_events);
	else if (sqe->poll32_events)
		return -EINVAL;
	return 0;
}

/*
 * The armed POLL_ADD with this user_data, taken off its fd: 0;
 * -EALREADY when it is being issued after readiness (a remove instead
 * marks it: it ends -ECANCELED by itself, *found stays NULL, 0);
 * -ENOENT when there is none. Under ctx->lock.
 */
static int ar_poll_find_disarm_locked(struct ar_uctx *ctx, __u64 user_data,
				      bool remove, struct ar_ureq **found)
{
	struct ar_ureq *cur;

	for (cur = ctx->inflight; cur; cur = cur->if_next) {
		if (cur->opcode != IORING_OP_POLL_ADD || cur->user_data != user_data)
			continue;
		/*
		 * A multishot's CQE is out and the poll thread is arming it
		 * again: the kernel's remove finds it (its task work is done
		 * by the time the program sees the CQE). Answered -EALREADY,
		 * the multishot would live on and its end never come.
		 */
		if (ar_req_state(cur) == AR_REQ_ISSUING &&
		    (cur->poll_flags & AR_POLLF_BUSY)) {
			if (!remove)
				return -EALREADY;
			cur->poll_flags |= AR_POLLF_CANCEL;
			return 0;
		}
		if (ar_req_state(cur) != AR_REQ_ARMED || !ar_poll_disarm_locked(cur))
			continue;
		/* this thread's now, as a request being issued */
		ar_req_set_state(cur, AR_REQ_ISSUING);
		*found = cur;
		return 0;
	}
	return -ENOENT;
}

int ar_poll_remove_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_poll_update *upd = ar_req_data(req, struct ar_poll_update);
	struct ar_uctx *ctx = req->ctx;
	struct ar_ureq *preq = NULL;
	struct ar_poll_add *pa;
	int ret;

	(void)issue_flags;
	ar_ctx_lock(ctx);
	ret = ar_poll_find_disarm_locked(ctx, upd->old_user_data,
					 !upd->update_events &&
					 !upd->update_user_data, &preq);
	ar_ctx_unlock(ctx);
	if (ret || !preq)
		return ret;
	if (!upd->update_events && !upd->update_user_data) {
		/* the remove's CQE first, then the poll's, as the kernel posts them */
		ar_req_complete(req, 0, 0);
		ar_req_set_fail(preq);
		ar_req_complete(preq, -ECANCELED, 0);
		return AR_ISSUE_QUEUED;
	}
	/* the event bits change; oneshot or multishot stays as it was */
	pa = ar_req_data(preq, struct ar_poll_add);
	if (upd->update_events)
		pa->events = (pa->events & ~0xffffU) | (upd->events & 0xffffU) |
			     AR_POLL_UNMASK;
	/* under the lock: cancels look at every request's user_data */
	if (upd->update_user_data) {
		ar_ctx_lock(ctx);
		preq->user_data = upd->new_user_data;
		ar_ctx_unlock(ctx);
	}
	/* armed again as at its first issue (it may be ready at once) */
	ar_req_issue(preq, AR_ISSUE_NONBLOCK);
	return 0;
}
