/* SPDX-License-Identifier: MIT */
/*
 * api-fork.c - a forked child and its parent's ring. On the kernel the
 * child shares the ring. A user ring lives in the parent's memory and
 * threads, so the child's copy refuses every call with -EOWNERDEAD, its
 * io_uring_queue_exit() releases only the child's fd, and the parent
 * loses nothing: every request it had in flight completes, once, and its
 * own exit returns.
 *
 * The parent has pipe reads and O_DIRECT reads in flight at the fork;
 * the child submits, registers, waits and exits the ring; the parent then
 * feeds the pipe and reaps every CQE by user_data.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include "test.h"

#define T_ROUNDS	20
#define T_PIPE_READS	8
#define T_DIRECT_READS	8
#define T_BS		4096

/* the child: on a user ring every call is refused, and exit is its own */
static int t_child(struct io_uring *ring, bool user)
{
	int ret;

	if (user) {
		io_uring_prep_nop(io_uring_get_sqe(ring));
		if (io_uring_submit(ring) != -EOWNERDEAD)
			return 2;
		/* a wait that enters (io_uring_wait_cqe may find a copied CQE) */
		ret = io_uring_enter(ring->ring_fd, 0, 1, IORING_ENTER_GETEVENTS,
				     NULL);
		if (ret != -EOWNERDEAD)
			return 3;
		ret = io_uring_register_files_update(ring, 0, &(int){ -1 }, 1);
		if (ret != -EOWNERDEAD)
			return 4;
	}
	io_uring_queue_exit(ring);
	return 0;
}

static void t_round(int dfd, char *dbuf, bool user)
{
	static char pbuf[T_PIPE_READS];
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned seen[T_PIPE_READS + T_DIRECT_READS] = { 0 }, n = 0;
	int p[2], status;
	pid_t pid;

	t_ring(&ring, 32, NULL);
	CHECK(!pipe(p));
	for (unsigned i = 0; i < T_PIPE_READS; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, p[0], &pbuf[i], 1, 0);
		sqe->user_data = i;
	}
	for (unsigned i = 0; dfd >= 0 && i < T_DIRECT_READS; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, dfd, dbuf + i * T_BS, T_BS, i * T_BS);
		sqe->user_data = T_PIPE_READS + i;
	}
	CHECK(io_uring_submit(&ring) > 0);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		_exit(t_child(&ring, user));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	CHECK_EQ(write(p[1], "abcdefgh", T_PIPE_READS), T_PIPE_READS);
	while (n < T_PIPE_READS + (dfd >= 0 ? T_DIRECT_READS : 0)) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK(cqe->user_data < T_PIPE_READS + T_DIRECT_READS);
		CHECK_EQ(seen[cqe->user_data]++, 0);
		CHECK_EQ(cqe->res, cqe->user_data < T_PIPE_READS ? 1 : T_BS);
		io_uring_cqe_seen(&ring, cqe);
		n++;
	}
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	bool user = !strcmp(t_engine(), "user");
	void *dbuf;
	int dfd;

	CHECK(!posix_memalign(&dbuf, 4096, T_DIRECT_READS * T_BS));
	dfd = t_direct_file(dbuf, T_BS, T_DIRECT_READS, 'f');
	for (int i = 0; i < T_ROUNDS; i++)
		t_round(dfd, dbuf, user);
	printf("%d forks with reads in flight (%s): the parent got every CQE once\n",
	       T_ROUNDS, t_engine());
	if (dfd >= 0)
		close(dfd);
	free(dbuf);
	return 0;
}
