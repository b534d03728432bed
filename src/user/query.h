/* SPDX-License-Identifier: MIT */
/*
 * query.h - IORING_REGISTER_QUERY (query.c), on a user ring's fd or on
 * fd -1 where io_uring is refused; what it reports comes from the files
 * that decide it.
 */
#ifndef ANYRING_USER_QUERY_H
#define ANYRING_USER_QUERY_H

#include <linux/types.h>
#include "engine/compat.h"

/* the number of opcodes the tables span, as the kernel's *_LAST */
#define AR_OP_LAST		(AR_OP_LAST_KNOWN + 1)
#define AR_REGISTER_LAST	36	/* 6.18: IORING_REGISTER_QUERY is 35 */

int ar_query(const void *arg, unsigned nr);

/* the flags the engine takes: ctx.c, wait.c, submit.c */
__u64 ar_user_features(void);
__u64 ar_user_setup_flags(void);
__u64 ar_user_enter_flags(void);
__u64 ar_user_sqe_flags(void);

#endif
