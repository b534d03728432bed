/* SPDX-License-Identifier: MIT */
/*
 * experiment.h - `anyring-bench experiment NAME [ARGS]`: the seed patches'
 * experiments (docs/policies.md cites each), one table entry each. An experiment runs
 * jobs through job_run() (job.h): it builds a struct job_spec (start from
 * job_spec_defaults()), runs it, reads struct job_result, and may print
 * its own table, JSON (json.h) and plots. A submitter with a separate
 * waiting thread is spec.split_reap (-s 1 -c 128 -d 512 is seed 003's
 * setup).
 */
#ifndef BENCH_EXPERIMENT_H
#define BENCH_EXPERIMENT_H

#include <stdio.h>

struct experiment {
	const char *name;
	const char *what;	/* one line: the seed and what it shows */
	/* argv[0] is the experiment's name; returns the exit status */
	int (*run)(int argc, char **argv);
};

/* argv[0] is "experiment". Returns the exit status. */
int experiment_main(int argc, char **argv);
void experiment_list(FILE *f);

#endif
