/* SPDX-License-Identifier: MIT */
/*
 * fuzz_decode.c - input bytes to a batch. The input is a header of
 * FZ_HDR_LEN bytes (ring configuration, number of SQEs) and one record of
 * FZ_REC_LEN bytes per SQE:
 *
 *   op  flags  p0 p1 p2 p3 p4  poke  udsel
 *
 * op picks from enum fz_op (FZ_INVALID is opcode 255; bytes from
 * FZ_NET_OP_BYTE pick fuzz_net.c's ops, which no input stored before
 * them used), flags is
 * sqe->flags as is (bit 7 is invalid, BUFFER_SELECT is allowed), p0..p4
 * are the op's arguments, each mapped onto a small table of values (fds of
 * the run, names, lengths bounded by the buffers), poke puts a small
 * non-zero value in one field the op does not read as a pointer or an fd,
 * udsel sometimes repeats an earlier SQE's user_data. A short input is
 * padded with zeroes, so every byte string decodes to a valid batch.
 *
 * A poke byte with bit 7 set and no field (1 in 16) instead gives one
 * pointer of the request a bad address (fuzz_bad.c): its bits 3-5 pick
 * the kind, bit 6 which pointer (decode_bad()). Before the bad addresses
 * such a byte meant "no poke", and ops without a pointer still read it
 * so: inputs written then decode as they did unless one of their
 * pointer-taking requests had such a byte.
 */
#include <fcntl.h>
#include <string.h>
#include <linux/falloc.h>
#include <linux/fadvise.h>
#include <linux/fs.h>
#include "fuzz.h"

#ifndef RWF_NOWAIT
#define RWF_NOWAIT	0x00000008
#endif

const char *const fz_names[] = {
	"a", "b", "d", "d/x", "f0", "f1", "", "nodir/y",
};
const unsigned fz_nr_names = sizeof(fz_names) / sizeof(fz_names[0]);

/* never absolute, never "..": a symlink resolves inside the temp dir */
const char *const fz_link_targets[] = {
	"a", "f0", "d", "nodir", "d/x",
};
const unsigned fz_nr_link_targets =
	sizeof(fz_link_targets) / sizeof(fz_link_targets[0]);

const char *const fz_op_names[] = {
	"NOP", "READ", "WRITE", "READV", "WRITEV", "READ_FIXED",
	"WRITE_FIXED", "FSYNC", "FALLOCATE", "FADVISE", "STATX", "OPENAT",
	"CLOSE", "MKDIRAT", "UNLINKAT", "RENAMEAT", "SYMLINKAT", "LINKAT",
	"TIMEOUT", "TIMEOUT_REMOVE", "LINK_TIMEOUT", "ASYNC_CANCEL",
	"FILES_UPDATE", "INVALID(255)",
	"SEND", "RECV", "POLL_ADD", "SHUTDOWN", "SOCKET", "PROVIDE_BUFFERS",
	"REMOVE_BUFFERS", "FTRUNCATE", "FSETXATTR", "FGETXATTR", "EPOLL_CTL",
	"URING_CMD", "ACCEPT", "LISTEN", "BIND", "PIPE",
	"SENDMSG", "RECVMSG", "SEND_ZC", "CONNECT", "SPLICE", "EPOLL_WAIT",
	"MSG_RING", "FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_WAITV", "WAITID",
	"BUNDLE",
};

#define PICK(tab, byte)	((tab)[(byte) % (sizeof(tab) / sizeof((tab)[0]))])

static const uint64_t file_offs[] = { 0, 1, 100, 4096, 8191, 12288, -1ULL, 512 };
static const uint32_t rw_flags[] = {
	0, 0, 0, RWF_NOWAIT, RWF_DSYNC, RWF_APPEND, RWF_HIPRI, 1U << 30,
};
static const int iov_nrs[] = { 1, 2, 3, 4, 0, 8, 1024, 1025 };
static const uint32_t fsync_flags[] = { 0, 0, IORING_FSYNC_DATASYNC, 1U << 10 };
static const uint32_t falloc_modes[] = {
	0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	FALLOC_FL_ZERO_RANGE, FALLOC_FL_PUNCH_HOLE, 0x100,
};
static const uint32_t advices[] = {
	POSIX_FADV_NORMAL, POSIX_FADV_RANDOM, POSIX_FADV_SEQUENTIAL,
	POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE, 99,
};
static const uint32_t statx_flags[] = {
	0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, AT_STATX_DONT_SYNC, 0x80000000,
};
static const uint32_t statx_masks[] = {
	STATX_BASIC_STATS, STATX_ALL, 0, STATX_SIZE, 0x80000000U,
};
static const uint32_t open_modes[] = { 0644, 0, 0755, 0600 };
static const uint32_t unlink_flags[] = { 0, 0, AT_REMOVEDIR, 0x1000 };
static const uint32_t rename_flags[] = {
	0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE, 1U << 10,
};
static const uint32_t link_flags[] = { 0, 0, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH, 1 };
static const uint32_t timeout_flags[] = {
	0, 0, IORING_TIMEOUT_ETIME_SUCCESS, IORING_TIMEOUT_ABS,
	IORING_TIMEOUT_ABS | IORING_TIMEOUT_BOOTTIME,
	IORING_TIMEOUT_REALTIME, 1U << 20,
};
static const uint32_t remove_flags[] = {
	0, 0, IORING_TIMEOUT_UPDATE, IORING_TIMEOUT_UPDATE | IORING_TIMEOUT_ABS,
	IORING_LINK_TIMEOUT_UPDATE, 1U << 20,
};
static const uint32_t ltimeout_flags[] = {
	0, 0, IORING_TIMEOUT_ETIME_SUCCESS, IORING_TIMEOUT_ABS, 1U << 20,
};
static const uint32_t cancel_flags[] = {
	0, 0, IORING_ASYNC_CANCEL_ALL, IORING_ASYNC_CANCEL_ANY,
	IORING_ASYNC_CANCEL_FD, IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL,
	IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_FD_FIXED,
	IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL, 1U << 20,
};
/* the ring: SQ size, then taskrun mode */
static const unsigned sq_sizes[] = { 16, 32, 8, 4 };
static const unsigned taskrun[] = {
	0, IORING_SETUP_COOP_TASKRUN,
	IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
};

struct cursor {
	const uint8_t *p;
	size_t left;
};

static uint8_t next(struct cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

/* a dirfd: mostly the temp dir, else a file, -1, a closed number, a pipe */
static int dirsel(uint8_t v)
{
	static const int tab[] = {
		FZ_FD_DIR, FZ_FD_DIR, FZ_FD_DIR, FZ_FD_DIR, FZ_FD_F0,
		FZ_FD_NEG, FZ_FD_BAD, FZ_FD_PIPE_R,
	};

	return PICK(tab, v);
}

/* an fd, or a slot (some out of range) when the SQE says FIXED_FILE */
static int fdsel(const struct fz_sqe *s, uint8_t v)
{
	if (s->flags & IOSQE_FIXED_FILE)
		return v % (FZ_NSLOTS + 2);
	return v % FZ_NR_FDS;
}

/* a buffer of the arena (or NULL), an offset and a length inside it */
static void bufsel(struct fz_sqe *s, uint8_t b, uint8_t o, uint8_t l)
{
	s->buf = b % (FZ_NBUF + 1);
	if (s->buf == FZ_NBUF)
		s->buf = -1;
	s->boff = (o % 64) * 64;
	s->len = (l % 65) * 64 + (l & 0x80 ? 7 : 0);
	if (s->buf < 0)
		s->boff = 0;
	if (s->boff + s->len > FZ_BUFSZ)
		s->len = FZ_BUFSZ - s->boff;
}

static void decode_rw(struct fz_sqe *s, const uint8_t *p)
{
	s->fd = fdsel(s, p[0]);
	s->off = PICK(file_offs, p[4]);
	s->op_flags = PICK(rw_flags, p[4] >> 3);
	switch (s->op) {
	case FZ_READ:
	case FZ_WRITE:
		bufsel(s, p[1], p[2], p[3]);
		break;
	case FZ_READV:
	case FZ_WRITEV:
		s->iov = p[1] % 8;
		s->nr = PICK(iov_nrs, p[2]);
		break;
	default:
		/*
		 * Fixed buffers: 0 is buffers 4-5, 1 is buffer 6 (when
		 * registered), 2 is out of the table. The address lies in
		 * buffers 3..7, so it may be outside the chosen one but is
		 * always the run's memory.
		 */
		s->nr = p[1] % 3;
		s->buf = 3;
		s->boff = 3 * FZ_BUFSZ + (p[2] % 128) * 128;
		s->len = (p[3] % 129) * 64;
		if (s->boff + s->len > FZ_ARENA)
			s->len = FZ_ARENA - s->boff;
		break;
	}
}

static void decode_one(struct fz_sqe *s, const uint8_t *p)
{
	switch (s->op) {
	case FZ_READ:
	case FZ_WRITE:
	case FZ_READV:
	case FZ_WRITEV:
	case FZ_READ_FIXED:
	case FZ_WRITE_FIXED:
		decode_rw(s, p);
		break;
	case FZ_FSYNC:
		s->fd = fdsel(s, p[0]);
		s->op_flags = PICK(fsync_flags, p[1]);
		s->off = p[2] & 1 ? 4096 : 0;
		s->len = p[3] & 1 ? 100 : 0;
		break;
	case FZ_FALLOCATE:
		s->fd = fdsel(s, p[0]);
		s->mode = PICK(falloc_modes, p[1]);
		s->off = (p[2] % 17) * 1024;
		s->len = (p[3] % 17) * 1024;
		break;
	case FZ_FADVISE:
		s->fd = fdsel(s, p[0]);
		s->op_flags = PICK(advices, p[1]);
		s->off = (p[2] % 5) * 4096;
		s->len = (p[3] % 5) * 4096;
		break;
	case FZ_STATX:
		s->fd = dirsel(p[0]);
		s->name = p[1] % fz_nr_names;
		s->op_flags = PICK(statx_flags, p[2]);
		s->mode = PICK(statx_masks, p[3]);
		break;
	case FZ_OPENAT:
		s->fd = dirsel(p[0]);
		s->name = p[1] % fz_nr_names;
		s->op_flags = (p[2] & 3) |
			(p[2] & 0x04 ? O_CREAT : 0) | (p[2] & 0x08 ? O_EXCL : 0) |
			(p[2] & 0x10 ? O_TRUNC : 0) |
			(p[2] & 0x20 ? O_DIRECTORY : 0) |
			(p[2] & 0x40 ? O_NOFOLLOW : 0) |
			(p[2] & 0x80 ? O_APPEND : 0);
		s->mode = PICK(open_modes, p[3]);
		/* direct: a slot, or IORING_FILE_INDEX_ALLOC */
		s->slot = p[4] < 0xa0 ? -1 : (p[4] % 10 == 9 ? -2 : p[4] % 10);
		break;
	case FZ_CLOSE:
		s->slot = p[0] % (FZ_NSLOTS + 2);
		break;
	case FZ_MKDIRAT:
		s->fd = dirsel(p[0]);
		s->name = p[1] % fz_nr_names;
		s->mode = p[2] & 1 ? 0700 : 0755;
		break;
	case FZ_UNLINKAT:
		s->fd = dirsel(p[0]);
		s->name = p[1] % fz_nr_names;
		s->op_flags = PICK(unlink_flags, p[2]);
		break;
	case FZ_RENAMEAT:
	case FZ_LINKAT:
		s->fd = dirsel(p[0]);
		s->name = p[1] % fz_nr_names;
		s->fd2 = dirsel(p[2]);
		s->name2 = p[3] % fz_nr_names;
		s->op_flags = s->op == FZ_RENAMEAT ? PICK(rename_flags, p[4]) :
			PICK(link_flags, p[4]);
		break;
	case FZ_SYMLINKAT:
		s->name2 = p[0] % fz_nr_link_targets;
		s->fd = dirsel(p[1]);
		s->name = p[2] % fz_nr_names;
		break;
	case FZ_TIMEOUT:
		s->ts = p[0] % (FZ_NTS + 1);
		s->count = p[1] % 4;
		s->op_flags = PICK(timeout_flags, p[2]);
		break;
	case FZ_TIMEOUT_REMOVE:
		s->target = p[0] % (FZ_MAX_SQES + 1) + 1;
		s->op_flags = PICK(remove_flags, p[1]);
		s->ts = p[2] % (FZ_NTS + 1);
		break;
	case FZ_LINK_TIMEOUT:
		s->ts = p[0] % (FZ_NTS + 1);
		s->op_flags = PICK(ltimeout_flags, p[1]);
		break;
	case FZ_ASYNC_CANCEL:
		s->target = p[0] % (FZ_MAX_SQES + 1) + 1;
		s->op_flags = PICK(cancel_flags, p[1]);
		if (s->op_flags & IORING_ASYNC_CANCEL_FD_FIXED)
			s->fd = p[2] % (FZ_NSLOTS + 2);
		else
			s->fd = p[2] % FZ_NR_FDS;
		break;
	case FZ_FILES_UPDATE:
		s->slot = p[0] % 11 == 10 ? -2 : p[0] % 11;
		s->nr = p[1] % 5;
		s->fu[0] = (p[2] & 15) % 9;
		s->fu[1] = (p[2] >> 4) % 9;
		s->fu[2] = (p[3] & 15) % 9;
		s->fu[3] = (p[3] >> 4) % 9;
		break;
	default:
		if (fz_is_net(s))
			fz_net_decode(s, p);
		break;
	}
}

/* how many pointers the request has that may be made bad */
static int nr_pointers(const struct fz_sqe *s)
{
	switch (s->op) {
	case FZ_READ: case FZ_WRITE: case FZ_READ_FIXED: case FZ_WRITE_FIXED:
	case FZ_MKDIRAT: case FZ_UNLINKAT: case FZ_TIMEOUT:
	case FZ_LINK_TIMEOUT: case FZ_FILES_UPDATE:
		return 1;
	case FZ_READV: case FZ_WRITEV:
		/* the array, and a base when there is one to read */
		return s->nr > 0 && s->nr <= 1024 ? 2 : 1;
	case FZ_STATX: case FZ_OPENAT: case FZ_RENAMEAT: case FZ_LINKAT:
	case FZ_SYMLINKAT:
		return 2;
	case FZ_TIMEOUT_REMOVE:
		/* only an update reads a timespec */
		return s->op_flags & IORING_TIMEOUT_UPDATE_MASK ? 1 : 0;
	default:
		return fz_is_net(s) ? fz_net_pointers(s) : 0;
	}
}

/*
 * A bad address for one pointer: kind from bits 0-2 of v, which pointer
 * from bit 3. An OPENAT with a bad open_how is sent as OPENAT2, and so is
 * one with a bad path when bit 2 of p3 (free for OPENAT) is set; a
 * READV/WRITEV's bad base is entry p3 (free for them) modulo nr.
 */
static void decode_bad(struct fz_sqe *s, unsigned v, const uint8_t *p)
{
	int n = nr_pointers(s);

	if (!n)
		return;
	s->bad = FZ_BAD_NULL + (v & 7);
	s->bad_field = (v >> 3) % n;
	if (s->op == FZ_OPENAT)
		s->openat2 = s->bad_field == FZ_BF_SECOND || (p[3] & 4);
	if ((s->op == FZ_READV || s->op == FZ_WRITEV) &&
	    s->bad_field == FZ_BF_SECOND)
		s->bad_iov = p[3] % s->nr;
	/*
	 * A statx buffer that faults part way: statx(2) writes the struct up
	 * to the fault, the run's own inode and times with it, so the pool
	 * differs between two kernel runs (FUZZ_ENGINES=kernel,kernel): a
	 * buffer that faults at once instead.
	 */
	if (s->op == FZ_STATX && s->bad_field == FZ_BF_SECOND &&
	    (s->bad == FZ_BAD_STRADDLE || s->bad == FZ_BAD_LONG))
		s->bad = FZ_BAD_PROT_NONE;
	/*
	 * The same for PIPE's int[2]: both engines write it up to the
	 * fault, but the fds in it are numbered by each process's own open
	 * files (the user engine's epoll and eventfds among them), which CQEs
	 * are compared without.
	 */
	if (s->op == FZ_PIPE &&
	    (s->bad == FZ_BAD_STRADDLE || s->bad == FZ_BAD_LONG))
		s->bad = FZ_BAD_PROT_NONE;
}

/* the poke, only where the field is a value for this op */
static void decode_poke(struct fz_sqe *s, uint8_t poke, const uint8_t *p)
{
	int field = poke & 7;
	int ok;

	if (poke < 0x80)
		return;
	if (field == FZ_POKE_NONE) {
		decode_bad(s, (poke >> 3) & 15, p);
		return;
	}
	if (fz_is_net(s)) {
		if (fz_net_poke_ok(s, field)) {
			s->poke = field;
			s->poke_val = ((poke >> 3) & 15) + 1;
		}
		return;
	}
	switch (field) {
	case FZ_POKE_IOPRIO:
	case FZ_POKE_PERSONALITY:
		ok = 1;
		break;
	case FZ_POKE_BUF_INDEX:
		ok = s->op != FZ_READ_FIXED && s->op != FZ_WRITE_FIXED;
		break;
	case FZ_POKE_FILE_INDEX:
		/* OPENAT and CLOSE read it as a slot: set on their own */
		ok = s->op != FZ_OPENAT && s->op != FZ_CLOSE;
		break;
	case FZ_POKE_LEN:
		/* a count or a mode for these, never a length of memory */
		ok = s->op == FZ_NOP || s->op == FZ_FSYNC ||
			s->op == FZ_TIMEOUT || s->op == FZ_UNLINKAT ||
			s->op == FZ_CLOSE || s->op == FZ_ASYNC_CANCEL ||
			s->op == FZ_TIMEOUT_REMOVE ||
			s->op == FZ_LINK_TIMEOUT || s->op == FZ_INVALID;
		break;
	case FZ_POKE_OFF:
		/* never where off is addr2 (a pointer) or a file offset */
		ok = s->op == FZ_NOP || s->op == FZ_CLOSE ||
			s->op == FZ_MKDIRAT || s->op == FZ_UNLINKAT ||
			s->op == FZ_ASYNC_CANCEL || s->op == FZ_LINK_TIMEOUT ||
			s->op == FZ_INVALID;
		break;
	case FZ_POKE_RW_FLAGS:
		ok = s->op == FZ_NOP;
		break;
	default:
		ok = 0;
		break;
	}
	if (!ok)
		return;
	s->poke = field;
	s->poke_val = ((poke >> 3) & 15) + 1;
}

void fz_decode(const uint8_t *data, size_t size, struct fz_batch *b)
{
	struct cursor c = { data, size };
	uint8_t cfg, rec[FZ_REC_LEN];
	unsigned i, j;

	memset(b, 0, sizeof(*b));
	cfg = next(&c);
	b->cfg.sq_entries = sq_sizes[cfg & 3];
	if (cfg & 4)
		b->cfg.cq_entries = b->cfg.sq_entries;
	b->cfg.reg_files = !!(cfg & 8);
	b->cfg.reg_bufs = !!(cfg & 16);
	if (cfg & 32)
		b->cfg.setup_flags |= IORING_SETUP_SUBMIT_ALL;
	b->cfg.setup_flags |= taskrun[cfg >> 6];
	cfg = next(&c);
	b->nr = cfg % FZ_MAX_SQES + 1;
	/* the count byte's high nibble 3: in a forked child (1 in 16) */
	b->cfg.fork = (cfg >> 4) == 3;
	/* ... 5: waits through a registered wait region (1 in 16) */
	b->cfg.wait_reg = (cfg >> 4) == 5;
	/* ... 7: issue=inline, the batch's reads read together (1 in 16) */
	b->cfg.issue_inline = (cfg >> 4) == 7;

	for (i = 0; i < b->nr; i++) {
		struct fz_sqe *s = &b->sqe[i];

		for (j = 0; j < FZ_REC_LEN; j++)
			rec[j] = next(&c);
		/* 0xe0..: the new ops; no stored input has such a byte */
		if (rec[0] >= FZ_NET_OP_BYTE &&
		    rec[0] < FZ_NET_OP_BYTE + FZ_NR_NET_OPS)
			s->op = FZ_NR_BASE_OPS + rec[0] - FZ_NET_OP_BYTE;
		else
			s->op = rec[0] % FZ_NR_BASE_OPS;
		s->flags = rec[1];
		s->ud = i + 1;
		/* 1 in 4 with the top bits set: an earlier SQE's user_data */
		if (i && (rec[8] & 0xc0) == 0xc0)
			s->ud = b->sqe[(rec[8] & 0x3f) % i].ud;
		s->fd = FZ_FD_NEG;
		s->fd2 = FZ_FD_DIR;
		s->buf = -1;
		s->slot = -1;
		s->ts = 1;
		decode_one(s, rec + 2);
		decode_poke(s, rec[7], rec + 2);
	}
	fz_avoid_findings(b);
}
