/* SPDX-License-Identifier: MIT */
/*
 * pool.h - the free slots of a worker (a slot is one I/O in flight: its
 * buffer, its submit time, its aiocb). A single-producer single-consumer
 * ring of slot numbers: the submitting thread takes, the reaping thread
 * gives back. In the usual loop both are the same thread; with
 * --split-reap they are two, and the submitter may sleep on an empty pool.
 */
#ifndef BENCH_POOL_H
#define BENCH_POOL_H

#include <stdatomic.h>
#include <stdbool.h>

struct slot_pool {
	unsigned *ring;		/* capacity: a power of two >= the slots */
	unsigned mask;
	_Atomic unsigned head;	/* next to take: the submitter's */
	_Atomic unsigned tail;	/* next to give: the reaper's */
	_Atomic int sleeping;	/* the submitter waits on tail (split mode) */
};

/* All of 0..nslots-1 free. 0 or -ENOMEM. */
int pool_init(struct slot_pool *p, unsigned nslots);
void pool_free(struct slot_pool *p);

/* A free slot, or -1 when none. */
static inline int pool_take(struct slot_pool *p)
{
	unsigned head = atomic_load_explicit(&p->head, memory_order_relaxed);
	int slot;

	/* acquire pairs with pool_give's release: the slot number is written */
	if (head == atomic_load_explicit(&p->tail, memory_order_acquire))
		return -1;
	slot = (int)p->ring[head & p->mask];
	atomic_store_explicit(&p->head, head + 1, memory_order_relaxed);
	return slot;
}

static inline void pool_give(struct slot_pool *p, unsigned slot)
{
	unsigned tail = atomic_load_explicit(&p->tail, memory_order_relaxed);

	/*
	 * No fullness check: there are never more slots than the capacity.
	 * The head is only read by the taker; a slot handed back was taken,
	 * so its ring entry was already read (the taker's read happens
	 * before the I/O is issued, which happens before we see it complete).
	 */
	p->ring[tail & p->mask] = slot;
	atomic_store_explicit(&p->tail, tail + 1, memory_order_release);
}

/* Split mode: sleep until a slot may be free (or timeout_ms passed). */
void pool_wait(struct slot_pool *p, int timeout_ms);
/* Split mode: after pool_give(), wake a sleeping taker. */
void pool_wake(struct slot_pool *p);

#endif
