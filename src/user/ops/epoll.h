/* SPDX-License-Identifier: MIT */
/*
 * epoll.h - EPOLL_CTL and EPOLL_WAIT (epoll.c).
 */
#ifndef ANYRING_USER_OPS_EPOLL_H
#define ANYRING_USER_OPS_EPOLL_H

#include "user/types.h"

int ar_epoll_ctl_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_epoll_ctl_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_epoll_wait_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_epoll_wait_issue(struct ar_ureq *req, unsigned issue_flags);

#endif
