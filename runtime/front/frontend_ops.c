/*
 * frontend_ops.c — turning a call or a piece of Python syntax into a node.
 *
 * An op is instantiated from its generated tables alone: the ranks of its
 * ellipsis groups come from the operand ranks and the axes the program names
 * (`axis=`, swapaxes' two axes, the position of a slice or of None), size
 * attributes from slices and reshapes, the result shape from the op's
 * symbolic shape function.  Its preconditions are then proved for every size
 * the program admits (Z3): a needed equality of two sizes that does not
 * follow is a shape mismatch; a needed bound or divisibility (D >= 2 for
 * X[:, :D // 2], D % 2 == 0 for a reshape) becomes an assumption of the
 * program, recorded in the graph and checked when it runs.  A transpose is
 * made of exchanges of two axes (fe_transpose, at the end).
 */
#include <string.h>
#include "fe.h"

static Term *
simplify(Fe *fe, Term *t)
{
	return size_simplify(fe->smt, fe->tc, fe_size_hyp(fe), t);
}

/* A result dim as a size the program named, or as an operand's dim, when it
 * provably is one (Hkv * (Hq / Hkv) is Hq once Hq % Hkv == 0 is assumed). */
static Term *
simplest(Fe *fe, Term *t, const int *in, int nin)
{
	Term *l = fe_lin_norm(fe, t);   /* M - (M - 3) is 3 */
	if (t_size(l) < t_size(t))
		t = l;
	if (t->kind == TK_VAR || t->kind == TK_NUM)
		return t;
	for (int i = 0; i < fe->g->nsyms; i++) {
		Term *v = t_var(fe->tc, fe->g->syms[i], TS_INT);
		if (fe_proves(fe, t_bin(fe->tc, TK_EQ, t, v)))
			return v;
	}
	for (int o = 0; o < nin; o++)
		for (int d = 0; in[o] >= 0 && d < fe->g->nodes[in[o]].rank; d++) {
			Term *v = fe->g->nodes[in[o]].dim[d];
			if (t_size(v) < t_size(t) && fe_proves(fe, t_bin(fe->tc, TK_EQ, t, v)))
				return v;
		}
	return t;
}

/* Only sizes as the program named them, compared: no arithmetic on them. */
static int
plain(const Term *t)
{
	switch ((TermKind)t->kind) {
	case TK_VAR: case TK_NUM:
		return 1;
	case TK_MAX: case TK_MIN: case TK_LT: case TK_LE: case TK_EQ: case TK_NE: case TK_AND: case TK_OR: case TK_NOT:
		for (int i = 0; i < t->n; i++)
			if (!plain(t->a[i]))
				return 0;
		return 1;
	default:
		return 0;
	}
}

/* Every conjunct of an op's precondition must hold for all admitted sizes.
 * One that fails for some sizes is a shape mismatch when it only compares
 * sizes as named (K == N); one about arithmetic on sizes (D / 2 >= 1,
 * D % 2 == 0) becomes an assumption of the program; one that cannot hold at
 * all is a mismatch either way. */
static void
require(Fe *fe, Term *pre, const char *what, const char *shapes, AxLoc loc)
{
	if (pre->kind == TK_AND) {
		require(fe, pre->a[0], what, shapes, loc);
		require(fe, pre->a[1], what, shapes, loc);
		return;
	}
	if (fe_proves(fe, pre))
		return;
	Term *orig = pre;
	pre = simplify(fe, pre);
	char why[512];
	int possible = smt_satisfiable(fe->smt, t_bin(fe->tc, TK_AND, fe_size_hyp(fe), pre), why, sizeof why);
	if (!possible || plain(pre)) {
		if (shapes && (orig->kind == TK_OR || pre->kind == TK_OR))   /* a broadcasting condition */
			fe_error(fe, loc, "shape mismatch in %s: %s do not broadcast", what, shapes);
		if (shapes && pre->kind == TK_NUM)   /* literal sizes that cannot agree */
			fe_error(fe, loc, "shape mismatch in %s: %s do not fit together", what, shapes);
		fe_error(fe, loc, "shape mismatch in %s: needs %s", what, t_infix(fe->tc, pre->kind == TK_NUM ? orig : pre));
	}
	if (fe->g->nassume == 64)
		fe_error(fe, loc, "too many assumptions on sizes");
	fe->g->assume[fe->g->nassume++] = pre;
}

int
fe_scalar(Fe *fe, Term *value, AxLoc loc)
{
	int op = fe_role(fe, "scalar", loc);
	const AxOp *o = &fe->t->ops[op];
	Term *sattr[AX_MAXATTR] = { 0 };
	int k = -1;
	for (int a = 0; a < o->nattr; a++)
		if (o->attr[a].kind == AX_ATTR_FLOAT)
			k = a;
	if (o->nopnd != 0 || k < 0)
		fe_error(fe, loc, "the op for Python scalars ('%s') must take no operand and a float attribute", o->name);
	sattr[k] = t_toreal(fe->tc, value);
	return fe_apply(fe, op, NULL, 0, NULL, 0, sattr, loc);
}

int
fe_tensor(Fe *fe, Val v, AxLoc loc)
{
	if (v.k == V_TENSOR)
		return v.node;
	if (v.k == V_SIZE || v.k == V_REAL)
		return fe_scalar(fe, v.t, loc);
	fe_error(fe, loc, "expected a tensor or a number, got %s",
	         v.k == V_TUPLE ? "a tuple" : v.k == V_BOOL ? "a boolean" : v.k == V_NONE ? "None" : "a function or module");
}

/* Group ranks from the operand ranks and the axes: each run of named dims
 * in the first operand's pattern (or, when that has none, in the result's)
 * sits at the next axis; the groups take what lies between. */
static void
granks(Fe *fe, const AxOp *op, const int *rank, const int64_t *axes, int naxes, int *grank, AxLoc loc)
{
	const AxLayout *L = op->layout;
	for (int g = 0; g < AX_MAXGROUP; g++)
		grank[g] = 0;
	if (op->ngroups == 0)
		return;
	if (op->broadcast) {
		if (naxes)
			fe_error(fe, loc, "%s takes no axis", op->name);
		ax_infer_granks(L, rank, grank);
		return;
	}
	const signed char *pat = op->nopnd ? L->opnd[0].pat : L->out_pat;
	int npat = op->nopnd ? L->opnd[0].ndims : L->nout;
	int total = op->nopnd ? rank[0] : 0;
	int runs = 0;
	for (int k = 0; k < npat; k++)
		if (pat[k] < 0 && (k == 0 || pat[k - 1] >= 0))
			runs++;
	if (runs < naxes && op->nopnd) {   /* the named dims are in the result (expand_dims-like) */
		pat = L->out_pat;
		npat = L->nout;
		runs = 0;
		total = rank[0];
		for (int k = 0; k < npat; k++)
			if (pat[k] < 0 && (k == 0 || pat[k - 1] >= 0))
				runs++;
		int fixed = 0;
		for (int k = 0; k < npat; k++)
			fixed += pat[k] < 0;
		total += fixed;
	}
	int ng = 0;
	for (int k = 0; k < npat; k++)
		ng += pat[k] >= 0;
	if (naxes == 0 && ng == 1) {   /* one group: whatever the named dims leave */
		int fixed = 0, g = -1;
		for (int k = 0; k < npat; k++) {
			if (pat[k] < 0)
				fixed++;
			else
				g = pat[k];
		}
		grank[g] = total - fixed;
		if (grank[g] < 0)
			fe_error(fe, loc, "%s needs a tensor of rank %d or more, got rank %d", op->name, fixed, total);
		return;
	}
	if (naxes != runs)
		fe_error(fe, loc, "%s needs %d ax%s (axis=...), got %d", op->name, runs, runs == 1 ? "is" : "es", naxes);
	int pos = 0, run = 0, pending = -1;
	for (int k = 0; k < npat; k++) {
		if (pat[k] >= 0) {
			pending = pat[k];
			continue;
		}
		if (k == 0 || pat[k - 1] >= 0) {   /* a run starts: it sits at axes[run] */
			int64_t at = axes[run++];
			if (at < pos)
				fe_error(fe, loc, "%s: axes must be distinct and increasing here", op->name);
			if (pending >= 0)
				grank[pending] = (int)(at - pos);
			else if (at != pos)
				fe_error(fe, loc, "%s: axis %lld is out of place", op->name, (long long)at);
			pos = (int)at;
			pending = -1;
		}
		pos++;
	}
	if (pending >= 0)
		grank[pending] = total - pos;
	if (pos > total || (pending >= 0 && grank[pending] < 0))
		fe_error(fe, loc, "%s: axis out of range for a tensor of rank %d", op->name, rank[0]);
}

/* An op applied element by element: one group, each operand and the result exactly it
 * ([...] -> [...]), computing values. */
static int
elementwise(const AxOp *op)
{
	const AxLayout *L = op->layout;
	if (op->layout_only || op->nopnd == 0 || op->ngroups != 1 || L->nout != 1 || L->out_pat[0] != 0)
		return 0;
	for (int o = 0; o < op->nopnd; o++)
		if (L->opnd[o].ndims != 1 || L->opnd[o].pat[0] != 0)
			return 0;
	return 1;
}

/* node id is a constant (an op of no operand): it broadcasts as it is, never padded */
static int
is_constant(const AxGraph *g, int id)
{
	return g->nodes[id].op >= 0 && node_op(g, &g->nodes[id])->nopnd == 0;
}

int
fe_apply(Fe *fe, int opi, const int *in, int nin, const int64_t *axes, int naxes, Term *const *sattr, AxLoc loc)
{
	const AxOp *op = &fe->t->ops[opi];
	AxGraph *g = fe->g;
	int required = 0;
	for (int o = 0; o < op->nopnd; o++)
		required += !op->opnd[o].optional;
	if (nin < required || nin > op->nopnd)
		fe_error(fe, loc, "%s takes %d tensor argument%s, got %d", op->name, op->nopnd, op->nopnd == 1 ? "" : "s",
		         nin);
	AxNode n = { .op = opi, .nin = op->nopnd, .loc = fe->np_name ? fe->np_call : loc };   /* later stages point at the call */
	int rank[AX_MAXOPND], padded[AX_MAXOPND] = { 0 };
	int maxr = 0;
	for (int o = 0; o < nin && o < AX_MAXOPND; o++)
		if (in[o] >= 0 && g->nodes[in[o]].rank > maxr)
			maxr = g->nodes[in[o]].rank;
	/* NumPy's broadcasting prepends size-1 axes to the operands of lower rank: made explicit
	 * (x[None]) for every operand that is not a constant, so that a vector or a 0-d tensor
	 * beside a matrix is a row [1, N] or [1, 1], which a tile load can address; an
	 * elementwise op on vectors runs on rows [1, N], the axis dropped after (as @ treats
	 * vectors), and one on 0-d tensors on [1, 1] tiles, both axes dropped after */
	int zero_d = 0;   /* a 0-d operand that is no constant */
	int all_const = nin > 0;   /* an op of constants alone (np.sqrt(E // 4)): on [1, 1] too */
	for (int o = 0; o < nin && o < AX_MAXOPND; o++) {
		zero_d |= in[o] >= 0 && g->nodes[in[o]].rank == 0 && !is_constant(g, in[o]);
		all_const &= in[o] < 0 || is_constant(g, in[o]);
	}
	zero_d |= all_const && maxr == 0;
	int vec = (maxr == 1 || (maxr == 0 && zero_d)) && elementwise(op) && !naxes;
	if (nin <= AX_MAXOPND && ((op->broadcast && nin > 1 && maxr >= 2) || vec)) {
		int want = vec ? 2 : maxr;
		for (int o = 0; o < nin; o++) {
			padded[o] = in[o];
			const AxNode *x = in[o] >= 0 ? &g->nodes[in[o]] : NULL;
			if (!x || (is_constant(g, in[o]) && !(vec && all_const)))
				continue;
			int64_t at = 0;
			for (int r = x->rank; r < want; r++)
				padded[o] = fe_apply(fe, fe_role(fe, "x[None]", loc), &padded[o], 1, &at, 1, NULL, loc);
		}
		if (vec) {
			int64_t at = 0;
			int row = fe_apply(fe, opi, padded, nin, axes, naxes, sattr, loc);
			for (int r = maxr; r < 2; r++)
				row = fe_apply(fe, fe_role(fe, "keepdims=False", loc), &row, 1, &at, 1, NULL, loc);
			return row;
		}
		in = padded;
	}
	for (int o = 0; o < op->nopnd; o++) {
		n.in[o] = o < nin ? in[o] : -1;
		rank[o] = o < nin ? g->nodes[in[o]].rank : -1;
	}
	granks(fe, op, rank, axes, naxes, n.grank, loc);
	/* x[None] of a size-1 axis dropped at the same place is the tensor before the drop (a 0-d
	 * op's [1, 1] result made 0-d, then broadcast again) */
	if (nin == 1 && in[0] >= 0 && opi == fe_role(fe, "x[None]", loc) && !g->nodes[in[0]].inst &&
	    g->nodes[in[0]].op == fe_role(fe, "keepdims=False", loc) && g->nodes[in[0]].grank[0] == n.grank[0])
		return g->nodes[in[0]].in[0];
	for (int a = 0; a < op->nattr; a++) {
		n.sattr[a] = sattr ? sattr[a] : NULL;
		if (op->attr[a].kind != AX_ATTR_ENUM && !n.sattr[a])
			fe_error(fe, loc, "%s needs its attribute '%s'", op->name, op->attr[a].name);
	}
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		s.rank[o] = rank[o];
		for (int d = 0; d < rank[o]; d++)
			s.dim[o][d] = g->nodes[in[o]].dim[d];
	}
	memcpy(s.grank, n.grank, sizeof s.grank);
	memcpy(s.attr, n.attr, sizeof s.attr);
	memcpy(s.sattr, n.sattr, sizeof s.sattr);
	/* ranks first: the generated functions index dims by them */
	int want_ok = 1;
	for (int o = 0; o < op->nopnd && want_ok; o++) {
		if (rank[o] < 0)
			continue;
		int want = 0, groups_here = 0;
		for (int k = 0; k < op->opnd[o].ndims; k++) {
			int gg = op->opnd[o].pat[k];
			want += gg < 0 ? 1 : n.grank[gg];
			groups_here += gg >= 0;
		}
		if (op->broadcast ? rank[o] < op->opnd[o].nfixed : rank[o] != want)
			fe_error(fe, loc, "%s: operand '%s' %s cannot have rank %d here", op->name, op->opnd[o].name,
			         op->opnd[o].pattern, rank[o]);
		(void)groups_here;
	}
	Term *out[AX_MAXR];
	n.rank = ax_pos(op->layout, s.rank, s.grank, -1, op->layout->nout);
	if (n.rank > AX_MAXR)
		fe_error(fe, loc, "%s: the result would have rank %d (at most %d)", op->name, n.rank, AX_MAXR);
	n.rank = op->shape(fe->tc, &s, out);
	char what[96];
	snprintf(what, sizeof what, "%s", op->name);
	const char *shapes = NULL;
	if (op->broadcast && nin > 1) {   /* say which shapes, not which maxof */
		char buf[512];
		size_t k = 0;
		for (int o = 0; o < nin && k < sizeof buf - 64; o++) {
			k += (size_t)snprintf(buf + k, sizeof buf - k, "%s[", o == 0 ? "" : o + 1 == nin ? " and " : ", ");
			for (int d = 0; d < rank[o] && k < sizeof buf - 64; d++)
				k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", d ? ", " : "",
				                      t_infix(fe->tc, g->nodes[in[o]].dim[d]));
			k += (size_t)snprintf(buf + k, sizeof buf - k, "]");
		}
		shapes = arena_strdup(fe->a, buf);
	}
	require(fe, op->pre(fe->tc, &s), what, shapes, loc);
	for (int d = 0; d < n.rank; d++)   /* after require: its assumptions help */
		n.dim[d] = simplest(fe, simplify(fe, out[d]), in, nin);
	int id = graph_add(g, &n);
	fe_mark_mask(fe, id, loc);
	return id;
}

/* a @ b with NumPy's rules for vectors: a rank-1 operand becomes a matrix
 * with a size-1 axis (before its axis on the left, after it on the right),
 * and that axis is dropped from the result: X @ v is [M], v @ X is [N],
 * v @ w is 0-d, and batches broadcast as usual. */
int
fe_matmul(Fe *fe, int opi, int a, int b, AxLoc loc)
{
	int ra = fe->g->nodes[a].rank, rb = fe->g->nodes[b].rank;
	if (ra == 0 || rb == 0)
		fe_error(fe, loc, "%s of a rank-0 tensor: NumPy refuses scalars here (use * to scale)",
		         fe->t->ops[opi].name);
	int64_t at;
	if (ra == 1) {
		at = 0;
		a = fe_apply(fe, fe_role(fe, "x[None]", loc), &a, 1, &at, 1, NULL, loc);
	}
	if (rb == 1) {
		at = 1;
		b = fe_apply(fe, fe_role(fe, "x[None]", loc), &b, 1, &at, 1, NULL, loc);
	}
	int in[2] = { a, b };
	int node = fe_apply(fe, opi, in, 2, NULL, 0, NULL, loc);
	int r = fe->g->nodes[node].rank;
	if (rb == 1) {
		at = --r;
		node = fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &at, 1, NULL, loc);
	}
	if (ra == 1) {
		at = r - 1 - (rb != 1);
		node = fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &at, 1, NULL, loc);
	}
	return node;
}

/* np.outer(a, b) of two vectors: a[:, None] * b[None, :] */
int
fe_outer(Fe *fe, int a, int b, AxLoc loc)
{
	if (fe->g->nodes[a].rank != 1 || fe->g->nodes[b].rank != 1)
		fe_error(fe, loc, "np.outer of a rank-%d and a rank-%d tensor: NumPy flattens them first, which is not "
		         "supported (vectors are)", fe->g->nodes[a].rank, fe->g->nodes[b].rank);
	int64_t one = 1, zero = 0;
	int in[2] = { fe_apply(fe, fe_role(fe, "x[None]", loc), &a, 1, &one, 1, NULL, loc),
		          fe_apply(fe, fe_role(fe, "x[None]", loc), &b, 1, &zero, 1, NULL, loc) };
	return fe_apply(fe, fe_role(fe, "*", loc), in, 2, NULL, 0, NULL, loc);
}

/* op along the one axis of a vector x, on the row [1, N] (tiles are 2-D; as elementwise
 * ops on vectors run), that row axis dropped after: what the op gives on x itself, [N] for
 * a scan, for a reduction (*reduced = 1) [1] with keep == 1, else NumPy's 0-d result */
static int
along_vector(Fe *fe, int opi, int x, int keep, int *reduced, AxLoc loc)
{
	int64_t zero = 0, one = 1, kept[AX_MAXR];
	int row = fe_apply(fe, fe_role(fe, "x[None]", loc), &x, 1, &zero, 1, NULL, loc);
	int node = fe_apply(fe, opi, &row, 1, &one, 1, NULL, loc);
	*reduced = fe_kept_axes(fe, &fe->g->nodes[node], kept) > 0;
	node = fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &zero, 1, NULL, loc);
	if (*reduced && keep != 1)
		node = fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &zero, 1, NULL, loc);
	return node;
}

/* np.sum(x, axis=(0, 2)): the op along each axis given (sorted, distinct), the last first
 * (keeping each as size 1), then, without keepdims=True, those axes dropped.  Only for an op
 * that reduces (its result keeps the axis as 1): a sum, mean or max over several axes is
 * the same op over each in turn. */
static int
reduce_axes(Fe *fe, int opi, int x, const int64_t *axes, int naxes, int keep, int tuple, AxLoc loc)
{
	const AxOp *op = &fe->t->ops[opi];
	int node = x;
	for (int k = naxes - 1; k >= 0; k--) {   /* the last axis first, as NumPy walks memory */
		int64_t ax = axes[k];
		node = fe_apply(fe, opi, &node, 1, &ax, 1, NULL, loc);
		int64_t kept[AX_MAXR];
		if (fe_kept_axes(fe, &fe->g->nodes[node], kept) == 0) {
			if (tuple)
				fe_error(fe, loc, "%s takes one integer axis, not a tuple (as in NumPy)", op->name);
			fe_error(fe, loc, "%s without an axis works on the flattened tensor in NumPy, which is not supported: "
			         "give axis=", op->name);
		}
	}
	if (keep != 1)
		for (int k = naxes - 1; k >= 0; k--) {
			int64_t ax = axes[k];
			node = fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &ax, 1, NULL, loc);
		}
	return node;
}

/* np.sum(x) with axis=None: the op along every axis (reduce_axes), NumPy's 0-d result without
 * keepdims=True; a scan of a vector is the scan (flattening changes nothing). */
static int
reduce_all(Fe *fe, int opi, int x, int keep, AxLoc loc)
{
	const AxOp *op = &fe->t->ops[opi];
	int r = fe->g->nodes[x].rank;
	if (r == 0)
		fe_error(fe, loc, "%s of a rank-0 tensor is not supported", op->name);
	if (r == 1) {   /* a scan of a vector too: flattening changes nothing */
		int reduced;
		return along_vector(fe, opi, x, keep, &reduced, loc);
	}
	int64_t all[AX_MAXR];
	for (int k = 0; k < r; k++)
		all[k] = k;
	return reduce_axes(fe, opi, x, all, r, keep, 0, loc);
}

int
fe_op_folds(const AxOp *op)
{
	return op->nopnd == 2 && !op->broadcast && op->layout->nout == op->opnd[0].ndims &&
	       op->opnd[1].ndims == op->opnd[0].ndims;
}

int
fe_call_op(Fe *fe, int opi, Val *args, int nargs, FeKw *kw, int nkw, AxLoc loc)
{
	const AxOp *op = &fe->t->ops[opi];
	if (ax_has_role(op, "@") && nargs == 2 && nkw == 0 && args[0].k == V_TENSOR && args[1].k == V_TENSOR)
		return fe_matmul(fe, opi, args[0].node, args[1].node, loc);   /* np.matmul(X, v) as X @ v */
	int in[AX_MAXOPND], nin = 0;
	int64_t axes[AX_MAXR] = { 0 };
	int naxes = 0, keep = -1, i = 0;
	/* tensors: a list spreads into operands (np.concatenate([a, b])); pieces
	 * past the op's operands are folded in one at a time (see below) */
	int more[256], nmore = 0, list = nargs > 0 && args[0].k == V_TUPLE;
	if (list) {
		if (args[0].n == 0)
			fe_error(fe, loc, "%s of an empty list: NumPy needs at least one tensor", op->name);
		for (int k = 0; k < args[0].n; k++) {
			int t = fe_tensor(fe, args[0].v[k], loc);
			if (nin < op->nopnd)
				in[nin++] = t;
			else if (nmore < 256)
				more[nmore++] = t;
			else
				fe_error(fe, loc, "too many tensors (at most %d)", 256 + op->nopnd);
		}
		i = 1;
	} else {
		for (; i < nargs && nin < op->nopnd; i++)   /* the rest are axes: np.swapaxes(x, 0, 1) */
			in[nin++] = fe_tensor(fe, args[i], loc);
	}
	int r0 = nin ? fe->g->nodes[in[0]].rank : 0;
	int all_axes = 0;   /* axis=None */
	AxLoc none_loc = loc, tuple_loc = { 0 };   /* tuple_loc.file: axis= a tuple */
	for (; i < nargs; i++) {
		int64_t a;
		if (args[i].k == V_NONE && i + 1 == nargs && !naxes) {   /* np.sum(x, None) */
			all_axes = 1;
			continue;
		}
		if (args[i].k == V_TENSOR || args[i].k == V_REAL)
			fe_error(fe, loc, "%s takes %d tensor argument%s, got %d", op->name, op->nopnd, op->nopnd == 1 ? "" : "s",
			         nargs);
		if (!fe_int_const(fe, args[i], &a))
			fe_error(fe, loc, "%s: extra argument %d must be an integer axis", op->name, i + 1);
		if (naxes == AX_MAXR)
			fe_error(fe, loc, "too many axes");
		axes[naxes++] = a;
	}
	for (int k = 0; k < nkw; k++) {
		if (strcmp(kw[k].name, "axis") == 0) {
			int64_t a;
			if (naxes || all_axes)
				fe_error(fe, kw[k].loc, "the axis is given twice");
			if (kw[k].v.k == V_NONE) {
				all_axes = 1;
				none_loc = kw[k].loc;
				continue;
			}
			if (kw[k].v.k == V_TUPLE) {   /* axis=(0, 2): a reduction over each, below */
				if (kw[k].v.n == 0 || kw[k].v.n > AX_MAXR)
					fe_error(fe, kw[k].loc, "axis= must name 1 to %d axes", AX_MAXR);
				for (int j = 0; j < kw[k].v.n; j++) {
					if (!fe_int_const(fe, kw[k].v.v[j], &a))
						fe_error(fe, kw[k].loc, "axis= must be integer constants");
					axes[naxes++] = a;
				}
				if (naxes > 1)   /* one axis in a tuple is that axis */
					tuple_loc = kw[k].loc;
				continue;
			}
			if (!fe_int_const(fe, kw[k].v, &a))
				fe_error(fe, kw[k].loc, "axis= must be an integer constant");
			axes[naxes++] = a;
		} else if (strcmp(kw[k].name, "keepdims") == 0) {
			if (kw[k].v.k != V_BOOL)
				fe_error(fe, kw[k].loc, "keepdims= must be True or False");
			keep = kw[k].v.b;
		} else
			fe_error(fe, kw[k].loc, "%s: unsupported keyword argument '%s'", op->name, kw[k].name);
	}
	/* no axis where the op needs one: NumPy's default, axis=None for a
	 * function of one tensor (every axis), axis=0 for one of a list */
	int runs0 = 0;
	for (int k = 0; op->nopnd && k < op->layout->opnd[0].ndims; k++)
		runs0 += op->layout->opnd[0].pat[k] < 0 && (k == 0 || op->layout->opnd[0].pat[k - 1] >= 0);
	if (!naxes && !all_axes && runs0 == 1 && !op->broadcast && nargs > 0 && args[0].k == V_TUPLE)
		axes[naxes++] = 0;
	else if (!naxes && runs0 == 1 && !op->broadcast && nin == 1 && !op->layout_only)
		all_axes = 1;
	if (all_axes) {
		if (nin != 1 || op->layout_only || op->broadcast || runs0 != 1)
			fe_error(fe, none_loc, "%s: axis=None is not supported here (it is for reductions of one tensor)", op->name);
		return reduce_all(fe, opi, in[0], keep, loc);
	}
	if (tuple_loc.file) {   /* axis=(a, b, ...): the op over each, for reductions of one tensor */
		if (nin != 1 || op->layout_only || op->broadcast || runs0 != 1)
			fe_error(fe, tuple_loc, "%s: a tuple of axes is for reductions of one tensor", op->name);
		for (int k = 0; k < naxes; k++)
			axes[k] = fe_norm_axis(fe, axes[k], r0, tuple_loc);
		for (int k = 1; k < naxes; k++)
			for (int j = k; j > 0 && axes[j - 1] > axes[j]; j--) {
				int64_t tmp = axes[j];
				axes[j] = axes[j - 1];
				axes[j - 1] = tmp;
			}
		for (int k = 1; k < naxes; k++)
			if (axes[k] == axes[k - 1])
				fe_error(fe, tuple_loc, "axis %lld is given twice (NumPy: duplicate value in 'axis')",
				         (long long)axes[k]);
		return reduce_axes(fe, opi, in[0], axes, naxes, keep, 1, loc);
	}
	/* axes count from the first operand, or from the result for an op whose
	 * named dims exist only in its result */
	int extra = 0;
	if (nin && naxes) {
		int runs_in = 0;
		const signed char *pat = op->layout->opnd[0].pat;
		for (int k = 0; k < op->layout->opnd[0].ndims; k++)
			runs_in += pat[k] < 0 && (k == 0 || pat[k - 1] >= 0);
		if (runs_in < naxes)
			extra = 1;
	}
	for (int k = 0; k < naxes; k++)
		axes[k] = fe_norm_axis(fe, axes[k], r0 + extra, loc);
	for (int k = 1; k < naxes; k++)   /* swapaxes(x, 2, 1) is swapaxes(x, 1, 2) */
		for (int j = k; j > 0 && axes[j - 1] > axes[j]; j--) {
			int64_t tmp = axes[j];
			axes[j] = axes[j - 1];
			axes[j - 1] = tmp;
		}
	if (naxes == 2 && nin == 1 && op->layout_only && ax_has_role(op, ".T")) {
		if (axes[0] == axes[1])   /* np.swapaxes(x, a, a): nothing moves */
			return in[0];
		if (r0 > 2 && axes[1] == r0 - 1 && axes[0] < r0 - 2) {   /* a loop axis with the last: by fe_transpose */
			int64_t perm[AX_MAXR];
			for (int k = 0; k < r0; k++)
				perm[k] = k == axes[0] ? axes[1] : k == axes[1] ? axes[0] : k;
			return fe_transpose(fe, in[0], perm, r0, loc);
		}
	}
	/* a list op of two operands whose result has their rank (concatenate)
	 * is a fold over the list: [a, b, c] is op(op(a, b), c), [a] is a */
	int folds = list && fe_op_folds(op);
	if (list && (nmore || nin < op->nopnd) && !folds)
		fe_error(fe, loc, "%s takes %d tensor argument%s, got %d", op->name, op->nopnd, op->nopnd == 1 ? "" : "s",
		         nin + nmore);
	if (nin == 1 && folds)
		return in[0];
	int vectors = folds && r0 == 1 && naxes == 1 && axes[0] == 0;
	for (int k = 0; k < nin + nmore && vectors; k++)
		vectors = fe->g->nodes[k < nin ? in[k] : more[k - nin]].rank == 1;
	if (vectors) {   /* vectors joined: as rows [1, N] along their axis, the row's axis dropped after */
		int64_t zero = 0, one = 1;
		for (int k = 0; k < nin + nmore; k++) {
			int *x = k < nin ? &in[k] : &more[k - nin];
			*x = fe_apply(fe, fe_role(fe, "x[None]", loc), x, 1, &zero, 1, NULL, loc);
		}
		int node = fe_apply(fe, opi, in, nin, &one, 1, NULL, loc);
		for (int k = 0; k < nmore; k++) {
			int pair[2] = { node, more[k] };
			node = fe_apply(fe, opi, pair, 2, &one, 1, NULL, loc);
		}
		return fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &zero, 1, NULL, loc);
	}
	if (nin == 1 && !nmore && naxes == 1 && r0 == 1 && op->nopnd == 1 && runs0 == 1 && !op->layout_only &&
	    !op->broadcast) {   /* along a vector: on its row */
		int reduced, node = along_vector(fe, opi, in[0], keep, &reduced, loc);
		if (keep >= 0 && !reduced)
			fe_error(fe, loc, "%s does not reduce: keepdims= does not apply", op->name);
		return node;
	}
	int node = fe_apply(fe, opi, in, nin, axes, naxes, NULL, loc);
	for (int k = 0; k < nmore; k++) {
		int pair[2] = { node, more[k] };
		node = fe_apply(fe, opi, pair, 2, axes, naxes, NULL, loc);
	}
	int64_t kept[AX_MAXR];
	int nkept = op->nopnd && !op->layout_only ? fe_kept_axes(fe, &fe->g->nodes[node], kept) : 0;
	int reduces = nkept > 0;
	if (keep >= 0 && !reduces)
		fe_error(fe, loc, "%s does not reduce: keepdims= does not apply", op->name);
	if (reduces && keep != 1)   /* NumPy's default drops the reduced axis */
		for (int k = nkept - 1; k >= 0; k--) {
			int64_t at = kept[k];
			node = fe_apply(fe, fe_role(fe, "keepdims=False", loc), &node, 1, &at, 1, NULL, loc);
		}
	return node;
}

/* np.swapaxes(node, i, j), cur (the source axis at each place) updated */
static int
swap_axes(Fe *fe, int node, int64_t *cur, int i, int j, AxLoc loc)
{
	int64_t ax[2] = { i, j }, t = cur[i];
	cur[i] = cur[j];
	cur[j] = t;
	return fe_apply(fe, fe_role(fe, ".T", loc), &node, 1, ax, 2, NULL, loc);
}

int
fe_transpose(Fe *fe, int node, const int64_t *perm, int n, AxLoc loc)
{
	int64_t cur[AX_MAXR], want[AX_MAXR];
	int seen[AX_MAXR] = { 0 };
	for (int i = 0; i < n; i++) {
		want[i] = fe_norm_axis(fe, perm[i], n, loc);
		if (seen[want[i]]++)
			fe_error(fe, loc, "transpose axes repeat axis %lld", (long long)want[i]);
		cur[i] = i;
	}
	/* Position i receives axis want[i], by swaps.  An exchange of the last two axes is a
	 * transpose on chip; any other swap of a tensor of rank > 2 is a view, which a transfer
	 * addresses in place only while the last axis stays last (else the tile's two axes would
	 * come in the other order).  So the axis bound for the last place goes there first, by one
	 * transpose from the place before it, and the rest are swaps among the places before. */
	int last = n - 1;
	if (n > 2 && want[last] != last) {
		int j = 0;
		while (cur[j] != want[last])
			j++;
		if (j != last - 1)
			node = swap_axes(fe, node, cur, j, last - 1, loc);
		node = swap_axes(fe, node, cur, last - 1, last, loc);
	}
	for (int i = 0; i < n; i++) {
		int j = i;
		while (cur[j] != want[i])
			j++;
		if (j != i)
			node = swap_axes(fe, node, cur, i, j, loc);
	}
	return node;
}
