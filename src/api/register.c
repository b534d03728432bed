/* SPDX-License-Identifier: MIT */
/*
 * register.c - the io_uring_register*() calls of liburing 2.3, each one
 * io_uring_register(2) through the ring's engine, with liburing's return
 * conventions (0 on success where liburing returns 0).
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include "engine/engine.h"

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
	(void)flags;	/* liburing 2.3 takes it and passes nothing on */
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
