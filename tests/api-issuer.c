/* SPDX-License-Identifier: MIT */
/*
 * api-issuer: IORING_SETUP_SINGLE_ISSUER as Linux 6.18 enforces it, on
 * both engines (measured there first). From a thread other than the
 * ring's creator: a submit gets -EEXIST and leaves the SQE in the SQ;
 * every io_uring_register gets -EEXIST; an enter with nothing to do is
 * fine; a wait is fine, except on a DEFER_TASKRUN ring (-EEXIST once it
 * enters; a CQE already in the CQ is reaped without entering). With
 * R_DISABLED the thread that enables the ring becomes its issuer. With
 * SQPOLL another thread may submit. On the user engine
 * anyring_ring_set_policy() follows register's rule.
 */
#include <pthread.h>
#include <unistd.h>
#include "test.h"

#define EXPECT_OTHER(call, val) do {					\
	struct t_call c = { .what = (call), .ring = &ring };		\
	CHECK_EQ(t_in_thread(&c), (val));				\
} while (0)

enum {
	C_SUBMIT, C_ENTER_NOTHING, C_WAIT_NOP, C_GETEVENTS0, C_REG_FILES,
	C_REG_PROBE, C_REG_EVENTFD, C_ENABLE, C_SET_POLICY,
};

struct t_call {
	int what;
	struct io_uring *ring;
	long ret;
};

static long t_enter(int fd, unsigned to_submit, unsigned min, unsigned flags)
{
	return io_uring_enter((unsigned)fd, to_submit, min, flags, NULL);
}

static void *t_call_fn(void *arg)
{
	struct t_call *c = arg;
	struct io_uring *ring = c->ring;
	struct io_uring_cqe *cqe;
	struct anyring_policy p;
	struct __kernel_timespec ts = { .tv_sec = 2 };
	int fd0 = 0, efd = 0;

	switch (c->what) {
	case C_SUBMIT:
		io_uring_prep_nop(io_uring_get_sqe(ring));
		c->ret = io_uring_submit(ring);
		break;
	case C_ENTER_NOTHING:
		c->ret = t_enter(ring->ring_fd, 0, 0, 0);
		break;
	case C_WAIT_NOP:	/* for a CQE, 2 s at most */
		c->ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (!c->ret)
			io_uring_cqe_seen(ring, cqe);
		break;
	case C_GETEVENTS0:
		c->ret = t_enter(ring->ring_fd, 0, 0, IORING_ENTER_GETEVENTS);
		break;
	case C_REG_FILES:
		c->ret = io_uring_register_files(ring, &fd0, 1);
		break;
	case C_REG_PROBE: {
		struct io_uring_probe *pr = calloc(1, sizeof(*pr) + 256 *
						   sizeof(struct io_uring_probe_op));

		c->ret = io_uring_register_probe(ring, pr, 256);
		free(pr);
		break;
	}
	case C_REG_EVENTFD:
		c->ret = io_uring_register(ring->ring_fd, IORING_REGISTER_EVENTFD,
					   &efd, 1);
		break;
	case C_ENABLE:
		c->ret = io_uring_enable_rings(ring);
		break;
	case C_SET_POLICY:
		memset(&p, 0, sizeof(p));
		p.wait = ANYRING_WAITP_SLEEP;
		c->ret = anyring_ring_set_policy(ring, &p);
		break;
	}
	return NULL;
}

static long t_in_thread(struct t_call *c)
{
	pthread_t t;

	CHECK_EQ(pthread_create(&t, NULL, t_call_fn, c), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	return c->ret;
}

static void t_nop_reaped(struct io_uring *ring, unsigned n)
{
	struct io_uring_cqe *cqe;

	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		CHECK_EQ(cqe->res, 0);
		io_uring_cqe_seen(ring, cqe);
	}
}

static void t_single(unsigned extra)
{
	struct io_uring_params p;
	struct io_uring ring;
	bool defer = extra & IORING_SETUP_DEFER_TASKRUN;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | extra;
	t_ring(&ring, 8, &p);
	EXPECT_OTHER(C_SUBMIT, -EEXIST);
	/* the SQE is still there: the creator's submit takes it and its own */
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), 2);
	t_nop_reaped(&ring, 2);
	EXPECT_OTHER(C_ENTER_NOTHING, 0);
	EXPECT_OTHER(C_GETEVENTS0, defer ? -EEXIST : 0);
	if (defer) {
		/* an empty CQ: the wait enters the kernel, which refuses it */
		EXPECT_OTHER(C_WAIT_NOP, -EEXIST);
	} else {
		io_uring_prep_nop(io_uring_get_sqe(&ring));
		CHECK_EQ(io_uring_submit(&ring), 1);
		EXPECT_OTHER(C_WAIT_NOP, 0);
	}
	/* a CQE already there is seen without entering, DEFER_TASKRUN or not */
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), 1);
	EXPECT_OTHER(C_WAIT_NOP, 0);
	EXPECT_OTHER(C_REG_FILES, -EEXIST);
	EXPECT_OTHER(C_REG_PROBE, -EEXIST);
	EXPECT_OTHER(C_REG_EVENTFD, -EEXIST);
	if (!strcmp(t_engine(), "user"))
		EXPECT_OTHER(C_SET_POLICY, -EEXIST);
	/* the creator keeps every right */
	CHECK_EQ(io_uring_register_files(&ring, (int[]){ 0 }, 1), 0);
	io_uring_queue_exit(&ring);
}

/* R_DISABLED: whoever enables the ring is its issuer from then on */
static void t_disabled(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	struct t_call c;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_R_DISABLED;
	t_ring(&ring, 8, &p);
	EXPECT_OTHER(C_ENABLE, 0);
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), -EEXIST);
	CHECK_EQ(io_uring_register_files(&ring, (int[]){ 0 }, 1), -EEXIST);
	/* a new thread is not the enabler either: the SQE stays queued */
	c.what = C_SUBMIT;
	c.ring = &ring;
	CHECK_EQ(t_in_thread(&c), -EEXIST);
	io_uring_queue_exit(&ring);
}

/* SQPOLL: the SQ thread submits, so any thread may ask it to */
static void t_sqpoll(void)
{
	struct io_uring_params p;
	struct io_uring ring;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_SQPOLL;
	p.sq_thread_idle = 100;
	t_ring(&ring, 8, &p);
	EXPECT_OTHER(C_SUBMIT, 1);
	t_nop_reaped(&ring, 1);
	EXPECT_OTHER(C_REG_PROBE, -EEXIST);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	t_single(0);
	t_single(IORING_SETUP_DEFER_TASKRUN);
	t_disabled();
	t_sqpoll();
	return 0;
}
