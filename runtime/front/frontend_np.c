/*
 * frontend_np.c — NumPy's functions that are no op of the specs by name: the spellings the
 * front end writes as other ops (np.transpose, np.outer, np.reshape, np.dot, np.stack,
 * np.split, np.float32), and an op of the specs applied to a number known in the program,
 * folded to the number Python computes.  Names no op: a joining op is found by its layout,
 * a fold by the scalar fn its element equation applies.
 */
#include <math.h>
#include <string.h>
#include "fe.h"

/* np.transpose / x.transpose: rank 2 without axes, or a permutation. */
Val
fe_np_transpose(Fe *fe, Val *args, int nargs, AxLoc loc)
{
	if (nargs < 1 || args[0].k != V_TENSOR)
		fe_error(fe, loc, "transpose needs a tensor");
	int x = args[0].node;
	int r = fe->g->nodes[x].rank;
	int64_t perm[AX_MAXR];
	if (nargs == 1) {
		for (int i = 0; i < r; i++)
			perm[i] = r - 1 - i;
	} else {
		Val *p = args + 1;
		int np_ = nargs - 1;
		if (np_ == 1 && args[1].k == V_TUPLE) {
			p = args[1].v;
			np_ = args[1].n;
		}
		if (np_ != r)
			fe_error(fe, loc, "transpose of a rank-%d tensor needs %d axes, got %d", r, r, np_);
		for (int i = 0; i < r; i++)
			if (!fe_int_const(fe, p[i], &perm[i]))
				fe_error(fe, loc, "transpose axes must be integer constants");
	}
	return (Val){ .k = V_TENSOR, .node = fe_transpose(fe, x, perm, r, loc) };
}

static Term *
number_access(TermCtx *c, void *env, int o, Term *const *idx, int n)
{
	(void)c, (void)o, (void)idx, (void)n;
	return env;
}

/* An op of one operand whose element equation is a scalar fn of it (out = sqrt(a)), applied to
 * a number known here (np.sqrt(2.0 / np.pi)): the fn's reference value in double, what Python
 * computes, as a constant; NULL for anything else (a size name, another equation). */
static Term *
fold_number(Fe *fe, const AxOp *op, Val v, AxLoc loc)
{
	double x;
	if (op->nopnd != 1 || op->nattr || (v.k != V_SIZE && v.k != V_REAL) || t_eval(v.t, NULL, &x) != 0)
		return NULL;
	AxSym s = { .rank = { 0 }, .access = number_access, .env = t_toreal(fe->tc, v.t) };
	Term *e = op->enc(fe->tc, &s, NULL);
	double a;
	if (!e || e->kind != TK_CALL || e->n != 1 || e->id >= fe->t->nfns || !fe->t->fns[e->id].ref ||
	    t_eval(e->a[0], NULL, &a) != 0)
		return NULL;
	double y = fe->t->fns[e->id].ref(&a);
	if (!isfinite(y))
		fe_error(fe, loc, "%s(%g) is no finite number", op->name, x);
	return fe_double_literal(fe, y, loc);
}

/* The axis of np.stack / np.split: positional argument `at` (when given) or axis=, an integer
 * constant, nothing else as a keyword; 0 when neither. */
static int64_t
axis_arg(Fe *fe, const char *name, Val *args, int nargs, int at, FeKw *kw, int nkw, AxLoc loc)
{
	int64_t axis = 0;
	if (nargs > at && !fe_int_const(fe, args[at], &axis))
		fe_error(fe, loc, "np.%s: the axis must be an integer constant", name);
	for (int k = 0; k < nkw; k++)
		if (strcmp(kw[k].name, "axis") != 0 || nargs > at || !fe_int_const(fe, kw[k].v, &axis))
			fe_error(fe, kw[k].loc, "np.%s takes axis= (an integer constant) and nothing else", name);
	return axis;
}

/* np.NAME(args) written here (1, the value in *out), or 0 for call_np's other ways. */
int
fe_np_spelling(Fe *fe, const char *name, Val *args, int nargs, FeKw *kw, int nkw, AxLoc loc, Val *out)
{
	if (strcmp(name, "transpose") == 0 && nkw == 1 && strcmp(kw[0].name, "axes") == 0 && nargs == 1) {
		Val a[2] = { args[0], kw[0].v };   /* np.transpose(x, axes=(1, 0)) */
		return *out = fe_np_transpose(fe, a, 2, loc), 1;
	}
	if ((strcmp(name, "transpose") == 0 || strcmp(name, "reshape") == 0) && nkw)
		fe_error(fe, kw[0].loc, "%s takes no keyword arguments here", name);
	if (strcmp(name, "transpose") == 0)
		return *out = fe_np_transpose(fe, args, nargs, loc), 1;
	if (strcmp(name, "astype") == 0) {   /* x.astype(np.float32): tensors are float32 already */
		if (nkw || nargs != 2 || args[0].k != V_TENSOR)
			fe_error(fe, loc, "astype takes one dtype");
		if (args[1].k != V_NPFN || args[1].b || strcmp(args[1].name, "float32") != 0)
			fe_error(fe, loc, "astype to other than np.float32 is not supported (tensors are float32)");
		return *out = args[0], 1;
	}
	if (strcmp(name, "outer") == 0) {
		if (nkw)
			fe_error(fe, kw[0].loc, "outer takes no keyword arguments here");
		if (nargs != 2 || args[0].k != V_TENSOR || args[1].k != V_TENSOR)
			fe_error(fe, loc, "np.outer needs two tensors");
		return *out = (Val){ .k = V_TENSOR, .node = fe_outer(fe, args[0].node, args[1].node, loc) }, 1;
	}
	if (strcmp(name, "float32") == 0 || strcmp(name, "float64") == 0) {   /* np.float32(D): the number */
		if (nkw || nargs != 1)
			fe_error(fe, loc, "np.%s takes one number", name);
		if (args[0].k == V_SIZE || args[0].k == V_REAL)
			return *out = (Val){ .k = V_REAL, .t = t_toreal(fe->tc, args[0].t) }, 1;
		if (args[0].k == V_TENSOR && strcmp(name, "float32") == 0)
			return *out = args[0], 1;   /* tensors are float32 already */
		fe_error(fe, loc, "np.%s of %s is not supported (tensors are float32)", name, fe_vkind_name(args[0].k));
	}
	if (strcmp(name, "stack") == 0) {   /* np.stack(ts, axis=a): each given a size-1 axis at a, then joined */
		if (nargs < 1 || nargs > 2 || args[0].k != V_TUPLE || args[0].n < 1 || args[0].n > 64)
			fe_error(fe, loc, "np.stack takes a list or tuple of 1 to 64 tensors");
		int64_t axis = axis_arg(fe, name, args, nargs, 1, kw, nkw, loc);
		Val *parts = arena_alloc(fe->a, sizeof *parts * (size_t)args[0].n);
		int r = -1;
		for (int k = 0; k < args[0].n; k++) {
			int x = fe_tensor(fe, args[0].v[k], loc);
			if (r >= 0 && fe->g->nodes[x].rank != r)
				fe_error(fe, loc, "np.stack: all tensors must have the same shape");
			r = fe->g->nodes[x].rank;
			if (k == 0)
				axis = fe_norm_axis(fe, axis, r + 1, loc);
			parts[k] = (Val){ .k = V_TENSOR, .node = fe_apply(fe, fe_role(fe, "x[None]", loc), &x, 1, &axis, 1, NULL, loc) };
		}
		int cat = -1;
		for (int i = 0; i < fe->t->nops && cat < 0; i++)   /* the op that joins a list along an axis */
			if (ax_has_role(&fe->t->ops[i], "np") && fe->t->ops[i].layout_only && fe_op_folds(&fe->t->ops[i]))
				cat = i;
		if (cat < 0)
			fe_error(fe, loc, "np.stack: no op of the specs joins tensors along an axis");
		Val list = { .k = V_TUPLE, .n = args[0].n, .v = parts }, ax = { .k = V_SIZE, .t = t_int(fe->tc, axis) };
		Val cargs[2] = { list, ax };
		return *out = (Val){ .k = V_TENSOR, .node = fe_call_op(fe, cat, cargs, 2, NULL, 0, loc) }, 1;
	}
	if (strcmp(name, "split") == 0) {   /* np.split(x, n, axis=a): n same-size pieces, as NumPy requires */
		int64_t n;
		if (nargs < 2 || nargs > 3 || args[0].k != V_TENSOR || !fe_int_const(fe, args[1], &n) || n < 1)
			fe_error(fe, loc, "np.split takes a tensor and a number of same-size pieces (a list of indices is not supported)");
		int64_t axis = axis_arg(fe, name, args, nargs, 2, kw, nkw, loc);
		int x = args[0].node;
		if (n > 64)
			fe_error(fe, loc, "np.split into %lld pieces: at most 64", (long long)n);
		axis = fe_norm_axis(fe, axis, fe->g->nodes[x].rank, loc);
		TermCtx *tc = fe->tc;
		Term *dim = fe->g->nodes[x].dim[axis], *piece = fe_lin_norm(fe, t_bin(tc, TK_DIV, dim, t_int(tc, n)));
		if (!fe_need(fe, t_bin(tc, TK_EQ, t_bin(tc, TK_MUL, t_int(tc, n), piece), dim), loc))
			fe_error(fe, loc, "np.split: axis %lld (size %s) never splits into %lld same-size pieces", (long long)axis,
			         t_infix(tc, dim), (long long)n);
		double pv;
		if (t_eval(piece, NULL, &pv) == 0)   /* a literal size: its pieces' sizes literal too */
			piece = t_int(tc, (int64_t)pv);
		Val *v = arena_alloc(fe->a, sizeof *v * (size_t)n);
		for (int64_t k = 0; k < n; k++) {
			Term *start = fe_lin_norm(fe, t_bin(tc, TK_MUL, t_int(tc, k), piece));
			Term *stop = fe_lin_norm(fe, t_bin(tc, TK_MUL, t_int(tc, k + 1), piece));
			v[k] = (Val){ .k = V_TENSOR, .node = n == 1 ? x : fe_slice(fe, x, (int)axis, start, stop, loc) };
		}
		return *out = (Val){ .k = V_TUPLE, .n = (int)n, .v = v }, 1;
	}
	if (strcmp(name, "dot") == 0) {   /* np.dot is @ for vectors and matrices, another contraction past */
		if (nkw)
			fe_error(fe, kw[0].loc, "dot takes no keyword arguments here");
		if (nargs != 2 || args[0].k != V_TENSOR || args[1].k != V_TENSOR)
			fe_error(fe, loc, "np.dot needs two tensors (a number scales: write *)");
		if (fe->g->nodes[args[0].node].rank > 2 || fe->g->nodes[args[1].node].rank > 2)
			fe_error(fe, loc, "np.dot of a tensor of rank above 2 sums over the last axis of one and the "
			         "second-to-last of the other, all other axes kept; not supported: @ (np.%s) batches",
			         fe->t->ops[fe_role(fe, "@", loc)].name);   /* the op that plays @, named by its spec */
		int mm = fe_matmul(fe, fe_role(fe, "@", loc), args[0].node, args[1].node, loc);
		return *out = (Val){ .k = V_TENSOR, .node = mm }, 1;
	}
	if (strcmp(name, "reshape") == 0) {
		if (nargs < 2 || args[0].k != V_TENSOR)
			fe_error(fe, loc, "reshape needs a tensor and a shape");
		if (nargs == 2 && args[1].k == V_TUPLE)
			return *out = (Val){ .k = V_TENSOR, .node = fe_reshape(fe, args[0].node, args[1].v, args[1].n, loc) },
			       1;
		return *out = (Val){ .k = V_TENSOR, .node = fe_reshape(fe, args[0].node, args + 1, nargs - 1, loc) }, 1;
	}
	const AxOp *op = ax_find_op(fe->t, name);
	Term *folded = op && ax_has_role(op, "np") && nargs == 1 && !nkw ? fold_number(fe, op, args[0], loc) : NULL;
	if (folded)
		return *out = (Val){ .k = V_REAL, .t = folded }, 1;
	return 0;
}
