/* SPDX-License-Identifier: MIT */
/*
 * fuzz_run.c - one run of a batch on one engine: a fresh temp dir with the
 * same files, a pipe holding FZ_PIPE_FILL bytes, the arena and the
 * bad-pointer pool refilled, a fresh ring; queue and submit (a chunk per
 * SQ size), reap with a bounded wait, record what the run left (CQEs, the
 * temp dir's tree, the harness files, the pipe, the arena, the pool's
 * straddle pages), exit the ring, close the fds OPENAT returned and count
 * any other fd the run left open (not closing it: it is the engine's).
 * A batch whose config says so (fuzz.h struct fz_cfg fork) is queued,
 * submitted, reaped and recorded in a forked child, on the ring and
 * registered files its parent made, as a PostgreSQL backend uses the ring
 * its postmaster made; the parent exits the ring once the child is gone.
 * The child registers the buffers: the kernel's fixed I/O in a child
 * goes to the pages its parent registered, the user engine's to the
 * child's own (docs/semantics.md D2).
 *
 * The reap waits for events only. Every request posts its one CQE
 * (fuzz_order.c takes IOSQE_CQE_SKIP_SUCCESS off wherever the harness
 * could not see a request end), counted by user_data, except those of
 * chains that end within their submit and may skip theirs. A read that
 * may wait on the empty pipe ("park", fuzz_order.c rule 4) is cancelled
 * by its user_data (IORING_REGISTER_SYNC_CANCEL) once the writes that may
 * still fill the pipe for it have posted and the pipe is empty; where it
 * was not waiting yet, the cancel misses and is made again. Only a run
 * whose CQEs have not all come FZ_HANG_SEC after the submit stops
 * waiting, and fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <linux/openat2.h>
#include "anyring.h"
#include "fuzz.h"

#define FZ_BAD_FD	9999
#define FZ_FD_BITS	65536

struct env {
	char dir[256];
	int dirfd;
	int fd[FZ_NR_ALL_FDS];
	unsigned char *arena;
	struct iovec *iov;
	struct iovec reg_iov[2];
	struct io_uring_buf_ring *pbr;	/* the incremental ring (a page) */
	struct __kernel_timespec ts[FZ_NTS];
	struct statx stx[FZ_MAX_SQES];
	int fu[FZ_MAX_SQES][4];
	struct open_how how[FZ_MAX_SQES];
	struct iovec *bad_iov[FZ_MAX_SQES];	/* a copy, one base bad */
	unsigned char pre_fds[FZ_FD_BITS / 8];	/* open before the ring */
};

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, strerror(errno));
	abort();
}

uint64_t fz_hash(const void *p, size_t len, uint64_t h)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

static void pattern(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)('a' + (i * 7 + seed) % 26);
}

static void make_file(struct env *e, const char *name, size_t len,
		      unsigned seed)
{
	char buf[8192];
	int fd = openat(e->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			0644);

	if (fd < 0)
		die(name);
	pattern(buf, len, seed);
	if (len && write(fd, buf, len) != (ssize_t)len)
		die(name);
	close(fd);
}

/* the bitmap of open fds */
static void scan_fds(unsigned char *bits)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	memset(bits, 0, FZ_FD_BITS / 8);
	if (!d)
		die("/proc/self/fd");
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(d) || fd >= FZ_FD_BITS)
			continue;
		bits[fd / 8] |= 1 << (fd % 8);
	}
	closedir(d);
}

static int bit(const unsigned char *bits, int fd)
{
	return fd >= 0 && fd < FZ_FD_BITS && (bits[fd / 8] & (1 << (fd % 8)));
}

/* the bytes a write of the batch may put in the pipe, at most */
static size_t write_max(const struct env *e, const struct fz_sqe *s)
{
	size_t n = 0;
	int k;

	if (s->nopped)
		return 0;
	switch (s->op) {
	case FZ_WRITE:
	case FZ_WRITE_FIXED:
		return s->len;
	case FZ_SPLICE:
		/* pages moved from a file: up to two pipe buffers each */
		return 2 * FZ_BUFSZ;
	case FZ_WRITEV:
		if (s->nr > 1024)
			return 0;	/* over UIO_MAXIOV: -EINVAL */
		for (k = s->iov; k < s->iov + s->nr; k++)
			n += e->iov[k].iov_len;
		return n;
	default:
		return 0;
	}
}

/*
 * A pipe large enough for every write of the batch on top of its fill:
 * no write ever waits for room, so only reads wait on the pipe.
 */
static void size_pipe(struct env *e, const struct fz_batch *b)
{
	size_t need = FZ_PIPE_FILL;
	unsigned i;
	int size;

	for (i = 0; i < b->nr; i++)
		need += write_max(e, &b->sqe[i]);
	size = fcntl(e->fd[FZ_FD_PIPE_W], F_GETPIPE_SZ);
	if (size >= 0 && (size_t)size >= need)
		return;
	size = fcntl(e->fd[FZ_FD_PIPE_W], F_SETPIPE_SZ, (int)need);
	if (size < 0 || (size_t)size < need)
		die("F_SETPIPE_SZ (see /proc/sys/fs/pipe-max-size)");
}

/*
 * The arena and the iovec table are made once and serve every run: the
 * addresses in the memory a request points at (an iovec array, also
 * when fuzz_bad.c copies it into the bad-pointer pool) are then the same
 * on both engines. Each run starts with the same bytes in the arena.
 */
static void arena_init(struct env *e)
{
	static unsigned char *arena;
	static struct iovec *iov;
	int i;

	if (!arena) {
		if (posix_memalign((void **)&arena, 4096, FZ_ARENA))
			die("arena");
		iov = calloc(FZ_NIOV, sizeof(*iov));
		if (!iov)
			die("iov");
		for (i = 0; i < FZ_NIOV; i++) {
			iov[i].iov_base = arena + (i % FZ_NBUF) * FZ_BUFSZ +
				((i / FZ_NBUF) % 32) * 128;
			iov[i].iov_len = 16 + (i % 8) * 8;
		}
	}
	pattern(arena, FZ_ARENA, 9);
	e->arena = arena;
	e->iov = iov;
}

static void env_init(struct env *e)
{
	const char *tmp = getenv("TMPDIR");
	int p[2];
	char fill[FZ_PIPE_FILL];

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(e->dir, sizeof(e->dir), "%s/anyring-fuzz-XXXXXX", tmp);
	if (!mkdtemp(e->dir))
		die("mkdtemp");
	e->dirfd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->dirfd < 0)
		die(e->dir);
	make_file(e, "f0", 8192, 1);
	make_file(e, "f1", 100, 2);
	make_file(e, "f2", 0, 3);
	if (mkdirat(e->dirfd, "d", 0755))
		die("mkdir d");
	make_file(e, "d/x", 10, 4);
	e->fd[FZ_FD_F0] = openat(e->dirfd, "f0", O_RDWR | O_CLOEXEC);
	e->fd[FZ_FD_F1] = openat(e->dirfd, "f1", O_RDWR | O_CLOEXEC);
	e->fd[FZ_FD_F2] = openat(e->dirfd, "f2", O_RDWR | O_CLOEXEC);
	if (e->fd[FZ_FD_F0] < 0 || e->fd[FZ_FD_F1] < 0 || e->fd[FZ_FD_F2] < 0)
		die("open f0..f2");
	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	pattern(fill, sizeof(fill), 5);
	if (write(p[1], fill, sizeof(fill)) != (ssize_t)sizeof(fill))
		die("fill pipe");
	e->fd[FZ_FD_PIPE_R] = p[0];
	e->fd[FZ_FD_PIPE_W] = p[1];
	e->fd[FZ_FD_DIR] = e->dirfd;
	e->fd[FZ_FD_NEG] = -1;
	e->fd[FZ_FD_BAD] = FZ_BAD_FD;
	fz_net_open(e->fd);
	if (fcntl(FZ_BAD_FD, F_GETFD) != -1) {
		fprintf(stderr, "fuzz: fd %d is open, it must not be\n",
			FZ_BAD_FD);
		abort();
	}

	arena_init(e);
	e->pbr = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->pbr == MAP_FAILED)
		die("mmap buffer ring");
	e->reg_iov[0].iov_base = e->arena + 4 * FZ_BUFSZ;
	e->reg_iov[0].iov_len = 2 * FZ_BUFSZ;
	e->reg_iov[1].iov_base = e->arena + 6 * FZ_BUFSZ;
	e->reg_iov[1].iov_len = FZ_BUFSZ;
	/*
	 * 0, 1 ms, 2 ms, tv_nsec over a second (the kernel takes it: 1.5 s),
	 * invalid (negative)
	 */
	e->ts[0].tv_nsec = 0;
	e->ts[1].tv_nsec = 1000000;
	e->ts[2].tv_nsec = 2000000;
	e->ts[3].tv_nsec = 1500000000;
	e->ts[4].tv_sec = -1;
	fz_pool_reset();
	scan_fds(e->pre_fds);
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void env_fini(struct env *e)
{
	int i;

	for (i = FZ_FD_F0; i <= FZ_FD_PIPE_W; i++)
		close(e->fd[i]);
	fz_net_close(e->fd);
	close(e->dirfd);
	munmap(e->pbr, 4096);
	for (i = 0; i < FZ_MAX_SQES; i++)
		free(e->bad_iov[i]);
	nftw(e->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *name(int k)
{
	return fz_names[k];
}

/*
 * Group FZ_INC_GROUP: an incremental buffer ring (IOU_PBUF_RING_INC),
 * its buffers filled in; the registration's result
 */
static int register_inc_ring(struct io_uring *ring, struct env *e)
{
	struct {
		__u64 ring_addr;
		__u32 ring_entries;
		__u16 bgid, flags;
		__u32 min_left, resv[5];
	} reg;
	unsigned i;
	int ret;

	memset(&reg, 0, sizeof(reg));
	io_uring_buf_ring_init(e->pbr);
	reg.ring_addr = (unsigned long)e->pbr;
	reg.ring_entries = FZ_INC_NR;
	reg.bgid = FZ_INC_GROUP;
	reg.flags = 2;		/* IOU_PBUF_RING_INC */
	ret = io_uring_register(ring->ring_fd, IORING_REGISTER_PBUF_RING, &reg, 1);
	for (i = 0; i < FZ_INC_NR; i++)
		io_uring_buf_ring_add(e->pbr, e->arena + 7 * FZ_BUFSZ + FZ_INC_OFF +
				      i * FZ_INC_BSZ, FZ_INC_BSZ, (unsigned short)i,
				      io_uring_buf_ring_mask(FZ_INC_NR), (int)i);
	io_uring_buf_ring_advance(e->pbr, FZ_INC_NR);
	return ret;
}

/* an fd of the run, or the slot number itself for a fixed file */
static int fd_of(const struct env *e, const struct fz_sqe *s, int fd)
{
	if (s->flags & IOSQE_FIXED_FILE)
		return fd;
	return e->fd[fd];
}

static struct __kernel_timespec *ts_of(struct env *e, int i)
{
	return i < FZ_NTS ? &e->ts[i] : NULL;
}


/* SQE i's object good (size bytes), or its bad form if the decoder chose */
static void *obj(const struct fz_sqe *s, unsigned i, int field, void *good,
		 size_t size)
{
	if (!s->bad || s->bad_field != field)
		return good;
	return fz_bad_ptr(s->bad, i, good, size);
}

static const char *path(const struct fz_sqe *s, unsigned i, int field,
			const char *good)
{
	if (!s->bad || s->bad_field != field)
		return good;
	return fz_bad_path(s->bad, i, good);
}

/*
 * What a bad data buffer holds where it can be read: the arena's first
 * bytes (what the arena holds now depends on when earlier requests ended)
 */
static const void *first_bytes(void)
{
	static unsigned char first[FZ_ARENA];
	static int ready;

	if (!ready) {
		pattern(first, sizeof(first), 9);
		ready = 1;
	}
	return first;
}

/* a data buffer of s->len bytes (at most FZ_ARENA), or its bad form */
static void *data(const struct fz_sqe *s, unsigned i, void *good)
{
	if (!s->bad)
		return good;
	return fz_bad_ptr(s->bad, i, first_bytes(), s->len);
}

/* SQE i's timespec, or its bad form */
static struct __kernel_timespec *ts_sqe(struct env *e, const struct fz_sqe *s,
					unsigned i)
{
	return obj(s, i, FZ_BF_BUF, ts_of(e, s->ts),
		   sizeof(struct __kernel_timespec));
}

/* the iovec array of a READV/WRITEV: its bad form, or one base bad */
static struct iovec *iovecs(struct env *e, const struct fz_sqe *s,
			    unsigned i)
{
	struct iovec *iov = e->iov + s->iov, *copy;

	if (!s->bad)
		return iov;
	if (s->bad_field != FZ_BF_SECOND)
		return fz_bad_ptr(s->bad, i, iov, s->nr * sizeof(*iov));
	copy = malloc(s->nr * sizeof(*copy));
	if (!copy)
		die("iovec copy");
	memcpy(copy, iov, s->nr * sizeof(*copy));
	copy[s->bad_iov].iov_base = fz_bad_ptr(s->bad, i, first_bytes(),
					       copy[s->bad_iov].iov_len);
	e->bad_iov[i] = copy;
	return copy;
}

static void prep_rw(struct env *e, const struct fz_sqe *s, unsigned i,
		    struct io_uring_sqe *sqe)
{
	int fd = fd_of(e, s, s->fd);
	void *buf = s->buf < 0 ? NULL : e->arena + s->buf * FZ_BUFSZ + s->boff;

	switch (s->op) {
	case FZ_READ:
		io_uring_prep_read(sqe, fd, data(s, i, buf), s->len, s->off);
		break;
	case FZ_WRITE:
		io_uring_prep_write(sqe, fd, data(s, i, buf), s->len, s->off);
		break;
	case FZ_READV:
		io_uring_prep_readv(sqe, fd, iovecs(e, s, i), s->nr, s->off);
		break;
	case FZ_WRITEV:
		io_uring_prep_writev(sqe, fd, iovecs(e, s, i), s->nr, s->off);
		break;
	case FZ_READ_FIXED:
		io_uring_prep_read_fixed(sqe, fd,
					 data(s, i, e->arena + s->boff),
					 s->len, s->off, s->nr);
		break;
	default:
		io_uring_prep_write_fixed(sqe, fd,
					  data(s, i, e->arena + s->boff),
					  s->len, s->off, s->nr);
		break;
	}
	sqe->rw_flags = s->op_flags;
}

/* OPENAT as OPENAT2: the same flags and mode in an open_how */
static void prep_openat2(struct env *e, const struct fz_sqe *s, unsigned i,
			 const char *p1, struct io_uring_sqe *sqe)
{
	struct open_how *how = &e->how[i];

	memset(how, 0, sizeof(*how));
	how->flags = s->op_flags;
	how->mode = s->mode;
	how = obj(s, i, FZ_BF_SECOND, how, sizeof(*how));
	if (s->slot == -1)
		io_uring_prep_openat2(sqe, e->fd[s->fd], p1, how);
	else
		io_uring_prep_openat2_direct(sqe, e->fd[s->fd], p1, how,
			s->slot == -2 ? IORING_FILE_INDEX_ALLOC :
			(unsigned)s->slot);
	/* a bad how's size is still that of the struct */
	sqe->len = sizeof(struct open_how);
}

static void prep_fs(struct env *e, const struct fz_sqe *s, unsigned i,
		    struct io_uring_sqe *sqe)
{
	int dfd = e->fd[s->fd], dfd2 = e->fd[s->fd2];
	const char *p1 = path(s, i, FZ_BF_BUF, name(s->name));
	const char *p2 = path(s, i, FZ_BF_SECOND, name(s->name2));

	switch (s->op) {
	case FZ_STATX:
		io_uring_prep_statx(sqe, dfd, p1, s->op_flags, s->mode,
				    obj(s, i, FZ_BF_SECOND, &e->stx[i],
					sizeof(e->stx[i])));
		break;
	case FZ_OPENAT:
		if (s->openat2) {
			prep_openat2(e, s, i, p1, sqe);
			break;
		}
		if (s->slot == -1)
			io_uring_prep_openat(sqe, dfd, p1, s->op_flags, s->mode);
		else
			io_uring_prep_openat_direct(sqe, dfd, p1,
				s->op_flags, s->mode, s->slot == -2 ?
				IORING_FILE_INDEX_ALLOC : (unsigned)s->slot);
		break;
	case FZ_MKDIRAT:
		io_uring_prep_mkdirat(sqe, dfd, p1, s->mode);
		break;
	case FZ_UNLINKAT:
		io_uring_prep_unlinkat(sqe, dfd, p1, s->op_flags);
		break;
	case FZ_RENAMEAT:
		io_uring_prep_renameat(sqe, dfd, p1, dfd2, p2, s->op_flags);
		break;
	case FZ_LINKAT:
		io_uring_prep_linkat(sqe, dfd, p1, dfd2, p2, s->op_flags);
		break;
	default:
		io_uring_prep_symlinkat(sqe,
			path(s, i, FZ_BF_BUF, fz_link_targets[s->name2]), dfd,
			path(s, i, FZ_BF_SECOND, name(s->name)));
		break;
	}
}

static void prep_other(struct env *e, const struct fz_sqe *s, unsigned i,
		       struct io_uring_sqe *sqe)
{
	int k;

	switch (s->op) {
	case FZ_FSYNC:
		io_uring_prep_fsync(sqe, fd_of(e, s, s->fd), s->op_flags);
		sqe->off = s->off;
		sqe->len = s->len;
		break;
	case FZ_FALLOCATE:
		io_uring_prep_fallocate(sqe, fd_of(e, s, s->fd), s->mode,
					s->off, s->len);
		break;
	case FZ_FADVISE:
		io_uring_prep_fadvise(sqe, fd_of(e, s, s->fd), s->off, s->len,
				      s->op_flags);
		break;
	case FZ_CLOSE:
		io_uring_prep_close_direct(sqe, s->slot);
		break;
	case FZ_TIMEOUT:
		io_uring_prep_timeout(sqe, ts_sqe(e, s, i), s->count,
				      s->op_flags);
		break;
	case FZ_TIMEOUT_REMOVE:
		if (s->op_flags & IORING_TIMEOUT_UPDATE_MASK)
			io_uring_prep_timeout_update(sqe, ts_sqe(e, s, i),
						     s->target, s->op_flags);
		else
			io_uring_prep_timeout_remove(sqe, s->target,
						     s->op_flags);
		break;
	case FZ_LINK_TIMEOUT:
		io_uring_prep_link_timeout(sqe, ts_sqe(e, s, i), s->op_flags);
		break;
	case FZ_ASYNC_CANCEL:
		io_uring_prep_cancel64(sqe, s->target, s->op_flags);
		if (s->op_flags & IORING_ASYNC_CANCEL_FD)
			sqe->fd = s->op_flags & IORING_ASYNC_CANCEL_FD_FIXED ?
				s->fd : e->fd[s->fd];
		break;
	case FZ_FILES_UPDATE:
		for (k = 0; k < 4; k++)
			e->fu[i][k] = s->fu[k] == 8 ? IORING_REGISTER_FILES_SKIP :
				e->fd[s->fu[k]];
		io_uring_prep_files_update(sqe, obj(s, i, FZ_BF_BUF, e->fu[i],
					   s->nr * sizeof(int)), s->nr, s->slot == -2 ?
					   (int)IORING_FILE_INDEX_ALLOC : s->slot);
		break;
	case FZ_INVALID:
		io_uring_prep_nop(sqe);
		sqe->opcode = 255;
		break;
	default:
		io_uring_prep_nop(sqe);
		break;
	}
}

static void poke(const struct fz_sqe *s, struct io_uring_sqe *sqe)
{
	uint32_t v = s->poke_val;

	switch (s->poke) {
	case FZ_POKE_IOPRIO:
		sqe->ioprio = v;
		break;
	case FZ_POKE_PERSONALITY:
		sqe->personality = v;
		break;
	case FZ_POKE_BUF_INDEX:
		sqe->buf_index = v;
		break;
	case FZ_POKE_FILE_INDEX:
		sqe->file_index = v;
		break;
	case FZ_POKE_LEN:
		sqe->len = v;
		break;
	case FZ_POKE_OFF:
		sqe->off = v;
		break;
	case FZ_POKE_RW_FLAGS:
		/* bit 0 is IORING_NOP_INJECT_RESULT, the others unknown */
		sqe->rw_flags = v & 1 ? 1 : 1U << (16 + v % 15);
		break;
	default:
		break;
	}
}

static void prep(struct env *e, const struct fz_sqe *s, unsigned i,
		 struct io_uring_sqe *sqe)
{
	if (s->nopped)
		io_uring_prep_nop(sqe);
	else if (fz_is_net(s))
		fz_net_prep(s, i, e->fd, e->arena, sqe);
	else if (s->op >= FZ_READ && s->op <= FZ_WRITE_FIXED)
		prep_rw(e, s, i, sqe);
	else if (s->op == FZ_STATX || s->op == FZ_OPENAT ||
		 (s->op >= FZ_MKDIRAT && s->op <= FZ_LINKAT))
		prep_fs(e, s, i, sqe);
	else
		prep_other(e, s, i, sqe);
	sqe->flags = s->flags;
	io_uring_sqe_set_data64(sqe, s->ud);
	if (!s->nopped)
		poke(s, sqe);
}

/* submit until the SQ is empty; 0, or -1 when a submit failed */
static int submit_all(struct io_uring *ring, struct fz_result *r)
{
	while (io_uring_sq_ready(ring)) {
		int ret = io_uring_submit(ring);

		if (r->nr_submit < FZ_MAX_SUBMITS)
			r->submit[r->nr_submit++] = ret;
		if (ret <= 0)
			return -1;
	}
	return 0;
}

/* what the reap waits for; user_data are 1..FZ_MAX_SQES */
struct reap {
	unsigned consumed;			/* SQEs the submits took */
	unsigned need[FZ_MAX_SQES + 1];		/* CQEs to come, by user_data */
	unsigned got[FZ_MAX_SQES + 1];		/* CQEs that came */
	unsigned more[FZ_MAX_SQES + 1];		/* CQEs with MORE not yet followed */
};

static void take(struct io_uring *ring, struct io_uring_cqe *cqe,
		 struct reap *rp, struct fz_result *r)
{
	if (r->nr_cqe < FZ_MAX_CQES) {
		r->cqe[r->nr_cqe].user_data = cqe->user_data;
		r->cqe[r->nr_cqe].res = cqe->res;
		r->cqe[r->nr_cqe].flags = cqe->flags;
	}
	r->nr_cqe++;
	if (cqe->user_data && cqe->user_data <= FZ_MAX_SQES) {
		unsigned ud = (unsigned)cqe->user_data;

		/*
		 * A zero-copy send's notification is not a request's CQE:
		 * it never counts. One a CQE with MORE announced takes back
		 * the CQE that MORE asked for; one no MORE announced (its
		 * request failed before the send, as a broken link cancels
		 * it) is not another request's of the same user_data.
		 */
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			if (rp->more[ud]) {
				rp->more[ud]--;
				rp->need[ud]--;
			}
			goto seen;
		}
		rp->got[ud]++;
		/* a bundle, a zero-copy send: another CQE of it is to come */
		if (cqe->flags & IORING_CQE_F_MORE) {
			rp->need[ud]++;
			rp->more[ud]++;
		}
	}
seen:
	io_uring_cqe_seen(ring, cqe);
}

/* CQEs still to come */
static unsigned missing(const struct reap *rp)
{
	unsigned ud, n = 0;

	for (ud = 1; ud <= FZ_MAX_SQES; ud++)
		if (rp->got[ud] < rp->need[ud])
			n += rp->need[ud] - rp->got[ud];
	return n;
}

/*
 * Run the task work queued so far, a round at a time: a request a
 * completion lets go (the next of a chain) may queue the next one.
 */
static void settle(struct io_uring *ring)
{
	unsigned i;

	for (i = 0; i < 2 * FZ_MAX_SQES; i++)
		io_uring_get_events(ring);
}

/* park i has not ended and nothing may fill the pipe for it any more */
static int cancellable(const struct fz_batch *b, const struct reap *rp,
		       unsigned i)
{
	const struct fz_sqe *s = &b->sqe[i];
	unsigned j;

	if (!s->park || i >= rp->consumed || rp->got[s->ud])
		return 0;
	for (j = 0; j < rp->consumed; j++)
		if ((s->feeders & (1U << j)) && !b->sqe[j].uncounted &&
		    rp->got[b->sqe[j].ud] < rp->need[b->sqe[j].ud])
			return 0;
	return 1;
}

/*
 * Cancel the parks that can be, by IORING_REGISTER_SYNC_CANCEL: not a
 * request, so neither a drain nor a count-based TIMEOUT of the batch
 * sees it. Only while the pipe is empty: bytes there go to a read that
 * waits (woken, it reads them) or is still to be issued, and its CQE
 * comes without help. Returns how many were not waiting on the pipe yet
 * (the cancel found nothing), or a register error other than that.
 */
static int cancel_parks(struct io_uring *ring, const struct fz_batch *b,
			struct reap *rp, struct fz_result *r, int pipe_r)
{
	unsigned i;
	int missed = 0, bytes;

	for (i = 0; i < b->nr; i++) {
		struct io_uring_sync_cancel_reg reg;
		int ret;

		if (!cancellable(b, rp, i))
			continue;
		/* what a completion let go is issued first */
		io_uring_get_events(ring);
		if (ioctl(pipe_r, FIONREAD, &bytes))
			return -errno;
		if (bytes)
			return 0;
		memset(&reg, 0, sizeof(reg));
		reg.addr = b->sqe[i].ud;
		reg.fd = -1;
		reg.timeout.tv_sec = -1;
		reg.timeout.tv_nsec = -1;
		ret = io_uring_register_sync_cancel(ring, &reg);
		if (!ret)
			r->cancels++;
		else if (ret == -ENOENT || ret == -EALREADY)
			missed++;
		else
			return ret;
	}
	return missed;
}

/*
 * The registered wait region of a wait_reg batch (fuzz.h): one page of
 * struct io_uring_reg_wait, the harness's waits use entry 0. Both
 * engines' rings use it in turn.
 */
struct reg_wait {			/* struct io_uring_reg_wait (6.13) */
	struct __kernel_timespec ts;
	__u32 min_wait_usec, flags;
	__u64 sigmask;
	__u32 sigmask_sz, pad[3];
	__u64 pad2[2];
};

#define REG_WAIT_TS		1U	/* IORING_REG_WAIT_TS */
#define REGISTER_MEM_REGION	34	/* IORING_REGISTER_MEM_REGION */

/* liburing 2.10's; declared here for older headers */
int io_uring_submit_and_wait_reg(struct io_uring *ring,
				 struct io_uring_cqe **cqe_ptr,
				 unsigned wait_nr, int reg_index);

static struct reg_wait wait_region[4096 / sizeof(struct reg_wait)]
	__attribute__((aligned(4096)));

/* struct io_uring_mem_region_reg and struct io_uring_region_desc (6.13) */
struct region_desc {
	__u64 user_addr, size;
	__u32 flags, id;
	__u64 mmap_offset, resv[4];
};

static int register_wait_region(struct io_uring *ring)
{
	struct region_desc rd = { .user_addr = (uintptr_t)wait_region,
				  .size = sizeof(wait_region), .flags = 1 };
	__u64 mr[4] = { (uintptr_t)&rd, 1 /* REG_WAIT_ARG */, 0, 0 };
	int ret;

	ret = io_uring_register(ring->ring_fd, REGISTER_MEM_REGION, mr, 1);
	return ret ? ret : io_uring_enable_rings(ring);
}

/* a wait for one CQE, at most ts: io_uring_wait_cqe_timeout()'s answers */
static int wait_one(struct io_uring *ring, const struct fz_batch *b,
		    struct io_uring_cqe **cqe, struct __kernel_timespec *ts)
{
	int ret;

	if (!b->cfg.wait_reg)
		return io_uring_wait_cqe_timeout(ring, cqe, ts);
	memset(&wait_region[0], 0, sizeof(wait_region[0]));
	wait_region[0].ts = *ts;
	wait_region[0].flags = REG_WAIT_TS;
	ret = io_uring_submit_and_wait_reg(ring, cqe, 1, 0);
	return ret > 0 ? 0 : ret;	/* a count submitted */
}

static void reap(struct io_uring *ring, const struct fz_batch *b,
		 struct fz_result *r, int pipe_r)
{
	long long end = now_us() + FZ_HANG_SEC * 1000000LL;
	struct io_uring_cqe *cqe;
	struct reap rp;
	unsigned i;

	memset(&rp, 0, sizeof(rp));
	for (i = 0; i < r->nr_submit; i++)
		if (r->submit[i] > 0)
			rp.consumed += r->submit[i];
	for (i = 0; i < rp.consumed && i < b->nr; i++)
		if (!b->sqe[i].uncounted)
			rp.need[b->sqe[i].ud]++;
	settle(ring);

	while (missing(&rp)) {
		long long left = end - now_us();
		struct __kernel_timespec ts;
		int ret;

		if (left <= 0) {
			r->hung = 1;
			r->missing = missing(&rp);
			break;
		}
		ret = cancel_parks(ring, b, &rp, r, pipe_r);
		if (ret < 0) {
			r->reap_err = ret;
			return;
		}
		if (ret) {
			/* a park not waiting yet: look again, do not sleep */
			sched_yield();
			while (!io_uring_peek_cqe(ring, &cqe) && cqe)
				take(ring, cqe, &rp, r);
			continue;
		}
		ts.tv_sec = left / 1000000;
		ts.tv_nsec = (left % 1000000) * 1000;
		cqe = NULL;
		ret = wait_one(ring, b, &cqe, &ts);
		if (ret == -ETIME || ret == -EINTR)
			continue;
		if (ret < 0 || !cqe) {
			r->reap_err = ret < 0 ? ret : -EFAULT;
			return;
		}
		take(ring, cqe, &rp, r);
	}
	/* the chains that may skip their CQEs end within the settle */
	settle(ring);
	/* an engine posting more CQEs than requests shows here */
	while (!io_uring_peek_cqe(ring, &cqe) && cqe)
		take(ring, cqe, &rp, r);
}

/* nftw has no argument: the snapshot being filled */
static struct fz_result *snap;
static size_t snap_base;

static uint64_t hash_fd(int fd, off_t *size)
{
	unsigned char buf[8192];
	uint64_t h = 0xcbf29ce484222325ULL;
	off_t off = 0;
	ssize_t n;
	struct stat st;

	if (fstat(fd, &st))
		die("fstat");
	*size = st.st_size;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		h = fz_hash(buf, n, h);
		off += n;
	}
	return h;
}

/* the names (in listing order) and values of a file's xattrs */
static uint64_t hash_xattrs(const char *path)
{
	char list[1024], val[256];
	uint64_t h = 0xcbf29ce484222325ULL;
	ssize_t n, v, k;

	n = llistxattr(path, list, sizeof(list));
	if (n < 0)
		return fz_hash(&errno, sizeof(errno), h);
	for (k = 0; k < n; k += strlen(list + k) + 1) {
		h = fz_hash(list + k, strlen(list + k) + 1, h);
		v = lgetxattr(path, list + k, val, sizeof(val));
		h = fz_hash(&v, sizeof(v), h);
		if (v > 0)
			h = fz_hash(val, v, h);
	}
	return h;
}

static int snap_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	struct fz_entry *ent;
	char target[256];
	ssize_t n;
	int fd;

	(void)type;
	(void)ftw;
	if (strlen(path) <= snap_base)
		return 0;	/* the temp dir itself */
	if (snap->nr_ent == FZ_MAX_ENTRIES)
		return 0;
	ent = &snap->ent[snap->nr_ent++];
	memset(ent, 0, sizeof(*ent));
	snprintf(ent->path, sizeof(ent->path), "%s", path + snap_base + 1);
	ent->mode = st->st_mode;
	if (S_ISREG(st->st_mode)) {
		ent->nlink = st->st_nlink;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			die(path);
		ent->hash = hash_fd(fd, &ent->size);
		close(fd);
	} else if (S_ISLNK(st->st_mode)) {
		n = readlink(path, target, sizeof(target));
		ent->hash = fz_hash(target, n > 0 ? n : 0, 1);
	}
	if (!S_ISLNK(st->st_mode))
		ent->xhash = hash_xattrs(path);
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fz_entry *)a)->path,
		      ((const struct fz_entry *)b)->path);
}

static void snapshot(struct env *e, struct fz_result *r)
{
	int i;

	snap = r;
	snap_base = strlen(e->dir);
	nftw(e->dir, snap_one, 16, FTW_PHYS);
	qsort(r->ent, r->nr_ent, sizeof(r->ent[0]), ent_cmp);
	for (i = 0; i < FZ_NR_FILES; i++)
		r->file_hash[i] = hash_fd(e->fd[i], &r->file_size[i]);
	if (ioctl(e->fd[FZ_FD_PIPE_R], FIONREAD, &r->pipe_bytes))
		r->pipe_bytes = -errno;
	r->net_hash = fz_net_hash(e->fd);
	r->arena_hash = fz_hash(e->arena, FZ_ARENA, 0xcbf29ce484222325ULL);
	r->pbuf_hash = fz_hash(e->pbr, FZ_INC_NR * sizeof(struct io_uring_buf),
			       0xcbf29ce484222325ULL);
	r->pool_hash = fz_pool_hash();
}

/*
 * Close the fds OPENAT opened (they name something in the temp dir, even
 * those whose CQE was skipped); count any other new fd without touching
 * it: it belongs to the engine and outlived the ring.
 */
static void fd_cleanup(struct env *e, struct fz_result *r)
{
	static unsigned char now[FZ_FD_BITS / 8];
	char link[32], target[sizeof(e->dir) + 64];
	size_t dlen = strlen(e->dir);
	ssize_t n;
	int fd;

	scan_fds(now);
	for (fd = 0; fd < FZ_FD_BITS; fd++) {
		if (!bit(now, fd) || bit(e->pre_fds, fd))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		if (n > (ssize_t)dlen && !strncmp(target, e->dir, dlen) &&
		    target[dlen] == '/')
			close(fd);
		else if (!strncmp(target, "socket:", 7) ||
			 !strncmp(target, "pipe:", 5))
			close(fd), r->made++;	/* SOCKET, ACCEPT, PIPE */
		else if (!r->extra_fds++)
			snprintf(r->extra_what, sizeof(r->extra_what),
				 "fd %d %s", fd, target);
	}
}

/* queue and submit the batch, reap, and record what the run left */
static void run_batch(struct env *e, const struct fz_batch *b,
		      struct io_uring *ring, struct fz_result *r)
{
	unsigned i;
	int failed = 0;

	for (i = 0; i < b->nr && !failed; i++) {
		struct io_uring_sqe *sqe;

		/* chunks of sq_entries: fuzz_order.c ends chains there */
		if (i && !(i % b->cfg.sq_entries) && submit_all(ring, r)) {
			failed = 1;
			break;
		}
		sqe = io_uring_get_sqe(ring);
		if (!sqe)
			break;
		prep(e, &b->sqe[i], i, sqe);
		r->queued++;
	}
	if (!failed)
		submit_all(ring, r);
	reap(ring, b, r, e->fd[FZ_FD_PIPE_R]);
	snapshot(e, r);
}

/*
 * The batch in a forked child: its requests are issued with its fds and
 * memory (the arena it writes is its copy, hashed there), its result in
 * shared memory. A child that does not exit 0 (a crash) is a wait error.
 */
static void run_forked(struct env *e, const struct fz_batch *b,
		       struct io_uring *ring, struct fz_result *r)
{
	struct fz_result *sh;
	int status;
	pid_t pid;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	*sh = *r;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (b->cfg.reg_bufs) {
			sh->reg_bufs_ret = io_uring_register_buffers(ring, e->reg_iov, 2);
			sh->reg_pbuf_ret = register_inc_ring(ring, e);
		}
		run_batch(e, b, ring, sh);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	*r = *sh;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		r->reap_err = -ECHILD;
	munmap(sh, sizeof(*sh));
}

void fz_run(const struct fz_batch *b, const char *engine,
	    struct fz_result *r)
{
	struct env *e = calloc(1, sizeof(*e));
	struct io_uring_params p;
	struct io_uring ring;
	long long start = now_us();

	memset(r, 0, sizeof(*r));
	r->engine = engine;
	if (!e)
		die("env");
	env_init(e);
	size_pipe(e, b);

	memset(&p, 0, sizeof(p));
	p.flags = b->cfg.setup_flags;
	if (b->cfg.wait_reg)
		p.flags |= IORING_SETUP_R_DISABLED;
	if (b->cfg.cq_entries) {
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = b->cfg.cq_entries;
	}
	r->init_ret = anyring_queue_init_engine(engine, b->cfg.sq_entries,
						&ring, &p);
	if (r->init_ret) {
		snapshot(e, r);
		fd_cleanup(e, r);
		goto out;
	}
	e->fd[FZ_FD_RING] = ring.ring_fd;	/* MSG_RING's target: itself */
	if (b->cfg.reg_files) {
		int files[FZ_NSLOTS] = {
			e->fd[FZ_FD_F0], e->fd[FZ_FD_F1], e->fd[FZ_FD_PIPE_R],
			e->fd[FZ_FD_PIPE_W], -1, -1, -1, -1,
		};

		r->reg_files_ret = io_uring_register_files(&ring, files,
							   FZ_NSLOTS);
	}
	if (b->cfg.issue_inline) {
		struct anyring_policy pol = { .issue = ANYRING_ISSUE_INLINE };

		r->policy_ret = anyring_ring_set_policy(&ring, &pol);
	}
	if (b->cfg.reg_bufs && !b->cfg.fork) {
		r->reg_bufs_ret = io_uring_register_buffers(&ring, e->reg_iov, 2);
		r->reg_pbuf_ret = register_inc_ring(&ring, e);
	}
	if (b->cfg.wait_reg)
		r->wait_reg_ret = register_wait_region(&ring);
	if (b->cfg.fork)
		run_forked(e, b, &ring, r);
	else
		run_batch(e, b, &ring, r);
	io_uring_queue_exit(&ring);
	fd_cleanup(e, r);
out:
	env_fini(e);
	free(e);
	r->usec = now_us() - start;
}
