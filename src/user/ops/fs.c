/* SPDX-License-Identifier: MIT */
/*
 * fs.c - the opcodes on names relative to a dirfd: RENAMEAT, UNLINKAT,
 * MKDIRAT, SYMLINKAT, LINKAT, as the kernel's io_uring/fs.c. All punt:
 * issue answers AR_ISSUE_NONBLOCK with -EAGAIN, and a worker makes the
 * system call.
 *
 * Prep makes the SQE checks of Linux 6.18's io_uring/fs.c and copies the
 * paths (getname() there, ar_fs_getnames() here), so a path that is too
 * long, empty or NULL fails the SQE at submit as in the kernel. The dirfds
 * are sqe->fd (and sqe->len for the second one), used raw: AT_FDCWD
 * works, IOSQE_FIXED_FILE is -EBADF. Flags are checked by the system
 * calls, the same checks the kernel's handlers reach, except UNLINKAT's,
 * which the kernel checks at prep.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "user/ops/fs.h"
#include "user/types.h"

/* RENAMEAT, SYMLINKAT, LINKAT: two names */
struct ar_names {
	const char *oldpath;
	const char *newpath;
	int old_dfd;		/* SYMLINKAT: unused */
	int new_dfd;
	__u32 flags;		/* rename_flags, hardlink_flags */
};

/* UNLINKAT, MKDIRAT: one */
struct ar_name {
	const char *path;
	int dfd;
	__u32 flags;		/* unlink_flags */
	mode_t mode;		/* MKDIRAT: sqe->len as a umode_t */
};

static int ar_ret(int ret)
{
	return ret < 0 ? -errno : ret;
}

/* both names, or the first one's error */
static int ar_names_copy(struct ar_ureq *req, struct ar_names *nm,
			 __u64 oldaddr, bool old_empty_ok, __u64 newaddr)
{
	struct ar_fs_name names[2] = {
		{ .addr = oldaddr, .empty_ok = old_empty_ok },
		{ .addr = newaddr },
	};
	int ret;

	ret = ar_fs_getnames(req, names, 2);
	if (ret)
		return ret;
	nm->oldpath = names[0].path;
	nm->newpath = names[1].path;
	return 0;
}

static int ar_name_copy(struct ar_ureq *req, struct ar_name *nm, __u64 addr)
{
	struct ar_fs_name name = { .addr = addr };
	int ret;

	ret = ar_fs_getnames(req, &name, 1);
	if (ret)
		return ret;
	nm->path = name.path;
	return 0;
}

/* old at sqe->addr relative to sqe->fd, new at sqe->addr2 to sqe->len */
int ar_renameat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_names *ren = ar_req_data(req, struct ar_names);

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	ren->old_dfd = sqe->fd;
	ren->new_dfd = (int)sqe->len;
	ren->flags = sqe->rename_flags;
	return ar_names_copy(req, ren, sqe->addr, false, sqe->addr2);
}

int ar_renameat_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_names *ren = ar_req_data(req, struct ar_names);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_ret(renameat2(ren->old_dfd, ren->oldpath, ren->new_dfd,
				ren->newpath, ren->flags));
}

int ar_unlinkat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_name *un = ar_req_data(req, struct ar_name);

	if (sqe->off || sqe->len || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	un->dfd = sqe->fd;
	un->flags = sqe->unlink_flags;
	if (un->flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return ar_name_copy(req, un, sqe->addr);
}

int ar_unlinkat_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_name *un = ar_req_data(req, struct ar_name);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_ret(unlinkat(un->dfd, un->path, (int)un->flags));
}

/* the mode in sqe->len */
int ar_mkdirat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_name *mkd = ar_req_data(req, struct ar_name);

	if (sqe->off || sqe->rw_flags || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	mkd->dfd = sqe->fd;
	mkd->mode = (__u16)sqe->len;
	return ar_name_copy(req, mkd, sqe->addr);
}

int ar_mkdirat_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_name *mkd = ar_req_data(req, struct ar_name);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_ret(mkdirat(mkd->dfd, mkd->path, mkd->mode));
}

/* the target at sqe->addr, the new link at sqe->addr2 relative to sqe->fd */
int ar_symlinkat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_names *sl = ar_req_data(req, struct ar_names);

	if (sqe->len || sqe->rw_flags || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	sl->old_dfd = AT_FDCWD;
	sl->new_dfd = sqe->fd;
	sl->flags = 0;
	return ar_names_copy(req, sl, sqe->addr, false, sqe->addr2);
}

int ar_symlinkat_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_names *sl = ar_req_data(req, struct ar_names);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_ret(symlinkat(sl->oldpath, sl->new_dfd, sl->newpath));
}

/* as RENAMEAT; with AT_EMPTY_PATH the old name may be "" */
int ar_linkat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_names *lnk = ar_req_data(req, struct ar_names);

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	lnk->old_dfd = sqe->fd;
	lnk->new_dfd = (int)sqe->len;
	lnk->flags = sqe->hardlink_flags;
	return ar_names_copy(req, lnk, sqe->addr, lnk->flags & AT_EMPTY_PATH,
			     sqe->addr2);
}

int ar_linkat_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_names *lnk = ar_req_data(req, struct ar_names);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_ret(linkat(lnk->old_dfd, lnk->oldpath, lnk->new_dfd,
			     lnk->newpath, (int)lnk->flags));
}
