/* SPDX-License-Identifier: MIT */
/*
 * api-fork.c - a forked child and its parent's ring, which they share,
 * as on the kernel (docs/architecture.md, "Rings shared across
 * processes"): the child's submissions are its own and complete in the
 * one CQ, a waiter in one process wakes for the other's posts, each
 * request completes once, and the child's io_uring_queue_exit() leaves
 * the parent's ring alive.
 *
 * t_round: the parent has pipe reads and O_DIRECT reads in flight at the
 * fork; the child submits a NOP, updates registered files (no table:
 * the kernel's -ENXIO), waits until every CQE is there, the pipe reads'
 * too, which the parent's write completes, and exits without reaping;
 * the parent then reaps each by user_data, once.
 * t_pingpong: a child submits NOPs one by one while the parent waits for
 * each (a wait woken by another process's post).
 * t_prefork: a pre-fork server. The parent listens and makes a ring per
 * worker, then forks the workers; each accepts, receives and echoes
 * through its inherited ring, until the parent's clients are done.
 * t_exit_inflight: a child's read of a pipe nobody writes yet ends
 * -ECANCELED once the child has called exit() or _exit() or was killed,
 * and the parent reaps it (the kernel posts it when the pipe is
 * written; the user engine at exit(), else at its waiter's look for
 * processes that are gone: semantics.md D2).
 * t_xcancel: an ASYNC_CANCEL reaches another process's requests: a
 * child cancels its parent's pipe read by user_data (0, and the read
 * -ECANCELED), every one of three with IORING_ASYNC_CANCEL_ALL (3), and
 * a parent its child's read while the child blocks outside the ring.
 * t_exit_timeout: a child's TIMEOUT outlives its exit() and fires
 * -ETIME; a read it had in flight ends -ECANCELED.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "test.h"

/*
 * TSan builds: t_xcancel forks while the parent's service thread runs
 * (its reads are armed), and the child starts threads of its own, which
 * TSan refuses by default after a multi-threaded fork
 */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "die_after_fork=0";
}

#define T_ROUNDS	20
#define T_PIPE_READS	8
#define T_DIRECT_READS	8
#define T_BS		4096
#define T_NOP_UD	100
#define T_PINGS		200

/* the child: its own submission, the kernel's errno, a wait for all */
static int t_child(struct io_uring *ring, unsigned total)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int ret;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = T_NOP_UD;
	if (io_uring_submit(ring) != 1)
		return 2;
	ret = io_uring_register_files_update(ring, 0, &(int){ -1 }, 1);
	if (ret != -ENXIO)
		return 3;
	/* every CQE, none reaped: they are the parent's to see */
	ret = io_uring_wait_cqes(ring, &cqe, total, NULL, NULL);
	if (ret)
		return 4;
	if (io_uring_cq_ready(ring) != total)
		return 5;
	io_uring_queue_exit(ring);
	return 0;
}

static void t_round(int dfd, char *dbuf)
{
	static char pbuf[T_PIPE_READS];
	unsigned nr_direct = dfd >= 0 ? T_DIRECT_READS : 0;
	unsigned total = T_PIPE_READS + nr_direct + 1, n = 0;
	unsigned seen[T_PIPE_READS + T_DIRECT_READS + 1] = { 0 }, i;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int p[2], status;
	pid_t pid;

	t_ring(&ring, 32, NULL);
	CHECK(!pipe(p));
	for (i = 0; i < T_PIPE_READS; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, p[0], &pbuf[i], 1, 0);
		sqe->user_data = i;
	}
	for (i = 0; i < nr_direct; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, dfd, dbuf + i * T_BS, T_BS, i * T_BS);
		sqe->user_data = T_PIPE_READS + i;
	}
	CHECK(io_uring_submit(&ring) > 0);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		_exit(t_child(&ring, total));
	CHECK_EQ(write(p[1], "abcdefgh", T_PIPE_READS), T_PIPE_READS);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	while (n < total) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		if (cqe->user_data == T_NOP_UD) {
			CHECK_EQ(cqe->res, 0);
			CHECK_EQ(seen[total - 1]++, 0);
		} else {
			CHECK(cqe->user_data < T_PIPE_READS + nr_direct);
			CHECK_EQ(seen[cqe->user_data]++, 0);
			CHECK_EQ(cqe->res, cqe->user_data < T_PIPE_READS ? 1 : T_BS);
		}
		io_uring_cqe_seen(&ring, cqe);
		n++;
	}
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

/* the parent sleeps in its waits; the child's posts wake it */
static void t_pingpong(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int status;
	pid_t pid;

	t_ring(&ring, 8, NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		for (unsigned i = 0; i < T_PINGS; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_nop(sqe);
			sqe->user_data = i;
			if (io_uring_submit(&ring) != 1)
				_exit(2);
			/* the parent keeps up: no more than the CQ holds */
			while (io_uring_cq_ready(&ring) > 4)
				usleep(100);
		}
		_exit(0);
	}
	for (unsigned i = 0; i < T_PINGS; i++) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->user_data, i);
		CHECK_EQ(cqe->res, 0);
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	io_uring_queue_exit(&ring);
}

#define T_WORKERS	3
#define T_CLIENTS	30

/* one submit and its one CQE's result */
static int t_one(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int res;

	if (io_uring_submit_and_wait(ring, 1) != 1 ||
	    io_uring_peek_cqe(ring, &cqe))
		return -EIO;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* a worker: accept, receive, echo, until a connection says "q" */
static int t_worker(struct io_uring *ring, int lfd)
{
	char buf[64];
	int c, n;

	for (;;) {
		io_uring_prep_accept(io_uring_get_sqe(ring), lfd, NULL, NULL, 0);
		c = t_one(ring);
		if (c < 0)
			return 2;
		io_uring_prep_recv(io_uring_get_sqe(ring), c, buf, sizeof(buf), 0);
		n = t_one(ring);
		if (n <= 0)
			return 3;
		if (buf[0] == 'q') {
			close(c);
			return 0;
		}
		io_uring_prep_send(io_uring_get_sqe(ring), c, buf, (size_t)n, 0);
		if (t_one(ring) != n)
			return 4;
		close(c);
	}
}

/* the parent's client: connect, send, read the echo */
static void t_client(const struct sockaddr_in *sa, const char *msg)
{
	char buf[64];
	size_t len = strlen(msg);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CHECK(s >= 0);
	CHECK(!connect(s, (const struct sockaddr *)sa, sizeof(*sa)));
	CHECK_EQ(write(s, msg, len), (long long)len);
	if (msg[0] != 'q') {
		CHECK_EQ(read(s, buf, sizeof(buf)), (long long)len);
		CHECK(!memcmp(buf, msg, len));
	}
	close(s);
}

static void t_prefork(void)
{
	struct io_uring ring[T_WORKERS];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	pid_t pid[T_WORKERS];
	char msg[32];
	int lfd, status, i;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(lfd >= 0);
	CHECK(!bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	CHECK(!listen(lfd, 64));
	CHECK(!getsockname(lfd, (struct sockaddr *)&sa, &sl));
	for (i = 0; i < T_WORKERS; i++)
		t_ring(&ring[i], 8, NULL);
	fflush(stdout);
	for (i = 0; i < T_WORKERS; i++) {
		pid[i] = fork();
		CHECK(pid[i] >= 0);
		if (!pid[i])
			_exit(t_worker(&ring[i], lfd));
	}
	for (i = 0; i < T_CLIENTS; i++) {
		snprintf(msg, sizeof(msg), "ping %d", i);
		t_client(&sa, msg);
	}
	/* one "q" per worker: each takes one and leaves */
	for (i = 0; i < T_WORKERS; i++)
		t_client(&sa, "q");
	for (i = 0; i < T_WORKERS; i++) {
		CHECK_EQ(waitpid(pid[i], &status, 0), pid[i]);
		CHECK(WIFEXITED(status));
		CHECK_EQ(WEXITSTATUS(status), 0);
		io_uring_queue_exit(&ring[i]);
	}
	close(lfd);
}

/* a ring of 8 and a pipe p, then fork(): its pid */
static pid_t t_ring_pipe_fork(struct io_uring *ring, int p[2])
{
	pid_t pid;

	t_ring(ring, 8, NULL);
	CHECK(!pipe(p));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	return pid;
}

/*
 * A request of a process that exits is cancelled, its CQE for the
 * others: by exit(), _exit() or SIGKILL (how).
 */
static void t_exit_inflight(int how)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	static char buf[8];
	int p[2], status;
	pid_t pid;

	pid = t_ring_pipe_fork(&ring, p);
	if (!pid) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
		sqe->user_data = 7;
		if (io_uring_submit(&ring) != 1)
			_exit(2);
		if (how == 1)
			_exit(0);
		if (how == 2)
			kill(getpid(), SIGKILL);
		exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (how == 2) {
		CHECK(WIFSIGNALED(status));
	} else {
		CHECK(WIFEXITED(status));
		CHECK_EQ(WEXITSTATUS(status), 0);
	}
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 7);
	CHECK_EQ(cqe->res, -ECANCELED);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

/* reap n CQEs: the res of each user_data below 16 into res[] */
static void t_reap_into(struct io_uring *ring, unsigned n, int *res)
{
	struct io_uring_cqe *cqe;

	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		CHECK(cqe->user_data < 16);
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
}

/*
 * liburing's SQ state is each process's own: another process's submit
 * moved the shared SQ tail past this process's copy of it
 */
static void t_sq_resync(struct io_uring *ring)
{
	ring->sq.sqe_head = ring->sq.sqe_tail =
		io_uring_smp_load_acquire(ring->sq.ktail);
}

static void t_prep_cancel(struct io_uring *ring, __u64 target, int flags,
			  __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_cancel64(sqe, target, flags);
	sqe->user_data = ud;
}

/*
 * A child's side of a handshake: tell the parent its requests are in,
 * then block in read(2) until the parent lets it go. Only the parent
 * holds back's write end, so the parent's exit ends the read too.
 */
static int t_child_hold(int go[2], int back[2])
{
	char c;

	close(back[1]);
	return write(go[1], "s", 1) == 1 && read(back[0], &c, 1) == 1 ? 0 : 3;
}

/* the parent's side: let the child go (back >= 0), then it exits 0 */
static void t_child_end(pid_t pid, int back)
{
	int status;

	if (back >= 0)
		CHECK_EQ(write(back, "g", 1), 1);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

static int t_xcancel_child(struct io_uring *ring)
{
	int res[16];

	/* the parent's read 1 by user_data, then its three reads 5 */
	t_prep_cancel(ring, 1, 0, 2);
	if (io_uring_submit(ring) != 1)
		return 2;
	memset(res, 0x55, sizeof(res));
	t_reap_into(ring, 2, res);
	if (res[2] != 0 || res[1] != -ECANCELED)
		return 3;
	t_prep_cancel(ring, 5, IORING_ASYNC_CANCEL_ALL, 6);
	if (io_uring_submit(ring) != 1)
		return 4;
	t_reap_into(ring, 4, res);
	if (res[6] != 3 || res[5] != -ECANCELED)
		return 5;
	/* nothing of anybody's: -ENOENT */
	t_prep_cancel(ring, 99, 0, 7);
	if (io_uring_submit(ring) != 1)
		return 6;
	t_reap_into(ring, 1, res);
	return res[7] == -ENOENT ? 0 : 7;
}

static void t_xcancel(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	static char buf[4][8];
	int p[2], go[2], back[2], res[16], status;
	pid_t pid;
	char c;

	t_ring(&ring, 16, NULL);
	CHECK(!pipe(p));
	CHECK(!pipe(go));
	CHECK(!pipe(back));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf[0], sizeof(buf[0]), 0);
	sqe->user_data = 1;
	for (int i = 1; i < 4; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, p[0], buf[i], sizeof(buf[i]), 0);
		sqe->user_data = 5;
	}
	CHECK_EQ(io_uring_submit(&ring), 4);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		_exit(t_xcancel_child(&ring));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	CHECK_EQ(io_uring_cq_ready(&ring), 0);

	/* the other way: the child's read, while it blocks in read(2) */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		t_sq_resync(&ring);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, p[0], buf[0], sizeof(buf[0]), 0);
		sqe->user_data = 9;
		if (io_uring_submit(&ring) != 1)
			_exit(2);
		_exit(t_child_hold(go, back));
	}
	CHECK_EQ(read(go[0], &c, 1), 1);
	t_sq_resync(&ring);
	t_prep_cancel(&ring, 9, 0, 10);
	CHECK_EQ(io_uring_submit(&ring), 1);
	memset(res, 0x55, sizeof(res));
	t_reap_into(&ring, 2, res);
	CHECK_EQ(res[10], 0);
	CHECK_EQ(res[9], -ECANCELED);
	t_child_end(pid, back[1]);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

static int t_sync_cancel(struct io_uring *ring, __u64 ud, int flags)
{
	struct io_uring_sync_cancel_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.addr = ud;
	reg.flags = (__u32)flags;
	reg.timeout.tv_sec = -1;
	reg.timeout.tv_nsec = -1;
	return io_uring_register_sync_cancel(ring, &reg);
}

/*
 * IORING_REGISTER_SYNC_CANCEL in the parent, of reads its child has in
 * flight while it blocks in read(2): by user_data, then ALL (a count),
 * then a user_data nobody has (-ENOENT). Each read ends -ECANCELED.
 */
static void t_xsync_cancel(void)
{
	struct io_uring ring;
	static char buf[3][8];
	int p[2], go[2], back[2], res[32];
	pid_t pid;
	char c;

	t_ring(&ring, 16, NULL);
	CHECK(!pipe(p));
	CHECK(!pipe(go));
	CHECK(!pipe(back));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		struct io_uring_sqe *sqe;

		for (int i = 0; i < 3; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read(sqe, p[0], buf[i], sizeof(buf[i]), 0);
			sqe->user_data = i ? 12 : 11;
		}
		if (io_uring_submit(&ring) != 3)
			_exit(2);
		_exit(t_child_hold(go, back));
	}
	CHECK_EQ(read(go[0], &c, 1), 1);
	CHECK_EQ(t_sync_cancel(&ring, 11, 0), 0);
	CHECK_EQ(t_sync_cancel(&ring, 12, IORING_ASYNC_CANCEL_ALL), 2);
	CHECK_EQ(t_sync_cancel(&ring, 7, 0), -ENOENT);
	memset(res, 0x55, sizeof(res));
	t_reap_into(&ring, 3, res);
	CHECK_EQ(res[11], -ECANCELED);
	CHECK_EQ(res[12], -ECANCELED);
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	t_child_end(pid, back[1]);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

/*
 * A TIMEOUT of another process, cancelled: the owner has nothing armed
 * for readiness, only the timer. The child's, cancelled by the parent
 * while the child blocks in read(2); then the parent's, armed before the
 * fork, cancelled by a child. Each: the cancel 0, the TIMEOUT -ECANCELED
 * (not -ETIME ten seconds later).
 */
static void t_xcancel_timeout(void)
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int go[2], back[2], res[16];
	pid_t pid;
	char c;

	t_ring(&ring, 16, NULL);
	CHECK(!pipe(go));
	CHECK(!pipe(back));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_timeout(sqe, &ts, 0, 0);
		sqe->user_data = 13;
		if (io_uring_submit(&ring) != 1)
			_exit(2);
		_exit(t_child_hold(go, back));
	}
	CHECK_EQ(read(go[0], &c, 1), 1);
	t_sq_resync(&ring);
	t_prep_cancel(&ring, 13, 0, 14);
	CHECK_EQ(io_uring_submit(&ring), 1);
	memset(res, 0x55, sizeof(res));
	t_reap_into(&ring, 2, res);
	CHECK_EQ(res[14], 0);
	CHECK_EQ(res[13], -ECANCELED);
	t_child_end(pid, back[1]);

	/* the other way: armed before the fork */
	t_sq_resync(&ring);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	sqe->user_data = 13;
	CHECK_EQ(io_uring_submit(&ring), 1);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		t_sq_resync(&ring);
		t_prep_cancel(&ring, 13, 0, 14);
		_exit(io_uring_submit(&ring) == 1 ? 0 : 2);
	}
	t_child_end(pid, -1);
	memset(res, 0x55, sizeof(res));
	t_reap_into(&ring, 2, res);
	CHECK_EQ(res[14], 0);
	CHECK_EQ(res[13], -ECANCELED);
	CHECK_EQ(io_uring_cq_ready(&ring), 0);
	io_uring_queue_exit(&ring);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

static void t_exit_timeout(void)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };
	struct io_uring ring;
	static char buf[8];
	int p[2], res[16], status;
	pid_t pid;

	pid = t_ring_pipe_fork(&ring, p);
	if (!pid) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_timeout(sqe, &ts, 0, 0);
		sqe->user_data = 11;
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
		sqe->user_data = 12;
		if (io_uring_submit(&ring) != 2)
			_exit(2);
		exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	/* the kernel posts the read's CQE when the pipe is written */
	CHECK_EQ(write(p[1], "x", 1), 1);
	memset(res, 0x55, sizeof(res));
	t_reap_into(&ring, 2, res);
	CHECK_EQ(res[11], -ETIME);
	CHECK_EQ(res[12], -ECANCELED);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	void *dbuf;
	int dfd;

	CHECK(!posix_memalign(&dbuf, 4096, T_DIRECT_READS * T_BS));
	dfd = t_direct_file(dbuf, T_BS, T_DIRECT_READS, 'f');
	for (int i = 0; i < T_ROUNDS; i++)
		t_round(dfd, dbuf);
	printf("%d forks with reads in flight (%s): every CQE once\n",
	       T_ROUNDS, t_engine());
	t_pingpong();
	printf("%d NOPs of a child reaped by its parent (%s)\n", T_PINGS,
	       t_engine());
	t_prefork();
	printf("a pre-fork server: %d workers on their inherited rings echoed "
	       "%d clients (%s)\n", T_WORKERS, T_CLIENTS, t_engine());
	t_exit_inflight(0);
	t_exit_inflight(1);
	t_exit_inflight(2);
	printf("a request of a child that calls exit() or _exit() or is "
	       "killed: -ECANCELED (%s)\n", t_engine());
	t_xcancel();
	printf("cancels of another process's requests, by user_data and ALL "
	       "(%s)\n", t_engine());
	t_xcancel_timeout();
	printf("a TIMEOUT of another process, cancelled at once (%s)\n",
	       t_engine());
	t_xsync_cancel();
	printf("REGISTER_SYNC_CANCEL of another process's requests (%s)\n",
	       t_engine());
	t_exit_timeout();
	printf("a TIMEOUT outlives its process's exit(): -ETIME (%s)\n",
	       t_engine());
	if (dfd >= 0)
		close(dfd);
	free(dbuf);
	return 0;
}
