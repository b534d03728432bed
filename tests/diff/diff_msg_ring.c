/* SPDX-License-Identifier: MIT */
/*
 * diff_msg_ring.c - IORING_OP_MSG_RING (ops/msg_ring.c) between two rings
 * of the same engine: IORING_MSG_DATA (with IORING_MSG_RING_FLAGS_PASS), to a ring with
 * DEFER_TASKRUN (its CQE waits for the target's task), with IOPOLL, a
 * disabled one, a full one (the CQE overflows, the sender gets 0), the
 * ring itself; IORING_MSG_SEND_FD into a
 * slot, with IORING_FILE_INDEX_ALLOC, with CQE_SKIP; and the errors:
 * bad flags and fields, a non-ring fd (-EBADFD), a closed one (-EBADF),
 * registered files (no ring can be one: an empty slot, a pipe),
 * an empty source slot, no table on the target, a slot out of range,
 * SEND_FD to itself. The target's CQEs are notes (1000 + 4 * i: its
 * user_data's low 32 bits, res, flags; 999: how many it had before it
 * entered, under the default policies).
 */
#include <fcntl.h>
#include <unistd.h>
#include "harness.h"

#define T_UD	0x7700

static struct io_uring target;
static bool target_up;

static int target_init(struct diff_ctx *c, unsigned entries, unsigned flags)
{
	struct io_uring_params p = { .flags = flags };
	int ret;

	ret = anyring_queue_init_engine(c->engine, entries, &target, &p);
	if (ret)
		return diff_fail(c, "target setup: %d", ret);
	target_up = true;
	return 0;
}

static void target_exit(struct diff_ctx *c)
{
	(void)c;
	if (target_up)
		io_uring_queue_exit(&target);
	target_up = false;
}

static struct io_uring_sqe *prep_msg(struct io_uring *ring, struct diff_ctx *c,
				     __u64 ud, int fd, unsigned len,
				     __u64 data, unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_msg_ring(sqe, fd, len, data, flags);
	diff_tag(sqe, ud, 0);
	return sqe;
}

/* the target's CQEs as notes, after it entered to run its task work */
static int note_target(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	struct __kernel_timespec ts = { .tv_sec = DIFF_TIMEOUT_SEC };
	struct io_uring_cqe *tc;
	unsigned i = 0;

	(void)cqe;
	(void)nr;
	/*
	 * What the target shows before it enters is the default policy's:
	 * ANYRING_POLICY's complete= moves where CQEs post, by design
	 * (docs/policies.md; tests/diff-policies.sh)
	 */
	if (!getenv("ANYRING_POLICY"))
		diff_note(c, 999, (int)io_uring_cq_ready(&target));
	io_uring_get_events(&target);
	/*
	 * The CQEs the fill expects (c->val[3], -1 if it set none) are
	 * waited for: a policy may post them from another thread
	 * (complete=punt); any more that are there are taken too
	 */
	while (i < 3 && ((int)i < c->val[3] ?
			 !io_uring_wait_cqe_timeout(&target, &tc, &ts) :
			 !io_uring_peek_cqe(&target, &tc))) {
		diff_note(c, 1000 + 4 * i, (int)tc->user_data);
		diff_note(c, 1001 + 4 * i, tc->res);
		diff_note(c, 1002 + 4 * i, (int)tc->flags);
		io_uring_cqe_seen(&target, tc);
		i++;
	}
	diff_note(c, 998, (int)i);
	return 0;
}

static int fill_data(struct io_uring *ring, struct diff_ctx *c)
{
	c->val[3] = 1;	/* target CQEs */
	if (target_init(c, 8, 0))
		return -1;
	prep_msg(ring, c, 1, target.ring_fd, 0x1234, T_UD + 1, 0);
	return 0;
}

static int fill_data_pass(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	c->val[3] = 1;	/* target CQEs */
	if (target_init(c, 8, 0))
		return -1;
	sqe = prep_msg(ring, c, 1, target.ring_fd, 7, T_UD + 1, 0);
	sqe->msg_ring_flags = 2;	/* IORING_MSG_RING_FLAGS_PASS */
	sqe->file_index = 0x5a5a;
	/* file_index without FLAGS_PASS: -EINVAL */
	sqe = prep_msg(ring, c, 2, target.ring_fd, 7, T_UD + 2, 0);
	sqe->file_index = 3;
	return 0;
}

static int fill_data_defer(struct io_uring *ring, struct diff_ctx *c)
{
	c->val[3] = 2;	/* target CQEs */
	if (target_init(c, 8, IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN))
		return -1;
	prep_msg(ring, c, 1, target.ring_fd, 11, T_UD + 1, 0);
	prep_msg(ring, c, 2, target.ring_fd, 12, T_UD + 2, 0);
	return 0;
}

static int fill_data_iopoll(struct io_uring *ring, struct diff_ctx *c)
{
	c->val[3] = 1;	/* target CQEs */
	if (target_init(c, 8, IORING_SETUP_IOPOLL))
		return -1;
	prep_msg(ring, c, 1, target.ring_fd, 13, T_UD + 1, 0);
	return 0;
}

static int fill_data_disabled(struct io_uring *ring, struct diff_ctx *c)
{
	if (target_init(c, 8, IORING_SETUP_R_DISABLED))
		return -1;
	prep_msg(ring, c, 1, target.ring_fd, 13, T_UD + 1, 0);
	return 0;
}

/* a CQ of 2 and three messages: the third overflows, all are delivered */
static int fill_data_full(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	c->val[3] = 3;	/* target CQEs */
	if (target_init(c, 1, 0))
		return -1;
	for (i = 1; i <= 3; i++)
		prep_msg(ring, c, i, target.ring_fd, 20 + i, T_UD + i, 0);
	return 0;
}

/* to itself: the message's CQE, then the sender's */
static int fill_data_self(struct io_uring *ring, struct diff_ctx *c)
{
	prep_msg(ring, c, 1, ring->ring_fd, 5, T_UD + 1, 0);
	return 0;
}

/* the kernel takes no ring into a fixed-file table: an empty slot, a pipe */
static int fill_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2], fds[2];

	if (target_init(c, 8, 0) || diff_pipe(c, p))
		return -1;
	fds[0] = -1;
	fds[1] = p[0];
	if (io_uring_register_files(ring, fds, 2))
		return diff_fail(c, "register files");
	sqe = prep_msg(ring, c, 1, 0, 9, T_UD + 1, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe = prep_msg(ring, c, 2, 1, 9, T_UD + 2, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	return 0;
}

static int fill_errors(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (target_init(c, 8, 0) || diff_pipe(c, p))
		return -1;
	/* a pipe is not a ring; -1 and a closed fd are no file */
	prep_msg(ring, c, 1, p[0], 1, T_UD + 1, 0);
	prep_msg(ring, c, 2, -1, 1, T_UD + 2, 0);
	sqe = prep_msg(ring, c, 3, target.ring_fd, 1, T_UD + 3, 0);
	sqe->addr = 7;			/* no such command */
	sqe = prep_msg(ring, c, 4, target.ring_fd, 1, T_UD + 4, 0);
	sqe->addr3 = 1;			/* src_fd with DATA */
	sqe = prep_msg(ring, c, 5, target.ring_fd, 1, T_UD + 5, 0);
	sqe->msg_ring_flags = 1;	/* CQE_SKIP is not for DATA */
	sqe = prep_msg(ring, c, 6, p[1], 1, T_UD + 6, 0);
	sqe->addr = 7;			/* not a ring decides first */
	return 0;
}

/* prep's refusals end the submit: one scenario each */
static int fill_prep_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (target_init(c, 8, 0))
		return -1;
	sqe = prep_msg(ring, c, 1, target.ring_fd, 1, T_UD + 1, 0);
	sqe->msg_ring_flags = 4;	/* unknown flag */
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int fill_prep_buf_index(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (target_init(c, 8, 0))
		return -1;
	sqe = prep_msg(ring, c, 1, target.ring_fd, 1, T_UD + 1, 0);
	sqe->buf_index = 1;
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

/* source slot 0 a pipe's write end; the target's table of 4, sparse */
static int send_fd_tables(struct io_uring *ring, struct diff_ctx *c,
			  bool target_table)
{
	int p[2], fds[2];

	if (target_init(c, 8, 0) || diff_pipe(c, p))
		return -1;
	c->val[0] = p[0];
	fds[0] = p[1];
	fds[1] = -1;
	if (io_uring_register_files(ring, fds, 2))
		return diff_fail(c, "register files");
	if (target_table && io_uring_register_files_sparse(&target, 4))
		return diff_fail(c, "register target files");
	return 0;
}

static struct io_uring_sqe *prep_send_fd(struct io_uring *ring,
					 struct diff_ctx *c, __u64 ud, int fd,
					 int src, unsigned dst, unsigned flags)
{
	struct io_uring_sqe *sqe = prep_msg(ring, c, ud, fd, 0, T_UD + ud, 0);

	sqe->addr = 1;			/* IORING_MSG_SEND_FD */
	sqe->addr3 = (__u64)src;
	sqe->file_index = dst;
	sqe->msg_ring_flags = flags;
	return sqe;
}

static int fill_send_fd(struct io_uring *ring, struct diff_ctx *c)
{
	c->val[3] = 2;	/* target CQEs */
	if (send_fd_tables(ring, c, true))
		return -1;
	prep_send_fd(ring, c, 1, target.ring_fd, 0, 2, 0);
	prep_send_fd(ring, c, 2, target.ring_fd, 0, IORING_FILE_INDEX_ALLOC, 0);
	prep_send_fd(ring, c, 3, target.ring_fd, 0, 4, 1);	/* CQE_SKIP */
	return 0;
}

static int fill_send_fd_errors(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (send_fd_tables(ring, c, true))
		return -1;
	prep_send_fd(ring, c, 1, ring->ring_fd, 0, 1, 0);	/* itself */
	prep_send_fd(ring, c, 2, target.ring_fd, 1, 1, 0);	/* empty slot */
	prep_send_fd(ring, c, 3, target.ring_fd, 5, 1, 0);	/* past the table */
	prep_send_fd(ring, c, 4, target.ring_fd, 0, 5, 0);	/* slot 4 of 4 */
	prep_send_fd(ring, c, 5, target.ring_fd, 0, 0, 0);	/* slot "0" */
	sqe = prep_send_fd(ring, c, 6, target.ring_fd, 0, 1, 0);
	sqe->len = 1;
	return 0;
}

static int fill_send_fd_notable(struct io_uring *ring, struct diff_ctx *c)
{
	if (send_fd_tables(ring, c, false))
		return -1;
	prep_send_fd(ring, c, 1, target.ring_fd, 0, 1, 0);
	prep_send_fd(ring, c, 2, target.ring_fd, 0, IORING_FILE_INDEX_ALLOC, 0);
	return 0;
}

/* the installed files work: a write through each target slot */
static int check_send_fd(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	struct __kernel_timespec ts = { .tv_sec = DIFF_TIMEOUT_SEC };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *tc;
	unsigned i;
	char b[8];

	note_target(c, cqe, nr);
	for (i = 0; i < 2; i++) {
		sqe = io_uring_get_sqe(&target);
		io_uring_prep_write(sqe, (int)(i ? 0 : 1), "ab", 2, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = 50 + i;
	}
	if (io_uring_submit_and_wait(&target, 2) != 2)
		return diff_fail(c, "target writes");
	for (i = 0; i < 2; i++) {
		if (io_uring_wait_cqe_timeout(&target, &tc, &ts))
			return diff_fail(c, "target write CQE");
		diff_note(c, 1100 + (unsigned)tc->user_data, tc->res);
		io_uring_cqe_seen(&target, tc);
	}
	diff_note(c, 1200, (int)read(c->val[0], b, sizeof(b)));
	return 0;
}

#define TARGET_SCENARIO(nm, fn, n, ord, chk, ...)			\
	{ .name = nm, .fill = fn, .nr_cqes = n, .order = ord,		\
	  .check = chk, .teardown = target_exit, __VA_ARGS__ }

const struct scenario diff_msg_ring[] = {
	TARGET_SCENARIO("msg_data", fill_data, 1,
			ORDER_EXACT, note_target,
			.known = { { 1, 0 } }),
	TARGET_SCENARIO("msg_data_flags_pass", fill_data_pass, 2,
			ORDER_EXACT, note_target,
			.known = { { 1, 0 }, { 2, -EINVAL } }),
	TARGET_SCENARIO("msg_data_defer_taskrun", fill_data_defer, 2,
			ORDER_EXACT, note_target),
	TARGET_SCENARIO("msg_data_iopoll", fill_data_iopoll, 1,
			ORDER_EXACT, note_target),
	TARGET_SCENARIO("msg_data_disabled", fill_data_disabled, 1,
			ORDER_EXACT, note_target,
			.known = { { 1, -EBADFD } }),
	TARGET_SCENARIO("msg_data_target_full", fill_data_full, 3,
			ORDER_EXACT, note_target),
	TARGET_SCENARIO("msg_fixed_file", fill_fixed, 2,
			ORDER_EXACT, note_target,
			.known = { { 1, -EBADF }, { 2, -EBADFD } }),
	TARGET_SCENARIO("msg_errors", fill_errors, 6,
			ORDER_ANY, note_target,
			.known = { { 1, -EBADFD }, { 2, -EBADF },
				   { 3, -EINVAL }, { 6, -EBADFD } }),
	TARGET_SCENARIO("msg_prep_flags", fill_prep_flags, 1,
			ORDER_EXACT, note_target,
			.known = { { 1, -EINVAL } }),
	TARGET_SCENARIO("msg_prep_buf_index", fill_prep_buf_index, 1,
			ORDER_EXACT, note_target,
			.known = { { 1, -EINVAL } }),
	{
		.name = "msg_data_self",
		.fill = fill_data_self,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 1, 0 }, { T_UD + 1, 5 } },
	},
	TARGET_SCENARIO("msg_send_fd", fill_send_fd, 3,
			ORDER_EXACT, check_send_fd,
			.known = { { 1, 0 } }),
	TARGET_SCENARIO("msg_send_fd_errors", fill_send_fd_errors, 6,
			ORDER_ANY, note_target,
			.known = { { 1, -EINVAL }, { 2, -EBADF } }),
	TARGET_SCENARIO("msg_send_fd_no_table", fill_send_fd_notable, 2,
			ORDER_EXACT, note_target,
			.known = { { 1, -ENXIO } }),
	{ .name = NULL },
};
