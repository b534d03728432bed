/* SPDX-License-Identifier: MIT */
/*
 * api-policy: the completion-path policies and per-ring counters.
 *   - the string form: parse, format, bad strings;
 *   - set and read back per ring; what an engine cannot apply;
 *   - counters count (submissions, completions, enters);
 *   - user engine: wake=threshold wakes a waiter for 128 events at most
 *     twice per batch while completions arrive one by one; wake=every
 *     wakes it about once per CQE (from the counters), under each
 *     complete= policy; complete= cannot change with requests in flight.
 * One by one: 128 reads on 128 pipes, armed, then a writer thread feeds
 * one pipe each time the waiter has gone to sleep (from the counters).
 * Counts are asserted, never times.
 */
#include <pthread.h>
#include <unistd.h>
#include "test.h"

#define NR	128

static void t_strings(void)
{
	struct anyring_policy p;
	char buf[160];

	CHECK_EQ(anyring_policy_parse("", &p), 0);
	CHECK_EQ(p.wake | p.complete | p.wait | p.iowait | p.spin_usec, 0);
	CHECK_EQ(anyring_policy_parse("wake=every,complete=punt,wait=hybrid,"
				      "iowait=off,issue=inline,block=worker,"
				      "spin_usec=250", &p), 0);
	CHECK_EQ(p.wake, ANYRING_WAKE_EVERY);
	CHECK_EQ(p.complete, ANYRING_COMPLETE_PUNT);
	CHECK_EQ(p.wait, ANYRING_WAITP_HYBRID);
	CHECK_EQ(p.iowait, ANYRING_IOWAIT_OFF);
	CHECK_EQ(p.spin_usec, 250);
	CHECK_EQ(p.issue, ANYRING_ISSUE_INLINE);
	CHECK_EQ(p.block, ANYRING_BLOCK_WORKER);
	CHECK(anyring_policy_format(&p, buf, sizeof(buf)) > 0);
	CHECK(!strcmp(buf, "wake=every,complete=punt,wait=hybrid,iowait=off,"
		      "issue=inline,block=worker,spin_usec=250"));
	CHECK_EQ(anyring_policy_parse("complete=single", &p), 0);
	CHECK_EQ(p.complete, ANYRING_COMPLETE_SINGLE);
	CHECK(anyring_policy_format(&p, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "complete=single,") != NULL);
	CHECK_EQ(anyring_policy_parse("block=waiter", &p), 0);
	CHECK_EQ(p.block, ANYRING_BLOCK_WAITER);
	CHECK_EQ(anyring_policy_parse("block=nobody", &p), -EINVAL);
	CHECK_EQ(anyring_policy_parse("issue=spread", &p), 0);
	CHECK_EQ(p.issue, ANYRING_ISSUE_SPREAD);
	CHECK_EQ(anyring_policy_parse("issue=sideways", &p), -EINVAL);
	CHECK_EQ(anyring_policy_parse("wait=spin,", &p), 0);
	CHECK_EQ(p.wait, ANYRING_WAITP_SPIN);
	CHECK_EQ(anyring_policy_parse("wake=sometimes", &p), -EINVAL);
	CHECK_EQ(anyring_policy_parse("colour=blue", &p), -EINVAL);
	CHECK_EQ(anyring_policy_parse("wait", &p), -EINVAL);
	CHECK_EQ(anyring_policy_parse("spin_usec=5000000", &p), -EINVAL);
	CHECK_EQ(anyring_policy_parse("spin_usec=12x", &p), -EINVAL);
	CHECK_EQ(anyring_policy_parse(NULL, &p), -EINVAL);
}

static void t_set_get(struct io_uring *ring, bool user)
{
	struct anyring_policy p, got;

	CHECK_EQ(anyring_ring_policy(ring, &got), 0);
	/* defaults are resolved: nothing reads DEFAULT back */
	CHECK(got.wake && got.wait && got.iowait && got.issue && got.block);
	if (user) {
		CHECK_EQ(got.block, ANYRING_BLOCK_WAITER);
		CHECK_EQ(got.wake, ANYRING_WAKE_THRESHOLD);
		CHECK_EQ(got.complete, ANYRING_COMPLETE_INLINE);
		CHECK_EQ(got.wait, ANYRING_WAITP_ADAPTIVE);
	} else {
		CHECK_EQ(got.wait, ANYRING_WAITP_SLEEP);
		CHECK_EQ(got.issue, ANYRING_ISSUE_INLINE);
		CHECK_EQ(got.block, ANYRING_BLOCK_WORKER);
	}
	memset(&p, 0, sizeof(p));
	p.wait = ANYRING_WAITP_SPIN;
	p.spin_usec = 100;
	CHECK_EQ(anyring_ring_set_policy(ring, &p), 0);
	CHECK_EQ(anyring_ring_policy(ring, &got), 0);
	CHECK_EQ(got.wait, ANYRING_WAITP_SPIN);
	CHECK_EQ(got.spin_usec, 100);
	p.wait = 99;
	CHECK_EQ(anyring_ring_set_policy(ring, &p), -EINVAL);
	memset(&p, 0, sizeof(p));
	p.wake = ANYRING_WAKE_EVERY;
	CHECK_EQ(anyring_ring_set_policy(ring, &p), user ? 0 : -EOPNOTSUPP);
	memset(&p, 0, sizeof(p));
	p.issue = ANYRING_ISSUE_SPREAD;
	/* the kernel issues in the submitting task */
	CHECK_EQ(anyring_ring_set_policy(ring, &p), user ? 0 : -EOPNOTSUPP);
	if (user) {
		CHECK_EQ(anyring_ring_policy(ring, &got), 0);
		CHECK_EQ(got.issue, ANYRING_ISSUE_SPREAD);
	}
	p.issue = 7;
	CHECK_EQ(anyring_ring_set_policy(ring, &p), -EINVAL);
	memset(&p, 0, sizeof(p));
	p.block = ANYRING_BLOCK_WORKER;
	CHECK_EQ(anyring_ring_set_policy(ring, &p), 0);
	CHECK_EQ(anyring_ring_policy(ring, &got), 0);
	CHECK_EQ(got.block, ANYRING_BLOCK_WORKER);
	p.block = ANYRING_BLOCK_WAITER;
	/* io-wq is the kernel's */
	CHECK_EQ(anyring_ring_set_policy(ring, &p), user ? 0 : -EOPNOTSUPP);
	p.block = 9;
	CHECK_EQ(anyring_ring_set_policy(ring, &p), -EINVAL);
	memset(&p, 0, sizeof(p));
	p.iowait = ANYRING_IOWAIT_ON;
	/* the user engine's sleeps are never iowait */
	CHECK_EQ(anyring_ring_set_policy(ring, &p), user ? -EOPNOTSUPP : 0);
	memset(&p, 0, sizeof(p));
	CHECK_EQ(anyring_ring_set_policy(ring, &p), 0);
}

static void t_counters(struct io_uring *ring)
{
	struct anyring_stats st;
	struct io_uring_cqe *cqe;
	int i;

	CHECK_EQ(anyring_ring_stats_reset(ring), 0);
	for (i = 0; i < 10; i++)
		io_uring_prep_nop(io_uring_get_sqe(ring));
	CHECK_EQ(io_uring_submit_and_wait(ring, 10), 10);
	for (i = 0; i < 10; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		io_uring_cqe_seen(ring, cqe);
	}
	CHECK_EQ(anyring_ring_stats(ring, &st), 0);
	CHECK_EQ(st.submissions, 10);
	CHECK_EQ(st.completions, 10);
	CHECK(st.enters >= 1);
	CHECK_EQ(anyring_ring_stats_reset(ring), 0);
	CHECK_EQ(anyring_ring_stats(ring, &st), 0);
	CHECK_EQ(st.submissions, 0);
	CHECK_EQ(st.completions, 0);
}

struct feeder {
	int (*pipes)[2];
	unsigned n;
	struct io_uring *ring;
	bool every;		/* wake=every: feed one pipe per sleep */
};

/* the waiter's sleeps so far: it went to sleep at least once more */
static unsigned long long t_sleeps(struct io_uring *ring)
{
	struct anyring_stats st;

	CHECK_EQ(anyring_ring_stats(ring, &st), 0);
	return st.sleeps;
}

/*
 * Feed the next pipe once the waiter went to sleep again (the counter
 * counts a sleep before the waiter sleeps; a CQE posted in between still
 * ends that sleep through the wake protocol): with wake=every, one
 * wakeup per CQE, however the threads are scheduled. With threshold, no
 * wakeup is due before the last CQE: feed once it slept the first time.
 * A waiter that never sleeps again fails after T_HANG_SEC.
 */
static void *t_feed(void *arg)
{
	struct feeder *f = arg;
	long long end = t_now_ns() + T_HANG_SEC * 1000000000LL;
	char c = 'x';

	for (unsigned i = 0; i < f->n; i++) {
		while (t_sleeps(f->ring) < (f->every ? i + 1 : 1)) {
			CHECK(t_now_ns() < end);
			usleep(50);
		}
		CHECK_EQ(write(f->pipes[i][1], &c, 1), 1);
	}
	return NULL;
}

/* 128 reads complete one by one while this thread waits for all 128 */
static unsigned long long t_batch_wakeups(unsigned char wake,
					  unsigned char complete,
					  struct anyring_stats *out)
{
	static int pipes[NR][2];
	struct io_uring ring;
	struct io_uring_params prm;
	struct anyring_policy p;
	struct feeder f = { pipes, NR, NULL, wake == ANYRING_WAKE_EVERY };
	struct io_uring_cqe *cqe;
	char buf[NR];
	pthread_t tid;
	unsigned i;

	memset(&prm, 0, sizeof(prm));
	CHECK_EQ(anyring_queue_init_engine("user", NR * 2, &ring, &prm), 0);
	memset(&p, 0, sizeof(p));
	p.wake = wake;
	p.complete = complete;
	p.wait = ANYRING_WAITP_SLEEP;	/* waits end only through wakeups */
	CHECK_EQ(anyring_ring_set_policy(&ring, &p), 0);
	for (i = 0; i < NR; i++) {
		CHECK_EQ(pipe(pipes[i]), 0);
		io_uring_prep_read(io_uring_get_sqe(&ring), pipes[i][0],
				   &buf[i], 1, 0);
	}
	CHECK_EQ(io_uring_submit(&ring), NR);
	/* requests are in flight now: complete= cannot switch */
	p.complete = complete == ANYRING_COMPLETE_PUNT ?
		     ANYRING_COMPLETE_INLINE : ANYRING_COMPLETE_PUNT;
	CHECK_EQ(anyring_ring_set_policy(&ring, &p), -EBUSY);
	CHECK_EQ(anyring_ring_stats_reset(&ring), 0);
	f.ring = &ring;
	CHECK_EQ(pthread_create(&tid, NULL, t_feed, &f), 0);
	CHECK_EQ(io_uring_wait_cqes(&ring, &cqe, NR, NULL, NULL), 0);
	CHECK_EQ(io_uring_cq_ready(&ring), NR);
	CHECK_EQ(anyring_ring_stats(&ring, out), 0);
	pthread_join(tid, NULL);
	for (i = 0; i < NR; i++) {
		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		CHECK_EQ(cqe->res, 1);
		io_uring_cqe_seen(&ring, cqe);
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	io_uring_queue_exit(&ring);
	return out->wakeups;
}

static void t_wake_policies(void)
{
	static const unsigned char completes[] = {
		ANYRING_COMPLETE_INLINE, ANYRING_COMPLETE_DEFERRED,
		ANYRING_COMPLETE_PUNT, ANYRING_COMPLETE_SINGLE,
	};
	struct anyring_stats st;
	unsigned long long w;

	for (unsigned i = 0; i < 4; i++) {
		w = t_batch_wakeups(ANYRING_WAKE_THRESHOLD, completes[i], &st);
		printf("complete=%u wake=threshold: %llu wakeups, %llu spurious, "
		       "%llu sleeps for %d CQEs\n", completes[i], w,
		       st.spurious_wakeups, st.sleeps, NR);
		/* single wakes the task for each completion another thread queues */
		if (completes[i] != ANYRING_COMPLETE_SINGLE)
			CHECK(w <= 2);
		w = t_batch_wakeups(ANYRING_WAKE_EVERY, completes[i], &st);
		printf("complete=%u wake=every: %llu wakeups, %llu spurious, "
		       "%llu sleeps for %d CQEs\n", completes[i], w,
		       st.spurious_wakeups, st.sleeps, NR);
		/* one per CQE: each is fed while the waiter sleeps */
		CHECK(w >= NR);
		CHECK(st.spurious_wakeups >= w - 2);
		if (completes[i] == ANYRING_COMPLETE_DEFERRED)
			CHECK(st.tw_items >= NR);
		if (completes[i] == ANYRING_COMPLETE_PUNT)
			CHECK(st.worker_handoffs >= NR);
		/* single: each queued completion posted on its own */
		if (completes[i] == ANYRING_COMPLETE_SINGLE) {
			CHECK(st.tw_items >= NR);
			CHECK_EQ(st.tw_batches, st.tw_items);
		}
	}
}

int main(void)
{
	struct io_uring ring;
	bool user = !strcmp(t_engine(), "user");

	t_strings();
	t_ring(&ring, 64, NULL);
	t_set_get(&ring, user);
	t_counters(&ring);
	io_uring_queue_exit(&ring);
	if (user)
		t_wake_policies();
	return 0;
}
