/* SPDX-License-Identifier: MIT */
/*
 * trap.h - io_uring's system calls made by code that does not call
 * liburing (trap.c).
 */
#ifndef ANYRING_TRAP_TRAP_H
#define ANYRING_TRAP_TRAP_H

#include <stdbool.h>

/* the trap is installed: rings must be mappable by the program (ctx.c) */
bool ar_trap_active(void);

#endif
