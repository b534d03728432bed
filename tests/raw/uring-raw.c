/* SPDX-License-Identifier: MIT */
/*
 * uring-raw.c - io_uring as programs that never call liburing use it
 * (fio, libuv, Rust's io-uring crate): the system calls, the ring mapped
 * with mmap(2) at io_uring's offsets, SQEs and CQEs read and written in
 * that memory. Run by tests/trap.sh on the kernel and, with io_uring
 * refused, on the user engine through the system-call trap.
 *
 * It submits a NOP, a READ of a file it wrote, a registered-file READ
 * and a READV with a bad iovec array, and checks every CQE; bad setup,
 * enter and register arguments must get the kernel's errnos. Exit 0 and
 * "uring-raw: ok" on success.
 *
 *   uring-raw            in main
 *   uring-raw blocked-but-sigsys    with every other signal blocked
 *   uring-raw altstack              inside a SIGUSR1 handler on a 32 KiB
 *                                   sigaltstack
 *   uring-raw blocked-all           with every signal blocked, SIGSYS too,
 *                                   in main and in a thread started so
 *                                   (the mask must read back that way)
 *   uring-raw own-sigsys            with the program's own SIGSYS handler
 *                                   and seccomp filter (for getppid),
 *                                   set after the library's
 *   uring-raw small-stack           on an 8 KiB coroutine stack
 *   uring-raw poll-ringfd           an event loop's way: submit without
 *                                   waiting, poll the ring fd, reap from
 *                                   memory; the fd must then stop polling
 *                                   readable (within 10 s: the user
 *                                   engine's service thread resets it)
 *   uring-raw pbuf-mmap             a buffer ring the ring maps
 *                                   (IOU_PBUF_RING_MMAP), mapped at
 *                                   IORING_OFF_PBUF_RING, fed a READ
 *   uring-raw nops N                N NOPs, one enter each; prints ns/NOP
 *                                   (what a trapped enter costs)
 *   uring-raw close-reuse           rings closed with close(2), their fd
 *                                   numbers reused: no ring is left behind
 *   uring-raw close-index           a ring whose fd is closed lives on
 *                                   through its registered index, and
 *                                   ends when that index is unregistered
 *   uring-raw regs                  a register call made inline keeps every
 *                                   register the system call keeps: the
 *                                   argument registers, rbx and r12-r15,
 *                                   rflags (DF set), and the vector
 *                                   registers (zmm0-31 and k0-7 with
 *                                   AVX-512, ymm0-15 with AVX, else xmm)
 *   uring-raw text                  prints whether the program's text
 *                                   changed over 100 NOPs ("text: changed"
 *                                   or "text: unchanged")
 *   uring-raw threads               4 threads, 2000 NOPs each, through the
 *                                   same call site from the start
 *   uring-raw jump-in               an enter site also reached by a jump
 *                                   to its syscall instruction
 *   uring-raw rex-site              enter sites with `mov $426, %r8d`
 *                                   (41 b8 ...) or `movq $426, -0x48(%rsp)`
 *                                   (48 c7 44 24 b8 ...) between their mov
 *                                   and their syscall: a b8 that is no mov
 *   uring-raw fork                  NOPs, then a forked child's NOPs on a
 *                                   ring of its own, this program spawned
 *                                   (posix_spawn: vfork and exec), then
 *                                   the parent's NOPs again
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <spawn.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>

#define NR_SETUP	425
#define NR_ENTER	426
#define NR_REGISTER	427

/*
 * io_uring's three calls: through libc's syscall(), as fio, libuv and
 * Rust's libc crate make them; built with -DRAW_INLINE, with the
 * instruction inline (`mov $nr, %eax` then `syscall`, as liburing.a and
 * fio's own enter have it), which the trap serves through the signal
 * and then through the rewritten site. Either way, syscall(2)'s answer.
 */
#ifdef RAW_INLINE
#define RAW_SYSCALL(nr, a1, a2, a3, a4, a5, a6) ({			\
	register long r10_ __asm__("r10") = (long)(a4);			\
	register long r8_ __asm__("r8") = (long)(a5);			\
	register long r9_ __asm__("r9") = (long)(a6);			\
	long ret_;							\
	__asm__ __volatile__("movl $" #nr ", %%eax\n\tsyscall"		\
			     : "=a"(ret_)					\
			     : "D"((long)(a1)), "S"((long)(a2)),		\
			       "d"((long)(a3)), "r"(r10_), "r"(r8_),	\
			       "r"(r9_)					\
			     : "rcx", "r11", "memory");			\
	ret_ < 0 && ret_ > -4096 ? (errno = (int)-ret_, -1L) : ret_; })
#define sys_setup(e, p)			RAW_SYSCALL(425, e, p, 0, 0, 0, 0)
#define sys_enter(fd, n, m, f, a, sz)	RAW_SYSCALL(426, fd, n, m, f, a, sz)
#define sys_register(fd, op, a, n)	RAW_SYSCALL(427, fd, op, a, n, 0, 0)
#elif defined(RAW_LIB)
/* liburing's functions for the calls, from -lanyring: the linked path */
#include <liburing.h>
#define RAW_RET(x) ({ long r_ = (x); r_ < 0 ? (errno = (int)-r_, -1L) : r_; })
#define sys_setup(e, p)			RAW_RET(io_uring_setup(e, p))
#define sys_enter(fd, n, m, f, a, sz)	RAW_RET(io_uring_enter2(fd, n, m, f, (void *)(a), sz))
#define sys_register(fd, op, a, n)	RAW_RET(io_uring_register(fd, op, a, n))
#else
#define sys_setup(e, p)			syscall(NR_SETUP, e, p)
#define sys_enter(fd, n, m, f, a, sz)	syscall(NR_ENTER, fd, n, m, f, a, sz)
#define sys_register(fd, op, a, n)	syscall(NR_REGISTER, fd, op, a, n)
#endif

#define FAIL(...) do { fprintf(stderr, "uring-raw: " __VA_ARGS__); \
		       fputc('\n', stderr); exit(1); } while (0)

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned tail;
	void *sq, *cq;
	size_t sq_len, cq_len, sqes_len;
};

static void *map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, off);

	if (p == MAP_FAILED)
		FAIL("mmap at %#lx: %s", (unsigned long)off, strerror(errno));
	return p;
}

static unsigned sq_idle_ms;	/* an SQPOLL ring's sq_thread_idle; 0: default */

static void ring_init_flags(struct ring *r, unsigned entries, unsigned flags)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = sq_idle_ms;
	r->fd = (int)sys_setup(entries, &p);
	if (r->fd < 0)
		FAIL("io_uring_setup: %s", strerror(errno));
	/* the CQ ring mapped on its own, as programs that ignore SINGLE_MMAP do */
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sq = sq = map(r->fd, r->sq_len, IORING_OFF_SQ_RING);
	r->cq = cq = map(r->fd, r->cq_len, IORING_OFF_CQ_RING);
	r->sqes = map(r->fd, r->sqes_len, IORING_OFF_SQES);
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	r->tail = *r->sq_tail;
}

static void ring_init(struct ring *r, unsigned entries)
{
	ring_init_flags(r, entries, 0);
}

static struct io_uring_sqe *sqe_get(struct ring *r, __u8 op, __u64 ud)
{
	unsigned i = r->tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->user_data = ud;
	r->sq_array[i] = i;
	r->tail++;
	return sqe;
}

/* submit what was prepared and wait for as many CQEs */
static void submit_wait(struct ring *r, unsigned n)
{
	long ret;

	atomic_store_explicit((_Atomic unsigned *)r->sq_tail, r->tail,
			      memory_order_release);
	ret = sys_enter(r->fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0);
	if (ret != (long)n)
		FAIL("io_uring_enter: %ld (%s)", ret, strerror(errno));
}

/* the CQE for ud, from the CQ in memory; every CQE must be one asked for */
static int reap(struct ring *r, __u64 ud)
{
	unsigned head = *r->cq_head;
	unsigned tail = atomic_load_explicit((_Atomic unsigned *)r->cq_tail,
					     memory_order_acquire);

	for (; head != tail; head++) {
		struct io_uring_cqe *cqe = &r->cqes[head & *r->cq_mask];

		if (cqe->user_data == ud) {
			int res = cqe->res;

			/* fine for this test: CQEs are reaped in the order asked */
			atomic_store_explicit((_Atomic unsigned *)r->cq_head,
					      head + 1, memory_order_release);
			return res;
		}
	}
	FAIL("no CQE for user_data %llu", (unsigned long long)ud);
}

/* expect: the call failed with errno err, as the kernel answers */
static void expect_err(const char *what, long ret, int err)
{
	if (ret != -1 || errno != err)
		FAIL("%s: %ld (%s), not %s", what, ret, strerror(errno),
		     strerror(err));
}

/* bad arguments get the kernel's errnos, and nothing crashes */
static void bad_args(struct ring *r)
{
	struct io_uring_params p;
	int closed;

	memset(&p, 0, sizeof(p));
	expect_err("setup of 0 entries", sys_setup(0, &p), EINVAL);
	expect_err("setup with a NULL params", sys_setup(8, NULL), EFAULT);
	expect_err("setup with params at 1", sys_setup(8, (void *)1),
		   EFAULT);
	p.flags = 1U << 31;
	expect_err("setup with an unknown flag", sys_setup(8, &p), EINVAL);
	memset(&p, 0, sizeof(p));
	p.resv[0] = 1;
	expect_err("setup with resv set", sys_setup(8, &p), EINVAL);
	expect_err("enter with an unknown flag",
		   sys_enter(r->fd, 0, 0, 1U << 31, NULL, 0), EINVAL);
	expect_err("enter with EXT_ARG at 1",
		   sys_enter(r->fd, 0, 1,
			   IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
			   (void *)1, sizeof(struct io_uring_getevents_arg)),
		   EFAULT);
	expect_err("register of an unknown opcode",
		   sys_register(r->fd, 9999, NULL, 0), EINVAL);
	expect_err("register of buffers at 1",
		   sys_register(r->fd, IORING_REGISTER_BUFFERS, (void *)1, 1),
		   EFAULT);
	closed = dup(r->fd);
	close(closed);
	expect_err("enter on a closed fd",
		   sys_enter(closed, 0, 0, 0, NULL, 0), EBADF);
}

static void run(void)
{
	static char buf[4096], data[4096];
	char path[] = "/tmp/uring-raw-XXXXXX";
	struct io_uring_sqe *sqe;
	struct ring r;
	int file, res;

	file = mkstemp(path);
	if (file < 0)
		FAIL("mkstemp: %s", strerror(errno));
	unlink(path);
	memset(data, 'r', sizeof(data));
	if (write(file, data, sizeof(data)) != (ssize_t)sizeof(data))
		FAIL("write: %s", strerror(errno));
	ring_init(&r, 8);

	sqe_get(&r, IORING_OP_NOP, 1);
	submit_wait(&r, 1);
	if ((res = reap(&r, 1)) != 0)
		FAIL("NOP: %d", res);

	sqe = sqe_get(&r, IORING_OP_READ, 2);
	sqe->fd = file;
	sqe->addr = (unsigned long)buf;
	sqe->len = sizeof(buf);
	submit_wait(&r, 1);
	if ((res = reap(&r, 2)) != (int)sizeof(buf) || memcmp(buf, data, sizeof(buf)))
		FAIL("READ: %d", res);

	if (sys_register(r.fd, IORING_REGISTER_FILES, &file, 1) != 0)
		FAIL("IORING_REGISTER_FILES: %s", strerror(errno));
	memset(buf, 0, sizeof(buf));
	sqe = sqe_get(&r, IORING_OP_READ, 3);
	sqe->fd = 0;
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->addr = (unsigned long)buf;
	sqe->len = sizeof(buf);
	submit_wait(&r, 1);
	if ((res = reap(&r, 3)) != (int)sizeof(buf) || memcmp(buf, data, sizeof(buf)))
		FAIL("fixed-file READ: %d", res);

	/* a bad pointer is the kernel's -EFAULT, not a crash */
	sqe = sqe_get(&r, IORING_OP_READV, 4);
	sqe->fd = file;
	sqe->addr = 1;
	sqe->len = 1;
	submit_wait(&r, 1);
	if ((res = reap(&r, 4)) != -EFAULT)
		FAIL("READV of a bad iovec array: %d, not -EFAULT", res);

	bad_args(&r);
	/* not a ring: the kernel's answers */
	if (sys_enter(file, 0, 0, 0, NULL, 0) != -1 || errno != EOPNOTSUPP)
		FAIL("enter on a file: %s, not EOPNOTSUPP", strerror(errno));
	close(r.fd);
	close(file);
}

/* unmapped, then closed: the ring is gone, as on the kernel */
static void ring_exit(struct ring *r)
{
	munmap(r->sq, r->sq_len);
	munmap(r->cq, r->cq_len);
	munmap(r->sqes, r->sqes_len);
	close(r->fd);
}

static void on_usr1(int sig)
{
	(void)sig;
	run();
}

static void *run_thread(void *arg)
{
	(void)arg;
	run();
	return NULL;
}

/*
 * Every signal blocked, SIGSYS too (the trap's shim keeps it deliverable
 * and the mask reads back as set), in main and in a thread that inherits
 * the mask, as libuv starts its threads.
 */
static void blocked_all(void)
{
	sigset_t all, none, old;
	pthread_t t;

	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, NULL))
		FAIL("sigprocmask: %s", strerror(errno));
	sigemptyset(&none);
	if (pthread_sigmask(SIG_BLOCK, &none, &old) ||
	    !sigismember(&old, SIGSYS) || !sigismember(&old, SIGUSR1))
		FAIL("the mask does not read back with SIGSYS blocked");
	run();
	if (pthread_create(&t, NULL, run_thread, NULL) || pthread_join(t, NULL))
		FAIL("pthread: %s", strerror(errno));
}

static volatile sig_atomic_t own_traps;

static void on_own_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	if (si->si_code != 1 /* SYS_SECCOMP */ || si->si_syscall != SYS_getppid ||
	    si->si_errno != 0x1234)
		return;
	own_traps++;
	uc->uc_mcontext.gregs[REG_RAX] = 4242;
}

/*
 * The program's own SIGSYS handler and seccomp filter, set after the
 * library's: its traps reach its handler, io_uring is still served, and
 * SIGSYS reads back as the program set it.
 */
static void own_sigsys(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP | 0x1234),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_own_sigsys;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL) || sigaction(SIGSYS, NULL, &old))
		FAIL("sigaction: %s", strerror(errno));
	if (!(old.sa_flags & SA_SIGINFO) || old.sa_sigaction != on_own_sigsys)
		FAIL("SIGSYS does not read back as the program set it");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		FAIL("seccomp: %s", strerror(errno));
	if (syscall(SYS_getppid) != 4242 || own_traps != 1)
		FAIL("the program's own trap did not reach its handler");
	run();
	if (syscall(SYS_getppid) != 4242 || own_traps != 2)
		FAIL("the program's own trap did not reach its handler");
}

static ucontext_t main_uc, co_uc;

static void co_run(void)
{
	run();
	swapcontext(&co_uc, &main_uc);
}

/* a coroutine's small stack: the library serves the trap on its own */
static void small_stack(void)
{
	static char stack[8 << 10] __attribute__((aligned(16)));

	getcontext(&co_uc);
	co_uc.uc_stack.ss_sp = stack;
	co_uc.uc_stack.ss_size = sizeof(stack);
	co_uc.uc_link = &main_uc;
	makecontext(&co_uc, co_run, 0);
	if (swapcontext(&main_uc, &co_uc))
		FAIL("swapcontext: %s", strerror(errno));
}

/*
 * The shared mappings: rings, SQEs and buffer rings are shared memory
 * (the engine's, and the program's own mappings of them). Private ones
 * are not counted: thread stacks that glibc caches for threads to come
 * are private.
 */
static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8];
	int n = 0;

	if (!f)
		FAIL("/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		n += sscanf(line, "%*s %7s", perms) == 1 && perms[3] == 's';
	fclose(f);
	return n;
}

/*
 * Rings unmapped and closed with close(2), the library not told: a
 * number reused for a file is a file (registering it works, even before
 * the ring that had it has ended), and making rings over and over leaves
 * nothing behind once they have ended (shared mappings are counted).
 */
static void close_reuse(void)
{
	char path[] = "/tmp/uring-raw-XXXXXX";
	struct ring a, b;
	int file, maps = 0, i;

	ring_init(&a, 8);
	ring_exit(&a);
	file = mkstemp(path);
	if (file < 0)
		FAIL("mkstemp: %s", strerror(errno));
	unlink(path);
	if (file != a.fd)
		FAIL("fd %d, not the closed ring's %d", file, a.fd);
	ring_init(&b, 8);
	if (sys_register(b.fd, IORING_REGISTER_FILES, &file, 1) != 0)
		FAIL("registering fd %d, once a ring's: %s", file, strerror(errno));
	ring_exit(&b);
	close(file);
	for (i = 0; i < 200; i++) {
		ring_init(&a, 8);
		sqe_get(&a, IORING_OP_NOP, 1);
		submit_wait(&a, 1);
		ring_exit(&a);
		if (i == 10)
			maps = count_maps();
	}
	/* rings end after their close, on their own time: wait (30 s at most) */
	for (i = 0; count_maps() > maps + 4; i++) {
		if (i == 30000)
			FAIL("%d mappings after 200 rings, %d after 10",
			     count_maps(), maps);
		usleep(1000);
	}
}

#define MAX_IDS	4096

/* the numbers in a /proc directory (tids, fds), but the DIR's own fd */
static int list_dir(const char *path, int *ids)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		FAIL("%s: %s", path, strerror(errno));
	while ((e = readdir(d)) && n < MAX_IDS)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			ids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* an id in now that is not in before, or -1 */
static int new_id(const int *before, int nb, const int *now, int nn)
{
	int i, j;

	for (i = 0; i < nn; i++) {
		for (j = 0; j < nb && before[j] != now[i]; j++)
			;
		if (j == nb)
			return now[i];
	}
	return -1;
}

/*
 * Every thread and fd made since before[] was taken is gone: the kernel
 * ends a ring's threads after the ring on its own time, the user engine
 * after it sees the close, so this waits (30 s at most, which only turns
 * a hang into a failure). What went meanwhile (an earlier ring's) is
 * fine.
 */
static void settled(const int *tids, int nt, const int *fds, int nf,
		    const char *what)
{
	static int now[MAX_IDS];
	struct timespec t0, t;
	int id = -1, n;
	const char *kind = "";

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = list_dir("/proc/self/task", now);
		id = new_id(tids, nt, now, n);
		kind = "thread";
		if (id < 0) {
			n = list_dir("/proc/self/fd", now);
			id = new_id(fds, nf, now, n);
			kind = "fd";
		}
		if (id < 0)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 30)
			FAIL("%s: %s %d is still there: the ring lives on",
			     what, kind, id);
		usleep(1000);
	}
}

/*
 * A ring ends when its fd is closed for the last time, as the kernel's,
 * with a read waiting on a pipe and a 60 s timeout in flight: after
 * munmap() and close(2), which the library is not told of; after the
 * close of a dup that outlived the first fd (the ring works through the
 * dup meanwhile); with SQPOLL. No thread and no fd of it is left.
 */
static void close_ends(void)
{
	static char buf[16];
	static int tids[MAX_IDS], fds[MAX_IDS];
	struct __kernel_timespec ts = { 60, 0 };
	static const char *const what[] = {
		"closed", "dup closed", "SQPOLL closed",
	};
	int nt, nf, p[2], round, d;
	struct io_uring_sqe *sqe;
	struct ring r;

	/* a first ring: what a process keeps from it stays */
	ring_init(&r, 8);
	sqe_get(&r, IORING_OP_NOP, 1);
	submit_wait(&r, 1);
	ring_exit(&r);
	for (round = 0; round < 3; round++) {
		if (pipe(p))
			FAIL("pipe: %s", strerror(errno));
		nt = list_dir("/proc/self/task", tids);
		nf = list_dir("/proc/self/fd", fds);
		ring_init_flags(&r, 8, round == 2 ? IORING_SETUP_SQPOLL : 0);
		sqe = sqe_get(&r, IORING_OP_READ, 1);
		sqe->fd = p[0];
		sqe->addr = (unsigned long)buf;
		sqe->len = sizeof(buf);
		sqe = sqe_get(&r, IORING_OP_TIMEOUT, 2);
		sqe->addr = (unsigned long)&ts;
		sqe->len = 1;
		atomic_store_explicit((_Atomic unsigned *)r.sq_tail, r.tail,
				      memory_order_release);
		if (sys_enter(r.fd, 2, 0, 0, NULL, 0) != 2)
			FAIL("submitting a read and a timeout: %s", strerror(errno));
		if (round == 1) {
			d = dup(r.fd);
			close(r.fd);
			r.fd = d;
			sqe_get(&r, IORING_OP_NOP, 3);
			submit_wait(&r, 1);
			if (reap(&r, 3) != 0)
				FAIL("a NOP through the dup");
		}
		ring_exit(&r);
		settled(tids, nt, fds, nf, what[round]);
		close(p[0]);
		close(p[1]);
	}
}

#ifndef IORING_REGISTER_USE_REGISTERED_RING
#define IORING_REGISTER_USE_REGISTERED_RING	(1U << 31)	/* 6.3 */
#endif

/*
 * IORING_FEAT_REG_REG_RING: a ring whose fd is closed (liburing's
 * io_uring_close_ring_fd() is a plain close(2)) lives on through a
 * registered index: a NOP through it works; once the rings are unmapped
 * and the index unregistered the ring ends, no thread or fd of it left.
 */
static void close_index(void)
{
	static int tids[MAX_IDS], fds[MAX_IDS];
	struct io_uring_rsrc_update up;
	struct ring r;
	int nt, nf, index;

	/* a first ring: what a process keeps from it stays */
	ring_init(&r, 8);
	sqe_get(&r, IORING_OP_NOP, 1);
	submit_wait(&r, 1);
	ring_exit(&r);
	nt = list_dir("/proc/self/task", tids);
	nf = list_dir("/proc/self/fd", fds);
	ring_init(&r, 8);
	memset(&up, 0, sizeof(up));
	up.offset = -1U;
	up.data = (__u64)r.fd;
	if (sys_register(r.fd, IORING_REGISTER_RING_FDS, &up, 1) != 1)
		FAIL("registering the ring fd: %s", strerror(errno));
	index = (int)up.offset;
	close(r.fd);
	r.fd = index;
	sqe_get(&r, IORING_OP_NOP, 2);
	atomic_store_explicit((_Atomic unsigned *)r.sq_tail, r.tail,
			      memory_order_release);
	if (sys_enter(r.fd, 1, 1, IORING_ENTER_GETEVENTS |
		      IORING_ENTER_REGISTERED_RING, NULL, 0) != 1)
		FAIL("a NOP through the index: %s", strerror(errno));
	if (reap(&r, 2) != 0)
		FAIL("the NOP through the index");
	munmap(r.sq, r.sq_len);
	munmap(r.cq, r.cq_len);
	munmap(r.sqes, r.sqes_len);
	memset(&up, 0, sizeof(up));
	up.offset = (__u32)index;
	if (sys_register(index, IORING_UNREGISTER_RING_FDS |
			 IORING_REGISTER_USE_REGISTERED_RING, &up, 1) != 1)
		FAIL("unregistering the index: %s", strerror(errno));
	settled(tids, nt, fds, nf, "index unregistered");
}

/*
 * A ring whose fd is closed while the program still maps it lives on,
 * as the kernel's (its mappings hold it): its SQPOLL thread, woken by a
 * first NOP and kept awake by a 60 s idle, still takes an SQE and posts
 * the CQE. Once the rings are unmapped it ends, its threads and fds with
 * it.
 */
static void close_mapped(void)
{
	static int tids[MAX_IDS], fds[MAX_IDS];
	struct __kernel_timespec ts = { 0, 1000000 };
	struct io_uring_sqe *sqe;
	struct timespec t0, t;
	struct ring r;
	int nt, nf;

	/*
	 * A first ring, and a wait that sleeps (a 1 ms TIMEOUT): what a
	 * process and its thread keep from them stays.
	 */
	ring_init(&r, 8);
	sqe = sqe_get(&r, IORING_OP_TIMEOUT, 5);
	sqe->addr = (unsigned long)&ts;
	sqe->len = 1;
	submit_wait(&r, 1);
	if (reap(&r, 5) != -ETIME)
		FAIL("a 1 ms timeout");
	ring_exit(&r);
	nt = list_dir("/proc/self/task", tids);
	nf = list_dir("/proc/self/fd", fds);
	sq_idle_ms = 60000;
	ring_init_flags(&r, 8, IORING_SETUP_SQPOLL);
	sq_idle_ms = 0;
	/* a first NOP wakes the SQPOLL thread (it starts asleep on 6.18) */
	sqe_get(&r, IORING_OP_NOP, 6);
	atomic_store_explicit((_Atomic unsigned *)r.sq_tail, r.tail,
			      memory_order_release);
	if (sys_enter(r.fd, 1, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP,
		      NULL, 0) < 0)
		FAIL("io_uring_enter: %s", strerror(errno));
	if (reap(&r, 6) != 0)
		FAIL("the first NOP");
	close(r.fd);
	sqe_get(&r, IORING_OP_NOP, 7);
	atomic_store_explicit((_Atomic unsigned *)r.sq_tail, r.tail,
			      memory_order_release);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load_explicit((_Atomic unsigned *)r.cq_tail,
				    memory_order_acquire) == *r.cq_head) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 30)
			FAIL("no CQE from the SQPOLL ring whose fd was closed");
		usleep(1000);
	}
	if (reap(&r, 7) != 0)
		FAIL("the NOP of a ring whose fd was closed");
	munmap(r.sq, r.sq_len);
	munmap(r.cq, r.cq_len);
	munmap(r.sqes, r.sqes_len);
	settled(tids, nt, fds, nf, "closed, then unmapped");
}

static int ringfd_readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
}

/*
 * libuv's loop: the ring fd in its poll set, submits that do not wait,
 * CQEs reaped from memory. Readable while a CQE waits; not readable once
 * the CQ is empty, or the loop would spin (no timing is asserted: the
 * user engine gets 10 s to reset it).
 */
static void poll_ringfd(void)
{
	struct ring r;
	int i, ms;

	ring_init(&r, 8);
	for (i = 0; i < 50; i++) {
		sqe_get(&r, IORING_OP_NOP, 1);
		atomic_store_explicit((_Atomic unsigned *)r.sq_tail, r.tail,
				      memory_order_release);
		if (sys_enter(r.fd, 1, 0, 0, NULL, 0) != 1)
			FAIL("enter: %s", strerror(errno));
		if (!ringfd_readable(r.fd, 10000))
			FAIL("round %d: the ring fd is not readable with a CQE", i);
		if (reap(&r, 1) != 0)
			FAIL("NOP failed");
		for (ms = 0; ringfd_readable(r.fd, 0); ms++) {
			if (ms >= 10000)
				FAIL("round %d: the ring fd stays readable with "
				     "the CQ empty", i);
			usleep(1000);
		}
	}
	ring_exit(&r);
}

/* liburing 2.3's struct io_uring_buf_reg, its pad being 6.18's flags */
struct pbuf_reg {
	__u64 ring_addr;
	__u32 ring_entries;
	__u16 bgid;
	__u16 flags;
	__u64 resv[3];
};

#define PBUF_RING_MMAP	1U		/* IOU_PBUF_RING_MMAP */
#define OFF_PBUF_RING	0x80000000ULL	/* IORING_OFF_PBUF_RING */
#define OFF_PBUF_SHIFT	16

/*
 * A buffer ring the ring allocates: registered without an address,
 * mapped at IORING_OFF_PBUF_RING | bgid << 16, filled by hand, and a
 * READ with IOSQE_BUFFER_SELECT takes its first buffer.
 */
static void pbuf_mmap(void)
{
	static char bufs[4][1024], data[1024];
	char path[] = "/tmp/uring-raw-XXXXXX";
	struct pbuf_reg reg;
	struct io_uring_buf *br;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct ring r;
	unsigned head;
	int file, i;

	file = mkstemp(path);
	if (file < 0)
		FAIL("mkstemp: %s", strerror(errno));
	unlink(path);
	memset(data, 'p', sizeof(data));
	if (write(file, data, sizeof(data)) != (ssize_t)sizeof(data))
		FAIL("write: %s", strerror(errno));
	ring_init(&r, 8);
	memset(&reg, 0, sizeof(reg));
	reg.ring_entries = 8;
	reg.bgid = 7;
	reg.flags = PBUF_RING_MMAP;
	if (sys_register(r.fd, IORING_REGISTER_PBUF_RING, &reg, 1))
		FAIL("IORING_REGISTER_PBUF_RING: %s", strerror(errno));
	br = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r.fd, OFF_PBUF_RING | (7ULL << OFF_PBUF_SHIFT));
	if (br == MAP_FAILED)
		FAIL("mmap of the buffer ring: %s", strerror(errno));
	if (mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 r.fd, OFF_PBUF_RING | (9ULL << OFF_PBUF_SHIFT)) != MAP_FAILED ||
	    errno != ENOMEM)
		FAIL("mmap of a group with no ring: %s, not ENOMEM",
		     strerror(errno));

	for (i = 0; i < 4; i++) {
		br[i].addr = (unsigned long)bufs[i];
		br[i].len = sizeof(bufs[i]);
		br[i].bid = (__u16)i;
	}
	/* the tail is the first entry's resv: a release, as liburing's advance */
	atomic_store_explicit((_Atomic __u16 *)&br[0].resv, 4,
			      memory_order_release);
	sqe = sqe_get(&r, IORING_OP_READ, 5);
	sqe->fd = file;
	sqe->len = sizeof(bufs[0]);
	sqe->flags = IOSQE_BUFFER_SELECT;
	sqe->buf_group = 7;
	submit_wait(&r, 1);
	head = *r.cq_head;
	cqe = &r.cqes[head & *r.cq_mask];
	if (cqe->user_data != 5 || cqe->res != (int)sizeof(data) ||
	    !(cqe->flags & IORING_CQE_F_BUFFER) ||
	    cqe->flags >> IORING_CQE_BUFFER_SHIFT != 0 ||
	    memcmp(bufs[0], data, sizeof(data)))
		FAIL("READ from the buffer ring: res %d flags %#x", cqe->res,
		     cqe->flags);
	atomic_store_explicit((_Atomic unsigned *)r.cq_head, head + 1,
			      memory_order_release);
	munmap(br, 4096);
	reg.flags = 0;		/* unregister takes no flags */
	if (sys_register(r.fd, IORING_UNREGISTER_PBUF_RING, &reg, 1))
		FAIL("IORING_UNREGISTER_PBUF_RING: %s", strerror(errno));
	ring_exit(&r);
	close(file);
}

/* a trapped enter's cost: N NOPs, one submit-and-wait enter each */
static void nops(long n)
{
	struct timespec t0, t1;
	struct ring r;
	long i;

	ring_init(&r, 8);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		sqe_get(&r, IORING_OP_NOP, 1);
		submit_wait(&r, 1);
		if (reap(&r, 1) != 0)
			FAIL("NOP failed");
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("uring-raw: %ld NOPs, %.0f ns each\n", n,
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n);
	ring_exit(&r);
}


/* the r-x mappings of the program's own file, hashed (FNV-1a) */
static unsigned long text_hash(void)
{
	char line[512], self[256], path[256];
	unsigned long lo, hi, h = 1469598103934665603UL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	if (n < 0 || !f)
		FAIL("maps: %s", strerror(errno));
	self[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %255s", &lo, &hi,
			   perms, path) != 4 || strcmp(path, self) ||
		    perms[2] != 'x')
			continue;
		for (const unsigned char *p = (void *)lo; p < (unsigned char *)hi; p++)
			h = (h ^ *p) * 1099511628211UL;
	}
	fclose(f);
	return h;
}

static void text(void)
{
	unsigned long before = text_hash();
	struct ring r;

	ring_init(&r, 8);
	for (int i = 0; i < 100; i++) {
		sqe_get(&r, IORING_OP_NOP, 1);
		submit_wait(&r, 1);
		if (reap(&r, 1) != 0)
			FAIL("NOP failed");
	}
	ring_exit(&r);
	printf("text: %s\n", text_hash() == before ? "unchanged" : "changed");
}

static pthread_barrier_t nop_barrier;

static void *nop_thread(void *arg)
{
	struct ring r;

	(void)arg;
	ring_init(&r, 8);
	pthread_barrier_wait(&nop_barrier);
	for (int i = 0; i < 2000; i++) {
		sqe_get(&r, IORING_OP_NOP, (__u64)i);
		submit_wait(&r, 1);
		if (reap(&r, (__u64)i) != 0)
			FAIL("NOP failed");
	}
	ring_exit(&r);
	return NULL;
}

static void threads(void)
{
	pthread_t t[4];

	pthread_barrier_init(&nop_barrier, NULL, 4);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, nop_thread, NULL))
			FAIL("pthread_create");
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

static void fork_nops(void)
{
	int status;
	pid_t pid;

	nops(100);
	pid = fork();
	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		nops(100);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		FAIL("the child failed: %#x", status);
	/* posix_spawn: a vfork-style clone, then exec of this program */
	char *argv[] = { "uring-raw", "nops", "100", NULL };
	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		FAIL("the spawned program failed: %#x", status);
	nops(100);
}

#if defined(__x86_64__)
/*
 * io_uring_enter(-1): -EBADF, from a site whose mov is followed by its
 * syscall (direct) or from a jump to that syscall with eax set elsewhere
 */
static long enter_bad_fd(int jump)
{
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = 0;
	long ret;

	__asm__ __volatile__("testl %[j], %[j]\n\t"
			     "jnz 1f\n\t"
			     "movl $426, %%eax\n"
			     "2:\tsyscall\n\t"
			     "jmp 3f\n"
			     "1:\tmovl $426, %%eax\n\t"
			     "jmp 2b\n"
			     "3:"
			     : "=a"(ret)
			     : [j] "r"(jump), "D"(-1L), "S"(0L), "d"(0L),
			       "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

/*
 * io_uring_enter(-1): -EBADF, from a site whose syscall is preceded by
 * `mov $426, %r8d` (41 b8 aa 01 00 00): the b8 there is not a mov to eax,
 * and a rewrite taking it for one would lose the move to r8
 */
static void rex_site(void)
{
	for (int i = 0; i < 6; i++) {
		register long r10 __asm__("r10") = 0;
		register long r8 __asm__("r8") = 0;
		register long r9 __asm__("r9") = 0;
		long ret;

		__asm__ __volatile__("movl $426, %%eax\n\t"
				     "movl $426, %%r8d\n\t"
				     "syscall"
				     : "=a"(ret), "+r"(r8)
				     : "D"(-1L), "S"(0L), "d"(0L), "r"(r10), "r"(r9)
				     : "rcx", "r11", "memory");
		if (ret != -EBADF || r8 != 426)
			FAIL("call %d: %ld, r8 %ld", i, ret, (long)r8);
	}
	/*
	 * and `movq $426, -0x48(%rsp)` (48 c7 44 24 b8 aa 01 00 00) between:
	 * its disp8 is b8, and nr follows it
	 */
	for (int i = 0; i < 6; i++) {
		register long r10 __asm__("r10") = 0;
		register long r8 __asm__("r8") = 0;
		register long r9 __asm__("r9") = 0;
		long ret, slot;

		__asm__ __volatile__("subq $256, %%rsp\n\t"
				     "movq $0, -0x48(%%rsp)\n\t"
				     "movl $426, %%eax\n\t"
				     "movq $426, -0x48(%%rsp)\n\t"
				     "syscall\n\t"
				     "movq -0x48(%%rsp), %[slot]\n\t"
				     "addq $256, %%rsp"
				     : "=a"(ret), [slot] "=r"(slot)
				     : "D"(-1L), "S"(0L), "d"(0L), "r"(r10), "r"(r8),
				       "r"(r9)
				     : "rcx", "r11", "memory");
		if (ret != -EBADF || slot != 426)
			FAIL("call %d: %ld, the stored slot %ld", i, ret, slot);
	}
}

static void jump_in(void)
{
	for (int i = 0; i < 12; i++)
		if (enter_bad_fd(i >= 4 && i < 8) != -EBADF)
			FAIL("enter from %s: not -EBADF", i >= 4 && i < 8 ?
			     "a jump to the syscall" : "the site");
}

#define REGS_FLAGS	0xec7UL		/* CF PF ZF SF DF OF, and bit 1 */
#define REGS_FLAGMASK	0xcd5UL		/* CF PF AF ZF SF DF OF */

/*
 * load the vector registers from in, make the call, store them to out;
 * xmm0-15 are the compiler's (clobbered here); the rest it does not use
 * without -mavx
 */
#define REGS_CALL(load, store)						\
	__asm__ __volatile__(load						\
			     "pushq %[fl]\n\tpopfq\n\t"			\
			     "movl $427, %%eax\n\t"			\
			     "syscall\n\t"					\
			     "pushfq\n\tpopq %[fo]\n\tcld\n\t"		\
			     store						\
			     : "=a"(ret), [fo] "=&r"(flags), "+D"(a1),	\
			       "+S"(a2), "+d"(a3), "+r"(r10), "+r"(r8),	\
			       "+r"(r9), "+b"(rbx), "+r"(r12), "+r"(r13),	\
			       "+r"(r14), "+r"(r15)				\
			     : [fl] "i"(REGS_FLAGS)				\
			     : "rcx", "r11", "memory", "cc", "xmm0", "xmm1",	\
			       "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",	\
			       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",	\
			       "xmm13", "xmm14", "xmm15")

#define V16(op, w, f) op(0,w,f) op(1,w,f) op(2,w,f) op(3,w,f) op(4,w,f)	\
	op(5,w,f) op(6,w,f) op(7,w,f) op(8,w,f) op(9,w,f) op(10,w,f)	\
	op(11,w,f) op(12,w,f) op(13,w,f) op(14,w,f) op(15,w,f)
#define V32(op, w, f) V16(op, w, f) op(16,w,f) op(17,w,f) op(18,w,f)	\
	op(19,w,f) op(20,w,f) op(21,w,f) op(22,w,f) op(23,w,f)		\
	op(24,w,f) op(25,w,f) op(26,w,f) op(27,w,f) op(28,w,f)		\
	op(29,w,f) op(30,w,f) op(31,w,f)
#define LDX(i, w, ins, reg) ins " regs_vin+" #i "*" #w "(%%rip), %%" reg #i "\n\t"
#define STX(i, w, ins, reg) ins " %%" reg #i ", regs_vout+" #i "*" #w "(%%rip)\n\t"
#define LX(i, w, f)	LDX(i, w, "movups", "xmm")
#define SX(i, w, f)	STX(i, w, "movups", "xmm")
#define LY(i, w, f)	LDX(i, w, "vmovdqu", "ymm")
#define SY(i, w, f)	STX(i, w, "vmovdqu", "ymm")
#define LZ(i, w, f)	LDX(i, w, "vmovdqu64", "zmm")
#define SZ(i, w, f)	STX(i, w, "vmovdqu64", "zmm")
#define K8(op) op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7)
#define LK(i)	"kmovq regs_vin+2048+" #i "*8(%%rip), %%k" #i "\n\t"
#define SK(i)	"kmovq %%k" #i ", regs_vout+2048+" #i "*8(%%rip)\n\t"

/*
 * A register call (REGISTER_FILES of 64 empty slots, then UNREGISTER, six
 * times) made inline with every register loaded: each must come back as
 * it went in, as the kernel keeps them.
 */
static unsigned char regs_vin[2112] __attribute__((used, aligned(64)));
static unsigned char regs_vout[2112] __attribute__((used, aligned(64)));

static void regs(void)
{
	unsigned char *vin = regs_vin, *vout = regs_vout;
	int files[64], kind;
	struct ring r;

	__builtin_cpu_init();
	kind = __builtin_cpu_supports("avx512bw") ? 2 :
	       __builtin_cpu_supports("avx") ? 1 : 0;
	for (unsigned i = 0; i < sizeof(regs_vin); i++)
		vin[i] = (unsigned char)(i * 7 + 1);
	memset(files, -1, sizeof(files));
	ring_init(&r, 8);
	for (int round = 0; round < 6; round++) {
		/* before the register variables: a call may clobber them */
		memset(vout, 0, sizeof(regs_vout));
		/* REGISTER_FILES: 64 slots at files; UNREGISTER: none */
		long nr = round & 1 ? 0 : 64, files_at = round & 1 ? 0 : (long)files;
		register long r10 __asm__("r10") = nr;
		register long r8 __asm__("r8") = 0x0808080808080808L;
		register long r9 __asm__("r9") = 0x0909090909090909L;
		register long r12 __asm__("r12") = 0x1212121212121212L;
		register long r13 __asm__("r13") = 0x1313131313131313L;
		register long r14 __asm__("r14") = 0x1414141414141414L;
		register long r15 __asm__("r15") = 0x1515151515151515L;
		long a1 = r.fd, a3 = files_at, rbx = 0x0b0b0b0b0b0b0b0bL;
		long a2 = round & 1 ? IORING_UNREGISTER_FILES :
				      IORING_REGISTER_FILES;
		long a2_in = a2, ret;
		unsigned long flags;
		size_t vlen;

		if (kind == 2) {
			REGS_CALL(V32(LZ, 64, 0) K8(LK), V32(SZ, 64, 0) K8(SK));
			vlen = sizeof(regs_vin);
		} else if (kind == 1) {
			REGS_CALL(V16(LY, 32, 0), V16(SY, 32, 0));
			vlen = 512;
		} else {
			REGS_CALL(V16(LX, 16, 0), V16(SX, 16, 0));
			vlen = 256;
		}
		if (ret != 0)
			FAIL("register round %d: %ld", round, ret);
		if (a1 != r.fd || a2 != a2_in || a3 != files_at ||
		    r10 != nr || r8 != 0x0808080808080808L ||
		    r9 != 0x0909090909090909L || rbx != 0x0b0b0b0b0b0b0b0bL ||
		    r12 != 0x1212121212121212L || r13 != 0x1313131313131313L ||
		    r14 != 0x1414141414141414L || r15 != 0x1515151515151515L)
			FAIL("round %d: a general register changed", round);
		if ((flags & REGS_FLAGMASK) != (REGS_FLAGS & REGS_FLAGMASK))
			FAIL("round %d: rflags %#lx, not %#lx", round,
			     flags & REGS_FLAGMASK, REGS_FLAGS & REGS_FLAGMASK);
		if (memcmp(vin, vout, vlen))
			FAIL("round %d: a vector register changed", round);
	}
	ring_exit(&r);
	printf("uring-raw: registers kept (%s)\n",
	       kind == 2 ? "zmm0-31, k0-7" : kind == 1 ? "ymm0-15" : "xmm0-15");
}
#endif

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	static char altstack[32 << 10];

	if (!strcmp(mode, "blocked-but-sigsys")) {
		sigset_t all;

		sigfillset(&all);
		sigdelset(&all, SIGSYS);
		sigprocmask(SIG_SETMASK, &all, NULL);
		run();
	} else if (!strcmp(mode, "altstack")) {
		stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
		struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };

		if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
			FAIL("sigaltstack: %s", strerror(errno));
		raise(SIGUSR1);
	} else if (!strcmp(mode, "blocked-all")) {
		blocked_all();
	} else if (!strcmp(mode, "own-sigsys")) {
		own_sigsys();
	} else if (!strcmp(mode, "small-stack")) {
		small_stack();
	} else if (!strcmp(mode, "poll-ringfd")) {
		poll_ringfd();
	} else if (!strcmp(mode, "pbuf-mmap")) {
		pbuf_mmap();
	} else if (!strcmp(mode, "nops")) {
		nops(argc > 2 ? atol(argv[2]) : 100000);
	} else if (!strcmp(mode, "close-ends")) {
		close_ends();
	} else if (!strcmp(mode, "close-mapped")) {
		close_mapped();
	} else if (!strcmp(mode, "close-reuse")) {
		close_reuse();
	} else if (!strcmp(mode, "close-index")) {
		close_index();
	} else if (!strcmp(mode, "text")) {
		text();
	} else if (!strcmp(mode, "threads")) {
		threads();
	} else if (!strcmp(mode, "fork")) {
		fork_nops();
#if defined(__x86_64__)
	} else if (!strcmp(mode, "jump-in")) {
		jump_in();
	} else if (!strcmp(mode, "rex-site")) {
		rex_site();
	} else if (!strcmp(mode, "regs")) {
		regs();
#endif
	} else if (*mode) {
		FAIL("unknown mode %s", mode);
	} else {
		run();
	}
	printf("uring-raw: ok%s%s\n", *mode ? " " : "", mode);
	return 0;
}
