/* SPDX-License-Identifier: MIT */
/*
 * ext.h - anyring's newer calls (policies, ring counters, simdev), reached
 * through weak references: a libanyring without them still runs the
 * benchmark, and asking for them gives a clear error instead of a failed
 * link or load.
 */
#ifndef BENCH_EXT_H
#define BENCH_EXT_H

#include <stdbool.h>
#include <anyring.h>

bool ext_have_policy(void);
bool ext_have_stats(void);
bool ext_have_simdev(void);

/* The calls, or -ENOSYS when this libanyring lacks them. */
int ext_policy_parse(const char *str, struct anyring_policy *p);
int ext_ring_set_policy(struct io_uring *ring, const struct anyring_policy *p);
int ext_ring_stats(const struct io_uring *ring, struct anyring_stats *st);
int ext_ring_stats_reset(struct io_uring *ring);
int ext_simdev_create(const char *spec);

#endif
