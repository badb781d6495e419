/*
 * emit_fuse.c — loop fusion: which producers run in their reader's loop
 * nest (em_can_fuse: the same cuts, the producer's loops the reader's
 * outermost or its sequential one; a reduction in one tile fuses like any
 * producer; a producer read by several operations of one nest is shared,
 * made once per iteration, emit_kernel.c decides) and whether one is
 * computed in a reader's nest (em_fused_into); emit_tile.c makes their
 * tiles there (em_producers).  Epilogues: emit_epi.c.
 */
#include <string.h>
#include "emit.h"

/* ---- loop fusion ------------------------------------------------------------------- */

/* Axes a loop nest runs over: loops with more than one index, tile axes cut
 * into more than one tile. */
int
em_iterated(Em *e, const TileOp *to, int k)
{
	const TileAxis *ax = &to->ax[k];
	if (!ax->tiled)
		return em_int(e, ax->extent) > 1;
	return ax->t && !ax->whole && em_int(e, t_var(e->g->tc, ax->t, TS_INT)) < em_int(e, ax->extent);
}

int
em_seq_axis(const TileOp *to)
{
	int k = -1;
	for (int j = 0; j < to->naxes; j++)
		if (to->ax[j].tiled && to->ax[j].t && to->ax[j].red && !to->ax[j].whole)
			k = j;
	return k;
}

/* Can producer p (operand o of c, which alone reads it) run in c's loop
 * nest?  p must not reduce across tiles; each axis of p that c reads as
 * one of its own must be cut the same way in both (same extent, same tile
 * size, a loop in both or in neither); and the loops p needs must be the
 * outermost of c's parallel loops, so that p's tile is made once per
 * iteration of them, before c's other loops (a tile of rsqrt per row block,
 * used by every column tile of the multiply) -- unless p follows c's
 * sequential axis: then p's tile is made per tile of c, inside that loop
 * (X * r made per K tile of the matmul it feeds, never stored off chip).
 * *kmax gets the last of c's axes p needs (-1: none, p is made once; c's
 * axis count: per tile). */
int
em_can_fuse(Em *e, int p, int c, int o, int *kmax)
{
	return em_can_fuse_at(e, p, c, o, -1, kmax);
}

int
em_can_fuse_at(Em *e, int p, int c, int o, int skip, int *kmax)
{
	const AxGraph *g = e->g;
	const TileOp *tp = &e->T->op[p], *tq = &e->T->op[c];
	int pseq = em_seq_axis(tp);
	if (tp->kind != TO_COMPUTE || tq->kind != TO_COMPUTE || !e->L[p].nchoices || !e->L[c].nchoices ||
	    (pseq >= 0 && em_iterated(e, tp, pseq)) || (!e->anyreaders && graph_readers(g, p) != 1))
		return 0;
	int seqax = em_seq_axis(tq), inseq = 0;
	uint32_t used = 0;
	*kmax = -1;
	for (int k = 0; k < tp->naxes; k++) {
		int j = tp->ax[k].out, it = em_iterated(e, tp, k);
		const TileAxisRead *r = j >= 0 ? &tq->read[o][j] : NULL;
		if (j >= 0 && j == skip) {   /* cut per part of the concatenation: made per tile of c along it */
			if (!r || r->kind != 1 || r->axis == seqax)
				return 0;
			used |= 1u << r->axis;
			if (r->axis > *kmax)
				*kmax = r->axis;
			continue;
		}
		if (!r || r->kind != 1) {
			if (it)
				return 0;   /* a loop of p that c does not follow */
			continue;
		}
		const TileAxis *a = &tp->ax[k], *b = &tq->ax[r->axis];
		if (it != em_iterated(e, tq, r->axis) || em_int(e, a->extent) != em_int(e, b->extent))
			return 0;
		if (!it)
			continue;
		if (a->tiled != b->tiled ||
		    (a->tiled && em_int(e, t_var(g->tc, a->t, TS_INT)) != em_int(e, t_var(g->tc, b->t, TS_INT))))
			return 0;
		if (r->axis == seqax) {
			inseq = 1;
			continue;
		}
		used |= 1u << r->axis;
		if (r->axis > *kmax)
			*kmax = r->axis;
	}
	if (inseq) {   /* made per tile of c, inside its sequential loop */
		*kmax = tq->naxes;
		return 1;
	}
	for (int k = 0; k <= *kmax; k++)   /* p's loops are c's outermost */
		if (k != seqax && em_iterated(e, tq, k) && !(used & (1u << k)))
			return 0;
	return 1;
}


/* Is p computed in c's loop nest, a tile of it on chip when c reads it?
 * Its only reader c runs it there, or p is shared: computed once per
 * iteration of the loop nest that runs all its readers (into[p], the root). */
int
em_fused_into(const Em *e, int p, int c)
{
	if (p < 0 || !e->into || e->into[p] < 0)
		return 0;
	if (e->into[p] == c)
		return 1;
	if (!e->shared || !e->shared[p])
		return 0;
	int r = c;
	while (e->into[r] >= 0)
		r = e->into[r];
	return r == e->into[p];
}

