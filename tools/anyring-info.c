/* SPDX-License-Identifier: MIT */
/*
 * anyring-info - report what io_uring this process gets, and why.
 *
 * The kernel part asks the kernel itself: io_uring_setup(2) and
 * IORING_REGISTER_PROBE are raw system calls, never the library, so a
 * refusal shows the kernel's (or a seccomp filter's) answer. When setup is
 * refused the likely cause is named from facts the process can read: the
 * io_uring sysctls, its groups and capabilities, its seccomp mode. The
 * engine part then asks libanyring which engine a ring gets.
 *
 * Every fact is gathered first (struct report), then printed as text or,
 * with --json, as one JSON object with the same facts.
 *
 * It is a report: it exits 0 whether io_uring works or not, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <liburing.h>
#include <anyring.h>
#include "compat.h"
#include "progfile.h"

#define KEY_WIDTH	27	/* values start in this column */
#define WRAP_COLUMN	78
#define PROBE_OPS	256
#define CAP_SYS_ADMIN_BIT 21
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const feat_names[] = {
	"SINGLE_MMAP", "NODROP", "SUBMIT_STABLE", "RW_CUR_POS",
	"CUR_PERSONALITY", "FAST_POLL", "POLL_32BITS", "SQPOLL_NONFIXED",
	"EXT_ARG", "NATIVE_WORKERS", "RSRC_TAGS", "CQE_SKIP", "LINKED_FILE",
	"REG_REG_RING", "RECVSEND_BUNDLE", "MIN_TIMEOUT", "RW_ATTR",
	"NO_IOWAIT",
};

_Static_assert(ARRAY_SIZE(feat_names) == 18, "SINGLE_MMAP (bit 0) .. NO_IOWAIT (17)");

static const char *const op_names[] = {
	"NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED",
	"POLL_ADD", "POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG",
	"TIMEOUT", "TIMEOUT_REMOVE", "ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT",
	"CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE", "STATX",
	"READ", "WRITE", "FADVISE", "MADVISE", "SEND", "RECV", "OPENAT2",
	"EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE",
	"SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT",
	"MSG_RING", "FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET",
	"URING_CMD", "SEND_ZC", "SENDMSG_ZC", "READ_MULTISHOT", "WAITID",
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_WAITV", "FIXED_FD_INSTALL",
	"FTRUNCATE", "BIND", "LISTEN", "RECV_ZC", "EPOLL_WAIT", "READV_FIXED",
	"WRITEV_FIXED", "PIPE",
};

_Static_assert(ARRAY_SIZE(op_names) == AR_OP_LAST_KNOWN + 1,
	       "one name per opcode up to AR_OP_LAST_KNOWN");

static const char *feat_name(int bit, char *buf, size_t len)
{
	if (bit < (int)ARRAY_SIZE(feat_names))
		return feat_names[bit];
	snprintf(buf, len, "bit %d", bit);
	return buf;
}

static const char *op_name(unsigned op, char *buf, size_t len)
{
	if (op < ARRAY_SIZE(op_names))
		return op_names[op];
	snprintf(buf, len, "op %u", op);
	return buf;
}

static unsigned probe_count(const struct io_uring_probe *probe)
{
	unsigned i, n = 0;

	for (i = 0; i < probe->ops_len; i++)
		if (probe->ops[i].flags & IO_URING_OP_SUPPORTED)
			n++;
	return n;
}

/* The length of the valid UTF-8 sequence at c, else 1. */
static int utf8_len(const unsigned char *c)
{
	int n, i;

	if (*c < 0xc2 || *c > 0xf4)
		return 1;
	n = *c < 0xe0 ? 2 : *c < 0xf0 ? 3 : 4;
	for (i = 1; i < n; i++)
		if ((c[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

/* What the process can read about its io_uring permissions. */
struct facts {
	int disabled;		/* kernel.io_uring_disabled, -1 if absent */
	int have_group;		/* kernel.io_uring_group exists */
	long group;		/* its value, -1 meaning no group */
	int in_group;		/* the process is in that group */
	int cap_sys_admin;	/* CAP_SYS_ADMIN is effective */
	int seccomp;		/* Seccomp: of /proc/self/status, -1 unknown */
	int seccomp_filters;	/* Seccomp_filters:, -1 unknown */
};

/* "EPERM" for EPERM; an unlisted value is "errno N" in a shared buffer. */
static const char *errno_name(int err)
{
	static char buf[24];

	switch (err) {
	case EPERM:	return "EPERM";
	case ENOENT:	return "ENOENT";
	case EINTR:	return "EINTR";
	case ENXIO:	return "ENXIO";
	case EBADF:	return "EBADF";
	case ENOMEM:	return "ENOMEM";
	case EACCES:	return "EACCES";
	case EFAULT:	return "EFAULT";
	case EBUSY:	return "EBUSY";
	case EINVAL:	return "EINVAL";
	case ENFILE:	return "ENFILE";
	case EMFILE:	return "EMFILE";
	case ENOSYS:	return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* Print tok, unbroken, at column col, first wrapping if it would pass 78. */
static int put_token(int col, const char *tok, int len)
{
	if (col > KEY_WIDTH && col + 1 + len > WRAP_COLUMN) {
		printf("\n%*s", KEY_WIDTH, "");
		col = KEY_WIDTH;
	}
	if (col > KEY_WIDTH) {
		putchar(' ');
		col++;
	}
	printf("%.*s", len, tok);
	return col + len;
}

/* Print the words of s from column col, wrapping between words. */
static int put_words(int col, const char *s)
{
	int len;

	for (;;) {
		s += strspn(s, " ");
		if (!*s)
			return col;
		len = (int)strcspn(s, " ");
		col = put_token(col, s, len);
		s += len;
	}
}

static void kv(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void kv(const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	printf("%-*s", KEY_WIDTH, key);
	put_words(KEY_WIDTH, val);
	putchar('\n');
}

/* First line of a file as a long; 0 on success, -1 if absent or unparsable. */
static int read_long(const char *path, long *out)
{
	char buf[64], *end;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	*out = strtol(buf, &end, 10);
	return end == buf ? -1 : 0;
}

/* The value after "name:" in /proc/self/status, as text; 0 if found. */
static int status_field(const char *name, char *out, size_t outlen)
{
	char line[256];
	size_t n = strlen(name);
	FILE *f = fopen("/proc/self/status", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, n) || line[n] != ':')
			continue;
		snprintf(out, outlen, "%s", line + n + 1 + strspn(line + n + 1, " \t"));
		out[strcspn(out, "\n")] = '\0';
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static int status_int(const char *name)
{
	char val[64];

	if (status_field(name, val, sizeof(val)))
		return -1;
	return atoi(val);
}

static int has_cap_sys_admin(void)
{
	char val[64];

	if (status_field("CapEff", val, sizeof(val)))
		return 0;
	return (strtoull(val, NULL, 16) >> CAP_SYS_ADMIN_BIT) & 1;
}

/* As the kernel's in_group_p(): the effective gid or a supplementary one. */
static int in_group(gid_t gid)
{
	gid_t groups[256];
	int i, n;

	if (getegid() == gid)
		return 1;
	n = getgroups(ARRAY_SIZE(groups), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return 1;
	return 0;
}

static void gather_facts(struct facts *f)
{
	long v;

	memset(f, 0, sizeof(*f));
	f->disabled = -1;
	f->group = -1;
	if (!read_long("/proc/sys/kernel/io_uring_disabled", &v))
		f->disabled = (int)v;
	if (!read_long("/proc/sys/kernel/io_uring_group", &v)) {
		f->have_group = 1;
		f->group = v;
		f->in_group = v >= 0 && in_group((gid_t)v);
	}
	f->cap_sys_admin = has_cap_sys_admin();
	f->seccomp = status_int("Seccomp");
	f->seccomp_filters = status_int("Seccomp_filters");
}

static const char *disabled_meaning(int disabled)
{
	switch (disabled) {
	case 0:	return "io_uring allowed for all";
	case 1:	return "only io_uring_group members and CAP_SYS_ADMIN";
	case 2:	return "io_uring disabled for all";
	}
	return "unknown value";
}

static const char *seccomp_meaning(int mode)
{
	switch (mode) {
	case 0:	return "disabled";
	case 1:	return "strict";
	case 2:	return "filter";
	}
	return "unknown";
}

/* The likely reason io_uring_setup failed with err (positive errno). */
static const char *likely_cause(int err, const struct facts *f)
{
	int filter = f->seccomp == 2;

	if (err == EPERM && f->disabled == 2)
		return filter ? "disabled by sysctl kernel.io_uring_disabled=2 "
				"(a seccomp filter is also active)"
			      : "disabled by sysctl kernel.io_uring_disabled=2";
	if (err == EPERM && f->disabled == 1 && !f->in_group && !f->cap_sys_admin)
		return filter ? "sysctl kernel.io_uring_disabled=1: not in "
				"io_uring_group and no CAP_SYS_ADMIN (a seccomp "
				"filter is also active)"
			      : "sysctl kernel.io_uring_disabled=1: not in "
				"io_uring_group and no CAP_SYS_ADMIN";
	if (filter)
		return "a seccomp filter (as Docker >= 25 / containerd 2 "
		       "default profiles)";
	if (err == ENOSYS)
		return "kernel built without CONFIG_IO_URING, or a sandbox "
		       "(gVisor) without it";
	return "unknown";
}

/* Everything the report says, gathered before either format prints it. */
struct report {
	struct utsname u;
	struct facts f;
	int kerr;		/* io_uring_setup's positive errno, 0: works */
	unsigned sq_entries, cq_entries, features;
	int probe_err;		/* IORING_REGISTER_PROBE's errno, 0: probe valid */
	struct io_uring_probe *probe;
	int uerr;		/* the user engine's setup result */
	int def_ret;		/* io_uring_queue_init's result */
	const char *def_engine;
	int have_kpol, have_upol;
	struct anyring_policy kpol, upol;
	int env_policy_valid;
};

static int is_refusal(int err)
{
	return err == EPERM || err == EACCES || err == ENOSYS;
}

/* 0 if the user engine makes a ring, else the negative errno */
static int try_user_engine(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	int ret;

	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine(ANYRING_ENGINE_USER, 2, &ring, &p);
	if (!ret)
		io_uring_queue_exit(&ring);
	return ret;
}

/* IORING_REGISTER_PROBE on a kernel ring: r->probe, or r->probe_err */
static void probe_kernel(struct report *r, int fd)
{
	size_t len = sizeof(struct io_uring_probe) +
		     PROBE_OPS * sizeof(struct io_uring_probe_op);
	int ret;

	r->probe = calloc(1, len);
	if (!r->probe) {
		r->probe_err = ENOMEM;
		return;
	}
	/* liburing's raw call: -errno, and never the system-call trap's */
	ret = io_uring_register((unsigned)fd, IORING_REGISTER_PROBE, r->probe,
				PROBE_OPS);
	if (ret < 0) {
		r->probe_err = -ret;
		free(r->probe);
		r->probe = NULL;
	}
}

/*
 * io_uring_setup(2) straight to the kernel: a ring of the kernel engine,
 * whose calls leave from the library's site, which the system-call trap
 * lets through (a raw call here would be trapped and served by the user
 * engine where io_uring is refused).
 */
static void check_kernel(struct report *r)
{
	struct io_uring_params p;
	struct io_uring ring;
	int ret;

	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine(ANYRING_ENGINE_KERNEL, 2, &ring, &p);
	if (ret < 0) {
		r->kerr = -ret;
		return;
	}
	r->sq_entries = p.sq_entries;
	r->cq_entries = p.cq_entries;
	r->features = p.features;
	probe_kernel(r, ring.ring_fd);
	io_uring_queue_exit(&ring);
}

/* the policy a new ring of the engine runs with; 1 if there is one */
static int engine_policy(const char *engine, struct anyring_policy *p)
{
	struct io_uring_params prm;
	struct io_uring ring;
	int ok;

	memset(&prm, 0, sizeof(prm));
	if (anyring_queue_init_engine(engine, 2, &ring, &prm))
		return 0;
	ok = !anyring_ring_policy(&ring, p);
	io_uring_queue_exit(&ring);
	return ok;
}

static void check_engines(struct report *r)
{
	const char *env = getenv("ANYRING_POLICY");
	struct anyring_policy p;
	struct io_uring ring;

	r->uerr = try_user_engine();
	r->def_ret = io_uring_queue_init(2, &ring, 0);
	if (!r->def_ret) {
		r->def_engine = anyring_ring_engine(&ring);
		io_uring_queue_exit(&ring);
	}
	r->env_policy_valid = env && *env && !anyring_policy_parse(env, &p);
	if (!r->kerr)
		r->have_kpol = engine_policy(ANYRING_ENGINE_KERNEL, &r->kpol);
	if (!r->uerr)
		r->have_upol = engine_policy(ANYRING_ENGINE_USER, &r->upol);
}

static void gather(struct report *r)
{
	memset(r, 0, sizeof(*r));
	if (uname(&r->u)) {
		snprintf(r->u.release, sizeof(r->u.release), "unknown (%s)",
			 strerror(errno));
		snprintf(r->u.machine, sizeof(r->u.machine), "unknown");
	}
	gather_facts(&r->f);
	check_kernel(r);
	check_engines(r);
}

/* ---- what both formats say, as text ---- */

/* ANYRING_ENGINE's value and what it means: "unset (auto)", ... */
static void env_engine_text(char *buf, size_t len)
{
	const char *env = getenv("ANYRING_ENGINE");

	if (!env)
		snprintf(buf, len, "unset (auto)");
	else if (!*env)
		snprintf(buf, len, "empty (auto)");
	else if (strcmp(env, ANYRING_ENGINE_KERNEL) &&
		 strcmp(env, ANYRING_ENGINE_USER) &&
		 strcmp(env, ANYRING_ENGINE_AUTO))
		snprintf(buf, len, "%s (unknown engine: rings fail with "
			 "EINVAL; use kernel, user or auto)", env);
	else
		snprintf(buf, len, "%s", env);
}

/* the engine auto picks; buf says why and whether its rings work */
static const char *auto_engine(const struct report *r, int *works,
			       char *buf, size_t len)
{
	int kerr = r->kerr, uerr = r->uerr;

	*works = 0;
	if (!kerr) {
		*works = 1;
		snprintf(buf, len, "kernel (io_uring_setup works)");
		return ANYRING_ENGINE_KERNEL;
	}
	if (!is_refusal(kerr)) {
		snprintf(buf, len, "kernel, which fails with %s (not a refusal, "
			 "so no fallback)", errno_name(kerr));
		return ANYRING_ENGINE_KERNEL;
	}
	if (uerr == -EOPNOTSUPP) {
		snprintf(buf, len, "user (fallback: kernel refused with %s); "
			 "user engine not in this build: rings fail with %s",
			 errno_name(kerr), errno_name(kerr));
	} else if (uerr) {
		snprintf(buf, len, "user (fallback: kernel refused with %s), "
			 "which fails with %s", errno_name(kerr),
			 errno_name(-uerr));
	} else {
		*works = 1;
		snprintf(buf, len, "user (fallback: kernel refused with %s)",
			 errno_name(kerr));
	}
	return ANYRING_ENGINE_USER;
}

static const char *env_policy_note(const struct report *r)
{
	const char *env = getenv("ANYRING_POLICY");

	if (!env || !*env)
		return "unset (defaults)";
	return r->env_policy_valid ? "" : " (not valid: rings use the defaults)";
}

/* ---- text ---- */

static void print_facts(const struct utsname *u, const struct facts *f)
{
	kv("kernel release:", "%s", u->release);
	kv("machine:", "%s", u->machine);
	if (f->disabled < 0)
		kv("kernel.io_uring_disabled:", "absent (kernel < 6.6)");
	else
		kv("kernel.io_uring_disabled:", "%d (%s)", f->disabled,
		   disabled_meaning(f->disabled));
	if (f->have_group && f->group < 0)
		kv("kernel.io_uring_group:", "%ld (no group)", f->group);
	else if (f->have_group)
		kv("kernel.io_uring_group:", "%ld (this process is %sin it)",
		   f->group, f->in_group ? "" : "not ");
	kv("CAP_SYS_ADMIN:", "%s", f->cap_sys_admin ? "yes" : "no");
	if (f->seccomp < 0)
		kv("Seccomp:", "unknown (no Seccomp line in /proc/self/status)");
	else if (f->seccomp_filters > 0)
		kv("Seccomp:", "%d (%s mode, %d filter%s)", f->seccomp,
		   seccomp_meaning(f->seccomp), f->seccomp_filters,
		   f->seccomp_filters == 1 ? "" : "s");
	else
		kv("Seccomp:", "%d (%s)", f->seccomp, seccomp_meaning(f->seccomp));
}

static void print_features(unsigned feats)
{
	char buf[16];
	const char *name;
	int col, bit;

	printf("%-*s", KEY_WIDTH, "features:");
	col = KEY_WIDTH;
	for (bit = 0; bit < 32; bit++) {
		if (!(feats & (1U << bit)))
			continue;
		name = feat_name(bit, buf, sizeof(buf));
		col = put_token(col, name, (int)strlen(name));
	}
	if (!feats)
		printf("none");
	putchar('\n');
}

static void print_opcodes(const struct io_uring_probe *probe)
{
	char key[40], buf[16];
	const char *name;
	unsigned i;
	int col;

	kv("last_op:", "%u (%s)", probe->last_op,
	   op_name(probe->last_op, buf, sizeof(buf)));
	snprintf(key, sizeof(key), "opcodes (%u):", probe_count(probe));
	printf("%-*s", KEY_WIDTH, key);
	col = KEY_WIDTH;
	for (i = 0; i < probe->ops_len; i++) {
		if (!(probe->ops[i].flags & IO_URING_OP_SUPPORTED))
			continue;
		name = op_name(probe->ops[i].op, buf, sizeof(buf));
		col = put_token(col, name, (int)strlen(name));
	}
	if (!probe_count(probe))
		printf("none");
	putchar('\n');
}

static void print_kernel(const struct report *r)
{
	if (r->kerr) {
		kv("io_uring_setup:", "fails: %s (%s)", errno_name(r->kerr),
		   strerror(r->kerr));
		kv("likely cause:", "%s", likely_cause(r->kerr, &r->f));
		return;
	}
	kv("io_uring_setup:", "works (%u SQ, %u CQ entries)", r->sq_entries,
	   r->cq_entries);
	print_features(r->features);
	if (r->probe)
		print_opcodes(r->probe);
	else
		kv("opcodes:", "IORING_REGISTER_PROBE failed: %s (%s)",
		   errno_name(r->probe_err), strerror(r->probe_err));
}

/* a policy string with a space after each comma, so kv() can wrap it */
static void kv_policy(const char *key, const struct anyring_policy *p)
{
	char buf[160], out[200];
	size_t o = 0;

	anyring_policy_format(p, buf, sizeof(buf));
	for (const char *c = buf; *c && o + 2 < sizeof(out); c++) {
		out[o++] = *c;
		if (*c == ',')
			out[o++] = ' ';
	}
	out[o] = 0;
	kv(key, "%s", out);
}

static void print_engines(const struct report *r)
{
	const char *env = getenv("ANYRING_POLICY");
	char buf[256];
	int works;

	env_engine_text(buf, sizeof(buf));
	kv("ANYRING_ENGINE:", "%s", buf);
	kv("engines in this build:", "%s",
	   r->uerr == -EOPNOTSUPP ? "kernel" : "kernel user");
	auto_engine(r, &works, buf, sizeof(buf));
	kv("auto engine:", "%s", buf);
	if (r->def_ret < 0)
		kv("default ring:", "fails: %s (%s)", errno_name(-r->def_ret),
		   strerror(-r->def_ret));
	else
		kv("default ring:", "engine %s", r->def_engine);
	if (!env || !*env)
		kv("ANYRING_POLICY:", "%s", env_policy_note(r));
	else
		kv("ANYRING_POLICY:", "%s%s", env, env_policy_note(r));
	if (r->have_kpol)
		kv_policy("kernel ring policy:", &r->kpol);
	if (r->have_upol)
		kv_policy("user ring policy:", &r->upol);
}

/* ---- --program=PATH: would this program take a preload? ---- */

struct program {
	char path[PATH_MAX];
	int err;		/* positive errno: not found, not readable */
	int is_static;		/* an ELF executable without PT_INTERP */
	int secure;		/* set-user/group-ID or file capabilities */
	const char *why;	/* what makes it secure */
	const char *verdict;	/* honoured, ignored, impossible */
};

/*
 * The dynamic linker ignores LD_PRELOAD's paths in secure-execution mode:
 * a set-user-ID program owned by another user, a set-group-ID one of
 * another group, a program with file capabilities (unless no_new_privs,
 * which turns all of those off). /etc/ld.so.preload still applies.
 */
static void check_program(const char *cmd, struct program *pg)
{
	struct stat st;

	memset(pg, 0, sizeof(*pg));
	pg->err = prog_find(cmd, pg->path, sizeof(pg->path));
	if (!pg->err && stat(pg->path, &st))
		pg->err = errno;
	if (pg->err)
		return;
	pg->is_static = prog_is_static(pg->path);
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		pg->why = "set-user-ID";
	else if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
		pg->why = "set-group-ID";
	else if (getxattr(pg->path, "security.capability", NULL, 0) > 0)
		pg->why = "file capabilities";
	pg->secure = pg->why && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1;
	if (pg->is_static)
		pg->verdict = "impossible";
	else if (pg->secure)
		pg->verdict = "ignored";
	else
		pg->verdict = "honoured";
}

static void program_detail(const struct program *pg, char *buf, size_t sz)
{
	if (pg->is_static)
		snprintf(buf, sz, "impossible: statically linked, no dynamic "
			 "linker runs (its io_uring calls reach the kernel)");
	else if (pg->secure)
		snprintf(buf, sz, "ignored: %s, secure execution; use "
			 "/etc/ld.so.preload or the anyring-liburing package",
			 pg->why);
	else
		snprintf(buf, sz, "honoured%s", pg->why ?
			 " (no_new_privs turns its privileges off)" : "");
}

static void print_program(const struct program *pg)
{
	char buf[200];

	kv("program:", "%s", pg->path);
	if (pg->err) {
		kv("preload:", "cannot tell: %s", strerror(pg->err));
		return;
	}
	program_detail(pg, buf, sizeof(buf));
	kv("preload:", "%s", buf);
}

static void print_text(const struct report *r)
{
	print_facts(&r->u, &r->f);
	print_kernel(r);
	print_engines(r);
}

/* ---- JSON: the same facts, one object ---- */

/* s as a JSON string; invalid UTF-8 bytes become U+FFFD */
static void json_str(const char *s)
{
	const unsigned char *c = (const unsigned char *)s;

	putchar('"');
	while (*c) {
		int n = utf8_len(c);

		if (*c == '"' || *c == '\\') {
			printf("\\%c", *c++);
		} else if (*c < 0x20) {
			printf("\\u%04x", *c++);
		} else if (n > 1) {
			fwrite(c, 1, (size_t)n, stdout);
			c += n;
		} else if (*c >= 0x80) {
			fputs("\\ufffd", stdout);
			c++;
		} else {
			putchar(*c++);
		}
	}
	putchar('"');
}

/* "key": with the separator before every key but the first */
static void json_key(int *first, const char *key)
{
	printf("%s\n  ", *first ? "" : ",");
	*first = 0;
	json_str(key);
	fputs(": ", stdout);
}

static void json_kstr(int *first, const char *key, const char *val)
{
	json_key(first, key);
	if (val)
		json_str(val);
	else
		fputs("null", stdout);
}

static void json_kint(int *first, const char *key, long val, int present)
{
	json_key(first, key);
	if (present)
		printf("%ld", val);
	else
		fputs("null", stdout);
}

static void json_kbool(int *first, const char *key, int val)
{
	json_key(first, key);
	fputs(val ? "true" : "false", stdout);
}

static void json_kpolicy(int *first, const char *key, int have,
			 const struct anyring_policy *p)
{
	char buf[160];

	if (have)
		anyring_policy_format(p, buf, sizeof(buf));
	json_kstr(first, key, have ? buf : NULL);
}

static void json_facts(int *first, const struct report *r)
{
	const struct facts *f = &r->f;

	json_kstr(first, "kernel_release", r->u.release);
	json_kstr(first, "machine", r->u.machine);
	json_kint(first, "io_uring_disabled", f->disabled, f->disabled >= 0);
	json_kstr(first, "io_uring_disabled_meaning", f->disabled < 0 ?
		  "absent (kernel < 6.6)" : disabled_meaning(f->disabled));
	json_kint(first, "io_uring_group", f->group, f->have_group);
	json_kbool(first, "in_io_uring_group", f->in_group);
	json_kbool(first, "cap_sys_admin", f->cap_sys_admin);
	json_key(first, "seccomp");
	if (f->seccomp < 0)
		fputs("null", stdout);
	else
		printf("{\"mode\": %d, \"meaning\": \"%s\", \"filters\": %d}",
		       f->seccomp, seccomp_meaning(f->seccomp),
		       f->seccomp_filters > 0 ? f->seccomp_filters : 0);
}

static void json_kernel(int *first, const struct report *r)
{
	char name[16];
	unsigned i;
	int bit, n = 0;

	json_key(first, "io_uring_setup");
	printf("{\"works\": %s", r->kerr ? "false" : "true");
	if (r->kerr) {
		printf(", \"errno\": \"%s\", \"error\": ", errno_name(r->kerr));
		json_str(strerror(r->kerr));
		fputs(", \"likely_cause\": ", stdout);
		json_str(likely_cause(r->kerr, &r->f));
	} else {
		printf(", \"sq_entries\": %u, \"cq_entries\": %u",
		       r->sq_entries, r->cq_entries);
	}
	putchar('}');
	if (r->kerr)
		return;
	json_key(first, "features");
	putchar('[');
	for (bit = 0; bit < 32; bit++)
		if (r->features & (1U << bit))
			printf("%s\"%s\"", n++ ? ", " : "",
			       feat_name(bit, name, sizeof(name)));
	putchar(']');
	if (!r->probe) {
		json_kstr(first, "probe_error", errno_name(r->probe_err));
		return;
	}
	json_key(first, "last_op");
	printf("{\"op\": %u, \"name\": \"%s\"}", r->probe->last_op,
	       op_name(r->probe->last_op, name, sizeof(name)));
	json_key(first, "opcodes");
	putchar('[');
	for (i = n = 0; i < r->probe->ops_len; i++)
		if (r->probe->ops[i].flags & IO_URING_OP_SUPPORTED)
			printf("%s\"%s\"", n++ ? ", " : "",
			       op_name(r->probe->ops[i].op, name, sizeof(name)));
	putchar(']');
}

static void json_engines(int *first, const struct report *r)
{
	const char *env = getenv("ANYRING_ENGINE");
	const char *engine;
	char buf[256];
	int works;

	json_key(first, "anyring_engine");
	env_engine_text(buf, sizeof(buf));
	printf("{\"value\": ");
	if (env)
		json_str(env);
	else
		fputs("null", stdout);
	fputs(", \"meaning\": ", stdout);
	json_str(buf);
	putchar('}');
	json_key(first, "engines");
	fputs(r->uerr == -EOPNOTSUPP ? "[\"kernel\"]" : "[\"kernel\", \"user\"]",
	      stdout);
	engine = auto_engine(r, &works, buf, sizeof(buf));
	json_key(first, "auto_engine");
	printf("{\"engine\": \"%s\", \"works\": %s, \"detail\": ", engine,
	       works ? "true" : "false");
	json_str(buf);
	putchar('}');
	json_key(first, "default_ring");
	if (r->def_ret < 0) {
		printf("{\"engine\": null, \"errno\": \"%s\", \"error\": ",
		       errno_name(-r->def_ret));
		json_str(strerror(-r->def_ret));
		putchar('}');
	} else {
		printf("{\"engine\": \"%s\"}", r->def_engine);
	}
	env = getenv("ANYRING_POLICY");
	json_key(first, "anyring_policy");
	printf("{\"value\": ");
	if (env && *env)
		json_str(env);
	else
		fputs("null", stdout);
	printf(", \"valid\": %s}", !env || !*env || r->env_policy_valid ?
	       "true" : "false");
	json_kpolicy(first, "kernel_ring_policy", r->have_kpol, &r->kpol);
	json_kpolicy(first, "user_ring_policy", r->have_upol, &r->upol);
}

static void json_program(int *first, const struct program *pg)
{
	char buf[200];

	json_key(first, "program");
	fputs("{\"path\": ", stdout);
	json_str(pg->path);
	if (pg->err) {
		printf(", \"errno\": \"%s\"}", errno_name(pg->err));
		return;
	}
	program_detail(pg, buf, sizeof(buf));
	printf(", \"static\": %s, \"secure_execution\": %s, \"preload\": \"%s\", "
	       "\"detail\": ", pg->is_static ? "true" : "false",
	       pg->secure ? "true" : "false", pg->verdict);
	json_str(buf);
	putchar('}');
}

static void print_json(const struct report *r, const struct program *pg)
{
	int first = 1;

	putchar('{');
	json_facts(&first, r);
	json_kernel(&first, r);
	json_engines(&first, r);
	if (pg)
		json_program(&first, pg);
	puts("\n}");
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: anyring-info [--json] [--program=PROG]\n"
		"Report what io_uring this process gets: the kernel release, the\n"
		"io_uring sysctls, the seccomp mode, whether io_uring_setup(2)\n"
		"works (asked of the kernel directly) and if not its likely cause,\n"
		"the kernel's features and opcodes, and the libanyring engine a\n"
		"ring gets (ANYRING_ENGINE, auto's choice, the default ring), and\n"
		"the completion-path policy rings of each engine run with\n"
		"(ANYRING_POLICY, defaults resolved).\n"
		"\n"
		"  --json       the same facts as one JSON object\n"
		"  --program=PROG  also say whether PROG (a path, or a name\n"
		"               looked up in PATH) would take libanyring as a\n"
		"               preload: honoured, ignored (set-user/group-ID,\n"
		"               file capabilities) or impossible (static)\n"
		"  -h, --help   print this help and exit\n"
		"\n"
		"Exit status: 0 whether io_uring works or not, 2 on bad usage.\n");
}

int main(int argc, char **argv)
{
	struct program pg;
	const char *prog = NULL;
	struct report r;
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strncmp(argv[i], "--program=", 10) && argv[i][10]) {
			prog = argv[i] + 10;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "anyring-info: unknown argument '%s' "
				"(try --help)\n", argv[i]);
			return 2;
		}
	}
	gather(&r);
	if (prog)
		check_program(prog, &pg);
	if (json) {
		print_json(&r, prog ? &pg : NULL);
	} else {
		print_text(&r);
		if (prog)
			print_program(&pg);
	}
	free(r.probe);
	return 0;
}
