/*
 * frontend_index.c — x[...] (integers, ranges, None, '...') and reshape:
 * the syntax that becomes layout ops (a transpose is exchanges of axes,
 * fe_transpose in frontend_ops.c).
 *
 * Indexing follows NumPy's rules on symbolic sizes.  A bound of a range is
 * read as NumPy reads it: a negative one counts from the end, and one past
 * either end is clipped to it.  Where the sizes decide which case applies
 * (a constant dim, or a bound provably past it), the case NumPy takes is
 * the one represented; where they do not (X[1:] on an axis of size M, with
 * M = 1 empty), the case that gives a non-empty result with the bound read
 * as written becomes an assumption of the graph (M >= 2), stated by `axonc
 * graph`, checked by `axonc run`; a requirement no size satisfies is an
 * error at the index.  Empty results and negative steps have no
 * representation: they are errors.
 */
#include <string.h>
#include "fe.h"

/* The size attributes of a role's op in declaration order, filled from vals. */
static void
role_attrs(Fe *fe, int opi, Term *const *vals, int nvals, Term **sattr, AxLoc loc)
{
	const AxOp *op = &fe->t->ops[opi];
	int k = 0;
	for (int a = 0; a < op->nattr; a++) {
		sattr[a] = NULL;
		if (op->attr[a].kind == AX_ATTR_SIZE)
			sattr[a] = k < nvals ? vals[k++] : NULL;
	}
	if (k != nvals)
		fe_error(fe, loc, "the op '%s' must take %d size attributes for this syntax", op->name, nvals);
}

/* ---- x[...] ---- */

/* A bound of a range along an axis of size d, as NumPy reads it: negative
 * counts from the end, past an end clips to it.  NULL when v is left out. */
static Term *
range_bound(Fe *fe, Val v, Term *d, AxLoc loc)
{
	TermCtx *tc = fe->tc;
	if (v.k == V_NONE)
		return NULL;
	if (v.k != V_SIZE)
		fe_error(fe, loc, "range bounds must be integers or sizes, got %s", v.k == V_REAL ? "a float" : "another value");
	Term *b = v.t, *zero = t_int(tc, 0);
	int neg = fe_proves(fe, t_bin(tc, TK_LT, b, zero));
	if (!neg)   /* a size expression of unknown sign is read as written: it must not be negative */
		fe_need(fe, fe_lin_le(fe, zero, b, 0), loc);
	if (!neg) {
		if (fe_proves(fe, t_bin(tc, TK_LE, d, b)))
			return d;    /* past the end: clipped */
		fe_need(fe, fe_lin_le(fe, b, d, 0), loc);
		return fe_lin_norm(fe, b);
	}
	Term *w = fe_lin_norm(fe, t_bin(tc, TK_ADD, d, b));
	if (fe_proves(fe, t_bin(tc, TK_LE, w, zero)))
		return zero;     /* before the start: clipped */
	fe_need(fe, fe_lin_le(fe, zero, w, 0), loc);
	return w;
}

/* An integer index along an axis of size d, in [0, d): NumPy's negative
 * indices count from the end; one out of range for every size is an error. */
static Term *
int_index(Fe *fe, Val v, Term *d, int axis, AxLoc loc)
{
	TermCtx *tc = fe->tc;
	Term *b = v.t, *zero = t_int(tc, 0);
	int neg = fe_proves(fe, t_bin(tc, TK_LT, b, zero)), ok;
	if (!neg)
		fe_need(fe, fe_lin_le(fe, zero, b, 0), loc);
	Term *i = neg ? fe_lin_norm(fe, t_bin(tc, TK_ADD, d, b)) : fe_lin_norm(fe, b);
	ok = neg ? fe_need(fe, fe_lin_le(fe, zero, i, 0), loc) : fe_need(fe, fe_lin_le(fe, b, d, 1), loc);
	if (!ok)
		fe_error(fe, loc, "index %s is out of range for axis %d of size %s", t_infix(tc, b), axis, t_infix(tc, d));
	return i;
}

int
fe_index(Fe *fe, int node, PExpr *index, Val *subs, AxLoc loc)
{
	TermCtx *tc = fe->tc;
	int n = index->n, consuming = 0, ellipses = 0;
	for (int i = 0; i < n; i++) {
		Val v = subs[4 * i];
		if (v.k == V_NONE && v.b == -2)
			ellipses++;
		else if (!(v.k == V_NONE && v.b == 0))
			consuming++;
		if (v.k == V_TENSOR)
			fe_error(fe, index->v[i]->loc, "indexing with a tensor is not supported");
		if (v.k != V_NONE && v.k != V_SIZE)
			fe_error(fe, index->v[i]->loc, "an index must be an integer, a range a:b, None or '...'");
	}
	if (ellipses > 1)
		fe_error(fe, loc, "an index can only have a single '...'");
	int rank = fe->g->nodes[node].rank;
	if (consuming > rank)
		fe_error(fe, loc, "too many indices for a tensor of rank %d", rank);
	int ax = 0;
	for (int i = 0; i < n; i++) {
		Val v = subs[4 * i];
		AxLoc il = index->v[i]->loc;
		if (v.k == V_NONE && v.b == -2) {   /* ... */
			ax += rank - consuming;
			continue;
		}
		if (v.k == V_NONE && v.b == 0) {    /* None */
			int64_t at = ax;
			node = fe_apply(fe, fe_role(fe, "x[None]", il), &node, 1, &at, 1, NULL, il);
			ax++;
			continue;
		}
		int64_t at = ax;
		Term *dim = fe->g->nodes[node].dim[ax];
		if (v.k == V_SIZE) {                /* x[i]: a one-wide slice, then drop the axis */
			Term *start = int_index(fe, v, dim, ax, il);
			node = fe_slice(fe, node, ax, start, fe_lin_norm(fe, t_bin(tc, TK_ADD, start, t_int(tc, 1))), il);
			node = fe_apply(fe, fe_role(fe, "keepdims=False", il), &node, 1, &at, 1, NULL, il);
			continue;
		}
		/* a range */
		Val step = subs[4 * i + 3];
		int64_t st = 1;
		if (step.k != V_NONE && !fe_int_const(fe, step, &st))
			fe_error(fe, il, "a range step must be an integer constant");
		if (st == 0)
			fe_error(fe, il, "a range step cannot be zero");
		if (st < 0)
			fe_error(fe, il, "a range step below zero (reversal) is not supported");
		Term *start = range_bound(fe, subs[4 * i + 1], dim, il);
		Term *stop = range_bound(fe, subs[4 * i + 2], dim, il);
		if (!start)
			start = t_int(tc, 0);
		if (!stop)
			stop = dim;
		if (!fe_need(fe, fe_lin_le(fe, start, stop, 1), il)) {
			Val *sv = &subs[4 * i + 1];
			fe_error(fe, il, "the range %s:%s of axis %d (size %s) is empty (empty tensors are not supported)",
			         sv[0].k == V_SIZE ? t_infix(tc, sv[0].t) : "", sv[1].k == V_SIZE ? t_infix(tc, sv[1].t) : "", ax,
			         t_infix(tc, dim));
		}
		ax++;
		int whole = st == 1 && fe_proves(fe, t_bin(tc, TK_EQ, start, t_int(tc, 0))) &&
		            fe_proves(fe, t_bin(tc, TK_EQ, stop, dim));
		if (whole)
			continue;
		if (st == 1) {
			node = fe_slice(fe, node, (int)at, start, stop, il);
			continue;
		}
		Term *b[3] = { start, stop, t_int(tc, st) };
		Term *sattr[AX_MAXATTR];
		int op = fe_role(fe, "x[a:b:s]", il);
		role_attrs(fe, op, b, 3, sattr, il);
		node = fe_apply(fe, op, &node, 1, &at, 1, sattr, il);
	}
	return node;
}

/* node[..., start:stop, ...] along axis (step 1, start < stop). */
int
fe_slice(Fe *fe, int node, int axis, Term *start, Term *stop, AxLoc loc)
{
	Term *b[2] = { start, stop };
	Term *sattr[AX_MAXATTR];
	int op = fe_role(fe, "x[a:b]", loc);
	int64_t at = axis;
	role_attrs(fe, op, b, 2, sattr, loc);
	return fe_apply(fe, op, &node, 1, &at, 1, sattr, loc);
}

int
fe_reshape(Fe *fe, int node, Val *dims, int nd, AxLoc loc)
{
	AxNode *x = &fe->g->nodes[node];
	int r = x->rank;
	Term *nw[AX_MAXR];
	int infer = -1;
	if (nd > AX_MAXR)
		fe_error(fe, loc, "reshape to more than %d dimensions", AX_MAXR);
	for (int i = 0; i < nd; i++) {
		int64_t c;
		if (dims[i].k != V_SIZE)
			fe_error(fe, loc, "reshape dimensions must be integers or sizes");
		if (fe_int_const(fe, dims[i], &c) && c == -1) {
			if (infer >= 0)
				fe_error(fe, loc, "reshape can infer one dimension only");
			infer = i;
			nw[i] = NULL;
			continue;
		}
		nw[i] = dims[i].t;
	}
	/* the common prefix and suffix; what lies between is the change */
	int p = 0, q = 0;
	while (p < r && p < nd && nw[p] && fe_proves(fe, t_bin(fe->tc, TK_EQ, x->dim[p], nw[p])))
		p++;
	while (q < r - p && q < nd - p && nw[nd - 1 - q] &&
	       fe_proves(fe, t_bin(fe->tc, TK_EQ, x->dim[r - 1 - q], nw[nd - 1 - q])))
		q++;
	int mo = r - p - q, mn = nd - p - q;
	int64_t at = p;
	if ((mo == 0 && mn == 0) || (mo == 1 && mn == 1 && !nw[p]))   /* X.reshape(-1, N) of [M, N]: itself */
		return node;
	if (mo == 1 && mn == 2) {   /* split one axis into (outer, inner) */
		Term *outer = nw[p], *inner = nw[p + 1];
		if (!inner && !outer)
			fe_error(fe, loc, "reshape cannot infer two dimensions");
		if (!outer)
			outer = t_bin(fe->tc, TK_DIV, x->dim[p], inner);
		if (!inner)
			inner = t_bin(fe->tc, TK_DIV, x->dim[p], outer);
		Term *sizes[2] = { outer, inner }, *sattr[AX_MAXATTR];
		int op = fe_role(fe, "reshape-split", loc);
		role_attrs(fe, op, sizes, 2, sattr, loc);
		return fe_apply(fe, op, &node, 1, &at, 1, sattr, loc);
	}
	if (mo == 2 && mn == 1) {   /* merge two axes */
		int res = fe_apply(fe, fe_role(fe, "reshape-merge", loc), &node, 1, &at, 1, NULL, loc);
		if (nw[p] && !fe_proves(fe, t_bin(fe->tc, TK_EQ, nw[p], fe->g->nodes[res].dim[p])))
			fe_error(fe, loc, "reshape: %s x %s does not merge into %s", t_infix(fe->tc, x->dim[p]),
			         t_infix(fe->tc, x->dim[p + 1]), t_infix(fe->tc, nw[p]));
		return res;
	}
	if (mo == 0 && mn == 1 && nw[p] && fe_proves(fe, t_bin(fe->tc, TK_EQ, nw[p], t_int(fe->tc, 1))))
		return fe_apply(fe, fe_role(fe, "x[None]", loc), &node, 1, &at, 1, NULL, loc);
	if (mo == 1 && mn == 0 && fe_proves(fe, t_bin(fe->tc, TK_EQ, x->dim[p], t_int(fe->tc, 1))))
		return fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &at, 1, NULL, loc);
	fe_error(fe, loc, "reshape must split one axis in two, merge two adjacent axes, or insert or drop a size-1 axis");
}
