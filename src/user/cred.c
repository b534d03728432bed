/* SPDX-License-Identifier: MIT */
/*
 * cred.c - personalities applied. The kernel issues a request that names
 * a personality under the credentials registered with it
 * (override_creds()); here the issuing thread takes them with its own
 * system calls, which Linux keeps per thread: setresuid(), setresgid(),
 * setgroups(), setfsuid(), setfsgid() and capset() made raw, not through
 * glibc's wrappers, which change every thread of the process.
 *
 * A thread that has the credentials already changes nothing: a program
 * that never changes its own (the common case) pays seven reading system
 * calls and an allocation per such request, and no change. Otherwise the thread keeps its permitted
 * capabilities across the change (PR_SET_KEEPCAPS), so that it can come
 * back: what decides access (the fs ids, groups and effective
 * capabilities) is the personality's. Taking credentials needs what the
 * kernel does not: a process that could not switch to them itself (no
 * CAP_SETUID and CAP_SETGID in its permitted set, and not one of its own
 * ids) gets -EPERM for the request (docs/semantics.md).
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "user/cred.h"

#define AR_CAP_WORDS	_LINUX_CAPABILITY_U32S_3

static int ar_capget(struct __user_cap_data_struct *d)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	return (int)syscall(SYS_capget, &h, d);
}

static int ar_capset(const struct __user_cap_data_struct *d)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	return (int)syscall(SYS_capset, &h, d);
}

struct ar_cred *ar_cred_current(void)
{
	struct ar_cred *c = NULL;
	int n;

	/* the groups can change between the two calls: read until they agree */
	for (;;) {
		n = getgroups(0, NULL);
		if (n < 0)
			return NULL;
		free(c);
		c = calloc(1, sizeof(*c) + (size_t)n * sizeof(gid_t));
		if (!c)
			return NULL;
		c->ngroups = getgroups(n, c->groups);
		if (c->ngroups >= 0)
			break;
		if (errno != EINVAL) {
			free(c);
			return NULL;
		}
	}
	if (getresuid(&c->uid[0], &c->uid[1], &c->uid[2]) ||
	    getresgid(&c->gid[0], &c->gid[1], &c->gid[2]) || ar_capget(c->cap)) {
		free(c);
		return NULL;
	}
	/* an invalid id changes nothing and answers the current one */
	c->fsuid = (uid_t)syscall(SYS_setfsuid, -1);
	c->fsgid = (gid_t)syscall(SYS_setfsgid, -1);
	atomic_init(&c->refs, 1);
	return c;
}

void ar_cred_put(struct ar_cred *c)
{
	/* acq_rel: the last put sees every other holder's reads done */
	if (c && atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		free(c);
}

static bool ar_groups_same(const struct ar_cred *a, const struct ar_cred *b)
{
	return a->ngroups == b->ngroups &&
	       !memcmp(a->groups, b->groups, (size_t)a->ngroups * sizeof(gid_t));
}

static bool ar_cap_eff_same(const struct ar_cred *a, const struct ar_cred *b)
{
	int i;

	for (i = 0; i < AR_CAP_WORDS; i++)
		if (a->cap[i].effective != b->cap[i].effective)
			return false;
	return true;
}

/* do a and b decide access alike? */
static bool ar_cred_same(const struct ar_cred *a, const struct ar_cred *b)
{
	return !memcmp(a->uid, b->uid, sizeof(a->uid)) &&
	       !memcmp(a->gid, b->gid, sizeof(a->gid)) &&
	       a->fsuid == b->fsuid && a->fsgid == b->fsgid &&
	       ar_groups_same(a, b) && ar_cap_eff_same(a, b);
}

/*
 * The calling thread, now with credentials cur (NULL: unknown, every id
 * is set), takes c's. Its permitted
 * capabilities stay (they are what brings it back); the effective ones
 * become c's, as far as they are permitted. 0 or -errno.
 */
static int ar_cred_apply(const struct ar_cred *c, const struct ar_cred *cur)
{
	struct __user_cap_data_struct d[AR_CAP_WORDS];
	int i, keep = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), ret = 0;

	if (ar_capget(d))
		return -errno;
	prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
	/* every permitted capability, for the changes (none may be) */
	for (i = 0; i < AR_CAP_WORDS; i++)
		d[i].effective = d[i].permitted;
	ar_capset(d);
	if ((!cur || !ar_groups_same(c, cur)) &&
	    syscall(SYS_setgroups, (size_t)c->ngroups, c->groups))
		ret = -errno;
	if (!ret && (!cur || memcmp(c->gid, cur->gid, sizeof(c->gid))) &&
	    syscall(SYS_setresgid, c->gid[0], c->gid[1], c->gid[2]))
		ret = -errno;
	if (!ret && (!cur || memcmp(c->uid, cur->uid, sizeof(c->uid))) &&
	    syscall(SYS_setresuid, c->uid[0], c->uid[1], c->uid[2]))
		ret = -errno;
	if (!ret) {
		/* setresuid() and setresgid() set the fs ids to the effective */
		if ((gid_t)syscall(SYS_setfsgid, -1) != c->fsgid)
			syscall(SYS_setfsgid, c->fsgid);
		if ((uid_t)syscall(SYS_setfsuid, -1) != c->fsuid)
			syscall(SYS_setfsuid, c->fsuid);
	}
	for (i = 0; i < AR_CAP_WORDS; i++)
		d[i].effective = c->cap[i].effective & d[i].permitted;
	ar_capset(d);
	prctl(PR_SET_KEEPCAPS, keep > 0, 0, 0, 0);
	return ret;
}

int ar_cred_override(const struct ar_cred *c, struct ar_cred **old)
{
	struct ar_cred *cur = ar_cred_current(), *now;
	int ret;

	*old = NULL;
	if (!cur)
		return -ENOMEM;
	if (ar_cred_same(c, cur)) {
		ar_cred_put(cur);
		return 0;
	}
	ret = ar_cred_apply(c, cur);
	now = ret ? NULL : ar_cred_current();
	if (ret || !now || !ar_cred_same(c, now)) {
		/* part way, or not what was asked: back, and refused */
		ar_cred_revert(cur);
		ar_cred_put(now);
		return ret == -ENOMEM || (!ret && !now) ? -ENOMEM : -EPERM;
	}
	ar_cred_put(now);
	*old = cur;
	return 0;
}

void ar_cred_revert(struct ar_cred *old)
{
	struct ar_cred *now;

	if (!old)
		return;
	now = ar_cred_current();
	ar_cred_apply(old, now);
	ar_cred_put(now);
	ar_cred_put(old);
}
