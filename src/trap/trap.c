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
#include <stdatomic.h>
#include <stdarg.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
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
#include "engine/compat.h"
#include "engine/engine.h"
#include "lib/uaccess.h"
#include "trap/trap.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP	1	/* si_code of a seccomp trap */
#endif

/* SECCOMP_RET_DATA of our traps: si_errno tells them from another filter's */
#define AR_TRAP_DATA	0x0a71U


static bool ar_trap_on;

/* ANYRING_TRAP's routes: all, syscall() only (",syscall"), none (",signal") */
enum ar_trap_ways { AR_WAYS_ALL, AR_WAYS_SYSCALL, AR_WAYS_SIGNAL };

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
 * populated, writable, of an fd at 0, IORING_OFF_CQ_RING,
 * IORING_OFF_SQES, a buffer ring's IORING_OFF_PBUF_RING or the parameter
 * region's IORING_MAP_OFF_PARAM_REGION. Requiring all of that keeps other programs' mmaps
 * (and those of a child without libanyring, which inherits the filter
 * but not the handler) out of the trap; for the same reason nothing
 * else is trapped (docs/trap.md). Another architecture (a 32-bit
 * program) and x32 calls pass untouched.
 */
#define AR_F_TRAP	26
#define AR_F_ALLOW	27
/* a jump from instruction at to instruction to */
#define TO(at, to)	((to) - (at) - 1)

static int ar_trap_filter(struct sock_filter *f, size_t max)
{
	unsigned long site = ar_site_ip();
	const struct sock_filter prog[] = {
		/*  0 */ LD(offsetof(struct seccomp_data, arch)),
		/*  1 */ JEQ(AUDIT_ARCH_X86_64, 0, TO(1, AR_F_ALLOW)),
		/*  2 */ LD(AR_DATA_IP_LO),
		/*  3 */ JEQ((__u32)site, 0, TO(3, 6)),
		/*  4 */ LD(AR_DATA_IP_HI),
		/*  5 */ JEQ((__u32)(site >> 32), TO(5, AR_F_ALLOW), 0),
		/*  6 */ LD(offsetof(struct seccomp_data, nr)),
		/*  7 */ JEQ(AR_NR_SETUP, TO(7, AR_F_TRAP), 0),
		/*  8 */ JEQ(AR_NR_ENTER, TO(8, AR_F_TRAP), 0),
		/*  9 */ JEQ(AR_NR_REGISTER, TO(9, AR_F_TRAP), 0),
		/* 10 */ JEQ(SYS_mmap, 0, TO(10, AR_F_ALLOW)),
		/* 11 */ LD(AR_DATA_ARG_LO(3)),
		/* 12 */ JSET(MAP_SHARED, 0, TO(12, AR_F_ALLOW)),
		/* 13 */ JSET(MAP_POPULATE, 0, TO(13, AR_F_ALLOW)),
		/* 14 */ LD(AR_DATA_ARG_LO(2)),
		/* 15 */ JSET(PROT_WRITE, 0, TO(15, AR_F_ALLOW)),
		/* 16 */ LD(AR_DATA_ARG_LO(4)),
		/* 17 */ JEQ(0xffffffffU, TO(17, AR_F_ALLOW), 0),
		/* 18 */ LD(AR_DATA_ARG_HI(5)),
		/* 19 */ JEQ(0, 0, TO(19, AR_F_ALLOW)),
		/* 20 */ LD(AR_DATA_ARG_LO(5)),
		/* 21 */ JSET((__u32)AR_OFF_PBUF_RING, TO(21, AR_F_TRAP), 0),
		/* 22 */ JEQ(IORING_OFF_SQ_RING, TO(22, AR_F_TRAP), 0),
		/* 23 */ JEQ(IORING_OFF_CQ_RING, TO(23, AR_F_TRAP), 0),
		/* 24 */ JEQ(IORING_OFF_SQES, TO(24, AR_F_TRAP), 0),
		/* 25 */ JEQ((__u32)AR_MAP_OFF_PARAM_REGION, TO(25, AR_F_TRAP),
			     TO(25, AR_F_ALLOW)),
		/* 26 */ RET(SECCOMP_RET_TRAP | AR_TRAP_DATA),
		/* 27 */ RET(SECCOMP_RET_ALLOW),
	};

	_Static_assert(sizeof(prog) / sizeof(prog[0]) == AR_F_ALLOW + 1,
		       "the filter's jump targets");
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

/* the kernel's struct sigaction, as rt_sigaction(2) takes it on x86_64 */
struct ar_ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	__u64 mask;
};

#define AR_SIGBIT(sig)	(1ULL << ((sig) - 1))
#define AR_KSIGSET	8	/* rt_sigaction's sigsetsize */

/*
 * SIGSYS as the program set it: what it had when the trap was
 * installed, then what it asked for through the preload shim
 * (anyring_trap_sigaction()); the kernel's stays the trap's handler.
 * Traps that are not ours go there. A writer fills a slot of its own and
 * publishes its index; a reader copies the published slot. A slot is
 * reused only after AR_DISP_SLOTS more writes, so a copy is not torn
 * unless SIGSYS is set that often while a trap that is not ours is
 * being delivered: programs set it a handful of times.
 */
#define AR_DISP_SLOTS	64
static struct ar_ksigaction ar_disp[AR_DISP_SLOTS];
static unsigned ar_disp_next = 1;	/* slot 0: the one at install */
static unsigned ar_disp_cur;

static void ar_disp_get(struct ar_ksigaction *ka)
{
	/* acquire pairs with the release in ar_disp_set(): the slot is filled */
	*ka = ar_disp[__atomic_load_n(&ar_disp_cur, __ATOMIC_ACQUIRE)];
}

/* set *ka; *old (if not NULL) gets the one it replaced */
static void ar_disp_set(const struct ar_ksigaction *ka,
			struct ar_ksigaction *old)
{
	unsigned i = __atomic_fetch_add(&ar_disp_next, 1, __ATOMIC_RELAXED) %
		     AR_DISP_SLOTS;

	ar_disp[i] = *ka;
	/* release pairs with ar_disp_get(); acquire: the replaced slot's contents */
	i = __atomic_exchange_n(&ar_disp_cur, i, __ATOMIC_ACQ_REL);
	if (old)
		*old = ar_disp[i];
}

/*
 * A SIGSYS that is not our trap (another filter's, or one sent with
 * kill(2)): the program's handler (ar_disp), with its mask (but SIGSYS,
 * which must stay deliverable) and SA_RESETHAND, or its default. A trap cannot be ignored: the kernel kills a process that
 * ignores or blocks one.
 */
static void ar_trap_chain(int sig, siginfo_t *si, ucontext_t *uc)
{
	struct ar_ksigaction ka, dfl = { .handler = SIG_DFL };
	__u64 mask;

	ar_disp_get(&ka);
	if (ka.handler == SIG_IGN && si->si_code != SYS_SECCOMP)
		return;
	if (ka.handler == SIG_DFL || ka.handler == SIG_IGN) {
		/* the default action, as if we were not here: the process dies */
		ar_sys_site(SYS_rt_sigaction, SIGSYS, (long)&dfl, 0,
			    AR_KSIGSET, 0, 0);
		ar_sys_site(SYS_tgkill, getpid(), ar_sys_site(SYS_gettid, 0, 0,
			    0, 0, 0, 0), SIGSYS, 0, 0, 0);
		return;
	}
	if (ka.flags & SA_RESETHAND)
		ar_disp_set(&dfl, NULL);
	memcpy(&mask, &uc->uc_sigmask, sizeof(mask));
	mask |= ka.mask & ~AR_SIGBIT(SIGSYS);
	ar_sys_site(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0,
		    AR_KSIGSET, 0, 0);
	if (ka.flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))ka.handler)(sig, si, uc);
	else
		((void (*)(int))ka.handler)(sig);
	/* sigreturn restores the mask from uc */
}

/*
 * The trap's own stack, one per thread, made on its first trap: the
 * program may make its call on a small stack (a coroutine's, a green
 * thread's, an alternate signal stack), and serving a call can take
 * tens of KiB (setup starts threads). Freed when the thread exits.
 */
/* patch.c's entry reads both (initial-exec TLS) to switch stacks itself */
__attribute__((visibility("hidden"))) __thread char *ar_trap_stack;
__attribute__((visibility("hidden"))) __thread unsigned ar_trap_depth;
static pthread_key_t ar_trap_stack_key;

static void ar_trap_stack_free(void *stack)
{
	munmap(stack, AR_TRAP_STACK);
}

static char *ar_trap_stack_get(void)
{
	void *m;

	if (ar_trap_stack)
		return ar_trap_stack;
	m = mmap(NULL, AR_TRAP_STACK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE,
		 -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	/* a guard page at the bottom: an overflow faults */
	mprotect(m, 4096, PROT_NONE);
	ar_trap_stack = m;
	pthread_setspecific(ar_trap_stack_key, m);
	return ar_trap_stack;
}

/* fn(arg) with the stack pointer at top (16-byte aligned) */
long ar_trap_on_stack(long (*fn)(void *), void *arg, void *top);
__asm__(".text\n"
	".hidden ar_trap_on_stack\n"
	".globl ar_trap_on_stack\n"
	".type ar_trap_on_stack, @function\n"
	"ar_trap_on_stack:\n"
	"	.cfi_startproc\n"
	"	pushq %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	movq %rdx, %rsp\n"
	"	movq %rdi, %rax\n"
	"	movq %rsi, %rdi\n"
	"	call *%rax\n"
	"	movq %rbp, %rsp\n"
	"	popq %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size ar_trap_on_stack, .-ar_trap_on_stack\n");

/* one of the calls the trap serves, with the system call's arguments */
long ar_trap_route(long nr, long a1, long a2, long a3, long a4,
			  long a5, long a6)
{
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

long ar_trap_serve(void *arg)
{
	const struct ar_trap_args *c = arg;
	long ret;

	if (c->ip && c->nr != SYS_mmap)
		ar_trap_patch_prepare(c->ip);
	ret = ar_trap_route(c->nr, c->a[0], c->a[1], c->a[2], c->a[3],
			    c->a[4], c->a[5]);
	ar_trap_seen(c->nr, c->a[0], ret, c->way);
	if (c->ip && c->nr != SYS_mmap)
		ar_trap_patch(c->ip, c->nr);
	return ret;
}

/*
 * fn(args) on the trap's stack. A call made while one is being served
 * (a program's signal handler interrupted it) is served where it is,
 * already on that stack.
 */
long ar_trap_serve_on_stack(long (*fn)(void *), struct ar_trap_args *args)
{
	char *stack = ar_trap_depth ? NULL : ar_trap_stack_get();
	long ret;

	ar_trap_depth++;
	if (stack)
		ret = ar_trap_on_stack(fn, args, stack + AR_TRAP_STACK);
	else
		ret = fn(args);
	ar_trap_depth--;
	return ret;
}

/* ANYRING_DEBUG, read once at install: ar_trap_seen() reports */
static bool ar_trap_debug;

/* ring fds whose first call of each kind by each route was reported */
#define AR_SEEN_FDS	1024
static unsigned short ar_trap_seen_fd[AR_SEEN_FDS];

void ar_trap_seen(long nr, long a1, long ret, enum ar_trap_way way)
{
	static const char *const ways[] = {
		[AR_ROUTE_SIGNAL] = "the signal",
		[AR_ROUTE_SYSCALL] = "syscall() as a function call",
		[AR_ROUTE_SITE] = "a rewritten call site",
	};
	long fd = nr == AR_NR_SETUP ? ret : a1;
	unsigned short bit;

	if (!ar_trap_debug || fd < 0 || fd >= AR_SEEN_FDS ||
	    nr < AR_NR_SETUP || nr > AR_NR_REGISTER)
		return;
	bit = (unsigned short)(1U << (way * 3 + (unsigned)(nr - AR_NR_SETUP)));
	/* relaxed: a report, racing only with another report */
	if (nr == AR_NR_SETUP)
		__atomic_store_n(&ar_trap_seen_fd[fd], 0, __ATOMIC_RELAXED);
	if (__atomic_fetch_or(&ar_trap_seen_fd[fd], bit, __ATOMIC_RELAXED) & bit)
		return;
	ar_debug("trap: ring fd %ld: first %s served through %s", fd,
		 ar_trap_nr_name(nr), ways[way]);
}

/*
 * The dynamic route: libc's syscall(), through which libuv, Rust's libc
 * crate and others make io_uring's calls. libanyring defines it,
 * unversioned (as the poll hooks, engine/pollhook.c), so it binds a
 * program's references whether the library is preloaded or linked.
 * While the trap is installed with its fast routes (ar_trap_fast),
 * io_uring_setup, _enter and _register are served here as a function
 * call, as the SIGSYS handler would serve them; any other number, and
 * every call without the trap, goes to libc's syscall() with the
 * registers and stack as the program left them. Its answer is
 * syscall(2)'s: -1 and errno for -4095..-1.
 *
 * syscall() is variadic and its callers pass as many arguments as the
 * system call takes, so it is written in assembly: it reads no argument
 * the caller did not pass, and hands the others on untouched (a tail
 * jump), as glibc's own syscall() does.
 */
__attribute__((visibility("hidden"))) bool ar_trap_fast;

typedef long syscall_fn(long, ...);
__attribute__((visibility("hidden"))) _Atomic(syscall_fn *) ar_real_syscall;

/* libc's syscall(); NULL when there is none (then ar_syscall_nosys()) */
__attribute__((visibility("hidden"), used))
syscall_fn *ar_real_syscall_lookup(void)
{
	syscall_fn *fn = (syscall_fn *)dlsym(RTLD_NEXT, "syscall");
	void *h;

	if (!fn) {
		h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			fn = (syscall_fn *)dlsym(h, "syscall");
			dlclose(h);
		}
	}
	/* relaxed: the same value whoever stores it */
	atomic_store_explicit(&ar_real_syscall, fn, memory_order_relaxed);
	return fn;
}

__attribute__((visibility("hidden"), used))
long ar_syscall_nosys(void)
{
	errno = ENOSYS;
	return -1;
}

/*
 * io_uring's calls, from syscall() below: the caller passed two
 * (setup), six (enter) or four (register) arguments after nr; a6, the
 * seventh parameter, is read only for enter.
 */
__attribute__((visibility("hidden"), used))
long ar_trap_syscall(long nr, long a1, long a2, long a3, long a4, long a5,
		     long a6)
{
	long ret;

	if (nr == AR_NR_ENTER)
		ret = ar_trap_route(nr, a1, a2, a3, a4, a5, a6);
	else
		ret = ar_trap_route(nr, a1, a2, a3, a4, 0, 0);
	ar_trap_seen(nr, a1, ret, AR_ROUTE_SYSCALL);
	if (ret < 0 && ret >= -4095) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

__asm__(".text\n"
	".globl syscall\n"
	".type syscall, @function\n"
	"syscall:\n"
	"	.cfi_startproc\n"
	"	cmpq $" AR_STR(AR_NR_SETUP) ", %rdi\n"
	"	jb 2f\n"
	"	cmpq $" AR_STR(AR_NR_REGISTER) ", %rdi\n"
	"	ja 2f\n"
	/* a byte set once, before any ring exists: read plainly */
	"	cmpb $0, ar_trap_fast(%rip)\n"
	"	je 2f\n"
	"	jmp ar_trap_syscall\n"
	"2:	movq ar_real_syscall(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jz 3f\n"
	"	jmp *%rax\n"
	/* not looked up yet: keep the argument registers across the lookup */
	"3:	pushq %rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rsi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rdx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rcx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %r8\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %r9\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	subq $8, %rsp\n"	/* a call at a 16-byte boundary */
	"	.cfi_adjust_cfa_offset 8\n"
	"	call ar_real_syscall_lookup\n"
	"	addq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %r9\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %r8\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rcx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rdx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rsi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	testq %rax, %rax\n"
	"	jz 4f\n"
	"	jmp *%rax\n"
	"4:	jmp ar_syscall_nosys\n"
	"	.cfi_endproc\n"
	".size syscall, .-syscall\n");

/*
 * The SIGSYS handler. A seccomp trap is synchronous: it runs in the
 * thread that made the call, at the call, as if the program had called
 * the library there. The result goes where the system call's would
 * (rax); errno is the program's, untouched. The call is served on the
 * trap's stack. With the inline route on, the site of an io_uring call
 * is then rewritten (patch.c), so that its next calls skip the signal.
 */
static void ar_trap_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	const greg_t *g = uc->uc_mcontext.gregs;
	struct ar_trap_args c = {
		.nr = si->si_syscall,
		.a = { g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10],
		       g[REG_R8], g[REG_R9] },
		.way = AR_ROUTE_SIGNAL,
		.ip = (unsigned long)g[REG_RIP],
	};
	int saved = errno;
	long ret;

	if (si->si_code != SYS_SECCOMP || si->si_errno != (int)AR_TRAP_DATA ||
	    si->si_arch != AUDIT_ARCH_X86_64) {
		ar_trap_chain(sig, si, ucv);
		errno = saved;
		return;
	}
	ret = ar_trap_serve_on_stack(ar_trap_serve, &c);
	uc->uc_mcontext.gregs[REG_RAX] = ret;
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
	if (pthread_key_create(&ar_trap_stack_key, ar_trap_stack_free))
		return -EAGAIN;
	/* what the program had: traps not ours go there (ar_trap_chain()) */
	if (ar_sys_site(SYS_rt_sigaction, SIGSYS, 0, (long)&ar_disp[0],
			AR_KSIGSET, 0, 0))
		return -EINVAL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ar_trap_sigsys;
	/*
	 * SA_NODEFER: a signal handler of the program's that interrupts a
	 * wait we serve may itself make a trapped call. A blocked SIGSYS
	 * would make the kernel kill the process instead. SA_ONSTACK: the
	 * kernel's signal frame goes on the thread's alternate stack if it
	 * has one (a goroutine's stack is too small for it); the handler
	 * then moves to its own stack.
	 */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL))
		return -errno;
	/* rings made from here on are mappable by the program */
	__atomic_store_n(&ar_trap_on, true, __ATOMIC_RELAXED);
	if ((prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 &&
	     prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &prog)) {
		int err = errno ? -errno : -EBUSY;

		__atomic_store_n(&ar_trap_on, false, __ATOMIC_RELAXED);
		ar_sys_site(SYS_rt_sigaction, SIGSYS, (long)&ar_disp[0], 0,
			    AR_KSIGSET, 0, 0);
		return err;
	}
	return 0;
}

/* the thread asked for SIGSYS blocked: how its mask reads back */
static __thread bool ar_trap_sys_blocked;

/*
 * The preload shim's hooks (libanyring-sig.so, src/trap/sigshim.c):
 * libc's sigaction() for SIGSYS and its mask calls, made by a program
 * while the trap is installed. The trap stays SIGSYS's handler and
 * SIGSYS stays unblocked (a trap with SIGSYS blocked kills the process);
 * the program reads back what it set. 1: not the trap's (the shim calls
 * libc).
 */
__attribute__((visibility("default")))
int anyring_trap_sigaction(int sig, const struct sigaction *act,
			   struct sigaction *oact)
{
	struct ar_ksigaction ka, old;
	struct sigaction sa;

	if (sig != SIGSYS || !ar_trap_active())
		return 1;
	if (!act) {
		ar_disp_get(&old);
	} else {
		if (ar_copy_from_user(&sa, act, sizeof(sa))) {
			errno = EFAULT;
			return -1;
		}
		memset(&ka, 0, sizeof(ka));
		ka.handler = (void *)sa.sa_handler;
		ka.flags = (unsigned long)(unsigned)sa.sa_flags;
		memcpy(&ka.mask, &sa.sa_mask, sizeof(ka.mask));
		ka.mask &= ~(AR_SIGBIT(SIGKILL) | AR_SIGBIT(SIGSTOP));
		ar_disp_set(&ka, &old);
	}
	if (oact) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = (void (*)(int))old.handler;
		sa.sa_flags = (int)old.flags;
		memcpy(&sa.sa_mask, &old.mask, sizeof(old.mask));
		if (ar_copy_to_user(oact, &sa, sizeof(sa))) {
			errno = EFAULT;
			return -1;
		}
	}
	return 0;
}

/*
 * sigprocmask()/pthread_sigmask(how, set, ...): *copy gets set without
 * SIGSYS, for the shim to pass on; *was_blocked whether the thread had
 * asked for SIGSYS blocked (its old mask reads back with it). 0, 1 (not
 * the trap's) or -errno.
 */
__attribute__((visibility("default")))
int anyring_trap_sigmask(int how, const sigset_t *set, sigset_t *copy,
			 int *was_blocked)
{
	if (!ar_trap_active())
		return 1;
	*was_blocked = ar_trap_sys_blocked;
	if (!set)
		return 0;
	if (ar_copy_from_user(copy, set, sizeof(*copy)))
		return -EFAULT;
	switch (how) {
	case SIG_BLOCK:
		if (sigismember(copy, SIGSYS))
			ar_trap_sys_blocked = true;
		break;
	case SIG_UNBLOCK:
		if (sigismember(copy, SIGSYS))
			ar_trap_sys_blocked = false;
		break;
	case SIG_SETMASK:
		ar_trap_sys_blocked = sigismember(copy, SIGSYS);
		break;
	default:
		return -EINVAL;
	}
	sigdelset(copy, SIGSYS);
	return 0;
}

/*
 * The trap is installed: turn the fast routes on, those asked for. Says
 * which are on, for ANYRING_DEBUG.
 */
static const char *ar_trap_route_fast(enum ar_trap_ways ways)
{
	ar_trap_debug = ar_debug_enabled();
	if (ways == AR_WAYS_SIGNAL)
		return "the signal only (ANYRING_TRAP ,signal)";
	/*
	 * relaxed, as syscall()'s plain cmpb that reads it: the flag only
	 * picks a route, and the SIGSYS trap serving the other one is
	 * installed before it is set; a thread that sees it late takes
	 * the signal once more, with the same answer
	 */
	__atomic_store_n(&ar_trap_fast, true, __ATOMIC_RELAXED);
	if (ways == AR_WAYS_SYSCALL)
		return "syscall() as a function call, else the signal "
		       "(ANYRING_TRAP ,syscall)";
	if (!ar_trap_patch_init())
		return "syscall() as a function call, else the signal "
		       "(no call site is rewritten: membarrier's SYNC_CORE "
		       "is refused)";
	return "syscall() as a function call, a call site rewritten once "
	       "it has trapped, else the signal";
}

#define AR_TRAP_ARCH_OK	1
#else
static int ar_trap_install(void)
{
	return -EOPNOTSUPP;
}

static const char *ar_trap_route_fast(enum ar_trap_ways ways)
{
	(void)ways;
	return "none";
}

__attribute__((visibility("default")))
int anyring_trap_sigaction(int sig, const struct sigaction *act,
			   struct sigaction *oact)
{
	(void)sig; (void)act; (void)oact;
	return 1;
}

__attribute__((visibility("default")))
int anyring_trap_sigmask(int how, const sigset_t *set, sigset_t *copy,
			 int *was_blocked)
{
	(void)how; (void)set; (void)copy; (void)was_blocked;
	return 1;
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
/*
 * ANYRING_TRAP: 0, 1 or auto, then ",signal" to keep the fast routes off
 * or ",syscall" to keep only syscall()'s ("signal" alone is
 * "auto,signal", "syscall" "auto,syscall"): into base, and *ways
 */
static const char *ar_trap_mode(char *base, size_t sz,
				enum ar_trap_ways *ways)
{
	const char *mode = secure_getenv("ANYRING_TRAP");
	const char *comma, *rest;

	*ways = AR_WAYS_ALL;
	if (!mode)
		return NULL;
	comma = strchr(mode, ',');
	rest = comma ? comma + 1 : mode;
	if (!strcmp(rest, "signal"))
		*ways = AR_WAYS_SIGNAL;
	else if (!strcmp(rest, "syscall"))
		*ways = AR_WAYS_SYSCALL;
	else
		return mode;
	if (!comma)
		return "auto";
	snprintf(base, sz, "%.*s", (int)(comma - mode), mode);
	return base;
}

static bool ar_trap_wanted(const char *mode, char *why, size_t sz)
{
	const char *engine = secure_getenv("ANYRING_ENGINE");
	const struct ar_engine *e;
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
	e = engine ? ar_engine_named(engine) : NULL;
	if (e) {
		/* an in-process engine's rings exist only if calls reach it */
		snprintf(why, sz, "auto: ANYRING_ENGINE=%s", e->name);
		return e->in_process;
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
	char why[128], base[16];
	enum ar_trap_ways ways;
	const char *mode = ar_trap_mode(base, sizeof(base), &ways);
	const char *routes;
	int ret;

	if (!ar_trap_wanted(mode, why, sizeof(why))) {
		ar_debug("trap: not installed (%s)", why);
		return;
	}
	if (!AR_TRAP_ARCH_OK) {
		ar_debug("trap: not installed (%s): not supported on this "
			 "architecture", why);
		return;
	}
	ret = ar_trap_install();
	if (ret) {
		ar_debug("trap: not installed (%s): %s", why, strerror(-ret));
		return;
	}
	routes = ar_trap_route_fast(ways);
	ar_debug("trap: installed (%s): io_uring's system calls made "
		 "outside liburing are served by the engines; routes: %s", why,
		 routes);
}
