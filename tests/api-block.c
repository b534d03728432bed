/* SPDX-License-Identifier: MIT */
/*
 * api-block: block=waiter (the user engine's default; submit.c
 * ar_req_waiter_blocks()) gives the results of block=worker, and saves
 * the worker handoff only where the waiting thread would wait for the
 * request alone. On a regular file: a log's WRITE (CQE skipped) linked to
 * FSYNC(DATASYNC), waited for by io_uring_submit_and_wait; a WRITE ->
 * FSYNC -> READ chain whose CQEs come in order with the data read back;
 * a WRITE from a bad buffer (-EFAULT). The handoff count
 * (anyring_ring_stats) must be 0 under block=waiter and not 0 under
 * block=worker; and not 0 under block=waiter where the wait is not the
 * request's alone: IOSQE_ASYNC, another request in flight (a TIMEOUT), a
 * CQE already in the CQ, a wait with a timeout (EXT_ARG). An eventfd
 * registered with IORING_REGISTER_EVENTFD_ASYNC is signalled for the
 * FSYNC, which completes in io-wq on the kernel. The kernel engine
 * refuses block=waiter and runs the same data checks.
 */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include "test.h"

#define BS	4096

static unsigned char wbuf[BS], rbuf[BS];
static bool user;

static int t_file(void)
{
	const char *dir = getenv("ANYRING_BUILD");
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/api-block.%d", dir ? dir : ".",
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	unlink(path);
	memset(wbuf, 0, sizeof(wbuf));
	CHECK_EQ(pwrite(fd, wbuf, BS, 0), BS);
	return fd;
}

static void t_policy(struct io_uring *ring, unsigned char block)
{
	struct anyring_policy p;

	memset(&p, 0, sizeof(p));
	p.block = block;
	CHECK_EQ(anyring_ring_set_policy(ring, &p),
		 user || block != ANYRING_BLOCK_WAITER ? 0 : -EOPNOTSUPP);
}

static unsigned long long t_handoffs(struct io_uring *ring)
{
	struct anyring_stats st;

	CHECK_EQ(anyring_ring_stats(ring, &st), 0);
	return st.worker_handoffs;
}

/* the next CQE: its user_data and result */
static void t_cqe(struct io_uring *ring, __u64 ud, int res)
{
	struct io_uring_cqe *cqe;

	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, ud);
	CHECK_EQ(cqe->res, res);
	io_uring_cqe_seen(ring, cqe);
}

/* the handoffs since h0: none for the waiter, some for a worker */
static void t_handed(struct io_uring *ring, unsigned long long h0, bool waiter)
{
	unsigned long long h = t_handoffs(ring) - h0;

	if (!user)
		return;
	if (waiter)
		CHECK_EQ(h, 0);
	else
		CHECK(h > 0);
}

/* a log: WRITE (CQE skipped on success) linked to FSYNC(DATASYNC) */
static void t_log(struct io_uring *ring, int fd, unsigned gen, bool waiter)
{
	struct io_uring_sqe *sqe;
	unsigned long long h0 = t_handoffs(ring);

	memset(wbuf, (int)gen, sizeof(wbuf));
	sqe = t_sqe(ring);
	io_uring_prep_write(sqe, fd, wbuf, BS, 0);
	sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = 1;
	sqe = t_sqe(ring);
	io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 2);
	t_cqe(ring, 2, 0);
	t_handed(ring, h0, waiter);
	CHECK_EQ(pread(fd, rbuf, BS, 0), BS);
	CHECK(!memcmp(rbuf, wbuf, BS));
}

/* WRITE -> FSYNC -> READ: three CQEs in order, the data read back */
static void t_chain(struct io_uring *ring, int fd, unsigned gen, bool waiter)
{
	struct io_uring_sqe *sqe;
	unsigned long long h0 = t_handoffs(ring);

	memset(wbuf, (int)gen, sizeof(wbuf));
	memset(rbuf, 0xee, sizeof(rbuf));
	sqe = t_sqe(ring);
	io_uring_prep_write(sqe, fd, wbuf, BS, BS);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = t_sqe(ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 2;
	sqe = t_sqe(ring);
	io_uring_prep_read(sqe, fd, rbuf, BS, BS);
	sqe->user_data = 3;
	CHECK_EQ(io_uring_submit_and_wait(ring, 3), 3);
	t_cqe(ring, 1, BS);
	t_cqe(ring, 2, 0);
	t_cqe(ring, 3, BS);
	CHECK(!memcmp(rbuf, wbuf, BS));
	t_handed(ring, h0, waiter);
}

/*
 * a write from memory with no access, linked: -EFAULT, its link
 * cancelled (not an munmap'd address: any thread's mmap may take it)
 */
static void t_efault(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe;
	void *bad = mmap(NULL, BS, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	CHECK(bad != MAP_FAILED);
	sqe = t_sqe(ring);
	io_uring_prep_write(sqe, fd, bad, BS, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = t_sqe(ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit_and_wait(ring, 2), 2);
	t_cqe(ring, 1, -EFAULT);
	t_cqe(ring, 2, -ECANCELED);
	CHECK_EQ(munmap(bad, BS), 0);
}

/* an async eventfd: signalled by the FSYNC done in io-wq's place */
static void t_evfd_async(struct io_uring *ring, int fd, bool waiter)
{
	struct pollfd pfd;
	uint64_t v = 0;
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	CHECK(efd >= 0);
	CHECK_EQ(io_uring_register_eventfd_async(ring, efd), 0);
	t_log(ring, fd, 7, waiter);
	pfd.fd = efd;
	pfd.events = POLLIN;
	/* a bound for a broken engine only: the signal comes with the CQE */
	CHECK_EQ(poll(&pfd, 1, T_HANG_SEC * 1000), 1);
	CHECK_EQ(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CHECK(v >= 1);
	CHECK_EQ(io_uring_unregister_eventfd(ring), 0);
	close(efd);
}

/* waits that are not the request's alone: it goes to a worker */
static void t_not_alone(struct io_uring *ring, int fd)
{
	struct __kernel_timespec ts = { .tv_sec = 30 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned long long h0;

	/* IOSQE_ASYNC: io-wq, always */
	h0 = t_handoffs(ring);
	sqe = t_sqe(ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 5;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	t_cqe(ring, 5, 0);
	t_handed(ring, h0, false);

	/* another request in flight: its CQE could end the wait first */
	sqe = t_sqe(ring);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	sqe->user_data = 6;
	CHECK_EQ(io_uring_submit(ring), 1);
	h0 = t_handoffs(ring);
	sqe = t_sqe(ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->user_data = 7;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	t_cqe(ring, 7, 0);
	t_handed(ring, h0, false);
	sqe = t_sqe(ring);
	io_uring_prep_timeout_remove(sqe, 6, 0);
	sqe->user_data = 8;
	CHECK_EQ(io_uring_submit_and_wait(ring, 2), 1);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		CHECK_EQ(cqe->res, cqe->user_data == 6 ? -ECANCELED : 0);
		io_uring_cqe_seen(ring, cqe);
	}

	/* a CQE already there: the wait ends at once */
	sqe = t_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 9;
	CHECK_EQ(io_uring_submit(ring), 1);
	h0 = t_handoffs(ring);
	sqe = t_sqe(ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->user_data = 10;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	t_cqe(ring, 9, 0);
	t_cqe(ring, 10, 0);
	t_handed(ring, h0, false);

	/* a wait with a timeout (EXT_ARG where the ring has it) */
	if (!(ring->features & IORING_FEAT_EXT_ARG))
		return;
	h0 = t_handoffs(ring);
	sqe = t_sqe(ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->user_data = 11;
	CHECK_EQ(io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, NULL), 1);
	t_cqe(ring, 11, 0);
	t_handed(ring, h0, false);
}

int main(void)
{
	struct io_uring ring;
	int fd;

	user = !strcmp(t_engine(), ANYRING_ENGINE_USER);
	t_ring(&ring, 8, NULL);
	fd = t_file();
	for (unsigned i = 0; i < 2; i++) {
		bool waiter = i == 0;

		t_policy(&ring, waiter ? ANYRING_BLOCK_WAITER : ANYRING_BLOCK_WORKER);
		for (unsigned gen = 1; gen < 4; gen++) {
			t_log(&ring, fd, gen, waiter && user);
			t_chain(&ring, fd, gen + 10, waiter && user);
		}
		t_efault(&ring, fd);
		t_evfd_async(&ring, fd, waiter && user);
		t_not_alone(&ring, fd);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	printf("api-block: ok\n");
	return 0;
}
