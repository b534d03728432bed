/* SPDX-License-Identifier: MIT */
/*
 * faults: ANYRING_FAULTS on the user engine (docs/faults.md). The rules
 * are read once per process, at the first request the user engine
 * issues, so each case runs in a child process that sets its own
 * ANYRING_FAULTS first; the child's stderr goes to a file the parent
 * reads. Nothing here measures time: a delay is checked by the order of
 * completions and their results.
 *  - err on reads of a path glob (plain, vectored, fixed buffer, registered
 *    file), not on other files or other ops, an fd number reused for
 *    another file, OPENAT matched on its name made absolute;
 *  - nth=, every=, after=, max=, fd=: exact counts;
 *  - rate= with seed=: the same requests in two runs, another seed picks
 *    others, the count within a wide bound of the rate;
 *  - delay=: the delayed read completes with the right data, a link
 *    behind it waits for it; with an hour's delay the submitter's other
 *    request completes first and ring exit does not wait it out;
 *  - short=: bytes and half, the file position moves by the short count,
 *    a write writes only that much, a link behind breaks;
 *  - links: an injected fsync error keeps the chain (as the kernel's own
 *    fsync errors), a read error breaks it; CLOSE releases the fd;
 *  - bad syntax: one line on stderr and no rule applied; good syntax with
 *    spaces and any case; ANYRING_DEBUG counters; the kernel engine
 *    ignores the rules; an SQPOLL ring applies them.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"

#define FILE_SZ		8192
#define RATE_OPS	10000
#define BATCH		128

static char dir[64];

/* ---- in the child ---- */

static void use_faults(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	CHECK_EQ(setenv("ANYRING_FAULTS", buf, 1), 0);
}

static void ring_on(const char *engine, struct io_uring *ring, unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	CHECK_EQ(anyring_queue_init_engine(engine, 64, ring, &p), 0);
}

static void ring_user(struct io_uring *ring)
{
	ring_on("user", ring, 0);
}

static struct io_uring_sqe *sqe_get(struct io_uring *ring, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	CHECK(sqe);
	io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

/* the next CQE must be ud's: its res */
static int wait_ud(struct io_uring *ring, __u64 ud)
{
	struct io_uring_cqe *cqe;
	int res;

	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, ud);
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* the next two CQEs are ud1's and ud2's, in either order, with these res */
static void wait_both(struct io_uring *ring, __u64 ud1, int res1, __u64 ud2,
		      int res2)
{
	struct io_uring_cqe *cqe;
	int seen1 = 0, seen2 = 0;

	for (int i = 0; i < 2; i++) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		if (cqe->user_data == ud1 && !seen1) {
			CHECK_EQ(cqe->res, res1);
			seen1 = 1;
		} else {
			CHECK_EQ(cqe->user_data, ud2);
			CHECK(!seen2);
			CHECK_EQ(cqe->res, res2);
			seen2 = 1;
		}
		io_uring_cqe_seen(ring, cqe);
	}
}

static int submit1(struct io_uring *ring, __u64 ud)
{
	CHECK_EQ(io_uring_submit(ring), 1);
	return wait_ud(ring, ud);
}

static int do_nop(struct io_uring *ring)
{
	io_uring_prep_nop(sqe_get(ring, 1));
	return submit1(ring, 1);
}

static int do_read(struct io_uring *ring, int fd, void *buf, unsigned len,
		   __u64 off)
{
	io_uring_prep_read(sqe_get(ring, 2), fd, buf, len, off);
	return submit1(ring, 2);
}

static int do_write(struct io_uring *ring, int fd, const void *buf,
		    unsigned len, __u64 off)
{
	io_uring_prep_write(sqe_get(ring, 3), fd, buf, len, off);
	return submit1(ring, 3);
}

static int do_fsync(struct io_uring *ring, int fd)
{
	io_uring_prep_fsync(sqe_get(ring, 4), fd, 0);
	return submit1(ring, 4);
}

static int do_openat(struct io_uring *ring, int dfd, const char *path)
{
	io_uring_prep_openat(sqe_get(ring, 5), dfd, path, O_RDONLY, 0);
	return submit1(ring, 5);
}

static void path_of(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

/* a file of FILE_SZ bytes, byte i = i % 251 */
static void make_file(const char *name)
{
	unsigned char buf[FILE_SZ];
	char path[256];
	int fd;

	for (unsigned i = 0; i < FILE_SZ; i++)
		buf[i] = (unsigned char)(i % 251);
	path_of(path, sizeof(path), name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, buf, FILE_SZ), FILE_SZ);
	close(fd);
}

static int open_file(const char *name, int flags)
{
	char path[256];
	int fd;

	path_of(path, sizeof(path), name);
	fd = open(path, flags | O_CREAT, 0600);
	CHECK(fd >= 0);
	return fd;
}

/* buf holds the file's bytes from off */
static void check_data(const unsigned char *buf, unsigned len, unsigned off)
{
	for (unsigned i = 0; i < len; i++)
		CHECK_EQ(buf[i], (off + i) % 251);
}

/* ---- the cases (children) ---- */

static void c_glob_eio(void)
{
	static unsigned char buf[FILE_SZ];
	struct io_uring ring;
	struct iovec iov = { buf, 4096 };
	struct io_uring_sqe *sqe;
	int db, txt, fd2, dfd;

	use_faults("op=read,path=%s/*.db,err=EIO;op=open,path=%s/secret/*,err=EACCES",
		   dir, dir);
	make_file("a.db");
	make_file("b.txt");
	db = open_file("a.db", O_RDWR);
	txt = open_file("b.txt", O_RDONLY);
	ring_user(&ring);

	CHECK_EQ(do_read(&ring, db, buf, 4096, 0), -EIO);
	io_uring_prep_readv(sqe_get(&ring, 6), db, &iov, 1, 0);
	CHECK_EQ(submit1(&ring, 6), -EIO);
	CHECK_EQ(io_uring_register_buffers(&ring, &iov, 1), 0);
	io_uring_prep_read_fixed(sqe_get(&ring, 7), db, buf, 4096, 0, 0);
	CHECK_EQ(submit1(&ring, 7), -EIO);
	/* a registered file: matched on its path too */
	CHECK_EQ(io_uring_register_files(&ring, &db, 1), 0);
	sqe = sqe_get(&ring, 8);
	io_uring_prep_read(sqe, 0, buf, 4096, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	CHECK_EQ(submit1(&ring, 8), -EIO);

	/* other files, other ops: untouched */
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(do_read(&ring, txt, buf, 4096, 100), 4096);
	check_data(buf, 4096, 100);
	CHECK_EQ(do_write(&ring, db, buf, 16, 0), 16);
	CHECK_EQ(do_fsync(&ring, db), 0);

	/* the fd number of a.db reused for b.txt: looked up again */
	CHECK_EQ(io_uring_unregister_files(&ring), 0);
	close(db);
	fd2 = open_file("b.txt", O_RDONLY);
	CHECK_EQ(fd2, db);
	CHECK_EQ(do_read(&ring, fd2, buf, 4096, 0), 4096);
	check_data(buf, 4096, 0);

	/* OPENAT: its name made absolute and cleaned, relative to cwd or a dirfd */
	CHECK_EQ(mkdir(strcat(strcpy((char *)buf, dir), "/secret"), 0700), 0);
	make_file("secret/x");
	CHECK_EQ(chdir(dir), 0);
	CHECK_EQ(do_openat(&ring, AT_FDCWD, "secret/x"), -EACCES);
	CHECK_EQ(do_openat(&ring, AT_FDCWD, "./secret/../secret//x"), -EACCES);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	CHECK_EQ(do_openat(&ring, dfd, "secret/x"), -EACCES);
	fd2 = do_openat(&ring, dfd, "b.txt");
	CHECK(fd2 >= 0);
	close(fd2);
	io_uring_queue_exit(&ring);
}

static void c_counts(void)
{
	unsigned char byte = 7;
	struct io_uring ring;
	int f, other, i;

	f = open_file("counts", O_RDWR | O_TRUNC);
	other = open_file("other", O_RDWR | O_TRUNC);
	/* the fd is known only here: the rules are read at the first request */
	use_faults("op=fsync,nth=3,err=EIO;op=write,fd=%d,every=10,err=ENOSPC;"
		   "op=nop,after=5,every=2,max=3,err=EBUSY", f);
	ring_user(&ring);
	for (i = 1; i <= 30; i++)
		CHECK_EQ(do_fsync(&ring, f), i == 3 ? -EIO : 0);
	for (i = 1; i <= 100; i++) {
		CHECK_EQ(do_write(&ring, f, &byte, 1, (__u64)i),
			 i % 10 ? 1 : -ENOSPC);
		CHECK_EQ(do_write(&ring, other, &byte, 1, (__u64)i), 1);
	}
	/* after 5, every 2nd, at most 3: the 7th, 9th and 11th */
	for (i = 1; i <= 20; i++)
		CHECK_EQ(do_nop(&ring), i == 7 || i == 9 || i == 11 ? -EBUSY : 0);
	io_uring_queue_exit(&ring);
}

/* rate=: which of RATE_OPS NOPs failed, by user_data */
static void c_rate(unsigned char *hit)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned i, j, n;

	ring_user(&ring);
	for (i = 0; i < RATE_OPS; i += n) {
		n = RATE_OPS - i < BATCH / 2 ? RATE_OPS - i : BATCH / 2;
		for (j = 0; j < n; j++)
			io_uring_prep_nop(sqe_get(&ring, i + j));
		CHECK_EQ(io_uring_submit_and_wait(&ring, n), (int)n);
		for (j = 0; j < n; j++) {
			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
			CHECK(cqe->user_data < RATE_OPS);
			CHECK(cqe->res == 0 || cqe->res == -EIO);
			hit[cqe->user_data] = cqe->res == -EIO;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
}

static unsigned char *rate_hits;

static void c_rate_seed42(void)
{
	use_faults("op=nop,rate=0.1,seed=42,err=EIO");
	c_rate(rate_hits);
}

static void c_rate_seed42_again(void)
{
	use_faults("op=nop,rate=10%%,seed=42,err=EIO");
	c_rate(rate_hits + RATE_OPS);
}

static void c_rate_seed43(void)
{
	use_faults("op=nop,rate=0.1,seed=43,err=EIO");
	c_rate(rate_hits + 2 * RATE_OPS);
}

static void c_delay(void)
{
	static unsigned char buf[FILE_SZ];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int fd;

	use_faults("op=read,path=*/slow.dat,delay=300ms");
	make_file("slow.dat");
	fd = open_file("slow.dat", O_RDONLY);
	ring_user(&ring);
	/*
	 * the delayed read first in the batch, a NOP behind it: both
	 * complete, in whatever order (that the NOP does not wait for the
	 * delay is c_delay_exit's, with a delay no load can outlast)
	 */
	io_uring_prep_read(sqe_get(&ring, 1), fd, buf, 4096, 10);
	io_uring_prep_nop(sqe_get(&ring, 2));
	CHECK_EQ(io_uring_submit(&ring), 2);
	wait_both(&ring, 1, 4096, 2, 0);
	check_data(buf, 4096, 10);
	/* a link behind a delayed request waits for it */
	memset(buf, 0, sizeof(buf));
	sqe = sqe_get(&ring, 3);
	io_uring_prep_read(sqe, fd, buf, 100, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_nop(sqe_get(&ring, 4));
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK_EQ(wait_ud(&ring, 3), 100);
	CHECK_EQ(wait_ud(&ring, 4), 0);
	check_data(buf, 100, 0);
	io_uring_queue_exit(&ring);
}

/* a ring closed while a request sleeps out an hour's delay: exit does not wait */
static void c_delay_exit(void)
{
	static unsigned char buf[64];
	struct io_uring ring;
	int fd;

	use_faults("op=read,path=*/slow.dat,delay=3600s");
	make_file("slow.dat");
	fd = open_file("slow.dat", O_RDONLY);
	ring_user(&ring);
	io_uring_prep_read(sqe_get(&ring, 1), fd, buf, sizeof(buf), 0);
	io_uring_prep_nop(sqe_get(&ring, 2));
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK_EQ(wait_ud(&ring, 2), 0);
	io_uring_queue_exit(&ring);
}

static void c_short(void)
{
	static unsigned char buf[FILE_SZ];
	struct io_uring ring;
	struct iovec iov = { buf, sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct stat st;
	int fd, w, h;

	use_faults("op=read,path=*/short.dat,short=100;"
		   "op=write,path=*/w.dat,short=half;"
		   "op=read,path=*/half.dat,short=half");
	make_file("short.dat");
	make_file("half.dat");
	fd = open_file("short.dat", O_RDONLY);
	w = open_file("w.dat", O_RDWR | O_TRUNC);
	h = open_file("half.dat", O_RDONLY);
	ring_user(&ring);

	CHECK_EQ(do_read(&ring, fd, buf, 4096, 1000), 100);
	check_data(buf, 100, 1000);
	/* the file position moves by what the CQE says */
	CHECK_EQ(do_read(&ring, fd, buf, 4096, (__u64)-1), 100);
	check_data(buf, 100, 0);
	CHECK_EQ(do_read(&ring, fd, buf, 4096, (__u64)-1), 100);
	check_data(buf, 100, 100);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 200);
	/* no longer than the short count: not matched */
	CHECK_EQ(do_read(&ring, fd, buf, 50, 0), 50);
	CHECK_EQ(io_uring_register_buffers(&ring, &iov, 1), 0);
	io_uring_prep_read_fixed(sqe_get(&ring, 9), fd, buf, 4096, 300, 0);
	CHECK_EQ(submit1(&ring, 9), 100);
	check_data(buf, 100, 300);
	/* a short read breaks its link */
	sqe = sqe_get(&ring, 10);
	io_uring_prep_read(sqe, fd, buf, 4096, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_nop(sqe_get(&ring, 11));
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK_EQ(wait_ud(&ring, 10), 100);
	CHECK_EQ(wait_ud(&ring, 11), -ECANCELED);

	CHECK_EQ(do_read(&ring, h, buf, 4096, 0), 2048);
	check_data(buf, 2048, 0);
	memset(buf, 'x', 100);
	CHECK_EQ(do_write(&ring, w, buf, 100, 0), 50);
	CHECK_EQ(fstat(w, &st), 0);
	CHECK_EQ(st.st_size, 50);
	io_uring_queue_exit(&ring);
}

static void c_links(void)
{
	static unsigned char buf[64];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int fd, c;

	use_faults("op=fsync,err=EIO;op=read,path=*/l.dat,err=EIO;op=close,err=EIO");
	make_file("l.dat");
	fd = open_file("l.dat", O_RDWR);
	ring_user(&ring);
	/* FSYNC's own errors do not break a chain in the kernel: nor injected ones */
	sqe = sqe_get(&ring, 1);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_nop(sqe_get(&ring, 2));
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK_EQ(wait_ud(&ring, 1), -EIO);
	CHECK_EQ(wait_ud(&ring, 2), 0);
	/* a read's own errors do break it: so do injected ones */
	sqe = sqe_get(&ring, 3);
	io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_nop(sqe_get(&ring, 4));
	CHECK_EQ(io_uring_submit(&ring), 2);
	CHECK_EQ(wait_ud(&ring, 3), -EIO);
	CHECK_EQ(wait_ud(&ring, 4), -ECANCELED);
	/* CLOSE reports the error and the fd is gone, as close(2) */
	c = dup(fd);
	CHECK(c >= 0);
	io_uring_prep_close(sqe_get(&ring, 5), c);
	CHECK_EQ(submit1(&ring, 5), -EIO);
	CHECK(fcntl(c, F_GETFD) < 0 && errno == EBADF);
	io_uring_queue_exit(&ring);
}

/* NOP and a read work: no rule applied */
static void c_no_faults(void)
{
	static unsigned char buf[64];
	struct io_uring ring;
	int fd;

	make_file("plain.dat");
	fd = open_file("plain.dat", O_RDONLY);
	ring_user(&ring);
	CHECK_EQ(do_nop(&ring), 0);
	CHECK_EQ(do_read(&ring, fd, buf, sizeof(buf), 0), (int)sizeof(buf));
	CHECK_EQ(do_nop(&ring), 0);
	io_uring_queue_exit(&ring);
}

static void c_good_syntax(void)
{
	struct io_uring ring;

	use_faults(" op = NOP | fsync , err = eio , every = 2 ; ");
	ring_user(&ring);
	CHECK_EQ(do_nop(&ring), 0);
	CHECK_EQ(do_nop(&ring), -EIO);
	CHECK_EQ(do_nop(&ring), 0);
	CHECK_EQ(do_nop(&ring), -EIO);
	io_uring_queue_exit(&ring);
}

static void c_debug(void)
{
	struct io_uring ring;

	use_faults("op=nop,every=2,err=5");
	ring_user(&ring);
	for (int i = 1; i <= 20; i++)
		CHECK_EQ(do_nop(&ring), i % 2 ? 0 : -EIO);
	io_uring_queue_exit(&ring);
}

static void c_kernel(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	int ret;

	use_faults("op=nop,err=EIO");
	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine("kernel", 8, &ring, &p);
	if (ret)
		exit(T_SKIP);	/* no io_uring here */
	CHECK_EQ(do_nop(&ring), 0);
	io_uring_queue_exit(&ring);
}

static void c_sqpoll(void)
{
	struct io_uring ring;

	use_faults("op=nop,nth=2,err=EIO");
	ring_on("user", &ring, IORING_SETUP_SQPOLL);
	CHECK_EQ(do_nop(&ring), 0);
	CHECK_EQ(do_nop(&ring), -EIO);
	CHECK_EQ(do_nop(&ring), 0);
	io_uring_queue_exit(&ring);
}

/* ---- the parent ---- */

static char child_err[8192];

/* run fn in a child with ANYRING_DEBUG as given; its exit status, stderr in child_err */
static int run_child(const char *name, void (*fn)(void), bool debug)
{
	char path[256];
	int status, fd;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/stderr.%s", dir, name);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(1);
		unsetenv("ANYRING_FAULTS");
		if (debug)
			setenv("ANYRING_DEBUG", "1", 1);
		else
			unsetenv("ANYRING_DEBUG");
		fn();
		exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	n = read(fd, child_err, sizeof(child_err) - 1);
	close(fd);
	child_err[n > 0 ? n : 0] = '\0';
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void run_case(const char *name, void (*fn)(void), bool debug)
{
	int st = run_child(name, fn, debug);

	if (st == T_SKIP) {
		printf("  %s: skipped\n", name);
		return;
	}
	if (st) {
		fprintf(stderr, "case %s failed (status %d), its stderr:\n%s", name,
			st, child_err);
		exit(1);
	}
	printf("  %s: ok\n", name);
}

static unsigned count_lines(const char *s, const char *needle)
{
	unsigned n = 0;

	for (const char *l = s; *l; ) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (memmem(l, len, needle, strlen(needle)))
			n++;
		l += len + (e ? 1 : 0);
	}
	return n;
}

static const char *bad_strings[] = {
	"op=bogus,err=EIO",
	"op=read",
	"op=read,err=EFOO",
	"op=read,err=0",
	"nth=0,err=EIO",
	"every=x,err=EIO",
	"rate=2,err=EIO",
	"rate=0,err=EIO",
	"rate=0.5,nth=2,err=EIO",
	"err=EIO,delay=5ms",
	"op=fsync,short=half",
	"op=readv,short=10",
	"delay=5,op=nop",
	"op=read,,err=EIO",
	"op=read,err=EIO,err=EIO",
	"fd=1,fixed=1,err=EIO",
	"fd=-1,err=EIO",
	"seed=3,err=EIO",
	"op=sendfile,err=EIO",
	"op=link_timeout,err=EIO",
	"op=read|,err=EIO",
	"op=read,colour=red,err=EIO",
	"op=read err=EIO",
	"path=,err=EIO",
};

static const char *bad_current;

static void c_bad(void)
{
	/* a good rule first: it must not apply either */
	use_faults("op=nop|read,err=EIO;%s", bad_current);
	c_no_faults();
}

static void t_bad_syntax(void)
{
	for (unsigned i = 0; i < sizeof(bad_strings) / sizeof(bad_strings[0]); i++) {
		bad_current = bad_strings[i];
		if (run_child("bad", c_bad, false)) {
			fprintf(stderr, "bad string \"%s\": the child failed:\n%s",
				bad_current, child_err);
			exit(1);
		}
		if (count_lines(child_err, "") != 1 ||
		    count_lines(child_err, "ANYRING_FAULTS: rule 2") != 1 ||
		    !strstr(child_err, "no fault rule applied")) {
			fprintf(stderr, "bad string \"%s\": want one line on stderr, got:\n%s",
				bad_current, child_err);
			exit(1);
		}
	}
	printf("  bad syntax (%u strings): ok\n",
	       (unsigned)(sizeof(bad_strings) / sizeof(bad_strings[0])));
}

static void t_rate(void)
{
	unsigned n = 0, diff = 0;

	rate_hits = mmap(NULL, 3 * RATE_OPS, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(rate_hits != MAP_FAILED);
	run_case("rate seed=42", c_rate_seed42, false);
	run_case("rate seed=42 again", c_rate_seed42_again, false);
	run_case("rate seed=43", c_rate_seed43, false);
	CHECK(!memcmp(rate_hits, rate_hits + RATE_OPS, RATE_OPS));
	for (unsigned i = 0; i < RATE_OPS; i++) {
		n += rate_hits[i];
		diff += rate_hits[i] != rate_hits[2 * RATE_OPS + i];
	}
	/* 1000 expected, standard deviation 30: a bound no fair draw leaves */
	if (n < 800 || n > 1200) {
		fprintf(stderr, "rate=0.1 over %d ops: %u injected\n", RATE_OPS, n);
		exit(1);
	}
	CHECK(diff > 0);
	printf("  rate: %u of %d, same with the same seed, %u differ with another\n",
	       n, RATE_OPS, diff);
}

static void t_debug(void)
{
	run_case("debug", c_debug, true);
	if (!count_lines(child_err, "fault: rule 1 \"op=nop,every=2,err=5\": NOP") ||
	    !strstr(child_err, "20 matched, 10 injected")) {
		fprintf(stderr, "ANYRING_DEBUG lines missing:\n%s", child_err);
		exit(1);
	}
	/* injections logged: the first 5, then powers of 2 (8) */
	CHECK_EQ(count_lines(child_err, "(match "), 6);
}

int main(void)
{
	strcpy(dir, "/tmp/anyring-faults.XXXXXX");
	CHECK(mkdtemp(dir));
	printf("faults, in %s\n", dir);
	run_case("glob EIO", c_glob_eio, false);
	run_case("counts", c_counts, false);
	t_rate();
	run_case("delay", c_delay, false);
	run_case("delay at exit", c_delay_exit, false);
	run_case("short", c_short, false);
	run_case("links", c_links, false);
	run_case("good syntax", c_good_syntax, false);
	CHECK(!child_err[0]);
	t_bad_syntax();
	t_debug();
	run_case("kernel engine", c_kernel, false);
	run_case("sqpoll", c_sqpoll, false);
	/* the files are left for a look on failure; removed on success */
	CHECK_EQ(system((strcat(strcpy(child_err, "rm -rf "), dir), child_err)), 0);
	return 0;
}
