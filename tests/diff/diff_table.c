/* SPDX-License-Identifier: MIT */
/*
 * diff_table.c - the one table of scenario families, in the order they
 * run: the simplest operations first, so a broken engine shows there.
 * Each family is one file, named after the file of the user engine
 * (src/user/, src/user/ops/) whose code its scenarios test: the ops/
 * file of its opcodes, or the core file of its feature; the comments
 * below name it. The call cases are apart: diff_setup.c and
 * diff_uaccess.c (diff_call_tables).
 */
#include "harness.h"

const struct scenario *const diff_families[] = {
	diff_nop,		/* diff_nop.c: ops/nop.c */
	diff_submit_errors,	/* diff_submit.c: submit.c's refusals */
	diff_rw,		/* diff_rw.c: ops/rw.c */
	diff_rsrc,		/* diff_rsrc.c: rsrc.c */
	diff_sync,		/* diff_sync.c: ops/sync.c */
	diff_advise,		/* diff_advise.c: ops/advise.c */
	diff_openclose,		/* diff_openclose.c: ops/openclose.c */
	diff_statx,		/* diff_statx.c: ops/statx.c */
	diff_fs,		/* diff_fs.c: ops/fs.c */
	diff_xattr,		/* diff_xattr.c: ops/xattr.c */
	diff_splice,		/* diff_splice.c: ops/splice.c */
	diff_truncate,		/* diff_truncate.c: ops/truncate.c */
	diff_epoll,		/* diff_epoll.c: ops/epoll.c */
	diff_uring_cmd,		/* diff_uring_cmd.c: ops/uring_cmd.c (its one
				   scenario sends zcrx.c's RECV_ZC too) */
	diff_kbuf,		/* diff_kbuf.c: kbuf.c */
	diff_net,		/* diff_net.c: ops/net.c */
	diff_link,		/* diff_link.c: links (submit.c, complete.c) */
	diff_opdef,		/* diff_opdef.c: ops/opdef.c's nofail_res */
	diff_drain,		/* diff_drain.c: drain.c */
	diff_timeout,		/* diff_timeout.c: timeout.c */
	diff_cancel,		/* diff_cancel.c: cancel.c */
	diff_poll,		/* diff_poll.c: poll.c */
	diff_setup_flags,	/* diff_ctx.c: ctx.c's setup flags */
	diff_register,		/* diff_register.c: register.c */
	diff_complete,		/* diff_complete.c: complete.c's overflow */
	diff_msg_ring,		/* diff_msg_ring.c: ops/msg_ring.c */
	diff_futex,		/* diff_futex.c: ops/futex.c */
	diff_waitid,		/* diff_waitid.c: ops/waitid.c */
	NULL,
};
