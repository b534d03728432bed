/* SPDX-License-Identifier: MIT */
/*
 * pin.h - would the kernel pin a registered buffer? (pin.c)
 */
#ifndef ANYRING_USER_PIN_H
#define ANYRING_USER_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

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
 * ring: checked as above, then, where one shared mapping covers it, the
 * engine maps the same pages for itself, so the program's munmap() of
 * the range cannot make the engine fault. 0 with *out set; 0 with *out
 * NULL for private memory (read in place, unpinned: pin.c says why);
 * -EFAULT or -ENOMEM.
 */
/*
 * The mappings of the shared memory at addr, that one included (from
 * /proc/self/maps): 0 if none or not shared, -1 if they cannot be read.
 */
int ar_maps_sharing(const void *addr);

struct ar_pinned;
int ar_pin_pages(struct ar_pin_map *map, void *base, size_t len,
		 struct ar_pinned **out);
/* where the engine reads the pinned pages */
void *ar_pinned_addr(const struct ar_pinned *p);
/* the pin goes; the program's range is untouched */
void ar_unpin_pages(struct ar_pinned *p);

/*
 * io_create_region() for memory the application gives (a buffer ring,
 * NO_MMAP rings): an address of 0 is -EFAULT, one not page-aligned
 * -EINVAL, a range that wraps -EOVERFLOW, then the pages pinned as above
 * (*pin NULL: read in place); 0 when they are.
 */
int ar_pin_region(__u64 addr, __u64 size, struct ar_pinned **pin);

#endif
