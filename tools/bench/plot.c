/* SPDX-License-Identifier: MIT */
/*
 * plot.c - gnuplot output of a sweep. The data goes to a temporary file,
 * one block per series (gnuplot's "index"); the script is piped to
 * gnuplot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "hist.h"
#include "plot.h"

static const char *terminal(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcmp(dot, ".svg"))
		return "svg size 1100,460 dynamic noenhanced font 'sans,11'";
	if (dot && !strcmp(dot, ".png"))
		return "pngcairo size 1100,460 noenhanced font 'sans,10'";
	return NULL;
}

static const struct sweep_axis *x_axis(const struct sweep *sw)
{
	const struct sweep_axis *a = sweep_find(sw, SWEEP_DEPTH);

	return a ? a : sweep_find(sw, SWEEP_BS);
}

int plot_check(const char *path, const struct sweep *sw, char *why,
	       size_t len)
{
	if (!terminal(path)) {
		snprintf(why, len, "--plot %s: the name must end in .svg or .png",
			 path);
		return -1;
	}
	if (!x_axis(sw)) {
		snprintf(why, len, "--plot needs --sweep depth=... or bs=...");
		return -1;
	}
	return 0;
}

/* The series a result belongs to: its values of the non-x axes. */
static void series_name(const struct sweep *sw, const struct sweep_axis *x,
			const struct job_result *r, char *buf, size_t len)
{
	char v[64];
	size_t used = 0;
	unsigned k;

	buf[0] = 0;
	for (k = 0; k < sw->naxes; k++) {
		if (&sw->axis[k] == x)
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
			"%s%s", used ? " " : "",
			sweep_value(r, sw->axis[k].key, v, sizeof(v)));
	}
	if (!buf[0])
		snprintf(buf, len, "%s", r->spec.engine);
}

/* How many runs apart two neighbouring x values of a series are. */
static unsigned x_stride(const struct sweep *sw, const struct sweep_axis *x)
{
	unsigned stride = 1, k;

	for (k = sw->naxes; k-- > 0 && &sw->axis[k] != x;)
		stride *= sw->axis[k].n;
	return stride;
}

/*
 * One block per series: "x iops mean_us p99_us". Run i's x index is
 * (i / stride) % x->n; a series is every run with the same other values.
 */
static unsigned write_data(FILE *f, const struct sweep *sw,
			   const struct sweep_axis *x,
			   const struct job_result *r, unsigned n,
			   char names[][128])
{
	unsigned stride = x_stride(sw, x);
	unsigned nseries = 0, i, j;
	static const double p99 = 99;

	for (i = 0; i < n; i++) {
		if ((i / stride) % x->n)
			continue;	/* not the first x of its series */
		series_name(sw, x, &r[i], names[nseries], 128);
		fprintf(f, "# %s\n", names[nseries]);
		for (j = 0; j < x->n && i + j * stride < n; j++) {
			const struct job_result *q = &r[i + j * stride];
			uint64_t p;

			hist_percentiles(&q->lat, &p99, 1, &p);
			fprintf(f, "%llu %.1f %.3f %.3f\n",
				(unsigned long long)x->num[j], q->iops,
				hist_mean(&q->lat) / 1000.0, (double)p / 1000.0);
		}
		fputs("\n\n", f);
		nseries++;
	}
	return nseries;
}

static void write_script(FILE *g, const char *path, const char *data,
			 const struct sweep_axis *x, char names[][128],
			 unsigned nseries, bool lat, const char *title)
{
	const char *xl = x->key == SWEEP_DEPTH ? "queue depth" : "block size (bytes)";
	unsigned i;

	fprintf(g, "set terminal %s\nset output '%s'\n", terminal(path), path);
	fprintf(g, "set multiplot layout 1,%d title \"%s\"\n", lat ? 2 : 1, title);
	fprintf(g, "set logscale x 2\nset grid\nset key top left\n");
	fprintf(g, "set xlabel '%s'\nset ylabel 'IOPS'\nset yrange [0:*]\nset format y '%%.2s%%c'\n", xl);
	fputs("plot ", g);
	for (i = 0; i < nseries; i++)
		fprintf(g, "%s'%s' index %u using 1:2 with linespoints lw 2 "
			"title \"%s\"", i ? ", " : "", data, i, names[i]);
	fputc('\n', g);
	if (lat) {
		fputs("set logscale y\nset format y '%g'\n"
		      "set ylabel 'completion latency (us)'\n"
		      "set title 'mean (solid), p99 (dashed)'\nplot ", g);
		for (i = 0; i < nseries; i++)
			fprintf(g, "%s'%s' index %u using 1:3 with linespoints "
				"lw 2 lc %u title \"%s mean\", '%s' index %u "
				"using 1:4 with linespoints dt 2 lc %u "
				"title \"%s p99\"", i ? ", " : "", data, i,
				i + 1, names[i], data, i, i + 1, names[i]);
		fputc('\n', g);
	}
	fputs("unset multiplot\n", g);
}

static int run_gnuplot(const char *path, const char *data,
		       const struct sweep_axis *x, char names[][128],
		       unsigned nseries, bool lat, const char *title)
{
	FILE *g = popen("gnuplot", "w");
	int status;

	if (!g) {
		fprintf(stderr, "anyring-bench: --plot: gnuplot: %s\n",
			strerror(errno));
		return -1;
	}
	write_script(g, path, data, x, names, nseries, lat, title);
	status = pclose(g);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "anyring-bench: --plot: gnuplot failed%s\n",
			WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			" (not installed? scripts/setup.sh bench installs "
			"gnuplot-nox)" : "");
		return -1;
	}
	return 0;
}

int plot_write(const char *path, const struct sweep *sw,
	       const struct job_result *r, unsigned n, const char *title)
{
	const struct sweep_axis *x = x_axis(sw);
	char data[] = "/tmp/anyring-bench-plot.XXXXXX";
	char (*names)[128] = calloc(n, sizeof(*names));
	unsigned nseries;
	FILE *f;
	int fd, ret = -1;

	fd = mkstemp(data);
	if (!names || fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "anyring-bench: --plot: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		free(names);
		return -1;
	}
	nseries = write_data(f, sw, x, r, n, names);
	if (!fclose(f))
		ret = run_gnuplot(path, data, x, names, nseries,
				  r[0].spec.track_lat, title);
	unlink(data);
	free(names);
	return ret;
}
