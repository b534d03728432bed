/* SPDX-License-Identifier: MIT */
/*
 * target.h - what the I/O goes to: a regular file (created and filled with
 * data when missing or short, given --size), a block device, or a simdev
 * ("sim:SPEC", served by the user engine). --alloc makes a new file for
 * the run and removes it after; --cold evicts the file's pages first.
 */
#ifndef BENCH_TARGET_H
#define BENCH_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "job.h"

enum target_kind { TARGET_NONE, TARGET_FILE, TARGET_BLOCK, TARGET_SIM };

#define SIM_PREFIX	"sim:"

struct target {
	enum target_kind kind;
	const char *path;	/* the file or device; the simdev spec */
	uint64_t size;		/* bytes the I/O is spread over */
	int sim_fd;		/* one simdev, shared by the threads */
	bool created;		/* --alloc: made for this run, removed after */
};

/* Is this target string a simdev? */
int target_is_sim(const char *str);

/* Create/fill/measure the target once per job: 0, or -1 and why. */
int target_prepare(const struct job_spec *s, struct target *t, char *why,
		   size_t len);
/* An fd for one worker, or -errno and why. */
int target_open(const struct target *t, const struct job_spec *s, char *why,
		size_t len);
void target_close(const struct target *t, int fd);
/* The share of the target's bytes in the page cache (mincore), in %; -1
 * when it cannot be told. */
double target_cached_pct(const struct target *t);
void target_release(struct target *t);

#endif
