/* SPDX-License-Identifier: MIT */
/*
 * ext.c - weak references to anyring's policy, counter and simdev calls.
 * An unresolved weak function is NULL at run time.
 */
#include <errno.h>
#include "ext.h"

#pragma weak anyring_policy_parse
#pragma weak anyring_ring_set_policy
#pragma weak anyring_ring_stats
#pragma weak anyring_ring_stats_reset
#pragma weak anyring_simdev_create

bool ext_have_policy(void)
{
	return anyring_policy_parse && anyring_ring_set_policy;
}

bool ext_have_stats(void)
{
	return anyring_ring_stats && anyring_ring_stats_reset;
}

bool ext_have_simdev(void)
{
	return anyring_simdev_create;
}

int ext_policy_parse(const char *str, struct anyring_policy *p)
{
	return ext_have_policy() ? anyring_policy_parse(str, p) : -ENOSYS;
}

int ext_ring_set_policy(struct io_uring *ring, const struct anyring_policy *p)
{
	return ext_have_policy() ? anyring_ring_set_policy(ring, p) : -ENOSYS;
}

int ext_ring_stats(const struct io_uring *ring, struct anyring_stats *st)
{
	return ext_have_stats() ? anyring_ring_stats(ring, st) : -ENOSYS;
}

int ext_ring_stats_reset(struct io_uring *ring)
{
	return ext_have_stats() ? anyring_ring_stats_reset(ring) : -ENOSYS;
}

int ext_simdev_create(const char *spec)
{
	return ext_have_simdev() ? anyring_simdev_create(spec) : -ENOSYS;
}
