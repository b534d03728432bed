/* SPDX-License-Identifier: MIT */
/*
 * fuzz_order.c - make a decoded batch deterministic on the kernel, so that
 * any difference between two runs is a difference between the engines.
 *
 * A request is "sync" when the kernel settles it during the submitting
 * io_uring_enter in a fixed order: an op the kernel issues inline (NOP,
 * pipe I/O, bad fds, FILES_UPDATE, direct CLOSE, cancels, timeout arming)
 * without IOSQE_ASYNC, whose chain predecessor is sync and not a timer,
 * not in a chain left open at the end of the submit (io-wq runs those),
 * and with no drain before it. A drain request itself is sync when
 * everything before it is: it runs alone, after them and before anything
 * later. The requests after a drain are deferred and then let go together
 * to io-wq (io_queue_deferred(): forced async), where they race with each
 * other (cancel-after-drain-sees-later-sqes: NOP with IO_DRAIN, a cancel
 * of a later NOP, that NOP: the kernel's cancel finds it or not, 0 or
 * -ENOENT). Anything else may run in io-wq at any time. A sync chain
 * head is "early": it is issued before the SQEs after it; a sync chain
 * member runs from task work after the submit loop, still in a fixed
 * order.
 *
 * Three rules, each a race seen as a mismatch between two kernel runs:
 *
 * 1. Two requests that touch the same state (a buffer, a harness file's
 *    content or position, the pipe, the names in the temp dir, the fixed
 *    file table), one of them writing, must be ordered: the same link
 *    chain, an early request first, or both sync. Otherwise the later one
 *    becomes a NOP (keeping flags and user_data).
 * 2. A count-based TIMEOUT counts CQEs as they come: its count is set to
 *    0 when any request outside its chain completes at an unknown time
 *    (not sync, or a timer), or when it expires at once.
 * 3. A canceller (ASYNC_CANCEL, TIMEOUT_REMOVE, LINK_TIMEOUT) must find its
 *    targets in a known state. If it cannot, and the targets and the
 *    canceller are side-effect free and end their chains, both CQEs are
 *    left out of the comparison; otherwise the canceller becomes a NOP.
 *
 * Two more make the harness's wait an event (fuzz_run.c waits for every
 * request's CQE, and ends only reads that would wait on the pipe for
 * good):
 *
 * 4. A read that may find the pipe empty must be sync and not drained,
 *    with a user_data of its own; a write that may fill the pipe after it
 *    (not behind it in its chain) must not be drained behind it and have
 *    a user_data of its own. Otherwise it becomes a NOP.
 * 5. IOSQE_CQE_SKIP_SUCCESS stays only on chains that end within their
 *    submit and share no user_data with other requests; elsewhere it is
 *    taken off.
 *
 * Each change is recorded in the SQE (why) and printed with the batch.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/fs.h>
#include "fuzz.h"

/* resources, as bits of a mask */
#define RES_BUF(k)	(1U << (k))			/* 0..7 */
#define RES_FILE(k)	(1U << (8 + (k)))		/* 8..10 */
#define RES_FILES	(RES_FILE(0) | RES_FILE(1) | RES_FILE(2))
#define RES_PIPE	(1U << 11)
#define RES_NAMES	(1U << 12)
#define RES_SLOTS	(1U << 13)
#define RES_BUFS	0xffU
#define RES_NET		(1U << 14)	/* fuzz_net.c's sockets, eventfd, epoll */
#define RES_PBUF	(1U << 15)	/* provided buffers */
#define RES_XATTR	(1U << 16)	/* the temp dir's xattrs */

#define LINKS		(IOSQE_IO_LINK | IOSQE_IO_HARDLINK)

struct props {
	int chain;
	int timer;
	int sync;
	int early;
	int iowq;	/* drained: sync in order, but issued from io-wq */
	unsigned r, w;
};

struct order {
	struct fz_batch *b;
	struct props p[FZ_MAX_SQES];
	int slot_writers;
};

static int is_timer(const struct fz_sqe *s)
{
	return !s->nopped && (s->op == FZ_TIMEOUT || s->op == FZ_LINK_TIMEOUT);
}

static int uses_file(const struct fz_sqe *s)
{
	switch (s->op) {
	case FZ_READ: case FZ_WRITE: case FZ_READV: case FZ_WRITEV:
	case FZ_READ_FIXED: case FZ_WRITE_FIXED: case FZ_FSYNC:
	case FZ_FALLOCATE: case FZ_FADVISE:
		return !s->nopped;
	default:
		return 0;
	}
}

static int is_rw(const struct fz_sqe *s)
{
	return uses_file(s) && s->op <= FZ_WRITE_FIXED;
}

/* does the kernel issue it inline (given no ASYNC flag)? */
static int inline_type(const struct fz_sqe *s)
{
	if (s->nopped)
		return 1;
	switch (s->op) {
	case FZ_NOP: case FZ_INVALID: case FZ_FILES_UPDATE: case FZ_CLOSE:
	case FZ_ASYNC_CANCEL: case FZ_TIMEOUT_REMOVE: case FZ_TIMEOUT:
	case FZ_LINK_TIMEOUT:
		return 1;
	default:
		break;
	}
	if (fz_is_net(s))
		return fz_net_inline(s);
	if (!is_rw(s) || (s->flags & IOSQE_FIXED_FILE))
		return 0;
	return s->fd == FZ_FD_PIPE_R || s->fd == FZ_FD_PIPE_W ||
		s->fd == FZ_FD_NEG || s->fd == FZ_FD_BAD;
}

/* the file state a file op touches: a harness file's content, the pipe */
static unsigned file_res(const struct order *o, const struct fz_sqe *s,
			 unsigned *r)
{
	static const int slot_fd[FZ_NSLOTS] = {
		FZ_FD_F0, FZ_FD_F1, FZ_FD_PIPE_R, FZ_FD_PIPE_W,
		FZ_FD_NEG, FZ_FD_NEG, FZ_FD_NEG, FZ_FD_NEG,
	};
	int fd = s->fd;

	if (s->flags & IOSQE_FIXED_FILE) {
		*r |= RES_SLOTS;
		if (!o->b->cfg.reg_files)
			return 0;
		if (o->slot_writers)
			return RES_FILES | RES_PIPE;
		fd = fd < FZ_NSLOTS ? slot_fd[fd] : FZ_FD_NEG;
	}
	if (fd <= FZ_FD_F2)
		return RES_FILE(fd);
	if (fd == FZ_FD_PIPE_R || fd == FZ_FD_PIPE_W)
		return RES_PIPE;
	return 0;
}

/* the arena buffers a request reads or fills */
static unsigned buf_res(const struct fz_sqe *s)
{
	unsigned m = 0, first, last, k;
	int e;

	/*
	 * A bad buffer is not in the arena. A bad iovec array reaches no
	 * buffer (its copy-in fails before any I/O), except a read-only
	 * one: it holds the good entries.
	 */
	if (s->bad && s->op != FZ_READV && s->op != FZ_WRITEV)
		return 0;
	if (s->bad && s->bad_field == FZ_BF_BUF && s->bad != FZ_BAD_RDONLY)
		return 0;
	switch (s->op) {
	case FZ_READ:
	case FZ_WRITE:
		return s->buf < 0 ? 0 : RES_BUF(s->buf);
	case FZ_READV:
	case FZ_WRITEV:
		if (s->nr >= FZ_NBUF)
			return RES_BUFS;
		for (e = s->iov; e < s->iov + s->nr; e++)
			m |= RES_BUF(e % FZ_NBUF);
		return m;
	default:
		if (!s->len)
			return 0;
		first = s->boff / FZ_BUFSZ;
		last = (s->boff + s->len - 1) / FZ_BUFSZ;
		for (k = first; k <= last && k < FZ_NBUF; k++)
			m |= RES_BUF(k);
		return m;
	}
}

static int touches_pipe(const struct order *o, const struct fz_sqe *s)
{
	unsigned r = 0;

	return uses_file(s) && (file_res(o, s, &r) & RES_PIPE);
}

/* a read that may find the pipe empty and wait there for data */
static int pipe_read(const struct order *o, const struct fz_sqe *s)
{
	if (s->nopped || (s->op != FZ_READ && s->op != FZ_READV &&
			  s->op != FZ_READ_FIXED))
		return 0;
	if (s->op_flags & RWF_NOWAIT)
		return 0;
	if (!(s->flags & IOSQE_FIXED_FILE) && s->fd == FZ_FD_PIPE_W)
		return 0;
	return touches_pipe(o, s);
}

/* a write that may put bytes in the pipe */
static int pipe_write(const struct order *o, const struct fz_sqe *s)
{
	/* a SPLICE may feed the pipe, whichever way it names it */
	if (!s->nopped && s->op == FZ_SPLICE)
		return 1;
	if (s->nopped || (s->op != FZ_WRITE && s->op != FZ_WRITEV &&
			  s->op != FZ_WRITE_FIXED))
		return 0;
	return touches_pipe(o, s);
}

/* does another SQE of the batch have SQE i's user_data? */
static int ud_shared(const struct fz_batch *b, unsigned i)
{
	unsigned j;

	for (j = 0; j < b->nr; j++)
		if (j != i && b->sqe[j].ud == b->sqe[i].ud)
			return 1;
	return 0;
}

/* requests a canceller may find, by index; returns how many */
static unsigned targets(const struct order *o, unsigned c, unsigned *t)
{
	const struct fz_batch *b = o->b;
	const struct fz_sqe *s = &b->sqe[c];
	unsigned i, n = 0;

	if (s->nopped)
		return 0;
	if (s->op == FZ_LINK_TIMEOUT) {
		if (c && o->p[c - 1].chain == o->p[c].chain)
			t[n++] = c - 1;
		return n;
	}
	for (i = 0; i < b->nr; i++) {
		const struct fz_sqe *x = &b->sqe[i];

		if (i == c)
			continue;
		if (s->op == FZ_TIMEOUT_REMOVE) {
			int want = s->op_flags & IORING_LINK_TIMEOUT_UPDATE ?
				FZ_LINK_TIMEOUT : FZ_TIMEOUT;

			if (x->ud == s->target && !x->nopped && x->op == want)
				t[n++] = i;
		} else if (s->op_flags & IORING_ASYNC_CANCEL_ANY) {
			t[n++] = i;
		} else if (s->op_flags & IORING_ASYNC_CANCEL_FD) {
			if (uses_file(x) || (fz_is_net(x) && !x->nopped))
				t[n++] = i;
		} else if (x->ud == s->target) {
			t[n++] = i;
		}
	}
	return n;
}

/*
 * Is SQE i in a chain still open at the end of its submit (its last SQE
 * says LINK)? The kernel ends such a chain there and hands it to io-wq.
 */
static int chain_open(const struct fz_batch *b, unsigned i)
{
	unsigned end = (i / b->cfg.sq_entries + 1) * b->cfg.sq_entries;

	if (end > b->nr)
		end = b->nr;
	while (i + 1 < end && (b->sqe[i].flags & LINKS))
		i++;
	return !!(b->sqe[i].flags & LINKS);
}

/*
 * What a fuzz_net.c op reads and writes: the socket state (RES_NET:
 * queues, shutdowns, the epoll set), provided buffers and the memory
 * they point into (arena buffer 7), xattrs, a harness file's size.
 */
static void net_props(const struct fz_sqe *s, unsigned *r, unsigned *w)
{
	int fixed = !!(s->flags & IOSQE_FIXED_FILE);
	unsigned net = fixed || s->fd >= FZ_FD_SA ? RES_NET : 0;
	unsigned buf = s->buf >= 0 ? RES_BUF(s->buf) : 0;
	int select = !!(s->flags & IOSQE_BUFFER_SELECT);

	if (fixed)
		*r |= RES_SLOTS;
	switch (s->op) {
	case FZ_SEND:
		*r |= select ? RES_BUF(7) : buf;
		*w |= net | (select ? RES_PBUF : 0);
		break;
	case FZ_RECV:
		*w |= select ? RES_BUF(7) | RES_PBUF : buf;
		if (s->op_flags & MSG_PEEK)
			*r |= net;
		else
			*w |= net;
		break;
	case FZ_POLL_ADD: case FZ_URING_CMD:
		*r |= net;
		break;
	case FZ_SHUTDOWN: case FZ_LISTEN: case FZ_BIND:
		*w |= net;
		break;
	case FZ_ACCEPT:
		*w |= net | (s->slot != -1 ? RES_SLOTS : 0);
		break;
	case FZ_EPOLL_CTL:
		*w |= RES_NET;
		break;
	case FZ_SOCKET:
		if (s->slot != -1)
			*w |= RES_SLOTS;
		break;
	case FZ_PROVIDE_BUFFERS: case FZ_REMOVE_BUFFERS:
		*w |= RES_PBUF;
		break;
	case FZ_FTRUNCATE:
		if (fixed)
			*w |= RES_FILES;
		else if (s->fd <= FZ_FD_F2)
			*w |= RES_FILE(s->fd);
		break;
	case FZ_FSETXATTR:
		*r |= buf;
		*w |= RES_XATTR;
		break;
	case FZ_FGETXATTR:
		*w |= buf;
		*r |= RES_XATTR;
		break;
	case FZ_SENDMSG: case FZ_SEND_ZC:
		*r |= buf;
		*w |= net;
		break;
	case FZ_RECVMSG:
		*w |= buf;
		if (s->op_flags & MSG_PEEK)
			*r |= net;
		else
			*w |= net;
		break;
	case FZ_CONNECT:
		*w |= net;
		break;
	case FZ_SPLICE:
		/* any harness file or the pipe, either side */
		*r |= RES_FILES | (s->op_flags & SPLICE_F_FD_IN_FIXED ?
				   RES_SLOTS : 0);
		*w |= RES_FILES | RES_PIPE | net;
		break;
	case FZ_EPOLL_WAIT: case FZ_WAITID:
		*w |= buf;
		break;
	case FZ_MSG_RING:
		/* SEND_FD to itself reads the slots (and is refused) */
		*r |= RES_SLOTS;
		break;
	default:
		break;
	}
}

/* the properties of SQE i, given those of the SQEs before it */
static void props(struct order *o, unsigned i)
{
	struct fz_batch *b = o->b;
	struct fz_sqe *s = &b->sqe[i];
	struct props *p = &o->p[i];
	unsigned t[FZ_MAX_SQES], n, k, j, r = 0, w = 0, f;
	int drain = !!(s->flags & IOSQE_IO_DRAIN), drained = 0, all_sync = 1;

	p->chain = i;
	if (i && i % b->cfg.sq_entries && (b->sqe[i - 1].flags & LINKS))
		p->chain = o->p[i - 1].chain;
	p->timer = is_timer(s);
	for (j = 0; j < i; j++) {
		drained |= !!(b->sqe[j].flags & IOSQE_IO_DRAIN);
		all_sync &= o->p[j].sync;
	}
	p->sync = inline_type(s) && !(s->flags & IOSQE_ASYNC) &&
		!drained && (!drain || all_sync) && !chain_open(b, i);
	if (p->chain != (int)i)
		p->sync = p->sync && o->p[i - 1].sync && !o->p[i - 1].timer;
	p->early = p->sync && p->chain == (int)i;
	/*
	 * A drained request is let go to io-wq when all before it are done
	 * (a drain on a later chain member drains the head): still in a
	 * fixed order, but when it completes is not known to a timer.
	 */
	p->iowq = drain;
	if (p->chain != (int)i)
		p->iowq |= o->p[i - 1].iowq;
	else
		for (j = i; j + 1 < b->nr && (j + 1) % b->cfg.sq_entries &&
		     (b->sqe[j].flags & LINKS); j++)
			p->iowq |= !!(b->sqe[j + 1].flags & IOSQE_IO_DRAIN);

	if (!s->nopped) {
		switch (s->op) {
		case FZ_READ: case FZ_READV: case FZ_READ_FIXED:
			w |= buf_res(s);
			f = file_res(o, s, &r);
			/* reading moves the position (-1) or drains the pipe */
			if (s->off == -1ULL)
				w |= f;
			else
				r |= f & RES_FILES, w |= f & RES_PIPE;
			break;
		case FZ_WRITE: case FZ_WRITEV: case FZ_WRITE_FIXED:
			r |= buf_res(s);
			w |= file_res(o, s, &r);
			break;
		case FZ_FALLOCATE:
			w |= file_res(o, s, &r) & RES_FILES;
			break;
		case FZ_FSYNC: case FZ_FADVISE:
			file_res(o, s, &r);
			break;
		case FZ_STATX:
			r |= RES_NAMES;
			break;
		case FZ_OPENAT:
			r |= RES_NAMES;
			if (s->op_flags & (O_CREAT | O_TRUNC))
				w |= RES_NAMES;
			if (s->op_flags & O_TRUNC)
				w |= RES_FILES;
			if (s->slot != -1)
				w |= RES_SLOTS;
			break;
		case FZ_CLOSE: case FZ_FILES_UPDATE:
			w |= RES_SLOTS;
			break;
		case FZ_MKDIRAT: case FZ_UNLINKAT: case FZ_RENAMEAT:
		case FZ_SYMLINKAT: case FZ_LINKAT:
			w |= RES_NAMES;
			break;
		case FZ_ASYNC_CANCEL: case FZ_TIMEOUT_REMOVE:
		case FZ_LINK_TIMEOUT:
			/* a pipe request's state changes when the pipe does */
			n = targets(o, i, t);
			for (k = 0; k < n; k++)
				if (touches_pipe(o, &b->sqe[t[k]]))
					r |= RES_PIPE;
			if (s->op_flags & IORING_ASYNC_CANCEL_FD_FIXED &&
			    s->op == FZ_ASYNC_CANCEL)
				r |= RES_SLOTS;
			break;
		default:
			if (fz_is_net(s))
				net_props(s, &r, &w);
			break;
		}
	}
	p->r = r;
	p->w = w;
}

static void nopify(struct fz_sqe *s, const char *why)
{
	s->nopped = 1;
	s->why = why;
}

static int ordered(const struct order *o, unsigned j, unsigned i)
{
	const struct props *a = &o->p[j], *c = &o->p[i];

	return a->chain == c->chain || a->early || (a->sync && c->sync);
}

/* rule 1, in submission order */
static void rule_conflicts(struct order *o)
{
	static char why[FZ_MAX_SQES][40];
	struct fz_batch *b = o->b;
	unsigned i, j;

	for (i = 0; i < b->nr; i++) {
		props(o, i);
		for (j = 0; j < i; j++) {
			const struct props *a = &o->p[j], *c = &o->p[i];

			if (!((a->w & (c->r | c->w)) || (c->w & a->r)))
				continue;
			if (ordered(o, j, i))
				continue;
			snprintf(why[i], sizeof(why[i]), "races with #%u", j);
			nopify(&b->sqe[i], why[i]);
			props(o, i);
			break;
		}
	}
}

/*
 * a timer that cannot fire within the submit: relative 1.5 s (ts 3). One
 * of 1 ms or 2 ms may fire while the submit is still going on a busy
 * machine (a sanitizer build, a CPU hog, the submitting thread preempted):
 * its time of firing is unknown, as for any timer that is not slow.
 */
static int timer_slow(const struct fz_sqe *s)
{
	return s->ts == 3 &&
		!(s->op_flags & IORING_TIMEOUT_ABS) && !fz_ts_bad(s);
}

/*
 * a timer already due when armed (0 ns, or absolute: always in the past
 * here): the kernel ends a link timeout of that kind -ENOENT whenever its
 * request runs (link-timeout-zero-drained-head: 40 of 40 runs)
 */
static int timer_due(const struct fz_sqe *s)
{
	return s->ts < 4 && (s->ts == 0 || (s->op_flags & IORING_TIMEOUT_ABS)) &&
		!fz_ts_bad(s);
}

/* a timer its prep refuses: negative or NULL timespec, or a bad pointer */
static int timer_refused(const struct fz_sqe *s)
{
	return s->ts >= 4 || fz_ts_bad(s);
}

/* rule 2 */
static void rule_counts(struct order *o)
{
	struct fz_batch *b = o->b;
	unsigned i, j;

	for (i = 0; i < b->nr; i++) {
		struct fz_sqe *s = &b->sqe[i];

		if (s->nopped || s->op != FZ_TIMEOUT || !s->count)
			continue;
		for (j = 0; j < b->nr; j++) {
			if (j == i || o->p[j].chain == o->p[i].chain)
				continue;
			if (!o->p[j].sync || o->p[j].timer)
				break;
		}
		if (j < b->nr || !timer_slow(s)) {
			s->count = 0;
			s->why = "count 0: CQEs race with it";
		}
	}
}

/* is the state of target t known when canceller c looks for it? */
static int known_state(const struct order *o, unsigned c, unsigned t)
{
	const struct props *pc = &o->p[c], *pt = &o->p[t];
	const struct fz_sqe *s = &o->b->sqe[t];

	/* the harness cancels a parked read once the submit is done */
	if (s->park && !pc->sync)
		return 0;
	if (t > c)
		return pc->early || (pc->sync && pt->sync && !pt->timer);
	if (pt->timer)
		return timer_refused(s) ||
			(pt->sync && pc->sync && timer_slow(s));
	return pt->early || (pt->sync && pc->sync);
}

static int pure(const struct fz_sqe *s, int ignore_link)
{
	if (!ignore_link && (s->flags & LINKS))
		return 0;
	if (s->nopped)
		return 1;
	return s->op == FZ_NOP || s->op == FZ_FSYNC || s->op == FZ_FADVISE ||
		s->op == FZ_STATX || s->op == FZ_TIMEOUT;
}

/* rule 3 */
static void rule_cancels(struct order *o)
{
	struct fz_batch *b = o->b;
	unsigned i, k, n, t[FZ_MAX_SQES];

	for (i = 0; i < b->nr; i++) {
		struct fz_sqe *s = &b->sqe[i];
		int known = 1, all_pure = !(s->flags & LINKS);

		if (s->nopped || (s->op != FZ_ASYNC_CANCEL &&
				  s->op != FZ_TIMEOUT_REMOVE &&
				  s->op != FZ_LINK_TIMEOUT))
			continue;
		n = targets(o, i, t);
		for (k = 0; k < n; k++) {
			const struct fz_sqe *x = &b->sqe[t[k]];

			if (s->op == FZ_LINK_TIMEOUT) {
				/*
				 * A pipe request it guards may end on the
				 * pipe's data or on the timer, whichever comes
				 * first: the request becomes a NOP (not the
				 * timer, which alone ends a read that waits).
				 */
				if (!timer_slow(s) && !x->nopped &&
				    touches_pipe(o, x)) {
					nopify(&b->sqe[t[k]], "its link timeout "
					       "races with the pipe");
					props(o, t[k]);
				}
				/*
				 * armed after its request went pending; one
				 * already due races with a request issued from
				 * task work (a chain member): -ETIME or -ENOENT
				 */
				known &= o->p[t[k]].sync &&
					(!o->p[t[k]].iowq || timer_due(s)) &&
					(!timer_due(s) ||
					 o->p[t[k]].chain == (int)t[k]);
				all_pure &= pure(x, 1);
			} else {
				known &= known_state(o, i, t[k]);
				all_pure &= pure(x, 0);
			}
		}
		if (known)
			continue;
		if (!all_pure) {
			nopify(s, "cancel races with its target");
			continue;
		}
		s->excluded = 1;
		s->why = "cancel races: CQE not compared";
		for (k = 0; k < n; k++) {
			b->sqe[t[k]].excluded = 1;
			b->sqe[t[k]].why = "cancel target: CQE not compared";
		}
	}
}

/* is SQE i guarded by a LINK_TIMEOUT, the next SQE of its chain? */
static int guarded(const struct order *o, unsigned i)
{
	const struct fz_batch *b = o->b;

	return i + 1 < b->nr && o->p[i + 1].chain == o->p[i].chain &&
		!b->sqe[i + 1].nopped && b->sqe[i + 1].op == FZ_LINK_TIMEOUT;
}

/* does an SQE after i, up to and with j, say IOSQE_IO_DRAIN? */
static int drain_between(const struct fz_batch *b, unsigned i, unsigned j)
{
	while (++i <= j)
		if (b->sqe[i].flags & IOSQE_IO_DRAIN)
			return 1;
	return 0;
}

/*
 * rule 4: a read that may find the pipe empty waits there for good once
 * nothing can fill it; the harness then cancels it by its user_data
 * (fuzz_run.c). The result must not depend on when that cancel comes:
 * such a read is sync and not drained (issued in a fixed order during the
 * submit, never queued where the cancel could catch it before it reads), its
 * user_data is its own, and every write that may fill the pipe after it
 * either follows it in its chain (it runs after the read ended) or is
 * one the harness waits for before the cancel (a feeder: not drained
 * behind the read, with its own user_data to be counted by).
 * A read a LINK_TIMEOUT guards ends on its own and is left alone.
 */
static void rule_parks(struct order *o)
{
	struct fz_batch *b = o->b;
	unsigned i, j;

	for (i = 0; i < b->nr; i++) {
		struct fz_sqe *s = &b->sqe[i];

		props(o, i);
		if (!pipe_read(o, s) || guarded(o, i))
			continue;
		if (!o->p[i].sync || o->p[i].iowq)
			nopify(s, "pipe read at an unknown time");
		else if (ud_shared(b, i))
			nopify(s, "pipe read with a shared user_data");
		else
			s->park = 1;
		props(o, i);
	}
	for (i = 0; i < b->nr; i++) {
		if (!b->sqe[i].park)
			continue;
		for (j = i + 1; j < b->nr; j++) {
			struct fz_sqe *w = &b->sqe[j];

			if (!pipe_write(o, w) || o->p[j].chain == o->p[i].chain)
				continue;
			if (drain_between(b, i, j) || ud_shared(b, j))
				nopify(w, "fills the pipe behind a parked read");
			else
				b->sqe[i].feeders |= 1U << j;
		}
	}
}

/*
 * Does SQE i end within the io_uring_enter that submits it, or the task
 * work the harness runs right after (fuzz_run.c settle())? An op the
 * kernel issues inline, not a TIMEOUT, not a read that may wait on the
 * pipe, not async, not drained (a drain request, a chain a later member
 * drains, and everything after a drain go to io-wq: io_init_req() sets
 * REQ_F_FORCE_ASYNC while a drain is active, and io-wq ends them at a
 * time of its own), in a chain closed at the end of its submit whose
 * earlier members all do (a LINK_TIMEOUT is disarmed when the request it
 * guards ends).
 */
static int settles(const struct order *o, const int *settled, unsigned i)
{
	const struct fz_batch *b = o->b;
	const struct fz_sqe *s = &b->sqe[i];
	int head = o->p[i].chain == (int)i;
	unsigned j;

	if (!inline_type(s) || (s->flags & IOSQE_ASYNC) || chain_open(b, i))
		return 0;
	if (!s->nopped && s->op == FZ_TIMEOUT)
		return 0;
	if (pipe_read(o, s) || o->p[i].iowq)
		return 0;
	if (!head)
		return settled[i - 1] && !(s->flags & IOSQE_IO_DRAIN);
	for (j = 0; j < i; j++)
		if (b->sqe[j].flags & IOSQE_IO_DRAIN)
			return 0;
	return 1;
}

/*
 * rule 5: the harness waits for every request's CQE (fuzz_run.c), and a
 * CQE_SKIP_SUCCESS request that succeeds posts none, nor do the requests
 * linked behind one that fails. Such a chain keeps its flags only when all
 * of it ends within its submit and no request outside it has one of its
 * user_data: its CQEs are then not waited for, only compared. In any other
 * chain IOSQE_CQE_SKIP_SUCCESS is taken off every member.
 */
static void rule_skip(struct order *o)
{
	struct fz_batch *b = o->b;
	int settled[FZ_MAX_SQES];
	unsigned i, j, h, end;

	for (i = 0; i < b->nr; i++)
		settled[i] = settles(o, settled, i);
	for (h = 0; h < b->nr; h = end) {
		int keep = 1, skip = 0;

		for (end = h; end < b->nr && o->p[end].chain == (int)h; end++) {
			keep &= settled[end];
			skip |= !!(b->sqe[end].flags & IOSQE_CQE_SKIP_SUCCESS);
			for (j = 0; j < b->nr; j++)
				if (o->p[j].chain != (int)h &&
				    b->sqe[j].ud == b->sqe[end].ud)
					keep = 0;
		}
		if (!skip)
			continue;
		for (i = h; i < end; i++) {
			struct fz_sqe *s = &b->sqe[i];

			if (keep) {
				s->uncounted = 1;
			} else if (s->flags & IOSQE_CQE_SKIP_SUCCESS) {
				s->flags &= ~IOSQE_CQE_SKIP_SUCCESS;
				if (!s->why)
					s->why = "no CQE_SKIP_SUCCESS: ends late";
			}
		}
	}
}

/*
 * IORING_RECVSEND_POLL_FIRST on a request that may run in io-wq: 6.18's
 * io_wq_submit_work() issues it blocking (no FORCE_ASYNC of its own, so
 * no poll is armed) and the op's POLL_FIRST answer, -EAGAIN, becomes its
 * CQE; the user engine waits for readiness and receives
 * (recvmsg-poll-first-after-async-link, accepted). Such a request loses
 * the flag.
 */
static void rule_poll_first(struct order *o)
{
	unsigned i;

	for (i = 0; i < o->b->nr; i++) {
		struct fz_sqe *s = &o->b->sqe[i];

		if (o->p[i].sync || !(s->mode & IORING_RECVSEND_POLL_FIRST) ||
		    (s->op != FZ_SEND && s->op != FZ_RECV &&
		     s->op != FZ_SENDMSG && s->op != FZ_RECVMSG))
			continue;
		s->mode &= ~IORING_RECVSEND_POLL_FIRST;
		if (!s->why)
			s->why = "no POLL_FIRST: may run in io-wq";
	}
}

void fz_order(struct fz_batch *b)
{
	struct order o;
	unsigned i;

	memset(&o, 0, sizeof(o));
	o.b = b;
	for (i = 0; i < b->nr; i++) {
		const struct fz_sqe *s = &b->sqe[i];

		if (s->op == FZ_FILES_UPDATE || s->op == FZ_CLOSE ||
		    ((s->op == FZ_OPENAT || s->op == FZ_SOCKET ||
		      s->op == FZ_ACCEPT) &&
		     s->slot != -1))
			o.slot_writers = 1;
	}
	rule_conflicts(&o);
	/* nops may have made later requests sync: recompute */
	for (i = 0; i < b->nr; i++)
		props(&o, i);
	rule_parks(&o);
	for (i = 0; i < b->nr; i++)
		props(&o, i);
	rule_counts(&o);
	rule_cancels(&o);
	for (i = 0; i < b->nr; i++)
		props(&o, i);
	rule_skip(&o);
	rule_poll_first(&o);
}
