/* SPDX-License-Identifier: MIT */
/*
 * simdev: the simulated block device through the public API only
 * (anyring_simdev_create, anyring_simdev_power_loss) on user-engine rings:
 * data integrity, sparse zeros, spec errors, seeded faults, power loss
 * (drop and torn, memory and file), bounds, IOPOLL and HYBRID_IOPOLL,
 * SQPOLL+IOPOLL, registered files, closed fds, ring exit with I/O in
 * flight. Runs on the user engine whatever ANYRING_TEST_ENGINE says; no
 * timing is asserted.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>
#include "test.h"

#ifndef IORING_SETUP_HYBRID_IOPOLL
#define IORING_SETUP_HYBRID_IOPOLL	(1U << 17)
#endif

#define MB	(1024 * 1024)

static uint64_t rng_state = 0x1234567;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void ring_user(struct io_uring *ring, unsigned entries, unsigned flags)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	ret = anyring_queue_init_engine("user", entries, ring, &p);
	if (ret) {
		fprintf(stderr, "user ring (flags %#x): %s\n", flags, strerror(-ret));
		exit(1);
	}
}

static int dev(const char *spec)
{
	int fd = anyring_simdev_create(spec);

	if (fd < 0) {
		fprintf(stderr, "simdev '%s': %s\n", spec, strerror(-fd));
		exit(1);
	}
	return fd;
}

static void prep(struct io_uring *ring, int op, int fd, void *buf,
		 unsigned len, uint64_t off, uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	CHECK(sqe);
	if (op == IORING_OP_FSYNC)
		io_uring_prep_fsync(sqe, fd, 0);
	else
		io_uring_prep_rw(op, sqe, fd, buf, len, off);
	sqe->user_data = ud;
}

static int wait_one(struct io_uring *ring, uint64_t *ud)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_wait_cqe(ring, &cqe);

	CHECK_EQ(ret, 0);
	ret = cqe->res;
	if (ud)
		*ud = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/* one I/O, submitted and waited for; its result */
static int io1(struct io_uring *ring, int op, int fd, void *buf, unsigned len,
	       uint64_t off)
{
	prep(ring, op, fd, buf, len, off, 1);
	CHECK_EQ(io_uring_submit(ring), 1);
	return wait_one(ring, NULL);
}

static void fill(unsigned char *p, size_t n, unsigned char seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7 + (i >> 9));
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* ---- spec errors ---- */

static void test_bad_specs(void)
{
	static const char *const bad[] = {
		"size=abc", "size=0", "bs=1000", "bs=256", "size=10000",
		"lat=fixed", "lat=fixed:5", "lat=uniform:8us:2us",
		"lat=lognormal:20us", "lat=lognormal:20us:-1",
		"lat=table:p90=1ms:p50=2ms", "lat=table:p50=2ms:p90=1ms",
		"lat=table:50=1ms", "lat=gamma:1us", "qd=x", "qd=100000",
		"bw=fast", "completion=maybe", "coalesce=0", "coalesce=1000",
		"coalesce=4:5", "completion=poll,coalesce=4", "fault=bogus",
		"fault=eio@rate:2", "fault=eio@rate:0", "fault=eio@nth:0",
		"fault=short_read@op:write", "fault=eio@off:2M-1M",
		"fault=spike", "fault=spike:0", "fault=eio@when:1",
		"powerloss=maybe", "seed=x", "nokey", "=1", "size=1G,size=2G",
		"colour=blue", "file=", "spin=x", "spin=1s", NULL,
	};

	for (unsigned i = 0; bad[i]; i++) {
		int fd = anyring_simdev_create(bad[i]);

		if (fd != -EINVAL) {
			fprintf(stderr, "spec '%s' gave %d, expected -EINVAL\n",
				bad[i], fd);
			exit(1);
		}
	}
	CHECK_EQ(anyring_simdev_create(NULL), -EINVAL);
	/* a few good ones, every key */
	close(dev(""));
	close(dev("size=1M"));
	close(dev("size=1G,bs=4096,lat=fixed:5us,qd=32,bw=500M,completion=irq,"
		  "coalesce=8:50us,powerloss=torn,seed=7"));
	close(dev("lat=uniform:2us:8us"));
	close(dev("lat=lognormal:20us:0.5"));
	close(dev("lat=table:p50=80us:p90=120us:p99=400us:p100=2ms"));
	close(dev("completion=poll,fault=eio@rate:0.001,fault=short_read@nth:10,"
		  "fault=torn_write@off:0-1M,fault=spike:5ms@rate:0.01@op:read"));
	close(dev("coalesce=50us"));
	close(dev("spin=0,lat=fixed:1ms"));
}

/* ---- data ---- */

static void test_readback(const char *spec)
{
	const size_t size = 8 * MB, maxlen = 64 * 1024;
	unsigned char *shadow = calloc(1, size), *bufs[8], *rb = malloc(maxlen);
	struct io_uring ring;
	int fd = dev(spec);

	CHECK(shadow && rb);
	ring_user(&ring, 16, 0);
	for (int i = 0; i < 8; i++)
		CHECK(bufs[i] = malloc(maxlen));
	for (int round = 0; round < 40; round++) {
		/* 8 writes in flight, to disjoint eighths of the device */
		for (int i = 0; i < 8; i++) {
			size_t slot = size / 8, len = ((rnd() % (maxlen / 512)) + 1) * 512;
			size_t off = i * slot + (rnd() % ((slot - len) / 512)) * 512;

			for (size_t k = 0; k < len; k++)
				bufs[i][k] = (unsigned char)rnd();
			memcpy(shadow + off, bufs[i], len);
			prep(&ring, IORING_OP_WRITE, fd, bufs[i], (unsigned)len, off, len);
		}
		CHECK_EQ(io_uring_submit(&ring), 8);
		for (int i = 0; i < 8; i++) {
			uint64_t ud;
			int res = wait_one(&ring, &ud);

			CHECK_EQ(res, (int)ud);
		}
		/* read a random range back */
		for (int i = 0; i < 4; i++) {
			size_t len = ((rnd() % (maxlen / 512)) + 1) * 512;
			size_t off = (rnd() % ((size - len) / 512)) * 512;

			CHECK_EQ(io1(&ring, IORING_OP_READ, fd, rb, (unsigned)len, off),
				 (int)len);
			CHECK(!memcmp(rb, shadow + off, len));
		}
	}
	/* readv across written and never-written parts */
	{
		struct iovec iov[3] = {
			{ rb, 4096 }, { rb + 4096, 512 }, { rb + 4608, 8192 },
		};
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_readv(sqe, fd, iov, 3, 1536);
		CHECK_EQ(io_uring_submit(&ring), 1);
		CHECK_EQ(wait_one(&ring, NULL), 4096 + 512 + 8192);
		CHECK(!memcmp(rb, shadow + 1536, 4096 + 512 + 8192));
	}
	io_uring_queue_exit(&ring);
	close(fd);
	for (int i = 0; i < 8; i++)
		free(bufs[i]);
	free(shadow);
	free(rb);
}

static void test_sparse_and_bounds(void)
{
	unsigned char buf[16384];
	struct io_uring ring;
	int fd = dev("size=1M,bs=4096");

	ring_user(&ring, 8, 0);
	memset(buf, 0xaa, sizeof(buf));
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 8192, 512 * 1024), 8192);
	CHECK(all_zero(buf, 8192));
	/* a partial block write leaves the rest of the block zero */
	fill(buf, 512, 3);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, buf, 512, 1024), 512);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf + 4096, 4096, 0), 4096);
	CHECK(all_zero(buf + 4096, 1024) && all_zero(buf + 4096 + 1536, 4096 - 1536));
	CHECK(!memcmp(buf, buf + 4096 + 1024, 512));
	/* the end: reads short then 0, writes short then -ENOSPC */
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 8192, MB - 4096), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 4096, MB), 0);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, buf, 8192, MB - 4096), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, buf, 4096, MB), -ENOSPC);
	/* 512-byte units, no file position */
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 4096, 100), -EINVAL);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 1000, 0), -EINVAL);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 4096, (uint64_t)-1), -EINVAL);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 0, 0), 0);
	/* HIPRI needs an IOPOLL ring */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, buf, 4096, 0);
		sqe->rw_flags = RWF_HIPRI;
		CHECK_EQ(io_uring_submit(&ring), 1);
		CHECK_EQ(wait_one(&ring, NULL), -EINVAL);
	}
	io_uring_queue_exit(&ring);
	close(fd);
}

/* a short read breaks its link; a full one goes on */
static void test_links(void)
{
	unsigned char a[4096], b[4096];
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int fd = dev("size=1M,fault=short_read@nth:2");

	ring_user(&ring, 8, 0);
	fill(a, sizeof(a), 9);
	prep(&ring, IORING_OP_WRITE, fd, a, 4096, 0, 1);
	io_uring_sqe_set_flags(sqe = &ring.sq.sqes[(ring.sq.sqe_tail - 1) & ring.sq.ring_mask],
			       IOSQE_IO_LINK);
	prep(&ring, IORING_OP_READ, fd, b, 4096, 0, 2);
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK_EQ(wait_one(&ring, NULL), 4096);
	CHECK_EQ(wait_one(&ring, NULL), 4096);
	CHECK(!memcmp(a, b, 4096));
	/* the device's second read is short: the linked read is cancelled */
	prep(&ring, IORING_OP_READ, fd, b, 4096, 0, 3);
	io_uring_sqe_set_flags(&ring.sq.sqes[(ring.sq.sqe_tail - 1) & ring.sq.ring_mask],
			       IOSQE_IO_LINK);
	prep(&ring, IORING_OP_READ, fd, b, 4096, 0, 4);
	CHECK_EQ(io_uring_submit(&ring), 2);
	{
		int r1 = wait_one(&ring, NULL), r2 = wait_one(&ring, NULL);

		CHECK(r1 >= 0 && r1 < 4096 && r1 % 512 == 0);
		CHECK_EQ(r2, -ECANCELED);
	}
	(void)sqe;
	io_uring_queue_exit(&ring);
	close(fd);
}

/* ---- faults and seeds ---- */

static void run_seq(const char *spec, int *res, int n)
{
	unsigned char buf[8192];
	struct io_uring ring;
	int fd = dev(spec);

	ring_user(&ring, 4, 0);
	for (int i = 0; i < n; i++) {
		int op = i % 3 == 2 ? IORING_OP_WRITE : IORING_OP_READ;

		res[i] = io1(&ring, op, fd, buf, 8192, (uint64_t)(i % 64) * 8192);
	}
	io_uring_queue_exit(&ring);
	close(fd);
}

static void test_seed(void)
{
	const char *spec = "size=1M,lat=uniform:0:20us,fault=eio@rate:0.1,"
			   "fault=short_read@rate:0.1,fault=short_write@rate:0.05,seed=42";
	int a[300], b[300], c[300], faults = 0;
	bool differ = false;

	run_seq(spec, a, 300);
	run_seq(spec, b, 300);
	run_seq("size=1M,lat=uniform:0:20us,fault=eio@rate:0.1,"
		"fault=short_read@rate:0.1,fault=short_write@rate:0.05,seed=43", c, 300);
	for (int i = 0; i < 300; i++) {
		CHECK_EQ(a[i], b[i]);
		CHECK(a[i] == -EIO || (a[i] >= 0 && a[i] <= 8192 && a[i] % 512 == 0));
		faults += a[i] != 8192;
		differ |= a[i] != c[i];
	}
	CHECK(faults > 0 && faults < 300);
	CHECK(differ);
}

static void test_faults(void)
{
	unsigned char w[8192], r[8192];
	struct io_uring ring;
	int fd, res;

	ring_user(&ring, 4, 0);
	/* the 3rd op gets EIO, nothing else does */
	fd = dev("size=1M,fault=eio@nth:3");
	for (int i = 1; i <= 5; i++)
		CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 0), i == 3 ? -EIO : 4096);
	close(fd);
	/* EIO on a write: nothing written */
	fd = dev("size=1M,fault=eio@op:write@nth:2");
	fill(w, sizeof(w), 1);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, w, 4096, 0), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, w, 4096, 4096), -EIO);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 8192, 0), 8192);
	CHECK(!memcmp(r, w, 4096) && all_zero(r + 4096, 4096));
	close(fd);
	/* every 2nd read short, reads only */
	fd = dev("size=1M,fault=short_read@every:2");
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, w, 8192, 0), 8192);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 8192, 0), 8192);
	res = io1(&ring, IORING_OP_READ, fd, r, 8192, 0);
	CHECK(res >= 0 && res < 8192 && res % 512 == 0);
	CHECK(!memcmp(r, w, (size_t)res));
	close(fd);
	/* a short write moves a prefix and says so */
	fd = dev("size=1M,fault=short_write@nth:1");
	res = io1(&ring, IORING_OP_WRITE, fd, w, 8192, 0);
	CHECK(res >= 0 && res < 8192 && res % 512 == 0);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 8192, 0), 8192);
	CHECK(!memcmp(r, w, (size_t)res) && all_zero(r + res, 8192 - (size_t)res));
	close(fd);
	/* a torn write says it all went, but only a prefix did */
	fd = dev("size=1M,fault=torn_write@off:0-4096");
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, w, 8192, 8192), 8192);	/* outside */
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, w, 8192, 0), 8192);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 8192, 0), 8192);
	{
		size_t k = 0;

		while (k < 8192 && r[k] == w[k])
			k++;
		CHECK(k >= 512 && k < 8192 && k % 512 == 0 && all_zero(r + k, 8192 - k));
	}
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 8192, 8192), 8192);
	CHECK(!memcmp(r, w, 8192));
	close(fd);
	/* EIO on flush; spikes only delay */
	fd = dev("size=1M,fault=eio@op:flush@nth:1,fault=spike:1ms@every:2");
	CHECK_EQ(io1(&ring, IORING_OP_FSYNC, fd, NULL, 0, 0), -EIO);
	CHECK_EQ(io1(&ring, IORING_OP_FSYNC, fd, NULL, 0, 0), 0);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 0), 4096);
	close(fd);
	io_uring_queue_exit(&ring);
}

/* ---- power loss ---- */

static void test_power_loss_drop(const char *spec)
{
	unsigned char a[4096], b[4096], r[4096];
	struct io_uring ring;
	int fd = dev(spec);

	ring_user(&ring, 4, 0);
	fill(a, sizeof(a), 'A');
	fill(b, sizeof(b), 'B');
	/* A at 0 and 64K, synced; then B at 8K (new) and over A at 64K */
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, a, 4096, 0), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, a, 4096, 65536), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_FSYNC, fd, NULL, 0, 0), 0);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, b, 4096, 8192), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, b, 4096, 65536), 4096);
	/* before the power loss, reads see B */
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 65536), 4096);
	CHECK(!memcmp(r, b, 4096));
	CHECK_EQ(anyring_simdev_power_loss(fd), 0);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 0), 4096);
	CHECK(!memcmp(r, a, 4096));
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 65536), 4096);
	CHECK(!memcmp(r, a, 4096));
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 8192), 4096);
	CHECK(all_zero(r, 4096));
	/* a write after the loss, synced, survives the next one */
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, b, 4096, 8192), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_FSYNC, fd, NULL, 0, 0), 0);
	CHECK_EQ(anyring_simdev_power_loss(fd), 0);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 8192), 4096);
	CHECK(!memcmp(r, b, 4096));
	io_uring_queue_exit(&ring);
	close(fd);
}

/* a flush covers what completed before it was submitted, not what came after */
static void test_flush_coverage(void)
{
	unsigned char a[4096], b[4096], r[4096];
	struct io_uring ring;
	int fd = dev("size=1M,lat=fixed:2ms");

	ring_user(&ring, 8, 0);
	fill(a, sizeof(a), 'a');
	fill(b, sizeof(b), 'b');
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, a, 4096, 0), 4096);
	/* the flush and a rewrite of the block go together: B is not covered */
	prep(&ring, IORING_OP_FSYNC, fd, NULL, 0, 0, 1);
	prep(&ring, IORING_OP_WRITE, fd, b, 4096, 0, 2);
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK(wait_one(&ring, NULL) >= 0);
	CHECK(wait_one(&ring, NULL) >= 0);
	CHECK_EQ(anyring_simdev_power_loss(fd), 0);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 0), 4096);
	/* A was covered; B may have become durable only if the device chose to */
	CHECK(!memcmp(r, a, 4096) || !memcmp(r, b, 4096));
	io_uring_queue_exit(&ring);
	close(fd);
}

static void test_power_loss_torn(void)
{
	unsigned char buf[4096], r[4096];
	struct io_uring ring;
	int fd = dev("size=1M,powerloss=torn,seed=5"), kept = 0, lost = 0;

	ring_user(&ring, 8, 0);
	for (int i = 0; i < 64; i++) {
		fill(buf, sizeof(buf), (unsigned char)(i + 1));
		CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, buf, 4096, (uint64_t)i * 4096), 4096);
	}
	CHECK_EQ(anyring_simdev_power_loss(fd), 0);
	for (int i = 0; i < 64; i++) {
		fill(buf, sizeof(buf), (unsigned char)(i + 1));
		CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, (uint64_t)i * 4096), 4096);
		if (!memcmp(r, buf, 4096))
			kept++;
		else if (all_zero(r, 4096))
			lost++;
		else
			CHECK(!"a block is neither its write nor its old contents");
	}
	CHECK(kept > 0 && lost > 0);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void test_file_backed(void)
{
	char path[] = "/tmp/anyring-simdev-XXXXXX";
	unsigned char a[4096], b[4096], r[4096];
	struct io_uring ring;
	char spec[128];
	int tfd = mkstemp(path), fd;

	CHECK(tfd >= 0);
	close(tfd);
	snprintf(spec, sizeof(spec), "size=1M,file=%s", path);
	fd = dev(spec);
	ring_user(&ring, 4, 0);
	fill(a, sizeof(a), 'F');
	fill(b, sizeof(b), 'G');
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, a, 4096, 4096), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, a, 1024, 65536 + 512), 1024);
	CHECK_EQ(io1(&ring, IORING_OP_FSYNC, fd, NULL, 0, 0), 0);
	CHECK_EQ(io1(&ring, IORING_OP_WRITE, fd, b, 4096, 4096), 4096);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 4096), 4096);
	CHECK(!memcmp(r, b, 4096));
	CHECK_EQ(anyring_simdev_power_loss(fd), 0);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 4096), 4096);
	CHECK(!memcmp(r, a, 4096));
	close(fd);
	/* the file holds the durable data: a new device on it (its size) sees it */
	snprintf(spec, sizeof(spec), "file=%s", path);
	fd = dev(spec);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 4096), 4096);
	CHECK(!memcmp(r, a, 4096));
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 2048, 65536), 2048);
	CHECK(all_zero(r, 512) && !memcmp(r + 512, a, 1024) && all_zero(r + 1536, 512));
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, MB), 0);
	io_uring_queue_exit(&ring);
	close(fd);
	unlink(path);
}

/* ---- polling ---- */

static void poll_rw(unsigned flags, const char *spec, int qd)
{
	unsigned char *w = malloc(64 * 4096), *r = malloc(64 * 4096);
	struct io_uring ring;
	int fd = dev(spec);

	CHECK(w && r);
	ring_user(&ring, 64, flags);
	for (int i = 0; i < 64 * 4096; i++)
		w[i] = (unsigned char)rnd();
	for (int round = 0; round < 64 / qd; round++) {
		for (int i = 0; i < qd; i++) {
			int k = round * qd + i;

			prep(&ring, IORING_OP_WRITE, fd, w + k * 4096, 4096,
			     (uint64_t)k * 4096, (uint64_t)k);
		}
		CHECK_EQ(io_uring_submit(&ring), qd);
		for (int i = 0; i < qd; i++)
			CHECK_EQ(wait_one(&ring, NULL), 4096);
	}
	for (int round = 0; round < 64 / qd; round++) {
		for (int i = 0; i < qd; i++) {
			int k = round * qd + i;

			prep(&ring, IORING_OP_READ, fd, r + k * 4096, 4096,
			     (uint64_t)k * 4096, (uint64_t)k);
		}
		CHECK_EQ(io_uring_submit_and_wait(&ring, qd), qd);
		for (int i = 0; i < qd; i++)
			CHECK_EQ(wait_one(&ring, NULL), 4096);
	}
	CHECK(!memcmp(w, r, 64 * 4096));
	io_uring_queue_exit(&ring);
	close(fd);
	free(w);
	free(r);
}

static void test_iopoll(void)
{
	unsigned char buf[4096];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd;

	poll_rw(IORING_SETUP_IOPOLL, "size=1M,lat=fixed:20us,completion=poll", 1);
	poll_rw(IORING_SETUP_IOPOLL, "size=1M,lat=uniform:5us:50us,completion=poll", 8);
	poll_rw(IORING_SETUP_IOPOLL | IORING_SETUP_HYBRID_IOPOLL,
		"size=1M,lat=fixed:50us,completion=poll", 1);
	poll_rw(IORING_SETUP_IOPOLL | IORING_SETUP_HYBRID_IOPOLL,
		"size=1M,lat=lognormal:30us:0.5,completion=poll", 8);
	setenv("ANYRING_HYBRID", "half-min", 1);
	poll_rw(IORING_SETUP_IOPOLL | IORING_SETUP_HYBRID_IOPOLL,
		"size=1M,lat=fixed:50us,completion=poll", 4);
	unsetenv("ANYRING_HYBRID");
	/* DEFER_TASKRUN: completions from workers wait for the polling task */
	poll_rw(IORING_SETUP_IOPOLL | IORING_SETUP_SINGLE_ISSUER |
		IORING_SETUP_DEFER_TASKRUN, "size=1M,lat=fixed:20us,completion=poll", 4);
	{
		struct io_uring_sqe *sqe;

		ring_user(&ring, 8, IORING_SETUP_IOPOLL | IORING_SETUP_SINGLE_ISSUER |
			  IORING_SETUP_DEFER_TASKRUN);
		for (int i = 0; i < 4; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_nop(sqe);
			sqe->flags |= IOSQE_ASYNC;
		}
		CHECK_EQ(io_uring_submit(&ring), 4);
		for (int i = 0; i < 4; i++)
			CHECK_EQ(wait_one(&ring, NULL), 0);
		io_uring_queue_exit(&ring);
	}
	/* SQPOLL + IOPOLL: the SQ thread polls */
	poll_rw(IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL,
		"size=1M,lat=fixed:20us,completion=poll", 4);
	/* a poll device on a ring without IOPOLL: delivered by the device thread */
	poll_rw(0, "size=1M,lat=fixed:20us,completion=poll", 8);

	/* IOPOLL on a device that is not polled: -EOPNOTSUPP */
	fd = dev("size=1M,completion=irq");
	ring_user(&ring, 4, IORING_SETUP_IOPOLL);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, buf, 4096, 0), -EOPNOTSUPP);
	/* a peek on an IOPOLL ring reaps without waiting */
	close(fd);
	fd = dev("size=1M,lat=fixed:100us,completion=poll");
	prep(&ring, IORING_OP_READ, fd, buf, 4096, 0, 7);
	CHECK_EQ(io_uring_submit(&ring), 1);
	while (io_uring_peek_cqe(&ring, &cqe))
		;
	CHECK_EQ(cqe->res, 4096);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	close(fd);
}

/* ---- fds and ring exit ---- */

static void test_fds(void)
{
	unsigned char buf[4096], r[4096];
	struct io_uring ring;
	int fd = dev("size=1M"), fd2, files[1];

	ring_user(&ring, 8, 0);
	/* a registered simdev fd works through IOSQE_FIXED_FILE */
	fill(buf, sizeof(buf), 'R');
	files[0] = fd;
	CHECK_EQ(io_uring_register_files(&ring, files, 1), 0);
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_write(sqe, 0, buf, 4096, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		CHECK_EQ(io_uring_submit(&ring), 1);
		CHECK_EQ(wait_one(&ring, NULL), 4096);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, 0, r, 4096, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		CHECK_EQ(io_uring_submit(&ring), 1);
		CHECK_EQ(wait_one(&ring, NULL), 4096);
		CHECK(!memcmp(r, buf, 4096));
	}
	CHECK_EQ(io_uring_unregister_files(&ring), 0);

	/* closed: the number is no device any more */
	close(fd);
	CHECK_EQ(anyring_simdev_power_loss(fd), -EBADF);
	CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 0), -EBADF);
	/* ... and reused by a file, it is that file */
	fd2 = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	CHECK(fd2 >= 0);
	if (fd2 == fd) {
		memset(r, 0x55, sizeof(r));
		CHECK_EQ(io1(&ring, IORING_OP_READ, fd2, r, 100, 0), 100);
		CHECK(all_zero(r, 100));
		CHECK_EQ(anyring_simdev_power_loss(fd2), -EINVAL);
	}
	close(fd2);
	/* not a simdev at all */
	CHECK_EQ(anyring_simdev_power_loss(0), -EINVAL);
	io_uring_queue_exit(&ring);

	/* a kernel ring refuses the fd (O_PATH): -EBADF */
	fd = dev("size=1M");
	{
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		if (!anyring_queue_init_engine("kernel", 4, &ring, &p)) {
			CHECK_EQ(io1(&ring, IORING_OP_READ, fd, r, 4096, 0), -EBADF);
			io_uring_queue_exit(&ring);
		} else {
			printf("kernel io_uring refused here: O_PATH check skipped\n");
		}
	}
	close(fd);
}

/* closing a ring with device I/O in flight: each finishes, nothing leaks */
static void test_exit_inflight(void)
{
	static unsigned char buf[16][4096];
	struct io_uring ring;
	int fd = dev("size=1M,lat=fixed:3ms"), pfd;

	ring_user(&ring, 32, 0);
	for (int i = 0; i < 16; i++)
		prep(&ring, i & 1 ? IORING_OP_WRITE : IORING_OP_READ, fd, buf[i],
		     4096, (uint64_t)i * 4096, (uint64_t)i);
	CHECK_EQ(io_uring_submit(&ring), 16);
	io_uring_queue_exit(&ring);

	pfd = dev("size=1M,lat=fixed:3ms,completion=poll");
	ring_user(&ring, 32, IORING_SETUP_IOPOLL);
	for (int i = 0; i < 16; i++)
		prep(&ring, IORING_OP_READ, pfd, buf[i], 4096, (uint64_t)i * 4096,
		     (uint64_t)i);
	CHECK_EQ(io_uring_submit(&ring), 16);
	io_uring_queue_exit(&ring);
	/* the devices outlive the rings, and the other way round */
	ring_user(&ring, 4, 0);
	prep(&ring, IORING_OP_READ, fd, buf[0], 4096, 0, 1);
	CHECK_EQ(io_uring_submit(&ring), 1);
	close(fd);
	/* a new device sweeps the closed one: the I/O holds the last reference */
	close(dev("size=1M"));
	CHECK_EQ(wait_one(&ring, NULL), 4096);
	io_uring_queue_exit(&ring);
	close(pfd);
}

static void test_coalesce_qd_bw(void)
{
	static unsigned char buf[8][8192];
	struct io_uring ring;
	const char *specs[] = {
		"size=1M,lat=fixed:10us,coalesce=4:200us",
		"size=1M,lat=fixed:10us,coalesce=100us",
		"size=1M,lat=uniform:1us:30us,qd=2",
		"size=1M,lat=fixed:1us,bw=64M",
		"size=1M,lat=table:p0=5us:p50=10us:p100=40us",
	};

	ring_user(&ring, 16, 0);
	for (unsigned s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		int fd = dev(specs[s]);

		for (int round = 0; round < 4; round++) {
			for (int i = 0; i < 8; i++)
				prep(&ring, IORING_OP_READ, fd, buf[i], 8192,
				     (uint64_t)i * 8192, (uint64_t)i);
			CHECK_EQ(io_uring_submit(&ring), 8);
			for (int i = 0; i < 8; i++)
				CHECK_EQ(wait_one(&ring, NULL), 8192);
		}
		close(fd);
	}
	io_uring_queue_exit(&ring);
}

int main(void)
{
	test_bad_specs();
	test_readback("size=8M,bs=4096");
	test_readback("size=8M,bs=512,lat=uniform:0:30us,qd=4");
	test_readback("size=8M,bs=65536,lat=fixed:5us,completion=poll");
	test_sparse_and_bounds();
	test_links();
	test_seed();
	test_faults();
	test_power_loss_drop("size=1M");
	test_power_loss_drop("size=1M,bs=512,lat=uniform:0:10us");
	test_flush_coverage();
	test_power_loss_torn();
	test_file_backed();
	test_iopoll();
	test_fds();
	test_exit_inflight();
	test_coalesce_qd_bw();
	printf("simdev: all passed\n");
	return 0;
}
