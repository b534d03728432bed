/* SPDX-License-Identifier: MIT */
/*
 * region.c - the ring's parameter region (the kernel's param_region,
 * io_uring/register.c io_register_mem_region() and memmap.c
 * io_create_region()): IORING_REGISTER_MEM_REGION, once per ring, of the
 * program's memory (IORING_MEM_REGION_TYPE_USER) or of memory the engine
 * allocates, which the program maps at IORING_MAP_OFF_PARAM_REGION. With
 * IORING_MEM_REGION_REG_WAIT_ARG, registered only while the ring is
 * disabled (no waiter can be in it), its struct io_uring_reg_wait
 * entries are the wait arguments of IORING_ENTER_EXT_ARG_REG.
 *
 * The program's memory is pinned as a buffer ring's (pin.c): a shared
 * mapping is mapped again for the engine, private memory is read in
 * place with the fault-safe copy, so an entry the program unmapped gives
 * -EFAULT where the kernel's pinned pages still hold the old one.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/pin.h"
#include "user/lock.h"
#include "user/region.h"

#define AR_REGION_PAGE			4096ULL

static bool ar_zero(const __u64 *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i])
			return false;
	return true;
}

/* io_create_region(): the checks, in the kernel's order, then the memory */
static int ar_region_create(struct ar_region *r, struct ar_region_desc *rd)
{
	bool user = rd->flags & AR_MEM_REGION_TYPE_USER;
	__u64 end;
	void *p;
	int ret;

	if (!ar_zero(rd->resv, 4))
		return -EINVAL;
	if (rd->flags & ~AR_MEM_REGION_TYPE_USER)
		return -EINVAL;
	/* user_addr is set if and only if the memory is the program's */
	if (user != !!rd->user_addr)
		return -EFAULT;
	if (!rd->size || rd->mmap_offset || rd->id)
		return -EINVAL;
	if ((rd->size / AR_REGION_PAGE) > INT32_MAX)
		return -E2BIG;
	if ((rd->user_addr | rd->size) & (AR_REGION_PAGE - 1))
		return -EINVAL;
	if (__builtin_add_overflow(rd->user_addr, rd->size, &end))
		return -EOVERFLOW;
	memset(r, 0, sizeof(*r));
	r->size = rd->size;
	if (user) {
		ret = ar_pin_region(rd->user_addr, rd->size, &r->pin);
		if (ret)
			return ret;
		r->base = r->pin ? ar_pinned_addr(r->pin) :
				   (void *)(uintptr_t)rd->user_addr;
		return 0;
	}
	/* shared: the program's mmap maps these pages again (ctx.c) */
	p = mmap(NULL, rd->size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	r->base = p;
	r->kernel_mem = true;
	rd->mmap_offset = AR_MAP_OFF_PARAM_REGION;
	return 0;
}

static void ar_region_release(struct ar_region *r)
{
	if (r->kernel_mem)
		munmap(r->base, r->size);
	else
		ar_unpin_pages(r->pin);
	memset(r, 0, sizeof(*r));
}

static int ar_reg_mem_region_locked(struct ar_uctx *ctx, void *arg)
{
	struct ar_mem_region_reg reg;
	struct ar_region_desc rd;
	void *rd_uptr;
	struct ar_region r;
	int ret;

	if (ctx->param_region.size)
		return -EBUSY;
	if (ar_copy_from_user(&reg, arg, sizeof(reg)))
		return -EFAULT;
	rd_uptr = (void *)(uintptr_t)reg.region_uptr;
	if (ar_copy_from_user(&rd, rd_uptr, sizeof(rd)))
		return -EFAULT;
	if (!ar_zero(reg.resv, 2))
		return -EINVAL;
	if (reg.flags & ~AR_MEM_REGION_REG_WAIT_ARG)
		return -EINVAL;
	/* no waiter may be in the ring while its wait arguments appear */
	if ((reg.flags & AR_MEM_REGION_REG_WAIT_ARG) && !ctx->disabled)
		return -EINVAL;
	ret = ar_region_create(&r, &rd);
	if (ret)
		return ret;
	if (ar_copy_to_user(rd_uptr, &rd, sizeof(rd))) {
		ar_region_release(&r);
		return -EFAULT;
	}
	if (reg.flags & AR_MEM_REGION_REG_WAIT_ARG)
		r.wait_size = r.size;
	ctx->param_region = r;
	return 0;
}

int ar_reg_mem_region(struct ar_uctx *ctx, void *arg)
{
	int ret;

	/* one region a ring: the look and the store under uring_lock */
	ar_uring_lock(ctx);
	ret = ar_reg_mem_region_locked(ctx, arg);
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	return ret;
}

/*
 * The wait argument at byte offset off of the region: the kernel's
 * io_get_ext_arg_reg(), -EFAULT for an offset that is not a multiple of
 * a long or whose entry does not fit (no region: a size of 0).
 */
int ar_region_wait_arg(struct ar_uctx *ctx, unsigned long off,
		       struct ar_reg_wait *w)
{
	const struct ar_region *r = &ctx->param_region;
	unsigned long end;

	if (off % sizeof(long))
		return -EFAULT;
	if (__builtin_add_overflow(off, sizeof(*w), &end) || end > r->wait_size)
		return -EFAULT;
	/* the program's private memory is read where it is: fault-safe */
	if (ar_copy_from_user(w, (const char *)r->base + off, sizeof(*w)))
		return -EFAULT;
	return 0;
}

/* the program's mmap at IORING_MAP_OFF_PARAM_REGION: the engine's pages */
void *ar_region_mmap(struct ar_uctx *ctx, size_t len)
{
	const struct ar_region *r = &ctx->param_region;

	/* io_region_validate_mmap(): none, or the program's own memory */
	if (!r->size || !r->kernel_mem || len > r->size)
		return NULL;
	return r->base;
}

void ar_region_free(struct ar_uctx *ctx)
{
	if (ctx->param_region.size)
		ar_region_release(&ctx->param_region);
}
