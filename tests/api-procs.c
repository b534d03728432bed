/* SPDX-License-Identifier: MIT */
/*
 * api-procs.c - rings shared by processes the way PostgreSQL 18 shares
 * them (io_method=io_uring): the parent makes one ring per child in
 * shared memory before it forks, each child submits reads and writes on
 * its own ring, and any child may wait on another child's ring, under
 * that ring's process-shared lock, for an I/O it knows is in flight
 * there, then reaps whatever that ring has, for whoever submitted it.
 *
 * Each child writes its own blocks of a file (O_DIRECT where the file
 * system has it, so that completions come from AIO in the submitter's
 * process) and reads them back the next round, checking the pattern.
 * Every I/O is counted where it is reaped: each must complete once,
 * with the full length.
 *
 * Then a child is killed (SIGKILL) with reads of a pipe in flight on its
 * ring, and the pipe is written: another child waiting on that ring,
 * under its lock, reaps them -ECANCELED, and the ring goes on serving
 * the parent, whose read gets the byte.
 *
 * Then restart cycles, as PostgreSQL's after a crash: rings made, the
 * children forked and killed (SIGKILL) in the middle of their I/O, the
 * rings exited; the parent has the same fds and threads after each
 * cycle as after the first.
 *
 *   api-procs                     the test (ANYRING_TEST_ENGINE as every
 *                                 api test), O_DIRECT then buffered
 *   api-procs bench N [buffered] [reads]
 *                                 N rounds per child, and the I/Os per
 *                                 second (O_DIRECT where it can; reads:
 *                                 all rounds but the first read)
 *   api-procs wake N [thread]     N NOPs a child (a thread) submits,
 *                                 each 200 us after the last, to its
 *                                 parent asleep in io_uring_wait_cqe():
 *                                 p50 and p99 of submit to wakeup, in
 *                                 microseconds
 */
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "test.h"

#define P_CHILDREN	4
#define P_BATCH		8		/* I/Os per round */
#define P_BS		4096
#define P_ROUNDS	150
#define P_HELP_EVERY	3		/* a round that waits on a neighbour first */

enum { P_FREE, P_INFLIGHT, P_DONE };

struct p_slot {
	int state;			/* under its ring's lock */
	int res;
	unsigned reaped;		/* how many CQEs named it */
	unsigned reaped_by_other;
};

struct p_shared {
	pthread_mutex_t lock[P_CHILDREN];
	struct io_uring ring[P_CHILDREN];
	struct p_slot slot[P_CHILDREN][P_BATCH];
	unsigned long long ios[P_CHILDREN];
	unsigned long long helped[P_CHILDREN];
	_Alignas(4096) char buf[P_CHILDREN][P_BATCH][P_BS];
};

static struct p_shared *sh;
static int dfd;
static bool reads_only;		/* bench: a write round, then reads */

static off_t p_off(int c, int j)
{
	return ((off_t)c * P_BATCH + j) * P_BS;
}

/* reap what ring r has, for whoever submitted it; under lock[r] */
static void p_reap(int r, int self)
{
	struct io_uring_cqe *cqes[P_BATCH * 2];
	unsigned n, i;

	n = io_uring_peek_batch_cqe(&sh->ring[r], cqes, P_BATCH * 2);
	for (i = 0; i < n; i++) {
		unsigned j = (unsigned)cqes[i]->user_data;
		struct p_slot *s;

		CHECK(j < P_BATCH);
		s = &sh->slot[r][j];
		CHECK_EQ(s->state, P_INFLIGHT);
		s->res = cqes[i]->res;
		s->reaped++;
		if (r != self)
			s->reaped_by_other++;
		s->state = P_DONE;
	}
	io_uring_cq_advance(&sh->ring[r], n);
}

/* wait on ring r while one of its I/Os is in flight; under lock[r] */
static bool p_wait_one(int r, int self)
{
	struct io_uring_cqe *cqe;

	for (int j = 0; j < P_BATCH; j++) {
		if (sh->slot[r][j].state != P_INFLIGHT)
			continue;
		CHECK_EQ(io_uring_wait_cqes(&sh->ring[r], &cqe, 1, NULL, NULL), 0);
		p_reap(r, self);
		return true;
	}
	return false;
}

static void p_fill(char *b, int c, int round, int j)
{
	for (int k = 0; k < P_BS; k += 4)
		memcpy(b + k, &(unsigned){ (unsigned)(c << 24 | round << 8 | j) }, 4);
}

static void p_round(int c, int round)
{
	bool writing = reads_only ? !round : !(round & 1);
	int wrote = reads_only ? 0 : round - 1;
	struct io_uring_sqe *sqe;
	int j;

	pthread_mutex_lock(&sh->lock[c]);
	for (j = 0; j < P_BATCH; j++) {
		struct p_slot *s = &sh->slot[c][j];

		CHECK(s->state != P_INFLIGHT);
		sqe = io_uring_get_sqe(&sh->ring[c]);
		CHECK(sqe != NULL);
		if (writing) {
			p_fill(sh->buf[c][j], c, round, j);
			io_uring_prep_write(sqe, dfd, sh->buf[c][j], P_BS, p_off(c, j));
		} else {
			memset(sh->buf[c][j], 0, P_BS);
			io_uring_prep_read(sqe, dfd, sh->buf[c][j], P_BS, p_off(c, j));
		}
		sqe->user_data = (unsigned)j;
		s->state = P_INFLIGHT;
		s->reaped = 0;
	}
	CHECK_EQ(io_uring_submit(&sh->ring[c]), P_BATCH);
	pthread_mutex_unlock(&sh->lock[c]);

	/* now and then, first help a neighbour whose I/O is in flight */
	if (round % P_HELP_EVERY == 0) {
		int o = (c + 1) % P_CHILDREN;

		pthread_mutex_lock(&sh->lock[o]);
		if (p_wait_one(o, c))
			sh->helped[c]++;
		pthread_mutex_unlock(&sh->lock[o]);
	}
	/* then its own: whoever reaped them, every one is done once */
	pthread_mutex_lock(&sh->lock[c]);
	while (p_wait_one(c, c))
		;
	for (j = 0; j < P_BATCH; j++) {
		struct p_slot *s = &sh->slot[c][j];
		char want[P_BS];

		CHECK_EQ(s->state, P_DONE);
		CHECK_EQ(s->reaped, 1);
		CHECK_EQ(s->res, P_BS);
		if (!writing) {
			p_fill(want, c, wrote, j);
			CHECK(!memcmp(sh->buf[c][j], want, P_BS));
		}
		s->state = P_FREE;
	}
	sh->ios[c] += P_BATCH;
	pthread_mutex_unlock(&sh->lock[c]);
}

static int p_child(int c, int rounds)
{
	for (int round = 0; round < rounds; round++)
		p_round(c, round);
	return 0;
}

static int p_file(bool buffered)
{
	char path[] = "/var/tmp/anyring-procs-XXXXXX";
	int fd = mkstemp(path), d;

	CHECK(fd >= 0);
	unlink(path);
	CHECK(!ftruncate(fd, (off_t)P_CHILDREN * P_BATCH * P_BS));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	d = buffered ? -1 : open(path, O_RDWR | O_DIRECT);
	if (d >= 0) {
		close(fd);
		return d;
	}
	return fd;	/* tmpfs: buffered */
}

static double p_run(int rounds, bool buffered)
{
	pthread_mutexattr_t ma;
	pid_t pid[P_CHILDREN];
	long long t0;
	int c, status;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	for (c = 0; c < P_CHILDREN; c++) {
		CHECK(!pthread_mutex_init(&sh->lock[c], &ma));
		t_ring(&sh->ring[c], 64, NULL);
	}
	dfd = p_file(buffered);
	t0 = t_now_ns();
	for (c = 0; c < P_CHILDREN; c++) {
		pid[c] = fork();
		CHECK(pid[c] >= 0);
		if (!pid[c])
			_exit(p_child(c, rounds));
	}
	for (c = 0; c < P_CHILDREN; c++) {
		CHECK_EQ(waitpid(pid[c], &status, 0), pid[c]);
		CHECK(WIFEXITED(status));
		CHECK_EQ(WEXITSTATUS(status), 0);
	}
	t0 = t_now_ns() - t0;
	for (c = 0; c < P_CHILDREN; c++) {
		CHECK_EQ(sh->ios[c], (unsigned long long)rounds * P_BATCH);
		CHECK_EQ(io_uring_cq_ready(&sh->ring[c]), 0);
		io_uring_queue_exit(&sh->ring[c]);
	}
	close(dfd);
	return (double)P_CHILDREN * rounds * P_BATCH / ((double)t0 / 1e9);
}

/* a child killed with I/O in flight: its ring still serves the others */
static void p_kill(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	pthread_mutexattr_t ma;
	int p[2], status, j;
	pid_t victim, helper;
	static char buf[P_BATCH];

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	CHECK(!pthread_mutex_init(&sh->lock[0], &ma));
	t_ring(&sh->ring[0], 64, NULL);
	CHECK(!pipe(p));
	victim = fork();
	CHECK(victim >= 0);
	if (!victim) {
		pthread_mutex_lock(&sh->lock[0]);
		for (j = 0; j < P_BATCH; j++) {
			sqe = io_uring_get_sqe(&sh->ring[0]);
			io_uring_prep_read(sqe, p[0], &buf[j], 1, 0);
			sqe->user_data = (unsigned)j;
			sh->slot[0][j].state = P_INFLIGHT;
		}
		if (io_uring_submit(&sh->ring[0]) != P_BATCH)
			_exit(2);
		pthread_mutex_unlock(&sh->lock[0]);
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	CHECK_EQ(waitpid(victim, &status, 0), victim);
	CHECK(WIFSIGNALED(status));
	/*
	 * The kernel posts the dead task's armed reads when the pipe wakes
	 * them, the user engine when a waiter looks for processes that are
	 * gone: either way -ECANCELED, and the byte stays in the pipe.
	 */
	CHECK_EQ(write(p[1], "x", 1), 1);
	helper = fork();
	CHECK(helper >= 0);
	if (!helper) {
		pthread_mutex_lock(&sh->lock[0]);
		while (p_wait_one(0, 1))
			;
		for (j = 0; j < P_BATCH; j++)
			if (sh->slot[0][j].reaped != 1 ||
			    sh->slot[0][j].res != -ECANCELED)
				_exit(4);
		pthread_mutex_unlock(&sh->lock[0]);
		_exit(0);
	}
	CHECK_EQ(waitpid(helper, &status, 0), helper);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	/* the pipe kept what nobody read; the ring serves the parent */
	sqe = io_uring_get_sqe(&sh->ring[0]);
	io_uring_prep_read(sqe, p[0], buf, 1, 0);
	sqe->user_data = 99;
	CHECK_EQ(io_uring_submit_and_wait(&sh->ring[0], 1), 1);
	CHECK_EQ(io_uring_peek_cqe(&sh->ring[0], &cqe), 0);
	CHECK_EQ(cqe->user_data, 99);
	CHECK_EQ(cqe->res, 1);
	io_uring_cqe_seen(&sh->ring[0], cqe);
	CHECK_EQ(io_uring_cq_ready(&sh->ring[0]), 0);
	io_uring_queue_exit(&sh->ring[0]);
	close(p[0]);
	close(p[1]);
	munmap(sh, sizeof(*sh));
}

#define P_CYCLES	5

static int p_count_threads(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");
	int n = -1;

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* crash-restart cycles: nothing of a cycle is left in the parent */
static void p_restart(void)
{
	pthread_mutexattr_t ma;
	pid_t pid[P_CHILDREN];
	int fds0 = 0, thr0 = 0, c, status;
	long long t0;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	for (int cycle = 0; cycle < P_CYCLES; cycle++) {
		sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		CHECK(sh != MAP_FAILED);
		for (c = 0; c < P_CHILDREN; c++) {
			CHECK(!pthread_mutex_init(&sh->lock[c], &ma));
			t_ring(&sh->ring[c], 64, NULL);
		}
		dfd = p_file(false);
		fflush(stdout);
		for (c = 0; c < P_CHILDREN; c++) {
			pid[c] = fork();
			CHECK(pid[c] >= 0);
			if (!pid[c])
				_exit(p_child(c, 1 << 30));
		}
		/* each child well into its I/O, then the crash */
		t0 = t_now_ns();
		for (c = 0; c < P_CHILDREN; c++)
			while (__atomic_load_n(&sh->ios[c], __ATOMIC_RELAXED) < 4 * P_BATCH) {
				CHECK(t_now_ns() - t0 < T_HANG_SEC * 1000000000LL);
				sched_yield();
			}
		for (c = 0; c < P_CHILDREN; c++)
			CHECK(!kill(pid[c], SIGKILL));
		for (c = 0; c < P_CHILDREN; c++) {
			CHECK_EQ(waitpid(pid[c], &status, 0), pid[c]);
			CHECK(WIFSIGNALED(status));
		}
		for (c = 0; c < P_CHILDREN; c++)
			io_uring_queue_exit(&sh->ring[c]);
		close(dfd);
		munmap(sh, sizeof(*sh));
		if (!cycle) {
			fds0 = t_count_fds();
			thr0 = p_count_threads();
			continue;
		}
		CHECK_EQ(t_count_fds(), fds0);
		CHECK_EQ(p_count_threads(), thr0);
	}
}

static int p_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

struct p_pinger {
	struct io_uring *ring;
	int n;
};

/* the other side: a NOP each 200 us, its submit time as user_data */
static void *p_ping(void *arg)
{
	struct p_pinger *pp = arg;

	for (int i = 0; i < pp->n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(pp->ring);

		usleep(200);
		io_uring_prep_nop(sqe);
		sqe->user_data = (unsigned long long)t_now_ns();
		if (io_uring_submit(pp->ring) != 1)
			return (void *)1;
	}
	return NULL;
}

/*
 * Wake latency: another process's (or, with thread, another thread's)
 * submit to this thread's return from its wait
 */
static void p_wake(int n, bool thread)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	long long *lat = calloc((size_t)n, sizeof(*lat));
	struct p_pinger pp = { &ring, n };
	pthread_t th;
	int status;
	pid_t pid = 0;

	CHECK(lat);
	t_ring(&ring, 8, NULL);
	if (thread) {
		CHECK(!pthread_create(&th, NULL, p_ping, &pp));
	} else {
		pid = fork();
		CHECK(pid >= 0);
		if (!pid)
			_exit(p_ping(&pp) ? 1 : 0);
	}
	for (int i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		lat[i] = t_now_ns() - (long long)cqe->user_data;
		io_uring_cqe_seen(&ring, cqe);
	}
	if (thread)
		CHECK(!pthread_join(th, NULL));
	else
		CHECK_EQ(waitpid(pid, &status, 0), pid);
	qsort(lat, (size_t)n, sizeof(*lat), p_cmp);
	printf("%s: wake across %s p50 %.1f us, p99 %.1f us\n", t_engine(),
	       thread ? "threads" : "processes", lat[n / 2] / 1e3,
	       lat[n * 99 / 100] / 1e3);
	io_uring_queue_exit(&ring);
	free(lat);
}

int main(int argc, char **argv)
{
	unsigned long long helped = 0;
	double iops;

	if (argc > 2 && !strcmp(argv[1], "wake")) {
		p_wake(atoi(argv[2]), argc > 3 && !strcmp(argv[3], "thread"));
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "bench")) {
		bool buffered = false;

		for (int i = 3; i < argc; i++) {
			buffered |= !strcmp(argv[i], "buffered");
			reads_only |= !strcmp(argv[i], "reads");
		}

		unsigned long long other = 0;

		iops = p_run(atoi(argv[2]), buffered);
		for (int c = 0; c < P_CHILDREN; c++)
			for (int j = 0; j < P_BATCH; j++)
				other += sh->slot[c][j].reaped_by_other;
		printf("%s%s%s: %.0f I/Os per second; %d I/Os, each reaped once, "
		       "%llu by another process\n", t_engine(),
		       buffered ? " buffered" : "", reads_only ? " reads" : "",
		       iops, P_CHILDREN * atoi(argv[2]) * P_BATCH, other);
		return 0;
	}
	for (int b = 0; b < 2; b++) {
		p_run(P_ROUNDS, b);
		for (int c = 0; c < P_CHILDREN; c++)
			helped += sh->helped[c];
		munmap(sh, sizeof(*sh));
	}
	printf("%d processes, %d rings (%s): %d I/Os each completed once, "
	       "%llu waits on another process's ring\n", P_CHILDREN,
	       P_CHILDREN, t_engine(), 2 * P_CHILDREN * P_ROUNDS * P_BATCH,
	       helped);
	p_kill();
	printf("a child killed with %d reads in flight: another reaped them "
	       "-ECANCELED, and the ring goes on (%s)\n", P_BATCH, t_engine());
	p_restart();
	printf("%d restart cycles of %d rings, children killed mid-I/O: the "
	       "same fds and threads after each (%s)\n", P_CYCLES, P_CHILDREN,
	       t_engine());
	return 0;
}
