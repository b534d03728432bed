/* SPDX-License-Identifier: MIT */
/*
 * ringfd-stress.c - the protocol of src/lib/ringfd.h under load, with its
 * windows widened: an eventfd that must poll readable exactly while a
 * model CQ holds entries.
 *
 * The CQ is two counters: posters add to the tail (release, then
 * ar_wake_mb(), then ar_ringfd_signal(), as ar_cq_wake() does), the
 * consumer moves the head up to the tail; ops->pending is head != tail,
 * ops->armed (between a poster's arm and its write) counts and delays.
 * A round runs
 *
 *   P posters      K posts each, a random delay between posts;
 *   a consumer     the event loop: with the CQ empty it clears the fd
 *                  (rearm=false, as the poll hook does before sleeping),
 *                  polls it, reaps everything when it is readable;
 *   0-2 clearers   ar_ringfd_clear() at random moments (another thread
 *                  peeking the ring), one of them perhaps with rearm=true
 *                  (an edge-triggered poller's clear);
 *
 * and AR_RINGFD_STEP(n) sleeps, yields or spins at random at every step
 * of the protocol. The consumer also polls a second eventfd that the
 * main thread writes once every other thread has been joined: from then
 * on nothing can make the ring fd readable, so a CQ that is not empty
 * with the fd not readable is a lost wakeup, found at once (the poll's
 * T_HANG_SEC timeout only turns a hang into a failure).
 *
 * At the end of a round, nothing running: the state is IDLE or
 * SIGNALLED, never ARMING, busy is free, the eventfd's count is exactly
 * 1 when SIGNALLED and 0 when IDLE, and it equals the writes minus the
 * reads the protocol did (STEP(2) follows each write, STEP(3) each read,
 * so a read that found the count 0 shows here); every arm wrote once.
 * A clear with the CQ empty leaves the fd not readable and the state
 * IDLE; one with an entry posted leaves it readable. Empty wakeups
 * (readable, CQ empty) are allowed, but one that follows a clear which
 * said the fd was reset needs a write after that clear: there are never
 * more than writes. (RINGFD_STRESS_STRICT=1 bounds them all; see
 * t_strict for why that is not the default.)
 *
 * Built with -DRINGFD_OLD_PROTOCOL the same test runs the protocol this
 * header replaced (one flag, see below), whose lost wakeup it finds;
 * with -DRINGFD_LOST_ONLY too, it checks only for lost wakeups.
 *
 * Usage: ringfd-stress [SEED [ROUNDS [SECONDS]]], or RINGFD_STRESS_SEED,
 * RINGFD_STRESS_ROUNDS, RINGFD_STRESS_SECS. Round r runs with seed
 * SEED + r, so "ringfd-stress S 1" reruns the round of seed S alone
 * (the same choices; the timing is the scheduler's). The rounds stop at
 * ROUNDS or after SECONDS, whichever comes first, to bound the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include "test.h"

#define T_ROUNDS_DEF	1000
#define T_SECS_DEF	8
#define T_MAX_POSTERS	3
#define T_MAX_CLEARERS	3	/* 2 plain, 1 with rearm */

enum { T_IDLE, T_ARMING, T_SIGNALLED };

/*
 * -DRINGFD_LOST_ONLY: check for lost wakeups only, not for spurious ones
 * (an fd left readable with nothing pending), which the old protocol has
 * too; so that a run of it shows which of its failures it finds.
 */
#ifdef RINGFD_LOST_ONLY
#define T_SPURIOUS_CHECKS	0
#else
#define T_SPURIOUS_CHECKS	1
#endif

/*
 * RINGFD_STRESS_STRICT=1: fail a round whose consumer woke to an empty
 * CQ more often than there were posts and clears by other threads. Not
 * by default: a clear that finds a poster between its write() and its
 * SIGNALLED store (ARMING; ar_ringfd_settle() waits for it, but only
 * so long) or another clearer holding busy leaves the fd readable, and
 * the consumer's loop spins for as long as that thread is kept off a
 * CPU, which is the scheduler's to decide, and here the step delays'.
 */
static bool t_strict;

/* ---- randomness: one generator per thread, seeded from the round ---- */

static __thread uint64_t t_rng;

static uint64_t t_splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void t_seed_thread(uint64_t seed, unsigned who)
{
	t_rng = t_splitmix(seed ^ ((uint64_t)(who + 1) << 40)) | 1;
}

/* xorshift64* */
static uint64_t t_rand(void)
{
	t_rng ^= t_rng >> 12;
	t_rng ^= t_rng << 25;
	t_rng ^= t_rng >> 27;
	return t_rng * 0x2545f4914f6cdd1dULL;
}

static unsigned t_below(unsigned n)
{
	return (unsigned)((t_rand() >> 32) % n);
}

/*
 * The delay mix of a round, in percent: nothing, a spin of 100-600
 * iterations, sched_yield(), a nanosleep of 1-50 us (the rest).
 */
struct t_mix {
	unsigned none, spin, yield;
};

static const struct t_mix t_mixes[] = {
	{ 100, 0, 0 },		/* no delays: the tight interleavings */
	{ 40, 25, 20 },		/* the mix */
	{ 15, 20, 30 },		/* slow: the windows wide open */
};
static const char *const t_mix_names[] = { "none", "mix", "slow" };

/* the round's mix; set before its threads start (pthread_create orders it) */
static const struct t_mix *t_cur_mix = &t_mixes[1];

static void t_spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		/* a compiler barrier only, so the loop stays; orders nothing */
		atomic_signal_fence(memory_order_seq_cst);
}

static void t_delay_mix(const struct t_mix *m)
{
	unsigned pick = t_below(100);
	struct timespec ts;

	if (pick < m->none)
		return;
	if (pick < m->none + m->spin) {
		t_spin(100 + t_below(501));
	} else if (pick < m->none + m->spin + m->yield) {
		sched_yield();
	} else {
		ts.tv_sec = 0;
		ts.tv_nsec = 1000L * (1 + t_below(50));
		nanosleep(&ts, NULL);
	}
}

/*
 * Between two posts, or two clears of a clearer: the delays of the mix
 * even in a round without delays at the steps, whose posters would
 * otherwise be done before the consumer first looks.
 */
static void t_pause(void)
{
	t_delay_mix(&t_mixes[1]);
}

/* at a step of the protocol: the round's mix */
static void t_delay(void)
{
	t_delay_mix(t_cur_mix);
}

/*
 * The protocol's writes and reads of the eventfd. Relaxed: they are only
 * read once every thread that counts was joined.
 */
static atomic_ulong t_writes, t_reads, t_arms;

static void t_count(atomic_ulong *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/*
 * The step hook: a random delay. In lib/ringfd.h STEP(2) follows the
 * poster's write() and STEP(3) the clearer's read(), so they count them.
 */
static void t_step(int n)
{
	if (n == 2)
		t_count(&t_writes);
	else if (n == 3)
		t_count(&t_reads);
	t_delay();
}

#ifdef RINGFD_OLD_PROTOCOL
/*
 * The protocol lib/ringfd.h replaced (src/user/util.c before it): one
 * flag, "signalled". Its lost wakeup: a clearer takes the flag down, a
 * poster puts it up and writes, the clearer's read() eats that write,
 * and its look finds the flag up already, so nothing writes again: the
 * flag is up, the count is 0, and posters write no more.
 */
#include "../src/lib/wake.h"

#define T_PROTOCOL	"the old protocol (one flag)"
#define AR_RINGFD_STEP(n)	t_step(n)

struct t_proto {
	atomic_bool signalled;
};

static void t_old_write(int fd)
{
	uint64_t one = 1;

	(void)!write(fd, &one, sizeof(one));
}

static bool t_old_signal(struct t_proto *p, int fd)
{
	/* relaxed, as it was: the poster's ar_wake_mb() before orders the load */
	if (atomic_load_explicit(&p->signalled, memory_order_relaxed) ||
	    atomic_exchange_explicit(&p->signalled, true, memory_order_relaxed))
		return false;
	AR_RINGFD_STEP(1);
	t_old_write(fd);
	AR_RINGFD_STEP(2);
	return true;
}

/* true when the flag is left up */
static bool t_old_clear(struct t_proto *p, int fd, bool (*pending)(void *),
			void *arg)
{
	uint64_t v;

	/* the sleeper's step 1 of wake.h: the flag down (relaxed, as it was) */
	if (!atomic_exchange_explicit(&p->signalled, false, memory_order_relaxed))
		return false;
	/* the window of its lost wakeup: the flag down, the read to come */
	AR_RINGFD_STEP(4);
	/* STEP(3) counts a read; this one may find the count 0 (EAGAIN) */
	if (read(fd, &v, sizeof(v)) == sizeof(v))
		AR_RINGFD_STEP(3);
	else
		t_delay();
	/* step 2: pairs with the poster's ar_wake_mb() after its tail store */
	ar_wake_mb();
	if (!pending(arg))
		return false;
	/* relaxed, as it was: ordered by the barrier above */
	if (!atomic_exchange_explicit(&p->signalled, true, memory_order_relaxed)) {
		t_old_write(fd);
		AR_RINGFD_STEP(2);
	}
	return true;
}
#else
#define T_PROTOCOL	"lib/ringfd.h"
#define AR_RINGFD_STEP(n)	t_step(n)
#include "../src/lib/ringfd.h"

struct t_proto {
	struct ar_ringfd rf;
};
#endif

/* ---- a round ---- */

struct t_round {
	uint64_t seed;
	unsigned posters, posts, clearers;	/* posts: per poster */
	bool rearm;				/* one more clearer, rearm=true */
	unsigned mix;
	int fd, done_fd;
	int wfd;			/* the socket pair's other end, or -1 */
	struct t_proto proto;
	/* the CQ */
	atomic_uint head, tail;
	atomic_bool posters_done;
	pthread_barrier_t start;
	/* what the consumer saw (read after it was joined) */
	unsigned long wakeups, empty, empty_reset, empty_left;
	unsigned long clears;		/* the consumer's */
	atomic_ulong other_clears;
};

struct t_thread {
	struct t_round *r;
	unsigned who;
	bool rearm;
	pthread_t tid;
};

static struct t_round *t_cur;		/* for the exit report */
static bool t_in_basic;
static uint64_t t_base_seed;
static unsigned t_round_nr;
static atomic_bool t_passed;

static void t_report(void)
{
	/* relaxed: the exiting thread's own store, or none */
	if (atomic_load_explicit(&t_passed, memory_order_relaxed))
		return;
	if (t_in_basic) {
		fprintf(stderr, "ringfd-stress: FAILED (%s) in the basic checks\n",
			T_PROTOCOL);
		return;
	}
	fprintf(stderr, "ringfd-stress: FAILED (%s) in round %u, base seed "
		"%" PRIu64 ", round seed %" PRIu64 "\n"
		"  rerun that round: ringfd-stress %" PRIu64 " 1\n"
		"  rerun the run:    ringfd-stress %" PRIu64 "\n",
		T_PROTOCOL, t_round_nr, t_base_seed,
		t_cur ? t_cur->seed : 0, t_cur ? t_cur->seed : 0, t_base_seed);
}

static bool t_pending(void *arg)
{
	struct t_round *r = arg;
	/*
	 * head: relaxed, only the consumer stores it; a clearer that sees
	 * it stale sees an entry that was reaped and signals for nothing (a
	 * spurious wakeup, never a lost one), the consumer sees its own.
	 */
	unsigned head = atomic_load_explicit(&r->head, memory_order_relaxed);

	/* acquire pairs with the posters' release of the tail */
	return head != atomic_load_explicit(&r->tail, memory_order_acquire);
}

#ifdef RINGFD_OLD_PROTOCOL
static bool t_signal(struct t_round *r)
{
	return t_old_signal(&r->proto, r->fd);
}

static bool t_clear(struct t_round *r, bool rearm)
{
	(void)rearm;	/* the old clear always cycled the fd */
	return t_old_clear(&r->proto, r->fd, t_pending, r);
}

static unsigned t_state(struct t_round *r)
{
	/* relaxed: read with nothing running, or for a diagnostic */
	return atomic_load_explicit(&r->proto.signalled, memory_order_relaxed) ?
	       T_SIGNALLED : T_IDLE;
}

static bool t_busy(struct t_round *r)
{
	(void)r;
	return false;
}

static void t_proto_init(struct t_round *r, bool sock)
{
	(void)sock;	/* the old protocol knew eventfds only */
	r->wfd = -1;
}
#else
/* between a poster's arm and its write: the real one pushes the ring on a list */
static void t_armed(void *arg)
{
	(void)arg;
	t_count(&t_arms);
	t_delay();
}

static const struct ar_ringfd_ops t_ops = {
	.pending = t_pending,
	.armed = t_armed,
};

static bool t_signal(struct t_round *r)
{
	return ar_ringfd_signal(&r->proto.rf, &r->fd, &t_ops, r);
}

static bool t_clear(struct t_round *r, bool rearm)
{
	return ar_ringfd_clear(&r->proto.rf, &r->fd, &t_ops, r, rearm);
}

static unsigned t_state(struct t_round *r)
{
	/* relaxed: read with nothing running, or for a diagnostic */
	return atomic_load_explicit(&r->proto.rf.state, memory_order_relaxed);
}

static bool t_busy(struct t_round *r)
{
	/* relaxed: read with nothing running, or for a diagnostic */
	return atomic_load_explicit(&r->proto.rf.busy, memory_order_relaxed);
}

/*
 * A user ring's fd is one end of a socket pair, written through the
 * other (user/release.c); the protocol runs on that, or on an eventfd
 * it reads and writes itself: sockets in one round of two.
 */
static void t_proto_init(struct t_round *r, bool sock)
{
	int sv[2];

	r->wfd = -1;
	if (sock) {
		CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
				    SOCK_NONBLOCK, 0, sv), 0);
		close(r->fd);
		r->fd = sv[0];
		r->wfd = sv[1];
	}
	ar_ringfd_init(&r->proto.rf, r->wfd);
}
#endif

static const char *t_state_name(unsigned s)
{
	return s == T_IDLE ? "IDLE" : s == T_ARMING ? "ARMING" :
	       s == T_SIGNALLED ? "SIGNALLED" : "?";
}

static int t_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, 0);

	CHECK(n >= 0);
	CHECK(!(pfd.revents & (POLLERR | POLLNVAL)));
	return n == 1 && (pfd.revents & POLLIN);
}

static void t_dump(struct t_round *r, const char *why)
{
	if (t_in_basic) {
		fprintf(stderr, "ringfd-stress: %s\n  (basic checks) state %s, "
			"fd readable %d\n", why, t_state_name(t_state(r)),
			t_readable(r->fd));
		return;
	}
	/* relaxed loads throughout: a diagnostic */
	fprintf(stderr, "ringfd-stress: %s\n"
		"  round %u seed %" PRIu64 ": %u posters x %u posts, %u clearers%s, "
		"delays %s\n"
		"  state %s busy %d, fd readable %d, head %u tail %u, "
		"writes %lu reads %lu\n"
		"  consumer: %lu wakeups, %lu empty, %lu clears; others' clears %lu\n",
		why, t_round_nr, r->seed, r->posters, r->posts, r->clearers,
		r->rearm ? " + 1 rearm" : "", t_mix_names[r->mix],
		t_state_name(t_state(r)), t_busy(r), t_readable(r->fd),
		atomic_load_explicit(&r->head, memory_order_relaxed),
		atomic_load_explicit(&r->tail, memory_order_relaxed),
		atomic_load_explicit(&t_writes, memory_order_relaxed),
		atomic_load_explicit(&t_reads, memory_order_relaxed),
		r->wakeups, r->empty, r->clears,
		atomic_load_explicit(&r->other_clears, memory_order_relaxed));
}

static void t_fail(struct t_round *r, const char *why)
{
	t_dump(r, why);
	exit(1);
}

#define T_ASSERT(r, cond) do {						\
	if (!(cond))							\
		t_fail(r, "check failed: " #cond);			\
} while (0)

/* one entry, as a poster does: tail (publish), barrier, signal */
static void t_post(struct t_round *r)
{
	/* release: what a CQE holds before the tail; pairs with t_pending()'s acquire */
	atomic_fetch_add_explicit(&r->tail, 1, memory_order_release);
	/*
	 * The poster's step 2 of wake.h (ar_cq_wake()): pairs with the
	 * clearer's ar_wake_mb() after it sets IDLE; either it sees this
	 * tail or the signal below sees IDLE.
	 */
	ar_wake_mb();
	t_signal(r);
}

static void t_thread_init(struct t_thread *t)
{
	/* the nanosleeps as short as asked: no 50 us of slack */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	t_seed_thread(t->r->seed, t->who);
	pthread_barrier_wait(&t->r->start);
}

static void *t_poster(void *arg)
{
	struct t_thread *t = arg;
	struct t_round *r = t->r;

	t_thread_init(t);
	for (unsigned i = 0; i < r->posts; i++) {
		t_pause();
		t_post(r);
	}
	return NULL;
}

static void *t_clearer(void *arg)
{
	struct t_thread *t = arg;
	struct t_round *r = t->r;

	t_thread_init(t);
	/* relaxed: a stop flag; the join that follows orders the rest */
	while (!atomic_load_explicit(&r->posters_done, memory_order_relaxed)) {
		t_pause();
		t_clear(r, t->rearm);
		atomic_fetch_add_explicit(&r->other_clears, 1, memory_order_relaxed);
	}
	return NULL;
}

/* the event loop */
static void *t_consumer(void *arg)
{
	struct t_thread *t = arg;
	struct t_round *r = t->r;
	unsigned total = r->posters * r->posts, head = 0, tail;
	struct pollfd pfd[2];
	bool cleared, left;
	int n;

	t_thread_init(t);
	while (head != total) {
		/* acquire pairs with the posters' release of the tail */
		tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		cleared = left = false;
		if (tail == head) {
			/* about to sleep with the CQ empty: the poll hook's clear */
			left = t_clear(r, false);
			cleared = true;
			r->clears++;
		}
		pfd[0] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = r->done_fd, .events = POLLIN };
		n = poll(pfd, 2, T_HANG_SEC * 1000);
		if (n < 0 && errno == EINTR)
			continue;
		T_ASSERT(r, n >= 0);
		T_ASSERT(r, !(pfd[0].revents & (POLLERR | POLLNVAL | POLLHUP)));
		if (pfd[0].revents & POLLIN) {
			r->wakeups++;
			/* acquire pairs with the posters' release of the tail */
			tail = atomic_load_explicit(&r->tail, memory_order_acquire);
			if (tail == head) {
				r->empty++;
				if (cleared && !left)
					r->empty_reset++;
				else
					r->empty_left++;
			}
			head = tail;
			/* relaxed: see t_pending() */
			atomic_store_explicit(&r->head, head, memory_order_relaxed);
			continue;
		}
		/*
		 * Not readable. Once the done fd is (every other thread
		 * joined), nothing will make it readable: entries waiting
		 * now wait for ever. Or the poll timed out: a hang.
		 */
		if (t_pending(r))
			t_fail(r, n == 0 ? "LOST WAKEUP: the CQ is not empty and "
				   "the fd stayed unreadable for T_HANG_SEC" :
				   "LOST WAKEUP: the CQ is not empty, the fd "
				   "is not readable, and nothing runs that "
				   "could make it so");
		if (n == 0)
			t_fail(r, "hang: no post for T_HANG_SEC and posts missing");
	}
	return NULL;
}

static void t_start(struct t_thread *t, struct t_round *r, unsigned who,
		    bool rearm, void *(*fn)(void *))
{
	t->r = r;
	t->who = who;
	t->rearm = rearm;
	CHECK(pthread_create(&t->tid, NULL, fn, t) == 0);
}

/*
 * The eventfd's count, left as it was; nothing may run. A socket's is
 * the writes queued on it (8 bytes each), with nothing read.
 */
static uint64_t t_fd_count(struct t_round *r)
{
	uint64_t v = 0;
	ssize_t n;
	int q;

	if (r->wfd >= 0) {
		T_ASSERT(r, ioctl(r->fd, FIONREAD, &q) == 0);
		return (uint64_t)q / sizeof(v);
	}
	n = read(r->fd, &v, sizeof(v));

	if (n < 0) {
		T_ASSERT(r, errno == EAGAIN);
		return 0;
	}
	T_ASSERT(r, n == sizeof(v));
	T_ASSERT(r, write(r->fd, &v, sizeof(v)) == sizeof(v));
	return v;
}

/*
 * Nothing running: the state says what the fd is, and the counts agree.
 * A SIGNALLED state with the count at 0 is a lost wakeup in waiting: the
 * next post would find it signalled and not write.
 */
static void t_quiescent(struct t_round *r)
{
	unsigned s = t_state(r);
	uint64_t count = t_fd_count(r);
	/* relaxed: every thread that counted was joined */
	unsigned long w = atomic_load_explicit(&t_writes, memory_order_relaxed);
	unsigned long rd = atomic_load_explicit(&t_reads, memory_order_relaxed);

	if (t_pending(r) && !count)
		t_fail(r, "LOST WAKEUP: the CQ is not empty and the fd not "
		       "readable, with nothing running");
	if (s == T_SIGNALLED && !count)
		t_fail(r, "LOST WAKEUP (latent): the state is SIGNALLED and the "
		       "count 0, so no post will make the fd readable");
	T_ASSERT(r, !t_busy(r));
	T_ASSERT(r, s == T_IDLE || s == T_SIGNALLED);
	if (!T_SPURIOUS_CHECKS)
		return;
	/* IDLE with a count: readable with nothing pending, until a post */
	T_ASSERT(r, count == (uint64_t)(s == T_SIGNALLED));
	T_ASSERT(r, t_readable(r->fd) == (s == T_SIGNALLED));
	if (w - rd != count)
		t_fail(r, "the writes minus the reads are not the count: a "
		       "read() ate more than one write, or found none");
#ifndef RINGFD_OLD_PROTOCOL
	/* every arm fired: one write each */
	T_ASSERT(r, atomic_load_explicit(&t_arms, memory_order_relaxed) == w);
#endif
}

/* nothing running; the CQ empty on entry and on return */
static void t_settle(struct t_round *r)
{
	unsigned long reads;

	T_ASSERT(r, !t_pending(r));
	t_quiescent(r);
	/* a clear with the CQ empty: not readable, IDLE */
	T_ASSERT(r, !t_clear(r, false));
	T_ASSERT(r, t_state(r) == T_IDLE);
	T_ASSERT(r, !t_readable(r->fd));
	t_quiescent(r);
	/* a post: readable, SIGNALLED */
	t_post(r);
	T_ASSERT(r, t_readable(r->fd));
	T_ASSERT(r, t_state(r) == T_SIGNALLED);
	/* a clear with it pending leaves it readable, rearm or not */
	T_ASSERT(r, t_clear(r, false));
	T_ASSERT(r, t_readable(r->fd));
	reads = atomic_load_explicit(&t_reads, memory_order_relaxed);
	T_ASSERT(r, t_clear(r, true));
	T_ASSERT(r, t_readable(r->fd));
	t_quiescent(r);
#ifndef RINGFD_OLD_PROTOCOL
	/* rearm cycled it: one read (and one write: t_quiescent()) */
	T_ASSERT(r, atomic_load_explicit(&t_reads, memory_order_relaxed) == reads + 1);
#else
	(void)reads;
#endif
	/* a second post while signalled writes nothing more */
	t_post(r);
	t_quiescent(r);
	/* reaped: the next clear resets it */
	/* relaxed: see t_pending() */
	atomic_store_explicit(&r->head,
			      atomic_load_explicit(&r->tail, memory_order_relaxed),
			      memory_order_relaxed);
	T_ASSERT(r, !t_clear(r, false));
	T_ASSERT(r, t_state(r) == T_IDLE);
	T_ASSERT(r, !t_readable(r->fd));
	t_quiescent(r);
}

struct t_totals {
	unsigned long rounds, posts, writes, wakeups, empty, empty_reset,
		      empty_left, clears, other_clears;
};

static void t_round(uint64_t seed, struct t_totals *tot)
{
	struct t_thread th[1 + T_MAX_POSTERS + T_MAX_CLEARERS];
	unsigned nth = 0, nposters, i;
	struct t_round *r;
	uint64_t one = 1;
	unsigned long w;

	r = calloc(1, sizeof(*r));
	CHECK(r);
	t_cur = r;
	r->seed = seed;
	/* the round's choices, from its seed */
	t_seed_thread(seed, 1000);
	r->posters = 1 + t_below(T_MAX_POSTERS);
	r->posts = 20 + t_below(181);
	r->clearers = t_below(3);
	r->rearm = t_below(3) == 0;
	i = t_below(10);
	r->mix = i == 0 ? 0 : i < 7 ? 1 : 2;
	t_cur_mix = &t_mixes[r->mix];
	r->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHECK(r->fd >= 0 && r->done_fd >= 0);
	t_proto_init(r, t_below(2));
	atomic_store_explicit(&t_writes, 0, memory_order_relaxed);
	atomic_store_explicit(&t_reads, 0, memory_order_relaxed);
	atomic_store_explicit(&t_arms, 0, memory_order_relaxed);
	/* the header's state is IDLE (0), busy free: calloc */
	CHECK(T_IDLE == 0 && t_state(r) == T_IDLE);

	nposters = r->posters;
	CHECK(pthread_barrier_init(&r->start, NULL,
				   1 + nposters + r->clearers + r->rearm) == 0);
	t_start(&th[nth++], r, 0, false, t_consumer);
	for (i = 0; i < nposters; i++, nth++)
		t_start(&th[nth], r, nth, false, t_poster);
	for (i = 0; i < r->clearers; i++, nth++)
		t_start(&th[nth], r, nth, false, t_clearer);
	if (r->rearm) {
		t_start(&th[nth], r, nth, true, t_clearer);
		nth++;
	}

	for (i = 1; i <= nposters; i++)
		CHECK(pthread_join(th[i].tid, NULL) == 0);
	/* relaxed: a stop flag (see t_clearer()) */
	atomic_store_explicit(&r->posters_done, true, memory_order_relaxed);
	for (i = 1 + nposters; i < nth; i++)
		CHECK(pthread_join(th[i].tid, NULL) == 0);
	/* only the consumer runs now: tell it */
	CHECK(write(r->done_fd, &one, sizeof(one)) == sizeof(one));
	CHECK(pthread_join(th[0].tid, NULL) == 0);

	/* the consumer reaped everything; nothing runs */
	T_ASSERT(r, atomic_load_explicit(&r->tail, memory_order_relaxed) ==
		    nposters * r->posts);
	w = atomic_load_explicit(&t_writes, memory_order_relaxed);
	t_quiescent(r);
	/* an empty wakeup after a reset needs a write after it */
	if (T_SPURIOUS_CHECKS && r->empty_reset > w)
		t_fail(r, "more empty wakeups after a reset than writes");
	/* opt-in, and up to the scheduler: see t_strict */
	if (t_strict && r->empty > nposters * r->posts +
	    atomic_load_explicit(&r->other_clears, memory_order_relaxed))
		t_fail(r, "more empty wakeups than posts and clears by others "
		       "(RINGFD_STRESS_STRICT)");
	tot->rounds++;
	tot->posts += nposters * r->posts;
	tot->writes += w;
	tot->wakeups += r->wakeups;
	tot->empty += r->empty;
	tot->empty_reset += r->empty_reset;
	tot->empty_left += r->empty_left;
	tot->clears += r->clears;
	tot->other_clears += atomic_load_explicit(&r->other_clears,
						  memory_order_relaxed);
	if (T_SPURIOUS_CHECKS)
		t_settle(r);

	pthread_barrier_destroy(&r->start);
	close(r->fd);
	if (r->wfd >= 0)
		close(r->wfd);
	close(r->done_fd);
	t_cur = NULL;
	free(r);
}

/* the protocol alone, one thread: what each call leaves */
static void t_basic(bool sock)
{
	struct t_round *r = calloc(1, sizeof(*r));

	CHECK(r);
	t_cur = r;
	t_in_basic = true;
	t_cur_mix = &t_mixes[0];
	atomic_store_explicit(&t_writes, 0, memory_order_relaxed);
	atomic_store_explicit(&t_reads, 0, memory_order_relaxed);
	atomic_store_explicit(&t_arms, 0, memory_order_relaxed);
	r->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHECK(r->fd >= 0);
	t_proto_init(r, sock);
	/* a clear of an IDLE fd does nothing */
	CHECK(!t_clear(r, false));
	CHECK(!t_clear(r, true));
	CHECK(!t_readable(r->fd));
	CHECK_EQ(atomic_load_explicit(&t_reads, memory_order_relaxed), 0);
	t_settle(r);
	/* a signal with nothing posted still signals (the poster's call) */
	CHECK(t_signal(r));
	CHECK(!t_signal(r));
	CHECK(t_readable(r->fd));
	CHECK(!t_clear(r, false));
	CHECK(!t_readable(r->fd));
	t_quiescent(r);
	close(r->fd);
	if (r->wfd >= 0)
		close(r->wfd);
	t_in_basic = false;
	t_cur = NULL;
	free(r);
}

static uint64_t t_arg(int argc, char **argv, int i, const char *env,
		      uint64_t def)
{
	const char *s = i < argc ? argv[i] : getenv(env);
	char *end;
	uint64_t v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "ringfd-stress: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	uint64_t rounds, secs;
	struct t_totals tot = { 0 };
	long long start, end;

	t_base_seed = t_arg(argc, argv, 1, "RINGFD_STRESS_SEED",
			    (uint64_t)t_now_ns() ^ ((uint64_t)getpid() << 32));
	rounds = t_arg(argc, argv, 2, "RINGFD_STRESS_ROUNDS", T_ROUNDS_DEF);
	secs = t_arg(argc, argv, 3, "RINGFD_STRESS_SECS", T_SECS_DEF);
	t_strict = t_arg(0, argv, 0, "RINGFD_STRESS_STRICT", 0);	/* env only */
	atexit(t_report);
	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	t_seed_thread(t_base_seed, 999);

	printf("ringfd-stress: %s, seed %" PRIu64 ", %" PRIu64 " rounds or %"
	       PRIu64 " s\n", T_PROTOCOL, t_base_seed, rounds, secs);
	if (!T_SPURIOUS_CHECKS)
		printf("  (RINGFD_LOST_ONLY: lost wakeups only, no check for "
		       "spurious ones)\n");
	printf("  basic: a clear of an IDLE fd does nothing; a post makes it "
	       "readable;\n  a clear keeps it so while the CQ holds entries "
	       "and resets it once empty\n");
	t_basic(false);
	t_basic(true);
	printf("  rounds: 1-3 posters x 20-200 posts, a consumer that clears "
	       "and polls,\n  0-2 clearers (+1 with rearm), random delays at "
	       "every step; no lost wakeup,\n  the state and the count agree "
	       "at the end, empty wakeups bounded\n");
	start = t_now_ns();
	end = start + (long long)secs * 1000000000LL;
	for (t_round_nr = 0; t_round_nr < rounds; t_round_nr++) {
		if (t_round_nr && t_now_ns() >= end)
			break;
		t_round(t_base_seed + t_round_nr, &tot);
	}
	printf("  %lu rounds in %.1f s: %lu posts, %lu writes, %lu wakeups, "
	       "%lu clears by the consumer, %lu by the others\n",
	       tot.rounds, (t_now_ns() - start) / 1e9, tot.posts, tot.writes,
	       tot.wakeups, tot.clears, tot.other_clears);
	printf("  empty wakeups: %lu after a clear that reset the fd (at most "
	       "the writes), %lu after one that left it signalled\n",
	       tot.empty_reset, tot.empty_left);
	if (tot.rounds < rounds)
		printf("  (stopped at the time limit)\n");
	/* relaxed: read by t_report() in this thread */
	atomic_store_explicit(&t_passed, true, memory_order_relaxed);
	printf("passed\n");
	return 0;
}
