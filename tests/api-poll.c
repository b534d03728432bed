/* SPDX-License-Identifier: MIT */
/*
 * api-poll.c - polls and requests waiting for readiness under stress, on
 * the engine under test: many fds armed at once (multishot), readiness
 * made by another thread, cancels racing readiness (every poll ends with
 * exactly one final CQE, and none after it), reads re-armed again and
 * again, a DEFER_TASKRUN ring, and ring exit with multishot polls armed.
 * Nothing here depends on timing: results are checked for consistency,
 * not for which side of a race won.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include "test.h"

#define T_NPIPES	200
#define T_ROUNDS	300
#define T_CANCEL_UD	(1ULL << 40)

static int t_pipes[T_NPIPES][2];

static void t_open_pipes(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		CHECK(!pipe2(t_pipes[i], O_NONBLOCK));
}

static void t_close_pipes(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		close(t_pipes[i][0]);
		close(t_pipes[i][1]);
	}
}

static void t_drain(int fd)
{
	char buf[512];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void *t_write_all(void *arg)
{
	unsigned n = (unsigned)(unsigned long)arg;

	for (unsigned i = 0; i < n; i++)
		CHECK_EQ(write(t_pipes[i][1], "x", 1), 1);
	return NULL;
}

/*
 * A multishot poll on each of n pipes; another thread writes each once;
 * each poll posts at least one CQE with F_MORE; a cancel of ANY ends them
 * all, each with one final CQE, after which none of them posts again.
 */
static void t_many_multishot(unsigned setup_flags)
{
	struct io_uring_params p;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	static unsigned char seen[T_NPIPES], ended[T_NPIPES];
	unsigned i, nseen = 0, nended = 0;
	pthread_t th;
	bool cancel_done = false;

	memset(&p, 0, sizeof(p));
	p.flags = setup_flags;
	p.flags |= IORING_SETUP_CQSIZE;
	p.cq_entries = 4 * T_NPIPES;
	t_ring(&ring, 64, &p);
	t_open_pipes(T_NPIPES);
	memset(seen, 0, sizeof(seen));
	memset(ended, 0, sizeof(ended));
	for (i = 0; i < T_NPIPES; i++) {
		sqe = t_sqe(&ring);
		io_uring_prep_poll_multishot(sqe, t_pipes[i][0], POLLIN);
		sqe->user_data = i;
	}
	CHECK(io_uring_submit(&ring) >= 0);
	CHECK(!pthread_create(&th, NULL, t_write_all,
			      (void *)(unsigned long)T_NPIPES));
	while (nseen < T_NPIPES) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK(cqe->user_data < T_NPIPES);
		CHECK_EQ(cqe->res, POLLIN);
		CHECK(cqe->flags & IORING_CQE_F_MORE);
		if (!seen[cqe->user_data]++)
			nseen++;
		io_uring_cqe_seen(&ring, cqe);
	}
	CHECK(!pthread_join(th, NULL));
	sqe = t_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	sqe->user_data = T_CANCEL_UD;
	CHECK_EQ(io_uring_submit(&ring), 1);
	while (nended < T_NPIPES || !cancel_done) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		if (cqe->user_data == T_CANCEL_UD) {
			CHECK_EQ(cqe->res, T_NPIPES);
			cancel_done = true;
		} else {
			CHECK(cqe->user_data < T_NPIPES);
			CHECK(!ended[cqe->user_data]);
			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				CHECK_EQ(cqe->res, -ECANCELED);
				ended[cqe->user_data] = 1;
				nended++;
			}
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	/* nothing after the final CQEs, even with the pipes written again */
	t_write_all((void *)(unsigned long)T_NPIPES);
	sqe = t_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 0;
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 0);
	CHECK_EQ(cqe->res, 0);
	CHECK(!(cqe->flags & IORING_CQE_F_MORE));
	io_uring_cqe_seen(&ring, cqe);
	CHECK(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN);
	io_uring_queue_exit(&ring);
	t_close_pipes(T_NPIPES);
}

struct t_racer {
	int fd;
	atomic_uint go;		/* rounds released */
	atomic_uint done;	/* rounds written */
	unsigned rounds;
};

/* one write per round, as soon as the round is released */
static void *t_race_writer(void *arg)
{
	struct t_racer *r = arg;

	for (unsigned i = 1; i <= r->rounds; i++) {
		long long until = t_now_ns() + T_HANG_SEC * 1000000000LL;

		while (atomic_load(&r->go) < i)
			CHECK(t_now_ns() < until);
		CHECK_EQ(write(r->fd, "x", 1), 1);
		atomic_store(&r->done, i);
	}
	return NULL;
}

/*
 * Each round: a poll (oneshot or multishot) on an empty pipe, then a
 * write from another thread racing a cancel (ASYNC_CANCEL or
 * POLL_REMOVE) from this one. Whatever wins, the poll ends with exactly
 * one final CQE; a cancel that reports 0 found it armed, so the poll
 * ended -ECANCELED; -ENOENT means the poll had fired.
 */
static void t_cancel_race(bool multi, bool remove)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct t_racer r = { .rounds = T_ROUNDS };
	pthread_t th;
	int pfd[2];

	t_ring(&ring, 8, NULL);
	CHECK(!pipe2(pfd, O_NONBLOCK));
	r.fd = pfd[1];
	CHECK(!pthread_create(&th, NULL, t_race_writer, &r));
	for (unsigned i = 1; i <= T_ROUNDS; i++) {
		struct io_uring_sqe *sqe = t_sqe(&ring);
		int cres = 1, pres = 1, nfinal = 0;
		long long until;

		if (multi)
			io_uring_prep_poll_multishot(sqe, pfd[0], POLLIN);
		else
			io_uring_prep_poll_add(sqe, pfd[0], POLLIN);
		sqe->user_data = 1;
		CHECK_EQ(io_uring_submit(&ring), 1);
		atomic_store(&r.go, i);
		sqe = t_sqe(&ring);
		if (remove)
			io_uring_prep_poll_remove(sqe, 1);
		else
			io_uring_prep_cancel64(sqe, 1, 0);
		sqe->user_data = 2;
		CHECK_EQ(io_uring_submit(&ring), 1);
		while (cres == 1 || !nfinal) {
			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
			if (cqe->user_data == 2) {
				cres = cqe->res;
				/*
				 * POLL_REMOVE meeting a poll being woken:
				 * not removed; a multishot one stays armed
				 */
				if (remove && cres == -EALREADY && !nfinal) {
					sqe = t_sqe(&ring);
					io_uring_prep_poll_remove(sqe, 1);
					sqe->user_data = 2;
					CHECK_EQ(io_uring_submit(&ring), 1);
					cres = 1;
				}
			} else {
				CHECK_EQ(cqe->user_data, 1);
				CHECK(!nfinal);
				if (!(cqe->flags & IORING_CQE_F_MORE)) {
					nfinal++;
					pres = cqe->res;
				} else {
					CHECK(multi);
					CHECK_EQ(cqe->res, POLLIN);
				}
			}
			io_uring_cqe_seen(&ring, cqe);
		}
		CHECK(cres == 0 || cres == -ENOENT ||
		      (cres == -EALREADY && !remove));
		CHECK(pres == POLLIN || pres == -ECANCELED);
		if (cres == 0)
			CHECK_EQ(pres, -ECANCELED);
		if (cres == -ENOENT)
			CHECK_EQ(pres, POLLIN);
		/* a multishot poll is there until it ends */
		if (multi)
			CHECK(cres != -ENOENT);
		/* the write happened: drain it before the next round */
		until = t_now_ns() + T_HANG_SEC * 1000000000LL;
		while (atomic_load(&r.done) < i)
			CHECK(t_now_ns() < until);
		t_drain(pfd[0]);
		/* no CQE of this round is left */
		CHECK(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN);
	}
	CHECK(!pthread_join(th, NULL));
	io_uring_queue_exit(&ring);
	close(pfd[0]);
	close(pfd[1]);
}

struct t_feeder {
	unsigned n;		/* pipes */
	unsigned total;		/* bytes to write in all */
};

static void *t_feed(void *arg)
{
	struct t_feeder *f = arg;
	unsigned seed = 1;

	for (unsigned i = 0; i < f->total; i++) {
		seed = seed * 1103515245u + 12345u;
		CHECK_EQ(write(t_pipes[(seed >> 8) % f->n][1], "y", 1), 1);
	}
	return NULL;
}

/*
 * A READ waiting on each of n pipes, fed one byte at a time by another
 * thread in random order: each completed read is submitted again, so
 * requests issued after readiness wait again and again. Every byte
 * written is read exactly once.
 */
static void t_reads_rearmed(void)
{
	enum { N = 64, TOTAL = 4000 };
	struct t_feeder f = { .n = N, .total = TOTAL };
	static char bufs[N][16];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned got = 0, i;
	pthread_t th;

	t_ring(&ring, 128, NULL);
	t_open_pipes(N);
	for (i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = t_sqe(&ring);

		io_uring_prep_read(sqe, t_pipes[i][0], bufs[i], sizeof(bufs[i]), 0);
		sqe->user_data = i;
	}
	CHECK(io_uring_submit(&ring) >= 0);
	CHECK(!pthread_create(&th, NULL, t_feed, &f));
	while (got < TOTAL) {
		struct io_uring_sqe *sqe;

		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		i = (unsigned)cqe->user_data;
		CHECK(i < N);
		CHECK(cqe->res > 0);
		got += (unsigned)cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		sqe = t_sqe(&ring);
		io_uring_prep_read(sqe, t_pipes[i][0], bufs[i], sizeof(bufs[i]), 0);
		sqe->user_data = i;
		CHECK_EQ(io_uring_submit(&ring), 1);
	}
	CHECK_EQ(got, TOTAL);
	CHECK(!pthread_join(th, NULL));
	/* the reads still waiting are cancelled at exit */
	io_uring_queue_exit(&ring);
	t_close_pipes(N);
}

/* ring exit with multishot polls and reads armed on many fds */
static void t_exit_armed(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	static char buf[8];

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 4 * T_NPIPES;
	t_ring(&ring, 64, &p);
	t_open_pipes(T_NPIPES);
	for (unsigned i = 0; i < T_NPIPES; i++) {
		struct io_uring_sqe *sqe = t_sqe(&ring);

		if (i % 2)
			io_uring_prep_poll_multishot(sqe, t_pipes[i][0], POLLIN);
		else
			io_uring_prep_read(sqe, t_pipes[i][0], buf, sizeof(buf), 0);
		sqe->user_data = i;
	}
	CHECK(io_uring_submit(&ring) >= 0);
	/* some of them ready as the ring goes */
	t_write_all((void *)(unsigned long)(T_NPIPES / 2));
	io_uring_queue_exit(&ring);
	t_close_pipes(T_NPIPES);
}

/* an fd closed while a poll on it is armed: a cancel still finds the poll */
static void t_close_armed(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int pfd[2];

	t_ring(&ring, 8, NULL);
	CHECK(!pipe(pfd));
	sqe = t_sqe(&ring);
	io_uring_prep_poll_multishot(sqe, pfd[0], POLLIN);
	sqe->user_data = 0;
	CHECK_EQ(io_uring_submit(&ring), 1);
	close(pfd[0]);
	close(pfd[1]);
	sqe = t_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, 0);
	sqe->user_data = 1;
	CHECK_EQ(io_uring_submit(&ring), 1);
	/*
	 * The kernel's poll holds the file: the writer's close is a HUP it
	 * may report first (F_MORE); the user engine's epoll forgot the fd
	 * (docs/semantics.md). Either way one final CQE, -ECANCELED.
	 */
	for (int left = 2; left; ) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		if (cqe->user_data) {
			CHECK_EQ(cqe->res, 0);
			left--;
		} else if (cqe->flags & IORING_CQE_F_MORE) {
			CHECK(cqe->res & POLLHUP);
		} else {
			CHECK_EQ(cqe->res, -ECANCELED);
			left--;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
}

int main(void)
{
	struct rlimit rl;

	/* two fds per pipe, and the engine's own */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 4 * T_NPIPES + 64) {
		rl.rlim_cur = rl.rlim_max < 4 * T_NPIPES + 64 ? rl.rlim_max :
			      4 * T_NPIPES + 64;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	t_many_multishot(0);
	t_many_multishot(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	t_cancel_race(false, false);
	t_cancel_race(true, false);
	t_cancel_race(false, true);
	t_cancel_race(true, true);
	t_reads_rearmed();
	t_exit_armed();
	t_close_armed();
	printf("ok\n");
	return 0;
}
