/* SPDX-License-Identifier: MIT */
/*
 * diff_ctx.c - requests on rings set up differently (the setup flags
 * ctx.c takes): IORING_SETUP_SUBMIT_ALL (a refused SQE no longer ends the
 * submit; a broken chain), SINGLE_ISSUER|DEFER_TASKRUN (completions run
 * only when the task waits), COOP_TASKRUN|TASKRUN_FLAG, CLAMP of an
 * oversized ring, SQPOLL (NOPs, file reads, a failing chain, pipe reads
 * with cancel and link timeout, registered files, a drain, and a 1 ms
 * sq_thread_idle so the thread sleeps and IORING_SQ_NEED_WAKEUP is
 * raised), SQE128 and CQE32 (alone and together), NO_SQARRAY, IOPOLL
 * (what it accepts and refuses), SINGLE_ISSUER, and a large CQSIZE.
 */
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

/*
 * An unknown opcode and unknown SQE flags amid NOPs: with SUBMIT_ALL one
 * submit takes all five, without it each refusal ends a submit.
 */
static int fill_refused_amid_nops(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_nop(ring, c, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_nop(sqe);
	diff_tag(sqe, 2, 0);
	sqe->opcode = 250;
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, 1U << 7);
	diff_prep_nop(ring, c, 5, 0);
	return 0;
}

/*
 * An empty pipe: a read and its cancel; a read under a 10 ms link timeout.
 * Also on an SQPOLL ring (cfg_sqpoll_pipe_cancel_link_timeout).
 */
static int fill_pipe_mix(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	diff_prep_read(ring, c, 1, p[0], 64, 0, 0);
	diff_prep_cancel(ring, c, 2, 1, 0);
	diff_prep_read(ring, c, 3, p[0], 64, 0, IOSQE_IO_LINK);
	diff_ts(c, 0, 10);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

/* a failing chain and a drain */
static int fill_chain_mix(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 2, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 5, IOSQE_IO_DRAIN);
	return 0;
}

static int fill_nops8(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 8; i++)
		diff_prep_nop(ring, c, i, 0);
	return 0;
}

/* ---- SQPOLL, SQE128 and CQE32, NO_SQARRAY, IOPOLL, CQSIZE ---- */

#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY		(1U << 16)
#endif

#define NOTE_WAKEUP	1000	/* IORING_SQ_NEED_WAKEUP seen after idling */

/* val[0]: "data", 16384 bytes of pattern seed 1 */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, 16384, O_RDWR);
}

/* reads 1..4 at offsets 0, 4096, ...: buf[ud % 4] gets block ud - 1 */
static int fill_reads(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 4; i++)
		diff_prep_read(ring, c, i, c->val[0], 4096,
			       (i - 1) * 4096ULL, 0);
	return 0;
}

static int check_reads(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	static char p[16384];
	unsigned i;

	(void)cqe;
	(void)nr;
	diff_pattern(p, sizeof(p), 1);
	for (i = 1; i <= 4; i++)
		if (diff_check_buf(c, c->buf[i % DIFF_NBUF], p + (i - 1) * 4096,
				   4096, "block"))
			return -1;
	return 0;
}

/* a chain failing in the middle, a hard-linked pair, a lone NOP */
static int fill_chains(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 2, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_read(ring, c, 4, -1, 64, 0, IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 5, 0);
	diff_prep_nop(ring, c, 6, 0);
	return 0;
}

/* slots [data, -1]: a read through 0, one through the empty 1 */
static int fill_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], -1 };
	int ret = io_uring_register_files(ring, fds, 2);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	diff_prep_read(ring, c, 1, 0, 4096, 0,
		       IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	diff_prep_read(ring, c, 2, 0, 4096, 4096, IOSQE_FIXED_FILE);
	diff_prep_read(ring, c, 3, 1, 4096, 0, IOSQE_FIXED_FILE);
	return 0;
}

static int fill_drain(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 10);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	diff_tag(sqe, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_DRAIN);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

static int fill_nops(struct io_uring *ring, struct diff_ctx *c,
		     unsigned first, unsigned n)
{
	unsigned i;

	for (i = first; i < first + n; i++)
		diff_prep_nop(ring, c, i, 0);
	return 0;
}

static int fill_nops4(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_nops(ring, c, 1, 4);
}

static int fill_nops20(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_nops(ring, c, 1, 20);
}

static int fill_nops40(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_nops(ring, c, 1, 40);
}

/*
 * The poll thread idles for 1 ms, then sleeps and asks for a wakeup (the
 * flag is waited for); io_uring_submit() gives it with
 * IORING_ENTER_SQ_WAKEUP.
 */
static int idle_then_more(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 4))
		return -1;
	diff_note(c, NOTE_WAKEUP, diff_wait_need_wakeup(ring));
	if (fill_nops(ring, c, 5, 4) || diff_submit(ring, c) < 0 ||
	    diff_reap(ring, c, 4))
		return -1;
	if (!diff_wait_need_wakeup(ring))
		return diff_fail(c, "the poll thread never asked for a wakeup");
	return fill_nops(ring, c, 9, 2);
}

/* write, fsync, read back, a short read breaking a link */
static int fill_rw_chain(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_pattern(c->buf[0], 4096, 9);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[0], 4096, 16384);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_fsync(sqe, c->val[0], 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 3, c->val[0], 4096, 16384, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 5, c->val[0], 4096, 20000, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 6, 0);
	return 0;
}

static int check_rw_chain(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[3], c->buf[0], 4096, "read back");
}

/*
 * SUBMIT_ALL: an invalid opcode inside a chain fails the chain but not the
 * submit; an unknown flag on a lone SQE; a chain after both runs.
 */
static int fill_submit_all_chain(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK)->opcode = 250;
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, 1U << 7);
	diff_prep_nop(ring, c, 5, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 6, 0);
	return 0;
}

/* IOPOLL: a NOP is fine; a buffered read and a timeout are not */
static int fill_iopoll(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_nop(ring, c, 1, 0);
	diff_prep_read(ring, c, 2, c->val[0], 4096, 0, 0);
	diff_ts(c, 0, 10);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	diff_tag(sqe, 3, 0);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* IOPOLL with links: a NOP chain, and one broken by a buffered read */
static int fill_iopoll_links(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_read(ring, c, 3, c->val[0], 4096, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* an O_DIRECT data file, for IOPOLL */
static int setup_direct(struct diff_ctx *c)
{
	return diff_data_file(c, 16384, O_RDWR | O_DIRECT);
}

/*
 * IOPOLL on an O_DIRECT file: an overwrite, an extending write linked to
 * a NOP, a read (-EOPNOTSUPP where the device's queue does not poll), a
 * misaligned buffer (-EINVAL), a write at a 512-byte offset
 */
static int fill_iopoll_direct(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_pattern(c->buf[0], 4096, 9);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[0], 4096, 4096);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[0], 4096, 16384);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_read(ring, c, 4, c->val[0], 4096, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[0] + 1, 4096, 8192);
	diff_tag(sqe, 5, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_write(sqe, c->val[0], c->buf[0], 512, 12800);
	diff_tag(sqe, 6, 0);
	return 0;
}

static int check_iopoll_direct(struct diff_ctx *c, const struct diff_cqe *cqe,
			       unsigned nr)
{
	(void)cqe;
	(void)nr;
	if (pread(c->val[0], c->buf[2], 4096, 16384) != 4096)
		return diff_fail(c, "pread: %s", strerror(errno));
	return diff_check_buf(c, c->buf[2], c->buf[0], 4096, "written");
}

#define IOPOLL_DIRECT(n, flags) {					\
		.name = n,						\
		.setup_flags = IORING_SETUP_IOPOLL | (flags),		\
		.setup = setup_direct,					\
		.fill = fill_iopoll_direct,				\
		.check = check_iopoll_direct,				\
		.nr_cqes = 6,						\
		.order = ORDER_ANY,					\
		.before = { { 2, 3 } },					\
		.known = { { 1, 4096 }, { 2, 4096 }, { 3, 0 },		\
			   { 5, -EINVAL }, { 6, 512 } },		\
	}

/* SQE128/CQE32 do not change what a NOP chain and a read do */
static int fill_big_mix(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_read(ring, c, 2, c->val[0], 4096, 4096, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_read(ring, c, 4, -1, 64, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 5, 0);
	return fill_nops(ring, c, 6, 10);
}

const struct scenario diff_setup_flags[] = {
	{
		.name = "ring_submit_all",
		.setup_flags = IORING_SETUP_SUBMIT_ALL,
		.fill = fill_refused_amid_nops,
		.nr_cqes = 5,
		.known = { { 1, 0 }, { 2, -EINVAL }, { 3, 0 }, { 4, -EINVAL },
			   { 5, 0 } },
	}, {
		.name = "ring_refused_sqes_without_submit_all",
		.fill = fill_refused_amid_nops,
		.after_submit = diff_submit_rest,
		.nr_cqes = 5,
	}, {
		.name = "ring_defer_taskrun_pipe",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.fill = fill_pipe_mix,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 4, 3 } },
		.known = { { 1, -ECANCELED }, { 2, 0 }, { 3, -ECANCELED },
			   { 4, -ETIME } },
	}, {
		.name = "ring_defer_taskrun_chain",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER |
			       IORING_SETUP_DEFER_TASKRUN,
		.fill = fill_chain_mix,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 4, 5 }, { 3, 5 } },
	}, {
		.name = "ring_coop_taskrun_pipe",
		.setup_flags = IORING_SETUP_COOP_TASKRUN |
			       IORING_SETUP_TASKRUN_FLAG,
		.fill = fill_pipe_mix,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 4, 3 } },
	}, {
		.name = "ring_sqpoll_nops",
		.setup_flags = IORING_SETUP_SQPOLL,
		.fill = fill_nops8,
		.nr_cqes = 8,
	}, {
		.name = "ring_clamp_oversized",
		.entries = 1U << 20,
		.setup_flags = IORING_SETUP_CLAMP,
		.fill = fill_chain_mix,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 4, 5 }, { 3, 5 } },
	}, {
		.name = "cfg_sqpoll_file_reads",
		.setup_flags = IORING_SETUP_SQPOLL,
		.setup = setup_data,
		.fill = fill_reads,
		.check = check_reads,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 4096 }, { 4, 4096 } },
	}, {
		.name = "cfg_sqpoll_chains",
		.setup_flags = IORING_SETUP_SQPOLL,
		.fill = fill_chains,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 4, 5 } },
		.known = { { 3, -ECANCELED }, { 5, 0 } },
	}, {
		.name = "cfg_sqpoll_pipe_cancel_link_timeout",
		.setup_flags = IORING_SETUP_SQPOLL,
		.fill = fill_pipe_mix,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 4, 3 } },
		.known = { { 1, -ECANCELED }, { 2, 0 }, { 3, -ECANCELED },
			   { 4, -ETIME } },
	}, {
		.name = "cfg_sqpoll_fixed_files",
		.setup_flags = IORING_SETUP_SQPOLL,
		.setup = setup_data,
		.fill = fill_fixed,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 4096 }, { 2, 4096 }, { 3, -EBADF } },
	}, {
		.name = "cfg_sqpoll_drain",
		.setup_flags = IORING_SETUP_SQPOLL,
		.fill = fill_drain,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
	}, {
		.name = "cfg_sqpoll_idle_wakeup",
		.setup_flags = IORING_SETUP_SQPOLL,
		.sq_thread_idle = 1,
		.fill = fill_nops4,
		.after_submit = idle_then_more,
		.nr_cqes = 10,
		.known = { { NOTE_WAKEUP, 1 }, { 10, 0 } },
	}, {
		.name = "cfg_sqe128_nops",
		.setup_flags = IORING_SETUP_SQE128,
		.fill = fill_nops20,
		.nr_cqes = 20,
	}, {
		.name = "cfg_sqe128_rw_chain",
		.setup_flags = IORING_SETUP_SQE128,
		.setup = setup_data,
		.fill = fill_rw_chain,
		.check = check_rw_chain,
		.nr_cqes = 5,
		.known = { { 1, 4096 }, { 3, 4096 }, { 5, 480 },
			   { 6, -ECANCELED } },
	}, {
		.name = "cfg_cqe32_nops",
		.setup_flags = IORING_SETUP_CQE32,
		.fill = fill_nops20,
		.nr_cqes = 20,
	}, {
		.name = "cfg_cqe32_overflow",
		.entries = 4,
		.cq_entries = 8,
		.setup_flags = IORING_SETUP_CQE32,
		.fill = fill_nops20,
		.nr_cqes = 20,
	}, {
		.name = "cfg_sqe128_cqe32_mix",
		.setup_flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32,
		.setup = setup_data,
		.fill = fill_big_mix,
		.nr_cqes = 15,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 4, 5 } },
	}, {
		.name = "cfg_no_sqarray_nops",
		.setup_flags = IORING_SETUP_NO_SQARRAY,
		.fill = fill_nops20,
		.nr_cqes = 20,
	}, {
		.name = "cfg_no_sqarray_chains",
		.setup_flags = IORING_SETUP_NO_SQARRAY,
		.fill = fill_chains,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 }, { 4, 5 } },
		.known = { { 2, -EBADF }, { 3, -ECANCELED }, { 5, 0 } },
	}, {
		.name = "cfg_no_sqarray_sqpoll",
		.setup_flags = IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQPOLL,
		.fill = fill_nops20,
		.nr_cqes = 20,
	}, {
		.name = "cfg_submit_all_broken_chain",
		.setup_flags = IORING_SETUP_SUBMIT_ALL,
		.fill = fill_submit_all_chain,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.before = { { 5, 6 } },
		.known = { { 1, -ECANCELED }, { 2, -EINVAL }, { 3, -ECANCELED },
			   { 4, -EINVAL }, { 6, 0 } },
	}, {
		.name = "cfg_iopoll_refusals",
		.setup_flags = IORING_SETUP_IOPOLL,
		.setup = setup_data,
		.fill = fill_iopoll,
		.after_submit = diff_submit_rest,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 4, 0 } },
	}, {
		.name = "cfg_iopoll_links",
		.setup_flags = IORING_SETUP_IOPOLL,
		.setup = setup_data,
		.fill = fill_iopoll_links,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 3, 4 } },
	},
	IOPOLL_DIRECT("cfg_iopoll_direct", 0),
	IOPOLL_DIRECT("cfg_iopoll_direct_sqpoll", IORING_SETUP_SQPOLL),
	{
		.name = "cfg_single_issuer",
		.setup_flags = IORING_SETUP_SINGLE_ISSUER,
		.setup = setup_data,
		.fill = fill_rw_chain,
		.check = check_rw_chain,
		.nr_cqes = 5,
	}, {
		.name = "cfg_cqsize_64",
		.entries = 4,
		.cq_entries = 64,
		.fill = fill_nops40,
		.nr_cqes = 40,
	},
	{ .name = NULL }
};
