/* SPDX-License-Identifier: MIT */
/*
 * trap.c - io_uring's system calls made by code that never calls
 * liburing: fio, libuv, Rust's io-uring crate, liburing linked in
 * statically. Interposing liburing's symbols cannot reach them, so where
 * io_uring is refused (or the user engine is forced) a seccomp filter
 * traps their io_uring_setup, io_uring_enter and io_uring_register, and
 * their mmap of a ring fd, and a SIGSYS handler serves each call through
 * the engine seam, as the system call would have.
 *
 * The library's own calls never trap: they all leave from one
 * instruction (the site, syscall.c), which the filter lets through by
 * its address. SECCOMP_RET_TRAP takes precedence over a container
 * profile's SECCOMP_RET_ERRNO, so the trap works inside Docker's default
 * profile; the site's own io_uring calls still get the profile's errno,
 * which is how the seam learns io_uring is refused.
 *
 * docs/trap.md says what runs in signal context and why that is safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "engine/engine.h"
#include "trap/trap.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP	1	/* si_code of a seccomp trap */
#endif

/* SECCOMP_RET_DATA of our traps: si_errno tells them from another filter's */
#define AR_TRAP_DATA	0x0a71U

#define AR_NR_SETUP	425
#define AR_NR_ENTER	426
#define AR_NR_REGISTER	427

static bool ar_trap_on;
/* SIGSYS as the program had it: traps that are not ours go there */
static struct sigaction ar_trap_prev;

bool ar_trap_active(void)
{
	/* set once, in the constructor, before any ring exists */
	return __atomic_load_n(&ar_trap_on, __ATOMIC_RELAXED);
}

#if defined(__x86_64__)

#define AR_DATA_ARG_LO(i)	(offsetof(struct seccomp_data, args) + 8 * (i))
#define AR_DATA_ARG_HI(i)	(AR_DATA_ARG_LO(i) + 4)
#define AR_DATA_IP_LO		offsetof(struct seccomp_data, instruction_pointer)
#define AR_DATA_IP_HI		(AR_DATA_IP_LO + 4)

#define LD(off)		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JSET(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define RET(k)		BPF_STMT(BPF_RET | BPF_K, (k))

/*
 * Trap io_uring's three calls, and a program's mmap of a ring, from
 * anywhere but the site. A ring mmap is how every io_uring program maps
 * one (liburing, fio, libuv, Rust's io-uring crate, Zig, Go's): shared,
 * populated, writable, of an fd at 0, IORING_OFF_CQ_RING or
 * IORING_OFF_SQES. Requiring all of that keeps other programs' mmaps
 * (and those of a child without libanyring, which inherits the filter
 * but not the handler) out of the trap. Jumps are relative: the targets
 * are TRAP (24) and ALLOW (25). Another architecture (a 32-bit program)
 * and x32 calls pass untouched.
 */
static int ar_trap_filter(struct sock_filter *f, size_t max)
{
	unsigned long site = ar_site_ip();
	const struct sock_filter prog[] = {
		/*  0 */ LD(offsetof(struct seccomp_data, arch)),
		/*  1 */ JEQ(AUDIT_ARCH_X86_64, 0, 23),
		/*  2 */ LD(AR_DATA_IP_LO),
		/*  3 */ JEQ((__u32)site, 0, 2),
		/*  4 */ LD(AR_DATA_IP_HI),
		/*  5 */ JEQ((__u32)(site >> 32), 19, 0),
		/*  6 */ LD(offsetof(struct seccomp_data, nr)),
		/*  7 */ JEQ(AR_NR_SETUP, 16, 0),
		/*  8 */ JEQ(AR_NR_ENTER, 15, 0),
		/*  9 */ JEQ(AR_NR_REGISTER, 14, 0),
		/* 10 */ JEQ(SYS_mmap, 0, 14),
		/* 11 */ LD(AR_DATA_ARG_LO(3)),
		/* 12 */ JSET(MAP_SHARED, 0, 12),
		/* 13 */ JSET(MAP_POPULATE, 0, 11),
		/* 14 */ LD(AR_DATA_ARG_LO(2)),
		/* 15 */ JSET(PROT_WRITE, 0, 9),
		/* 16 */ LD(AR_DATA_ARG_LO(4)),
		/* 17 */ JEQ(0xffffffffU, 7, 0),
		/* 18 */ LD(AR_DATA_ARG_HI(5)),
		/* 19 */ JEQ(0, 0, 5),
		/* 20 */ LD(AR_DATA_ARG_LO(5)),
		/* 21 */ JEQ(IORING_OFF_SQ_RING, 2, 0),
		/* 22 */ JEQ(IORING_OFF_CQ_RING, 1, 0),
		/* 23 */ JEQ(IORING_OFF_SQES, 0, 1),
		/* 24 */ RET(SECCOMP_RET_TRAP | AR_TRAP_DATA),
		/* 25 */ RET(SECCOMP_RET_ALLOW),
	};

	if (max < sizeof(prog) / sizeof(prog[0]))
		return -1;
	memcpy(f, prog, sizeof(prog));
	return (int)(sizeof(prog) / sizeof(prog[0]));
}

/* mmap of a ring fd: the engine's if it owns the ring, else the kernel's */
static long ar_trap_mmap(long addr, long len, long prot, long flags, long fd,
			 long off)
{
	const struct ar_engine *e;
	void *obj;

	e = ar_engine_lookup_file((int)fd, &obj);
	if (obj && e->mmap_raw)
		return e->mmap_raw(obj, (void *)addr, (size_t)len, (int)prot,
				   (int)flags, (off_t)off);
	return (long)ar_sys_mmap((void *)addr, (size_t)len, (int)prot,
				 (int)flags, (int)fd, (off_t)off);
}

static long ar_trap_serve(long nr, const greg_t *g)
{
	long a1 = g[REG_RDI], a2 = g[REG_RSI], a3 = g[REG_RDX];
	long a4 = g[REG_R10], a5 = g[REG_R8], a6 = g[REG_R9];

	switch (nr) {
	case AR_NR_SETUP:
		return ar_engine_setup(NULL, (unsigned)a1,
				       (struct io_uring_params *)a2);
	case AR_NR_ENTER:
		return ar_enter_fd((unsigned)a1, (unsigned)a2, (unsigned)a3,
				   (unsigned)a4, (const void *)a5, (size_t)a6);
	case AR_NR_REGISTER:
		return ar_register_fd((unsigned)a1, (unsigned)a2,
				      (const void *)a3, (unsigned)a4);
	case SYS_mmap:
		return ar_trap_mmap(a1, a2, a3, a4, a5, a6);
	}
	return -ENOSYS;
}

/* a trap another filter set: the program's handler, or its default */
static void ar_trap_chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	if (ar_trap_prev.sa_flags & SA_SIGINFO) {
		ar_trap_prev.sa_sigaction(sig, si, uc);
		return;
	}
	if (ar_trap_prev.sa_handler == SIG_IGN)
		return;
	if (ar_trap_prev.sa_handler != SIG_DFL) {
		ar_trap_prev.sa_handler(sig);
		return;
	}
	/* the default action, as if we were not here: the process dies */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGSYS, &dfl, NULL);
	raise(SIGSYS);
}

/*
 * The SIGSYS handler. A seccomp trap is synchronous: it runs in the
 * thread that made the call, at the call, as if the program had called
 * the library there. The result goes where the system call's would
 * (rax); errno is the program's, untouched.
 */
static void ar_trap_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;

	if (si->si_code != SYS_SECCOMP || si->si_errno != (int)AR_TRAP_DATA ||
	    si->si_arch != AUDIT_ARCH_X86_64) {
		ar_trap_chain(sig, si, ucv);
		errno = saved;
		return;
	}
	uc->uc_mcontext.gregs[REG_RAX] =
		ar_trap_serve(si->si_syscall, uc->uc_mcontext.gregs);
	errno = saved;
}

static int ar_trap_install(void)
{
	struct sock_filter f[32];
	struct sock_fprog prog = { .filter = f };
	struct sigaction sa;
	int n;

	/* the filter names the site's address: it must be the fixed one */
	if (!ar_site_fix())
		return -EADDRINUSE;
	n = ar_trap_filter(f, sizeof(f) / sizeof(f[0]));
	if (n < 0)
		return -EINVAL;
	prog.len = (unsigned short)n;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ar_trap_sigsys;
	/*
	 * SA_NODEFER: a signal handler of the program's that interrupts a
	 * wait we serve may itself make a trapped call. A blocked SIGSYS
	 * would make the kernel kill the process instead.
	 */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, &ar_trap_prev))
		return -errno;
	/* rings made from here on are mappable by the program */
	__atomic_store_n(&ar_trap_on, true, __ATOMIC_RELAXED);
	if ((prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 &&
	     prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &prog)) {
		int err = errno ? -errno : -EBUSY;

		__atomic_store_n(&ar_trap_on, false, __ATOMIC_RELAXED);
		sigaction(SIGSYS, &ar_trap_prev, NULL);
		return err;
	}
	return 0;
}

#define AR_TRAP_ARCH_OK	1
#else
static int ar_trap_install(void)
{
	return -EOPNOTSUPP;
}

#define AR_TRAP_ARCH_OK	0
#endif

/* libanyring was preloaded (LD_PRELOAD or /etc/ld.so.preload), not linked */
static bool ar_trap_preloaded(void)
{
	const char *pre = secure_getenv("LD_PRELOAD");
	char buf[4096];
	ssize_t n;
	int fd;

	if (pre && strstr(pre, "libanyring"))
		return true;
	fd = open("/etc/ld.so.preload", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, "libanyring") != NULL;
}

/*
 * Whether the trap is wanted (ANYRING_TRAP=0|1|auto, auto by default;
 * read with secure_getenv(), as every ANYRING_* variable):
 * auto installs it when libanyring was preloaded into a program and its
 * rings will be user rings (ANYRING_ENGINE=user, or auto with io_uring
 * refused). A program linked with -lanyring calls the library and needs
 * no trap. Sets why for ANYRING_DEBUG.
 */
static bool ar_trap_wanted(char *why, size_t sz)
{
	const char *mode = secure_getenv("ANYRING_TRAP");
	const char *engine = secure_getenv("ANYRING_ENGINE");
	int probe;

	if (mode && !strcmp(mode, "0")) {
		snprintf(why, sz, "ANYRING_TRAP=0");
		return false;
	}
	if (mode && !strcmp(mode, "1")) {
		snprintf(why, sz, "ANYRING_TRAP=1");
		return true;
	}
	if (mode && *mode && strcmp(mode, "auto"))
		ar_debug("trap: ANYRING_TRAP=%s is not 0, 1 or auto: auto", mode);
	if (!ar_trap_preloaded()) {
		snprintf(why, sz, "auto: libanyring is linked, not preloaded");
		return false;
	}
	if (engine && !strcmp(engine, "kernel")) {
		snprintf(why, sz, "auto: ANYRING_ENGINE=kernel");
		return false;
	}
	if (engine && !strcmp(engine, "user")) {
		snprintf(why, sz, "auto: ANYRING_ENGINE=user");
		return true;
	}
	/* io_uring_setup(0, NULL): -EFAULT if allowed, the refusal if not */
	probe = ar_sys_setup(0, NULL);
	if (probe == -EPERM || probe == -EACCES || probe == -ENOSYS) {
		snprintf(why, sz, "auto: the kernel refuses io_uring_setup: %s",
			 strerror(-probe));
		return true;
	}
	snprintf(why, sz, "auto: the kernel serves io_uring");
	return false;
}

__attribute__((constructor))
static void ar_trap_init(void)
{
	char why[128];
	int ret;

	if (!ar_trap_wanted(why, sizeof(why))) {
		ar_debug("trap: not installed (%s)", why);
		return;
	}
	if (!AR_TRAP_ARCH_OK) {
		ar_debug("trap: not installed (%s): not supported on this "
			 "architecture", why);
		return;
	}
	ret = ar_trap_install();
	if (ret)
		ar_debug("trap: not installed (%s): %s", why, strerror(-ret));
	else
		ar_debug("trap: installed (%s): io_uring's system calls made "
			 "outside liburing are served by the engines", why);
}
