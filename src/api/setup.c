/* SPDX-License-Identifier: MIT */
/*
 * setup.c - ring creation and teardown: io_uring_queue_init*(),
 * io_uring_queue_mmap(), io_uring_queue_exit(), io_uring_ring_dontfork(),
 * io_uring_mlock_size*() and the raw io_uring_setup(). liburing 2.3
 * semantics; the engine does the work.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "engine/engine.h"
#include "kernel/kernel.h"
#include "anyring.h"
#include "api/newer.h"

AR_EXPORT int io_uring_queue_mmap(int fd, struct io_uring_params *p,
				  struct io_uring *ring)
{
	const struct ar_engine *e;
	void *obj;
	int ret;

	memset(ring, 0, sizeof(*ring));
	e = ar_engine_lookup(fd, &obj);
	ret = e->mmap(obj, fd, p, ring);
	if (ret)
		return ret;
	ring->flags = p->flags;
	ring->ring_fd = ring->enter_ring_fd = fd;
	ring->int_flags = 0;
	return 0;
}

/* liburing 2.3 maps SQ slot i to SQE i once, so submit never writes the array */
static void ar_sq_array_identity(struct io_uring *ring)
{
	unsigned i;

	if (!ring->sq.array)
		return;
	for (i = 0; i < ring->sq.ring_entries; i++)
		ring->sq.array[i] = i;
}

static int ar_queue_init(const char *engine, unsigned entries,
			 struct io_uring *ring, struct io_uring_params *p)
{
	const struct ar_engine *e;
	void *obj;
	int fd, ret;

	fd = ar_engine_setup(engine, entries, p);
	if (fd < 0)
		return fd;
	ret = io_uring_queue_mmap(fd, p, ring);
	if (ret) {
		e = ar_engine_lookup(fd, &obj);
		e->close(obj, fd);
		return ret;
	}
	ar_sq_array_identity(ring);
	ring->features = p->features;
	return 0;
}

AR_EXPORT int io_uring_queue_init_params(unsigned entries,
					 struct io_uring *ring,
					 struct io_uring_params *p)
{
	return ar_queue_init(NULL, entries, ring, p);
}

AR_EXPORT int io_uring_queue_init(unsigned entries, struct io_uring *ring,
				  unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	return io_uring_queue_init_params(entries, ring, &p);
}

AR_EXPORT int anyring_queue_init_engine(const char *engine, unsigned entries,
					struct io_uring *ring,
					struct io_uring_params *p)
{
	/* NULL: ANYRING_ENGINE, else auto (anyring.h) */
	return ar_queue_init(engine, entries, ring, p);
}

AR_EXPORT int anyring_setup_engine(const char *engine, unsigned entries,
				   struct io_uring_params *p)
{
	return ar_engine_setup(engine, entries, p);
}

AR_EXPORT int io_uring_setup(unsigned entries, struct io_uring_params *p)
{
	return ar_engine_setup(NULL, entries, p);
}

AR_EXPORT const char *anyring_ring_engine(const struct io_uring *ring)
{
	return ar_ring_engine(ring)->name;
}

static void ar_unmap_app_rings(struct io_uring *ring);

AR_EXPORT void io_uring_queue_exit(struct io_uring *ring)
{
	void *obj;
	const struct ar_engine *e = ar_ring_lookup(ring, &obj);

	if (ring->flags & IORING_SETUP_NO_MMAP)
		ar_unmap_app_rings(ring);
	else
		e->unmap(ring);
	/* frees the registered slot now rather than at thread exit */
	if (ring->int_flags & AR_INT_FLAG_REG_RING)
		io_uring_unregister_ring_fd(ring);
	/* none after io_uring_close_ring_fd() */
	if (ring->ring_fd >= 0)
		e->close(obj, ring->ring_fd);
}

AR_EXPORT int io_uring_ring_dontfork(struct io_uring *ring)
{
	size_t len;

	if (!ring->sq.ring_ptr || !ring->sq.sqes || !ring->cq.ring_ptr)
		return -EINVAL;

	len = sizeof(struct io_uring_sqe) << !!(ring->flags & IORING_SETUP_SQE128);
	if (madvise(ring->sq.sqes, len * ring->sq.ring_entries, MADV_DONTFORK))
		return -errno;
	if (madvise(ring->sq.ring_ptr, ring->sq.ring_sz, MADV_DONTFORK))
		return -errno;
	if (ring->cq.ring_ptr != ring->sq.ring_ptr &&
	    madvise(ring->cq.ring_ptr, ring->cq.ring_sz, MADV_DONTFORK))
		return -errno;
	return 0;
}

/*
 * io_uring_mlock_size*(): the locked memory a ring of this size accounts
 * against RLIMIT_MEMLOCK. Kernels with IORING_FEAT_NATIVE_WORKERS (5.12+)
 * account ring memory to the memory cgroup instead, and the answer is 0;
 * for older kernels it is the size of the rings and the SQE array, each
 * rounded up to a power-of-two number of pages as the kernel allocated them.
 */
#define AR_KERN_MAX_ENTRIES	32768
#define AR_KERN_MAX_CQ_ENTRIES	(2 * AR_KERN_MAX_ENTRIES)

static size_t ar_pow2_pages(size_t bytes, size_t page)
{
	size_t pages = 1;

	while (pages * page < bytes)
		pages <<= 1;
	return pages * page;
}

static unsigned ar_roundup_pow2(unsigned v)
{
	unsigned r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/* the kernel's entry counts: clamped, rounded up, CQ twice the SQ by default */
static int ar_sq_cq_entries(unsigned entries, const struct io_uring_params *p,
			    unsigned *sq, unsigned *cq)
{
	unsigned cq_entries;

	if (!entries)
		return -EINVAL;
	if (entries > AR_KERN_MAX_ENTRIES) {
		if (!(p->flags & IORING_SETUP_CLAMP))
			return -EINVAL;
		entries = AR_KERN_MAX_ENTRIES;
	}
	entries = ar_roundup_pow2(entries);
	if (p->flags & IORING_SETUP_CQSIZE) {
		if (!p->cq_entries)
			return -EINVAL;
		cq_entries = p->cq_entries;
		if (cq_entries > AR_KERN_MAX_CQ_ENTRIES) {
			if (!(p->flags & IORING_SETUP_CLAMP))
				return -EINVAL;
			cq_entries = AR_KERN_MAX_CQ_ENTRIES;
		}
		cq_entries = ar_roundup_pow2(cq_entries);
		if (cq_entries < entries)
			return -EINVAL;
	} else {
		cq_entries = 2 * entries;
	}
	*sq = entries;
	*cq = cq_entries;
	return 0;
}

AR_EXPORT ssize_t io_uring_mlock_size_params(unsigned entries,
					     struct io_uring_params *p)
{
	struct io_uring_params lp;
	struct io_uring ring;
	unsigned cq_entries;
	size_t page, bytes;
	int ret;

	memset(&lp, 0, sizeof(lp));
	/* the running kernel's features decide whether anything is locked */
	ret = io_uring_queue_init_params(entries ? entries : 1, &ring, &lp);
	if (ret < 0)
		return ret;
	io_uring_queue_exit(&ring);
	if (lp.features & IORING_FEAT_NATIVE_WORKERS)
		return 0;

	ret = ar_sq_cq_entries(entries, p, &entries, &cq_entries);
	if (ret)
		return ret;

	page = (size_t)sysconf(_SC_PAGESIZE);
	/* rings: a header (< 1 page of indices) + CQEs + the SQ index array */
	bytes = 64 * 4 + cq_entries * (sizeof(struct io_uring_cqe) <<
				       !!(p->flags & IORING_SETUP_CQE32));
	bytes += entries * sizeof(unsigned);
	bytes = ar_pow2_pages(bytes, page);
	bytes += ar_pow2_pages(entries * (sizeof(struct io_uring_sqe) <<
					  !!(p->flags & IORING_SETUP_SQE128)),
			       page);
	return (ssize_t)bytes;
}

AR_EXPORT ssize_t io_uring_mlock_size(unsigned entries, unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	return io_uring_mlock_size_params(entries, &p);
}

/*
 * liburing 2.11's io_uring_memory_size*(): the bytes of the rings and
 * the SQE array of a ring of this size, each rounded up to pages, as
 * io_uring_queue_init_mem() lays them out (whatever the kernel).
 */
#define AR_KRING_SIZE	64	/* the rings' header, ahead of the CQEs */

static size_t ar_sqes_bytes(unsigned flags, unsigned n)
{
	return (size_t)n * (sizeof(struct io_uring_sqe) <<
			    !!(flags & IORING_SETUP_SQE128));
}

static size_t ar_cqes_bytes(unsigned flags, unsigned n)
{
	return (size_t)n * (sizeof(struct io_uring_cqe) <<
			    !!(flags & IORING_SETUP_CQE32));
}

static size_t ar_page_round(size_t n, size_t page)
{
	return (n + page - 1) & ~(page - 1);
}

AR_EXPORT ssize_t io_uring_memory_size_params(unsigned entries,
					      struct io_uring_params *p)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), rings;
	unsigned sq, cq;
	int ret;

	ret = ar_sq_cq_entries(entries, p, &sq, &cq);
	if (ret)
		return ret;
	rings = AR_KRING_SIZE + ar_cqes_bytes(p->flags, cq);
	if (!(p->flags & IORING_SETUP_NO_SQARRAY))
		rings += sq * sizeof(unsigned);
	return (ssize_t)(ar_page_round(rings, page) +
			 ar_page_round(ar_sqes_bytes(p->flags, sq), page));
}

AR_EXPORT ssize_t io_uring_memory_size(unsigned entries, unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	return io_uring_memory_size_params(entries, &p);
}

/*
 * io_uring_queue_init_mem(): rings in memory the program gives (buf),
 * IORING_SETUP_NO_MMAP. Without buf, liburing's choice: one page for
 * the SQEs if they fit, else a 2MB huge page, and the rings behind them
 * or in a mapping of their own. The layout: SQEs, then the rings.
 */
#define AR_HUGE_PAGE	(2UL << 20)

/* the anonymous mapping of a part this big: its length and flags */
static size_t ar_app_map_len(size_t need, size_t page, int *hugetlb)
{
	if (need <= page) {
		*hugetlb = 0;
		return page;
	}
	*hugetlb = MAP_HUGETLB | (21 << MAP_HUGE_SHIFT);
	return AR_HUGE_PAGE;
}

static int ar_alloc_app_rings(unsigned entries, struct io_uring_params *p,
			      struct io_uring *ring, void *buf,
			      size_t buf_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t sqes_mem, ring_mem, used, len;
	struct ar_sqring_offsets so;
	struct ar_cqring_offsets co;
	unsigned sq, cq;
	int huge, ret;
	void *ptr;

	ret = ar_sq_cq_entries(entries, p, &sq, &cq);
	if (ret)
		return ret;
	sqes_mem = ar_page_round(ar_sqes_bytes(p->flags, sq), page);
	ring_mem = AR_KRING_SIZE + ar_cqes_bytes(p->flags, cq);
	if (!(p->flags & IORING_SETUP_NO_SQARRAY))
		ring_mem += sq * sizeof(unsigned);
	used = ar_page_round(sqes_mem + ring_mem, page);
	if (!buf && (sqes_mem > AR_HUGE_PAGE || ring_mem > AR_HUGE_PAGE))
		return -ENOMEM;
	if (buf) {
		if (used > buf_size)
			return -ENOMEM;
		ptr = buf;
		len = buf_size;
	} else {
		len = ar_app_map_len(sqes_mem, page, &huge);
		ptr = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS | huge, -1, 0);
		if (ptr == MAP_FAILED)
			return -errno;
	}
	ring->sq.sqes = ptr;
	ring->sq.ring_sz = ring->cq.ring_sz = 0;
	if (used <= len) {
		ring->sq.ring_ptr = (char *)ptr + sqes_mem;
	} else {
		/* only without buf: the rings get a mapping of their own */
		size_t rlen = ar_app_map_len(ring_mem, page, &huge);
		void *r = mmap(NULL, rlen, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | huge, -1, 0);

		if (r == MAP_FAILED) {
			ret = -errno;
			munmap(ptr, len);
			return ret;
		}
		ring->sq.ring_ptr = r;
		ring->sq.ring_sz = (unsigned)rlen;
	}
	ring->cq.ring_ptr = ring->sq.ring_ptr;
	memcpy(&so, &p->sq_off, sizeof(so));
	memcpy(&co, &p->cq_off, sizeof(co));
	so.user_addr = (unsigned long)ring->sq.sqes;
	co.user_addr = (unsigned long)ring->sq.ring_ptr;
	memcpy(&p->sq_off, &so, sizeof(so));
	memcpy(&p->cq_off, &co, sizeof(co));
	return (int)used;
}

/* what ar_alloc_app_rings() mapped itself (not the program's buf) */
static void ar_unmap_app_rings(struct io_uring *ring)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int huge;

	if (!(ring->int_flags & AR_INT_FLAG_APP_MEM) && ring->sq.sqes)
		munmap(ring->sq.sqes, ar_app_map_len(
			ar_page_round(ar_sqes_bytes(ring->flags,
						    ring->sq.ring_entries),
				      page), page, &huge));
	if (!(ring->int_flags & AR_INT_FLAG_APP_MEM) && ring->sq.ring_sz)
		munmap(ring->sq.ring_ptr, ring->sq.ring_sz);
	ring->sq.sqes = NULL;
	ring->sq.ring_ptr = ring->cq.ring_ptr = NULL;
}

static int ar_queue_init_app(unsigned entries, struct io_uring *ring,
			     struct io_uring_params *p, void *buf,
			     size_t buf_size)
{
	int fd, used;

	memset(ring, 0, sizeof(*ring));
	used = ar_alloc_app_rings(entries, p, ring, buf, buf_size);
	if (used < 0)
		return used;
	if (buf)
		ring->int_flags |= AR_INT_FLAG_APP_MEM;
	ring->flags = p->flags;
	fd = ar_engine_setup(NULL, entries, p);
	if (fd < 0) {
		ar_unmap_app_rings(ring);
		return fd;
	}
	ar_kring_pointers(ring, p);
	ar_sq_array_identity(ring);
	ring->features = p->features;
	ring->flags = p->flags;
	ring->enter_ring_fd = fd;
	if (p->flags & IORING_SETUP_REGISTERED_FD_ONLY) {
		ring->ring_fd = -1;
		ring->int_flags |= AR_INT_FLAG_REG_RING;
	} else {
		ring->ring_fd = fd;
	}
	return used;
}

AR_EXPORT int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring,
				      struct io_uring_params *p, void *buf,
				      size_t buf_size)
{
	unsigned flags;
	int ret;

	p->flags |= IORING_SETUP_NO_MMAP;
	/* as liburing 2.15: without an SQ array first, unless that fails */
	flags = p->flags;
	p->flags |= IORING_SETUP_NO_SQARRAY;
	ret = ar_queue_init_app(entries, ring, p, buf, buf_size);
	if (ret != -EINVAL || (flags & IORING_SETUP_NO_SQARRAY))
		return ret;
	p->flags = flags;
	return ar_queue_init_app(entries, ring, p, buf, buf_size);
}

/*
 * liburing 2.4's provided-buffer ring helpers: the ring in anonymous
 * memory of the library's, registered (IORING_REGISTER_PBUF_RING) and
 * initialised empty; freed after its unregistration.
 */
AR_EXPORT struct io_uring_buf_ring *
io_uring_setup_buf_ring(struct io_uring *ring, unsigned int nentries,
			int bgid, unsigned int flags, int *err)
{
	struct io_uring_buf_ring *br;
	struct ar_buf_reg reg;
	size_t size = (size_t)nentries * sizeof(struct io_uring_buf);
	int ret;

	br = mmap(NULL, size, PROT_READ | PROT_WRITE,
		  MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (br == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = nentries;
	reg.bgid = (__u16)bgid;
	*err = 0;
	ret = io_uring_register_buf_ring(ring, (struct io_uring_buf_reg *)(void *)&reg,
					 flags);
	if (ret) {
		munmap(br, size);
		*err = ret;
		return NULL;
	}
	io_uring_buf_ring_init(br);
	return br;
}

AR_EXPORT int io_uring_free_buf_ring(struct io_uring *ring,
				     struct io_uring_buf_ring *br,
				     unsigned int nentries, int bgid)
{
	int ret = io_uring_unregister_buf_ring(ring, bgid);

	if (ret)
		return ret;
	munmap(br, (size_t)nentries * sizeof(struct io_uring_buf));
	return 0;
}
