/* SPDX-License-Identifier: MIT */
/*
 * rw.c - the read/write family: READ, WRITE, READV, WRITEV, READ_FIXED,
 * WRITE_FIXED, READV_FIXED, WRITEV_FIXED (the kernel's rw.c). READ and
 * READV take IOSQE_BUFFER_SELECT: a provided buffer (user/kbuf.h) chosen
 * at issue replaces the SQE's.
 *
 * Here are the opcodes' semantics: prep (the iovec array copied at
 * submit with the fault-safe copy, lib/uaccess.h, MAX_RW_COUNT), the checks before any I/O in the kernel's order
 * (the buffer, the RWF_* flags, the file's mode, IOPOLL and HIPRI), and
 * the result rules (a short transfer breaks a link). The I/O itself is
 * the file's backend's (user/backend/): it answers a result, "queued"
 * (it completes the request later), "would block" or "a worker".
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/uio.h>
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/rsrc.h"
#include "user/complete.h"
#include "user/kbuf.h"
#include "user/ops/ops.h"
#include "user/backend.h"

#define AR_RW_INLINE_VECS	4

struct ar_rw {
	struct ar_rw_io io;	/* what the backend is asked; vecs: inline_vecs or req->alloc */
	__u32 len;		/* bytes, or iovecs for the vectored ops */
	__u16 buf_index;
	bool fixed;
	bool vectored;
	struct iovec inline_vecs[AR_RW_INLINE_VECS];	/* [0]: READ/WRITE's buffer */
};

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

/*
 * __import_iovec() on the copied array: a negative length -EINVAL, a
 * buffer beyond user space -EFAULT (not with a selected buffer, which
 * replaces it); the total is capped at MAX_RW_COUNT, as read(2).
 */
static int ar_rw_import_vecs(struct ar_ureq *req, struct ar_rw *rw,
			     bool buffer_select)
{
	size_t total = 0;

	for (unsigned i = 0; i < rw->io.nr_vecs; i++) {
		const struct iovec *iov = &rw->io.vecs[i];

		if ((ssize_t)iov->iov_len < 0)
			return -EINVAL;
		/* READV_FIXED/WRITEV_FIXED: checked against the buffer at issue */
		if (!buffer_select && !rw->fixed &&
		    !ar_access_ok(iov->iov_base, iov->iov_len))
			return -EFAULT;
		total += iov->iov_len;
	}
	req->expect = total < AR_MAX_RW_COUNT ? (__u32)total : AR_MAX_RW_COUNT;
	return 0;
}

static int ar_rw_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe,
		      bool write, bool vectored, bool fixed)
{
	struct ar_rw *rw = ar_req_data(req, struct ar_rw);
	size_t bytes;
	int ret;

	/* every field is written before any check (opdef's prep_inits) */
	rw->io.off = (__s64)sqe->off;
	rw->io.done = 0;
	rw->io.rw_flags = (__s32)sqe->rw_flags;
	rw->io.write = write;
	rw->io.vecs = rw->inline_vecs;
	rw->io.nr_vecs = 0;
	rw->len = sqe->len;
	rw->buf_index = sqe->buf_index;
	rw->fixed = fixed;
	rw->vectored = vectored;
	if (sqe->ioprio) {
		ret = ar_ioprio_check(sqe->ioprio);
		if (ret)
			return ret;
	}
	if (!vectored) {
		rw->inline_vecs[0].iov_base = (void *)(unsigned long)sqe->addr;
		rw->inline_vecs[0].iov_len = rw->len;
		rw->io.nr_vecs = 1;
		req->expect = rw->len < AR_MAX_RW_COUNT ? rw->len : AR_MAX_RW_COUNT;
		/* import_ubuf(): a buffer beyond user space faults now */
		if (!fixed && !(sqe->flags & IOSQE_BUFFER_SELECT) &&
		    !ar_access_ok(rw->inline_vecs[0].iov_base, req->expect))
			return -EFAULT;
		return 0;
	}
	/* readv/writev: the iovec array is copied now (SUBMIT_STABLE) */
	if (rw->len > UIO_MAXIOV)
		return -EINVAL;
	/* a selected buffer replaces exactly one vector */
	if ((sqe->flags & IOSQE_BUFFER_SELECT) && rw->len != 1)
		return -EINVAL;
	bytes = rw->len * sizeof(struct iovec);
	if (rw->len > AR_RW_INLINE_VECS) {
		rw->io.vecs = malloc(bytes);
		if (!rw->io.vecs)
			return -ENOMEM;
		req->alloc = rw->io.vecs;
	}
	if (ar_copy_from_user(rw->io.vecs, (void *)(unsigned long)sqe->addr,
			      bytes))
		return -EFAULT;
	if (sqe->flags & IOSQE_BUFFER_SELECT) {
		/*
		 * io_iov_buffer_select_prep(): the one iovec's length is the
		 * length asked of the selected buffer (0: all of it), cut to
		 * 32 bits as the kernel's rw->len; nothing else is checked
		 */
		rw->len = (__u32)rw->io.vecs[0].iov_len;
		rw->io.nr_vecs = 1;
		return 0;
	}
	rw->io.nr_vecs = rw->len;
	return ar_rw_import_vecs(req, rw, false);
}

int ar_read_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, false, false, false);
}

int ar_write_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, true, false, false);
}

int ar_readv_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, false, true, false);
}

int ar_writev_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, true, true, false);
}

int ar_read_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, false, false, true);
}

int ar_write_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, true, false, true);
}

int ar_readv_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, false, true, true);
}

int ar_writev_fixed_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_rw_prep(req, sqe, true, true, true);
}

/* the request's registered buffer, looked up once; NULL: none there */
static struct ar_rsrc_node *ar_rw_buf_node(struct ar_ureq *req,
					   struct ar_rw *rw)
{
	if (!req->buf_node)
		req->buf_node = ar_rsrc_get_buf(req->ctx, rw->buf_index);
	return req->buf_node;
}

/* READ_FIXED/WRITE_FIXED: the range must lie inside the registered buffer */
static int ar_rw_import_fixed(struct ar_ureq *req, struct ar_rw *rw)
{
	struct ar_rsrc_node *node = ar_rw_buf_node(req, rw);
	__u64 addr = (unsigned long)rw->inline_vecs[0].iov_base;
	__u64 start, end;

	if (!node)
		return -EFAULT;
	start = (unsigned long)node->iov.iov_base;
	end = start + node->iov.iov_len;
	if (addr < start || addr + rw->len > end || addr + rw->len < addr)
		return -EFAULT;
	return 0;
}

/*
 * READV_FIXED/WRITEV_FIXED (io_import_reg_vec(), io_vec_fill_bvec()):
 * each iovec must lie inside the registered buffer, be no longer than
 * MAX_RW_COUNT and not be empty (-EFAULT each); a total that overflows
 * -EOVERFLOW.
 */
static int ar_rw_import_fixed_vec(struct ar_ureq *req, struct ar_rw *rw)
{
	struct ar_rsrc_node *node = ar_rw_buf_node(req, rw);
	__u64 start, end, addr, last, total = 0;

	if (!node)
		return -EFAULT;
	start = (unsigned long)node->iov.iov_base;
	end = start + node->iov.iov_len;
	for (unsigned i = 0; i < rw->io.nr_vecs; i++) {
		addr = (unsigned long)rw->io.vecs[i].iov_base;
		last = addr + rw->io.vecs[i].iov_len;
		if (last < addr || addr < start || last > end ||
		    rw->io.vecs[i].iov_len > AR_MAX_RW_COUNT ||
		    !rw->io.vecs[i].iov_len)
			return -EFAULT;
		if (total + rw->io.vecs[i].iov_len < total)
			return -EOVERFLOW;
		total += rw->io.vecs[i].iov_len;
	}
	return 0;
}

/* RWF_* flags 6.18 knows: HIPRI DSYNC SYNC NOWAIT APPEND NOAPPEND ATOMIC DONTCACHE */
#define AR_RWF_SUPPORTED	0xffU

/* is the file open for this direction? (FMODE_READ / FMODE_WRITE) */
static bool ar_rw_mode_ok(struct ar_ureq *req, bool write)
{
	int fl = fcntl(req->fd, F_GETFL);

	if (fl < 0)
		return true;	/* a bad fd: ar_rw_check() answers */
	fl &= O_ACCMODE;
	return write ? fl != O_RDONLY : fl != O_WRONLY;
}

/*
 * IOSQE_BUFFER_SELECT: a buffer of group buf_group (io_buffer_select()),
 * at most the length asked; import_ubuf() then caps it at MAX_RW_COUNT
 * and faults a buffer beyond user space. The request's expected length
 * (a short read breaks a link) is the selected one.
 */
static int ar_rw_select_buffer(struct ar_ureq *req, struct ar_rw *rw,
			       unsigned issue_flags)
{
	size_t len = rw->len;
	void *addr;
	int ret;

	if (req->opcode == AR_OP_READ_MULTISHOT)
		issue_flags = ar_kbuf_mshot_flags(issue_flags);
	ret = ar_buffer_select(req, rw->buf_index, &addr, &len, issue_flags);
	if (ret)
		return ret;
	if (len > AR_MAX_RW_COUNT)
		len = AR_MAX_RW_COUNT;
	rw->inline_vecs[0].iov_base = addr;
	rw->inline_vecs[0].iov_len = len;
	rw->io.vecs = rw->inline_vecs;
	rw->io.nr_vecs = 1;
	req->expect = (__u32)len;
	return ar_access_ok(addr, len) ? 0 : -EFAULT;
}

/* the buffer first (io_import), as the kernel's io_read/io_write */
static int ar_rw_check_buffer(struct ar_ureq *req, struct ar_rw *rw,
			      unsigned issue_flags)
{
	if (req->sqe_flags & IOSQE_BUFFER_SELECT)
		return ar_rw_select_buffer(req, rw, issue_flags);
	if (!rw->fixed)
		return 0;
	return rw->vectored ? ar_rw_import_fixed_vec(req, rw) :
			      ar_rw_import_fixed(req, rw);
}

static bool ar_rw_iopoll_ok(struct ar_ureq *req, bool write)
{
	const struct ar_backend *be = req->file.be;

	return be->iopoll_ok && be->iopoll_ok(&req->file, write);
}

/*
 * The checks before any I/O, in the kernel's order: the buffer, then the
 * file (io_rw_init_file): its mode, kiocb_set_rw_flags, the IOPOLL rules,
 * the position. The mode is looked at only when a later check fails, so
 * the hot path makes no extra system call; the syscall itself answers
 * -EBADF for a wrong mode otherwise.
 */
static int ar_rw_check_inner(struct ar_ureq *req, struct ar_rw *rw,
			     unsigned issue_flags)
{
	const struct ar_backend *be = req->file.be;
	bool iopoll = req->ctx->flags & IORING_SETUP_IOPOLL;
	__s32 flags = rw->io.rw_flags;
	int err = ar_rw_check_buffer(req, rw, issue_flags);

	if (err)
		return err;
	if (!be->no_mode && (((__u32)flags & ~AR_RWF_SUPPORTED) || iopoll ||
			     (flags & RWF_HIPRI))) {
		if (!ar_rw_mode_ok(req, rw->io.write))
			return -EBADF;
	}
	if ((__u32)flags & ~AR_RWF_SUPPORTED)
		return -EOPNOTSUPP;
	/*
	 * IOPOLL needs a file whose completions are found by polling (the
	 * kernel answers so for files without ->iopoll, and for O_DIRECT on
	 * devices without poll queues). A refusal looks at the fd again: the
	 * cache may hold the kind of a file its number named before.
	 */
	if (iopoll && !ar_rw_iopoll_ok(req, rw->io.write)) {
		ar_req_file_recheck(req);
		if (!ar_rw_iopoll_ok(req, rw->io.write))
			return -EOPNOTSUPP;
		be = req->file.be;
	}
	/* polled I/O (RWF_HIPRI) needs an IOPOLL ring: -EINVAL, as 6.18 */
	if (!iopoll && (flags & RWF_HIPRI))
		return -EINVAL;
	if (be->no_pos && rw->io.off < 0)
		return -EINVAL;
	return 0;
}

/* a bad plain fd is found only when a check fails: the kernel's -EBADF */
static int ar_rw_check(struct ar_ureq *req, struct ar_rw *rw,
		       unsigned issue_flags)
{
	int err = ar_rw_check_inner(req, rw, issue_flags);

	if (err && !req->file_node && fcntl(req->fd, F_GETFD) < 0)
		return -EBADF;
	return err;
}

/*
 * What becomes of a selected buffer after an attempt (kbuf.h): a retry
 * gives it back (unless data is in it already, or the kernel would have
 * consumed it); a result consumes it and its CQE carries the buffer id.
 * A bad plain fd is the kernel's failure before any selection: the
 * buffer goes back as if it had never been taken.
 */
static void ar_rw_kbuf_settle(struct ar_ureq *req, struct ar_rw *rw, int ret)
{
	if (ret == AR_ISSUE_QUEUED)
		return;		/* ar_req_complete() puts it */
	if (ret == AR_ISSUE_AGAIN || ret == AR_ISSUE_PUNT) {
		if (!rw->io.done)
			ar_kbuf_recycle(req, false);
		return;
	}
	if (ret == -EBADF && !req->file_node && fcntl(req->fd, F_GETFD) < 0) {
		ar_kbuf_recycle(req, true);
		return;
	}
	ar_put_kbuf_req(req, ret);
}

static int ar_rw_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_rw *rw = ar_req_data(req, struct ar_rw);
	int ret = ar_rw_check(req, rw, issue_flags);

	if (ret)
		goto out;
	ret = req->file.be->rw(req, &rw->io, issue_flags);
	/*
	 * After a partial inline transfer, the rest ran in a worker: an
	 * error there (a fault in a later iovec) reports the bytes done, as
	 * the kernel's io_read() retry does (io_fixup_rw_res()).
	 */
	if (ret < 0 && ret >= -4095 && rw->io.done)
		ret = 0;
	if (ret >= 0) {
		ret += (int)rw->io.done;
		/* short: the link breaks */
		if ((__u32)ret != req->expect)
			req->flags |= AR_REQ_F_SHORT;
	}
out:
	if (ar_kbuf_selected(req))
		ar_rw_kbuf_settle(req, rw, ret);
	return ret;
}

int ar_read_issue(struct ar_ureq *req, unsigned issue_flags)
{
	return ar_rw_issue(req, issue_flags);
}

int ar_write_issue(struct ar_ureq *req, unsigned issue_flags)
{
	return ar_rw_issue(req, issue_flags);
}

/*
 * READ_MULTISHOT (io_read_mshot_prep): provided buffers required, then
 * the read's checks, and no address or length of its own (-EINVAL).
 */
int ar_read_mshot_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	int ret;

	if (!(sqe->flags & IOSQE_BUFFER_SELECT))
		return -EINVAL;
	ret = ar_rw_prep(req, sqe, false, false, false);
	if (ret)
		return ret;
	if (sqe->addr || sqe->len)
		return -EINVAL;
	return 0;
}

/* one read into the group's next buffer: bytes, -errno or AR_ISSUE_* */
static int ar_read_mshot_once(struct ar_ureq *req, struct ar_rw *rw,
			      unsigned issue_flags)
{
	int ret = ar_rw_check(req, rw, issue_flags);

	if (ret)
		return ret;
	rw->io.done = 0;
	return req->file.be->rw(req, &rw->io, issue_flags);
}

/*
 * io_read_mshot: on a file that can be polled only (-EBADFD), each read
 * of data consumes a buffer and posts a CQE with MORE while the CQ has
 * room; "would block" gives the buffer back and waits for readiness. It
 * ends with EOF (0), an error (-ENOBUFS when the group is empty), a full
 * CQ (that read's CQE, without MORE) or a cancel. A file read without
 * RWF_NOWAIT (in a worker, blocking) is read once, as the kernel stays
 * single shot on a file without NOWAIT.
 */
int ar_read_mshot_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_rw *rw = ar_req_data(req, struct ar_rw);
	bool mshot = issue_flags & AR_ISSUE_NONBLOCK;
	unsigned cflags;
	int ret;

	/* the fd cache may remember a file that had this number: look once */
	if (!(req->flags & AR_REQ_F_POLLED))
		ar_req_file_recheck(req);
	if (!req->file.be->pollable)
		return -EBADFD;
	for (;;) {
		ret = ar_read_mshot_once(req, rw, issue_flags);
		if (ret == AR_ISSUE_AGAIN || ret == AR_ISSUE_PUNT) {
			ar_kbuf_recycle(req, false);
			return ret;
		}
		if (ret <= 0) {
			/* nothing read: the buffer goes back */
			ar_kbuf_recycle(req, req->kbuf.state == AR_KBUF_LEGACY);
			return ret;
		}
		cflags = ar_put_kbuf(req, ret);
		if (!mshot || !ar_req_post_more(req, ret, cflags | IORING_CQE_F_MORE))
			break;
	}
	req->cflags = cflags;
	return ret;
}
