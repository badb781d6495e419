/*
 * emit_fold.c — blocks of tiles along a partition axis with their rows
 * folded (nest.h, NsDim.fold): which axes fold, and the check that a
 * written candidate's folded slices are all what a fold needs.
 *
 * A block of b tiles of T rows along the partition axis of a loop nest
 * normally holds rows (B b + j) T + p in partition p of its tile j: each
 * tile is its own transfer, and a block load is b transfers.  Folded, tile
 * j holds rows (B T + p) b + j instead: the tensor seen as (rows / b, b,
 * ...), tile j its row j of groups B T .. B T + T - 1.  Every slice of the
 * loop nest along that axis is written so (the loads, the stores, the
 * producers made in it), so the mapping of rows to tiles is the same
 * throughout and the result is too; but now the block's rows are b T
 * contiguous rows, b in each partition, and its load is one transfer of
 * b times the bytes per partition into one tile of several free axes
 * (T, b, ...) ("a tile of any dimensionality", nki.isa.dma_copy): fewer,
 * larger transfers, as the NKI performance guide asks (>= 2 KiB, better 4
 * KiB per partition and transfer; its fixed cost per transfer is paid
 * once per block).  The view is the target's reshape of the tensor.
 *
 * Which axes: a blocked tile axis that is the partition axis of the loop
 * nest's result, neither its sequential axis nor K-blocked, cut into whole
 * blocks (no tail).  After the candidate is written, nest_folds_ok checks
 * every folded slice: each must be the partition dim of a transfer, of a
 * tensor (not a view of one) whose dim the fold divides; otherwise the
 * candidate is written again without folds (emit_kernel.c).
 */
#include <string.h>
#include "emit.h"

int
em_fold_axis(Em *e, Group *gr, int k)
{
	if (e->nofold || k == gr->seqax)
		return 0;
	int blk = gr->st[0].blk[k];
	int64_t T = gr->tsz[k], ext = gr->ext[k];
	if (blk < 2 || T < 1 || ext % (blk * T))
		return 0;
	const AxGraph *g = e->g;
	for (int m = 0; m < gr->n; m++) {
		const TileOp *to = &e->T->op[gr->ids[m]];
		int rank = g->nodes[gr->ids[m]].rank;
		if (gr->st[m].blk[k] != blk || gr->st[m].kax == k || to->deep || k >= to->naxes || !to->ax[k].tiled ||
		    to->ax[k].red || rank < 2 || to->ax[k].out != rank - 2)
			return 0;
	}
	return 1;
}

/* Is r, a slice of statement s, fit for its folds (1: also when it has none)? */
static int
ref_fold_ok(const Nest *ns, const AxTiling *T, const NsStmt *s, const NsRef *r)
{
	if (r->var == NS_NONE || r->var >= 0)
		return 1;
	int fd = -1, first = -1;
	for (int d = 0; d < r->nidx; d++) {
		if (first < 0 && (r->idx[d].len > 0 || r->idx[d].flen > 0))
			first = d;
		if (r->idx[d].fold > 0) {
			if (fd >= 0)
				return 0;   /* one folded dim a slice */
			fd = d;
		}
	}
	if (fd < 0)
		return 1;
	const AxGraph *g = ns->g;
	const AxTarget *t = g->t;
	int node = -1 - r->var;
	if (node >= g->nnodes || T->op[node].kind == TO_VIEW)
		return 0;
	int dma = s->kind == NS_STORE ||
	          (s->kind == NS_INST && s->engine >= 0 && s->engine < t->nengines && t->engines[s->engine].dma);
	if (!dma || fd != first || r->idx[fd].len < 1 || r->shape.rank < 1 || r->shape.d[0] != r->idx[fd].len)
		return 0;   /* the fold must be the partition dim of a transfer */
	AxShape bs;
	if (graph_shape(g, node, &ns->env, &bs) != 0 || bs.rank != r->nidx || bs.d[fd] % r->idx[fd].fold)
		return 0;
	return 1;
}

int
nest_folds_ok(const Nest *ns, const AxTiling *T)
{
	for (int i = 0; i < ns->n; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind != NS_INST && s->kind != NS_STORE && s->kind != NS_ACC && s->kind != NS_SET)
			continue;
		for (int o = 0; o < AX_MAXOPND; o++)
			if (!ref_fold_ok(ns, T, s, &s->opnd[o]))
				return 0;
		if (!ref_fold_ok(ns, T, s, &s->out) || !ref_fold_ok(ns, T, s, &s->src))
			return 0;
	}
	return 1;
}

/* A statement of kind at position at (the ones from there on move down one). */
static NsStmt *
insert_at(Em *e, int at, int kind, int depth)
{
	nest_push(e->ns, kind, depth);
	Nest *ns = e->ns;
	NsStmt s = ns->s[ns->n - 1];
	memmove(&ns->s[at + 1], &ns->s[at], sizeof *ns->s * (size_t)(ns->n - 1 - at));
	ns->s[at] = s;
	return &ns->s[at];
}

/* The result tile v of operation id (its tile loops opened at statement
 * loops_at, depth outer) stored through a folded slice dst: each tile of the
 * block written into one tile (T, b, ...) by the instruction that makes it,
 * and that tile stored in one transfer after the loops, the moves before the
 * last made per tile as usual.  1 if so (the loops are closed); 0: nothing
 * written, the tile is to be stored as usual. */
int
em_fold_store(Em *e, int id, NsRef *v, const NsRef *dst, int loops_at, int outer)
{
	const AxTarget *t = e->g->t;
	const TileOp *to = &e->T->op[id];
	const LowerChoice *ch = &e->L[id].choice[e->choice[id]];
	int a = -1;
	for (int k = 0; k < to->naxes; k++)
		if (e->cur->blk[k] > 1) {
			if (a >= 0 || !e->fold[k])
				return 0;
			a = k;
		}
	int last = -1, d = 0;
	for (int k = 0; k < ch->nmoves; k++)
		if (ch->move[k].before == ch->seq.ninsts)
			last = k;
	if (a < 0 || last < 0 || !t->mems[ch->move[last].to].offchip || !t->engines[ax_nth_bit(ch->move[last].engines, 0)].dma)
		return 0;
	while (d < dst->nidx && !dst->idx[d].len)
		d++;
	if (d == dst->nidx || dst->idx[d].fold != e->cur->blk[a] || dst->idx[d].flen || dst->shape.rank < 1 ||
	    dst->shape.rank + 1 > AX_MAXR || dst->idx[d].len != dst->shape.d[0])
		return 0;
	/* the moves before the last, per tile */
	for (int k = 0; k < last; k++) {
		const LowerMove *m = &ch->move[k];
		if (m->before != ch->seq.ninsts)
			continue;
		const NsRef *mo[AX_MAXOPND] = { v };
		int attr[AX_MAXATTR] = { 0 };
		Term *sattr[AX_MAXATTR] = { 0 };
		NsRef moved;
		em_inst(e, m->inst, ax_nth_bit(m->engines, 0), attr, sattr, mo, NULL, m->to, &moved);
		*v = moved;
	}
	NsStmt *mk = e->ns->n ? &e->ns->s[e->ns->n - 1] : NULL;
	if (e->bad || !mk || mk->kind != NS_INST || mk->var != v->var || v->var < 0 || v->nidx || mk->out.var != NS_NONE ||
	    mk->mem < 0 || t->mems[mk->mem].offchip || mk->depth <= outer)
		return 0;
	/* the buffer, before the loops; the tile's instruction writes its tile of it */
	int buf = e->ns->nvars++, mem = mk->mem;
	AxShape tile = mk->shape;
	NsRef bt = em_block_tile(e, buf, 1u << a, -1, &tile);
	mk->out = bt;
	mk->mem = -1;
	NsStmt *bf = insert_at(e, loops_at, NS_BUF, outer);
	bf->var = buf;
	bf->node = id;
	bf->mem = mem;
	bf->shape = em_block_shape(e, 1u << a, &tile);
	bf->onetile = 1;
	em_close_to(e, outer);
	/* the block stored at once: the buffer whole, its rows folded */
	NsRef src = bt, out = *dst;
	for (int k = 0; k < src.nidx; k++)
		if (src.idx[k].len == 0)
			em_dim(&src.idx[k], e->cur->blk[a], "0");
	src.shape = bf->shape;
	snprintf(out.idx[d].fin, sizeof out.idx[d].fin, "0");
	out.idx[d].flen = out.idx[d].fold;
	out.shape = bf->shape;
	const LowerMove *m = &ch->move[last];
	const NsRef *mo[AX_MAXOPND] = { &src };
	int attr[AX_MAXATTR] = { 0 };
	Term *sattr[AX_MAXATTR] = { 0 };
	NsRef moved;
	em_inst(e, m->inst, ax_nth_bit(m->engines, 0), attr, sattr, mo, &out, m->to, &moved);
	return 1;
}
