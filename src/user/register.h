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
bool ar_personality_valid(struct ar_uctx *ctx, unsigned id);

#endif
