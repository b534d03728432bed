/* SPDX-License-Identifier: MIT */
/*
 * evloop.c - an event loop shaped like Node.js's libuv, driving io_uring
 * with raw system calls (io_uring_setup/enter/register, the rings mapped
 * with mmap(2)), so that where io_uring is refused the system-call trap
 * serves it from the user engine. Written for the issue "Event loops on
 * the ring fd and SQPOLL"; run by tests/evloop.sh and
 * bench/evloop-soak.sh.
 *
 * The loop, as libuv 1.45+ (Node 20) sets it up:
 *   - an SQPOLL ring of 64 entries (sq_thread_idle 10 ms) for file
 *     operations. Submitting: write the SQE, store the SQ tail with
 *     release, a full barrier, and io_uring_enter(SQ_WAKEUP) only when
 *     the SQ thread said IORING_SQ_NEED_WAKEUP;
 *   - a ring of 256 entries (IORING_SETUP_NO_SQARRAY as Node 22, flags 0
 *     as Node 20 with --ctl-sqarray) that batches epoll_ctl() as
 *     IORING_OP_EPOLL_CTL SQEs, submitted with
 *     io_uring_enter(fd, n, n, GETEVENTS) and reaped at once;
 *   - both ring fds in the loop's epoll set (libc epoll_ctl, EPOLLIN,
 *     level-triggered). The loop sleeps in epoll_pwait(); when a ring fd
 *     polls readable it reaps CQEs from the mapped CQ (tail loaded with
 *     acquire, head advanced with a release store) and enters the ring
 *     only to submit, or with GETEVENTS when IORING_SQ_CQ_OVERFLOW is
 *     set, to flush the backlog.
 *
 * Work: chains of awaited file operations, one op in flight per chain
 * (as `await fs.promises.x()`): OPENAT (O_CREAT|O_EXCL) in a temporary
 * directory, WRITE 4 KiB, FSYNC, READ back and compare, STATX, CLOSE,
 * RENAMEAT, UNLINKAT, again. Every CQE's res and user_data is checked.
 * About every 50 ops an EPOLL_CTL ADD and DEL of a pipe fd go through the
 * ctl ring in one batch.
 *
 * Waiting is bounded: epoll_pwait() has a timeout (--poll-ms, 100 ms),
 * and when nothing completes for -t seconds while an op is in flight
 * the program prints what the rings look like (head and tail of each
 * queue, sq_flags, whether poll(2) finds the ring fd readable, what the
 * epoll set reports) and exits 2. A watchdog thread does the same when
 * the loop is stuck inside a system call. Exit 1 on a wrong result, 3
 * when io_uring_setup is refused (no trap), 0 on success:
 *   evloop: ok ops=N secs=S ops/s=R epoll_waits=W empty_wakeups=E ...
 * An empty wakeup is an epoll_pwait() that reported a ring fd readable
 * with its CQ empty.
 *
 * Usage: evloop [OPTIONS]
 *   -n N             file operations in all (default 1000; whole chains
 *                    of 8 are run, so the count is rounded up)
 *   -j J             chains in flight at once (1..64, default 1)
 *   -t SECS          no progress for this long is a hang (default 10)
 *   -d DIR           where the temporary directory goes ($TMPDIR, /tmp)
 *   -v               say how the rings were set up
 *   --poll-ms MS     epoll_pwait() timeout (default 100)
 *   --sq-idle MS     sq_thread_idle of the SQPOLL ring (default 10)
 *   --no-sqpoll      the file ring without SQPOLL, each SQE submitted by
 *                    io_uring_enter(fd, 1, 0, 0)
 *   --ctl-sqarray    the ctl ring with flags 0 (Node 20), not NO_SQARRAY
 *   --idle MS        after the ops, sit idle in epoll_pwait() for MS ms
 *                    with both rings set up and print the process CPU
 *                    time (user+sys, engine threads included) it took:
 *                    "evloop: idle ms=MS cpu_ms=C ..."
 *   --idle-max-empty N  fail (exit 1) when a ring fd polled readable with
 *                    its CQ empty more than N times in the second half of
 *                    that idle period (the first may hold a poster still
 *                    finishing its signal on a busy machine), or more
 *                    than 1000 times in all:
 *                    the kernel's never does, a loop on such an fd spins
 *   --idle-only      no ops: set up --rings=K rings of --ring=KIND and
 *                    idle for --idle MS (default 5000):
 *                      plain       flags 0, never used or polled
 *                      sqpoll10    SQPOLL, sq_thread_idle 10 ms, one NOP
 *                      sqpoll1000  SQPOLL, sq_thread_idle 1000 ms, one NOP
 *                      eventfd     flags 0, an eventfd registered
 *                                  (IORING_REGISTER_EVENTFD) and in the
 *                                  epoll set, one NOP
 *                      epoll       flags 0, the ring fd in the epoll set,
 *                                  one NOP completed and reaped from memory
 *                    (--epoll-add puts plain and sqpoll ring fds in the
 *                    epoll set too). Prints "evloop: idle ms=MS cpu_ms=C
 *                    ring=KIND rings=K cpu_ms_second_half=C2
 *                    epoll_wakeups=W fd_events=E": C2 is the second half's
 *                    CPU alone, past an SQ thread's sq_thread_idle spin
 *   --think-ms MS    wait MS ms (in epoll_pwait, as a timer would) after
 *                    each completion before the chain's next op: the
 *                    rings go quiet between ops and the SQ thread falls
 *                    asleep (with --sq-idle below MS), so every submit
 *                    enters with SQ_WAKEUP
 *   --threadpool T   no io_uring: the same chains run by T threads with
 *                    blocking system calls, each completion signalled to
 *                    the loop through an eventfd in the epoll set (what
 *                    libuv does when io_uring is refused)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY	(1U << 16)	/* Linux 6.6; not in Debian 12's header */
#endif

#define EXIT_WRONG	1
#define EXIT_HANG	2
#define EXIT_REFUSED	3

#define BUF_SIZE	4096
#define MAX_CHAINS	64		/* the SQPOLL ring's entries: the SQ cannot fill */
#define IOU_ENTRIES	64
#define CTL_ENTRIES	256
#define CTL_EVERY	50		/* ops between two epoll_ctl batches */

/* epoll data tags */
#define TAG_IOU		1
#define TAG_CTL		2
#define TAG_POOL	3		/* the thread pool's eventfd */
#define TAG_IDLE	4		/* --idle-only: ring fds, eventfds */

/* the ctl ring's user_data: a tag the file ring never uses, and a serial */
#define CTL_UD		0xC7100000000000ULL

#define FAIL(...) do { fprintf(stderr, "evloop: FAIL: " __VA_ARGS__); \
		       fputc('\n', stderr); cleanup_files(); exit(EXIT_WRONG); } while (0)

static void cleanup_files(void);

/* ------------------------------------------------------------------ */
/* options and counters */

static struct {
	long ops;
	int chains;
	int hang_secs;
	const char *dir;
	bool verbose;
	int poll_ms;
	unsigned sq_idle;
	bool no_sqpoll;
	bool ctl_sqarray;
	long idle_ms;
	bool idle_only;
	const char *ring_kind;
	int rings;
	bool epoll_add;
	int threadpool;
	int think_ms;
	long idle_max_empty;
} opt = {
	.ops = 1000, .chains = 1, .hang_secs = 10, .poll_ms = 100,
	.sq_idle = 10, .idle_ms = -1, .ring_kind = "plain", .rings = 1,
	.idle_max_empty = -1,
};

static struct {
	unsigned long epoll_waits, empty_iou, empty_ctl, empty_pool;
	unsigned long sq_wakeups, overflow_flushes, ctl_batches;
	double max_gap_ms;
} st;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* ------------------------------------------------------------------ */
/* a ring, mapped by hand */

struct ring {
	const char *name;
	int fd;
	unsigned flags;			/* setup flags it got */
	unsigned features;
	/* shared with the engine: accessed as atomics */
	_Atomic unsigned *sq_head, *sq_tail, *sq_flags, *sq_dropped;
	_Atomic unsigned *cq_head, *cq_tail, *cq_overflow;
	unsigned sq_mask, sq_entries, cq_mask, cq_entries;
	unsigned *sq_array;		/* NULL with IORING_SETUP_NO_SQARRAY */
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned tail;			/* the next SQ tail, published by sq_publish() */
	unsigned submitted;		/* the tail entered so far (no SQPOLL) */
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqes_len;
};

static long sys_setup(unsigned entries, struct io_uring_params *p)
{
	return syscall(__NR_io_uring_setup, entries, p);
}

/* io_uring_enter, retried on EINTR; -errno on failure */
static long sys_enter(int fd, unsigned submit, unsigned wait, unsigned flags)
{
	long ret;

	do
		ret = syscall(__NR_io_uring_enter, fd, submit, wait, flags, NULL, 0);
	while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

static void *map_ring(int fd, size_t len, off_t off, const char *what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, off);

	if (p == MAP_FAILED)
		FAIL("mmap of %s (%zu bytes at %#lx): %s", what, len,
		     (unsigned long)off, strerror(errno));
	return p;
}

/*
 * Set up and map a ring. 0, or -errno from io_uring_setup (the caller
 * decides about EINVAL); a refusal (EPERM, EACCES, ENOSYS) exits 3.
 */
static int ring_setup(struct ring *r, const char *name, unsigned entries,
		      unsigned flags, unsigned sq_idle)
{
	struct io_uring_params p;
	char *sq, *cq;
	unsigned i;
	int fd;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->fd = -1;
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = sq_idle;
	fd = (int)sys_setup(entries, &p);
	if (fd < 0) {
		int err = errno;

		if (err == EPERM || err == EACCES || err == ENOSYS) {
			fprintf(stderr, "evloop: io_uring_setup refused: %s\n",
				strerror(err));
			cleanup_files();
			exit(EXIT_REFUSED);
		}
		return -err;
	}
	r->fd = fd;
	r->flags = flags;
	r->features = p.features;
	r->sq_entries = p.sq_entries;
	r->cq_entries = p.cq_entries;
	r->sq_len = (flags & IORING_SETUP_NO_SQARRAY) ? 0 :
		    p.sq_off.array + p.sq_entries * sizeof(unsigned);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		/* one mapping for both rings, as libuv maps them */
		if (r->cq_len > r->sq_len)
			r->sq_len = r->cq_len;
		sq = cq = r->sq_map = map_ring(fd, r->sq_len, IORING_OFF_SQ_RING,
					       "the rings");
	} else {
		if (flags & IORING_SETUP_NO_SQARRAY)
			FAIL("NO_SQARRAY without IORING_FEAT_SINGLE_MMAP");
		sq = r->sq_map = map_ring(fd, r->sq_len, IORING_OFF_SQ_RING, "the SQ ring");
		cq = r->cq_map = map_ring(fd, r->cq_len, IORING_OFF_CQ_RING, "the CQ ring");
	}
	r->sqes = map_ring(fd, r->sqes_len, IORING_OFF_SQES, "the SQEs");
	r->sq_head = (_Atomic unsigned *)(sq + p.sq_off.head);
	r->sq_tail = (_Atomic unsigned *)(sq + p.sq_off.tail);
	r->sq_flags = (_Atomic unsigned *)(sq + p.sq_off.flags);
	r->sq_dropped = (_Atomic unsigned *)(sq + p.sq_off.dropped);
	r->sq_mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	r->cq_head = (_Atomic unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (_Atomic unsigned *)(cq + p.cq_off.tail);
	r->cq_overflow = (_Atomic unsigned *)(cq + p.cq_off.overflow);
	r->cq_mask = *(unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	if (!(flags & IORING_SETUP_NO_SQARRAY)) {
		/* the identity, once: slot i of the SQ is SQE i. Plain stores:
		 * the first tail release (sq_publish) publishes them */
		r->sq_array = (unsigned *)(sq + p.sq_off.array);
		for (i = 0; i < p.sq_entries; i++)
			r->sq_array[i] = i;
	}
	/* only this thread writes the SQ tail */
	r->tail = r->submitted = atomic_load_explicit(r->sq_tail, memory_order_relaxed);
	return 0;
}

static void ring_exit(struct ring *r)
{
	if (r->fd < 0)
		return;
	if (r->sq_map)
		munmap(r->sq_map, r->sq_len);
	if (r->cq_map)
		munmap(r->cq_map, r->cq_len);
	munmap(r->sqes, r->sqes_len);
	close(r->fd);
	r->fd = -1;
}

/* the next SQE, zeroed, or NULL when the SQ is full */
static struct io_uring_sqe *sqe_get(struct ring *r, __u64 ud)
{
	/* acquire: pairs with the engine's release of the SQ head once it
	 * has consumed SQEs, so it is done reading a slot we reuse */
	unsigned head = atomic_load_explicit(r->sq_head, memory_order_acquire);
	struct io_uring_sqe *sqe;

	if (r->tail - head >= r->sq_entries)
		return NULL;
	sqe = &r->sqes[r->tail & r->sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	sqe->user_data = ud;
	r->tail++;
	return sqe;
}

static void sq_publish(struct ring *r)
{
	/* release: the SQEs written before it are visible to whoever loads
	 * the tail with acquire (the SQ thread, or the enter that submits) */
	atomic_store_explicit(r->sq_tail, r->tail, memory_order_release);
}

/*
 * Publish what was prepared on the file ring. SQPOLL: tell the SQ thread
 * only if it sleeps. No SQPOLL: enter to submit, without waiting.
 */
static void iou_submit(struct ring *r)
{
	long ret;

	sq_publish(r);
	if (r->flags & IORING_SETUP_SQPOLL) {
		/*
		 * Full barrier between the tail store and the sq_flags load:
		 * pairs with the SQ thread's full barrier between setting
		 * IORING_SQ_NEED_WAKEUP and its last look at the SQ tail
		 * before sleeping. Either it sees our tail, or we see the flag;
		 * without it both could miss and the SQE would sit unseen.
		 */
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(r->sq_flags, memory_order_relaxed) &
		    IORING_SQ_NEED_WAKEUP) {
			ret = sys_enter(r->fd, 0, 0, IORING_ENTER_SQ_WAKEUP);
			if (ret < 0)
				FAIL("io_uring_enter(SQ_WAKEUP) on the %s ring: %s",
				     r->name, strerror((int)-ret));
			st.sq_wakeups++;
		}
		return;
	}
	ret = sys_enter(r->fd, r->tail - r->submitted, 0, 0);
	if (ret != (long)(r->tail - r->submitted))
		FAIL("io_uring_enter(%u, 0, 0) on the %s ring: %ld (%s)",
		     r->tail - r->submitted, r->name, ret,
		     ret < 0 ? strerror((int)-ret) : "short submit");
	r->submitted = r->tail;
}

/* ------------------------------------------------------------------ */
/* chains of awaited file operations */

enum step { S_OPEN, S_WRITE, S_FSYNC, S_READ, S_STATX, S_CLOSE, S_RENAME,
	    S_UNLINK, S_STEPS };

static const char *const step_name[S_STEPS] = {
	"OPENAT", "WRITE", "FSYNC", "READ", "STATX", "CLOSE", "RENAMEAT", "UNLINKAT",
};

struct chain {
	int id;
	enum step step;
	unsigned cycle;
	unsigned seq;			/* ops issued: the low half of user_data */
	int fd;				/* the file, between OPENAT and CLOSE */
	bool busy;			/* an op in flight */
	bool done;
	double think_due;		/* --think-ms: the next op waits till then */
	__u64 ud;			/* the op in flight's user_data */
	double t_issue;
	char name[64], renamed[64];
	struct statx stx;
	unsigned char *wbuf, *rbuf;
	/* the thread pool's request: the SQE it runs, and its result */
	struct io_uring_sqe work;
	int work_res;
	struct chain *work_next;
};

enum backend { B_RING, B_POOL };

static struct loop {
	enum backend backend;
	int epfd;
	struct ring iou, ctl;
	int dirfd;
	char dir[4096];
	int pipe_fds[2];
	struct epoll_event ctl_ev;	/* EPOLL_CTL ADD's event: stays put */
	struct chain *chains;
	int nchains;
	long ops_reserved, ops_done;
	long next_ctl;			/* ops_done at which a ctl batch is due */
	int inflight;
	int thinking;			/* chains waiting out --think-ms */
	unsigned ctl_seq;
	double last_progress;
	/* the thread pool */
	int pool_efd;
	pthread_t *pool_threads;
	pthread_mutex_t pool_lock;
	pthread_cond_t pool_cond;
	struct chain *pool_todo, **pool_todo_tail, *pool_done;
	bool pool_stop;
} L = { .epfd = -1, .dirfd = -1, .pipe_fds = { -1, -1 }, .pool_efd = -1,
	.iou = { .fd = -1 }, .ctl = { .fd = -1 } };

/* what the watchdog thread watches */
/* seq_cst (the default) throughout: a heartbeat and a label for a
 * human, nothing is published through them */
static _Atomic double heartbeat;
static _Atomic(const char *) phase = "setup";
static pthread_mutex_t watchdog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watchdog_cond;
static bool watchdog_stop;		/* under watchdog_lock */

static void cleanup_files(void)
{
	int i;

	if (L.dirfd < 0)
		return;
	for (i = 0; i < L.nchains; i++) {
		unlinkat(L.dirfd, L.chains[i].name, 0);
		unlinkat(L.dirfd, L.chains[i].renamed, 0);
	}
	rmdir(L.dir);
}

static void fill(struct chain *c)
{
	unsigned i;

	for (i = 0; i < BUF_SIZE; i++)
		c->wbuf[i] = (unsigned char)(c->id * 131u + c->cycle * 7u + i * 13u + (i >> 8));
}

/* the current step of c as an SQE; the thread pool runs the same SQE */
static void prep_step(struct chain *c, struct io_uring_sqe *sqe)
{
	switch (c->step) {
	case S_OPEN:
		snprintf(c->name, sizeof(c->name), "c%d-%u", c->id, c->cycle);
		snprintf(c->renamed, sizeof(c->renamed), "c%d-%u.renamed", c->id,
			 c->cycle);
		sqe->opcode = IORING_OP_OPENAT;
		sqe->fd = L.dirfd;
		sqe->addr = (uintptr_t)c->name;
		sqe->open_flags = O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC;
		sqe->len = 0644;
		break;
	case S_WRITE:
		fill(c);
		sqe->opcode = IORING_OP_WRITE;
		sqe->fd = c->fd;
		sqe->addr = (uintptr_t)c->wbuf;
		sqe->len = BUF_SIZE;
		sqe->off = 0;
		break;
	case S_FSYNC:
		sqe->opcode = IORING_OP_FSYNC;
		sqe->fd = c->fd;
		break;
	case S_READ:
		memset(c->rbuf, 0xee, BUF_SIZE);
		sqe->opcode = IORING_OP_READ;
		sqe->fd = c->fd;
		sqe->addr = (uintptr_t)c->rbuf;
		sqe->len = BUF_SIZE;
		sqe->off = 0;
		break;
	case S_STATX:
		memset(&c->stx, 0, sizeof(c->stx));
		sqe->opcode = IORING_OP_STATX;
		sqe->fd = L.dirfd;
		sqe->addr = (uintptr_t)c->name;
		sqe->len = STATX_BASIC_STATS;
		sqe->statx_flags = 0;
		sqe->addr2 = (uintptr_t)&c->stx;
		break;
	case S_CLOSE:
		sqe->opcode = IORING_OP_CLOSE;
		sqe->fd = c->fd;
		break;
	case S_RENAME:
		sqe->opcode = IORING_OP_RENAMEAT;
		sqe->fd = L.dirfd;
		sqe->addr = (uintptr_t)c->name;
		sqe->len = (__u32)L.dirfd;
		sqe->addr2 = (uintptr_t)c->renamed;
		sqe->rename_flags = 0;
		break;
	case S_UNLINK:
		sqe->opcode = IORING_OP_UNLINKAT;
		sqe->fd = L.dirfd;
		sqe->addr = (uintptr_t)c->renamed;
		sqe->unlink_flags = 0;
		break;
	case S_STEPS:
		break;
	}
}

static void pool_queue(struct chain *c);

/* issue c's current step */
static void chain_issue(struct chain *c)
{
	struct io_uring_sqe *sqe;

	c->ud = (__u64)(c->id + 1) << 32 | ++c->seq;
	c->busy = true;
	c->t_issue = now_ms();
	/* the hang clock runs while something is in flight */
	if (L.inflight++ == 0)
		L.last_progress = c->t_issue;
	if (L.backend == B_POOL) {
		memset(&c->work, 0, sizeof(c->work));
		c->work.user_data = c->ud;
		prep_step(c, &c->work);
		pool_queue(c);
		return;
	}
	sqe = sqe_get(&L.iou, c->ud);
	if (!sqe)	/* at most MAX_CHAINS in flight: cannot be */
		FAIL("the %s ring's SQ is full (head %u, tail %u)", L.iou.name,
		     atomic_load_explicit(L.iou.sq_head, memory_order_relaxed),
		     L.iou.tail);
	prep_step(c, sqe);
	iou_submit(&L.iou);
}

/* start another cycle of 8 ops if the budget allows, else c is done */
static void chain_start(struct chain *c)
{
	if (L.ops_reserved >= opt.ops) {
		c->done = true;
		return;
	}
	L.ops_reserved += S_STEPS;
	c->step = S_OPEN;
	chain_issue(c);
}

/* the result of c's op in flight: check it and go on */
static void chain_complete(struct chain *c, int res)
{
	const char *what = step_name[c->step];
	int want = 0;

	c->busy = false;
	L.inflight--;
	L.ops_done++;
	switch (c->step) {
	case S_OPEN:
		if (res < 0)
			FAIL("chain %d cycle %u: %s %s: %s", c->id, c->cycle, what,
			     c->name, strerror(-res));
		c->fd = res;
		break;
	case S_WRITE:
	case S_READ:
		want = BUF_SIZE;
		if (res == want && c->step == S_READ &&
		    memcmp(c->rbuf, c->wbuf, BUF_SIZE))
			FAIL("chain %d cycle %u: READ returned other bytes than "
			     "were written", c->id, c->cycle);
		break;
	case S_STATX:
		if (res == 0 && (!(c->stx.stx_mask & STATX_SIZE) ||
				 c->stx.stx_size != BUF_SIZE ||
				 !S_ISREG(c->stx.stx_mode)))
			FAIL("chain %d cycle %u: STATX: mask %#x size %llu mode %o",
			     c->id, c->cycle, c->stx.stx_mask,
			     (unsigned long long)c->stx.stx_size, c->stx.stx_mode);
		break;
	case S_CLOSE:
		c->fd = -1;
		break;
	default:
		break;
	}
	if (c->step != S_OPEN && res != want)
		FAIL("chain %d cycle %u: %s: res %d (%s), expected %d", c->id,
		     c->cycle, what, res, res < 0 ? strerror(-res) : "-", want);
	if (++c->step == S_STEPS) {
		c->cycle++;
		c->step = S_OPEN;
		if (L.ops_reserved >= opt.ops) {
			c->done = true;
			return;
		}
		L.ops_reserved += S_STEPS;
	}
	if (opt.think_ms) {
		/* the program does something else first (a timer, JS code):
		 * the rings go quiet, the SQ thread may fall asleep */
		c->think_due = now_ms() + opt.think_ms;
		L.thinking++;
		return;
	}
	chain_issue(c);
}

/* --think-ms: issue the ops whose time came; the ms till the next one */
static int think_run(int timeout_ms)
{
	double t = now_ms(), next = 0;
	int i;

	for (i = 0; i < L.nchains && L.thinking; i++) {
		struct chain *c = &L.chains[i];

		if (!c->think_due)
			continue;
		if (c->think_due <= t) {
			c->think_due = 0;
			L.thinking--;
			chain_issue(c);
		} else if (!next || c->think_due < next) {
			next = c->think_due;
		}
	}
	if (next && next - t < timeout_ms)
		timeout_ms = (int)(next - t) + 1;
	return timeout_ms;
}

/* the CQE (ud, res): whose it is, checked */
static void cqe_dispatch(__u64 ud, int res)
{
	__u64 id = ud >> 32;
	struct chain *c;

	if (id < 1 || id > (__u64)L.nchains)
		FAIL("a CQE with user_data %#llx (res %d) that no op had",
		     (unsigned long long)ud, res);
	c = &L.chains[id - 1];
	if (!c->busy || c->ud != ud)
		FAIL("a CQE with user_data %#llx (res %d): chain %d has %s %#llx",
		     (unsigned long long)ud, res, c->id,
		     c->busy ? "in flight" : "nothing in flight, last",
		     (unsigned long long)c->ud);
	chain_complete(c, res);
}

/*
 * Reap the file ring's CQ from memory; the number of CQEs. With the
 * backlog flag set, enter with GETEVENTS to flush it, and reap again.
 */
static unsigned iou_reap(struct ring *r)
{
	unsigned head, tail, n = 0;

	for (;;) {
		/* only this thread writes the CQ head */
		head = atomic_load_explicit(r->cq_head, memory_order_relaxed);
		/* acquire: pairs with the engine's release store of the CQ tail
		 * after it wrote the CQEs, which are then read plainly */
		tail = atomic_load_explicit(r->cq_tail, memory_order_acquire);
		for (; head != tail; head++, n++) {
			struct io_uring_cqe *cqe = &r->cqes[head & r->cq_mask];

			/* may issue the chain's next op (the CQ has room: at
			 * most MAX_CHAINS ops in flight, 128 CQEs) */
			cqe_dispatch(cqe->user_data, cqe->res);
		}
		/* release: our reads of those CQEs are done before the engine,
		 * loading the head with acquire, may write over their slots */
		atomic_store_explicit(r->cq_head, head, memory_order_release);
		/*
		 * acquire, as libuv loads it; nothing is read through it: the
		 * flag only decides whether to enter, and the enter flushes
		 * under the engine's own ordering. A flag set after this load
		 * is not lost: the ring fd polls readable while a backlog
		 * waits (the kernel's io_uring_poll), so the loop comes back.
		 */
		if (!(atomic_load_explicit(r->sq_flags, memory_order_acquire) &
		      IORING_SQ_CQ_OVERFLOW))
			return n;
		if (sys_enter(r->fd, 0, 0, IORING_ENTER_GETEVENTS) < 0)
			FAIL("io_uring_enter(GETEVENTS) to flush the %s ring's "
			     "overflow: %s", r->name, strerror(errno));
		st.overflow_flushes++;
	}
}

/*
 * The ctl ring polled readable: its CQEs are all reaped by ctl_flush,
 * so any CQE here is one nobody asked for. The number found.
 */
static unsigned ctl_reap_stray(struct ring *r)
{
	unsigned head = atomic_load_explicit(r->cq_head, memory_order_relaxed);
	/* acquire: pairs with the engine's release of the CQ tail */
	unsigned tail = atomic_load_explicit(r->cq_tail, memory_order_acquire);

	if (head != tail)
		FAIL("the ctl ring has %u CQEs nobody waits for (user_data %#llx "
		     "res %d)", tail - head,
		     (unsigned long long)r->cqes[head & r->cq_mask].user_data,
		     r->cqes[head & r->cq_mask].res);
	return 0;
}

/*
 * An epoll_ctl batch through the ctl ring: ADD the pipe's read end, DEL
 * it, submitted and waited for with one enter, reaped at once. After it
 * the fd must be out of the set again (libc's DEL says ENOENT).
 */
static void ctl_flush(void)
{
	struct ring *r = &L.ctl;
	__u64 uds[2];
	bool seen[2] = { false, false };
	unsigned head, tail, n = 2, i;
	long ret;
	struct io_uring_sqe *sqe;

	atomic_store(&phase, "ctl ring: io_uring_enter(2, 2, GETEVENTS)");
	for (i = 0; i < n; i++) {
		uds[i] = CTL_UD | ++L.ctl_seq;
		sqe = sqe_get(r, uds[i]);
		if (!sqe)
			FAIL("the ctl ring's SQ is full");
		sqe->opcode = IORING_OP_EPOLL_CTL;
		sqe->fd = L.epfd;
		sqe->off = (__u64)L.pipe_fds[0];
		if (i == 0) {
			sqe->len = EPOLL_CTL_ADD;
			L.ctl_ev.events = EPOLLIN;
			L.ctl_ev.data.u64 = 0xdead;
			sqe->addr = (uintptr_t)&L.ctl_ev;
		} else {
			sqe->len = EPOLL_CTL_DEL;
		}
	}
	sq_publish(r);
	ret = sys_enter(r->fd, n, n, IORING_ENTER_GETEVENTS);
	if (ret != (long)n)
		FAIL("io_uring_enter(%u, %u, GETEVENTS) on the ctl ring: %ld (%s)",
		     n, n, ret, ret < 0 ? strerror((int)-ret) : "short submit");
	head = atomic_load_explicit(r->cq_head, memory_order_relaxed);
	/* acquire: pairs with the engine's release of the CQ tail */
	tail = atomic_load_explicit(r->cq_tail, memory_order_acquire);
	if (tail - head != n)
		FAIL("the ctl ring: %u CQEs after waiting for %u", tail - head, n);
	for (; head != tail; head++) {
		struct io_uring_cqe *cqe = &r->cqes[head & r->cq_mask];

		for (i = 0; i < n; i++)
			if (cqe->user_data == uds[i] && !seen[i])
				break;
		if (i == n)
			FAIL("the ctl ring: a CQE with user_data %#llx (res %d) "
			     "not in the batch", (unsigned long long)cqe->user_data,
			     cqe->res);
		seen[i] = true;
		if (cqe->res != 0)
			FAIL("the ctl ring: EPOLL_CTL %s: res %d (%s)",
			     i ? "DEL" : "ADD", cqe->res, strerror(-cqe->res));
	}
	/* release: the CQEs are read before the engine may reuse their slots */
	atomic_store_explicit(r->cq_head, head, memory_order_release);
	if (epoll_ctl(L.epfd, EPOLL_CTL_DEL, L.pipe_fds[0], NULL) == 0 || errno != ENOENT)
		FAIL("after the ctl ring's ADD and DEL the pipe fd is still in "
		     "the epoll set (or: %s)", strerror(errno));
	st.ctl_batches++;
}

/* the same batch with libc's epoll_ctl, for the thread pool */
static void ctl_libc(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0xdead };

	if (epoll_ctl(L.epfd, EPOLL_CTL_ADD, L.pipe_fds[0], &ev) ||
	    epoll_ctl(L.epfd, EPOLL_CTL_DEL, L.pipe_fds[0], NULL))
		FAIL("epoll_ctl of the pipe fd: %s", strerror(errno));
	st.ctl_batches++;
}

/* ------------------------------------------------------------------ */
/* the thread pool */

static int run_sqe(const struct io_uring_sqe *s)
{
	const char *path = (const char *)(uintptr_t)s->addr;
	long r;

	switch (s->opcode) {
	case IORING_OP_OPENAT:
		r = openat(s->fd, path, (int)s->open_flags, (mode_t)s->len);
		break;
	case IORING_OP_WRITE:
		r = pwrite(s->fd, (void *)(uintptr_t)s->addr, s->len, (off_t)s->off);
		break;
	case IORING_OP_FSYNC:
		r = fsync(s->fd);
		break;
	case IORING_OP_READ:
		r = pread(s->fd, (void *)(uintptr_t)s->addr, s->len, (off_t)s->off);
		break;
	case IORING_OP_STATX:
		r = statx(s->fd, path, (int)s->statx_flags, s->len,
			  (struct statx *)(uintptr_t)s->addr2);
		break;
	case IORING_OP_CLOSE:
		r = close(s->fd);
		break;
	case IORING_OP_RENAMEAT:
		r = renameat2(s->fd, path, (int)s->len,
			      (const char *)(uintptr_t)s->addr2, s->rename_flags);
		break;
	case IORING_OP_UNLINKAT:
		r = unlinkat(s->fd, path, (int)s->unlink_flags);
		break;
	default:
		errno = EINVAL;
		r = -1;
	}
	return r < 0 ? -errno : (int)r;
}

static void *pool_worker(void *arg)
{
	static const uint64_t one = 1;
	struct chain *c;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&L.pool_lock);
		while (!L.pool_todo && !L.pool_stop)
			pthread_cond_wait(&L.pool_cond, &L.pool_lock);
		if (!L.pool_todo) {
			pthread_mutex_unlock(&L.pool_lock);
			return NULL;
		}
		c = L.pool_todo;
		L.pool_todo = c->work_next;
		if (!L.pool_todo)
			L.pool_todo_tail = &L.pool_todo;
		pthread_mutex_unlock(&L.pool_lock);

		c->work_res = run_sqe(&c->work);

		/* the lock orders work_res before the loop's look at the list */
		pthread_mutex_lock(&L.pool_lock);
		c->work_next = L.pool_done;
		L.pool_done = c;
		pthread_mutex_unlock(&L.pool_lock);
		/* after the push: the loop clears the eventfd before it takes
		 * the list, so a push it misses is followed by this write */
		if (write(L.pool_efd, &one, sizeof(one)) != sizeof(one))
			abort();
	}
}

static void pool_queue(struct chain *c)
{
	c->work_next = NULL;
	pthread_mutex_lock(&L.pool_lock);
	*L.pool_todo_tail = c;
	L.pool_todo_tail = &c->work_next;
	pthread_cond_signal(&L.pool_cond);
	pthread_mutex_unlock(&L.pool_lock);
}

/* the pool's eventfd polled readable: the number of completions taken */
static unsigned pool_reap(void)
{
	struct chain *c, *list, *rev = NULL;
	uint64_t cnt;
	unsigned n = 0;

	/* clear first, then take the list: see pool_worker */
	if (read(L.pool_efd, &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
		FAIL("read of the pool's eventfd: %s", strerror(errno));
	pthread_mutex_lock(&L.pool_lock);
	list = L.pool_done;
	L.pool_done = NULL;
	pthread_mutex_unlock(&L.pool_lock);
	while (list) {		/* oldest first */
		c = list;
		list = c->work_next;
		c->work_next = rev;
		rev = c;
	}
	while (rev) {
		c = rev;
		rev = c->work_next;
		n++;
		cqe_dispatch(c->work.user_data, c->work_res);
	}
	return n;
}

static void pool_start(int threads)
{
	int i;

	L.pool_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (L.pool_efd < 0)
		FAIL("eventfd: %s", strerror(errno));
	pthread_mutex_init(&L.pool_lock, NULL);
	pthread_cond_init(&L.pool_cond, NULL);
	L.pool_todo_tail = &L.pool_todo;
	L.pool_threads = calloc((size_t)threads, sizeof(pthread_t));
	for (i = 0; i < threads; i++)
		if (pthread_create(&L.pool_threads[i], NULL, pool_worker, NULL))
			FAIL("pthread_create: %s", strerror(errno));
}

static void pool_stop(int threads)
{
	int i;

	pthread_mutex_lock(&L.pool_lock);
	L.pool_stop = true;
	pthread_cond_broadcast(&L.pool_cond);
	pthread_mutex_unlock(&L.pool_lock);
	for (i = 0; i < threads; i++)
		pthread_join(L.pool_threads[i], NULL);
	close(L.pool_efd);
}

/* ------------------------------------------------------------------ */
/* diagnosis of a hang */

static void ring_diag(const struct ring *r)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	unsigned sqh, sqt, cqh, cqt, fl, ovf, drop;
	int pr;

	if (r->fd < 0)
		return;
	/* relaxed: a snapshot for a human, taken from any thread */
	sqh = atomic_load_explicit(r->sq_head, memory_order_relaxed);
	sqt = atomic_load_explicit(r->sq_tail, memory_order_relaxed);
	cqh = atomic_load_explicit(r->cq_head, memory_order_relaxed);
	cqt = atomic_load_explicit(r->cq_tail, memory_order_relaxed);
	fl = atomic_load_explicit(r->sq_flags, memory_order_relaxed);
	ovf = atomic_load_explicit(r->cq_overflow, memory_order_relaxed);
	drop = atomic_load_explicit(r->sq_dropped, memory_order_relaxed);
	pr = poll(&pfd, 1, 0);
	fprintf(stderr,
		"evloop:   %s ring (fd %d, %s%s): cq head %u tail %u (%u CQEs "
		"waiting), overflow %u; sq head %u tail %u (%u unconsumed), "
		"dropped %u; sq_flags %#x%s%s; poll(): %s\n",
		r->name, r->fd, r->flags & IORING_SETUP_SQPOLL ? "SQPOLL" : "no SQPOLL",
		r->flags & IORING_SETUP_NO_SQARRAY ? ", NO_SQARRAY" : "",
		cqh, cqt, cqt - cqh, ovf, sqh, sqt, sqt - sqh, drop, fl,
		fl & IORING_SQ_NEED_WAKEUP ? " NEED_WAKEUP" : "",
		fl & IORING_SQ_CQ_OVERFLOW ? " CQ_OVERFLOW" : "",
		pr < 0 ? strerror(errno) :
		pr == 0 ? "not readable" :
		(pfd.revents & POLLIN) ? "readable" : "not readable (other events)");
	if (cqt != cqh && pr == 0)
		fprintf(stderr, "evloop:   => lost wakeup: CQEs wait in the %s "
			"ring's CQ but its fd does not poll readable\n", r->name);
	else if (cqt == cqh && sqt != sqh)
		fprintf(stderr, "evloop:   => the %s ring's SQEs are not "
			"consumed%s\n", r->name, fl & IORING_SQ_NEED_WAKEUP ?
			" (the SQ thread asked for a wakeup)" : "");
}

static void diagnose(const char *why, double stalled_ms)
{
	struct epoll_event evs[8];
	int i, n;
	double t = now_ms();

	fprintf(stderr, "evloop: hang: %s: no progress for %.1f s, %d ops in "
		"flight, %ld done, in: %s\n", why, stalled_ms / 1e3, L.inflight,
		L.ops_done, atomic_load(&phase));
	ring_diag(&L.iou);
	ring_diag(&L.ctl);
	for (i = 0; i < L.nchains; i++) {
		struct chain *c = &L.chains[i];

		if (c->busy)
			fprintf(stderr, "evloop:   chain %d cycle %u: %s in flight "
				"(user_data %#llx) for %.1f s\n", c->id, c->cycle,
				step_name[c->step], (unsigned long long)c->ud,
				(t - c->t_issue) / 1e3);
	}
	n = epoll_wait(L.epfd, evs, 8, 0);
	fprintf(stderr, "evloop:   epoll_wait(0) now reports %d ready:", n);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s",
			evs[i].data.u64 == TAG_IOU ? "file-ring" :
			evs[i].data.u64 == TAG_CTL ? "ctl-ring" :
			evs[i].data.u64 == TAG_POOL ? "pool-eventfd" : "?");
	fprintf(stderr, "\n");
}

/*
 * The loop checks itself between waits; this is for a loop stuck inside
 * one system call (an enter that waits for a CQE that never comes). Its
 * look at the chains races with the loop's writes: a snapshot for a
 * human, taken once, before _exit.
 */
static void *watchdog(void *arg)
{
	struct timespec ts;

	(void)arg;
	pthread_mutex_lock(&watchdog_lock);
	while (!watchdog_stop) {
		double idle = now_ms() - atomic_load(&heartbeat);

		if (idle > opt.hang_secs * 1e3 + 2000) {
			diagnose("stuck in a system call", idle);
			cleanup_files();
			_exit(EXIT_HANG);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&watchdog_cond, &watchdog_lock, &ts);
	}
	pthread_mutex_unlock(&watchdog_lock);
	return NULL;
}

static void watchdog_start(pthread_t *t)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&watchdog_cond, &ca);
	pthread_condattr_destroy(&ca);
	atomic_store(&heartbeat, now_ms());
	if (pthread_create(t, NULL, watchdog, NULL))
		FAIL("pthread_create: %s", strerror(errno));
}

static void watchdog_end(pthread_t t)
{
	pthread_mutex_lock(&watchdog_lock);
	watchdog_stop = true;
	pthread_cond_signal(&watchdog_cond);
	pthread_mutex_unlock(&watchdog_lock);
	pthread_join(t, NULL);
}

/* ------------------------------------------------------------------ */
/* the loop */

static void epoll_add(int fd, __u64 tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	if (epoll_ctl(L.epfd, EPOLL_CTL_ADD, fd, &ev))
		FAIL("epoll_ctl(ADD, %d): %s", fd, strerror(errno));
}

/*
 * One epoll_pwait and what it found. Returns true when something
 * completed.
 */
static bool loop_once(int timeout_ms)
{
	struct epoll_event evs[8];
	bool progress = false;
	unsigned k;
	int n, i;

	atomic_store(&phase, "epoll_pwait");
	atomic_store(&heartbeat, now_ms());
	n = epoll_pwait(L.epfd, evs, 8, timeout_ms, NULL);
	atomic_store(&heartbeat, now_ms());
	if (n < 0) {
		if (errno == EINTR)
			return false;
		FAIL("epoll_pwait: %s", strerror(errno));
	}
	st.epoll_waits++;
	for (i = 0; i < n; i++) {
		switch (evs[i].data.u64) {
		case TAG_IOU:
			atomic_store(&phase, "reaping the file ring");
			k = iou_reap(&L.iou);
			st.empty_iou += !k;
			break;
		case TAG_CTL:
			k = ctl_reap_stray(&L.ctl);
			st.empty_ctl += !k;
			break;
		case TAG_POOL:
			k = pool_reap();
			st.empty_pool += !k;
			break;
		default:
			FAIL("epoll_pwait reported an fd not ours (data %#llx)",
			     (unsigned long long)evs[i].data.u64);
		}
		progress |= k > 0;
	}
	return progress;
}

static void run_ops(void)
{
	double t0, t1, t;
	int i;

	t0 = L.last_progress = now_ms();
	L.next_ctl = CTL_EVERY;
	for (i = 0; i < L.nchains; i++)
		chain_start(&L.chains[i]);
	while (L.inflight > 0 || L.thinking > 0) {
		int timeout = think_run(opt.poll_ms);

		/* libuv flushes its epoll_ctl batch right before it waits */
		if (L.ops_done >= L.next_ctl) {
			L.next_ctl = L.ops_done + CTL_EVERY;
			if (L.backend == B_RING)
				ctl_flush();
			else
				ctl_libc();
		}
		t = now_ms();
		if (loop_once(timeout)) {
			t = now_ms();
			if (t - L.last_progress > st.max_gap_ms)
				st.max_gap_ms = t - L.last_progress;
			L.last_progress = t;
		} else if (L.inflight && t - L.last_progress > opt.hang_secs * 1e3) {
			diagnose("the loop waited in vain", t - L.last_progress);
			cleanup_files();
			exit(EXIT_HANG);
		}
	}
	t1 = now_ms();
	for (i = 0; i < L.nchains; i++)
		if (!L.chains[i].done || L.chains[i].busy)
			FAIL("chain %d did not finish", i);
	/* every file was renamed and unlinked: the directory is empty */
	if (rmdir(L.dir))
		FAIL("the directory %s is not empty after the ops: %s", L.dir,
		     strerror(errno));
	printf("evloop: ok ops=%ld secs=%.3f ops/s=%.0f epoll_waits=%lu "
	       "empty_wakeups=%lu (file %lu ctl %lu pool %lu) ctl_batches=%lu "
	       "sq_wakeups=%lu overflow_flushes=%lu max_gap_ms=%.1f chains=%d "
	       "backend=%s\n",
	       L.ops_done, (t1 - t0) / 1e3, L.ops_done / ((t1 - t0) / 1e3),
	       st.epoll_waits, st.empty_iou + st.empty_ctl + st.empty_pool,
	       st.empty_iou, st.empty_ctl, st.empty_pool, st.ctl_batches,
	       st.sq_wakeups, st.overflow_flushes, st.max_gap_ms, L.nchains,
	       L.backend == B_POOL ? "threadpool" :
	       (L.iou.flags & IORING_SETUP_SQPOLL) ? "sqpoll" : "plain");
	fflush(stdout);
}

/*
 * With --idle-max-empty, the whole idle period's bound too: a clear waits
 * out a poster mid-signal for 64 yields, so even one descheduled for tens
 * of ms stays far below it; a fd left readable spins far above it.
 */
#define IDLE_MAX_EMPTY_ALL	1000

static unsigned long empty_total(void)
{
	return st.empty_iou + st.empty_ctl + st.empty_pool;
}

/*
 * Sit in epoll_pwait for ms with nothing in flight; CQEs would be a bug.
 * --idle-max-empty judges the second half only: the thread that posted
 * the last CQE may still be finishing its ring-fd signal early on (a
 * busy machine can deschedule it there), while by the second half a fd
 * that polls readable with its CQ empty stays so: the loop spins.
 */
static void idle_period(long ms)
{
	unsigned long waits0 = st.epoll_waits, half = 0;
	unsigned long e_iou = st.empty_iou, e_ctl = st.empty_ctl, e_pool = st.empty_pool;
	double c0 = cpu_ms(), t0 = now_ms(), t;
	bool halfway = false;

	while ((t = now_ms()) - t0 < ms) {
		long left = ms - (long)(t - t0);

		if (!halfway && t - t0 >= ms / 2) {
			halfway = true;
			half = empty_total();
		}
		if (loop_once(left < opt.poll_ms ? (int)left + 1 : opt.poll_ms))
			FAIL("a completion while idle");
	}
	half = halfway ? empty_total() - half : 0;
	e_iou = st.empty_iou - e_iou;
	e_ctl = st.empty_ctl - e_ctl;
	e_pool = st.empty_pool - e_pool;
	printf("evloop: idle ms=%ld cpu_ms=%.1f epoll_waits=%lu empty_wakeups=%lu "
	       "(file %lu ctl %lu pool %lu) second_half=%lu\n", ms, cpu_ms() - c0,
	       st.epoll_waits - waits0, e_iou + e_ctl + e_pool, e_iou, e_ctl, e_pool,
	       half);
	/* the kernel's ring fd polls readable only while CQEs wait: none do */
	if (opt.idle_max_empty >= 0 && (long)half > opt.idle_max_empty)
		FAIL("a ring fd polled readable with its CQ empty %lu times in "
		     "the second half of %ld ms idle (more than %ld): the loop spins",
		     half, ms, opt.idle_max_empty);
	if (opt.idle_max_empty >= 0 && e_iou + e_ctl + e_pool > IDLE_MAX_EMPTY_ALL)
		FAIL("a ring fd polled readable with its CQ empty %lu times in "
		     "%ld ms idle (more than %d): the loop spins",
		     e_iou + e_ctl + e_pool, ms, IDLE_MAX_EMPTY_ALL);
}

static void setup_dir(void)
{
	const char *base = opt.dir ? opt.dir : getenv("TMPDIR");

	snprintf(L.dir, sizeof(L.dir), "%s/evloop.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(L.dir))
		FAIL("mkdtemp %s: %s", L.dir, strerror(errno));
	L.dirfd = open(L.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (L.dirfd < 0)
		FAIL("open %s: %s", L.dir, strerror(errno));
}

static void run_loop(void)
{
	pthread_t wd;
	int i, ret;
	unsigned ctl_flags = opt.ctl_sqarray ? 0 : IORING_SETUP_NO_SQARRAY;

	L.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (L.epfd < 0 || pipe2(L.pipe_fds, O_CLOEXEC | O_NONBLOCK))
		FAIL("epoll_create1/pipe2: %s", strerror(errno));
	setup_dir();
	L.nchains = opt.chains;
	L.chains = calloc((size_t)L.nchains, sizeof(*L.chains));
	for (i = 0; i < L.nchains; i++) {
		struct chain *c = &L.chains[i];

		c->id = i;
		c->fd = -1;
		if (posix_memalign((void **)&c->wbuf, 4096, BUF_SIZE) ||
		    posix_memalign((void **)&c->rbuf, 4096, BUF_SIZE))
			FAIL("posix_memalign");
	}
	if (opt.threadpool > 0) {
		L.backend = B_POOL;
		pool_start(opt.threadpool);
		epoll_add(L.pool_efd, TAG_POOL);
	} else {
		L.backend = B_RING;
		ret = ring_setup(&L.iou, "file", IOU_ENTRIES,
				 opt.no_sqpoll ? 0 : IORING_SETUP_SQPOLL, opt.sq_idle);
		if (ret)
			FAIL("io_uring_setup of the file ring: %s", strerror(-ret));
		ret = ring_setup(&L.ctl, "ctl", CTL_ENTRIES, ctl_flags, 0);
		if (ret == -EINVAL && ctl_flags) {
			printf("evloop: IORING_SETUP_NO_SQARRAY refused (EINVAL): "
			       "the ctl ring has flags 0\n");
			ret = ring_setup(&L.ctl, "ctl", CTL_ENTRIES, 0, 0);
		}
		if (ret)
			FAIL("io_uring_setup of the ctl ring: %s", strerror(-ret));
		epoll_add(L.iou.fd, TAG_IOU);
		epoll_add(L.ctl.fd, TAG_CTL);
		if (opt.verbose)
			printf("evloop: file ring fd %d (%u SQ, %u CQ, flags %#x), "
			       "ctl ring fd %d (%u SQ, %u CQ, flags %#x)\n",
			       L.iou.fd, L.iou.sq_entries, L.iou.cq_entries,
			       L.iou.flags, L.ctl.fd, L.ctl.sq_entries,
			       L.ctl.cq_entries, L.ctl.flags);
	}
	watchdog_start(&wd);

	run_ops();
	if (opt.idle_ms > 0)
		idle_period(opt.idle_ms);

	watchdog_end(wd);
	if (L.backend == B_POOL)
		pool_stop(opt.threadpool);
	ring_exit(&L.iou);
	ring_exit(&L.ctl);
	for (i = 0; i < L.nchains; i++) {
		free(L.chains[i].wbuf);
		free(L.chains[i].rbuf);
	}
	close(L.pipe_fds[0]);
	close(L.pipe_fds[1]);
	close(L.epfd);
	close(L.dirfd);
	rmdir(L.dir);
	L.dirfd = -1;
}

/* ------------------------------------------------------------------ */
/* --idle-only */

/* one NOP through r: submitted, waited for in the enter, reaped */
static void nop_wait(struct ring *r)
{
	struct io_uring_sqe *sqe = sqe_get(r, 0x4e4f50);
	unsigned head, tail;
	long ret;

	if (!sqe)
		FAIL("no SQE");
	sqe->opcode = IORING_OP_NOP;
	sq_publish(r);
	if (r->flags & IORING_SETUP_SQPOLL) {
		/* full barrier: as in iou_submit */
		atomic_thread_fence(memory_order_seq_cst);
		ret = sys_enter(r->fd, 0, 1, IORING_ENTER_GETEVENTS |
				(atomic_load_explicit(r->sq_flags, memory_order_relaxed) &
				 IORING_SQ_NEED_WAKEUP ? IORING_ENTER_SQ_WAKEUP : 0));
	} else {
		ret = sys_enter(r->fd, 1, 1, IORING_ENTER_GETEVENTS);
	}
	if (ret < 0)
		FAIL("io_uring_enter for a NOP: %s", strerror((int)-ret));
	head = atomic_load_explicit(r->cq_head, memory_order_relaxed);
	/* acquire: pairs with the engine's release of the CQ tail */
	tail = atomic_load_explicit(r->cq_tail, memory_order_acquire);
	if (tail - head != 1 || r->cqes[head & r->cq_mask].user_data != 0x4e4f50 ||
	    r->cqes[head & r->cq_mask].res != 0)
		FAIL("the NOP's CQE is not there (%u CQEs)", tail - head);
	/* release: the CQE is read before the engine may reuse its slot */
	atomic_store_explicit(r->cq_head, head + 1, memory_order_release);
}

/* one NOP the event loop's way: submitted, the fd polled, reaped from memory */
static void nop_polled(struct ring *r)
{
	struct io_uring_sqe *sqe = sqe_get(r, 0x4e4f50);
	struct epoll_event ev;
	unsigned head, tail;
	long ret;
	int n;

	if (!sqe)
		FAIL("no SQE");
	sqe->opcode = IORING_OP_NOP;
	sq_publish(r);
	ret = sys_enter(r->fd, 1, 0, 0);
	if (ret != 1)
		FAIL("io_uring_enter(1, 0, 0) for a NOP: %ld", ret);
	for (;;) {
		n = epoll_wait(L.epfd, &ev, 1, opt.hang_secs * 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			FAIL("the ring fd never polled readable after a NOP");
		/* acquire: pairs with the engine's release of the CQ tail */
		tail = atomic_load_explicit(r->cq_tail, memory_order_acquire);
		head = atomic_load_explicit(r->cq_head, memory_order_relaxed);
		if (tail != head)
			break;
	}
	/* release: the CQE is read before the engine may reuse its slot */
	atomic_store_explicit(r->cq_head, head + 1, memory_order_release);
}

static void run_idle_only(void)
{
	const char *k = opt.ring_kind;
	bool sqpoll = !strncmp(k, "sqpoll", 6);
	struct ring *rings;
	int *efds = NULL;
	struct rlimit rl;
	int i, ret;
	long ms = opt.idle_ms > 0 ? opt.idle_ms : 5000;
	double c0, c1, c2, t0;
	unsigned long waits0, fd_events;

	if (strcmp(k, "plain") && strcmp(k, "sqpoll10") && strcmp(k, "sqpoll1000") &&
	    strcmp(k, "eventfd") && strcmp(k, "epoll"))
		FAIL("unknown ring kind %s (plain, sqpoll10, sqpoll1000, "
		     "eventfd, epoll)", k);
	/* a ring is an fd or more (the user engine's are eventfds) */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	L.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (L.epfd < 0)
		FAIL("epoll_create1: %s", strerror(errno));
	rings = calloc((size_t)opt.rings, sizeof(*rings));
	if (!strcmp(k, "eventfd"))
		efds = calloc((size_t)opt.rings, sizeof(int));
	for (i = 0; i < opt.rings; i++) {
		struct ring *r = &rings[i];

		ret = ring_setup(r, k, 64, sqpoll ? IORING_SETUP_SQPOLL : 0,
				 !strcmp(k, "sqpoll10") ? 10 : 1000);
		if (ret)
			FAIL("io_uring_setup of ring %d: %s", i, strerror(-ret));
		if (sqpoll) {
			nop_wait(r);
		} else if (efds) {
			uint64_t cnt;

			efds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
			if (efds[i] < 0 ||
			    syscall(__NR_io_uring_register, r->fd,
				    IORING_REGISTER_EVENTFD, &efds[i], 1))
				FAIL("IORING_REGISTER_EVENTFD: %s", strerror(errno));
			nop_wait(r);
			epoll_add(efds[i], TAG_IDLE);
			/* the NOP's signal */
			if (read(efds[i], &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
				FAIL("read of the eventfd: %s", strerror(errno));
		} else if (!strcmp(k, "epoll")) {
			epoll_add(r->fd, TAG_IDLE);
			nop_polled(r);
		}
		if (opt.epoll_add && (sqpoll || !strcmp(k, "plain")))
			epoll_add(r->fd, TAG_IDLE);
	}

	/* idle: the ring fds and eventfds in the set should never wake us */
	waits0 = st.epoll_waits;
	fd_events = 0;
	c0 = cpu_ms();
	c1 = -1;
	t0 = now_ms();
	for (;;) {
		struct epoll_event evs[16];
		double t = now_ms();
		long left = ms - (long)(t - t0);
		int n, j;

		if (c1 < 0 && t - t0 >= ms / 2)
			c1 = cpu_ms();
		if (left <= 0)
			break;
		if (left > ms / 2 && c1 < 0)
			left -= ms / 2;		/* wake at half time for c1 */
		n = epoll_pwait(L.epfd, evs, 16, (int)left, NULL);
		if (n < 0 && errno != EINTR)
			FAIL("epoll_pwait: %s", strerror(errno));
		if (n <= 0)
			continue;
		st.epoll_waits++;
		fd_events += (unsigned long)n;
		/* drain whatever polled readable: an eventfd's count; a ring
		 * fd's CQ must be empty (nothing was submitted) */
		if (efds)
			for (j = 0; j < opt.rings; j++) {
				uint64_t cnt;

				if (read(efds[j], &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
					FAIL("read: %s", strerror(errno));
			}
		for (j = 0; j < opt.rings; j++)
			if (atomic_load_explicit(rings[j].cq_head, memory_order_relaxed) !=
			    atomic_load_explicit(rings[j].cq_tail, memory_order_acquire))
				FAIL("ring %d has a CQE while idle", j);
	}
	c2 = cpu_ms();
	printf("evloop: idle ms=%ld cpu_ms=%.1f ring=%s rings=%d "
	       "cpu_ms_second_half=%.1f epoll_wakeups=%lu fd_events=%lu\n",
	       ms, c2 - c0, k, opt.rings, c2 - c1, st.epoll_waits - waits0, fd_events);
	for (i = 0; i < opt.rings; i++) {
		ring_exit(&rings[i]);
		if (efds)
			close(efds[i]);
	}
	free(rings);
	free(efds);
	close(L.epfd);
}

/* ------------------------------------------------------------------ */

static long num(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "evloop: %s: %s is not a number in %ld..%ld\n",
			what, s, lo, hi);
		exit(EXIT_WRONG);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: evloop [-n OPS] [-j CHAINS] [-t HANG_SECS] [-d DIR] [-v]\n"
		"              [--poll-ms MS] [--sq-idle MS] [--no-sqpoll] [--ctl-sqarray]\n"
		"              [--idle MS [--idle-max-empty N]] [--threadpool T] [--think-ms MS]\n"
		"       evloop --idle-only [--idle MS] [--ring=plain|sqpoll10|sqpoll1000|"
		"eventfd|epoll]\n"
		"              [--rings=K] [--epoll-add]\n");
	exit(EXIT_WRONG);
}

int main(int argc, char **argv)
{
	enum { O_POLLMS = 256, O_SQIDLE, O_NOSQPOLL, O_CTLSQARRAY, O_IDLE,
	       O_IDLEONLY, O_RING, O_RINGS, O_EPOLLADD, O_POOL, O_THINK, O_IDLEMAX };
	static const struct option lopts[] = {
		{ "poll-ms", required_argument, NULL, O_POLLMS },
		{ "sq-idle", required_argument, NULL, O_SQIDLE },
		{ "no-sqpoll", no_argument, NULL, O_NOSQPOLL },
		{ "ctl-sqarray", no_argument, NULL, O_CTLSQARRAY },
		{ "idle", required_argument, NULL, O_IDLE },
		{ "idle-only", no_argument, NULL, O_IDLEONLY },
		{ "ring", required_argument, NULL, O_RING },
		{ "rings", required_argument, NULL, O_RINGS },
		{ "epoll-add", no_argument, NULL, O_EPOLLADD },
		{ "threadpool", required_argument, NULL, O_POOL },
		{ "think-ms", required_argument, NULL, O_THINK },
		{ "idle-max-empty", required_argument, NULL, O_IDLEMAX },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:j:t:d:vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'n': opt.ops = num(optarg, "-n", 1, 1L << 40); break;
		case 'j': opt.chains = (int)num(optarg, "-j", 1, MAX_CHAINS); break;
		case 't': opt.hang_secs = (int)num(optarg, "-t", 1, 86400); break;
		case 'd': opt.dir = optarg; break;
		case 'v': opt.verbose = true; break;
		case O_POLLMS: opt.poll_ms = (int)num(optarg, "--poll-ms", 0, 60000); break;
		case O_SQIDLE: opt.sq_idle = (unsigned)num(optarg, "--sq-idle", 0, 60000); break;
		case O_NOSQPOLL: opt.no_sqpoll = true; break;
		case O_CTLSQARRAY: opt.ctl_sqarray = true; break;
		case O_IDLE: opt.idle_ms = num(optarg, "--idle", 1, 86400000); break;
		case O_IDLEONLY: opt.idle_only = true; break;
		case O_RING: opt.ring_kind = optarg; break;
		case O_RINGS: opt.rings = (int)num(optarg, "--rings", 1, 100000); break;
		case O_EPOLLADD: opt.epoll_add = true; break;
		case O_POOL: opt.threadpool = (int)num(optarg, "--threadpool", 1, 1024); break;
		case O_THINK: opt.think_ms = (int)num(optarg, "--think-ms", 0, 60000); break;
		case O_IDLEMAX: opt.idle_max_empty = num(optarg, "--idle-max-empty", 0, 1L << 40); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	/* a broken pipe or a closed stdout must not look like a hang */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.idle_only)
		run_idle_only();
	else
		run_loop();
	return 0;
}
