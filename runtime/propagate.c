/*
 * propagate.c — operator propagation, Algorithm 1 of the paper (section 3.2).
 *
 * Each operator op1 of the input graph, in topological order, is pushed
 * down past its successors: SwapWithSuccessor(G, op1, op2, S) applies op2 to
 * the inputs S of op1 (clone degree k = |S|) and op1 to the results, in place
 * of op2.  A swap is kept only if the equivalence checker proves the local
 * pair (op2 after op1, against op1 after the clones of op2) equal for every
 * size; the smallest clone degree with a valid swap wins, the new variant
 * continues propagating from op1's new position, and the search saturates
 * when nothing moves.  There is no list of rewrite rules: which swaps hold
 * is the checker's to say.  A variant cap and a time budget stop a run away
 * search, and the stop reason is recorded.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "axon.h"

typedef struct Prop {
	NuGraph *ng;
	Smt *smt;
	Equiv *eq;
	Term *hyp;
	const PropOpts *o;
	double t0;
	int stopped;
} Prop;

/* Recomputes n's group ranks (broadcast ops), rank and shape from its
 * operands in g; 0 if the op's preconditions hold for every admitted size. */
static int
reinstantiate(Prop *pr, const AxGraph *g, AxNode *n)
{
	const AxOp *op = node_op(g, n);
	int rank[AX_MAXOPND];
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		int src = o < n->nin ? n->in[o] : -1;
		rank[o] = s.rank[o] = src >= 0 ? g->nodes[src].rank : -1;
		for (int d = 0; src >= 0 && d < rank[o]; d++)
			s.dim[o][d] = g->nodes[src].dim[d];
	}
	if (op->broadcast)
		ax_infer_granks(op->layout, rank, n->grank);
	for (int o = 0; o < op->nopnd; o++) {
		if (rank[o] < 0)
			continue;
		int want = 0;
		for (int k = 0; k < op->opnd[o].ndims; k++)
			want += op->opnd[o].pat[k] < 0 ? 1 : n->grank[op->opnd[o].pat[k]];
		if (op->broadcast ? rank[o] < op->opnd[o].nfixed || rank[o] - op->opnd[o].nfixed > n->grank[0]
		                  : rank[o] != want)
			return -1;
	}
	memcpy(s.grank, n->grank, sizeof s.grank);
	memcpy(s.attr, n->attr, sizeof s.attr);
	memcpy(s.sattr, n->sattr, sizeof s.sattr);
	if (ax_pos(op->layout, s.rank, s.grank, -1, op->layout->nout) > AX_MAXR)
		return -1;
	Term *out[AX_MAXR];
	n->rank = op->shape(g->tc, &s, out);
	char why[256];
	if (!smt_prove(pr->smt, pr->hyp, op->pre(g->tc, &s), why, sizeof why))
		return -1;
	for (int d = 0; d < n->rank; d++)
		n->dim[d] = size_simplify(pr->smt, g->tc, pr->hyp, out[d]);
	return 0;
}

static int
node_append(AxGraph *g, const AxNode *n, int origin)
{
	if (g->nnodes == g->cap) {
		int cap = 2 * g->cap + 8;
		AxNode *v = arena_alloc(tc_arena(g->tc), sizeof *v * (size_t)cap);
		NodeMeta *m = arena_alloc(tc_arena(g->tc), sizeof *m * (size_t)cap);
		memcpy(v, g->nodes, sizeof *v * (size_t)g->nnodes);
		memcpy(m, g->meta, sizeof *m * (size_t)g->nnodes);
		g->nodes = v;
		g->meta = m;
		g->cap = cap;
	}
	g->nodes[g->nnodes] = *n;
	g->meta[g->nnodes].origin = origin;
	return g->nnodes++;
}

static int
same_shape(Prop *pr, const AxNode *a, const AxNode *b)
{
	char why[256];
	if (a->rank != b->rank)
		return 0;
	for (int d = 0; d < a->rank; d++)
		if (a->dim[d] != b->dim[d] &&
		    !smt_prove(pr->smt, pr->hyp, t_bin(pr->ng->tc, TK_EQ, a->dim[d], b->dim[d]), why, sizeof why))
			return 0;
	return 1;
}

static int
param_of(const int *xs, int nx, int id)
{
	for (int k = 0; k < nx; k++)
		if (xs[k] == id)
			return k;
	return -1;
}

/* The local pair as two small graphs over the same fresh inputs: op2 after
 * op1, and op1 after the clones of op2; then the checker. */
static int
local_equiv(Prop *pr, const AxGraph *g, int p, int q, int slot, unsigned S, const AxNode *clones,
            const AxNode *op1n)
{
	TermCtx *tc = g->tc;
	const AxNode *n1 = &g->nodes[p], *n2 = &g->nodes[q];
	int ext[2 * AX_MAXOPND], next = 0;
	for (int o = 0; o < n1->nin; o++)
		if (n1->in[o] >= 0)
			ext[next++] = n1->in[o];
	for (int o = 0; o < n2->nin; o++)
		if (o != slot && n2->in[o] >= 0)
			ext[next++] = n2->in[o];
	/* distinct external nodes become the parameters */
	int nx = 0, xs[2 * AX_MAXOPND];
	for (int i = 0; i < next; i++) {
		int seen = 0;
		for (int k = 0; k < nx; k++)
			seen |= xs[k] == ext[i];
		if (!seen)
			xs[nx++] = ext[i];
	}
	AxGraph *l = graph_copy(g), *r = graph_copy(g);
	AxGraph *gs[2] = { l, r };
	AxParam *params = arena_alloc(tc_arena(tc), sizeof *params * (size_t)(nx + 1));
	for (int k = 0; k < nx; k++) {
		char name[16];
		snprintf(name, sizeof name, "t%d", k);
		params[k] = (AxParam){ .name = arena_strdup(tc_arena(tc), name), .tensor = 1, .node = k, .dtype = "f32" };
	}
	for (int s = 0; s < 2; s++) {
		gs[s]->nnodes = 0;
		gs[s]->nparams = nx;
		gs[s]->params = params;
		for (int k = 0; k < nx; k++) {
			AxNode in = { .op = -1, .input = k, .rank = g->nodes[xs[k]].rank };
			memcpy(in.dim, g->nodes[xs[k]].dim, sizeof in.dim);
			node_append(gs[s], &in, -1);
		}
	}
#define MAP(id) param_of(xs, nx, (id))
	/* left: op1 then op2 */
	AxNode a = *n1;
	for (int o = 0; o < a.nin; o++)
		a.in[o] = a.in[o] >= 0 ? MAP(a.in[o]) : -1;
	int ia = node_append(l, &a, -1);
	AxNode b = *n2;
	for (int o = 0; o < b.nin; o++)
		b.in[o] = o == slot ? ia : b.in[o] >= 0 ? MAP(b.in[o]) : -1;
	l->outputs[0] = node_append(l, &b, -1);
	l->noutputs = 1;
	/* right: the clones of op2, then op1 */
	AxNode c1 = *op1n;
	for (int o = 0; o < n1->nin; o++) {
		if (!(S & (1u << o)) || n1->in[o] < 0) {
			c1.in[o] = n1->in[o] >= 0 ? MAP(n1->in[o]) : -1;
			continue;
		}
		AxNode c = clones[o];
		for (int k = 0; k < c.nin; k++)
			c.in[k] = k == slot ? MAP(n1->in[o]) : n2->in[k] >= 0 ? MAP(n2->in[k]) : -1;
		c1.in[o] = node_append(r, &c, -1);
	}
#undef MAP
	r->outputs[0] = node_append(r, &c1, -1);
	r->noutputs = 1;
	EquivResult res;
	equiv_graphs(pr->eq, l, r, &res);
	pr->ng->checks++;
	return res.verdict == EQ_EQUIVALENT;
}

/* The checker and its solver, made at the first swap tried (a Z3 context
 * costs milliseconds; a program with nothing to swap needs none). */
static void
need_solver(Prop *pr)
{
	if (pr->eq)
		return;
	const AxGraph *g0 = pr->ng->g0;
	pr->eq = equiv_new(g0->t, g0->tc, pr->o->timeout_ms > 0 ? pr->o->timeout_ms : 2000);
	pr->smt = equiv_smt(pr->eq);
}

/* SwapWithSuccessor: a new variant with op2 (node q, reading op1's result in
 * one operand slot) applied to op1's inputs in S and op1 applied after; or
 * NULL when the shapes do not work out or the checker does not prove it. */
static AxGraph *
swap(Prop *pr, const AxGraph *g, int p, int q, unsigned S, int *newpos)
{
	const AxNode *n1 = &g->nodes[p], *n2 = &g->nodes[q];
	int slot = -1, uses = 0;
	for (int o = 0; o < n2->nin; o++)
		if (n2->in[o] == p) {
			slot = o;
			uses++;
		}
	if (uses != 1)
		return NULL;
	/* op1 moves only when op2 is its one consumer: otherwise the other
	 * consumers would keep it and the swap would duplicate its work */
	for (int i = 0; i < g->nnodes; i++)
		for (int o = 0; i != q && o < g->nodes[i].nin; o++)
			if (g->nodes[i].in[o] == p)
				return NULL;
	for (int k = 0; k < g->noutputs; k++)
		if (g->outputs[k] == p)
			return NULL;
	need_solver(pr);
	AxGraph *ng = graph_copy(g);
	AxNode clones[AX_MAXOPND];
	AxNode op1n = *n1;
	for (int o = 0; o < n1->nin; o++) {
		if (!(S & (1u << o)))
			continue;
		if (n1->in[o] < 0)
			return NULL;
		AxNode c = *n2;
		c.in[slot] = n1->in[o];
		if (reinstantiate(pr, ng, &c) != 0)
			return NULL;
		clones[o] = c;
		op1n.in[o] = node_append(ng, &c, g->meta[q].origin);
	}
	if (reinstantiate(pr, ng, &op1n) != 0 || !same_shape(pr, &op1n, n2))
		return NULL;
	if (!local_equiv(pr, g, p, q, slot, S, clones, &op1n))
		return NULL;
	int np_ = node_append(ng, &op1n, g->meta[p].origin);
	/* op1's new node takes op2's place for every user of op2 */
	for (int i = 0; i < ng->nnodes; i++)
		for (int o = 0; o < ng->nodes[i].nin; o++)
			if (ng->nodes[i].in[o] == q && i != np_)
				ng->nodes[i].in[o] = np_;
	for (int k = 0; k < ng->noutputs; k++)
		if (ng->outputs[k] == q)
			ng->outputs[k] = np_;
	graph_compact(ng);
	*newpos = -1;
	for (int i = 0; i < ng->nnodes; i++)
		if (ng->meta[i].origin == g->meta[p].origin)
			*newpos = i;
	return ng;
}

static int
out_of_budget(Prop *pr)
{
	if (pr->stopped)
		return 1;
	int maxv = pr->o->max_variants > 0 ? pr->o->max_variants : 256;
	int ms = pr->o->time_ms > 0 ? pr->o->time_ms : 10000;
	if (pr->ng->nvariants >= maxv) {
		pr->ng->stop = "max-variants";
		pr->stopped = 1;
	} else if (ax_now_ms() - pr->t0 > ms) {
		pr->ng->stop = "time";
		pr->stopped = 1;
	}
	return pr->stopped;
}

typedef struct Work {
	AxGraph *g;
	int pos;
} Work;

NuGraph *
propagate(const AxGraph *g0, const PropOpts *o)
{
	Prop pr = { .o = o, .t0 = ax_now_ms() };
	AxGraph *first = graph_copy(g0);
	for (int i = 0; i < first->nnodes; i++)
		first->meta[i].origin = i;
	NuGraph *ng = ng_new(g0);
	pr.ng = ng;
	int added;
	ng_add(ng, first, &added);
	ng->stop = "saturated";
	if (o->no_algebraic) {
		ng->ms = ax_now_ms() - pr.t0;
		return ng;
	}
	Term *h = t_bool(g0->tc, 1);
	for (int i = 0; i < g0->nsyms; i++)
		h = t_bin(g0->tc, TK_AND, h, t_bin(g0->tc, TK_LE, t_int(g0->tc, 1), t_var(g0->tc, g0->syms[i], TS_INT)));
	for (int i = 0; i < g0->nassume; i++)
		h = t_bin(g0->tc, TK_AND, h, g0->assume[i]);
	pr.hyp = h;
	int wcap = 4096;
	Work *w = malloc(sizeof *w * (size_t)wcap);
	if (!w)
		ax_die("out of memory");
	for (int op1 = 0; op1 < first->nnodes && !out_of_budget(&pr); op1++) {
		if (first->nodes[op1].op < 0)
			continue;
		int nv = ng->nvariants;   /* the variants before this operator */
		for (int v = 0; v < nv && !out_of_budget(&pr); v++) {
			int nw = 0;
			AxGraph *gv = ng->variants[v];
			for (int i = 0; i < gv->nnodes && nw < wcap; i++)
				if (gv->meta[i].origin == op1)
					w[nw++] = (Work){ gv, i };
			while (nw > 0 && !out_of_budget(&pr)) {
				Work cur = w[--nw];
				const AxNode *n1 = &cur.g->nodes[cur.pos];
				for (int q = cur.pos + 1; q < cur.g->nnodes && !out_of_budget(&pr); q++) {
					int succ = 0;
					for (int k = 0; k < cur.g->nodes[q].nin; k++)
						succ |= cur.g->nodes[q].in[k] == cur.pos;
					if (!succ)
						continue;
					int ni = 0;
					for (int k = 0; k < n1->nin; k++)
						ni += n1->in[k] >= 0;
					int accepted = 0;
					for (int k = 1; k <= ni && !accepted; k++)   /* the smallest clone degree first */
						for (unsigned S = 1; S < (1u << n1->nin) && !out_of_budget(&pr); S++) {
							if (__builtin_popcount(S) != k)
								continue;
							int np_;
							AxGraph *gn = swap(&pr, cur.g, cur.pos, q, S, &np_);
							if (!gn)
								continue;
							accepted = 1;
							ng->swaps++;
							int idx = ng_add(ng, gn, &added);
							if (added && np_ >= 0 && nw < wcap)
								w[nw++] = (Work){ ng->variants[idx], np_ };
						}
				}
			}
		}
	}
	free(w);
	if (pr.eq) {
		int checks, hits;
		equiv_stats(pr.eq, &checks, &hits);
		ng->cache_hits = hits;
		equiv_free(pr.eq);
	}
	ng->ms = ax_now_ms() - pr.t0;
	return ng;
}
