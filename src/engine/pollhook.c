/* SPDX-License-Identifier: MIT */
/*
 * pollhook.c - the program is about to sleep on fds.
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
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include "engine/engine.h"
#include "lib/thread.h"
#include "lib/uaccess.h"


enum {
	AR_POLL, AR_PPOLL, AR_POLL_CHK, AR_PPOLL_CHK, AR_SELECT, AR_PSELECT,
	AR_EPOLL_WAIT, AR_EPOLL_PWAIT, AR_EPOLL_PWAIT2, AR_EPOLL_CTL, AR_NR_HOOKS
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
