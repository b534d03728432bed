/* SPDX-License-Identifier: MIT */
/*
 * diff_main.c - the differential test program.
 *
 *   differential [-l] [-v] [-r N] [-m scenarios|calls] [NAME-substring...]
 *
 * Runs every case whose name contains one of the substrings (all when
 * none is given) on the engines named by ANYRING_DIFF_ENGINES (comma
 * separated, default "kernel,user"; every run is compared with the
 * first). The cases are of two kinds: the call cases (setup, register and
 * enter results, diff_setup.c; bad pointers, diff_uaccess.c) run first, then the scenarios (SQEs and
 * their CQEs, the families in diff_table.c); -m runs one kind only. After
 * the call cases, when no substring is given, the features their rings
 * reported are checked (a case named "features"). -l lists the cases, -v
 * prints the CQE lists or values of passing cases too, -r N runs each
 * case N times. Exit 0 all passed, 1 a case failed, 77 an engine cannot
 * create rings here.
 */
#include <unistd.h>
#include "harness.h"

#define MAX_ENGINES	4

static char engine_buf[128];
static const char *engines[MAX_ENGINES];
static unsigned nr_engines;

static void parse_engines(void)
{
	const char *env = getenv("ANYRING_DIFF_ENGINES");
	char *save = NULL, *tok;

	snprintf(engine_buf, sizeof(engine_buf), "%s",
		 env && *env ? env : "kernel,user");
	for (tok = strtok_r(engine_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (nr_engines == MAX_ENGINES) {
			fprintf(stderr, "ANYRING_DIFF_ENGINES: at most %d\n",
				MAX_ENGINES);
			exit(1);
		}
		engines[nr_engines++] = tok;
	}
	/* one engine: compare it with itself */
	if (nr_engines == 1)
		engines[nr_engines++] = engines[0];
}

/* exit 77 when an engine is refused here, 1 when it is misnamed */
static void probe_engine(const char *engine)
{
	struct io_uring_params p;
	struct io_uring ring;
	int ret;

	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine(engine, 4, &ring, &p);
	if (ret == -EOPNOTSUPP || ret == -EPERM || ret == -ENOSYS ||
	    ret == -EACCES) {
		printf("skipped: engine %s cannot create rings: %s\n", engine,
		       strerror(-ret));
		exit(T_SKIP);
	}
	if (ret) {
		fprintf(stderr, "engine %s: ring setup failed: %s\n", engine,
			strerror(-ret));
		exit(1);
	}
	io_uring_queue_exit(&ring);
}

static int selected(const char *name, char **filters, int nr)
{
	int i;

	if (!nr)
		return 1;
	for (i = 0; i < nr; i++)
		if (strstr(name, filters[i]))
			return 1;
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-l] [-v] [-r N] [-m scenarios|calls] "
		"[NAME-substring...]\n", prog);
	exit(2);
}

static void announce(void)
{
	unsigned i;

	for (i = 0; i < nr_engines; i++)
		probe_engine(engines[i]);
	printf("differential: %s", engines[0]);
	for (i = 1; i < nr_engines; i++)
		printf(" vs %s", engines[i]);
	printf("\n");
}

struct opts {
	char **filters;
	int nr_filters;
	int list, verbose, repeat;
};

/* what ran: the runs of each kind, and the failures among them all */
struct tally {
	unsigned calls, scenarios, failed;
};

/* list or run (repeat times) every selected call case, then the features */
static void run_calls(const struct opts *o, struct tally *t)
{
	const struct diff_call *const *tab;
	const struct diff_call *k;
	int i, ret;

	for (tab = diff_call_tables; *tab; tab++) {
		for (k = *tab; k->name; k++) {
			if (!selected(k->name, o->filters, o->nr_filters))
				continue;
			if (o->list)
				printf("%s\n", k->name);
			for (i = 0; !o->list && i < o->repeat; i++) {
				t->calls++;
				t->failed += diff_run_call(k, engines,
							   nr_engines,
							   o->verbose);
			}
		}
	}
	/* it sums up every call case: only when all of them ran */
	if (o->nr_filters)
		return;
	if (o->list) {
		printf("features\n");
		return;
	}
	ret = diff_check_features(engines, nr_engines);
	if (ret >= 0) {
		t->calls++;
		t->failed += ret;
	}
}

/* list or run (repeat times) every selected scenario */
static void run_scenarios(const struct opts *o, struct tally *t)
{
	const struct scenario *const *fam;
	const struct scenario *s;
	int i;

	for (fam = diff_families; *fam; fam++) {
		for (s = *fam; s->name; s++) {
			if (!selected(s->name, o->filters, o->nr_filters))
				continue;
			if (o->list)
				printf("%s\n", s->name);
			for (i = 0; !o->list && i < o->repeat; i++) {
				t->scenarios++;
				t->failed += diff_run_scenario(s, engines,
							       nr_engines,
							       o->verbose);
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .repeat = 1 };
	struct tally t = { 0, 0, 0 };
	int opt, calls = 1, scenarios = 1;

	while ((opt = getopt(argc, argv, "lvr:m:h")) != -1) {
		switch (opt) {
		case 'l':
			o.list = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'r':
			o.repeat = atoi(optarg);
			break;
		case 'm':
			calls = !strcmp(optarg, "calls");
			scenarios = !strcmp(optarg, "scenarios");
			if (!calls && !scenarios)
				usage(argv[0]);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (o.repeat < 1)
		usage(argv[0]);
	o.filters = argv + optind;
	o.nr_filters = argc - optind;
	/* a log cut short by the runner's timeout still shows how far */
	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_engines();
	if (!o.list)
		announce();
	if (calls)
		run_calls(&o, &t);
	if (scenarios)
		run_scenarios(&o, &t);
	if (!o.list)
		printf("%u call case runs, %u scenario runs: %u passed, "
		       "%u failed\n", t.calls, t.scenarios,
		       t.calls + t.scenarios - t.failed, t.failed);
	return t.failed ? 1 : 0;
}
