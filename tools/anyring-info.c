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
 * It is a report: it exits 0 whether io_uring works or not, 2 on bad usage.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <liburing.h>
#include <anyring.h>
#include "compat.h"

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

static void print_features(unsigned feats)
{
	char name[16];
	int col, bit;

	printf("%-*s", KEY_WIDTH, "features:");
	col = KEY_WIDTH;
	for (bit = 0; bit < 32; bit++) {
		if (!(feats & (1U << bit)))
			continue;
		if (bit < (int)ARRAY_SIZE(feat_names))
			snprintf(name, sizeof(name), "%s", feat_names[bit]);
		else
			snprintf(name, sizeof(name), "bit %d", bit);
		col = put_token(col, name, (int)strlen(name));
	}
	if (!feats)
		printf("none");
	putchar('\n');
}

static const char *op_name(unsigned op, char *buf, size_t len)
{
	if (op < ARRAY_SIZE(op_names))
		return op_names[op];
	snprintf(buf, len, "op %u", op);
	return buf;
}

static void print_opcodes(const struct io_uring_probe *probe)
{
	char key[40], buf[16];
	const char *name;
	unsigned i, n = 0;
	int col;

	for (i = 0; i < probe->ops_len; i++)
		if (probe->ops[i].flags & IO_URING_OP_SUPPORTED)
			n++;
	kv("last_op:", "%u (%s)", probe->last_op,
	   op_name(probe->last_op, buf, sizeof(buf)));
	snprintf(key, sizeof(key), "opcodes (%u):", n);
	printf("%-*s", KEY_WIDTH, key);
	col = KEY_WIDTH;
	for (i = 0; i < probe->ops_len; i++) {
		if (!(probe->ops[i].flags & IO_URING_OP_SUPPORTED))
			continue;
		name = op_name(probe->ops[i].op, buf, sizeof(buf));
		col = put_token(col, name, (int)strlen(name));
	}
	if (!n)
		printf("none");
	putchar('\n');
}

static void probe_kernel(int fd)
{
	size_t len = sizeof(struct io_uring_probe) +
		     PROBE_OPS * sizeof(struct io_uring_probe_op);
	struct io_uring_probe *probe = calloc(1, len);
	long ret;

	if (!probe) {
		kv("opcodes:", "probe failed: ENOMEM");
		return;
	}
	/* liburing's raw call: -errno, and never the system-call trap's */
	ret = io_uring_register((unsigned)fd, IORING_REGISTER_PROBE, probe,
				PROBE_OPS);
	if (ret < 0)
		kv("opcodes:", "IORING_REGISTER_PROBE failed: %s (%s)",
		   errno_name((int)-ret), strerror((int)-ret));
	else
		print_opcodes(probe);
	free(probe);
}

/*
 * io_uring_setup(2) straight to the kernel (the kernel engine: the
 * library's own call, which the system-call trap lets through). Returns
 * 0 if it works, else the positive errno.
 */
static int check_kernel(const struct facts *f)
{
	struct io_uring_params p;
	int fd, err;

	memset(&p, 0, sizeof(p));
	fd = anyring_setup_engine(ANYRING_ENGINE_KERNEL, 2, &p);
	if (fd < 0) {
		err = -fd;
		kv("io_uring_setup:", "fails: %s (%s)", errno_name(err),
		   strerror(err));
		kv("likely cause:", "%s", likely_cause(err, f));
		return err;
	}
	kv("io_uring_setup:", "works (%u SQ, %u CQ entries)", p.sq_entries,
	   p.cq_entries);
	print_features(p.features);
	probe_kernel(fd);
	close(fd);
	return 0;
}

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

static void print_env_engine(void)
{
	const char *env = getenv("ANYRING_ENGINE");

	if (!env)
		kv("ANYRING_ENGINE:", "unset (auto)");
	else if (!*env)
		kv("ANYRING_ENGINE:", "empty (auto)");
	else if (strcmp(env, ANYRING_ENGINE_KERNEL) &&
		 strcmp(env, ANYRING_ENGINE_USER) &&
		 strcmp(env, ANYRING_ENGINE_AUTO))
		kv("ANYRING_ENGINE:", "%s (unknown engine: rings fail with "
		   "EINVAL; use kernel, user or auto)", env);
	else
		kv("ANYRING_ENGINE:", "%s", env);
}

static void print_auto(int kerr, int uerr)
{
	if (!kerr) {
		kv("auto engine:", "kernel (io_uring_setup works)");
		return;
	}
	if (!is_refusal(kerr)) {
		kv("auto engine:", "kernel, which fails with %s (not a refusal, "
		   "so no fallback)", errno_name(kerr));
		return;
	}
	if (uerr == -EOPNOTSUPP)
		kv("auto engine:", "user (fallback: kernel refused with %s); "
		   "user engine not in this build: rings fail with %s",
		   errno_name(kerr), errno_name(kerr));
	else if (uerr)
		kv("auto engine:", "user (fallback: kernel refused with %s), "
		   "which fails with %s", errno_name(kerr), errno_name(-uerr));
	else
		kv("auto engine:", "user (fallback: kernel refused with %s)",
		   errno_name(kerr));
}

/* The engine a ring made the default way (io_uring_queue_init) gets. */
static void print_default_ring(void)
{
	struct io_uring ring;
	int ret;

	ret = io_uring_queue_init(2, &ring, 0);
	if (ret < 0) {
		kv("default ring:", "fails: %s (%s)", errno_name(-ret),
		   strerror(-ret));
		return;
	}
	kv("default ring:", "engine %s", anyring_ring_engine(&ring));
	io_uring_queue_exit(&ring);
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

/* ANYRING_POLICY, and what a new ring of each engine runs with */
static void print_policies(int kerr, int uerr)
{
	const char *env = getenv("ANYRING_POLICY");
	struct io_uring_params prm;
	struct anyring_policy p;
	struct io_uring ring;

	memset(&prm, 0, sizeof(prm));
	if (!env || !*env)
		kv("ANYRING_POLICY:", "unset (defaults)");
	else if (anyring_policy_parse(env, &p))
		kv("ANYRING_POLICY:", "%s (not valid: rings use the defaults)", env);
	else
		kv("ANYRING_POLICY:", "%s", env);
	if (!kerr && !anyring_queue_init_engine(ANYRING_ENGINE_KERNEL, 2, &ring,
						&prm)) {
		if (!anyring_ring_policy(&ring, &p))
			kv_policy("kernel ring policy:", &p);
		io_uring_queue_exit(&ring);
	}
	memset(&prm, 0, sizeof(prm));
	if (!uerr && !anyring_queue_init_engine(ANYRING_ENGINE_USER, 2, &ring,
						&prm)) {
		if (!anyring_ring_policy(&ring, &p))
			kv_policy("user ring policy:", &p);
		io_uring_queue_exit(&ring);
	}
}

static void report_engines(int kerr)
{
	int uerr = try_user_engine();

	print_env_engine();
	if (uerr == -EOPNOTSUPP)
		kv("engines in this build:", "kernel");
	else
		kv("engines in this build:", "kernel user");
	print_auto(kerr, uerr);
	print_default_ring();
	print_policies(kerr, uerr);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: anyring-info [--help]\n"
		"Report what io_uring this process gets: the kernel release, the\n"
		"io_uring sysctls, the seccomp mode, whether io_uring_setup(2)\n"
		"works (asked of the kernel directly) and if not its likely cause,\n"
		"the kernel's features and opcodes, and the libanyring engine a\n"
		"ring gets (ANYRING_ENGINE, auto's choice, the default ring), and\n"
		"the completion-path policy rings of each engine run with\n"
		"(ANYRING_POLICY, defaults resolved).\n"
		"\n"
		"  -h, --help   print this help and exit\n"
		"\n"
		"Exit status: 0 whether io_uring works or not, 2 on bad usage.\n");
}

int main(int argc, char **argv)
{
	struct facts f;
	struct utsname u;
	int kerr;

	if (argc > 1) {
		if (argc == 2 && (!strcmp(argv[1], "--help") ||
				  !strcmp(argv[1], "-h"))) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "anyring-info: unknown argument '%s' "
			"(try --help)\n", argv[1]);
		return 2;
	}
	if (uname(&u)) {
		snprintf(u.release, sizeof(u.release), "unknown (%s)",
			 strerror(errno));
		snprintf(u.machine, sizeof(u.machine), "unknown");
	}
	gather_facts(&f);
	print_facts(&u, &f);
	kerr = check_kernel(&f);
	report_engines(kerr);
	return 0;
}
