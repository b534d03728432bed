/* SPDX-License-Identifier: MIT */
/*
 * fuzz_bad.c - the pool of bad addresses a decoded request may carry
 * instead of a good pointer (fuzz_decode.c picks which, fuzz_run.c puts
 * it in the SQE): the kinds of tests/diff/diff_uaccess.c's battery.
 *
 * The pool is mapped once, at fixed low addresses where mmap(NULL) never
 * places anything, so that every run of the process, on either engine,
 * sees the same addresses, and its holes stay unmapped (each run checks
 * them). Per SQE index it has a straddle page (read-write, a hole after
 * it: an object there runs into unmapped memory) and a read-only area
 * (the good object, read-only). Every run starts with the straddle pages
 * holding the same bytes; what a run wrote there is compared
 * (fz_pool_hash()).
 *
 *   page 0             PROT_NONE
 *   page 1             hole
 *   pages 2-3          a path of more than PATH_MAX bytes, read-only
 *   pages 4-7          hole
 *   per SQE i, from page 8 + 8 * i:
 *     +0               straddle page, read-write
 *     +1               hole
 *     +2 .. +6         read-only area
 *     +7               hole
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fuzz.h"

#define FZ_PAGE		4096UL
#define FZ_POOL_BASE	0x20000000UL
#define FZ_NONCANON	0x8000000000000000UL
#define FZ_SLOT_PAGES	8
#define FZ_RO_PAGES	5
#define FZ_POOL_PAGES	(8 + FZ_MAX_SQES * FZ_SLOT_PAGES)

const char *const fz_bad_names[] = {
	"good", "NULL", "1", "PROT_NONE", "unmapped", "straddle",
	"non-canonical", "read-only", "long",
};

static char *page(unsigned n)
{
	return (char *)(FZ_POOL_BASE + n * FZ_PAGE);
}

static char *straddle_page(unsigned i)
{
	return page(8 + i * FZ_SLOT_PAGES);
}

static char *rdonly_area(unsigned i)
{
	return page(8 + i * FZ_SLOT_PAGES + 2);
}

static int hole(unsigned n)
{
	return n == 1 || (n >= 4 && n < 8) ||
		(n >= 8 && ((n - 8) % FZ_SLOT_PAGES == 1 ||
			    (n - 8) % FZ_SLOT_PAGES == 7));
}

static int unmapped(const void *p)
{
	return msync((void *)p, FZ_PAGE, MS_ASYNC) && errno == ENOMEM;
}

static void pool_die(const char *what, unsigned n)
{
	fprintf(stderr, "fuzz: bad-pointer pool: %s at %p: %s\n", what,
		(void *)page(n), strerror(errno));
	abort();
}

static void map(unsigned n, unsigned pages, int prot)
{
	if (mmap(page(n), pages * FZ_PAGE, prot,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    page(n))
		pool_die("mmap", n);
}

static void pool_init(void)
{
	unsigned n, i;

	for (n = 0; n < FZ_POOL_PAGES; n++)
		if (!unmapped(page(n)))
			pool_die("address in use", n);
	map(0, 1, PROT_NONE);
	map(2, 2, PROT_READ | PROT_WRITE);
	memset(page(2), 'a', 2 * FZ_PAGE - 1);
	page(2)[2 * FZ_PAGE - 1] = 0;
	if (mprotect(page(2), 2 * FZ_PAGE, PROT_READ))
		pool_die("mprotect", 2);
	for (i = 0; i < FZ_MAX_SQES; i++) {
		map(8 + i * FZ_SLOT_PAGES, 1, PROT_READ | PROT_WRITE);
		map(8 + i * FZ_SLOT_PAGES + 2, FZ_RO_PAGES, PROT_READ);
	}
}

/*
 * Before each run: the straddle pages hold the same bytes, the holes are
 * still holes (a mapping made there since would turn a fault into an
 * access on one engine only).
 */
void fz_pool_reset(void)
{
	static int ready;
	unsigned n, i;

	if (!ready) {
		pool_init();
		ready = 1;
	}
	for (n = 0; n < FZ_POOL_PAGES; n++)
		if (hole(n) && !unmapped(page(n)))
			pool_die("hole mapped", n);
	for (i = 0; i < FZ_MAX_SQES; i++)
		memset(straddle_page(i), 'p' + i % 8, FZ_PAGE);
}

uint64_t fz_pool_hash(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned i;

	for (i = 0; i < FZ_MAX_SQES; i++)
		h = fz_hash(straddle_page(i), FZ_PAGE, h);
	return h;
}

/* size bytes of good (zeroes when good is NULL) at p */
static void fill(char *p, const void *good, size_t size)
{
	if (good)
		memcpy(p, good, size);
	else
		memset(p, 0, size);
}

/*
 * Where an object of size bytes starts so that its first mapped bytes
 * lie in straddle page i and the rest in the hole after it; those bytes
 * hold the start of good.
 */
static void *straddle(unsigned i, const void *good, size_t mapped)
{
	char *p;

	if (mapped > FZ_PAGE)
		mapped = FZ_PAGE;
	p = straddle_page(i) + FZ_PAGE - mapped;
	fill(p, good, mapped);
	return p;
}

/* good in SQE i's read-only area */
static void *rdonly(unsigned i, const void *good, size_t size)
{
	char *p = rdonly_area(i);

	if (size > FZ_RO_PAGES * FZ_PAGE)
		size = FZ_RO_PAGES * FZ_PAGE;
	if (mprotect(p, FZ_RO_PAGES * FZ_PAGE, PROT_READ | PROT_WRITE))
		pool_die("mprotect", 8 + i * FZ_SLOT_PAGES + 2);
	fill(p, good, size);
	if (mprotect(p, FZ_RO_PAGES * FZ_PAGE, PROT_READ))
		pool_die("mprotect", 8 + i * FZ_SLOT_PAGES + 2);
	return p;
}

/* the bad form of SQE i's object good (size bytes) */
void *fz_bad_ptr(int bad, unsigned i, const void *good, size_t size)
{
	switch (bad) {
	case FZ_BAD_NULL:
		return NULL;
	case FZ_BAD_ONE:
		return (void *)1UL;
	case FZ_BAD_PROT_NONE:
		return page(0);
	case FZ_BAD_UNMAPPED:
		return page(1);
	case FZ_BAD_STRADDLE:
		return straddle(i, good, size / 2);
	case FZ_BAD_NONCANON:
		return (void *)FZ_NONCANON;
	case FZ_BAD_RDONLY:
		return rdonly(i, good, size);
	case FZ_BAD_LONG:
		return straddle(i, good, size ? size - 1 : 0);
	default:
		return (void *)good;
	}
}

/*
 * The bad form of SQE i's path good: straddle is a name with no NUL
 * before the hole, long one of 2 pages without a NUL before the last byte.
 */
const char *fz_bad_path(int bad, unsigned i, const char *good)
{
	char *p;

	switch (bad) {
	case FZ_BAD_STRADDLE:
		p = straddle_page(i) + FZ_PAGE - 16;
		memset(p, 'a', 16);
		return p;
	case FZ_BAD_RDONLY:
		return rdonly(i, good, strlen(good) + 1);
	case FZ_BAD_LONG:
		return page(2);
	default:
		return fz_bad_ptr(bad, i, good, 0);
	}
}
