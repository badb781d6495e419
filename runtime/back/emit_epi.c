/*
 * emit_epi.c — epilogues: an operation computed on each tile of a
 * reduction across tiles (a matrix product's K loop) once the reduction
 * has finished it, in the reduction's loop nest, instead of in a loop nest
 * of its own that reads the reduction back from off chip.
 *
 * The reader c (the root of a loop nest: not computed in another) takes as
 * its epilogue every reduction all of whose readers are c or operations
 * computed in c's loop nest (the SiLU chain and the multiply of
 * silu(X @ W1) * (X @ W3) take both products).  Those reductions share one
 * loop nest (the same loops, tiles and blocks), written where c would be;
 * after the sequential loop, per tile of their blocks, each finished tile
 * is moved to where its readers take it, then c's fused producers and c
 * are computed from them at that tile (their tile sizes set to the
 * reductions', as for a tail tile) and c's result stored.  A producer of c
 * in c's loop nest that reads no reduction and is smaller than them (the
 * row scale of RMSNorm) gets its own loop nest instead, and the epilogue
 * loads it; a larger one keeps c out of the epilogue.  An epilogue adds
 * NEST_EPILOGUE to the count of fusions: a structure of its own.
 */
#include <string.h>
#include "emit.h"

enum { MAXRED = 8 };

static int
root_of(const Em *e, int r)
{
	while (e->into[r] >= 0)
		r = e->into[r];
	return r;
}

/* The elements of node id's result (-1: its shape cannot be evaluated). */
static int64_t
numel(Em *e, int id)
{
	AxShape s;
	return graph_shape(e->g, id, &e->env, &s) != 0 ? -1 : ax_numel(&s);
}

/* The operand of c that reads p, or -1. */
static int
operand_of(const Em *e, int p, int c)
{
	const AxNode *cn = &e->g->nodes[c];
	for (int o = 0; o < cn->nin; o++)
		if (cn->in[o] == p)
			return o;
	return -1;
}

/* The axis of p that axis kc of c reads (c reads p as operand o), or -1. */
static int
epi_axis(Em *e, int p, int c, int o, int kc)
{
	const TileOp *tp = &e->T->op[p], *tq = &e->T->op[c];
	for (int kp = 0; kp < tp->naxes; kp++) {
		int j = tp->ax[kp].out;
		if (j >= 0 && j < AX_MAXR && tq->read[o][j].kind == 1 && tq->read[o][j].axis == kc)
			return kp;
	}
	return -1;
}

/* The first reader of x that is c or computed in c's loop nest (-1: none). */
static int
next_reader(const Em *e, int x, int c)
{
	const AxGraph *g = e->g;
	for (int r = x + 1; r <= c; r++)
		for (int o = 0; o < g->nodes[r].nin; o++)
			if (g->nodes[r].in[o] == x && (r == c || (e->into[r] >= 0 && root_of(e, r) == c)))
				return r;
	return -1;
}

/* The axis of p that axis kc of c reads, through the readers between them in
 * c's loop nest (-1: none). */
static int
map_axis(Em *e, int p, int c, int kc)
{
	if (p == c || kc < 0)
		return kc;
	int r = next_reader(e, p, c);
	return r < 0 ? -1 : epi_axis(e, p, r, operand_of(e, p, r), map_axis(e, r, c, kc));
}

/* A reduction across tiles that may end in an epilogue: a sum or other
 * reduction (not a scan) over a sequential loop of more than one tile, not
 * a kernel output, not computed in another loop nest. */
static int
reduction(Em *e, int p)
{
	const AxGraph *g = e->g;
	const TileOp *tp = &e->T->op[p];
	int pseq = em_seq_axis(tp);
	if (tp->kind != TO_COMPUTE || !e->L[p].nchoices || pseq < 0 || !em_iterated(e, tp, pseq) ||
	    tp->ax[pseq].red == TR_SCAN || e->into[p] >= 0)
		return 0;
	for (int k = 0; k < g->noutputs; k++)
		if (g->outputs[k] == p)
			return 0;
	return 1;
}

/* Does c read p (directly, or through readers in c's loop nest) at p's
 * tile: each of c's axes one of p's result axes, of the same extent, cut the
 * same way or with a tile parameter of its own (set to p's in the
 * epilogue)?  Every result axis is read along the way. */
static int
reads_at_tile(Em *e, int p, int c)
{
	const AxGraph *g = e->g;
	const TileOp *tp = &e->T->op[p], *tq = &e->T->op[c];
	for (int x = p, y; x != c; x = y) {
		y = next_reader(e, x, c);
		int o = y < 0 ? -1 : operand_of(e, x, y);
		if (o < 0)
			return 0;
		for (int j = 0; j < g->nodes[x].rank; j++)
			if (e->T->op[y].read[o][j].kind != 1)
				return 0;
	}
	for (int kc = 0; kc < tq->naxes; kc++) {
		int kp = map_axis(e, p, c, kc), it = em_iterated(e, tq, kc);
		if (kp < 0) {
			if (it)
				return 0;
			continue;
		}
		const TileAxis *a = &tp->ax[kp], *b = &tq->ax[kc];
		if (em_int(e, a->extent) != em_int(e, b->extent) || a->tiled != b->tiled || a->unit != b->unit ||
		    !a->t != !b->t || (!a->t && it != em_iterated(e, tp, kp)))
			return 0;
		for (int k2 = 0; b->t && k2 < tq->naxes; k2++)   /* its tile size set to p's: a parameter of its own */
			if (k2 != kc && tq->ax[k2].t && strcmp(tq->ax[k2].t, b->t) == 0)
				return 0;
	}
	return 1;
}

/* The reductions c can take as its epilogue (into red[], their count; 0: none). */
static int
plan_one(Em *e, int c, int *red, int *unfuse, int *nun)
{
	const AxGraph *g = e->g;
	const TileOp *tq = &e->T->op[c];
	int cseq = em_seq_axis(tq), n = 0, p0 = -1;
	*nun = 0;
	if (tq->kind != TO_COMPUTE || !e->L[c].nchoices || e->into[c] >= 0 || e->L[c].choice[e->choice[c]].tile ||
	    (cseq >= 0 && em_iterated(e, tq, cseq)) || tq->gather)
		return 0;
	for (int p = 0; p < c && n < MAXRED; p++) {
		if (!reduction(e, p))
			continue;
		int nr = 0, ok = 1;
		for (int r = p + 1; r < g->nnodes && ok; r++)
			for (int o = 0; o < g->nodes[r].nin; o++)
				if (g->nodes[r].in[o] == p) {
					nr++;
					ok &= r == c || (e->into[r] >= 0 && root_of(e, r) == c && !e->T->op[r].gather);
				}
		if (!ok || !nr || (nr > 1 && !e->shared) || (n && !em_same_loops(e, red[0], p)))
			continue;
		red[n++] = p;
	}
	p0 = n ? red[0] : -1;
	if (!n || !reads_at_tile(e, p0, c))
		return 0;
	/* the operations in c's loop nest: each reads a reduction (through others), or is a
	 * smaller producer of c itself, which gets a loop nest of its own */
	char rd[g->nnodes + 1];
	for (int q = 0; q <= g->nnodes; q++)
		rd[q] = 0;
	for (int k = 0; k < n; k++)
		rd[red[k]] = 1;
	int64_t np = numel(e, p0);
	for (int q = 0; q < c; q++) {
		if (rd[q] || e->into[q] < 0 || root_of(e, q) != c)
			continue;
		for (int o = 0; o < g->nodes[q].nin; o++)
			if (g->nodes[q].in[o] >= 0 && rd[g->nodes[q].in[o]])
				rd[q] = 2;
		if (rd[q] || e->into[q] != c)
			continue;   /* (one deeper in c's loop nest: below, with the producer it feeds) */
		if ((e->shared && e->shared[q]) || numel(e, q) < 0 || numel(e, q) >= np || *nun == 64)
			return 0;
		unfuse[(*nun)++] = q;
	}
	/* c's tiles set to p0's shrink its producers' too: neither c nor one of them may reduce
	 * along an axis (a row sum over a 512-column tile of the product would be a partial one) */
	int reduces = 0;
	for (int k = 0; k < tq->naxes; k++)
		reduces |= tq->ax[k].red != 0;
	for (int q = 0; q < c; q++)
		for (int k = 0; rd[q] == 2 && k < e->T->op[q].naxes; k++)
			reduces |= e->T->op[q].ax[k].red != 0;
	for (int kc = 0; reduces && kc < tq->naxes; kc++) {
		int kp = map_axis(e, p0, c, kc);
		const TileAxis *a = kp >= 0 ? &e->T->op[p0].ax[kp] : NULL, *b = &tq->ax[kc];
		if (a && a->t && b->t && em_int(e, t_var(g->tc, a->t, TS_INT)) != em_int(e, t_var(g->tc, b->t, TS_INT)))
			return 0;
	}
	/* an unfused producer's own fused producers stay with it; no other node of c's nest may need it */
	for (int q = 0; q < c; q++)
		if (!rd[q] && e->into[q] >= 0 && root_of(e, q) == c) {
			int mine = 0;
			for (int k = 0; k < *nun; k++)
				mine |= q == unfuse[k];
			for (int r = q; !mine && e->into[r] >= 0; r = e->into[r])
				for (int k = 0; k < *nun; k++)
					mine |= e->into[r] == unfuse[k];
			if (!mine)
				return 0;
		}
	return n;
}

void
em_plan_epilogues(Em *e, int *nfused)
{
	const AxGraph *g = e->g;
	for (int p = 0; p < g->nnodes; p++)
		e->epi[p] = -1;
	for (int c = g->nnodes - 1; c >= 0; c--) {
		int red[MAXRED], unfuse[64], nun = 0;
		int n = plan_one(e, c, red, unfuse, &nun);
		if (!n)
			continue;
		for (int k = 0; k < nun; k++)
			e->into[unfuse[k]] = -1;   /* a loop nest of its own, read from off chip */
		for (int k = 0; k < n; k++) {
			int p = red[k], nr = 0, rd = -1;
			for (int r = p + 1; r < g->nnodes; r++)
				for (int o = 0; o < g->nodes[r].nin; o++)
					if (g->nodes[r].in[o] == p)
						nr++, rd = r;
			/* its finished tile is on chip where its reader in c's loop nest takes it (several
			 * readers: shared, as a producer made once per iteration of c's loop nest) */
			e->epi[p] = c;
			e->into[p] = nr > 1 ? c : rd;
			if (nr > 1)
				e->shared[p] = 1;
		}
		*nfused += NEST_EPILOGUE;
	}
}

int
em_epilogue_of(const Em *e, int c, int *ids)
{
	int n = 0;
	for (int p = 0; e->epi && p < e->g->nnodes && n < MAXRED; p++)
		if (e->epi[p] == c)
			ids[n++] = p;
	return n;
}

/* The finished tile w of operation id (in memory `from`, -1: where its
 * sequence left it) at indices idx: stored, or, with an epilogue, moved to
 * where its readers take it and left on chip for them. */
void
em_finish(Em *e, int id, const NsDim *idx, NsRef *w, int from)
{
	if (e->epi && e->epi[id] >= 0) {
		em_store_from(e, id, w, NULL, from);
		e->onchip[id] = *w;
		return;
	}
	NsRef dst;
	em_result(e, id, idx, &dst);
	em_store_from(e, id, w, &dst, from);
}

/* The epilogue of reduction id (and of the others of its loop nest) at its
 * tile idx, their finished tiles on chip: c's producers in its loop nest and
 * c computed there and c's result stored.  The loops over the block's tiles,
 * opened from statement loops_at on, are marked so that c's loads are made
 * per block (prefetch.c). */
void
em_epilogue(Em *e, int id, const NsDim *idx, int loops_at)
{
	int c = e->epi ? e->epi[id] : -1;
	if (c < 0 || e->bad)
		return;
	int ids[MAXRED];
	em_epilogue_of(e, c, ids);   /* the first of them: the axes of all (one loop nest) */
	int p0 = ids[0];
	const TileOp *tq = &e->T->op[c], *tp = &e->T->op[p0];
	for (int i = loops_at; i < e->ns->n; i++)
		e->ns->s[i].fetch = e->ns->s[i].kind == NS_LOOP;
	NsDim cidx[AX_MAXR + 4] = { 0 };
	Tail tl = { 0 };
	for (int kc = 0; kc < tq->naxes; kc++) {
		int kp = map_axis(e, p0, c, kc);
		const TileAxis *ax = &tq->ax[kc];
		if (kp >= 0) {
			cidx[kc] = idx[kp];
			if (ax->tiled && ax->t)   /* c's tile (and its producers') along it: p's */
				em_tile_set(e, c, kc, em_int(e, t_var(e->g->tc, ax->t, TS_INT)),
				            em_int(e, t_var(e->g->tc, tp->ax[kp].t, TS_INT)), &tl);
		} else if (!ax->tiled)
			em_dim(&cidx[kc], 0, "0");
		else
			em_dim(&cidx[kc], ax->unit ? 1 : em_int(e, ax->extent), "0");
	}
	int save = e->node, hoist = e->hoist;
	em_note(e, c, 0, "%s, on each finished tile", node_op(e->g, &e->g->nodes[c])->name);
	e->node = c;
	e->hoist = -1;
	em_producers(e, c, cidx);
	e->node = c;
	NsRef v, dst;
	em_tile_body(e, c, cidx, &v);
	if (!e->bad) {
		em_result(e, c, cidx, &dst);
		em_store(e, c, &v, &dst);
	}
	e->node = save;
	e->hoist = hoist;
	for (int i = tl.n - 1; i >= 0; i--)
		e->tv[tl.at[i]] = tl.old[i];
}
