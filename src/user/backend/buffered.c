/* SPDX-License-Identifier: MIT */
/*
 * buffered.c - the backends of files the kernel reads and writes for us:
 * buffered regular files and block devices, and pollable files (pipes,
 * FIFOs, sockets, ttys, eventfds, character devices).
 *
 * The inline attempt is preadv2/pwritev2 with RWF_NOWAIT. "Would block"
 * is AR_ISSUE_AGAIN: the core waits for readiness on a pollable file and
 * hands anything else to a worker, which does it blocking. On a regular
 * file the rest of a partial non-blocking read is tried again at once
 * (as the kernel's io_read()), that of a write goes to a worker (as its
 * io_write()), and a worker finishes a read that would block: only EOF
 * makes a read short, as in the kernel. An offset of -1 means the
 * file position; a file that cannot seek ignores the offset.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/uio.h>
#include "user/backend.h"
#include "lib/sysraw.h"

#define AR_RW_ITER_VECS		16

/* the iovecs past the first io->done bytes */
static int ar_rw_iter(const struct ar_rw_io *io, struct iovec *tmp, int max,
		      const struct iovec **vecs)
{
	size_t skip = io->done;
	unsigned i = 0;
	int n = 0;

	if (!skip) {
		*vecs = io->vecs;
		return (int)io->nr_vecs;
	}
	while (i < io->nr_vecs && skip >= io->vecs[i].iov_len)
		skip -= io->vecs[i++].iov_len;
	for (; i < io->nr_vecs && n < max; i++, n++) {
		/* no arithmetic on a NULL base (a bad iovec): it stays NULL */
		tmp[n].iov_base = skip ? (char *)io->vecs[i].iov_base + skip :
			io->vecs[i].iov_base;
		tmp[n].iov_len = io->vecs[i].iov_len - skip;
		skip = 0;
	}
	*vecs = tmp;
	return n;
}

ssize_t ar_buffered_call(struct ar_ureq *req, struct ar_rw_io *io, int flags)
{
	struct iovec tmp[AR_RW_ITER_VECS];
	const struct iovec *vecs;
	int nr = ar_rw_iter(io, tmp, AR_RW_ITER_VECS, &vecs);
	off_t off = io->off == -1 ? -1 : (off_t)(io->off + io->done);
	ssize_t ret;

	if (io->off < -1)
		return -EINVAL;
	ret = ar_raw_rw(io->write, req->fd, vecs, nr, (long)off, flags);
	/* a pipe or socket has no offset: the kernel ignores it there */
	if (ret == -ESPIPE && off != -1)
		ret = ar_raw_rw(io->write, req->fd, vecs, nr, -1, flags);
	return ret;
}

/*
 * -EAGAIN is the answer itself only when the SQE asked not to wait
 * (RWF_NOWAIT); otherwise it means: wait for readiness or let a worker
 * block. On 6.18 an O_NONBLOCK file waits for readiness too (measured).
 */
static bool ar_rw_nowait(const struct ar_rw_io *io)
{
	return io->rw_flags & RWF_NOWAIT;
}

static int ar_buffered_rw(struct ar_ureq *req, struct ar_rw_io *io,
			  unsigned issue_flags)
{
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	int e = errno;
	ssize_t ret;

	/* a submit's page-cache reads go in one system call (batch.c) */
	if (ar_direct_cur_plug && nonblock && !io->write && !io->done &&
	    io->off >= 0 &&
	    !ar_rw_nowait(io) && req->file.isreg &&
	    req->file.be == &ar_buffered_backend &&
	    ar_batch_join(req, io, issue_flags))
		return AR_ISSUE_QUEUED;
	/* its batch found it missing from the page cache: a worker reads it */
	if (req->flags & AR_REQ_F_NOWAIT_MISS) {
		req->flags &= ~AR_REQ_F_NOWAIT_MISS;
		if (nonblock)
			return AR_ISSUE_AGAIN;
	}
	/*
	 * A file whose buffered writes refused RWF_NOWAIT before: a worker
	 * writes it, with no try first, as the kernel's io_write() punts
	 * writes to a file without FMODE_BUF_WASYNC before any I/O.
	 */
	if (nonblock && io->write && req->file.wr_blocks && !ar_rw_nowait(io) &&
	    !io->done && req->file.be->page_cache)
		return AR_ISSUE_PUNT;
	ret = ar_buffered_call(req, io, io->rw_flags | (nonblock ? RWF_NOWAIT : 0));
	errno = e;
	if (ret == -EOPNOTSUPP && nonblock && io->write && req->file.isreg &&
	    req->file.be->page_cache)
		ar_file_note_write_blocks(req);
	/*
	 * A buffered write asked not to wait: the kernel says -EAGAIN inline;
	 * from io-wq (IOSQE_ASYNC) it writes (measured on 6.18).
	 */
	if (ret == -EOPNOTSUPP && io->write && ar_rw_nowait(io)) {
		if (!(issue_flags & AR_ISSUE_WORKER))
			return -EAGAIN;
		ret = ar_buffered_call(req, io, io->rw_flags & ~RWF_NOWAIT);
		errno = e;
	}
	if (ret == -EAGAIN && !ar_rw_nowait(io))
		return AR_ISSUE_AGAIN;
	/* this file has no RWF_NOWAIT: a worker does it blocking */
	if (ret == -EOPNOTSUPP && nonblock && !ar_rw_nowait(io))
		return AR_ISSUE_PUNT;
	/*
	 * Partial on a regular file: a write's rest goes to a worker; a
	 * read's is tried again at once, as the kernel's io_read() retries
	 * a partial buffered read inline. End of file (0) or an error ends
	 * the read there, with the bytes done (ar_rw_issue()); what would
	 * block goes to a worker.
	 */
	while (nonblock && ret > 0 && (__u32)ret < req->expect - io->done &&
	       !ar_rw_nowait(io)) {
		ar_req_file_recheck(req);
		if (!req->file.isreg)
			break;
		io->done += (__u32)ret;
		if (io->write)
			return AR_ISSUE_PUNT;
		ret = ar_buffered_call(req, io, io->rw_flags | RWF_NOWAIT);
		errno = e;
		if (ret == -EAGAIN || ret == -EOPNOTSUPP)
			return AR_ISSUE_PUNT;
	}
	return (int)ret;
}

static int ar_sync_ret(int ret)
{
	return ret < 0 ? -errno : ret;
}

/* fsync(2) and fdatasync(2) block: a worker does them */
int ar_buffered_fsync(struct ar_ureq *req, const struct ar_sync_io *s,
			     unsigned issue_flags)
{
	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	if (s->flags & IORING_FSYNC_DATASYNC)
		return ar_sync_ret(fdatasync(req->fd));
	return ar_sync_ret(fsync(req->fd));
}

int ar_buffered_sync_range(struct ar_ureq *req,
				  const struct ar_sync_io *s,
				  unsigned issue_flags)
{
	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_sync_ret(sync_file_range(req->fd, (off64_t)s->off,
					   (off64_t)s->len, s->flags));
}

const struct ar_backend ar_buffered_backend = {
	.name = "buffered",
	.rw = ar_buffered_rw,
	.fsync = ar_buffered_fsync,
	.sync_range = ar_buffered_sync_range,
	.page_cache = 1,
	.spread = 1,
};

const struct ar_backend ar_pollable_backend = {
	.name = "pollable",
	.rw = ar_buffered_rw,
	.fsync = ar_buffered_fsync,
	.sync_range = ar_buffered_sync_range,
	.pollable = 1,
	.unbound = 1,
	.spread = 1,
};
