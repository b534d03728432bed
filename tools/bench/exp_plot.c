/* SPDX-License-Identifier: MIT */
/*
 * exp_plot.c - an experiment's chart through gnuplot. The data goes to a
 * temporary file, one line per x value: its name (quoted), its value,
 * then every panel's series in order ("-" for none); the script is piped
 * to gnuplot.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "exp_plot.h"

/* names go inside double quotes: no quotes or backslashes in them */
static void clean_copy(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i] == '"' || src[i] == '\\' ? '\'' : src[i];
	dst[i] = 0;
}

void exp_chart_init(struct exp_chart *c, const char *title,
		    const char *xlabel, bool lines)
{
	unsigned p, x, s;

	memset(c, 0, sizeof(*c));
	clean_copy(c->title, sizeof(c->title), title);
	c->xlabel = xlabel;
	c->lines = lines;
	for (p = 0; p < EXP_CHART_MAX_PANELS; p++)
		for (x = 0; x < EXP_CHART_MAX_X; x++)
			for (s = 0; s < EXP_CHART_MAX_SERIES; s++)
				c->panel[p].v[x][s] = NAN;
}

int exp_chart_x(struct exp_chart *c, const char *name, double val)
{
	if (c->nx == EXP_CHART_MAX_X)
		return -1;
	clean_copy(c->xname[c->nx], EXP_CHART_NAME, name);
	c->xval[c->nx] = val;
	return (int)c->nx++;
}

struct exp_panel *exp_chart_panel(struct exp_chart *c, const char *ylabel,
				  bool si)
{
	struct exp_panel *p;

	if (c->npanels == EXP_CHART_MAX_PANELS)
		return NULL;
	p = &c->panel[c->npanels++];
	p->ylabel = ylabel;
	p->si = si;
	return p;
}

int exp_panel_series(struct exp_panel *p, const char *name)
{
	if (p->ns == EXP_CHART_MAX_SERIES)
		return -1;
	clean_copy(p->sname[p->ns], EXP_CHART_NAME, name);
	return (int)p->ns++;
}

bool exp_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char dir[4096], exe[4200];
	const char *p, *end;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		size_t n;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (!n || n >= sizeof(dir))
			continue;
		memcpy(dir, p, n);
		dir[n] = 0;
		snprintf(exe, sizeof(exe), "%s/gnuplot", dir);
		if (!access(exe, X_OK))
			return true;
	}
	return false;
}

static void write_data(FILE *f, const struct exp_chart *c)
{
	unsigned x, p, s;

	for (x = 0; x < c->nx; x++) {
		fprintf(f, "\"%s\" %.6g", c->xname[x], c->xval[x]);
		for (p = 0; p < c->npanels; p++)
			for (s = 0; s < c->panel[p].ns; s++) {
				double v = c->panel[p].v[x][s];

				if (isfinite(v))
					fprintf(f, " %.6g", v);
				else
					fputs(" -", f);
			}
		fputc('\n', f);
	}
}

static bool long_names(const struct exp_chart *c)
{
	unsigned x;

	for (x = 0; x < c->nx; x++)
		if (strlen(c->xname[x]) > 9)
			return true;
	return false;
}

static void panel_style(FILE *g, const struct exp_chart *c,
			const struct exp_panel *p)
{
	fprintf(g, "set ylabel \"%s\"\n", p->ylabel);
	fputs(p->si ? "set format y '%.1s%c'\n" : "set format y '%g'\n", g);
	if (c->lines && p->logy)
		fputs("set logscale y\nset yrange [*:*]\n", g);
	else
		fputs("unset logscale y\nset yrange [0:*]\n", g);
}

/* first data column of panel p */
static unsigned panel_col(const struct exp_chart *c, unsigned p)
{
	unsigned col = 3, i;

	for (i = 0; i < p; i++)
		col += c->panel[i].ns;
	return col;
}

static void plot_panel(FILE *g, const struct exp_chart *c, unsigned p,
		       const char *data)
{
	const struct exp_panel *pn = &c->panel[p];
	unsigned col = panel_col(c, p), s;

	panel_style(g, c, pn);
	fputs("plot ", g);
	for (s = 0; s < pn->ns; s++) {
		if (c->lines)
			fprintf(g, "%s'%s' using 2:%u with linespoints lw 2 "
				"pt 7 title \"%s\"", s ? ", " : "", data,
				col + s, pn->sname[s]);
		else
			fprintf(g, "%s'%s' using %u:xtic(1) title \"%s\"",
				s ? ", " : "", data, col + s, pn->sname[s]);
	}
	fputc('\n', g);
}

static void write_script(FILE *g, const struct exp_chart *c,
			 const char *path, const char *data)
{
	const char *dot = strrchr(path, '.');
	unsigned width = c->npanels > 1 ? 1100u : 640u, p;

	if (dot && !strcmp(dot, ".png"))
		fprintf(g, "set terminal pngcairo size %u,460 noenhanced "
			"font 'sans,10'\n", width);
	else
		fprintf(g, "set terminal svg size %u,460 dynamic noenhanced "
			"font 'sans,11'\n", width);
	fprintf(g, "set output '%s'\n", path);
	fprintf(g, "set multiplot layout 1,%u title \"%s\"\n", c->npanels,
		c->title);
	fprintf(g, "set datafile missing '-'\nset grid ytics\n"
		"set xlabel \"%s\"\n", c->xlabel);
	if (c->lines) {
		fputs("set key top left\nset logscale x 2\nset grid xtics\n", g);
	} else {
		fputs("set key outside top center horizontal\n"
		      "set style data histograms\n"
		      "set style histogram clustered gap 1\n"
		      "set style fill solid 0.8 border -1\n", g);
		if (long_names(c))
			fputs("set xtics rotate by 20 right\n", g);
	}
	for (p = 0; p < c->npanels; p++)
		plot_panel(g, c, p, data);
	fputs("unset multiplot\n", g);
}

static int run_gnuplot(const struct exp_chart *c, const char *path,
		       const char *data)
{
	FILE *g = popen("gnuplot", "w");
	int status;

	if (!g) {
		fprintf(stderr, "anyring-bench: gnuplot: %s\n", strerror(errno));
		return -1;
	}
	write_script(g, c, path, data);
	status = pclose(g);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "anyring-bench: gnuplot failed on %s\n", path);
		return -1;
	}
	return 0;
}

int exp_chart_write(const struct exp_chart *c, const char *path)
{
	char data[] = "/tmp/anyring-bench-exp.XXXXXX";
	int fd = mkstemp(data), ret = -1;
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "anyring-bench: chart data: %s\n",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	write_data(f, c);
	if (!fclose(f))
		ret = run_gnuplot(c, path, data);
	unlink(data);
	return ret;
}
