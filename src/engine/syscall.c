/* SPDX-License-Identifier: MIT */
/*
 * syscall.c - the io_uring system calls, raw.
 *
 * Like liburing 2.3 these return -errno and leave errno as it was, so a
 * caller's errno is never clobbered by the library.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "engine/engine.h"
#include "lib/sysraw.h"


/*
 * The site: the one instruction the library makes io_uring's system
 * calls from (and its mmaps of ring memory). The system-call trap
 * (src/trap/) lets calls from here through and traps the same calls made
 * anywhere else, so the library never traps itself.
 *
 * A seccomp filter outlives execve(2), and the library in the next
 * program loads at another address: the site must sit at one address in
 * every process, or an inherited filter traps the library's own calls
 * there (before its handler exists: the process dies). So the library
 * copies the site's code to a page at AR_SITE_ADDR, in every process,
 * when it loads, and calls it there. ar_site_syscall6 below is that
 * code, and where calls go if the page cannot be mapped (no trap then).
 * Arguments as syscall(2); the kernel's result, a value or -errno.
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

/* far from where Linux puts programs, heaps, libraries and stacks */
#define AR_SITE_ADDR	0x3f5a00000000UL

long ar_site_syscall6(long n, long a1, long a2, long a3, long a4, long a5,
		      long a6);
extern const char ar_site_ret[];

/*
 * The site in use. Written by ar_site_fix(), which only the library's
 * constructors call: before any thread can call into the library.
 */
static long (*ar_site)(long, long, long, long, long, long, long) =
	ar_site_syscall6;

/* the address right after the site's syscall instruction, or 0 */
static unsigned long ar_site_after;

bool ar_site_fixed;	/* engine.h: ar_sys_enter() */

unsigned long ar_site_ip(void)
{
	return ar_site_after;
}

/*
 * Put the site's page at AR_SITE_ADDR (already there in a forked child,
 * or if another copy of the library got there first: the same code is
 * reused). Without it, calls stay in the library and ar_site_ip() is 0.
 * Idempotent; the first call is the constructor's, before any thread of
 * the library's exists.
 */
bool ar_site_fix(void)
{
	size_t len = (size_t)(ar_site_ret - (const char *)ar_site_syscall6) + 1;
	char *page = (char *)AR_SITE_ADDR;
	void *m;
	int e = errno;

	if (ar_site_after)
		return true;
	m = mmap(page, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == page) {
		memcpy(page, (const void *)ar_site_syscall6, len);
		if (mprotect(page, 4096, PROT_READ | PROT_EXEC)) {
			munmap(page, 4096);
			errno = e;
			return false;
		}
	} else if (m != MAP_FAILED) {
		munmap(m, 4096);	/* a kernel that took the address as a hint */
		errno = e;
		return false;
	} else if (errno != EEXIST || msync(page, 4096, MS_ASYNC) ||
		   memcmp(page, (const void *)ar_site_syscall6, len)) {
		errno = e;
		return false;
	}
	errno = e;
	ar_site = (long (*)(long, long, long, long, long, long, long))page;
	ar_site_after = AR_SITE_ADDR + len - 1;
	/* release: ar_site is written first; pairs with ar_sys_enter() (engine.h) */
	__atomic_store_n(&ar_site_fixed, true, __ATOMIC_RELEASE);
	return true;
}

/*
 * A process under a seccomp filter may have inherited the trap's from
 * the program that executed it: the site goes to its fixed address
 * before the library makes any io_uring call. Without a filter it stays
 * in the library (a syscall instruction at a fixed address would help
 * an attacker defeat ASLR), until the trap itself needs it.
 */
__attribute__((constructor(101)))
static void ar_site_init(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2)
		ar_site_fix();
}
#else
static long ar_site(long n, long a1, long a2, long a3, long a4, long a5,
		    long a6)
{
	return ar_raw_syscall6(n, a1, a2, a3, a4, a5, a6);
}

unsigned long ar_site_ip(void)
{
	return 0;	/* no trap on this architecture */
}

bool ar_site_fix(void)
{
	return false;
}
#endif

static inline int ar_syscall_ret(long ret, int saved_errno)
{
	if (ret >= 0)
		return (int)ret;
	ret = -errno;
	errno = saved_errno;
	return (int)ret;
}

/* any system call from the site: the trap never sees it */
long ar_sys_site(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	return ar_site(n, a1, a2, a3, a4, a5, a6);
}

int ar_sys_setup(unsigned entries, struct io_uring_params *p)
{
	return (int)ar_site(__NR_io_uring_setup, entries, (long)p,
				     0, 0, 0, 0);
}

/* io_uring_enter(2) from the site, once it is fixed (engine.h) */
int ar_sys_enter_site(unsigned fd, unsigned to_submit, unsigned min_complete,
		      unsigned flags, const void *arg, size_t argsz)
{
	return (int)ar_site(__NR_io_uring_enter, fd, to_submit,
				     min_complete, flags, (long)arg, (long)argsz);
}

int ar_sys_register(unsigned fd, unsigned opcode, const void *arg,
		    unsigned nr_args)
{
	return (int)ar_site(__NR_io_uring_register, fd, opcode,
				     (long)arg, nr_args, 0, 0);
}

/* mmap(2) from the site: ring memory, never trapped; -errno on failure */
void *ar_sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	return (void *)ar_site(SYS_mmap, (long)addr, (long)len, prot,
					flags, fd, (long)off);
}

int ar_sys_close(int fd)
{
	int e = errno;

	return ar_syscall_ret(close(fd), e);
}
