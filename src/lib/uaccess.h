/* SPDX-License-Identifier: MIT */
/*
 * uaccess.h - reading and writing application memory without faulting:
 * the kernel's copy_from_user(), copy_to_user(), strncpy_from_user() and
 * check_zeroed_user() for the user engine.
 *
 * Every pointer the engine gets from an SQE, an io_uring_enter() or
 * io_uring_setup() argument that it reads or writes itself goes through
 * these: a pointer that is NULL, unmapped, PROT_NONE, non-canonical or
 * runs into such memory gives -EFAULT, never a signal. A pointer the
 * engine only hands to a system call needs none of this: the call
 * answers -EFAULT itself.
 *
 * The copy is a system call on the process itself: process_vm_readv(2)
 * and process_vm_writev(2) on the process's own pid, which the kernel
 * allows without any ptrace permission (a process may always access its
 * own memory) and which fail with EFAULT where the application's memory
 * is not accessible. If they are refused (a seccomp policy that returns
 * EPERM or ENOSYS for them), checked once on first use, the copies go
 * through a pipe instead: write(2) of the source, read(2) into the
 * destination, which fault as safely. ANYRING_UACCESS=pipe forces that
 * fallback (for tests). docs/architecture.md ("Application memory")
 * gives the costs and why no SIGSEGV handler.
 *
 * Each copy either succeeds whole or answers -EFAULT; what a failed copy
 * left in dst is unspecified. A zero-length copy never faults.
 */
#ifndef ANYRING_LIB_UACCESS_H
#define ANYRING_LIB_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0, or -EFAULT when n bytes at src cannot all be read */
int ar_copy_from_user(void *dst, const void *src, size_t n);

/* 0, or -EFAULT when n bytes at dst cannot all be written */
int ar_copy_to_user(void *dst, const void *src, size_t n);

/*
 * A NUL-terminated string into dst (n bytes): its length without the NUL
 * (the NUL copied too) when a NUL is within the first n bytes; n when
 * there is none (dst holds them, unterminated); -EFAULT when the memory
 * faults before a NUL. Reads only the pages the string occupies.
 */
long ar_strncpy_from_user(char *dst, const char *src, size_t n);

/* 1 if the n bytes at src are all zero, 0 if not, -EFAULT if unreadable */
int ar_check_zeroed_user(const void *src, size_t n);

/*
 * The top of the user address space, taken at its largest (5-level
 * paging on x86-64, 52-bit VAs on arm64): where the kernel runs with
 * fewer bits, an address between the two faults in the system call
 * instead of at prep. No probe: a sanitizer refuses mappings at such
 * addresses.
 */
#if defined(__x86_64__)
#define AR_USER_MAX	((1UL << 56) - 4096 - 1)
#else
#define AR_USER_MAX	((1UL << 52) - 1)
#endif

/*
 * The kernel's access_ok(): does [p, p + n) lie below the top of the
 * user address space? Arithmetic only, no access: a non-canonical or
 * kernel address fails it.
 */
static inline bool ar_access_ok(const void *p, size_t n)
{
	uintptr_t end;

	if (__builtin_add_overflow((uintptr_t)p, n, &end))
		return false;
	return end <= AR_USER_MAX;
}

#endif
