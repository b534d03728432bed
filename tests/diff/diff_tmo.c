/* SPDX-License-Identifier: MIT */
/*
 * diff_tmo.c - more timeouts: several count-based ones at once (a
 * timeout's own CQE never counts), absolute deadlines on CLOCK_REALTIME
 * and CLOCK_BOOTTIME, equal deadlines, removing a count-based or an
 * already fired timeout, updates (relative, absolute, of a link timeout
 * with IORING_LINK_TIMEOUT_UPDATE, mismatched kinds), timespecs at the
 * edge, ETIME_SUCCESS with a count, and LINK_TIMEOUT on a NOP, a timer,
 * a middle member, with an absolute deadline, or malformed.
 *
 * Count-based timeouts complete once the CQEs they wait for are posted;
 * how the kernel batches the posting decides the exact interleaving, so
 * those compare as multisets with the order that is guaranteed.
 */
#include <time.h>
#include <unistd.h>
#include "harness.h"

#define LONG_MS		3000	/* never meant to fire */

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

const struct scenario diff_tmo[] = {
	{
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
