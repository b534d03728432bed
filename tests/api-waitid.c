/* SPDX-License-Identifier: MIT */
/*
 * api-waitid.c - IORING_OP_WAITID armed for a child that is still
 * running: the ring exits with it armed (the exit is not held up by the
 * child), then another ring's WAITID for P_ALL completes when the child
 * exits, with its siginfo; a ring cancels one with ASYNC_CANCEL.
 */
#include <signal.h>
#include <sys/wait.h>
#include "test.h"

#define OP_WAITID	50

static void prep_waitid(struct io_uring_sqe *sqe, int which, int id,
			unsigned options, siginfo_t *si)
{
	io_uring_prep_rw(OP_WAITID, sqe, id, NULL, (unsigned)which, 0);
	sqe->file_index = options;
	sqe->addr2 = (unsigned long)si;
}

int main(void)
{
	struct io_uring_probe *probe;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	/*
	 * one each: the kernel writes a cancelled one's (zeroed) siginfo
	 * when its ring's exit work gets to it, which may be later
	 */
	static siginfo_t si_exit, si_cancel, si;
	int p[2], i;
	pid_t pid;
	char b;

	t_ring(&ring, 4, NULL);
	probe = io_uring_get_probe_ring(&ring);
	if (!probe || !io_uring_opcode_supported(probe, OP_WAITID))
		t_skip("no WAITID on this engine");
	io_uring_free_probe(probe);
	CHECK_EQ(pipe(p), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		close(p[1]);
		while (read(p[0], &b, 1) > 0)
			;
		_exit(5);
	}
	close(p[0]);

	/* armed at exit */
	sqe = io_uring_get_sqe(&ring);
	prep_waitid(sqe, P_PID, pid, WEXITED, &si_exit);
	CHECK_EQ(io_uring_submit(&ring), 1);
	io_uring_queue_exit(&ring);

	/* cancelled */
	t_ring(&ring, 4, NULL);
	sqe = io_uring_get_sqe(&ring);
	prep_waitid(sqe, P_PID, pid, WEXITED, &si_cancel);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 1, 0);
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit(&ring), 2);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->res, cqe->user_data == 1 ? -ECANCELED : 1);
		io_uring_cqe_seen(&ring, cqe);
	}

	/* completed by the child's exit, which comes after the submit */
	memset(&si, 0, sizeof(si));
	sqe = io_uring_get_sqe(&ring);
	prep_waitid(sqe, P_ALL, 0, WEXITED, &si);
	sqe->user_data = 3;
	CHECK_EQ(io_uring_submit(&ring), 1);
	close(p[1]);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 3);
	CHECK_EQ(cqe->res, 0);
	io_uring_cqe_seen(&ring, cqe);
	CHECK_EQ(si.si_signo, SIGCHLD);
	CHECK_EQ(si.si_code, CLD_EXITED);
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(si.si_status, 5);
	CHECK_EQ(waitpid(pid, NULL, WNOHANG), -1);
	io_uring_queue_exit(&ring);
	return 0;
}
