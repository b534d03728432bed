/* SPDX-License-Identifier: MIT */
/*
 * harness.h - the differential harness. A scenario is a batch of SQEs plus
 * the rules its completions must follow. It runs once per engine, each run
 * in a fresh temp dir with fresh files, buffers and ring; the CQE lists
 * (user_data, res, flags), the notes (observations that are not CQEs)
 * and the io_uring_submit() results of the runs are then compared. The
 * harness hard-codes no results: what one engine does is the expectation
 * for the other, except for the few results a scenario pins in .known so
 * that two identically wrong runs still fail.
 */
#ifndef DIFF_HARNESS_H
#define DIFF_HARNESS_H

#include <limits.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "test.h"

#define DIFF_MAX_CQES		128
#define DIFF_MAX_SUBMITS	32
#define DIFF_MAX_PAIRS		8
#define DIFF_MAX_KNOWN		8
#define DIFF_MAX_NOTES		16
#define DIFF_MAX_VALS		48	/* values of a call case */
#define DIFF_NFD		8
#define DIFF_NBUF		4
#define DIFF_BUFSZ		4096
#define DIFF_NTS		4
/* a run's CQEs all arrive by then: only a hang takes that long */
#define DIFF_TIMEOUT_SEC	T_HANG_SEC
#define DIFF_WATCHDOG_SEC	(3 * T_HANG_SEC)	/* a run that takes longer hung */

/* res a normalizer gives to a valid fd; printed as "fd>=0" */
#define DIFF_RES_FD		INT_MAX
/*
 * res a normalizer gives to each of the results a race allows (a cancel
 * meeting a request that may be queued, running or done); printed as
 * "raced". The scenario's check() verifies the results agree.
 */
#define DIFF_RES_RACED		(INT_MAX - 1)

/*
 * flags of a note: an observation of the run that is not a CQE (a ring
 * flag, a register result, an eventfd being readable), made with
 * diff_note() and compared like a CQE whose user_data is its key. Notes
 * follow the run's CQEs, in the order they were made. Keys start at 1000
 * by convention, clear of the user_data the scenarios use.
 */
#define DIFF_NOTE_FLAGS		0xffffffffU

enum diff_order {
	ORDER_EXACT,	/* the CQE sequences must be identical */
	ORDER_ANY,	/* compared as multisets (sorted by user_data) */
};

/* what the harness keeps of a CQE */
struct diff_cqe {
	__u64 user_data;
	__s32 res;
	__u32 flags;
};

/* user_data 'first' must complete before 'then' on every engine */
struct diff_pair {
	__u64 first;
	__u64 then;
};

/* a result known from the kernel's documented behaviour, checked as such */
struct diff_known {
	__u64 user_data;	/* 0 ends the list */
	__s32 res;
};

/* one result of io_uring_submit(), and what it left in the SQ */
struct diff_submit {
	int ret;
	unsigned left;
};

/*
 * What one run of a scenario owns. The harness creates the temp dir and
 * buffers before setup() and frees everything after the run; fds that
 * diff_file()/diff_pipe() opened are closed then too.
 */
struct diff_ctx {
	const char *engine;
	char dir[PATH_MAX / 2];		/* this run's temp dir */
	int dirfd;			/* O_RDONLY|O_DIRECTORY on dir */
	int fd[DIFF_NFD];		/* closed after the run */
	unsigned nr_fd;
	char *buf[DIFF_NBUF];		/* page aligned, DIFF_BUFSZ, zeroed */
	struct iovec iov[DIFF_NBUF];	/* free for the scenario's use */
	struct __kernel_timespec ts[DIFF_NTS];
	struct statx stx;
	int val[4];			/* scenario scratch (fds, counts) */
	struct diff_submit submit[DIFF_MAX_SUBMITS];
	unsigned nr_submit;
	/* CQEs the scenario reaped itself (diff_reap), in arrival order */
	struct diff_cqe early[DIFF_MAX_CQES];
	unsigned nr_early;
	struct diff_cqe note[DIFF_MAX_NOTES];	/* diff_note() */
	unsigned nr_note;
	struct io_uring_sqe scratch;	/* handed out when the SQ is stuck */
	char msg[256];			/* the run's first failure */
};

struct scenario {
	const char *name;
	unsigned entries;		/* SQ size; 0 means 8 */
	unsigned cq_entries;		/* 0 default, else SETUP_CQSIZE */
	unsigned setup_flags;		/* IORING_SETUP_* */
	unsigned sq_thread_idle;	/* ms, with SQPOLL; 0 the default */
	/* make files in c->dir; 0 or -1 after diff_fail() */
	int (*setup)(struct diff_ctx *c);
	/*
	 * Queue the SQEs (it may also register files or buffers, and submit
	 * through diff_submit() when the batch is larger than the SQ); the
	 * harness submits what is queued when it returns. 0 or -1.
	 */
	int (*fill)(struct io_uring *ring, struct diff_ctx *c);
	/* optional: runs after that submit; what it queues is submitted too */
	int (*after_submit)(struct io_uring *ring, struct diff_ctx *c);
	/* reap until this many (diff_reap()'s count, notes not), then drain */
	unsigned nr_cqes;
	enum diff_order order;
	struct diff_pair before[DIFF_MAX_PAIRS];
	/*
	 * Optional, narrow: rewrite a result that legitimately differs
	 * between runs (an fd number). Each scenario documents its own.
	 * Applied after check(), before order, known and comparison.
	 */
	void (*normalize)(struct diff_cqe *cqe);
	/* optional: side effects of the run, given the raw CQEs; 0 or -1 */
	int (*check)(struct diff_ctx *c, const struct diff_cqe *cqe,
		     unsigned nr);
	void (*teardown)(struct diff_ctx *c);
	struct diff_known known[DIFF_MAX_KNOWN];
};

/* the families, each an array ended by a NULL name; diff_table.c lists them */
extern const struct scenario diff_nop[], diff_submit_errors[], diff_rw[],
	diff_rsrc[], diff_sync[], diff_advise[], diff_openclose[],
	diff_statx[], diff_fs[], diff_xattr[], diff_splice[], diff_truncate[],
	diff_epoll[], diff_uring_cmd[], diff_kbuf[], diff_net[], diff_link[],
	diff_opdef[], diff_drain[], diff_timeout[], diff_cancel[], diff_poll[],
	diff_setup_flags[], diff_register[], diff_complete[], diff_msg_ring[],
	diff_futex[], diff_waitid[];
extern const struct scenario *const diff_families[];

/*
 * What one engine's run of a scenario or call case produced: a scenario
 * fills the CQEs and submits, a call case the values (and how its child
 * process ended).
 */
struct diff_run {
	const char *engine;
	struct diff_cqe cqe[DIFF_MAX_CQES];	/* in arrival order */
	struct diff_cqe sorted[DIFF_MAX_CQES];	/* by user_data, res, flags */
	unsigned nr;
	struct diff_submit submit[DIFF_MAX_SUBMITS];
	unsigned nr_submit;
	unsigned nr_val;			/* diff_put() */
	const char *what[DIFF_MAX_VALS];
	long long val[DIFF_MAX_VALS];
	int signal;				/* the child was killed by it */
	int status;				/* its exit status otherwise */
	unsigned features;			/* of the rings a call case made */
	char msg[256];				/* empty if the run went well */
};

/*
 * A call case: the second mode of the harness, for what is not a CQE
 * (io_uring_setup(), io_uring_register() and io_uring_enter() results).
 * run() makes its own rings and records each result with diff_put(); the
 * runs are compared value by value. Each run is made in a child process,
 * so an engine crashing on a bad argument fails that case only; the exit
 * status and signal of the children must agree too. A failure to run
 * goes in r->msg.
 */
struct diff_call {
	const char *name;
	void (*run)(const char *engine, const void *arg, struct diff_run *r);
	const void *arg;
};

/*
 * the call cases, each table ended by a NULL name: diff_setup.c, and the
 * bad-pointer battery diff_uaccess.c; diff_call_tables lists them, ended
 * by NULL
 */
extern const struct diff_call diff_setup[], diff_uaccess[];
extern const struct diff_call *const diff_call_tables[];

/* harness.c: run s on one engine; failures land in r->msg */
void diff_run_one(const struct scenario *s, const char *engine,
		  struct diff_run *r);
/* harness.c: run k on one engine in a child process; r in shared memory */
void diff_call_one(const struct diff_call *k, const char *engine,
		   struct diff_run *r);

/* diff_compare.c: run s on every engine, compare, print; 0 pass, 1 fail */
int diff_run_scenario(const struct scenario *s, const char *const *engines,
		      unsigned nr_engines, int verbose);
/* diff_compare.c: the same for a call case */
int diff_run_call(const struct diff_call *k, const char *const *engines,
		  unsigned nr_engines, int verbose);
/*
 * diff_compare.c: the features of the rings the call cases made, checked
 * one way: a bit the user engine reports, the kernel must report. With
 * engines other than kernel then user, nothing to check (returns -1);
 * else 0 pass, 1 fail.
 */
int diff_check_features(const char *const *engines, unsigned nr_engines);

/* helpers for scenarios (diff_util.c) */
int diff_fail(struct diff_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct io_uring_sqe *diff_sqe(struct io_uring *ring, struct diff_ctx *c);
void diff_tag(struct io_uring_sqe *sqe, __u64 user_data, unsigned flags);
struct io_uring_sqe *diff_prep_nop(struct io_uring *ring, struct diff_ctx *c,
				   __u64 ud, unsigned flags);
struct io_uring_sqe *diff_prep_op(struct io_uring *ring, struct diff_ctx *c,
				  __u8 op, int fd, __u64 ud, unsigned flags);
struct io_uring_sqe *diff_prep_read(struct io_uring *ring, struct diff_ctx *c,
				    __u64 ud, int fd, unsigned len, __u64 off,
				    unsigned flags);
struct io_uring_sqe *diff_prep_timeout(struct io_uring *ring,
				       struct diff_ctx *c, __u64 ud,
				       unsigned ts, unsigned count,
				       unsigned flags, unsigned sqe_flags);
struct io_uring_sqe *diff_prep_cancel(struct io_uring *ring,
				      struct diff_ctx *c, __u64 ud,
				      __u64 target, unsigned flags);
struct io_uring_sqe *diff_prep_cancel_fd(struct io_uring *ring,
					 struct diff_ctx *c, __u64 ud, int fd,
					 unsigned flags);
struct io_uring_sqe *diff_prep_remove_buffers(struct io_uring *ring,
					      struct diff_ctx *c, __u64 ud,
					      int nr, int bgid);
int diff_submit(struct io_uring *ring, struct diff_ctx *c);
int diff_wait_need_wakeup(struct io_uring *ring);
int diff_submit_rest(struct io_uring *ring, struct diff_ctx *c);
int diff_reap(struct io_uring *ring, struct diff_ctx *c, unsigned nr);
void diff_note(struct diff_ctx *c, __u64 key, int value);
void diff_put(struct diff_run *r, const char *what, long long value);
int diff_file(struct diff_ctx *c, const char *name, const void *data,
	      size_t len, int oflags);
int diff_pipe(struct diff_ctx *c, int p[2]);
int diff_setup_pipes(struct diff_ctx *c);
int diff_feed_pipe(struct io_uring *ring, struct diff_ctx *c);
int diff_data_file(struct diff_ctx *c, size_t len, int oflags);
int diff_setup_data_pipe(struct diff_ctx *c);
int diff_setup_tree(struct diff_ctx *c);
int diff_track_fd(struct diff_ctx *c, int fd);
void diff_pattern(void *buf, size_t len, unsigned seed);
int diff_check_file(struct diff_ctx *c, const char *name, const void *data,
		    size_t len);
int diff_check_buf(struct diff_ctx *c, const void *got, const void *want,
		   size_t len, const char *what);
int diff_path_exists(struct diff_ctx *c, const char *name, mode_t type);
void diff_ts(struct diff_ctx *c, unsigned i, long long ms);
void diff_normalize_fd(struct diff_cqe *cqe);
const struct diff_cqe *diff_find(const struct diff_cqe *cqe, unsigned nr,
				 __u64 ud);

#endif
