/* SPDX-License-Identifier: MIT */
/*
 * units.h - numbers in and out: sizes with K/M/G/T suffixes (powers of
 * 1024), counts and rates in t/io_uring's style (123.45K, 1.23M).
 */
#ifndef BENCH_UNITS_H
#define BENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "4096", "4k", "1G", "1.5M": 0 and *out, or -1. */
int parse_size(const char *str, uint64_t *out);
/* A whole number in [min, max]: 0 or -1. */
int parse_uint(const char *str, unsigned min, unsigned max, unsigned *out);
/* "1024" -> "1KiB", "4096" -> "4KiB", "1000" -> "1000B" */
const char *fmt_size(uint64_t bytes, char *buf, size_t len);
/* t/io_uring's: 786.20K, 21.30M, 950 */
const char *fmt_count(double n, char *buf, size_t len);

#endif
