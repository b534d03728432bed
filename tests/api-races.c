/* SPDX-License-Identifier: MIT */
/*
 * api-races: completions racing cancels, link timeouts and signals. Each
 * part checks outcomes, never timings: every CQE comes once, none is
 * lost, and a wait ends early only with a CQE to show for it.
 *
 *   link timeout  a READV on an empty pipe linked to a 0 or 10 ns
 *                 LINK_TIMEOUT (inline and IOSQE_ASYNC): when the link
 *                 timeout reports -ETIME its target was cancelled
 *                 (-ECANCELED); a byte written afterwards shows a target
 *                 left armed. Inline the kernel always cancels it.
 *   waits         a thread storms the waiter with signals: an idle
 *                 wait_cqe_timeout ends with -EINTR or, not before its
 *                 timeout, -ETIME; a wait for a TIMEOUT request's CQE
 *                 (wait_cqe_timeout with a long timeout, and a raw enter
 *                 with min_complete 1 or 2, which only the TIMEOUT's
 *                 completion ends) returns 0 only with a CQE there, on a
 *                 plain ring and a DEFER_TASKRUN one; an idle wait
 *                 with min_wait ends with -EINTR or -ETIME, not before
 *                 its timeout nor before min_wait.
 *   cancel storm  reads armed on pipes, an ASYNC_CANCEL aimed at each
 *                 (100k cancels) while bytes arrive, on a SINGLE_ISSUER
 *                 ring that reuses the cancelled requests at once: each
 *                 read completes once, with the byte or -ECANCELED, as
 *                 its cancel says; no byte is lost. Under TSan it shows
 *                 the service thread touching a request it no longer
 *                 holds.
 *   spread cancel batches of reads on empty pipes that issue=spread's
 *                 helper shares, then a cancel for each, async or sync,
 *                 last read first: each finds its read (0), as the
 *                 kernel's, for which a request is cancellable once its
 *                 submit returned. Counts the misses per user_data.
 *   device lt     reads of a simdev that holds them for an hour, each
 *                 linked to a LINK_TIMEOUT of 0 to 3 us: every link
 *                 timeout's CQE (-ENOENT: block I/O in flight cannot be
 *                 cancelled) comes while its read is in the device, also
 *                 when its timer fired while the read was being issued.
 *                 User engine only (simdev); a child process, which
 *                 exits with the reads in flight.
 *   mshot cancel  an IOSQE_ASYNC READ_MULTISHOT on a pipe cancelled just
 *                 after its CQE: the cancel answers 0 or -EALREADY, and
 *                 the multishot always ends -ECANCELED (it stayed armed
 *                 when a worker it was handed to saw the cancel first).
 *
 * ANYRING_SOAK=1 runs each part for at least 10^6 operations (the device
 * part 10^5 link timeouts).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "test.h"
#include "compat.h"

static int t_soak(void)
{
	const char *s = getenv("ANYRING_SOAK");

	return s && *s && strcmp(s, "0");
}

static unsigned long long t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL +
	       (unsigned long long)ts.tv_nsec;
}

/* the next CQE, however long: the runner's timeout turns a hang into a failure */
static void t_wait(struct io_uring *ring, __u64 *ud, int *res)
{
	struct io_uring_cqe *cqe;
	int ret;

	do
		ret = io_uring_wait_cqe(ring, &cqe);
	while (ret == -EINTR);
	CHECK_EQ(ret, 0);
	*ud = cqe->user_data;
	*res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
}

static void t_drain_pipe(int fd)
{
	char buf[256];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* ---- link timeout on a read that would block ---- */

enum { UD_READ = 1, UD_LT = 2 };

static void t_link_timeout(unsigned iters, long ns, int async)
{
	struct io_uring ring;
	char byte;
	struct iovec iov = { &byte, 1 };
	unsigned i, etime = 0, enoent = 0;
	int p[2];

	t_ring(&ring, 8, NULL);
	CHECK(!pipe2(p, O_NONBLOCK | O_CLOEXEC));
	for (i = 0; i < iters; i++) {
		struct __kernel_timespec ts = { 0, ns };
		struct io_uring_sqe *sqe;
		int rres = 1000, lres = 1000, res;
		__u64 ud;

		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_readv(sqe, p[0], &iov, 1, 0);
		sqe->user_data = UD_READ;
		sqe->flags |= IOSQE_IO_LINK | (async ? IOSQE_ASYNC : 0);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_link_timeout(sqe, &ts, 0);
		sqe->user_data = UD_LT;
		CHECK_EQ(io_uring_submit(&ring), 2);
		while (lres == 1000) {
			t_wait(&ring, &ud, &res);
			CHECK(ud == UD_READ || ud == UD_LT);
			if (ud == UD_READ) {
				CHECK_EQ(rres, 1000);
				rres = res;
			} else {
				lres = res;
			}
		}
		/* the pipe was empty: the timeout fired and its cancel ran */
		if (lres == -ENOENT && async) {
			enoent++;	/* io-wq had started it: not found */
		} else {
			CHECK_EQ(lres, -ETIME);
			etime++;
		}
		/* a target still armed takes this byte; a cancelled one leaves it */
		CHECK_EQ(write(p[1], "x", 1), 1);
		if (rres == 1000)
			t_wait(&ring, &ud, &rres);
		if (lres == -ETIME && rres != -ECANCELED) {
			fprintf(stderr, "iteration %u (%ld ns%s): link timeout "
				"-ETIME but its read got %d\n", i, ns,
				async ? ", async" : "", rres);
			exit(1);
		}
		CHECK(rres == -ECANCELED || rres == 1);
		t_drain_pipe(p[0]);
	}
	printf("link timeout %ld ns%s: %u cancelled, %u not found\n", ns,
	       async ? " async" : "", etime, enoent);
	close(p[0]);
	close(p[1]);
	io_uring_queue_exit(&ring);
}

/* ---- waits under a signal storm ---- */

static volatile sig_atomic_t t_signals;
static volatile int t_storm_stop;

static void t_on_signal(int sig)
{
	(void)sig;
	t_signals++;
}

static void *t_storm(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	struct timespec gap = { 0, 20000 };

	while (!__atomic_load_n(&t_storm_stop, __ATOMIC_RELAXED)) {
		pthread_kill(target, SIGUSR1);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

/* an idle ring: -EINTR, or -ETIME no earlier than asked */
static void t_idle_wait(struct io_uring *ring, long ns, unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ns };
	struct io_uring_cqe *cqe;
	unsigned long long t0 = t_now(), dt;
	int ret;

	ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	dt = t_now() - t0;
	if (ret == -EINTR) {
		(*eintr)++;
		return;
	}
	if (ret != -ETIME || dt < (unsigned long long)ns) {
		fprintf(stderr, "idle wait of %ld ns: %d after %llu ns\n", ns,
			ret, dt);
		exit(1);
	}
}

/*
 * An idle ring, a wait with min_wait and (ts_ns) a timeout: -EINTR, or
 * -ETIME no earlier than the later of the two: the kernel does not look
 * at the timeout before min_wait passed.
 */
static void t_idle_wait_ext(struct io_uring *ring, unsigned min_us, long ts_ns,
			    unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ts_ns };
	struct anyring_wait w;
	struct io_uring_cqe *cqe;
	unsigned long long t0 = t_now(), dt, least;
	int ret;

	if (!(ring->features & IORING_FEAT_MIN_TIMEOUT))
		return;
	memset(&w, 0, sizeof(w));
	w.min_wait_usec = min_us;
	w.ts = ts_ns ? &ts : NULL;
	ret = anyring_submit_and_wait_ext(ring, &cqe, 1, &w);
	dt = t_now() - t0;
	least = min_us * 1000ULL;
	if ((unsigned long long)ts_ns > least)
		least = (unsigned long long)ts_ns;
	if (ret == -EINTR) {
		(*eintr)++;
		return;
	}
	if (ret != -ETIME || dt < least) {
		fprintf(stderr, "idle wait, min_wait %u us, timeout %ld ns: "
			"%d after %llu ns\n", min_us, ts_ns, ret, dt);
		exit(1);
	}
}

static void t_prep_timeout(struct io_uring *ring, struct __kernel_timespec *ts)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_timeout(sqe, ts, 0, 0);
	sqe->user_data = 7;
	CHECK_EQ(io_uring_submit(ring), 1);
}

/*
 * A TIMEOUT request's CQE, waited for with a timeout that never expires.
 * liburing answers -ETIME for a wait with a timeout whose enter returned
 * with no CQE there (2.15's src/queue.c _io_uring_get_cqe()), and the
 * kernel's wait ends when a TIMEOUT fires, its CQE maybe not posted yet:
 * seen once on the kernel, in the Debian 13 chroot (liburing 2.9). Such
 * a wait is made again.
 */
static void t_timeout_wait(struct io_uring *ring, long ns, unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ns }, wts = { 100, 0 };
	struct io_uring_cqe *cqe;
	unsigned early = 0;
	int ret;

	t_prep_timeout(ring, &ts);
	for (;;) {
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &wts);
		if (ret == -ETIME && early++ < 16)
			continue;
		if (ret != -EINTR)
			break;
		(*eintr)++;
	}
	if (ret) {
		fprintf(stderr, "wait for a %ld ns TIMEOUT: %d, no CQE\n", ns, ret);
		exit(1);
	}
	CHECK_EQ(cqe->user_data, 7);
	CHECK_EQ(cqe->res, -ETIME);
	io_uring_cqe_seen(ring, cqe);
}

/*
 * The same with a raw enter for nr CQEs: 0 means the CQE is there. With
 * nr 2 only the TIMEOUT's completion ends the wait, so it must come
 * after the wait began: the enter submits it, on a ring whose
 * completions its task posts while it waits (the user engine's
 * DEFER_TASKRUN ring; the kernel's timer may fire before its wait), and
 * it must not be due already: a TIMEOUT of 0 ns expires as it is armed,
 * in the submit, on both engines.
 */
static void t_timeout_enter(struct io_uring *ring, long ns, unsigned nr,
			    unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ns };
	struct io_uring_cqe *cqe;
	int ret;

	if (nr == 1) {
		t_prep_timeout(ring, &ts);
	} else {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_timeout(sqe, &ts, 0, 0);
		sqe->user_data = 7;
		/* one enter: the submit count, whether the wait ended or a signal came */
		CHECK_EQ(io_uring_submit_and_wait(ring, nr), 1);
		if (io_uring_cq_ready(ring))
			goto done;
	}
	for (;;) {
		ret = io_uring_enter(ring->ring_fd, 0, nr, IORING_ENTER_GETEVENTS,
				     NULL);
		if (ret == -EINTR || (ret < 0 && errno == EINTR)) {
			(*eintr)++;
			continue;
		}
		CHECK_EQ(ret, 0);
		if (!io_uring_cq_ready(ring)) {
			fprintf(stderr, "enter for %u CQEs returned 0, CQ empty\n",
				nr);
			exit(1);
		}
		break;
	}
done:
	CHECK_EQ(io_uring_peek_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 7);
	CHECK_EQ(cqe->res, -ETIME);
	io_uring_cqe_seen(ring, cqe);
}

static void t_waits(unsigned iters, unsigned setup_flags, int storm)
{
	struct io_uring_params p;
	struct sigaction sa;
	struct io_uring ring;
	pthread_t self = pthread_self(), th;
	unsigned i, nr, eintr = 0;
	bool task_posts = (setup_flags & IORING_SETUP_DEFER_TASKRUN) &&
			  !strcmp(t_engine(), "user");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = t_on_signal;
	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGUSR1, &sa, NULL));
	memset(&p, 0, sizeof(p));
	p.flags = setup_flags;
	t_ring(&ring, 8, &p);
	t_storm_stop = !storm;
	if (storm)
		CHECK(!pthread_create(&th, NULL, t_storm, &self));
	for (i = 0; i < iters; i++) {
		switch (i % 6) {
		case 0:
			t_idle_wait(&ring, 1000 + (long)(i % 7) * 10000, &eintr);
			break;
		case 1:
			t_timeout_wait(&ring, (long)(i % 7) * 1000, &eintr);
			break;
		case 2:
			nr = task_posts && i / 6 % 2 ? 2 : 1;
			/* 2: not already due, which expires as it is armed */
			t_timeout_enter(&ring, (long)(i % 7 + (nr == 2)) * 1000,
					nr, &eintr);
			break;
		case 3:
			t_idle_wait_ext(&ring, 1 + i % 20, 30000, &eintr);
			break;
		case 4:
			t_idle_wait_ext(&ring, 20 + i % 20, 10000, &eintr);
			break;
		default:
			t_idle_wait_ext(&ring, 1 + i % 20, 0, &eintr);
			break;
		}
	}
	if (storm) {
		__atomic_store_n(&t_storm_stop, 1, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
	}
	printf("waits (setup flags 0x%x%s): %u, %u ended by a signal\n",
	       setup_flags, storm ? ", signals" : "", iters, eintr);
	io_uring_queue_exit(&ring);
}

/* ---- cancels racing completions ---- */

#define NSLOTS		32
#define NPAD		192
#define UD_CANCEL	(1ULL << 63)

struct t_storm_count {
	unsigned long long written, got, left;
	unsigned cancels, hits, missed;
};

/* a read in flight on one of two pipes; the other is emptied meanwhile */
struct t_slot {
	int p[2][2];
	unsigned cur;		/* the pipe the read is on */
	bool fed;		/* a byte was written for the read of this round */
	char byte;
	__u64 gen;		/* the read's user_data: slot | gen << 8 */
	int rres, cres;		/* 1000: not yet */
};

static void t_slot_arm(struct io_uring *ring, struct t_slot *s, unsigned idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	s->gen++;
	s->rres = s->cres = 1000;
	io_uring_prep_read(sqe, s->p[s->cur][0], &s->byte, 1, 0);
	sqe->user_data = idx | s->gen << 8;
}

static void t_slot_write(struct t_slot *s, unsigned long long *written)
{
	s->fed = true;
	CHECK_EQ(write(s->p[s->cur][1], "x", 1), 1);
	(*written)++;
}

static unsigned long long t_slot_drain(struct t_slot *s, unsigned pipe)
{
	unsigned long long left = 0;
	char buf[64];
	ssize_t n;

	while ((n = read(s->p[pipe][0], buf, sizeof(buf))) > 0)
		left += (unsigned long long)n;
	return left;
}

static void t_storm_cqe(struct t_slot *slots, __u64 *gens, __u64 ud, int res,
			unsigned *cancels_left)
{
	struct t_slot *s = &slots[ud & 0xff];

	CHECK((ud & ~UD_CANCEL) >> 8 == gens[ud & 0xff]);
	if (ud & UD_CANCEL) {
		CHECK_EQ(s->cres, 1000);
		CHECK(res == 0 || res == -ENOENT || res == -EALREADY);
		s->cres = res;
		(*cancels_left)--;
	} else {
		CHECK_EQ(s->rres, 1000);
		CHECK(res == 1 || res == -ECANCELED);
		s->rres = res;
	}
}

/*
 * The CQEs of a round: each cancel's and each old read's, once. A read
 * its cancel did not reach may wait on an empty pipe: a byte ends it.
 */
static void t_storm_reap(struct io_uring *ring, struct t_slot *slots,
			 __u64 *gens, struct t_storm_count *n)
{
	unsigned cancels_left = NSLOTS, i;
	__u64 ud;
	int res;

	while (cancels_left) {
		t_wait(ring, &ud, &res);
		t_storm_cqe(slots, gens, ud, res, &cancels_left);
	}
	for (i = 0; i < NSLOTS; i++) {
		struct t_slot *s = &slots[i];

		if (s->cres && s->rres == 1000) {
			/* none of its own: the cancel missed a waiting read */
			n->missed += !s->fed;
			CHECK_EQ(write(s->p[s->cur ^ 1][1], "x", 1), 1);
			n->written++;
		}
	}
	for (i = 0; i < NSLOTS; i++) {
		while (slots[i].rres == 1000) {
			t_wait(ring, &ud, &res);
			t_storm_cqe(slots, gens, ud, res, &cancels_left);
		}
		/*
		 * a successful cancel cancels the read; -EALREADY found it
		 * being issued again after readiness, where the user engine
		 * marks it and it ends -ECANCELED if it would wait again
		 * (docs/semantics.md D64); -ENOENT never cancels it
		 */
		if (slots[i].cres == 0 || slots[i].cres == -ENOENT)
			CHECK_EQ(slots[i].cres == 0,
				 slots[i].rres == -ECANCELED);
		if (slots[i].rres == 1)
			n->got++;
		else
			n->hits++;
		slots[i].fed = false;
	}
}

/*
 * Rounds of a read armed on each slot's pipe and a cancel for each. Odd
 * rounds write a byte to every read's pipe first, so the cancels race
 * the reads' completions. Even rounds cancel first, then a byte wakes
 * the service thread's poll of one cancelled read while the next reads,
 * submitted at once, reuse the cancelled requests.
 */
static void t_cancel_storm(unsigned nr_cancels)
{
	struct t_slot slots[NSLOTS];
	struct t_storm_count n = { 0 };
	struct io_uring_params p;
	struct io_uring ring;
	unsigned i, round;
	__u64 gens[NSLOTS];

	/*
	 * SINGLE_ISSUER: the submitter frees requests straight onto its own
	 * allocation list, so the next SQEs reuse the requests just cancelled
	 */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER;
	t_ring(&ring, NSLOTS + NPAD, &p);
	for (i = 0; i < NSLOTS; i++) {
		CHECK(!pipe2(slots[i].p[0], O_NONBLOCK | O_CLOEXEC));
		CHECK(!pipe2(slots[i].p[1], O_NONBLOCK | O_CLOEXEC));
		slots[i].cur = 0;
		slots[i].gen = 0;
		slots[i].fed = false;
		t_slot_arm(&ring, &slots[i], i);
	}
	CHECK_EQ(io_uring_submit(&ring), NSLOTS);
	for (round = 0; n.cancels < nr_cancels; round++) {
		if (round & 1)
			for (i = 0; i < NSLOTS; i++)
				t_slot_write(&slots[i], &n.written);
		for (i = 0; i < NSLOTS; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			gens[i] = slots[i].gen;
			io_uring_prep_cancel64(sqe, i | gens[i] << 8, 0);
			sqe->user_data = UD_CANCEL | i | gens[i] << 8;
		}
		CHECK_EQ(io_uring_submit(&ring), NSLOTS);
		n.cancels += NSLOTS;
		/* the next reads on the other pipes, emptied last round */
		for (i = 0; i < NSLOTS; i++) {
			slots[i].cur ^= 1;
			t_slot_arm(&ring, &slots[i], i);
		}
		if (!(round & 1)) {
			/* the last reads cancelled: their requests are reused first */
			for (i = NSLOTS - 4; i < NSLOTS; i++) {
				slots[i].cur ^= 1;
				t_slot_write(&slots[i], &n.written);
				slots[i].cur ^= 1;
			}
			/* more of the submit behind the reused requests (no CQEs) */
			for (i = 0; i < NPAD; i++) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

				io_uring_prep_nop(sqe);
				sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
			}
			CHECK_EQ(io_uring_submit(&ring), NSLOTS + NPAD);
		} else {
			CHECK_EQ(io_uring_submit(&ring), NSLOTS);
		}
		t_storm_reap(&ring, slots, gens, &n);
		for (i = 0; i < NSLOTS; i++)
			n.left += t_slot_drain(&slots[i], slots[i].cur ^ 1);
	}
	/* the last reads: a byte each */
	for (i = 0; i < NSLOTS; i++)
		t_slot_write(&slots[i], &n.written);
	for (i = 0; i < NSLOTS; i++) {
		__u64 ud;
		int res;

		t_wait(&ring, &ud, &res);
		CHECK_EQ(res, 1);
		n.got++;
	}
	for (i = 0; i < NSLOTS; i++) {
		for (unsigned k = 0; k < 2; k++) {
			n.left += t_slot_drain(&slots[i], k);
			close(slots[i].p[k][0]);
			close(slots[i].p[k][1]);
		}
	}
	CHECK_EQ(n.written, n.got + n.left);
	printf("cancel storm: %u cancels, %u hit, %u missed a waiting read, "
	       "%llu bytes read\n", n.cancels, n.hits, n.missed, n.got);
	io_uring_queue_exit(&ring);
}

/* ---- cancels right after a batch issue=spread shares ---- */

#define SP_READS	64

/* one CQE of a round: a read's or its cancel's, each once; true: a cancel's */
static bool t_sp_cqe(struct io_uring *ring, int *rres, int *cres)
{
	__u64 ud;
	int res;

	t_wait(ring, &ud, &res);
	CHECK((ud & ~UD_CANCEL) < SP_READS);
	if (ud & UD_CANCEL) {
		CHECK_EQ(cres[ud & ~UD_CANCEL], 1000);
		cres[ud & ~UD_CANCEL] = res;
		return true;
	}
	CHECK_EQ(rres[ud], 1000);
	rres[ud] = res;
	return false;
}

/*
 * Rounds of SP_READS reads on empty pipes in one submit (a batch the
 * user engine's issue=spread helper shares), then, in the next submit,
 * an ASYNC_CANCEL per read, last read first, or a sync cancel of the
 * last read then of each read. On the kernel a request is cancellable
 * once its submit returned: each cancel finds its read (0) and the read
 * completes -ECANCELED. A read its cancel missed gets a byte at the end
 * of the round, so it shows as a miss rather than a hang.
 */
static unsigned t_spread_cancel(unsigned nr_cancels, int sync)
{
	int p[SP_READS][2], rres[SP_READS], cres[SP_READS];
	unsigned i, cancels = 0, missed = 0, left;
	struct anyring_policy pol;
	struct io_uring ring;
	char bytes[SP_READS];

	t_ring(&ring, 2 * SP_READS, NULL);
	memset(&pol, 0, sizeof(pol));
	pol.issue = ANYRING_ISSUE_SPREAD;
	/* the kernel engine issues in the submitting task: spread is refused */
	CHECK_EQ(anyring_ring_set_policy(&ring, &pol),
		 strcmp(t_engine(), "user") ? -EOPNOTSUPP : 0);
	for (i = 0; i < SP_READS; i++)
		CHECK(!pipe2(p[i], O_NONBLOCK | O_CLOEXEC));
	while (cancels < nr_cancels) {
		for (i = 0; i < SP_READS; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, p[i][0], &bytes[i], 1, 0);
			sqe->user_data = i;
			rres[i] = cres[i] = 1000;
		}
		CHECK_EQ(io_uring_submit(&ring), SP_READS);
		left = sync ? 0 : SP_READS;	/* cancel CQEs to come */
		for (i = SP_READS; i-- > 0;) {
			if (sync) {
				struct io_uring_sync_cancel_reg reg;

				memset(&reg, 0, sizeof(reg));
				reg.addr = i;
				reg.timeout.tv_sec = -1;
				reg.timeout.tv_nsec = -1;
				cres[i] = io_uring_register_sync_cancel(&ring, &reg);
			} else {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

				io_uring_prep_cancel64(sqe, i, 0);
				sqe->user_data = UD_CANCEL | i;
			}
		}
		if (!sync)
			CHECK_EQ(io_uring_submit(&ring), SP_READS);
		cancels += SP_READS;
		while (left)
			left -= t_sp_cqe(&ring, rres, cres);
		/* a read whose cancel missed still waits: a byte ends it */
		for (i = 0; i < SP_READS; i++) {
			CHECK(cres[i] == 0 || cres[i] == -ENOENT ||
			      cres[i] == -EALREADY);
			if (cres[i]) {
				missed++;
				CHECK_EQ(write(p[i][1], "x", 1), 1);
			}
		}
		for (i = 0; i < SP_READS; i++) {
			while (rres[i] == 1000)
				t_sp_cqe(&ring, rres, cres);
			/* a successful cancel, and only that, cancels the read */
			CHECK_EQ(rres[i], cres[i] ? 1 : -ECANCELED);
			t_drain_pipe(p[i][0]);
		}
	}
	printf("spread cancel%s: %u cancels, %u missed a waiting read\n",
	       sync ? " (sync)" : "", cancels, missed);
	for (i = 0; i < SP_READS; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
	io_uring_queue_exit(&ring);
	return missed;
}

/* ---- link timeouts on device I/O ---- */

#define DEV_PAIRS	64
#define UD_LT_DEV	(1ULL << 62)

/* one round: DEV_PAIRS reads each with a link timeout, and the link timeouts' CQEs */
static void t_lt_device_round(struct io_uring *ring, int fd, unsigned round)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct __kernel_timespec ts[DEV_PAIRS];
	bool seen[DEV_PAIRS] = { false };
	struct io_uring_cqe *cqe;
	unsigned i, got;

	for (i = 0; i < DEV_PAIRS; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		/* every read goes to the device: none is answered at submit */
		io_uring_prep_read(sqe, fd, buf, sizeof(buf),
				   (__u64)((round * DEV_PAIRS + i) % 256) * 4096);
		sqe->user_data = i;
		sqe->flags |= IOSQE_IO_LINK;
		ts[i].tv_sec = 0;
		ts[i].tv_nsec = (long)(i % 4) * 1000;
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_link_timeout(sqe, &ts[i], 0);
		sqe->user_data = UD_LT_DEV | i;
	}
	CHECK_EQ(io_uring_submit(ring), 2 * DEV_PAIRS);
	for (got = 0; got < DEV_PAIRS; got++) {
		/* generous: only a link timeout held back by its read runs out */
		struct __kernel_timespec wts = { 60, 0 };
		int ret;

		do
			ret = io_uring_wait_cqe_timeout(ring, &cqe, &wts);
		while (ret == -EINTR);
		if (ret) {
			fprintf(stderr, "round %u: %u of %u link timeouts "
				"posted, the rest wait for their reads\n",
				round, got, DEV_PAIRS);
			exit(1);
		}
		/* a read's CQE would come after an hour */
		CHECK(cqe->user_data & UD_LT_DEV);
		i = (unsigned)(cqe->user_data & ~UD_LT_DEV);
		CHECK(i < DEV_PAIRS && !seen[i]);
		seen[i] = true;
		/* the cancel cannot reach block I/O in flight */
		CHECK_EQ(cqe->res, -ENOENT);
		io_uring_cqe_seen(ring, cqe);
	}
}

/*
 * In a child: the reads stay in the device for an hour, and the child
 * exits with them in flight rather than wait for them at ring exit.
 */
static void t_lt_device(unsigned rounds)
{
	struct io_uring ring;
	unsigned round;
	int status, fd;
	pid_t pid;

	if (strcmp(t_engine(), "user")) {
		printf("device lt: simdev is the user engine's\n");
		return;
	}
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid) {
		CHECK_EQ(waitpid(pid, &status, 0), pid);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		return;
	}
	t_ring(&ring, 4 * DEV_PAIRS, NULL);
	fd = anyring_simdev_create("size=1M,lat=fixed:3600s");
	CHECK(fd >= 0);
	for (round = 0; round < rounds; round++)
		t_lt_device_round(&ring, fd, round);
	printf("device lt: %u link timeouts, each posted with its read in "
	       "the device\n", rounds * DEV_PAIRS);
	fflush(stdout);
	/* no ring exit: it would wait an hour for the reads */
	_exit(0);
}

/*
 * IOSQE_ASYNC READ_MULTISHOT on a pipe, cancelled right after a CQE: the
 * cancel may find it being issued again (-EALREADY, D64), and then too it
 * must end with -ECANCELED, not stay armed for good. One ring, a buffer
 * ring of 4 given back after each read.
 */
static void t_mshot_cancel(unsigned iters)
{
	static char bufs[4][64];
	struct io_uring_buf_ring *br;
	struct io_uring_buf_reg reg;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int fds[2], res, found, ended;
	__u64 ud;

	t_ring(&ring, 8, NULL);
	br = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	CHECK(br != MAP_FAILED);
	io_uring_buf_ring_init(br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = 4;
	reg.bgid = 1;
	CHECK_EQ(io_uring_register_buf_ring(&ring, &reg, 0), 0);
	CHECK_EQ(pipe(fds), 0);
	for (unsigned i = 0; i < iters; i++) {
		for (unsigned b = 0; b < 4; b++)
			io_uring_buf_ring_add(br, bufs[b], sizeof(bufs[b]),
					      (unsigned short)b, 3, (int)b);
		io_uring_buf_ring_advance(br, 4);
		sqe = t_sqe(&ring);
		io_uring_prep_rw(49 /* READ_MULTISHOT */, sqe, fds[0], NULL, 0, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT | IOSQE_ASYNC;
		sqe->buf_group = 1;
		sqe->user_data = 2;
		CHECK_EQ(io_uring_submit(&ring), 1);
		CHECK_EQ(write(fds[1], "abcd", 4), 4);
		t_wait(&ring, &ud, &res);
		CHECK_EQ(ud, 2);
		CHECK_EQ(res, 4);
		sqe = t_sqe(&ring);
		io_uring_prep_cancel64(sqe, 2, 0);
		sqe->user_data = 9;
		CHECK_EQ(io_uring_submit(&ring), 1);
		found = ended = 0;
		while (!found || !ended) {
			t_wait(&ring, &ud, &res);
			if (ud == 9) {
				CHECK(res == 0 || res == -EALREADY);
				found = 1;
			} else {
				CHECK_EQ(ud, 2);
				CHECK_EQ(res, -ECANCELED);
				ended = 1;
			}
		}
		/* what the ring has left is taken back before the next round */
		io_uring_buf_ring_init(br);
		CHECK_EQ(io_uring_unregister_buf_ring(&ring, 1), 0);
		CHECK_EQ(io_uring_register_buf_ring(&ring, &reg, 0), 0);
	}
	close(fds[0]);
	close(fds[1]);
	io_uring_queue_exit(&ring);
	munmap(br, 4096);
}

int main(int argc, char **argv)
{
	int soak = t_soak();
	const char *only = argc > 1 ? argv[1] : "";

	/* first: its child is forked before this process has other threads */
	if (!*only || !strcmp(only, "device"))
		t_lt_device(soak ? 1600 : 200);

	if (!*only || !strcmp(only, "lt")) {
		unsigned n = soak ? 250000 : 5000;

		t_link_timeout(n, 0, 0);
		t_link_timeout(n, 10, 0);
		t_link_timeout(n, 0, 1);
		t_link_timeout(n, 10, 1);
	}
	if (!*only || !strcmp(only, "wait")) {
		unsigned n = soak ? 400000 : 12000;
		/* its task posts the TIMEOUT's completion: the wait must end for it */
		unsigned defer = IORING_SETUP_SINGLE_ISSUER |
				 IORING_SETUP_DEFER_TASKRUN;

		t_waits(n, 0, 1);
		t_waits(n, defer, 1);
		/* no signal to end a wait that misses its wakeup */
		t_waits(n, defer, 0);
	}
	if (!*only || !strcmp(only, "cancel"))
		t_cancel_storm(soak ? 1000000 : 100000);
	if (!*only || !strcmp(only, "mshot"))
		t_mshot_cancel(soak ? 10000 : 200);
	if (!*only || !strcmp(only, "spread")) {
		unsigned missed = t_spread_cancel(soak ? 1000000 : 100000, 0);

		missed += t_spread_cancel(soak ? 100000 : 10000, 1);
		CHECK_EQ(missed, 0);
	}
	return 0;
}
