/* SPDX-License-Identifier: MIT */
/*
 * kbuf.h - provided buffers (kbuf.c, the kernel's kbuf.c): buffer groups
 * per ring, filled by PROVIDE_BUFFERS (a list, "legacy") or registered as
 * a buffer ring (IORING_REGISTER_PBUF_RING) whose entries and tail live
 * in the application's memory. A group is one or the other.
 *
 * How an opcode with IOSQE_BUFFER_SELECT uses them, as the kernel's
 * io_buffer_select / io_put_kbuf / io_kbuf_recycle:
 *
 *   issue:   ar_buffer_select() picks the group's next buffer (a list's
 *            head, or the ring's entry at head & mask) and the request
 *            holds it (req->kbuf); -ENOBUFS when the group is empty or
 *            does not exist. A request that already holds one (kept
 *            across a retry) gets the same buffer again;
 *            req->kbuf.empty says it took the group's last buffer (the
 *            kernel's REQ_F_BL_EMPTY, for multishot receives).
 *   retry:   the request waits for readiness or goes to a worker:
 *            ar_kbuf_recycle() gives a ring buffer back (the ring's head
 *            moves back), unless the kernel would have consumed it
 *            already: one selected in a worker (the kernel's
 *            IO_URING_F_UNLOCKED) or for a file that cannot be polled is
 *            kept for the retry, as one the request has partly filled. A
 *            list buffer stays with the request, as on 6.18 (measured).
 *   result:  ar_put_kbuf() consumes it and answers the CQE flags,
 *            IORING_CQE_F_BUFFER | bid << IORING_CQE_BUFFER_SHIFT. An
 *            error result gives back a ring buffer the kernel had not
 *            consumed yet (no flags then), as its io_read() recycles on
 *            error. Multishot requests call it once per CQE they post
 *            (ar_req_post_more()), each CQE consuming one buffer.
 *            ar_put_kbuf_req() does the same for the request's final CQE:
 *            ar_req_complete() adds the flags (ar_kbuf_complete_cflags()),
 *            and puts a buffer still held then (a backend that completed
 *            the request later, a cancel).
 *   partial: an incremental ring's buffer (IOU_PBUF_RING_INC) is consumed
 *            by the bytes the result used: the rest stays at the head,
 *            its address and length moved on in the application's ring,
 *            and the CQE adds IORING_CQE_F_BUF_MORE. One consumed at
 *            selection (io-wq, a file that cannot be polled) is consumed
 *            by the length asked, there and then.
 *
 * Locking: the groups are under ctx->kbuf_lock, a spinlock held only for
 * list and index updates (no system call, no allocation inside: memory
 * for list entries is allocated before it is taken). Unlike the kernel,
 * whose uring_lock serialises a selection with its commit, requests here
 * are issued by several threads at once, so a ring selection moves the
 * head at once (the buffer is the request's), and giving it back moves
 * the head back only if no other selection came in between (the buffer
 * is kept otherwise, as a committed one).
 */
#ifndef ANYRING_USER_KBUF_H
#define ANYRING_USER_KBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>
#include "user/types.h"

/* req->kbuf.state */
enum {
	AR_KBUF_NONE = 0,	/* holds no buffer */
	AR_KBUF_LEGACY,		/* a PROVIDE_BUFFERS buffer, off its list */
	AR_KBUF_RING,		/* a buffer ring's entry */
	AR_KBUF_PUT,		/* consumed: kbuf.cflags go with its CQE */
};

/* the IORING_OP_PROVIDE_BUFFERS and IORING_OP_REMOVE_BUFFERS opcodes */
int ar_provide_buffers_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_remove_buffers_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_manage_buffers_issue(struct ar_ureq *req, unsigned issue_flags);

/* io_uring_register(): PBUF_RING, UNREGISTER_PBUF_RING, PBUF_STATUS */
int ar_kbuf_register_ring(struct ar_uctx *ctx, const void *arg);
int ar_kbuf_unregister_ring(struct ar_uctx *ctx, const void *arg);
void *ar_kbuf_mmap_ring(struct ar_uctx *ctx, unsigned bgid, size_t *len);
int ar_kbuf_ring_status(struct ar_uctx *ctx, void *arg);

/*
 * Select a buffer of group bgid for req: 0 with *addr and *len set (*len
 * in: the length asked, 0 for the whole buffer; out: at most the
 * buffer's), or -ENOBUFS. A buffer the request still holds is returned
 * again. issue_flags: the issue's (AR_ISSUE_WORKER consumes a ring
 * buffer at once). A buffer whose address is NULL is selected (the
 * request holds it, and puts it with its error) yet answers -ENOBUFS, as
 * the kernel's callers take a NULL address for "no buffer".
 */
int ar_buffer_select(struct ar_ureq *req, unsigned bgid, void **addr,
		     size_t *len, unsigned issue_flags);

/*
 * Bundles (IORING_RECVSEND_BUNDLE): several buffers of a group at once,
 * as the kernel's io_ring_buffers_peek(). From a ring: from its head, as
 * many as max_len needs (at most AR_PEEK_MAX_IMPORT; all nr_iovs when
 * max_len is 0), a buffer longer than what is still wanted ending the
 * mapping unless it is the first (partial_map), or cut to it on an
 * incremental ring. From a list: one buffer, at most max_len.
 */
#define AR_PEEK_MAX_IMPORT	256	/* the kernel's PEEK_MAX_IMPORT */

struct ar_kbuf_peek {
	struct iovec *iovs;	/* room for AR_PEEK_MAX_IMPORT */
	unsigned nr_iovs;	/* how many may be mapped unless grown (1 at first) */
	bool expand;		/* KBUF_MODE_EXPAND: more may be mapped when max_len says */
	size_t max_len;		/* 0: as many as nr_iovs */
	size_t out_len;		/* out: the bytes mapped */
	bool partial_map;	/* out: one was longer than wanted */
	bool grew;		/* out: more were mapped than nr_iovs */
};

/*
 * Map buffers of group bgid into arg->iovs: their count, -ENOENT (no
 * such group) or -ENOBUFS. commit: consumed now, as a send's
 * io_buffers_select() (an incremental ring's by the bytes mapped);
 * otherwise the result consumes what it used, ar_put_kbufs(), as a
 * receive's io_buffers_peek(). The request holds them as one selection:
 * ar_kbuf_recycle() gives them all back.
 */
int ar_buffers_select(struct ar_ureq *req, unsigned bgid,
		      struct ar_kbuf_peek *arg, bool commit);

/*
 * The CQE flags for a bundle's result: len bytes in the first nbufs of
 * the buffers it holds (io_put_kbufs(), io_bundle_nbufs()); the ones it
 * did not use go back to the ring.
 */
unsigned ar_put_kbufs(struct ar_ureq *req, int len, unsigned nbufs);

/* a bundle's iovec array: from the ring's cache, or allocated (NULL: none) */
struct iovec *ar_kbuf_vec_get(struct ar_uctx *ctx);
void ar_kbuf_vec_put(struct ar_uctx *ctx, struct iovec *vec);

/*
 * The issue flags a multishot request selects with: io-wq never issues
 * one (io_wq_submit_work() arms its poll instead), so a worker's try
 * selects as the kernel's later issues from task work do, committing by
 * the result, not at selection (an incremental ring's buffer would be
 * used up by a try that found nothing to read).
 */
static inline unsigned ar_kbuf_mshot_flags(unsigned issue_flags)
{
	return issue_flags & ~AR_ISSUE_WORKER;
}

/*
 * The request will be retried (readiness, a worker): give its buffer
 * back unless it is consumed already (see above). force: give it back
 * whatever, as if it had never been selected (a failure the kernel finds
 * before it selects, such as a bad fd).
 */
void ar_kbuf_recycle(struct ar_ureq *req, bool force);

/*
 * Consume the request's buffer with result res; the CQE flags for it
 * (0 when it holds none, or gave a ring buffer back on an error).
 */
unsigned ar_put_kbuf(struct ar_ureq *req, int res);

/* the same, the flags kept for the request's final CQE (ar_req_complete) */
void ar_put_kbuf_req(struct ar_ureq *req, int res);

/* ring exit: every group and list entry is freed */
void ar_kbuf_free(struct ar_uctx *ctx);

/* does the request hold a buffer (selected, not yet put)? */
static inline bool ar_kbuf_selected(const struct ar_ureq *req)
{
	return req->kbuf.state == AR_KBUF_LEGACY ||
	       req->kbuf.state == AR_KBUF_RING;
}

/* ar_req_complete(): the flags a request's final CQE carries */
static inline unsigned ar_kbuf_complete_cflags(struct ar_ureq *req, int res)
{
	unsigned cflags;

	if (__builtin_expect(req->kbuf.state == AR_KBUF_NONE, 1))
		return 0;
	if (req->kbuf.state != AR_KBUF_PUT)
		return ar_put_kbuf(req, res);
	cflags = req->kbuf.cflags;
	req->kbuf.state = AR_KBUF_NONE;
	return cflags;
}

#endif
