/* SPDX-License-Identifier: MIT */
/*
 * diff_complete.c - complete.c's overflow list: the CQ overflowing (SQ 2,
 * CQ 4 unless said) and its flush: reaped in rounds with IORING_SQ_CQ_OVERFLOW and the CQ's fill
 * level noted between them, chains and failures overflowing, CQEs
 * skipped with CQE_SKIP_SUCCESS, a count-based timeout (it only counts
 * CQEs that reached the ring), resource tag CQEs, and overflow on
 * DEFER_TASKRUN and SQPOLL rings. No CQE may be lost (IORING_FEAT_NODROP)
 * and the order must hold: most compare exactly.
 */
#include <fcntl.h>
#include <poll.h>
#include "harness.h"

#define NOTE	1000

/* the overflow flag, the CQ's fill level, the dropped counter */
static void note_cq(struct io_uring *ring, struct diff_ctx *c)
{
	diff_note(c, NOTE + c->nr_note, io_uring_cq_has_overflow(ring));
	diff_note(c, NOTE + c->nr_note, (int)io_uring_cq_ready(ring));
	diff_note(c, NOTE + c->nr_note,
		  (int)IO_URING_READ_ONCE(*ring->cq.koverflow));
}

static int fill_nops(struct io_uring *ring, struct diff_ctx *c,
		     unsigned first, unsigned n, unsigned flags)
{
	unsigned i;

	for (i = first; i < first + n; i++)
		diff_prep_nop(ring, c, i, flags);
	return 0;
}

static int fill_12(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_nops(ring, c, 1, 12, 0);
}

/* full CQ and 8 more waiting; reap 2, look, reap 4 (a flush), look */
static int rounds(struct io_uring *ring, struct diff_ctx *c)
{
	note_cq(ring, c);
	if (diff_reap(ring, c, 2))
		return -1;
	note_cq(ring, c);
	if (diff_reap(ring, c, 4))
		return -1;
	note_cq(ring, c);
	return 0;
}

/*
 * The CQ emptied by the application alone, the backlog behind it: the
 * ring fd polls readable, an enter without GETEVENTS leaves the backlog
 * where it is, one with GETEVENTS (min_complete 0) flushes and returns 0.
 */
static int enter_without_getevents(struct io_uring *ring, struct diff_ctx *c)
{
	struct pollfd pfd = { .fd = ring->ring_fd, .events = POLLIN };

	if (diff_reap(ring, c, 4))
		return -1;
	note_cq(ring, c);
	diff_note(c, NOTE + 100, poll(&pfd, 1, 0) == 1 ? pfd.revents : 0);
	diff_note(c, NOTE + 101, io_uring_enter(ring->ring_fd, 0, 0, 0, NULL));
	note_cq(ring, c);
	diff_note(c, NOTE + 102, io_uring_enter(ring->ring_fd, 0, 0,
					       IORING_ENTER_GETEVENTS, NULL));
	note_cq(ring, c);
	return 0;
}

/* more submitted while the CQ is still overflowing */
static int submit_while_overflowing(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1))
		return -1;
	note_cq(ring, c);
	return fill_nops(ring, c, 13, 4, 0);
}

/* a chain of 6 failing at 3, a hard-linked pair, 4 lone NOPs (SQ 8, CQ 8) */
static int fill_links(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	fill_nops(ring, c, 1, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, -1, c->buf[0], 64, 0);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	fill_nops(ring, c, 4, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 6, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, -1, c->buf[0], 64, 0);
	diff_tag(sqe, 7, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 8, 0);
	return fill_nops(ring, c, 9, 4, 0);
}

/* every other NOP silent: 6 of 12 CQEs, still more than the CQ holds */
static int fill_skip(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 12; i++)
		diff_prep_nop(ring, c, i, i % 2 ? IOSQE_CQE_SKIP_SUCCESS : 0);
	return 0;
}

/* count 6, then 10 NOPs: only 4 reach the ring before it is reaped */
static int fill_count_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 500);
	io_uring_prep_timeout(sqe, &c->ts[0], 6, 0);
	diff_tag(sqe, 100, 0);
	return fill_nops(ring, c, 1, 10, 0);
}

/* val[0], val[1]: two files; tags 101..106 on six slots, unregistered */
static int setup_two(struct diff_ctx *c)
{
	c->val[0] = diff_file(c, "a", "a", 1, O_RDONLY);
	c->val[1] = diff_file(c, "b", "b", 1, O_RDONLY);
	return c->val[0] < 0 || c->val[1] < 0 ? -1 : 0;
}

static int fill_tags(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[6] = { c->val[0], c->val[1], c->val[0], c->val[1],
		       c->val[0], c->val[1] };
	__u64 tags[6] = { 101, 102, 103, 104, 105, 106 };

	diff_note(c, NOTE, io_uring_register_files_tags(ring, fds, tags, 6));
	fill_nops(ring, c, 1, 4, 0);
	if (diff_submit(ring, c) < 0)
		return -1;
	diff_note(c, NOTE + 1, io_uring_unregister_files(ring));
	note_cq(ring, c);
	return 0;
}

const struct scenario diff_complete[] = {
	{
		.name = "ovf_reap_in_rounds",
		.entries = 2,
		.cq_entries = 4,
		.fill = fill_12,
		.after_submit = rounds,
		.nr_cqes = 12,
		.known = { { NOTE, 1 }, { NOTE + 1, 4 }, { NOTE + 2, 0 },
			   { 12, 0 } },
	}, {
		.name = "ovf_enter_without_getevents",
		.entries = 2,
		.cq_entries = 4,
		.fill = fill_12,
		.after_submit = enter_without_getevents,
		.nr_cqes = 12,
		/* 8 behind the CQ; still 8 after the plain enter; 4 flushed */
		.known = { { NOTE, 1 }, { NOTE + 100, POLLIN },
			   { NOTE + 101, 0 }, { NOTE + 5, 1 }, { NOTE + 6, 0 },
			   { NOTE + 102, 0 }, { NOTE + 9, 1 }, { NOTE + 10, 4 } },
	}, {
		.name = "ovf_submit_while_overflowing",
		.entries = 2,
		.cq_entries = 4,
		.fill = fill_12,
		.after_submit = submit_while_overflowing,
		.nr_cqes = 16,
		.known = { { 16, 0 } },
	}, {
		.name = "ovf_links",
		.entries = 8,
		.cq_entries = 8,
		.fill = fill_links,
		.nr_cqes = 12,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 6 },
			    { 7, 8 } },
		.known = { { 3, -EBADF }, { 4, -ECANCELED }, { 6, -ECANCELED },
			   { 7, -EBADF }, { 8, 0 } },
	}, {
		.name = "ovf_skip_success",
		.entries = 2,
		.cq_entries = 4,
		.fill = fill_skip,
		.nr_cqes = 6,
	}, {
		.name = "ovf_count_timeout",
		.entries = 2,
		.cq_entries = 4,
		.fill = fill_count_timeout,
		.nr_cqes = 11,
		.order = ORDER_ANY,
		.before = { { 6, 100 } },
		.known = { { 100, 0 } },
	}, {
		.name = "ovf_tag_cqes",
		.entries = 2,
		.cq_entries = 4,
		.setup = setup_two,
		.fill = fill_tags,
		.nr_cqes = 10,
	}, {
		.name = "ovf_defer_taskrun",
		.entries = 2,
		.cq_entries = 4,
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.fill = fill_12,
		.after_submit = rounds,
		.nr_cqes = 12,
	}, {
		.name = "ovf_sqpoll",
		.entries = 2,
		.cq_entries = 4,
		.setup_flags = IORING_SETUP_SQPOLL,
		.fill = fill_12,
		.nr_cqes = 12,
	},
	{ .name = NULL }
};
