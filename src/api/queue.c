/* SPDX-License-Identifier: MIT */
/*
 * queue.c - the submit and wait paths of liburing 2.3: SQ tail
 * publication, deciding when io_uring_enter is needed (SQPOLL wakeup, CQ
 * overflow flush, task work, IOPOLL), and the CQE wait loop with EXT_ARG
 * timeouts. Every enter goes through the ring's engine.
 */
/*
 * io_uring_enter2()'s fifth parameter is a sigset_t * in liburing up to
 * 2.9 and a void * in newer headers (it may be an EXT_ARG): the header's
 * prototype is renamed away here, and the function defined with void *,
 * the same ABI either way.
 */
#define io_uring_enter2 ar_header_io_uring_enter2
#include <liburing.h>
#undef io_uring_enter2
#include <errno.h>
#include <signal.h>
#include <string.h>
#include "engine/engine.h"
#include "kernel/kernel.h"
#include "anyring.h"
#include "api/newer.h"

/*
 * Does submitting need an enter? Always without SQPOLL; with SQPOLL only
 * when the poll thread went to sleep (IORING_SQ_NEED_WAKEUP).
 */
static int ar_sq_needs_enter(struct io_uring *ring, unsigned submit,
			     unsigned *flags)
{
	if (!submit)
		return 0;
	if (!(ring->flags & IORING_SETUP_SQPOLL))
		return 1;
	/*
	 * Full barrier: our SQ tail store must be ordered before the load of
	 * the flags; pairs with the SQ thread's barrier between setting
	 * NEED_WAKEUP and re-checking the tail, so one of us sees the other.
	 */
	io_uring_smp_mb();
	if (IO_URING_READ_ONCE(*ring->sq.kflags) & IORING_SQ_NEED_WAKEUP) {
		*flags |= IORING_ENTER_SQ_WAKEUP;
		return 1;
	}
	return 0;
}

/* CQEs parked in the overflow list or task work pending: enter to flush */
static int ar_cq_needs_flush(struct io_uring *ring)
{
	return IO_URING_READ_ONCE(*ring->sq.kflags) &
	       (IORING_SQ_CQ_OVERFLOW | IORING_SQ_TASKRUN);
}

static int ar_cq_needs_enter(struct io_uring *ring)
{
	return (ring->flags & IORING_SETUP_IOPOLL) || ar_cq_needs_flush(ring);
}

/*
 * io_uring_enter on a ring whose engine and object the caller looked up,
 * through its registered fd when it has one. A ring the kernel engine
 * claimed is entered inline (kernel/kernel.h), without the call through
 * the engine's table.
 */
static inline __attribute__((always_inline)) int
ar_enter(const struct ar_engine *e, void *obj, struct io_uring *ring,
	 unsigned submit, unsigned wait_nr, unsigned flags, const void *arg,
	 size_t argsz)
{
	if (ring->int_flags & AR_INT_FLAG_REG_RING)
		flags |= IORING_ENTER_REGISTERED_RING;
	flags |= ring->int_flags & AR_INT_FLAG_NO_IOWAIT;
	if (e->kring && obj)
		return ar_kring_enter(obj, (unsigned)ring->enter_ring_fd,
				      submit, wait_nr, flags, arg, argsz);
	return e->enter(obj, (unsigned)ring->enter_ring_fd, submit, wait_nr,
			flags, arg, argsz);
}

static int ar_ring_enter(struct io_uring *ring, unsigned submit,
			 unsigned wait_nr, unsigned flags, const void *arg,
			 size_t argsz)
{
	void *obj;
	const struct ar_engine *e = ar_ring_lookup(ring, &obj);

	return ar_enter(e, obj, ring, submit, wait_nr, flags, arg, argsz);
}

/*
 * Publish the SQEs handed out by io_uring_get_sqe(). Returns how many the
 * consumer has not taken yet.
 */
static unsigned ar_flush_sq(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned tail = sq->sqe_tail;

	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		/*
		 * Release: the SQE contents are written before the tail is
		 * seen; pairs with the consumer's acquire load of the SQ tail
		 * (the kernel's, the user engine's or the SQ poll thread's).
		 */
		io_uring_smp_store_release(sq->ktail, tail);
	}
	/* acquire pairs with the consumer's release of the SQ head */
	return tail - io_uring_smp_load_acquire(sq->khead);
}

struct ar_get_data {
	unsigned submit;
	unsigned wait_nr;
	unsigned get_flags;
	int has_ts;
	const void *arg;
	size_t argsz;
};

/*
 * The program goes back to its own loop without waiting through us: if
 * the CQ is empty, the ring's engine may stop its ring fd polling
 * readable (the user engine's, docs/semantics.md D1). The look at the CQ
 * is a hint: the engine looks again after it resets.
 */
static inline void ar_cq_idle_on(const struct ar_engine *e, void *obj,
				  struct io_uring *ring)
{
	if (e->cq_idle && obj && IO_URING_READ_ONCE(*ring->cq.khead) ==
				 IO_URING_READ_ONCE(*ring->cq.ktail))
		e->cq_idle(obj);
}

static void ar_cq_idle(struct io_uring *ring)
{
	void *obj;
	const struct ar_engine *e = ar_ring_lookup(ring, &obj);

	ar_cq_idle_on(e, obj, ring);
}

static int ar_get_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
		      struct ar_get_data *d)
{
	struct io_uring_cqe *cqe = NULL;
	int looped = 0;
	int err = 0;

	for (;;) {
		unsigned flags = 0, nr_available;
		int need_enter = 0;
		int ret;

		ret = __io_uring_peek_cqe(ring, &cqe, &nr_available);
		if (ret) {
			if (!err)
				err = ret;
			break;
		}
		if (!cqe && !d->wait_nr && !d->submit) {
			/* a peek: enter once only if something must be flushed */
			if (looped || !ar_cq_needs_enter(ring)) {
				if (!err)
					err = -EAGAIN;
				if (!looped)
					ar_cq_idle(ring);
				break;
			}
			need_enter = 1;
		}
		if (d->wait_nr > nr_available || need_enter) {
			flags = IORING_ENTER_GETEVENTS | d->get_flags;
			need_enter = 1;
		}
		if (ar_sq_needs_enter(ring, d->submit, &flags))
			need_enter = 1;
		if (!need_enter)
			break;
		/* with a timeout the kernel already waited once: don't again */
		if (looped && d->has_ts) {
			const struct io_uring_getevents_arg *a = d->arg;

			/* a registered wait's arg is an offset: it had a timeout */
			if (!cqe && !err &&
			    ((d->get_flags & IORING_ENTER_EXT_ARG_REG) || a->ts))
				err = -ETIME;
			break;
		}
		ret = ar_ring_enter(ring, d->submit, d->wait_nr, flags,
				    d->arg, d->argsz);
		if (ret < 0) {
			if (!err)
				err = ret;
			break;
		}
		d->submit -= ret;
		if (cqe)
			break;
		/* liburing 2.3 returns the first enter's count on success */
		if (!looped) {
			looped = 1;
			err = ret;
		}
	}
	*cqe_ptr = cqe;
	return err;
}

AR_EXPORT int __io_uring_get_cqe(struct io_uring *ring,
				 struct io_uring_cqe **cqe_ptr,
				 unsigned submit, unsigned wait_nr,
				 sigset_t *sigmask)
{
	struct ar_get_data d = {
		.submit = submit,
		.wait_nr = wait_nr,
		.arg = sigmask,
		.argsz = _NSIG / 8,
	};

	return ar_get_cqe(ring, cqe_ptr, &d);
}

/*
 * Without IORING_FEAT_EXT_ARG a wait timeout is an IORING_OP_TIMEOUT SQE
 * whose CQE (user_data LIBURING_UDATA_TIMEOUT) the peek helper swallows.
 */
static int ar_submit_timeout(struct io_uring *ring, unsigned wait_nr,
			     struct __kernel_timespec *ts)
{
	struct io_uring_sqe *sqe;
	int ret;

	sqe = io_uring_get_sqe(ring);
	if (!sqe) {
		ret = io_uring_submit(ring);
		if (ret < 0)
			return ret;
		sqe = io_uring_get_sqe(ring);
		if (!sqe)
			return -EAGAIN;
	}
	io_uring_prep_timeout(sqe, ts, wait_nr, 0);
	sqe->user_data = LIBURING_UDATA_TIMEOUT;
	return (int)ar_flush_sq(ring);
}

/* the EXT_ARG of a wait: sigmask, timeout, min_wait */
static void ar_ext_arg_init(struct ar_getevents_arg *arg,
			    const sigset_t *sigmask,
			    const struct __kernel_timespec *ts,
			    unsigned min_wait_usec)
{
	memset(arg, 0, sizeof(*arg));
	arg->sigmask = (unsigned long)sigmask;
	arg->sigmask_sz = _NSIG / 8;
	arg->min_wait_usec = min_wait_usec;
	arg->ts = (unsigned long)ts;
}

static int ar_wait_ext_arg(struct io_uring *ring,
			   struct io_uring_cqe **cqe_ptr, unsigned submit,
			   unsigned wait_nr, unsigned get_flags,
			   struct ar_getevents_arg *arg)
{
	struct ar_get_data d = {
		.submit = submit,
		.wait_nr = wait_nr,
		.get_flags = IORING_ENTER_EXT_ARG | get_flags,
		.has_ts = arg->ts != 0,
		.arg = arg,
		.argsz = sizeof(*arg),
	};

	return ar_get_cqe(ring, cqe_ptr, &d);
}

/*
 * io_uring_wait_cqes() and, with submit, io_uring_submit_and_wait_timeout():
 * a timeout is an EXT_ARG where the ring has it, else a TIMEOUT SQE (whose
 * submit flushes the SQ in both).
 */
static int ar_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			unsigned wait_nr, struct __kernel_timespec *ts,
			unsigned min_wait_usec, sigset_t *sigmask, bool submit)
{
	struct ar_getevents_arg arg;
	int to_submit = 0;

	if (ts && (ring->features & IORING_FEAT_EXT_ARG)) {
		ar_ext_arg_init(&arg, sigmask, ts, min_wait_usec);
		return ar_wait_ext_arg(ring, cqe_ptr,
				       submit ? ar_flush_sq(ring) : 0, wait_nr,
				       0, &arg);
	}
	if (ts)
		to_submit = ar_submit_timeout(ring, wait_nr, ts);
	else if (submit)
		to_submit = (int)ar_flush_sq(ring);
	if (to_submit < 0)
		return to_submit;
	return __io_uring_get_cqe(ring, cqe_ptr, to_submit, wait_nr, sigmask);
}

AR_EXPORT int io_uring_wait_cqes(struct io_uring *ring,
				 struct io_uring_cqe **cqe_ptr,
				 unsigned wait_nr,
				 struct __kernel_timespec *ts,
				 sigset_t *sigmask)
{
	return ar_wait_cqes(ring, cqe_ptr, wait_nr, ts, 0, sigmask, false);
}

AR_EXPORT int io_uring_submit_and_wait_timeout(struct io_uring *ring,
					       struct io_uring_cqe **cqe_ptr,
					       unsigned wait_nr,
					       struct __kernel_timespec *ts,
					       sigset_t *sigmask)
{
	return ar_wait_cqes(ring, cqe_ptr, wait_nr, ts, 0, sigmask, true);
}

/*
 * liburing 2.8's min-timeout waits: only on a ring with
 * IORING_FEAT_MIN_TIMEOUT (-EINVAL otherwise). The submitting one
 * passes min_wait only along with a timeout (without one it is
 * io_uring_submit_and_wait()'s wait); the other always waits with an
 * EXT_ARG.
 */
AR_EXPORT int io_uring_submit_and_wait_min_timeout(struct io_uring *ring,
						   struct io_uring_cqe **cqe_ptr,
						   unsigned wait_nr,
						   struct __kernel_timespec *ts,
						   unsigned min_wait,
						   sigset_t *sigmask)
{
	if (!(ring->features & IORING_FEAT_MIN_TIMEOUT))
		return -EINVAL;
	return ar_wait_cqes(ring, cqe_ptr, wait_nr, ts, min_wait, sigmask,
			    true);
}

AR_EXPORT int io_uring_wait_cqes_min_timeout(struct io_uring *ring,
					     struct io_uring_cqe **cqe_ptr,
					     unsigned wait_nr,
					     struct __kernel_timespec *ts,
					     unsigned int min_ts_usec,
					     sigset_t *sigmask)
{
	struct ar_getevents_arg arg;

	if (!(ring->features & IORING_FEAT_MIN_TIMEOUT))
		return -EINVAL;
	ar_ext_arg_init(&arg, sigmask, ts, min_ts_usec);
	return ar_wait_ext_arg(ring, cqe_ptr, 0, wait_nr, 0, &arg);
}

/*
 * A wait whose argument is the reg_index'th struct io_uring_reg_wait of
 * the ring's registered wait region (IORING_ENTER_EXT_ARG_REG): the
 * enter passes its offset in the region, not an address.
 */
AR_EXPORT int io_uring_submit_and_wait_reg(struct io_uring *ring,
					   struct io_uring_cqe **cqe_ptr,
					   unsigned wait_nr, int reg_index)
{
	struct ar_get_data d = {
		.wait_nr = wait_nr,
		.get_flags = IORING_ENTER_EXT_ARG | IORING_ENTER_EXT_ARG_REG,
		.has_ts = 1,
		.arg = (const void *)(uintptr_t)((unsigned long)reg_index *
						  sizeof(struct ar_reg_wait)),
		.argsz = sizeof(struct ar_reg_wait),
	};

	/* as liburing: the SQ is published even if the call fails */
	d.submit = ar_flush_sq(ring);
	if (!(ring->features & IORING_FEAT_EXT_ARG))
		return -EINVAL;
	return ar_get_cqe(ring, cqe_ptr, &d);
}

AR_EXPORT int anyring_submit_and_wait_ext(struct io_uring *ring,
					  struct io_uring_cqe **cqe_ptr,
					  unsigned wait_nr,
					  const struct anyring_wait *w)
{
	static const struct anyring_wait none;
	struct ar_getevents_arg arg;
	unsigned flags = 0;

	if (!w)
		w = &none;
	if (w->flags & ~(ANYRING_WAIT_ABS | ANYRING_WAIT_NO_IOWAIT))
		return -EINVAL;
	if (!(ring->features & IORING_FEAT_EXT_ARG))
		return -EOPNOTSUPP;
	if (w->flags & ANYRING_WAIT_ABS)
		flags |= IORING_ENTER_ABS_TIMER;
	if (w->flags & ANYRING_WAIT_NO_IOWAIT)
		flags |= IORING_ENTER_NO_IOWAIT;
	ar_ext_arg_init(&arg, w->sigmask, w->ts, w->min_wait_usec);
	return ar_wait_ext_arg(ring, cqe_ptr, ar_flush_sq(ring), wait_nr,
			       flags, &arg);
}

AR_EXPORT int io_uring_wait_cqe_timeout(struct io_uring *ring,
					struct io_uring_cqe **cqe_ptr,
					struct __kernel_timespec *ts)
{
	return io_uring_wait_cqes(ring, cqe_ptr, 1, ts, NULL);
}

/*
 * liburing's __io_uring_submit() on a ring the kernel engine claimed: its
 * enter inline, and no ar_cq_idle() (the kernel's ring fd follows the CQ
 * by itself). Kept apart from the other engines' path, whose calls
 * through the engine's table would make this one save registers too.
 */
static inline __attribute__((always_inline)) int
ar_submit_kring(struct ar_kring *kr, struct io_uring *ring,
		unsigned submitted, unsigned wait_nr, int getevents)
{
	int cq_needs_enter = getevents || wait_nr || ar_cq_needs_enter(ring);
	unsigned flags = 0;

	if (!ar_sq_needs_enter(ring, submitted, &flags) && !cq_needs_enter)
		return (int)submitted;
	if (cq_needs_enter)
		flags |= IORING_ENTER_GETEVENTS;
	if (ring->int_flags & AR_INT_FLAG_REG_RING)
		flags |= IORING_ENTER_REGISTERED_RING;
	flags |= ring->int_flags & AR_INT_FLAG_NO_IOWAIT;
	return ar_kring_enter(kr, (unsigned)ring->enter_ring_fd, submitted,
			      wait_nr, flags, NULL, _NSIG / 8);
}

/* liburing's __io_uring_submit() on any other ring: its engine's enter */
static __attribute__((noinline)) int
ar_submit_on(const struct ar_engine *e, void *obj, struct io_uring *ring,
	     unsigned submitted, unsigned wait_nr, int getevents)
{
	int cq_needs_enter = getevents || wait_nr || ar_cq_needs_enter(ring);
	int ret = (int)submitted;
	unsigned flags = 0;

	if (ar_sq_needs_enter(ring, submitted, &flags) || cq_needs_enter) {
		if (cq_needs_enter)
			flags |= IORING_ENTER_GETEVENTS;
		if (ring->int_flags & AR_INT_FLAG_REG_RING)
			flags |= IORING_ENTER_REGISTERED_RING;
		flags |= ring->int_flags & AR_INT_FLAG_NO_IOWAIT;
		ret = e->enter(obj, (unsigned)ring->enter_ring_fd, submitted,
			       wait_nr, flags, NULL, _NSIG / 8);
	}
	/* after the submit: what completed inline keeps the fd readable */
	if (!cq_needs_enter)
		ar_cq_idle_on(e, obj, ring);
	return ret;
}

/* one lookup of the ring's engine, then its path */
static inline __attribute__((always_inline)) int
ar_submit(struct io_uring *ring, unsigned submitted, unsigned wait_nr,
	  int getevents)
{
	void *obj;
	const struct ar_engine *e = ar_ring_lookup(ring, &obj);

	if (e->kring && obj)
		return ar_submit_kring(obj, ring, submitted, wait_nr,
				       getevents);
	return ar_submit_on(e, obj, ring, submitted, wait_nr, getevents);
}

AR_EXPORT int io_uring_submit(struct io_uring *ring)
{
	return ar_submit(ring, ar_flush_sq(ring), 0, 0);
}

AR_EXPORT int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
	return ar_submit(ring, ar_flush_sq(ring), wait_nr, 0);
}

AR_EXPORT int io_uring_submit_and_get_events(struct io_uring *ring)
{
	return ar_submit(ring, ar_flush_sq(ring), 0, 1);
}

AR_EXPORT int io_uring_get_events(struct io_uring *ring)
{
	return ar_ring_enter(ring, 0, 0, IORING_ENTER_GETEVENTS, NULL,
			     _NSIG / 8);
}

AR_EXPORT unsigned io_uring_peek_batch_cqe(struct io_uring *ring,
					   struct io_uring_cqe **cqes,
					   unsigned count)
{
	unsigned shift = !!(ring->flags & IORING_SETUP_CQE32);
	int flushed = 0;
	unsigned ready, head, i;

	for (;;) {
		ready = io_uring_cq_ready(ring);
		if (ready) {
			head = *ring->cq.khead;
			if (count > ready)
				count = ready;
			for (i = 0; i < count; i++)
				cqes[i] = &ring->cq.cqes[((head + i) &
						ring->cq.ring_mask) << shift];
			return count;
		}
		/* empty: flush overflowed CQEs or task work once, then look again */
		if (flushed || !ar_cq_needs_flush(ring))
			return 0;
		ar_ring_enter(ring, 0, 0, IORING_ENTER_GETEVENTS, NULL,
			      _NSIG / 8);
		flushed = 1;
	}
}

AR_EXPORT int __io_uring_sqring_wait(struct io_uring *ring)
{
	return ar_ring_enter(ring, 0, 0, IORING_ENTER_SQ_WAIT, NULL,
			     _NSIG / 8);
}

AR_EXPORT struct io_uring_sqe *io_uring_get_sqe(struct io_uring *ring)
{
	return _io_uring_get_sqe(ring);
}

/*
 * Raw io_uring_enter(2): dispatched by fd to the engine that owns it. A
 * registered-ring index (IORING_ENTER_REGISTERED_RING) names no fd: it
 * goes to the engine whose table has it for this thread.
 */
AR_EXPORT int io_uring_enter2(unsigned fd, unsigned to_submit,
			      unsigned min_complete, unsigned flags,
			      void *arg, size_t sz);
AR_EXPORT int io_uring_enter2(unsigned fd, unsigned to_submit,
			      unsigned min_complete, unsigned flags,
			      void *arg, size_t sz)
{
	return ar_enter_fd(fd, to_submit, min_complete, flags, arg, sz);
}

AR_EXPORT int io_uring_enter(unsigned fd, unsigned to_submit,
			     unsigned min_complete, unsigned flags,
			     sigset_t *sig)
{
	return io_uring_enter2(fd, to_submit, min_complete, flags, sig,
			       _NSIG / 8);
}
