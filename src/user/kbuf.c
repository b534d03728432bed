/* SPDX-License-Identifier: MIT */
/*
 * kbuf.c - provided buffers, as the kernel's kbuf.c: the buffer groups of
 * a ring, PROVIDE_BUFFERS and REMOVE_BUFFERS, buffer rings registered by
 * the application, and buffer selection for IOSQE_BUFFER_SELECT (the
 * protocol is in kbuf.h).
 *
 * A group is found by its id in a two-level table (256 x 256). A list
 * group's buffers are entries taken from a per-ring cache, refilled in
 * slabs allocated outside the lock, so selecting and consuming a buffer
 * allocates nothing. A ring group reads the application's ring: its tail
 * with an acquire load, its entries directly (the memory was checked at
 * registration as the kernel pins it; docs/semantics.md D19).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/kbuf.h"
#include "user/pin.h"
#include "user/backend.h"

#define AR_MAX_BIDS_PER_BGID	(1U << 16)	/* bids are 16 bits in a CQE */
#define AR_KBUF_MAX_LIST	0xffffU		/* USHRT_MAX buffers in a list */
#define AR_KBUF_DIR		256
#define AR_PBUF_RING_MMAP	1U		/* IOU_PBUF_RING_MMAP */
#define AR_PBUF_RING_INC	2U		/* IOU_PBUF_RING_INC (6.12) */
#define AR_PAGE_SIZE		4096UL
#define AR_CQE_F_BUF_MORE	(1U << 4)	/* IORING_CQE_F_BUF_MORE (6.12) */

/* a PROVIDE_BUFFERS buffer (the kernel's struct io_buffer) */
struct ar_kbuf_node {
	struct ar_kbuf_node *next;
	__u64 addr;
	__u32 len;
	__u16 bid;
};

struct ar_kbuf_slab {
	struct ar_kbuf_slab *next;
	struct ar_kbuf_node nodes[];
};

/* a buffer group (the kernel's struct io_buffer_list) */
struct ar_kbuf_list {
	__u32 id;			/* unique per ring: a registration's identity */
	__u16 bgid;
	bool ring;
	bool inc;			/* IOU_PBUF_RING_INC: buffers used up in parts */
	__u32 min_left;			/* inc: a shorter rest is used up (at least 1) */
	/* a list: FIFO, taken from the head */
	struct ar_kbuf_node *head, *tail;
	__u32 nbufs;
	/* a ring: the application's memory, or ours (mmap_len) */
	struct io_uring_buf_ring *br;
	__u16 rhead;
	__u16 mask;
	size_t mmap_len;	/* IOU_PBUF_RING_MMAP: the ring the engine mapped */
	struct ar_pinned *pin;	/* the application's ring, pinned: br is its alias */
};

struct ar_kbuf_ctx {
	struct ar_kbuf_list **dir[AR_KBUF_DIR];
	struct ar_kbuf_node *free;	/* the entry cache */
	unsigned nr_free;
	struct ar_kbuf_slab *slabs;
	__u32 next_id;
	struct ar_kbuf_vec *vecs;	/* bundles' iovec arrays, kept for reuse */
	unsigned nr_vecs;
};

/* a bundle's iovec array (the kernel's kmsg->vec), cached per ring */
struct ar_kbuf_vec {
	struct iovec iov[AR_PEEK_MAX_IMPORT];
	struct ar_kbuf_vec *next;
};

#define AR_KBUF_VEC_CACHE	16

/* PROVIDE_BUFFERS / REMOVE_BUFFERS's opdata (the kernel's io_provide_buf) */
struct ar_provide_buf {
	__u64 addr;
	__u32 len;
	__u32 nbufs;
	__u16 bgid;
	__u16 bid;
	bool provide;		/* PROVIDE_BUFFERS, not REMOVE_BUFFERS */
};

static struct ar_kbuf_list *ar_kbuf_get_list(struct ar_kbuf_ctx *kb,
					     unsigned bgid)
{
	struct ar_kbuf_list **chunk;

	if (!kb)
		return NULL;
	chunk = kb->dir[(bgid >> 8) & 0xff];
	return chunk ? chunk[bgid & 0xff] : NULL;
}

/* under kbuf_lock: set bgid's slot (it may allocate its chunk); 0 or -ENOMEM */
static int ar_kbuf_set_list(struct ar_kbuf_ctx *kb, unsigned bgid,
			    struct ar_kbuf_list *bl)
{
	struct ar_kbuf_list ***chunk = &kb->dir[(bgid >> 8) & 0xff];

	if (!*chunk) {
		if (!bl)
			return 0;
		*chunk = calloc(256, sizeof(**chunk));
		if (!*chunk)
			return -ENOMEM;
	}
	(*chunk)[bgid & 0xff] = bl;
	return 0;
}

/* under kbuf_lock: the ring's group table, made on first use */
static struct ar_kbuf_ctx *ar_kbuf_ctx_get(struct ar_uctx *ctx)
{
	if (!ctx->kbuf)
		ctx->kbuf = calloc(1, sizeof(*ctx->kbuf));
	return ctx->kbuf;
}

static struct ar_kbuf_list *ar_kbuf_new_list(struct ar_kbuf_ctx *kb,
					     unsigned bgid)
{
	struct ar_kbuf_list *bl = calloc(1, sizeof(*bl));

	if (!bl)
		return NULL;
	bl->bgid = (__u16)bgid;
	bl->id = ++kb->next_id;
	return bl;
}

static void ar_kbuf_node_free(struct ar_kbuf_ctx *kb, struct ar_kbuf_node *n)
{
	n->next = kb->free;
	kb->free = n;
	kb->nr_free++;
}

/* a list's entries go back to the cache; how many */
static unsigned ar_kbuf_remove_legacy(struct ar_kbuf_ctx *kb,
				      struct ar_kbuf_list *bl, unsigned nbufs)
{
	struct ar_kbuf_node *n;
	unsigned i;

	for (i = 0; i < nbufs && (n = bl->head); i++) {
		bl->head = n->next;
		if (!bl->head)
			bl->tail = NULL;
		bl->nbufs--;
		ar_kbuf_node_free(kb, n);
	}
	return i;
}

/* a group's memory: its ring's too, if the engine mapped it */
static void ar_kbuf_list_free(struct ar_kbuf_list *bl)
{
	if (bl && bl->mmap_len)
		munmap(bl->br, bl->mmap_len);
	if (bl)
		ar_unpin_pages(bl->pin);
	free(bl);
}

static void ar_kbuf_put_list(struct ar_kbuf_ctx *kb, struct ar_kbuf_list *bl)
{
	if (!bl->ring)
		ar_kbuf_remove_legacy(kb, bl, AR_KBUF_MAX_LIST);
	ar_kbuf_list_free(bl);
}

void ar_kbuf_free(struct ar_uctx *ctx)
{
	struct ar_kbuf_ctx *kb = ctx->kbuf;
	struct ar_kbuf_slab *s;
	unsigned i, j;

	if (!kb)
		return;
	for (i = 0; i < AR_KBUF_DIR; i++) {
		if (!kb->dir[i])
			continue;
		for (j = 0; j < 256; j++)
			if (kb->dir[i][j])
				ar_kbuf_put_list(kb, kb->dir[i][j]);
		free(kb->dir[i]);
	}
	while ((s = kb->slabs)) {
		kb->slabs = s->next;
		free(s);
	}
	while (kb->vecs) {
		struct ar_kbuf_vec *v = kb->vecs;

		kb->vecs = v->next;
		free(v);
	}
	free(kb);
	ctx->kbuf = NULL;
}

/* ---- PROVIDE_BUFFERS, REMOVE_BUFFERS ---- */

int ar_provide_buffers_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_provide_buf *p = ar_req_data(req, struct ar_provide_buf);
	/* sqe->fd is read as the kernel does: sign-extended to 64 bits */
	__u64 nbufs = (__u64)(__s64)sqe->fd, size, end;

	p->provide = true;
	if (sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	if (!nbufs || nbufs > AR_MAX_BIDS_PER_BGID)
		return -E2BIG;
	p->nbufs = (__u32)nbufs;
	p->addr = sqe->addr;
	p->len = sqe->len;
	if (!p->len)
		return -EINVAL;
	size = (__u64)p->len * nbufs;	/* < 2^49: no overflow */
	if (__builtin_add_overflow(p->addr, size, &end))
		return -EOVERFLOW;
	if (!ar_access_ok((void *)(unsigned long)p->addr, size))
		return -EFAULT;
	p->bgid = sqe->buf_group;
	if (sqe->off > 0xffff)
		return -E2BIG;
	if (sqe->off + nbufs > AR_MAX_BIDS_PER_BGID)
		return -EINVAL;
	p->bid = (__u16)sqe->off;
	return 0;
}

int ar_remove_buffers_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_provide_buf *p = ar_req_data(req, struct ar_provide_buf);
	__u64 nbufs = (__u64)(__s64)sqe->fd;

	if (sqe->rw_flags || sqe->addr || sqe->len || sqe->off ||
	    sqe->splice_fd_in)
		return -EINVAL;
	if (!nbufs || nbufs > AR_MAX_BIDS_PER_BGID)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->nbufs = (__u32)nbufs;
	p->bgid = sqe->buf_group;
	return 0;
}

/*
 * Make sure the cache holds nr entries: the slab is allocated with the
 * lock dropped (taken again on return). 0, or -ENOMEM if none could be.
 */
static int ar_kbuf_refill(struct ar_uctx *ctx, struct ar_kbuf_ctx *kb,
			  unsigned nr)
{
	struct ar_kbuf_slab *s;
	unsigned need, i;

	if (kb->nr_free >= nr)
		return 0;
	need = nr - kb->nr_free;
	ar_spin_unlock(&ctx->kbuf_lock);
	s = malloc(sizeof(*s) + need * sizeof(s->nodes[0]));
	ar_spin_lock(&ctx->kbuf_lock);
	if (!s)
		return kb->nr_free ? 0 : -ENOMEM;
	s->next = kb->slabs;
	kb->slabs = s;
	for (i = 0; i < need; i++)
		ar_kbuf_node_free(kb, &s->nodes[i]);
	return 0;
}

/* io_add_buffers(): as many as fit; 0 if any was added */
static int ar_kbuf_add_buffers(struct ar_kbuf_ctx *kb, struct ar_kbuf_list *bl,
			       const struct ar_provide_buf *p)
{
	__u64 addr = p->addr;
	unsigned i, bid = p->bid;
	int ret = -ENOMEM;

	for (i = 0; i < p->nbufs; i++) {
		struct ar_kbuf_node *n = kb->free;

		/* more than a bid's range in one list makes bids ambiguous */
		if (bl->nbufs == AR_KBUF_MAX_LIST) {
			ret = -EOVERFLOW;
			break;
		}
		if (!n)
			break;
		kb->free = n->next;
		kb->nr_free--;
		n->next = NULL;
		n->addr = addr;
		n->len = p->len < AR_MAX_RW_COUNT ? p->len : AR_MAX_RW_COUNT;
		n->bid = (__u16)bid++;
		if (bl->tail)
			bl->tail->next = n;
		else
			bl->head = n;
		bl->tail = n;
		bl->nbufs++;
		addr += p->len;
	}
	return i ? 0 : ret;
}

/* io_manage_buffers_legacy(), under kbuf_lock */
static int ar_kbuf_manage_locked(struct ar_uctx *ctx,
				 const struct ar_provide_buf *p)
{
	bool provide = p->provide;
	struct ar_kbuf_ctx *kb = ar_kbuf_ctx_get(ctx);
	struct ar_kbuf_list *bl;
	int ret;

	if (!kb)
		return -ENOMEM;
	bl = ar_kbuf_get_list(kb, p->bgid);
	if (!bl) {
		if (!provide)
			return -ENOENT;
		bl = ar_kbuf_new_list(kb, p->bgid);
		if (!bl)
			return -ENOMEM;
		if (ar_kbuf_set_list(kb, p->bgid, bl)) {
			free(bl);
			return -ENOMEM;
		}
	}
	/* a buffer ring's group takes no PROVIDE/REMOVE_BUFFERS */
	if (bl->ring)
		return -EINVAL;
	if (!provide)
		return (int)ar_kbuf_remove_legacy(kb, bl, p->nbufs);
	ret = ar_kbuf_refill(ctx, kb, p->nbufs);
	if (ret)
		return ret;
	/* the lock was dropped: the group may have become a ring meanwhile */
	bl = ar_kbuf_get_list(kb, p->bgid);
	if (!bl || bl->ring)
		return bl ? -EINVAL : -ENOENT;
	return ar_kbuf_add_buffers(kb, bl, p);
}

int ar_manage_buffers_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_provide_buf *p = ar_req_data(req, struct ar_provide_buf);
	struct ar_uctx *ctx = req->ctx;
	int ret;

	(void)issue_flags;
	ar_spin_lock(&ctx->kbuf_lock);
	ret = ar_kbuf_manage_locked(ctx, p);
	ar_spin_unlock(&ctx->kbuf_lock);
	return ret;
}

/* ---- buffer rings ---- */

/* a group that already holds buffers (a ring, or a non-empty list) */
static bool ar_kbuf_busy(const struct ar_kbuf_list *bl)
{
	return bl && (bl->ring || bl->head);
}

int ar_kbuf_register_ring(struct ar_uctx *ctx, const void *arg)
{
	struct ar_buf_reg reg;
	struct ar_kbuf_ctx *kb;
	struct ar_kbuf_list *bl, *old;
	struct ar_pinned *pin = NULL;
	void *mem = NULL;
	__u64 size;
	int ret;

	if (ar_copy_from_user(&reg, arg, sizeof(reg)))
		return -EFAULT;
	if (reg.resv[0] || reg.resv[1] || reg.resv[2] || reg.resv[3] ||
	    reg.resv[4])
		return -EINVAL;
	if (reg.flags & ~(AR_PBUF_RING_MMAP | AR_PBUF_RING_INC))
		return -EINVAL;
	/* a minimum rest is an incremental ring's only (measured on 6.18) */
	if (reg.min_left && !(reg.flags & AR_PBUF_RING_INC))
		return -EINVAL;
	if (!reg.ring_entries || (reg.ring_entries & (reg.ring_entries - 1)))
		return -EINVAL;
	/* cannot tell full from empty with 16-bit head and tail */
	if (reg.ring_entries >= 65536)
		return -EINVAL;
	ar_spin_lock(&ctx->kbuf_lock);
	ret = ar_kbuf_busy(ar_kbuf_get_list(ctx->kbuf, reg.bgid)) ? -EEXIST : 0;
	ar_spin_unlock(&ctx->kbuf_lock);
	if (ret)
		return ret;
	size = (__u64)reg.ring_entries * sizeof(struct io_uring_buf);
	size = (size + AR_PAGE_SIZE - 1) & ~(AR_PAGE_SIZE - 1);
	if (reg.flags & AR_PBUF_RING_MMAP) {
		/*
		 * The engine's memory, ring_addr ignored (as 6.18's region).
		 * Shared, so that the system-call trap can map the same pages
		 * for the program at IORING_OFF_PBUF_RING (ctx.c mmap_raw).
		 */
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return -ENOMEM;
		reg.ring_addr = (unsigned long)mem;
	} else {
		ret = ar_pin_region(reg.ring_addr, size, &pin);
		if (ret)
			return ret;
		if (pin)
			reg.ring_addr = (unsigned long)ar_pinned_addr(pin);
	}

	ar_spin_lock(&ctx->kbuf_lock);
	kb = ar_kbuf_ctx_get(ctx);
	old = ar_kbuf_get_list(kb, reg.bgid);
	if (ar_kbuf_busy(old)) {
		ar_spin_unlock(&ctx->kbuf_lock);
		if (mem)
			munmap(mem, size);
		ar_unpin_pages(pin);
		return -EEXIST;
	}
	bl = kb ? ar_kbuf_new_list(kb, reg.bgid) : NULL;
	if (!bl || ar_kbuf_set_list(kb, reg.bgid, bl)) {
		ar_spin_unlock(&ctx->kbuf_lock);
		free(bl);
		if (mem)
			munmap(mem, size);
		ar_unpin_pages(pin);
		return -ENOMEM;
	}
	bl->ring = true;
	bl->inc = reg.flags & AR_PBUF_RING_INC;
	bl->min_left = reg.min_left ? reg.min_left : 1;
	bl->br = (struct io_uring_buf_ring *)(unsigned long)reg.ring_addr;
	bl->mask = (__u16)(reg.ring_entries - 1);
	bl->mmap_len = mem ? size : 0;
	bl->pin = pin;
	/* an empty list group is replaced, as the kernel's io_destroy_bl() */
	if (old)
		free(old);
	ar_spin_unlock(&ctx->kbuf_lock);
	return 0;
}

int ar_kbuf_unregister_ring(struct ar_uctx *ctx, const void *arg)
{
	struct ar_buf_reg reg;
	struct ar_kbuf_list *bl;
	int ret = 0;

	if (ar_copy_from_user(&reg, arg, sizeof(reg)))
		return -EFAULT;
	/* 6.18 looks at resv and flags only, not at min_left (measured) */
	if (reg.resv[0] || reg.resv[1] || reg.resv[2] || reg.resv[3] ||
	    reg.resv[4] || reg.flags)
		return -EINVAL;
	ar_spin_lock(&ctx->kbuf_lock);
	bl = ar_kbuf_get_list(ctx->kbuf, reg.bgid);
	if (!bl)
		ret = -ENOENT;
	else if (!bl->ring)
		ret = -EINVAL;
	else
		ar_kbuf_set_list(ctx->kbuf, reg.bgid, NULL);
	ar_spin_unlock(&ctx->kbuf_lock);
	if (!ret)
		ar_kbuf_list_free(bl);
	return ret;
}

/*
 * The ring of group bgid if the engine mapped it (IOU_PBUF_RING_MMAP):
 * its address and *len, for the program's mmap at IORING_OFF_PBUF_RING
 * (the system-call trap); NULL otherwise.
 */
void *ar_kbuf_mmap_ring(struct ar_uctx *ctx, unsigned bgid, size_t *len)
{
	struct ar_kbuf_list *bl;
	void *mem = NULL;

	ar_spin_lock(&ctx->kbuf_lock);
	bl = ar_kbuf_get_list(ctx->kbuf, bgid);
	if (bl && bl->ring && bl->mmap_len) {
		mem = bl->br;
		*len = bl->mmap_len;
	}
	ar_spin_unlock(&ctx->kbuf_lock);
	return mem;
}

/* struct io_uring_buf_status (6.8): engine/compat.h */
int ar_kbuf_ring_status(struct ar_uctx *ctx, void *arg)
{
	struct ar_buf_status st;
	struct ar_kbuf_list *bl;
	int ret = 0;
	unsigned i;

	if (ar_copy_from_user(&st, arg, sizeof(st)))
		return -EFAULT;
	for (i = 0; i < 8; i++)
		if (st.resv[i])
			return -EINVAL;
	ar_spin_lock(&ctx->kbuf_lock);
	bl = ar_kbuf_get_list(ctx->kbuf, st.buf_group);
	if (!bl)
		ret = -ENOENT;
	else if (!bl->ring)
		ret = -EINVAL;
	else
		st.head = bl->rhead;
	ar_spin_unlock(&ctx->kbuf_lock);
	if (ret)
		return ret;
	return ar_copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

/* ---- selection ---- */

static bool ar_kbuf_legacy_select(struct ar_ureq *req, struct ar_kbuf_list *bl)
{
	struct ar_kbuf_node *n = bl->head;

	if (!n)
		return false;
	bl->head = n->next;
	if (!bl->head)
		bl->tail = NULL;
	bl->nbufs--;
	req->kbuf.node = n;
	req->kbuf.addr = n->addr;
	req->kbuf.len = n->len;
	req->kbuf.bid = n->bid;
	req->kbuf.state = AR_KBUF_LEGACY;
	req->kbuf.empty = !bl->head;
	return true;
}

static bool ar_kbuf_ring_select(struct ar_ureq *req, struct ar_kbuf_list *bl,
				unsigned issue_flags)
{
	const struct io_uring_buf *buf;
	__u16 tail;

	/*
	 * Acquire pairs with the application's release store of the tail
	 * (io_uring_buf_ring_advance()): the entries below it are written.
	 */
	tail = __atomic_load_n(&bl->br->tail, __ATOMIC_ACQUIRE);
	if (tail == bl->rhead)
		return false;
	buf = &bl->br->bufs[bl->rhead & bl->mask];
	req->kbuf.addr = IO_URING_READ_ONCE(buf->addr);
	req->kbuf.len = IO_URING_READ_ONCE(buf->len);
	req->kbuf.bid = IO_URING_READ_ONCE(buf->bid);
	req->kbuf.empty = (__u16)(bl->rhead + 1) == tail;
	req->kbuf.pos = bl->rhead++;
	req->kbuf.nr = 1;
	req->kbuf.list_id = bl->id;
	req->kbuf.state = AR_KBUF_RING;
	req->kbuf.inc = bl->inc;
	req->kbuf.ring_len = req->kbuf.len;
	/* io-wq (unlocked) consumes it at once; see ar_kbuf_consumed() */
	req->kbuf.committed = !!(issue_flags & AR_ISSUE_WORKER);
	return true;
}

/*
 * used bytes of an incremental ring's buffer are consumed, as the
 * kernel's io_kbuf_inc_commit(): what is left stays at the head for the
 * next selection, its address and length moved on in the application's
 * ring (true: the CQE says IORING_CQE_F_BUF_MORE; a zero-length use
 * too, as the kernel's). Used up (less than the ring's min_left left,
 * one byte unless registered), or no longer at the head
 * because another selection took the next meanwhile (a commit this late
 * never happens in the kernel, whose uring_lock covers the issue): its
 * length becomes 0 and it is consumed (false). Under kbuf_lock.
 */
static bool ar_kbuf_inc_commit_locked(struct ar_kbuf_list *bl,
				      struct ar_ureq *req, __u32 used)
{
	struct io_uring_buf *buf = &bl->br->bufs[req->kbuf.pos & bl->mask];
	__u32 left = used < req->kbuf.ring_len ? req->kbuf.ring_len - used : 0;

	/*
	 * Relaxed, as the kernel's WRITE_ONCE(): the application reads the
	 * entry after the CQE that names it, whose post (the CQ tail's
	 * release store) publishes these stores.
	 */
	if ((left >= bl->min_left || !used) && bl->rhead == (__u16)(req->kbuf.pos + 1)) {
		__atomic_store_n(&buf->addr, req->kbuf.addr + used, __ATOMIC_RELAXED);
		__atomic_store_n(&buf->len, left, __ATOMIC_RELAXED);
		bl->rhead--;
		return true;
	}
	__atomic_store_n(&buf->len, 0, __ATOMIC_RELAXED);
	return false;
}

int ar_buffer_select(struct ar_ureq *req, unsigned bgid, void **addr,
		     size_t *len, unsigned issue_flags)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_kbuf_list *bl;
	bool ok = false;

	if (!ar_kbuf_selected(req)) {
		ar_spin_lock(&ctx->kbuf_lock);
		bl = ar_kbuf_get_list(ctx->kbuf, bgid);
		if (bl)
			ok = bl->ring ? ar_kbuf_ring_select(req, bl, issue_flags) :
			     ar_kbuf_legacy_select(req, bl);
		if (ok) {
			req->kbuf.bgid = (__u16)bgid;
			if (*len == 0 || *len > req->kbuf.len)
				*len = req->kbuf.len;
			req->kbuf.len = (__u32)*len;
			/*
			 * Consumed at selection (io-wq, or a file that cannot
			 * be polled: the kernel's io_should_commit()): an
			 * incremental ring's buffer by the length asked
			 */
			if (req->kbuf.inc && !req->kbuf.committed &&
			    (!req->file.be || !req->file.be->pollable))
				req->kbuf.committed = 1;
			if (req->kbuf.inc && req->kbuf.committed)
				req->kbuf.more = ar_kbuf_inc_commit_locked(bl, req,
									   req->kbuf.len);
		}
		ar_spin_unlock(&ctx->kbuf_lock);
		if (!ok)
			return -ENOBUFS;
	} else {
		*len = req->kbuf.len;	/* kept across a retry */
	}
	*addr = (void *)(unsigned long)req->kbuf.addr;
	/* the kernel takes a NULL buffer for none: selected, yet -ENOBUFS */
	return *addr ? 0 : -ENOBUFS;
}

/* ---- bundles ---- */

/*
 * An incremental ring's buffers a bundle holds, used bytes from the
 * first, as io_kbuf_inc_commit() walks them: each used up is consumed
 * (its length 0 in the application's ring); one partly used, or the
 * first when nothing was used, stays at the head with its address and
 * length moved on (true: IORING_CQE_F_BUF_MORE), and the ones after it
 * go back. Going back needs the head where this selection left it (see
 * ar_kbuf_inc_commit_locked()); otherwise what is left is used up too.
 * Under kbuf_lock.
 */
static bool ar_kbuf_inc_commit_n_locked(struct ar_kbuf_list *bl,
					struct ar_ureq *req, __u32 used)
{
	bool rewind = bl->rhead == (__u16)(req->kbuf.pos + req->kbuf.nr);
	__u16 i, pos = req->kbuf.pos;

	for (i = 0; i < req->kbuf.nr; i++) {
		struct io_uring_buf *buf;
		__u32 blen, this_len, left;
		__u64 addr;

		pos = (__u16)(req->kbuf.pos + i);
		buf = &bl->br->bufs[pos & bl->mask];
		/* relaxed, as the kernel's READ_ONCE/WRITE_ONCE (see above) */
		blen = i ? __atomic_load_n(&buf->len, __ATOMIC_RELAXED) :
			   req->kbuf.ring_len;
		addr = i ? __atomic_load_n(&buf->addr, __ATOMIC_RELAXED) :
			   req->kbuf.addr;
		this_len = used < blen ? used : blen;
		left = blen - this_len;
		if (left >= bl->min_left || !this_len) {
			if (!rewind)
				break;
			__atomic_store_n(&buf->addr, addr + this_len, __ATOMIC_RELAXED);
			__atomic_store_n(&buf->len, left, __ATOMIC_RELAXED);
			bl->rhead = pos;
			return true;
		}
		__atomic_store_n(&buf->len, 0, __ATOMIC_RELAXED);
		used -= this_len;
		if (!used) {
			if (rewind)
				bl->rhead = (__u16)(pos + 1);
			return false;
		}
	}
	if (i < req->kbuf.nr)
		__atomic_store_n(&bl->br->bufs[pos & bl->mask].len, 0,
				 __ATOMIC_RELAXED);
	return false;
}

/*
 * io_ring_buffers_peek(), under kbuf_lock: the ring's buffers from its
 * head into arg->iovs, taken by req as one selection.
 */
static int ar_kbuf_ring_peek(struct ar_ureq *req, struct ar_kbuf_list *bl,
			     struct ar_kbuf_peek *arg)
{
	const struct io_uring_buf *buf;
	struct iovec *iov = arg->iovs;
	size_t max_len = arg->max_len;
	unsigned nr_avail, nr_iovs = arg->nr_iovs;
	__u16 tail, head = bl->rhead, first = bl->rhead;

	/* acquire: pairs with the application's release of the tail, as above */
	tail = __atomic_load_n(&bl->br->tail, __ATOMIC_ACQUIRE);
	nr_avail = (__u16)(tail - head);
	if (nr_avail > UIO_MAXIOV)
		nr_avail = UIO_MAXIOV;
	if (!nr_avail)
		return -ENOBUFS;
	buf = &bl->br->bufs[head & bl->mask];
	if (max_len) {
		__u32 len = IO_URING_READ_ONCE(buf->len);
		size_t needed;

		if (!len)
			return -ENOBUFS;
		needed = (max_len + len - 1) / len;
		if (!needed || needed > AR_PEEK_MAX_IMPORT)
			needed = AR_PEEK_MAX_IMPORT;
		if (nr_avail > needed)
			nr_avail = (unsigned)needed;
	}
	/* only a length known to be wanted maps more than the array held */
	if (arg->expand && nr_avail > nr_iovs && max_len) {
		nr_iovs = nr_avail;
		arg->grew = true;
	}
	else if (nr_avail < nr_iovs)
		nr_iovs = nr_avail;
	if (!max_len)
		max_len = INT_MAX;
	req->kbuf.bid = IO_URING_READ_ONCE(buf->bid);
	req->kbuf.addr = IO_URING_READ_ONCE(buf->addr);
	req->kbuf.ring_len = IO_URING_READ_ONCE(buf->len);
	do {
		__u32 len = IO_URING_READ_ONCE(buf->len);

		/* a buffer longer than what is left: cut, or not mapped */
		if (len > max_len) {
			len = (__u32)max_len;
			if (!bl->inc) {
				arg->partial_map = true;
				if (iov != arg->iovs)
					break;
			}
		}
		iov->iov_base = (void *)(uintptr_t)IO_URING_READ_ONCE(buf->addr);
		iov->iov_len = len;
		iov++;
		arg->out_len += len;
		max_len -= len;
		if (!max_len)
			break;
		buf = &bl->br->bufs[++head & bl->mask];
	} while (--nr_iovs);
	req->kbuf.len = (__u32)arg->iovs[0].iov_len;
	req->kbuf.empty = head == tail;
	req->kbuf.pos = first;
	req->kbuf.nr = (__u16)(iov - arg->iovs);
	req->kbuf.list_id = bl->id;
	req->kbuf.state = AR_KBUF_RING;
	req->kbuf.inc = bl->inc;
	req->kbuf.committed = 0;
	bl->rhead = (__u16)(first + req->kbuf.nr);
	return req->kbuf.nr;
}

/*
 * A list gives one buffer: a send's whole buffer, a receive's at most
 * max_len (io_provided_buffers_select() with out_len, or max_len)
 */
static int ar_kbuf_legacy_peek(struct ar_ureq *req, struct ar_kbuf_list *bl,
			       struct ar_kbuf_peek *arg, bool commit)
{
	size_t len = commit ? 0 : arg->max_len;

	if (!ar_kbuf_legacy_select(req, bl))
		return -ENOBUFS;
	if (len == 0 || len > req->kbuf.len)
		len = req->kbuf.len;
	req->kbuf.len = (__u32)len;
	arg->iovs[0].iov_base = (void *)(uintptr_t)req->kbuf.addr;
	arg->iovs[0].iov_len = len;
	arg->out_len = len;
	return 1;
}

int ar_buffers_select(struct ar_ureq *req, unsigned bgid,
		      struct ar_kbuf_peek *arg, bool commit)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_kbuf_list *bl;
	int ret;

	arg->out_len = 0;
	arg->partial_map = arg->grew = false;
	ar_spin_lock(&ctx->kbuf_lock);
	bl = ar_kbuf_get_list(ctx->kbuf, bgid);
	if (!bl)
		ret = -ENOENT;
	else if (!bl->ring)
		ret = ar_kbuf_legacy_peek(req, bl, arg, commit);
	else
		ret = ar_kbuf_ring_peek(req, bl, arg);
	if (ret > 0) {
		req->kbuf.bgid = (__u16)bgid;
		/* a send's: consumed now, an incremental ring's by the bytes mapped */
		if (bl->ring && commit) {
			req->kbuf.committed = 1;
			if (bl->inc)
				req->kbuf.more = ar_kbuf_inc_commit_n_locked(bl, req,
							(__u32)arg->out_len);
		}
	}
	ar_spin_unlock(&ctx->kbuf_lock);
	return ret;
}

unsigned ar_put_kbufs(struct ar_ureq *req, int len, unsigned nbufs)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_kbuf_list *bl;
	unsigned cflags = IORING_CQE_F_BUFFER;

	if (!ar_kbuf_selected(req))
		return 0;
	if (req->kbuf.state == AR_KBUF_LEGACY || req->kbuf.nr <= 1)
		return ar_put_kbuf(req, len);
	if (req->kbuf.committed) {
		if (req->kbuf.inc && req->kbuf.more)
			cflags |= AR_CQE_F_BUF_MORE;
	} else {
		ar_spin_lock(&ctx->kbuf_lock);
		bl = ar_kbuf_get_list(ctx->kbuf, req->kbuf.bgid);
		if (bl && bl->id == req->kbuf.list_id) {
			if (req->kbuf.inc) {
				if (ar_kbuf_inc_commit_n_locked(bl, req,
						len > 0 ? (__u32)len : 0))
					cflags |= AR_CQE_F_BUF_MORE;
			} else if (nbufs < req->kbuf.nr &&
				   bl->rhead == (__u16)(req->kbuf.pos + req->kbuf.nr)) {
				/* the ones the result did not reach go back */
				bl->rhead = (__u16)(req->kbuf.pos + nbufs);
			}
		}
		ar_spin_unlock(&ctx->kbuf_lock);
	}
	req->kbuf.state = AR_KBUF_NONE;
	return cflags | ((unsigned)req->kbuf.bid << IORING_CQE_BUFFER_SHIFT);
}

struct iovec *ar_kbuf_vec_get(struct ar_uctx *ctx)
{
	struct ar_kbuf_vec *v = NULL;

	ar_spin_lock(&ctx->kbuf_lock);
	if (ctx->kbuf && ctx->kbuf->vecs) {
		v = ctx->kbuf->vecs;
		ctx->kbuf->vecs = v->next;
		ctx->kbuf->nr_vecs--;
	}
	ar_spin_unlock(&ctx->kbuf_lock);
	if (!v)
		v = malloc(sizeof(*v));
	return v ? v->iov : NULL;
}

void ar_kbuf_vec_put(struct ar_uctx *ctx, struct iovec *vec)
{
	/* iov is the block's first member */
	struct ar_kbuf_vec *v = (struct ar_kbuf_vec *)(void *)vec;

	if (!vec)
		return;
	ar_spin_lock(&ctx->kbuf_lock);
	if (ctx->kbuf && ctx->kbuf->nr_vecs < AR_KBUF_VEC_CACHE) {
		v->next = ctx->kbuf->vecs;
		ctx->kbuf->vecs = v;
		ctx->kbuf->nr_vecs++;
		v = NULL;
	}
	ar_spin_unlock(&ctx->kbuf_lock);
	free(v);
}

/* under kbuf_lock: a list buffer goes back to its group's head */
static void ar_kbuf_legacy_give_back(struct ar_kbuf_ctx *kb,
				     struct ar_ureq *req)
{
	struct ar_kbuf_list *bl = ar_kbuf_get_list(kb, req->kbuf.bgid);
	struct ar_kbuf_node *n = req->kbuf.node;

	if (!bl || bl->ring) {
		/* its group became a ring meanwhile: nothing to return to */
		ar_kbuf_node_free(kb, n);
		return;
	}
	n->next = bl->head;
	bl->head = n;
	if (!bl->tail)
		bl->tail = n;
	bl->nbufs++;
}

/* under kbuf_lock: a ring buffer is given back if no selection followed */
static bool ar_kbuf_ring_give_back(struct ar_kbuf_ctx *kb, struct ar_ureq *req)
{
	struct ar_kbuf_list *bl = ar_kbuf_get_list(kb, req->kbuf.bgid);

	if (!bl || bl->id != req->kbuf.list_id)
		return true;	/* unregistered: the buffer is gone with it */
	if (bl->rhead != (__u16)(req->kbuf.pos + req->kbuf.nr))
		return false;
	bl->rhead = req->kbuf.pos;
	return true;
}

/*
 * Did the kernel consume this ring buffer when it selected it? In io-wq,
 * and for a file it cannot poll; otherwise only with the result, so a
 * retry or an error gives it back. The file's kind is looked at again
 * (the fd cache cannot see a number reused): only on these slow paths.
 */
static bool ar_kbuf_consumed(struct ar_ureq *req)
{
	if (req->kbuf.committed)
		return true;
	ar_req_file_recheck(req);
	return !req->file.be || !req->file.be->pollable;
}

void ar_kbuf_recycle(struct ar_ureq *req, bool force)
{
	struct ar_uctx *ctx = req->ctx;

	/*
	 * 6.18 keeps a list buffer with a request that waits or goes to a
	 * worker (measured: a read waiting on a pipe holds it, and its
	 * cancellation posts it)
	 */
	if (!ar_kbuf_selected(req) ||
	    (!force && (req->kbuf.state == AR_KBUF_LEGACY ||
			ar_kbuf_consumed(req))))
		return;
	ar_spin_lock(&ctx->kbuf_lock);
	if (req->kbuf.state == AR_KBUF_LEGACY) {
		ar_kbuf_legacy_give_back(ctx->kbuf, req);
		req->kbuf.state = AR_KBUF_NONE;
	} else if (ar_kbuf_ring_give_back(ctx->kbuf, req)) {
		req->kbuf.state = AR_KBUF_NONE;
	} else {
		req->kbuf.committed = 1;	/* another took the next: keep it */
	}
	ar_spin_unlock(&ctx->kbuf_lock);
}

unsigned ar_put_kbuf(struct ar_ureq *req, int res)
{
	struct ar_uctx *ctx = req->ctx;
	unsigned cflags;

	if (!ar_kbuf_selected(req))
		return 0;
	if (req->kbuf.state == AR_KBUF_RING && res < 0 && !ar_kbuf_consumed(req)) {
		/* io_read()'s recycle on error: not consumed, no flags */
		ar_kbuf_recycle(req, false);
		if (!ar_kbuf_selected(req))
			return 0;
	}
	cflags = IORING_CQE_F_BUFFER;
	if (req->kbuf.state == AR_KBUF_LEGACY) {
		ar_spin_lock(&ctx->kbuf_lock);
		ar_kbuf_node_free(ctx->kbuf, req->kbuf.node);
		ar_spin_unlock(&ctx->kbuf_lock);
	} else if (req->kbuf.inc && req->kbuf.committed) {
		/* consumed at selection: 6.18 still tells what was left */
		if (req->kbuf.more)
			cflags |= AR_CQE_F_BUF_MORE;
	} else if (req->kbuf.inc) {
		/* an incremental ring's buffer: consumed by what the result used */
		struct ar_kbuf_list *bl;

		ar_spin_lock(&ctx->kbuf_lock);
		bl = ar_kbuf_get_list(ctx->kbuf, req->kbuf.bgid);
		if (bl && bl->id == req->kbuf.list_id &&
		    ar_kbuf_inc_commit_locked(bl, req, res > 0 ? (__u32)res : 0))
			cflags |= AR_CQE_F_BUF_MORE;
		ar_spin_unlock(&ctx->kbuf_lock);
	}
	/* another ring buffer was consumed when it was selected */
	req->kbuf.state = AR_KBUF_NONE;
	return cflags | ((unsigned)req->kbuf.bid << IORING_CQE_BUFFER_SHIFT);
}

void ar_put_kbuf_req(struct ar_ureq *req, int res)
{
	if (!ar_kbuf_selected(req))
		return;
	req->kbuf.cflags = ar_put_kbuf(req, res);
	if (req->kbuf.cflags)
		req->kbuf.state = AR_KBUF_PUT;
}
