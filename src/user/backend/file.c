/* SPDX-License-Identifier: MIT */
/*
 * file.c - which backend serves an fd.
 *
 * Device backends (simdev) claim their own fds, exactly: while any device
 * lives, each is asked first. Every other fd is looked up in a
 * process-wide cache of kinds (buffered, direct, pollable), filled by
 * one fstat and one F_GETFL at the first use of the fd. The kernel looks
 * at the file itself on every request; a cache cannot see the
 * application close an fd and open another under the same number, so
 * it is trusted only where any answer gives the same result: the inline
 * attempt (a non-blocking read or write, or AIO for a direct file). Where
 * the kind of file decides what happens next, the fd is looked at again
 * (ar_req_file_recheck): "would block" (wait for readiness, or a
 * worker), a partial transfer (a regular file's rest goes to a worker),
 * a punt (io-wq's class) and a worker's issue (block, or poll). Those
 * paths made the same system call before the cache existed (a send or
 * receive whose own call said "would block" has shown a socket: no look
 * again there, submit.c). Entries also expire: each thread starts a new
 * generation every AR_FILE_RECHECK lookups, or AR_FILE_PER_FD per fd
 * the cache holds where that is more, and entries of an older one are
 * resolved again. The second bound is for programs with many fds: with
 * 1000, each was probed again about every fourth lookup.
 *
 * What a stale entry can still do is take another file for an O_DIRECT
 * one until it expires: the I/O then goes to AIO, which reads and writes
 * a regular file correctly, but on a pipe or socket blocks the
 * submitting thread until the transfer can be done. The per-ring
 * O_DIRECT cache this replaces had the same window.
 *
 * An O_DIRECT file is also asked whether IOPOLL may read and write it,
 * once per device (ar_file_iopoll_bits()).
 *
 * A registered file is resolved once, at registration, on the engine's
 * own duplicate of the fd, which nobody else can close: its answer is
 * kept in the rsrc node.
 *
 * While a submitting thread queues one submit's requests (ar_file_batch_
 * begin/end), a look at an fd is taken once: the requests after it that
 * look at the same fd again (a batch of writes to one file, each punted
 * to io-wq) take its answer. The kernel too resolves each request's file
 * in its own turn of one io_uring_enter; an fd closed and its number
 * reused by another thread during that call (or by a CLOSE and an
 * OPENAT of the batch that io-wq runs meanwhile, IOSQE_ASYNC) may be
 * seen by any of them, here by none: what the look decides (wait for
 * readiness or a worker, IOPOLL's refusal) is then the old file's. A
 * request of the batch other than a read or write (a CLOSE) ends what
 * the batch has seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "user/backend.h"

#define AR_FILE_CHUNK_SHIFT	12
#define AR_FILE_CHUNK		(1U << AR_FILE_CHUNK_SHIFT)
#define AR_FILE_CHUNKS		256	/* fds below 1M are cached */
#define AR_FILE_RECHECK		4096
#define AR_FILE_PER_FD		16	/* lookups a generation, per cached fd */
#define AR_FILE_DEVICES_MAX	4

/* an entry: the kind and AR_FILE_REG in the low bits, the generation above */
enum { AR_FILE_NONE, AR_FILE_BUFFERED, AR_FILE_DIRECT, AR_FILE_POLLABLE };
#define AR_FILE_TYPE_MASK	3U
#define AR_FILE_REG		4U	/* a regular file */
#define AR_FILE_WR_BLOCKS	8U	/* a buffered write refused RWF_NOWAIT */
#define AR_FILE_AIO_POLL	16U	/* a pipe, FIFO, socket or character device */
#define AR_FILE_IOPOLL_RD	32U	/* O_DIRECT: IOPOLL may read it */
#define AR_FILE_IOPOLL_WR	64U	/* ... and write it */
#define AR_FILE_KIND_BITS	7
#define AR_FILE_KIND_MASK	((1U << AR_FILE_KIND_BITS) - 1)
#define AR_FILE_GEN_MASK	(0xffffffffU >> AR_FILE_KIND_BITS)

static const struct ar_backend *const ar_file_kinds[] = {
	[AR_FILE_NONE] = &ar_buffered_backend,
	[AR_FILE_BUFFERED] = &ar_buffered_backend,
	[AR_FILE_DIRECT] = &ar_direct_backend,
	[AR_FILE_POLLABLE] = &ar_pollable_backend,
};

struct ar_file_chunk {
	_Atomic(uint32_t) ent[AR_FILE_CHUNK];
};

static _Atomic(struct ar_file_chunk *) ar_file_table[AR_FILE_CHUNKS];
static _Atomic(unsigned) ar_file_gen = 1;
static _Atomic(unsigned) ar_file_nr_cached;	/* slots ever filled */
static __thread unsigned ar_file_lookups;

/* the submitting thread's last look in the batch it queues (backend.h) */
__thread struct ar_file_seen ar_file_seen;

static const struct ar_backend *ar_devices[AR_FILE_DEVICES_MAX];
static unsigned ar_nr_devices;
static atomic_int ar_devices_live;

int ar_backend_register_device(const struct ar_backend *be)
{
	if (ar_nr_devices == AR_FILE_DEVICES_MAX)
		return -ENOSPC;
	ar_devices[ar_nr_devices++] = be;
	return 0;
}

void ar_backend_devices_live(int delta)
{
	/* relaxed: a device is made before its fd is used (the application's order) */
	atomic_fetch_add_explicit(&ar_devices_live, delta, memory_order_relaxed);
}

/* the entry of fd, or NULL when fd is outside the cache */
static _Atomic(uint32_t) *ar_file_slot(int fd, bool create)
{
	unsigned i = (unsigned)fd >> AR_FILE_CHUNK_SHIFT;
	struct ar_file_chunk *c, *expect = NULL;

	if (fd < 0 || i >= AR_FILE_CHUNKS)
		return NULL;
	/* acquire pairs with the release of the CAS below: the chunk is zeroed */
	c = atomic_load_explicit(&ar_file_table[i], memory_order_acquire);
	if (!c && create) {
		c = calloc(1, sizeof(*c));
		if (c && !atomic_compare_exchange_strong_explicit(&ar_file_table[i],
				&expect, c, memory_order_acq_rel, memory_order_acquire)) {
			free(c);	/* another thread installed one first */
			c = expect;
		}
	}
	return c ? &c->ent[fd & (AR_FILE_CHUNK - 1)] : NULL;
}

/*
 * io-wq's hash of an inode: 64 buckets (the kernel's IO_WQ_HASH_ORDER),
 * inodes sharing one are serialised together, as there. Plus one: 0 is
 * "not known".
 */
static __u8 ar_file_ihash(const struct stat *st)
{
	uint64_t v = ((uint64_t)st->st_dev << 32) ^ (uint64_t)st->st_ino;

	return (__u8)(((v * 0x9e3779b97f4a7c15ULL) >> 58) + 1);
}

#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC	0xF2F52010
#endif
#ifndef ZONEFS_MAGIC
#define ZONEFS_MAGIC		0x5a4f4653
#endif

/*
 * May an IOPOLL ring read (AR_FILE_IOPOLL_RD) and write (_WR) an
 * O_DIRECT file of this device (st_dev; a block device's st_rdev)? The
 * kernel refuses IOPOLL on a file without ->iopoll (io_rw_init_file():
 * -EOPNOTSUPP). Of 6.18's file systems with it, this knows ext4, XFS,
 * F2FS and zonefs (iocb_bio_iopoll); others (tmpfs, btrfs, NFS, FUSE,
 * overlayfs) are taken as without. A polled bio on a device whose queue
 * does not poll (sysfs queue/io_poll 0, and where sysfs cannot tell) ends
 * with -EOPNOTSUPP in the block layer: a block device's reads and writes
 * and ext4's reads, where ext4's writes complete (measured on 6.18).
 * The answer is kept per device: at most AR_FILE_IOPOLL_DEVS of them.
 */
#define AR_FILE_IOPOLL_DEVS	16

static struct {
	dev_t dev;
	unsigned bits;
} ar_file_iopoll_devs[AR_FILE_IOPOLL_DEVS];
static unsigned ar_file_nr_iopoll_devs;
static pthread_mutex_t ar_file_iopoll_lock = PTHREAD_MUTEX_INITIALIZER;

/* does the request queue of block device dev poll? (sysfs; false: unknown) */
static bool ar_file_queue_polls(dev_t dev)
{
	static const char *const fmt[] = {
		"/sys/dev/block/%u:%u/queue/io_poll",
		"/sys/dev/block/%u:%u/../queue/io_poll",	/* a partition's disk */
	};
	char path[64], c = '0';
	int fd;

	for (unsigned i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), fmt[i], major(dev), minor(dev));
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, &c, 1) != 1)
			c = '0';
		close(fd);
		return c == '1';
	}
	return false;
}

static unsigned ar_file_iopoll_probe(int fd, const struct stat *st)
{
	struct statfs sf;
	bool ext4 = false;

	if (S_ISREG(st->st_mode)) {
		if (fstatfs(fd, &sf))
			return 0;
		switch ((unsigned long)sf.f_type) {
		case EXT4_SUPER_MAGIC:
			ext4 = true;
			break;
		case XFS_SUPER_MAGIC:
		case F2FS_SUPER_MAGIC:
		case ZONEFS_MAGIC:
			break;
		default:
			return 0;
		}
	}
	if (ar_file_queue_polls(S_ISREG(st->st_mode) ? st->st_dev : st->st_rdev))
		return AR_FILE_IOPOLL_RD | AR_FILE_IOPOLL_WR;
	return ext4 ? AR_FILE_IOPOLL_WR : 0;
}

static unsigned ar_file_iopoll_bits(int fd, const struct stat *st)
{
	dev_t dev = S_ISREG(st->st_mode) ? st->st_dev : st->st_rdev;
	unsigned i, bits;

	/* busy (or held across a fork by a thread the child lacks): ask anew */
	if (pthread_mutex_trylock(&ar_file_iopoll_lock))
		return ar_file_iopoll_probe(fd, st);
	for (i = 0; i < ar_file_nr_iopoll_devs; i++) {
		if (ar_file_iopoll_devs[i].dev == dev) {
			bits = ar_file_iopoll_devs[i].bits;
			pthread_mutex_unlock(&ar_file_iopoll_lock);
			return bits;
		}
	}
	bits = ar_file_iopoll_probe(fd, st);
	if (ar_file_nr_iopoll_devs < AR_FILE_IOPOLL_DEVS) {
		ar_file_iopoll_devs[ar_file_nr_iopoll_devs].dev = dev;
		ar_file_iopoll_devs[ar_file_nr_iopoll_devs++].bits = bits;
	}
	pthread_mutex_unlock(&ar_file_iopoll_lock);
	return bits;
}

/*
 * What fd is now: one fstat and one F_GETFL (and a direct file's
 * fstatfs); AR_FILE_NONE for a bad fd.
 * *ihash: a regular file's inode hash, else 0.
 */
static unsigned ar_file_probe(int fd, __u8 *ihash)
{
	struct stat st;
	int e = errno, fl;
	unsigned kind;

	*ihash = 0;
	if (fstat(fd, &st)) {
		errno = e;
		return AR_FILE_NONE;
	}
	/* anon-inode files (eventfd, timerfd, ...) have no type bits */
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode))
		return AR_FILE_POLLABLE | AR_FILE_AIO_POLL;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return AR_FILE_POLLABLE;
	if (S_ISREG(st.st_mode))
		*ihash = ar_file_ihash(&st);
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || !(fl & O_DIRECT)) {
		errno = e;
		return AR_FILE_BUFFERED | (S_ISREG(st.st_mode) ? AR_FILE_REG : 0);
	}
	kind = AR_FILE_DIRECT | (S_ISREG(st.st_mode) ? AR_FILE_REG : 0) |
	       ar_file_iopoll_bits(fd, &st);
	errno = e;
	return kind;
}

/* the current generation, starting a new one every period of lookups */
static unsigned ar_file_generation(void)
{
	/* the entries' generations are a hint: relaxed (the probe is the truth) */
	unsigned nr = atomic_load_explicit(&ar_file_nr_cached,
					   memory_order_relaxed);
	unsigned period = nr > AR_FILE_RECHECK / AR_FILE_PER_FD ?
			  nr * AR_FILE_PER_FD : AR_FILE_RECHECK;

	if (++ar_file_lookups >= period) {
		ar_file_lookups = 0;
		return atomic_fetch_add_explicit(&ar_file_gen, 1,
						 memory_order_relaxed) + 1;
	}
	return atomic_load_explicit(&ar_file_gen, memory_order_relaxed);
}

/* probe fd and keep the answer in its slot (if it has one) */
static unsigned ar_file_probe_store(int fd, _Atomic(uint32_t) *slot,
				    unsigned gen, __u8 *ihash)
{
	unsigned kind = ar_file_probe(fd, ihash), old;

	if (slot && (kind & AR_FILE_TYPE_MASK) != AR_FILE_NONE) {
		/* the same kind again keeps what its writes taught */
		old = atomic_load_explicit(slot, memory_order_relaxed);
		if ((old & (AR_FILE_TYPE_MASK | AR_FILE_REG | AR_FILE_AIO_POLL |
			    AR_FILE_IOPOLL_RD | AR_FILE_IOPOLL_WR)) == kind)
			kind |= old & AR_FILE_WR_BLOCKS;
		/* a count for the period: racing fills may count one twice */
		if (!(old & AR_FILE_TYPE_MASK))
			atomic_fetch_add_explicit(&ar_file_nr_cached, 1,
						  memory_order_relaxed);
		atomic_store_explicit(slot, (uint32_t)(gen << AR_FILE_KIND_BITS | kind),
				      memory_order_relaxed);
	}
	/* the batch's look (with what the entry's writes taught) */
	if (ar_file_seen.active) {
		ar_file_seen.valid = true;
		ar_file_seen.fd = fd;
		ar_file_seen.kind = kind;
		ar_file_seen.ihash = *ihash;
	}
	return kind;
}

static unsigned ar_file_kind(int fd, __u8 *ihash)
{
	_Atomic(uint32_t) *slot = ar_file_slot(fd, true);
	unsigned gen = ar_file_generation() & AR_FILE_GEN_MASK;
	unsigned v;

	if (slot) {
		v = atomic_load_explicit(slot, memory_order_relaxed);
		if ((v >> AR_FILE_KIND_BITS) == gen && (v & AR_FILE_TYPE_MASK)) {
			*ihash = 0;	/* not looked at: io-wq's recheck finds it */
			return v & AR_FILE_KIND_MASK;
		}
	}
	return ar_file_probe_store(fd, slot, gen, ihash);
}


/* a device backend's fd? (asked only while devices live) */
static bool ar_file_claim(struct ar_file *f, int fd)
{
	void *dev;

	if (!atomic_load_explicit(&ar_devices_live, memory_order_relaxed))
		return false;
	for (unsigned i = 0; i < ar_nr_devices; i++) {
		dev = ar_devices[i]->claim(fd);
		if (dev) {
			f->be = ar_devices[i];
			f->dev = dev;
			f->dev_ref = true;
			return true;
		}
	}
	return false;
}

static void ar_file_set(struct ar_file *f, unsigned kind, __u8 ihash)
{
	f->be = ar_file_kinds[kind & AR_FILE_TYPE_MASK];
	f->isreg = kind & AR_FILE_REG;
	f->wr_blocks = kind & AR_FILE_WR_BLOCKS;
	f->aio_poll = kind & AR_FILE_AIO_POLL;
	f->iopoll = (kind & AR_FILE_IOPOLL_RD ? AR_IOPOLL_READ : 0) |
		    (kind & AR_FILE_IOPOLL_WR ? AR_IOPOLL_WRITE : 0);
	f->ihash = ihash;
}

/*
 * A buffered write on req's regular file refused RWF_NOWAIT (ext4 and
 * others without async buffered writes: -EOPNOTSUPP): its fd's entry
 * remembers it, so later writes go to a worker without the doomed try,
 * as the kernel punts them without one (no FMODE_BUF_WASYNC). Like the
 * rest of the entry a hint: a stale one sends a write to a worker, which
 * writes it the same. Registered files are not marked.
 */
void ar_file_note_write_blocks(struct ar_ureq *req)
{
	_Atomic(uint32_t) *slot;
	uint32_t v;

	if (req->file_node || req->file.dev)
		return;
	slot = ar_file_slot(req->fd, false);
	if (!slot)
		return;
	v = atomic_load_explicit(slot, memory_order_relaxed);
	/* only on a buffered regular file's entry; a lost race only costs a try */
	if ((v & (AR_FILE_TYPE_MASK | AR_FILE_REG)) ==
	    (AR_FILE_BUFFERED | AR_FILE_REG))
		atomic_compare_exchange_strong_explicit(slot, &v,
				v | AR_FILE_WR_BLOCKS, memory_order_relaxed,
				memory_order_relaxed);
}

void ar_file_resolve(struct ar_file *f, int fd)
{
	unsigned kind;
	__u8 ihash;

	f->dev = NULL;
	f->dev_ref = false;
	f->isreg = false;
	f->aio_poll = false;
	f->ihash = 0;
	if (!ar_file_claim(f, fd)) {
		kind = ar_file_kind(fd, &ihash);
		ar_file_set(f, kind, ihash);
	}
}

bool ar_file_plain_regular(int fd)
{
	__u8 ihash;

	if (atomic_load_explicit(&ar_devices_live, memory_order_relaxed))
		return false;
	return (ar_file_kind(fd, &ihash) & (AR_FILE_TYPE_MASK | AR_FILE_REG)) ==
	       (AR_FILE_BUFFERED | AR_FILE_REG);
}

void ar_file_resolve_fixed(struct ar_file *f, int fd)
{
	unsigned kind;
	__u8 ihash;

	f->dev = NULL;
	f->dev_ref = false;
	f->isreg = false;
	f->aio_poll = false;
	f->ihash = 0;
	if (!ar_file_claim(f, fd)) {
		kind = ar_file_probe(fd, &ihash);
		ar_file_set(f, kind, ihash);
	}
}

void ar_req_file_recheck(struct ar_ureq *req)
{
	unsigned gen, kind;
	__u8 ihash;

	/* a registered file's and a device's answers are exact */
	if (req->file_node || req->file.dev || !req->file.be)
		return;
	if (ar_file_seen.valid && ar_file_seen.fd == req->fd) {
		ar_file_set(&req->file, ar_file_seen.kind, ar_file_seen.ihash);
		return;
	}
	gen = atomic_load_explicit(&ar_file_gen, memory_order_relaxed) &
	      AR_FILE_GEN_MASK;
	kind = ar_file_probe_store(req->fd, ar_file_slot(req->fd, false), gen,
				   &ihash);
	ar_file_set(&req->file, kind, ihash);
}

bool ar_file_batch_begin(void)
{
	bool was = ar_file_seen.active;

	ar_file_seen.active = true;
	ar_file_seen.valid = false;
	return was;
}

void ar_file_batch_end(bool was)
{
	ar_file_seen.active = was;
	ar_file_seen.valid = false;
}


