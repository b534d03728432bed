/* SPDX-License-Identifier: MIT */
/*
 * simdev.h - the simulated block device (in the spirit of null_blk), as
 * the user engine sees it. The device owns its storage, latency model,
 * parallelism, bandwidth cap, faults and power-loss state; the engine
 * hands it I/Os and is told when they are done. The spec grammar and the
 * models are in docs/simdev.md.
 *
 * Completion modes:
 *   irq   a device thread calls io->done() when an I/O's time has come
 *         (with coalescing, several I/Os per wakeup);
 *   poll  nothing happens until someone calls ar_simdev_poll(), which runs
 *         io->done() in the caller's thread for every I/O that is due.
 *         An I/O submitted without AR_SIM_IO_POLLED on a poll device (a
 *         ring without IOPOLL) is delivered by the device thread instead,
 *         as a block device serves non-polled I/O from its IRQ queues.
 *
 * Data moves when an I/O is delivered (reads see the storage as of their
 * completion, writes change it then), so "completed" means the same to the
 * device and to whoever sees the completion.
 */
#ifndef ANYRING_SIMDEV_SIMDEV_H
#define ANYRING_SIMDEV_SIMDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct ar_simdev;

enum ar_sim_op {
	AR_SIM_READ,
	AR_SIM_WRITE,
	AR_SIM_FLUSH,		/* fsync: makes completed writes durable */
};

/* io->flags, set by the caller */
#define AR_SIM_IO_POLLED	(1U << 0)	/* found by ar_simdev_poll() only */

#define AR_SIM_SECTOR		512U	/* offsets and lengths: multiples of it */

/*
 * One I/O; lives in the caller's memory (a request's opdata) until done().
 * 64 bytes: the caller finds its own object with container_of.
 */
struct ar_sim_io {
	const struct iovec *iov;	/* the caller's; read/written at delivery */
	uint64_t off;			/* bytes */
	uint64_t due_ns;		/* the device's: CLOCK_MONOTONIC */
	uint64_t submit_ns;		/* the device's: when it was accepted */
	uint64_t mark;			/* the device's (flush coverage) */
	void (*done)(struct ar_sim_io *io);
	uint32_t len;			/* bytes asked for (the iovecs hold at least this) */
	int32_t res;			/* set before done(): bytes or -errno */
	uint32_t xfer;			/* the device's: bytes it moves */
	uint16_t nr_iov;
	uint8_t op;			/* enum ar_sim_op */
	uint8_t flags;			/* AR_SIM_IO_* */
};

/*
 * The device behind fd (a reference), or NULL when fd is not a simdev.
 * fd is one returned by anyring_simdev_create() (checked against the file
 * it was made with, so a closed and reused number is not a device), or a
 * registered-file duplicate the engine made of one.
 */
struct ar_simdev *ar_simdev_get(int fd);
/* another reference on a device the caller holds one on */
void ar_simdev_ref(struct ar_simdev *d);
void ar_simdev_put(struct ar_simdev *d);

/* completion=poll: I/Os marked AR_SIM_IO_POLLED are found only by ar_simdev_poll() */
bool ar_simdev_polled(const struct ar_simdev *d);

/*
 * Start an I/O: 0 when accepted (done() follows, exactly once), or a
 * negative errno at once: -EINVAL misaligned (offset or length not a
 * multiple of 512), -ENOSPC a write starting at or past the end,
 * -EOPNOTSUPP AR_SIM_IO_POLLED on a device that is not completion=poll.
 * Never blocks; never calls done() from inside this call. The caller holds
 * a device reference until done() has returned.
 */
int ar_simdev_submit(struct ar_simdev *d, struct ar_sim_io *io);

/*
 * completion=poll: finish every accepted polled I/O whose due time has
 * passed, calling done() in this thread; returns how many. Cheap when none
 * is due (one atomic load and a clock read, no lock).
 */
unsigned ar_simdev_poll(struct ar_simdev *d);

#endif
