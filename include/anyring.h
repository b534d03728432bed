/* SPDX-License-Identifier: MIT */
/*
 * anyring.h - anyring's own interface, beside liburing's <liburing.h>.
 *
 * libanyring exports liburing 2.3's API and ABI; this header adds what
 * liburing does not have: choosing the engine that serves a ring, asking
 * which engine serves it, and the wait arguments of newer kernels
 * (absolute timeouts, min_wait, no-iowait) behind one call.
 */
#ifndef ANYRING_H
#define ANYRING_H

#include <liburing.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Engine names accepted by anyring_queue_init_engine() and by the
 * ANYRING_ENGINE environment variable:
 *   "kernel"  the kernel's io_uring, through raw syscalls;
 *   "user"    io_uring implemented in the process;
 *   "auto"    the kernel, falling back to "user" when io_uring_setup is
 *             refused with EPERM, EACCES or ENOSYS.
 * NULL means: ANYRING_ENGINE if set, else "auto".
 */
#define ANYRING_ENGINE_KERNEL	"kernel"
#define ANYRING_ENGINE_USER	"user"
#define ANYRING_ENGINE_AUTO	"auto"

/*
 * Like io_uring_queue_init_params(), on the named engine. Returns 0 or a
 * negative errno: -EINVAL for an unknown engine name, -EOPNOTSUPP for an
 * engine this build does not have, else the engine's own setup error.
 */
int anyring_queue_init_engine(const char *engine, unsigned entries,
			      struct io_uring *ring, struct io_uring_params *p);

/*
 * Like io_uring_setup(): returns a ring fd on the named engine, for
 * programs that map the rings themselves (io_uring_queue_mmap()).
 */
int anyring_setup_engine(const char *engine, unsigned entries,
			 struct io_uring_params *p);

/* "kernel" or "user": the engine serving this ring. */
const char *anyring_ring_engine(const struct io_uring *ring);

/* Flags of struct anyring_wait. */
#define ANYRING_WAIT_ABS	(1U << 0) /* ts is absolute (CLOCK_MONOTONIC
					     unless the ring registered another clock) */
#define ANYRING_WAIT_NO_IOWAIT	(1U << 1) /* do not count the sleep as iowait */

struct anyring_wait {
	const struct __kernel_timespec *ts;	/* NULL: no timeout */
	unsigned min_wait_usec;			/* 0: none */
	unsigned flags;				/* ANYRING_WAIT_* */
	const sigset_t *sigmask;		/* NULL: keep the mask */
};

/*
 * Submit what is queued and wait for wait_nr completions, as
 * io_uring_submit_and_wait_timeout(), with the full wait argument of
 * io_uring_enter(2) EXT_ARG: relative or absolute timeout, min_wait
 * (return after min_wait_usec once at least one CQE is there) and
 * IORING_ENTER_NO_IOWAIT. w may be NULL. Flags the engine's kernel does not
 * know fail with its error (-EINVAL) rather than being dropped.
 * Returns the number submitted, or a negative errno (-ETIME on timeout).
 */
int anyring_submit_and_wait_ext(struct io_uring *ring,
				struct io_uring_cqe **cqe_ptr,
				unsigned wait_nr,
				const struct anyring_wait *w);

#ifdef __cplusplus
}
#endif

#endif
