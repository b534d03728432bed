/* SPDX-License-Identifier: MIT */
/*
 * api-cmdnet.c - URING_CMD's TX_TIMESTAMP on the test engine, where the
 * differential harness cannot look: on a CQE_MIXED ring, whose 32-byte
 * CQEs it reads as 16-byte slots and whose times differ between runs.
 *   1. the timestamps of a datagram sent before the command, then of
 *      three sent while it waits, read slot by slot: each a 32-byte CQE
 *      (IORING_CQE_F_32) with MORE, keys in order, SCHED before SND,
 *      a time that is now's; the one that would start on the CQ's last
 *      slot starts again at its first, after a SKIP CQE that pads it, as
 *      6.18 does (which a newer liburing steps over unseen);
 *   2. its cancel: a 16-byte -ECANCELED, the command's last CQE;
 *   3. on a unix socket it waits too, until cancelled.
 * Skips where the engine lacks CQE_MIXED (Linux before 6.18).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <stdbool.h>
#include "test.h"
#include "engine/compat.h"

#define TS_CMD		4	/* SOCKET_URING_OP_TX_TIMESTAMP */
#define TS_TYPE_SHIFT	17	/* IORING_TIMESTAMP_TYPE_SHIFT */
#define CQ_SLOTS	16	/* a ring of 8: 16 slots of 16 bytes */

struct slot {
	__u64 user_data;
	int res;
	unsigned flags;
	__u64 sec, nsec;
	unsigned index;		/* its slot in the CQ */
};

/*
 * The next CQE as the CQ holds it: a SKIP, a 16-byte or a 32-byte one.
 * A liburing that knows CQE_MIXED (2.12 and later) steps over a SKIP in
 * io_uring_wait_cqe() itself; an older one returns it.
 */
static void reap_slot(struct io_uring *ring, struct slot *s)
{
	struct io_uring_cqe *cqe;
	unsigned head;

	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	head = *ring->cq.khead;
	CHECK(cqe == &ring->cq.cqes[head & *ring->cq.kring_mask]);
	s->user_data = cqe->user_data;
	s->res = cqe->res;
	s->flags = cqe->flags;
	s->sec = s->nsec = 0;
	s->index = head & *ring->cq.kring_mask;
	if (cqe->flags & IORING_CQE_F_32) {
		/* never wraps: its second half is the next slot */
		CHECK((head & *ring->cq.kring_mask) != CQ_SLOTS - 1);
		s->sec = ((__u64 *)(cqe + 1))[0];
		s->nsec = ((__u64 *)(cqe + 1))[1];
		io_uring_cq_advance(ring, 2);
	} else {
		io_uring_cq_advance(ring, 1);
	}
}

/* a TX timestamp of the command's: key, type, and a time of now */
static void check_ts(const struct slot *s, int key, unsigned type)
{
	struct timespec now;
	long long d;

	CHECK_EQ(s->user_data, 43);
	CHECK_EQ(s->res, key);
	CHECK_EQ(s->flags, IORING_CQE_F_MORE | IORING_CQE_F_32 |
		 type << TS_TYPE_SHIFT);
	clock_gettime(CLOCK_REALTIME, &now);
	d = now.tv_sec - (long long)s->sec;
	CHECK(d >= 0 && d < 60);
	CHECK(s->nsec < 1000000000ULL);
}

/* a UDP socket on 127.0.0.1, sending to a second one, with timestamps */
static int ts_socket(int *rx)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(a);
	unsigned flags = SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
			 SOF_TIMESTAMPING_OPT_TSONLY |
			 SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_TX_SCHED;
	int fd;

	*rx = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(*rx >= 0);
	CHECK(!bind(*rx, (struct sockaddr *)&a, sizeof(a)));
	CHECK(!getsockname(*rx, (struct sockaddr *)&a, &len));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0);
	CHECK(!connect(fd, (struct sockaddr *)&a, sizeof(a)));
	CHECK(!setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags,
			  sizeof(flags)));
	return fd;
}

static void prep_ts_cmd(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	CHECK(sqe);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = TS_CMD;
	sqe->user_data = 43;
}

/*
 * Cancel the command: the cancel's 0 and the command's -ECANCELED, both
 * with no flags (16-byte CQEs on a CQE_MIXED ring).
 */
static void cancel_cmd(struct io_uring *ring, bool mixed)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	struct slot s;
	int i, seen = 0;

	CHECK(sqe);
	io_uring_prep_cancel64(sqe, 43, 0);
	sqe->user_data = 7;
	CHECK_EQ(io_uring_submit(ring), 1);
	for (i = 0; i < 2; i++) {
		if (mixed) {
			reap_slot(ring, &s);
		} else {
			CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
			s.user_data = cqe->user_data;
			s.res = cqe->res;
			s.flags = cqe->flags;
			io_uring_cqe_seen(ring, cqe);
		}
		CHECK_EQ(s.flags, 0);
		if (s.user_data == 7) {
			CHECK_EQ(s.res, 0);
		} else {
			CHECK_EQ(s.user_data, 43);
			CHECK_EQ(s.res, -ECANCELED);
		}
		seen |= s.user_data == 7 ? 1 : 2;
	}
	CHECK_EQ(seen, 3);
}

static void test_mixed(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQE_MIXED };
	struct io_uring ring;
	struct slot s;
	int fd, rx, i, key, ret;

	ret = anyring_queue_init_engine(t_engine(), 8, &ring, &p);
	if (ret == -EINVAL)
		t_skip("no IORING_SETUP_CQE_MIXED (Linux 6.18)");
	CHECK_EQ(ret, 0);
	CHECK_EQ(*ring.cq.kring_entries, CQ_SLOTS);
	fd = ts_socket(&rx);
	CHECK_EQ(send(fd, "abcdefghij", 10, 0), 10);

	/* a NOP takes slot 0: the timestamps take 1-2, 3-4 */
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	prep_ts_cmd(&ring, fd);
	CHECK_EQ(io_uring_submit(&ring), 2);
	reap_slot(&ring, &s);
	CHECK_EQ(s.user_data, 0);
	CHECK_EQ(s.flags, 0);
	reap_slot(&ring, &s);
	check_ts(&s, 0, SCM_TSTAMP_SCHED);
	reap_slot(&ring, &s);
	check_ts(&s, 0, SCM_TSTAMP_SND);

	/* three more while it waits: 5-6 .. 13-14, a SKIP at 15, then 0-1 */
	for (i = 0; i < 3; i++)
		CHECK_EQ(send(fd, "abcdefghij", 10, 0), 10);
	for (key = 1; key <= 3; key++) {
		reap_slot(&ring, &s);
		check_ts(&s, key, SCM_TSTAMP_SCHED);
		reap_slot(&ring, &s);
		if (s.flags & IORING_CQE_F_SKIP) {
			CHECK_EQ(key, 3);
			CHECK_EQ(s.index, CQ_SLOTS - 1);
			reap_slot(&ring, &s);
		}
		check_ts(&s, key, SCM_TSTAMP_SND);
	}
	/* the last one started again at the CQ's first slot, past the pad */
	CHECK_EQ(s.index, 0);
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	cancel_cmd(&ring, true);
	close(fd);
	close(rx);
	io_uring_queue_exit(&ring);
}

/* a unix socket's queue holds no timestamps: the command waits */
static void test_unix(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQE32 };
	struct io_uring ring;
	int sv[2];

	t_ring(&ring, 8, &p);
	CHECK(!socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	prep_ts_cmd(&ring, sv[0]);
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK_EQ(send(sv[1], "x", 1, 0), 1);
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	cancel_cmd(&ring, false);
	close(sv[0]);
	close(sv[1]);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	test_unix();
	test_mixed();
	return 0;
}
