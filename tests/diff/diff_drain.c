/* SPDX-License-Identifier: MIT */
/*
 * diff_drain.c - IOSQE_IO_DRAIN (drain.c): a drain waiting for a timeout
 * and for IOSQE_ASYNC NOPs before it, a drained chain; several drains in
 * one submit, the flag on a middle member of a chain (it drains the
 * chain), drains behind timers, count-based timeouts, a pipe read, a
 * failed chain, drains across submits, and a drain after
 * CQE_SKIP_SUCCESS was used on the ring (refused with -EOPNOTSUPP from
 * then on). Drains fix the order, so most of these compare exactly.
 */
#include <unistd.h>
#include "harness.h"

/* the drained NOP waits for the 20 ms timeout before it; so does 3 */
static int fill_drain_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 20);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	diff_tag(sqe, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_drain_nops(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 3, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* a drained chain: starts after 1, its members in order */
static int fill_drain_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN | IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* ---- several drains, drains in chains and behind timeouts ---- */

static void timeout(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		    unsigned ts, unsigned count, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_timeout(sqe, &c->ts[ts], count, 0);
	diff_tag(sqe, ud, flags);
}

static int fill_several(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 5, 0);
	diff_prep_nop(ring, c, 6, IOSQE_IO_DRAIN);
	return 0;
}

/* the DRAIN is on 3, the chain's second member: 2..4 wait for 1 */
static int fill_in_link(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	timeout(ring, c, 1, 0, 0, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, IOSQE_IO_LINK | IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* the drain waits for both timers */
static int fill_after_timeouts(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 20);
	diff_ts(c, 1, 10);
	timeout(ring, c, 1, 0, 0, 0);
	timeout(ring, c, 2, 1, 0, 0);
	diff_prep_nop(ring, c, 3, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* 2 satisfies the count of 1, then the drained 3 may go */
static int fill_after_count(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 3000);
	timeout(ring, c, 1, 0, 1, 0);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, IOSQE_IO_DRAIN);
	return 0;
}

/*
 * Count 6 met by the six NOPs submitted with it, a drain behind them: the
 * drain must not hold back what was submitted before it.
 */
static int fill_after_count6(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	diff_ts(c, 0, 1000);
	timeout(ring, c, 1, 0, 6, 0);
	for (i = 2; i <= 7; i++)
		diff_prep_nop(ring, c, i, 0);
	diff_prep_nop(ring, c, 8, IOSQE_IO_DRAIN);
	return 0;
}

/* a count that is never reached: the drain waits for the expiry */
static int fill_after_count_expiry(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	timeout(ring, c, 1, 0, 5, 0);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* once CQE_SKIP_SUCCESS was seen, a drain is refused at submit */
static int fill_after_skip(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_CQE_SKIP_SUCCESS);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* the drain is the ring's first request */
static int fill_first(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* val[0], val[1]: an empty pipe; the drain waits for the read on it */
static int fill_after_pipe_read(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	c->val[0] = p[0];
	c->val[1] = p[1];
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, p[0], c->buf[0], 64, 0);
	diff_tag(sqe, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* a chain failing in its middle, then a drain */
static int fill_after_failed_chain(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK | IOSQE_ASYNC);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, -1, c->buf[0], 64, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, IOSQE_IO_DRAIN);
	return 0;
}

static int fill_across_1(struct io_uring *ring, struct diff_ctx *c)
{
	diff_ts(c, 0, 10);
	timeout(ring, c, 1, 0, 0, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	return 0;
}

/* the second submit's requests queue up behind the first's drain */
static int fill_across_2(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 5, 0);
	return 0;
}

/* a drained chain whose head fails: the drain still completes in order */
static int fill_drained_chain_fails(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_nop(ring, c, 1, IOSQE_ASYNC);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, -1, c->buf[0], 64, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK | IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

const struct scenario diff_drain[] = {
	{
		.name = "drain_waits_for_timeout",
		.fill = fill_drain_timeout,
		.nr_cqes = 3,
		.known = { { 1, -ETIME } },
	}, {
		.name = "drain_after_async",
		.fill = fill_drain_nops,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 3 }, { 2, 3 }, { 3, 4 } },
	}, {
		.name = "drain_chain",
		.fill = fill_drain_chain,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
	}, {
		.name = "drain_several",
		.fill = fill_several,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 5 },
			    { 5, 6 } },
	}, {
		.name = "drain_on_middle_of_chain",
		.fill = fill_in_link,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
		.known = { { 1, -ETIME } },
	}, {
		.name = "drain_after_two_timeouts",
		.fill = fill_after_timeouts,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 2, 1 }, { 1, 3 }, { 3, 4 } },
		.known = { { 1, -ETIME }, { 2, -ETIME } },
	}, {
		.name = "drain_after_count_timeout",
		.fill = fill_after_count,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 2, 1 }, { 1, 3 } },
		.known = { { 1, 0 } },
	}, {
		.name = "drain_after_count6_timeout",
		.fill = fill_after_count6,
		.nr_cqes = 8,
		.order = ORDER_ANY,
		.before = { { 7, 1 }, { 1, 8 } },
		.known = { { 1, 0 }, { 8, 0 } },
	}, {
		.name = "drain_after_count_timeout_expiry",
		.fill = fill_after_count_expiry,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 2, 1 }, { 1, 3 }, { 3, 4 } },
		.known = { { 1, -ETIME } },
	}, {
		.name = "drain_after_skip_success",
		.fill = fill_after_skip,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		.order = ORDER_ANY,
	}, {
		.name = "drain_first_request",
		.fill = fill_first,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 1, 3 } },
	}, {
		.name = "drain_after_pipe_read",
		.fill = fill_after_pipe_read,
		.after_submit = diff_feed_pipe,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
		.known = { { 1, 5 } },
	}, {
		.name = "drain_after_failed_chain",
		.fill = fill_after_failed_chain,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
		.known = { { 2, -EBADF }, { 3, -ECANCELED } },
	}, {
		.name = "drain_across_submits",
		.fill = fill_across_1,
		.after_submit = fill_across_2,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 5 } },
	}, {
		.name = "drain_chain_head_fails",
		.fill = fill_drained_chain_fails,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 } },
		.known = { { 2, -EBADF }, { 3, -ECANCELED } },
	},
	{ .name = NULL }
};
