/* SPDX-License-Identifier: MIT */
/*
 * fs_names.c - the prep-time path copy (the kernel's getname()) that the
 * path opcodes share: RENAMEAT, UNLINKAT, MKDIRAT, SYMLINKAT, LINKAT
 * (fs.c), OPENAT and OPENAT2 (openclose.c), STATX (statx.c) and the
 * xattr opcodes on paths (xattr.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/uaccess.h"
#include "user/ops/fs.h"
#include "user/types.h"

#define AR_FS_MAX_NAMES		2

/* getname(): one path into tmp (PATH_MAX bytes): its length, or the error */
static long ar_fs_getname(const struct ar_fs_name *n, char *tmp)
{
	long len = ar_strncpy_from_user(tmp, (const char *)(uintptr_t)n->addr,
					PATH_MAX);

	if (len < 0)
		return len;
	if (len == PATH_MAX)
		return -ENAMETOOLONG;
	if (!len && !n->empty_ok)
		return -ENOENT;
	return len;
}

int ar_fs_getnames(struct ar_ureq *req, struct ar_fs_name *names,
		   unsigned nr)
{
	size_t off[AR_FS_MAX_NAMES], total = 0;
	char tmp[PATH_MAX], *buf = NULL, *grown;
	unsigned i;
	long len;

	if (nr > AR_FS_MAX_NAMES)
		return -EINVAL;
	/* each name copied once, in order: the app may be changing it */
	for (i = 0; i < nr; i++) {
		len = ar_fs_getname(&names[i], tmp);
		if (len < 0) {
			free(buf);
			return (int)len;
		}
		grown = realloc(buf, total + (size_t)len + 1);
		if (!grown) {
			free(buf);
			return -ENOMEM;
		}
		buf = grown;
		memcpy(buf + total, tmp, (size_t)len + 1);
		off[i] = total;
		total += (size_t)len + 1;
	}
	req->alloc = buf;
	for (i = 0; i < nr; i++)
		names[i].path = buf + off[i];
	return 0;
}
