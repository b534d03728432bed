/* SPDX-License-Identifier: MIT */
/*
 * sigshim.c - libanyring-sig.so, preloaded beside libanyring.so while the
 * system-call trap is wanted (anyring-run does it). The trap is SIGSYS's
 * handler, and a trap delivered while SIGSYS is blocked kills the
 * process. These wrappers of libc's functions keep both true for a
 * program that sets SIGSYS or blocks every signal: libanyring records
 * the program's SIGSYS disposition (traps that are not ours go there)
 * and takes SIGSYS out of the masks it sets, and the program reads back
 * what it set (anyring_trap_sigaction(), anyring_trap_sigmask()).
 * Without the trap every call goes to libc unchanged.
 *
 * Only calls made through libc's functions arrive here: libc's own
 * internal calls and raw system calls (the Go runtime's) do not.
 * No version script: unversioned definitions bind the program's
 * versioned references (sigaction@GLIBC_2.2.5), which is the point.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include "anyring.h"

#define SHIM	__attribute__((visibility("default")))

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef int sigmask_fn(int, const sigset_t *, sigset_t *);

static sigaction_fn *real_sigaction;
static sigmask_fn *real_sigprocmask, *real_pthread_sigmask;

/*
 * libc's, resolved before main (a constructor) and again if a call
 * comes earlier, from another library's constructor: the lookups store
 * the same values, so a race between them is harmless.
 */
__attribute__((constructor))
static void shim_init(void)
{
	real_sigaction = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
	real_sigprocmask = (sigmask_fn *)dlsym(RTLD_NEXT, "sigprocmask");
	real_pthread_sigmask = (sigmask_fn *)dlsym(RTLD_NEXT, "pthread_sigmask");
}

static int shim_ready(void)
{
	if (!real_sigaction || !real_sigprocmask || !real_pthread_sigmask)
		shim_init();
	return real_sigaction && real_sigprocmask && real_pthread_sigmask;
}

SHIM int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	int ret;

	if (!shim_ready()) {
		errno = ENOSYS;
		return -1;
	}
	ret = anyring_trap_sigaction(sig, act, oact);
	return ret == 1 ? real_sigaction(sig, act, oact) : ret;
}

/* signal(), bsd_signal() and sysv_signal() as glibc makes them */
static sighandler_t shim_signal(int sig, sighandler_t h, int flags, int self)
{
	struct sigaction sa, old;

	if (h == SIG_ERR || sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (self)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

SHIM sighandler_t signal(int sig, sighandler_t h)
{
	return shim_signal(sig, h, SA_RESTART, 1);
}

SHIM sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return shim_signal(sig, h, SA_RESTART, 1);
}

SHIM sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return shim_signal(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

/* a mask call through libc's fn: 0 or an errno value */
static int shim_mask(sigmask_fn *fn, int how, const sigset_t *set,
		     sigset_t *oset, int err_is_ret)
{
	sigset_t copy;
	int was = 0, ret;

	ret = anyring_trap_sigmask(how, set, &copy, &was);
	if (ret == 1)
		ret = fn(how, set, oset);
	else if (!ret)
		ret = fn(how, set ? &copy : NULL, oset);
	else
		return -ret;		/* -errno from the hook: positive here */
	if (ret)
		return err_is_ret ? ret : errno;
	if (oset && was)
		sigaddset(oset, SIGSYS);
	return 0;
}

SHIM int sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
	int err;

	if (!shim_ready()) {
		errno = ENOSYS;
		return -1;
	}
	err = shim_mask(real_sigprocmask, how, set, oset, 0);
	if (!err)
		return 0;
	errno = err;
	return -1;
}

SHIM int pthread_sigmask(int how, const sigset_t *set, sigset_t *oset)
{
	if (!shim_ready())
		return ENOSYS;
	return shim_mask(real_pthread_sigmask, how, set, oset, 1);
}
