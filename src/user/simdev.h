/* SPDX-License-Identifier: MIT */
/*
 * simdev.h - the simulated block device (in the spirit of null_blk), as
 * the user engine sees it. The device owns its storage, latency model,
 * parallelism, bandwidth cap, faults and power-loss state; the engine
 * hands it I/Os and is told when they are done.
 *
 * Completion modes:
 *   irq   a device thread calls io->done() when an I/O's time has come
 *         (with coalescing, several I/Os per wakeup);
 *   poll  nothing happens until someone calls ar_simdev_poll(), which runs
 *         io->done() in the caller's thread for every I/O that is due.
 */
#ifndef ANYRING_USER_SIMDEV_H
#define ANYRING_USER_SIMDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct ar_simdev;

enum ar_sim_op {
	AR_SIM_READ,
	AR_SIM_WRITE,
	AR_SIM_FLUSH,		/* fsync: makes completed writes durable */
};

/* One I/O; lives in the caller's memory (a request's opdata) until done(). */
struct ar_sim_io {
	struct ar_sim_io *next;		/* the device's own lists */
	enum ar_sim_op op;
	const struct iovec *iov;
	unsigned nr_iov;
	uint64_t off;			/* bytes */
	uint64_t len;			/* sum of iov lengths */
	int res;			/* set before done(): bytes or -errno */
	uint64_t due_ns;		/* the device's: CLOCK_MONOTONIC */
	uint64_t seq;			/* the device's */
	void (*done)(struct ar_sim_io *io);
	void *priv;			/* the caller's */
};

/* The device behind fd (a reference), or NULL when fd is not a simdev. */
struct ar_simdev *ar_simdev_get(int fd);
void ar_simdev_put(struct ar_simdev *d);

/* completion=poll: I/Os are found only by ar_simdev_poll() */
bool ar_simdev_polled(const struct ar_simdev *d);

/*
 * Start an I/O: 0 when accepted (done() follows, exactly once), or a
 * negative errno at once (out of range, misaligned): done() not called.
 * Never blocks; never calls done() from inside this call.
 */
int ar_simdev_submit(struct ar_simdev *d, struct ar_sim_io *io);

/*
 * completion=poll: finish every accepted I/O whose due time has passed,
 * calling done() in this thread; returns how many. Cheap when none is due.
 */
unsigned ar_simdev_poll(struct ar_simdev *d);

/* The earliest due time of an accepted, unfinished I/O; 0 when none. */
uint64_t ar_simdev_next_due(struct ar_simdev *d);

#endif
