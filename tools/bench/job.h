/* SPDX-License-Identifier: MIT */
/*
 * job.h - the run API of anyring-bench: a job spec goes in, a result comes
 * out. main.c, sweep.c and the experiments (experiment.c) all run jobs
 * through job_run(); nothing in here prints unless spec->quiet is false.
 */
#ifndef BENCH_JOB_H
#define BENCH_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <anyring.h>
#include "hist.h"

#define BENCH_MAX_DEPTH		32768	/* the kernel's largest SQ ring */
#define BENCH_MAX_THREADS	256

/* --ring-flags: which of t/io_uring's setup flags a ring asks for */
#define RINGF_COOP	(1u << 0)	/* IORING_SETUP_COOP_TASKRUN */
#define RINGF_SINGLE	(1u << 1)	/* IORING_SETUP_SINGLE_ISSUER */
#define RINGF_DEFER	(1u << 2)	/* IORING_SETUP_DEFER_TASKRUN */
#define RINGF_TIO	(RINGF_COOP | RINGF_SINGLE | RINGF_DEFER)
/* IORING_SETUP_HYBRID_IOPOLL (with -p 1); never dropped: a refusal fails */
#define RINGF_HYBRID	(1u << 3)

/* --reap: how a ring's completions are waited for */
enum reap_mode {
	REAP_ENTER,		/* io_uring_enter with GETEVENTS (t/io_uring) */
	REAP_EVENTFD,		/* a registered eventfd in an epoll set */
	REAP_POLL_RINGFD,	/* the ring fd itself in an epoll set */
};

/* --alloc: the target is a new file, made for the run and removed after */
enum alloc_mode {
	ALLOC_NONE,
	ALLOC_SPARSE,		/* ftruncate: every write allocates blocks */
	ALLOC_FALLOCATE,	/* fallocate: writes convert unwritten extents */
};

struct job_spec {
	const char *engine;	/* kernel, user, sync, libaio, posixaio */
	const char *policy;	/* --policy string; NULL: the ring's default */
	const char *target;	/* file, block device or "sim:SPEC"; NULL: none */
	unsigned depth;		/* I/Os in flight per thread */
	unsigned batch_submit;	/* -s: I/Os prepared per submit call */
	unsigned batch_complete; /* -c: completions waited for per call */
	unsigned bs;		/* bytes per I/O */
	unsigned threads;	/* each with its own ring (or context) and fd */
	unsigned read_pct;	/* 100: reads only, 0: writes only */
	unsigned ring_flags;	/* RINGF_*: dropped one by one when refused */
	unsigned sq_entries;	/* 0: depth (t/io_uring) */
	unsigned cq_entries;	/* 0: depth (t/io_uring) */
	bool random;		/* random offsets, else sequential */
	bool nop;		/* IORING_OP_NOP, no target */
	bool direct;		/* O_DIRECT */
	bool polled;		/* IORING_SETUP_IOPOLL (sync: RWF_HIPRI) */
	bool fixed_bufs;	/* registered buffers, READ/WRITE_FIXED */
	bool reg_files;		/* registered file, IOSQE_FIXED_FILE */
	bool track_lat;		/* completion latency histogram */
	bool split_reap;	/* a second thread per ring waits and reaps */
	enum reap_mode reap;	/* --reap */
	bool fdatasync;		/* --fdatasync=1: each write then fdatasync */
	bool cold;		/* --cold: page cache evicted before the run */
	enum alloc_mode alloc;	/* --alloc */
	uint64_t size;		/* bytes of the target used; 0: all of it */
	double runtime_s;	/* 0: until SIGINT */
	bool quiet;		/* no per-second lines, no notes */
};

struct job_result {
	struct job_spec spec;	/* as run (depth 1 for sync, batches clamped) */
	double runtime_s;	/* measured */
	uint64_t ios;		/* completions within the runtime */
	uint64_t submitted, calls, reaps; /* for IOS/call */
	double iops;
	double bw_bytes;	/* bytes per second */
	double cpu_usr, cpu_sys; /* % of one CPU, whole process */
	double cpu_per_io_us;	/* (usr+sys) / ios, microseconds; 0: no I/O */
	uint64_t ctx_switches;	/* voluntary + involuntary */
	uint64_t ctx_vol, ctx_invol;
	bool has_stats;		/* the engine keeps anyring_stats */
	struct anyring_stats stats; /* summed over the rings */
	unsigned sq_ring, cq_ring; /* ring engines: sizes and IORING_SETUP_* */
	unsigned setup_flags;
	uint64_t epoll_waits;	/* --reap=eventfd|poll-ringfd: epoll_wait calls */
	uint64_t epoll_empty;	/* ... that returned and found no CQE */
	double cache_start, cache_end; /* --cold: % of the file in the page
					  cache before and after; -1 unknown */
	struct lat_hist lat;	/* completion latency, when spec.track_lat */
};

/* The spec t/io_uring's defaults give (engine "kernel", QD 128, 4 KiB). */
void job_spec_defaults(struct job_spec *s);

/*
 * Check a spec against its engine; 0, or -1 with the reason in why.
 * Fills in what depends on the engine (sync runs at depth 1, batches are
 * clamped to the depth) and notes it on stderr unless spec->quiet.
 */
int job_check(struct job_spec *s, char *why, size_t len);

/*
 * Run one job: set up every thread's ring and target, run for
 * spec->runtime_s, drain, collect. 0, or -1 after printing why on stderr.
 * Per-second lines go to stdout unless spec->quiet.
 */
int job_run(const struct job_spec *spec, struct job_result *res);

/* Ask every running job to stop (the SIGINT handler calls this). */
void job_interrupt(void);
/* Was job_interrupt() called? (a sweep stops starting runs) */
bool job_interrupted(void);
/* SIGINT calls job_interrupt(): runs stop early and still report */
void job_catch_sigint(void);

#endif
