/* SPDX-License-Identifier: MIT */
/*
 * engine_uring.c - the kernel and user engines: io_uring through
 * libanyring (anyring_queue_init_engine), as t/io_uring drives it: SQ and
 * CQ rings of the depth, COOP_TASKRUN + SINGLE_ISSUER + DEFER_TASKRUN
 * (each dropped if refused; not with --split-reap, where another thread
 * waits), IOPOLL with -p 1 (and HYBRID_IOPOLL with --ring-flags=hybrid,
 * never dropped), the ring fd registered, one io_uring_enter per loop
 * turn that submits the batch and waits for -c completions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "engine.h"
#include "ext.h"
#include "worker.h"

#define UD_END	UINT64_MAX	/* split: the submitter's end marker */

#ifndef IORING_SETUP_HYBRID_IOPOLL
#define IORING_SETUP_HYBRID_IOPOLL	(1U << 17)	/* 6.13; not in liburing 2.3 */
#endif

struct uring_priv {
	struct io_uring ring;
	int fd;			/* in SQEs: the fd or registered index 0 */
	unsigned char sqe_flags;
	bool fixed_bufs;
	bool nop;
};

/* RINGF_* to IORING_SETUP_* (HYBRID_IOPOLL only goes with IOPOLL) */
static unsigned setup_flags(unsigned rf, bool polled)
{
	unsigned f = 0;

	if (rf & RINGF_COOP)
		f |= IORING_SETUP_COOP_TASKRUN;
	if (rf & RINGF_SINGLE)
		f |= IORING_SETUP_SINGLE_ISSUER;
	if (rf & RINGF_DEFER)
		f |= IORING_SETUP_DEFER_TASKRUN;
	if (polled) {
		f |= IORING_SETUP_IOPOLL;
		if (rf & RINGF_HYBRID)
			f |= IORING_SETUP_HYBRID_IOPOLL;
	}
	return f;
}

static int ring_create(struct worker *w, struct uring_priv *u)
{
	const struct job_spec *s = w->spec;
	unsigned rf = s->ring_flags;
	unsigned entries = s->sq_entries ? s->sq_entries : s->depth;
	struct io_uring_params p;
	int ret;

	if (s->split_reap)
		rf &= ~(RINGF_SINGLE | RINGF_DEFER);
	for (;;) {
		memset(&p, 0, sizeof(p));
		p.flags = setup_flags(rf, s->polled && !s->nop) |
			  IORING_SETUP_CQSIZE;
		p.cq_entries = s->cq_entries ? s->cq_entries : s->depth;
		if (s->split_reap && !s->cq_entries)
			p.cq_entries = 2 * s->depth;	/* room for the marker */
		ret = anyring_queue_init_engine(s->engine, entries, &u->ring, &p);
		if (ret != -EINVAL || !(rf & RINGF_TIO))
			return ret;
		/* t/io_uring's order: COOP, then SINGLE, then DEFER */
		if (rf & RINGF_COOP)
			rf &= ~RINGF_COOP;
		else if (rf & RINGF_SINGLE)
			rf &= ~RINGF_SINGLE;
		else
			rf &= ~RINGF_DEFER;
	}
}

static int register_resources(struct worker *w, struct uring_priv *u)
{
	const struct job_spec *s = w->spec;
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	int ret;

	/* a registered ring fd is per thread: not when another one waits */
	if (!s->split_reap)
		io_uring_register_ring_fd(&u->ring);
	if (s->fixed_bufs && !s->nop) {
		setrlimit(RLIMIT_MEMLOCK, &rl);	/* older kernels need it */
		ret = io_uring_register_buffers(&u->ring, w->iov, w->nslots);
		if (ret < 0) {
			worker_fail(w, ret, "registering buffers: %s",
				    strerror(-ret));
			return ret;
		}
		u->fixed_bufs = true;
	}
	if (s->reg_files && w->fd >= 0) {
		ret = io_uring_register_files(&u->ring, &w->fd, 1);
		if (ret < 0) {
			worker_fail(w, ret, "registering the file: %s",
				    strerror(-ret));
			return ret;
		}
		u->fd = 0;
		u->sqe_flags = IOSQE_FIXED_FILE;
	}
	return 0;
}

static int apply_policy(struct worker *w, struct uring_priv *u)
{
	struct anyring_policy pol;
	int ret;

	if (!w->spec->policy)
		return 0;
	ret = ext_policy_parse(w->spec->policy, &pol);
	if (!ret)
		ret = ext_ring_set_policy(&u->ring, &pol);
	if (ret < 0)
		worker_fail(w, ret, "--policy=%s on the %s engine: %s",
			    w->spec->policy, w->spec->engine, strerror(-ret));
	return ret;
}

static int uring_init(struct worker *w)
{
	struct uring_priv *u = calloc(1, sizeof(*u));
	int ret;

	if (!u)
		return -ENOMEM;
	w->priv = u;
	u->fd = w->fd;
	u->nop = w->spec->nop;
	ret = ring_create(w, u);
	if (ret < 0) {
		worker_fail(w, ret, "%s engine: ring setup: %s", w->spec->engine,
			    strerror(-ret));
		free(u);
		w->priv = NULL;
		return ret;
	}
	w->ring_sq = u->ring.sq.ring_entries;
	w->ring_cq = u->ring.cq.ring_entries;
	w->ring_setup = u->ring.flags;
	ret = register_resources(w, u);
	if (!ret)
		ret = apply_policy(w, u);
	return ret;
}

static void uring_exit(struct worker *w)
{
	struct uring_priv *u = w->priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
	w->priv = NULL;
}

static inline void prep_one(struct worker *w, struct uring_priv *u,
			    struct io_uring_sqe *sqe)
{
	unsigned slot = worker_take(w);

	if (u->nop) {
		io_uring_prep_nop(sqe);
	} else {
		uint64_t off = worker_offset(w);
		void *buf = worker_buf(w, slot);

		if (u->fixed_bufs) {
			if (worker_is_read(w))
				io_uring_prep_read_fixed(sqe, u->fd, buf, w->bs,
							 off, (int)slot);
			else
				io_uring_prep_write_fixed(sqe, u->fd, buf, w->bs,
							  off, (int)slot);
		} else if (worker_is_read(w)) {
			io_uring_prep_read(sqe, u->fd, buf, w->bs, off);
		} else {
			io_uring_prep_write(sqe, u->fd, buf, w->bs, off);
		}
		sqe->flags = u->sqe_flags;
	}
	sqe->user_data = slot;
}

/* An SQE; the SQ only fills up when a submit was cut short. */
static struct io_uring_sqe *get_sqe(struct uring_priv *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (__builtin_expect(!sqe, 0)) {
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static int prep(struct worker *w, struct uring_priv *u, unsigned nr)
{
	while (nr--) {
		struct io_uring_sqe *sqe = get_sqe(u);

		if (!sqe)
			return -EBUSY;
		prep_one(w, u, sqe);
	}
	return 0;
}

static unsigned reap(struct worker *w, struct uring_priv *u)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	worker_reap_start(w);
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		if (__builtin_expect(cqe->user_data == UD_END, 0))
			w->end_seen = true;
		else
			worker_complete(w, (unsigned)cqe->user_data, cqe->res);
		n++;
	}
	io_uring_cq_advance(&u->ring, n);
	return n;
}

/* Results of enter that only mean "not now". */
static int transient(int ret)
{
	return ret == -EAGAIN || ret == -EBUSY || ret == -EINTR ||
	       ret == -ETIME;
}

static int uring_submit_wait(struct worker *w, unsigned nr, unsigned wait_nr)
{
	struct uring_priv *u = w->priv;
	int ret = prep(w, u, nr);

	if (ret)
		return ret;
	ret = io_uring_submit_and_wait(&u->ring, wait_nr);
	w->calls++;
	if (ret < 0 && !transient(ret))
		return ret;
	reap(w, u);
	return ret < 0 ? 0 : ret;
}

static int uring_submit(struct worker *w, unsigned nr)
{
	struct uring_priv *u = w->priv;
	int ret = prep(w, u, nr);

	if (ret)
		return ret;
	ret = io_uring_submit(&u->ring);
	w->calls++;
	if (ret < 0 && !transient(ret))
		return ret;
	return ret < 0 ? 0 : ret;
}

static int uring_reap(struct worker *w, unsigned wait_nr)
{
	struct uring_priv *u = w->priv;
	struct io_uring_cqe *cqe;
	int ret;

	/*
	 * Bounded: the reaper re-reads what is in flight every 100 ms, so a
	 * count that went stale at the end of a run cannot strand it.
	 */
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };

	ret = io_uring_wait_cqes(&u->ring, &cqe, wait_nr, &ts, NULL);
	w->rcalls++;
	if (ret < 0 && ret != -ETIME && !transient(ret))
		return ret;
	return (int)reap(w, u);
}

static int uring_post_end(struct worker *w)
{
	struct uring_priv *u = w->priv;
	struct io_uring_sqe *sqe = get_sqe(u);
	int ret;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_nop(sqe);
	sqe->user_data = UD_END;
	do {
		ret = io_uring_submit(&u->ring);
	} while (ret == -EINTR || ret == -EAGAIN);
	return ret < 0 ? ret : 0;
}

static int uring_stats(struct worker *w, struct anyring_stats *st)
{
	struct uring_priv *u = w->priv;

	return ext_ring_stats(&u->ring, st);
}

static int uring_stats_reset(struct worker *w)
{
	struct uring_priv *u = w->priv;

	return ext_ring_stats_reset(&u->ring);
}

#define URING_CAPS (ENG_QUEUE | ENG_NOP | ENG_POLLED | ENG_FIXED_BUFS | \
		    ENG_REG_FILES | ENG_POLICY | ENG_SPLIT | ENG_RING)

const struct bench_engine engine_kernel = {
	.name = "kernel",
	.help = "the kernel's io_uring through libanyring",
	.caps = URING_CAPS,
	.init = uring_init,
	.exit = uring_exit,
	.submit_wait = uring_submit_wait,
	.submit = uring_submit,
	.reap = uring_reap,
	.post_end = uring_post_end,
	.stats = uring_stats,
	.stats_reset = uring_stats_reset,
};

const struct bench_engine engine_user = {
	.name = "user",
	.help = "libanyring's io_uring in the process (also serves sim:)",
	.caps = URING_CAPS | ENG_SIM,
	.init = uring_init,
	.exit = uring_exit,
	.submit_wait = uring_submit_wait,
	.submit = uring_submit,
	.reap = uring_reap,
	.post_end = uring_post_end,
	.stats = uring_stats,
	.stats_reset = uring_stats_reset,
};
