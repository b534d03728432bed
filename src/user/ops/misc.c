/* SPDX-License-Identifier: MIT */
/*
 * misc.c - FTRUNCATE (the kernel's truncate.c), EPOLL_CTL and EPOLL_WAIT
 * (epoll.c), FIXED_FD_INSTALL and PIPE (openclose.c), URING_CMD
 * (uring_cmd.c) and RECV_ZC (net.c, zcrx.c).
 *
 * Each prep makes Linux 6.18's checks in its order; each issue is the
 * system call the kernel's handler wraps:
 *  - FTRUNCATE: ftruncate(2) in a worker (REQ_F_FORCE_ASYNC); its errors
 *    do not fail a link.
 *  - EPOLL_CTL: the event copied at prep (not for EPOLL_CTL_DEL), fault
 *    -EFAULT; epoll_ctl(2) inline.
 *  - EPOLL_WAIT: epoll_wait(2) with no timeout on the request's file; no
 *    event ready is "would block": the epoll fd is polled for POLLIN and
 *    the request issued again, as the kernel's (.pollin).
 *  - FIXED_FD_INSTALL: a new fd for a fixed file, O_CLOEXEC unless
 *    IORING_FIXED_FD_NO_CLOEXEC (receive_fd()); only with IOSQE_FIXED_FILE.
 *  - PIPE: pipe2(2), the two fds written to the app's int[2] with the
 *    fault-safe copy (a fault closes them: -EFAULT); with file_index, into
 *    the fixed table (a slot and the next, or two allocated) and the two
 *    slots written, O_CLOEXEC refused.
 *  - URING_CMD: no file this engine serves has ->uring_cmd but sockets
 *    (ops/net.c, ar_uring_cmd_sock()) and /dev/null (0): -EOPNOTSUPP.
 *  - RECV_ZC: no zero-copy receive queue can be registered on a user
 *    ring, so every SQE fails prep with -EINVAL, as the kernel's when the
 *    ifq index names none.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "lib/uaccess.h"
#include "user/ops/misc.h"
#include "user/rsrc.h"
#include "user/types.h"

#define AR_FIXED_FD_NO_CLOEXEC		(1U << 0)
#define AR_O_NOTIFICATION_PIPE		O_EXCL
#define AR_URING_CMD_FIXED		(1U << 0)
#define AR_URING_CMD_MULTISHOT		(1U << 1)

static int ar_misc_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/* FTRUNCATE: the length in sqe->off */
struct ar_ftrunc {
	__s64 len;
};

int ar_ftruncate_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_ftrunc *ft = ar_req_data(req, struct ar_ftrunc);

	if (sqe->rw_flags || sqe->addr || sqe->len || sqe->buf_index ||
	    sqe->splice_fd_in || sqe->addr3)
		return -EINVAL;
	ft->len = (__s64)sqe->off;
	return 0;
}

int ar_ftruncate_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_ftrunc *ft = ar_req_data(req, struct ar_ftrunc);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;		/* REQ_F_FORCE_ASYNC */
	/* ftruncate(2) checks the length first; the kernel has the file */
	if (ft->len < 0 && fcntl(req->fd, F_GETFD) < 0)
		return -EBADF;
	return ar_misc_ret(ftruncate(req->fd, (off_t)ft->len));
}

/* EPOLL_CTL: epfd in sqe->fd, op in len, fd in off, the event at addr */
struct ar_epoll_ctl {
	struct epoll_event event;
	int epfd;
	int op;
	int fd;
};

int ar_epoll_ctl_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_epoll_ctl *ec = ar_req_data(req, struct ar_epoll_ctl);

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	ec->epfd = sqe->fd;
	ec->op = (int)sqe->len;
	ec->fd = (int)sqe->off;
	/* ep_op_has_event() */
	if (ec->op != EPOLL_CTL_DEL &&
	    ar_copy_from_user(&ec->event, (const void *)(uintptr_t)sqe->addr,
			      sizeof(ec->event)))
		return -EFAULT;
	return 0;
}

int ar_epoll_ctl_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_epoll_ctl *ec = ar_req_data(req, struct ar_epoll_ctl);

	(void)issue_flags;
	return ar_misc_ret(epoll_ctl(ec->epfd, ec->op, ec->fd, &ec->event));
}

/* EPOLL_WAIT: the events go to addr (len of them) */
struct ar_epoll_wait {
	__u64 events;
	int maxevents;
};

int ar_epoll_wait_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_epoll_wait *ew = ar_req_data(req, struct ar_epoll_wait);

	if (sqe->off || sqe->rw_flags || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	ew->maxevents = (int)sqe->len;
	ew->events = sqe->addr;
	return 0;
}

/* epoll_sendevents(): the checks of epoll_wait(2), then what is ready now */
int ar_epoll_wait_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_epoll_wait *ew = ar_req_data(req, struct ar_epoll_wait);
	int ret;

	(void)issue_flags;
	ret = ar_misc_ret(epoll_wait(req->fd,
				     (struct epoll_event *)(uintptr_t)ew->events,
				     ew->maxevents, 0));
	return ret ? ret : AR_ISSUE_AGAIN;
}

/* FIXED_FD_INSTALL */
struct ar_fixed_install {
	bool cloexec;
};

int ar_fixed_fd_install_prep(struct ar_ureq *req,
			     const struct io_uring_sqe *sqe)
{
	struct ar_fixed_install *fi = ar_req_data(req, struct ar_fixed_install);
	__u32 flags;

	if (sqe->off || sqe->addr || sqe->len || sqe->buf_index ||
	    sqe->splice_fd_in || sqe->addr3)
		return -EINVAL;
	if (!(req->flags & AR_REQ_F_FIXED_FILE))
		return -EBADF;
	flags = sqe->rw_flags;		/* install_fd_flags */
	if (flags & ~AR_FIXED_FD_NO_CLOEXEC)
		return -EINVAL;
	fi->cloexec = !(flags & AR_FIXED_FD_NO_CLOEXEC);
	return 0;
}

/* receive_fd(): the lowest free fd, for the file the slot holds */
int ar_fixed_fd_install_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_fixed_install *fi = ar_req_data(req, struct ar_fixed_install);

	(void)issue_flags;
	return ar_misc_ret(fcntl(req->fd, fi->cloexec ? F_DUPFD_CLOEXEC :
				 F_DUPFD, 0));
}

/* PIPE: the int[2] at addr, flags in pipe_flags, file_index for direct */
struct ar_pipe {
	__u64 fds;
	int flags;
	__u32 file_slot;
};

int ar_pipe_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_pipe *p = ar_req_data(req, struct ar_pipe);

	if (sqe->fd || sqe->off || sqe->addr3)
		return -EINVAL;
	p->fds = sqe->addr;
	p->flags = (int)sqe->rw_flags;	/* pipe_flags */
	if (p->flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT |
			 AR_O_NOTIFICATION_PIPE))
		return -EINVAL;
	p->file_slot = sqe->file_index;
	return 0;
}

/* io_pipe_fd(): the fds exist for the app only once they are written */
static int ar_pipe_fd(struct ar_pipe *p)
{
	int fds[2];

	if (pipe2(fds, p->flags))
		return -errno;
	if (!ar_copy_to_user((void *)(uintptr_t)p->fds, fds, sizeof(fds)))
		return 0;
	close(fds[0]);
	close(fds[1]);
	return -EFAULT;
}

/* one end into the table: its slot, or an error (the table closed fd) */
static int ar_pipe_install(struct ar_uctx *ctx, int fd, __u32 file_slot,
			   unsigned slot)
{
	int ret;

	if (file_slot == IORING_FILE_INDEX_ALLOC)
		return ar_rsrc_install_file(ctx, fd, 0, true);
	ret = ar_rsrc_install_file(ctx, fd, slot, false);
	return ret ? ret : (int)slot;
}

/*
 * io_pipe_fixed(): the read end at the slot asked (or an allocated one),
 * the write end at the next (or another allocated one); the slots are
 * written to the app's int[2]; on any failure the slots taken are
 * emptied again.
 */
static int ar_pipe_fixed(struct ar_ureq *req, struct ar_pipe *p)
{
	struct ar_uctx *ctx = req->ctx;
	int pfd[2], slots[2] = { -1, -1 }, ret;

	/* an fd only until the table has it: not for a child to see */
	if (pipe2(pfd, p->flags | O_CLOEXEC))
		return -errno;
	if (p->flags & O_CLOEXEC) {
		close(pfd[0]);
		close(pfd[1]);
		return -EINVAL;
	}
	ret = ar_pipe_install(ctx, pfd[0], p->file_slot, p->file_slot - 1);
	if (ret < 0) {
		close(pfd[1]);
		return ret;
	}
	slots[0] = ret;
	ret = ar_pipe_install(ctx, pfd[1], p->file_slot, p->file_slot);
	if (ret < 0)
		goto err;
	slots[1] = ret;
	if (!ar_copy_to_user((void *)(uintptr_t)p->fds, slots, sizeof(slots)))
		return 0;
	ret = -EFAULT;
err:
	for (unsigned i = 0; i < 2; i++)
		if (slots[i] >= 0)
			ar_rsrc_close_file(ctx, (unsigned)slots[i]);
	return ret;
}

int ar_pipe_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_pipe *p = ar_req_data(req, struct ar_pipe);

	(void)issue_flags;
	return p->file_slot ? ar_pipe_fixed(req, p) : ar_pipe_fd(p);
}

/* URING_CMD */
int ar_uring_cmd_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_uring_cmd *uc = ar_req_data(req, struct ar_uring_cmd);
	__u32 flags;

	if (sqe->__pad1)
		return -EINVAL;
	flags = sqe->uring_cmd_flags;
	if (flags & ~(AR_URING_CMD_FIXED | AR_URING_CMD_MULTISHOT))
		return -EINVAL;
	if ((flags & AR_URING_CMD_FIXED) && (flags & AR_URING_CMD_MULTISHOT))
		return -EINVAL;
	/* multishot takes provided buffers, and only it does */
	if (!(flags & AR_URING_CMD_MULTISHOT) !=
	    !(req->sqe_flags & IOSQE_BUFFER_SELECT))
		return -EINVAL;
	uc->cmd_op = sqe->cmd_op;
	uc->file_index = sqe->file_index;
	uc->addr = sqe->addr;
	uc->addr3 = sqe->addr3;
	return 0;
}

/* ops/net.c replaces this: until then sockets answer as other files */
__attribute__((weak)) int ar_uring_cmd_sock(struct ar_ureq *req,
					    const struct ar_uring_cmd *uc,
					    unsigned issue_flags)
{
	(void)req;
	(void)uc;
	(void)issue_flags;
	return -EOPNOTSUPP;
}

/*
 * The file's ->uring_cmd: sockets have one (io_uring_cmd_sock()), and
 * /dev/null (uring_cmd_null(), which does nothing and answers 0); no
 * other file this engine serves has one.
 */
int ar_uring_cmd_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_uring_cmd *uc = ar_req_data(req, struct ar_uring_cmd);
	struct stat st;

	if (fstat(req->fd, &st))
		return -EBADF;
	if (S_ISSOCK(st.st_mode))
		return ar_uring_cmd_sock(req, uc, issue_flags);
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
		return 0;
	return -EOPNOTSUPP;
}

/* RECV_ZC: the SQE's checks, then the ifq lookup, which finds none */
int ar_recv_zc_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	(void)req;
	(void)sqe;
	return -EINVAL;
}
