/* SPDX-License-Identifier: MIT */
/*
 * policy.c - completion-path policies and per-ring counters: the string
 * form (ANYRING_POLICY, anyring-bench --policy), the environment default
 * for new rings, and the public calls, which go to the ring's engine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "anyring.h"

struct ar_pol_name {
	const char *name;
	unsigned char val;
};

static const struct ar_pol_name ar_wake_names[] = {
	{ "default", ANYRING_WAKE_DEFAULT },
	{ "threshold", ANYRING_WAKE_THRESHOLD },
	{ "every", ANYRING_WAKE_EVERY },
	{ NULL, 0 },
};

static const struct ar_pol_name ar_complete_names[] = {
	{ "default", ANYRING_COMPLETE_DEFAULT },
	{ "deferred", ANYRING_COMPLETE_DEFERRED },
	{ "inline", ANYRING_COMPLETE_INLINE },
	{ "punt", ANYRING_COMPLETE_PUNT },
	{ "single", ANYRING_COMPLETE_SINGLE },
	{ NULL, 0 },
};

static const struct ar_pol_name ar_wait_names[] = {
	{ "default", ANYRING_WAITP_DEFAULT },
	{ "sleep", ANYRING_WAITP_SLEEP },
	{ "spin", ANYRING_WAITP_SPIN },
	{ "hybrid", ANYRING_WAITP_HYBRID },
	{ "adaptive", ANYRING_WAITP_ADAPTIVE },
	{ NULL, 0 },
};

static const struct ar_pol_name ar_iowait_names[] = {
	{ "default", ANYRING_IOWAIT_DEFAULT },
	{ "on", ANYRING_IOWAIT_ON },
	{ "off", ANYRING_IOWAIT_OFF },
	{ NULL, 0 },
};

static const struct ar_pol_name ar_issue_names[] = {
	{ "default", ANYRING_ISSUE_DEFAULT },
	{ "inline", ANYRING_ISSUE_INLINE },
	{ "spread", ANYRING_ISSUE_SPREAD },
	{ NULL, 0 },
};

static const struct ar_pol_name ar_block_names[] = {
	{ "default", ANYRING_BLOCK_DEFAULT },
	{ "worker", ANYRING_BLOCK_WORKER },
	{ "waiter", ANYRING_BLOCK_WAITER },
	{ NULL, 0 },
};

static int ar_pol_lookup(const struct ar_pol_name *t, const char *v, size_t n,
			 unsigned char *out)
{
	for (; t->name; t++) {
		if (strlen(t->name) == n && !strncmp(t->name, v, n)) {
			*out = t->val;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *ar_pol_name(const struct ar_pol_name *t, unsigned v)
{
	for (; t->name; t++)
		if (t->val == v)
			return t->name;
	return "?";
}

/* one "key=value" of n bytes */
static int ar_policy_item(const char *s, size_t n, struct anyring_policy *p)
{
	const char *eq = memchr(s, '=', n);
	size_t kn, vn;
	char num[16], *end;
	unsigned long v;

	if (!eq)
		return -EINVAL;
	kn = (size_t)(eq - s);
	vn = n - kn - 1;
	eq++;
	if (kn == 4 && !strncmp(s, "wake", 4))
		return ar_pol_lookup(ar_wake_names, eq, vn, &p->wake);
	if (kn == 8 && !strncmp(s, "complete", 8))
		return ar_pol_lookup(ar_complete_names, eq, vn, &p->complete);
	if (kn == 4 && !strncmp(s, "wait", 4))
		return ar_pol_lookup(ar_wait_names, eq, vn, &p->wait);
	if (kn == 6 && !strncmp(s, "iowait", 6))
		return ar_pol_lookup(ar_iowait_names, eq, vn, &p->iowait);
	if (kn == 5 && !strncmp(s, "issue", 5))
		return ar_pol_lookup(ar_issue_names, eq, vn, &p->issue);
	if (kn == 5 && !strncmp(s, "block", 5))
		return ar_pol_lookup(ar_block_names, eq, vn, &p->block);
	if (kn == 9 && !strncmp(s, "spin_usec", 9)) {
		if (!vn || vn >= sizeof(num))
			return -EINVAL;
		memcpy(num, eq, vn);
		num[vn] = 0;
		v = strtoul(num, &end, 10);
		/* a spin is bounded: at most one second */
		if (*end || v > 1000000)
			return -EINVAL;
		p->spin_usec = (unsigned)v;
		return 0;
	}
	return -EINVAL;
}

AR_EXPORT int anyring_policy_parse(const char *str, struct anyring_policy *p)
{
	struct anyring_policy np;
	const char *s, *comma;
	size_t n;

	if (!str || !p)
		return -EINVAL;
	memset(&np, 0, sizeof(np));
	for (s = str; *s; s = comma + 1) {
		comma = strchr(s, ',');
		if (!comma)
			comma = s + strlen(s);
		n = (size_t)(comma - s);
		if (n && ar_policy_item(s, n, &np)) {
			ar_debug("policy '%s': bad item '%.*s' (wake=threshold|every, "
				 "complete=deferred|inline|punt|single, wait=sleep|spin|hybrid|"
				 "adaptive, iowait=on|off, issue=inline|spread, block=worker|waiter, spin_usec=N)", str, (int)n, s);
			return -EINVAL;
		}
		if (!*comma)
			break;
	}
	*p = np;
	return 0;
}

AR_EXPORT int anyring_policy_format(const struct anyring_policy *p, char *buf,
				    size_t len)
{
	if (!p)
		return -EINVAL;
	return snprintf(buf, len, "wake=%s,complete=%s,wait=%s,iowait=%s,"
			"issue=%s,block=%s,spin_usec=%u",
			ar_pol_name(ar_wake_names, p->wake),
			ar_pol_name(ar_complete_names, p->complete),
			ar_pol_name(ar_wait_names, p->wait),
			ar_pol_name(ar_iowait_names, p->iowait),
			ar_pol_name(ar_issue_names, p->issue),
			ar_pol_name(ar_block_names, p->block), p->spin_usec);
}

/* ANYRING_POLICY for a new ring; a bad string is reported and ignored */
void ar_policy_env(struct anyring_policy *p)
{
	const char *s = secure_getenv("ANYRING_POLICY");

	memset(p, 0, sizeof(*p));
	if (!s || !*s)
		return;
	if (anyring_policy_parse(s, p)) {
		/* asked for by the user: said even without ANYRING_DEBUG */
		fprintf(stderr, "anyring: ANYRING_POLICY='%s' is not valid; "
			"using the defaults\n", s);
		memset(p, 0, sizeof(*p));
	}
}

AR_EXPORT int anyring_ring_set_policy(struct io_uring *ring,
				      const struct anyring_policy *p)
{
	const struct ar_engine *e;
	void *obj;

	if (!ring || !p || p->wake > ANYRING_WAKE_EVERY ||
	    p->complete > ANYRING_COMPLETE_SINGLE ||
	    p->wait > ANYRING_WAITP_ADAPTIVE || p->iowait > ANYRING_IOWAIT_OFF ||
	    p->issue > ANYRING_ISSUE_SPREAD || p->block > ANYRING_BLOCK_WAITER ||
	    p->spin_usec > 1000000)
		return -EINVAL;
	e = ar_engine_lookup(ring->ring_fd, &obj);
	if (!e->policy)
		return -EOPNOTSUPP;
	return e->policy(obj, p, NULL);
}

AR_EXPORT int anyring_ring_policy(const struct io_uring *ring,
				  struct anyring_policy *p)
{
	const struct ar_engine *e;
	void *obj;

	if (!ring || !p)
		return -EINVAL;
	e = ar_engine_lookup(ring->ring_fd, &obj);
	if (!e->policy)
		return -EOPNOTSUPP;
	return e->policy(obj, NULL, p);
}

AR_EXPORT int anyring_ring_stats(const struct io_uring *ring,
				 struct anyring_stats *st)
{
	const struct ar_engine *e;
	void *obj;

	if (!ring || !st)
		return -EINVAL;
	e = ar_engine_lookup(ring->ring_fd, &obj);
	if (!e->stats)
		return -EOPNOTSUPP;
	return e->stats(obj, st, false);
}

AR_EXPORT int anyring_ring_stats_reset(struct io_uring *ring)
{
	const struct ar_engine *e;
	void *obj;

	if (!ring)
		return -EINVAL;
	e = ar_engine_lookup(ring->ring_fd, &obj);
	if (!e->stats)
		return -EOPNOTSUPP;
	return e->stats(obj, NULL, true);
}
