/* SPDX-License-Identifier: MIT */
/*
 * api-teardown.c - io_uring_queue_exit() with requests in flight: pipe
 * reads that never complete, long timeouts and O_DIRECT reads. Every
 * round must leave the process as it found it: the same open fds and the
 * same threads once queue_exit has returned (the engine's threads are
 * joined, its fds closed; the kernel's own io_uring threads, which it
 * ends on its own time, are not counted), and no CQE may be posted to a
 * ring that is gone. RSS is reported, not asserted (malloc keeps what it
 * freed). The time an exit takes is printed for the record; it is
 * measured, never asserted.
 *
 * ANYRING_TEARDOWN_ROUNDS sets the number of rounds (default 50).
 */
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "test.h"

#define T_INFLIGHT	256
#define T_DIRECT_BS	4096

static unsigned t_count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	unsigned n = 0;

	CHECK(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static long t_rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = atol(line + 6);
	fclose(f);
	return kib;
}

static void t_round(int dfd, void *dbuf, int p[2], double *ms)
{
	static char pbuf[T_INFLIGHT];
	struct __kernel_timespec ts = { .tv_sec = 60 };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	double t0;

	t_ring(&ring, T_INFLIGHT, NULL);
	for (unsigned i = 0; i < T_INFLIGHT; i++) {
		sqe = io_uring_get_sqe(&ring);
		CHECK(sqe);
		switch (i % 3) {
		case 0:
			io_uring_prep_read(sqe, p[0], &pbuf[i], 1, 0);
			break;
		case 1:
			io_uring_prep_timeout(sqe, &ts, 0, 0);
			break;
		default:
			if (dfd >= 0)
				io_uring_prep_read(sqe, dfd, (char *)dbuf +
						   (i % 16) * T_DIRECT_BS, T_DIRECT_BS,
						   (i % 64) * T_DIRECT_BS);
			else
				io_uring_prep_timeout(sqe, &ts, 0, 0);
			break;
		}
		sqe->user_data = i + 1;
	}
	CHECK_EQ(io_uring_submit(&ring), T_INFLIGHT);
	t0 = t_now_ns() / 1e6;
	io_uring_queue_exit(&ring);
	*ms += t_now_ns() / 1e6 - t0;
}

int main(void)
{
	const char *r = getenv("ANYRING_TEARDOWN_ROUNDS");
	unsigned rounds = r ? (unsigned)atoi(r) : 50, fds0, thr0;
	void *dbuf;
	long rss0, rss1;
	double ms = 0;
	int p[2], dfd, kernel;

	CHECK(!posix_memalign(&dbuf, 4096, 16 * T_DIRECT_BS));
	dfd = t_direct_file(dbuf, T_DIRECT_BS, 64, 'x');
	CHECK(!pipe(p));
	/* a warm-up round: the engine's per-process state exists from here */
	t_round(dfd, dbuf, p, &ms);
	ms = 0;
	fds0 = t_count_dir("/proc/self/fd");
	thr0 = t_threads(&kernel);
	rss0 = t_rss_kib();
	for (unsigned i = 0; i < rounds; i++) {
		t_round(dfd, dbuf, p, &ms);
		CHECK_EQ(t_count_dir("/proc/self/fd"), fds0);
		/* the engine's threads are gone with the ring (joined) */
		CHECK_EQ(t_threads_back(thr0), thr0);
	}
	rss1 = t_rss_kib();
	printf("%u rounds of %u in flight (%s): exit %.3f ms on average, "
	       "RSS %ld -> %ld KiB, O_DIRECT %s\n", rounds, T_INFLIGHT,
	       t_engine(), ms / rounds, rss0, rss1, dfd >= 0 ? "yes" : "no");
	if (dfd >= 0)
		close(dfd);
	close(p[0]);
	close(p[1]);
	free(dbuf);
	return 0;
}
