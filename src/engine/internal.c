/* SPDX-License-Identifier: MIT */
/*
 * internal.c - the library's own fds, marked in the seam's table of fds
 * (engine.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "engine/engine.h"

/*
 * The library's own fds (eventfds, dups of registered files, simdev's)
 * are claimed with this marker: they are not the application's, so
 * io_uring calls on them fail -EBADF, CLOSE refuses them and they cannot
 * be registered.
 */
static int ar_internal_enter(void *obj, unsigned fd, unsigned to_submit,
			     unsigned min_complete, unsigned flags,
			     const void *arg, size_t argsz)
{
	(void)obj; (void)fd; (void)to_submit; (void)min_complete; (void)flags;
	(void)arg; (void)argsz;
	return -EBADF;
}

static int ar_internal_reg(void *obj, unsigned fd, unsigned opcode,
			   const void *arg, unsigned nr_args)
{
	(void)obj; (void)fd; (void)opcode; (void)arg; (void)nr_args;
	return -EBADF;
}

static int ar_internal_mmap(void *obj, int fd, struct io_uring_params *p,
			    struct io_uring *ring)
{
	(void)obj; (void)fd; (void)p; (void)ring;
	return -EBADF;
}

static void ar_internal_unmap(struct io_uring *ring)
{
	(void)ring;
}

static int ar_internal_setup(unsigned entries, struct io_uring_params *p)
{
	(void)entries; (void)p;
	return -EINVAL;
}

static int ar_internal_close_op(void *obj, int fd)
{
	(void)obj; (void)fd;
	return -EBADF;
}

static const struct ar_engine ar_internal_fd = {
	.internal = true,
	.name	= "internal",
	.setup	= ar_internal_setup,
	.mmap	= ar_internal_mmap,
	.unmap	= ar_internal_unmap,
	.enter	= ar_internal_enter,
	.reg	= ar_internal_reg,
	.close	= ar_internal_close_op,
};

/*
 * A long-lived fd of the library's own moves up, out of the numbers the
 * program would get on the kernel, where a ring costs it one fd: to the
 * first free number at or above ar_fd_floor(), half the soft
 * RLIMIT_NOFILE when first asked (512 under Debian's 1024; 2^19 at
 * most: the engine's table ends at 2^20). Where there is no room there,
 * it stays.
 */
int ar_fd_floor(void)
{
	static int floor;	/* 0: not read yet; racing readers agree */
	struct rlimit rl;
	int f = __atomic_load_n(&floor, __ATOMIC_RELAXED), e = errno;

	if (f)
		return f;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		f = 1024;
	else
		f = rl.rlim_cur / 2 > (1U << 19) ? 1 << 19 : (int)(rl.rlim_cur / 2);
	if (f < 1)
		f = 1;
	errno = e;
	__atomic_store_n(&floor, f, __ATOMIC_RELAXED);
	return f;
}

int ar_fd_high(int fd)
{
	int high, floor, e = errno;

	if (fd < 0)
		return fd;
	floor = ar_fd_floor();
	if (fd >= floor)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	if (high < 0) {
		errno = e;
		return fd;
	}
	close(fd);
	return high;
}

/*
 * A dup of fd for the library to hold (a registered file, eventfd): at
 * or above ar_fd_floor() where there is room, else the lowest number.
 */
int ar_fd_dup_high(int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, ar_fd_floor());

	if (d < 0 && (errno == EMFILE || errno == EINVAL))
		d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return d;
}

/*
 * /proc/self/maps, for the library's looks at the process's mappings: one
 * fd per process, kept at a high number and read with pread() (procfs
 * starts the file over at offset 0). A look taken from the library's own
 * threads (the release thread's, every 100 ms) then never takes the
 * lowest free number just as the program opens a file. The fd is checked
 * at each use: a forked child, or a program that closed it, gets a new one.
 */
static struct {
	pthread_mutex_t lock;
	int fd;
	pid_t pid;
	dev_t dev;
	ino_t ino;
} ar_maps = { PTHREAD_MUTEX_INITIALIZER, -1, 0, 0, 0 };
static pthread_once_t ar_maps_once = PTHREAD_ONCE_INIT;

/* a fork waits for a look at the fd to end: the child's copy of the lock is free */
static void ar_maps_prefork(void) { pthread_mutex_lock(&ar_maps.lock); }
static void ar_maps_postfork(void) { pthread_mutex_unlock(&ar_maps.lock); }
static void ar_maps_atfork(void)
{
	pthread_atfork(ar_maps_prefork, ar_maps_postfork, ar_maps_postfork);
}

/* is the cached fd still this process's maps? (lock held) */
static bool ar_maps_valid(pid_t pid, struct stat *st)
{
	return ar_maps.fd >= 0 && !fstat(ar_maps.fd, st) &&
	       st->st_dev == ar_maps.dev && st->st_ino == ar_maps.ino &&
	       ar_maps.pid == pid;
}

int ar_proc_maps_fd(void)
{
	pid_t pid = getpid();
	struct stat st;
	int fd, e = errno;

	pthread_once(&ar_maps_once, ar_maps_atfork);
	pthread_mutex_lock(&ar_maps.lock);
	if (!ar_maps_valid(pid, &st)) {
		/* the inherited copy of a parent's is the child's to close */
		if (ar_maps.fd >= 0 && ar_maps.pid != pid && !fstat(ar_maps.fd, &st) &&
		    st.st_dev == ar_maps.dev && st.st_ino == ar_maps.ino)
			close(ar_maps.fd);
		ar_maps.fd = -1;
		fd = ar_fd_high(open("/proc/self/maps", O_RDONLY | O_CLOEXEC));
		if (fd >= 0 && !fstat(fd, &st)) {
			ar_maps.fd = fd;
			ar_maps.pid = pid;
			ar_maps.dev = st.st_dev;
			ar_maps.ino = st.st_ino;
		} else if (fd >= 0) {
			close(fd);
		}
	}
	fd = ar_maps.fd;
	pthread_mutex_unlock(&ar_maps.lock);
	errno = e;
	return fd;
}

/* an fd of the library's own, marked as such */
int ar_internal_claim(int fd)
{
	if (fd >= 0)
		ar_engine_claim_fd(fd, &ar_internal_fd, NULL);
	return fd;
}

void ar_internal_close(int fd)
{
	if (fd < 0)
		return;
	ar_engine_release_fd(fd);
	close(fd);
}

bool ar_fd_internal(int fd)
{
	return ar_engine_of_fd(fd)->internal;
}
