/* SPDX-License-Identifier: MIT */
/*
 * net_uring.c - the io_uring server of `anyring-bench net`, on the
 * kernel or the user engine (anyring_queue_init_engine), one ring, one
 * thread, one io_uring_submit_and_wait(1) per loop turn:
 *   oneshot    a RECV per connection into its own buffer; echo answers
 *              with a SEND of what came, then arms the next RECV
 *   multishot  one multishot RECV per connection, armed once, picking
 *              buffers from a registered buffer ring (group 0); echo
 *              sends each buffer back (one SEND in flight per
 *              connection, the rest queued) and returns it to the ring
 *              when sent. A multishot that ends (no IORING_CQE_F_MORE,
 *              e.g. -ENOBUFS) is armed again; 0 or an error ends the
 *              connection.
 * The ring takes COOP_TASKRUN + SINGLE_ISSUER + DEFER_TASKRUN, each
 * dropped if refused (t/io_uring's order), and registers its fd.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <anyring.h>
#include "net.h"

#define OP_RECV		1ull
#define OP_SEND		2ull
#define UD(op, i)	(((op) << 32) | (i))
#define BGID		0
#define NO_BID		0xffffu

struct uconn {
	unsigned off, len;	/* oneshot: the SEND's progress */
	unsigned short qhead, qtail;	/* multishot echo: buffers to send */
	bool sending;
	bool open;
};

struct userver {
	struct net_server *s;
	struct io_uring ring;
	bool ring_ok;
	unsigned live;
	unsigned bufsize;
	char *bufs;		/* oneshot: one per conn; multishot: the ring's */
	struct uconn *c;
	/* multishot */
	struct io_uring_buf_ring *br;
	size_t br_bytes;
	unsigned nbufs;
	unsigned *blen;		/* bytes in buffer bid */
	unsigned short *bnext;	/* the per-connection queue's links */
	int br_added;		/* returned since the last advance */
};

static int u_fail(struct net_server *s, int err, const char *what)
{
	s->err = -err;
	snprintf(s->errmsg, sizeof(s->errmsg), "%s io_uring server: %s: %s",
		 s->spec->engine, what, strerror(err));
	return -err;
}

static unsigned pow2_at_least(unsigned n)
{
	unsigned p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static int ring_init(struct userver *u)
{
	unsigned sq = pow2_at_least(u->s->spec->conns + 16);
	unsigned flags[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_DEFER_TASKRUN, 0,
	};
	struct io_uring_params p;
	unsigned i;
	int ret = -EINVAL;

	if (sq > 4096)
		sq = 4096;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]) && ret == -EINVAL; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = flags[i] | IORING_SETUP_CQSIZE;
		p.cq_entries = 4 * sq;
		ret = anyring_queue_init_engine(u->s->spec->engine, sq,
						&u->ring, &p);
	}
	if (ret)
		return u_fail(u->s, -ret, "ring setup");
	u->ring_ok = true;
	io_uring_register_ring_fd(&u->ring);
	return 0;
}

/* An SQE, submitting what is queued when the SQ is full */
static struct io_uring_sqe *get_sqe(struct userver *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static char *buf_of(struct userver *u, unsigned idx)
{
	return u->bufs + (size_t)idx * u->bufsize;
}

static int arm_recv(struct userver *u, unsigned i)
{
	struct io_uring_sqe *sqe = get_sqe(u);

	if (!sqe)
		return u_fail(u->s, EBUSY, "no SQE");
	if (u->br) {
		io_uring_prep_recv_multishot(sqe, u->s->fds[i], NULL, 0, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = BGID;
	} else {
		io_uring_prep_recv(sqe, u->s->fds[i], buf_of(u, i), u->bufsize, 0);
	}
	io_uring_sqe_set_data64(sqe, UD(OP_RECV, i));
	return 0;
}

static int arm_send(struct userver *u, unsigned i, const char *buf,
		    unsigned len)
{
	struct io_uring_sqe *sqe = get_sqe(u);

	if (!sqe)
		return u_fail(u->s, EBUSY, "no SQE");
	io_uring_prep_send(sqe, u->s->fds[i], buf, len, MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, UD(OP_SEND, i));
	return 0;
}

static void conn_end(struct userver *u, unsigned i)
{
	if (u->c[i].open) {
		u->c[i].open = false;
		u->live--;
	}
}

/* multishot: buffer bid back to the ring (published at the next flush) */
static void buf_return(struct userver *u, unsigned short bid)
{
	io_uring_buf_ring_add(u->br, buf_of(u, bid), u->bufsize, bid,
			      io_uring_buf_ring_mask(u->nbufs), u->br_added++);
}

static void buf_flush(struct userver *u)
{
	if (u->br_added) {
		/* a release store of the tail (liburing's helper): pairs with
		 * the engine's acquire load when it picks a buffer */
		io_uring_buf_ring_advance(u->br, u->br_added);
		u->br_added = 0;
	}
}

static int ms_send_head(struct userver *u, unsigned i)
{
	struct uconn *c = &u->c[i];

	c->sending = c->qhead != NO_BID;
	if (!c->sending)
		return 0;
	c->off = 0;
	c->len = u->blen[c->qhead];
	return arm_send(u, i, buf_of(u, c->qhead), c->len);
}

static int ms_recv_cqe(struct userver *u, unsigned i, int res, unsigned flags)
{
	struct uconn *c = &u->c[i];

	if (res > 0) {
		unsigned short bid = flags >> IORING_CQE_BUFFER_SHIFT;

		if (u->s->spec->mode == NET_STREAM) {
			atomic_fetch_add_explicit(&u->s->bytes, (uint64_t)res,
						  memory_order_relaxed);
			buf_return(u, bid);
		} else {
			u->blen[bid] = (unsigned)res;
			u->bnext[bid] = NO_BID;
			if (c->qhead == NO_BID)
				c->qhead = bid;
			else
				u->bnext[c->qtail] = bid;
			c->qtail = bid;
			if (!c->sending && ms_send_head(u, i))
				return -1;
		}
	}
	if (flags & IORING_CQE_F_MORE)
		return 0;
	if (res > 0 || res == -ENOBUFS)
		return arm_recv(u, i);
	conn_end(u, i);
	return 0;
}

static int ms_send_cqe(struct userver *u, unsigned i, int res)
{
	struct uconn *c = &u->c[i];
	unsigned short bid = c->qhead;

	if (res < 0) {
		conn_end(u, i);
		return 0;
	}
	c->off += (unsigned)res;
	if (c->off < c->len)
		return arm_send(u, i, buf_of(u, bid) + c->off, c->len - c->off);
	c->qhead = u->bnext[bid];
	buf_return(u, bid);
	return ms_send_head(u, i);
}

static int os_recv_cqe(struct userver *u, unsigned i, int res)
{
	struct uconn *c = &u->c[i];

	if (res <= 0) {
		conn_end(u, i);
		return 0;
	}
	if (u->s->spec->mode == NET_STREAM) {
		atomic_fetch_add_explicit(&u->s->bytes, (uint64_t)res,
					  memory_order_relaxed);
		return arm_recv(u, i);
	}
	c->off = 0;
	c->len = (unsigned)res;
	return arm_send(u, i, buf_of(u, i), c->len);
}

static int os_send_cqe(struct userver *u, unsigned i, int res)
{
	struct uconn *c = &u->c[i];

	if (res < 0) {
		conn_end(u, i);
		return 0;
	}
	c->off += (unsigned)res;
	if (c->off < c->len)
		return arm_send(u, i, buf_of(u, i) + c->off, c->len - c->off);
	return arm_recv(u, i);
}

static int on_cqe(struct userver *u, const struct io_uring_cqe *cqe)
{
	unsigned i = (unsigned)cqe->user_data;
	bool recv = (cqe->user_data >> 32) == OP_RECV;

	if (!u->c[i].open)
		return 0;
	if (u->br)
		return recv ? ms_recv_cqe(u, i, cqe->res, cqe->flags) :
			      ms_send_cqe(u, i, cqe->res);
	return recv ? os_recv_cqe(u, i, cqe->res) : os_send_cqe(u, i, cqe->res);
}

static int bufs_init(struct userver *u)
{
	const struct net_spec *s = u->s->spec;
	struct io_uring_buf_reg reg = { 0 };
	unsigned n = s->conns, b;
	int ret;

	u->bufsize = s->mode == NET_ECHO ? s->size : NET_STREAM_BUF;
	if (s->recv == NET_MULTISHOT) {
		/* echo: a buffer per connection in flight, twice over */
		n = s->mode == NET_ECHO ? 2 * s->conns : 256;
		u->nbufs = pow2_at_least(n < 64 ? 64 : n);
		if (u->nbufs > 32768)
			u->nbufs = 32768;
		n = u->nbufs;
	}
	u->bufs = malloc((size_t)n * u->bufsize);
	if (!u->bufs)
		return u_fail(u->s, ENOMEM, "buffers");
	if (s->recv != NET_MULTISHOT)
		return 0;
	u->blen = calloc(u->nbufs, sizeof(*u->blen));
	u->bnext = calloc(u->nbufs, sizeof(*u->bnext));
	u->br_bytes = u->nbufs * sizeof(struct io_uring_buf);
	u->br = mmap(NULL, u->br_bytes, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->br == MAP_FAILED) {
		u->br = NULL;
		return u_fail(u->s, errno, "buffer ring");
	}
	if (!u->blen || !u->bnext)
		return u_fail(u->s, ENOMEM, "buffers");
	reg.ring_addr = (unsigned long)u->br;
	reg.ring_entries = u->nbufs;
	reg.bgid = BGID;
	ret = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (ret)
		return u_fail(u->s, -ret, "IORING_REGISTER_PBUF_RING");
	io_uring_buf_ring_init(u->br);
	for (b = 0; b < u->nbufs; b++)
		buf_return(u, (unsigned short)b);
	buf_flush(u);
	return 0;
}

static int u_loop(struct userver *u)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen, i;
	int ret;

	for (i = 0; i < u->s->spec->conns; i++) {
		u->c[i].open = true;
		u->c[i].qhead = u->c[i].qtail = NO_BID;
		u->live++;
		if (arm_recv(u, i))
			return -1;
	}
	while (u->live) {
		ret = io_uring_submit_and_wait(&u->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return u_fail(u->s, -ret, "io_uring_submit_and_wait");
		seen = 0;
		io_uring_for_each_cqe(&u->ring, head, cqe) {
			seen++;
			if (on_cqe(u, cqe))
				return -1;
		}
		io_uring_cq_advance(&u->ring, seen);
		if (u->br)
			buf_flush(u);
	}
	return 0;
}

int net_uring_serve(struct net_server *s)
{
	struct userver u = { .s = s };
	int ret;

	u.c = calloc(s->spec->conns, sizeof(*u.c));
	if (!u.c)
		return u_fail(s, ENOMEM, "connections");
	ret = ring_init(&u);
	if (!ret)
		ret = bufs_init(&u);
	if (!ret)
		ret = u_loop(&u);
	/* the exit cancels what is armed and drops the buffer ring */
	if (u.ring_ok)
		io_uring_queue_exit(&u.ring);
	if (u.br)
		munmap(u.br, u.br_bytes);
	free(u.blen);
	free(u.bnext);
	free(u.bufs);
	free(u.c);
	return ret ? (s->err ? s->err : -EIO) : 0;
}
