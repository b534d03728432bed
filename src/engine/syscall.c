/* SPDX-License-Identifier: MIT */
/*
 * syscall.c - the io_uring system calls, raw.
 *
 * Like liburing 2.3 these return -errno and leave errno as it was, so a
 * caller's errno is never clobbered by the library.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "engine/engine.h"
#include "engine/sysraw.h"

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup	425
#define __NR_io_uring_enter	426
#define __NR_io_uring_register	427
#endif

static inline int ar_syscall_ret(long ret, int saved_errno)
{
	if (ret >= 0)
		return (int)ret;
	ret = -errno;
	errno = saved_errno;
	return (int)ret;
}

int ar_sys_setup(unsigned entries, struct io_uring_params *p)
{
	int e = errno;

	return ar_syscall_ret(syscall(__NR_io_uring_setup, entries, p), e);
}

/* on every I/O path: the raw system call, no errno round trip */
int ar_sys_enter(unsigned fd, unsigned to_submit, unsigned min_complete,
		 unsigned flags, const void *arg, size_t argsz)
{
	return (int)ar_raw_syscall6(__NR_io_uring_enter, fd, to_submit,
				    min_complete, flags, (long)arg, (long)argsz);
}

int ar_sys_register(unsigned fd, unsigned opcode, const void *arg,
		    unsigned nr_args)
{
	int e = errno;

	return ar_syscall_ret(syscall(__NR_io_uring_register, fd, opcode, arg,
				      nr_args), e);
}

int ar_sys_close(int fd)
{
	int e = errno;

	return ar_syscall_ret(close(fd), e);
}
