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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
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
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

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
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
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
 * ---- pinned pages: a buffer ring in the application's memory ----
 *
 * The kernel pins a buffer ring's pages at registration, so the program
 * may unmap its range and the kernel still reads the same pages. Here
 * the engine keeps a mapping of its own of those pages (the alias), and
 * reads the ring through it: an munmap() of the program's range leaves
 * the alias valid, as the pin leaves the pages.
 *
 * Shared memory (one shared mapping covers the range) is mapped a second
 * time with mremap(addr, 0, len): the same pages. Private memory cannot
 * be: its pages go into a shared anonymous mapping, copied, which then
 * takes the range's place (mremap MREMAP_FIXED), and the alias maps it
 * too. Such a range stays shared memory, also once the pin goes (turning
 * it back while the program's threads write it could lose a store). A
 * forked child gets private pages there again, with the same bytes, as
 * the kernel copies a pinned page for the child (ar_pin_atfork_child(),
 * single-threaded): the list remembers every range that still holds the
 * pages it was given. A range with shared memory that no single shared
 * mapping covers is not pinned: the engine reads it in place.
 */
struct ar_pinned {
	struct ar_pinned *next;
	void *addr;		/* the application's range */
	void *alias;		/* the engine's mapping of it; NULL once unpinned */
	size_t len;
	unsigned long inode;	/* of the shared memory that replaced the range */
	bool replaced;		/* private pages were moved into shared ones */
};

static pthread_mutex_t ar_pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ar_pinned *ar_pinned_list;	/* replaced ranges only */
static pthread_once_t ar_pin_once = PTHREAD_ONCE_INIT;

static void ar_pin_atfork_prepare(void)
{
	pthread_mutex_lock(&ar_pinned_lock);
}

static void ar_pin_atfork_parent(void)
{
	pthread_mutex_unlock(&ar_pinned_lock);
}

/* the mapping over addr, or NULL */
static const struct ar_vma *ar_vma_at(const struct ar_pin_map *map,
				      unsigned long addr)
{
	unsigned i = ar_vma_find(map, addr);

	return i < map->nr && map->vmas[i].start <= addr ? &map->vmas[i] : NULL;
}

/* does p's range still hold the shared memory it was given? */
static bool ar_pin_holds(const struct ar_pin_map *map,
			 const struct ar_pinned *p)
{
	const struct ar_vma *v = ar_vma_at(map, (unsigned long)p->addr);

	return v && v->shared && v->inode == p->inode &&
	       v->end >= (unsigned long)p->addr + p->len;
}

/* private pages at the range again, with the same bytes; one thread only */
static void ar_pin_privatize(const struct ar_pinned *p)
{
	void *tmp;

	tmp = mmap(NULL, p->len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tmp == MAP_FAILED)
		return;		/* it stays shared with the parent */
	memcpy(tmp, p->addr, p->len);
	if (mremap(tmp, p->len, p->len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   p->addr) == MAP_FAILED)
		munmap(tmp, p->len);
}

/*
 * The child is the only thread: its ranges become private, as the
 * kernel copies pinned pages for a child, and the list is done with
 * (the child's pins are its parent's rings' copies, which refuse every
 * call there).
 */
static void ar_pin_atfork_child(void)
{
	struct ar_pin_map map = { 0 };
	struct ar_pinned *p;

	if (ar_pinned_list && !ar_pin_map_load(&map)) {
		for (p = ar_pinned_list; p; p = p->next)
			if (ar_pin_holds(&map, p))
				ar_pin_privatize(p);
	}
	ar_pin_map_free(&map);
	for (p = ar_pinned_list; p; p = p->next)
		p->replaced = false;
	ar_pinned_list = NULL;
	pthread_mutex_unlock(&ar_pinned_lock);
}

static void ar_pin_init(void)
{
	pthread_atfork(ar_pin_atfork_prepare, ar_pin_atfork_parent,
		       ar_pin_atfork_child);
}

/* one shared mapping covers [addr, end): 1; none of it shared: 0; else -1 */
static int ar_pin_shared(const struct ar_pin_map *map, unsigned long addr,
			 unsigned long end)
{
	const struct ar_vma *v = ar_vma_at(map, addr);
	unsigned i;

	if (v && v->shared && v->end >= end)
		return 1;
	for (i = ar_vma_find(map, addr); i < map->nr && map->vmas[i].start < end; i++)
		if (map->vmas[i].shared)
			return -1;
	return 0;
}

/* private pages into a shared mapping, which takes the range's place */
static void *ar_pin_replace(void *base, size_t len)
{
	void *mem, *m;

	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	if (ar_copy_from_user(mem, base, len)) {
		munmap(mem, len);
		errno = EFAULT;
		return NULL;
	}
	m = mremap(mem, 0, len, MREMAP_MAYMOVE | MREMAP_FIXED, base);
	if (m == MAP_FAILED) {
		munmap(mem, len);
		return NULL;
	}
	return mem;
}

/*
 * The list, under ar_pinned_lock: p joins it, and the ranges that no
 * longer hold their memory (unmapped, or mapped anew by the program)
 * leave it, so that it stays as long as the ranges that matter.
 */
static void ar_pin_list_add(struct ar_pinned *p)
{
	struct ar_pin_map map = { 0 };
	struct ar_pinned **pp, *q;
	bool loaded = !ar_pin_map_load(&map);
	const struct ar_vma *v;

	v = loaded ? ar_vma_at(&map, (unsigned long)p->addr) : NULL;
	p->inode = v ? v->inode : 0;
	for (pp = &ar_pinned_list; loaded && (q = *pp);) {
		if (!q->alias && (q->addr == p->addr || !ar_pin_holds(&map, q))) {
			*pp = q->next;
			free(q);
		} else {
			pp = &q->next;
		}
	}
	ar_pin_map_free(&map);
	p->next = ar_pinned_list;
	ar_pinned_list = p;
}

int ar_pin_pages(struct ar_pin_map *map, void *base, size_t len,
		 struct ar_pinned **out)
{
	unsigned long addr = (unsigned long)base;
	struct ar_pinned *p;
	void *alias;
	int ret, kind;

	*out = NULL;
	if ((addr & (AR_PIN_PAGE - 1)) || (len & (AR_PIN_PAGE - 1)))
		return -EINVAL;
	ret = ar_pin_check(map, base, len);
	if (ret)
		return ret;
	kind = ar_pin_shared(map, addr, addr + len);
	if (kind < 0)
		return 0;	/* read in place */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (kind) {
		alias = mremap(base, 0, len, MREMAP_MAYMOVE);
		if (alias == MAP_FAILED)
			alias = NULL;
	} else {
		alias = ar_pin_replace(base, len);
	}
	if (!alias) {
		ret = errno == EFAULT ? -EFAULT : -ENOMEM;
		free(p);
		return ret;
	}
	p->addr = base;
	p->alias = alias;
	p->len = len;
	p->replaced = !kind;
	if (p->replaced) {
		pthread_once(&ar_pin_once, ar_pin_init);
		pthread_mutex_lock(&ar_pinned_lock);
		ar_pin_list_add(p);
		pthread_mutex_unlock(&ar_pinned_lock);
	}
	*out = p;
	return 0;
}

void *ar_pinned_addr(const struct ar_pinned *p)
{
	return p->alias;
}

/*
 * The engine's mapping goes. A replaced range stays on the list (alias
 * NULL) for the forks to come, until it no longer holds its memory.
 */
void ar_unpin_pages(struct ar_pinned *p)
{
	if (!p)
		return;
	munmap(p->alias, p->len);
	if (!p->replaced) {
		free(p);
		return;
	}
	pthread_mutex_lock(&ar_pinned_lock);
	__atomic_store_n(&p->alias, NULL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ar_pinned_lock);
}
