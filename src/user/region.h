/* SPDX-License-Identifier: MIT */
/*
 * region.h - the ring's parameter region and its registered wait
 * arguments (region.c).
 */
#ifndef ANYRING_USER_REGION_H
#define ANYRING_USER_REGION_H

#include <stddef.h>
#include "engine/compat.h"

struct ar_uctx;

/* IORING_REGISTER_MEM_REGION */
int ar_reg_mem_region(struct ar_uctx *ctx, void *arg);
/* IORING_ENTER_EXT_ARG_REG: the entry at byte offset off, copied */
int ar_region_wait_arg(struct ar_uctx *ctx, unsigned long off,
		       struct ar_reg_wait *w);
/* the engine's pages for a mmap of len at IORING_MAP_OFF_PARAM_REGION */
void *ar_region_mmap(struct ar_uctx *ctx, size_t len);
/* at the ring's free */
void ar_region_free(struct ar_uctx *ctx);

#endif
