/* SPDX-License-Identifier: MIT */
/*
 * opdef.c - the user engine's opcode table (opdef.h), as the kernel's
 * io_uring/opdef.c: one entry per IORING_OP_* in each of the two tables,
 * with its prep and issue handlers and the bits the core acts on. Every
 * opcode of Linux 6.18 has an entry. nofail_res marks the opcodes whose
 * error results the kernel posts without failing the request (the link
 * goes on; CQE_SKIP_SUCCESS still skips): measured on 6.18.
 */
#include <stdio.h>
#include <stdlib.h>
#include "engine/compat.h"
#include "user/ops/advise.h"
#include "user/ops/epoll.h"
#include "user/ops/fs.h"
#include "user/ops/net.h"
#include "user/ops/openclose.h"
#include "user/ops/ops.h"
#include "user/ops/splice.h"
#include "user/ops/statx.h"
#include "user/ops/sync.h"
#include "user/ops/truncate.h"
#include "user/ops/uring_cmd.h"
#include "user/ops/xattr.h"
#include "user/ops/zcrx.h"
#include "user/kbuf.h"
#include "user/ops/msg_ring.h"
#include "user/ops/futex.h"
#include "user/ops/waitid.h"
#include "user/opdef.h"
#include "user/poll.h"
#include "user/types.h"
#include "user/rsrc.h"
#include "user/cancel.h"
#include "user/timeout.h"

_Static_assert(AR_OP_NR == AR_OP_LAST_KNOWN_6_18 + 1,
	      "the table describes Linux 6.18's opcodes");

const struct ar_issue_def ar_issue_defs[AR_OP_NR] = {
	[IORING_OP_NOP] = {
		.prep = ar_nop_prep, .issue = ar_nop_issue, .iopoll = 1,
		.prep_inits = 1,
	},
	[IORING_OP_READV] = {
		.prep = ar_readv_prep, .issue = ar_read_issue,
		.needs_file = 1, .pollin = 1, .iopoll = 1,
		.buffer_select = 1, .ioprio = 1, .prep_inits = 1,
		.bounded = 1, .spread = 1, .read_batch = 1,
	},
	[IORING_OP_WRITEV] = {
		.prep = ar_writev_prep, .issue = ar_write_issue,
		.needs_file = 1, .pollout = 1, .iopoll = 1, .ioprio = 1,
		.prep_inits = 1, .bounded = 1, .hash_reg_file = 1,
		.spread = 1,
	},
	[IORING_OP_FSYNC] = {
		.prep = ar_fsync_prep, .issue = ar_fsync_issue,
		.needs_file = 1, .nofail_res = 1, .bounded = 1,
	},
	[IORING_OP_READ_FIXED] = {
		.prep = ar_read_fixed_prep, .issue = ar_read_issue,
		.needs_file = 1, .pollin = 1, .iopoll = 1, .ioprio = 1,
		.prep_inits = 1, .bounded = 1, .spread = 1, .read_batch = 1,
	},
	[IORING_OP_WRITE_FIXED] = {
		.prep = ar_write_fixed_prep, .issue = ar_write_issue,
		.needs_file = 1, .pollout = 1, .iopoll = 1, .ioprio = 1,
		.prep_inits = 1, .bounded = 1, .hash_reg_file = 1,
		.spread = 1,
	},
	[IORING_OP_POLL_ADD] = {
		.prep = ar_poll_add_prep, .issue = ar_poll_add_issue,
		.needs_file = 1, .poll_events = 1,
	},
	[IORING_OP_POLL_REMOVE] = {
		.prep = ar_poll_remove_prep, .issue = ar_poll_remove_issue,
	},
	[IORING_OP_SYNC_FILE_RANGE] = {
		.prep = ar_sync_file_range_prep,
		.issue = ar_sync_file_range_issue, .needs_file = 1,
		.nofail_res = 1,
	},
	[IORING_OP_SENDMSG] = {
		.prep = ar_sendmsg_prep, .issue = ar_msg_issue,
		.needs_file = 1, .pollout = 1, .sock_call = 1, .ioprio = 1,
	},
	[IORING_OP_RECVMSG] = {
		.prep = ar_recvmsg_prep, .issue = ar_msg_issue,
		.needs_file = 1, .pollin = 1, .sock_call = 1,
		.buffer_select = 1, .ioprio = 1,
	},
	[IORING_OP_TIMEOUT] = {
		.prep = ar_timeout_prep, .issue = ar_timeout_issue,
		.timer = 1, .cq_timeout = 1,
	},
	[IORING_OP_TIMEOUT_REMOVE] = {
		.prep = ar_timeout_remove_prep,
		.issue = ar_timeout_remove_issue,
	},
	[IORING_OP_ACCEPT] = {
		.prep = ar_accept_prep, .issue = ar_accept_issue,
		.needs_file = 1, .pollin = 1, .ioprio = 1,
		.spread_barrier = 1,
	},
	[IORING_OP_ASYNC_CANCEL] = {
		.prep = ar_async_cancel_prep,
		.issue = ar_async_cancel_issue, .spread_barrier = 1,
	},
	[IORING_OP_LINK_TIMEOUT] = {
		.prep = ar_link_timeout_prep,
		.issue = ar_link_timeout_issue, .timer = 1,
	},
	[IORING_OP_CONNECT] = {
		.prep = ar_connect_prep, .issue = ar_connect_issue,
		.needs_file = 1, .pollout = 1,
	},
	[IORING_OP_FALLOCATE] = {
		.prep = ar_fallocate_prep, .issue = ar_fallocate_issue,
		.needs_file = 1, .nofail_res = 1,
	},
	[IORING_OP_OPENAT] = {
		.prep = ar_openat_prep, .issue = ar_openat_issue,
		.spread_barrier = 1,
	},
	[IORING_OP_CLOSE] = {
		.prep = ar_close_prep, .issue = ar_close_issue,
		.spread_barrier = 1,
	},
	[IORING_OP_FILES_UPDATE] = {
		.prep = ar_files_update_prep,
		.issue = ar_files_update_issue, .iopoll = 1,
		.spread_barrier = 1,
	},
	[IORING_OP_STATX] = {
		.prep = ar_statx_prep, .issue = ar_statx_issue,
		.nofail_res = 1,
	},
	[IORING_OP_READ] = {
		.prep = ar_read_prep, .issue = ar_read_issue,
		.needs_file = 1, .pollin = 1, .iopoll = 1,
		.buffer_select = 1, .ioprio = 1, .prep_inits = 1,
		.bounded = 1, .spread = 1, .read_batch = 1,
	},
	[IORING_OP_WRITE] = {
		.prep = ar_write_prep, .issue = ar_write_issue,
		.needs_file = 1, .pollout = 1, .iopoll = 1, .ioprio = 1,
		.prep_inits = 1, .bounded = 1, .hash_reg_file = 1,
		.spread = 1,
	},
	[IORING_OP_FADVISE] = {
		.prep = ar_fadvise_prep, .issue = ar_fadvise_issue,
		.needs_file = 1,
	},
	[IORING_OP_MADVISE] = {
		.prep = ar_madvise_prep, .issue = ar_madvise_issue,
		.nofail_res = 1,
	},
	[IORING_OP_SEND] = {
		.prep = ar_send_prep, .issue = ar_sendrecv_issue,
		.needs_file = 1, .pollout = 1, .sock_call = 1,
		.buffer_select = 1, .ioprio = 1,
	},
	[IORING_OP_RECV] = {
		.prep = ar_recv_prep, .issue = ar_sendrecv_issue,
		.needs_file = 1, .pollin = 1, .sock_call = 1,
		.buffer_select = 1, .ioprio = 1,
	},
	[IORING_OP_OPENAT2] = {
		.prep = ar_openat2_prep, .issue = ar_openat2_issue,
		.spread_barrier = 1,
	},
	[IORING_OP_EPOLL_CTL] = {
		.prep = ar_epoll_ctl_prep, .issue = ar_epoll_ctl_issue,
	},
	[IORING_OP_SPLICE] = {
		.prep = ar_splice_prep, .issue = ar_splice_issue,
		.needs_file = 1,
	},
	[IORING_OP_PROVIDE_BUFFERS] = {
		.prep = ar_provide_buffers_prep,
		.issue = ar_manage_buffers_issue, .iopoll = 1,
	},
	[IORING_OP_REMOVE_BUFFERS] = {
		.prep = ar_remove_buffers_prep,
		.issue = ar_manage_buffers_issue, .iopoll = 1,
	},
	[IORING_OP_TEE] = {
		.prep = ar_tee_prep, .issue = ar_splice_issue,
		.needs_file = 1,
	},
	[IORING_OP_SHUTDOWN] = {
		.prep = ar_shutdown_prep, .issue = ar_shutdown_issue,
		.needs_file = 1,
	},
	[IORING_OP_RENAMEAT] = {
		.prep = ar_renameat_prep, .issue = ar_renameat_issue,
		.nofail_res = 1,
	},
	[IORING_OP_UNLINKAT] = {
		.prep = ar_unlinkat_prep, .issue = ar_unlinkat_issue,
		.nofail_res = 1,
	},
	[IORING_OP_MKDIRAT] = {
		.prep = ar_mkdirat_prep, .issue = ar_mkdirat_issue,
		.nofail_res = 1,
	},
	[IORING_OP_SYMLINKAT] = {
		.prep = ar_symlinkat_prep, .issue = ar_symlinkat_issue,
		.nofail_res = 1,
	},
	[IORING_OP_LINKAT] = {
		.prep = ar_linkat_prep, .issue = ar_linkat_issue,
		.nofail_res = 1,
	},
	[IORING_OP_MSG_RING] = {
		.prep = ar_msg_ring_prep, .issue = ar_msg_ring_issue,
		.needs_file = 1, .iopoll = 1, .spread_barrier = 1,
	},
	[IORING_OP_FSETXATTR] = {
		.prep = ar_fsetxattr_prep, .issue = ar_xattr_issue,
		.needs_file = 1, .nofail_res = 1,
	},
	[IORING_OP_SETXATTR] = {
		.prep = ar_setxattr_prep, .issue = ar_xattr_issue,
		.nofail_res = 1,
	},
	[IORING_OP_FGETXATTR] = {
		.prep = ar_fgetxattr_prep, .issue = ar_xattr_issue,
		.needs_file = 1, .nofail_res = 1,
	},
	[IORING_OP_GETXATTR] = {
		.prep = ar_getxattr_prep, .issue = ar_xattr_issue,
		.nofail_res = 1,
	},
	[IORING_OP_SOCKET] = {
		.prep = ar_socket_prep, .issue = ar_socket_issue,
		.spread_barrier = 1,
	},
	[IORING_OP_URING_CMD] = {
		.prep = ar_uring_cmd_prep, .issue = ar_uring_cmd_issue,
		.needs_file = 1, .iopoll = 1, .buffer_select = 1,
	},
	[IORING_OP_SEND_ZC] = {
		.prep = ar_send_zc_prep, .issue = ar_sendrecv_issue,
		.needs_file = 1, .pollout = 1, .sock_call = 1, .ioprio = 1,
	},
	[IORING_OP_SENDMSG_ZC] = {
		.prep = ar_sendmsg_zc_prep, .issue = ar_msg_issue,
		.needs_file = 1, .pollout = 1, .sock_call = 1, .ioprio = 1,
	},
	[AR_OP_READ_MULTISHOT] = {
		.prep = ar_read_mshot_prep, .issue = ar_read_mshot_issue,
		.needs_file = 1, .pollin = 1, .buffer_select = 1,
		.ioprio = 1, .prep_inits = 1,
	},
	[AR_OP_WAITID] = {
		.prep = ar_waitid_prep, .issue = ar_waitid_issue,
	},
	[AR_OP_FUTEX_WAIT] = {
		.prep = ar_futex_prep, .issue = ar_futex_wait_issue,
		.eagain_res = 1,
	},
	[AR_OP_FUTEX_WAKE] = {
		.prep = ar_futex_prep, .issue = ar_futex_wake_issue,
	},
	[AR_OP_FUTEX_WAITV] = {
		.prep = ar_futexv_prep, .issue = ar_futexv_wait_issue,
		.eagain_res = 1,
	},
	[AR_OP_FIXED_FD_INSTALL] = {
		.prep = ar_fixed_fd_install_prep,
		.issue = ar_fixed_fd_install_issue, .needs_file = 1,
	},
	[AR_OP_FTRUNCATE] = {
		.prep = ar_ftruncate_prep, .issue = ar_ftruncate_issue,
		.needs_file = 1, .nofail_res = 1,
	},
	[AR_OP_BIND] = {
		.prep = ar_bind_prep, .issue = ar_bind_issue,
		.needs_file = 1,
	},
	[AR_OP_LISTEN] = {
		.prep = ar_listen_prep, .issue = ar_listen_issue,
		.needs_file = 1,
	},
	[AR_OP_RECV_ZC] = {
		.prep = ar_recv_zc_prep, .needs_file = 1, .ioprio = 1,
		.prep_fails = 1,
	},
	[AR_OP_EPOLL_WAIT] = {
		.prep = ar_epoll_wait_prep, .issue = ar_epoll_wait_issue,
		.needs_file = 1, .pollin = 1,
	},
	[AR_OP_READV_FIXED] = {
		.prep = ar_readv_fixed_prep, .issue = ar_read_issue,
		.needs_file = 1, .pollin = 1, .iopoll = 1, .ioprio = 1,
		.prep_inits = 1, .read_batch = 1,
	},
	[AR_OP_WRITEV_FIXED] = {
		.prep = ar_writev_fixed_prep, .issue = ar_write_issue,
		.needs_file = 1, .pollout = 1, .iopoll = 1, .ioprio = 1,
		.prep_inits = 1,
	},
	[AR_OP_PIPE] = {
		.prep = ar_pipe_prep, .issue = ar_pipe_issue,
		.spread_barrier = 1,
	},
};

const struct ar_cold_def ar_cold_defs[AR_OP_NR] = {
	[IORING_OP_NOP] = { .name = "NOP" },
	[IORING_OP_READV] = { .name = "READV", .family = "read" },
	[IORING_OP_WRITEV] = { .name = "WRITEV", .family = "write" },
	[IORING_OP_FSYNC] = { .name = "FSYNC" },
	[IORING_OP_READ_FIXED] = { .name = "READ_FIXED", .family = "read",
		.fault_short = 1 },
	[IORING_OP_WRITE_FIXED] = { .name = "WRITE_FIXED",
		.family = "write", .fault_short = 1 },
	[IORING_OP_POLL_ADD] = { .name = "POLL_ADD" },
	[IORING_OP_POLL_REMOVE] = { .name = "POLL_REMOVE" },
	[IORING_OP_SYNC_FILE_RANGE] = { .name = "SYNC_FILE_RANGE" },
	[IORING_OP_SENDMSG] = { .name = "SENDMSG" },
	[IORING_OP_RECVMSG] = { .name = "RECVMSG" },
	[IORING_OP_TIMEOUT] = { .name = "TIMEOUT", .fault_not_any = 1 },
	[IORING_OP_TIMEOUT_REMOVE] = { .name = "TIMEOUT_REMOVE",
		.fault_not_any = 1 },
	[IORING_OP_ACCEPT] = { .name = "ACCEPT" },
	[IORING_OP_ASYNC_CANCEL] = { .name = "ASYNC_CANCEL",
		.fault_not_any = 1 },
	[IORING_OP_LINK_TIMEOUT] = { .name = "LINK_TIMEOUT",
		.fault_never = 1 },
	[IORING_OP_CONNECT] = { .name = "CONNECT" },
	[IORING_OP_FALLOCATE] = { .name = "FALLOCATE" },
	[IORING_OP_OPENAT] = { .name = "OPENAT", .family = "open",
		.paths = AR_PATHS_AT },
	[IORING_OP_CLOSE] = { .name = "CLOSE", .closes = 1 },
	[IORING_OP_FILES_UPDATE] = { .name = "FILES_UPDATE" },
	[IORING_OP_STATX] = { .name = "STATX", .paths = AR_PATHS_AT },
	[IORING_OP_READ] = { .name = "READ", .family = "read",
		.fault_short = 1 },
	[IORING_OP_WRITE] = { .name = "WRITE", .family = "write",
		.fault_short = 1 },
	[IORING_OP_FADVISE] = { .name = "FADVISE" },
	[IORING_OP_MADVISE] = { .name = "MADVISE" },
	[IORING_OP_SEND] = { .name = "SEND", .cleanup = ar_sr_cleanup },
	[IORING_OP_RECV] = { .name = "RECV", .cleanup = ar_sr_cleanup },
	[IORING_OP_OPENAT2] = { .name = "OPENAT2", .family = "open",
		.paths = AR_PATHS_AT },
	[IORING_OP_EPOLL_CTL] = { .name = "EPOLL_CTL" },
	[IORING_OP_SPLICE] = { .name = "SPLICE" },
	[IORING_OP_PROVIDE_BUFFERS] = { .name = "PROVIDE_BUFFERS" },
	[IORING_OP_REMOVE_BUFFERS] = { .name = "REMOVE_BUFFERS" },
	[IORING_OP_TEE] = { .name = "TEE" },
	[IORING_OP_SHUTDOWN] = { .name = "SHUTDOWN" },
	[IORING_OP_RENAMEAT] = { .name = "RENAMEAT", .paths = AR_PATHS_TWO },
	[IORING_OP_UNLINKAT] = { .name = "UNLINKAT", .paths = AR_PATHS_AT },
	[IORING_OP_MKDIRAT] = { .name = "MKDIRAT", .paths = AR_PATHS_AT },
	[IORING_OP_SYMLINKAT] = { .name = "SYMLINKAT",
		.paths = AR_PATHS_LINK },
	[IORING_OP_LINKAT] = { .name = "LINKAT", .paths = AR_PATHS_TWO },
	[IORING_OP_MSG_RING] = { .name = "MSG_RING" },
	[IORING_OP_FSETXATTR] = { .name = "FSETXATTR",
		.cleanup = ar_xattr_cleanup },
	[IORING_OP_SETXATTR] = { .name = "SETXATTR",
		.cleanup = ar_xattr_cleanup },
	[IORING_OP_FGETXATTR] = { .name = "FGETXATTR",
		.cleanup = ar_xattr_cleanup },
	[IORING_OP_GETXATTR] = { .name = "GETXATTR",
		.cleanup = ar_xattr_cleanup },
	[IORING_OP_SOCKET] = { .name = "SOCKET" },
	[IORING_OP_URING_CMD] = { .name = "URING_CMD" },
	[IORING_OP_SEND_ZC] = { .name = "SEND_ZC" },
	[IORING_OP_SENDMSG_ZC] = { .name = "SENDMSG_ZC" },
	[AR_OP_READ_MULTISHOT] = { .name = "READ_MULTISHOT" },
	[AR_OP_WAITID] = { .name = "WAITID",
		.cancel_locked = ar_futex_cancel_locked },
	[AR_OP_FUTEX_WAIT] = { .name = "FUTEX_WAIT",
		.cancel_locked = ar_futex_cancel_locked },
	[AR_OP_FUTEX_WAKE] = { .name = "FUTEX_WAKE" },
	[AR_OP_FUTEX_WAITV] = { .name = "FUTEX_WAITV",
		.cancel_locked = ar_futex_cancel_locked },
	[AR_OP_FIXED_FD_INSTALL] = { .name = "FIXED_FD_INSTALL" },
	[AR_OP_FTRUNCATE] = { .name = "FTRUNCATE" },
	[AR_OP_BIND] = { .name = "BIND" },
	[AR_OP_LISTEN] = { .name = "LISTEN" },
	[AR_OP_RECV_ZC] = { .name = "RECV_ZC" },
	[AR_OP_EPOLL_WAIT] = { .name = "EPOLL_WAIT" },
	[AR_OP_READV_FIXED] = { .name = "READV_FIXED" },
	[AR_OP_WRITEV_FIXED] = { .name = "WRITEV_FIXED" },
	[AR_OP_PIPE] = { .name = "PIPE" },
};

/*
 * The tables' sizes are fixed by their type; an opcode left out would be
 * a zeroed entry, which the library's load refuses, as the kernel's
 * io_uring_optable_init() does at boot.
 */
__attribute__((constructor))
static void ar_optable_check(void)
{
	for (unsigned op = 0; op < AR_OP_NR; op++) {
		const struct ar_issue_def *def = &ar_issue_defs[op];

		if (def->prep && ar_cold_defs[op].name &&
		    (def->issue || def->prep_fails))
			continue;
		fprintf(stderr, "anyring: opcode %u has no table entry\n", op);
		abort();
	}
}
