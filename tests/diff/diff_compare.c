/* SPDX-License-Identifier: MIT */
/*
 * diff_compare.c - the verdict on a scenario: each run must have gone well
 * and follow the scenario's ordering rules and pinned results; then every
 * run is compared with the first (submit results, then CQEs in order or
 * as multisets). A mismatch prints the CQE lists side by side.
 */
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

int diff_run_scenario(const struct scenario *s, const char *const *engines,
		      unsigned nr_engines, int verbose)
{
	struct diff_run *runs = calloc(nr_engines, sizeof(*runs));
	int sorted = s->order == ORDER_ANY;
	const char *why = NULL;
	unsigned i;

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
	for (i = 0; i < nr_engines && !why; i++)
		if (runs[i].msg[0])
			why = "a run failed";
	/* a failed run is shown as it happened */
	if (why)
		sorted = 0;
	for (i = 1; i < nr_engines && !why; i++) {
		if (!same_submits(&runs[0], &runs[i]))
			why = "io_uring_submit results differ";
		else if (!same_cqes(&runs[0], &runs[i], sorted))
			why = "CQEs differ";
	}
	if (why) {
		printf("FAIL %s: %s\n", s->name, why);
		for (i = 0; i < nr_engines; i++)
			if (runs[i].msg[0])
				printf("    run %u (%s): %s\n", i,
				       runs[i].engine, runs[i].msg);
	} else {
		printf("PASS %-30s %2u CQEs, order %s\n", s->name, runs[0].nr,
		       order_name(s->order));
	}
	if (why || verbose)
		print_lists(runs, nr_engines, sorted);
	free(runs);
	return why != NULL;
}
