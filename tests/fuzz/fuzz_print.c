/* SPDX-License-Identifier: MIT */
/*
 * fuzz_print.c - the decoded batch in words, as a finding's report shows
 * it: ring configuration, then one line per SQE with its arguments and
 * what fuzz_order.c changed.
 */
#include <stdio.h>
#include "fuzz.h"

static const char *const fd_names[] = {
	"f0", "f1", "f2", "pipe_r", "pipe_w", "dirfd", "-1", "9999(closed)",
};

static void print_flags(unsigned f)
{
	static const char *const bits[] = {
		"FIXED_FILE", "DRAIN", "LINK", "HARDLINK", "ASYNC",
		"BUFFER_SELECT", "CQE_SKIP_SUCCESS", "INVALID_BIT7",
	};
	int i, any = 0;

	printf(" flags=");
	for (i = 0; i < 8; i++) {
		if (f & (1U << i)) {
			printf("%s%s", any ? "|" : "", bits[i]);
			any = 1;
		}
	}
	if (!any)
		printf("0");
}

static void print_fd(const struct fz_sqe *s, int fd)
{
	if (s->flags & IOSQE_FIXED_FILE)
		printf(" slot=%d", fd);
	else
		printf(" fd=%s", fd_names[fd]);
}

static void print_ts(int ts)
{
	static const char *const t[] = {
		"0ns", "1ms", "2ms", "1.5e9ns", "-1s", "NULL",
	};

	printf(" ts=%s", t[ts]);
}

static void print_args(const struct fz_sqe *s)
{
	if (fz_is_net(s)) {
		fz_net_print(s);
		return;
	}
	switch (s->op) {
	case FZ_READ: case FZ_WRITE:
		print_fd(s, s->fd);
		if (s->buf < 0)
			printf(" buf=NULL");
		else
			printf(" buf=%d+%u", s->buf, s->boff);
		printf(" len=%u off=%lld rw_flags=0x%x", s->len,
		       (long long)s->off, s->op_flags);
		break;
	case FZ_READV: case FZ_WRITEV:
		print_fd(s, s->fd);
		printf(" iov=%d nr=%d off=%lld rw_flags=0x%x", s->iov, s->nr,
		       (long long)s->off, s->op_flags);
		break;
	case FZ_READ_FIXED: case FZ_WRITE_FIXED:
		print_fd(s, s->fd);
		printf(" buf_index=%d addr=arena+%u len=%u off=%lld rw_flags=0x%x",
		       s->nr, s->boff, s->len, (long long)s->off, s->op_flags);
		break;
	case FZ_FSYNC:
		print_fd(s, s->fd);
		printf(" fsync_flags=0x%x off=%llu len=%u", s->op_flags,
		       (unsigned long long)s->off, s->len);
		break;
	case FZ_FALLOCATE:
		print_fd(s, s->fd);
		printf(" mode=0x%x off=%llu len=%u", s->mode,
		       (unsigned long long)s->off, s->len);
		break;
	case FZ_FADVISE:
		print_fd(s, s->fd);
		printf(" advice=%u off=%llu len=%u", s->op_flags,
		       (unsigned long long)s->off, s->len);
		break;
	case FZ_STATX:
		printf(" dirfd=%s name=\"%s\" flags=0x%x mask=0x%x",
		       fd_names[s->fd], fz_names[s->name], s->op_flags, s->mode);
		break;
	case FZ_OPENAT:
		printf(" dirfd=%s name=\"%s\" flags=0%o mode=0%o",
		       fd_names[s->fd], fz_names[s->name], s->op_flags, s->mode);
		if (s->slot == -2)
			printf(" direct=ALLOC");
		else if (s->slot >= 0)
			printf(" direct=slot%d", s->slot);
		break;
	case FZ_CLOSE:
		printf(" direct slot=%d", s->slot);
		break;
	case FZ_MKDIRAT:
		printf(" dirfd=%s name=\"%s\" mode=0%o", fd_names[s->fd],
		       fz_names[s->name], s->mode);
		break;
	case FZ_UNLINKAT:
		printf(" dirfd=%s name=\"%s\" flags=0x%x", fd_names[s->fd],
		       fz_names[s->name], s->op_flags);
		break;
	case FZ_RENAMEAT: case FZ_LINKAT:
		printf(" olddirfd=%s old=\"%s\" newdirfd=%s new=\"%s\" flags=0x%x",
		       fd_names[s->fd], fz_names[s->name], fd_names[s->fd2],
		       fz_names[s->name2], s->op_flags);
		break;
	case FZ_SYMLINKAT:
		printf(" target=\"%s\" dirfd=%s name=\"%s\"",
		       fz_link_targets[s->name2], fd_names[s->fd],
		       fz_names[s->name]);
		break;
	case FZ_TIMEOUT:
		print_ts(s->ts);
		printf(" count=%u flags=0x%x", s->count, s->op_flags);
		break;
	case FZ_TIMEOUT_REMOVE:
		printf(" target_ud=%llu flags=0x%x", (unsigned long long)s->target,
		       s->op_flags);
		if (s->op_flags & IORING_TIMEOUT_UPDATE_MASK)
			print_ts(s->ts);
		break;
	case FZ_LINK_TIMEOUT:
		print_ts(s->ts);
		printf(" flags=0x%x", s->op_flags);
		break;
	case FZ_ASYNC_CANCEL:
		printf(" target_ud=%llu flags=0x%x", (unsigned long long)s->target,
		       s->op_flags);
		if (s->op_flags & IORING_ASYNC_CANCEL_FD_FIXED)
			printf(" fd=slot%d", s->fd);
		else if (s->op_flags & IORING_ASYNC_CANCEL_FD)
			printf(" fd=%s", fd_names[s->fd]);
		break;
	case FZ_FILES_UPDATE: {
		int k;

		if (s->slot == -2)
			printf(" offset=ALLOC");
		else
			printf(" offset=%d", s->slot);
		printf(" nr=%d fds={", s->nr);
		for (k = 0; k < s->nr; k++)
			printf("%s%s", k ? "," : "",
			       s->fu[k] == 8 ? "SKIP" : fd_names[s->fu[k]]);
		printf("}");
		break;
	}
	default:
		break;
	}
}

/* which pointer is bad, and how */
static void print_bad(const struct fz_sqe *s)
{
	const char *what;

	switch (s->op) {
	case FZ_READV: case FZ_WRITEV:
		what = s->bad_field ? "iov_base" : "iovec array";
		break;
	case FZ_STATX:
		what = s->bad_field ? "statx buffer" : "path";
		break;
	case FZ_OPENAT:
		what = s->bad_field ? "open_how" : "path";
		break;
	case FZ_RENAMEAT: case FZ_LINKAT:
		what = s->bad_field ? "new path" : "old path";
		break;
	case FZ_SYMLINKAT:
		what = s->bad_field ? "link name" : "target";
		break;
	case FZ_MKDIRAT: case FZ_UNLINKAT:
		what = "path";
		break;
	case FZ_TIMEOUT: case FZ_TIMEOUT_REMOVE: case FZ_LINK_TIMEOUT:
		what = "timespec";
		break;
	case FZ_FILES_UPDATE:
		what = "fds";
		break;
	default:
		what = "buffer";
		break;
	}
	printf(" +BAD %s=%s", what, fz_bad_names[s->bad]);
	if ((s->op == FZ_READV || s->op == FZ_WRITEV) && s->bad_field)
		printf("(entry %u)", s->bad_iov);
	if (s->op == FZ_OPENAT && s->openat2)
		printf(" as OPENAT2");
}

void fz_print_batch(const struct fz_batch *b)
{
	static const char *const pokes[] = {
		"", "ioprio", "personality", "buf_index", "file_index", "len",
		"off", "rw_flags",
	};
	unsigned i;

	printf("ring: sq_entries=%u cq_entries=%u setup_flags=0x%x%s%s%s%s\n",
	       b->cfg.sq_entries, b->cfg.cq_entries, b->cfg.setup_flags,
	       b->cfg.fork ? " +run in a forked child" : "",
	       b->cfg.wait_reg ? " +waits through a registered wait region" : "",
	       b->cfg.reg_files ? " +registered files {f0,f1,pipe_r,pipe_w,"
	       "-1,-1,-1,-1}" : "",
	       b->cfg.reg_bufs ? " +registered buffers {arena+16384:8192,"
	       "arena+24576:4096}, group 102 an incremental buffer ring "
	       "{4 x 256 at arena+31744}" : "");
	for (i = 0; i < b->nr; i++) {
		const struct fz_sqe *s = &b->sqe[i];

		printf("  #%-2u ud=%-2llu %s", i, (unsigned long long)s->ud,
		       s->nopped ? "NOP" : fz_op_names[s->op]);
		print_flags(s->flags);
		if (!s->nopped) {
			print_args(s);
			if (s->poke)
				printf(" +%s=%u", pokes[s->poke], s->poke_val);
			if (s->bad)
				print_bad(s);
		} else {
			printf(" (was %s)", fz_op_names[s->op]);
		}
		if (s->why)
			printf("  [%s]", s->why);
		if (s->park)
			printf("  [park: the harness cancels it]");
		if (s->uncounted)
			printf("  [CQE not waited for]");
		printf("\n");
	}
}
