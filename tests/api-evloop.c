/* SPDX-License-Identifier: MIT */
/*
 * api-evloop.c - what an event loop sees of a ring: a registered eventfd
 * and the ring fd become readable once completion work is pending, also
 * on a DEFER_TASKRUN ring, whose CQEs wait for io_uring_get_events().
 * The kernel makes both readable when the work is queued; an epoll loop
 * on such a ring would never wake otherwise.
 *
 * Each case: a read armed on an empty pipe, the pipe then written from
 * this thread (the read completes in the engine's own context: the
 * kernel's task work, the user engine's service thread), then poll(2) on
 * the fd with a generous timeout that only turns a hang into a failure.
 *
 * And the way back: a loop that reaps the CQ from memory and then peeks
 * (io_uring_peek_cqe) or submits (io_uring_submit) finds the ring fd no
 * longer readable, as on the kernel, where it polls POLLIN only while
 * the CQ has CQEs; otherwise its epoll_wait would return at once, again
 * and again (docs/semantics.md D1).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "test.h"

#define T_WAIT_MS	10000

static bool t_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, T_WAIT_MS) == 1 && (pfd.revents & POLLIN);
}

/* a READ on an empty pipe, then the data: the CQE is pending somewhere */
static void t_pending_read(struct io_uring *ring, int p[2], char *buf)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_read(sqe, p[0], buf, 8, 0);
	sqe->user_data = 7;
	CHECK_EQ(io_uring_submit(ring), 1);
	CHECK_EQ(write(p[1], "abcdefgh", 8), 8);
}

static void t_reap(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 7);
	CHECK_EQ(cqe->res, 8);
	io_uring_cqe_seen(ring, cqe);
}

/* flags: the ring's setup flags; evfd: watch a registered eventfd, else the ring fd */
static void t_case(unsigned flags, bool evfd)
{
	struct io_uring_params p;
	struct io_uring ring;
	char buf[8];
	int pfd[2], efd = -1;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	t_ring(&ring, 8, &p);
	CHECK(!pipe(pfd));
	if (evfd) {
		efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		CHECK(efd >= 0);
		CHECK_EQ(io_uring_register_eventfd(&ring, efd), 0);
	}
	t_pending_read(&ring, pfd, buf);
	CHECK(t_readable(evfd ? efd : ring.ring_fd));
	t_reap(&ring);
	if (evfd)
		close(efd);
	close(pfd[0]);
	close(pfd[1]);
	io_uring_queue_exit(&ring);
}

static bool t_readable_now(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	CHECK(poll(&pfd, 1, 0) >= 0);
	return pfd.revents & POLLIN;
}

/* every CQE from memory, without entering, as an event loop reaps */
static unsigned t_reap_memory(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(ring, head, cqe)
		n++;
	io_uring_cq_advance(ring, n);
	return n;
}

static void t_idle(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	char buf[8];
	int pfd[2];

	t_ring(&ring, 8, NULL);
	CHECK(!pipe(pfd));
	/* a NOP, reaped from memory; a peek finds nothing */
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK(t_readable(ring.ring_fd));
	CHECK_EQ(t_reap_memory(&ring), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	CHECK(!t_readable_now(ring.ring_fd));
	/* again, then a submit with nothing to submit */
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK(t_readable(ring.ring_fd));
	CHECK_EQ(t_reap_memory(&ring), 1);
	CHECK_EQ(io_uring_submit(&ring), 0);
	CHECK(!t_readable_now(ring.ring_fd));
	/* a read still pending: not readable until it completes, then so */
	io_uring_prep_read(io_uring_get_sqe(&ring), pfd[0], buf, 8, 0);
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	CHECK(!t_readable_now(ring.ring_fd));
	CHECK_EQ(write(pfd[1], "abcdefgh", 8), 8);
	CHECK(t_readable(ring.ring_fd));
	CHECK_EQ(t_reap_memory(&ring), 1);
	close(pfd[0]);
	close(pfd[1]);
	io_uring_queue_exit(&ring);
}

static pid_t t_waiter_tid;

static void *t_waiter(void *arg)
{
	struct io_uring_cqe *cqe;

	__atomic_store_n(&t_waiter_tid, gettid(), __ATOMIC_RELEASE);
	/* the CQE stays in the CQ: the poll on the other thread sees it */
	CHECK_EQ(io_uring_wait_cqe(arg, &cqe), 0);
	return NULL;
}

/* until the waiter is asleep (state S), T_HANG_SEC at most: a best effort */
static void t_waiter_asleep(void)
{
	long long end = t_now_ns() + T_HANG_SEC * 1000000000LL;
	char path[64], buf[256], *p;
	pid_t tid;
	int fd, n;

	while (t_now_ns() < end) {
		tid = __atomic_load_n(&t_waiter_tid, __ATOMIC_ACQUIRE);
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
		fd = tid ? open(path, O_RDONLY) : -1;
		n = fd >= 0 ? (int)read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(1000);
	}
}

/*
 * A thread asleep in io_uring_wait_cqe() and an event loop's poll of the
 * ring fd on another: the fd is readable once the CQE the sleeper waits
 * for is posted (the sleeper does not reset it, D1), and a wait that
 * times out with the CQ empty leaves it not readable.
 */
static void t_wait(void)
{
	struct __kernel_timespec ts = { .tv_nsec = 1000000 };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	pthread_t tid;
	char buf[8];
	int pfd[2];

	t_ring(&ring, 8, NULL);
	CHECK(!pipe(pfd));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, pfd[0], buf, 8, 0);
	sqe->user_data = 7;
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK(!t_readable_now(ring.ring_fd));
	CHECK(!pthread_create(&tid, NULL, t_waiter, &ring));
	t_waiter_asleep();
	CHECK_EQ(write(pfd[1], "abcdefgh", 8), 8);
	CHECK(t_readable(ring.ring_fd));
	CHECK(!pthread_join(tid, NULL));
	t_reap(&ring);
	/* readable from before; a wait that ends empty resets it */
	CHECK_EQ(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), -ETIME);
	CHECK(!t_readable_now(ring.ring_fd));
	close(pfd[0]);
	close(pfd[1]);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	unsigned defer = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;

	t_case(0, true);
	t_case(0, false);
	t_case(defer, true);
	t_case(defer, false);
	t_idle();
	t_wait();
	printf("eventfd and ring fd readable for pending work, not after a "
	       "peek or submit finds the CQ empty (%s)\n", t_engine());
	return 0;
}
