/* SPDX-License-Identifier: MIT */
/*
 * api-races: completions racing signals and each other. Each part checks
 * outcomes, never timings: every CQE comes once, none is lost, and a
 * wait ends early only with a CQE to show for it.
 *
 *   waits         a thread storms the waiter with signals: an idle
 *                 wait_cqe_timeout ends with -EINTR or, not before its
 *                 timeout, -ETIME; a wait for a TIMEOUT request's CQE
 *                 (wait_cqe_timeout with a long timeout, and a raw enter
 *                 with min_complete 1 or 2, which only the TIMEOUT's
 *                 completion ends) returns 0 only with a CQE there, on a
 *                 plain ring and a DEFER_TASKRUN one;
 *                 an idle wait with min_wait ends with -EINTR or -ETIME,
 *                 not before its timeout nor before min_wait.
 *
 * ANYRING_SOAK=1 runs each part for at least 10^6 operations.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include "test.h"
#include "compat.h"

static int t_soak(void)
{
	const char *s = getenv("ANYRING_SOAK");

	return s && *s && strcmp(s, "0");
}

static unsigned long long t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL +
	       (unsigned long long)ts.tv_nsec;
}

/* ---- waits under a signal storm ---- */

static volatile sig_atomic_t t_signals;
static volatile int t_storm_stop;

static void t_on_signal(int sig)
{
	(void)sig;
	t_signals++;
}

static void *t_storm(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	struct timespec gap = { 0, 20000 };

	while (!__atomic_load_n(&t_storm_stop, __ATOMIC_RELAXED)) {
		pthread_kill(target, SIGUSR1);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

/* an idle ring: -EINTR, or -ETIME no earlier than asked */
static void t_idle_wait(struct io_uring *ring, long ns, unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ns };
	struct io_uring_cqe *cqe;
	unsigned long long t0 = t_now(), dt;
	int ret;

	ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	dt = t_now() - t0;
	if (ret == -EINTR) {
		(*eintr)++;
		return;
	}
	if (ret != -ETIME || dt < (unsigned long long)ns) {
		fprintf(stderr, "idle wait of %ld ns: %d after %llu ns\n", ns,
			ret, dt);
		exit(1);
	}
}

/*
 * An idle ring, a wait with min_wait and (ts_ns) a timeout: -EINTR, or
 * -ETIME no earlier than the later of the two: the kernel does not look
 * at the timeout before min_wait passed.
 */
static void t_idle_wait_ext(struct io_uring *ring, unsigned min_us, long ts_ns,
			    unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ts_ns };
	struct anyring_wait w;
	struct io_uring_cqe *cqe;
	unsigned long long t0 = t_now(), dt, least;
	int ret;

	if (!(ring->features & IORING_FEAT_MIN_TIMEOUT))
		return;
	memset(&w, 0, sizeof(w));
	w.min_wait_usec = min_us;
	w.ts = ts_ns ? &ts : NULL;
	ret = anyring_submit_and_wait_ext(ring, &cqe, 1, &w);
	dt = t_now() - t0;
	least = min_us * 1000ULL;
	if ((unsigned long long)ts_ns > least)
		least = (unsigned long long)ts_ns;
	if (ret == -EINTR) {
		(*eintr)++;
		return;
	}
	if (ret != -ETIME || dt < least) {
		fprintf(stderr, "idle wait, min_wait %u us, timeout %ld ns: "
			"%d after %llu ns\n", min_us, ts_ns, ret, dt);
		exit(1);
	}
}

static void t_prep_timeout(struct io_uring *ring, struct __kernel_timespec *ts)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_timeout(sqe, ts, 0, 0);
	sqe->user_data = 7;
	CHECK_EQ(io_uring_submit(ring), 1);
}

/* a TIMEOUT request's CQE, waited for with a timeout that never expires */
static void t_timeout_wait(struct io_uring *ring, long ns, unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ns }, wts = { 100, 0 };
	struct io_uring_cqe *cqe;
	int ret;

	t_prep_timeout(ring, &ts);
	for (;;) {
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &wts);
		if (ret != -EINTR)
			break;
		(*eintr)++;
	}
	if (ret) {
		fprintf(stderr, "wait for a %ld ns TIMEOUT: %d, no CQE\n", ns, ret);
		exit(1);
	}
	CHECK_EQ(cqe->user_data, 7);
	CHECK_EQ(cqe->res, -ETIME);
	io_uring_cqe_seen(ring, cqe);
}

/*
 * The same with a raw enter for nr CQEs: 0 means the CQE is there. With
 * nr 2 only the TIMEOUT's completion ends the wait, so it must come
 * after the wait began: the enter submits it, on a ring whose
 * completions its task posts while it waits (the user engine's
 * DEFER_TASKRUN ring; the kernel's timer may fire before its wait).
 */
static void t_timeout_enter(struct io_uring *ring, long ns, unsigned nr,
			    unsigned *eintr)
{
	struct __kernel_timespec ts = { 0, ns };
	struct io_uring_cqe *cqe;
	int ret;

	if (nr == 1) {
		t_prep_timeout(ring, &ts);
	} else {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_timeout(sqe, &ts, 0, 0);
		sqe->user_data = 7;
		/* one enter: the submit count, whether the wait ended or a signal came */
		CHECK_EQ(io_uring_submit_and_wait(ring, nr), 1);
		if (io_uring_cq_ready(ring))
			goto done;
	}
	for (;;) {
		ret = io_uring_enter(ring->ring_fd, 0, nr, IORING_ENTER_GETEVENTS,
				     NULL);
		if (ret == -EINTR || (ret < 0 && errno == EINTR)) {
			(*eintr)++;
			continue;
		}
		CHECK_EQ(ret, 0);
		if (!io_uring_cq_ready(ring)) {
			fprintf(stderr, "enter for %u CQEs returned 0, CQ empty\n",
				nr);
			exit(1);
		}
		break;
	}
done:
	CHECK_EQ(io_uring_peek_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 7);
	CHECK_EQ(cqe->res, -ETIME);
	io_uring_cqe_seen(ring, cqe);
}

static void t_waits(unsigned iters, unsigned setup_flags, int storm)
{
	struct io_uring_params p;
	struct sigaction sa;
	struct io_uring ring;
	pthread_t self = pthread_self(), th;
	unsigned i, eintr = 0;
	bool task_posts = (setup_flags & IORING_SETUP_DEFER_TASKRUN) &&
			  !strcmp(t_engine(), "user");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = t_on_signal;
	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGUSR1, &sa, NULL));
	memset(&p, 0, sizeof(p));
	p.flags = setup_flags;
	t_ring(&ring, 8, &p);
	t_storm_stop = !storm;
	if (storm)
		CHECK(!pthread_create(&th, NULL, t_storm, &self));
	for (i = 0; i < iters; i++) {
		switch (i % 6) {
		case 0:
			t_idle_wait(&ring, 1000 + (long)(i % 7) * 10000, &eintr);
			break;
		case 1:
			t_timeout_wait(&ring, (long)(i % 7) * 1000, &eintr);
			break;
		case 2:
			t_timeout_enter(&ring, (long)(i % 7) * 1000,
					task_posts && i / 6 % 2 ? 2 : 1, &eintr);
			break;
		case 3:
			t_idle_wait_ext(&ring, 1 + i % 20, 30000, &eintr);
			break;
		case 4:
			t_idle_wait_ext(&ring, 20 + i % 20, 10000, &eintr);
			break;
		default:
			t_idle_wait_ext(&ring, 1 + i % 20, 0, &eintr);
			break;
		}
	}
	if (storm) {
		__atomic_store_n(&t_storm_stop, 1, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
	}
	printf("waits (setup flags 0x%x%s): %u, %u ended by a signal\n",
	       setup_flags, storm ? ", signals" : "", iters, eintr);
	io_uring_queue_exit(&ring);
}

int main(int argc, char **argv)
{
	int soak = t_soak();
	const char *only = argc > 1 ? argv[1] : "";

	if (!*only || !strcmp(only, "wait")) {
		unsigned n = soak ? 400000 : 12000;
		/* its task posts the TIMEOUT's completion: the wait must end for it */
		unsigned defer = IORING_SETUP_SINGLE_ISSUER |
				 IORING_SETUP_DEFER_TASKRUN;

		t_waits(n, 0, 1);
		t_waits(n, defer, 1);
		/* no signal to end a wait that misses its wakeup */
		t_waits(n, defer, 0);
	}
	return 0;
}
