/* SPDX-License-Identifier: MIT */
/*
 * readpath.c - one marked io_uring_submit() and io_uring_wait_cqe() of a
 * 4 KiB page-cache READ on the user engine, for tracing the library's
 * path (readpath.sh: callgrind and gdb).
 *
 *   readpath MODE FILE [WARM]
 *
 * MODE (the SQEs of each submit):
 *   fast    one plain READ: the no-request fast path (submit.c
 *           ar_submit_fast_read())
 *   ioprio  one READ with ioprio IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4):
 *           not plain (ar_read_sqe_plain()), so the ordinary request
 *           path; served inline from the page cache the same way
 *   bufidx  one READ with buf_index 1 (ignored by a non-fixed READ
 *           without IOSQE_BUFFER_SELECT): the request path too
 *   two     two plain READs (the fast read is only for a sole SQE)
 *
 * FILE: a regular file of at least 64 KiB, already in the page cache
 * (readpath.sh writes it). WARM (default 16) submits of the same kind
 * come first, then the marked one: mark_submit() and mark_wait() are
 * what the tracers follow.
 *
 * The ring is set up with params (anyring_queue_init_engine() answers
 * -EFAULT for NULL).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <anyring.h>

#define BS	4096

static char buf[2][BS] __attribute__((aligned(4096)));
/* global: the tracer watches ring.cq.ktail to see when the CQE is posted */
struct io_uring ring;

/* the tracers' marks: out of line, never tail-called or merged */
__attribute__((noinline)) int mark_submit(struct io_uring *ring)
{
	int ret = io_uring_submit(ring);

	__asm__ __volatile__("" ::: "memory");
	return ret;
}

__attribute__((noinline)) int mark_wait(struct io_uring *ring,
					struct io_uring_cqe **cqe)
{
	int ret = io_uring_wait_cqe(ring, cqe);

	__asm__ __volatile__("" ::: "memory");
	return ret;
}

static void prep(struct io_uring *ring, const char *mode, int fd, int i)
{
	int n = strcmp(mode, "two") ? 1 : 2;

	for (int k = 0; k < n; k++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		unsigned off = (unsigned)((i * n + k) % 16) * BS;

		if (!sqe) {
			fprintf(stderr, "readpath: no SQE\n");
			exit(1);
		}
		io_uring_prep_read(sqe, fd, buf[k], BS, off);
		sqe->user_data = (__u64)(i * n + k) + 1;
		if (!strcmp(mode, "ioprio"))
			sqe->ioprio = (2 << 13) | 4;	/* BE, level 4 */
		else if (!strcmp(mode, "bufidx"))
			sqe->buf_index = 1;
	}
}

/* reap what one submit gave: each READ's CQE must be the whole block */
static void reap(struct io_uring *ring, const char *mode, int marked)
{
	int n = strcmp(mode, "two") ? 1 : 2;

	for (int k = 0; k < n; k++) {
		struct io_uring_cqe *cqe;
		int ret = marked && !k ? mark_wait(ring, &cqe) :
					 io_uring_wait_cqe(ring, &cqe);

		if (ret || cqe->res != BS) {
			fprintf(stderr, "readpath: wait %d res %d\n", ret,
				ret ? 0 : cqe->res);
			exit(1);
		}
		io_uring_cqe_seen(ring, cqe);
	}
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	const char *mode;
	int fd, warm, ret, i;

	if (argc < 3) {
		fprintf(stderr, "usage: readpath fast|ioprio|bufidx|two FILE [WARM]\n");
		return 2;
	}
	mode = argv[1];
	if (strcmp(mode, "fast") && strcmp(mode, "ioprio") &&
	    strcmp(mode, "bufidx") && strcmp(mode, "two")) {
		fprintf(stderr, "readpath: unknown mode %s\n", mode);
		return 2;
	}
	warm = argc > 3 ? atoi(argv[3]) : 16;
	fd = open(argv[2], O_RDONLY);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine("user", 64, &ring, &p);
	if (ret) {
		fprintf(stderr, "readpath: init: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < warm; i++) {
		prep(&ring, mode, fd, i);
		ret = io_uring_submit(&ring);
		if (ret != (strcmp(mode, "two") ? 1 : 2)) {
			fprintf(stderr, "readpath: submit %d\n", ret);
			return 1;
		}
		reap(&ring, mode, 0);
	}
	prep(&ring, mode, fd, i);
	ret = mark_submit(&ring);
	reap(&ring, mode, 1);
	if (ret != (strcmp(mode, "two") ? 1 : 2)) {
		fprintf(stderr, "readpath: marked submit %d\n", ret);
		return 1;
	}
	io_uring_queue_exit(&ring);
	close(fd);
	printf("readpath: %s ok\n", mode);
	return 0;
}
