/* SPDX-License-Identifier: MIT */
/*
 * api-direct: O_DIRECT reads and writes (the user engine queues them with
 * native AIO). Random 4 KiB writes at depth 16 then reads at depth 32
 * return what was written; READV/WRITEV and READ_FIXED; a read past the
 * end of the file is short; a linked read -> write chain; reads beside a
 * TIMEOUT reaped by waits with timeouts; closing a ring with direct I/O
 * in flight completes it first. On a plain ring and on a
 * SINGLE_ISSUER | DEFER_TASKRUN one. Then batches of 32 reads, two of
 * them bad, 1024 in flight on a ring of 32: each read once. Then IOPOLL rings (plain, HYBRID,
 * SQPOLL): polled writes at depth 16, half from a registered buffer,
 * reaped by GETEVENTS for all of them, read back; a polled read completes
 * or is refused (-EOPNOTSUPP) as the device's queue allows; exit with
 * polled writes in flight. Skips where the file system has no O_DIRECT;
 * the IOPOLL part where it has no polled writes.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include "test.h"

#ifndef IORING_SETUP_HYBRID_IOPOLL
#define IORING_SETUP_HYBRID_IOPOLL	(1U << 17)
#endif

#define BS	4096
#define NBLK	256

static char path[512];

static int t_open_direct(void)
{
	const char *dir = getenv("ANYRING_BUILD");
	int fd;

	snprintf(path, sizeof(path), "%s/api-direct.%d", dir ? dir : ".",
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0600);
	if (fd < 0 && errno == EINVAL) {
		unlink(path);
		t_skip("no O_DIRECT on this file system");
	}
	CHECK(fd >= 0);
	unlink(path);
	CHECK_EQ(ftruncate(fd, (off_t)NBLK * BS), 0);
	return fd;
}

static void t_fill(unsigned char *p, unsigned blk)
{
	for (unsigned i = 0; i < BS; i++)
		p[i] = (unsigned char)(blk * 31 + i * 7 + 1);
}

/* submit n SQEs and reap n CQEs, checking each result */
static void t_run(struct io_uring *ring, unsigned n, int want)
{
	struct io_uring_cqe *cqe;

	CHECK_EQ(io_uring_submit(ring), n);
	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		if (cqe->res != want)
			fprintf(stderr, "user_data %llu: res %d, want %d\n",
				(unsigned long long)cqe->user_data, cqe->res, want);
		CHECK_EQ(cqe->res, want);
		io_uring_cqe_seen(ring, cqe);
	}
}

/*
 * Reads in flight with a TIMEOUT beside them, reaped by waits with a
 * timeout of their own: whichever wakes the waiter (a completion, the
 * TIMEOUT's post, its own deadline), every CQE comes, once.
 */
static void t_mixed(struct io_uring *ring, int fd, unsigned char *rd)
{
	struct __kernel_timespec tmo = { .tv_nsec = 1000000 };
	struct __kernel_timespec ts = { .tv_nsec = 200000 };
	struct io_uring_cqe *cqe;
	unsigned got = 0, reads = 0, timeouts = 0;
	struct io_uring_sqe *sqe;
	int ret;

	for (unsigned i = 0; i < 8; i++) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_read(sqe, fd, rd + (size_t)i * BS, BS, (__u64)i * BS);
		sqe->user_data = 1;
	}
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_timeout(sqe, &tmo, 0, 0);
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit(ring), 9);
	while (got < 9) {
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (ret == -ETIME)
			continue;
		CHECK_EQ(ret, 0);
		if (cqe->user_data == 1) {
			CHECK_EQ(cqe->res, BS);
			reads++;
		} else {
			CHECK_EQ(cqe->user_data, 2);
			CHECK_EQ(cqe->res, -ETIME);
			timeouts++;
		}
		io_uring_cqe_seen(ring, cqe);
		got++;
	}
	CHECK_EQ(reads, 8);
	CHECK_EQ(timeouts, 1);
}

/* the whole sequence on a ring set up with flags */
static void t_main(int fd, unsigned flags)
{
	struct io_uring_params p;
	struct io_uring ring;
	struct iovec iov[2];
	unsigned char *buf, *rd;
	unsigned i, j, order[NBLK];

	CHECK_EQ(posix_memalign((void **)&buf, BS, (size_t)NBLK * BS), 0);
	CHECK_EQ(posix_memalign((void **)&rd, BS, (size_t)NBLK * BS), 0);
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	t_ring(&ring, 64, &p);
	for (i = 0; i < NBLK; i++) {
		order[i] = i;
		t_fill(buf + (size_t)i * BS, i);
	}
	for (i = NBLK - 1; i > 0; i--) {	/* a fixed shuffle */
		j = (i * 2654435761U) % (i + 1);
		unsigned t = order[i]; order[i] = order[j]; order[j] = t;
	}
	/* writes at depth 16, in shuffled order */
	for (i = 0; i < NBLK; i += 16) {
		for (j = 0; j < 16; j++) {
			unsigned b = order[i + j];

			io_uring_prep_write(io_uring_get_sqe(&ring), fd,
					    buf + (size_t)b * BS, BS, (__u64)b * BS);
		}
		t_run(&ring, 16, BS);
	}
	/* reads at depth 32, READ and READV alternating */
	memset(rd, 0, (size_t)NBLK * BS);
	for (i = 0; i < NBLK; i += 32) {
		for (j = 0; j < 32; j++) {
			unsigned b = order[(i + j * 7) % NBLK];
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, fd, rd + (size_t)b * BS, BS,
					   (__u64)b * BS);
		}
		t_run(&ring, 32, BS);
	}
	CHECK(!memcmp(buf, rd, (size_t)NBLK * BS));
	/* READV over two buffers, WRITEV back */
	iov[0].iov_base = rd;
	iov[0].iov_len = BS;
	iov[1].iov_base = rd + BS;
	iov[1].iov_len = BS;
	io_uring_prep_readv(io_uring_get_sqe(&ring), fd, iov, 2, 10 * BS);
	t_run(&ring, 1, 2 * BS);
	CHECK(!memcmp(rd, buf + 10 * BS, 2 * BS));
	/* READ_FIXED from a registered buffer */
	iov[0].iov_base = rd;
	iov[0].iov_len = (size_t)NBLK * BS;
	CHECK_EQ(io_uring_register_buffers(&ring, iov, 1), 0);
	io_uring_prep_read_fixed(io_uring_get_sqe(&ring), fd, rd + BS, BS,
				 5 * BS, 0);
	t_run(&ring, 1, BS);
	CHECK(!memcmp(rd + BS, buf + 5 * BS, BS));
	/* past the end: the last block, then nothing */
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rd, 2 * BS,
			   (__u64)(NBLK - 1) * BS);
	t_run(&ring, 1, BS);
	/* a chain: read block 3, then write it to block 200 */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, rd, BS, 3 * BS);
		sqe->flags |= IOSQE_IO_LINK;
		io_uring_prep_write(io_uring_get_sqe(&ring), fd, rd, BS, 200 * BS);
	}
	t_run(&ring, 2, BS);
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rd + 2 * BS, BS, 200 * BS);
	t_run(&ring, 1, BS);
	CHECK(!memcmp(rd + 2 * BS, buf + 3 * BS, BS));
	t_mixed(&ring, fd, rd);
	/* close with reads in flight: they complete before the ring goes */
	for (i = 0; i < 32; i++)
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, rd + (size_t)i * BS,
				   BS, (__u64)i * BS);
	CHECK_EQ(io_uring_submit(&ring), 32);
	io_uring_queue_exit(&ring);
	/* the buffers may be reused now: nothing writes into them any more */
	memset(rd, 0, (size_t)NBLK * BS);
	free(buf);
	free(rd);
}

/* one polled write of block 0: its result (BS, or -EOPNOTSUPP) */
static int t_iopoll_probe(struct io_uring *ring, int fd, unsigned char *buf)
{
	struct io_uring_cqe *cqe;
	int res;

	io_uring_prep_write(io_uring_get_sqe(ring), fd, buf, BS, 0);
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* IOPOLL on the O_DIRECT file: false when the file system refuses it */
static bool t_iopoll(int fd, unsigned flags)
{
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct iovec iov;
	unsigned char *buf, *rd;
	unsigned i, j, seen;
	char name[64];
	int rfd, res;

	CHECK_EQ(posix_memalign((void **)&buf, BS, (size_t)NBLK * BS), 0);
	CHECK_EQ(posix_memalign((void **)&rd, BS, (size_t)NBLK * BS), 0);
	for (i = 0; i < NBLK; i++)
		t_fill(buf + (size_t)i * BS, i + 7);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_IOPOLL | flags;
	t_ring(&ring, 64, &p);
	res = t_iopoll_probe(&ring, fd, buf);
	if (res == -EOPNOTSUPP) {
		io_uring_queue_exit(&ring);
		free(buf);
		free(rd);
		return false;
	}
	CHECK_EQ(res, BS);
	iov.iov_base = buf;
	iov.iov_len = (size_t)NBLK * BS;
	CHECK_EQ(io_uring_register_buffers(&ring, &iov, 1), 0);
	/* depth 16, every other one from the registered buffer */
	for (i = 0; i < 128; i += 16) {
		for (j = i; j < i + 16; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			if (j & 1)
				io_uring_prep_write_fixed(sqe, fd, buf + (size_t)j * BS,
							  BS, (__u64)j * BS, 0);
			else
				io_uring_prep_write(sqe, fd, buf + (size_t)j * BS,
						    BS, (__u64)j * BS);
			sqe->user_data = j;
		}
		CHECK_EQ(io_uring_submit_and_wait(&ring, 16), 16);
		seen = 0;
		while (seen < 16) {
			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
			CHECK_EQ(cqe->res, BS);
			io_uring_cqe_seen(&ring, cqe);
			seen++;
		}
	}
	/* read back through the page cache, which O_DIRECT writes invalidate */
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	rfd = open(name, O_RDONLY);
	CHECK(rfd >= 0);
	CHECK_EQ(pread(rfd, rd, 128 * BS, 0), 128 * BS);
	CHECK(!memcmp(rd, buf, 128 * BS));
	close(rfd);
	/* a polled read: the device's queue decides, as on the kernel */
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rd, BS, 5 * BS);
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK(cqe->res == BS || cqe->res == -EOPNOTSUPP);
	if (cqe->res == BS)
		CHECK(!memcmp(rd, buf + 5 * BS, BS));
	io_uring_cqe_seen(&ring, cqe);
	/* exit with polled writes in flight: they complete first */
	for (i = 0; i < 16; i++)
		io_uring_prep_write(io_uring_get_sqe(&ring), fd,
				    buf + (size_t)i * BS, BS, (__u64)(i + 128) * BS);
	CHECK_EQ(io_uring_submit(&ring), 16);
	io_uring_queue_exit(&ring);
	free(buf);
	free(rd);
	return true;
}

#define PLUG_READS	1024
#define PLUG_BATCH	32

/*
 * More O_DIRECT reads in flight than the ring's AIO context holds, in
 * batches of 32 that are submitted without a reap between them: on the
 * user engine each batch goes to AIO in one io_submit() (the submit's
 * plug), which takes part of it once the context is full; the rest is
 * issued the usual way. The CQ (64) overflows into the backlog. Every
 * read completes once, with its block or its error.
 */
#ifndef RWF_ATOMIC
#define RWF_ATOMIC	0x00000040
#endif

/*
 * Two bad reads a batch: one with RWF_ATOMIC, which only a write may
 * have (io_submit() refuses it, -EOPNOTSUPP, and stops there: the rest
 * go in a second call), one into an unmapped buffer, which the kernel
 * finds during the I/O (-EFAULT).
 */
static int t_plug_want(unsigned i)
{
	return i % PLUG_BATCH == 5 ? -EOPNOTSUPP :
	       i % PLUG_BATCH == 17 ? -EFAULT : BS;
}

static void t_plug_full(int fd)
{
	unsigned char *buf, *rd, seen[PLUG_READS] = { 0 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned i, j, b;

	CHECK_EQ(posix_memalign((void **)&buf, BS, (size_t)NBLK * BS), 0);
	CHECK_EQ(posix_memalign((void **)&rd, BS, (size_t)PLUG_READS * BS), 0);
	for (b = 0; b < NBLK; b++)
		t_fill(buf + (size_t)b * BS, b + 7);
	CHECK_EQ(pwrite(fd, buf, (size_t)NBLK * BS, 0), (ssize_t)NBLK * BS);
	memset(rd, 0, (size_t)PLUG_READS * BS);
	t_ring(&ring, PLUG_BATCH, NULL);
	for (i = 0; i < PLUG_READS; i += PLUG_BATCH) {
		for (j = i; j < i + PLUG_BATCH; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			CHECK(sqe != NULL);
			io_uring_prep_read(sqe, fd, t_plug_want(j) == -EFAULT ?
					   (void *)4096UL : rd + (size_t)j * BS,
					   BS, (__u64)(j % NBLK) * BS);
			if (t_plug_want(j) == -EOPNOTSUPP)
				sqe->rw_flags = RWF_ATOMIC;
			sqe->user_data = j;
		}
		CHECK_EQ(io_uring_submit(&ring), PLUG_BATCH);
	}
	for (i = 0; i < PLUG_READS; i++) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK(cqe->user_data < PLUG_READS);
		CHECK_EQ(cqe->res, t_plug_want((unsigned)cqe->user_data));
		CHECK_EQ(seen[cqe->user_data]++, 0);
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	for (i = 0; i < PLUG_READS; i++)
		if (t_plug_want(i) == BS)
			CHECK(!memcmp(rd + (size_t)i * BS,
				      buf + (size_t)(i % NBLK) * BS, BS));
	io_uring_queue_exit(&ring);
	free(buf);
	free(rd);
}

int main(void)
{
	int fd = t_open_direct();

	t_main(fd, 0);
	t_plug_full(fd);
	/* the event-loop-free shape of bench/targets' enter rows */
	t_main(fd, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	if (t_iopoll(fd, 0)) {
		CHECK(t_iopoll(fd, IORING_SETUP_HYBRID_IOPOLL));
		CHECK(t_iopoll(fd, IORING_SETUP_SQPOLL));
	}
	close(fd);
	return 0;
}
