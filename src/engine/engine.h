/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the API layer and the engines share.
 *
 * Every liburing call reduces to four kernel operations: setup, mapping the
 * rings, enter and register (plus close). An engine is a table of those
 * operations (struct ar_engine); the API layer finds a ring's engine from
 * its fd and never calls the kernel itself.
 */
#ifndef ANYRING_INTERNAL_H
#define ANYRING_INTERNAL_H

#include <stddef.h>
#include <stdbool.h>
#include "engine/compat.h"
#include "anyring.h"

#define AR_EXPORT __attribute__((visibility("default")))

/* ring->int_flags bits, liburing 2.3's meaning */
#define AR_INT_FLAG_REG_RING	(1U << 0)

struct ar_engine {
	const char *name;
	/* io_uring_setup(2): returns the ring fd or -errno */
	int (*setup)(unsigned entries, struct io_uring_params *p);
	/* map the rings of fd into ring->sq / ring->cq; 0 or -errno */
	int (*mmap)(int fd, struct io_uring_params *p, struct io_uring *ring);
	void (*unmap)(struct io_uring *ring);
	/*
	 * io_uring_enter(2). fd is a ring fd, or with
	 * IORING_ENTER_REGISTERED_RING an index the engine handed out.
	 */
	int (*enter)(unsigned fd, unsigned to_submit, unsigned min_complete,
		     unsigned flags, const void *arg, size_t argsz);
	/* io_uring_register(2) */
	int (*reg)(unsigned fd, unsigned opcode, const void *arg,
		   unsigned nr_args);
	/* release the ring fd */
	int (*close)(int fd);
	/* set (set != NULL) and/or read (get != NULL) a ring's policy */
	int (*policy)(int fd, const struct anyring_policy *set,
		      struct anyring_policy *get);
	/* read (st != NULL) or reset the ring's counters */
	int (*stats)(int fd, struct anyring_stats *st, bool reset);
};

extern const struct ar_engine ar_kernel_engine;
extern const struct ar_engine ar_user_engine;

/* engine.c: which engine serves an fd; the kernel unless one claimed it */
const struct ar_engine *ar_engine_of_fd(int fd);
int ar_engine_claim_fd(int fd, const struct ar_engine *e, void *priv);
const struct ar_engine *ar_engine_of_fd_priv(int fd, void **priv);
void ar_engine_release_fd(int fd);
/* The engine for a new ring: by name, NULL meaning ANYRING_ENGINE/auto. */
int ar_engine_setup(const char *name, unsigned entries,
		    struct io_uring_params *p);

/* kernel.c: io_uring_enter on a kernel ring; priv is its ring object or NULL */
int ar_kernel_ring_enter(void *priv, unsigned fd, unsigned to_submit,
			 unsigned min_complete, unsigned flags,
			 const void *arg, size_t argsz);

static inline const struct ar_engine *ar_ring_engine(const struct io_uring *ring)
{
	return ar_engine_of_fd(ring->ring_fd);
}

/* io_uring_enter on a ring, through its registered fd when it has one. */
static inline int ar_ring_enter(struct io_uring *ring, unsigned submit,
				unsigned wait_nr, unsigned flags,
				const void *arg, size_t argsz)
{
	void *priv;
	const struct ar_engine *e = ar_engine_of_fd_priv(ring->ring_fd, &priv);

	if (ring->int_flags & AR_INT_FLAG_REG_RING)
		flags |= IORING_ENTER_REGISTERED_RING;
	/* one lookup: the kernel engine takes its ring object (also by index) */
	if (e == &ar_kernel_engine)
		return ar_kernel_ring_enter(priv, ring->enter_ring_fd, submit,
					    wait_nr, flags, arg, argsz);
	return e->enter(ring->enter_ring_fd, submit, wait_nr, flags, arg, argsz);
}

static inline int ar_ring_register(struct io_uring *ring, unsigned opcode,
				   const void *arg, unsigned nr_args)
{
	return ar_ring_engine(ring)->reg(ring->ring_fd, opcode, arg, nr_args);
}

/* syscall.c: raw system calls, returning -errno, never touching errno */
int ar_sys_setup(unsigned entries, struct io_uring_params *p);
int ar_sys_enter(unsigned fd, unsigned to_submit, unsigned min_complete,
		 unsigned flags, const void *arg, size_t argsz);
int ar_sys_register(unsigned fd, unsigned opcode, const void *arg,
		    unsigned nr_args);
int ar_sys_close(int fd);

/* policy.c: ANYRING_POLICY for a new ring */
void ar_policy_env(struct anyring_policy *p);

/* debug.c: one line on stderr when ANYRING_DEBUG is set, else nothing */
int ar_debug_enabled(void);
void ar_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
