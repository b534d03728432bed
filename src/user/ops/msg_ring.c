/* SPDX-License-Identifier: MIT */
/*
 * msg_ring.c - IORING_OP_MSG_RING, as the kernel's io_uring/msg_ring.c:
 * IORING_MSG_DATA posts a CQE (off as user_data, len as res) into another
 * ring's CQ, IORING_MSG_SEND_FD installs one of this ring's registered
 * files into the other ring's fixed-file table (and posts a CQE there
 * unless IORING_MSG_RING_CQE_SKIP).
 *
 * The target is found through the seam: a user-engine ring fd (or a dup,
 * or a registered file holding one) names its ctx. The target's CQE is
 * posted as a completion from another thread is: under its ctx->lock,
 * then its waiters are woken; where completions go through the target's
 * task work (DEFER_TASKRUN, complete=deferred or punt), it goes there too,
 * carried by a request made for it (AR_REQ_F_AUX), as the kernel queues
 * one on the target's local work list.
 *
 * A kernel ring as the target: IORING_MSG_DATA goes through the kernel's
 * own IORING_REGISTER_SEND_MSG_RING (6.13+), which posts the same CQE;
 * IORING_MSG_SEND_FD cannot (the file is this engine's) and answers
 * -EBADFD, the kernel's answer for a target that is not one of its rings
 * (docs/semantics.md D90).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/engine.h"
#include "user/types.h"
#include "user/lock.h"
#include "user/ctx.h"
#include "user/complete.h"
#include "user/tw.h"
#include "user/rsrc.h"
#include "user/ops/msg_ring.h"

#define AR_MSG_RING_CQE_SKIP	(1U << 0)
#define AR_MSG_RING_FLAGS_PASS	(1U << 1)
#define AR_MSG_RING_MASK	(AR_MSG_RING_CQE_SKIP | AR_MSG_RING_FLAGS_PASS)

enum { AR_MSG_DATA, AR_MSG_SEND_FD };

struct ar_msg {
	__u64 user_data;
	__u64 cmd;
	__u32 len;
	__u32 src_fd;
	__u32 dst_fd;		/* the CQE's flags with FLAGS_PASS */
	__u32 flags;
};

int ar_msg_ring_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_msg *msg = ar_req_data(req, struct ar_msg);

	if (sqe->buf_index || sqe->personality)
		return -EINVAL;
	msg->user_data = sqe->off;
	msg->len = sqe->len;
	msg->cmd = sqe->addr;
	msg->src_fd = (__u32)sqe->addr3;
	msg->dst_fd = sqe->file_index;
	msg->flags = sqe->msg_ring_flags;
	if (msg->flags & ~AR_MSG_RING_MASK)
		return -EINVAL;
	return 0;
}

/*
 * The target's CQE by way of its task work: a request of the target's
 * own, allocated here (the target's request cache belongs to its
 * submitter) and freed, not cached, when the target's task has posted
 * it (req.c, AR_REQ_F_AUX).
 */
static int ar_msg_post_tw(struct ar_uctx *tctx, __u64 user_data, int res,
			  __u32 cflags)
{
	struct ar_ureq *aux = calloc(1, sizeof(*aux));

	if (!aux)
		return -ENOMEM;
	aux->ctx = tctx;
	aux->fd = -1;
	aux->opcode = IORING_OP_MSG_RING;
	aux->flags = AR_REQ_F_AUX | AR_REQ_F_NOFAIL;
	aux->user_data = user_data;
	aux->res = res;
	aux->cflags = cflags;
	if (!ar_tw_add(aux)) {
		free(aux);
		return 1;
	}
	return 0;
}

/*
 * Post (user_data, res, cflags) into the target's CQ. A full CQ parks it
 * on the overflow list, as 6.18's io_post_aux_cqe() does: the message is
 * delivered and the sender gets 0. The target's exit waits for the post
 * before it closes the ring fd the post signals (dev_inflight, which
 * ar_iopoll_exit() waits for); a target already exiting takes nothing,
 * as its CQ is not read any more.
 */
static int ar_msg_post(struct ar_uctx *tctx, __u64 user_data, int res,
		       __u32 cflags)
{
	struct ar_comp_batch b;
	int ret = 0;

	ar_batch_init(&b);
	ar_ctx_lock(tctx);
	if (tctx->exiting) {
		ar_ctx_unlock(tctx);
		return 0;
	}
	/* relaxed: under ctx->lock, which ar_cancel_all() takes before exit reads it */
	atomic_fetch_add_explicit(&tctx->dev_inflight, 1, memory_order_relaxed);
	if (ar_tw_wanted(tctx)) {
		ar_ctx_unlock(tctx);
		ret = ar_msg_post_tw(tctx, user_data, res, cflags);
		if (ret <= 0)
			goto out;
		ar_ctx_lock(tctx);
	}
	ret = 0;
	ar_cq_post_locked(tctx, user_data, res, cflags);
	b.posted = true;
	ar_complete_timeouts_locked(tctx, &b);
	ar_ctx_unlock(tctx);
	ar_batch_finish(tctx, &b, false);
out:
	/* release: pairs with the acquire in ar_iopoll_exit() */
	atomic_fetch_sub_explicit(&tctx->dev_inflight, 1, memory_order_release);
	return ret;
}

static int ar_msg_data(struct ar_uctx *tctx, struct ar_msg *msg)
{
	__u32 cflags = 0;

	if (msg->src_fd || (msg->flags & ~AR_MSG_RING_FLAGS_PASS))
		return -EINVAL;
	if (!(msg->flags & AR_MSG_RING_FLAGS_PASS) && msg->dst_fd)
		return -EINVAL;
	/* written once by ENABLE_RINGS; a stale read only says disabled */
	if (__atomic_load_n(&tctx->disabled, __ATOMIC_ACQUIRE))
		return -EBADFD;
	if (msg->flags & AR_MSG_RING_FLAGS_PASS)
		cflags = msg->dst_fd;
	return ar_msg_post(tctx, msg->user_data, (int)msg->len, cflags);
}

/* a dup of this ring's registered file src_fd, or -EBADF */
static int ar_msg_grab_file(struct ar_uctx *ctx, unsigned src_fd)
{
	struct ar_rsrc_node *node = ar_rsrc_get_file(ctx, src_fd);
	int fd;

	if (!node)
		return -EBADF;
	fd = ar_fd_dup_high(node->fd);
	ar_rsrc_put(ctx, node);
	return fd < 0 ? -errno : fd;
}

static int ar_msg_send_fd(struct ar_ureq *req, struct ar_uctx *tctx,
			  struct ar_msg *msg)
{
	bool alloc = msg->dst_fd == IORING_FILE_INDEX_ALLOC;
	int fd, ret;

	if (msg->len)
		return -EINVAL;
	if (tctx == req->ctx)
		return -EINVAL;
	if (__atomic_load_n(&tctx->disabled, __ATOMIC_ACQUIRE))
		return -EBADFD;
	fd = ar_msg_grab_file(req->ctx, msg->src_fd);
	if (fd < 0)
		return fd;
	/* file_index is 1-based; 0 wraps to a slot no table has (-EINVAL) */
	ret = ar_rsrc_install_file(tctx, fd, alloc ? 0 : msg->dst_fd - 1, alloc);
	if (ret < 0 || (msg->flags & AR_MSG_RING_CQE_SKIP))
		return ret;
	/*
	 * The file is installed whatever happens now: a CQE that cannot be
	 * posted is -EOVERFLOW for the sender, as the kernel's.
	 */
	if (ar_msg_post(tctx, msg->user_data, ret, 0))
		return -EOVERFLOW;
	return ret;
}

/* a ring of the kernel's, or another file: the kernel decides (IORING_MSG_DATA) */
static int ar_msg_kernel(int fd, const struct ar_msg *msg)
{
	struct io_uring_sqe sqe;
	int ret;

	if (msg->cmd != AR_MSG_DATA)
		return -EBADFD;
	/* the SQE again, from what prep took of it (__io_msg_ring_prep's fields) */
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_MSG_RING;
	sqe.fd = fd;
	sqe.off = msg->user_data;
	sqe.addr = msg->cmd;
	sqe.len = msg->len;
	sqe.addr3 = msg->src_fd;
	sqe.file_index = msg->dst_fd;
	sqe.msg_ring_flags = msg->flags;
	ret = ar_sys_register((unsigned)-1, AR_REGISTER_SEND_MSG_RING, &sqe, 1);
	/*
	 * io_uring refused (ENOSYS, EPERM: no ring of the kernel's can be
	 * the target) or too old to know the call: not a ring we can reach
	 */
	if (ret == -ENOSYS || ret == -EPERM || ret == -EOPNOTSUPP)
		return -EBADFD;
	return ret;
}

int ar_msg_ring_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_msg *msg = ar_req_data(req, struct ar_msg);
	struct ar_uctx *tctx;
	int ret;

	(void)issue_flags;
	tctx = ar_uctx_of_fd(req->fd);
	if (!tctx) {
		if (fcntl(req->fd, F_GETFD) < 0)
			return -EBADF;
		return ar_msg_kernel(req->fd, msg);
	}
	/* the fd keeps it; this reference covers a close meanwhile */
	ar_uctx_get(tctx);
	switch (msg->cmd) {
	case AR_MSG_DATA:
		ret = ar_msg_data(tctx, msg);
		break;
	case AR_MSG_SEND_FD:
		ret = ar_msg_send_fd(req, tctx, msg);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	ar_uctx_put(tctx);
	return ret;
}
