/* SPDX-License-Identifier: MIT */
/*
 * engine_sync.c - sync: preadv2/pwritev2, one I/O at a time (the depth is
 * 1 whatever -d says; job_check notes it). With -p 1 the calls pass
 * RWF_HIPRI (polled completion where the device has poll queues).
 * --fdatasync=1: each write is followed by fdatasync, one I/O.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/uio.h>
#include "engine.h"
#include "worker.h"

static int sync_init(struct worker *w)
{
	(void)w;
	return 0;
}

static void sync_exit(struct worker *w)
{
	(void)w;
}

static int sync_submit_wait(struct worker *w, unsigned nr, unsigned wait_nr)
{
	int flags = w->spec->polled ? RWF_HIPRI : 0;
	unsigned slot;
	uint64_t off;
	ssize_t ret;

	(void)wait_nr;		/* every call completes its I/O */
	if (!nr)
		return 0;
	slot = worker_take(w);
	off = worker_offset(w);
	if (worker_is_read(w))
		ret = preadv2(w->fd, &w->iov[slot], 1, (off_t)off, flags);
	else
		ret = pwritev2(w->fd, &w->iov[slot], 1, (off_t)off, flags);
	if (w->spec->fdatasync) {
		if (ret != (ssize_t)w->bs)
			worker_bad_result(w, ret < 0 ? -errno : (int)ret);
		else
			ret = fdatasync(w->fd);	/* the I/O's result: 0 */
	}
	w->calls++;
	worker_reap_start(w);
	worker_complete(w, slot, ret < 0 ? -errno : (int)ret);
	return 1;
}

const struct bench_engine engine_sync = {
	.name = "sync",
	.help = "preadv2/pwritev2, one I/O at a time (depth 1)",
	.caps = ENG_POLLED | ENG_FDATASYNC,
	.init = sync_init,
	.exit = sync_exit,
	.submit_wait = sync_submit_wait,
};
