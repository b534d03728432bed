/* SPDX-License-Identifier: MIT */
/*
 * rw.c - NOP and the read/write family: READ, WRITE, READV, WRITEV,
 * READ_FIXED, WRITE_FIXED.
 *
 * The inline attempt is preadv2/pwritev2 with RWF_NOWAIT. -EAGAIN sends
 * the request to a readiness poll (pipes, sockets) or a worker (regular
 * files); on a regular file a partial non-blocking transfer is finished
 * by a worker, so only EOF makes a read short, as in the kernel. An offset
 * of -1 means the file position (IORING_FEAT_RW_CUR_POS); on files that
 * cannot seek the offset is ignored. A short transfer breaks a link.
 *
 * A simdev (anyring_simdev_create) is not read with preadv2: the request
 * hands the device a struct ar_sim_io kept at the end of its opdata and
 * completes when the device calls back (AR_ISSUE_QUEUED until then). On an
 * IOPOLL ring only a completion=poll device is accepted, and the request
 * joins the ring's polled list (iopoll.c). A simdev has no file position:
 * offset -1 is -EINVAL there. FSYNC on a simdev is a device flush.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/uio.h>
#include "user/iopoll.h"
#include "user/backend/direct.h"
#include "engine/sysraw.h"
#include "user/types.h"
#include "user/complete.h"
#include "user/rsrc.h"
#include "user/util.h"

#define AR_RW_INLINE_VECS	4
#define AR_MAX_RW_COUNT		0x7ffff000U	/* the kernel's MAX_RW_COUNT */

struct ar_rw {
	__s64 off;
	__u32 len;		/* bytes, or iovecs for the vectored ops */
	__s32 rw_flags;
	__u32 done;		/* bytes moved by the inline attempt */
	__u32 nr_vecs;
	__u16 buf_index;
	bool fixed;
	bool vectored;
	struct iovec *vecs;	/* inline_vecs or req->alloc */
	struct iovec inline_vecs[AR_RW_INLINE_VECS];	/* [0]: READ/WRITE's buffer */
};

/* an O_DIRECT request queued with AIO keeps its iocb at the end (aio.c) */
#define AR_RW_AIO_OFF	(AR_REQ_OPDATA - sizeof(struct ar_aio_io))
_Static_assert(sizeof(struct ar_rw) <= AR_RW_AIO_OFF, "ar_rw overlaps ar_aio_io");

static inline struct ar_aio_io *ar_rw_aio(struct ar_ureq *req)
{
	return (struct ar_aio_io *)(req->opdata + AR_RW_AIO_OFF);
}

/* a simdev request keeps its struct ar_rw_sim after these (iopoll.h) */
_Static_assert(sizeof(struct ar_rw) <= AR_RW_SIM_OFF, "ar_rw overlaps ar_rw_sim");

/* IORING_OP_NOP and its 6.18 flags (sqe->rw_flags is nop_flags) */
#define AR_NOP_INJECT_RESULT	(1U << 0)
#define AR_NOP_FILE		(1U << 1)
#define AR_NOP_FIXED_FILE	(1U << 2)
#define AR_NOP_FIXED_BUFFER	(1U << 3)
#define AR_NOP_TW		(1U << 4)
#define AR_NOP_CQE32		(1U << 5)
#define AR_NOP_FLAGS		(AR_NOP_INJECT_RESULT | AR_NOP_FILE | \
				 AR_NOP_FIXED_FILE | AR_NOP_FIXED_BUFFER | AR_NOP_TW)

struct ar_nop {
	__u32 flags;
	int result;
	int fd;
	__u16 buf_index;
};

/*
 * AR_NOP_CQE32 (extra words in a big CQE) is not taken: it fails -EINVAL
 * like an unknown flag (docs/semantics.md). TW changes nothing here.
 */
int ar_nop_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_nop *nop = ar_req_data(req, struct ar_nop);

	nop->flags = sqe->rw_flags;
	if (nop->flags & ~AR_NOP_FLAGS)
		return -EINVAL;
	nop->result = (nop->flags & AR_NOP_INJECT_RESULT) ? (int)sqe->len : 0;
	nop->fd = sqe->fd;
	nop->buf_index = sqe->buf_index;
	return 0;
}

int ar_nop_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_nop *nop = ar_req_data(req, struct ar_nop);
	struct ar_rsrc_node *node;

	(void)issue_flags;
	if (nop->flags & AR_NOP_FILE) {
		if (nop->flags & AR_NOP_FIXED_FILE) {
			node = ar_rsrc_get_file(req->ctx, (unsigned)nop->fd);
			if (!node)
				return -EBADF;
			ar_rsrc_put(req->ctx, node);
		} else if (fcntl(nop->fd, F_GETFD) < 0 ||
			   ar_engine_of_fd(nop->fd) == &ar_internal_fd) {
			return -EBADF;
		}
	}
	if (nop->flags & AR_NOP_FIXED_BUFFER) {
		node = ar_rsrc_get_buf(req->ctx, nop->buf_index);
		if (!node)
			return -EFAULT;
		ar_rsrc_put(req->ctx, node);
	}
	return nop->result;
}

/* ioprio_check_cap: class and level must be valid; RT needs privilege */
static int ar_ioprio_check(__u16 prio)
{
	unsigned class = prio >> 13, level = prio & 7;

	switch (class) {
	case 1:		/* IOPRIO_CLASS_RT */
		if (geteuid() != 0)
			return -EPERM;
		/* fall through */
	case 2:		/* IOPRIO_CLASS_BE */
		return 0;
	case 3:		/* IOPRIO_CLASS_IDLE */
		return 0;
	case 0:		/* IOPRIO_CLASS_NONE */
		return level ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

static int ar_rw_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe,
		      bool vectored, bool fixed)
{
	struct ar_rw *rw = ar_req_data(req, struct ar_rw);
	size_t bytes, total;
	int ret;

	/* every field is written before any check (opdef's prep_inits) */
	rw->off = (__s64)sqe->off;
	rw->len = sqe->len;
	rw->done = 0;
	rw->rw_flags = (__s32)sqe->rw_flags;
	rw->buf_index = sqe->buf_index;
	rw->fixed = fixed;
	rw->vectored = vectored;
	rw->vecs = rw->inline_vecs;
	rw->nr_vecs = 0;
	if (sqe->ioprio) {
		ret = ar_ioprio_check(sqe->ioprio);
		if (ret)
			return ret;
	}
	if (!vectored) {
		rw->inline_vecs[0].iov_base = (void *)(unsigned long)sqe->addr;
		rw->inline_vecs[0].iov_len = rw->len;
		rw->nr_vecs = 1;
		req->expect = rw->len < AR_MAX_RW_COUNT ? rw->len : AR_MAX_RW_COUNT;
		return 0;
	}
	/* readv/writev: the iovec array is copied now (SUBMIT_STABLE) */
	if (rw->len > UIO_MAXIOV)
		return -EINVAL;
	/* a selected buffer replaces exactly one vector */
	if ((sqe->flags & IOSQE_BUFFER_SELECT) && rw->len != 1)
		return -EINVAL;
	if (rw->len && !sqe->addr)
		return -EFAULT;
	bytes = rw->len * sizeof(struct iovec);
	if (rw->len > AR_RW_INLINE_VECS) {
		rw->vecs = malloc(bytes);
		if (!rw->vecs)
			return -ENOMEM;
		req->alloc = rw->vecs;
	}
	if (bytes)
		memcpy(rw->vecs, (void *)(unsigned long)sqe->addr, bytes);
	rw->nr_vecs = rw->len;
	/* one call moves at most MAX_RW_COUNT bytes, as read(2) */
	total = 0;
	for (unsigned i = 0; i < rw->nr_vecs; i++)
		total += rw->vecs[i].iov_len;
	req->expect = total < AR_MAX_RW_COUNT ? (__u32)total : AR_MAX_RW_COUNT;
	return 0;
}

int ar_read_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, false, false);
}

int ar_readv_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, true, false);
}

int ar_rw_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, false, true);
}

/* READ_FIXED/WRITE_FIXED: the range must lie inside the registered buffer */
static int ar_rw_import_fixed(struct ar_ureq *req, struct ar_rw *rw)
{
	struct ar_rsrc_node *node = req->buf_node;
	__u64 addr = (unsigned long)rw->inline_vecs[0].iov_base;
	__u64 start, end;

	if (!node) {
		node = ar_rsrc_get_buf(req->ctx, rw->buf_index);
		if (!node)
			return -EFAULT;
		req->buf_node = node;
	}
	start = (unsigned long)node->iov.iov_base;
	end = start + node->iov.iov_len;
	if (addr < start || addr + rw->len > end || addr + rw->len < addr)
		return -EFAULT;
	return 0;
}

/* the iovecs past the first `done` bytes */
static int ar_rw_iter(struct ar_rw *rw, struct iovec *tmp, int max,
		      const struct iovec **vecs)
{
	size_t skip = rw->done;
	unsigned i = 0;
	int n = 0;

	if (!skip) {
		*vecs = rw->vecs;
		return (int)rw->nr_vecs;
	}
	while (i < rw->nr_vecs && skip >= rw->vecs[i].iov_len)
		skip -= rw->vecs[i++].iov_len;
	for (; i < rw->nr_vecs && n < max; i++, n++) {
		tmp[n].iov_base = (char *)rw->vecs[i].iov_base + skip;
		tmp[n].iov_len = rw->vecs[i].iov_len - skip;
		skip = 0;
	}
	*vecs = tmp;
	return n;
}

static ssize_t ar_rw_call(struct ar_ureq *req, struct ar_rw *rw, bool write,
			  int flags)
{
	struct iovec tmp[AR_RW_INLINE_VECS * 4];
	const struct iovec *vecs;
	int nr = ar_rw_iter(rw, tmp, (int)(sizeof(tmp) / sizeof(tmp[0])), &vecs);
	off_t off = rw->off == -1 ? -1 : (off_t)(rw->off + rw->done);
	ssize_t ret;

	if (rw->off < -1)
		return -EINVAL;
	ret = ar_raw_rw(write, req->fd, vecs, nr, (long)off, flags);
	/* a pipe or socket has no offset: the kernel ignores it there */
	if (ret == -ESPIPE && off != -1)
		ret = ar_raw_rw(write, req->fd, vecs, nr, -1, flags);
	return ret;
}

/*
 * -EAGAIN is the answer itself only when the SQE asked not to wait
 * (RWF_NOWAIT); otherwise it means: wait for readiness or let a worker
 * block. On 6.18 an O_NONBLOCK file waits for readiness too (measured).
 */
static bool ar_rw_nowait(struct ar_rw *rw)
{
	return rw->rw_flags & RWF_NOWAIT;
}

/* RWF_* flags 6.18 knows: HIPRI DSYNC SYNC NOWAIT APPEND NOAPPEND ATOMIC DONTCACHE */
#define AR_RWF_SUPPORTED	0xffU

/*
 * The checks before any I/O, in the kernel's order: the file first (a bad
 * plain fd is found only when one of the later checks fails, so the hot
 * path makes no extra system call), then the flags, then the buffer.
 */
/* is the file open for this direction? (FMODE_READ / FMODE_WRITE) */
static bool ar_rw_mode_ok(struct ar_ureq *req, bool write)
{
	int fl = fcntl(req->fd, F_GETFL);

	if (fl < 0)
		return true;	/* a bad fd: ar_rw_check() answers */
	fl &= O_ACCMODE;
	return write ? fl != O_RDONLY : fl != O_WRONLY;
}

/* the buffer first (io_import), as the kernel's io_read/io_write */
static int ar_rw_check_buffer(struct ar_ureq *req, struct ar_rw *rw)
{
	/* no provided buffers exist on this engine (no PROVIDE_BUFFERS, no buffer rings) */
	if (req->sqe_flags & IOSQE_BUFFER_SELECT)
		return -ENOBUFS;
	return rw->fixed ? ar_rw_import_fixed(req, rw) : 0;
}

static int ar_rw_check_inner(struct ar_ureq *req, struct ar_rw *rw, bool write)
{
	int err = ar_rw_check_buffer(req, rw);

	if (err)
		return err;
	/*
	 * Then the file (io_rw_init_file): its mode, kiocb_set_rw_flags, the
	 * IOPOLL rules. The mode is looked at only when a later check fails,
	 * so the hot path makes no extra system call; the syscall itself
	 * answers -EBADF for a wrong mode otherwise.
	 */
	if (((__u32)rw->rw_flags & ~AR_RWF_SUPPORTED) ||
	    (req->ctx->flags & IORING_SETUP_IOPOLL) || (rw->rw_flags & RWF_HIPRI)) {
		if (!ar_rw_mode_ok(req, write))
			return -EBADF;
	}
	if ((__u32)rw->rw_flags & ~AR_RWF_SUPPORTED)
		return -EOPNOTSUPP;
	/*
	 * IOPOLL needs a file whose completions are found by polling; no file
	 * here is (the kernel answers so for files without ->iopoll, and for
	 * O_DIRECT on devices without poll queues).
	 */
	if (req->ctx->flags & IORING_SETUP_IOPOLL)
		return -EOPNOTSUPP;
	/* polled I/O (RWF_HIPRI) needs an IOPOLL ring: -EINVAL, as 6.18 */
	if (rw->rw_flags & RWF_HIPRI)
		return -EINVAL;
	return 0;
}

static int ar_rw_check(struct ar_ureq *req, struct ar_rw *rw, bool write)
{
	int err = ar_rw_check_inner(req, rw, write);

	if (err && !req->file_node && fcntl(req->fd, F_GETFD) < 0)
		return -EBADF;
	return err;
}

/* ---- simdev ---- */

/* the device is done with the I/O: complete the request (any thread) */
static void ar_rw_sim_done(struct ar_sim_io *io)
{
	struct ar_rw_sim *s = (struct ar_rw_sim *)((char *)io -
						   offsetof(struct ar_rw_sim, io));
	struct ar_ureq *req = ar_rw_sim_req(s);
	struct ar_uctx *ctx = req->ctx;
	struct ar_simdev *d = s->dev;
	int res = io->res;

	if (io->flags & AR_SIM_IO_POLLED)
		ar_iopoll_del(ctx, s, true);
	if (io->op == AR_SIM_FLUSH)
		req->flags |= AR_REQ_F_NOFAIL;	/* as FSYNC's errors: no link breaks */
	else if (res >= 0 && (__u32)res != req->expect)
		req->flags |= AR_REQ_F_SHORT;	/* short: the link breaks */
	ar_req_complete(req, res, 0);
	ar_simdev_put(d);
	/* release: pairs with the acquire in ar_iopoll_exit(); ctx is not touched after */
	atomic_fetch_sub_explicit(&ctx->sim_inflight, 1, memory_order_release);
}

/* hand the filled-in s->io to the device d (the request's reference) */
static int ar_rw_sim_start(struct ar_ureq *req, struct ar_simdev *d,
			   struct ar_rw_sim *s)
{
	struct ar_uctx *ctx = req->ctx;
	int ret;

	s->dev = d;
	s->io.done = ar_rw_sim_done;
	/* in the device: neither a worker's nor cancellable, as block I/O in flight */
	ar_req_set_state(req, AR_REQ_PREP);
	ret = ar_iopoll_add(ctx, s);
	if (ret) {
		ar_simdev_put(d);
		return ret;
	}
	ret = ar_simdev_submit(d, &s->io);
	if (!ret)
		return AR_ISSUE_QUEUED;
	if (s->io.flags & AR_SIM_IO_POLLED)
		ar_iopoll_del(ctx, s, false);
	/* relaxed: this thread goes on using ctx; exit waits for the count only */
	atomic_fetch_sub_explicit(&ctx->sim_inflight, 1, memory_order_relaxed);
	ar_simdev_put(d);
	return ret;
}

/* ar_rw_check_inner's checks, in its order, for a simdev (always read-write) */
static int ar_rw_sim_check(struct ar_ureq *req, struct ar_rw *rw,
			   struct ar_simdev *d)
{
	bool iopoll = req->ctx->flags & IORING_SETUP_IOPOLL;
	int err = ar_rw_check_buffer(req, rw);

	if (err)
		return err;
	if ((__u32)rw->rw_flags & ~AR_RWF_SUPPORTED)
		return -EOPNOTSUPP;
	/* only a device whose completions are found by polling takes IOPOLL */
	if (iopoll && !ar_simdev_polled(d))
		return -EOPNOTSUPP;
	if (!iopoll && (rw->rw_flags & RWF_HIPRI))
		return -EINVAL;
	/* no file position on a simdev; offsets below -1 are -EINVAL anyway */
	if (rw->off < 0)
		return -EINVAL;
	return 0;
}

static int ar_rw_sim_issue(struct ar_ureq *req, struct ar_rw *rw,
			   struct ar_simdev *d, bool write)
{
	struct ar_rw_sim *s = ar_rw_sim(req);
	int err = ar_rw_sim_check(req, rw, d);

	if (err) {
		ar_simdev_put(d);
		return err;
	}
	/* prep left the device's part unwritten (prep_inits) */
	memset(&s->io, 0, sizeof(s->io));
	s->io.op = write ? AR_SIM_WRITE : AR_SIM_READ;
	s->io.iov = rw->vecs;
	s->io.nr_iov = (uint16_t)rw->nr_vecs;
	s->io.off = (uint64_t)rw->off;
	s->io.len = req->expect;
	s->io.flags = (req->ctx->flags & IORING_SETUP_IOPOLL) ? AR_SIM_IO_POLLED : 0;
	return ar_rw_sim_start(req, d, s);
}

bool ar_rw_sim_fsync(struct ar_ureq *req, int *ret)
{
	struct ar_simdev *d = ar_simdev_get(req->fd);
	struct ar_rw_sim *s = ar_rw_sim(req);

	if (!d)
		return false;
	memset(&s->io, 0, sizeof(s->io));
	s->io.op = AR_SIM_FLUSH;
	*ret = ar_rw_sim_start(req, d, s);
	return true;
}

/* sync_file_range writes back a page cache; a simdev has none: nothing to do */
bool ar_rw_sim_sync_range(struct ar_ureq *req, int *ret)
{
	struct ar_simdev *d = ar_simdev_get(req->fd);

	if (!d)
		return false;
	ar_simdev_put(d);
	*ret = 0;
	return true;
}

static int ar_rw_issue(struct ar_ureq *req, unsigned issue_flags, bool write)
{
	struct ar_rw *rw = ar_req_data(req, struct ar_rw);
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	struct ar_simdev *d = ar_simdev_get(req->fd);
	ssize_t ret;
	int e = errno;

	if (d)
		return ar_rw_sim_issue(req, rw, d, write);
	int err = ar_rw_check(req, rw, write);

	if (err)
		return err;
	/*
	 * O_DIRECT: preadv2 would hold this thread for the device's latency
	 * (RWF_NOWAIT or not); native AIO queues it instead (aio.c).
	 */
	if (nonblock && !ar_rw_nowait(rw) && rw->off >= 0 && !rw->done &&
	    ar_aio_fd_direct(req->ctx, req->fd) &&
	    ar_aio_rw(req, ar_rw_aio(req), write, rw->vecs, rw->nr_vecs,
		      rw->off, rw->rw_flags) == AR_ISSUE_QUEUED)
		return AR_ISSUE_QUEUED;
	ret = ar_rw_call(req, rw, write, rw->rw_flags | (nonblock ? RWF_NOWAIT : 0));
	errno = e;
	/*
	 * A buffered write asked not to wait: the kernel says -EAGAIN inline;
	 * from io-wq (IOSQE_ASYNC) it writes (measured on 6.18).
	 */
	if (ret == -EOPNOTSUPP && write && ar_rw_nowait(rw)) {
		if (!(issue_flags & AR_ISSUE_WORKER))
			return -EAGAIN;
		ret = ar_rw_call(req, rw, write, rw->rw_flags & ~RWF_NOWAIT);
		errno = e;
	}
	if (ret == -EAGAIN && !ar_rw_nowait(rw))
		return AR_ISSUE_AGAIN;
	/* this file has no RWF_NOWAIT: a worker does it blocking */
	if (ret == -EOPNOTSUPP && nonblock && !(rw->rw_flags & RWF_NOWAIT))
		return AR_ISSUE_PUNT;
	/* partial on a regular file: the rest blocking, in a worker */
	if (nonblock && ret > 0 && (__u32)ret < req->expect - rw->done &&
	    !(rw->rw_flags & RWF_NOWAIT) && ar_fd_is_regular(req->fd)) {
		rw->done += (__u32)ret;
		return AR_ISSUE_PUNT;
	}
	if (ret >= 0) {
		ret += rw->done;
		/* short: the link breaks */
		if ((__u32)ret != req->expect)
			req->flags |= AR_REQ_F_SHORT;
	}
	return (int)ret;
}

int ar_read_issue(struct ar_ureq *req, unsigned issue_flags)
{
	return ar_rw_issue(req, issue_flags, false);
}

int ar_write_issue(struct ar_ureq *req, unsigned issue_flags)
{
	return ar_rw_issue(req, issue_flags, true);
}
