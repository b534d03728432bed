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
	/* release: our read of the entry is done before it can be reused */
	atomic_store_explicit(&p->head, head + 1, memory_order_release);
	return slot;
}

static inline void pool_give(struct slot_pool *p, unsigned slot)
{
	unsigned tail = atomic_load_explicit(&p->tail, memory_order_relaxed);

	/*
	 * No fullness check: there are never more slots than the capacity,
	 * so the entry at tail was taken (read) a lap ago. The acquire load
	 * pairs with pool_take's release of the head: that read is ordered
	 * before our write (the I/O's round trip through the engine orders
	 * it too, but not visibly to every checker).
	 */
	(void)atomic_load_explicit(&p->head, memory_order_acquire);
	p->ring[tail & p->mask] = slot;
	atomic_store_explicit(&p->tail, tail + 1, memory_order_release);
}

/* Split mode: sleep until a slot may be free (or timeout_ms passed). */
void pool_wait(struct slot_pool *p, int timeout_ms);
/* Split mode: after pool_give(), wake a sleeping taker. */
void pool_wake(struct slot_pool *p);

#endif
