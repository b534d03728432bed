/* SPDX-License-Identifier: MIT */
/*
 * net-peer.c - the other end of Debian's network examples, for
 * tests/examples-net.sh (plain sockets, no io_uring):
 *
 *   net-peer udp-echo PORT N
 *       sends N datagrams (sizes 1..1000, a pattern per datagram) one at
 *       a time to 127.0.0.1:PORT and checks that each comes back intact
 *       (io_uring-udp is an echo server); prints the sizes' sum
 *   net-peer tcp-sink PORTFILE LEN
 *       listens on 127.0.0.1, writes its port to PORTFILE, takes one
 *       connection and reads it to EOF: the stream must be whole sends of
 *       send-zerocopy's payload (LEN bytes, 'a' + i % 26); prints the
 *       number of payloads
 *   net-peer udp-sink PORTFILE LEN
 *       binds 127.0.0.1, writes its port to PORTFILE and receives
 *       datagrams until none came for a second (after the first): each
 *       must be one payload of LEN bytes; prints "ok" and how many came
 *       (loopback may drop some when the sink falls behind)
 *
 * Exits 1 with a message on any difference, 2 on a setup failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PEER_WAIT_MS	10000	/* the longest wait for an echo or a first datagram */

static void die(int code, const char *what)
{
	fprintf(stderr, "net-peer: %s: %s\n", what, errno ? strerror(errno) : "");
	exit(code);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* a bound socket of type, its port written to portfile */
static int bound(int type, const char *portfile)
{
	struct sockaddr_in a = loopback(0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, type, 0);
	FILE *f;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		die(2, "bind");
	if (type == SOCK_STREAM && listen(fd, 1))
		die(2, "listen");
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f))
		die(2, portfile);
	return fd;
}

static int wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms);
}

static int udp_echo(int port, int n)
{
	struct sockaddr_in to = loopback(port);
	unsigned char out[1000], in[2048];
	long sum = 0;
	int fd, i, j;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)))
		die(2, "udp socket");
	for (i = 0; i < n; i++) {
		size_t size = 1 + (size_t)(i * 37) % sizeof(out);
		ssize_t got;

		for (j = 0; j < (int)size; j++)
			out[j] = (unsigned char)(i + j * 7);
		if (send(fd, out, size, 0) != (ssize_t)size)
			die(1, "send");
		if (wait_in(fd, PEER_WAIT_MS) != 1) {
			fprintf(stderr, "net-peer: no echo of datagram %d\n", i);
			return 1;
		}
		got = recv(fd, in, sizeof(in), 0);
		if (got != (ssize_t)size || memcmp(in, out, size)) {
			fprintf(stderr, "net-peer: datagram %d (%zu bytes) came back as %zd bytes%s\n",
				i, size, got, got == (ssize_t)size ? ", different" : "");
			return 1;
		}
		sum += (long)size;
	}
	printf("udp echo: %d datagrams, %ld bytes, each echoed intact\n", n, sum);
	return 0;
}

/* does buf[0..n) continue the payload pattern from offset off? */
static int pattern_ok(const unsigned char *buf, size_t n, size_t off, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != (unsigned char)('a' + (off + i) % len % 26))
			return 0;
	return 1;
}

static int tcp_sink(const char *portfile, size_t len)
{
	static unsigned char buf[1 << 16];
	unsigned long long total = 0;
	int lfd = bound(SOCK_STREAM, portfile), fd;
	ssize_t got;

	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die(2, "accept");
	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		if (!pattern_ok(buf, (size_t)got, (size_t)(total % len), len)) {
			fprintf(stderr, "net-peer: stream differs near byte %llu\n", total);
			return 1;
		}
		total += (unsigned long long)got;
	}
	if (got < 0 && errno != ECONNRESET)
		die(1, "read");
	if (!total || total % len) {
		fprintf(stderr, "net-peer: %llu bytes, not whole payloads of %zu\n",
			total, len);
		return 1;
	}
	printf("tcp: %llu payloads\n", total / len);
	return 0;
}

static int udp_sink(const char *portfile, size_t len)
{
	static unsigned char buf[1 << 16];
	int fd = bound(SOCK_DGRAM, portfile);
	unsigned long n = 0;
	ssize_t got;

	while (wait_in(fd, n ? 1000 : PEER_WAIT_MS) == 1) {
		got = recv(fd, buf, sizeof(buf), 0);
		if (got != (ssize_t)len || !pattern_ok(buf, len, 0, len)) {
			fprintf(stderr, "net-peer: datagram %lu: %zd bytes%s\n", n,
				got, got == (ssize_t)len ? ", different" : "");
			return 1;
		}
		n++;
	}
	if (!n) {
		fprintf(stderr, "net-peer: no datagram came\n");
		return 1;
	}
	printf("udp: ok, %lu datagrams\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "udp-echo"))
		return udp_echo(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "tcp-sink"))
		return tcp_sink(argv[2], (size_t)atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "udp-sink"))
		return udp_sink(argv[2], (size_t)atol(argv[3]));
	fprintf(stderr, "usage: net-peer udp-echo PORT N | tcp-sink PORTFILE LEN | udp-sink PORTFILE LEN\n");
	return 2;
}
