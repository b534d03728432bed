/* SPDX-License-Identifier: MIT */
/*
 * worker.c - the benchmark loop every engine runs under, in two shapes:
 *
 * loop (default, t/io_uring's): one thread fills the queue to the depth
 *   in batches of -s without waiting; once it cannot add a full batch,
 *   every call submits what was reaped and waits for -c completions, in
 *   one io_uring_enter for the io_uring engines.
 *
 * split (--split-reap): the thread submits -s at a time whenever slots
 *   are free and sleeps when none is; a second thread waits for -c
 *   completions at a time (fewer when fewer are in flight) and reaps.
 *   At the end the submitter posts a marker so the reaper's last wait
 *   returns.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "worker.h"

#define SPLIT_SLEEP_MS	100	/* the submitter re-checks stop this often */

void worker_fail(struct worker *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (!w->err) {
		w->err = err ? err : -EIO;
		va_start(ap, fmt);
		vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
		va_end(ap);
	}
	atomic_store_explicit(w->stop, true, memory_order_relaxed);
}

void worker_bad_result(struct worker *w, int res)
{
	if (res < 0)
		worker_fail(w, res, "I/O failed: %s%s", strerror(-res),
			    res == -EOPNOTSUPP && w->spec->polled ?
			    " (polled I/O needs a device with poll queues)" : "");
	else
		worker_fail(w, -EIO, "short I/O: %d of %u bytes", res, w->bs);
}

int worker_alloc(struct worker *w)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t stride = w->bs ? w->bs : 1;
	unsigned i;

	w->nslots = w->spec->depth;
	if (posix_memalign((void **)&w->bufs, (size_t)(page > 0 ? page : 4096),
			   stride * w->nslots))
		return -ENOMEM;
	/* writes carry a non-zero pattern; reads overwrite it */
	memset(w->bufs, 0x5a, stride * w->nslots);
	w->iov = calloc(w->nslots, sizeof(*w->iov));
	w->slot_ts = calloc(w->nslots, sizeof(*w->slot_ts));
	w->hist = malloc(sizeof(*w->hist));
	if (!w->iov || !w->slot_ts || !w->hist ||
	    pool_init(&w->pool, w->nslots))
		return -ENOMEM;
	for (i = 0; i < w->nslots; i++) {
		w->iov[i].iov_base = w->bufs + (size_t)i * stride;
		w->iov[i].iov_len = w->bs;
	}
	hist_init(w->hist);
	w->rng = prng_seed(0x616e7972696e67ull + w->id);	/* "anyring" */
	return 0;
}

void worker_free(struct worker *w)
{
	pool_free(&w->pool);
	free(w->bufs);
	free(w->iov);
	free((void *)w->slot_ts);
	free(w->hist);
	w->bufs = NULL;
	w->iov = NULL;
	w->slot_ts = NULL;
	w->hist = NULL;
}

static inline unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

static void publish_submitter(struct worker *w)
{
	atomic_store_explicit(&w->pub.taken, w->taken, memory_order_release);
	atomic_store_explicit(&w->pub.submitted, w->submitted,
			      memory_order_relaxed);
	atomic_store_explicit(&w->pub.calls, w->calls, memory_order_relaxed);
}

static void publish_reaper(struct worker *w)
{
	atomic_store_explicit(&w->pub.done, w->done, memory_order_relaxed);
	atomic_store_explicit(&w->pub.rcalls, w->rcalls, memory_order_relaxed);
}

static int submit_wait(struct worker *w, unsigned nr, unsigned wait_nr)
{
	int ret;

	if (nr)
		worker_batch_start(w);
	ret = w->eng->submit_wait(w, nr, wait_nr);
	if (ret < 0) {
		worker_fail(w, ret, "%s: %s", w->eng->name, strerror(-ret));
		return ret;
	}
	w->submitted += (unsigned)ret;
	publish_submitter(w);
	publish_reaper(w);
	return 0;
}

static void loop_run(struct worker *w)
{
	const unsigned depth = w->spec->depth;
	const unsigned bsub = w->spec->batch_submit;
	const unsigned bcomp = w->spec->batch_complete;

	while (!worker_stopping(w)) {
		unsigned inflight = (unsigned)(w->taken - w->done);
		unsigned nr = min_u(depth - inflight, bsub);
		unsigned after = inflight + nr;
		unsigned wait_nr = 0;

		/* full once another batch does not fit: wait for -c */
		if (after + bsub > depth)
			wait_nr = min_u(after, bcomp);
		if (submit_wait(w, nr, wait_nr))
			return;
	}
}

/* After stop: wait for every I/O still in flight (not counted). */
static void loop_drain(struct worker *w)
{
	const unsigned bcomp = w->spec->batch_complete;

	while (w->taken != w->done) {
		unsigned inflight = (unsigned)(w->taken - w->done);

		if (w->eng->submit_wait(w, 0, min_u(inflight, bcomp)) < 0)
			return;		/* an error is already recorded */
	}
}

static void *split_reaper(void *arg)
{
	struct worker *w = arg;
	const unsigned bcomp = w->spec->batch_complete;

	for (;;) {
		uint64_t taken = atomic_load_explicit(&w->pub.taken,
						      memory_order_acquire);
		unsigned inflight = (unsigned)(taken - w->done);
		int ret;

		if (w->end_seen && !inflight)
			break;
		/* nothing in flight: wait for the next I/O or the end marker */
		ret = w->eng->reap(w, inflight ? min_u(inflight, bcomp) : 1);
		if (ret < 0) {
			worker_fail(w, ret, "%s: wait: %s", w->eng->name,
				    strerror(-ret));
			break;
		}
		if (ret)
			pool_wake(&w->pool);	/* slots came back */
		publish_reaper(w);
	}
	pool_wake(&w->pool);
	return NULL;
}

static void split_run(struct worker *w)
{
	const unsigned bsub = w->spec->batch_submit;
	pthread_t reaper;
	int ret;

	ret = pthread_create(&reaper, NULL, split_reaper, w);
	if (ret) {
		worker_fail(w, -ret, "reaper thread: %s", strerror(ret));
		return;
	}
	while (!worker_stopping(w)) {
		unsigned head = atomic_load_explicit(&w->pool.head,
						     memory_order_relaxed);
		unsigned tail = atomic_load_explicit(&w->pool.tail,
						     memory_order_acquire);

		if (head == tail) {
			pool_wait(&w->pool, SPLIT_SLEEP_MS);
			continue;
		}
		worker_batch_start(w);
		ret = w->eng->submit(w, min_u(tail - head, bsub));
		if (ret < 0) {
			worker_fail(w, ret, "%s: submit: %s", w->eng->name,
				    strerror(-ret));
			break;
		}
		w->submitted += (unsigned)ret;
		publish_submitter(w);
	}
	ret = w->eng->post_end(w);
	if (ret < 0) {
		/* the reaper may wait forever: nothing sane is left to do */
		fprintf(stderr, "anyring-bench: end marker: %s\n", strerror(-ret));
		exit(1);
	}
	pthread_join(reaper, NULL);
}

static void take_stats(struct worker *w)
{
	if (w->eng->stats && !w->eng->stats(w, &w->stats))
		w->has_stats = true;
}

int worker_run(struct worker *w)
{
	if (w->eng->stats_reset)
		w->eng->stats_reset(w);
	if (w->spec->split_reap) {
		split_run(w);
		take_stats(w);
	} else {
		loop_run(w);
		take_stats(w);
		loop_drain(w);
	}
	return w->err;
}
