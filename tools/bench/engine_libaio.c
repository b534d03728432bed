/* SPDX-License-Identifier: MIT */
/*
 * engine_libaio.c - libaio: Linux native AIO through Debian's libaio
 * (io_setup, io_submit, io_getevents). Asynchronous for O_DIRECT; on
 * buffered files the kernel completes the I/O inside io_submit.
 */
#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "worker.h"

struct aio_priv {
	io_context_t ctx;
	struct iocb *iocbs;	/* one per slot */
	struct iocb **batch;	/* the iocbs of one io_submit */
	struct io_event *events;
};

static int libaio_init(struct worker *w)
{
	struct aio_priv *a = calloc(1, sizeof(*a));
	int ret;

	if (!a)
		return -ENOMEM;
	w->priv = a;
	a->iocbs = calloc(w->nslots, sizeof(*a->iocbs));
	a->batch = calloc(w->nslots, sizeof(*a->batch));
	a->events = calloc(w->nslots, sizeof(*a->events));
	if (!a->iocbs || !a->batch || !a->events)
		return -ENOMEM;
	ret = io_setup((int)w->nslots, &a->ctx);
	if (ret < 0) {
		worker_fail(w, ret, "io_setup(%u): %s%s", w->nslots,
			    strerror(-ret), ret == -EAGAIN ?
			    " (fs.aio-max-nr too small?)" : "");
		return ret;
	}
	return 0;
}

static void libaio_exit(struct worker *w)
{
	struct aio_priv *a = w->priv;

	if (!a)
		return;
	if (a->ctx)
		io_destroy(a->ctx);
	free(a->iocbs);
	free(a->batch);
	free(a->events);
	free(a);
	w->priv = NULL;
}

static void prep(struct worker *w, struct aio_priv *a, unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++) {
		unsigned slot = worker_take(w);
		struct iocb *cb = &a->iocbs[slot];
		uint64_t off = worker_offset(w);

		if (worker_is_read(w))
			io_prep_pread(cb, w->fd, worker_buf(w, slot), w->bs,
				      (long long)off);
		else
			io_prep_pwrite(cb, w->fd, worker_buf(w, slot), w->bs,
				       (long long)off);
		cb->data = (void *)(uintptr_t)slot;
		a->batch[i] = cb;
	}
}

/* io_submit until all nr went in; the kernel may take fewer. */
static int submit_all(struct worker *w, struct aio_priv *a, unsigned nr)
{
	unsigned done = 0;

	while (done < nr) {
		int ret = io_submit(a->ctx, (long)(nr - done), a->batch + done);

		w->calls++;
		if (ret == -EAGAIN || ret == -EINTR)
			continue;
		if (ret < 0)
			return ret;
		done += (unsigned)ret;
	}
	return (int)nr;
}

static int libaio_submit_wait(struct worker *w, unsigned nr, unsigned wait_nr)
{
	struct aio_priv *a = w->priv;
	int ret, i;

	prep(w, a, nr);
	ret = nr ? submit_all(w, a, nr) : 0;
	if (ret < 0 || !wait_nr)
		return ret;
	do {
		i = io_getevents(a->ctx, (long)wait_nr, (long)w->nslots,
				 a->events, NULL);
		w->calls++;
	} while (i == -EINTR);
	if (i < 0)
		return i;
	worker_reap_start(w);
	while (i--) {
		struct io_event *ev = &a->events[i];

		worker_complete(w, (unsigned)(uintptr_t)ev->data, (int)ev->res);
	}
	return ret;
}

const struct bench_engine engine_libaio = {
	.name = "libaio",
	.help = "Linux AIO via libaio: io_submit + io_getevents",
	.caps = ENG_QUEUE,
	.init = libaio_init,
	.exit = libaio_exit,
	.submit_wait = libaio_submit_wait,
};
