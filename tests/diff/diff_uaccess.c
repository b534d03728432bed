/* SPDX-License-Identifier: MIT */
/*
 * diff_uaccess.c - the bad-pointer battery: every pointer an SQE, an
 * io_uring_enter() or io_uring_setup() argument carries that the user
 * engine reads or writes itself, given memory that cannot be accessed.
 * Each case is a call case (harness.h, struct diff_call): it runs in a
 * child process per engine, so an engine that crashes fails that case
 * (its signal is compared too) instead of ending the run; the results
 * (CQEs by user_data, call results) are compared with the kernel's.
 *
 * io_uring_register() arguments are in it too: every struct, array and
 * buffer an opcode reads, and what it writes back (probe, io-wq max
 * workers, ring-fd offsets) given read-only memory.
 *
 * The bad pointers: NULL, 1, a PROT_NONE page, an unmapped page, an
 * object straddling the end of a mapped page into an unmapped one, a
 * non-canonical address; for paths also a name running into an unmapped
 * page (no NUL) and one longer than PATH_MAX; for what is written, a
 * read-only page. Each is made right before the call that uses it.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include "harness.h"
#include "compat.h"

#define UA_PAGE		4096UL
#define UA_NONCANON_ADDR	0x8000000000000000UL

enum ua_bad {
	UA_NULL,
	UA_ONE,
	UA_PROT_NONE,
	UA_UNMAPPED,
	UA_STRADDLE,	/* the first half mapped, the rest not; a path: no NUL */
	UA_NONCANON,
	UA_RDONLY,	/* for what the engine writes */
	UA_LONG,	/* a path: PATH_MAX bytes and more without a NUL */
	UA_TAIL,	/* a struct whose last 8 bytes are not mapped */
};

enum ua_op {
	/* SQEs */
	UA_READV, UA_WRITEV, UA_READV_BASE, UA_READV_BADFD, UA_READ_BUF_BADFD,
	UA_TIMEOUT, UA_LINK_TIMEOUT, UA_TIMEOUT_UPDATE,
	UA_OPENAT, UA_OPENAT2_PATH, UA_OPENAT2_HOW, UA_OPENAT2_HOW_TAIL,
	UA_STATX_PATH, UA_STATX_BUF,
	UA_RENAME_OLD, UA_RENAME_NEW, UA_UNLINK, UA_MKDIR,
	UA_SYMLINK_TARGET, UA_SYMLINK_NEW, UA_LINK_OLD, UA_LINK_NEW,
	UA_FILES_UPDATE, UA_FILES_UPDATE_ALLOC,
	UA_FSETXATTR_NAME, UA_FSETXATTR_VALUE, UA_SETXATTR_PATH,
	UA_FGETXATTR_NAME, UA_FGETXATTR_VALUE, UA_GETXATTR_PATH,
	UA_EPOLL_CTL_EVENT, UA_EPOLL_WAIT_EVENTS, UA_PIPE_FDS,
	UA_PIPE_FDS_DIRECT, UA_READV_FIXED_IOV, UA_WRITEV_FIXED_IOV,
	UA_PROVIDE_BUFS, UA_READV_SELECT_IOV,
	UA_RECV_SELECT_BUF, UA_RECVMSG_MSHOT_BUF,
	/* sockets (ops/net.c) */
	UA_CONNECT_ADDR, UA_BIND_ADDR, UA_SENDTO_ADDR, UA_SEND_BUF, UA_RECV_BUF,
	UA_SENDMSG_HDR, UA_RECVMSG_HDR, UA_SENDMSG_IOV, UA_RECVMSG_IOV,
	UA_SENDMSG_NAME, UA_RECVMSG_NAME, UA_RECVMSG_CONTROL, UA_ACCEPT_ADDR,
	UA_ACCEPT_ADDRLEN, UA_SEND_ZC_BUF,
	UA_FUTEX_WAIT, UA_FUTEX_WAKE, UA_FUTEX_WAITV, UA_FUTEX_WAITV_WORD,
	UA_FUTEX_WAITV_BADFIRST, UA_WAITID_INFOP,
	/* io_uring_enter */
	UA_ENTER_ARG, UA_ENTER_TS, UA_ENTER_SIGMASK, UA_ENTER_SIGMASK_PLAIN,
	UA_ENTER_SIGMASK_READY, UA_ENTER_SIGMASK_SZ_BAD_TS,
	/* io_uring_setup */
	UA_SETUP,
	/* io_uring_register */
	UA_REG_BUFS_IOV, UA_REG_BUFS_BASE, UA_REG_BUFS2_ARG, UA_REG_BUFS2_DATA,
	UA_REG_BUFS2_TAGS, UA_REG_BUFS_UPDATE_ARG, UA_REG_BUFS_UPDATE_DATA,
	UA_REG_FILES_FDS, UA_REG_FILES2_ARG, UA_REG_FILES2_DATA,
	UA_REG_FILES2_TAGS, UA_REG_FILES_UPDATE2_ARG, UA_REG_FILES_UPDATE2_TAGS,
	UA_REG_FILES_UPDATE_ARG, UA_REG_EVENTFD, UA_REG_EVENTFD_BUSY,
	UA_REG_PROBE, UA_REG_IOWQ_AFF, UA_REG_IOWQ_AFF_SHORT,
	UA_REG_MAX_WORKERS, UA_REG_RING_FDS, UA_UNREG_RING_FDS,
	UA_REG_SYNC_CANCEL, UA_REG_ALLOC_RANGE, UA_REG_CLOCK,
	UA_REG_RESTRICTIONS,
	UA_REG_PBUF_RING, UA_REG_PBUF_RING_MEM, UA_UNREG_PBUF_RING,
	UA_REG_PBUF_STATUS,
	/* registered buffers over memory the kernel cannot pin */
	UA_REG_BUFS_SHARED_FILE, UA_REG_BUFS_PRIVATE_FILE, UA_REG_BUFS_MEMFD,
	UA_REG_BUFS_SHARED_ANON,
};

struct ua_case {
	enum ua_op op;
	enum ua_bad bad;
	unsigned ring_flags;
	unsigned sqe_flags;
};

/*
 * Unmapped memory that stays unmapped: holes made by munmap() among the
 * process's mappings get reused by the next small mmap (a sanitizer's
 * allocator, the engine's), so the holes are made low in the address
 * space, where mmap(NULL) never places anything; each case runs in a
 * fresh child, so the address is free unless something sits there.
 */
#define UA_LOW		0x20000000UL

static bool ua_unmapped(uintptr_t a)
{
	return msync((void *)a, UA_PAGE, MS_ASYNC) && errno == ENOMEM;
}

/* a page at UA_LOW with nothing mapped after it (mapped: first page only) */
static char *ua_low_pair(bool map_first)
{
	char *p;

	if (!ua_unmapped(UA_LOW) || !ua_unmapped(UA_LOW + UA_PAGE))
		return NULL;
	if (!map_first)
		return (char *)UA_LOW;
	p = mmap((void *)UA_LOW, UA_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	return p == (char *)UA_LOW ? p : NULL;
}

/* a fresh page, or MAP_FAILED */
static char *ua_page(size_t pages, int prot)
{
	return mmap(NULL, pages * UA_PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
}

/*
 * The bad form of an object: good (size bytes) is what a readable one
 * would hold. For a path (path set), straddle means a name with no NUL
 * before an unmapped page.
 */
/* a mapped page with an unmapped one right after it; NULL if none */
static char *ua_mapped_then_hole(void)
{
	char *p = ua_low_pair(true);

	if (p)
		return p;
	p = ua_page(2, PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED)
		return NULL;
	munmap(p + UA_PAGE, UA_PAGE);
	return p;
}

static void *ua_ptr(enum ua_bad bad, const void *good, size_t size, bool path)
{
	char *p;

	switch (bad) {
	case UA_NULL:
		return NULL;
	case UA_ONE:
		return (void *)1UL;
	case UA_NONCANON:
		return (void *)UA_NONCANON_ADDR;
	case UA_PROT_NONE:
		p = ua_page(1, PROT_NONE);
		return p == MAP_FAILED ? NULL : p;
	case UA_UNMAPPED:
		p = ua_low_pair(false);
		if (p)
			return p;
		p = ua_page(1, PROT_READ | PROT_WRITE);
		if (p == MAP_FAILED)
			return NULL;
		munmap(p, UA_PAGE);
		return p;
	case UA_STRADDLE:
		p = ua_mapped_then_hole();
		if (!p)
			return NULL;
		if (path) {
			memset(p, 'a', UA_PAGE);
			return p + UA_PAGE - 16;
		}
		memcpy(p + UA_PAGE - size / 2, good, size / 2);
		return p + UA_PAGE - size / 2;
	case UA_RDONLY:
		p = ua_page(1, PROT_READ | PROT_WRITE);
		if (p == MAP_FAILED)
			return NULL;
		memcpy(p, good, size);
		mprotect(p, UA_PAGE, PROT_READ);
		return p;
	case UA_TAIL:
		p = ua_mapped_then_hole();
		if (!p)
			return NULL;
		memcpy(p + UA_PAGE - (size - 8), good, size - 8);
		return p + UA_PAGE - (size - 8);
	case UA_LONG:
		p = ua_page(2, PROT_READ | PROT_WRITE);
		if (p == MAP_FAILED)
			return NULL;
		memset(p, 'a', 2 * UA_PAGE - 1);
		p[2 * UA_PAGE - 1] = '\0';
		return p;
	}
	return NULL;
}

static void *ua_path(enum ua_bad bad)
{
	return ua_ptr(bad, NULL, 0, true);
}

/* reap nr CQEs; record them by user_data (their order is not compared) */
static void ua_reap(struct io_uring *ring, struct diff_run *r, unsigned nr)
{
	struct __kernel_timespec ts = { DIFF_TIMEOUT_SEC, 0 };
	struct io_uring_cqe *cqe;
	struct diff_cqe got[8];
	unsigned n = 0, i, j;

	while (n < nr && n < 8) {
		if (io_uring_wait_cqe_timeout(ring, &cqe, &ts)) {
			snprintf(r->msg, sizeof(r->msg), "CQE %u of %u missing",
				 n + 1, nr);
			break;
		}
		got[n].user_data = cqe->user_data;
		got[n].res = cqe->res;
		got[n].flags = cqe->flags;
		n++;
		io_uring_cqe_seen(ring, cqe);
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && got[j - 1].user_data > got[j].user_data; j--) {
			struct diff_cqe t = got[j];

			got[j] = got[j - 1];
			got[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		diff_put(r, "user_data", (long long)got[i].user_data);
		diff_put(r, "res", got[i].res);
	}
}

/* an SQE with its user_data; a prep clears sqe->flags, so they come after */
static struct io_uring_sqe *ua_sqe(struct io_uring *ring, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	sqe->user_data = ud;
	return sqe;
}

static char ua_buf[2][4096];

/* READV, WRITEV and the buffers they point at; 1 CQE */
static unsigned ua_rw(struct io_uring *ring, const struct ua_case *uc, int fd)
{
	/* static: the SQE points at it until the submit reads it */
	static struct iovec good[2];
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);
	void *iov;

	good[0] = (struct iovec){ ua_buf[0], sizeof(ua_buf[0]) };
	good[1] = (struct iovec){ ua_buf[1], sizeof(ua_buf[1]) };
	switch (uc->op) {
	case UA_READV_BASE:
		good[1].iov_base = ua_ptr(uc->bad, NULL, 0, false);
		io_uring_prep_readv(sqe, fd, good, 2, 0);
		break;
	case UA_READ_BUF_BADFD:
		io_uring_prep_read(sqe, 999, ua_ptr(uc->bad, NULL, 0, false),
				   4096, 0);
		break;
	case UA_WRITEV:
		iov = ua_ptr(uc->bad, good, sizeof(good), false);
		io_uring_prep_writev(sqe, fd, iov, 2, 0);
		break;
	default:
		iov = ua_ptr(uc->bad, good, sizeof(good), false);
		io_uring_prep_readv(sqe, uc->op == UA_READV_BADFD ? 999 : fd,
				    iov, 2, 0);
		break;
	}
	sqe->flags |= (__u8)uc->sqe_flags;
	return 1;
}

/*
 * Provided buffers: PROVIDE_BUFFERS of a bad address (only an address
 * beyond user space is refused; the read into it then faults), and
 * READV with IOSQE_BUFFER_SELECT reading its one iovec from bad memory;
 * 2 CQEs
 */
static unsigned ua_kbuf(struct io_uring *ring, const struct ua_case *uc,
			int fd)
{
	static struct iovec one = { NULL, 0 };
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);

	if (uc->op == UA_PROVIDE_BUFS) {
		io_uring_prep_provide_buffers(sqe, ua_ptr(uc->bad, NULL, 0,
							  false), 64, 2, 1, 0);
	} else {
		io_uring_prep_provide_buffers(sqe, ua_buf[0], 64, 2, 1, 0);
	}
	sqe = ua_sqe(ring, 2);
	if (uc->op == UA_PROVIDE_BUFS)
		io_uring_prep_read(sqe, fd, NULL, 0, 0);
	else
		io_uring_prep_readv(sqe, fd, ua_ptr(uc->bad, &one, sizeof(one),
						    false), 1, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT | (__u8)uc->sqe_flags;
	sqe->buf_group = 1;
	return 2;
}

/* the timeout family with a bad timespec */
static unsigned ua_timeout(struct io_uring *ring, const struct ua_case *uc)
{
	struct __kernel_timespec good = { 0, 1000000 }, *ts;
	struct __kernel_timespec *far = malloc(sizeof(*far));
	struct io_uring_sqe *sqe;

	far->tv_sec = 60;
	far->tv_nsec = 0;
	ts = ua_ptr(uc->bad, &good, sizeof(good), false);
	switch (uc->op) {
	case UA_TIMEOUT:
		io_uring_prep_timeout(ua_sqe(ring, 1), ts, 0, 0);
		return 1;
	case UA_LINK_TIMEOUT:
		sqe = ua_sqe(ring, 1);
		io_uring_prep_nop(sqe);
		sqe->flags |= IOSQE_IO_LINK;
		io_uring_prep_link_timeout(ua_sqe(ring, 2), ts, 0);
		return 2;
	default:
		/* an update with a bad time; the timeout is removed after */
		io_uring_prep_timeout(ua_sqe(ring, 1), far, 0, 0);
		io_uring_submit(ring);
		sqe = ua_sqe(ring, 2);
		io_uring_prep_timeout_update(sqe, ts, 1, 0);
		io_uring_submit(ring);
		io_uring_prep_timeout_remove(ua_sqe(ring, 3), 1, 0);
		return 3;
	}
}

/*
 * The futex and waitid ops: a bad futex word (FUTEX_WAIT, FUTEX_WAKE,
 * shared, so that the wake looks at the memory), FUTEX_WAITV's vector or
 * a word in it (readable ones hold 1, the waits want 0: -EAGAIN, never a
 * sleep), WAITID's siginfo for a child that has exited (reaped either way).
 */
static unsigned ua_waits(struct io_uring *ring, const struct ua_case *uc,
			 struct diff_run *r)
{
	static uint32_t one[2] = { 1, 1 };
	static struct {
		__u64 val, uaddr;
		__u32 flags, reserved;
	} good[2], bad[2];
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);
	siginfo_t si, *sip;
	void *p;
	pid_t pid;

	switch (uc->op) {
	case UA_FUTEX_WAIT:
	case UA_FUTEX_WAKE:
		p = ua_ptr(uc->bad, one, sizeof(one[0]), false);
		io_uring_prep_rw(uc->op == UA_FUTEX_WAIT ? 51 : 52, sqe, 0x02, p,
				 0, 0);
		sqe->addr2 = uc->op == UA_FUTEX_WAIT ? 0 : 1;
		sqe->addr3 = 0xffffffffU;
		return 1;
	case UA_FUTEX_WAITV:
	case UA_FUTEX_WAITV_WORD:
	case UA_FUTEX_WAITV_BADFIRST:
		good[0].uaddr = (unsigned long)&one[0];
		good[1].uaddr = (unsigned long)&one[1];
		good[0].flags = good[1].flags = 0x02 | 128;
		/*
		 * futex_parse_waitv() copies and checks entry by entry: a bad
		 * first entry is -EINVAL even where the second faults
		 * (the straddle case)
		 */
		if (uc->op == UA_FUTEX_WAITV_BADFIRST)
			good[0].flags = 0x1000;
		bad[0] = good[0];
		bad[1] = good[1];
		if (uc->op == UA_FUTEX_WAITV_WORD) {
			bad[1].uaddr = (unsigned long)ua_ptr(uc->bad, one,
							     sizeof(one[0]), false);
			p = bad;
		} else {
			p = ua_ptr(uc->bad, good, sizeof(good), false);
		}
		io_uring_prep_rw(53, sqe, 0, p, 2, 0);
		return 1;
	default:
		pid = fork();
		if (pid < 0) {
			snprintf(r->msg, sizeof(r->msg), "fork");
			return 0;
		}
		if (!pid)
			_exit(0);
		/* exited before the ring looks */
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT)) {
			snprintf(r->msg, sizeof(r->msg), "waitid");
			return 0;
		}
		memset(&si, 0, sizeof(si));
		sip = ua_ptr(uc->bad, &si, sizeof(si), false);
		io_uring_prep_rw(50, sqe, pid, NULL, P_PID, 0);
		sqe->file_index = WEXITED;
		sqe->addr2 = (unsigned long)sip;
		return 1;
	}
}

/* a path op with one bad name (the other good), or a bad open_how/statx buffer */
static unsigned ua_names(struct io_uring *ring, const struct ua_case *uc)
{
	static struct statx stx;
	/* static: the SQE points at it until the submit reads it */
	static struct open_how good = { .flags = O_RDONLY };
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);
	char *p;

	switch (uc->op) {
	case UA_OPENAT:
		io_uring_prep_openat(sqe, AT_FDCWD, ua_path(uc->bad), O_RDONLY, 0);
		break;
	case UA_OPENAT2_PATH:
		io_uring_prep_openat2(sqe, AT_FDCWD, ua_path(uc->bad), &good);
		break;
	case UA_OPENAT2_HOW:
		io_uring_prep_openat2(sqe, AT_FDCWD, "a",
				      ua_ptr(uc->bad, &good, sizeof(good), false));
		break;
	case UA_OPENAT2_HOW_TAIL:
		/* a 32-byte open_how whose last 8 bytes are unmapped */
		p = ua_ptr(UA_STRADDLE, &good, 2, false);
		p -= UA_PAGE - 1;
		memcpy(p + UA_PAGE - sizeof(good), &good, sizeof(good));
		io_uring_prep_openat2(sqe, AT_FDCWD, "a",
				      (struct open_how *)(p + UA_PAGE - sizeof(good)));
		sqe->len = sizeof(good) + 8;
		break;
	case UA_STATX_PATH:
		io_uring_prep_statx(sqe, AT_FDCWD, ua_path(uc->bad), 0,
				    STATX_BASIC_STATS, &stx);
		break;
	case UA_STATX_BUF:
		io_uring_prep_statx(sqe, AT_FDCWD, "a", 0, STATX_BASIC_STATS,
				    ua_ptr(uc->bad, &stx, sizeof(stx), false));
		break;
	case UA_RENAME_OLD:
		io_uring_prep_renameat(sqe, AT_FDCWD, ua_path(uc->bad),
				       AT_FDCWD, "b", 0);
		break;
	case UA_RENAME_NEW:
		io_uring_prep_renameat(sqe, AT_FDCWD, "a", AT_FDCWD,
				       ua_path(uc->bad), 0);
		break;
	case UA_UNLINK:
		io_uring_prep_unlinkat(sqe, AT_FDCWD, ua_path(uc->bad), 0);
		break;
	case UA_MKDIR:
		io_uring_prep_mkdirat(sqe, AT_FDCWD, ua_path(uc->bad), 0755);
		break;
	case UA_SYMLINK_TARGET:
		io_uring_prep_symlinkat(sqe, ua_path(uc->bad), AT_FDCWD, "c");
		break;
	case UA_SYMLINK_NEW:
		io_uring_prep_symlinkat(sqe, "a", AT_FDCWD, ua_path(uc->bad));
		break;
	case UA_LINK_OLD:
		io_uring_prep_linkat(sqe, AT_FDCWD, ua_path(uc->bad), AT_FDCWD,
				     "d", 0);
		break;
	default:
		io_uring_prep_linkat(sqe, AT_FDCWD, "a", AT_FDCWD,
				     ua_path(uc->bad), 0);
		break;
	}
	return 1;
}

/* FILES_UPDATE with a bad fd array (two fds); with ALLOC it is written */
static unsigned ua_files_update(struct io_uring *ring,
				const struct ua_case *uc, int fd,
				struct diff_run *r)
{
	int good[2] = { fd, fd }, *fds;
	struct io_uring_sqe *sqe;

	diff_put(r, "register sparse", io_uring_register_files_sparse(ring, 4));
	fds = ua_ptr(uc->bad, good, sizeof(good), false);
	sqe = ua_sqe(ring, 1);
	io_uring_prep_files_update(sqe, fds, 2,
		uc->op == UA_FILES_UPDATE_ALLOC ? IORING_FILE_INDEX_ALLOC : 0);
	if (uc->op != UA_FILES_UPDATE_ALLOC)
		return 1;
	/* then a good one: which slot it gets shows what the bad one left */
	io_uring_submit(ring);
	ua_reap(ring, r, 1);
	io_uring_prep_files_update(ua_sqe(ring, 2), good, 1,
				   IORING_FILE_INDEX_ALLOC);
	io_uring_submit(ring);
	ua_reap(ring, r, 1);
	diff_put(r, "slot", good[0]);
	return 0;
}

/* FSETXATTR, SETXATTR, FGETXATTR, GETXATTR on "a" with one bad pointer */
static unsigned ua_xattr(struct io_uring *ring, const struct ua_case *uc,
			 int fd)
{
	static const char value[] = "hello";
	static char got[64];
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);
	const char *name = "user.x", *path = "a";
	const void *val = value;
	void *out = got;
	__u8 op;

	(void)fsetxattr(fd, "user.x", value, 5, 0);
	switch (uc->op) {
	case UA_FSETXATTR_NAME: case UA_FGETXATTR_NAME:
		name = ua_path(uc->bad);
		break;
	case UA_FSETXATTR_VALUE:
		val = ua_ptr(uc->bad, value, 5, false);
		break;
	case UA_FGETXATTR_VALUE:
		out = ua_ptr(uc->bad, got, 5, false);
		break;
	default:
		path = ua_path(uc->bad);
		break;
	}
	switch (uc->op) {
	case UA_FSETXATTR_NAME: case UA_FSETXATTR_VALUE:
		op = IORING_OP_FSETXATTR;
		break;
	case UA_SETXATTR_PATH:
		op = IORING_OP_SETXATTR;
		break;
	case UA_GETXATTR_PATH:
		op = IORING_OP_GETXATTR;
		break;
	default:
		op = IORING_OP_FGETXATTR;
		break;
	}
	io_uring_prep_rw(op, sqe, fd, name, 5, 0);
	sqe->addr2 = (unsigned long)(op == IORING_OP_FSETXATTR ||
				     op == IORING_OP_SETXATTR ? val : out);
	if (op == IORING_OP_SETXATTR || op == IORING_OP_GETXATTR) {
		sqe->fd = 0;
		sqe->addr3 = (unsigned long)path;
	}
	return 1;
}

/* EPOLL_CTL's event and EPOLL_WAIT's events, over an eventfd that is readable */
static unsigned ua_epoll(struct io_uring *ring, const struct ua_case *uc)
{
	static struct epoll_event good = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(1, EFD_CLOEXEC);
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);
	void *p;

	if (uc->op == UA_EPOLL_CTL_EVENT) {
		p = ua_ptr(uc->bad, &good, sizeof(good), false);
		io_uring_prep_epoll_ctl(sqe, ep, efd, EPOLL_CTL_ADD, p);
		return 1;
	}
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &good);
	io_uring_prep_rw(59 /* EPOLL_WAIT */, sqe, ep,
			 ua_ptr(uc->bad, &good, sizeof(good), false), 1, 0);
	return 1;
}

/* PIPE writing its two fds (or, direct, its two slots) to bad memory */
static unsigned ua_pipe(struct io_uring *ring, const struct ua_case *uc,
			struct diff_run *r)
{
	int good[2] = { -1, -1 };
	struct io_uring_sqe *sqe;

	if (uc->op == UA_PIPE_FDS_DIRECT)
		diff_put(r, "register sparse",
			 io_uring_register_files_sparse(ring, 4));
	sqe = ua_sqe(ring, 1);
	io_uring_prep_rw(62 /* PIPE */, sqe, 0,
			 ua_ptr(uc->bad, good, sizeof(good), false), 0, 0);
	if (uc->op != UA_PIPE_FDS_DIRECT)
		return 1;
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	io_uring_submit(ring);
	ua_reap(ring, r, 1);
	/* then a good one: the slots it gets show what the bad one left */
	sqe = ua_sqe(ring, 2);
	io_uring_prep_rw(62 /* PIPE */, sqe, 0, good, 0, 0);
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	io_uring_submit(ring);
	ua_reap(ring, r, 1);
	diff_put(r, "slot 0", good[0]);
	diff_put(r, "slot 1", good[1]);
	return 0;
}

/* READV_FIXED/WRITEV_FIXED with a bad iovec array */
static unsigned ua_rw_fixed(struct io_uring *ring, const struct ua_case *uc,
			    int fd, struct diff_run *r)
{
	static struct iovec good[2];
	struct iovec reg = { ua_buf[0], sizeof(ua_buf[0]) };
	struct io_uring_sqe *sqe;

	good[0] = (struct iovec){ ua_buf[0], 100 };
	good[1] = (struct iovec){ ua_buf[0] + 200, 100 };
	diff_put(r, "register", io_uring_register_buffers(ring, &reg, 1));
	sqe = ua_sqe(ring, 1);
	io_uring_prep_rw(uc->op == UA_READV_FIXED_IOV ? 60 : 61, sqe, fd,
			 ua_ptr(uc->bad, good, sizeof(good), false), 2, 0);
	return 1;
}

/* a loopback TCP listener with a connection waiting; -1 on failure */
static int ua_listener(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 4) || getsockname(l, (struct sockaddr *)&a, &len) ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return l;
}

/*
 * A socket opcode with one bad pointer: the addresses CONNECT, BIND and
 * SEND copy at prep, a msghdr and what it points at (read at prep; the
 * name, control and msghdr fields written at completion), the buffers
 * SEND and RECV hand to the system call, ACCEPT's addr and addrlen.
 * Data is queued on the receiving end first; 1 CQE (2 for SEND_ZC).
 */
static unsigned ua_net(struct io_uring *ring, const struct ua_case *uc,
		       struct diff_run *r)
{
	static struct sockaddr_in sin = { .sin_family = AF_INET };
	static struct iovec iov[2];
	static struct msghdr msg;
	static socklen_t alen;
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);
	struct msghdr *m = &msg;
	int sv[2], l;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || write(sv[0], "data", 4) != 4)
		goto fail;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	iov[0] = (struct iovec){ ua_buf[0], 2 };
	iov[1] = (struct iovec){ ua_buf[1], 2 };
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	alen = sizeof(sin);
	switch (uc->op) {
	case UA_CONNECT_ADDR:
		io_uring_prep_connect(sqe, sv[0], ua_ptr(uc->bad, &sin, sizeof(sin), false),
				      sizeof(sin));
		break;
	case UA_BIND_ADDR:
		io_uring_prep_rw(56 /* BIND */, sqe, socket(AF_INET, SOCK_STREAM, 0),
				 ua_ptr(uc->bad, &sin, sizeof(sin), false), 0, sizeof(sin));
		break;
	case UA_SENDTO_ADDR:
		io_uring_prep_send(sqe, socket(AF_INET, SOCK_DGRAM, 0), "x", 1, 0);
		sqe->addr2 = (unsigned long)ua_ptr(uc->bad, &sin, sizeof(sin), false);
		sqe->addr_len = sizeof(sin);
		break;
	case UA_SEND_BUF:
	case UA_SEND_ZC_BUF:
		io_uring_prep_send(sqe, socket(AF_INET, SOCK_DGRAM, 0),
				   ua_ptr(uc->bad, "data", 4, false), 4, 0);
		io_uring_prep_send_set_addr(sqe, (struct sockaddr *)&sin, sizeof(sin));
		sin.sin_port = htons(9);
		if (uc->op == UA_SEND_ZC_BUF)
			sqe->opcode = IORING_OP_SEND_ZC;
		break;
	case UA_RECV_BUF:
		io_uring_prep_recv(sqe, sv[1], ua_ptr(uc->bad, NULL, 0, false), 4, 0);
		break;
	case UA_SENDMSG_HDR:
		io_uring_prep_sendmsg(sqe, sv[0], ua_ptr(uc->bad, &msg, sizeof(msg), false), 0);
		break;
	case UA_RECVMSG_HDR:
		m = ua_ptr(uc->bad, &msg, sizeof(msg), false);
		io_uring_prep_recvmsg(sqe, sv[1], m, 0);
		break;
	case UA_SENDMSG_IOV:
	case UA_RECVMSG_IOV:
		msg.msg_iov = ua_ptr(uc->bad, iov, sizeof(iov), false);
		if (uc->op == UA_SENDMSG_IOV)
			io_uring_prep_sendmsg(sqe, sv[0], &msg, 0);
		else
			io_uring_prep_recvmsg(sqe, sv[1], &msg, 0);
		break;
	case UA_SENDMSG_NAME:
		msg.msg_name = ua_ptr(uc->bad, &sin, sizeof(sin), false);
		msg.msg_namelen = sizeof(sin);
		io_uring_prep_sendmsg(sqe, socket(AF_INET, SOCK_DGRAM, 0), &msg, 0);
		break;
	case UA_RECVMSG_NAME:
		msg.msg_name = ua_ptr(uc->bad, &sin, sizeof(sin), false);
		msg.msg_namelen = sizeof(sin);
		io_uring_prep_recvmsg(sqe, sv[1], &msg, 0);
		break;
	case UA_RECVMSG_CONTROL:
		msg.msg_control = ua_ptr(uc->bad, ua_buf[1] + 512, 64, false);
		msg.msg_controllen = 64;
		/* an fd passed: the control data must be written */
		{
			char cbuf[CMSG_SPACE(sizeof(int))];
			struct msghdr sm = { .msg_iov = iov, .msg_iovlen = 1,
					     .msg_control = cbuf,
					     .msg_controllen = sizeof(cbuf) };
			struct cmsghdr *cm = CMSG_FIRSTHDR(&sm);

			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &sv[0], sizeof(int));
			if (recv(sv[1], ua_buf[1], 4, 0) != 4 ||
			    sendmsg(sv[0], &sm, 0) < 0)
				goto fail;
		}
		io_uring_prep_recvmsg(sqe, sv[1], &msg, 0);
		break;
	default:
		l = ua_listener();
		if (l < 0)
			goto fail;
		if (uc->op == UA_ACCEPT_ADDR)
			io_uring_prep_accept(sqe, l, ua_ptr(uc->bad, &sin, sizeof(sin), false),
					     &alen, 0);
		else
			io_uring_prep_accept(sqe, l, (struct sockaddr *)&sin,
					     ua_ptr(uc->bad, &alen, sizeof(alen), false), 0);
		break;
	}
	sqe->flags |= (__u8)uc->sqe_flags;
	return uc->op == UA_SEND_ZC_BUF ? 2 : 1;
fail:
	snprintf(r->msg, sizeof(r->msg), "sockets: %s", strerror(errno));
	sqe->opcode = IORING_OP_NOP;
	return 1;
}

static int ua_enter(struct io_uring *ring, unsigned min, unsigned flags,
		    const void *arg, size_t sz)
{
	return io_uring_enter2((unsigned)ring->ring_fd, 0, min,
			       IORING_ENTER_GETEVENTS | flags, (void *)arg, sz);
}

/* io_uring_enter's wait argument, its timespec and the sigmask */
static void ua_enter_case(struct io_uring *ring, const struct ua_case *uc,
			  struct diff_run *r)
{
	struct __kernel_timespec ts = { 0, 10000000 };
	struct io_uring_getevents_arg good = {
		.ts = (unsigned long)&ts,
	};
	struct io_uring_getevents_arg *arg = malloc(sizeof(*arg));
	sigset_t set;
	void *bad;

	sigemptyset(&set);
	*arg = good;
	switch (uc->op) {
	case UA_ENTER_ARG:
		bad = ua_ptr(uc->bad, &good, sizeof(good), false);
		diff_put(r, "enter", ua_enter(ring, 1, IORING_ENTER_EXT_ARG, bad,
					      sizeof(good)));
		break;
	case UA_ENTER_TS:
		arg->ts = (unsigned long)ua_ptr(uc->bad, &ts, sizeof(ts), false);
		diff_put(r, "enter", ua_enter(ring, 1, IORING_ENTER_EXT_ARG, arg,
					      sizeof(*arg)));
		break;
	case UA_ENTER_SIGMASK:
		arg->sigmask = (unsigned long)ua_ptr(uc->bad, &set, _NSIG / 8,
						     false);
		arg->sigmask_sz = _NSIG / 8;
		diff_put(r, "enter", ua_enter(ring, 1, IORING_ENTER_EXT_ARG, arg,
					      sizeof(*arg)));
		break;
	case UA_ENTER_SIGMASK_SZ_BAD_TS:
		/* which comes first: the sigmask size or the timespec */
		arg->sigmask = (unsigned long)&set;
		arg->sigmask_sz = 4;
		arg->ts = (unsigned long)ua_ptr(uc->bad, &ts, sizeof(ts), false);
		diff_put(r, "enter", ua_enter(ring, 1, IORING_ENTER_EXT_ARG, arg,
					      sizeof(*arg)));
		break;
	case UA_ENTER_SIGMASK_READY:
		/* a CQE is there: the wait, and its sigmask, never begin */
		io_uring_prep_nop(ua_sqe(ring, 1));
		diff_put(r, "submit", io_uring_submit_and_wait(ring, 1));
		diff_put(r, "enter", ua_enter(ring, 1, 0,
			 ua_ptr(uc->bad, &set, _NSIG / 8, false), _NSIG / 8));
		ua_reap(ring, r, 1);
		break;
	default:
		/* a timeout in flight ends the wait if the sigmask is ignored */
		io_uring_prep_timeout(ua_sqe(ring, 1), &ts, 0, 0);
		diff_put(r, "submit", io_uring_submit(ring));
		diff_put(r, "enter", ua_enter(ring, 1, 0,
			 ua_ptr(uc->bad, &set, _NSIG / 8, false), _NSIG / 8));
		ua_reap(ring, r, 1);
		break;
	}
}

/* io_uring_setup() with bad params; a ring made is closed, not compared */
static void ua_setup(const char *engine, const struct ua_case *uc,
		     struct diff_run *r)
{
	struct io_uring_params good;
	int ret;

	memset(&good, 0, sizeof(good));
	ret = anyring_setup_engine(engine, 8,
				   ua_ptr(uc->bad, &good, sizeof(good), false));
	diff_put(r, "setup", ret < 0 ? ret : 0);
	if (ret >= 0)
		close(ret);
}

static int ua_reg(struct io_uring *ring, unsigned op, const void *arg,
		  unsigned nr)
{
	return io_uring_register((unsigned)ring->ring_fd, op, arg, nr);
}

/* REGISTER_BUFFERS(2) and BUFFERS_UPDATE with one bad pointer */
static int ua_reg_bufs(struct io_uring *ring, const struct ua_case *uc,
		       struct diff_run *r)
{
	static char zero[UA_PAGE];
	struct iovec good[2] = {
		{ ua_buf[0], sizeof(ua_buf[0]) }, { ua_buf[1], sizeof(ua_buf[1]) },
	};
	__u64 tags[2] = { 1, 2 };
	struct io_uring_rsrc_register rr = {
		.nr = 2, .data = (unsigned long)good,
	};
	struct io_uring_rsrc_update2 up = {
		.data = (unsigned long)good, .nr = 2,
	};

	switch (uc->op) {
	case UA_REG_BUFS_IOV:
		return ua_reg(ring, IORING_REGISTER_BUFFERS,
			      ua_ptr(uc->bad, good, sizeof(good), false), 2);
	case UA_REG_BUFS_BASE:
		good[1].iov_base = ua_ptr(uc->bad, zero, sizeof(zero), false);
		return ua_reg(ring, IORING_REGISTER_BUFFERS, good, 2);
	case UA_REG_BUFS2_ARG:
		return ua_reg(ring, IORING_REGISTER_BUFFERS2,
			      ua_ptr(uc->bad, &rr, sizeof(rr), false), sizeof(rr));
	case UA_REG_BUFS2_DATA:
		rr.data = (unsigned long)ua_ptr(uc->bad, good, sizeof(good), false);
		return ua_reg(ring, IORING_REGISTER_BUFFERS2, &rr, sizeof(rr));
	case UA_REG_BUFS2_TAGS:
		rr.tags = (unsigned long)ua_ptr(uc->bad, tags, sizeof(tags), false);
		return ua_reg(ring, IORING_REGISTER_BUFFERS2, &rr, sizeof(rr));
	case UA_REG_BUFS_UPDATE_ARG:
	default:
		rr.data = 0;
		rr.flags = IORING_RSRC_REGISTER_SPARSE;
		diff_put(r, "sparse", ua_reg(ring, IORING_REGISTER_BUFFERS2, &rr,
					     sizeof(rr)));
		if (uc->op == UA_REG_BUFS_UPDATE_DATA)
			up.data = (unsigned long)ua_ptr(uc->bad, good,
							sizeof(good), false);
		return ua_reg(ring, IORING_REGISTER_BUFFERS_UPDATE,
			      uc->op == UA_REG_BUFS_UPDATE_DATA ? &up :
			      ua_ptr(uc->bad, &up, sizeof(up), false), sizeof(up));
	}
}

/* a buffer in a mapping of the file "a" (shared or private) or of shmem */
static int ua_reg_bufs_mapped(struct io_uring *ring, const struct ua_case *uc,
			      int fd)
{
	struct iovec iov = { NULL, UA_PAGE };
	int mfd;

	switch (uc->op) {
	case UA_REG_BUFS_SHARED_FILE:
		iov.iov_base = mmap(NULL, UA_PAGE, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 0);
		break;
	case UA_REG_BUFS_PRIVATE_FILE:
		iov.iov_base = mmap(NULL, UA_PAGE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE, fd, 0);
		break;
	case UA_REG_BUFS_MEMFD:
		mfd = memfd_create("ua", MFD_CLOEXEC);
		if (mfd < 0 || ftruncate(mfd, UA_PAGE))
			return -errno;
		iov.iov_base = mmap(NULL, UA_PAGE, PROT_READ | PROT_WRITE,
				    MAP_SHARED, mfd, 0);
		close(mfd);
		break;
	default:
		iov.iov_base = mmap(NULL, UA_PAGE, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		break;
	}
	if (iov.iov_base == MAP_FAILED)
		return -errno;
	return ua_reg(ring, IORING_REGISTER_BUFFERS, &iov, 1);
}

/* REGISTER_FILES(2), FILES_UPDATE(2) with one bad pointer */
static int ua_reg_files(struct io_uring *ring, const struct ua_case *uc,
			int fd, struct diff_run *r)
{
	int fds[2] = { fd, fd };
	__u64 tags[2] = { 1, 2 };
	struct io_uring_rsrc_register rr = {
		.nr = 2, .data = (unsigned long)fds,
	};
	struct io_uring_rsrc_update2 up = {
		.data = (unsigned long)fds, .nr = 2,
	};
	struct io_uring_files_update fu = { .fds = (unsigned long)fds };

	switch (uc->op) {
	case UA_REG_FILES_FDS:
		return ua_reg(ring, IORING_REGISTER_FILES,
			      ua_ptr(uc->bad, fds, sizeof(fds), false), 2);
	case UA_REG_FILES2_ARG:
		return ua_reg(ring, IORING_REGISTER_FILES2,
			      ua_ptr(uc->bad, &rr, sizeof(rr), false), sizeof(rr));
	case UA_REG_FILES2_DATA:
		rr.data = (unsigned long)ua_ptr(uc->bad, fds, sizeof(fds), false);
		return ua_reg(ring, IORING_REGISTER_FILES2, &rr, sizeof(rr));
	case UA_REG_FILES2_TAGS:
		rr.tags = (unsigned long)ua_ptr(uc->bad, tags, sizeof(tags), false);
		return ua_reg(ring, IORING_REGISTER_FILES2, &rr, sizeof(rr));
	default:
		break;
	}
	diff_put(r, "sparse", io_uring_register_files_sparse(ring, 4));
	switch (uc->op) {
	case UA_REG_FILES_UPDATE2_ARG:
		return ua_reg(ring, IORING_REGISTER_FILES_UPDATE2,
			      ua_ptr(uc->bad, &up, sizeof(up), false), sizeof(up));
	case UA_REG_FILES_UPDATE2_TAGS:
		up.tags = (unsigned long)ua_ptr(uc->bad, tags, sizeof(tags), false);
		return ua_reg(ring, IORING_REGISTER_FILES_UPDATE2, &up, sizeof(up));
	default:
		return ua_reg(ring, IORING_REGISTER_FILES_UPDATE,
			      ua_ptr(uc->bad, &fu, sizeof(fu), false), 2);
	}
}


/* the other opcodes: what they read is bad; what they write read-only */
static int ua_reg_misc(struct io_uring *ring, const struct ua_case *uc,
		       struct diff_run *r)
{
	int efd = eventfd(0, EFD_CLOEXEC);
	unsigned char probe[sizeof(struct io_uring_probe) +
			    4 * sizeof(struct io_uring_probe_op)] = { 0 };
	cpu_set_t cpus;
	unsigned workers[2] = { 0, 0 }, clk[4] = { CLOCK_MONOTONIC, 0, 0, 0 };
	struct io_uring_rsrc_update ringfd = {
		.offset = -1U, .data = (unsigned)ring->ring_fd,
	};
	struct ar_sync_cancel_reg sc = {
		.addr = 0x1234, .timeout = { -1, -1 },
	};
	struct io_uring_file_index_range range = { .off = 0, .len = 1 };
	struct io_uring_restriction res = {
		.opcode = IORING_RESTRICTION_SQE_OP, .sqe_op = IORING_OP_NOP,
	};
	struct io_uring_buf_reg br = { .ring_entries = 4, .bgid = 1 };
	__u32 status[10] = { 1 };
	char *ringmem = ua_page(1, PROT_READ | PROT_WRITE);
	int ret;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	br.ring_addr = (unsigned long)ringmem;
	switch (uc->op) {
	case UA_REG_PBUF_RING:
		return ua_reg(ring, IORING_REGISTER_PBUF_RING,
			      ua_ptr(uc->bad, &br, sizeof(br), false), 1);
	case UA_REG_PBUF_RING_MEM:
		/* 512 entries: two pages */
		br.ring_entries = 512;
		br.ring_addr = (unsigned long)ua_ptr(uc->bad, &br, 0, false);
		return ua_reg(ring, IORING_REGISTER_PBUF_RING, &br, 1);
	case UA_UNREG_PBUF_RING:
		diff_put(r, "first", ua_reg(ring, IORING_REGISTER_PBUF_RING,
					    &br, 1));
		return ua_reg(ring, IORING_UNREGISTER_PBUF_RING,
			      ua_ptr(uc->bad, &br, sizeof(br), false), 1);
	case UA_REG_PBUF_STATUS:
		diff_put(r, "first", ua_reg(ring, IORING_REGISTER_PBUF_RING,
					    &br, 1));
		return ua_reg(ring, 26 /* IORING_REGISTER_PBUF_STATUS */,
			      ua_ptr(uc->bad, status, sizeof(status), false), 1);
	case UA_REG_EVENTFD:
		return ua_reg(ring, IORING_REGISTER_EVENTFD,
			      ua_ptr(uc->bad, &efd, sizeof(efd), false), 1);
	case UA_REG_EVENTFD_BUSY:
		diff_put(r, "first", ua_reg(ring, IORING_REGISTER_EVENTFD, &efd, 1));
		return ua_reg(ring, IORING_REGISTER_EVENTFD,
			      ua_ptr(uc->bad, &efd, sizeof(efd), false), 1);
	case UA_REG_PROBE:
		ret = ua_reg(ring, IORING_REGISTER_PROBE,
			     ua_ptr(uc->bad, probe, sizeof(probe), false), 4);
		return ret;
	case UA_REG_IOWQ_AFF:
		return ua_reg(ring, IORING_REGISTER_IOWQ_AFF,
			      ua_ptr(uc->bad, &cpus, sizeof(cpus), false),
			      sizeof(cpus));
	case UA_REG_IOWQ_AFF_SHORT:
		return ua_reg(ring, IORING_REGISTER_IOWQ_AFF,
			      ua_ptr(uc->bad, &cpus, 16, false), 8);
	case UA_REG_MAX_WORKERS:
		return ua_reg(ring, IORING_REGISTER_IOWQ_MAX_WORKERS,
			      ua_ptr(uc->bad, workers, sizeof(workers), false), 2);
	case UA_REG_RING_FDS:
		diff_put(r, "register", ua_reg(ring, IORING_REGISTER_RING_FDS,
			 ua_ptr(uc->bad, &ringfd, sizeof(ringfd), false), 1));
		/* a good one after: which offset it gets shows what was left */
		ringfd.offset = -1U;
		ret = ua_reg(ring, IORING_REGISTER_RING_FDS, &ringfd, 1);
		diff_put(r, "offset", (long long)ringfd.offset);
		return ret;
	case UA_UNREG_RING_FDS:
		ringfd.offset = 0;
		ringfd.data = 0;
		return ua_reg(ring, IORING_UNREGISTER_RING_FDS,
			      ua_ptr(uc->bad, &ringfd, sizeof(ringfd), false), 1);
	case UA_REG_SYNC_CANCEL:
		return ua_reg(ring, IORING_REGISTER_SYNC_CANCEL,
			      ua_ptr(uc->bad, &sc, sizeof(sc), false), 1);
	case UA_REG_ALLOC_RANGE:
		diff_put(r, "sparse", io_uring_register_files_sparse(ring, 4));
		return ua_reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE,
			      ua_ptr(uc->bad, &range, sizeof(range), false), 0);
	case UA_REG_CLOCK:
		return ua_reg(ring, 29 /* IORING_REGISTER_CLOCK */,
			      ua_ptr(uc->bad, clk, sizeof(clk), false), 0);
	default:
		return ua_reg(ring, IORING_REGISTER_RESTRICTIONS,
			      ua_ptr(uc->bad, &res, sizeof(res), false), 1);
	}
}

static void ua_reg_case(struct io_uring *ring, const struct ua_case *uc,
			int fd, struct diff_run *r)
{
	int ret;

	if (uc->op <= UA_REG_BUFS_UPDATE_DATA)
		ret = ua_reg_bufs(ring, uc, r);
	else if (uc->op <= UA_REG_FILES_UPDATE_ARG)
		ret = ua_reg_files(ring, uc, fd, r);
	else if (uc->op >= UA_REG_BUFS_SHARED_FILE)
		ret = ua_reg_bufs_mapped(ring, uc, fd);
	else
		ret = ua_reg_misc(ring, uc, r);
	diff_put(r, "register", ret);
}

/* a temp dir with the file "a" (8 KiB), the child's cwd */
static int ua_dir(struct diff_run *r)
{
	char dir[] = "/tmp/anyring-diff-ua-XXXXXX";
	char data[8192];
	int fd;

	if (!mkdtemp(dir) || chdir(dir)) {
		snprintf(r->msg, sizeof(r->msg), "temp dir: %s", strerror(errno));
		return -1;
	}
	fd = open("a", O_RDWR | O_CREAT, 0644);
	memset(data, 'x', sizeof(data));
	if (fd < 0 || write(fd, data, sizeof(data)) != (ssize_t)sizeof(data)) {
		snprintf(r->msg, sizeof(r->msg), "file: %s", strerror(errno));
		return -1;
	}
	return fd;
}

static void ua_cleanup(void)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)))
		return;
	unlink("a");
	unlink("b");
	unlink("c");
	unlink("d");
	if (chdir("/") == 0)
		rmdir(cwd);
}

/*
 * A provided buffer at a bad address (PROVIDE_BUFFERS takes it) that a
 * RECV with BUFFER_SELECT receives into, or a multishot RECVMSG writes
 * its io_uring_recvmsg_out header and payload into; data is queued
 * first. 2 CQEs: the multishot ends on the fault.
 */
static unsigned ua_recvbuf(struct io_uring *ring, const struct ua_case *uc,
			   struct diff_run *r)
{
	static struct msghdr msg;
	struct io_uring_sqe *sqe = ua_sqe(ring, 1);
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) || write(sv[0], "data", 4) != 4) {
		snprintf(r->msg, sizeof(r->msg), "sockets: %s", strerror(errno));
		sqe->opcode = IORING_OP_NOP;
		return 1;
	}
	io_uring_prep_provide_buffers(sqe, ua_ptr(uc->bad, ua_buf[0], 128, false),
				      128, 1, 1, 0);
	sqe = ua_sqe(ring, 2);
	if (uc->op == UA_RECV_SELECT_BUF) {
		io_uring_prep_recv(sqe, sv[1], NULL, 0, 0);
	} else {
		memset(&msg, 0, sizeof(msg));
		io_uring_prep_recvmsg(sqe, sv[1], &msg, 0);
		sqe->ioprio |= IORING_RECV_MULTISHOT;
	}
	sqe->flags |= IOSQE_BUFFER_SELECT | (__u8)uc->sqe_flags;
	sqe->buf_group = 1;
	return 2;
}

static unsigned ua_sqes(struct io_uring *ring, const struct ua_case *uc,
			int fd, struct diff_run *r)
{
	switch (uc->op) {
	case UA_READV: case UA_WRITEV: case UA_READV_BASE:
	case UA_READV_BADFD: case UA_READ_BUF_BADFD:
		return ua_rw(ring, uc, fd);
	case UA_TIMEOUT: case UA_LINK_TIMEOUT: case UA_TIMEOUT_UPDATE:
		return ua_timeout(ring, uc);
	case UA_FILES_UPDATE: case UA_FILES_UPDATE_ALLOC:
		return ua_files_update(ring, uc, fd, r);
	case UA_FSETXATTR_NAME: case UA_FSETXATTR_VALUE: case UA_SETXATTR_PATH:
	case UA_FGETXATTR_NAME: case UA_FGETXATTR_VALUE: case UA_GETXATTR_PATH:
		return ua_xattr(ring, uc, fd);
	case UA_EPOLL_CTL_EVENT: case UA_EPOLL_WAIT_EVENTS:
		return ua_epoll(ring, uc);
	case UA_PIPE_FDS: case UA_PIPE_FDS_DIRECT:
		return ua_pipe(ring, uc, r);
	case UA_READV_FIXED_IOV: case UA_WRITEV_FIXED_IOV:
		return ua_rw_fixed(ring, uc, fd, r);
	case UA_PROVIDE_BUFS: case UA_READV_SELECT_IOV:
		return ua_kbuf(ring, uc, fd);
	case UA_RECV_SELECT_BUF: case UA_RECVMSG_MSHOT_BUF:
		return ua_recvbuf(ring, uc, r);
	case UA_CONNECT_ADDR ... UA_SEND_ZC_BUF:
		return ua_net(ring, uc, r);
	case UA_FUTEX_WAIT: case UA_FUTEX_WAKE: case UA_FUTEX_WAITV:
	case UA_FUTEX_WAITV_WORD: case UA_FUTEX_WAITV_BADFIRST:
	case UA_WAITID_INFOP:
		return ua_waits(ring, uc, r);
	default:
		return ua_names(ring, uc);
	}
}

static void run_ua(const char *engine, const void *arg, struct diff_run *r)
{
	const struct ua_case *uc = arg;
	struct io_uring_params p;
	struct io_uring ring;
	unsigned nr;
	int fd, ret;

	if (uc->op == UA_SETUP) {
		ua_setup(engine, uc, r);
		return;
	}
	fd = ua_dir(r);
	if (fd < 0)
		return;
	memset(&p, 0, sizeof(p));
	p.flags = uc->ring_flags;
	ret = anyring_queue_init_engine(engine, 8, &ring, &p);
	if (ret) {
		snprintf(r->msg, sizeof(r->msg), "ring setup: %s", strerror(-ret));
		ua_cleanup();
		return;
	}
	if (uc->op >= UA_REG_BUFS_IOV) {
		ua_reg_case(&ring, uc, fd, r);
	} else if (uc->op >= UA_ENTER_ARG) {
		ua_enter_case(&ring, uc, r);
	} else {
		nr = ua_sqes(&ring, uc, fd, r);
		if (nr) {
			ret = io_uring_submit(&ring);
			diff_put(r, "submit", ret);
			/*
			 * An SQE refused at submit ends the submit there: the
			 * SQEs after it are not consumed and post nothing.
			 */
			ua_reap(&ring, r, ret < 0 ? 0 :
				(unsigned)ret < nr ? (unsigned)ret : nr);
		}
	}
	io_uring_queue_exit(&ring);
	ua_cleanup();
}

/* ---- the table ---- */

#define UA(nm, ...)	{ .name = "ua_" nm, .run = run_ua, \
			  .arg = &(const struct ua_case){ __VA_ARGS__ } }
/* the bad inputs but NULL (which means "none" for some) */
#define UA5(nm, o, rf, sf)						\
	UA(nm "_one", o, UA_ONE, rf, sf),				\
	UA(nm "_prot_none", o, UA_PROT_NONE, rf, sf),			\
	UA(nm "_unmapped", o, UA_UNMAPPED, rf, sf),			\
	UA(nm "_straddle", o, UA_STRADDLE, rf, sf),			\
	UA(nm "_noncanon", o, UA_NONCANON, rf, sf)
/* the six bad inputs */
#define UA6(nm, o, rf, sf)						\
	UA(nm "_null", o, UA_NULL, rf, sf), UA5(nm, o, rf, sf)
/* a path: the six, the straddle being a name with no NUL, and too long */
#define UAPATH(nm, o)	UA6(nm, o, 0, 0), UA(nm "_long", o, UA_LONG, 0, 0)

const struct diff_call diff_uaccess[] = {
	UA6("readv_iov", UA_READV, 0, 0),
	UA6("readv_iov_async", UA_READV, 0, IOSQE_ASYNC),
	UA6("readv_iov_sqpoll", UA_READV, IORING_SETUP_SQPOLL, 0),
	UA6("writev_iov", UA_WRITEV, 0, 0),
	/* the second iovec's base is bad: the first one's bytes are the result */
	UA6("readv_iov_base", UA_READV_BASE, 0, 0),
	UA6("readv_iov_base_async", UA_READV_BASE, 0, IOSQE_ASYNC),
	UA("readv_iov_unmapped_bad_fd", UA_READV_BADFD, UA_UNMAPPED, 0, 0),
	UA("read_buf_noncanon_bad_fd", UA_READ_BUF_BADFD, UA_NONCANON, 0, 0),
	UA6("timeout_ts", UA_TIMEOUT, 0, 0),
	UA6("link_timeout_ts", UA_LINK_TIMEOUT, 0, 0),
	UA6("timeout_update_ts", UA_TIMEOUT_UPDATE, 0, 0),
	UAPATH("openat_path", UA_OPENAT),
	UAPATH("openat2_path", UA_OPENAT2_PATH),
	UA6("openat2_how", UA_OPENAT2_HOW, 0, 0),
	UA("openat2_how_tail_unmapped", UA_OPENAT2_HOW_TAIL, UA_NULL, 0, 0),
	UAPATH("statx_path", UA_STATX_PATH),
	UA("statx_buf_rdonly", UA_STATX_BUF, UA_RDONLY, 0, 0),
	UA("statx_buf_prot_none", UA_STATX_BUF, UA_PROT_NONE, 0, 0),
	UA("statx_buf_noncanon", UA_STATX_BUF, UA_NONCANON, 0, 0),
	UAPATH("renameat_old", UA_RENAME_OLD),
	UAPATH("renameat_new", UA_RENAME_NEW),
	UAPATH("unlinkat_path", UA_UNLINK),
	UAPATH("mkdirat_path", UA_MKDIR),
	UAPATH("symlinkat_target", UA_SYMLINK_TARGET),
	UAPATH("symlinkat_new", UA_SYMLINK_NEW),
	UAPATH("linkat_old", UA_LINK_OLD),
	UAPATH("linkat_new", UA_LINK_NEW),
	UA6("files_update_fds", UA_FILES_UPDATE, 0, 0),
	UA6("files_update_alloc_fds", UA_FILES_UPDATE_ALLOC, 0, 0),
	UA("files_update_alloc_fds_rdonly", UA_FILES_UPDATE_ALLOC, UA_RDONLY,
	   0, 0),
	UAPATH("fsetxattr_name", UA_FSETXATTR_NAME),
	UA6("fsetxattr_value", UA_FSETXATTR_VALUE, 0, 0),
	UAPATH("setxattr_path", UA_SETXATTR_PATH),
	UAPATH("fgetxattr_name", UA_FGETXATTR_NAME),
	UA6("fgetxattr_value", UA_FGETXATTR_VALUE, 0, 0),
	UA("fgetxattr_value_rdonly", UA_FGETXATTR_VALUE, UA_RDONLY, 0, 0),
	UAPATH("getxattr_path", UA_GETXATTR_PATH),
	UA6("epoll_ctl_event", UA_EPOLL_CTL_EVENT, 0, 0),
	UA6("epoll_wait_events", UA_EPOLL_WAIT_EVENTS, 0, 0),
	UA("epoll_wait_events_rdonly", UA_EPOLL_WAIT_EVENTS, UA_RDONLY, 0, 0),
	UA6("pipe_fds", UA_PIPE_FDS, 0, 0),
	UA("pipe_fds_rdonly", UA_PIPE_FDS, UA_RDONLY, 0, 0),
	UA6("pipe_direct_fds", UA_PIPE_FDS_DIRECT, 0, 0),
	UA("pipe_direct_fds_rdonly", UA_PIPE_FDS_DIRECT, UA_RDONLY, 0, 0),
	UA6("readv_fixed_iov", UA_READV_FIXED_IOV, 0, 0),
	UA6("writev_fixed_iov", UA_WRITEV_FIXED_IOV, 0, 0),
	/* sockets: NULL is "none" for SEND's destination */
	UA6("connect_addr", UA_CONNECT_ADDR, 0, 0),
	UA6("bind_addr", UA_BIND_ADDR, 0, 0),
	UA5("sendto_addr", UA_SENDTO_ADDR, 0, 0),
	UA6("send_buf", UA_SEND_BUF, 0, 0),
	UA6("send_zc_buf", UA_SEND_ZC_BUF, 0, 0),
	UA6("recv_buf", UA_RECV_BUF, 0, 0),
	UA6("recv_buf_async", UA_RECV_BUF, 0, IOSQE_ASYNC),
	UA6("sendmsg_hdr", UA_SENDMSG_HDR, 0, 0),
	UA6("recvmsg_hdr", UA_RECVMSG_HDR, 0, 0),
	UA("recvmsg_hdr_rdonly", UA_RECVMSG_HDR, UA_RDONLY, 0, 0),
	/* msg_flags not readable: the kernel's prep does not read it */
	UA("sendmsg_hdr_tail", UA_SENDMSG_HDR, UA_TAIL, 0, 0),
	UA("recvmsg_hdr_tail", UA_RECVMSG_HDR, UA_TAIL, 0, 0),
	UA6("sendmsg_iov", UA_SENDMSG_IOV, 0, 0),
	UA6("recvmsg_iov", UA_RECVMSG_IOV, 0, 0),
	UA5("sendmsg_name", UA_SENDMSG_NAME, 0, 0),
	UA5("recvmsg_name", UA_RECVMSG_NAME, 0, 0),
	UA5("recvmsg_control", UA_RECVMSG_CONTROL, 0, 0),
	UA5("accept_addr", UA_ACCEPT_ADDR, 0, 0),
	UA5("accept_addrlen", UA_ACCEPT_ADDRLEN, 0, 0),
	UA6("futex_wait_word", UA_FUTEX_WAIT, 0, 0),
	UA6("futex_wake_word", UA_FUTEX_WAKE, 0, 0),
	UA6("futex_waitv_vec", UA_FUTEX_WAITV, 0, 0),
	UA6("futex_waitv_word", UA_FUTEX_WAITV_WORD, 0, 0),
	UA6("futex_waitv_badfirst", UA_FUTEX_WAITV_BADFIRST, 0, 0),
	UA5("waitid_infop", UA_WAITID_INFOP, 0, 0),
	UA("waitid_infop_rdonly", UA_WAITID_INFOP, UA_RDONLY, 0, 0),
	UA6("enter_ext_arg", UA_ENTER_ARG, 0, 0),
	/* a NULL timespec is no timeout */
	UA5("enter_ext_arg_ts", UA_ENTER_TS, 0, 0),
	UA6("enter_ext_arg_sigmask", UA_ENTER_SIGMASK, 0, 0),
	UA6("enter_sigmask", UA_ENTER_SIGMASK_PLAIN, 0, 0),
	UA("enter_sigmask_unmapped_cqe_ready", UA_ENTER_SIGMASK_READY,
	   UA_UNMAPPED, 0, 0),
	UA("enter_sigmask_sz_4_ts_unmapped", UA_ENTER_SIGMASK_SZ_BAD_TS,
	   UA_UNMAPPED, 0, 0),
	UA6("setup_params", UA_SETUP, 0, 0),
	UA("setup_params_rdonly", UA_SETUP, UA_RDONLY, 0, 0),
	UA6("reg_buffers_iov", UA_REG_BUFS_IOV, 0, 0),
	UA6("reg_buffers_base", UA_REG_BUFS_BASE, 0, 0),
	UA("reg_buffers_base_rdonly", UA_REG_BUFS_BASE, UA_RDONLY, 0, 0),
	UA6("reg_buffers2_arg", UA_REG_BUFS2_ARG, 0, 0),
	UA6("reg_buffers2_data", UA_REG_BUFS2_DATA, 0, 0),
	UA6("reg_buffers2_tags", UA_REG_BUFS2_TAGS, 0, 0),
	UA6("reg_buffers_update_arg", UA_REG_BUFS_UPDATE_ARG, 0, 0),
	UA6("reg_buffers_update_data", UA_REG_BUFS_UPDATE_DATA, 0, 0),
	UA("reg_buffers_shared_file", UA_REG_BUFS_SHARED_FILE, UA_NULL, 0, 0),
	UA("reg_buffers_private_file", UA_REG_BUFS_PRIVATE_FILE, UA_NULL, 0, 0),
	UA("reg_buffers_memfd", UA_REG_BUFS_MEMFD, UA_NULL, 0, 0),
	UA("reg_buffers_shared_anon", UA_REG_BUFS_SHARED_ANON, UA_NULL, 0, 0),
	UA6("reg_files_fds", UA_REG_FILES_FDS, 0, 0),
	UA6("reg_files2_arg", UA_REG_FILES2_ARG, 0, 0),
	UA6("reg_files2_data", UA_REG_FILES2_DATA, 0, 0),
	UA6("reg_files2_tags", UA_REG_FILES2_TAGS, 0, 0),
	UA6("reg_files_update2_arg", UA_REG_FILES_UPDATE2_ARG, 0, 0),
	UA6("reg_files_update2_tags", UA_REG_FILES_UPDATE2_TAGS, 0, 0),
	UA6("reg_files_update_arg", UA_REG_FILES_UPDATE_ARG, 0, 0),
	UA6("reg_eventfd", UA_REG_EVENTFD, 0, 0),
	UA6("reg_eventfd_busy", UA_REG_EVENTFD_BUSY, 0, 0),
	UA6("reg_probe", UA_REG_PROBE, 0, 0),
	UA("reg_probe_rdonly", UA_REG_PROBE, UA_RDONLY, 0, 0),
	UA6("reg_iowq_aff", UA_REG_IOWQ_AFF, 0, 0),
	UA6("reg_iowq_aff_short", UA_REG_IOWQ_AFF_SHORT, 0, 0),
	UA6("reg_iowq_max_workers", UA_REG_MAX_WORKERS, 0, 0),
	UA("reg_iowq_max_workers_rdonly", UA_REG_MAX_WORKERS, UA_RDONLY, 0, 0),
	UA6("reg_ring_fds", UA_REG_RING_FDS, 0, 0),
	UA("reg_ring_fds_rdonly", UA_REG_RING_FDS, UA_RDONLY, 0, 0),
	UA6("unreg_ring_fds", UA_UNREG_RING_FDS, 0, 0),
	UA6("reg_sync_cancel", UA_REG_SYNC_CANCEL, 0, 0),
	UA6("reg_file_alloc_range", UA_REG_ALLOC_RANGE, 0, 0),
	UA6("reg_clock", UA_REG_CLOCK, 0, 0),
	UA6("reg_restrictions", UA_REG_RESTRICTIONS, IORING_SETUP_R_DISABLED, 0),
	UA6("provide_buffers_addr", UA_PROVIDE_BUFS, IORING_SETUP_SUBMIT_ALL, 0),
	UA6("readv_select_iov", UA_READV_SELECT_IOV, 0, 0),
	UA6("recv_select_buf", UA_RECV_SELECT_BUF, 0, 0),
	UA("recv_select_buf_rdonly", UA_RECV_SELECT_BUF, UA_RDONLY, 0, 0),
	UA6("recvmsg_mshot_buf", UA_RECVMSG_MSHOT_BUF, 0, 0),
	UA("recvmsg_mshot_buf_rdonly", UA_RECVMSG_MSHOT_BUF, UA_RDONLY, 0, 0),
	UA6("reg_pbuf_ring_arg", UA_REG_PBUF_RING, 0, 0),
	UA6("reg_pbuf_ring_mem", UA_REG_PBUF_RING_MEM, 0, 0),
	UA("reg_pbuf_ring_mem_rdonly", UA_REG_PBUF_RING_MEM, UA_RDONLY, 0, 0),
	UA6("unreg_pbuf_ring_arg", UA_UNREG_PBUF_RING, 0, 0),
	UA6("reg_pbuf_status", UA_REG_PBUF_STATUS, 0, 0),
	UA("reg_pbuf_status_rdonly", UA_REG_PBUF_STATUS, UA_RDONLY, 0, 0),
	{ .name = NULL },
};

const struct diff_call *const diff_call_tables[] = {
	diff_setup, diff_uaccess, NULL,
};
