/* SPDX-License-Identifier: MIT */
/*
 * util.h - threads, futexes and the engine's internal fds (util.c).
 */
#ifndef ANYRING_USER_UTIL_H
#define ANYRING_USER_UTIL_H

#include "user/types.h"

/* util.c */
int ar_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg);
int ar_futex_wait(atomic_uint *word, unsigned val, uint64_t deadline_ns);
void ar_futex_wake(atomic_uint *word, int nr);
extern const struct ar_engine ar_internal_fd;
int ar_internal_claim(int fd);
void ar_internal_close(int fd);

#endif
