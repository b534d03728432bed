/* SPDX-License-Identifier: MIT */
/* direct.h - O_DIRECT I/O through the kernel's native AIO (aio.c) */
#ifndef ANYRING_USER_BACKEND_DIRECT_H
#define ANYRING_USER_BACKEND_DIRECT_H

#include <stdbool.h>
#include <sys/uio.h>
#include <linux/aio_abi.h>

struct ar_ureq;
struct ar_uctx;

/* what an AIO read or write keeps in its request */
struct ar_aio_io {
	struct iocb cb;
};

int ar_aio_rw(struct ar_ureq *req, struct ar_aio_io *io, bool write,
	      const struct iovec *iov, unsigned nr_iov, __s64 off, int rw_flags);
bool ar_aio_fd_direct(struct ar_uctx *ctx, int fd);
unsigned ar_aio_reap_ring(struct ar_uctx *ctx);
int ar_aio_sleep_fd(struct ar_uctx *ctx);
void ar_aio_exit(struct ar_uctx *ctx);

#endif
