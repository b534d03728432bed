/* SPDX-License-Identifier: MIT */
/*
 * register.h - io_uring_register on a user ring (register.c).
 */
#ifndef ANYRING_USER_REGISTER_H
#define ANYRING_USER_REGISTER_H

#include "user/types.h"

/* register.c: the ring this thread registered at index (REGISTER_RING_FDS) */
void *ar_user_ring_index(unsigned index, bool *task);
int ar_user_register(void *obj, unsigned fd, unsigned opcode,
		     const void *arg, unsigned nr);
/* personality id's credentials, a reference taken; NULL if none (uring_lock) */
struct ar_cred *ar_personality_get(struct ar_uctx *ctx, unsigned id);
/* the ring's personalities dropped (its end) */
void ar_pers_free(struct ar_uctx *ctx);

#endif
