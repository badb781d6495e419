/*
 * cmd_equiv.c — the commands of the proof stage: `axonc equiv` (two
 * functions of a program proved equal for every size, or not) and `axonc
 * variants` (every proved reordering of a program, as NumPy or JSON).
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* axonc variants FILE: every equivalent reordering, as NumPy functions */
int
cmd_variants(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "variants");
	TermCtx *tc = tc_new(t);
	NuGraph *ng = program_variants(t, tc, o, 0);
	if (!ng) {
		tc_free(tc);
		return 1;
	}
	const AxGraph *g = ng->g0;
	int rc = 0;
	if (o->json)
		printf("{\"variants\": [");
	for (int v = 0; v < ng->nvariants; v++) {
		char why[256];
		char *src = graph_numpy(ng->variants[v], g->fn, why, sizeof why);
		if (!src) {
			fprintf(stderr, "axonc: error: variant %d: %s\n", v, why);
			rc = 1;
			continue;
		}
		if (o->json) {
			printf("%s\n  {\"id\": %d, \"numpy\": ", v ? "," : "", v);
			json_str(src);
			printf("}");
		} else
			printf("# variant %d\n%s\n", v, src);
	}
	if (o->json)
		printf("\n], \"checks\": %d, \"cache_hits\": %d, \"spot_checked\": %d, \"spot_not_run\": %d, "
		       "\"swaps\": %d, \"stop\": \"%s\", \"ms\": %.3f}\n",
		       ng->checks, ng->cache_hits, ng->spot_run, ng->spot_none, ng->swaps, ng->stop, ng->ms);
	else
		printf("# %d variant%s, %d checks (%d answered by the cache; %d proofs run at small sizes too, %d could "
		       "not be run), stopped: %s, %.1f ms\n", ng->nvariants, ng->nvariants == 1 ? "" : "s", ng->checks,
		       ng->cache_hits, ng->spot_run, ng->spot_none, ng->stop, ng->ms);
	if (strcmp(ng->stop, "saturated") != 0)
		fprintf(stderr, "axonc: note: propagation stopped early (%s): raise --max-variants to see more\n", ng->stop);
	if (o->dotfile) {
		FILE *f = fopen(o->dotfile, "w");
		if (!f) {
			fprintf(stderr, "axonc: error: cannot write %s\n", o->dotfile);
			rc = 1;
		} else {
			graph_dot(f, ng);
			fclose(f);
		}
	}
	tc_free(tc);
	return rc;
}

/* axonc equiv FILE LHS RHS: 0 equivalent, 1 not proved or not equivalent,
 * 2 errors (the program's, or a pair that is no question), 3 a bug of the
 * checker that its spot check caught */
int
cmd_equiv(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 3)
		return fail("%s needs FILE.py LHS RHS", "equiv");
	double t0 = ax_now_ms();
	TermCtx *tc = tc_new(t);
	AxGraph *a = frontend_read(t, tc, o->args[0], o->args[1]);
	AxGraph *b = a ? frontend_read(t, tc, o->args[0], o->args[2]) : NULL;
	if (!a || !b) {
		tc_free(tc);
		return 2;
	}
	Equiv *q = equiv_new(t, tc, o->timeout_ms);
	equiv_report(q, 1);
	EquivResult r;
	equiv_graphs(q, a, b, &r);
	double ms = ax_now_ms() - t0;
	static const char *const names[] = { "internal-error", "error", "not-proved", "not-proved", "equivalent" };
	const char *v = names[r.verdict + 3];
	if (o->json) {
		char reason[1100];
		snprintf(reason, sizeof reason, "%s%.1024s", r.verdict == EQ_NOT_EQUIVALENT ? "not equivalent: " : "", r.reason);
		printf("{\"verdict\": \"%s\", \"reason\": ", v);
		json_str(reason);
		printf(", \"assumptions\": [");
		for (int i = 0; i < r.nassume; i++) {
			printf("%s", i ? ", " : "");
			json_str(r.assume[i]);
		}
		printf("], \"spot_check_runs\": %d", r.spot_runs);
		if (o->explain) {
			printf(", \"explain\": ");
			json_str(r.explain ? r.explain : "");
		}
		printf(", \"ms\": %.3f}\n", ms);
	} else {
		if (r.verdict == EQ_EQUIVALENT)
			printf("equivalent\n");
		else if (r.verdict == EQ_ERROR)
			fprintf(stderr, "%s: error: %s and %s: %s\n", o->args[0], o->args[1], o->args[2], r.reason);
		else if (r.verdict != EQ_INTERNAL)
			printf("%s: %s\n", r.verdict == EQ_NOT_EQUIVALENT ? "not equivalent" : "not proved", r.reason);
		if (r.verdict == EQ_EQUIVALENT || r.verdict == EQ_NOT_PROVED)
			for (int i = 0; i < r.nassume; i++)
				printf("%s%s\n", i ? "  and " : "assuming: ", r.assume[i]);
		if (r.verdict == EQ_EQUIVALENT && r.spot_runs > 0)
			printf("spot check: both sides agree when run at %d small sizes\n", r.spot_runs);
		else if (r.verdict == EQ_EQUIVALENT)
			printf("spot check: not run (no sizes small enough satisfy the assumptions)\n");
		if (o->explain && r.explain)
			fputs(r.explain, stdout);
	}
	equiv_free(q);
	tc_free(tc);
	return r.verdict == EQ_EQUIVALENT ? 0 : r.verdict == EQ_ERROR ? 2 : r.verdict == EQ_INTERNAL ? 3 : 1;
}
