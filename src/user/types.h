/* SPDX-License-Identifier: MIT */
/*
 * types.h - the user engine's types: io_uring implemented in the process.
 *
 * The shapes follow the kernel's io_uring/: a ring context (io_ring_ctx)
 * owning the rings in the kernel's memory layout (io_rings), requests
 * (io_kiocb) made from SQEs and driven by a table of opcode definitions
 * (opdef), a worker pool for blocking work (io-wq), a service thread that
 * arms readiness polls and timers, and the CQ posting path with its
 * overflow list.
 *
 * Locks, never held across I/O or a sleep (both in struct ar_ushared):
 *   uring_lock        SQ consumption and registered-resource tables;
 *   lock              the CQ (posting, overflow list), the in-flight list,
 *                     drain deferral, timeouts and armed polls; a spinlock,
 *                     as the kernel's completion_lock (spinlock.h). Its
 *                     sections may allocate (an overflowed CQE, a ring's
 *                     first IOPOLL or service-thread state, the eventfd
 *                     list) and cancellation takes io-wq's lock in them,
 *                     which malloc or a contended mutex may turn into a
 *                     system call; nothing else does.
 * Order: uring_lock before lock before the io-wq lock.
 */
#ifndef ANYRING_USER_TYPES_H
#define ANYRING_USER_TYPES_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <poll.h>
#include <sys/uio.h>
#include "engine/engine.h"
#include "lib/waitpol.h"
#include "lib/spinlock.h"
#include "lib/ringfd.h"

#define AR_MAX_ENTRIES		32768	/* IORING_MAX_ENTRIES */
#define AR_MAX_CQ_ENTRIES	(2 * AR_MAX_ENTRIES)
#define AR_SQ_THREAD_IDLE_MS	1000	/* default sq_thread_idle */
#define AR_MAX_RW_COUNT		0x7ffff000U	/* the kernel's MAX_RW_COUNT */

/* The kernel's struct io_rings, field for field (offsets reported in p->sq_off/cq_off). */
struct ar_rings {
	struct {
		__u32 head;
		__u32 tail;
	} sq, cq;
	__u32 sq_ring_mask;
	__u32 cq_ring_mask;
	__u32 sq_ring_entries;
	__u32 cq_ring_entries;
	__u32 sq_dropped;
	__u32 sq_flags;		/* written by us and read by the app: atomics */
	__u32 cq_flags;		/* written by the app (EVENTFD_DISABLED) */
	__u32 cq_overflow;
	struct io_uring_cqe cqes[] __attribute__((aligned(64)));
};

struct ar_ureq;
struct ar_uctx;
struct ar_sqpoll;
struct ar_iopoll;

/* issue_flags */
#define AR_ISSUE_NONBLOCK	(1U << 0)	/* inline attempt: never block */
#define AR_ISSUE_WORKER		(1U << 1)	/* running in an io-wq worker */
/* the next link of a request that completed in this thread (iowq.c ar_iowq_keep()) */
#define AR_ISSUE_LINKED		(1U << 2)

/* an issue handler's answers besides a result */
#define AR_ISSUE_QUEUED		(-100000)	/* it lives on elsewhere */
#define AR_ISSUE_AGAIN		(-100001)	/* not ready: poll, else a worker */
#define AR_ISSUE_PUNT		(-100002)	/* would block: a worker */
/* issued after readiness and ready still: again after the others (poll.h) */
#define AR_ISSUE_REQUEUE	(-100003)

/* IORING_ASYNC_CANCEL_* past liburing 2.3's header */
#define AR_ASYNC_CANCEL_USERDATA	(1U << 4)
#define AR_ASYNC_CANCEL_OP		(1U << 5)

#define AR_RINGFD_REG_MAX	16

/* a file as a request sees it: its backend (user/backend.h) */
#define AR_IOPOLL_READ		1U
#define AR_IOPOLL_WRITE		2U

struct ar_file {
	const struct ar_backend *be;
	void *dev;		/* a device backend's device; NULL otherwise */
	bool dev_ref;		/* the holder owns a reference on dev */
	bool isreg;		/* a regular file (the kernel's REQ_F_ISREG) */
	bool wr_blocks;		/* its buffered writes refuse RWF_NOWAIT (file.c) */
	bool aio_poll;		/* AIO may poll it: a pipe, FIFO, socket, char device (aiopoll.h) */
	__u8 iopoll;		/* AR_IOPOLL_READ|WRITE: what an IOPOLL ring may do (file.c) */
	__u8 ihash;		/* 1 + io-wq's hash bucket of its inode; 0: not known */
};

/* a registered file or buffer: refcounted so in-flight users keep it */
struct ar_rsrc_node {
	atomic_int refs;
	int fd;			/* files: our dup of the registered fd */
	struct ar_file file;	/* files: its backend, resolved at registration */
	struct iovec iov;	/* buffers */
	__u64 tag;		/* posted as a CQE when the node is released */
};

struct ar_rsrc_table {
	struct ar_rsrc_node **nodes;
	unsigned nr;
	bool registered;
	unsigned alloc_start, alloc_end;	/* file allocation range */
	unsigned alloc_hint;
};

struct ar_restrictions {
	bool enabled;
	__u8 register_op[256 / 8];
	__u8 sqe_op[256 / 8];
	__u8 sqe_flags_allowed;
	__u8 sqe_flags_required;
};

/* request flags */
#define AR_REQ_F_FAIL		(1U << 0)	/* failed: a link breaks */
#define AR_REQ_F_LINK		(1U << 1)	/* IOSQE_IO_LINK (or HARDLINK) */
#define AR_REQ_F_HARDLINK	(1U << 2)	/* IOSQE_IO_HARDLINK */
#define AR_REQ_F_SKIP_CQE	(1U << 3)	/* IOSQE_CQE_SKIP_SUCCESS */
#define AR_REQ_F_SKIP_LINK_CQES	(1U << 4)	/* cancelled links post nothing */
#define AR_REQ_F_FORCE_ASYNC	(1U << 5)	/* IOSQE_ASYNC, or drained */
#define AR_REQ_F_DRAIN		(1U << 6)	/* IOSQE_IO_DRAIN */
#define AR_REQ_F_INFLIGHT	(1U << 7)	/* on ctx->inflight */
#define AR_REQ_F_POLLED		(1U << 8)	/* on its fd's armed list (poll.c) */
#define AR_REQ_F_TIMER		(1U << 9)	/* armed as a timer */
#define AR_REQ_F_ARM_LT		(1U << 10)	/* a LINK_TIMEOUT follows */
#define AR_REQ_F_FIXED_FILE	(1U << 11)	/* IOSQE_FIXED_FILE */
#define AR_REQ_F_NOFAIL		(1U << 12)	/* a negative res does not fail (ETIME_SUCCESS) */
#define AR_REQ_F_SHORT		(1U << 13)	/* moved fewer bytes than asked */
#define AR_REQ_F_DRAIN_PATH	(1U << 14)	/* a drain was active at its init */
#define AR_REQ_F_LT_EXPIRED	(1U << 15)	/* a LINK_TIMEOUT due when armed */
#define AR_REQ_F_ASYNC_DONE	(1U << 16)	/* finished in a worker (eventfd_async) */
#define AR_REQ_F_POLL_FIRST	(1U << 17)	/* wait for readiness before the first try (poll.h) */
#define AR_REQ_F_AUX		(1U << 18)	/* malloc'd CQE carrier (msg_ring.c): freed, not cached */
#define AR_REQ_F_RS_POLL_FIRST	(1U << 19)	/* a send or receive with IORING_RECVSEND_POLL_FIRST */
#define AR_REQ_F_CQE32		(1U << 20)	/* its CQE is 32 bytes (struct ar_cqe_big) */
#define AR_REQ_F_FD_REF		(1U << 21)	/* fd is its own dup of app_fd (poll.c) */
#define AR_REQ_F_HASHED		(1U << 22)	/* a POLL_ADD in the poll table (poll.c) */
/* its read missed the page cache in a batch (batch.c): no second try inline */
#define AR_REQ_F_NOWAIT_MISS	(1U << 23)
/* SEND_ZC, SENDMSG_ZC (ops/net.c): a NOTIF CQE follows the result's (complete.c) */
#define AR_REQ_F_NOTIF		(1U << 24)
#define AR_REQ_F_NOTIF_COPIED	(1U << 25)	/* its res: IORING_NOTIF_USAGE_ZC_COPIED */
/* its plain fd's kind looked at afresh as it went to io-wq (iowq.c ar_req_acct) */
#define AR_REQ_F_FILE_FRESH	(1U << 26)
/* waits for POLLERR and ends only when cancelled (TX_TIMESTAMP: ops/cmd_net.c) */
#define AR_REQ_F_POLL_ERR	(1U << 27)

/* a request's place, for cancellation */
enum ar_req_state {
	AR_REQ_PREP,		/* being submitted, deferred or linked */
	AR_REQ_QUEUED,		/* waiting for a worker */
	AR_REQ_RUNNING,		/* a worker is in it */
	AR_REQ_ARMED,		/* waiting on readiness or a timer */
	AR_REQ_ISSUING,		/* issued by the service thread after readiness, or
				   inline with a link timeout: no cancel reaches it */
	AR_REQ_DONE,
};

/*
 * A provided buffer a request holds (user/kbuf.h), from its selection to
 * its CQE or its recycling; zeroed with the request (AR_KBUF_NONE).
 */
struct ar_kbuf_sel {
	void *node;		/* legacy: its entry, off its group's list */
	__u64 addr;
	__u32 len;		/* as selected: the request's length */
	__u32 cflags;		/* AR_KBUF_PUT: what its CQE carries */
	__u32 list_id;		/* ring: the registration it came from */
	__u16 bid;
	__u16 bgid;
	__u16 pos;		/* ring: the head it was taken at */
	__u16 nr;		/* ring: entries taken from pos (a bundle's, else 1) */
	__u8 state;		/* AR_KBUF_* (kbuf.h) */
	__u8 committed;		/* ring: consumed already (a worker's, or kept) */
	__u8 empty;		/* it was the group's last (the kernel's REQ_F_BL_EMPTY) */
	__u8 inc;		/* from an incremental ring (IOU_PBUF_RING_INC) */
	__u8 more;		/* inc, consumed at selection: some of it was left */
	__u32 ring_len;		/* inc: the entry's length when it was selected */
};

/* a request's private areas: its opcode's (ar_req_data) and its backend's */
#define AR_REQ_OPDATA		104
#define AR_REQ_BEDATA		112

/* io_kiocb */
struct ar_ureq {
	struct ar_uctx *ctx;
	struct ar_ureq *link;		/* next in its chain */
	struct ar_ureq *next;		/* the list it is on: io-wq, defer, free, batch */
	struct ar_ureq *if_prev, *if_next;	/* ctx->inflight */
	struct ar_ureq *svc_next;	/* its fd's armed list (poll.c), or timers */
	struct ar_ureq *poll_prev;	/* its fd's armed list: the one before */
	/* POLL_ADD: its user_data's chain in the ring's poll table (poll.c) */
	struct ar_ureq *hash_next, **hash_pprev;
	struct ar_ureq *to_next;	/* ctx->timeouts */
	struct ar_ureq *lt;		/* its LINK_TIMEOUT, while armed */
	__u64 user_data;
	__u64 deadline_ns;		/* armed timers: CLOCK_MONOTONIC */
	__s32 res;
	__u32 cflags;
	__u32 flags;			/* AR_REQ_F_* */
	__u32 expect;			/* bytes asked for (short transfers) */
	unsigned cancel_seq;
	int fd;				/* resolved fd */
	int app_fd;			/* AR_REQ_F_FD_REF: the program's number */
	__u8 opcode;
	__u8 sqe_flags;
	__u16 personality;
	struct ar_cred *cred;		/* its personality's (a reference), or NULL */
	__u32 poll_events;		/* armed: EPOLL* it waits for (poll.c) */
	__u32 poll_res;			/* the events that made it ready */
	__u8 poll_flags;		/* AR_POLLF_* (poll.c), under ctx->lock */
	__u8 fault_seen;		/* fault.c: the rules have looked at it */
	__u8 fault_delay;		/* fault.c: 1 + the rule whose delay is still to sleep */
	bool interrupted;		/* a cancel found it RUNNING: io-wq's signal (relaxed atomics) */
	enum ar_req_state state;
	struct ar_rsrc_node *file_node;
	struct ar_file file;		/* its backend, set by ar_req_assign_file */
	struct ar_rsrc_node *buf_node;
	pthread_t worker;		/* valid while RUNNING */
	struct ar_kbuf_sel kbuf;	/* a provided buffer it holds (kbuf.h) */
	unsigned xslot;			/* 1 + its entry in ar_sh()'s xslots; 0 none (fork.c) */
	/* not cleared at allocation from here on */
	/* ANYRING_FAULTS: the SQE as submitted, which rules match (fault.c); else NULL */
	struct io_uring_sqe *fault_sqe;
	_Alignas(16) unsigned char opdata[AR_REQ_OPDATA];
	void *alloc;			/* freed with the request */
	_Alignas(16) unsigned char bedata[AR_REQ_BEDATA];
};

#define ar_req_data(req, type) ({					\
	_Static_assert(sizeof(type) <= AR_REQ_OPDATA, #type " too big");\
	(type *)(req)->opdata;						\
})

struct ar_worker;

/* io-wq: one pool per ring, two classes of work (the kernel's io_wq_acct) */
enum { AR_IOWQ_BOUND, AR_IOWQ_UNBOUND };
struct ar_iowq {
	pthread_mutex_t lock;
	/* futex: idle workers of each class sleep on it; bumped to wake one */
	atomic_uint idle_seq[2];
	pthread_cond_t exit_cond;	/* a worker exited */
	struct {
		struct ar_ureq *head, *tail;
	} q[2];
	unsigned nr_workers[2];
	unsigned nr_idle[2];
	unsigned nr_wakeups[2];		/* signals sent to idle workers, not yet taken */
	unsigned max_workers[2];
	unsigned nr_starting;		/* being created, not yet on workers */
	__u64 hash_busy;		/* hash buckets a worker is writing (iowq.c) */
	struct ar_worker *workers;
	bool exiting;
	bool has_cpus;
	cpu_set_t cpus;
	unsigned aff_gen;		/* bumped on each (un)register */
};

struct ar_poll;

/* the service thread: timers, and readiness nobody else reaps (poll.c) */
struct ar_svc {
	pthread_mutex_t start_lock;
	pthread_t thread;
	bool started;
	bool exiting;
	int wake_fd;			/* eventfd: re-read the timers */
	struct ar_ureq *timers;		/* armed timers, by deadline */
	struct ar_poll *poll;		/* the readiness backend, made on first use */
	/* the ring fd's look (svc.c ar_svc_fdcheck()): when, 0 none; ctx->lock */
	__u64 fdcheck_ns;
	__u32 fdcheck_ms;		/* the next interval, doubling */
};

/* per-ring counters (struct anyring_stats); relaxed atomic adds */
struct ar_ustats {
	__u64 submissions, completions, enters, sleeps, wakeups;
	__u64 spurious_wakeups, tw_batches, tw_items, tw_max_batch;
	__u64 worker_handoffs, poll_loops, sleep_ns;
	__u64 spread_issued, read_batched;
};

#define ar_stat_add(ctx, field, n) \
	__atomic_fetch_add(&(ctx)->stats.field, (n), __ATOMIC_RELAXED)

struct ar_punt;
struct ar_aio;
struct ar_aiopoll;
struct ar_aiopoll_chunk;
struct ar_backend;
struct ar_spread;
struct ar_kbuf_ctx;

/*
 * A request in flight on a forked ring (fork.c): pid 0, a free entry;
 * AR_XSLOT_DETACHED, an ASYNC_CANCEL waiting for the answers of other
 * processes, whose CQE the last to answer posts (cancel.c), or a
 * TIMEOUT of a process that exited, which a sweeper posts when due
 * (timeout.c, fork.c). All under the CQ lock.
 */
struct ar_xslot {
	pid_t pid;
	__u32 cqe32;		/* its CQE is 32 bytes (AR_REQ_F_CQE32) */
	__u64 user_data;
	int fd;			/* what a cancel by fd matches (ar_req_app_fd()) */
	__u8 opcode;
	/* a detached cancel: answers a count (ALL, ANY); IOSQE_CQE_SKIP_SUCCESS */
	__u8 xc_all, xc_skip;
	__u8 xc_sync;		/* AR_XC_SYNC_*: a REGISTER_SYNC_CANCEL's (cancel.c) */
	__u32 xc_from;		/* a target: 1 + the detached cancel's entry */
	__u32 xc_pending;	/* a detached cancel: targets yet to answer */
	__s32 xc_res;		/* ... and its answer so far */
	pid_t xc_waiter;	/* a sync cancel's process, waiting for the answers */
	/* a detached TIMEOUT of a process that exited: its ar_now_ns() deadline */
	__u64 deadline;
};
#define AR_XSLOT_DETACHED	((pid_t)-1)
#define AR_XC_SYNC_WAITED	1	/* its caller reads the answer, then frees it */
#define AR_XC_SYNC_LEFT		2	/* its caller is gone (-ETIME): the last answer frees it */

/* a CQE the CQ had no room for, on the overflow backlog (complete.c) */
struct ar_cq_overflow {
	__u64 user_data;
	__s32 res;
	__u32 flags;
	__u64 big[2];		/* a 32-byte CQE's second half (ar_cqe_big) */
	__u32 is_big;
};

/*
 * A request that posts a 32-byte CQE (AR_REQ_F_CQE32) keeps its second
 * half first in its op data: NOP with IORING_NOP_CQE32 (ops/nop.c).
 */
struct ar_cqe_big {
	__u64 extra1, extra2;
};

/* io_ring_ctx */
/*
 * The kernel's ctx->submit_state: while a thread issues the requests of
 * its submit, the requests that complete in it post their CQEs together
 * at the end (compl), and the next links of completed requests are
 * issued after that (links), as the kernel's task work after the submit.
 * One thread at a time owns it: the one that claimed it under uring_lock
 * (or the single issuer) when its submit made requests; a submit that
 * finds it owned issues without it. Only the owner reads or writes the
 * lists; others read owner to see that they are not it.
 */
struct ar_submit_issue {
	_Atomic pid_t owner;		/* its thread id; 0: none */
	unsigned waiter_nr;		/* what the owner's enter waits for then */
	struct ar_ureq *compl_head, **compl_tail;
	struct ar_ureq *links_head, **links_tail;
};

struct ar_uctx {
	struct ar_rings *rings;
	size_t rings_sz;
	struct io_uring_sqe *sqes;
	size_t sqes_sz;
	/*
	 * IORING_SETUP_NO_MMAP: rings and SQEs are the application's
	 * memory (pinned: the engine's alias of shared pages, else NULL and
	 * used in place), never unmapped here
	 */
	bool user_mem;
	struct ar_pinned *rings_pin, *sqes_pin;
	/*
	 * The rings a resize replaced (ctx.c ar_user_resize_rings()), kept
	 * until the next resize or the end: a thread that read the old
	 * pointer without a lock (a poll of the ring fd) may still look.
	 */
	struct {
		void *rings, *sqes;
		size_t rings_sz, sqes_sz;
		struct ar_pinned *rings_pin, *sqes_pin;
		bool user_mem;
	} stale;
	__u32 *sq_array;		/* NULL with IORING_SETUP_NO_SQARRAY */
	unsigned flags;			/* setup flags */
	unsigned features;
	unsigned sq_entries, cq_entries;
	int ring_fd;			/* the program's end of a socket pair */
	int peer_fd;			/* the engine's end (release.c) */
	unsigned long ring_ino;		/* ring_fd's socket inode: still ours? (ringfd.c) */
	struct ar_release_entry *release;	/* its handle there */
	/*
	 * The release thread's look at the ring fd (release.c
	 * ar_release_fdcheck()), under its lock: the next, when it is due,
	 * and the interval, doubling; the list holds a reference.
	 */
	struct ar_uctx *fdcheck_next;
	__u64 fdcheck_due;
	__u32 fdcheck_ival_ms;
	bool fdcheck_queued;
	atomic_uint reg_indices;	/* registered-ring entries naming it */
	atomic_bool lib_mapped;		/* a struct io_uring maps it (ar_user_mmap) */
	atomic_bool raw_mapped;		/* the program mapped it itself (the trap) */
	/*
	 * Where the trap mapped the rings or the SQEs for the program (ctx.c
	 * ar_user_mmap_raw()), under ctx->lock; nr_raw_maps beyond
	 * AR_RAW_MAPS: too many to follow, /proc/self/maps is asked. The
	 * rings carry ring_cookie in their header's padding, which tells a
	 * mapping that is still theirs.
	 */
#define AR_RAW_MAPS	4
	struct {
		uintptr_t addr;
		size_t len;
		bool sqes;
	} raw_maps[AR_RAW_MAPS];
	unsigned nr_raw_maps;
	__u64 ring_cookie;
	int closed_fd;			/* its number, closed while still mapped (release.c) */
	/* its readiness: ar_sh()'s rfd (ringfd.c, lib/ringfd.h) */
	struct ar_uctx *rfd_next;	/* on ringfd.c's list of signalled rings */
	atomic_bool rfd_listed;		/* on it, holding a reference */
	atomic_bool on_pollers;		/* on poll.c's list of rings with polls */
	atomic_bool rfd_hooked;		/* seen going into an epoll set */
	atomic_bool rfd_et;		/* edge-triggered there */
	atomic_uint rfd_clearing;	/* this process's threads in a clear (ringfd.c) */
	bool exiting;
	atomic_bool dead;		/* its fd is closed */
	atomic_bool ending;		/* ar_user_end() has begun (ctx.c) */
	atomic_int refs;		/* the fd, registered-ring entries */
	int clockid;			/* IORING_REGISTER_CLOCK */

	/*
	 * IORING_SETUP_SINGLE_ISSUER: the one thread that may submit, register
	 * and (with DEFER_TASKRUN) wait; set at setup, or by ENABLE_RINGS on
	 * an R_DISABLED ring (ctx.h)
	 */
	pid_t submitter;		/* its thread id (ar_self_tid) */
	pid_t creator;			/* the thread that set it up: threads' names */
	pid_t pid;			/* the process this part is (fork.c) */
	bool fork_ok;			/* a forked child keeps the ring (fork.c) */
	unsigned xslots_mine;		/* of ar_sh()'s xslots_used, this process's */
	bool has_submitter;		/* written once, before others may look */

	/* submission: under uring_lock (ar_sh(); the submitter needs none) */
	/* the requests of a submit being issued (submit.c): submit_state.owner's */
	struct ar_submit_issue submit_state;
	bool disabled;			/* IORING_SETUP_R_DISABLED until enabled */
	bool drain_disabled;		/* CQE_SKIP_SUCCESS was used */
	struct ar_ureq *submit_link_head;	/* the chain being assembled */
	struct ar_ureq *submit_link_last;
	struct ar_rsrc_table files, bufs;
	struct ar_restrictions *restrictions;
	/*
	 * the parameter region (region.c): set once, under uring_lock; its
	 * wait arguments only while the ring is disabled, before any wait
	 */
	struct ar_region {
		void *base;		/* where the engine reads it */
		size_t size;		/* 0: none registered */
		size_t wait_size;	/* REG_WAIT_ARG: its size, else 0 */
		struct ar_pinned *pin;	/* the program's pages, pinned */
		bool kernel_mem;	/* the engine's, for the program's mmap */
	} param_region;
	unsigned personality_next;
	/* the personalities' credentials by id (cred.h), uring_lock */
	struct ar_cred **pers;
	unsigned nr_pers;

	/*
	 * completion: under ar_sh()'s lock (the kernel's completion_lock),
	 * taken by ar_ctx_lock() (lock.h), which a SINGLE_ISSUER ring's
	 * issuer takes by issuer_in while lock_bias is AR_BIAS_ON
	 */
	atomic_uchar lock_bias;
	atomic_uchar issuer_in;
	/* its holder's thread id, kept in AR_LOCKDEP builds (lock.h) */
	_Atomic pid_t lock_owner;
	unsigned cq_last_tm_flush;
	struct ar_ureq *inflight;	/* every submitted, uncompleted request */
	struct ar_ureq *inflight_tail;
	unsigned nr_inflight;
	/* POLL_ADDs by user_data, for POLL_REMOVE (poll.c); made on first use */
	struct ar_ureq **poll_hash;
	bool drain_active;
	unsigned nr_drained;
	struct ar_ureq *defer_head, *defer_tail;	/* held back by IO_DRAIN */
	struct ar_ureq *timeouts;	/* count-based TIMEOUTs, in target order */
	unsigned cancel_seq;
	int eventfd;			/* registered eventfd (our dup), -1 if none */
	int eventfd_app;		/* ... the program's fd it was registered by */
	bool eventfd_async;
	unsigned eventfd_tail;		/* the CQ tail it was last signalled for */
	int *dead_evfds;		/* unregistered dups, closed at exit */
	unsigned nr_dead_evfds;

	/* io_cqring_wait sleepers (waitq.c) */
	pthread_mutex_t wait_lock;
	struct ar_waiter *waitq;
	atomic_uint cq_waiters;

	struct ar_iowq iowq;
	struct ar_svc svc;
	struct ar_sqpoll *sqpoll;

	/* completion-path policy (tw.c, wait.c) and counters */
	struct anyring_policy pol;	/* resolved: no field is DEFAULT */
	struct ar_ustats stats;
	struct ar_wait_est west;	/* learned wait times (waitpol.h) */
	__u64 last_post_ns;		/* when CQEs were last posted to a waiter */
	/* task work: finished requests for the ring's task or the punt thread */
	_Atomic(struct ar_ureq *) tw_head;
	atomic_int tw_nr;		/* how many, for the waiter's threshold */
	bool tw_closed;			/* ring exit: completions post inline */
	atomic_uint in_submit;		/* threads issuing a submit's SQEs */
	struct ar_punt *punt;
	struct ar_aio *aio;		/* the ring's AIO context (aio.c) */
	struct ar_spread *spread;	/* issue=spread's helper (spread.c) */
	bool spread_failed;		/* it could not be started */
	bool aio_refused;		/* no AIO context: O_DIRECT goes to workers */
	/* AIO polls' iocbs (aiopoll.c): free ones, and their chunks; ctx->lock */
	struct ar_aiopoll *aiopoll_free;
	struct ar_aiopoll_chunk *aiopoll_chunks;

	/* provided buffers (kbuf.c): the groups, under kbuf_lock */
	struct ar_spinlock kbuf_lock;
	struct ar_kbuf_ctx *kbuf;

	/* request cache: no malloc per I/O once warm (req.c) */
	struct ar_ureq *req_free;	/* under uring_lock */
	_Atomic(struct ar_ureq *) req_freed;	/* freed by any thread */
	struct ar_req_slab *slabs;

	/* device I/O and IOPOLL (iopoll.c) */
	struct ar_iopoll *iopoll;	/* the polled requests, estimates: under lock */
	atomic_uint dev_inflight;	/* device I/Os not yet done: exit waits */
};

/*
 * What every process that holds a ring shares (docs/architecture.md,
 * "Rings shared across processes"): the SQ and CQ bookkeeping and their
 * locks, and the overflow backlog. It is a MAP_SHARED page right before
 * the ring's struct ar_uctx, whose pages are MAP_PRIVATE: a forked
 * child's copy of the ctx is its own, the page before it is the
 * parent's (ctx.c ar_uctx_alloc()). So ar_sh() is a constant offset,
 * not a load. Pointers in it point to shared mappings made at setup,
 * which are at the same address in every process (they only ever get a
 * ring by fork).
 */
struct ar_ushared {
	/* SQ consumption: the kernel's uring_lock; PTHREAD_PROCESS_SHARED */
	pthread_mutex_t uring_lock;
	unsigned cached_sq_head;	/* under uring_lock */

	/* the CQ lock (lock.h) and what it guards */
	struct ar_spinlock lock;
	unsigned cached_cq_tail;	/* CQEs posted */
	unsigned cq_timeouts;		/* timeouts completed: not counted as events */
	/*
	 * CQEs the CQ had no room for, oldest first: entries of_head up to
	 * of_tail (free-running) of the of_mask + 1 at of_ring, a
	 * MAP_NORESERVE mapping that takes memory only where written
	 */
	struct ar_cq_overflow *of_ring;
	size_t of_ring_sz;
	unsigned of_mask;
	unsigned of_head, of_tail;	/* under lock; read relaxed as a hint */

	/* the ring fd's readiness (ringfd.c, lib/ringfd.h): one socket for all */
	struct ar_ringfd rfd;

	/*
	 * Processes (fork.c). forked: a process forked with the ring, for
	 * good; set under lock before the fork, so the child sees it. Then
	 * xwake_fd, the process family's eventfd, which every process
	 * inherited, is written when a post may end a wait of another
	 * process. xsleep: the threads of
	 * any process asleep on the CQ (low 32 bits) and their process's
	 * pid, or AR_XSLEEP_MIXED (high 32 bits).
	 */
	atomic_bool forked;
	int xwake_fd;
	/*
	 * the process family's eventfd written by an ASYNC_CANCEL that
	 * marked requests of other processes (cancel.c); each process's
	 * readiness epoll fd has it, edge-triggered (poll.c)
	 */
	int xcancel_fd;
	_Atomic uint64_t xsleep;
	/*
	 * The requests in flight of every process on a forked ring, by
	 * owner pid and user_data (fork.c), under lock: a process that dies
	 * with requests in flight posts nothing, and the others post
	 * -ECANCELED for them. xslots_nr entries in a MAP_NORESERVE
	 * mapping made before the first fork; xslot_hint: where the next
	 * free one is looked for; none at or past xslots_hi was ever taken.
	 */
	struct ar_xslot *xslots;
	unsigned xslots_nr;
	unsigned xslot_hint;
	unsigned xslots_hi;
	unsigned xslots_used;		/* entries in use, every process's */
	__u64 xtimer_next;		/* the first detached TIMEOUT's deadline; 0 none */

	/*
	 * SQPOLL (sqpoll.c): the creator's thread consumes every process's
	 * SQEs; shared futexes: bumped by SQ_WAKEUP, bumped when SQEs are
	 * taken, and the threads in IORING_ENTER_SQ_WAIT
	 */
	atomic_uint sq_wake_seq;
	atomic_uint sq_consumed_seq;
	atomic_uint sq_space_waiters;
};

#define AR_SH_SIZE	4096

static inline struct ar_ushared *ar_sh(const struct ar_uctx *ctx)
{
	return (struct ar_ushared *)((char *)ctx - AR_SH_SIZE);
}

/*
 * uring_lock (struct ar_ushared): a robust process-shared mutex. Its
 * holder's process may have been killed in its section (a forked ring,
 * SIGKILL): the next owner goes on from the SQ state the section left,
 * which it stored before releasing or not at all (the SQ head is
 * published after its SQEs are consumed; those a dead submit consumed
 * are its requests, whose CQEs ar_xslot_sweep() posts: fork.c).
 */
static inline void ar_uring_lock(const struct ar_uctx *ctx)
{
	pthread_mutex_t *m = &ar_sh(ctx)->uring_lock;

	if (__builtin_expect(pthread_mutex_lock(m) == EOWNERDEAD, 0))
		pthread_mutex_consistent(m);
}

/* CQEs wait on the overflow backlog (relaxed: a hint, rechecked under the lock) */
static inline bool ar_cq_overflowed(const struct ar_uctx *ctx)
{
	const struct ar_ushared *sh = ar_sh(ctx);

	return __atomic_load_n(&sh->of_head, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&sh->of_tail, __ATOMIC_RELAXED);
}

extern __thread struct ar_uctx *ar_registered_rings[AR_RINGFD_REG_MAX];
/*
 * This thread made, submitted to or registered a user ring: the kernel
 * would know it as an io_uring task (registered-ring errors differ).
 */
extern __thread bool ar_user_task;

/* a thread waiting for CQEs (waitq.c); target and force under wait_lock */
struct ar_waiter {
	struct ar_waiter *next;		/* on ctx->waitq */
	int efd;			/* eventfd it sleeps on */
	atomic_int refs;
	unsigned target;		/* wake once the CQ tail reaches it */
	unsigned nr_timeouts;		/* ... or a timeout completed */
	bool force;
	bool poll_skip;			/* the next sleep leaves readiness to another reaper */
	bool xcounted;			/* counted in ar_sh()'s xsleep (fork.c) */
	int xep;			/* xcounted: the epoll fd it sleeps on too, or -1 */
	struct ar_waiter *xnext;	/* xcounted: on fork.c's sleepers */
};

/*
 * A request's state is read by cancellation under ctx->lock while a worker
 * or the service thread moves it on under their own locks; the decision is
 * always re-checked where it is acted on (the io-wq queue under its lock,
 * the armed lists under ctx->lock), so relaxed atomics suffice.
 */
static inline enum ar_req_state ar_req_state(const struct ar_ureq *req)
{
	return __atomic_load_n(&req->state, __ATOMIC_RELAXED);
}

static inline void ar_req_set_state(struct ar_ureq *req, enum ar_req_state s)
{
	__atomic_store_n(&req->state, s, __ATOMIC_RELAXED);
}

/* append req to the list head..tail of requests linked by next */
static inline void ar_req_list_add(struct ar_ureq **head, struct ar_ureq **tail,
				   struct ar_ureq *req)
{
	req->next = NULL;
	if (*tail)
		(*tail)->next = req;
	else
		*head = req;
	*tail = req;
}

static inline void ar_req_set_fail(struct ar_ureq *req)
{
	req->flags |= AR_REQ_F_FAIL;
	/* a failure posts its CQE; the links it cancels post none */
	if (req->flags & AR_REQ_F_SKIP_CQE) {
		req->flags &= ~AR_REQ_F_SKIP_CQE;
		req->flags |= AR_REQ_F_SKIP_LINK_CQES;
	}
}

/* completion work gathered under ctx->lock, finished after it is dropped */
struct ar_comp_batch {
	struct ar_ureq *queue, *queue_tail;	/* requests to issue next */
	struct ar_ureq *free;			/* requests to release */
	bool posted;
};

static inline void ar_batch_init(struct ar_comp_batch *b)
{
	b->queue = b->queue_tail = b->free = NULL;
	b->posted = false;
}

#endif
