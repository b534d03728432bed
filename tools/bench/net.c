/* SPDX-License-Identifier: MIT */
/*
 * net.c - `anyring-bench net [OPTIONS]`: the network workload's options,
 * its connections (loopback TCP, set up with plain calls before the
 * run), the measured window and the report. See net.h for the shape.
 *
 * The window starts after a warm-up (a tenth of the run, at least 0.1 s)
 * and ends when the run time is up; requests, bytes, latencies and CPU
 * are counted inside it only. Then the client closes its sockets and the
 * server returns when it has seen every connection end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "net.h"
#include "now.h"
#include "units.h"

enum { NOPT_ENGINE = 256, NOPT_MODE, NOPT_CONNS, NOPT_RECV, NOPT_JSON };

static const struct option net_opts[] = {
	{ "engine", required_argument, NULL, NOPT_ENGINE },
	{ "mode", required_argument, NULL, NOPT_MODE },
	{ "conns", required_argument, NULL, NOPT_CONNS },
	{ "recv", required_argument, NULL, NOPT_RECV },
	{ "json", no_argument, NULL, NOPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void net_usage(FILE *f)
{
	fprintf(f,
"usage: anyring-bench net [OPTIONS]\n"
"\n"
"A network server over loopback TCP (127.0.0.1), one thread, measured\n"
"against one client thread (a plain epoll client, the same for every\n"
"server). The connections are made before the run.\n"
"  --engine=E    the server: kernel (io_uring, default), user (io_uring on\n"
"                the user engine) or epoll (nonblocking sockets, epoll_wait,\n"
"                read/write until EAGAIN)\n"
"  --mode=M      echo (default): request/response, one request in flight\n"
"                per connection; stream: the client writes, the server\n"
"                reads %u bytes at a time and drops them\n"
"  --conns=N     connections (1..%u), default 1\n"
"  --recv=R      io_uring servers: oneshot (default): a RECV per message;\n"
"                multishot: one multishot RECV per connection with a\n"
"                registered buffer ring (IORING_REGISTER_PBUF_RING)\n"
"  -b SIZE       echo: the message (default 64); stream: each client\n"
"                write (default 64K)\n"
"  -r SECS       run time, default 3; the first tenth (at least 0.1 s)\n"
"                is a warm-up and not counted\n"
"  --json        one JSON object instead of text\n"
"\n"
"Reports requests/s and the round trip's p50/p99 (echo, at the client)\n"
"or MB/s (stream, read by the server), and the server's CPU: the\n"
"process's usr+sys (engine threads included) minus the client thread's,\n"
"as %% of one CPU and per request (echo) or per MB (stream).\n",
		NET_STREAM_BUF, NET_MAX_CONNS);
}

static int net_bad(const char *flag, const char *val, const char *want)
{
	fprintf(stderr, "anyring-bench net: %s: '%s' is not %s (see --help)\n",
		flag, val, want);
	return 2;
}

static int net_opt(int c, const char *val, struct net_spec *s, bool *size_set)
{
	uint64_t size;
	char *end;

	switch (c) {
	case NOPT_ENGINE:
		if (strcmp(val, "kernel") && strcmp(val, "user") &&
		    strcmp(val, "epoll"))
			return net_bad("--engine", val, "kernel, user or epoll");
		s->engine = val;
		return 0;
	case NOPT_MODE:
		if (!strcmp(val, "echo"))
			s->mode = NET_ECHO;
		else if (!strcmp(val, "stream"))
			s->mode = NET_STREAM;
		else
			return net_bad("--mode", val, "echo or stream");
		return 0;
	case NOPT_RECV:
		if (!strcmp(val, "oneshot"))
			s->recv = NET_ONESHOT;
		else if (!strcmp(val, "multishot"))
			s->recv = NET_MULTISHOT;
		else
			return net_bad("--recv", val, "oneshot or multishot");
		return 0;
	case NOPT_CONNS:
		if (parse_uint(val, 1, NET_MAX_CONNS, &s->conns))
			return net_bad("--conns", val, "a number of connections");
		return 0;
	case NOPT_JSON: s->json = true; return 0;
	case 'b':
		if (parse_size(val, &size) || !size || size > (16u << 20))
			return net_bad("-b", val, "a size (1..16M)");
		s->size = (unsigned)size;
		*size_set = true;
		return 0;
	case 'r':
		s->runtime_s = strtod(val, &end);
		if (end == val || *end || !isfinite(s->runtime_s) ||
		    s->runtime_s <= 0 || s->runtime_s > 1e6)
			return net_bad("-r", val, "a number of seconds > 0");
		return 0;
	}
	fprintf(stderr, "anyring-bench net: unknown option %s (see --help)\n",
		val ? val : "");
	return 2;
}

/* 0 parsed, 1 --help, 2 usage error */
static int net_parse(int argc, char **argv, struct net_spec *s)
{
	bool size_set = false;
	int c, ret;

	memset(s, 0, sizeof(*s));
	s->engine = "kernel";
	s->conns = 1;
	s->runtime_s = 3;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":b:r:h", net_opts, NULL)) != -1) {
		if (c == 'h') {
			net_usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "anyring-bench net: %s %s (see --help)\n",
				argv[optind - 1], c == ':' ? "needs a value" :
				"is not an option");
			return 2;
		}
		ret = net_opt(c, optarg, s, &size_set);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "anyring-bench net: no target; extra '%s'\n",
			argv[optind]);
		return 2;
	}
	if (!size_set)
		s->size = s->mode == NET_ECHO ? 64 : 65536;
	if (s->recv == NET_MULTISHOT && !strcmp(s->engine, "epoll")) {
		fprintf(stderr, "anyring-bench net: --recv goes with the kernel "
			"and user engines\n");
		return 2;
	}
	return 0;
}

static int tcp_pair(int lfd, const struct sockaddr_in *sa, int *cfd, int *sfd)
{
	int one = 1;

	*sfd = -1;
	*cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*cfd < 0)
		return -errno;
	if (connect(*cfd, (const struct sockaddr *)sa, sizeof(*sa)))
		return -errno;
	*sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (*sfd < 0)
		return -errno;
	setsockopt(*cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(*sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* n connections over 127.0.0.1; 0 or -errno */
static int net_connect(unsigned n, int *cfd, int *sfd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct rlimit rl;
	unsigned i;
	int lfd, ret = 0;

	/* two fds a connection: raise the soft limit to the hard one */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < n; i++)
		cfd[i] = sfd[i] = -1;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 64) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len))
		ret = -errno;
	for (i = 0; i < n && !ret; i++)
		ret = tcp_pair(lfd, &sa, &cfd[i], &sfd[i]);
	close(lfd);
	return ret;
}

static double ru_secs(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double clock_secs(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_secs(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

struct net_result {
	double secs, rps, mbps, p50_us, p99_us, cpu_pct, cpu_us_per;
	uint64_t reqs, bytes;
};

struct net_run {
	struct net_server srv;
	struct net_client cli;
	pthread_t st, ct;
	clockid_t ccpu;
	int sret;
};

static void *server_main(void *arg)
{
	struct net_run *r = arg;

	r->sret = strcmp(r->srv.spec->engine, "epoll") ?
		  net_uring_serve(&r->srv) : net_epoll_serve(&r->srv);
	return NULL;
}

/* The measured window: counters, CPU and latencies between two marks */
static void net_window(struct net_run *r, const struct net_spec *s,
		       struct net_result *res)
{
	double warm = s->runtime_s / 10 < 0.1 ? 0.1 : s->runtime_s / 10;
	double cpu0, ccpu0, cpu1, ccpu1;
	uint64_t t0, t1, d0, b0;

	sleep_secs(warm);
	t0 = now_ns();
	cpu0 = ru_secs();
	ccpu0 = clock_secs(r->ccpu);
	d0 = atomic_load_explicit(&r->cli.done, memory_order_relaxed);
	b0 = atomic_load_explicit(&r->srv.bytes, memory_order_relaxed);
	atomic_store_explicit(&r->cli.record, true, memory_order_relaxed);
	sleep_secs(s->runtime_s - warm > 0.1 ? s->runtime_s - warm : 0.1);
	atomic_store_explicit(&r->cli.record, false, memory_order_relaxed);
	res->reqs = atomic_load_explicit(&r->cli.done, memory_order_relaxed) - d0;
	res->bytes = atomic_load_explicit(&r->srv.bytes, memory_order_relaxed) - b0;
	cpu1 = ru_secs();
	ccpu1 = clock_secs(r->ccpu);
	t1 = now_ns();
	res->secs = (t1 - t0) / 1e9;
	res->cpu_pct = 100 * ((cpu1 - cpu0) - (ccpu1 - ccpu0)) / res->secs;
	if (res->cpu_pct < 0)
		res->cpu_pct = 0;
}

static void net_finish(const struct net_spec *s, const struct lat_hist *h,
		       struct net_result *res)
{
	const double pct[2] = { 50, 99 };
	uint64_t out[2] = { 0, 0 };
	double cpu_s = res->cpu_pct / 100 * res->secs;

	res->rps = res->reqs / res->secs;
	res->mbps = res->bytes / res->secs / 1e6;
	if (h->count)
		hist_percentiles(h, pct, 2, out);
	res->p50_us = out[0] / 1e3;
	res->p99_us = out[1] / 1e3;
	if (s->mode == NET_ECHO)
		res->cpu_us_per = res->reqs ? cpu_s * 1e6 / res->reqs : 0;
	else
		res->cpu_us_per = res->bytes ? cpu_s * 1e6 / (res->bytes / 1e6) : 0;
}

static void net_print(const struct net_spec *s, const struct net_result *r)
{
	const char *recv = strcmp(s->engine, "epoll") ?
		(s->recv == NET_MULTISHOT ? "multishot" : "oneshot") : "-";
	bool echo = s->mode == NET_ECHO;

	if (s->json) {
		printf("{\"workload\":\"net\",\"engine\":\"%s\",\"mode\":\"%s\","
		       "\"recv\":\"%s\",\"conns\":%u,\"size\":%u,\"secs\":%.3f,"
		       "\"reqs\":%llu,\"reqs_per_s\":%.1f,\"bytes\":%llu,"
		       "\"mb_per_s\":%.2f,\"p50_us\":%.2f,\"p99_us\":%.2f,"
		       "\"cpu_pct\":%.1f,\"cpu_us_per_req\":%.3f,"
		       "\"cpu_us_per_mb\":%.3f}\n",
		       s->engine, echo ? "echo" : "stream", recv, s->conns,
		       s->size, r->secs, (unsigned long long)r->reqs, r->rps,
		       (unsigned long long)r->bytes, r->mbps, r->p50_us,
		       r->p99_us, r->cpu_pct, echo ? r->cpu_us_per : 0,
		       echo ? 0 : r->cpu_us_per);
		return;
	}
	printf("net %s, %u B, %u connection%s, %s server, recv %s, %.2f s\n",
	       echo ? "echo" : "stream", s->size, s->conns,
	       s->conns == 1 ? "" : "s", s->engine, recv, r->secs);
	if (echo)
		printf("  %.0f requests/s, round trip p50 %.1f us, p99 %.1f us\n"
		       "  server CPU %.1f%% (%.2f us per request)\n",
		       r->rps, r->p50_us, r->p99_us, r->cpu_pct, r->cpu_us_per);
	else
		printf("  %.1f MB/s\n  server CPU %.1f%% (%.1f us per MB)\n",
		       r->mbps, r->cpu_pct, r->cpu_us_per);
}

static int net_run_spec(const struct net_spec *s, int *cfd, int *sfd)
{
	struct net_run *r = calloc(1, sizeof(*r));
	struct net_result res = { 0 };
	int ret = 1;

	if (!r)
		return 1;
	r->srv.spec = r->cli.spec = s;
	r->srv.fds = sfd;
	r->cli.fds = cfd;
	hist_init(&r->cli.hist);
	if (pthread_create(&r->st, NULL, server_main, r)) {
		free(r);
		return 1;
	}
	if (pthread_create(&r->ct, NULL, net_client_main, &r->cli)) {
		for (unsigned i = 0; i < s->conns; i++)
			shutdown(cfd[i], SHUT_RDWR);	/* let the server end */
		pthread_join(r->st, NULL);
		free(r);
		return 1;
	}
	if (pthread_getcpuclockid(r->ct, &r->ccpu))
		r->ccpu = CLOCK_THREAD_CPUTIME_ID;	/* never: a live thread */
	net_window(r, s, &res);
	atomic_store_explicit(&r->cli.stop, true, memory_order_relaxed);
	pthread_join(r->ct, NULL);	/* closes the client's sockets */
	pthread_join(r->st, NULL);
	if (r->cli.err)
		fprintf(stderr, "anyring-bench net: %s\n", r->cli.errmsg);
	else if (r->sret)
		fprintf(stderr, "anyring-bench net: %s\n", r->srv.errmsg);
	else {
		net_finish(s, &r->cli.hist, &res);
		net_print(s, &res);
		ret = 0;
	}
	free(r);
	return ret;
}

int net_main(int argc, char **argv)
{
	struct net_spec s;
	int *cfd, *sfd, ret;
	unsigned i;

	ret = net_parse(argc, argv, &s);
	if (ret)
		return ret == 1 ? 0 : 2;
	cfd = calloc(s.conns, sizeof(int));
	sfd = calloc(s.conns, sizeof(int));
	if (!cfd || !sfd)
		return 1;
	ret = net_connect(s.conns, cfd, sfd);
	if (ret) {
		fprintf(stderr, "anyring-bench net: %u loopback connections: "
			"%s\n", s.conns, strerror(-ret));
		for (i = 0; i < s.conns; i++)
			if (cfd[i] >= 0)
				close(cfd[i]);
		ret = 1;
	} else {
		ret = net_run_spec(&s, cfd, sfd);
	}
	for (i = 0; i < s.conns; i++)
		if (sfd[i] >= 0)
			close(sfd[i]);
	free(cfd);
	free(sfd);
	return ret;
}
