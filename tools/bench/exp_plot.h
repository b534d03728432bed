/* SPDX-License-Identifier: MIT */
/*
 * exp_plot.h - an experiment's chart, drawn by gnuplot into an SVG: one
 * or two panels side by side, each a set of series over the same x values;
 * numeric x (queue depth) as lines on a log2 axis, named x (a policy, an
 * I/O pattern) as clustered bars. Without gnuplot the chart is skipped
 * with a message, never an error.
 */
#ifndef BENCH_EXP_PLOT_H
#define BENCH_EXP_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#define EXP_CHART_MAX_X		16
#define EXP_CHART_MAX_SERIES	6
#define EXP_CHART_MAX_PANELS	2
#define EXP_CHART_NAME		48

struct exp_panel {
	const char *ylabel;
	bool si;		/* y ticks as 1.2M */
	bool logy;		/* lines only */
	unsigned ns;
	char sname[EXP_CHART_MAX_SERIES][EXP_CHART_NAME];
	double v[EXP_CHART_MAX_X][EXP_CHART_MAX_SERIES];	/* NAN: none */
};

struct exp_chart {
	char title[200];
	const char *xlabel;
	bool lines;
	unsigned nx, npanels;
	char xname[EXP_CHART_MAX_X][EXP_CHART_NAME];
	double xval[EXP_CHART_MAX_X];
	struct exp_panel panel[EXP_CHART_MAX_PANELS];
};

void exp_chart_init(struct exp_chart *c, const char *title,
		    const char *xlabel, bool lines);
/* A new x value (its index), or -1 when full. */
int exp_chart_x(struct exp_chart *c, const char *name, double val);
/* A new panel, or NULL when full. */
struct exp_panel *exp_chart_panel(struct exp_chart *c, const char *ylabel,
				  bool si);
/* A new series of a panel (its index), or -1 when full. */
int exp_panel_series(struct exp_panel *p, const char *name);

/* Is gnuplot on PATH? */
bool exp_have_gnuplot(void);
/* Draw c into path (.svg, or .png): 0, or -1 after saying why on stderr. */
int exp_chart_write(const struct exp_chart *c, const char *path);

#endif
