/* SPDX-License-Identifier: MIT */
/*
 * simdev.c - the simulated block device: its fd, its timing model, and
 * the delivery of completions (docs/simdev.md).
 *
 * The fd. anyring_simdev_create() returns an O_PATH fd of a memfd made for
 * the device: a real fd the application closes like any other, which a
 * real kernel ring refuses (read/write on O_PATH: -EBADF). A table maps fd
 * numbers to devices; a lookup confirms the entry with fstat() (st_dev and
 * st_ino recorded at create: a memfd's inode is unique while it lives), so
 * a number closed and reused for another file is not taken for the device.
 * A stale entry is dropped when a lookup or a later create finds it; the
 * device is freed when its last reference goes (the table's, and one per
 * I/O in flight, held by the caller).
 *
 * The timing model (under qlock, at submit): an I/O starts at
 * max(now, the earliest free slot) when qd limits the slots, its due time
 * is start + a latency drawn from the model (+ spikes), and with a
 * bandwidth cap no earlier than its bytes can pass a shared bandwidth
 * clock. Faults are chosen at submit too. Nothing waits at submit: the due
 * time is computed and the I/O goes on a heap.
 *
 * Delivery. Polled I/Os wait on pq until ar_simdev_poll() finds them due.
 * The others wait on iq for the device thread: it sleeps on a futex until
 * shortly before the earliest due time (timer slack 1 ns), then spins the
 * last stretch (bounded by its learned wake-up lateness), and delivers:
 * data moves (simdev_store.c), then io->done().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "simdev/simdev_int.h"
#include "lib/clock.h"
#include "lib/thread.h"
#include "engine/engine.h"
#include "user/backend.h"

#define AR_SIM_FD_SHIFT		10
#define AR_SIM_FD_CHUNK		(1U << AR_SIM_FD_SHIFT)
#define AR_SIM_FD_CHUNKS	1024	/* fds below 1M */
#define AR_SIM_BATCH		64	/* I/Os delivered per lock hold */
#define AR_SIM_SPIN_MIN_NS	2000ULL
#define AR_SIM_SPIN_MAX_NS	200000ULL
#define AR_SIM_SPIN_INIT_NS	20000ULL

static inline void ar_sim_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* ---- heaps ---- */

static bool ar_heap_less(const struct ar_sim_io *a, const struct ar_sim_io *b)
{
	return a->due_ns < b->due_ns;
}

static int ar_heap_push(struct ar_sim_heap *h, struct ar_sim_io *io)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct ar_sim_io **v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	for (i = h->n++; i; i = (i - 1) / 2) {
		if (!ar_heap_less(io, h->v[(i - 1) / 2]))
			break;
		h->v[i] = h->v[(i - 1) / 2];
	}
	h->v[i] = io;
	return 0;
}

static struct ar_sim_io *ar_heap_pop(struct ar_sim_heap *h)
{
	struct ar_sim_io *top = h->v[0], *last = h->v[--h->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && ar_heap_less(h->v[c + 1], h->v[c]))
			c++;
		if (!ar_heap_less(h->v[c], last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

static uint64_t ar_heap_next(const struct ar_sim_heap *h)
{
	return h->n ? h->v[0]->due_ns : UINT64_MAX;
}

/* the qd slots: a min-heap of the times they are free again; replace the top */
static void ar_slots_replace_top(uint64_t *s, unsigned n, uint64_t v)
{
	unsigned i = 0, c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && s[c + 1] < s[c])
			c++;
		if (s[c] >= v)
			break;
		s[i] = s[c];
		i = c;
	}
	s[i] = v;
}

/* ---- faults and timing, under qlock ---- */

/* the AR_FDEV_* kind of an I/O for the fault rules */
_Static_assert(AR_FDEV_READ == 1U << AR_SIM_READ && AR_FDEV_WRITE == 1U << AR_SIM_WRITE &&
	       AR_FDEV_FLUSH == 1U << AR_SIM_FLUSH, "AR_FDEV_* follow enum ar_sim_op");

/* a random number of sectors in [lo, n - 1] of this I/O's n (0 if n <= lo) */
static uint32_t ar_fault_sectors(struct ar_simdev *d, uint32_t bytes, uint32_t lo)
{
	uint32_t n = bytes / AR_SIM_SECTOR;

	if (n <= lo)
		return 0;
	return (lo + (uint32_t)(ar_sim_rng_next(&d->rng_fault) % (n - lo))) *
	       AR_SIM_SECTOR;
}

/* the bytes a short= or torn= rule leaves of xfer: whole sectors, fewer than xfer */
static uint32_t ar_fault_len(struct ar_simdev *d, const struct ar_frule *r,
			     uint32_t xfer, uint32_t lo)
{
	uint32_t len;

	switch (r->len_mode) {
	case AR_FLEN_RANDOM:
		return ar_fault_sectors(d, xfer, lo);
	case AR_FLEN_HALF:
		len = xfer / 2;
		break;
	default:
		len = r->len;
		break;
	}
	return len < xfer ? len & ~(AR_SIM_SECTOR - 1) : xfer;
}

static void ar_fault_apply(struct ar_simdev *d, const struct ar_frule *r,
			   struct ar_sim_io *io)
{
	switch (r->eff) {
	case AR_FEFF_ERR:
		io->res = -r->err;
		io->xfer = 0;
		break;
	case AR_FEFF_SHORT:
		io->xfer = ar_fault_len(d, r, io->xfer, 0);
		io->res = (int32_t)io->xfer;
		break;
	case AR_FEFF_TORN:
		/* reported whole, only a prefix of its sectors reaches the media */
		io->xfer = ar_fault_len(d, r, io->xfer, 1);
		break;
	default:
		break;
	}
}

/*
 * Does rule i count the I/O, and pick it? The shared selection; a rule
 * without its own seed= draws its rate= from the device's fault stream
 * instead, once for every I/O it matches (picked or not), so the picks
 * depend on the device's seed and its I/Os only.
 */
static bool ar_fault_picks(struct ar_simdev *d, struct ar_frule *r, unsigned i,
			   const struct ar_sim_io *io)
{
	uint64_t k;
	bool pick;

	if (!ar_frule_dev_match(r, 1U << io->op, io->off, io->len))
		return false;
	k = ar_frule_count(r);
	if (r->seeded)
		return ar_frule_select(r, i, k);
	pick = ar_frule_select_seq(r, k);
	if (r->rate && ar_sim_rng_unit(&d->rng_fault) >= r->rate)
		pick = false;
	return pick;
}

/*
 * The rules in spec order: each counts the I/Os it matches; delays
 * (spikes) add up, the first other rule that picks the I/O decides its
 * result.
 */
static uint64_t ar_sim_faults(struct ar_simdev *d, struct ar_sim_io *io)
{
	const struct ar_frule *res = NULL;
	uint64_t spike = 0;

	for (unsigned i = 0; i < d->spec.nfaults; i++) {
		struct ar_frule *r = &d->spec.faults[i];

		if (!ar_fault_picks(d, r, i, io))
			continue;
		if (r->eff == AR_FEFF_DELAY) {
			if (ar_frule_take(r))
				spike += r->delay_ns;
		} else if (!res && ar_frule_take(r)) {
			res = r;
		}
	}
	if (res)
		ar_fault_apply(d, res, io);
	return spike;
}

static uint64_t ar_sim_schedule(struct ar_simdev *d, struct ar_sim_io *io,
				uint64_t now, uint64_t extra)
{
	uint64_t start = now, due;

	if (d->spec.qd && d->slots[0] > start)
		start = d->slots[0];	/* waits for the earliest free slot */
	due = start + ar_sim_lat_sample(&d->spec.lat, &d->rng_lat) + extra;
	if (d->spec.bw && io->xfer) {
		uint64_t t = (uint64_t)((unsigned __int128)io->xfer * 1000000000U /
					d->spec.bw);

		/* the bytes pass one shared channel, in submission order */
		d->bw_clock = (d->bw_clock > start ? d->bw_clock : start) + t;
		if (d->bw_clock > due)
			due = d->bw_clock;
	}
	if (d->spec.qd)
		ar_slots_replace_top(d->slots, d->spec.qd, due);
	return due;
}

/* ---- submit ---- */

/* the block device's answers before any I/O (block/fops.c, O_DIRECT) */
static int ar_sim_check(struct ar_simdev *d, struct ar_sim_io *io)
{
	uint64_t size = d->spec.size;

	if (io->op > AR_SIM_FLUSH)
		return -EINVAL;
	if ((io->flags & AR_SIM_IO_POLLED) && !d->spec.poll)
		return -EOPNOTSUPP;
	io->res = 0;
	io->xfer = 0;
	if (io->op == AR_SIM_FLUSH || !io->len)
		return 0;
	/* at or past the end: a read returns 0, a write -ENOSPC */
	if (io->off >= size)
		return io->op == AR_SIM_WRITE ? -ENOSPC : 0;
	if ((io->off | io->len) & (AR_SIM_SECTOR - 1))
		return -EINVAL;
	/* across the end: short */
	io->xfer = size - io->off < io->len ? (uint32_t)(size - io->off) : io->len;
	io->res = (int32_t)io->xfer;
	return 0;
}

static void ar_sim_kick(struct ar_simdev *d, uint64_t due)
{
	/*
	 * seq_cst increment, then seq_cst load of sleep_until: pairs with the
	 * thread's seq_cst store of sleep_until before its futex wait on
	 * kick. Either the thread's wait sees the new kick value (and does not
	 * sleep), or we see what it sleeps for and wake it if we are earlier.
	 */
	atomic_fetch_add(&d->kick, 1);
	if (atomic_load(&d->sleep_until) > due)
		ar_futex_wake(&d->kick, 1);
}

int ar_simdev_submit(struct ar_simdev *d, struct ar_sim_io *io)
{
	bool polled = io->flags & AR_SIM_IO_POLLED;
	struct ar_sim_heap *h = polled ? &d->pq : &d->iq;
	bool null_io;
	uint64_t now, extra;
	int ret = ar_sim_check(d, io);

	if (ret)
		return ret;
	/* a read or write that moves nothing is answered without device time */
	null_io = io->op != AR_SIM_FLUSH && !io->xfer;
	/* the flush covers the writes delivered before this point */
	if (io->op == AR_SIM_FLUSH)
		io->mark = ar_sim_store_flush_begin(&d->store);
	now = ar_now_ns();
	io->submit_ns = now;
	pthread_mutex_lock(&d->qlock);
	if (null_io) {
		io->due_ns = now;
	} else {
		extra = ar_sim_faults(d, io);
		io->due_ns = ar_sim_schedule(d, io, now, extra);
	}
	ret = ar_heap_push(h, io);
	if (!ret && polled)
		atomic_store_explicit(&d->pq_next, ar_heap_next(h), memory_order_relaxed);
	pthread_mutex_unlock(&d->qlock);
	if (ret) {
		if (io->op == AR_SIM_FLUSH)
			ar_sim_store_flush_end(&d->store, io->mark, false);
		return ret;
	}
	if (!polled)
		ar_sim_kick(d, io->due_ns);
	return 0;
}

/* ---- delivery ---- */

static void ar_sim_deliver_one(struct ar_simdev *d, struct ar_sim_io *io)
{
	int ret;

	switch (io->op) {
	case AR_SIM_READ:
		if (io->xfer)
			ar_sim_store_read(&d->store, io);
		break;
	case AR_SIM_WRITE:
		if (io->xfer) {
			ret = ar_sim_store_write(&d->store, io);
			if (ret)
				io->res = ret;
		}
		break;
	case AR_SIM_FLUSH:
		ar_sim_store_flush_end(&d->store, io->mark, io->res == 0);
		break;
	}
	io->done(io);	/* io may be gone from here */
}

static void ar_sim_deliver(struct ar_simdev *d, struct ar_sim_io **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ar_sim_deliver_one(d, v[i]);
}

/* up to max I/Os of h due by now; under qlock */
static unsigned ar_sim_take_due(struct ar_sim_heap *h, uint64_t now,
				struct ar_sim_io **v, unsigned max)
{
	unsigned n = 0;

	while (n < max && h->n && h->v[0]->due_ns <= now)
		v[n++] = ar_heap_pop(h);
	return n;
}

unsigned ar_simdev_poll(struct ar_simdev *d)
{
	struct ar_sim_io *v[AR_SIM_BATCH];
	unsigned n, total = 0;
	uint64_t now = ar_now_ns();

	/* relaxed: a hint (see pq_next in simdev_int.h) */
	if (atomic_load_explicit(&d->pq_next, memory_order_relaxed) > now)
		return 0;
	do {
		pthread_mutex_lock(&d->qlock);
		n = ar_sim_take_due(&d->pq, now, v, AR_SIM_BATCH);
		atomic_store_explicit(&d->pq_next, ar_heap_next(&d->pq),
				      memory_order_relaxed);
		pthread_mutex_unlock(&d->qlock);
		ar_sim_deliver(d, v, n);
		total += n;
	} while (n == AR_SIM_BATCH);
	return total;
}

bool ar_simdev_polled(const struct ar_simdev *d)
{
	return d->spec.poll;
}

/* ---- the device thread ---- */

/* what the thread collected and not yet delivered (coalescing) */
struct ar_sim_ready {
	struct ar_sim_io *v[AR_SIM_COALESCE_MAX];
	unsigned n;
	uint64_t first_due;
};

static bool ar_sim_ready_full(const struct ar_simdev *d,
			      const struct ar_sim_ready *r, uint64_t now)
{
	if (!r->n)
		return false;
	if (!d->spec.coalesce_n)
		return true;
	return r->n >= d->spec.coalesce_n || r->n == AR_SIM_COALESCE_MAX ||
	       now >= r->first_due + d->spec.coalesce_ns;
}

/* a timed sleep ended late by this much: the spin before due times covers it */
static void ar_sim_learn_late(struct ar_simdev *d, uint64_t late)
{
	uint64_t w = d->wake_late;

	/* a slowly decaying maximum: it tracks the high percentiles */
	w = late > w ? late : w - w / 64;
	if (w < AR_SIM_SPIN_MIN_NS)
		w = AR_SIM_SPIN_MIN_NS;
	if (w > AR_SIM_SPIN_MAX_NS)
		w = AR_SIM_SPIN_MAX_NS;
	d->wake_late = w;
}

/*
 * Busy-wait until `until` or a kick past k (or exit); bounded by the
 * caller. Relaxed loads: only a reason to look again; the loop top reads
 * kick with acquire and the heap under qlock.
 */
static void ar_sim_spin(struct ar_simdev *d, uint64_t until, unsigned k)
{
	while (ar_now_ns() < until &&
	       atomic_load_explicit(&d->kick, memory_order_relaxed) == k &&
	       !atomic_load_explicit(&d->exiting, memory_order_relaxed))
		ar_sim_relax();
}

/*
 * Wait for target (UINT64_MAX: until kicked) unless kick moves past k.
 * Within spin_ns of its last activity the thread busy-waits (a futex
 * wake-up costs microseconds, more than the latencies it models);
 * otherwise it sleeps until target - its learned wake-up lateness, and
 * busy-waits the rest, bounded by that lateness.
 */
static void ar_sim_wait(struct ar_simdev *d, uint64_t target, unsigned k)
{
	uint64_t now = ar_now_ns(), tail = d->wake_late + 1000, until;
	uint64_t idle_end = d->last_active + d->spec.spin_ns;

	if (target <= now + tail) {
		ar_sim_spin(d, target, k);
		return;
	}
	if (now < idle_end) {
		ar_sim_spin(d, idle_end < target - tail ? idle_end : target - tail, k);
		return;
	}
	until = target == UINT64_MAX ? 0 : target - tail;
	/* seq_cst: pairs with the submitter's kick (ar_sim_kick) */
	atomic_store(&d->sleep_until, target);
	if (ar_futex_wait(&d->kick, k, until) == -ETIMEDOUT)
		ar_sim_learn_late(d, ar_now_ns() - until);
	atomic_store(&d->sleep_until, 0);
}

static void ar_sim_free(struct ar_simdev *d);

static void *ar_sim_thread(void *arg)
{
	struct ar_simdev *d = arg;
	struct ar_sim_ready *r = calloc(1, sizeof(*r));
	uint64_t now, next, target;
	unsigned k, n;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	k = atomic_load_explicit(&d->kick, memory_order_relaxed);
	/* acquire pairs with the release store in ar_sim_destroy() */
	while (r && !atomic_load_explicit(&d->exiting, memory_order_acquire)) {
		unsigned k0 = k;

		/* acquire pairs with the submitter's increment after its push */
		k = atomic_load_explicit(&d->kick, memory_order_acquire);
		now = ar_now_ns();
		if (k != k0)
			d->last_active = now;	/* submissions: stay awake a while */
		pthread_mutex_lock(&d->qlock);
		n = ar_sim_take_due(&d->iq, now, r->v + r->n,
				    AR_SIM_COALESCE_MAX - r->n);
		if (n && !r->n)
			r->first_due = r->v[0]->due_ns;
		r->n += n;
		next = ar_heap_next(&d->iq);
		pthread_mutex_unlock(&d->qlock);
		if (ar_sim_ready_full(d, r, now)) {
			n = r->n;
			r->n = 0;
			ar_sim_deliver(d, r->v, n);
			d->last_active = ar_now_ns();
			continue;
		}
		target = next;
		if (r->n && r->first_due + d->spec.coalesce_ns < target)
			target = r->first_due + d->spec.coalesce_ns;
		ar_sim_wait(d, target, k);
	}
	free(r);
	/* the last reference went while this thread delivered: it frees the device */
	if (d->reap_self) {
		pthread_detach(pthread_self());
		ar_sim_free(d);
	}
	return NULL;
}

/* ---- the fd table ---- */

struct ar_sim_fdchunk {
	_Atomic(struct ar_simdev *) dev[AR_SIM_FD_CHUNK];
};

static _Atomic(struct ar_sim_fdchunk *) ar_sim_fdt[AR_SIM_FD_CHUNKS];
static pthread_mutex_t ar_sim_fd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ar_simdev *ar_sim_live;	/* devices in the table (fd_lock) */
static atomic_int ar_sim_nlive;		/* how many: 0 lets lookups skip all */

static _Atomic(struct ar_simdev *) *ar_sim_slot(int fd, bool create)
{
	unsigned i = (unsigned)fd >> AR_SIM_FD_SHIFT;
	struct ar_sim_fdchunk *c, *expect = NULL;

	if (fd < 0 || i >= AR_SIM_FD_CHUNKS)
		return NULL;
	/* acquire pairs with the release of the CAS below: the chunk is zeroed */
	c = atomic_load_explicit(&ar_sim_fdt[i], memory_order_acquire);
	if (!c && create) {
		c = calloc(1, sizeof(*c));
		if (c && !atomic_compare_exchange_strong_explicit(&ar_sim_fdt[i],
				&expect, c, memory_order_acq_rel, memory_order_acquire)) {
			free(c);
			c = expect;
		}
	}
	return c ? &c->dev[fd & (AR_SIM_FD_CHUNK - 1)] : NULL;
}

static void ar_sim_live_del(struct ar_simdev *d)
{
	struct ar_simdev **pp = &ar_sim_live;

	while (*pp && *pp != d)
		pp = &(*pp)->next;
	if (*pp)
		*pp = d->next;
	atomic_fetch_sub_explicit(&ar_sim_nlive, 1, memory_order_relaxed);
	ar_backend_devices_live(-1);
}

static bool ar_sim_same_file(const struct ar_simdev *d, const struct stat *sb)
{
	return d->st_dev == sb->st_dev && d->st_ino == sb->st_ino;
}

void ar_simdev_ref(struct ar_simdev *d)
{
	atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
}

/* the table entry for fd, checked against the file now behind fd */
static struct ar_simdev *ar_sim_get_checked(int fd, _Atomic(struct ar_simdev *) *slot)
{
	struct ar_simdev *d, *stale = NULL;
	struct stat sb;
	int e = errno;
	bool ok = !fstat(fd, &sb);

	errno = e;
	pthread_mutex_lock(&ar_sim_fd_lock);
	d = atomic_load_explicit(slot, memory_order_relaxed);
	if (d && ok && ar_sim_same_file(d, &sb)) {
		ar_simdev_ref(d);
	} else if (d) {
		/* closed, or the number now names another file */
		atomic_store_explicit(slot, NULL, memory_order_relaxed);
		ar_sim_live_del(d);
		stale = d;
		d = NULL;
	}
	pthread_mutex_unlock(&ar_sim_fd_lock);
	if (stale)
		ar_simdev_put(stale);
	return d;
}

/* a registered file: the engine's own duplicate of a device's fd */
static struct ar_simdev *ar_sim_get_dup(int fd)
{
	struct ar_simdev *d;
	struct stat sb;
	int e = errno;

	if (fstat(fd, &sb)) {
		errno = e;
		return NULL;
	}
	pthread_mutex_lock(&ar_sim_fd_lock);
	for (d = ar_sim_live; d && !ar_sim_same_file(d, &sb); d = d->next)
		;
	if (d)
		ar_simdev_ref(d);
	pthread_mutex_unlock(&ar_sim_fd_lock);
	return d;
}

struct ar_simdev *ar_simdev_get(int fd)
{
	_Atomic(struct ar_simdev *) *slot;

	/* relaxed: creating a device happens before its fd is used (the app's order) */
	if (!atomic_load_explicit(&ar_sim_nlive, memory_order_relaxed))
		return NULL;
	slot = ar_sim_slot(fd, false);
	/* relaxed: only a hint; the entry is read again under the lock */
	if (slot && atomic_load_explicit(slot, memory_order_relaxed))
		return ar_sim_get_checked(fd, slot);
	if (ar_fd_internal(fd))
		return ar_sim_get_dup(fd);
	return NULL;
}

/* Drop the table's entries whose fd was closed (fstat unlocked, as in lookups). */
static void ar_sim_sweep(void)
{
	struct ar_simdev *d, **v;
	unsigned n = 0, cap;

	pthread_mutex_lock(&ar_sim_fd_lock);
	cap = (unsigned)atomic_load_explicit(&ar_sim_nlive, memory_order_relaxed);
	v = cap ? malloc(cap * sizeof(*v)) : NULL;
	for (d = ar_sim_live; v && d && n < cap; d = d->next) {
		ar_simdev_ref(d);
		v[n++] = d;
	}
	pthread_mutex_unlock(&ar_sim_fd_lock);
	for (unsigned i = 0; i < n; i++) {
		_Atomic(struct ar_simdev *) *slot = ar_sim_slot(v[i]->fd, false);

		if (slot && (d = ar_sim_get_checked(v[i]->fd, slot)))
			ar_simdev_put(d);
		ar_simdev_put(v[i]);
	}
	free(v);
}

static int ar_sim_install(struct ar_simdev *d)
{
	_Atomic(struct ar_simdev *) *slot = ar_sim_slot(d->fd, true);
	struct ar_simdev *old;

	if (!slot)
		return d->fd < 0 ? -EBADF : -EMFILE;
	pthread_mutex_lock(&ar_sim_fd_lock);
	old = atomic_load_explicit(slot, memory_order_relaxed);
	if (old)
		ar_sim_live_del(old);	/* its fd was closed: this number is ours now */
	d->next = ar_sim_live;
	ar_sim_live = d;
	atomic_fetch_add_explicit(&ar_sim_nlive, 1, memory_order_relaxed);
	ar_backend_devices_live(1);
	atomic_store_explicit(slot, d, memory_order_relaxed);
	pthread_mutex_unlock(&ar_sim_fd_lock);
	if (old)
		ar_simdev_put(old);
	return 0;
}

/* ---- lifecycle ---- */

static void ar_sim_free(struct ar_simdev *d)
{
	ar_sim_store_destroy(&d->store);
	ar_sim_spec_free(&d->spec);
	free(d->slots);
	free(d->pq.v);
	free(d->iq.v);
	pthread_mutex_destroy(&d->qlock);
	free(d);
}

static void ar_sim_destroy(struct ar_simdev *d)
{
	/* acquire pairs with the release in anyring_simdev_create(): d->thread is set */
	if (atomic_load_explicit(&d->thr_state, memory_order_acquire) == 2) {
		if (pthread_equal(pthread_self(), d->thread)) {
			d->reap_self = true;
			atomic_store_explicit(&d->exiting, true, memory_order_release);
			return;
		}
		/* release: the thread's last loads of the device come before the free */
		atomic_store_explicit(&d->exiting, true, memory_order_release);
		atomic_fetch_add(&d->kick, 1);	/* a sleeping thread wakes to see it */
		ar_futex_wake(&d->kick, 1);
		pthread_join(d->thread, NULL);
	}
	ar_sim_free(d);
}

void ar_simdev_put(struct ar_simdev *d)
{
	/* acq_rel: the last one sees every other holder's writes */
	if (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) == 1)
		ar_sim_destroy(d);
}

/*
 * The device's fd: an O_PATH fd of a new memfd (a unique inode), so a
 * real kernel ring answers -EBADF on it. Without /proc, the memfd itself
 * (read returns 0 there, write -EPERM: sealed empty).
 */
static int ar_sim_make_fd(struct ar_simdev *d)
{
	char path[64];
	struct stat sb;
	int mfd, fd;

	mfd = (int)syscall(SYS_memfd_create, "anyring-simdev",
			   MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		close(mfd);
	} else {
		fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		      F_SEAL_WRITE | F_SEAL_SEAL);
		fd = mfd;
	}
	if (fstat(fd, &sb)) {
		int err = -errno;

		close(fd);
		return err;
	}
	d->st_dev = sb.st_dev;
	d->st_ino = sb.st_ino;
	d->fd = fd;
	return fd;
}

static int ar_sim_setup(struct ar_simdev *d, const char *spec)
{
	int ret = ar_sim_spec_parse(spec, &d->spec);

	if (ret)
		return ret;
	ret = ar_sim_store_init(&d->store, &d->spec);
	if (ret) {
		ar_sim_spec_free(&d->spec);
		return ret;
	}
	if (d->spec.qd && !(d->slots = calloc(d->spec.qd, sizeof(*d->slots)))) {
		ar_sim_store_destroy(&d->store);
		ar_sim_spec_free(&d->spec);
		return -ENOMEM;
	}
	ar_sim_rng_seed(&d->rng_lat, d->spec.seed, 1);
	ar_sim_rng_seed(&d->rng_fault, d->spec.seed, 2);
	pthread_mutex_init(&d->qlock, NULL);
	atomic_init(&d->pq_next, UINT64_MAX);
	atomic_init(&d->refs, 1);	/* the fd table's */
	d->wake_late = AR_SIM_SPIN_INIT_NS;
	return 0;
}

AR_EXPORT int anyring_simdev_create(const char *spec)
{
	struct ar_simdev *d = calloc(1, sizeof(*d));
	int ret, fd;

	if (!d)
		return -ENOMEM;
	ret = ar_sim_setup(d, spec);
	if (ret) {
		free(d);
		return ret;
	}
	fd = ar_sim_make_fd(d);
	if (fd < 0) {
		ar_sim_free(d);
		return fd;
	}
	if (ar_thread_create(&d->thread, ar_sim_thread, d)) {
		close(fd);
		ar_sim_free(d);
		return -EAGAIN;
	}
	/* release: pairs with the acquire in ar_sim_destroy() */
	atomic_store_explicit(&d->thr_state, 2, memory_order_release);
	ar_sim_sweep();
	ret = ar_sim_install(d);
	if (ret) {
		close(fd);
		ar_simdev_put(d);
		return ret;
	}
	ar_debug("simdev fd %d: %s", fd, spec);
	return fd;
}

AR_EXPORT int anyring_simdev_power_loss(int fd)
{
	struct ar_simdev *d = ar_simdev_get(fd);
	int ret;

	if (!d)
		return fcntl(fd, F_GETFD) < 0 ? -EBADF : -EINVAL;
	ret = ar_sim_store_power_loss(&d->store);
	ar_simdev_put(d);
	return ret;
}
