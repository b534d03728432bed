/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - the differential SQE fuzzer: one input is decoded into a batch
 * of at most FZ_MAX_SQES requests from a small, safe grammar (fuzz_decode.c),
 * made deterministic on the kernel by fuzz_order.c, run once per engine in
 * a fresh temp dir (fuzz_run.c) and the runs compared (fuzz_compare.c).
 *
 * Safety: every fd a request names is one the run opened (or -1, or a
 * number known to be closed), every path is a relative name from a fixed
 * set resolved against the run's own temp dir, every pointer is memory the
 * run owns (or NULL) with lengths bounded to it, or one of the bad
 * addresses of fuzz_bad.c: memory nothing else uses, which cannot be
 * accessed (or only read) past a known point.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <liburing.h>

#define FZ_MAX_SQES	16
#define FZ_REC_LEN	9	/* bytes per SQE in the input */
#define FZ_HDR_LEN	2	/* config, count */
#define FZ_MAX_CQES	64
#define FZ_MAX_SUBMITS	(FZ_MAX_SQES + 4)

/* the run's data buffers: FZ_NBUF of FZ_BUFSZ in one arena */
#define FZ_NBUF		8
#define FZ_BUFSZ	4096
#define FZ_ARENA	(FZ_NBUF * FZ_BUFSZ)
/*
 * With registered buffers, group FZ_INC_GROUP is an incremental buffer
 * ring (IOU_PBUF_RING_INC) of FZ_INC_NR buffers of FZ_INC_BSZ bytes at
 * arena buffer 7 + FZ_INC_OFF (fuzz_run.c; fuzz_net.c's groups name it)
 */
#define FZ_INC_GROUP	102
#define FZ_INC_NR	4
#define FZ_INC_BSZ	256
#define FZ_INC_OFF	3072
#define FZ_NIOV		1100	/* > UIO_MAXIOV, every entry valid */
#define FZ_NSLOTS	8	/* registered file table */
#define FZ_NTS		5	/* timespecs; index FZ_NTS means NULL */
#define FZ_PIPE_FILL	200	/* bytes in the pipe before the batch */
#define FZ_HANG_SEC	20	/* a run's CQEs that have not come by then
				   never will: the run failed */

/* res the comparison gives a valid fd */
#define FZ_RES_FD	INT32_MAX

/* the abstract operations of the grammar */
enum fz_op {
	FZ_NOP, FZ_READ, FZ_WRITE, FZ_READV, FZ_WRITEV, FZ_READ_FIXED,
	FZ_WRITE_FIXED, FZ_FSYNC, FZ_FALLOCATE, FZ_FADVISE, FZ_STATX,
	FZ_OPENAT, FZ_CLOSE, FZ_MKDIRAT, FZ_UNLINKAT, FZ_RENAMEAT,
	FZ_SYMLINKAT, FZ_LINKAT, FZ_TIMEOUT, FZ_TIMEOUT_REMOVE,
	FZ_LINK_TIMEOUT, FZ_ASYNC_CANCEL, FZ_FILES_UPDATE, FZ_INVALID,
	FZ_NR_BASE_OPS,		/* op bytes below FZ_NET_OP_BYTE: these */
	/* op bytes FZ_NET_OP_BYTE.. (fuzz_net.c): the socket-era opcodes */
	FZ_SEND = FZ_NR_BASE_OPS, FZ_RECV, FZ_POLL_ADD, FZ_SHUTDOWN,
	FZ_SOCKET, FZ_PROVIDE_BUFFERS, FZ_REMOVE_BUFFERS, FZ_FTRUNCATE,
	FZ_FSETXATTR, FZ_FGETXATTR, FZ_EPOLL_CTL, FZ_URING_CMD,
	FZ_ACCEPT, FZ_LISTEN, FZ_BIND, FZ_PIPE,
	/* op bytes 0xf0..0xfa: messages, connect, splice, epoll, ring, futex */
	FZ_SENDMSG, FZ_RECVMSG, FZ_SEND_ZC, FZ_CONNECT, FZ_SPLICE,
	FZ_EPOLL_WAIT, FZ_MSG_RING, FZ_FUTEX_WAIT, FZ_FUTEX_WAKE,
	FZ_FUTEX_WAITV, FZ_WAITID,
	/* op byte 0xfb: a SEND or RECV bundle, decoded as that op */
	FZ_BUNDLE,
	FZ_NR_OPS
};
#define FZ_NET_OP_BYTE	0xe0	/* 0xe0 .. 0xe0 + FZ_NR_NET_OPS - 1 (0xfb) */
#define FZ_NR_NET_OPS	(FZ_NR_OPS - FZ_NR_BASE_OPS)

/* the run's fd table, by index; FZ_FD_BAD is a number known to be closed */
enum fz_fd {
	FZ_FD_F0, FZ_FD_F1, FZ_FD_F2, FZ_FD_PIPE_R, FZ_FD_PIPE_W, FZ_FD_DIR,
	FZ_FD_NEG, FZ_FD_BAD, FZ_NR_FDS,
	/*
	 * fuzz_net.c's, named only by the new ops: a unix socketpair sa/sb
	 * holding data both ways, sc whose peer sd wrote and shut down (sc
	 * reads to EOF: never waits), loopback UDP sockets ua/ub (ua holds
	 * a datagram), an eventfd (count 1), an epoll fd, a loopback TCP
	 * listener tl with one connection queued (its client tc wrote and
	 * shut down), a TCP socket tu neither bound nor connected
	 */
	FZ_FD_SA = FZ_NR_FDS, FZ_FD_SB, FZ_FD_SC, FZ_FD_UA, FZ_FD_UB,
	FZ_FD_EV, FZ_FD_EP, FZ_FD_TL, FZ_FD_TU, FZ_FD_SD, FZ_FD_TC,
	/*
	 * an epoll fd whose only entry is the eventfd, level-triggered: its
	 * EPOLL_WAIT never waits; the ring's own fd (MSG_RING to itself),
	 * set by fuzz_run.c once the ring exists, closed by the ring's exit
	 */
	FZ_FD_EW, FZ_FD_RING,
	FZ_NR_ALL_FDS
};
#define FZ_NR_FILES	3	/* f0, f1, f2: the harness's regular files */

/* the poke: one field the op does not use for a pointer or an fd */
enum fz_poke {
	FZ_POKE_NONE, FZ_POKE_IOPRIO, FZ_POKE_PERSONALITY, FZ_POKE_BUF_INDEX,
	FZ_POKE_FILE_INDEX, FZ_POKE_LEN, FZ_POKE_OFF, FZ_POKE_RW_FLAGS,
};

/*
 * The bad addresses one pointer of a request may get instead of its good
 * one (fuzz_bad.c): the kinds of tests/diff/diff_uaccess.c's battery.
 * FZ_BAD_RDONLY holds the good object, read-only: a fault only where the
 * request writes it. FZ_BAD_LONG is a path of more than PATH_MAX bytes;
 * for any other object, the object with its last byte unmapped.
 */
enum fz_bad {
	FZ_BAD_NONE, FZ_BAD_NULL, FZ_BAD_ONE, FZ_BAD_PROT_NONE,
	FZ_BAD_UNMAPPED, FZ_BAD_STRADDLE, FZ_BAD_NONCANON, FZ_BAD_RDONLY,
	FZ_BAD_LONG, FZ_NR_BAD
};

/* which pointer of the request is bad (fz_sqe.bad_field) */
enum fz_bad_field {
	FZ_BF_BUF,	/* READ/WRITE(_FIXED) buffer, FILES_UPDATE fds,
			   timespec, STATX/OPENAT/MKDIRAT/UNLINKAT path,
			   RENAMEAT/LINKAT old path, SYMLINKAT target */
	FZ_BF_SECOND,	/* READV/WRITEV: one iov_base; STATX: statx
			   buffer; OPENAT (as OPENAT2): open_how;
			   RENAMEAT/LINKAT new path, SYMLINKAT link name */
};

/* one decoded request; which fields mean what depends on op */
struct fz_sqe {
	uint8_t op;		/* enum fz_op */
	uint8_t flags;		/* IOSQE_*, as given to the SQE */
	uint64_t ud;
	int fd;			/* enum fz_fd, or a slot with IOSQE_FIXED_FILE */
	int fd2;		/* rename/link: the new dirfd (enum fz_fd) */
	int name, name2;	/* indexes into fz_names */
	int buf;		/* arena buffer, -1 NULL */
	uint32_t boff;		/* offset into the arena (fixed ops: absolute) */
	uint32_t len;
	uint64_t off;
	uint32_t op_flags;	/* rw_flags, open flags, timeout flags, ... */
	uint32_t mode;
	int ts;			/* timespec index, FZ_NTS = NULL */
	uint32_t count;		/* TIMEOUT count */
	uint64_t target;	/* cancel/remove: the user_data looked for */
	int nr;			/* iovecs, files */
	int iov;		/* first iovec */
	int slot;		/* OPENAT direct / CLOSE slot, -1 none; FZ_NSLOTS+
				   ... out of range; -2 IORING_FILE_INDEX_ALLOC */
	int fu[4];		/* FILES_UPDATE fds (enum fz_fd, -2 SKIP) */
	int poke;		/* enum fz_poke */
	uint32_t poke_val;
	int bad;		/* enum fz_bad: a pointer replaced */
	int bad_field;		/* enum fz_bad_field: which one */
	unsigned bad_iov;	/* READV/WRITEV base: which entry */
	int openat2;		/* OPENAT sent as OPENAT2 (open_how) */
	/* set by fuzz_order.c */
	int nopped;		/* replaced by a NOP (a race on the kernel) */
	int excluded;		/* its CQE is not compared (a race) */
	int uncounted;		/* ends within its submit; CQE may be skipped */
	int park;		/* may wait on the empty pipe: the harness
				   cancels it once its feeders are done */
	uint32_t feeders;	/* SQEs (bits) that may still fill the pipe
				   for it: their CQEs come before the cancel */
	const char *why;	/* why nopped or excluded */
};

/* ring configuration, from the input's first byte */
struct fz_cfg {
	unsigned sq_entries;
	unsigned cq_entries;	/* 0: default */
	unsigned setup_flags;
	int reg_files;
	int reg_bufs;
	/*
	 * the batch runs in a forked child, on the ring and registered
	 * files its parent made (buffers and the incremental buffer ring
	 * registered by the child: per process on the user engine,
	 * docs/semantics.md D2); the parent waits, then exits the ring
	 */
	int fork;
	/*
	 * the ring is made disabled, given a registered wait region and
	 * enabled; the harness's waits go through it (IORING_ENTER_EXT_ARG_REG)
	 */
	int wait_reg;
	/*
	 * issue=inline on the ring (both engines): the submitting thread
	 * issues the whole batch, whose page-cache reads the user engine
	 * reads in one io_submit() (backend/batch.c), never shared with
	 * issue=spread's helper
	 */
	int issue_inline;
};

struct fz_batch {
	struct fz_cfg cfg;
	struct fz_sqe sqe[FZ_MAX_SQES];
	unsigned nr;
};

extern const char *const fz_names[];		/* relative names */
extern const unsigned fz_nr_names;
extern const char *const fz_link_targets[];	/* symlink contents */
extern const unsigned fz_nr_link_targets;
extern const char *const fz_op_names[];

/* does the request's prep fail to read its timespec (a bad pointer)? */
static inline int fz_ts_bad(const struct fz_sqe *s)
{
	return s->bad && s->bad != FZ_BAD_RDONLY;
}

/* fuzz_bad.c: the pool of bad addresses, the same for every run */
void fz_pool_reset(void);
uint64_t fz_pool_hash(void);
void *fz_bad_ptr(int bad, unsigned i, const void *good, size_t size);
const char *fz_bad_path(int bad, unsigned i, const char *good);
extern const char *const fz_bad_names[];

/* fuzz_decode.c */
void fz_decode(const uint8_t *data, size_t size, struct fz_batch *b);
/* fuzz_findings.c; fz_keep_findings: do not steer around them */
extern int fz_keep_findings;
void fz_avoid_findings(struct fz_batch *b);
/* fuzz_order.c: make the batch deterministic on the kernel */
void fz_order(struct fz_batch *b);
void fz_print_batch(const struct fz_batch *b);

/* what a run keeps of a CQE */
struct fz_cqe {
	uint64_t user_data;
	int32_t res;
	uint32_t flags;
};

/* one entry of the final state of the temp dir */
struct fz_entry {
	char path[32];
	mode_t mode;
	nlink_t nlink;
	off_t size;
	uint64_t hash;		/* content, or symlink target */
	uint64_t xhash;		/* extended attributes, names and values */
};
#define FZ_MAX_ENTRIES	64

struct fz_result {
	const char *engine;
	int init_ret;
	int reg_files_ret, reg_bufs_ret;
	int reg_pbuf_ret;		/* the incremental buffer ring (reg_bufs) */
	int wait_reg_ret;		/* the wait region and enable (wait_reg) */
	int policy_ret;			/* issue=inline set (issue_inline) */
	int submit[FZ_MAX_SUBMITS];
	unsigned nr_submit;
	unsigned queued;		/* SQEs handed to the engine */
	struct fz_cqe cqe[FZ_MAX_CQES];
	unsigned nr_cqe;
	int reap_err;			/* a wait error other than -ETIME */
	int hung;			/* CQEs missing after FZ_HANG_SEC */
	unsigned missing;		/* how many were missing then */
	unsigned cancels;		/* parked reads the harness cancelled */
	int extra_fds;			/* fds left after exit, OPENAT's closed */
	char extra_what[64];		/* what the first of them is */
	struct fz_entry ent[FZ_MAX_ENTRIES];
	unsigned nr_ent;
	uint64_t file_hash[FZ_NR_FILES];	/* f0..f2 through their fds */
	off_t file_size[FZ_NR_FILES];
	int pipe_bytes;
	uint64_t net_hash;		/* fuzz_net.c: sockets' queues, epoll */
	int made;			/* sockets and pipes requests made */
	uint64_t arena_hash;
	uint64_t pbuf_hash;		/* the incremental ring's entries */
	uint64_t pool_hash;		/* the bad pool's writable pages */
	long long usec;			/* how long the run took */
};

/* fuzz_net.c: the new ops and the files they work on */
int fz_is_net(const struct fz_sqe *s);
void fz_net_decode(struct fz_sqe *s, const uint8_t *p);
int fz_net_poke_ok(const struct fz_sqe *s, int field);
int fz_net_pointers(const struct fz_sqe *s);
int fz_net_inline(const struct fz_sqe *s);
int fz_net_returns_fd(const struct fz_sqe *s);
void fz_net_open(int *fd);
void fz_net_close(int *fd);
void fz_net_prep(const struct fz_sqe *s, unsigned i, const int *fd,
		 unsigned char *arena, struct io_uring_sqe *sqe);
uint64_t fz_net_hash(const int *fd);
void fz_net_print(const struct fz_sqe *s);

/* fuzz_run.c: run the batch on one engine */
void fz_run(const struct fz_batch *b, const char *engine,
	    struct fz_result *r);
/* fuzz_compare.c: 0 same, else prints both runs and returns 1 */
int fz_compare(const struct fz_batch *b, struct fz_result *a,
	       struct fz_result *c, int verbose);
uint64_t fz_hash(const void *p, size_t len, uint64_t h);

#endif
