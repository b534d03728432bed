/* SPDX-License-Identifier: MIT */
/*
 * ringfd.c - the readiness of a user ring's fd (docs/semantics.md D1).
 *
 * The kernel's ring fd polls POLLIN exactly while the CQ holds CQEs or
 * work is pending, because io_uring_poll() looks when it is polled. A
 * user ring's fd is a socket, kept by the protocol of lib/ringfd.h:
 * posters make it readable (ar_ring_fd_signal()), and it is reset when
 * the ring is found with nothing pending. The program reaps the CQ from
 * memory, so the engine is not told when that happens; what it is told
 * is when the program is about to sleep on fds: libc's poll, select and
 * epoll_wait families (engine/pollhook.c) call ar_user_prepoll() first,
 * which looks at every ring whose fd is signalled and resets the ones
 * with nothing pending, as the kernel's poll would find them. Those
 * rings are on a list that posters push to when they signal, so the
 * look costs one load while no ring fd is signalled.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "lib/ringfd.h"
#include "lib/thread.h"
#include "user/fork.h"
#include "user/types.h"
#include "user/tw.h"
#include "user/ctx.h"
#include "user/svc.h"
#include "user/poll.h"

/* rings whose fd was signalled since a look; each holds a reference */
static _Atomic(struct ar_uctx *) ar_signalled;
/* a poll-family hook has run in this process (engine/pollhook.c) */
static atomic_bool ar_prepoll_seen;
static pthread_once_t ar_ringfd_once = PTHREAD_ONCE_INIT;

/* the rings are the parent's: the child neither looks at nor resets them */
static void ar_ringfd_atfork_child(void)
{
	atomic_store_explicit(&ar_signalled, NULL, memory_order_relaxed);
}

static void ar_ringfd_list_init(void)
{
	pthread_atfork(NULL, NULL, ar_ringfd_atfork_child);
}

/*
 * The kernel's io_uring_poll() POLLIN test: CQEs, an overflow backlog,
 * and work only the ring's task will post. With complete=inline or punt
 * the task list holds completions for a moment only (a submit's thread
 * or the completion thread posts them, and signals then), so it does
 * not count: a loop woken for it would find the CQ empty. With
 * complete=deferred it waits for an enter, which the woken loop makes
 * (liburing's peek sees IORING_SQ_TASKRUN).
 */
static bool ar_ring_pending(void *arg)
{
	struct ar_uctx *ctx = arg;

	/* acquire pairs with the posters' release of the CQ tail */
	return IO_URING_READ_ONCE(ctx->rings->cq.head) !=
	       io_uring_smp_load_acquire(&ctx->rings->cq.tail) ||
	       (__atomic_load_n(&ctx->rings->sq_flags, __ATOMIC_RELAXED) &
		IORING_SQ_CQ_OVERFLOW) ||
	       (ar_tw_by_task(ctx) &&
		atomic_load_explicit(&ctx->tw_head, memory_order_relaxed));
}

/* onto the list, with the reference the caller took for it */
static void ar_signalled_link(struct ar_uctx *ctx)
{
	struct ar_uctx *head;

	head = atomic_load_explicit(&ar_signalled, memory_order_relaxed);
	do {
		ctx->rfd_next = head;
		/* release: rfd_next is set before the ring is seen on the list */
	} while (!atomic_compare_exchange_weak_explicit(&ar_signalled, &head, ctx,
							memory_order_release,
							memory_order_relaxed));
}

/*
 * rfd_listed hands the ring's rfd_next from thread to thread: whoever
 * raises it owns rfd_next until the ring is on the list, and a popper
 * that lowers it is done with rfd_next. acquire pairs with that release.
 */
/* rings a look took off the list and keeps, chained by rfd_next: back on */
static void ar_signalled_relink(struct ar_uctx *keep)
{
	struct ar_uctx *ctx;

	while ((ctx = keep)) {
		keep = ctx->rfd_next;
		ar_signalled_link(ctx);
	}
}

static void ar_signalled_push(struct ar_uctx *ctx)
{
	if (atomic_exchange_explicit(&ctx->rfd_listed, true, memory_order_acquire))
		return;
	ar_uctx_get(ctx);
	ar_signalled_link(ctx);
}

/*
 * A DEFER_TASKRUN ring's completions may wait in the AIO ring for its
 * task, which ar_ring_pending() does not see: only its task's enter
 * resets its fd.
 */
static bool ar_ring_fd_lookable(const struct ar_uctx *ctx)
{
	return !(ctx->flags & IORING_SETUP_DEFER_TASKRUN);
}

/* after CQEs were posted or work queued: see complete.c ar_cq_wake() */
/*
 * A signal was armed: the ring goes on the list before the write, so a
 * thread that the write wakes, and that then polls again with the CQ
 * reaped, finds the ring to look at.
 */
static void ar_ring_armed(void *arg)
{
	struct ar_uctx *ctx = arg;

	if (!ar_ring_fd_lookable(ctx))
		return;
	pthread_once(&ar_ringfd_once, ar_ringfd_list_init);
	ar_signalled_push(ctx);
}

/*
 * The ring's fd: the program's end of a socket pair (ctx->ring_fd),
 * which the engine makes readable by writing its own end (ctx->peer_fd,
 * one of the library's fds), and whose hang-up tells the engine that
 * the program's end is closed for good (release.c). Both nonblocking:
 * neither a reset nor a signal ever waits.
 */
int ar_ring_fd_make(struct ar_uctx *ctx)
{
	struct stat st;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       sv))
		return -errno;
	ctx->ring_fd = sv[0];
	if (!fstat(sv[0], &st))
		ctx->ring_ino = st.st_ino;
	/* the kernel's ring costs the program one fd: the other end goes high */
	ctx->peer_fd = ar_internal_claim(ar_fd_high(sv[1]));
	ar_ringfd_init(&ar_sh(ctx)->rfd, ctx->peer_fd);
	return 0;
}

/*
 * The number is still the ring's socket: a ring whose fd the program
 * closed is ended by the release thread (release.c) a moment later, and
 * meanwhile a file that took the number must not lose bytes to a reset.
 * One fstat per reset.
 */
static bool ar_ring_fd_same(void *arg, int fd)
{
	struct ar_uctx *ctx = arg;
	struct stat st;
	int e = errno;
	bool same = !fstat(fd, &st) && S_ISSOCK(st.st_mode) &&
		    st.st_ino == ctx->ring_ino;

	errno = e;
	return same;
}

static const struct ar_ringfd_ops ar_ring_fd_ops = {
	.pending = ar_ring_pending,
	.armed = ar_ring_armed,
	.same = ar_ring_fd_same,
};

void ar_ring_fd_signal(struct ar_uctx *ctx)
{
	if (!ar_ringfd_signal(&ar_sh(ctx)->rfd, &ctx->ring_fd, &ar_ring_fd_ops, ctx))
		return;
	ar_poll_readied = true;
	if (!ar_ring_fd_lookable(ctx))
		return;
	/*
	 * A program the trap serves may poll the ring fd with raw system
	 * calls, which no hook sees: the service thread looks instead
	 * (svc.c). Not once its fd was seen in an epoll set, nor once the
	 * program was seen sleeping through libc. The eventfd load is
	 * relaxed: a hint, as in ar_user_cq_idle(), which looks again.
	 */
	if (ar_trap_active() &&
	    !atomic_load_explicit(&ctx->rfd_hooked, memory_order_relaxed) &&
	    !atomic_load_explicit(&ar_prepoll_seen, memory_order_relaxed) &&
	    __atomic_load_n(&ctx->eventfd, __ATOMIC_RELAXED) < 0)
		ar_svc_fdcheck(ctx);
}

/*
 * The ring was found with nothing pending, or may have been: the fd is
 * reset unless CQEs, task work or a backlog are there after all.
 */
/*
 * A clear by a thread of this process, counted: a forked ring's fd
 * readiness word is other processes' too, and its busy bit may be held
 * by one that was killed, so its end waits for this count to drop, not
 * for the bit (ar_ring_fd_shut()).
 */
static bool ar_ring_fd_clear_et(struct ar_uctx *ctx, bool et)
{
	bool ret;

	/*
	 * The RMW, then the barrier, before the clear's load of ring_fd:
	 * pairs with the fence in ar_ring_fd_shut() between its store of
	 * ring_fd = -1 and its look at the count.
	 */
	atomic_fetch_add_explicit(&ctx->rfd_clearing, 1, memory_order_seq_cst);
	ar_wake_mb_after_rmw();
	ret = ar_ringfd_clear(&ar_sh(ctx)->rfd, &ctx->ring_fd, &ar_ring_fd_ops,
			      ctx, et);
	/* release: the clear's reads are done before the count says so */
	atomic_fetch_sub_explicit(&ctx->rfd_clearing, 1, memory_order_release);
	return ret;
}

void ar_ring_fd_clear(struct ar_uctx *ctx)
{
	ar_ring_fd_clear_et(ctx, false);
}

/*
 * The program found the CQ empty through liburing and goes back to its
 * own loop without waiting (a peek that found nothing, a submit that
 * does not wait). Left alone: a ring with a registered eventfd whose
 * fd nobody was seen polling (its loop polls the eventfd; the reset
 * would cost a read and a write per round), and DEFER_TASKRUN rings.
 */
void ar_user_cq_idle(void *obj)
{
	struct ar_uctx *ctx = obj;

	if (!ar_ringfd_signalled(&ar_sh(ctx)->rfd) || !ar_ring_fd_lookable(ctx) ||
	    (__atomic_load_n(&ctx->eventfd, __ATOMIC_RELAXED) >= 0 &&
	     !atomic_load_explicit(&ctx->rfd_hooked, memory_order_relaxed)))
		return;
	/* a signal handler's read meanwhile skips the look (pollhook.c) */
	ar_hook_off_enter();
	ar_ring_fd_clear(ctx);
	ar_hook_off_leave();
}

/*
 * The ring's fd went into an epoll set (libc's epoll_ctl, or an
 * EPOLL_CTL request), edge-triggered or not. An edge-triggered poller
 * of the kernel's ring fd gets an event for every post; here one comes
 * for each reset and signal, so a look that finds CQEs still waiting
 * cycles the fd to make a new edge rather than leave the poller asleep.
 */
void ar_user_fd_polled(void *obj, unsigned events)
{
	struct ar_uctx *ctx = obj;

	/* hints, relaxed: a look that misses them only cycles or looks later */
	if (events & EPOLLET)
		atomic_store_explicit(&ctx->rfd_et, true, memory_order_relaxed);
	atomic_store_explicit(&ctx->rfd_hooked, true, memory_order_relaxed);
}

/* one ring off the list: true to keep it there */
static bool ar_prepoll_one(struct ar_uctx *ctx)
{
	bool et;

	/* acquire pairs with the release that sets dead in ar_user_end() */
	if (atomic_load_explicit(&ctx->dead, memory_order_acquire))
		return false;
	et = atomic_load_explicit(&ctx->rfd_et, memory_order_relaxed);
	return ar_ring_fd_clear_et(ctx, et);
}

/*
 * A thread of the program is about to sleep on fds (engine/pollhook.c):
 * every signalled ring fd is made to poll as the kernel's would now.
 * Rings with CQEs still waiting stay signalled and listed.
 */
void ar_user_prepoll(void)
{
	struct ar_uctx *ctx, *next, *keep = NULL;
	struct ar_quiet q;

	/* a hint for ar_ring_fd_signal(): relaxed, stored once */
	if (!atomic_load_explicit(&ar_prepoll_seen, memory_order_relaxed))
		atomic_store_explicit(&ar_prepoll_seen, true, memory_order_relaxed);
	/* readiness a DEFER_TASKRUN ring's task is to be told of (poll.c) */
	ar_poll_prepoll();
	/* a look without the exchange; the exchange below is the acquire */
	if (!atomic_load_explicit(&ar_signalled, memory_order_relaxed))
		return;
	/* no cancel acts and errno stays while rings are looked at */
	ar_quiet_enter(&q);
	/* acquire pairs with the pushers' release: their rfd_next */
	ctx = atomic_exchange_explicit(&ar_signalled, NULL, memory_order_acquire);
	for (; ctx; ctx = next) {
		next = ctx->rfd_next;
		/*
		 * Off the list before the look: a poster that signals after
		 * it pushes the ring again. seq_cst, ordered before the
		 * look's own barrier (lib/ringfd.h); its release half hands
		 * rfd_next over (ar_signalled_push()).
		 */
		atomic_store_explicit(&ctx->rfd_listed, false, memory_order_seq_cst);
		if (ar_prepoll_one(ctx) && ar_ringfd_signalled(&ar_sh(ctx)->rfd)) {
			/* acquire: as in ar_signalled_push() */
			if (!atomic_exchange_explicit(&ctx->rfd_listed, true,
						      memory_order_acquire)) {
				ctx->rfd_next = keep;
				keep = ctx;
				continue;	/* its reference goes with it */
			}
		}
		ar_uctx_put(ctx);
	}
	/* the kept ones go back on the list, their references with them */
	ar_signalled_relink(keep);
	ar_quiet_leave(&q);
}

/*
 * The ring ends (ctx.c, after ctx->dead and ring_fd = -1): no clearer
 * uses its fd number past this, and the list lets go of ended rings, so
 * their memory goes now, not at the program's next poll.
 */
void ar_ring_fd_shut(struct ar_uctx *ctx)
{
	struct ar_uctx *c, *next, *keep = NULL;

	if (ar_ring_forked(ctx)) {
		/*
		 * Other processes' rings go on, and a killed one may hold
		 * busy: this process's clearers are waited for. The fence
		 * pairs with the one after their count's increment.
		 */
		atomic_thread_fence(memory_order_seq_cst);
		/* acquire pairs with the clearers' release decrement */
		while (atomic_load_explicit(&ctx->rfd_clearing, memory_order_acquire))
			sched_yield();
	} else {
		ar_ringfd_shut(&ar_sh(ctx)->rfd);
	}
	/*
	 * Relaxed: no poster is left to list it. A look that has it off
	 * the list (flag down) drops it itself, seeing it dead.
	 */
	if (!atomic_load_explicit(&ctx->rfd_listed, memory_order_relaxed))
		return;
	/* acquire pairs with the pushers' release: their rfd_next */
	c = atomic_exchange_explicit(&ar_signalled, NULL, memory_order_acquire);
	for (; c; c = next) {
		next = c->rfd_next;
		/* acquire pairs with the release that sets dead in ar_user_end() */
		if (atomic_load_explicit(&c->dead, memory_order_acquire)) {
			/* stays "listed": nothing pushes an ended ring again */
			ar_uctx_put(c);
			continue;
		}
		c->rfd_next = keep;
		keep = c;
	}
	ar_signalled_relink(keep);
}
