/* SPDX-License-Identifier: MIT */
/*
 * experiment.c - the experiment table: `anyring-bench experiment NAME`
 * runs NAME's function (exp_NAME.c; what they share is exp_common.h).
 */
#include <stdio.h>
#include <string.h>
#include "exp_common.h"
#include "experiment.h"

static const struct experiment experiments[] = {
	{ "iowait", "seed 000: QD1 latency with the CQ wait counted as iowait or not",
	  exp_iowait },
	{ "taskwork", "seed 001: completion task_work batching vs per-request",
	  exp_taskwork },
	{ "inline-completion", "seed 002: inline vs deferred vs punted completion",
	  exp_inline_completion },
	{ "wait-threshold", "seed 003: a waiter for 128 events, woken per CQE or at the threshold",
	  exp_wait_threshold },
	{ "hybrid-poll", "seed 004: IRQ vs polled vs hybrid polled completion",
	  exp_hybrid_poll },
};

#define NR_EXPERIMENTS (sizeof(experiments) / sizeof(experiments[0]))

void experiment_list(FILE *f)
{
	unsigned i;

	for (i = 0; i < NR_EXPERIMENTS; i++)
		fprintf(f, "  %-18s %s\n", experiments[i].name,
			experiments[i].what);
}

int experiment_main(int argc, char **argv)
{
	unsigned i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: anyring-bench experiment NAME [ARGS]\n");
		experiment_list(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < NR_EXPERIMENTS; i++)
		if (!strcmp(argv[1], experiments[i].name))
			return experiments[i].run(argc - 1, argv + 1);
	fprintf(stderr, "anyring-bench: experiment %s: unknown; experiments:\n",
		argv[1]);
	experiment_list(stderr);
	return 2;
}
