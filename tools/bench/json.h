/* SPDX-License-Identifier: MIT */
/*
 * json.h - --json: one object per run, {"runs":[...]} for a sweep.
 * Keys (in this order): engine, policy, target, rw, bs, depth, threads,
 * runtime_s, ios, iops, bw_bytes, cpu {usr, sys}, ctx_switches, wakeups,
 * lat_ns {mean, p1 ... p99.99, max}. Values not measured are null
 * (wakeups on engines without counters, lat_ns without -t).
 */
#ifndef BENCH_JSON_H
#define BENCH_JSON_H

#include <stdio.h>
#include "job.h"

void json_result(FILE *f, const struct job_result *r);
void json_runs(FILE *f, const struct job_result *r, unsigned n);
/* s as a JSON string, quotes included; NULL as null */
void json_string(FILE *f, const char *s);

#endif
