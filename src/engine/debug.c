/* SPDX-License-Identifier: MIT */
/*
 * debug.c - ANYRING_DEBUG: the library's only output. With ANYRING_DEBUG
 * set to anything but "0" it prints one line per event on stderr, prefixed
 * "anyring: "; otherwise it prints nothing, ever.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/engine.h"

int ar_debug_enabled(void)
{
	/* read each time: cheap, only on setup and error paths */
	const char *v = secure_getenv("ANYRING_DEBUG");

	return v && *v && strcmp(v, "0") != 0;
}

void ar_debug(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (!ar_debug_enabled())
		return;
	n = snprintf(line, sizeof(line), "anyring[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	/* one write per line so lines from threads do not interleave */
	fprintf(stderr, "%s\n", line);
}
