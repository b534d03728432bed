/* SPDX-License-Identifier: MIT */
/*
 * exp_complete.h - the completion modes seeds 001 and 002 compare, as
 * user-engine rings on an irq simdev (docs/policies.md, complete=):
 *   deferred  finished requests queue on the ring's task list and the
 *             waiting task posts them in batches (DEFER_TASKRUN ring);
 *   inline    the device thread posts each CQE itself as it completes;
 *   punt      a per-ring completion thread posts them (a workqueue);
 *   single    as deferred, but each completion is posted on its own, under
 *             its own lock and with its own wakeup (kernels before seed 001).
 * One row per mode and queue depth, -s QD -c 1 (each call refills the
 * queue to the depth and waits for one completion, so QD I/Os stay in
 * flight as with fio's iodepth), latency tracked.
 */
#ifndef BENCH_EXP_COMPLETE_H
#define BENCH_EXP_COMPLETE_H

#include "exp_common.h"

enum { CMODE_DEFERRED, CMODE_INLINE, CMODE_PUNT, CMODE_SINGLE, NCMODES };

extern const char *const exp_cmode_names[NCMODES];

/* A row for mode at depth on sim:o->sim, waiting with o->wait. */
void exp_complete_row(struct exp_row *r, const struct exp_opts *o,
		      unsigned mode, unsigned depth);
/* "complete=deferred,wait=sleep ring flags coop,single,defer" etc. */
const char *exp_complete_setup(const struct exp_opts *o, char *buf,
			       size_t len);
/* Requests per deferred-completion batch (tw_items / tw_batches). */
double exp_tw_batch(const struct exp_row *r);

/* what sets one completion-mode experiment apart from the other */
struct exp_complete_kind {
	const struct exp_def *def;
	void (*table)(FILE *f, const struct exp_report *rep);
	void (*judge)(struct exp_report *rep);
	void (*chart)(struct exp_chart *c, const struct exp_report *rep);
	const char *notes;
	/* the modes it runs: the first nmodes of the enum (0: all) */
	unsigned nmodes;
};

/* The experiment: one row per depth and mode, run, judged and reported. */
int exp_complete_main(int argc, char **argv, const struct exp_complete_kind *k);

#endif
