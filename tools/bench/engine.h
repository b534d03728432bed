/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the I/O engines of anyring-bench. An engine moves a worker's
 * I/Os: it takes free slots, prepares and submits I/Os for them, waits
 * and hands every completion to worker_complete(). The loop that decides
 * how many to submit and wait for is the worker's (worker.c), shared by
 * all engines. One file per engine family:
 *   engine_uring.c     kernel, user: io_uring through libanyring
 *   engine_sync.c      sync: preadv2/pwritev2, one I/O at a time
 *   engine_libaio.c    libaio: io_submit/io_getevents (Debian's libaio)
 *   engine_posixaio.c  posixaio: glibc aio_read/aio_write + aio_suspend
 */
#ifndef BENCH_ENGINE_H
#define BENCH_ENGINE_H

#include <anyring.h>

struct worker;

/* What an engine can do, checked against a job spec by job_check(). */
#define ENG_QUEUE	(1u << 0)	/* depth > 1 */
#define ENG_NOP		(1u << 1)	/* -N 1 */
#define ENG_POLLED	(1u << 2)	/* -p 1 */
#define ENG_FIXED_BUFS	(1u << 3)	/* -B 1 */
#define ENG_REG_FILES	(1u << 4)	/* -F 1 */
#define ENG_SIM		(1u << 5)	/* sim:SPEC targets */
#define ENG_POLICY	(1u << 6)	/* --policy */
#define ENG_SPLIT	(1u << 7)	/* --split-reap */
#define ENG_RING	(1u << 8)	/* has SQ/CQ rings (--ring-flags) */
#define ENG_REAP	(1u << 9)	/* --reap=eventfd|poll-ringfd */
#define ENG_FDATASYNC	(1u << 10)	/* --fdatasync=1 */

struct bench_engine {
	const char *name;
	const char *help;	/* one line for --help */
	unsigned caps;		/* ENG_* */
	/* per worker, in its thread: ring/context; 0 or -errno, w->errmsg set */
	int (*init)(struct worker *w);
	void (*exit)(struct worker *w);
	/*
	 * Prepare and submit nr I/Os (nr free slots exist), wait until
	 * wait_nr of the worker's I/Os completed (0: don't wait), and reap
	 * every completion there is. Returns the number submitted or -errno.
	 */
	int (*submit_wait)(struct worker *w, unsigned nr, unsigned wait_nr);
	/* --split-reap (ENG_SPLIT): the two halves, from two threads */
	int (*submit)(struct worker *w, unsigned nr);
	int (*reap)(struct worker *w, unsigned wait_nr); /* -errno or reaped */
	int (*post_end)(struct worker *w);	/* wake the reaper for good */
	/* anyring_stats of the ring; -errno when the engine keeps none */
	int (*stats)(struct worker *w, struct anyring_stats *st);
	int (*stats_reset)(struct worker *w);
};

extern const struct bench_engine engine_kernel, engine_user, engine_sync,
	engine_libaio, engine_posixaio;

/* By name, or NULL. */
const struct bench_engine *engine_find(const char *name);
/* "kernel, user, sync, libaio, posixaio" */
const char *engine_names(void);
/* Every engine, NULL-terminated (for --help). */
extern const struct bench_engine *const engine_list[];

#endif
