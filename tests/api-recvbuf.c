/* SPDX-License-Identifier: MIT */
/*
 * api-recvbuf.c - an echo server on multishot RECV with a registered
 * buffer ring, on the test engine: a server thread with its own ring
 * arms one multishot RECV per connection (unix socketpairs); each CQE's
 * buffer is sent back with a MSG_WAITALL SEND and returned to the ring
 * when the SEND completes. The ring has fewer buffers than there are
 * connections, so receives end with -ENOBUFS: such a connection is
 * armed again once a buffer comes back, as servers do. A multishot that
 * ends otherwise (a full CQ) is armed again at once. The client (main
 * thread) writes a message of varying size on every connection, then
 * reads each echo back with plain system calls, byte for byte.
 *
 * t_mshot_fair: two multishot RECVs whose sockets both hold data take
 * turns, as the kernel's (MULTISHOT_MAX_RETRY, IOU_REQUEUE).
 *
 * "api-recvbuf bench MB [BSZ]" instead streams MB megabytes over a
 * socketpair from a writer thread and receives them on the ring:
 * oneshot RECV (QD1, one BSZ buffer, 16 KiB by default) and multishot
 * RECV from a ring of 64 BSZ buffers, in turn, three times each, and
 * prints MB/s for each run; it asserts nothing about time.
 */
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include "test.h"

#define T_CONNS		16
#define T_ROUNDS	50
#define T_NBUF		8		/* ring entries: fewer than connections */
#define T_BSZ		1024
#define T_BGID		7
#define T_MAXMSG	3000

enum { UD_RECV = 1, UD_SEND = 2 };
#define UD(kind, conn, bid)	((__u64)(kind) << 48 | (__u64)(conn) << 16 | (bid))

struct t_srv {
	int fds[T_CONNS];		/* the server's ends */
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	char *bufs;
	bool starved[T_CONNS];		/* ended with -ENOBUFS: arm on a buffer's return */
	unsigned open;
	unsigned nobufs;		/* receives ended by -ENOBUFS */
	unsigned in_ring;		/* buffers returned and not seen in a CQE since */
};

/* a buffer ring of n entries for group bgid (liburing 2.3 has no helper) */
static struct io_uring_buf_ring *t_buf_ring(struct io_uring *ring,
					    unsigned n, int bgid)
{
	struct io_uring_buf_reg reg;
	void *p = NULL;

	CHECK(!posix_memalign(&p, 4096, n * sizeof(struct io_uring_buf)));
	io_uring_buf_ring_init(p);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)p;
	reg.ring_entries = n;
	reg.bgid = (__u16)bgid;
	CHECK_EQ(io_uring_register_buf_ring(ring, &reg, 0), 0);
	return p;
}

static void t_buf_ring_free(struct io_uring *ring, struct io_uring_buf_ring *br,
			    int bgid)
{
	CHECK_EQ(io_uring_unregister_buf_ring(ring, bgid), 0);
	free(br);
}

static void t_arm(struct t_srv *s, unsigned conn)
{
	struct io_uring_sqe *sqe = t_sqe(&s->ring);

	io_uring_prep_recv(sqe, s->fds[conn], NULL, 0, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = T_BGID;
	sqe->user_data = UD(UD_RECV, conn, 0);
}

static void t_buf_return(struct t_srv *s, unsigned bid)
{
	io_uring_buf_ring_add(s->br, s->bufs + (size_t)bid * T_BSZ, T_BSZ,
			      (unsigned short)bid,
			      io_uring_buf_ring_mask(T_NBUF), 0);
	io_uring_buf_ring_advance(s->br, 1);
	s->in_ring++;
	for (unsigned i = 0; i < T_CONNS; i++) {
		if (s->starved[i]) {
			s->starved[i] = false;
			t_arm(s, i);
			return;
		}
	}
}

static void t_srv_recv(struct t_srv *s, const struct io_uring_cqe *cqe,
		       unsigned conn)
{
	struct io_uring_sqe *sqe;
	unsigned bid;

	if (cqe->res > 0) {
		CHECK(cqe->flags & IORING_CQE_F_BUFFER);
		bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		CHECK(bid < T_NBUF);
		s->in_ring--;
		sqe = t_sqe(&s->ring);
		io_uring_prep_send(sqe, s->fds[conn], s->bufs + (size_t)bid * T_BSZ,
				   (size_t)cqe->res, MSG_WAITALL);
		sqe->user_data = UD(UD_SEND, conn, bid);
		if (!(cqe->flags & IORING_CQE_F_MORE))
			t_arm(s, conn);		/* ended by a full CQ */
		return;
	}
	CHECK(!(cqe->flags & IORING_CQE_F_MORE));
	if (cqe->res == -ENOBUFS) {
		s->nobufs++;
		/*
		 * A buffer may have come back after the ring ran dry and
		 * before this CQE was seen: then arm it again now (if others
		 * took them meanwhile, their CQEs are on the way)
		 */
		if (s->in_ring)
			t_arm(s, conn);
		else
			s->starved[conn] = true;
		return;
	}
	CHECK_EQ(cqe->res, 0);		/* EOF: the client is done */
	s->open--;
}

static void *t_srv_main(void *arg)
{
	struct t_srv *s = arg;
	struct io_uring_cqe *cqe;
	unsigned kind, conn;

	for (unsigned i = 0; i < T_CONNS; i++)
		t_arm(s, i);
	while (s->open) {
		CHECK(io_uring_submit_and_wait(&s->ring, 1) >= 0);
		while (io_uring_peek_cqe(&s->ring, &cqe) == 0) {
			kind = (unsigned)(cqe->user_data >> 48);
			conn = (unsigned)(cqe->user_data >> 16) & 0xffffffffU;
			if (kind == UD_RECV) {
				t_srv_recv(s, cqe, conn);
			} else {
				CHECK(cqe->res > 0);
				t_buf_return(s, (unsigned)(cqe->user_data & 0xffff));
			}
			io_uring_cqe_seen(&s->ring, cqe);
		}
	}
	return NULL;
}

static void t_srv_setup(struct t_srv *s, int *client)
{
	int sv[2];

	t_ring(&s->ring, 16, NULL);
	s->br = t_buf_ring(&s->ring, T_NBUF, T_BGID);
	s->bufs = malloc((size_t)T_NBUF * T_BSZ);
	CHECK(s->bufs != NULL);
	for (unsigned i = 0; i < T_NBUF; i++)
		io_uring_buf_ring_add(s->br, s->bufs + (size_t)i * T_BSZ, T_BSZ,
				      (unsigned short)i,
				      io_uring_buf_ring_mask(T_NBUF), (int)i);
	io_uring_buf_ring_advance(s->br, T_NBUF);
	for (unsigned i = 0; i < T_CONNS; i++) {
		CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
		s->fds[i] = sv[0];
		client[i] = sv[1];
		s->starved[i] = false;
	}
	s->open = T_CONNS;
	s->nobufs = 0;
	s->in_ring = T_NBUF;
}

static void t_fill(char *p, size_t len, unsigned conn, unsigned round)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (char)(conn * 31 + round * 7 + i * 3);
}

static void t_read_all(int fd, char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		CHECK(n > 0);
		p += n;
		len -= (size_t)n;
	}
}

static void t_echo(void)
{
	static char out[T_MAXMSG], in[T_MAXMSG];
	int client[T_CONNS];
	struct t_srv s;
	pthread_t th;
	size_t len;

	t_srv_setup(&s, client);
	CHECK(!pthread_create(&th, NULL, t_srv_main, &s));
	/* each round writes to every connection first: more data than buffers */
	for (unsigned r = 0; r < T_ROUNDS; r++) {
		for (unsigned i = 0; i < T_CONNS; i++) {
			len = 1 + (r * 613 + i * 97) % T_MAXMSG;
			t_fill(out, len, i, r);
			CHECK_EQ(write(client[i], out, len), (ssize_t)len);
		}
		for (unsigned i = 0; i < T_CONNS; i++) {
			len = 1 + (r * 613 + i * 97) % T_MAXMSG;
			t_fill(out, len, i, r);
			memset(in, 0, len);
			t_read_all(client[i], in, len);
			CHECK(!memcmp(in, out, len));
		}
	}
	for (unsigned i = 0; i < T_CONNS; i++)
		CHECK(!shutdown(client[i], SHUT_WR));
	CHECK(!pthread_join(th, NULL));
	for (unsigned i = 0; i < T_CONNS; i++) {
		close(client[i]);
		close(s.fds[i]);
	}
	t_buf_ring_free(&s.ring, s.br, T_BGID);
	io_uring_queue_exit(&s.ring);
	free(s.bufs);
	printf("recvbuf echo: %u connections x %u rounds, %u buffers of %u, "
	       "%u times out of buffers (%s)\n", T_CONNS, T_ROUNDS, T_NBUF,
	       T_BSZ, s.nobufs, t_engine());
}

/* ---- bench: streaming receive, oneshot vs multishot ---- */

#define B_BSZ_MAX	16384
#define B_NBUF		64
#define B_CHUNK		65536

static unsigned B_BSZ = B_BSZ_MAX;	/* "bench MB [BSZ]" */

struct t_writer {
	int fd;
	size_t total;
};

static void *t_writer_main(void *arg)
{
	struct t_writer *w = arg;
	static char chunk[B_CHUNK];
	size_t left = w->total, n;
	ssize_t r;

	memset(chunk, 'x', sizeof(chunk));
	while (left) {
		n = left < sizeof(chunk) ? left : sizeof(chunk);
		r = write(w->fd, chunk, n);
		CHECK(r > 0);
		left -= (size_t)r;
	}
	CHECK(!shutdown(w->fd, SHUT_WR));
	return NULL;
}

static size_t t_bench_oneshot(struct io_uring *ring, int fd)
{
	static char buf[B_BSZ_MAX];
	struct io_uring_cqe *cqe;
	size_t got = 0;
	int res;

	for (;;) {
		io_uring_prep_recv(t_sqe(ring), fd, buf, B_BSZ, 0);
		CHECK(io_uring_submit_and_wait(ring, 1) >= 0);
		CHECK_EQ(io_uring_peek_cqe(ring, &cqe), 0);
		res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		CHECK(res >= 0);
		if (!res)
			return got;
		got += (size_t)res;
	}
}

static size_t t_bench_multishot(struct io_uring *ring, int fd,
				struct io_uring_buf_ring *br, char *bufs)
{
	struct io_uring_cqe *cqe;
	size_t got = 0;
	bool armed = false;
	unsigned bid;
	int res;

	for (;;) {
		if (!armed) {
			struct io_uring_sqe *sqe = t_sqe(ring);

			io_uring_prep_recv(sqe, fd, NULL, 0, 0);
			sqe->ioprio |= IORING_RECV_MULTISHOT;
			sqe->flags |= IOSQE_BUFFER_SELECT;
			sqe->buf_group = 1;
			armed = true;
		}
		CHECK(io_uring_submit_and_wait(ring, 1) >= 0);
		while (io_uring_peek_cqe(ring, &cqe) == 0) {
			res = cqe->res;
			if (res > 0) {
				bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
				got += (size_t)res;
				io_uring_buf_ring_add(br, bufs + (size_t)bid * B_BSZ,
						      B_BSZ, (unsigned short)bid,
						      io_uring_buf_ring_mask(B_NBUF), 0);
				io_uring_buf_ring_advance(br, 1);
			}
			if (!(cqe->flags & IORING_CQE_F_MORE))
				armed = false;
			io_uring_cqe_seen(ring, cqe);
			if (res == 0)
				return got;
			CHECK(res > 0 || res == -ENOBUFS);
		}
	}
}

static void t_bench(unsigned mb)
{
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	struct t_writer w;
	pthread_t th;
	char *bufs;
	int sv[2];
	long long t0, t1;
	size_t got;

	t_ring(&ring, 64, NULL);
	br = t_buf_ring(&ring, B_NBUF, 1);
	bufs = malloc((size_t)B_NBUF * B_BSZ_MAX);
	CHECK(bufs != NULL);
	for (unsigned i = 0; i < B_NBUF; i++)
		io_uring_buf_ring_add(br, bufs + (size_t)i * B_BSZ, B_BSZ,
				      (unsigned short)i,
				      io_uring_buf_ring_mask(B_NBUF), (int)i);
	io_uring_buf_ring_advance(br, B_NBUF);
	for (unsigned run = 0; run < 6; run++) {
		bool mshot = run & 1;

		CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
		w.fd = sv[1];
		w.total = (size_t)mb << 20;
		t0 = t_now_ns();
		CHECK(!pthread_create(&th, NULL, t_writer_main, &w));
		got = mshot ? t_bench_multishot(&ring, sv[0], br, bufs) :
			      t_bench_oneshot(&ring, sv[0]);
		t1 = t_now_ns();
		/*
		 * All of it before the join: a receive that ended early would
		 * leave the writer blocked on a full socket, and the join
		 * would hang where the check can say what went wrong.
		 */
		CHECK_EQ(got, w.total);
		CHECK(!pthread_join(th, NULL));
		printf("stream %u MB, %u B buffers (%s) %s RECV: %.0f MB/s\n", mb,
		       B_BSZ, t_engine(), mshot ? "multishot ring" : "oneshot",
		       mb * 1e9 / (double)(t1 - t0));
		close(sv[0]);
		close(sv[1]);
	}
	t_buf_ring_free(&ring, br, 1);
	io_uring_queue_exit(&ring);
	free(bufs);
}

/*
 * Fairness between multishot receives: two connections with 128
 * buffers' worth of data each, both multishot RECVs (16-byte buffers)
 * in one submit. A multishot makes 33 receives in a row (the first, then
 * MULTISHOT_MAX_RETRY more) and then goes behind the other ready one, on
 * both engines: one connection's CQEs never come more than 33 in a row
 * while the other still has data.
 */
#define F_BSZ		16
#define F_PER		128		/* buffers of data per connection */
#define F_RUN		33
#define F_BGID		9

static void t_mshot_fair(void)
{
	struct io_uring_params p;
	struct io_uring_buf_ring *br;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	static char data[F_PER * F_BSZ];
	unsigned got[2] = { 0, 0 }, run = 0, max_run = 0, cur = 2;
	int sv[2][2];
	char *bufs;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 1024;
	t_ring(&ring, 8, &p);
	br = t_buf_ring(&ring, 2 * F_PER, F_BGID);
	bufs = malloc(2 * F_PER * F_BSZ);
	CHECK(bufs != NULL);
	for (unsigned i = 0; i < 2 * F_PER; i++)
		io_uring_buf_ring_add(br, bufs + i * F_BSZ, F_BSZ, (unsigned short)i,
				      io_uring_buf_ring_mask(2 * F_PER), (int)i);
	io_uring_buf_ring_advance(br, 2 * F_PER);
	memset(data, 'f', sizeof(data));
	for (unsigned c = 0; c < 2; c++) {
		CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv[c]));
		CHECK_EQ(write(sv[c][0], data, sizeof(data)), (ssize_t)sizeof(data));
	}
	for (unsigned c = 0; c < 2; c++) {
		struct io_uring_sqe *sqe = t_sqe(&ring);

		io_uring_prep_recv(sqe, sv[c][1], NULL, 0, 0);
		sqe->ioprio |= IORING_RECV_MULTISHOT;
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = F_BGID;
		sqe->user_data = c;
	}
	CHECK_EQ(io_uring_submit(&ring), 2);
	while (got[0] + got[1] < 2 * F_PER) {
		unsigned c;

		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		c = (unsigned)cqe->user_data;
		CHECK(c < 2);
		CHECK_EQ(cqe->res, F_BSZ);
		CHECK(cqe->flags & IORING_CQE_F_MORE);
		run = c == cur ? run + 1 : 1;
		cur = c;
		got[c]++;
		/* a turn counts while the other one still had data */
		if (got[!c] < F_PER && run > max_run)
			max_run = run;
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("mshot_fair: %u CQEs, at most %u in a row\n", got[0] + got[1],
	       max_run);
	CHECK(max_run <= F_RUN);
	io_uring_queue_exit(&ring);
	for (unsigned c = 0; c < 2; c++) {
		close(sv[c][0]);
		close(sv[c][1]);
	}
	free(bufs);
	free(br);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "bench")) {
		if (argc > 3)
			B_BSZ = (unsigned)atoi(argv[3]);
		CHECK(B_BSZ > 0 && B_BSZ <= B_BSZ_MAX);
		t_bench((unsigned)atoi(argv[2]));
		return 0;
	}
	t_echo();
	t_mshot_fair();
	return 0;
}
