/* SPDX-License-Identifier: MIT */
/*
 * pool.c - setup of the slot pool and the futex sleep of --split-reap's
 * submitter on an empty pool.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include "pool.h"

int pool_init(struct slot_pool *p, unsigned nslots)
{
	unsigned cap = 1, i;

	while (cap < nslots)
		cap <<= 1;
	p->ring = malloc(cap * sizeof(*p->ring));
	if (!p->ring)
		return -ENOMEM;
	for (i = 0; i < nslots; i++)
		p->ring[i] = i;
	p->mask = cap - 1;
	atomic_init(&p->head, 0);
	atomic_init(&p->tail, nslots);
	atomic_init(&p->sleeping, 0);
	return 0;
}

void pool_free(struct slot_pool *p)
{
	free(p->ring);
	p->ring = NULL;
}

static long futex(_Atomic unsigned *addr, int op, unsigned val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, (unsigned *)addr, op, val, ts, NULL, 0);
}

void pool_wait(struct slot_pool *p, int timeout_ms)
{
	struct timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (long)(timeout_ms % 1000) * 1000000L,
	};
	unsigned tail = atomic_load_explicit(&p->tail, memory_order_relaxed);

	/*
	 * seq_cst store then load: pairs with pool_wake's seq_cst tail
	 * publication and load of sleeping, so either the giver sees us
	 * sleeping or we see its new tail (and the futex value differs).
	 */
	atomic_store(&p->sleeping, 1);
	if (atomic_load(&p->head) == atomic_load(&p->tail))
		futex(&p->tail, FUTEX_WAIT_PRIVATE, tail, &ts);
	atomic_store(&p->sleeping, 0);
}

void pool_wake(struct slot_pool *p)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&p->sleeping))
		futex(&p->tail, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}
