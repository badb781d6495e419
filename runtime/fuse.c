/*
 * fuse.c — instruction fusion (paper section 3.5), found by synthesis.
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
 */
#include <string.h>
#include "axon.h"

typedef struct Fuser {
	LowerCache *c1;          /* depth-1 synthesis, cached by window semantics */
	const AxTiling *T;
	FuseCb cb;
	void *env;
	int nfound;
	char (*seen)[256];       /* window + fused text, reported once */
	int nseen, capseen;
	int windows;
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

/* Appends a sequence to h: inputs in[p] for the tile's inputs; returns the
 * node of its last instruction. */
static int
add_seq(AxGraph *h, const SynthSeq *q, const int *in)
{
	int node[8];
	for (int j = 0; j < q->ninsts; j++) {
		int opnd[AX_MAXOPND];
		for (int o = 0; o < AX_MAXOPND; o++) {
			int s = q->src[j][o];
			opnd[o] = s == SYNTH_OMITTED ? -1 : s >= 0 ? node[s] : in[-1 - s];
		}
		Term *pre;
		node[j] = graph_add_inst(h, q->inst[j], -1, q->attr[j], q->sattr[j], opnd, &pre);
	}
	return node[q->ninsts - 1];
}

/* Input nodes for a tile's operands, each behind the load its choice has. */
static void
add_inputs(AxGraph *h, const AxGraph *tile, const LowerChoice *ch, Term *const *from, Term *const *to, int nsub,
           int skip, int *in)
{
	for (int p = 0; p < tile->nparams; p++) {
		if (p == skip)
			continue;
		AxNode x = { .op = -1, .input = h->nparams, .rank = tile->nodes[p].rank };
		for (int d = 0; d < x.rank; d++)
			x.dim[d] = t_subst(h->tc, tile->nodes[p].dim[d], from, to, nsub);
		h->params[h->nparams++] = (AxParam){ .name = tile->params[p].name, .tensor = 1, .node = h->nnodes,
		                                     .dtype = "f32" };
		in[p] = graph_add(h, &x);
		for (int k = 0; k < ch->nmoves; k++)
			if (strcmp(ch->move[k].what, tile->params[p].name) == 0) {
				int opnd[AX_MAXOPND] = { in[p] }, attr[AX_MAXATTR] = { 0 };
				Term *sattr[AX_MAXATTR] = { 0 }, *pre;
				in[p] = graph_add_inst(h, ch->move[k].inst, -1, attr, sattr, opnd, &pre);
				break;
			}
	}
}

/* The memory a node's value is in: the program's tensors off chip, an
 * instruction's result in its first on-chip result memory. */
static int
mem_of(const AxGraph *h, int id)
{
	const AxTarget *t = h->t;
	const AxNode *n = &h->nodes[id];
	int off = -1, first = -1;
	for (int m = 0; m < t->nmems; m++) {
		if (t->mems[m].offchip && off < 0)
			off = m;
		if (n->op >= 0 && (node_op(h, n)->out_mems & (1u << m)) && !t->mems[m].offchip && first < 0)
			first = m;
	}
	return n->op < 0 ? off : first;
}

/* Every window of two instructions in h, depth-1 synthesized; with a
 * boundary, only windows whose first instruction is before it (the
 * producer's) and whose second is not (the consumer's). */
static void
windows(Fuser *fu, const AxGraph *h, int n0, int n1, int boundary)
{
	const AxGraph *g = fu->T->g;
	TermCtx *tc = g->tc;
	for (int x = 0; x < h->nnodes; x++) {
		const AxNode *xn = &h->nodes[x];
		if (xn->op < 0)
			continue;
		for (int o = 0; o < xn->nin; o++) {
			int y = xn->in[o];
			if (y < 0 || h->nodes[y].op < 0 || (boundary >= 0 && (y >= boundary || x < boundary)))
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
			for (int i = 0; i < fu->T->g->nsyms; i++)
				w->syms[w->nsyms++] = g->syms[i];
			for (int i = 0; i < w->nnodes; i++)   /* the tile sizes it mentions */
				for (int d = 0; d < w->nodes[i].rank; d++) {
					Term *v = w->nodes[i].dim[d];
					int k;
					for (k = 0; k < w->nsyms && (v->kind != TK_VAR || strcmp(w->syms[k], v->name) != 0); k++)
						;
					if (v->kind == TK_VAR && k == w->nsyms && w->nsyms < 64)
						w->syms[w->nsyms++] = v->name;
				}
			fu->windows++;
			SynthSeq out[16];
			int nf = lower_tile(fu->c1, w, out, 16);
			char a[128], b[128];
			inst_text(h, yn, a, sizeof a);
			inst_text(h, xn, b, sizeof b);
			for (int q = 0; q < nf; q++) {
				/* the fused instruction must read its operands where they are */
				int where_ok = out[q].ninsts == 1;
				for (int k = 0; where_ok && k < AX_MAXOPND; k++) {
					int s = out[q].src[0][k];
					if (s == SYNTH_OMITTED || s >= 0)
						continue;
					int m = mem_of(h, srcs[-1 - s]);
					where_ok = m < 0 || (g->t->insts[out[q].inst[0]].opnd[k].mems & (1u << m));
				}
				if (!where_ok)
					continue;
				FuseFound f = { .nodes = { n0, n1 }, .fused = out[q] };
				snprintf(f.window, sizeof f.window, "%s ; %s", a, b);
				char key[256];
				snprintf(key, sizeof key, "%d %d %.100s -> %.120s", n0, n1, f.window, out[q].text);
				int dup = 0;
				for (int s = 0; s < fu->nseen && !dup; s++)
					dup = strcmp(fu->seen[s], key) == 0;
				if (dup)
					continue;
				if (fu->nseen == fu->capseen) {
					fu->capseen = fu->capseen ? 2 * fu->capseen : 32;
					fu->seen = realloc(fu->seen, sizeof *fu->seen * (size_t)fu->capseen);
					if (!fu->seen)
						ax_die("out of memory");
				}
				memcpy(fu->seen[fu->nseen++], key, sizeof key);
				fu->nfound++;
				fu->cb(fu->env, &f);
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

int
fuse_variant(LowerCache *c1, const AxTiling *T, const LowerNode *L, FuseCb cb, void *env, int *nwindows)
{
	const AxGraph *g = T->g;
	TermCtx *tc = g->tc;
	Fuser fu = { .c1 = c1, .T = T, .cb = cb, .env = env };
	for (int c = 0; c < g->nnodes; c++) {
		const TileOp *tc_op = &T->op[c];
		if (tc_op->kind != TO_COMPUTE || !L[c].nchoices)
			continue;
		const AxGraph *ctile = tc_op->tile;
		/* inside one operation */
		for (int qc = 0; qc < L[c].nchoices; qc++) {
			AxGraph *h = graph_new(g->t, tc);
			h->params = arena_alloc(tc_arena(tc), sizeof *h->params * (size_t)(ctile->nparams + 1));
			int in[AX_MAXOPND];
			add_inputs(h, ctile, &L[c].choice[qc], NULL, NULL, 0, -1, in);
			h->outputs[h->noutputs++] = add_seq(h, &L[c].choice[qc].seq, in);
			windows(&fu, h, c, c, -1);
		}
		/* a producer whose only reader it is: both in one loop nest */
		const AxNode *cn = &g->nodes[c];
		for (int o = 0, po = 0; o < cn->nin; o++) {
			int p = cn->in[o];
			if (p < 0)
				continue;
			int tp = po++;   /* the operand's position among the tile's inputs */
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
					AxGraph *h = graph_new(g->t, tc);
					h->params = arena_alloc(tc_arena(tc), sizeof *h->params * (size_t)(ptile->nparams + ctile->nparams + 1));
					int pin[AX_MAXOPND], cin[AX_MAXOPND];
					add_inputs(h, ptile, &L[p].choice[qp], NULL, NULL, 0, -1, pin);
					cin[tp] = add_seq(h, &L[p].choice[qp].seq, pin);
					int boundary = h->nnodes;
					add_inputs(h, ctile, &L[c].choice[qc], from, to, nsub, tp, cin);
					/* the consumer's sequence over the producer's tile sizes */
					SynthSeq q = L[c].choice[qc].seq;
					for (int j = 0; j < q.ninsts; j++)
						for (int a = 0; a < AX_MAXATTR; a++)
							if (q.sattr[j][a])
								q.sattr[j][a] = t_subst(tc, q.sattr[j][a], from, to, nsub);
					h->outputs[h->noutputs++] = add_seq(h, &q, cin);
					windows(&fu, h, p, c, boundary);
				}
		}
	}
	free(fu.seen);
	*nwindows = fu.windows;
	return fu.nfound;
}
