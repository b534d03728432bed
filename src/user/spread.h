/* SPDX-License-Identifier: MIT */
/*
 * spread.h - issue=spread: a helper thread shares a submit's inline issue.
 */
#ifndef ANYRING_USER_SPREAD_H
#define ANYRING_USER_SPREAD_H

#include "user/types.h"

/* spread.c */
struct ar_ureq *ar_spread_offer(struct ar_uctx *ctx, struct ar_ureq *ready,
				bool *spread);
void ar_spread_help(struct ar_uctx *ctx);
void ar_spread_sync(struct ar_uctx *ctx);
void ar_spread_exit(struct ar_uctx *ctx);
void ar_spread_free(struct ar_uctx *ctx);

#endif
