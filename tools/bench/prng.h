/* SPDX-License-Identifier: MIT */
/*
 * prng.h - the offset generator's random numbers: xorshift64* (a few
 * cycles, no division), seeded through splitmix64 so that nearby seeds
 * (thread numbers) give unrelated streams. A number below n is taken from
 * the high half of a 64x64 product (no modulo).
 */
#ifndef BENCH_PRNG_H
#define BENCH_PRNG_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t prng_seed(uint64_t seed)
{
	uint64_t s = splitmix64(&seed);

	return s ? s : 1;	/* xorshift's state must not be 0 */
}

static inline uint64_t prng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* uniform in [0, n) */
static inline uint64_t prng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)prng_next(s) * n) >> 64);
}

#endif
