/* SPDX-License-Identifier: MIT */
/*
 * waitloop.h - the part of a wait for CQEs before the sleep, as the wait=
 * policy plans it (waitpol.h): a timed sleep first (hybrid), then polling
 * for a bounded time. Both engines run this one loop; each says what
 * "the wait is over" means and where its counters go. Inline, so each
 * engine's callbacks are called directly.
 */
#ifndef ANYRING_LIB_WAITLOOP_H
#define ANYRING_LIB_WAITLOOP_H

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "lib/clock.h"
#include "lib/waitpol.h"

struct ar_wait_poll_ops {
	/* is the wait over? (may do the work that ends it: post, reap) */
	bool (*done)(void *arg);
	/* counters: sleeps and time asleep, then CQ polls */
	void (*count_sleep)(void *arg, uint64_t ns);
	void (*count_polls)(void *arg, uint64_t n);
	/* a signal during the timed sleep ends the wait with -EINTR */
	bool stop_on_signal;
};

/*
 * Run the plan for a wait that started at start (0: now, read only if
 * there is anything to do), no later than deadline_ns (0: none). The
 * learned estimates in est are updated. 1: the wait is over; 0: go to
 * sleep; -EINTR: a signal came during the timed sleep (stop_on_signal).
 */
static inline int ar_wait_poll(const struct anyring_policy *pol,
			       struct ar_wait_est *est, bool inflight,
			       uint64_t start, uint64_t deadline_ns,
			       const sigset_t *sigmask,
			       const struct ar_wait_poll_ops *ops, void *arg)
{
	struct ar_wait_plan pl;
	struct timespec ts;
	uint64_t end, now, n = 0;

	ar_wait_plan(pol, est, inflight, &pl);
	if (!pl.sleep_ns && !pl.spin_ns)
		return 0;
	if (!start)
		start = ar_now_ns();
	if (pl.sleep_ns) {
		ts.tv_sec = (time_t)(pl.sleep_ns / 1000000000ULL);
		ts.tv_nsec = (long)(pl.sleep_ns % 1000000000ULL);
		if (ppoll(NULL, 0, &ts, sigmask) < 0 && errno == EINTR &&
		    ops->stop_on_signal) {
			ops->count_sleep(arg, ar_now_ns() - start);
			return -EINTR;
		}
		now = ar_now_ns();
		ops->count_sleep(arg, now - start);
		if (now > start + pl.sleep_ns)
			ar_wait_learn_late(est, now - start - pl.sleep_ns);
		if (ops->done(arg)) {
			ar_wait_overslept(est);
			return 1;
		}
	}
	end = start + pl.sleep_ns + pl.spin_ns;
	if (deadline_ns && deadline_ns < end)
		end = deadline_ns;
	for (;;) {
		n++;
		if (ops->done(arg)) {
			ops->count_polls(arg, n);
			ar_wait_learn(est, ar_now_ns() - start);
			ar_wait_polled(est, true);
			return 1;
		}
		/* the clock is read every 16 polls, not on each */
		if (!(n & 15) && ar_now_ns() >= end)
			break;
		ar_cpu_relax();
	}
	ops->count_polls(arg, n);
	ar_wait_polled(est, false);
	return 0;
}

#endif
