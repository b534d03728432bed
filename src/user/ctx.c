/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - the user engine's ring context: io_uring_setup's checks, the
 * rings in the kernel's layout, the ring fd, and teardown.
 *
 * The ring fd is one end of a socket pair claimed in the engine table: a
 * real fd the application can close-on-exec, dup or poll. It is made
 * readable when a CQE lands in an empty CQ and reset when the ring is
 * found with nothing pending (ringfd.c; docs/semantics.md D1), and the
 * ring ends when it is closed for the last time (release.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include "lib/uaccess.h"
#include "user/fork.h"
#include "user/types.h"
#include "user/timeout.h"
#include "user/fault.h"
#include "user/lock.h"
#include "user/ctx.h"
#include "user/submit.h"
#include "user/req.h"
#include "user/complete.h"
#include "user/tw.h"
#include "user/spread.h"
#include "user/wait.h"
#include "user/iowq.h"
#include "user/kbuf.h"
#include "user/region.h"
#include "user/svc.h"
#include "user/poll.h"
#include "user/aiopoll.h"
#include "user/cancel.h"
#include "user/rsrc.h"
#include "user/register.h"
#include "user/sqpoll.h"
#include "engine/engine.h"
#include "user/ringfd.h"
#include "user/release.h"
#include "user/pin.h"
#include "user/iopoll.h"
#include "user/backend.h"
#include "user/aio.h"
#include "user/query.h"
#include "lib/sysraw.h"

#define AR_SETUP_KNOWN (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL |	\
	IORING_SETUP_SQ_AFF | IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | \
	IORING_SETUP_ATTACH_WQ | IORING_SETUP_R_DISABLED |		\
	IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN |		\
	IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SQE128 |		\
	IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER |		\
	IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_NO_MMAP |		\
	IORING_SETUP_REGISTERED_FD_ONLY | IORING_SETUP_NO_SQARRAY |	\
	IORING_SETUP_HYBRID_IOPOLL | IORING_SETUP_CQE_MIXED)

/* the features this engine honours; see docs/semantics.md */
#define AR_USER_FEATURES (IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | \
	IORING_FEAT_SUBMIT_STABLE | IORING_FEAT_RW_CUR_POS |		\
	IORING_FEAT_CUR_PERSONALITY | IORING_FEAT_FAST_POLL |		\
	IORING_FEAT_POLL_32BITS | IORING_FEAT_SQPOLL_NONFIXED |		\
	IORING_FEAT_EXT_ARG |						\
	IORING_FEAT_NATIVE_WORKERS | IORING_FEAT_RSRC_TAGS |		\
	IORING_FEAT_CQE_SKIP | IORING_FEAT_LINKED_FILE |		\
	IORING_FEAT_MIN_TIMEOUT | IORING_FEAT_NO_IOWAIT |		\
	IORING_FEAT_RECVSEND_BUNDLE | IORING_FEAT_REG_REG_RING)

__u64 ar_user_features(void)
{
	return AR_USER_FEATURES;
}

/* the setup flags taken: not a ring without an fd (D3) */
__u64 ar_user_setup_flags(void)
{
	return AR_SETUP_KNOWN & ~(__u64)IORING_SETUP_REGISTERED_FD_ONLY;
}

/* fault.h: is the ring being torn down? */
bool ar_ring_exiting(struct ar_uctx *ctx)
{
	bool exiting;

	/* written under ctx->lock (cancel.c); read under it once per slice */
	ar_ctx_lock(ctx);
	exiting = ctx->exiting;
	ar_ctx_unlock(ctx);
	return exiting;
}

/*
 * The user ring fd refers to, if any (no reference taken): its own fd or
 * a dup of it. For setup, registration and CLOSE, not the I/O paths: an
 * fd no engine claimed costs an fstat (ar_engine_lookup_file()).
 */
struct ar_uctx *ar_uctx_of_fd(int fd)
{
	return ar_engine_obj_file(fd, &ar_user_engine);
}

static unsigned ar_pow2(unsigned v)
{
	unsigned r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

static bool ar_params_resv_clear(const struct io_uring_params *p)
{
	unsigned i;

	for (i = 0; i < sizeof(p->resv) / sizeof(p->resv[0]); i++)
		if (p->resv[i])
			return false;
	return true;
}

/* io_uring_setup's argument checks, in the kernel's terms (all -EINVAL) */
static int ar_setup_check(unsigned *entries, struct io_uring_params *p)
{
	unsigned f = p->flags;
	unsigned sq, cq;

	if (!ar_params_resv_clear(p) || (f & ~AR_SETUP_KNOWN))
		return -EINVAL;
	if ((f & IORING_SETUP_REGISTERED_FD_ONLY) && !(f & IORING_SETUP_NO_MMAP))
		return -EINVAL;
	if ((f & IORING_SETUP_SQ_AFF) && !(f & IORING_SETUP_SQPOLL))
		return -EINVAL;
	if ((f & IORING_SETUP_SQPOLL) && (f & (IORING_SETUP_COOP_TASKRUN |
	    IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_DEFER_TASKRUN)))
		return -EINVAL;
	if ((f & IORING_SETUP_TASKRUN_FLAG) &&
	    !(f & (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN)))
		return -EINVAL;
	if ((f & IORING_SETUP_DEFER_TASKRUN) && !(f & IORING_SETUP_SINGLE_ISSUER))
		return -EINVAL;
	if ((f & IORING_SETUP_HYBRID_IOPOLL) && !(f & IORING_SETUP_IOPOLL))
		return -EINVAL;
	if ((f & IORING_SETUP_CQE32) && (f & IORING_SETUP_CQE_MIXED))
		return -EINVAL;

	if (!*entries)
		return -EINVAL;
	if (*entries > AR_MAX_ENTRIES) {
		if (!(f & IORING_SETUP_CLAMP))
			return -EINVAL;
		*entries = AR_MAX_ENTRIES;
	}
	sq = ar_pow2(*entries);
	if (f & IORING_SETUP_CQSIZE) {
		if (!p->cq_entries)
			return -EINVAL;
		cq = p->cq_entries;
		if (cq > AR_MAX_CQ_ENTRIES) {
			if (!(f & IORING_SETUP_CLAMP))
				return -EINVAL;
			cq = AR_MAX_CQ_ENTRIES;
		}
		cq = ar_pow2(cq);
		if (cq < sq)
			return -EINVAL;
	} else {
		cq = 2 * sq;
	}
	p->sq_entries = sq;
	p->cq_entries = cq;
	return 0;
}

static void ar_fill_offsets(unsigned flags, unsigned cq_entries,
			    struct io_uring_params *p)
{
	/* the kernel's rings_size(): with CQE32 the whole size doubles */
	size_t cqes_end = (offsetof(struct ar_rings, cqes) +
		(size_t)cq_entries * sizeof(struct io_uring_cqe)) <<
		!!(flags & IORING_SETUP_CQE32);

	memset(&p->sq_off, 0, sizeof(p->sq_off));
	memset(&p->cq_off, 0, sizeof(p->cq_off));
	p->sq_off.head = offsetof(struct ar_rings, sq.head);
	p->sq_off.tail = offsetof(struct ar_rings, sq.tail);
	p->sq_off.ring_mask = offsetof(struct ar_rings, sq_ring_mask);
	p->sq_off.ring_entries = offsetof(struct ar_rings, sq_ring_entries);
	p->sq_off.flags = offsetof(struct ar_rings, sq_flags);
	p->sq_off.dropped = offsetof(struct ar_rings, sq_dropped);
	if (!(flags & IORING_SETUP_NO_SQARRAY))
		p->sq_off.array = (__u32)((cqes_end + 63) & ~(size_t)63);
	p->cq_off.head = offsetof(struct ar_rings, cq.head);
	p->cq_off.tail = offsetof(struct ar_rings, cq.tail);
	p->cq_off.ring_mask = offsetof(struct ar_rings, cq_ring_mask);
	p->cq_off.ring_entries = offsetof(struct ar_rings, cq_ring_entries);
	p->cq_off.overflow = offsetof(struct ar_rings, cq_overflow);
	p->cq_off.cqes = offsetof(struct ar_rings, cqes);
	p->cq_off.flags = offsetof(struct ar_rings, cq_flags);
}

/*
 * The engine's own memory for rings or SQEs: shared anonymous memory, as
 * the kernel's ring mapping, so that a forked child's are the parent's;
 * no fd is spent on it (a program sees the fd numbers it would see on the
 * kernel), and mremap() can map the same pages again for a program that
 * maps them itself (the trap).
 */
static void *ar_map_shared(size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

/*
 * IORING_SETUP_NO_MMAP: the rings are the application's memory, as
 * io_allocate_scq_urings() takes it: both rings and the SQ array at
 * cq_off.user_addr, the SQEs at sq_off.user_addr, each region (its size
 * rounded up to whole pages) checked and pinned in that order as
 * io_create_region() does (pin.c: an address of 0 -EFAULT, one not
 * page-aligned -EINVAL, memory the kernel could not pin -EFAULT). The
 * engine works on them in place, or through its alias of shared pages.
 */
static int ar_user_rings(struct ar_uctx *ctx, __u64 sq_addr, __u64 cq_addr)
{
	size_t page = 4096;
	int ret;

	ctx->user_mem = true;
	ret = ar_pin_region(cq_addr, (ctx->rings_sz + page - 1) & ~(page - 1),
			    &ctx->rings_pin);
	if (ret)
		return ret;
	ctx->rings = ctx->rings_pin ? ar_pinned_addr(ctx->rings_pin) :
				      (void *)(uintptr_t)cq_addr;
	ret = ar_pin_region(sq_addr, (ctx->sqes_sz + page - 1) & ~(page - 1),
			    &ctx->sqes_pin);
	if (ret)
		return ret;
	ctx->sqes = ctx->sqes_pin ? ar_pinned_addr(ctx->sqes_pin) :
				    (void *)(uintptr_t)sq_addr;
	return 0;
}

/* where the rings keep their cookie: the header's padding before the CQEs */
#define AR_COOKIE_OFF	48
_Static_assert(offsetof(struct ar_rings, cq_overflow) + sizeof(__u32) <=
	       AR_COOKIE_OFF && offsetof(struct ar_rings, cqes) >=
	       AR_COOKIE_OFF + sizeof(__u64), "cookie in the rings' padding");

static void ar_rings_set_cookie(struct ar_uctx *ctx, struct ar_rings *rings)
{
	memcpy((char *)rings + AR_COOKIE_OFF, &ctx->ring_cookie,
	       sizeof(ctx->ring_cookie));
}

/* the offsets in p, and the sizes of the rings and the SQEs (rings_size()) */
static void ar_ring_layout(unsigned flags, unsigned sq_entries,
			   unsigned cq_entries, struct io_uring_params *p,
			   size_t *rings_sz, size_t *sqes_sz)
{
	ar_fill_offsets(flags, cq_entries, p);
	if (flags & IORING_SETUP_NO_SQARRAY)
		*rings_sz = offsetof(struct ar_rings, cqes) +
			((size_t)cq_entries * sizeof(struct io_uring_cqe) <<
			 !!(flags & IORING_SETUP_CQE32));
	else
		*rings_sz = p->sq_off.array + sq_entries * sizeof(__u32);
	*sqes_sz = (sizeof(struct io_uring_sqe) <<
		    !!(flags & IORING_SETUP_SQE128)) * sq_entries;
}


static int ar_alloc_rings(struct ar_uctx *ctx, struct io_uring_params *p)
{
	struct ar_sqring_offsets sq;
	struct ar_cqring_offsets cq;
	int ret;

	/* NO_MMAP's addresses (compat.h: liburing 2.3 calls them resv2) */
	memcpy(&sq, &p->sq_off, sizeof(sq));
	memcpy(&cq, &p->cq_off, sizeof(cq));
	ar_ring_layout(ctx->flags, ctx->sq_entries, ctx->cq_entries, p,
		       &ctx->rings_sz, &ctx->sqes_sz);
	if (ctx->flags & IORING_SETUP_NO_MMAP) {
		ret = ar_user_rings(ctx, sq.user_addr, cq.user_addr);
		if (ret)
			return ret;
		/* the kernel hands the addresses back as they came */
		memcpy((char *)&p->sq_off + offsetof(struct ar_sqring_offsets, user_addr),
		       &sq.user_addr, sizeof(sq.user_addr));
		memcpy((char *)&p->cq_off + offsetof(struct ar_cqring_offsets, user_addr),
		       &cq.user_addr, sizeof(cq.user_addr));
	} else {
		ctx->rings = ar_map_shared(ctx->rings_sz);
		ctx->sqes = ar_map_shared(ctx->sqes_sz);
	}
	if (!ctx->rings || !ctx->sqes)
		return -ENOMEM;
	if (!ctx->user_mem) {
		/* random enough to tell the ring's pages from others (ar_user_raw_mapped()) */
		ctx->ring_cookie = ar_now_ns() ^ ((__u64)(uintptr_t)ctx << 17) ^
				   0x616e7972696e6721ULL;
		ar_rings_set_cookie(ctx, ctx->rings);
	}
	if (!(ctx->flags & IORING_SETUP_NO_SQARRAY))
		ctx->sq_array = (__u32 *)((char *)ctx->rings + p->sq_off.array);
	ctx->rings->sq_ring_mask = ctx->sq_entries - 1;
	ctx->rings->cq_ring_mask = ctx->cq_entries - 1;
	ctx->rings->sq_ring_entries = ctx->sq_entries;
	ctx->rings->cq_ring_entries = ctx->cq_entries;
	return 0;
}

/* what a resize replaced, freed (ctx->stale) */
static void ar_stale_rings_free(struct ar_uctx *ctx)
{
	if (ctx->stale.user_mem) {
		ar_unpin_pages(ctx->stale.rings_pin);
		ar_unpin_pages(ctx->stale.sqes_pin);
	} else {
		if (ctx->stale.rings)
			munmap(ctx->stale.rings, ctx->stale.rings_sz);
		if (ctx->stale.sqes)
			munmap(ctx->stale.sqes, ctx->stale.sqes_sz);
	}
	memset(&ctx->stale, 0, sizeof(ctx->stale));
}

/* new rings for a resize: the ring's fields as they will be */
struct ar_resize {
	struct ar_rings *rings;
	struct io_uring_sqe *sqes;
	size_t rings_sz, sqes_sz;
	struct ar_pinned *rings_pin, *sqes_pin;
};

static void ar_resize_free(struct ar_uctx *ctx, struct ar_resize *n)
{
	if (ctx->user_mem) {
		ar_unpin_pages(n->rings_pin);
		ar_unpin_pages(n->sqes_pin);
		return;
	}
	if (n->rings)
		munmap(n->rings, n->rings_sz);
	if (n->sqes)
		munmap(n->sqes, n->sqes_sz);
}

/* the rings (1) or the SQEs (0) of a resize: the engine's, or the application's */
static void *ar_resize_region(struct ar_uctx *ctx, __u64 user_addr, size_t sz,
			      struct ar_pinned **pin, int *err)
{
	void *m;

	if (ctx->user_mem) {
		*err = ar_pin_region(user_addr, (sz + 4095) & ~(size_t)4095, pin);
		if (*err)
			return NULL;
		return *pin ? ar_pinned_addr(*pin) : (void *)(uintptr_t)user_addr;
	}
	m = ar_map_shared(sz);
	*err = m ? 0 : -ENOMEM;
	return m;
}

/*
 * Under uring_lock and ctx->lock: the SQEs not yet taken and the CQEs
 * not yet seen move to the new rings at the same indices, as 6.18's
 * swap; -EOVERFLOW (nothing changed) when they do not fit.
 */
static int ar_resize_swap_locked(struct ar_uctx *ctx, struct ar_resize *n,
				 const struct io_uring_params *p)
{
	size_t sqe_sz = sizeof(struct io_uring_sqe) <<
			!!(ctx->flags & IORING_SETUP_SQE128);
	unsigned cqe_shift = !!(ctx->flags & IORING_SETUP_CQE32);
	struct ar_rings *o = ctx->rings;
	unsigned i, head, tail;

	/* relaxed, as the kernel's READ_ONCE: the application is not to touch them now */
	tail = __atomic_load_n(&o->sq.tail, __ATOMIC_RELAXED);
	head = __atomic_load_n(&o->sq.head, __ATOMIC_RELAXED);
	if (tail - head > p->sq_entries)
		return -EOVERFLOW;
	for (i = head; i != tail; i++)
		memcpy((char *)n->sqes + (size_t)(i & (p->sq_entries - 1)) * sqe_sz,
		       (char *)ctx->sqes + (size_t)(i & (ctx->sq_entries - 1)) * sqe_sz,
		       sqe_sz);
	n->rings->sq.head = head;
	n->rings->sq.tail = tail;
	tail = __atomic_load_n(&o->cq.tail, __ATOMIC_RELAXED);
	head = __atomic_load_n(&o->cq.head, __ATOMIC_RELAXED);
	if (tail - head > p->cq_entries)
		return -EOVERFLOW;
	for (i = head; i != tail; i++)
		memcpy(&n->rings->cqes[(i & (p->cq_entries - 1)) << cqe_shift],
		       &o->cqes[(i & (ctx->cq_entries - 1)) << cqe_shift],
		       sizeof(struct io_uring_cqe) << cqe_shift);
	n->rings->cq.head = head;
	n->rings->cq.tail = tail;
	n->rings->sq_dropped = __atomic_load_n(&o->sq_dropped, __ATOMIC_RELAXED);
	n->rings->sq_flags = __atomic_load_n(&o->sq_flags, __ATOMIC_RELAXED);
	n->rings->cq_flags = __atomic_load_n(&o->cq_flags, __ATOMIC_RELAXED);
	n->rings->cq_overflow = __atomic_load_n(&o->cq_overflow, __ATOMIC_RELAXED);
	if (!ctx->user_mem)
		ar_rings_set_cookie(ctx, n->rings);

	ar_stale_rings_free(ctx);
	ctx->stale.rings = ctx->rings;
	ctx->stale.sqes = ctx->sqes;
	ctx->stale.rings_sz = ctx->rings_sz;
	ctx->stale.sqes_sz = ctx->sqes_sz;
	ctx->stale.rings_pin = ctx->rings_pin;
	ctx->stale.sqes_pin = ctx->sqes_pin;
	ctx->stale.user_mem = ctx->user_mem;
	if (!(ctx->flags & IORING_SETUP_NO_SQARRAY))
		ctx->sq_array = (__u32 *)((char *)n->rings + p->sq_off.array);
	ctx->sq_entries = p->sq_entries;
	ctx->cq_entries = p->cq_entries;
	/*
	 * Release, for threads that read the pointer without a lock (a poll
	 * of the ring fd, ringfd.c): the new rings are written first.
	 */
	__atomic_store_n(&ctx->rings, n->rings, __ATOMIC_RELEASE);
	ctx->sqes = n->sqes;
	ctx->rings_sz = n->rings_sz;
	ctx->sqes_sz = n->sqes_sz;
	ctx->rings_pin = n->rings_pin;
	ctx->sqes_pin = n->sqes_pin;
	return 0;
}

/* the flags a resize takes, and those it keeps from setup (6.18) */
#define AR_RESIZE_FLAGS	(IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP)
#define AR_RESIZE_COPY	(IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQE128 | \
			 IORING_SETUP_CQE32 | IORING_SETUP_NO_MMAP |	\
			 IORING_SETUP_CQE_MIXED)

/*
 * IORING_REGISTER_RESIZE_RINGS (6.13), as 6.18's
 * io_register_resize_rings(): DEFER_TASKRUN rings only; the new sizes
 * checked as at setup, the params with the new offsets written back
 * (the SQ array's left 0, as 6.18 does), new rings made (the
 * application's memory on a NO_MMAP ring) and what the old hold moved
 * in. The program maps the new rings afterwards (liburing does).
 */
int ar_user_resize_rings(struct ar_uctx *ctx, void *arg)
{
	struct ar_sqring_offsets sq;
	struct ar_cqring_offsets cq;
	struct ar_resize n = { 0 };
	struct io_uring_params p;
	unsigned entries;
	int ret;

	if (!(ctx->flags & IORING_SETUP_DEFER_TASKRUN))
		return -EINVAL;
	if (ar_copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.flags & ~AR_RESIZE_FLAGS)
		return -EINVAL;
	p.flags |= ctx->flags & AR_RESIZE_COPY;
	entries = p.sq_entries;
	{
		/* io_prepare_config(): setup's checks, but resv is not looked at */
		__u32 resv[3];

		memcpy(resv, p.resv, sizeof(resv));
		memset(p.resv, 0, sizeof(p.resv));
		ret = ar_setup_check(&entries, &p);
		memcpy(p.resv, resv, sizeof(resv));
	}
	if (ret)
		return ret;
	memcpy(&sq, &p.sq_off, sizeof(sq));
	memcpy(&cq, &p.cq_off, sizeof(cq));
	ar_ring_layout(p.flags, p.sq_entries, p.cq_entries, &p, &n.rings_sz,
		       &n.sqes_sz);
	n.rings = ar_resize_region(ctx, cq.user_addr, n.rings_sz, &n.rings_pin,
				   &ret);
	if (!n.rings)
		return ret;
	n.rings->sq_ring_mask = p.sq_entries - 1;
	n.rings->cq_ring_mask = p.cq_entries - 1;
	n.rings->sq_ring_entries = p.sq_entries;
	n.rings->cq_ring_entries = p.cq_entries;
	if (ctx->user_mem) {
		memcpy((char *)&p.sq_off + offsetof(struct ar_sqring_offsets, user_addr),
		       &sq.user_addr, sizeof(sq.user_addr));
		memcpy((char *)&p.cq_off + offsetof(struct ar_cqring_offsets, user_addr),
		       &cq.user_addr, sizeof(cq.user_addr));
	}
	{
		/* 6.18 fills in every offset but the SQ array's */
		struct io_uring_params out = p;

		out.sq_off.array = 0;
		if (ar_copy_to_user(arg, &out, sizeof(out))) {
			ar_resize_free(ctx, &n);
			return -EFAULT;
		}
	}
	n.sqes = ar_resize_region(ctx, sq.user_addr, n.sqes_sz, &n.sqes_pin,
				  &ret);
	if (!n.sqes) {
		ar_resize_free(ctx, &n);
		return ret;
	}
	ar_uring_lock(ctx);
	ar_ctx_lock(ctx);
	ret = ar_resize_swap_locked(ctx, &n, &p);
	ar_ctx_unlock(ctx);
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	if (ret)
		ar_resize_free(ctx, &n);
	return ret;
}

/*
 * LeakSanitizer scans the heap, not mappings of our own: the ctx is one,
 * and what it alone points to (a ring that lives on at exit, D99) would
 * be reported lost. Its pages are a root region in ASan builds.
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#define ar_lsan_root(p, n)	__lsan_register_root_region(p, n)
#define ar_lsan_unroot(p, n)	__lsan_unregister_root_region(p, n)
#else
#define ar_lsan_root(p, n)	((void)(p), (void)(n))
#define ar_lsan_unroot(p, n)	((void)(p), (void)(n))
#endif

/* the overflow backlog's capacity, in CQEs (ar_cq_overflow_add()) */
#define AR_OVERFLOW_MAX		(1U << 20)

/* the private part's size: whole pages after the shared one */
#define AR_UCTX_MAP_SIZE	((sizeof(struct ar_uctx) + 4095) & ~(size_t)4095)

_Static_assert(sizeof(struct ar_ushared) <= AR_SH_SIZE,
	       "the shared part fits its page");

/*
 * A ring's struct ar_uctx, zeroed, with its shared part (types.h
 * ar_sh()) in the MAP_SHARED page before it: one reservation, then the
 * two mappings placed in it. The overflow backlog is reserved at its
 * full size now, since a process that forks later cannot grow a mapping
 * the others see; MAP_NORESERVE: it costs memory only where written.
 */
static struct ar_uctx *ar_uctx_alloc(void)
{
	size_t len = AR_SH_SIZE + AR_UCTX_MAP_SIZE;
	struct ar_ushared *sh;
	pthread_mutexattr_t ma;
	char *base;

	base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	if (mmap(base, AR_SH_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ||
	    mmap(base + AR_SH_SIZE, AR_UCTX_MAP_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		munmap(base, len);
		return NULL;
	}
	sh = (struct ar_ushared *)base;
	sh->of_ring_sz = AR_OVERFLOW_MAX * sizeof(struct ar_cq_overflow);
	sh->of_ring = mmap(NULL, sh->of_ring_sz, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sh->of_ring == MAP_FAILED) {
		munmap(base, len);
		return NULL;
	}
	sh->of_mask = AR_OVERFLOW_MAX - 1;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&sh->uring_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	ar_spin_lock_init(&sh->lock);
	sh->xwake_fd = -1;
	sh->xcancel_fd = -1;
	ar_lsan_root(base + AR_SH_SIZE, AR_UCTX_MAP_SIZE);
	return (struct ar_uctx *)(base + AR_SH_SIZE);
}

/*
 * This process's mappings go; the shared pages live on in the others'
 * (fork.c), whose mutex is not destroyed under them.
 */
static void ar_uctx_unmap(struct ar_uctx *ctx)
{
	struct ar_ushared *sh = ar_sh(ctx);

	if (!atomic_load_explicit(&sh->forked, memory_order_relaxed))
		pthread_mutex_destroy(&sh->uring_lock);
	if (sh->xslots)
		munmap(sh->xslots, sh->xslots_nr * sizeof(struct ar_xslot));
	ar_lsan_unroot(ctx, AR_UCTX_MAP_SIZE);
	munmap(sh->of_ring, sh->of_ring_sz);
	munmap(sh, AR_SH_SIZE + AR_UCTX_MAP_SIZE);
}

void ar_uctx_free(struct ar_uctx *ctx)
{
	/* a ring whose setup failed: its end did not close it */
	ar_internal_close(ctx->peer_fd);
	ar_stale_rings_free(ctx);
	if (ctx->user_mem) {
		/* the application's memory: only the engine's pins go */
		ar_unpin_pages(ctx->rings_pin);
		ar_unpin_pages(ctx->sqes_pin);
	} else {
		if (ctx->rings)
			munmap(ctx->rings, ctx->rings_sz);
		if (ctx->sqes)
			munmap(ctx->sqes, ctx->sqes_sz);
	}
	ar_req_cache_free(ctx);
	ar_kbuf_free(ctx);
	ar_region_free(ctx);
	ar_iowq_free(&ctx->iowq);
	ar_poll_free(ctx);
	ar_aiopoll_free(ctx);
	pthread_mutex_destroy(&ctx->svc.start_lock);
	pthread_mutex_destroy(&ctx->wait_lock);
	free(ctx->restrictions);
	ar_pers_free(ctx);
	ar_uctx_unmap(ctx);
}

static int ar_check_attach_wq(const struct io_uring_params *p)
{
	if (!(p->flags & IORING_SETUP_ATTACH_WQ))
		return 0;
	if (ar_uctx_of_fd((int)p->wq_fd))
		return 0;	/* io-wq is per ring here; attaching shares nothing */
	/* measured on 6.18: a closed fd gives -ENXIO, another file -EINVAL */
	return fcntl((int)p->wq_fd, F_GETFD) < 0 ? -ENXIO : -EINVAL;
}

/* A policy's DEFAULT fields as they resolve on this ring. */
static void ar_upolicy_resolve(struct ar_uctx *ctx, struct anyring_policy *p)
{
	if (!p->wake)
		p->wake = ANYRING_WAKE_THRESHOLD;
	/* without DEFER_TASKRUN, CQEs appear without the application entering */
	if (!p->complete)
		p->complete = ctx->flags & IORING_SETUP_DEFER_TASKRUN ?
			      ANYRING_COMPLETE_DEFERRED : ANYRING_COMPLETE_INLINE;
	if (!p->wait)
		p->wait = ANYRING_WAITP_ADAPTIVE;
	/* the user engine's sleeps are never iowait */
	p->iowait = ANYRING_IOWAIT_OFF;
	/* a helper thread only pays with a second CPU to run on (spread.c) */
	if (!p->issue)
		p->issue = sysconf(_SC_NPROCESSORS_ONLN) > 1 ?
			   ANYRING_ISSUE_SPREAD : ANYRING_ISSUE_INLINE;
	/*
	 * The thread that waits anyway does bounded blocking work itself
	 * (submit.c ar_req_waiter_blocks(); docs/policies.md): a worker's
	 * handoff is a sleeping thread's wakeup each way.
	 */
	if (!p->block)
		p->block = ANYRING_BLOCK_WAITER;
}

/* ANYRING_POLICY's policy for a new ring (iowait=on does not apply: ignored) */
static int ar_upolicy_init(struct ar_uctx *ctx)
{
	struct anyring_policy p;
	unsigned complete;

	ar_policy_env(&p);
	ar_upolicy_resolve(ctx, &p);
	complete = p.complete;
	p.complete = ANYRING_COMPLETE_INLINE;
	ctx->pol = p;
	return ar_tw_set_policy(ctx, complete);
}

static int ar_user_policy(void *obj, const struct anyring_policy *set,
			  struct anyring_policy *get)
{
	struct ar_uctx *ctx = obj;
	struct anyring_policy p;
	int ret = 0;

	if (!ctx)
		return -EBADF;
	if (set) {
		if (set->iowait == ANYRING_IOWAIT_ON)
			return -EOPNOTSUPP;
		/* as io_uring_register on a SINGLE_ISSUER ring */
		if (ar_issuer_other(ctx))
			return -EEXIST;
		p = *set;
		ar_upolicy_resolve(ctx, &p);
		ar_uring_lock(ctx);
		if (p.complete != ctx->pol.complete) {
			/* a completion racing the switch could go either way */
			if (__atomic_load_n(&ctx->nr_inflight, __ATOMIC_RELAXED) ||
			    ar_tw_pending(ctx))
				ret = -EBUSY;
			else
				ret = ar_tw_set_policy(ctx, p.complete);
		}
		if (!ret) {
			/* read racily by completing and waiting threads: each field on its own */
			__atomic_store_n(&ctx->pol.wake, p.wake, __ATOMIC_RELAXED);
			__atomic_store_n(&ctx->pol.wait, p.wait, __ATOMIC_RELAXED);
			__atomic_store_n(&ctx->pol.spin_usec, p.spin_usec,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&ctx->pol.issue, p.issue, __ATOMIC_RELAXED);
			__atomic_store_n(&ctx->pol.block, p.block, __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	}
	if (get && !ret) {
		get->wake = __atomic_load_n(&ctx->pol.wake, __ATOMIC_RELAXED);
		get->complete = __atomic_load_n(&ctx->pol.complete, __ATOMIC_RELAXED);
		get->wait = __atomic_load_n(&ctx->pol.wait, __ATOMIC_RELAXED);
		get->iowait = ctx->pol.iowait;
		get->spin_usec = __atomic_load_n(&ctx->pol.spin_usec, __ATOMIC_RELAXED);
		get->issue = __atomic_load_n(&ctx->pol.issue, __ATOMIC_RELAXED);
		get->block = __atomic_load_n(&ctx->pol.block, __ATOMIC_RELAXED);
		memset(get->resv_c, 0, sizeof(get->resv_c));
		memset(get->resv, 0, sizeof(get->resv));
	}
	return ret;
}

static int ar_user_stats(void *obj, struct anyring_stats *st, bool reset)
{
	struct ar_uctx *ctx = obj;
	__u64 *src, *dst;
	unsigned i, n = sizeof(ctx->stats) / sizeof(__u64);

	if (!ctx)
		return -EBADF;
	_Static_assert(sizeof(struct ar_ustats) / sizeof(__u64) <=
		       offsetof(struct anyring_stats, resv) / sizeof(unsigned long long),
		       "every counter has a public field");
	src = (__u64 *)&ctx->stats;
	if (reset) {
		/* submissions and completions have one writer each, under these */
		ar_uring_lock(ctx);
		ar_ctx_lock(ctx);
		for (i = 0; i < n; i++)
			__atomic_store_n(&src[i], 0, __ATOMIC_RELAXED);
		ar_ctx_unlock(ctx);
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		return 0;
	}
	memset(st, 0, sizeof(*st));
	dst = (__u64 *)st;
	/* the two structs list the same counters in the same order */
	for (i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	return 0;
}

static int ar_user_close(void *obj, int fd);
static bool ar_user_raw_mapped(struct ar_uctx *ctx);

/* io_uring_create() on a copy of the params: the ring fd, or -errno */
static int ar_user_create(unsigned entries, struct io_uring_params *p)
{
	struct ar_uctx *ctx;
	int ret;

	ret = ar_setup_check(&entries, p);
	if (ret)
		return ret;
	ret = ar_check_attach_wq(p);
	if (ret)
		return ret;
	/* a ring with no fd: the engine's rings live by their fd (D3) */
	if (p->flags & IORING_SETUP_REGISTERED_FD_ONLY) {
		ar_debug("user engine: IORING_SETUP_REGISTERED_FD_ONLY is not supported");
		return -EINVAL;
	}

	ctx = ar_uctx_alloc();
	if (!ctx)
		return -ENOMEM;
	ctx->flags = p->flags;
	ctx->sq_entries = p->sq_entries;
	ctx->cq_entries = p->cq_entries;
	ctx->eventfd = -1;
	ctx->eventfd_app = -1;
	ctx->ring_fd = -1;
	ctx->peer_fd = -1;
	ctx->closed_fd = -1;
	ctx->creator = ar_self_tid();
	ctx->pid = getpid();
	ctx->disabled = !!(p->flags & IORING_SETUP_R_DISABLED);
	/* the creating thread is the single issuer, unless the ring starts disabled */
	if ((p->flags & IORING_SETUP_SINGLE_ISSUER) && !ctx->disabled) {
		ctx->submitter = ar_self_tid();
		ctx->has_submitter = true;
	}
	atomic_init(&ctx->refs, 1);
	ar_spin_lock_init(&ctx->kbuf_lock);
	if (ctx->has_submitter)
		ar_ctx_bias_enable(ctx);
	pthread_mutex_init(&ctx->wait_lock, NULL);
	ar_iowq_init(&ctx->iowq, ctx->sq_entries);
	ar_submit_state_init(ctx);
	pthread_mutex_init(&ctx->svc.start_lock, NULL);
	ctx->svc.wake_fd = -1;
	ctx->clockid = CLOCK_MONOTONIC;

	ret = ar_alloc_rings(ctx, p);
	if (ret)
		goto fail;
	ret = ar_ring_fd_make(ctx);
	if (ret)
		goto fail;
	ret = ar_engine_claim_fd(ctx->ring_fd, &ar_user_engine, ctx);
	if (ret)
		goto fail;

	if (p->flags & IORING_SETUP_SQPOLL) {
		ret = ar_sqpoll_start(ctx, p);
		if (ret) {
			ar_engine_release_fd(ctx->ring_fd);
			goto fail;
		}
	}
	ret = ar_upolicy_init(ctx);
	if (ret) {
		ar_engine_release_fd(ctx->ring_fd);
		if (ctx->sqpoll)
			ar_sqpoll_stop(ctx);
		goto fail;
	}
	p->features = AR_USER_FEATURES;
	ctx->features = p->features;
	ret = ar_release_watch(ctx);
	if (ret)
		ar_debug("user engine: ring fd %d ends only with "
			 "io_uring_queue_exit(): no thread to see its close (%s)",
			 ctx->ring_fd, strerror(-ret));
	return ctx->ring_fd;
fail:
	if (ctx->ring_fd >= 0)
		close(ctx->ring_fd);
	ar_uctx_free(ctx);
	return ret;
}

/*
 * io_uring_setup(): the params are copied in (fault-safe: -EFAULT) and,
 * the ring made, copied out; a ring whose params cannot be written back
 * is torn down again and the answer is -EFAULT, as the kernel's.
 */
static int ar_user_setup(unsigned entries, struct io_uring_params *up)
{
	struct io_uring_params p;
	void *obj;
	int fd;

	if (ar_copy_from_user(&p, up, sizeof(p)))
		return -EFAULT;
	fd = ar_user_create(entries, &p);
	if (fd < 0)
		return fd;
	ar_user_task = true;	/* the creating thread, as the kernel's tctx */
	if (ar_copy_to_user(up, &p, sizeof(p))) {
		ar_engine_lookup(fd, &obj);
		ar_user_close(obj, fd);
		return -EFAULT;
	}
	return fd;
}

static int ar_user_mmap(void *obj, int fd, struct io_uring_params *p,
			struct io_uring *ring)
{
	struct ar_uctx *ctx = obj;
	struct io_uring_sq *sq = &ring->sq;
	struct io_uring_cq *cq = &ring->cq;
	char *base;

	(void)fd;	/* obj is the ring the seam found for it */
	if (!ctx)
		return -EBADF;
	/* the kernel's mmap of a NO_MMAP ring: -EINVAL */
	if (ctx->user_mem)
		return -EINVAL;
	/* relaxed: read by the release of the fd (release.c), a hint */
	atomic_store_explicit(&ctx->lib_mapped, true, memory_order_relaxed);
	/* the application's params must describe this ring */
	if (p->sq_entries != ctx->sq_entries || p->cq_entries != ctx->cq_entries)
		return -EINVAL;
	base = (char *)ctx->rings;
	sq->ring_sz = ctx->rings_sz;
	cq->ring_sz = ctx->rings_sz;
	sq->ring_ptr = cq->ring_ptr = base;
	sq->khead = (unsigned *)(base + p->sq_off.head);
	sq->ktail = (unsigned *)(base + p->sq_off.tail);
	sq->kring_mask = (unsigned *)(base + p->sq_off.ring_mask);
	sq->kring_entries = (unsigned *)(base + p->sq_off.ring_entries);
	sq->kflags = (unsigned *)(base + p->sq_off.flags);
	sq->kdropped = (unsigned *)(base + p->sq_off.dropped);
	sq->array = ctx->sq_array;
	sq->sqes = ctx->sqes;
	sq->ring_mask = ctx->sq_entries - 1;
	sq->ring_entries = ctx->sq_entries;
	cq->khead = (unsigned *)(base + p->cq_off.head);
	cq->ktail = (unsigned *)(base + p->cq_off.tail);
	cq->kring_mask = (unsigned *)(base + p->cq_off.ring_mask);
	cq->kring_entries = (unsigned *)(base + p->cq_off.ring_entries);
	cq->koverflow = (unsigned *)(base + p->cq_off.overflow);
	cq->kflags = (unsigned *)(base + p->cq_off.flags);
	cq->cqes = ctx->rings->cqes;
	cq->ring_mask = ctx->cq_entries - 1;
	cq->ring_entries = ctx->cq_entries;
	return 0;
}

/* a mapping the trap made for the program: followed by ar_user_raw_mapped() */
static void ar_user_note_raw_map(struct ar_uctx *ctx, uintptr_t addr,
				 size_t len, bool sqes)
{
	ar_ctx_lock(ctx);
	if (ctx->nr_raw_maps < AR_RAW_MAPS) {
		ctx->raw_maps[ctx->nr_raw_maps].addr = addr;
		ctx->raw_maps[ctx->nr_raw_maps].len = len;
		ctx->raw_maps[ctx->nr_raw_maps].sqes = sqes;
	}
	ctx->nr_raw_maps++;
	ar_ctx_unlock(ctx);
}

/*
 * A program's own mmap(2) of the ring fd, brought here by the system-call
 * trap: the rings at IORING_OFF_SQ_RING or IORING_OFF_CQ_RING (one region,
 * as IORING_FEAT_SINGLE_MMAP says), the SQEs at IORING_OFF_SQES. mremap()
 * with an old size of 0 maps the same shared pages a second time (at
 * addr with MAP_FIXED); the mapping is the program's own to unmap.
 * A buffer ring the engine mapped (IOU_PBUF_RING_MMAP) is at
 * IORING_OFF_PBUF_RING | bgid << IORING_OFF_PBUF_SHIFT (no such ring:
 * -ENOMEM, as 6.18). Another offset is -ENOMEM, as 6.18's
 * io_uring_get_unmapped_area(); a ring made before the trap was on is
 * private memory: -ENODEV.
 */
static long ar_user_mmap_raw(void *obj, void *addr, size_t len, int prot,
			     int flags, off_t off)
{
	struct ar_uctx *ctx = obj;
	long m, how = MREMAP_MAYMOVE;
	size_t max;
	void *src;

	/* a buffer ring the engine mapped (IOU_PBUF_RING_MMAP): kbuf.c */
	if (ctx && (off & AR_OFF_PBUF_RING)) {
		src = ar_kbuf_mmap_ring(ctx, (unsigned)((off & ~AR_OFF_PBUF_RING) >>
						       AR_OFF_PBUF_SHIFT), &max);
		if (!src)
			return -ENOMEM;
		(void)max;
		goto map;
	}
	/* the parameter region the engine allocated (region.c) */
	if (ctx && off == (off_t)AR_MAP_OFF_PARAM_REGION) {
		src = ar_region_mmap(ctx, len);
		if (!src)
			return -EINVAL;
		goto map;
	}
	/* io_uring_validate_mmap_request(): a NO_MMAP ring has nothing to map */
	if (ctx && ctx->user_mem)
		return -EINVAL;
	if (!ctx)
		return -ENODEV;
	switch (off) {
	case IORING_OFF_SQ_RING:
	case IORING_OFF_CQ_RING:
		src = ctx->rings;
		break;
	case IORING_OFF_SQES:
		src = ctx->sqes;
		break;
	default:
		return -ENOMEM;
	}
map:
	/* relaxed: read by the release thread after the fd's close */
	atomic_store_explicit(&ctx->raw_mapped, true, memory_order_relaxed);
	if (flags & MAP_FIXED)
		how |= MREMAP_FIXED;
	m = ar_raw_syscall6(SYS_mremap, (long)src, 0, (long)len, how,
			    (long)addr, 0);
	if (m < 0 && m > -4096)
		return m;
	if (prot != (PROT_READ | PROT_WRITE))
		ar_raw_syscall6(SYS_mprotect, m, (long)len, prot, 0, 0, 0);
	if (src == (void *)ctx->rings || src == (void *)ctx->sqes)
		ar_user_note_raw_map(ctx, (uintptr_t)m, len, src == (void *)ctx->sqes);
	return m;
}

/* the memory stays the ring's until the fd is closed, as with munmap of a live ring */
static void ar_user_unmap(struct io_uring *ring)
{
	ring->sq.ring_ptr = ring->cq.ring_ptr = NULL;
	ring->sq.sqes = NULL;
}

/*
 * The end of a ring: requests in flight are cancelled, threads joined,
 * registered resources released, memory freed; its fd's claim is gone.
 * The fd is closed unless the program closed it already (ar_user_gone()).
 */
static void ar_user_end(struct ar_uctx *ctx, int fd, bool close_fd)
{
	int fd2;

	/*
	 * Once: the library's close and the release thread may both come
	 * (a ring whose number another ring claimed before its release was
	 * seen). acq_rel pairs with the other's exchange.
	 */
	if (atomic_exchange_explicit(&ctx->ending, true, memory_order_acq_rel)) {
		if (close_fd)
			ar_sys_close(fd);
		return;
	}
	atomic_store_explicit(&ctx->dead, true, memory_order_release);
	if (ctx->sqpoll)
		ar_sqpoll_stop(ctx);
	ar_spread_exit(ctx);
	ar_poll_unhold(ctx);
	ar_cancel_all(ctx);
	ar_aio_exit(ctx);	/* AIO in flight completes: it cannot be cancelled */
	/* the completion thread issues next links: stop it before io-wq */
	ar_tw_stop_punt(ctx);
	ar_iowq_exit(ctx);
	ar_spread_free(ctx);	/* no worker's cancel can look at it now */
	ar_iopoll_exit(ctx);	/* device I/O in flight: wait for it */
	ar_svc_exit(ctx);
	ar_tw_exit(ctx);
	ar_rsrc_free_all(ctx);
	fd2 = __atomic_exchange_n(&ctx->eventfd, -1, __ATOMIC_ACQ_REL);
	if (fd2 >= 0)
		ar_internal_close(fd2);
	for (unsigned i = 0; i < ctx->nr_dead_evfds; i++)
		ar_internal_close(ctx->dead_evfds[i]);
	free(ctx->dead_evfds);
	ctx->dead_evfds = NULL;
	/* an enter still holding the ring must not touch a reused number */
	__atomic_store_n(&ctx->ring_fd, -1, __ATOMIC_RELEASE);
	ar_ring_fd_shut(ctx);
	/* no poster is left (the fd is -1): the engine's end goes now */
	ar_release_unwatch(ctx);
	ar_internal_close(ctx->peer_fd);
	ctx->peer_fd = -1;
	if (close_fd)
		close(fd);
	ar_uctx_put(ctx);
}

/*
 * exit(3) of a process whose ring is shared with others (fork.c): its
 * part of the ring ends as the kernel ends an exiting task's, its
 * requests cancelled and their CQEs posted for the others; the fd is
 * the process's to the end.
 */
void ar_user_task_exit(const struct ar_engine *e, void *obj, int fd)
{
	struct ar_uctx *ctx = obj;

	(void)e;
	if (ar_ring_forked(ctx) && ctx->pid == getpid()) {
		/* a signal handler's read meanwhile skips the look (pollhook.c) */
		ar_hook_off_enter();
		ar_timeout_hand_over(ctx);
		ar_user_end(ctx, fd, false);
		ar_hook_off_leave();
	}
}

/* Closing the ring fd ends the ring. */
/*
 * A registered-ring index holds the ring, as the kernel's table holds
 * the file: with the fd gone (io_uring_close_ring_fd(), or a close the
 * release thread saw) the ring lives on, no number its own, until the
 * last index goes (ar_user_index_gone()). The fd goes first, then the
 * indices are looked at: with ar_user_index_gone()'s order (index, then
 * fd), one of the two sees the other and ends the ring. true: an index
 * holds it.
 */
static bool ar_user_held_by_index(struct ar_uctx *ctx, int fd)
{
	ctx->closed_fd = fd;
	/*
	 * seq_cst, and the load below: pairs with ar_user_index_gone()'s
	 * decrement and load of ring_fd (each sees the other's store)
	 */
	__atomic_store_n(&ctx->ring_fd, -1, __ATOMIC_SEQ_CST);
	return atomic_load_explicit(&ctx->reg_indices, memory_order_seq_cst) != 0;
}

void ar_user_index_gone(struct ar_uctx *ctx)
{
	/* seq_cst: see ar_user_held_by_index() */
	if (__atomic_load_n(&ctx->ring_fd, __ATOMIC_SEQ_CST) >= 0 ||
	    ctx->closed_fd < 0 || ar_uctx_dead(ctx))
		return;		/* its fd's close ends it */
	if (ar_user_raw_mapped(ctx)) {
		/* the program maps it itself: it lives on (D99) */
		ar_debug("user engine: the ring whose fd %d was closed lost its "
			 "last registered index, and lives on while mapped",
			 ctx->closed_fd);
		return;
	}
	ar_debug("user engine: the ring whose fd %d was closed lost its last "
		 "registered index: it ends", ctx->closed_fd);
	ar_user_end(ctx, ctx->closed_fd, false);
}

static int ar_user_close(void *obj, int fd)
{
	struct ar_uctx *ctx = obj;

	/* a sweep that found fd closed ended the ring already */
	if (!ctx || !ar_engine_release_fd(fd))
		return ar_sys_close(fd);
	/* io_uring_close_ring_fd(): the fd goes, an index keeps the ring */
	if (atomic_load_explicit(&ctx->reg_indices, memory_order_relaxed) &&
	    ar_user_held_by_index(ctx, fd)) {
		ar_sys_close(fd);
		return 0;
	}
	/* the engine's own reads and polls inside are not the program's */
	ar_hook_off_enter();
	ar_user_end(ctx, fd, true);
	ar_hook_off_leave();
	return 0;
}

/*
 * The program closed the ring's fd without the library (the system-call
 * trap's programs do): the number may be another file's already, so the
 * ring stops signalling it before anything completes.
 */
static void ar_user_gone(struct ar_uctx *ctx, int fd)
{
	/* release pairs with the ring-fd signal's acquire (complete.c) */
	__atomic_store_n(&ctx->ring_fd, -1, __ATOMIC_RELEASE);
	ar_user_end(ctx, fd, false);
}


/*
 * Is one of the program's own mappings of the ring (the trap's) still
 * there? A rings mapping is when its cookie reads back at its address;
 * an SQE mapping is when a word the engine writes into its own SQE pages
 * reads back there (the word put back after: the ring's fd is gone, no
 * submit can look; an SQPOLL thread still could, so an SQPOLL ring's
 * SQE mappings are looked up instead). Each a fault-safe read, one
 * system call. /proc/self/maps, which costs in proportion to the
 * process's mappings (it made ending thousands of short-lived rings
 * quadratic), is read only for those, or for more mappings than were
 * followed. Called with no fd and no registered index left.
 */
static bool ar_user_raw_mapped(struct ar_uctx *ctx)
{
	uintptr_t addr[AR_RAW_MAPS];
	bool sqes[AR_RAW_MAPS], found = false;
	__u64 v, mine, probe;
	unsigned i, n;

	/* relaxed: set before the mmap call returned to the program */
	if (!atomic_load_explicit(&ctx->raw_mapped, memory_order_relaxed))
		return false;
	ar_ctx_lock(ctx);
	n = ctx->nr_raw_maps;
	for (i = 0; i < n && i < AR_RAW_MAPS; i++) {
		addr[i] = ctx->raw_maps[i].addr;
		sqes[i] = ctx->raw_maps[i].sqes;
	}
	ar_ctx_unlock(ctx);
	if (n > AR_RAW_MAPS)
		return ar_maps_sharing(ctx->rings) > 1 ||
		       ar_maps_sharing(ctx->sqes) > 1;
	if (ctx->sqpoll) {
		for (i = 0; i < n; i++)
			if (!sqes[i] && !ar_copy_from_user(&v, (char *)addr[i] +
						AR_COOKIE_OFF, sizeof(v)) &&
			    v == ctx->ring_cookie)
				return true;
		return ar_maps_sharing(ctx->sqes) > 1;
	}
	/* relaxed: the program's mapping shares the page, no ordering needed */
	mine = __atomic_load_n((__u64 *)(void *)ctx->sqes, __ATOMIC_RELAXED);
	probe = mine ^ 0xa5a5a5a55a5a5a5aULL;
	__atomic_store_n((__u64 *)(void *)ctx->sqes, probe, __ATOMIC_RELAXED);
	for (i = 0; i < n && !found; i++) {
		if (ar_copy_from_user(&v, (char *)addr[i] +
				      (sqes[i] ? 0 : AR_COOKIE_OFF), sizeof(v)))
			continue;
		found = v == (sqes[i] ? probe : ctx->ring_cookie);
	}
	__atomic_store_n((__u64 *)(void *)ctx->sqes, mine, __ATOMIC_RELAXED);
	return found;
}

/*
 * The program's end of the ring's fd is closed for the last time
 * (release.c saw the hang-up): end the ring, unless it is ending
 * already (ar_user_end() runs once), or something still holds it as a
 * mapping or a registered index holds the kernel's. false: the program
 * still maps it itself; ask again later.
 */
bool ar_user_release(struct ar_uctx *ctx)
{
	int fd = ar_ringfd_load(&ctx->ring_fd);

	if (ar_uctx_dead(ctx))
		return true;
	if (fd < 0) {
		/* kept while the program mapped it (below), or ended */
		if (ctx->closed_fd < 0)
			return true;
		/* held by a registered index: its last one ends it */
		if (atomic_load_explicit(&ctx->reg_indices, memory_order_seq_cst))
			return true;
		if (ar_user_raw_mapped(ctx))
			return false;
		ar_debug("user engine: the ring whose fd %d was closed is "
			 "unmapped: it ends", ctx->closed_fd);
		ar_user_end(ctx, ctx->closed_fd, false);
		return true;
	}
	/*
	 * The kernel's ring lives on while a mapping or a registered-ring
	 * entry holds it: a struct io_uring the library mapped (the ring
	 * then ends with io_uring_queue_exit(), which finds it by the
	 * number: the number stays claimed, D1), or an index. Relaxed: see
	 * their stores.
	 */
	if (atomic_load_explicit(&ctx->reg_indices, memory_order_relaxed)) {
		/* the number is not the ring's any more: an index holds it */
		ar_engine_release_obj(fd, ctx);
		if (ar_user_held_by_index(ctx, fd)) {
			ar_debug("user engine: ring fd %d was closed, and lives "
				 "on while a registered index holds it", fd);
			return true;
		}
		/* the last index went meanwhile: end it as below */
		return ar_user_release(ctx);
	}
	if (atomic_load_explicit(&ctx->lib_mapped, memory_order_relaxed)) {
		ar_debug("user engine: ring fd %d was closed, and lives on "
			 "while the library maps it", fd);
		return true;
	}
	/*
	 * The number is not the ring's any more: its claim goes (if a new
	 * ring has not taken the number already), and so does the ring,
	 * unless the program still maps it itself (the trap's mappings):
	 * then it lives on, with no number, until they are unmapped, and
	 * the release thread asks again later.
	 */
	ar_engine_release_obj(fd, ctx);
	if (ar_user_raw_mapped(ctx)) {
		ctx->closed_fd = fd;
		/* release pairs with the ring-fd signal's acquire: no more writes */
		__atomic_store_n(&ctx->ring_fd, -1, __ATOMIC_RELEASE);
		ar_debug("user engine: ring fd %d was closed, and lives on while "
			 "the program maps it", fd);
		return false;
	}
	ar_debug("user engine: ring fd %d was closed for the last time "
		 "without io_uring_queue_exit(): the ring ends", fd);
	ar_user_gone(ctx, fd);
	return true;
}

/*
 * The engine's entries that a program thread runs with its locks taken
 * run with ar_hook_off set (enter, register and close set it
 * themselves): a signal handler's read or poll on the thread meanwhile
 * skips the engine's look (engine/pollhook.c), which would wait for
 * those locks.
 */
static int ar_user_setup_off(unsigned entries, struct io_uring_params *p)
{
	int ret;

	ar_hook_off_enter();
	ret = ar_user_setup(entries, p);
	ar_hook_off_leave();
	return ret;
}

static int ar_user_mmap_off(void *obj, int fd, struct io_uring_params *p,
			    struct io_uring *ring)
{
	int ret;

	ar_hook_off_enter();
	ret = ar_user_mmap(obj, fd, p, ring);
	ar_hook_off_leave();
	return ret;
}

static void ar_user_unmap_off(struct io_uring *ring)
{
	ar_hook_off_enter();
	ar_user_unmap(ring);
	ar_hook_off_leave();
}

static long ar_user_mmap_raw_off(void *obj, void *addr, size_t len, int prot,
				 int flags, off_t off)
{
	long ret;

	ar_hook_off_enter();
	ret = ar_user_mmap_raw(obj, addr, len, prot, flags, off);
	ar_hook_off_leave();
	return ret;
}

static int ar_user_policy_off(void *obj, const struct anyring_policy *set,
			      struct anyring_policy *get)
{
	int ret;

	ar_hook_off_enter();
	ret = ar_user_policy(obj, set, get);
	ar_hook_off_leave();
	return ret;
}

static int ar_user_stats_off(void *obj, struct anyring_stats *st, bool reset)
{
	int ret;

	ar_hook_off_enter();
	ret = ar_user_stats(obj, st, reset);
	ar_hook_off_leave();
	return ret;
}

const struct ar_engine ar_user_engine = {
	.name	= "user",
	.setup	= ar_user_setup_off,
	.mmap	= ar_user_mmap_off,
	.unmap	= ar_user_unmap_off,
	.enter	= ar_user_enter,
	.reg	= ar_user_register,
	.close	= ar_user_close,
	.policy	= ar_user_policy_off,
	.stats	= ar_user_stats_off,
	.ring_index = ar_user_ring_index,
	.mmap_raw = ar_user_mmap_raw_off,
	.cq_idle = ar_user_cq_idle,
	.fd_polled = ar_user_fd_polled,
	.prepoll = ar_user_prepoll,
	.preread = ar_poll_preread,
	.prefork = ar_user_prefork,
	.forked = ar_user_forked,
	.in_process = true,
};
