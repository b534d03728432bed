/* SPDX-License-Identifier: MIT */
/*
 * cred.h - personalities: the credentials IORING_REGISTER_PERSONALITY
 * records, and a request issued under them (the kernel's
 * override_creds() around io_issue_sqe()).
 */
#ifndef AR_USER_CRED_H
#define AR_USER_CRED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/capability.h>

/* a thread's credentials, as far as its own system calls set them */
struct ar_cred {
	atomic_uint refs;
	uid_t uid[3];		/* real, effective, saved */
	gid_t gid[3];
	uid_t fsuid;
	gid_t fsgid;
	struct __user_cap_data_struct cap[_LINUX_CAPABILITY_U32S_3];
	int ngroups;
	gid_t groups[];
};

/* the calling thread's credentials (one reference), or NULL without memory */
struct ar_cred *ar_cred_current(void);
static inline struct ar_cred *ar_cred_get(struct ar_cred *c)
{
	/* relaxed: the caller holds a reference already */
	atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	return c;
}
void ar_cred_put(struct ar_cred *c);

/*
 * The calling thread takes c's credentials until ar_cred_revert(*old).
 * *old is NULL when it has them already (nothing changed). 0, or -EPERM
 * when this process may not take them (the thread keeps its own).
 */
int ar_cred_override(const struct ar_cred *c, struct ar_cred **old);
void ar_cred_revert(struct ar_cred *old);

#endif
