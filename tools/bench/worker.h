/* SPDX-License-Identifier: MIT */
/*
 * worker.h - one benchmark thread: its target fd, its slots (buffer and
 * submit time per I/O in flight), its offset generator, its counters and
 * its latency histogram; and the inline helpers engines call per I/O.
 * Nothing here allocates; the hot path is: take a slot, compute an offset,
 * prepare, submit; reap, check the result, record the latency, give the
 * slot back.
 */
#ifndef BENCH_WORKER_H
#define BENCH_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include "engine.h"
#include "hist.h"
#include "job.h"
#include "now.h"
#include "pool.h"
#include "prng.h"

/* Published for the per-second line; each field has one writer. */
struct worker_counters {
	_Atomic uint64_t taken;		/* I/Os started (submitter) */
	_Atomic uint64_t submitted;	/* I/Os the engine took (submitter) */
	_Atomic uint64_t calls;		/* submit/wait calls (submitter) */
	_Atomic uint64_t done;		/* completions (reaper) */
	_Atomic uint64_t rcalls;	/* wait calls of a split reaper */
} __attribute__((aligned(64)));

struct worker {
	const struct job_spec *spec;
	const struct bench_engine *eng;
	unsigned id;
	_Atomic bool *stop;		/* the job's */

	/* the target (target.c); fd -1 with -N 1 */
	int fd;
	uint64_t nblocks;		/* bs-sized blocks in the region */

	/* copied from the spec for the hot path */
	unsigned bs;
	unsigned read_pct;
	bool random, track;
	int expect_res;			/* bs, or 0 for NOP */

	/* offsets */
	uint64_t rng;
	uint64_t next_blk;

	/* slots */
	unsigned nslots;
	char *bufs;			/* nslots * bs, page aligned */
	struct iovec *iov;		/* one per slot */
	_Atomic uint64_t *slot_ts;	/* submit time per slot, with -t */
	struct slot_pool pool;
	uint64_t submit_now;		/* this batch's submit time */
	uint64_t reap_now;		/* this reap pass's time */

	/* the submitting thread's counters */
	uint64_t taken, submitted, calls;
	/* the reaping thread's (the same thread unless split) */
	uint64_t done, rcalls;
	uint64_t epoll_waits, epoll_empty;	/* --reap=eventfd|poll-ringfd */
	bool end_seen;			/* split: the submitter's end marker */
	struct worker_counters pub;

	struct lat_hist *hist;		/* the reaper's */
	void *priv;			/* the engine's */

	int err;			/* first error, -errno */
	char errmsg[200];
	bool has_stats;
	struct anyring_stats stats;
	unsigned ring_sq, ring_cq;	/* ring engines: the sizes they got */
	unsigned ring_setup;		/* ... and IORING_SETUP_* */
	void *job;			/* job.c's */
	pthread_t thread;
};

/* Record the worker's first error and stop the job. */
void worker_fail(struct worker *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A completion whose result is not the expected one. */
void worker_bad_result(struct worker *w, int res);

/* The thread body: setup done by job.c; runs until the job stops. */
int worker_run(struct worker *w);
/* Allocate slots, buffers and the histogram; 0 or -ENOMEM. */
int worker_alloc(struct worker *w);
void worker_free(struct worker *w);

static inline bool worker_stopping(const struct worker *w)
{
	return atomic_load_explicit(w->stop, memory_order_relaxed);
}

/* Call once before preparing a batch of I/Os. */
static inline void worker_batch_start(struct worker *w)
{
	if (w->track)
		w->submit_now = now_ns();
}

/* Call once after a wait returned, before handing completions over. */
static inline void worker_reap_start(struct worker *w)
{
	if (w->track)
		w->reap_now = now_ns();
}

/* A free slot for the next I/O (the caller knows one is free). */
static inline unsigned worker_take(struct worker *w)
{
	unsigned slot = (unsigned)pool_take(&w->pool);

	w->taken++;
	if (w->track)
		atomic_store_explicit(&w->slot_ts[slot], w->submit_now,
				      memory_order_relaxed);
	return slot;
}

static inline void *worker_buf(const struct worker *w, unsigned slot)
{
	return w->iov[slot].iov_base;
}

/* The next I/O's byte offset. */
static inline uint64_t worker_offset(struct worker *w)
{
	uint64_t blk;

	if (w->random) {
		blk = prng_below(&w->rng, w->nblocks);
	} else {
		blk = w->next_blk++;
		if (w->next_blk == w->nblocks)
			w->next_blk = 0;
	}
	return blk * w->bs;
}

/* Is the next I/O a read? (--rw, --rwmix) */
static inline bool worker_is_read(struct worker *w)
{
	if (w->read_pct >= 100)
		return true;
	if (!w->read_pct)
		return false;
	return prng_below(&w->rng, 100) < w->read_pct;
}

/* One completion of slot with result res. */
static inline void worker_complete(struct worker *w, unsigned slot, int res)
{
	if (__builtin_expect(res != w->expect_res, 0))
		worker_bad_result(w, res);
	if (w->track) {
		uint64_t t0 = atomic_load_explicit(&w->slot_ts[slot],
						   memory_order_relaxed);

		/* split: a CQE may be newer than reap_now; count it as 0 */
		hist_add(w->hist, w->reap_now > t0 ? w->reap_now - t0 : 0, 1);
	}
	w->done++;
	pool_give(&w->pool, slot);
}

#endif
