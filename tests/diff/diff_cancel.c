/* SPDX-License-Identifier: MIT */
/*
 * diff_cancel.c - cancellation (cancel.c): IORING_OP_ASYNC_CANCEL
 * against reads waiting on empty pipes: by user_data (in the same submit
 * and a later one), of a missing or already completed request, by fd
 * (plain and fixed), with IORING_ASYNC_CANCEL_ALL and _ANY, of a pending
 * timeout, with unknown flags; of reads from a batch large enough for the
 * user engine's issue=spread helper to share, in the next submit and in
 * the same one. A cancelled read completes with -ECANCELED; the cancel
 * with 0, the number cancelled (with ALL or ANY) or -ENOENT.
 * Cancellations complete through deferred work, so most compare as
 * multisets.
 *
 * Then cancels racing a request that may be queued, running or done
 * (NOPs and regular-file reads punted with IOSQE_ASYNC); members of a
 * chain; a link timeout; IORING_ASYNC_CANCEL_OP and _USERDATA; bad flag
 * combinations; work queued behind a blocked worker; and the synchronous
 * IORING_REGISTER_SYNC_CANCEL (its return value is a note).
 *
 * In the racing scenarios the cancel may find its target queued (0, the
 * target -ECANCELED), running (-EALREADY) or done (-ENOENT, the target
 * its own result). check() verifies the pair agrees; normalize() then
 * maps both to "raced", so only the CQE count, flags and the others'
 * results are compared.
 */
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "harness.h"
#include "compat.h"

static int fill_read_a(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	return 0;
}

/* after the read went to wait on the pipe */
static int cancel_read_a(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

static int fill_same_submit(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/*
 * 99 was never submitted; 1 has completed by the time 2 looks. With ALL a
 * cancel that finds nothing returns 0 (the count), not -ENOENT.
 */
static int fill_missing(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_IO_LINK);
	diff_prep_cancel(ring, c, 2, 1, 0);
	diff_prep_cancel(ring, c, 3, 99, 0);
	diff_prep_cancel(ring, c, 4, 99, IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/* by fd: only pipe A's read; B's is cancelled by user_data after */
static int fill_by_fd(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[2], 64, 0, 0);
	diff_prep_cancel_fd(ring, c, 3, c->val[0], 0);
	diff_prep_cancel(ring, c, 4, 2, 0);
	return 0;
}

/* three reads on A, one on B: FD|ALL takes A's three (res 3) */
static int fill_fd_all(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 3, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 4, c->val[2], 64, 0, 0);
	diff_prep_cancel_fd(ring, c, 5, c->val[0], IORING_ASYNC_CANCEL_ALL);
	diff_prep_cancel(ring, c, 6, 4, 0);
	return 0;
}

/* two reads sharing user_data 7: ALL cancels both (res 2) */
static int fill_ud_all(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 7, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 7, c->val[2], 64, 0, 0);
	diff_prep_cancel(ring, c, 8, 7, IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/* ANY|ALL: every pending request, whatever its user_data (res 3) */
static int fill_any_all(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[2], 64, 0, 0);
	diff_prep_read(ring, c, 3, c->val[2], 64, 0, 0);
	diff_prep_cancel(ring, c, 4, 0,
			 IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/*
 * ANY alone: the kernel treats it as ANY|ALL (res 2). A second ANY in the
 * next submit finds nothing: res 0, a count like ALL's. (Two ANY cancels
 * in one submit both report 2 on Linux 6.18: the cancelled reads stay
 * findable until their deferred completion runs. Not tested: an
 * artifact, not a contract.)
 */
static int fill_any(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 64, 0, 0);
	diff_prep_read(ring, c, 2, c->val[2], 64, 0, 0);
	diff_prep_cancel(ring, c, 3, 0, IORING_ASYNC_CANCEL_ANY);
	return 0;
}

static int cancel_any_again(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 4, 0, IORING_ASYNC_CANCEL_ANY);
	return 0;
}

/* slot 0 of the file table is pipe A's read end */
static int fill_fd_fixed(struct io_uring *ring, struct diff_ctx *c)
{
	int ret = io_uring_register_files(ring, &c->val[0], 1);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	diff_prep_read(ring, c, 1, 0, 64, 0, IOSQE_FIXED_FILE);
	diff_prep_cancel_fd(ring, c, 2, 0, IORING_ASYNC_CANCEL_FD_FIXED);
	return 0;
}

static int fill_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	diff_ts(c, 0, 3000);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	diff_tag(sqe, 1, 0);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* an unknown cancel flag: refused while reading the SQE */
static int fill_bad_flags(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 1, 1, 1U << 20);
	return 0;
}

/* a batch issue=spread shares: 16 reads on pipe A */
static int fill_spread_batch(struct io_uring *ring, struct diff_ctx *c)
{
	for (__u64 ud = 1; ud <= 16; ud++)
		diff_prep_read(ring, c, ud, c->val[0], 64, 0, 0);
	return 0;
}

/* right after the submit returns, each read is found: last one first */
static int cancel_spread_batch(struct io_uring *ring, struct diff_ctx *c)
{
	for (__u64 ud = 16; ud >= 1; ud--)
		diff_prep_cancel(ring, c, 100 + ud, ud, 0);
	return 0;
}

/*
 * Cancels inside such a batch see the reads before them issued and none
 * after: 21 and 22 find reads 12 and 1 (0), 23 does not find read 30,
 * which follows it (-ENOENT); the next submit's cancels by fd count what
 * is left on each pipe.
 */
static int fill_spread_same(struct io_uring *ring, struct diff_ctx *c)
{
	for (__u64 ud = 1; ud <= 12; ud++)
		diff_prep_read(ring, c, ud, c->val[0], 64, 0, 0);
	diff_prep_cancel(ring, c, 21, 12, 0);
	diff_prep_cancel(ring, c, 22, 1, 0);
	diff_prep_cancel(ring, c, 23, 30, 0);
	for (__u64 ud = 30; ud < 40; ud++)
		diff_prep_read(ring, c, ud, c->val[2], 64, 0, 0);
	return 0;
}

static int cancel_spread_rest(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel_fd(ring, c, 41, c->val[0], IORING_ASYNC_CANCEL_ALL);
	diff_prep_cancel_fd(ring, c, 42, c->val[2], IORING_ASYNC_CANCEL_ALL);
	return 0;
}

/* ---- races, chains, cancel flags, the synchronous cancel ---- */

/* io_uring_register_sync_cancel()'s results, one note each from here */
#define NOTE_SYNC	1000

/* val[0]: "data", 4096 bytes */
static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, 4096, O_RDONLY);
}

/*
 * Target ud 1 (own result want), cancel ud 9: cancel 0 and target
 * -ECANCELED, or cancel -EALREADY/-ENOENT and the target its result.
 */
static int check_pair(struct diff_ctx *c, const struct diff_cqe *cqe,
		      unsigned nr, int want)
{
	const struct diff_cqe *t = diff_find(cqe, nr, 1);
	const struct diff_cqe *k = diff_find(cqe, nr, 9);

	if (!t || !k)
		return diff_fail(c, "target or cancel CQE missing");
	if (k->res == 0 && t->res == -ECANCELED)
		return 0;
	if ((k->res == -EALREADY || k->res == -ENOENT) && t->res == want)
		return 0;
	/*
	 * io-wq had picked the target but not started it: the cancel sees
	 * it running (-EALREADY) and the worker then fails it (-ECANCELED).
	 * 6.18 does this (seen once in the kernel engine's run).
	 */
	if (k->res == -EALREADY && t->res == -ECANCELED)
		return 0;
	return diff_fail(c, "cancel %d with target %d: not a result the race "
			 "allows", k->res, t->res);
}

static void normalize_pair(struct diff_cqe *cqe)
{
	if (cqe->user_data == 1 || cqe->user_data == 9)
		cqe->res = DIFF_RES_RACED;
}

static int fill_async_nop(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, IOSQE_ASYNC);
	diff_prep_cancel(ring, c, 9, 1, 0);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int check_async_nop(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	return check_pair(c, cqe, nr, 0);
}

static int fill_async_read(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 4096, 0, IOSQE_ASYNC);
	diff_prep_cancel(ring, c, 9, 1, 0);
	return 0;
}

/* the same with the cancel in the next submit */
static int fill_async_read_only(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 4096, 0, IOSQE_ASYNC);
	return 0;
}

static int cancel_later(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_cancel(ring, c, 9, 1, 0);
	return 0;
}

static int check_async_read(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	return check_pair(c, cqe, nr, 4096);
}

/* four async NOPs (1..4) and ANY|ALL: the count is how many it caught */
static int fill_any_all_race(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned i;

	for (i = 1; i <= 4; i++)
		diff_prep_nop(ring, c, i, IOSQE_ASYNC);
	diff_prep_cancel(ring, c, 9, 0,
			 IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	return 0;
}

static int check_any_all_race(struct diff_ctx *c, const struct diff_cqe *cqe,
			      unsigned nr)
{
	const struct diff_cqe *k = diff_find(cqe, nr, 9);
	int cancelled = 0;
	unsigned i;

	for (i = 0; i < nr; i++) {
		if (cqe[i].user_data == 9)
			continue;
		if (cqe[i].res == -ECANCELED)
			cancelled++;
		else if (cqe[i].res)
			return diff_fail(c, "NOP %llu: %d",
					 (unsigned long long)cqe[i].user_data,
					 cqe[i].res);
	}
	/*
	 * The kernel counts one for each sweep of its io-wq, which may
	 * cancel several queued requests (see cancel_count_of_queued_work),
	 * and was seen (rarely, under load) to answer 0 while one NOP still
	 * ended -ECANCELED: a worker caught between the sweep and running
	 * it. Only a count and no error are certain.
	 */
	if (!k || k->res < 0)
		return diff_fail(c, "cancel counted %d, %d NOPs cancelled",
				 k ? k->res : -1, cancelled);
	return 0;
}

static void normalize_all(struct diff_cqe *cqe)
{
	cqe->res = DIFF_RES_RACED;
}

/* the reads on pipe A: 1 heads a chain with 2; cancel the member */
static int fill_chain_member(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 5, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_cancel(ring, c, 3, 2, 0);
	return 0;
}

/* after the cancel's CQE is in, feed the pipe */
static int reap_then_feed(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1))
		return -1;
	return diff_feed_pipe(ring, c);
}

static int fill_chain_head(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 5, 0, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_cancel(ring, c, 4, 1, 0);
	return 0;
}

/* the cancel names the link timeout guarding the read */
static int fill_link_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 3000);
	diff_prep_read(ring, c, 1, c->val[0], 5, 0, IOSQE_IO_LINK);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, 0);
	diff_prep_cancel(ring, c, 3, 2, 0);
	return 0;
}

/* IORING_ASYNC_CANCEL_OP (1 << 5): by opcode; with ALL every read */
#define CANCEL_USERDATA	(1U << 4)
#define CANCEL_OP	(1U << 5)

static int fill_by_op(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 3000);
	diff_prep_read(ring, c, 1, c->val[0], 5, 0, 0);
	diff_prep_read(ring, c, 2, c->val[2], 5, 0, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_timeout(sqe, &c->ts[0], 0, 0);
	diff_tag(sqe, 3, 0);
	sqe = diff_prep_cancel(ring, c, 4, 0,
			       CANCEL_OP | IORING_ASYNC_CANCEL_ALL);
	sqe->len = IORING_OP_READ;
	sqe = diff_prep_cancel(ring, c, 5, 0, CANCEL_OP);
	sqe->len = IORING_OP_TIMEOUT;
	return 0;
}

/* FD|USERDATA: both must match; 1 (A, ud 1) yes, 2 (A, ud 2) no */
static int fill_fd_userdata(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_prep_read(ring, c, 1, c->val[0], 5, 0, 0);
	diff_prep_read(ring, c, 2, c->val[0], 5, 0, 0);
	sqe = diff_prep_cancel(ring, c, 3, 1, IORING_ASYNC_CANCEL_FD |
			       CANCEL_USERDATA | IORING_ASYNC_CANCEL_ALL);
	sqe->fd = c->val[0];
	sqe = diff_prep_cancel(ring, c, 4, 2, 0);
	return 0;
}

/*
 * Refused while reading the SQE, one per submit: FD with ANY, OP with
 * ANY, a non-zero off.
 */
static int fill_bad_combos(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_prep_cancel(ring, c, 1, 0, IORING_ASYNC_CANCEL_FD |
			       IORING_ASYNC_CANCEL_ANY);
	sqe->fd = c->val[0];
	sqe = diff_prep_cancel(ring, c, 2, 0,
			       CANCEL_OP | IORING_ASYNC_CANCEL_ANY);
	sqe->len = IORING_OP_READ;
	sqe = diff_prep_cancel(ring, c, 3, 7, 0);
	sqe->off = 1;
	return 0;
}

/* by fd: nothing on that fd; by fixed fd: a slot that is empty */
static int fill_fd_nomatch(struct io_uring *ring, struct diff_ctx *c)
{
	int fds[2] = { -1, c->val[2] };
	int ret = io_uring_register_files(ring, fds, 2);

	if (ret)
		return diff_fail(c, "register files: %s", strerror(-ret));
	diff_prep_read(ring, c, 1, c->val[0], 5, 0, 0);
	diff_prep_cancel_fd(ring, c, 2, c->val[2], 0);
	diff_prep_cancel_fd(ring, c, 3, 0, IORING_ASYNC_CANCEL_FD_FIXED);
	diff_prep_cancel_fd(ring, c, 4, 1, IORING_ASYNC_CANCEL_FD_FIXED);
	diff_prep_cancel_fd(ring, c, 5, 5, IORING_ASYNC_CANCEL_FD_FIXED);
	diff_prep_cancel(ring, c, 6, 1, 0);
	return 0;
}

static int sync_cancel(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
		       int fd, unsigned flags)
{
	struct io_uring_sync_cancel_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.addr = ud;
	reg.fd = fd;
	reg.flags = flags;
	reg.timeout.tv_sec = -1;
	reg.timeout.tv_nsec = -1;
	diff_note(c, NOTE_SYNC + c->nr_note,
		  io_uring_register_sync_cancel(ring, &reg));
	return 0;
}

static int fill_two_reads(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_read(ring, c, 1, c->val[0], 5, 0, 0);
	diff_prep_read(ring, c, 2, c->val[0], 5, 0, 0);
	diff_prep_read(ring, c, 3, c->val[2], 5, 0, 0);
	return 0;
}

/* by user_data; then B's read the same way, A's second by fd */
static int sync_by_ud(struct io_uring *ring, struct diff_ctx *c)
{
	sync_cancel(ring, c, 1, 0, 0);
	sync_cancel(ring, c, 3, 0, 0);
	sync_cancel(ring, c, 0, c->val[0], IORING_ASYNC_CANCEL_FD);
	sync_cancel(ring, c, 99, 0, 0);
	return 0;
}

/* ALL on A's fd: two reads */
static int sync_all(struct io_uring *ring, struct diff_ctx *c)
{
	sync_cancel(ring, c, 0, c->val[0], IORING_ASYNC_CANCEL_FD |
		    IORING_ASYNC_CANCEL_ALL);
	sync_cancel(ring, c, 0, 0, IORING_ASYNC_CANCEL_ANY);
	return 0;
}

/*
 * Unknown flags; a non-zero pad2[0] (liburing 2.3's pad[1]); a non-zero
 * opcode (the first byte of 2.3's pad[0]), which kernels since 6.6 read
 * for IORING_ASYNC_CANCEL_OP (ignored without that flag); then ANY|ALL
 * for the rest. The argument in 6.18's layout (compat.h), whatever names
 * the header in use gives its fields.
 */
static int sync_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct ar_sync_cancel_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.addr = 1;
	reg.flags = 1U << 20;
	reg.timeout.tv_sec = -1;
	reg.timeout.tv_nsec = -1;
	diff_note(c, NOTE_SYNC, io_uring_register_sync_cancel(ring, (void *)&reg));
	reg.flags = 0;
	reg.pad2[0] = 1;
	diff_note(c, NOTE_SYNC + 1,
		  io_uring_register_sync_cancel(ring, (void *)&reg));
	reg.pad2[0] = 0;
	reg.opcode = IORING_OP_READ;
	diff_note(c, NOTE_SYNC + 2,
		  io_uring_register_sync_cancel(ring, (void *)&reg));
	return sync_cancel(ring, c, 0, 0, IORING_ASYNC_CANCEL_ANY |
			   IORING_ASYNC_CANCEL_ALL);
}

/*
 * A FIFO nobody reads: an IOSQE_ASYNC open of it for writing blocks the
 * ring's only bounded io-wq worker (max workers [1, 1]), so the NOPs
 * behind it stay queued when OP|ALL cancels them. Then the test opens
 * the read end itself and the open completes. val[0]: the read end.
 */
static int setup_fifo(struct diff_ctx *c)
{
	if (mkfifoat(c->dirfd, "fifo", 0600))
		return diff_fail(c, "mkfifo: %s", strerror(errno));
	return 0;
}

static int fill_queued_work(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned workers[2] = { 1, 1 };
	struct io_uring_sqe *sqe;
	int ret, i;

	ret = io_uring_register_iowq_max_workers(ring, workers);
	if (ret)
		return diff_fail(c, "iowq max workers: %s", strerror(-ret));
	/* the old limits, to restore: the kernel's io-wq is the task's */
	c->val[2] = (int)workers[0];
	c->val[3] = (int)workers[1];
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat(sqe, c->dirfd, "fifo", O_WRONLY, 0);
	diff_tag(sqe, 1, IOSQE_ASYNC);
	for (i = 2; i <= 4; i++)
		diff_prep_nop(ring, c, i, IOSQE_ASYNC);
	sqe = diff_prep_cancel(ring, c, 5, 0,
			       CANCEL_OP | IORING_ASYNC_CANCEL_ALL);
	sqe->len = IORING_OP_NOP;
	return 0;
}

/* the four cancel CQEs first, then let the open finish */
static int open_read_end(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned workers[2] = { (unsigned)c->val[2], (unsigned)c->val[3] };
	int ret = diff_reap(ring, c, 4);
	int fd = openat(c->dirfd, "fifo", O_RDONLY | O_NONBLOCK);

	io_uring_register_iowq_max_workers(ring, workers);

	/* opened even when the reap failed: the ring could not exit else */
	if (fd < 0)
		return diff_fail(c, "open fifo: %s", strerror(errno));
	diff_track_fd(c, fd);
	return ret;
}

static int check_open_fd(struct diff_ctx *c, const struct diff_cqe *cqe,
			 unsigned nr)
{
	const struct diff_cqe *o = diff_find(cqe, nr, 1);

	if (o && o->res >= 0)
		diff_track_fd(c, o->res);
	return 0;
}

static void normalize_open(struct diff_cqe *cqe)
{
	if (cqe->user_data == 1)
		diff_normalize_fd(cqe);
}

const struct scenario diff_cancel[] = {
	{
		.name = "cancel_by_user_data",
		.setup = diff_setup_pipes,
		.fill = fill_read_a,
		.after_submit = cancel_read_a,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_in_same_submit",
		.setup = diff_setup_pipes,
		.fill = fill_same_submit,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_missing_or_completed",
		.fill = fill_missing,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, -ENOENT }, { 3, -ENOENT } },
	}, {
		.name = "cancel_by_fd",
		.setup = diff_setup_pipes,
		.fill = fill_by_fd,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ECANCELED }, { 3, 0 },
			   { 4, 0 } },
	}, {
		.name = "cancel_fd_all",
		.setup = diff_setup_pipes,
		.fill = fill_fd_all,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 5, 3 }, { 6, 0 } },
	}, {
		.name = "cancel_user_data_all",
		.setup = diff_setup_pipes,
		.fill = fill_ud_all,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 8, 2 } },
	}, {
		.name = "cancel_any_all",
		.setup = diff_setup_pipes,
		.fill = fill_any_all,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 4, 3 } },
	}, {
		.name = "cancel_any",
		.setup = diff_setup_pipes,
		.fill = fill_any,
		.after_submit = cancel_any_again,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 3, 2 }, { 4, 0 } },
	}, {
		.name = "cancel_fd_fixed",
		.setup = diff_setup_pipes,
		.fill = fill_fd_fixed,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_pending_timeout",
		.fill = fill_timeout,
		.nr_cqes = 2,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, 0 } },
	}, {
		.name = "cancel_after_spread_batch",
		.entries = 32,
		.setup = diff_setup_pipes,
		.fill = fill_spread_batch,
		.after_submit = cancel_spread_batch,
		.nr_cqes = 32,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 16, -ECANCELED }, { 101, 0 },
			   { 116, 0 } },
	}, {
		.name = "cancel_inside_spread_batch",
		.entries = 32,
		.setup = diff_setup_pipes,
		.fill = fill_spread_same,
		.after_submit = cancel_spread_rest,
		.nr_cqes = 27,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 12, -ECANCELED }, { 21, 0 },
			   { 22, 0 }, { 23, -ENOENT }, { 30, -ECANCELED },
			   { 41, 10 }, { 42, 10 } },
	}, {
		.name = "cancel_unknown_flags",
		.fill = fill_bad_flags,
		.nr_cqes = 1,
		.known = { { 1, -EINVAL } },
	}, {
		.name = "race_cancel_async_nop",
		.fill = fill_async_nop,
		.check = check_async_nop,
		.normalize = normalize_pair,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 2, 0 } },
	}, {
		.name = "race_cancel_async_file_read",
		.setup = setup_data,
		.fill = fill_async_read,
		.check = check_async_read,
		.normalize = normalize_pair,
		.nr_cqes = 2,
		.order = ORDER_ANY,
	}, {
		.name = "race_cancel_async_file_read_later",
		.setup = setup_data,
		.fill = fill_async_read_only,
		.after_submit = cancel_later,
		.check = check_async_read,
		.normalize = normalize_pair,
		.nr_cqes = 2,
		.order = ORDER_ANY,
	}, {
		.name = "race_cancel_any_all_async_nops",
		.fill = fill_any_all_race,
		.check = check_any_all_race,
		.normalize = normalize_all,
		.nr_cqes = 5,
		.order = ORDER_ANY,
	}, {
		.name = "cancel_chain_member",
		.setup = diff_setup_pipes,
		.fill = fill_chain_member,
		.after_submit = reap_then_feed,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.before = { { 3, 1 }, { 1, 2 } },
		.known = { { 1, 5 }, { 2, 0 } },
	}, {
		.name = "cancel_chain_head",
		.setup = diff_setup_pipes,
		.fill = fill_chain_head,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.before = { { 1, 2 }, { 2, 3 } },
		.known = { { 1, -ECANCELED }, { 2, -ECANCELED },
			   { 3, -ECANCELED }, { 4, 0 } },
	}, {
		.name = "cancel_link_timeout_by_user_data",
		.setup = diff_setup_pipes,
		.fill = fill_link_timeout,
		.after_submit = reap_then_feed,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, 5 }, { 2, -ECANCELED } },
	}, {
		.name = "cancel_by_opcode",
		.setup = diff_setup_pipes,
		.fill = fill_by_op,
		.nr_cqes = 5,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ECANCELED },
			   { 3, -ECANCELED }, { 4, 2 }, { 5, 0 } },
	}, {
		.name = "cancel_fd_and_user_data",
		.setup = diff_setup_pipes,
		.fill = fill_fd_userdata,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ECANCELED }, { 3, 1 },
			   { 4, 0 } },
	}, {
		.name = "cancel_bad_flag_combinations",
		.setup = diff_setup_pipes,
		.fill = fill_bad_combos,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.known = { { 1, -EINVAL }, { 2, -EINVAL }, { 3, -EINVAL } },
	}, {
		.name = "cancel_fd_no_match",
		.setup = diff_setup_pipes,
		.fill = fill_fd_nomatch,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ENOENT }, { 6, 0 } },
	}, {
		.name = "cancel_count_of_queued_work",
		.setup = setup_fifo,
		.fill = fill_queued_work,
		.after_submit = open_read_end,
		.check = check_open_fd,
		.normalize = normalize_open,
		.nr_cqes = 5,
		.known = { { 1, DIFF_RES_FD }, { 2, -ECANCELED },
			   { 4, -ECANCELED } },
	}, {
		.name = "sync_cancel",
		.setup = diff_setup_pipes,
		.fill = fill_two_reads,
		.after_submit = sync_by_ud,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 1, -ECANCELED }, { 2, -ECANCELED },
			   { 3, -ECANCELED } },
	}, {
		.name = "sync_cancel_all",
		.setup = diff_setup_pipes,
		.fill = fill_two_reads,
		.after_submit = sync_all,
		.nr_cqes = 3,
		.order = ORDER_ANY,
	}, {
		.name = "sync_cancel_bad_arguments",
		.setup = diff_setup_pipes,
		.fill = fill_two_reads,
		.after_submit = sync_bad,
		.nr_cqes = 3,
		.order = ORDER_ANY,
	},
	{ .name = NULL }
};
