/* SPDX-License-Identifier: MIT */
/*
 * rule.h - the fault rules: one representation, one grammar, one
 * selection, for both places that inject faults (docs/faults.md):
 *
 *   requests     ANYRING_FAULTS, applied by fault.c at a request's issue;
 *   device I/Os  a simdev spec's fault= keys, applied by simdev.c at
 *                submit (the device-only effects are simdev's own).
 *
 * A rule names what it matches (the domain's keys), which of the matches
 * it picks (nth, every, rate, after, max; a rate draw for the k-th match
 * of rule i is a hash of (seed, i, k), so a seed replays the same picks),
 * and its effect. Parsing and selection are here; matching a request or
 * an I/O against the domain's keys, and applying the effect, are the
 * callers'.
 */
#ifndef ANYRING_FAULT_RULE_H
#define ANYRING_FAULT_RULE_H

#include <stdbool.h>
#include <stdint.h>

/* what a rule's keys and effects apply to */
enum ar_fdom {
	AR_FDOM_REQ,		/* requests: op= is an opcode, fd=, fixed=, path= */
	AR_FDOM_DEV,		/* device I/Os: op= is read|write|flush, off= */
};

enum ar_feff {
	AR_FEFF_NONE,
	AR_FEFF_ERR,		/* complete with -err */
	AR_FEFF_SHORT,		/* move fewer bytes, and say so */
	AR_FEFF_DELAY,		/* later (a device: a latency spike; they add up) */
	AR_FEFF_TORN,		/* device: reported whole, only a prefix reaches the media */
};

/* how short= and torn= give the length */
enum ar_flen {
	AR_FLEN_BYTES,		/* at most len bytes */
	AR_FLEN_HALF,		/* half of what was asked, rounded down */
	AR_FLEN_RANDOM,		/* device: a random number of sectors */
};

/* device I/O kinds (op= of a device rule) */
#define AR_FDEV_READ	(1U << 0)
#define AR_FDEV_WRITE	(1U << 1)
#define AR_FDEV_FLUSH	(1U << 2)
#define AR_FDEV_ALL	(AR_FDEV_READ | AR_FDEV_WRITE | AR_FDEV_FLUSH)

struct ar_frule {
	/* which requests */
	uint64_t ops[4];		/* opcode bitmap */
	int fd, fixed;		/* -1: any file */
	char *glob;		/* NULL: any path */
	/* which device I/Os */
	unsigned dev_ops;	/* AR_FDEV_* */
	uint64_t off_lo, off_hi;	/* bytes [lo, hi) an I/O must overlap; hi 0: any */
	/* which of those: each selector given must agree */
	uint64_t nth, every;	/* 0: not given */
	uint64_t threshold;	/* rate: picked when the draw is below; 0: no rate */
	double rate;		/* rate= as given; 0: none */
	uint64_t after, max, seed;
	bool seeded;		/* seed= given */
	/* the effect */
	enum ar_feff eff;
	int err;		/* positive errno */
	enum ar_flen len_mode;	/* short=, torn= */
	uint32_t len;
	uint64_t delay_ns;
	char *text;		/* the rule as written, for messages */
	unsigned keys;		/* keys seen (each once) */
	uint64_t matched;		/* relaxed atomics: matches counted */
	uint64_t injected;		/* ... and the picks that took effect */
};

/* a parse in progress: its domain, and the message of the first error */
struct ar_fparse {
	enum ar_fdom dom;
	char sep;		/* between items: ',' (ANYRING_FAULTS) or '@' (simdev) */
	unsigned rule_no;	/* 1-based */
	char *rule;		/* a copy of the current rule's text (malloc) */
	char msg[192];
};

/*
 * One rule in the item grammar ("op=read,rate=0.01,err=EIO"); text is
 * cut in place. 0, or -1 with p->msg (r holds nothing to free then).
 */
int ar_frule_parse(struct ar_fparse *p, struct ar_frule *r, char *text);

/*
 * A simdev rule in its own spelling, KIND[@SEL:VALUE...] (eio,
 * short_read, short_write, torn_write, spike:DUR; rate, nth, every, off,
 * op): the same rule the item grammar would give. 0, or -1 with p->msg.
 */
int ar_frule_parse_dev_kind(struct ar_fparse *p, struct ar_frule *r, char *text);

/* rules separated by ';' (empty ones skipped): all of them, or none */
int ar_frules_parse(struct ar_fparse *p, char *s, struct ar_frule *rules,
		    unsigned max, unsigned *nr);

void ar_frule_free(struct ar_frule *r);

/*
 * Selection, for the match the caller just found of rule r (index i in
 * its set): count it (the match's number k, from 1), whether k is picked,
 * and take one injection (its number, or 0 once max= is reached).
 */
uint64_t ar_frule_count(struct ar_frule *r);
bool ar_frule_select(const struct ar_frule *r, unsigned i, uint64_t k);
/* ar_frule_select without rate=: after=, nth= and every= only */
bool ar_frule_select_seq(const struct ar_frule *r, uint64_t k);
uint64_t ar_frule_take(struct ar_frule *r);

/* does a device I/O (AR_FDEV_* kind, byte range) match r's keys? */
bool ar_frule_dev_match(const struct ar_frule *r, unsigned kind, uint64_t off,
			uint64_t len);

/*
 * The value syntaxes the fault grammar and the simdev spec share; each
 * true when the whole string is one.
 *   u64:  digits (base 0: C syntax, 0x2a), no sign;
 *   size: decimal digits and an optional K, M, G or T (powers of 1024);
 *   dur:  a decimal number and ns, us, ms or s ("0" alone is 0), <= 1 h;
 *   rate: "0.01", "1%", "1": 0 < rate <= 1, locale independent.
 */
bool ar_fval_u64(const char *s, int base, uint64_t *out);
bool ar_fval_size(const char *s, uint64_t *out);
bool ar_fval_dur(const char *s, uint64_t *ns);
bool ar_fval_rate(const char *s, double *out);

#endif
