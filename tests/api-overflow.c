/* SPDX-License-Identifier: MIT */
/*
 * api-overflow: CQ overflow storms and the ring fd's lifetime. Each part
 * counts CQEs per user_data: exactly one each, none lost, none
 * duplicated, with the result and flags the kernel gives.
 *
 *   storm      a ring with a small CQ (4 to 16 entries; with and without
 *              IORING_SETUP_CQSIZE; plain, SINGLE_ISSUER+DEFER_TASKRUN,
 *              SQPOLL, CQE32, COOP_TASKRUN+TASKRUN_FLAG, entered through
 *              a registered ring fd) takes completions from several sources at
 *              once: NOPs, TIMEOUTs firing, 1-byte pipe reads that a
 *              writer thread completes, buffered file reads and O_DIRECT
 *              reads where the file system has it. The reaper drains
 *              slowly, in bursts, and reaches the backlog each way the
 *              API offers: peeking, io_uring_get_events when
 *              io_uring_cq_has_overflow, a raw enter with GETEVENTS,
 *              waits for several CQEs, submit_and_get_events. Halfway
 *              through an eventfd is registered; it must be signalled.
 *              A submit with a backlog is accepted whole (Linux 6.18:
 *              no -EBUSY; a GETEVENTS enter that cannot flush it all
 *              returns 0). A wait for k CQEs (k clamped to the CQ size)
 *              returns with k there unless a TIMEOUT fired meanwhile
 *              (which ends any wait), and then with at least one but on
 *              SQPOLL rings ("no early CQE"); nothing is dropped (the CQ
 *              ring's overflow counter stays 0).
 *              Requests are also TIMEOUTs with a count (0 or -ETIME),
 *              a failing read with a NOP linked (-EBADF, then -ECANCELED)
 *              and NOPs with CQE_SKIP_SUCCESS (no CQE at all).
 *   direct     O_DIRECT reads, up to 16 at a time, each batch waited for
 *              at once on rings with the engine's AIO reaper thread: a
 *              wait that sees no CQE for T_HANG_SEC fails (a completion
 *              left in the AIO ring).
 *   count      TIMEOUTs whose counts are reached by NOPs' CQEs as their
 *              timers fire: each ends once, by one or the other.
 *   eventfd    as the kernel's io_eventfd_signal(): a registered
 *              eventfd is signalled for posted CQEs only when the CQ tail
 *              moved since its last signal; CQEs going onto the overflow
 *              list do not signal, the flush that brings them in does.
 *   exit       rings closed with a backlog on the overflow list, reads
 *              waiting on a pipe (by turns written by a thread while the
 *              ring exits) and a TIMEOUT armed: io_uring_queue_exit
 *              returns, the ring fd is closed, nothing leaks (ASan).
 *
 * ANYRING_SOAK=1 runs each storm, the direct and the count part for at
 * least 10^6 operations.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include "test.h"

#define BS		4096
#define NBLK		64
#define NPIPES		4
#define NSLOTS		64	/* reads in flight at most: each has a buffer */
#define MAXQ		160	/* requests in flight or unreaped at most */
#define NO_SLOT		0xff

static int t_soak(void)
{
	const char *s = getenv("ANYRING_SOAK");

	return s && *s && strcmp(s, "0");
}

/* ---- the pipe writer: completes pipe reads from another thread ---- */

struct t_writer {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned owed[NPIPES];		/* under lock */
	bool stop;			/* under lock */
	int wfd[NPIPES];
};

static void *t_writer_main(void *arg)
{
	struct t_writer *w = arg;
	unsigned take[NPIPES], i;
	char bytes[MAXQ];

	pthread_mutex_lock(&w->lock);
	for (;;) {
		bool any = false;

		for (i = 0; i < NPIPES; i++) {
			take[i] = w->owed[i];
			w->owed[i] = 0;
			any |= take[i] != 0;
		}
		if (!any) {
			if (w->stop)
				break;
			pthread_cond_wait(&w->cond, &w->lock);
			continue;
		}
		pthread_mutex_unlock(&w->lock);
		for (i = 0; i < NPIPES; i++) {
			if (!take[i])
				continue;
			CHECK(take[i] <= sizeof(bytes));
			memset(bytes, 'a' + (int)i, take[i]);
			CHECK_EQ(write(w->wfd[i], bytes, take[i]), take[i]);
		}
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* one more byte for pipe p, written by the writer thread */
static void t_writer_owe(struct t_writer *w, unsigned p)
{
	pthread_mutex_lock(&w->lock);
	w->owed[p]++;
	pthread_mutex_unlock(&w->lock);
	pthread_cond_signal(&w->cond);
}

/* ---- a storm ---- */

/*
 * What a request is: a NOP; a TIMEOUT (-ETIME); a TIMEOUT with a count,
 * which ends with 0 when enough CQEs reached the CQ ring or -ETIME; a
 * pipe read, a buffered read, an O_DIRECT read (each with a slot's
 * buffer); the head of a chain failing (a read of fd -1, -EBADF) and the
 * NOP linked to it (-ECANCELED, after the head's CQE); a NOP with
 * CQE_SKIP_SUCCESS (no CQE at all).
 */
enum t_kind {
	K_NOP, K_TIMEOUT, K_CTIMEOUT, K_PIPE, K_FILE, K_DIRECT,
	K_LINK_HEAD, K_LINK_TAIL, K_SKIP,
};

static bool t_kind_has_slot(unsigned kind)
{
	return kind == K_PIPE || kind == K_FILE || kind == K_DIRECT;
}

static bool t_kind_is_timeout(unsigned kind)
{
	return kind == K_TIMEOUT || kind == K_CTIMEOUT;
}

struct t_storm_cfg {
	const char *name;
	unsigned sq, cq;		/* cq 0: the default, twice sq */
	unsigned flags;
	bool regfd;			/* enters through a registered ring fd */
};

struct t_storm {
	struct io_uring ring;
	const struct t_storm_cfg *cfg;
	unsigned cq_entries;
	unsigned long long total;	/* requests to submit */
	unsigned long long next;	/* the next request's index */
	unsigned char *count;		/* CQEs seen per index */
	unsigned char *kind;		/* per index */
	unsigned outstanding;		/* submitted, CQE not yet seen */
	unsigned timeouts;		/* of those, TIMEOUTs (with a count too) */
	unsigned long long skipped;	/* CQE_SKIP_SUCCESS NOPs */
	/* read buffers: slot i at buf + i * BS, its pipe or block in slot_arg */
	unsigned char *buf;
	unsigned slot_arg[NSLOTS];
	unsigned char free_slots[NSLOTS];
	unsigned nr_free;
	struct t_writer w;
	int rfd[NPIPES];
	int file_fd, direct_fd;
	int efd;
	unsigned long long efd_count;
	uint64_t rnd;
	/* what the reaper did, for the report */
	unsigned long long overflowed, early_waits, waits, get_events;
};

static const struct __kernel_timespec t_timeouts[4] = {
	{ 0, 0 }, { 0, 1000 }, { 0, 5000 }, { 0, 20000 },
};

static unsigned t_rand(struct t_storm *s, unsigned n)
{
	/* xorshift64: a fixed sequence per storm, so a failure repeats */
	s->rnd ^= s->rnd << 13;
	s->rnd ^= s->rnd >> 7;
	s->rnd ^= s->rnd << 17;
	return (unsigned)(s->rnd % n);
}

static unsigned char t_file_fill(unsigned blk)
{
	return (unsigned char)(blk * 37 + 11);
}

/*
 * An O_DIRECT file (t_direct_file) at an fd number of 512 or more, which
 * no pipe of this program takes after it is closed: the user engine's
 * fd cache may keep a closed O_DIRECT fd's kind for a while, and a pipe
 * read under that number would go to AIO and block its submitter
 * (docs/semantics.md, backend/file.c).
 */
static int t_direct_fd(void *buf)
{
	int fd = t_direct_file(buf, BS, NBLK, 0x5a), high;

	if (fd < 0)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
	CHECK(high >= 512);
	close(fd);
	return high;
}

static int t_buffered_file(void)
{
	char path[] = "/var/tmp/anyring-ovf-XXXXXX";
	unsigned char block[BS];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	unlink(path);
	for (unsigned i = 0; i < NBLK; i++) {
		memset(block, t_file_fill(i), sizeof(block));
		CHECK_EQ(pwrite(fd, block, BS, (off_t)i * BS), BS);
	}
	return fd;
}

static int t_expected_res(unsigned kind)
{
	switch (kind) {
	case K_NOP:		return 0;
	case K_TIMEOUT:		return -ETIME;
	case K_PIPE:		return 1;
	case K_LINK_HEAD:	return -EBADF;
	case K_LINK_TAIL:	return -ECANCELED;
	default:		return BS;
	}
}

static bool t_res_ok(unsigned kind, int res)
{
	if (kind == K_CTIMEOUT)
		return res == 0 || res == -ETIME;
	return res == t_expected_res(kind);
}

static void t_check_data(struct t_storm *s, unsigned kind, unsigned slot)
{
	unsigned char *b = s->buf + (size_t)slot * BS;
	unsigned arg = s->slot_arg[slot];

	if (kind == K_PIPE) {
		CHECK_EQ(b[0], 'a' + arg);
	} else if (kind == K_FILE) {
		CHECK_EQ(b[0], t_file_fill(arg));
		CHECK_EQ(b[BS - 1], t_file_fill(arg));
	} else if (kind == K_DIRECT) {
		CHECK_EQ(b[0], 0x5a);
		CHECK_EQ(b[BS - 1], 0x5a);
	}
}

/* one CQE: its request's first and only, with the kernel's res and flags */
static void t_cqe(struct t_storm *s, const struct io_uring_cqe *cqe)
{
	unsigned long long idx = cqe->user_data >> 8;
	unsigned slot = cqe->user_data & 0xff;
	unsigned kind;

	if (idx >= s->next) {
		fprintf(stderr, "%s: CQE for user_data 0x%llx, never submitted\n",
			s->cfg->name, (unsigned long long)cqe->user_data);
		exit(1);
	}
	if (s->count[idx]) {
		fprintf(stderr, "%s: request %llu (kind %u): a second CQE "
			"(res %d)\n", s->cfg->name, idx, s->kind[idx], cqe->res);
		exit(1);
	}
	s->count[idx] = 1;
	kind = s->kind[idx];
	if (kind == K_SKIP) {
		fprintf(stderr, "%s: request %llu: a CQE (res %d) despite "
			"CQE_SKIP_SUCCESS\n", s->cfg->name, idx, cqe->res);
		exit(1);
	}
	/* a chain's CQEs in its order */
	if (kind == K_LINK_TAIL && !s->count[idx - 1]) {
		fprintf(stderr, "%s: request %llu: the linked NOP's CQE before "
			"its head's\n", s->cfg->name, idx);
		exit(1);
	}
	if (!t_res_ok(kind, cqe->res) || cqe->flags) {
		fprintf(stderr, "%s: request %llu (kind %u): res %d flags 0x%x, "
			"want res %d flags 0\n", s->cfg->name, idx, kind,
			cqe->res, cqe->flags, t_expected_res(kind));
		exit(1);
	}
	/* nothing in a 32-byte CQE's second half for these opcodes */
	if (s->cfg->flags & IORING_SETUP_CQE32) {
		CHECK_EQ(cqe->big_cqe[0], 0);
		CHECK_EQ(cqe->big_cqe[1], 0);
	}
	if (slot != NO_SLOT) {
		CHECK(slot < NSLOTS);
		t_check_data(s, kind, slot);
		s->free_slots[s->nr_free++] = (unsigned char)slot;
	}
	if (t_kind_is_timeout(kind))
		s->timeouts--;
	s->outstanding--;
}

/* up to max CQEs already in the CQ, seen without entering */
static unsigned t_burst(struct t_storm *s, unsigned max)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&s->ring, head, cqe) {
		if (n == max)
			break;
		t_cqe(s, cqe);
		n++;
	}
	io_uring_cq_advance(&s->ring, n);
	return n;
}

static void t_read_efd(struct t_storm *s)
{
	uint64_t v;

	if (s->efd >= 0 && read(s->efd, &v, sizeof(v)) == sizeof(v))
		s->efd_count += v;
}

/*
 * The next request's kind: TIMEOUTs only in every other phase of 512,
 * chains only with room for both SQEs (left: SQEs left in this submit).
 */
static unsigned t_pick_kind(struct t_storm *s, unsigned left)
{
	unsigned r = t_rand(s, 100);
	bool no_timeouts = (s->next >> 9) & 1;

	if (r < 35)
		return K_NOP;
	if (r < 48)
		return no_timeouts ? K_NOP : K_TIMEOUT;
	if (r < 52)
		return no_timeouts ? K_NOP : K_CTIMEOUT;
	if (r < 70)
		return K_PIPE;
	if (r < 82 || (r < 90 && s->direct_fd < 0))
		return K_FILE;
	if (r < 90)
		return K_DIRECT;
	if (r < 95)
		return left >= 2 ? K_LINK_HEAD : K_NOP;
	return K_SKIP;
}

static struct io_uring_sqe *t_get_sqe(struct t_storm *s)
{
	struct io_uring_sqe *sqe;

	/* only SQPOLL's SQ can be full here: its thread takes the entries */
	while (!(sqe = io_uring_get_sqe(&s->ring))) {
		CHECK(s->cfg->flags & IORING_SETUP_SQPOLL);
		CHECK_EQ(io_uring_sqring_wait(&s->ring), 0);
	}
	return sqe;
}

static void t_prep_link_tail(struct t_storm *s)
{
	struct io_uring_sqe *sqe = t_get_sqe(s);
	unsigned long long idx = s->next++;

	io_uring_prep_nop(sqe);
	s->kind[idx] = K_LINK_TAIL;
	sqe->user_data = idx << 8 | NO_SLOT;
	s->outstanding++;
}

/*
 * One request prepared (two for a chain: the count returned); left is
 * how many this submit still takes, pipes counts the bytes owed per pipe.
 */
static unsigned t_prep_one(struct t_storm *s, unsigned left, unsigned *pipes)
{
	struct io_uring_sqe *sqe = t_get_sqe(s);
	unsigned long long idx = s->next++;
	unsigned kind = t_pick_kind(s, left), slot = NO_SLOT, arg;
	unsigned char *b = NULL;

	if (t_kind_has_slot(kind) && !s->nr_free)
		kind = K_NOP;
	if (t_kind_has_slot(kind)) {
		slot = s->free_slots[--s->nr_free];
		b = s->buf + (size_t)slot * BS;
		b[0] = b[BS - 1] = 0;
	}
	s->kind[idx] = (unsigned char)kind;
	sqe->user_data = idx << 8 | slot;
	if (kind != K_SKIP)
		s->outstanding++;
	switch (kind) {
	case K_NOP:
		io_uring_prep_nop(sqe);
		break;
	case K_SKIP:
		io_uring_prep_nop(sqe);
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
		s->skipped++;
		break;
	case K_TIMEOUT:
	case K_CTIMEOUT:
		io_uring_prep_timeout(sqe, (struct __kernel_timespec *)
				      &t_timeouts[t_rand(s, 4)],
				      kind == K_CTIMEOUT ? 1 + t_rand(s, 8) : 0,
				      0);
		s->timeouts++;
		break;
	case K_PIPE:
		arg = t_rand(s, NPIPES);
		io_uring_prep_read(sqe, s->rfd[arg], b, 1, 0);
		s->slot_arg[slot] = arg;
		pipes[arg]++;
		break;
	case K_FILE:
	case K_DIRECT:
		arg = t_rand(s, NBLK);
		io_uring_prep_read(sqe, kind == K_FILE ? s->file_fd :
				   s->direct_fd, b, BS, (__u64)arg * BS);
		s->slot_arg[slot] = arg;
		break;
	default:	/* K_LINK_HEAD */
		io_uring_prep_read(sqe, -1, s->buf, 1, 0);
		sqe->flags |= IOSQE_IO_LINK;
		t_prep_link_tail(s);
		return 2;
	}
	return 1;
}

/*
 * One enter for min_complete CQEs. With a registered ring fd it is
 * liburing's io_uring_submit_and_wait(), which enters by the registered
 * index (IORING_ENTER_REGISTERED_RING; that reaches a user ring too,
 * docs/semantics.md D45), so the storm goes through the registered-ring
 * path; else a raw io_uring_enter() on the ring fd. submit_and_wait with
 * nothing to submit makes exactly one enter.
 */
static int t_enter(struct t_storm *s, unsigned min_complete)
{
	if (s->cfg->regfd)
		return io_uring_submit_and_wait(&s->ring, min_complete);
	return io_uring_enter(s->ring.ring_fd, 0, min_complete,
			      IORING_ENTER_GETEVENTS, NULL);
}

/* a GETEVENTS enter: 0 even with a backlog it cannot flush */
static void t_enter_getevents(struct t_storm *s)
{
	int ret = t_enter(s, 0);

	CHECK_EQ(ret, 0);
	s->get_events++;
}

/*
 * A raw wait for k CQEs, which the engine clamps to the CQ's size (no
 * more than there will be): 0, with that many in the CQ, or at least
 * one when a TIMEOUT may have ended the wait. On an SQPOLL ring even
 * none then: the kernel counts a fired TIMEOUT (cq_timeouts, which ends
 * the wait) in its timer and posts the CQE from the SQ thread's task
 * work, which the waiter does not run.
 */
static void t_wait_nr(struct t_storm *s, unsigned k)
{
	unsigned timeouts = s->timeouts;
	unsigned want = k < s->cq_entries ? k : s->cq_entries;
	int ret;

	ret = t_enter(s, k);
	CHECK_EQ(ret, 0);
	s->waits++;
	if (io_uring_cq_ready(&s->ring) >= want)
		return;
	if (!timeouts || (!io_uring_cq_ready(&s->ring) &&
			  !(s->cfg->flags & IORING_SETUP_SQPOLL))) {
		fprintf(stderr, "%s: wait for %u CQEs returned with %u "
			"(%u TIMEOUTs in flight)\n", s->cfg->name, k,
			io_uring_cq_ready(&s->ring), timeouts);
		exit(1);
	}
	s->early_waits++;
}

/* submit up to the SQ's size, each of the ways a submit is made */
static void t_submit_step(struct t_storm *s)
{
	unsigned pipes[NPIPES] = { 0 }, n, i, how = t_rand(s, 4);
	int ret;

	n = 1 + t_rand(s, s->cfg->sq);
	if (n > s->total - s->next)
		n = (unsigned)(s->total - s->next);
	for (i = 0; i < n; )
		i += t_prep_one(s, n - i, pipes);
	if (io_uring_cq_has_overflow(&s->ring))
		s->overflowed++;
	if (how == 0)
		ret = io_uring_submit_and_get_events(&s->ring);
	else
		ret = io_uring_submit(&s->ring);
	/*
	 * A backlog on the overflow list does not refuse a submit. With
	 * SQPOLL the count is what the SQ holds after the tail store
	 * (liburing's __io_uring_flush_sq): the SQ thread may have taken
	 * some of these already, or not yet those of earlier submits.
	 */
	if (s->cfg->flags & IORING_SETUP_SQPOLL)
		CHECK(ret >= 0 && ret <= (int)s->cfg->sq);
	else
		CHECK_EQ(ret, n);
	/* the bytes for the reads just submitted: some come before their poll is armed */
	for (i = 0; i < NPIPES; i++)
		while (pipes[i]--)
			t_writer_owe(&s->w, i);
}

/* the reaper: slow, in bursts, each way of reaching the backlog */
static void t_reap_step(struct t_storm *s)
{
	struct io_uring_cqe *cqe;
	unsigned k, max = 1 + t_rand(s, s->cq_entries);

	switch (t_rand(s, 8)) {
	case 0:
	case 1:
		break;	/* nothing: the backlog grows */
	case 2:
		t_burst(s, max);
		break;
	case 3:
		/* liburing's peek enters to flush when the CQ is empty */
		while (max-- && !io_uring_peek_cqe(&s->ring, &cqe)) {
			t_cqe(s, cqe);
			io_uring_cqe_seen(&s->ring, cqe);
		}
		break;
	case 4:
		if (io_uring_cq_has_overflow(&s->ring)) {
			CHECK_EQ(io_uring_get_events(&s->ring), 0);
			s->get_events++;
		}
		t_burst(s, max);
		break;
	case 5:
		t_enter_getevents(s);
		t_burst(s, max);
		break;
	case 6:
		k = 1 + t_rand(s, 2 * s->cq_entries);
		if (k <= s->outstanding || s->cq_entries <= s->outstanding) {
			t_wait_nr(s, k);
			t_burst(s, max);
		}
		break;
	default:
		if (s->outstanding) {
			k = 1 + t_rand(s, 4);
			CHECK_EQ(io_uring_wait_cqe_nr(&s->ring, &cqe,
						      k < s->outstanding ?
						      k : s->outstanding), 0);
			CHECK(cqe);
			s->waits++;
			t_burst(s, max);
		}
		break;
	}
	t_read_efd(s);
}

/* everything still owed: wait for each */
static void t_reap_all(struct t_storm *s)
{
	struct io_uring_cqe *cqe;

	while (s->outstanding) {
		CHECK_EQ(io_uring_wait_cqe(&s->ring, &cqe), 0);
		t_burst(s, s->outstanding);
	}
	/* nothing left anywhere: no CQE beyond the ones submitted */
	CHECK_EQ(io_uring_get_events(&s->ring), 0);
	CHECK_EQ(io_uring_cq_ready(&s->ring), 0);
	CHECK(!io_uring_cq_has_overflow(&s->ring));
}

/* registered with the storm in full swing: later CQEs signal it */
static void t_register_eventfd(struct t_storm *s)
{
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(s->efd >= 0);
	CHECK_EQ(io_uring_register_eventfd(&s->ring, s->efd), 0);
}

/*
 * After the storm: a NOP's CQE, posted into an empty CQ, signals the
 * eventfd (waited for: the kernel's SQ thread may post it later).
 */
static void t_check_eventfd(struct t_storm *s)
{
	struct pollfd pfd = { .fd = s->efd, .events = POLLIN };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;

	t_read_efd(s);
	sqe = t_get_sqe(s);
	io_uring_prep_nop(sqe);
	sqe->user_data = ~0ULL;
	CHECK_EQ(io_uring_submit(&s->ring), 1);
	CHECK_EQ(io_uring_wait_cqe(&s->ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, ~0ULL);
	CHECK_EQ(cqe->res, 0);
	io_uring_cqe_seen(&s->ring, cqe);
	CHECK_EQ(poll(&pfd, 1, T_HANG_SEC * 1000), 1);
	t_read_efd(s);
	CHECK(s->efd_count > 0);
}

static bool t_storm_setup(struct t_storm *s, const struct t_storm_cfg *cfg,
			  unsigned long long total)
{
	struct io_uring_params p;
	unsigned i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->total = total;
	s->rnd = 0x9e3779b97f4a7c15ULL ^ cfg->flags ^ (uint64_t)cfg->cq << 32;
	memset(&p, 0, sizeof(p));
	p.flags = cfg->flags;
	if (cfg->cq) {
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = cfg->cq;
	}
	ret = anyring_queue_init_engine(t_engine(), cfg->sq, &s->ring, &p);
	if (ret == -EINVAL && (cfg->flags & IORING_SETUP_CQE32)) {
		printf("%s: not supported by the %s engine\n", cfg->name,
		       t_engine());
		return false;
	}
	if (ret == -EPERM && (cfg->flags & IORING_SETUP_SQPOLL)) {
		printf("%s: SQPOLL not permitted\n", cfg->name);
		return false;
	}
	if (ret) {
		/* the whole engine missing: t_ring()'s skip */
		t_ring(&s->ring, cfg->sq, &p);
	}
	CHECK(p.features & IORING_FEAT_NODROP);
	if (cfg->regfd)
		CHECK_EQ(io_uring_register_ring_fd(&s->ring), 1);
	s->cq_entries = p.cq_entries;
	CHECK_EQ(s->cq_entries, cfg->cq ? cfg->cq : 2 * cfg->sq);
	s->count = calloc(total, 1);
	s->kind = calloc(total, 1);
	CHECK(s->count && s->kind);
	CHECK(!posix_memalign((void **)&s->buf, BS, (size_t)NSLOTS * BS));
	for (i = 0; i < NSLOTS; i++)
		s->free_slots[i] = (unsigned char)i;
	s->nr_free = NSLOTS;
	s->file_fd = t_buffered_file();
	s->direct_fd = t_direct_fd(s->buf);
	s->efd = -1;
	pthread_mutex_init(&s->w.lock, NULL);
	pthread_cond_init(&s->w.cond, NULL);
	for (i = 0; i < NPIPES; i++) {
		int fds[2];

		CHECK(!pipe2(fds, O_CLOEXEC));
		s->rfd[i] = fds[0];
		s->w.wfd[i] = fds[1];
	}
	CHECK(!pthread_create(&s->w.tid, NULL, t_writer_main, &s->w));
	return true;
}

static void t_storm_teardown(struct t_storm *s)
{
	pthread_mutex_lock(&s->w.lock);
	s->w.stop = true;
	pthread_mutex_unlock(&s->w.lock);
	pthread_cond_signal(&s->w.cond);
	pthread_join(s->w.tid, NULL);
	io_uring_queue_exit(&s->ring);
	for (unsigned i = 0; i < NPIPES; i++) {
		close(s->rfd[i]);
		close(s->w.wfd[i]);
	}
	close(s->file_fd);
	if (s->direct_fd >= 0)
		close(s->direct_fd);
	close(s->efd);
	pthread_mutex_destroy(&s->w.lock);
	pthread_cond_destroy(&s->w.cond);
	free(s->buf);
	free(s->count);
	free(s->kind);
}

static void t_storm_run(const struct t_storm_cfg *cfg, unsigned long long total)
{
	struct t_storm s;
	unsigned long long i;

	if (!t_storm_setup(&s, cfg, total))
		return;
	while (s.next < s.total) {
		if (!s.efd_count && s.efd < 0 && s.next >= s.total / 2)
			t_register_eventfd(&s);
		t_submit_step(&s);
		t_reap_step(&s);
		/* a bounded backlog: the storm is on the CQ, not on memory */
		while (s.outstanding > MAXQ) {
			struct io_uring_cqe *cqe;

			CHECK_EQ(io_uring_wait_cqe(&s.ring, &cqe), 0);
			t_burst(&s, 1 + t_rand(&s, s.cq_entries));
		}
	}
	t_reap_all(&s);
	for (i = 0; i < s.next; i++) {
		if (s.count[i] != (s.kind[i] != K_SKIP)) {
			fprintf(stderr, "%s: request %llu (kind %u): %u CQEs\n",
				cfg->name, i, s.kind[i], s.count[i]);
			exit(1);
		}
	}
	/* no CQE was dropped for want of memory */
	CHECK_EQ(*s.ring.cq.koverflow, 0);
	t_check_eventfd(&s);
	printf("%s: cq %u, %llu requests, each one CQE (none for the %llu "
	       "with CQE_SKIP_SUCCESS); "
	       "%llu submits over a backlog, %llu waits (%llu ended by a "
	       "TIMEOUT), %llu GETEVENTS enters, eventfd %llu%s\n", cfg->name,
	       s.cq_entries, s.next, s.skipped, s.overflowed, s.waits,
	       s.early_waits, s.get_events,
	       s.efd_count, s.direct_fd < 0 ? ", no O_DIRECT here" : "");
	t_storm_teardown(&s);
}

/* ---- O_DIRECT completions: the waiter and the reaper ---- */

/*
 * O_DIRECT reads, 1 to 16 at a time, each round waited for in one wait
 * for all of them, which sleeps while they complete: on a ring whose
 * CQEs appear without entering, the engine's completion reaper and the
 * waiter both take completions. Every read's CQE comes (a wait that
 * sees none for T_HANG_SEC is a lost completion), once, with BS bytes.
 */
static void t_direct_waits(unsigned reads, unsigned setup_flags)
{
	struct __kernel_timespec ts = { T_HANG_SEC, 0 };
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned char *buf, seen[16];
	unsigned done = 0, n, i, round = 0;
	int fd, ret;

	CHECK(!posix_memalign((void **)&buf, BS, 16 * BS));
	fd = t_direct_fd(buf);
	if (fd < 0) {
		printf("O_DIRECT waits: no O_DIRECT here\n");
		free(buf);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.flags = setup_flags;
	t_ring(&ring, 16, &p);
	while (done < reads) {
		n = 1 + (round++ * 7) % 16;
		for (i = 0; i < n; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, fd, buf + i * BS, BS,
					   (__u64)((done + i) % NBLK) * BS);
			sqe->user_data = i;
			seen[i] = 0;
		}
		CHECK_EQ(io_uring_submit(&ring), n);
		for (i = 0; i < n; i++) {
			do
				ret = io_uring_wait_cqes(&ring, &cqe, n - i, &ts,
							 NULL);
			while (ret == -EINTR);
			if (ret) {
				fprintf(stderr, "O_DIRECT waits (setup flags "
					"0x%x): %u of %u reads without a CQE "
					"after %d s: %d\n", setup_flags, n - i,
					n, T_HANG_SEC, ret);
				exit(1);
			}
			CHECK(cqe->user_data < n && !seen[cqe->user_data]);
			seen[cqe->user_data] = 1;
			CHECK_EQ(cqe->res, BS);
			io_uring_cqe_seen(&ring, cqe);
		}
		done += n;
	}
	printf("O_DIRECT waits (setup flags 0x%x): %u reads, each one CQE\n",
	       setup_flags, done);
	io_uring_queue_exit(&ring);
	close(fd);
	free(buf);
}

/* ---- a TIMEOUT's count reached as its timer fires ---- */

static void t_nops(struct io_uring *ring, unsigned n, __u64 ud);

#define T_NR_CT	8

/*
 * Rounds of 8 TIMEOUTs with counts 1 to 8 and timers of 0 to 3 us, then
 * 8 NOPs submitted one by one, whose CQEs reach the counts while the
 * timers fire: each TIMEOUT ends once, with 0 (its count) or -ETIME (its
 * timer), whichever took it first; each NOP with 0. The user_data are
 * new every round, so a second CQE for an earlier TIMEOUT shows up as
 * one nothing is waiting for. The CQ of 8 overflows, and the flushes
 * count for the TIMEOUTs too.
 */
static void t_timeout_count_race(unsigned rounds)
{
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct __kernel_timespec ts;
	unsigned i, j, by_count = 0, by_timer = 0;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 8;
	t_ring(&ring, T_NR_CT, &p);
	for (i = 0; i < rounds; i++) {
		__u64 base = (__u64)i << 8;
		int res[2 * T_NR_CT];

		ts.tv_sec = 0;
		ts.tv_nsec = (long long)(i % 4) * 1000;
		for (j = 0; j < T_NR_CT; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			/* the timespec is read at prep: one for all 8 */
			io_uring_prep_timeout(sqe, &ts, j + 1, 0);
			sqe->user_data = base | j;
			res[j] = res[T_NR_CT + j] = 1;
		}
		CHECK_EQ(io_uring_submit(&ring), T_NR_CT);
		for (j = 0; j < T_NR_CT; j++)
			t_nops(&ring, 1, base | (T_NR_CT + j));
		for (j = 0; j < 2 * T_NR_CT; j++) {
			unsigned k;

			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
			k = cqe->user_data & 0xff;
			if ((cqe->user_data & ~0xffULL) != base ||
			    k >= 2 * T_NR_CT || res[k] != 1) {
				fprintf(stderr, "round %u: CQE for user_data "
					"0x%llx (res %d), not in flight\n", i,
					(unsigned long long)cqe->user_data,
					cqe->res);
				exit(1);
			}
			res[k] = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
		for (j = 0; j < T_NR_CT; j++) {
			CHECK(res[j] == 0 || res[j] == -ETIME);
			by_count += !res[j];
			by_timer += !!res[j];
			CHECK_EQ(res[T_NR_CT + j], 0);
		}
	}
	/* a late second CQE of the last round would be here */
	t_nops(&ring, 1, ~0ULL);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, ~0ULL);
	io_uring_cqe_seen(&ring, cqe);
	printf("TIMEOUT count vs timer: %u TIMEOUTs, %u ended by the count, "
	       "%u by the timer\n", rounds * T_NR_CT, by_count, by_timer);
	io_uring_queue_exit(&ring);
}

/* ---- the eventfd and the overflow list ---- */

/* what the eventfd counted since the last look (0: not signalled) */
static uint64_t t_efd_take(int efd)
{
	uint64_t v = 0;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		CHECK_EQ(errno, EAGAIN);
	return v;
}

static void t_nops(struct io_uring *ring, unsigned n, __u64 ud)
{
	for (unsigned i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_nop(sqe);
		sqe->user_data = ud + i;
	}
	CHECK_EQ(io_uring_submit(ring), n);
}

/*
 * As the kernel's io_eventfd_signal(): a post signals the eventfd only
 * when the CQ tail moved since the last signal. CQEs that go onto the
 * overflow list do not; the flush that brings them in does.
 */
static void t_eventfd_overflow(unsigned flags)
{
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned seen = 0;
	int efd;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	t_ring(&ring, 4, &p);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(efd >= 0);
	CHECK_EQ(io_uring_register_eventfd(&ring, efd), 0);
	t_nops(&ring, 4, 0);
	t_nops(&ring, 4, 4);
	CHECK_EQ(io_uring_cq_ready(&ring), 8);
	CHECK(t_efd_take(efd) > 0);
	/* into a full CQ: the overflow list, no signal */
	t_nops(&ring, 4, 8);
	CHECK(io_uring_cq_has_overflow(&ring));
	CHECK_EQ(t_efd_take(efd), 0);
	/* room for two: the flush moves the tail and signals */
	io_uring_cq_advance(&ring, 2);
	CHECK_EQ(io_uring_get_events(&ring), 0);
	CHECK_EQ(io_uring_cq_ready(&ring), 8);
	CHECK(t_efd_take(efd) > 0);
	/* behind the backlog, though the CQ had room a moment ago: no signal */
	t_nops(&ring, 2, 12);
	CHECK_EQ(t_efd_take(efd), 0);
	/* the rest, in order */
	while (seen < 12) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, seen + 2);
		io_uring_cqe_seen(&ring, cqe);
		seen++;
		if (seen == 10)
			CHECK(!io_uring_cq_has_overflow(&ring));
	}
	CHECK(t_efd_take(efd) > 0);
	printf("eventfd (setup flags 0x%x): signalled when the CQ tail moves, "
	       "not for the overflow list\n", flags);
	io_uring_queue_exit(&ring);
	close(efd);
}

/* ---- rings closed with work everywhere ---- */

/* completes the reads while the ring goes away */
static void *t_late_writer(void *arg)
{
	int fd = *(int *)arg;

	CHECK_EQ(write(fd, "xy", 2), 2);
	return NULL;
}

/*
 * Rings closed with 8 CQEs on the overflow list, two reads waiting on a
 * pipe and a TIMEOUT that never fires; by turns with an eventfd
 * registered, on a DEFER_TASKRUN ring, entered through a registered ring
 * fd, and with a thread writing the pipe meanwhile, so that the reads
 * complete while the ring is torn down.
 */
static void t_exit_backlog(unsigned iters)
{
	static const struct __kernel_timespec long_ts = { 60, 0 };
	struct io_uring_params p;
	unsigned i, j;
	char bytes[4];

	for (i = 0; i < iters; i++) {
		struct io_uring ring;
		struct io_uring_sqe *sqe;
		int fds[2], efd = -1, ring_fd;
		bool late = i % 4 >= 2;
		pthread_t th;

		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = 4;
		if (i % 3 == 1)
			p.flags |= IORING_SETUP_SINGLE_ISSUER |
				   IORING_SETUP_DEFER_TASKRUN;
		t_ring(&ring, 4, &p);
		if (i % 5 == 2)
			CHECK_EQ(io_uring_register_ring_fd(&ring), 1);
		CHECK(!pipe2(fds, O_CLOEXEC));
		if (i % 2) {
			efd = eventfd(0, EFD_CLOEXEC);
			CHECK(efd >= 0);
			CHECK_EQ(io_uring_register_eventfd(&ring, efd), 0);
		}
		/* two reads that wait for bytes, a TIMEOUT that never fires */
		for (j = 0; j < 2; j++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read(sqe, fds[0], &bytes[j], 1, 0);
			sqe->user_data = j;
		}
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_timeout(sqe, (struct __kernel_timespec *)&long_ts,
				      0, 0);
		sqe->user_data = 2;
		CHECK_EQ(io_uring_submit(&ring), 3);
		/* 12 NOPs into a CQ of 4: 8 on the overflow list */
		for (j = 0; j < 3; j++) {
			for (unsigned k = 0; k < 4; k++) {
				sqe = io_uring_get_sqe(&ring);
				io_uring_prep_nop(sqe);
				sqe->user_data = 100 + j * 4 + k;
			}
			CHECK_EQ(io_uring_submit(&ring), 4);
		}
		CHECK_EQ(io_uring_get_events(&ring), 0);
		CHECK(io_uring_cq_has_overflow(&ring));
		if (late)
			CHECK(!pthread_create(&th, NULL, t_late_writer, &fds[1]));
		ring_fd = ring.ring_fd;
		io_uring_queue_exit(&ring);
		/* the ring fd is gone with the ring */
		CHECK_EQ(fcntl(ring_fd, F_GETFD), -1);
		CHECK_EQ(errno, EBADF);
		if (late)
			pthread_join(th, NULL);
		close(fds[0]);
		close(fds[1]);
		if (efd >= 0)
			close(efd);
	}
	printf("exit with a backlog: %u rings\n", iters);
}

#define T_DEFER	(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)

static const struct t_storm_cfg t_cfgs[] = {
	{ .name = "cq8 (default size)", .sq = 4 },
	{ .name = "cq4 (CQSIZE)", .sq = 4, .cq = 4 },
	{ .name = "cq16 (CQSIZE)", .sq = 8, .cq = 16 },
	{ .name = "cq8 DEFER_TASKRUN", .sq = 4, .flags = T_DEFER },
	{ .name = "cq4 DEFER_TASKRUN (CQSIZE)", .sq = 4, .cq = 4,
	  .flags = T_DEFER },
	{ .name = "cq16 SQPOLL (CQSIZE)", .sq = 8, .cq = 16,
	  .flags = IORING_SETUP_SQPOLL },
	{ .name = "cq8 CQE32", .sq = 4, .flags = IORING_SETUP_CQE32 },
	{ .name = "cq8 COOP_TASKRUN", .sq = 4,
	  .flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG },
	{ .name = "cq8 registered ring fd", .sq = 4, .regfd = true },
};

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "";
	unsigned long long n = t_soak() ? 1000000 : 20000;
	unsigned i;

	for (i = 0; i < sizeof(t_cfgs) / sizeof(t_cfgs[0]); i++)
		if (!*only || !strcmp(only, "storm"))
			t_storm_run(&t_cfgs[i], n);
	if (!*only || !strcmp(only, "direct")) {
		unsigned reads = t_soak() ? 1000000 : 20000;

		t_direct_waits(reads, 0);
		t_direct_waits(reads, IORING_SETUP_COOP_TASKRUN |
				      IORING_SETUP_TASKRUN_FLAG);
	}
	if (!*only || !strcmp(only, "count"))
		t_timeout_count_race(t_soak() ? 125000 : 10000);
	if (!*only || !strcmp(only, "eventfd")) {
		t_eventfd_overflow(0);
		t_eventfd_overflow(IORING_SETUP_SINGLE_ISSUER |
				   IORING_SETUP_DEFER_TASKRUN);
		t_eventfd_overflow(IORING_SETUP_CQE32);
	}
	if (!*only || !strcmp(only, "exit"))
		t_exit_backlog(t_soak() ? 20000 : 500);
	return 0;
}
