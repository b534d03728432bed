/* SPDX-License-Identifier: MIT */
/*
 * direct.c - the direct backend: O_DIRECT reads and writes queued in the
 * ring's native AIO context (aio.c). Direct I/O through preadv2 would
 * hold the submitting thread for the device's whole latency, and a
 * worker per request costs a thread handoff each way; AIO queues the
 * I/O and returns.
 */
#include <errno.h>
#include <string.h>
#include <linux/aio_abi.h>
#include "user/aio.h"
#include "user/types.h"
#include "user/backend.h"

/* the request's backend state is its iocb */
_Static_assert(sizeof(struct iocb) <= AR_REQ_BEDATA,
	       "an iocb does not fit in a request");

/*
 * Queue a read or write on an O_DIRECT file: AR_ISSUE_QUEUED, or
 * -EOPNOTSUPP when AIO cannot take it (the caller goes on as before).
 */
static int ar_aio_rw(struct ar_ureq *req, const struct ar_rw_io *io)
{
	struct iocb *cb = ar_req_backend(req);
	enum ar_req_state prev;

	if (ar_aio_prepare(req->ctx))
		return -EOPNOTSUPP;
	memset(cb, 0, sizeof(*cb));
	cb->aio_data = (__u64)(unsigned long)req;
	cb->aio_lio_opcode = io->write ? IOCB_CMD_PWRITEV : IOCB_CMD_PREADV;
	cb->aio_fildes = (__u32)req->fd;
	cb->aio_buf = (__u64)(unsigned long)io->vecs;
	cb->aio_nbytes = io->nr_vecs;
	cb->aio_offset = io->off;
	cb->aio_rw_flags = io->rw_flags;
	/* in the device: neither a worker's nor cancellable, as block I/O in flight */
	prev = ar_req_to_device(req);
	if (!ar_aio_submit(req->ctx, cb, true))
		return AR_ISSUE_QUEUED;
	ar_req_device_refused(req, prev);
	/* the context is full, or the file refused AIO: the usual path */
	return -EOPNOTSUPP;
}

/*
 * An inline read or write goes to AIO; what AIO cannot take (a full
 * context, a file that refuses it, RWF_NOWAIT, the file position, the
 * rest of a partial transfer) goes the buffered way, which preadv2 does
 * correctly on an O_DIRECT file too, only holding the thread.
 */
static int ar_direct_rw(struct ar_ureq *req, struct ar_rw_io *io,
			unsigned issue_flags)
{
	if ((issue_flags & AR_ISSUE_NONBLOCK) && !(io->rw_flags & RWF_NOWAIT) &&
	    io->off >= 0 && !io->done && ar_aio_rw(req, io) == AR_ISSUE_QUEUED)
		return AR_ISSUE_QUEUED;
	return ar_buffered_backend.rw(req, io, issue_flags);
}

const struct ar_backend ar_direct_backend = {
	.name = "direct",
	.rw = ar_direct_rw,
	.fsync = ar_buffered_fsync,
	.sync_range = ar_buffered_sync_range,
};
