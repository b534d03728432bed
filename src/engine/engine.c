/* SPDX-License-Identifier: MIT */
/*
 * engine.c - the seam: which engine serves a ring, and which engine a new
 * ring gets.
 *
 * Rings are known by their fd. An engine other than the kernel claims the
 * fds of its rings in a table; any fd not claimed is the kernel's. The
 * table is two-level (chunks of fds allocated on first claim, never freed)
 * so a lookup is two loads and takes no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "engine/engine.h"
#include "lib/thread.h"
#include "lib/uaccess.h"

/* the table (engine.h): chunks of fds, allocated on first claim */
_Atomic(struct ar_fd_chunk *) ar_fd_table[AR_FD_CHUNKS];

static const struct ar_engine ar_forked_engine;

/*
 * Claims held by rings that live in this process (and by their forked
 * copies): only their fds can have dups the kernel does not know as
 * rings. While it is 0, no lookup ever looks for a dup.
 */
static atomic_uint ar_ring_claims;

static bool ar_claim_is_ring(const struct ar_engine *e)
{
	return e && (e->in_process || e == &ar_forked_engine);
}

static struct ar_fd_chunk *ar_fd_chunk(int fd, int create)
{
	unsigned i = (unsigned)fd >> AR_FD_CHUNK_SHIFT;
	struct ar_fd_chunk *c = ar_fd_chunk_find(fd), *expect = NULL;

	if (c || !create || fd < 0 || i >= AR_FD_CHUNKS)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (!atomic_compare_exchange_strong_explicit(&ar_fd_table[i], &expect,
						     c, memory_order_acq_rel,
						     memory_order_acquire)) {
		free(c);	/* another thread installed one first */
		c = expect;
	}
	return c;
}

const struct ar_engine *ar_engine_of_fd(int fd)
{
	struct ar_fd_chunk *c = ar_fd_chunk_find(fd);
	const struct ar_engine *e;

	if (!c)
		return &ar_kernel_engine;
	/* acquire pairs with the release in ar_engine_claim_fd() */
	e = atomic_load_explicit(&c->engine[fd & (AR_FD_CHUNK - 1)],
				 memory_order_acquire);
	return e ? e : &ar_kernel_engine;
}

/*
 * fd's identity when it is a socket (an in-process ring's fd is one end
 * of a socket pair: user/release.c), or -1: the socket's inode number,
 * which no other open socket shares. How two fds are known to be one
 * ring's (dups of each other), with one fstat.
 */
static long ar_fd_ident(int fd)
{
	struct stat st;
	int saved = errno;

	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode)) {
		errno = saved;
		return -1;
	}
	return (long)st.st_ino;
}

/*
 * Claims against ar_engine_release_obj(): a ring's claim is dropped by
 * the thread that found its fd closed only while it is still that
 * ring's, not once a new ring has claimed the number.
 */
static pthread_mutex_t ar_claim_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t ar_claim_once = PTHREAD_ONCE_INIT;

static void ar_claim_lock_take(void)
{
	pthread_mutex_lock(&ar_claim_lock);
}

static void ar_claim_lock_drop(void)
{
	pthread_mutex_unlock(&ar_claim_lock);
}

/*
 * Before a fork: each ring of an in_process engine gets ready to be used
 * by the child too (user/fork.c), then the claims stand still. It may
 * claim fds itself, so it runs before the lock is taken.
 */
static void ar_prefork_one(const struct ar_engine *e, void *obj, int fd)
{
	(void)fd;
	if (e->prefork)
		e->prefork(obj);
}

/*
 * The engines' locks are taken inside: a signal handler's read or poll
 * meanwhile skips their looks (pollhook.c)
 */
static void ar_claim_prefork(void)
{
	ar_hook_off_enter();
	ar_engine_each_ring(NULL, ar_prefork_one);
	ar_hook_off_leave();
	ar_claim_lock_take();
}

static void ar_claim_init(void)
{
	pthread_atfork(ar_claim_prefork, ar_claim_lock_drop,
		       ar_claim_lock_drop);
}

/*
 * An in-process ring's fd is read for its identity once, here: a dup of
 * it can then be recognised by reading only the dup's. Kernel rings and
 * internal fds skip it.
 */
int ar_engine_claim_fd(int fd, const struct ar_engine *e, void *obj)
{
	struct ar_fd_chunk *c = ar_fd_chunk(fd, 1);
	unsigned i = fd & (AR_FD_CHUNK - 1);
	const struct ar_engine *old;

	if (!c)
		return fd < 0 ? -EBADF : -ENOMEM;
	pthread_once(&ar_claim_once, ar_claim_init);
	ar_claim_lock_take();
	atomic_store_explicit(&c->ident[i], e && e->in_process ?
			      ar_fd_ident(fd) : -1, memory_order_relaxed);
	atomic_store_explicit(&c->priv[i], obj, memory_order_relaxed);
	/* release: the ring object (and priv, ident above) are visible before the claim */
	old = atomic_exchange_explicit(&c->engine[i], e, memory_order_release);
	/* the count only gates the dup search: relaxed, as its readers */
	if (ar_claim_is_ring(e))
		atomic_fetch_add_explicit(&ar_ring_claims, 1, memory_order_relaxed);
	if (ar_claim_is_ring(old))
		atomic_fetch_sub_explicit(&ar_ring_claims, 1, memory_order_relaxed);
	ar_claim_lock_drop();
	return 0;
}

bool ar_engine_fd_user_ring(int fd)
{
	void *obj;

	/* relaxed, as the claims that count: no ring, no lookup */
	return atomic_load_explicit(&ar_ring_claims, memory_order_relaxed) &&
	       ar_claim_is_ring(ar_engine_lookup_file(fd, &obj));
}

bool ar_engine_release_fd(int fd)
{
	struct ar_fd_chunk *c = ar_fd_chunk(fd, 0);
	unsigned i = fd & (AR_FD_CHUNK - 1);
	const struct ar_engine *old;

	if (!c)
		return false;
	/*
	 * Nothing is published by the release: relaxed. A lookup racing it
	 * may still see the engine and then a NULL priv, which it treats as
	 * unclaimed (ar_engine_lookup()).
	 */
	old = atomic_exchange_explicit(&c->engine[i], NULL, memory_order_relaxed);
	atomic_store_explicit(&c->priv[i], NULL, memory_order_relaxed);
	if (ar_claim_is_ring(old))
		atomic_fetch_sub_explicit(&ar_ring_claims, 1, memory_order_relaxed);
	return old != NULL;
}

bool ar_engine_release_obj(int fd, void *obj)
{
	struct ar_fd_chunk *c = ar_fd_chunk(fd, 0);
	bool ours;

	if (!c)
		return false;
	pthread_once(&ar_claim_once, ar_claim_init);
	ar_claim_lock_take();
	/* under the lock: no claim changes priv meanwhile */
	ours = atomic_load_explicit(&c->priv[fd & (AR_FD_CHUNK - 1)],
				    memory_order_relaxed) == obj &&
	       ar_engine_release_fd(fd);
	ar_claim_lock_drop();
	return ours;
}

/*
 * A ring's claim on fd that no longer is its socket: the program closed
 * the ring's fd, and the number may be another file's, before the
 * release thread (user/release.c) dropped the claim. One fstat.
 */
static bool ar_claim_stale(int fd)
{
	struct ar_fd_chunk *c = ar_fd_chunk(fd, 0);
	long id;

	if (!c)
		return false;
	id = atomic_load_explicit(&c->ident[fd & (AR_FD_CHUNK - 1)],
				  memory_order_relaxed);
	return id >= 0 && ar_fd_ident(fd) != id;
}

bool ar_fd_engines(int fd)
{
	const struct ar_engine *e;
	void *obj;

	e = ar_engine_lookup(fd, &obj);
	if (e == &ar_kernel_engine)
		return ar_engine_lookup_file(fd, &obj) != &ar_kernel_engine;
	return !(e->in_process && ar_claim_stale(fd));
}

/* the ring claim whose fd refers to the same open file as fd, if any */
static const struct ar_engine *ar_dup_search(int fd, void **obj)
{
	const struct ar_engine *e;
	struct ar_fd_chunk *c;
	long id, rid;
	void *o;

	/* the fds of in-process rings are sockets: another file is no dup */
	id = ar_fd_ident(fd);
	if (id < 0)
		return NULL;
	for (unsigned i = 0; i < AR_FD_CHUNKS; i++) {
		/* acquire pairs with the release of the chunk's install */
		c = atomic_load_explicit(&ar_fd_table[i], memory_order_acquire);
		for (unsigned j = 0; c && j < AR_FD_CHUNK; j++) {
			int r = (int)(i << AR_FD_CHUNK_SHIFT | j);

			/* acquire pairs with the release in ar_engine_claim_fd() */
			e = atomic_load_explicit(&c->engine[j], memory_order_acquire);
			if (r == fd || !ar_claim_is_ring(e))
				continue;
			o = atomic_load_explicit(&c->priv[j], memory_order_relaxed);
			rid = atomic_load_explicit(&c->ident[j], memory_order_relaxed);
			if (rid != id)
				continue;
			/*
			 * The claim read is the one matched: a ring exiting
			 * meanwhile, and another taking its fd, is not
			 * taken for it.
			 */
			if (atomic_load_explicit(&c->engine[j], memory_order_acquire) != e ||
			    atomic_load_explicit(&c->priv[j], memory_order_relaxed) != o)
				continue;
			*obj = o;
			return e;
		}
	}
	return NULL;
}

/*
 * The engine serving fd when fd may be a dup of a ring fd: as
 * ar_engine_lookup(), but an fd no engine claimed is searched for among
 * the fds of in-process rings, which the kernel does not know: one
 * fstat, and a look at each ring's claim for a socket. For calls the
 * kernel disowned, and for setup,
 * registration and CLOSE, never for a claimed ring's enter.
 */
void ar_engine_each_ring(const struct ar_engine *e,
			 void (*fn)(const struct ar_engine *e, void *obj, int fd))
{
	const struct ar_engine *ce;
	struct ar_fd_chunk *c;
	void *obj;

	for (unsigned i = 0; i < AR_FD_CHUNKS; i++) {
		/* acquire pairs with the release in ar_fd_chunk()'s install */
		c = atomic_load_explicit(&ar_fd_table[i], memory_order_acquire);
		for (unsigned j = 0; c && j < AR_FD_CHUNK; j++) {
			/* acquire pairs with the release in ar_engine_claim_fd() */
			ce = atomic_load_explicit(&c->engine[j], memory_order_acquire);
			if (!ce || (e ? ce != e : !ce->in_process))
				continue;
			obj = atomic_load_explicit(&c->priv[j], memory_order_relaxed);
			if (obj)
				fn(ce, obj, (int)(i << AR_FD_CHUNK_SHIFT | j));
		}
	}
}

const struct ar_engine *ar_engine_lookup_file(int fd, void **obj)
{
	const struct ar_engine *e = ar_engine_lookup(fd, obj);
	int saved = errno;

	if (e != &ar_kernel_engine || *obj ||
	    !atomic_load_explicit(&ar_ring_claims, memory_order_relaxed))
		return e;
	e = ar_dup_search(fd, obj);
	errno = saved;
	return e ? e : &ar_kernel_engine;
}

/*
 * Registered-ring indices: each engine keeps its own table per thread.
 * The user engine's serves an index it holds; the kernel's one it holds.
 * An index neither holds is answered by the table the thread has used:
 * the kernel's if it registered kernel rings, else the user engine's if
 * the thread has used a user ring (-EBADF, as for a task the kernel
 * knows), else the kernel's (-EINVAL, a task it never saw).
 */
static __thread bool ar_kernel_ring_table;

void ar_engine_kernel_index_used(void)
{
	ar_kernel_ring_table = true;
}

const struct ar_engine *ar_engine_of_index(unsigned index, void **obj)
{
	bool user_task;

	*obj = ar_user_engine.ring_index(index, &user_task);
	if (*obj || (user_task && !ar_kernel_ring_table))
		return &ar_user_engine;
	return &ar_kernel_engine;
}

static int ar_refused(int err);

/*
 * The kernel engine's call on an fd no engine claimed (or an index the
 * user engine does not hold) failed with ret. A dup of a user ring's fd
 * is that ring. Where the kernel refused io_uring itself, no kernel ring
 * can exist, and the user engine answers for the fd or index as 6.18
 * would for one that is not a ring.
 */
const struct ar_engine *ar_engine_disowned(int fd, bool index, int ret,
					   void **obj)
{
	const struct ar_engine *e;

	*obj = NULL;
	if (!index && (ret == -EOPNOTSUPP || ar_refused(ret))) {
		e = ar_engine_lookup_file(fd, obj);
		if (e != &ar_kernel_engine)
			return e;
	}
	return ar_refused(ret) ? &ar_user_engine : NULL;
}

/*
 * A forked child's copies of the rings of an in_process engine: the
 * threads that drive them stayed in the parent, and their locks, queues
 * and eventfds (shared with the parent) may be mid-use. Until rings can
 * be shared across processes, every call on one fails -EOWNERDEAD, and
 * closing one releases only the child's fd: nothing the child does
 * reaches the parent's ring.
 */
static int ar_forked_mmap(void *obj, int fd, struct io_uring_params *p,
			  struct io_uring *ring)
{
	(void)obj, (void)fd, (void)p, (void)ring;
	return -EOWNERDEAD;
}

static void ar_forked_unmap(struct io_uring *ring)
{
	(void)ring;	/* the child's copy of the memory goes with the child */
}

static int ar_forked_enter(void *obj, unsigned fd, unsigned to_submit,
			   unsigned min_complete, unsigned flags,
			   const void *arg, size_t argsz)
{
	(void)obj, (void)fd, (void)to_submit, (void)min_complete;
	(void)flags, (void)arg, (void)argsz;
	return -EOWNERDEAD;
}

static int ar_forked_reg(void *obj, unsigned fd, unsigned opcode,
			 const void *arg, unsigned nr_args)
{
	(void)obj, (void)fd, (void)opcode, (void)arg, (void)nr_args;
	return -EOWNERDEAD;
}

static int ar_forked_close(void *obj, int fd)
{
	(void)obj;
	ar_engine_release_fd(fd);
	return ar_sys_close(fd);
}

static int ar_forked_policy(void *obj, const struct anyring_policy *set,
			    struct anyring_policy *get)
{
	(void)obj, (void)set, (void)get;
	return -EOWNERDEAD;
}

static int ar_forked_stats(void *obj, struct anyring_stats *st, bool reset)
{
	(void)obj, (void)st, (void)reset;
	return -EOWNERDEAD;
}

static const struct ar_engine ar_forked_engine = {
	.name = "forked",
	.mmap = ar_forked_mmap,
	.unmap = ar_forked_unmap,
	.enter = ar_forked_enter,
	.reg = ar_forked_reg,
	.close = ar_forked_close,
	.policy = ar_forked_policy,
	.stats = ar_forked_stats,
};

/* in a forked child, the only thread: no claim can change meanwhile */
static void ar_engine_atfork_child(void)
{
	/* a new task has no registered rings on the kernel */
	ar_kernel_ring_table = false;
	struct ar_fd_chunk *c;
	const struct ar_engine *e;
	void *obj;

	/* as in ar_claim_prefork() */
	ar_hook_off_enter();
	for (unsigned i = 0; i < AR_FD_CHUNKS; i++) {
		c = atomic_load_explicit(&ar_fd_table[i], memory_order_relaxed);
		for (unsigned j = 0; c && j < AR_FD_CHUNK; j++) {
			e = atomic_load_explicit(&c->engine[j], memory_order_relaxed);
			if (!e || !e->in_process)
				continue;
			obj = atomic_load_explicit(&c->priv[j], memory_order_relaxed);
			if (obj && e->forked && e->forked(obj))
				continue;	/* the child's own now (user/fork.c) */
			atomic_store_explicit(&c->priv[j], NULL, memory_order_relaxed);
			atomic_store_explicit(&c->engine[j], &ar_forked_engine,
					      memory_order_relaxed);
		}
	}
	ar_hook_off_leave();
}

__attribute__((constructor))
static void ar_engine_init(void)
{
	pthread_atfork(NULL, NULL, ar_engine_atfork_child);
}

static int ar_refused(int err)
{
	return err == -EPERM || err == -EACCES || err == -ENOSYS;
}

static int ar_setup_on(const struct ar_engine *e, const char *why,
		       unsigned entries, struct io_uring_params *p)
{
	int fd = e->setup(entries, p);

	/*
	 * A kernel ring may get the number of a user ring's fd that the
	 * application closed behind our back: the kernel engine's setup
	 * replaced that stale claim with its own.
	 */
	if (fd >= 0)
		ar_debug("ring fd %d: engine %s (%s)", fd, e->name, why);
	else
		ar_debug("io_uring_setup(%u) on engine %s failed: %s (%s)",
			 entries, e->name, strerror(-fd), why);
	return fd;
}

/* the engines a program may name (ANYRING_ENGINE, anyring_queue_init_engine) */
static const struct ar_engine *const ar_named_engines[] = {
	&ar_kernel_engine, &ar_user_engine,
};

const struct ar_engine *ar_engine_named(const char *name)
{
	for (unsigned i = 0; i < sizeof(ar_named_engines) /
			       sizeof(ar_named_engines[0]); i++)
		if (!strcmp(name, ar_named_engines[i]->name))
			return ar_named_engines[i];
	return NULL;
}

int ar_engine_setup(const char *name, unsigned entries,
		    struct io_uring_params *p)
{
	const struct ar_engine *e;
	const char *src = "anyring_queue_init_engine";
	struct io_uring_params saved;
	bool have_saved;
	char why[160];
	int fd;

	if (!name) {
		/*
		 * Every ANYRING_* variable is read with secure_getenv(): a
		 * setuid, setgid or file-capability program (which the
		 * anyring-liburing drop-in serves) runs as with none set, so
		 * its caller's environment cannot steer it.
		 */
		name = secure_getenv("ANYRING_ENGINE");
		src = "ANYRING_ENGINE";
		if (!name || !*name) {
			name = "auto";
			src = "default";
		}
	}
	e = ar_engine_named(name);
	if (e) {
		snprintf(why, sizeof(why), "%s requested by %s", e->name, src);
		return ar_setup_on(e, why, entries, p);
	}
	if (strcmp(name, "auto")) {
		ar_debug("unknown engine '%s' from %s (kernel, user or auto)",
			 name, src);
		return -EINVAL;
	}

	/*
	 * auto: the kernel first; a refusal (not a bad argument) falls back.
	 * params the kernel may have written are restored for the user
	 * engine; params that cannot be read are the user engine's -EFAULT.
	 */
	have_saved = !ar_copy_from_user(&saved, p, sizeof(saved));
	fd = ar_kernel_engine.setup(entries, p);
	if (fd >= 0) {
		ar_debug("ring fd %d: engine kernel (auto, %s: io_uring_setup works)",
			 fd, src);
		return fd;
	}
	if (!ar_refused(fd)) {
		ar_debug("io_uring_setup(%u) failed on the kernel: %s (auto, %s; "
			 "not a refusal, no fallback)", entries, strerror(-fd), src);
		return fd;
	}
	if (have_saved)
		ar_copy_to_user(p, &saved, sizeof(saved));
	snprintf(why, sizeof(why), "auto, %s: kernel refused io_uring_setup "
		 "with %s", src, strerror(-fd));
	return ar_setup_on(&ar_user_engine, why, entries, p);
}
