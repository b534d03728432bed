/* SPDX-License-Identifier: MIT */
/*
 * diff_fs.c - the opcodes on names (ops/fs.c) in the run's dir:
 * RENAMEAT, UNLINKAT (file, directory with AT_REMOVEDIR, directory
 * without it), MKDIRAT, SYMLINKAT, LINKAT, each with the error cases next
 * to it, and a linked chain of them; RENAME_EXCHANGE, the flags of
 * UNLINKAT and LINKAT, and MKDIRAT's mode. Post-checks look at the dir
 * afterwards. Their paths, copied at prep by ops/fs_names.c, given bad
 * pointers: diff_uaccess.c.
 */
#include <fcntl.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include "harness.h"

/* files "a" and "b", directory "d" */
static int setup_names(struct diff_ctx *c)
{
	if (diff_file(c, "a", "aaaa", 4, O_RDONLY) < 0 ||
	    diff_file(c, "b", "bb", 2, O_RDONLY) < 0)
		return -1;
	if (mkdirat(c->dirfd, "d", 0755))
		return diff_fail(c, "mkdir d: %s", strerror(errno));
	return 0;
}

/* 1: a -> c; 2: missing -> x; 3: b -> c with NOREPLACE (c exists by then) */
static int fill_rename(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_renameat(sqe, c->dirfd, "a", c->dirfd, "c", 0);
	diff_tag(sqe, 1, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "missing", c->dirfd, "x", 0);
	diff_tag(sqe, 2, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "b", c->dirfd, "c",
			       RENAME_NOREPLACE);
	diff_tag(sqe, 3, 0);
	return 0;
}

static int check_rename(struct diff_ctx *c, const struct diff_cqe *cqe,
			unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (diff_path_exists(c, "a", 0) || diff_path_exists(c, "x", 0) ||
	    diff_path_exists(c, "b", S_IFREG))
		return -1;
	return diff_check_file(c, "c", "aaaa", 4);
}

/* 1: file a; 2: dir d with AT_REMOVEDIR; 3: missing; 4: b as a dir */
static int fill_unlink(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_unlinkat(sqe, c->dirfd, "a", 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "d", AT_REMOVEDIR);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "missing", 0);
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "b", AT_REMOVEDIR);
	diff_tag(sqe, 4, 0);
	return 0;
}

static int check_unlink(struct diff_ctx *c, const struct diff_cqe *cqe,
			unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (diff_path_exists(c, "a", 0) || diff_path_exists(c, "d", 0))
		return -1;
	return diff_path_exists(c, "b", S_IFREG);
}

/* a directory without AT_REMOVEDIR */
static int fill_unlink_dir(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_unlinkat(sqe, c->dirfd, "d", 0);
	diff_tag(sqe, 1, 0);
	return 0;
}

/* 1: e; 2: d again; 3: inside a missing dir; 4: over the file a */
static int fill_mkdir(struct io_uring *ring, struct diff_ctx *c)
{
	static const char *const path[] = { "e", "d", "nodir/e", "a" };
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < 4; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_mkdirat(sqe, c->dirfd, path[i], 0750);
		diff_tag(sqe, i + 1, 0);
	}
	return 0;
}

static int check_mkdir(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_path_exists(c, "e", S_IFDIR);
}

/* 1: sl -> a; 2: dangling -> nowhere; 3: over a */
static int fill_symlink(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_symlinkat(sqe, "a", c->dirfd, "sl");
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_symlinkat(sqe, "nowhere", c->dirfd, "dangling");
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_symlinkat(sqe, "b", c->dirfd, "a");
	diff_tag(sqe, 3, 0);
	return 0;
}

static int check_symlink(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	char target[16];
	ssize_t n;

	(void)cqe;
	(void)nr;
	if (diff_path_exists(c, "dangling", S_IFLNK))
		return -1;
	n = readlinkat(c->dirfd, "sl", target, sizeof(target));
	if (n != 1 || target[0] != 'a')
		return diff_fail(c, "sl does not point to a");
	return diff_check_file(c, "sl", "aaaa", 4);
}

/* 1: hl = a; 2: over b; 3: from missing; 4: a directory */
static int fill_link(struct io_uring *ring, struct diff_ctx *c)
{
	static const char *const from[] = { "a", "a", "missing", "d" };
	static const char *const to[] = { "hl", "b", "x", "dl" };
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < 4; i++) {
		sqe = diff_sqe(ring, c);
		io_uring_prep_linkat(sqe, c->dirfd, from[i], c->dirfd, to[i],
				     0);
		diff_tag(sqe, i + 1, 0);
	}
	return 0;
}

static int check_link(struct diff_ctx *c, const struct diff_cqe *cqe,
		      unsigned nr)
{
	struct stat st;

	(void)cqe;
	(void)nr;
	if (fstatat(c->dirfd, "hl", &st, 0))
		return diff_fail(c, "stat hl: %s", strerror(errno));
	if (st.st_nlink != 2)
		return diff_fail(c, "hl has %lu links, expected 2",
				 (unsigned long)st.st_nlink);
	return diff_check_file(c, "b", "bb", 2);
}

/* mkdir t, symlink t/s -> ../a, rename t/s -> t/u, unlink t/u, rmdir t */
static int fill_chain(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_mkdirat(sqe, c->dirfd, "t", 0755);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_symlinkat(sqe, "../a", c->dirfd, "t/s");
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "t/s", c->dirfd, "t/u", 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "t/u", 0);
	diff_tag(sqe, 4, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "t", AT_REMOVEDIR);
	diff_tag(sqe, 5, 0);
	return 0;
}

static int check_chain(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (diff_path_exists(c, "t", 0))
		return -1;
	return diff_check_file(c, "a", "aaaa", 4);
}

/* ---- RENAME_EXCHANGE, UNLINKAT and LINKAT flags ---- */

#define NOTE	1000

/* swap data and b; NOREPLACE|EXCHANGE refused; unknown flags */
static int fill_rename_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "data", c->dirfd, "b",
			       RENAME_EXCHANGE);
	diff_tag(sqe, 1, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "data", c->dirfd, "b",
			       RENAME_EXCHANGE | RENAME_NOREPLACE);
	diff_tag(sqe, 2, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "data", c->dirfd, "x", 1U << 10);
	diff_tag(sqe, 3, IOSQE_IO_HARDLINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_renameat(sqe, c->dirfd, "d", c->dirfd, "data", 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

static int check_rename_flags(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_file(c, "data", "bb", 2);
}

/*
 * Independent requests: unknown unlinkat/linkat flags; a symlink linked
 * with and without AT_SYMLINK_FOLLOW; a dir with AT_REMOVEDIR; a mode.
 */
static int fill_name_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "b", 1);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_linkat(sqe, c->dirfd, "lnk", c->dirfd, "hard",
			     AT_SYMLINK_FOLLOW);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_linkat(sqe, c->dirfd, "lnk", c->dirfd, "hard2", 0);
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_linkat(sqe, c->dirfd, "b", c->dirfd, "x", 1U << 20);
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_unlinkat(sqe, c->dirfd, "d", AT_REMOVEDIR);
	diff_tag(sqe, 5, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_mkdirat(sqe, c->dirfd, "m", 0701);
	diff_tag(sqe, 6, 0);
	return 0;
}

static int check_name_flags(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	struct stat st;

	(void)cqe;
	(void)nr;
	if (fstatat(c->dirfd, "hard", &st, AT_SYMLINK_NOFOLLOW))
		return diff_fail(c, "stat hard: %s", strerror(errno));
	diff_note(c, NOTE, S_ISREG(st.st_mode));
	if (fstatat(c->dirfd, "hard2", &st, AT_SYMLINK_NOFOLLOW))
		return diff_fail(c, "stat hard2: %s", strerror(errno));
	diff_note(c, NOTE + 1, S_ISLNK(st.st_mode));
	if (fstatat(c->dirfd, "m", &st, 0))
		return diff_fail(c, "stat m: %s", strerror(errno));
	diff_note(c, NOTE + 2, (int)(st.st_mode & 07777));
	return 0;
}

const struct scenario diff_fs[] = {
	{
		.name = "names_renameat",
		.setup = setup_names,
		.fill = fill_rename,
		.check = check_rename,
		.nr_cqes = 3,
		.known = { { 1, 0 }, { 2, -ENOENT }, { 3, -EEXIST } },
	}, {
		.name = "names_unlinkat",
		.setup = setup_names,
		.fill = fill_unlink,
		.check = check_unlink,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, 0 }, { 3, -ENOENT } },
	}, {
		.name = "names_unlinkat_dir_without_removedir",
		.setup = setup_names,
		.fill = fill_unlink_dir,
		.nr_cqes = 1,
	}, {
		.name = "names_mkdirat",
		.setup = setup_names,
		.fill = fill_mkdir,
		.check = check_mkdir,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, -EEXIST }, { 3, -ENOENT } },
	}, {
		.name = "names_symlinkat",
		.setup = setup_names,
		.fill = fill_symlink,
		.check = check_symlink,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, 0 }, { 3, -EEXIST } },
	}, {
		.name = "names_linkat",
		.setup = setup_names,
		.fill = fill_link,
		.check = check_link,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, -EEXIST }, { 3, -ENOENT } },
	}, {
		.name = "names_linked_chain",
		.setup = setup_names,
		.fill = fill_chain,
		.check = check_chain,
		.nr_cqes = 5,
		.known = { { 1, 0 }, { 5, 0 } },
	}, {
		.name = "ops_rename_flags",
		.setup = diff_setup_tree,
		.fill = fill_rename_flags,
		.check = check_rename_flags,
		.nr_cqes = 4,
		.known = { { 1, 0 }, { 2, -EINVAL }, { 3, -EINVAL } },
	}, {
		.name = "ops_name_flags",
		.setup = diff_setup_tree,
		.fill = fill_name_flags,
		.after_submit = diff_submit_rest,
		.check = check_name_flags,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 2, 0 }, { 3, 0 }, { 5, 0 }, { 6, 0 },
			   { NOTE, 1 }, { NOTE + 1, 1 } },
	},
	{ .name = NULL }
};
