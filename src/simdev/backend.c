/* SPDX-License-Identifier: MIT */
/*
 * backend.c - simdev as a file backend of the user engine.
 *
 * A read, write or fsync on a simdev fd (one anyring_simdev_create()
 * returned, or a registered-file duplicate of it) hands the device a
 * struct ar_sim_io kept in the request's backend data, and completes when
 * the device calls back (AR_ISSUE_QUEUED until then). On an IOPOLL ring
 * only a completion=poll device is accepted, and the request joins the
 * ring's polled list (user/iopoll.c). A simdev has no file position
 * (offset -1 is -EINVAL) and no access mode. FSYNC is a device flush;
 * SYNC_FILE_RANGE has no page cache to write back and does nothing.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "simdev/simdev.h"
#include "lib/clock.h"
#include "user/types.h"
#include "user/complete.h"
#include "user/iopoll.h"
#include "user/backend.h"

_Static_assert(sizeof(struct ar_sim_io) <= AR_DEV_IO_SIZE,
	       "struct ar_sim_io does not fit in struct ar_dev_req");

/* a request's simdev I/O: its backend data's device I/O */
static struct ar_sim_io *ar_sim_io_of(struct ar_ureq *req)
{
	return (struct ar_sim_io *)ar_req_dev(req)->io;
}

/* the device is done with the I/O: complete the request (any thread) */
static void ar_sim_done(struct ar_sim_io *io)
{
	struct ar_dev_req *s = (struct ar_dev_req *)((char *)io -
						     offsetof(struct ar_dev_req, io));
	struct ar_ureq *req = ar_req_of_backend(s);
	struct ar_uctx *ctx = req->ctx;
	struct ar_simdev *d = s->ip.dev;
	int res = io->res;

	if (s->ip.polled)
		ar_iopoll_del(ctx, &s->ip, true);
	if (io->op == AR_SIM_FLUSH)
		req->flags |= AR_REQ_F_NOFAIL;	/* as FSYNC's errors: no link breaks */
	else if (res >= 0 && (__u32)res != req->expect)
		req->flags |= AR_REQ_F_SHORT;	/* short: the link breaks */
	ar_req_complete(req, res, 0);
	ar_simdev_put(d);
	ar_iopoll_io_end(ctx, true);
}

/* hand the request's I/O, filled in, to its device (with an I/O reference) */
static int ar_sim_start(struct ar_ureq *req)
{
	struct ar_dev_req *s = ar_req_dev(req);
	struct ar_sim_io *io = ar_sim_io_of(req);
	struct ar_uctx *ctx = req->ctx;
	struct ar_simdev *d = req->file.dev;
	int ret;

	io->done = ar_sim_done;
	s->ip.be = req->file.be;
	s->ip.dev = d;
	s->ip.polled = io->flags & AR_SIM_IO_POLLED;
	s->ip.submit_ns = s->ip.polled ? ar_now_ns() : 0;
	/* in the device: neither a worker's nor cancellable, as block I/O in flight */
	ar_req_to_device(req);
	ret = ar_iopoll_add(ctx, &s->ip);
	if (ret)
		return ret;
	ar_simdev_ref(d);
	ret = ar_simdev_submit(d, io);
	if (!ret)
		return AR_ISSUE_QUEUED;
	if (s->ip.polled)
		ar_iopoll_del(ctx, &s->ip, false);
	ar_iopoll_io_end(ctx, false);
	ar_simdev_put(d);
	return ret;
}

static int ar_sim_rw(struct ar_ureq *req, struct ar_rw_io *rw,
		     unsigned issue_flags)
{
	struct ar_sim_io *io = ar_sim_io_of(req);

	(void)issue_flags;
	memset(io, 0, sizeof(*io));
	io->op = rw->write ? AR_SIM_WRITE : AR_SIM_READ;
	io->iov = rw->vecs;
	io->nr_iov = (uint16_t)rw->nr_vecs;
	io->off = (uint64_t)rw->off;
	io->len = req->expect;
	io->flags = (req->ctx->flags & IORING_SETUP_IOPOLL) ? AR_SIM_IO_POLLED : 0;
	return ar_sim_start(req);
}

static int ar_sim_fsync(struct ar_ureq *req, const struct ar_sync_io *sync,
			unsigned issue_flags)
{
	struct ar_sim_io *io = ar_sim_io_of(req);

	(void)sync;
	(void)issue_flags;
	memset(io, 0, sizeof(*io));
	io->op = AR_SIM_FLUSH;
	return ar_sim_start(req);
}

static int ar_sim_sync_range(struct ar_ureq *req, const struct ar_sync_io *sync,
			     unsigned issue_flags)
{
	(void)req;
	(void)sync;
	(void)issue_flags;
	return 0;
}

static bool ar_sim_iopoll_ok(const struct ar_file *f, bool write)
{
	(void)write;
	return ar_simdev_polled(f->dev);
}

static unsigned ar_sim_iopoll(void *dev)
{
	return ar_simdev_poll(dev);
}

static void *ar_sim_claim(int fd)
{
	return ar_simdev_get(fd);
}

static void ar_sim_dev_ref(void *dev)
{
	ar_simdev_ref(dev);
}

static void ar_sim_dev_put(void *dev)
{
	ar_simdev_put(dev);
}

static const struct ar_backend ar_simdev_backend = {
	.name = "simdev",
	.rw = ar_sim_rw,
	.fsync = ar_sim_fsync,
	.sync_range = ar_sim_sync_range,
	.iopoll_ok = ar_sim_iopoll_ok,
	.iopoll = ar_sim_iopoll,
	.claim = ar_sim_claim,
	.dev_ref = ar_sim_dev_ref,
	.dev_put = ar_sim_dev_put,
	.no_pos = 1,
	.no_mode = 1,
};

__attribute__((constructor))
static void ar_simdev_backend_init(void)
{
	ar_backend_register_device(&ar_simdev_backend);
}
