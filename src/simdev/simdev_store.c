/* SPDX-License-Identifier: MIT */
/*
 * simdev_store.c - a simdev's blocks: what reads see, what survives a
 * power loss.
 *
 * Storage is a table of bs-sized blocks made on first write (a block never
 * written reads as zeros). Each block holds up to three versions:
 *   cur  the latest completed write (volatile: the device's write cache);
 *   dur  what survives a power loss (memory mode; with file=PATH the
 *        durable data is the file and a block lives here only while dirty);
 *   cov  while a flush is in flight: the version that flush covers, kept
 *        when a newer write replaces it in cur.
 * Delivered writes are numbered (wseq). A flush takes the number reached
 * when it is submitted as its mark; when it completes, every dirty block
 * whose cur has a number <= mark becomes durable (or its cov does). A
 * power loss drops every dirty version (powerloss=drop) or keeps a random
 * subset of blocks' latest versions (powerloss=torn).
 *
 * Reads and writes copy under slock (memcpy only). With file=PATH the
 * file reads and writes happen outside it; one writer of durable data at a
 * time (wb_busy), the others wait for it in short sleeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "engine/engine.h"
#include "simdev/simdev_int.h"

#define AR_SIM_FREE_BUFS_MAX	1024
#define AR_SIM_IOV_BATCH	16

struct ar_sim_blk {
	struct ar_sim_blk *hnext;		/* hash chain */
	struct ar_sim_blk *dnext, *dprev;	/* dirty list */
	uint64_t lba;
	unsigned char *cur, *dur, *cov;
	uint64_t wseq;				/* the write that made cur */
	uint64_t cov_seq;
};

/* ---- iovec cursor ---- */

struct ar_iov_cur {
	const struct iovec *iov;
	unsigned nr, idx;
	size_t off;
};

static void ar_iov_init(struct ar_iov_cur *c, const struct ar_sim_io *io)
{
	c->iov = io->iov;
	c->nr = io->nr_iov;
	c->idx = 0;
	c->off = 0;
}

/* copy n bytes between buf (NULL: zeros, when reading) and the iovecs */
static void ar_iov_copy(struct ar_iov_cur *c, unsigned char *buf, size_t n,
			bool to_iov)
{
	while (n && c->idx < c->nr) {
		size_t room = c->iov[c->idx].iov_len - c->off;
		size_t k = n < room ? n : room;
		unsigned char *p = (unsigned char *)c->iov[c->idx].iov_base + c->off;

		if (!to_iov)
			memcpy(buf, p, k);
		else if (buf)
			memcpy(p, buf, k);
		else
			memset(p, 0, k);
		if (buf)
			buf += k;
		n -= k;
		c->off += k;
		if (c->off == c->iov[c->idx].iov_len) {
			c->idx++;
			c->off = 0;
		}
	}
}

/* the next n bytes of the iovecs as at most max segments; advances */
static unsigned ar_iov_take(struct ar_iov_cur *c, size_t n, struct iovec *out,
			    unsigned max, size_t *got)
{
	unsigned k = 0;

	*got = 0;
	while (n && k < max && c->idx < c->nr) {
		size_t room = c->iov[c->idx].iov_len - c->off;
		size_t t = n < room ? n : room;

		out[k].iov_base = (char *)c->iov[c->idx].iov_base + c->off;
		out[k++].iov_len = t;
		*got += t;
		n -= t;
		c->off += t;
		if (c->off == c->iov[c->idx].iov_len) {
			c->idx++;
			c->off = 0;
		}
	}
	return k;
}

/* ---- block buffers: recycled, so steady rewriting allocates nothing ---- */

static unsigned char *ar_buf_get(struct ar_sim_store *st)
{
	void *b = st->free_bufs;

	if (b) {
		memcpy(&st->free_bufs, b, sizeof(void *));
		st->nfree_bufs--;
		return b;
	}
	return malloc(st->bs);
}

static void ar_buf_put(struct ar_sim_store *st, unsigned char *b)
{
	if (!b)
		return;
	if (st->nfree_bufs >= AR_SIM_FREE_BUFS_MAX) {
		free(b);
		return;
	}
	memcpy(b, &st->free_bufs, sizeof(void *));
	st->free_bufs = b;
	st->nfree_bufs++;
}

/* ---- the block table ---- */

static size_t ar_blk_hash(const struct ar_sim_store *st, uint64_t lba)
{
	return (size_t)((lba * 0x9e3779b97f4a7c15ULL) >> 32) & (st->nbuckets - 1);
}

static struct ar_sim_blk *ar_blk_find(struct ar_sim_store *st, uint64_t lba)
{
	struct ar_sim_blk *b;

	for (b = st->buckets[ar_blk_hash(st, lba)]; b; b = b->hnext)
		if (b->lba == lba)
			return b;
	return NULL;
}

/* twice the buckets once there are more blocks than buckets */
static void ar_blk_grow(struct ar_sim_store *st)
{
	size_t old = st->nbuckets, i;
	struct ar_sim_blk **nb = calloc(old * 2, sizeof(*nb)), **ob = st->buckets;
	struct ar_sim_blk *b, *next;

	if (!nb)
		return;		/* longer chains, still correct */
	st->buckets = nb;
	st->nbuckets = old * 2;
	for (i = 0; i < old; i++) {
		for (b = ob[i]; b; b = next) {
			size_t h = ar_blk_hash(st, b->lba);

			next = b->hnext;
			b->hnext = nb[h];
			nb[h] = b;
		}
	}
	free(ob);
}

static struct ar_sim_blk *ar_blk_add(struct ar_sim_store *st, uint64_t lba)
{
	struct ar_sim_blk *b = st->free_blks;
	size_t h;

	if (b) {
		st->free_blks = b->hnext;
		st->nfree_blks--;
		memset(b, 0, sizeof(*b));
	} else if (!(b = calloc(1, sizeof(*b)))) {
		return NULL;
	}
	if (st->nblocks >= st->nbuckets)
		ar_blk_grow(st);
	h = ar_blk_hash(st, lba);
	b->lba = lba;
	b->hnext = st->buckets[h];
	st->buckets[h] = b;
	st->nblocks++;
	return b;
}

static void ar_blk_remove(struct ar_sim_store *st, struct ar_sim_blk *b)
{
	struct ar_sim_blk **pp = &st->buckets[ar_blk_hash(st, b->lba)];

	while (*pp != b)
		pp = &(*pp)->hnext;
	*pp = b->hnext;
	st->nblocks--;
	if (st->nfree_blks >= AR_SIM_FREE_BUFS_MAX) {
		free(b);
		return;
	}
	b->hnext = st->free_blks;
	st->free_blks = b;
	st->nfree_blks++;
}

static void ar_dirty_add(struct ar_sim_store *st, struct ar_sim_blk *b)
{
	b->dprev = NULL;
	b->dnext = st->dirty;
	if (st->dirty)
		st->dirty->dprev = b;
	st->dirty = b;
}

static void ar_dirty_del(struct ar_sim_store *st, struct ar_sim_blk *b)
{
	if (b->dprev)
		b->dprev->dnext = b->dnext;
	else
		st->dirty = b->dnext;
	if (b->dnext)
		b->dnext->dprev = b->dprev;
	b->dnext = b->dprev = NULL;
}

/* a dirty block is clean again: memory keeps it, file mode forgets it */
static void ar_blk_clean(struct ar_sim_store *st, struct ar_sim_blk *b)
{
	ar_dirty_del(st, b);
	ar_buf_put(st, b->cur);
	ar_buf_put(st, b->cov);
	b->cur = b->cov = NULL;
	if (st->file_fd >= 0)
		ar_blk_remove(st, b);
}

/* ---- setup ---- */

/* file=PATH: open it; the device's size is the file's when the spec has none */
static int ar_store_open(struct ar_sim_store *st, struct ar_sim_spec *spec)
{
	struct stat sb;
	int fd = open(spec->file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		ar_debug("simdev: file=%s: %s", spec->file, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		ar_debug("simdev: file=%s: not a regular file", spec->file);
		close(fd);
		return -EINVAL;
	}
	if (!spec->size) {
		spec->size = (uint64_t)sb.st_size / spec->bs * spec->bs;
		if (!spec->size) {
			ar_debug("simdev spec: bad file=%s: smaller than a block "
				 "and no size= given", spec->file);
			close(fd);
			return -EINVAL;
		}
	} else if ((uint64_t)sb.st_size < spec->size &&
		   ftruncate(fd, (off_t)spec->size)) {
		ar_debug("simdev: file=%s: cannot extend to size=%llu: %s",
			 spec->file, (unsigned long long)spec->size, strerror(errno));
		close(fd);
		return -errno;
	}
	st->file_fd = fd;
	return 0;
}

int ar_sim_store_init(struct ar_sim_store *st, struct ar_sim_spec *spec)
{
	int ret;

	memset(st, 0, sizeof(*st));
	st->bs = spec->bs;
	st->torn = spec->pl_torn;
	st->file_fd = -1;
	if (spec->file) {
		ret = ar_store_open(st, spec);
		if (ret)
			return ret;
	}
	st->nbuckets = 1024;
	st->buckets = calloc(st->nbuckets, sizeof(*st->buckets));
	if (!st->buckets) {
		if (st->file_fd >= 0)
			close(st->file_fd);
		return -ENOMEM;
	}
	ar_sim_rng_seed(&st->rng, spec->seed, 3);
	pthread_mutex_init(&st->slock, NULL);
	return 0;
}

void ar_sim_store_destroy(struct ar_sim_store *st)
{
	struct ar_sim_blk *b, *next;
	void *buf;

	for (size_t i = 0; st->buckets && i < st->nbuckets; i++) {
		for (b = st->buckets[i]; b; b = next) {
			next = b->hnext;
			free(b->cur);
			free(b->dur);
			free(b->cov);
			free(b);
		}
	}
	free(st->buckets);
	while ((b = st->free_blks)) {
		st->free_blks = b->hnext;
		free(b);
	}
	while ((buf = st->free_bufs)) {
		memcpy(&st->free_bufs, buf, sizeof(void *));
		free(buf);
	}
	free(st->stage);
	if (st->file_fd >= 0)
		close(st->file_fd);
	pthread_mutex_destroy(&st->slock);
}

/* ---- reads ---- */

/* file mode: n bytes at pos from the file into the iovecs (zeros past its end) */
static void ar_file_read(struct ar_sim_store *st, struct ar_iov_cur *c,
			 uint64_t pos, size_t n)
{
	struct iovec seg[AR_SIM_IOV_BATCH];
	size_t got;
	ssize_t r;
	unsigned k;
	int e = errno;

	while (n) {
		k = ar_iov_take(c, n, seg, AR_SIM_IOV_BATCH, &got);
		if (!k)
			break;
		r = preadv(st->file_fd, seg, (int)k, (off_t)pos);
		if (r < 0)
			r = 0;
		/* past the file's end (or a failed read): the rest reads as zeros */
		for (unsigned i = 0; i < k; i++) {
			size_t have = (size_t)r < seg[i].iov_len ? (size_t)r : seg[i].iov_len;

			memset((char *)seg[i].iov_base + have, 0, seg[i].iov_len - have);
			r -= (ssize_t)have;
		}
		pos += got;
		n -= got;
	}
	errno = e;
}

void ar_sim_store_read(struct ar_sim_store *st, const struct ar_sim_io *io)
{
	uint64_t pos = io->off, left = io->xfer;
	struct ar_iov_cur c;

	ar_iov_init(&c, io);
	while (left) {
		uint64_t lba = pos / st->bs;
		size_t boff = (size_t)(pos % st->bs);
		size_t n = st->bs - boff < left ? st->bs - boff : (size_t)left;
		struct ar_sim_blk *b;
		unsigned char *src;

		pthread_mutex_lock(&st->slock);
		b = ar_blk_find(st, lba);
		src = b ? (b->cur ? b->cur : b->dur) : NULL;
		if (src || st->file_fd < 0) {
			ar_iov_copy(&c, src ? src + boff : NULL, n, true);
			pthread_mutex_unlock(&st->slock);
		} else {
			pthread_mutex_unlock(&st->slock);
			ar_file_read(st, &c, pos, n);
		}
		pos += n;
		left -= n;
	}
}

/* ---- writes ---- */

/*
 * A pending flush covers this block's cur: keep that version as cov
 * before a newer write replaces it.
 */
static bool ar_blk_needs_cov(const struct ar_sim_store *st,
			     const struct ar_sim_blk *b)
{
	return b->cur && st->flush_pending && b->wseq <= st->flush_max;
}

/*
 * Make b->cur writable for a piece of n bytes at boff. base: the block's
 * durable bytes when it has none here (file mode, read by the caller).
 */
static int ar_blk_prepare(struct ar_sim_store *st, struct ar_sim_blk *b,
			  size_t boff, size_t n, const unsigned char *base)
{
	unsigned char *nb, *from;

	if (ar_blk_needs_cov(st, b)) {
		ar_buf_put(st, b->cov);
		b->cov = b->cur;
		b->cov_seq = b->wseq;
		b->cur = NULL;
	}
	if (b->cur)
		return 0;
	nb = ar_buf_get(st);
	if (!nb)
		return -ENOMEM;
	from = b->cov ? b->cov : (st->file_fd < 0 ? b->dur : (unsigned char *)base);
	if (boff || n != st->bs) {
		if (from)
			memcpy(nb, from, st->bs);
		else
			memset(nb, 0, st->bs);
	}
	if (!b->cov)
		ar_dirty_add(st, b);	/* it was clean */
	b->cur = nb;
	return 0;
}

/*
 * File mode, a partial piece of a block not held here: its durable bytes
 * come from the file, read without the lock. Returns the buffer (the
 * caller frees it) or NULL when none is needed.
 */
static unsigned char *ar_blk_base(struct ar_sim_store *st, uint64_t lba,
				  size_t boff, size_t n, int *err)
{
	struct iovec v;
	struct ar_iov_cur c;
	unsigned char *base;

	*err = 0;
	if (st->file_fd < 0 || (!boff && n == st->bs))
		return NULL;
	base = malloc(st->bs);
	if (!base) {
		*err = -ENOMEM;
		return NULL;
	}
	v.iov_base = base;
	v.iov_len = st->bs;
	c.iov = &v;
	c.nr = 1;
	c.idx = 0;
	c.off = 0;
	ar_file_read(st, &c, lba * st->bs, st->bs);
	return base;
}

static int ar_write_piece(struct ar_sim_store *st, struct ar_iov_cur *c,
			  uint64_t pos, size_t n, uint64_t seq)
{
	uint64_t lba = pos / st->bs, gen = 0;
	size_t boff = (size_t)(pos % st->bs);
	unsigned char *base = NULL;
	struct ar_sim_blk *b;
	int ret = 0;

	for (;;) {
		pthread_mutex_lock(&st->slock);
		b = ar_blk_find(st, lba);
		if (b && b->cur)
			break;		/* the cache has the block: no base needed */
		/*
		 * File mode, part of a block the cache does not hold: its old
		 * bytes come from the file, read unlocked. A durable write
		 * staged meanwhile (file_gen moved) may have changed them:
		 * read again.
		 */
		if (st->file_fd >= 0 && (boff || n != st->bs) &&
		    (!base || gen != st->file_gen)) {
			gen = st->file_gen;
			pthread_mutex_unlock(&st->slock);
			free(base);
			base = ar_blk_base(st, lba, boff, n, &ret);
			if (ret)
				return ret;
			continue;
		}
		break;
	}
	if (!b)
		b = ar_blk_add(st, lba);
	if (!b)
		ret = -ENOMEM;
	else
		ret = ar_blk_prepare(st, b, boff, n, base);
	if (!ret) {
		ar_iov_copy(c, b->cur + boff, n, false);
		b->wseq = seq;
	}
	pthread_mutex_unlock(&st->slock);
	free(base);
	return ret;
}

int ar_sim_store_write(struct ar_sim_store *st, const struct ar_sim_io *io)
{
	uint64_t pos = io->off, left = io->xfer, seq;
	struct ar_iov_cur c;
	int ret = 0;

	ar_iov_init(&c, io);
	pthread_mutex_lock(&st->slock);
	seq = ++st->wseq;
	pthread_mutex_unlock(&st->slock);
	while (left && !ret) {
		size_t boff = (size_t)(pos % st->bs);
		size_t n = st->bs - boff < left ? st->bs - boff : (size_t)left;

		ret = ar_write_piece(st, &c, pos, n, seq);
		pos += n;
		left -= n;
	}
	return ret;
}

/* ---- flush and power loss ---- */

uint64_t ar_sim_store_flush_begin(struct ar_sim_store *st)
{
	uint64_t mark;

	pthread_mutex_lock(&st->slock);
	mark = st->wseq;
	st->flush_pending++;
	if (mark > st->flush_max)
		st->flush_max = mark;
	pthread_mutex_unlock(&st->slock);
	return mark;
}

/* a flush is no longer pending; with none left, saved versions go */
static void ar_flush_retire(struct ar_sim_store *st)
{
	struct ar_sim_blk *b;

	if (--st->flush_pending)
		return;
	st->flush_max = 0;
	for (b = st->dirty; b; b = b->dnext) {
		ar_buf_put(st, b->cov);
		b->cov = NULL;
	}
}

/*
 * The version of b a flush with this mark makes durable: cur when its
 * write is covered, else cov (covered by this or a later pending flush:
 * persisting a newer completed version is what a device may always do).
 */
static unsigned char *ar_flush_pick(struct ar_sim_blk *b, uint64_t mark,
				    bool *is_cur)
{
	*is_cur = b->wseq <= mark;
	return *is_cur ? b->cur : b->cov;
}

static void ar_mem_flush(struct ar_sim_store *st, uint64_t mark)
{
	struct ar_sim_blk *b, *next;
	bool is_cur;

	for (b = st->dirty; b; b = next) {
		unsigned char *v = ar_flush_pick(b, mark, &is_cur);

		next = b->dnext;
		if (!v)
			continue;
		ar_buf_put(st, b->dur);
		b->dur = v;
		if (is_cur) {
			b->cur = NULL;
			ar_buf_put(st, b->cov);
			b->cov = NULL;
			ar_dirty_del(st, b);
		} else {
			b->cov = NULL;
		}
	}
}

/* ---- file mode: durable data goes to the file, one writer at a time ---- */

struct ar_stage_ent {
	uint64_t lba, seq;
	bool is_cur;
};

static void ar_wb_acquire(struct ar_sim_store *st)
{
	struct timespec ts = { 0, 20000 };

	/* acquire pairs with the release in ar_wb_release(): its writes are done */
	while (atomic_exchange_explicit(&st->wb_busy, true, memory_order_acquire))
		nanosleep(&ts, NULL);	/* the writer is in pwrite: bounded */
}

static void ar_wb_release(struct ar_sim_store *st)
{
	atomic_store_explicit(&st->wb_busy, false, memory_order_release);
}

/* room for n staged blocks (data and their entries); under slock */
static int ar_stage_room(struct ar_sim_store *st, size_t n)
{
	size_t need = n * (st->bs + sizeof(struct ar_stage_ent));
	unsigned char *p;

	if (need <= st->stage_cap)
		return 0;
	p = realloc(st->stage, need);
	if (!p)
		return -ENOMEM;
	st->stage = p;
	st->stage_cap = need;
	return 0;
}

static struct ar_stage_ent *ar_stage_ents(struct ar_sim_store *st, size_t n)
{
	return (struct ar_stage_ent *)(st->stage + n * st->bs);
}

static size_t ar_dirty_count(struct ar_sim_store *st)
{
	size_t n = 0;

	for (struct ar_sim_blk *b = st->dirty; b; b = b->dnext)
		n++;
	return n;
}

/*
 * Copy the versions to persist into the stage (under slock): for a flush
 * (pl false) what ar_flush_pick() picks; for a torn power loss a random
 * half of the dirty blocks' cur. Returns how many, or -ENOMEM.
 */
static long ar_stage_fill(struct ar_sim_store *st, uint64_t mark, bool pl)
{
	size_t cap = ar_dirty_count(st), n = 0;
	struct ar_stage_ent *ent;
	struct ar_sim_blk *b;
	bool is_cur;

	if (ar_stage_room(st, cap))
		return -ENOMEM;
	st->file_gen++;		/* unlocked base reads of these blocks go stale */
	ent = ar_stage_ents(st, cap);
	for (b = st->dirty; b; b = b->dnext) {
		unsigned char *v;

		if (pl) {
			is_cur = true;
			v = (ar_sim_rng_next(&st->rng) >> 63) ? b->cur : NULL;
		} else {
			v = ar_flush_pick(b, mark, &is_cur);
		}
		if (!v)
			continue;
		memcpy(st->stage + n * st->bs, v, st->bs);
		ent[n].lba = b->lba;
		ent[n].seq = is_cur ? b->wseq : b->cov_seq;
		ent[n].is_cur = is_cur;
		n++;
	}
	/* the entries move down next to the data actually staged */
	memmove(ar_stage_ents(st, n), ent, n * sizeof(*ent));
	return (long)n;
}

static void ar_stage_write(struct ar_sim_store *st, size_t n)
{
	struct ar_stage_ent *ent = ar_stage_ents(st, n);
	int e = errno;

	for (size_t i = 0; i < n; i++)
		(void)!pwrite(st->file_fd, st->stage + i * st->bs, st->bs,
			      (off_t)(ent[i].lba * st->bs));
	errno = e;
}

/* after a flush's writes: the versions now in the file leave the cache */
static void ar_stage_settle(struct ar_sim_store *st, size_t n)
{
	struct ar_stage_ent *ent = ar_stage_ents(st, n);

	for (size_t i = 0; i < n; i++) {
		struct ar_sim_blk *b = ar_blk_find(st, ent[i].lba);

		if (!b)
			continue;
		if (ent[i].is_cur && b->cur && b->wseq == ent[i].seq) {
			ar_blk_clean(st, b);
		} else if (!ent[i].is_cur && b->cov && b->cov_seq == ent[i].seq) {
			ar_buf_put(st, b->cov);
			b->cov = NULL;
		}
	}
}

static void ar_file_flush(struct ar_sim_store *st, uint64_t mark, bool ok)
{
	long n = 0;

	ar_wb_acquire(st);
	pthread_mutex_lock(&st->slock);
	if (ok)
		n = ar_stage_fill(st, mark, false);
	pthread_mutex_unlock(&st->slock);
	if (n > 0)
		ar_stage_write(st, (size_t)n);
	pthread_mutex_lock(&st->slock);
	if (n > 0)
		ar_stage_settle(st, (size_t)n);
	ar_flush_retire(st);
	pthread_mutex_unlock(&st->slock);
	ar_wb_release(st);
}

void ar_sim_store_flush_end(struct ar_sim_store *st, uint64_t mark, bool ok)
{
	if (st->file_fd >= 0) {
		ar_file_flush(st, mark, ok);
		return;
	}
	pthread_mutex_lock(&st->slock);
	if (ok)
		ar_mem_flush(st, mark);
	ar_flush_retire(st);
	pthread_mutex_unlock(&st->slock);
}

static void ar_mem_power_loss(struct ar_sim_store *st)
{
	struct ar_sim_blk *b;

	while ((b = st->dirty)) {
		/* torn: each block independently keeps its latest write or not */
		if (st->torn && (ar_sim_rng_next(&st->rng) >> 63)) {
			ar_buf_put(st, b->dur);
			b->dur = b->cur;
			b->cur = NULL;
		}
		ar_blk_clean(st, b);
	}
}

int ar_sim_store_power_loss(struct ar_sim_store *st)
{
	long n = 0;

	if (st->file_fd < 0) {
		pthread_mutex_lock(&st->slock);
		ar_mem_power_loss(st);
		pthread_mutex_unlock(&st->slock);
		return 0;
	}
	ar_wb_acquire(st);
	pthread_mutex_lock(&st->slock);
	if (st->torn)
		n = ar_stage_fill(st, 0, true);
	while (st->dirty)
		ar_blk_clean(st, st->dirty);
	pthread_mutex_unlock(&st->slock);
	if (n > 0)
		ar_stage_write(st, (size_t)n);
	ar_wb_release(st);
	return n < 0 ? (int)n : 0;
}
