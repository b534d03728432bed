/* SPDX-License-Identifier: MIT */
/*
 * progfile.h - the program file a tool is asked about (anyring-run,
 * anyring-info): where execvp(3) would find it, and whether a dynamic
 * linker runs for it at all.
 */
#ifndef ANYRING_TOOLS_PROGFILE_H
#define ANYRING_TOOLS_PROGFILE_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cmd's path as execvp(3) would find it, in buf: 0, or a positive errno */
static inline int prog_find(const char *cmd, char *buf, size_t sz)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/')) {
		snprintf(buf, sz, "%s", cmd);
		return access(buf, F_OK) ? errno : 0;
	}
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sz, "%.*s/%s", (int)(end - p), p, cmd) < (int)sz &&
		    access(buf, X_OK) == 0)
			return 0;
	}
	return ENOENT;
}

/*
 * Is file an ELF executable without a program interpreter (fully
 * static)? No dynamic linker runs for it, so no library can be
 * preloaded. Scripts and unreadable files are not.
 */
static inline bool prog_is_static(const char *file)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool interp = false;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph)) {
		close(fd);
		return false;
	}
	for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph)))
		    != (ssize_t)sizeof(ph))
			break;
		interp = ph.p_type == PT_INTERP;
	}
	close(fd);
	return !interp;
}

#endif
