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
#include "user/iopoll.h"
#include "user/submit.h"
#include "lib/clock.h"

/*
 * The request's backend state: its iocb and, on an IOPOLL ring, its
 * place on the ring's polled list. There the poller (iopoll.c) reaps
 * the ring's AIO context as its device; the event, whoever reaps it,
 * takes the request off the list (ar_direct_reaped()). A file whose file
 * system has no ->iopoll was refused before (ar_direct_iopoll_ok()).
 */
struct ar_direct_req {
	struct iocb cb;
	struct ar_iopoll_entry ip;
	/* held in a plug: its state before the device, and its issue's flags */
	unsigned char prev;
	unsigned char issue_flags;
};

_Static_assert(sizeof(struct ar_direct_req) <= AR_REQ_BEDATA,
	       "a direct request does not fit in a request");

static struct ar_direct_req *ar_direct_req(struct ar_ureq *req)
{
	return ar_req_backend(req);
}

__thread struct ar_direct_plug *ar_direct_cur_plug;

/* AIO refused the request: back to the state it had, off the polled list */
static void ar_direct_refused(struct ar_ureq *req, enum ar_req_state prev)
{
	struct ar_direct_req *d = ar_direct_req(req);

	ar_req_device_refused(req, prev);
	if (d->ip.polled) {
		ar_iopoll_del(req->ctx, &d->ip, false);
		d->ip.polled = false;
	}
}

/*
 * Submit what the plug holds. An iocb AIO refuses (a full context, a
 * file without AIO) goes back to its state before the device and on the
 * refused list, issued again once the plug is gone (ar_direct_plug_end()):
 * then it is submitted alone, and takes the usual path if refused again.
 */
static void ar_direct_plug_flush(struct ar_direct_plug *p)
{
	struct ar_ureq *req;
	unsigned i = 0;
	int ret;

	while (i < p->nr) {
		ret = ar_aio_submit_many(p->ctx, p->cbs + i, p->nr - i);
		if (ret > 0) {
			i += (unsigned)ret;
			continue;
		}
		/* cbs[i] refused, its hold dropped: the rest are tried again */
		req = (struct ar_ureq *)(unsigned long)p->cbs[i++]->aio_data;
		ar_direct_refused(req, ar_direct_req(req)->prev);
		req->next = NULL;
		*p->refused_tail = req;
		p->refused_tail = &req->next;
	}
	p->nr = 0;
}

/* the plug's end (ar_direct_plug_end(), no longer current): submit, retry the refused */
void ar_direct_plug_finish(struct ar_direct_plug *p)
{
	struct ar_ureq *req, *next;

	ar_direct_plug_flush(p);
	for (req = p->refused; req; req = next) {
		next = req->next;
		ar_req_issue(req, ar_direct_req(req)->issue_flags);
	}
}

/* Held in this thread's plug for its ring (taking its hold), if there is one. */
static bool ar_direct_plug_add(struct ar_ureq *req, enum ar_req_state prev,
			       unsigned issue_flags)
{
	struct ar_direct_plug *p = ar_direct_cur_plug;
	struct ar_direct_req *d = ar_direct_req(req);

	if (!p || p->ctx != req->ctx)
		return false;
	if (p->nr == AR_DIRECT_PLUG)
		ar_direct_plug_flush(p);
	d->prev = (unsigned char)prev;
	d->issue_flags = (unsigned char)issue_flags;
	ar_aio_hold(req->ctx, 1);
	p->cbs[p->nr++] = &d->cb;
	return true;
}

/*
 * Queue a read or write on an O_DIRECT file: AR_ISSUE_QUEUED, or
 * -EOPNOTSUPP when AIO cannot take it (the caller goes on as before).
 */
static int ar_aio_rw(struct ar_ureq *req, const struct ar_rw_io *io,
		     unsigned issue_flags)
{
	struct ar_direct_req *d = ar_direct_req(req);
	struct iocb *cb = &d->cb;
	struct ar_uctx *ctx = req->ctx;
	enum ar_req_state prev;

	if (ar_aio_prepare(ctx))
		return -EOPNOTSUPP;
	memset(cb, 0, sizeof(*cb));
	cb->aio_data = (__u64)(unsigned long)req;
	cb->aio_lio_opcode = io->write ? IOCB_CMD_PWRITEV : IOCB_CMD_PREADV;
	cb->aio_fildes = (__u32)req->fd;
	cb->aio_buf = (__u64)(unsigned long)io->vecs;
	cb->aio_nbytes = io->nr_vecs;
	cb->aio_offset = io->off;
	/* polled or not, AIO completes it: RWF_HIPRI is not AIO's to take */
	cb->aio_rw_flags = io->rw_flags & ~RWF_HIPRI;
	d->ip.polled = ctx->flags & IORING_SETUP_IOPOLL;
	if (d->ip.polled) {
		d->ip.be = &ar_direct_backend;
		d->ip.dev = ctx;
		d->ip.submit_ns = ar_now_ns();
		if (ar_iopoll_link(ctx, &d->ip)) {
			d->ip.polled = false;
			return -EOPNOTSUPP;
		}
	}
	/* in the device: neither a worker's nor cancellable, as block I/O in flight */
	prev = ar_req_to_device(req);
	if (ar_direct_plug_add(req, prev, issue_flags) ||
	    !ar_aio_submit(ctx, cb, true))
		return AR_ISSUE_QUEUED;
	ar_direct_refused(req, prev);
	/* the context is full, or the file refused AIO: the usual path */
	return -EOPNOTSUPP;
}

/* aio.c: the AIO event of a read or write of an IOPOLL ring came */
void ar_direct_reaped(struct ar_ureq *req)
{
	struct ar_direct_req *d = ar_direct_req(req);

	if (d->ip.polled) {
		ar_iopoll_del(req->ctx, &d->ip, true);
		d->ip.polled = false;
	}
}

static bool ar_direct_iopoll_ok(const struct ar_file *f, bool write)
{
	return f->iopoll & (write ? AR_IOPOLL_WRITE : AR_IOPOLL_READ);
}

/* the poller's look: the events the ring's AIO context holds (dev: the ring) */
static unsigned ar_direct_iopoll(void *dev)
{
	return ar_aio_reap_ring(dev);
}

/* the ring, the "device" of its polled AIO, outlives the list */
static void ar_direct_dev_ref(void *dev)
{
	(void)dev;
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
	    io->off >= 0 && !io->done &&
	    ar_aio_rw(req, io, issue_flags) == AR_ISSUE_QUEUED)
		return AR_ISSUE_QUEUED;
	return ar_buffered_backend.rw(req, io, issue_flags);
}

const struct ar_backend ar_direct_backend = {
	.name = "direct",
	.rw = ar_direct_rw,
	.fsync = ar_buffered_fsync,
	.sync_range = ar_buffered_sync_range,
	.iopoll_ok = ar_direct_iopoll_ok,
	.iopoll = ar_direct_iopoll,
	.dev_ref = ar_direct_dev_ref,
	.dev_put = ar_direct_dev_ref,
};
