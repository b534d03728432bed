/* SPDX-License-Identifier: MIT */
/*
 * fuzz_compare.c - two runs of a batch must agree on: ring setup and
 * registration results, every io_uring_submit() result, the CQEs as a
 * multiset of (user_data, res, flags), the fds left open after the ring
 * exited, the temp dir's tree (names, types, modes, link counts, sizes,
 * contents, symlink targets), the harness files' contents through their
 * fds, the bytes left in the pipe, the arena, and what the requests wrote
 * into the bad-pointer pool (the mapped part of its straddle pages).
 *
 * The only normalization: an OPENAT's, SOCKET's or ACCEPT's fd number
 * (which depends on what else the process has open) becomes FZ_RES_FD,
 * SOCK_NONEMPTY on a failed CQE is not compared (below), and CQEs
 * fuzz_order.c marked as racing (a cancel that may or may not find its target, and
 * that target) are left out. Anything else that differs is a finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

static int excluded_ud(const struct fz_batch *b, uint64_t ud)
{
	unsigned i;

	for (i = 0; i < b->nr; i++)
		if (b->sqe[i].ud == ud && b->sqe[i].excluded)
			return 1;
	return 0;
}

static int openat_ud(const struct fz_batch *b, uint64_t ud)
{
	unsigned i;

	for (i = 0; i < b->nr; i++) {
		const struct fz_sqe *s = &b->sqe[i];

		/*
		 * OPENAT "direct ALLOC" (slot -2) too: liburing 2.3's
		 * io_uring_prep_openat_direct() encodes IORING_FILE_INDEX_ALLOC
		 * as file_index ALLOC + 1 = 0, a plain open; and the user
		 * engine holds more fds of its own than a kernel ring
		 */
		if (s->ud == ud && !s->nopped && ((s->op == FZ_OPENAT &&
		    s->slot < 0) || fz_net_returns_fd(s)))
			return 1;
	}
	return 0;
}

static int cqe_cmp(const void *a, const void *b)
{
	const struct fz_cqe *x = a, *y = b;

	if (x->user_data != y->user_data)
		return x->user_data < y->user_data ? -1 : 1;
	if (x->res != y->res)
		return x->res < y->res ? -1 : 1;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	return 0;
}

/* the compared CQEs, sorted; returns how many */
static unsigned normalize(const struct fz_batch *b, const struct fz_result *r,
			  struct fz_cqe *out)
{
	unsigned i, n = 0;

	for (i = 0; i < r->nr_cqe && i < FZ_MAX_CQES; i++) {
		struct fz_cqe c = r->cqe[i];

		if (excluded_ud(b, c.user_data))
			continue;
		if (c.res >= 0 && openat_ud(b, c.user_data))
			c.res = FZ_RES_FD;
		/*
		 * ACCEPTED DIFFERENCE (docs/semantics.md D72, finding
		 * recvmsg-efault-unix-nonempty): this 6.18's unix stream
		 * receive sets msg_inq on an error too, so a RECVMSG that
		 * fails -EFAULT with data still queued has SOCK_NONEMPTY
		 * (changed upstream after liburing issue 1509; TCP never
		 * set it on a failure); the user engine reports it only with
		 * a result. Not compared on a failure.
		 */
		if (c.res < 0)
			c.flags &= ~IORING_CQE_F_SOCK_NONEMPTY;
		out[n++] = c;
	}
	qsort(out, n, sizeof(*out), cqe_cmp);
	return n;
}

static void print_res(int32_t res)
{
	if (res == FZ_RES_FD)
		printf("fd");
	else if (res < 0 && res > -4096)
		printf("-%s(%d)", strerrorname_np(-res) ? strerrorname_np(-res) :
		       "?", res);
	else
		printf("%d", res);
}

static void print_cqes(const char *what, const struct fz_cqe *c, unsigned n)
{
	unsigned i;

	printf("    %s:", what);
	for (i = 0; i < n; i++) {
		printf(" {%llu,", (unsigned long long)c[i].user_data);
		print_res(c[i].res);
		if (c[i].flags)
			printf(",f=0x%x", c[i].flags);
		printf("}");
	}
	printf("\n");
}

static void print_run(const struct fz_batch *b, const struct fz_result *r)
{
	struct fz_cqe norm[FZ_MAX_CQES];
	unsigned i, n = normalize(b, r, norm);

	printf("  %s: setup %d, register files %d buffers %d buffer ring %d, "
	       "wait region %d, issue=inline %d, %u queued, submit:", r->engine,
	       r->init_ret, r->reg_files_ret, r->reg_bufs_ret, r->reg_pbuf_ret,
	       r->wait_reg_ret, r->policy_ret, r->queued);
	for (i = 0; i < r->nr_submit; i++)
		printf(" %d", r->submit[i]);
	printf(", reap error %d, %u CQEs, %u parks cancelled, %d fds left, "
	       "pipe %d bytes, %lld us\n", r->reap_err, r->nr_cqe, r->cancels,
	       r->extra_fds, r->pipe_bytes, r->usec);
	if (r->hung)
		printf("    %u CQEs had not come after %d s\n", r->missing,
		       FZ_HANG_SEC);
	if (r->extra_fds)
		printf("    first fd left: %s\n", r->extra_what);
	print_cqes("arrival ", r->cqe, r->nr_cqe < FZ_MAX_CQES ?
		   r->nr_cqe : FZ_MAX_CQES);
	print_cqes("compared", norm, n);
	for (i = 0; i < r->nr_ent; i++)
		printf("    %-12s mode 0%o nlink %lu size %lld hash %016llx "
		       "xattrs %016llx\n",
		       r->ent[i].path, r->ent[i].mode,
		       (unsigned long)r->ent[i].nlink, (long long)r->ent[i].size,
		       (unsigned long long)r->ent[i].hash,
		       (unsigned long long)r->ent[i].xhash);
	for (i = 0; i < FZ_NR_FILES; i++)
		printf("    fd f%u: size %lld hash %016llx\n", i,
		       (long long)r->file_size[i],
		       (unsigned long long)r->file_hash[i]);
	printf("    sockets and pipes made %d, net hash %016llx\n", r->made,
	       (unsigned long long)r->net_hash);
	printf("    arena hash %016llx, buffer ring hash %016llx, "
	       "bad-pointer pool hash %016llx\n",
	       (unsigned long long)r->arena_hash,
	       (unsigned long long)r->pbuf_hash,
	       (unsigned long long)r->pool_hash);
}

/* the first difference, in words, or NULL */
static const char *differ(const struct fz_batch *b, const struct fz_result *a,
			  const struct fz_result *c)
{
	static struct fz_cqe na[FZ_MAX_CQES], nc[FZ_MAX_CQES];
	unsigned i, n;

	if (a->init_ret != c->init_ret)
		return "ring setup result";
	if (a->reg_files_ret != c->reg_files_ret)
		return "register files result";
	if (a->reg_bufs_ret != c->reg_bufs_ret)
		return "register buffers result";
	if (a->wait_reg_ret != c->wait_reg_ret)
		return "wait region registration result";
	if (a->reg_pbuf_ret != c->reg_pbuf_ret)
		return "register buffer ring result";
	if (a->policy_ret != c->policy_ret)
		return "issue=inline result";
	if (a->queued != c->queued || a->nr_submit != c->nr_submit ||
	    memcmp(a->submit, c->submit, a->nr_submit * sizeof(a->submit[0])))
		return "io_uring_submit results";
	if (a->hung || c->hung)
		return "CQEs that never came";
	if (a->reap_err != c->reap_err)
		return "wait error";
	if (a->nr_cqe > FZ_MAX_CQES || c->nr_cqe > FZ_MAX_CQES)
		return "more CQEs than requests";
	n = normalize(b, a, na);
	if (n != normalize(b, c, nc) || memcmp(na, nc, n * sizeof(na[0])))
		return "CQEs";
	if (a->extra_fds != c->extra_fds)
		return "fds left open after exit";
	if (a->nr_ent != c->nr_ent)
		return "temp dir entries";
	for (i = 0; i < a->nr_ent; i++) {
		const struct fz_entry *x = &a->ent[i], *y = &c->ent[i];

		if (strcmp(x->path, y->path) || x->mode != y->mode ||
		    x->nlink != y->nlink || x->size != y->size ||
		    x->hash != y->hash || x->xhash != y->xhash)
			return "temp dir entries";
	}
	for (i = 0; i < FZ_NR_FILES; i++)
		if (a->file_size[i] != c->file_size[i] ||
		    a->file_hash[i] != c->file_hash[i])
			return "harness file contents";
	if (a->pipe_bytes != c->pipe_bytes)
		return "bytes left in the pipe";
	if (a->made != c->made)
		return "sockets and pipes requests made";
	if (a->net_hash != c->net_hash)
		return "socket queues or epoll ready list";
	if (a->arena_hash != c->arena_hash)
		return "buffer contents";
	if (a->pbuf_hash != c->pbuf_hash)
		return "incremental buffer ring entries";
	if (a->pool_hash != c->pool_hash)
		return "bad-pointer pool contents";
	return NULL;
}

int fz_compare(const struct fz_batch *b, struct fz_result *a,
	       struct fz_result *c, int verbose)
{
	const char *what = differ(b, a, c);

	if (!what && !verbose)
		return 0;
	if (what)
		printf("\n==== MISMATCH (%s) between %s and %s ====\n", what,
		       a->engine, c->engine);
	else
		printf("\n==== same results on %s and %s ====\n", a->engine,
		       c->engine);
	fz_print_batch(b);
	print_run(b, a);
	print_run(b, c);
	fflush(stdout);
	return !!what;
}
