/* SPDX-License-Identifier: MIT */
/*
 * uring-static.c - a liburing program linked with liburing.a: its
 * liburing calls are its own code, so only the system-call trap can
 * serve it where io_uring is refused. Reads a file it wrote, through a
 * ring, and checks the bytes. Run by tests/trap.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>

int main(void)
{
	static char buf[8192], data[8192];
	char path[] = "/tmp/uring-static-XXXXXX";
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int fd, ret, res;

	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	unlink(path);
	memset(data, 's', sizeof(data));
	if (write(fd, data, sizeof(data)) != (ssize_t)sizeof(data))
		return 1;
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret) {
		fprintf(stderr, "uring-static: queue_init: %s\n", strerror(-ret));
		return 1;
	}
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf, sizeof(buf), 0);
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret != 1 || io_uring_peek_cqe(&ring, &cqe)) {
		fprintf(stderr, "uring-static: submit: %d\n", ret);
		return 1;
	}
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	if (res != (int)sizeof(buf) || memcmp(buf, data, sizeof(buf))) {
		fprintf(stderr, "uring-static: read %d\n", res);
		return 1;
	}
	printf("uring-static: ok\n");
	return 0;
}
