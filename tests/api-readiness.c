/* SPDX-License-Identifier: MIT */
/*
 * api-readiness.c - the ring fd and a registered eventfd as an event
 * loop sees them, on either engine.
 *
 * The ring fd, watched by poll(2), select(2), epoll level-triggered,
 * epoll edge-triggered (EPOLLET) and a POLL_ADD on a second ring: it
 * polls readable once a CQE is there, and no more once the program has
 * reaped the CQ from memory (io_uring_cq_advance(), an inline helper: no
 * library call tells the engine), so the loop sleeps instead of
 * spinning; a completion made by another thread while the loop sleeps
 * wakes it, round after round (a lost wakeup fails as a timeout that
 * only turns the hang into a failure). The kernel's task work ends a
 * sleep in poll, select or epoll_wait with EINTR, as a signal does: the
 * loop then looks and sleeps again, as libuv does.
 *
 * The registered eventfd: signalled once per batch of new CQEs made
 * inline and never without one (a CQE_SKIP_SUCCESS NOP, an enter that
 * posts nothing), not while IORING_CQ_EVENTFD_DISABLED is set, and with
 * the async variant only for completions made by io-wq workers; the
 * counts are the kernel's for each case here. Worker completions signal
 * both variants.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "test.h"

#define T_WAIT_MS	10000
#define T_ROUNDS	200

enum t_method { T_POLL, T_SELECT, T_EPOLL, T_EPOLLET, T_POLL_ADD, T_NR };

static const char *const t_names[T_NR] = {
	"poll", "select", "epoll", "epoll EPOLLET", "POLL_ADD",
};

struct t_loop {
	enum t_method m;
	int fd;			/* what is watched */
	int epfd;
	struct io_uring *watcher;	/* T_POLL_ADD's ring */
	bool armed;		/* T_POLL_ADD: a poll is in flight */
};

static void t_loop_init(struct t_loop *l, enum t_method m, int fd,
			struct io_uring *watcher)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	memset(l, 0, sizeof(*l));
	l->m = m;
	l->fd = fd;
	l->epfd = -1;
	l->watcher = watcher;
	if (m == T_EPOLL || m == T_EPOLLET) {
		if (m == T_EPOLLET)
			ev.events |= EPOLLET;
		l->epfd = epoll_create1(EPOLL_CLOEXEC);
		CHECK(l->epfd >= 0);
		CHECK_EQ(epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev), 0);
	}
}

static void t_loop_exit(struct t_loop *l)
{
	struct io_uring_cqe *cqe;

	if (l->armed) {
		/* a readiness no one waited for: cancel it */
		struct io_uring_sqe *sqe = t_sqe(l->watcher);

		io_uring_prep_poll_remove(sqe, 1);
		sqe->user_data = 2;
		CHECK_EQ(io_uring_submit(l->watcher), 1);
		for (int i = 0; i < 2; i++) {
			CHECK_EQ(io_uring_wait_cqe(l->watcher, &cqe), 0);
			io_uring_cqe_seen(l->watcher, cqe);
		}
	}
	if (l->epfd >= 0)
		close(l->epfd);
}

/* one sleep of the loop: true when the fd was reported readable */
static bool t_loop_wait(struct t_loop *l, int ms)
{
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
	struct __kernel_timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	struct io_uring_cqe *cqe;
	struct epoll_event ev;
	fd_set set;
	int ret;

	switch (l->m) {
	case T_POLL:
		ret = poll(&pfd, 1, ms);
		if (ret < 0 && errno == EINTR)
			return false;
		CHECK(ret >= 0);
		return ret == 1 && (pfd.revents & POLLIN);
	case T_SELECT:
		FD_ZERO(&set);
		FD_SET(l->fd, &set);
		ret = select(l->fd + 1, &set, NULL, NULL, &tv);
		if (ret < 0 && errno == EINTR)
			return false;
		CHECK(ret >= 0);
		return ret == 1;
	case T_EPOLL:
	case T_EPOLLET:
		ret = epoll_wait(l->epfd, &ev, 1, ms);
		if (ret < 0 && errno == EINTR)
			return false;
		CHECK(ret >= 0);
		return ret == 1 && (ev.events & EPOLLIN);
	default:
		if (!l->armed) {
			struct io_uring_sqe *sqe = t_sqe(l->watcher);

			io_uring_prep_poll_add(sqe, l->fd, POLLIN);
			sqe->user_data = 1;
			CHECK_EQ(io_uring_submit(l->watcher), 1);
			l->armed = true;
		}
		ret = io_uring_wait_cqe_timeout(l->watcher, &cqe, &ts);
		if (ret == -ETIME)
			return false;
		CHECK_EQ(ret, 0);
		CHECK_EQ(cqe->user_data, 1);
		CHECK(cqe->res & POLLIN);
		io_uring_cqe_seen(l->watcher, cqe);
		l->armed = false;
		return true;
	}
}

/* reap from memory, as an event loop with the inline helpers does */
static unsigned t_reap(struct io_uring *ring)
{
	unsigned head, n = 0;
	struct io_uring_cqe *cqe;

	io_uring_for_each_cqe(ring, head, cqe) {
		CHECK(cqe->res >= 0);
		n++;
	}
	io_uring_cq_advance(ring, n);
	return n;
}

struct t_writer {
	pthread_t thread;
	int pipe_w;
	atomic_uint go, done;
};

/* writes one byte each time it is told to: a completion from another thread */
static void *t_writer_main(void *arg)
{
	struct t_writer *w = arg;
	unsigned seen = 0, go;

	for (;;) {
		while ((go = atomic_load(&w->go)) == seen)
			usleep(100);
		if (go == ~0U)
			return NULL;
		seen = go;
		CHECK_EQ(write(w->pipe_w, "x", 1), 1);
	}
}

/*
 * With the CQ reaped, the fd stops polling readable: at once on the
 * kernel; on the user engine as soon as the thread that posted has
 * finished its signal (it may be descheduled between its CQE and its
 * write, for however long a busy machine makes it). A readable fd with
 * an empty CQ that never ends is the busy loop this fails on; the
 * deadline only turns that into a failure.
 */
static void t_settles(struct t_loop *l, int round)
{
	long long end = t_now_ns() + T_HANG_SEC * 1000000000LL;

	while (t_loop_wait(l, 0)) {
		if (t_now_ns() > end) {
			fprintf(stderr, "%s: round %d: the fd stays readable "
				"with the CQ empty\n", t_names[l->m], round);
			exit(1);
		}
		usleep(1000);
	}
}

static void t_ringfd(enum t_method m)
{
	struct io_uring ring, watcher;
	struct t_writer w = { 0 };
	struct t_loop l;
	char buf[T_ROUNDS];
	long long end;
	int p[2], i;

	t_ring(&ring, 8, NULL);
	if (m == T_POLL_ADD)
		t_ring(&watcher, 8, NULL);
	CHECK_EQ(pipe(p), 0);
	t_loop_init(&l, m, ring.ring_fd, m == T_POLL_ADD ? &watcher : NULL);

	/* a NOP: readable; reaped from memory: not readable, the loop sleeps */
	io_uring_prep_nop(t_sqe(&ring));
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK(t_loop_wait(&l, T_WAIT_MS));
	CHECK_EQ(t_reap(&ring), 1);
	t_settles(&l, -1);
	CHECK(!t_loop_wait(&l, 0));

	/* completions made by another thread while the loop sleeps */
	w.pipe_w = p[1];
	CHECK_EQ(pthread_create(&w.thread, NULL, t_writer_main, &w), 0);
	for (i = 0; i < T_ROUNDS; i++) {
		io_uring_prep_read(t_sqe(&ring), p[0], buf + i, 1, 0);
		CHECK_EQ(io_uring_submit(&ring), 1);
		atomic_fetch_add(&w.go, 1);
		/*
		 * Woken for the CQE (an EINTR, or an empty wakeup while the
		 * poster finishes its signal, sleeps again), until the
		 * deadline that turns a lost wakeup into a failure.
		 */
		end = t_now_ns() + T_WAIT_MS * 1000000LL;
		while (!t_reap(&ring)) {
			t_loop_wait(&l, T_WAIT_MS);
			if (t_now_ns() > end) {
				fprintf(stderr, "%s: round %d: no wakeup for the "
					"read's CQE\n", t_names[m], i);
				exit(1);
			}
		}
		t_settles(&l, i);
	}
	atomic_store(&w.go, ~0U);
	pthread_join(w.thread, NULL);

	/* edge-triggered, CQEs left: the next post still wakes the loop */
	if (m == T_EPOLLET) {
		io_uring_prep_nop(t_sqe(&ring));
		CHECK_EQ(io_uring_submit(&ring), 1);
		CHECK(t_loop_wait(&l, T_WAIT_MS));
		io_uring_prep_nop(t_sqe(&ring));
		CHECK_EQ(io_uring_submit(&ring), 1);
		CHECK(t_loop_wait(&l, T_WAIT_MS));
		CHECK_EQ(t_reap(&ring), 2);
	}
	t_loop_exit(&l);
	close(p[0]);
	close(p[1]);
	if (m == T_POLL_ADD)
		io_uring_queue_exit(&watcher);
	io_uring_queue_exit(&ring);
}

static int t_efd;

static unsigned long t_count(void)
{
	unsigned long v = 0;

	if (read(t_efd, &v, sizeof(v)) < 0)
		CHECK_EQ(errno, EAGAIN);
	return v;
}

/* n NOPs with sqe flags, each submit taking `per` of them */
static void t_nops(struct io_uring *ring, unsigned n, unsigned per,
		   unsigned flags)
{
	struct io_uring_cqe *cqe;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = t_sqe(ring);

		io_uring_prep_nop(sqe);
		sqe->flags |= flags;
		if ((i + 1) % per == 0)
			CHECK_EQ(io_uring_submit(ring), (int)per);
	}
	if (flags & IOSQE_CQE_SKIP_SUCCESS)
		return;
	for (i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		io_uring_cqe_seen(ring, cqe);
	}
}

static void t_eventfd_ring(struct io_uring *ring, bool async)
{
	t_ring(ring, 16, NULL);
	t_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(t_efd >= 0);
	if (async)
		CHECK_EQ(io_uring_register_eventfd_async(ring, t_efd), 0);
	else
		CHECK_EQ(io_uring_register_eventfd(ring, t_efd), 0);
}

static void t_eventfd(bool async)
{
	struct pollfd pfd = { .events = POLLIN };
	struct io_uring ring;

	/* completions made inline: the kernel's counts */
	t_eventfd_ring(&ring, async);
	/* one submit of 3 NOPs: one signal; 3 submits: 3; none for async */
	t_nops(&ring, 3, 3, 0);
	CHECK_EQ(t_count(), async ? 0 : 1);
	t_nops(&ring, 3, 1, 0);
	CHECK_EQ(t_count(), async ? 0 : 3);
	/* no CQE, no signal; an enter that posts nothing signals nothing */
	t_nops(&ring, 1, 1, IOSQE_CQE_SKIP_SUCCESS);
	CHECK_EQ(io_uring_submit_and_wait(&ring, 0), 0);
	CHECK_EQ(t_count(), 0);
	/* disabled: nothing, and enabled again: the next post signals */
	CHECK_EQ(io_uring_cq_eventfd_toggle(&ring, false), 0);
	t_nops(&ring, 2, 1, 0);
	CHECK_EQ(t_count(), 0);
	CHECK_EQ(io_uring_cq_eventfd_toggle(&ring, true), 0);
	t_nops(&ring, 1, 1, 0);
	CHECK_EQ(t_count(), async ? 0 : 1);
	close(t_efd);
	io_uring_queue_exit(&ring);

	/*
	 * Completions made by io-wq workers signal either variant. How
	 * many times is left open: the kernel signals once per worker's
	 * post; the user engine may also signal when the worker queues
	 * the completion, which can come after the CQE was reaped.
	 */
	t_eventfd_ring(&ring, async);
	t_nops(&ring, 3, 3, IOSQE_ASYNC);
	pfd.fd = t_efd;
	CHECK_EQ(poll(&pfd, 1, T_WAIT_MS), 1);
	close(t_efd);
	io_uring_queue_exit(&ring);
}

/*
 * A ring (the watcher) polls what a second ring's completion makes
 * readable: the second's ring fd, or its registered eventfd. The kernel
 * runs the watcher's poll as task work of the thread that armed it,
 * on its way out of the enter that posted, so the watcher's CQE is
 * there when io_uring_submit() on the second ring returns, with no
 * enter on the watcher (liburing's poll test). A DEFER_TASKRUN watcher
 * would wait for its own enter instead; the second ring may be one.
 */
static void t_watch_one(unsigned flags, bool by_eventfd)
{
	struct io_uring_params p = { .flags = flags };
	struct io_uring ring, watcher;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int efd = -1, fd;

	t_ring(&ring, 8, &p);
	t_ring(&watcher, 8, NULL);
	fd = ring.ring_fd;
	if (by_eventfd) {
		efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		CHECK(efd >= 0);
		CHECK_EQ(io_uring_register_eventfd(&ring, efd), 0);
		fd = efd;
	}
	sqe = io_uring_get_sqe(&watcher);
	io_uring_prep_poll_add(sqe, fd, POLLIN);
	sqe->user_data = 1;
	CHECK_EQ(io_uring_submit(&watcher), 1);
	CHECK_EQ(io_uring_cq_ready(&watcher), 0);

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit(&ring), 1);
	/* no enter on the watcher: its CQE came with the submit's return */
	CHECK_EQ(io_uring_cq_ready(&watcher), 1);
	CHECK_EQ(io_uring_peek_cqe(&watcher, &cqe), 0);
	CHECK_EQ(cqe->user_data, 1);
	CHECK(cqe->res & POLLIN);
	io_uring_cqe_seen(&watcher, cqe);

	if (efd >= 0)
		close(efd);
	io_uring_queue_exit(&watcher);
	io_uring_queue_exit(&ring);
}

/*
 * A DEFER_TASKRUN ring reads its own registered eventfd: the READ armed,
 * a NOP's CQE signals the eventfd, which makes the READ ready, and the
 * task reads 1 in its wait. The kernel's second signal, for the local
 * work the READ's wakeup queues, is raised inside the first one's
 * wakeup and deferred (call_rcu): the READ never sees it. The user
 * engine's service thread must not signal a readable eventfd again for
 * that readiness (liburing's eventfd-disable: a race it lost 1 time in
 * 10). Rounds, each with a fresh ring and eventfd.
 */
#define T_EFD_READ_ROUNDS	1000

static void t_eventfd_self_read(void)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	uint64_t val;
	int efd, i, r;

	for (r = 0; r < T_EFD_READ_ROUNDS; r++) {
		t_ring(&ring, 8, &p);
		efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		CHECK(efd >= 0);
		CHECK_EQ(io_uring_register_eventfd(&ring, efd), 0);
		val = 0;
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, efd, &val, sizeof(val), 0);
		sqe->user_data = 1;
		CHECK_EQ(io_uring_submit(&ring), 1);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 2;
		CHECK_EQ(io_uring_submit(&ring), 1);
		for (i = 0; i < 2; i++) {
			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
			if (cqe->user_data == 1) {
				CHECK_EQ(cqe->res, (int)sizeof(val));
				CHECK_EQ(val, 1);
			} else {
				CHECK_EQ(cqe->res, 0);
			}
			io_uring_cqe_seen(&ring, cqe);
		}
		io_uring_queue_exit(&ring);
		close(efd);
	}
}

/*
 * A DEFER_TASKRUN ring's POLL_ADD on an eventfd that the program then
 * writes: the kernel queues the task's local work at the wakeup, so a
 * poll(2) made next finds the ring fd readable and, with TASKRUN_FLAG,
 * IORING_SQ_TASKRUN up, while the CQ stays empty until the task enters
 * (liburing's defer-taskrun, test_flag). The task's enter posts the CQE
 * and the flag comes down. Rounds, each with a fresh ring and eventfd.
 */
#define T_DEFER_READY_ROUNDS	100

static void t_defer_ready(bool flag)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			 (flag ? IORING_SETUP_TASKRUN_FLAG : 0),
	};
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct pollfd pfd;
	uint64_t one = 1;
	int efd, r;

	for (r = 0; r < T_DEFER_READY_ROUNDS; r++) {
		t_ring(&ring, 8, &p);
		efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		CHECK(efd >= 0);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_poll_add(sqe, efd, POLLIN);
		sqe->user_data = 7;
		CHECK_EQ(io_uring_submit(&ring), 1);
		pfd = (struct pollfd){ .fd = ring.ring_fd, .events = POLLIN };
		CHECK_EQ(poll(&pfd, 1, 0), 0);
		CHECK_EQ(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
		pfd = (struct pollfd){ .fd = ring.ring_fd, .events = POLLIN };
		CHECK_EQ(poll(&pfd, 1, 0), 1);
		CHECK_EQ(io_uring_cq_ready(&ring), 0);
		if (flag)
			CHECK(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_TASKRUN);
		/* with the flag a peek enters; without, a wait does */
		if (flag)
			CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		else
			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, 7);
		CHECK(cqe->res & POLLIN);
		io_uring_cqe_seen(&ring, cqe);
		if (flag)
			CHECK(!(IO_URING_READ_ONCE(*ring.sq.kflags) &
				IORING_SQ_TASKRUN));
		io_uring_queue_exit(&ring);
		close(efd);
	}
}

/*
 * A multishot POLL_ADD on a file the program writes and then reads
 * itself, with no enter between (liburing's poll-mshot-overflow and
 * poll-mshot-wake). The kernel's wakeup queues the poll's task work at
 * the write, which runs on the write's way out: the CQE is posted
 * before the read takes what the file had. Each way of reading: read(),
 * readv(), eventfd_read(), recv(), recvmsg(); then a peek finds one
 * CQE per round, with MORE.
 */
/* a multishot POLL_ADD (user_data 1) of fd for POLLIN, submitted */
static void t_arm_mshot(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_poll_multishot(sqe, fd, POLLIN);
	sqe->user_data = 1;
	CHECK_EQ(io_uring_submit(ring), 1);
}

enum t_take { T_READ, T_READV, T_EVENTFD_READ, T_RECV, T_RECVMSG, T_TAKE_NR };

static const char *const t_take_names[T_TAKE_NR] = {
	"read", "readv", "eventfd_read", "recv", "recvmsg",
};

#define T_TAKE_ROUNDS	50

static void t_take_pair(enum t_take how, int fds[2])
{
	if (how == T_EVENTFD_READ) {
		fds[0] = fds[1] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		CHECK(fds[0] >= 0);
	} else if (how == T_RECV || how == T_RECVMSG) {
		CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
	} else {
		CHECK_EQ(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	}
}

static void t_take_one(enum t_take how, int fds[2])
{
	uint64_t v = 1;
	eventfd_t ev;
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	CHECK_EQ(write(fds[1], &v, sizeof(v)), (ssize_t)sizeof(v));
	switch (how) {
	case T_READ:
		CHECK_EQ(read(fds[0], &v, sizeof(v)), (ssize_t)sizeof(v));
		break;
	case T_READV:
		CHECK_EQ(readv(fds[0], &iov, 1), (ssize_t)sizeof(v));
		break;
	case T_EVENTFD_READ:
		CHECK_EQ(eventfd_read(fds[0], &ev), 0);
		CHECK_EQ(ev, 1);
		break;
	case T_RECV:
		CHECK_EQ(recv(fds[0], &v, sizeof(v), 0), (ssize_t)sizeof(v));
		break;
	default:
		CHECK_EQ(recvmsg(fds[0], &m, 0), (ssize_t)sizeof(v));
		break;
	}
}

static void t_take_close(enum t_take how, int fds[2])
{
	close(fds[0]);
	if (how != T_EVENTFD_READ)
		close(fds[1]);
}

static void t_read_takes(enum t_take how)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fds[2], r;

	t_ring(&ring, 8, NULL);
	t_take_pair(how, fds);
	t_arm_mshot(&ring, fds[0]);
	for (r = 0; r < T_TAKE_ROUNDS; r++) {
		t_take_one(how, fds);
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, 1);
		CHECK(cqe->res & POLLIN);
		CHECK(cqe->flags & IORING_CQE_F_MORE);
		io_uring_cqe_seen(&ring, cqe);
		CHECK_EQ(io_uring_cq_ready(&ring), 0);
	}
	io_uring_queue_exit(&ring);
	t_take_close(how, fds);
}

/*
 * The same on a DEFER_TASKRUN ring: the kernel queues the task's local
 * work at the write, with the mask the wakeup carried, and posts it at
 * the task's next wait, after the read took the data. The CQ stays
 * empty until then; with TASKRUN_FLAG, IORING_SQ_TASKRUN is up.
 */
static void t_read_takes_defer(bool flag)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			 (flag ? IORING_SETUP_TASKRUN_FLAG : 0),
	};
	struct __kernel_timespec ts = { .tv_sec = T_WAIT_MS / 1000 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fds[2], r;

	t_ring(&ring, 8, &p);
	t_take_pair(T_READ, fds);
	t_arm_mshot(&ring, fds[0]);
	for (r = 0; r < T_TAKE_ROUNDS; r++) {
		t_take_one(T_READ, fds);
		CHECK_EQ(io_uring_cq_ready(&ring), 0);
		if (flag)
			CHECK(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_TASKRUN);
		CHECK_EQ(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), 0);
		CHECK_EQ(cqe->user_data, 1);
		CHECK_EQ(cqe->res, POLLIN);
		CHECK(cqe->flags & IORING_CQE_F_MORE);
		io_uring_cqe_seen(&ring, cqe);
		CHECK_EQ(io_uring_cq_ready(&ring), 0);
	}
	/* the ring ends with what a read took still for the task: cancelled */
	t_take_one(T_READ, fds);
	io_uring_queue_exit(&ring);
	t_take_close(T_READ, fds);
}

/*
 * A DEFER_TASKRUN ring ends with a buffer-select RECV armed, its data
 * come, a read of the socket having taken the edge for the task, and the
 * buffer ring unmapped by the program first (liburing's recv-inc-ooo,
 * which ends its ring so): the end cancels the RECV, which must not
 * select a buffer from the unmapped ring.
 */
#define T_END_BUFS	8
#define T_END_BGID	7

static void t_end_unmapped(void)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	static char bufs[T_END_BUFS][64];
	struct io_uring_buf_reg reg = { 0 };
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int fds[2], efd[2];
	uint64_t v = 1;

	t_ring(&ring, 8, &p);
	br = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(br != MAP_FAILED);
	io_uring_buf_ring_init(br);
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = T_END_BUFS;
	reg.bgid = T_END_BGID;
	CHECK_EQ(io_uring_register_buf_ring(&ring, &reg, 0), 0);
	for (int i = 0; i < T_END_BUFS; i++)
		io_uring_buf_ring_add(br, bufs[i], sizeof(bufs[i]),
				      (unsigned short)i,
				      io_uring_buf_ring_mask(T_END_BUFS), i);
	io_uring_buf_ring_advance(br, T_END_BUFS);
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
	/* a multishot poll on an eventfd: its read is the look at the ring */
	t_take_pair(T_EVENTFD_READ, efd);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_multishot(sqe, efd[0], POLLIN);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_recv(sqe, fds[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = T_END_BGID;
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK_EQ(write(fds[1], "x", 1), 1);
	CHECK_EQ(write(efd[1], &v, sizeof(v)), (ssize_t)sizeof(v));
	CHECK_EQ(read(efd[0], &v, sizeof(v)), (ssize_t)sizeof(v));
	CHECK_EQ(munmap(br, 4096), 0);
	io_uring_queue_exit(&ring);
	close(fds[0]);
	close(fds[1]);
	t_take_close(T_EVENTFD_READ, efd);
}

/*
 * The same with a CQ of 2 and 8 rounds before the first look: two CQEs
 * with MORE, then the poll ends, its final CQE in the overflow list.
 */
static void t_read_takes_overflow(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 2 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned n = 0;
	int fds[2], r;

	t_ring(&ring, 2, &p);
	t_take_pair(T_READ, fds);
	t_arm_mshot(&ring, fds[0]);
	for (r = 0; r < 8; r++)
		t_take_one(T_READ, fds);
	while (!io_uring_peek_cqe(&ring, &cqe)) {
		CHECK_EQ(cqe->user_data, 1);
		CHECK_EQ(cqe->res, POLLIN);
		CHECK_EQ(!!(cqe->flags & IORING_CQE_F_MORE), n < 2);
		io_uring_cqe_seen(&ring, cqe);
		n++;
	}
	CHECK_EQ(n, 3);
	io_uring_queue_exit(&ring);
	t_take_close(T_READ, fds);
}

/*
 * A thread cancelled while it writes and reads a file a multishot poll
 * waits on: the look before each read holds engine locks across what
 * would be cancellation points (epoll_wait(), a condition wait), so a
 * cancel that acted there left the ring's reap lock held, and the next
 * read hung. The cancel acts in libc's read or write instead; the
 * program then reads on, and its ring ends.
 */
struct t_cancel_arg {
	struct io_uring *ring;
	int *fds;
	atomic_uint rounds;
};

static void *t_cancel_main(void *arg)
{
	struct t_cancel_arg *a = arg;
	struct io_uring_cqe *cqe;
	uint64_t v = 1;

	for (;;) {
		(void)!write(a->fds[1], &v, sizeof(v));
		(void)!read(a->fds[0], &v, sizeof(v));
		while (!io_uring_peek_cqe(a->ring, &cqe))
			io_uring_cqe_seen(a->ring, cqe);
		atomic_fetch_add(&a->rounds, 1);
	}
	return NULL;
}

/*
 * Not under ASan: the runtime of Debian 12's GCC reports the cancelled
 * thread's own exit (its stack left poisoned by the unwind) as a
 * stack-buffer-underflow, on either engine.
 */
#if defined(__SANITIZE_ADDRESS__)
#define T_CANCEL_ROUNDS		0
#else
#define T_CANCEL_ROUNDS		20
#endif

static void t_read_cancelled(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 4096 };
	struct t_cancel_arg a;
	struct io_uring ring;
	pthread_t tid;
	int fds[2], r;

	for (r = 0; r < T_CANCEL_ROUNDS; r++) {
		t_ring(&ring, 8, &p);
		t_take_pair(T_READ, fds);
		t_arm_mshot(&ring, fds[0]);
		a.ring = &ring;
		a.fds = fds;
		atomic_init(&a.rounds, 0);
		CHECK_EQ(pthread_create(&tid, NULL, t_cancel_main, &a), 0);
		/* progress, not time: some rounds of its loop first */
		while (atomic_load(&a.rounds) < 100U + (unsigned)r * 37)
			sched_yield();
		CHECK_EQ(pthread_cancel(tid), 0);
		CHECK_EQ(pthread_join(tid, NULL), 0);
		/* the poll is still armed, and a read looks at it again */
		t_take_one(T_READ, fds);
		io_uring_queue_exit(&ring);
		t_take_close(T_READ, fds);
	}
}

/*
 * A multishot POLL_ADD on the ring's own registered eventfd: its first
 * CQE signals the eventfd, and the kernel's wakeup from an io_uring
 * signal (EPOLL_URING_WAKE) makes the poll oneshot, so a final CQE
 * (POLLIN, no MORE) follows at once. An async eventfd is not signalled
 * by the poll's CQEs: the poll stays multishot.
 */
static void t_own_eventfd(bool async)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	uint64_t v = 1;
	int efd, r;

	t_ring(&ring, 8, NULL);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(efd >= 0);
	CHECK_EQ(async ? io_uring_register_eventfd_async(&ring, efd) :
		 io_uring_register_eventfd(&ring, efd), 0);
	t_arm_mshot(&ring, efd);
	for (r = 0; r < (async ? 3 : 1); r++) {
		CHECK_EQ(write(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
		CHECK_EQ(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, 1);
		CHECK_EQ(cqe->res, POLLIN);
		CHECK(cqe->flags & IORING_CQE_F_MORE);
		io_uring_cqe_seen(&ring, cqe);
	}
	if (!async) {
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, 1);
		CHECK_EQ(cqe->res, POLLIN);
		CHECK(!(cqe->flags & IORING_CQE_F_MORE));
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	io_uring_queue_exit(&ring);
	close(efd);
}

/*
 * The same poll, readied by the eventfd signal of a NOP's CQE alone: the
 * wakeup is io_uring's, so the poll's one CQE is its final one, and a
 * POLL_REMOVE finds nothing armed.
 */
static void t_own_eventfd_nop(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	bool nop = false, poll = false;
	int efd, i;

	t_ring(&ring, 8, NULL);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(efd >= 0);
	CHECK_EQ(io_uring_register_eventfd(&ring, efd), 0);
	t_arm_mshot(&ring, efd);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit(&ring), 1);
	for (i = 0; i < 2; i++) {
		struct __kernel_timespec ts = { .tv_sec = T_WAIT_MS / 1000 };

		CHECK_EQ(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), 0);
		if (cqe->user_data == 2) {
			CHECK(!nop);
			nop = true;
		} else {
			CHECK_EQ(cqe->user_data, 1);
			CHECK(!poll);
			poll = true;
			CHECK_EQ(cqe->res, POLLIN);
			CHECK(!(cqe->flags & IORING_CQE_F_MORE));
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_remove(sqe, 1);
	sqe->user_data = 3;
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 3);
	CHECK_EQ(cqe->res, -ENOENT);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	close(efd);
}

static void t_watch(void)
{
	unsigned defer = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;

	t_watch_one(0, false);
	t_watch_one(defer, false);
	t_watch_one(0, true);
	t_watch_one(defer, true);
}

int main(void)
{
	for (int m = 0; m < T_NR; m++)
		t_ringfd((enum t_method)m);
	t_eventfd(false);
	t_eventfd(true);
	t_watch();
	t_eventfd_self_read();
	t_defer_ready(false);
	t_defer_ready(true);
	for (int h = 0; h < T_TAKE_NR; h++) {
		t_read_takes((enum t_take)h);
		printf("multishot poll's CQE posted before the program's %s "
		       "took the data\n", t_take_names[h]);
	}
	t_read_takes_overflow();
	t_read_takes_defer(false);
	t_read_takes_defer(true);
	t_read_cancelled();
	t_end_unmapped();
	t_own_eventfd(false);
	t_own_eventfd(true);
	t_own_eventfd_nop();
	printf("ring fd readable while CQEs wait, for poll, select, epoll (LT, "
	       "ET) and POLL_ADD; registered eventfd signals as the kernel's; "
	       "a ring polling another's fd has its CQE at the submit's "
	       "return; a ring reading its own eventfd reads 1; a DEFER_TASKRUN "
	       "ring's readiness shows at the next poll; a multishot poll on the ring's "
	       "own eventfd ends after its first CQE (%s)\n", t_engine());
	return 0;
}
