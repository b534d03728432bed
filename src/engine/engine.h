/* SPDX-License-Identifier: MIT */
/*
 * engine.h - what the API layer and the engines share.
 *
 * Every liburing call reduces to four kernel operations: setup, mapping the
 * rings, enter and register (plus close). An engine is a table of those
 * operations (struct ar_engine); the API layer finds a ring's engine from
 * its fd and never calls the kernel itself.
 */
#ifndef ANYRING_ENGINE_ENGINE_H
#define ANYRING_ENGINE_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>
#include "engine/compat.h"
#include "lib/sysraw.h"
#include "anyring.h"

#define AR_EXPORT __attribute__((visibility("default")))

/*
 * ring->int_flags bits: REG_RING has liburing 2.3's value; the others
 * are liburing 2.15's meanings at values of anyring's (the field is the
 * library's own, no inline function of any header reads it)
 */
#define AR_INT_FLAG_REG_RING	(1U << 0)
/* the ring's memory is the program's (io_uring_queue_init_mem's buf) */
#define AR_INT_FLAG_APP_MEM	(1U << 1)
/* io_uring_set_iowait(ring, false): every enter passes this flag */
#define AR_INT_FLAG_NO_IOWAIT	IORING_ENTER_NO_IOWAIT

/*
 * The engine's ops take the ring object the engine claimed the ring's fd
 * with (ar_engine_claim_fd(): a struct ar_kring for the kernel, a struct
 * ar_uctx for the user engine), looked up once by the seam. obj is NULL
 * when the fd is not claimed (a kernel ring the engine keeps nothing for,
 * or an fd that is not a ring) and when the caller named the ring only by
 * a registered index; the engine then works from fd alone.
 *
 * obj is valid while fd is open: an engine that needs it longer (a ring
 * another thread may close meanwhile) takes its own reference.
 */
struct ar_engine {
	const char *name;
	/* io_uring_setup(2): returns the ring fd or -errno */
	int (*setup)(unsigned entries, struct io_uring_params *p);
	/* map the rings of fd into ring->sq / ring->cq; 0 or -errno */
	int (*mmap)(void *obj, int fd, struct io_uring_params *p,
		    struct io_uring *ring);
	void (*unmap)(struct io_uring *ring);
	/*
	 * io_uring_enter(2). fd is a ring fd, or with
	 * IORING_ENTER_REGISTERED_RING an index the engine handed out.
	 */
	int (*enter)(void *obj, unsigned fd, unsigned to_submit,
		     unsigned min_complete, unsigned flags, const void *arg,
		     size_t argsz);
	/* io_uring_register(2); fd as for enter */
	int (*reg)(void *obj, unsigned fd, unsigned opcode, const void *arg,
		   unsigned nr_args);
	/* release the ring fd */
	int (*close)(void *obj, int fd);
	/* set (set != NULL) and/or read (get != NULL) a ring's policy */
	int (*policy)(void *obj, const struct anyring_policy *set,
		      struct anyring_policy *get);
	/* read (st != NULL) or reset the ring's counters */
	int (*stats)(void *obj, struct anyring_stats *st, bool reset);
	/*
	 * The ring the calling thread registered at index with this engine
	 * (IORING_REGISTER_RING_FDS), or NULL: for an engine that keeps its
	 * own index table; the kernel's is the kernel's. *task: the thread
	 * has used a ring of the engine (the kernel would know the task).
	 */
	void *(*ring_index)(unsigned index, bool *task);
	/*
	 * mmap(2) of the ring fd at one of io_uring's offsets, made by the
	 * program itself (the system-call trap): the address, or -errno.
	 * NULL: the kernel's mmap serves the fd.
	 */
	long (*mmap_raw)(void *obj, void *addr, size_t len, int prot,
			 int flags, off_t off);
	/*
	 * The program found the CQ empty through liburing and returns to its
	 * own loop without waiting (io_uring_peek_cqe, io_uring_submit): an
	 * engine whose ring fd does not follow the CQ by itself may stop it
	 * polling readable. NULL: nothing to do.
	 */
	void (*cq_idle)(void *obj);
	/*
	 * fork(2), for an in_process engine's rings (engine.c's handlers),
	 * once per claimed fd: prefork in the parent before it; forked in
	 * the child, which keeps the ring when it answers true, else its
	 * calls fail -EOWNERDEAD. NULL: nothing to do, and never kept.
	 */
	void (*prefork)(void *obj);
	bool (*forked)(void *obj);
	/*
	 * The program put the ring's fd into an epoll set with these
	 * events (libc's epoll_ctl, engine/pollhook.c). NULL: nothing to do.
	 */
	void (*fd_polled)(void *obj, unsigned events);
	/*
	 * A thread of the program is about to sleep on fds (libc's poll,
	 * select and epoll_wait families): an engine whose ring fds do not
	 * follow their CQs by themselves makes them poll as the kernel's
	 * would now. For all of its rings; NULL: nothing to do.
	 */
	void (*prepoll)(void);
	/*
	 * ... or to read fd (libc's read and receive families): an engine
	 * whose readiness is looked at after the fact takes what fd's
	 * wakeup was for before the read can consume it. Called only while
	 * ar_preread_armed is not 0. NULL: nothing.
	 */
	void (*preread)(int fd);
	/*
	 * The engine's rings live in this process's memory and threads: a
	 * forked child cannot use its inherited copies (engine.c gives them
	 * to ar_forked_engine).
	 */
	bool in_process;
	/* the marker of the library's own fds (internal.c): no rings */
	bool internal;
	/*
	 * Its ring objects are struct ar_kring, whose enter the API layer
	 * makes inline (kernel/kernel.h ar_kring_enter()): the kernel's.
	 */
	bool kring;
};

extern const struct ar_engine ar_kernel_engine;
extern const struct ar_engine ar_user_engine;

/*
 * fds whose reads an engine's preread wants to hear of, over the
 * process (the user engine's armed readiness waits): a read of an fd
 * while it is 0 costs one load (pollhook.c). Relaxed: see poll.c.
 */
extern atomic_uint ar_preread_armed;

/*
 * engine.c's table of claimed fds: two-level (chunks of fds allocated on
 * first claim, never freed), so that a lookup is a few loads, takes no
 * lock and can be inline on every enter.
 */
#define AR_FD_CHUNK_SHIFT	10
#define AR_FD_CHUNK		(1U << AR_FD_CHUNK_SHIFT)
#define AR_FD_CHUNKS		1024	/* fds below 1M can be claimed */

struct ar_fd_chunk {
	_Atomic(const struct ar_engine *) engine[AR_FD_CHUNK];
	_Atomic(void *) priv[AR_FD_CHUNK];	/* the engine's ring object */
	/* an in-process ring's: its eventfd's id, or -1 (ar_dup_search) */
	_Atomic(long) ident[AR_FD_CHUNK];
};

extern _Atomic(struct ar_fd_chunk *) ar_fd_table[AR_FD_CHUNKS];

/* the chunk holding fd's entry, or NULL */
static inline struct ar_fd_chunk *ar_fd_chunk_find(int fd)
{
	unsigned i = (unsigned)fd >> AR_FD_CHUNK_SHIFT;

	/* a negative fd is a large unsigned one: out of range too */
	if (i >= AR_FD_CHUNKS)
		return NULL;
	/* acquire pairs with the release of the chunk's install (engine.c) */
	return atomic_load_explicit(&ar_fd_table[i], memory_order_acquire);
}

/*
 * The engine serving fd and its ring object, in one lookup: every enter
 * and register on a ring comes through here. *obj is NULL for an fd no
 * engine claimed.
 */
static inline const struct ar_engine *ar_engine_lookup(int fd, void **obj)
{
	struct ar_fd_chunk *c = ar_fd_chunk_find(fd);
	unsigned i = (unsigned)fd & (AR_FD_CHUNK - 1);
	const struct ar_engine *e;

	*obj = NULL;
	if (!c)
		return &ar_kernel_engine;
	/* acquire pairs with the release in ar_engine_claim_fd() */
	e = atomic_load_explicit(&c->engine[i], memory_order_acquire);
	if (!e)
		return &ar_kernel_engine;
	/*
	 * The claim's relaxed store of priv is ordered before its release
	 * of the engine, which the load above acquired. NULL if a release
	 * of the fd came between the two loads: the engine then treats fd
	 * as unclaimed.
	 */
	*obj = atomic_load_explicit(&c->priv[i], memory_order_acquire);
	return e;
}

/*
 * trap.c: the system-call trap is installed, so the program may make
 * io_uring's calls itself (an engine's rings must then be mappable and
 * pollable as the kernel's, with no library call in between)
 */
bool ar_trap_active(void);
/* engine.c: the engine called name ("kernel", "user"), or NULL */
const struct ar_engine *ar_engine_named(const char *name);
/* engine.c: which engine serves an fd; the kernel unless one claimed it */
const struct ar_engine *ar_engine_of_fd(int fd);
/*
 * Is fd an engine's, so not a file the kernel's io_uring would let a
 * program register or close through a ring: a user ring's fd or a dup
 * of one, or one of the library's own? A ring's claim on a number the
 * program has closed (and perhaps reused) does not count. An fstat for
 * a ring's fd or an unclaimed one while user rings exist.
 */
bool ar_fd_engines(int fd);

/* the ring object of engine e at fd, or NULL: e did not claim fd */
static inline void *ar_engine_obj(int fd, const struct ar_engine *e)
{
	void *obj;

	return ar_engine_lookup(fd, &obj) == e ? obj : NULL;
}

/*
 * internal.c: the library's own fds (eventfds, dups). A claimed fd, or
 * a negative one as it was; close one.
 */
int ar_internal_claim(int fd);
/* fd moved to a high number, out of the program's way (or fd) */
int ar_fd_high(int fd);
/* a dup of fd (close-on-exec) at a high number where there is room */
int ar_fd_dup_high(int fd);
/* where those high numbers start */
int ar_fd_floor(void);
/* /proc/self/maps, opened once at a high number: read it with pread() */
int ar_proc_maps_fd(void);
void ar_internal_close(int fd);
/* is fd one of the library's own? */
bool ar_fd_internal(int fd);
/*
 * The engine serving a registered-ring index of the calling thread: the
 * user engine's if it has one there, else the kernel's.
 */
const struct ar_engine *ar_engine_of_index(unsigned index, void **obj);
/* the kernel engine: this thread registered a kernel ring's fd */
void ar_engine_kernel_index_used(void);
/* the same, finding a dup of an in-process ring's fd too (slow) */
/*
 * fn(engine, obj, fd) for each fd engine e claims in this process (e
 * NULL: every in_process engine), in fd order
 */
void ar_engine_each_ring(const struct ar_engine *e,
			 void (*fn)(const struct ar_engine *e, void *obj, int fd));
const struct ar_engine *ar_engine_lookup_file(int fd, void **obj);

/* fd, or a dup of it, is an in-process ring's (a forked copy's too) */
bool ar_engine_fd_user_ring(int fd);

/* ar_engine_obj() through ar_engine_lookup_file() */
static inline void *ar_engine_obj_file(int fd, const struct ar_engine *e)
{
	void *obj;

	return ar_engine_lookup_file(fd, &obj) == e ? obj : NULL;
}
int ar_engine_claim_fd(int fd, const struct ar_engine *e, void *obj);
/*
 * A call on an fd no engine claimed (index: a registered-ring index the
 * user engine does not hold) came back from the kernel with ret. If the
 * kernel disowned the fd (-EOPNOTSUPP: not an io_uring) or refused the
 * call, and the fd is a dup of an in-process ring's fd, that ring's
 * engine answers instead: a dup of a ring fd is the ring, as on the
 * kernel. If the kernel refused io_uring, the user engine answers as
 * 6.18 would for a non-ring. Returns the engine to ask, or NULL to keep
 * ret. The kernel engine asks, so claimed fds (every hot path) never
 * pay for it.
 */
const struct ar_engine *ar_engine_disowned(int fd, bool index, int ret,
					   void **obj);
/* drop fd's claim; false if it had none (another release took it) */
bool ar_engine_release_fd(int fd);
/* drop fd's claim if obj still holds it; false if not */
bool ar_engine_release_obj(int fd, void *obj);
/* The engine for a new ring: by name, NULL meaning ANYRING_ENGINE/auto. */
int ar_engine_setup(const char *name, unsigned entries,
		    struct io_uring_params *p);

static inline const struct ar_engine *ar_ring_engine(const struct io_uring *ring)
{
	return ar_engine_of_fd(ring->ring_fd);
}

/*
 * A ring without an fd (io_uring_close_ring_fd(), REGISTERED_FD_ONLY)
 * is reached through its registered index: the engine holding it.
 */
static inline const struct ar_engine *ar_ring_lookup(const struct io_uring *ring,
						     void **obj)
{
	if (__builtin_expect(ring->ring_fd < 0, 0) &&
	    (ring->int_flags & AR_INT_FLAG_REG_RING))
		return ar_engine_of_index((unsigned)ring->enter_ring_fd, obj);
	return ar_engine_lookup(ring->ring_fd, obj);
}

static inline int ar_ring_register(struct io_uring *ring, unsigned opcode,
				   const void *arg, unsigned nr_args)
{
	void *obj;
	const struct ar_engine *e = ar_ring_lookup(ring, &obj);

	if (__builtin_expect(ring->ring_fd < 0, 0) &&
	    (ring->int_flags & AR_INT_FLAG_REG_RING))
		return e->reg(obj, (unsigned)ring->enter_ring_fd,
			      opcode | IORING_REGISTER_USE_REGISTERED_RING,
			      arg, nr_args);
	return e->reg(obj, (unsigned)ring->ring_fd, opcode, arg, nr_args);
}

/*
 * io_uring_enter(2) and io_uring_register(2) as the system calls take
 * them, dispatched by fd (or registered index) to the engine that owns
 * the ring: liburing's raw functions and the system-call trap.
 */
static inline int ar_enter_fd(unsigned fd, unsigned to_submit,
			      unsigned min_complete, unsigned flags,
			      const void *arg, size_t argsz)
{
	const struct ar_engine *e;
	void *obj;

	if (flags & IORING_ENTER_REGISTERED_RING)
		e = ar_engine_of_index(fd, &obj);
	else
		e = ar_engine_lookup((int)fd, &obj);
	return e->enter(obj, fd, to_submit, min_complete, flags, arg, argsz);
}

static inline int ar_register_fd(unsigned fd, unsigned opcode,
				 const void *arg, unsigned nr_args)
{
	const struct ar_engine *e;
	void *obj;

	if (opcode & IORING_REGISTER_USE_REGISTERED_RING)
		e = ar_engine_of_index(fd, &obj);
	else
		e = ar_engine_lookup((int)fd, &obj);
	return e->reg(obj, fd, opcode, arg, nr_args);
}

/*
 * syscall.c: raw system calls, returning -errno, never touching errno.
 * io_uring's and the ring mmaps go through one instruction, the site,
 * which the system-call trap lets through: ar_site_ip() is the address
 * after it, the same in every process, or 0 if the site could not be
 * put there (the trap is then impossible).
 */
unsigned long ar_site_ip(void);
/* put the site at its fixed address (for the trap); false if impossible */
bool ar_site_fix(void);
void *ar_sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int ar_sys_setup(unsigned entries, struct io_uring_params *p);
int ar_sys_enter_site(unsigned fd, unsigned to_submit, unsigned min_complete,
		      unsigned flags, const void *arg, size_t argsz);
/* the site is at its fixed address (ar_site_fix() has succeeded) */
extern bool ar_site_fixed;

/*
 * io_uring_enter(2), on every I/O path. Until the site is fixed, no
 * filter of the trap can exist (it names the fixed site's address), so
 * the call is made here, inline, as liburing makes it. A thread that
 * still sees false while the trap is being installed makes the call from
 * outside the site, and the trap's handler (installed before its filter)
 * serves it. The acquire (a plain load on x86) pairs with the release in
 * ar_site_fix(): seen true, the site's address is seen too.
 */
static inline int ar_sys_enter(unsigned fd, unsigned to_submit,
			       unsigned min_complete, unsigned flags,
			       const void *arg, size_t argsz)
{
	if (__builtin_expect(!__atomic_load_n(&ar_site_fixed,
					      __ATOMIC_ACQUIRE), 1))
		return (int)ar_raw_syscall6(__NR_io_uring_enter, fd, to_submit,
					    min_complete, flags, (long)arg,
					    (long)argsz);
	return ar_sys_enter_site(fd, to_submit, min_complete, flags, arg,
				 argsz);
}
int ar_sys_register(unsigned fd, unsigned opcode, const void *arg,
		    unsigned nr_args);
int ar_sys_close(int fd);
long ar_sys_site(long n, long a1, long a2, long a3, long a4, long a5,
		 long a6);

/* policy.c: ANYRING_POLICY for a new ring */
void ar_policy_env(struct anyring_policy *p);

/* debug.c: one line on stderr when ANYRING_DEBUG is set, else nothing */
int ar_debug_enabled(void);
void ar_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
