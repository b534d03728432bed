/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - the kernel engine's ring object, and its enter inline: the
 * API layer (src/api/queue.c) calls ar_kring_enter() directly for a ring
 * the kernel engine claimed, so that a QD1 submit-and-wait costs little
 * more than liburing's own io_uring_enter (docs/performance.md, "The
 * kernel engine against liburing").
 */
#ifndef ANYRING_KERNEL_KERNEL_H
#define ANYRING_KERNEL_KERNEL_H

#include <stdbool.h>
#include "engine/engine.h"
#include "lib/waitpol.h"

/*
 * What the library keeps per kernel ring: the wait= and iowait= policies
 * (waitpol.h) and the counters the library can see. The ring fd is
 * claimed for the kernel engine with this as its object, which the seam
 * hands to every op (NULL: a ring the library keeps nothing for). It is
 * freed when the fd is closed: as with the kernel's own ring, closing it
 * while another thread is in an op on it is the application's error.
 */
struct ar_kring {
	struct anyring_policy pol;	/* wake, complete: the kernel's own */
	/*
	 * A wait= or iowait= policy other than the default shapes this
	 * ring's waits (ar_kring_enter_policy()); decided when the policy
	 * is set, so that a default enter tests one byte.
	 */
	bool shaped;
	struct ar_wait_est west;
	unsigned flags, features;
	const unsigned *cq_khead, *cq_ktail;	/* set once mapped */
	unsigned cq_base;		/* CQ tail at the last reset */
	unsigned long long enters, submissions, sleeps, wakeups;
	unsigned long long poll_loops, sleep_ns;
};

/*
 * Counters: a relaxed load and store, not a bus-locked add, to keep the
 * enter path as cheap as liburing's. Several threads entering one ring
 * at once may lose counts between them.
 */
#define ar_kadd(kr, f, n) __atomic_store_n(&(kr)->f,			\
	__atomic_load_n(&(kr)->f, __ATOMIC_RELAXED) + (n), __ATOMIC_RELAXED)

/* kernel.c: ring pointers from the kernel's offsets in p */
void ar_kring_pointers(struct io_uring *ring, const struct io_uring_params *p);

/* kernel.c: an enter whose wait a policy shapes (kr->shaped) */
int ar_kring_enter_policy(struct ar_kring *kr, unsigned fd,
			  unsigned to_submit, unsigned min_complete,
			  unsigned flags, const void *arg, size_t argsz);

/* CQEs the application has not reaped yet */
static inline unsigned ar_kring_ready(const struct ar_kring *kr)
{
	/* acquire pairs with the kernel's release of the CQ tail */
	return io_uring_smp_load_acquire(kr->cq_ktail) -
	       IO_URING_READ_ONCE(*kr->cq_khead);
}

/*
 * io_uring_enter on a kernel ring the library knows. A wait that finds
 * fewer than min_complete CQEs counts as a sleep (the kernel may still
 * find them at once: a NOP completes inline). The default policies make
 * this the system call and four counters; a shaped wait goes out of line.
 */
static inline __attribute__((always_inline)) int
ar_kring_enter(struct ar_kring *kr, unsigned fd, unsigned to_submit,
	       unsigned min_complete, unsigned flags, const void *arg,
	       size_t argsz)
{
	bool wait = (flags & IORING_ENTER_GETEVENTS) && min_complete &&
		    kr->cq_ktail && ar_kring_ready(kr) < min_complete;
	int ret;

	/* relaxed: a policy set by another thread applies from some enter on */
	if (wait && __atomic_load_n(&kr->shaped, __ATOMIC_RELAXED))
		return ar_kring_enter_policy(kr, fd, to_submit, min_complete,
					     flags, arg, argsz);
	ret = ar_sys_enter(fd, to_submit, min_complete, flags, arg, argsz);
	ar_kadd(kr, enters, 1);
	if (ret > 0 && to_submit)
		ar_kadd(kr, submissions, (unsigned)ret);
	if (wait) {
		ar_kadd(kr, sleeps, 1);
		if (ret >= 0)
			ar_kadd(kr, wakeups, 1);
	}
	return ret;
}

#endif
