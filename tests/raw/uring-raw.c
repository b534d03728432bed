/* SPDX-License-Identifier: MIT */
/*
 * uring-raw.c - io_uring as programs that never call liburing use it
 * (fio, libuv, Rust's io-uring crate): the system calls, the ring mapped
 * with mmap(2) at io_uring's offsets, SQEs and CQEs read and written in
 * that memory. Run by tests/trap.sh on the kernel and, with io_uring
 * refused, on the user engine through the system-call trap.
 *
 * It submits a NOP, a READ of a file it wrote, a registered-file READ
 * and a READV with a bad iovec array, and checks every CQE. Exit 0 and
 * "uring-raw: ok" on success.
 *
 *   uring-raw            in main
 *   uring-raw blocked-but-sigsys    with every other signal blocked
 *   uring-raw altstack              inside a SIGUSR1 handler on a 32 KiB
 *                                   sigaltstack
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/io_uring.h>

#define NR_SETUP	425
#define NR_ENTER	426
#define NR_REGISTER	427

#define FAIL(...) do { fprintf(stderr, "uring-raw: " __VA_ARGS__); \
		       fputc('\n', stderr); exit(1); } while (0)

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned tail;
};

static void *map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, off);

	if (p == MAP_FAILED)
		FAIL("mmap at %#lx: %s", (unsigned long)off, strerror(errno));
	return p;
}

static void ring_init(struct ring *r, unsigned entries)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(NR_SETUP, entries, &p);
	if (r->fd < 0)
		FAIL("io_uring_setup: %s", strerror(errno));
	/* the CQ ring mapped on its own, as programs that ignore SINGLE_MMAP do */
	sq = map(r->fd, p.sq_off.array + p.sq_entries * sizeof(unsigned),
		 IORING_OFF_SQ_RING);
	cq = map(r->fd, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		 IORING_OFF_CQ_RING);
	r->sqes = map(r->fd, p.sq_entries * sizeof(struct io_uring_sqe),
		      IORING_OFF_SQES);
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	r->tail = *r->sq_tail;
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
	ret = syscall(NR_ENTER, r->fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0);
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

	if (syscall(NR_REGISTER, r.fd, IORING_REGISTER_FILES, &file, 1) != 0)
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

	/* not a ring: the kernel's answers */
	if (syscall(NR_ENTER, file, 0, 0, 0, NULL, 0) != -1 || errno != EOPNOTSUPP)
		FAIL("enter on a file: %s, not EOPNOTSUPP", strerror(errno));
	close(r.fd);
	close(file);
}

static void on_usr1(int sig)
{
	(void)sig;
	run();
}

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
	} else {
		run();
	}
	printf("uring-raw: ok%s%s\n", *mode ? " " : "", mode);
	return 0;
}
