/* SPDX-License-Identifier: MIT */
/*
 * api-msgring.c - IORING_OP_MSG_RING between two rings owned by two
 * threads: a stream of IORING_MSG_DATA into a small CQ (the target
 * reaps while they come; every message arrives once, none lost to the
 * full CQ), to a plain target and to a DEFER_TASKRUN one; then
 * IORING_MSG_SEND_FD of a pipe into the target's table (slot chosen by
 * IORING_FILE_INDEX_ALLOC), which the target writes through. Last, an
 * IORING_MSG_DATA into a ring of the other engine, with and without
 * IORING_MSG_RING_FLAGS_PASS (docs/semantics.md D90): from a user ring
 * into a kernel ring it goes through the kernel's
 * IORING_REGISTER_SEND_MSG_RING; a kernel ring sees a user ring's fd as
 * an eventfd and answers -EBADFD.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "test.h"

#define NR_MSG		2000
#define UD_FD		(1ULL << 40)

struct pair {
	unsigned setup_flags;
	atomic_int target_fd;		/* -1 until the target ring exists */
	atomic_int done;		/* the target reaped everything */
	int pipe[2];
};

static void *target_fn(void *arg)
{
	struct pair *p = arg;
	struct io_uring_params params = { .flags = p->setup_flags };
	static unsigned char seen[NR_MSG];
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned got = 0, slot = ~0U;
	char buf[4];

	memset(seen, 0, sizeof(seen));
	t_ring(&ring, 4, &params);
	CHECK_EQ(io_uring_register_files_sparse(&ring, 4), 0);
	atomic_store(&p->target_fd, ring.ring_fd);
	while (got < NR_MSG + 1) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		if (cqe->user_data == UD_FD) {
			CHECK(cqe->res >= 0 && cqe->res < 4);
			slot = (unsigned)cqe->res;
		} else {
			CHECK(cqe->user_data < NR_MSG);
			CHECK_EQ(cqe->res, (int)cqe->user_data + 1);
			CHECK(!seen[cqe->user_data]);
			seen[cqe->user_data] = 1;
		}
		io_uring_cqe_seen(&ring, cqe);
		got++;
	}
	/* the file sent over: write through its slot */
	CHECK(slot != ~0U);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, (int)slot, "msg", 3, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->res, 3);
	io_uring_cqe_seen(&ring, cqe);
	CHECK_EQ(read(p->pipe[0], buf, sizeof(buf)), 3);
	CHECK(!memcmp(buf, "msg", 3));
	atomic_store(&p->done, 1);
	io_uring_queue_exit(&ring);
	return NULL;
}

static void sender(struct pair *p)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned sent = 0, reaped = 0;
	long long deadline = t_now_ns() + T_HANG_SEC * 1000000000LL;
	int tfd;

	t_ring(&ring, 64, NULL);
	CHECK_EQ(io_uring_register_files(&ring, &p->pipe[1], 1), 0);
	while ((tfd = atomic_load(&p->target_fd)) < 0)
		CHECK(t_now_ns() < deadline);
	while (reaped < NR_MSG + 1) {
		while (sent < NR_MSG + 1 && (sqe = io_uring_get_sqe(&ring))) {
			if (sent < NR_MSG) {
				io_uring_prep_msg_ring(sqe, tfd, sent + 1, sent, 0);
			} else {
				io_uring_prep_msg_ring(sqe, tfd, 0, UD_FD, 0);
				sqe->addr = IORING_MSG_SEND_FD;
				sqe->addr3 = 0;
				sqe->file_index = IORING_FILE_INDEX_ALLOC;
			}
			sqe->user_data = sent++;
		}
		CHECK(io_uring_submit_and_wait(&ring, 1) >= 0);
		while (!io_uring_peek_cqe(&ring, &cqe)) {
			/* the target's CQ is full as often as not: still 0 */
			if (cqe->user_data == NR_MSG)
				CHECK(cqe->res >= 0 && cqe->res < 4);
			else
				CHECK_EQ(cqe->res, 0);
			io_uring_cqe_seen(&ring, cqe);
			reaped++;
		}
	}
	io_uring_queue_exit(&ring);
}

static void run(unsigned setup_flags)
{
	struct pair p = { .setup_flags = setup_flags };
	pthread_t tid;

	atomic_init(&p.target_fd, -1);
	atomic_init(&p.done, 0);
	CHECK_EQ(pipe(p.pipe), 0);
	CHECK_EQ(pthread_create(&tid, NULL, target_fn, &p), 0);
	sender(&p);
	CHECK_EQ(pthread_join(tid, NULL), 0);
	CHECK(atomic_load(&p.done));
	close(p.pipe[0]);
	close(p.pipe[1]);
}

#define AR_MSG_FLAGS_PASS	(1U << 1)	/* IORING_MSG_RING_FLAGS_PASS (6.3) */

static void cross_engine(void)
{
	const char *other = strcmp(t_engine(), ANYRING_ENGINE_USER) ?
			    ANYRING_ENGINE_USER : ANYRING_ENGINE_KERNEL;
	struct io_uring_params p = { 0 };
	struct io_uring src, dst;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned pass;

	if (anyring_queue_init_engine(other, 4, &dst, &p)) {
		printf("cross-engine part skipped: no %s ring here\n", other);
		return;
	}
	t_ring(&src, 4, NULL);
	for (pass = 0; pass < 2; pass++) {
		sqe = t_sqe(&src);
		io_uring_prep_msg_ring(sqe, dst.ring_fd, 77 + pass,
				       0xabc0 + pass, 0);
		if (pass) {
			sqe->msg_ring_flags = AR_MSG_FLAGS_PASS;
			sqe->file_index = 0x55;	/* the CQE's flags */
		}
		sqe->user_data = 9;
		CHECK_EQ(io_uring_submit_and_wait(&src, 1), 1);
		CHECK_EQ(io_uring_peek_cqe(&src, &cqe), 0);
		CHECK_EQ(cqe->user_data, 9);
		if (strcmp(t_engine(), ANYRING_ENGINE_USER)) {
			CHECK_EQ(cqe->res, -EBADFD);
			io_uring_cqe_seen(&src, cqe);
			continue;
		}
		CHECK_EQ(cqe->res, 0);
		io_uring_cqe_seen(&src, cqe);
		CHECK_EQ(io_uring_wait_cqe(&dst, &cqe), 0);
		CHECK_EQ(cqe->user_data, 0xabc0 + pass);
		CHECK_EQ(cqe->res, (int)(77 + pass));
		CHECK_EQ(cqe->flags, pass ? 0x55U : 0U);
		io_uring_cqe_seen(&dst, cqe);
	}
	io_uring_queue_exit(&src);
	io_uring_queue_exit(&dst);
}

int main(void)
{
	run(0);
	run(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	cross_engine();
	return 0;
}
