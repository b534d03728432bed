/* SPDX-License-Identifier: MIT */
/*
 * wait.h - io_uring_enter on a user ring (wait.c).
 */
#ifndef ANYRING_USER_WAIT_H
#define ANYRING_USER_WAIT_H

#include "lib/clock.h"
#include <errno.h>
#include "user/types.h"
#include "user/ctx.h"

/* wait.c */
int ar_uctx_unnamed(unsigned fd);

/*
 * The user ring an enter or register names (obj, the ring the seam found
 * for fd; or fd a registered index), else NULL and 6.18's answer for the
 * name: an index past the table or of a task it never saw -EINVAL, an
 * empty slot -EBADF; a closed fd -EBADF, an open one that is no ring
 * -EOPNOTSUPP; an exited ring -EBADF. Inline: every enter asks.
 */
static inline struct ar_uctx *ar_uctx_named(void *obj, unsigned fd,
					    bool index, int *err)
{
	struct ar_uctx *ctx = obj;

	if (index) {
		if (fd >= AR_RINGFD_REG_MAX || !ar_user_task) {
			*err = -EINVAL;
			return NULL;
		}
		ctx = ar_registered_rings[fd];
	} else if (!ctx) {
		*err = ar_uctx_unnamed(fd);
		return NULL;
	}
	if (!ctx || ar_uctx_dead(ctx)) {
		*err = -EBADF;
		return NULL;
	}
	return ctx;
}
int ar_user_enter(void *obj, unsigned fd, unsigned to_submit,
		  unsigned min_complete, unsigned flags, const void *arg,
		  size_t argsz);

#endif
