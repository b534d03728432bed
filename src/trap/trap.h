/* SPDX-License-Identifier: MIT */
/*
 * trap.h - io_uring's system calls made by code that does not call
 * liburing (trap.c).
 */
#ifndef ANYRING_TRAP_TRAP_H
#define ANYRING_TRAP_TRAP_H

#include "engine/engine.h"

/* ar_trap_active() is declared in engine/engine.h, for the engines */

#endif
