/*
 * graph.c — a tensor program as a dataflow graph, and its reference execution.
 *
 * Nodes are added in dependency order (a node's inputs have smaller ids), so
 * running the graph is one pass over the ids.  Shapes are terms over the
 * program's size symbols; running evaluates them under concrete sizes and
 * calls each op's generated check() and reference kernel.
 */
#include <stdlib.h>
#include <string.h>
#include "axon.h"

AxGraph *
graph_new(const AxTarget *t, TermCtx *tc)
{
	AxGraph *g = arena_alloc(tc_arena(tc), sizeof *g);
	g->t = t;
	g->tc = tc;
	return g;
}

const AxOp *
node_op(const AxGraph *g, const AxNode *n)
{
	return n->inst ? &g->t->insts[n->op] : &g->t->ops[n->op];
}

int
graph_add(AxGraph *g, const AxNode *n)
{
	if (g->nnodes == g->cap) {
		int cap = g->cap ? 2 * g->cap : 32;
		AxNode *v = arena_alloc(tc_arena(g->tc), sizeof *v * (size_t)cap);
		if (g->nnodes)
			memcpy(v, g->nodes, sizeof *v * (size_t)g->nnodes);
		g->nodes = v;
		g->cap = cap;
	}
	g->nodes[g->nnodes] = *n;
	return g->nnodes++;
}

/* Appends instruction inst over nodes in[] (-1: an optional operand left
 * out) on engine (-1: its first), its dims from its shape function; *pre
 * gets its preconditions on that engine.  Returns the node id. */
int
graph_add_inst(AxGraph *g, int inst, int engine, const int *attr, Term *const *sattr, const int *in, Term **pre)
{
	const AxOp *op = &g->t->insts[inst];
	AxNode n = { .op = inst, .inst = 1, .nin = op->nopnd, .engine = engine };
	for (int e = 0; e < g->t->nengines && engine < 0; e++)
		if (op->engines & (1u << e)) {
			n.engine = e;
			break;
		}
	memcpy(n.attr, attr, sizeof n.attr);
	memcpy(n.sattr, sattr, sizeof n.sattr);
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		n.in[o] = in[o];
		s.rank[o] = in[o] >= 0 ? g->nodes[in[o]].rank : -1;
		for (int d = 0; d < s.rank[o]; d++)
			s.dim[o][d] = g->nodes[in[o]].dim[d];
	}
	memcpy(s.attr, n.attr, sizeof s.attr);
	memcpy(s.sattr, n.sattr, sizeof s.sattr);
	s.engine = n.engine;
	Term *out[AX_MAXR];
	n.rank = op->shape(g->tc, &s, out);
	for (int d = 0; d < n.rank; d++)
		n.dim[d] = out[d];
	*pre = op->pre(g->tc, &s);
	return graph_add(g, &n);
}

/* How many operand slots and outputs read node id. */
int
graph_readers(const AxGraph *g, int id)
{
	int n = 0;
	for (int z = 0; z < g->nnodes; z++)
		for (int k = 0; k < g->nodes[z].nin; k++)
			n += g->nodes[z].in[k] == id;
	for (int k = 0; k < g->noutputs; k++)
		n += g->outputs[k] == id;
	return n;
}

int
graph_is_output(const AxGraph *g, int id)
{
	for (int k = 0; k < g->noutputs; k++)
		if (g->outputs[k] == id)
			return 1;
	return 0;
}

int
graph_shape(const AxGraph *g, int node, const AxEnv *sizes, AxShape *s)
{
	const AxNode *n = &g->nodes[node];
	s->rank = n->rank;
	for (int d = 0; d < n->rank; d++) {
		double v;
		if (t_eval(n->dim[d], sizes, &v) != 0)
			return -1;
		s->d[d] = (int64_t)v;
	}
	return 0;
}

/* The concrete instance of an op node: shapes of its inputs, attributes. */
static int
node_conc(const AxGraph *g, int id, const AxEnv *sizes, const AxShape *shapes, AxConc *c, char *err,
          size_t errlen)
{
	const AxNode *n = &g->nodes[id];
	const AxOp *op = node_op(g, n);
	*c = (AxConc){ 0 };
	c->nopnd = op->nopnd;
	for (int o = 0; o < op->nopnd; o++) {
		int src = o < n->nin ? n->in[o] : -1;
		if (src < 0) {
			c->rank[o] = -1;
			continue;
		}
		c->rank[o] = shapes[src].rank;
		memcpy(c->dim[o], shapes[src].d, sizeof c->dim[o]);
	}
	memcpy(c->grank, n->grank, sizeof c->grank);
	memcpy(c->attr, n->attr, sizeof c->attr);
	c->engine = n->engine;
	for (int a = 0; a < op->nattr; a++) {
		if (op->attr[a].kind == AX_ATTR_ENUM)
			continue;
		double v;
		if (!n->sattr[a] || t_eval(n->sattr[a], sizes, &v) != 0)
			return ax_fail(err, errlen, "%d:%d: cannot evaluate attribute '%s' of %s", n->loc.line, n->loc.col,
			               op->attr[a].name, op->name);
		if (op->attr[a].kind == AX_ATTR_SIZE)
			c->size[a] = (int64_t)v;
		else
			c->fval[a] = v;
	}
	return 0;
}

int
graph_run(const AxGraph *g, const AxEnv *sizes, const float *const *in, float **out, AxShape *oshape, char *err,
          size_t errlen)
{
	Arena *a = arena_new();
	float **val = arena_alloc(a, sizeof *val * (size_t)g->nnodes);
	AxShape *shape = arena_alloc(a, sizeof *shape * (size_t)g->nnodes);
	int rc = 0;
	for (int id = 0; id < g->nnodes && rc == 0; id++) {
		const AxNode *n = &g->nodes[id];
		if (n->op < 0) {
			if (graph_shape(g, id, sizes, &shape[id]) != 0) {
				rc = ax_fail(err, errlen, "cannot evaluate the shape of input '%s'", g->params[n->input].name);
				break;
			}
			val[id] = (float *)in[n->input];
			continue;
		}
		const AxOp *op = node_op(g, n);
		AxConc c;
		if ((rc = node_conc(g, id, sizes, shape, &c, err, errlen)) != 0)
			break;
		char e[256];
		if (op->check(&c, &shape[id], e, sizeof e) != 0) {
			rc = ax_fail(err, errlen, "%s:%d:%d: %s: %s", n->loc.file, n->loc.line, n->loc.col, op->name, e);
			break;
		}
		int64_t numel = ax_numel(&shape[id]);
		if (numel > ((int64_t)1 << 31)) {
			rc = ax_fail(err, errlen, "%s:%d:%d: %s: result of %lld elements is too large to run", n->loc.file,
			             n->loc.line, n->loc.col, op->name, (long long)numel);
			break;
		}
		val[id] = arena_alloc(a, sizeof(float) * (size_t)(numel ? numel : 1));
		const float *args[AX_MAXOPND] = { 0 };
		for (int o = 0; o < n->nin; o++)
			args[o] = n->in[o] >= 0 ? val[n->in[o]] : NULL;
		if (op->ref(&c, args, val[id], e, sizeof e) != 0)
			rc = ax_fail(err, errlen, "%s:%d:%d: %s: %s", n->loc.file, n->loc.line, n->loc.col, op->name, e);
	}
	for (int k = 0; k < g->noutputs && rc == 0; k++) {
		int id = g->outputs[k];
		oshape[k] = shape[id];
		int64_t numel = ax_numel(&shape[id]);
		out[k] = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
		if (!out[k])
			ax_die("out of memory");
		memcpy(out[k], val[id], sizeof(float) * (size_t)numel);
	}
	arena_free(a);
	return rc;
}

void
graph_print(FILE *f, const AxGraph *g)
{
	for (int id = 0; id < g->nnodes; id++) {
		const AxNode *n = &g->nodes[id];
		fprintf(f, "  %%%d = ", id);
		if (n->op < 0)
			fprintf(f, "input %s", g->params[n->input].name);
		else {
			const AxOp *op = node_op(g, n);
			fprintf(f, "%s(", op->name);
			for (int o = 0; o < n->nin; o++)
				fprintf(f, o ? ", %%%d" : "%%%d", n->in[o]);
			for (int a = 0; a < op->nattr; a++) {
				fprintf(f, "%s%s=", n->nin || a ? "; " : "", op->attr[a].name);
				if (op->attr[a].kind == AX_ATTR_ENUM)
					fprintf(f, "%s", g->t->enums[op->attr[a].enum_id].items[n->attr[a]]);
				else if (n->sattr[a])
					fprintf(f, "%s", t_infix(g->tc, n->sattr[a]));
			}
			fputc(')', f);
		}
		fputs(" : [", f);
		for (int d = 0; d < n->rank; d++)
			fprintf(f, "%s%s", d ? ", " : "", t_infix(g->tc, n->dim[d]));
		fputs("]\n", f);
	}
	fputs("  return", f);
	for (int k = 0; k < g->noutputs; k++)
		fprintf(f, "%s %%%d", k ? "," : "", g->outputs[k]);
	fputc('\n', f);
}
