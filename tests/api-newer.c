/* SPDX-License-Identifier: MIT */
/*
 * api-newer.c - the functions liburing added after 2.3 (its map's
 * LIBURING_2.4 .. 2.15 nodes), on the test engine:
 *   1. the version functions (2.15) and io_uring_memory_size*();
 *   2. a provided-buffer ring made by io_uring_setup_buf_ring(), read
 *      into by a READ and a RECV, io_uring_buf_ring_head() following it,
 *      io_uring_free_buf_ring(); the bad-input answers;
 *   3. io_uring_register_restrictions() and io_uring_enable_rings() on
 *      an IORING_SETUP_R_DISABLED ring;
 *   4. io_uring_close_ring_fd() with and without a registered ring fd;
 *   5. the register family and the other calls, each with its exact
 *      answer: on the kernel engine the kernel's (Linux 6.18), on the
 *      user engine the kernel's where it has the feature (clock,
 *      min-timeout waits, iowait), else what 6.18 answers where the
 *      feature is absent (docs/semantics.md: -EINVAL for the register
 *      opcodes and the enter flag it lacks);
 *   6. io_uring_queue_init_mem().
 * Under anyring-run --deny-io-uring the calls on no ring (fd -1) reach
 * the user engine too, and get its answer.
 */
#include <dirent.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "test.h"
#include "engine/compat.h"
#include "api/newer.h"

static int user;	/* the test engine is the user engine */
static int denied;	/* io_uring is denied: no call reaches the kernel */

/* the answer of the engine: the kernel's, or the user engine's */
#define ENGINE(k, u)	(user ? (u) : (k))

/* a NOP's CQE, submitted and reaped */
static void nop_roundtrip(struct io_uring *ring, __u64 data)
{
	struct io_uring_cqe *cqe;

	struct io_uring_sqe *sqe = t_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->user_data = data;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->res, 0);
	CHECK_EQ(cqe->user_data, data);
	io_uring_cqe_seen(ring, cqe);
}

static void test_versions(void)
{
	CHECK_EQ(io_uring_major_version(), 2);
	CHECK_EQ(io_uring_minor_version(), 15);
	/* true: the library is older than asked */
	CHECK(!io_uring_check_version(2, 15));
	CHECK(!io_uring_check_version(2, 3));
	CHECK(!io_uring_check_version(1, 99));
	CHECK(io_uring_check_version(2, 16));
	CHECK(io_uring_check_version(3, 0));
}

/* liburing's layout: rings (64-byte header, CQEs, SQ array), SQEs */
static ssize_t mem_expect(unsigned sq, unsigned cq, unsigned flags)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t rings = 64 + (size_t)cq * (flags & IORING_SETUP_CQE32 ? 32 : 16);
	size_t sqes = (size_t)sq * (flags & IORING_SETUP_SQE128 ? 128 : 64);

	if (!(flags & IORING_SETUP_NO_SQARRAY))
		rings += sq * 4;
	return (ssize_t)(((rings + page - 1) & ~(page - 1)) +
			 ((sqes + page - 1) & ~(page - 1)));
}

static void test_memory_size(void)
{
	struct io_uring_params p;

	CHECK_EQ(io_uring_memory_size(0, 0), -EINVAL);
	CHECK_EQ(io_uring_memory_size(8, 0), mem_expect(8, 16, 0));
	CHECK_EQ(io_uring_memory_size(5, 0), mem_expect(8, 16, 0));
	CHECK_EQ(io_uring_memory_size(4096, 0), mem_expect(4096, 8192, 0));
	CHECK_EQ(io_uring_memory_size(64, IORING_SETUP_SQE128 |
				      IORING_SETUP_CQE32 |
				      IORING_SETUP_NO_SQARRAY),
		 mem_expect(64, 128, IORING_SETUP_SQE128 | IORING_SETUP_CQE32 |
			    IORING_SETUP_NO_SQARRAY));
	CHECK_EQ(io_uring_memory_size(65536, 0), -EINVAL);
	CHECK_EQ(io_uring_memory_size(65536, IORING_SETUP_CLAMP),
		 mem_expect(32768, 65536, 0));

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	CHECK_EQ(io_uring_memory_size_params(8, &p), -EINVAL);	/* no cq_entries */
	p.cq_entries = 4;
	CHECK_EQ(io_uring_memory_size_params(8, &p), -EINVAL);	/* CQ < SQ */
	p.cq_entries = 100;
	CHECK_EQ(io_uring_memory_size_params(8, &p), mem_expect(8, 128, 0));
	p.cq_entries = 1U << 20;
	CHECK_EQ(io_uring_memory_size_params(8, &p), -EINVAL);
	p.flags |= IORING_SETUP_CLAMP;
	CHECK_EQ(io_uring_memory_size_params(8, &p), mem_expect(8, 65536, 0));
}

#define BGID	3
#define NBUF	8
#define BUFSZ	64

static void test_buf_ring(void)
{
	static char bufs[NBUF][BUFSZ];
	struct io_uring_buf_ring *br, *br2;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	uint16_t head = 0xffff;
	int pfd[2], sv[2], err, i;

	t_ring(&ring, 8, NULL);
	br = io_uring_setup_buf_ring(&ring, NBUF, BGID, 0, &err);
	CHECK(br != NULL);
	CHECK_EQ(err, 0);
	/* initialised empty */
	CHECK_EQ(br->tail, 0);
	CHECK_EQ(io_uring_buf_ring_head(&ring, BGID, &head), 0);
	CHECK_EQ(head, 0);
	for (i = 0; i < NBUF; i++)
		io_uring_buf_ring_add(br, bufs[i], BUFSZ, (unsigned short)i,
				      io_uring_buf_ring_mask(NBUF), i);
	io_uring_buf_ring_advance(br, NBUF);

	/* the same group again; a ring size that is no power of two */
	CHECK(io_uring_setup_buf_ring(&ring, NBUF, BGID, 0, &err) == NULL);
	CHECK_EQ(err, -EEXIST);
	CHECK(io_uring_setup_buf_ring(&ring, 3, BGID + 1, 0, &err) == NULL);
	CHECK_EQ(err, -EINVAL);
	CHECK(io_uring_setup_buf_ring(&ring, 65536, BGID + 1, 0, &err) == NULL);
	CHECK_EQ(err, -EINVAL);
	/* no such group */
	CHECK_EQ(io_uring_buf_ring_head(&ring, BGID + 1, &head), -ENOENT);

	/* a READ from a pipe into buffer 0 */
	CHECK_EQ(pipe(pfd), 0);
	CHECK_EQ(write(pfd[1], "hello", 5), 5);
	sqe = t_sqe(&ring);
	io_uring_prep_read(sqe, pfd[0], NULL, BUFSZ, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->res, 5);
	CHECK(cqe->flags & IORING_CQE_F_BUFFER);
	CHECK_EQ(cqe->flags >> IORING_CQE_BUFFER_SHIFT, 0);
	CHECK(!memcmp(bufs[0], "hello", 5));
	io_uring_cqe_seen(&ring, cqe);
	CHECK_EQ(io_uring_buf_ring_head(&ring, BGID, &head), 0);
	CHECK_EQ(head, 1);

	/* a RECV from a socket into buffer 1 */
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	CHECK_EQ(write(sv[1], "world!", 6), 6);
	sqe = t_sqe(&ring);
	io_uring_prep_recv(sqe, sv[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->res, 6);
	CHECK(cqe->flags & IORING_CQE_F_BUFFER);
	CHECK_EQ(cqe->flags >> IORING_CQE_BUFFER_SHIFT, 1);
	CHECK(!memcmp(bufs[1], "world!", 6));
	io_uring_cqe_seen(&ring, cqe);
	CHECK_EQ(io_uring_buf_ring_head(&ring, BGID, &head), 0);
	CHECK_EQ(head, 2);

	CHECK_EQ(io_uring_free_buf_ring(&ring, br, NBUF, BGID), 0);
	/* gone: freed once only, and no head */
	CHECK_EQ(io_uring_unregister_buf_ring(&ring, BGID), -ENOENT);
	CHECK_EQ(io_uring_buf_ring_head(&ring, BGID, &head), -ENOENT);
	/* the group can be set up again */
	br2 = io_uring_setup_buf_ring(&ring, NBUF, BGID, 0, &err);
	CHECK(br2 != NULL);
	CHECK_EQ(io_uring_free_buf_ring(&ring, br2, NBUF, BGID), 0);
	CHECK_EQ(io_uring_free_buf_ring(&ring, br2, NBUF, BGID), -ENOENT);

	close(pfd[0]);
	close(pfd[1]);
	close(sv[0]);
	close(sv[1]);
	io_uring_queue_exit(&ring);
}

static void test_restrictions(void)
{
	struct io_uring_restriction res[2];
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	char buf[8];

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_R_DISABLED;
	t_ring(&ring, 4, &p);
	/* disabled: no submission yet */
	io_uring_prep_nop(t_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), -EBADFD);

	memset(res, 0, sizeof(res));
	res[0].opcode = IORING_RESTRICTION_SQE_OP;
	res[0].sqe_op = IORING_OP_NOP;
	res[1].opcode = 99;	/* no such restriction */
	CHECK_EQ(io_uring_register_restrictions(&ring, res, 2), -EINVAL);
	CHECK_EQ(io_uring_register_restrictions(&ring, NULL, 1), -EINVAL);
	CHECK_EQ(io_uring_register_restrictions(&ring, res, 1), 0);
	/* once only */
	CHECK_EQ(io_uring_register_restrictions(&ring, res, 1), -EBUSY);
	CHECK_EQ(io_uring_enable_rings(&ring), 0);
	/* enabled, the restrictions allow no register opcode */
	CHECK_EQ(io_uring_enable_rings(&ring), -EACCES);

	/* the NOP queued while disabled, then one that is not allowed */
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->res, 0);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_prep_read(t_sqe(&ring), 0, buf, sizeof(buf), 0);
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->res, -EACCES);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);

	/* a ring that is not disabled takes no restrictions */
	t_ring(&ring, 4, NULL);
	CHECK_EQ(io_uring_register_restrictions(&ring, res, 1), -EBADFD);
	CHECK_EQ(io_uring_enable_rings(&ring), -EBADFD);
	io_uring_queue_exit(&ring);
}

/* the process's open fds */
static int t_nr_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static void test_close_ring_fd(void)
{
	struct io_uring ring;
	int fd, files[1] = { -1 }, before = t_nr_fds();

	t_ring(&ring, 4, NULL);
	/* both engines: IORING_FEAT_REG_REG_RING */
	CHECK(ring.features & IORING_FEAT_REG_REG_RING);
	/* no registered ring fd: liburing's -EINVAL */
	CHECK_EQ(io_uring_close_ring_fd(&ring), -EINVAL);
	CHECK_EQ(io_uring_register_ring_fd(&ring), 1);
	fd = ring.ring_fd;
	CHECK_EQ(io_uring_close_ring_fd(&ring), 1);
	CHECK_EQ(ring.ring_fd, -1);
	CHECK_EQ(fcntl(fd, F_GETFD), -1);
	CHECK_EQ(errno, EBADF);
	/* the registered index keeps the ring: enter and register work */
	nop_roundtrip(&ring, 2);
	CHECK_EQ(io_uring_register_files(&ring, files, 1), 0);
	CHECK_EQ(io_uring_unregister_files(&ring), 0);
	CHECK_EQ(io_uring_close_ring_fd(&ring), -EBADF);
	/* the index was the last: the ring ends, none of its fds is left */
	io_uring_queue_exit(&ring);
	CHECK_EQ(t_nr_fds(), before);
}

static void test_clock_and_waits(void)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 20000000 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	__u32 clk[4];

	t_ring(&ring, 8, NULL);
	/* both engines have IORING_REGISTER_CLOCK */
	memset(clk, 0, sizeof(clk));
	clk[0] = CLOCK_BOOTTIME;
	CHECK_EQ(io_uring_register_clock(&ring, (void *)clk), 0);
	clk[0] = CLOCK_REALTIME;
	CHECK_EQ(io_uring_register_clock(&ring, (void *)clk), -EINVAL);
	clk[0] = CLOCK_MONOTONIC;
	clk[2] = 1;
	CHECK_EQ(io_uring_register_clock(&ring, (void *)clk), -EINVAL);
	clk[2] = 0;
	CHECK_EQ(io_uring_register_clock(&ring, (void *)clk), 0);
	CHECK_EQ(io_uring_register_clock(&ring, NULL), -EINVAL);

	/* and IORING_FEAT_MIN_TIMEOUT */
	CHECK(ring.features & IORING_FEAT_MIN_TIMEOUT);
	CHECK_EQ(io_uring_wait_cqes_min_timeout(&ring, &cqe, 1, &ts, 1000,
						NULL), -ETIME);
	io_uring_prep_nop(t_sqe(&ring));
	CHECK_EQ(io_uring_submit_and_wait_min_timeout(&ring, &cqe, 1, &ts, 1000,
						      NULL), 1);
	CHECK(cqe != NULL);
	CHECK_EQ(cqe->res, 0);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_prep_nop(t_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK_EQ(io_uring_wait_cqes_min_timeout(&ring, &cqe, 1, &ts, 1000,
						NULL), 0);
	CHECK_EQ(cqe->res, 0);
	io_uring_cqe_seen(&ring, cqe);
	/* without the feature: liburing's -EINVAL before any call */
	ring.features &= ~IORING_FEAT_MIN_TIMEOUT;
	CHECK_EQ(io_uring_wait_cqes_min_timeout(&ring, &cqe, 1, &ts, 1000,
						NULL), -EINVAL);
	CHECK_EQ(io_uring_submit_and_wait_min_timeout(&ring, &cqe, 1, &ts, 1000,
						      NULL), -EINVAL);
	ring.features |= IORING_FEAT_MIN_TIMEOUT;

	/* set_iowait: both engines have IORING_FEAT_NO_IOWAIT */
	CHECK(ring.features & IORING_FEAT_NO_IOWAIT);
	CHECK_EQ(io_uring_set_iowait(&ring, false), 0);
	nop_roundtrip(&ring, 3);
	CHECK_EQ(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), -ETIME);
	CHECK_EQ(io_uring_set_iowait(&ring, true), 0);
	nop_roundtrip(&ring, 4);
	ring.features &= ~IORING_FEAT_NO_IOWAIT;
	CHECK_EQ(io_uring_set_iowait(&ring, false), -EOPNOTSUPP);
	ring.features |= IORING_FEAT_NO_IOWAIT;

	/* a registered wait with no region registered: -EFAULT */
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 0), -EFAULT);
	CHECK_EQ(io_uring_register_wait_reg(&ring, NULL, 0), -EINVAL);
	io_uring_queue_exit(&ring);
}

static void test_registers(void)
{
	struct io_uring ring, src;
	struct io_uring_params p;
	struct iovec iov;
	static char buf[4096];
	__u64 napi[2], region[4], ifq[12], zcrx[8];

	t_ring(&ring, 8, NULL);

	/* NAPI: the user engine has none */
	memset(napi, 0, sizeof(napi));
	CHECK_EQ(io_uring_register_napi(&ring, (void *)napi),
		 ENGINE(0, -EINVAL));
	CHECK_EQ(io_uring_unregister_napi(&ring, (void *)napi),
		 ENGINE(0, -EINVAL));
	CHECK_EQ(io_uring_register_napi(&ring, NULL), -EINVAL);

	/* memory regions, zero-copy rx, BPF filters */
	memset(region, 0, sizeof(region));
	CHECK_EQ(io_uring_register_region(&ring, NULL), -EINVAL);
	/* a region descriptor at address 0 */
	CHECK_EQ(io_uring_register_region(&ring, (void *)region), -EFAULT);
	memset(ifq, 0, sizeof(ifq));
	CHECK_EQ(io_uring_register_ifq(&ring, (void *)ifq),
		 ENGINE(-EINVAL, -EINVAL));
	memset(zcrx, 0, sizeof(zcrx));
	CHECK_EQ(io_uring_register_zcrx_ctrl(&ring, (void *)zcrx),
		 ENGINE(-EINVAL, -EINVAL));
	CHECK_EQ(io_uring_register_bpf_filter(&ring, NULL), -EINVAL);

	/* clone buffers: from a ring of the same engine with one buffer */
	t_ring(&src, 8, NULL);
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	CHECK_EQ(io_uring_register_buffers(&src, &iov, 1), 0);
	CHECK_EQ(io_uring_clone_buffers(&ring, &src), 0);
	/* now it has some: -EBUSY without IORING_REGISTER_DST_REPLACE */
	CHECK_EQ(io_uring_clone_buffers(&ring, &src), -EBUSY);
	CHECK_EQ(io_uring_unregister_buffers(&ring), 0);
	CHECK_EQ(io_uring_register_ring_fd(&src), 1);
	CHECK_EQ(io_uring_clone_buffers_offset(&ring, &src, 0, 0, 1, 0), 0);
	CHECK_EQ(io_uring_unregister_buffers(&ring), 0);
	CHECK_EQ(__io_uring_clone_buffers(&ring, &src, 0), 0);
	CHECK_EQ(io_uring_unregister_buffers(&ring), 0);
	/* past the source's table */
	CHECK_EQ(__io_uring_clone_buffers_offset(&ring, &src, 0, 1, 1, 0),
		 -EOVERFLOW);
	io_uring_queue_exit(&src);
	/* a source without buffers */
	t_ring(&src, 8, NULL);
	CHECK_EQ(io_uring_clone_buffers(&ring, &src), -ENXIO);
	io_uring_queue_exit(&src);
	io_uring_queue_exit(&ring);

	/* resize: the kernel's needs IORING_SETUP_DEFER_TASKRUN */
	t_ring(&ring, 8, NULL);
	memset(&p, 0, sizeof(p));
	p.sq_entries = 16;
	p.cq_entries = 32;
	p.flags = IORING_SETUP_CQSIZE;
	CHECK_EQ(io_uring_resize_rings(&ring, &p), -EINVAL);
	CHECK_EQ(p.flags, 0);
	io_uring_queue_exit(&ring);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	t_ring(&ring, 8, &p);
	/* handed out, not submitted: moved to the new SQE array */
	{
		struct io_uring_sqe *sqe = t_sqe(&ring);

		io_uring_prep_nop(sqe);
		sqe->user_data = 9;
	}
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.sq_entries = 8;
	p.cq_entries = 64;
	CHECK_EQ(io_uring_resize_rings(&ring, &p), 0);
	CHECK_EQ(p.flags, 0);
	CHECK_EQ(ring.sq.ring_entries, 8);
	CHECK_EQ(ring.cq.ring_entries, 64);
	/* the NOP handed out before survives */
	{
		struct io_uring_cqe *cqe;

		CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->res, 0);
		CHECK_EQ(cqe->user_data, 9);
		io_uring_cqe_seen(&ring, cqe);
	}
	nop_roundtrip(&ring, 5);
	{
		/* a ring with CQEs in it, and an SQ array, resized again */
		struct io_uring_cqe *cqe;

		for (unsigned i = 0; i < 6; i++) {
			struct io_uring_sqe *sqe = t_sqe(&ring);

			io_uring_prep_nop(sqe);
			sqe->user_data = 100 + i;
		}
		CHECK_EQ(io_uring_submit_and_wait(&ring, 6), 6);
		memset(&p, 0, sizeof(p));
		p.sq_entries = 4;
		CHECK_EQ(io_uring_resize_rings(&ring, &p), 0);
		CHECK_EQ(ring.sq.ring_entries, 4);
		CHECK_EQ(ring.cq.ring_entries, 8);
		/* the CQEs moved along */
		for (unsigned i = 0; i < 6; i++) {
			CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
			CHECK_EQ(cqe->user_data, 100 + i);
			io_uring_cqe_seen(&ring, cqe);
		}
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
		for (unsigned i = 0; i < 3; i++)
			nop_roundtrip(&ring, 200 + i);
	}
	io_uring_queue_exit(&ring);
}

/* the calls on no ring: io_uring_register(-1, ...) */
static void test_blind(void)
{
	struct io_uring ring, target;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe sqe;
	__u64 q[4];

	/*
	 * Under denial the user engine answers them: QUERY as the kernel
	 * (query.c), the others -EINVAL (it has none of them)
	 */
	CHECK_EQ(io_uring_register_query(NULL), 0);
	/* a zeroed header: a query of opcode 0 whose answer is its own */
	memset(q, 0, sizeof(q));
	CHECK_EQ(io_uring_register_query((void *)q), 0);
	CHECK_EQ(io_uring_register_bpf_filter_task(NULL), -EINVAL);
	CHECK_EQ(io_uring_register_sync_msg(NULL), -EINVAL);

	/* a message to a ring of the test engine */
	t_ring(&target, 4, NULL);
	memset(&sqe, 0, sizeof(sqe));
	io_uring_prep_msg_ring(&sqe, target.ring_fd, 17, 0x1234, 0);
	CHECK_EQ(io_uring_register_sync_msg(&sqe), ENGINE(0, -EINVAL));
	if (!user) {
		CHECK_EQ(io_uring_wait_cqe(&target, &cqe), 0);
		CHECK_EQ(cqe->res, 17);
		CHECK_EQ(cqe->user_data, 0x1234);
		io_uring_cqe_seen(&target, cqe);
	}
	/* a target that is no ring */
	memset(&sqe, 0, sizeof(sqe));
	io_uring_prep_msg_ring(&sqe, 0, 17, 0x1234, 0);
	(void)ring;
	CHECK_EQ(io_uring_register_sync_msg(&sqe), denied ? -EINVAL : -EBADFD);
	io_uring_queue_exit(&target);
}

static void test_queue_init_mem(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 16 * page;
	struct io_uring_params p;
	struct io_uring ring;
	ssize_t need;
	char *mem;
	int ret;

	/* io_uring_queue_init_mem() sets up on the default engine */
	CHECK_EQ(setenv("ANYRING_ENGINE", t_engine(), 1), 0);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED);
	need = io_uring_memory_size(8, IORING_SETUP_NO_SQARRAY);
	CHECK(need > 0 && (size_t)need <= len);

	/* too small a buffer: liburing's -ENOMEM before any setup */
	memset(&p, 0, sizeof(p));
	CHECK_EQ(io_uring_queue_init_mem(8, &ring, &p, mem, page), -ENOMEM);

	memset(&p, 0, sizeof(p));
	ret = io_uring_queue_init_mem(8, &ring, &p, mem, len);
	/* the SQEs, then the rings: all in mem (both engines) */
	CHECK_EQ(ret, need);
	CHECK(p.flags & IORING_SETUP_NO_MMAP);
	CHECK(p.flags & IORING_SETUP_NO_SQARRAY);
	CHECK((char *)ring.sq.sqes == mem);
	CHECK((char *)ring.sq.ring_ptr >= mem &&
	      (char *)ring.sq.ring_ptr < mem + len);
	nop_roundtrip(&ring, 6);
	io_uring_queue_exit(&ring);
	/* the buffer is still the program's */
	mem[0] = 1;

	/* without a buffer liburing maps one page for the SQEs and rings */
	memset(&p, 0, sizeof(p));
	ret = io_uring_queue_init_mem(8, &ring, &p, NULL, 0);
	CHECK_EQ(ret, need);
	nop_roundtrip(&ring, 7);
	io_uring_queue_exit(&ring);
	munmap(mem, len);
	unsetenv("ANYRING_ENGINE");
}

/* register a region on a fresh ring (disabled or not); the answer */
static int t_region_try(struct ar_region_desc *rd, __u64 flags, bool disabled)
{
	struct ar_mem_region_reg mr = {
		.region_uptr = (uintptr_t)rd, .flags = flags,
	};
	struct io_uring_params p = {
		.flags = disabled ? IORING_SETUP_R_DISABLED : 0,
	};
	struct io_uring ring;
	int ret;

	t_ring(&ring, 8, &p);
	ret = io_uring_register_region(&ring, (void *)&mr);
	io_uring_queue_exit(&ring);
	return ret;
}

/* a wait at byte offset off of the region, argument size sz */
static int t_wait_at(struct io_uring *ring, unsigned long off, size_t sz)
{
	return io_uring_enter2((unsigned)ring->ring_fd, 0, 1,
			       IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG |
			       IORING_ENTER_EXT_ARG_REG, (void *)off, sz);
}

/*
 * Registered wait regions (IORING_REGISTER_MEM_REGION with
 * IORING_MEM_REGION_REG_WAIT_ARG, IORING_ENTER_EXT_ARG_REG), both
 * engines the same answers: the descriptor's checks, the region only
 * while the ring is disabled, one region a ring, then waits by index:
 * the timeout inline, an index past the region or an offset not a
 * multiple of a long -EFAULT, a wrong size or unknown flags -EINVAL, a
 * sigmask of the wrong size -EINVAL, a CQE ending the wait. The
 * engine's own memory (no TYPE_USER) gets its mmap offset back.
 */
static void test_wait_regions(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED };
	const long page = 4096;
	struct ar_region_desc rd;
	struct ar_mem_region_reg mr;
	struct ar_reg_wait *rw;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	sigset_t sig;
	char *buf, *ro;

	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED && ro != MAP_FAILED);

	/* the descriptor, as io_create_region() checks it */
	rd = (struct ar_region_desc){ .user_addr = (uintptr_t)buf, .size = page,
				     .flags = AR_MEM_REGION_TYPE_USER };
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, false), -EINVAL);
	CHECK_EQ(t_region_try(&rd, 2, true), -EINVAL);
	rd.resv[1] = 1;
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), -EINVAL);
	rd.resv[1] = 0;
	rd.flags = 2 | AR_MEM_REGION_TYPE_USER;
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), -EINVAL);
	rd.flags = 0;		/* the engine's memory, with an address */
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), -EFAULT);
	rd.flags = AR_MEM_REGION_TYPE_USER;
	rd.size = 0;
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), -EINVAL);
	rd.size = page;
	rd.id = 1;
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), -EINVAL);
	rd.id = 0;
	rd.user_addr += 16;
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), -EINVAL);
	rd.user_addr = (uintptr_t)ro;
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), -EFAULT);
	rd.user_addr = (uintptr_t)buf;
	CHECK_EQ(t_region_try(&rd, 0, false), 0);

	/* the engine's memory: its mmap offset comes back */
	rd = (struct ar_region_desc){ .size = page };
	CHECK_EQ(t_region_try(&rd, AR_MEM_REGION_REG_WAIT_ARG, true), 0);
	CHECK_EQ(rd.mmap_offset, AR_MAP_OFF_PARAM_REGION);

	/* wait arguments in the program's memory: two pages, 128 entries */
	t_ring(&ring, 8, &p);
	rd = (struct ar_region_desc){ .user_addr = (uintptr_t)buf,
				      .size = 2 * page,
				      .flags = AR_MEM_REGION_TYPE_USER };
	mr = (struct ar_mem_region_reg){ .region_uptr = (uintptr_t)&rd,
				    .flags = AR_MEM_REGION_REG_WAIT_ARG };
	CHECK_EQ(io_uring_register_region(&ring, (void *)&mr), 0);
	CHECK_EQ(rd.mmap_offset, 0);
	CHECK_EQ(io_uring_register_region(&ring, (void *)&mr), -EBUSY);
	CHECK_EQ(io_uring_enable_rings(&ring), 0);
	rw = (struct ar_reg_wait *)buf;
	memset(buf, 0, 2 * page);
	rw[0].flags = AR_REG_WAIT_TS;
	rw[0].ts.tv_nsec = 1000000;
	rw[127] = rw[0];
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 0), -ETIME);
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 127), -ETIME);
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 128), -EFAULT);
	CHECK_EQ(t_wait_at(&ring, 4, sizeof(*rw)), -EFAULT);
	CHECK_EQ(t_wait_at(&ring, 0UL - sizeof(long), sizeof(*rw)), -EFAULT);
	CHECK_EQ(t_wait_at(&ring, 0, sizeof(*rw) - 8), -EINVAL);
	rw[1].flags = 2;
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 1), -EINVAL);
	rw[1] = rw[0];
	sigemptyset(&sig);
	rw[1].sigmask = (uintptr_t)&sig;
	rw[1].sigmask_sz = 1;
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 1), -EINVAL);
	rw[1].sigmask_sz = sizeof(long);
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 1), -ETIME);
	/* a CQE ends it (liburing answers the count submitted, and the CQE) */
	rw[2].flags = AR_REG_WAIT_TS;
	rw[2].ts.tv_sec = 5;
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit_and_wait_reg(&ring, &cqe, 1, 2), 1);
	CHECK(cqe != NULL);
	CHECK_EQ(cqe->res, 0);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	munmap(buf, 2 * page);
	munmap(ro, page);
}

int main(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	int ret;

	user = !strcmp(t_engine(), ANYRING_ENGINE_USER);
	/* a kernel ring cannot be set up: io_uring is denied (seccomp) */
	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine(ANYRING_ENGINE_KERNEL, 2, &ring, &p);
	if (!ret)
		io_uring_queue_exit(&ring);
	denied = ret == -EPERM || ret == -ENOSYS;

	test_versions();
	test_memory_size();
	test_buf_ring();
	test_restrictions();
	test_close_ring_fd();
	test_clock_and_waits();
	test_registers();
	test_blind();
	test_queue_init_mem();
	test_wait_regions();
	printf("newer API on %s%s: ok\n", t_engine(),
	       denied ? " (io_uring denied)" : "");
	return 0;
}
