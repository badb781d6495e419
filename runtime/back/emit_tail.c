/*
 * emit_tail.c — tail tiles: an axis that is not a multiple of its tile size
 * gets its last, smaller tile written with that axis's tile parameters set
 * to what is left (em_tail_set, undone by em_tail_undo), through the read
 * maps for the producers fused into the loop nest (em_tile_set, which an
 * epilogue also uses to give its reader the reduction's tile); the tail
 * tiles written inside the last block of a reduction's loop nest are its
 * variants (em_variants, em_var_set, em_var_undo).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

void
em_tile_set(Em *e, int id, int k, int64_t T, int64_t rem, Tail *tl)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	if (to->ax[k].t)
		for (int i = 0; i < e->env.n && tl->n < 64; i++)
			if (strcmp(e->env.names[i], to->ax[k].t) == 0 && e->tv[i] == (double)T) {
				tl->at[tl->n] = i;
				tl->old[tl->n++] = e->tv[i];
				e->tv[i] = (double)rem;
			}
	const AxNode *nd = &g->nodes[id];
	for (int o = 0; e->into && o < nd->nin; o++) {
		int src[AX_MAXOPND], ns = em_srcs(e, id, o, src);   /* through a split concatenation: its parts */
		for (int s = 0; s < ns; s++) {
			int p = src[s];
			if (!em_fused_into(e, p, id) || (e->epi && e->epi[p] >= 0))
				continue;   /* (an epilogue's reduction: its tile is made before it, at its own size) */
			const TileOp *tp = &e->T->op[p];
			for (int kp = 0; kp < tp->naxes; kp++) {
				int j = tp->ax[kp].out;
				if (j >= 0 && j < AX_MAXR && to->read[o][j].kind == 1 && to->read[o][j].axis == k)
					em_tile_set(e, p, kp, T, rem, tl);
			}
		}
	}
}

void
em_tail_set(Em *e, Group *gr, int k, int64_t rem, Tail *tl)
{
	tl->n = 0;
	for (int m = 0; m < gr->n; m++)
		em_tile_set(e, gr->ids[m], k, gr->tsz[k], rem, tl);
	for (int m = 0; m < gr->n; m++) {
		OpSt *st = &gr->st[m];
		tl->blk[m] = st->blk[k];
		tl->blocked[m] = st->blocked;
		st->blk[k] = 1;
		st->blocked = 0;
		for (int a = 0; a < AX_MAXR + 4; a++)
			st->blocked |= st->blk[a] > 1;
	}
}

void
em_tail_undo(Em *e, Group *gr, int k, const Tail *tl)
{
	for (int i = tl->n - 1; i >= 0; i--)
		e->tv[tl->at[i]] = tl->old[i];
	for (int m = 0; m < gr->n; m++) {
		gr->st[m].blk[k] = tl->blk[m];
		gr->st[m].blocked = tl->blocked[m];
	}
}

/* Variant v: the axes of the bits of v at their tail tile (emit.h, Var). */
Var *
em_variants(Group *gr, int *count)
{
	int nv = 0;
	Var *vs = malloc(sizeof *vs << __builtin_popcount(gr->mtail));   /* only what is written below is read */
	if (!vs)
		ax_die("out of memory");
	uint32_t v = 0;
	do {   /* the subsets of mtail in increasing order (at most two axes, emit_kernel.c: four) */
		Var *x = &vs[nv++];
		x->axes = v;
		x->gr = *gr;
		x->gr.st = v ? x->st : gr->st;
		for (int m = 0; m < gr->n && v; m++) {
			x->st[m] = gr->st[m];
			x->st[m].blocked = 0;
			for (int k = 0; k < AX_MAXR + 4; k++) {
				if (v & (1u << k))
					x->st[m].blk[k] = 1;
				x->st[m].blocked |= x->st[m].blk[k] > 1;
			}
		}
		v = (v - gr->mtail) & gr->mtail;
	} while (v);
	*count = nv;
	return vs;
}

void
em_var_set(Em *e, Var *x, NsDim *idx)
{
	x->tl.n = 0;
	for (int k = 0; k < AX_MAXR + 4; k++)
		if (x->axes & (1u << k)) {
			for (int m = 0; m < x->gr.n; m++)
				em_tile_set(e, x->gr.ids[m], k, x->gr.tsz[k], x->gr.mrem[k], &x->tl);
			x->save[k] = idx[k];
			em_dim(&idx[k], x->gr.mrem[k], "%lld", (long long)x->gr.mat[k]);
		}
}

void
em_var_undo(Em *e, Var *x, NsDim *idx)
{
	for (int i = x->tl.n - 1; i >= 0; i--)
		e->tv[x->tl.at[i]] = x->tl.old[i];
	for (int k = 0; k < AX_MAXR + 4; k++)
		if (x->axes & (1u << k))
			idx[k] = x->save[k];
}
