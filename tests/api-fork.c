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
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "test.h"

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

	t_ring(&ring, 8, NULL);
	CHECK(!pipe(p));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
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
	if (dfd >= 0)
		close(dfd);
	free(dbuf);
	return 0;
}
