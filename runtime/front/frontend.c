/*
 * frontend.c — the NumPy subset to a tensor graph (values, statements, calls).
 *
 * A program is analysed by abstract interpretation over symbolic values: a
 * tensor is a graph node with a symbolic shape, a size is an integer term
 * (X.shape[0], D // 2), a scalar is a real term (1e-6, a parameter with a
 * float default).  Python operators and np functions become nodes of the
 * spec'd ops: np.NAME and x.NAME() by the op's name, operators and syntax
 * by the role an op declares (`python "+"` in specs/), so this file names
 * no op.  Helper functions are inlined at each call.  The first error stops
 * the analysis with file:line:col and a caret.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fe.h"

typedef struct Scope {
	int n, cap;
	const char **names;
	Val *vals;
} Scope;

static void
bind(Fe *fe, Scope *s, const char *name, Val v)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0) {
			s->vals[i] = v;
			return;
		}
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		const char **nn = arena_alloc(fe->a, sizeof *nn * (size_t)cap);
		Val *nv = arena_alloc(fe->a, sizeof *nv * (size_t)cap);
		if (s->n) {
			memcpy(nn, s->names, sizeof *nn * (size_t)s->n);
			memcpy(nv, s->vals, sizeof *nv * (size_t)s->n);
		}
		s->names = nn;
		s->vals = nv;
		s->cap = cap;
	}
	s->names[s->n] = name;
	s->vals[s->n++] = v;
}

static PFunc *
find_func(PFile *f, const char *name)
{
	for (int i = 0; i < f->nfuncs; i++)
		if (strcmp(f->funcs[i]->name, name) == 0)
			return f->funcs[i];
	return NULL;
}

static Val
lookup(Fe *fe, Scope *s, const char *name, AxLoc loc)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return s->vals[i];
	if (fe->file->np && strcmp(name, fe->file->np) == 0)
		return (Val){ .k = V_MODULE };
	if (fe->file->math && strcmp(name, fe->file->math) == 0)
		return (Val){ .k = V_MODULE, .b = 1 };
	PFunc *f = find_func(fe->file, name);
	if (f)
		return (Val){ .k = V_FUNC, .fn = f };
	fe_error(fe, loc, "undefined name '%s'", name);
}

static Val eval(Fe *fe, Scope *s, PExpr *e);
static Val run_func(Fe *fe, PFunc *f, Val *args, int nargs, FeKw *kw, int nkw, AxLoc loc);

/* Function name of the target's numpy.py (NumPy functions that are several ops, written in
 * NumPy), or NULL; the file is parsed at the first call. */
static PFunc *
numpy_func(Fe *fe, const char *name)
{
	if (!fe->t->numpy)
		return NULL;
	if (!fe->numpy) {
		PFile *pf = arena_alloc(fe->a, sizeof *pf);
		*pf = (PFile){ .path = fe->t->numpy_file };
		ax_diag_source(fe->t->numpy_file, fe->t->numpy);
		if (prog_parse_text(fe->t->numpy_file, fe->t->numpy, fe->a, pf) != 0)
			longjmp(fe->fail, 1);
		fe->numpy = pf;
	}
	return find_func(fe->numpy, name);
}

/* np.NAME(args) and x.NAME(args) (x first): an op of the specs by its name, one
 * of the few NumPy spellings that are several ops, or a function of the target's
 * numpy.py, run like a helper of the program's. */
static Val
call_np(Fe *fe, const char *name, Val *args, int nargs, FeKw *kw, int nkw, AxLoc loc)
{
	Val out;
	if (fe_np_spelling(fe, name, args, nargs, kw, nkw, loc, &out))
		return out;
	const AxOp *op = ax_find_op(fe->t, name);
	if (op && ax_has_role(op, "np"))
		return (Val){ .k = V_TENSOR, .node = fe_call_op(fe, (int)(op - fe->t->ops), args, nargs, kw, nkw, loc) };
	PFunc *f = numpy_func(fe, name);
	if (!f)
		fe_error(fe, loc, "unknown function np.%s%s: no op of that name is a NumPy function in specs/%s",
		         strncmp(name, "linalg_", 7) == 0 ? "linalg." : "", name + (strncmp(name, "linalg_", 7) == 0 ? 7 : 0),
		         fe->t->numpy ? ", nor a function of its numpy.py" : "");
	const char *was = fe->np_name;
	AxLoc wloc = fe->np_call;
	if (!was)   /* errors inside it also name the program's call */
		fe->np_name = name, fe->np_call = loc;
	Val r = run_func(fe, f, args, nargs, kw, nkw, loc);
	fe->np_name = was, fe->np_call = wloc;
	return r;
}

/* Evaluates the arguments of a call, positional and keyword, in the caller's
 * scope; first (a method's object) comes before the others. */
static int
call_args(Fe *fe, Scope *s, PExpr *call, Val *first, Val *out, FeKw *kw, int *nkw)
{
	int n = 0;
	*nkw = 0;
	if (first)
		out[n++] = *first;
	for (int i = 0; i < call->n; i++) {
		PExpr *a = call->v[i];
		if (a->kind == PX_KW) {
			for (int k = 0; k < *nkw; k++)
				if (strcmp(kw[k].name, a->s) == 0)
					fe_error(fe, a->loc, "keyword argument '%s' given twice", a->s);
			kw[*nkw] = (FeKw){ a->s, eval(fe, s, a->a), a->loc };
			(*nkw)++;
			continue;
		}
		if (*nkw)
			fe_error(fe, a->loc, "positional argument after a keyword argument");
		if (n >= 16)
			fe_error(fe, a->loc, "too many arguments");
		out[n++] = eval(fe, s, a);
	}
	return n;
}

static Val
eval_call(Fe *fe, Scope *s, PExpr *e)
{
	Val f = eval(fe, s, e->a);
	Val args[17];
	FeKw kw[16];
	int nkw;
	if (e->n > 16)
		fe_error(fe, e->loc, "too many arguments");
	if (f.k == V_FUNC) {
		int n = call_args(fe, s, e, NULL, args, kw, &nkw);
		return run_func(fe, f.fn, args, n, kw, nkw, e->a->loc);
	}
	if (f.k == V_NPFN) {
		int n = call_args(fe, s, e, NULL, args, kw, &nkw);
		for (int i = 0; f.b && i < n; i++)   /* math.sqrt(D): NumPy's function of that number */
			if (args[i].k != V_SIZE && args[i].k != V_REAL)
				fe_error(fe, e->loc, "math.%s takes numbers, not %s (np.%s takes tensors)", f.name,
				         fe_vkind_name(args[i].k), f.name);
		return call_np(fe, f.name, args, n, kw, nkw, e->a->loc);
	}
	if (f.k == V_METHOD) {
		Val self = { .k = V_TENSOR, .node = f.node };
		int n = call_args(fe, s, e, &self, args, kw, &nkw);
		return call_np(fe, f.name, args, n, kw, nkw, e->a->loc);
	}
	fe_error(fe, e->loc, "%s is not callable", fe_vkind_name(f.k));
}

static Val
eval_attr(Fe *fe, Scope *s, PExpr *e)
{
	Val b = eval(fe, s, e->a);
	if (b.k == V_MODULE) {
		/* NumPy's constants: pi and e as the decimal of their double; no infinity or NaN, which
		 * no real number the checker reasons over is */
		if (strcmp(e->s, "pi") == 0)
			return (Val){ .k = V_REAL, .t = fe_real_literal(fe, "3.141592653589793", e->loc) };
		if (strcmp(e->s, "e") == 0)
			return (Val){ .k = V_REAL, .t = fe_real_literal(fe, "2.718281828459045", e->loc) };
		static const char *const unreal[] = { "inf", "Inf", "infty", "Infinity", "PINF", "NINF", "nan", "NaN", "NAN" };
		for (size_t i = 0; i < sizeof unreal / sizeof *unreal; i++)
			if (strcmp(e->s, unreal[i]) == 0)
				fe_error(fe, e->loc, "%s.%s: infinities and NaN are not supported (the checker proves over real "
				         "numbers); a large finite number (-1e9) masks a softmax as well", b.b ? "math" : "np", e->s);
		if (strncmp(e->s, "linalg_", 7) == 0)   /* numpy.py's spelling of np.linalg.NAME, not NumPy's */
			fe_error(fe, e->loc, "unknown function np.%s", e->s);
		return (Val){ .k = V_NPFN, .name = e->s, .b = b.b };
	}
	if (b.k == V_NPFN && !b.b && strcmp(b.name, "linalg") == 0)   /* np.linalg.norm: numpy.py's linalg_norm */
	{
		char nm[128];
		snprintf(nm, sizeof nm, "linalg_%s", e->s);
		return (Val){ .k = V_NPFN, .name = arena_strdup(fe->a, nm) };
	}
	if (b.k != V_TENSOR)
		fe_error(fe, e->loc, "%s has no attribute '%s'", fe_vkind_name(b.k), e->s);
	if (strcmp(e->s, "T") == 0)
		return fe_np_transpose(fe, &b, 1, e->loc);
	if (strcmp(e->s, "shape") == 0)
		return (Val){ .k = V_SHAPE, .node = b.node };
	if (strcmp(e->s, "ndim") == 0)
		return (Val){ .k = V_SIZE, .t = t_int(fe->tc, fe->g->nodes[b.node].rank) };
	if (strcmp(e->s, "transpose") == 0 || strcmp(e->s, "reshape") == 0 || strcmp(e->s, "dot") == 0 ||
	    strcmp(e->s, "astype") == 0 ||
	    (ax_find_op(fe->t, e->s) && ax_has_role(ax_find_op(fe->t, e->s), "np")) || numpy_func(fe, e->s))
		return (Val){ .k = V_METHOD, .node = b.node, .name = e->s };
	fe_error(fe, e->loc, "unknown tensor attribute or method '%s'", e->s);
}

static Val
eval_index(Fe *fe, Scope *s, PExpr *e)
{
	Val b = eval(fe, s, e->a);
	if (b.k == V_SHAPE || b.k == V_TUPLE) {
		int64_t i;
		if (e->n != 1 || e->v[0]->kind == PX_SLICE || !fe_int_const(fe, eval(fe, s, e->v[0]), &i))
			fe_error(fe, e->loc, "%s is indexed with one integer constant", fe_vkind_name(b.k));
		int n = b.k == V_SHAPE ? fe->g->nodes[b.node].rank : b.n;
		if (i < -n || i >= n)
			fe_error(fe, e->v[0]->loc, "index %lld is out of range for %s of length %d", (long long)i,
			         fe_vkind_name(b.k), n);
		if (i < 0)
			i += n;
		if (b.k == V_TUPLE)
			return b.v[i];
		return (Val){ .k = V_SIZE, .t = fe->g->nodes[b.node].dim[i] };
	}
	if (b.k != V_TENSOR)
		fe_error(fe, e->loc, "%s cannot be indexed", fe_vkind_name(b.k));
	if (e->n > AX_MAXR + 2)
		fe_error(fe, e->loc, "too many indices");
	/* per index: its value (V_NONE with b = -1 for a slice) and a slice's three bounds */
	Val all[4 * (AX_MAXR + 2)];
	for (int i = 0; i < e->n; i++) {
		PExpr *x = e->v[i];
		for (int k = 0; k < 4; k++)
			all[4 * i + k] = (Val){ .k = V_NONE };
		if (x->kind != PX_SLICE) {
			all[4 * i] = x->kind == PX_ELLIPSIS ? (Val){ .k = V_NONE, .b = -2 } : eval(fe, s, x);
			continue;
		}
		all[4 * i].b = -1;
		PExpr *part[3] = { x->a, x->b, x->c };
		for (int k = 0; k < 3; k++)
			if (part[k])
				all[4 * i + 1 + k] = eval(fe, s, part[k]);
	}
	return (Val){ .k = V_TENSOR, .node = fe_index(fe, b.node, e, all, e->loc) };
}

static Val eval1(Fe *fe, Scope *s, PExpr *e);

static Val
eval(Fe *fe, Scope *s, PExpr *e)
{
	if (fe->edepth >= 1000)
		fe_error(fe, e->loc, "the expression nests too deeply (1000 levels)");
	fe->edepth++;
	Val v = eval1(fe, s, e);
	fe->edepth--;
	return v;
}

static Val
eval1(Fe *fe, Scope *s, PExpr *e)
{
	Val a, b;
	switch ((PExprKind)e->kind) {
	case PX_NUM:
		if (e->is_int) {
			int64_t v;
			if (!fe_int_literal(e->s, FE_MAX_INT, &v))
				fe_error(fe, e->loc, "integer literal %s is too large (integers are at most 2^62 here)", e->s);
			return (Val){ .k = V_SIZE, .t = t_int(fe->tc, v) };
		}
		return (Val){ .k = V_REAL, .t = fe_real_literal(fe, e->s, e->loc) };
	case PX_NAME:
		return lookup(fe, s, e->s, e->loc);
	case PX_STR:
		fe_error(fe, e->loc, "a string is not a value here (strings annotate parameters)");
	case PX_NONE:
		return (Val){ .k = V_NONE };
	case PX_TRUE:
	case PX_FALSE:
		return (Val){ .k = V_BOOL, .b = e->kind == PX_TRUE };
	case PX_ELLIPSIS:
		fe_error(fe, e->loc, "'...' is only allowed inside an index");
	case PX_BIN:
		a = eval(fe, s, e->a);
		b = eval(fe, s, e->b);
		return fe_arith(fe, e->op, a, b, e->loc);
	case PX_NEG:
		a = eval(fe, s, e->a);
		if (a.k == V_TENSOR) {
			int in = a.node;
			return (Val){ .k = V_TENSOR, .node = fe_apply(fe, fe_role(fe, "-x", e->loc), &in, 1, NULL, 0, NULL, e->loc) };
		}
		if (a.k != V_SIZE && a.k != V_REAL)
			fe_error(fe, e->loc, "cannot negate %s", fe_vkind_name(a.k));
		return (Val){ .k = a.k, .t = t_neg(fe->tc, a.t) };
	case PX_POS:
		return eval(fe, s, e->a);
	case PX_CMP:
		if (e->op == 'C')
			fe_error(fe, e->loc, "a chained comparison (a < b < c) is 'a < b and b < c' in Python, which NumPy "
			         "refuses on arrays: write (a < b) * (b < c)");
		a = eval(fe, s, e->a);
		b = eval(fe, s, e->b);
		if (a.k != V_TENSOR && b.k != V_TENSOR)
			fe_error(fe, e->loc, "comparison '%s' of %s and %s: only comparisons with a tensor are supported", e->s,
			         fe_vkind_name(a.k), fe_vkind_name(b.k));
		{
			int in[2] = { fe_tensor(fe, a, e->loc), fe_tensor(fe, b, e->loc) };
			return (Val){ .k = V_TENSOR, .node = fe_apply(fe, fe_role(fe, e->s, e->loc), in, 2, NULL, 0, NULL, e->loc) };
		}
	case PX_CALL:
		return eval_call(fe, s, e);
	case PX_KW:
		fe_error(fe, e->loc, "keyword argument outside a call");
	case PX_ATTR:
		return eval_attr(fe, s, e);
	case PX_INDEX:
		return eval_index(fe, s, e);
	case PX_SLICE:
		fe_error(fe, e->loc, "a range a:b is only allowed inside an index");
	case PX_TUPLE:
	case PX_LIST: {
		Val *v = arena_alloc(fe->a, sizeof *v * (size_t)(e->n + 1));
		for (int i = 0; i < e->n; i++)
			v[i] = eval(fe, s, e->v[i]);
		return (Val){ .k = V_TUPLE, .n = e->n, .v = v };
	}
	}
	ax_die("bad expression kind %d", e->kind);
}

/* Runs the statements of f with its parameters bound; returns what it returns. */
static Val
run_body(Fe *fe, PFunc *f, Scope *s)
{
	for (int i = 0; i < f->nstmts; i++) {
		PStmt *st = f->stmts[i];
		if (st->kind == PS_DOC)
			continue;
		if (st->kind == PS_RETURN) {
			if (i + 1 < f->nstmts)
				fe_error(fe, f->stmts[i + 1]->loc, "statement after return");
			fe->ret_loc = st->value->loc;
			return eval(fe, s, st->value);
		}
		if (st->ntargets) {   /* a, b = t: t a tuple or a shape of exactly that many */
			Val v = eval(fe, s, st->value);
			if (v.k != V_TUPLE && v.k != V_SHAPE)
				fe_error(fe, st->value->loc, "cannot unpack %s into %d names (a tuple or a shape unpacks)",
				         fe_vkind_name(v.k), st->ntargets);
			int n = v.k == V_SHAPE ? fe->g->nodes[v.node].rank : v.n;
			if (n != st->ntargets)
				fe_error(fe, st->value->loc, "%s of %d value%s unpacked into %d names", fe_vkind_name(v.k), n,
				         n == 1 ? "" : "s", st->ntargets);
			Val vals[64];
			for (int k = 0; k < n && k < 64; k++)
				vals[k] = v.k == V_TUPLE ? v.v[k] : (Val){ .k = V_SIZE, .t = fe->g->nodes[v.node].dim[k] };
			for (int k = 0; k < n && k < 64; k++) {
				const PExpr *t = st->targets[k];
				if (fe->file->np && strcmp(t->s, fe->file->np) == 0)
					fe_error(fe, t->loc, "assigning to '%s' hides numpy", t->s);
				bind(fe, s, t->s, vals[k]);
			}
			continue;
		}
		if (fe->file->np && strcmp(st->target, fe->file->np) == 0)
			fe_error(fe, st->loc, "assigning to '%s' hides numpy", st->target);
		bind(fe, s, st->target, eval(fe, s, st->value));
	}
	fe_error(fe, f->loc, "function '%s' does not return a value", f->name);
}

/* A helper of one tensor that computes what a unary op of the specs computes
 * (x / (1 + np.exp(-x)) is silu) becomes that op: the checker must prove it
 * for every size, here, where the helper is used.  So the graph keeps the
 * operator a programmer meant, and later stages can map it as one. */
static int
lift(Fe *fe, int x, int result, int first_new)
{
	AxGraph *g = fe->g;
	if (!fe->eq)
		fe->eq = equiv_new(fe->t, fe->tc, 2000);
	AxGraph a = *g, b = *g;
	a.noutputs = b.noutputs = 1;
	a.outputs[0] = result;
	for (int i = 0; i < fe->t->nops; i++) {
		const AxOp *op = &fe->t->ops[i];
		if (op->nopnd != 1 || op->nattr || op->ngroups != 1 || op->layout_only || op->broadcast)
			continue;
		AxNode n = { .op = i, .nin = 1, .in = { x }, .loc = g->nodes[result].loc };
		n.grank[0] = g->nodes[x].rank - op->opnd[0].nfixed;
		if (n.grank[0] < 0 || g->nodes[x].rank != g->nodes[result].rank)
			continue;
		n.rank = g->nodes[x].rank;
		for (int d = 0; d < n.rank; d++)
			n.dim[d] = g->nodes[x].dim[d];
		/* b: the graph with op(x) as its output, without touching g's nodes */
		b.nnodes = g->nnodes;
		b.cap = g->nnodes + 1;
		b.nodes = arena_alloc(fe->a, sizeof *b.nodes * (size_t)b.cap);
		memcpy(b.nodes, g->nodes, sizeof *b.nodes * (size_t)g->nnodes);
		b.nodes[b.nnodes] = n;
		b.outputs[0] = b.nnodes++;
		EquivResult r;
		if (equiv_graphs(fe->eq, &a, &b, &r) == EQ_EQUIVALENT) {
			int mask = fe_is_mask(fe, result);
			g->nnodes = first_new;   /* the helper's nodes go; nothing else refers to them */
			/* as a call of the op: a vector's or a 0-d tensor's on a row or [1, 1] (fe_apply) */
			int id = fe_apply(fe, i, &x, 1, NULL, 0, NULL, n.loc);
			fe_set_mask(fe, id, mask);
			return id;
		}
	}
	return result;
}

/* Inlines a helper def at a call. */
static Val
run_func(Fe *fe, PFunc *f, Val *args, int nargs, FeKw *kw, int nkw, AxLoc loc)
{
	if (fe->depth >= 32 || f == fe->top)
		fe_error(fe, loc, "recursion is not supported ('%s' calls itself)", f->name);
	int linalg = strncmp(f->name, "linalg_", 7) == 0;   /* numpy.py's spelling of np.linalg.NAME */
	const char *shown = linalg ? f->name + 7 : f->name, *pre = linalg ? "np.linalg." : "";
	if (nargs > f->nparams)
		fe_error(fe, loc, "%s%s() takes %d argument%s, got %d", pre, shown, f->nparams, f->nparams == 1 ? "" : "s",
		         nargs);
	for (int k = 0; k < nkw; k++) {
		int found = -1;
		for (int i = 0; i < f->nparams; i++)
			if (strcmp(f->params[i].name, kw[k].name) == 0)
				found = i;
		if (found < 0)
			fe_error(fe, kw[k].loc, "%s%s() has no parameter '%s'", pre, shown, kw[k].name);
		if (found < nargs)
			fe_error(fe, kw[k].loc, "argument '%s' given twice", kw[k].name);
	}
	Scope s = { 0 };
	for (int i = 0; i < f->nparams; i++) {
		PParam *p = &f->params[i];
		if (p->ann)
			fe_error(fe, p->annloc, "only the compiled function's parameters take annotations");
		Val v;
		int have = i < nargs;
		if (have)
			v = args[i];
		for (int k = 0; k < nkw; k++)
			if (strcmp(kw[k].name, p->name) == 0) {
				v = kw[k].v;
				have = 1;
			}
		if (!have) {
			if (!p->def)
				fe_error(fe, loc, "%s() is missing argument '%s'", f->name, p->name);
			Scope empty = { 0 };
			v = eval(fe, &empty, p->def);
		}
		bind(fe, &s, p->name, v);
	}
	fe->depth++;
	int before = fe->g->nnodes;
	Val r = run_body(fe, f, &s);
	fe->depth--;
	if (nargs == 1 && args[0].k == V_TENSOR && r.k == V_TENSOR && fe->g->nnodes - before > 1)
		r.node = lift(fe, args[0].node, r.node, before);
	return r;
}

/* "f32[M,K]": the dtype and the dims, symbols registered in the graph. */
static int
parse_annotation(Fe *fe, PParam *p, AxNode *n, const char **dtype)
{
	const char *s = p->ann;
	AxLoc loc = p->annloc;
	size_t q = strcspn(s, "[");
	static const char *dtypes[] = { "f32", "bf16", "f16" };
	*dtype = NULL;
	for (size_t i = 0; i < 3; i++)
		if (strlen(dtypes[i]) == q && strncmp(s, dtypes[i], q) == 0)
			*dtype = dtypes[i];
	if (!*dtype)
		fe_error(fe, loc, "bad annotation \"%s\": the dtype must be f32, bf16 or f16", s);
	const char *p0 = s + q;
	size_t len = strlen(p0);
	if (len < 2 || p0[0] != '[' || p0[len - 1] != ']')
		fe_error(fe, loc, "bad annotation \"%s\": expected a shape like f32[M,K]", s);
	n->rank = 0;
	int64_t numel = 1;   /* of the fixed dims: element counts and offsets stay in 64 bits */
	const char *c = p0 + 1;
	while (*c != ']') {
		while (*c == ' ')
			c++;
		size_t w = strcspn(c, ", ]");
		if (w == 0)
			fe_error(fe, loc, "bad annotation \"%s\": empty dimension", s);
		if (n->rank == AX_MAXR)
			fe_error(fe, loc, "bad annotation \"%s\": more than %d dimensions", s, AX_MAXR);
		char *tok = arena_alloc(fe->a, w + 1);
		memcpy(tok, c, w);
		AxLoc dloc = { loc.file, loc.line, loc.col + 1 + (int)(c - s) };   /* the dim inside the string */
		if (strspn(tok, "0123456789") == w) {
			int64_t v;
			if (!fe_int_literal(tok, FE_MAX_DIM, &v))
				fe_error(fe, dloc, "bad annotation \"%s\": dimension %s is too large (at most 2^48 = %lld)", s, tok,
				         (long long)FE_MAX_DIM);
			if (v < 1)
				fe_error(fe, dloc, "bad annotation \"%s\": dimension %s must be at least 1", s, tok);
			if (v > FE_MAX_INT / numel)
				fe_error(fe, dloc, "bad annotation \"%s\": the fixed dimensions hold more than 2^62 elements", s);
			numel *= v;
			n->dim[n->rank++] = t_int(fe->tc, v);
		} else {
			if (!((tok[0] >= 'A' && tok[0] <= 'Z') || (tok[0] >= 'a' && tok[0] <= 'z') || tok[0] == '_') ||
			    strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789") != w)
				fe_error(fe, loc, "bad annotation \"%s\": '%s' is neither a size name nor an integer", s, tok);
			int seen = 0;
			for (int i = 0; i < fe->g->nsyms; i++)
				seen |= strcmp(fe->g->syms[i], tok) == 0;
			if (!seen) {
				if (fe->g->nsyms == 64)
					fe_error(fe, loc, "more than 64 size names");
				fe->g->syms[fe->g->nsyms++] = tok;
			}
			n->dim[n->rank++] = t_var(fe->tc, tok, TS_INT);
		}
		c += w;
		while (*c == ' ')
			c++;
		if (*c == ',')
			c++;
		else if (*c != ']')
			fe_error(fe, loc, "bad annotation \"%s\"", s);
	}
	return 0;
}

static void
load_params(Fe *fe, PFunc *f, Scope *s)
{
	AxGraph *g = fe->g;
	g->params = arena_alloc(fe->a, sizeof *g->params * (size_t)(f->nparams + 1));
	for (int i = 0; i < f->nparams; i++) {
		PParam *p = &f->params[i];
		for (int k = 0; k < i; k++)
			if (strcmp(f->params[k].name, p->name) == 0)
				fe_error(fe, p->loc, "parameter '%s' appears twice", p->name);
		AxParam *gp = &g->params[g->nparams++];
		gp->name = p->name;
		if (p->ann) {
			AxNode n = { .op = -1, .input = i, .loc = p->loc };
			parse_annotation(fe, p, &n, &gp->dtype);
			gp->tensor = 1;
			gp->node = graph_add(g, &n);
			bind(fe, s, p->name, (Val){ .k = V_TENSOR, .node = gp->node });
			continue;
		}
		if (!p->def)
			fe_error(fe, p->loc, "parameter '%s' needs an annotation like \"f32[M,N]\" or a float default", p->name);
		PExpr *d = p->def;
		double sign = 1;
		if (d->kind == PX_NEG) {
			sign = -1;
			d = d->a;
		}
		if (d->kind != PX_NUM)
			fe_error(fe, p->def->loc, "the default of scalar parameter '%s' must be a number", p->name);
		gp->defval = sign * d->num;
		for (int k = 0; k < g->nsyms; k++)
			if (strcmp(g->syms[k], p->name) == 0)
				fe_error(fe, p->loc, "scalar parameter '%s' has the name of a size", p->name);
		bind(fe, s, p->name, (Val){ .k = V_REAL, .t = t_var(fe->tc, p->name, TS_REAL) });
	}
	/* a size named like a later scalar parameter is caught above; check the reverse */
	for (int i = 0; i < g->nparams; i++)
		for (int k = 0; !g->params[i].tensor && k < g->nsyms; k++)
			if (strcmp(g->syms[k], g->params[i].name) == 0)
				fe_error(fe, f->params[i].loc, "scalar parameter '%s' has the name of a size", g->params[i].name);
}

int
prog_parse_file(const char *path, Arena *a, PFile *out)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		ax_error_at((AxLoc){ path, 0, 0 }, "cannot read the file: %s", strerror(errno));
		return 1;
	}
	size_t cap = 1 << 16, n = 0, r;
	char *buf = malloc(cap);
	while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		ax_die("out of memory");
	buf[n] = 0;
	if (strlen(buf) != n) {
		free(buf);
		ax_error_at((AxLoc){ path, 0, 0 }, "the file contains a NUL byte");
		return 1;
	}
	char *text = arena_strdup(a, buf);
	free(buf);
	ax_diag_source(path, text);
	*out = (PFile){ 0 };
	out->path = path;
	return prog_parse_text(path, text, a, out);
}

AxGraph *
frontend_read(const AxTarget *t, TermCtx *tc, const char *path, const char *fn)
{
	Fe fe = { .t = t, .tc = tc, .a = tc_arena(tc) };
	PFile *file = arena_alloc(fe.a, sizeof *file);
	if (prog_parse_file(path, fe.a, file) != 0)
		return NULL;
	fe.file = file;
	for (int i = 0; i < file->nfuncs; i++)
		for (int k = 0; k < i; k++)
			if (strcmp(file->funcs[i]->name, file->funcs[k]->name) == 0) {
				ax_error_at(file->funcs[i]->loc, "function '%s' is defined twice", file->funcs[i]->name);
				ax_note_at(file->funcs[k]->loc, "first defined here");
				return NULL;
			}
	if (!fn)
		fn = "kernel";
	PFunc *f = find_func(file, fn);
	if (!f) {
		char list[256] = "";
		for (int i = 0; i < file->nfuncs && strlen(list) < 200; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", file->funcs[i]->name);
		ax_error_at((AxLoc){ path, 0, 0 }, "no function '%s' (functions here: %s)", fn, *list ? list : "none");
		return NULL;
	}
	fe.g = graph_new(t, tc);
	fe.g->fn = f->name;
	fe.top = f;
	fe.smt = smt_new(t);
	AxGraph *g = NULL;
	if (setjmp(fe.fail) == 0) {
		Scope s = { 0 };
		load_params(&fe, f, &s);
		Val r = run_body(&fe, f, &s);
		Val *outs = r.k == V_TUPLE ? r.v : &r;
		int n = r.k == V_TUPLE ? r.n : 1;
		if (n > 16)
			fe_error(&fe, f->loc, "more than 16 outputs");
		for (int k = 0; k < n; k++) {
			if (outs[k].k != V_TENSOR)
				fe_error(&fe, fe.ret_loc, "'%s' returns %s; outputs must be tensors", f->name, fe_vkind_name(outs[k].k));
			fe.g->outputs[fe.g->noutputs++] = outs[k].node;
		}
		g = fe.g;
	}
	smt_free(fe.smt);
	equiv_free(fe.eq);
	return g;
}
