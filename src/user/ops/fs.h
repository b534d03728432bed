/* SPDX-License-Identifier: MIT */
/*
 * fs.h - the user engine's file-system opcodes on names relative to a
 * dirfd (fs.c), and the prep-time path copy (fs_names.c) they share with
 * openclose.c, statx.c and xattr.c: a prep and an issue handler per
 * opcode, for the table in opdef.c.
 *
 * The notes below hold for these and for FSYNC, SYNC_FILE_RANGE,
 * FALLOCATE (sync.h), FADVISE, MADVISE (advise.h), OPENAT, OPENAT2,
 * CLOSE (openclose.h) and STATX (statx.h).
 *
 * needs_file (req->fd resolved by the core): FSYNC, SYNC_FILE_RANGE,
 * FALLOCATE, FADVISE. The others take a raw dirfd or fd from sqe->fd and
 * must have needs_file = 0 (their prep answers IOSQE_FIXED_FILE with
 * -EBADF, as the kernel's does).
 *
 * No opcode here needs a cleanup hook: the one allocation a prep makes
 * (the path strings) hangs on req->alloc, which the core frees. A prep
 * that fails leaves req->alloc NULL.
 *
 * For the core (measured on 6.18): a negative issue result breaks an
 * IOSQE_IO_LINK chain, and is posted despite IOSQE_CQE_SKIP_SUCCESS, only
 * for FADVISE, OPENAT, OPENAT2 and CLOSE, whose kernel handlers call
 * req_set_fail(). For the others the chain goes on and, with
 * CQE_SKIP_SUCCESS, no CQE is posted. A prep error always breaks it.
 */
#ifndef ANYRING_USER_OPS_FS_H
#define ANYRING_USER_OPS_FS_H

#include "user/types.h"

int ar_renameat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_renameat_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_unlinkat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_unlinkat_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_mkdirat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_mkdirat_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_symlinkat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_symlinkat_issue(struct ar_ureq *req, unsigned issue_flags);
int ar_linkat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_linkat_issue(struct ar_ureq *req, unsigned issue_flags);

/*
 * Shared by the path opcodes (fs.c, openclose.c, statx.c, xattr.c), made
 * in fs_names.c: the kernel's getname() at prep time.
 * Each name is copied once, in order (the first error wins: -EFAULT for
 * memory that cannot be read before the NUL, -ENAMETOOLONG from PATH_MAX
 * bytes on, -ENOENT for "" unless empty_ok), into one buffer on
 * req->alloc.
 */
struct ar_fs_name {
	__u64 addr;		/* in: the user pointer */
	bool empty_ok;		/* in: LOOKUP_EMPTY (AT_EMPTY_PATH) */
	const char *path;	/* out: the copy, NUL terminated */
};

int ar_fs_getnames(struct ar_ureq *req, struct ar_fs_name *names,
		   unsigned nr);

/* the kernel's REQ_F_FIXED_FILE test of a prep for an op without a file */
static inline bool ar_fs_fixed(const struct io_uring_sqe *sqe)
{
	return sqe->flags & IOSQE_FIXED_FILE;
}

#endif
