/* SPDX-License-Identifier: MIT */
/*
 * trap.h - io_uring's system calls made by code that does not call
 * liburing (trap.c).
 */
#ifndef ANYRING_TRAP_TRAP_H
#define ANYRING_TRAP_TRAP_H

#include "engine/engine.h"

/* ar_trap_active() is declared in engine/engine.h, for the engines */

#define AR_NR_SETUP	425
#define AR_NR_ENTER	426
#define AR_NR_REGISTER	427

/* a number into assembly text */
#define AR_XSTR(x)	#x
#define AR_STR(x)	AR_XSTR(x)

/* io_uring_setup, _enter or _register, by number (for ANYRING_DEBUG) */
static inline const char *ar_trap_nr_name(long nr)
{
	return nr == AR_NR_SETUP ? "io_uring_setup" :
	       nr == AR_NR_ENTER ? "io_uring_enter" : "io_uring_register";
}

/* how a call reached the trap (ANYRING_DEBUG names each ring's) */
enum ar_trap_way {
	AR_ROUTE_SIGNAL,	/* the SIGSYS handler */
	AR_ROUTE_SYSCALL,	/* libc's syscall(), interposed */
	AR_ROUTE_SITE,		/* a rewritten call site (patch.c) */
};

/*
 * A trapped call: its number and the system call's six arguments; how it
 * came, and for the signal, the address after its syscall instruction
 */
struct ar_trap_args {
	long nr;
	long a[6];
	enum ar_trap_way way;
	unsigned long ip;
};

/* trap.c: serve one of the calls the trap takes, here */
long ar_trap_route(long nr, long a1, long a2, long a3, long a4, long a5,
		   long a6);
/* the trap's own stack, per thread (made on first use) */
#define AR_TRAP_STACK	262144		/* 256 KiB; a plain number for assembly */
extern __thread char *ar_trap_stack;
/* calls being served on it by this thread: a nested one stays where it is */
extern __thread unsigned ar_trap_depth;

/*
 * ar_trap_route() of a struct ar_trap_args, then what follows a call
 * (ar_trap_seen(), and ar_trap_patch() of a trapped site)
 */
long ar_trap_serve(void *args);
/* fn(args) on the thread's trap stack (or here, if already on it) */
long ar_trap_serve_on_stack(long (*fn)(void *), struct ar_trap_args *args);
/* ANYRING_DEBUG: the first call of each route on each ring */
void ar_trap_seen(long nr, long a1, long ret, enum ar_trap_way way);

/* patch.c: the inline route, rewriting a site that trapped */
bool ar_trap_patch_init(void);
void ar_trap_patch(unsigned long ip, long nr);
/* before serving a call at a site not yet rewritten (patch.c) */
void ar_trap_patch_prepare(unsigned long ip);

#endif
