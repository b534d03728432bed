/* SPDX-License-Identifier: MIT */
/*
 * ringfd.h - a user ring's fd polls as the kernel's (ringfd.c).
 */
#ifndef ANYRING_USER_RINGFD_H
#define ANYRING_USER_RINGFD_H

#include "user/types.h"

int ar_ring_fd_make(struct ar_uctx *ctx);
void ar_ring_fd_signal(struct ar_uctx *ctx);
void ar_ring_fd_clear(struct ar_uctx *ctx);
void ar_ring_fd_shut(struct ar_uctx *ctx);
void ar_user_cq_idle(void *obj);
void ar_user_fd_polled(void *obj, unsigned events);
void ar_user_prepoll(void);

#endif
