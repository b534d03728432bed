/* SPDX-License-Identifier: MIT */
/*
 * diff_splice.c - SPLICE and TEE (ops/splice.c): file to pipe to file
 * with offsets and file positions, a splice waiting on an empty pipe
 * until data comes (written after the submit), TEE leaving its input in
 * place, registered input and output files, and the errors of prep
 * (flags, TEE offsets) and of the calls (two regular files, bad fds,
 * offsets on a pipe, an empty pipe with SPLICE_F_NONBLOCK, and their
 * order: a fuzzer's finding), and the cancel of a splice waiting in a
 * worker. A short result breaks a link.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/socket.h>
#include "harness.h"

#define NOTE	1000
#define DATA_LEN	8192
#define AR_SPLICE_F_FD_IN_FIXED	(1U << 31)

static void prep_splice(struct io_uring_sqe *sqe, __u8 op, int in,
			__s64 off_in, int out, __s64 off_out, unsigned len,
			unsigned flags)
{
	io_uring_prep_rw(op, sqe, out, NULL, len, (__u64)off_out);
	sqe->splice_off_in = (__u64)off_in;
	sqe->splice_fd_in = in;
	sqe->splice_flags = flags;
}

/* val[0]: "data"; val[1], val[2]: a pipe (read, write); val[3]: "out" */
static int setup_file_pipe(struct diff_ctx *c)
{
	int p[2];

	if (diff_data_file(c, DATA_LEN, O_RDWR) || diff_pipe(c, p))
		return -1;
	c->val[1] = p[0];
	c->val[2] = p[1];
	c->val[3] = diff_file(c, "out", NULL, 0, O_RDWR);
	return c->val[3] < 0 ? -1 : 0;
}

static int fill_file_pipe_file(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);	/* data[100..1100) into the pipe */
	prep_splice(sqe, IORING_OP_SPLICE, c->val[0], 100, c->val[2], -1,
		    1000, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);	/* ... to out at 10 */
	prep_splice(sqe, IORING_OP_SPLICE, c->val[1], -1, c->val[3], 10,
		    1000, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);	/* data's position (0) into the pipe */
	prep_splice(sqe, IORING_OP_SPLICE, c->val[0], -1, c->val[2], -1,
		    10, SPLICE_F_MOVE);
	diff_tag(sqe, 3, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);	/* ... to out's position (0) */
	prep_splice(sqe, IORING_OP_SPLICE, c->val[1], -1, c->val[3], -1,
		    10, 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

static int check_file_pipe_file(struct diff_ctx *c,
				const struct diff_cqe *cqe, unsigned nr)
{
	char want[1010], data[DATA_LEN];

	(void)cqe;
	(void)nr;
	diff_pattern(data, sizeof(data), 1);
	memcpy(want, data, 10);
	memcpy(want + 10, data + 100, 1000);
	diff_note(c, NOTE, (int)lseek(c->val[0], 0, SEEK_CUR));
	diff_note(c, NOTE + 1, (int)lseek(c->val[3], 0, SEEK_CUR));
	return diff_check_file(c, "out", want, sizeof(want));
}

/* a splice from pipe A (empty at submit) to pipe B, then a NOP it breaks */
static int fill_wait(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	prep_splice(sqe, IORING_OP_SPLICE, c->val[0], -1, c->val[3], -1, 100, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

/* what pipe B holds, without blocking */
static int check_pipe_b(struct diff_ctx *c, const struct diff_cqe *cqe,
			unsigned nr)
{
	char got[64];
	ssize_t n;

	(void)cqe;
	(void)nr;
	fcntl(c->val[2], F_SETFL, O_NONBLOCK);
	n = read(c->val[2], got, sizeof(got));
	diff_note(c, NOTE, (int)n);
	if (n == 5 && memcmp(got, "hello", 5))
		return diff_fail(c, "pipe B holds the wrong bytes");
	return 0;
}

/* pipes A and B; "abcdef" waiting in A */
static int setup_tee(struct diff_ctx *c)
{
	if (diff_setup_pipes(c))
		return -1;
	if (write(c->val[1], "abcdef", 6) != 6)
		return diff_fail(c, "write: %s", strerror(errno));
	return 0;
}

static int fill_tee(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	prep_splice(sqe, IORING_OP_TEE, c->val[0], 0, c->val[3], 0, 4, 0);
	diff_tag(sqe, 1, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);	/* 6 of 100: short, the NOP is cancelled */
	prep_splice(sqe, IORING_OP_TEE, c->val[0], 0, c->val[3], 0, 100, 0);
	diff_tag(sqe, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	return 0;
}

/* A still holds its 6 bytes; B got 4 + 6 */
static int check_tee(struct diff_ctx *c, const struct diff_cqe *cqe,
		     unsigned nr)
{
	char got[64];

	(void)cqe;
	(void)nr;
	fcntl(c->val[0], F_SETFL, O_NONBLOCK);
	fcntl(c->val[2], F_SETFL, O_NONBLOCK);
	diff_note(c, NOTE, (int)read(c->val[0], got, sizeof(got)));
	diff_note(c, NOTE + 1, (int)read(c->val[2], got, sizeof(got)));
	if (memcmp(got, "abcdabcdef", 10))
		return diff_fail(c, "pipe B holds the wrong bytes");
	return 0;
}

static int fill_errors(struct io_uring *ring, struct diff_ctx *c)
{
	int d = c->val[0], pr = c->val[1], pw = c->val[2], out = c->val[3];
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);	/* a flag past SPLICE_F_ALL: -EINVAL */
	prep_splice(sqe, IORING_OP_SPLICE, d, 0, pw, -1, 10, 0x10);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);	/* TEE with an offset: -EINVAL */
	prep_splice(sqe, IORING_OP_TEE, pr, 0, pw, 1, 10, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);	/* no pipe on either side: -EINVAL */
	prep_splice(sqe, IORING_OP_SPLICE, d, 0, out, 0, 10, 0);
	diff_tag(sqe, 3, 0);
	sqe = diff_sqe(ring, c);	/* bad input: -EBADF */
	prep_splice(sqe, IORING_OP_SPLICE, 1000, -1, pw, -1, 10, 0);
	diff_tag(sqe, 4, 0);
	sqe = diff_sqe(ring, c);	/* nothing to move: 0 */
	prep_splice(sqe, IORING_OP_SPLICE, d, 0, out, 0, 0, 0);
	diff_tag(sqe, 5, 0);
	sqe = diff_sqe(ring, c);	/* no registered files: -EBADF */
	prep_splice(sqe, IORING_OP_SPLICE, 0, -1, pw, -1, 10,
		    AR_SPLICE_F_FD_IN_FIXED);
	diff_tag(sqe, 6, 0);
	sqe = diff_sqe(ring, c);	/* an offset on the pipe: -ESPIPE */
	prep_splice(sqe, IORING_OP_SPLICE, pr, 0, out, 0, 10, 0);
	diff_tag(sqe, 7, 0);
	sqe = diff_sqe(ring, c);	/* empty pipe, SPLICE_F_NONBLOCK: -EAGAIN */
	prep_splice(sqe, IORING_OP_SPLICE, pr, -1, out, 0, 10,
		    SPLICE_F_NONBLOCK);
	diff_tag(sqe, 8, 0);
	sqe = diff_sqe(ring, c);	/* TEE from a file: -EINVAL */
	prep_splice(sqe, IORING_OP_TEE, d, 0, pw, 0, 10, 0);
	diff_tag(sqe, 9, 0);
	sqe = diff_sqe(ring, c);	/* bad output: -EBADF */
	prep_splice(sqe, IORING_OP_SPLICE, d, 0, 1000, -1, 10, 0);
	diff_tag(sqe, 10, 0);
	sqe = diff_sqe(ring, c);	/* bad output, zero length: -EBADF */
	prep_splice(sqe, IORING_OP_SPLICE, d, 0, 1000, -1, 0, 0);
	diff_tag(sqe, 11, 0);
	sqe = diff_sqe(ring, c);	/* into a read end: -EBADF */
	prep_splice(sqe, IORING_OP_SPLICE, d, 0, pr, -1, 10, 0);
	diff_tag(sqe, 12, 0);
	return 0;
}

/* "hello" waiting in A; files [A read, B write] registered by the fill */
static int fill_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { c->val[0], c->val[3] };
	struct io_uring_sqe *sqe;
	int ret;

	ret = io_uring_register_files(ring, fds, 2);
	if (ret)
		return diff_fail(c, "register files: %d", ret);
	if (write(c->val[1], "hello", 5) != 5)
		return diff_fail(c, "write: %s", strerror(errno));
	sqe = diff_sqe(ring, c);
	prep_splice(sqe, IORING_OP_TEE, 0, 0, 1, 0, 2,
		    AR_SPLICE_F_FD_IN_FIXED);
	diff_tag(sqe, 1, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	prep_splice(sqe, IORING_OP_SPLICE, 0, -1, 1, -1, 5,
		    AR_SPLICE_F_FD_IN_FIXED);
	diff_tag(sqe, 2, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);	/* a slot past the table: -EBADF */
	prep_splice(sqe, IORING_OP_SPLICE, 5, -1, 1, -1, 5,
		    AR_SPLICE_F_FD_IN_FIXED);
	diff_tag(sqe, 3, IOSQE_FIXED_FILE);
	sqe = diff_sqe(ring, c);	/* the output slot past the table: -EBADF */
	prep_splice(sqe, IORING_OP_SPLICE, c->val[0], -1, 7, -1, 5, 0);
	diff_tag(sqe, 4, IOSQE_FIXED_FILE);
	return 0;
}

static int check_fixed(struct diff_ctx *c, const struct diff_cqe *cqe,
		       unsigned nr)
{
	char got[64];

	(void)cqe;
	(void)nr;
	fcntl(c->val[2], F_SETFL, O_NONBLOCK);
	diff_note(c, NOTE, (int)read(c->val[2], got, sizeof(got)));
	if (memcmp(got, "hehello", 7))
		return diff_fail(c, "pipe B holds the wrong bytes");
	return 0;
}

/* a splice from pipe A, empty, to pipe B */
static int fill_wait_alone(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	prep_splice(sqe, IORING_OP_SPLICE, c->val[0], -1, c->val[3], -1, 100, 0);
	diff_tag(sqe, 1, 0);
	return 0;
}

/* the cancel of a splice waiting on an empty pipe, after the submit */
static int cancel_wait(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/*
 * Queued: cancelled (0, -ECANCELED); running in a worker: -EALREADY,
 * and the worker's wait is interrupted (-ERESTARTSYS, 512, which the
 * kernel posts as it is). Never a splice left waiting. 6.18 also gives,
 * in about 1 run in 40 on a busy 2-CPU machine, the splice ended by a
 * cancel that says it was running (-EALREADY, -ECANCELED) or that found
 * nothing (-ENOENT, -ERESTARTSYS): its worker was between taking the
 * work off the queue and starting it. Those pass too.
 */
static int check_cancel_wait(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	const struct diff_cqe *sp = diff_find(cqe, nr, 1);
	const struct diff_cqe *cn = diff_find(cqe, nr, 2);

	if (!sp || !cn)
		return diff_fail(c, "a CQE is missing");
	if ((cn->res == 0 && sp->res == -ECANCELED) ||
	    (cn->res == -EALREADY && sp->res == -512) ||
	    (cn->res == -EALREADY && sp->res == -ECANCELED) ||
	    (cn->res == -ENOENT && sp->res == -512))
		return 0;
	return diff_fail(c, "cancel %d, splice %d", cn->res, sp->res);
}

static void normalize_raced(struct diff_cqe *cqe)
{
	cqe->res = DIFF_RES_RACED;
}

/* ---- the fuzzer's findings (tests/fuzz/findings) ---- */

/*
 * val[0], val[1]: a unix stream socketpair; val[2]: an unconnected TCP
 * socket (a unix one answers shutdown() 0); val[3]: a file
 */
static int setup_socks(struct diff_ctx *c)
{
	int sv[2], s;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return diff_fail(c, "socketpair: %s", strerror(errno));
	c->val[0] = diff_track_fd(c, sv[0]);
	c->val[1] = diff_track_fd(c, sv[1]);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return diff_fail(c, "socket: %s", strerror(errno));
	c->val[2] = diff_track_fd(c, s);
	c->val[3] = diff_file(c, "f", "x", 1, O_RDWR);
	return c->val[0] < 0 || c->val[1] < 0 || c->val[2] < 0 ||
	       c->val[3] < 0 ? -1 : 0;
}

/*
 * splice-into-read-end-offset-order: SPLICE from a directory (open for
 * reading) into a pipe's read end with an output offset: do_splice()
 * finds the output not open for writing first (-EBADF), where splice(2)
 * answers the offset on a pipe (-ESPIPE); the same into the write end
 * is -ESPIPE on both.
 */
static int fill_splice_order(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	sqe = diff_sqe(ring, c);
	io_uring_prep_splice(sqe, c->dirfd, -1, p[0], 0, 64, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_splice(sqe, c->val[3], -1, p[1], 0, 64, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_splice(sqe, p[1], -1, c->val[3], -1, 64, 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

const struct scenario diff_splice[] = {
	{
		.name = "splice_file_pipe_file",
		.setup = setup_file_pipe,
		.fill = fill_file_pipe_file,
		.check = check_file_pipe_file,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 1, 1000 }, { 2, 1000 }, { 3, 10 }, { 4, 10 } },
	}, {
		.name = "splice_waits_for_data",
		.setup = diff_setup_pipes,
		.fill = fill_wait,
		.after_submit = diff_feed_pipe,
		.check = check_pipe_b,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 1, 5 }, { 2, -ECANCELED } },
	}, {
		.name = "splice_tee",
		.setup = setup_tee,
		.fill = fill_tee,
		.check = check_tee,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 1, 4 }, { 2, 6 }, { 3, -ECANCELED } },
	}, {
		.name = "splice_errors",
		.setup = setup_file_pipe,
		.fill = fill_errors,
		.after_submit = diff_submit_rest,
		.nr_cqes = 12,
		.order = ORDER_ANY,
		.known = { { 1, -EINVAL }, { 2, -EINVAL }, { 5, 0 },
			   { 7, -ESPIPE }, { 8, -EAGAIN } },
	}, {
		.name = "splice_fixed_files",
		.setup = diff_setup_pipes,
		.fill = fill_fixed,
		.check = check_fixed,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 2 }, { 2, 5 }, { 3, -EBADF }, { 4, -EBADF } },
	}, {
		.name = "splice_cancel_waiting",
		.setup = diff_setup_pipes,
		.fill = fill_wait_alone,
		.after_submit = cancel_wait,
		.check = check_cancel_wait,
		.normalize = normalize_raced,
		.nr_cqes = 2,
		.order = ORDER_ANY,
	}, {
		.name = "found_splice_mode_before_offset",
		.setup = setup_socks,
		.fill = fill_splice_order,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -EBADF }, { 2, -ESPIPE }, { 3, -EBADF } },
	},
	{ .name = NULL }
};
