/* SPDX-License-Identifier: MIT */
/*
 * batch.c - a submit's buffered reads of regular files, in one system
 * call. The kernel reads the page cache inside io_uring_enter(), one
 * system call for a whole submit; preadv2() is one per read. Native
 * AIO's io_submit() takes many reads in one call, and with RWF_NOWAIT a
 * buffered read is done in the call itself (a page-cache miss answers
 * -EAGAIN), so the events are in the context's ring when it returns,
 * read without a system call.
 *
 * The reads wait in the submit's plug (backend.h) until something else
 * would see them late: the next request that is not such a read, a CQE
 * about to be posted, the plug's end. Then they go in one io_submit()
 * and their results are handed out in submit order: a whole read (or
 * end of file) completes; a miss goes the way an inline miss goes (a
 * worker), and anything else, part of a read or an error, is issued
 * again the usual way, which finishes it as before. A read alone in its
 * plug is issued again at once: one preadv2() is the cheaper call. AIO's
 * reads raise no access event (inotify, fanotify): each file a batch
 * read data from is read one byte more (ar_batch_notify()).
 *
 * The contexts are the process's, not a ring's: no eventfd, no reaper,
 * as nothing is left in them between two flushes. A flush takes one for
 * itself (AR_BATCH_KCTX at most, made on first use, while the system's
 * aio-nr is under half of aio-max-nr, which O_DIRECT rings need more);
 * without one its reads are issued again one by one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include "user/aio.h"
#include "user/backend.h"
#include "user/complete.h"
#include "user/kbuf.h"
#include "user/submit.h"
#include "lib/sysraw.h"

#define AR_BATCH_KCTX		4

/* a read's place in a batch, in its request's backend data */
struct ar_batch_req {
	struct iocb cb;
	struct ar_rw_io *io;
	long long res;
	bool done;			/* res is its AIO event's */
	unsigned char prev;		/* its state before the plug */
	unsigned char issue_flags;
};

_Static_assert(sizeof(struct ar_batch_req) <= AR_REQ_BEDATA,
	       "a batched read does not fit in a request");

static struct ar_batch_req *ar_batch_req(struct ar_ureq *req)
{
	return ar_req_backend(req);
}

struct ar_batch_kctx {
	aio_context_t id;
	struct ar_aio_ring *ring;
};

static struct ar_batch_kctx ar_batch_kctx[AR_BATCH_KCTX];
static unsigned ar_batch_made;		/* contexts made (grows under the lock) */
static unsigned ar_batch_busy;		/* a bit per context a flush holds */
static bool ar_batch_off;		/* no context could be made */
static bool ar_batch_full;		/* no more contexts: refused, or no room */
static pthread_mutex_t ar_batch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t ar_batch_once = PTHREAD_ONCE_INIT;

/* a forked child: the contexts are the parent's mm's */
static void ar_batch_atfork_child(void)
{
	ar_batch_made = 0;
	ar_batch_busy = 0;
	ar_batch_off = false;
	ar_batch_full = false;
	pthread_mutex_init(&ar_batch_lock, NULL);
}

static void ar_batch_once_init(void)
{
	pthread_atfork(NULL, NULL, ar_batch_atfork_child);
}

static long ar_batch_proc_long(const char *path)
{
	char buf[32];
	long v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = ar_raw_syscall6(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	if (n > 0) {
		buf[n] = 0;
		v = strtol(buf, NULL, 10);
	}
	close(fd);
	return v;
}

/*
 * Is there room for another context? Each takes the 32 events it asks
 * for of fs.aio-nr; the rings' O_DIRECT contexts keep the upper half.
 * Unreadable (a sandbox without /proc): io_setup() decides.
 */
static bool ar_batch_room(void)
{
	long nr = ar_batch_proc_long("/proc/sys/fs/aio-nr");
	long max = ar_batch_proc_long("/proc/sys/fs/aio-max-nr");

	return nr < 0 || max < 0 || nr < max / 2;
}

/* under ar_batch_lock: context i made, or ar_batch_off (i 0) or ar_batch_full set */
static bool ar_batch_make(unsigned i)
{
	struct ar_batch_kctx *k = &ar_batch_kctx[i];
	int e = errno;

	k->id = 0;
	if (ar_batch_room() && !syscall(SYS_io_setup, AR_DIRECT_PLUG, &k->id)) {
		k->ring = (struct ar_aio_ring *)(unsigned long)k->id;
		if (k->ring->magic == AR_AIO_RING_MAGIC &&
		    !k->ring->incompat_features)
			return true;
		syscall(SYS_io_destroy, k->id);
	}
	errno = e;
	/*
	 * relaxed: hints. No context at all: reads no longer join. Past the
	 * first: the flushes share those there are.
	 */
	if (!i)
		__atomic_store_n(&ar_batch_off, true, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&ar_batch_full, true, __ATOMIC_RELAXED);
	return false;
}

/* a context for this flush alone: its index, or -1 */
static int ar_batch_take(void)
{
	/* acquire pairs with the release that published a new context */
	unsigned made = __atomic_load_n(&ar_batch_made, __ATOMIC_ACQUIRE), i;
	int got = -1;

	for (i = 0; i < made; i++) {
		/* acquire pairs with the release of the last flush that held it */
		if (!(__atomic_fetch_or(&ar_batch_busy, 1U << i,
					__ATOMIC_ACQUIRE) & (1U << i)))
			return (int)i;
	}
	/* relaxed: hints, looked at again under the lock */
	if (made == AR_BATCH_KCTX ||
	    __atomic_load_n(&ar_batch_off, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&ar_batch_full, __ATOMIC_RELAXED))
		return -1;
	pthread_once(&ar_batch_once, ar_batch_once_init);
	pthread_mutex_lock(&ar_batch_lock);
	i = ar_batch_made;
	if (i < AR_BATCH_KCTX &&
	    !__atomic_load_n(&ar_batch_off, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&ar_batch_full, __ATOMIC_RELAXED) &&
	    ar_batch_make(i)) {
		/* held before it is published: no other flush can take it first */
		__atomic_fetch_or(&ar_batch_busy, 1U << i, __ATOMIC_RELAXED);
		/* release: the context is written before its index is seen */
		__atomic_store_n(&ar_batch_made, i + 1, __ATOMIC_RELEASE);
		got = (int)i;
	}
	pthread_mutex_unlock(&ar_batch_lock);
	return got;
}

static void ar_batch_put(int i)
{
	/* release: this flush's use of the ring comes before the next's */
	__atomic_fetch_and(&ar_batch_busy, ~(1U << i), __ATOMIC_RELEASE);
}

/* Hold a read for the plug's io_submit(): true when it went there. */
bool ar_batch_join(struct ar_ureq *req, struct ar_rw_io *io,
		   unsigned issue_flags)
{
	struct ar_direct_plug *p = ar_direct_cur_plug;
	struct ar_batch_req *b = ar_batch_req(req);

	enum ar_req_state prev;
	unsigned n;

	/* ar_batch_off, relaxed: a hint (a flush without a context falls back) */
	if (!p || p->ctx != req->ctx ||
	    __atomic_load_n(&p->rd_flushing, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&ar_batch_off, __ATOMIC_RELAXED) ||
	    req->link || req->lt || req->cred || ar_kbuf_selected(req) ||
	    (req->flags & AR_REQ_F_NOWAIT_MISS))
		return false;
	if (__atomic_load_n(&p->rd_nr, __ATOMIC_RELAXED) == AR_DIRECT_PLUG)
		ar_batch_flush(p);
	b->cb = (struct iocb){
		.aio_data = (__u64)(unsigned long)req,
		.aio_rw_flags = io->rw_flags | RWF_NOWAIT,
		.aio_lio_opcode = IOCB_CMD_PREADV,
		.aio_fildes = (__u32)req->fd,
		.aio_buf = (__u64)(unsigned long)io->vecs,
		.aio_nbytes = io->nr_vecs,
		.aio_offset = io->off,
	};
	b->io = io;
	b->done = false;
	b->issue_flags = (unsigned char)issue_flags;
	/* as block I/O in flight: no cancel reaches it until its result */
	prev = ar_req_to_device(req);
	b->prev = (unsigned char)prev;
	/*
	 * Its slot, then the count, by compare-and-swap: a signal handler
	 * on this thread may flush the plug in between (then the count is 0
	 * again, and the slot taken anew). Relaxed with signal fences: only
	 * this thread touches the plug.
	 */
	n = __atomic_load_n(&p->rd_nr, __ATOMIC_RELAXED);
	do {
		if (n == AR_DIRECT_PLUG) {	/* a handler filled it: not held */
			ar_req_device_refused(req, prev);
			return false;
		}
		p->rd[n] = req;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (!__atomic_compare_exchange_n(&p->rd_nr, &n, n + 1, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/*
 * One io_submit() for the batch, more where one is refused; how many
 * went. A refused read is issued again alone (no event makes it done);
 * so are the others of its fd when the refusal is the file's (no
 * RWF_NOWAIT: -EOPNOTSUPP; -EBADF), which would only be refused again.
 */
static unsigned ar_batch_submit(struct ar_batch_kctx *k, struct iocb **cbs,
				unsigned n)
{
	unsigned i = 0, sent = 0;
	__u32 bad_fd = (__u32)-1;
	long ret;

	while (i < n) {
		if (cbs[i]->aio_fildes == bad_fd) {
			i++;
			continue;
		}
		ret = ar_raw_syscall6(SYS_io_submit, (long)k->id, n - i,
				      (long)(cbs + i), 0, 0, 0);
		if (ret <= 0) {
			if (ret == -EOPNOTSUPP || ret == -EBADF)
				bad_fd = cbs[i]->aio_fildes;
			i++;
			continue;
		}
		i += (unsigned)ret;
		sent += (unsigned)ret;
	}
	return sent;
}

static void ar_batch_event(const struct io_event *ev)
{
	struct ar_batch_req *b =
		ar_batch_req((struct ar_ureq *)(unsigned long)ev->data);

	b->res = ev->res;
	b->done = true;
}

/*
 * The events of the n reads that went. A page-cache read is done in
 * io_submit(); a file system that queues one anyway is waited for.
 * False if the wait failed (not for a signal), which a valid context
 * never does: its events may still come, so it is not used again.
 */
static bool ar_batch_reap(struct ar_batch_kctx *k, unsigned n)
{
	struct ar_aio_ring *r = k->ring;
	struct io_event evs[AR_DIRECT_PLUG];
	unsigned head, tail;
	long got;

	while (n) {
		head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
		/* acquire pairs with the kernel's smp_wmb before publishing the tail */
		tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		if (head != tail) {
			for (; head != tail && n; n--) {
				ar_batch_event(&r->io_events[head]);
				head = (head + 1) % r->nr;
			}
			/* release: the events are read before the kernel reuses their slots */
			__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
			continue;
		}
		got = ar_raw_syscall6(SYS_io_getevents, (long)k->id, 1, n,
				      (long)evs, 0, 0);
		if (got < 0 && got != -EINTR)
			return false;
		for (long i = 0; i < got; i++)
			ar_batch_event(&evs[i]);
		if (got > 0)
			n -= (unsigned)got;
	}
	return true;
}

/*
 * The access event (inotify IN_ACCESS, fanotify FAN_ACCESS) that a read
 * raises when it returns data, and AIO's reads do not (fs/aio.c has no
 * fsnotify_access()): a read of one byte of each file that gave data,
 * at a read's offset, whose page the batch just read. The events of a
 * file's reads in a row are one after inotify's and fanotify's merging,
 * as the kernel's io_uring reads' are.
 */
static void ar_batch_notify(struct ar_ureq *const *reqs, unsigned n)
{
	int fds[AR_DIRECT_PLUG];
	unsigned nfd = 0, i, j;
	char byte;

	for (i = 0; i < n; i++) {
		struct ar_batch_req *b = ar_batch_req(reqs[i]);

		if (!b->done || b->res <= 0)
			continue;
		for (j = 0; j < nfd && fds[j] != reqs[i]->fd; j++)
			;
		if (j < nfd)
			continue;
		fds[nfd++] = reqs[i]->fd;
		(void)ar_raw_syscall6(SYS_pread64, reqs[i]->fd, (long)&byte, 1,
				      (long)b->io->off, 0, 0);
	}
}

/* a read whose batch did not finish it: back to its state, issued again */
static void ar_batch_reissue(struct ar_ureq *req)
{
	struct ar_batch_req *b = ar_batch_req(req);

	ar_req_device_refused(req, (enum ar_req_state)b->prev);
	ar_req_issue(req, b->issue_flags);
}

/*
 * Hand out a read's result, in submit order: a whole read, or end of
 * file, completes (gathered); a miss goes to a worker as an inline
 * miss does, with no second try; part of a read is finished by the
 * usual path from where it stopped; an error or a read that did not go
 * is issued again, and gets the answer preadv2() gives.
 */
static void ar_batch_finish_one(struct ar_comp_list *done, struct ar_ureq *req)
{
	struct ar_batch_req *b = ar_batch_req(req);

	if (b->done && (b->res == (long long)req->expect || b->res == 0)) {
		if (b->res != (long long)req->expect)
			req->flags |= AR_REQ_F_SHORT;	/* the link breaks */
		ar_req_complete_gather(done, req, (int)b->res, 0);
		return;
	}
	/* the CQEs before this one's come first */
	ar_req_complete_gathered(req->ctx, done);
	if (b->done) {
		if (b->res == -EAGAIN)
			req->flags |= AR_REQ_F_NOWAIT_MISS;
		else if (b->res > 0 && b->res < (long long)req->expect)
			b->io->done = (__u32)b->res;
	}
	ar_batch_reissue(req);
}

void ar_batch_flush(struct ar_direct_plug *p)
{
	struct ar_ureq *reqs[AR_DIRECT_PLUG];
	struct iocb *cbs[AR_DIRECT_PLUG];
	struct ar_comp_list done;
	unsigned n, i, sent;
	int k = -1;

	/*
	 * Flushing first, then the reads taken: a signal handler on this
	 * thread that looks at the plug in between leaves it alone (signal
	 * fences: only this thread touches the plug).
	 */
	__atomic_store_n(&p->rd_flushing, true, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	n = __atomic_exchange_n(&p->rd_nr, 0, __ATOMIC_RELAXED);
	memcpy(reqs, p->rd, n * sizeof(reqs[0]));
	if (n > 1)
		k = ar_batch_take();
	if (k >= 0) {
		for (i = 0; i < n; i++)
			cbs[i] = &ar_batch_req(reqs[i])->cb;
		sent = ar_batch_submit(&ar_batch_kctx[k], cbs, n);
		if (ar_batch_reap(&ar_batch_kctx[k], sent))
			ar_batch_put(k);
		ar_stat_add(p->ctx, read_batched, sent);
		ar_batch_notify(reqs, n);
	}
	ar_comp_list_init(&done);
	for (i = 0; i < n; i++)
		ar_batch_finish_one(&done, reqs[i]);
	ar_req_complete_gathered(p->ctx, &done);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&p->rd_flushing, false, __ATOMIC_RELAXED);
}
