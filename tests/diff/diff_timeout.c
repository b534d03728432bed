/* SPDX-License-Identifier: MIT */
/*
 * diff_timeout.c - the timeouts of timeout.c: IORING_OP_TIMEOUT
 * (relative, absolute on CLOCK_MONOTONIC, CLOCK_REALTIME and
 * CLOCK_BOOTTIME, equal deadlines, count based: alone and several at
 * once, a timeout's own CQE never counting; ETIME_SUCCESS, also with a
 * count; timespecs at the edge and bad arguments), TIMEOUT_REMOVE (of a
 * count-based or an already fired timeout, bad flags) and its update form
 * (relative, absolute, of a count-based timeout, of a link timeout with
 * IORING_LINK_TIMEOUT_UPDATE, mismatched kinds), and LINK_TIMEOUT:
 * guarding a read on an empty pipe (firing, or cancelled because the read
 * completed), on a NOP, a timer, a middle member, with an absolute
 * deadline, due at once on a bad file, or malformed. Timeouts are 10-30
 * ms so the whole family runs in about a second.
 *
 * Count-based timeouts complete once the CQEs they wait for are posted;
 * how the kernel batches the posting decides the exact interleaving, so
 * those compare as multisets with the order that is guaranteed.
 */
#include <time.h>
#include <unistd.h>
#include "harness.h"

#define LONG_MS		3000	/* never meant to fire */

static int fill_fires(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	return 0;
}

/* fire in the order of their expiry, not of submission */
static int fill_expiry_order(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 30);
	diff_ts(c, 1, 10);
	diff_ts(c, 2, 20);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	diff_prep_timeout(ring, c, 2, 1, 0, 0, 0);
	diff_prep_timeout(ring, c, 3, 2, 0, 0, 0);
	return 0;
}

/* a deadline a second in the past on CLOCK_MONOTONIC */
static int fill_abs_past(struct io_uring *ring, struct diff_ctx *c)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	c->ts[0].tv_sec = now.tv_sec - 1;
	c->ts[0].tv_nsec = now.tv_nsec;
	diff_prep_timeout(ring, c, 1, 0, 0, IORING_TIMEOUT_ABS, 0);
	return 0;
}

/* count 2: the two NOPs satisfy it long before it expires */
static int fill_count(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 2, 0, 0);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* count 3 with one NOP: expires */
static int fill_count_short(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 3, 0, 0);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

/* the kernel posts the removed timeout's CQE after the remove's */
static int fill_remove(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 1, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 99, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

/* 1 is pushed from 3 s to 10 ms; updating a missing one fails */
static int fill_update(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, LONG_MS);
	diff_ts(c, 1, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_update(sqe, &c->ts[1], 1, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_update(sqe, &c->ts[1], 99, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

/* the expiry fails the link unless IORING_TIMEOUT_ETIME_SUCCESS */
static int fill_etime_link(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_timeout(ring, c, 3, 0, 0, IORING_TIMEOUT_ETIME_SUCCESS,
			  IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/*
 * len must be 1; unknown flags; two clocks at once. The kernel refuses
 * each while reading the SQE, which ends the submit: one per submit.
 */
static int fill_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 10);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	sqe->len = 2;
	diff_tag(sqe, 1, 0);
	diff_prep_timeout(ring, c, 2, 0, 0, 1U << 7, 0);
	diff_prep_timeout(ring, c, 3, 0, 0, IORING_TIMEOUT_BOOTTIME |
			  IORING_TIMEOUT_REALTIME, 0);
	return 0;
}

/* val[0], val[1]: an empty pipe; read 1 guarded by link timeout 2 */
static int fill_guarded_read(struct io_uring *ring, struct diff_ctx *c,
			     long long ms, unsigned lt_flags)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	c->val[0] = p[0];
	c->val[1] = p[1];
	diff_ts(c, 0, ms);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, p[0], c->buf[0], 64, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, lt_flags);
	return 0;
}

static int fill_lt_fires(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_guarded_read(ring, c, 10, 0);
}

static int fill_lt_idle(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_guarded_read(ring, c, LONG_MS, 0);
}

/* data already there: the read completes at once */
static int fill_lt_ready(struct io_uring *ring, struct diff_ctx *c)
{
	if (fill_guarded_read(ring, c, LONG_MS, 0))
		return -1;
	return diff_feed_pipe(ring, c);
}

/* the link timeout is itself linked on: what follows is cancelled too */
static int fill_lt_chain(struct io_uring *ring, struct diff_ctx *c)
{
	if (fill_guarded_read(ring, c, 10, IOSQE_IO_LINK))
		return -1;
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* a LINK_TIMEOUT that follows no linked request */
static int fill_lt_alone(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 10);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 1, 0);
	return 0;
}

/*
 * A request whose file is not there (a closed fd, or an empty slot), a
 * LINK_TIMEOUT already due behind it, a NOP after that: the kernel looks
 * the file up before it arms the timer, so the request fails -EBADF and
 * the link timeout and the NOP are cancelled, inline or from io-wq.
 */
static int fill_lt_due_bad_file(struct io_uring *ring, struct diff_ctx *c,
				int op, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	if (flags & IOSQE_FIXED_FILE) {
		int ret = io_uring_register_files_sparse(ring, 2);

		if (ret)
			return diff_fail(c, "register files: %s",
					 strerror(-ret));
	}
	if (op == IORING_OP_FSYNC)
		io_uring_prep_fsync(sqe, -1, 0);
	else
		io_uring_prep_read(sqe, flags & IOSQE_FIXED_FILE ? 1 : 9999,
				   c->buf[0], 64, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK | flags);
	diff_ts(c, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_lt_due_closed_fd(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_lt_due_bad_file(ring, c, IORING_OP_READ, 0);
}

static int fill_lt_due_closed_fd_async(struct io_uring *ring,
				       struct diff_ctx *c)
{
	return fill_lt_due_bad_file(ring, c, IORING_OP_FSYNC, IOSQE_ASYNC);
}

static int fill_lt_due_empty_slot(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_lt_due_bad_file(ring, c, IORING_OP_READ, IOSQE_FIXED_FILE);
}

/* ---- counts, clocks, removal, updates, link timeouts elsewhere ---- */

static void update(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		   unsigned ts, __u64 target, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_timeout_update(sqe, &c->ts[ts], target, 0);
	sqe->timeout_flags = flags;
	diff_tag(sqe, ud, 0);
}

/* c->ts[i] = now + ms on clock */
static void abs_ts(struct diff_ctx *c, unsigned i, clockid_t clock,
		   long long ms)
{
	struct timespec now;
	long long ns;

	clock_gettime(clock, &now);
	ns = now.tv_sec * 1000000000LL + now.tv_nsec + ms * 1000000LL;
	c->ts[i].tv_sec = ns / 1000000000LL;
	c->ts[i].tv_nsec = ns % 1000000000LL;
}

/* val[0], val[1]: an empty pipe; 1 reads it */
static int pipe_read(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		     unsigned flags)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	c->val[0] = p[0];
	c->val[1] = p[1];
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, p[0], c->buf[0], 64, 0);
	diff_tag(sqe, ud, flags);
	return 0;
}

static struct io_uring_sqe *link_tmo(struct io_uring *ring,
				     struct diff_ctx *c, __u64 ud,
				     unsigned ts, unsigned flags,
				     unsigned sqe_flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_link_timeout(sqe, &c->ts[ts], flags);
	diff_tag(sqe, ud, sqe_flags);
	return sqe;
}

/* counts 1, 2 and 3, then three NOPs */
static int fill_counts(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 1, 0, 0);
	diff_prep_timeout(ring, c, 2, 0, 2, 0, 0);
	diff_prep_timeout(ring, c, 3, 0, 3, 0, 0);
	diff_prep_nop(ring, c, 4, 0);
	diff_prep_nop(ring, c, 5, 0);
	diff_prep_nop(ring, c, 6, 0);
	return 0;
}

/* the NOPs one submit at a time: each satisfies one more count */
static int fill_counts_stepwise(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 1, 0, 0);
	diff_prep_timeout(ring, c, 2, 0, 2, 0, 0);
	return 0;
}

static int step_nops(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 3; i <= 4; i++) {
		diff_prep_nop(ring, c, i, 0);
		if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
			return -1;
	}
	return 0;
}

/* two timeouts waiting for the same count */
static int fill_count_equal(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 2, 0, 0);
	diff_prep_timeout(ring, c, 2, 0, 2, 0, 0);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* 1 fires at 10 ms; its CQE does not satisfy 2's count: 2 expires too */
static int fill_timeouts_dont_count(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_ts(c, 1, 30);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	diff_prep_timeout(ring, c, 2, 1, 1, 0, 0);
	return 0;
}

static int fill_abs_clock(struct io_uring *ring, struct diff_ctx *c,
			  clockid_t clock, unsigned flag, long long ms)
{
	abs_ts(c, 0, clock, ms);
	diff_prep_timeout(ring, c, 1, 0, 0, IORING_TIMEOUT_ABS | flag, 0);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int fill_abs_realtime(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_abs_clock(ring, c, CLOCK_REALTIME, IORING_TIMEOUT_REALTIME,
			      20);
}

static int fill_abs_boottime(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_abs_clock(ring, c, CLOCK_BOOTTIME, IORING_TIMEOUT_BOOTTIME,
			      20);
}

static int fill_abs_monotonic(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_abs_clock(ring, c, CLOCK_MONOTONIC, 0, 20);
}

static int fill_abs_realtime_past(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_abs_clock(ring, c, CLOCK_REALTIME, IORING_TIMEOUT_REALTIME,
			      -1000);
}

/* a relative timeout with a clock flag: the clock is the only change */
static int fill_rel_boottime(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, IORING_TIMEOUT_BOOTTIME, 0);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int fill_same_deadline(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	diff_prep_timeout(ring, c, 2, 0, 0, 0, 0);
	diff_prep_timeout(ring, c, 3, 0, 0, 0, 0);
	return 0;
}

static int fill_remove_count(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 5, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 1, 0);
	diff_tag(sqe, 2, 0);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_fires_10ms(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	return 0;
}

/* 1 has fired and been reaped: removing or updating it finds nothing */
static int remove_fired(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (diff_reap(ring, c, 1))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 1, 0);
	diff_tag(sqe, 2, 0);
	update(ring, c, 3, 0, 1, IORING_TIMEOUT_UPDATE);
	return 0;
}

/* pushed from 3 s to a deadline a second in the past */
static int fill_update_abs(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	abs_ts(c, 1, CLOCK_MONOTONIC, -1000);
	update(ring, c, 2, 1, 1, IORING_TIMEOUT_UPDATE | IORING_TIMEOUT_ABS);
	return 0;
}

/*
 * A count-based timeout (count 2, 3 s) updated to 10 ms: the update's and
 * the NOP's CQEs would meet the count, but the kernel turns an updated
 * timeout into a pure timer.
 */
static int fill_update_count(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_ts(c, 1, 10);
	diff_prep_timeout(ring, c, 1, 0, 2, 0, 0);
	update(ring, c, 2, 1, 1, IORING_TIMEOUT_UPDATE);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/*
 * read 1 under link timeout 2, shortened to 10 ms afterwards by an update
 * of the kind liburing's io_uring_prep_timeout_update(...,
 * IORING_LINK_TIMEOUT_UPDATE) makes: both UPDATE flags set.
 */
static int fill_lt_update(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	if (pipe_read(ring, c, 1, IOSQE_IO_LINK))
		return -1;
	link_tmo(ring, c, 2, 0, 0, 0);
	return 0;
}

static int lt_update(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 1, 10);
	update(ring, c, 3, 1, 2, IORING_TIMEOUT_UPDATE |
	       IORING_LINK_TIMEOUT_UPDATE);
	return 0;
}

/* the same with a 200 ms link timeout and IORING_LINK_TIMEOUT_UPDATE alone */
static int fill_lt_update_alone(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 200);
	if (pipe_read(ring, c, 1, IOSQE_IO_LINK))
		return -1;
	link_tmo(ring, c, 2, 0, 0, 0);
	return 0;
}

static int lt_update_alone(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 1, 10);
	update(ring, c, 3, 1, 2, IORING_LINK_TIMEOUT_UPDATE);
	return 0;
}

/*
 * IORING_LINK_TIMEOUT_UPDATE without IORING_TIMEOUT_UPDATE aimed at a
 * plain timeout: the kernel takes an SQE without TIMEOUT_UPDATE for a
 * remove.
 */
static int fill_lt_flag_alone_on_timeout(struct io_uring *ring,
					 struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	update(ring, c, 2, 0, 1, IORING_LINK_TIMEOUT_UPDATE);
	return 0;
}

/* the wrong kind: a link timeout update of a timeout and vice versa */
static int fill_update_kinds(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, 0);
	if (pipe_read(ring, c, 2, IOSQE_IO_LINK))
		return -1;
	link_tmo(ring, c, 3, 0, 0, 0);
	update(ring, c, 4, 0, 1, IORING_TIMEOUT_UPDATE |
	       IORING_LINK_TIMEOUT_UPDATE);
	update(ring, c, 5, 0, 3, IORING_TIMEOUT_UPDATE);
	update(ring, c, 6, 0, 99, IORING_TIMEOUT_UPDATE |
	       IORING_LINK_TIMEOUT_UPDATE);
	return 0;
}

/*
 * Refused while reading the SQE, one per submit: an update naming a
 * clock, unknown remove flags, an update naming two clocks, a remove
 * with ABS.
 */
static int fill_remove_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 10);
	update(ring, c, 1, 0, 9, IORING_TIMEOUT_UPDATE |
	       IORING_TIMEOUT_BOOTTIME);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 9, 1U << 6);
	diff_tag(sqe, 2, 0);
	update(ring, c, 3, 0, 9, IORING_TIMEOUT_UPDATE |
	       IORING_TIMEOUT_CLOCK_MASK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout_remove(sqe, 9, IORING_TIMEOUT_ABS);
	diff_tag(sqe, 4, 0);
	return 0;
}

/*
 * Timespecs at the edge: 1: tv_nsec of exactly one second; 2: negative
 * tv_sec; 3: negative tv_nsec; 4: no timespec at all. 1 has count 1 so
 * that, if accepted, the NOP completes it at once.
 */
static int fill_bad_ts(struct io_uring *ring, struct diff_ctx *c)
{
	c->ts[0].tv_sec = 0;
	c->ts[0].tv_nsec = 1000000000LL;
	c->ts[1].tv_sec = -1;
	c->ts[1].tv_nsec = 0;
	c->ts[2].tv_sec = 0;
	c->ts[2].tv_nsec = -1;
	diff_prep_timeout(ring, c, 1, 0, 1, 0, 0);
	diff_prep_timeout(ring, c, 2, 1, 1, 0, 0);
	diff_prep_timeout(ring, c, 3, 2, 1, 0, 0);
	diff_prep_timeout(ring, c, 4, 0, 1, 0, 0)->addr = 0;
	diff_prep_nop(ring, c, 5, 0);
	return 0;
}

/* count 2 not reached, ETIME_SUCCESS: the expiry does not break the link */
static int fill_etime_success_count(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_timeout(ring, c, 1, 0, 2, IORING_TIMEOUT_ETIME_SUCCESS,
			  IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

/* the NOP completes at once: its link timeout is cancelled */
static int fill_lt_nop(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	link_tmo(ring, c, 2, 0, 0, 0);
	return 0;
}

/* a count on a link timeout; a link timeout guarding a link timeout */
static int fill_lt_bad(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	link_tmo(ring, c, 2, 0, 0, 0)->off = 1;
	return 0;
}

static int fill_lt_on_lt(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	if (pipe_read(ring, c, 1, IOSQE_IO_LINK))
		return -1;
	link_tmo(ring, c, 2, 0, 0, IOSQE_IO_LINK);
	link_tmo(ring, c, 3, 0, 0, 0);
	return 0;
}

static int fill_lt_abs_realtime(struct io_uring *ring, struct diff_ctx *c)
{
	abs_ts(c, 0, CLOCK_REALTIME, 10);
	if (pipe_read(ring, c, 1, IOSQE_IO_LINK))
		return -1;
	link_tmo(ring, c, 2, 0, IORING_TIMEOUT_ABS | IORING_TIMEOUT_REALTIME,
		 0);
	return 0;
}

/* nop, then the read guarded by 3: armed when the read is issued */
static int fill_lt_middle(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	if (pipe_read(ring, c, 2, IOSQE_IO_LINK))
		return -1;
	link_tmo(ring, c, 3, 0, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* a link timeout guarding a 3 s timeout */
static int fill_lt_on_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, LONG_MS);
	diff_ts(c, 1, 10);
	diff_prep_timeout(ring, c, 1, 0, 0, 0, IOSQE_IO_LINK);
	link_tmo(ring, c, 2, 1, 0, 0);
	return 0;
}

/* ETIME_SUCCESS on a link timeout: it still cancels what it guards */
static int fill_lt_etime_success(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	if (pipe_read(ring, c, 1, IOSQE_IO_LINK))
		return -1;
	link_tmo(ring, c, 2, 0, IORING_TIMEOUT_ETIME_SUCCESS, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

const struct scenario diff_timeout[] = {
	{
		.name = "timeout_fires",
		.fill = fill_fires,
		.nr_cqes = 1,
		.known = { { 1, -ETIME } },
	}, {
		.name = "timeout_expiry_order",
		.fill = fill_expiry_order,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 3 }, { 3, 1 } },
		.known = { { 1, -ETIME }, { 2, -ETIME }, { 3, -ETIME } },
	}, {
		.name = "timeout_abs_in_the_past",
		.fill = fill_abs_past,
		.nr_cqes = 1,
		.known = { { 1, -ETIME } },
	}, {
		.name = "timeout_count_satisfied",
		.fill = fill_count,
		.nr_cqes = 3,
		.known = { { 1, 0 } },
	}, {
		.name = "timeout_count_not_reached",
		.fill = fill_count_short,
		.nr_cqes = 2,
		.known = { { 1, -ETIME } },
	}, {
		.name = "timeout_remove",
		.fill = fill_remove,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 1 } },
		.known = { { 1, -ECANCELED }, { 2, 0 }, { 3, -ENOENT } },
	}, {
		.name = "timeout_update",
		.fill = fill_update,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 1 } },
		.known = { { 1, -ETIME }, { 2, 0 }, { 3, -ENOENT } },
	}, {
		.name = "timeout_etime_success_in_link",
		.fill = fill_etime_link,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 3, 4 } },
		.known = { { 2, -ECANCELED }, { 3, -ETIME }, { 4, 0 } },
	}, {
		.name = "timeout_bad_arguments",
		.fill = fill_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.known = { { 1, -EINVAL }, { 2, -EINVAL }, { 3, -EINVAL } },
	}, {
		.name = "link_timeout_fires",
		.fill = fill_lt_fires,
		.nr_cqes = 2,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "link_timeout_read_completes",
		.fill = fill_lt_idle,
		.after_submit = diff_feed_pipe,
		.nr_cqes = 2,
		.known = { { 1, 5 }, { 2, -ECANCELED } },
	}, {
		.name = "link_timeout_read_ready_at_submit",
		.fill = fill_lt_ready,
		.nr_cqes = 2,
		.known = { { 1, 5 } },
	}, {
		.name = "link_timeout_chained_on",
		.fill = fill_lt_chain,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 3 } },
		.known = { { 1, -ECANCELED }, { 2, -ETIME },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_due_closed_fd",
		.fill = fill_lt_due_closed_fd,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_due_closed_fd_async",
		.fill = fill_lt_due_closed_fd_async,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_due_empty_slot",
		.fill = fill_lt_due_empty_slot,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "link_timeout_without_head",
		.fill = fill_lt_alone,
		.nr_cqes = 1,
		.known = { { 1, -EINVAL } },
	}, {
		.name = "tmo_counts_1_2_3",
		.fill = fill_counts,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.before = { { 4, 1 }, { 5, 2 }, { 6, 3 }, { 1, 2 },
			    { 2, 3 } },
		.known = { { 1, 0 }, { 2, 0 }, { 3, 0 } },
	}, {
		.name = "tmo_counts_stepwise",
		.fill = fill_counts_stepwise,
		.after_submit = step_nops,
		.nr_cqes = 4,
		.known = { { 1, 0 }, { 2, 0 } },
	}, {
		.name = "tmo_count_equal",
		.fill = fill_count_equal,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 4, 1 }, { 4, 2 } },
		.known = { { 1, 0 }, { 2, 0 } },
	}, {
		.name = "tmo_timeouts_do_not_count",
		.fill = fill_timeouts_dont_count,
		.nr_cqes = 2,
		.known = { { 1, -ETIME }, { 2, -ETIME } },
	}, {
		.name = "tmo_abs_realtime",
		.fill = fill_abs_realtime,
		.nr_cqes = 2,
		.known = { { 1, -ETIME }, { 2, 0 } },
	}, {
		.name = "tmo_abs_boottime",
		.fill = fill_abs_boottime,
		.nr_cqes = 2,
		.known = { { 1, -ETIME }, { 2, 0 } },
	}, {
		.name = "tmo_abs_monotonic_future",
		.fill = fill_abs_monotonic,
		.nr_cqes = 2,
		.known = { { 1, -ETIME }, { 2, 0 } },
	}, {
		.name = "tmo_abs_realtime_past",
		.fill = fill_abs_realtime_past,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ETIME } },
	}, {
		.name = "tmo_relative_boottime",
		.fill = fill_rel_boottime,
		.nr_cqes = 2,
		.known = { { 1, -ETIME }, { 2, 0 } },
	}, {
		.name = "tmo_same_deadline",
		.fill = fill_same_deadline,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -ETIME }, { 2, -ETIME }, { 3, -ETIME } },
	}, {
		.name = "tmo_remove_count_based",
		.fill = fill_remove_count,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 1 } },
		.known = { { 1, -ECANCELED }, { 2, 0 }, { 3, 0 } },
	}, {
		.name = "tmo_remove_after_it_fired",
		.fill = fill_fires_10ms,
		.after_submit = remove_fired,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -ETIME }, { 2, -ENOENT }, { 3, -ENOENT } },
	}, {
		.name = "tmo_update_to_abs_past",
		.fill = fill_update_abs,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.before = { { 2, 1 } },
		.known = { { 1, -ETIME }, { 2, 0 } },
	}, {
		.name = "tmo_update_of_count_based",
		.fill = fill_update_count,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 1 } },
		.known = { { 1, -ETIME } },
	}, {
		.name = "tmo_link_timeout_update",
		.fill = fill_lt_update,
		.after_submit = lt_update,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 3, 2 } },
		.known = { { 1, -ECANCELED }, { 2, -ETIME }, { 3, 0 } },
	}, {
		.name = "tmo_link_timeout_update_flag_alone",
		.fill = fill_lt_update_alone,
		.after_submit = lt_update_alone,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "tmo_link_update_flag_alone_on_timeout",
		.fill = fill_lt_flag_alone_on_timeout,
		.nr_cqes = 2,
		.order = ORDER_ANY,
	}, {
		.name = "tmo_update_wrong_kind",
		.fill = fill_update_kinds,
		.after_submit = diff_submit_rest,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 1, -ETIME }, { 4, -ENOENT }, { 5, -ENOENT },
			   { 6, -ENOENT } },
	}, {
		.name = "tmo_remove_bad_flags",
		.fill = fill_remove_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 4,
		.known = { { 2, -EINVAL }, { 3, -EINVAL }, { 4, -EINVAL } },
	}, {
		.name = "tmo_timespec_edges",
		.fill = fill_bad_ts,
		.after_submit = diff_submit_rest,
		.nr_cqes = 5,
		.order = ORDER_ANY,
	}, {
		.name = "tmo_etime_success_with_count",
		.fill = fill_etime_success_count,
		.nr_cqes = 2,
		.known = { { 1, -ETIME }, { 2, 0 } },
	}, {
		.name = "link_timeout_on_nop",
		.fill = fill_lt_nop,
		.nr_cqes = 2,
		.known = { { 1, 0 }, { 2, -ECANCELED } },
	}, {
		.name = "link_timeout_with_count",
		.fill = fill_lt_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
	}, {
		.name = "link_timeout_on_link_timeout",
		.fill = fill_lt_on_lt,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.order = ORDER_ANY,
	}, {
		.name = "link_timeout_abs_realtime",
		.fill = fill_lt_abs_realtime,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "link_timeout_middle_of_chain",
		.fill = fill_lt_middle,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 4 } },
		.known = { { 1, 0 }, { 2, -ECANCELED }, { 3, -ETIME },
			   { 4, -ECANCELED } },
	}, {
		.name = "link_timeout_on_timeout",
		.fill = fill_lt_on_timeout,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ETIME } },
	}, {
		.name = "link_timeout_etime_success",
		.fill = fill_lt_etime_success,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 3 } },
	},
	{ .name = NULL }
};
