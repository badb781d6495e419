/*
 * emit_axes.c — the loop structure of one operation at a candidate's
 * sizes: per axis its extent, tile size and tiles per block, the
 * sequential axis and whether it takes K blocks (em_op_axes,
 * em_kblock_move); whether two operations iterate alike, so that one loop
 * nest can run both (em_same_loops).
 */
#include <stdio.h>
#include <string.h>
#include "emit.h"

/* The loop structure of operation id: per axis its extent, tile size and
 * tiles per block (into st->blk); the sequential axis or -1. */
int
em_op_axes(Em *e, int id, OpSt *st, int64_t *ext, int64_t *tsz)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	int seqax = em_seq_axis(to);
	st->id = id;
	st->blocked = 0;
	st->kax = -1;
	st->kj[0] = 0;
	for (int k = 0; k < AX_MAXR + 4; k++)   /* every entry: callers scan them all */
		st->blk[k] = 1;
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		ext[k] = em_int(e, ax->extent);
		tsz[k] = ax->t ? em_int(e, t_var(g->tc, ax->t, TS_INT)) : ext[k];
		if (ax->tiled && ax->t && ax->red && !ax->whole && k != seqax)
			em_fail(e, "%s: two reductions across tiles", node_op(g, &g->nodes[id])->name);
		/* tiles per block: the class's, the largest divisor of the tile count not above it */
		int64_t want = e->blocks && ax->bcls >= 0 ? e->blocks[ax->bcls] : 1, n = ext[k] / (tsz[k] ? tsz[k] : 1);
		int eng, kb = k == seqax && want > 1 && em_kblock_move(e, id, &eng) >= 0;
		st->blk[k] = ax->tiled && ax->t && (k != seqax || kb) && !ax->unit ? (int)nest_divisor(n, want) : 1;
		/* with a tail tile, where the candidate folds: blocks of groups of rows (emit_fold.c) */
		int64_t fb = !e->nofold && k != seqax && ax->tiled && ax->t && tsz[k] > 0 && ext[k] % tsz[k] &&
		                     fold_axis_ok(g, to, id, k) ? fold_blocks(ext[k], tsz[k], want) : 1;
		if (fb > 1)
			st->blk[k] = (int)fb;
		st->blocked |= st->blk[k] > 1;
		if (k == seqax && st->blk[k] > 1)
			st->kax = k;
	}
	return seqax;
}

/* Operations a and b iterate the same way: the same loops, tiles, blocks and
 * sequential axis, so one loop nest can run both. */
int
em_same_loops(Em *e, int a, int b)
{
	const TileOp *ta = &e->T->op[a], *tb = &e->T->op[b];
	if (ta->naxes != tb->naxes || em_seq_axis(ta) != em_seq_axis(tb))
		return 0;
	OpSt sa, sb;
	int64_t ea[AX_MAXR + 4], ta_[AX_MAXR + 4], eb[AX_MAXR + 4], tb_[AX_MAXR + 4];
	em_op_axes(e, a, &sa, ea, ta_);
	em_op_axes(e, b, &sb, eb, tb_);
	for (int k = 0; k < ta->naxes; k++) {
		const TileAxis *x = &ta->ax[k], *y = &tb->ax[k];
		if (x->tiled != y->tiled || x->unit != y->unit || !x->t != !y->t || (x->red != 0) != (y->red != 0) ||
		    x->whole != y->whole || ea[k] != eb[k] || ta_[k] != tb_[k] || sa.blk[k] != sb.blk[k])
			return 0;
		if (em_seq_axis(ta) == k && x->red != y->red)
			return 0;
	}
	return 1;
}

/* K blocks: a sum across tiles (the K loop of a matrix product) whose tiles
 * are taken a block at a time: each block's tiles accumulated in place (in
 * PSUM), the block's sum then added to the running value in the memory the
 * result's first move takes it to (SBUF), so that the blocks along the
 * other axes are not bounded by the accumulating memory.  The move (its
 * index in the choice's moves) and the engine of the one-instruction
 * combining sequence that reads both memories; -1 if the operation cannot. */
int
em_kblock_move(Em *e, int id, int *eng)
{
	const AxTarget *t = e->g->t;
	const TileOp *to = &e->T->op[id];
	const LowerNode *ln = &e->L[id];
	int seqax = em_seq_axis(to);
	if (seqax < 0 || to->ax[seqax].red != TR_SUM || !e->ns->accumulate || !ln->ncombine ||
	    ln->combine[0].ninsts != 1)
		return -1;
	const LowerChoice *ch = &ln->choice[e->choice[id]];
	int from = ch->mem[ch->seq.ninsts - 1], mv = -1;
	for (int k = 0; k < ch->nmoves && mv < 0; k++)
		if (ch->move[k].before == ch->seq.ninsts && ch->move[k].from == from && !t->mems[ch->move[k].to].offchip)
			mv = k;
	if (mv < 0)
		return -1;
	int to_ = ch->move[mv].to;
	const SynthSeq *q = &ln->combine[0];
	const AxOp *op = &t->insts[q->inst[0]];
	for (int k = 0; k < t->nengines && k < 32; k++) {
		uint32_t b = 1u << k;
		if (!(q->engines[0] & op->engines & b) || !(ax_inst_mems(t, op, -1, b) & (1u << to_)))
			continue;
		int ok = 1;
		for (int o = 0; o < op->nopnd && ok; o++) {
			int s = q->src[0][o];
			if (s == SYNTH_OMITTED)
				continue;
			/* combine(a, b): the running value a, the block's sum b */
			ok = (ax_inst_mems(t, op, o, b) & (1u << (s == -1 ? to_ : from))) != 0;
		}
		if (ok) {
			*eng = k;
			return mv;
		}
	}
	return -1;
}
