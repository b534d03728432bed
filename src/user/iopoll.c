/* SPDX-License-Identifier: MIT */
/*
 * iopoll.c - IORING_SETUP_IOPOLL and HYBRID_IOPOLL on the user engine, and
 * the accounting that lets ring exit wait for device I/O.
 *
 * As the kernel: on an IOPOLL ring, READ/WRITE on a file that completes by
 * polling (a backend with ->iopoll) joins the ring's list of polled
 * requests, and io_uring_enter(GETEVENTS) does not sleep: it polls the
 * devices of those requests until min_events CQEs are there
 * (io_iopoll_check). The list is in issue order, so its head is the
 * oldest request.
 *
 * HYBRID_IOPOLL sleeps once per request before polling for it, as the
 * kernel's io_hybrid_iopoll_delay. Two ways to choose the sleep
 * (ANYRING_HYBRID=half-min|learned, default learned):
 *   half-min  the kernel's: half the smallest runtime seen on the ring,
 *             a runtime being issue to completion minus the sleep taken;
 *   learned   per device, a low percentile (p10) of completion runtimes,
 *             tracked as a running quantile (robust to the long stalls
 *             of a preempted poller): sleep until issue + p10 - the
 *             median lateness of our sleeps - a correction that tracks
 *             the lateness tail: it settles where 5% of sleeps find
 *             their I/O already complete.
 * Neither looks at the device's due times: they see what a kernel sees,
 * issue and completion; their measurements are in docs/ (HYBRID_IOPOLL).
 *
 * Locks: the list and the estimates are under ctx->lock; no sleep and no
 * device poll happens under it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include "user/iopoll.h"
#include "user/backend.h"
#include "user/complete.h"
#include "user/tw.h"
#include "user/lock.h"
#include "user/wait.h"
#include "user/cancel.h"

#define AR_IOPOLL_POLL_MAX	16	/* devices polled per pass */
#define AR_IOPOLL_EST		4	/* devices with learned estimates, per ring */
#define AR_IOP_HYBRID_MIN_SLEEP_NS	1000	/* shorter sleeps are not worth a syscall */
#define AR_IOP_HYBRID_MIN_SAMPLES	8
/*
 * The correction tracks a quantile: it moves up (100 - Q) steps on a
 * sleep that found its request complete and down Q on one that did not,
 * so it settles where Q % of sleeps end after the completion.
 */
#define AR_IOP_OVERSLEEP_PCT	5
#define AR_IOP_CORR_STEP_NS	1000
#define AR_IOP_LO_PCT		10	/* the runtime percentile slept towards */

enum { AR_IOP_HYBRID_OFF, AR_IOP_HYBRID_HALF_MIN, AR_IOP_HYBRID_LEARNED };

struct ar_iopoll_dev {
	const struct ar_backend *be;
	void *dev;
	unsigned nr;			/* polled requests on it */
};

/* learned: one device's completion runtimes */
struct ar_iopoll_est {
	const void *dev;		/* identity only, no reference */
	unsigned n;			/* exact samples */
	int64_t lo;			/* running p10 of runtimes, ns */
	int64_t corr;			/* extra margin (may be < 0), see AR_IOP_OVERSLEEP_PCT */
	uint64_t used;			/* LRU */
};

struct ar_iopoll {
	struct ar_iopoll_entry *head, *tail;
	struct ar_iopoll_dev *devs;
	unsigned ndevs, cap, rr;
	int hybrid;			/* AR_IOP_HYBRID_* */
	uint64_t min_rt;		/* half-min: smallest runtime, 0 none yet */
	int64_t wake_late;		/* learned: running median lateness of our sleeps */
	uint64_t sleeps, slept_ns;	/* for the ANYRING_DEBUG line at exit */
	uint64_t tick;
	struct ar_iopoll_est est[AR_IOPOLL_EST];
};

static inline void ar_iopoll_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static int ar_iop_hybrid_mode(struct ar_uctx *ctx)
{
	const char *v = secure_getenv("ANYRING_HYBRID");

	if (!(ctx->flags & IORING_SETUP_HYBRID_IOPOLL))
		return AR_IOP_HYBRID_OFF;
	if (!v || !*v || !strcmp(v, "learned"))
		return AR_IOP_HYBRID_LEARNED;
	if (!strcmp(v, "half-min"))
		return AR_IOP_HYBRID_HALF_MIN;
	ar_debug("ANYRING_HYBRID=%s: half-min or learned; using learned", v);
	return AR_IOP_HYBRID_LEARNED;
}

/* ---- the list ---- */

static int ar_iopoll_dev_add(struct ar_iopoll *ip, struct ar_iopoll_entry *e)
{
	void *d = e->dev;

	for (unsigned i = 0; i < ip->ndevs; i++) {
		if (ip->devs[i].dev == d) {
			ip->devs[i].nr++;
			return 0;
		}
	}
	if (ip->ndevs == ip->cap) {
		unsigned cap = ip->cap ? ip->cap * 2 : 4;
		struct ar_iopoll_dev *v = realloc(ip->devs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ip->devs = v;
		ip->cap = cap;
	}
	ip->devs[ip->ndevs].be = e->be;
	ip->devs[ip->ndevs].dev = d;
	ip->devs[ip->ndevs++].nr = 1;
	return 0;
}

static void ar_iopoll_dev_del(struct ar_iopoll *ip, const void *d)
{
	for (unsigned i = 0; i < ip->ndevs; i++) {
		if (ip->devs[i].dev != d)
			continue;
		if (!--ip->devs[i].nr)
			ip->devs[i] = ip->devs[--ip->ndevs];
		return;
	}
}

/* under ctx->lock: the ring's state, made at its first polled request */
static struct ar_iopoll *ar_iopoll_state(struct ar_uctx *ctx)
{
	struct ar_iopoll *ip = ctx->iopoll;

	if (!ip) {
		ip = calloc(1, sizeof(*ip));
		if (!ip)
			return NULL;
		ip->hybrid = ar_iop_hybrid_mode(ctx);
		ctx->iopoll = ip;
	}
	return ip;
}

/*
 * A device I/O is about to be submitted: count it (ring exit waits for
 * the count to drop) and, when polled, append it to the list. -ECANCELED
 * once the ring is exiting: ar_cancel_all() set exiting under this lock
 * before exit waits, so everything counted here is waited for.
 */
/* under ctx->lock: s goes to the tail of the polled list */
static int ar_iopoll_link_locked(struct ar_uctx *ctx, struct ar_iopoll_entry *s)
{
	struct ar_iopoll *ip;
	int ret;

	s->ip_next = NULL;
	s->ip_flags = 0;
	s->slept_ns = 0;
	if (ctx->exiting)
		return -ECANCELED;
	if (!s->polled)
		return 0;
	ip = ar_iopoll_state(ctx);
	ret = ip ? ar_iopoll_dev_add(ip, s) : -ENOMEM;
	if (ret)
		return ret;
	if (ip->tail)
		ip->tail->ip_next = s;
	else
		ip->head = s;
	ip->tail = s;
	return 0;
}

int ar_iopoll_add(struct ar_uctx *ctx, struct ar_iopoll_entry *s)
{
	int ret;

	ar_ctx_lock(ctx);
	ret = ar_iopoll_link_locked(ctx, s);
	/* relaxed: under ctx->lock, which ar_cancel_all() takes before exit reads it */
	if (!ret)
		atomic_fetch_add_explicit(&ctx->dev_inflight, 1, memory_order_relaxed);
	ar_ctx_unlock(ctx);
	return ret;
}

int ar_iopoll_link(struct ar_uctx *ctx, struct ar_iopoll_entry *s)
{
	int ret;

	ar_ctx_lock(ctx);
	ret = ar_iopoll_link_locked(ctx, s);
	ar_ctx_unlock(ctx);
	return ret;
}

void ar_iopoll_io_end(struct ar_uctx *ctx, bool from_done)
{
	/*
	 * From the device's done(): release pairs with the acquire in
	 * ar_iopoll_exit(), and ctx is not touched after. Else the issuing
	 * thread goes on using ctx, and exit waits for the count only:
	 * relaxed.
	 */
	atomic_fetch_sub_explicit(&ctx->dev_inflight, 1, from_done ?
				  memory_order_release : memory_order_relaxed);
}

/* ---- hybrid estimates ---- */

static struct ar_iopoll_est *ar_iop_est_find(struct ar_iopoll *ip,
					 const void *d, bool create)
{
	struct ar_iopoll_est *e, *lru = &ip->est[0];

	for (unsigned i = 0; i < AR_IOPOLL_EST; i++) {
		e = &ip->est[i];
		if (e->dev == d) {
			e->used = ++ip->tick;
			return e;
		}
		if (e->used < lru->used)
			lru = e;
	}
	if (!create)
		return NULL;
	memset(lru, 0, sizeof(*lru));
	lru->dev = d;
	lru->used = ++ip->tick;
	return lru;
}

/* a running-quantile step: relative to the value, not below 50 ns */
static int64_t ar_iop_qstep(int64_t v)
{
	v = (v < 0 ? -v : v) / 64;
	return v > 50 ? v : 50;
}

/* a completion found by polling, rt ns after its issue */
static void ar_iop_learn(struct ar_iopoll *ip, struct ar_iopoll_entry *s, int64_t rt)
{
	struct ar_iopoll_est *e = ar_iop_est_find(ip, s->dev, true);
	bool slept = s->ip_flags & AR_IP_SLEPT;
	int64_t step = ar_iop_qstep(e->lo);

	if (s->ip_flags & AR_IP_EXACT) {
		/* a pass before found it incomplete: rt is accurate to one pass */
		if (!e->n++)
			e->lo = rt;
		else if (rt < e->lo)
			e->lo -= step * (100 - AR_IOP_LO_PCT) / 100;
		else
			e->lo += step * AR_IOP_LO_PCT / 100;
		if (slept)	/* woke in time: a little less margin */
			e->corr -= AR_IOP_CORR_STEP_NS * AR_IOP_OVERSLEEP_PCT / 100;
	} else {
		/* found on its first pass: it completed at rt or before */
		if (e->n && rt < e->lo)
			e->lo -= step * (100 - AR_IOP_LO_PCT) / 100;
		/* a sleep that may have run past the completion: more margin */
		if (slept)
			e->corr += AR_IOP_CORR_STEP_NS * (100 - AR_IOP_OVERSLEEP_PCT) / 100;
	}
	/* no sleep: drift back so that sleeping is tried again when it pays */
	if (!slept)
		e->corr -= e->corr / 4096;
	if (e->corr > e->lo)
		e->corr = e->lo;
	if (e->corr < -e->lo)
		e->corr = -e->lo;
}

static void ar_iop_hybrid_learn(struct ar_iopoll *ip, struct ar_iopoll_entry *s,
			    uint64_t now)
{
	int64_t rt = (int64_t)(now - s->submit_ns);

	if (ip->hybrid == AR_IOP_HYBRID_HALF_MIN) {
		/* the kernel's arithmetic: runtime less the sleep taken */
		int64_t k = rt - (int64_t)s->slept_ns;

		if (k < 1)
			k = 1;
		if (!ip->min_rt || (uint64_t)k < ip->min_rt)
			ip->min_rt = (uint64_t)k;
		return;
	}
	ar_iop_learn(ip, s, rt);
}

/* when to wake for the head request, which no sleep was taken for yet; 0: no sleep */
static uint64_t ar_iop_hybrid_target(struct ar_iopoll *ip, struct ar_iopoll_entry *head,
				 uint64_t now)
{
	struct ar_iopoll_est *e;
	int64_t t;

	if (ip->hybrid == AR_IOP_HYBRID_HALF_MIN) {
		if (ip->min_rt / 2 < AR_IOP_HYBRID_MIN_SLEEP_NS)
			return 0;
		head->slept_ns = (uint32_t)(ip->min_rt / 2);
		return now + ip->min_rt / 2;
	}
	e = ar_iop_est_find(ip, head->dev, false);
	if (!e || e->n < AR_IOP_HYBRID_MIN_SAMPLES)
		return 0;
	t = (int64_t)head->submit_ns + e->lo - ip->wake_late - e->corr;
	if (t < (int64_t)(now + AR_IOP_HYBRID_MIN_SLEEP_NS))
		return 0;
	head->slept_ns = (uint32_t)((uint64_t)t - now);
	return (uint64_t)t;
}

/*
 * A sleep until an absolute CLOCK_MONOTONIC time; returns how late it
 * ended. The thread's timer slack is set to 1 ns once (the kernel's
 * hybrid sleep is an hrtimer without slack; 50 us of default slack would
 * swallow sleeps of device-latency size).
 */
static __thread bool ar_iopoll_slack_set;

static int64_t ar_iop_hybrid_sleep(uint64_t until)
{
	struct timespec ts;

	if (!ar_iopoll_slack_set) {
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
		ar_iopoll_slack_set = true;
	}
	ts.tv_sec = (time_t)(until / 1000000000ULL);
	ts.tv_nsec = (long)(until % 1000000000ULL);
	/* a signal ends the sleep early, as the kernel's interruptible sleep */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return (int64_t)(ar_now_ns() - until);
}

void ar_iopoll_del(struct ar_uctx *ctx, struct ar_iopoll_entry *s, bool done)
{
	uint64_t now = done ? ar_now_ns() : 0;
	struct ar_iopoll *ip;
	struct ar_iopoll_entry **pp, *prev = NULL;

	ar_ctx_lock(ctx);
	ip = ctx->iopoll;
	/* issue order: completions come mostly from the head, the walk is short */
	for (pp = &ip->head; *pp != s; pp = &(*pp)->ip_next)
		prev = *pp;
	*pp = s->ip_next;
	if (ip->tail == s)
		ip->tail = prev;
	ar_iopoll_dev_del(ip, s->dev);
	if (done && ip->hybrid)
		ar_iop_hybrid_learn(ip, s, now);
	ar_ctx_unlock(ctx);
}

/* ---- polling ---- */

/*
 * Under ctx->lock: the head request is about to be polled for. Marks
 * what the estimates need; returns the hybrid wake-up time, 0 for none.
 */
static uint64_t ar_iopoll_head(struct ar_iopoll *ip)
{
	struct ar_iopoll_entry *head = ip->head;

	if (head->ip_flags & AR_IP_SEEN)
		head->ip_flags |= AR_IP_EXACT;
	head->ip_flags |= AR_IP_SEEN;
	if (!ip->hybrid || (head->ip_flags & AR_IP_SLEPT))
		return 0;
	head->ip_flags |= AR_IP_SLEPT;
	return ar_iop_hybrid_target(ip, head, ar_now_ns());
}

static void ar_iop_hybrid_slept(struct ar_uctx *ctx, uint64_t from,
				uint64_t until, int64_t late)
{
	struct ar_iopoll *ip;

	if (late < 0)
		late = 0;	/* a signal woke us early */
	ar_ctx_lock(ctx);
	ip = ctx->iopoll;
	if (ip) {
		ip->sleeps++;
		ip->slept_ns += until - from + (uint64_t)late;
		/* a running median: one step towards each sample */
		if (ip->hybrid == AR_IOP_HYBRID_LEARNED)
			ip->wake_late += late > ip->wake_late ?
					 ar_iop_qstep(ip->wake_late) : -ar_iop_qstep(ip->wake_late);
	}
	ar_ctx_unlock(ctx);
}

/*
 * One pass: (sleep for the head request,) poll every device with polled
 * requests of this ring. Returns the completions found, or -1 when no
 * polled request is in flight.
 */
static int ar_iopoll_once(struct ar_uctx *ctx)
{
	struct ar_iopoll_dev devs[AR_IOPOLL_POLL_MAX];
	struct ar_iopoll *ip;
	unsigned nd, found = 0, i;
	uint64_t until, from;

	ar_ctx_lock(ctx);
	ip = ctx->iopoll;
	if (!ip || !ip->head) {
		ar_ctx_unlock(ctx);
		return -1;
	}
	/* more devices than one pass polls: start at a rotating one */
	nd = ip->ndevs < AR_IOPOLL_POLL_MAX ? ip->ndevs : AR_IOPOLL_POLL_MAX;
	for (i = 0; i < nd; i++) {
		devs[i] = ip->devs[(ip->rr + i) % ip->ndevs];
		devs[i].be->dev_ref(devs[i].dev);
	}
	ip->rr++;
	until = ar_iopoll_head(ip);
	ar_ctx_unlock(ctx);

	if (until) {
		from = ar_now_ns();
		ar_iop_hybrid_slept(ctx, from, until, ar_iop_hybrid_sleep(until));
	}
	for (i = 0; i < nd; i++) {
		found += devs[i].be->iopoll(devs[i].dev);
		devs[i].be->dev_put(devs[i].dev);
	}
	return (int)found;
}

static unsigned ar_iopoll_cq_events(struct ar_uctx *ctx)
{
	/* acquire pairs with the posting side's release of the CQ tail */
	return io_uring_smp_load_acquire(&ctx->rings->cq.tail) -
	       IO_URING_READ_ONCE(ctx->rings->cq.head);
}

/*
 * io_uring_enter(GETEVENTS) on an IOPOLL ring (io_iopoll_check): run
 * the ring's task work; with CQEs already there, return at once; else
 * poll (and run task work) until min_events CQEs are there (one pass when
 * min_events is 0), or no polled request is in flight (requests that do
 * not go through the list post on their own).
 * The kernel ignores a wait timeout here; we end with -ETIME at deadline_ns
 * (0: none) rather than poll past it.
 */
int ar_iopoll_check(struct ar_uctx *ctx, unsigned min_events,
		    uint64_t deadline_ns)
{
	unsigned loops = 0;
	int ret = 0, n;

	/* completions queued for this task (complete=deferred) post first */
	if (ar_tw_pending(ctx))
		ar_tw_run(ctx);
	ar_cq_flush_overflow(ctx);
	if (ar_iopoll_cq_events(ctx))
		return 0;
	for (;;) {
		n = ar_iopoll_once(ctx);
		if (ar_tw_pending(ctx))
			ar_tw_run(ctx);
		if (n < 0)
			break;
		loops++;
		if (ar_iopoll_cq_events(ctx) >= min_events)
			break;
		if (deadline_ns && ar_now_ns() >= deadline_ns) {
			ret = -ETIME;
			break;
		}
		ar_iopoll_relax();
	}
	ar_stat_poll_loops(ctx, loops);
	return ret && ar_iopoll_cq_events(ctx) ? 0 : ret;
}

/* The SQ thread of an IOPOLL ring polls too: true while polled I/O is in flight. */
bool ar_iopoll_reap(struct ar_uctx *ctx)
{
	int n = ar_iopoll_once(ctx);

	if (n >= 0)
		ar_stat_poll_loops(ctx, 1);
	return n >= 0;
}

/* ANYRING_DEBUG: what the hybrid sleeps did on this ring */
static void ar_iopoll_debug(const struct ar_iopoll *ip)
{
	ar_debug("hybrid %s: %llu sleeps, %llu us asleep; half-min %llu ns; "
		 "median sleep lateness %lld ns",
		 ip->hybrid == AR_IOP_HYBRID_LEARNED ? "learned" : "half-min",
		 (unsigned long long)ip->sleeps,
		 (unsigned long long)(ip->slept_ns / 1000),
		 (unsigned long long)ip->min_rt, (long long)ip->wake_late);
	for (unsigned i = 0; ip->hybrid == AR_IOP_HYBRID_LEARNED && i < AR_IOPOLL_EST; i++) {
		const struct ar_iopoll_est *e = &ip->est[i];

		if (e->dev)
			ar_debug("hybrid learned, device %p: %u samples, p10 %lld ns, "
				 "correction %lld ns", (const void *)e->dev, e->n,
				 (long long)e->lo, (long long)e->corr);
	}
}

/*
 * Ring exit, after cancellation and io-wq: device I/Os cannot be
 * cancelled (block I/O in flight cannot); wait until each has been
 * delivered, polling the polled ones, so every one completes.
 */
/* a forked child's copy of the parent's polled list: its memory only (fork.c) */
void ar_iopoll_forget(struct ar_uctx *ctx)
{
	if (ctx->iopoll)
		free(ctx->iopoll->devs);
	free(ctx->iopoll);
	ctx->iopoll = NULL;
}

void ar_iopoll_exit(struct ar_uctx *ctx)
{
	struct timespec ts = { 0, 20000 };
	struct ar_iopoll *ip;

	/* acquire pairs with the release decrement that ends each I/O's done() */
	while (atomic_load_explicit(&ctx->dev_inflight, memory_order_acquire)) {
		if (ar_iopoll_once(ctx) <= 0)
			nanosleep(&ts, NULL);	/* the device delivers on its own */
	}
	ar_ctx_lock(ctx);
	ip = ctx->iopoll;
	ctx->iopoll = NULL;
	ar_ctx_unlock(ctx);
	if (ip && ip->hybrid)
		ar_iopoll_debug(ip);
	if (ip)
		free(ip->devs);
	free(ip);
}
