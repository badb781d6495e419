/*
 * emit_kblock.c — K blocks: a sum across tiles (the K loop of a matrix
 * product) written a block of K tiles at a time, each block's sum
 * accumulated in place and then moved into, or combined with, a running
 * value per tile in the memory the result goes to next (docs/design.md,
 * K blocks).  emit_axes.c decides where they apply (em_op_axes,
 * em_kblock_move); emit_kernel.c calls em_group_kblocks for the innermost
 * part of such a loop nest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* the sequential loop's variable: "r", unless the program names a parameter or size so */
void
em_seq_var(const AxGraph *g, char *rv, size_t n)
{
	snprintf(rv, n, "r");
	for (int k = 0, clash = 1; clash && k < 100; k++) {
		if (k)
			snprintf(rv, n, "r_%d", k);
		clash = 0;
		for (int i = 0; i < g->nparams; i++)
			clash |= strcmp(g->params[i].name, rv) == 0;
		for (int i = 0; i < g->nsyms; i++)
			clash |= strcmp(g->syms[i], rv) == 0;
	}
}

/* The running value *acct combined with a block's sum *v by the combining
 * sequence (one instruction, on engine eng), written into *acct. */
static void
combine_into(Em *e, const LowerNode *ln, int eng, int accmem, const NsRef *acct, const NsRef *v)
{
	const SynthSeq *q = &ln->combine[0];
	const NsRef *opnd[AX_MAXOPND] = { 0 };
	NsRef r;
	for (int o = 0; o < e->g->t->insts[q->inst[0]].nopnd; o++)
		if (q->src[0][o] != SYNTH_OMITTED)
			opnd[o] = q->src[0][o] == -1 ? acct : v;
	em_inst(e, q->inst[0], eng, q->attr[0], q->sattr[0], opnd, NULL, accmem, &r);
	if (e->bad)
		return;
	NsStmt *last = &e->ns->s[e->ns->n - 1];
	last->out = *acct;
	last->mem = -1;
}

/* A sum across tiles in K blocks (kblock_move), for each operation of the
 * loop nest (one, or independent ones with the same loops: QKV's products,
 * the two products of a gated MLP): per block of K tiles, their loads (and
 * the steps hoisted with them), then per tile of the blocks along the other
 * axes the block's first K tile, the others accumulated in place, and the
 * block's sum moved into (the first block) or combined with (the others)
 * the running value of that tile, in a buffer of the tiles of those blocks;
 * then the results (and their epilogue).  Each variant (the block's full
 * tiles, then the tail tiles written inside it) at each step. */
void
em_group_kblocks(Em *e, Group *gr)
{
	int seqax = gr->seqax, n = gr->n, save = e->depth;
	const TileOp *to = &e->T->op[gr->ids[0]];
	NsDim *idx = gr->idx;
	int64_t T = gr->tsz[seqax], kb = gr->st[0].blk[seqax], nkb = gr->ext[seqax] / T / kb, rem = gr->ext[seqax] % T;
	int eng[8], accmem[8], mv[8], accat[4][8], accbuf[4][8];
	AxShape tshape[4][8] = { 0 };
	uint32_t par[4] = { 0 };
	int nv;
	Var *vs = em_variants(gr, &nv);
	for (int v = 0; v < nv; v++)
		for (int k = 0; k < to->naxes; k++)
			if (vs[v].gr.st[0].blk[k] > 1 && k != seqax)
				par[v] |= 1u << k;
	for (int m = 0; m < n; m++) {
		mv[m] = em_kblock_move(e, gr->ids[m], &eng[m]);
		accmem[m] = e->L[gr->ids[m]].choice[e->choice[gr->ids[m]]].move[mv[m]].to;
	}
	for (int v = 0; v < nv; v++)
		for (int m = 0; m < n; m++) {
			accat[v][m] = e->ns->n;
			em_push(e, NS_BUF);
			accbuf[v][m] = e->ns->nvars++;
		}
	char rv[16], rb[32];
	em_seq_var(e->g, rv, sizeof rv);
	for (int part = 0; part < 2 && !e->bad; part++) {
		if (part && nkb < 2)
			break;
		if (part) {
			em_loop(e, 1, rv, nkb - 1);
			snprintf(rb, sizeof rb, "(%s + 1) * %lld", rv, (long long)(kb * T));
		} else
			snprintf(rb, sizeof rb, "0");
		int d0 = e->depth;
		snprintf(e->bstart[seqax], sizeof e->bstart[seqax], "%s", rb);
		for (int vi = 0; vi < nv && !e->bad; vi++) {
			Var *x = &vs[vi];
			em_var_set(e, x, idx);
			/* the block's loads: its K tiles in the loops over j<K> */
			for (int m = 0; m < n && !e->bad; m++) {
				e->cur = &x->gr.st[m];
				e->node = gr->ids[m];
				if (part)
					em_dim(&idx[seqax], T, "%s + j%d * %lld", rb, seqax, (long long)T);
				else
					em_dim(&idx[seqax], T, "j%d * %lld", seqax, (long long)T);
				em_block_loads(e, gr->ids[m], idx);
			}
			for (int m = 0; m < n && !e->bad; m++) {
				int id = gr->ids[m];
				OpSt *st = &x->gr.st[m];
				const LowerNode *ln = &e->L[id];
				const LowerChoice *ch = &ln->choice[e->choice[id]];
				e->cur = st;
				e->node = id;
				e->hoist = id;
				em_inner_loops(e, to);
				int d1 = e->depth;
				snprintf(st->kj, sizeof st->kj, "0");
				em_dim(&idx[seqax], T, "%s", rb);
				NsRef v, w, r;
				em_producers(e, id, idx);   /* what its instructions compute: their indices */
				em_tile_body(e, id, idx, &v);
				if (e->bad)
					break;
				if (kb > 1) {
					char jv[16];
					snprintf(jv, sizeof jv, "j%d", seqax);
					if (kb > 2) {
						em_loop(e, 1, jv, kb - 1);
						snprintf(st->kj, sizeof st->kj, "%s + 1", jv);
						if (part)
							em_dim(&idx[seqax], T, "%s + (%s + 1) * %lld", rb, jv, (long long)T);
						else
							em_dim(&idx[seqax], T, "(%s + 1) * %lld", jv, (long long)T);
					} else {   /* one tile after the first: no loop */
						snprintf(st->kj, sizeof st->kj, "1");
						if (part)
							em_dim(&idx[seqax], T, "%s + %lld", rb, (long long)T);
						else
							em_dim(&idx[seqax], T, "%lld", (long long)T);
					}
					em_producers(e, id, idx);
					em_tile_body(e, id, idx, &w);
					NsStmt *a = em_push(e, NS_ACC);
					a->node = id;
					a->out = v;
					a->src = w;
					em_close_to(e, d1);
				}
				st->kj[0] = 0;
				/* the block's sum into the running value of this tile */
				tshape[vi][m] = v.shape;
				NsRef acct = em_block_tile(e, accbuf[vi][m], par[vi], -1, &tshape[vi][m]);
				int zattr[AX_MAXATTR] = { 0 };
				Term *zsattr[AX_MAXATTR] = { 0 };
				if (!part) {
					const LowerMove *mvp = &ch->move[mv[m]];
					const NsRef *mo[AX_MAXOPND] = { &v };
					em_inst(e, mvp->inst, ax_nth_bit(mvp->engines, 0), zattr, zsattr, mo, NULL, accmem[m], &r);
					NsStmt *last = &e->ns->s[e->ns->n - 1];
					last->out = acct;
					last->mem = -1;
				} else
					combine_into(e, ln, eng[m], accmem[m], &acct, &v);
				e->hoist = -1;
				em_close_to(e, d0);
			}
			em_var_undo(e, x, idx);
		}
		em_close_to(e, save);
	}
	for (int vi = 0; vi < nv && rem && !e->bad; vi++) {   /* the tail tile along K, after the blocks: added to the running values */
		Var *x = &vs[vi];
		Tail tl;
		em_var_set(e, x, idx);
		em_tail_set(e, &x->gr, seqax, rem, &tl);
		em_dim(&idx[seqax], rem, "%lld", (long long)(gr->ext[seqax] - rem));
		for (int m = 0; m < n && !e->bad; m++) {
			e->cur = &x->gr.st[m];
			e->node = gr->ids[m];
			em_block_loads(e, gr->ids[m], idx);
		}
		for (int m = 0; m < n && !e->bad; m++) {
			int id = gr->ids[m];
			e->cur = &x->gr.st[m];
			e->node = id;
			e->hoist = id;
			em_inner_loops(e, to);
			NsRef v;
			em_producers(e, id, idx);   /* what its instructions compute: their indices */
			em_tile_body(e, id, idx, &v);
			NsRef acct = em_block_tile(e, accbuf[vi][m], par[vi], -1, &tshape[vi][m]);
			if (!e->bad)
				combine_into(e, &e->L[id], eng[m], accmem[m], &acct, &v);
			e->hoist = -1;
			em_close_to(e, save);
		}
		em_tail_undo(e, &x->gr, seqax, &tl);
		em_var_undo(e, x, idx);
	}
	for (int vi = 0; vi < nv; vi++)
		for (int m = 0; m < n; m++) {
			NsStmt *bf = &e->ns->s[accat[vi][m]];
			bf->var = accbuf[vi][m];
			bf->node = gr->ids[m];
			bf->mem = accmem[m];
			e->cur = &vs[vi].gr.st[m];
			bf->shape = em_block_shape(e, par[vi], &tshape[vi][m]);
		}
	if (e->bad) {
		free(vs);
		return;
	}
	/* the results: one loop over the block's tiles when an epilogue takes them all */
	int epi = e->epi && e->epi[gr->ids[0]] >= 0;
	for (int vi = 0; vi < nv && !e->bad; vi++) {
		Var *x = &vs[vi];
		int loops_at = e->ns->n;
		em_var_set(e, x, idx);
		for (int m = 0; m < n && !e->bad; m++) {
			e->cur = &x->gr.st[m];
			e->node = gr->ids[m];
			if (!epi || !m) {
				loops_at = e->ns->n;
				em_inner_loops(e, to);
			}
			NsRef acc = em_block_tile(e, accbuf[vi][m], par[vi], -1, &tshape[vi][m]);
			em_finish(e, gr->ids[m], idx, &acc, accmem[m]);
			if (!epi)
				em_close_to(e, save);
		}
		if (epi && !e->bad)
			em_epilogue(e, gr->ids[0], idx, loops_at);
		em_close_to(e, save);
		em_var_undo(e, x, idx);
	}
	free(vs);
}
