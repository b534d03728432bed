/* SPDX-License-Identifier: MIT */
/*
 * register.c - io_uring_register(2) for the user engine: one handler per
 * opcode, each with the kernel's argument checks and errors. What the
 * engine cannot honour (provided-buffer rings, NAPI, zero-copy rx, ...)
 * fails with the kernel's answer for an opcode it does not know, -EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/lock.h"
#include "user/ctx.h"
#include "user/complete.h"
#include "user/iowq.h"
#include "user/kbuf.h"
#include "user/cancel.h"
#include "user/rsrc.h"
#include "user/query.h"
#include "user/register.h"
#include "user/sqpoll.h"
#include "engine/engine.h"
#include "user/cred.h"
#include "user/wait.h"
#include "user/region.h"

#define AR_RESTRICTION_LAST	4

static int ar_reg_files2(struct ar_uctx *ctx, const void *arg, unsigned size,
			 bool files)
{
	struct io_uring_rsrc_register rr;

	bool sparse;

	if (size != sizeof(rr))
		return -EINVAL;
	if (ar_copy_from_user(&rr, arg, sizeof(rr)))
		return -EFAULT;
	if (!rr.nr || rr.resv2 || (rr.flags & ~IORING_RSRC_REGISTER_SPARSE))
		return -EINVAL;
	sparse = rr.flags & IORING_RSRC_REGISTER_SPARSE;
	if (sparse && rr.data)
		return -EINVAL;
	if (files)
		return ar_rsrc_register_files(ctx,
			(const int *)(unsigned long)rr.data,
			(const __u64 *)(unsigned long)rr.tags, rr.nr, sparse);
	return ar_rsrc_register_bufs(ctx,
		(const struct iovec *)(unsigned long)rr.data,
		(const __u64 *)(unsigned long)rr.tags, rr.nr, sparse);
}

static int ar_reg_update2(struct ar_uctx *ctx, const void *arg, unsigned size,
			  bool files)
{
	struct io_uring_rsrc_update2 up;

	if (size != sizeof(up))
		return -EINVAL;
	if (ar_copy_from_user(&up, arg, sizeof(up)))
		return -EFAULT;
	if (!up.nr || up.resv || up.resv2)
		return -EINVAL;
	return ar_rsrc_update(ctx, files, up.offset,
			      (const void *)(unsigned long)up.data,
			      (const __u64 *)(unsigned long)up.tags, up.nr);
}

static int ar_reg_files_update(struct ar_uctx *ctx, const void *arg,
			       unsigned nr)
{
	struct io_uring_files_update up;

	if (!nr)
		return -EINVAL;
	if (ar_copy_from_user(&up, arg, sizeof(up)))
		return -EFAULT;
	if (up.resv)
		return -EINVAL;
	return ar_rsrc_update(ctx, true, up.offset,
			      (const int *)(unsigned long)up.fds, NULL, nr);
}

/* Is fd an eventfd? -EBADF if not an fd, -EINVAL if another kind of file. */
static int ar_check_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	if (fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;	/* no /proc: take it as given */
	link[n] = 0;
	return strcmp(link, "anon_inode:[eventfd]") ? -EINVAL : 0;
}

/*
 * The registered eventfd is our dup. ar_cq_wake() reads it without a
 * lock, so an unregistered dup is not closed until the ring exits: a
 * concurrent signal never writes into an fd number that was reused.
 */
static int ar_reg_eventfd(struct ar_uctx *ctx, const void *arg, unsigned nr,
			  bool async)
{
	int fd, dup_fd, ret;

	if (nr != 1)
		return -EINVAL;
	/* the kernel's order: a registered eventfd, then the argument */
	if (__atomic_load_n(&ctx->eventfd, __ATOMIC_ACQUIRE) >= 0)
		return -EBUSY;
	if (ar_copy_from_user(&fd, arg, sizeof(fd)))
		return -EFAULT;
	ret = ar_check_eventfd(fd);
	if (ret)
		return ret;
	dup_fd = ar_fd_dup_high(fd);
	if (dup_fd < 0)
		return -EBADF;
	ar_internal_claim(dup_fd);
	ar_ctx_lock(ctx);
	if (ctx->eventfd >= 0) {
		ar_ctx_unlock(ctx);
		ar_internal_close(dup_fd);
		return -EBUSY;
	}
	ctx->eventfd_async = async;
	/* relaxed: published with the fd's release store below */
	__atomic_store_n(&ctx->eventfd_app, fd, __ATOMIC_RELAXED);
	/* as the kernel: CQEs posted before the registration signal nothing */
	__atomic_store_n(&ctx->eventfd_tail, ar_sh(ctx)->cached_cq_tail, __ATOMIC_RELAXED);
	/* release: eventfd_async and eventfd_tail are set before the fd is seen */
	__atomic_store_n(&ctx->eventfd, dup_fd, __ATOMIC_RELEASE);
	ar_ctx_unlock(ctx);
	return 0;
}

static int ar_unreg_eventfd(struct ar_uctx *ctx)
{
	int fd;

	ar_ctx_lock(ctx);
	fd = __atomic_exchange_n(&ctx->eventfd, -1, __ATOMIC_ACQ_REL);
	if (fd >= 0) {
		int *dead = realloc(ctx->dead_evfds,
				    (ctx->nr_dead_evfds + 1) * sizeof(*dead));

		if (dead) {
			ctx->dead_evfds = dead;
			dead[ctx->nr_dead_evfds++] = fd;
		}
		/* (no memory: the dup stays open until the process exits) */
	}
	ar_ctx_unlock(ctx);
	return fd < 0 ? -ENXIO : 0;
}

/*
 * io_probe(): the whole probe is read (it must be zeroed), filled in and
 * written back; memory that cannot be written gives -EFAULT at the end.
 */
static int ar_reg_probe(struct ar_uctx *ctx, void *arg, unsigned nr)
{
	union {
		struct io_uring_probe p;
		unsigned char b[sizeof(struct io_uring_probe) +
				256 * sizeof(struct io_uring_probe_op)];
	} u;
	struct io_uring_probe *p = &u.p;
	size_t size;
	unsigned i;
	int ret;

	(void)ctx;
	if (nr > AR_OP_LAST_KNOWN + 1)
		nr = AR_OP_LAST_KNOWN + 1;
	size = sizeof(*p) + nr * sizeof(p->ops[0]);
	ret = ar_check_zeroed_user(arg, size);
	if (ret <= 0)
		return ret ? ret : -EINVAL;
	memset(&u, 0, size);
	p->last_op = AR_OP_LAST_KNOWN;
	for (i = 0; i < nr; i++) {
		p->ops[i].op = (__u8)i;
		if (ar_op_supported(i))
			p->ops[i].flags = IO_URING_OP_SUPPORTED;
	}
	p->ops_len = (__u8)nr;
	return ar_copy_to_user(arg, p, size);
}

/*
 * Personalities: ids 1..65535 handed out cyclically, as the kernel's
 * xa_alloc_cyclic. Requests run with the process's credentials, so an id
 * records nothing more than its existence (docs/semantics.md).
 */
#define AR_PERS_MAX	65535U

static struct ar_cred *ar_pers_lookup(struct ar_uctx *ctx, unsigned id)
{
	return id && id < ctx->nr_pers ? ctx->pers[id] : NULL;
}

/* room for id in the table; under uring_lock */
static int ar_pers_grow(struct ar_uctx *ctx, unsigned id)
{
	struct ar_cred **pers;
	unsigned n = ctx->nr_pers ? ctx->nr_pers : 8;

	if (id < ctx->nr_pers)
		return 0;
	while (n <= id)
		n *= 2;
	pers = realloc(ctx->pers, n * sizeof(*pers));
	if (!pers)
		return -ENOMEM;
	memset(pers + ctx->nr_pers, 0, (n - ctx->nr_pers) * sizeof(*pers));
	ctx->pers = pers;
	ctx->nr_pers = n;
	return 0;
}

/* the caller's credentials, under the next free id (cyclic, as xa_alloc_cyclic) */
static int ar_reg_personality(struct ar_uctx *ctx)
{
	struct ar_cred *cred = ar_cred_current();
	unsigned i, id;
	int ret = -EBUSY;

	if (!cred)
		return -ENOMEM;
	ar_uring_lock(ctx);
	for (i = 0; i < AR_PERS_MAX; i++) {
		id = (ctx->personality_next + i) % AR_PERS_MAX + 1;
		if (ar_pers_lookup(ctx, id))
			continue;
		if (ar_pers_grow(ctx, id)) {
			ret = -ENOMEM;
			break;
		}
		ctx->pers[id] = cred;
		cred = NULL;
		ctx->personality_next = id;
		ret = (int)id;
		break;
	}
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	ar_cred_put(cred);
	return ret;
}

static int ar_unreg_personality(struct ar_uctx *ctx, unsigned id)
{
	struct ar_cred *cred;

	ar_uring_lock(ctx);
	cred = ar_pers_lookup(ctx, id);
	if (cred)
		ctx->pers[id] = NULL;
	pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
	/* requests that took it hold their own reference */
	ar_cred_put(cred);
	return cred ? 0 : -EINVAL;
}

/* under uring_lock (submission) */
struct ar_cred *ar_personality_get(struct ar_uctx *ctx, unsigned id)
{
	struct ar_cred *cred = ar_pers_lookup(ctx, id);

	return cred ? ar_cred_get(cred) : NULL;
}

void ar_pers_free(struct ar_uctx *ctx)
{
	unsigned i;

	for (i = 0; i < ctx->nr_pers; i++)
		ar_cred_put(ctx->pers[i]);
	free(ctx->pers);
	ctx->pers = NULL;
	ctx->nr_pers = 0;
}

static int ar_reg_restrictions(struct ar_uctx *ctx, const void *arg,
			       unsigned nr)
{
	struct io_uring_restriction *res;
	struct ar_restrictions *r;
	unsigned i;

	if (!ctx->disabled)
		return -EBADFD;
	if (ctx->restrictions)
		return -EBUSY;
	/* an empty list is valid: then nothing is allowed */
	/* IORING_MAX_RESTRICTIONS: RESTRICTION_LAST + OP_LAST + REGISTER_LAST */
	if (!arg || nr > AR_RESTRICTION_LAST + AR_OP_LAST_KNOWN_6_18 + 1 +
			 AR_REGISTER_LAST)
		return -EINVAL;
	/* memdup_user(): the whole array is read before any entry is parsed */
	res = malloc(nr * sizeof(*res) + 1);
	r = calloc(1, sizeof(*r));
	if (!res || !r) {
		free(res);
		free(r);
		return -ENOMEM;
	}
	if (ar_copy_from_user(res, arg, nr * sizeof(*res))) {
		free(res);
		free(r);
		return -EFAULT;
	}
	for (i = 0; i < nr; i++) {
		switch (res[i].opcode) {
		case IORING_RESTRICTION_REGISTER_OP:
			if (res[i].register_op >= AR_REGISTER_LAST)
				goto inval;
			r->register_op[res[i].register_op / 8] |= 1U << (res[i].register_op % 8);
			break;
		case IORING_RESTRICTION_SQE_OP:
			if (res[i].sqe_op > AR_OP_LAST_KNOWN_6_18)
				goto inval;
			r->sqe_op[res[i].sqe_op / 8] |= 1U << (res[i].sqe_op % 8);
			break;
		case IORING_RESTRICTION_SQE_FLAGS_ALLOWED:
			r->sqe_flags_allowed = res[i].sqe_flags;
			break;
		case IORING_RESTRICTION_SQE_FLAGS_REQUIRED:
			r->sqe_flags_required = res[i].sqe_flags;
			break;
		default:
			goto inval;
		}
	}
	free(res);
	ctx->restrictions = r;
	return 0;
inval:
	free(res);
	free(r);
	return -EINVAL;
}

static int ar_reg_enable(struct ar_uctx *ctx)
{
	if (!ctx->disabled)
		return -EBADFD;
	/* the enabling thread becomes the single issuer */
	if ((ctx->flags & IORING_SETUP_SINGLE_ISSUER) && !ctx->has_submitter) {
		ctx->submitter = ar_self_tid();
		/* release pairs with ar_issuer_set(): the id is written first */
		__atomic_store_n(&ctx->has_submitter, true, __ATOMIC_RELEASE);
		ar_ctx_bias_enable(ctx);
	}
	if (ctx->restrictions)
		ctx->restrictions->enabled = true;
	ctx->disabled = false;
	if (ctx->sqpoll)
		ar_sqpoll_wake(ctx);
	return 0;
}

/*
 * The kernel's cpumask_size(): what the raw sched_getaffinity() answers
 * for a large buffer. Bytes of the mask past it are never read.
 */
static size_t ar_cpumask_size(void)
{
	static size_t size;
	unsigned char buf[1024];
	long n;

	if (!__atomic_load_n(&size, __ATOMIC_RELAXED)) {
		n = syscall(SYS_sched_getaffinity, 0, sizeof(buf), buf);
		/* relaxed: every thread computes the same value */
		__atomic_store_n(&size, n > 0 ? (size_t)n : sizeof(cpu_set_t),
				 __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&size, __ATOMIC_RELAXED);
}

static int ar_reg_iowq_aff(struct ar_uctx *ctx, const void *arg, unsigned len)
{
	unsigned char mask[1024];
	cpu_set_t cpus;

	if (!arg || !len)
		return -EINVAL;
	if (len > ar_cpumask_size())
		len = (unsigned)ar_cpumask_size();
	memset(mask, 0, sizeof(mask));
	if (ar_copy_from_user(mask, arg, len))
		return -EFAULT;
	CPU_ZERO(&cpus);
	memcpy(&cpus, mask, len < sizeof(cpus) ? len : sizeof(cpus));
	pthread_mutex_lock(&ctx->iowq.lock);
	ctx->iowq.cpus = cpus;
	ctx->iowq.has_cpus = true;
	ctx->iowq.aff_gen++;
	pthread_mutex_unlock(&ctx->iowq.lock);
	return 0;
}

static int ar_unreg_iowq_aff(struct ar_uctx *ctx)
{
	pthread_mutex_lock(&ctx->iowq.lock);
	ctx->iowq.has_cpus = false;
	ctx->iowq.aff_gen++;
	pthread_mutex_unlock(&ctx->iowq.lock);
	return 0;
}

/*
 * IORING_REGISTER_RING_FDS: per-thread indices, like the kernel's per-task
 * table. An entry holds a reference on its ring, so a ring closed while
 * another thread still has it registered stays allocated (entering it
 * then fails -EBADF) until that entry goes: unregistered, or the thread
 * exits.
 */
static pthread_key_t ar_ring_reg_key;
static pthread_once_t ar_ring_reg_once = PTHREAD_ONCE_INIT;

/*
 * A registered-ring entry holds the ring, as the kernel's holds the
 * file: a ring whose fd is closed for good lives on while one is left
 * (release.c asks reg_indices), and ends with the last one.
 */
static void ar_ring_reg_hold(struct ar_uctx *ctx)
{
	ar_uctx_get(ctx);
	/* relaxed: a count that only the release of the fd reads, as a hint */
	atomic_fetch_add_explicit(&ctx->reg_indices, 1, memory_order_relaxed);
}

static void ar_ring_reg_drop(struct ar_uctx *ctx)
{
	/* seq_cst: pairs with ctx.c ar_user_held_by_index() */
	if (atomic_fetch_sub_explicit(&ctx->reg_indices, 1,
				      memory_order_seq_cst) == 1)
		ar_user_index_gone(ctx);
	ar_uctx_put(ctx);
}

static void ar_ring_reg_dtor(void *arg)
{
	unsigned i;

	(void)arg;
	/* a ring may end here: a signal handler's read skips the look (pollhook.c) */
	ar_hook_off_enter();
	for (i = 0; i < AR_RINGFD_REG_MAX; i++) {
		if (ar_registered_rings[i]) {
			ar_ring_reg_drop(ar_registered_rings[i]);
			ar_registered_rings[i] = NULL;
		}
	}
	ar_hook_off_leave();
}

/*
 * A forked child's only thread has a copy of the forking thread's table,
 * naming rings that live in the parent: the child starts with none, and
 * as a task io_uring never saw, as a new task on the kernel.
 */
static void ar_ring_reg_atfork_child(void)
{
	memset(ar_registered_rings, 0, sizeof(ar_registered_rings));
	ar_user_task = false;
}

__attribute__((constructor))
static void ar_ring_reg_init(void)
{
	pthread_atfork(NULL, NULL, ar_ring_reg_atfork_child);
}

static void ar_ring_reg_key_init(void)
{
	pthread_key_create(&ar_ring_reg_key, ar_ring_reg_dtor);
}

/* the ring this thread registered at index, if any (no reference taken) */
void *ar_user_ring_index(unsigned index, bool *task)
{
	*task = ar_user_task;
	return index < AR_RINGFD_REG_MAX ? ar_registered_rings[index] : NULL;
}

static int ar_ring_fd_target(int fd, struct ar_uctx **out)
{
	if (fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	*out = ar_uctx_of_fd(fd);
	return *out ? 0 : -EOPNOTSUPP;
}

/* a free slot in [start, end): -EBUSY if none (io_ring_add_registered_fd) */
static int ar_ring_fd_slot(unsigned start, unsigned end)
{
	unsigned off;

	for (off = start; off < end; off++)
		if (!ar_registered_rings[off])
			return (int)off;
	return -EBUSY;
}

/*
 * One entry, as io_ringfd_register()'s loop: read it, check its offset,
 * find the slot, then the fd; the chosen offset is written back, and an
 * entry that cannot be written back is undone (-EFAULT).
 */
static int ar_ring_fd_add(struct io_uring_rsrc_update *uarg)
{
	struct io_uring_rsrc_update up;
	struct ar_uctx *target;
	int off, ret;

	if (ar_copy_from_user(&up, uarg, sizeof(up)))
		return -EFAULT;
	if (up.resv)
		return -EINVAL;
	if (up.offset == -1U)
		off = ar_ring_fd_slot(0, AR_RINGFD_REG_MAX);
	else if (up.offset >= AR_RINGFD_REG_MAX)
		return -EINVAL;
	else
		off = ar_ring_fd_slot(up.offset, up.offset + 1);
	if (off < 0)
		return off;
	ret = ar_ring_fd_target((int)up.data, &target);
	if (ret)
		return ret;
	ar_ring_reg_hold(target);
	ar_registered_rings[off] = target;
	up.offset = (unsigned)off;
	if (ar_copy_to_user(uarg, &up, sizeof(up))) {
		ar_registered_rings[off] = NULL;
		ar_ring_reg_drop(target);
		return -EFAULT;
	}
	return 0;
}

static int ar_ring_fd_del(const struct io_uring_rsrc_update *uarg)
{
	struct io_uring_rsrc_update up;

	if (ar_copy_from_user(&up, uarg, sizeof(up)))
		return -EFAULT;
	if (up.resv || up.data || up.offset >= AR_RINGFD_REG_MAX)
		return -EINVAL;
	if (ar_registered_rings[up.offset])
		ar_ring_reg_drop(ar_registered_rings[up.offset]);
	ar_registered_rings[up.offset] = NULL;
	return 0;
}

static int ar_reg_ring_fds(struct ar_uctx *ctx, void *arg, unsigned nr,
			   bool unregister)
{
	struct io_uring_rsrc_update *up = arg;
	unsigned i;
	int ret = 0;

	(void)ctx;
	if (!nr || nr > AR_RINGFD_REG_MAX)
		return -EINVAL;
	pthread_once(&ar_ring_reg_once, ar_ring_reg_key_init);
	ar_user_task = true;
	/* any non-NULL value: the destructor runs at thread exit */
	pthread_setspecific(ar_ring_reg_key, ar_registered_rings);
	for (i = 0; i < nr; i++) {
		ret = unregister ? ar_ring_fd_del(&up[i]) : ar_ring_fd_add(&up[i]);
		if (ret)
			break;
	}
	return i ? (int)i : ret;
}

static int ar_reg_alloc_range(struct ar_uctx *ctx, const void *arg)
{
	struct io_uring_file_index_range range;

	if (ar_copy_from_user(&range, arg, sizeof(range)))
		return -EFAULT;
	/* the kernel's order: the overflow, then resv and the table size */
	if (range.off + range.len < range.off)
		return -EOVERFLOW;
	if (range.resv)
		return -EINVAL;
	return ar_rsrc_alloc_range(ctx, range.off, range.len);
}

static int ar_reg_clock(struct ar_uctx *ctx, const void *arg)
{
	__u32 clk[4];

	if (ar_copy_from_user(clk, arg, sizeof(clk)))
		return -EFAULT;
	/* struct io_uring_clock_register: clockid, then reserved words */
	if (clk[1] || clk[2] || clk[3])
		return -EINVAL;
	if (clk[0] != CLOCK_MONOTONIC && clk[0] != CLOCK_BOOTTIME)
		return -EINVAL;
	ctx->clockid = (int)clk[0];
	return 0;
}

/*
 * io_register_iowq_max_workers(): the new limits are applied before the
 * old ones are written back, so memory that cannot be written still
 * changes them and answers -EFAULT.
 */
static int ar_reg_max_workers(struct ar_uctx *ctx, void *arg)
{
	unsigned vals[2];

	if (ar_copy_from_user(vals, arg, sizeof(vals)))
		return -EFAULT;
	if (vals[0] > INT32_MAX || vals[1] > INT32_MAX)
		return -EINVAL;
	ar_iowq_max_workers(ctx, vals);
	return ar_copy_to_user(arg, vals, sizeof(vals));
}

static bool ar_register_allowed(struct ar_uctx *ctx, unsigned opcode)
{
	struct ar_restrictions *r = ctx->restrictions;

	if (!r || !r->enabled)
		return true;
	return r->register_op[opcode / 8] & (1U << (opcode % 8));
}

static int ar_register_ring(struct ar_uctx *ctx, unsigned opcode,
			    const void *arg, void *marg, unsigned nr);

/* obj: the ring the seam found for fd; fd a registered index with USE_REGISTERED_RING */
int ar_user_register(void *obj, unsigned fd, unsigned opcode,
		     const void *arg, unsigned nr)
{
	struct ar_uctx *ctx;
	void *marg = (void *)arg;
	int ret;

	/*
	 * fd -1 names no ring: 6.18's "blind" registers (SEND_MSG_RING,
	 * QUERY), none of which this engine has; 6.18 answers an opcode it
	 * has no blind handler for with -EINVAL.
	 */
	if (fd == (unsigned)-1 && !(opcode & IORING_REGISTER_USE_REGISTERED_RING)) {
		if (opcode == AR_REGISTER_QUERY)
			return ar_query(arg, nr);
		ar_debug("user engine: io_uring_register(-1, %u) not supported",
			 opcode);
		return -EINVAL;
	}
	ctx = ar_uctx_named(obj, fd, opcode & IORING_REGISTER_USE_REGISTERED_RING,
			    &ret);
	if (!ctx)
		return ret;
	opcode &= ~IORING_REGISTER_USE_REGISTERED_RING;
	/* as the kernel's fdget: the ring stays while the call runs */
	ar_uctx_get(ctx);
	/* the engine's own reads and polls inside are not the program's */
	ar_hook_off_enter();
	ret = ar_register_ring(ctx, opcode, arg, marg, nr);
	ar_hook_off_leave();
	ar_uctx_put(ctx);
	return ret;
}

/*
 * IORING_REGISTER_CLONE_BUFFERS (6.12; offsets and DST_REPLACE 6.13), as
 * 6.18's io_register_clone_buffers(): the source is another user ring
 * of this process, by fd or registered index (a kernel ring's fd is not
 * one the engine can read: -EOPNOTSUPP, as for an fd that is no ring).
 */
static int ar_reg_clone_buffers(struct ar_uctx *ctx, const void *arg)
{
	struct ar_clone_buffers cb;
	struct ar_uctx *src;
	bool index, busy;
	int ret;

	if (ar_copy_from_user(&cb, arg, sizeof(cb)))
		return -EFAULT;
	if (cb.flags & ~(AR_REGISTER_SRC_REGISTERED | AR_REGISTER_DST_REPLACE))
		return -EINVAL;
	/* the kernel's order: this before pad; ar_rsrc_clone_bufs() asks again */
	if (!(cb.flags & AR_REGISTER_DST_REPLACE)) {
		ar_uring_lock(ctx);
		busy = ctx->bufs.nr != 0;
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		if (busy)
			return -EBUSY;
	}
	if (cb.pad[0] || cb.pad[1] || cb.pad[2])
		return -EINVAL;
	index = cb.flags & AR_REGISTER_SRC_REGISTERED;
	src = ar_uctx_named(index ? NULL : ar_uctx_of_fd((int)cb.src_fd),
			    cb.src_fd, index, &ret);
	if (!src)
		return ret;
	/* another thread's SINGLE_ISSUER ring is not this caller's to read */
	if (src != ctx && ar_issuer_other(src))
		return -EEXIST;
	ar_uctx_get(src);
	ret = ar_rsrc_clone_bufs(ctx, src, &cb);
	ar_uctx_put(src);
	return ret;
}

static int ar_register_ring(struct ar_uctx *ctx, unsigned opcode,
			    const void *arg, void *marg, unsigned nr)
{
	if (opcode >= AR_REGISTER_LAST)
		return -EINVAL;
	if (ar_issuer_other(ctx))
		return -EEXIST;		/* SINGLE_ISSUER: the submitter's only */
	if (!ar_register_allowed(ctx, opcode))
		return -EACCES;

	switch (opcode) {
	case IORING_REGISTER_BUFFERS:
		return !arg ? -EFAULT :
		       ar_rsrc_register_bufs(ctx, arg, NULL, nr, false);
	case IORING_UNREGISTER_BUFFERS:
		return arg || nr ? -EINVAL : ar_rsrc_unregister(ctx, false);
	case IORING_REGISTER_FILES:
		return !arg ? -EFAULT :
		       ar_rsrc_register_files(ctx, arg, NULL, nr, false);
	case IORING_UNREGISTER_FILES:
		return arg || nr ? -EINVAL : ar_rsrc_unregister(ctx, true);
	case IORING_REGISTER_FILES_UPDATE:
		return ar_reg_files_update(ctx, arg, nr);
	case IORING_REGISTER_EVENTFD:
	case IORING_REGISTER_EVENTFD_ASYNC:
		return ar_reg_eventfd(ctx, arg, nr,
				      opcode == IORING_REGISTER_EVENTFD_ASYNC);
	case IORING_UNREGISTER_EVENTFD:
		return arg || nr ? -EINVAL : ar_unreg_eventfd(ctx);
	case IORING_REGISTER_PROBE:
		return !arg || nr > 256 ? -EINVAL : ar_reg_probe(ctx, marg, nr);
	case IORING_REGISTER_PERSONALITY:
		return arg || nr ? -EINVAL : ar_reg_personality(ctx);
	case IORING_UNREGISTER_PERSONALITY:
		return arg ? -EINVAL : ar_unreg_personality(ctx, nr);
	case IORING_REGISTER_RESTRICTIONS:
		return ar_reg_restrictions(ctx, arg, nr);
	case IORING_REGISTER_ENABLE_RINGS:
		return arg || nr ? -EINVAL : ar_reg_enable(ctx);
	case IORING_REGISTER_FILES2:
		return ar_reg_files2(ctx, arg, nr, true);
	case IORING_REGISTER_FILES_UPDATE2:
		return ar_reg_update2(ctx, arg, nr, true);
	case IORING_REGISTER_BUFFERS2:
		return ar_reg_files2(ctx, arg, nr, false);
	case IORING_REGISTER_BUFFERS_UPDATE:
		return ar_reg_update2(ctx, arg, nr, false);
	case IORING_REGISTER_IOWQ_AFF:
		return ar_reg_iowq_aff(ctx, arg, nr);
	case IORING_UNREGISTER_IOWQ_AFF:
		return arg || nr ? -EINVAL : ar_unreg_iowq_aff(ctx);
	case IORING_REGISTER_IOWQ_MAX_WORKERS:
		return !arg || nr != 2 ? -EINVAL : ar_reg_max_workers(ctx, marg);
	case IORING_REGISTER_RING_FDS:
		return ar_reg_ring_fds(ctx, marg, nr, false);
	case IORING_UNREGISTER_RING_FDS:
		return ar_reg_ring_fds(ctx, marg, nr, true);
	case IORING_REGISTER_SYNC_CANCEL:
		return !arg || nr != 1 ? -EINVAL : ar_sync_cancel(ctx, arg);
	case IORING_REGISTER_FILE_ALLOC_RANGE:
		return !arg || nr ? -EINVAL : ar_reg_alloc_range(ctx, arg);
	case IORING_REGISTER_PBUF_RING:
		return !arg || nr != 1 ? -EINVAL : ar_kbuf_register_ring(ctx, arg);
	case IORING_UNREGISTER_PBUF_RING:
		return !arg || nr != 1 ? -EINVAL : ar_kbuf_unregister_ring(ctx, arg);
	case AR_REGISTER_PBUF_STATUS:
		return !arg || nr != 1 ? -EINVAL : ar_kbuf_ring_status(ctx, marg);
	case AR_REGISTER_CLOCK:
		return !arg || nr ? -EINVAL : ar_reg_clock(ctx, arg);
	case AR_REGISTER_QUERY:
		return ar_query(arg, nr);
	case AR_REGISTER_CLONE_BUFFERS:
		return !arg || nr != 1 ? -EINVAL : ar_reg_clone_buffers(ctx, arg);
	case AR_REGISTER_RESIZE_RINGS:
		return !arg || nr != 1 ? -EINVAL : ar_user_resize_rings(ctx, marg);
	case AR_REGISTER_MEM_REGION:
		return !arg || nr != 1 ? -EINVAL : ar_reg_mem_region(ctx, marg);
	default:
		/* NAPI, ZCRX */
		ar_debug("user engine: io_uring_register opcode %u not supported",
			 opcode);
		return -EINVAL;
	}
}
