/* SPDX-License-Identifier: MIT */
/*
 * exp_iowait.c - seed 000, "io_uring: Use io_schedule* in cqring wait":
 * at QD1, io_uring waited in plain schedule() and lost 20-40% against
 * synchronous I/O (whose sleep is an I/O wait, which cpuidle and cpufreq
 * take into account); the patch made the CQ wait an iowait. Here: O_DIRECT
 * 4 KiB random reads at QD1 from a file on the machine's disk, sync
 * (preadv2) against the kernel engine with iowait=on and iowait=off
 * (IORING_ENTER_NO_IOWAIT, kernels with IORING_FEAT_NO_IOWAIT), and the
 * user engine's wait policies (its sleeps are never iowait).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "exp_common.h"
#include "exp_plot.h"

#define FEAT_NO_IOWAIT	(1U << 17)	/* IORING_FEAT_NO_IOWAIT, 6.15 */
#define TMPFS_MAGIC	0x01021994
#define NEW_FILE_SIZE	(256ull << 20)

enum {
	ROW_SYNC, ROW_K_ON, ROW_K_OFF, ROW_U_SLEEP, ROW_U_SPIN, ROW_U_HYBRID,
	ROW_U_ADAPTIVE, NROWS
};

static const struct exp_def def = {
	.name = "iowait",
	.seed_file = "000_ddb8f82cfe6b385e.txt",
	.seed_source = "Andres Freund, mainline commit 8a796565cec3 (2023), in stable from 5.10",
	.seed_title = "io_uring: Use io_schedule* in cqring wait (2023, "
		      "stable 5.10+)",
	.seed_result = "t/io_uring -d 1 -s 1 -c 1: io_uring 20-40% slower "
		       "than sync I/O at QD1 before (plain schedule()), on par "
		       "or faster after (the wait is an iowait); cascade lake "
		       "workstation",
	.runtime_s = 2,
	.reps = 3,
	.knobs = EXP_KNOB_FILE,
	.knob_help =
"  --file=PATH         the file to read (O_DIRECT, on a disk); default\n"
"                      the one make bench made (build/bench/randread-1g or\n"
"                      /var/tmp/anyring-bench/randread-1g), else a 256 MiB\n"
"                      /var/tmp/anyring-bench/iowait-256m is made\n"
"\n"
"Rows: sync (preadv2), kernel --policy=iowait=on and iowait=off, user\n"
"--policy=wait=sleep, spin, hybrid, adaptive; -O 1 -d 1 -s 1 -c 1, 4 KiB\n"
"random reads.\n",
};

static const struct {
	const char *label, *engine, *policy;
} row_defs[NROWS] = {
	[ROW_SYNC] = { "sync (preadv2)", "sync", NULL },
	[ROW_K_ON] = { "kernel iowait=on", "kernel", "iowait=on" },
	[ROW_K_OFF] = { "kernel iowait=off", "kernel", "iowait=off" },
	[ROW_U_SLEEP] = { "user wait=sleep", "user", "wait=sleep" },
	[ROW_U_SPIN] = { "user wait=spin", "user", "wait=spin" },
	[ROW_U_HYBRID] = { "user wait=hybrid", "user", "wait=hybrid" },
	[ROW_U_ADAPTIVE] = { "user wait=adaptive", "user", "wait=adaptive" },
};

static const char *const known_files[] = {
	"build/bench/randread-1g",
	"/var/tmp/anyring-bench/randread-1g",
};

static bool on_tmpfs(const char *dir)
{
	struct statfs sf;

	return !statfs(dir, &sf) && sf.f_type == TMPFS_MAGIC;
}

/* The file to read; *size is set when it must be made. NULL: none. */
static const char *pick_file(const struct exp_opts *o, uint64_t *size)
{
	static const char made[] = "/var/tmp/anyring-bench/iowait-256m";
	struct stat st;
	unsigned i;

	*size = 0;
	if (o->file)
		return o->file;
	for (i = 0; i < sizeof(known_files) / sizeof(known_files[0]); i++)
		if (!stat(known_files[i], &st) && S_ISREG(st.st_mode) &&
		    st.st_size >= (off_t)NEW_FILE_SIZE)
			return known_files[i];
	mkdir("/var/tmp/anyring-bench", 0755);
	if (on_tmpfs("/var/tmp/anyring-bench"))
		return NULL;
	if (stat(made, &st) || st.st_size < (off_t)NEW_FILE_SIZE)
		*size = NEW_FILE_SIZE;
	return made;
}

/* kernel rows need io_uring, iowait=off needs IORING_FEAT_NO_IOWAIT */
static void skip_kernel_rows(struct exp_row *rows)
{
	unsigned features = 0;
	char why[160];

	if (exp_kernel_ring_check(&features, why, sizeof(why))) {
		exp_row_skip(&rows[ROW_K_ON], "%s", why);
		exp_row_skip(&rows[ROW_K_OFF], "%s", why);
	} else if (!(features & FEAT_NO_IOWAIT)) {
		exp_row_skip(&rows[ROW_K_OFF], "this kernel lacks "
			     "IORING_FEAT_NO_IOWAIT (Linux 6.15 and later)");
	}
}

static void build_rows(const struct exp_opts *o, struct exp_row *rows,
		       const char *file, uint64_t size)
{
	unsigned i;

	for (i = 0; i < NROWS; i++) {
		struct exp_row *r = &rows[i];

		exp_row_init(r, o, row_defs[i].label);
		r->spec.engine = row_defs[i].engine;
		r->spec.depth = 1;
		r->spec.batch_submit = 1;
		r->spec.batch_complete = 1;
		r->spec.direct = true;
		r->spec.track_lat = true;
		r->spec.size = size;
		if (row_defs[i].policy)
			exp_row_policy(r, "%s", row_defs[i].policy);
		exp_row_target(r, "%s", file);
	}
	skip_kernel_rows(rows);
}

static void table(FILE *f, const struct exp_report *rep)
{
	double sync = exp_iops(&rep->rows[ROW_SYNC]);
	char buf[32];
	unsigned i;

	fprintf(f, "%-20s %9s %8s %8s %8s %6s %10s\n", "QD1 O_DIRECT 4k",
		"IOPS", "vs sync", "p50 us", "p99 us", "CPU%", "wakeups/IO");
	for (i = 0; i < rep->n; i++) {
		const struct exp_row *r = &rep->rows[i];
		double rel = exp_iops(r) / sync - 1;

		fprintf(f, "%-20s %9s", r->label,
			exp_fmt_iops(exp_iops(r), buf, sizeof(buf)));
		if (i != ROW_SYNC && isfinite(rel))
			fprintf(f, " %+7.0f%%", rel * 100);
		else
			fprintf(f, " %8s", "");
		exp_put(f, 8, exp_lat_us(r, 50));
		exp_put(f, 8, exp_lat_us(r, 99));
		exp_put_prec(f, 6, 0, exp_cpu(r));
		exp_put_prec(f, 10, 3, EXP_PER_IO(r, wakeups));
		fputc('\n', f);
	}
	fputs("\nseed 000: io_uring at QD1 20-40% below sync with a plain "
	      "sleep (iowait=off), on par or above with the iowait sleep "
	      "(iowait=on)\n", f);
}

#define MIN_IOWAIT_GAIN	1.10	/* the seed's regression: 20-40% */
#define MIN_SYNC_SHARE	0.90	/* "on par" with sync */

static void judge(struct exp_report *rep)
{
	const struct exp_row *on = &rep->rows[ROW_K_ON];
	const struct exp_row *off = &rep->rows[ROW_K_OFF];
	const struct exp_row *sync = &rep->rows[ROW_SYNC];
	double gain = exp_iops(on) / exp_iops(off);
	double par = exp_iops(on) / exp_iops(sync);

	snprintf(rep->criterion, sizeof(rep->criterion),
		 "kernel engine iowait=on IOPS >= %.2f x iowait=off IOPS (the "
		 "seed's regression without iowait: 20-40%%) and iowait=on >= "
		 "%.2f x sync (on par after the patch)", MIN_IOWAIT_GAIN,
		 MIN_SYNC_SHARE);
	snprintf(rep->measured, sizeof(rep->measured),
		 "iowait=on %.0f, iowait=off %.0f, sync %.0f IOPS: on/off "
		 "x%.2f, on/sync x%.2f", exp_iops(on), exp_iops(off),
		 exp_iops(sync), gain, par);
	if (!isfinite(gain) || !isfinite(par))
		rep->verdict = EXP_UNDECIDED;
	else
		rep->verdict = gain >= MIN_IOWAIT_GAIN && par >= MIN_SYNC_SHARE ?
			       EXP_REPRODUCED : EXP_NOT_REPRODUCED;
}

static void chart(struct exp_chart *c, const struct exp_row *rows)
{
	struct exp_panel *iops, *lat;
	unsigned i;

	exp_chart_init(c, "iowait (seed 000): QD1 O_DIRECT 4 KiB random reads",
		       "engine and wait", false);
	iops = exp_chart_panel(c, "IOPS", true);
	lat = exp_chart_panel(c, "completion latency (us)", false);
	exp_panel_series(iops, "IOPS");
	exp_panel_series(lat, "p50");
	exp_panel_series(lat, "p99");
	for (i = 0; i < NROWS; i++) {
		int x = exp_chart_x(c, rows[i].label, i);

		iops->v[x][0] = exp_iops(&rows[i]);
		lat->v[x][0] = exp_lat_us(&rows[i], 50);
		lat->v[x][1] = exp_lat_us(&rows[i], 99);
	}
}

static void read_sys(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "none");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* what decides whether iowait can matter on this machine */
static void machine_notes(char *buf, size_t len)
{
	char drv[64], gov[64], freq[64];

	read_sys("/sys/devices/system/cpu/cpuidle/current_driver", drv,
		 sizeof(drv));
	read_sys("/sys/devices/system/cpu/cpuidle/current_governor", gov,
		 sizeof(gov));
	if (!strcmp(gov, "none"))
		read_sys("/sys/devices/system/cpu/cpuidle/current_governor_ro",
			 gov, sizeof(gov));
	read_sys("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		 freq, sizeof(freq));
	snprintf(buf, len, "iowait reaches the CPU through cpufreq (the "
		 "iowait boost of schedutil and intel_pstate) and cpuidle "
		 "governors; here cpuidle driver %s, governor %s, cpufreq "
		 "governor %s. On a VM the host decides frequency and idle "
		 "states, so the seed's effect may not show. The seed ran "
		 "t/io_uring -R 0 (sequential); this reads at random offsets. "
		 "User-engine sleeps are never iowait (its O_DIRECT goes "
		 "through native AIO). CPU is the whole process",
		 drv, gov, freq);
}

int exp_iowait(int argc, char **argv)
{
	struct exp_row rows[NROWS];
	struct exp_opts o;
	struct exp_chart c;
	struct exp_report rep;
	char setup[700], notes[700];
	const char *file;
	uint64_t size;
	int ret = exp_parse(argc, argv, &def, &o);

	if (ret)
		return ret == 1 ? 0 : 2;
	file = pick_file(&o, &size);
	if (!file) {
		fprintf(stderr, "anyring-bench: experiment iowait: no file on "
			"a disk (/var/tmp is tmpfs): give --file=PATH\n");
		return 2;
	}
	build_rows(&o, rows, file, size);
	snprintf(setup, sizeof(setup), "%s, O_DIRECT 4 KiB random reads, "
		 "QD1: anyring-bench -O 1 -d 1 -s 1 -c 1 -t 1 --engine=E "
		 "[--policy=P]", file);
	exp_report_run(&rep, &o, rows, NROWS, setup, table);
	judge(&rep);
	chart(&c, rows);
	rep.chart = &c;
	machine_notes(notes, sizeof(notes));
	rep.notes = notes;
	return exp_report_done(&rep);
}
