/* SPDX-License-Identifier: MIT */
/* fork.h - a ring in more than one process (fork.c) */
#ifndef ANYRING_USER_FORK_H
#define ANYRING_USER_FORK_H

#include <stdbool.h>
#include "user/types.h"

void ar_user_prefork(void *obj);
bool ar_user_forked(void *obj);

/* a fork has happened with the ring: posts may have to wake other processes */
static inline bool ar_ring_forked(const struct ar_uctx *ctx)
{
	return ar_sh(ctx)->forked;
}

void ar_xwake_post(struct ar_uctx *ctx);
int ar_xwake_sleep_fd(struct ar_uctx *ctx);
void ar_xwake_take(struct ar_uctx *ctx);

#endif
