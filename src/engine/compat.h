/* SPDX-License-Identifier: MIT */
/*
 * compat.h - io_uring UAPI values newer than liburing 2.3's copy of
 * <linux/io_uring.h>. Values are the kernel's (include/uapi/linux/io_uring.h
 * as of 6.18); each is defined only when the header in use lacks it.
 */
#ifndef ANYRING_ENGINE_COMPAT_H
#define ANYRING_ENGINE_COMPAT_H

#include <liburing.h>

/* io_uring_setup(2) flags */
#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP		(1U << 14)	/* 6.5 */
#endif
#ifndef IORING_SETUP_REGISTERED_FD_ONLY
#define IORING_SETUP_REGISTERED_FD_ONLY	(1U << 15)	/* 6.5 */
#endif
#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY		(1U << 16)	/* 6.6 */
#endif
#ifndef IORING_SETUP_HYBRID_IOPOLL
#define IORING_SETUP_HYBRID_IOPOLL	(1U << 17)	/* 6.13 */
#endif
#ifndef IORING_CQE_F_SKIP
#define IORING_CQE_F_SKIP		(1U << 5)	/* 6.18: CQE_MIXED padding */
#define IORING_CQE_F_32			(1U << 15)	/* 6.18: a 32-byte CQE */
#endif
#ifndef IORING_SETUP_CQE_MIXED
#define IORING_SETUP_CQE_MIXED		(1U << 18)	/* 6.18 */
#endif

/* io_uring_enter(2) flags */
#ifndef IORING_ENTER_REGISTERED_RING
#define IORING_ENTER_REGISTERED_RING	(1U << 4)
#endif
#ifndef IORING_ENTER_ABS_TIMER
#define IORING_ENTER_ABS_TIMER		(1U << 5)	/* 6.12 */
#endif
#ifndef IORING_ENTER_EXT_ARG_REG
#define IORING_ENTER_EXT_ARG_REG	(1U << 6)	/* 6.13 */
#endif
#ifndef IORING_ENTER_NO_IOWAIT
#define IORING_ENTER_NO_IOWAIT		(1U << 7)	/* 6.15 */
#endif

/* io_uring_params.features */
#ifndef IORING_FEAT_REG_REG_RING
#define IORING_FEAT_REG_REG_RING	(1U << 13)
#endif
#ifndef IORING_FEAT_RECVSEND_BUNDLE
#define IORING_FEAT_RECVSEND_BUNDLE	(1U << 14)	/* 6.10 */
#endif
#ifndef IORING_FEAT_MIN_TIMEOUT
#define IORING_FEAT_MIN_TIMEOUT		(1U << 15)	/* 6.12 */
#endif
#ifndef IORING_FEAT_RW_ATTR
#define IORING_FEAT_RW_ATTR		(1U << 16)	/* 6.14 */
#endif
#ifndef IORING_FEAT_NO_IOWAIT
#define IORING_FEAT_NO_IOWAIT		(1U << 17)	/* 6.15 */
#endif

/* io_uring_register(2) opcodes past liburing 2.3's list */
#define AR_REGISTER_PBUF_STATUS		26
#define AR_REGISTER_NAPI		27
#define AR_UNREGISTER_NAPI		28
#define AR_REGISTER_CLOCK		29
#define AR_REGISTER_CLONE_BUFFERS	30
#define AR_REGISTER_SEND_MSG_RING	31
#define AR_REGISTER_ZCRX_IFQ		32
#define AR_REGISTER_RESIZE_RINGS	33
#define AR_REGISTER_MEM_REGION		34
#define AR_REGISTER_QUERY		35
#define AR_REGISTER_ZCRX_CTRL		36
#define AR_REGISTER_BPF_FILTER		37	/* after 6.18: unknown to it */

/* IORING_REGISTER_CLONE_BUFFERS flags */
#define AR_REGISTER_SRC_REGISTERED	(1U << 0)
#define AR_REGISTER_DST_REPLACE		(1U << 1)
#ifndef IORING_REGISTER_USE_REGISTERED_RING
#define IORING_REGISTER_USE_REGISTERED_RING (1U << 31)
#endif

/*
 * The EXT_ARG wait argument as of 6.12: the field liburing 2.3 calls pad
 * is min_wait_usec. Same size and layout as struct io_uring_getevents_arg.
 */
struct ar_getevents_arg {
	__u64	sigmask;
	__u32	sigmask_sz;
	__u32	min_wait_usec;
	__u64	ts;
};
_Static_assert(sizeof(struct ar_getevents_arg) ==
	       sizeof(struct io_uring_getevents_arg), "getevents_arg layout");

/*
 * IORING_REGISTER_SYNC_CANCEL's argument as of 6.18 (liburing 2.3's
 * struct io_uring_sync_cancel_reg has pad[4] where 6.18 has opcode, pad
 * and pad2).
 */
struct ar_sync_cancel_reg {
	__u64 addr;
	__s32 fd;
	__u32 flags;
	struct __kernel_timespec timeout;
	__u8 opcode;
	__u8 pad[7];
	__u64 pad2[3];
};

/*
 * IORING_REGISTER_PBUF_RING's argument as of 6.18: liburing 2.3 calls
 * flags pad (renamed in liburing 2.4). Read through this, never through
 * the header's names, so that any <liburing.h> from 2.3 on builds.
 */
struct ar_buf_reg {
	__u64 ring_addr;
	__u32 ring_entries;
	__u16 bgid;
	__u16 flags;
	__u32 min_left;		/* IOU_PBUF_RING_INC: a shorter rest is used up */
	__u32 resv[5];
};
_Static_assert(sizeof(struct ar_buf_reg) == sizeof(struct io_uring_buf_reg),
	       "buf_reg layout");

/*
 * io_uring_params' ring offsets as of 6.18: liburing 2.3 calls user_addr
 * resv2 (renamed in liburing 2.5); the addresses of NO_MMAP rings.
 */
struct ar_sqring_offsets {
	__u32 head, tail, ring_mask, ring_entries, flags, dropped, array, resv1;
	__u64 user_addr;
};
_Static_assert(sizeof(struct ar_sqring_offsets) == sizeof(struct io_sqring_offsets),
	       "sqring_offsets layout");

struct ar_cqring_offsets {
	__u32 head, tail, ring_mask, ring_entries, overflow, cqes, flags, resv1;
	__u64 user_addr;
};
_Static_assert(sizeof(struct ar_cqring_offsets) == sizeof(struct io_cqring_offsets),
	       "cqring_offsets layout");

/* IORING_REGISTER_PBUF_STATUS's argument (6.8) */
struct ar_buf_status {
	__u32 buf_group;	/* in */
	__u32 head;		/* out */
	__u32 resv[8];
};

/* IORING_REGISTER_CLONE_BUFFERS' argument (6.12; offsets 6.13) */
struct ar_clone_buffers {
	__u32 src_fd;
	__u32 flags;
	__u32 src_off;
	__u32 dst_off;
	__u32 nr;
	__u32 pad[3];
};

/* one registered wait argument (IORING_ENTER_EXT_ARG_REG, 6.13) */
struct ar_reg_wait {
	struct __kernel_timespec ts;
	__u32 min_wait_usec;
	__u32 flags;
	__u64 sigmask;
	__u32 sigmask_sz;
	__u32 pad[3];
	__u64 pad2[2];
};
_Static_assert(sizeof(struct ar_reg_wait) == 64, "reg_wait layout");

/* struct io_uring_mem_region_reg (IORING_REGISTER_MEM_REGION, 6.13) */
struct ar_mem_region_reg {
	__u64 region_uptr;	/* struct ar_region_desc * */
	__u64 flags;		/* AR_MEM_REGION_REG_WAIT_ARG */
	__u64 resv[2];
};
#define AR_MEM_REGION_REG_WAIT_ARG	1U

/* struct io_uring_region_desc */
struct ar_region_desc {
	__u64 user_addr;
	__u64 size;
	__u32 flags;		/* AR_MEM_REGION_TYPE_USER */
	__u32 id;
	__u64 mmap_offset;
	__u64 resv[4];
};
#define AR_MEM_REGION_TYPE_USER		1U

/* struct io_uring_reg_wait's flags: ts is set (IORING_REG_WAIT_TS) */
#define AR_REG_WAIT_TS			(1U << 0)
/* mmap offset of the parameter region (IORING_MAP_OFF_PARAM_REGION, 6.13) */
#define AR_MAP_OFF_PARAM_REGION		0x20000000ULL

/* mmap offset of a kernel-allocated buffer ring (IOU_PBUF_RING_MMAP, 6.4) */
#define AR_OFF_PBUF_RING		0x80000000ULL
#define AR_OFF_PBUF_SHIFT		16

/* opcodes past liburing 2.3's list (6.18's numbers) */
#define AR_OP_READ_MULTISHOT		49
#define AR_OP_WAITID			50
#define AR_OP_FUTEX_WAIT		51
#define AR_OP_FUTEX_WAKE		52
#define AR_OP_FUTEX_WAITV		53
#define AR_OP_FIXED_FD_INSTALL		54
#define AR_OP_FTRUNCATE			55
#define AR_OP_BIND			56
#define AR_OP_LISTEN			57
#define AR_OP_RECV_ZC			58
#define AR_OP_EPOLL_WAIT		59
#define AR_OP_READV_FIXED		60
#define AR_OP_WRITEV_FIXED		61
#define AR_OP_PIPE			62

/* The highest opcode number anyring knows a name for (IORING_OP_PIPE). */
#define AR_OP_LAST_KNOWN		62
/* ... which is also 6.18's last (IORING_OP_LAST - 1) */
#define AR_OP_LAST_KNOWN_6_18		62

#endif
