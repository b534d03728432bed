/* SPDX-License-Identifier: MIT */
/*
 * rsrc.c - registered files and buffers (the kernel's rsrc.c and
 * filetable.c): dense, sparse, updates, tags, direct-descriptor slots,
 * the file allocation range and IORING_OP_FILES_UPDATE.
 *
 * A registered file is our own dup of the fd, so the application may close
 * its copy, as with the kernel's file reference. Each slot holds a
 * refcounted node; a request using a slot takes a reference at issue, so
 * an update or unregister never pulls a file from under running I/O. When
 * a node's last reference goes, its fd is closed and a non-zero tag is
 * posted as a CQE (user_data = tag, res = 0).
 * Tables are under ctx->uring_lock; dup() and close() happen outside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/fault.h"
#include "user/lock.h"
#include "user/ctx.h"
#include "user/complete.h"
#include "user/pin.h"
#include "user/rsrc.h"
#include "user/backend.h"
#include "engine/engine.h"

#define AR_MAX_FIXED_FILES	(1U << 20)
#define AR_MAX_REG_BUFFERS	(1U << 14)
#define AR_MAX_BUF_LEN		(1UL << 30)

static struct ar_rsrc_node *ar_node_new(__u64 tag)
{
	struct ar_rsrc_node *node = calloc(1, sizeof(*node));

	if (!node)
		return NULL;
	atomic_init(&node->refs, 1);
	node->fd = -1;
	node->tag = tag;
	return node;
}

void ar_rsrc_put(struct ar_uctx *ctx, struct ar_rsrc_node *node)
{
	if (!node || atomic_fetch_sub_explicit(&node->refs, 1,
					       memory_order_acq_rel) != 1)
		return;
	ar_file_release(&node->file);
	ar_internal_close(node->fd);
	if (node->tag) {
		ar_ctx_lock(ctx);
		ar_cq_post_locked(ctx, node->tag, 0, 0);
		ar_ctx_unlock(ctx);
		ar_cq_wake(ctx, false);
	}
	free(node);
}

static struct ar_rsrc_node *ar_rsrc_get(struct ar_uctx *ctx,
					struct ar_rsrc_table *t, unsigned index)
{
	struct ar_rsrc_node *node = NULL;

	ar_uring_lock(ctx);
	if (index < t->nr && (node = t->nodes[index]))
		atomic_fetch_add_explicit(&node->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	return node;
}

struct ar_rsrc_node *ar_rsrc_get_file(struct ar_uctx *ctx, unsigned index)
{
	return ar_rsrc_get(ctx, &ctx->files, index);
}

struct ar_rsrc_node *ar_rsrc_get_buf(struct ar_uctx *ctx, unsigned index)
{
	return ar_rsrc_get(ctx, &ctx->bufs, index);
}

/* a node for fd: our own duplicate; io_uring fds cannot be registered */
static int ar_file_node(struct ar_uctx *ctx, int fd, __u64 tag,
			struct ar_rsrc_node **out)
{
	struct ar_rsrc_node *node;

	if (ar_fd_engines(fd))
		return -EBADF;
	node = ar_node_new(tag);
	if (!node)
		return -ENOMEM;
	node->fd = ar_internal_claim(ar_fd_dup_high(fd));
	if (node->fd < 0) {
		int err = errno == EMFILE ? -EMFILE : -EBADF;

		free(node);
		return err;
	}
	ar_file_resolve_fixed(&node->file, node->fd);
	(void)ctx;
	*out = node;
	return 0;
}

/* io_buffer_validate(): the iovec alone, before its tag is read */
static int ar_buf_validate(const struct iovec *iov)
{
	unsigned long base = (unsigned long)iov->iov_base;
	unsigned long acct = (iov->iov_len + 4095UL) & ~4095UL;

	if (!iov->iov_base)
		return iov->iov_len ? -EFAULT : 0;
	if (!iov->iov_len || iov->iov_len > AR_MAX_BUF_LEN)
		return -EFAULT;
	if (base + acct < base)
		return -EOVERFLOW;
	return 0;
}

/*
 * A buffer's node, its iovec validated and its tag read: the pages are
 * checked as the kernel pins them (pin.c), then an empty slot may not
 * have a tag.
 */
static int ar_buf_node(struct ar_pin_map *map, const struct iovec *iov,
		       __u64 tag, struct ar_rsrc_node **out)
{
	struct ar_rsrc_node *node;
	int ret;

	if (!iov->iov_base) {
		*out = NULL;	/* an empty slot */
		return tag ? -EINVAL : 0;
	}
	ret = ar_pin_check(map, iov->iov_base, iov->iov_len);
	if (ret)
		return ret;
	node = ar_node_new(tag);
	if (!node)
		return -ENOMEM;
	node->iov = *iov;
	*out = node;
	return 0;
}

/* from the last slot down: the kernel posts a table's tags in that order */
static void ar_nodes_put(struct ar_uctx *ctx, struct ar_rsrc_node **nodes,
			 unsigned nr)
{
	while (nr--)
		ar_rsrc_put(ctx, nodes[nr]);
	free(nodes);
}

/* element i of an application array, read fault-safe */
static int ar_get_elem(void *dst, const void *arr, unsigned i, size_t size)
{
	/* integer arithmetic: arr may be NULL (or any bad address) */
	return ar_copy_from_user(dst, (const void *)((uintptr_t)arr +
						     (size_t)i * size), size);
}

/*
 * An application array read ahead in blocks at registration: one copy
 * for up to AR_UARRAY_BYTES of elements instead of one per element.
 * Reading has no side effects, so a block gives what element-by-element
 * reads give; once a block faults the rest is read element by element,
 * so the first element that cannot be read answers -EFAULT exactly where
 * the kernel's loop does.
 */
#define AR_UARRAY_BYTES	1024

struct ar_uarray {
	const char *base;	/* NULL: no array, get() is not called */
	size_t size;
	unsigned nr;		/* elements in the array */
	unsigned first, cnt;	/* the elements held in buf */
	bool slow;
	union {
		__u64 align;
		unsigned char buf[AR_UARRAY_BYTES];
	} u;
};

static void ar_uarray_init(struct ar_uarray *a, const void *base,
			   size_t size, unsigned nr)
{
	a->base = base;
	a->size = size;
	a->nr = nr;
	a->first = 0;
	a->cnt = 0;
	a->slow = false;
}

/* element i into dst: 0, or -EFAULT when it cannot be read */
static int ar_uarray_get(struct ar_uarray *a, unsigned i, void *dst)
{
	const char *src = a->base + (size_t)i * a->size;
	unsigned cnt;

	if (i - a->first < a->cnt) {
		memcpy(dst, a->u.buf + (size_t)(i - a->first) * a->size, a->size);
		return 0;
	}
	a->cnt = 0;
	if (!a->slow) {
		cnt = (unsigned)(AR_UARRAY_BYTES / a->size);
		if (cnt > a->nr - i)
			cnt = a->nr - i;
		if (!ar_copy_from_user(a->u.buf, src, cnt * a->size)) {
			a->first = i;
			a->cnt = cnt;
			memcpy(dst, a->u.buf, a->size);
			return 0;
		}
		a->slow = true;
	}
	return ar_copy_from_user(dst, src, a->size) ? -EFAULT : 0;
}

/* io_sqe_files_register()'s element: its tag, then its fd (-EFAULT each) */
static int ar_reg_file_elem(struct ar_uctx *ctx, struct ar_uarray *fds,
			    struct ar_uarray *tags, unsigned i,
			    struct ar_rsrc_node **node)
{
	__u64 tag = 0;
	int fd = -1;

	if ((tags->base && ar_uarray_get(tags, i, &tag)) ||
	    (fds->base && ar_uarray_get(fds, i, &fd)))
		return -EFAULT;
	if (fd == -1)
		return tag ? -EINVAL : 0;	/* sparse */
	if (fd < 0)
		return -EBADF;
	return ar_file_node(ctx, fd, tag, node);
}

/* io_sqe_buffers_register()'s element: iovec, its checks, tag, pin */
static int ar_reg_buf_elem(struct ar_pin_map *map, struct ar_uarray *iovs,
			   struct ar_uarray *tags, unsigned i,
			   struct ar_rsrc_node **node)
{
	struct iovec iov = { NULL, 0 };
	__u64 tag = 0;
	int ret;

	if (iovs->base && ar_uarray_get(iovs, i, &iov))
		return -EFAULT;
	ret = ar_buf_validate(&iov);
	if (ret)
		return ret;
	if (tags->base && ar_uarray_get(tags, i, &tag))
		return -EFAULT;
	return ar_buf_node(map, &iov, tag, node);
}

/* Build the nodes for a new table; data NULL: every slot empty. */
static int ar_table_build(struct ar_uctx *ctx, bool files, const void *data,
			  const __u64 *tags, unsigned nr,
			  struct ar_rsrc_node ***out)
{
	struct ar_rsrc_node **nodes = calloc(nr, sizeof(*nodes));
	struct ar_pin_map map = { NULL, 0, false };
	struct ar_uarray *arr = malloc(2 * sizeof(*arr));
	unsigned i;
	int ret = 0;

	if (!nodes || !arr) {
		free(nodes);
		free(arr);
		return -ENOMEM;
	}
	ar_uarray_init(&arr[0], data,
		       files ? sizeof(int) : sizeof(struct iovec), nr);
	ar_uarray_init(&arr[1], tags, sizeof(__u64), nr);
	for (i = 0; i < nr && !ret; i++) {
		if (files)
			ret = ar_reg_file_elem(ctx, &arr[0], &arr[1], i, &nodes[i]);
		else
			ret = ar_reg_buf_elem(&map, &arr[0], &arr[1], i, &nodes[i]);
	}
	free(arr);
	ar_pin_map_free(&map);
	if (ret) {
		/* nothing was registered: no tags are posted for these */
		for (i = 0; i < nr; i++)
			if (nodes[i])
				nodes[i]->tag = 0;
		ar_nodes_put(ctx, nodes, nr);
		return ret;
	}
	*out = nodes;
	return 0;
}

static int ar_table_register(struct ar_uctx *ctx, bool files,
			     const void *data, const __u64 *tags, unsigned nr,
			     bool sparse)
{
	struct ar_rsrc_table *t = files ? &ctx->files : &ctx->bufs;
	struct ar_rsrc_node **nodes;
	unsigned max = files ? AR_MAX_FIXED_FILES : AR_MAX_REG_BUFFERS;
	struct rlimit rl;
	int ret;

	if (t->registered)
		return -EBUSY;
	if (!nr)
		return -EINVAL;
	if (nr > max)
		return files ? -EMFILE : -EINVAL;
	if (files && !getrlimit(RLIMIT_NOFILE, &rl) && nr > rl.rlim_cur)
		return -EMFILE;
	(void)sparse;	/* SPARSE has no data: each slot is empty */
	ret = ar_table_build(ctx, files, data, tags, nr, &nodes);
	if (ret)
		return ret;
	ar_uring_lock(ctx);
	if (t->registered) {
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		ar_nodes_put(ctx, nodes, nr);
		return -EBUSY;
	}
	t->nodes = nodes;
	t->nr = nr;
	t->registered = true;
	t->alloc_start = 0;
	t->alloc_end = nr;
	/* the kernel's bitmap hint: past the last slot filled at registration */
	t->alloc_hint = 0;
	for (unsigned i = 0; i < nr; i++)
		if (nodes[i])
			t->alloc_hint = i + 1;
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	return 0;
}

/* sparse: no data, every slot empty (IORING_RSRC_REGISTER_SPARSE) */
int ar_rsrc_register_files(struct ar_uctx *ctx, const int *fds,
			   const __u64 *tags, unsigned nr, bool sparse)
{
	return ar_table_register(ctx, true, fds, tags, nr, sparse);
}

int ar_rsrc_register_bufs(struct ar_uctx *ctx, const struct iovec *iovs,
			  const __u64 *tags, unsigned nr, bool sparse)
{
	return ar_table_register(ctx, false, iovs, tags, nr, sparse);
}

/* both rings' uring_lock, in one order (address), or the one */
static void ar_lock_two(struct ar_uctx *a, struct ar_uctx *b)
{
	if (a == b) {
		ar_uring_lock(a);
		return;
	}
	if (a > b) {
		struct ar_uctx *t = a;

		a = b;
		b = t;
	}
	ar_uring_lock(a);
	ar_uring_lock(b);
}

static void ar_unlock_two(struct ar_uctx *a, struct ar_uctx *b)
{
	if (a != b)
		pthread_mutex_unlock(&ar_sh(b)->uring_lock);
	pthread_mutex_unlock(&ar_sh(a)->uring_lock);
}

/*
 * The checks of 6.18's io_clone_buffers(), both tables locked: 0 with
 * *size the new table's, or -errno.
 */
static int ar_clone_check(struct ar_uctx *ctx, struct ar_uctx *src,
			  struct ar_clone_buffers *arg, unsigned *size)
{
	unsigned nbufs = src->bufs.nr, end;

	if (!arg->nr && (arg->dst_off || arg->src_off))
		return -EINVAL;
	if (ctx->bufs.nr && !(arg->flags & AR_REGISTER_DST_REPLACE))
		return -EBUSY;
	if (!nbufs)
		return -ENXIO;
	if (!arg->nr)
		arg->nr = nbufs;
	else if (arg->nr > nbufs || arg->nr > AR_MAX_REG_BUFFERS)
		return -EINVAL;
	if (__builtin_add_overflow(arg->nr, arg->src_off, &end) || end > nbufs)
		return -EOVERFLOW;
	if (__builtin_add_overflow(arg->nr, arg->dst_off, &end))
		return -EOVERFLOW;
	if (end > AR_MAX_REG_BUFFERS)
		return -EINVAL;
	*size = end > ctx->bufs.nr ? end : ctx->bufs.nr;
	return 0;
}

/*
 * IORING_REGISTER_CLONE_BUFFERS: src's buffers src_off.. (nr of them; 0:
 * all) become ctx's from dst_off on, as the kernel's io_clone_buffers():
 * new nodes (no tags) for the same memory; ctx's own buffers outside that
 * range stay (DST_REPLACE); the old table is put, posting the tags of the
 * buffers it alone held. Both rings are this process's user rings.
 */
int ar_rsrc_clone_bufs(struct ar_uctx *ctx, struct ar_uctx *src,
		       struct ar_clone_buffers *arg)
{
	struct ar_rsrc_node **nodes = NULL, **old = NULL, *n;
	unsigned size = 0, old_nr = 0, i, j;
	int ret;

	ar_lock_two(ctx, src);
	ret = ar_clone_check(ctx, src, arg, &size);
	if (!ret) {
		nodes = calloc(size, sizeof(*nodes));
		ret = nodes ? 0 : -ENOMEM;
	}
	/* ctx's nodes before and after the range, a reference each */
	for (i = 0; !ret && i < ctx->bufs.nr; i++) {
		if ((i >= arg->dst_off && i < arg->dst_off + arg->nr) ||
		    !(n = ctx->bufs.nodes[i]))
			continue;
		atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
		nodes[i] = n;
	}
	for (i = 0; !ret && i < arg->nr; i++) {
		struct ar_rsrc_node *s = src->bufs.nodes[arg->src_off + i];

		j = arg->dst_off + i;
		if (!s)
			continue;
		nodes[j] = ar_node_new(0);
		if (!nodes[j])
			ret = -ENOMEM;
		else
			nodes[j]->iov = s->iov;
	}
	if (!ret) {
		old = ctx->bufs.nodes;
		old_nr = ctx->bufs.nr;
		ctx->bufs.nodes = nodes;
		ctx->bufs.nr = size;
		ctx->bufs.registered = true;
		nodes = NULL;
	}
	ar_unlock_two(ctx, src);
	/* a failure's new table, or the table replaced */
	if (nodes)
		ar_nodes_put(ctx, nodes, size);
	else if (old)
		ar_nodes_put(ctx, old, old_nr);
	return ret;
}

int ar_rsrc_unregister(struct ar_uctx *ctx, bool files)
{
	struct ar_rsrc_table *t = files ? &ctx->files : &ctx->bufs;
	struct ar_rsrc_node **nodes;
	unsigned nr;

	ar_uring_lock(ctx);
	if (!t->registered) {
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		return -ENXIO;
	}
	nodes = t->nodes;
	nr = t->nr;
	t->nodes = NULL;
	t->nr = 0;
	t->registered = false;
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	ar_nodes_put(ctx, nodes, nr);
	return 0;
}

/*
 * Replace slot i with node (NULL clears it); the old node is returned to
 * put. The allocation hint moves as the kernel's file bitmap hint does:
 * past a slot that gets filled, onto a slot that gets emptied.
 */
static struct ar_rsrc_node *ar_slot_swap(struct ar_rsrc_table *t, unsigned i,
					 struct ar_rsrc_node *node)
{
	struct ar_rsrc_node *old = t->nodes[i];

	t->nodes[i] = node;
	if (node && !old)
		t->alloc_hint = i + 1;
	else if (!node && old)
		t->alloc_hint = i;
	return old;
}

/* io_file_bitmap_get: a free slot from the hint to the end, then from the start */
static int ar_slot_alloc(struct ar_rsrc_table *t)
{
	unsigned end = t->alloc_end, i;

	for (;;) {
		for (i = t->alloc_hint < t->alloc_start ? t->alloc_start :
		     t->alloc_hint; i < end; i++)
			if (!t->nodes[i])
				return (int)i;
		if (t->alloc_hint == t->alloc_start)
			return -ENFILE;
		end = t->alloc_hint;
		t->alloc_hint = t->alloc_start;
	}
}

#define AR_UPDATE_SKIP	1	/* IORING_REGISTER_FILES_SKIP: slot left as is */

/* __io_sqe_files_update's element: its tag, then its fd (-EFAULT each) */
static int ar_update_file(struct ar_uctx *ctx, const int *fds,
			  const __u64 *tags, unsigned i,
			  struct ar_rsrc_node **node)
{
	__u64 tag = 0;
	int fd;

	if ((tags && ar_get_elem(&tag, tags, i, sizeof(tag))) ||
	    ar_get_elem(&fd, fds, i, sizeof(fd)))
		return -EFAULT;
	if (fd == IORING_REGISTER_FILES_SKIP)
		return AR_UPDATE_SKIP;
	if (fd == -1)
		return tag ? -EINVAL : 0;
	if (fd < 0)
		return -EBADF;
	return ar_file_node(ctx, fd, tag, node);
}

/* __io_sqe_buffers_update's element: its iovec, then its tag */
static int ar_update_buf(struct ar_pin_map *map, const struct iovec *iovs,
			 const __u64 *tags, unsigned i,
			 struct ar_rsrc_node **node)
{
	struct iovec iov;
	__u64 tag = 0;
	int ret;

	if (ar_get_elem(&iov, iovs, i, sizeof(iov)) ||
	    (tags && ar_get_elem(&tag, tags, i, sizeof(tag))))
		return -EFAULT;
	ret = ar_buf_validate(&iov);
	return ret ? ret : ar_buf_node(map, &iov, tag, node);
}

/*
 * FILES_UPDATE(2) and BUFFERS_UPDATE: returns how many slots were updated,
 * or the error of the first one that failed when none was.
 */
int ar_rsrc_update(struct ar_uctx *ctx, bool files, unsigned off,
		   const void *data, const __u64 *tags, unsigned nr)
{
	struct ar_rsrc_table *t = files ? &ctx->files : &ctx->bufs;
	const int *fds = data;
	const struct iovec *iovs = data;
	struct ar_rsrc_node *node, *old;
	struct ar_pin_map map = { NULL, 0, false };
	unsigned done;
	int ret = 0;

	ar_uring_lock(ctx);
	if (!t->registered) {
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		return -ENXIO;
	}
	if (!nr || off > t->nr || nr > t->nr - off) {
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		return -EINVAL;
	}
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);

	for (done = 0; done < nr; done++) {
		node = NULL;
		if (files)
			ret = ar_update_file(ctx, fds, tags, done, &node);
		else
			ret = ar_update_buf(&map, iovs, tags, done, &node);
		if (ret == AR_UPDATE_SKIP)
			continue;
		if (ret)
			break;
		ar_uring_lock(ctx);
		old = t->registered && off + done < t->nr ?
		      ar_slot_swap(t, off + done, node) : node;
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		ar_rsrc_put(ctx, old);
	}
	ar_pin_map_free(&map);
	return done ? (int)done : ret;
}

/* a direct descriptor: fd into a slot (alloc: a free one); owns fd */
int ar_rsrc_install_file(struct ar_uctx *ctx, int fd, unsigned slot,
			 bool alloc)
{
	struct ar_rsrc_table *t = &ctx->files;
	struct ar_rsrc_node *node, *old = NULL;
	int ret = 0;

	node = ar_node_new(0);
	if (!node) {
		close(fd);
		return -ENOMEM;
	}
	node->fd = ar_internal_claim(fd);
	ar_file_resolve_fixed(&node->file, node->fd);
	ar_uring_lock(ctx);
	if (!t->registered) {
		ret = alloc ? -ENFILE : -ENXIO;
	} else if (alloc) {
		ret = ar_slot_alloc(t);
		if (ret >= 0)
			ar_slot_swap(t, (unsigned)ret, node);
	} else if (slot >= t->nr) {
		ret = -EINVAL;
	} else {
		old = ar_slot_swap(t, slot, node);
	}
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	if (ret < 0) {
		ar_file_release(&node->file);
		node->fd = -1;
		free(node);
		ar_internal_close(fd);
		return ret;
	}
	ar_rsrc_put(ctx, old);
	return ret;
}

int ar_rsrc_close_file(struct ar_uctx *ctx, unsigned slot)
{
	struct ar_rsrc_table *t = &ctx->files;
	struct ar_rsrc_node *old = NULL;
	int ret = 0;

	ar_uring_lock(ctx);
	if (!t->registered)
		ret = -ENXIO;
	else if (slot >= t->nr)
		ret = -EINVAL;
	else if (!(old = ar_slot_swap(t, slot, NULL)))
		ret = -EBADF;
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	ar_rsrc_put(ctx, old);
	return ret;
}

int ar_rsrc_alloc_range(struct ar_uctx *ctx, unsigned off, unsigned len)
{
	struct ar_rsrc_table *t = &ctx->files;
	int ret = 0;

	ar_uring_lock(ctx);
	if (off + len < off)
		ret = -EOVERFLOW;
	else if (off + len > t->nr)
		ret = -EINVAL;
	else {
		t->alloc_start = off;
		t->alloc_end = off + len;
		t->alloc_hint = off;
	}
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	return ret;
}

void ar_rsrc_free_all(struct ar_uctx *ctx)
{
	ar_rsrc_unregister(ctx, true);
	ar_rsrc_unregister(ctx, false);
}

/* IORING_OP_FILES_UPDATE */
struct ar_files_update {
	__u64 arg;
	__u32 nr;
	__u32 offset;
};

int ar_files_update_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_files_update *u = ar_req_data(req, struct ar_files_update);

	if (sqe->flags & (IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT))
		return -EINVAL;
	if (sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	u->offset = (__u32)sqe->off;
	u->nr = sqe->len;
	if (!u->nr)
		return -EINVAL;
	u->arg = sqe->addr;
	return 0;
}

/*
 * with IORING_FILE_INDEX_ALLOC each fd goes to a free slot, written back;
 * a slot that cannot be written back is closed again (-EFAULT), as the
 * kernel's io_files_update_with_index_alloc()
 */
static int ar_files_update_alloc(struct ar_ureq *req, struct ar_files_update *u)
{
	int *fds = (int *)(unsigned long)u->arg;
	unsigned i;
	int ret = 0, fd, app_fd;

	for (i = 0; i < u->nr; i++) {
		if (ar_get_elem(&app_fd, fds, i, sizeof(app_fd))) {
			ret = -EFAULT;
			break;
		}
		/* what registration refuses (io_uring and engine fds) this does too */
		if (app_fd < 0 || ar_fd_engines(app_fd)) {
			ret = -EBADF;
			break;
		}
		fd = ar_fd_dup_high(app_fd);
		if (fd < 0) {
			ret = -EBADF;
			break;
		}
		ret = ar_rsrc_install_file(req->ctx, fd, 0, true);
		if (ret < 0)
			break;
		if (ar_copy_to_user(&fds[i], &ret, sizeof(ret))) {
			ar_rsrc_close_file(req->ctx, (unsigned)ret);
			ret = -EFAULT;
			break;
		}
	}
	return i ? (int)i : ret;
}

int ar_files_update_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_files_update *u = ar_req_data(req, struct ar_files_update);

	(void)issue_flags;
	if (u->offset == IORING_FILE_INDEX_ALLOC) {
		if (!req->ctx->files.registered)
			return -ENXIO;
		return ar_files_update_alloc(req, u);
	}
	return ar_rsrc_update(req->ctx, true, u->offset,
			      (const int *)(unsigned long)u->arg, NULL, u->nr);
}

/* fault.h: a registered file's fd for fault injection's path rules */
int ar_fault_file_get(struct ar_uctx *ctx, unsigned slot, void **ref)
{
	struct ar_rsrc_node *node = ar_rsrc_get_file(ctx, slot);

	*ref = node;
	return node ? node->fd : -1;
}

void ar_fault_file_put(struct ar_uctx *ctx, void *ref)
{
	ar_rsrc_put(ctx, ref);
}
