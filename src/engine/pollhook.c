/* SPDX-License-Identifier: MIT */
/*
 * pollhook.c - the program is about to sleep on fds, or to read one.
 *
 * The kernel works out a ring fd's readiness when the fd is polled. A
 * user ring's fd is an eventfd, which cannot look at the CQ by itself,
 * so the engine is told when the program polls: libanyring defines
 * libc's poll, select and epoll_wait families (unversioned, so they bind
 * the program's versioned references to libc's, from a preload, the
 * drop-in or -lanyring alike), lets each engine bring its ring fds up
 * to date (struct ar_engine's prepoll), then calls libc's function.
 * epoll_ctl() is seen too: an engine learns that a ring fd went into an
 * epoll set, and how (fd_polled).
 *
 * Left to libc untouched: every argument, errno, cancellation (libc's
 * function is the one that runs). The engine's own calls of these
 * functions (its threads', and a program thread's inside the engine)
 * skip the look: ar_hook_off counts them.
 *
 * Not seen: polls made with raw system calls (the Go runtime's); for
 * those the user engine keeps a slower look of its own (svc.c).
 *
 * libc's read and receive families are defined the same way: the
 * program is about to read an fd, which may take the readiness a ring's
 * poll waits for before the engine has looked at it (struct ar_engine's
 * preread). Their libc functions are looked up at load only: a read
 * made before that (another library's constructor) is the system call
 * itself, as a lookup there could reenter an allocator that reads.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include "engine/engine.h"
#include "lib/sysraw.h"
#include "lib/thread.h"
#include "lib/uaccess.h"


enum {
	AR_POLL, AR_PPOLL, AR_POLL_CHK, AR_PPOLL_CHK, AR_SELECT, AR_PSELECT,
	AR_EPOLL_WAIT, AR_EPOLL_PWAIT, AR_EPOLL_PWAIT2, AR_EPOLL_CTL,
	/* from here on, looked up at load only (ar_read_fn()) */
	AR_READ, AR_READ_CHK, AR_READV, AR_RECV, AR_RECV_CHK, AR_RECVFROM,
	AR_RECVFROM_CHK, AR_RECVMSG, AR_RECVMMSG, AR_EVENTFD_READ, AR_NR_HOOKS
};

static const char *const ar_hook_names[AR_NR_HOOKS] = {
	[AR_POLL]		= "poll",
	[AR_PPOLL]		= "ppoll",
	[AR_POLL_CHK]		= "__poll_chk",
	[AR_PPOLL_CHK]		= "__ppoll_chk",
	[AR_SELECT]		= "select",
	[AR_PSELECT]		= "pselect",
	[AR_EPOLL_WAIT]		= "epoll_wait",
	[AR_EPOLL_PWAIT]	= "epoll_pwait",
	[AR_EPOLL_PWAIT2]	= "epoll_pwait2",
	[AR_EPOLL_CTL]		= "epoll_ctl",
	[AR_READ]		= "read",
	[AR_READ_CHK]		= "__read_chk",
	[AR_READV]		= "readv",
	[AR_RECV]		= "recv",
	[AR_RECV_CHK]		= "__recv_chk",
	[AR_RECVFROM]		= "recvfrom",
	[AR_RECVFROM_CHK]	= "__recvfrom_chk",
	[AR_RECVMSG]		= "recvmsg",
	[AR_RECVMMSG]		= "recvmmsg",
	[AR_EVENTFD_READ]	= "eventfd_read",
};

/* libc's functions; relaxed: every thread that looks them up stores the same */
static _Atomic(void *) ar_real[AR_NR_HOOKS];

/*
 * The next definition after libanyring's, which is libc's (or a
 * sanitizer's that then calls libc). A drop-in liburing that the
 * program loads after libc has no "next" libc: libc's own then.
 */
static void *ar_real_lookup(int i)
{
	void *p = dlsym(RTLD_NEXT, ar_hook_names[i]), *h;

	if (!p) {
		h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			p = dlsym(h, ar_hook_names[i]);
			dlclose(h);
		}
	}
	atomic_store_explicit(&ar_real[i], p, memory_order_relaxed);
	return p;
}

static inline void *ar_real_fn(int i)
{
	void *p = atomic_load_explicit(&ar_real[i], memory_order_relaxed);

	return p ? p : ar_real_lookup(i);
}

__attribute__((constructor))
static void ar_pollhook_init(void)
{
	for (int i = 0; i < AR_NR_HOOKS; i++)
		ar_real_lookup(i);
}

/* ring fds first, as the kernel's poll would see them now */
static inline void ar_prepoll(void)
{
	if (!ar_hook_off && ar_user_engine.prepoll)
		ar_user_engine.prepoll();
}

/* libc's function was not found (no libc.so.6 in the process) */
static long ar_nosys(void)
{
	errno = ENOSYS;
	return -1;
}

typedef int poll_fn(struct pollfd *, nfds_t, int);
typedef int ppoll_fn(struct pollfd *, nfds_t, const struct timespec *,
		     const sigset_t *);
typedef int poll_chk_fn(struct pollfd *, nfds_t, int, size_t);
typedef int ppoll_chk_fn(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *, size_t);
typedef int select_fn(int, fd_set *, fd_set *, fd_set *, struct timeval *);
typedef int pselect_fn(int, fd_set *, fd_set *, fd_set *,
		       const struct timespec *, const sigset_t *);
typedef int epoll_wait_fn(int, struct epoll_event *, int, int);
typedef int epoll_pwait_fn(int, struct epoll_event *, int, int,
			   const sigset_t *);
typedef int epoll_pwait2_fn(int, struct epoll_event *, int,
			    const struct timespec *, const sigset_t *);
typedef int epoll_ctl_fn(int, int, int, struct epoll_event *);

AR_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	poll_fn *fn = (poll_fn *)ar_real_fn(AR_POLL);

	ar_prepoll();
	return fn ? fn(fds, nfds, timeout) : (int)ar_nosys();
}

AR_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *ts,
		    const sigset_t *mask)
{
	ppoll_fn *fn = (ppoll_fn *)ar_real_fn(AR_PPOLL);

	ar_prepoll();
	return fn ? fn(fds, nfds, ts, mask) : (int)ar_nosys();
}

/* _FORTIFY_SOURCE's poll and ppoll (Debian builds with it) */
AR_EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout,
			 size_t fdslen)
{
	poll_chk_fn *fn = (poll_chk_fn *)ar_real_fn(AR_POLL_CHK);

	ar_prepoll();
	return fn ? fn(fds, nfds, timeout, fdslen) : (int)ar_nosys();
}

AR_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds,
			  const struct timespec *ts, const sigset_t *mask,
			  size_t fdslen)
{
	ppoll_chk_fn *fn = (ppoll_chk_fn *)ar_real_fn(AR_PPOLL_CHK);

	ar_prepoll();
	return fn ? fn(fds, nfds, ts, mask, fdslen) : (int)ar_nosys();
}

AR_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *x,
		     struct timeval *tv)
{
	select_fn *fn = (select_fn *)ar_real_fn(AR_SELECT);

	ar_prepoll();
	return fn ? fn(nfds, r, w, x, tv) : (int)ar_nosys();
}

AR_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *x,
		      const struct timespec *ts, const sigset_t *mask)
{
	pselect_fn *fn = (pselect_fn *)ar_real_fn(AR_PSELECT);

	ar_prepoll();
	return fn ? fn(nfds, r, w, x, ts, mask) : (int)ar_nosys();
}

AR_EXPORT int epoll_wait(int epfd, struct epoll_event *evs, int max, int timeout)
{
	epoll_wait_fn *fn = (epoll_wait_fn *)ar_real_fn(AR_EPOLL_WAIT);

	ar_prepoll();
	return fn ? fn(epfd, evs, max, timeout) : (int)ar_nosys();
}

AR_EXPORT int epoll_pwait(int epfd, struct epoll_event *evs, int max,
			  int timeout, const sigset_t *mask)
{
	epoll_pwait_fn *fn = (epoll_pwait_fn *)ar_real_fn(AR_EPOLL_PWAIT);

	ar_prepoll();
	return fn ? fn(epfd, evs, max, timeout, mask) : (int)ar_nosys();
}

AR_EXPORT int epoll_pwait2(int epfd, struct epoll_event *evs, int max,
			   const struct timespec *ts, const sigset_t *mask)
{
	epoll_pwait2_fn *fn = (epoll_pwait2_fn *)ar_real_fn(AR_EPOLL_PWAIT2);

	ar_prepoll();
	/* a libc older than 2.35 has none: the system call */
	if (!fn)
		return (int)syscall(SYS_epoll_pwait2, epfd, evs, max, ts, mask,
				    _NSIG / 8);
	return fn(epfd, evs, max, ts, mask);
}

/* a ring fd went into an epoll set: its engine hears of it, and how */
static void ar_epoll_ctl_seen(int op, int fd, const struct epoll_event *ev)
{
	struct epoll_event k;
	const struct ar_engine *e;
	void *obj;

	if (op != EPOLL_CTL_ADD && op != EPOLL_CTL_MOD)
		return;
	e = ar_engine_lookup(fd, &obj);
	/* the event was read by the kernel, but may be gone: fault-safe */
	if (obj && e->fd_polled && !ar_copy_from_user(&k, ev, sizeof(k)))
		e->fd_polled(obj, k.events);
}

AR_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	epoll_ctl_fn *fn = (epoll_ctl_fn *)ar_real_fn(AR_EPOLL_CTL);
	int ret;

	if (!fn)
		return (int)ar_nosys();
	ret = fn(epfd, op, fd, ev);
	if (!ret)
		ar_epoll_ctl_seen(op, fd, ev);
	return ret;
}

/* ---- the read and receive families ---- */

/* libc's, or NULL before the load's lookup (ar_pollhook_init()) */
static inline void *ar_read_fn(int i)
{
	return atomic_load_explicit(&ar_real[i], memory_order_relaxed);
}

atomic_uint ar_preread_armed;

/* the program is about to read fd: the engine takes readiness first */
static inline void ar_preread(int fd)
{
	/* relaxed: a hint, see ar_preread_armed */
	if (__builtin_expect(atomic_load_explicit(&ar_preread_armed,
						  memory_order_relaxed), 0) &&
	    !ar_hook_off && ar_user_engine.preread)
		ar_user_engine.preread(fd);
}

/* glibc's _FORTIFY_SOURCE checks, declared only when the headers use them */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *__restrict buf, size_t n, size_t buflen,
		       int flags, __SOCKADDR_ARG addr,
		       socklen_t *__restrict addrlen);

typedef ssize_t read_fn(int, void *, size_t);
typedef ssize_t read_chk_fn(int, void *, size_t, size_t);
typedef ssize_t readv_fn(int, const struct iovec *, int);
typedef ssize_t recv_fn(int, void *, size_t, int);
typedef ssize_t recv_chk_fn(int, void *, size_t, size_t, int);
typedef ssize_t recvfrom_fn(int, void *__restrict, size_t, int,
			    __SOCKADDR_ARG, socklen_t *__restrict);
typedef ssize_t recvfrom_chk_fn(int, void *__restrict, size_t, size_t, int,
				__SOCKADDR_ARG, socklen_t *__restrict);
typedef ssize_t recvmsg_fn(int, struct msghdr *, int);
typedef int recvmmsg_fn(int, struct mmsghdr *, unsigned, int,
			struct timespec *);
typedef int eventfd_read_fn(int, eventfd_t *);

/* a _chk function's own check, before its libc function is known */
static void ar_chk(size_t n, size_t buflen)
{
	if (n > buflen)
		abort();
}

/*
 * The system call itself, before the load's lookup or without a libc
 * to find (a static program): raw, since libanyring's own syscall() is
 * the trap's. -1 and errno for an error, as libc's functions.
 */
static long ar_sys(long nr, long a1, long a2, long a3, long a4, long a5,
		   long a6)
{
	long ret = ar_raw_syscall6(nr, a1, a2, a3, a4, a5, a6);

	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

AR_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	read_fn *fn = (read_fn *)ar_read_fn(AR_READ);

	ar_preread(fd);
	return fn ? fn(fd, buf, n) :
	       ar_sys(SYS_read, fd, (long)buf, (long)n, 0, 0, 0);
}

AR_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	read_chk_fn *fn = (read_chk_fn *)ar_read_fn(AR_READ_CHK);

	ar_preread(fd);
	if (fn)
		return fn(fd, buf, n, buflen);
	ar_chk(n, buflen);
	return ar_sys(SYS_read, fd, (long)buf, (long)n, 0, 0, 0);
}

AR_EXPORT ssize_t readv(int fd, const struct iovec *iov, int nr)
{
	readv_fn *fn = (readv_fn *)ar_read_fn(AR_READV);

	ar_preread(fd);
	return fn ? fn(fd, iov, nr) :
	       ar_sys(SYS_readv, fd, (long)iov, nr, 0, 0, 0);
}

AR_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	recv_fn *fn = (recv_fn *)ar_read_fn(AR_RECV);

	ar_preread(fd);
	return fn ? fn(fd, buf, n, flags) :
	       ar_sys(SYS_recvfrom, fd, (long)buf, (long)n, flags, 0, 0);
}

AR_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen,
			     int flags)
{
	recv_chk_fn *fn = (recv_chk_fn *)ar_read_fn(AR_RECV_CHK);

	ar_preread(fd);
	if (fn)
		return fn(fd, buf, n, buflen, flags);
	ar_chk(n, buflen);
	return ar_sys(SYS_recvfrom, fd, (long)buf, (long)n, flags, 0, 0);
}

AR_EXPORT ssize_t recvfrom(int fd, void *__restrict buf, size_t n, int flags,
			   __SOCKADDR_ARG addr, socklen_t *__restrict addrlen)
{
	recvfrom_fn *fn = (recvfrom_fn *)ar_read_fn(AR_RECVFROM);

	ar_preread(fd);
	return fn ? fn(fd, buf, n, flags, addr, addrlen) :
	       ar_sys(SYS_recvfrom, fd, (long)buf, (long)n, flags,
		      (long)addr.__sockaddr__, (long)addrlen);
}

AR_EXPORT ssize_t __recvfrom_chk(int fd, void *__restrict buf, size_t n,
				 size_t buflen, int flags, __SOCKADDR_ARG addr,
				 socklen_t *__restrict addrlen)
{
	recvfrom_chk_fn *fn = (recvfrom_chk_fn *)ar_read_fn(AR_RECVFROM_CHK);

	ar_preread(fd);
	if (fn)
		return fn(fd, buf, n, buflen, flags, addr, addrlen);
	ar_chk(n, buflen);
	return ar_sys(SYS_recvfrom, fd, (long)buf, (long)n, flags,
		      (long)addr.__sockaddr__, (long)addrlen);
}

AR_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	recvmsg_fn *fn = (recvmsg_fn *)ar_read_fn(AR_RECVMSG);

	ar_preread(fd);
	return fn ? fn(fd, msg, flags) :
	       ar_sys(SYS_recvmsg, fd, (long)msg, flags, 0, 0, 0);
}

AR_EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags,
		       struct timespec *timeout)
{
	recvmmsg_fn *fn = (recvmmsg_fn *)ar_read_fn(AR_RECVMMSG);

	ar_preread(fd);
	return fn ? fn(fd, vec, vlen, flags, timeout) :
	       (int)ar_sys(SYS_recvmmsg, fd, (long)vec, vlen, flags,
			   (long)timeout, 0);
}

/* glibc's eventfd_read() calls its own read(), not the program's */
AR_EXPORT int eventfd_read(int fd, eventfd_t *value)
{
	eventfd_read_fn *fn = (eventfd_read_fn *)ar_read_fn(AR_EVENTFD_READ);

	ar_preread(fd);
	if (fn)
		return fn(fd, value);
	return ar_sys(SYS_read, fd, (long)value, sizeof(*value), 0, 0, 0) ==
	       sizeof(*value) ?
	       0 : -1;
}
