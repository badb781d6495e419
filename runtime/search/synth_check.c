/*
 * synth_check.c — a candidate of the synthesizer whose value is the tile
 * op's becomes a sequence: its instructions as a graph, their preconditions
 * split into hardware limits (the sequence's constraints) and conditions that
 * must hold for every size, the proof of equality by the checker, and the
 * engines each instruction may run on with the limits particular to them.
 */
#include <string.h>
#include "synth.h"

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
	int in[AX_MAXOPND];
	for (int o = 0; o < op->nopnd; o++)
		in[o] = c->in[o] >= 0 ? add_nodes(sy, g, c->in[o]) : -1;
	Term *pre;
	int node = graph_add_inst(g, c->inst, -1, c->attr, c->sattr, in, &pre);
	/* its preconditions: hardware limits become the sequence's constraints */
	if (g->nassume < 64)
		g->assume[g->nassume++] = pre;
	return node;
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

void
try_solution(Synth *sy, int id)
{
	AxGraph *g = graph_copy(sy->lhs);
	g->nnodes = sy->nin;
	g->nassume = 0;
	g->noutputs = 1;
	g->outputs[0] = add_nodes(sy, g, id);
	SynthSeq seq = { 0 };
	if (!sy->eq) {   /* a Z3 context costs milliseconds: only a search with a candidate pays */
		sy->eq = equiv_new(sy->t, sy->tc, 2000);
		sy->smt = equiv_smt(sy->eq);
	}
	if (split_constraints(sy, g, seq.constraints, sizeof seq.constraints) != 0)
		return;
	sy->checked++;
	EquivResult r;
	if (equiv_graphs(sy->eq, sy->lhs, g, &r) != EQ_EQUIVALENT) {
		sy->unproved++;
		return;
	}
	sy->proved++;
	cand_text(sy, id, seq.text, sizeof seq.text);
	Term *base = t_and_all(sy->tc, g->nassume, g->assume);
	seq.limit = base;
	for (int i = sy->nin; i < g->nnodes && seq.ninsts < 8; i++) {
		const AxOp *op = node_op(g, &g->nodes[i]);
		seq.inst[seq.ninsts] = g->nodes[i].op;
		for (int o = 0; o < AX_MAXOPND; o++) {
			int src = o < g->nodes[i].nin ? g->nodes[i].in[o] : -1;
			seq.src[seq.ninsts][o] = src < 0 ? SYNTH_OMITTED : src < sy->nin ? -1 - src : src - sy->nin;
		}
		memcpy(seq.attr[seq.ninsts], g->nodes[i].attr, sizeof seq.attr[0]);
		memcpy(seq.sattr[seq.ninsts], g->nodes[i].sattr, sizeof seq.sattr[0]);
		seq.insts[seq.ninsts] = op->name;
		seq.engines[seq.ninsts] = op->engines;
		engine_limits(sy, g, i, base, &seq);
		seq.ninsts++;
	}
	sy->longer += sy->found >= 1 && seq.ninsts > sy->found;
	if (sy->cb(sy->cbenv, &seq))
		sy->spent = 1;
}
