/* SPDX-License-Identifier: MIT */
/*
 * fuzz_findings.c - constructs the user engine is known to get wrong, or
 * to do differently on purpose (reproducers in tests/fuzz/findings/,
 * replay them with FUZZ_KEEP_FINDINGS=1), steered around after decoding
 * so that fuzzing goes on past them. Each rule names its finding; remove
 * the rule when the engine is fixed (its reproducer then passes, and goes
 * into tests/fuzz/findings/FIXED, which tests/fuzz.sh replays).
 */
#include <sys/socket.h>
#include <linux/fs.h>
#include "fuzz.h"

int fz_keep_findings;

/* a write to one of the harness's regular files (f0..f2, slots 0 and 1) */
static int regular_file(const struct fz_batch *b, const struct fz_sqe *s)
{
	if (s->flags & IOSQE_FIXED_FILE)
		return b->cfg.reg_files && (s->fd == 0 || s->fd == 1);
	return s->fd <= FZ_FD_F2;
}

/* does SQE i's chain still say LINK at the end of its submit? */
static int open_at_end(const struct fz_batch *b, unsigned i)
{
	unsigned end = (i / b->cfg.sq_entries + 1) * b->cfg.sq_entries;

	if (end > b->nr)
		end = b->nr;
	while (i + 1 < end &&
	       (b->sqe[i].flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)))
		i++;
	return !!(b->sqe[i].flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK));
}

/*
 * Does a later member of SQE i's chain (same submit) say IOSQE_IO_DRAIN?
 * The kernel applies it to the chain's head, which then goes to io-wq.
 */
static int drain_later_in_chain(const struct fz_batch *b, unsigned i)
{
	unsigned end = (i / b->cfg.sq_entries + 1) * b->cfg.sq_entries;

	if (end > b->nr)
		end = b->nr;
	for (; i + 1 < end &&
	       (b->sqe[i].flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)); i++)
		if (b->sqe[i + 1].flags & IOSQE_IO_DRAIN)
			return 1;
	return 0;
}

/*
 * Is there an ASYNC_CANCEL before SQE i? 0: none; 1: one or more; 2: one
 * of them named the user_data target.
 */
static int cancel_before(const struct fz_batch *b, unsigned i, __u64 target)
{
	int found = 0;

	for (unsigned j = 0; j < i; j++) {
		const struct fz_sqe *c = &b->sqe[j];

		if (c->op != FZ_ASYNC_CANCEL || c->nopped)
			continue;
		if (c->target == target)
			return 2;
		found = 1;
	}
	return found;
}

void fz_avoid_findings(struct fz_batch *b)
{
	unsigned i;
	int drained = 0;

	if (fz_keep_findings)
		return;
	/*
	 * FINDING: recv-buffer-select-enobufs (docs/semantics.md D74):
	 * PROVIDE_BUFFERS into group 100, then RECV with BUFFER_SELECT from
	 * that group on a socket holding data: the kernel takes a buffer
	 * (IORING_CQE_F_BUFFER), the user engine's RECV and SEND do not
	 * select yet and answer -ENOBUFS (SEND: -ENOENT). Such requests
	 * lose BUFFER_SELECT here.
	 */
	for (i = 0; i < b->nr; i++)
		if (b->sqe[i].op == FZ_SEND || b->sqe[i].op == FZ_RECV)
			b->sqe[i].flags &= ~IOSQE_BUFFER_SELECT;
	/*
	 * FINDING: hardlink-async-open-at-end-cqe-missing: a SEND_ZC that a
	 * chain refused at submit (an invalid SQE flag) cancels, then an
	 * SQE with IOSQE_IO_HARDLINK and IOSQE_ASYNC whose chain is still
	 * open at the end of its submit: the kernel posts that request's
	 * CQE, the user engine posted none in 3 of 3 replays (found by make
	 * test's fuzz run of 2026-12-05; already so before issue 27).
	 * Such an SQE loses IOSQE_ASYNC here until it is understood.
	 */
	for (i = 0; i < b->nr; i++)
		if ((b->sqe[i].flags & IOSQE_IO_HARDLINK) &&
		    (b->sqe[i].flags & IOSQE_ASYNC) && open_at_end(b, i))
			b->sqe[i].flags &= ~IOSQE_ASYNC;
	/*
	 * FINDING: drain-in-chain-drains-next-request: NOP IO_LINK, NOP
	 * IO_DRAIN, TIMEOUT 1.5 s, NOP: IOSQE_IO_DRAIN on a chain member
	 * drains the chain's head and, on the kernel, also the next request
	 * after the chain (io_init_drain(): drain_next), so the last NOP
	 * waits for the TIMEOUT; the user engine drains the head only, the
	 * NOP completes at once. The flag moves to the chain's head here.
	 */
	for (i = 1; i < b->nr; i++) {
		unsigned h = i;

		if (!(b->sqe[i].flags & IOSQE_IO_DRAIN))
			continue;
		while (h % b->cfg.sq_entries &&
		       (b->sqe[h - 1].flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)))
			h--;
		if (h == i)
			continue;
		b->sqe[i].flags &= ~IOSQE_IO_DRAIN;
		b->sqe[h].flags |= IOSQE_IO_DRAIN;
	}
	/*
	 * FINDING: send-zc-after-drain-kernel-hangs (a kernel hang, not a
	 * difference of the user engine): a SEND_ZC submitted after a
	 * request with IOSQE_IO_DRAIN (or with it itself), in the same
	 * batch: on 6.18 the drained request and everything after it never
	 * run (the harness gives up after FZ_HANG_SEC; 4 of 8 inputs of the
	 * first long run with SEND_ZC, each a SEND_ZC failing -EOPNOTSUPP on
	 * a unix socket, its notification CQE owed). The drains at or before
	 * the last SEND_ZC are taken off here, after the drains moved to
	 * their chains' heads (above: that move once gave a SEND_ZC heading
	 * a chain the drain of its linked NOP, and the kernel hung).
	 */
	for (i = b->nr; i-- > 0;)
		if (b->sqe[i].op == FZ_SEND_ZC)
			break;
	for (; i < b->nr; i--)
		b->sqe[i].flags &= ~IOSQE_IO_DRAIN;
	for (i = 0; i < b->nr; i++) {
		struct fz_sqe *s = &b->sqe[i];
		const struct fz_sqe *prev = i ? &b->sqe[i - 1] : NULL;
		int head = !prev || !(i % b->cfg.sq_entries) ||
			!(prev->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK));

		/*
		 * FINDING: read-dir-rwflags-order: READ on the directory fd
		 * with RWF_DSYNC or RWF_APPEND: the kernel reports -EISDIR,
		 * the user engine -EOPNOTSUPP (docs/semantics.md D55). No
		 * RWF_ flags on the dirfd.
		 */
		if (s->op >= FZ_READ && s->op <= FZ_WRITE_FIXED &&
		    !(s->flags & IOSQE_FIXED_FILE) && s->fd == FZ_FD_DIR)
			s->op_flags = 0;
		/*
		 * FINDING: write-nowait-zero-len-regular-file (-writev): a
		 * WRITE of length 0 (WRITEV of 0 vectors) with RWF_NOWAIT to
		 * a regular file (ext4 here), IO_LINK: the kernel fails it
		 * with -EAGAIN (and cancels the link), the user engine
		 * completes it with 0. No RWF_NOWAIT on those here.
		 */
		if ((s->op == FZ_WRITE || s->op == FZ_WRITE_FIXED ? !s->len :
		     s->op == FZ_WRITEV && !s->nr) && regular_file(b, s))
			s->op_flags &= ~RWF_NOWAIT;
		/*
		 * FINDING: write-nowait-linked-behind-iowq: SYMLINKAT with
		 * IO_HARDLINK (the kernel runs it in io-wq), then a WRITE of
		 * f0 (ext4) with RWF_NOWAIT: the kernel's io-wq runs the
		 * linked write too and it writes (1472); the user engine
		 * fails it with -EAGAIN. No RWF_NOWAIT on a write to a
		 * regular file inside a chain here.
		 */
		if ((s->op == FZ_WRITE || s->op == FZ_WRITEV ||
		     s->op == FZ_WRITE_FIXED) && regular_file(b, s))
			s->op_flags &= ~RWF_NOWAIT;
		/*
		 * FINDING: read-nowait-pipe-linked-behind-iowq: READ_FIXED of
		 * an empty slot with IOSQE_ASYNC and IO_HARDLINK (io-wq,
		 * -EBADF), then a READ of the empty pipe with RWF_NOWAIT: 6.18's
		 * io-wq runs the linked read blocking, without IOCB_NOWAIT
		 * (__io_read()), so it waits for data; the user engine issues it
		 * from the task and answers -EAGAIN. Open, the cause of
		 * write-nowait-linked-behind-iowq too. No RWF_NOWAIT on a read
		 * or write inside a chain here.
		 */
		if (s->op >= FZ_READ && s->op <= FZ_WRITE_FIXED && !head)
			s->op_flags &= ~RWF_NOWAIT;
		/*
		 * FINDING: accept-dontwait-linked-behind-iowq: a WRITEV with
		 * IOSQE_ASYNC and IO_HARDLINK, then an ACCEPT with
		 * IORING_ACCEPT_DONTWAIT and no connection pending: 6.18's
		 * io-wq goes on with the linked ACCEPT itself, blocking (the
		 * flag answers -EAGAIN only on the nonblocking path), so it
		 * waits for a connection that never comes; the user engine
		 * answers -EAGAIN. The cause of the NOWAIT findings above
		 * (D55). No ACCEPT inside a chain here, but one with
		 * IOSQE_ASYNC (io-wq polls those).
		 */
		if (s->op == FZ_ACCEPT && !head && !(s->flags & IOSQE_ASYNC)) {
			s->nopped = 1;
			s->why = "ACCEPT in a chain: 6.18's io-wq may block in it";
		}
		/*
		 * (and outside chains too: whether ext4 takes a buffered
		 * RWF_NOWAIT write at once depends on the file's state, so the
		 * kernel answers -EAGAIN or writes; the CI run of 2026-11-29
		 * saw the kernel refuse where the user engine wrote. Open:
		 * docs/semantics.md D55.)
		 */
		drained |= !!(s->flags & IOSQE_IO_DRAIN);
		/*
		 * FINDING: link-timeout-zero-drained-head: NOP with IO_LINK,
		 * LINK_TIMEOUT of 0 ns with IOSQE_IO_DRAIN (the drain makes
		 * the chain's head go to io-wq), NOP: the kernel completes
		 * the NOP (0) and the link timeout with -ENOENT, every time;
		 * the user engine's result varies: the same, or the link
		 * timeout -EALREADY, or -ETIME with the NOP -ECANCELED, and
		 * once in ~25 runs two CQEs for the link timeout (-ECANCELED
		 * and -ETIME). A link timeout already due (0 ns, or absolute)
		 * gets 1 ms relative here when a drain comes before it or
		 * with it, or its chain is still open at the end of the
		 * submit.
		 */
		if (s->op == FZ_LINK_TIMEOUT && s->ts < 4 &&
		    (s->ts == 0 || (s->op_flags & IORING_TIMEOUT_ABS)) &&
		    (drained || open_at_end(b, i))) {
			s->ts = 1;
			s->op_flags &= ~IORING_TIMEOUT_ABS;
		}
		/*
		 * ACCEPTED DIFFERENCE, not a bug (docs/semantics.md D37):
		 * cancel-fd-in-iowq-finds-itself (-linked),
		 * cancel-own-ud-in-iowq-finds-itself and
		 * cancel-own-ud-after-drain-finds-itself: an ASYNC_CANCEL
		 * that matches itself (IORING_ASYNC_CANCEL_FD: the kernel's
		 * cancel holds that file; ANY; or its own user_data) run from
		 * io-wq (IOSQE_ASYNC, a drain before it or on a later member
		 * of its chain, linked behind an async request, or in a chain
		 * left open at the end of the submit): the kernel's io-wq
		 * cancel finds the canceling request's own running work,
		 * -EALREADY; the user engine's cancel never matches itself,
		 * -ENOENT. A kernel quirk we do not copy. Such
		 * a cancel stays the head of a closed chain, without ASYNC or
		 * DRAIN and with no drain before it or in its chain here
		 * (cancel-fd-drained-chain-finds-itself: the drain on a later
		 * member, moved to the head above, or kept there with
		 * FUZZ_KEEP_FINDINGS).
		 */
		/*
		 * FINDING: cancel-any-finds-cancelled-poll: two READs of the
		 * empty pipe wait for readiness, an ASYNC_CANCEL of the second,
		 * then an ASYNC_CANCEL with ANY, all in one submit: 6.18's poll
		 * cancel leaves the cancelled READ in its table until its task
		 * work runs at the end of the submit, so the second cancel finds
		 * it again and answers 1; the user engine took it out at the
		 * first cancel and answers 0 (D37). A cancel after another
		 * cancel in the batch matches by user_data only, and not the
		 * user_data an earlier one named, here.
		 */
		if (s->op == FZ_ASYNC_CANCEL && cancel_before(b, i, s->target)) {
			s->op_flags &= ~(IORING_ASYNC_CANCEL_FD |
					 IORING_ASYNC_CANCEL_FD_FIXED |
					 IORING_ASYNC_CANCEL_ANY |
					 IORING_ASYNC_CANCEL_ALL);
			if (cancel_before(b, i, s->target) > 1)
				s->target = FZ_MAX_SQES + 1;
		}
		if (s->op == FZ_ASYNC_CANCEL &&
		    ((s->op_flags & (IORING_ASYNC_CANCEL_FD |
				     IORING_ASYNC_CANCEL_ANY)) ||
		     s->target == s->ud)) {
			s->flags &= ~(IOSQE_ASYNC | IOSQE_IO_DRAIN);
			if (!head || drained || open_at_end(b, i) ||
			    drain_later_in_chain(b, i)) {
				s->op_flags &= ~(IORING_ASYNC_CANCEL_FD |
						 IORING_ASYNC_CANCEL_FD_FIXED |
						 IORING_ASYNC_CANCEL_ANY);
				if (s->target == s->ud)
					s->target = FZ_MAX_SQES + 1;
			}
		}
	}
}
