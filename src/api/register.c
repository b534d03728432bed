/* SPDX-License-Identifier: MIT */
/*
 * register.c - the io_uring_register*() calls of liburing 2.15, each one
 * io_uring_register(2) through the ring's engine, with liburing's return
 * conventions (0 on success where liburing returns 0).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "engine/engine.h"
#include "kernel/kernel.h"
#include "api/newer.h"

static int ar_zero_or_err(int ret)
{
	return ret < 0 ? ret : 0;
}

/*
 * Raw io_uring_register(2): dispatched by fd to the engine that owns it.
 * A registered-ring index names no fd: it goes to the engine whose table
 * has it for this thread.
 */
AR_EXPORT int io_uring_register(unsigned fd, unsigned opcode, const void *arg,
				unsigned nr_args)
{
	return ar_register_fd(fd, opcode, arg, nr_args);
}

AR_EXPORT int io_uring_register_buffers(struct io_uring *ring,
					const struct iovec *iovecs,
					unsigned nr_iovecs)
{
	return ar_zero_or_err(ar_ring_register(ring, IORING_REGISTER_BUFFERS,
					       iovecs, nr_iovecs));
}

static int ar_register_rsrc(struct io_uring *ring, unsigned opcode,
			    const void *data, const __u64 *tags, unsigned nr,
			    unsigned flags)
{
	struct io_uring_rsrc_register reg;

	memset(&reg, 0, sizeof(reg));
	reg.nr = nr;
	reg.flags = flags;
	reg.data = (unsigned long)data;
	reg.tags = (unsigned long)tags;
	return ar_ring_register(ring, opcode, &reg, sizeof(reg));
}

AR_EXPORT int io_uring_register_buffers_tags(struct io_uring *ring,
					     const struct iovec *iovecs,
					     const __u64 *tags, unsigned nr)
{
	return ar_register_rsrc(ring, IORING_REGISTER_BUFFERS2, iovecs, tags,
				nr, 0);
}

AR_EXPORT int io_uring_register_buffers_sparse(struct io_uring *ring,
					       unsigned nr)
{
	return ar_register_rsrc(ring, IORING_REGISTER_BUFFERS2, NULL, NULL, nr,
				IORING_RSRC_REGISTER_SPARSE);
}

static int ar_update_rsrc(struct io_uring *ring, unsigned opcode,
			  unsigned off, const void *data, const __u64 *tags,
			  unsigned nr)
{
	struct io_uring_rsrc_update2 up;

	memset(&up, 0, sizeof(up));
	up.offset = off;
	up.data = (unsigned long)data;
	up.tags = (unsigned long)tags;
	up.nr = nr;
	return ar_ring_register(ring, opcode, &up, sizeof(up));
}

AR_EXPORT int io_uring_register_buffers_update_tag(struct io_uring *ring,
						   unsigned off,
						   const struct iovec *iovecs,
						   const __u64 *tags,
						   unsigned nr)
{
	return ar_update_rsrc(ring, IORING_REGISTER_BUFFERS_UPDATE, off, iovecs,
			      tags, nr);
}

AR_EXPORT int io_uring_unregister_buffers(struct io_uring *ring)
{
	return ar_zero_or_err(ar_ring_register(ring, IORING_UNREGISTER_BUFFERS,
					       NULL, 0));
}

/*
 * Registering files counts against RLIMIT_NOFILE; like liburing, on
 * -EMFILE raise the soft limit (up to the hard one) once and retry.
 */
static int ar_raise_nofile(unsigned nr)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur >= nr)
		return 0;
	rl.rlim_cur += nr;
	if (rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	return 0;
}

static int ar_register_files_retry(struct io_uring *ring, unsigned opcode,
				   const int *files, const __u64 *tags,
				   unsigned nr, unsigned flags)
{
	int raised = 0, ret;

	for (;;) {
		if (opcode == IORING_REGISTER_FILES)
			ret = ar_zero_or_err(ar_ring_register(ring, opcode,
							      files, nr));
		else
			ret = ar_register_rsrc(ring, opcode, files, tags, nr,
					       flags);
		if (ret != -EMFILE || raised)
			return ret;
		raised = 1;
		ar_raise_nofile(nr);
	}
}

AR_EXPORT int io_uring_register_files(struct io_uring *ring, const int *files,
				      unsigned nr_files)
{
	return ar_register_files_retry(ring, IORING_REGISTER_FILES, files,
				       NULL, nr_files, 0);
}

AR_EXPORT int io_uring_register_files_tags(struct io_uring *ring,
					   const int *files,
					   const __u64 *tags, unsigned nr)
{
	return ar_register_files_retry(ring, IORING_REGISTER_FILES2, files,
				       tags, nr, 0);
}

AR_EXPORT int io_uring_register_files_sparse(struct io_uring *ring,
					     unsigned nr)
{
	return ar_register_files_retry(ring, IORING_REGISTER_FILES2, NULL,
				       NULL, nr, IORING_RSRC_REGISTER_SPARSE);
}

AR_EXPORT int io_uring_register_files_update_tag(struct io_uring *ring,
						 unsigned off,
						 const int *files,
						 const __u64 *tags,
						 unsigned nr_files)
{
	return ar_update_rsrc(ring, IORING_REGISTER_FILES_UPDATE2, off, files,
			      tags, nr_files);
}

AR_EXPORT int io_uring_register_files_update(struct io_uring *ring,
					     unsigned off, const int *files,
					     unsigned nr_files)
{
	struct io_uring_files_update up;

	memset(&up, 0, sizeof(up));
	up.offset = off;
	up.fds = (unsigned long)files;
	return ar_ring_register(ring, IORING_REGISTER_FILES_UPDATE, &up,
				nr_files);
}

AR_EXPORT int io_uring_unregister_files(struct io_uring *ring)
{
	return ar_zero_or_err(ar_ring_register(ring, IORING_UNREGISTER_FILES,
					       NULL, 0));
}

AR_EXPORT int io_uring_register_eventfd(struct io_uring *ring, int fd)
{
	return ar_zero_or_err(ar_ring_register(ring, IORING_REGISTER_EVENTFD,
					       &fd, 1));
}

AR_EXPORT int io_uring_register_eventfd_async(struct io_uring *ring, int fd)
{
	return ar_zero_or_err(ar_ring_register(ring,
					       IORING_REGISTER_EVENTFD_ASYNC,
					       &fd, 1));
}

AR_EXPORT int io_uring_unregister_eventfd(struct io_uring *ring)
{
	return ar_zero_or_err(ar_ring_register(ring, IORING_UNREGISTER_EVENTFD,
					       NULL, 0));
}

AR_EXPORT int io_uring_register_probe(struct io_uring *ring,
				      struct io_uring_probe *p, unsigned nr)
{
	return ar_zero_or_err(ar_ring_register(ring, IORING_REGISTER_PROBE, p,
					       nr));
}

AR_EXPORT int io_uring_register_personality(struct io_uring *ring)
{
	return ar_ring_register(ring, IORING_REGISTER_PERSONALITY, NULL, 0);
}

AR_EXPORT int io_uring_unregister_personality(struct io_uring *ring, int id)
{
	return ar_ring_register(ring, IORING_UNREGISTER_PERSONALITY, NULL,
				(unsigned)id);
}

AR_EXPORT int io_uring_register_restrictions(struct io_uring *ring,
					     struct io_uring_restriction *res,
					     unsigned nr_res)
{
	return ar_zero_or_err(ar_ring_register(ring,
					       IORING_REGISTER_RESTRICTIONS,
					       res, nr_res));
}

AR_EXPORT int io_uring_enable_rings(struct io_uring *ring)
{
	return ar_ring_register(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
}

AR_EXPORT int io_uring_register_iowq_aff(struct io_uring *ring, size_t cpusz,
					 const cpu_set_t *mask)
{
	if (cpusz >= (1U << 31))
		return -EINVAL;
	return ar_ring_register(ring, IORING_REGISTER_IOWQ_AFF, mask,
				(unsigned)cpusz);
}

AR_EXPORT int io_uring_unregister_iowq_aff(struct io_uring *ring)
{
	return ar_ring_register(ring, IORING_UNREGISTER_IOWQ_AFF, NULL, 0);
}

AR_EXPORT int io_uring_register_iowq_max_workers(struct io_uring *ring,
						 unsigned *values)
{
	return ar_ring_register(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, values,
				2);
}

AR_EXPORT int io_uring_register_ring_fd(struct io_uring *ring)
{
	struct io_uring_rsrc_update up;
	int ret;

	if (ring->int_flags & AR_INT_FLAG_REG_RING)
		return -EEXIST;
	memset(&up, 0, sizeof(up));
	up.offset = -1U;	/* any free slot */
	up.data = (unsigned)ring->ring_fd;
	ret = ar_ring_register(ring, IORING_REGISTER_RING_FDS, &up, 1);
	if (ret == 1) {
		ring->enter_ring_fd = (int)up.offset;
		ring->int_flags |= AR_INT_FLAG_REG_RING;
	}
	return ret;
}

AR_EXPORT int io_uring_unregister_ring_fd(struct io_uring *ring)
{
	struct io_uring_rsrc_update up;
	int ret;

	if (!(ring->int_flags & AR_INT_FLAG_REG_RING))
		return -EINVAL;
	memset(&up, 0, sizeof(up));
	up.offset = (unsigned)ring->enter_ring_fd;
	ret = ar_ring_register(ring, IORING_UNREGISTER_RING_FDS, &up, 1);
	if (ret == 1) {
		ring->enter_ring_fd = ring->ring_fd;
		ring->int_flags &= ~AR_INT_FLAG_REG_RING;
	}
	return ret;
}

AR_EXPORT int io_uring_register_buf_ring(struct io_uring *ring,
					 struct io_uring_buf_reg *reg,
					 unsigned flags)
{
	__u16 f;

	/* liburing 2.4 on: flags join reg's (compat.h: ar_buf_reg) */
	memcpy(&f, (char *)reg + offsetof(struct ar_buf_reg, flags), sizeof(f));
	f |= (__u16)flags;
	memcpy((char *)reg + offsetof(struct ar_buf_reg, flags), &f, sizeof(f));
	return ar_ring_register(ring, IORING_REGISTER_PBUF_RING, reg, 1);
}

AR_EXPORT int io_uring_unregister_buf_ring(struct io_uring *ring, int bgid)
{
	struct io_uring_buf_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.bgid = (__u16)bgid;
	return ar_ring_register(ring, IORING_UNREGISTER_PBUF_RING, &reg, 1);
}

AR_EXPORT int io_uring_register_sync_cancel(struct io_uring *ring,
					    struct io_uring_sync_cancel_reg *reg)
{
	return ar_ring_register(ring, IORING_REGISTER_SYNC_CANCEL, reg, 1);
}

AR_EXPORT int io_uring_register_file_alloc_range(struct io_uring *ring,
						 unsigned off, unsigned len)
{
	struct io_uring_file_index_range range;

	memset(&range, 0, sizeof(range));
	range.off = off;
	range.len = len;
	return ar_ring_register(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range,
				0);
}

/*
 * liburing 2.4 moved io_uring_enable_rings and
 * io_uring_register_restrictions into its map (LIBURING_2.4); anyring
 * exported them as ANYRING_0.1 before. Programs linked then ask for
 * that version: it stays, as a non-default alias of the same function.
 */
#define AR_SYMVER_ALIAS(impl, name, ver)				\
	__asm__(".symver " #impl ", " #name "@" #ver ", remove")

AR_EXPORT int ar_register_restrictions_v01(struct io_uring *ring,
					   struct io_uring_restriction *res,
					   unsigned nr_res);
AR_EXPORT int ar_register_restrictions_v01(struct io_uring *ring,
					   struct io_uring_restriction *res,
					   unsigned nr_res)
{
	return io_uring_register_restrictions(ring, res, nr_res);
}
AR_SYMVER_ALIAS(ar_register_restrictions_v01, io_uring_register_restrictions,
		ANYRING_0.1);

AR_EXPORT int ar_enable_rings_v01(struct io_uring *ring);
AR_EXPORT int ar_enable_rings_v01(struct io_uring *ring)
{
	return io_uring_enable_rings(ring);
}
AR_SYMVER_ALIAS(ar_enable_rings_v01, io_uring_enable_rings, ANYRING_0.1);

/* liburing 2.4: close the ring's fd, which the registered index keeps */
AR_EXPORT int io_uring_close_ring_fd(struct io_uring *ring)
{
	const struct ar_engine *e;
	void *obj;

	if (!(ring->features & IORING_FEAT_REG_REG_RING))
		return -EOPNOTSUPP;
	if (!(ring->int_flags & AR_INT_FLAG_REG_RING))
		return -EINVAL;
	if (ring->ring_fd == -1)
		return -EBADF;
	/* through its engine, which drops what it keeps for the fd */
	e = ar_engine_lookup(ring->ring_fd, &obj);
	e->close(obj, ring->ring_fd);
	ring->ring_fd = -1;
	return 1;
}

/* liburing 2.6: the head of buffer group buf_group's ring (PBUF_STATUS) */
AR_EXPORT int io_uring_buf_ring_head(struct io_uring *ring, int buf_group,
				     uint16_t *head)
{
	struct ar_buf_status st;
	int ret;

	memset(&st, 0, sizeof(st));
	st.buf_group = (__u32)buf_group;
	ret = ar_ring_register(ring, AR_REGISTER_PBUF_STATUS, &st, 1);
	if (ret)
		return ret;
	*head = (uint16_t)st.head;
	return 0;
}

AR_EXPORT int io_uring_register_napi(struct io_uring *ring,
				     struct io_uring_napi *napi)
{
	return ar_ring_register(ring, AR_REGISTER_NAPI, napi, 1);
}

AR_EXPORT int io_uring_unregister_napi(struct io_uring *ring,
				       struct io_uring_napi *napi)
{
	return ar_ring_register(ring, AR_UNREGISTER_NAPI, napi, 1);
}

AR_EXPORT int io_uring_register_clock(struct io_uring *ring,
				      struct io_uring_clock_register *arg)
{
	return ar_ring_register(ring, AR_REGISTER_CLOCK, arg, 0);
}

/*
 * IORING_REGISTER_CLONE_BUFFERS: src names its ring by its registered
 * index if asked (SRC_REGISTERED) and it has one the register calls
 * take (IORING_FEAT_REG_REG_RING), else by its fd.
 */
AR_EXPORT int __io_uring_clone_buffers_offset(struct io_uring *dst,
					      struct io_uring *src,
					      unsigned int dst_off,
					      unsigned int src_off,
					      unsigned int nr,
					      unsigned int flags)
{
	struct ar_clone_buffers cb;

	memset(&cb, 0, sizeof(cb));
	cb.flags = flags;
	cb.src_off = src_off;
	cb.dst_off = dst_off;
	cb.nr = nr;
	if ((flags & AR_REGISTER_SRC_REGISTERED) &&
	    (src->int_flags & AR_INT_FLAG_REG_RING) &&
	    (src->features & IORING_FEAT_REG_REG_RING)) {
		cb.src_fd = (__u32)src->enter_ring_fd;
	} else {
		cb.src_fd = (__u32)src->ring_fd;
		cb.flags &= ~AR_REGISTER_SRC_REGISTERED;
	}
	return ar_ring_register(dst, AR_REGISTER_CLONE_BUFFERS, &cb, 1);
}

AR_EXPORT int io_uring_clone_buffers_offset(struct io_uring *dst,
					    struct io_uring *src,
					    unsigned int dst_off,
					    unsigned int src_off,
					    unsigned int nr, unsigned int flags)
{
	return __io_uring_clone_buffers_offset(dst, src, dst_off, src_off, nr,
					       flags | AR_REGISTER_SRC_REGISTERED);
}

AR_EXPORT int io_uring_clone_buffers(struct io_uring *dst, struct io_uring *src)
{
	return __io_uring_clone_buffers_offset(dst, src, 0, 0, 0,
					       AR_REGISTER_SRC_REGISTERED);
}

AR_EXPORT int __io_uring_clone_buffers(struct io_uring *dst,
				       struct io_uring *src,
				       unsigned int flags)
{
	return __io_uring_clone_buffers_offset(dst, src, 0, 0, 0, flags);
}

AR_EXPORT int io_uring_register_ifq(struct io_uring *ring,
				    struct io_uring_zcrx_ifq_reg *reg)
{
	return ar_ring_register(ring, AR_REGISTER_ZCRX_IFQ, reg, 1);
}

AR_EXPORT int io_uring_register_zcrx_ctrl(struct io_uring *ring,
					  struct zcrx_ctrl *ctrl)
{
	return ar_ring_register(ring, AR_REGISTER_ZCRX_CTRL, ctrl, 0);
}

AR_EXPORT int io_uring_register_region(struct io_uring *ring,
				       struct io_uring_mem_region_reg *reg)
{
	return ar_ring_register(ring, AR_REGISTER_MEM_REGION, reg, 1);
}

/*
 * liburing 2.9 declares it but registers wait regions with
 * io_uring_register_region(): this one always fails, -EINVAL.
 */
AR_EXPORT int io_uring_register_wait_reg(struct io_uring *ring,
					 struct io_uring_reg_wait *reg, int nr)
{
	(void)ring, (void)reg, (void)nr;
	return -EINVAL;
}

AR_EXPORT int io_uring_register_bpf_filter(struct io_uring *ring,
					   struct io_uring_bpf *bpf)
{
	return ar_ring_register(ring, AR_REGISTER_BPF_FILTER, bpf, 1);
}

/* the registers on no ring: io_uring_register(2) on fd -1 */
AR_EXPORT int io_uring_register_bpf_filter_task(struct io_uring_bpf *bpf)
{
	return ar_register_fd((unsigned)-1, AR_REGISTER_BPF_FILTER, bpf, 1);
}

AR_EXPORT int io_uring_register_query(struct io_uring_query_hdr *query)
{
	return ar_register_fd((unsigned)-1, AR_REGISTER_QUERY, query, 0);
}

/*
 * A MSG_RING SQE run at once. Its target is the sqe's fd: a user ring's
 * fd is no io_uring to the kernel, and the user engine has no
 * SEND_MSG_RING, so it answers as 6.18 does for an opcode it lacks.
 */
AR_EXPORT int io_uring_register_sync_msg(struct io_uring_sqe *sqe)
{
	void *obj;

	if (sqe && !(sqe->flags & IOSQE_FIXED_FILE) &&
	    ar_engine_lookup_file(sqe->fd, &obj) == &ar_user_engine) {
		ar_debug("user engine: IORING_REGISTER_SEND_MSG_RING not supported");
		return -EINVAL;
	}
	return ar_register_fd((unsigned)-1, AR_REGISTER_SEND_MSG_RING, sqe, 1);
}

/* liburing 2.10: whether the ring's waits count as iowait */
AR_EXPORT int io_uring_set_iowait(struct io_uring *ring, bool enable_iowait)
{
	if (!(ring->features & IORING_FEAT_NO_IOWAIT))
		return -EOPNOTSUPP;
	if (enable_iowait)
		ring->int_flags &= (__u8)~AR_INT_FLAG_NO_IOWAIT;
	else
		ring->int_flags |= AR_INT_FLAG_NO_IOWAIT;
	return 0;
}

/*
 * liburing 2.9: new sizes for the rings (IORING_REGISTER_RESIZE_RINGS),
 * then the new rings mapped in place of the old, the SQEs handed out but
 * not submitted kept. p->flags is cleared, success or not.
 */
/* the kernel's SMP_CACHE_BYTES, which aligns the SQ array */
#if defined(__s390__)
#define AR_CACHELINE	256U
#elif defined(__powerpc__)
#define AR_CACHELINE	128U
#else
#define AR_CACHELINE	64U
#endif

AR_EXPORT int io_uring_resize_rings(struct io_uring *ring,
				    struct io_uring_params *p)
{
	size_t sqe_sz = sizeof(struct io_uring_sqe) <<
			!!(ring->flags & IORING_SETUP_SQE128);
	unsigned sqe_head, sqe_tail, i;
	const struct ar_engine *e;
	struct io_uring nr;
	void *obj;
	int ret;

	if (ring->flags & IORING_SETUP_NO_MMAP)
		return -EINVAL;
	memset(&p->sq_off, 0, sizeof(p->sq_off));
	memset(&p->cq_off, 0, sizeof(p->cq_off));
	ret = ar_ring_register(ring, AR_REGISTER_RESIZE_RINGS, p, 1);
	if (ret < 0)
		goto out;

	/*
	 * The kernel (6.13 to 6.18 at least) fills in every offset but the
	 * SQ array's, left 0 (it sets that one at setup only). Its place in
	 * the new rings is the kernel's: behind the CQEs, at a cache line.
	 */
	if (!(ring->flags & IORING_SETUP_NO_SQARRAY) && !p->sq_off.array)
		p->sq_off.array = (p->cq_off.cqes + p->cq_entries *
				   (unsigned)(sizeof(struct io_uring_cqe) <<
					      !!(ring->flags & IORING_SETUP_CQE32)) +
				   AR_CACHELINE - 1) & ~(AR_CACHELINE - 1U);
	e = ar_ring_lookup(ring, &obj);
	memset(&nr, 0, sizeof(nr));
	ret = e->mmap(obj, ring->ring_fd, p, &nr);
	if (ret)
		goto out;
	if (e->kring && obj) {
		/* the kernel ring's counters follow the new CQ indices */
		struct ar_kring *kr = obj;

		kr->cq_khead = nr.cq.khead;
		kr->cq_ktail = nr.cq.ktail;
	}
	sqe_head = ring->sq.sqe_head;
	sqe_tail = ring->sq.sqe_tail;
	/*
	 * The kernel moved the SQEs it was given; those handed out since
	 * (sqe_head to sqe_tail) move here, or they would be submitted
	 * as the new array's zeroes (liburing 2.15 loses them).
	 */
	for (i = sqe_head; i != sqe_tail &&
	     i - sqe_head < nr.sq.ring_entries; i++)
		memcpy((char *)nr.sq.sqes + (size_t)(i & nr.sq.ring_mask) * sqe_sz,
		       (char *)ring->sq.sqes + (size_t)(i & ring->sq.ring_mask) * sqe_sz,
		       sqe_sz);
	e->unmap(ring);
	ring->sq = nr.sq;
	ring->cq = nr.cq;
	ring->sq.sqe_head = sqe_head;
	ring->sq.sqe_tail = sqe_tail;
	if (!(p->flags & IORING_SETUP_NO_SQARRAY) && ring->sq.array)
		for (i = 0; i < p->sq_entries; i++)
			ring->sq.array[i] = i;
out:
	p->flags = 0;
	return ret;
}
