/* SPDX-License-Identifier: MIT */
/*
 * pin.c - registered buffers are checked as the kernel pins them
 * (pin_user_pages_fast() with FOLL_WRITE | FOLL_LONGTERM): from
 * /proc/self/maps, read once per registration. A page the kernel could
 * not pin gives -EFAULT: unmapped, without write permission (PROT_NONE,
 * read-only), or in a MAP_SHARED mapping of a file whose pages are
 * written back (a long-term pin there is refused). Shared anonymous
 * memory, memfd, SysV shm and tmpfs/hugetlbfs files are shmem-like and
 * pinnable, as is a private mapping of any file (written copy-on-write).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include "engine/engine.h"
#include "lib/uaccess.h"
#include "user/pin.h"

#define AR_PIN_PAGE	4096UL

struct ar_vma {
	unsigned long start, end;
	unsigned long inode;
	bool pinnable;
	bool shared;
};

/* the whole of /proc/self/maps, NUL-terminated; NULL without memory */
static char *ar_maps_read(void)
{
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap), *nbuf;
	int fd = ar_proc_maps_fd();
	ssize_t n;

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		if (cap - len < 4096) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf)
				goto fail;
			buf = nbuf;
			cap *= 2;
		}
		n = pread(fd, buf + len, cap - len - 1, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
fail:
	free(buf);
	return NULL;
}

static bool ar_path_has_prefix(const char *path, const char *prefix)
{
	return !strncmp(path, prefix, strlen(prefix));
}

/* is a shared mapping of path shmem-like (no writeback)? */
static bool ar_shared_pinnable(const char *path, unsigned long inode)
{
	struct statfs sfs;
	size_t len = strlen(path);

	if (!inode || ar_path_has_prefix(path, "/dev/zero") ||
	    ar_path_has_prefix(path, "/memfd:") ||
	    ar_path_has_prefix(path, "/SYSV") ||
	    ar_path_has_prefix(path, "[anon_shmem:"))
		return true;
	if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
		return false;	/* unknown file system: taken as written back */
	if (statfs(path, &sfs))
		return false;
	return sfs.f_type == TMPFS_MAGIC || sfs.f_type == HUGETLBFS_MAGIC;
}

/* the field after the next space, or NULL */
static char *ar_next_field(char *p)
{
	p = strchr(p, ' ');
	if (!p)
		return NULL;
	while (*p == ' ')
		p++;
	return p;
}

/* "start-end perms offset dev inode path" */
static bool ar_vma_parse(char *line, struct ar_vma *vma)
{
	char *p = line, *perms, *e;
	unsigned long inode;
	int i;

	vma->start = strtoul(p, &e, 16);
	if (*e != '-')
		return false;
	vma->end = strtoul(e + 1, &e, 16);
	perms = ar_next_field(e);
	if (!perms || strlen(perms) < 4)
		return false;
	p = perms;
	for (i = 0; i < 3 && p; i++)	/* to the inode */
		p = ar_next_field(p);
	if (!p)
		return false;
	inode = strtoul(p, &e, 10);
	vma->inode = inode;
	p = ar_next_field(e);
	vma->shared = perms[3] == 's';
	vma->pinnable = perms[1] == 'w' &&
			(perms[3] == 'p' ||
			 ar_shared_pinnable(p ? p : "", inode));
	return true;
}

static int ar_pin_map_load(struct ar_pin_map *map)
{
	char *buf = ar_maps_read(), *line, *next;
	unsigned cap = 0;
	struct ar_vma vma, *nv;

	if (!buf)
		return -ENOMEM;
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		if (!ar_vma_parse(line, &vma))
			continue;
		if (map->nr == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(map->vmas, cap * sizeof(*nv));
			if (!nv) {
				free(buf);
				return -ENOMEM;
			}
			map->vmas = nv;
		}
		map->vmas[map->nr++] = vma;
	}
	free(buf);
	map->loaded = true;
	return 0;
}

/* the first mapping ending above addr (the list is sorted), or nr */
static unsigned ar_vma_find(const struct ar_pin_map *map, unsigned long addr)
{
	unsigned lo = 0, hi = map->nr;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (map->vmas[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ar_pin_check(struct ar_pin_map *map, const void *base, size_t len)
{
	unsigned long addr = (unsigned long)base & ~(AR_PIN_PAGE - 1);
	unsigned long end = ((unsigned long)base + len + AR_PIN_PAGE - 1) &
			    ~(AR_PIN_PAGE - 1);
	unsigned i;
	int ret;

	if (!map->loaded && (ret = ar_pin_map_load(map)))
		return ret;
	for (i = ar_vma_find(map, addr); addr < end; i++) {
		if (i >= map->nr || map->vmas[i].start > addr ||
		    !map->vmas[i].pinnable)
			return -EFAULT;
		addr = map->vmas[i].end;
	}
	return 0;
}

void ar_pin_map_free(struct ar_pin_map *map)
{
	free(map->vmas);
	map->vmas = NULL;
	map->nr = 0;
	map->loaded = false;
}

/*
 * How many mappings share the memory of the shared mapping at addr (the
 * one at addr included): 0 when none is there or it is not shared, -1
 * when the mappings cannot be read.
 */
int ar_maps_sharing(const void *addr)
{
	struct ar_pin_map map = { 0 };
	unsigned long a = (unsigned long)addr, inode;
	unsigned i = 0;
	int n = 0;

	if (ar_pin_map_load(&map))
		return -1;
	i = ar_vma_find(&map, a);
	if (i < map.nr && map.vmas[i].start <= a && map.vmas[i].shared &&
	    (inode = map.vmas[i].inode)) {
		for (i = 0; i < map.nr; i++)
			n += map.vmas[i].shared && map.vmas[i].inode == inode;
	}
	ar_pin_map_free(&map);
	return n;
}

/*
 * ---- pinned pages: a buffer ring in the application's memory ----
 *
 * The kernel pins a buffer ring's pages at registration, so the program
 * may unmap its range and the kernel still reads the same pages. Where
 * the range is shared memory (one shared mapping covers it), the engine
 * maps the same pages a second time with mremap(addr, 0, len), the
 * alias, and reads the ring there: an munmap() of the program's range
 * leaves the alias valid, as the pin leaves the pages. Private memory
 * cannot be mapped twice: moving it into shared memory for the pin was
 * tried, and the heap around a ring in malloc'd memory then went shared
 * with forked children and raced with the program's stores when it was
 * moved back, so a private range is read in place (docs/semantics.md
 * D19).
 */
struct ar_pinned {
	void *alias;		/* the engine's mapping of the same pages */
	size_t len;
};

/* one shared mapping covers [addr, end)? */
static bool ar_pin_shared(const struct ar_pin_map *map, unsigned long addr,
			  unsigned long end)
{
	unsigned i = ar_vma_find(map, addr);

	return i < map->nr && map->vmas[i].start <= addr &&
	       map->vmas[i].shared && map->vmas[i].end >= end;
}

int ar_pin_pages(struct ar_pin_map *map, void *base, size_t len,
		 struct ar_pinned **out)
{
	unsigned long addr = (unsigned long)base;
	struct ar_pinned *p;
	void *alias;
	int ret;

	*out = NULL;
	if ((addr & (AR_PIN_PAGE - 1)) || (len & (AR_PIN_PAGE - 1)))
		return -EINVAL;
	ret = ar_pin_check(map, base, len);
	if (ret)
		return ret;
	if (!ar_pin_shared(map, addr, addr + len))
		return 0;	/* read in place */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	alias = mremap(base, 0, len, MREMAP_MAYMOVE);
	if (alias == MAP_FAILED) {
		free(p);
		return -ENOMEM;
	}
	p->alias = alias;
	p->len = len;
	*out = p;
	return 0;
}

void *ar_pinned_addr(const struct ar_pinned *p)
{
	return p->alias;
}

void ar_unpin_pages(struct ar_pinned *p)
{
	if (!p)
		return;
	munmap(p->alias, p->len);
	free(p);
}

int ar_pin_region(__u64 addr, __u64 size, struct ar_pinned **pin)
{
	struct ar_pin_map map = { 0 };
	__u64 end;
	int ret;

	*pin = NULL;
	if (!addr)
		return -EFAULT;
	if (addr & 4095)
		return -EINVAL;
	if (__builtin_add_overflow(addr, size, &end))
		return -EOVERFLOW;
	if (!ar_access_ok((void *)(unsigned long)addr, size))
		return -EFAULT;
	ret = ar_pin_pages(&map, (void *)(unsigned long)addr, size, pin);
	ar_pin_map_free(&map);
	return ret;
}
