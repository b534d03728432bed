/* SPDX-License-Identifier: MIT */
/*
 * fault.c - fault injection on the user engine: ANYRING_FAULTS holds
 * rules, each naming requests (opcode, file) and an effect on some of them
 * (an error, a short transfer, a delay). fault/rule.c parses the rules and
 * picks the matches; this file matches requests and applies the effects.
 * docs/faults.md has the grammar.
 *
 * When: a request meets the rules once, at its first issue (ar_req_issue,
 * after its registered file is resolved). For the requests one thread
 * submits without IOSQE_ASYNC, links or drain, that is submission order,
 * so nth=, every= and a seeded rate= pick the same requests run after run.
 *
 * Cost: with ANYRING_FAULTS unset the core's hook is one relaxed load and
 * a branch not taken. With rules, a request whose opcode no rule names
 * costs a bitmap test per rule; the file's path is looked up only for a
 * rule with path= that matched on everything else.
 *
 * Paths: an fd's path is readlink(/proc/self/fd/N), cached per fd and
 * revalidated by fstat() (device and inode) on every use, so an fd number
 * reused for another file is looked up again; a file renamed while open
 * keeps the name it had when first seen. A path-taking opcode (OPENAT,
 * STATX, UNLINKAT, ...) is matched on the name it was given, made absolute
 * against its dirfd or the cwd and cleaned lexically (".", "..", "//"),
 * without following symlinks.
 *
 * Effects:
 *  - err: the request completes with -err and is not performed, except
 *    CLOSE, which closes and then reports the error (close(2) releases the
 *    fd even when it fails). Links and CQE_SKIP_SUCCESS treat the error
 *    as they treat the opcode's own errors (opdef nofail_res).
 *  - short: READ, WRITE, READ_FIXED, WRITE_FIXED are prepared again from
 *    their SQE as submitted (req->fault_sqe, kept only while rules exist:
 *    req.c) with the shorter length, so the file, its
 *    position and the buffer see exactly the transfer the CQE reports; the
 *    request is marked short, so a link behind it breaks as behind any
 *    short transfer. READV/WRITEV are not shortened (their iovec array is
 *    the application's and may be gone by issue time).
 *  - delay: the request goes to an io-wq worker, which sleeps, then
 *    performs it; the submitter never blocks. While it sleeps the request
 *    is running work: ASYNC_CANCEL and a LINK_TIMEOUT answer -EALREADY, as
 *    for any request a worker has started. Ring exit ends the sleep within
 *    AR_FAULT_SLICE_NS and the request completes -ECANCELED.
 *
 * Locks: ar_fdcache_lock only, never across a system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "user/fault.h"
#include "fault/rule.h"
#include "lib/clock.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/complete.h"

#define AR_FAULT_MAX_RULES	64	/* 1 + an index fits req->fault_delay */
#define AR_FAULT_SLICE_NS	10000000ULL	/* a delay looks at ring exit this often */
#define AR_FAULT_LOG_FIRST	5	/* injections logged per rule, then powers of 2 */
#define AR_FDCACHE_SLOTS	64

_Static_assert(AR_FAULT_MAX_RULES < 1U << (8 * sizeof(((struct ar_ureq *)0)->fault_delay)),
	       "1 + a rule index must fit req->fault_delay");

int ar_faults_on = 1;
static pthread_once_t ar_faults_once = PTHREAD_ONCE_INIT;
static struct ar_frule ar_fault_rules[AR_FAULT_MAX_RULES];
/* written once by the parse with release; see ar_faults_report() */
static unsigned ar_fault_nr;
static bool ar_fault_debug;
static uint64_t ar_fault_ops[4];	/* the opcodes any rule names */

static bool ar_op_has(const uint64_t *ops, unsigned op)
{
	return op < 256 && (ops[op / 64] >> (op % 64)) & 1;
}

/* ------------------------------------------------------------------ */
/* the rules                                                            */

static void ar_rules_free(struct ar_frule *rules, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		ar_frule_free(&rules[i]);
}

static void ar_faults_log_rules(void)
{
	for (unsigned i = 0; i < ar_fault_nr; i++) {
		struct ar_frule *r = &ar_fault_rules[i];

		if (r->threshold && !r->seeded)
			ar_debug("fault: rule %u \"%s\" (seed=%llu, add it to replay this run)",
				 i + 1, r->text, (unsigned long long)r->seed);
		else
			ar_debug("fault: rule %u \"%s\"", i + 1, r->text);
	}
}

static void ar_faults_parse(void)
{
	const char *env = secure_getenv("ANYRING_FAULTS");
	struct ar_fparse p = { .dom = AR_FDOM_REQ, .sep = ',' };
	unsigned nr = 0;
	char *s;
	int e = errno;

	if (!env || !*env)
		goto out;
	s = strdup(env);
	if (!s || ar_frules_parse(&p, s, ar_fault_rules, AR_FAULT_MAX_RULES, &nr)) {
		if (!s)
			snprintf(p.msg, sizeof(p.msg), "out of memory");
		/* the user asked for faults: say why none apply, on one line */
		fprintf(stderr, "anyring[%d]: ANYRING_FAULTS: rule %u \"%s\": %s; "
			"no fault rule applied\n", (int)getpid(), p.rule_no,
			p.rule ? p.rule : "", p.msg);
		ar_rules_free(ar_fault_rules, nr);
		nr = 0;
	}
	free(s);
	free(p.rule);
	for (unsigned i = 0; i < nr; i++)
		for (int w = 0; w < 4; w++)
			ar_fault_ops[w] |= ar_fault_rules[i].ops[w];
	ar_fault_debug = nr && ar_debug_enabled();
	/* release pairs with the acquire in ar_faults_report() (exit, any thread) */
	__atomic_store_n(&ar_fault_nr, nr, __ATOMIC_RELEASE);
	if (ar_fault_debug) {
		ar_debug("fault: %u rule(s) from ANYRING_FAULTS, user engine only", nr);
		ar_faults_log_rules();
	}
out:
	/* relaxed: see ar_faults_on in fault.h */
	__atomic_store_n(&ar_faults_on, nr > 0, __ATOMIC_RELAXED);
	errno = e;
}

void ar_faults_init(void)
{
	pthread_once(&ar_faults_once, ar_faults_parse);
}

/* with ANYRING_DEBUG: what each rule did, at exit */
__attribute__((destructor)) static void ar_faults_report(void)
{
	/* acquire pairs with the parse's release: the rules are written */
	unsigned nr = __atomic_load_n(&ar_fault_nr, __ATOMIC_ACQUIRE);

	if (!nr || !ar_fault_debug)
		return;
	for (unsigned i = 0; i < nr; i++) {
		struct ar_frule *r = &ar_fault_rules[i];

		ar_debug("fault: rule %u \"%s\": %llu matched, %llu injected",
			 i + 1, r->text,
			 (unsigned long long)__atomic_load_n(&r->matched, __ATOMIC_RELAXED),
			 (unsigned long long)__atomic_load_n(&r->injected, __ATOMIC_RELAXED));
	}
}

/* ------------------------------------------------------------------ */
/* paths                                                                */

/* fd -> path, direct-mapped by fd, valid while (dev, ino) match */
struct ar_fdpath {
	int fd;
	dev_t dev;
	ino_t ino;
	char *path;		/* NULL: empty slot */
};

static struct ar_fdpath ar_fdcache[AR_FDCACHE_SLOTS];
static pthread_mutex_t ar_fdcache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool ar_fdcache_get(int fd, const struct stat *st, char *out,
			   size_t size)
{
	struct ar_fdpath *e = &ar_fdcache[(unsigned)fd % AR_FDCACHE_SLOTS];
	bool hit;

	pthread_mutex_lock(&ar_fdcache_lock);
	hit = e->path && e->fd == fd && e->dev == st->st_dev &&
	      e->ino == st->st_ino;
	if (hit)
		snprintf(out, size, "%s", e->path);
	pthread_mutex_unlock(&ar_fdcache_lock);
	return hit;
}

static void ar_fdcache_put(int fd, const struct stat *st, const char *path)
{
	struct ar_fdpath *e = &ar_fdcache[(unsigned)fd % AR_FDCACHE_SLOTS];
	char *copy = strdup(path), *old;

	if (!copy)
		return;
	pthread_mutex_lock(&ar_fdcache_lock);
	old = e->path;
	e->fd = fd;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->path = copy;
	pthread_mutex_unlock(&ar_fdcache_lock);
	free(old);
}

/* the path of an open fd (size PATH_MAX): 0, or -1 when unknown */
static int ar_fd_path(int fd, char *out, size_t size)
{
	char link[32];
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	if (ar_fdcache_get(fd, &st, out, size))
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, size - 1);
	if (n < 0)
		return -1;
	out[n] = '\0';
	ar_fdcache_put(fd, &st, out);
	return 0;
}

/* "/a/./b//../c" -> "/a/c", in place; for absolute paths */
static void ar_path_clean(char *path)
{
	char *w = path;
	const char *r = path, *seg;
	size_t len;

	while (*r) {
		while (*r == '/')
			r++;
		seg = r;
		while (*r && *r != '/')
			r++;
		len = (size_t)(r - seg);
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (w > path && *--w != '/')
				;
			continue;
		}
		/* w never passes r: each segment is written where it was read, or before */
		*w++ = '/';
		memmove(w, seg, len);
		w += len;
	}
	if (w == path)
		*w++ = '/';
	*w = '\0';
}

/* name relative to dfd (or the cwd), made absolute: 0 or -1 */
static int ar_path_at(int dfd, const char *name, char *out)
{
	size_t len;

	if (name[0] == '/') {
		if (strlen(name) >= PATH_MAX)
			return -1;
		strcpy(out, name);
	} else {
		if (dfd == AT_FDCWD ? !getcwd(out, PATH_MAX) :
				      ar_fd_path(dfd, out, PATH_MAX))
			return -1;
		len = strlen(out);
		if (*name && len + 1 + strlen(name) >= PATH_MAX)
			return -1;
		if (*name)
			snprintf(out + len, PATH_MAX - len, "/%s", name);
	}
	if (out[0] == '/')
		ar_path_clean(out);
	return 0;
}

/* what one request is matched on */
struct ar_fault_req {
	struct ar_ureq *req;
	int fd, fixed;		/* -1: not a request on such a file */
	bool paths_done;
	unsigned nr_paths;
	char paths[2][PATH_MAX];
};

/* a fixed slot's path (CLOSE of a direct descriptor) */
static int ar_fixed_path(struct ar_uctx *ctx, unsigned slot, char *out)
{
	void *ref;
	int fd = ar_fault_file_get(ctx, slot, &ref), ret;

	if (fd < 0)
		return -1;
	ret = ar_fd_path(fd, out, PATH_MAX);
	ar_fault_file_put(ctx, ref);
	return ret;
}

/*
 * The names a path opcode was given: prep copied them into req->alloc,
 * NUL-terminated, in SQE order (fs.h, ar_fs_getnames).
 */
static void ar_fault_name_paths(struct ar_fault_req *fr)
{
	struct ar_ureq *req = fr->req;
	const char *n0 = req->alloc, *n1;
	int dfd = req->fault_sqe->fd;

	if (!n0)
		return;
	n1 = n0 + strlen(n0) + 1;
	switch (ar_cold_defs[req->opcode].paths) {
	case AR_PATHS_TWO:
		if (!ar_path_at(dfd, n0, fr->paths[fr->nr_paths]))
			fr->nr_paths++;
		if (!ar_path_at((int)req->fault_sqe->len, n1, fr->paths[fr->nr_paths]))
			fr->nr_paths++;
		break;
	case AR_PATHS_LINK:	/* the link made, not its target */
		if (!ar_path_at(dfd, n1, fr->paths[0]))
			fr->nr_paths++;
		break;
	default:
		if (!ar_path_at(dfd, n0, fr->paths[0]))
			fr->nr_paths++;
		break;
	}
}

static void ar_fault_paths(struct ar_fault_req *fr)
{
	struct ar_ureq *req = fr->req;

	fr->paths_done = true;
	if (ar_cold_defs[req->opcode].paths != AR_PATHS_NONE) {
		ar_fault_name_paths(fr);
		return;
	}
	if (fr->fixed >= 0 && ar_cold_defs[req->opcode].closes) {
		if (!ar_fixed_path(req->ctx, (unsigned)fr->fixed, fr->paths[0]))
			fr->nr_paths = 1;
	} else if (fr->fd >= 0 || fr->fixed >= 0) {
		/* req->fd: the fd, or the registered file's own dup */
		int fd = ar_cold_defs[req->opcode].closes ? fr->fd : req->fd;

		if (!ar_fd_path(fd, fr->paths[0], PATH_MAX))
			fr->nr_paths = 1;
	}
}

static bool ar_fault_glob(const struct ar_frule *r, struct ar_fault_req *fr)
{
	if (!fr->paths_done)
		ar_fault_paths(fr);
	for (unsigned i = 0; i < fr->nr_paths; i++)
		if (!fnmatch(r->glob, fr->paths[i], 0))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* matching and selection                                               */

static void ar_fault_req_init(struct ar_fault_req *fr, struct ar_ureq *req)
{
	fr->req = req;
	fr->fd = fr->fixed = -1;
	fr->paths_done = false;
	fr->nr_paths = 0;
	if (ar_cold_defs[req->opcode].closes) {
		if (req->fault_sqe->file_index)
			fr->fixed = (int)req->fault_sqe->file_index - 1;
		else
			fr->fd = req->fault_sqe->fd;
	} else if (ar_issue_defs[req->opcode].needs_file) {
		if (req->flags & AR_REQ_F_FIXED_FILE)
			fr->fixed = req->fault_sqe->fd;
		else
			fr->fd = req->fault_sqe->fd;
	}
}

/* the length short= leaves */
static __u32 ar_fault_short_len(const struct ar_frule *r,
				const struct ar_ureq *req)
{
	return r->len_mode == AR_FLEN_HALF ? req->expect / 2 : r->len;
}

static bool ar_fault_match(const struct ar_frule *r,
			   struct ar_fault_req *fr)
{
	struct ar_ureq *req = fr->req;

	if (!ar_op_has(r->ops, req->opcode))
		return false;
	if ((r->fd >= 0 && r->fd != fr->fd) ||
	    (r->fixed >= 0 && r->fixed != fr->fixed))
		return false;
	/* short= matches only what it can shorten (half: 2 bytes or more) */
	if (r->eff == AR_FEFF_SHORT &&
	    (ar_fault_short_len(r, req) >= req->expect ||
	     (r->len_mode == AR_FLEN_HALF && req->expect < 2)))
		return false;
	return !r->glob || ar_fault_glob(r, fr);
}

static void ar_fault_log(unsigned i, struct ar_fault_req *fr, __u64 k,
			 __u64 nth)
{
	const struct ar_ureq *req = fr->req;
	char file[48] = "";

	if (!ar_fault_debug || (nth > AR_FAULT_LOG_FIRST && (nth & (nth - 1))))
		return;
	if (fr->fd >= 0)
		snprintf(file, sizeof(file), " fd %d", fr->fd);
	else if (fr->fixed >= 0)
		snprintf(file, sizeof(file), " fixed file %d", fr->fixed);
	ar_debug("fault: rule %u \"%s\": %s%s%s%s (match %llu, injection %llu%s)",
		 i + 1, ar_fault_rules[i].text, ar_cold_defs[req->opcode].name,
		 file, fr->nr_paths ? " " : "", fr->nr_paths ? fr->paths[0] : "",
		 (unsigned long long)k, (unsigned long long)nth,
		 nth == AR_FAULT_LOG_FIRST ? "; further ones at powers of 2" : "");
}

/* the first rule that matches and picks the request: its index, or -1 */
static int ar_fault_pick(struct ar_fault_req *fr, unsigned nr)
{
	struct ar_frule *r;
	__u64 k, nth;

	for (unsigned i = 0; i < nr; i++) {
		r = &ar_fault_rules[i];
		if (!ar_fault_match(r, fr))
			continue;
		k = ar_frule_count(r);
		if (!ar_frule_select(r, i, k) || !(nth = ar_frule_take(r)))
			continue;
		ar_fault_log(i, fr, k, nth);
		return (int)i;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* effects                                                              */

static int ar_fault_err(struct ar_ureq *req, const struct ar_frule *r,
			unsigned issue_flags)
{
	int ret;

	/* close(2) releases the fd even when it reports an error: close it */
	if (ar_cold_defs[req->opcode].closes) {
		ret = ar_issue_defs[req->opcode].issue(req, issue_flags);
		if (ret < 0)
			return ret;
	}
	return -r->err;
}

/*
 * Prepare the request again from its stable SQE with the shorter length:
 * the non-vectored read/write preps are functions of the SQE alone.
 */
static int ar_fault_shorten(struct ar_ureq *req, const struct ar_frule *r)
{
	struct io_uring_sqe sqe = *req->fault_sqe;
	int ret;

	sqe.len = ar_fault_short_len(r, req);
	ret = ar_issue_defs[req->opcode].prep(req, &sqe);
	if (ret)
		return ret;	/* not seen: the same SQE passed prep longer */
	/* a short transfer breaks a link, as the kernel's does */
	req->flags |= AR_REQ_F_SHORT;
	return 0;
}

/* sleep ns in a worker, in slices; false if the ring exits meanwhile */
static bool ar_fault_sleep(struct ar_uctx *ctx, __u64 ns)
{
	__u64 end = ar_now_ns() + ns, now, left;
	struct timespec ts;

	while ((now = ar_now_ns()) < end) {
		if (ar_ring_exiting(ctx))
			return false;
		left = end - now < AR_FAULT_SLICE_NS ? end - now : AR_FAULT_SLICE_NS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left;
		nanosleep(&ts, NULL);
	}
	return !ar_ring_exiting(ctx);
}

/*
 * In the worker: the delay a rule put on the request, then its issue. The
 * rules are read without pthread_once() here: the thread that chose the
 * delay went through it, and the io-wq lock handed the request over.
 */
static int ar_fault_delayed(struct ar_ureq *req)
{
	unsigned i = req->fault_delay - 1U;

	req->fault_delay = 0;
	if (ar_fault_sleep(req->ctx, ar_fault_rules[i].delay_ns))
		return 0;
	ar_req_complete(req, -ECANCELED, 0);
	return AR_ISSUE_QUEUED;
}

static int ar_fault_delay(struct ar_ureq *req, unsigned i, unsigned issue_flags)
{
	req->fault_delay = (__u8)(i + 1);
	if (issue_flags & AR_ISSUE_WORKER)
		return ar_fault_delayed(req);
	/* the submitter does not wait: a worker sleeps, then issues it */
	return AR_ISSUE_PUNT;
}

static int ar_fault_apply(struct ar_ureq *req, unsigned i, unsigned issue_flags)
{
	const struct ar_frule *r = &ar_fault_rules[i];

	switch (r->eff) {
	case AR_FEFF_ERR:
		return ar_fault_err(req, r, issue_flags);
	case AR_FEFF_SHORT:
		return ar_fault_shorten(req, r);
	case AR_FEFF_DELAY:
		return ar_fault_delay(req, i, issue_flags);
	default:
		return 0;
	}
}

/* match the rules and apply the chosen one (its own frame: two paths) */
static __attribute__((noinline)) int ar_fault_decide(struct ar_ureq *req,
						     unsigned issue_flags)
{
	unsigned nr = __atomic_load_n(&ar_fault_nr, __ATOMIC_ACQUIRE);
	struct ar_fault_req fr;
	int i, ret, e = errno;	/* path lookups must not change the application's */

	ar_fault_req_init(&fr, req);
	i = ar_fault_pick(&fr, nr);
	ret = i < 0 ? 0 : ar_fault_apply(req, (unsigned)i, issue_flags);
	errno = e;
	return ret;
}

int ar_fault_issue(struct ar_ureq *req, unsigned issue_flags)
{
	if (req->fault_seen) {
		/* issued again (a worker, a ready poll): decided already */
		if (req->fault_delay && (issue_flags & AR_ISSUE_WORKER))
			return ar_fault_delayed(req);
		return 0;
	}
	req->fault_seen = 1;
	if (!req->fault_sqe)	/* not from a request slab: nothing to match */
		return 0;
	ar_faults_init();
	/* the common case: an opcode no rule names */
	if (!ar_op_has(ar_fault_ops, req->opcode))
		return 0;
	return ar_fault_decide(req, issue_flags);
}
