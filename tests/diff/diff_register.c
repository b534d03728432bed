/* SPDX-License-Identifier: MIT */
/*
 * diff_register.c - what rings are told through io_uring_register()
 * (register.c): an eventfd (readable after completions, not when notifications are
 * toggled off, the async variant, unregistered, registered twice),
 * personalities in sqe->personality, restrictions on an R_DISABLED ring
 * (allowed and refused opcodes, SQE flags allowed and required, register
 * opcodes, bad restriction lists, a ring not disabled), submitting
 * before the ring is enabled, the probe of the implemented opcodes, and
 * the registered wait region (its descriptor's checks, one a ring, only
 * on a disabled ring, waits by offset in and out of it).
 * Register results and "the eventfd is readable" (yes/no, never a count)
 * are notes.
 */
#include <fcntl.h>
#include <stddef.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "harness.h"
#include "compat.h"

#define NOTE		1000	/* register results, in order */
#define NOTE_READABLE	1100	/* the eventfd polls readable */

static void note(struct diff_ctx *c, int value)
{
	diff_note(c, NOTE + c->nr_note, value);
}

/* val[0]: an eventfd, non-blocking */
static int setup_eventfd(struct diff_ctx *c)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd < 0)
		return diff_fail(c, "eventfd: %s", strerror(errno));
	c->val[0] = diff_track_fd(c, fd);
	return c->val[0] < 0 ? -1 : 0;
}

static int check_readable(struct diff_ctx *c, const struct diff_cqe *cqe,
			  unsigned nr)
{
	struct pollfd pfd = { .fd = c->val[0], .events = POLLIN };

	(void)cqe;
	(void)nr;
	if (poll(&pfd, 1, 0) < 0)
		return diff_fail(c, "poll: %s", strerror(errno));
	diff_note(c, NOTE_READABLE, !!(pfd.revents & POLLIN));
	return 0;
}

static int fill_nops(struct io_uring *ring, struct diff_ctx *c,
		     unsigned flags)
{
	unsigned i;

	for (i = 1; i <= 3; i++)
		diff_prep_nop(ring, c, i, flags);
	return 0;
}

static int fill_eventfd(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_eventfd(ring, c->val[0]));
	return fill_nops(ring, c, 0);
}

/* nothing completes: nothing to signal */
static int fill_eventfd_idle(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_eventfd(ring, c->val[0]));
	return 0;
}

/* IORING_CQ_EVENTFD_DISABLED set before anything completes */
static int fill_eventfd_off(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_eventfd(ring, c->val[0]));
	note(c, io_uring_cq_eventfd_toggle(ring, false));
	note(c, io_uring_cq_eventfd_enabled(ring));
	return fill_nops(ring, c, 0);
}

/* off, then on again for a second round */
static int fill_eventfd_toggle(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_eventfd(ring, c->val[0]));
	note(c, io_uring_cq_eventfd_toggle(ring, false));
	return fill_nops(ring, c, 0);
}

static int toggle_on(struct io_uring *ring, struct diff_ctx *c)
{
	struct pollfd pfd = { .fd = c->val[0], .events = POLLIN };

	if (diff_reap(ring, c, 3))
		return -1;
	poll(&pfd, 1, 0);
	diff_note(c, NOTE_READABLE + 1, !!(pfd.revents & POLLIN));
	note(c, io_uring_cq_eventfd_toggle(ring, true));
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* the async variant with completions inline */
static int fill_eventfd_async(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_eventfd_async(ring, c->val[0]));
	return fill_nops(ring, c, 0);
}

/* registered, unregistered (twice), then completions; twice registered */
static int fill_eventfd_unreg(struct io_uring *ring, struct diff_ctx *c)
{
	note(c, io_uring_register_eventfd(ring, c->val[0]));
	note(c, io_uring_register_eventfd(ring, c->val[0]));
	note(c, io_uring_register_eventfd_async(ring, c->val[0]));
	note(c, io_uring_unregister_eventfd(ring));
	note(c, io_uring_unregister_eventfd(ring));
	return fill_nops(ring, c, 0);
}

/* an fd that is not an eventfd, a closed one */
static int fill_eventfd_bad(struct io_uring *ring, struct diff_ctx *c)
{
	int p[2];

	if (diff_pipe(c, p))
		return -1;
	note(c, io_uring_register_eventfd(ring, p[0]));
	note(c, io_uring_unregister_eventfd(ring));
	note(c, io_uring_register_eventfd(ring, 99999));
	return fill_nops(ring, c, 0);
}

/*
 * A personality: NOP and OPENAT run under it; an id never handed out is
 * refused at submit; after unregistering, so is the old one.
 */
static int fill_personality(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;
	int id = io_uring_register_personality(ring);

	diff_note(c, NOTE, id > 0);
	c->val[1] = id;
	diff_prep_nop(ring, c, 1, 0)->personality = (__u16)id;
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat(sqe, c->dirfd, "f", O_RDONLY, 0);
	diff_tag(sqe, 2, 0);
	sqe->personality = (__u16)id;
	diff_prep_nop(ring, c, 3, 0)->personality = (__u16)(id + 7);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

static int personality_gone(struct io_uring *ring, struct diff_ctx *c)
{
	if (diff_submit_rest(ring, c))
		return -1;
	diff_note(c, NOTE + 1, io_uring_unregister_personality(ring,
							       c->val[1]));
	diff_note(c, NOTE + 2, io_uring_unregister_personality(ring,
							       c->val[1]));
	diff_prep_nop(ring, c, 5, 0)->personality = (__u16)c->val[1];
	diff_prep_nop(ring, c, 6, 0);
	return diff_submit_rest(ring, c);
}

static int setup_file(struct diff_ctx *c)
{
	return diff_file(c, "f", "hello", 5, O_RDONLY) < 0 ? -1 : 0;
}

static int check_personality(struct diff_ctx *c, const struct diff_cqe *cqe,
			     unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (cqe[i].user_data == 2 && cqe[i].res >= 0)
			diff_track_fd(c, cqe[i].res);
	return 0;
}

static void normalize_open(struct diff_cqe *cqe)
{
	if (cqe->user_data == 2)
		diff_normalize_fd(cqe);
}

static void restrict_op(struct io_uring_restriction *r, __u8 op)
{
	memset(r, 0, sizeof(*r));
	r->opcode = IORING_RESTRICTION_SQE_OP;
	r->sqe_op = op;
}

static void restrict_reg(struct io_uring_restriction *r, __u8 op)
{
	memset(r, 0, sizeof(*r));
	r->opcode = IORING_RESTRICTION_REGISTER_OP;
	r->register_op = op;
}

static void restrict_flags(struct io_uring_restriction *r, __u16 kind,
			   __u8 flags)
{
	memset(r, 0, sizeof(*r));
	r->opcode = kind;
	r->sqe_flags = flags;
}

/* NOP and READ allowed; registering files allowed, buffers not */
static int fill_restrict_ops(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_restriction r[4];
	struct io_uring_sqe *sqe;
	int fd = diff_file(c, "f", "hello", 5, O_RDONLY);

	if (fd < 0)
		return -1;
	restrict_op(&r[0], IORING_OP_NOP);
	restrict_op(&r[1], IORING_OP_READ);
	restrict_reg(&r[2], IORING_REGISTER_FILES);
	restrict_reg(&r[3], IORING_UNREGISTER_FILES);
	note(c, io_uring_register_restrictions(ring, r, 4));
	note(c, io_uring_enable_rings(ring));
	note(c, io_uring_register_files(ring, &fd, 1));
	c->iov[0].iov_base = c->buf[0];
	c->iov[0].iov_len = DIFF_BUFSZ;
	note(c, io_uring_register_buffers(ring, c->iov, 1));
	note(c, io_uring_unregister_files(ring));
	note(c, io_uring_register_personality(ring));
	diff_prep_nop(ring, c, 1, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_read(sqe, fd, c->buf[1], 64, 0);
	diff_tag(sqe, 2, 0);
	sqe = diff_sqe(ring, c);
	io_uring_prep_openat(sqe, c->dirfd, "f", O_RDONLY, 0);
	diff_tag(sqe, 3, 0);
	diff_prep_nop(ring, c, 4, 0);
	return 0;
}

/* NOP allowed with IO_LINK only: plain and linked pass, ASYNC does not */
static int fill_restrict_flags(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_restriction r[2];

	restrict_op(&r[0], IORING_OP_NOP);
	restrict_flags(&r[1], IORING_RESTRICTION_SQE_FLAGS_ALLOWED,
		       IOSQE_IO_LINK);
	note(c, io_uring_register_restrictions(ring, r, 2));
	note(c, io_uring_enable_rings(ring));
	diff_prep_nop(ring, c, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 3, 0);
	diff_prep_nop(ring, c, 4, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 5, IOSQE_IO_LINK | IOSQE_IO_HARDLINK);
	diff_prep_nop(ring, c, 6, 0);
	return 0;
}

/* ASYNC required: an SQE without it is refused */
static int fill_restrict_required(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_restriction r[2];

	restrict_op(&r[0], IORING_OP_NOP);
	restrict_flags(&r[1], IORING_RESTRICTION_SQE_FLAGS_REQUIRED,
		       IOSQE_ASYNC);
	note(c, io_uring_register_restrictions(ring, r, 2));
	note(c, io_uring_enable_rings(ring));
	diff_prep_nop(ring, c, 1, IOSQE_ASYNC);
	diff_prep_nop(ring, c, 2, 0);
	diff_prep_nop(ring, c, 3, IOSQE_ASYNC | IOSQE_IO_LINK);
	diff_prep_nop(ring, c, 4, IOSQE_ASYNC);
	return 0;
}

/*
 * Bad lists: an unknown restriction kind, a register opcode past the
 * last, an empty list; then a good one, a second one, enable, enable
 * again, restrictions after enabling.
 */
static int fill_restrict_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_restriction r[2];

	restrict_op(&r[0], IORING_OP_NOP);
	restrict_flags(&r[1], IORING_RESTRICTION_LAST, 0);
	note(c, io_uring_register_restrictions(ring, r, 2));
	restrict_reg(&r[1], 200);
	note(c, io_uring_register_restrictions(ring, r, 2));
	note(c, io_uring_register_restrictions(ring, r, 0));
	note(c, io_uring_register_restrictions(ring, r, 1));
	note(c, io_uring_register_restrictions(ring, r, 1));
	note(c, io_uring_enable_rings(ring));
	note(c, io_uring_enable_rings(ring));
	note(c, io_uring_register_restrictions(ring, r, 1));
	diff_prep_nop(ring, c, 1, 0);
	diff_prep_nop(ring, c, 2, IOSQE_ASYNC);
	return 0;
}

/* a ring that was never disabled */
static int fill_restrict_enabled_ring(struct io_uring *ring,
				      struct diff_ctx *c)
{
	struct io_uring_restriction r;

	restrict_op(&r, IORING_OP_NOP);
	note(c, io_uring_register_restrictions(ring, &r, 1));
	note(c, io_uring_enable_rings(ring));
	diff_prep_nop(ring, c, 1, 0);
	return 0;
}

/* R_DISABLED: submitting is refused until the ring is enabled */
static int fill_disabled_submit(struct io_uring *ring, struct diff_ctx *c)
{
	diff_prep_nop(ring, c, 1, 0);
	diff_prep_nop(ring, c, 2, 0);
	note(c, io_uring_submit(ring));
	note(c, (int)io_uring_sq_ready(ring));
	note(c, io_uring_enable_rings(ring));
	return 0;
}

/* the opcodes the user engine implements, as the probe reports them */
static const __u8 implemented[] = {
	IORING_OP_NOP, IORING_OP_READV, IORING_OP_WRITEV, IORING_OP_FSYNC,
	IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED,
	IORING_OP_SYNC_FILE_RANGE, IORING_OP_TIMEOUT,
	IORING_OP_TIMEOUT_REMOVE, IORING_OP_ASYNC_CANCEL,
	IORING_OP_LINK_TIMEOUT, IORING_OP_FALLOCATE, IORING_OP_OPENAT,
	IORING_OP_CLOSE, IORING_OP_FILES_UPDATE, IORING_OP_STATX,
	IORING_OP_READ, IORING_OP_WRITE, IORING_OP_FADVISE,
	IORING_OP_MADVISE, IORING_OP_OPENAT2, IORING_OP_RENAMEAT,
	IORING_OP_UNLINKAT, IORING_OP_MKDIRAT, IORING_OP_SYMLINKAT,
	IORING_OP_LINKAT,
};

static int fill_probe(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	unsigned i, missing = 0;

	if (!p)
		return diff_fail(c, "io_uring_get_probe_ring failed");
	for (i = 0; i < sizeof(implemented); i++)
		if (!io_uring_opcode_supported(p, implemented[i]))
			missing++;
	diff_note(c, NOTE, (int)missing);
	diff_note(c, NOTE + 1, p->last_op >= IORING_OP_LINKAT);
	io_uring_free_probe(p);
	return 0;
}

/* ---- IORING_REGISTER_QUERY (6.18) on the ring's fd ---- */

#define REG_QUERY	35

struct query_hdr {
	__u64 next_entry, query_data;
	__u32 query_op, size;
	__s32 result;
	__u32 resv[3];
};

/* IO_URING_QUERY_OPCODES' answer, with room past it */
struct query_ops {
	__u32 nr_request_opcodes, nr_register_opcodes;
	__u64 feature_flags, ring_setup_flags, enter_flags, sqe_flags;
	__u32 nr_query_opcodes, pad;
	__u8 past[16];
};

static int query(struct io_uring *ring, struct query_hdr *h, unsigned nr)
{
	return io_uring_register(ring->ring_fd, REG_QUERY, h, nr);
}

static void query_init(struct query_hdr *h, struct query_ops *o, __u32 op,
		       __u32 size)
{
	memset(h, 0, sizeof(*h));
	memset(o, 0xff, sizeof(*o));
	h->query_op = op;
	h->query_data = (unsigned long)o;
	h->size = size;
}

/* are bytes [from, to) of o all v? */
static int all(const struct query_ops *o, size_t from, size_t to, __u8 v)
{
	const __u8 *p = (const void *)o;

	for (; from < to; from++)
		if (p[from] != v)
			return 0;
	return 1;
}

#define OPS_SIZE	offsetof(struct query_ops, past)

/*
 * What both engines answer alike: the opcode counts, the SQE flags, the
 * header's result and size; the features, which must be the ring's own;
 * the bad headers and chains
 */
static int fill_query(struct io_uring *ring, struct diff_ctx *c)
{
	struct query_hdr h[3];
	struct query_ops o[3];

	query_init(&h[0], &o[0], 0, OPS_SIZE);
	note(c, query(ring, &h[0], 0));
	note(c, h[0].result);
	note(c, (int)h[0].size);
	note(c, (int)o[0].nr_request_opcodes);
	note(c, (int)o[0].nr_register_opcodes);
	note(c, (int)o[0].sqe_flags);
	note(c, o[0].feature_flags == ring->features);
	note(c, (o[0].enter_flags & 0x1f) == 0x1f);	/* GETEVENTS..REGISTERED_RING */
	note(c, query(ring, &h[0], 1));
	return 0;
}

/* an unknown query, bad header words, a bad successor, bad data */
static int fill_query_bad(struct io_uring *ring, struct diff_ctx *c)
{
	struct query_hdr h[1];
	struct query_ops o[1];

	/* an unknown query: its result, and its buffer cleared */
	query_init(&h[0], &o[0], 0xffffffffU, OPS_SIZE);
	note(c, query(ring, &h[0], 0));
	note(c, h[0].result);
	note(c, (int)h[0].size);
	note(c, all(&o[0], 0, OPS_SIZE, 0));
	/* reserved words, a result given, no size: -EINVAL in the header */
	query_init(&h[0], &o[0], 0, OPS_SIZE);
	h[0].resv[1] = 1;
	note(c, query(ring, &h[0], 0));
	note(c, h[0].result);
	query_init(&h[0], &o[0], 0, OPS_SIZE);
	h[0].result = 5;
	note(c, query(ring, &h[0], 0));
	note(c, h[0].result);
	query_init(&h[0], &o[0], 0, 0);
	note(c, query(ring, &h[0], 0));
	note(c, h[0].result);
	/* a bad successor, bad data */
	query_init(&h[0], &o[0], 0, OPS_SIZE);
	h[0].next_entry = 0xdeadbeef;
	note(c, query(ring, &h[0], 0));
	note(c, h[0].result);
	query_init(&h[0], &o[0], 0, OPS_SIZE);
	h[0].query_data = 0xdeadbeef;
	note(c, query(ring, &h[0], 0));
	return 0;
}

/* answers shorter and longer than the query's, chains */
static int fill_query_sizes(struct io_uring *ring, struct diff_ctx *c)
{
	struct query_hdr h[3];
	struct query_ops o[3];

	/* shorter: 8 bytes answered, the rest untouched */
	query_init(&h[0], &o[0], 0, 8);
	note(c, query(ring, &h[0], 0));
	note(c, (int)h[0].size);
	note(c, all(&o[0], 8, sizeof(o[0]), 0xff));
	/* longer: the answer's size, and the rest of the buffer cleared */
	query_init(&h[0], &o[0], 0, sizeof(o[0]));
	note(c, query(ring, &h[0], 0));
	note(c, (int)h[0].size);
	note(c, all(&o[0], OPS_SIZE, sizeof(o[0]), 0));
	/* a chain of three, and one that loops */
	for (int i = 0; i < 3; i++) {
		query_init(&h[i], &o[i], 0, OPS_SIZE);
		h[i].result = 0;
		if (i)
			h[i - 1].next_entry = (unsigned long)&h[i];
	}
	note(c, query(ring, &h[0], 0));
	note(c, h[0].result | h[1].result | h[2].result);
	note(c, o[2].nr_request_opcodes == o[0].nr_request_opcodes);
	h[2].next_entry = (unsigned long)&h[0];
	note(c, query(ring, &h[0], 0));
	return 0;
}

/* the wait arguments: two pages, 128 entries */
static struct ar_reg_wait waits[128] __attribute__((aligned(4096)));

static int region_register(struct io_uring *ring, struct ar_region_desc *rd,
			   __u64 flags)
{
	struct ar_mem_region_reg mr = {
		.region_uptr = (uintptr_t)rd, .flags = flags,
	};

	return io_uring_register(ring->ring_fd, AR_REGISTER_MEM_REGION, &mr, 1);
}

/* a wait at byte offset off, argument size sz: its answer */
static int region_wait(struct io_uring *ring, unsigned long off, size_t sz)
{
	return io_uring_enter2(ring->ring_fd, 0, 1, IORING_ENTER_GETEVENTS |
			       IORING_ENTER_EXT_ARG | IORING_ENTER_EXT_ARG_REG,
			       (void *)off, sz);
}

/*
 * R_DISABLED: bad region descriptors (each refused, so the ring has
 * none), the wait region, a second one (-EBUSY), then waits by offset:
 * in range with a 1 ms timeout, past the end, not a multiple of a long,
 * the wrong size, unknown entry flags, a sigmask of the wrong size.
 */
static int fill_wait_region(struct io_uring *ring, struct diff_ctx *c)
{
	struct ar_region_desc rd = { .user_addr = (uintptr_t)waits,
				     .size = sizeof(waits),
				     .flags = AR_MEM_REGION_TYPE_USER };
	const size_t w = sizeof(waits[0]);

	note(c, region_register(ring, &rd, 2));
	rd.resv[0] = 1;
	note(c, region_register(ring, &rd, AR_MEM_REGION_REG_WAIT_ARG));
	rd.resv[0] = 0;
	rd.flags = 0;
	note(c, region_register(ring, &rd, AR_MEM_REGION_REG_WAIT_ARG));
	rd.flags = AR_MEM_REGION_TYPE_USER;
	rd.size = 100;
	note(c, region_register(ring, &rd, AR_MEM_REGION_REG_WAIT_ARG));
	rd.size = sizeof(waits);
	rd.user_addr = 0;
	note(c, region_register(ring, &rd, AR_MEM_REGION_REG_WAIT_ARG));
	rd.user_addr = (uintptr_t)waits;
	note(c, region_register(ring, &rd, AR_MEM_REGION_REG_WAIT_ARG));
	note(c, (int)rd.mmap_offset);
	note(c, region_register(ring, &rd, AR_MEM_REGION_REG_WAIT_ARG));
	note(c, io_uring_enable_rings(ring));
	memset(waits, 0, sizeof(waits));
	waits[0].flags = AR_REG_WAIT_TS;
	waits[0].ts.tv_nsec = 1000000;
	waits[127] = waits[0];
	waits[1] = waits[0];
	waits[1].flags |= 2;
	waits[2] = waits[0];
	waits[2].sigmask = (uintptr_t)&waits[3];
	waits[2].sigmask_sz = 1;
	note(c, region_wait(ring, 0, w));
	note(c, region_wait(ring, 127 * w, w));
	note(c, region_wait(ring, 128 * w, w));
	note(c, region_wait(ring, 4, w));
	note(c, region_wait(ring, 0, w - 8));
	note(c, region_wait(ring, w, w));
	note(c, region_wait(ring, 2 * w, w));
	diff_prep_nop(ring, c, 1, 0);
	return 0;
}

/* a ring not disabled: no wait region, and a wait finds none */
static int fill_wait_region_enabled(struct io_uring *ring, struct diff_ctx *c)
{
	struct ar_region_desc rd = { .user_addr = (uintptr_t)waits,
				     .size = sizeof(waits),
				     .flags = AR_MEM_REGION_TYPE_USER };

	note(c, region_wait(ring, 0, sizeof(waits[0])));
	note(c, region_register(ring, &rd, AR_MEM_REGION_REG_WAIT_ARG));
	note(c, region_register(ring, &rd, 0));
	note(c, region_wait(ring, 0, sizeof(waits[0])));
	diff_prep_nop(ring, c, 1, 0);
	return 0;
}

const struct scenario diff_register[] = {
	{
		.name = "ctl_wait_region",
		.setup_flags = IORING_SETUP_R_DISABLED,
		.fill = fill_wait_region,
		.nr_cqes = 1,
		.known = { { NOTE + 5, 0 }, { NOTE + 7, -EBUSY },
			   { NOTE + 9, -ETIME }, { NOTE + 11, -EFAULT } },
	}, {
		.name = "ctl_wait_region_enabled_ring",
		.fill = fill_wait_region_enabled,
		.nr_cqes = 1,
		.known = { { NOTE, -EFAULT }, { NOTE + 1, -EINVAL } },
	},
	{
		.name = "register_query",
		.fill = fill_query,
		.nr_cqes = 0,
	}, {
		.name = "register_query_bad",
		.fill = fill_query_bad,
		.nr_cqes = 0,
	}, {
		.name = "register_query_sizes",
		.fill = fill_query_sizes,
		.nr_cqes = 0,
	}, {
		.name = "ctl_eventfd_readable",
		.setup = setup_eventfd,
		.fill = fill_eventfd,
		.check = check_readable,
		.nr_cqes = 3,
		.known = { { NOTE, 0 }, { NOTE_READABLE, 1 } },
	}, {
		.name = "ctl_eventfd_nothing_completed",
		.setup = setup_eventfd,
		.fill = fill_eventfd_idle,
		.check = check_readable,
		.nr_cqes = 0,
		.known = { { NOTE_READABLE, 0 } },
	}, {
		.name = "ctl_eventfd_disabled",
		.setup = setup_eventfd,
		.fill = fill_eventfd_off,
		.check = check_readable,
		.nr_cqes = 3,
		.known = { { NOTE_READABLE, 0 } },
	}, {
		.name = "ctl_eventfd_toggled_back_on",
		.setup = setup_eventfd,
		.fill = fill_eventfd_toggle,
		.after_submit = toggle_on,
		.check = check_readable,
		.nr_cqes = 4,
		.known = { { NOTE_READABLE + 1, 0 }, { NOTE_READABLE, 1 } },
	}, {
		.name = "ctl_eventfd_async_inline_completions",
		.setup = setup_eventfd,
		.fill = fill_eventfd_async,
		.check = check_readable,
		.nr_cqes = 3,
	}, {
		.name = "ctl_eventfd_unregistered",
		.setup = setup_eventfd,
		.fill = fill_eventfd_unreg,
		.check = check_readable,
		.nr_cqes = 3,
		.known = { { NOTE_READABLE, 0 } },
	}, {
		.name = "ctl_eventfd_bad_fds",
		.setup = setup_eventfd,
		.fill = fill_eventfd_bad,
		.check = check_readable,
		.nr_cqes = 3,
	}, {
		.name = "ctl_personality",
		.setup = setup_file,
		.fill = fill_personality,
		.after_submit = personality_gone,
		.check = check_personality,
		.normalize = normalize_open,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { NOTE, 1 }, { 1, 0 }, { 2, DIFF_RES_FD },
			   { NOTE + 1, 0 } },
	}, {
		.name = "ctl_restrictions_opcodes",
		.setup_flags = IORING_SETUP_R_DISABLED,
		.fill = fill_restrict_ops,
		.after_submit = diff_submit_rest,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, 5 }, { 3, -EACCES }, { 4, 0 } },
	}, {
		.name = "ctl_restrictions_flags_allowed",
		.setup_flags = IORING_SETUP_R_DISABLED,
		.fill = fill_restrict_flags,
		.after_submit = diff_submit_rest,
		.nr_cqes = 6,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 4, -EACCES } },
	}, {
		.name = "ctl_restrictions_flags_required",
		.setup_flags = IORING_SETUP_R_DISABLED,
		.fill = fill_restrict_required,
		.after_submit = diff_submit_rest,
		.nr_cqes = 4,
		.order = ORDER_ANY,
		.known = { { 1, 0 }, { 2, -EACCES } },
	}, {
		.name = "ctl_restrictions_bad_lists",
		.setup_flags = IORING_SETUP_R_DISABLED,
		.fill = fill_restrict_bad,
		.after_submit = diff_submit_rest,
		.nr_cqes = 2,
		.order = ORDER_ANY,
	}, {
		.name = "ctl_restrictions_ring_not_disabled",
		.fill = fill_restrict_enabled_ring,
		.nr_cqes = 1,
	}, {
		.name = "ctl_submit_before_enable",
		.setup_flags = IORING_SETUP_R_DISABLED,
		.fill = fill_disabled_submit,
		.nr_cqes = 2,
	}, {
		.name = "ctl_probe_implemented_opcodes",
		.fill = fill_probe,
		.nr_cqes = 0,
		.known = { { NOTE, 0 }, { NOTE + 1, 1 } },
	},
	{ .name = NULL }
};
