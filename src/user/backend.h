/* SPDX-License-Identifier: MIT */
/*
 * backend.h - file backends: how the user engine does I/O on each kind of
 * file, the counterpart of the kernel's file_operations.
 *
 * A request's backend is resolved once, when it gets its file
 * (ar_req_assign_file): a registered file's at registration, kept in its
 * rsrc node; a plain fd's from the process-wide fd cache
 * (backend/file.c). The opcodes (ops/rw.c, ops/sync.c) keep their
 * semantics (prep, checks, result rules) and call the backend for the I/O
 * itself; the core asks the backend's flags what to do with "would
 * block".
 *
 * Backends:
 *   buffered  regular files and block devices: preadv2/pwritev2 with
 *             RWF_NOWAIT inline, a worker otherwise (backend/buffered.c);
 *             a submit's reads of regular files in one io_submit() with
 *             RWF_NOWAIT (backend/batch.c);
 *   direct    the same files opened O_DIRECT: native AIO (backend/direct.c,
 *             in the ring's AIO context, aio.c);
 *   pollable  pipes, FIFOs, sockets, ttys, eventfds, character devices:
 *             a non-blocking try, then readiness on the service thread
 *             (backend/buffered.c);
 *   devices   registered at load time (ar_backend_register_device), such
 *             as simdev: they claim the fds that are theirs.
 */
#ifndef ANYRING_USER_BACKEND_H
#define ANYRING_USER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/aio_abi.h>
#include "user/types.h"
#include "user/iopoll.h"

/* what a read or write asks of a backend (ops/rw.c fills it at prep) */
struct ar_rw_io {
	__s64 off;		/* -1: the file position */
	__u32 done;		/* bytes moved by an earlier attempt */
	__s32 rw_flags;		/* RWF_* */
	__u32 nr_vecs;
	bool write;
	struct iovec *vecs;
};

/* fsync and sync_file_range's arguments */
struct ar_sync_io {
	__u64 off;
	__u64 len;
	__u32 flags;		/* IORING_FSYNC_DATASYNC, or SYNC_FILE_RANGE_* */
};

/*
 * The answers of ->rw, ->fsync and ->sync_range: a result (bytes or
 * -errno), or AR_ISSUE_QUEUED (the backend completes the request later),
 * AR_ISSUE_AGAIN (not ready: wait for readiness, else a worker) or
 * AR_ISSUE_PUNT (a worker does it blocking). Called with the request's
 * issue_flags: under AR_ISSUE_NONBLOCK they never block.
 */
struct ar_backend {
	const char *name;
	int (*rw)(struct ar_ureq *req, struct ar_rw_io *io, unsigned issue_flags);
	int (*fsync)(struct ar_ureq *req, const struct ar_sync_io *s,
		     unsigned issue_flags);
	int (*sync_range)(struct ar_ureq *req, const struct ar_sync_io *s,
			  unsigned issue_flags);
	/*
	 * IOPOLL: does the file complete by polling (may it be used on an
	 * IOPOLL ring)? NULL: never. ->iopoll finds what is done, in the
	 * caller's thread; how many.
	 */
	bool (*iopoll_ok)(const struct ar_file *f, bool write);
	unsigned (*iopoll)(void *dev);
	/* device backends: claim fd (a referenced device, or NULL), ref, put */
	void *(*claim)(int fd);
	void (*dev_ref)(void *dev);
	void (*dev_put)(void *dev);
	unsigned pollable : 1;	/* "would block" waits for readiness */
	unsigned unbound : 1;	/* io-wq's unbound class (may block for long) */
	unsigned no_pos : 1;	/* no file position: offset -1 is -EINVAL */
	unsigned no_mode : 1;	/* no access mode (not checked for the direction) */
	unsigned spread : 1;	/* inline issue worth sharing (issue=spread) */
	/*
	 * I/O through the page cache: blocking that is bounded (a waiter
	 * may run it), writes hashed per inode in io-wq
	 */
	unsigned page_cache : 1;
};

extern const struct ar_backend ar_buffered_backend;
extern const struct ar_backend ar_pollable_backend;
extern const struct ar_backend ar_direct_backend;

/* file.c: resolution */
void ar_file_resolve(struct ar_file *f, int fd);
void ar_file_resolve_fixed(struct ar_file *f, int fd);

/* a request is done with its file: a device's reference goes */
static inline void ar_file_release(struct ar_file *f)
{
	if (f->dev_ref)
		f->be->dev_put(f->dev);
	f->dev = NULL;
	f->dev_ref = false;
}

/*
 * Is plain fd, by the cache, a buffered regular file that no device
 * claims? Asked by the inline read that needs no request (submit.c),
 * which trusts the answer only for a read that transferred it all.
 */
bool ar_file_plain_regular(int fd);
/*
 * Look at a plain fd's file again, where its kind decides what happens
 * next ("would block", a partial transfer, a worker's issue): the cache
 * cannot see an fd closed and its number reused (file.c).
 */
void ar_req_file_recheck(struct ar_ureq *req);
/*
 * One submit's requests, queued by this thread: a look at an fd is
 * taken once for all of them (file.c). begin returns what end restores;
 * a request other than a read or write issued meanwhile (a CLOSE) ends
 * what was seen (submit.c).
 */
struct ar_file_seen {
	bool active;		/* in a batch */
	bool valid;		/* fd, kind and ihash are a look of this batch */
	__u8 ihash;
	int fd;
	unsigned kind;
};
extern __thread struct ar_file_seen ar_file_seen;

bool ar_file_batch_begin(void);
void ar_file_batch_end(bool was);

/* a buffered write on req's file refused RWF_NOWAIT: remember it (file.c) */
void ar_file_note_write_blocks(struct ar_ureq *req);
/*
 * submit.c: a request goes to a device (direct I/O, simdev) now, where
 * no cancel reaches it, as block I/O in flight; call before handing it
 * over (it may complete at once). A link timeout that fired while it was
 * being issued completes here. If the device then refuses it and the
 * backend goes on in this thread, ar_req_device_refused() with the state
 * ar_req_to_device() returned.
 */
enum ar_req_state ar_req_to_device(struct ar_ureq *req);
void ar_req_device_refused(struct ar_ureq *req, enum ar_req_state prev);
/* a device backend (at load time, from a constructor); 0 or -ENOSPC */
int ar_backend_register_device(const struct ar_backend *be);
/* a device backend has live devices: its claim is asked for every fd */
void ar_backend_devices_live(int delta);

/* direct.c: the AIO event of an IOPOLL ring's read or write (aio.c) */
void ar_direct_reaped(struct ar_ureq *req);

/*
 * direct.c: a submit's plug, as the kernel's blk_plug around
 * io_submit_sqes(). The O_DIRECT reads and writes a submit queues in
 * AIO are held, then go in one io_submit() when its requests are issued
 * (or AR_DIRECT_PLUG are held), so the block layer gets them together.
 * One plug per thread at a time is in use: the innermost, for its ring.
 */
#define AR_DIRECT_PLUG		32
struct ar_direct_plug {
	struct ar_uctx *ctx;
	struct ar_direct_plug *outer;
	unsigned nr;
	struct iocb *cbs[AR_DIRECT_PLUG];
	struct ar_ureq *refused, **refused_tail;	/* issued again at the end */
	/* batch.c: page-cache reads held for one io_submit() */
	unsigned rd_nr;
	bool rd_flushing;		/* their results are being handed out */
	struct ar_ureq *rd[AR_DIRECT_PLUG];
};
extern __thread struct ar_direct_plug *ar_direct_cur_plug;
void ar_direct_plug_finish(struct ar_direct_plug *p);

/*
 * batch.c: a submit's buffered reads of regular files, read in one
 * io_submit() with RWF_NOWAIT (the page cache is read in the call). A
 * read joins the plug instead of its preadv2() (AR_ISSUE_QUEUED); the
 * plug is flushed before anything else is issued or posted, so that
 * nothing sees the reads late: another request of the submit (the
 * submit loop), a CQE (ar_req_issue()), the plug's end.
 */
bool ar_batch_join(struct ar_ureq *req, struct ar_rw_io *io,
		   unsigned issue_flags);
void ar_batch_flush(struct ar_direct_plug *p);

/*
 * The innermost plug, if it holds reads of ctx's and is not handing them
 * out already. rd_nr and rd_flushing are read and written with relaxed
 * atomics and signal fences: a signal handler that submits or reaps on
 * the thread that holds the plug may flush it (batch.c).
 */
static inline struct ar_direct_plug *ar_batch_pending(struct ar_uctx *ctx)
{
	struct ar_direct_plug *p = ar_direct_cur_plug;

	if (!p || __builtin_expect(!__atomic_load_n(&p->rd_nr, __ATOMIC_RELAXED), 1))
		return NULL;
	return p->ctx == ctx && !__atomic_load_n(&p->rd_flushing, __ATOMIC_RELAXED) ?
	       p : NULL;
}

/* a CQE of ctx's is about to be posted here: the held reads' come first */
static inline void ar_batch_order(struct ar_uctx *ctx)
{
	struct ar_direct_plug *p = ar_batch_pending(ctx);

	if (p)
		ar_batch_flush(p);
}

static inline void ar_direct_plug_begin(struct ar_uctx *ctx,
					struct ar_direct_plug *p)
{
	p->ctx = ctx;
	p->nr = 0;
	p->rd_nr = 0;
	p->rd_flushing = false;
	p->refused = NULL;
	p->refused_tail = &p->refused;
	p->outer = ar_direct_cur_plug;
	ar_direct_cur_plug = p;
}

static inline void ar_direct_plug_end(struct ar_direct_plug *p)
{
	if (__builtin_expect(__atomic_load_n(&p->rd_nr, __ATOMIC_RELAXED) != 0, 0))
		ar_batch_flush(p);
	ar_direct_cur_plug = p->outer;
	if (__builtin_expect(p->nr != 0, 0))
		ar_direct_plug_finish(p);
}

/* buffered.c: fsync(2), fdatasync(2), sync_file_range(2) in a worker */
int ar_buffered_fsync(struct ar_ureq *req, const struct ar_sync_io *s,
		      unsigned issue_flags);
int ar_buffered_sync_range(struct ar_ureq *req, const struct ar_sync_io *s,
			   unsigned issue_flags);

/*
 * A device backend's I/O: the device's own description of it (opaque to
 * the engine, AR_DEV_IO_SIZE bytes at most) and its place on the ring's
 * IOPOLL list.
 */
#define AR_DEV_IO_SIZE		64
struct ar_dev_req {
	_Alignas(8) unsigned char io[AR_DEV_IO_SIZE];
	struct ar_iopoll_entry ip;
};

/*
 * A backend's per-request state, beside the opcode's: AR_REQ_BEDATA
 * bytes, 16-byte aligned, which each backend checks its own fits in.
 */
static inline void *ar_req_backend(struct ar_ureq *req)
{
	return req->bedata;
}

static inline struct ar_ureq *ar_req_of_backend(void *b)
{
	return (struct ar_ureq *)((char *)b - offsetof(struct ar_ureq, bedata));
}

_Static_assert(sizeof(struct ar_dev_req) <= AR_REQ_BEDATA,
	       "struct ar_dev_req does not fit in a request");

/* a device backend's request state */
static inline struct ar_dev_req *ar_req_dev(struct ar_ureq *req)
{
	return ar_req_backend(req);
}

#endif
