/* SPDX-License-Identifier: MIT */
/*
 * epoll.c - EPOLL_CTL and EPOLL_WAIT, as the kernel's io_uring/epoll.c.
 *
 * Each prep makes Linux 6.18's checks in its order; each issue is the
 * system call the kernel's handler wraps:
 *  - EPOLL_CTL: the event copied at prep (not for EPOLL_CTL_DEL), fault
 *    -EFAULT; epoll_ctl(2) inline.
 *  - EPOLL_WAIT: epoll_wait(2) with no timeout on the request's file; no
 *    event ready is "would block": the epoll fd is polled for POLLIN and
 *    the request issued again, as the kernel's (.pollin).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lib/uaccess.h"
#include "user/ops/epoll.h"
#include "user/types.h"

/* a libc call's -1/errno as the kernel's -errno */
static int ar_epoll_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
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
	return ar_epoll_ret(epoll_ctl(ec->epfd, ec->op, ec->fd, &ec->event));
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
	/*
	 * The system call, not libc's epoll_wait(): glibc 2.41 declares its
	 * events nonnull, and an SQE may carry any address (NULL with nothing
	 * ready gives 0 on the kernel, as here). epoll_pwait with no mask is
	 * epoll_wait, and the one that every architecture has.
	 */
	ret = ar_epoll_ret(syscall(SYS_epoll_pwait, req->fd, ew->events,
				   ew->maxevents, 0, NULL, _NSIG / 8));
	return ret ? ret : AR_ISSUE_AGAIN;
}
