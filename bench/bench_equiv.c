/*
 * bench_equiv.c — time per equivalence check.
 *
 * For each pair file given (functions lhs and rhs), loads both once, then
 * runs the whole check (encoding, normal forms, Z3) REPEAT times with the
 * verdict cache emptied each time, and prints the median and the spread.
 * Run by `make bench`.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "front.h"

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	enum { REPEAT = 31 };
	const AxTarget *t = ax_find_target(NULL);
	printf("| pair | verdict | median ms | min ms | max ms |\n| --- | --- | --- | --- | --- |\n");
	for (int i = 1; i < argc; i++) {
		TermCtx *tc = tc_new(t);
		AxGraph *a = frontend_read(t, tc, argv[i], "lhs"), *b = a ? frontend_read(t, tc, argv[i], "rhs") : NULL;
		if (!a || !b)
			return 2;
		double ms[REPEAT];
		EquivResult r = { 0 };
		/* one Z3 context for all repeats, as the pipeline keeps one per
		 * thread; the verdict cache is emptied before every check */
		Equiv *q = equiv_new(t, tc, 10000);
		for (int k = 0; k < REPEAT; k++) {
			equiv_clear_cache(q);
			double t0 = ax_now_ms();
			equiv_graphs(q, a, b, &r);
			ms[k] = ax_now_ms() - t0;
		}
		equiv_free(q);
		qsort(ms, REPEAT, sizeof ms[0], cmp_d);
		const char *name = strrchr(argv[i], '/');
		printf("| %s | %s | %.2f | %.2f | %.2f |\n", name ? name + 1 : argv[i],
		       r.verdict == EQ_EQUIVALENT ? "equivalent" : "not proved", ms[REPEAT / 2], ms[0], ms[REPEAT - 1]);
		tc_free(tc);
	}
	return 0;
}
