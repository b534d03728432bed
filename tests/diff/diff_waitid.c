/* SPDX-License-Identifier: MIT */
/*
 * diff_waitid.c - IORING_OP_WAITID (ops/waitid.c) on children each run
 * forks: one that has exited (P_PID, P_PIDFD, P_ALL), one still running
 * that exits once the WAITID is armed (its pipe closed after the
 * submit), one stopped (WSTOPPED), WNOHANG with nothing ready, a NULL
 * and an unwritable infop (the child is reaped either way),
 * cancellation, and the errors: bad idtype, id, options, pidfd, no such
 * child, prep's fields. The siginfo is a note per field the kernel
 * writes (1000 + field; si_pid as "is the child"), over memory filled
 * with 0x5a first, so a field written that should not be shows (1010:
 * the first word past them).
 */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "harness.h"

#define OP_WAITID	50

static siginfo_t *si_buf(struct diff_ctx *c)
{
	return (siginfo_t *)(void *)c->buf[0];
}

/* a child: exits with 3 at once, or once its pipe is closed, or stops */
enum { CHILD_EXIT, CHILD_PIPE, CHILD_STOP };

static int child(struct diff_ctx *c, int how)
{
	int p[2] = { -1, -1 };
	pid_t pid;
	char b;

	if (how == CHILD_PIPE && pipe(p))
		return diff_fail(c, "pipe");
	pid = fork();
	if (pid < 0)
		return diff_fail(c, "fork");
	if (!pid) {
		if (how == CHILD_PIPE) {
			close(p[1]);
			while (read(p[0], &b, 1) > 0)
				;
		} else if (how == CHILD_STOP) {
			raise(SIGSTOP);
			pause();
		}
		_exit(3);
	}
	c->val[0] = pid;
	c->val[1] = -1;
	if (how == CHILD_PIPE) {
		close(p[0]);
		c->val[1] = p[1];
	}
	if (how != CHILD_PIPE) {
		siginfo_t si;

		/* exited or stopped before the ring looks, and still reported */
		if (waitid(P_PID, (id_t)pid, &si,
			   (how == CHILD_STOP ? WSTOPPED : WEXITED) | WNOWAIT))
			return diff_fail(c, "waitid WNOWAIT");
	}
	return 0;
}

/* the run's child, if it made one (val[0] > 0): gone, its pipe closed */
static void reap_child(struct diff_ctx *c)
{
	if (c->val[0] <= 0)
		return;
	if (c->val[1] >= 0)
		close(c->val[1]);
	kill(c->val[0], SIGKILL);
	waitpid(c->val[0], NULL, 0);
	c->val[0] = 0;
	c->val[1] = -1;
}

static struct io_uring_sqe *prep_waitid(struct io_uring *ring,
					struct diff_ctx *c, __u64 ud,
					int which, int id, unsigned options,
					void *infop)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_rw(OP_WAITID, sqe, id, NULL, (unsigned)which, 0);
	sqe->file_index = options;
	sqe->addr2 = (unsigned long)infop;
	diff_tag(sqe, ud, 0);
	memset(si_buf(c), 0x5a, sizeof(siginfo_t));
	return sqe;
}

static int note_si(struct diff_ctx *c, const struct diff_cqe *cqe,
		   unsigned nr)
{
	siginfo_t *si = si_buf(c);

	(void)cqe;
	(void)nr;
	diff_note(c, 1000, si->si_signo);
	diff_note(c, 1001, si->si_errno);
	diff_note(c, 1002, si->si_code);
	diff_note(c, 1003, si->si_pid == c->val[0] ? 1 :
		   si->si_pid ? 2 : 0);
	diff_note(c, 1004, si->si_uid == getuid());
	diff_note(c, 1005, si->si_status);
	diff_note(c, 1010, ((int *)(void *)si)[3]);
	diff_note(c, 1011, ((int *)(void *)si)[7]);
	return 0;
}

static void teardown(struct diff_ctx *c)
{
	reap_child(c);
}

static int fill_exited(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_EXIT))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED, si_buf(c));
	return 0;
}

static int fill_pidfd(struct io_uring *ring, struct diff_ctx *c)
{
	int pfd;

	if (child(c, CHILD_EXIT))
		return -1;
	pfd = (int)syscall(SYS_pidfd_open, c->val[0], 0);
	if (pfd < 0 || diff_track_fd(c, pfd) < 0)
		return diff_fail(c, "pidfd_open");
	prep_waitid(ring, c, 1, P_PIDFD, pfd, WEXITED, si_buf(c));
	return 0;
}

static int fill_all(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_EXIT))
		return -1;
	prep_waitid(ring, c, 1, P_ALL, 0, WEXITED, si_buf(c));
	return 0;
}

/* armed, then the child exits: the pipe closed after the submit */
static int fill_blocking(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_PIPE))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED, si_buf(c));
	return 0;
}

static int after_blocking(struct io_uring *ring, struct diff_ctx *c)
{
	(void)ring;
	close(c->val[1]);
	c->val[1] = -1;
	return 0;
}

static int fill_wnohang(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_PIPE))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED | WNOHANG, si_buf(c));
	return 0;
}

static int fill_stopped(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_STOP))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WSTOPPED, si_buf(c));
	return 0;
}

static int fill_null_infop(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_EXIT))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED, NULL);
	/* the child is gone: reaped */
	prep_waitid(ring, c, 2, P_PID, c->val[0], WEXITED | WNOHANG, NULL);
	return 0;
}

static int fill_bad_infop(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_EXIT))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED, (void *)8);
	prep_waitid(ring, c, 2, P_PID, c->val[0], WEXITED | WNOHANG, NULL);
	/* no child: the zeroed siginfo cannot be written either */
	prep_waitid(ring, c, 3, P_PID, c->val[0], WEXITED, (void *)8);
	/* a bad argument: nothing is written */
	prep_waitid(ring, c, 4, P_PID, 0, WEXITED, (void *)8);
	return 0;
}

static int fill_cancel_bad_infop(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_PIPE))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED, (void *)8);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* no child: a zeroed siginfo is written */
static int fill_echild(struct io_uring *ring, struct diff_ctx *c)
{
	prep_waitid(ring, c, 1, P_PID, 1, WEXITED, si_buf(c));
	return 0;
}

static int fill_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_PIPE))
		return -1;
	prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED, si_buf(c));
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* a LINK_TIMEOUT ends the wait: its result is its cancel's count (6.18) */
static int fill_link_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (child(c, CHILD_PIPE))
		return -1;
	diff_ts(c, 0, 20);
	sqe = prep_waitid(ring, c, 1, P_PID, c->val[0], WEXITED, si_buf(c));
	sqe->flags |= IOSQE_IO_LINK;
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, 0);
	return 0;
}

static int fill_errors(struct io_uring *ring, struct diff_ctx *c)
{
	if (child(c, CHILD_PIPE))
		return -1;
	prep_waitid(ring, c, 1, P_PID, 0, WEXITED, NULL);
	prep_waitid(ring, c, 2, 7, c->val[0], WEXITED, NULL);
	prep_waitid(ring, c, 3, P_PID, c->val[0], 0, NULL);
	prep_waitid(ring, c, 4, P_PID, c->val[0], WEXITED | 0x100000, NULL);
	prep_waitid(ring, c, 5, P_PIDFD, 1000, WEXITED, NULL);
	prep_waitid(ring, c, 6, P_PID, 1, WEXITED, NULL);
	prep_waitid(ring, c, 7, P_PIDFD, -1, WEXITED, NULL);
	prep_waitid(ring, c, 8, P_PGID, -1, WEXITED, NULL);
	return 0;
}

static int fill_prep(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = prep_waitid(ring, c, 1, P_ALL, 0, WEXITED, NULL);
	sqe->addr = 1;
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int fill_prep_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = prep_waitid(ring, c, 1, P_ALL, 0, WEXITED, NULL);
	sqe->rw_flags = 1;
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

#define WAITID_SCENARIO(nm, fn, n, ...)					\
	{ .name = nm, .fill = fn, .nr_cqes = n, .order = ORDER_ANY,	\
	  .teardown = teardown, __VA_ARGS__ }

const struct scenario diff_waitid[] = {
	WAITID_SCENARIO("waitid_exited", fill_exited, 1, .check = note_si,
			.known = { { 1, 0 } }),
	WAITID_SCENARIO("waitid_pidfd", fill_pidfd, 1, .check = note_si,
			.known = { { 1, 0 } }),
	WAITID_SCENARIO("waitid_all", fill_all, 1, .check = note_si,
			.known = { { 1, 0 } }),
	WAITID_SCENARIO("waitid_blocking", fill_blocking, 1, .check = note_si,
			.after_submit = after_blocking,
			.known = { { 1, 0 } }),
	WAITID_SCENARIO("waitid_wnohang", fill_wnohang, 1, .check = note_si,
			.known = { { 1, 0 } }),
	WAITID_SCENARIO("waitid_stopped", fill_stopped, 1, .check = note_si,
			.known = { { 1, 0 } }),
	WAITID_SCENARIO("waitid_null_infop", fill_null_infop, 2,
			.known = { { 1, 0 }, { 2, -ECHILD } }),
	WAITID_SCENARIO("waitid_bad_infop", fill_bad_infop, 4,
			.known = { { 1, -EFAULT }, { 2, -ECHILD },
				   { 4, -EINVAL } }),
	WAITID_SCENARIO("waitid_cancel_bad_infop", fill_cancel_bad_infop, 2,
			.known = { { 2, 1 } }),
	WAITID_SCENARIO("waitid_echild", fill_echild, 1, .check = note_si,
			.known = { { 1, -ECHILD } }),
	WAITID_SCENARIO("waitid_cancel", fill_cancel, 2, .check = note_si,
			.known = { { 1, -ECANCELED }, { 2, 1 } }),
	WAITID_SCENARIO("waitid_link_timeout", fill_link_timeout, 2,
			.known = { { 1, -ECANCELED }, { 2, 1 } }),
	WAITID_SCENARIO("waitid_errors", fill_errors, 8,
			.known = { { 1, -EINVAL }, { 2, -EINVAL },
				   { 3, -EINVAL }, { 6, -ECHILD } }),
	WAITID_SCENARIO("waitid_prep_addr", fill_prep, 1,
			.known = { { 1, -EINVAL } }),
	WAITID_SCENARIO("waitid_prep_flags", fill_prep_flags, 1,
			.known = { { 1, -EINVAL } }),
	{ .name = NULL },
};
