/* SPDX-License-Identifier: MIT */
/*
 * util.c - small helpers the user engine's files share.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include "uring.h"

/* Engine threads take no signals: the application's handlers run in its threads. */
void ar_block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

bool ar_fd_is_regular(int fd)
{
	struct stat st;
	int e = errno;
	bool ret = !fstat(fd, &st) && S_ISREG(st.st_mode);

	errno = e;
	return ret;
}

bool ar_fd_nonblocking(int fd)
{
	int e = errno, fl = fcntl(fd, F_GETFL);

	errno = e;
	return fl >= 0 && (fl & O_NONBLOCK);
}

/* The CQ is empty and the ring is about to wait: the ring fd is not readable. */
void ar_ring_fd_clear(struct ar_uctx *ctx)
{
	uint64_t v;
	int e = errno;

	if (!atomic_exchange_explicit(&ctx->ring_fd_signalled, false,
				      memory_order_relaxed))
		return;
	(void)!read(ctx->ring_fd, &v, sizeof(v));
	errno = e;
	/* a CQE posted meanwhile must leave the fd readable */
	if (IO_URING_READ_ONCE(ctx->rings->cq.head) !=
	    io_uring_smp_load_acquire(&ctx->rings->cq.tail))
		ar_cq_wake(ctx, false);
}
