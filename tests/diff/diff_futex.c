/* SPDX-License-Identifier: MIT */
/*
 * diff_futex.c - IORING_OP_FUTEX_WAIT, FUTEX_WAKE and FUTEX_WAITV
 * (ops/futex.c). The wake side is deterministic: a wait and the wake
 * that ends it are in the same submission (the wait is armed when the
 * wake is issued), or the value already differs (-EAGAIN). Counts (a
 * wake of 2 among 3 waiters, then of all), masks, private against
 * shared, cancellation by user_data, FUTEX_WAITV's index, and the
 * errors: bad flags, sizes, values and masks that do not fit, a zero
 * mask, a misaligned or unmapped word, FUTEX_WAITV's bad vectors. The
 * words live in c->buf[0].
 */
#include <limits.h>
#include "harness.h"

#define OP_FUTEX_WAIT	51
#define OP_FUTEX_WAKE	52
#define OP_FUTEX_WAITV	53
#define F2_U32		0x02
#define F2_NUMA		0x04
#define F2_PRIVATE	128
#define ANY		0xffffffffULL

struct waitv {
	__u64 val;
	__u64 uaddr;
	__u32 flags;
	__u32 reserved;
};

static struct waitv *vec(struct diff_ctx *c);
static void set_vec(struct diff_ctx *c, unsigned i, unsigned w, __u32 val);

static __u32 *word(struct diff_ctx *c, unsigned i)
{
	return (__u32 *)(void *)c->buf[0] + i;
}

static struct io_uring_sqe *prep_futex(struct io_uring *ring,
				       struct diff_ctx *c, __u64 ud, __u8 op,
				       const void *addr, __u64 val, __u64 mask,
				       unsigned flags)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_rw(op, sqe, (int)flags, addr, 0, 0);
	sqe->addr2 = val;
	sqe->addr3 = mask;
	diff_tag(sqe, ud, 0);
	return sqe;
}

static struct io_uring_sqe *prep_wait(struct io_uring *ring, struct diff_ctx *c,
				      __u64 ud, unsigned w, __u64 val, __u64 mask)
{
	return prep_futex(ring, c, ud, OP_FUTEX_WAIT, word(c, w), val, mask,
			  F2_U32 | F2_PRIVATE);
}

static struct io_uring_sqe *prep_wake(struct io_uring *ring, struct diff_ctx *c,
				      __u64 ud, unsigned w, __u64 nr, __u64 mask)
{
	return prep_futex(ring, c, ud, OP_FUTEX_WAKE, word(c, w), nr, mask,
			  F2_U32 | F2_PRIVATE);
}

static struct io_uring_sqe *prep_waitv(struct io_uring *ring,
				       struct diff_ctx *c, __u64 ud,
				       const void *v, unsigned nr)
{
	struct io_uring_sqe *sqe = diff_sqe(ring, c);

	io_uring_prep_rw(OP_FUTEX_WAITV, sqe, 0, v, nr, 0);
	diff_tag(sqe, ud, 0);
	return sqe;
}

static int fill_wake_none(struct io_uring *ring, struct diff_ctx *c)
{
	prep_wake(ring, c, 1, 0, 1, ANY);
	prep_wake(ring, c, 2, 0, 0, ANY);
	return 0;
}

/* a count of 0 wakes none of the waiters; a negative one (-1) wakes one */
static int fill_wake_zero(struct io_uring *ring, struct diff_ctx *c)
{
	prep_wait(ring, c, 1, 0, 0, ANY);
	prep_wait(ring, c, 2, 0, 0, ANY);
	prep_wake(ring, c, 3, 0, 0, ANY);
	prep_wake(ring, c, 4, 0, 0xffffffffULL, ANY);
	prep_wake(ring, c, 5, 0, 1, ANY);
	return 0;
}

/* a moved value is the wait's answer at once, before the NOP after it */
static int fill_wait_eagain(struct io_uring *ring, struct diff_ctx *c)
{
	*word(c, 0) = 5;
	prep_wait(ring, c, 1, 0, 4, ANY);
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

static int fill_wait_wake(struct io_uring *ring, struct diff_ctx *c)
{
	prep_wait(ring, c, 1, 0, 0, ANY);
	prep_wake(ring, c, 2, 0, 1, ANY);
	return 0;
}

/* three waiters: a wake of 2, then of all (1 left), then of all (none) */
static int fill_wake_count(struct io_uring *ring, struct diff_ctx *c)
{
	prep_wait(ring, c, 1, 0, 0, ANY);
	prep_wait(ring, c, 2, 0, 0, ANY);
	prep_wait(ring, c, 3, 0, 0, ANY);
	prep_wake(ring, c, 4, 0, 2, ANY);
	prep_wake(ring, c, 5, 0, INT_MAX, ANY);
	prep_wake(ring, c, 6, 0, INT_MAX, ANY);
	return 0;
}

static int fill_wake_mask(struct io_uring *ring, struct diff_ctx *c)
{
	prep_wait(ring, c, 1, 0, 0, 0x1);
	prep_wait(ring, c, 2, 0, 0, 0x2);
	prep_wake(ring, c, 3, 0, INT_MAX, 0x2);
	prep_wake(ring, c, 4, 0, INT_MAX, 0x4);
	prep_wake(ring, c, 5, 0, INT_MAX, 0x3);
	return 0;
}

/* a private wait is not a shared wake's, nor another word's */
static int fill_wake_private(struct io_uring *ring, struct diff_ctx *c)
{
	prep_wait(ring, c, 1, 0, 0, ANY);
	prep_futex(ring, c, 2, OP_FUTEX_WAKE, word(c, 0), 1, ANY, F2_U32);
	prep_wake(ring, c, 3, 1, 1, ANY);
	prep_wake(ring, c, 4, 0, 1, ANY);
	return 0;
}

static int fill_shared(struct io_uring *ring, struct diff_ctx *c)
{
	prep_futex(ring, c, 1, OP_FUTEX_WAIT, word(c, 0), 0, ANY, F2_U32);
	prep_futex(ring, c, 2, OP_FUTEX_WAKE, word(c, 0), 1, ANY, F2_U32);
	return 0;
}

static int fill_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	prep_wait(ring, c, 1, 0, 0, ANY);
	prep_wait(ring, c, 2, 1, 0, ANY);
	diff_prep_cancel(ring, c, 3, 1, 0);
	diff_prep_cancel(ring, c, 4, 1, 0);	/* gone: -ENOENT */
	prep_wake(ring, c, 5, 0, 1, ANY);	/* nobody left on word 0 */
	prep_wake(ring, c, 6, 1, 1, ANY);
	return 0;
}

/*
 * A wait with a LINK_TIMEOUT that fires; a WAITV likewise. The link
 * timeout's result is the count its cancel of the futex returned (1) on
 * 6.18 (measured), not -ETIME.
 */
static int fill_link_timeout(struct io_uring *ring, struct diff_ctx *c)
{
	struct io_uring_sqe *sqe;

	diff_ts(c, 0, 20);
	sqe = prep_wait(ring, c, 1, 0, 0, ANY);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 2, 0);
	set_vec(c, 0, 2, 0);
	sqe = prep_waitv(ring, c, 3, vec(c), 1);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = diff_sqe(ring, c);
	io_uring_prep_link_timeout(sqe, &c->ts[0], 0);
	diff_tag(sqe, 4, 0);
	return 0;
}

/* issue-time errors; none of them ends the submit */
static int fill_issue_errors(struct io_uring *ring, struct diff_ctx *c)
{
	char *odd = (char *)c->buf[0] + 2;

	prep_wait(ring, c, 1, 0, 0, 0);		/* zero mask */
	prep_wake(ring, c, 2, 0, 1, 0);
	prep_futex(ring, c, 3, OP_FUTEX_WAIT, odd, 0, ANY, F2_U32 | F2_PRIVATE);
	prep_futex(ring, c, 4, OP_FUTEX_WAKE, odd, 1, ANY, F2_U32 | F2_PRIVATE);
	prep_futex(ring, c, 5, OP_FUTEX_WAIT, (void *)8, 0, ANY,
		   F2_U32 | F2_PRIVATE);
	prep_futex(ring, c, 6, OP_FUTEX_WAIT, (void *)8, 0, ANY, F2_U32);
	prep_futex(ring, c, 7, OP_FUTEX_WAKE, (void *)8, 1, ANY, F2_U32);
	prep_futex(ring, c, 8, OP_FUTEX_WAKE, (void *)8, 1, ANY,
		   F2_U32 | F2_PRIVATE);
	return 0;
}

/* prep's refusals: each ends the submit; c->val[0] picks the case */
static int fill_prep_error(struct io_uring *ring, struct diff_ctx *c, int which)
{
	struct io_uring_sqe *sqe;

	switch (which) {
	case 0:		/* 8-bit futex */
		prep_futex(ring, c, 1, OP_FUTEX_WAIT, word(c, 0), 0, ANY, 0);
		break;
	case 1:		/* 64-bit futex */
		prep_futex(ring, c, 1, OP_FUTEX_WAKE, word(c, 0), 1, ANY, 3);
		break;
	case 2:		/* unknown flag */
		prep_futex(ring, c, 1, OP_FUTEX_WAIT, word(c, 0), 0, ANY,
			   F2_U32 | 0x100);
		break;
	case 3:		/* a value past 32 bits */
		prep_futex(ring, c, 1, OP_FUTEX_WAIT, word(c, 0), 1ULL << 32,
			   ANY, F2_U32);
		break;
	case 4:		/* a mask past 32 bits */
		prep_futex(ring, c, 1, OP_FUTEX_WAKE, word(c, 0), 1, 1ULL << 33,
			   F2_U32);
		break;
	case 5:		/* len */
		sqe = prep_wait(ring, c, 1, 0, 0, ANY);
		sqe->len = 1;
		break;
	case 6:		/* buf_index */
		sqe = prep_wake(ring, c, 1, 0, 1, ANY);
		sqe->buf_index = 1;
		break;
	case 7:		/* futex_flags */
		sqe = prep_wait(ring, c, 1, 0, 0, ANY);
		sqe->rw_flags = 1;
		break;
	}
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

#define PREP_FILL(n)							\
static int fill_prep_##n(struct io_uring *ring, struct diff_ctx *c)	\
{									\
	return fill_prep_error(ring, c, n);				\
}
PREP_FILL(0) PREP_FILL(1) PREP_FILL(2) PREP_FILL(3)
PREP_FILL(4) PREP_FILL(5) PREP_FILL(6) PREP_FILL(7)

static struct waitv *vec(struct diff_ctx *c)
{
	return (struct waitv *)(void *)(c->buf[1]);
}

static void set_vec(struct diff_ctx *c, unsigned i, unsigned w, __u32 val)
{
	vec(c)[i].uaddr = (unsigned long)word(c, w);
	vec(c)[i].val = val;
	vec(c)[i].flags = F2_U32 | F2_PRIVATE;
}

/* the second word moved: -EAGAIN; then both armed, the second woken */
static int fill_waitv(struct io_uring *ring, struct diff_ctx *c)
{
	struct waitv *v2 = vec(c) + 4;

	*word(c, 3) = 9;
	set_vec(c, 0, 2, 0);
	set_vec(c, 1, 3, 8);
	prep_waitv(ring, c, 1, vec(c), 2);
	v2[0] = vec(c)[0];
	v2[1] = vec(c)[1];
	v2[1].val = 9;
	prep_waitv(ring, c, 2, v2, 2);
	prep_wake(ring, c, 3, 3, 1, ANY);
	return 0;
}

static int fill_waitv_cancel(struct io_uring *ring, struct diff_ctx *c)
{
	set_vec(c, 0, 2, 0);
	prep_waitv(ring, c, 1, vec(c), 1);
	diff_prep_cancel(ring, c, 2, 1, 0);
	return 0;
}

static int fill_waitv_prep(struct io_uring *ring, struct diff_ctx *c, int which)
{
	struct io_uring_sqe *sqe;

	set_vec(c, 0, 2, 0);
	set_vec(c, 1, 3, 0);
	switch (which) {
	case 0:
		prep_waitv(ring, c, 1, vec(c), 0);
		break;
	case 1:
		prep_waitv(ring, c, 1, vec(c), 129);
		break;
	case 2:
		prep_waitv(ring, c, 1, (void *)8, 2);
		break;
	case 3:
		vec(c)[1].reserved = 1;
		prep_waitv(ring, c, 1, vec(c), 2);
		break;
	case 4:
		vec(c)[1].flags = 0;	/* an 8-bit futex */
		prep_waitv(ring, c, 1, vec(c), 2);
		break;
	case 5:
		vec(c)[1].val = 1ULL << 32;
		prep_waitv(ring, c, 1, vec(c), 2);
		break;
	case 6:
		sqe = prep_waitv(ring, c, 1, vec(c), 2);
		sqe->addr3 = 1;		/* no mask for waitv */
		break;
	}
	diff_prep_nop(ring, c, 2, 0);
	return 0;
}

#define WPREP_FILL(n)							\
static int fill_wprep_##n(struct io_uring *ring, struct diff_ctx *c)	\
{									\
	return fill_waitv_prep(ring, c, n);				\
}
WPREP_FILL(0) WPREP_FILL(1) WPREP_FILL(2) WPREP_FILL(3)
WPREP_FILL(4) WPREP_FILL(5) WPREP_FILL(6)

/* an unmapped word in a vector: the wait's issue faults */
static int fill_waitv_fault(struct io_uring *ring, struct diff_ctx *c)
{
	set_vec(c, 0, 2, 0);
	vec(c)[1].uaddr = 8;
	vec(c)[1].flags = F2_U32 | F2_PRIVATE;
	prep_waitv(ring, c, 1, vec(c), 2);
	return 0;
}

#define PREP_SCENARIO(nm, fn)						\
	{ .name = nm, .fill = fn, .nr_cqes = 1, .order = ORDER_EXACT,	\
	  .known = { { 1, -EINVAL } } }

const struct scenario diff_futex[] = {
	{ .name = "futex_wake_none", .fill = fill_wake_none, .nr_cqes = 2,
	  .order = ORDER_EXACT, .known = { { 1, 0 }, { 2, 0 } } },
	{ .name = "futex_wake_zero", .fill = fill_wake_zero, .nr_cqes = 5,
	  .order = ORDER_ANY, .known = { { 3, 0 }, { 5, 1 } } },
	{ .name = "futex_wait_eagain", .fill = fill_wait_eagain, .nr_cqes = 2,
	  .order = ORDER_EXACT, .known = { { 1, -EAGAIN }, { 2, 0 } } },
	{ .name = "futex_wait_wake", .fill = fill_wait_wake, .nr_cqes = 2,
	  .order = ORDER_ANY, .known = { { 1, 0 }, { 2, 1 } } },
	{ .name = "futex_wake_count", .fill = fill_wake_count, .nr_cqes = 6,
	  .order = ORDER_ANY,
	  .known = { { 4, 2 }, { 5, 1 }, { 6, 0 } } },
	{ .name = "futex_wake_mask", .fill = fill_wake_mask, .nr_cqes = 5,
	  .order = ORDER_ANY,
	  .known = { { 3, 1 }, { 4, 0 }, { 5, 1 } } },
	{ .name = "futex_wake_private", .fill = fill_wake_private, .nr_cqes = 4,
	  .order = ORDER_ANY,
	  .known = { { 2, 0 }, { 3, 0 }, { 4, 1 } } },
	{ .name = "futex_shared", .fill = fill_shared, .nr_cqes = 2,
	  .order = ORDER_ANY, .known = { { 1, 0 }, { 2, 1 } } },
	{ .name = "futex_cancel", .fill = fill_cancel, .nr_cqes = 6,
	  .order = ORDER_ANY,
	  .known = { { 1, -ECANCELED }, { 3, 1 }, { 4, -ENOENT },
		     { 5, 0 }, { 6, 1 } } },
	{ .name = "futex_link_timeout", .fill = fill_link_timeout,
	  .nr_cqes = 4, .order = ORDER_ANY,
	  /* 6.18's link timeout answers its cancel's count, 1, not -ETIME */
	  .known = { { 1, -ECANCELED }, { 2, 1 }, { 3, -ECANCELED },
		     { 4, 1 } } },
	{ .name = "futex_issue_errors", .fill = fill_issue_errors, .nr_cqes = 8,
	  .order = ORDER_ANY,
	  .known = { { 1, -EINVAL }, { 2, -EINVAL }, { 3, -EINVAL },
		     { 5, -EFAULT } } },
	PREP_SCENARIO("futex_prep_u8", fill_prep_0),
	PREP_SCENARIO("futex_prep_u64", fill_prep_1),
	PREP_SCENARIO("futex_prep_flag", fill_prep_2),
	PREP_SCENARIO("futex_prep_val", fill_prep_3),
	PREP_SCENARIO("futex_prep_mask", fill_prep_4),
	PREP_SCENARIO("futex_prep_len", fill_prep_5),
	PREP_SCENARIO("futex_prep_buf_index", fill_prep_6),
	PREP_SCENARIO("futex_prep_futex_flags", fill_prep_7),
	{ .name = "futex_waitv", .fill = fill_waitv, .nr_cqes = 3,
	  .order = ORDER_ANY,
	  .known = { { 1, -EAGAIN }, { 2, 1 }, { 3, 1 } } },
	{ .name = "futex_waitv_cancel", .fill = fill_waitv_cancel,
	  .nr_cqes = 2, .order = ORDER_ANY,
	  .known = { { 1, -ECANCELED }, { 2, 1 } } },
	{ .name = "futex_waitv_fault", .fill = fill_waitv_fault, .nr_cqes = 1,
	  .order = ORDER_EXACT, .known = { { 1, -EFAULT } } },
	PREP_SCENARIO("futex_waitv_nr0", fill_wprep_0),
	PREP_SCENARIO("futex_waitv_nr129", fill_wprep_1),
	{ .name = "futex_waitv_bad_vector", .fill = fill_wprep_2,
	  .nr_cqes = 1, .order = ORDER_EXACT, .known = { { 1, -EFAULT } } },
	PREP_SCENARIO("futex_waitv_reserved", fill_wprep_3),
	PREP_SCENARIO("futex_waitv_u8", fill_wprep_4),
	PREP_SCENARIO("futex_waitv_val", fill_wprep_5),
	PREP_SCENARIO("futex_waitv_mask", fill_wprep_6),
	{ .name = NULL },
};
