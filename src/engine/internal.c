/* SPDX-License-Identifier: MIT */
/*
 * internal.c - the library's own fds, marked in the seam's table of fds
 * (engine.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include "engine/engine.h"

/*
 * The library's own fds (eventfds, dups of registered files, simdev's)
 * are claimed with this marker: they are not the application's, so
 * io_uring calls on them fail -EBADF, CLOSE refuses them and they cannot
 * be registered.
 */
static int ar_internal_enter(void *obj, unsigned fd, unsigned to_submit,
			     unsigned min_complete, unsigned flags,
			     const void *arg, size_t argsz)
{
	(void)obj; (void)fd; (void)to_submit; (void)min_complete; (void)flags;
	(void)arg; (void)argsz;
	return -EBADF;
}

static int ar_internal_reg(void *obj, unsigned fd, unsigned opcode,
			   const void *arg, unsigned nr_args)
{
	(void)obj; (void)fd; (void)opcode; (void)arg; (void)nr_args;
	return -EBADF;
}

static int ar_internal_mmap(void *obj, int fd, struct io_uring_params *p,
			    struct io_uring *ring)
{
	(void)obj; (void)fd; (void)p; (void)ring;
	return -EBADF;
}

static void ar_internal_unmap(struct io_uring *ring)
{
	(void)ring;
}

static int ar_internal_setup(unsigned entries, struct io_uring_params *p)
{
	(void)entries; (void)p;
	return -EINVAL;
}

static int ar_internal_close_op(void *obj, int fd)
{
	(void)obj; (void)fd;
	return -EBADF;
}

static const struct ar_engine ar_internal_fd = {
	.internal = true,
	.name	= "internal",
	.setup	= ar_internal_setup,
	.mmap	= ar_internal_mmap,
	.unmap	= ar_internal_unmap,
	.enter	= ar_internal_enter,
	.reg	= ar_internal_reg,
	.close	= ar_internal_close_op,
};

/*
 * A long-lived fd of the library's own moves up, out of the numbers the
 * program would get on the kernel, where a ring costs it one fd: to the
 * first free number at or above ar_fd_floor(), half the soft
 * RLIMIT_NOFILE when first asked (512 under Debian's 1024; 2^19 at
 * most: the engine's table ends at 2^20). Where there is no room there,
 * it stays.
 */
int ar_fd_floor(void)
{
	static int floor;	/* 0: not read yet; racing readers agree */
	struct rlimit rl;
	int f = __atomic_load_n(&floor, __ATOMIC_RELAXED), e = errno;

	if (f)
		return f;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		f = 1024;
	else
		f = rl.rlim_cur / 2 > (1U << 19) ? 1 << 19 : (int)(rl.rlim_cur / 2);
	if (f < 1)
		f = 1;
	errno = e;
	__atomic_store_n(&floor, f, __ATOMIC_RELAXED);
	return f;
}

int ar_fd_high(int fd)
{
	int high, floor, e = errno;

	if (fd < 0)
		return fd;
	floor = ar_fd_floor();
	if (fd >= floor)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	if (high < 0) {
		errno = e;
		return fd;
	}
	close(fd);
	return high;
}

/* an fd of the library's own, marked as such */
int ar_internal_claim(int fd)
{
	if (fd >= 0)
		ar_engine_claim_fd(fd, &ar_internal_fd, NULL);
	return fd;
}

void ar_internal_close(int fd)
{
	if (fd < 0)
		return;
	ar_engine_release_fd(fd);
	close(fd);
}

bool ar_fd_internal(int fd)
{
	return ar_engine_of_fd(fd)->internal;
}
