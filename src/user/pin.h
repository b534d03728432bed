/* SPDX-License-Identifier: MIT */
/*
 * pin.h - would the kernel pin a registered buffer? (pin.c)
 */
#ifndef ANYRING_USER_PIN_H
#define ANYRING_USER_PIN_H

#include <stdbool.h>
#include <stddef.h>

struct ar_vma;

/* the process's mappings, read once for a registration and reused */
struct ar_pin_map {
	struct ar_vma *vmas;
	unsigned nr;
	bool loaded;
};

/*
 * io_pin_pages() for [base, base + len): 0 when every page lies in
 * mappings the kernel pins for a long-term write (writable, private or
 * shmem); -EFAULT when one is unmapped, not writable, or a shared mapping
 * of a file that needs writeback; -ENOMEM when the mappings cannot be
 * read. A snapshot: the mappings may change after it was taken.
 */
int ar_pin_check(struct ar_pin_map *map, const void *base, size_t len);
void ar_pin_map_free(struct ar_pin_map *map);

/*
 * The kernel's pin of [base, base + len) (page-aligned) for a buffer
 * ring: checked as above, then the engine maps the same pages for
 * itself, so the program's munmap() of the range cannot make the engine
 * fault (pin.c gives how). 0 with *out set; 0 with *out NULL when shared
 * memory in the range spans mappings (read in place, unpinned);
 * -EFAULT or -ENOMEM.
 */
struct ar_pinned;
int ar_pin_pages(struct ar_pin_map *map, void *base, size_t len,
		 struct ar_pinned **out);
/* where the engine reads the pinned pages */
void *ar_pinned_addr(const struct ar_pinned *p);
/* the pin goes; the program's range keeps its pages and bytes */
void ar_unpin_pages(struct ar_pinned *p);

#endif
