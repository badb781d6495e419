/*
 * test_ckernel.c — the C rendering of a candidate (emit_c.c) run through
 * libtcc (ckernel.c), and the numerics check of `axonc compile --validate`.
 *
 *   1. a candidate of examples/rmsnorm_matmul.py: its rendering has the loop
 *      nest, is deterministic, and matches the program's reference execution
 *   2. the check fails when it should: the rendering of one program against
 *      the reference of another with the same parameters (RMSNorm+MatMul
 *      against MatMul, and back), and a run on one flipped input element
 *   3. statements written by hand: an on-chip buffer (NS_BUF) written through
 *      instruction `out` slices and read through operand slices, a store
 *      into a slice that drops a dim, omitted operands
 *   4. the bridge refuses what NumPy would not notice or what is wrong: an
 *      index out of range, a variable read before it is written, a write
 *      into a kernel input; the rendering refuses an unknown instruction
 *
 * Run from the repository root (examples/).  The last line is
 * "N passed, M failed".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front.h"
#include "measure.h"
#include "nest.h"
#include "check.h"

static const AxTarget *T;

/* a program at concrete sizes, and one candidate of it (variant 0, the first sequence of each op) */
typedef struct Cand {
	TermCtx *tc;
	AxGraph *g;
	AxTiling *tiling;
	LowerCache *cache;
	LowerNode *L;
	const char *names[256];
	double vals[256];
	int n, nsizes;
	int choice[64];
	Nest *ns;
	char *src;
} Cand;

static int
cand_open(Cand *c, const char *path, const char *dims, int fuse)
{
	char why[512];
	*c = (Cand){ 0 };
	c->tc = tc_new(T);
	c->g = frontend_read(T, c->tc, path, NULL);
	if (!c->g || ax_size_env(c->g, dims, c->names, c->vals, 128, &c->n, &c->nsizes, why, sizeof why) != 0) {
		report(0, __LINE__, "%s at %s: %s", path, dims, c->g ? why : "does not load");
		return -1;
	}
	c->tiling = tile_graph(c->g);
	c->cache = lower_cache_new(T, c->tc, 3);
	c->L = lower_variant(c->cache, c->tiling, 64);
	int nv = c->n, nfused;
	if (kernel_tile_sizes(c->tiling, c->L, c->choice, NULL, c->names, c->vals, &nv, 256, 4, why, sizeof why) == 0) {
		AxEnv env = { nv, c->names, c->vals };
		c->ns = nest_build(c->tiling, c->L, c->choice, NULL, NULL, 0, &env, fuse, &nfused, why, sizeof why);
	}
	if (c->ns)
		c->src = nest_c(c->ns, "kernel", why, sizeof why);
	if (!c->src) {
		report(0, __LINE__, "%s: no candidate: %s", path, why);
		return -1;
	}
	return 0;
}

static void
cand_close(Cand *c)
{
	free(c->src);
	nest_free(c->ns);
	if (c->cache)
		lower_cache_free(c->cache);
	for (int i = 0; i < c->nsizes; i++)
		free((char *)c->names[i]);
	if (c->tc)
		tc_free(c->tc);
}

static CkCheck *
check_of(Cand *c)
{
	return ck_check_new(c->g, c->names, c->vals, c->n, 1, 1, NULL);
}

/* 1, 2: a real candidate, the check passing and failing */
static void
test_candidate(void)
{
	Cand a, b;
	char why[700];
	if (cand_open(&a, "examples/rmsnorm_matmul.py", "M=8,K=16,N=12", 1) != 0)
		return;
	CHECK_HAS(a.src, "int\nkernel(AxkCtx *axk, float *const *axk_in, float **axk_out)\n{\n");
	CHECK_HAS(a.src, "    const int64_t M = 8;\n");
	/* the squares' loop nest merged with the matmul's over row tiles (forward.c), the squares kept
	 * in a buffer on chip for the row */
	CHECK_HAS(a.src, "    for (int64_t i0 = 0; i0 < 2; i0++) {\n        /* v24, a buffer on chip */\n"
	                 "        if (axk_buf(axk, 24, 3, (const int64_t[3]){ 4, 1, 16 })) return __LINE__;\n");
	CHECK_HAS(a.src, "for (int64_t r = 0; r < 3; r++) {   /* in order */\n");
	/* the scaling (%7, and what it reads) loop-fused per tile into the matmul's K loop */
	CHECK_HAS(a.src, "/* %8 v19 = dma_transpose(src=v18) on dma */\n");
	CHECK_HAS(a.src, "(const int64_t[7]){ -1, 2, 0, i0 * 4, 4, (r + 1) * 4, 4 }");   /* X, node 0, at the next K tile */
	CHECK_HAS(a.src, "v5 = activation_reduce(data=v24[0:+4, 0, 0:+16]");   /* the mean reads them there */
	CHECK(strstr(a.src, "axk_tensor(axk, 2,") == NULL);   /* t2, node 2: no squares off chip */
	CHECK_HAS(a.src, "/* v13 += v21, in place */\n"
	                 "                if (axk_acc(axk, (const int64_t[3]){ 13, 0, 0 }, (const int64_t[3]){ 21, 0, 0 })) return __LINE__;\n");
	CHECK_HAS(a.src, "    if (axk_output(axk, axk_out, 0, 8)) return __LINE__;\n    return 0;\n}\n");
	CHECK(strstr(a.src, "#define") == NULL && strstr(a.src, "#include") == NULL);
	char *again = nest_c(a.ns, "kernel", why, sizeof why);
	CHECK(again && strcmp(again, a.src) == 0);
	free(again);

	CkCheck *ca = check_of(&a);
	why[0] = 0;
	int same = ck_check_nest(ca, a.ns, a.src, "kernel", why, sizeof why);
	report(same == 1, __LINE__, "rmsnorm_matmul's candidate against its program: %s", why);

	/* the same inputs, one element flipped: the result no longer matches */
	float *const *in = ck_check_inputs(ca);
	float x[8 * 16];
	memcpy(x, in[0], sizeof x);
	x[5] = -x[5] + 0.5f;
	const float *flipped[3] = { x, in[1], NULL };
	float *got[1] = { 0 }, *want[1] = { 0 };
	AxShape gs[1], ws[1];
	AxEnv env = { a.n, a.names, a.vals };
	CHECK(nest_run(a.ns, flipped, got, gs, why, sizeof why) == 0);
	CHECK(graph_run(a.g, &env, (const float *const *)in, want, ws, why, sizeof why) == 0);
	if (got[0] && want[0]) {
		why[0] = 0;
		CHECK(ck_compare(1, got, gs, want, ws, why, sizeof why) == 0);
		CHECK_HAS(why, "result 0 differs at [0, ");
		free(got[0]);
		CHECK(nest_run(a.ns, (const float *const *)in, got, gs, why, sizeof why) == 0);
		CHECK(ck_compare(1, got, gs, want, ws, why, sizeof why) == 1);
	}
	free(got[0]);
	free(want[0]);

	/* another program with the same parameters: each rendering against the other's reference */
	if (cand_open(&b, "examples/matmul.py", "M=8,K=16,N=12", 1) == 0) {
		CkCheck *cb = check_of(&b);
		why[0] = 0;
		CHECK(ck_check_nest(cb, b.ns, b.src, "kernel", why, sizeof why) == 1);
		CHECK(ck_check_nest(cb, a.ns, a.src, "kernel", why, sizeof why) == 0);
		CHECK_HAS(why, "differs at");
		why[0] = 0;
		CHECK(ck_check_nest(ca, b.ns, b.src, "kernel", why, sizeof why) == 0);
		CHECK_HAS(why, "the program's reference gives");
		ck_check_free(cb);
	}
	cand_close(&b);
	ck_check_free(ca);
	cand_close(&a);
}

/* ---- statements written by hand, over relu's graph (X [8, 12]) ---------------------- */

static int
inst_index(const char *name)
{
	const AxOp *op = ax_find_inst(T, name);
	return op ? (int)(op - T->insts) : -1;
}

static NsDim
dim(const char *start, int64_t len)
{
	NsDim d = { .len = len };
	snprintf(d.start, sizeof d.start, "%s", start);
	return d;
}

static NsRef
ref2(int var, NsDim a, NsDim b, int r0, int r1)
{
	NsRef r = { .var = var, .nidx = 2 };
	r.idx[0] = a;
	r.idx[1] = b;
	r.shape.rank = 2;
	r.shape.d[0] = r0;
	r.shape.d[1] = r1;
	return r;
}

static NsStmt *
inst(Nest *ns, int depth, int var, int which, const NsRef *opnd0, const NsRef *out, int r0, int r1)
{
	NsStmt *s = nest_push(ns, NS_INST, depth);
	s->var = var;
	s->inst = which;
	s->engine = -1;
	for (int e = 0; e < T->nengines; e++)
		if (T->insts[which].engines & (1u << e)) {
			s->engine = e;
			break;
		}
	for (int o = 0; o < AX_MAXOPND; o++)
		s->opnd[o].var = NS_NONE;   /* omitted, unless given */
	s->opnd[0] = *opnd0;
	if (out)
		s->out = *out;
	s->shape.rank = 2;
	s->shape.d[0] = r0;
	s->shape.d[1] = r1;
	return s;
}

/* relu(X) row by row through an on-chip buffer; bad = 1, 2, 3: a planted error */
static Nest *
hand_nest(const Cand *c, int bad)
{
	const AxGraph *g = c->g;
	int cp = inst_index("dma_copy"), act = inst_index("activation");
	const AxOp *aop = ax_find_inst(T, "activation");
	Nest *ns = calloc(1, sizeof *ns);
	if (cp < 0 || act < 0 || !ns)
		return NULL;
	ns->g = g;
	ns->env = (AxEnv){ c->n, c->names, c->vals };
	int res = g->outputs[0];
	NsStmt *s = nest_push(ns, NS_TENSOR, 0);
	s->node = res;
	s->output = 1;
	s->shape = (AxShape){ 2, { 8, 12 } };
	s = nest_push(ns, NS_BUF, 0);
	s->var = 0;
	s->shape = (AxShape){ 2, { 8, 12 } };
	s = nest_push(ns, NS_LOOP, 0);
	snprintf(s->name, sizeof s->name, "i0");
	s->hi = 2;
	/* v1 = copy of X[i0*4:+4, 0:12], written into v0[i0*4:+4, 0:12] */
	NsRef x = ref2(-1 - 0, dim("i0 * 4", 4), dim("0", 12), 4, 12);
	NsRef into = ref2(0, dim(bad == 1 ? "i0 * 4 + 1" : "i0 * 4", 4), dim("0", 12), 4, 12);
	inst(ns, 1, 1, cp, &x, &into, 4, 12);
	nest_push(ns, NS_END, 1);
	s = nest_push(ns, NS_LOOP, 0);
	snprintf(s->name, sizeof s->name, "l0");
	s->hi = 8;
	/* v2 = relu(v0[l0:l0+1, 0:12]), bias and scale left out; out[l0, 0:12] = v2 (a dim dropped) */
	NsRef row = ref2(bad == 2 ? 3 : 0, dim("l0", 1), dim("0", 12), 1, 12);
	s = inst(ns, 1, 2, act, &row, NULL, 1, 12);
	for (int a = 0; a < aop->nattr; a++)
		if (aop->attr[a].kind == AX_ATTR_ENUM)
			for (int k = 0; k < T->enums[aop->attr[a].enum_id].nitems; k++)
				if (strcmp(T->enums[aop->attr[a].enum_id].items[k], "relu") == 0)
					s->attr[a] = k;
	s = nest_push(ns, NS_STORE, 1);
	s->out = ref2(bad == 3 ? -1 - 0 : -1 - res, dim("l0", 0), dim("0", 12), 12, 0);
	s->out.shape.rank = 1;
	s->src = ns_var(2, &(AxShape){ 2, { 1, 12 } });
	nest_push(ns, NS_END, 1);
	ns->nvars = 4;
	return ns;
}

static void
test_by_hand(void)
{
	Cand c;
	char why[700];
	if (cand_open(&c, "examples/relu.py", "M=8,N=12", 0) != 0)
		return;
	CkCheck *ck = check_of(&c);
	Nest *ns = hand_nest(&c, 0);
	char *src = ns ? nest_c(ns, "kernel", why, sizeof why) : NULL;
	report(src != NULL, __LINE__, "the hand-written statements render: %s", why);
	CHECK_HAS(src, "if (axk_buf(axk, 0, 2, (const int64_t[2]){ 8, 12 })) return __LINE__;");
	CHECK_HAS(src, "/* %0 v1 = dma_copy(src=X[i0 * 4:+4, 0:+12]) on dma, into v0[i0 * 4:+4, 0:+12] */");
	CHECK_HAS(src, "{ (const int64_t[7]){ -1, 2, 0, i0 * 4, 4, 0, 12 } }, "
	               "(const int64_t[7]){ 0, 2, 0, i0 * 4, 4, 0, 12 }, 2,");   /* X's slice into v0's */
	CHECK_HAS(src, "(const int64_t *const[3]){ (const int64_t[7]){ 0, 2, 0, l0, 1, 0, 12 }, 0, 0 }");
	CHECK_HAS(src, "/* t2[l0, 0:+12] = v2 */\n"
	               "        if (axk_store(axk, (const int64_t[7]){ -3, 2, 0, l0, 0, 0, 12 }, "
	               "(const int64_t[3]){ 2, 0, 0 }))");
	why[0] = 0;
	int same = src ? ck_check_nest(ck, ns, src, "kernel", why, sizeof why) : 0;
	report(same == 1, __LINE__, "relu through an on-chip buffer: %s", why);
	free(src);
	nest_free(ns);

	static const char *const want[] = {
		"",
		"is out of range",                       /* v0[i0*4+1 : +4] runs past row 8 */
		"v3 is read before it is written",
		"a store writes into a kernel input",
	};
	for (int bad = 1; bad <= 3; bad++) {
		ns = hand_nest(&c, bad);
		why[0] = 0;
		CHECK(ns && ck_check_nest(ck, ns, (src = nest_c(ns, "kernel", why, sizeof why)), "kernel", why,
		                          sizeof why) == 0);
		CHECK_HAS(why, "line ");
		CHECK_HAS(why, want[bad]);
		free(src);
		nest_free(ns);
	}
	/* an instruction the target does not have: no rendering */
	ns = hand_nest(&c, 0);
	for (int i = 0; ns && i < ns->n; i++)
		if (ns->s[i].kind == NS_INST)
			ns->s[i].inst = T->ninsts;
	why[0] = 0;
	CHECK(ns && nest_c(ns, "kernel", why, sizeof why) == NULL);
	CHECK_HAS(why, "which the target does not have");
	nest_free(ns);
	ck_check_free(ck);
	cand_close(&c);
}

int
main(void)
{
	T = ax_find_target("trainium");
	if (!T) {
		report(0, __LINE__, "no target 'trainium' in this build");
		return 1;
	}
	test_candidate();
	test_by_hand();
	return check_done();
}
