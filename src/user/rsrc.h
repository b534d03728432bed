/* SPDX-License-Identifier: MIT */
/*
 * rsrc.h - registered files and buffers (rsrc.c).
 */
#ifndef ANYRING_USER_RSRC_H
#define ANYRING_USER_RSRC_H

#include "user/types.h"

/* rsrc.c */
struct ar_rsrc_node *ar_rsrc_get_file(struct ar_uctx *ctx, unsigned index);
struct ar_rsrc_node *ar_rsrc_get_buf(struct ar_uctx *ctx, unsigned index);
void ar_rsrc_put(struct ar_uctx *ctx, struct ar_rsrc_node *node);
void ar_rsrc_free_all(struct ar_uctx *ctx);
int ar_rsrc_register_files(struct ar_uctx *ctx, const int *fds,
			   const __u64 *tags, unsigned nr, bool sparse);
int ar_rsrc_register_bufs(struct ar_uctx *ctx, const struct iovec *iovs,
			  const __u64 *tags, unsigned nr, bool sparse);
int ar_rsrc_unregister(struct ar_uctx *ctx, bool files);
int ar_rsrc_update(struct ar_uctx *ctx, bool files, unsigned off,
		   const void *data, const __u64 *tags, unsigned nr);
int ar_rsrc_install_file(struct ar_uctx *ctx, int fd, unsigned slot,
			 bool alloc);
int ar_rsrc_close_file(struct ar_uctx *ctx, unsigned slot);
int ar_rsrc_alloc_range(struct ar_uctx *ctx, unsigned off, unsigned len);

/* the FILES_UPDATE opcode */
int ar_files_update_prep(struct ar_ureq *req, const struct io_uring_sqe *sqe);
int ar_files_update_issue(struct ar_ureq *req, unsigned issue_flags);

/* IORING_REGISTER_CLONE_BUFFERS from src's table into ctx's */
int ar_rsrc_clone_bufs(struct ar_uctx *ctx, struct ar_uctx *src,
		       struct ar_clone_buffers *arg);

#endif
