/* SPDX-License-Identifier: MIT */
/*
 * net_client.c - the client side of `anyring-bench net`: one thread, a
 * plain epoll loop over blocking sockets (reads with MSG_DONTWAIT), the
 * same for every server, so that a difference between runs is the
 * server's. Echo keeps one request in flight per connection and times
 * each round trip from its send to the last byte of its answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include "net.h"
#include "now.h"

#define CLIENT_EVENTS	256
#define CLIENT_TICK_MS	100	/* how often the stop flag is looked at */

struct cconn {
	uint64_t t0;		/* echo: when the request was sent */
	unsigned got;		/* echo: bytes of the answer so far */
};

static int client_fail(struct net_client *c, int err, const char *what)
{
	c->err = -err;
	snprintf(c->errmsg, sizeof(c->errmsg), "client: %s: %s", what,
		 strerror(err));
	return -1;
}

static int send_request(struct net_client *c, unsigned i, struct cconn *cc,
			const char *msg)
{
	ssize_t r;

	/* before the send: on loopback the answer may come before it returns */
	cc[i].got = 0;
	cc[i].t0 = now_ns();
	r = send(c->fds[i], msg, c->spec->size, MSG_NOSIGNAL);
	if (r != (ssize_t)c->spec->size)
		return client_fail(c, r < 0 ? errno : EPROTO, "send");
	return 0;
}

/* An answer's bytes arrived: -1 on error, else 0 */
static int echo_readable(struct net_client *c, unsigned i, struct cconn *cc,
			 char *buf, const char *msg)
{
	unsigned size = c->spec->size;
	ssize_t r = recv(c->fds[i], buf, size - cc[i].got, MSG_DONTWAIT);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0)
		return client_fail(c, r ? errno : ECONNRESET, "recv");
	cc[i].got += (unsigned)r;
	if (cc[i].got < size)
		return 0;
	if (atomic_load_explicit(&c->record, memory_order_relaxed))
		hist_add(&c->hist, now_ns() - cc[i].t0, 1);
	atomic_store_explicit(&c->done,
		atomic_load_explicit(&c->done, memory_order_relaxed) + 1,
		memory_order_relaxed);
	if (atomic_load_explicit(&c->stop, memory_order_relaxed))
		return 0;
	return send_request(c, i, cc, msg);
}

static int stream_writable(struct net_client *c, unsigned i, const char *msg)
{
	ssize_t r = send(c->fds[i], msg, c->spec->size,
			 MSG_DONTWAIT | MSG_NOSIGNAL);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return r < 0 ? client_fail(c, errno, "send") : 0;
}

static int client_loop(struct net_client *c, int epfd, struct cconn *cc,
		       char *buf, const char *msg)
{
	struct epoll_event ev[CLIENT_EVENTS];
	bool echo = c->spec->mode == NET_ECHO;
	int n, k;

	/* stop is only a request to finish: relaxed, nothing hangs on it */
	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		n = epoll_wait(epfd, ev, CLIENT_EVENTS, CLIENT_TICK_MS);
		if (n < 0 && errno != EINTR)
			return client_fail(c, errno, "epoll_wait");
		for (k = 0; k < n; k++) {
			unsigned i = ev[k].data.u32;
			int r = echo ? echo_readable(c, i, cc, buf, msg) :
				       stream_writable(c, i, msg);

			if (r)
				return r;
		}
	}
	return 0;
}

void *net_client_main(void *arg)
{
	struct net_client *c = arg;
	const struct net_spec *s = c->spec;
	struct epoll_event ev = { 0 };
	struct cconn *cc = calloc(s->conns, sizeof(*cc));
	char *buf = malloc(s->size), *msg = malloc(s->size);
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	unsigned i;

	if (!cc || !buf || !msg || epfd < 0) {
		client_fail(c, epfd < 0 ? errno : ENOMEM, "setup");
		goto out;
	}
	memset(msg, 'x', s->size);
	ev.events = s->mode == NET_ECHO ? EPOLLIN : EPOLLOUT;
	for (i = 0; i < s->conns; i++) {
		ev.data.u32 = i;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fds[i], &ev)) {
			client_fail(c, errno, "epoll_ctl");
			goto out;
		}
		if (s->mode == NET_ECHO && send_request(c, i, cc, msg))
			goto out;
	}
	client_loop(c, epfd, cc, buf, msg);
out:
	/* the server sees every connection end and returns */
	for (i = 0; i < s->conns; i++)
		close(c->fds[i]);
	if (epfd >= 0)
		close(epfd);
	free(cc);
	free(buf);
	free(msg);
	return NULL;
}
