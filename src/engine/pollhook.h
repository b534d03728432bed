/* SPDX-License-Identifier: MIT */
/*
 * pollhook.h - the engine's own poll, select and epoll calls skip the
 * look that libanyring's definitions of them make first (pollhook.c).
 */
#ifndef ANYRING_ENGINE_POLLHOOK_H
#define ANYRING_ENGINE_POLLHOOK_H

/* not 0: this thread is the engine's, or a program thread inside it */
extern __thread unsigned ar_hook_off;

static inline void ar_hook_off_enter(void)
{
	ar_hook_off++;
}

static inline void ar_hook_off_leave(void)
{
	ar_hook_off--;
}

#endif
