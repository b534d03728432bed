/* SPDX-License-Identifier: MIT */
/*
 * net.h - `anyring-bench net`: a network workload over loopback TCP.
 * One server thread (kernel io_uring, the user engine's io_uring, or a
 * plain epoll loop) serves N connections; one client thread, a plain
 * epoll client that is the same for every server, drives them:
 *   echo    request/response, one request in flight per connection;
 *           requests/s and round-trip latency at the client
 *   stream  one-way: the client writes, the server reads and discards;
 *           MB/s counted by the server
 * The server's CPU is the process's (getrusage: the engine's threads
 * count) minus the client thread's (its thread CPU clock).
 */
#ifndef BENCH_NET_H
#define BENCH_NET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "hist.h"

#define NET_STREAM_BUF	65536u	/* the server's receive size in stream */
#define NET_MAX_CONNS	10000u

enum net_mode { NET_ECHO, NET_STREAM };
enum net_recv { NET_ONESHOT, NET_MULTISHOT };

struct net_spec {
	const char *engine;	/* kernel, user or epoll */
	enum net_mode mode;
	enum net_recv recv;	/* io_uring servers only */
	unsigned conns;
	unsigned size;		/* echo: message; stream: each client write */
	double runtime_s;
	bool json;
};

struct net_server {
	const struct net_spec *spec;
	int *fds;		/* the accepted sockets, one per connection */
	/* stream: bytes received; the server stores, main loads (relaxed:
	 * a counter read twice, nothing published through it) */
	_Atomic uint64_t bytes;
	int err;		/* 0 or -errno, with errmsg */
	char errmsg[160];
};

struct net_client {
	const struct net_spec *spec;
	int *fds;		/* the connected sockets */
	atomic_bool stop;	/* main sets it at the end of the run */
	atomic_bool record;	/* main sets it for the measured window */
	/* echo: round trips done; the client stores, main loads (relaxed) */
	_Atomic uint64_t done;
	struct lat_hist hist;	/* read by main after the join only */
	int err;
	char errmsg[160];
};

void *net_client_main(void *arg);
int net_epoll_serve(struct net_server *s);
int net_uring_serve(struct net_server *s);
int net_main(int argc, char **argv);

#endif
