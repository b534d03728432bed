/* SPDX-License-Identifier: MIT */
/*
 * exp_complete.c - rows for the completion-mode experiments (taskwork,
 * inline-completion): the user engine on an irq simdev, one policy per
 * mode.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "exp_complete.h"
#include "exp_plot.h"

const char *const exp_cmode_names[NCMODES] = {
	[CMODE_DEFERRED] = "deferred",
	[CMODE_INLINE] = "inline",
	[CMODE_PUNT] = "punt",
	[CMODE_SINGLE] = "single",
};

/* deferred and single need the task that waits to post: DEFER_TASKRUN */
static unsigned mode_ring_flags(unsigned mode)
{
	return mode == CMODE_DEFERRED || mode == CMODE_SINGLE ?
	       RINGF_TIO : RINGF_COOP | RINGF_SINGLE;
}

void exp_complete_row(struct exp_row *r, const struct exp_opts *o,
		      unsigned mode, unsigned depth)
{
	char label[64];

	snprintf(label, sizeof(label), "%s QD%u", exp_cmode_names[mode], depth);
	exp_row_init(r, o, label);
	r->spec.engine = "user";
	r->spec.depth = depth;
	/* as fio's iodepth: every call refills the queue, waits for one */
	r->spec.batch_submit = depth;
	r->spec.batch_complete = 1;
	r->spec.track_lat = true;
	r->spec.ring_flags = mode_ring_flags(mode);
	if (strcmp(o->wait, "default"))
		exp_row_policy(r, "complete=%s,wait=%s", exp_cmode_names[mode],
			       o->wait);
	else
		exp_row_policy(r, "complete=%s", exp_cmode_names[mode]);
	exp_row_target(r, "sim:%s", o->sim);
}

const char *exp_complete_setup(const struct exp_opts *o, char *buf,
			       size_t len)
{
	snprintf(buf, len, "user engine, sim:%s, -d QD -s QD -c 1 (the queue "
		 "refilled to QD on every call, as fio's iodepth), 4 KiB randread, "
		 "latency tracked (-t 1); --policy=complete=MODE%s%s; "
		 "deferred and single on a COOP|SINGLE_ISSUER|DEFER_TASKRUN "
		 "ring, inline and punt on COOP|SINGLE_ISSUER", o->sim,
		 strcmp(o->wait, "default") ? ",wait=" : " (default wait)",
		 strcmp(o->wait, "default") ? o->wait : "");
	return buf;
}

double exp_tw_batch(const struct exp_row *r)
{
	if (!r->med || !r->med->has_stats || !r->med->stats.tw_batches)
		return NAN;
	return (double)r->med->stats.tw_items /
	       (double)r->med->stats.tw_batches;
}

int exp_complete_main(int argc, char **argv, const struct exp_complete_kind *k)
{
	struct exp_row *rows;
	struct exp_opts o;
	struct exp_chart c;
	struct exp_report rep;
	char setup[600];
	unsigned d, m, n, nm = k->nmodes ? k->nmodes : NCMODES;
	int ret = exp_parse(argc, argv, k->def, &o);

	if (ret)
		return ret == 1 ? 0 : 2;
	n = o.ndepths * nm;
	rows = calloc(n, sizeof(*rows));
	if (!rows)
		return 1;
	for (d = 0; d < o.ndepths; d++)
		for (m = 0; m < nm; m++)
			exp_complete_row(&rows[d * nm + m], &o, m,
					 o.depths[d]);
	exp_complete_setup(&o, setup, sizeof(setup));
	exp_report_run(&rep, &o, rows, n, setup, k->table);
	k->judge(&rep);
	k->chart(&c, &rep);
	rep.chart = &c;
	rep.notes = k->notes;
	ret = exp_report_done(&rep);
	free(rows);
	return ret;
}
