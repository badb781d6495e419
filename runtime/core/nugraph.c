/*
 * nugraph.c — the νGraph: a set of semantically equivalent graph variants
 * (paper section 4.1), each with its own copy of per-operation metadata that
 * later stages extend.
 *
 * A variant is an AxGraph whose nodes are in dependency order and all live
 * (reachable from an output); ids are indices into that array.  Variants are
 * deduplicated by a canonical form, so two paths to the same graph give one
 * variant.  ng_check() verifies the invariants and can run between stages.
 */
#include <stdlib.h>
#include <string.h>
#include "axon.h"

NuGraph *
ng_new(const AxGraph *g0)
{
	Arena *a = tc_arena(g0->tc);
	NuGraph *ng = arena_alloc(a, sizeof *ng);
	ng->g0 = g0;
	ng->tc = g0->tc;
	return ng;
}

/* A copy of g with its own node array (parameters, sizes and assumptions
 * are shared: they never change between variants). */
AxGraph *
graph_copy(const AxGraph *g)
{
	Arena *a = tc_arena(g->tc);
	AxGraph *c = arena_alloc(a, sizeof *c);
	*c = *g;
	c->cap = g->nnodes + 8;
	c->nodes = arena_alloc(a, sizeof *c->nodes * (size_t)c->cap);
	memcpy(c->nodes, g->nodes, sizeof *c->nodes * (size_t)g->nnodes);
	c->meta = arena_alloc(a, sizeof *c->meta * (size_t)c->cap);
	if (g->meta)
		memcpy(c->meta, g->meta, sizeof *c->meta * (size_t)g->nnodes);
	return c;
}

/* A graph with g's sizes, parameters and assumptions and no nodes yet, room for cap. */
AxGraph *
graph_shell(const AxGraph *g, int cap)
{
	Arena *a = tc_arena(g->tc);
	AxGraph *c = arena_alloc(a, sizeof *c);
	*c = *g;
	c->nnodes = 0;
	c->cap = cap;
	c->nodes = arena_alloc(a, sizeof *c->nodes * (size_t)cap);
	c->meta = arena_alloc(a, sizeof *c->meta * (size_t)cap);
	return c;
}

/* Drops dead nodes and renumbers the rest in dependency order.  Inputs stay
 * first, in their order, so a parameter's node id (AxParam.node, shared by
 * all variants) stays right.  Uses of old ids are rewritten. */
void
graph_compact(AxGraph *g)
{
	int n = g->nnodes;
	int *order = calloc((size_t)n + 1, sizeof *order);
	int *newid = calloc((size_t)n + 1, sizeof *newid), *state = calloc((size_t)n + 1, sizeof *state);
	int *stack = calloc((size_t)n * 2 + 2, sizeof *stack);
	if (!order || !newid || !state || !stack)
		ax_die("out of memory");
	int no = 0;
	for (int i = 0; i < n; i++)   /* inputs first, by parameter */
		if (g->nodes[i].op < 0)
			state[i] = 2, order[no++] = i;
	/* depth-first post-order from the outputs, operands in order */
	for (int k = 0; k < g->noutputs; k++) {
		int sp = 0;
		stack[sp++] = g->outputs[k];
		while (sp) {
			int v = stack[sp - 1];
			if (state[v] == 2) {
				sp--;
				continue;
			}
			if (state[v] == 1) {
				state[v] = 2;
				order[no++] = v;
				sp--;
				continue;
			}
			state[v] = 1;
			const AxNode *nd = &g->nodes[v];
			for (int o = nd->nin - 1; o >= 0; o--)
				if (nd->in[o] >= 0 && state[nd->in[o]] != 2) {
					if (state[nd->in[o]] == 1)
						ax_die("graph_compact: a cycle through node %d", v);
					stack[sp++] = nd->in[o];
				}
		}
	}
	/* renumbered in place (the graph's arrays hold n >= no nodes): compacting allocates
	 * nothing in the arena, and an order that changes nothing copies nothing */
	int same = no == n;
	for (int i = 0; i < no && same; i++)
		same = order[i] == i;
	if (!g->meta)
		g->meta = arena_alloc(tc_arena(g->tc), sizeof *g->meta * (size_t)(n + 1));
	if (!same) {
		AxNode *nodes = malloc(sizeof *nodes * (size_t)(no + 1));
		NodeMeta *meta = malloc(sizeof *meta * (size_t)(no + 1));
		if (!nodes || !meta)
			ax_die("out of memory");
		for (int i = 0; i < no; i++)
			newid[order[i]] = i;
		for (int i = 0; i < no; i++) {
			nodes[i] = g->nodes[order[i]];
			meta[i] = g->meta[order[i]];
			for (int o = 0; o < nodes[i].nin; o++)
				if (nodes[i].in[o] >= 0)
					nodes[i].in[o] = newid[nodes[i].in[o]];
		}
		for (int k = 0; k < g->noutputs; k++)
			g->outputs[k] = newid[g->outputs[k]];
		memcpy(g->nodes, nodes, sizeof *nodes * (size_t)no);
		memcpy(g->meta, meta, sizeof *meta * (size_t)no);
		free(nodes);
		free(meta);
	}
	g->nnodes = no;
	g->cap = no;   /* the next node appended moves both arrays (meta may have no more room) */
	free(order);
	free(newid);
	free(state);
	free(stack);
}

/* The canonical form: every live node as op(attributes; operand keys), keys
 * given in depth-first order from the outputs. */
char *
graph_canon(const AxGraph *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		ax_die("open_memstream");
	int *key = calloc((size_t)g->nnodes + 1, sizeof *key), next = 0;
	for (int i = 0; i < g->nnodes; i++)
		key[i] = -1;
	/* nodes are in dependency order after graph_compact: one pass suffices */
	for (int i = 0; i < g->nnodes; i++) {
		const AxNode *n = &g->nodes[i];
		key[i] = next++;
		if (n->op < 0) {
			fprintf(f, "%d=in%d;", key[i], n->input);
			continue;
		}
		const AxOp *op = node_op(g, n);
		fprintf(f, "%d=%s%s@%d[", key[i], n->inst ? "inst:" : "", op->name, n->inst ? n->engine : -1);
		for (int k = 0; k < op->ngroups; k++)
			fprintf(f, "%d,", n->grank[k]);
		for (int a = 0; a < op->nattr; a++) {
			if (op->attr[a].kind == AX_ATTR_ENUM)
				fprintf(f, "e%d,", n->attr[a]);
			else if (n->sattr[a]) {
				t_print(f, NULL, n->sattr[a]);
				fputc(',', f);
			}
		}
		fputc('(', f);
		for (int o = 0; o < n->nin; o++)
			fprintf(f, "%d,", n->in[o] >= 0 ? key[n->in[o]] : -1);
		fputs(")];", f);
	}
	fputs("out:", f);
	for (int k = 0; k < g->noutputs; k++)
		fprintf(f, "%d,", key[g->outputs[k]]);
	fclose(f);
	free(key);
	char *s = arena_strdup(tc_arena(g->tc), buf);
	free(buf);
	return s;
}

/* Adds g (compacted) unless an equal variant is there; returns its index. */
int
ng_add(NuGraph *ng, AxGraph *g, int *added)
{
	graph_compact(g);
	char *c = graph_canon(g);
	for (int i = 0; i < ng->nvariants; i++)
		if (strcmp(ng->canon[i], c) == 0) {
			*added = 0;
			return i;
		}
	if (ng->nvariants == ng->cap) {
		int cap = ng->cap ? 2 * ng->cap : 16;
		Arena *a = tc_arena(ng->tc);
		AxGraph **v = arena_alloc(a, sizeof *v * (size_t)cap);
		char **cs = arena_alloc(a, sizeof *cs * (size_t)cap);
		if (ng->nvariants) {
			memcpy(v, ng->variants, sizeof *v * (size_t)ng->nvariants);
			memcpy(cs, ng->canon, sizeof *cs * (size_t)ng->nvariants);
		}
		ng->variants = v;
		ng->canon = cs;
		ng->cap = cap;
	}
	ng->variants[ng->nvariants] = g;
	ng->canon[ng->nvariants] = c;
	*added = 1;
	return ng->nvariants++;
}

/* The invariants: operands precede their users, every node is live, ranks
 * and shapes are set, outputs exist, and no two variants are equal. */
int
ng_check(const NuGraph *ng, char *err, size_t n)
{
	for (int v = 0; v < ng->nvariants; v++) {
		const AxGraph *g = ng->variants[v];
		for (int i = 0; i < g->nnodes; i++) {
			const AxNode *nd = &g->nodes[i];
			if (nd->rank < 0 || nd->rank > AX_MAXR)
				return ax_fail(err, n, "variant %d node %d has rank %d", v, i, nd->rank);
			for (int d = 0; d < nd->rank; d++)
				if (!nd->dim[d])
					return ax_fail(err, n, "variant %d node %d has no dim %d", v, i, d);
			for (int o = 0; o < nd->nin; o++)
				if (nd->in[o] >= i)
					return ax_fail(err, n, "variant %d node %d reads node %d, not before it", v, i, nd->in[o]);
		}
		for (int k = 0; k < g->noutputs; k++)
			if (g->outputs[k] < 0 || g->outputs[k] >= g->nnodes)
				return ax_fail(err, n, "variant %d output %d is out of range", v, k);
		for (int w = 0; w < v; w++)
			if (strcmp(ng->canon[v], ng->canon[w]) == 0)
				return ax_fail(err, n, "variants %d and %d are the same", w, v);
	}
	return 0;
}
