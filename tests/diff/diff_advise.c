/* SPDX-License-Identifier: MIT */
/*
 * diff_advise.c - FADVISE and MADVISE (ops/advise.c): FADVISE with each
 * advice in range and an unknown one, on a pipe, with a negative length;
 * MADVISE on a buffer of the run, with an unknown advice, a misaligned
 * address and a zero length, and MADV_DONTNEED really dropping the pages
 * of a private anonymous mapping (they read back as zeroes: notes).
 */
#include <fcntl.h>
#include <sys/mman.h>
#include "harness.h"

#define FILE_LEN	8192
#define NOTE		1000

/* val[0]: "data", FILE_LEN bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, FILE_LEN, O_RDWR);
}

static int fill_fadvise(struct io_uring *ring, struct diff_ctx *c)
{
	static const int advice[] = {
		POSIX_FADV_NORMAL, POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, 99
	};
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < 4; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_fadvise(sqe, c->val[0], 0, 4096, advice[i]);
		diff_tag(sqe, i + 1, 0);
	}
	return 0;
}

/* on a buffer of the run, and an advice madvise(2) does not know */
static int fill_madvise(struct io_uring *ring, struct diff_ctx *c)
{
	static const int advice[] = { MADV_NORMAL, MADV_WILLNEED, 999 };
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < 3; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_madvise(sqe, c->buf[0], DIFF_BUFSZ, advice[i]);
		diff_tag(sqe, i + 1, 0);
	}
	return 0;
}

/* MADV_DONTNEED on a private anonymous page: it reads back as zeroes */
static int fill_madvise_dontneed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	void *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return diff_fail(c, "mmap: %s", strerror(errno));
	c->iov[0].iov_base = m;
	memset(m, 'x', 8192);
	sqe = diff_sqe(ring, c);
	io_uring_prep_madvise(sqe, m, 4096, MADV_DONTNEED);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_madvise(sqe, (char *)m + 1, 4096, MADV_NORMAL);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_madvise(sqe, m, 0, MADV_DONTNEED);
	diff_tag(sqe, 3, 0);
	return 0;
}

static int check_madvise_dontneed(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	const char *m = c->iov[0].iov_base;

	(void)cqe;
	(void)nr;
	diff_note(c, NOTE, m[0] == 0 && m[4095] == 0);
	diff_note(c, NOTE + 1, m[4096] == 'x');
	munmap(c->iov[0].iov_base, 8192);
	return 0;
}

/* on a pipe, with a negative length, every advice value in range */
static int fill_fadvise_variants(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2], i;

	if (diff_pipe(c, p))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_fadvise(sqe, p[0], 0, 100, POSIX_FADV_NORMAL);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fadvise(sqe, c->val[0], 0, (off_t)-1, POSIX_FADV_NORMAL);
	diff_tag(sqe, 2, 0);
	for (i = 0; i <= 5; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_fadvise(sqe, c->val[0], 0, 0, i);
		diff_tag(sqe, 10 + i, 0);
	}
	return 0;
}

const struct scenario diff_advise[] = {
	{
		.name = "fs_fadvise",
		.setup = setup_data,
		.fill = fill_fadvise,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 4, -EINVAL } },
	}, {
		.name = "fs_madvise",
		.fill = fill_madvise,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 3, -EINVAL } },
	}, {
		.name = "ops_madvise_dontneed",
		.fill = fill_madvise_dontneed,
		.check = check_madvise_dontneed,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { NOTE, 1 }, { NOTE + 1, 1 } },
	}, {
		.name = "ops_fadvise_variants",
		.setup = setup_data,
		.fill = fill_fadvise_variants,
		.nr_cqes = 8,
		.order = ORDER_ANY,
	},
	{ .name = NULL }
};
