/* SPDX-License-Identifier: MIT */
/*
 * fuzz_findings.c - constructs the user engine is known to get wrong
 * (reproducers in tests/fuzz/findings/, replay them with
 * FUZZ_KEEP_FINDINGS=1), steered around after decoding so that fuzzing
 * goes on past them. Each rule names its finding; remove the rule when
 * the engine is fixed (its reproducer then passes).
 */
#include <linux/fs.h>
#include "fuzz.h"

#ifndef RWF_NOWAIT
#define RWF_NOWAIT	0x00000008
#endif

int fz_keep_findings;

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

void fz_avoid_findings(struct fz_batch *b)
{
	unsigned i;
	int removes = 0, cancels = 0, fixed = 0, drained = 0, ltimeouts = 0;

	if (fz_keep_findings)
		return;
	for (i = 0; i < b->nr; i++) {
		fixed |= !!(b->sqe[i].flags & IOSQE_FIXED_FILE);
		ltimeouts |= b->sqe[i].op == FZ_LINK_TIMEOUT;
		cancels |= b->sqe[i].op == FZ_ASYNC_CANCEL ||
			b->sqe[i].op == FZ_LINK_TIMEOUT;
		removes |= b->sqe[i].op == FZ_ASYNC_CANCEL ||
			b->sqe[i].op == FZ_TIMEOUT_REMOVE;
	}
	for (i = 0; i < b->nr; i++) {
		struct fz_sqe *s = &b->sqe[i];
		const struct fz_sqe *prev = i ? &b->sqe[i - 1] : NULL;
		int head = !prev || !(i % b->cfg.sq_entries) ||
			!(prev->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK));

		/*
		 * FINDING: hardlink-head-refused-at-submit: a chain head the
		 * kernel refuses at submit (bad opcode or flag, or its prep
		 * fails) fails the whole chain even with IOSQE_IO_HARDLINK;
		 * the user engine runs the rest of the chain.
		 */
		if (head && (s->flags & IOSQE_IO_HARDLINK))
			s->flags = (s->flags & ~IOSQE_IO_HARDLINK) | IOSQE_IO_LINK;
		/*
		 * FINDING: skip-success-invalid-sqe-link (and
		 * skip-success-buffer-select-link): an SQE with IOSQE_IO_LINK
		 * and CQE_SKIP_SUCCESS refused at submit for an unknown opcode
		 * or flag bit, or for IOSQE_BUFFER_SELECT on an op without
		 * buffer selection (-EOPNOTSUPP): the kernel posts no CQE for
		 * the requests its failure cancels; the user engine posts
		 * theirs (-ECANCELED, or their own submit error).
		 */
		if (s->op == FZ_INVALID ||
		    (s->flags & (0x80 | IOSQE_BUFFER_SELECT)))
			s->flags &= ~IOSQE_CQE_SKIP_SUCCESS;
		/*
		 * FINDING: timeout-remove-misses-with-drain: TIMEOUT, then
		 * TIMEOUT_REMOVE of it, then an IOSQE_IO_DRAIN request, in one
		 * submit: the user engine's remove sometimes returns -ENOENT
		 * and the timeout expires (-ETIME); the kernel's remove always
		 * finds it (0, timeout -ECANCELED).
		 * FINDING: cancel-any-with-drain-sees-later-sqes: ASYNC_CANCEL
		 * ANY as the first SQE, a NOP, a NOP with IOSQE_IO_DRAIN: the
		 * kernel's cancel finds nothing (0); the user engine's
		 * cancels the NOP submitted after it (1, NOP -ECANCELED).
		 * FINDING: cancel-after-drain-sees-later-sqes: NOP with
		 * IOSQE_IO_DRAIN, ASYNC_CANCEL of ud 4, NOP, NOP (ud 4): the
		 * kernel issues them in order, the cancel finds nothing
		 * (-ENOENT); the user engine's cancel gets the later NOP.
		 * No drain in a batch with a cancel or a remove here.
		 */
		if (removes)
			s->flags &= ~IOSQE_IO_DRAIN;
		/*
		 * FINDING: nop-unknown-flags-accepted: a NOP with an unknown
		 * bit in sqe->rw_flags (nop_flags): the kernel fails it with
		 * -EINVAL, the user engine completes it with 0.
		 */
		if (s->poke == FZ_POKE_RW_FLAGS && !(s->poke_val & 1))
			s->poke = FZ_POKE_NONE;
		/*
		 * FINDING: rw-ioprio-not-checked: READ/WRITE (all six) with
		 * an ioprio the kernel's ioprio_check_cap() refuses (class
		 * NONE with a non-zero level: 1..7, 9..15): -EINVAL at submit
		 * on the kernel, the user engine does the I/O. Valid values
		 * (8, 16: hint bits only) are kept.
		 */
		if (s->poke == FZ_POKE_IOPRIO && s->op >= FZ_READ &&
		    s->op <= FZ_WRITE_FIXED && (s->poke_val & 7))
			s->poke = FZ_POKE_NONE;
		/*
		 * FINDING: timeout-remove-fixed-file-accepted and
		 * files-update-fixed-file-accepted: TIMEOUT_REMOVE or
		 * FILES_UPDATE with IOSQE_FIXED_FILE: -EINVAL at submit on the
		 * kernel (their prep refuses the flag), the user engine runs
		 * the request.
		 */
		if (s->op == FZ_TIMEOUT_REMOVE || s->op == FZ_FILES_UPDATE)
			s->flags &= ~IOSQE_FIXED_FILE;
		/*
		 * FINDING: readv-buffer-select-nr-not-checked: READV with
		 * IOSQE_BUFFER_SELECT and nr_vecs other than 1: -EINVAL at
		 * submit on the kernel; the user engine accepts it at submit
		 * and fails it later with -ENOBUFS.
		 */
		if (s->op == FZ_READV && (s->flags & IOSQE_BUFFER_SELECT))
			s->nr = 1;
		/*
		 * FINDING: rw-zero-len-bad-rwflags-{read,write}: a READ/WRITE
		 * of length 0 (READV/WRITEV of 0 vectors) with an unknown RWF_
		 * bit: the kernel fails it with -EOPNOTSUPP, the user engine
		 * completes it with 0.
		 */
		if (s->op >= FZ_READ && s->op <= FZ_WRITE_FIXED &&
		    (s->op == FZ_READV || s->op == FZ_WRITEV ? !s->nr : !s->len))
			s->op_flags &= ~(1U << 30);
		/*
		 * FINDING: rw-fixed-bad-fd-and-buffer-order: READ_FIXED or
		 * WRITE_FIXED with a bad fd (-1, closed, an empty or missing
		 * slot) and a bad fixed buffer: the kernel reports -EBADF, the
		 * user engine -EFAULT.
		 * FINDING: read-buffer-select-bad-fd-order: READ with
		 * IOSQE_BUFFER_SELECT (no buffers provided) on a bad fd: the
		 * kernel reports -EBADF, the user engine -ENOBUFS.
		 * These get f0 instead of the bad fd.
		 */
		if ((s->op == FZ_READ_FIXED || s->op == FZ_WRITE_FIXED ||
		     (s->op >= FZ_READ && s->op <= FZ_WRITEV &&
		      (s->flags & IOSQE_BUFFER_SELECT))) &&
		    (s->flags & IOSQE_FIXED_FILE ?
		     !b->cfg.reg_files || s->fd >= 4 :
		     s->fd == FZ_FD_NEG || s->fd == FZ_FD_BAD)) {
			s->flags &= ~IOSQE_FIXED_FILE;
			s->fd = FZ_FD_F0;
		}
		/*
		 * FINDING: write-nowait-regular-file: WRITE/WRITEV/WRITE_FIXED
		 * with RWF_NOWAIT to a regular file (ext4 here): the kernel
		 * gives -EAGAIN (or, with IOSQE_ASYNC, does the write; with a
		 * NULL buffer -EFAULT), the user engine -EOPNOTSUPP.
		 */
		if ((s->op == FZ_WRITE || s->op == FZ_WRITEV ||
		     s->op == FZ_WRITE_FIXED))
			s->op_flags &= ~RWF_NOWAIT;
		/*
		 * FINDING: link-timeout-update-refused: TIMEOUT_REMOVE with
		 * IORING_LINK_TIMEOUT_UPDATE: the kernel updates the link
		 * timeout (0) or reports -ENOENT, the user engine -EINVAL.
		 */
		if (s->op == FZ_TIMEOUT_REMOVE &&
		    (s->op_flags & IORING_LINK_TIMEOUT_UPDATE))
			s->op_flags = IORING_TIMEOUT_UPDATE;
		/*
		 * FINDING: read-bad-rwflags-cancellable: a READ of the pipe
		 * (data there) with an unknown RWF_ bit fails inline on the
		 * kernel (-EOPNOTSUPP; a cancel right after finds nothing);
		 * the user engine keeps it pending, a cancel gets it
		 * (-ECANCELED, cancel 0). Unknown RWF_ bits only go in
		 * batches without cancels here.
		 */
		if (cancels && s->op >= FZ_READ && s->op <= FZ_WRITE_FIXED)
			s->op_flags &= ~(1U << 30);
		/*
		 * FINDING: read-dir-rwflags-order: READ on the directory fd
		 * with RWF_DSYNC or RWF_APPEND: the kernel reports -EISDIR,
		 * the user engine -EOPNOTSUPP. No RWF_ flags on the dirfd.
		 */
		if (s->op >= FZ_READ && s->op <= FZ_WRITE_FIXED &&
		    !(s->flags & IOSQE_FIXED_FILE) && s->fd == FZ_FD_DIR)
			s->op_flags = 0;
		/*
		 * FINDING: link-timeout-skip-success-disarmed-posts: a
		 * LINK_TIMEOUT with CQE_SKIP_SUCCESS whose request completes
		 * first: the kernel posts no CQE for it, the user engine
		 * posts -ECANCELED.
		 */
		if (s->op == FZ_LINK_TIMEOUT)
			s->flags &= ~IOSQE_CQE_SKIP_SUCCESS;
		/*
		 * FINDING: failed-chain-skip-head-link-timeout-posts: NOP with
		 * IOSQE_IO_LINK|CQE_SKIP_SUCCESS, LINK_TIMEOUT, an SQE refused
		 * at submit: the kernel posts the head's -ECANCELED and the
		 * link timeout's -ECANCELED, the user engine only the head's.
		 * No CQE_SKIP_SUCCESS in a batch with a link timeout here.
		 */
		if (ltimeouts)
			s->flags &= ~IOSQE_CQE_SKIP_SUCCESS;
		/*
		 * FINDING: link-timeout-zero-disarmed-enoent: NOP with
		 * IOSQE_IO_LINK, LINK_TIMEOUT of 0 ns (or an absolute time in
		 * the past), NOP: the kernel completes the link timeout with
		 * -ENOENT, the user engine with -ECANCELED (1 ms: -ECANCELED
		 * on both). Link timeouts get 1 ms relative here.
		 */
		if (s->op == FZ_LINK_TIMEOUT && (s->ts == 0 ||
		    (s->op_flags & IORING_TIMEOUT_ABS))) {
			s->ts = 1;
			s->op_flags &= ~IORING_TIMEOUT_ABS;
		}
		/*
		 * FINDING: rw-hipri-without-iopoll: READ/WRITE with RWF_HIPRI
		 * on a ring without IORING_SETUP_IOPOLL: -EINVAL on the
		 * kernel, the user engine does the I/O.
		 */
		if (s->op >= FZ_READ && s->op <= FZ_WRITE_FIXED)
			s->op_flags &= ~RWF_HIPRI;
		/*
		 * FINDING: timeout-nsec-over-1e9-refused: TIMEOUT (and
		 * LINK_TIMEOUT, TIMEOUT_REMOVE's update) with tv_nsec of 1.5e9:
		 * the kernel only refuses negative values and arms a 1.5 s
		 * timer; the user engine fails it with -EINVAL at submit.
		 * The negative timespec stands in for it here.
		 */
		if ((s->op == FZ_TIMEOUT || s->op == FZ_LINK_TIMEOUT ||
		     s->op == FZ_TIMEOUT_REMOVE) && s->ts == 3)
			s->ts = 4;
		/*
		 * FINDING: drained-timeout-after-fixed-file-loses-next: with
		 * registered files, a READ with IOSQE_FIXED_FILE, then a
		 * TIMEOUT with IOSQE_IO_DRAIN, then a NOP: the timeout expires
		 * but the user engine never completes the NOP (the kernel
		 * does, res 0). Rarer, not reproducible alone:
		 * flaky-drain-link-lost-cqe and
		 * flaky-drain-after-fixed-file-loses-last-cqe, other drains
		 * after fixed-file requests. No drain in a batch with a
		 * fixed-file request here.
		 */
		if (fixed)
			s->flags &= ~IOSQE_IO_DRAIN;
		drained |= !!(s->flags & IOSQE_IO_DRAIN);
		/*
		 * FINDING: fsync-bad-fd-does-not-break-link (and
		 * fallocate-...): FSYNC or FALLOCATE on fd -1 or a closed fd,
		 * with IOSQE_IO_LINK: the kernel's -EBADF (from the file
		 * lookup) cancels the rest of the chain; the user engine runs
		 * it. (Errors of the fsync or fallocate itself break no link
		 * on either.) Such requests end their chain here.
		 */
		if ((s->op == FZ_FSYNC || s->op == FZ_FALLOCATE) &&
		    !(s->flags & IOSQE_FIXED_FILE) &&
		    (s->fd == FZ_FD_NEG || s->fd == FZ_FD_BAD))
			s->flags &= ~(IOSQE_IO_LINK | IOSQE_IO_HARDLINK |
				      IOSQE_CQE_SKIP_SUCCESS);
		/*
		 * FINDING: fallocate-bad-fd-skip-success-hides-error: the same
		 * -EBADF with CQE_SKIP_SUCCESS: the kernel posts it, the user
		 * engine posts nothing (it took the error for a success).
		 * (CQE_SKIP_SUCCESS is dropped just above.)
		 *
		 * FINDING: files-update-alloc-no-table-errno: FILES_UPDATE with
		 * IORING_FILE_INDEX_ALLOC and no registered file table: the
		 * kernel reports -ENXIO, the user engine -ENFILE.
		 */
		if (s->op == FZ_FILES_UPDATE && s->slot == -2 &&
		    !b->cfg.reg_files)
			s->slot = 0;
		/*
		 * FINDING: cancel-fd-fixed-file-flag-ignored: ASYNC_CANCEL
		 * with IORING_ASYNC_CANCEL_FD and IOSQE_FIXED_FILE (not
		 * CANCEL_FD_FIXED): the kernel takes the fd as a fixed slot
		 * (-EBADF with no table), the user engine as a plain fd
		 * (-ENOENT).
		 */
		if (s->op == FZ_ASYNC_CANCEL &&
		    (s->op_flags & IORING_ASYNC_CANCEL_FD))
			s->flags &= ~IOSQE_FIXED_FILE;
		/*
		 * FINDING: cancel-fd-in-iowq-finds-itself (and
		 * cancel-own-ud-in-iowq-finds-itself): an ASYNC_CANCEL that
		 * matches itself (IORING_ASYNC_CANCEL_FD: the kernel's cancel
		 * holds that file; ANY; or its own user_data) run from io-wq
		 * (IOSQE_ASYNC, a drain, or linked behind an async request):
		 * the kernel finds its own running work, -EALREADY; the user
		 * engine returns -ENOENT. (A chain still open at the end of
		 * the submit goes to io-wq too: cancel-fd-open-chain-finds-
		 * itself.) Such a cancel stays the head of a closed chain,
		 * without ASYNC or DRAIN and with no drain before it here.
		 */
		if (s->op == FZ_ASYNC_CANCEL &&
		    ((s->op_flags & (IORING_ASYNC_CANCEL_FD |
				     IORING_ASYNC_CANCEL_ANY)) ||
		     s->target == s->ud)) {
			s->flags &= ~(IOSQE_ASYNC | IOSQE_IO_DRAIN);
			if (!head || drained || open_at_end(b, i)) {
				s->op_flags &= ~(IORING_ASYNC_CANCEL_FD |
						 IORING_ASYNC_CANCEL_FD_FIXED |
						 IORING_ASYNC_CANCEL_ANY);
				if (s->target == s->ud)
					s->target = FZ_MAX_SQES + 1;
			}
		}
	}
}
