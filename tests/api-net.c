/* SPDX-License-Identifier: MIT */
/*
 * api-net.c - a small echo server over loopback TCP, on the test engine:
 * a server thread with its own ring (multishot ACCEPT, then RECV and a
 * MSG_WAITALL SEND per connection, each re-armed from its CQE) and a
 * client ring in the main thread (CONNECT for every connection at once,
 * then rounds of SEND/SENDMSG linked to a MSG_WAITALL RECV/RECVMSG on
 * every connection, each reply checked byte for byte, then SHUTDOWN).
 * The server ring is torn down with its multishot ACCEPT still armed.
 *
 * "api-net bench N" instead times N round trips of 64 bytes on one
 * connection at QD1 (a SEND linked to a RECV, submitted and waited for
 * together) and prints ns per round trip; it asserts nothing about time.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include "test.h"

#define T_CONNS		64
#define T_ROUNDS	40
#define T_MSG		64
#define T_MAXFD		4096
#define T_BUFSZ		4096

enum { UD_ACCEPT = 1, UD_RECV = 2, UD_SEND = 3 };
#define UD(kind, fd)	((__u64)(kind) << 32 | (unsigned)(fd))

struct t_server {
	int lfd;
	struct sockaddr_in addr;
	unsigned expect;	/* connections to serve, then stop */
	char *bufs;		/* T_BUFSZ per fd */
};

static void t_srv_recv(struct io_uring *ring, struct t_server *s, int fd)
{
	struct io_uring_sqe *sqe = t_sqe(ring);

	io_uring_prep_recv(sqe, fd, s->bufs + (size_t)fd * T_BUFSZ, T_BUFSZ, 0);
	sqe->user_data = UD(UD_RECV, fd);
}

static void t_srv_accept(struct io_uring *ring, struct t_server *s)
{
	struct io_uring_sqe *sqe = t_sqe(ring);

	io_uring_prep_multishot_accept(sqe, s->lfd, NULL, NULL, SOCK_CLOEXEC);
	sqe->user_data = UD(UD_ACCEPT, 0);
}

/* one CQE of the server: what it asks for next */
static bool t_srv_cqe(struct io_uring *ring, struct t_server *s,
		      const struct io_uring_cqe *cqe, unsigned *closed)
{
	unsigned kind = (unsigned)(cqe->user_data >> 32);
	int fd = (int)(cqe->user_data & 0xffffffffU);
	struct io_uring_sqe *sqe;

	switch (kind) {
	case UD_ACCEPT:
		CHECK(cqe->res >= 0 && cqe->res < T_MAXFD);
		t_srv_recv(ring, s, cqe->res);
		if (!(cqe->flags & IORING_CQE_F_MORE))
			t_srv_accept(ring, s);
		return false;
	case UD_RECV:
		if (cqe->res <= 0) {
			CHECK_EQ(cqe->res, 0);
			close(fd);
			return ++*closed == s->expect;
		}
		sqe = t_sqe(ring);
		io_uring_prep_send(sqe, fd, s->bufs + (size_t)fd * T_BUFSZ,
				   (size_t)cqe->res, MSG_WAITALL);
		sqe->user_data = UD(UD_SEND, fd);
		return false;
	default:
		CHECK(cqe->res > 0);
		t_srv_recv(ring, s, fd);
		return false;
	}
}

static void *t_server_main(void *arg)
{
	struct t_server *s = arg;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned closed = 0;
	bool done = false;

	t_ring(&ring, 256, NULL);
	t_srv_accept(&ring, s);
	while (!done) {
		CHECK(io_uring_submit_and_wait(&ring, 1) >= 0);
		while (!done && io_uring_peek_cqe(&ring, &cqe) == 0) {
			done = t_srv_cqe(&ring, s, cqe, &closed);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	/* the multishot ACCEPT is still armed: the exit cancels it */
	io_uring_queue_exit(&ring);
	return NULL;
}

static void t_server_start(struct t_server *s, pthread_t *th, unsigned expect)
{
	socklen_t len = sizeof(s->addr);

	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(s->lfd >= 0);
	memset(&s->addr, 0, sizeof(s->addr));
	s->addr.sin_family = AF_INET;
	s->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(!bind(s->lfd, (struct sockaddr *)&s->addr, sizeof(s->addr)));
	CHECK(!listen(s->lfd, 128));
	CHECK(!getsockname(s->lfd, (struct sockaddr *)&s->addr, &len));
	s->expect = expect;
	s->bufs = calloc(T_MAXFD, T_BUFSZ);
	CHECK(s->bufs != NULL);
	CHECK(!pthread_create(th, NULL, t_server_main, s));
}

static void t_server_stop(struct t_server *s, pthread_t th)
{
	CHECK(!pthread_join(th, NULL));
	close(s->lfd);
	free(s->bufs);
}

/* wait for nr CQEs; each must have res want (or any >= 0 with want < -4095) */
static void t_client_reap(struct io_uring *ring, unsigned nr, int want)
{
	struct io_uring_cqe *cqe;

	while (nr--) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		if (cqe->res != want)
			fprintf(stderr, "ud %llu res %d want %d\n",
				(unsigned long long)cqe->user_data, cqe->res, want);
		CHECK_EQ(cqe->res, want);
		io_uring_cqe_seen(ring, cqe);
	}
}

static void t_connect_all(struct io_uring *ring, struct t_server *s, int *fds,
			  unsigned n)
{
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		CHECK(fds[i] >= 0);
		sqe = t_sqe(ring);
		io_uring_prep_connect(sqe, fds[i], (struct sockaddr *)&s->addr,
				      sizeof(s->addr));
		sqe->user_data = i;
	}
	CHECK(io_uring_submit(ring) >= 0);
	t_client_reap(ring, n, 0);
}

static void t_fill(char *p, unsigned conn, unsigned round)
{
	for (unsigned i = 0; i < T_MSG; i++)
		p[i] = (char)(conn * 31 + round * 7 + i);
}

/* one round: a message to every connection, each echo checked */
static void t_round(struct io_uring *ring, const int *fds, unsigned n,
		    unsigned round, char *out, char *in)
{
	static struct msghdr sm[T_CONNS], rm[T_CONNS];
	static struct iovec siov[T_CONNS], riov[T_CONNS];
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < n; i++) {
		char *o = out + i * T_MSG, *r = in + i * T_MSG;

		t_fill(o, i, round);
		memset(r, 0, T_MSG);
		sqe = t_sqe(ring);
		if (i & 1) {
			siov[i] = (struct iovec){ o, T_MSG };
			memset(&sm[i], 0, sizeof(sm[i]));
			sm[i].msg_iov = &siov[i];
			sm[i].msg_iovlen = 1;
			io_uring_prep_sendmsg(sqe, fds[i], &sm[i], 0);
		} else {
			io_uring_prep_send(sqe, fds[i], o, T_MSG, 0);
		}
		sqe->flags |= IOSQE_IO_LINK;
		sqe->user_data = i;
		sqe = t_sqe(ring);
		if (i & 1) {
			riov[i] = (struct iovec){ r, T_MSG };
			memset(&rm[i], 0, sizeof(rm[i]));
			rm[i].msg_iov = &riov[i];
			rm[i].msg_iovlen = 1;
			io_uring_prep_recvmsg(sqe, fds[i], &rm[i], MSG_WAITALL);
		} else {
			io_uring_prep_recv(sqe, fds[i], r, T_MSG, MSG_WAITALL);
		}
		sqe->user_data = i;
	}
	CHECK(io_uring_submit(ring) >= 0);
	t_client_reap(ring, 2 * n, T_MSG);
	for (i = 0; i < n; i++)
		CHECK(!memcmp(out + i * T_MSG, in + i * T_MSG, T_MSG));
}

static void t_shutdown_all(struct io_uring *ring, int *fds, unsigned n)
{
	struct io_uring_sqe *sqe;
	unsigned i;

	for (i = 0; i < n; i++) {
		sqe = t_sqe(ring);
		io_uring_prep_shutdown(sqe, fds[i], SHUT_WR);
		sqe->user_data = i;
	}
	CHECK(io_uring_submit(ring) >= 0);
	t_client_reap(ring, n, 0);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

static void t_echo(void)
{
	static char out[T_CONNS * T_MSG], in[T_CONNS * T_MSG];
	struct t_server s;
	struct io_uring ring;
	int fds[T_CONNS];
	pthread_t th;
	unsigned r;

	t_server_start(&s, &th, T_CONNS);
	t_ring(&ring, 256, NULL);
	t_connect_all(&ring, &s, fds, T_CONNS);
	for (r = 0; r < T_ROUNDS; r++)
		t_round(&ring, fds, T_CONNS, r, out, in);
	t_shutdown_all(&ring, fds, T_CONNS);
	io_uring_queue_exit(&ring);
	t_server_stop(&s, th);
	printf("echo: %u connections x %u rounds of %u bytes (%s)\n",
	       T_CONNS, T_ROUNDS, T_MSG, t_engine());
}

/* QD1 round trips of 64 bytes on one connection; prints ns per round trip */
static void t_bench(unsigned n)
{
	char out[T_MSG], in[T_MSG];
	struct io_uring_sqe *sqe;
	struct t_server s;
	struct io_uring ring;
	long long t0, t1;
	int fd, one = 1;
	pthread_t th;

	t_server_start(&s, &th, 1);
	t_ring(&ring, 8, NULL);
	t_connect_all(&ring, &s, &fd, 1);
	CHECK(!setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)));
	memset(out, 'x', sizeof(out));
	t0 = t_now_ns();
	for (unsigned i = 0; i < n; i++) {
		sqe = t_sqe(&ring);
		io_uring_prep_send(sqe, fd, out, T_MSG, 0);
		sqe->flags |= IOSQE_IO_LINK;
		sqe = t_sqe(&ring);
		io_uring_prep_recv(sqe, fd, in, T_MSG, MSG_WAITALL);
		CHECK(io_uring_submit_and_wait(&ring, 2) >= 0);
		t_client_reap(&ring, 2, T_MSG);
	}
	t1 = t_now_ns();
	t_shutdown_all(&ring, &fd, 1);
	io_uring_queue_exit(&ring);
	t_server_stop(&s, th);
	printf("echo 64 B QD1 (%s): %u round trips, %.0f ns each\n", t_engine(),
	       n, (double)(t1 - t0) / n);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "bench")) {
		t_bench((unsigned)atoi(argv[2]));
		return 0;
	}
	t_echo();
	return 0;
}
