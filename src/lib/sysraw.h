/* SPDX-License-Identifier: MIT */
/*
 * sysraw.h - system calls without libc's wrappers, for the per-I/O paths:
 * no errno to save and restore, and no cancellation-point bookkeeping
 * (glibc brackets preadv2 with pthread async-cancel enable/disable). The
 * result is the kernel's: a value, or -errno.
 */
#ifndef ANYRING_LIB_SYSRAW_H
#define ANYRING_LIB_SYSRAW_H

#include <errno.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/syscall.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup	425
#define __NR_io_uring_enter	426
#define __NR_io_uring_register	427
#endif

#if defined(__x86_64__)
static inline long ar_raw_syscall6(long n, long a1, long a2, long a3,
				   long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10),
			       "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline long ar_raw_syscall6(long n, long a1, long a2, long a3,
				   long a4, long a5, long a6)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	register long x4 __asm__("x4") = a5;
	register long x5 __asm__("x5") = a6;

	__asm__ __volatile__("svc 0"
			     : "+r"(x0)
			     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4),
			       "r"(x5)
			     : "memory");
	return x0;
}
#else
static inline long ar_raw_syscall6(long n, long a1, long a2, long a3,
				   long a4, long a5, long a6)
{
	int e = errno;
	long ret = syscall(n, a1, a2, a3, a4, a5, a6);

	if (ret < 0) {
		ret = -errno;
		errno = e;
	}
	return ret;
}
#endif

/* preadv2/pwritev2: the offset goes as (low, high) halves; 64-bit: high 0 */
static inline long ar_raw_rw(bool write, int fd, const struct iovec *iov,
			     int nr, long off, int flags)
{
	return ar_raw_syscall6(write ? SYS_pwritev2 : SYS_preadv2, fd,
			       (long)iov, nr, off, 0, flags);
}

#endif
