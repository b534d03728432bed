/* SPDX-License-Identifier: MIT */
/*
 * nopcmp.c - what a QD1 NOP costs through liburing's API, on Debian's
 * liburing 2.3 or on libanyring's kernel engine: the same program,
 * built against <liburing.h> and linked with either library
 * (docs/performance.md, "The kernel engine against liburing"):
 *
 *   cc -O2 bench/nopcmp.c -o build/bench/nop-liburing -luring
 *   cc -O2 bench/nopcmp.c -o build/bench/nop-anyring \
 *      -Lbuild/lib -lanyring -Wl,-rpath,$PWD/build/lib
 *
 * nop-X [COUNT [SETUP_FLAGS [REGRING [SUBMIT_ONLY [FILE]]]]]
 *     COUNT NOPs (300000), each prepared, submitted with
 *     io_uring_submit_and_wait(1) (io_uring_submit() with SUBMIT_ONLY
 *     set), reaped with io_uring_wait_cqe() and io_uring_cqe_seen(); on
 *     a ring of 64 entries made with SETUP_FLAGS (0; 0x3100 is
 *     t/io_uring's COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN) and,
 *     with REGRING set, a registered ring fd. Prints ns per NOP. Run
 *     under callgrind with two COUNTs for instructions per NOP, and the
 *     two builds in turn for the wall-clock ratio. Without
 *     ANYRING_ENGINE, libanyring's ring is the kernel's. With FILE, each
 *     request is a 4 KiB O_DIRECT READ of FILE at a random aligned
 *     offset instead of a NOP (device-bound work: the same loop, the
 *     device's latency per request).
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	unsigned long i, count = argc > 1 ? strtoul(argv[1], NULL, 0) : 300000;
	unsigned flags = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 0;
	int regring = argc > 3 && atoi(argv[3]);
	int submit_only = argc > 4 && atoi(argv[4]);
	const char *file = argc > 5 ? argv[5] : NULL;
	unsigned long blocks = 0, rnd = 88172645463325252UL;
	void *buf = NULL;
	int fd = -1;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	double t0, t1;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	ret = io_uring_queue_init_params(64, &ring, &p);
	if (ret) {
		fprintf(stderr, "nopcmp: setup: %s\n", strerror(-ret));
		return 1;
	}
	if (regring && io_uring_register_ring_fd(&ring) != 1) {
		fprintf(stderr, "nopcmp: cannot register the ring fd\n");
		return 1;
	}
	if (file) {
		struct stat st;

		fd = open(file, O_RDONLY | O_DIRECT);
		if (fd < 0 || fstat(fd, &st) || st.st_size < 4096 ||
		    posix_memalign(&buf, 4096, 4096)) {
			fprintf(stderr, "nopcmp: cannot read %s with O_DIRECT\n", file);
			return 1;
		}
		blocks = (unsigned long)st.st_size / 4096;
	}
	t0 = now_s();
	for (i = 0; i < count; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		if (fd >= 0) {
			rnd ^= rnd << 13;	/* xorshift64 */
			rnd ^= rnd >> 7;
			rnd ^= rnd << 17;
			io_uring_prep_read(sqe, fd, buf, 4096,
					   (rnd % blocks) * 4096);
		} else {
			io_uring_prep_nop(sqe);
		}
		sqe->user_data = i;
		ret = submit_only ? io_uring_submit(&ring) :
				    io_uring_submit_and_wait(&ring, 1);
		if (ret != 1) {
			fprintf(stderr, "nopcmp: submit: %d\n", ret);
			return 1;
		}
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret || cqe->user_data != i || cqe->res != (fd >= 0 ? 4096 : 0)) {
			fprintf(stderr, "nopcmp: wait: %d\n", ret);
			return 1;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	t1 = now_s();
	printf("%.1f\n", (t1 - t0) * 1e9 / (double)count);
	io_uring_queue_exit(&ring);
	return 0;
}
