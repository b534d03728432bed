/* SPDX-License-Identifier: MIT */
/*
 * diff_rw.c - the read/write family of ops/rw.c: READ, WRITE, READV,
 * WRITEV on a regular file and a pipe: full transfers, a short read at
 * EOF, a read past EOF, offset -1 (the file position, which must
 * advance), zero-length reads. Side effects are checked: the bytes read
 * land in the buffers, the bytes written in the file. Independent
 * requests may complete in any order.
 *
 * The rw_single_* scenarios submit each READ alone: the user engine
 * reads a lone cached READ without a request (submit.c's fast read) and
 * hands everything else back to the request path. They cover its edges:
 * short, at EOF, empty, faulting buffers, a cold page, a write-only fd,
 * an fd number reused by a pipe after the fd cache saw a regular file.
 *
 * The rw_batch_* scenarios set issue=inline on the ring (both engines)
 * and submit many reads at once: the user engine reads a submit's
 * page-cache reads together in one io_submit() (backend/batch.c), and
 * must give the kernel's CQEs in the kernel's order, with a NOP, a
 * pipe's read, a read at the file position and a CLOSE among them, and
 * with buffers that fault.
 *
 * Then READV/WRITEV on registered files, per-request RWF_* flags and
 * ioprio; READ_FIXED and WRITE_FIXED on registered buffers (and a bad
 * buf_index, an address outside the buffer, no buffers at all), and
 * READV_FIXED and WRITEV_FIXED (iovecs inside and outside the registered
 * buffer, and their bad input).
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include "harness.h"

#define FILE_LEN	8192

static char *pattern(size_t len, unsigned seed)
{
	static char p[FILE_LEN];

	diff_pattern(p, len, seed);
	return p;
}

static struct io_uring_sqe *sqe_rw(struct io_uring *ring, struct diff_ctx *c,
				   int op, int fd, void *buf, unsigned len,
				   __u64 off)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_rw(op, sqe, fd, buf, len, off);
	return sqe;
}

/* val[0]: "data", FILE_LEN bytes of pattern seed 1, read-write */
static int setup_data(struct diff_ctx *c)
{
	c->val[0] = diff_file(c, "data", pattern(FILE_LEN, 1), FILE_LEN,
			      O_RDWR);
	return c->val[0] < 0 ? -1 : 0;
}

/* val[0]: "small", 100 bytes of pattern seed 1 */
static int setup_small(struct diff_ctx *c)
{
	c->val[0] = diff_file(c, "small", pattern(100, 1), 100, O_RDWR);
	return c->val[0] < 0 ? -1 : 0;
}

static int fill_read_full(struct io_uring *ring, struct diff_ctx *c)
{
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[0], 4096, 0),
		 1, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[1], 4096,
			4096), 2, 0);
	return 0;
}

static int check_read_full(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	const char *p = pattern(FILE_LEN, 1);

	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[0], p, 4096, "buf 0"))
		return -1;
	return diff_check_buf(c, c->buf[1], p + 4096, 4096, "buf 1");
}

static int fill_short_eof(struct io_uring *ring, struct diff_ctx *c)
{
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[0], 4096, 0),
		 1, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[1], 4096,
			8192), 2, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[2], 0, 0),
		 3, 0);
	return 0;
}

static int check_short_eof(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[0], pattern(100, 1), 100, "buf 0");
}

/* position 10; two linked reads of 20 at offset -1 read 10..30, 30..50 */
static int fill_read_pos(struct io_uring *ring, struct diff_ctx *c)
{
	if (lseek(c->val[0], 10, SEEK_SET) != 10)
		return diff_fail(c, "lseek: %s", strerror(errno));
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[0], 20,
			(__u64)-1), 1, IOSQE_IO_LINK);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[1], 20,
			(__u64)-1), 2, 0);
	return 0;
}

static int check_read_pos(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	const char *p = pattern(FILE_LEN, 1);
	off_t pos = lseek(c->val[0], 0, SEEK_CUR);

	(void)cqe;
	(void)nr;
	if (pos != 50)
		return diff_fail(c, "file position %lld, expected 50",
				 (long long)pos);
	if (diff_check_buf(c, c->buf[0], p + 10, 20, "buf 0"))
		return -1;
	return diff_check_buf(c, c->buf[1], p + 30, 20, "buf 1");
}

static int fill_write_full(struct io_uring *ring, struct diff_ctx *c)
{
	diff_pattern(c->buf[0], 4096, 3);
	diff_tag(sqe_rw(ring, c, IORING_OP_WRITE, c->val[0], c->buf[0], 4096,
			4096), 1, 0);
	return 0;
}

static int check_write_full(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	char *want = pattern(FILE_LEN, 1);

	(void)cqe;
	(void)nr;
	diff_pattern(want + 4096, 4096, 3);
	return diff_check_file(c, "data", want, FILE_LEN);
}

/*
 * 16 IOSQE_ASYNC writes to one file: io-wq serialises a regular file's
 * buffered writes (hashed per inode), in submission order, so their CQEs
 * come in that order.
 */
#define HASHED_WRITES	16

static int fill_write_hashed(struct io_uring *ring, struct diff_ctx *c)
{
	diff_pattern(c->buf[0], 4096, 5);
	for (unsigned i = 0; i < HASHED_WRITES; i++)
		diff_tag(sqe_rw(ring, c, IORING_OP_WRITE, c->val[0],
				c->buf[0] + i * 256, 256, i * 512),
			 i + 1, IOSQE_ASYNC);
	return 0;
}

static int check_write_hashed(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	char *want = pattern(FILE_LEN, 1);

	(void)cqe;
	(void)nr;
	for (unsigned i = 0; i < HASHED_WRITES; i++)
		memcpy(want + i * 512, c->buf[0] + i * 256, 256);
	return diff_check_file(c, "data", want, FILE_LEN);
}

/* position 50 of "small"; two linked writes of 20 at offset -1 */
static int fill_write_pos(struct io_uring *ring, struct diff_ctx *c)
{
	if (lseek(c->val[0], 50, SEEK_SET) != 50)
		return diff_fail(c, "lseek: %s", strerror(errno));
	memset(c->buf[0], 'X', 20);
	memset(c->buf[1], 'Y', 20);
	diff_tag(sqe_rw(ring, c, IORING_OP_WRITE, c->val[0], c->buf[0], 20,
			(__u64)-1), 1, IOSQE_IO_LINK);
	diff_tag(sqe_rw(ring, c, IORING_OP_WRITE, c->val[0], c->buf[1], 20,
			(__u64)-1), 2, 0);
	return 0;
}

static int check_write_pos(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	char *want = pattern(100, 1);

	(void)cqe;
	(void)nr;
	memset(want + 50, 'X', 20);
	memset(want + 70, 'Y', 20);
	if (lseek(c->val[0], 0, SEEK_CUR) != 90)
		return diff_fail(c, "file position is not 90");
	return diff_check_file(c, "small", want, 100);
}

/* 100 + 3000 + 4096 bytes from offset 5 */
static int fill_readv(struct io_uring *ring, struct diff_ctx *c)
{
	static const size_t len[3] = { 100, 3000, 4096 };
	unsigned i;

	for (i = 0; i < 3; i++) {
		c->iov[i].iov_base = c->buf[i];
		c->iov[i].iov_len = len[i];
	}
	diff_tag(sqe_rw(ring, c, IORING_OP_READV, c->val[0], c->iov, 3, 5),
		 1, 0);
	return 0;
}

static int check_readv(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	const char *p = pattern(FILE_LEN, 1) + 5;

	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[0], p, 100, "iov 0") ||
	    diff_check_buf(c, c->buf[1], p + 100, 3000, "iov 1"))
		return -1;
	return diff_check_buf(c, c->buf[2], p + 3100, 4096, "iov 2");
}

/* from offset 4000 of 8192: the last iovec is cut short */
static int fill_readv_short(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 0; i < 3; i++) {
		c->iov[i].iov_base = c->buf[i];
		c->iov[i].iov_len = DIFF_BUFSZ;
	}
	diff_tag(sqe_rw(ring, c, IORING_OP_READV, c->val[0], c->iov, 3, 4000),
		 1, 0);
	return 0;
}

/* 10 + 4000 + 500 bytes at offset 0 of an empty file */
static int fill_writev(struct io_uring *ring, struct diff_ctx *c)
{
	static const size_t len[3] = { 10, 4000, 500 };
	unsigned i;

	c->val[0] = diff_file(c, "out", NULL, 0, O_WRONLY);
	if (c->val[0] < 0)
		return -1;
	for (i = 0; i < 3; i++) {
		diff_pattern(c->buf[i], len[i], 10 + i);
		c->iov[i].iov_base = c->buf[i];
		c->iov[i].iov_len = len[i];
	}
	diff_tag(sqe_rw(ring, c, IORING_OP_WRITEV, c->val[0], c->iov, 3, 0),
		 1, 0);
	return 0;
}

static int check_writev(struct diff_ctx *c, const struct diff_cqe *cqe,
			unsigned nr)
{
	char *want = pattern(4510, 0);

	(void)cqe;
	(void)nr;
	diff_pattern(want, 10, 10);
	diff_pattern(want + 10, 4000, 11);
	diff_pattern(want + 4010, 500, 12);
	return diff_check_file(c, "out", want, 4510);
}

/*
 * A pipe holding 10 bytes: a read of 64 gets the 10, a write of 3 goes
 * in (not linked: a short read breaks a link, see diff_link.c).
 */
static int fill_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	c->val[0] = p[0];
	if (write(p[1], "0123456789", 10) != 10)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, p[0], c->buf[0], 64, 0), 1, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_WRITE, p[1], "abc", 3, 0), 2, 0);
	return 0;
}

static int check_pipe(struct diff_ctx *c, const struct diff_cqe *cqe,
		      unsigned nr)
{
	ssize_t n;

	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[0], "0123456789", 10, "pipe read"))
		return -1;
	if (fcntl(c->val[0], F_SETFL, O_NONBLOCK))
		return diff_fail(c, "fcntl: %s", strerror(errno));
	n = read(c->val[0], c->buf[1], 64);
	if (n != 3)
		return diff_fail(c, "pipe holds %zd bytes after the write, "
				 "expected 3", n);
	return diff_check_buf(c, c->buf[1], "abc", 3, "pipe contents");
}

/* one READ of buf, alone in its submit */
static int read_alone(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		      int fd, void *buf, unsigned len, __u64 off)
{
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, fd, buf, len, off), ud, 0);
	return diff_submit(ring, c) < 0 ? -1 : 0;
}

/* whole, whole, short, at EOF, empty: 8192 bytes of data */
static int fill_single_reads(struct io_uring *ring, struct diff_ctx *c)
{
	if (read_alone(ring, c, 1, c->val[0], c->buf[0], 4096, 0) ||
	    read_alone(ring, c, 2, c->val[0], c->buf[1], 4096, 4096) ||
	    read_alone(ring, c, 3, c->val[0], c->buf[2], 4096, 6000) ||
	    read_alone(ring, c, 4, c->val[0], c->buf[3], 100, FILE_LEN))
		return -1;
	return read_alone(ring, c, 5, c->val[0], c->buf[3], 0, 0);
}

static int check_single_reads(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	const char *p = pattern(FILE_LEN, 1);

	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[0], p, 4096, "buf 0") ||
	    diff_check_buf(c, c->buf[1], p + 4096, 4096, "buf 1"))
		return -1;
	return diff_check_buf(c, c->buf[2], p + 6000, FILE_LEN - 6000, "buf 2");
}

/*
 * two pages, the second with no access: the first one's address. Not an
 * munmap'd hole, which another thread's mmap (a sanitizer's, a ring's
 * thread stack) may fill meanwhile.
 */
static char *page_then_hole(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + 4096, 4096, PROT_NONE)) {
		munmap(p, 8192);
		return NULL;
	}
	return p;
}

static char *single_fault_pages[3];

/*
 * Buffers that fault: a PROT_NONE page, an address beyond user space, a
 * read-only page, and one whose second half is in a page with no access
 * (the first half is read: a short transfer the request path finishes).
 */
static int fill_single_read_faults(struct io_uring *ring, struct diff_ctx *c)
{
	char **pg = single_fault_pages;

	pg[0] = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pg[1] = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pg[2] = page_then_hole();
	if (pg[0] == MAP_FAILED || pg[1] == MAP_FAILED || !pg[2])
		return diff_fail(c, "mmap: %s", strerror(errno));
	if (read_alone(ring, c, 1, c->val[0], pg[0], 4096, 0) ||
	    read_alone(ring, c, 2, c->val[0], (void *)0x8000000000000000UL,
		       4096, 0) ||
	    read_alone(ring, c, 3, c->val[0], pg[1], 4096, 0))
		return -1;
	return read_alone(ring, c, 4, c->val[0], pg[2] + 2048, 4096, 0);
}

static int check_single_read_faults(struct diff_ctx *c,
				    const struct diff_cqe *cqe, unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, single_fault_pages[2] + 2048,
			      pattern(FILE_LEN, 1), 2048, "straddling buffer");
}

static void teardown_single_read_faults(struct diff_ctx *c)
{
	(void)c;
	for (unsigned i = 0; i < 3; i++) {
		if (single_fault_pages[i] && single_fault_pages[i] != MAP_FAILED)
			munmap(single_fault_pages[i], i == 2 ? 8192 : 4096);
		single_fault_pages[i] = NULL;
	}
}

/* issue=inline: a batch stays with the submitting thread (both engines take it) */
static int ring_inline(struct io_uring *ring, struct diff_ctx *c)
{
	struct anyring_policy pol;
	int ret;

	memset(&pol, 0, sizeof(pol));
	pol.issue = ANYRING_ISSUE_INLINE;
	ret = anyring_ring_set_policy(ring, &pol);
	return ret ? diff_fail(c, "issue=inline: %s", strerror(-ret)) : 0;
}

static char batch_buf[6][4096] __attribute__((aligned(4096)));

/*
 * val[0]: the data file, at position 0; val[1]: a pipe holding 10 bytes;
 * val[2]: a dup of val[0], which the batch's CLOSE closes after a read
 */
static int fill_batch_order(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (ring_inline(ring, c) || diff_pipe(c, p))
		return -1;
	if (write(p[1], "0123456789", 10) != 10)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	c->val[1] = p[0];
	c->val[2] = dup(c->val[0]);
	if (c->val[2] < 0 || lseek(c->val[0], 0, SEEK_SET))
		return diff_fail(c, "dup, lseek: %s", strerror(errno));
	memset(batch_buf, 0, sizeof(batch_buf));
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[0], 4096, 0),
		 1, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[1], 4096,
			4096), 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_nop(sqe);
	diff_tag(sqe, 3, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[2], 100,
			FILE_LEN), 4, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], c->buf[2], 0, 0),
		 5, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, p[0], batch_buf[0], 64, 0),
		 6, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], batch_buf[1], 4096,
			4096), 7, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], batch_buf[2], 100,
			(__u64)-1), 8, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[2], batch_buf[3], 4096,
			0), 9, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, c->val[2]);
	diff_tag(sqe, 10, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], batch_buf[4], 4096,
			0), 11, 0);
	return 0;
}

static int check_batch_order(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	const char *p = pattern(FILE_LEN, 1);
	off_t pos = lseek(c->val[0], 0, SEEK_CUR);

	(void)cqe;
	(void)nr;
	if (pos != 100)
		return diff_fail(c, "file position %lld, expected 100",
				 (long long)pos);
	if (fcntl(c->val[2], F_GETFD) >= 0)
		return diff_fail(c, "the CLOSE left fd %d open", c->val[2]);
	if (diff_check_buf(c, c->buf[0], p, 4096, "read 1") ||
	    diff_check_buf(c, c->buf[1], p + 4096, 4096, "read 2") ||
	    diff_check_buf(c, batch_buf[0], "0123456789", 10, "pipe read") ||
	    diff_check_buf(c, batch_buf[1], p + 4096, 4096, "read 7") ||
	    diff_check_buf(c, batch_buf[2], p, 100, "read 8") ||
	    diff_check_buf(c, batch_buf[3], p, 4096, "read 9"))
		return -1;
	return diff_check_buf(c, batch_buf[4], p, 4096, "read 11");
}

/* single_read_faults' buffers between good reads, in one submit */
static int fill_batch_faults(struct io_uring *ring, struct diff_ctx *c)
{
	char **pg = single_fault_pages;
	__u64 ud = 1;

	if (ring_inline(ring, c))
		return -1;
	pg[0] = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pg[1] = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pg[2] = page_then_hole();
	if (pg[0] == MAP_FAILED || pg[1] == MAP_FAILED || !pg[2])
		return diff_fail(c, "mmap: %s", strerror(errno));
	memset(batch_buf, 0, sizeof(batch_buf));
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], batch_buf[0], 4096,
			0), ud++, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], pg[0], 4096, 0),
		 ud++, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], batch_buf[1], 4096,
			4096), ud++, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], pg[1], 4096, 0),
		 ud++, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], pg[2] + 2048, 4096,
			0), ud++, 0);
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0], batch_buf[2], 4096,
			0), ud++, 0);
	/* refused at submit (its buffer is checked there): the submit stops */
	diff_tag(sqe_rw(ring, c, IORING_OP_READ, c->val[0],
			(void *)0x8000000000000000UL, 4096, 0), ud++, 0);
	return 0;
}

static int check_batch_faults(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	const char *p = pattern(FILE_LEN, 1);

	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, batch_buf[0], p, 4096, "read 1") ||
	    diff_check_buf(c, batch_buf[1], p + 4096, 4096, "read 3") ||
	    diff_check_buf(c, batch_buf[2], p, 4096, "read 6"))
		return -1;
	return diff_check_buf(c, single_fault_pages[2] + 2048, p, 2048,
			      "straddling buffer");
}

/*
 * 100 bytes of data: a length past MAX_RW_COUNT (the read is capped, and
 * short at EOF), offset -2, offset -1 (the file position, which advances)
 */
static int fill_single_read_offsets(struct io_uring *ring, struct diff_ctx *c)
{
	if (lseek(c->val[0], 10, SEEK_SET) != 10)
		return diff_fail(c, "lseek: %s", strerror(errno));
	if (read_alone(ring, c, 1, c->val[0], c->buf[0], 0x80000000U, 0) ||
	    read_alone(ring, c, 2, c->val[0], c->buf[1], 16, (__u64)-2))
		return -1;
	return read_alone(ring, c, 3, c->val[0], c->buf[2], 16, (__u64)-1);
}

static int check_single_read_offsets(struct diff_ctx *c,
				     const struct diff_cqe *cqe, unsigned nr)
{
	const char *p = pattern(100, 1);
	off_t pos = lseek(c->val[0], 0, SEEK_CUR);

	(void)cqe;
	(void)nr;
	if (pos != 26)
		return diff_fail(c, "file position %lld, expected 26",
				 (long long)pos);
	if (diff_check_buf(c, c->buf[0], p, 100, "buf 0"))
		return -1;
	return diff_check_buf(c, c->buf[2], p + 10, 16, "buf 2");
}

/* val[0]: "data" open write-only */
static int setup_wronly(struct diff_ctx *c)
{
	c->val[0] = diff_file(c, "data", pattern(FILE_LEN, 1), FILE_LEN,
			      O_WRONLY);
	return c->val[0] < 0 ? -1 : 0;
}

static int fill_single_read_wronly(struct io_uring *ring, struct diff_ctx *c)
{
	return read_alone(ring, c, 1, c->val[0], c->buf[0], 4096, 0);
}

/* the pages written back, then dropped: the read must wait for the disk */
static int fill_single_read_cold(struct io_uring *ring, struct diff_ctx *c)
{
	if (fdatasync(c->val[0]) ||
	    posix_fadvise(c->val[0], 0, 0, POSIX_FADV_DONTNEED))
		return diff_fail(c, "dropping the pages: %s", strerror(errno));
	return read_alone(ring, c, 1, c->val[0], c->buf[0], 4096, 4096);
}

static int check_single_read_cold(struct diff_ctx *c,
				  const struct diff_cqe *cqe, unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[0], pattern(FILE_LEN, 1) + 4096, 4096,
			      "buf 0");
}

/*
 * A READ of the data file (its fd is cached as a regular file), then the
 * fd number made a pipe's read end holding 5 bytes, and a READ at offset
 * 0 of it: a pipe ignores the offset and gives what it holds.
 */
static int fill_single_read_reused(struct io_uring *ring, struct diff_ctx *c)
{
	int p[2];

	if (read_alone(ring, c, 1, c->val[0], c->buf[0], 4096, 0) ||
	    diff_pipe(c, p))
		return -1;
	if (write(p[1], "hello", 5) != 5 || dup2(p[0], c->val[0]) < 0)
		return diff_fail(c, "pipe: %s", strerror(errno));
	return read_alone(ring, c, 2, c->val[0], c->buf[1], 100, 0);
}

static int check_single_read_reused(struct diff_ctx *c,
				    const struct diff_cqe *cqe, unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[0], pattern(FILE_LEN, 1), 4096, "buf 0"))
		return -1;
	return diff_check_buf(c, c->buf[1], "hello", 5, "pipe read");
}

/* ---- registered files, RWF_* flags, ioprio ---- */

/* READV and WRITEV through registered files, chained */
static int fill_vec_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], -1 };
	struct io_uring_sqe *sqe;
	int ret = io_uring_register_files(ring, fds, 2);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	c->iov[0].iov_base = c->buf[0];
	c->iov[0].iov_len = 100;
	c->iov[1].iov_base = c->buf[1];
	c->iov[1].iov_len = 200;
	sqe = diff_sqe(ring, c);
	io_uring_prep_readv(sqe, 0, c->iov, 2, 1000);
	diff_tag(sqe, 1, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_writev(sqe, 0, c->iov, 2, 8192);
	diff_tag(sqe, 2, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_readv(sqe, 1, c->iov, 2, 0);
	diff_tag(sqe, 3, IOSQE_FIXED_FILE);
	return 0;
}

static int check_vec_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	static char want[8492];

	(void)cqe;
	(void)nr;
	diff_pattern(want, 8192, 1);
	memcpy(want + 8192, want + 1000, 300);
	return diff_check_file(c, "data", want, sizeof(want));
}

/* RWF_NOWAIT on cached data, RWF_APPEND, RWF_DSYNC, unknown RWF bits */
static int fill_rw_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[0], 4096, 0);
	sqe->rw_flags = RWF_NOWAIT;
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	memcpy(c->buf[1], "tail", 4);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[1], 4, 0);
	sqe->rw_flags = RWF_APPEND;
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[1], 4, 100);
	sqe->rw_flags = RWF_DSYNC;
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[2], 64, 0);
	sqe->rw_flags = 1U << 30;
	diff_tag(sqe, 4, 0);
	return 0;
}

static int check_rw_flags(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	static char want[8196];

	(void)cqe;
	(void)nr;
	diff_pattern(want, 8192, 1);
	memcpy(want + 8192, "tail", 4);
	memcpy(want + 100, "tail", 4);
	return diff_check_file(c, "data", want, sizeof(want));
}

/* ioprio: a valid class on a read, any on a NOP (which takes none) */
static int fill_ioprio(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[0], 64, 0);
	sqe->ioprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4);
	diff_tag(sqe, 1, 0);
	diff_prep_nop(ring, c, 2, 0)->ioprio = 1;
	diff_prep_nop(ring, c, 3, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, c->val[0], c->buf[0], 64, 0);
	sqe->ioprio = IOPRIO_PRIO_VALUE(7, 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

/* ---- READ_FIXED, WRITE_FIXED ---- */

/* buf[0] and buf[1] registered as buffers 0 and 1 */
static int reg_bufs(struct io_uring *ring, struct diff_ctx *c)
{
	int ret;

	c->iov[0].iov_base = c->buf[0];
	c->iov[0].iov_len = DIFF_BUFSZ;
	c->iov[1].iov_base = c->buf[1];
	c->iov[1].iov_len = DIFF_BUFSZ;
	ret = io_uring_register_buffers(ring, c->iov, 2);
	if (ret)
		return diff_fail(c, "register buffers: %s", strerror(-ret));
	return 0;
}

static void read_fixed(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		       void *buf, int index)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read_fixed(sqe, c->val[0], buf, 4096, 0, index);
	diff_tag(sqe, ud, 0);
}

static int fill_read_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_bufs(ring, c))
		return -1;
	read_fixed(ring, c, 1, c->buf[1], 1);
	return 0;
}

static int check_read_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	char p[4096];

	(void)cqe;
	(void)nr;
	diff_pattern(p, 4096, 1);
	return diff_check_buf(c, c->buf[1], p, 4096, "buffer 1");
}

static int fill_write_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (reg_bufs(ring, c))
		return -1;
	diff_pattern(c->buf[0] + 100, 1000, 5);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write_fixed(sqe, c->val[0], c->buf[0] + 100, 1000, 4096,
				  0);
	diff_tag(sqe, 1, 0);
	return 0;
}

static int check_write_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	char p[FILE_LEN];

	(void)cqe;
	(void)nr;
	diff_pattern(p, FILE_LEN, 1);
	diff_pattern(p + 4096, 1000, 5);
	return diff_check_file(c, "data", p, FILE_LEN);
}

/* index 5 of 2; index 0 with buffer 1's address; index 1 in range */
static int fill_fixed_bad(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_bufs(ring, c))
		return -1;
	read_fixed(ring, c, 1, c->buf[0], 5);
	read_fixed(ring, c, 2, c->buf[1], 0);
	read_fixed(ring, c, 3, c->buf[1] + 4000, 1);	/* runs past the end */
	return 0;
}

static int fill_fixed_none(struct io_uring *ring, struct diff_ctx *c)
{
	read_fixed(ring, c, 1, c->buf[0], 0);
	return 0;
}

/* ---- READV_FIXED, WRITEV_FIXED ---- */

/* past liburing 2.3's header */
#define AR_OP_READV_FIXED	60
#define AR_OP_WRITEV_FIXED	61

/* buf[0] registered; "data" read into two pieces of it, written back at 8192 */
static int fill_rw_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	struct iovec *iov = c->iov;
	struct io_uring_sqe *sqe;
	int ret;

	c->iov[3].iov_base = c->buf[0];
	c->iov[3].iov_len = DIFF_BUFSZ;
	ret = io_uring_register_buffers(ring, &c->iov[3], 1);
	if (ret)
		return diff_fail(c, "register buffers: %d", ret);
	iov[0].iov_base = c->buf[0] + 100;
	iov[0].iov_len = 50;
	iov[1].iov_base = c->buf[0] + 1000;
	iov[1].iov_len = 200;
	sqe = diff_prep_op(ring, c, AR_OP_READV_FIXED, c->val[0], 1,
			   IOSQE_IO_LINK);
	sqe->addr = (unsigned long)iov;
	sqe->len = 2;
	sqe->off = 10;
	sqe = diff_prep_op(ring, c, AR_OP_WRITEV_FIXED, c->val[0], 2, 0);
	sqe->addr = (unsigned long)iov;
	sqe->len = 2;
	sqe->off = 8192;
	return 0;
}

static int check_rw_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	char data[8192], want[250];

	(void)cqe;
	(void)nr;
	diff_pattern(data, sizeof(data), 1);
	if (diff_check_buf(c, c->buf[0] + 100, data + 10, 50, "first iovec") ||
	    diff_check_buf(c, c->buf[0] + 1000, data + 60, 200, "second iovec"))
		return -1;
	memcpy(want, data + 10, 250);
	if (pread(c->val[0], data, 250, 8192) != 250)
		return diff_fail(c, "the write did not land");
	return diff_check_buf(c, data, want, 250, "written back");
}

/* iovecs the registered buffer does not hold, and the prep errors */
static int fill_rw_fixed_errors(struct io_uring *ring, struct diff_ctx *c)
{
	/* one iovec per SQE: each is read at submit */
	struct iovec *iov = (struct iovec *)c->buf[2];
	struct io_uring_sqe *sqe;
	int ret;

	c->iov[3].iov_base = c->buf[0];
	c->iov[3].iov_len = DIFF_BUFSZ;
	ret = io_uring_register_buffers(ring, &c->iov[3], 1);
	if (ret)
		return diff_fail(c, "register buffers: %d", ret);
	iov[0].iov_base = c->buf[0];
	iov[0].iov_len = 0;			/* empty */
	iov[1].iov_base = c->buf[0] + 4000;
	iov[1].iov_len = 200;			/* past the end */
	iov[2].iov_base = c->buf[1];
	iov[2].iov_len = 10;			/* another buffer */
	for (unsigned i = 0; i < 3; i++) {
		sqe = diff_prep_op(ring, c, AR_OP_READV_FIXED, c->val[0],
				   i + 1, 0);
		sqe->addr = (unsigned long)&iov[i];
		sqe->len = 1;
	}
	iov[3].iov_base = c->buf[0];
	iov[3].iov_len = 10;
	iov += 3;
	sqe = diff_prep_op(ring, c, AR_OP_READV_FIXED, c->val[0], 4, 0);
	sqe->addr = (unsigned long)iov;
	sqe->len = 1;
	sqe->buf_index = 1;			/* no such buffer: -EFAULT */
	sqe = diff_prep_op(ring, c, AR_OP_WRITEV_FIXED, 1000, 5, 0);
	sqe->addr = (unsigned long)iov;
	sqe->len = 1;				/* -EBADF */
	sqe = diff_prep_op(ring, c, AR_OP_READV_FIXED, c->val[0], 6, 0);
	sqe->addr = (unsigned long)iov;
	sqe->len = 1025;			/* -EINVAL at prep */
	sqe = diff_prep_op(ring, c, AR_OP_READV_FIXED, c->val[0], 7, 0);
	sqe->len = 1;				/* NULL: -EFAULT at prep */
	sqe = diff_prep_op(ring, c, AR_OP_READV_FIXED, c->val[0], 8,
			   IOSQE_BUFFER_SELECT);	/* -EOPNOTSUPP */
	sqe->addr = (unsigned long)iov;
	sqe->len = 1;
	return 0;
}

/*
 * A READ waiting on a pipe whose two ends the program then closes: the
 * kernel's request holds the read end, so the write end's close ends it
 * with EOF, 0. The pipe is not the harness's to close after the run.
 */
static int setup_pipe_own(struct diff_ctx *c)
{
	int p[2];

	if (pipe(p))
		return diff_fail(c, "pipe: %s", strerror(errno));
	c->val[1] = p[0];
	c->val[2] = p[1];
	return 0;
}

static int fill_read_pipe_closed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, c->val[1], c->buf[0], 16, 0);
	diff_tag(sqe, 1, 0);
	return 0;
}

static int after_close_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	close(c->val[1]);
	close(c->val[2]);
	return 0;
}

const struct scenario diff_rw[] = {
	{
		.name = "rw_batch_order",
		.entries = 16,
		.setup = setup_data,
		.fill = fill_batch_order,
		.check = check_batch_order,
		.nr_cqes = 11,
		.known = { { 1, 4096 }, { 4, 0 }, { 5, 0 }, { 6, 10 },
			   { 8, 100 }, { 9, 4096 }, { 10, 0 }, { 11, 4096 } },
	}, {
		.name = "rw_batch_faults",
		.entries = 16,
		.setup = setup_data,
		.fill = fill_batch_faults,
		.check = check_batch_faults,
		.teardown = teardown_single_read_faults,
		.nr_cqes = 7,
		.known = { { 1, 4096 }, { 2, -EFAULT }, { 3, 4096 },
			   { 4, -EFAULT }, { 5, 2048 }, { 6, 4096 },
			   { 7, -EFAULT } },
	}, {
		.name = "rw_read_pipe_closed",
		.setup = setup_pipe_own,
		.fill = fill_read_pipe_closed,
		.after_submit = after_close_pipe,
		.nr_cqes = 1,
		.known = { { 1, 0 } },
	}, {
		.name = "rw_read_full",
		.setup = setup_data,
		.fill = fill_read_full,
		.check = check_read_full,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, 4096 }, { 2, 4096 } },
	}, {
		.name = "rw_read_short_at_eof",
		.setup = setup_small,
		.fill = fill_short_eof,
		.check = check_short_eof,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 100 }, { 2, 0 }, { 3, 0 } },
	}, {
		.name = "rw_read_offset_minus1_advances",
		.setup = setup_data,
		.fill = fill_read_pos,
		.check = check_read_pos,
		.nr_cqes = 2,
	}, {
		.name = "rw_write_full",
		.setup = setup_data,
		.fill = fill_write_full,
		.check = check_write_full,
		.nr_cqes = 1,
	}, {
		.name = "rw_async_writes_hashed_in_order",
		.setup = setup_data,
		.fill = fill_write_hashed,
		.check = check_write_hashed,
		.nr_cqes = HASHED_WRITES,
		.entries = HASHED_WRITES,
	}, {
		.name = "rw_write_offset_minus1_advances",
		.setup = setup_small,
		.fill = fill_write_pos,
		.check = check_write_pos,
		.nr_cqes = 2,
	}, {
		.name = "rw_readv",
		.setup = setup_data,
		.fill = fill_readv,
		.check = check_readv,
		.nr_cqes = 1,
		.known = { { 1, 7196 } },
	}, {
		.name = "rw_readv_short_at_eof",
		.setup = setup_data,
		.fill = fill_readv_short,
		.nr_cqes = 1,
	}, {
		.name = "rw_writev",
		.fill = fill_writev,
		.check = check_writev,
		.nr_cqes = 1,
	}, {
		.name = "rw_pipe_read_write",
		.fill = fill_pipe,
		.check = check_pipe,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, 10 }, { 2, 3 } },
	}, {
		.name = "rw_single_reads",
		.setup = setup_data,
		.fill = fill_single_reads,
		.check = check_single_reads,
		.nr_cqes = 5,
		.known = { { 1, 4096 }, { 2, 4096 }, { 3, FILE_LEN - 6000 },
			   { 4, 0 }, { 5, 0 } },
	}, {
		.name = "rw_single_reads_defer_taskrun",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.setup = setup_data,
		.fill = fill_single_reads,
		.check = check_single_reads,
		.nr_cqes = 5,
		.known = { { 1, 4096 }, { 2, 4096 }, { 3, FILE_LEN - 6000 },
			   { 4, 0 }, { 5, 0 } },
	}, {
		.name = "rw_single_read_faults",
		.setup = setup_data,
		.fill = fill_single_read_faults,
		.check = check_single_read_faults,
		.teardown = teardown_single_read_faults,
		.nr_cqes = 4,
		.known = { { 1, -EFAULT }, { 2, -EFAULT }, { 3, -EFAULT },
			   { 4, 2048 } },
	}, {
		.name = "rw_single_read_offsets",
		.setup = setup_small,
		.fill = fill_single_read_offsets,
		.check = check_single_read_offsets,
		.nr_cqes = 3,
		.known = { { 1, 100 }, { 2, -EINVAL }, { 3, 16 } },
	}, {
		.name = "rw_single_read_wronly",
		.setup = setup_wronly,
		.fill = fill_single_read_wronly,
		.nr_cqes = 1,
		.known = { { 1, -EBADF } },
	}, {
		.name = "rw_single_read_cold",
		.setup = setup_data,
		.fill = fill_single_read_cold,
		.check = check_single_read_cold,
		.nr_cqes = 1,
		.known = { { 1, 4096 } },
	}, {
		.name = "rw_single_read_fd_reused_by_pipe",
		.setup = setup_data,
		.fill = fill_single_read_reused,
		.check = check_single_read_reused,
		.nr_cqes = 2,
		.known = { { 1, 4096 }, { 2, 5 } },
	}, {
		.name = "ops_readv_writev_fixed_files",
		.setup = setup_data,
		.fill = fill_vec_fixed,
		.check = check_vec_fixed,
		.nr_cqes = 3,
		.known = { { 1, 300 }, { 2, 300 }, { 3, -EBADF } },
	}, {
		.name = "ops_rw_flags",
		.setup = setup_data,
		.fill = fill_rw_flags,
		.check = check_rw_flags,
		.nr_cqes = 4,
		.known = { { 1, 4096 }, { 2, 4 }, { 3, 4 } },
	}, {
		.name = "ops_ioprio",
		.setup = setup_data,
		.fill = fill_ioprio,
		.after_submit = diff_submit_rest,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 64 }, { 3, 0 } },
	}, {
		.name = "fixed_read_fixed",
		.setup = setup_data,
		.fill = fill_read_fixed,
		.check = check_read_fixed,
		.nr_cqes = 1,
		.known = { { 1, 4096 } },
	}, {
		.name = "fixed_write_fixed",
		.setup = setup_data,
		.fill = fill_write_fixed,
		.check = check_write_fixed,
		.nr_cqes = 1,
		.known = { { 1, 1000 } },
	}, {
		.name = "fixed_bad_buf_index_or_range",
		.setup = setup_data,
		.fill = fill_fixed_bad,
		.nr_cqes = 3,
		.order = ORDER_ANY,
	}, {
		.name = "fixed_no_buffers_registered",
		.setup = setup_data,
		.fill = fill_fixed_none,
		.nr_cqes = 1,
	}, {
		.name = "misc_rw_fixed_vec",
		.setup = diff_setup_data_pipe,
		.fill = fill_rw_fixed,
		.check = check_rw_fixed,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 1, 250 }, { 2, 250 } },
	}, {
		.name = "misc_rw_fixed_vec_errors",
		.setup = diff_setup_data_pipe,
		.fill = fill_rw_fixed_errors,
		.after_submit = diff_submit_rest,
		.nr_cqes = 8,
		.order = ORDER_ANY,
		.known = { { 1, -EFAULT }, { 2, -EFAULT }, { 3, -EFAULT },
			   { 4, -EFAULT }, { 6, -EINVAL }, { 7, -EFAULT },
			   { 8, -EOPNOTSUPP } },
	},
	{ .name = NULL }
};
