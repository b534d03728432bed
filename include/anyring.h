/* SPDX-License-Identifier: MIT */
/*
 * anyring.h - anyring's own interface, beside liburing's <liburing.h>.
 *
 * libanyring exports liburing 2.15's API and ABI; this header adds what
 * liburing does not have: choosing the engine that serves a ring, asking
 * which engine serves it, and the wait arguments of newer kernels
 * (absolute timeouts, min_wait, no-iowait) behind one call.
 */
#ifndef ANYRING_H
#define ANYRING_H

#include <liburing.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Engine names accepted by anyring_queue_init_engine() and by the
 * ANYRING_ENGINE environment variable:
 *   "kernel"  the kernel's io_uring, through raw syscalls;
 *   "user"    io_uring implemented in the process;
 *   "auto"    the kernel, falling back to "user" when io_uring_setup is
 *             refused with EPERM, EACCES or ENOSYS.
 * NULL means: ANYRING_ENGINE if set, else "auto".
 */
#define ANYRING_ENGINE_KERNEL	"kernel"
#define ANYRING_ENGINE_USER	"user"
#define ANYRING_ENGINE_AUTO	"auto"

/*
 * Like io_uring_queue_init_params(), on the named engine. Returns 0 or a
 * negative errno: -EINVAL for an unknown engine name, -EOPNOTSUPP for an
 * engine this build does not have, else the engine's own setup error.
 */
int anyring_queue_init_engine(const char *engine, unsigned entries,
			      struct io_uring *ring, struct io_uring_params *p);

/*
 * Like io_uring_setup(): returns a ring fd on the named engine, for
 * programs that map the rings themselves (io_uring_queue_mmap()).
 */
int anyring_setup_engine(const char *engine, unsigned entries,
			 struct io_uring_params *p);

/* "kernel" or "user": the engine serving this ring. */
const char *anyring_ring_engine(const struct io_uring *ring);

/* Flags of struct anyring_wait. */
#define ANYRING_WAIT_ABS	(1U << 0) /* ts is absolute (CLOCK_MONOTONIC
					     unless the ring registered another clock) */
#define ANYRING_WAIT_NO_IOWAIT	(1U << 1) /* do not count the sleep as iowait */

struct anyring_wait {
	const struct __kernel_timespec *ts;	/* NULL: no timeout */
	unsigned min_wait_usec;			/* 0: none */
	unsigned flags;				/* ANYRING_WAIT_* */
	const sigset_t *sigmask;		/* NULL: keep the mask */
};

/*
 * Submit what is queued and wait for wait_nr completions, as
 * io_uring_submit_and_wait_timeout(), with the full wait argument of
 * io_uring_enter(2) EXT_ARG: relative or absolute timeout, min_wait
 * (return after min_wait_usec once at least one CQE is there) and
 * IORING_ENTER_NO_IOWAIT. w may be NULL. Flags the engine's kernel does not
 * know fail with its error (-EINVAL) rather than being dropped.
 * Returns the number submitted, or a negative errno (-ETIME on timeout).
 */
int anyring_submit_and_wait_ext(struct io_uring *ring,
				struct io_uring_cqe **cqe_ptr,
				unsigned wait_nr,
				const struct anyring_wait *w);

/*
 * ---- Completion-path policies (docs/policies.md) ----
 *
 * Each field picks one behaviour of the completion path; 0 is the ring's
 * default. The string form, used by ANYRING_POLICY and anyring-bench
 * --policy, is "wake=...,complete=...,wait=...,iowait=...,spin_usec=N"
 * with any subset of the keys.
 *
 *   wake=threshold  a waiter for N events is woken once N CQEs exist (or on
 *                   timeout, signal, overflow)                 [seed 003]
 *   wake=every      woken on every CQE, rechecks: the pre-patch baseline
 *   complete=deferred  finished requests queue on a lock-free list; the
 *                   ring's task posts them in batches when it enters or
 *                   waits, woken only once the queue reaches what it waits
 *                   for                                    [seeds 001, 002]
 *   complete=inline the completing context posts the CQE itself
 *   complete=punt   a per-ring completion thread posts CQEs (the workqueue
 *                   baseline patch 002 removes)
 *   complete=single as deferred, but the ring's task posts each completion
 *                   on its own, under its own lock and with its own wakeup,
 *                   and each one wakes the task: kernels before seed 001
 *   wait=sleep      sleep at once                               [seed 000]
 *   wait=spin       poll the CQ (bounded by spin_usec), then sleep
 *   wait=hybrid     sleep a learned share of the expected completion time,
 *                   then poll                                   [seed 004]
 *   wait=adaptive   (the default) sleep at once when nothing is in flight,
 *                   else poll for up to the learned wait, never longer than
 *                   one sleep/wake round trip, then sleep
 *   iowait=on|off   kernel engine: count the sleep as iowait or pass
 *                   IORING_ENTER_NO_IOWAIT (kernels with IORING_FEAT_NO_IOWAIT)
 *   issue=inline    the submitting thread makes the inline attempt of every
 *                   SQE, as the kernel does
 *   issue=spread    (the default with two or more CPUs online) a helper
 *                   thread shares the inline issue of a submit's standalone
 *                   reads and writes: on the page cache every read is a
 *                   system call here, and a second CPU halves a batch's time
 *   block=worker    (user engine; the default) work that must block goes to an
 *                   io-wq worker, as in the kernel
 *   block=waiter    (user engine) a buffered read, write or fsync of a regular
 *                   file that would go to a worker is done in the submitting
 *                   thread instead, when that thread enters with GETEVENTS
 *                   (no timeout, no sigmask) and would otherwise sleep for it
 *                   alone (docs/policies.md)
 */
enum {
	ANYRING_WAKE_DEFAULT = 0, ANYRING_WAKE_THRESHOLD, ANYRING_WAKE_EVERY,
};
enum {
	ANYRING_COMPLETE_DEFAULT = 0, ANYRING_COMPLETE_DEFERRED,
	ANYRING_COMPLETE_INLINE, ANYRING_COMPLETE_PUNT, ANYRING_COMPLETE_SINGLE,
};
enum {
	ANYRING_WAITP_DEFAULT = 0, ANYRING_WAITP_SLEEP, ANYRING_WAITP_SPIN,
	ANYRING_WAITP_HYBRID, ANYRING_WAITP_ADAPTIVE,
};
enum {
	ANYRING_IOWAIT_DEFAULT = 0, ANYRING_IOWAIT_ON, ANYRING_IOWAIT_OFF,
};
enum {
	ANYRING_ISSUE_DEFAULT = 0, ANYRING_ISSUE_INLINE, ANYRING_ISSUE_SPREAD,
};
enum {
	ANYRING_BLOCK_DEFAULT = 0, ANYRING_BLOCK_WORKER, ANYRING_BLOCK_WAITER,
};

struct anyring_policy {
	unsigned char wake;		/* ANYRING_WAKE_* */
	unsigned char complete;		/* ANYRING_COMPLETE_* */
	unsigned char wait;		/* ANYRING_WAITP_* */
	unsigned char iowait;		/* ANYRING_IOWAIT_* */
	unsigned spin_usec;		/* longest poll before sleeping; 0: default */
	unsigned char issue;		/* ANYRING_ISSUE_* (user engine) */
	unsigned char block;		/* ANYRING_BLOCK_* (user engine) */
	unsigned char resv_c[2];
	unsigned resv[2];
};

/* Parse "wake=threshold,wait=spin" into p (unnamed keys 0). 0 or -EINVAL. */
int anyring_policy_parse(const char *str, struct anyring_policy *p);
/* p as a string of every key; returns the length snprintf would write. */
int anyring_policy_format(const struct anyring_policy *p, char *buf,
			  size_t len);
/*
 * Set a ring's policy (0 fields keep the default). A new ring starts with
 * ANYRING_POLICY's. complete= can change only while nothing is in flight
 * (-EBUSY); policies an engine cannot apply give -EOPNOTSUPP (the kernel
 * engine takes wait=, spin_usec and iowait= only). On a user-engine
 * SINGLE_ISSUER ring, a thread other than the issuer gets -EEXIST.
 */
int anyring_ring_set_policy(struct io_uring *ring,
			    const struct anyring_policy *p);
/* The policy in effect, defaults resolved to what they mean on this ring. */
int anyring_ring_policy(const struct io_uring *ring, struct anyring_policy *p);

/* ---- Per-ring counters, since setup or the last reset ---- */
struct anyring_stats {
	unsigned long long submissions;	/* SQEs consumed */
	unsigned long long completions;	/* CQEs posted (overflowed ones too) */
	unsigned long long enters;	/* io_uring_enter calls */
	unsigned long long sleeps;	/* a waiter went to sleep */
	unsigned long long wakeups;	/* a sleeping waiter was woken */
	unsigned long long spurious_wakeups; /* ... and found its wait not over */
	unsigned long long tw_batches;	/* deferred-completion batches run */
	unsigned long long tw_items;	/* requests completed in those batches */
	unsigned long long tw_max_batch;	/* the largest batch */
	unsigned long long worker_handoffs;	/* work handed to another thread */
	unsigned long long poll_loops;	/* CQ polls while spinning or reaping */
	unsigned long long sleep_ns;	/* time asleep waiting for CQEs */
	unsigned long long spread_issued;	/* issued by the issue=spread helper */
	unsigned long long read_batched;	/* buffered reads read in a batch's io_submit */
	unsigned long long resv[2];
};

/* 0 or -errno. The kernel engine counts what the library sees. */
int anyring_ring_stats(const struct io_uring *ring, struct anyring_stats *st);
int anyring_ring_stats_reset(struct io_uring *ring);

/* ---- simdev: a simulated block device (docs/simdev.md) ---- */
/*
 * A device made from a spec string, e.g. "size=1G,bs=4096,lat=fixed:5us,
 * completion=irq". Returns an fd that user-engine rings accept in SQEs
 * (read/write/fsync), or -errno (-EINVAL for a bad spec: ANYRING_DEBUG=1
 * names the field). close() it when done.
 */
int anyring_simdev_create(const char *spec);
/* Drop (or tear, per the spec) every write not covered by a completed fsync. */
int anyring_simdev_power_loss(int fd);

/* ---- the system-call trap's preload shim (docs/trap.md) ---- */
/*
 * Called by libanyring-sig.so's sigaction() and mask wrappers, not by
 * programs. While the trap is installed: SIGSYS's disposition is
 * recorded instead of set, and SIGSYS is taken out of a new mask (copy,
 * for the shim to pass on; *was_blocked: the thread had asked for it
 * blocked). They return 1 when the call is not the trap's: libc serves it.
 * anyring_trap_sigaction() is 0 or -1 with errno; anyring_trap_sigmask()
 * is 0 or -errno.
 */
int anyring_trap_sigaction(int sig, const struct sigaction *act,
			   struct sigaction *oact);
int anyring_trap_sigmask(int how, const sigset_t *set, sigset_t *copy,
			 int *was_blocked);

#ifdef __cplusplus
}
#endif

#endif
