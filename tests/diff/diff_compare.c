/* SPDX-License-Identifier: MIT */
/*
 * diff_compare.c - the verdict on a scenario or a call case: each run
 * must have gone well (a scenario's runs also follow its ordering rules
 * and pinned results); then every run is compared with the first: how a
 * call case's child ended, submit results, CQEs in order or as
 * multisets, a call case's values. A mismatch prints the runs side by
 * side.
 */
#include <sys/mman.h>
#include "harness.h"

#define CELL	36	/* width of one engine's column */

static void fmt_res(char *out, size_t len, int res)
{
	const char *name = res < 0 ? strerrorname_np(-res) : NULL;

	if (res == DIFF_RES_FD)
		snprintf(out, len, "fd>=0");
	else if (res == DIFF_RES_RACED)
		snprintf(out, len, "raced");
	else if (name)
		snprintf(out, len, "%d %s", res, name);
	else
		snprintf(out, len, "%d", res);
}

static void fmt_cqe(char *out, size_t len, const struct diff_run *r,
		    unsigned i, int sorted)
{
	const struct diff_cqe *cqe = sorted ? &r->sorted[i] : &r->cqe[i];
	char res[32];

	if (i >= r->nr) {
		out[0] = 0;
		return;
	}
	fmt_res(res, sizeof(res), cqe->res);
	if (cqe->flags == DIFF_NOTE_FLAGS)
		snprintf(out, len, "note %llu: %s",
			 (unsigned long long)cqe->user_data, res);
	else
		snprintf(out, len, "%llu: %s 0x%x",
			 (unsigned long long)cqe->user_data, res, cqe->flags);
}

/* a cell of the table; the last column unpadded */
static void print_cell(const char *text, unsigned col, unsigned nr)
{
	printf("%s%-*s", col ? " | " : "  ", col + 1 < nr ? CELL : 0, text);
}

static void print_lists(const struct diff_run *runs, unsigned nr, int sorted)
{
	unsigned i, j, rows = 0;
	char cell[CELL + 32];

	for (j = 0; j < nr; j++)
		rows = runs[j].nr > rows ? runs[j].nr : rows;
	printf("    CQEs %s (user_data: res flags)\n    ", sorted ?
	       "sorted by user_data, as compared" : "in arrival order");
	for (j = 0; j < nr; j++) {
		snprintf(cell, sizeof(cell), "run %u: %s", j, runs[j].engine);
		print_cell(cell, j, nr);
	}
	printf("\n");
	for (i = 0; i < rows; i++) {
		printf("  %2u", i);
		for (j = 0; j < nr; j++) {
			fmt_cqe(cell, sizeof(cell), &runs[j], i, sorted);
			print_cell(cell, j, nr);
		}
		printf("\n");
	}
	for (j = 0; j < nr; j++) {
		printf("    run %u submits:", j);
		for (i = 0; i < runs[j].nr_submit; i++)
			printf(" %d(left %u)", runs[j].submit[i].ret,
			       runs[j].submit[i].left);
		printf("\n");
	}
}

static int cmp_cqe(const void *a, const void *b)
{
	const struct diff_cqe *x = a, *y = b;

	if (x->user_data != y->user_data)
		return x->user_data < y->user_data ? -1 : 1;
	if (x->res != y->res)
		return x->res < y->res ? -1 : 1;
	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

static int find(const struct diff_run *r, __u64 user_data)
{
	unsigned i;

	for (i = 0; i < r->nr; i++)
		if (r->cqe[i].user_data == user_data)
			return (int)i;
	return -1;
}

/* the first CQE of each pair arrived before the second */
static int check_pairs(const struct scenario *s, struct diff_run *r)
{
	const struct diff_pair *p = s->before;
	const struct diff_pair *end = p + DIFF_MAX_PAIRS;
	int a, b;

	for (; p < end && p->first; p++) {
		a = find(r, p->first);
		b = find(r, p->then);
		if (a >= 0 && b >= 0 && a < b)
			continue;
		snprintf(r->msg, sizeof(r->msg),
			 "user_data %llu must complete before %llu",
			 (unsigned long long)p->first,
			 (unsigned long long)p->then);
		return -1;
	}
	return 0;
}

/* the pinned results: the first CQE of each user_data has that res */
static int check_known(const struct scenario *s, struct diff_run *r)
{
	const struct diff_known *k = s->known;
	const struct diff_known *end = k + DIFF_MAX_KNOWN;
	char want[32], got[32] = "missing";
	int a;

	for (; k < end && k->user_data; k++) {
		a = find(r, k->user_data);
		if (a >= 0 && r->cqe[a].res == k->res)
			continue;
		fmt_res(want, sizeof(want), k->res);
		if (a >= 0)
			fmt_res(got, sizeof(got), r->cqe[a].res);
		snprintf(r->msg, sizeof(r->msg),
			 "user_data %llu: res %s, expected %s",
			 (unsigned long long)k->user_data, got, want);
		return -1;
	}
	return 0;
}

static int same_submits(const struct diff_run *a, const struct diff_run *b)
{
	return a->nr_submit == b->nr_submit &&
	       !memcmp(a->submit, b->submit,
		       a->nr_submit * sizeof(a->submit[0]));
}

static int same_cqes(const struct diff_run *a, const struct diff_run *b,
		     int sorted)
{
	return a->nr == b->nr &&
	       !memcmp(sorted ? a->sorted : a->cqe, sorted ? b->sorted : b->cqe,
		       a->nr * sizeof(a->cqe[0]));
}

static const char *order_name(enum diff_order o)
{
	return o == ORDER_EXACT ? "exact" : "any";
}

/*
 * Why run b differs from run a, or NULL. A scenario's runs have no
 * values and their process is the harness's; a call case's runs have no
 * submits or CQEs: each kind is compared on what it has.
 */
static const char *differs(const struct diff_run *a, const struct diff_run *b,
			   int sorted, char *buf, size_t len)
{
	unsigned i;

	if (a->signal != b->signal)
		return "the children were killed by different signals";
	if (a->status != b->status)
		return "exit status differs (a sanitizer report?)";
	if (!same_submits(a, b))
		return "io_uring_submit results differ";
	if (!same_cqes(a, b, sorted))
		return "CQEs differ";
	if (a->nr_val != b->nr_val)
		return "different numbers of values";
	for (i = 0; i < a->nr_val; i++) {
		if (a->val[i] != b->val[i]) {
			snprintf(buf, len, "%s differs", a->what[i]);
			return buf;
		}
	}
	return NULL;
}

/* a call case's values, a column a run; != marks one unlike run 0's */
static void print_vals(const struct diff_run *runs, unsigned nr)
{
	unsigned i, j, rows = 0;
	char v[32];

	for (j = 0; j < nr; j++)
		rows = runs[j].nr_val > rows ? runs[j].nr_val : rows;
	printf("    %-34s %12s", "", runs[0].engine);
	for (j = 1; j < nr; j++)
		printf("    %s", runs[j].engine);
	printf("\n");
	for (i = 0; i < rows; i++) {
		for (j = 0; i >= runs[j].nr_val; j++)
			;
		printf("    %-34s", runs[j].what[i]);
		for (j = 0; j < nr; j++) {
			if (i < runs[j].nr_val)
				snprintf(v, sizeof(v), "%lld", runs[j].val[i]);
			else
				snprintf(v, sizeof(v), "-");
			if (!j)
				printf(" %12s", v);
			else
				printf(" %s %s", i < runs[0].nr_val &&
				       i < runs[j].nr_val &&
				       runs[0].val[i] == runs[j].val[i] ?
				       "  " : "!=", v);
		}
		printf("\n");
	}
}

/* how the children of a call case ended, when one did not exit 0 */
static void print_ends(const struct diff_run *runs, unsigned nr)
{
	unsigned j;

	for (j = 0; j < nr; j++)
		if (runs[j].signal || runs[j].status)
			break;
	if (j == nr)
		return;
	printf("    killed by signal / exit status:");
	for (j = 0; j < nr; j++)
		printf("%s %s %d/%d", j ? "," : "", runs[j].engine,
		       runs[j].signal, runs[j].status);
	printf("\n");
}

/*
 * The verdict on the runs of scenario s, or of call case name when s is
 * NULL: one PASS or FAIL line; on a failure, or with verbose, the runs.
 * Returns 0 pass, 1 fail.
 */
static int verdict(const struct scenario *s, const char *name,
		   struct diff_run *runs, unsigned nr, int verbose)
{
	int sorted = s && s->order == ORDER_ANY;
	const char *why = NULL;
	char buf[80];
	unsigned i;

	for (i = 0; i < nr && !why; i++)
		if (runs[i].msg[0])
			why = "a run failed";
	/* a failed run is shown as it happened */
	if (why)
		sorted = 0;
	for (i = 1; i < nr && !why; i++)
		why = differs(&runs[0], &runs[i], sorted, buf, sizeof(buf));
	if (why) {
		printf("FAIL %s: %s\n", name, why);
		for (i = 0; i < nr; i++)
			if (runs[i].msg[0])
				printf("    run %u (%s): %s\n", i,
				       runs[i].engine, runs[i].msg);
	} else if (s) {
		printf("PASS %-30s %2u CQEs, order %s\n", name, runs[0].nr,
		       order_name(s->order));
	} else {
		printf("PASS %-30s %2u values\n", name, runs[0].nr_val);
	}
	if (why || verbose) {
		if (s) {
			print_lists(runs, nr, sorted);
		} else {
			print_ends(runs, nr);
			print_vals(runs, nr);
		}
	}
	return why != NULL;
}

int diff_run_scenario(const struct scenario *s, const char *const *engines,
		      unsigned nr_engines, int verbose)
{
	struct diff_run *runs = calloc(nr_engines, sizeof(*runs));
	unsigned i;
	int ret;

	if (!runs) {
		printf("FAIL %s: out of memory\n", s->name);
		return 1;
	}
	for (i = 0; i < nr_engines; i++) {
		diff_run_one(s, engines[i], &runs[i]);
		if (!runs[i].msg[0] && !check_pairs(s, &runs[i]))
			check_known(s, &runs[i]);
		memcpy(runs[i].sorted, runs[i].cqe, sizeof(runs[i].cqe));
		qsort(runs[i].sorted, runs[i].nr, sizeof(runs[i].sorted[0]),
		      cmp_cqe);
	}
	ret = verdict(s, s->name, runs, nr_engines, verbose);
	free(runs);
	return ret;
}

/* the features the call cases' rings reported, by engine */
static unsigned user_features, kernel_features;

int diff_run_call(const struct diff_call *k, const char *const *engines,
		  unsigned nr_engines, int verbose)
{
	size_t sz = nr_engines * sizeof(struct diff_run);
	struct diff_run *runs;
	unsigned i;
	int ret;

	/* the children write their runs here */
	runs = mmap(NULL, sz, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (runs == MAP_FAILED) {
		printf("FAIL %s: mmap: %s\n", k->name, strerror(errno));
		return 1;
	}
	for (i = 0; i < nr_engines; i++) {
		diff_call_one(k, engines[i], &runs[i]);
		if (!strcmp(engines[i], "user"))
			user_features |= runs[i].features;
		else
			kernel_features |= runs[i].features;
	}
	ret = verdict(NULL, k->name, runs, nr_engines, verbose);
	munmap(runs, sz);
	return ret;
}

int diff_check_features(const char *const *engines, unsigned nr_engines)
{
	unsigned extra;

	if (nr_engines < 2 || strcmp(engines[0], "kernel") ||
	    strcmp(engines[1], "user"))
		return -1;
	extra = user_features & ~kernel_features;
	if (extra) {
		printf("FAIL features: user reports 0x%x the kernel does not "
		       "(user 0x%x, kernel 0x%x)\n", extra, user_features,
		       kernel_features);
		return 1;
	}
	printf("PASS features (user 0x%x within kernel 0x%x; kernel only: "
	       "0x%x)\n", user_features, kernel_features,
	       kernel_features & ~user_features);
	return 0;
}
