/* SPDX-License-Identifier: MIT */
/*
 * job.c - running one job: check the spec against its engine, prepare the
 * target, start one thread per worker (each opens the target and sets up
 * its own ring), start them together, print a line per second, stop them
 * at the deadline, and sum what they measured. CPU time and context
 * switches are the whole process's (getrusage RUSAGE_SELF) between the
 * start and the stop, so engine threads (io-wq, glibc AIO) count too.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "engine.h"
#include "ext.h"
#include "job.h"
#include "report.h"
#include "target.h"
#include "worker.h"

#define NSEC	1000000000ull

struct job_state {
	const struct job_spec *spec;
	const struct bench_engine *eng;
	struct target target;
	struct worker *workers;
	pthread_barrier_t start;
	_Atomic bool stop;
	_Atomic bool init_failed;
};

static _Atomic bool interrupted;

void job_interrupt(void)
{
	atomic_store(&interrupted, true);
}

bool job_interrupted(void)
{
	return atomic_load(&interrupted);
}

static void on_sigint(int sig)
{
	(void)sig;
	job_interrupt();
}

void job_catch_sigint(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART: the sleep returns */
}

void job_spec_defaults(struct job_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->engine = "kernel";
	s->depth = 128;
	s->batch_submit = 32;
	s->batch_complete = 32;
	s->bs = 4096;
	s->threads = 1;
	s->read_pct = 100;
	s->random = true;
	s->ring_flags = RINGF_TIO;
}

static int fail(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* What an engine lacks, as the error for the flag that asks for it. */
static int check_caps(const struct job_spec *s, unsigned caps, char *why,
		      size_t len)
{
	static const struct {
		unsigned cap;
		const char *flag;
		const char *engines;
	} needs[] = {
		{ ENG_NOP, "-N 1 (NOP)", "kernel or user" },
		{ ENG_POLLED, "-p 1 (polled I/O)", "kernel, user or sync" },
		{ ENG_FIXED_BUFS, "-B 1 (fixed buffers)", "kernel or user" },
		{ ENG_REG_FILES, "-F 1 (registered files)", "kernel or user" },
		{ ENG_POLICY, "--policy", "kernel or user" },
		{ ENG_SPLIT, "--split-reap", "kernel or user" },
		{ ENG_SIM, "a sim: target (simdev)", "user" },
		{ ENG_REAP, "--reap=eventfd|poll-ringfd", "kernel or user" },
		{ ENG_FDATASYNC, "--fdatasync=1", "kernel, user or sync" },
	};
	bool asked[] = {
		s->nop, s->polled, s->fixed_bufs && !s->nop,
		s->reg_files && !s->nop, s->policy != NULL, s->split_reap,
		target_is_sim(s->target) && !s->nop,
		s->reap != REAP_ENTER, s->fdatasync,
	};
	unsigned i;

	_Static_assert(sizeof(asked) / sizeof(asked[0]) ==
		       sizeof(needs) / sizeof(needs[0]), "one flag per need");
	for (i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (asked[i] && !(caps & needs[i].cap))
			return fail(why, len, "%s needs --engine=%s, not %s",
				    needs[i].flag, needs[i].engines, s->engine);
	return 0;
}

static int check_policy(const struct job_spec *s, char *why, size_t len)
{
	struct anyring_policy p;

	if (!s->policy)
		return 0;
	if (!ext_have_policy())
		return fail(why, len, "--policy=%s: this libanyring has no "
			    "policies yet (anyring_policy_parse missing)",
			    s->policy);
	if (ext_policy_parse(s->policy, &p))
		return fail(why, len, "--policy=%s: not a policy (keys wake=, "
			    "complete=, wait=, iowait=, spin_usec=; see "
			    "include/anyring.h)", s->policy);
	return 0;
}

/* The new modes' flags that only make sense together. */
static int check_modes(const struct job_spec *s, char *why, size_t len)
{
	if (s->reap != REAP_ENTER && s->split_reap)
		return fail(why, len, "--reap=eventfd|poll-ringfd is one thread's "
			    "event loop: not with --split-reap");
	if (s->reap != REAP_ENTER && s->polled)
		return fail(why, len, "--reap=eventfd|poll-ringfd: polled I/O "
			    "(-p 1) completes only by entering the ring");
	if (s->fdatasync && (s->nop || s->read_pct))
		return fail(why, len, "--fdatasync=1 goes with writes only "
			    "(--rw=randwrite or write)");
	if (s->alloc && (s->nop || s->read_pct == 100))
		return fail(why, len, "--alloc goes with writes (--rw=randwrite, "
			    "write, randrw or rw)");
	if (s->alloc && (!s->size || !s->target || target_is_sim(s->target)))
		return fail(why, len, "--alloc needs --size and the path of a "
			    "file to make");
	if (s->cold && (s->nop || !s->target || target_is_sim(s->target)))
		return fail(why, len, "--cold needs a file target");
	return 0;
}

static void note(const struct job_spec *s, const char *msg)
{
	if (!s->quiet)
		fprintf(stderr, "anyring-bench: note: %s\n", msg);
}

int job_check(struct job_spec *s, char *why, size_t len)
{
	const struct bench_engine *eng = engine_find(s->engine);

	if (!eng) {
		snprintf(why, len, "--engine=%s: unknown (engines: %s)",
			 s->engine ? s->engine : "", engine_names());
		return -1;
	}
	if (!s->depth || s->depth > BENCH_MAX_DEPTH || !s->threads ||
	    s->threads > BENCH_MAX_THREADS || s->read_pct > 100)
		return fail(why, len, "depth (1..%u), threads (1..%u) or rwmix "
			    "(0..100) out of range", BENCH_MAX_DEPTH,
			    BENCH_MAX_THREADS);
	if (!s->nop && !s->bs)
		return fail(why, len, "-b: the block size must not be 0");
	if (check_caps(s, eng->caps, why, len) || check_policy(s, why, len) ||
	    check_modes(s, why, len))
		return -1;
	if (!s->nop && !s->target)
		return fail(why, len, "no target: give a file, a block device "
			    "or sim:SPEC (or -N 1 for NOPs)");
	if (s->nop && s->target) {
		note(s, "-N 1: the target is not used");
		s->target = NULL;
	}
	if (!(eng->caps & ENG_QUEUE) && s->depth > 1) {
		note(s, "the sync engine does one I/O at a time: depth 1 "
			"(-d ignored)");
		s->depth = 1;
	}
	if (s->batch_submit > s->depth || !s->batch_submit)
		s->batch_submit = s->depth;
	if (s->batch_complete > s->depth || !s->batch_complete)
		s->batch_complete = s->depth;
	if (s->sq_entries && s->sq_entries < s->depth)
		return fail(why, len, "the SQ ring must hold the depth");
	return 0;
}

/* In the worker's thread: target fd, slots, the engine's ring. */
static int worker_setup(struct job_state *js, struct worker *w)
{
	char why[200] = "";
	int ret;

	w->fd = -1;
	if (!js->spec->nop) {
		w->fd = target_open(&js->target, js->spec, why, sizeof(why));
		if (w->fd < 0) {
			worker_fail(w, w->fd, "%s", why);
			return w->fd;
		}
		w->nblocks = js->target.size / js->spec->bs;
	}
	ret = worker_alloc(w);
	if (ret) {
		worker_fail(w, ret, "out of memory");
		return ret;
	}
	ret = js->eng->init(w);
	if (ret && !w->err)
		worker_fail(w, ret, "%s engine: %s", js->eng->name, strerror(-ret));
	return ret;
}

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	struct job_state *js = w->job;
	int ret = worker_setup(js, w);

	if (ret)
		atomic_store(&js->init_failed, true);
	pthread_barrier_wait(&js->start);
	if (!ret && !atomic_load(&js->init_failed))
		worker_run(w);
	js->eng->exit(w);
	target_close(&js->target, w->fd);
	return NULL;
}

static void workers_init(struct job_state *js)
{
	unsigned i;

	for (i = 0; i < js->spec->threads; i++) {
		struct worker *w = &js->workers[i];

		w->spec = js->spec;
		w->eng = js->eng;
		w->id = i;
		w->stop = &js->stop;
		w->job = js;
		w->bs = js->spec->bs;
		w->read_pct = js->spec->read_pct;
		w->random = js->spec->random;
		w->track = js->spec->track_lat;
		/* --fdatasync: the fsync's 0 completes an I/O */
		w->expect_res = js->spec->nop || js->spec->fdatasync ? 0 :
				(int)js->spec->bs;
	}
}

/* Start the threads with SIGINT blocked: the main thread takes it. */
static unsigned workers_start(struct job_state *js)
{
	sigset_t set, old;
	unsigned i;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < js->spec->threads; i++)
		if (pthread_create(&js->workers[i].thread, NULL, worker_thread,
				   &js->workers[i]))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return i;
}

struct totals {
	uint64_t done, submitted, calls, rcalls;
};

static void totals_read(const struct job_state *js, struct totals *t)
{
	unsigned i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < js->spec->threads; i++) {
		const struct worker_counters *c = &js->workers[i].pub;

		t->done += atomic_load_explicit(&c->done, memory_order_relaxed);
		t->submitted += atomic_load_explicit(&c->submitted,
						     memory_order_relaxed);
		t->calls += atomic_load_explicit(&c->calls, memory_order_relaxed);
		t->rcalls += atomic_load_explicit(&c->rcalls, memory_order_relaxed);
	}
}

static bool any_error(const struct job_state *js)
{
	return atomic_load_explicit(&js->stop, memory_order_relaxed);
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / NSEC), (long)(t % NSEC) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The measured interval: per-second lines until the deadline. */
static void job_measure(struct job_state *js, struct job_result *r,
			struct totals *end)
{
	const struct job_spec *s = js->spec;
	uint64_t t0 = now_ns(), next = t0 + NSEC, last = t0, t1;
	uint64_t deadline = s->runtime_s > 0 ?
		t0 + (uint64_t)(s->runtime_s * 1e9) : UINT64_MAX;
	struct totals prev = { 0, 0, 0, 0 }, cur;

	for (;;) {
		sleep_until(next < deadline ? next : deadline);
		t1 = now_ns();
		if (t1 >= deadline || atomic_load(&interrupted) || any_error(js))
			break;
		if (t1 < next)
			continue;	/* woken early (a signal) */
		totals_read(js, &cur);
		if (!s->quiet)
			report_tick(stdout, s, (double)(cur.done - prev.done) *
				    1e9 / (double)(t1 - last),
				    cur.submitted - prev.submitted,
				    cur.calls - prev.calls, cur.done - prev.done,
				    s->split_reap ? cur.rcalls - prev.rcalls :
						    cur.calls - prev.calls);
		prev = cur;
		last = t1;
		next += NSEC;
	}
	atomic_store(&js->stop, true);
	totals_read(js, end);
	r->runtime_s = (double)(t1 - t0) / 1e9;
}

static double tv_sec(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void usage_delta(struct job_result *r, const struct rusage *a,
			const struct rusage *b)
{
	double t = r->runtime_s > 0 ? r->runtime_s : 1;

	r->cpu_usr = 100.0 * (tv_sec(&b->ru_utime) - tv_sec(&a->ru_utime)) / t;
	r->cpu_sys = 100.0 * (tv_sec(&b->ru_stime) - tv_sec(&a->ru_stime)) / t;
	r->ctx_vol = (uint64_t)(b->ru_nvcsw - a->ru_nvcsw);
	r->ctx_invol = (uint64_t)(b->ru_nivcsw - a->ru_nivcsw);
	r->ctx_switches = r->ctx_vol + r->ctx_invol;
}

/* (usr+sys)/IOs over the measured interval, in microseconds */
static void cpu_per_io(struct job_result *r)
{
	double cpu_s = (r->cpu_usr + r->cpu_sys) / 100.0 * r->runtime_s;

	r->cpu_per_io_us = r->ios ? cpu_s * 1e6 / (double)r->ios : 0;
}

static void stats_add(struct anyring_stats *sum, const struct anyring_stats *s)
{
	unsigned long long *d = (unsigned long long *)sum;
	const unsigned long long *v = (const unsigned long long *)s;
	unsigned long long max = sum->tw_max_batch;
	size_t i;

	for (i = 0; i < sizeof(*s) / sizeof(*v); i++)
		d[i] += v[i];
	sum->tw_max_batch = max > s->tw_max_batch ? max : s->tw_max_batch;
}

static int job_collect(struct job_state *js, struct job_result *r,
		       const struct totals *t)
{
	unsigned i;
	int err = 0;

	r->ios = t->done;
	r->submitted = t->submitted;
	r->calls = t->calls + t->rcalls;
	r->iops = r->runtime_s > 0 ? (double)r->ios / r->runtime_s : 0;
	r->bw_bytes = js->spec->nop ? 0 : r->iops * js->spec->bs;
	hist_init(&r->lat);
	r->has_stats = true;
	for (i = 0; i < js->spec->threads; i++) {
		struct worker *w = &js->workers[i];

		if (w->err && !err) {
			fprintf(stderr, "anyring-bench: thread %u: %s\n", i,
				w->errmsg);
			err = -1;
		}
		if (w->hist)
			hist_merge(&r->lat, w->hist);
		r->epoll_waits += w->epoll_waits;
		r->epoll_empty += w->epoll_empty;
		if (w->has_stats)
			stats_add(&r->stats, &w->stats);
		else
			r->has_stats = false;
		if (!i) {
			r->sq_ring = w->ring_sq;
			r->cq_ring = w->ring_cq;
			r->setup_flags = w->ring_setup;
		}
	}
	return err;
}

static int job_start(struct job_state *js, struct job_result *r)
{
	struct rusage ru0, ru1;
	struct totals end;
	unsigned started, i;
	int ret = 0;

	pthread_barrier_init(&js->start, NULL, js->spec->threads + 1);
	started = workers_start(js);
	if (started < js->spec->threads) {
		/* the barrier would never fill: fail the ones that started */
		fprintf(stderr, "anyring-bench: cannot start thread %u\n", started);
		exit(1);
	}
	pthread_barrier_wait(&js->start);
	if (atomic_load(&js->init_failed)) {
		ret = -1;
	} else {
		if (!js->spec->quiet)
			report_header(stdout, js->spec, js->workers[0].ring_sq,
				      js->workers[0].ring_cq,
				      js->workers[0].ring_setup);
		getrusage(RUSAGE_SELF, &ru0);
		job_measure(js, r, &end);
		getrusage(RUSAGE_SELF, &ru1);
		usage_delta(r, &ru0, &ru1);
	}
	for (i = 0; i < started; i++)
		pthread_join(js->workers[i].thread, NULL);
	pthread_barrier_destroy(&js->start);
	if (job_collect(js, r, ret ? &(struct totals){ 0, 0, 0, 0 } : &end))
		ret = -1;
	cpu_per_io(r);
	return ret;
}

int job_run(const struct job_spec *spec, struct job_result *r)
{
	struct job_state js;
	char why[256];
	unsigned i;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(&js, 0, sizeof(js));
	r->spec = *spec;
	if (job_check(&r->spec, why, sizeof(why))) {
		fprintf(stderr, "anyring-bench: %s\n", why);
		return -1;
	}
	js.spec = &r->spec;
	js.eng = engine_find(r->spec.engine);
	if (target_prepare(js.spec, &js.target, why, sizeof(why))) {
		fprintf(stderr, "anyring-bench: %s\n", why);
		target_release(&js.target);
		return -1;
	}
	js.workers = calloc(js.spec->threads, sizeof(*js.workers));
	if (!js.workers) {
		target_release(&js.target);
		return -1;
	}
	workers_init(&js);
	r->cache_start = r->cache_end = -1;
	if (js.spec->cold)
		r->cache_start = target_cached_pct(&js.target);
	ret = job_start(&js, r);
	if (js.spec->cold)
		r->cache_end = target_cached_pct(&js.target);
	for (i = 0; i < js.spec->threads; i++)
		worker_free(&js.workers[i]);
	free(js.workers);
	target_release(&js.target);
	return ret;
}
