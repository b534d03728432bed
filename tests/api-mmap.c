/* SPDX-License-Identifier: MIT */
/*
 * api-mmap: rings made the raw way (io_uring_setup + io_uring_queue_mmap),
 * ring layouts (single mmap, SQE128/CQE32, NO_SQARRAY, CQSIZE) and the raw
 * calls' convention: -errno returned, errno left as it was.
 */
#include <fcntl.h>
#include <unistd.h>
#include "test.h"
#include "compat.h"

static void t_raw(void)
{
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = anyring_setup_engine(t_engine(), 4, &p);
	if (fd == -EOPNOTSUPP)
		t_skip("engine not in this build");
	CHECK(fd >= 0);
	CHECK_EQ(io_uring_queue_mmap(fd, &p, &ring), 0);
	CHECK_EQ(ring.ring_fd, fd);
	/* queue_mmap alone does not fill the SQ array: do it as liburing users do */
	for (unsigned i = 0; i < ring.sq.ring_entries; i++)
		ring.sq.array[i] = i;
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		CHECK(ring.sq.ring_ptr == ring.cq.ring_ptr);
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	/* the fd is closed by queue_exit */
	CHECK(fcntl(fd, F_GETFD) < 0);
}

static void t_errno_untouched(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	errno = 1234;
	CHECK_EQ(io_uring_enter(-1, 0, 0, 0, NULL), -EBADF);
	CHECK_EQ(io_uring_enter2(-1, 0, 0, 0, NULL, 8), -EBADF);
	/* (fd -1 is the kernel's "blind" register: -EINVAL for this opcode) */
	{
		int r = io_uring_register(-1, IORING_REGISTER_PROBE, NULL, 0);

		CHECK(r == -EINVAL || r == -EBADF);
	}
	CHECK_EQ(io_uring_register(9999, IORING_REGISTER_PROBE, NULL, 0), -EBADF);
	CHECK_EQ(io_uring_setup(0, &p), -EINVAL);
	p.flags = 1U << 31;
	CHECK_EQ(io_uring_setup(8, &p), -EINVAL);
	CHECK_EQ(errno, 1234);
}

static void t_layout(unsigned flags, unsigned entries, unsigned cq_entries)
{
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	unsigned i;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.cq_entries = cq_entries;
	t_ring(&ring, entries, &p);
	CHECK_EQ(ring.flags, flags);
	if (flags & IORING_SETUP_NO_SQARRAY)
		CHECK(ring.sq.array == NULL);
	if (flags & IORING_SETUP_CQSIZE)
		CHECK_EQ(ring.cq.ring_entries, cq_entries);
	/* two laps of the SQ to cross the index wrap */
	for (i = 0; i < 2 * ring.sq.ring_entries; i++) {
		sqe = io_uring_get_sqe(&ring);
		CHECK(sqe);
		io_uring_prep_nop(sqe);
		sqe->user_data = i;
		CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, i);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
}

int main(void)
{
	t_errno_untouched();
	t_raw();
	t_layout(0, 4, 0);
	t_layout(IORING_SETUP_SQE128 | IORING_SETUP_CQE32, 4, 0);
	t_layout(IORING_SETUP_NO_SQARRAY, 8, 0);
	t_layout(IORING_SETUP_CQSIZE, 4, 64);
	t_layout(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 8, 0);
	t_layout(IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, 8, 0);
	return 0;
}
