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
#include "anyring.h"

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

AR_EXPORT void io_uring_queue_exit(struct io_uring *ring)
{
	void *obj;
	const struct ar_engine *e = ar_engine_lookup(ring->ring_fd, &obj);

	e->unmap(ring);
	/* frees the registered slot now rather than at thread exit */
	if (ring->int_flags & AR_INT_FLAG_REG_RING)
		io_uring_unregister_ring_fd(ring);
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
