/* SPDX-License-Identifier: MIT */
/*
 * sweep.h - --sweep KEY=V1,V2,...: run a job for every value, and with
 * several --sweep for every combination (cartesian; the last axis varies
 * fastest). Keys: depth, engine, policy, bs. "1,2,4,...,256" continues the
 * ratio of the two values before "...".
 */
#ifndef BENCH_SWEEP_H
#define BENCH_SWEEP_H

#include <stdbool.h>
#include <stdio.h>
#include "job.h"

#define SWEEP_MAX_AXES		4
#define SWEEP_MAX_VALUES	64

enum sweep_key { SWEEP_DEPTH, SWEEP_ENGINE, SWEEP_POLICY, SWEEP_BS };

struct sweep_axis {
	enum sweep_key key;
	unsigned n;
	char *str[SWEEP_MAX_VALUES];	/* as given (engine, policy) */
	uint64_t num[SWEEP_MAX_VALUES];	/* depth, bs */
};

struct sweep {
	unsigned naxes;
	struct sweep_axis axis[SWEEP_MAX_AXES];
};

/* Parse one --sweep argument: 0, or -1 and why. */
int sweep_add(struct sweep *sw, const char *arg, char *why, size_t len);
void sweep_free(struct sweep *sw);
const char *sweep_key_name(enum sweep_key key);
/* The axis for key, or NULL when it is not swept. */
const struct sweep_axis *sweep_find(const struct sweep *sw, enum sweep_key key);
/* How many runs. */
unsigned sweep_count(const struct sweep *sw);
/* Run idx's spec: base with its values. */
void sweep_apply(const struct sweep *sw, unsigned idx, struct job_spec *s);
/* The value of key in a result, as the table prints it. */
const char *sweep_value(const struct job_result *r, enum sweep_key key,
			char *buf, size_t len);

/*
 * Run every combination, progress on stderr. *res (malloc'ed) holds the
 * results; returns how many ran, or -1 (a run failed: it said why).
 */
int sweep_run(const struct sweep *sw, const struct job_spec *base,
	      struct job_result **res);
/* The table: one row per run, the swept keys first. */
void sweep_table(FILE *f, const struct sweep *sw, const struct job_result *r,
		 unsigned n);

#endif
