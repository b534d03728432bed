/* SPDX-License-Identifier: MIT */
/*
 * engine_posixaio.c - posixaio: POSIX AIO as glibc implements it
 * (aio_read/aio_write served by glibc's helper threads, aio_suspend to
 * wait, aio_error/aio_return to reap). glibc serves the requests of one fd
 * in order, so a deep queue here mostly measures its thread handoffs.
 */
#include <aio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "worker.h"

struct paio_priv {
	struct aiocb *cbs;		/* one per slot */
	const struct aiocb **list;	/* in flight, for aio_suspend */
	unsigned *slot_of;		/* list[i] is slot slot_of[i] */
	unsigned nr;			/* in flight */
};

static int paio_init(struct worker *w)
{
	struct paio_priv *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	w->priv = a;
	a->cbs = calloc(w->nslots, sizeof(*a->cbs));
	a->list = calloc(w->nslots, sizeof(*a->list));
	a->slot_of = calloc(w->nslots, sizeof(*a->slot_of));
	if (!a->cbs || !a->list || !a->slot_of)
		return -ENOMEM;
	return 0;
}

/* After an error the drain may have stopped early: glibc must let go. */
static void wait_all(struct paio_priv *a)
{
	unsigned i;

	for (i = 0; i < a->nr; i++) {
		while (aio_error(a->list[i]) == EINPROGRESS)
			aio_suspend(&a->list[i], 1, NULL);
		aio_return((struct aiocb *)a->list[i]);
	}
	a->nr = 0;
}

static void paio_exit(struct worker *w)
{
	struct paio_priv *a = w->priv;

	if (!a)
		return;
	if (a->list)
		wait_all(a);
	free(a->cbs);
	free((void *)a->list);
	free(a->slot_of);
	free(a);
	w->priv = NULL;
}

static int start_one(struct worker *w, struct paio_priv *a)
{
	unsigned slot = worker_take(w);
	struct aiocb *cb = &a->cbs[slot];
	int ret;

	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = w->fd;
	cb->aio_buf = worker_buf(w, slot);
	cb->aio_nbytes = w->bs;
	cb->aio_offset = (off_t)worker_offset(w);
	cb->aio_sigevent.sigev_notify = SIGEV_NONE;
	ret = worker_is_read(w) ? aio_read(cb) : aio_write(cb);
	w->calls++;
	if (ret) {
		/* never started: give the slot back as a failed I/O */
		ret = -errno;
		worker_reap_start(w);
		worker_complete(w, slot, ret);
		return ret;
	}
	a->list[a->nr] = cb;
	a->slot_of[a->nr] = slot;
	a->nr++;
	return 0;
}

/* Reap every finished request; returns how many. */
static unsigned scan(struct worker *w, struct paio_priv *a)
{
	unsigned i = 0, reaped = 0;

	worker_reap_start(w);
	while (i < a->nr) {
		struct aiocb *cb = (struct aiocb *)a->list[i];
		int err = aio_error(cb);
		ssize_t res;

		if (err == EINPROGRESS) {
			i++;
			continue;
		}
		res = aio_return(cb);
		worker_complete(w, a->slot_of[i], err ? -err : (int)res);
		reaped++;
		a->nr--;
		a->list[i] = a->list[a->nr];
		a->slot_of[i] = a->slot_of[a->nr];
	}
	return reaped;
}

static int paio_submit_wait(struct worker *w, unsigned nr, unsigned wait_nr)
{
	struct paio_priv *a = w->priv;
	unsigned i, reaped;
	int ret;

	for (i = 0; i < nr; i++) {
		ret = start_one(w, a);
		if (ret)
			return ret;
	}
	reaped = scan(w, a);
	while (reaped < wait_nr && a->nr) {
		ret = aio_suspend(a->list, (int)a->nr, NULL);
		w->calls++;
		if (ret && errno != EINTR && errno != EAGAIN)
			return -errno;
		reaped += scan(w, a);
	}
	return (int)nr;
}

const struct bench_engine engine_posixaio = {
	.name = "posixaio",
	.help = "glibc POSIX AIO: aio_read/aio_write + aio_suspend",
	.caps = ENG_QUEUE,
	.init = paio_init,
	.exit = paio_exit,
	.submit_wait = paio_submit_wait,
};
