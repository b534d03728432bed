/* SPDX-License-Identifier: MIT */
/*
 * options.h - anyring-bench's command line: t/io_uring's short flags
 * (each takes a value: -d 32, -p 1), long options for what t/io_uring
 * does not have, and one positional target.
 */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>
#include "job.h"
#include "sweep.h"

struct bench_opts {
	struct job_spec spec;
	bool json;		/* --json */
	bool hist;		/* --hist */
	const char *plot;	/* --plot FILE.svg|png */
	bool track_given;	/* -t was on the command line */
	struct sweep sweep;	/* --sweep KEY=V1,V2,... (several) */
};

/* 0: run; 1: --help was printed; 2: a usage error was printed. */
int options_parse(int argc, char **argv, struct bench_opts *o);
void options_usage(FILE *f);

#endif
