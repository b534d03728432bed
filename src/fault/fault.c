/* SPDX-License-Identifier: MIT */
/*
 * fault.c - fault injection on the user engine: ANYRING_FAULTS holds
 * rules, each naming requests (opcode, file) and an effect on some of them
 * (an error, a short transfer, a delay). docs/faults.md has the grammar.
 *
 * When: a request meets the rules once, at its first issue (ar_req_issue,
 * after its registered file is resolved). For the requests one thread
 * submits without IOSQE_ASYNC, links or drain, that is submission order,
 * so nth=, every= and a seeded rate= pick the same requests run after run.
 *
 * Cost: with ANYRING_FAULTS unset the core's hook is one relaxed load and
 * a branch not taken. With rules, a request whose opcode no rule names
 * costs a bitmap test per rule; the file's path is looked up only for a
 * rule with path= that matched on everything else.
 *
 * Paths: an fd's path is readlink(/proc/self/fd/N), cached per fd and
 * revalidated by fstat() (device and inode) on every use, so an fd number
 * reused for another file is looked up again; a file renamed while open
 * keeps the name it had when first seen. A path-taking opcode (OPENAT,
 * STATX, UNLINKAT, ...) is matched on the name it was given, made absolute
 * against its dirfd or the cwd and cleaned lexically (".", "..", "//"),
 * without following symlinks.
 *
 * Effects:
 *  - err: the request completes with -err and is not performed, except
 *    CLOSE, which closes and then reports the error (close(2) releases the
 *    fd even when it fails). Links and CQE_SKIP_SUCCESS treat the error
 *    as they treat the opcode's own errors (opdef nofail_res).
 *  - short: READ, WRITE, READ_FIXED, WRITE_FIXED are prepared again from
 *    their stable SQE copy with the shorter length, so the file, its
 *    position and the buffer see exactly the transfer the CQE reports; the
 *    request is marked short, so a link behind it breaks as behind any
 *    short transfer. READV/WRITEV are not shortened (their iovec array is
 *    the application's and may be gone by issue time).
 *  - delay: the request goes to an io-wq worker, which sleeps, then
 *    performs it; the submitter never blocks. While it sleeps the request
 *    is running work: ASYNC_CANCEL and a LINK_TIMEOUT answer -EALREADY, as
 *    for any request a worker has started. Ring exit ends the sleep within
 *    AR_FAULT_SLICE_NS and the request completes -ECANCELED.
 *
 * Locks: ar_fdcache_lock only, never across a system call.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fault/fault.h"
#include "user/types.h"
#include "user/submit.h"
#include "user/complete.h"
#include "user/wait.h"
#include "user/iowq.h"
#include "user/rsrc.h"

#define AR_FAULT_MAX_RULES	64	/* fits AR_REQ_F_FAULT_DELAY_MASK */
#define AR_FAULT_SLICE_NS	10000000ULL	/* a delay looks at ring exit this often */
#define AR_FAULT_MAX_DELAY_NS	(3600ULL * 1000000000ULL)
#define AR_FAULT_LOG_FIRST	5	/* injections logged per rule, then powers of 2 */
#define AR_FDCACHE_SLOTS	64

_Static_assert(AR_FAULT_MAX_RULES < (AR_REQ_F_FAULT_DELAY_MASK >>
				     AR_REQ_F_FAULT_DELAY_SHIFT),
	       "rule index must fit the delay bits");

enum ar_fault_sel { AR_SEL_ALL, AR_SEL_NTH, AR_SEL_EVERY, AR_SEL_RATE };
enum ar_fault_eff { AR_EFF_NONE, AR_EFF_ERR, AR_EFF_SHORT, AR_EFF_DELAY };

enum {
	AR_K_OP, AR_K_FD, AR_K_FIXED, AR_K_PATH, AR_K_NTH, AR_K_EVERY,
	AR_K_RATE, AR_K_AFTER, AR_K_MAX, AR_K_SEED, AR_K_ERR, AR_K_SHORT,
	AR_K_DELAY, AR_K_NR
};

static const char *const ar_fault_keys[AR_K_NR] = {
	"op", "fd", "fixed", "path", "nth", "every", "rate", "after", "max",
	"seed", "err", "short", "delay",
};

struct ar_fault_rule {
	__u64 ops[4];		/* opcode bitmap */
	int fd, fixed;		/* -1: any file */
	char *glob;		/* NULL: any path */
	enum ar_fault_sel sel;
	__u64 n;		/* nth=, every= */
	__u64 threshold;	/* rate=: picked when the draw is below */
	__u64 after, max, seed;
	bool seeded;		/* seed= given */
	enum ar_fault_eff eff;
	int err;		/* positive errno */
	__u32 short_bytes;
	bool short_half;
	__u64 delay_ns;
	char *text;		/* the rule as written, for messages */
	unsigned keys;		/* keys seen (each once) */
	__u64 matched;		/* relaxed atomics: requests the rule matched */
	__u64 injected;		/* ... and those it applied its effect to */
};

int ar_faults_on = 1;
static pthread_once_t ar_faults_once = PTHREAD_ONCE_INIT;
static struct ar_fault_rule ar_fault_rules[AR_FAULT_MAX_RULES];
/* written once by the parse with release; see ar_faults_report() */
static unsigned ar_fault_nr;
static bool ar_fault_debug;
static __u64 ar_fault_ops[4];	/* the opcodes any rule names */

/* ------------------------------------------------------------------ */
/* opcode sets                                                          */

static void ar_op_set(__u64 *ops, unsigned op)
{
	ops[op / 64] |= 1ULL << (op % 64);
}

static bool ar_op_has(const __u64 *ops, unsigned op)
{
	return op < 256 && (ops[op / 64] >> (op % 64)) & 1;
}

static bool ar_ops_empty(const __u64 *ops)
{
	return !(ops[0] | ops[1] | ops[2] | ops[3]);
}

/* opcodes this engine performs and a rule may name */
static bool ar_op_injectable(unsigned op)
{
	return op < ar_nr_opdefs && ar_opdefs[op].prep &&
	       op != IORING_OP_LINK_TIMEOUT;
}

/* any: every opcode performed, but the timeout and cancel machinery */
static void ar_ops_any(__u64 *ops)
{
	for (unsigned op = 0; op < ar_nr_opdefs; op++) {
		if (!ar_op_injectable(op) || op == IORING_OP_TIMEOUT ||
		    op == IORING_OP_TIMEOUT_REMOVE || op == IORING_OP_ASYNC_CANCEL)
			continue;
		ar_op_set(ops, op);
	}
}

/* the opcodes short= can shorten: one buffer, length in the SQE */
static void ar_ops_shortable(__u64 *ops)
{
	ar_op_set(ops, IORING_OP_READ);
	ar_op_set(ops, IORING_OP_WRITE);
	ar_op_set(ops, IORING_OP_READ_FIXED);
	ar_op_set(ops, IORING_OP_WRITE_FIXED);
}

/* ------------------------------------------------------------------ */
/* parsing                                                              */

struct ar_fp {
	unsigned rule_no;	/* 1-based */
	char *rule;		/* a copy of its text (malloc) */
	char msg[192];
};

static int __attribute__((format(printf, 2, 3)))
ar_fp_err(struct ar_fp *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static char *ar_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* decimal digits only, no sign, no overflow */
static bool ar_parse_u64(const char *s, int base, __u64 *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* "0.01", "1%", "1": locale independent, 0 < rate <= 1 */
static bool ar_parse_rate(const char *s, double *out)
{
	__u64 num = 0, den = 1;
	unsigned digits = 0;
	bool dot = false, pct = false;

	for (; *s; s++) {
		if (isdigit((unsigned char)*s)) {
			if (++digits > 18)
				return false;
			num = num * 10 + (__u64)(*s - '0');
			if (dot)
				den *= 10;
		} else if (*s == '.' && !dot) {
			dot = true;
		} else if (*s == '%' && !s[1]) {
			pct = true;
		} else {
			return false;
		}
	}
	if (!digits)
		return false;
	*out = (double)num / (double)den / (pct ? 100.0 : 1.0);
	return *out > 0 && *out <= 1;
}

/* "200us", "2ms", "1s", "500ns" */
static bool ar_parse_delay(const char *s, __u64 *ns)
{
	static const struct { const char *unit; __u64 mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v > AR_FAULT_MAX_DELAY_NS / units[i].mul)
			return false;
		*ns = v * units[i].mul;
		return true;
	}
	return false;
}

#define AR_E(x) { #x, x }
static const struct { const char *name; int err; } ar_errnames[] = {
	AR_E(EPERM), AR_E(ENOENT), AR_E(EINTR), AR_E(EIO), AR_E(ENXIO),
	AR_E(E2BIG), AR_E(EBADF), AR_E(EAGAIN), AR_E(EWOULDBLOCK),
	AR_E(ENOMEM), AR_E(EACCES), AR_E(EFAULT), AR_E(EBUSY), AR_E(EEXIST),
	AR_E(EXDEV), AR_E(ENODEV), AR_E(ENOTDIR), AR_E(EISDIR), AR_E(EINVAL),
	AR_E(ENFILE), AR_E(EMFILE), AR_E(ETXTBSY), AR_E(EFBIG), AR_E(ENOSPC),
	AR_E(ESPIPE), AR_E(EROFS), AR_E(EMLINK), AR_E(EPIPE), AR_E(ERANGE),
	AR_E(ENAMETOOLONG), AR_E(ENOSYS), AR_E(ENOTEMPTY), AR_E(ELOOP),
	AR_E(ENODATA), AR_E(ETIME), AR_E(EOVERFLOW), AR_E(EBADFD),
	AR_E(EOPNOTSUPP), AR_E(ENOTSUP), AR_E(ENOBUFS), AR_E(ECONNRESET),
	AR_E(ETIMEDOUT), AR_E(ECANCELED), AR_E(EDQUOT), AR_E(ESTALE),
	AR_E(EREMOTEIO), AR_E(ENOLCK), AR_E(ENOTCONN), AR_E(ECONNREFUSED),
	AR_E(EHOSTUNREACH), AR_E(ENETDOWN), AR_E(ENETUNREACH), AR_E(ENOMEDIUM),
	AR_E(EILSEQ), AR_E(EUCLEAN), AR_E(EKEYEXPIRED),
};
#undef AR_E

/* "EIO" (any case) or a number 1..4095 */
static bool ar_parse_err(const char *s, int *err)
{
	__u64 v;

	for (unsigned i = 0; i < sizeof(ar_errnames) / sizeof(ar_errnames[0]); i++) {
		if (!strcasecmp(s, ar_errnames[i].name)) {
			*err = ar_errnames[i].err;
			return true;
		}
	}
	if (!ar_parse_u64(s, 10, &v) || !v || v > 4095)
		return false;
	*err = (int)v;
	return true;
}

/* one name of op=: a family, "any", or an opcode (IORING_OP_ prefix optional) */
static int ar_parse_op(struct ar_fp *p, const char *name, __u64 *ops)
{
	const char *exact = name;

	if (!strcasecmp(name, "any")) {
		ar_ops_any(ops);
		return 0;
	}
	if (!strcasecmp(name, "read")) {
		ar_op_set(ops, IORING_OP_READ);
		ar_op_set(ops, IORING_OP_READV);
		ar_op_set(ops, IORING_OP_READ_FIXED);
		return 0;
	}
	if (!strcasecmp(name, "write")) {
		ar_op_set(ops, IORING_OP_WRITE);
		ar_op_set(ops, IORING_OP_WRITEV);
		ar_op_set(ops, IORING_OP_WRITE_FIXED);
		return 0;
	}
	if (!strcasecmp(name, "open")) {
		ar_op_set(ops, IORING_OP_OPENAT);
		ar_op_set(ops, IORING_OP_OPENAT2);
		return 0;
	}
	if (!strncasecmp(name, "IORING_OP_", 10))
		exact = name + 10;
	for (unsigned op = 0; op < ar_nr_opdefs; op++) {
		if (!ar_opdefs[op].name || strcasecmp(exact, ar_opdefs[op].name))
			continue;
		if (!ar_op_injectable(op))
			return ar_fp_err(p, "op %s is not a request the user engine performs",
					 name);
		ar_op_set(ops, op);
		return 0;
	}
	return ar_fp_err(p, "unknown op \"%s\"", name);
}

/* op=NAME|NAME... */
static int ar_parse_ops(struct ar_fp *p, char *val, __u64 *ops)
{
	char *name, *save = NULL;

	if (!*val || val[strlen(val) - 1] == '|' || strstr(val, "||") || *val == '|')
		return ar_fp_err(p, "empty name in op=");
	for (name = strtok_r(val, "|", &save); name; name = strtok_r(NULL, "|", &save))
		if (ar_parse_op(p, ar_trim(name), ops))
			return -1;
	return 0;
}

static int ar_parse_int(struct ar_fp *p, const char *key, const char *val,
			int *out)
{
	__u64 v;

	if (!ar_parse_u64(val, 10, &v) || v > INT_MAX)
		return ar_fp_err(p, "%s= wants a number >= 0, not \"%s\"", key, val);
	*out = (int)v;
	return 0;
}

static int ar_parse_count(struct ar_fp *p, const char *key, const char *val,
			  __u64 min, __u64 *out)
{
	if (!ar_parse_u64(val, 10, out) || *out < min)
		return ar_fp_err(p, "%s= wants a number >= %llu, not \"%s\"", key,
				 (unsigned long long)min, val);
	return 0;
}

/* nth=, every=, rate=: at most one, checked in ar_rule_finish() */
#define AR_K_SEL_MASK	((1U << AR_K_NTH) | (1U << AR_K_EVERY) | (1U << AR_K_RATE))

static int ar_set_eff(struct ar_fp *p, struct ar_fault_rule *r,
		      enum ar_fault_eff eff)
{
	if (r->eff != AR_EFF_NONE)
		return ar_fp_err(p, "more than one effect (err=, short=, delay=)");
	r->eff = eff;
	return 0;
}

static int ar_parse_rate_item(struct ar_fp *p, struct ar_fault_rule *r,
			      const char *val)
{
	double rate;

	if (!ar_parse_rate(val, &rate))
		return ar_fp_err(p, "rate= wants a probability in (0, 1] such as 0.01 or 1%%, not \"%s\"",
				 val);
	if (rate >= 1)
		return 0;	/* every match: AR_SEL_ALL */
	r->sel = AR_SEL_RATE;
	r->threshold = (__u64)(rate * 18446744073709551616.0);
	if (!r->threshold)
		return ar_fp_err(p, "rate=%s is too small", val);
	return 0;
}

static int ar_parse_short(struct ar_fp *p, struct ar_fault_rule *r,
			  const char *val)
{
	__u64 v;

	if (ar_set_eff(p, r, AR_EFF_SHORT))
		return -1;
	if (!strcasecmp(val, "half")) {
		r->short_half = true;
		return 0;
	}
	if (!ar_parse_u64(val, 10, &v) || v > INT_MAX)
		return ar_fp_err(p, "short= wants a byte count or half, not \"%s\"", val);
	r->short_bytes = (__u32)v;
	return 0;
}

static int ar_parse_value(struct ar_fp *p, struct ar_fault_rule *r,
			  unsigned key, char *val)
{
	switch (key) {
	case AR_K_OP:
		return ar_parse_ops(p, val, r->ops);
	case AR_K_FD:
		return ar_parse_int(p, "fd", val, &r->fd);
	case AR_K_FIXED:
		return ar_parse_int(p, "fixed", val, &r->fixed);
	case AR_K_PATH:
		if (!*val)
			return ar_fp_err(p, "empty path=");
		r->glob = strdup(val);
		return r->glob ? 0 : ar_fp_err(p, "out of memory");
	case AR_K_NTH:
	case AR_K_EVERY:
		if (ar_parse_count(p, ar_fault_keys[key], val, 1, &r->n))
			return -1;
		r->sel = key == AR_K_NTH ? AR_SEL_NTH : AR_SEL_EVERY;
		return 0;
	case AR_K_RATE:
		return ar_parse_rate_item(p, r, val);
	case AR_K_AFTER:
		return ar_parse_count(p, "after", val, 0, &r->after);
	case AR_K_MAX:
		return ar_parse_count(p, "max", val, 1, &r->max);
	case AR_K_SEED:
		r->seeded = true;
		if (!ar_parse_u64(val, 0, &r->seed))
			return ar_fp_err(p, "seed= wants a number, not \"%s\"", val);
		return 0;
	case AR_K_ERR:
		if (!ar_parse_err(val, &r->err))
			return ar_fp_err(p, "err= wants an errno name (EIO) or number 1..4095, not \"%s\"",
					 val);
		return ar_set_eff(p, r, AR_EFF_ERR);
	case AR_K_SHORT:
		return ar_parse_short(p, r, val);
	default:
		if (!ar_parse_delay(val, &r->delay_ns))
			return ar_fp_err(p, "delay= wants a duration such as 200us, 2ms or 1s (up to 1 hour), not \"%s\"",
					 val);
		return ar_set_eff(p, r, AR_EFF_DELAY);
	}
}

/* key=value */
static int ar_parse_item(struct ar_fp *p, struct ar_fault_rule *r, char *item)
{
	char *eq = strchr(item, '='), *key, *val;
	unsigned k;

	if (!*item)
		return ar_fp_err(p, "empty item");
	if (!eq)
		return ar_fp_err(p, "\"%s\" is not key=value", item);
	*eq = '\0';
	key = ar_trim(item);
	val = ar_trim(eq + 1);
	for (k = 0; k < AR_K_NR; k++)
		if (!strcmp(key, ar_fault_keys[k]))
			break;
	if (k == AR_K_NR)
		return ar_fp_err(p, "unknown key \"%s\"", key);
	if (r->keys & (1U << k))
		return ar_fp_err(p, "%s= given twice", key);
	r->keys |= 1U << k;
	return ar_parse_value(p, r, k, val);
}

/* a seed for rate= rules without seed=: logged so the run can be replayed */
static __u64 ar_default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec) ^
	       ((__u64)getpid() << 32);
}

/* the checks across keys, once all are read */
static int ar_rule_finish(struct ar_fp *p, struct ar_fault_rule *r)
{
	__u64 shortable[4] = { 0 };

	if (r->eff == AR_EFF_NONE)
		return ar_fp_err(p, "no effect: give err=, short= or delay=");
	if (__builtin_popcount(r->keys & AR_K_SEL_MASK) > 1)
		return ar_fp_err(p, "only one of nth=, every=, rate=");
	if (r->fd >= 0 && r->fixed >= 0)
		return ar_fp_err(p, "fd= and fixed= together");
	if (r->seeded && !(r->keys & (1U << AR_K_RATE)))
		return ar_fp_err(p, "seed= without rate=");
	if (ar_ops_empty(r->ops))
		ar_ops_any(r->ops);
	if (r->eff == AR_EFF_SHORT) {
		ar_ops_shortable(shortable);
		for (int i = 0; i < 4; i++)
			r->ops[i] &= shortable[i];
		if (ar_ops_empty(r->ops))
			return ar_fp_err(p, "short= applies to read, write, read_fixed and write_fixed only");
	}
	if (!r->seeded)
		r->seed = ar_default_seed();
	r->text = strdup(p->rule);
	return r->text ? 0 : ar_fp_err(p, "out of memory");
}

static int ar_parse_rule(struct ar_fp *p, struct ar_fault_rule *r, char *text)
{
	char *item, *next;

	memset(r, 0, sizeof(*r));
	r->fd = r->fixed = -1;
	for (item = text; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (ar_parse_item(p, r, ar_trim(item)))
			return -1;
	}
	return ar_rule_finish(p, r);
}

static void ar_rules_free(struct ar_fault_rule *rules, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		free(rules[i].glob);
		free(rules[i].text);
	}
}

/* all rules, or none: 0, or -1 with p->msg */
static int ar_parse_rules(struct ar_fp *p, char *s, struct ar_fault_rule *rules,
			  unsigned *nr)
{
	char *text, *next;

	*nr = 0;
	for (text = s; text; text = next) {
		next = strchr(text, ';');
		if (next)
			*next++ = '\0';
		text = ar_trim(text);
		if (!*text)
			continue;	/* "a;;b", a trailing ';' */
		p->rule_no++;
		free(p->rule);
		p->rule = strdup(text);
		if (!p->rule)
			return ar_fp_err(p, "out of memory");
		if (*nr == AR_FAULT_MAX_RULES)
			return ar_fp_err(p, "more than %d rules", AR_FAULT_MAX_RULES);
		if (ar_parse_rule(p, &rules[*nr], text)) {
			free(rules[*nr].glob);
			return -1;
		}
		(*nr)++;
	}
	return 0;
}

static void ar_faults_log_rules(void)
{
	for (unsigned i = 0; i < ar_fault_nr; i++) {
		struct ar_fault_rule *r = &ar_fault_rules[i];

		if (r->sel == AR_SEL_RATE && !r->seeded)
			ar_debug("fault: rule %u \"%s\" (seed=%llu, add it to replay this run)",
				 i + 1, r->text, (unsigned long long)r->seed);
		else
			ar_debug("fault: rule %u \"%s\"", i + 1, r->text);
	}
}

static void ar_faults_parse(void)
{
	const char *env = getenv("ANYRING_FAULTS");
	struct ar_fp p = { 0, NULL, "" };
	unsigned nr = 0;
	char *s;
	int e = errno;

	if (!env || !*env)
		goto out;
	s = strdup(env);
	if (!s || ar_parse_rules(&p, s, ar_fault_rules, &nr)) {
		if (!s)
			ar_fp_err(&p, "out of memory");
		/* the user asked for faults: say why none apply, on one line */
		fprintf(stderr, "anyring[%d]: ANYRING_FAULTS: rule %u \"%s\": %s; "
			"no fault rule applied\n", (int)getpid(), p.rule_no,
			p.rule ? p.rule : "", p.msg);
		ar_rules_free(ar_fault_rules, nr);
		nr = 0;
	}
	free(s);
	free(p.rule);
	for (unsigned i = 0; i < nr; i++)
		for (int w = 0; w < 4; w++)
			ar_fault_ops[w] |= ar_fault_rules[i].ops[w];
	ar_fault_debug = nr && ar_debug_enabled();
	/* release pairs with the acquire in ar_faults_report() (exit, any thread) */
	__atomic_store_n(&ar_fault_nr, nr, __ATOMIC_RELEASE);
	if (ar_fault_debug) {
		ar_debug("fault: %u rule(s) from ANYRING_FAULTS, user engine only", nr);
		ar_faults_log_rules();
	}
out:
	/* relaxed: see ar_faults_on in fault.h */
	__atomic_store_n(&ar_faults_on, nr > 0, __ATOMIC_RELAXED);
	errno = e;
}

void ar_faults_init(void)
{
	pthread_once(&ar_faults_once, ar_faults_parse);
}

/* with ANYRING_DEBUG: what each rule did, at exit */
__attribute__((destructor)) static void ar_faults_report(void)
{
	/* acquire pairs with the parse's release: the rules are written */
	unsigned nr = __atomic_load_n(&ar_fault_nr, __ATOMIC_ACQUIRE);

	if (!nr || !ar_fault_debug)
		return;
	for (unsigned i = 0; i < nr; i++) {
		struct ar_fault_rule *r = &ar_fault_rules[i];

		ar_debug("fault: rule %u \"%s\": %llu matched, %llu injected",
			 i + 1, r->text,
			 (unsigned long long)__atomic_load_n(&r->matched, __ATOMIC_RELAXED),
			 (unsigned long long)__atomic_load_n(&r->injected, __ATOMIC_RELAXED));
	}
}

/* ------------------------------------------------------------------ */
/* paths                                                                */

/* fd -> path, direct-mapped by fd, valid while (dev, ino) match */
struct ar_fdpath {
	int fd;
	dev_t dev;
	ino_t ino;
	char *path;		/* NULL: empty slot */
};

static struct ar_fdpath ar_fdcache[AR_FDCACHE_SLOTS];
static pthread_mutex_t ar_fdcache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool ar_fdcache_get(int fd, const struct stat *st, char *out,
			   size_t size)
{
	struct ar_fdpath *e = &ar_fdcache[(unsigned)fd % AR_FDCACHE_SLOTS];
	bool hit;

	pthread_mutex_lock(&ar_fdcache_lock);
	hit = e->path && e->fd == fd && e->dev == st->st_dev &&
	      e->ino == st->st_ino;
	if (hit)
		snprintf(out, size, "%s", e->path);
	pthread_mutex_unlock(&ar_fdcache_lock);
	return hit;
}

static void ar_fdcache_put(int fd, const struct stat *st, const char *path)
{
	struct ar_fdpath *e = &ar_fdcache[(unsigned)fd % AR_FDCACHE_SLOTS];
	char *copy = strdup(path), *old;

	if (!copy)
		return;
	pthread_mutex_lock(&ar_fdcache_lock);
	old = e->path;
	e->fd = fd;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->path = copy;
	pthread_mutex_unlock(&ar_fdcache_lock);
	free(old);
}

/* the path of an open fd (size PATH_MAX): 0, or -1 when unknown */
static int ar_fd_path(int fd, char *out, size_t size)
{
	char link[32];
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	if (ar_fdcache_get(fd, &st, out, size))
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, size - 1);
	if (n < 0)
		return -1;
	out[n] = '\0';
	ar_fdcache_put(fd, &st, out);
	return 0;
}

/* "/a/./b//../c" -> "/a/c", in place; for absolute paths */
static void ar_path_clean(char *path)
{
	char *w = path;
	const char *r = path, *seg;
	size_t len;

	while (*r) {
		while (*r == '/')
			r++;
		seg = r;
		while (*r && *r != '/')
			r++;
		len = (size_t)(r - seg);
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (w > path && *--w != '/')
				;
			continue;
		}
		/* w never passes r: each segment is written where it was read, or before */
		*w++ = '/';
		memmove(w, seg, len);
		w += len;
	}
	if (w == path)
		*w++ = '/';
	*w = '\0';
}

/* name relative to dfd (or the cwd), made absolute: 0 or -1 */
static int ar_path_at(int dfd, const char *name, char *out)
{
	size_t len;

	if (name[0] == '/') {
		if (strlen(name) >= PATH_MAX)
			return -1;
		strcpy(out, name);
	} else {
		if (dfd == AT_FDCWD ? !getcwd(out, PATH_MAX) :
				      ar_fd_path(dfd, out, PATH_MAX))
			return -1;
		len = strlen(out);
		if (*name && len + 1 + strlen(name) >= PATH_MAX)
			return -1;
		if (*name)
			snprintf(out + len, PATH_MAX - len, "/%s", name);
	}
	if (out[0] == '/')
		ar_path_clean(out);
	return 0;
}

/* what one request is matched on */
struct ar_fault_req {
	struct ar_ureq *req;
	int fd, fixed;		/* -1: not a request on such a file */
	bool paths_done;
	unsigned nr_paths;
	char paths[2][PATH_MAX];
};

/* a fixed slot's path (CLOSE of a direct descriptor) */
static int ar_fixed_path(struct ar_uctx *ctx, unsigned slot, char *out)
{
	struct ar_rsrc_node *node = ar_rsrc_get_file(ctx, slot);
	int ret;

	if (!node)
		return -1;
	ret = ar_fd_path(node->fd, out, PATH_MAX);
	ar_rsrc_put(ctx, node);
	return ret;
}

/*
 * The names a path opcode was given: prep copied them into req->alloc,
 * NUL-terminated, in SQE order (fs.h, ar_fs_getnames).
 */
static void ar_fault_name_paths(struct ar_fault_req *fr)
{
	struct ar_ureq *req = fr->req;
	const char *n0 = req->alloc, *n1;
	int dfd = req->sqe.fd;

	if (!n0)
		return;
	n1 = n0 + strlen(n0) + 1;
	switch (req->opcode) {
	case IORING_OP_RENAMEAT:
	case IORING_OP_LINKAT:
		if (!ar_path_at(dfd, n0, fr->paths[fr->nr_paths]))
			fr->nr_paths++;
		if (!ar_path_at((int)req->sqe.len, n1, fr->paths[fr->nr_paths]))
			fr->nr_paths++;
		break;
	case IORING_OP_SYMLINKAT:	/* the link made, not its target */
		if (!ar_path_at(dfd, n1, fr->paths[0]))
			fr->nr_paths++;
		break;
	default:
		if (!ar_path_at(dfd, n0, fr->paths[0]))
			fr->nr_paths++;
		break;
	}
}

static void ar_fault_paths(struct ar_fault_req *fr)
{
	struct ar_ureq *req = fr->req;

	fr->paths_done = true;
	switch (req->opcode) {
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
	case IORING_OP_STATX:
	case IORING_OP_UNLINKAT:
	case IORING_OP_MKDIRAT:
	case IORING_OP_RENAMEAT:
	case IORING_OP_LINKAT:
	case IORING_OP_SYMLINKAT:
		ar_fault_name_paths(fr);
		return;
	default:
		break;
	}
	if (fr->fixed >= 0 && req->opcode == IORING_OP_CLOSE) {
		if (!ar_fixed_path(req->ctx, (unsigned)fr->fixed, fr->paths[0]))
			fr->nr_paths = 1;
	} else if (fr->fd >= 0 || fr->fixed >= 0) {
		/* req->fd: the fd, or the registered file's own dup */
		int fd = req->opcode == IORING_OP_CLOSE ? fr->fd : req->fd;

		if (!ar_fd_path(fd, fr->paths[0], PATH_MAX))
			fr->nr_paths = 1;
	}
}

static bool ar_fault_glob(const struct ar_fault_rule *r, struct ar_fault_req *fr)
{
	if (!fr->paths_done)
		ar_fault_paths(fr);
	for (unsigned i = 0; i < fr->nr_paths; i++)
		if (!fnmatch(r->glob, fr->paths[i], 0))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* matching and selection                                               */

static void ar_fault_req_init(struct ar_fault_req *fr, struct ar_ureq *req)
{
	fr->req = req;
	fr->fd = fr->fixed = -1;
	fr->paths_done = false;
	fr->nr_paths = 0;
	if (req->opcode == IORING_OP_CLOSE) {
		if (req->sqe.file_index)
			fr->fixed = (int)req->sqe.file_index - 1;
		else
			fr->fd = req->sqe.fd;
	} else if (ar_opdefs[req->opcode].needs_file) {
		if (req->flags & AR_REQ_F_FIXED_FILE)
			fr->fixed = req->sqe.fd;
		else
			fr->fd = req->sqe.fd;
	}
}

/* the length short= leaves */
static __u32 ar_fault_short_len(const struct ar_fault_rule *r,
				const struct ar_ureq *req)
{
	return r->short_half ? req->expect / 2 : r->short_bytes;
}

static bool ar_fault_match(const struct ar_fault_rule *r,
			   struct ar_fault_req *fr)
{
	struct ar_ureq *req = fr->req;

	if (!ar_op_has(r->ops, req->opcode))
		return false;
	if ((r->fd >= 0 && r->fd != fr->fd) ||
	    (r->fixed >= 0 && r->fixed != fr->fixed))
		return false;
	/* short= matches only what it can shorten (half: 2 bytes or more) */
	if (r->eff == AR_EFF_SHORT &&
	    (ar_fault_short_len(r, req) >= req->expect ||
	     (r->short_half && req->expect < 2)))
		return false;
	return !r->glob || ar_fault_glob(r, fr);
}

/* splitmix64's finaliser over (seed, rule, k): the k-th draw of a rule */
static __u64 ar_fault_draw(__u64 seed, unsigned rule, __u64 k)
{
	__u64 x = seed + (__u64)(rule + 1) * 0xd1b54a32d192ed03ULL +
		  k * 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* is the k-th match (1-based) of rule i picked? */
static bool ar_fault_select(const struct ar_fault_rule *r, unsigned i, __u64 k)
{
	if (k <= r->after)
		return false;
	k -= r->after;
	switch (r->sel) {
	case AR_SEL_NTH:
		return k == r->n;
	case AR_SEL_EVERY:
		return k % r->n == 0;
	case AR_SEL_RATE:
		return ar_fault_draw(r->seed, i, k) < r->threshold;
	default:
		return true;
	}
}

/* count an injection unless max= is reached: the injection's number, or 0 */
static __u64 ar_fault_take(struct ar_fault_rule *r)
{
	__u64 cur;

	if (!r->max)
		return __atomic_add_fetch(&r->injected, 1, __ATOMIC_RELAXED);
	cur = __atomic_load_n(&r->injected, __ATOMIC_RELAXED);
	do {
		if (cur >= r->max)
			return 0;
	} while (!__atomic_compare_exchange_n(&r->injected, &cur, cur + 1, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return cur + 1;
}

static void ar_fault_log(unsigned i, struct ar_fault_req *fr, __u64 k,
			 __u64 nth)
{
	const struct ar_ureq *req = fr->req;
	char file[48] = "";

	if (!ar_fault_debug || (nth > AR_FAULT_LOG_FIRST && (nth & (nth - 1))))
		return;
	if (fr->fd >= 0)
		snprintf(file, sizeof(file), " fd %d", fr->fd);
	else if (fr->fixed >= 0)
		snprintf(file, sizeof(file), " fixed file %d", fr->fixed);
	ar_debug("fault: rule %u \"%s\": %s%s%s%s (match %llu, injection %llu%s)",
		 i + 1, ar_fault_rules[i].text, ar_opdefs[req->opcode].name,
		 file, fr->nr_paths ? " " : "", fr->nr_paths ? fr->paths[0] : "",
		 (unsigned long long)k, (unsigned long long)nth,
		 nth == AR_FAULT_LOG_FIRST ? "; further ones at powers of 2" : "");
}

/* the first rule that matches and picks the request: its index, or -1 */
static int ar_fault_pick(struct ar_fault_req *fr, unsigned nr)
{
	struct ar_fault_rule *r;
	__u64 k, nth;

	for (unsigned i = 0; i < nr; i++) {
		r = &ar_fault_rules[i];
		if (!ar_fault_match(r, fr))
			continue;
		k = __atomic_add_fetch(&r->matched, 1, __ATOMIC_RELAXED);
		if (!ar_fault_select(r, i, k) || !(nth = ar_fault_take(r)))
			continue;
		ar_fault_log(i, fr, k, nth);
		return (int)i;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* effects                                                              */

static int ar_fault_err(struct ar_ureq *req, const struct ar_fault_rule *r,
			unsigned issue_flags)
{
	int ret;

	/* close(2) releases the fd even when it reports an error: close it */
	if (req->opcode == IORING_OP_CLOSE) {
		ret = ar_opdefs[req->opcode].issue(req, issue_flags);
		if (ret < 0)
			return ret;
	}
	return -r->err;
}

/*
 * Prepare the request again from its stable SQE with the shorter length:
 * the non-vectored read/write preps are functions of the SQE alone.
 */
static int ar_fault_shorten(struct ar_ureq *req, const struct ar_fault_rule *r)
{
	struct io_uring_sqe sqe = req->sqe;
	int ret;

	sqe.len = ar_fault_short_len(r, req);
	ret = ar_opdefs[req->opcode].prep(req, &sqe);
	if (ret)
		return ret;	/* not seen: the same SQE passed prep longer */
	/* a short transfer breaks a link, as the kernel's does */
	req->flags |= AR_REQ_F_SHORT;
	return 0;
}

static bool ar_ring_exiting(struct ar_uctx *ctx)
{
	bool exiting;

	/* written under ctx->lock (cancel.c); read under it once per slice */
	ar_spin_lock(&ctx->lock);
	exiting = ctx->exiting;
	ar_spin_unlock(&ctx->lock);
	return exiting;
}

/* sleep ns in a worker, in slices; false if the ring exits meanwhile */
static bool ar_fault_sleep(struct ar_uctx *ctx, __u64 ns)
{
	__u64 end = ar_now_ns() + ns, now, left;
	struct timespec ts;

	while ((now = ar_now_ns()) < end) {
		if (ar_ring_exiting(ctx))
			return false;
		left = end - now < AR_FAULT_SLICE_NS ? end - now : AR_FAULT_SLICE_NS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left;
		nanosleep(&ts, NULL);
	}
	return !ar_ring_exiting(ctx);
}

/*
 * In the worker: the delay a rule put on the request, then its issue. The
 * rules are read without pthread_once() here: the thread that chose the
 * delay went through it, and the io-wq lock handed the request over.
 */
static int ar_fault_delayed(struct ar_ureq *req)
{
	unsigned i = ((req->flags & AR_REQ_F_FAULT_DELAY_MASK) >>
		      AR_REQ_F_FAULT_DELAY_SHIFT) - 1;

	req->flags &= ~AR_REQ_F_FAULT_DELAY_MASK;
	if (ar_fault_sleep(req->ctx, ar_fault_rules[i].delay_ns))
		return 0;
	ar_req_complete(req, -ECANCELED, 0);
	return AR_ISSUE_QUEUED;
}

static int ar_fault_delay(struct ar_ureq *req, unsigned i, unsigned issue_flags)
{
	req->flags |= (i + 1) << AR_REQ_F_FAULT_DELAY_SHIFT;
	if (issue_flags & AR_ISSUE_WORKER)
		return ar_fault_delayed(req);
	/* the submitter does not wait: a worker sleeps, then issues it */
	ar_iowq_enqueue(req->ctx, req);
	return AR_ISSUE_QUEUED;
}

static int ar_fault_apply(struct ar_ureq *req, unsigned i, unsigned issue_flags)
{
	const struct ar_fault_rule *r = &ar_fault_rules[i];

	switch (r->eff) {
	case AR_EFF_ERR:
		return ar_fault_err(req, r, issue_flags);
	case AR_EFF_SHORT:
		return ar_fault_shorten(req, r);
	case AR_EFF_DELAY:
		return ar_fault_delay(req, i, issue_flags);
	default:
		return 0;
	}
}

/* match the rules and apply the chosen one (its own frame: two paths) */
static __attribute__((noinline)) int ar_fault_decide(struct ar_ureq *req,
						     unsigned issue_flags)
{
	unsigned nr = __atomic_load_n(&ar_fault_nr, __ATOMIC_ACQUIRE);
	struct ar_fault_req fr;
	int i, ret, e = errno;	/* path lookups must not change the application's */

	ar_fault_req_init(&fr, req);
	i = ar_fault_pick(&fr, nr);
	ret = i < 0 ? 0 : ar_fault_apply(req, (unsigned)i, issue_flags);
	errno = e;
	return ret;
}

int ar_fault_issue(struct ar_ureq *req, unsigned issue_flags)
{
	if (req->flags & AR_REQ_F_FAULT_SEEN) {
		/* issued again (a worker, a ready poll): decided already */
		if ((req->flags & AR_REQ_F_FAULT_DELAY_MASK) &&
		    (issue_flags & AR_ISSUE_WORKER))
			return ar_fault_delayed(req);
		return 0;
	}
	req->flags |= AR_REQ_F_FAULT_SEEN;
	ar_faults_init();
	/* the common case: an opcode no rule names */
	if (!ar_op_has(ar_fault_ops, req->opcode))
		return 0;
	return ar_fault_decide(req, issue_flags);
}
