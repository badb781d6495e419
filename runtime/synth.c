/*
 * synth.c — ISA synthesis for one tile operation (paper section 3.4,
 * Algorithm 2), without tiling yet.
 *
 * The pool holds the target's instructions that share a granular operation
 * with the tensor operation, plus those that only move data (transposes,
 * copies), each with every choice of its enum attributes; operand slots take
 * the operation's inputs, the results of other instructions (holes filled by
 * the pool), or nothing for an optional operand.  Sketches are built bottom
 * up to a depth (instructions per sequence).  A sketch is first run by the
 * reference kernels on concrete sizes and inputs, a cheap refutation that
 * can only drop sketches that compute something else; every survivor is
 * then proved equal to the operation by the checker, for every tile size
 * allowed by the instructions' hardware constraints, which are its
 * constraints.  Nothing here names an instruction: pool, attributes,
 * engines and constraints come from the target's tables.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "axon.h"

enum { MAXCAND = 4000, PER_VALUE = 2 };

typedef struct Cand {
	int input;               /* >= 0: the operation's input; -1: an instruction */
	int inst;
	int attr[AX_MAXATTR];
	int nin;
	int in[AX_MAXOPND];      /* candidate ids; -1: an optional operand left out */
	Term *sattr[AX_MAXATTR]; /* constants: their size and float attributes */
	int ninsts;
	AxShape shape;
	float *val;
} Cand;

typedef struct Synth {
	const AxTarget *t;
	TermCtx *tc;
	Arena *a;
	AxGraph *lhs;            /* the tile operation over its inputs */
	int nin;                 /* its inputs */
	AxConc conc;             /* the operation at the concrete sizes */
	AxEnv env;
	Cand *c;
	int nc;
	float *want;
	AxShape wshape;
	int *pool, npool;
	Equiv *eq;
	Smt *smt;
	Term *sizes_pos;         /* every size >= 1 */
	int checked;
	int depth;
	SynthCb cb;
	void *cbenv;
} Synth;

static int
close_enough(const float *x, const float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		double a = x[i], b = y[i];
		if (isnan(a) && isnan(b))
			continue;
		if (isnan(a) || isnan(b) || fabs(a - b) > 1e-3 * (1 + fabs(a) + fabs(b)))
			return 0;
	}
	return 1;
}

static int
same_value(const Cand *a, const float *v, const AxShape *s)
{
	if (a->shape.rank != s->rank)
		return 0;
	for (int d = 0; d < s->rank; d++)
		if (a->shape.d[d] != s->d[d])
			return 0;
	return close_enough(a->val, v, ax_numel(s));
}

/* The candidate's text: inst(operands; attributes). */
static void
cand_text(const Synth *sy, int id, char *buf, size_t n)
{
	const Cand *c = &sy->c[id];
	if (c->input >= 0) {
		snprintf(buf, n, "%s", sy->lhs->params[c->input].name);
		return;
	}
	const AxOp *op = &sy->t->insts[c->inst];
	size_t k = (size_t)snprintf(buf, n, "%s(", op->name);
	int first = 1;
	for (int o = 0; o < c->nin && k < n; o++) {
		if (c->in[o] < 0)
			continue;
		char sub[512];
		cand_text(sy, c->in[o], sub, sizeof sub);
		k += (size_t)snprintf(buf + k, n - k, "%s%s=%s", first ? "" : ", ", op->opnd[o].name, sub);
		first = 0;
	}
	for (int a = 0; a < op->nattr && k < n; a++) {
		const char *v = op->attr[a].kind == AX_ATTR_ENUM ? sy->t->enums[op->attr[a].enum_id].items[c->attr[a]]
		                : c->sattr[a] ? t_infix(sy->tc, c->sattr[a]) : "?";
		k += (size_t)snprintf(buf + k, n - k, "%s%s=%s", first ? "" : ", ", op->attr[a].name, v);
		first = 0;
	}
	if (k < n)
		snprintf(buf + k, n - k, ")");
}

/* Adds the instructions of candidate id to g (after its inputs); returns the
 * node.  Dims come from each instruction's shape function. */
static int
add_nodes(Synth *sy, AxGraph *g, int id)
{
	const Cand *c = &sy->c[id];
	if (c->input >= 0)
		return sy->lhs->params[c->input].node;
	const AxOp *op = &sy->t->insts[c->inst];
	AxNode n = { .op = c->inst, .inst = 1, .nin = op->nopnd };
	for (int e = 0; e < sy->t->nengines; e++)
		if (op->engines & (1u << e)) {
			n.engine = e;
			break;
		}
	memcpy(n.attr, c->attr, sizeof n.attr);
	memcpy(n.sattr, c->sattr, sizeof n.sattr);
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		n.in[o] = c->in[o] >= 0 ? add_nodes(sy, g, c->in[o]) : -1;
		s.rank[o] = n.in[o] >= 0 ? g->nodes[n.in[o]].rank : -1;
		for (int d = 0; d < s.rank[o]; d++)
			s.dim[o][d] = g->nodes[n.in[o]].dim[d];
	}
	memcpy(s.attr, n.attr, sizeof s.attr);
	memcpy(s.sattr, n.sattr, sizeof s.sattr);
	s.engine = n.engine;
	Term *out[AX_MAXR];
	n.rank = op->shape(g->tc, &s, out);
	for (int d = 0; d < n.rank; d++)
		n.dim[d] = out[d];
	/* its preconditions: hardware limits become the sequence's constraints */
	Term *pre = op->pre(g->tc, &s);
	if (g->nassume < 64)
		g->assume[g->nassume++] = pre;
	return graph_add(g, &n);
}

static int
is_hw_limit(const Term *t)
{
	/* a size compared with a constant: a tile limit the tiling stage meets */
	return (t->kind == TK_LE || t->kind == TK_LT) && (t->a[0]->kind == TK_NUM || t->a[1]->kind == TK_NUM);
}

/* Splits the preconditions into hardware limits (kept as constraints) and the
 * rest, which must hold for every size; 0 if they do. */
static int
split_constraints(Synth *sy, AxGraph *g, char *text, size_t n)
{
	Term *limits[128], *rest[128];
	int nl = 0, nr = 0;
	Term *stack[256];
	int sp = 0;
	for (int i = 0; i < g->nassume; i++)
		stack[sp++] = g->assume[i];
	while (sp > 0) {
		Term *t = stack[--sp];
		if (t->kind == TK_AND && sp < 254) {
			stack[sp++] = t->a[0];
			stack[sp++] = t->a[1];
		} else if (t->kind == TK_NUM && t->num)
			;
		else if (is_hw_limit(t) && nl < 128) {
			char why[64];
			if (!smt_prove(sy->smt, sy->sizes_pos, t, why, sizeof why))   /* 1 <= P says nothing */
				limits[nl++] = t;
		}
		else if (nr < 128)
			rest[nr++] = t;
	}
	Term *h = t_and_all(sy->tc, nl, limits);
	for (int i = 0; i < sy->lhs->nsyms; i++)
		h = t_bin(sy->tc, TK_AND, h, t_bin(sy->tc, TK_LE, t_int(sy->tc, 1), t_var(sy->tc, sy->lhs->syms[i], TS_INT)));
	char why[256];
	for (int i = 0; i < nr; i++)
		if (!smt_prove(sy->smt, h, rest[i], why, sizeof why))
			return -1;
	if (!smt_satisfiable(sy->smt, h, why, sizeof why))
		return -1;
	size_t k = 0;
	text[0] = 0;
	for (int i = nl - 1; i >= 0 && k < n; i--) {
		const char *s = t_infix(sy->tc, limits[i]);
		if (strstr(text, s))
			continue;
		k += (size_t)snprintf(text + k, n - k, "%s%s", k ? ", " : "", s);
	}
	g->nassume = nl;
	memcpy(g->assume, limits, sizeof(Term *) * (size_t)nl);
	return 0;
}

/* The engines of node i other than the one the proof used: an engine whose
 * limits cannot hold with the sequence's is dropped; one with tighter limits
 * (a vector-engine transpose of at most 32 x 32) has them said. */
static void
engine_limits(Synth *sy, AxGraph *g, int i, Term *base, SynthSeq *seq)
{
	AxNode *n = &g->nodes[i];
	const AxOp *op = node_op(g, n);
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		s.rank[o] = n->in[o] >= 0 ? g->nodes[n->in[o]].rank : -1;
		for (int d = 0; d < s.rank[o]; d++)
			s.dim[o][d] = g->nodes[n->in[o]].dim[d];
	}
	memcpy(s.attr, n->attr, sizeof s.attr);
	memcpy(s.sattr, n->sattr, sizeof s.sattr);
	char why[128];
	Term *h = t_bin(sy->tc, TK_AND, sy->sizes_pos, base);
	for (int e = 0; e < sy->t->nengines; e++) {
		if (!(op->engines & (1u << e)) || e == n->engine)
			continue;
		s.engine = e;
		Term *pre = op->pre(sy->tc, &s);
		if (smt_prove(sy->smt, h, pre, why, sizeof why))
			continue;   /* no tighter than the sequence's limits */
		if (!smt_satisfiable(sy->smt, t_bin(sy->tc, TK_AND, h, pre), why, sizeof why)) {
			seq->engines[seq->ninsts] &= ~(1u << e);
			continue;
		}
		/* the conjuncts of its limits that the sequence's do not imply */
		size_t k = strlen(seq->constraints);
		k += (size_t)snprintf(seq->constraints + k, sizeof seq->constraints - k, "%s%s on %s:", k ? "; " : "",
		                      op->name, sy->t->engines[e].name);
		Term *st[64];
		int sp = 0, first = 1;
		st[sp++] = pre;
		while (sp && k < sizeof seq->constraints - 64) {
			Term *x = st[--sp];
			if (x->kind == TK_AND && sp < 62) {
				st[sp++] = x->a[0];
				st[sp++] = x->a[1];
			} else if (!smt_prove(sy->smt, h, x, why, sizeof why)) {
				k += (size_t)snprintf(seq->constraints + k, sizeof seq->constraints - k, "%s %s", first ? "" : ",",
				                      t_infix(sy->tc, size_simplify(sy->smt, sy->tc, h, x)));
				first = 0;
			}
		}
	}
}

static void
try_solution(Synth *sy, int id)
{
	AxGraph *g = graph_copy(sy->lhs);
	g->nnodes = sy->nin;
	g->nassume = 0;
	g->noutputs = 1;
	g->outputs[0] = add_nodes(sy, g, id);
	SynthSeq seq = { 0 };
	if (split_constraints(sy, g, seq.constraints, sizeof seq.constraints) != 0)
		return;
	sy->checked++;
	EquivResult r;
	if (equiv_graphs(sy->eq, sy->lhs, g, &r) != EQ_EQUIVALENT)
		return;
	cand_text(sy, id, seq.text, sizeof seq.text);
	Term *base = t_and_all(sy->tc, g->nassume, g->assume);
	for (int i = sy->nin; i < g->nnodes && seq.ninsts < 8; i++) {
		const AxOp *op = node_op(g, &g->nodes[i]);
		seq.inst[seq.ninsts] = g->nodes[i].op;
		for (int o = 0; o < AX_MAXOPND; o++) {
			int src = o < g->nodes[i].nin ? g->nodes[i].in[o] : -1;
			seq.src[seq.ninsts][o] = src < 0 ? SYNTH_OMITTED : src < sy->nin ? -1 - src : src - sy->nin;
		}
		seq.insts[seq.ninsts] = op->name;
		seq.engines[seq.ninsts] = op->engines;
		engine_limits(sy, g, i, base, &seq);
		seq.ninsts++;
	}
	sy->cb(sy->cbenv, &seq);
}

/* Runs instruction inst on candidates in[] at the concrete sizes; a new
 * candidate, or -1 when the shapes do not fit. */
static int
apply(Synth *sy, int inst, const int *attr, const int *in, int ninsts, Term *const *sattr)
{
	if (sy->nc == MAXCAND)
		return -1;
	const AxOp *op = &sy->t->insts[inst];
	AxConc c = { 0 };
	c.nopnd = op->nopnd;
	const float *args[AX_MAXOPND] = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		if (in[o] < 0) {
			c.rank[o] = -1;
			continue;
		}
		c.rank[o] = sy->c[in[o]].shape.rank;
		memcpy(c.dim[o], sy->c[in[o]].shape.d, sizeof c.dim[o]);
		args[o] = sy->c[in[o]].val;
	}
	memcpy(c.attr, attr, sizeof c.attr);
	for (int a = 0; sattr && a < op->nattr; a++) {
		double x;
		if (!sattr[a] || t_eval(sattr[a], &sy->env, &x) != 0)
			return -1;
		if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)x;
		else
			c.fval[a] = x;
	}
	for (int e = 0; e < sy->t->nengines; e++)
		if (op->engines & (1u << e)) {
			c.engine = e;
			break;
		}
	AxShape s;
	if (op->check(&c, &s, NULL, 0) != 0)   /* most combinations do not fit: no message wanted */
		return -1;
	float *v = arena_alloc(sy->a, sizeof(float) * (size_t)(ax_numel(&s) + 1));
	if (op->ref(&c, args, v, NULL, 0) != 0)
		return -1;
	/* observational pruning: a value some shorter sequence already computes
	 * is dominated (tensor_copy(a) is a); of equally long ones keep a couple
	 * (a transpose on two engines) */
	int same = 0, target = same_value(&(Cand){ .shape = sy->wshape, .val = sy->want }, v, &s);
	if (ninsts == sy->depth && !target)
		return -1;   /* the last level feeds nothing: only the result's candidates matter */
	for (int i = 0; i < sy->nc; i++) {
		if (!same_value(&sy->c[i], v, &s))
			continue;
		if (sy->c[i].ninsts < ninsts)
			return -1;
		same++;
	}
	if (same >= PER_VALUE && !target)   /* every candidate for the result is tried */
		return -1;
	Cand *k = &sy->c[sy->nc];
	*k = (Cand){ .input = -1, .inst = inst, .nin = op->nopnd, .ninsts = ninsts, .shape = s, .val = v };
	memcpy(k->attr, attr, sizeof k->attr);
	if (sattr)
		memcpy(k->sattr, sattr, sizeof k->sattr);
	memcpy(k->in, in, sizeof k->in);
	return sy->nc++;
}

/* All operand choices for inst at this level: slots take earlier candidates
 * (total instructions = level) or nothing when optional. */
static void
fill(Synth *sy, int inst, const int *attr, int *in, int slot, int used, int level, int lo_level)
{
	const AxOp *op = &sy->t->insts[inst];
	if (sy->nc == MAXCAND)
		return;   /* the candidate budget is spent */
	if (slot == op->nopnd) {
		if (used + 1 != level)
			return;
		int id = apply(sy, inst, attr, in, level, NULL);
		if (id >= 0 && same_value(&sy->c[id], sy->want, &sy->wshape))
			try_solution(sy, id);
		return;
	}
	if (op->opnd[slot].optional) {
		in[slot] = -1;
		fill(sy, inst, attr, in, slot + 1, used, level, lo_level);
	}
	int n = sy->nc;   /* candidates made at this level are not operands of it */
	for (int i = 0; i < n && i < lo_level; i++) {
		if (used + sy->c[i].ninsts >= level)
			continue;
		in[slot] = i;
		fill(sy, inst, attr, in, slot + 1, used + sy->c[i].ninsts, level, lo_level);
	}
}

static void
each_attr(Synth *sy, int inst, int *attr, int a, int level, int lo_level)
{
	const AxOp *op = &sy->t->insts[inst];
	if (a == op->nattr) {
		int in[AX_MAXOPND];
		fill(sy, inst, attr, in, 0, 0, level, lo_level);
		return;
	}
	const AxEnum *en = &sy->t->enums[op->attr[a].enum_id];
	for (int k = 0; k < en->nitems; k++) {
		attr[a] = k;
		each_attr(sy, inst, attr, a + 1, level, lo_level);
	}
}

/* Instructions that make a constant tile (no operands; size and float
 * attributes): every choice of their sizes among the tile's sizes and 1, and
 * of their values among 0, 1 and 1 / size. */
static void
constants(Synth *sy, int inst, Term **sattr, int a)
{
	const AxOp *op = &sy->t->insts[inst];
	if (sy->nc == MAXCAND)
		return;
	if (a == op->nattr) {
		int in[AX_MAXOPND] = { 0 };
		apply(sy, inst, (int[AX_MAXATTR]){ 0 }, in, 1, sattr);
		return;
	}
	TermCtx *tc = sy->tc;
	if (op->attr[a].kind == AX_ATTR_SIZE) {
		sattr[a] = t_int(tc, 1);
		constants(sy, inst, sattr, a + 1);
		for (int i = 0; i < sy->lhs->nsyms; i++) {
			sattr[a] = t_var(tc, sy->lhs->syms[i], TS_INT);
			constants(sy, inst, sattr, a + 1);
		}
		return;
	}
	for (int k = 0; k < 2; k++) {
		sattr[a] = t_num(tc, k, 1, TS_REAL);
		constants(sy, inst, sattr, a + 1);
	}
	for (int i = 0; i < sy->lhs->nsyms; i++) {
		sattr[a] = t_bin(tc, TK_DIV, t_num(tc, 1, 1, TS_REAL), t_toreal(tc, t_var(tc, sy->lhs->syms[i], TS_INT)));
		constants(sy, inst, sattr, a + 1);
	}
}

static int
has_gran(const AxOp *a, const char *g)
{
	for (int i = 0; a->gran[i]; i++)
		if (strcmp(a->gran[i], g) == 0)
			return 1;
	return 0;
}

/* The constituent filter of Algorithm 2: a granular operation in common.  A
 * fold that can add is a running sum, so it counts as sharing a sum; a
 * subtraction can negate (0 - x), so it counts as sharing a negation. */
static int
shares_gran(const AxOp *a, const AxOp *b)
{
	for (int i = 0; a->gran[i]; i++)
		if (has_gran(b, a->gran[i]))
			return 1;
	return (has_gran(a, "fold") && has_gran(a, "+") && has_gran(b, "sum-reduce")) ||
	       (has_gran(b, "fold") && has_gran(b, "+") && has_gran(a, "sum-reduce")) ||
	       (has_gran(a, "-") && has_gran(b, "negate")) || (has_gran(b, "-") && has_gran(a, "negate"));
}

int
synth_tile(const AxTarget *t, TermCtx *tc, AxGraph *lhs, int depth, SynthCb cb, void *cbenv, int *checked)
{
	Synth sy = { .t = t, .tc = tc, .a = tc_arena(tc), .lhs = lhs, .cb = cb, .cbenv = cbenv };
	const AxNode *root = &lhs->nodes[lhs->outputs[0]];
	const AxOp *T = node_op(lhs, root);
	sy.c = arena_alloc(sy.a, sizeof *sy.c * MAXCAND);
	sy.pool = arena_alloc(sy.a, sizeof(int) * (size_t)(t->ninsts + 1));
	for (int i = 0; i < t->ninsts; i++) {
		const AxOp *in = &t->insts[i];
		int plain_attrs = 1;
		for (int a = 0; a < in->nattr; a++)
			plain_attrs &= in->attr[a].kind == AX_ATTR_ENUM;
		if (plain_attrs && in->nopnd > 0 && (in->layout_only || shares_gran(in, T)))
			sy.pool[sy.npool++] = i;
	}
	/* concrete sizes: distinct small values; inputs in [-1.5, 1.5) so that
	 * sign-blind instructions (relu, abs) do not pass for the identity */
	const char *names[64];
	double vals[64];
	for (int i = 0; i < lhs->nsyms && i < 64; i++) {
		names[i] = lhs->syms[i];
		vals[i] = 4 + 2 * i;   /* distinct and even: halves and pairs fit */
	}
	sy.env = (AxEnv){ lhs->nsyms, names, vals };
	sy.nin = 0;
	uint64_t st = 12345;
	for (int p = 0; p < lhs->nparams; p++) {
		int node = lhs->params[p].node;
		Cand *c = &sy.c[sy.nc];
		*c = (Cand){ .input = p };
		if (graph_shape(lhs, node, &sy.env, &c->shape) != 0)
			return -1;
		int64_t n = ax_numel(&c->shape);
		c->val = arena_alloc(sy.a, sizeof(float) * (size_t)(n + 1));
		for (int64_t i = 0; i < n; i++) {
			st = st * 6364136223846793005ull + 1442695040888963407ull;
			c->val[i] = (float)(3.0 * (double)(st >> 40) / 16777216.0 - 1.5);
		}
		sy.nc++;
		sy.nin++;
	}
	float *out[1];
	char err[256];
	const float *in[64];
	for (int p = 0; p < sy.nin; p++)
		in[p] = sy.c[p].val;
	if (graph_run(lhs, &sy.env, in, out, &sy.wshape, err, sizeof err) != 0)
		return -1;
	sy.want = arena_alloc(sy.a, sizeof(float) * (size_t)(ax_numel(&sy.wshape) + 1));
	memcpy(sy.want, out[0], sizeof(float) * (size_t)ax_numel(&sy.wshape));
	free(out[0]);
	sy.eq = equiv_new(t, tc, 2000);
	sy.smt = equiv_smt(sy.eq);
	sy.sizes_pos = t_bool(tc, 1);
	for (int i = 0; i < lhs->nsyms; i++)
		sy.sizes_pos = t_bin(tc, TK_AND, sy.sizes_pos,
		                     t_bin(tc, TK_LE, t_int(tc, 1), t_var(tc, lhs->syms[i], TS_INT)));
	sy.depth = depth;
	if (depth > 1)   /* constant tiles are operands, never results */
		for (int i = 0; i < t->ninsts; i++) {
			const AxOp *in = &t->insts[i];
			int ok = in->nopnd == 0;
			for (int a = 0; a < in->nattr; a++)
				ok &= in->attr[a].kind != AX_ATTR_ENUM;
			Term *sattr[AX_MAXATTR] = { 0 };
			if (ok && in->nattr <= 3)
				constants(&sy, i, sattr, 0);
		}
	for (int level = 1; level <= depth; level++) {
		int lo = sy.nc;
		for (int k = 0; k < sy.npool; k++) {
			int attr[AX_MAXATTR] = { 0 };
			each_attr(&sy, sy.pool[k], attr, 0, level, lo);
		}
	}
	*checked = sy.checked;
	equiv_free(sy.eq);
	return 0;
}

/* Union-find over size variables by name, for the equalities an op needs. */
static Term *
root_of(Term **from, Term **to, int n, Term *v)
{
	for (int i = 0; i < n; i++)
		if (from[i] == v)
			return root_of(from, to, n, to[i]);
	return v;
}

/* Tile instances of op: operands of rank 2 (or a broadcast [P, 1] operand),
 * a result of rank 1 or 2; each is synthesized.  Returns the instances done. */
int
synth_op(const AxTarget *t, TermCtx *tc, int opi, int depth, SynthInstCb icb, SynthCb cb, void *env, int *checked)
{
	const AxOp *op = &t->ops[opi];
	int ng = op->ngroups, done = 0;
	*checked = 0;
	if (op->nopnd == 0 || op->nattr)
		return 0;
	int total = 1;
	for (int g = 0; g < ng; g++)
		total *= 3;
	for (int code = 0; code < total; code++) {
		int grank[AX_MAXGROUP] = { 0 }, c = code;
		for (int g = 0; g < ng; g++, c /= 3)
			grank[g] = c % 3;
		int rank[AX_MAXOPND], ok = 1;
		for (int o = 0; o < op->nopnd; o++) {
			rank[o] = op->opnd[o].nfixed;
			for (int k = 0; k < op->opnd[o].ndims; k++)
				if (op->opnd[o].pat[k] >= 0)
					rank[o] += grank[op->opnd[o].pat[k]];
			ok &= rank[o] == 2;
		}
		int r = ax_pos(op->layout, rank, grank, -1, op->layout->nout);
		if (!ok || r < 1 || r > 2)
			continue;
		int elementwise = op->broadcast;   /* every operand is the group alone: [P, F] alike */
		for (int o = 0; o < op->nopnd; o++)
			elementwise &= op->opnd[o].nfixed == 0;
		for (int bvar = 0; bvar < (elementwise && op->nopnd == 2 ? 2 : 1); bvar++) {
			AxGraph *g = graph_new(t, tc);
			g->params = arena_alloc(tc_arena(tc), sizeof *g->params * (size_t)(op->nopnd + 1));
			static const char *letters[] = { "P", "F", "K", "N", "Q", "R", "S", "U" };
			Term *from[32], *to[32];
			int nu = 0;
			for (int o = 0; o < op->nopnd; o++) {
				AxNode n = { .op = -1, .input = o, .rank = 2 };
				for (int d = 0; d < 2; d++) {
					char nm[40];
					snprintf(nm, sizeof nm, "%%s%d_%d", o & 7, d & 7);
					n.dim[d] = elementwise ? t_var(tc, letters[d], TS_INT) : t_var(tc, nm, TS_INT);
				}
				if (bvar && o == 1)
					n.dim[1] = t_int(tc, 1);
				g->params[g->nparams++] = (AxParam){ .name = op->opnd[o].name, .tensor = 1, .node = o, .dtype = "f32" };
				graph_add(g, &n);
			}
			/* unify the sizes the op equates, name them P, F, K, ... */
			AxSym s = { 0 };
			for (int o = 0; o < op->nopnd; o++) {
				s.rank[o] = 2;
				s.dim[o][0] = g->nodes[o].dim[0];
				s.dim[o][1] = g->nodes[o].dim[1];
			}
			memcpy(s.grank, grank, sizeof s.grank);
			Term *pre = op->pre(tc, &s), *st[64];
			int sp = 0;
			st[sp++] = pre;
			while (sp) {
				Term *x = st[--sp];
				if (x->kind == TK_AND && sp < 62) {
					st[sp++] = x->a[0];
					st[sp++] = x->a[1];
				} else if (x->kind == TK_EQ && x->a[0]->kind == TK_VAR && x->a[1]->kind == TK_VAR && nu < 32) {
					Term *a = root_of(from, to, nu, x->a[0]), *b = root_of(from, to, nu, x->a[1]);
					if (a != b) {
						from[nu] = a;
						to[nu++] = b;
					}
				}
			}
			int nl = 0;
			Term *seen[32], *named[32];
			for (int o = 0; o < op->nopnd; o++)
				for (int d = 0; d < 2; d++) {
					Term *v = root_of(from, to, nu, g->nodes[o].dim[d]);
					if (v->kind == TK_VAR && !elementwise) {
						int k;
						for (k = 0; k < nl && seen[k] != v; k++)
							;
						if (k == nl && nl < 8) {
							seen[nl] = v;
							named[nl] = t_var(tc, letters[nl], TS_INT);
							nl++;
						}
						v = k < nl ? named[k] : v;
					}
					g->nodes[o].dim[d] = v;
				}
			for (int k = 0; k < (elementwise ? 2 : nl); k++)
				g->syms[g->nsyms++] = elementwise ? letters[k] : t_str(tc, named[k]);
			for (int o = 0; o < op->nopnd; o++) {
				s.dim[o][0] = g->nodes[o].dim[0];
				s.dim[o][1] = g->nodes[o].dim[1];
			}
			AxNode n = { .op = opi, .nin = op->nopnd };
			for (int o = 0; o < op->nopnd; o++)
				n.in[o] = o;
			memcpy(n.grank, grank, sizeof n.grank);
			Term *out[AX_MAXR];
			n.rank = op->shape(tc, &s, out);
			for (int d = 0; d < n.rank; d++)
				n.dim[d] = out[d];
			g->outputs[0] = graph_add(g, &n);
			g->noutputs = 1;
			char why[256];
			Smt *smt = smt_new(t);
			Term *h = t_bool(tc, 1);
			for (int k = 0; k < g->nsyms; k++)
				h = t_bin(tc, TK_AND, h, t_bin(tc, TK_LE, t_int(tc, 1), t_var(tc, g->syms[k], TS_INT)));
			int valid = smt_prove(smt, h, op->pre(tc, &s), why, sizeof why);
			AxNode *res = &g->nodes[g->outputs[0]];
			for (int d = 0; valid && d < res->rank; d++)
				res->dim[d] = size_simplify(smt, tc, h, res->dim[d]);
			smt_free(smt);
			if (!valid)
				continue;
			if (icb)
				icb(env, g);
			int ch = 0;
			synth_tile(t, tc, g, depth, cb, env, &ch);
			*checked += ch;
			done++;
		}
	}
	return done;
}

/* The 2-D tile of a graph node: its operands as inputs (rank 2 each, the
 * node's own sizes), the node's op on them.  NULL when the node is not a 2-D
 * computation (a layout op, a constant, an operand of another rank: those
 * wait for the tiling stage). */
AxGraph *
synth_node_tile(const AxGraph *g, int id, char *why, size_t n)
{
	const AxNode *nd = &g->nodes[id];
	const AxOp *op = node_op(g, nd);
	if (nd->op < 0 || op->layout_only || op->nopnd == 0 || op->nattr) {
		snprintf(why, n, "moves data or makes a constant: for the tiling stage");
		return NULL;
	}
	if (nd->rank != 2) {
		snprintf(why, n, "rank %d: for the tiling stage", nd->rank);
		return NULL;
	}
	AxGraph *t = graph_new(g->t, g->tc);
	t->params = arena_alloc(tc_arena(g->tc), sizeof *t->params * (size_t)(op->nopnd + 1));
	for (int o = 0; o < op->nopnd; o++) {
		int src = nd->in[o];
		if (src < 0 || g->nodes[src].rank != 2) {
			snprintf(why, n, "operand %d has rank %d: for the tiling stage", o, src < 0 ? -1 : g->nodes[src].rank);
			return NULL;
		}
		AxNode in = { .op = -1, .input = o, .rank = 2 };
		memcpy(in.dim, g->nodes[src].dim, sizeof in.dim);
		t->params[t->nparams++] = (AxParam){ .name = op->opnd[o].name, .tensor = 1, .node = o, .dtype = "f32" };
		graph_add(t, &in);
	}
	AxNode x = *nd;
	for (int o = 0; o < op->nopnd; o++)
		x.in[o] = o;
	t->outputs[0] = graph_add(t, &x);
	t->noutputs = 1;
	memcpy(t->syms, g->syms, sizeof t->syms);
	t->nsyms = g->nsyms;
	memcpy(t->assume, g->assume, sizeof t->assume);
	t->nassume = g->nassume;
	return t;
}
