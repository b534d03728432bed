/* SPDX-License-Identifier: MIT */
/*
 * rule.c - the fault rule grammar, its values, and selection (rule.h;
 * docs/faults.md). Parsing allocates only r->glob and r->text; a rule
 * that fails to parse holds nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fault/rule.h"
#include "user/types.h"
#include "user/opdef.h"

#define AR_FAULT_MAX_NS		(3600ULL * 1000000000ULL)

enum {
	AR_K_OP, AR_K_FD, AR_K_FIXED, AR_K_PATH, AR_K_OFF, AR_K_NTH, AR_K_EVERY,
	AR_K_RATE, AR_K_AFTER, AR_K_MAX, AR_K_SEED, AR_K_ERR, AR_K_SHORT,
	AR_K_DELAY, AR_K_TORN, AR_K_NR
};

#define AR_KD_REQ	(1U << AR_FDOM_REQ)
#define AR_KD_DEV	(1U << AR_FDOM_DEV)
#define AR_KD_ALL	(AR_KD_REQ | AR_KD_DEV)

static const struct {
	const char *name;
	unsigned doms;		/* the domains that have the key */
} ar_fkeys[AR_K_NR] = {
	[AR_K_OP] = { "op", AR_KD_ALL },
	[AR_K_FD] = { "fd", AR_KD_REQ },
	[AR_K_FIXED] = { "fixed", AR_KD_REQ },
	[AR_K_PATH] = { "path", AR_KD_REQ },
	[AR_K_OFF] = { "off", AR_KD_DEV },
	[AR_K_NTH] = { "nth", AR_KD_ALL },
	[AR_K_EVERY] = { "every", AR_KD_ALL },
	[AR_K_RATE] = { "rate", AR_KD_ALL },
	[AR_K_AFTER] = { "after", AR_KD_ALL },
	[AR_K_MAX] = { "max", AR_KD_ALL },
	[AR_K_SEED] = { "seed", AR_KD_ALL },
	[AR_K_ERR] = { "err", AR_KD_ALL },
	[AR_K_SHORT] = { "short", AR_KD_ALL },
	[AR_K_DELAY] = { "delay", AR_KD_ALL },
	[AR_K_TORN] = { "torn", AR_KD_DEV },
};

/* nth=, every=, rate=: at most one in the item grammar */
#define AR_K_SEL_MASK	((1U << AR_K_NTH) | (1U << AR_K_EVERY) | (1U << AR_K_RATE))

static int __attribute__((format(printf, 2, 3)))
ar_fp_err(struct ar_fparse *p, const char *fmt, ...)
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

/* ------------------------------------------------------------------ */
/* values                                                               */

bool ar_fval_u64(const char *s, int base, uint64_t *out)
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

bool ar_fval_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end || (shift && v > (~0ULL >> shift)))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

bool ar_fval_dur(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return false;
	v = strtod(s, &end);
	if (end == s || !(v >= 0))
		return false;
	if (!*end && v == 0) {
		*ns = 0;
		return true;
	}
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].mul;
		if (v > (double)AR_FAULT_MAX_NS)
			return false;
		*ns = (uint64_t)(v + 0.5);
		return true;
	}
	return false;
}

bool ar_fval_rate(const char *s, double *out)
{
	uint64_t num = 0, den = 1;
	unsigned digits = 0;
	bool dot = false, pct = false;

	for (; *s; s++) {
		if (isdigit((unsigned char)*s)) {
			if (++digits > 18)
				return false;
			num = num * 10 + (uint64_t)(*s - '0');
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
static bool ar_fval_err(const char *s, int *err)
{
	uint64_t v;

	for (unsigned i = 0; i < sizeof(ar_errnames) / sizeof(ar_errnames[0]); i++) {
		if (!strcasecmp(s, ar_errnames[i].name)) {
			*err = ar_errnames[i].err;
			return true;
		}
	}
	if (!ar_fval_u64(s, 10, &v) || !v || v > 4095)
		return false;
	*err = (int)v;
	return true;
}

/* ------------------------------------------------------------------ */
/* opcode sets (requests)                                               */

static void ar_op_set(uint64_t *ops, unsigned op)
{
	ops[op / 64] |= 1ULL << (op % 64);
}

static bool ar_ops_empty(const uint64_t *ops)
{
	return !(ops[0] | ops[1] | ops[2] | ops[3]);
}

/* opcodes this engine performs and a rule may name */
static bool ar_op_injectable(unsigned op)
{
	return ar_op_supported(op) && !ar_cold_defs[op].fault_never;
}

/* any: every opcode performed, but the timeout and cancel machinery */
static void ar_ops_any(uint64_t *ops)
{
	for (unsigned op = 0; op < AR_OP_NR; op++) {
		if (!ar_op_injectable(op) || ar_cold_defs[op].fault_not_any)
			continue;
		ar_op_set(ops, op);
	}
}

/* the opcodes short= can shorten */
static void ar_ops_shortable(uint64_t *ops)
{
	for (unsigned op = 0; op < AR_OP_NR; op++)
		if (ar_cold_defs[op].fault_short)
			ar_op_set(ops, op);
}

/* a family's opcodes (read, write, open); false: no such family */
static bool ar_ops_family(uint64_t *ops, const char *name)
{
	bool found = false;

	for (unsigned op = 0; op < AR_OP_NR; op++) {
		const char *family = ar_cold_defs[op].family;

		if (family && !strcasecmp(name, family)) {
			ar_op_set(ops, op);
			found = true;
		}
	}
	return found;
}

/* one name of a request rule's op=: a family, "any", or an opcode */
static int ar_parse_req_op(struct ar_fparse *p, const char *name,
			   struct ar_frule *r)
{
	const char *exact = name;

	if (!strcasecmp(name, "any")) {
		ar_ops_any(r->ops);
		return 0;
	}
	if (ar_ops_family(r->ops, name))
		return 0;
	if (!strncasecmp(name, "IORING_OP_", 10))
		exact = name + 10;
	for (unsigned op = 0; op < AR_OP_NR; op++) {
		if (strcasecmp(exact, ar_cold_defs[op].name))
			continue;
		if (!ar_op_injectable(op))
			return ar_fp_err(p, "op %s is not a request the user engine performs",
					 name);
		ar_op_set(r->ops, op);
		return 0;
	}
	return ar_fp_err(p, "unknown op \"%s\"", name);
}

/* one name of a device rule's op= */
static int ar_parse_dev_op(struct ar_fparse *p, const char *name,
			   struct ar_frule *r)
{
	if (!strcasecmp(name, "read"))
		r->dev_ops |= AR_FDEV_READ;
	else if (!strcasecmp(name, "write"))
		r->dev_ops |= AR_FDEV_WRITE;
	else if (!strcasecmp(name, "flush"))
		r->dev_ops |= AR_FDEV_FLUSH;
	else
		return ar_fp_err(p, "op is read, write or flush, not \"%s\"", name);
	return 0;
}

/* op=NAME|NAME... */
static int ar_parse_ops(struct ar_fparse *p, struct ar_frule *r, char *val)
{
	char *name, *save = NULL;

	if (!*val || val[strlen(val) - 1] == '|' || strstr(val, "||") || *val == '|')
		return ar_fp_err(p, "empty name in op=");
	for (name = strtok_r(val, "|", &save); name; name = strtok_r(NULL, "|", &save)) {
		name = ar_trim(name);
		if (p->dom == AR_FDOM_REQ ? ar_parse_req_op(p, name, r) :
					    ar_parse_dev_op(p, name, r))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* values of keys                                                       */

static int ar_parse_int(struct ar_fparse *p, const char *key, const char *val,
			int *out)
{
	uint64_t v;

	if (!ar_fval_u64(val, 10, &v) || v > INT_MAX)
		return ar_fp_err(p, "%s= wants a number >= 0, not \"%s\"", key, val);
	*out = (int)v;
	return 0;
}

static int ar_parse_count(struct ar_fparse *p, const char *key, const char *val,
			  uint64_t min, uint64_t *out)
{
	if (!ar_fval_u64(val, 10, out) || *out < min)
		return ar_fp_err(p, "%s= wants a number >= %llu, not \"%s\"", key,
				 (unsigned long long)min, val);
	return 0;
}

static int ar_set_eff(struct ar_fparse *p, struct ar_frule *r, enum ar_feff eff)
{
	if (r->eff != AR_FEFF_NONE)
		return ar_fp_err(p, "more than one effect (err=, short=, delay=%s)",
				 p->dom == AR_FDOM_DEV ? ", torn=" : "");
	r->eff = eff;
	return 0;
}

static int ar_parse_rate(struct ar_fparse *p, struct ar_frule *r,
			 const char *val)
{
	double rate;

	if (!ar_fval_rate(val, &rate))
		return ar_fp_err(p, "rate= wants a probability in (0, 1] such as 0.01 or 1%%, not \"%s\"",
				 val);
	r->rate = rate;
	if (rate >= 1)
		return 0;	/* every match: no draw */
	r->threshold = (uint64_t)(rate * 18446744073709551616.0);
	if (!r->threshold)
		return ar_fp_err(p, "rate=%s is too small", val);
	return 0;
}

/* short= and torn=: BYTES, half, or (device) random */
static int ar_parse_len(struct ar_fparse *p, struct ar_frule *r,
			const char *key, const char *val, enum ar_feff eff)
{
	uint64_t v;

	if (ar_set_eff(p, r, eff))
		return -1;
	if (!strcasecmp(val, "half")) {
		r->len_mode = AR_FLEN_HALF;
		return 0;
	}
	if (p->dom == AR_FDOM_DEV && !strcasecmp(val, "random")) {
		r->len_mode = AR_FLEN_RANDOM;
		return 0;
	}
	if (!ar_fval_u64(val, 10, &v) || v > INT_MAX)
		return ar_fp_err(p, "%s= wants a byte count or half%s, not \"%s\"", key,
				 p->dom == AR_FDOM_DEV ? " or random" : "", val);
	r->len_mode = AR_FLEN_BYTES;
	r->len = (uint32_t)v;
	return 0;
}

/* off=START-END: sizes, START < END */
static int ar_parse_off(struct ar_fparse *p, struct ar_frule *r, char *val)
{
	char *dash = strchr(val, '-');

	if (dash)
		*dash = '\0';
	if (!dash || !ar_fval_size(val, &r->off_lo) ||
	    !ar_fval_size(dash + 1, &r->off_hi) || r->off_hi <= r->off_lo)
		return ar_fp_err(p, "off= wants START-END, START < END (0-1M)");
	return 0;
}

static int ar_parse_path(struct ar_fparse *p, struct ar_frule *r,
			 const char *val)
{
	if (!*val)
		return ar_fp_err(p, "empty path=");
	r->glob = strdup(val);
	return r->glob ? 0 : ar_fp_err(p, "out of memory");
}

static int ar_parse_delay(struct ar_fparse *p, struct ar_frule *r,
			  const char *val)
{
	if (!ar_fval_dur(val, &r->delay_ns) ||
	    (p->dom == AR_FDOM_DEV && !r->delay_ns))
		return ar_fp_err(p, "delay= wants a duration such as 200us, 2ms or 1s (up to 1 hour), not \"%s\"",
				 val);
	return ar_set_eff(p, r, AR_FEFF_DELAY);
}

static int ar_parse_value(struct ar_fparse *p, struct ar_frule *r,
			  unsigned key, char *val)
{
	const char *name = ar_fkeys[key].name;

	switch (key) {
	case AR_K_OP:
		return ar_parse_ops(p, r, val);
	case AR_K_FD:
		return ar_parse_int(p, name, val, &r->fd);
	case AR_K_FIXED:
		return ar_parse_int(p, name, val, &r->fixed);
	case AR_K_PATH:
		return ar_parse_path(p, r, val);
	case AR_K_OFF:
		return ar_parse_off(p, r, val);
	case AR_K_NTH:
		return ar_parse_count(p, name, val, 1, &r->nth);
	case AR_K_EVERY:
		return ar_parse_count(p, name, val, 1, &r->every);
	case AR_K_RATE:
		return ar_parse_rate(p, r, val);
	case AR_K_AFTER:
		return ar_parse_count(p, name, val, 0, &r->after);
	case AR_K_MAX:
		return ar_parse_count(p, name, val, 1, &r->max);
	case AR_K_SEED:
		r->seeded = true;
		if (!ar_fval_u64(val, 0, &r->seed))
			return ar_fp_err(p, "seed= wants a number, not \"%s\"", val);
		return 0;
	case AR_K_ERR:
		if (!ar_fval_err(val, &r->err))
			return ar_fp_err(p, "err= wants an errno name (EIO) or number 1..4095, not \"%s\"",
					 val);
		return ar_set_eff(p, r, AR_FEFF_ERR);
	case AR_K_SHORT:
		return ar_parse_len(p, r, name, val, AR_FEFF_SHORT);
	case AR_K_TORN:
		return ar_parse_len(p, r, name, val, AR_FEFF_TORN);
	default:
		return ar_parse_delay(p, r, val);
	}
}

/* key (of this domain, each once) and its value */
static int ar_parse_key(struct ar_fparse *p, struct ar_frule *r,
			const char *key, char *val)
{
	unsigned k;

	for (k = 0; k < AR_K_NR; k++)
		if (!strcmp(key, ar_fkeys[k].name) &&
		    (ar_fkeys[k].doms & (1U << p->dom)))
			break;
	if (k == AR_K_NR)
		return ar_fp_err(p, "unknown key \"%s\"", key);
	if (r->keys & (1U << k))
		return ar_fp_err(p, "%s= given twice", key);
	r->keys |= 1U << k;
	return ar_parse_value(p, r, k, val);
}

/* key=value */
static int ar_parse_item(struct ar_fparse *p, struct ar_frule *r, char *item)
{
	char *eq = strchr(item, '=');

	if (!*item)
		return ar_fp_err(p, "empty item");
	if (!eq)
		return ar_fp_err(p, "\"%s\" is not key=value", item);
	*eq = '\0';
	return ar_parse_key(p, r, ar_trim(item), ar_trim(eq + 1));
}

/* ------------------------------------------------------------------ */
/* whole rules                                                          */

/* a seed for request rate= rules without seed=: logged to replay the run */
static uint64_t ar_default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
	       ((uint64_t)getpid() << 32);
}

/* a request rule's opcodes: any by default; short= keeps what it can shorten */
static int ar_finish_req_ops(struct ar_fparse *p, struct ar_frule *r)
{
	uint64_t shortable[4] = { 0 };

	if (r->fd >= 0 && r->fixed >= 0)
		return ar_fp_err(p, "fd= and fixed= together");
	if (ar_ops_empty(r->ops))
		ar_ops_any(r->ops);
	if (r->eff != AR_FEFF_SHORT)
		return 0;
	ar_ops_shortable(shortable);
	for (int i = 0; i < 4; i++)
		r->ops[i] &= shortable[i];
	if (ar_ops_empty(r->ops))
		return ar_fp_err(p, "short= applies to read, write, read_fixed and write_fixed only");
	return 0;
}

/* the device I/Os an effect applies to */
static unsigned ar_dev_eff_ops(enum ar_feff eff)
{
	switch (eff) {
	case AR_FEFF_SHORT:
		return AR_FDEV_READ | AR_FDEV_WRITE;
	case AR_FEFF_TORN:
		return AR_FDEV_WRITE;
	default:
		return AR_FDEV_ALL;
	}
}

/* a device rule's I/Os: those of op= (all by default) its effect applies to */
static int ar_finish_dev_ops(struct ar_fparse *p, struct ar_frule *r,
			     unsigned eff_ops)
{
	if (!r->dev_ops)
		r->dev_ops = eff_ops;
	r->dev_ops &= eff_ops;
	if (!r->dev_ops)
		return ar_fp_err(p, "op is read, write or flush, one the effect applies to");
	return 0;
}

/* the checks across keys, once all are read (eff_ops: device kinds allowed) */
static int ar_rule_finish(struct ar_fparse *p, struct ar_frule *r,
			  unsigned eff_ops)
{
	if (r->eff == AR_FEFF_NONE)
		return ar_fp_err(p, "no effect: give err=, short=%s or delay=",
				 p->dom == AR_FDOM_DEV ? ", torn=" : "");
	if (r->seeded && !(r->keys & (1U << AR_K_RATE)))
		return ar_fp_err(p, "seed= without rate=");
	if (p->dom == AR_FDOM_DEV)
		return ar_finish_dev_ops(p, r, eff_ops);
	if (ar_finish_req_ops(p, r))
		return -1;
	if (!r->seeded)
		r->seed = ar_default_seed();
	return 0;
}

static int ar_rule_start(struct ar_fparse *p, struct ar_frule *r,
			 const char *text)
{
	memset(r, 0, sizeof(*r));
	r->fd = r->fixed = -1;
	r->text = strdup(text);
	return r->text ? 0 : ar_fp_err(p, "out of memory");
}

static int ar_rule_fail(struct ar_frule *r)
{
	ar_frule_free(r);
	return -1;
}

int ar_frule_parse(struct ar_fparse *p, struct ar_frule *r, char *text)
{
	char *item, *next;

	if (ar_rule_start(p, r, text))
		return -1;
	for (item = text; item; item = next) {
		next = strchr(item, p->sep);
		if (next)
			*next++ = '\0';
		if (ar_parse_item(p, r, ar_trim(item)))
			return ar_rule_fail(r);
	}
	if (__builtin_popcount(r->keys & AR_K_SEL_MASK) > 1) {
		ar_fp_err(p, "only one of nth=, every=, rate=");
		return ar_rule_fail(r);
	}
	if (ar_rule_finish(p, r, ar_dev_eff_ops(r->eff)))
		return ar_rule_fail(r);
	return 0;
}

/* simdev's kinds: the effect they name and the I/Os it applies to */
static const struct {
	const char *kind;
	const char *item;	/* the same effect in the item grammar */
	unsigned ops;
} ar_dev_kinds[] = {
	{ "eio", "err=EIO", AR_FDEV_ALL },
	{ "short_read", "short=random", AR_FDEV_READ },
	{ "short_write", "short=random", AR_FDEV_WRITE },
	{ "torn_write", "torn=random", AR_FDEV_WRITE },
};

static int ar_parse_dev_kind(struct ar_fparse *p, struct ar_frule *r,
			     char *kind, unsigned *ops)
{
	char *arg = strchr(kind, ':'), item[32];

	if (arg)
		*arg++ = '\0';
	if (!strcmp(kind, "spike")) {
		*ops = AR_FDEV_ALL;
		if (!arg || ar_parse_key(p, r, "delay", arg))
			return ar_fp_err(p, "spike:DUR (spike:5ms)");
		return 0;
	}
	if (arg)
		return ar_fp_err(p, "only spike takes an argument");
	for (unsigned i = 0; i < sizeof(ar_dev_kinds) / sizeof(ar_dev_kinds[0]); i++) {
		if (strcmp(kind, ar_dev_kinds[i].kind))
			continue;
		*ops = ar_dev_kinds[i].ops;
		snprintf(item, sizeof(item), "%s", ar_dev_kinds[i].item);
		return ar_parse_item(p, r, item);
	}
	return ar_fp_err(p, "eio, short_read, short_write, torn_write or spike:DUR");
}

/* NAME:VALUE, as the item NAME=VALUE; op: names one kind of I/O */
static int ar_parse_dev_sel(struct ar_fparse *p, struct ar_frule *r, char *sel)
{
	static const char *const names[] = { "rate", "nth", "every", "off", "op" };
	char *arg = strchr(sel, ':');

	if (!arg)
		return ar_fp_err(p, "a selector is NAME:VALUE (rate:0.01)");
	*arg++ = '\0';
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(sel, names[i]))
			continue;
		if (!strcmp(sel, "op") && strchr(arg, '|'))
			return ar_fp_err(p, "op is read, write or flush");
		return ar_parse_key(p, r, sel, arg);
	}
	return ar_fp_err(p, "selectors: rate, nth, every, off, op");
}

int ar_frule_parse_dev_kind(struct ar_fparse *p, struct ar_frule *r, char *text)
{
	char *sel = strchr(text, '@'), *next;
	unsigned ops = 0;

	if (ar_rule_start(p, r, text))
		return -1;
	if (sel)
		*sel++ = '\0';
	if (ar_parse_dev_kind(p, r, text, &ops))
		return ar_rule_fail(r);
	for (; sel; sel = next) {
		next = strchr(sel, '@');
		if (next)
			*next++ = '\0';
		if (ar_parse_dev_sel(p, r, sel))
			return ar_rule_fail(r);
	}
	if (ar_rule_finish(p, r, ops))
		return ar_rule_fail(r);
	return 0;
}

int ar_frules_parse(struct ar_fparse *p, char *s, struct ar_frule *rules,
		    unsigned max, unsigned *nr)
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
		if (*nr == max)
			return ar_fp_err(p, "more than %u rules", max);
		if (ar_frule_parse(p, &rules[*nr], text))
			return -1;
		(*nr)++;
	}
	return 0;
}

void ar_frule_free(struct ar_frule *r)
{
	free(r->glob);
	free(r->text);
	r->glob = r->text = NULL;
}

/* ------------------------------------------------------------------ */
/* selection                                                            */

/* splitmix64's finaliser over (seed, rule, k): the k-th draw of a rule */
static uint64_t ar_frule_draw(uint64_t seed, unsigned rule, uint64_t k)
{
	uint64_t x = seed + (uint64_t)(rule + 1) * 0xd1b54a32d192ed03ULL +
		  k * 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t ar_frule_count(struct ar_frule *r)
{
	return __atomic_add_fetch(&r->matched, 1, __ATOMIC_RELAXED);
}

bool ar_frule_select_seq(const struct ar_frule *r, uint64_t k)
{
	if (k <= r->after)
		return false;
	k -= r->after;
	if (r->nth && k != r->nth)
		return false;
	return !r->every || !(k % r->every);
}

bool ar_frule_select(const struct ar_frule *r, unsigned i, uint64_t k)
{
	return ar_frule_select_seq(r, k) &&
	       (!r->threshold || ar_frule_draw(r->seed, i, k) < r->threshold);
}

uint64_t ar_frule_take(struct ar_frule *r)
{
	uint64_t cur;

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

bool ar_frule_dev_match(const struct ar_frule *r, unsigned kind, uint64_t off,
			uint64_t len)
{
	if (!(r->dev_ops & kind))
		return false;
	return !r->off_hi || (off < r->off_hi && off + len > r->off_lo);
}
