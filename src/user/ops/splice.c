/* SPDX-License-Identifier: MIT */
/*
 * splice.c - SPLICE and TEE (the kernel's io_uring/splice.c).
 *
 * The output is the request's file (sqe->fd, IOSQE_FIXED_FILE allowed);
 * the input is sqe->splice_fd_in, a fixed slot with SPLICE_F_FD_IN_FIXED.
 * Prep: splice_flags beyond SPLICE_F_FD_IN_FIXED | SPLICE_F_ALL -EINVAL;
 * TEE also refuses offsets (-EINVAL). The kernel always runs both in
 * io-wq (REQ_F_FORCE_ASYNC), blocking in do_splice()/do_tee() until some
 * data moved; so does this engine, in a worker, with the result of
 * splice(2)/tee(2) on the same arguments. A result other than len (a
 * short transfer or an error) fails the link, as the kernel's.
 *
 * The worker does not sleep inside the system call: it calls it with
 * SPLICE_F_NONBLOCK added and, while that answers -EAGAIN, waits in
 * ppoll() for the side that is not ready (the input readable, the output
 * writable), a bounded wait at a time, so that a ring being closed never
 * waits on a pipe nobody writes, and a cancel that finds it running ends
 * it with -ERESTARTSYS (-512), the kernel's CQE when its cancel signals
 * the worker (D80). SPLICE_F_NONBLOCK asked by the application makes
 * -EAGAIN the answer, as in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include "user/ops/splice.h"
#include "user/rsrc.h"
#include "user/types.h"

#define AR_SPLICE_F_FD_IN_FIXED	(1U << 31)
#define AR_SPLICE_F_ALL		0xfU	/* MOVE | NONBLOCK | MORE | GIFT */
#define AR_SPLICE_WAIT_MS	50	/* how often a waiting worker looks at the ring */
#define AR_ERESTARTSYS		512	/* the kernel's, posted by an interrupted splice */

struct ar_splice {
	__s64 off_in;		/* -1: the file position (or a pipe) */
	__s64 off_out;
	__u32 len;
	__u32 flags;
	int fd_in;
	bool tee;
};

static int ar_splice_common(struct ar_splice *sp,
			    const struct io_uring_sqe *sqe)
{
	sp->len = sqe->len;
	sp->flags = sqe->splice_flags;
	if (sp->flags & ~(AR_SPLICE_F_FD_IN_FIXED | AR_SPLICE_F_ALL))
		return -EINVAL;
	sp->fd_in = sqe->splice_fd_in;
	return 0;
}

int ar_splice_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_splice *sp = ar_req_data(req, struct ar_splice);

	sp->off_in = (__s64)sqe->splice_off_in;
	sp->off_out = (__s64)sqe->off;
	return ar_splice_common(sp, sqe);
}

int ar_tee_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_splice *sp = ar_req_data(req, struct ar_splice);

	if (sqe->splice_off_in || sqe->off)
		return -EINVAL;
	sp->tee = true;
	return ar_splice_common(sp, sqe);
}

/* one call; the offsets are copies, so a retry starts where this one did */
static long ar_splice_call(const struct ar_splice *sp, int in, int out,
			   unsigned flags)
{
	loff_t off_in = sp->off_in, off_out = sp->off_out;

	if (sp->tee)
		return tee(in, out, sp->len, flags);
	return splice(in, sp->off_in == -1 ? NULL : &off_in,
		      out, sp->off_out == -1 ? NULL : &off_out, sp->len, flags);
}

/*
 * Wait (at most AR_SPLICE_WAIT_MS) for the side that is not ready. When
 * both look ready yet the call would block, sleep a millisecond instead
 * of asking again at once.
 */
static void ar_splice_wait(int in, int out)
{
	struct pollfd p[2] = {
		{ .fd = in, .events = POLLIN },
		{ .fd = out, .events = POLLOUT },
	};
	struct pollfd wait[2];
	struct timespec ts = { 0, AR_SPLICE_WAIT_MS * 1000000L };
	nfds_t n = 0;

	if (poll(p, 2, 0) < 0)
		return;
	for (unsigned i = 0; i < 2; i++)
		if (!p[i].revents)
			wait[n++] = p[i];
	if (!n) {
		ts.tv_nsec = 1000000L;
		nanosleep(&ts, NULL);
		return;
	}
	(void)ppoll(wait, n, &ts, NULL);
}

/*
 * do_splice() looks at the files' modes first (-EBADF); splice(2) answers
 * an offset on a pipe (-ESPIPE) before. Looked at only once the call
 * failed.
 */
static int ar_splice_err(int in, int out, int err)
{
	int fin = fcntl(in, F_GETFL), fout = fcntl(out, F_GETFL);

	if (fin >= 0 && fout >= 0 && ((fin & O_ACCMODE) == O_WRONLY ||
				      (fout & O_ACCMODE) == O_RDONLY))
		return -EBADF;
	return -err;
}

/* splice or tee until something moved, an error, or the ring's end */
static int ar_splice_run(struct ar_ureq *req, const struct ar_splice *sp,
			 int in)
{
	unsigned flags = sp->flags & ~AR_SPLICE_F_FD_IN_FIXED;
	long ret;

	for (;;) {
		ret = ar_splice_call(sp, in, req->fd, flags | SPLICE_F_NONBLOCK);
		if (ret >= 0)
			return (int)ret;
		if (errno != EAGAIN || (flags & SPLICE_F_NONBLOCK))
			return ar_splice_err(in, req->fd, errno);
		/*
		 * A cancel that found it running (the kernel's signal to its
		 * worker, ar_cancel_extract_locked()): -ERESTARTSYS, which
		 * the kernel posts as it is. A flag, relaxed.
		 */
		if (__atomic_load_n(&req->interrupted, __ATOMIC_RELAXED))
			return -AR_ERESTARTSYS;
		/* acquire pairs with ar_user_close()'s release store */
		if (atomic_load_explicit(&req->ctx->dead, memory_order_acquire))
			return -EINTR;
		ar_splice_wait(in, req->fd);
	}
}

/* is a plain fd open? (the kernel looks both files up before a zero-length splice) */
static bool ar_splice_fd_ok(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

int ar_splice_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_splice *sp = ar_req_data(req, struct ar_splice);
	struct ar_rsrc_node *node = NULL;
	int in = sp->fd_in, ret;

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;		/* REQ_F_FORCE_ASYNC */
	if (!req->file_node && !ar_splice_fd_ok(req->fd)) {
		ret = -EBADF;		/* the output's lookup, before the op */
		goto done;
	}
	if (sp->flags & AR_SPLICE_F_FD_IN_FIXED) {
		node = ar_rsrc_get_file(req->ctx, (unsigned)sp->fd_in);
		if (!node) {
			ret = -EBADF;
			goto done;
		}
		in = node->fd;
	} else if (!ar_splice_fd_ok(in)) {
		ret = -EBADF;
		goto done;
	}
	ret = sp->len ? ar_splice_run(req, sp, in) : 0;
	ar_rsrc_put(req->ctx, node);
done:
	if (ret >= 0 && (__u32)ret != sp->len)
		req->flags |= AR_REQ_F_SHORT;
	return ret;
}
