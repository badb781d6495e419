/*
 * select_rounds.c — the rounds of Phase 2 after the first (select.c), when the
 * model measures: the combinations next to the first round's best (one
 * operation's choice changed; extract_neighbour_visits), the second round over
 * the best combinations' tile/block choices, and the descent from their best
 * choices (descent.c).  Each is a round over the workers; the results do not
 * depend on their number.
 */
#include <stdlib.h>
#include <string.h>
#include "select_impl.h"

/* The descent (descent.c) from the best choice of each of the best combinations, each step
 * a round over the workers, until it ends or budget visits are spent. */
static int
descend(Sel *S, int jobs, SelOut *out, int64_t budget)
{
	const SelIn *in = S->in;
	SelPick cur[SEL_TOPC];
	int n = 0;
	for (int i = 0; i < SEL_TOPC; i++)
		if (out->topc[i].have)
			cur[n++] = out->topc[i];
	if (!n || budget <= 0)
		return 0;
	Extract **nx = calloc((size_t)in->nv, sizeof *nx);
	S->list = calloc((size_t)in->nv, sizeof *S->list);
	S->nlist = calloc((size_t)in->nv, sizeof *S->nlist);
	S->lbase = calloc((size_t)in->nv, sizeof *S->lbase);
	Descent *d = descent_new();
	if (!nx || !S->list || !S->nlist || !S->lbase)
		ax_die("out of memory");
	for (int i = 0; i < n; i++)
		descent_start(d, cur[i].v, cur[i].combo, cur[i].sub);
	for (int v = 0; v < in->nv; v++) {
		S->list[v] = malloc(sizeof *S->list[v] * (size_t)(budget + 1));
		if (!S->list[v])
			ax_die("out of memory");
	}
	int64_t base = EXTRACT_FOCUS_BASE + ((int64_t)1 << 29);   /* after the second round's ordinals */
	int rc = 0, improved = 1;
	while (budget > 0 && rc == 0 && descent_next(d, improved)) {
		int64_t total = 0;
		for (int v = 0; v < in->nv; v++)
			S->nlist[v] = 0;
		for (int i = 0; i < n && total < budget; i++) {
			int v = cur[i].v;
			if (!nx[v])
				nx[v] = extract_new(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->no_fusion,
				                    in->budget);
			int k = descent_around(d, nx[v], v, cur[i].combo, cur[i].sub, S->list[v] + S->nlist[v],
			                       (int)(budget - total < INT32_MAX ? budget - total : INT32_MAX));
			S->nlist[v] += k;
			total += k;
		}
		if (!total)
			break;
		for (int v = 0; v < in->nv; v++) {
			S->lbase[v] = base;
			base += S->nlist[v];
		}
		rc = S->round_over(S, jobs, total, out);
		budget -= total;
		improved = 0;   /* each start moves to its combination's best, if that improved */
		for (int i = 0; i < n; i++)
			for (int j = 0; j < SEL_TOPC; j++)
				if (out->topc[j].have && out->topc[j].v == cur[i].v && out->topc[j].combo == cur[i].combo &&
				    out->topc[j].latency < cur[i].latency) {
					cur[i] = out->topc[j];
					improved = 1;
				}
	}
	for (int v = 0; v < in->nv; v++) {
		free(S->list[v]);
		extract_free(nx[v]);
	}
	free(S->list);
	free(S->nlist);
	free(S->lbase);
	free(nx);
	descent_free(d);
	S->list = NULL;
	S->nlist = NULL;
	S->lbase = NULL;
	return rc;
}

/* The combinations next to the best of the first round (extract_combo_neighbours: one
 * operation's choice changed), which samples the combinations by a stride and so may pass over
 * the one choice that matters (GQA: 26 of 1728 combinations per variant at budget 5000), each
 * visited at the largest tiles without and with blocks (extract_neighbour_visits), within
 * budget; the best of them then join the second round and the descent. */
static int
neighbours(Sel *S, int jobs, SelOut *out, int64_t budget)
{
	const SelIn *in = S->in;
	if (budget <= 0)
		return 0;
	S->list = calloc((size_t)in->nv, sizeof *S->list);
	S->nlist = calloc((size_t)in->nv, sizeof *S->nlist);
	S->lbase = calloc((size_t)in->nv, sizeof *S->lbase);
	if (!S->list || !S->nlist || !S->lbase)
		ax_die("out of memory");
	int64_t total = 0;
	for (int i = 0; i < SEL_TOPV && out->topv[i].have && total < budget; i++) {   /* the best variant's first */
		int v = out->topv[i].v;
		Extract *x = extract_new(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->no_fusion,
		                         in->budget);
		int room = (int)(budget - total < 1024 ? budget - total : 1024);
		S->list[v] = realloc(S->list[v], sizeof *S->list[v] * (size_t)(S->nlist[v] + room + 1));
		if (!S->list[v])
			ax_die("out of memory");
		int k = extract_neighbour_visits(x, out->topv[i].combo, S->list[v] + S->nlist[v], room);
		for (int j = 0; j < k; j++) {   /* their verdicts' cells */
			int64_t combo = S->list[v][S->nlist[v] + j][0];
			int seen = 0;
			for (int m = 0; !seen && m < S->nxcombo[v]; m++)
				seen = S->xcombo[v][m] == combo;
			if (!seen && S->nxcombo[v] < SEL_XCOMBO)
				S->xcombo[v][S->nxcombo[v]++] = combo;
		}
		S->nlist[v] += k;
		total += k;
		extract_free(x);
	}
	int64_t base = EXTRACT_FOCUS_BASE + 3 * ((int64_t)1 << 28);   /* after the descent's ordinals */
	for (int v = 0; v < in->nv; v++) {
		S->lbase[v] = base;
		base += S->nlist[v];
	}
	int64_t before = out->refined;
	int rc = total ? S->round_over(S, jobs, total, out) : 0;
	out->neighbours += out->refined - before;
	for (int v = 0; v < in->nv; v++)
		free(S->list[v]);
	free(S->list);
	free(S->nlist);
	free(S->lbase);
	S->list = NULL;
	S->nlist = NULL;
	S->lbase = NULL;
	return rc;
}

/* The second round (measured by the model): the best combinations of the
 * first, each visited again at fper more of its tile/block choices -- the
 * first round strides through the combinations, and the tiles and blocks
 * that suit a combination are found where it is worth looking -- with half
 * the visits left; then the descent from their best choices with the rest. */
int
sel_refine(Sel *S, int jobs, SelOut *out)
{
	const SelIn *in = S->in;
	int n = 0;
	for (int i = 0; i < SEL_TOPC; i++)
		n += out->topc[i].have;
	if (!n || in->refine <= 0)
		return 0;
	int64_t left = in->refine - in->refine / 8;   /* an eighth to the neighbours of the best variants' best */
	int rc = neighbours(S, jobs, out, in->refine / 8);
	if (rc)
		return rc;
	n = 0;
	for (int i = 0; i < SEL_TOPC; i++)
		n += out->topc[i].have;
	S->focus = calloc((size_t)in->nv, sizeof *S->focus);
	S->nfocus = calloc((size_t)in->nv, sizeof *S->nfocus);
	if (!S->focus || !S->nfocus)
		ax_die("out of memory");
	for (int i = 0; i < SEL_TOPC; i++)   /* distinct (variant, combination): topc keeps them so */
		if (out->topc[i].have)
			S->focus[out->topc[i].v][S->nfocus[out->topc[i].v]++] = out->topc[i].combo;
	int64_t sample = left / 2;
	S->fper = sample / n > 1 ? sample / n : 1;
	rc = S->round_over(S, jobs, sample, out);
	free(S->focus);
	free(S->nfocus);
	S->focus = NULL;
	S->nfocus = NULL;
	return rc ? rc : descend(S, jobs, out, left - sample);
}

