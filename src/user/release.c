/* SPDX-License-Identifier: MIT */
/*
 * release.c - a ring ends when its fd is closed for the last time, as
 * the kernel's io_uring_release() ends it at the file's last fput().
 *
 * A user ring's fd is one end of an AF_UNIX socket pair; the engine
 * holds the other (ctx->peer_fd) and writes it to make the ring's fd
 * readable (lib/ringfd.h). When the program's end goes for good (its
 * last close() or close_range(), exec, the exit of the last process
 * holding it), the kernel shuts the pair down and the engine's end polls
 * EPOLLHUP. One thread per process sleeps on an epoll set of those ends
 * and ends each ring it finds hung up. A program that ends its ring with
 * io_uring_queue_exit() ends it at once, in the call, as before: the
 * ring leaves the set then (ar_release_unwatch()).
 *
 * A ring the program still maps itself (the trap's mappings) lives on, as
 * the kernel's lives while mapped: the thread looks at the process's
 * mappings again every 100 ms until they are gone.
 *
 * The thread is made with the process's first user ring and lives as
 * long as the process: one thread, not one per ring. A ring ended by the
 * library leaves the set at once and closes the engine's end in the
 * call, so that no fd of it is left when io_uring_queue_exit() returns.
 * A forked child makes its own with its first ring (its parent's rings
 * are copies that refuse every call there: docs/semantics.md D2).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include "lib/clock.h"
#include "lib/thread.h"
#include "engine/engine.h"
#include "user/types.h"
#include "user/ctx.h"
#include "user/release.h"
#include "user/ringfd.h"

#define AR_RELEASE_BATCH	16
#define AR_RELEASE_KICK		64	/* entries left to free before a kick */
/* a ring closed while the program still maps it: looked at this often */
#define AR_RELEASE_MAPPED_MS	100

/*
 * The epoll set's handle on a ring. The watcher may hold one from an
 * epoll_wait() that returned before the ring ended, so an entry is
 * freed only by the watcher, after the batch it may be in: a ring that
 * ends unhooks its entry (ctx NULL) onto the zombie list, and the
 * watcher frees that list after each batch. Under ar_release_lock.
 */
struct ar_release_entry {
	struct ar_uctx *ctx;		/* NULL once the ring ended */
	struct ar_release_entry *next;	/* on the zombie list */
};

static pthread_mutex_t ar_release_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t ar_release_once = PTHREAD_ONCE_INIT;
static int ar_release_ep = -1;
static int ar_release_kick_fd = -1;	/* in the set: free the zombies */
static struct ar_release_entry *ar_release_zombies;
static unsigned ar_release_nr_zombies;

/*
 * Rings whose fd is closed while the program still maps them itself (the
 * trap's mappings): the kernel's lives on until the last munmap(), which
 * nothing reports, so the watcher looks again every AR_RELEASE_MAPPED_MS
 * while there are any. Each holds a reference. The watcher's own.
 */
struct ar_release_mapped {
	struct ar_uctx *ctx;
	struct ar_release_mapped *next;
};
static struct ar_release_mapped *ar_release_still_mapped;

/*
 * Rings whose fd the trap's program may poll with raw system calls, to
 * be looked at (svc.c says why): here, one thread for the process, not
 * one per ring. Under ar_release_lock; each holds a reference.
 */
static struct ar_uctx *ar_release_fdchecks;
#define AR_FDCHECK_FIRST_MS	1
#define AR_FDCHECK_MAX_MS	64

/*
 * A fork while this thread frees or allocates memory. glibc's malloc
 * locks its arenas around fork(), but the ASan runtime of Debian 12's
 * GCC does not lock its allocator: a child forked while this thread is
 * in it inherits the allocator locked, and hangs at its first
 * allocation (api-procs under ASan, about 1 run in 60 on a busy
 * machine). Under ASan, a fork waits for this thread's batch of work
 * (ending rings, freeing entries) to end, and the thread starts none
 * while a fork is on the way. The wait is bounded (100 ms): the batch
 * may itself wait for a lock the forking thread holds in another
 * prepare handler. busy and forking: Dekker's pattern, seq_cst.
 */
#if defined(__SANITIZE_ADDRESS__)
#define AR_RELEASE_FORK_QUIET	1
#else
#define AR_RELEASE_FORK_QUIET	0
#endif
#define AR_RELEASE_FORK_WAIT_US	100
#define AR_RELEASE_FORK_WAITS	1000

static atomic_bool ar_release_busy;
static atomic_uint ar_release_forking;	/* forks on the way (threads may fork at once) */

static void ar_release_work_begin(void)
{
	if (!AR_RELEASE_FORK_QUIET)
		return;
	for (;;) {
		/* seq_cst: pairs with the prepare's store of forking, then load of busy */
		atomic_store_explicit(&ar_release_busy, true, memory_order_seq_cst);
		if (!atomic_load_explicit(&ar_release_forking, memory_order_seq_cst))
			return;
		atomic_store_explicit(&ar_release_busy, false, memory_order_seq_cst);
		/* relaxed: the loop above decides, with seq_cst */
		while (atomic_load_explicit(&ar_release_forking, memory_order_relaxed))
			usleep(AR_RELEASE_FORK_WAIT_US);
	}
}

static void ar_release_work_end(void)
{
	if (AR_RELEASE_FORK_QUIET)
		atomic_store_explicit(&ar_release_busy, false, memory_order_seq_cst);
}

/* the parent's thread is not the child's: the child makes its own */
static void ar_release_atfork_prepare(void)
{
	if (AR_RELEASE_FORK_QUIET) {
		atomic_fetch_add_explicit(&ar_release_forking, 1, memory_order_seq_cst);
		for (int i = 0; i < AR_RELEASE_FORK_WAITS &&
		     atomic_load_explicit(&ar_release_busy, memory_order_seq_cst); i++)
			usleep(AR_RELEASE_FORK_WAIT_US);
	}
	pthread_mutex_lock(&ar_release_lock);
}

static void ar_release_atfork_parent(void)
{
	pthread_mutex_unlock(&ar_release_lock);
	/* relaxed: the thread only waits while it sees a fork; it looks again */
	if (AR_RELEASE_FORK_QUIET)
		atomic_fetch_sub_explicit(&ar_release_forking, 1, memory_order_relaxed);
}

static void ar_release_atfork_child(void)
{
	struct ar_release_entry *e;

	/* the set is the parent's (an epoll fd shares it): not this one's */
	ar_internal_close(ar_release_ep);
	ar_internal_close(ar_release_kick_fd);
	ar_release_ep = ar_release_kick_fd = -1;
	while ((e = ar_release_zombies)) {
		ar_release_zombies = e->next;
		free(e);
	}
	ar_release_nr_zombies = 0;
	/*
	 * The parent's rings, nothing of the child's to end. Dropped, not
	 * walked: the parent's watcher may have been changing the list.
	 */
	ar_release_still_mapped = NULL;
	ar_release_fdchecks = NULL;
	/* relaxed: the child has one thread; its release thread is made later */
	atomic_store_explicit(&ar_release_busy, false, memory_order_relaxed);
	atomic_store_explicit(&ar_release_forking, 0, memory_order_relaxed);
	pthread_mutex_unlock(&ar_release_lock);
}

static void ar_release_init(void)
{
	pthread_atfork(ar_release_atfork_prepare, ar_release_atfork_parent,
		       ar_release_atfork_child);
}

static void ar_release_try(struct ar_uctx *ctx);

/*
 * One batch: the rings whose program end hung up, each with a reference
 * taken under the lock (the fd's own reference keeps the ring until it
 * ends, and its end unhooks the entry first); then the zombies, which
 * no later batch can hold. The rings are ended with the lock dropped:
 * their end takes it to unhook them.
 */
static void ar_release_batch(const struct epoll_event *ev, int n)
{
	struct ar_uctx *hung[AR_RELEASE_BATCH];
	struct ar_release_entry *e, *z;
	unsigned nr = 0;
	uint64_t v;
	int i;

	pthread_mutex_lock(&ar_release_lock);
	for (i = 0; i < n; i++) {
		e = ev[i].data.ptr;
		if (!e) {
			(void)!read(ar_release_kick_fd, &v, sizeof(v));
			continue;
		}
		if (e->ctx) {
			ar_uctx_get(e->ctx);
			hung[nr++] = e->ctx;
		}
	}
	z = ar_release_zombies;
	ar_release_zombies = NULL;
	ar_release_nr_zombies = 0;
	pthread_mutex_unlock(&ar_release_lock);
	while ((e = z)) {
		z = e->next;
		free(e);
	}
	for (i = 0; i < (int)nr; i++)
		ar_release_try(hung[i]);
}

/* end ctx if its program end is gone for good, else keep it to look again */
static void ar_release_try(struct ar_uctx *ctx)
{
	struct ar_release_mapped *m;

	if (ar_user_release(ctx) || !(m = malloc(sizeof(*m)))) {
		ar_uctx_put(ctx);
		return;
	}
	m->ctx = ctx;	/* the reference goes with it */
	m->next = ar_release_still_mapped;
	ar_release_still_mapped = m;
}

/* the rings the program still mapped: ended once it no longer does */
static void ar_release_look_again(void)
{
	struct ar_release_mapped *m = ar_release_still_mapped, *next;

	ar_release_still_mapped = NULL;
	for (; m; m = next) {
		next = m->next;
		ar_release_try(m->ctx);
		free(m);
	}
}

/* the earliest look due, 0 none; under ar_release_lock */
static __u64 ar_release_fdcheck_due(void)
{
	__u64 due = 0;

	for (struct ar_uctx *c = ar_release_fdchecks; c; c = c->fdcheck_next)
		if (!due || c->fdcheck_due < due)
			due = c->fdcheck_due;
	return due;
}

/*
 * The looks that are due: the ring fd reset if the CQ is empty (the ring
 * leaves the list), else looked at again later, at a doubling interval.
 * A ring that ended leaves it.
 */
static void ar_release_fdcheck_run(void)
{
	struct ar_uctx *due = NULL, **pp, *c;
	__u64 now = ar_now_ns();
	bool idle;

	pthread_mutex_lock(&ar_release_lock);
	for (pp = &ar_release_fdchecks; (c = *pp);) {
		if (c->fdcheck_due > now) {
			pp = &c->fdcheck_next;
			continue;
		}
		*pp = c->fdcheck_next;
		c->fdcheck_next = due;
		due = c;
	}
	pthread_mutex_unlock(&ar_release_lock);
	while ((c = due)) {
		due = c->fdcheck_next;
		idle = true;
		if (!ar_uctx_dead(c)) {
			/* acquire pairs with the posters' release of the CQ tail */
			idle = IO_URING_READ_ONCE(c->rings->cq.head) ==
			       io_uring_smp_load_acquire(&c->rings->cq.tail);
			if (idle)
				ar_user_cq_idle(c);
		}
		pthread_mutex_lock(&ar_release_lock);
		if (idle) {
			c->fdcheck_queued = false;
		} else {
			if (c->fdcheck_ival_ms < AR_FDCHECK_MAX_MS)
				c->fdcheck_ival_ms *= 2;
			c->fdcheck_due = now + c->fdcheck_ival_ms * 1000000ULL;
			c->fdcheck_next = ar_release_fdchecks;
			ar_release_fdchecks = c;
		}
		pthread_mutex_unlock(&ar_release_lock);
		if (idle)
			ar_uctx_put(c);
	}
}

int ar_release_fdcheck(struct ar_uctx *ctx)
{
	uint64_t one = 1;
	bool kick = false;
	__u64 due;

	pthread_mutex_lock(&ar_release_lock);
	if (ar_release_ep < 0) {
		pthread_mutex_unlock(&ar_release_lock);
		return -ENOTSUP;	/* no thread here (TSan): svc.c's */
	}
	if (!ctx->fdcheck_queued) {
		due = ar_release_fdcheck_due();
		ar_uctx_get(ctx);
		ctx->fdcheck_queued = true;
		ctx->fdcheck_ival_ms = AR_FDCHECK_FIRST_MS;
		ctx->fdcheck_due = ar_now_ns() + AR_FDCHECK_FIRST_MS * 1000000ULL;
		ctx->fdcheck_next = ar_release_fdchecks;
		ar_release_fdchecks = ctx;
		/* the thread sleeps until the earliest: wake it for an earlier one */
		kick = !due || ctx->fdcheck_due < due;
	}
	pthread_mutex_unlock(&ar_release_lock);
	if (kick)
		(void)!write(ar_release_kick_fd, &one, sizeof(one));
	return 0;
}

static void *ar_release_main(void *arg)
{
	struct epoll_event ev[AR_RELEASE_BATCH];
	int ep = (int)(long)arg, n;
	uint64_t now, last = 0;

	prctl(PR_SET_NAME, (unsigned long)"anyring-release", 0, 0, 0);
	for (;;) {
		int tmo = ar_release_still_mapped ? AR_RELEASE_MAPPED_MS : -1;
		__u64 due;

		pthread_mutex_lock(&ar_release_lock);
		due = ar_release_fdcheck_due();
		pthread_mutex_unlock(&ar_release_lock);
		if (due) {
			now = ar_now_ns();
			/* whole milliseconds, rounded up: never early */
			due = due > now ? (due - now + 999999) / 1000000 : 0;
			if (tmo < 0 || due < (__u64)tmo)
				tmo = (int)due;
		}
		n = epoll_wait(ep, ev, AR_RELEASE_BATCH, tmo);
		if (n < 0 && errno != EINTR)
			return NULL;	/* EBADF: the set is gone (cannot happen) */
		ar_release_work_begin();
		if (n > 0)
			ar_release_batch(ev, n);
		ar_release_fdcheck_run();
		now = ar_now_ns();
		if (ar_release_still_mapped &&
		    now - last >= AR_RELEASE_MAPPED_MS * 1000000ULL) {
			ar_release_look_again();
			last = now;
		}
		ar_release_work_end();
	}
}

/* the set, made with its thread on first use; under ar_release_lock */
static int ar_release_set(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	pthread_t t;
	int ep, kfd;

	if (ar_release_ep >= 0)
		return ar_release_ep;
#if defined(__SANITIZE_THREAD__)
	/*
	 * ThreadSanitizer kills a child that starts a thread after a fork
	 * of a multi-threaded process, and this thread would make every
	 * later fork one: TSan builds have none, and their rings end with
	 * io_uring_queue_exit() only (the plain and ASan runs test this).
	 */
	return -ENOTSUP;
#endif
	ep = ar_internal_claim(ar_fd_high(epoll_create1(EPOLL_CLOEXEC)));
	if (ep < 0)
		return -errno;
	kfd = ar_internal_claim(ar_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)));
	if (kfd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, kfd, &ev) ||
	    ar_thread_create(&t, ar_release_main, (void *)(long)ep)) {
		ar_internal_close(kfd);
		ar_internal_close(ep);
		return -EAGAIN;
	}
	pthread_detach(t);
	ar_release_kick_fd = kfd;
	ar_release_ep = ep;
	return ep;
}

/*
 * Watch ctx's fd. 0, or -errno when no thread could be made (the ring
 * then ends only with io_uring_queue_exit(), or the trap's sweep).
 */
/* a forked child's copy of the parent's entry: the child has no watch of it (fork.c) */
void ar_release_forget(struct ar_uctx *ctx)
{
	free(ctx->release);
	ctx->release = NULL;
}

int ar_release_watch(struct ar_uctx *ctx)
{
	/*
	 * No event asked for: EPOLLHUP comes anyway, and the engine's end
	 * is never read, so nothing else would. One-shot: a ring whose end
	 * is another thread's to make is not reported again meanwhile.
	 */
	struct epoll_event ev = { .events = EPOLLONESHOT };
	struct ar_release_entry *e = calloc(1, sizeof(*e));
	int ep, ret = 0;

	if (!e)
		return -ENOMEM;
	e->ctx = ctx;
	ev.data.ptr = e;
	/*
	 * The thread reads /proc/self/maps when the ring's fd is closed:
	 * its fd is opened now, in the program's own call, and not then,
	 * when it would take the number the closed ring leaves free.
	 */
	ar_proc_maps_fd();
	pthread_once(&ar_release_once, ar_release_init);
	pthread_mutex_lock(&ar_release_lock);
	ep = ar_release_set();
	if (ep < 0)
		ret = ep;
	else if (epoll_ctl(ep, EPOLL_CTL_ADD, ctx->peer_fd, &ev))
		ret = -errno;
	else
		ctx->release = e;
	pthread_mutex_unlock(&ar_release_lock);
	if (ret)
		free(e);
	return ret;
}

/*
 * The ring ends (ctx.c, before the engine's end is closed): out of the
 * set, and its entry left for the watcher to free.
 */
void ar_release_unwatch(struct ar_uctx *ctx)
{
	struct ar_release_entry *e;
	uint64_t one = 1;
	bool kick;

	pthread_mutex_lock(&ar_release_lock);
	e = ctx->release;
	kick = false;
	if (e) {
		ctx->release = NULL;
		epoll_ctl(ar_release_ep, EPOLL_CTL_DEL, ctx->peer_fd, NULL);
		e->ctx = NULL;
		e->next = ar_release_zombies;
		ar_release_zombies = e;
		kick = ++ar_release_nr_zombies == AR_RELEASE_KICK;
	}
	pthread_mutex_unlock(&ar_release_lock);
	if (kick)
		(void)!write(ar_release_kick_fd, &one, sizeof(one));
}
