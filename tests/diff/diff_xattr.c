/* SPDX-License-Identifier: MIT */
/*
 * diff_xattr.c - FSETXATTR, SETXATTR, FGETXATTR and GETXATTR
 * (ops/xattr.c) in the run's temp dir (user.* names): set then read
 * back, by fd and by path, the size-only query, the value written to
 * the buffer; and their errors: prep (flags, names "" and over
 * XATTR_NAME_MAX, a value over XATTR_SIZE_MAX, IOSQE_FIXED_FILE) and
 * issue (no such attribute, a buffer too small, CREATE/REPLACE, a
 * namespace that does not exist, a missing path, a bad fd). An error
 * does not fail a link, as the kernel's. If the filesystem refuses user
 * xattrs, both engines must refuse alike.
 */
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "harness.h"

#define NOTE	1000

/* val[0]: "data" (user.a = "hello" when setup could set it) */
static int setup_xattr(struct diff_ctx *c)
{
	if (diff_data_file(c, 64, O_RDWR))
		return -1;
	(void)fsetxattr(c->val[0], "user.a", "hello", 5, 0);
	return 0;
}

static void prep_xattr(struct io_uring_sqe *sqe, __u8 op, int fd,
		       const char *name, void *value, unsigned len,
		       const char *path, unsigned flags)
{
	io_uring_prep_rw(op, sqe, fd, name, len, 0);
	sqe->addr2 = (unsigned long)value;
	sqe->addr3 = (unsigned long)path;
	sqe->xattr_flags = flags;
}

/* the path of "data" in the run's dir, in buf[3] */
static const char *data_path(struct diff_ctx *c)
{
	snprintf(c->buf[3], DIFF_BUFSZ, "%s/data", c->dir);
	return c->buf[3];
}

/* a chain: set user.b by fd, read it by fd and by path, set user.c by path, size query */
static int fill_set_get(struct io_uring *ring, struct diff_ctx *c)
{
	const char *path = data_path(c);
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FSETXATTR, c->val[0], "user.b", "world!", 6,
		   NULL, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], "user.b", c->buf[0],
		   64, NULL, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_SETXATTR, 0, "user.c", "xyz", 3, path,
		   XATTR_CREATE);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_GETXATTR, 0, "user.c", c->buf[1], 64, path, 0);
	diff_tag(sqe, 4, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], "user.b", NULL, 0,
		   NULL, 0);
	diff_tag(sqe, 5, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_SETXATTR, 0, "user.e", NULL, 0, path, 0);
	diff_tag(sqe, 6, 0);
	return 0;
}

/* what the gets wrote, and what the file holds afterwards */
static int check_set_get(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	char v[16] = "";
	const struct diff_cqe *g = diff_find(cqe, nr, 2);

	if (g && g->res == 6 && memcmp(c->buf[0], "world!", 6))
		return diff_fail(c, "FGETXATTR wrote the wrong value");
	g = diff_find(cqe, nr, 4);
	if (g && g->res == 3 && memcmp(c->buf[1], "xyz", 3))
		return diff_fail(c, "GETXATTR wrote the wrong value");
	diff_note(c, NOTE, (int)fgetxattr(c->val[0], "user.c", v, sizeof(v)));
	diff_note(c, NOTE + 1, (int)fgetxattr(c->val[0], "user.e", v, sizeof(v)));
	return 0;
}

static char long_name[300];

static const char *make_long_name(size_t len)
{
	memcpy(long_name, "user.", 5);
	memset(long_name + 5, 'n', len - 5);
	long_name[len] = 0;
	return long_name;
}

/* prep errors, each alone (no chain) */
static int fill_prep_errors(struct io_uring *ring, struct diff_ctx *c)
{
	const char *path = data_path(c);
	struct io_uring_sqe *sqe;
	__u64 ud = 1;

	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], "user.a", c->buf[0],
		   64, NULL, 1);		/* get flags: -EINVAL */
	diff_tag(sqe, ud++, 0);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FSETXATTR, c->val[0], "user.a", "x", 1,
		   NULL, 4);		/* set flags: -EINVAL */
	diff_tag(sqe, ud++, 0);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], "", c->buf[0], 64,
		   NULL, 0);		/* "": -ERANGE */
	diff_tag(sqe, ud++, 0);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FSETXATTR, c->val[0], make_long_name(256),
		   "x", 1, NULL, 0);	/* 256 bytes: -ERANGE */
	diff_tag(sqe, ud++, 0);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FSETXATTR, c->val[0], "user.a", c->buf[0],
		   65537, NULL, 0);	/* -E2BIG */
	diff_tag(sqe, ud++, 0);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_GETXATTR, 0, "user.a", c->buf[0], 64,
		   path, 0);
	diff_tag(sqe, ud++, IOSQE_FIXED_FILE);	/* -EBADF */
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_GETXATTR, 0, "user.a", c->buf[0], 64, "", 0);
	diff_tag(sqe, ud++, 0);		/* path "": -ENOENT */
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_SETXATTR, 0, "user.a", "x", 1, path, 0);
	diff_tag(sqe, ud++, IOSQE_FIXED_FILE);	/* -EBADF */
	return 0;
}

/* issue errors, chained: the op's own errors do not break the link */
static int fill_issue_errors(struct io_uring *ring, struct diff_ctx *c)
{
	const char *path = data_path(c);
	struct io_uring_sqe *sqe;
	__u64 ud = 1;

	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], "user.none",
		   c->buf[0], 64, NULL, 0);	/* -ENODATA */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], "user.a", c->buf[0],
		   2, NULL, 0);		/* too small: -ERANGE */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FSETXATTR, c->val[0], "user.a", "x", 1,
		   NULL, XATTR_CREATE);	/* -EEXIST */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_SETXATTR, 0, "user.q", "x", 1, path,
		   XATTR_REPLACE);	/* -ENODATA */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], "bogus.a", c->buf[0],
		   64, NULL, 0);	/* no such namespace: -EOPNOTSUPP */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_GETXATTR, 0, "user.a", c->buf[0], 64,
		   "/nonexistent/x", 0);	/* -ENOENT */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, c->val[0], make_long_name(255),
		   c->buf[0], 64, NULL, 0);	/* 255 is allowed: -ENODATA */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	/* a bad fd is the core's failure, not the op's: it breaks the chain */
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, 1000, "user.a", c->buf[0], 64,
		   NULL, 0);		/* -EBADF */
	diff_tag(sqe, ud++, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, ud++, 0);
	return 0;
}

/* the fd ops on a registered file; an empty slot -EBADF at issue */
static int fill_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int ret = io_uring_register_files(ring, &c->val[0], 1);

	if (ret)
		return diff_fail(c, "register files: %d", ret);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FSETXATTR, 0, "user.f", "fixed", 5, NULL, 0);
	diff_tag(sqe, 1, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, 0, "user.f", c->buf[0], 64, NULL,
		   0);
	diff_tag(sqe, 2, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_xattr(sqe, IORING_OP_FGETXATTR, 3, "user.f", c->buf[0], 64, NULL,
		   0);
	diff_tag(sqe, 3, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

const struct scenario diff_xattr[] = {
	{
		.name = "xattr_set_get",
		.setup = setup_xattr,
		.fill = fill_set_get,
		.check = check_set_get,
		.nr_cqes = 6,
		.order = ORDER_EXACT,
	}, {
		.name = "xattr_prep_errors",
		.setup = setup_xattr,
		.fill = fill_prep_errors,
		.after_submit = diff_submit_rest,
		.nr_cqes = 8,
		.order = ORDER_ANY,
		.known = { { 1, -EINVAL }, { 2, -EINVAL }, { 3, -ERANGE },
			   { 4, -ERANGE }, { 5, -E2BIG }, { 6, -EBADF },
			   { 7, -ENOENT }, { 8, -EBADF } },
	}, {
		.name = "xattr_issue_errors",
		.entries = 16,
		.setup = setup_xattr,
		.fill = fill_issue_errors,
		.nr_cqes = 9,
		.order = ORDER_EXACT,
		.known = { { 1, -ENODATA }, { 7, -ENODATA }, { 8, -EBADF },
			   { 9, -ECANCELED } },
	}, {
		.name = "xattr_fixed_file",
		.setup = setup_xattr,
		.fill = fill_fixed,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 3, -EBADF }, { 4, -ECANCELED } },
	},
	{ .name = NULL },
};
