/* SPDX-License-Identifier: MIT */
/*
 * opdef.h - the user engine's opcode table, split as the kernel's
 * io_uring/opdef.h: what submission and issue read for every request
 * (struct ar_issue_def) apart from what is looked at rarely (struct
 * ar_cold_def). Every decision the core makes per opcode is a field here;
 * the core does not compare opcodes.
 */
#ifndef ANYRING_USER_OPDEF_H
#define ANYRING_USER_OPDEF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>
#include <linux/io_uring.h>
#include "engine/compat.h"

struct ar_ureq;

/* how many opcodes the table describes: IORING_OP_NOP to AR_OP_LAST_KNOWN */
#define AR_OP_NR		(AR_OP_LAST_KNOWN + 1)

struct ar_issue_def {
	/* read the SQE into the request; no system calls; an error fails it at submit */
	int (*prep)(struct ar_ureq *req, const struct io_uring_sqe *sqe);
	/*
	 * do it: a result; AR_ISSUE_AGAIN (or -EAGAIN from ops without
	 * pollin/pollout) under AR_ISSUE_NONBLOCK to wait or punt;
	 * AR_ISSUE_QUEUED when the request completes elsewhere. NULL only
	 * with prep_fails.
	 */
	int (*issue)(struct ar_ureq *req, unsigned issue_flags);
	unsigned needs_file : 1;	/* sqe->fd names a file (IOSQE_FIXED_FILE allowed) */
	unsigned pollin : 1;		/* on a pollable file, wait for POLLIN */
	unsigned pollout : 1;		/* ... or POLLOUT, instead of a worker */
	/* it waits for the events its SQE names, on any file (POLL_ADD) */
	unsigned poll_events : 1;
	/* its issue is a send or receive call on req->fd: -ENOTSOCK elsewhere */
	unsigned sock_call : 1;
	unsigned iopoll : 1;		/* allowed on IORING_SETUP_IOPOLL rings */
	unsigned buffer_select : 1;	/* takes IOSQE_BUFFER_SELECT */
	unsigned ioprio : 1;		/* takes sqe->ioprio */
	unsigned nofail_res : 1;	/* an error result does not break a link */
	unsigned eagain_res : 1;	/* -EAGAIN is its answer, not "would block" */
	unsigned prep_inits : 1;	/* prep writes all its opdata: no zeroing */
	/*
	 * on a page-cache file its blocking is bounded (no readiness): a
	 * thread that waits for it may run it in io-wq's place
	 */
	unsigned bounded : 1;
	/* io-wq serialises it per inode on a regular file (the kernel's name) */
	unsigned hash_reg_file : 1;
	unsigned spread : 1;		/* issue=spread may hand it to the helper */
	/* a read a submit's plug may batch (batch.c): anything else flushes it */
	unsigned read_batch : 1;
	/*
	 * issue=spread looks at no request after it in a batch: it sees
	 * the requests before it (a cancel), or may change the registered
	 * file table that later requests take their files from
	 */
	unsigned spread_barrier : 1;
	/* a timer (TIMEOUT, LINK_TIMEOUT): its CQE is posted by the ring's task */
	unsigned timer : 1;
	unsigned cq_timeout : 1;	/* counted in cq_timeouts when posted */
	/* prep refuses every SQE: the feature behind it is absent here */
	unsigned prep_fails : 1;
};

/* the paths a path opcode's SQE names (fs.h ar_fs_getnames copies them) */
enum ar_op_paths {
	AR_PATHS_NONE,
	AR_PATHS_AT,		/* one: the first name, at sqe->fd */
	AR_PATHS_TWO,		/* the first at sqe->fd, the second at sqe->len */
	AR_PATHS_LINK,		/* the second name (the link made), at sqe->fd */
};

struct ar_cold_def {
	const char *name;
	/* release what prep allocated beyond req->alloc; may be NULL */
	void (*cleanup)(struct ar_ureq *req);
	/*
	 * Take an armed request out of the wait of its own (a futex, a
	 * child), under ctx->lock, for a cancel: as cancel.c's
	 * ar_cancel_extract_locked() answers. NULL: the core's states say.
	 */
	int (*cancel_locked)(struct ar_ureq *req);
	/* for fault injection's rules (src/fault) */
	const char *family;		/* the op= family it belongs to, or NULL */
	unsigned paths : 2;		/* enum ar_op_paths */
	unsigned closes : 1;		/* sqe->fd or file_index is the file it closes */
	unsigned fault_never : 1;	/* no rule names it: its target issues it */
	unsigned fault_not_any : 1;	/* op=any leaves it out: timeout and cancel machinery */
	unsigned fault_short : 1;	/* short= may shorten it: one buffer, length in the SQE */
};

extern const struct ar_issue_def ar_issue_defs[AR_OP_NR];
extern const struct ar_cold_def ar_cold_defs[AR_OP_NR];

/* does this engine perform opcode op? */
static inline bool ar_op_supported(unsigned op)
{
	return op < AR_OP_NR && ar_issue_defs[op].prep;
}

/*
 * The SQEs submit.c's fast paths serve without a request. A NOP with no
 * SQE flags, priority or personality, and no nop_flags but
 * INJECT_RESULT: true, with its result.
 */
static inline bool ar_nop_sqe_plain(const struct io_uring_sqe *sqe, __s32 *res)
{
	__u32 nop_flags;

	if (sqe->opcode != IORING_OP_NOP || sqe->flags || sqe->ioprio ||
	    sqe->personality)
		return false;
	nop_flags = sqe->rw_flags;
	if (nop_flags & ~1U)	/* IORING_NOP_INJECT_RESULT */
		return false;
	*res = nop_flags ? (__s32)sqe->len : 0;
	return true;
}

/*
 * sqe->buf_index read once from the application's SQE. Newer headers put
 * it in a packed union, whose member's address may not be taken: the
 * load goes through its offset instead.
 */
static inline __u16 ar_sqe_buf_index_once(const struct io_uring_sqe *sqe)
{
	return *(const volatile __u16 *)((const char *)sqe +
					 offsetof(struct io_uring_sqe, buf_index));
}

/*
 * A READ with no SQE flags, priority, RWF_* flags, personality or buffer
 * index: true, with its fd, buffer and offset. Each field is read once
 * from the application's SQE, which it may be rewriting.
 */
static inline bool ar_read_sqe_plain(const struct io_uring_sqe *sqe, int *fd,
				     struct iovec *iov, __s64 *off)
{
	if (IO_URING_READ_ONCE(sqe->opcode) != IORING_OP_READ ||
	    IO_URING_READ_ONCE(sqe->flags) || IO_URING_READ_ONCE(sqe->ioprio) ||
	    IO_URING_READ_ONCE(sqe->rw_flags) ||
	    ar_sqe_buf_index_once(sqe) ||
	    IO_URING_READ_ONCE(sqe->personality))
		return false;
	*off = (__s64)IO_URING_READ_ONCE(sqe->off);
	iov->iov_len = IO_URING_READ_ONCE(sqe->len);
	iov->iov_base = (void *)(unsigned long)IO_URING_READ_ONCE(sqe->addr);
	*fd = IO_URING_READ_ONCE(sqe->fd);
	return true;
}

#endif
