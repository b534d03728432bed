/* SPDX-License-Identifier: MIT */
/*
 * opdef.c - the user engine's opcode table, as the kernel's opdef.c: one
 * entry per IORING_OP_*, with its prep and issue handlers and the flags
 * the core acts on. An entry without a prep is an opcode this engine does
 * not implement: its SQEs fail with -EINVAL, as the kernel answers an
 * opcode it does not know, and the probe does not list it.
 * nofail_res marks the opcodes whose error results the kernel posts
 * without failing the request (the link goes on; CQE_SKIP_SUCCESS still
 * skips): measured on 6.18.
 */
#include "uring.h"
#include "fs.h"
#include "ops.h"

#define OP(code, nm) [IORING_OP_##code] = { .name = nm

const struct ar_opdef ar_opdefs[] = {
	OP(NOP, "NOP"),
		.prep = ar_nop_prep, .issue = ar_nop_issue, .iopoll = 1,
		.prep_inits = 1 },
	OP(READV, "READV"),
		.prep = ar_readv_prep, .issue = ar_read_issue, .needs_file = 1,
		.pollin = 1, .buffer_select = 1, .iopoll = 1, .ioprio = 1 },
	OP(WRITEV, "WRITEV"),
		.prep = ar_readv_prep, .issue = ar_write_issue, .needs_file = 1,
		.pollout = 1, .iopoll = 1, .ioprio = 1 },
	OP(FSYNC, "FSYNC"),
		.prep = ar_fsync_prep, .issue = ar_fsync_issue, .needs_file = 1,
		.nofail_res = 1 },
	OP(READ_FIXED, "READ_FIXED"),
		.prep = ar_rw_fixed_prep, .issue = ar_read_issue,
		.needs_file = 1, .pollin = 1, .iopoll = 1, .ioprio = 1 },
	OP(WRITE_FIXED, "WRITE_FIXED"),
		.prep = ar_rw_fixed_prep, .issue = ar_write_issue,
		.needs_file = 1, .pollout = 1, .iopoll = 1, .ioprio = 1 },
	OP(POLL_ADD, "POLL_ADD") },
	OP(POLL_REMOVE, "POLL_REMOVE") },
	OP(SYNC_FILE_RANGE, "SYNC_FILE_RANGE"),
		.prep = ar_sync_file_range_prep,
		.issue = ar_sync_file_range_issue, .needs_file = 1,
		.nofail_res = 1 },
	OP(SENDMSG, "SENDMSG") },
	OP(RECVMSG, "RECVMSG") },
	OP(TIMEOUT, "TIMEOUT"),
		.prep = ar_timeout_prep, .issue = ar_timeout_issue },
	OP(TIMEOUT_REMOVE, "TIMEOUT_REMOVE"),
		.prep = ar_timeout_remove_prep, .issue = ar_timeout_remove_issue },
	OP(ACCEPT, "ACCEPT") },
	OP(ASYNC_CANCEL, "ASYNC_CANCEL"),
		.prep = ar_async_cancel_prep, .issue = ar_async_cancel_issue },
	OP(LINK_TIMEOUT, "LINK_TIMEOUT"),
		.prep = ar_link_timeout_prep, .issue = ar_link_timeout_issue },
	OP(CONNECT, "CONNECT") },
	OP(FALLOCATE, "FALLOCATE"),
		.prep = ar_fallocate_prep, .issue = ar_fallocate_issue,
		.needs_file = 1,
		.nofail_res = 1 },
	OP(OPENAT, "OPENAT"),
		.prep = ar_openat_prep, .issue = ar_openat_issue },
	OP(CLOSE, "CLOSE"),
		.prep = ar_close_prep, .issue = ar_close_issue },
	OP(FILES_UPDATE, "FILES_UPDATE"),
		.prep = ar_files_update_prep, .issue = ar_files_update_issue,
		.iopoll = 1 },
	OP(STATX, "STATX"),
		.prep = ar_statx_prep, .issue = ar_statx_issue,
		.nofail_res = 1 },
	OP(READ, "READ"),
		.prep = ar_read_prep, .issue = ar_read_issue, .needs_file = 1,
		.pollin = 1, .buffer_select = 1, .iopoll = 1, .ioprio = 1 },
	OP(WRITE, "WRITE"),
		.prep = ar_read_prep, .issue = ar_write_issue, .needs_file = 1,
		.pollout = 1, .iopoll = 1, .ioprio = 1 },
	OP(FADVISE, "FADVISE"),
		.prep = ar_fadvise_prep, .issue = ar_fadvise_issue,
		.needs_file = 1 },
	OP(MADVISE, "MADVISE"),
		.prep = ar_madvise_prep, .issue = ar_madvise_issue,
		.nofail_res = 1 },
	OP(SEND, "SEND") },
	OP(RECV, "RECV") },
	OP(OPENAT2, "OPENAT2"),
		.prep = ar_openat2_prep, .issue = ar_openat2_issue },
	OP(EPOLL_CTL, "EPOLL_CTL") },
	OP(SPLICE, "SPLICE") },
	OP(PROVIDE_BUFFERS, "PROVIDE_BUFFERS") },
	OP(REMOVE_BUFFERS, "REMOVE_BUFFERS") },
	OP(TEE, "TEE") },
	OP(SHUTDOWN, "SHUTDOWN") },
	OP(RENAMEAT, "RENAMEAT"),
		.prep = ar_renameat_prep, .issue = ar_renameat_issue,
		.nofail_res = 1 },
	OP(UNLINKAT, "UNLINKAT"),
		.prep = ar_unlinkat_prep, .issue = ar_unlinkat_issue,
		.nofail_res = 1 },
	OP(MKDIRAT, "MKDIRAT"),
		.prep = ar_mkdirat_prep, .issue = ar_mkdirat_issue,
		.nofail_res = 1 },
	OP(SYMLINKAT, "SYMLINKAT"),
		.prep = ar_symlinkat_prep, .issue = ar_symlinkat_issue,
		.nofail_res = 1 },
	OP(LINKAT, "LINKAT"),
		.prep = ar_linkat_prep, .issue = ar_linkat_issue,
		.nofail_res = 1 },
};

const unsigned ar_nr_opdefs = sizeof(ar_opdefs) / sizeof(ar_opdefs[0]);
