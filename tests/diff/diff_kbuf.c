/* SPDX-License-Identifier: MIT */
/*
 * diff_kbuf.c - provided buffers (kbuf.c): PROVIDE_BUFFERS and
 * REMOVE_BUFFERS (results, groups, every prep check), buffer rings
 * registered with IORING_REGISTER_PBUF_RING (the registration's checks, a
 * group being a list or a ring, PBUF_STATUS, wrap-around), and
 * IOSQE_BUFFER_SELECT on READ and READV: the buffer chosen, the CQE's
 * IORING_CQE_F_BUFFER and buffer id, -ENOBUFS, a read that waits on a
 * pipe giving its buffer back (the one after it takes it), and which
 * failures consume the buffer. The bytes read are checked in the buffers.
 *
 * Then receives into provided buffers: RECV and RECVMSG with
 * IOSQE_BUFFER_SELECT from a list (PROVIDE_BUFFERS) and from a registered
 * ring (the CQE's IORING_CQE_F_BUFFER and bid, -ENOBUFS, the buffer given
 * back while the request waits), multishot RECV (one buffer per CQE with
 * MORE; ended by EOF, -ENOBUFS, a full CQ and a cancel; SOCK_NONEMPTY;
 * ring wrap-around), multishot RECVMSG's io_uring_recvmsg_out layout
 * (name, control, payload, truncation), and READ_MULTISHOT on pipes and
 * eventfds with its prep checks. Over unix socketpairs, loopback TCP and
 * UDP, pipes. Deterministic: the data is written before the submit.
 *
 * Memory, reads: list buffers are 64-byte slices of buf[0], ring buffers
 * of buf[1]; buf[3] holds the ring (page aligned). Receives: list buffers
 * are slices of buf[0], ring buffers of buf[1]; buf[2] holds the msghdr,
 * its iovec, name and control space; buf[3] the ring. Ports are never
 * compared: notes say whether a name was the sender's (its port in
 * val[2]).
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include "harness.h"
#include "compat.h"

#define FILE_LEN	8192
#define BSZ		64
#define PBUF_STATUS	26	/* IORING_REGISTER_PBUF_STATUS (6.8) */

struct buf_status {
	__u32 buf_group;
	__u32 head;
	__u32 resv[8];
};

static char *pattern(size_t len)
{
	static char p[FILE_LEN];

	diff_pattern(p, len, 1);
	return p;
}

static int setup_data(struct diff_ctx *c)
{
	return diff_data_file(c, FILE_LEN, O_RDWR);
}

static void prep_provide(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
			 void *addr, int len, int nr, int bgid, int bid)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_provide_buffers(sqe, addr, len, nr, bgid, bid);
	diff_tag(sqe, ud, 0);
}

/* READ with IOSQE_BUFFER_SELECT from group bgid */
static struct io_uring_sqe *prep_read_sel(struct io_uring *ring,
					  struct diff_ctx *c, __u64 ud, int fd,
					  unsigned len, __u64 off, int bgid,
					  unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_read(sqe, fd, NULL, len, off);
	diff_tag(sqe, ud, IOSQE_BUFFER_SELECT | flags);
	sqe->buf_group = (__u16)bgid;
	return sqe;
}

static int reg(struct io_uring *ring, unsigned op, void *arg, unsigned nr)
{
	return io_uring_register(ring->ring_fd, op, arg, nr);
}

/* a ring of entries in buf[3] for group bgid; the result is noted at key */
static struct io_uring_buf_ring *ring_register(struct io_uring *ring,
					       struct diff_ctx *c,
					       unsigned entries, int bgid,
					       __u64 key)
{
	struct io_uring_buf_ring *br = (void *)c->buf[3];
	struct ar_buf_reg r;

	memset(&r, 0, sizeof(r));
	io_uring_buf_ring_init(br);
	r.ring_addr = (unsigned long)br;
	r.ring_entries = entries;
	r.bgid = (__u16)bgid;
	diff_note(c, key, io_uring_register_buf_ring(ring, (void *)&r, 0));
	return br;
}

/* n buffers of BSZ from buf[1] + BSZ * first, bids first.., then advance */
static void ring_add(struct diff_ctx *c, struct io_uring_buf_ring *br,
		     unsigned entries, unsigned first, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		io_uring_buf_ring_add(br, c->buf[1] + BSZ * ((first + i) % 64),
				      BSZ, (unsigned short)(first + i),
				      io_uring_buf_ring_mask(entries), (int)i);
	io_uring_buf_ring_advance(br, (int)n);
}

static void note_status(struct io_uring *ring, struct diff_ctx *c, int bgid,
			__u64 key)
{
	struct buf_status st;

	memset(&st, 0, sizeof(st));
	st.buf_group = (__u32)bgid;
	st.head = 0xdead;
	diff_note(c, key, reg(ring, PBUF_STATUS, &st, 1));
	diff_note(c, key + 1, (int)st.head);
}

/* ---- PROVIDE_BUFFERS / REMOVE_BUFFERS ---- */

static int fill_provide_remove(struct io_uring *ring, struct diff_ctx *c)
{
	prep_provide(ring, c, 1, c->buf[0], BSZ, 4, 1, 0);
	prep_provide(ring, c, 2, c->buf[0], BSZ, 2, 2, 100);
	diff_prep_remove_buffers(ring, c, 3, 3, 1);
	diff_prep_remove_buffers(ring, c, 4, 5, 1);
	diff_prep_remove_buffers(ring, c, 5, 1, 1);		/* empty: the group stays */
	diff_prep_remove_buffers(ring, c, 6, 1, 9);		/* never made */
	prep_provide(ring, c, 7, c->buf[0], BSZ, 1, 65535, 7);
	diff_prep_remove_buffers(ring, c, 8, 65536, 65535);
	diff_prep_remove_buffers(ring, c, 9, 65536, 2);
	return 0;
}

/* each prep check; SUBMIT_ALL so that every one runs */
static int fill_provide_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	prep_provide(ring, c, 1, c->buf[0], BSZ, 0, 1, 0);
	prep_provide(ring, c, 2, c->buf[0], BSZ, 65537, 1, 0);
	prep_provide(ring, c, 3, c->buf[0], BSZ, -1, 1, 0);
	prep_provide(ring, c, 4, c->buf[0], 0, 1, 1, 0);
	prep_provide(ring, c, 5, (void *)-64L, BSZ, 2, 1, 0);
	prep_provide(ring, c, 6, (void *)(1UL << 60), BSZ, 2, 1, 0);
	prep_provide(ring, c, 7, c->buf[0], BSZ, 1, 1, 65536);
	prep_provide(ring, c, 8, c->buf[0], BSZ, 2, 1, 65535);
	prep_provide(ring, c, 9, c->buf[0], BSZ, 1, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_provide_buffers(sqe, c->buf[0], BSZ, 1, 1, 0);
	sqe->rw_flags = 1;
	diff_tag(sqe, 10, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_provide_buffers(sqe, c->buf[0], BSZ, 1, 1, 0);
	diff_tag(sqe, 11, IOSQE_BUFFER_SELECT);
	sqe = diff_sqe(ring, c);
	io_uring_prep_remove_buffers(sqe, 1, 1);
	sqe->addr = 1;
	diff_tag(sqe, 12, 0);
	diff_prep_remove_buffers(ring, c, 13, 0, 1);
	diff_prep_remove_buffers(ring, c, 14, 65537, 1);
	sqe = diff_sqe(ring, c);
	io_uring_prep_remove_buffers(sqe, 1, 1);
	sqe->off = 1;
	diff_tag(sqe, 15, 0);
	/* a NULL address is taken: the read into it faults */
	prep_provide(ring, c, 16, NULL, BSZ, 1, 3, 0);
	return 0;
}

/* ---- READ with a list group ---- */

/* reads 2-4 take a buffer each from group 1; read 5 finds none */
static void prep_reads_group1(struct io_uring *ring, struct diff_ctx *c)
{
	prep_read_sel(ring, c, 2, c->val[0], 0, 0, 1, 0);
	prep_read_sel(ring, c, 3, c->val[0], 16, 100, 1, 0);
	prep_read_sel(ring, c, 4, c->val[0], 100, 200, 1, 0);
	prep_read_sel(ring, c, 5, c->val[0], 0, 0, 1, 0);
}

static int fill_read_legacy(struct io_uring *ring, struct diff_ctx *c)
{
	prep_provide(ring, c, 1, c->buf[0], BSZ, 3, 1, 10);
	prep_reads_group1(ring, c);
	prep_read_sel(ring, c, 6, c->val[0], 0, 0, 2, 0);
	return 0;
}

static int check_read_three(struct diff_ctx *c, const char *base)
{
	const char *p = pattern(FILE_LEN);

	if (diff_check_buf(c, base, p, BSZ, "buffer 0"))
		return -1;
	if (diff_check_buf(c, base + BSZ, p + 100, 16, "buffer 1"))
		return -1;
	return diff_check_buf(c, base + 2 * BSZ, p + 200, BSZ, "buffer 2");
}

static int check_read_legacy(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_read_three(c, c->buf[0]);
}

/* READV with one iovec: its length is the length asked (0: the buffer's) */
static int fill_readv_sel(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	static const size_t len[4] = { 0, 16, 0, (size_t)-1 };
	unsigned i;

	prep_provide(ring, c, 1, c->buf[0], BSZ, 3, 1, 0);
	for (i = 0; i < 4; i++) {
		c->iov[i].iov_base = NULL;
		c->iov[i].iov_len = len[i];
		sqe = diff_sqe(ring, c);
		/* the third: two iovecs, refused */
		io_uring_prep_readv(sqe, c->val[0], &c->iov[i], i == 2 ? 2 : 1,
				    100 * i);
		diff_tag(sqe, 2 + i, IOSQE_BUFFER_SELECT);
		sqe->buf_group = 1;
	}
	return 0;
}

/* ---- READ with a buffer ring ---- */


static int fill_read_ring(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = ring_register(ring, c, 4, 1, 1000);

	ring_add(c, br, 4, 20, 3);
	prep_reads_group1(ring, c);
	return 0;
}

static int after_read_ring(struct io_uring *ring, struct diff_ctx *c)
{
	note_status(ring, c, 1, 1001);
	return 0;
}

static int check_read_ring(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	(void)cqe;
	(void)nr;
	return check_read_three(c, c->buf[1] + 20 * BSZ);
}

/*
 * The ring's memory (shared) unmapped by the program once registered:
 * the kernel pinned its pages and goes on reading them; so must the user
 * engine, through its own mapping of the same pages (pin.c). Private
 * memory is read in place (semantics.md D19): not unmapped here.
 */
static int fill_ring_unmapped(struct io_uring *ring, struct diff_ctx *c,
			      int share)
{
	struct io_uring_buf_ring *br;
	struct ar_buf_reg r;
	void *mem;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   share | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	br = mem;
	io_uring_buf_ring_init(br);
	memset(&r, 0, sizeof(r));
	r.ring_addr = (unsigned long)br;
	r.ring_entries = 4;
	r.bgid = 1;
	diff_note(c, 1000, io_uring_register_buf_ring(ring, (void *)&r, 0));
	ring_add(c, br, 4, 20, 3);
	munmap(mem, 4096);
	prep_reads_group1(ring, c);
	return 0;
}

static int fill_ring_unmapped_shared(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_ring_unmapped(ring, c, MAP_SHARED);
}

/* a ring of 4: four reads, four more buffers past the end, four reads */
static int fill_ring_wrap(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = ring_register(ring, c, 4, 3, 1000);
	unsigned round, i;

	for (round = 0; round < 3; round++) {
		ring_add(c, br, 4, 4 * round, round == 2 ? 3 : 4);
		for (i = 0; i < 4; i++)
			prep_read_sel(ring, c, 1 + 4 * round + i, c->val[0], 0,
				      BSZ * (4 * round + i), 3, 0);
		if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 4))
			return -1;
		note_status(ring, c, 3, 1001 + 2 * round);
	}
	return 0;
}

static int check_ring_wrap(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	const char *p = pattern(FILE_LEN);
	unsigned i;

	(void)cqe;
	(void)nr;
	for (i = 0; i < 11; i++)
		if (diff_check_buf(c, c->buf[1] + BSZ * i, p + BSZ * i, BSZ,
				   "ring buffer"))
			return -1;
	return 0;
}

/* ---- reads that wait on a pipe give their buffer back ---- */

/* pipe B holds 8 bytes: its read takes the buffer A's read gave back */
static int fill_pipe_wait(struct io_uring *ring, struct diff_ctx *c, bool rb)
{
	struct io_uring_buf_ring *br;

	if (write(c->val[3], "abcdefgh", 8) != 8)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	if (rb) {
		br = ring_register(ring, c, 4, 1, 1000);
		ring_add(c, br, 4, 0, 2);
		diff_prep_nop(ring, c, 1, 0);
	} else {
		prep_provide(ring, c, 1, c->buf[0], BSZ, 2, 1, 0);
	}
	prep_read_sel(ring, c, 2, c->val[0], 0, 0, 1, 0);
	prep_read_sel(ring, c, 3, c->val[2], 0, 0, 1, 0);
	return 0;
}

static int fill_pipe_wait_legacy(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_pipe_wait(ring, c, false);
}

static int fill_pipe_wait_ring(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_pipe_wait(ring, c, true);
}

/* the bytes are in the buffers the CQEs name */
static int check_pipe_wait(struct diff_ctx *c, const char *base,
			   const struct diff_cqe *cqe, unsigned nr)
{
	const struct diff_cqe *a = diff_find(cqe, nr, 2);
	const struct diff_cqe *b = diff_find(cqe, nr, 3);

	if (!a || !b || !(a->flags & IORING_CQE_F_BUFFER) ||
	    !(b->flags & IORING_CQE_F_BUFFER))
		return diff_fail(c, "a read without its buffer");
	if (diff_check_buf(c, base + BSZ * (b->flags >> IORING_CQE_BUFFER_SHIFT),
			   "abcdefgh", 8, "pipe B's read"))
		return -1;
	return diff_check_buf(c, base + BSZ * (a->flags >> IORING_CQE_BUFFER_SHIFT),
			      "hello", 5, "pipe A's read");
}

static int check_pipe_wait_legacy(struct diff_ctx *c,
				  const struct diff_cqe *cqe, unsigned nr)
{
	return check_pipe_wait(c, c->buf[0], cqe, nr);
}

static int check_pipe_wait_ring(struct diff_ctx *c, const struct diff_cqe *cqe,
				unsigned nr)
{
	return check_pipe_wait(c, c->buf[1], cqe, nr);
}

/* a read waiting on a pipe is cancelled: it holds no buffer */
static int fill_pipe_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	prep_provide(ring, c, 1, c->buf[0], BSZ, 2, 1, 0);
	prep_read_sel(ring, c, 2, c->val[0], 0, 0, 1, 0);
	diff_prep_cancel(ring, c, 3, 2, 0);
	prep_read_sel(ring, c, 4, c->val[2], 0, 0, 1, 0);
	if (write(c->val[3], "xy", 2) != 2)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	return 0;
}

/* a read waiting on a pipe with its list buffer, ended by a LINK_TIMEOUT */
static int fill_pipe_link_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	prep_provide(ring, c, 1, c->buf[0], BSZ, 2, 1, 0);
	prep_read_sel(ring, c, 2, c->val[0], 0, 0, 1, IOSQE_IO_LINK);
	diff_ts(c, 0, 20);
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 3, 0);
	return 0;
}

/* a short read breaks its link; a full one does not */
static int fill_link_short(struct io_uring *ring, struct diff_ctx *c)
{
	if (write(c->val[3], "0123456789", 10) != 10)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	prep_provide(ring, c, 1, c->buf[0], BSZ, 4, 1, 0);
	prep_read_sel(ring, c, 2, c->val[2], 0, 0, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	prep_read_sel(ring, c, 4, c->val[0], 0, 0, 1, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 5, 0);
	return 0;
}

static int setup_pipes_data(struct diff_ctx *c)
{
	int fd;

	if (diff_setup_pipes(c))
		return -1;
	fd = diff_file(c, "data", pattern(FILE_LEN), FILE_LEN, O_RDONLY);
	if (fd < 0)
		return -1;
	/* val[0] is pipe A's read end; the link scenario reads the file */
	c->val[0] = fd;
	return 0;
}

/* reads in a worker (IOSQE_ASYNC), one after the other */
static int fill_async_chain(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = ring_register(ring, c, 8, 2, 1000);

	ring_add(c, br, 8, 0, 2);
	prep_provide(ring, c, 1, c->buf[0], BSZ, 2, 1, 0);
	prep_read_sel(ring, c, 2, c->val[0], 0, 0, 1,
		      IOSQE_ASYNC | IOSQE_IO_LINK);
	prep_read_sel(ring, c, 3, c->val[0], 0, BSZ, 1,
		      IOSQE_ASYNC | IOSQE_IO_LINK);
	prep_read_sel(ring, c, 4, c->val[0], 0, 2 * BSZ, 2,
		      IOSQE_ASYNC | IOSQE_IO_LINK);
	prep_read_sel(ring, c, 5, c->val[0], 0, 3 * BSZ, 2, IOSQE_ASYNC);
	return 0;
}

/* ---- failures: which consume the buffer ---- */

static char *prot_none_page(void)
{
	static char *p;

	if (!p) {
		p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	}
	return p;
}

/*
 * A list group: a bad fd (before any selection: nothing taken), a file
 * not open for reading, an RWF flag 6.18 does not know, a buffer that
 * faults; each later read shows which buffers are left.
 */
static int fill_errors_legacy(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int wfd = diff_file(c, "w", NULL, 0, O_WRONLY);
	char *bad = prot_none_page();

	if (wfd < 0 || !bad)
		return diff_fail(c, "setup");
	prep_provide(ring, c, 1, c->buf[0], BSZ, 4, 1, 0);
	prep_read_sel(ring, c, 2, 999, 0, 0, 1, 0);
	prep_read_sel(ring, c, 3, wfd, 0, 0, 1, 0);
	sqe = prep_read_sel(ring, c, 4, c->val[0], 0, 0, 1, 0);
	sqe->rw_flags = 0x10000;
	prep_read_sel(ring, c, 5, c->val[0], 0, 0, 1, 0);
	prep_provide(ring, c, 6, bad, BSZ, 1, 2, 7);
	prep_read_sel(ring, c, 7, c->val[0], 0, 0, 2, 0);
	prep_read_sel(ring, c, 8, c->val[0], 0, 0, 2, 0);
	/* a NULL buffer is taken, and answers -ENOBUFS */
	prep_provide(ring, c, 9, NULL, BSZ, 1, 3, 5);
	prep_read_sel(ring, c, 10, c->val[0], 0, 0, 3, 0);
	prep_read_sel(ring, c, 11, c->val[0], 0, 0, 3, 0);
	/* no buffer and an unknown RWF flag: which comes first */
	sqe = prep_read_sel(ring, c, 12, c->val[0], 0, 0, 9, 0);
	sqe->rw_flags = 0x10000;
	return 0;
}

/* the same with a buffer ring, on a file (val[0]) or a pipe (val[2]) */
static int fill_errors_ring(struct io_uring *ring, struct diff_ctx *c,
			    int fd)
{
	struct io_uring_buf_ring *br = ring_register(ring, c, 8, 1, 1000);
	struct io_uring_sqe *sqe;
	char *bad = prot_none_page();

	if (!bad)
		return diff_fail(c, "mmap");
	if (write(c->val[3], "0123456789abcdef", 16) != 16)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	/* bid 0 faults, bid 1 is beyond user space, 2 is NULL, 3.. good */
	io_uring_buf_ring_add(br, bad, BSZ, 0, 7, 0);
	io_uring_buf_ring_add(br, (void *)(1UL << 60), BSZ, 1, 7, 1);
	io_uring_buf_ring_add(br, NULL, BSZ, 2, 7, 2);
	io_uring_buf_ring_advance(br, 3);
	ring_add(c, br, 8, 3, 3);
	prep_read_sel(ring, c, 2, 999, 0, 0, 1, 0);
	sqe = prep_read_sel(ring, c, 3, fd, 4, 0, 1, 0);
	sqe->rw_flags = 0x10000;
	prep_read_sel(ring, c, 4, fd, 4, 0, 1, 0);
	prep_read_sel(ring, c, 5, fd, 4, 0, 1, 0);
	prep_read_sel(ring, c, 6, fd, 4, 0, 1, 0);
	prep_read_sel(ring, c, 7, fd, 4, 0, 1, 0);
	return 0;
}

static int fill_errors_ring_file(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_errors_ring(ring, c, c->val[0]);
}

static int fill_errors_ring_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_errors_ring(ring, c, c->val[2]);
}

/* a pipe read whose ring buffer is bad: given back each time */
static int fill_ring_pipe_bad(struct io_uring *ring, struct diff_ctx *c,
			      void *addr)
{
	struct io_uring_buf_ring *br = ring_register(ring, c, 8, 1, 1000);

	if (write(c->val[3], "0123456789abcdef", 16) != 16)
		return diff_fail(c, "write pipe: %s", strerror(errno));
	io_uring_buf_ring_add(br, addr, BSZ, 0, 7, 0);
	io_uring_buf_ring_advance(br, 1);
	prep_read_sel(ring, c, 1, c->val[2], 4, 0, 1, 0);
	prep_read_sel(ring, c, 2, c->val[2], 4, 0, 1, 0);
	return 0;
}

static int fill_ring_pipe_null(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_ring_pipe_bad(ring, c, NULL);
}

static int fill_ring_pipe_kaddr(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_ring_pipe_bad(ring, c, (void *)(1UL << 60));
}

/* ---- a group is a list or a ring ---- */

static int fill_group_kinds(struct io_uring *ring, struct diff_ctx *c)
{
	struct ar_buf_reg r;

	prep_provide(ring, c, 1, c->buf[0], BSZ, 2, 1, 0);
	prep_provide(ring, c, 2, c->buf[0], BSZ, 2, 2, 0);
	diff_prep_remove_buffers(ring, c, 3, 2, 2);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 3))
		return -1;
	ring_register(ring, c, 4, 1, 1000);	/* a list with buffers */
	ring_register(ring, c, 4, 2, 1001);	/* an empty list: replaced */
	ring_register(ring, c, 4, 2, 1002);	/* a ring */
	prep_provide(ring, c, 4, c->buf[0], BSZ, 1, 2, 0);
	diff_prep_remove_buffers(ring, c, 5, 1, 2);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	memset(&r, 0, sizeof(r));
	r.bgid = 1;
	diff_note(c, 1003, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	r.bgid = 7;
	diff_note(c, 1004, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	note_status(ring, c, 1, 1005);
	note_status(ring, c, 7, 1007);
	note_status(ring, c, 2, 1009);
	r.bgid = 2;
	diff_note(c, 1011, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	diff_note(c, 1012, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	diff_prep_remove_buffers(ring, c, 6, 1, 2);
	prep_read_sel(ring, c, 7, c->val[0], 0, 0, 2, 0);
	return 0;
}

/* ---- registration checks ---- */

static void note_reg(struct io_uring *ring, struct diff_ctx *c, __u64 key,
		     __u64 addr, unsigned entries, int bgid, unsigned flags,
		     unsigned resv)
{
	struct ar_buf_reg r;

	memset(&r, 0, sizeof(r));
	r.ring_addr = addr;
	r.ring_entries = entries;
	r.bgid = (__u16)bgid;
	r.flags = (__u16)flags;
	if (resv)
		r.resv[resv - 1] = 1;
	diff_note(c, key, reg(ring, IORING_REGISTER_PBUF_RING, &r, 1));
}

static int fill_register_bad(struct io_uring *ring, struct diff_ctx *c)
{
	unsigned long a = (unsigned long)c->buf[3];
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	if (ro == MAP_FAILED)
		return diff_fail(c, "mmap");
	note_reg(ring, c, 1000, a, 0, 1, 0, 0);
	note_reg(ring, c, 1001, a, 3, 1, 0, 0);
	note_reg(ring, c, 1002, a, 65536, 1, 0, 0);
	note_reg(ring, c, 1003, a + 64, 4, 1, 0, 0);
	note_reg(ring, c, 1004, 0, 4, 1, 0, 0);
	note_reg(ring, c, 1005, a, 4, 1, 4, 0);
	note_reg(ring, c, 1006, a, 4, 1, 0, 1);
	note_reg(ring, c, 1007, a, 4, 1, 0, 3);
	note_reg(ring, c, 1008, (unsigned long)ro, 4, 1, 0, 0);
	note_reg(ring, c, 1009, 1UL << 60, 4, 1, 0, 0);
	note_reg(ring, c, 1010, 0xfffffffffffff000UL, 4, 1, 0, 0);
	note_reg(ring, c, 1011, a, 32768 * 2, 1, 0, 0);
	/*
	 * No access at all. Not an munmap'd address: another thread's mmap
	 * (a sanitizer's, a ring's thread stack) may take it meanwhile.
	 */
	if (mprotect(ro, 4096, PROT_NONE)) {
		munmap(ro, 4096);
		return diff_fail(c, "mprotect");
	}
	note_reg(ring, c, 1012, (unsigned long)ro, 4, 1, 0, 0);
	munmap(ro, 4096);
	diff_note(c, 1013, reg(ring, IORING_REGISTER_PBUF_RING, NULL, 1));
	diff_note(c, 1014, reg(ring, IORING_UNREGISTER_PBUF_RING, NULL, 1));
	diff_note(c, 1015, reg(ring, PBUF_STATUS, NULL, 1));
	return 0;
}

static int fill_register_bad2(struct io_uring *ring, struct diff_ctx *c)
{
	struct ar_buf_reg r;
	struct buf_status st;

	ring_register(ring, c, 8, 5, 1000);
	memset(&r, 0, sizeof(r));
	r.ring_addr = (unsigned long)c->buf[3];
	r.ring_entries = 8;
	r.bgid = 6;
	diff_note(c, 1001, reg(ring, IORING_REGISTER_PBUF_RING, &r, 2));
	diff_note(c, 1002, reg(ring, IORING_REGISTER_PBUF_RING, &r, 0));
	/* the same memory for a second group is taken */
	diff_note(c, 1003, reg(ring, IORING_REGISTER_PBUF_RING, &r, 1));
	memset(&st, 0, sizeof(st));
	st.buf_group = 5;
	st.resv[3] = 1;
	diff_note(c, 1004, reg(ring, PBUF_STATUS, &st, 1));
	st.resv[3] = 0;
	diff_note(c, 1005, reg(ring, PBUF_STATUS, &st, 2));
	memset(&r, 0, sizeof(r));
	r.bgid = 5;
	r.flags = 1;
	diff_note(c, 1006, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	r.flags = 0;
	r.resv[2] = 1;
	diff_note(c, 1007, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	r.resv[2] = 0;
	diff_note(c, 1008, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 0));
	r.resv[0] = 1;
	diff_note(c, 1011, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	r.resv[0] = 0;
	/* 6.18 does not look at min_left here, nor at the address */
	r.min_left = 1;
	r.ring_addr = 5;
	diff_note(c, 1009, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	diff_note(c, 1010, reg(ring, IORING_UNREGISTER_PBUF_RING, &r, 1));
	return 0;
}

/* ==== receives into provided buffers, READ_MULTISHOT ==== */

#define RECV_BSZ		16
#define NOTE		1000
#define RECV_MULTISHOT	(1U << 1)	/* IORING_RECV_MULTISHOT */
#define OP_READ_MULTISHOT 49

/* ---- setups ---- */

static int track(struct diff_ctx *c, int fd, const char *what)
{
	if (fd < 0)
		return diff_fail(c, "%s: %s", what, strerror(errno));
	return diff_track_fd(c, fd);
}

static int put(struct diff_ctx *c, int fd, const char *data, size_t len)
{
	if (write(fd, data, len) != (ssize_t)len)
		return diff_fail(c, "write: %s", strerror(errno));
	return 0;
}

/* val[0] (written to), val[1] (received from): a unix stream socketpair */
static int setup_pair(struct diff_ctx *c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return diff_fail(c, "socketpair: %s", strerror(errno));
	c->val[0] = track(c, sv[0], "socketpair");
	c->val[1] = track(c, sv[1], "socketpair");
	return c->val[0] < 0 || c->val[1] < 0 ? -1 : 0;
}

/* 10 bytes queued */
static int setup_pair_10(struct diff_ctx *c)
{
	return setup_pair(c) || put(c, c->val[0], "0123456789", 10);
}

/* 40 bytes, then EOF */
static int setup_pair_40_eof(struct diff_ctx *c)
{
	char p[40];

	diff_pattern(p, sizeof(p), 3);
	if (setup_pair(c) || put(c, c->val[0], p, sizeof(p)))
		return -1;
	if (shutdown(c->val[0], SHUT_WR))
		return diff_fail(c, "shutdown: %s", strerror(errno));
	return 0;
}

/* 100 bytes, the stream stays open */
static int setup_pair_100(struct diff_ctx *c)
{
	char p[100];

	diff_pattern(p, sizeof(p), 4);
	return setup_pair(c) || put(c, c->val[0], p, sizeof(p));
}

/* the FIN is in: no timing, the peer's RDHUP */
static int wait_rdhup(struct diff_ctx *c, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	if (poll(&p, 1, DIFF_TIMEOUT_SEC * 1000) != 1)
		return diff_fail(c, "no FIN");
	return 0;
}

static int bound(struct diff_ctx *c, int type, struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = track(c, socket(AF_INET, type, 0), "socket");

	if (fd < 0)
		return -1;
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    getsockname(fd, (struct sockaddr *)a, &len))
		return diff_fail(c, "bind: %s", strerror(errno));
	return fd;
}

/* TCP: val[0] the client (written to), val[1] the accepted end; 40 bytes, FIN */
static int setup_tcp_40_eof(struct diff_ctx *c)
{
	struct sockaddr_in a;
	char p[40];
	int l = bound(c, SOCK_STREAM, &a);

	if (l < 0 || listen(l, 4))
		return diff_fail(c, "listen");
	c->val[0] = track(c, socket(AF_INET, SOCK_STREAM, 0), "socket");
	if (c->val[0] < 0 || connect(c->val[0], (struct sockaddr *)&a, sizeof(a)))
		return diff_fail(c, "connect: %s", strerror(errno));
	c->val[1] = track(c, accept(l, NULL, NULL), "accept");
	if (c->val[1] < 0)
		return -1;
	diff_pattern(p, sizeof(p), 3);
	if (put(c, c->val[0], p, sizeof(p)) || shutdown(c->val[0], SHUT_WR))
		return diff_fail(c, "send/shutdown: %s", strerror(errno));
	return wait_rdhup(c, c->val[1]);
}

/* UDP: val[0] sends, val[1] receives; datagrams of 5, 12 and 30 bytes queued */
static int setup_udp3(struct diff_ctx *c)
{
	struct sockaddr_in a, b;
	char p[30];
	unsigned n[3] = { 5, 12, 30 };

	c->val[0] = bound(c, SOCK_DGRAM, &a);
	c->val[1] = bound(c, SOCK_DGRAM, &b);
	if (c->val[0] < 0 || c->val[1] < 0)
		return -1;
	diff_pattern(p, sizeof(p), 5);
	for (int i = 0; i < 3; i++)
		if (sendto(c->val[0], p, n[i], 0, (struct sockaddr *)&b,
			   sizeof(b)) != (ssize_t)n[i])
			return diff_fail(c, "sendto: %s", strerror(errno));
	c->val[2] = ntohs(a.sin_port);
	return 0;
}

/* ---- helpers ---- */

static void recv_provide(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
			 int nr, int bgid)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_provide_buffers(sqe, c->buf[0], RECV_BSZ, nr, bgid, 0);
	diff_tag(sqe, ud, 0);
}

static struct io_uring_sqe *prep_recv_sel(struct io_uring *ring,
					  struct diff_ctx *c, __u64 ud, int fd,
					  unsigned len, int bgid, bool mshot)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_recv(sqe, fd, NULL, len, 0);
	diff_tag(sqe, ud, IOSQE_BUFFER_SELECT);
	sqe->buf_group = (__u16)bgid;
	if (mshot)
		sqe->ioprio |= RECV_MULTISHOT;
	return sqe;
}

static struct io_uring_buf_ring *recv_ring_register(struct io_uring *ring,
					       struct diff_ctx *c,
					       unsigned entries, int bgid)
{
	struct io_uring_buf_ring *br = (void *)c->buf[3];
	struct io_uring_buf_reg r;

	memset(&r, 0, sizeof(r));
	io_uring_buf_ring_init(br);
	r.ring_addr = (unsigned long)br;
	r.ring_entries = entries;
	r.bgid = (__u16)bgid;
	diff_note(c, NOTE, io_uring_register_buf_ring(ring, &r, 0));
	return br;
}

/* n buffers of size sz from buf[1] + sz * bid, bids first.. */
static void recv_ring_add(struct diff_ctx *c, struct io_uring_buf_ring *br,
		     unsigned entries, unsigned first, unsigned n, unsigned sz)
{
	for (unsigned i = 0; i < n; i++)
		io_uring_buf_ring_add(br, c->buf[1] + sz * (first + i), sz,
				      (unsigned short)(first + i),
				      io_uring_buf_ring_mask(entries), (int)i);
	io_uring_buf_ring_advance(br, (int)n);
}

/* the ring's head (PBUF_STATUS): how many buffers were consumed */
static void note_head(struct io_uring *ring, struct diff_ctx *c, int bgid,
		      __u64 key)
{
	struct { __u32 bgid, head, resv[8]; } st;

	memset(&st, 0, sizeof(st));
	st.bgid = (__u32)bgid;
	st.head = 0xdead;
	diff_note(c, key, io_uring_register(ring->ring_fd, 26, &st, 1));
	diff_note(c, key + 1, (int)st.head);
}

/* each CQE with a buffer holds the bytes at the stream's offset so far */
static int check_stream(struct diff_ctx *c, const struct diff_cqe *cqe,
			unsigned nr, const char *base, unsigned sz,
			unsigned seed, size_t total)
{
	char p[256];
	size_t off = 0;

	diff_pattern(p, total, seed);
	for (unsigned i = 0; i < nr; i++) {
		unsigned bid = cqe[i].flags >> IORING_CQE_BUFFER_SHIFT;

		if (cqe[i].res <= 0 || !(cqe[i].flags & IORING_CQE_F_BUFFER))
			continue;
		if (off + (size_t)cqe[i].res > total)
			return diff_fail(c, "more bytes than were sent");
		if (diff_check_buf(c, base + sz * bid, p + off,
				   (size_t)cqe[i].res, "stream bytes"))
			return -1;
		off += (size_t)cqe[i].res;
	}
	return 0;
}

/* ==== incremental buffer rings (IOU_PBUF_RING_INC, 6.12) ==== */

#define PBUF_RING_INC	2U		/* IOU_PBUF_RING_INC */
#define CQE_F_BUF_MORE	(1U << 4)	/* IORING_CQE_F_BUF_MORE */
#define INC_BSZ		256

/* an incremental ring of 4 entries for group 1 (min_left: 0 for none) */
static struct io_uring_buf_ring *inc_register(struct io_uring *ring,
					      struct diff_ctx *c,
					      unsigned min_left)
{
	struct io_uring_buf_ring *br = (void *)c->buf[3];
	struct ar_buf_reg r;

	memset(&r, 0, sizeof(r));
	io_uring_buf_ring_init(br);
	r.ring_addr = (unsigned long)br;
	r.ring_entries = 4;
	r.bgid = 1;
	r.flags = PBUF_RING_INC;
	r.min_left = min_left;
	diff_note(c, 1000, reg(ring, IORING_REGISTER_PBUF_RING, &r, 1));
	return br;
}

/* n buffers of sz bytes from buf[1] + sz * bid, bids first.. */
static void inc_add(struct diff_ctx *c, struct io_uring_buf_ring *br,
		    unsigned first, unsigned n, unsigned sz)
{
	for (unsigned i = 0; i < n; i++)
		io_uring_buf_ring_add(br, c->buf[1] + sz * (first + i), sz,
				      (unsigned short)(first + i),
				      io_uring_buf_ring_mask(4), (int)i);
	io_uring_buf_ring_advance(br, (int)n);
}

/* submit what is queued and reap one CQE */
static int inc_step(struct io_uring *ring, struct diff_ctx *c)
{
	return diff_submit(ring, c) < 0 || diff_reap(ring, c, 1) ? -1 : 0;
}

/*
 * READs of 100 bytes of a file into one 256-byte buffer: each goes on
 * where the last stopped (the buffer's address moves on in the ring);
 * the third gets the 56 bytes left, which use the buffer up; the fourth
 * finds the ring empty. A file is consumed at selection by the length
 * asked, and 6.18 still says IORING_CQE_F_BUF_MORE while some is left.
 */
static int fill_inc_read_file(struct io_uring *ring, struct diff_ctx *c)
{
	inc_add(c, inc_register(ring, c, 0), 7, 1, INC_BSZ);
	prep_read_sel(ring, c, 2, c->val[0], 100, 0, 1, 0);
	return 0;
}

static int after_inc_read_file(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1))
		return -1;
	prep_read_sel(ring, c, 3, c->val[0], 100, 100, 1, 0);
	if (inc_step(ring, c))
		return -1;
	prep_read_sel(ring, c, 4, c->val[0], 100, 200, 1, 0);
	if (inc_step(ring, c))
		return -1;
	prep_read_sel(ring, c, 5, c->val[0], 0, 0, 1, 0);
	if (inc_step(ring, c))
		return -1;
	note_status(ring, c, 1, 1001);
	return 0;
}

static int check_inc_read_file(struct diff_ctx *c, const struct diff_cqe *cqe,
			       unsigned nr)
{
	(void)cqe;
	(void)nr;
	/* buffer 7 of 256 bytes: buf[1] + 7 * 256 */
	return diff_check_buf(c, c->buf[1] + 7 * INC_BSZ, pattern(FILE_LEN),
			      INC_BSZ, "the file's first 256 bytes");
}

/*
 * RECVs into two 64-byte buffers, one per send, each issued once its
 * bytes are in: what buffer 0 and buffer 1 end up holding
 */
struct inc_plan {
	unsigned seed, min_left, send[3], in0, in1;
};

/* 40 bytes (24 left: BUF_MORE), 40 more of which 24 fit (used up), 16 */
static const struct inc_plan inc_plain = { 6, 0, { 40, 40, 0 }, 64, 16 };
/*
 * min_left 20, a shorter rest used up: 40 bytes (24 left: kept), 10 (14
 * left: used up), 30 into buffer 1 (34 left: kept)
 */
static const struct inc_plan inc_min = { 7, 20, { 40, 10, 30 }, 50, 30 };
static char inc_stream[128];
static const struct inc_plan *inc_now;

static int inc_recvs(struct io_uring *ring, struct diff_ctx *c,
		     const struct inc_plan *pl)
{
	unsigned i, off = 0;

	inc_now = pl;
	diff_pattern(inc_stream, sizeof(inc_stream), pl->seed);
	inc_add(c, inc_register(ring, c, pl->min_left), 0, 2, 64);
	for (i = 0; i < 3; i++) {
		if (put(c, c->val[0], inc_stream + off, pl->send[i]))
			return -1;
		off += pl->send[i];
		prep_recv_sel(ring, c, 2 + i, c->val[1], 0, 1, false);
		if (inc_step(ring, c))
			return -1;
	}
	note_head(ring, c, 1, 1001);
	return 0;
}

static int fill_inc_recv(struct io_uring *ring, struct diff_ctx *c)
{
	return inc_recvs(ring, c, &inc_plain);
}

static int fill_inc_min_left(struct io_uring *ring, struct diff_ctx *c)
{
	return inc_recvs(ring, c, &inc_min);
}

static int check_inc_recv(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	const struct inc_plan *pl = inc_now;

	(void)cqe;
	(void)nr;
	if (diff_check_buf(c, c->buf[1], inc_stream, pl->in0, "buffer 0"))
		return -1;
	return diff_check_buf(c, c->buf[1] + 64, inc_stream + pl->in0, pl->in1,
			      "buffer 1");
}

/*
 * A RECV that waits gives its buffer back and takes it again once data
 * comes: 40 bytes (BUF_MORE), then 10 more after the first 40
 */
static int fill_inc_recv_wait(struct io_uring *ring, struct diff_ctx *c)
{
	diff_pattern(inc_stream, sizeof(inc_stream), 8);
	inc_add(c, inc_register(ring, c, 0), 0, 1, 64);
	prep_recv_sel(ring, c, 2, c->val[1], 0, 1, false);
	return 0;
}

static int after_inc_recv_wait(struct io_uring *ring, struct diff_ctx *c)
{
	if (put(c, c->val[0], inc_stream, 40) || inc_step(ring, c))
		return -1;
	prep_recv_sel(ring, c, 3, c->val[1], 0, 1, false);
	if (diff_submit(ring, c) < 0 || put(c, c->val[0], inc_stream + 40, 10) ||
	    inc_step(ring, c))
		return -1;
	note_head(ring, c, 1, 1001);
	return 0;
}

static int check_inc_recv_wait(struct diff_ctx *c, const struct diff_cqe *cqe,
			       unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[1], inc_stream, 50, "buffer 0");
}

/*
 * A multishot RECV: 40 bytes (BUF_MORE), then 40 more: the 24 that fit
 * buffer 0, and 16 in buffer 1; a cancel ends it
 */
static int fill_inc_mshot(struct io_uring *ring, struct diff_ctx *c)
{
	inc_now = &inc_plain;	/* the same bytes in the same places */
	diff_pattern(inc_stream, sizeof(inc_stream), 9);
	inc_add(c, inc_register(ring, c, 0), 0, 2, 64);
	if (put(c, c->val[0], inc_stream, 40))
		return -1;
	prep_recv_sel(ring, c, 2, c->val[1], 0, 1, true);
	return 0;
}

static int after_inc_mshot(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1) || put(c, c->val[0], inc_stream + 40, 40) ||
	    diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	diff_prep_cancel(ring, c, 9, 2, 0);
	return 0;
}

/* min_left without IOU_PBUF_RING_INC, and reserved bytes, refused */
static int fill_inc_register_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct ar_buf_reg r;

	memset(&r, 0, sizeof(r));
	r.ring_addr = (unsigned long)c->buf[3];
	r.ring_entries = 4;
	r.bgid = 1;
	r.min_left = 8;
	diff_note(c, 1000, reg(ring, IORING_REGISTER_PBUF_RING, &r, 1));
	r.flags = PBUF_RING_INC;
	r.resv[0] = 1;
	diff_note(c, 1001, reg(ring, IORING_REGISTER_PBUF_RING, &r, 1));
	r.resv[0] = 0;
	r.min_left = 1U << 31;
	diff_note(c, 1002, reg(ring, IORING_REGISTER_PBUF_RING, &r, 1));
	return 0;
}

/* ---- oneshot RECV with a list and with a ring ---- */

/*
 * 10 bytes: the first RECV takes them in buffer 0; the second waits
 * (its buffer goes back) and is cancelled; REMOVE_BUFFERS counts what
 * is left on the list
 */
static int fill_recv_legacy(struct io_uring *ring, struct diff_ctx *c)
{
	recv_provide(ring, c, 1, 3, 1);
	prep_recv_sel(ring, c, 2, c->val[1], 0, 1, false);
	prep_recv_sel(ring, c, 3, c->val[1], 4, 1, false);
	diff_prep_cancel(ring, c, 4, 3, 0);
	diff_prep_remove_buffers(ring, c, 5, 8, 1);
	return 0;
}

static int check_recv_legacy(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	const struct diff_cqe *a = diff_find(cqe, nr, 2);

	if (!a || !(a->flags & IORING_CQE_F_BUFFER))
		return diff_fail(c, "RECV without its buffer");
	return diff_check_buf(c, c->buf[0] + RECV_BSZ * (a->flags >> IORING_CQE_BUFFER_SHIFT),
			      "0123456789", 10, "recv");
}

/* the same on a ring: the waiting RECV's buffer goes back (the head) */
static int fill_recv_ring(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);

	recv_ring_add(c, br, 4, 0, 3, RECV_BSZ);
	prep_recv_sel(ring, c, 2, c->val[1], 4, 1, false);
	prep_recv_sel(ring, c, 3, c->val[1], 0, 1, false);
	prep_recv_sel(ring, c, 4, c->val[1], 0, 1, false);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	note_head(ring, c, 1, NOTE + 1);
	diff_prep_cancel(ring, c, 5, 4, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	note_head(ring, c, 1, NOTE + 3);
	return 0;
}

static int check_recv_ring(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	const struct diff_cqe *a = diff_find(cqe, nr, 2);
	const struct diff_cqe *b = diff_find(cqe, nr, 3);

	if (!a || !b || !(a->flags & IORING_CQE_F_BUFFER) ||
	    !(b->flags & IORING_CQE_F_BUFFER))
		return diff_fail(c, "RECV without its buffer");
	if (diff_check_buf(c, c->buf[1] + RECV_BSZ * (a->flags >> IORING_CQE_BUFFER_SHIFT),
			   "0123", 4, "first recv"))
		return -1;
	return diff_check_buf(c, c->buf[1] + RECV_BSZ * (b->flags >> IORING_CQE_BUFFER_SHIFT),
			      "456789", 6, "second recv");
}

/* no group, an empty ring, an empty list: -ENOBUFS, also for RECVMSG */
static int fill_recv_nobufs(struct io_uring *ring, struct diff_ctx *c)
{
	struct msghdr *m = (void *)c->buf[2];
	struct io_uring_sqe *sqe;

	recv_ring_register(ring, c, 4, 2);
	recv_provide(ring, c, 1, 1, 3);
	diff_prep_remove_buffers(ring, c, 2, 1, 3);
	prep_recv_sel(ring, c, 3, c->val[1], 0, 7, false);
	prep_recv_sel(ring, c, 4, c->val[1], 0, 2, false);
	prep_recv_sel(ring, c, 5, c->val[1], 0, 3, false);
	prep_recv_sel(ring, c, 6, c->val[1], 0, 2, true);
	memset(m, 0, sizeof(*m));
	sqe = diff_sqe(ring, c);
	io_uring_prep_recvmsg(sqe, c->val[1], m, 0);
	diff_tag(sqe, 7, IOSQE_BUFFER_SELECT);
	sqe->buf_group = 2;
	return 0;
}

/* ---- multishot RECV ---- */

/* 40 bytes and EOF into 16-byte ring buffers: 16, 16, 8 with MORE, then 0 */
static int fill_mshot_eof(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 8, 1);

	recv_ring_add(c, br, 8, 0, 8, RECV_BSZ);
	prep_recv_sel(ring, c, 1, c->val[1], 0, 1, true);
	return 0;
}

static int check_mshot_40(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	return check_stream(c, cqe, nr, c->buf[1], RECV_BSZ, 3, 40);
}

/* the same from a list: each CQE a list buffer */
static int fill_mshot_eof_list(struct io_uring *ring, struct diff_ctx *c)
{
	recv_provide(ring, c, 1, 8, 1);
	prep_recv_sel(ring, c, 2, c->val[1], 0, 1, true);
	return 0;
}

static int check_mshot_40_list(struct diff_ctx *c, const struct diff_cqe *cqe,
			       unsigned nr)
{
	return check_stream(c, cqe, nr, c->buf[0], RECV_BSZ, 3, 40);
}

/* 100 bytes, 3 buffers: three CQEs with MORE, then -ENOBUFS */
static int fill_mshot_nobufs(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);

	recv_ring_add(c, br, 4, 0, 3, RECV_BSZ);
	prep_recv_sel(ring, c, 1, c->val[1], 0, 1, true);
	return 0;
}

static int after_head(struct io_uring *ring, struct diff_ctx *c)
{
	note_head(ring, c, 1, NOTE + 1);
	return 0;
}

static int check_mshot_100(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	return check_stream(c, cqe, nr, c->buf[1], RECV_BSZ, 4, 100);
}

/*
 * A ring of 4 wraps: 4 buffers taken, -ENOBUFS; 4 more past the end
 * (bids 4..7, positions 4..7 & 3), a new multishot takes the rest (36
 * bytes: 16, 16, 4) and waits; the cancel ends it
 */
static int fill_mshot_wrap(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);

	recv_ring_add(c, br, 4, 0, 4, RECV_BSZ);
	prep_recv_sel(ring, c, 1, c->val[1], 0, 1, true);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 5))
		return -1;
	note_head(ring, c, 1, NOTE + 1);
	recv_ring_add(c, br, 4, 4, 4, RECV_BSZ);
	prep_recv_sel(ring, c, 2, c->val[1], 0, 1, true);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 3))
		return -1;
	note_head(ring, c, 1, NOTE + 3);
	diff_prep_cancel(ring, c, 3, 2, 0);
	return 0;
}

/* a CQ of 2: the third CQE cannot be posted with MORE, and ends it */
static int fill_mshot_cq_full(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 8, 1);

	recv_ring_add(c, br, 8, 0, 8, RECV_BSZ);
	prep_recv_sel(ring, c, 1, c->val[1], 0, 1, true);
	return 0;
}

/* 10 bytes: a CQE with MORE, then it waits; a cancel ends it */
static int fill_mshot_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);

	recv_ring_add(c, br, 4, 0, 4, RECV_BSZ);
	prep_recv_sel(ring, c, 1, c->val[1], 0, 1, true);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	diff_prep_cancel(ring, c, 2, 1, 0);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 2))
		return -1;
	note_head(ring, c, 1, NOTE + 1);
	return 0;
}

/* a length caps the buffer: 6 bytes, then the 4 left in a whole buffer */
static int fill_recv_len(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);

	recv_ring_add(c, br, 4, 0, 4, RECV_BSZ);
	prep_recv_sel(ring, c, 1, c->val[1], 6, 1, false);
	prep_recv_sel(ring, c, 2, c->val[1], 0, 1, false);
	return 0;
}

/* UDP: one datagram per CQE, the last truncated to the buffer */
static int fill_mshot_udp(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);

	recv_ring_add(c, br, 4, 0, 4, RECV_BSZ);
	prep_recv_sel(ring, c, 1, c->val[1], 0, 1, true);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 3))
		return -1;
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* ---- RECVMSG ---- */

/* msghdr at buf[2]: name space (namelen), control (controllen), one iovec of len */
static struct msghdr *msg_at(struct diff_ctx *c, unsigned namelen,
			     unsigned controllen, unsigned len)
{
	struct msghdr *m = (void *)c->buf[2];
	struct iovec *iov = (void *)(c->buf[2] + 256);

	memset(m, 0, sizeof(*m));
	iov->iov_base = NULL;
	iov->iov_len = len;
	m->msg_iov = iov;
	m->msg_iovlen = 1;
	if (namelen) {
		m->msg_name = c->buf[2] + 512;
		m->msg_namelen = namelen;
	}
	if (controllen) {
		m->msg_control = c->buf[2] + 1024;
		m->msg_controllen = controllen;
	}
	return m;
}

static struct io_uring_sqe *prep_recvmsg_sel(struct io_uring *ring,
					     struct diff_ctx *c, __u64 ud,
					     struct msghdr *m, bool mshot)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_recvmsg(sqe, c->val[1], m, 0);
	diff_tag(sqe, ud, IOSQE_BUFFER_SELECT);
	sqe->buf_group = 1;
	if (mshot)
		sqe->ioprio |= RECV_MULTISHOT;
	return sqe;
}

/* oneshot: the datagrams in buffers, the name and flags in the msghdr */
static int fill_recvmsg_sel(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);
	struct msghdr *m = msg_at(c, sizeof(struct sockaddr_in), 0, 8);
	struct sockaddr_in *sin = m->msg_name;

	recv_ring_add(c, br, 4, 0, 4, RECV_BSZ);
	prep_recvmsg_sel(ring, c, 1, m, false);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	diff_note(c, NOTE + 1, (int)m->msg_namelen);
	diff_note(c, NOTE + 2, m->msg_flags);
	diff_note(c, NOTE + 3, ntohs(sin->sin_port) == c->val[2]);
	prep_recvmsg_sel(ring, c, 2, m, false);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	diff_note(c, NOTE + 4, m->msg_flags);
	return 0;
}

/* multishot: notes of each buffer's io_uring_recvmsg_out and name */
static int note_recvmsg_out(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr, unsigned namelen, unsigned sz)
{
	__u64 key = NOTE + 1;

	for (unsigned i = 0; i < nr; i++) {
		const char *b;
		struct io_uring_recvmsg_out o;
		struct sockaddr_in sin;

		if (cqe[i].res <= 0 || !(cqe[i].flags & IORING_CQE_F_BUFFER))
			continue;
		b = c->buf[1] + sz * (cqe[i].flags >> IORING_CQE_BUFFER_SHIFT);
		memcpy(&o, b, sizeof(o));
		diff_note(c, key++, (int)o.namelen);
		diff_note(c, key++, (int)o.controllen);
		diff_note(c, key++, (int)o.payloadlen);
		diff_note(c, key++, (int)o.flags);
		if (namelen >= sizeof(sin)) {
			memcpy(&sin, b + sizeof(o), sizeof(sin));
			diff_note(c, key++, sin.sin_family == AF_INET &&
				  ntohs(sin.sin_port) == c->val[2]);
		}
	}
	return 0;
}

static int fill_mshot_recvmsg(struct io_uring *ring, struct diff_ctx *c,
			      unsigned namelen, unsigned controllen)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);
	struct msghdr *m = msg_at(c, namelen, controllen, 0);
	int one = 1;

	if (controllen && setsockopt(c->val[1], IPPROTO_IP, IP_PKTINFO, &one,
				     sizeof(one)))
		return diff_fail(c, "IP_PKTINFO: %s", strerror(errno));
	recv_ring_add(c, br, 4, 0, 4, 64);
	prep_recvmsg_sel(ring, c, 1, m, true);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 3))
		return -1;
	note_recvmsg_out(c, c->early, c->nr_early, namelen, 64);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

static int fill_mshot_recvmsg_name(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_mshot_recvmsg(ring, c, sizeof(struct sockaddr_in), 0);
}

static int fill_mshot_recvmsg_short_name(struct io_uring *ring,
					 struct diff_ctx *c)
{
	return fill_mshot_recvmsg(ring, c, 4, 0);
}

static int fill_mshot_recvmsg_cmsg(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_mshot_recvmsg(ring, c, 0,
				  CMSG_SPACE(sizeof(struct in_pktinfo)));
}

static int fill_mshot_recvmsg_ctrunc(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_mshot_recvmsg(ring, c, 0, 8);
}

/*
 * io_recvmsg_mshot_prep() takes the msghdr's msg_namelen as it is: with
 * msg_name NULL the buffers still hold that much name space, and the
 * name is written there (io_uring-udp's msghdr); a negative one is
 * -EOVERFLOW.
 */
static int fill_mshot_recvmsg_null_name(struct io_uring *ring,
					struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);
	struct msghdr *m = msg_at(c, sizeof(struct sockaddr_in), 0, 0);

	m->msg_name = NULL;
	recv_ring_add(c, br, 4, 0, 4, 64);
	prep_recvmsg_sel(ring, c, 1, m, true);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 3))
		return -1;
	note_recvmsg_out(c, c->early, c->nr_early, sizeof(struct sockaddr_in), 64);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

static int fill_mshot_recvmsg_neg_name(struct io_uring *ring,
				       struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);
	struct msghdr *m = msg_at(c, 0, 0, 0);

	m->msg_namelen = (socklen_t)-1;
	recv_ring_add(c, br, 4, 0, 4, 64);
	prep_recvmsg_sel(ring, c, 1, m, true);
	return 0;
}

/* the header does not fit the buffer: -EFAULT, the buffer goes back */
static int fill_mshot_recvmsg_big_hdr(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 4, 1);
	struct msghdr *m = msg_at(c, sizeof(struct sockaddr_in), 64, 0);

	recv_ring_add(c, br, 4, 0, 4, 64);
	prep_recvmsg_sel(ring, c, 1, m, true);
	return 0;
}

/* the payload of each datagram follows the header */
static int check_recvmsg_payload(struct diff_ctx *c, const struct diff_cqe *cqe,
				 unsigned nr)
{
	char p[30];

	diff_pattern(p, sizeof(p), 5);
	for (unsigned i = 0; i < nr; i++) {
		const char *b;
		struct io_uring_recvmsg_out o;
		size_t hdr;

		if (cqe[i].res <= 0 || !(cqe[i].flags & IORING_CQE_F_BUFFER))
			continue;
		b = c->buf[1] + 64 * (cqe[i].flags >> IORING_CQE_BUFFER_SHIFT);
		memcpy(&o, b, sizeof(o));
		hdr = (size_t)cqe[i].res;
		if (o.payloadlen > hdr)
			return diff_fail(c, "payload past the result");
		hdr -= o.payloadlen;
		if (o.payloadlen > 30 || diff_check_buf(c, b + hdr, p,
							o.payloadlen, "payload"))
			return -1;
	}
	return 0;
}

/* ---- READ_MULTISHOT ---- */

static struct io_uring_sqe *prep_read_mshot(struct io_uring *ring,
					    struct diff_ctx *c, __u64 ud,
					    int fd, int bgid)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_rw(OP_READ_MULTISHOT, sqe, fd, NULL, 0, 0);
	diff_tag(sqe, ud, IOSQE_BUFFER_SELECT);
	sqe->buf_group = (__u16)bgid;
	return sqe;
}

/*
 * IOSQE_ASYNC multishots on an incremental ring: io-wq arms their poll
 * (they are never issued there), so each read takes what it used of the
 * buffer, not the whole buffer at selection: "abc" then "defg" land one
 * after the other with BUF_MORE. They stay armed: the ring's exit ends
 * them (a cancel here may find one being issued again, D64).
 */
static int fill_inc_mshot_async(struct io_uring *ring, struct diff_ctx *c,
				bool recv)
{
	struct io_uring_sqe *sqe;

	inc_add(c, inc_register(ring, c, 0), 0, 1, 64);
	sqe = recv ? prep_recv_sel(ring, c, 2, c->val[1], 0, 1, true) :
		     prep_read_mshot(ring, c, 2, c->val[0], 1);
	sqe->flags |= IOSQE_ASYNC;
	return 0;
}

static int fill_inc_read_mshot_async(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_inc_mshot_async(ring, c, false);
}

static int fill_inc_recv_mshot_async(struct io_uring *ring, struct diff_ctx *c)
{
	return fill_inc_mshot_async(ring, c, true);
}

/* the writer: the pipe's write end (val[1]) or the socket's peer (val[0]) */
static int inc_async_steps(struct io_uring *ring, struct diff_ctx *c, int wfd)
{
	if (put(c, wfd, "abc", 3) || inc_step(ring, c) || put(c, wfd, "defg", 4) ||
	    inc_step(ring, c))
		return -1;
	return 0;
}

static int after_inc_read_mshot_async(struct io_uring *ring, struct diff_ctx *c)
{
	return inc_async_steps(ring, c, c->val[1]);
}

static int after_inc_recv_mshot_async(struct io_uring *ring, struct diff_ctx *c)
{
	return inc_async_steps(ring, c, c->val[0]);
}

static int check_inc_async(struct diff_ctx *c, const struct diff_cqe *cqe,
			   unsigned nr)
{
	(void)cqe;
	(void)nr;
	return diff_check_buf(c, c->buf[1], "abcdefg", 7, "buffer 0");
}

/* a pipe: 40 bytes and the write end closed: 16, 16, 8 with MORE, then 0 */
static int fill_read_mshot_pipe(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 8, 1);
	char p[40];
	int fds[2];

	if (diff_pipe(c, fds))
		return -1;
	diff_pattern(p, sizeof(p), 3);
	if (put(c, fds[1], p, sizeof(p)))
		return -1;
	close(fds[1]);		/* EOF after the data */
	for (unsigned i = 0; i < c->nr_fd; i++)
		if (c->fd[i] == fds[1])
			c->fd[i] = -1;
	recv_ring_add(c, br, 8, 0, 8, RECV_BSZ);
	prep_read_mshot(ring, c, 1, fds[0], 1);
	return 0;
}

/* a pipe with data left: it waits, the cancel ends it; -ENOBUFS from a list */
static int fill_read_mshot_wait(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 8, 1);
	int fds[2];

	if (diff_pipe(c, fds) || put(c, fds[1], "0123456789", 10))
		return -1;
	c->val[0] = fds[0];
	c->val[1] = fds[1];
	recv_ring_add(c, br, 8, 0, 2, RECV_BSZ);
	prep_read_mshot(ring, c, 1, fds[0], 1);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	/* 40 bytes: one buffer left, the next receive finds the ring empty */
	if (put(c, fds[1], "0123456789abcdefghijklmnopqrstuvwxyzABCD", 40))
		return -1;
	if (diff_reap(ring, c, 2))
		return -1;
	note_head(ring, c, 1, NOTE + 1);
	return 0;
}

/* an eventfd: each read 8 bytes; the cancel ends it */
static int fill_read_mshot_eventfd(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 8, 1);
	int efd = track(c, eventfd(5, EFD_NONBLOCK), "eventfd");

	if (efd < 0)
		return -1;
	recv_ring_add(c, br, 8, 0, 8, RECV_BSZ);
	prep_read_mshot(ring, c, 1, efd, 1);
	if (diff_submit(ring, c) < 0 || diff_reap(ring, c, 1))
		return -1;
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

/* the prep checks, and a file that cannot be polled */
static int fill_read_mshot_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_buf_ring *br = recv_ring_register(ring, c, 8, 1);
	struct io_uring_sqe *sqe;
	int fds[2], fd;

	if (diff_pipe(c, fds) || put(c, fds[1], "0123456789", 10))
		return -1;
	if (diff_data_file(c, 64, O_RDONLY))
		return -1;
	fd = c->val[0];
	recv_ring_add(c, br, 8, 0, 8, RECV_BSZ);
	/* one by one: a failed prep ends a submit */
	sqe = prep_read_mshot(ring, c, 1, fds[0], 1);
	sqe->flags &= (__u8)~IOSQE_BUFFER_SELECT;
	if (diff_submit(ring, c) < 0)
		return -1;
	sqe = prep_read_mshot(ring, c, 2, fds[0], 1);
	sqe->len = 4;
	if (diff_submit(ring, c) < 0)
		return -1;
	sqe = prep_read_mshot(ring, c, 3, fds[0], 1);
	sqe->addr = (unsigned long)c->buf[2];
	if (diff_submit(ring, c) < 0)
		return -1;
	prep_read_mshot(ring, c, 4, fd, 1);
	if (diff_submit(ring, c) < 0)
		return -1;
	sqe = prep_read_mshot(ring, c, 5, fds[0], 1);
	sqe->rw_flags = 1 << 30;
	if (diff_submit(ring, c) < 0)
		return -1;
	prep_read_mshot(ring, c, 6, fds[0], 9);
	if (diff_submit(ring, c) < 0)
		return -1;
	/* an offset on a pipe is ignored: it reads, and stays armed */
	sqe = prep_read_mshot(ring, c, 7, fds[0], 1);
	sqe->off = 8;
	return 0;
}

static int check_read_mshot_40(struct diff_ctx *c, const struct diff_cqe *cqe,
			       unsigned nr)
{
	return check_stream(c, cqe, nr, c->buf[1], RECV_BSZ, 3, 40);
}

/* ==== bundles (IORING_RECVSEND_BUNDLE, 6.10) ==== */

#define RECVSEND_BUNDLE	(1U << 4)	/* IORING_RECVSEND_BUNDLE */

/* 8 buffers of RECV_BSZ in group 1, bids 0..7 from buf[1] */
static void bundle_ring(struct io_uring *ring, struct diff_ctx *c, unsigned n)
{
	recv_ring_add(c, recv_ring_register(ring, c, 8, 1), 8, 0, n, RECV_BSZ);
}

static struct io_uring_sqe *prep_bundle_recv(struct io_uring *ring,
					     struct diff_ctx *c, __u64 ud,
					     unsigned len, bool mshot)
{
	struct io_uring_sqe *sqe = prep_recv_sel(ring, c, ud, c->val[1], len,
						 1, mshot);

	sqe->ioprio |= RECVSEND_BUNDLE;
	return sqe;
}

/*
 * 100 bytes queued, a bundle of length 0: the first receive maps one
 * buffer (how much is queued is not known yet); it is filled, more is
 * queued, so the bundle goes on into as many buffers as the 84 bytes
 * left need, but a buffer only partly wanted ends the mapping: 5 more
 * (80 bytes), one CQE for 96 bytes from bid 0, the socket not empty
 */
static int fill_bundle_recv(struct io_uring *ring, struct diff_ctx *c)
{
	bundle_ring(ring, c, 8);
	prep_bundle_recv(ring, c, 2, 0, false);
	return 0;
}

static int after_bundle_head(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_reap(ring, c, 1))
		return -1;
	note_head(ring, c, 1, NOTE + 1);
	return 0;
}

static int check_bundle_100(struct diff_ctx *c, const struct diff_cqe *cqe,
			    unsigned nr)
{
	return check_stream(c, cqe, nr, c->buf[1], RECV_BSZ, 4, 100);
}

/* a length of 40: 16 and 16 mapped, the third only partly wanted is not */
static int fill_bundle_recv_len(struct io_uring *ring, struct diff_ctx *c)
{
	bundle_ring(ring, c, 8);
	prep_bundle_recv(ring, c, 2, 40, false);
	return 0;
}

/* the ring has 3 buffers: they are all the bundle takes, 48 bytes */
static int fill_bundle_recv_short(struct io_uring *ring, struct diff_ctx *c)
{
	bundle_ring(ring, c, 3);
	prep_bundle_recv(ring, c, 2, 0, false);
	return 0;
}

/*
 * multishot bundles: 100 queued make 96 bytes (bids 0-5) and 4 (bid 6)
 * with MORE; 30 more take the last buffer, 16 bytes, which ends it
 */
static int fill_bundle_recv_mshot(struct io_uring *ring, struct diff_ctx *c)
{
	bundle_ring(ring, c, 8);
	prep_bundle_recv(ring, c, 2, 0, true);
	return 0;
}

static int after_bundle_recv_mshot(struct io_uring *ring, struct diff_ctx *c)
{
	char p[30];

	diff_pattern(p, sizeof(p), 9);
	if (diff_reap(ring, c, 2))
		return -1;
	note_head(ring, c, 1, NOTE + 1);
	if (put(c, c->val[0], p, sizeof(p)) || diff_reap(ring, c, 1))
		return -1;
	note_head(ring, c, 1, NOTE + 3);
	return 0;
}

/*
 * a bundle from a PROVIDE_BUFFERS list: one buffer per receive, and the
 * one more a receive that filled its buffer goes on into: 32 bytes
 */
static int fill_bundle_recv_list(struct io_uring *ring, struct diff_ctx *c)
{
	recv_provide(ring, c, 1, 4, 1);
	prep_bundle_recv(ring, c, 2, 0, false);
	return 0;
}

static int check_bundle_list(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	return check_stream(c, cqe, nr, c->buf[0], RECV_BSZ, 4, 100);
}

/* a SEND of len bytes from group 1's provided buffers, a bundle or not */
static void prep_send_sel(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
			  unsigned len, bool bundle, bool link)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_send(sqe, c->val[0], NULL, len, 0);
	diff_tag(sqe, ud, IOSQE_BUFFER_SELECT | (link ? IOSQE_IO_LINK : 0));
	sqe->buf_group = 1;
	if (bundle)
		sqe->ioprio = RECVSEND_BUNDLE;
}

/* SEND from provided buffers: one, then a bundle of what is left */
static int fill_bundle_send(struct io_uring *ring, struct diff_ctx *c)
{
	diff_pattern(c->buf[1], 5 * RECV_BSZ, 6);
	bundle_ring(ring, c, 5);
	prep_send_sel(ring, c, 2, 10, false, true);
	prep_send_sel(ring, c, 3, 0, true, true);
	prep_send_sel(ring, c, 4, 0, true, false);
	return 0;
}

static int check_bundle_send(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	char got[128], want[128];
	ssize_t n;

	(void)cqe;
	(void)nr;
	diff_pattern(want, 5 * RECV_BSZ, 6);
	n = recv(c->val[1], got, sizeof(got), MSG_DONTWAIT);
	if (n != 10 + 4 * RECV_BSZ)
		return diff_fail(c, "received %zd bytes", n);
	if (diff_check_buf(c, got, want, 10, "first send"))
		return -1;
	return diff_check_buf(c, got + 10, want + RECV_BSZ, 4 * RECV_BSZ,
			      "the bundle");
}

/* bundles' and multishot limits' bad SQEs, and a limit of 20 bytes */
static int fill_bundle_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	bundle_ring(ring, c, 8);
	sqe = prep_bundle_recv(ring, c, 1, 0, false);
	sqe->flags &= (__u8)~IOSQE_BUFFER_SELECT;
	sqe->addr = (unsigned long)c->buf[2];
	sqe->len = 4;
	sqe = prep_recv_sel(ring, c, 2, c->val[1], 0, 1, false);
	sqe->file_index = 20;	/* optlen */
	sqe = prep_recv_sel(ring, c, 3, c->val[1], 8, 1, true);
	sqe->file_index = 20;	/* optlen */
	return 0;
}

/*
 * A bundle on an incremental ring: 100 queued into 3 buffers of 40 take
 * 40, then 40 and 20 of the third (cut, not left out: its rest stays at
 * the head), one CQE with BUF_MORE; 30 more go into those 20 and 10 of
 * nothing: the second receive gets the 20 left, BUF_MORE no longer.
 */
static int fill_bundle_inc_recv(struct io_uring *ring, struct diff_ctx *c)
{
	inc_add(c, inc_register(ring, c, 0), 0, 3, 40);
	prep_bundle_recv(ring, c, 2, 0, false);
	return 0;
}

static int after_bundle_inc_recv(struct io_uring *ring, struct diff_ctx *c)
{
	char p[30];

	diff_pattern(p, sizeof(p), 9);
	if (diff_reap(ring, c, 1))
		return -1;
	note_head(ring, c, 1, NOTE + 1);
	if (put(c, c->val[0], p, sizeof(p)))
		return -1;
	prep_bundle_recv(ring, c, 3, 0, false);
	if (inc_step(ring, c))
		return -1;
	note_head(ring, c, 1, NOTE + 3);
	return 0;
}

static int check_bundle_inc_recv(struct diff_ctx *c, const struct diff_cqe *cqe,
				 unsigned nr)
{
	char p[100], q[30];

	(void)cqe;
	(void)nr;
	diff_pattern(p, sizeof(p), 4);
	diff_pattern(q, sizeof(q), 9);
	if (diff_check_buf(c, c->buf[1], p, sizeof(p), "the bundle"))
		return -1;
	return diff_check_buf(c, c->buf[1] + 100, q, 20, "the rest");
}

/*
 * bundle SENDs from an incremental ring: 50 (40 and 10 of the next), a
 * CQE with MORE, then the bundle goes on with the 70 left; the linked
 * one finds the group empty
 */
static int fill_bundle_inc_send(struct io_uring *ring, struct diff_ctx *c)
{
	diff_pattern(c->buf[1], 120, 6);
	inc_add(c, inc_register(ring, c, 0), 0, 3, 40);
	prep_send_sel(ring, c, 2, 50, true, true);
	prep_send_sel(ring, c, 3, 0, true, false);
	return 0;
}

static int check_bundle_inc_send(struct diff_ctx *c, const struct diff_cqe *cqe,
				 unsigned nr)
{
	char got[256], want[120];
	ssize_t n;

	(void)cqe;
	(void)nr;
	diff_pattern(want, sizeof(want), 6);
	n = recv(c->val[1], got, sizeof(got), MSG_DONTWAIT);
	if (n != (ssize_t)sizeof(want))
		return diff_fail(c, "received %zd bytes", n);
	return diff_check_buf(c, got, want, sizeof(want), "the bundles");
}

/*
 * Bundle SENDs that io-wq would run: IOSQE_ASYNC, or behind a drain, with
 * a buffer of their own or from the group. io-wq runs no multishot
 * request and arms a poll instead, which fails them -ECANCELED on a
 * writable socket (6.18's io_wq_submit_work()); a plain SEND behind the
 * drain is sent.
 */
/* a SEND of 5 bytes of buf[2], a bundle or not */
static void prep_send_own(struct io_uring *ring, struct diff_ctx *c, __u64 ud,
			  unsigned flags, bool bundle)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_send(sqe, c->val[0], c->buf[2], 5, 0);
	diff_tag(sqe, ud, flags);
	if (bundle)
		sqe->ioprio = RECVSEND_BUNDLE;
}

static void prep_drain_nop(struct io_uring *ring, struct diff_ctx *c, __u64 ud)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_nop(sqe);
	diff_tag(sqe, ud, IOSQE_IO_DRAIN);
}

static int fill_bundle_send_async(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_pattern(c->buf[1], 5 * RECV_BSZ, 6);
	diff_pattern(c->buf[2], 16, 7);
	bundle_ring(ring, c, 5);
	prep_send_own(ring, c, 1, IOSQE_ASYNC, true);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send(sqe, c->val[0], NULL, 0, 0);
	diff_tag(sqe, 2, IOSQE_ASYNC | IOSQE_BUFFER_SELECT);
	sqe->buf_group = 1;
	sqe->ioprio = RECVSEND_BUNDLE;
	prep_drain_nop(ring, c, 3);
	prep_send_own(ring, c, 4, 0, true);
	prep_drain_nop(ring, c, 5);
	prep_send_own(ring, c, 6, 0, false);
	return 0;
}

static int check_bundle_send_async(struct diff_ctx *c,
				   const struct diff_cqe *cqe, unsigned nr)
{
	char got[64], want[16];
	ssize_t n;

	(void)cqe;
	(void)nr;
	diff_pattern(want, sizeof(want), 7);
	n = recv(c->val[1], got, sizeof(got), MSG_DONTWAIT);
	if (n != 5)
		return diff_fail(c, "received %zd bytes", n);
	return diff_check_buf(c, got, want, 5, "the plain send");
}

/* negative lengths: -EINVAL for RECV and SEND; RECVMSG takes no bundle */
static int fill_bundle_bad_len(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	sqe = diff_sqe(ring, c);
	io_uring_prep_recv(sqe, c->val[1], c->buf[2], 0x80000000U, 0);
	diff_tag(sqe, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_send(sqe, c->val[0], c->buf[2], 0x80000000U, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_recvmsg(sqe, c->val[1], (struct msghdr *)c->buf[2], 0);
	diff_tag(sqe, 3, IOSQE_BUFFER_SELECT);
	sqe->ioprio = RECVSEND_BUNDLE;
	return 0;
}

/* TCP, 40 bytes and the FIN: a multishot bundle; the FIN counts in msg_inq */
static int fill_bundle_tcp_fin(struct io_uring *ring, struct diff_ctx *c)
{
	bundle_ring(ring, c, 8);
	prep_bundle_recv(ring, c, 2, 0, true);
	return 0;
}

static int check_bundle_tcp_fin(struct diff_ctx *c, const struct diff_cqe *cqe,
				unsigned nr)
{
	return check_stream(c, cqe, nr, c->buf[1], RECV_BSZ, 3, 40);
}

const struct scenario diff_kbuf[] = {
	{
		.name = "kbuf_provide_remove",
		.fill = fill_provide_remove,
		.nr_cqes = 9,
		.known = { { 1, 0 }, { 3, 3 }, { 4, 1 }, { 5, 0 },
			   { 6, -ENOENT }, { 8, 1 } },
	}, {
		.name = "kbuf_provide_remove_bad",
		.entries = 32,
		.setup_flags = IORING_SETUP_SUBMIT_ALL,
		.fill = fill_provide_bad,
		.nr_cqes = 16,
		.known = { { 1, -E2BIG }, { 4, -EINVAL }, { 5, -EOVERFLOW },
			   { 6, -EFAULT }, { 13, -EINVAL } },
	}, {
		.name = "kbuf_read_list",
		.setup = setup_data,
		.fill = fill_read_legacy,
		.check = check_read_legacy,
		.nr_cqes = 6,
		.known = { { 2, BSZ }, { 3, 16 }, { 4, BSZ }, { 5, -ENOBUFS },
			   { 6, -ENOBUFS } },
	}, {
		.name = "kbuf_read_list_sqpoll",
		.setup_flags = IORING_SETUP_SQPOLL,
		.setup = setup_data,
		.fill = fill_read_legacy,
		.check = check_read_legacy,
		.nr_cqes = 6,
		.known = { { 2, BSZ }, { 3, 16 }, { 4, BSZ }, { 5, -ENOBUFS },
			   { 6, -ENOBUFS } },
	}, {
		.name = "kbuf_ring_wrap_sqpoll",
		.entries = 16,
		.setup_flags = IORING_SETUP_SQPOLL,
		.setup = setup_data,
		.fill = fill_ring_wrap,
		.check = check_ring_wrap,
		.nr_cqes = 12,
		.known = { { 1, BSZ }, { 9, BSZ }, { 12, -ENOBUFS } },
	}, {
		.name = "kbuf_readv_select",
		.setup = setup_data,
		.setup_flags = IORING_SETUP_SUBMIT_ALL,
		.fill = fill_readv_sel,
		.nr_cqes = 5,
		.known = { { 2, BSZ }, { 3, 16 }, { 4, -EINVAL } },
	}, {
		.name = "kbuf_read_ring",
		.setup = setup_data,
		.fill = fill_read_ring,
		.after_submit = after_read_ring,
		.check = check_read_ring,
		.nr_cqes = 4,
		.known = { { 2, BSZ }, { 3, 16 }, { 5, -ENOBUFS } },
	}, {
		.name = "kbuf_inc_read_file",
		.setup = setup_data,
		.fill = fill_inc_read_file,
		.after_submit = after_inc_read_file,
		.check = check_inc_read_file,
		.nr_cqes = 4,
		.order = ORDER_EXACT,
		.known = { { 2, 100 }, { 3, 100 }, { 4, 56 }, { 5, -ENOBUFS } },
	}, {
		.name = "kbuf_inc_recv",
		.setup = setup_pair,
		.fill = fill_inc_recv,
		.check = check_inc_recv,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 2, 40 }, { 3, 24 }, { 4, 16 } },
	}, {
		.name = "kbuf_inc_min_left",
		.setup = setup_pair,
		.fill = fill_inc_min_left,
		.check = check_inc_recv,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
		.known = { { 2, 40 }, { 3, 10 }, { 4, 30 } },
	}, {
		.name = "kbuf_inc_recv_wait",
		.setup = setup_pair,
		.fill = fill_inc_recv_wait,
		.after_submit = after_inc_recv_wait,
		.check = check_inc_recv_wait,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 2, 40 }, { 3, 10 } },
	}, {
		.name = "kbuf_inc_recv_mshot",
		.setup = setup_pair,
		.fill = fill_inc_mshot,
		.after_submit = after_inc_mshot,
		.check = check_inc_recv,
		.nr_cqes = 5,
		.order = ORDER_EXACT,
		.known = { { 9, 0 } },
	}, {
		.name = "kbuf_inc_read_mshot_async",
		.setup = diff_setup_pipes,
		.fill = fill_inc_read_mshot_async,
		.after_submit = after_inc_read_mshot_async,
		.check = check_inc_async,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 2, 3 } },
	}, {
		.name = "kbuf_inc_recv_mshot_async",
		.setup = setup_pair,
		.fill = fill_inc_recv_mshot_async,
		.after_submit = after_inc_recv_mshot_async,
		.check = check_inc_async,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
		.known = { { 2, 3 } },
	}, {
		.name = "kbuf_inc_register_bad",
		.fill = fill_inc_register_bad,
		.nr_cqes = 0,
	}, {
		.name = "kbuf_ring_unmapped_shared",
		.setup = setup_data,
		.fill = fill_ring_unmapped_shared,
		.after_submit = after_read_ring,
		.check = check_read_ring,
		.nr_cqes = 4,
		.known = { { 2, BSZ }, { 3, 16 }, { 5, -ENOBUFS } },
	}, {
		.name = "kbuf_ring_wrap",
		.entries = 16,
		.setup = setup_data,
		.fill = fill_ring_wrap,
		.check = check_ring_wrap,
		.nr_cqes = 12,
		.known = { { 1, BSZ }, { 9, BSZ }, { 12, -ENOBUFS } },
	}, {
		.name = "kbuf_pipe_wait_list",
		.setup = diff_setup_pipes,
		.fill = fill_pipe_wait_legacy,
		.after_submit = diff_feed_pipe,
		.check = check_pipe_wait_legacy,
		.nr_cqes = 3,
		.known = { { 2, 5 }, { 3, 8 } },
	}, {
		.name = "kbuf_pipe_wait_ring",
		.setup = diff_setup_pipes,
		.fill = fill_pipe_wait_ring,
		.after_submit = diff_feed_pipe,
		.check = check_pipe_wait_ring,
		.nr_cqes = 3,
		.known = { { 2, 5 }, { 3, 8 } },
	}, {
		.name = "kbuf_pipe_wait_cancel",
		.setup = diff_setup_pipes,
		.fill = fill_pipe_cancel,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 2, -ECANCELED }, { 4, 2 } },
	}, {
		.name = "kbuf_pipe_link_timeout",
		.setup = diff_setup_pipes,
		.fill = fill_pipe_link_timeout,
		.nr_cqes = 3,
		.order = ORDER_ANY,
		.known = { { 2, -ECANCELED }, { 3, -ETIME } },
	}, {
		.name = "kbuf_link_short",
		.setup = setup_pipes_data,
		.fill = fill_link_short,
		.nr_cqes = 5,
		/* the kernel posts the broken link's CQE after the next request's */
		.order = ORDER_ANY,
		.before = { { 2, 3 }, { 4, 5 } },
		.known = { { 2, 10 }, { 3, -ECANCELED }, { 4, BSZ }, { 5, 0 } },
	}, {
		.name = "kbuf_async_chain",
		.setup = setup_data,
		.fill = fill_async_chain,
		.nr_cqes = 5,
	}, {
		.name = "kbuf_errors_list",
		.setup = setup_data,
		.fill = fill_errors_legacy,
		.entries = 16,
		.nr_cqes = 12,
		.known = { { 2, -EBADF }, { 3, -EBADF }, { 7, -EFAULT } },
	}, {
		.name = "kbuf_errors_ring_file",
		.setup = setup_pipes_data,
		.fill = fill_errors_ring_file,
		.nr_cqes = 6,
	}, {
		.name = "kbuf_errors_ring_pipe",
		.setup = setup_pipes_data,
		.fill = fill_errors_ring_pipe,
		.nr_cqes = 6,
	}, {
		.name = "kbuf_errors_ring_pipe_null",
		.setup = diff_setup_pipes,
		.fill = fill_ring_pipe_null,
		.nr_cqes = 2,
	}, {
		.name = "kbuf_errors_ring_pipe_kaddr",
		.setup = diff_setup_pipes,
		.fill = fill_ring_pipe_kaddr,
		.nr_cqes = 2,
	}, {
		.name = "kbuf_group_kinds",
		.setup = setup_data,
		.fill = fill_group_kinds,
		.nr_cqes = 7,
		.known = { { 4, -EINVAL }, { 5, -EINVAL }, { 6, -ENOENT },
			   { 7, -ENOBUFS } },
	}, {
		.name = "kbuf_register_bad",
		.fill = fill_register_bad,
	}, {
		.name = "kbuf_register_bad2",
		.fill = fill_register_bad2,
	}, {
		.name = "recvbuf_recv_list",
		.setup = setup_pair_10,
		.fill = fill_recv_legacy,
		.nr_cqes = 5,
		/* the kernel posts a cancelled poll's CQE from task work, later */
		.order = ORDER_ANY,
		.check = check_recv_legacy,
		.known = { { 2, 10 }, { 3, -ECANCELED } },
	}, {
		.name = "recvbuf_recv_ring",
		.setup = setup_pair_10,
		.fill = fill_recv_ring,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.check = check_recv_ring,
		.known = { { 2, 4 }, { 3, 6 }, { 4, -ECANCELED } },
	}, {
		.name = "recvbuf_nobufs",
		.setup = setup_pair_10,
		.fill = fill_recv_nobufs,
		.nr_cqes = 7,
		.known = { { 3, -ENOBUFS }, { 4, -ENOBUFS }, { 6, -ENOBUFS } },
	}, {
		.name = "recvbuf_recv_len",
		.setup = setup_pair_10,
		.fill = fill_recv_len,
		.nr_cqes = 2,
		.known = { { 1, 6 }, { 2, 4 } },
	}, {
		.name = "recvbuf_mshot_eof",
		.setup = setup_pair_40_eof,
		.fill = fill_mshot_eof,
		.nr_cqes = 4,
		.check = check_mshot_40,
	}, {
		.name = "recvbuf_mshot_eof_list",
		.setup = setup_pair_40_eof,
		.fill = fill_mshot_eof_list,
		.nr_cqes = 5,
		/*
		 * the kernel flushes PROVIDE_BUFFERS' deferred CQE before the
		 * multishot's first; the user engine posts it after (D74)
		 */
		.order = ORDER_ANY,
		.check = check_mshot_40_list,
	}, {
		.name = "recvbuf_mshot_tcp_eof",
		.setup = setup_tcp_40_eof,
		.fill = fill_mshot_eof,
		.nr_cqes = 4,
		.check = check_mshot_40,
	}, {
		.name = "recvbuf_mshot_nobufs",
		.setup = setup_pair_100,
		.fill = fill_mshot_nobufs,
		.after_submit = after_head,
		.nr_cqes = 4,
		.check = check_mshot_100,
	}, {
		.name = "recvbuf_mshot_wrap",
		.setup = setup_pair_100,
		.fill = fill_mshot_wrap,
		.nr_cqes = 10,
		.check = check_mshot_100,
	}, {
		.name = "recvbuf_mshot_cq_full",
		.entries = 1,
		.cq_entries = 2,
		.setup = setup_pair_100,
		.fill = fill_mshot_cq_full,
		.nr_cqes = 3,
		.check = check_mshot_100,
	}, {
		.name = "recvbuf_mshot_cancel",
		.setup = setup_pair_10,
		.fill = fill_mshot_cancel,
		.nr_cqes = 3,
		.known = { { 1, 10 }, { 2, 0 } },
	}, {
		.name = "recvbuf_mshot_udp",
		.setup = setup_udp3,
		.fill = fill_mshot_udp,
		.nr_cqes = 5,
	}, {
		.name = "recvbuf_recvmsg",
		.setup = setup_udp3,
		.fill = fill_recvmsg_sel,
		.nr_cqes = 2,
		.known = { { 1, 5 }, { 2, 8 } },
	}, {
		.name = "recvbuf_mshot_recvmsg_name",
		.setup = setup_udp3,
		.fill = fill_mshot_recvmsg_name,
		.nr_cqes = 5,
		.check = check_recvmsg_payload,
	}, {
		.name = "recvbuf_mshot_recvmsg_short_name",
		.setup = setup_udp3,
		.fill = fill_mshot_recvmsg_short_name,
		.nr_cqes = 5,
		.check = check_recvmsg_payload,
	}, {
		.name = "recvbuf_mshot_recvmsg_cmsg",
		.setup = setup_udp3,
		.fill = fill_mshot_recvmsg_cmsg,
		.nr_cqes = 5,
		.check = check_recvmsg_payload,
	}, {
		.name = "recvbuf_mshot_recvmsg_ctrunc",
		.setup = setup_udp3,
		.fill = fill_mshot_recvmsg_ctrunc,
		.nr_cqes = 5,
		.check = check_recvmsg_payload,
	}, {
		.name = "recvbuf_mshot_recvmsg_null_name",
		.setup = setup_udp3,
		.fill = fill_mshot_recvmsg_null_name,
		.nr_cqes = 5,
		.check = check_recvmsg_payload,
	}, {
		.name = "recvbuf_mshot_recvmsg_neg_name",
		.setup = setup_udp3,
		.fill = fill_mshot_recvmsg_neg_name,
		.nr_cqes = 1,
		.known = { { 1, -EOVERFLOW } },
	}, {
		.name = "recvbuf_mshot_recvmsg_big_hdr",
		.setup = setup_udp3,
		.fill = fill_mshot_recvmsg_big_hdr,
		.after_submit = after_head,
		.nr_cqes = 1,
		.known = { { 1, -EFAULT } },
	}, {
		.name = "recvbuf_read_mshot_pipe",
		.fill = fill_read_mshot_pipe,
		.nr_cqes = 4,
		.check = check_read_mshot_40,
	}, {
		.name = "recvbuf_read_mshot_wait",
		.fill = fill_read_mshot_wait,
		.nr_cqes = 3,
	}, {
		.name = "recvbuf_read_mshot_eventfd",
		.fill = fill_read_mshot_eventfd,
		.nr_cqes = 3,
		.known = { { 2, 0 } },
	}, {
		.name = "recvbuf_read_mshot_bad",
		.fill = fill_read_mshot_bad,
		.nr_cqes = 7,
		.known = { { 1, -EINVAL } },
	}, {
		.name = "kbuf_bundle_recv",
		.setup = setup_pair_100,
		.fill = fill_bundle_recv,
		.after_submit = after_bundle_head,
		.check = check_bundle_100,
		.nr_cqes = 1,
	}, {
		.name = "kbuf_bundle_recv_len",
		.setup = setup_pair_100,
		.fill = fill_bundle_recv_len,
		.after_submit = after_bundle_head,
		.check = check_bundle_100,
		.nr_cqes = 1,
	}, {
		.name = "kbuf_bundle_recv_short",
		.setup = setup_pair_100,
		.fill = fill_bundle_recv_short,
		.after_submit = after_bundle_head,
		.check = check_bundle_100,
		.nr_cqes = 1,
	}, {
		.name = "kbuf_bundle_recv_mshot",
		.setup = setup_pair_100,
		.fill = fill_bundle_recv_mshot,
		.after_submit = after_bundle_recv_mshot,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
	}, {
		.name = "kbuf_bundle_recv_list",
		.setup = setup_pair_100,
		.fill = fill_bundle_recv_list,
		.check = check_bundle_list,
		.nr_cqes = 2,
	}, {
		.name = "kbuf_bundle_send",
		.setup = setup_pair,
		.fill = fill_bundle_send,
		.check = check_bundle_send,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
	}, {
		.name = "kbuf_bundle_send_async",
		.setup = setup_pair,
		.fill = fill_bundle_send_async,
		.check = check_bundle_send_async,
		.nr_cqes = 6,
		.order = ORDER_ANY,	/* two go to io-wq at once */
	}, {
		.name = "kbuf_bundle_bad",
		.setup = setup_pair_100,
		.fill = fill_bundle_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 5,
	}, {
		.name = "kbuf_bundle_inc_recv",
		.setup = setup_pair_100,
		.fill = fill_bundle_inc_recv,
		.after_submit = after_bundle_inc_recv,
		.check = check_bundle_inc_recv,
		.nr_cqes = 2,
		.order = ORDER_EXACT,
	}, {
		.name = "kbuf_bundle_inc_send",
		.setup = setup_pair,
		.fill = fill_bundle_inc_send,
		.check = check_bundle_inc_send,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
	}, {
		.name = "kbuf_bundle_bad_len",
		.setup = setup_pair,
		.fill = fill_bundle_bad_len,
		.after_submit = diff_submit_rest,
		.nr_cqes = 3,
		.known = { { 1, -EINVAL }, { 2, -EINVAL }, { 3, -EINVAL } },
	}, {
		.name = "kbuf_bundle_tcp_fin",
		.setup = setup_tcp_40_eof,
		.fill = fill_bundle_tcp_fin,
		.check = check_bundle_tcp_fin,
		.nr_cqes = 3,
		.order = ORDER_EXACT,
	},
	{ .name = NULL }
};
