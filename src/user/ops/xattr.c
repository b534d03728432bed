/* SPDX-License-Identifier: MIT */
/*
 * xattr.c - extended attributes: FSETXATTR, SETXATTR, FGETXATTR, GETXATTR
 * (the kernel's io_uring/xattr.c).
 *
 * Prep makes the kernel's checks in its order and copies what it copies:
 * the name (import_xattr_name(): "" or XATTR_NAME_MAX + 1 bytes without a
 * NUL -ERANGE, memory that faults -EFAULT), for the set ops the value
 * (setxattr_copy(): flags other than XATTR_CREATE/REPLACE -EINVAL, a size
 * over XATTR_SIZE_MAX -E2BIG, an unreadable value -EFAULT), and for the
 * path ops the path (getname(): as OPENAT's). The get ops' value buffer
 * is written at issue by the system call, which answers -EFAULT for it.
 * All four run in a worker (REQ_F_FORCE_ASYNC). The fd ops take a
 * registered file; the path ops answer IOSQE_FIXED_FILE with -EBADF at
 * prep (measured on 6.18). Their errors do not fail a link
 * (io_xattr_finish() sets no failure).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include "lib/uaccess.h"
#include "user/ops/fs.h"
#include "user/ops/xattr.h"
#include "user/types.h"

#define AR_XATTR_NAME_MAX	255		/* XATTR_NAME_MAX */
#define AR_XATTR_SIZE_MAX	65536		/* XATTR_SIZE_MAX */

struct ar_xattr {
	char *name;		/* malloc'd: the name, then a set op's value */
	void *value;		/* set: the copy (in name's block); get: the app's */
	const char *path;	/* path ops: on req->alloc (ar_fs_getnames) */
	__u32 size;
	int flags;
	bool set;
};

/* import_xattr_name() into a new block with room for extra bytes after it */
static int ar_xattr_name(struct ar_xattr *x, __u64 uname, size_t extra)
{
	long len;

	x->name = malloc(AR_XATTR_NAME_MAX + 1 + extra);
	if (!x->name)
		return -ENOMEM;
	len = ar_strncpy_from_user(x->name, (const char *)(uintptr_t)uname,
				   AR_XATTR_NAME_MAX + 1);
	if (len < 0)
		return (int)len;
	if (!len || len == AR_XATTR_NAME_MAX + 1)
		return -ERANGE;
	return 0;
}

/* __io_getxattr_prep */
static int ar_getxattr_common(struct ar_ureq *req,
			      const struct io_uring_sqe *sqe)
{
	struct ar_xattr *x = ar_req_data(req, struct ar_xattr);

	x->value = (void *)(uintptr_t)sqe->addr2;
	x->size = sqe->len;
	x->flags = (int)sqe->xattr_flags;
	if (x->flags)
		return -EINVAL;
	return ar_xattr_name(x, sqe->addr, 0);
}

/* __io_setxattr_prep: setxattr_copy() */
static int ar_setxattr_common(struct ar_ureq *req,
			      const struct io_uring_sqe *sqe)
{
	struct ar_xattr *x = ar_req_data(req, struct ar_xattr);
	int ret;

	x->set = true;
	x->size = sqe->len;
	x->flags = (int)sqe->xattr_flags;
	if (x->flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	ret = ar_xattr_name(x, sqe->addr,
			    x->size <= AR_XATTR_SIZE_MAX ? x->size : 0);
	if (ret || !x->size)
		return ret;
	if (x->size > AR_XATTR_SIZE_MAX)
		return -E2BIG;
	x->value = x->name + AR_XATTR_NAME_MAX + 1;
	return ar_copy_from_user(x->value, (const void *)(uintptr_t)sqe->addr2,
				 x->size);
}

/* the path ops: getname_flags(addr3, LOOKUP_FOLLOW) after the rest */
static int ar_xattr_path(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_xattr *x = ar_req_data(req, struct ar_xattr);
	struct ar_fs_name name = { .addr = sqe->addr3 };
	int ret = ar_fs_getnames(req, &name, 1);

	if (ret)
		return ret;
	x->path = name.path;
	return 0;
}

int ar_fgetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_getxattr_common(req, sqe);
}

int ar_getxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	int ret;

	if (ar_fs_fixed(sqe))
		return -EBADF;
	ret = ar_getxattr_common(req, sqe);

	return ret ? ret : ar_xattr_path(req, sqe);
}

int ar_fsetxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	return ar_setxattr_common(req, sqe);
}

int ar_setxattr_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	int ret;

	if (ar_fs_fixed(sqe))
		return -EBADF;
	ret = ar_setxattr_common(req, sqe);

	return ret ? ret : ar_xattr_path(req, sqe);
}

void ar_xattr_cleanup(struct ar_ureq *req)
{
	struct ar_xattr *x = ar_req_data(req, struct ar_xattr);

	free(x->name);
	x->name = NULL;
}

static int ar_xattr_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/*
 * The system calls do what the kernel's do_getxattr()/do_setxattr() do
 * with the copied name (a get's size above XATTR_SIZE_MAX is clamped by
 * both); the value the get writes goes to the app's buffer.
 */
int ar_xattr_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_xattr *x = ar_req_data(req, struct ar_xattr);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;		/* REQ_F_FORCE_ASYNC */
	if (x->set && x->path)
		return ar_xattr_ret(setxattr(x->path, x->name, x->value,
					     x->size, x->flags));
	if (x->set)
		return ar_xattr_ret(fsetxattr(req->fd, x->name, x->value,
					      x->size, x->flags));
	if (x->path)
		return ar_xattr_ret(getxattr(x->path, x->name, x->value,
					     x->size));
	return ar_xattr_ret(fgetxattr(req->fd, x->name, x->value, x->size));
}
