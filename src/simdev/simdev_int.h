/* SPDX-License-Identifier: MIT */
/*
 * simdev_int.h - the simulated block device's insides, shared by
 * simdev.c (lifecycle, fd table, queueing, delivery), simdev_spec.c (the
 * spec string) and simdev_store.c (the blocks: volatile and durable).
 *
 * Locks (never held across a system call, never nested):
 *   d->qlock   the timing model: slots, bandwidth clock, random streams,
 *              the order fault rules count I/Os in, the due-time heaps;
 *   d->slock   the storage: block table, dirty list, flush state.
 */
#ifndef ANYRING_SIMDEV_SIMDEV_INT_H
#define ANYRING_SIMDEV_SIMDEV_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "simdev/simdev.h"
#include "fault/rule.h"

/* ---- the spec (simdev_spec.c) ---- */

enum ar_sim_lat_kind {
	AR_SIM_LAT_FIXED,
	AR_SIM_LAT_UNIFORM,
	AR_SIM_LAT_LOGNORMAL,
	AR_SIM_LAT_TABLE,
};

#define AR_SIM_TABLE_MAX	16
#define AR_SIM_FAULTS_MAX	16
#define AR_SIM_COALESCE_MAX	256

struct ar_sim_lat {
	enum ar_sim_lat_kind kind;
	uint64_t a, b;			/* fixed: a; uniform: [a, b]; lognormal: median a */
	double sigma;			/* lognormal */
	unsigned npts;			/* table: percentiles and their latencies */
	double pct[AR_SIM_TABLE_MAX];
	double val[AR_SIM_TABLE_MAX];
};

struct ar_sim_spec {
	uint64_t size;			/* bytes, a multiple of bs */
	unsigned bs;			/* block: storage and torn-write unit */
	struct ar_sim_lat lat;
	unsigned qd;			/* slots; 0: unlimited */
	uint64_t bw;			/* bytes/s; 0: unlimited */
	bool poll;			/* completion=poll */
	uint64_t spin_ns;		/* irq: busy-wait this long after activity */
	unsigned coalesce_n;		/* irq: deliver when this many are due ... */
	uint64_t coalesce_ns;		/* ... or the first due waited this long */
	bool pl_torn;			/* powerloss=torn (else drop) */
	uint64_t seed;
	char *file;			/* backing file, or NULL: memory */
	unsigned nfaults;
	struct ar_frule faults[AR_SIM_FAULTS_MAX];	/* device-domain rules (fault/rule.h) */
};

int ar_sim_spec_parse(const char *str, struct ar_sim_spec *spec);
void ar_sim_spec_free(struct ar_sim_spec *spec);

/* ---- random streams: xoshiro256** seeded by splitmix64 ---- */

struct ar_sim_rng {
	uint64_t s[4];
};

void ar_sim_rng_seed(struct ar_sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t ar_sim_rng_next(struct ar_sim_rng *r);
/* uniform in [0, 1) */
double ar_sim_rng_unit(struct ar_sim_rng *r);
/* one latency drawn from the model, in ns */
uint64_t ar_sim_lat_sample(const struct ar_sim_lat *lat, struct ar_sim_rng *r);

/* ---- the storage (simdev_store.c) ---- */

struct ar_sim_blk;

struct ar_sim_store {
	pthread_mutex_t slock;
	unsigned bs;
	bool torn;			/* power loss tears (else drops) */
	int file_fd;			/* backing file, -1: memory */
	/* block table: chained hash of lba -> block */
	struct ar_sim_blk **buckets;
	size_t nbuckets, nblocks;
	struct ar_sim_blk *dirty;	/* blocks with unflushed data */
	void *free_bufs;		/* recycled block buffers */
	size_t nfree_bufs;
	struct ar_sim_blk *free_blks;	/* recycled blocks (file mode forgets clean ones) */
	size_t nfree_blks;
	uint64_t wseq;			/* delivered writes, numbered */
	unsigned flush_pending;		/* flushes submitted, not delivered */
	uint64_t flush_max;		/* the highest coverage mark among them */
	struct ar_sim_rng rng;		/* torn power loss */
	/* file mode: one writer of durable data at a time (flush, power loss) */
	atomic_bool wb_busy;
	uint64_t file_gen;		/* bumped (slock) when durable data is staged */
	unsigned char *stage;		/* the writer's staging buffer */
	size_t stage_cap;
};

/* memory, or the spec's file (its size found when the spec has none) */
int ar_sim_store_init(struct ar_sim_store *st, struct ar_sim_spec *spec);
void ar_sim_store_destroy(struct ar_sim_store *st);
/* move io->xfer bytes at io->off between the iovecs and the blocks */
void ar_sim_store_read(struct ar_sim_store *st, const struct ar_sim_io *io);
/* 0, or -ENOMEM when a block could not be allocated */
int ar_sim_store_write(struct ar_sim_store *st, const struct ar_sim_io *io);
/* a flush was accepted: its coverage mark */
uint64_t ar_sim_store_flush_begin(struct ar_sim_store *st);
/* ... and delivered: writes numbered <= mark become durable unless failed */
void ar_sim_store_flush_end(struct ar_sim_store *st, uint64_t mark, bool ok);
int ar_sim_store_power_loss(struct ar_sim_store *st);

/* ---- the device (simdev.c) ---- */

/* a min-heap of I/Os by due time */
struct ar_sim_heap {
	struct ar_sim_io **v;
	size_t n, cap;
};

struct ar_simdev {
	atomic_int refs;		/* the fd's, the callers' */
	struct ar_sim_spec spec;
	dev_t st_dev;			/* the fd's file, to know it again */
	ino_t st_ino;
	struct ar_simdev *next;		/* the live list (ar_sim_fd_lock) */
	int fd;				/* the number it was created as */

	/* the timing model: under qlock */
	pthread_mutex_t qlock;
	uint64_t *slots;		/* qd: a min-heap of slot free times */
	uint64_t bw_clock;		/* when the bandwidth is free again */
	struct ar_sim_rng rng_lat, rng_fault;
	struct ar_sim_heap pq;		/* polled I/Os */
	struct ar_sim_heap iq;		/* I/Os the device thread delivers */
	/*
	 * The earliest due time in pq (UINT64_MAX: none), written under qlock
	 * and read without it by ar_simdev_poll() as a hint: a stale value
	 * only makes one poll miss or look in vain, the next one sees it.
	 */
	_Atomic uint64_t pq_next;

	/* the device thread (irq delivery) */
	atomic_int thr_state;		/* 0 none, 1 starting, 2 running, 3 failed */
	pthread_t thread;
	atomic_uint kick;		/* futex: bumped on every irq submit */
	_Atomic uint64_t sleep_until;	/* what the thread sleeps for; 0 awake */
	atomic_bool exiting;
	bool reap_self;			/* the last reference went on the thread */
	uint64_t wake_late;		/* learned lateness of timed sleeps (thread's) */
	uint64_t last_active;		/* the thread's last delivery or kick */

	struct ar_sim_store store;
};

#endif
