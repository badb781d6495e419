/*
 * emit_kernel.c — one candidate as loop nests (paper section 4.6), written
 * into the statements of nest.h; kernel_print.c prints them through the
 * target's templates, emit_c.c as C.
 *
 * A candidate is a variant, one lowered sequence per tile operation, an
 * engine per instruction, loop fusion or not, and a concrete size for every
 * tile parameter.  Each operation becomes its own loop nest (parallel loops
 * over its loop axes and tiles, a sequential loop over the tiles of a
 * reduction or a scan, the first tile peeled so that the partial results
 * combine through the synthesized combining sequence, or accumulate in
 * place when they are sums and the target has an `accumulate` template),
 * its operands read from off-chip tensors and its result written back: the
 * unfused form.  Views are layout ops over the off-chip tensors.  An axis
 * that is not a multiple of its tile size gets its full tiles in the loop,
 * then the rest of the loop nest written again for the smaller tail tile
 * (static shapes everywhere, no masks); inside loops over heads, with loop
 * fusion, in a loop nest of its own after the full tiles' (defer_axis).
 * Loop fusion: a producer whose only reader has the same loops and tiles
 * (and neither reduces across tiles) is computed inside the reader's loop
 * nest, its tile passed on chip instead of through an off-chip tensor;
 * when the reader's choice includes the producer's computation (an
 * instruction fusion across the two), the producer's operands are read
 * there and the reader's fused instructions compute both (emit_tile.c).
 */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* The memory on-chip value var is in (a buffer's, or the instruction's that made it); -1 if none. */
static int
var_mem(const Nest *ns, int var)
{
	for (int i = ns->n - 1; i >= 0 && var >= 0; i--) {
		const NsStmt *s = &ns->s[i];
		if (s->var == var && (s->kind == NS_BUF || (s->kind == NS_INST && s->out.var == NS_NONE)))
			return s->mem;
	}
	return -1;
}

/* *v (in on-chip memory mem) copied into *dst by the target's cheapest copy that stays in mem (a
 * tile written into a block buffer needs an instruction: NKI has no tile assignment); 0, or -1
 * if the target has none. */
static int
copy_into(Em *e, const NsRef *v, int mem, const NsRef *dst)
{
	const AxTarget *t = e->g->t;
	int *copy = calloc((size_t)t->ninsts + 1, sizeof *copy), eng = 0;
	if (!copy)
		ax_die("out of memory");
	for (int k = 0; k < t->ninsts; k++)
		copy[k] = lower_is_copy(t, e->g->tc, k);
	NsStmt probe = { .kind = NS_INST, .shape = v->shape, .mem = mem };
	probe.opnd[0] = *v;
	int inst = mem >= 0 ? nest_copy_choice(e->ns, &probe, mem, mem, copy, &eng) : -1;
	free(copy);
	if (inst < 0)
		return -1;
	const NsRef *mo[AX_MAXOPND] = { v };
	int zattr[AX_MAXATTR] = { 0 };
	Term *zsattr[AX_MAXATTR] = { 0 };
	NsRef res;
	em_inst(e, inst, eng, zattr, zsattr, mo, NULL, mem, &res);
	if (e->bad)
		return 0;
	NsStmt *last = &e->ns->s[e->ns->n - 1];
	last->out = *dst;
	last->mem = -1;
	return 0;
}

/* The first tile of a reduction or scan across tiles (part 0: st->acc gets
 * it), or a tile of it after (part 1; part 2: the last, a smaller tail tile,
 * after which a scan carries nothing); a plain tile written out. */
static void
op_tile(Em *e, OpSt *st, NsDim *idx, int seqax, int part)
{
	int id = st->id;
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	const LowerNode *ln = &e->L[id];
	const AxNode *nd = &g->nodes[id];
	int outer = e->depth;
	e->cur = st;
	e->node = id;
	if (st->blocked)
		em_block_loads(e, id, idx);
	e->hoist = st->blocked ? id : -1;
	int loops_at = e->ns->n;
	em_inner_loops(e, to);
	if (e->late) {   /* producers made per tile: their loads may be made per block (prefetch.c) */
		for (int i = loops_at; i < e->ns->n; i++)
			e->ns->s[i].fetch = e->ns->s[i].kind == NS_LOOP;
		em_producers(e, id, idx);
	}
	e->node = id;
	NsRef v, dst;
	em_tile_body(e, id, idx, &v);
	if (e->bad) {
		e->hoist = -1;
		return;
	}
	if (seqax < 0) {
		em_result(e, id, idx, &dst);
		em_store(e, id, &v, &dst);
		e->hoist = -1;
		em_close_to(e, outer);
		return;
	}
	int scan = to->ax[seqax].red == TR_SCAN;
	/* the tile's result dim along the scan axis (result tiled axes in order) */
	int qdim = 0;
	for (int k = 0; k < seqax; k++)
		qdim += k < nd->rank && to->ax[k].tiled;
	if (!part) {
		st->acc = v;
		if (st->blocked) {   /* the running value of this tile of the block, in the block's buffer */
			NsStmt *bf = &e->ns->s[st->accat];
			uint32_t allblk = 0;
			for (int k = 0; k < to->naxes; k++)
				if (st->blk[k] > 1)
					allblk |= 1u << k;
			bf->var = st->accbuf;
			bf->node = id;
			bf->shape = em_block_shape(e, allblk, &v.shape);
			/* the memory its tile was made in; with no instruction (a sum over one element: the
			 * operand itself), the operand's */
			int made = v.var >= 0 && e->ns->s[e->ns->n - 1].kind == NS_INST;
			bf->mem = made ? e->ns->s[e->ns->n - 1].mem : var_mem(e->ns, v.var);
			st->acc = em_block_tile(e, st->accbuf, allblk, -1, &v.shape);
			NsStmt *last = e->ns->n ? &e->ns->s[e->ns->n - 1] : NULL;
			if (last && last->kind == NS_INST && last->var == v.var && v.nidx == 0 && last->out.var == NS_NONE)
				last->out = st->acc;   /* the instruction writes the block's tile itself: no copy of a tile */
			else if (!made && v.var >= 0) {   /* a tile on chip as it is: copied into the block's */
				if (copy_into(e, &v, bf->mem, &st->acc) != 0) {
					em_fail(e, "%s: no copy instruction moves its tile into the block's buffer", node_op(g, nd)->name);
					return;
				}
			} else {
				NsStmt *set = em_push(e, NS_SET);
				set->node = id;
				set->out = st->acc;
				set->src = v;
			}
		}
		if (scan) {
			em_result(e, id, idx, &dst);
			NsRef w = st->acc;
			em_store(e, id, &w, &dst);
		}
	} else {
		if (!ln->ncombine) {
			em_fail(e, "%s: no combining sequence for its partial tiles", node_op(g, nd)->name);
			return;
		}
		NsRef cin[2];
		cin[0] = scan ? v : st->acc;
		cin[1] = scan ? st->acc : v;
		if (scan) {   /* the carry: the last column of the tile before */
			NsRef *c = &cin[1];
			int base = c->nidx ? c->nidx - st->acc.shape.rank : 0;
			if (!c->nidx) {
				c->nidx = st->acc.shape.rank;
				for (int d = 0; d < st->acc.shape.rank; d++)
					em_dim(&c->idx[d], st->acc.shape.d[d], "0");
			}
			em_dim(&c->idx[base + qdim], 1, "%lld", (long long)st->acc.shape.d[qdim] - 1);
			c->shape.d[qdim] = 1;
		}
		NsRef nacc;
		if (to->ax[seqax].red == TR_SUM && e->ns->accumulate) {
			/* a sum accumulates in place (PSUM accumulation of a matrix product's K loop) */
			NsStmt *a = em_push(e, NS_ACC);
			a->node = id;
			a->out = st->acc;
			a->src = v;
			nacc = st->acc;
		} else
			em_seq(e, &ln->combine[0], cin, &nacc);
		if (scan) {
			em_result(e, id, idx, &dst);
			NsRef w = nacc;
			em_store(e, id, &w, &dst);
		}
		if (nacc.var != st->acc.var && !(scan && part == 2)) {   /* the running value for the next tile */
			NsStmt *set = em_push(e, NS_SET);
			set->node = id;
			set->out = st->acc;
			set->src = nacc;
		}
	}
	e->hoist = -1;
	em_close_to(e, outer);
}

static int has_producers(Em *e, int id, int written);



/* The innermost part of a loop nest: the tile of each operation, or a
 * reduction or scan across tiles: its first tile peeled, the full tiles
 * after it in order, then the tail tile, and the results; each step for
 * the block's tiles, then for the tail tiles written inside the block (the
 * variants, Group.mtail). */
static void
group_body(Em *e, Group *gr)
{
	const AxGraph *g = e->g;
	int seqax = gr->seqax, n = gr->n, save = e->depth;
	const int *ids = gr->ids;
	OpSt *st = gr->st;
	NsDim *idx = gr->idx;
	if (seqax >= 0 && st[0].kax >= 0) {
		em_group_kblocks(e, gr);
		return;
	}
	if (seqax < 0) {
		for (int m = 0; m < n && !e->bad; m++)
			op_tile(e, &st[m], idx, -1, 0);
		return;
	}
	int64_t T = gr->tsz[seqax], ntile = gr->ext[seqax] / T, rem = gr->ext[seqax] % T;
	int nv;
	Var *vs = em_variants(gr, &nv);   /* the block's tiles, then the tail tiles inside it (emit_tail.c) */
	for (int v = 0; v < nv; v++)
		for (int m = 0; m < n; m++) {
			OpSt *s = &vs[v].gr.st[m];
			if (s->blocked) {
				s->accat = e->ns->n;
				em_push(e, NS_BUF);
				s->accbuf = e->ns->nvars++;
			}
		}
	for (int v = 0; v < nv && !e->bad; v++) {
		em_var_set(e, &vs[v], idx);
		em_dim(&idx[seqax], T, "0");
		for (int m = 0; m < n && !e->bad; m++)
			op_tile(e, &vs[v].gr.st[m], idx, seqax, 0);
		em_var_undo(e, &vs[v], idx);
	}
	if (ntile > 1) {
		char rv[16];
		em_seq_var(g, rv, sizeof rv);
		em_loop(e, 1, rv, ntile - 1);
		for (int v = 0; v < nv && !e->bad; v++) {
			em_var_set(e, &vs[v], idx);
			em_dim(&idx[seqax], T, "(%s + 1) * %lld", rv, (long long)T);
			for (int m = 0; m < n && !e->bad; m++)
				op_tile(e, &vs[v].gr.st[m], idx, seqax, 1);
			em_var_undo(e, &vs[v], idx);
		}
		em_close_to(e, e->depth - 1);
	}
	for (int v = 0; v < nv && rem && !e->bad; v++) {
		Tail tl;
		em_var_set(e, &vs[v], idx);
		em_tail_set(e, &vs[v].gr, seqax, rem, &tl);
		em_dim(&idx[seqax], rem, "%lld", (long long)(ntile * T));
		for (int m = 0; m < n && !e->bad; m++)
			op_tile(e, &vs[v].gr.st[m], idx, seqax, 2);
		em_tail_undo(e, &vs[v].gr, seqax, &tl);
		em_var_undo(e, &vs[v], idx);
	}
	int epi = e->epi && e->epi[ids[0]] >= 0;   /* one loop over the block's tiles for all, then the epilogue */
	for (int v = 0; v < nv && !e->bad && e->T->op[ids[0]].ax[seqax].red != TR_SCAN; v++) {   /* the results */
		OpSt *vst = vs[v].gr.st;
		int d0 = e->depth, loops_at = e->ns->n;
		em_var_set(e, &vs[v], idx);
		for (int m = 0; m < n && !e->bad; m++) {
			NsRef w = vst[m].acc;
			if (!epi || !m)
				d0 = e->depth, loops_at = e->ns->n;
			e->cur = &vst[m];
			e->node = ids[m];
			if (!epi || !m)
				em_inner_loops(e, &e->T->op[ids[m]]);
			em_finish(e, ids[m], idx, &w, -1);
			if (epi && m == n - 1)
				em_epilogue(e, ids[0], idx, loops_at);
			if (!epi || m == n - 1)
				em_close_to(e, d0);
		}
		em_var_undo(e, &vs[v], idx);
	}
	free(vs);
	em_close_to(e, save);
}

/* The loops of axis k and those inside it: over blocks of tiles, or over
 * tiles; an axis that is not a multiple of its tile gets its full tiles,
 * then the rest of the loop nest again for the tail tile. */
static void
group_axes(Em *e, Group *gr, int k)
{
	const TileOp *to = &e->T->op[gr->ids[0]];
	if (k == to->naxes || e->bad) {
		if (!e->bad)
			group_body(e, gr);
		return;
	}
	if (k == gr->catk) {   /* a concatenation split at its boundaries along it (emit_concat.c) */
		em_concat_axis(e, gr, k, group_axes);
		return;
	}
	const TileAxis *ax = &to->ax[k];
	NsDim *idx = gr->idx;
	int64_t ext = gr->ext[k], T = gr->tsz[k];
	int save = e->depth, blk = gr->st[0].blk[k];
	char var[16];
	if (!ax->tiled || ax->unit || !ax->t || k == gr->seqax) {
		if (!ax->tiled) {
			snprintf(var, sizeof var, "l%d", k);
			if (ext > 1)
				em_loop(e, 0, var, ext);
			em_dim(&idx[k], 0, "%s", ext > 1 ? var : "0");
		} else if (ax->unit)
			em_dim(&idx[k], 1, "0");
		else if (!ax->t)
			em_dim(&idx[k], ext, "0");
		if (k == gr->pre)
			em_producers(e, gr->ids[0], idx);   /* once per iteration of the loops they need */
		group_axes(e, gr, k + 1);
		em_close_to(e, save);
		return;
	}
	int64_t nfull = ext / T, rem = ext % T, nb = blk > 1 ? nfull / blk : nfull;
	/* the tail tile inside the last block's loop nest, where the loop nest reduces across tiles
	 * (not a scan): the loop runs over the blocks but the last, which is written after it with
	 * its tail tile (group_body, emit_kblock.c: the loads the block makes serve the tail, each K
	 * tile's); otherwise the rest of the loop nest again for the tail, below */
	int inner = rem && k != gr->defer && __builtin_popcount(gr->mtail) < 2 && k != gr->pre && gr->pre < k &&
	            gr->seqax >= 0 && to->ax[gr->seqax].red != TR_SCAN && nb >= 1 && (blk > 1 ? nfull % blk == 0 : 1);
	/* folded with a tail (emit_fold.c): the rows as groups of blk, blocks of T groups, then the
	 * groups left as one block of smaller tiles (rem counts groups there) */
	int ftail = rem && blk > 1 && !inner && em_fold_axis(e, gr, k);
	if (ftail) {
		nb = ext / blk / T;
		rem = ext / blk % T;
	} else if (rem && blk > 1 && nfull % blk) {
		em_fail(e, "%s: blocks that only a fold of its rows allows, and its rows do not fold",
		        node_op(e->g, &e->g->nodes[gr->ids[0]])->name);
		return;
	}
	e->fold[k] = 0;
	for (int part = 0; part < 1 + inner && !e->bad && !(k == gr->defer && gr->tailpass); part++) {
		int64_t nloop = part ? 1 : inner ? nb - 1 : nb, first = part ? nb - 1 : 0;
		if (!nloop && (inner || ftail))   /* one block: only the last; or only the folded tail */
			continue;
		/* with the tail inside the last block, where they open the loop nest, the loop over the
		 * blocks before it and the last block are each a loop even of one trip (the last's
		 * variable counts from first): the next operation's loop over all the blocks, its last
		 * iteration peeled (sink.c), then lines up with both, and forward.c can merge them */
		int once = inner && nloop == 1 && save == 0;
		char lv[48];
		snprintf(var, sizeof var, "%c%d", blk > 1 ? 'b' : 'i', k);
		snprintf(lv, sizeof lv, first ? "(%s + %lld)" : "%s", var, (long long)first);
		e->fold[k] = inner ? 0 : em_fold_axis(e, gr, k);   /* (none without blocks) */
		if (nloop > 1 || once) {
			em_loop(e, 0, var, nloop);
			e->ns->s[e->ns->n - 1].once = once;
			if (blk < 2 || e->fold[k])   /* folded: the block's groups var * T.., row j<k> of each */
				em_dim(&idx[k], T, "%s * %lld", lv, (long long)T);
			else
				em_dim(&idx[k], T, "(%s * %d + j%d) * %lld", lv, blk, k, (long long)T);
			if (blk > 1)
				snprintf(e->bstart[k], sizeof e->bstart[k], "%s * %lld", lv, (long long)blk * T);
		} else if (blk < 2)
			em_dim(&idx[k], T, "%lld", (long long)(first * T));
		else {
			if (e->fold[k])
				em_dim(&idx[k], T, "0");
			else if (first)
				em_dim(&idx[k], T, "(%lld + j%d) * %lld", (long long)(first * blk), k, (long long)T);
			else
				em_dim(&idx[k], T, "j%d * %lld", k, (long long)T);
			snprintf(e->bstart[k], sizeof e->bstart[k], "%lld", (long long)(first * blk * T));
		}
		if (e->fold[k]) {
			e->folded = 1;
			idx[k].fold = blk;
			snprintf(idx[k].fin, sizeof idx[k].fin, "j%d", k);
		}
		if (k == gr->pre)
			em_producers(e, gr->ids[0], idx);
		if (part) {
			gr->mtail |= 1u << k;
			gr->mrem[k] = rem;
			gr->mat[k] = nfull * T;
		}
		group_axes(e, gr, k + 1);
		em_close_to(e, save);
		e->fold[k] = 0;
		gr->mtail &= ~(1u << k);
	}
	if (rem && !e->bad && !inner && !(k == gr->defer && !gr->tailpass)) {
		Tail tl;
		em_tail_set(e, gr, k, rem, &tl);
		if (ftail) {   /* the last groups: a block of blk tiles of rem rows, folded */
			for (int m = 0; m < gr->n; m++) {
				gr->st[m].blk[k] = tl.blk[m];
				gr->st[m].blocked = tl.blocked[m];
			}
			em_dim(&idx[k], rem, "%lld", (long long)(nb * T));
			e->fold[k] = e->folded = 1;
			idx[k].fold = blk;
			snprintf(idx[k].fin, sizeof idx[k].fin, "j%d", k);
			snprintf(e->bstart[k], sizeof e->bstart[k], "%lld", (long long)(nb * blk * T));
		} else
			em_dim(&idx[k], rem, "%lld", (long long)(nfull * T));
		if (k == gr->pre)
			em_producers(e, gr->ids[0], idx);
		group_axes(e, gr, k + 1);
		em_close_to(e, save);
		e->fold[k] = 0;
		em_tail_undo(e, gr, k, &tl);
	}
}

/* The axis whose tail tile gets a loop nest of its own (Group.defer): the first tiled axis with a
 * tail that is inside a loop of an untiled axis (heads, batches), so that the loop nest over its
 * full tiles is the same as the next operation's, and the nests can be merged (forward.c, after
 * sink.c has moved each tail's nest after the next operation's full one); -1 if none. */
static int
defer_axis(Em *e, const Group *gr)
{
	const TileOp *to = &e->T->op[gr->ids[0]];
	int outer = 0;
	for (int k = 0; e->into && k < to->naxes; k++) {   /* (loop fusion: no merge without it) */
		const TileAxis *ax = &to->ax[k];
		if (!ax->tiled) {
			outer |= gr->ext[k] > 1;
			continue;
		}
		if (ax->unit || !ax->t || k == gr->seqax)
			continue;
		if (k == gr->catk || gr->tsz[k] < 1 || gr->ext[k] % gr->tsz[k] == 0)
			return -1;
		return outer && k > gr->pre ? k : -1;
	}
	return -1;
}

/* One loop nest for the operations ids[0..n) (one, or independent ones
 * with the same loops: loop fusion of independent subgraphs, so that their
 * engines work side by side and their common loads are made once): the
 * loops over blocks of tiles, then per operation the block's loads, the
 * loops over the tiles of the block and the tile; a reduction or scan
 * across tiles peels its first tile and runs the others in order. */
static void
emit_group(Em *e, const int *ids, int n)
{
	const AxGraph *g = e->g;
	int id = ids[0];
	const TileOp *to = &e->T->op[id];
	int save = e->depth;
	int64_t ext[AX_MAXR + 4], tsz[AX_MAXR + 4];
	OpSt st[8];
	Group gr = { .ids = ids, .n = n, .st = st, .ext = ext, .tsz = tsz, .seqax = -1, .defer = -1 };
	for (int m = 0; m < n; m++) {
		gr.seqax = em_op_axes(e, ids[m], &st[m], ext, tsz);
		em_note(e, ids[m], m == 0, m ? "%s, in the same loop nest" : "%s", node_op(g, &g->nodes[ids[m]])->name);
	}
	gr.catk = em_concat_group(e, &gr);
	for (int m = 0; m < n && gr.catk >= 0; m++) {   /* no blocks along a split axis */
		st[m].blk[gr.catk] = 1;
		st[m].blocked = 0;
		for (int k = 0; k < AX_MAXR + 4; k++)
			st[m].blocked |= st[m].blk[k] > 1;
	}
	int prods = 0;
	for (int m = 0; m < n; m++)
		prods |= has_producers(e, ids[m], 1);
	if (gr.seqax >= 0 && st[0].kax >= 0 && prods)
		for (int m = 0; m < n; m++) {   /* K blocks for operations with no producers in their loop nest
		                                   but those their instructions compute (their loads are block loads) */
			st[m].blk[gr.seqax] = 1;
			st[m].kax = -1;
			st[m].blocked = 0;
			for (int k = 0; k < AX_MAXR + 4; k++)
				st[m].blocked |= st[m].blk[k] > 1;
		}
	e->cur = &st[0];
	e->node = id;
	int firstblk = to->naxes;
	for (int k = 0; k < to->naxes; k++)
		if (st[0].blk[k] > 1 && k < firstblk)
			firstblk = k;
	gr.pre = e->prefix ? e->prefix[id] : -1;
	e->late = 0;
	if (gr.pre >= firstblk) {   /* the producers need a blocked axis: made per tile */
		e->late = 1;
		gr.pre = -2;
	}
	if (gr.pre == -1)
		for (int m = 0; m < n; m++)
			em_producers(e, ids[m], gr.idx);   /* made once, before the loops */
	gr.defer = defer_axis(e, &gr);
	group_axes(e, &gr, 0);
	em_close_to(e, save);
	if (gr.defer >= 0 && !e->bad) {   /* the loops around the deferred axis again, for its tail */
		gr.tailpass = 1;
		group_axes(e, &gr, 0);
		em_close_to(e, save);
	}
	e->cat = -1;
}

/* ---- the candidate ------------------------------------------------------------------ */

/* Can node id be written (an untiled or unlowered operation cannot; why)? */
static int
writable(Em *e, int id)
{
	const char *why = lower_unwritable(e->T, e->L, id);
	if (why) {
		char msg[300];
		snprintf(msg, sizeof msg, "%s: %s", node_op(e->g, &e->g->nodes[id])->name, why);
		int was = e->node;
		e->node = id;   /* the error is at the op it names */
		em_fail(e, "%s", msg);
		e->node = was;
		return 0;
	}
	return 1;
}

/* Are producers computed inside node id's loop nest?  written: only those
 * written as statements (not a producer id's instructions compute, unless
 * it has producers of its own there). */
static int
has_producers(Em *e, int id, int written)
{
	const AxNode *nd = &e->g->nodes[id];
	const LowerChoice *ch = e->L[id].nchoices ? &e->L[id].choice[e->choice[id]] : NULL;
	for (int o = 0; e->into && o < nd->nin; o++) {
		int src[AX_MAXOPND], ns = em_srcs(e, id, o, src);   /* a split concatenation: its parts */
		for (int s = 0; s < ns; s++) {
			int p = src[s];
			if (!em_fused_into(e, p, id))
				continue;
			if (!written || !ch || !ch->tile || ch->absorb != p || has_producers(e, p, 0))
				return 1;
		}
	}
	return 0;
}

/* Shared producers (Em.shared): a producer with several readers, none of
 * them taking its computation into its own instructions, each of which
 * could run it in its loop nest (em_can_fuse but for the reader count),
 * all of them in one loop nest (their chains of into[] end at one
 * operation): made once per iteration of that nest, before its first
 * reader, its tile on chip for all (a softmax's exp, read by the row sum
 * and by the division).  Later producers first, so that a shared
 * producer's readers have their loop nests settled. */
static void
share_producers(Em *e, int *prefix, int *nfused)
{
	const AxGraph *g = e->g;
	e->anyreaders = 1;
	for (int p = g->nnodes - 1; p >= 0; p--) {
		if (e->into[p] >= 0 || e->T->op[p].kind != TO_COMPUTE || graph_readers(g, p) < 2)
			continue;
		int root = -1, ok = 1, kmx[8], rd[8], n = 0;
		for (int k = 0; k < g->noutputs; k++)
			ok &= g->outputs[k] != p;
		for (int c = p + 1; c < g->nnodes && ok; c++)
			for (int o = 0; o < g->nodes[c].nin && ok; o++) {
				if (g->nodes[c].in[o] != p)
					continue;
				const LowerChoice *ch = e->L[c].nchoices ? &e->L[c].choice[e->choice[c]] : NULL;
				int kmax, r = c;
				if (n == 8 || !ch || (ch->tile && ch->absorb == p) || !em_can_fuse(e, p, c, o, &kmax)) {
					ok = 0;
					break;
				}
				while (e->into[r] >= 0)
					r = e->into[r];
				ok = root < 0 || root == r;
				root = r;
				rd[n] = c, kmx[n++] = kmax;
			}
		if (!ok || root < 0)
			continue;
		e->into[p] = root;
		e->shared[p] = 1;
		for (int k = 0; k < n; k++)
			if (kmx[k] > prefix[rd[k]])
				prefix[rd[k]] = kmx[k];
		(*nfused)++;
	}
	e->anyreaders = 0;
}

static Nest *build(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const int *blocks,
                   const AxEnv *env, int fuse, int epi, int share, int cat, int nofold, int *folded, int *nfused,
                   int *clash, int *split, char *why, size_t nwhy, int *why_node);

/* With fusion, producers shared by several readers are tried first; a
 * candidate whose readers of a shared producer want different tiles of it
 * is written again without sharing; one that cannot be written with its
 * concatenations split (emit_concat.c), again with them made off chip.
 * With fold, blocks along a partition axis fold their rows (emit_fold.c):
 * no candidate if none does or a folded slice does not fit (the unfolded
 * form is a candidate of its own). */
Nest *
nest_build(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const int *blocks, int fold,
           const AxEnv *env, int fuse, int *nfused, char *why, size_t nwhy)
{
	int node;
	return nest_build_at(T, L, choice, engsel, blocks, fold, env, fuse, nfused, why, nwhy, &node);
}

Nest *
nest_build_at(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const int *blocks, int fold,
              const AxEnv *env, int fuse, int *nfused, char *why, size_t nwhy, int *why_node)
{
	Nest *ns = NULL;
	*why_node = -1;
	int folded = 0, epi = fuse == NEST_FUSE;
	fuse = fuse != 0;
	for (int cat = fuse; cat >= 0 && !ns; cat--) {
		int clash = 0, split = 0;
		folded = 0;
		ns = build(T, L, choice, engsel, blocks, env, fuse, epi, fuse, cat, !fold, &folded, nfused, &clash, &split,
		           why, nwhy, why_node);
		if (!ns && clash)
			ns = build(T, L, choice, engsel, blocks, env, fuse, epi, 0, cat, !fold, &folded, nfused, &clash, &split,
			           why, nwhy, why_node);
		if (!split)
			break;
	}
	if (ns && fold && (!folded || !nest_folds_ok(ns, T))) {
		snprintf(why, nwhy, "%s", folded ? "a folded block is not moved by transfers along its partition dim of a tensor"
		                                 : "no block folds");
		*why_node = -1;
		nest_free(ns);
		ns = NULL;
	}
	if (ns && !nest_permute_views(ns, T, why, nwhy)) {
		nest_free(ns);
		ns = NULL;
	}
	if (ns)
		*why_node = -1;
	return ns;
}

static Nest *
build(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const int *blocks,
      const AxEnv *env, int fuse, int epi, int share, int cat, int nofold, int *folded, int *nfused, int *clash,
      int *split, char *why, size_t nwhy, int *why_node)
{
	const AxGraph *g = T->g;
	Nest *ns = calloc(1, sizeof *ns);
	if (!ns)
		ax_die("out of memory");
	ns->g = g;
	ns->env = *env;
	for (int i = 0; i < g->t->ntemplates; i++)
		ns->accumulate |= strcmp(g->t->templates[i].name, "accumulate") == 0;
	Em e = { .g = g, .T = T, .L = L, .choice = choice, .engsel = engsel, .env = *env, .ns = ns, .why = why,
	         .nwhy = nwhy, .why_node = why_node, .node = -1, .blocks = blocks, .hoist = -1, .cat = -1, .cseg = -1, .nofold = nofold };
	double *tv = malloc(sizeof *tv * (size_t)(env->n + 1));
	if (!tv)
		ax_die("out of memory");
	memcpy(tv, env->vals, sizeof *tv * (size_t)env->n);
	e.tv = tv;
	e.env.vals = tv;
	for (int i = 0; i < g->nsyms; i++) {
		NsStmt *s = em_push(&e, NS_SIZE);
		snprintf(s->name, sizeof s->name, "%s", g->syms[i]);
		s->hi = em_int(&e, t_var(g->tc, g->syms[i], TS_INT));
	}
	/* loop fusion: a producer runs in the loop nest of its only reader when their loops match */
	*nfused = 0;
	int nn = g->nnodes + 1;
	int into[nn], prefix[nn];
	NsRef *onchip = calloc((size_t)nn, sizeof *onchip);
	if (!onchip)
		ax_die("out of memory");
	if (fuse) {
		e.into = into;
		e.prefix = prefix;
		e.onchip = onchip;
		e.pax = calloc((size_t)nn, sizeof *e.pax);
		if (share) {
			e.shared = calloc((size_t)nn, 1);
			e.made = calloc((size_t)nn, sizeof *e.made);
			e.spax = calloc((size_t)nn, sizeof *e.spax);
			if (!e.shared || !e.made || !e.spax)
				ax_die("out of memory");
		}
		if (!e.pax)
			ax_die("out of memory");
		for (int id = 0; id < g->nnodes; id++)
			into[id] = -1;
		for (int c = 0; c < g->nnodes; c++) {
			prefix[c] = -1;
			for (int o = 0; o < g->nodes[c].nin; o++) {
				int p = g->nodes[c].in[o], kmax;
				if (p >= 0 && em_can_fuse(&e, p, c, o, &kmax)) {
					into[p] = c;
					if (kmax > prefix[c])
						prefix[c] = kmax;
					(*nfused)++;
				}
			}
		}
		if (share)
			share_producers(&e, prefix, nfused);
		if (cat) {
			e.catax = calloc((size_t)nn, sizeof *e.catax);
			if (!e.catax)
				ax_die("out of memory");
			em_concat_plan(&e, prefix, nfused);
			for (int id = 0; id < g->nnodes; id++)
				*split |= e.catax[id] >= 0;
		}
		if (epi) {
			e.epi = calloc((size_t)nn, sizeof *e.epi);
			if (!e.epi)
				ax_die("out of memory");
			em_plan_epilogues(&e, nfused);
		}
	}
	for (int id = 0; id < g->nnodes && !e.bad; id++) {
		const AxNode *nd = &g->nodes[id];
		const TileOp *to = &T->op[id];
		if (to->kind == TO_INPUT || to->kind == TO_CONST || (e.into && e.into[id] >= 0))
			continue;   /* nothing to compute, or computed inside its reader's loop nest */
		if (!writable(&e, id))
			break;
		if (to->kind == TO_VIEW) {
			if (to->gather && e.catax && e.catax[id] >= 0)
				continue;   /* split in its reader's loop nest */
			if (tile_const_of(T, id) >= 0 && !graph_is_output(g, id))
				continue;   /* of a constant, which is never off chip: its readers make it on chip */
			int perm[AX_MAXR], p2[AX_MAXR], up, src = graph_is_output(g, id) ? nest_view_permutes(T, &e.env, id, perm) : -1;
			while (src >= 0 && (up = nest_view_permutes(T, &e.env, src, p2)) >= 0)
				src = up;   /* the tensor the chain permutes */
			if (to->gather)
				em_gather(&e, id);
			else if (src >= 0 && (T->op[src].kind != TO_COMPUTE || graph_is_output(g, src)))
				em_permuted_copy(&e, id, perm);   /* a result: of a tensor the kernel does not make alone */
			else if (!graph_is_output(g, id) && nest_view_permutes(T, &e.env, id, perm) >= 0 &&
			         nest_view_read_as_view(T, id))
				em_permuted_copy(&e, id, perm);   /* merged or reshaped after: a tensor of its own */
			else {
				NsStmt *s = em_push(&e, NS_VIEW);
				s->node = id;
			}
			continue;
		}
		int ep[8], nep = em_epilogue_of(&e, id, ep), okw = 1;
		if (nep) {   /* computed on each finished tile of the reductions ep, in their loop nest, written here */
			for (int k = 0; k < nep; k++)
				okw &= writable(&e, ep[k]);
			if (!okw)
				break;
			NsStmt *s = em_push(&e, NS_TENSOR);
			s->node = id;
			if (graph_shape(g, id, &e.env, &s->shape) != 0)
				em_fail(&e, "cannot evaluate the shape of %s", node_op(g, nd)->name);
			s->output = graph_is_output(g, id);
			emit_group(&e, ep, nep);
			continue;
		}
		/* the operations after it that can share its loop nest */
		int ids[8], n = 0, next = id + 1;
		ids[n++] = id;
		for (int k = id + 1; fuse && k < g->nnodes && n < 8; k++) {
			const TileOp *tk = &T->op[k];
			if (tk->kind == TO_INPUT || tk->kind == TO_CONST)
				continue;
			if (tk->kind != TO_COMPUTE || (e.into && e.into[k] >= 0) || !writable(&e, k) || has_producers(&e, k, 0) ||
			    has_producers(&e, id, 0) || !em_same_loops(&e, id, k))
				break;
			int dep = 0;
			for (int o = 0; o < g->nodes[k].nin; o++)
				for (int m = 0; m < n; m++)
					dep |= g->nodes[k].in[o] == ids[m];
			if (dep)
				break;
			ids[n++] = k;
			next = k + 1;
		}
		for (int m = 0; m < n; m++) {
			NsStmt *s = em_push(&e, NS_TENSOR);
			s->node = ids[m];
			if (graph_shape(g, ids[m], &e.env, &s->shape) != 0)
				em_fail(&e, "cannot evaluate the shape of %s", node_op(g, nd)->name);
			s->output = graph_is_output(g, ids[m]);
		}
		emit_group(&e, ids, n);
		if (n > 1) {
			*nfused += n - 1;
			id = next - 1;
		}
	}
	free(onchip);
	free(tv);
	free(e.pax);
	free(e.cse);
	free(e.shared);
	free(e.made);
	free(e.spax);
	free(e.catax);
	free(e.epi);
	*clash = e.clash;
	*folded = e.folded;
	if (e.bad) {
		nest_free(ns);
		return NULL;
	}
	nest_prefetch(ns);
	if (fuse) {   /* loop nests merged and loads hoisted: loop fusion too (none in the naive lowering) */
		Nest *was = nest_dup(ns);   /* the tails moved only for the merges they allow */
		int moved = nest_sink_tails(ns);
		int merged = nest_forward(ns);
		Footprint fp = { .fits = 1 };
		if (moved && merged)
			nest_room(ns, &fp);
		if (moved && (!merged || !fp.fits)) {   /* (the moves can hold tiles live across a nest) */
			nest_replace(ns, was->s, was->n, was->nvars);
			if (merged)
				nest_forward(ns);
		}
		nest_free(was);
	}
	nest_unwrap_once(ns);
	if (fuse) {
		nest_hoist(ns);
		nest_reuse(ns);
		nest_widen(ns);
	}
	return ns;
}

int
nest_can_absorb(const AxTiling *T, const LowerNode *L, const int *choice, const AxEnv *env)
{
	const AxGraph *g = T->g;
	char why[8];
	Em e = { .g = g, .T = T, .L = L, .choice = choice, .env = *env, .why = why, .nwhy = sizeof why, .node = -1,
	         .hoist = -1 };
	for (int id = 0; id < g->nnodes; id++) {
		if (T->op[id].kind != TO_COMPUTE || !L[id].nchoices || !L[id].choice[choice[id]].tile)
			continue;
		const LowerChoice *ch = &L[id].choice[choice[id]];
		int o, kmax;
		for (o = 0; o < g->nodes[id].nin && g->nodes[id].in[o] != ch->absorb; o++)
			;
		if (o == g->nodes[id].nin || !em_can_fuse(&e, ch->absorb, id, o, &kmax) || e.bad)
			return 0;
	}
	return 1;
}

char *
emit_kernel(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const AxEnv *env, int fuse,
         int *nfused, Footprint *fp, const char *name, char *why, size_t nwhy)
{
	*fp = (Footprint){ .fits = 1 };
	Nest *ns = nest_build(T, L, choice, engsel, NULL, 0, env, fuse, nfused, why, nwhy);
	if (!ns)
		return NULL;
	nest_room(ns, fp);
	char *src = nest_kernel(ns, name, why, nwhy);
	nest_free(ns);
	if (!src)
		return NULL;
	char *r = arena_strdup(tc_arena(T->g->tc), src);
	free(src);
	return r;
}
