/* SPDX-License-Identifier: MIT */
/*
 * diff_util.c - helpers the scenarios share: getting SQEs and submitting
 * with the results recorded, making files and pipes in the run's temp
 * dir, and checking side effects. On error they record the first failure
 * in c->msg (diff_fail) so scenario code stays straight-line.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>
#include "harness.h"

int diff_fail(struct diff_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->msg[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * io_uring_submit(), its result and what it left queued recorded. With
 * SQPOLL both depend on the poll thread's progress: liburing returns the
 * SQEs the poll thread had not yet consumed when it looked (tail - khead,
 * read after the tail is published), so anything from 0 to what was
 * queued is right. There only an error is recorded exactly; a count above
 * what was queued fails the run.
 */
int diff_submit(struct io_uring *ring, struct diff_ctx *c)
{
	int sqpoll = ring->flags & IORING_SETUP_SQPOLL;
	unsigned queued = io_uring_sq_ready(ring);
	int ret = io_uring_submit(ring);

	if (c->nr_submit < DIFF_MAX_SUBMITS) {
		c->submit[c->nr_submit].ret = sqpoll && ret > 0 ? 0 : ret;
		if (!sqpoll)
			c->submit[c->nr_submit].left = io_uring_sq_ready(ring);
		c->nr_submit++;
	}
	if (ret < 0)
		diff_fail(c, "io_uring_submit: %s", strerror(-ret));
	else if (sqpoll && (unsigned)ret > queued)
		diff_fail(c, "io_uring_submit: %d with %u queued", ret, queued);
	return ret;
}

/*
 * Submit until the SQ is empty: the kernel ends a submit at an SQE it
 * refuses at submit time, leaving the rest queued. Fits .after_submit.
 */
int diff_submit_rest(struct io_uring *ring, struct diff_ctx *c)
{
	while (io_uring_sq_ready(ring))
		if (diff_submit(ring, c) <= 0)
			return c->msg[0] ? -1 : 0;
	return 0;
}

/*
 * Reap nr CQEs now, waiting up to DIFF_TIMEOUT_SEC for them: for scenarios
 * that look at the ring between rounds of reaping. They count towards the
 * scenario's nr_cqes and come first in the run's CQE list.
 */
int diff_reap(struct io_uring *ring, struct diff_ctx *c, unsigned nr)
{
	struct __kernel_timespec ts = { .tv_sec = DIFF_TIMEOUT_SEC };
	struct io_uring_cqe *cqe;
	int ret;

	while (nr-- && !c->msg[0]) {
		if (c->nr_early == DIFF_MAX_CQES)
			return diff_fail(c, "more than %d CQEs", DIFF_MAX_CQES);
		do {
			cqe = NULL;
			ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		} while (ret == -EINTR);
		if (ret < 0 || !cqe)
			return diff_fail(c, "diff_reap: %s", ret < 0 ?
					 strerror(-ret) : "no CQE");
		c->early[c->nr_early].user_data = cqe->user_data;
		c->early[c->nr_early].res = cqe->res;
		c->early[c->nr_early].flags = cqe->flags;
		c->nr_early++;
		io_uring_cqe_seen(ring, cqe);
	}
	return c->msg[0] ? -1 : 0;
}

/* record an observation, compared between the runs like a CQE */
void diff_note(struct diff_ctx *c, __u64 key, int value)
{
	if (c->nr_note == DIFF_MAX_NOTES) {
		diff_fail(c, "more than %d notes", DIFF_MAX_NOTES);
		return;
	}
	c->note[c->nr_note].user_data = key;
	c->note[c->nr_note].res = value;
	c->note[c->nr_note].flags = DIFF_NOTE_FLAGS;
	c->nr_note++;
}

/*
 * An SQE; submits first when the SQ is full (and with SQPOLL waits for
 * room). Never NULL: if the SQ stays full the run is failed and a scratch
 * SQE absorbs the scenario's writes.
 */
struct io_uring_sqe *diff_sqe(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	long long end = t_now_ns() + T_HANG_SEC * 1000000000LL;
	int ret = 0;

	if (!sqe && diff_submit(ring, c) >= 0)
		sqe = io_uring_get_sqe(ring);
	/*
	 * The poll thread frees the entries when it gets to them. The
	 * kernel's SQ_WAIT may return while it is still submitting them,
	 * before it publishes the new SQ head: wait again, T_HANG_SEC at
	 * most.
	 */
	while (!sqe && (ring->flags & IORING_SETUP_SQPOLL) && ret >= 0 &&
	       t_now_ns() < end) {
		ret = io_uring_sqring_wait(ring);
		sqe = io_uring_get_sqe(ring);
		if (!sqe)
			usleep(100);
	}
	if (!sqe) {
		diff_fail(c, "no SQE available (SQ wait: %d)", ret);
		sqe = &c->scratch;
	}
	return sqe;
}

/*
 * Wait until an SQPOLL ring's poll thread, idle, asks for a wakeup
 * (IORING_SQ_NEED_WAKEUP): 1 once it did, 0 if it still had not after
 * T_HANG_SEC.
 */
int diff_wait_need_wakeup(struct io_uring *ring)
{
	long long end = t_now_ns() + T_HANG_SEC * 1000000000LL;

	while (!(IO_URING_READ_ONCE(*ring->sq.kflags) & IORING_SQ_NEED_WAKEUP)) {
		if (t_now_ns() >= end)
			return 0;
		usleep(1000);
	}
	return 1;
}

/* a NOP with user_data ud and SQE flags */
struct io_uring_sqe *diff_prep_nop(struct io_uring *ring, struct diff_ctx *c,
				   __u64 ud, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_nop(sqe);
	diff_tag(sqe, ud, flags);
	return sqe;
}

/*
 * an SQE of opcode op on fd with nothing else set: for the opcodes
 * liburing 2.3 has no prep for, and for their bad input
 */
struct io_uring_sqe *diff_prep_op(struct io_uring *ring, struct diff_ctx *c,
				  __u8 op, int fd, __u64 ud, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_rw(op, sqe, fd, NULL, 0, 0);
	diff_tag(sqe, ud, flags);
	return sqe;
}

/* a read of len bytes at off into buf[ud % DIFF_NBUF] */
struct io_uring_sqe *diff_prep_read(struct io_uring *ring, struct diff_ctx *c,
				    __u64 ud, int fd, unsigned len, __u64 off,
				    unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, fd, c->buf[ud % DIFF_NBUF], len, off);
	diff_tag(sqe, ud, flags);
	return sqe;
}

/* a TIMEOUT on c->ts[ts], count and IORING_TIMEOUT_* flags */
struct io_uring_sqe *diff_prep_timeout(struct io_uring *ring,
				       struct diff_ctx *c, __u64 ud,
				       unsigned ts, unsigned count,
				       unsigned flags, unsigned sqe_flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_timeout(sqe, &c->ts[ts], count, flags);
	diff_tag(sqe, ud, sqe_flags);
	return sqe;
}

/* ASYNC_CANCEL of user_data target (IORING_ASYNC_CANCEL_* flags) */
struct io_uring_sqe *diff_prep_cancel(struct io_uring *ring,
				      struct diff_ctx *c, __u64 ud,
				      __u64 target, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_cancel64(sqe, target, (int)flags);
	diff_tag(sqe, ud, 0);
	return sqe;
}

/* ASYNC_CANCEL by fd (IORING_ASYNC_CANCEL_FD is added) */
struct io_uring_sqe *diff_prep_cancel_fd(struct io_uring *ring,
					 struct diff_ctx *c, __u64 ud, int fd,
					 unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_cancel_fd(sqe, fd, flags);
	diff_tag(sqe, ud, 0);
	return sqe;
}

struct io_uring_sqe *diff_prep_remove_buffers(struct io_uring *ring,
					      struct diff_ctx *c, __u64 ud,
					      int nr, int bgid)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_remove_buffers(sqe, nr, bgid);
	diff_tag(sqe, ud, 0);
	return sqe;
}

/* after the prep helper, which clears flags */
void diff_tag(struct io_uring_sqe *sqe, __u64 user_data, unsigned flags)
{
	sqe->user_data = user_data;
	sqe->flags = (__u8)flags;
}

int diff_track_fd(struct diff_ctx *c, int fd)
{
	if (c->nr_fd == DIFF_NFD) {
		close(fd);
		return diff_fail(c, "more than %d fds", DIFF_NFD);
	}
	c->fd[c->nr_fd++] = fd;
	return fd;
}

/* name in the run's dir with len bytes of data; an fd open with oflags */
int diff_file(struct diff_ctx *c, const char *name, const void *data,
	      size_t len, int oflags)
{
	int fd = openat(c->dirfd, name, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return diff_fail(c, "create %s: %s", name, strerror(errno));
	if (len && pwrite(fd, data, len, 0) != (ssize_t)len) {
		close(fd);
		return diff_fail(c, "write %s: %s", name, strerror(errno));
	}
	close(fd);
	fd = openat(c->dirfd, name, oflags);
	if (fd < 0)
		return diff_fail(c, "open %s: %s", name, strerror(errno));
	return diff_track_fd(c, fd);
}

int diff_pipe(struct diff_ctx *c, int p[2])
{
	if (pipe(p))
		return diff_fail(c, "pipe: %s", strerror(errno));
	if (diff_track_fd(c, p[0]) < 0 || diff_track_fd(c, p[1]) < 0)
		return -1;
	return 0;
}

/* val[0]: "data", len bytes of pattern seed 1, open with oflags */
int diff_data_file(struct diff_ctx *c, size_t len, int oflags)
{
	char *p = malloc(len);

	if (!p)
		return diff_fail(c, "out of memory");
	diff_pattern(p, len, 1);
	c->val[0] = diff_file(c, "data", p, len, oflags);
	free(p);
	return c->val[0] < 0 ? -1 : 0;
}

/* "hello" into pipe A (val[1]) for a read waiting on it; an .after_submit */
int diff_feed_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	if (write(c->val[1], "hello", 5) != 5)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	return 0;
}

/* val[0..1]: pipe A (read, write); val[2..3]: pipe B */
int diff_setup_pipes(struct diff_ctx *c)
{
	int a[2], b[2];

	if (diff_pipe(c, a) || diff_pipe(c, b))
		return -1;
	c->val[0] = a[0];
	c->val[1] = a[1];
	c->val[2] = b[0];
	c->val[3] = b[1];
	return 0;
}

/* val[0]: "data" (8192 bytes, read-write); val[1], val[2]: a pipe */
int diff_setup_data_pipe(struct diff_ctx *c)
{
	int p[2];

	if (diff_data_file(c, 8192, O_RDWR) || diff_pipe(c, p))
		return -1;
	c->val[1] = p[0];
	c->val[2] = p[1];
	return 0;
}

/*
 * val[0]: "data" (8192 bytes, read-write); and "b" ("bb"), "lnk" ->
 * "data", directory "d": for the opcodes on paths
 */
int diff_setup_tree(struct diff_ctx *c)
{
	if (diff_data_file(c, 8192, O_RDWR) ||
	    diff_file(c, "b", "bb", 2, O_RDONLY) < 0)
		return -1;
	if (symlinkat("data", c->dirfd, "lnk") || mkdirat(c->dirfd, "d", 0755))
		return diff_fail(c, "symlink/mkdir: %s", strerror(errno));
	return 0;
}

/* bytes that differ with position and seed, so misplaced data shows */
void diff_pattern(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)('a' + (i * 7 + seed) % 26);
}

int diff_check_buf(struct diff_ctx *c, const void *got, const void *want,
		   size_t len, const char *what)
{
	const unsigned char *g = got, *w = want;
	size_t i;

	for (i = 0; i < len; i++)
		if (g[i] != w[i])
			return diff_fail(c, "%s: byte %zu is 0x%02x, expected 0x%02x",
					 what, i, g[i], w[i]);
	return 0;
}

/* the file name holds exactly data[0..len) */
int diff_check_file(struct diff_ctx *c, const char *name, const void *data,
		    size_t len)
{
	char *got = malloc(len + 1);
	ssize_t n;
	int fd, ret;

	if (!got)
		return diff_fail(c, "out of memory");
	fd = openat(c->dirfd, name, O_RDONLY);
	if (fd < 0) {
		free(got);
		return diff_fail(c, "open %s: %s", name, strerror(errno));
	}
	n = pread(fd, got, len + 1, 0);
	close(fd);
	if (n != (ssize_t)len) {
		free(got);
		return diff_fail(c, "%s holds %zd bytes, expected %zu", name,
				 n, len);
	}
	ret = diff_check_buf(c, got, data, len, name);
	free(got);
	return ret;
}

/* name exists (not following a last symlink) with type S_IF*, or 0: absent */
int diff_path_exists(struct diff_ctx *c, const char *name, mode_t type)
{
	struct stat st;

	if (fstatat(c->dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (!type && errno == ENOENT)
			return 0;
		return diff_fail(c, "stat %s: %s", name, strerror(errno));
	}
	if (!type)
		return diff_fail(c, "%s exists, expected it gone", name);
	if ((st.st_mode & S_IFMT) != type)
		return diff_fail(c, "%s has type 0%o, expected 0%o", name,
				 st.st_mode & S_IFMT, type);
	return 0;
}

/* c->ts[i] = ms milliseconds */
void diff_ts(struct diff_ctx *c, unsigned i, long long ms)
{
	c->ts[i].tv_sec = ms / 1000;
	c->ts[i].tv_nsec = (ms % 1000) * 1000000;
}

/* an fd number depends on what else the process has open: keep ">= 0" */
void diff_normalize_fd(struct diff_cqe *cqe)
{
	if (cqe->res >= 0)
		cqe->res = DIFF_RES_FD;
}

/* the first CQE with user_data ud, or NULL */
const struct diff_cqe *diff_find(const struct diff_cqe *cqe, unsigned nr,
				 __u64 ud)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (cqe[i].user_data == ud)
			return &cqe[i];
	return NULL;
}

/* record a value of a call case, compared between the runs by position */
void diff_put(struct diff_run *r, const char *what, long long value)
{
	if (r->nr_val == DIFF_MAX_VALS) {
		if (!r->msg[0])
			snprintf(r->msg, sizeof(r->msg), "more than %d values",
				 DIFF_MAX_VALS);
		return;
	}
	r->what[r->nr_val] = what;
	r->val[r->nr_val++] = value;
}
