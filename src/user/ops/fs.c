/* SPDX-License-Identifier: MIT */
/*
 * fs.c - the file-system opcodes on an open file, or opening and closing
 * one: FSYNC, SYNC_FILE_RANGE, FALLOCATE, FADVISE, MADVISE, OPENAT,
 * OPENAT2, CLOSE, STATX; and the prep-time path copy that fs_names.c
 * (RENAMEAT, UNLINKAT, MKDIRAT, SYMLINKAT, LINKAT) shares.
 *
 * Each prep makes the SQE checks of Linux 6.18's io_uring/sync.c,
 * advise.c, openclose.c and statx.c, in their order, and copies what
 * issue needs: once submit returns, the app may reuse the SQE and the
 * memory it points to (paths, struct open_how). Each issue is the system
 * call the kernel's handler wraps, so its result is the syscall's.
 *
 * Punted (-EAGAIN under AR_ISSUE_NONBLOCK, then run by a worker): all but
 * CLOSE and FADVISE with POSIX_FADV_NORMAL, RANDOM or SEQUENTIAL, which
 * run inline as in the kernel. OPENAT and OPENAT2 first try inline, as the
 * kernel does: a cached lookup (RESOLVE_CACHED) with O_NONBLOCK, punted
 * when that would block.
 *
 * Paths and open_how are read with the fault-safe copies (lib/uaccess.h):
 * memory that cannot be read fails the prep with -EFAULT, as the kernel's.
 *
 * Where this differs from the kernel:
 *  - FSYNC syncs the whole file where the kernel syncs off..off+len;
 *  - a direct (fixed slot) open holds a process fd until the file table
 *    takes it, so it counts against RLIMIT_NOFILE;
 *  - CLOSE refuses (-EBADF) the fds of this engine's rings, as the kernel
 *    refuses io_uring fds, but would close a kernel ring's fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lib/uaccess.h"
#include "user/ops/fs.h"
#include "user/backend/backend.h"
#include "user/types.h"
#include "user/ctx.h"
#include "user/rsrc.h"

#define AR___O_TMPFILE		020000000	/* O_TMPFILE without O_DIRECTORY */
#ifndef RESOLVE_CACHED
#define RESOLVE_CACHED		0x20
#endif
#ifndef SYS_openat2
#define SYS_openat2		437
#endif

#define AR_OPEN_HOW_SIZE_VER0	24	/* OPEN_HOW_SIZE_VER0 */
#define AR_FS_MAX_NAMES		2

/* a libc call's -1/errno as the kernel's -errno */
static int ar_fs_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/* getname(): one path into tmp (PATH_MAX bytes): its length, or the error */
static long ar_fs_getname(const struct ar_fs_name *n, char *tmp)
{
	long len = ar_strncpy_from_user(tmp, (const char *)(uintptr_t)n->addr,
					PATH_MAX);

	if (len < 0)
		return len;
	if (len == PATH_MAX)
		return -ENAMETOOLONG;
	if (!len && !n->empty_ok)
		return -ENOENT;
	return len;
}

int ar_fs_getnames(struct ar_ureq *req, struct ar_fs_name *names,
		   unsigned nr)
{
	size_t off[AR_FS_MAX_NAMES], total = 0;
	char tmp[PATH_MAX], *buf = NULL, *grown;
	unsigned i;
	long len;

	if (nr > AR_FS_MAX_NAMES)
		return -EINVAL;
	/* each name copied once, in order: the app may be changing it */
	for (i = 0; i < nr; i++) {
		len = ar_fs_getname(&names[i], tmp);
		if (len < 0) {
			free(buf);
			return (int)len;
		}
		grown = realloc(buf, total + (size_t)len + 1);
		if (!grown) {
			free(buf);
			return -ENOMEM;
		}
		buf = grown;
		memcpy(buf + total, tmp, (size_t)len + 1);
		off[i] = total;
		total += (size_t)len + 1;
	}
	req->alloc = buf;
	for (i = 0; i < nr; i++)
		names[i].path = buf + off[i];
	return 0;
}

/* a prep failing after ar_fs_getnames() */
static int ar_fs_putnames(struct ar_ureq *req, int err)
{
	free(req->alloc);
	req->alloc = NULL;
	return err;
}

/* FSYNC, SYNC_FILE_RANGE, FALLOCATE */
struct ar_sync {
	__u64 off;
	__u64 len;
	__u32 flags;
	__u32 mode;
};

int ar_fsync_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (sqe->addr || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (sqe->fsync_flags & ~IORING_FSYNC_DATASYNC)
		return -EINVAL;
	sync->flags = sqe->fsync_flags;
	/* off and len are read but unused: the whole file is synced */
	sync->off = sqe->off;
	sync->len = sqe->len;
	return 0;
}

int ar_fsync_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);
	struct ar_sync_io s = { sync->off, sync->len, sync->flags };

	/* the backend's: fsync(2) in a worker, or a device's flush */
	return req->file.be->fsync(req, &s, issue_flags);
}

int ar_sync_file_range_prep(struct ar_ureq *req,
			    const struct io_uring_sqe *sqe)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (sqe->addr || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	sync->off = sqe->off;
	sync->len = sqe->len;
	sync->flags = sqe->sync_range_flags;
	return 0;
}

int ar_sync_file_range_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);
	struct ar_sync_io s = { sync->off, sync->len, sync->flags };

	return req->file.be->sync_range(req, &s, issue_flags);
}

/* off in sqe->off, len in sqe->addr, mode in sqe->len */
int ar_fallocate_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	sync->off = sqe->off;
	sync->len = sqe->addr;
	sync->mode = sqe->len;
	return 0;
}

int ar_fallocate_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_sync *sync = ar_req_data(req, struct ar_sync);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_fs_ret(fallocate64(req->fd, (int)sync->mode,
				     (off64_t)sync->off, (off64_t)sync->len));
}

/* FADVISE, MADVISE: a 64-bit length where the kernel takes one */
struct ar_advise {
	__u64 start;		/* file offset, or address */
	__u64 len;
	__u32 advice;
};

/* the kernel does these inline, the rest from io-wq (REQ_F_FORCE_ASYNC) */
static bool ar_fadvise_inline(__u32 advice)
{
	return advice == POSIX_FADV_NORMAL || advice == POSIX_FADV_RANDOM ||
	       advice == POSIX_FADV_SEQUENTIAL;
}

/* len in sqe->addr when non-zero, else sqe->len */
int ar_fadvise_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_advise *fa = ar_req_data(req, struct ar_advise);

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	fa->start = sqe->off;
	fa->len = sqe->addr ? sqe->addr : sqe->len;
	fa->advice = sqe->fadvise_advice;
	return 0;
}

int ar_fadvise_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_advise *fa = ar_req_data(req, struct ar_advise);

	if ((issue_flags & AR_ISSUE_NONBLOCK) && !ar_fadvise_inline(fa->advice))
		return -EAGAIN;
	/* returns the error number itself, not -1 */
	return -posix_fadvise64(req->fd, (off64_t)fa->start,
				(off64_t)fa->len, (int)fa->advice);
}

/* len in sqe->off when non-zero, else sqe->len */
int ar_madvise_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_advise *ma = ar_req_data(req, struct ar_advise);

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	ma->start = sqe->addr;
	ma->len = sqe->off ? sqe->off : sqe->len;
	ma->advice = sqe->fadvise_advice;
	return 0;
}

int ar_madvise_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_advise *ma = ar_req_data(req, struct ar_advise);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	return ar_fs_ret(madvise((void *)(uintptr_t)ma->start,
				 (size_t)ma->len, (int)ma->advice));
}

/*
 * OPENAT, OPENAT2. For OPENAT, how holds the SQE's flags and mode as
 * given: openat(2) makes of them what the kernel's build_open_how() does
 * (unknown flags dropped, O_LARGEFILE forced, mode only with O_CREAT or
 * O_TMPFILE), and openat2(2) forces O_LARGEFILE too.
 */
struct ar_open {
	struct open_how how;
	const char *path;
	int dfd;
	__u32 file_slot;	/* sqe->file_index: 0, slot + 1, or ALLOC */
	bool v2;
};

static int ar_open_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe,
			struct ar_open *open)
{
	struct ar_fs_name name = { .addr = sqe->addr };
	int ret;

	if (sqe->buf_index)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	open->dfd = sqe->fd;
	ret = ar_fs_getnames(req, &name, 1);
	if (ret)
		return ret;
	open->path = name.path;
	open->file_slot = sqe->file_index;
	/* a fixed slot has no close-on-exec to set */
	if (open->file_slot && (open->how.flags & O_CLOEXEC))
		return ar_fs_putnames(req, -EINVAL);
	return 0;
}

int ar_openat_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_open *open = ar_req_data(req, struct ar_open);

	memset(open, 0, sizeof(*open));
	open->how.flags = sqe->open_flags;
	open->how.mode = sqe->len;
	return ar_open_prep(req, sqe, open);
}

/*
 * copy_struct_from_user(): a larger struct than ours is fine if what we
 * don't know of it is zero (else -E2BIG, looked at first); a smaller one
 * is zero-extended. Unreadable memory: -EFAULT.
 */
static int ar_copy_struct(void *dst, size_t ksize, __u64 src, size_t usize)
{
	const char *p = (const char *)(uintptr_t)src;
	int ret;

	if (usize > ksize) {
		ret = ar_check_zeroed_user(p + ksize, usize - ksize);
		if (ret <= 0)
			return ret ? ret : -E2BIG;
	}
	memset(dst, 0, ksize);
	return ar_copy_from_user(dst, p, usize < ksize ? usize : ksize);
}

/* struct open_how at sqe->addr2, its size in sqe->len */
int ar_openat2_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_open *open = ar_req_data(req, struct ar_open);
	int ret;

	memset(open, 0, sizeof(*open));
	if (sqe->len < AR_OPEN_HOW_SIZE_VER0)
		return -EINVAL;
	ret = ar_copy_struct(&open->how, sizeof(open->how), sqe->addr2,
			     sqe->len);
	if (ret)
		return ret;
	open->v2 = true;
	return ar_open_prep(req, sqe, open);
}

/* the file table owns fd from here, failing or not (it closes it) */
static int ar_open_install(struct ar_ureq *req, int fd, __u32 file_slot)
{
	bool alloc = file_slot == IORING_FILE_INDEX_ALLOC;

	return ar_rsrc_install_file(req->ctx, fd, alloc ? 0 : file_slot - 1,
				    alloc);
}

static int ar_open_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_open *open = ar_req_data(req, struct ar_open);
	struct open_how how = open->how;
	bool nonblock = issue_flags & AR_ISSUE_NONBLOCK;
	long fd;

	/*
	 * The inline attempt, as the kernel's: a cached lookup
	 * (RESOLVE_CACHED, -EAGAIN if it would block) with O_NONBLOCK, so a
	 * FIFO opens (or fails -ENXIO) at once; not for O_CREAT, O_TRUNC,
	 * O_TMPFILE. The fd loses the O_NONBLOCK it was not asked for.
	 */
	if (nonblock) {
		if (how.flags & (O_CREAT | O_TRUNC | AR___O_TMPFILE))
			return -EAGAIN;
		if (!open->v2)
			how.mode = 0;	/* openat(2) ignores it without O_CREAT */
		how.flags |= O_NONBLOCK;
		how.resolve |= RESOLVE_CACHED;
	}
	/* an fd only until the file table has it: not for a child to see */
	if (open->file_slot)
		how.flags |= O_CLOEXEC;
	if (open->v2 || nonblock)
		fd = syscall(SYS_openat2, open->dfd, open->path, &how,
			     sizeof(how));
	else
		fd = syscall(SYS_openat, open->dfd, open->path,
			     (int)how.flags, (unsigned)how.mode);
	if (fd < 0) {
		/*
		 * Would block, no openat2 here (old kernel, sandbox), or flags
		 * openat(2) ignores but openat2(2) refuses: a worker does it.
		 */
		if (nonblock && (errno == EAGAIN || errno == ENOSYS ||
				 (errno == EINVAL && !open->v2)))
			return -EAGAIN;
		return -errno;
	}
	if (nonblock && !(open->how.flags & O_NONBLOCK))
		fcntl((int)fd, F_SETFL, fcntl((int)fd, F_GETFL) & ~O_NONBLOCK);
	if (!open->file_slot)
		return (int)fd;
	return ar_open_install(req, (int)fd, open->file_slot);
}

int ar_openat_issue(struct ar_ureq *req, unsigned issue_flags)
{
	return ar_open_issue(req, issue_flags);
}

int ar_openat2_issue(struct ar_ureq *req, unsigned issue_flags)
{
	return ar_open_issue(req, issue_flags);
}

/* CLOSE: an fd, or with sqe->file_index a fixed slot (and sqe->fd 0) */
struct ar_close {
	int fd;
	__u32 file_slot;
};

int ar_close_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_close *cl = ar_req_data(req, struct ar_close);

	if (sqe->off || sqe->addr || sqe->len || sqe->rw_flags ||
	    sqe->buf_index)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	cl->fd = sqe->fd;
	cl->file_slot = sqe->file_index;
	if (cl->file_slot && cl->fd)
		return -EINVAL;
	return 0;
}

/*
 * The kernel will not close an io_uring fd: here, a user engine ring's.
 * The engine's own fds (dups of registered files, its eventfds) are not
 * the application's to close: in the kernel they would not exist.
 */
static bool ar_close_refused(struct ar_ureq *req, int fd)
{
	return fd == req->ctx->ring_fd || ar_fd_claimed(fd) ||
	       ar_uctx_of_fd(fd);
}

/* inline: close(2) does not wait for the file's last reference */
int ar_close_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_close *cl = ar_req_data(req, struct ar_close);

	(void)issue_flags;
	if (cl->file_slot)
		return ar_rsrc_close_file(req->ctx, cl->file_slot - 1);
	if (ar_close_refused(req, cl->fd))
		return -EBADF;
	return ar_fs_ret(close(cl->fd));
}

/* STATX: the buffer (sqe->addr2) is written at issue, as the kernel does */
struct ar_statx {
	const char *path;
	__u64 buffer;
	int dfd;
	__u32 mask;
	__u32 flags;
};

int ar_statx_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_statx *sx = ar_req_data(req, struct ar_statx);
	struct ar_fs_name name = { .addr = sqe->addr };
	int ret;

	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (ar_fs_fixed(sqe))
		return -EBADF;
	sx->dfd = sqe->fd;
	sx->mask = sqe->len;
	sx->buffer = sqe->addr2;
	sx->flags = sqe->statx_flags;
	/* getname_uflags(): "" only with AT_EMPTY_PATH; NULL is -EFAULT */
	name.empty_ok = sx->flags & AT_EMPTY_PATH;
	ret = ar_fs_getnames(req, &name, 1);
	if (ret)
		return ret;
	sx->path = name.path;
	return 0;
}

int ar_statx_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_statx *sx = ar_req_data(req, struct ar_statx);

	if (issue_flags & AR_ISSUE_NONBLOCK)
		return -EAGAIN;
	/* raw: glibc's statx() declares the buffer nonnull, NULL is -EFAULT */
	return ar_fs_ret(syscall(SYS_statx, sx->dfd, sx->path, (int)sx->flags,
				 sx->mask, (uintptr_t)sx->buffer));
}
