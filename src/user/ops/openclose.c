/* SPDX-License-Identifier: MIT */
/*
 * openclose.c - OPENAT, OPENAT2, CLOSE, FIXED_FD_INSTALL and PIPE, as the
 * kernel's io_uring/openclose.c.
 *
 * Each prep makes the SQE checks of Linux 6.18's io_uring/openclose.c, in
 * their order, and copies what issue needs: once submit returns, the app
 * may reuse the SQE and the memory it points to (paths, struct open_how).
 * Each issue is the system call the kernel's handler wraps, so its result
 * is the syscall's.
 *
 * CLOSE runs inline, as in the kernel. OPENAT and OPENAT2 first try
 * inline, as the kernel does: a cached lookup (RESOLVE_CACHED) with
 * O_NONBLOCK, punted (-EAGAIN under AR_ISSUE_NONBLOCK, then run by a
 * worker) when that would block.
 *
 * Paths and open_how are read with the fault-safe copies (lib/uaccess.h):
 * memory that cannot be read fails the prep with -EFAULT, as the kernel's.
 *
 * The two that make fds without a path:
 *  - FIXED_FD_INSTALL: a new fd for a fixed file, O_CLOEXEC unless
 *    IORING_FIXED_FD_NO_CLOEXEC (receive_fd()); only with IOSQE_FIXED_FILE.
 *  - PIPE: pipe2(2), the two fds written to the app's int[2] with the
 *    fault-safe copy (a fault closes them: -EFAULT); with file_index, into
 *    the fixed table (a slot and the next, or two allocated) and the two
 *    slots written, O_CLOEXEC refused.
 *
 * Where this differs from the kernel:
 *  - a direct (fixed slot) open holds a process fd until the file table
 *    takes it, so it counts against RLIMIT_NOFILE;
 *  - CLOSE refuses (-EBADF) the fds of this engine's rings, as the kernel
 *    refuses io_uring fds, but would close a kernel ring's fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lib/uaccess.h"
#include "user/ops/fs.h"
#include "user/ops/openclose.h"
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
#define AR_FIXED_FD_NO_CLOEXEC		(1U << 0)
#define AR_O_NOTIFICATION_PIPE		O_EXCL

/* a libc call's -1/errno as the kernel's -errno */
static int ar_fs_ret(long ret)
{
	return ret < 0 ? -errno : (int)ret;
}

/* a prep failing after ar_fs_getnames() */
static int ar_fs_putnames(struct ar_ureq *req, int err)
{
	free(req->alloc);
	req->alloc = NULL;
	return err;
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
	return fd == req->ctx->ring_fd || ar_fd_engines(fd);
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

/* FIXED_FD_INSTALL */
struct ar_fixed_install {
	bool cloexec;
};

int ar_fixed_fd_install_prep(struct ar_ureq *req,
			     const struct io_uring_sqe *sqe)
{
	struct ar_fixed_install *fi = ar_req_data(req, struct ar_fixed_install);
	__u32 flags;

	if (sqe->off || sqe->addr || sqe->len || sqe->buf_index ||
	    sqe->splice_fd_in || sqe->addr3)
		return -EINVAL;
	if (!(req->flags & AR_REQ_F_FIXED_FILE))
		return -EBADF;
	/* an fd is installed with the task's own credentials, never another's */
	if (req->personality)
		return -EPERM;
	flags = sqe->rw_flags;		/* install_fd_flags */
	if (flags & ~AR_FIXED_FD_NO_CLOEXEC)
		return -EINVAL;
	fi->cloexec = !(flags & AR_FIXED_FD_NO_CLOEXEC);
	return 0;
}

/* receive_fd(): the lowest free fd, for the file the slot holds */
int ar_fixed_fd_install_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_fixed_install *fi = ar_req_data(req, struct ar_fixed_install);

	(void)issue_flags;
	return ar_fs_ret(fcntl(req->fd, fi->cloexec ? F_DUPFD_CLOEXEC :
			       F_DUPFD, 0));
}

/* PIPE: the int[2] at addr, flags in pipe_flags, file_index for direct */
struct ar_pipe {
	__u64 fds;
	int flags;
	__u32 file_slot;
};

int ar_pipe_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_pipe *p = ar_req_data(req, struct ar_pipe);

	if (sqe->fd || sqe->off || sqe->addr3)
		return -EINVAL;
	p->fds = sqe->addr;
	p->flags = (int)sqe->rw_flags;	/* pipe_flags */
	if (p->flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT |
			 AR_O_NOTIFICATION_PIPE))
		return -EINVAL;
	p->file_slot = sqe->file_index;
	return 0;
}

/* io_pipe_fd(): the fds exist for the app only once they are written */
static int ar_pipe_fd(struct ar_pipe *p)
{
	int fds[2];

	if (pipe2(fds, p->flags))
		return -errno;
	if (!ar_copy_to_user((void *)(uintptr_t)p->fds, fds, sizeof(fds)))
		return 0;
	close(fds[0]);
	close(fds[1]);
	return -EFAULT;
}

/* one end into the table: its slot, or an error (the table closed fd) */
static int ar_pipe_install(struct ar_uctx *ctx, int fd, __u32 file_slot,
			   unsigned slot)
{
	int ret;

	if (file_slot == IORING_FILE_INDEX_ALLOC)
		return ar_rsrc_install_file(ctx, fd, 0, true);
	ret = ar_rsrc_install_file(ctx, fd, slot, false);
	return ret ? ret : (int)slot;
}

/*
 * io_pipe_fixed(): the read end at the slot asked (or an allocated one),
 * the write end at the next (or another allocated one); the slots are
 * written to the app's int[2]; on any failure the slots taken are
 * emptied again.
 */
static int ar_pipe_fixed(struct ar_ureq *req, struct ar_pipe *p)
{
	struct ar_uctx *ctx = req->ctx;
	int pfd[2], slots[2] = { -1, -1 }, ret;

	/* an fd only until the table has it: not for a child to see */
	if (pipe2(pfd, p->flags | O_CLOEXEC))
		return -errno;
	if (p->flags & O_CLOEXEC) {
		close(pfd[0]);
		close(pfd[1]);
		return -EINVAL;
	}
	ret = ar_pipe_install(ctx, pfd[0], p->file_slot, p->file_slot - 1);
	if (ret < 0) {
		close(pfd[1]);
		return ret;
	}
	slots[0] = ret;
	ret = ar_pipe_install(ctx, pfd[1], p->file_slot, p->file_slot);
	if (ret < 0)
		goto err;
	slots[1] = ret;
	if (!ar_copy_to_user((void *)(uintptr_t)p->fds, slots, sizeof(slots)))
		return 0;
	ret = -EFAULT;
err:
	for (unsigned i = 0; i < 2; i++)
		if (slots[i] >= 0)
			ar_rsrc_close_file(ctx, (unsigned)slots[i]);
	return ret;
}

int ar_pipe_issue(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_pipe *p = ar_req_data(req, struct ar_pipe);

	(void)issue_flags;
	return p->file_slot ? ar_pipe_fixed(req, p) : ar_pipe_fd(p);
}
