/* SPDX-License-Identifier: MIT */
/*
 * net_epoll.c - the epoll server of `anyring-bench net`, written the
 * usual way: nonblocking sockets in a level-triggered epoll set; on
 * readiness, read until EAGAIN and write each read back (echo) or drop
 * it (stream). A write that would block keeps the rest, waits for
 * EPOLLOUT and stops reading that connection until it is flushed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include "net.h"

#define EP_EVENTS	512

struct econn {
	char *buf;
	unsigned off, len;	/* echo: bytes still to write back */
	bool open;
};

struct eserver {
	struct net_server *s;
	int epfd;
	unsigned live;
	unsigned bufsize;
	struct econn *c;
};

static int ep_fail(struct net_server *s, int err, const char *what)
{
	s->err = -err;
	snprintf(s->errmsg, sizeof(s->errmsg), "epoll server: %s: %s", what,
		 strerror(err));
	return -err;
}

static void conn_close(struct eserver *e, unsigned i)
{
	epoll_ctl(e->epfd, EPOLL_CTL_DEL, e->s->fds[i], NULL);
	e->c[i].open = false;
	e->live--;
}

static int set_events(struct eserver *e, unsigned i, unsigned events)
{
	struct epoll_event ev = { .events = events, .data.u32 = i };

	if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, e->s->fds[i], &ev))
		return ep_fail(e->s, errno, "epoll_ctl");
	return 0;
}

/* Write back what is pending: 1 when it would block, 0 done, <0 closed */
static int flush(struct eserver *e, unsigned i)
{
	struct econn *c = &e->c[i];

	while (c->off < c->len) {
		ssize_t r = send(e->s->fds[i], c->buf + c->off, c->len - c->off,
				 MSG_NOSIGNAL);

		if (r < 0 && errno == EAGAIN)
			return 1;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			conn_close(e, i);
			return -1;
		}
		c->off += (unsigned)r;
	}
	c->off = c->len = 0;
	return 0;
}

static int on_readable(struct eserver *e, unsigned i)
{
	struct econn *c = &e->c[i];
	bool echo = e->s->spec->mode == NET_ECHO;

	for (;;) {
		ssize_t r = read(e->s->fds[i], c->buf, e->bufsize);
		int f;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r <= 0) {
			conn_close(e, i);
			return 0;
		}
		if (!echo) {
			atomic_fetch_add_explicit(&e->s->bytes, (uint64_t)r,
						  memory_order_relaxed);
			continue;
		}
		c->off = 0;
		c->len = (unsigned)r;
		f = flush(e, i);
		if (f < 0)
			return 0;
		if (f > 0)	/* the rest waits for EPOLLOUT */
			return set_events(e, i, EPOLLOUT);
	}
}

static int on_writable(struct eserver *e, unsigned i)
{
	int f = flush(e, i);

	if (f)
		return 0;
	return set_events(e, i, EPOLLIN);
}

static int ep_setup(struct eserver *e)
{
	struct net_server *s = e->s;
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned i;

	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0)
		return ep_fail(s, errno, "epoll_create1");
	for (i = 0; i < s->spec->conns; i++) {
		int fl = fcntl(s->fds[i], F_GETFL);

		e->c[i].buf = malloc(e->bufsize);
		if (!e->c[i].buf)
			return ep_fail(s, ENOMEM, "buffers");
		if (fl < 0 || fcntl(s->fds[i], F_SETFL, fl | O_NONBLOCK))
			return ep_fail(s, errno, "O_NONBLOCK");
		ev.data.u32 = i;
		if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, s->fds[i], &ev))
			return ep_fail(s, errno, "epoll_ctl");
		e->c[i].open = true;
		e->live++;
	}
	return 0;
}

static int ep_loop(struct eserver *e)
{
	struct epoll_event ev[EP_EVENTS];
	int n, k, ret;

	while (e->live) {
		n = epoll_wait(e->epfd, ev, EP_EVENTS, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ep_fail(e->s, errno, "epoll_wait");
		for (k = 0; k < n; k++) {
			unsigned i = ev[k].data.u32;

			if (!e->c[i].open)
				continue;
			ret = e->c[i].len ? on_writable(e, i) : on_readable(e, i);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int net_epoll_serve(struct net_server *s)
{
	struct eserver e = { .s = s, .epfd = -1 };
	unsigned i;
	int ret;

	e.bufsize = s->spec->mode == NET_ECHO ? s->spec->size : NET_STREAM_BUF;
	e.c = calloc(s->spec->conns, sizeof(*e.c));
	if (!e.c)
		return ep_fail(s, ENOMEM, "connections");
	ret = ep_setup(&e);
	if (!ret)
		ret = ep_loop(&e);
	for (i = 0; i < s->spec->conns; i++)
		free(e.c[i].buf);
	free(e.c);
	if (e.epfd >= 0)
		close(e.epfd);
	return ret;
}
