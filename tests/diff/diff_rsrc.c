/* SPDX-License-Identifier: MIT */
/*
 * diff_rsrc.c - registered files and buffers (rsrc.c): IOSQE_FIXED_FILE
 * on registered files (and an index past the table, an empty slot, no
 * table at all); then in depth: sparse tables filled by updates, a slot
 * updated while a request uses it, resource tags (their CQEs on update
 * and unregister, and only once the last user is done), direct
 * descriptors (openat/openat2 into a slot or a free one with
 * IORING_FILE_INDEX_ALLOC, a full table, no table, a slot out of range,
 * the allocation range), close_direct, and IORING_OP_FILES_UPDATE (at an
 * offset, with IORING_FILE_INDEX_ALLOC, with SKIP entries, bad), and a
 * direct CLOSE then a WRITE_FIXED through the slot (a fuzzer's finding).
 * The results of io_uring_register() calls are notes (keys from 1000).
 * (READ_FIXED and friends on registered buffers: diff_rw.c.)
 */
#include <fcntl.h>
#include <linux/openat2.h>
#include <unistd.h>
#include "harness.h"

#define FILE_LEN	8192

/* val[0]: "data", FILE_LEN bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, FILE_LEN, O_RDWR);
}

/* the table [-1, val[0]]: slot 0 empty, slot 1 the data file */
static int reg_files(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { -1, c->val[0] };
	int ret = io_uring_register_files(ring, fds, 2);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	return 0;
}

static void read_file(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		      int fd, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, fd, c->buf[ud % DIFF_NBUF], 4096, 0);
	diff_tag(sqe, ud, flags);
}

static int fill_fixed_file(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_files(ring, c))
		return -1;
	read_file(ring, c, 1, 1, IOSQE_FIXED_FILE);
	return 0;
}

static int check_fixed_file(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	char p[4096];

	(void)cqe;
	(void)nr;
	diff_pattern(p, 4096, 1);
	return diff_check_buf(c, c->buf[1], p, 4096, "buf 1");
}

/* slot 0 empty, index 2 past the table, a negative index */
static int fill_fixed_file_bad(struct io_uring *ring, struct diff_ctx *c)
{
	if (reg_files(ring, c))
		return -1;
	read_file(ring, c, 1, 0, IOSQE_FIXED_FILE);
	read_file(ring, c, 2, 2, IOSQE_FIXED_FILE);
	read_file(ring, c, 3, -1, IOSQE_FIXED_FILE);
	return 0;
}

static int fill_fixed_file_none(struct io_uring *ring, struct diff_ctx *c)
{
	read_file(ring, c, 1, 0, IOSQE_FIXED_FILE);
	return 0;
}

/* ---- sparse tables, updates, tags, direct descriptors ---- */

#define NOTE	1000
/* liburing 2.3 adds one to the index itself: this gives ALLOC in the SQE */
#define ALLOC_SLOT	(IORING_FILE_INDEX_ALLOC - 1)

/* val[0]: "data" (pattern seed 1, 4096 bytes); val[1]: "other" (seed 2) */
static int setup_files(struct diff_ctx *c)
{
	diff_pattern(c->buf[3], 4096, 1);
	c->val[0] = diff_file(c, "data", c->buf[3], 4096, O_RDWR);
	diff_pattern(c->buf[3], 4096, 2);
	c->val[1] = diff_file(c, "other", c->buf[3], 4096, O_RDWR);
	memset(c->buf[3], 0, 4096);
	return c->val[0] < 0 || c->val[1] < 0 ? -1 : 0;
}

/* val[2], val[3]: an empty pipe as well */
static int setup_files_pipe(struct diff_ctx *c)
{
	int p[2];

	if (setup_files(c) || diff_pipe(c, p))
		return -1;
	c->val[2] = p[0];
	c->val[3] = p[1];
	return 0;
}

/* the next free note key */
static void note(struct diff_ctx *c, int value)
{
	diff_note(c, NOTE + c->nr_note, value);
}

static void read_slot(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		      int slot, unsigned len, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, slot, c->buf[ud % DIFF_NBUF], len, 0);
	diff_tag(sqe, ud, flags | IOSQE_FIXED_FILE);
}

/* the first 16 bytes of buf[i] hold pattern seed */
static int check_seed(struct diff_ctx *c, unsigned i, unsigned seed)
{
	char p[16];

	diff_pattern(p, sizeof(p), seed);
	return diff_check_buf(c, c->buf[i], p, sizeof(p), "read data");
}

static int fill_sparse_update(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_files_sparse(ring, 4));
	note(c, io_uring_register_files_update(ring, 2, &c->val[0], 1));
	read_slot(ring, c, 1, 2, 4096, 0);
	read_slot(ring, c, 2, 1, 4096, 0);
	return 0;
}

static int check_slot2_data(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 1, 1);
}

/* slot 0: the pipe; a read waits on it while slot 0 becomes "data" */
static int fill_update_in_use(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_files(ring, &c->val[2], 1));
	read_slot(ring, c, 1, 0, 64, 0);
	return 0;
}

static int update_in_use(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_files_update(ring, 0, &c->val[0], 1));
	read_slot(ring, c, 2, 0, 4096, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	if (write(c->val[3], "hello", 5) != 5)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	return 0;
}

static int check_update_in_use(struct diff_ctx *c, const struct diff_cqe *cqe,
			       unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[1], "hello", 5, "pipe read"))
		return -1;
	return check_seed(c, 2, 1);
}

/* [data, other, -1] tagged 101, 102, 0; unregistered: two tag CQEs */
static int fill_file_tags(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[3] = { c->val[0], c->val[1], -1 };
	__u64 tags[3] = { 101, 102, 0 };

	note(c, io_uring_register_files_tags(ring, fds, tags, 3));
	note(c, io_uring_unregister_files(ring));
	return 0;
}

/* slot 0 replaced (new tag 201): 101 posts; then unregister: 201, 102 */
static int fill_file_tag_update(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], c->val[1] };
	__u64 tags[2] = { 101, 102 }, tag = 201;

	note(c, io_uring_register_files_tags(ring, fds, tags, 2));
	note(c, io_uring_register_files_update_tag(ring, 0, &c->val[1], &tag,
						   1));
	if (diff_reap(ring, c, 1))
		return -1;
	note(c, io_uring_unregister_files(ring));
	return 0;
}

/* a tag on an empty slot is refused, and so is the whole table */
static int fill_file_tag_on_empty(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], -1 };
	__u64 tags[2] = { 101, 102 };

	note(c, io_uring_register_files_tags(ring, fds, tags, 2));
	note(c, io_uring_register_files(ring, fds, 2));
	diff_prep_nop(ring, c, 1, 0);
	return 0;
}

/* tag 101 on the pipe's slot: its CQE waits for the read using it */
static int fill_tag_in_use(struct io_uring *ring, struct diff_ctx *c)
{
	__u64 tag = 101;

	note(c, io_uring_register_files_tags(ring, &c->val[2], &tag, 1));
	read_slot(ring, c, 1, 0, 64, 0);
	return 0;
}

static int tag_in_use(struct io_uring *ring, struct diff_ctx *c)
{
	__u64 tag = 0;

	note(c, io_uring_register_files_update_tag(ring, 0, &c->val[0], &tag,
						   1));
	diff_prep_nop(ring, c, 2, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	if (write(c->val[3], "hello", 5) != 5)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	return 0;
}

static int reg_bufs_tagged(struct io_uring *ring, struct diff_ctx *c)
{
	__u64 tags[2] = { 301, 302 };
	unsigned i;

	for (i = 0; i < 2; i++) {
		c->iov[i].iov_base = c->buf[i];
		c->iov[i].iov_len = DIFF_BUFSZ;
	}
	note(c, io_uring_register_buffers_tags(ring, c->iov, tags, 2));
	return 0;
}

static int fill_buf_tags(struct io_uring *ring, struct diff_ctx *c)
{
	reg_bufs_tagged(ring, c);
	note(c, io_uring_unregister_buffers(ring));
	return 0;
}

/* buffer 0 becomes buf[2] (tag 303): 301 posts; READ_FIXED lands in buf[2] */
static int fill_buf_tag_update(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	__u64 tag = 303;

	reg_bufs_tagged(ring, c);
	c->iov[2].iov_base = c->buf[2];
	c->iov[2].iov_len = DIFF_BUFSZ;
	note(c, io_uring_register_buffers_update_tag(ring, 0, &c->iov[2], &tag,
						     1));
	if (diff_reap(ring, c, 1))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_read_fixed(sqe, c->val[0], c->buf[2], 4096, 0, 0);
	diff_tag(sqe, 1, 0);
	return 0;
}

static int check_buf2_data(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 2, 1);
}

/* sparse buffers: 0 empty (the read fails), 1 filled by an update */
static int fill_buf_sparse(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	note(c, io_uring_register_buffers_sparse(ring, 2));
	c->iov[0].iov_base = c->buf[1];
	c->iov[0].iov_len = DIFF_BUFSZ;
	note(c, io_uring_register_buffers_update_tag(ring, 1, c->iov, NULL, 1));
	sqe = diff_sqe(ring, c);
	io_uring_prep_read_fixed(sqe, c->val[0], c->buf[0], 4096, 0, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read_fixed(sqe, c->val[0], c->buf[1], 4096, 0, 1);
	diff_tag(sqe, 2, 0);
	return 0;
}

static int check_buf1_data(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 1, 1);
}

static struct io_uring_sqe *open_direct(struct io_uring *ring,
					struct diff_ctx *c, __u64 ud,
					const char *name, unsigned slot,
					unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_openat_direct(sqe, c->dirfd, name, O_RDONLY, 0, slot);
	diff_tag(sqe, ud, flags);
	return sqe;
}

/* "data" into slot 2 of 4, then read through the slot */
static int fill_open_direct(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_files_sparse(ring, 4));
	open_direct(ring, c, 1, "data", 2, IOSQE_IO_LINK);
	read_slot(ring, c, 2, 2, 4096, 0);
	return 0;
}

static int check_buf2_seed1(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 2, 1);
}

/* slot 0 taken: two allocations get 1 and 2 */
static int fill_open_alloc(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[4] = { c->val[0], -1, -1, -1 };

	note(c, io_uring_register_files(ring, fds, 4));
	open_direct(ring, c, 1, "other", ALLOC_SLOT, IOSQE_IO_LINK);
	open_direct(ring, c, 2, "data", ALLOC_SLOT, IOSQE_IO_LINK);
	read_slot(ring, c, 3, 1, 4096, 0);
	return 0;
}

static int check_buf3_seed2(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 3, 2);
}

/* one slot, taken: allocation fails; replacing slot 0 works */
static int fill_open_full(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_files(ring, &c->val[0], 1));
	open_direct(ring, c, 1, "other", ALLOC_SLOT, 0);
	open_direct(ring, c, 2, "other", 0, IOSQE_IO_LINK);
	read_slot(ring, c, 3, 0, 4096, 0);
	return 0;
}

/* no table: into slot 0, allocated; a table of 4: slot 9 */
static int fill_open_no_table(struct io_uring *ring, struct diff_ctx *c)
{
	open_direct(ring, c, 1, "data", 0, 0);
	open_direct(ring, c, 2, "data", ALLOC_SLOT, 0);
	return 0;
}

static int open_out_of_range(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 2))
		return -1;
	note(c, io_uring_register_files_sparse(ring, 4));
	open_direct(ring, c, 3, "data", 9, 0);
	open_direct(ring, c, 4, "missing", 1, 0);
	return 0;
}

static int check_buf3_seed1(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 3, 1);
}

/* openat2 into slot 1 and into a free slot, RESOLVE_BENEATH violated */
static int fill_openat2_direct(struct io_uring *ring, struct diff_ctx *c)
{
	struct open_how *how = (struct open_how *)c->buf[2];
	struct io_uring_sqe *sqe;

	memset(how, 0, sizeof(*how));
	how->flags = O_RDONLY;
	how->resolve = RESOLVE_BENEATH;
	note(c, io_uring_register_files_sparse(ring, 2));
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat2_direct(sqe, c->dirfd, "data", how, 1);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	read_slot(ring, c, 3, 1, 4096, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat2_direct(sqe, c->dirfd, "other", how, ALLOC_SLOT);
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat2_direct(sqe, c->dirfd, "../x", how, 0);
	diff_tag(sqe, 5, 0);
	return 0;
}

/* close slot 0 twice, read it, close slot 9 of 2: in one chain */
static int fill_close_direct(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], c->val[1] };
	struct io_uring_sqe *sqe;

	note(c, io_uring_register_files(ring, fds, 2));
	sqe = diff_sqe(ring, c);
	io_uring_prep_close_direct(sqe, 0);
	diff_tag(sqe, 1, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close_direct(sqe, 0);
	diff_tag(sqe, 2, IOSQE_IO_HARDLINK);
	read_slot(ring, c, 3, 0, 4096, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close_direct(sqe, 9);
	diff_tag(sqe, 4, IOSQE_IO_HARDLINK);
	read_slot(ring, c, 5, 1, 4096, 0);
	return 0;
}

/* close_direct with no table; CLOSE of a plain fd with a file_index */
static int fill_close_direct_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_close_direct(sqe, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_close(sqe, c->val[0]);
	sqe->file_index = 1;
	diff_tag(sqe, 2, 0);
	return 0;
}

/* FILES_UPDATE of slots 1, 2 of a sparse 4 */
static int fill_files_update_op(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	note(c, io_uring_register_files_sparse(ring, 4));
	c->val[2] = c->val[1];
	c->val[3] = c->val[0];
	sqe = diff_sqe(ring, c);
	io_uring_prep_files_update(sqe, &c->val[2], 2, 1);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	read_slot(ring, c, 2, 2, 4096, 0);
	return 0;
}

static int check_buf2_seed1_b(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 2, 1);
}

/* with IORING_FILE_INDEX_ALLOC: the slots chosen are written back */
static int fill_files_update_alloc(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[4] = { c->val[0], -1, -1, -1 };
	struct io_uring_sqe *sqe;

	note(c, io_uring_register_files(ring, fds, 4));
	c->val[2] = c->val[1];
	c->val[3] = c->val[0];
	sqe = diff_sqe(ring, c);
	io_uring_prep_files_update(sqe, &c->val[2], 2,
				   (int)IORING_FILE_INDEX_ALLOC);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	read_slot(ring, c, 2, 1, 4096, 0);
	return 0;
}

static int check_update_alloc(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	(void)cqe;
	(void)nr;
	diff_note(c, NOTE + 10, c->val[2]);
	diff_note(c, NOTE + 11, c->val[3]);
	c->val[2] = c->val[3] = -1;
	return check_seed(c, 2, 2);
}

/* SKIP leaves slot 0 alone, -1 empties slot 1, slot 2 gets "other" */
static int fill_files_update_skip(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[3] = { c->val[0], c->val[0], c->val[0] };
	struct io_uring_sqe *sqe;

	note(c, io_uring_register_files(ring, fds, 3));
	((int *)c->buf[3])[0] = IORING_REGISTER_FILES_SKIP;
	((int *)c->buf[3])[1] = -1;
	((int *)c->buf[3])[2] = c->val[1];
	sqe = diff_sqe(ring, c);
	io_uring_prep_files_update(sqe, (int *)c->buf[3], 3, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	read_slot(ring, c, 2, 0, 100, IOSQE_IO_HARDLINK);
	read_slot(ring, c, 3, 1, 100, IOSQE_IO_HARDLINK);
	read_slot(ring, c, 4, 2, 100, 0);
	return 0;
}

/* past the table's end; a bad fd; nr 0; no table (in a fresh ring: next) */
static int fill_files_update_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	note(c, io_uring_register_files_sparse(ring, 2));
	c->val[2] = c->val[0];
	c->val[3] = -5;
	sqe = diff_sqe(ring, c);
	io_uring_prep_files_update(sqe, &c->val[2], 2, 1);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_files_update(sqe, &c->val[3], 1, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_files_update(sqe, &c->val[2], 0, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

/*
 * Refused registrations: a negative fd other than -1 (-5, and
 * IORING_REGISTER_FILES_SKIP, which only updates know), the ring's own
 * fd; then an update with -5 of a good table.
 */
static int fill_register_bad_fds(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], -5 };

	note(c, io_uring_register_files(ring, fds, 2));
	fds[1] = IORING_REGISTER_FILES_SKIP;
	note(c, io_uring_register_files(ring, fds, 2));
	fds[1] = ring->ring_fd;
	note(c, io_uring_register_files(ring, fds, 2));
	fds[1] = -1;
	note(c, io_uring_register_files(ring, fds, 2));
	fds[0] = -5;
	note(c, io_uring_register_files_update(ring, 1, fds, 1));
	note(c, io_uring_register_files_update(ring, 1, &ring->ring_fd, 1));
	diff_prep_nop(ring, c, 1, 0);
	return 0;
}

/* the allocation range: slots 4 and 5 of 8, then none left */
static int fill_alloc_range(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_files_sparse(ring, 8));
	note(c, io_uring_register_file_alloc_range(ring, 4, 2));
	note(c, io_uring_register_file_alloc_range(ring, 7, 2));
	open_direct(ring, c, 1, "data", ALLOC_SLOT, IOSQE_IO_LINK);
	open_direct(ring, c, 2, "data", ALLOC_SLOT, IOSQE_IO_LINK);
	open_direct(ring, c, 3, "data", ALLOC_SLOT, 0);
	return 0;
}

/* the application closes its fd: the registered file lives on */
static int fill_close_original(struct io_uring *ring, struct diff_ctx *c)
{
	int fd = dup(c->val[1]);

	if (fd < 0)
		return diff_fail(c, "dup: %s", strerror(errno));
	note(c, io_uring_register_files(ring, &fd, 1));
	close(fd);
	read_slot(ring, c, 1, 0, 4096, 0);
	return 0;
}

static int check_buf1_seed2(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 1, 2);
}

/* ---- the fuzzer's findings (tests/fuzz/findings) ---- */

static void write_fixed(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
			void *buf)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_write_fixed(sqe, 0, buf, 512, 0, 0);
	diff_tag(sqe, ud, IOSQE_FIXED_FILE);
}

/*
 * close-direct-then-write-fixed-buffer-first: CLOSE of direct slot 0,
 * then WRITE_FIXED through the slot, one submit: the file is looked up
 * before the registered buffer is (io_assign_file() at issue), so the
 * emptied slot answers -EBADF, whatever the buffer's address.
 */
static int fill_close_then_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int fd = c->val[0], ret;

	c->iov[0].iov_base = c->buf[0];
	c->iov[0].iov_len = 4096;
	ret = io_uring_register_buffers(ring, c->iov, 1);
	if (!ret)
		ret = io_uring_register_files(ring, &fd, 1);
	if (ret)
		return diff_fail(c, "register: %s", strerror(-ret));
	io_uring_prep_close_direct(diff_sqe(ring, c), 0);
	diff_tag(&ring->sq.sqes[(ring->sq.sqe_tail - 1) & ring->sq.ring_mask],
		 1, 0);
	write_fixed(ring, c, 2, c->buf[1]);
	write_fixed(ring, c, 3, c->buf[0]);
	return 0;
}

/* ---- IORING_REGISTER_CLONE_BUFFERS (6.12), from a second ring ---- */

#define CLONE_BUFFERS	30		/* IORING_REGISTER_CLONE_BUFFERS */
#define CLONE_SRC_REG	(1U << 0)	/* IORING_REGISTER_SRC_REGISTERED */
#define CLONE_REPLACE	(1U << 1)	/* IORING_REGISTER_DST_REPLACE */

static struct io_uring src_ring;
static bool src_up;

static void src_exit(struct diff_ctx *c)
{
	(void)c;
	if (src_up)
		io_uring_queue_exit(&src_ring);
	src_up = false;
}

/* a second ring of the engine, its first nr of buf[0..3] registered */
static int src_init(struct diff_ctx *c, unsigned nr)
{
	struct io_uring_params p;
	unsigned i;
	int ret;

	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine(c->engine, 4, &src_ring, &p);
	if (ret)
		return diff_fail(c, "source ring: %d", ret);
	src_up = true;
	for (i = 0; i < 4; i++) {
		c->iov[i].iov_base = c->buf[i];
		c->iov[i].iov_len = DIFF_BUFSZ;
	}
	if (nr)
		note(c, io_uring_register_buffers(&src_ring, c->iov, nr));
	return 0;
}

static int clone_bufs(struct io_uring *dst, unsigned src_fd, unsigned flags,
		      unsigned src_off, unsigned dst_off, unsigned nr,
		      unsigned pad)
{
	struct {
		__u32 src_fd, flags, src_off, dst_off, nr, pad[3];
	} a = { src_fd, flags, src_off, dst_off, nr, { 0, pad, 0 } };

	return io_uring_register(dst->ring_fd, CLONE_BUFFERS, &a, 1);
}

/* READ_FIXED of the data file's first 4096 bytes into buf[b], buffer idx */
static void read_fixed(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		       unsigned b, unsigned idx)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read_fixed(sqe, c->val[0], c->buf[b], 4096, 0, (int)idx);
	diff_tag(sqe, ud, 0);
}

/*
 * All four of the source's, then (DST_REPLACE) its 1 and 2 as 2 and 3:
 * a read through 3 lands in buf[2]; 4 is past the table
 */
static int fill_clone(struct io_uring *ring, struct diff_ctx *c)
{
	int fd;

	if (src_init(c, 4))
		return -1;
	fd = src_ring.ring_fd;
	note(c, clone_bufs(ring, fd, 0, 0, 0, 0, 0));
	note(c, clone_bufs(ring, fd, 0, 0, 0, 0, 0));
	note(c, clone_bufs(ring, fd, CLONE_REPLACE, 1, 2, 2, 0));
	read_fixed(ring, c, 1, 2, 3);
	read_fixed(ring, c, 2, 3, 4);
	return 0;
}

/* the argument's checks, in 6.18's order, and sources that have nothing */
static int fill_clone_bad(struct io_uring *ring, struct diff_ctx *c)
{
	int fd;

	if (src_init(c, 2))
		return -1;
	fd = src_ring.ring_fd;
	note(c, clone_bufs(ring, fd, 1U << 5, 0, 0, 0, 0));
	note(c, clone_bufs(ring, fd, 0, 0, 0, 0, 1));
	note(c, clone_bufs(ring, (unsigned)c->val[0], 0, 0, 0, 0, 0));
	note(c, clone_bufs(ring, 9999, 0, 0, 0, 0, 0));
	note(c, clone_bufs(ring, fd, 0, 0, 1, 0, 0));
	note(c, clone_bufs(ring, fd, 0, 0, 0, 3, 0));
	note(c, clone_bufs(ring, fd, 0, 1, 0, 2, 0));
	note(c, clone_bufs(ring, fd, 0, 0, 0xffffffffU, 1, 0));
	note(c, clone_bufs(ring, fd, 0, 0, 16384, 1, 0));
	note(c, clone_bufs(ring, (unsigned)ring->ring_fd, 0, 0, 0, 0, 0));
	note(c, io_uring_unregister_buffers(&src_ring));
	note(c, clone_bufs(ring, fd, CLONE_REPLACE, 0, 0, 0, 0));
	note(c, io_uring_register_buffers(ring, c->iov, 1));
	note(c, clone_bufs(ring, fd, 0, 0, 0, 0, 0));
	return 0;
}

/*
 * The source named by its registered index; then the ring from itself:
 * its 0 and 1 again as 2 and 3 (a read through 3 lands in buf[1])
 */
static int fill_clone_index_self(struct io_uring *ring, struct diff_ctx *c)
{
	if (src_init(c, 2))
		return -1;
	note(c, io_uring_register_ring_fd(&src_ring));
	note(c, clone_bufs(ring, (unsigned)src_ring.enter_ring_fd, CLONE_SRC_REG,
			   0, 0, 0, 0));
	note(c, clone_bufs(ring, (unsigned)ring->ring_fd, CLONE_REPLACE, 0, 2, 2, 0));
	read_fixed(ring, c, 1, 1, 3);
	return 0;
}

static int check_clone_buf1(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_seed(c, 1, 1);
}

/*
 * DST_REPLACE over tagged buffers: the one the clone covers posts its
 * tag (302) as the old table goes; the one kept (301) at unregister
 */
static int fill_clone_tags(struct io_uring *ring, struct diff_ctx *c)
{
	if (src_init(c, 0))
		return -1;
	reg_bufs_tagged(ring, c);
	note(c, io_uring_register_buffers(&src_ring, &c->iov[2], 1));
	note(c, clone_bufs(ring, (unsigned)src_ring.ring_fd, CLONE_REPLACE, 0, 1, 1, 0));
	if (diff_reap(ring, c, 1))
		return -1;
	note(c, io_uring_unregister_buffers(ring));
	return 0;
}

const struct scenario diff_rsrc[] = {
	{
		.name = "rsrc_clone_buffers",
		.setup = setup_data,
		.fill = fill_clone,
		.check = check_buf2_data,
		.teardown = src_exit,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, 4096 }, { 2, -EFAULT } },
	}, {
		.name = "rsrc_clone_buffers_bad",
		.setup = setup_data,
		.fill = fill_clone_bad,
		.teardown = src_exit,
		.nr_cqes = 0,
	}, {
		.name = "rsrc_clone_buffers_index_self",
		.setup = setup_data,
		.fill = fill_clone_index_self,
		.check = check_clone_buf1,
		.teardown = src_exit,
		.nr_cqes = 1,
		.known = { { 1, 4096 } },
	}, {
		.name = "rsrc_clone_buffers_tags",
		.setup = setup_data,
		.fill = fill_clone_tags,
		.teardown = src_exit,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 302, 0 }, { 301, 0 } },
	}, {
		.name = "fixed_file_read",
		.setup = setup_data,
		.fill = fill_fixed_file,
		.check = check_fixed_file,
		.nr_cqes = 1,
		.known = { { 1, 4096 } },
	}, {
		.name = "fixed_file_bad_index",
		.setup = setup_data,
		.fill = fill_fixed_file_bad,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -EBADF }, { 3, -EBADF } },
	}, {
		.name = "fixed_file_none_registered",
		.setup = setup_data,
		.fill = fill_fixed_file_none,
		.nr_cqes = 1,
		.known = { { 1, -EBADF } },
	}, {
		.name = "rsrc_sparse_files_update",
		.setup = setup_files,
		.fill = fill_sparse_update,
		.check = check_slot2_data,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, 4096 }, { 2, -EBADF }, { NOTE + 1, 1 } },
	}, {
		.name = "rsrc_update_slot_in_use",
		.setup = setup_files_pipe,
		.fill = fill_update_in_use,
		.after_submit = update_in_use,
		.check = check_update_in_use,
		.nr_cqes = 2,
		.known = { { 1, 5 }, { 2, 4096 } },
	}, {
		.name = "rsrc_file_tags_on_unregister",
		.setup = setup_files,
		.fill = fill_file_tags,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 101, 0 }, { 102, 0 } },
	}, {
		.name = "rsrc_file_tags_on_update",
		.setup = setup_files,
		.fill = fill_file_tag_update,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 101, 201 }, { 101, 102 } },
	}, {
		.name = "rsrc_file_tag_on_empty_slot",
		.setup = setup_files,
		.fill = fill_file_tag_on_empty,
		.nr_cqes = 1,
	}, {
		.name = "rsrc_file_tag_waits_for_user",
		.setup = setup_files_pipe,
		.fill = fill_tag_in_use,
		.after_submit = tag_in_use,
		.nr_cqes = 3,
		.known = { { 1, 5 }, { 101, 0 } },
	}, {
		.name = "rsrc_buffer_tags_on_unregister",
		.setup = setup_files,
		.fill = fill_buf_tags,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 301, 0 }, { 302, 0 } },
	}, {
		.name = "rsrc_buffer_tag_on_update",
		.setup = setup_files,
		.fill = fill_buf_tag_update,
		.check = check_buf2_data,
		.nr_cqes = 2,
		.known = { { 301, 0 }, { 1, 4096 } },
	}, {
		.name = "rsrc_buffers_sparse",
		.setup = setup_files,
		.fill = fill_buf_sparse,
		.check = check_buf1_data,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 2, 4096 } },
	}, {
		.name = "rsrc_openat_direct",
		.setup = setup_files,
		.fill = fill_open_direct,
		.check = check_buf2_seed1,
		.nr_cqes = 2,
		.known = { { 1, 0 }, { 2, 4096 } },
	}, {
		.name = "rsrc_openat_direct_alloc",
		.setup = setup_files,
		.fill = fill_open_alloc,
		.check = check_buf3_seed2,
		.nr_cqes = 3,
		.known = { { 1, 1 }, { 2, 2 }, { 3, 4096 } },
	}, {
		.name = "rsrc_openat_direct_table_full",
		.setup = setup_files,
		.fill = fill_open_full,
		.check = check_buf3_seed2,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 3 } },
		.known = { { 1, -ENFILE }, { 2, 0 } },
	}, {
		.name = "rsrc_openat_direct_no_table_or_range",
		.setup = setup_files,
		.fill = fill_open_no_table,
		.after_submit = open_out_of_range,
		.nr_cqes = 4,
		.order = ORDER_ANY,
	}, {
		.name = "rsrc_openat2_direct",
		.setup = setup_files,
		.fill = fill_openat2_direct,
		.check = check_buf3_seed1,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 3 } },
		.known = { { 1, 0 }, { 3, 4096 }, { 4, 0 }, { 5, -EXDEV } },
	}, {
		.name = "rsrc_close_direct",
		.setup = setup_files,
		.fill = fill_close_direct,
		.nr_cqes = 5,
		.known = { { 1, 0 }, { 2, -EBADF }, { 3, -EBADF },
			   { 5, 4096 } },
	}, {
		.name = "rsrc_close_direct_bad",
		.setup = setup_files,
		.fill = fill_close_direct_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		.order = ORDER_ANY,
	}, {
		.name = "rsrc_files_update_op",
		.setup = setup_files,
		.fill = fill_files_update_op,
		.check = check_buf2_seed1_b,
		.nr_cqes = 2,
		.known = { { 1, 2 }, { 2, 4096 } },
	}, {
		.name = "rsrc_files_update_op_alloc",
		.setup = setup_files,
		.fill = fill_files_update_alloc,
		.check = check_update_alloc,
		.nr_cqes = 2,
		.known = { { 1, 2 }, { 2, 4096 }, { NOTE + 10, 1 },
			   { NOTE + 11, 2 } },
	}, {
		.name = "rsrc_files_update_op_skip",
		.setup = setup_files,
		.fill = fill_files_update_skip,
		.nr_cqes = 4,
		.known = { { 1, 3 }, { 2, 100 }, { 3, -EBADF }, { 4, 100 } },
	}, {
		.name = "rsrc_files_update_op_bad",
		.setup = setup_files,
		.fill = fill_files_update_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.order = ORDER_ANY,
	}, {
		.name = "rsrc_register_bad_fds",
		.setup = setup_files,
		.fill = fill_register_bad_fds,
		.nr_cqes = 1,
	}, {
		.name = "rsrc_file_alloc_range",
		.setup = setup_files,
		.fill = fill_alloc_range,
		.nr_cqes = 3,
		.known = { { 1, 4 }, { 2, 5 }, { 3, -ENFILE } },
	}, {
		.name = "rsrc_registered_file_outlives_fd",
		.setup = setup_files,
		.fill = fill_close_original,
		.check = check_buf1_seed2,
		.nr_cqes = 1,
		.known = { { 1, 4096 } },
	}, {
		.name = "found_close_direct_then_write_fixed",
		.setup = setup_data,
		.fill = fill_close_then_fixed,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 1, 0 }, { 2, -EBADF }, { 3, -EBADF } },
	},
	{ .name = NULL }
};
