/* SPDX-License-Identifier: MIT */
/*
 * submit.c - the submission side: consuming the SQ, turning SQEs into
 * requests (the kernel's io_init_req checks, in its order), assembling
 * links, IO_DRAIN deferral, and issue: a non-blocking attempt in the
 * submitting thread, then a worker (io-wq) or a readiness poll.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <string.h>
#include <poll.h>
#include <sys/uio.h>
#include "lib/sysraw.h"
#include "user/fork.h"
#include "user/fault.h"
#include "lib/uaccess.h"
#include "user/types.h"
#include "user/opdef.h"
#include "user/lock.h"
#include "user/ctx.h"
#include "user/req.h"
#include "user/submit.h"
#include "user/cred.h"
#include "user/drain.h"
#include "user/complete.h"
#include "user/tw.h"
#include "user/spread.h"
#include "user/iowq.h"
#include "user/svc.h"
#include "user/poll.h"
#include "user/timeout.h"
#include "user/rsrc.h"
#include "user/register.h"
#include "user/backend.h"
#include "user/query.h"

#define AR_SQE_COMMON_FLAGS (IOSQE_FIXED_FILE | IOSQE_IO_LINK |		\
			     IOSQE_IO_HARDLINK | IOSQE_ASYNC)
#define AR_SQE_VALID_FLAGS (AR_SQE_COMMON_FLAGS | IOSQE_IO_DRAIN |	\
			    IOSQE_BUFFER_SELECT | IOSQE_CQE_SKIP_SUCCESS)

__u64 ar_user_sqe_flags(void)
{
	return AR_SQE_VALID_FLAGS;
}

struct ar_submit_link {
	struct ar_ureq *head, *last;
};

/* a request the submit loop hands on: issued once the SQ lock is dropped */
#define AR_FAST_BATCH	64

/* what every submit initialises first, the fast NOPs' arrays last */
struct ar_submit_state {
	struct ar_submit_link link;
	struct ar_ureq *ready_head, *ready_tail;
	struct ar_ureq *if_head, *if_tail;	/* to add to ctx->inflight */
	unsigned nr_if;
	/*
	 * plain NOPs and whole inline reads, completed at once and posted
	 * together (ar_submit_fast_nop(), ar_submit_fast_read())
	 */
	unsigned nr_fast;
	struct ar_comp_batch fast_b;
	__u64 fast_ud[AR_FAST_BATCH];
	__s32 fast_res[AR_FAST_BATCH];
};

static void ar_ready_add(struct ar_submit_state *st, struct ar_ureq *req)
{
	ar_req_list_add(&st->ready_head, &st->ready_tail, req);
}

static void ar_fail_link_node(struct ar_ureq *req, int res)
{
	ar_req_set_fail(req);
	req->res = res;
}

static bool ar_restricted(struct ar_uctx *ctx, struct ar_ureq *req)
{
	struct ar_restrictions *r = ctx->restrictions;

	if (!r || !r->enabled)
		return false;
	if (!(r->sqe_op[req->opcode / 8] & (1U << (req->opcode % 8))))
		return true;
	if ((req->sqe_flags & r->sqe_flags_required) != r->sqe_flags_required)
		return true;
	return (req->sqe_flags & ~(r->sqe_flags_allowed | r->sqe_flags_required)) != 0;
}

/* io_init_req: the checks every SQE passes before its opcode's prep */
static int ar_req_init(struct ar_uctx *ctx, struct ar_ureq *req,
		       const struct io_uring_sqe *sqe)
{
	const struct ar_issue_def *def;
	struct io_uring_sqe stable;
	__u8 flags;

	/*
	 * The application may rewrite the SQE while we read it: prep reads
	 * a copy that cannot change (where the kernel reads each field
	 * once), and keeps in the request what issue needs, not the SQE.
	 */
	memcpy(&stable, sqe, sizeof(stable));
	sqe = &stable;
	if (ar_unlikely(req->fault_sqe))
		*req->fault_sqe = stable;
	req->opcode = sqe->opcode;
	req->sqe_flags = flags = sqe->flags;
	req->user_data = sqe->user_data;
	/* the flags first: an SQE failing below still links */
	if (flags & IOSQE_IO_LINK)
		req->flags |= AR_REQ_F_LINK;
	if (flags & IOSQE_IO_HARDLINK)
		req->flags |= AR_REQ_F_LINK | AR_REQ_F_HARDLINK;
	if (flags & IOSQE_ASYNC)
		req->flags |= AR_REQ_F_FORCE_ASYNC;
	if (flags & IOSQE_FIXED_FILE)
		req->flags |= AR_REQ_F_FIXED_FILE;
	if (flags & IOSQE_CQE_SKIP_SUCCESS)
		req->flags |= AR_REQ_F_SKIP_CQE;
	if (!ar_op_supported(sqe->opcode)) {
		req->opcode = IORING_OP_NOP;
		return -EINVAL;
	}
	def = &ar_issue_defs[req->opcode];
	/* zeroed opdata for prep (and cleanup, should a check below fail) */
	if (!def->prep_inits)
		memset(req->opdata, 0, sizeof(req->opdata));
	if (flags & ~AR_SQE_COMMON_FLAGS) {
		if (flags & ~AR_SQE_VALID_FLAGS)
			return -EINVAL;
		if ((flags & IOSQE_BUFFER_SELECT) && !def->buffer_select)
			return -EOPNOTSUPP;
		if (flags & IOSQE_CQE_SKIP_SUCCESS)
			ctx->drain_disabled = true;
		if (flags & IOSQE_IO_DRAIN) {
			if (ctx->drain_disabled)
				return -EOPNOTSUPP;
			ar_drain_init(ctx, req);
		}
	}
	if (ctx->restrictions && ar_restricted(ctx, req))
		return -EACCES;
	/* as the kernel: once a drain was seen, later requests take the slow path */
	if (ar_drain_active(ctx))
		req->flags |= AR_REQ_F_FORCE_ASYNC | AR_REQ_F_DRAIN_PATH;
	if (!def->ioprio && sqe->ioprio)
		return -EINVAL;
	if ((ctx->flags & IORING_SETUP_IOPOLL) && !def->iopoll)
		return -EINVAL;
	if (def->needs_file)
		req->fd = sqe->fd;
	req->personality = sqe->personality;
	if (req->personality) {
		req->cred = ar_personality_get(ctx, req->personality);
		if (!req->cred)
			return -EINVAL;
	}
	return def->prep(req, sqe);
}

/* io_submit_fail_init: fail this SQE; inside a link, fail the whole chain */
static int ar_submit_fail_init(struct ar_submit_state *st,
			       struct ar_ureq *req, int ret)
{
	struct ar_submit_link *link = &st->link;
	struct ar_ureq *head = link->head;

	ar_fail_link_node(req, ret);
	if (head && !(head->flags & AR_REQ_F_FAIL))
		ar_fail_link_node(head, -ECANCELED);
	if (!(req->flags & AR_REQ_F_LINK)) {
		if (head) {
			link->last->link = req;
			link->head = NULL;
			req = head;
		}
		ar_ready_add(st, req);
		return ret;
	}
	if (head)
		link->last->link = req;
	else
		link->head = req;
	link->last = req;
	return 0;
}

/* io_submit_sqe: init, then link assembly; 0, or the error that stops the submit */
static int ar_submit_sqe(struct ar_uctx *ctx, struct ar_submit_state *st,
			 struct ar_ureq *req, const struct io_uring_sqe *sqe)
{
	struct ar_submit_link *link = &st->link;
	int ret;

	/* in flight from here: added to ctx->inflight with the submit's others */
	req->if_next = NULL;
	if (st->if_tail)
		st->if_tail->if_next = req;
	else
		st->if_head = req;
	st->if_tail = req;
	st->nr_if++;
	ctx->submit_link_head = link->head;
	ctx->submit_link_last = link->last;
	ret = ar_req_init(ctx, req, sqe);
	if (ret)
		return ar_submit_fail_init(st, req, ret);

	if (link->head) {
		link->last->link = req;
		link->last = req;
		if (req->flags & AR_REQ_F_LINK)
			return 0;
		/* the last of the chain: hand the head on */
		req = link->head;
		link->head = NULL;
	} else if (req->flags & AR_REQ_F_LINK) {
		link->head = link->last = req;
		return 0;
	}
	ar_ready_add(st, req);
	return 0;
}

/*
 * Post the plain NOPs gathered so far under one ctx->lock. The wakeups
 * (system calls) and what completed timeouts release wait in st->fast_b
 * until uring_lock is dropped.
 */
static inline __attribute__((always_inline)) void
ar_submit_post_fast(struct ar_uctx *ctx, struct ar_submit_state *st)
{
	unsigned i;

	st->fast_b.posted = true;
	ar_ctx_lock(ctx);
	for (i = 0; i < st->nr_fast; i++)
		ar_cq_post_locked(ctx, st->fast_ud[i], st->fast_res[i], 0);
	ar_complete_timeouts_locked(ctx, &st->fast_b);
	ar_ctx_unlock(ctx);
	st->nr_fast = 0;
}

/* the fast path's batch is full: rare, and out of the NOP's way */
static __attribute__((noinline, cold)) void
ar_submit_post_fast_full(struct ar_uctx *ctx, struct ar_submit_state *st)
{
	ar_submit_post_fast(ctx, st);
}

/* one more CQE of the fast path, posted with the submit's others */
static inline void ar_submit_fast_add(struct ar_uctx *ctx,
				      struct ar_submit_state *st,
				      __u64 user_data, __s32 res)
{
	st->fast_ud[st->nr_fast] = user_data;
	st->fast_res[st->nr_fast] = res;
	if (++st->nr_fast == AR_FAST_BATCH)
		ar_submit_post_fast_full(ctx, st);
}

/*
 * May this submit's SQEs take the NOP fast path (below)? Not while a
 * drain, restrictions or fault injection could apply. Asked once per
 * submit: restrictions change only by register and a drain starts only
 * by a submit, both the submitter's (under uring_lock, or the single
 * issuer's); a drain that ends meanwhile only keeps the slow path; and
 * the fault switch is a hint read relaxed either way.
 */
static bool ar_submit_fast_ok(struct ar_uctx *ctx)
{
	return !ctx->restrictions && !ar_drain_active(ctx) &&
	       !ar_faults_active();
}

/*
 * A NOP with no flags (or only INJECT_RESULT) needs no request: its CQE
 * is all there is to it. Taken only while every earlier SQE of this
 * submit was one too (no request waits to be issued, no chain is open:
 * the caller stops asking at the first SQE that is not), so CQEs keep
 * submission order. Under uring_lock.
 */
static bool ar_submit_fast_nop(struct ar_uctx *ctx, struct ar_submit_state *st,
			       const struct io_uring_sqe *sqe)
{
	__s32 res;

	if (!ar_nop_sqe_plain(sqe, &res))
		return false;
	ar_submit_fast_add(ctx, st, sqe->user_data, res);
	return true;
}

/*
 * A submit of one plain READ (ar_read_sqe_plain(): an offset, not the
 * file position) of a buffered regular file needs no request when the
 * page cache holds all of it: the inline attempt, preadv2 with
 * RWF_NOWAIT, is made here, and a read of every byte is the CQE.
 * Anything else (would block, short, an error, a buffer beyond user
 * space) is left to the request path, which makes the attempt again: a
 * read of a regular file at an offset can be repeated. Only a submit's
 * sole SQE: spread.c may share a batch's reads with a helper. Under
 * uring_lock, as the kernel's inline issue.
 */
static bool ar_submit_fast_read(struct ar_uctx *ctx,
				struct ar_submit_state *st,
				const struct io_uring_sqe *sqe)
{
	struct iovec iov;
	__s64 off;
	long ret;
	int fd, e;

	if (!ar_read_sqe_plain(sqe, &fd, &iov, &off))
		return false;
	if (off < 0 || !iov.iov_len || iov.iov_len > AR_MAX_RW_COUNT ||
	    !ar_access_ok(iov.iov_base, iov.iov_len) ||
	    !ar_file_plain_regular(fd))
		return false;
	e = errno;
	ret = ar_raw_rw(false, fd, &iov, 1, (long)off, RWF_NOWAIT);
	errno = e;
	if (ret != (long)iov.iov_len)
		return false;
	ar_submit_fast_add(ctx, st, IO_URING_READ_ONCE(sqe->user_data),
			   (__s32)ret);
	return true;
}

/*
 * Every submitted request is tracked until it completes (cancel, drain,
 * exit): a submit's requests, linked by if_next, appended in one go, so
 * walks go in submission order.
 */
static void ar_inflight_add_list(struct ar_uctx *ctx, struct ar_ureq *head,
				 struct ar_ureq *tail, unsigned nr)
{
	struct ar_ureq *req, *prev;

	ar_ctx_lock(ctx);
	prev = ctx->inflight_tail;
	for (req = head; req; req = req->if_next) {
		req->if_prev = prev;
		req->flags |= AR_REQ_F_INFLIGHT;
		prev = req;
		if (__builtin_expect(ar_ring_forked(ctx), 0))
			ar_xslot_take_locked(ctx, req);
	}
	if (ctx->inflight_tail)
		ctx->inflight_tail->if_next = head;
	else
		ctx->inflight = head;
	ctx->inflight_tail = tail;
	/* read without the lock by waiters (a hint): relaxed atomics */
	__atomic_store_n(&ctx->nr_inflight, ctx->nr_inflight + nr, __ATOMIC_RELAXED);
	ar_ctx_unlock(ctx);
	if (__builtin_expect(ar_ring_forked(ctx), 0))
		ar_xslot_submitted(ctx);
}

/*
 * The state of the requests a submit makes: set up at its first SQE that
 * is not a fast NOP (a submit of fast NOPs only never needs it).
 */
static void ar_submit_slow_init(struct ar_submit_state *st)
{
	st->link.head = st->link.last = NULL;
	st->ready_head = st->ready_tail = st->if_head = st->if_tail = NULL;
	st->nr_if = 0;
}

/* the end of a submit that made requests, under uring_lock */
static void ar_submit_slow_end(struct ar_uctx *ctx, struct ar_submit_state *st)
{
	/* a chain still open at the end of a submit is flushed as it is */
	if (st->link.head) {
		ar_ready_add(st, st->link.head);
		st->link.head = NULL;
	}
	ctx->submit_link_head = ctx->submit_link_last = NULL;
	/* one ctx->lock for the whole submit, before any of it is issued */
	if (st->if_head)
		ar_inflight_add_list(ctx, st->if_head, st->if_tail, st->nr_if);
}

/* the SQE at the consumer's position, or NULL for a bad SQ array index */
static const struct io_uring_sqe *ar_get_sqe(struct ar_uctx *ctx)
{
	unsigned head = ar_sh(ctx)->cached_sq_head++ & (ctx->sq_entries - 1);

	if (ctx->sq_array) {
		head = IO_URING_READ_ONCE(ctx->sq_array[head]);
		if (head >= ctx->sq_entries) {
			IO_URING_WRITE_ONCE(ctx->rings->sq_dropped,
					    ctx->rings->sq_dropped + 1);
			return NULL;
		}
	}
	return &ctx->sqes[head << !!(ctx->flags & IORING_SETUP_SQE128)];
}

unsigned ar_sq_entries_ready(struct ar_uctx *ctx)
{
	/* acquire pairs with the application's release of the SQ tail: SQEs are written */
	unsigned tail = io_uring_smp_load_acquire(&ctx->rings->sq.tail);

	return tail - ar_sh(ctx)->cached_sq_head;
}

/*
 * io_submit_sqes: consume up to nr SQEs. Returns how many were consumed
 * (a failed SQE counts and ends the batch, unless SUBMIT_ALL), or -EAGAIN
 * when nothing could be allocated.
 */
static bool ar_submit_claim(struct ar_uctx *ctx);
static void ar_submit_issue(struct ar_uctx *ctx, struct ar_ureq *ready,
			    unsigned wait_nr, bool owned);

/* wait_nr: what the enter waits for afterwards (ar_submit_sqes_enter()) */
static inline __attribute__((always_inline))
int ar_submit_sqes_wait(struct ar_uctx *ctx, unsigned nr, unsigned wait_nr)
{
	struct ar_submit_state st;
	const struct io_uring_sqe *sqe;
	struct ar_ureq *req;
	unsigned entries, left;
	bool nomem = false, fast, fast_read, owned;
	/* a SINGLE_ISSUER ring's submit is its submitter's alone (ctx.h) */
	bool locked = !ar_issuer_lockless(ctx);
	int ret;

	st.nr_fast = 0;
	ar_batch_init(&st.fast_b);
	if (locked)
		ar_uring_lock(ctx);
	entries = ar_sq_entries_ready(ctx);
	if (entries > ctx->sq_entries)
		entries = ctx->sq_entries;
	if (!entries) {
		if (locked)
			pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);
		return 0;
	}
	ret = (int)(left = nr < entries ? nr : entries);
	fast = ar_submit_fast_ok(ctx);
	fast_read = fast && ret == 1 && !(ctx->flags & IORING_SETUP_IOPOLL);
	if (!fast)
		ar_submit_slow_init(&st);
	do {
		sqe = ar_get_sqe(ctx);
		if (!sqe)
			break;
		if (fast) {
			if (ar_submit_fast_nop(ctx, &st, sqe) ||
			    (fast_read && ar_submit_fast_read(ctx, &st, sqe)))
				continue;
			/* from here a request is ready or a chain open: no fast path */
			fast = false;
			ar_submit_slow_init(&st);
		}
		req = ar_req_alloc(ctx);
		if (!req) {
			ar_sh(ctx)->cached_sq_head--;	/* not consumed */
			nomem = true;
			break;
		}
		if (ar_submit_sqe(ctx, &st, req, sqe) &&
		    !(ctx->flags & IORING_SETUP_SUBMIT_ALL)) {
			left--;
			break;
		}
	} while (--left);
	if (left) {
		ret -= (int)left;
		if (!ret && nomem)
			ret = -EAGAIN;
	}
	if (st.nr_fast)
		ar_submit_post_fast(ctx, &st);
	if (!fast)
		ar_submit_slow_end(ctx, &st);
	if (ret > 0)	/* under uring_lock: one writer; read relaxed */
		__atomic_store_n(&ctx->stats.submissions,
				 __atomic_load_n(&ctx->stats.submissions,
						 __ATOMIC_RELAXED) + (unsigned)ret,
				 __ATOMIC_RELAXED);
	/* release pairs with the application's acquire of the SQ head: entries are free */
	io_uring_smp_store_release(&ctx->rings->sq.head, ar_sh(ctx)->cached_sq_head);
	owned = !fast && st.ready_head && ar_submit_claim(ctx);
	if (locked)
		pthread_mutex_unlock(&ar_sh(ctx)->uring_lock);

	if (st.fast_b.posted)
		ar_batch_finish(ctx, &st.fast_b, false);
	if (!fast && st.ready_head)
		ar_submit_issue(ctx, st.ready_head, wait_nr, owned);
	return ret;
}

int ar_submit_sqes(struct ar_uctx *ctx, unsigned nr)
{
	return ar_submit_sqes_wait(ctx, nr, 0);
}

/*
 * The submitting thread's completions are batched, as the kernel's
 * submit_state.compl_reqs: requests that complete while this thread
 * issues a submit's SQEs post their CQEs together, in completion order,
 * under one ctx->lock, when the submit's SQEs are issued. The next links
 * of completed requests (task work in the kernel) are issued after that,
 * and their own completions batch the same way. The state is the ring's
 * (ctx->submit_state), owned by the thread issuing (types.h).
 */
/*
 * Under uring_lock (or by the single issuer, the ring's only submitter):
 * own the submit state if no other thread does. Acquire pairs with the
 * release that ended the last owner's use of the lists.
 */
static bool ar_submit_claim(struct ar_uctx *ctx)
{
	struct ar_submit_issue *ss = &ctx->submit_state;

	/* the lists are empty: as made at setup, and as each owner leaves them */
	if (atomic_load_explicit(&ss->owner, memory_order_acquire))
		return false;
	atomic_store_explicit(&ss->owner, ar_self_tid(), memory_order_relaxed);
	return true;
}

/* at ring setup: no owner, empty lists */
void ar_submit_state_init(struct ar_uctx *ctx)
{
	struct ar_submit_issue *ss = &ctx->submit_state;

	atomic_init(&ss->owner, 0);
	ss->waiter_nr = 0;
	ss->compl_head = ss->links_head = NULL;
	ss->compl_tail = &ss->compl_head;
	ss->links_tail = &ss->links_head;
}

/*
 * Must completions from other threads wait for this submit's end (tw.c)?
 * Not when they wait for the ring's task anyway (complete=deferred or
 * single, no punt thread) and only this thread can switch the policy (the issuer of
 * a SINGLE_ISSUER ring): then in_submit has no reader, and its two
 * bus-locked updates are saved.
 */
static bool ar_submit_counts(struct ar_uctx *ctx)
{
	return !ar_issuer_lockless(ctx) || ctx->punt || !ar_tw_by_task(ctx);
}

/* the batch and the deferred links, until both are empty (the owner's) */
static void ar_submit_issue_flush(struct ar_uctx *ctx)
{
	struct ar_submit_issue *ss = &ctx->submit_state;
	struct ar_ureq *req, *next;

	for (;;) {
		if (ss->compl_head) {
			req = ss->compl_head;
			ss->compl_head = NULL;
			ss->compl_tail = &ss->compl_head;
			ar_submit_flush(ctx, req);
			continue;
		}
		if (!ss->links_head)
			break;
		req = ss->links_head;
		ss->links_head = NULL;
		ss->links_tail = &ss->links_head;
		for (; req; req = next) {
			next = req->next;
			if (ctx->exiting)
				ar_req_complete(req, -ECANCELED, 0);
			else
				ar_req_queue_nodrain(req, 0);
		}
	}
}

static inline void ar_submit_queue_list(struct ar_ureq *ready)
{
	struct ar_ureq *req, *next;

	for (req = ready; req; req = next) {
		next = req->next;
		ar_req_queue(req);
	}
}

void ar_req_queue_plugged(struct ar_direct_plug *p, struct ar_ureq *req)
{
	if (__atomic_load_n(&p->rd_nr, __ATOMIC_RELAXED) &&
	    (!ar_issue_defs[req->opcode].read_batch ||
	     (req->flags & (AR_REQ_F_FAIL | AR_REQ_F_LINK | AR_REQ_F_ARM_LT))))
		ar_batch_flush(p);
	ar_req_queue(req);
}

/*
 * A batch's requests, its O_DIRECT I/O and its page-cache reads held in
 * the plug until the end, and a look at an fd taken once for all of them
 * (file.c). The reads go before any other request: a write or a CLOSE
 * must not come first.
 */
static void ar_submit_queue_plugged(struct ar_uctx *ctx, struct ar_ureq *ready)
{
	struct ar_direct_plug plug;
	bool was = ar_file_batch_begin();
	struct ar_ureq *req, *next;

	ar_direct_plug_begin(ctx, &plug);
	for (req = ready; req; req = next) {
		next = req->next;
		ar_req_queue_plugged(&plug, req);
	}
	ar_direct_plug_end(&plug);
	ar_file_batch_end(was);
}

/*
 * A request alone, issued while this thread holds the plug of another
 * submit: one in a signal handler that interrupted a submit. No plug
 * may hold it: its read would wait in a plug that cannot be flushed
 * before the handler returns.
 */
static __attribute__((noinline)) void
ar_submit_queue_unplugged(struct ar_ureq *ready)
{
	struct ar_direct_plug *outer = ar_direct_cur_plug;

	ar_direct_cur_plug = NULL;
	/* signal fences: a handler on this thread sees the plug as set */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ar_submit_queue_list(ready);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ar_direct_cur_plug = outer;
}

/* the requests of a submit this thread issues: plugged (a batch), or one alone */
static inline __attribute__((always_inline)) void
ar_submit_queue_ready(struct ar_uctx *ctx, struct ar_ureq *ready, bool plugged)
{
	struct ar_poll_batch requeued;

	ar_poll_batch_begin(ctx, &requeued);
	if (plugged)
		ar_submit_queue_plugged(ctx, ready);
	else if (__builtin_expect(ar_direct_cur_plug != NULL, 0))
		ar_submit_queue_unplugged(ready);
	else
		ar_submit_queue_list(ready);
	ar_poll_batch_end(&requeued);
}

/*
 * Issue a submit's requests. owned: this thread claimed ctx->submit_state
 * (wait_nr, block=waiter's look, goes there); else its completions go
 * the way other threads' do.
 */
static void ar_submit_issue(struct ar_uctx *ctx, struct ar_ureq *ready,
			    unsigned wait_nr, bool owned)
{
	bool counted = ar_submit_counts(ctx);
	bool spread, plugged;

	/* completions from other threads meanwhile wait for the end (tw.c) */
	if (counted)
		atomic_fetch_add_explicit(&ctx->in_submit, 1, memory_order_seq_cst);
	if (owned)
		ctx->submit_state.waiter_nr = wait_nr;
	/*
	 * A batch: issue=spread's helper may take part of it (spread.c),
	 * and its O_DIRECT I/O goes to AIO in one call (backend.h).
	 */
	spread = false;
	plugged = ready->next != NULL;
	if (plugged)
		ready = ar_spread_offer(ctx, ready, &spread);
	if (!spread)
		ar_submit_queue_ready(ctx, ready, plugged);
	else if (!ready)
		ar_spread_help(ctx);
	else {
		/* what follows the shared requests comes after them, in order */
		ar_spread_sync(ctx);
		ar_submit_queue_ready(ctx, ready, true);
	}
	if (owned) {
		ar_submit_issue_flush(ctx);
		ctx->submit_state.waiter_nr = 0;
		/* release: the lists' last use comes before the next owner's claim */
		atomic_store_explicit(&ctx->submit_state.owner, 0,
				      memory_order_release);
	}
	if (counted)
		ar_tw_submit_end(ctx);
}

/*
 * The file a request works on, and its backend, resolved once: a
 * registered file holds a reference until done and brings the backend
 * found at registration; a plain fd's comes from the fd cache.
 */
int ar_req_assign_file(struct ar_ureq *req)
{
	struct ar_rsrc_node *node;

	if (!ar_issue_defs[req->opcode].needs_file || req->file.be)
		return 0;
	if (req->flags & AR_REQ_F_FIXED_FILE) {
		node = ar_rsrc_get_file(req->ctx, (unsigned)req->fd);
		if (!node)
			return -EBADF;
		req->file_node = node;
		req->fd = node->fd;
		req->file = node->file;
		req->file.dev_ref = false;	/* the node's reference covers it */
		return 0;
	}
	ar_file_resolve(&req->file, req->fd);
	return 0;
}

/*
 * Does the file wait for readiness (pipe, socket, tty)? Then poll it.
 * POLL_ADD waits for what it was asked, on any file.
 */
static __u32 ar_req_poll_events(struct ar_ureq *req)
{
	const struct ar_issue_def *def = &ar_issue_defs[req->opcode];

	if (def->poll_events)
		return ar_req_data(req, struct ar_poll_add)->events;
	if (ar_unlikely(req->flags & AR_REQ_F_POLL_ERR))
		return EPOLLERR;
	if ((!def->pollin && !def->pollout) || !req->file.be ||
	    !req->file.be->pollable)
		return 0;
	return def->pollin ? POLLIN : POLLOUT;
}

/*
 * Did the issue's "would block" come from a socket call on req->fd (a
 * send or receive, which -ENOTSOCK refuses on anything else)? Then the
 * fd names a socket now, a pollable file, and the file need not be
 * looked at again before arming. Not under POLL_FIRST before the first
 * readiness: that answer comes without a call.
 */
static bool ar_req_sock_answered(const struct ar_ureq *req)
{
	return ar_issue_defs[req->opcode].sock_call &&
	       (!(req->flags & AR_REQ_F_RS_POLL_FIRST) ||
		(req->flags & AR_REQ_F_POLLED));
}

/*
 * An inline try answered "would block": wait for readiness (poll.c).
 * True when the request is no longer this thread's: armed, or ended by
 * its link timeout or a cancel; false with *ret to go on with:
 * AR_ISSUE_AGAIN to try again now, AR_ISSUE_PUNT for a worker.
 */
static bool ar_req_arm(struct ar_ureq *req, __u32 events, int *ret)
{
	int r = events ? ar_poll_arm(req, events) : -EAGAIN;

	if (!r)
		return true;
	if (r == AR_POLL_RETRY) {
		*ret = AR_ISSUE_AGAIN;
		return false;
	}
	if (r == -ECANCELED) {
		ar_batch_order(req->ctx);
		ar_req_complete(req, -ECANCELED, 0);
		return true;
	}
	/* it was taken back off its fd (poll.c): a worker does it */
	*ret = AR_ISSUE_PUNT;
	return false;
}

/*
 * Hand a request to io-wq. One with a link timeout that fired while it
 * was being issued is cancelled instead (ar_link_timeout_park_locked());
 * otherwise it is QUEUED from here, where the timeout's cancel finds it.
 */
static void ar_req_punt(struct ar_ureq *req, unsigned issue_flags)
{
	struct ar_uctx *ctx = req->ctx;

	/* req->lt is set by this thread's ar_link_timeout_arm() and stays while ISSUING */
	if (req->lt) {
		ar_ctx_lock(ctx);
		if (ar_link_timeout_park_locked(req))
			return;
		ar_req_set_state(req, AR_REQ_QUEUED);
		ar_ctx_unlock(ctx);
	}
	ar_iowq_enqueue(ctx, req, issue_flags & AR_ISSUE_LINKED);
}

/*
 * The request goes to a device: block I/O in flight, which no cancel
 * reaches (AR_REQ_PREP, where the link timeout's cancel answers
 * -ENOENT). A link timeout that fired while it was being issued in this
 * thread completes now (ar_link_timeout_park_device_locked()), as the
 * kernel's, started once the device has the I/O, would. Returns the
 * state it had, for ar_req_device_refused().
 */
enum ar_req_state ar_req_to_device(struct ar_ureq *req)
{
	enum ar_req_state prev = ar_req_state(req);
	struct ar_uctx *ctx = req->ctx;

	/*
	 * ISSUING: this thread's own request, whose req->lt only this
	 * thread changes (ar_link_timeout_fire() only marks the link
	 * timeout expired); in a worker req->lt is read under ctx->lock.
	 */
	if (prev != AR_REQ_ISSUING || !req->lt) {
		ar_req_set_state(req, AR_REQ_PREP);
		return prev;
	}
	ar_ctx_lock(ctx);
	ar_req_set_state(req, AR_REQ_PREP);
	ar_link_timeout_park_device_locked(req);
	return prev;
}

/*
 * The device refused the request and this thread goes on with it: back
 * to the state it had. ISSUING is set under ctx->lock, so that a link
 * timeout that fired meanwhile (req->lt cleared under the lock) is seen
 * by this thread's unlocked reads of req->lt that follow.
 */
void ar_req_device_refused(struct ar_ureq *req, enum ar_req_state prev)
{
	struct ar_uctx *ctx = req->ctx;

	if (prev != AR_REQ_ISSUING) {
		ar_req_set_state(req, prev);
		return;
	}
	ar_ctx_lock(ctx);
	ar_req_set_state(req, AR_REQ_ISSUING);
	ar_ctx_unlock(ctx);
}

/*
 * io_uring_enter's submit, told what the same call waits for afterwards:
 * its min_complete when the wait has neither a timeout nor a sigmask,
 * else 0 (submit_state.waiter_nr while the submit's requests are issued). The
 * rest (the policy, the ring's flags) is looked at only where a request
 * would punt (ar_req_waiter_blocks()): plain NOPs pay nothing.
 */
int ar_submit_sqes_enter(struct ar_uctx *ctx, unsigned nr, unsigned flags,
			 unsigned min_complete, const void *arg)
{
	return ar_submit_sqes_wait(ctx, nr,
		(flags & (IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG)) ==
		IORING_ENTER_GETEVENTS && !arg ? min_complete : 0);
}

/*
 * What a waiting thread may run in io-wq's place (block=waiter: asked by
 * ar_req_waiter_blocks(), run by ar_req_issue_blocking()): a buffered
 * read, write or fsync of a regular file or block device, whose blocking
 * is bounded; never IOSQE_ASYNC, a drain, a link timeout, a selected
 * buffer or under fault injection, which keep io-wq's order and cancel
 * points.
 */
bool ar_req_waiter_may_run(const struct ar_ureq *req)
{
	/* the flags first: only a request with ARM_LT has its req->lt written */
	return !(req->flags & (AR_REQ_F_FORCE_ASYNC | AR_REQ_F_ARM_LT)) &&
	       !req->lt && !(req->sqe_flags & IOSQE_BUFFER_SELECT) &&
	       req->file.be && req->file.be->page_cache &&
	       ar_issue_defs[req->opcode].bounded && !ar_faults_active();
}

/*
 * block=waiter (docs/policies.md): would this request, about to go to a
 * worker, only keep the submitting thread waiting for it? Then that
 * thread does the blocking work itself and saves the handoff. Only when
 * the enter waits with neither timeout nor sigmask (nothing can end the
 * wait but CQEs), the CQ holds fewer CQEs than it waits for, and
 * nothing else is in flight on the ring but this request and its links
 * (so no other completion could end the wait first, and nothing of this
 * submit waits behind it), and what ar_req_waiter_may_run() allows.
 */
static bool ar_req_waiter_blocks(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;
	struct ar_rings *rings = ctx->rings;
	unsigned n = 0, ready;
	struct ar_ureq *r;

	/* the owner first: only the owner of submit_state reads its fields */
	if (!ar_submit_owner(ctx) || !ctx->submit_state.waiter_nr || ctx->exiting ||
	    (ctx->flags & (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL)) ||
	    __atomic_load_n(&ctx->pol.block, __ATOMIC_RELAXED) !=
	    ANYRING_BLOCK_WAITER || !ar_req_waiter_may_run(req))
		return false;
	for (r = req; r; r = r->link)
		n++;
	/*
	 * Relaxed: a hint, as the waiters' read of it. A request another
	 * thread submits after this look may complete while this thread
	 * blocks: the wait then ends later than it could (a timing, as
	 * any delay of the waiting thread's).
	 */
	if (__atomic_load_n(&ctx->nr_inflight, __ATOMIC_RELAXED) != n)
		return false;
	if (IO_URING_READ_ONCE(rings->sq_flags) & IORING_SQ_CQ_OVERFLOW)
		return false;
	/* acquire pairs with the posting side's release of the CQ tail */
	ready = io_uring_smp_load_acquire(&rings->cq.tail) -
		IO_URING_READ_ONCE(rings->cq.head);
	/* min_complete beyond the CQ's size: the wait takes cq_entries */
	return ready < ctx->submit_state.waiter_nr && ready < ctx->cq_entries;
}

/*
 * The opcode's issue under the request's personality, if it names one
 * (the kernel's override_creds() in io_issue_sqe()); cred.c.
 */
static __attribute__((noinline)) int ar_issue_cred(struct ar_ureq *req,
						   const struct ar_issue_def *def,
						   unsigned issue_flags)
{
	struct ar_cred *old;
	int ret = ar_cred_override(req->cred, &old);

	if (ret)
		return ret;
	ret = def->issue(req, issue_flags);
	ar_cred_revert(old);
	return ret;
}

static inline int ar_issue_call(struct ar_ureq *req,
				const struct ar_issue_def *def,
				unsigned issue_flags)
{
	if (__builtin_expect(req->cred != NULL, 0))
		return ar_issue_cred(req, def, issue_flags);
	return def->issue(req, issue_flags);
}

/*
 * The blocking issue of a worker, or of the waiting thread
 * (ar_req_waiter_blocks()): there the request looks RUNNING while it
 * blocks, so that a cancel answers -EALREADY as for work io-wq runs, and
 * completes as io-wq's work does for an IORING_REGISTER_EVENTFD_ASYNC
 * eventfd (ASYNC_DONE, read by ar_submit_flush()).
 */
static int ar_req_issue_blocking(struct ar_ureq *req, bool worker)
{
	const struct ar_issue_def *def = &ar_issue_defs[req->opcode];
	enum ar_req_state prev = ar_req_state(req);
	int ret;

	if (!worker) {
		ar_req_set_state(req, AR_REQ_RUNNING);
		req->flags |= AR_REQ_F_ASYNC_DONE;
	}
	ret = ar_issue_call(req, def, AR_ISSUE_WORKER);
	if (!worker)
		ar_req_set_state(req, prev);
	if (ret == AR_ISSUE_AGAIN || ret == AR_ISSUE_PUNT)
		ret = -EAGAIN;
	return ret;
}

/* the opcode's issue, with "would block" made explicit where it was -EAGAIN */
static inline int ar_issue_op(struct ar_ureq *req,
			      const struct ar_issue_def *def,
			      unsigned issue_flags)
{
	int ret = ar_issue_call(req, def, issue_flags);

	if (ret == -EAGAIN && (issue_flags & AR_ISSUE_NONBLOCK) &&
	    !def->pollin && !def->pollout && !def->eagain_res)
		ret = AR_ISSUE_PUNT;
	return ret;
}

/*
 * AR_ISSUE_REQUEUE (ready still, after its share): behind the rest of
 * the reaper's batch (poll.h), or, outside one, issued again at once.
 * True when it went behind the batch.
 */
static bool ar_req_requeue(struct ar_ureq *req, const struct ar_issue_def *def,
			   unsigned issue_flags, int *ret)
{
	while (*ret == AR_ISSUE_REQUEUE) {
		if (ar_poll_requeue(req))
			return true;
		*ret = ar_issue_op(req, def, issue_flags);
	}
	return false;
}

/*
 * The would-block choice, the kernel's io_queue_async(): what to do
 * with a try's answer. AR_ISSUE_AGAIN waits for readiness on the file
 * (armed, or tried again at once when readiness came meanwhile);
 * AR_ISSUE_PUNT goes to io-wq, or, under block=waiter, this thread
 * blocks in it. True when the request is no longer this thread's;
 * false with *ret, a result to complete the request with.
 */
static bool ar_req_queue_async(struct ar_ureq *req, unsigned issue_flags,
			       __u32 events, bool tried, int *ret)
{
	const struct ar_issue_def *def = &ar_issue_defs[req->opcode];
	bool worker = issue_flags & AR_ISSUE_WORKER;

	if (ar_req_requeue(req, def, issue_flags, ret))
		return true;
	while (*ret == AR_ISSUE_AGAIN) {
		if (!events) {
			/*
			 * The fd cache is a hint (backend/file.c): whether to
			 * wait or punt is decided on the file as it is now,
			 * which a socket call's answer already showed.
			 */
			if (!tried || !ar_req_sock_answered(req))
				ar_req_file_recheck(req);
			events = ar_req_poll_events(req);
		}
		if (ar_req_arm(req, events, ret))
			return true;
		if (*ret == AR_ISSUE_AGAIN) {
			*ret = ar_issue_op(req, def, issue_flags);
			tried = true;
			if (ar_req_requeue(req, def, issue_flags, ret))
				return true;
		}
	}
	/*
	 * Issued again after readiness, and it will not wait again: off its
	 * fd. A POLL_ADD or TX_TIMESTAMP a cancel found meanwhile ends as
	 * cancelled (the cancel reported it found: cancel.c). QUEUED: not
	 * ours to look at (poll.h: not an answer after readiness).
	 */
	if (*ret != AR_ISSUE_QUEUED && (req->flags & AR_REQ_F_POLLED) &&
	    ar_poll_done(req) &&
	    (def->poll_events || (req->flags & AR_REQ_F_POLL_ERR)))
		*ret = -ECANCELED;
	if (*ret == AR_ISSUE_PUNT) {
		if (!worker && !ar_req_waiter_blocks(req)) {
			ar_req_punt(req, issue_flags);
			return true;
		}
		/* a worker, or the thread that waits for it: block in it */
		*ret = ar_req_issue_blocking(req, worker);
	}
	return *ret == AR_ISSUE_QUEUED;
}

/* a request's result, posted (after those of reads batched before it) */
static inline __attribute__((always_inline)) void
ar_req_issue_done(struct ar_ureq *req, int ret)
{
	const struct ar_issue_def *def = &ar_issue_defs[req->opcode];

	ar_batch_order(req->ctx);

	/*
	 * Like the kernel, these opcodes do not mark the request failed on
	 * their own errors. A bad plain fd is not theirs: the kernel's core
	 * fails the request before the opcode runs (checked only then).
	 */
	if (def->nofail_res && !(ret == -EBADF && def->needs_file &&
				 fcntl(req->fd, F_GETFD) < 0))
		req->flags |= AR_REQ_F_NOFAIL;
	/* an op may have set its CQE's flags with its result (ops/net.c) */
	ar_req_complete(req, ret, req->cflags);
}

/*
 * Issue a request. Inline (AR_ISSUE_NONBLOCK) "would block" means: wait
 * for readiness on a pollable file, else punt to io-wq. A worker tries a
 * pollable file without blocking too, and polls when it is not ready, as
 * io-wq does, so a cancel can always reach a request waiting on a pipe.
 */
void ar_req_issue(struct ar_ureq *req, unsigned issue_flags)
{
	const struct ar_issue_def *def = &ar_issue_defs[req->opcode];
	bool tried = false, poll_first = false;
	__u32 events = 0;
	int ret;

	ret = ar_req_assign_file(req);
	if (ret) {
		ar_batch_order(req->ctx);
		ar_req_complete(req, ret, req->cflags);
		return;
	}
	if (ar_unlikely(ar_faults_active())) {
		/* ANYRING_FAULTS (fault.c): an injected error, or a delay in a worker */
		ret = ar_fault_issue(req, issue_flags);
		if (ret == AR_ISSUE_QUEUED)
			return;
		if (ret == AR_ISSUE_PUNT) {	/* a delay: a worker sleeps it */
			ar_req_punt(req, 0);
			return;
		}
		if (ret) {
			ar_req_issue_done(req, ret);
			return;
		}
	}
	if ((issue_flags & AR_ISSUE_WORKER) && (def->pollin || def->pollout)) {
		/*
		 * The file as it is now, unless it was looked at as the
		 * request went to io-wq: the kernel's request holds the file
		 * it had at submit, and a worker that picks it up at once
		 * would only make the same two system calls again.
		 */
		if (!(req->flags & AR_REQ_F_FILE_FRESH))
			ar_req_file_recheck(req);
		req->flags &= ~AR_REQ_F_FILE_FRESH;
		events = ar_req_poll_events(req);
		if (events)
			issue_flags |= AR_ISSUE_NONBLOCK;
	}
	/* IORING_RECVSEND_POLL_FIRST: no try before the file is ready */
	if (ar_unlikely(req->flags & AR_REQ_F_POLL_FIRST)) {
		req->flags &= ~AR_REQ_F_POLL_FIRST;
		poll_first = issue_flags & AR_ISSUE_NONBLOCK;
	}
	if (poll_first) {
		ret = AR_ISSUE_AGAIN;
	} else {
		ret = ar_issue_op(req, def, issue_flags);
		tried = true;
	}
	/* an answer that is not a result, or one after readiness */
	if ((ret == AR_ISSUE_AGAIN || ret == AR_ISSUE_PUNT ||
	     ret == AR_ISSUE_QUEUED || ret == AR_ISSUE_REQUEUE ||
	     (req->flags & AR_REQ_F_POLLED)) &&
	    ar_req_queue_async(req, issue_flags, events, tried, &ret))
		return;
	ar_req_issue_done(req, ret);
}

/*
 * A request with a LINK_TIMEOUT to arm: is its file there? The kernel
 * assigns the file before it arms the timer, so a closed fd or an empty
 * slot fails the request -EBADF and the link timeout is cancelled
 * (-ECANCELED), however soon it was due, inline or with IOSQE_ASYNC
 * (measured on 6.18). A plain fd is otherwise found bad only when a call
 * on it fails; for these requests it is looked at here, once.
 */
static int ar_req_file_before_lt(struct ar_ureq *req)
{
	int ret;

	if (!(req->flags & AR_REQ_F_ARM_LT) ||
	    !ar_issue_defs[req->opcode].needs_file)
		return 0;
	ret = ar_req_assign_file(req);
	if (ret)
		return ret;
	if (!req->file_node && fcntl(req->fd, F_GETFD) < 0)
		return -EBADF;
	return 0;
}

/* a request other than a read or write (a CLOSE) ends a batch's looks */
static inline void ar_file_batch_issue(const struct ar_ureq *req)
{
	if (ar_unlikely(ar_file_seen.valid) && !ar_issue_defs[req->opcode].spread)
		ar_file_seen.valid = false;
}

/* io_queue_sqe, past the drain check: forced async, or the inline attempt */
void ar_req_queue_nodrain(struct ar_ureq *req, unsigned issue_flags)
{
	int ret;

	ar_file_batch_issue(req);
	ret = ar_req_file_before_lt(req);

	if (ret) {
		ar_req_complete(req, ret, 0);
		return;
	}
	ar_link_timeout_arm(req);
	if (req->flags & AR_REQ_F_FORCE_ASYNC) {
		ar_req_punt(req, issue_flags);
		return;
	}
	ar_req_issue(req, AR_ISSUE_NONBLOCK | issue_flags);
}

/* failed at submit, or the ring ends: the whole chain fails, hard links too */
static __attribute__((noinline, cold)) void ar_req_queue_fail(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;

	req->flags &= ~AR_REQ_F_HARDLINK;
	ar_batch_order(ctx);
	ar_req_complete(req, ctx->exiting ? -ECANCELED : req->res, 0);
}

void ar_req_queue(struct ar_ureq *req)
{
	struct ar_uctx *ctx = req->ctx;

	if ((req->flags & AR_REQ_F_FAIL) || ctx->exiting) {
		ar_req_queue_fail(req);
		return;
	}
	/*
	 * The kernel checks drain when it issues an SQE, right after its
	 * init; here all of a batch is inited first, so the check that
	 * counts is the one made at init (AR_REQ_F_DRAIN_PATH).
	 */
	if ((req->flags & AR_REQ_F_DRAIN_PATH) && ar_drain_active(ctx)) {
		ar_drain_req(req);
		return;
	}
	ar_req_queue_nodrain(req, 0);
}
