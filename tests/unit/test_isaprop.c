/*
 * test_isaprop.c — the second propagation round over instruction graphs.
 *
 *   1. propagate_ex over activation(exp) -> nc_transpose: the
 *      transpose moves before the exp (proved), and the step says so
 *   2. sizes that no assignment satisfies: no swap is kept
 *   3. an admission hook that refuses every graph: no checker call at all
 *   4. a swap the checker refutes (exp past a free-axis sum) is not made
 *   5. fuse_nests on exp(X) @ W: the producer/consumer nest has a variant
 *      made by that move, in which the load and the transpose fuse into
 *      dma_transpose; its data (parent, moved, past, the fusion's nodes)
 *
 * The last line is "N passed, M failed".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front.h"
#include "measure.h"
#include "propagate.h"

#include "check.h"

static const AxTarget *T;

static int
inst_id(const char *name)
{
	const AxOp *op = ax_find_inst(T, name);
	if (!op) {
		printf("no instruction '%s'\n", name);
		exit(1);
	}
	return (int)(op - T->insts);
}

static int
item(const char *inst, int attr, const char *name)
{
	const AxOp *op = &T->insts[inst_id(inst)];
	const AxEnum *e = &T->enums[op->attr[attr].enum_id];
	for (int i = 0; i < e->nitems; i++)
		if (strcmp(e->items[i], name) == 0)
			return i;
	printf("no item '%s'\n", name);
	exit(1);
}

/* X [P, F] (on chip) -> activation(func) -> last(...); the instructions'
 * limits as the graph's assumption, plus extra */
static AxGraph *
chain(TermCtx *tc, const char *func, const char *last, int last_attr, const char *last_item, Term *extra)
{
	AxGraph *g = graph_new(T, tc);
	g->params = arena_alloc(tc_arena(tc), sizeof *g->params * 2);
	g->params[0] = (AxParam){ .name = "X", .tensor = 1, .node = 0, .dtype = "f32" };
	g->nparams = 1;
	g->syms[g->nsyms++] = "P";
	g->syms[g->nsyms++] = "F";
	AxNode x = { .op = -1, .input = 0, .rank = 2 };
	x.dim[0] = t_var(tc, "P", TS_INT);
	x.dim[1] = t_var(tc, "F", TS_INT);
	int in[AX_MAXOPND] = { graph_add(g, &x), -1, -1, -1, -1, -1, -1, -1 };
	int attr[AX_MAXATTR] = { 0 };
	Term *sattr[AX_MAXATTR] = { 0 }, *pre, *all = extra ? extra : t_bool(tc, 1);
	attr[0] = item("activation", 0, func);
	in[0] = graph_add_inst(g, inst_id("activation"), -1, attr, sattr, in, &pre);
	all = t_bin(tc, TK_AND, all, pre);
	attr[0] = last_item ? item(last, last_attr, last_item) : 0;
	g->outputs[0] = graph_add_inst(g, inst_id(last), -1, attr, sattr, in, &pre);
	g->noutputs = 1;
	g->assume[g->nassume++] = t_bin(tc, TK_AND, all, pre);
	return g;
}

static int
refuse(void *env, const AxGraph *g)
{
	(void)g;
	++*(int *)env;
	return 0;
}

static void
test_move(void)
{
	TermCtx *tc = tc_new(T);
	PropOpts po = { .timeout_ms = 2000 };
	/* 1 */
	PropHooks hk = { .refute_first = 1 };
	NuGraph *ng = propagate_ex(chain(tc, "exp", "nc_transpose", 0, NULL, NULL), &po, &hk);
	CHECK_INT(ng->nvariants, 2);
	CHECK_INT(hk.nsteps, 2);
	if (ng->nvariants == 2 && hk.nsteps == 2) {
		const AxGraph *g0 = ng->variants[0], *g1 = ng->variants[1];
		CHECK_INT(hk.steps[0].parent, -1);
		CHECK_INT(hk.steps[1].parent, 0);
		CHECK_INT(g0->nodes[hk.steps[1].moved].op, inst_id("activation"));
		CHECK_INT(g0->nodes[hk.steps[1].past].op, inst_id("nc_transpose"));
		CHECK_INT(hk.steps[1].clones, 1);
		/* input, transpose, exp */
		CHECK_INT(g1->nnodes, 3);
		CHECK_INT(g1->nodes[1].op, inst_id("nc_transpose"));
		CHECK_INT(g1->nodes[1].in[0], 0);
		CHECK_INT(g1->nodes[2].op, inst_id("activation"));
		CHECK_INT(g1->nodes[2].in[0], 1);
		CHECK(g1->nodes[2].dim[0] == t_var(tc, "F", TS_INT));
	}
	/* 2: P >= 1 and P <= 0: a proof would be vacuous */
	Term *never = t_bin(tc, TK_LE, t_var(tc, "P", TS_INT), t_int(tc, 0));
	PropHooks hk2 = { 0 };
	ng = propagate_ex(chain(tc, "exp", "nc_transpose", 0, NULL, never), &po, &hk2);
	CHECK_INT(ng->nvariants, 1);
	CHECK(strcmp(ng->stop, "unsatisfiable") == 0);
	/* 3 */
	int asked = 0;
	PropHooks hk3 = { .admit = refuse, .env = &asked };
	ng = propagate_ex(chain(tc, "exp", "nc_transpose", 0, NULL, NULL), &po, &hk3);
	CHECK_INT(ng->nvariants, 1);
	CHECK_INT(ng->checks, 0);
	CHECK(asked > 0);
	/* 4: sum(exp(x)) is not exp(sum(x)), whether refuted by a run or by the checker */
	for (int r = 0; r < 2; r++) {
		PropHooks hk4 = { .refute_first = r };
		ng = propagate_ex(chain(tc, "exp", "tensor_reduce", 0, "add", NULL), &po, &hk4);
		CHECK_INT(ng->nvariants, 1);
	}
	tc_free(tc);
}

static void
test_fuse_nests(void)
{
	const char *path = "tests/fusion/exp_matmul.py";
	TermCtx *tc = tc_new(T);
	AxGraph *g = frontend_read(T, tc, path, NULL);
	CHECK(g != NULL);
	if (!g) {
		tc_free(tc);
		return;
	}
	PropOpts po = { .variant_cap = 1, .timeout_ms = 2000 };
	NuGraph *ng = propagate(g, &po);
	AxTiling *Tl = tile_graph(ng->variants[0]);
	LowerCache *c3 = lower_cache_new(T, tc, 3), *c1 = lower_cache_new(T, tc, 1);
	LowerNode *L = lower_variant_plain(c3, Tl, 64);
	FuseResult *r = fuse_nests(c1, Tl, L, NULL);
	int found = 0;
	for (int k = 0; k < r->nnests; k++) {
		const FuseNest *n = &r->nest[k];
		CHECK(n->nvariants >= 1 && n->v[0].parent == -1 && n->v[0].nmoves == 0);
		for (int vi = 1; vi < n->nvariants; vi++) {
			const FuseInstVariant *v = &n->v[vi];
			const AxGraph *g0 = n->v[0].g;
			CHECK(v->parent >= 0 && v->parent < vi);
			CHECK_INT(v->nmoves, n->v[v->parent].nmoves + 1);
			if (g0->nodes[v->moved].op != inst_id("activation") || g0->nodes[v->past].op != inst_id("nc_transpose"))
				continue;
			CHECK(n->nodes[0] != n->nodes[1]);
			for (int i = 0; i < v->nfound; i++) {
				const FuseFound *f = &v->found[i];
				if (strcmp(f->fused.insts[0], "dma_transpose") != 0)
					continue;
				found++;
				CHECK(strcmp(f->window, "dma_copy() ; nc_transpose()") == 0);
				CHECK(strcmp(f->moves[0], "nc_transpose() before activation(func=exp)") == 0);
				CHECK_INT(f->nodes[0], n->nodes[0]);   /* the producer's load */
				CHECK_INT(f->nodes[1], n->nodes[1]);   /* the consumer's transpose */
				CHECK_INT(v->g->nodes[f->inst[0]].op, inst_id("dma_copy"));
				CHECK_INT(v->g->nodes[f->inst[1]].op, inst_id("nc_transpose"));
				CHECK_INT(v->g->nodes[f->inst[1]].in[0], f->inst[0]);
			}
		}
	}
	CHECK(found >= 1);   /* once per placement of the transpose (the Tensor engine's, the Vector engine's) */
	CHECK(r->swaps >= 1);
	lower_cache_free(c3);
	lower_cache_free(c1);
	tc_free(tc);
}

int
main(void)
{
	T = ax_find_target("trainium");
	if (!T) {
		printf("no target 'trainium' in this build\n0 passed, 1 failed\n");
		return 1;
	}
	test_move();
	test_fuse_nests();
	return check_done();
}
