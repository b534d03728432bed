/* SPDX-License-Identifier: MIT */
/*
 * ringfd.h - an eventfd that polls readable exactly while a condition
 * holds: the protocol behind a user ring's fd, which the kernel's ring fd
 * follows by itself (io_uring_poll() looks at the CQ when it is polled).
 * An eventfd is readable while its count is not 0, so the count is kept
 * at 1 while the condition ("pending": CQEs, task work, an overflow
 * backlog) may hold, and at 0 once it was found false.
 *
 * One state word and one lock bit:
 *
 *   IDLE       count 0. A poster that finds it moves it to ARMING.
 *   ARMING     one poster owns it; its write() of 1 is under way.
 *   SIGNALLED  the write is done: count 1.
 *   busy       a clearer holds it (a try-lock; one clearer at a time).
 *
 * Posters only move IDLE -> ARMING -> SIGNALLED; only a clearer, holding
 * busy, moves SIGNALLED -> IDLE. So a clearer that saw SIGNALLED under
 * busy sees it until its own store, and its read() consumes exactly the
 * one write that led there: the count is 0 whenever the state is IDLE,
 * and a write is never eaten by a clearer that did not lower its state
 * (what lost a wakeup before: the flag came down, then a poster raised
 * it and wrote, then the clearer's read ate that write).
 *
 * The lost-wakeup pair, in the style of wake.h:
 *
 *     poster                            clearer
 *     1. store the CQ tail (publish)    1. state = IDLE (announce)
 *     2. ar_wake_mb()                   2. ar_wake_mb()
 *     3. load state: IDLE ->            3. pending()? -> signal
 *        signal                            as a poster would
 *
 * Either the poster sees IDLE and signals, or the clearer sees the CQE
 * and signals. A poster that sees ARMING or SIGNALLED relies on the
 * owner's write, which a later clear only consumes after its own step 1
 * and so before its own look.
 *
 * A clearer that finds busy taken returns: the holder's look comes after
 * the caller's, or the holder is past it and at worst leaves the fd
 * readable with nothing pending, which the next clear fixes (a spurious
 * wakeup, never a lost one).
 *
 * The fd is read where the program polls it (*fdp) and written either
 * there (an eventfd) or through a second fd (wfd): a user ring's fd is
 * one end of a socket pair whose other end, the engine's, is written,
 * so that the engine learns when the program's end is closed for good
 * (user/release.c). Either way the fd is readable exactly while the
 * one write a signal makes is unread.
 *
 * AR_RINGFD_STEP(n) marks each step for a test that widens the windows
 * between them (tests/ringfd-stress.c); empty otherwise.
 */
#ifndef ANYRING_LIB_RINGFD_H
#define ANYRING_LIB_RINGFD_H

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/socket.h>
#include "lib/sysraw.h"
#include "lib/wake.h"

#ifndef AR_RINGFD_STEP
#define AR_RINGFD_STEP(n)	do { } while (0)
#endif

enum {
	AR_RINGFD_IDLE,
	AR_RINGFD_ARMING,
	AR_RINGFD_SIGNALLED,
};

struct ar_ringfd {
	atomic_uint state;
	atomic_bool busy;
	int wfd;		/* written to make *fdp readable; -1: *fdp */
};

static inline void ar_ringfd_init(struct ar_ringfd *rf, int wfd)
{
	atomic_init(&rf->state, AR_RINGFD_IDLE);
	atomic_init(&rf->busy, false);
	rf->wfd = wfd;
}

/* what the user of the protocol tells it */
struct ar_ringfd_ops {
	/* the condition: the fd should poll readable */
	bool (*pending)(void *arg);
	/* a signal was armed (before its write): NULL, nothing to do */
	void (*armed)(void *arg);
	/*
	 * fd is still the file the protocol runs on (the program may have
	 * closed it and its number gone to another file, whose bytes a
	 * clear's read would take): NULL, always
	 */
	bool (*same)(void *arg, int fd);
};

/* fd's current number, or -1 once its ring is ending */
static inline int ar_ringfd_load(int *fdp)
{
	/* acquire pairs with the release that set the fd at setup */
	return __atomic_load_n(fdp, __ATOMIC_ACQUIRE);
}

static inline void ar_ringfd_write(int fd)
{
	uint64_t one = 1;
	int e = errno;

	(void)!write(fd, &one, sizeof(one));
	errno = e;
}

/*
 * The engine's end of a socket pair: once the program's end is closed
 * for good a write fails EPIPE, which must not raise SIGPIPE in the
 * program (send's MSG_NOSIGNAL, where write(2) would).
 */
static inline void ar_ringfd_send(int fd)
{
	uint64_t one = 1;
	int e = errno;

	(void)!send(fd, &one, sizeof(one), MSG_NOSIGNAL | MSG_DONTWAIT);
	errno = e;
}

/* raw: libc's read() is a hook (engine/pollhook.c); no errno touched */
static inline void ar_ringfd_read(int fd)
{
	uint64_t v;

	(void)ar_raw_syscall6(SYS_read, fd, (long)&v, sizeof(v), 0, 0, 0);
}

/*
 * Poster, step 3 (after the CQ tail store and ar_wake_mb()): true when
 * the fd was IDLE and this caller now owns the signal, which it must
 * complete with ar_ringfd_fire() (doing first what a clearer should find
 * done when it sees the fd readable).
 */
static inline bool ar_ringfd_arm(struct ar_ringfd *rf)
{
	unsigned idle = AR_RINGFD_IDLE;

	if (atomic_load_explicit(&rf->state, memory_order_relaxed) != AR_RINGFD_IDLE)
		return false;
	return atomic_compare_exchange_strong_explicit(&rf->state, &idle,
						       AR_RINGFD_ARMING,
						       memory_order_relaxed,
						       memory_order_relaxed);
}

/* the owner of an armed fd makes it readable */
static inline void ar_ringfd_fire(struct ar_ringfd *rf, int *fdp)
{
	int fd;

	AR_RINGFD_STEP(1);
	fd = ar_ringfd_load(fdp);
	if (fd >= 0 && rf->wfd >= 0)
		ar_ringfd_send(rf->wfd);
	else if (fd >= 0)
		ar_ringfd_write(fd);
	AR_RINGFD_STEP(2);
	/*
	 * release: the write is done before the state says so; pairs with
	 * the clearer's acquire load, whose read() then finds the count.
	 */
	atomic_store_explicit(&rf->state, AR_RINGFD_SIGNALLED, memory_order_release);
}

/* make the fd readable if it is not; true when this call did */
static inline bool ar_ringfd_signal(struct ar_ringfd *rf, int *fdp,
				    const struct ar_ringfd_ops *ops, void *arg)
{
	if (!ar_ringfd_arm(rf))
		return false;
	if (ops->armed)
		ops->armed(arg);
	ar_ringfd_fire(rf, fdp);
	return true;
}

/*
 * A poster is between its arm and the end of its write (two stores and
 * a system call apart): a clearer about to tell the program what the fd
 * says waits for it, so that a thread woken by that write and then
 * finding the CQ empty sees the fd reset. Bounded: a poster descheduled
 * for longer leaves the fd readable, which the next clear fixes.
 */
#define AR_RINGFD_SETTLE_TRIES	64

static inline unsigned ar_ringfd_settle(struct ar_ringfd *rf)
{
	unsigned st, i;

	for (i = 0; i < AR_RINGFD_SETTLE_TRIES; i++) {
		/* acquire pairs with the poster's release of SIGNALLED */
		st = atomic_load_explicit(&rf->state, memory_order_acquire);
		if (st != AR_RINGFD_ARMING)
			return st;
		sched_yield();
	}
	return AR_RINGFD_ARMING;
}

static inline bool ar_ringfd_signalled(struct ar_ringfd *rf)
{
	return atomic_load_explicit(&rf->state, memory_order_relaxed) != AR_RINGFD_IDLE;
}

/*
 * Clearer: the fd polls readable no more unless ops->pending(arg) still
 * holds, in which case it is signalled again. With rearm it is cycled
 * even then: a new write, so an edge-triggered poller sees a new event,
 * as the kernel's ring fd wakes its pollers on every post. Returns true
 * when the fd is left signalled (or another clearer had it).
 */
static inline bool ar_ringfd_clear(struct ar_ringfd *rf, int *fdp,
				   const struct ar_ringfd_ops *ops, void *arg,
				   bool rearm)
{
	unsigned st;
	bool left;
	int fd;

	st = atomic_load_explicit(&rf->state, memory_order_relaxed);
	if (st == AR_RINGFD_ARMING)
		st = ar_ringfd_settle(rf);
	if (st != AR_RINGFD_SIGNALLED)
		return st != AR_RINGFD_IDLE;
	if (!rearm && ops->pending(arg))
		return true;
	/* acquire pairs with the release that drops busy below */
	if (atomic_exchange_explicit(&rf->busy, true, memory_order_acquire))
		return true;
	fd = ar_ringfd_load(fdp);
	/* acquire pairs with the poster's release of SIGNALLED: its write is done */
	if (fd < 0 || atomic_load_explicit(&rf->state, memory_order_acquire) !=
		      AR_RINGFD_SIGNALLED || (ops->same && !ops->same(arg, fd))) {
		left = ar_ringfd_signalled(rf);
		goto out;
	}
	ar_ringfd_read(fd);
	AR_RINGFD_STEP(3);
	/* step 1; no poster moves SIGNALLED, and no clearer while we hold busy */
	atomic_store_explicit(&rf->state, AR_RINGFD_IDLE, memory_order_relaxed);
	AR_RINGFD_STEP(4);
	/* step 2: pairs with the poster's ar_wake_mb() after its tail store */
	ar_wake_mb();
	left = ops->pending(arg) && (ar_ringfd_signal(rf, fdp, ops, arg), true);
out:
	atomic_store_explicit(&rf->busy, false, memory_order_release);
	return left;
}

/*
 * The ring ends: after *fdp was set to -1, wait out a clearer that may
 * still use the old number, and keep every later one out, so the number
 * can be closed. A clearer holds busy for two system calls at most.
 */
static inline void ar_ringfd_shut(struct ar_ringfd *rf)
{
	/* acquire pairs with a clearer's release of busy */
	while (atomic_exchange_explicit(&rf->busy, true, memory_order_acquire))
		sched_yield();
}

#endif
