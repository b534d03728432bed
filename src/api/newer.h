/* SPDX-License-Identifier: MIT */
/*
 * newer.h - the prototypes of the functions liburing added after 2.3
 * (its 2.4 to 2.15 map nodes), for the sources that define them: a
 * liburing 2.3 <liburing.h> has none of them, a newer one some. Each is
 * the same as liburing 2.15's declaration, so both can be in scope. The
 * argument structs a 2.3 header lacks are only named here, never used:
 * the library reads them through its own copies (engine/compat.h).
 */
#ifndef ANYRING_API_NEWER_H
#define ANYRING_API_NEWER_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <liburing.h>

struct io_uring_napi;
struct io_uring_clock_register;
struct io_uring_reg_wait;
struct io_uring_mem_region_reg;
struct io_uring_zcrx_ifq_reg;
struct zcrx_ctrl;
struct io_uring_bpf;
struct io_uring_query_hdr;

/* LIBURING_2.4 */
int io_uring_major_version(void);
int io_uring_minor_version(void);
bool io_uring_check_version(int major, int minor);
int io_uring_close_ring_fd(struct io_uring *ring);
struct io_uring_buf_ring *io_uring_setup_buf_ring(struct io_uring *ring,
						  unsigned int nentries,
						  int bgid, unsigned int flags,
						  int *err);
int io_uring_free_buf_ring(struct io_uring *ring, struct io_uring_buf_ring *br,
			   unsigned int nentries, int bgid);
/* LIBURING_2.5 */
int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring,
			    struct io_uring_params *p, void *buf,
			    size_t buf_size);
/* LIBURING_2.6 */
int io_uring_buf_ring_head(struct io_uring *ring, int buf_group,
			   uint16_t *head);
int io_uring_register_napi(struct io_uring *ring, struct io_uring_napi *napi);
int io_uring_unregister_napi(struct io_uring *ring,
			     struct io_uring_napi *napi);
/* LIBURING_2.8 */
int io_uring_register_clock(struct io_uring *ring,
			    struct io_uring_clock_register *arg);
int io_uring_submit_and_wait_min_timeout(struct io_uring *ring,
					 struct io_uring_cqe **cqe_ptr,
					 unsigned wait_nr,
					 struct __kernel_timespec *ts,
					 unsigned min_wait,
					 sigset_t *sigmask);
int io_uring_wait_cqes_min_timeout(struct io_uring *ring,
				   struct io_uring_cqe **cqe_ptr,
				   unsigned wait_nr,
				   struct __kernel_timespec *ts,
				   unsigned int min_ts_usec,
				   sigset_t *sigmask);
int io_uring_clone_buffers(struct io_uring *dst, struct io_uring *src);
/* LIBURING_2.9 */
int io_uring_resize_rings(struct io_uring *ring, struct io_uring_params *p);
int io_uring_register_wait_reg(struct io_uring *ring,
			       struct io_uring_reg_wait *reg, int nr);
int io_uring_submit_and_wait_reg(struct io_uring *ring,
				 struct io_uring_cqe **cqe_ptr, unsigned wait_nr,
				 int reg_index);
int io_uring_clone_buffers_offset(struct io_uring *dst, struct io_uring *src,
				  unsigned int dst_off, unsigned int src_off,
				  unsigned int nr, unsigned int flags);
int io_uring_register_region(struct io_uring *ring,
			     struct io_uring_mem_region_reg *reg);
/* LIBURING_2.10 */
int io_uring_register_ifq(struct io_uring *ring,
			  struct io_uring_zcrx_ifq_reg *reg);
int io_uring_set_iowait(struct io_uring *ring, bool enable_iowait);
int __io_uring_clone_buffers(struct io_uring *dst, struct io_uring *src,
			     unsigned int flags);
int __io_uring_clone_buffers_offset(struct io_uring *dst, struct io_uring *src,
				    unsigned int dst_off, unsigned int src_off,
				    unsigned int nr, unsigned int flags);
/* LIBURING_2.11 */
ssize_t io_uring_memory_size(unsigned entries, unsigned flags);
ssize_t io_uring_memory_size_params(unsigned entries,
				    struct io_uring_params *p);
int io_uring_register_sync_msg(struct io_uring_sqe *sqe);
/* LIBURING_2.15 */
int io_uring_register_bpf_filter(struct io_uring *ring,
				 struct io_uring_bpf *bpf);
int io_uring_register_bpf_filter_task(struct io_uring_bpf *bpf);
int io_uring_register_zcrx_ctrl(struct io_uring *ring, struct zcrx_ctrl *ctrl);
int io_uring_register_query(struct io_uring_query_hdr *query);

#endif
