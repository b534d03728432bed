/* SPDX-License-Identifier: MIT */
/*
 * diff_table.c - the one table of scenario families, in the order they
 * run: the simplest operations first, so a broken engine shows there.
 */
#include "harness.h"

const struct scenario *const diff_families[] = {
	diff_nop,
	diff_submit_errors,
	diff_rw,
	diff_rsrc,
	diff_fs,
	diff_fs_names,
	diff_xattr,
	diff_splice,
	diff_misc,
	diff_kbuf,
	diff_net,
	diff_link,
	diff_opdef,
	diff_drain,
	diff_timeout,
	diff_cancel,
	diff_poll,
	diff_setup_flags,
	diff_register,
	diff_complete,
	diff_msg_ring,
	diff_futex,
	diff_waitid,
	NULL,
};
