/* SPDX-License-Identifier: MIT */
/*
 * units.c - parsing and formatting of sizes and counts.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "units.h"

static int suffix_shift(const char *s, unsigned *shift)
{
	static const char units[] = "KMGT";
	const char *u;

	if (!*s) {
		*shift = 0;
		return 0;
	}
	u = strchr(units, toupper((unsigned char)*s));
	if (!u || !*u)
		return -1;
	s++;
	/* 4k, 4K, 4KB, 4KiB */
	if (*s == 'i' || *s == 'I')
		s++;
	if (*s == 'b' || *s == 'B')
		s++;
	if (*s)
		return -1;
	*shift = 10 * (unsigned)(u - units + 1);
	return 0;
}

int parse_size(const char *str, uint64_t *out)
{
	unsigned shift;
	double v;
	char *end;

	if (!str || !isdigit((unsigned char)*str))
		return -1;
	errno = 0;
	v = strtod(str, &end);
	if (errno || end == str || suffix_shift(end, &shift))
		return -1;
	v = ldexp(v, (int)shift);
	if (v >= 18446744073709551615.0 || v != floor(v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int parse_uint(const char *str, unsigned min, unsigned max, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!str || !isdigit((unsigned char)*str))
		return -1;
	errno = 0;
	v = strtoul(str, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

const char *fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned i = 0;

	while (i < 4 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)bytes, names[i]);
	return buf;
}

const char *fmt_count(double n, char *buf, size_t len)
{
	if (n >= 1e6)
		snprintf(buf, len, "%.2fM", n / 1e6);
	else if (n >= 1e5)
		snprintf(buf, len, "%.2fK", n / 1e3);
	else
		snprintf(buf, len, "%.0f", n);
	return buf;
}
