/* SPDX-License-Identifier: MIT */
/*
 * ringprobe.c - small measurements for bench/targets and
 * docs/performance.md that anyring-bench does not make. bench/targets
 * builds it into build/bench/ringprobe:
 *
 *   cc -O2 -Iinclude bench/ringprobe.c -o build/bench/ringprobe \
 *      -Lbuild/lib -lanyring -Wl,-rpath,$PWD/build/lib -lpthread
 *
 * ringprobe idle ENGINE POLICY SECS
 *     One ring (64 entries), nothing in flight; this thread waits SECS in
 *     io_uring_wait_cqe_timeout(). Prints the process's CPU (getrusage
 *     RUSAGE_SELF: every thread, engine threads included) over the wait.
 *     POLICY is anyring's string form ("wait=spin"), "default" for none.
 *
 * ringprobe sqwake ENGINE COUNT
 *     What waking an asleep SQPOLL thread costs. An SQPOLL ring with
 *     sq_thread_idle 1 ms; COUNT times: wait (sleeping 2 ms at a time)
 *     until the SQ thread has set IORING_SQ_NEED_WAKEUP, then submit a
 *     NOP (io_uring_submit() enters with IORING_ENTER_SQ_WAKEUP) and
 *     wait for its CQE (io_uring_wait_cqe()). Prints the medians and 90th
 *     percentiles of the submit call (the program's cost) and of submit
 *     to CQE (the thread's wakeup, its issue and this thread's), in us.
 *
 * ringprobe mem ENGINE NRINGS ENTRIES
 *     The process's memory growth per ring (smaps_rollup Rss and Pss)
 *     when NRINGS rings of ENTRIES entries are made; then after one
 *     submit of ENTRIES NOPs on each ring, reaped; then after ENTRIES
 *     512-byte reads of a memfd on each ring, reaped (NOPs may need no
 *     request; reads do). Also the kernel's io_kiocb slab growth
 *     (/proc/slabinfo, system-wide), which no RSS shows.
 *
 * ringprobe atomics
 *     What the user engine's bus-locked operations cost on this CPU: an
 *     uncontended pthread mutex lock/unlock pair, a spinlock pair as
 *     ctx->lock's (an exchange, then a release store), and a seq_cst
 *     fence, in ns (20M iterations each); first while the process has one thread,
 *     then with a second (parked) one. glibc drops the lock prefix from a
 *     mutex's compare-and-swap while __libc_single_threaded is set, so only
 *     the second figure is what an application with threads pays.
 *
 * ringprobe copies
 *     What a fault-safe copy of application memory costs (lib/uaccess.h,
 *     docs/architecture.md "Application memory"), for 16, 64 and 4096
 *     bytes, in ns (1M copies each): memcpy (no protection), a guarded
 *     memcpy (sigsetjmp, a SIGSEGV handler that siglongjmps: the signal
 *     handler way), process_vm_readv on the own pid (the engine's), and
 *     write+read through a pipe (its fallback). A second thread is parked.
 *
 * ringprobe cached FILE
 *     The share of FILE's pages in the page cache (mincore), in percent.
 *
 * ringprobe loop ENGINE MODE COUNT [TARGET]
 *     COUNT operations at QD1 (submit one, wait for it), for instruction
 *     counts (valgrind --tool=callgrind; the difference of two COUNTs is
 *     the per-I/O cost) and perf. MODE: nop, nop32 (32 NOPs per submit
 *     and wait; COUNT counts NOPs), read (4 KiB random reads of TARGET
 *     through the page cache), direct (the same with O_DIRECT), sim
 *     (TARGET is a simdev spec), simpoll (the same on an IOPOLL ring: the
 *     spec needs completion=poll), async (read with IOSQE_ASYNC: the io-wq
 *     path), readv (read as a READV of one iovec: the iovec array is
 *     copied at submit), bufring (read with IOSQE_BUFFER_SELECT from a
 *     ring of 8 registered 4 KiB buffers, each given back to the ring
 *     once its CQE is seen), pipe and pipebuf (4 KiB written into a pipe,
 *     then read by a READ, into a buffer or from the buffer ring; TARGET
 *     unused), recv (the same through a unix stream socket and a RECV). Prints ns per operation. ENGINE "sync" does read and direct
 *     with preadv2() instead of a ring, for comparison. A second thread
 *     is parked first, so the process is multi-threaded as applications
 *     are (see atomics).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <anyring.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "ringprobe: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* t/io_uring's flags, as anyring-bench: each dropped when refused */
static int ring_init(const char *engine, unsigned entries, struct io_uring *ring,
		     unsigned extra)
{
	unsigned tries[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
		IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_DEFER_TASKRUN, 0,
	};
	struct io_uring_params p;
	int ret = -EINVAL;

	for (unsigned i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = tries[i] | extra;
		ret = anyring_queue_init_engine(engine, entries, ring, &p);
		if (ret != -EINVAL)
			break;
	}
	return ret;
}

/* ---- idle ---- */

static int cmd_idle(const char *engine, const char *policy, double secs)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts;
	struct anyring_policy pol;
	char buf[160];
	double t0, c0, t1, c1;
	int ret;

	ret = ring_init(engine, 64, &ring, 0);
	if (ret)
		die("ring setup", ret);
	if (strcmp(policy, "default")) {
		ret = anyring_policy_parse(policy, &pol);
		if (!ret)
			ret = anyring_ring_set_policy(&ring, &pol);
		if (ret)
			die("policy", ret);
	}
	anyring_ring_policy(&ring, &pol);
	anyring_policy_format(&pol, buf, sizeof(buf));
	ts.tv_sec = (long long)secs;
	ts.tv_nsec = (long long)((secs - (double)ts.tv_sec) * 1e9);
	t0 = now_s();
	c0 = cpu_s();
	ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	c1 = cpu_s();
	t1 = now_s();
	printf("{\"engine\":\"%s\",\"policy\":\"%s\",\"resolved\":\"%s\","
	       "\"ret\":%d,\"wall_s\":%.3f,\"cpu_s\":%.6f,\"cpu_pct\":%.3f}\n",
	       anyring_ring_engine(&ring), policy, buf, ret, t1 - t0, c1 - c0,
	       100.0 * (c1 - c0) / (t1 - t0));
	io_uring_queue_exit(&ring);
	return ret == -ETIME ? 0 : 1;
}

/* ---- sqwake ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmd_sqwake(const char *engine, unsigned count)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 1 };
	struct timespec nap = { 0, 2000000 };
	double *call = calloc(count, sizeof(double));
	double *done = calloc(count, sizeof(double));
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned i, woken = 0;
	double t0, t1;
	int ret;

	if (!call || !done)
		die("calloc", ENOMEM);
	ret = anyring_queue_init_engine(engine, 8, &ring, &p);
	if (ret)
		die("SQPOLL ring setup", ret);
	for (i = 0; i < count; i++) {
		/* the thread asleep: it set NEED_WAKEUP (acquire: its flag store) */
		while (!(__atomic_load_n(ring.sq.kflags, __ATOMIC_ACQUIRE) &
			 IORING_SQ_NEED_WAKEUP))
			nanosleep(&nap, NULL);
		io_uring_prep_nop(io_uring_get_sqe(&ring));
		t0 = now_s();
		ret = io_uring_submit(&ring);
		t1 = now_s();
		if (ret != 1)
			die("submit", ret < 0 ? ret : EIO);
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret)
			die("wait", ret);
		done[i] = (now_s() - t0) * 1e6;
		call[i] = (t1 - t0) * 1e6;
		io_uring_cqe_seen(&ring, cqe);
		woken++;
	}
	qsort(call, count, sizeof(double), cmp_double);
	qsort(done, count, sizeof(double), cmp_double);
	printf("{\"engine\":\"%s\",\"wakeups\":%u,\"submit_p50_us\":%.2f,"
	       "\"submit_p90_us\":%.2f,\"cqe_p50_us\":%.2f,\"cqe_p90_us\":%.2f}\n",
	       anyring_ring_engine(&ring), woken, call[count / 2],
	       call[count * 9 / 10], done[count / 2], done[count * 9 / 10]);
	io_uring_queue_exit(&ring);
	free(call);
	free(done);
	return 0;
}

/* ---- mem ---- */

struct memsnap {
	long rss_kb, pss_kb;
	long kiocb_bytes;	/* io_kiocb slab: num_objs * objsize */
};

static void snap(struct memsnap *m)
{
	char line[512];
	FILE *f;

	m->rss_kb = m->pss_kb = m->kiocb_bytes = -1;
	f = fopen("/proc/self/smaps_rollup", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Rss:", 4))
				m->rss_kb = atol(line + 4);
			else if (!strncmp(line, "Pss:", 4))
				m->pss_kb = atol(line + 4);
		}
		fclose(f);
	}
	f = fopen("/proc/slabinfo", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			long act, num, sz;

			if (sscanf(line, "io_kiocb %ld %ld %ld", &act, &num, &sz) == 3)
				m->kiocb_bytes = num * sz;
		}
		fclose(f);
	}
}

static void print_delta(const char *stage, const struct memsnap *a,
			const struct memsnap *b, unsigned n)
{
	printf("\"%s\":{\"rss_kb\":%.1f,\"pss_kb\":%.1f,\"kiocb_kb\":%.1f}", stage,
	       (double)(b->rss_kb - a->rss_kb) / n, (double)(b->pss_kb - a->pss_kb) / n,
	       a->kiocb_bytes < 0 || b->kiocb_bytes < 0 ? 0.0 :
	       (double)(b->kiocb_bytes - a->kiocb_bytes) / 1024.0 / n);
}

/* prepare n SQEs with prep(), submit them in one call, reap them all */
static void submit_reap(struct io_uring *ring, unsigned n, int fd, void *buf)
{
	struct io_uring_cqe *cqe;
	unsigned i, seen = 0;
	int ret;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe)
			die("get_sqe", EBUSY);
		if (fd < 0)
			io_uring_prep_nop(sqe);
		else
			io_uring_prep_read(sqe, fd, buf, 512, 0);
		sqe->user_data = i;
	}
	ret = io_uring_submit_and_wait(ring, n);
	if (ret != (int)n)
		die("submit", ret < 0 ? ret : EIO);
	while (seen < n) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret)
			die("wait", ret);
		if (cqe->res < 0)
			die("cqe", cqe->res);
		io_uring_cqe_seen(ring, cqe);
		seen++;
	}
}

static int cmd_mem(const char *engine, unsigned nr, unsigned entries)
{
	struct io_uring warm, *rings = calloc(nr, sizeof(*rings));
	struct memsnap s0, s1, s2, s3;
	static char buf[4096];
	int ret, mfd;
	unsigned i;

	mfd = memfd_create("ringprobe", 0);
	if (!rings || mfd < 0 || pwrite(mfd, buf, sizeof(buf), 0) != sizeof(buf))
		die("memfd", errno);
	/* one-time costs (engine tables, the allocator's arenas) are not a ring's */
	ret = ring_init(engine, 4, &warm, 0);
	if (ret)
		die("ring setup", ret);
	submit_reap(&warm, 4, -1, buf);
	submit_reap(&warm, 4, mfd, buf);
	snap(&s0);
	for (i = 0; i < nr; i++) {
		ret = ring_init(engine, entries, &rings[i], 0);
		if (ret)
			die("ring setup", ret);
	}
	snap(&s1);
	for (i = 0; i < nr; i++)
		submit_reap(&rings[i], entries, -1, buf);
	snap(&s2);
	for (i = 0; i < nr; i++)
		submit_reap(&rings[i], entries, mfd, buf);
	snap(&s3);
	printf("{\"engine\":\"%s\",\"rings\":%u,\"entries\":%u,\"sq\":%u,\"cq\":%u,",
	       anyring_ring_engine(&rings[0]), nr, entries,
	       rings[0].sq.ring_entries, rings[0].cq.ring_entries);
	print_delta("setup", &s0, &s1, nr);
	putchar(',');
	print_delta("nop", &s0, &s2, nr);
	putchar(',');
	print_delta("read", &s0, &s3, nr);
	printf("}\n");
	for (i = 0; i < nr; i++)
		io_uring_queue_exit(&rings[i]);
	io_uring_queue_exit(&warm);
	free(rings);
	close(mfd);
	return 0;
}

/* ---- cached ---- */

static int cmd_cached(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	size_t npages, i, in = 0;
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(path, errno);
	npages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(npages ? npages : 1);
	if (m == MAP_FAILED || !vec || mincore(m, (size_t)st.st_size, vec))
		die("mincore", errno);
	for (i = 0; i < npages; i++)
		in += vec[i] & 1;
	printf("%.2f\n", npages ? 100.0 * (double)in / (double)npages : 100.0);
	munmap(m, (size_t)st.st_size);
	close(fd);
	return 0;
}

/* ---- atomics ---- */

/* a thread that sleeps until the process ends: the process is multi-threaded */
static void *parked(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void park_a_thread(void)
{
	static bool done;
	pthread_t t;

	if (!done && !pthread_create(&t, NULL, parked, NULL))
		done = true;
}

static void time_atomics(const char *label)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	const unsigned long n = 20000000;
	volatile unsigned long v = 0;
	atomic_uint spin = 0;
	double t0, t1, t2, t3, t4;
	unsigned long i;

	t0 = now_s();
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		v++;
		pthread_mutex_unlock(&m);
	}
	t1 = now_s();
	for (i = 0; i < n; i++) {
		atomic_thread_fence(memory_order_seq_cst);
		v++;
	}
	t2 = now_s();
	for (i = 0; i < n; i++)
		v++;
	t3 = now_s();
	/* the user engine's ctx->lock pair: an acquire exchange, a release store */
	for (i = 0; i < n; i++) {
		while (atomic_exchange_explicit(&spin, 1, memory_order_acquire))
			;
		v++;
		atomic_store_explicit(&spin, 0, memory_order_release);
	}
	t4 = now_s();
	printf("{\"threads\":\"%s\",\"mutex_pair_ns\":%.2f,\"spin_pair_ns\":%.2f,"
	       "\"fence_ns\":%.2f,\"plain_ns\":%.2f}\n", label,
	       (t1 - t0) * 1e9 / (double)n, (t4 - t3) * 1e9 / (double)n,
	       (t2 - t1) * 1e9 / (double)n, (t3 - t2) * 1e9 / (double)n);
}

static int cmd_atomics(void)
{
	time_atomics("one");
	park_a_thread();
	time_atomics("two");
	return 0;
}

/* ---- copies ---- */

static __thread sigjmp_buf copy_jmp;
static __thread volatile sig_atomic_t copy_armed;

static void copy_segv(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (copy_armed) {
		copy_armed = 0;
		siglongjmp(copy_jmp, 1);
	}
	signal(sig, SIG_DFL);
}

static int copy_guarded(void *dst, const void *src, size_t n)
{
	if (sigsetjmp(copy_jmp, 0))
		return -EFAULT;
	copy_armed = 1;
	memcpy(dst, src, n);
	__asm__ __volatile__("" ::: "memory");
	copy_armed = 0;
	return 0;
}

static pid_t copy_pid;

static int copy_vm(void *dst, const void *src, size_t n)
{
	struct iovec l = { dst, n }, r = { (void *)src, n };

	return process_vm_readv(copy_pid, &l, 1, &r, 1, 0) == (ssize_t)n ?
	       0 : -EFAULT;
}

static int copy_pipe_fd[2];

static int copy_pipe(void *dst, const void *src, size_t n)
{
	if (write(copy_pipe_fd[1], src, n) != (ssize_t)n)
		return -EFAULT;
	return read(copy_pipe_fd[0], dst, n) == (ssize_t)n ? 0 : -EFAULT;
}

static int copy_plain(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	__asm__ __volatile__("" : : "r"(dst) : "memory");
	return 0;
}

static int cmd_copies(void)
{
	static const struct {
		const char *name;
		int (*fn)(void *, const void *, size_t);
	} ways[] = {
		{ "memcpy", copy_plain }, { "guarded", copy_guarded },
		{ "process_vm_readv", copy_vm }, { "pipe", copy_pipe },
	};
	static char src[4096], dst[4096];
	static const size_t sizes[] = { 16, 64, 4096 };
	const unsigned long n = 1000000;
	struct sigaction sa;
	int bad = 0;

	park_a_thread();
	copy_pid = getpid();
	if (pipe(copy_pipe_fd))
		die("pipe", errno);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = copy_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	memset(src, 1, sizeof(src));
	for (unsigned w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
		printf("{\"copy\":\"%s\"", ways[w].name);
		for (unsigned z = 0; z < 3; z++) {
			double t0 = now_s(), t1;

			for (unsigned long i = 0; i < n; i++)
				bad |= ways[w].fn(dst, src, sizes[z]);
			t1 = now_s();
			printf(",\"ns_%zu\":%.1f", sizes[z],
			       (t1 - t0) * 1e9 / (double)n);
		}
		printf("}\n");
	}
	return bad ? 1 : 0;
}

/* ---- loop ---- */

static unsigned long long rng_state = 0x616e7972696e67ULL;

static unsigned long long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmd_loop(const char *engine, const char *mode, unsigned long count,
		    const char *target)
{
	bool nop = !strcmp(mode, "nop"), nop32 = !strcmp(mode, "nop32");
	bool async = !strcmp(mode, "async");
	bool simpoll = !strcmp(mode, "simpoll");
	bool readv = !strcmp(mode, "readv");
	bool pipebuf = !strcmp(mode, "pipebuf");
	bool recv_mode = !strcmp(mode, "recv");
	bool pipe_mode = pipebuf || recv_mode || !strcmp(mode, "pipe");
	bool bufring = pipebuf || !strcmp(mode, "bufring");
	struct io_uring_buf_ring *br = NULL;
	void *bufs = NULL;
	int pfd[2] = { -1, -1 };
	unsigned batch = nop32 ? 32 : 1;
	unsigned long long blocks = 0;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	void *buf;
	double t0, t1;
	unsigned long done = 0;

	park_a_thread();	/* multi-threaded, as applications are */
	int fd = -1, ret;

	if (recv_mode) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, pfd))
			die("socketpair", errno);
		fd = pfd[0];
		blocks = 1;
	} else if (pipe_mode) {
		if (pipe(pfd))
			die("pipe", errno);
		fd = pfd[0];
		blocks = 1;
	} else if (!nop && !nop32) {
		struct stat st;

		if (!target)
			die("loop: a target is needed", EINVAL);
		if (!strcmp(mode, "sim") || simpoll) {
			fd = anyring_simdev_create(target);
			if (fd < 0)
				die("simdev", fd);
			blocks = 1ULL << 18;	/* 1 GiB of 4 KiB blocks (size= of the spec) */
		} else {
			fd = open(target, O_RDONLY |
				  (!strcmp(mode, "direct") ? O_DIRECT : 0));
			if (fd < 0 || fstat(fd, &st))
				die(target, errno);
			blocks = (unsigned long long)st.st_size / 4096;
		}
		if (!blocks)
			die("loop: empty target", EINVAL);
	}
	if (posix_memalign(&buf, 4096, 4096))
		die("buffer", ENOMEM);
	struct iovec riov = { buf, 4096 };
	if (!strcmp(engine, "sync")) {
		struct iovec iov = { buf, 4096 };

		if (fd < 0 || async || !strcmp(mode, "sim") || simpoll)
			die("loop: sync does read and direct only", EINVAL);
		t0 = now_s();
		for (; done < count; done++) {
			ssize_t n = preadv2(fd, &iov, 1,
					    (off_t)((rnd() % blocks) * 4096), 0);

			if (n != 4096)
				die("preadv2", n < 0 ? errno : EIO);
		}
		t1 = now_s();
		printf("{\"engine\":\"sync\",\"mode\":\"%s\",\"ops\":%lu,"
		       "\"ns_per_op\":%.1f}\n", mode, done,
		       (t1 - t0) * 1e9 / (double)done);
		close(fd);
		free(buf);
		return 0;
	}
	ret = ring_init(engine, 64, &ring, simpoll ? IORING_SETUP_IOPOLL : 0);
	if (ret)
		die("ring setup", ret);
	io_uring_register_ring_fd(&ring);
	if (bufring) {
		struct io_uring_buf_reg reg;

		if (posix_memalign((void **)&br, 4096, 4096) ||
		    posix_memalign(&bufs, 4096, 8 * 4096))
			die("buffer ring", ENOMEM);
		io_uring_buf_ring_init(br);
		memset(&reg, 0, sizeof(reg));
		reg.ring_addr = (unsigned long)br;
		reg.ring_entries = 8;
		reg.bgid = 1;
		ret = io_uring_register_buf_ring(&ring, &reg, 0);
		if (ret)
			die("register buffer ring", ret);
		for (unsigned i = 0; i < 8; i++)
			io_uring_buf_ring_add(br, (char *)bufs + i * 4096, 4096,
					      (unsigned short)i, 7, (int)i);
		io_uring_buf_ring_advance(br, 8);
	}
	t0 = now_s();
	while (done < count) {
		for (unsigned i = 0; i < batch; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			if (fd < 0) {
				io_uring_prep_nop(sqe);
			} else if (pipe_mode) {
				if (write(pfd[1], buf, 4096) != 4096)
					die("write pipe", errno);
				if (recv_mode)
					io_uring_prep_recv(sqe, fd, buf, 4096, 0);
				else
					io_uring_prep_read(sqe, fd, buf, 4096, 0);
			} else if (readv) {
				io_uring_prep_readv(sqe, fd, &riov, 1,
						    (rnd() % blocks) * 4096);
			} else {
				io_uring_prep_read(sqe, fd, buf, 4096,
						   (rnd() % blocks) * 4096);
				if (async)
					sqe->flags |= IOSQE_ASYNC;
			}
			if (bufring) {
				sqe->flags |= IOSQE_BUFFER_SELECT;
				sqe->buf_group = 1;
			}
		}
		ret = io_uring_submit_and_wait(&ring, batch);
		if (ret < 0)
			die("submit", ret);
		for (unsigned i = 0; i < batch; i++) {
			ret = io_uring_wait_cqe(&ring, &cqe);
			if (ret)
				die("wait", ret);
			if (cqe->res < 0)
				die("cqe", cqe->res);
			if (bufring) {	/* the buffer goes back to the ring */
				unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

				io_uring_buf_ring_add(br, (char *)bufs + bid * 4096,
						      4096, (unsigned short)bid, 7, 0);
				io_uring_buf_ring_advance(br, 1);
			}
			io_uring_cqe_seen(&ring, cqe);
		}
		done += batch;
	}
	t1 = now_s();
	printf("{\"engine\":\"%s\",\"mode\":\"%s\",\"ops\":%lu,\"ns_per_op\":%.1f}\n",
	       anyring_ring_engine(&ring), mode, done, (t1 - t0) * 1e9 / (double)done);
	io_uring_queue_exit(&ring);
	if (fd >= 0)
		close(fd);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(br);
	free(bufs);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "idle"))
		return cmd_idle(argv[2], argv[3], atof(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "sqwake"))
		return cmd_sqwake(argv[2], (unsigned)atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "mem"))
		return cmd_mem(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]));
	if (argc == 2 && !strcmp(argv[1], "atomics"))
		return cmd_atomics();
	if (argc == 2 && !strcmp(argv[1], "copies"))
		return cmd_copies();
	if (argc == 3 && !strcmp(argv[1], "cached"))
		return cmd_cached(argv[2]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "loop"))
		return cmd_loop(argv[2], argv[3], strtoul(argv[4], NULL, 0),
				argc == 6 ? argv[5] : NULL);
	fprintf(stderr,
		"usage: ringprobe idle ENGINE POLICY|default SECS\n"
		"       ringprobe sqwake ENGINE COUNT\n"
		"       ringprobe mem ENGINE NRINGS ENTRIES\n"
		"       ringprobe cached FILE\n"
		"       ringprobe atomics\n"
		"       ringprobe copies\n"
		"       ringprobe loop ENGINE nop|nop32|read|readv|direct|async|sim|simpoll COUNT [TARGET]\n");
	return 2;
}
