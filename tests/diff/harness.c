/* SPDX-License-Identifier: MIT */
/*
 * harness.c - one run of a scenario on one engine: a fresh temp dir,
 * buffers and ring; fill, submit, reap with a bounded wait, the post-check
 * on the raw CQEs, then normalization and cleanup. Everything the run saw
 * ends up in a struct diff_run for diff_compare.c. Also one run of a call
 * case, in a child process.
 */
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "harness.h"

static int ctx_init(struct diff_ctx *c, const char *engine)
{
	const char *tmp = getenv("TMPDIR");
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->engine = engine;
	c->dirfd = -1;
	for (i = 0; i < 4; i++)
		c->val[i] = -1;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(c->dir, sizeof(c->dir), "%s/anyring-diff-XXXXXX", tmp);
	if (!mkdtemp(c->dir)) {
		c->dir[0] = 0;
		return diff_fail(c, "mkdtemp under %s: %s", tmp, strerror(errno));
	}
	c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY);
	if (c->dirfd < 0)
		return diff_fail(c, "open %s: %s", c->dir, strerror(errno));
	for (i = 0; i < DIFF_NBUF; i++) {
		if (posix_memalign((void **)&c->buf[i], 4096, DIFF_BUFSZ)) {
			c->buf[i] = NULL;
			return diff_fail(c, "out of memory");
		}
		memset(c->buf[i], 0, DIFF_BUFSZ);
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

static void ctx_fini(struct diff_ctx *c)
{
	unsigned i;

	for (i = 0; i < c->nr_fd; i++)
		close(c->fd[i]);
	if (c->dirfd >= 0)
		close(c->dirfd);
	for (i = 0; i < DIFF_NBUF; i++)
		free(c->buf[i]);
	if (c->dir[0])
		nftw(c->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void take(struct io_uring *ring, struct io_uring_cqe *cqe,
		 struct diff_ctx *c, struct diff_run *r)
{
	if (r->nr < DIFF_MAX_CQES) {
		r->cqe[r->nr].user_data = cqe->user_data;
		r->cqe[r->nr].res = cqe->res;
		r->cqe[r->nr].flags = cqe->flags;
		r->nr++;
	} else {
		diff_fail(c, "more than %d CQEs", DIFF_MAX_CQES);
	}
	io_uring_cqe_seen(ring, cqe);
}

/*
 * Reap until nr_cqes arrived or DIFF_TIMEOUT_SEC passed, then take what
 * else is already there, so an engine posting extra CQEs is caught.
 */
static void reap(const struct scenario *s, struct io_uring *ring,
		 struct diff_ctx *c, struct diff_run *r)
{
	long long end = now_ns() + DIFF_TIMEOUT_SEC * 1000000000LL;
	struct io_uring_cqe *cqe;
	int ret;

	while (r->nr < s->nr_cqes && !c->msg[0]) {
		long long left = end - now_ns();
		struct __kernel_timespec ts;

		if (left <= 0) {
			diff_fail(c, "timed out after %d s: %u of %u CQEs arrived",
				  DIFF_TIMEOUT_SEC, r->nr, s->nr_cqes);
			return;
		}
		ts.tv_sec = left / 1000000000LL;
		ts.tv_nsec = left % 1000000000LL;
		cqe = NULL;
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (ret == -ETIME || ret == -EINTR)
			continue;
		if (ret < 0 || !cqe) {
			diff_fail(c, "io_uring_wait_cqe_timeout: %s",
				  ret < 0 ? strerror(-ret) : "no CQE");
			return;
		}
		take(ring, cqe, c, r);
	}
	while (!c->msg[0] && !io_uring_peek_cqe(ring, &cqe) && cqe)
		take(ring, cqe, c, r);
	if (!c->msg[0] && r->nr != s->nr_cqes)
		diff_fail(c, "%u CQEs arrived, expected %u", r->nr, s->nr_cqes);
}

static int ring_init(const struct scenario *s, struct diff_ctx *c,
		     struct io_uring *ring)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = s->setup_flags;
	p.sq_thread_idle = s->sq_thread_idle;
	if (s->cq_entries) {
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = s->cq_entries;
	}
	ret = anyring_queue_init_engine(c->engine, s->entries ? s->entries : 8,
					ring, &p);
	if (ret)
		return diff_fail(c, "ring setup on %s: %s", c->engine,
				 strerror(-ret));
	return 0;
}

/* the notes follow the CQEs; they are never normalized */
static void add_notes(struct diff_ctx *c, struct diff_run *r)
{
	unsigned i;

	for (i = 0; i < c->nr_note; i++) {
		if (r->nr == DIFF_MAX_CQES) {
			diff_fail(c, "more than %d CQEs and notes", DIFF_MAX_CQES);
			return;
		}
		r->cqe[r->nr++] = c->note[i];
	}
}

/* fill, submit, the optional second step, reap, post-check */
static void exercise(const struct scenario *s, struct diff_ctx *c,
		     struct io_uring *ring, struct diff_run *r)
{
	unsigned i;

	if (s->fill(ring, c)) {
		diff_fail(c, "fill failed");
		return;
	}
	if (diff_submit(ring, c) < 0)
		return;
	if (s->after_submit) {
		if (s->after_submit(ring, c)) {
			diff_fail(c, "after_submit failed");
			return;
		}
		if (io_uring_sq_ready(ring) && diff_submit(ring, c) < 0)
			return;
	}
	/* what the scenario reaped itself arrived first */
	memcpy(r->cqe, c->early, c->nr_early * sizeof(r->cqe[0]));
	r->nr = c->nr_early;
	reap(s, ring, c, r);
	if (!c->msg[0] && s->check && s->check(c, r->cqe, r->nr))
		diff_fail(c, "post-check failed");
	if (s->normalize)
		for (i = 0; i < r->nr; i++)
			s->normalize(&r->cqe[i]);
	add_notes(c, r);
}

/*
 * The last line of defence against an engine that hangs despite the
 * bounded waits: name the scenario and exit, rather than being killed
 * silently by the test runner.
 */
static char watchdog_msg[160];

static void watchdog(int sig)
{
	ssize_t n;

	(void)sig;
	n = write(STDOUT_FILENO, watchdog_msg, strlen(watchdog_msg));
	(void)n;
	_exit(1);
}

static void watchdog_arm(const struct scenario *s, const char *engine)
{
	snprintf(watchdog_msg, sizeof(watchdog_msg),
		 "FAIL %s: hung on engine %s for %d s, giving up\n", s->name,
		 engine, DIFF_WATCHDOG_SEC);
	signal(SIGALRM, watchdog);
	alarm(DIFF_WATCHDOG_SEC);
}

void diff_run_one(const struct scenario *s, const char *engine,
		  struct diff_run *r)
{
	struct diff_ctx *c = malloc(sizeof(*c));
	struct io_uring ring;

	memset(r, 0, sizeof(*r));
	r->engine = engine;
	if (!c) {
		snprintf(r->msg, sizeof(r->msg), "out of memory");
		return;
	}
	watchdog_arm(s, engine);
	if (ctx_init(c, engine))
		goto out;
	if (s->setup && s->setup(c)) {
		diff_fail(c, "setup failed");
		goto out;
	}
	if (!ring_init(s, c, &ring)) {
		exercise(s, c, &ring, r);
		io_uring_queue_exit(&ring);
	}
out:
	if (s->teardown)
		s->teardown(c);
	memcpy(r->submit, c->submit, sizeof(r->submit));
	r->nr_submit = c->nr_submit;
	memcpy(r->msg, c->msg, sizeof(r->msg));
	ctx_fini(c);
	free(c);
	alarm(0);
}

#define DIFF_CHILD_TIMEOUT_SEC	20	/* a call case's child is killed then */

void diff_call_one(const struct diff_call *k, const char *engine,
		   struct diff_run *r)
{
	int status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->engine = engine;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(r->msg, sizeof(r->msg), "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		/* not the watchdog a scenario may have left: die of it */
		signal(SIGALRM, SIG_DFL);
		alarm(DIFF_CHILD_TIMEOUT_SEC);
		k->run(engine, k->arg, r);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		snprintf(r->msg, sizeof(r->msg), "waitpid: %s",
			 strerror(errno));
	else if (WIFSIGNALED(status))
		r->signal = WTERMSIG(status);
	else
		r->status = WEXITSTATUS(status);
}
