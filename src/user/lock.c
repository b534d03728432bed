/* SPDX-License-Identifier: MIT */
/*
 * lock.c - turning ctx->lock's issuer bias on, and revoking it (lock.h).
 *
 * Why a biased section excludes a revoker without a fence in the issuer.
 * The issuer stores issuer_in = 1, then loads lock_bias. The revoker
 * moves lock_bias from ON to REVOKING (a locked instruction: a full
 * barrier), calls membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * returns only after every running thread of the process has executed a
 * full barrier (a thread not running passes one in the context switch),
 * then loads issuer_in.
 *   - If the issuer's barrier came after its store, the store is visible
 *     when membarrier() returns: the revoker sees issuer_in set and waits
 *     for the release store that ends the section.
 *   - If it came before the store, the issuer's load of lock_bias comes
 *     after that barrier, which came after the revoker's exchange: it
 *     sees REVOKING and takes the spinlock instead.
 * Afterwards the bias is OFF for good and every holder takes the
 * spinlock, which the revoker takes last.
 *
 * Where membarrier() is refused after the bias was turned on (a seccomp
 * filter installed later), the barrier comes from a TLB shootdown: taking
 * write access away from a page this process wrote makes the kernel
 * interrupt every CPU that runs one of its threads.
 */
#include <stdlib.h>
#include <stdio.h>
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "user/fork.h"
#include "user/lock.h"

static atomic_int ar_membarrier_state;	/* 0 not asked, 1 registered, -1 refused */

static long ar_membarrier(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

/* can this process use MEMBARRIER_CMD_PRIVATE_EXPEDITED? Asked once. */
static bool ar_membarrier_ready(void)
{
	int state = atomic_load_explicit(&ar_membarrier_state, memory_order_relaxed);
	long cmds;

	if (state)
		return state > 0;
	cmds = ar_membarrier(MEMBARRIER_CMD_QUERY);
	state = cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		!ar_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) &&
		!ar_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) ? 1 : -1;
	/* relaxed: a cache of what the kernel says; asking twice is harmless */
	atomic_store_explicit(&ar_membarrier_state, state, memory_order_relaxed);
	return state > 0;
}

static pthread_mutex_t ar_shootdown_lock = PTHREAD_MUTEX_INITIALIZER;
static char *ar_shootdown_page;

/* a barrier in every running thread of the process without membarrier() */
static bool ar_shootdown_barrier(void)
{
	long page = sysconf(_SC_PAGESIZE);
	bool done = false;

	pthread_mutex_lock(&ar_shootdown_lock);
	if (!ar_shootdown_page) {
		void *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			ar_shootdown_page = p;
	}
	if (ar_shootdown_page &&
	    !mprotect(ar_shootdown_page, page, PROT_READ | PROT_WRITE)) {
		/* a dirty, writable entry: taking write away must flush it everywhere */
		*(volatile char *)ar_shootdown_page = 1;
		done = !mprotect(ar_shootdown_page, page, PROT_READ);
	}
	pthread_mutex_unlock(&ar_shootdown_lock);
	return done;
}

static void ar_process_barrier(void)
{
	unsigned round = 0;

	if (!ar_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;
	/* a forked child's process starts unregistered */
	if (errno == EPERM &&
	    !ar_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) &&
	    !ar_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;
	/* only a failed mmap or mprotect (no memory) repeats: it must not pass */
	while (!ar_shootdown_barrier())
		ar_spin_backoff(&round);
}

/*
 * Bias ctx->lock to the ring's submitter, which calls this once it is
 * known (setup, or ENABLE_RINGS: once per ring, so a revoked bias
 * stays off). Not with SQPOLL: the SQ thread submits there. The bias is
 * turned on under the spinlock (lock.h).
 */
void ar_ctx_bias_enable(struct ar_uctx *ctx)
{
	if (!(ctx->flags & IORING_SETUP_SINGLE_ISSUER) ||
	    (ctx->flags & IORING_SETUP_SQPOLL) || !ar_membarrier_ready())
		return;
	ar_spin_lock_tid(&ar_sh(ctx)->lock, (unsigned)ar_self_tid());
	/* a forked ring's lock is other processes' too: never biased (fork.c) */
	if (!ar_ring_forked(ctx))
		/* relaxed: read under the spinlock by every other thread (lock.h) */
		atomic_store_explicit(&ctx->lock_bias, AR_BIAS_ON,
				      memory_order_relaxed);
	ar_spin_unlock(&ar_sh(ctx)->lock);
}

/*
 * The bias goes for good: this thread revokes it, or waits for the
 * thread that does. The caller holds no lock section: the issuer's own
 * call (a fork, fork.c) included, as any other thread's.
 */
void ar_ctx_bias_revoke(struct ar_uctx *ctx)
{
	unsigned char on = AR_BIAS_ON;
	unsigned round = 0;

	/* seq_cst: the exchange is the revoker's barrier before membarrier() */
	if (atomic_compare_exchange_strong(&ctx->lock_bias, &on,
					   AR_BIAS_REVOKING)) {
		ar_process_barrier();
		/* acquire pairs with the issuer's release of issuer_in (lock.h) */
		while (atomic_load_explicit(&ctx->issuer_in, memory_order_acquire))
			ar_spin_backoff(&round);
		/* release pairs with the acquire of the other waiters below */
		atomic_store_explicit(&ctx->lock_bias, AR_BIAS_OFF,
				      memory_order_release);
		return;
	}
	while (atomic_load_explicit(&ctx->lock_bias, memory_order_acquire) !=
	       AR_BIAS_OFF)
		ar_spin_backoff(&round);
}

/*
 * ar_ctx_lock() found the bias not OFF while holding the spinlock. The
 * issuer keeps the spinlock (its biased try found the bias revoking);
 * another thread lets it go, revokes the bias or waits for the thread
 * that does, and takes the spinlock again.
 */
void ar_ctx_lock_bias_slow(struct ar_uctx *ctx)
{
	if (ar_self_tid() == ctx->submitter)
		return;
	ar_spin_unlock(&ar_sh(ctx)->lock);
	ar_ctx_bias_revoke(ctx);
	ar_spin_lock_tid(&ar_sh(ctx)->lock, (unsigned)ar_self_tid());
}

/* an ar_lockdep_assert_held() found ctx->lock not held by this thread */
void ar_lockdep_fail(const char *func)
{
	fprintf(stderr, "anyring: %s() called without ctx->lock held\n", func);
	abort();
}
