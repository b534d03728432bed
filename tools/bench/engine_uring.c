/* SPDX-License-Identifier: MIT */
/*
 * engine_uring.c - the kernel and user engines: io_uring through
 * libanyring (anyring_queue_init_engine), as t/io_uring drives it: SQ and
 * CQ rings of the depth, COOP_TASKRUN + SINGLE_ISSUER + DEFER_TASKRUN
 * (each dropped if refused; not with --split-reap, where another thread
 * waits), IOPOLL with -p 1 (and HYBRID_IOPOLL with --ring-flags=hybrid,
 * never dropped), the ring fd registered, one io_uring_enter per loop
 * turn that submits the batch and waits for -c completions.
 *
 * --reap=eventfd|poll-ringfd is an event loop's shape instead: an epoll
 * set holds an eventfd registered on the ring (or the ring fd itself),
 * io_uring_submit enters only to submit, and the loop sleeps in
 * epoll_wait and reaps the CQ from memory. Such a ring has neither
 * COOP_TASKRUN nor DEFER_TASKRUN: both post completions only when the
 * task enters, which an event loop does not.
 *
 * --fdatasync=1: each write is linked to an FSYNC with
 * IORING_FSYNC_DATASYNC; the write's CQE is skipped on success, so one
 * CQE (the fsync's) completes the slot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include "engine.h"
#include "ext.h"
#include "worker.h"

#define UD_END	UINT64_MAX	/* split: the submitter's end marker */
#define UD_WRITE (1ull << 62)	/* --fdatasync: the write of a pair */

/*
 * The event loop's epoll_wait timeout. EVLOOP_MISSED timeouts in a row
 * while CQEs sit in the CQ are a readiness the engine never gave (the run
 * fails; one could be a poster preempted between its CQE and its signal);
 * EVLOOP_STALLS in a row without any completion fail it too.
 */
#define EVLOOP_TIMEOUT_MS	1000
#define EVLOOP_MISSED		5
#define EVLOOP_STALLS		30

#ifndef IORING_SETUP_HYBRID_IOPOLL
#define IORING_SETUP_HYBRID_IOPOLL	(1U << 17)	/* 6.13; not in liburing 2.3 */
#endif

struct uring_priv {
	struct io_uring ring;
	int fd;			/* in SQEs: the fd or registered index 0 */
	unsigned char sqe_flags;
	bool fixed_bufs;
	bool nop;
	bool fdatasync;		/* --fdatasync=1: WRITE linked to FSYNC */
	enum reap_mode reap;
	int epfd;		/* --reap=eventfd|poll-ringfd: the epoll set */
	int evfd;		/* --reap=eventfd: the registered eventfd */
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
	unsigned per = s->fdatasync ? 2 : 1;	/* SQEs per I/O */
	unsigned entries = s->sq_entries ? s->sq_entries : per * s->depth;
	struct io_uring_params p;
	int ret;

	if (s->split_reap)
		rf &= ~(RINGF_SINGLE | RINGF_DEFER);
	if (s->reap != REAP_ENTER)
		rf &= ~(RINGF_COOP | RINGF_DEFER);
	for (;;) {
		memset(&p, 0, sizeof(p));
		p.flags = setup_flags(rf, s->polled && !s->nop) |
			  IORING_SETUP_CQSIZE;
		p.cq_entries = s->cq_entries ? s->cq_entries : per * s->depth;
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

/* --reap=eventfd|poll-ringfd: the epoll set and what it watches */
static int evloop_init(struct worker *w, struct uring_priv *u)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, ret;

	u->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (u->epfd < 0) {
		ret = -errno;
		worker_fail(w, ret, "epoll_create1: %s", strerror(-ret));
		return ret;
	}
	fd = u->ring.ring_fd;
	if (u->reap == REAP_EVENTFD) {
		u->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (u->evfd < 0) {
			ret = -errno;
			worker_fail(w, ret, "eventfd: %s", strerror(-ret));
			return ret;
		}
		ret = io_uring_register_eventfd(&u->ring, u->evfd);
		if (ret < 0) {
			worker_fail(w, ret, "io_uring_register_eventfd: %s",
				    strerror(-ret));
			return ret;
		}
		fd = u->evfd;
	}
	if (epoll_ctl(u->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		ret = -errno;
		worker_fail(w, ret, "epoll_ctl(%s): %s", u->reap == REAP_EVENTFD ?
			    "the eventfd" : "the ring fd", strerror(-ret));
		return ret;
	}
	return 0;
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
	u->fdatasync = w->spec->fdatasync;
	u->reap = w->spec->reap;
	u->epfd = -1;
	u->evfd = -1;
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
	if (!ret && u->reap != REAP_ENTER)
		ret = evloop_init(w, u);
	return ret;
}

static void uring_exit(struct worker *w)
{
	struct uring_priv *u = w->priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	if (u->epfd >= 0)
		close(u->epfd);
	if (u->evfd >= 0)
		close(u->evfd);
	free(u);
	w->priv = NULL;
}

static inline void prep_rw(struct worker *w, struct uring_priv *u,
			   struct io_uring_sqe *sqe, unsigned slot, bool rd)
{
	uint64_t off = worker_offset(w);
	void *buf = worker_buf(w, slot);

	if (u->fixed_bufs) {
		if (rd)
			io_uring_prep_read_fixed(sqe, u->fd, buf, w->bs, off,
						 (int)slot);
		else
			io_uring_prep_write_fixed(sqe, u->fd, buf, w->bs, off,
						  (int)slot);
	} else if (rd) {
		io_uring_prep_read(sqe, u->fd, buf, w->bs, off);
	} else {
		io_uring_prep_write(sqe, u->fd, buf, w->bs, off);
	}
	sqe->flags = u->sqe_flags;
}

static inline void prep_one(struct worker *w, struct uring_priv *u,
			    struct io_uring_sqe *sqe)
{
	unsigned slot = worker_take(w);

	if (u->nop)
		io_uring_prep_nop(sqe);
	else
		prep_rw(w, u, sqe, slot, worker_is_read(w));
	sqe->user_data = slot;
}

/*
 * --fdatasync=1: WRITE -> FSYNC(DATASYNC), linked; the write's CQE only
 * appears when it fails (or is short, which fails the link).
 */
static void prep_pair(struct worker *w, struct uring_priv *u,
		      struct io_uring_sqe *wr, struct io_uring_sqe *fs)
{
	unsigned slot = worker_take(w);

	prep_rw(w, u, wr, slot, false);
	wr->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
	wr->user_data = UD_WRITE | slot;
	io_uring_prep_fsync(fs, u->fd, IORING_FSYNC_DATASYNC);
	fs->flags = u->sqe_flags;
	fs->user_data = slot;
}

/* Two SQEs of one submission: a link must not be cut by a submit. */
static int prep_pairs(struct worker *w, struct uring_priv *u, unsigned nr)
{
	while (nr--) {
		struct io_uring_sqe *wr, *fs;

		if (io_uring_sq_space_left(&u->ring) < 2)
			io_uring_submit(&u->ring);
		wr = io_uring_get_sqe(&u->ring);
		fs = wr ? io_uring_get_sqe(&u->ring) : NULL;
		if (!fs)
			return -EBUSY;
		prep_pair(w, u, wr, fs);
	}
	return 0;
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
	if (u->fdatasync)
		return prep_pairs(w, u, nr);
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
		else if (__builtin_expect(cqe->user_data & UD_WRITE, 0))
			worker_bad_result(w, cqe->res);	/* failed or short */
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

/*
 * The event loop's reap: the CQ from memory. liburing's peek enters only
 * when the CQ overflowed and must be flushed, as an event loop's would.
 */
static unsigned evloop_reap(struct worker *w, struct uring_priv *u)
{
	struct io_uring_cqe *cqe;
	unsigned n = reap(w, u);

	if (!n && !io_uring_peek_cqe(&u->ring, &cqe))
		n = reap(w, u);
	return n;
}

/* One epoll_wait and what follows it: 0, or -errno to end the run. */
static int evloop_wait(struct worker *w, struct uring_priv *u,
		       unsigned *stalls)
{
	struct epoll_event ev;
	uint64_t cnt;
	int n;

	n = epoll_wait(u->epfd, &ev, 1, EVLOOP_TIMEOUT_MS);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;	/* task work ran */
	w->epoll_waits++;
	if (n == 0) {
		bool waiting = io_uring_cq_ready(&u->ring);

		if (++*stalls < (waiting ? EVLOOP_MISSED : EVLOOP_STALLS))
			return 0;
		if (waiting) {
			worker_fail(w, -ETIMEDOUT, "--reap: CQEs waited %d s in "
				    "the CQ with no readiness on the %s",
				    EVLOOP_MISSED * EVLOOP_TIMEOUT_MS / 1000,
				    u->reap == REAP_EVENTFD ? "eventfd" : "ring fd");
			return -ETIMEDOUT;
		}
		worker_fail(w, -ETIMEDOUT, "--reap: no completion in %d s "
			    "without entering the ring",
			    EVLOOP_STALLS * EVLOOP_TIMEOUT_MS / 1000);
		return -ETIMEDOUT;
	}
	/* reset the counter before reaping: a CQE posted later signals again */
	if (u->evfd >= 0 && read(u->evfd, &cnt, sizeof(cnt)) < 0 &&
	    errno != EAGAIN)
		return -errno;
	if (evloop_reap(w, u))
		*stalls = 0;
	else
		w->epoll_empty++;
	return 0;
}

/*
 * --reap=eventfd|poll-ringfd: submit (entering only for that), then reap
 * from memory and sleep in epoll_wait until wait_nr I/Os completed.
 */
static int evloop_submit_wait(struct worker *w, struct uring_priv *u,
			      unsigned wait_nr)
{
	uint64_t until = w->done + wait_nr;
	unsigned stalls = 0;
	int ret = 0, sub = 0;

	if (io_uring_sq_ready(&u->ring)) {
		ret = io_uring_submit(&u->ring);
		w->calls++;
		if (ret < 0 && !transient(ret))
			return ret;
		sub = ret < 0 ? 0 : ret;
	}
	evloop_reap(w, u);
	while (w->done < until && !w->err) {
		/* SQEs a transient refusal left behind go first */
		if (io_uring_sq_ready(&u->ring)) {
			ret = io_uring_submit(&u->ring);
			if (ret < 0 && !transient(ret))
				return ret;
			sub += ret < 0 ? 0 : ret;
		}
		ret = evloop_wait(w, u, &stalls);
		if (ret < 0)
			return ret;
	}
	return sub;
}

static int uring_submit_wait(struct worker *w, unsigned nr, unsigned wait_nr)
{
	struct uring_priv *u = w->priv;
	int ret = prep(w, u, nr);

	if (ret)
		return ret;
	if (u->reap != REAP_ENTER)
		return evloop_submit_wait(w, u, wait_nr);
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
		    ENG_REG_FILES | ENG_POLICY | ENG_SPLIT | ENG_RING | \
		    ENG_REAP | ENG_FDATASYNC)

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
