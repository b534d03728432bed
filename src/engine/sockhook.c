/* SPDX-License-Identifier: MIT */
/*
 * sockhook.c - a ring's fd is not passed to another process.
 *
 * The kernel refuses to pass an io_uring fd over a socket: sendmsg(2)
 * with SCM_RIGHTS control data naming one fails with -EINVAL (net/core/
 * scm.c's scm_fp_copy(), since Linux 6.7), checking the fds in order
 * (a closed one before it is -EBADF). A user ring's fd is an eventfd,
 * which the kernel would pass: libanyring defines libc's sendmsg and
 * sendmmsg (unversioned, as the poll hooks, engine/pollhook.c) and
 * answers as the kernel does; the user engine's SENDMSG opcodes make
 * the same check (user/ops/net.c). Everything else goes to libc's
 * function untouched. The control data is the program's memory: it is
 * read with the fault-safe copy, and an unreadable one is left to the
 * system call, which answers -EFAULT.
 *
 * Not seen: sendmsg made with a raw system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "engine/engine.h"
#include "lib/uaccess.h"

/* control data read at once; more is read a header at a time */
#define AR_SCM_BUF	1024

/* fd is open (errno kept) */
static bool ar_fd_open(int fd)
{
	int saved = errno;
	bool open = fd >= 0 && fcntl(fd, F_GETFD) >= 0;

	errno = saved;
	return open;
}

/* the fds of one SCM_RIGHTS message, data bytes at p (the program's) */
static int ar_scm_fds_check(const unsigned char *p, size_t len)
{
	int fds[64];
	size_t n, i;

	while (len >= sizeof(int)) {
		n = len / sizeof(int);
		if (n > sizeof(fds) / sizeof(fds[0]))
			n = sizeof(fds) / sizeof(fds[0]);
		if (ar_copy_from_user(fds, p, n * sizeof(int)))
			return 0;
		for (i = 0; i < n; i++) {
			if (!ar_fd_open(fds[i]))
				return 0;	/* the kernel's -EBADF first */
			if (ar_engine_fd_user_ring(fds[i]))
				return -EINVAL;
		}
		p += n * sizeof(int);
		len -= n * sizeof(int);
	}
	return 0;
}

int ar_scm_rights_check(const void *control, size_t controllen)
{
	const unsigned char *p = control, *end;
	struct cmsghdr h;
	size_t step;
	int ret;

	if (!control || controllen < sizeof(h) || !ar_engine_any_user_ring())
		return 0;
	end = p + controllen;
	while ((size_t)(end - p) >= sizeof(h)) {
		if (ar_copy_from_user(&h, p, sizeof(h)))
			return 0;
		if (h.cmsg_len < sizeof(h) || h.cmsg_len > (size_t)(end - p))
			return 0;	/* the kernel's -EINVAL either way */
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
			ret = ar_scm_fds_check(p + CMSG_LEN(0),
					       h.cmsg_len - CMSG_LEN(0));
			if (ret)
				return ret;
		}
		step = CMSG_ALIGN(h.cmsg_len);
		if (step >= (size_t)(end - p))
			break;
		p += step;
	}
	return 0;
}

typedef ssize_t sendmsg_fn(int, const struct msghdr *, int);
typedef int sendmmsg_fn(int, struct mmsghdr *, unsigned, int);

enum { AR_SENDMSG, AR_SENDMMSG, AR_NR_SOCKHOOKS };
static const char *const ar_sockhook_names[AR_NR_SOCKHOOKS] = {
	[AR_SENDMSG] = "sendmsg", [AR_SENDMMSG] = "sendmmsg",
};
static _Atomic(void *) ar_sock_real[AR_NR_SOCKHOOKS];

/* libc's function i; NULL (errno ENOSYS) if there is none */
static void *ar_sock_fn(int i)
{
	/* relaxed: every thread that looks it up stores the same */
	void *p = atomic_load_explicit(&ar_sock_real[i], memory_order_relaxed);

	if (!p) {
		p = ar_libc_fn(ar_sockhook_names[i]);
		atomic_store_explicit(&ar_sock_real[i], p, memory_order_relaxed);
	}
	if (!p)
		errno = ENOSYS;
	return p;
}

/* the msghdr at m (the program's) passes a ring's fd */
static int ar_msghdr_check(const struct msghdr *m)
{
	struct msghdr h;

	if (!ar_engine_any_user_ring() || ar_copy_from_user(&h, m, sizeof(h)))
		return 0;
	return ar_scm_rights_check(h.msg_control, h.msg_controllen);
}

AR_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	sendmsg_fn *fn;
	int ret = ar_msghdr_check(msg);

	if (ret) {
		errno = -ret;
		return -1;
	}
	fn = (sendmsg_fn *)ar_sock_fn(AR_SENDMSG);
	return fn ? fn(fd, msg, flags) : -1;
}

/*
 * sendmmsg(2) sends the messages in order and stops at the first that
 * fails: the count sent if any was, else the failure. The one that
 * names a ring stops it so.
 */
AR_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags)
{
	sendmmsg_fn *fn = (sendmmsg_fn *)ar_sock_fn(AR_SENDMMSG);
	/* the kernel sends at most UIO_MAXIOV (1024) of them */
	unsigned i = 0, n = vlen < 1024 ? vlen : 1024;

	if (!fn)
		return -1;
	if (ar_engine_any_user_ring())
		while (i < n && !ar_msghdr_check(&vec[i].msg_hdr))
			i++;
	if (i == n || !ar_engine_any_user_ring())
		return fn(fd, vec, vlen, flags);
	if (!i) {
		errno = EINVAL;
		return -1;
	}
	return fn(fd, vec, i, flags);
}
