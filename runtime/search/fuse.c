/*
 * fuse.c — instruction fusion (paper section 4.5), found by synthesis.
 *
 * The instruction graph of one operation is its chosen sequence over its
 * operands, each operand behind the load the lowering inserted; that of a
 * producer and its consumer puts the consumer's sequence after the
 * producer's, the consumer's tile sizes set to the producer's (both in one
 * loop nest: operator fusion).  In such a graph, an instruction whose result
 * one other instruction alone reads forms a window with that reader; depth-1
 * synthesis over the window (the same Algorithm 2, pool and proof) lists the
 * single instructions proved equal to it.  No fusion is written down: they
 * come from the instruction specs, e.g. an activation followed by a free-axis
 * reduction becomes one activation-with-reduction where the target has one.
 *
 * Before the windows are read, the second round of propagation (Algorithm 1,
 * propagate_ex, the same checker) runs over each such graph, its hypothesis
 * the instructions' limits: an instruction that synthesis introduced (a
 * transpose an operand needs) moves past element-wise ones when the checker
 * proves it, and every variant's windows are synthesized too.  Moves stay
 * where the instructions can read their operands (a load is not pushed past
 * its reader).
 */
#include <string.h>
#include "propagate.h"

typedef struct Fuser {
	LowerCache *c1;          /* depth-1 synthesis, cached by window semantics */
	const AxTiling *T;
	Equiv *eq;               /* the second round's checker, shared by every nest (made at first need) */
	PropOpts po;
	FuseResult *res;
	int nestcap;
	signed char cmem[32];    /* the nest being built: per parameter made on chip (a constant),
	                            the memory its instruction writes; -1 for the program's tensors */
	Term *pre;               /* ... and its instructions' limits */
} Fuser;

static void
inst_text(const AxGraph *g, const AxNode *n, char *buf, size_t len)
{
	const AxOp *op = node_op(g, n);
	size_t k = (size_t)snprintf(buf, len, "%s(", op->name);
	int first = 1;
	for (int a = 0; a < op->nattr && k < len; a++)
		if (op->attr[a].kind == AX_ATTR_ENUM) {
			k += (size_t)snprintf(buf + k, len - k, "%s%s=%s", first ? "" : ", ", op->attr[a].name,
			                      g->t->enums[op->attr[a].enum_id].items[n->attr[a]]);
			first = 0;
		}
	if (k < len)
		snprintf(buf + k, len - k, ")");
}

/* An instruction appended to h, its limits added to the nest's. */
static int
add_inst(Fuser *fu, AxGraph *h, int inst, const int *attr, Term *const *sattr, const int *in)
{
	Term *pre;
	int id = graph_add_inst(h, inst, -1, attr, sattr, in, &pre);
	fu->pre = t_bin(h->tc, TK_AND, fu->pre, pre);
	return id;
}

/* Appends a sequence to h: inputs in[p] for the tile's inputs; returns the
 * node of its last instruction. */
static int
add_seq(Fuser *fu, AxGraph *h, const SynthSeq *q, const int *in)
{
	int node[8];
	for (int j = 0; j < q->ninsts; j++) {
		int opnd[AX_MAXOPND];
		for (int o = 0; o < AX_MAXOPND; o++) {
			int s = q->src[j][o];
			opnd[o] = s == SYNTH_OMITTED ? -1 : s >= 0 ? node[s] : in[-1 - s];
		}
		node[j] = add_inst(fu, h, q->inst[j], q->attr[j], q->sattr[j], opnd);
	}
	return node[q->ninsts - 1];
}

/* Input nodes for a tile's operands, each behind the load its choice has
 * (constants, made on chip, have none). */
static void
add_inputs(Fuser *fu, AxGraph *h, const AxGraph *tile, const LowerNode *ln, const LowerChoice *ch,
           Term *const *from, Term *const *to, int nsub, int skip, int *in)
{
	for (int p = 0; p < tile->nparams; p++) {
		if (p == skip)
			continue;
		AxNode x = { .op = -1, .input = h->nparams, .rank = tile->nodes[p].rank };
		for (int d = 0; d < x.rank; d++)
			x.dim[d] = t_subst(h->tc, tile->nodes[p].dim[d], from, to, nsub);
		if (p < AX_MAXOPND && ln->constant[p] && h->nparams < 32)
			for (int m = 0; m < h->t->nmems; m++)
				if (h->t->insts[ln->const_inst[p]].out_mems & (1u << m)) {
					fu->cmem[h->nparams] = (signed char)m;
					break;
				}
		h->params[h->nparams++] = (AxParam){ .name = tile->params[p].name, .tensor = 1, .node = h->nnodes,
		                                     .dtype = "f32" };
		in[p] = graph_add(h, &x);
		for (int k = 0; k < ch->nmoves; k++)
			if (strcmp(ch->move[k].what, tile->params[p].name) == 0) {
				int opnd[AX_MAXOPND] = { in[p] }, attr[AX_MAXATTR] = { 0 };
				Term *sattr[AX_MAXATTR] = { 0 };
				in[p] = add_inst(fu, h, ch->move[k].inst, attr, sattr, opnd);
				break;
			}
	}
}

/* The memory a node's value is in: the program's tensors off chip, a
 * constant where the instruction that makes it writes, an instruction's
 * result in its first on-chip result memory. */
static int
mem_of(const AxGraph *h, int id, const signed char *cmem)
{
	const AxTarget *t = h->t;
	const AxNode *n = &h->nodes[id];
	int off = -1, first = -1;
	uint32_t out = 0;
	if (n->op >= 0) {
		const AxOp *op = node_op(h, n);
		out = ax_inst_mems(t, op, -1, n->engine >= 0 ? 1u << n->engine : op->engines);
	}
	for (int m = 0; m < t->nmems; m++) {
		if (t->mems[m].offchip && off < 0)
			off = m;
		if ((out & (1u << m)) && !t->mems[m].offchip && first < 0)
			first = m;
	}
	if (n->op < 0 && n->input < 32 && cmem[n->input] >= 0)
		return cmem[n->input];
	return n->op < 0 ? off : first;
}

/* Can operands of memories mem[0..n) (-1: any) go to distinct operands of instruction op, each
 * one that may read that memory?  (A small matching: n and the operands are few.) */
static int
match_mems(const AxOp *op, const int *mem, int n, uint32_t used)
{
	if (n == 0)
		return 1;
	for (int k = 0; k < op->nopnd; k++)
		if (!(used & (1u << k)) && (mem[0] < 0 || (op->opnd[k].mems & (1u << mem[0]))) &&
		    match_mems(op, mem + 1, n - 1, used | (1u << k)))
			return 1;
	return 0;
}

/* Could a single instruction of the target read the window's operands srcs where they are?  The
 * fused instruction must (windows, below), so where none could, nothing synthesis would find
 * is kept and the window is not synthesized (a load from HBM and an instruction that reads
 * only on-chip memories: a third of MatMul+Add+RMSNorm's Phase 1).  A fused instruction that
 * leaves an operand unread is the one loss. */
static int
readable(const Fuser *fu, const AxGraph *h, const int *srcs, int nsrc)
{
	const AxTarget *t = h->t;
	int mem[2 * AX_MAXOPND];
	for (int f = 0; f < nsrc; f++)
		mem[f] = mem_of(h, srcs[f], fu->cmem);
	for (int i = 0; i < t->ninsts; i++)
		if (match_mems(&t->insts[i], mem, nsrc, 0))
			return 1;
	return 0;
}

/* The second round's admission: every instruction reads the program's
 * tensors only where it can (a load is not pushed past its reader). */
static int
placeable(void *env, const AxGraph *g)
{
	const Fuser *fu = env;
	for (int i = 0; i < g->nnodes; i++) {
		const AxNode *n = &g->nodes[i];
		if (n->op < 0)
			continue;
		const AxOp *op = node_op(g, n);
		for (int k = 0; k < n->nin; k++) {
			int s = n->in[k];
			if (s < 0 || g->nodes[s].op >= 0)
				continue;
			int m = mem_of(g, s, fu->cmem);
			if (m >= 0 && !(op->opnd[k].mems & (1u << m)))
				return 0;
		}
	}
	return 1;
}

/* Appends f to the variant's fusions. */
static void
found_add(Arena *a, FuseInstVariant *v, int *cap, const FuseFound *f)
{
	if (v->nfound == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		FuseFound *nf = arena_alloc(a, sizeof *nf * (size_t)*cap);
		if (v->nfound)
			memcpy(nf, v->found, sizeof *nf * (size_t)v->nfound);
		v->found = nf;
	}
	v->found[v->nfound++] = *f;
}

/* Window w (one source, at graph node src of h) computes its source unchanged
 * (two transposes, or a transpose of a transposed load): proved by the
 * checker against the graph that returns the source, then written as one
 * copy instruction (found by its element equation) that reads the source
 * where it is, so the window's reader takes the source's tile as it is.
 * 0 if it is no such window or no copy instruction reads there. */
static int
identity_window(Fuser *fu, const AxGraph *h, const AxGraph *w, int src, SynthSeq *q)
{
	const AxGraph *g = fu->T->g;
	const AxTarget *t = g->t;
	TermCtx *tc = g->tc;
	const AxNode *in = &w->nodes[w->params[0].node], *out = &w->nodes[w->outputs[0]];
	if (w->nparams != 1 || in->rank != out->rank)
		return 0;
	for (int d = 0; d < in->rank; d++)
		if (in->dim[d] != out->dim[d])
			return 0;
	int m = mem_of(h, src, fu->cmem), copy = -1;
	for (int i = 0; i < t->ninsts && copy < 0; i++)
		if (lower_is_copy(t, tc, i) && m >= 0 && (t->insts[i].opnd[0].mems & (1u << m)))
			copy = i;
	if (copy < 0)
		return 0;
	AxGraph *id = graph_new(t, tc);
	id->params = arena_alloc(tc_arena(tc), sizeof *id->params);
	AxNode x = *in;
	x.input = 0;
	id->params[id->nparams++] = (AxParam){ .name = w->params[0].name, .tensor = 1, .node = graph_add(id, &x),
	                                       .dtype = "f32" };
	id->outputs[0] = id->params[0].node;
	id->noutputs = 1;
	for (int i = 0; i < w->nsyms; i++)
		id->syms[id->nsyms++] = w->syms[i];
	if (!fu->eq)
		fu->eq = equiv_new(t, tc, 2000);
	EquivResult r;
	if (equiv_graphs(fu->eq, w, id, &r) != EQ_EQUIVALENT)
		return 0;
	/* the copy, over the source: its limits from the instruction's spec */
	AxGraph *cg = graph_new(t, tc);
	int opnd[AX_MAXOPND] = { graph_add(cg, &x) }, attr[AX_MAXATTR] = { 0 };
	for (int o = 1; o < AX_MAXOPND; o++)
		opnd[o] = -1;
	Term *sattr[AX_MAXATTR] = { 0 }, *pre;
	graph_add_inst(cg, copy, -1, attr, sattr, opnd, &pre);
	*q = (SynthSeq){ .ninsts = 1, .limit = pre };
	q->insts[0] = t->insts[copy].name;
	q->inst[0] = copy;
	q->engines[0] = t->insts[copy].engines;
	for (int o = 0; o < AX_MAXOPND; o++)
		q->src[0][o] = o == 0 ? -1 : SYNTH_OMITTED;
	snprintf(q->text, sizeof q->text, "%s(%s=%s)", t->insts[copy].name, t->insts[copy].opnd[0].name,
	         w->params[0].name);
	snprintf(q->constraints, sizeof q->constraints, "%s", t_infix(tc, pre));
	return 1;
}

/* Every window of two instructions in variant vi of the nest, depth-1
 * synthesized; in v[0] of a producer and consumer, only the windows whose
 * first instruction is the producer's and second the consumer's (the others
 * are in the ops' own nests). */
static void
windows(Fuser *fu, FuseNest *nest, int vi)
{
	const AxGraph *g = fu->T->g;
	TermCtx *tc = g->tc;
	FuseInstVariant *v = &nest->v[vi];
	const AxGraph *h = v->g;
	int cap = 0;
	for (int x = 0; x < h->nnodes; x++) {
		const AxNode *xn = &h->nodes[x];
		if (xn->op < 0)
			continue;
		for (int o = 0; o < xn->nin; o++) {
			int y = xn->in[o];
			if (y < 0 || h->nodes[y].op < 0)
				continue;
			int oy = nest->owner[h->meta[y].origin], ox = nest->owner[h->meta[x].origin];
			if (vi == 0 && nest->nodes[0] != nest->nodes[1] && (oy != nest->nodes[0] || ox != nest->nodes[1]))
				continue;
			int uses = 0;
			for (int z = 0; z < h->nnodes; z++)
				for (int k = 0; k < h->nodes[z].nin; k++)
					uses += h->nodes[z].in[k] == y;
			if (uses != 1)
				continue;
			/* the window as a graph of its own: outside operands become inputs */
			AxGraph *w = graph_new(g->t, tc);
			w->params = arena_alloc(tc_arena(tc), sizeof *w->params * 2 * AX_MAXOPND);
			int map[2][AX_MAXOPND], srcs[2 * AX_MAXOPND], nsrc = 0;
			const AxNode *yn = &h->nodes[y];
			for (int pass = 0; pass < 2; pass++) {
				const AxNode *nd = pass ? xn : yn;
				for (int k = 0; k < nd->nin; k++) {
					int s = nd->in[k];
					map[pass][k] = -1;
					if (s < 0 || (pass && s == y))
						continue;
					int f;
					for (f = 0; f < nsrc && srcs[f] != s; f++)
						;
					if (f == nsrc) {
						srcs[nsrc++] = s;
						AxNode in = { .op = -1, .input = w->nparams, .rank = h->nodes[s].rank };
						memcpy(in.dim, h->nodes[s].dim, sizeof in.dim);
						static const char *const names[] = { "a", "b", "c", "d", "e", "f", "g", "h" };
						w->params[w->nparams++] = (AxParam){ .name = names[f & 7], .tensor = 1, .node = f,
						                                     .dtype = "f32" };
						graph_add(w, &in);
					}
					map[pass][k] = f;
				}
			}
			Term *pre;
			int yid = graph_add_inst(w, yn->op, yn->engine, yn->attr, yn->sattr, map[0], &pre);
			map[1][o] = yid;
			w->outputs[0] = graph_add_inst(w, xn->op, xn->engine, xn->attr, xn->sattr, map[1], &pre);
			w->noutputs = 1;
			for (int i = 0; i < g->nsyms; i++)
				w->syms[w->nsyms++] = g->syms[i];
			for (int i = 0; i < w->nnodes; i++)   /* the tile sizes it mentions */
				for (int d = 0; d < w->nodes[i].rank; d++) {
					Term *t = w->nodes[i].dim[d];
					int k;
					for (k = 0; k < w->nsyms && (t->kind != TK_VAR || strcmp(w->syms[k], t->name) != 0); k++)
						;
					if (t->kind == TK_VAR && k == w->nsyms && w->nsyms < 64)
						w->syms[w->nsyms++] = t->name;
				}
			fu->res->nwindows++;
			SynthSeq out[16];
			int nf = readable(fu, h, srcs, nsrc) ? lower_tile(fu->c1, w, out, 16) : 0;
			FuseFound f = { .nodes = { oy, ox }, .inst = { y, x }, .nmoves = v->nmoves, .moves = v->moves,
			                .nwsrc = nsrc };
			memcpy(f.wsrc, srcs, sizeof *srcs * (size_t)nsrc);
			char a[128], b[128];
			inst_text(h, yn, a, sizeof a);
			inst_text(h, xn, b, sizeof b);
			snprintf(f.window, sizeof f.window, "%s ; %s", a, b);
			if (nf == 0 && nsrc == 1 && identity_window(fu, h, w, srcs[0], &out[0]))
				nf = 1;   /* a transpose undone: the source as it is, by a copy that reads it there */
			for (int q = 0; q < nf; q++) {
				/* the fused instruction must read its operands where they are */
				int where_ok = out[q].ninsts == 1;
				for (int k = 0; where_ok && k < AX_MAXOPND; k++) {
					int s = out[q].src[0][k];
					if (s == SYNTH_OMITTED || s >= 0)
						continue;
					int m = mem_of(h, srcs[-1 - s], fu->cmem);
					where_ok = m < 0 || (g->t->insts[out[q].inst[0]].opnd[k].mems & (1u << m));
				}
				if (!where_ok)
					continue;
				f.fused = out[q];
				found_add(tc_arena(tc), v, &cap, &f);
				fu->res->nfound++;
			}
		}
	}
}

/* The substitution that makes the consumer's tile of operand o the
 * producer's result tile; -1 if they cannot be the same tiles. */
static int
unify(const AxGraph *ptile, const AxGraph *ctile, int o, Term **from, Term **to)
{
	const AxNode *pr = &ptile->nodes[ptile->outputs[0]], *ci = &ctile->nodes[o];
	if (pr->rank != ci->rank)
		return -1;
	int n = 0;
	for (int d = 0; d < pr->rank; d++) {
		if (ci->dim[d] == pr->dim[d])
			continue;
		if (ci->dim[d]->kind != TK_VAR)
			return -1;
		from[n] = ci->dim[d];
		to[n++] = pr->dim[d];
	}
	return n;
}

static void
add_sym(AxGraph *h, Term *t)
{
	if (t->kind == TK_VAR && t->sort == TS_INT) {
		for (int k = 0; k < h->nsyms; k++)
			if (strcmp(h->syms[k], t->name) == 0)
				return;
		if (h->nsyms < 64)
			h->syms[h->nsyms++] = t->name;
		return;
	}
	for (int i = 0; i < t->n; i++)
		add_sym(h, t->a[i]);
}

/* A nest's instruction graph, begun: no nodes yet. */
static AxGraph *
nest_graph(Fuser *fu, int nparams)
{
	const AxGraph *g = fu->T->g;
	AxGraph *h = graph_new(g->t, g->tc);
	h->params = arena_alloc(tc_arena(g->tc), sizeof *h->params * (size_t)(nparams + 1));
	for (int i = 0; i < 32; i++)
		fu->cmem[i] = -1;
	fu->pre = t_bool(g->tc, 1);
	return h;
}

/* The nest's text of swap st: "past() before moved()". */
static const char *
move_text(const AxGraph *g0, const PropStep *st)
{
	char a[128], b[128], buf[300];
	inst_text(g0, &g0->nodes[st->past], a, sizeof a);
	inst_text(g0, &g0->nodes[st->moved], b, sizeof b);
	int k = __builtin_popcount(st->clones);
	if (k > 1)
		snprintf(buf, sizeof buf, "%s before %s (on %d operands)", a, b, k);
	else
		snprintf(buf, sizeof buf, "%s before %s", a, b);
	return arena_strdup(tc_arena(g0->tc), buf);
}

/* Finishes h (the last node is its result; nodes below boundary are
 * owner0's, the rest owner1's), runs the second round over it and
 * synthesizes every variant's windows. */
static void
fuse_round(Fuser *fu, AxGraph *h, int boundary, int owner0, int owner1, int choice0, int choice1)
{
	const AxGraph *g = fu->T->g;
	TermCtx *tc = g->tc;
	Arena *ar = tc_arena(tc);
	h->outputs[0] = h->nnodes - 1;
	h->noutputs = 1;
	h->meta = arena_alloc(ar, sizeof *h->meta * (size_t)(h->nnodes + 1));
	for (int i = 0; i < h->nnodes; i++)
		h->meta[i].origin = i < boundary ? owner0 : owner1;
	graph_compact(h);   /* inputs first: a parameter's node is its position */
	int *owner = arena_alloc(ar, sizeof *owner * (size_t)(h->nnodes + 1));
	for (int i = 0; i < h->nnodes; i++) {
		owner[i] = h->meta[i].origin;
		if (h->nodes[i].op < 0)
			h->params[h->nodes[i].input].node = i;
	}
	/* the sizes: the program's, the tile sizes, what the program and the
	 * instructions' limits need of them */
	for (int i = 0; i < g->nsyms; i++)
		h->syms[h->nsyms++] = g->syms[i];
	for (int i = 0; i < h->nnodes; i++) {
		for (int d = 0; d < h->nodes[i].rank; d++)
			add_sym(h, h->nodes[i].dim[d]);
		for (int a = 0; a < AX_MAXATTR; a++)
			if (h->nodes[i].sattr[a] && h->nodes[i].sattr[a]->sort == TS_INT)
				add_sym(h, h->nodes[i].sattr[a]);
	}
	for (int i = 0; i < g->nassume && h->nassume < 63; i++)
		h->assume[h->nassume++] = g->assume[i];
	h->assume[h->nassume++] = fu->pre;
	PropHooks hk = { .eq = &fu->eq, .admit = placeable, .env = fu, .refute_first = 1 };
	NuGraph *ng = propagate_ex(h, &fu->po, &hk);
	FuseResult *r = fu->res;
	r->swaps += ng->swaps;
	r->checks += ng->checks;
	if (r->nnests == fu->nestcap) {
		fu->nestcap = fu->nestcap ? 2 * fu->nestcap : 16;
		FuseNest *nn = arena_alloc(ar, sizeof *nn * (size_t)fu->nestcap);
		if (r->nnests)
			memcpy(nn, r->nest, sizeof *nn * (size_t)r->nnests);
		r->nest = nn;
	}
	FuseNest *nest = &r->nest[r->nnests++];
	*nest = (FuseNest){ .nodes = { owner0, owner1 }, .choice = { choice0, choice1 }, .owner = owner,
	                    .nvariants = ng->nvariants, .stop = ng->stop, .opnd = -1, .hyp = fu->pre };
	nest->v = arena_alloc(ar, sizeof *nest->v * (size_t)(ng->nvariants + 1));
	const AxGraph *g0 = ng->variants[0];
	for (int vi = 0; vi < ng->nvariants; vi++) {
		FuseInstVariant *v = &nest->v[vi];
		const PropStep *st = vi < hk.nsteps ? &hk.steps[vi] : NULL;
		*v = (FuseInstVariant){ .g = ng->variants[vi], .parent = -1, .moved = -1, .past = -1 };
		if (vi > 0 && st && st->parent >= 0 && st->parent < vi) {
			const FuseInstVariant *pv = &nest->v[st->parent];
			v->parent = st->parent;
			v->moved = st->moved;
			v->past = st->past;
			v->clones = st->clones;
			v->nmoves = pv->nmoves + 1;
			v->moves = arena_alloc(ar, sizeof *v->moves * (size_t)v->nmoves);
			if (pv->nmoves)
				memcpy(v->moves, pv->moves, sizeof *v->moves * (size_t)pv->nmoves);
			v->moves[pv->nmoves] = move_text(g0, st);
		}
		windows(fu, nest, vi);
	}
}

FuseResult *
fuse_nests(LowerCache *c1, const AxTiling *T, const LowerNode *L, const PropOpts *po)
{
	const AxGraph *g = T->g;
	TermCtx *tc = g->tc;
	Fuser fu = { .c1 = c1, .T = T };
	fu.res = arena_alloc(tc_arena(tc), sizeof *fu.res);
	fu.po = po ? *po : (PropOpts){ .variant_cap = 16, .time_ms = 10000 };
	if (fu.po.timeout_ms <= 0)
		fu.po.timeout_ms = 2000;
	for (int c = 0; c < g->nnodes; c++) {
		const TileOp *tc_op = &T->op[c];
		if (tc_op->kind != TO_COMPUTE || !L[c].nchoices)
			continue;
		const AxGraph *ctile = tc_op->tile;
		/* inside one operation */
		for (int qc = 0; qc < L[c].nchoices; qc++) {
			if (fu.res->nwindows >= FUSE_MAX_WINDOWS) {   /* the budget: the nests left are not searched */
				fu.res->skipped++;
				continue;
			}
			AxGraph *h = nest_graph(&fu, ctile->nparams);
			int in[AX_MAXOPND];
			add_inputs(&fu, h, ctile, &L[c], &L[c].choice[qc], NULL, NULL, 0, -1, in);
			add_seq(&fu, h, &L[c].choice[qc].seq, in);
			fuse_round(&fu, h, 0, c, c, qc, qc);
		}
		/* a producer whose only reader it is: both in one loop nest */
		const AxNode *cn = &g->nodes[c];
		for (int o = 0, po_ = 0; o < cn->nin; o++) {
			int p = cn->in[o];
			if (p < 0)
				continue;
			int tp = po_++;   /* the operand's position among the tile's inputs */
			if (T->op[p].kind != TO_COMPUTE || !L[p].nchoices)
				continue;
			if (graph_readers(g, p) != 1)
				continue;
			const AxGraph *ptile = T->op[p].tile;
			Term *from[8], *to[8];
			int nsub = unify(ptile, ctile, tp, from, to);
			if (nsub < 0)
				continue;
			for (int qp = 0; qp < L[p].nchoices; qp++)
				for (int qc = 0; qc < L[c].nchoices; qc++) {
					if (fu.res->nwindows >= FUSE_MAX_WINDOWS) {
						fu.res->skipped++;
						continue;
					}
					AxGraph *h = nest_graph(&fu, ptile->nparams + ctile->nparams);
					int pin[AX_MAXOPND], cin[AX_MAXOPND];
					add_inputs(&fu, h, ptile, &L[p], &L[p].choice[qp], NULL, NULL, 0, -1, pin);
					cin[tp] = add_seq(&fu, h, &L[p].choice[qp].seq, pin);
					int boundary = h->nnodes;
					add_inputs(&fu, h, ctile, &L[c], &L[c].choice[qc], from, to, nsub, tp, cin);
					/* the consumer's sequence over the producer's tile sizes */
					SynthSeq q = L[c].choice[qc].seq;
					for (int j = 0; j < q.ninsts; j++)
						for (int a = 0; a < AX_MAXATTR; a++)
							if (q.sattr[j][a])
								q.sattr[j][a] = t_subst(tc, q.sattr[j][a], from, to, nsub);
					add_seq(&fu, h, &q, cin);
					fuse_round(&fu, h, boundary, p, c, qp, qc);
					FuseNest *nest = &fu.res->nest[fu.res->nnests - 1];
					nest->opnd = tp;
					nest->nsub = nsub;
					memcpy(nest->from, from, sizeof *from * (size_t)nsub);
					memcpy(nest->to, to, sizeof *to * (size_t)nsub);
				}
		}
	}
	equiv_free(fu.eq);   /* NULL when no nest needed it */
	return fu.res;
}

int
fuse_variant(LowerCache *c1, const AxTiling *T, const LowerNode *L, FuseCb cb, void *env, FuseResult **res)
{
	FuseResult *r = fuse_nests(c1, T, L, NULL);
	char (*seen)[256] = NULL;   /* ops + window + fused text, reported once */
	int nseen = 0, capseen = 0, n = 0;
	for (int k = 0; k < r->nnests; k++)
		for (int vi = 0; vi < r->nest[k].nvariants; vi++) {
			const FuseInstVariant *v = &r->nest[k].v[vi];
			for (int i = 0; i < v->nfound; i++) {
				const FuseFound *f = &v->found[i];
				char key[256];
				snprintf(key, sizeof key, "%d %d %.100s -> %.120s", f->nodes[0], f->nodes[1], f->window,
				         f->fused.text);
				int dup = 0;
				for (int s = 0; s < nseen && !dup; s++)
					dup = strcmp(seen[s], key) == 0;
				if (dup)
					continue;
				if (nseen == capseen) {
					capseen = capseen ? 2 * capseen : 32;
					seen = realloc(seen, sizeof *seen * (size_t)capseen);
					if (!seen)
						ax_die("out of memory");
				}
				memcpy(seen[nseen++], key, sizeof key);
				n++;
				cb(env, f);
			}
		}
	free(seen);
	if (res)
		*res = r;
	return n;
}
