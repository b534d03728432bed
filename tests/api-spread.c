/* SPDX-License-Identifier: MIT */
/*
 * api-spread: issue=spread (the user engine's helper thread shares the
 * inline issue of a submit's reads and writes) gives the results of
 * issue=inline. Batches of 64 buffered reads of known blocks, as READ,
 * READV, READ_FIXED and through a registered file, each CQE once with the
 * block's bytes; batches of writes read back; a batch mixing a link, a
 * bad fd and IOSQE_ASYNC with plain reads; reads then a CLOSE of their fd
 * (the reads first, as on the kernel); a ring closed with a batch in
 * flight. On the user engine with two or more CPUs, the helper must have
 * issued some of them (spread_issued). The kernel engine refuses
 * issue=spread and runs the same checks.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/uio.h>
#include "test.h"

#define BS	4096
#define NBLK	1024
#define BATCH	64

static unsigned char bufs[BATCH][BS] __attribute__((aligned(4096)));
static struct iovec iovs[BATCH];

static unsigned char t_byte(unsigned blk, unsigned i, unsigned gen)
{
	return (unsigned char)(blk * 31 + i * 7 + gen * 13 + 1);
}

static void t_fill(unsigned char *p, unsigned blk, unsigned gen)
{
	for (unsigned i = 0; i < BS; i++)
		p[i] = t_byte(blk, i, gen);
}

static int t_check(const unsigned char *p, unsigned blk, unsigned gen)
{
	for (unsigned i = 0; i < BS; i++)
		if (p[i] != t_byte(blk, i, gen))
			return 0;
	return 1;
}

static int t_file(void)
{
	const char *dir = getenv("ANYRING_BUILD");
	char path[512];
	unsigned char blk[BS];
	int fd;

	snprintf(path, sizeof(path), "%s/api-spread.%d", dir ? dir : ".",
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	unlink(path);
	for (unsigned b = 0; b < NBLK; b++) {
		t_fill(blk, b, 0);
		CHECK_EQ(pwrite(fd, blk, BS, (off_t)b * BS), BS);
	}
	return fd;
}

static unsigned rnd_state = 12345;

static unsigned t_rand(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* one batch of reads of random blocks in four forms; each CQE checked once */
static void t_read_batch(struct io_uring *ring, int fd)
{
	unsigned blk[BATCH], seen = 0, i;
	unsigned long long mask[BATCH / 64 + 1] = { 0 };
	struct io_uring_cqe *cqe;

	for (i = 0; i < BATCH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		off_t off;

		blk[i] = t_rand() % NBLK;
		off = (off_t)blk[i] * BS;
		memset(bufs[i], 0, BS);
		switch (i % 4) {
		case 0:
			io_uring_prep_read(sqe, fd, bufs[i], BS, off);
			break;
		case 1:
			io_uring_prep_readv(sqe, fd, &iovs[i], 1, off);
			break;
		case 2:
			io_uring_prep_read_fixed(sqe, fd, bufs[i], BS, off, i);
			break;
		default:	/* the registered file */
			io_uring_prep_read(sqe, 0, bufs[i], BS, off);
			sqe->flags |= IOSQE_FIXED_FILE;
			break;
		}
		sqe->user_data = i;
	}
	CHECK_EQ(io_uring_submit_and_wait(ring, BATCH), BATCH);
	while (seen < BATCH) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		i = (unsigned)cqe->user_data;
		CHECK(i < BATCH);
		CHECK(!(mask[i / 64] & (1ull << (i % 64))));
		mask[i / 64] |= 1ull << (i % 64);
		CHECK_EQ(cqe->res, BS);
		CHECK(t_check(bufs[i], blk[i], 0));
		io_uring_cqe_seen(ring, cqe);
		seen++;
	}
}

/* distinct blocks written in one batch, then read back with pread */
static void t_write_batch(struct io_uring *ring, int fd, unsigned gen)
{
	struct io_uring_cqe *cqe;
	unsigned i, first = (gen * BATCH) % NBLK;

	for (i = 0; i < BATCH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		t_fill(bufs[i], first + i, gen);
		if (i % 2)
			io_uring_prep_write(sqe, fd, bufs[i], BS,
					    (off_t)(first + i) * BS);
		else
			io_uring_prep_writev(sqe, fd, &iovs[i], 1,
					     (off_t)(first + i) * BS);
		sqe->user_data = i;
	}
	CHECK_EQ(io_uring_submit_and_wait(ring, BATCH), BATCH);
	for (i = 0; i < BATCH; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		CHECK_EQ(cqe->res, BS);
		io_uring_cqe_seen(ring, cqe);
	}
	for (i = 0; i < BATCH; i++) {
		unsigned char back[BS];

		CHECK_EQ(pread(fd, back, BS, (off_t)(first + i) * BS), BS);
		CHECK(t_check(back, first + i, gen));
		/* restore generation 0 for the read batches */
		t_fill(back, first + i, 0);
		CHECK_EQ(pwrite(fd, back, BS, (off_t)(first + i) * BS), BS);
	}
}

/*
 * Plain reads around a linked read -> read, a read of a closed fd and an
 * IOSQE_ASYNC read: every result as on its own.
 */
static void t_mixed_batch(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned i, n = 0;
	int res[BATCH];

	for (i = 0; i < 24; i++) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_read(sqe, fd, bufs[i], BS, (off_t)i * BS);
		sqe->user_data = i;
		if (i == 5)
			sqe->flags |= IOSQE_IO_LINK;	/* 5 -> 6 */
		if (i == 9)
			sqe->fd = 1000;		/* not open: -EBADF */
		if (i == 12)
			sqe->flags |= IOSQE_ASYNC;
	}
	CHECK_EQ(io_uring_submit_and_wait(ring, 24), 24);
	while (n < 24) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		n++;
	}
	for (i = 0; i < 24; i++) {
		if (i == 9) {
			CHECK_EQ(res[i], -EBADF);
			continue;
		}
		CHECK_EQ(res[i], BS);
		CHECK(t_check(bufs[i], i, 0));
	}
}

/*
 * 16 reads of a dup of fd, then a CLOSE of it: the reads were issued
 * before the CLOSE, as on the kernel (whose requests hold their files),
 * though the helper took some of them
 */
static void t_close_after_shared(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;

	for (unsigned r = 0; r < 200; r++) {
		int dfd = dup(fd);

		CHECK(dfd >= 0);
		for (unsigned i = 0; i < 16; i++) {
			sqe = io_uring_get_sqe(ring);
			io_uring_prep_read(sqe, dfd, bufs[i], BS, (off_t)i * BS);
			sqe->user_data = i;
		}
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_close(sqe, dfd);
		sqe->user_data = 16;
		CHECK_EQ(io_uring_submit(ring), 17);
		for (unsigned n = 0; n < 17; n++) {
			CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
			if (cqe->user_data == 16) {
				CHECK_EQ(cqe->res, 0);
			} else {
				CHECK_EQ(cqe->res, BS);
				CHECK(t_check(bufs[cqe->user_data],
					      (unsigned)cqe->user_data, 0));
			}
			io_uring_cqe_seen(ring, cqe);
		}
	}
}

static void t_ring_setup(struct io_uring *ring, int fd, unsigned char issue)
{
	struct anyring_policy p;

	t_ring(ring, 2 * BATCH, NULL);
	memset(&p, 0, sizeof(p));
	p.issue = issue;
	/* the kernel engine issues in the submitting task: spread is refused */
	CHECK_EQ(anyring_ring_set_policy(ring, &p),
		 issue == ANYRING_ISSUE_SPREAD && strcmp(t_engine(), "user") ?
		 -EOPNOTSUPP : 0);
	CHECK_EQ(io_uring_register_buffers(ring, iovs, BATCH), 0);
	CHECK_EQ(io_uring_register_files(ring, &fd, 1), 0);
}

static void t_run(int fd, unsigned char issue)
{
	struct io_uring ring;
	struct anyring_stats st;
	bool user = !strcmp(t_engine(), "user");
	bool helper = user && issue == ANYRING_ISSUE_SPREAD &&
		      sysconf(_SC_NPROCESSORS_ONLN) > 1;
	unsigned round;

	t_ring_setup(&ring, fd, issue);
	CHECK_EQ(anyring_ring_stats_reset(&ring), 0);
	for (round = 0; round < 50; round++) {
		t_read_batch(&ring, fd);
		if (round % 10 == 0)
			t_write_batch(&ring, fd, round / 10 + 1);
	}
	t_mixed_batch(&ring, fd);
	t_close_after_shared(&ring, fd);
	/* the helper takes part once it runs: bounded, 20000 batches at most */
	for (round = 0; helper && round < 20000; round++) {
		CHECK_EQ(anyring_ring_stats(&ring, &st), 0);
		if (st.spread_issued)
			break;
		t_read_batch(&ring, fd);
	}
	CHECK_EQ(anyring_ring_stats(&ring, &st), 0);
	if (helper)
		CHECK(st.spread_issued > 0);
	if (!user || issue == ANYRING_ISSUE_INLINE)
		CHECK_EQ(st.spread_issued, 0);
	io_uring_queue_exit(&ring);
}

/* closing the ring with a batch in flight: every request ends, nothing leaks */
static void t_close_in_flight(int fd)
{
	struct io_uring ring;

	for (int r = 0; r < 20; r++) {
		t_ring_setup(&ring, fd, ANYRING_ISSUE_SPREAD);
		for (unsigned i = 0; i < BATCH; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, fd, bufs[i], BS,
					   (off_t)(t_rand() % NBLK) * BS);
		}
		CHECK_EQ(io_uring_submit(&ring), BATCH);
		io_uring_queue_exit(&ring);
	}
}

int main(void)
{
	int fd = t_file();

	for (unsigned i = 0; i < BATCH; i++) {
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = BS;
	}
	t_run(fd, ANYRING_ISSUE_INLINE);
	t_run(fd, ANYRING_ISSUE_SPREAD);
	t_close_in_flight(fd);
	close(fd);
	return 0;
}
