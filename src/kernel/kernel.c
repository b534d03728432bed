/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - the kernel engine: the real io_uring through raw syscalls.
 *
 * Setup, enter and register go straight to the kernel. Mapping follows the
 * kernel's offsets: the SQ ring, the CQ ring (the same mapping when the
 * kernel reports IORING_FEAT_SINGLE_MMAP) and the SQE array.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include "kernel/kernel.h"
#include "lib/clock.h"
#include "lib/uaccess.h"
#include "lib/waitloop.h"

static size_t ar_sqe_size(unsigned flags)
{
	return sizeof(struct io_uring_sqe) << !!(flags & IORING_SETUP_SQE128);
}

static size_t ar_cqe_size(unsigned flags)
{
	return sizeof(struct io_uring_cqe) << !!(flags & IORING_SETUP_CQE32);
}

static void ar_kernel_unmap(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	struct io_uring_cq *cq = &ring->cq;

	if (sq->sqes && sq->sqes != MAP_FAILED)
		munmap(sq->sqes, ar_sqe_size(ring->flags) * sq->ring_entries);
	if (cq->ring_ptr && cq->ring_ptr != MAP_FAILED &&
	    cq->ring_ptr != sq->ring_ptr)
		munmap(cq->ring_ptr, cq->ring_sz);
	if (sq->ring_ptr && sq->ring_ptr != MAP_FAILED)
		munmap(sq->ring_ptr, sq->ring_sz);
	sq->ring_ptr = cq->ring_ptr = NULL;
	sq->sqes = NULL;
}

static void *ar_map(int fd, size_t len, off_t off)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, off);
}

/* the CQ indices, for polling policies and the completion count */
static void ar_kring_mapped(struct ar_kring *kr, struct io_uring_cq *cq)
{
	if (!kr || kr->cq_ktail)
		return;
	kr->cq_khead = cq->khead;
	kr->cq_ktail = cq->ktail;
	kr->cq_base = io_uring_smp_load_acquire(cq->ktail);
}

/*
 * The ring's pointers into the rings at sq.ring_ptr and cq.ring_ptr, by
 * the offsets the kernel filled in p: the kernel's mapping, or memory the
 * program gave (IORING_SETUP_NO_MMAP, src/api/setup.c).
 */
void ar_kring_pointers(struct io_uring *ring, const struct io_uring_params *p)
{
	struct io_uring_sq *sq = &ring->sq;
	struct io_uring_cq *cq = &ring->cq;
	char *s = sq->ring_ptr, *c = cq->ring_ptr;

	sq->khead = (unsigned *)(s + p->sq_off.head);
	sq->ktail = (unsigned *)(s + p->sq_off.tail);
	sq->kring_mask = (unsigned *)(s + p->sq_off.ring_mask);
	sq->kring_entries = (unsigned *)(s + p->sq_off.ring_entries);
	sq->kflags = (unsigned *)(s + p->sq_off.flags);
	sq->kdropped = (unsigned *)(s + p->sq_off.dropped);
	if (!(p->flags & IORING_SETUP_NO_SQARRAY))
		sq->array = (unsigned *)(s + p->sq_off.array);
	sq->ring_mask = *sq->kring_mask;
	sq->ring_entries = *sq->kring_entries;

	cq->khead = (unsigned *)(c + p->cq_off.head);
	cq->ktail = (unsigned *)(c + p->cq_off.tail);
	cq->kring_mask = (unsigned *)(c + p->cq_off.ring_mask);
	cq->kring_entries = (unsigned *)(c + p->cq_off.ring_entries);
	cq->koverflow = (unsigned *)(c + p->cq_off.overflow);
	cq->cqes = (struct io_uring_cqe *)(c + p->cq_off.cqes);
	if (p->cq_off.flags)
		cq->kflags = (unsigned *)(c + p->cq_off.flags);
	cq->ring_mask = *cq->kring_mask;
	cq->ring_entries = *cq->kring_entries;
}

static int ar_kernel_mmap(void *obj, int fd, struct io_uring_params *p,
			  struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	struct io_uring_cq *cq = &ring->cq;
	int err;

	/* with NO_SQARRAY the SQ ring ends at the last field, there is no array */
	if (p->flags & IORING_SETUP_NO_SQARRAY)
		sq->ring_sz = p->sq_off.dropped + sizeof(unsigned);
	else
		sq->ring_sz = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	cq->ring_sz = p->cq_off.cqes + p->cq_entries * ar_cqe_size(p->flags);
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		if (cq->ring_sz > sq->ring_sz)
			sq->ring_sz = cq->ring_sz;
		cq->ring_sz = sq->ring_sz;
	}

	/* set now so a failed mapping is unmapped with the right lengths */
	ring->flags = p->flags;
	sq->ring_entries = p->sq_entries;
	sq->ring_ptr = ar_map(fd, sq->ring_sz, IORING_OFF_SQ_RING);
	if (sq->ring_ptr == MAP_FAILED)
		goto fail;
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		cq->ring_ptr = sq->ring_ptr;
	} else {
		cq->ring_ptr = ar_map(fd, cq->ring_sz, IORING_OFF_CQ_RING);
		if (cq->ring_ptr == MAP_FAILED)
			goto fail;
	}
	sq->sqes = ar_map(fd, ar_sqe_size(p->flags) * p->sq_entries,
			  IORING_OFF_SQES);
	if (sq->sqes == MAP_FAILED)
		goto fail;

	ar_kring_pointers(ring, p);
	ar_kring_mapped(obj, cq);
	return 0;
fail:
	err = -errno;
	ar_kernel_unmap(ring);
	return err;
}

static int ar_kernel_close(void *obj, int fd)
{
	struct ar_kring *kr = obj;

	if (kr) {
		ar_engine_release_fd(fd);
		free(kr);
	}
	return ar_sys_close(fd);
}

/* a policy other than a plain io_uring_enter's shapes the ring's waits */
static bool ar_kpolicy_shapes(const struct anyring_policy *p)
{
	return p->wait != ANYRING_WAITP_SLEEP || p->iowait == ANYRING_IOWAIT_OFF;
}

static void ar_kpolicy_resolve(struct anyring_policy *p)
{
	p->wake = ANYRING_WAKE_THRESHOLD;	/* io_should_wake */
	p->complete = ANYRING_COMPLETE_DEFAULT;	/* the kernel's, per its flags */
	p->issue = ANYRING_ISSUE_INLINE;	/* io_submit_sqes issues in the task */
	p->block = ANYRING_BLOCK_WORKER;	/* io-wq */
	if (!p->wait)
		p->wait = ANYRING_WAITP_SLEEP;	/* plain io_uring_enter */
	if (!p->iowait)
		p->iowait = ANYRING_IOWAIT_ON;
}

static int ar_kernel_setup(unsigned entries, struct io_uring_params *p)
{
	struct ar_kring *kr;
	int fd = ar_sys_setup(entries, p);

	if (fd < 0)
		return fd;
	kr = calloc(1, sizeof(*kr));
	if (!kr) {
		/* a ring without policies or counters, not a failed setup */
		ar_engine_release_fd(fd);
		return fd;
	}
	kr->flags = p->flags;
	kr->features = p->features;
	ar_policy_env(&kr->pol);
	/* wake= and complete= are the kernel's own; iowait=off needs NO_IOWAIT */
	if (kr->pol.iowait == ANYRING_IOWAIT_OFF &&
	    !(p->features & IORING_FEAT_NO_IOWAIT))
		kr->pol.iowait = ANYRING_IOWAIT_DEFAULT;
	ar_kpolicy_resolve(&kr->pol);
	kr->shaped = ar_kpolicy_shapes(&kr->pol);
	if (ar_engine_claim_fd(fd, &ar_kernel_engine, kr)) {
		free(kr);
		ar_engine_release_fd(fd);
	}
	return fd;
}

/* one thread's wait on a kernel ring, for the poll loop's callbacks */
struct ar_kring_wait {
	struct ar_kring *kr;
	unsigned min_complete;
};

static bool ar_kring_poll_done(void *arg)
{
	struct ar_kring_wait *w = arg;

	return ar_kring_ready(w->kr) >= w->min_complete;
}

static void ar_kring_count_sleep(void *arg, uint64_t ns)
{
	struct ar_kring *kr = ((struct ar_kring_wait *)arg)->kr;

	ar_kadd(kr, sleeps, 1);
	ar_kadd(kr, sleep_ns, ns);
}

static void ar_kring_count_polls(void *arg, uint64_t n)
{
	struct ar_kring *kr = ((struct ar_kring_wait *)arg)->kr;

	ar_kadd(kr, poll_loops, n);
}

/* a signal during the timed sleep: the enter that follows reports it */
static const struct ar_wait_poll_ops ar_kring_poll_ops = {
	.done		= ar_kring_poll_done,
	.count_sleep	= ar_kring_count_sleep,
	.count_polls	= ar_kring_count_polls,
	.stop_on_signal	= false,
};

/*
 * The wait= policy before entering to sleep (waitloop.h): a timed sleep
 * (hybrid), then polling the CQ. True when min_complete CQEs came.
 */
static bool ar_kring_poll(struct ar_kring *kr, unsigned min_complete,
			  const sigset_t *sigmask)
{
	struct ar_kring_wait w = { .kr = kr, .min_complete = min_complete };
	unsigned long long done = io_uring_smp_load_acquire(kr->cq_ktail) -
				  kr->cq_base;
	bool inflight = (kr->flags & IORING_SETUP_SQPOLL) ||
		__atomic_load_n(&kr->submissions, __ATOMIC_RELAXED) > done;

	return ar_wait_poll(&kr->pol, &kr->west, inflight, 0, 0, sigmask,
			    &ar_kring_poll_ops, &w) > 0;
}

/*
 * A wait the library may poll for first: the CQ is mapped, CQEs appear
 * without entering (not IOPOLL, not DEFER_TASKRUN), and the wait has no
 * timeout or min_wait to keep exact.
 */
static bool ar_kring_may_poll(const struct ar_kring *kr, unsigned flags,
			      const void *arg, size_t argsz,
			      const sigset_t **sigmask)
{
	struct ar_getevents_arg ea;

	if (!kr->cq_ktail || kr->pol.wait == ANYRING_WAITP_SLEEP ||
	    (kr->flags & (IORING_SETUP_IOPOLL | IORING_SETUP_DEFER_TASKRUN)))
		return false;
	if (flags & IORING_ENTER_EXT_ARG_REG)
		return false;	/* an offset in a registered wait region */
	if (!(flags & IORING_ENTER_EXT_ARG)) {
		*sigmask = arg;
		return true;
	}
	/*
	 * The argument is the application's: copied fault-safe. One the
	 * kernel would refuse (NULL, a bad size, a fault) goes to it
	 * unpolled, to get its errno.
	 */
	if (!arg || argsz != sizeof(ea) ||
	    ar_copy_from_user(&ea, arg, sizeof(ea)) || ea.ts ||
	    ea.min_wait_usec)
		return false;
	*sigmask = (const sigset_t *)(unsigned long)ea.sigmask;
	return true;
}

/*
 * A wait that a wait= or iowait= policy shapes: poll first (hybrid, spin,
 * adaptive), learn the sleep's length, NO_IOWAIT. Out of line, so that
 * the default enter stays as short as liburing's.
 */
int ar_kring_enter_policy(struct ar_kring *kr, unsigned fd, unsigned to_submit,
			  unsigned min_complete, unsigned flags,
			  const void *arg, size_t argsz)
{
	const sigset_t *sigmask = NULL;
	int ret, submitted = 0;
	bool sleep, learn;
	__u64 t0;

	ar_kadd(kr, enters, 1);
	if (kr->pol.iowait == ANYRING_IOWAIT_OFF)
		flags |= IORING_ENTER_NO_IOWAIT;
	if (kr->pol.wait != ANYRING_WAITP_SLEEP &&
	    ar_kring_may_poll(kr, flags, arg, argsz, &sigmask)) {
		if (to_submit) {
			ret = ar_sys_enter(fd, to_submit, 0, flags &
					   (IORING_ENTER_SQ_WAKEUP |
					    IORING_ENTER_REGISTERED_RING),
					   NULL, 0);
			if (ret < 0)
				return ret;
			ar_kadd(kr, submissions, (unsigned)ret);
			ar_kadd(kr, enters, 1);
			submitted = ret;
			to_submit = 0;
			flags &= ~IORING_ENTER_SQ_WAKEUP;
		}
		if (ar_kring_poll(kr, min_complete, sigmask))
			return submitted;
	}
	/* to sleep in the kernel, unless the CQEs came meanwhile */
	sleep = ar_kring_ready(kr) < min_complete;
	/* the wait is timed only where a polling policy learns from it */
	learn = sleep && kr->pol.wait != ANYRING_WAITP_SLEEP;
	t0 = learn ? ar_now_ns() : 0;
	ret = ar_sys_enter(fd, to_submit, min_complete, flags, arg, argsz);
	if (ret > 0 && to_submit)
		ar_kadd(kr, submissions, (unsigned)ret);
	if (sleep) {
		ar_kadd(kr, sleeps, 1);
		if (ret >= 0)
			ar_kadd(kr, wakeups, 1);
	}
	if (learn && ret >= 0) {
		__u64 t = ar_now_ns() - t0;

		ar_kadd(kr, sleep_ns, t);
		ar_wait_learn(&kr->west, t);
	}
	return submitted ? submitted : ret;
}

/* an fd no engine claimed: the kernel's, or a dup of a user ring's */
static __attribute__((noinline)) int
ar_kernel_enter_bare(unsigned fd, unsigned to_submit, unsigned min_complete,
		     unsigned flags, const void *arg, size_t argsz)
{
	const struct ar_engine *e;
	void *obj;
	int ret;

	ret = ar_sys_enter(fd, to_submit, min_complete, flags, arg, argsz);
	if (ret < 0 && (e = ar_engine_disowned((int)fd,
			flags & IORING_ENTER_REGISTERED_RING, ret, &obj)))
		ret = e->enter(obj, fd, to_submit, min_complete, flags, arg,
			       argsz);
	return ret;
}

/*
 * io_uring_enter on a kernel ring: kr is the ring's object (its fd may be
 * a registered index the kernel resolves), or NULL for a bare syscall.
 */
static int ar_kernel_enter(void *obj, unsigned fd, unsigned to_submit,
			   unsigned min_complete, unsigned flags,
			   const void *arg, size_t argsz)
{
	if (obj)
		return ar_kring_enter(obj, fd, to_submit, min_complete, flags,
				      arg, argsz);
	return ar_kernel_enter_bare(fd, to_submit, min_complete, flags, arg,
				    argsz);
}

/*
 * io_uring_register: the kernel's, whatever the library keeps; an fd no
 * engine claimed may be a dup of a user ring's fd.
 */
static int ar_kernel_register(void *obj, unsigned fd, unsigned opcode,
			      const void *arg, unsigned nr_args)
{
	const struct ar_engine *e;
	int ret = ar_sys_register(fd, opcode, arg, nr_args);

	if ((opcode & ~IORING_REGISTER_USE_REGISTERED_RING) ==
	    IORING_REGISTER_RING_FDS && ret > 0)
		ar_engine_kernel_index_used();
	if (ret < 0 && !obj &&
	    (e = ar_engine_disowned((int)fd,
			opcode & IORING_REGISTER_USE_REGISTERED_RING, ret, &obj)))
		ret = e->reg(obj, fd, opcode, arg, nr_args);
	return ret;
}

static int ar_kernel_policy(void *obj, const struct anyring_policy *set,
			    struct anyring_policy *get)
{
	struct ar_kring *kr = obj;
	struct anyring_policy p;

	if (!kr)
		return -EOPNOTSUPP;
	if (set) {
		if (set->wake || set->complete ||
		    set->issue == ANYRING_ISSUE_SPREAD ||
		    set->block == ANYRING_BLOCK_WAITER)
			return -EOPNOTSUPP;	/* the kernel's own */
		if (set->iowait == ANYRING_IOWAIT_OFF &&
		    !(kr->features & IORING_FEAT_NO_IOWAIT))
			return -EOPNOTSUPP;
		p = *set;
		ar_kpolicy_resolve(&p);
		/* read racily by waiting threads: each field on its own */
		__atomic_store_n(&kr->pol.wait, p.wait, __ATOMIC_RELAXED);
		__atomic_store_n(&kr->pol.iowait, p.iowait, __ATOMIC_RELAXED);
		__atomic_store_n(&kr->pol.spin_usec, p.spin_usec, __ATOMIC_RELAXED);
		__atomic_store_n(&kr->shaped, ar_kpolicy_shapes(&p),
				 __ATOMIC_RELAXED);
	}
	if (get) {
		memset(get, 0, sizeof(*get));
		get->wake = kr->pol.wake;
		get->complete = kr->pol.complete;
		get->issue = kr->pol.issue;
		get->block = kr->pol.block;
		get->wait = __atomic_load_n(&kr->pol.wait, __ATOMIC_RELAXED);
		get->iowait = __atomic_load_n(&kr->pol.iowait, __ATOMIC_RELAXED);
		get->spin_usec = __atomic_load_n(&kr->pol.spin_usec, __ATOMIC_RELAXED);
	}
	return 0;
}

static int ar_kernel_stats(void *obj, struct anyring_stats *st, bool reset)
{
	struct ar_kring *kr = obj;
	unsigned tail;

	if (!kr)
		return -EOPNOTSUPP;
	tail = kr->cq_ktail ? io_uring_smp_load_acquire(kr->cq_ktail) : 0;
	if (reset) {
		kr->cq_base = tail;
		kr->enters = kr->submissions = kr->sleeps = kr->wakeups = 0;
		kr->poll_loops = kr->sleep_ns = 0;
		return 0;
	}
	memset(st, 0, sizeof(*st));
	st->submissions = __atomic_load_n(&kr->submissions, __ATOMIC_RELAXED);
	st->completions = (unsigned)(tail - kr->cq_base);
	st->enters = __atomic_load_n(&kr->enters, __ATOMIC_RELAXED);
	st->sleeps = __atomic_load_n(&kr->sleeps, __ATOMIC_RELAXED);
	st->wakeups = __atomic_load_n(&kr->wakeups, __ATOMIC_RELAXED);
	st->poll_loops = __atomic_load_n(&kr->poll_loops, __ATOMIC_RELAXED);
	st->sleep_ns = __atomic_load_n(&kr->sleep_ns, __ATOMIC_RELAXED);
	return 0;
}

const struct ar_engine ar_kernel_engine = {
	.name	= "kernel",
	.kring	= true,
	.setup	= ar_kernel_setup,
	.mmap	= ar_kernel_mmap,
	.unmap	= ar_kernel_unmap,
	.enter	= ar_kernel_enter,
	.reg	= ar_kernel_register,
	.close	= ar_kernel_close,
	.policy	= ar_kernel_policy,
	.stats	= ar_kernel_stats,
};
