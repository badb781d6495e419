/*
 * emit_fuse.c — loop fusion: which producers run in their reader's loop
 * nest (em_can_fuse: the same cuts, the producer's loops the reader's
 * outermost or its sequential one; a reduction in one tile fuses like any
 * producer; a producer read by several operations of one nest is shared,
 * made once per iteration, emit_kernel.c decides), and their tiles made
 * there (em_producers), kept on chip for their readers.
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

/* The producers fused into c, computed at c's current tile (recursively,
 * their own producers first); their tiles stay on chip.  A shared
 * producer is made at its first reader and taken by the others, which
 * must read the same tile of it (else the candidate is not written with
 * sharing: nest_build writes it again without). */
void
em_producers(Em *e, int c, const NsDim *caxidx)
{
	const AxGraph *g = e->g;
	const AxNode *cn = &g->nodes[c];
	if (!e->pdepth++)
		e->gen++;   /* a new iteration of the loop nest: shared tiles made anew */
	for (int o = 0; o < cn->nin && !e->bad; o++) {
		int p = cn->in[o];
		if (!em_fused_into(e, p, c))
			continue;
		const TileOp *tp = &e->T->op[p];
		NsDim pax[AX_MAXR + 4] = { 0 };
		for (int k = 0; k < tp->naxes; k++) {
			const TileAxis *ax = &tp->ax[k];
			int j = ax->out;
			const TileAxisRead *r = j >= 0 ? &e->T->op[c].read[o][j] : NULL;
			if (em_iterated(e, tp, k) && r && r->kind == 1)
				pax[k] = caxidx[r->axis];
			else if (!ax->tiled)
				em_dim(&pax[k], 0, "0");
			else
				em_dim(&pax[k], ax->unit ? 1 : em_int(e, ax->extent), "0");
		}
		if (e->shared && e->shared[p]) {
			if (e->made[p] == e->gen) {   /* made for an earlier reader in this iteration */
				if (memcmp(e->spax[p], pax, sizeof pax) != 0) {
					e->clash = 1;
					em_fail(e, "%s: its readers in one loop nest read different tiles of it",
					        node_op(g, &g->nodes[p])->name);
				}
				continue;
			}
			e->made[p] = e->gen;
			memcpy(e->spax[p], pax, sizeof pax);
		}
		const LowerChoice *cch = &e->L[c].choice[e->choice[c]];
		if (cch->tile && cch->absorb == p && e->pax) {   /* its reader's fused instructions compute it */
			em_note(e, p, 0, "%s, in this loop nest, fused into its reader's instructions",
			        node_op(g, &g->nodes[p])->name);
			em_producers(e, p, pax);
			memcpy(e->pax[p], pax, sizeof pax);
			continue;
		}
		em_note(e, p, 0, "%s, in this loop nest", node_op(g, &g->nodes[p])->name);
		em_producers(e, p, pax);
		NsRef r;
		int save = e->node;
		e->node = p;
		em_tile_body(e, p, pax, &r);
		em_store(e, p, &r, NULL);
		e->node = save;
		e->onchip[p] = r;
	}
	e->pdepth--;
}
