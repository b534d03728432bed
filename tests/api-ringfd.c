/* SPDX-License-Identifier: MIT */
/*
 * api-ringfd.c - a dup of a ring fd is the ring. On the kernel any fd
 * that refers to the ring's file serves enter and register; the user
 * engine must find its ring from a dup too, and refuse a dup wherever
 * the kernel refuses an io_uring fd (as a fixed file, as CLOSE's target,
 * as an fd a SENDMSG passes over a socket).
 *
 * Then a battery: rounds of requests submitted and reaped through dups
 * that come and go, with a count per user_data: exactly one CQE each.
 */
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include "test.h"

#ifndef IORING_REGISTER_USE_REGISTERED_RING	/* 6.3; liburing 2.3 lacks it */
#define IORING_REGISTER_USE_REGISTERED_RING	(1U << 31)
#endif

#define T_ROUNDS	200
#define T_PER_ROUND	24
#define T_SOAK_ROUNDS	42000	/* 10^6 requests */

/* what a raw program does: make the prepared SQEs visible, return how many */
static unsigned t_flush(struct io_uring *ring)
{
	unsigned n = ring->sq.sqe_tail - ring->sq.sqe_head;

	io_uring_smp_store_release(ring->sq.ktail, ring->sq.sqe_tail);
	ring->sq.sqe_head = ring->sq.sqe_tail;
	return n;
}

static void t_nop(struct io_uring *ring, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	CHECK(sqe);
	io_uring_prep_nop(sqe);
	sqe->user_data = ud;
}

/* one CQE, which must have user_data ud; returns its res */
static int t_reap_one(struct io_uring *ring, __u64 ud)
{
	struct io_uring_cqe *cqe;
	int res;

	CHECK(io_uring_peek_cqe(ring, &cqe) == 0);
	CHECK_EQ(cqe->user_data, ud);
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* submit and wait through dups: the kernel's 1, then 0 with the CQE there */
static void t_enter_dup(struct io_uring *ring, int d)
{
	t_nop(ring, 1);
	CHECK_EQ(io_uring_enter(d, t_flush(ring), 0, 0, NULL), 1);
	CHECK_EQ(io_uring_enter(d, 0, 1, IORING_ENTER_GETEVENTS, NULL), 0);
	CHECK_EQ(t_reap_one(ring, 1), 0);
	/* both in one call */
	t_nop(ring, 2);
	CHECK_EQ(io_uring_enter(d, t_flush(ring), 1, IORING_ENTER_GETEVENTS,
				NULL), 1);
	CHECK_EQ(t_reap_one(ring, 2), 0);
}

/* register and unregister through a dup */
static void t_register_dup(struct io_uring *ring, int d)
{
	struct io_uring_probe *probe;
	int fds[1] = { STDERR_FILENO };

	probe = calloc(1, sizeof(*probe) + 256 * sizeof(probe->ops[0]));
	CHECK(probe);
	CHECK_EQ(io_uring_register(d, IORING_REGISTER_PROBE, probe, 256), 0);
	CHECK(probe->last_op >= IORING_OP_NOP);
	free(probe);
	CHECK_EQ(io_uring_register(d, IORING_REGISTER_FILES, fds, 1), 0);
	CHECK_EQ(io_uring_register(d, IORING_UNREGISTER_FILES, NULL, 0), 0);
	(void)ring;
}

/* a dup is refused where the kernel refuses an io_uring fd */
static void t_refused(struct io_uring *ring, int d)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fds[1] = { d };

	CHECK_EQ(io_uring_register_files(ring, fds, 1), -EBADF);
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_close(sqe, d);
	sqe->user_data = 3;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK(io_uring_peek_cqe(ring, &cqe) == 0);
	CHECK_EQ(cqe->user_data, 3);
	CHECK_EQ(cqe->res, -EBADF);
	io_uring_cqe_seen(ring, cqe);
	CHECK(fcntl(d, F_GETFD) >= 0);
}

/*
 * Raw calls by registered index reach the ring; a forked child has no
 * registered rings (a new task on the kernel), so its index is unknown.
 */
static void t_raw_index(struct io_uring *ring, unsigned idx)
{
	struct io_uring_probe *probe;
	int status;
	pid_t pid;

	t_nop(ring, 8);
	CHECK_EQ(io_uring_enter(idx, t_flush(ring), 1, IORING_ENTER_GETEVENTS |
				IORING_ENTER_REGISTERED_RING, NULL), 1);
	CHECK_EQ(t_reap_one(ring, 8), 0);
	probe = calloc(1, sizeof(*probe) + 256 * sizeof(probe->ops[0]));
	CHECK(probe);
	CHECK_EQ(io_uring_register(idx, IORING_REGISTER_PROBE |
				   IORING_REGISTER_USE_REGISTERED_RING,
				   probe, 256), 0);
	CHECK(probe->last_op >= IORING_OP_NOP);
	free(probe);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		int ret = io_uring_enter(idx, 0, 0, IORING_ENTER_REGISTERED_RING,
					 NULL);

		if (ret != -EINVAL)
			fprintf(stderr, "child: enter by index: %d\n", ret);
		_exit(ret == -EINVAL ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A forked child's dup of a ring fd: the child shares the ring, as its own fd */
static void t_fork_dup(struct io_uring *ring, int d)
{
	int status, want = 0;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (!pid) {
		int r1 = io_uring_enter(d, 0, 0, 0, NULL);
		int r2 = io_uring_enter(ring->ring_fd, 0, 0, 0, NULL);

		if (r1 != want || r2 != want)
			fprintf(stderr, "child: enter on dup %d, on fd %d\n", r1, r2);
		_exit(r1 == want && r2 == want ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* a dup registered as a ring fd: its index enters the ring */
static void t_register_ring_dup(struct io_uring *ring, int d)
{
	int fd = ring->ring_fd;
	unsigned idx;

	ring->ring_fd = d;
	CHECK_EQ(io_uring_register_ring_fd(ring), 1);
	ring->ring_fd = fd;
	t_nop(ring, 4);
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK_EQ(t_reap_one(ring, 4), 0);
	t_raw_index(ring, ring->enter_ring_fd);
	idx = ring->enter_ring_fd;
	CHECK_EQ(io_uring_unregister_ring_fd(ring), 1);
	/* a task the kernel knows: an empty slot -EBADF, past the table -EINVAL */
	CHECK_EQ(io_uring_enter(idx, 0, 0, IORING_ENTER_REGISTERED_RING, NULL),
		 -EBADF);
	CHECK_EQ(io_uring_enter(20, 0, 0, IORING_ENTER_REGISTERED_RING, NULL),
		 -EINVAL);
	CHECK_EQ(io_uring_register(idx, IORING_REGISTER_PROBE |
				   IORING_REGISTER_USE_REGISTERED_RING, NULL, 0),
		 -EBADF);
}

/* liburing's own calls on a ring whose ring_fd is a dup */
static void t_api_dup(struct io_uring *ring, int d)
{
	int fd = ring->ring_fd;

	ring->ring_fd = d;
	t_nop(ring, 5);
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK_EQ(t_reap_one(ring, 5), 0);
	CHECK_EQ(io_uring_register_files(ring, &(int){ STDERR_FILENO }, 1), 0);
	CHECK_EQ(io_uring_unregister_files(ring), 0);
	ring->ring_fd = fd;
}

/* a dup of one ring reaches that ring, not another */
static void t_two_rings(void)
{
	struct io_uring a, b;
	int d;

	t_ring(&a, 8, NULL);
	t_ring(&b, 8, NULL);
	d = dup(b.ring_fd);
	CHECK(d >= 0);
	t_nop(&b, 6);
	CHECK_EQ(io_uring_enter(d, t_flush(&b), 1, IORING_ENTER_GETEVENTS,
				NULL), 1);
	CHECK_EQ(io_uring_cq_ready(&a), 0);
	CHECK_EQ(t_reap_one(&b, 6), 0);
	close(d);
	io_uring_queue_exit(&a);
	io_uring_queue_exit(&b);
}

/* fds that are no ring: the kernel's answer, whatever rings exist */
static void t_not_rings(struct io_uring *ring)
{
	int efd = eventfd(0, EFD_CLOEXEC), ep = epoll_create1(EPOLL_CLOEXEC);
	int p[2];

	CHECK(efd >= 0 && ep >= 0 && !pipe(p));
	CHECK_EQ(io_uring_enter(efd, 0, 1, IORING_ENTER_GETEVENTS, NULL),
		 -EOPNOTSUPP);
	CHECK_EQ(io_uring_enter(ep, 0, 0, 0, NULL), -EOPNOTSUPP);
	CHECK_EQ(io_uring_register(p[0], IORING_UNREGISTER_FILES, NULL, 0),
		 -EOPNOTSUPP);
	CHECK_EQ(io_uring_enter(1000000, 0, 0, 0, NULL), -EBADF);
	close(efd), close(ep), close(p[0]), close(p[1]);
	(void)ring;
}

/* ATTACH_WQ names its ring by fd: a dup works as the kernel's */
static void t_attach_dup(struct io_uring *ring, int d)
{
	struct io_uring_params p = { .flags = IORING_SETUP_ATTACH_WQ };
	struct io_uring r2;

	p.wq_fd = (__u32)d;
	t_ring(&r2, 8, &p);
	io_uring_queue_exit(&r2);
	(void)ring;
}

/*
 * The battery: each round submits NOPs, pipe reads and short timeouts,
 * some through the ring's fd and some through dups made and closed
 * along the way, then reaps through whichever fd is open. Every
 * user_data must be seen once.
 */
static void *t_battery(void *arg)
{
	unsigned rounds = *(unsigned *)arg;
	static unsigned char seen[T_SOAK_ROUNDS][T_PER_ROUND];
	struct __kernel_timespec ts = { .tv_nsec = 1000 };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char buf[T_PER_ROUND];
	int p[2], fds[3];

	CHECK(rounds <= T_SOAK_ROUNDS);
	for (unsigned r = 0; r < rounds; r++) {
		unsigned got = 0, kind;

		t_ring(&ring, 64, NULL);
		CHECK(!pipe(p));
		fds[0] = ring.ring_fd;
		fds[1] = dup(ring.ring_fd);
		fds[2] = fcntl(ring.ring_fd, F_DUPFD_CLOEXEC, 100 + r % 50);
		CHECK(fds[1] >= 0 && fds[2] >= 0);
		for (unsigned i = 0; i < T_PER_ROUND; i++) {
			__u64 ud = (__u64)r << 32 | i;

			sqe = io_uring_get_sqe(&ring);
			kind = (i + r) % 3;
			if (kind == 0)
				io_uring_prep_nop(sqe);
			else if (kind == 1)
				io_uring_prep_read(sqe, p[0], &buf[i], 1, 0);
			else
				io_uring_prep_timeout(sqe, &ts, 0, 0);
			sqe->user_data = ud;
			if (i % 4 == 3)
				CHECK_EQ(io_uring_enter(fds[i % 3],
							t_flush(&ring), 0, 0,
							NULL), 4);
			if (i == T_PER_ROUND / 2)
				close(fds[1]), fds[1] = fds[2];
		}
		/* feed every pipe read */
		CHECK_EQ(write(p[1], buf, T_PER_ROUND), T_PER_ROUND);
		while (got < T_PER_ROUND) {
			int ret = io_uring_enter(fds[got % 2 + 1], 0, 1,
						 IORING_ENTER_GETEVENTS, NULL);

			CHECK(ret == 0 || ret == -EINTR);
			while (io_uring_peek_cqe(&ring, &cqe) == 0) {
				unsigned hi = cqe->user_data >> 32;
				unsigned lo = cqe->user_data & 0xffffffffu;

				CHECK_EQ(hi, r);
				CHECK(lo < T_PER_ROUND);
				CHECK_EQ(seen[r][lo]++, 0);
				got++;
				io_uring_cqe_seen(&ring, cqe);
			}
		}
		close(fds[2]);
		close(p[0]), close(p[1]);
		io_uring_queue_exit(&ring);
	}
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < T_PER_ROUND; i++)
			CHECK_EQ(seen[r][i], 1);
	printf("battery: %u rounds, %u requests, each reaped once\n",
	       rounds, rounds * T_PER_ROUND);
	return NULL;
}

/*
 * In a thread of its own: a thread that waited keeps one eventfd to
 * sleep on until it exits (waitq.c), as the kernel keeps a task's
 * io_uring context. After the join nothing of the battery's may remain.
 */
static void t_battery_thread(unsigned rounds)
{
	int before = t_count_fds();
	pthread_t t;

	CHECK(!pthread_create(&t, NULL, t_battery, &rounds));
	CHECK(!pthread_join(t, NULL));
	CHECK_EQ(t_count_fds(), before);
}

/* every check but the battery */
/* control data of a message passing n fds */
struct t_scm {
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte;
	struct iovec iov;
	struct msghdr msg;
};

static struct msghdr *t_scm_msg(struct t_scm *m, const int *fds, unsigned n)
{
	struct cmsghdr *c;

	memset(m, 0, sizeof(*m));
	m->byte = 'r';
	m->iov.iov_base = &m->byte;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->u.buf;
	m->msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
	c = CMSG_FIRSTHDR(&m->msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return &m->msg;
}

/* the SENDMSG opcode passing fds over s: its CQE's result */
static int t_send_fds_op(struct io_uring *ring, int s, const int *fds,
			 unsigned n)
{
	struct io_uring_sqe *sqe = t_sqe(ring);
	struct t_scm m;

	io_uring_prep_sendmsg(sqe, s, t_scm_msg(&m, fds, n), 0);
	sqe->user_data = 81;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	return t_reap_one(ring, 81);
}

/* one datagram waits on s: how many fds it carried (closed), or -errno */
static int t_recv_fds(int s)
{
	struct t_scm m;
	struct cmsghdr *c;
	int n = 0, fd;

	t_scm_msg(&m, &n, 0);
	m.msg.msg_controllen = sizeof(m.u.buf);
	if (recvmsg(s, &m.msg, MSG_DONTWAIT) != 1)
		return -errno;
	for (c = CMSG_FIRSTHDR(&m.msg); c; c = CMSG_NXTHDR(&m.msg, c)) {
		for (unsigned i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			close(fd);
			n++;
		}
	}
	return n;
}

/*
 * A ring's fd is not passed over a socket: the SENDMSG opcode with
 * SCM_RIGHTS naming it (or a dup of it) gets the kernel's -EINVAL; a
 * closed fd before it is -EBADF, as the kernel checks them in order;
 * other fds pass. libc's sendmsg() refuses it on a kernel ring, and
 * passes a user ring's eventfd (docs/semantics.md D100).
 */
static void t_scm_rights(struct io_uring *ring, int dupfd)
{
	int sp[2], p[2], closed, fds[2];
	struct t_scm m;
	ssize_t sent;

	CHECK(!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp));
	CHECK(!pipe(p));
	closed = dup(p[0]);
	close(closed);
	CHECK_EQ(t_send_fds_op(ring, sp[0], &ring->ring_fd, 1), -EINVAL);
	CHECK_EQ(t_send_fds_op(ring, sp[0], &dupfd, 1), -EINVAL);
	fds[0] = p[0];
	fds[1] = ring->ring_fd;
	CHECK_EQ(t_send_fds_op(ring, sp[0], fds, 2), -EINVAL);
	fds[0] = closed;
	CHECK_EQ(t_send_fds_op(ring, sp[0], fds, 2), -EBADF);
	CHECK_EQ(t_recv_fds(sp[1]), -EAGAIN);		/* nothing went */
	CHECK_EQ(t_send_fds_op(ring, sp[0], &p[1], 1), 1);
	CHECK_EQ(t_recv_fds(sp[1]), 1);

	sent = sendmsg(sp[0], t_scm_msg(&m, &ring->ring_fd, 1), 0);
	if (!strcmp(t_engine(), "kernel")) {
		CHECK(sent == -1 && errno == EINVAL);
	} else {
		CHECK_EQ(sent, 1);
		CHECK_EQ(t_recv_fds(sp[1]), 1);
	}
	close(sp[0]);
	close(sp[1]);
	close(p[0]);
	close(p[1]);
}

static void t_checks(void)
{
	struct io_uring ring;
	int d, hi;

	t_ring(&ring, 16, NULL);
	d = dup(ring.ring_fd);
	hi = fcntl(ring.ring_fd, F_DUPFD_CLOEXEC, 700);
	CHECK(d >= 0 && hi >= 700);
	t_enter_dup(&ring, d);
	t_enter_dup(&ring, hi);
	t_register_dup(&ring, d);
	t_refused(&ring, d);
	t_register_ring_dup(&ring, hi);
	t_api_dup(&ring, hi);
	t_attach_dup(&ring, d);
	t_not_rings(&ring);
	t_fork_dup(&ring, d);
	t_scm_rights(&ring, d);
	/* closing a dup leaves the ring to its other fds */
	close(d);
	t_enter_dup(&ring, hi);
	close(hi);
	t_nop(&ring, 7);
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(t_reap_one(&ring, 7), 0);
	io_uring_queue_exit(&ring);
	t_two_rings();
}

/*
 * io_uring refused as Docker's default profile does (EPERM): where the
 * user engine exists to serve. No kernel ring can exist there, so every
 * answer about fds and indices is the user engine's, and must be the
 * kernel's all the same.
 */
static void t_deny_io_uring(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 425, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 427, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	CHECK(!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	CHECK(!prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
	/* the system call itself (liburing's io_uring_setup() is ours) */
	CHECK(syscall(__NR_io_uring_setup, 4, &(struct io_uring_params){ 0 }) < 0 &&
	      errno == EPERM);
}

int main(void)
{
	int status;
	pid_t pid;

	t_checks();
	t_battery_thread(getenv("ANYRING_SOAK") ? T_SOAK_ROUNDS : T_ROUNDS);
	if (strcmp(t_engine(), "user"))
		return 0;
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		t_deny_io_uring();
		t_checks();
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("io_uring refused: the same answers\n");
	return 0;
}
