/* SPDX-License-Identifier: MIT */
/*
 * api-lockbias.c - a SINGLE_ISSUER ring's CQ lock while another thread
 * starts posting into it (the user engine biases the lock to the issuer
 * and revokes the bias then: src/user/lock.c). The issuer submits and
 * reaps NOPs one at a time while a second thread sends MSG_RING data
 * into its CQ; every CQE of both must arrive once. Run for a
 * DEFER_TASKRUN ring and a plain SINGLE_ISSUER one, then in a forked
 * child (which registers for membarrier(2) on first use), and there
 * again once a seccomp filter refuses membarrier(2), where the revoker
 * falls back to a TLB shootdown. Nothing here depends on which
 * thread runs first: the sender may finish before the issuer starts.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "test.h"

#define NR_NOP		20000
#define NR_MSG		2000
#define UD_MSG		(1ULL << 40)

struct sender {
	int target_fd;
};

static void *sender_fn(void *arg)
{
	struct sender *s = arg;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned i;

	t_ring(&ring, 8, NULL);
	for (i = 0; i < NR_MSG; i++) {
		struct io_uring_sqe *sqe = t_sqe(&ring);

		io_uring_prep_msg_ring(sqe, s->target_fd, i + 1, UD_MSG | i, 0);
		CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
		CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->res, 0);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return NULL;
}

/* the issuer's loop: NOPs at QD1 while messages come in */
static void run(unsigned flags)
{
	static unsigned char seen[NR_MSG];
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER | flags };
	unsigned nops = 0, msgs = 0, submitted = 0;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct sender s;
	pthread_t th;

	memset(seen, 0, sizeof(seen));
	/* a CQ large enough that no message waits on the overflow list */
	p.flags |= IORING_SETUP_CQSIZE;
	p.cq_entries = 2 * NR_MSG + 16;
	t_ring(&ring, 4, &p);
	s.target_fd = ring.ring_fd;
	CHECK_EQ(pthread_create(&th, NULL, sender_fn, &s), 0);
	while (nops < NR_NOP || msgs < NR_MSG) {
		if (submitted < NR_NOP && submitted == nops) {
			struct io_uring_sqe *sqe = t_sqe(&ring);

			io_uring_prep_nop(sqe);
			sqe->user_data = submitted;
			CHECK_EQ(io_uring_submit(&ring), 1);
			submitted++;
		}
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		if (cqe->user_data & UD_MSG) {
			unsigned i = (unsigned)(cqe->user_data & ~UD_MSG);

			CHECK(i < NR_MSG);
			CHECK(!seen[i]);
			CHECK_EQ(cqe->res, (int)i + 1);
			seen[i] = 1;
			msgs++;
		} else {
			CHECK_EQ(cqe->user_data, (__u64)nops);
			CHECK_EQ(cqe->res, 0);
			nops++;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	io_uring_queue_exit(&ring);
}

/* membarrier(2) fails with EPERM from now on; everything else is allowed */
static void deny_membarrier(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	CHECK_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	CHECK_EQ(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), 0);
}

int main(void)
{
	int status;
	pid_t pid;

	run(IORING_SETUP_DEFER_TASKRUN);
	run(0);

	/* a forked child: its process starts unregistered for membarrier */
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		run(IORING_SETUP_DEFER_TASKRUN);
		deny_membarrier();
		run(IORING_SETUP_DEFER_TASKRUN);
		run(0);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return 0;
}
