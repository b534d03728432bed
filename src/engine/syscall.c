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

/*
 * The site: the one instruction the library makes io_uring's system
 * calls from (and its mmaps of ring memory). The system-call trap
 * (src/trap/) lets calls from here through and traps the same calls made
 * anywhere else, so the library never traps itself. Arguments as
 * syscall(2); the kernel's result, a value or -errno, errno untouched.
 */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl ar_site_syscall6\n"
	".hidden ar_site_syscall6\n"
	".type ar_site_syscall6, @function\n"
	"ar_site_syscall6:\n"
	"	movq %rdi, %rax\n"
	"	movq %rsi, %rdi\n"
	"	movq %rdx, %rsi\n"
	"	movq %rcx, %rdx\n"
	"	movq %r8, %r10\n"
	"	movq %r9, %r8\n"
	"	movq 8(%rsp), %r9\n"
	"	syscall\n"
	".globl ar_site_ret\n"
	".hidden ar_site_ret\n"
	"ar_site_ret:\n"
	"	ret\n"
	".size ar_site_syscall6, .-ar_site_syscall6\n");
#else
long ar_site_syscall6(long n, long a1, long a2, long a3, long a4, long a5,
		      long a6)
{
	return ar_raw_syscall6(n, a1, a2, a3, a4, a5, a6);
}

const char ar_site_ret[1];	/* no trap on this architecture */
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
	return (int)ar_site_syscall6(__NR_io_uring_setup, entries, (long)p,
				     0, 0, 0, 0);
}

/* on every I/O path: the raw system call, no errno round trip */
int ar_sys_enter(unsigned fd, unsigned to_submit, unsigned min_complete,
		 unsigned flags, const void *arg, size_t argsz)
{
	return (int)ar_site_syscall6(__NR_io_uring_enter, fd, to_submit,
				     min_complete, flags, (long)arg, (long)argsz);
}

int ar_sys_register(unsigned fd, unsigned opcode, const void *arg,
		    unsigned nr_args)
{
	return (int)ar_site_syscall6(__NR_io_uring_register, fd, opcode,
				     (long)arg, nr_args, 0, 0);
}

/* mmap(2) from the site: ring memory, never trapped; -errno on failure */
void *ar_sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	return (void *)ar_site_syscall6(SYS_mmap, (long)addr, (long)len, prot,
					flags, fd, (long)off);
}

int ar_sys_close(int fd)
{
	int e = errno;

	return ar_syscall_ret(close(fd), e);
}
