/*
 * propagate.c — operator propagation, Algorithm 1 of the paper (section 4.2).
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
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "propagate.h"
#include "split.h"

enum { REFUTE_TRIALS = 8, REFUTE_SYMS = 64 };

typedef struct Refute {      /* refuted's size assignments, and whether hyp holds at each */
	int ready, n;
	const char *names[REFUTE_SYMS];
	double vals[REFUTE_TRIALS][REFUTE_SYMS];
	unsigned char hyp_holds[REFUTE_TRIALS];
} Refute;

typedef struct Prop {
	NuGraph *ng;
	Smt *smt;
	Equiv *eq;
	int own_eq;              /* made here, freed here */
	EquivStats st0;          /* a shared checker's counts before this search */
	Term *hyp;
	Refute rf;               /* made at the first refuted: hyp and the sizes do not change */
	Term **conj;             /* hyp's conjuncts */
	int nconj;
	int sat;                 /* 1 some sizes satisfy hyp, 0 none, -1 not asked yet */
	const PropOpts *o;
	PropHooks *hk;
	double t0;
	int stopped;
	int regroup;             /* >= 0: a clone whose operand rank changed puts the difference in
	                            this ellipsis group (reinstantiate); -1: ranks must match */
	int regrouped;           /* ... some node of the swap was regrouped */
	AxGraph trial;           /* the swap being tried (rebuild): copied to the arena when kept */
	AxNode *snodes;
	NodeMeta *smeta;
	int scap;
} Prop;

static void
conjuncts(Prop *pr, Term *t, int *cap)
{
	if (t->kind == TK_AND) {
		conjuncts(pr, t->a[0], cap);
		conjuncts(pr, t->a[1], cap);
		return;
	}
	if (pr->nconj == *cap) {
		*cap = 2 * *cap + 16;
		pr->conj = realloc(pr->conj, sizeof *pr->conj * (size_t)*cap);
		if (!pr->conj)
			ax_die("out of memory");
	}
	pr->conj[pr->nconj++] = t;
}

/* A size assignment (small values) under which hyp holds and goal does
 * not: then the solver would not prove hyp => goal either. */
static int
refuted(Prop *pr, Term *goal)
{
	Refute *r = &pr->rf;
	/* the assignments, and hyp at each, once a search (hyp evaluated again at every call was
	 * 15% of GQA's Phase 1 instructions) */
	if (!r->ready) {
		const AxGraph *g0 = pr->ng->g0;
		uint64_t st = 0x5eed;
		for (int trial = 0; trial < REFUTE_TRIALS; trial++) {
			int n = 0;
			for (int i = 0; i < g0->nsyms && n < REFUTE_SYMS; i++) {
				st = st * 6364136223846793005ull + 1442695040888963407ull;
				r->names[n] = g0->syms[i];
				r->vals[trial][n++] = trial == 0 ? 1 : (double)(1 + (st >> 33) % 8);
			}
			r->n = n;
			AxEnv env = { n, r->names, r->vals[trial] };
			double h;
			r->hyp_holds[trial] = t_eval(pr->hyp, &env, &h) == 0 && h != 0;
		}
		r->ready = 1;
	}
	for (int trial = 0; trial < REFUTE_TRIALS; trial++) {
		AxEnv env = { r->n, r->names, r->vals[trial] };
		double v;
		if (r->hyp_holds[trial] && t_eval(goal, &env, &v) == 0 && v == 0)
			return 1;
	}
	return 0;
}

/* hyp => goal: at once when every conjunct of goal is one of hyp's (terms
 * are hash-consed) or compares a term with itself; refuted at once by a
 * small size assignment; else asked of the solver. */
static int
holds(Prop *pr, TermCtx *tc, Term *goal)
{
	Term *stack[64];
	int sp = 0, direct = 1;
	stack[sp++] = goal;
	while (sp && direct) {
		Term *t = stack[--sp];
		if (t->kind == TK_AND && sp < 62) {
			stack[sp++] = t->a[0];
			stack[sp++] = t->a[1];
			continue;
		}
		int found = t == t_bool(tc, 1) || ((t->kind == TK_EQ || t->kind == TK_LE) && t->a[0] == t->a[1]);
		for (int i = 0; i < pr->nconj && !found; i++)
			found = pr->conj[i] == t;
		direct = found;
	}
	if (direct)
		return 1;
	if (refuted(pr, goal))
		return 0;
	char why[256];
	return smt_prove(pr->smt, pr->hyp, goal, why, sizeof why);
}

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
	if (op->broadcast || n->inst)   /* an instruction's groups follow its operands' ranks */
		ax_infer_granks(op->layout, rank, n->grank);
	int moved = 0;
	for (int o = 0; o < op->nopnd; o++) {
		if (rank[o] < 0)
			continue;
		int want = 0;
		for (int k = 0; k < op->opnd[o].ndims; k++)
			want += op->opnd[o].pat[k] < 0 ? 1 : n->grank[op->opnd[o].pat[k]];
		if (!op->broadcast && !op->layout_only && rank[o] != want && pr->regroup >= 0 && pr->regroup < op->ngroups &&
		    (op->opnd[o].groups & (1u << pr->regroup)) && !moved &&
		    n->grank[pr->regroup] + rank[o] - want >= 0) {
			/* the operand gained or lost dims (a squeeze moved past the op): they are
			 * taken to belong to group regroup; the checker decides whether that is the
			 * same computation.  Only for an op that computes: views reshuffled among
			 * themselves (a squeeze past an expand_dims) make variants that differ in
			 * nothing but addressing */
			n->grank[pr->regroup] += rank[o] - want;
			moved = 1;
			o = -1;   /* every operand again with the new group ranks */
			continue;
		}
		if (op->broadcast ? rank[o] < op->opnd[o].nfixed || rank[o] - op->opnd[o].nfixed > n->grank[0]
		                  : rank[o] != want)
			return -1;
	}
	pr->regrouped |= moved;
	memcpy(s.grank, n->grank, sizeof s.grank);
	memcpy(s.attr, n->attr, sizeof s.attr);
	memcpy(s.sattr, n->sattr, sizeof s.sattr);
	s.engine = n->engine;    /* an instruction's limits depend on its engine */
	if (ax_pos(op->layout, s.rank, s.grank, -1, op->layout->nout) > AX_MAXR)
		return -1;
	Term *out[AX_MAXR];
	n->rank = op->shape(g->tc, &s, out);
	if (!holds(pr, g->tc, op->pre(g->tc, &s)))
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
	if (a->rank != b->rank)
		return 0;
	for (int d = 0; d < a->rank; d++)
		if (a->dim[d] != b->dim[d] && !holds(pr, pr->ng->tc, t_bin(pr->ng->tc, TK_EQ, a->dim[d], b->dim[d])))
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

/* A concrete difference between l and r (same parameters): both run by the
 * reference kernels at small sizes that satisfy the assumptions, on random
 * inputs.  It can only reject: 0 when they agree or cannot be run. */
static int
differs(const AxGraph *l, const AxGraph *r)
{
	uint64_t st = 0x5eed;
	const char *names[64];
	double vals[64];
	for (int trial = 0; trial < 4; trial++) {
		int nv = 0;
		for (int i = 0; i < l->nsyms && nv < 64; i++) {
			st = st * 6364136223846793005ull + 1442695040888963407ull;
			names[nv] = l->syms[i];
			vals[nv++] = (double)(1 + (st >> 33) % 4);
		}
		AxEnv env = { nv, names, vals };
		int ok = 1;
		for (int i = 0; i < l->nassume && ok; i++) {
			double v;
			ok = t_eval(l->assume[i], &env, &v) == 0 && v != 0;
		}
		for (int p = 0; p < l->nparams && ok; p++)
			ok = l->params[p].tensor;
		if (!ok)
			continue;
		float *in[AX_MAXOPND * 2] = { 0 };
		int n = 0;
		for (; n < l->nparams && n < AX_MAXOPND * 2 && ok; n++) {
			AxShape sh;
			ok = graph_shape(l, l->params[n].node, &env, &sh) == 0;
			int64_t numel = ok ? ax_numel(&sh) : 0;
			in[n] = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
			if (!in[n])
				ax_die("out of memory");
			for (int64_t i = 0; i < numel; i++) {
				st = st * 6364136223846793005ull + 1442695040888963407ull;
				in[n][i] = (float)((double)(st >> 40) / 16777216.0 * 2.0 - 1.0);
			}
		}
		float *ol[16] = { 0 }, *or_[16] = { 0 };
		AxShape sl[16], sr[16];
		char err[256];
		int found = 0;
		if (ok && n == l->nparams && graph_run(l, &env, (const float *const *)in, ol, sl, err, sizeof err) == 0 &&
		    graph_run(r, &env, (const float *const *)in, or_, sr, err, sizeof err) == 0)
			for (int k = 0; k < l->noutputs && !found; k++) {
				found = sl[k].rank != sr[k].rank || ax_numel(&sl[k]) != ax_numel(&sr[k]);
				for (int64_t i = 0; !found && i < ax_numel(&sl[k]); i++) {
					double x = ol[k][i], y = or_[k][i];
					found = !((isnan(x) && isnan(y)) || fabs(x - y) <= 1e-3 * (1 + fabs(x) + fabs(y)));
				}
			}
		for (int k = 0; k < 16; k++) {
			free(ol[k]);
			free(or_[k]);
		}
		for (int i = 0; i < n; i++)
			free(in[i]);
		if (found)
			return 1;
	}
	return 0;
}

/* The local pair as two small graphs over the same fresh inputs: op2 after
 * op1, and op1 after the clones of op2; then the checker (after a concrete
 * run, when the caller asks for one). */
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
	AxGraph *l = graph_shell(g, nx + AX_MAXOPND + 2), *r = graph_shell(g, nx + AX_MAXOPND + 2);
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
	if (pr->hk && pr->hk->refute_first && differs(l, r))
		return 0;
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
	int ms = pr->o->timeout_ms > 0 ? pr->o->timeout_ms : 2000;
	pr->own_eq = !(pr->hk && pr->hk->eq);
	if (!pr->own_eq && !*pr->hk->eq)
		*pr->hk->eq = equiv_new(g0->t, g0->tc, ms);
	pr->eq = pr->own_eq ? equiv_new(g0->t, g0->tc, ms) : *pr->hk->eq;
	pr->smt = equiv_smt(pr->eq);
	equiv_stats(pr->eq, &pr->st0);
}

/* Sizes that no assignment satisfies would make every proof vacuous: asked
 * once, before the first swap is kept; when none does, the search stops. */
static int
sizes_exist(Prop *pr)
{
	if (pr->sat < 0) {
		char why[256];
		pr->sat = smt_satisfiable(pr->smt, pr->hyp, why, sizeof why);
		if (!pr->sat) {
			pr->ng->stop = "unsatisfiable";
			pr->stopped = 1;
		}
	}
	return pr->sat;
}

/* g with op2 (node q, reading op1 = node p in operand slot) cloned onto
 * op1's operands in S and op1 over the clones in op2's place, compacted;
 * with reinst, every new node's shape is recomputed and NULL returned when
 * its preconditions or op2's shape do not hold (without, the graph is only
 * the shape of the swap). */
/* g copied into the trial graph, with room for the nodes a swap adds: most swaps tried
 * are not kept, and a copy of the graph in the arena apiece made most of the second
 * round's memory (fresh pages, each a fault) */
static AxGraph *
trial_copy(Prop *pr, const AxGraph *g)
{
	int need = g->nnodes + AX_MAXOPND + 8;
	if (pr->scap < need) {
		pr->scap = 2 * need;
		pr->snodes = realloc(pr->snodes, sizeof *pr->snodes * (size_t)pr->scap);
		pr->smeta = realloc(pr->smeta, sizeof *pr->smeta * (size_t)pr->scap);
		if (!pr->snodes || !pr->smeta)
			ax_die("out of memory");
	}
	pr->trial = *g;
	pr->trial.nodes = pr->snodes;
	pr->trial.meta = pr->smeta;
	pr->trial.cap = pr->scap;
	memcpy(pr->snodes, g->nodes, sizeof *g->nodes * (size_t)g->nnodes);
	if (g->meta)
		memcpy(pr->smeta, g->meta, sizeof *g->meta * (size_t)g->nnodes);
	else
		for (int i = 0; i < g->nnodes; i++)
			pr->smeta[i] = (NodeMeta){ 0 };
	return &pr->trial;
}

/* (The graph rebuild returns is the trial graph: the next rebuild overwrites it.) */
static AxGraph *
rebuild(Prop *pr, const AxGraph *g, int p, int q, int slot, unsigned S, int reinst, AxNode *clones, AxNode *op1n,
        int *np_)
{
	const AxNode *n1 = &g->nodes[p], *n2 = &g->nodes[q];
	AxGraph *ng = trial_copy(pr, g);
	*op1n = *n1;
	for (int o = 0; o < n1->nin; o++) {
		if (!(S & (1u << o)))
			continue;
		if (n1->in[o] < 0)
			return NULL;
		AxNode c = *n2;
		c.in[slot] = n1->in[o];
		if (reinst && reinstantiate(pr, ng, &c) != 0)
			return NULL;
		clones[o] = c;
		op1n->in[o] = node_append(ng, &c, g->meta[q].origin);
	}
	if (reinst && (reinstantiate(pr, ng, op1n) != 0 || !same_shape(pr, op1n, n2)))
		return NULL;
	*np_ = node_append(ng, op1n, g->meta[p].origin);
	/* op1's new node takes op2's place for every user of op2 */
	for (int i = 0; i < ng->nnodes; i++)
		for (int o = 0; o < ng->nodes[i].nin; o++)
			if (ng->nodes[i].in[o] == q && i != *np_)
				ng->nodes[i].in[o] = *np_;
	for (int k = 0; k < ng->noutputs; k++)
		if (ng->outputs[k] == q)
			ng->outputs[k] = *np_;
	graph_compact(ng);
	return ng;
}

/* SwapWithSuccessor: a new variant with op2 (node q, reading op1's result in
 * one operand slot) applied to op1's inputs in S and op1 applied after; or
 * NULL when the shapes do not work out or the checker does not prove it. */
static AxGraph *
swap(Prop *pr, const AxGraph *g, int p, int q, unsigned S, int *newpos)
{
	const AxNode *n2 = &g->nodes[q];
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
	AxNode clones[AX_MAXOPND], op1n;
	int np_;
	/* a caller that cannot use the graph says so before any solver work */
	if (pr->hk && pr->hk->admit) {
		AxGraph *sk = rebuild(pr, g, p, q, slot, S, 0, clones, &op1n, &np_);
		if (!sk || !pr->hk->admit(pr->hk->env, sk))
			return NULL;
	}
	need_solver(pr);
	/* as written; then, where a clone's operand changed rank, each group taking the difference */
	AxGraph *ng = NULL;
	for (int alt = -1; alt < AX_MAXGROUP && !ng; alt++) {
		pr->regroup = alt;
		pr->regrouped = 0;
		ng = rebuild(pr, g, p, q, slot, S, 1, clones, &op1n, &np_);
		pr->regroup = -1;
		if (!ng || (alt >= 0 && !pr->regrouped)) {   /* nothing regrouped: the plain attempt covered it */
			ng = NULL;
			continue;
		}
		if (!sizes_exist(pr))
			return NULL;
		if (!local_equiv(pr, g, p, q, slot, S, clones, &op1n))
			ng = NULL;
	}
	if (!ng)
		return NULL;
	ng = graph_copy(ng);   /* kept: out of the trial graph */
	*newpos = -1;
	for (int i = 0; i < ng->nnodes; i++)
		if (ng->meta[i].origin == g->meta[p].origin)
			*newpos = i;
	return ng;
}

/* The nodes that replace a split operation (split.c) over its operand x: appended to g,
 * x node x there; the last is the result.  0 when one's shape or conditions do not hold. */
static int
split_nodes(Prop *pr, AxGraph *g, const AxNode *n, const SplitPlan *sp, int x, int origin, int *last)
{
	int cur = x;
	if (sp->kind == SPLIT_SUM) {   /* a sum, a scalar, and the one over the other */
		AxNode k[3];
		k[0] = *n;
		k[0].op = sp->sum_op;
		k[0].in[0] = x;
		k[1] = (AxNode){ .op = sp->scalar_op, .loc = n->loc };
		k[1].sattr[sp->scalar_attr] = sp->value;
		k[2] = (AxNode){ .op = sp->bin_op, .nin = 2, .in = { -1, -1 }, .loc = n->loc };
		int id[3];
		for (int i = 0; i < 3; i++) {
			if (i == 2)
				k[i].in[0] = id[0], k[i].in[1] = id[1];
			if (reinstantiate(pr, g, &k[i]) != 0)
				return 0;
			id[i] = node_append(g, &k[i], origin);
		}
		cur = id[2];
	} else {   /* exchanges of axes, the op after the first sp->at of them */
		const AxOperand *a = &g->t->ops[sp->swap_op].opnd[0];   /* [...L, M, ...C, N, ...R] */
		for (int i = 0; i <= sp->nswap; i++) {
			AxNode k;
			if (i == sp->at) {
				k = *n;
				memcpy(k.grank, sp->grank, sizeof k.grank);
				k.in[0] = cur;
				if (reinstantiate(pr, g, &k) != 0)
					return 0;
				cur = node_append(g, &k, origin);
			}
			if (i == sp->nswap)
				break;
			k = (AxNode){ .op = sp->swap_op, .nin = 1, .in = { cur }, .loc = n->loc };
			k.grank[a->pat[0]] = sp->swap[i][0];
			k.grank[a->pat[2]] = sp->swap[i][1] - sp->swap[i][0] - 1;
			k.grank[a->pat[4]] = g->nodes[cur].rank - 1 - sp->swap[i][1];
			if (reinstantiate(pr, g, &k) != 0)
				return 0;
			cur = node_append(g, &k, origin);
		}
	}
	*last = cur;
	return same_shape(pr, &g->nodes[*last], n);
}

/* The split of an operation (split.c) as a variant, its replacement in its place; NULL when
 * the shapes do not work out or the checker does not prove the operation equal to it. */
static AxGraph *
split_variant(Prop *pr, const AxGraph *g, const SplitPlan *sp)
{
	const AxNode *n = &g->nodes[sp->node];
	need_solver(pr);
	if (!sizes_exist(pr))
		return NULL;
	AxGraph *ng = trial_copy(pr, g);
	int ib;
	if (!split_nodes(pr, ng, n, sp, n->in[0], g->meta[sp->node].origin, &ib))
		return NULL;
	/* the proof: the operation against its replacement, over its operand */
	AxGraph *l = graph_shell(g, 2), *r = graph_shell(g, 4);
	AxParam *par = arena_alloc(tc_arena(g->tc), sizeof *par);
	*par = (AxParam){ .name = "t0", .tensor = 1, .node = 0, .dtype = "f32" };
	AxNode x = { .op = -1, .input = 0, .rank = g->nodes[n->in[0]].rank };
	memcpy(x.dim, g->nodes[n->in[0]].dim, sizeof x.dim);
	AxGraph *gs[2] = { l, r };
	for (int k = 0; k < 2; k++) {
		gs[k]->nnodes = 0;
		gs[k]->nparams = 1;
		gs[k]->params = par;
		node_append(gs[k], &x, -1);
	}
	AxNode a = *n;
	a.in[0] = 0;
	l->outputs[0] = node_append(l, &a, -1);
	if (!split_nodes(pr, r, n, sp, 0, -1, &r->outputs[0]))
		return NULL;
	l->noutputs = r->noutputs = 1;
	EquivResult res;
	equiv_graphs(pr->eq, l, r, &res);
	pr->ng->checks++;
	if (res.verdict != EQ_EQUIVALENT)
		return NULL;
	for (int i = 0; i < ng->nnodes; i++)
		for (int o = 0; i != ib && o < ng->nodes[i].nin; o++)
			if (ng->nodes[i].in[o] == sp->node)
				ng->nodes[i].in[o] = ib;
	for (int k = 0; k < ng->noutputs; k++)
		if (ng->outputs[k] == sp->node)
			ng->outputs[k] = ib;
	graph_compact(ng);
	return graph_copy(ng);   /* kept: out of the trial graph */
}

static int
out_of_budget(Prop *pr)
{
	if (pr->stopped)
		return 1;
	int maxv = pr->o->variant_cap > 0 ? pr->o->variant_cap : PROP_VARIANTS;
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
	int v;                   /* its variant */
	int pos;
} Work;

/* Records how variant idx was reached. */
static void
note_step(Prop *pr, int idx, PropStep st, int *cap)
{
	PropHooks *hk = pr->hk;
	if (!hk)
		return;
	if (idx >= *cap) {
		int nc = 2 * idx + 16;
		PropStep *v = arena_alloc(tc_arena(pr->ng->tc), sizeof *v * (size_t)nc);
		if (hk->nsteps)
			memcpy(v, hk->steps, sizeof *v * (size_t)hk->nsteps);
		hk->steps = v;
		*cap = nc;
	}
	hk->steps[idx] = st;
	if (idx >= hk->nsteps)
		hk->nsteps = idx + 1;
}

NuGraph *
propagate(const AxGraph *g0, const PropOpts *o)
{
	return propagate_ex(g0, o, NULL);
}

NuGraph *
propagate_ex(const AxGraph *g0, const PropOpts *o, PropHooks *hk)
{
	Prop pr = { .o = o, .hk = hk, .sat = -1, .t0 = ax_now_ms(), .regroup = -1 };
	int stepcap = 0;
	if (hk) {
		hk->steps = NULL;
		hk->nsteps = 0;
	}
	AxGraph *first = graph_copy(g0);
	for (int i = 0; i < first->nnodes; i++)
		first->meta[i].origin = i;
	NuGraph *ng = ng_new(g0);
	pr.ng = ng;
	int added;
	ng_add(ng, first, &added);
	note_step(&pr, 0, (PropStep){ .parent = -1, .moved = -1, .past = -1 }, &stepcap);
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
	int ccap = 0;
	conjuncts(&pr, h, &ccap);
	/* the operations that split (split.c), every one split: one more variant to propagate from */
	AxGraph *gs = first;
	for (int i = 0; i < gs->nnodes && !out_of_budget(&pr); i++) {
		SplitPlan sp;
		AxGraph *gn = split_find(gs, i, &sp) ? split_variant(&pr, gs, &sp) : NULL;
		if (gn)
			gs = gn, i = -1;   /* node ids moved: from the start again (a split node splits no more) */
	}
	if (gs != first && (!hk || !hk->admit || hk->admit(hk->env, gs))) {
		int idx = ng_add(ng, gs, &added);
		if (added)
			note_step(&pr, idx, (PropStep){ 0, -1, -1, 0 }, &stepcap);
	}
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
					w[nw++] = (Work){ gv, v, i };
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
							if (added)
								note_step(&pr, idx, (PropStep){ cur.v, cur.g->meta[cur.pos].origin,
								                                cur.g->meta[q].origin, S }, &stepcap);
							if (added && np_ >= 0 && nw < wcap)
								w[nw++] = (Work){ ng->variants[idx], idx, np_ };
						}
				}
			}
		}
	}
	free(w);
	free(pr.conj);
	free(pr.snodes);
	free(pr.smeta);
	if (pr.eq) {
		EquivStats st;
		equiv_stats(pr.eq, &st);
		ng->cache_hits = st.hits - pr.st0.hits;
		ng->spot_run = st.spot_run - pr.st0.spot_run;
		ng->spot_none = st.spot_none - pr.st0.spot_none;
		if (pr.own_eq)
			equiv_free(pr.eq);
	}
	ng->ms = ax_now_ms() - pr.t0;
	return ng;
}
