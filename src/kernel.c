/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - the kernel engine: the real io_uring through raw syscalls.
 *
 * Setup, enter and register go straight to the kernel. Mapping follows the
 * kernel's offsets: the SQ ring, the CQ ring (the same mapping when the
 * kernel reports IORING_FEAT_SINGLE_MMAP) and the SQE array.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"

static size_t ar_sqe_size(unsigned flags)
{
	return sizeof(struct io_uring_sqe) << !!(flags & IORING_SETUP_SQE128);
}

static size_t ar_cqe_size(unsigned flags)
{
	return sizeof(struct io_uring_cqe) << !!(flags & IORING_SETUP_CQE32);
}

static void ar_kernel_unmap(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	struct io_uring_cq *cq = &ring->cq;

	if (sq->sqes && sq->sqes != MAP_FAILED)
		munmap(sq->sqes, ar_sqe_size(ring->flags) * sq->ring_entries);
	if (cq->ring_ptr && cq->ring_ptr != MAP_FAILED &&
	    cq->ring_ptr != sq->ring_ptr)
		munmap(cq->ring_ptr, cq->ring_sz);
	if (sq->ring_ptr && sq->ring_ptr != MAP_FAILED)
		munmap(sq->ring_ptr, sq->ring_sz);
	sq->ring_ptr = cq->ring_ptr = NULL;
	sq->sqes = NULL;
}

static void *ar_map(int fd, size_t len, off_t off)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, off);
}

static int ar_kernel_mmap(int fd, struct io_uring_params *p,
			  struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	struct io_uring_cq *cq = &ring->cq;
	int err;

	/* with NO_SQARRAY the SQ ring ends at the last field, there is no array */
	if (p->flags & IORING_SETUP_NO_SQARRAY)
		sq->ring_sz = p->sq_off.dropped + sizeof(unsigned);
	else
		sq->ring_sz = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	cq->ring_sz = p->cq_off.cqes + p->cq_entries * ar_cqe_size(p->flags);
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		if (cq->ring_sz > sq->ring_sz)
			sq->ring_sz = cq->ring_sz;
		cq->ring_sz = sq->ring_sz;
	}

	/* set now so a failed mapping is unmapped with the right lengths */
	ring->flags = p->flags;
	sq->ring_entries = p->sq_entries;
	sq->ring_ptr = ar_map(fd, sq->ring_sz, IORING_OFF_SQ_RING);
	if (sq->ring_ptr == MAP_FAILED)
		goto fail;
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		cq->ring_ptr = sq->ring_ptr;
	} else {
		cq->ring_ptr = ar_map(fd, cq->ring_sz, IORING_OFF_CQ_RING);
		if (cq->ring_ptr == MAP_FAILED)
			goto fail;
	}
	sq->sqes = ar_map(fd, ar_sqe_size(p->flags) * p->sq_entries,
			  IORING_OFF_SQES);
	if (sq->sqes == MAP_FAILED)
		goto fail;

	sq->khead = (unsigned *)((char *)sq->ring_ptr + p->sq_off.head);
	sq->ktail = (unsigned *)((char *)sq->ring_ptr + p->sq_off.tail);
	sq->kring_mask = (unsigned *)((char *)sq->ring_ptr + p->sq_off.ring_mask);
	sq->kring_entries = (unsigned *)((char *)sq->ring_ptr + p->sq_off.ring_entries);
	sq->kflags = (unsigned *)((char *)sq->ring_ptr + p->sq_off.flags);
	sq->kdropped = (unsigned *)((char *)sq->ring_ptr + p->sq_off.dropped);
	if (!(p->flags & IORING_SETUP_NO_SQARRAY))
		sq->array = (unsigned *)((char *)sq->ring_ptr + p->sq_off.array);
	sq->ring_mask = *sq->kring_mask;
	sq->ring_entries = *sq->kring_entries;

	cq->khead = (unsigned *)((char *)cq->ring_ptr + p->cq_off.head);
	cq->ktail = (unsigned *)((char *)cq->ring_ptr + p->cq_off.tail);
	cq->kring_mask = (unsigned *)((char *)cq->ring_ptr + p->cq_off.ring_mask);
	cq->kring_entries = (unsigned *)((char *)cq->ring_ptr + p->cq_off.ring_entries);
	cq->koverflow = (unsigned *)((char *)cq->ring_ptr + p->cq_off.overflow);
	cq->cqes = (struct io_uring_cqe *)((char *)cq->ring_ptr + p->cq_off.cqes);
	if (p->cq_off.flags)
		cq->kflags = (unsigned *)((char *)cq->ring_ptr + p->cq_off.flags);
	cq->ring_mask = *cq->kring_mask;
	cq->ring_entries = *cq->kring_entries;
	return 0;
fail:
	err = -errno;
	ar_kernel_unmap(ring);
	return err;
}

static int ar_kernel_close(int fd)
{
	return ar_sys_close(fd);
}

const struct ar_engine ar_kernel_engine = {
	.name	= "kernel",
	.setup	= ar_sys_setup,
	.mmap	= ar_kernel_mmap,
	.unmap	= ar_kernel_unmap,
	.enter	= ar_sys_enter,
	.reg	= ar_sys_register,
	.close	= ar_kernel_close,
};
