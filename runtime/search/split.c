/*
 * split.c — an operation along an axis that tiles cannot cut (the partition
 * axis, a loop axis), found written as other operations of the specs (Phase 1,
 * beside propagation).
 *
 * An operation whose element equation is R / c or R * c (or c * R), R a sum
 * along one axis and c a number of the sizes alone (a mean: the sum over its
 * axis divided by the axis' extent), cannot be cut into partial tiles: a tile
 * would divide by its own extent.  So the tiling gives it one tile across
 * the axis, and where that axis is the tile's partition axis no tile holds
 * more than 128 rows.  The same computation as an operation whose equation
 * is R alone (found among the specs' operations by its equation) and a
 * broadcasting a / b or a * b with the number as a scalar of the specs' role
 * "scalar" is cut like any sum.  This file only finds the operations; the
 * rewrite is made and proved like a swap (propagate.c), and kept as one more
 * variant: the search picks.
 *
 * Only a reduction along the operand's partition axis (the second-to-last
 * dim) is split: along the free axis one tile holds the axis up to what a
 * partition holds, and a variant more for every norm would split the search
 * budget the variants share for no new size that compiles.
 *
 * A scan along the partition axis (a cumsum over the rows) has no
 * instruction at all: none scans across partitions.  It is found as the same
 * op along the last axis between two exchanges of the two axes (the op of
 * role ".T"), which the tiling makes transposes.  And no tile reduces along a
 * loop axis (an axis before the last two): an op along one is found as the
 * same op along the partition axis, between exchanges that move the axis
 * there and back, which are views (transposed(), below).
 */
#include <string.h>
#include "search.h"
#include "split.h"

/* t reads a tensor or a bound index: no number of the sizes */
static int
varies(const Term *t)
{
	if (t->kind == TK_TENSOR || t->kind == TK_BVAR)
		return 1;
	for (int i = 0; i < t->n; i++)
		if (varies(t->a[i]))
			return 1;
	return 0;
}

/* the operand dim a reduction's body reads by its bound variable; -1 none or several */
static int
reduced_dim(const Term *body, const Term *bv, int *dim)
{
	if (body->kind == TK_TENSOR) {
		for (int j = 0; j < body->n; j++)
			if (body->a[j] == bv) {
				if (*dim >= 0 && *dim != j)
					return -1;
				*dim = j;
			}
		return 0;
	}
	for (int i = 0; i < body->n; i++)
		if (reduced_dim(body->a[i], bv, dim) < 0)
			return -1;
	return 0;
}

/* a sum with its bound variable made a De Bruijn index: equal for equal sums */
static Term *
sum_closed(TermCtx *tc, Term *r)
{
	Term *bv = r->a[0];
	return t_red(tc, TK_SUM, t_binder(tc, bv->sort), r->a[1], r->a[2], t_abstract(tc, r->a[3], &bv, 1));
}

/* An op along one axis of its operand, of the layout [...L, N, ...R] (a group, the axis, a
 * group), moved to another axis between exchanges of axes (the op of role ".T"):
 *  - a scan along the partition axis (its range grows with the result's index there): no
 *    instruction scans across partitions; the same op along the last axis, between two
 *    exchanges of the last two axes, which the tiling makes transposes;
 *  - an op along a loop axis (a dim before the last two; a sum over the batch of [B, M, N]),
 *    which no tile reduces: the same op along the partition axis, the axis moved there by
 *    exchanges with each axis after it (the others keep their order), and, where the result
 *    keeps a dim there, moved back after it.  Exchanges with a loop axis are views, which
 *    transfers address in place (runtime/back/permute.c). */
static int
transposed(const AxGraph *g, const AxNode *n, const AxOp *op, Term *e, Term *const *out, int rank, SplitPlan *sp)
{
	const AxTarget *t = g->t;
	const AxOperand *a = &op->opnd[0];
	if (a->ndims != 3 || a->pat[0] < 0 || a->pat[1] >= 0 || a->pat[2] < 0)
		return 0;
	int dim = n->grank[a->pat[0]], red = -1;
	int scan = dim == rank - 2 && (e->kind == TK_SUM || e->kind == TK_FOLD) && n->rank == rank &&
	           reduced_dim(e->a[e->kind == TK_FOLD ? 5 : 3], e->a[0], &red) == 0 && red == dim &&
	           t_mentions(e->a[2], out[dim]);
	if (!scan && !(dim < rank - 2 && (n->rank == rank || n->rank == rank - 1)))
		return 0;
	int swap = -1;
	for (int i = 0; i < t->nops && swap < 0; i++) {
		const AxOperand *w = &t->ops[i].opnd[0];
		if (t->ops[i].nopnd == 1 && t->ops[i].layout_only && ax_has_role(&t->ops[i], ".T") && w->ndims == 5 &&
		    w->pat[0] >= 0 && w->pat[2] >= 0 && w->pat[4] >= 0)
			swap = i;
	}
	if (swap < 0)
		return 0;
	*sp = (SplitPlan){ .kind = SPLIT_TRANSPOSED, .node = (int)(n - g->nodes), .swap_op = swap };
	int to = scan ? rank - 1 : rank - 2;
	for (int k = dim; k < to; k++)   /* the axis to `to`, one place at a time */
		sp->swap[sp->nswap][0] = k, sp->swap[sp->nswap++][1] = k + 1;
	sp->at = sp->nswap;
	for (int k = to - 1; k >= dim && n->rank == rank; k--)   /* and back, where the result keeps it */
		sp->swap[sp->nswap][0] = k, sp->swap[sp->nswap++][1] = k + 1;
	memcpy(sp->grank, n->grank, sizeof sp->grank);
	sp->grank[a->pat[0]] = to;
	sp->grank[a->pat[2]] = rank - 1 - to;
	return 1;
}

int
split_find(const AxGraph *g, int id, SplitPlan *sp)
{
	const AxTarget *t = g->t;
	TermCtx *tc = g->tc;
	const AxNode *n = &g->nodes[id];
	if (n->op < 0 || n->inst || n->nin != 1 || n->in[0] < 0)
		return 0;
	const AxOp *op = node_op(g, n);
	if (op->nopnd != 1 || op->layout_only || op->nattr)
		return 0;
	Term *out[AX_MAXR];
	Term *e = tile_equation(g, n, op, out);
	if (g->nodes[n->in[0]].rank >= 2 && transposed(g, n, op, e, out, g->nodes[n->in[0]].rank, sp))
		return 1;
	if (e->kind != TK_DIV && e->kind != TK_MUL)
		return 0;
	int side = e->a[0]->kind == TK_SUM ? 0 : e->a[1]->kind == TK_SUM ? 1 : -1;
	if (side < 0 || (e->kind == TK_DIV && side != 0) || varies(e->a[1 - side]))
		return 0;
	Term *r = e->a[side];
	int rank = g->nodes[n->in[0]].rank, dim = -1;
	if (reduced_dim(r->a[3], r->a[0], &dim) < 0 || rank < 2 || dim != rank - 2)
		return 0;   /* only along the partition axis (see above) */
	Term *want = sum_closed(tc, r);
	int sop = -1;
	for (int i = 0; i < t->nops && sop < 0; i++) {
		const AxOp *s = &t->ops[i];
		if (s == op || s->nopnd != 1 || s->layout_only || s->nattr || s->ngroups != op->ngroups)
			continue;
		AxSym sy = { 0 };
		sy.rank[0] = rank;
		for (int d = 0; d < rank; d++)
			sy.dim[0][d] = g->nodes[n->in[0]].dim[d];
		memcpy(sy.grank, n->grank, sizeof sy.grank);
		if (ax_pos(s->layout, sy.rank, sy.grank, -1, s->layout->nout) != n->rank)
			continue;
		Term *se = tile_equation(g, n, s, out);
		if (se->kind == TK_SUM && sum_closed(tc, se) == want)
			sop = i;
	}
	int bop = spec_binary_op(t, tc, e->kind, e->kind == TK_MUL);
	int cop = -1, cattr = -1;
	for (int i = 0; i < t->nops && cop < 0; i++)
		if (t->ops[i].nopnd == 0 && ax_has_role(&t->ops[i], "scalar"))
			for (int a = 0; a < t->ops[i].nattr; a++)
				if (t->ops[i].attr[a].kind == AX_ATTR_FLOAT)
					cop = i, cattr = a;
	if (sop < 0 || bop < 0 || cop < 0)
		return 0;
	Term *c = e->a[1 - side];
	*sp = (SplitPlan){ .kind = SPLIT_SUM, .node = id, .sum_op = sop, .bin_op = bop, .scalar_op = cop, .scalar_attr = cattr,
	                   .value = c->sort == TS_REAL ? c : t_toreal(tc, c) };
	return 1;
}
