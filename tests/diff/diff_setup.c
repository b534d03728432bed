/* SPDX-License-Identifier: MIT */
/*
 * diff_setup.c - the call cases: what is not a CQE. A setup case records
 * the io_uring_setup() result and, for a ring that was made, the sizes,
 * the ring offsets in io_uring_params and what the mapped ring says; a
 * register or enter case runs a short sequence of calls on a fresh ring
 * and records each result. The harness runs each case on every engine,
 * each run in a child process, and compares the values (harness.h,
 * struct diff_call); the features of the rings the setup cases made are
 * checked after them (diff_check_features).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "harness.h"
#include "compat.h"

#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP		(1U << 14)
#endif
#ifndef IORING_SETUP_REGISTERED_FD_ONLY
#define IORING_SETUP_REGISTERED_FD_ONLY	(1U << 15)
#endif
#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY		(1U << 16)
#endif
#ifndef IORING_SETUP_HYBRID_IOPOLL
#define IORING_SETUP_HYBRID_IOPOLL	(1U << 17)
#endif
#ifndef IORING_ENTER_ABS_TIMER
#define IORING_ENTER_ABS_TIMER		(1U << 5)
#endif
#ifndef IORING_ENTER_NO_IOWAIT
#define IORING_ENTER_NO_IOWAIT		(1U << 7)
#endif

/* ---- setup ---- */

enum wq_kind { WQ_NONE, WQ_RING, WQ_PIPE, WQ_BADFD };

struct setup_case {
	unsigned entries;
	unsigned flags;
	unsigned cq_entries;
	unsigned sq_thread_cpu;
	unsigned resv;		/* written to resv[1] */
	enum wq_kind wq;
};

/* an fd for IORING_SETUP_ATTACH_WQ; *ring set when it is a ring */
static int wq_fd(const char *engine, enum wq_kind kind, struct io_uring *ring,
		 int *made)
{
	struct io_uring_params p;
	int fds[2];

	*made = 0;
	switch (kind) {
	case WQ_RING:
		memset(&p, 0, sizeof(p));
		if (anyring_queue_init_engine(engine, 4, ring, &p))
			return -1;
		*made = 1;
		return ring->ring_fd;
	case WQ_PIPE:
		if (pipe(fds))
			return -1;
		close(fds[1]);
		*made = 2;
		return fds[0];
	case WQ_BADFD:
		return 9999;
	default:
		return 0;
	}
}

static void put_offsets(struct diff_run *r, const struct io_uring_params *p)
{
	/* user_addr through compat.h's layout: liburing 2.3 calls it resv2 */
	struct ar_sqring_offsets sq;
	struct ar_cqring_offsets cq;

	diff_put(r, "sq_entries", p->sq_entries);
	diff_put(r, "cq_entries", p->cq_entries);
	diff_put(r, "flags", p->flags);
	diff_put(r, "sq_off.head", p->sq_off.head);
	diff_put(r, "sq_off.tail", p->sq_off.tail);
	diff_put(r, "sq_off.ring_mask", p->sq_off.ring_mask);
	diff_put(r, "sq_off.ring_entries", p->sq_off.ring_entries);
	diff_put(r, "sq_off.flags", p->sq_off.flags);
	diff_put(r, "sq_off.dropped", p->sq_off.dropped);
	diff_put(r, "sq_off.array", p->sq_off.array);
	diff_put(r, "sq_off.resv1", p->sq_off.resv1);
	memcpy(&sq, &p->sq_off, sizeof(sq));
	diff_put(r, "sq_off.user_addr", (long long)sq.user_addr);
	diff_put(r, "cq_off.head", p->cq_off.head);
	diff_put(r, "cq_off.tail", p->cq_off.tail);
	diff_put(r, "cq_off.ring_mask", p->cq_off.ring_mask);
	diff_put(r, "cq_off.ring_entries", p->cq_off.ring_entries);
	diff_put(r, "cq_off.overflow", p->cq_off.overflow);
	diff_put(r, "cq_off.cqes", p->cq_off.cqes);
	diff_put(r, "cq_off.flags", p->cq_off.flags);
	diff_put(r, "cq_off.resv1", p->cq_off.resv1);
	memcpy(&cq, &p->cq_off, sizeof(cq));
	diff_put(r, "cq_off.user_addr", (long long)cq.user_addr);
}

/* what the mapped ring says */
static void put_ring(struct diff_run *r, const struct io_uring *ring)
{
	diff_put(r, "*sq.kring_entries",
		 IO_URING_READ_ONCE(*ring->sq.kring_entries));
	diff_put(r, "*sq.kring_mask", IO_URING_READ_ONCE(*ring->sq.kring_mask));
	diff_put(r, "*cq.kring_entries",
		 IO_URING_READ_ONCE(*ring->cq.kring_entries));
	diff_put(r, "*cq.kring_mask", IO_URING_READ_ONCE(*ring->cq.kring_mask));
	diff_put(r, "*sq.khead", IO_URING_READ_ONCE(*ring->sq.khead));
	diff_put(r, "*sq.ktail", IO_URING_READ_ONCE(*ring->sq.ktail));
	/* when an SQPOLL thread first sleeps is its business */
	diff_put(r, "*sq.kflags", IO_URING_READ_ONCE(*ring->sq.kflags) &
		 ~IORING_SQ_NEED_WAKEUP);
	diff_put(r, "*cq.koverflow", IO_URING_READ_ONCE(*ring->cq.koverflow));
	diff_put(r, "*cq.kflags", ring->cq.kflags ?
		 (long long)IO_URING_READ_ONCE(*ring->cq.kflags) : -1);
	diff_put(r, "sq.array", !!ring->sq.array);
}

static void run_setup(const char *engine, const void *arg, struct diff_run *r)
{
	const struct setup_case *sc = arg;
	struct io_uring_params p;
	struct io_uring ring, wq_ring;
	int ret, made;

	memset(&p, 0, sizeof(p));
	p.flags = sc->flags;
	p.cq_entries = sc->cq_entries;
	p.sq_thread_cpu = sc->sq_thread_cpu;
	p.resv[1] = sc->resv;
	if (sc->wq != WQ_NONE) {
		ret = wq_fd(engine, sc->wq, &wq_ring, &made);
		if (ret < 0) {
			snprintf(r->msg, sizeof(r->msg), "no fd for ATTACH_WQ");
			return;
		}
		p.wq_fd = (unsigned)ret;
	} else {
		made = 0;
	}
	ret = anyring_queue_init_engine(engine, sc->entries, &ring, &p);
	diff_put(r, "setup", ret);
	if (!ret) {
		put_offsets(r, &p);
		put_ring(r, &ring);
		r->features |= p.features;
		io_uring_queue_exit(&ring);
	}
	if (made == 1)
		io_uring_queue_exit(&wq_ring);
	else if (made == 2)
		close((int)p.wq_fd);
}

/* io_uring_setup() with no params at all */
static void run_setup_null(const char *engine, const void *arg,
			   struct diff_run *r)
{
	(void)arg;
	diff_put(r, "setup", anyring_setup_engine(engine, 8, NULL));
}

/* ---- register and enter: a sequence of calls on a fresh ring ---- */

struct ring_case {
	unsigned flags;		/* IORING_SETUP_* of the ring */
	void (*fn)(struct io_uring *ring, struct diff_run *r);
};

static int reg(struct io_uring *ring, unsigned op, const void *arg,
	       unsigned nr)
{
	return io_uring_register((unsigned)ring->ring_fd, op, arg, nr);
}

static int enter(struct io_uring *ring, unsigned to_submit, unsigned min,
		 unsigned flags, void *arg, size_t sz)
{
	return io_uring_enter2((unsigned)ring->ring_fd, to_submit, min, flags,
			       arg, sz);
}

/* two regular files and two buffers, made by the child of a ring case */
static int files[2] = { -1, -1 };
static char bufs[2][4096];
static struct iovec iovs[2];

static int open_files(struct diff_run *r)
{
	char path[] = "/tmp/anyring-diff-setup-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		snprintf(r->msg, sizeof(r->msg), "mkstemp: %s",
			 strerror(errno));
		return -1;
	}
	unlink(path);
	files[0] = fd;
	files[1] = dup(fd);
	iovs[0].iov_base = bufs[0];
	iovs[0].iov_len = sizeof(bufs[0]);
	iovs[1].iov_base = bufs[1];
	iovs[1].iov_len = sizeof(bufs[1]);
	return 0;
}

static void reg_files(struct io_uring *ring, struct diff_run *r)
{
	diff_put(r, "nr 0", reg(ring, IORING_REGISTER_FILES, files, 0));
	diff_put(r, "nr 2^20+1", reg(ring, IORING_REGISTER_FILES, files,
				     (1U << 20) + 1));
	diff_put(r, "register", reg(ring, IORING_REGISTER_FILES, files, 2));
	diff_put(r, "again", reg(ring, IORING_REGISTER_FILES, files, 2));
	diff_put(r, "unregister arg",
		 reg(ring, IORING_UNREGISTER_FILES, files, 0));
	diff_put(r, "unregister nr 1",
		 reg(ring, IORING_UNREGISTER_FILES, NULL, 1));
	diff_put(r, "unregister", reg(ring, IORING_UNREGISTER_FILES, NULL, 0));
	diff_put(r, "unregister again",
		 reg(ring, IORING_UNREGISTER_FILES, NULL, 0));
}

/* more files than RLIMIT_NOFILE allows (a sparse table of -1s) */
static void reg_files_rlimit(struct io_uring *ring, struct diff_run *r)
{
	struct rlimit rl;
	unsigned nr;
	int *fds;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= (1U << 20)) {
		diff_put(r, "skipped: RLIMIT_NOFILE", 0);
		return;
	}
	nr = (unsigned)rl.rlim_cur + 1;
	fds = malloc(nr * sizeof(*fds));
	if (!fds) {
		snprintf(r->msg, sizeof(r->msg), "out of memory");
		return;
	}
	memset(fds, 0xff, nr * sizeof(*fds));
	diff_put(r, "nr rlimit+1", reg(ring, IORING_REGISTER_FILES, fds, nr));
	diff_put(r, "nr rlimit", reg(ring, IORING_REGISTER_FILES, fds, nr - 1));
	free(fds);
}

static void reg_files_update(struct io_uring *ring, struct diff_run *r)
{
	struct io_uring_files_update up;

	memset(&up, 0, sizeof(up));
	up.offset = 1;
	up.fds = (unsigned long)files;
	diff_put(r, "no table",
		 reg(ring, IORING_REGISTER_FILES_UPDATE, &up, 1));
	diff_put(r, "register", reg(ring, IORING_REGISTER_FILES, files, 2));
	diff_put(r, "nr 0", reg(ring, IORING_REGISTER_FILES_UPDATE, &up, 0));
	diff_put(r, "past the end",
		 reg(ring, IORING_REGISTER_FILES_UPDATE, &up, 2));
	up.resv = 1;
	diff_put(r, "resv", reg(ring, IORING_REGISTER_FILES_UPDATE, &up, 1));
	up.resv = 0;
	diff_put(r, "slot 1", reg(ring, IORING_REGISTER_FILES_UPDATE, &up, 1));
	up.offset = 1U << 31;
	diff_put(r, "offset 2^31",
		 reg(ring, IORING_REGISTER_FILES_UPDATE, &up, 1));
	up.offset = 0;
	up.fds = 0;
	diff_put(r, "fds NULL",
		 reg(ring, IORING_REGISTER_FILES_UPDATE, &up, 1));
}

/* REGISTER_FILES2 / BUFFERS2: struct io_uring_rsrc_register, size in nr */
static void rsrc2(struct io_uring *ring, struct diff_run *r, unsigned op,
		  void *data)
{
	struct io_uring_rsrc_register rr;

	memset(&rr, 0, sizeof(rr));
	rr.nr = 2;
	rr.data = (unsigned long)data;
	diff_put(r, "size 8", reg(ring, op, &rr, 8));
	rr.nr = 0;
	diff_put(r, "nr 0", reg(ring, op, &rr, sizeof(rr)));
	rr.nr = 2;
	rr.resv2 = 1;
	diff_put(r, "resv2", reg(ring, op, &rr, sizeof(rr)));
	rr.resv2 = 0;
	rr.flags = 1U << 5;
	diff_put(r, "unknown flags", reg(ring, op, &rr, sizeof(rr)));
	rr.flags = IORING_RSRC_REGISTER_SPARSE;
	diff_put(r, "sparse with data", reg(ring, op, &rr, sizeof(rr)));
	rr.data = 0;
	diff_put(r, "sparse", reg(ring, op, &rr, sizeof(rr)));
	diff_put(r, "again", reg(ring, op, &rr, sizeof(rr)));
}

static void reg_files2(struct io_uring *ring, struct diff_run *r)
{
	rsrc2(ring, r, IORING_REGISTER_FILES2, files);
}

static void reg_buffers2(struct io_uring *ring, struct diff_run *r)
{
	rsrc2(ring, r, IORING_REGISTER_BUFFERS2, iovs);
}

/* FILES_UPDATE2 / BUFFERS_UPDATE: struct io_uring_rsrc_update2 */
static void update2(struct io_uring *ring, struct diff_run *r, unsigned op,
		    unsigned reg_op, void *data)
{
	struct io_uring_rsrc_update2 up;

	memset(&up, 0, sizeof(up));
	up.data = (unsigned long)data;
	up.nr = 1;
	diff_put(r, "no table", reg(ring, op, &up, sizeof(up)));
	diff_put(r, "register", reg(ring, reg_op, data, 2));
	diff_put(r, "size 16", reg(ring, op, &up, 16));
	up.resv = 1;
	diff_put(r, "resv", reg(ring, op, &up, sizeof(up)));
	up.resv = 0;
	up.resv2 = 1;
	diff_put(r, "resv2", reg(ring, op, &up, sizeof(up)));
	up.resv2 = 0;
	up.offset = 2;
	diff_put(r, "past the end", reg(ring, op, &up, sizeof(up)));
	up.offset = 1;
	diff_put(r, "slot 1", reg(ring, op, &up, sizeof(up)));
	up.nr = 0;
	diff_put(r, "nr 0", reg(ring, op, &up, sizeof(up)));
}

static void reg_files_update2(struct io_uring *ring, struct diff_run *r)
{
	update2(ring, r, IORING_REGISTER_FILES_UPDATE2, IORING_REGISTER_FILES,
		files);
}

static void reg_buffers_update(struct io_uring *ring, struct diff_run *r)
{
	update2(ring, r, IORING_REGISTER_BUFFERS_UPDATE,
		IORING_REGISTER_BUFFERS, iovs);
}

static void reg_buffers(struct io_uring *ring, struct diff_run *r)
{
	struct iovec bad[2];

	diff_put(r, "nr 0", reg(ring, IORING_REGISTER_BUFFERS, iovs, 0));
	diff_put(r, "nr 2^14+1", reg(ring, IORING_REGISTER_BUFFERS, iovs,
				     (1U << 14) + 1));
	bad[0] = iovs[0];
	bad[1].iov_base = bufs[1];
	bad[1].iov_len = 0;
	diff_put(r, "len 0", reg(ring, IORING_REGISTER_BUFFERS, bad, 2));
	bad[1].iov_base = NULL;
	bad[1].iov_len = 4096;
	diff_put(r, "NULL base", reg(ring, IORING_REGISTER_BUFFERS, bad, 2));
	bad[1].iov_len = 0;
	diff_put(r, "NULL base, len 0",
		 reg(ring, IORING_REGISTER_BUFFERS, bad, 2));
	diff_put(r, "unregister",
		 reg(ring, IORING_UNREGISTER_BUFFERS, NULL, 0));
	bad[1].iov_base = bufs[1];
	bad[1].iov_len = (1UL << 30) + 4096;
	diff_put(r, "len 1G+4K", reg(ring, IORING_REGISTER_BUFFERS, bad, 2));
	diff_put(r, "register", reg(ring, IORING_REGISTER_BUFFERS, iovs, 2));
	diff_put(r, "again", reg(ring, IORING_REGISTER_BUFFERS, iovs, 2));
	diff_put(r, "unregister arg",
		 reg(ring, IORING_UNREGISTER_BUFFERS, iovs, 0));
	diff_put(r, "unregister",
		 reg(ring, IORING_UNREGISTER_BUFFERS, NULL, 0));
	diff_put(r, "unregister again",
		 reg(ring, IORING_UNREGISTER_BUFFERS, NULL, 0));
}

static void reg_eventfd(struct io_uring *ring, struct diff_run *r)
{
	int efd = eventfd(0, EFD_CLOEXEC), bad = 9999;

	diff_put(r, "nr 2", reg(ring, IORING_REGISTER_EVENTFD, &efd, 2));
	diff_put(r, "nr 0", reg(ring, IORING_REGISTER_EVENTFD, &efd, 0));
	diff_put(r, "bad fd", reg(ring, IORING_REGISTER_EVENTFD, &bad, 1));
	diff_put(r, "regular file",
		 reg(ring, IORING_REGISTER_EVENTFD, &files[0], 1));
	diff_put(r, "unregister none",
		 reg(ring, IORING_UNREGISTER_EVENTFD, NULL, 0));
	diff_put(r, "register", reg(ring, IORING_REGISTER_EVENTFD, &efd, 1));
	diff_put(r, "again", reg(ring, IORING_REGISTER_EVENTFD, &efd, 1));
	diff_put(r, "async again",
		 reg(ring, IORING_REGISTER_EVENTFD_ASYNC, &efd, 1));
	diff_put(r, "unregister arg",
		 reg(ring, IORING_UNREGISTER_EVENTFD, &efd, 0));
	diff_put(r, "unregister nr 1",
		 reg(ring, IORING_UNREGISTER_EVENTFD, NULL, 1));
	diff_put(r, "unregister",
		 reg(ring, IORING_UNREGISTER_EVENTFD, NULL, 0));
	diff_put(r, "async", reg(ring, IORING_REGISTER_EVENTFD_ASYNC, &efd, 1));
	close(efd);
}

static void reg_probe(struct io_uring *ring, struct diff_run *r)
{
	size_t sz = sizeof(struct io_uring_probe) +
		    256 * sizeof(struct io_uring_probe_op);
	struct io_uring_probe *p = calloc(1, sz);

	if (!p)
		return;
	diff_put(r, "nr 257", reg(ring, IORING_REGISTER_PROBE, p, 257));
	diff_put(r, "nr 0", reg(ring, IORING_REGISTER_PROBE, p, 0));
	memset(p, 0, sz);
	diff_put(r, "nr 8", reg(ring, IORING_REGISTER_PROBE, p, 8));
	diff_put(r, "ops_len", p->ops_len);
	diff_put(r, "op 7 (POLL_ADD) listed", p->ops[7].op);
	diff_put(r, "dirty buffer", reg(ring, IORING_REGISTER_PROBE, p, 8));
	memset(p, 0, sz);
	diff_put(r, "nr 256", reg(ring, IORING_REGISTER_PROBE, p, 256));
	diff_put(r, "resv", p->resv);
	free(p);
}

static void reg_personality(struct io_uring *ring, struct diff_run *r)
{
	int id;

	diff_put(r, "arg", reg(ring, IORING_REGISTER_PERSONALITY, files, 0));
	diff_put(r, "nr 1", reg(ring, IORING_REGISTER_PERSONALITY, NULL, 1));
	id = reg(ring, IORING_REGISTER_PERSONALITY, NULL, 0);
	diff_put(r, "register > 0", id > 0);
	diff_put(r, "second is first + 1",
		 reg(ring, IORING_REGISTER_PERSONALITY, NULL, 0) == id + 1);
	diff_put(r, "unregister arg", reg(ring, IORING_UNREGISTER_PERSONALITY,
					  files, (unsigned)id));
	diff_put(r, "unregister", reg(ring, IORING_UNREGISTER_PERSONALITY, NULL,
				      (unsigned)id));
	diff_put(r, "unregister again", reg(ring, IORING_UNREGISTER_PERSONALITY,
					    NULL, (unsigned)id));
	diff_put(r, "unregister 0",
		 reg(ring, IORING_UNREGISTER_PERSONALITY, NULL, 0));
}

/*
 * Each register opcode with a NULL argument, each on a fresh ring of the
 * engine (an engine taking NULL for an empty table would change what the
 * next call finds). nr as a valid call would have it.
 */
static const struct {
	const char *what;
	unsigned op, nr;
	unsigned setup_flags;
} null_calls[] = {
	{ "FILES", IORING_REGISTER_FILES, 1, 0 },
	{ "FILES_UPDATE", IORING_REGISTER_FILES_UPDATE, 1, 0 },
	{ "FILES2", IORING_REGISTER_FILES2,
	  sizeof(struct io_uring_rsrc_register), 0 },
	{ "FILES_UPDATE2", IORING_REGISTER_FILES_UPDATE2,
	  sizeof(struct io_uring_rsrc_update2), 0 },
	{ "BUFFERS", IORING_REGISTER_BUFFERS, 1, 0 },
	{ "BUFFERS2", IORING_REGISTER_BUFFERS2,
	  sizeof(struct io_uring_rsrc_register), 0 },
	{ "BUFFERS_UPDATE", IORING_REGISTER_BUFFERS_UPDATE,
	  sizeof(struct io_uring_rsrc_update2), 0 },
	{ "EVENTFD", IORING_REGISTER_EVENTFD, 1, 0 },
	{ "EVENTFD_ASYNC", IORING_REGISTER_EVENTFD_ASYNC, 1, 0 },
	{ "PROBE", IORING_REGISTER_PROBE, 8, 0 },
	{ "RESTRICTIONS (R_DISABLED)", IORING_REGISTER_RESTRICTIONS, 1,
	  IORING_SETUP_R_DISABLED },
	{ "IOWQ_AFF", IORING_REGISTER_IOWQ_AFF, 8, 0 },
	{ "IOWQ_MAX_WORKERS", IORING_REGISTER_IOWQ_MAX_WORKERS, 2, 0 },
	{ "RING_FDS", IORING_REGISTER_RING_FDS, 1, 0 },
	{ "UNREGISTER_RING_FDS", IORING_UNREGISTER_RING_FDS, 1, 0 },
	{ "SYNC_CANCEL", IORING_REGISTER_SYNC_CANCEL, 1, 0 },
	{ "FILE_ALLOC_RANGE", IORING_REGISTER_FILE_ALLOC_RANGE, 0, 0 },
	/* NULL comes before the count, and CLOCK answers NULL -EINVAL */
	{ "FILES nr 0", IORING_REGISTER_FILES, 0, 0 },
	{ "BUFFERS nr 0", IORING_REGISTER_BUFFERS, 0, 0 },
	{ "CLOCK", 29 /* IORING_REGISTER_CLOCK */, 0, 0 },
};

static void reg_null_args(struct io_uring *ring, struct diff_run *r)
{
	const char *engine = anyring_ring_engine(ring);
	struct io_uring_params p;
	struct io_uring fresh;
	unsigned i;
	int ret;

	for (i = 0; i < sizeof(null_calls) / sizeof(null_calls[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = null_calls[i].setup_flags;
		ret = anyring_queue_init_engine(engine, 8, &fresh, &p);
		if (ret) {
			snprintf(r->msg, sizeof(r->msg), "ring: %s",
				 strerror(-ret));
			return;
		}
		diff_put(r, null_calls[i].what,
			 reg(&fresh, null_calls[i].op, NULL, null_calls[i].nr));
		io_uring_queue_exit(&fresh);
	}
}

/* on a ring that is not R_DISABLED */
static void reg_restrictions_enabled(struct io_uring *ring,
				     struct diff_run *r)
{
	struct io_uring_restriction res;

	memset(&res, 0, sizeof(res));
	res.opcode = IORING_RESTRICTION_SQE_OP;
	diff_put(r, "restrictions",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, &res, 1));
	diff_put(r, "enable", reg(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	diff_put(r, "enable arg",
		 reg(ring, IORING_REGISTER_ENABLE_RINGS, &res, 0));
	diff_put(r, "enable nr 1",
		 reg(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 1));
}

/* on an R_DISABLED ring */
static void reg_restrictions_disabled(struct io_uring *ring,
				      struct diff_run *r)
{
	struct io_uring_restriction res[2];

	memset(res, 0, sizeof(res));
	res[0].opcode = IORING_RESTRICTION_SQE_OP;
	res[0].sqe_op = IORING_OP_NOP;
	res[1].opcode = IORING_RESTRICTION_SQE_OP;
	res[1].sqe_op = 255;
	diff_put(r, "NULL arg",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, NULL, 1));
	diff_put(r, "nr 513",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, res, 513));
	diff_put(r, "sqe_op 255",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, res, 2));
	res[1].opcode = IORING_RESTRICTION_REGISTER_OP;
	res[1].register_op = 255;
	diff_put(r, "register_op 255",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, res, 2));
	res[1].opcode = 77;
	diff_put(r, "opcode 77",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, res, 2));
	res[1].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
	res[1].sqe_flags = 0xff;
	diff_put(r, "flags 0xff",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, res, 2));
	diff_put(r, "again", reg(ring, IORING_REGISTER_RESTRICTIONS, res, 2));
	diff_put(r, "enable arg",
		 reg(ring, IORING_REGISTER_ENABLE_RINGS, res, 0));
	diff_put(r, "enable", reg(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	diff_put(r, "enable again",
		 reg(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	diff_put(r, "restrictions after",
		 reg(ring, IORING_REGISTER_RESTRICTIONS, res, 1));
	diff_put(r, "personality (not allowed)",
		 reg(ring, IORING_REGISTER_PERSONALITY, NULL, 0));
}

/* opcodes no kernel has; an opcode past liburing 2.3's last */
static void reg_unknown_opcodes(struct io_uring *ring, struct diff_run *r)
{
	diff_put(r, "op 255", reg(ring, 255, NULL, 0));
	diff_put(r, "op 200", reg(ring, 200, files, 1));
	diff_put(r, "op 0x7fffffff", reg(ring, 0x7fffffff, NULL, 0));
	diff_put(r, "op 64", reg(ring, 64, NULL, 0));
}

static void reg_iowq(struct io_uring *ring, struct diff_run *r)
{
	unsigned vals[2] = { 0, 0 }, old[2] = { 0, 0 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	diff_put(r, "aff len 0", reg(ring, IORING_REGISTER_IOWQ_AFF, &set, 0));
	diff_put(r, "aff",
		 reg(ring, IORING_REGISTER_IOWQ_AFF, &set, sizeof(set)));
	diff_put(r, "unaff arg",
		 reg(ring, IORING_UNREGISTER_IOWQ_AFF, &set, 0));
	diff_put(r, "unaff", reg(ring, IORING_UNREGISTER_IOWQ_AFF, NULL, 0));
	diff_put(r, "unaff again",
		 reg(ring, IORING_UNREGISTER_IOWQ_AFF, NULL, 0));
	diff_put(r, "max nr 1",
		 reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, vals, 1));
	diff_put(r, "max query",
		 reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, vals, 2));
	old[0] = vals[0];
	old[1] = vals[1];
	diff_put(r, "unbounded", vals[1]);
	vals[0] = 1;
	vals[1] = 0;
	diff_put(r, "max set bounded 1",
		 reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, vals, 2));
	diff_put(r, "returned the old bounded", vals[0] == old[0]);
	vals[0] = vals[1] = 0;
	diff_put(r, "max query again",
		 reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, vals, 2));
	diff_put(r, "bounded now", vals[0]);
	/* the kernel's io-wq is the task's: leave it as it was */
	reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, old, 2);
}

/*
 * The kernel's io-wq belongs to the task, not the ring: a limit set
 * through one ring is what another ring of the task reports.
 */
static void reg_iowq_shared(struct io_uring *ring, struct diff_run *r)
{
	struct io_uring_params p;
	struct io_uring other;
	unsigned vals[2] = { 0, 0 }, old[2];
	int ret;

	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine(anyring_ring_engine(ring), 8, &other,
					&p);
	if (ret) {
		snprintf(r->msg, sizeof(r->msg), "second ring: %s",
			 strerror(-ret));
		return;
	}
	diff_put(r, "query",
		 reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, vals, 2));
	old[0] = vals[0];
	old[1] = vals[1];
	vals[0] = 1;
	vals[1] = 0;
	diff_put(r, "set bounded 1", reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS,
					 vals, 2));
	vals[0] = vals[1] = 0;
	diff_put(r, "query the other ring",
		 reg(&other, IORING_REGISTER_IOWQ_MAX_WORKERS, vals, 2));
	diff_put(r, "the other ring's bounded is 1", vals[0] == 1);
	reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, old, 2);
	io_uring_queue_exit(&other);
}

static void reg_ring_fds(struct io_uring *ring, struct diff_run *r)
{
	struct io_uring_rsrc_update up[17];

	memset(up, 0, sizeof(up));
	up[0].offset = -1U;
	up[0].data = (unsigned)ring->ring_fd;
	diff_put(r, "nr 0", reg(ring, IORING_REGISTER_RING_FDS, up, 0));
	diff_put(r, "nr 17", reg(ring, IORING_REGISTER_RING_FDS, up, 17));
	up[0].resv = 1;
	diff_put(r, "resv", reg(ring, IORING_REGISTER_RING_FDS, up, 1));
	up[0].resv = 0;
	up[0].data = (unsigned)files[0];
	diff_put(r, "a regular file",
		 reg(ring, IORING_REGISTER_RING_FDS, up, 1));
	up[0].data = (unsigned)ring->ring_fd;
	up[0].offset = 16;
	diff_put(r, "offset 16", reg(ring, IORING_REGISTER_RING_FDS, up, 1));
	up[0].offset = 3;
	diff_put(r, "offset 3", reg(ring, IORING_REGISTER_RING_FDS, up, 1));
	diff_put(r, "unregister nr 0",
		 reg(ring, IORING_UNREGISTER_RING_FDS, up, 0));
	diff_put(r, "unregister 3, data set",
		 reg(ring, IORING_UNREGISTER_RING_FDS, up, 1));
	up[0].data = 0;
	up[0].offset = 16;
	diff_put(r, "unregister 16",
		 reg(ring, IORING_UNREGISTER_RING_FDS, up, 1));
	up[0].offset = 3;
	diff_put(r, "unregister 3",
		 reg(ring, IORING_UNREGISTER_RING_FDS, up, 1));
	diff_put(r, "unregister 3 again",
		 reg(ring, IORING_UNREGISTER_RING_FDS, up, 1));
}

static void reg_sync_cancel(struct io_uring *ring, struct diff_run *r)
{
	struct io_uring_sync_cancel_reg sc;

	memset(&sc, 0, sizeof(sc));
	sc.addr = 1;
	sc.timeout.tv_sec = -1;
	sc.timeout.tv_nsec = -1;
	diff_put(r, "nr 2", reg(ring, IORING_REGISTER_SYNC_CANCEL, &sc, 2));
	diff_put(r, "nothing", reg(ring, IORING_REGISTER_SYNC_CANCEL, &sc, 1));
	sc.flags = IORING_ASYNC_CANCEL_FD;
	sc.fd = 9999;
	diff_put(r, "bad fd", reg(ring, IORING_REGISTER_SYNC_CANCEL, &sc, 1));
	sc.flags |= IORING_ASYNC_CANCEL_FD_FIXED;
	sc.fd = 0;
	diff_put(r, "fixed, no table",
		 reg(ring, IORING_REGISTER_SYNC_CANCEL, &sc, 1));
	sc.flags = IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL;
	diff_put(r, "any all, nothing",
		 reg(ring, IORING_REGISTER_SYNC_CANCEL, &sc, 1));
}

static void reg_alloc_range(struct io_uring *ring, struct diff_run *r)
{
	struct io_uring_file_index_range range = { .off = 0, .len = 1 };

	diff_put(r, "no table",
		 reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range, 0));
	diff_put(r, "sparse 4", io_uring_register_files_sparse(ring, 4));
	diff_put(r, "nr 1",
		 reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range, 1));
	range.resv = 1;
	diff_put(r, "resv",
		 reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range, 0));
	range.resv = 0;
	range.off = 3;
	range.len = 2;
	diff_put(r, "past the end", reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE,
					&range, 0));
	range.off = 2;
	range.len = ~0U;
	diff_put(r, "overflow",
		 reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range, 0));
	range.off = 1;
	range.len = 3;
	diff_put(r, "1..4",
		 reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range, 0));
	range.off = 4;
	range.len = 0;
	diff_put(r, "empty at the end",
		 reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range, 0));
}

static void enter_flags(struct io_uring *ring, struct diff_run *r)
{
	diff_put(r, "flag 1<<31", enter(ring, 0, 0, 1U << 31, NULL, 0));
	diff_put(r, "flag 1<<10", enter(ring, 0, 0, 1U << 10, NULL, 0));
	diff_put(r, "SQ_WAKEUP",
		 enter(ring, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0));
	diff_put(r, "SQ_WAIT",
		 enter(ring, 0, 0, IORING_ENTER_SQ_WAIT, NULL, 0));
	diff_put(r, "NO_IOWAIT",
		 enter(ring, 0, 0, IORING_ENTER_NO_IOWAIT, NULL, 0));
	diff_put(r, "to_submit 8, none queued", enter(ring, 8, 0, 0, NULL, 0));
	diff_put(r, "GETEVENTS min 0", enter(ring, 0, 0, IORING_ENTER_GETEVENTS,
					     NULL, 0));
	diff_put(r, "ABS_TIMER without EXT_ARG",
		 enter(ring, 0, 0, IORING_ENTER_ABS_TIMER, NULL, 0));
}

static void enter_args(struct io_uring *ring, struct diff_run *r)
{
	struct ar_getevents_arg arg;
	struct __kernel_timespec ts = { 0, 0 };
	sigset_t set;
	unsigned f = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;

	sigemptyset(&set);
	memset(&arg, 0, sizeof(arg));
	arg.ts = (unsigned long)&ts;
	diff_put(r, "sigmask size 4", enter(ring, 0, 1, IORING_ENTER_GETEVENTS,
					    &set, 4));
	diff_put(r, "EXT_ARG size - 1",
		 enter(ring, 0, 1, f, &arg, sizeof(arg) - 1));
	diff_put(r, "EXT_ARG size + 8",
		 enter(ring, 0, 1, f, &arg, sizeof(arg) + 8));
	diff_put(r, "EXT_ARG NULL", enter(ring, 0, 1, f, NULL, sizeof(arg)));
	diff_put(r, "ts 0, min 1", enter(ring, 0, 1, f, &arg, sizeof(arg)));
	diff_put(r, "ts 0, min 0", enter(ring, 0, 0, f, &arg, sizeof(arg)));
	arg.sigmask = (unsigned long)&set;
	arg.sigmask_sz = 4;
	diff_put(r, "sigmask_sz 4", enter(ring, 0, 1, f, &arg, sizeof(arg)));
	arg.sigmask_sz = _NSIG / 8;
	diff_put(r, "sigmask ok", enter(ring, 0, 1, f, &arg, sizeof(arg)));
	arg.sigmask = 0;
	ts.tv_nsec = -1;
	diff_put(r, "ts nsec -1", enter(ring, 0, 1, f, &arg, sizeof(arg)));
	ts.tv_nsec = 1000000000LL;
	diff_put(r, "ts nsec 1e9", enter(ring, 0, 0, f, &arg, sizeof(arg)));
	ts.tv_sec = -1;
	ts.tv_nsec = 0;
	diff_put(r, "ts sec -1", enter(ring, 0, 1, f, &arg, sizeof(arg)));
	ts.tv_sec = 0;
	diff_put(r, "ABS ts 0",
		 enter(ring, 0, 1, f | IORING_ENTER_ABS_TIMER, &arg,
		       sizeof(arg)));
	arg.ts = 0;
	arg.min_wait_usec = 1000;
	diff_put(r, "min_wait, no ts, min 0", enter(ring, 0, 0, f, &arg,
						    sizeof(arg)));
}

/* an R_DISABLED ring refuses to be entered at all */
static void enter_disabled(struct io_uring *ring, struct diff_run *r)
{
	diff_put(r, "enter", enter(ring, 0, 0, 0, NULL, 0));
	diff_put(r, "GETEVENTS",
		 enter(ring, 0, 0, IORING_ENTER_GETEVENTS, NULL, 0));
	diff_put(r, "enable", reg(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	diff_put(r, "enter after", enter(ring, 0, 0, 0, NULL, 0));
}

/* a 1 ms idle poll thread, waited for until asleep; SQ_WAKEUP and SQ_WAIT */
static void enter_sqpoll(struct io_uring *ring, struct diff_run *r)
{
	diff_put(r, "SQ_WAIT, SQ empty", enter(ring, 0, 0, IORING_ENTER_SQ_WAIT,
					       NULL, 0));
	diff_put(r, "NEED_WAKEUP", diff_wait_need_wakeup(ring));
	diff_put(r, "SQ_WAKEUP",
		 enter(ring, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0));
	diff_put(r, "to_submit 4, none queued", enter(ring, 4, 0, 0, NULL, 0));
}

static void run_ring(const char *engine, const void *arg, struct diff_run *r)
{
	const struct ring_case *rc = arg;
	struct io_uring_params p;
	struct io_uring ring;
	int ret;

	if (open_files(r))
		return;
	memset(&p, 0, sizeof(p));
	p.flags = rc->flags;
	if (rc->flags & IORING_SETUP_SQPOLL)
		p.sq_thread_idle = 1;
	ret = anyring_queue_init_engine(engine, 8, &ring, &p);
	if (ret) {
		snprintf(r->msg, sizeof(r->msg), "ring setup: %s",
			 strerror(-ret));
		return;
	}
	rc->fn(&ring, r);
	io_uring_queue_exit(&ring);
}


/* ---- IORING_SETUP_NO_MMAP: the rings in the caller's memory ---- */

enum nm_addr { NM_OK, NM_NULL, NM_UNALIGNED, NM_UNMAPPED };

struct nommap_case {
	unsigned flags;		/* besides NO_MMAP */
	enum nm_addr cq, sq;	/* cq_off.user_addr: the rings; sq_off's: the SQEs */
};

#define NM_SZ	(4 * 4096)

static __u64 nm_addr(enum nm_addr kind, char *mem, char *gone)
{
	switch (kind) {
	case NM_OK:		return (uintptr_t)mem;
	case NM_UNALIGNED:	return (uintptr_t)mem + 64;
	case NM_UNMAPPED:	return (uintptr_t)gone;
	default:		return 0;
	}
}

/*
 * Setup with the rings at cq_off.user_addr (two pages) and the SQEs at
 * sq_off.user_addr (two pages), then a NOP through them by hand: its
 * SQE written there, one enter, its CQE read back there.
 */
static void run_setup_nommap(const char *engine, const void *arg,
			     struct diff_run *r)
{
	const struct nommap_case *nc = arg;
	struct ar_sqring_offsets sq;
	struct ar_cqring_offsets cq;
	struct io_uring_params p;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char *mem, *gone, *rings;
	unsigned tail;
	int fd;

	mem = mmap(NULL, NM_SZ, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/*
	 * Memory no access reaches: a PROT_NONE page, not a hole, which the
	 * setup's own mappings (the user engine's ring) could be put in.
	 */
	gone = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || gone == MAP_FAILED) {
		snprintf(r->msg, sizeof(r->msg), "mmap: %s", strerror(errno));
		return;
	}
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_NO_MMAP | nc->flags;
	memset(&sq, 0, sizeof(sq));
	memset(&cq, 0, sizeof(cq));
	cq.user_addr = nm_addr(nc->cq, mem, gone);
	sq.user_addr = nm_addr(nc->sq, mem + NM_SZ / 2, gone);
	memcpy(&p.sq_off, &sq, sizeof(sq));
	memcpy(&p.cq_off, &cq, sizeof(cq));
	fd = anyring_setup_engine(engine, 4, &p);
	diff_put(r, "setup", fd < 0 ? fd : 0);
	if (fd < 0)
		return;
	/* the addresses come back as they went (they differ run to run) */
	memcpy(&sq, &p.sq_off, sizeof(sq));
	memcpy(&cq, &p.cq_off, sizeof(cq));
	diff_put(r, "sq_off.user_addr kept", sq.user_addr == nm_addr(nc->sq, mem + NM_SZ / 2, gone));
	diff_put(r, "cq_off.user_addr kept", cq.user_addr == nm_addr(nc->cq, mem, gone));
	sq.user_addr = cq.user_addr = 0;
	memcpy(&p.sq_off, &sq, sizeof(sq));
	memcpy(&p.cq_off, &cq, sizeof(cq));
	put_offsets(r, &p);
	rings = mem;
	diff_put(r, "*sq_ring_entries", *(unsigned *)(rings + p.sq_off.ring_entries));
	diff_put(r, "*cq_ring_entries", *(unsigned *)(rings + p.cq_off.ring_entries));
	diff_put(r, "*cq_ring_mask", *(unsigned *)(rings + p.cq_off.ring_mask));
	/* a NOP by hand: the SQE, the array entry unless NO_SQARRAY, the tail */
	sqe = (struct io_uring_sqe *)(mem + NM_SZ / 2);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_NOP;
	sqe->user_data = 0x42;
	if (!(nc->flags & IORING_SETUP_NO_SQARRAY))
		*(unsigned *)(rings + p.sq_off.array) = 0;
	/* release: the SQE is written before the tail says so */
	__atomic_store_n((unsigned *)(rings + p.sq_off.tail), 1, __ATOMIC_RELEASE);
	diff_put(r, "enter", io_uring_enter2((unsigned)fd, 1, 1,
					     IORING_ENTER_GETEVENTS, NULL, 0));
	/* acquire: pairs with the engine's release of the CQ tail */
	tail = __atomic_load_n((unsigned *)(rings + p.cq_off.tail), __ATOMIC_ACQUIRE);
	diff_put(r, "*cq.tail", tail);
	diff_put(r, "*sq.head", __atomic_load_n((unsigned *)(rings + p.sq_off.head),
						__ATOMIC_ACQUIRE));
	if (tail) {
		cqe = (struct io_uring_cqe *)(rings + p.cq_off.cqes);
		diff_put(r, "cqe.user_data", (long long)cqe->user_data);
		diff_put(r, "cqe.res", cqe->res);
	}
	/* the memory stays: the ring may still be ending when this child exits */
	close(fd);
}


/* ---- IORING_REGISTER_RESIZE_RINGS (6.13) ---- */

#define RESIZE_RINGS	33
/* liburing 2.9's, exported by libanyring beyond the 2.3 header */
int io_uring_resize_rings(struct io_uring *ring, struct io_uring_params *p);

static void nop_ud(struct io_uring *ring, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->user_data = ud;
}

/* the CQEs waiting in the CQ, in order: user_data * 1000 + res each */
static void put_cqes(struct io_uring *ring, struct diff_run *r, unsigned max)
{
	static const char *const keys[] = { "cqe 0", "cqe 1", "cqe 2", "cqe 3" };
	struct io_uring_cqe *cqe;
	unsigned n = 0;

	while (n < max && n < 4 && !io_uring_peek_cqe(ring, &cqe)) {
		diff_put(r, keys[n++],
			 (long long)(cqe->user_data * 1000 + (unsigned)cqe->res));
		io_uring_cqe_seen(ring, cqe);
	}
	diff_put(r, "cqes", n);
}

/* not a DEFER_TASKRUN ring: -EINVAL */
static void reg_resize_plain(struct io_uring *ring, struct diff_run *r)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.sq_entries = 8;
	diff_put(r, "resize", reg(ring, RESIZE_RINGS, &p, 1));
}

/*
 * A DEFER_TASKRUN ring of 8: 3 NOP CQEs waiting and 2 SQEs not yet
 * submitted live through a resize to 16 SQEs and 64 CQEs; bad arguments
 * first, and a CQ too small for what it holds (-EOVERFLOW)
 */
static void reg_resize(struct io_uring *ring, struct diff_run *r)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.sq_entries = 8;
	diff_put(r, "null arg", reg(ring, RESIZE_RINGS, NULL, 1));
	diff_put(r, "nr 2", reg(ring, RESIZE_RINGS, &p, 2));
	diff_put(r, "bad pointer", reg(ring, RESIZE_RINGS, (void *)8, 1));
	p.flags = IORING_SETUP_SQPOLL;
	diff_put(r, "flag sqpoll", reg(ring, RESIZE_RINGS, &p, 1));
	p.flags = 0;
	p.sq_entries = 0;
	diff_put(r, "0 entries", reg(ring, RESIZE_RINGS, &p, 1));
	p.sq_entries = 1U << 20;
	diff_put(r, "too many", reg(ring, RESIZE_RINGS, &p, 1));
	p.flags = IORING_SETUP_CQSIZE;
	p.sq_entries = 8;
	p.cq_entries = 4;
	diff_put(r, "cq below sq", reg(ring, RESIZE_RINGS, &p, 1));
	/* resv is not looked at: the ring is 8 and 16 after it */
	p.resv[0] = 1;
	p.cq_entries = 16;
	diff_put(r, "resv", io_uring_resize_rings(ring, &p));
	diff_put(r, "p.resv[0]", p.resv[0]);

	for (unsigned i = 1; i <= 3; i++)
		nop_ud(ring, i);
	diff_put(r, "submit", io_uring_submit(ring));
	nop_ud(ring, 4);
	nop_ud(ring, 5);
	/* two SQEs and two CQEs: the 3 CQEs do not fit */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.sq_entries = 2;
	p.cq_entries = 2;
	diff_put(r, "overflow", io_uring_resize_rings(ring, &p));
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.sq_entries = 16;
	p.cq_entries = 64;
	ret = io_uring_resize_rings(ring, &p);
	diff_put(r, "resize", ret);
	diff_put(r, "p.flags", p.flags);
	diff_put(r, "p.sq_entries", p.sq_entries);
	diff_put(r, "p.cq_entries", p.cq_entries);
	diff_put(r, "ring sq entries", ring->sq.ring_entries);
	diff_put(r, "ring cq entries", ring->cq.ring_entries);
	diff_put(r, "*cq.kring_entries", *ring->cq.kring_entries);
	diff_put(r, "*sq.khead", *ring->sq.khead);
	diff_put(r, "*cq.khead", *ring->cq.khead);
	diff_put(r, "*cq.ktail", *ring->cq.ktail);
	put_cqes(ring, r, 3);
	diff_put(r, "submit 2", io_uring_submit_and_wait(ring, 2));
	put_cqes(ring, r, 4);
	/* smaller again: nothing waits */
	memset(&p, 0, sizeof(p));
	p.sq_entries = 4;
	diff_put(r, "shrink", io_uring_resize_rings(ring, &p));
	diff_put(r, "ring cq entries 2", ring->cq.ring_entries);
	nop_ud(ring, 6);
	diff_put(r, "submit 3", io_uring_submit_and_wait(ring, 1));
	put_cqes(ring, r, 2);
}

/* ---- the table ---- */

#define SETUP(nm, ...)	{ .name = nm, .run = run_setup, \
			  .arg = &(const struct setup_case){ __VA_ARGS__ } }
#define S(nm, e, f, cq)	\
	SETUP(nm, .entries = e, .flags = f, .cq_entries = cq)
#define NM(nm, f, c, q)	{ .name = nm, .run = run_setup_nommap, \
			  .arg = &(const struct nommap_case){ f, c, q } }
#define R(nm, f, func)	{ .name = nm, .run = run_ring, \
			  .arg = &(const struct ring_case){ f, func } }

const struct diff_call diff_setup[] = {
	S("setup_entries_0", 0, 0, 0),
	S("setup_entries_1", 1, 0, 0),
	S("setup_entries_3", 3, 0, 0),
	S("setup_entries_4096", 4096, 0, 0),
	S("setup_entries_32768", 32768, 0, 0),
	S("setup_entries_32769", 32769, 0, 0),
	S("setup_entries_65536", 65536, 0, 0),
	S("setup_entries_32769_clamp", 32769, IORING_SETUP_CLAMP, 0),
	S("setup_entries_65536_clamp", 65536, IORING_SETUP_CLAMP, 0),
	S("setup_entries_0_clamp", 0, IORING_SETUP_CLAMP, 0),
	S("setup_cqsize_0", 8, IORING_SETUP_CQSIZE, 0),
	S("setup_cqsize_below_sq", 8, IORING_SETUP_CQSIZE, 4),
	S("setup_cqsize_equal_sq", 8, IORING_SETUP_CQSIZE, 8),
	S("setup_cqsize_3_sq_2", 2, IORING_SETUP_CQSIZE, 3),
	S("setup_cqsize_65536", 8, IORING_SETUP_CQSIZE, 65536),
	S("setup_cqsize_65537", 8, IORING_SETUP_CQSIZE, 65537),
	S("setup_cqsize_huge_clamp", 8, IORING_SETUP_CQSIZE |
	  IORING_SETUP_CLAMP, 1U << 24),
	S("setup_cqsize_below_sq_clamp", 64, IORING_SETUP_CQSIZE |
	  IORING_SETUP_CLAMP, 8),
	S("setup_cq_entries_without_cqsize", 8, 0, 1024),
	S("setup_iopoll", 8, IORING_SETUP_IOPOLL, 0),
	S("setup_sqpoll", 8, IORING_SETUP_SQPOLL, 0),
	S("setup_sq_aff_alone", 8, IORING_SETUP_SQ_AFF, 0),
	S("setup_sqpoll_sq_aff_cpu0", 8, IORING_SETUP_SQPOLL |
	  IORING_SETUP_SQ_AFF, 0),
	SETUP("setup_sqpoll_sq_aff_cpu_4095", .entries = 8,
	      .flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF,
	      .sq_thread_cpu = 4095),
	S("setup_cqsize_alone_ok", 8, IORING_SETUP_CQSIZE, 32),
	S("setup_clamp", 8, IORING_SETUP_CLAMP, 0),
	SETUP("setup_attach_wq_ring", .entries = 8,
	      .flags = IORING_SETUP_ATTACH_WQ, .wq = WQ_RING),
	SETUP("setup_attach_wq_pipe", .entries = 8,
	      .flags = IORING_SETUP_ATTACH_WQ, .wq = WQ_PIPE),
	SETUP("setup_attach_wq_bad_fd", .entries = 8,
	      .flags = IORING_SETUP_ATTACH_WQ, .wq = WQ_BADFD),
	S("setup_r_disabled", 8, IORING_SETUP_R_DISABLED, 0),
	S("setup_submit_all", 8, IORING_SETUP_SUBMIT_ALL, 0),
	S("setup_coop_taskrun", 8, IORING_SETUP_COOP_TASKRUN, 0),
	S("setup_taskrun_flag_alone", 8, IORING_SETUP_TASKRUN_FLAG, 0),
	S("setup_taskrun_flag_coop", 8, IORING_SETUP_TASKRUN_FLAG |
	  IORING_SETUP_COOP_TASKRUN, 0),
	S("setup_taskrun_flag_defer", 8, IORING_SETUP_TASKRUN_FLAG |
	  IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER, 0),
	S("setup_sqe128", 8, IORING_SETUP_SQE128, 0),
	S("setup_cqe32", 8, IORING_SETUP_CQE32, 0),
	S("setup_sqe128_cqe32", 8, IORING_SETUP_SQE128 | IORING_SETUP_CQE32,
	  0),
	S("setup_single_issuer", 8, IORING_SETUP_SINGLE_ISSUER, 0),
	S("setup_defer_taskrun_alone", 8, IORING_SETUP_DEFER_TASKRUN, 0),
	S("setup_defer_taskrun", 8, IORING_SETUP_DEFER_TASKRUN |
	  IORING_SETUP_SINGLE_ISSUER, 0),
	S("setup_sqpoll_defer_taskrun", 8, IORING_SETUP_SQPOLL |
	  IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER, 0),
	S("setup_sqpoll_coop_taskrun", 8, IORING_SETUP_SQPOLL |
	  IORING_SETUP_COOP_TASKRUN, 0),
	S("setup_sqpoll_taskrun_flag", 8, IORING_SETUP_SQPOLL |
	  IORING_SETUP_TASKRUN_FLAG, 0),
	S("setup_sqpoll_single_issuer", 8, IORING_SETUP_SQPOLL |
	  IORING_SETUP_SINGLE_ISSUER, 0),
	S("setup_no_mmap_alone", 8, IORING_SETUP_NO_MMAP, 0),
	NM("setup_nommap", 0, NM_OK, NM_OK),
	NM("setup_nommap_no_sqarray", IORING_SETUP_NO_SQARRAY, NM_OK, NM_OK),
	NM("setup_nommap_sqe128_cqe32", IORING_SETUP_SQE128 | IORING_SETUP_CQE32,
	   NM_OK, NM_OK),
	NM("setup_nommap_cq_null", 0, NM_NULL, NM_OK),
	NM("setup_nommap_sq_null", 0, NM_OK, NM_NULL),
	NM("setup_nommap_cq_unaligned", 0, NM_UNALIGNED, NM_OK),
	NM("setup_nommap_sq_unaligned", 0, NM_OK, NM_UNALIGNED),
	NM("setup_nommap_cq_unmapped", 0, NM_UNMAPPED, NM_OK),
	NM("setup_nommap_sq_unmapped", 0, NM_OK, NM_UNMAPPED),
	NM("setup_nommap_both_unaligned", 0, NM_UNALIGNED, NM_UNALIGNED),
	S("setup_registered_fd_only_alone", 8,
	  IORING_SETUP_REGISTERED_FD_ONLY, 0),
	S("setup_no_sqarray", 8, IORING_SETUP_NO_SQARRAY, 0),
	S("setup_no_sqarray_sqe128_cqe32", 8, IORING_SETUP_NO_SQARRAY |
	  IORING_SETUP_SQE128 | IORING_SETUP_CQE32, 0),
	S("setup_no_sqarray_cqsize", 16, IORING_SETUP_NO_SQARRAY |
	  IORING_SETUP_CQSIZE, 64),
	S("setup_hybrid_iopoll_alone", 8, IORING_SETUP_HYBRID_IOPOLL, 0),
	S("setup_hybrid_iopoll", 8, IORING_SETUP_HYBRID_IOPOLL |
	  IORING_SETUP_IOPOLL, 0),
	S("setup_iopoll_sqpoll", 8, IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL,
	  0),
	S("setup_unknown_flag_30", 8, 1U << 30, 0),
	S("setup_unknown_flag_31", 8, 1U << 31, 0),
	S("setup_flag_18", 8, 1U << 18, 0),
	S("setup_flag_19", 8, 1U << 19, 0),
	S("setup_unknown_flag_20", 8, 1U << 20, 0),
	SETUP("setup_resv_nonzero", .entries = 8, .resv = 1),
	SETUP("setup_resv_nonzero_clamp", .entries = 1U << 20,
	      .flags = IORING_SETUP_CLAMP, .resv = 7),
	{ .name = "setup_null_params", .run = run_setup_null },

	R("register_null_arguments", 0, reg_null_args),
	R("register_files", 0, reg_files),
	R("register_files_rlimit", 0, reg_files_rlimit),
	R("register_files_update", 0, reg_files_update),
	R("register_files2", 0, reg_files2),
	R("register_files_update2", 0, reg_files_update2),
	R("register_buffers", 0, reg_buffers),
	R("register_buffers2", 0, reg_buffers2),
	R("register_buffers_update", 0, reg_buffers_update),
	R("register_eventfd", 0, reg_eventfd),
	R("register_probe", 0, reg_probe),
	R("register_personality", 0, reg_personality),
	R("register_restrictions_enabled_ring", 0, reg_restrictions_enabled),
	R("register_restrictions_disabled_ring", IORING_SETUP_R_DISABLED,
	  reg_restrictions_disabled),
	R("register_unknown_opcodes", 0, reg_unknown_opcodes),
	R("register_iowq", 0, reg_iowq),
	R("register_iowq_max_workers_per_task", 0, reg_iowq_shared),
	R("register_ring_fds", 0, reg_ring_fds),
	R("register_sync_cancel", 0, reg_sync_cancel),
	R("register_file_alloc_range", 0, reg_alloc_range),
	R("register_resize_rings_plain", 0, reg_resize_plain),
	R("register_resize_rings", IORING_SETUP_DEFER_TASKRUN |
	  IORING_SETUP_SINGLE_ISSUER, reg_resize),
	R("enter_flags", 0, enter_flags),
	R("enter_wait_arguments", 0, enter_args),
	R("enter_disabled_ring", IORING_SETUP_R_DISABLED, enter_disabled),
	R("enter_sqpoll", IORING_SETUP_SQPOLL, enter_sqpoll),
	{ .name = NULL },
};
