/* SPDX-License-Identifier: MIT */
/*
 * api-batch: a submit's buffered reads of regular files, which the user
 * engine reads together in one io_submit() (backend/batch.c), give the
 * kernel's results in the kernel's order (issue=inline, where the
 * kernel's inline completions come in submit order):
 *   - reads around a NOP, at end of file, of zero length, with a pipe's
 *     read and one at the file position between them: CQEs in order;
 *   - a WRITE after a read of the same bytes: the read has the old ones;
 *   - a CLOSE of the fd after reads: the reads were done before it;
 *   - reads cut short by end of file, whole or in part;
 *   - pages not in the page cache (dropped with POSIX_FADV_DONTNEED);
 *   - a read into an unmapped buffer between good reads, a READV whose
 *     iovecs are unmapped after them: -EFAULT, in order;
 *   - 80 reads in one submit (more than a batch holds), READ_FIXED and a
 *     registered file;
 *   - a forked child's batch, on a ring of its own;
 *   - inotify's IN_ACCESS for a batch's reads (AIO's reads raise none);
 *   - a signal handler that submits a read on another ring and waits for
 *     it, every 50 us, while the thread it interrupts submits batches.
 * On the user engine the reads must have gone in batches (read_batched);
 * on the kernel engine that counter stays 0.
 */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "test.h"

#define BS	4096
#define NBLK	64
#define NBUF	80

static unsigned char bufs[NBUF][BS] __attribute__((aligned(4096)));
static bool user;

static unsigned char t_byte(unsigned blk, unsigned i, unsigned gen)
{
	return (unsigned char)(blk * 29 + i * 5 + gen * 11 + 3);
}

static void t_fill(unsigned char *p, unsigned blk, unsigned gen)
{
	for (unsigned i = 0; i < BS; i++)
		p[i] = t_byte(blk, i, gen);
}

static bool t_check(const unsigned char *p, unsigned blk, unsigned gen,
		    unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		if (p[i] != t_byte(blk, i, gen))
			return false;
	return true;
}

/*
 * fd at a number no file had before in this process: the user engine's
 * fd cache, a hint, would take it for that file (a pipe's) until it
 * looks again, and read it without a batch
 */
static int t_fresh_fd(int fd)
{
	static int next = 200;
	int nfd = fcntl(fd, F_DUPFD, next++);

	CHECK(nfd >= 0);
	close(fd);
	return nfd;
}

/* a file on disk (the page cache of a real file system), len bytes */
static int t_file(off_t len)
{
	const char *dir = getenv("ANYRING_BUILD");
	unsigned char blk[BS];
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/api-batch.%d", dir ? dir : ".",
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	unlink(path);
	fd = t_fresh_fd(fd);
	for (off_t off = 0; off < len; off += BS) {
		size_t n = len - off < BS ? (size_t)(len - off) : BS;

		t_fill(blk, (unsigned)(off / BS), 0);
		CHECK_EQ(pwrite(fd, blk, n, off), (ssize_t)n);
	}
	return fd;
}

static void t_ring_inline(struct io_uring *ring, unsigned entries)
{
	struct anyring_policy p;

	t_ring(ring, entries, NULL);
	memset(&p, 0, sizeof(p));
	p.issue = ANYRING_ISSUE_INLINE;
	CHECK_EQ(anyring_ring_set_policy(ring, &p), 0);
	CHECK_EQ(anyring_ring_stats_reset(ring), 0);
}

/* an SQE to prepare, whose user_data is set after (prep clears it) */
static __u64 t_ud;
static struct io_uring_sqe *t_last;

static void t_tag(void)
{
	if (t_last)
		t_last->user_data = t_ud;
	t_last = NULL;
}

static struct io_uring_sqe *t_op(struct io_uring *ring, __u64 ud)
{
	t_tag();
	t_last = t_sqe(ring);
	t_ud = ud;
	return t_last;
}

static int t_submit(struct io_uring *ring)
{
	t_tag();
	return io_uring_submit(ring);
}

static void t_read(struct io_uring *ring, int fd, void *buf, unsigned len,
		   off_t off, __u64 ud)
{
	io_uring_prep_read(t_op(ring, ud), fd, buf, len, (__u64)off);
}

/* n CQEs, each the next user_data from 1, with res[i] */
static void t_expect(struct io_uring *ring, unsigned n, const int *res)
{
	struct io_uring_cqe *cqe;

	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		if (cqe->user_data != i + 1 || cqe->res != res[i])
			fprintf(stderr, "%s: CQE %u: user_data %llu res %d, "
				"expected %u and %d\n", t_engine(), i,
				(unsigned long long)cqe->user_data, cqe->res,
				i + 1, res[i]);
		CHECK_EQ(cqe->user_data, i + 1);
		CHECK_EQ(cqe->res, res[i]);
		io_uring_cqe_seen(ring, cqe);
	}
}

/* n CQEs, user_data 1 to n in any order, with res[user_data - 1] */
static void t_expect_any(struct io_uring *ring, unsigned n, const int *res)
{
	struct io_uring_cqe *cqe;

	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		CHECK(cqe->user_data >= 1 && cqe->user_data <= n);
		CHECK_EQ(cqe->res, res[cqe->user_data - 1]);
		io_uring_cqe_seen(ring, cqe);
	}
}

/* did the engine read them in batches? (the kernel engine: never) */
static void t_batched(struct io_uring *ring, unsigned at_least)
{
	struct anyring_stats st;

	CHECK_EQ(anyring_ring_stats(ring, &st), 0);
	if (!user) {
		CHECK_EQ(st.read_batched, 0);
		return;
	}
	if (st.read_batched < at_least)
		fprintf(stderr, "read_batched %llu, expected %u at least\n",
			st.read_batched, at_least);
	CHECK(st.read_batched >= at_least);
}

/*
 * Reads around a NOP, at EOF, of zero length, and reads that complete
 * on their own (a pipe's, one at the file position): CQEs in submit order.
 */
static void t_order(int fd)
{
	static const int res[] = { BS, BS, 0, BS, 0, 0, 100, BS, BS };
	static char pbuf[100];
	struct io_uring ring;
	int p[2];

	CHECK_EQ(pipe(p), 0);
	memset(pbuf, 'p', sizeof(pbuf));
	CHECK_EQ(write(p[1], pbuf, sizeof(pbuf)), (ssize_t)sizeof(pbuf));
	CHECK_EQ(lseek(fd, 5 * BS, SEEK_SET), 5 * BS);
	t_ring_inline(&ring, 16);
	t_read(&ring, fd, bufs[0], BS, 0, 1);
	t_read(&ring, fd, bufs[1], BS, BS, 2);
	io_uring_prep_nop(t_op(&ring, 3));
	t_read(&ring, fd, bufs[2], BS, 2 * BS, 4);
	t_read(&ring, fd, bufs[3], BS, (off_t)NBLK * BS, 5);
	t_read(&ring, fd, bufs[4], 0, 0, 6);
	t_read(&ring, p[0], bufs[5], BS, 0, 7);
	t_read(&ring, fd, bufs[6], BS, 3 * BS, 8);
	t_read(&ring, fd, bufs[7], BS, -1, 9);
	CHECK_EQ(t_submit(&ring), 9);
	t_expect(&ring, 9, res);
	for (unsigned b = 0; b < 3; b++)
		CHECK(t_check(bufs[b], b, 0, BS));
	CHECK(!memcmp(bufs[5], pbuf, sizeof(pbuf)));
	CHECK(t_check(bufs[6], 3, 0, BS));
	CHECK(t_check(bufs[7], 5, 0, BS));
	t_batched(&ring, 5);	/* 1-2, 4-6; 8 alone goes by preadv2 */
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

/* a WRITE after a read of the same block: the read has the old bytes */
static void t_write_after(int fd)
{
	static const int res[] = { BS, BS, BS };
	static unsigned char wbuf[BS] __attribute__((aligned(4096)));
	struct io_uring ring;

	t_ring_inline(&ring, 16);
	t_fill(wbuf, 7, 1);
	t_read(&ring, fd, bufs[0], BS, 7 * BS, 1);
	t_read(&ring, fd, bufs[1], BS, 8 * BS, 2);
	io_uring_prep_write(t_op(&ring, 3), fd, wbuf, BS, 7 * BS);
	CHECK_EQ(t_submit(&ring), 3);
	t_expect(&ring, 3, res);
	CHECK(t_check(bufs[0], 7, 0, BS));
	CHECK(t_check(bufs[1], 8, 0, BS));
	/* the block as it was, for the tests after this one */
	t_fill(wbuf, 7, 0);
	CHECK_EQ(pwrite(fd, wbuf, BS, 7 * BS), BS);
	t_batched(&ring, 2);
	io_uring_queue_exit(&ring);
}

/* a CLOSE after reads of its fd: they were read before it */
static void t_close_after(int fd)
{
	static const int res[] = { BS, BS, 0 };
	struct io_uring ring;
	int dfd = t_fresh_fd(dup(fd));

	CHECK(dfd >= 0);
	t_ring_inline(&ring, 16);
	t_read(&ring, dfd, bufs[0], BS, 3 * BS, 1);
	t_read(&ring, dfd, bufs[1], BS, 4 * BS, 2);
	io_uring_prep_close(t_op(&ring, 3), dfd);
	CHECK_EQ(t_submit(&ring), 3);
	t_expect(&ring, 3, res);
	CHECK(t_check(bufs[0], 3, 0, BS));
	CHECK(t_check(bufs[1], 4, 0, BS));
	CHECK(fcntl(dfd, F_GETFD) < 0);
	t_batched(&ring, 2);
	io_uring_queue_exit(&ring);
}

/* reads cut short by end of file: in the second block, at the end */
static void t_short(void)
{
	static const int res[] = { 6000, 6000 - BS, 0, 6000 };
	int fd = t_file(6000);
	struct io_uring ring;
	struct iovec iov[2] = {
		{ bufs[4], BS }, { bufs[5], BS },
	};

	memset(bufs, 0, sizeof(bufs));
	t_ring_inline(&ring, 16);
	/* 8192 from 0: the first block whole, 1904 bytes of the second */
	io_uring_prep_readv(t_op(&ring, 1), fd, iov, 2, 0);
	t_read(&ring, fd, bufs[0], BS, BS, 2);
	t_read(&ring, fd, bufs[1], BS, 6000, 3);
	t_read(&ring, fd, bufs[2], 2 * BS, 0, 4);	/* bufs[2] and [3] */
	CHECK_EQ(t_submit(&ring), 4);
	t_expect(&ring, 4, res);
	CHECK(t_check(bufs[4], 0, 0, BS));
	CHECK(t_check(bufs[5], 1, 0, 6000 - BS));
	CHECK(t_check(bufs[0], 1, 0, 6000 - BS));
	CHECK(t_check(bufs[2], 0, 0, BS));
	CHECK(t_check(bufs[3], 1, 0, 6000 - BS));
	for (unsigned i = 6000 - BS; i < BS; i++)
		CHECK(!bufs[0][i] && !bufs[3][i] && !bufs[5][i]);
	t_batched(&ring, 4);
	io_uring_queue_exit(&ring);
	close(fd);
}

/* blocks not in the page cache: read by a worker, whole */
static void t_cold(int fd)
{
	struct io_uring ring;
	int res[16];

	CHECK_EQ(fdatasync(fd), 0);
	CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	t_ring_inline(&ring, 32);
	for (unsigned i = 0; i < 16; i++) {
		t_read(&ring, fd, bufs[i], BS, (off_t)(i * 3 % NBLK) * BS, i + 1);
		res[i] = BS;
	}
	CHECK_EQ(t_submit(&ring), 16);
	/* a worker's reads may finish in any order */
	for (unsigned i = 0; i < 16; i++) {
		struct io_uring_cqe *cqe;
		unsigned j;

		CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		j = (unsigned)cqe->user_data - 1;
		CHECK(j < 16);
		CHECK_EQ(cqe->res, res[j]);
		res[j] = -1;
		io_uring_cqe_seen(&ring, cqe);
	}
	for (unsigned i = 0; i < 16; i++)
		CHECK(t_check(bufs[i], i * 3 % NBLK, 0, BS));
	io_uring_queue_exit(&ring);
}

/* bad buffers between good reads: -EFAULT, in submit order */
static void t_fault(int fd)
{
	static const int res[] = { BS, -EFAULT, BS, -EFAULT };
	struct io_uring ring;
	void *none = mmap(NULL, 2 * BS, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	CHECK(none != MAP_FAILED);
	t_ring_inline(&ring, 16);
	t_read(&ring, fd, bufs[0], BS, 0, 1);
	t_read(&ring, fd, none, BS, BS, 2);
	t_read(&ring, fd, bufs[1], BS, 3 * BS, 3);
	/* its iovecs are read at submit: the submit stops after it */
	io_uring_prep_readv(t_op(&ring, 4), fd, none, 1, 2 * BS);
	CHECK_EQ(t_submit(&ring), 4);
	t_expect(&ring, 4, res);
	CHECK(t_check(bufs[0], 0, 0, BS));
	CHECK(t_check(bufs[1], 3, 0, BS));
	io_uring_queue_exit(&ring);
	munmap(none, 2 * BS);
}

/* more than a batch holds, and READ_FIXED through a registered file */
static void t_many(int fd)
{
	struct iovec iov[NBUF];
	struct io_uring ring;
	int res[NBUF];

	for (unsigned i = 0; i < NBUF; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = BS;
		res[i] = BS;
	}
	/* in the page cache again (t_cold() dropped it): inline, in order */
	for (unsigned b = 0; b < NBLK; b++)
		CHECK_EQ(pread(fd, bufs[0], BS, (off_t)b * BS), BS);
	t_ring_inline(&ring, 128);
	CHECK_EQ(io_uring_register_buffers(&ring, iov, NBUF), 0);
	CHECK_EQ(io_uring_register_files(&ring, &fd, 1), 0);
	memset(bufs, 0, sizeof(bufs));
	for (unsigned i = 0; i < NBUF; i++) {
		struct io_uring_sqe *sqe = t_op(&ring, i + 1);
		off_t off = (off_t)((i * 7) % NBLK) * BS;

		if (i % 3 == 0) {
			io_uring_prep_read_fixed(sqe, 0, bufs[i], BS, (__u64)off,
						 (int)i);
			sqe->flags |= IOSQE_FIXED_FILE;
		} else if (i % 3 == 1) {
			io_uring_prep_read(sqe, fd, bufs[i], BS, (__u64)off);
		} else {
			io_uring_prep_readv(sqe, 0, &iov[i], 1, (__u64)off);
			sqe->flags |= IOSQE_FIXED_FILE;
		}
	}
	CHECK_EQ(t_submit(&ring), NBUF);
	t_expect(&ring, NBUF, res);
	for (unsigned i = 0; i < NBUF; i++)
		CHECK(t_check(bufs[i], (i * 7) % NBLK, 0, BS));
	t_batched(&ring, NBUF);
	io_uring_queue_exit(&ring);
}

/* a forked child batches on a ring of its own */
static void t_fork(int fd)
{
	int status;
	pid_t pid;

	t_order(fd);	/* the parent has batched */
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		t_order(fd);
		t_many(fd);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

/* a batch's reads raise the file's access event, as the kernel's do */
static void t_notify(int fd)
{
	static const int res[] = { BS, BS, BS, BS };
	struct io_uring ring;
	char path[64], ev[4096];
	int in, wd, nacc = 0;
	ssize_t n;

	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(in >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(in, path, IN_ACCESS);
	CHECK(wd >= 0);
	t_ring_inline(&ring, 16);
	CHECK_EQ(anyring_ring_stats_reset(&ring), 0);
	for (unsigned i = 0; i < 4; i++)
		t_read(&ring, fd, bufs[i], BS, (off_t)i * BS, i + 1);
	CHECK_EQ(t_submit(&ring), 4);
	t_expect(&ring, 4, res);
	t_batched(&ring, 4);
	while ((n = read(in, ev, sizeof(ev))) > 0) {
		for (char *e = ev; e < ev + n;
		     e += sizeof(struct inotify_event) +
			  ((struct inotify_event *)e)->len)
			nacc += !!(((struct inotify_event *)e)->mask & IN_ACCESS);
	}
	/* the kernel's four are merged into one: at least one */
	CHECK(nacc >= 1);
	io_uring_queue_exit(&ring);
	close(in);
}

/*
 * A signal handler's submit and wait on another ring, amid batches. The
 * engine is not async-signal-safe: the rings' request caches are filled
 * before the timer starts, so that no handler allocates while the thread
 * it interrupted may be in malloc(), and ThreadSanitizer is told not to
 * report the engine's calls in the handler.
 */
#if defined(__SANITIZE_THREAD__)
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "report_signal_unsafe=0";
}
#endif

static struct io_uring sig_ring;
static int sig_fd;
static volatile sig_atomic_t sig_runs, sig_bad;
static unsigned char sig_buf[BS];

static void t_sig_handler(int sig)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&sig_ring);
	struct io_uring_cqe *cqe;
	int e = errno;

	(void)sig;
	if (!sqe)
		goto out;
	/* at the file position: a read that never joins a batch */
	io_uring_prep_read(sqe, sig_fd, sig_buf, BS, (__u64)-1);
	if (io_uring_submit(&sig_ring) != 1 ||
	    io_uring_wait_cqe(&sig_ring, &cqe)) {
		sig_bad = sig_bad + 1;
		goto out;
	}
	if (cqe->res < 0)
		sig_bad = sig_bad + 1;
	io_uring_cqe_seen(&sig_ring, cqe);
	sig_runs = sig_runs + 1;
out:
	errno = e;
}

static void t_signal(int fd)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	long long end = t_now_ns() + 3000000000LL;
	struct sigaction sa;
	struct io_uring ring;
	int res[32];

	for (unsigned i = 0; i < 32; i++)
		res[i] = BS;
	sig_fd = t_fresh_fd(dup(fd));
	t_ring_inline(&ring, 64);
	t_ring(&sig_ring, 8, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = t_sig_handler;
	sa.sa_flags = SA_RESTART;
	CHECK_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	/* both rings' request caches filled: no allocation from here on */
	t_sig_handler(0);
	for (unsigned i = 0; i < 32; i++)
		t_read(&ring, fd, bufs[i], BS, (off_t)i * BS, i + 1);
	CHECK_EQ(t_submit(&ring), 32);
	t_expect_any(&ring, 32, res);
	CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (unsigned r = 0; r < 100000 && t_now_ns() < end; r++) {
		struct io_uring_cqe *cqe;
		int n;

		if (lseek(sig_fd, 0, SEEK_SET) < 0)	/* EINTR-free */
			CHECK(0);
		for (unsigned i = 0; i < 32; i++)
			t_read(&ring, fd, bufs[i], BS, (off_t)((i + r) % NBLK) * BS,
			       i + 1);
		do
			n = t_submit(&ring);
		while (n == -EINTR);
		CHECK_EQ(n, 32);
		for (unsigned i = 0; i < 32; i++) {
			int e;

			while ((e = io_uring_wait_cqe(&ring, &cqe)) == -EINTR)
				;
			CHECK_EQ(e, 0);
			CHECK_EQ(cqe->res, res[cqe->user_data - 1]);
			io_uring_cqe_seen(&ring, cqe);
		}
		/* not one more: none came twice */
		CHECK(io_uring_peek_cqe(&ring, &cqe) != 0);
	}
	CHECK_EQ(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);
	CHECK_EQ(sig_bad, 0);
	io_uring_queue_exit(&ring);
	io_uring_queue_exit(&sig_ring);
	close(sig_fd);
}

int main(void)
{
	int fd = t_file((off_t)NBLK * BS);

	user = !strcmp(t_engine(), "user");
	t_order(fd);
	t_write_after(fd);
	t_close_after(fd);
	t_short();
	t_cold(fd);
	t_fault(fd);
	t_many(fd);
	t_fork(fd);
	t_notify(fd);
	t_signal(fd);
	close(fd);
	printf("batched reads (%s): order, a write and a close after, short, "
	       "cold, faults, %d at once, a forked child, IN_ACCESS, a signal "
	       "handler's submit (%d)\n", t_engine(), NBUF, (int)sig_runs);
	return 0;
}
