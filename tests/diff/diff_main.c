/* SPDX-License-Identifier: MIT */
/*
 * diff_main.c - the differential test program.
 *
 *   differential [-l] [-v] [-r N] [NAME-substring...]
 *
 * Runs every scenario whose name contains one of the substrings (all when
 * none is given) on the engines named by ANYRING_DIFF_ENGINES (comma
 * separated, default "kernel,user"; every run is compared with the
 * first). -l lists the scenarios, -v prints the CQE lists of passing
 * scenarios too, -r N runs each scenario N times. Exit 0 all passed, 1 a
 * scenario failed, 77 an engine cannot create rings here.
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

static int selected(const struct scenario *s, char **filters, int nr)
{
	int i;

	if (!nr)
		return 1;
	for (i = 0; i < nr; i++)
		if (strstr(s->name, filters[i]))
			return 1;
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-l] [-v] [-r N] [NAME-substring...]\n",
		prog);
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

/* list or run (repeat times) every selected scenario; returns failures */
static unsigned run_all(char **filters, int nr_filters, int list,
			int verbose, int repeat, unsigned *runs)
{
	const struct scenario *const *fam;
	const struct scenario *s;
	unsigned failed = 0;
	int i;

	for (fam = diff_families; *fam; fam++) {
		for (s = *fam; s->name; s++) {
			if (!selected(s, filters, nr_filters))
				continue;
			if (list)
				printf("%s\n", s->name);
			for (i = 0; !list && i < repeat; i++) {
				(*runs)++;
				failed += diff_run_scenario(s, engines,
							    nr_engines,
							    verbose);
			}
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	int opt, list = 0, verbose = 0, repeat = 1;
	unsigned runs = 0, failed;

	while ((opt = getopt(argc, argv, "lvr:h")) != -1) {
		switch (opt) {
		case 'l':
			list = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (repeat < 1)
		usage(argv[0]);
	/* a log cut short by the runner's timeout still shows how far */
	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_engines();
	if (!list)
		announce();
	failed = run_all(argv + optind, argc - optind, list, verbose, repeat,
			 &runs);
	if (!list)
		printf("%u scenario runs, %u passed, %u failed\n", runs,
		       runs - failed, failed);
	return failed ? 1 : 0;
}
