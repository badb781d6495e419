/*
 * emit_tile.c — the body of one tile (its loads, the lowered sequence, the
 * copies of its result; when the reader's choice includes a producer's
 * computation, the producer's operands read at its tile as inputs of that
 * choice), and the loads of a blocked operation, made once per block.
 * Which producers run in a reader's loop nest: emit_fuse.c.
 */
#include <string.h>
#include "emit.h"

/* ---- producers made in their reader's loop nest ----------------------------------- */

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
		int p = em_src(e, c, o);   /* a concatenation split here: the part's operand */
		if (!em_fused_into(e, p, c) || (e->epi && e->epi[p] >= 0))
			continue;   /* (an epilogue's reduction: its finished tile is on chip) */
		const TileOp *tp = &e->T->op[p];
		NsDim pax[AX_MAXR + 4] = { 0 };
		for (int k = 0; k < tp->naxes; k++) {
			const TileAxis *ax = &tp->ax[k];
			int j = ax->out;
			const TileAxisRead *r = j >= 0 ? &e->T->op[c].read[o][j] : NULL;
			if (em_iterated(e, tp, k) && r && r->kind == 1) {
				pax[k] = caxidx[r->axis];
				em_concat_local(e, c, o, j, &pax[k]);
			} else if (!ax->tiled)
				em_dim(&pax[k], 0, "0");
			else
				em_dim(&pax[k], ax->unit ? 1 : em_int(e, ax->extent), "0");
		}
		if (e->shared && e->shared[p]) {
			if (e->made[p] == e->gen) {   /* made for an earlier reader in this iteration */
				int same = 1;   /* the same tile: each axis the same start and length */
				for (int k = 0; k < tp->naxes; k++)
					same &= e->spax[p][k].len == pax[k].len && strcmp(e->spax[p][k].start, pax[k].start) == 0 &&
					        e->spax[p][k].fold == pax[k].fold && strcmp(e->spax[p][k].fin, pax[k].fin) == 0;
				if (!same) {
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

/* ---- operands replicated across partitions ---------------------------------------- */

static Term *
read_src(TermCtx *tc, void *env, int o, Term *const *idx, int n)
{
	(void)env;
	return t_tensor(tc, o, "@a", n, idx);
}

/* The instruction that replicates a [1, F] tile across P partitions, read
 * off the element equations: one operand of two dims, one size attribute P,
 * out[p, f] = src[0, f]; -1 if the target has none. */
static int
replicator(const AxTarget *t, TermCtx *tc)
{
	for (int i = 0; i < t->ninsts; i++) {
		const AxOp *in = &t->insts[i];
		if (in->nopnd != 1 || in->nattr != 1 || in->attr[0].kind != AX_ATTR_SIZE || in->opnd[0].nfixed != 2 ||
		    in->opnd[0].groups)
			continue;
		AxSym s = { 0 };
		s.rank[0] = 2;
		s.dim[0][0] = t_int(tc, 1);
		s.dim[0][1] = t_var(tc, "@F", TS_INT);
		s.sattr[0] = t_var(tc, "@P", TS_INT);
		s.access = read_src;
		Term *idx[2] = { t_var(tc, "@p", TS_INT), t_var(tc, "@f", TS_INT) };
		Term *row[2] = { t_int(tc, 0), idx[1] };
		if (in->enc(tc, &s, idx) == t_tensor(tc, 0, "@a", 2, row))
			return i;
	}
	return -1;
}

/* Is tile input p of node id's choice an operand the tiling replicates
 * across partitions (a row, a vector, a 0-d tensor beside a tile)? */
static int
replicated_input(Em *e, int id, const LowerChoice *ch, int p)
{
	int o, node = lower_input(e->g, ch, id, p, &o);
	return (e->T->op[node].replicated >> o) & 1u;
}

/* *v, a [1, F] tile of a replicated operand, made the [P, F] tile want by
 * the target's replicating instruction (the load brings one row). */
static void
replicate(Em *e, NsRef *v, const AxShape *want)
{
	if (v->shape.rank != 2 || want->rank != 2 || v->shape.d[0] != 1 || want->d[0] == 1 ||
	    v->shape.d[1] != want->d[1])
		return;
	int r = replicator(e->g->t, e->g->tc);
	if (r < 0) {
		em_fail(e, "no instruction of the target replicates a row across partitions%s", "");
		return;
	}
	int attr[AX_MAXATTR] = { 0 };
	Term *sattr[AX_MAXATTR] = { t_int(e->g->tc, want->d[0]) };
	const NsRef *mo[AX_MAXOPND] = { v };
	NsRef out;
	em_inst(e, r, -1, attr, sattr, mo, NULL, -1, &out);
	*v = out;
}

/* The body of one tile: operand loads, the sequence; returns its value. */
void
em_tile_body(Em *e, int id, const NsDim *axidx, NsRef *res)
{
	const AxGraph *g = e->g;
	const AxTarget *t = g->t;
	const TileOp *to = &e->T->op[id];
	const LowerNode *ln = &e->L[id];
	const LowerChoice *ch = &ln->choice[e->choice[id]];
	const SynthSeq *q = &ch->seq;
	const AxGraph *tile = ch->tile ? ch->tile : to->tile;
	NsRef in[2 * AX_MAXOPND], iv[8];
	AxShape want[2 * AX_MAXOPND];   /* each input's tile */
	uint32_t fused = 0;      /* inputs already on chip: no copies for them */
	uint32_t repl = 0;       /* inputs replicated across partitions: loaded as one row */
	*res = (NsRef){ 0 };
	if (e->bad)              /* its block loads failed: nothing to write */
		return;
	if (ch->tile && (!em_fused_into(e, ch->absorb, id) || !e->pax)) {
		em_fail(e, "%s: its fused instructions need their producer in its loop nest", node_op(g, &g->nodes[id])->name);
		return;
	}
	/* the tile's inputs: an off-chip sl, a constant made on chip, or a tile
	 * of a producer in the same loop nest (a fused choice: the producer's
	 * inputs too, at the producer's tile) */
	for (int p = 0; p < tile->nparams && p < 2 * AX_MAXOPND; p++) {
		int o, node = lower_input(g, ch, id, p, &o);
		const AxNode *nd = &g->nodes[node];
		const LowerNode *lp = &e->L[node];
		NsRef *v = &in[p];
		*v = (NsRef){ 0 };
		if (o >= nd->nin || graph_shape(tile, tile->params[p].node, &e->env, &v->shape) != 0) {
			em_fail(e, "cannot evaluate the tile of operand %s", tile->params[p].name);
			return;
		}
		want[p] = v->shape;
		if (replicated_input(e, id, ch, p))
			repl |= 1u << p;
		if (em_fused_into(e, em_src(e, node, o), node)) {
			AxShape keep = v->shape;
			*v = e->onchip[em_src(e, node, o)];   /* computed in this loop nest: on chip */
			if (repl & (1u << p))
				replicate(e, v, &keep);
			else
				v->shape = keep;
			fused |= 1u << p;
		} else if (lp->constant[o]) {
			const NsRef *none[AX_MAXOPND] = { 0 };
			int attr[AX_MAXATTR] = { 0 };
			em_inst(e, lp->const_inst[o], -1, attr, lp->const_sattr[o], none, NULL, -1, v);
		} else
			em_operand(e, node, o, node == id ? axidx : e->pax[node], v);
	}
	for (int j = 0; j < q->ninsts; j++) {
		const AxOp *op = &t->insts[q->inst[j]];
		const NsRef *opnd[AX_MAXOPND] = { 0 };
		for (int o = 0; o < op->nopnd; o++) {
			int s = q->src[j][o];
			if (s == SYNTH_OMITTED)
				continue;
			NsRef *v = s >= 0 ? &iv[s] : &in[-1 - s];
			for (int k = 0; k < ch->nmoves && !(s < 0 && (fused & (1u << (-1 - s)))); k++) {
				const LowerMove *m = &ch->move[k];
				if (m->before != j || m->opnd != o)
					continue;
				NsRef moved;
				const NsRef *mo[AX_MAXOPND] = { v };
				int attr[AX_MAXATTR] = { 0 };
				Term *sattr[AX_MAXATTR] = { 0 };
				AxShape keep = v->shape;
				if (e->hoist == id && e->cur->hoisted[k] >= 0)   /* loaded with its block */
					moved = em_block_tile(e, e->cur->hoisted[k], e->cur->hoisted_axes[k], e->cur->hoisted_merge[k],
					                      &e->cur->hoisted_shape[k]);
				else
					em_inst(e, m->inst, ax_nth_bit(m->engines, 0), attr, sattr, mo, NULL, m->to, &moved);
				moved.shape = keep;
				*v = moved;
				if (s < 0 && (repl & (1u << (-1 - s))))   /* the row loaded, made the whole tile */
					replicate(e, v, &want[-1 - s]);
			}
			opnd[o] = v;
		}
		if (e->hoist == id && e->cur->hoisted[LOWER_MAXSTEPS + j] >= 0)   /* loaded with its block */
			iv[j] = em_block_tile(e, e->cur->hoisted[LOWER_MAXSTEPS + j], e->cur->hoisted_axes[LOWER_MAXSTEPS + j],
			                      e->cur->hoisted_merge[LOWER_MAXSTEPS + j], &e->cur->hoisted_shape[LOWER_MAXSTEPS + j]);
		else
			em_inst(e, q->inst[j], em_seq_engine(t, q, j, e->engsel ? e->engsel[id * 8 + j] : 0), q->attr[j],
			        q->sattr[j], opnd, NULL, ch->mem[j], &iv[j]);
	}
	*res = iv[q->ninsts - 1];
}

/* The result's moves, the last into the off-chip sl dst; with dst NULL,
 * only the moves between on-chip memories (a tile a fused consumer reads). */
void
em_store(Em *e, int id, NsRef *v, const NsRef *dst)
{
	em_store_from(e, id, v, dst, -1);
}

void
em_store_from(Em *e, int id, NsRef *v, const NsRef *dst, int from)
{
	const AxTarget *t = e->g->t;
	const LowerChoice *ch = &e->L[id].choice[e->choice[id]];
	int last = -1, first = from >= 0 ? -1 : 0;
	for (int k = 0; k < ch->nmoves; k++)
		if (ch->move[k].before == ch->seq.ninsts) {
			last = k;
			if (first < 0 && ch->move[k].from == from)
				first = k;
		}
	if (first < 0)   /* no move out of memory from: the value stays there, stored as it is */
		first = ch->nmoves, last = -1;
	for (int k = first; k < ch->nmoves; k++) {
		const LowerMove *m = &ch->move[k];
		if (m->before != ch->seq.ninsts || (!dst && t->mems[m->to].offchip))
			continue;
		const NsRef *mo[AX_MAXOPND] = { v };
		int attr[AX_MAXATTR] = { 0 };
		Term *sattr[AX_MAXATTR] = { 0 };
		NsRef moved;
		em_inst(e, m->inst, ax_nth_bit(m->engines, 0), attr, sattr, mo, k == last ? dst : NULL, m->to, &moved);
		*v = moved;
	}
	if (last < 0 && dst) {   /* already off chip, or no copy declared: a plain store */
		NsStmt *s = em_push(e, NS_STORE);
		s->node = id;
		s->out = *dst;
		s->src = *v;
	}
}

/* ---- blocks ---------------------------------------------------------------------- */

/* The node operand o of tile input p of node id, if it is read from an
 * off-chip tensor (not made on chip, not computed in this loop nest); *node
 * is id, or the producer whose computation id's choice includes. */
static int
offchip_operand(Em *e, int id, int p, int *node)
{
	int o;
	*node = lower_input(e->g, &e->L[id].choice[e->choice[id]], id, p, &o);
	const AxNode *nd = &e->g->nodes[*node];
	if (o == nd->nin || e->L[*node].constant[o] || em_fused_into(e, em_src(e, *node, o), *node))
		return -1;
	return o;
}

/* The axis of consumer c that axis k of producer p (c's choice includes p's
 * computation, p feeding c's operand ch->absorb_opnd) follows, or -1. */
static int
consumer_axis(Em *e, int c, int p, int k)
{
	const LowerChoice *ch = &e->L[c].choice[e->choice[c]];
	int j = e->T->op[p].ax[k].out;
	const TileAxisRead *r = j >= 0 ? &e->T->op[c].read[ch->absorb_opnd][j] : NULL;
	return r && r->kind == 1 ? r->axis : -1;
}

/* Is tile input p read by instruction j of the sequence through a move? */
static int
moved(const LowerChoice *ch, int j, int o)
{
	for (int k = 0; k < ch->nmoves; k++)
		if (ch->move[k].before == j && ch->move[k].opnd == o)
			return 1;
	return 0;
}

static int merge_axis(Em *e, int id, int p, uint32_t axes, const NsRef *sl);

/* Opens the loops over the tiles of a block along the blocked axes `axes` (j<a>). */
static void
block_loops(Em *e, const TileOp *to, uint32_t axes)
{
	for (int a = 0; a < to->naxes; a++)
		if (axes & (1u << a)) {
			char var[16];
			snprintf(var, sizeof var, "j%d", a);
			em_loop(e, 0, var, e->cur->blk[a]);
		}
}

/* ---- steps hoisted out of the tile loops ------------------------------------------ */

typedef struct HVal {        /* a value of the tile's walk: in a block buffer, or made per tile */
	int buf;                 /* -1: made per tile */
	uint32_t axes;
	int merge;
	AxShape shape;
} HVal;

/* Instruction j of the sequence reads its operand o through move k (its
 * first, in order: k0 NULL) -- the consumers of iv[j]: how many, and the one. */
static int
consumers(const SynthSeq *q, const AxTarget *t, int j, int *cj, int *co)
{
	int n = 0;
	for (int i = j + 1; i < q->ninsts; i++)
		for (int o = 0; o < t->insts[q->inst[i]].nopnd; o++)
			if (q->src[i][o] == j) {
				*cj = i, *co = o;
				n++;
			}
	return n;
}

/* Opens the loops over the block axes `axes`, writes instruction inst over
 * the block tiles opnd into a new buffer of those axes (the move mv after it
 * first, when mv >= 0: the buffer holds the moved tile), and closes them;
 * the buffer's var, and its tile's shape in *shape. */
static int
hoist_into(Em *e, int id, uint32_t axes, int inst, int eng, const int *attr, Term *const *sattr, const NsRef *const *opnd,
           int mem, const LowerMove *mv, AxShape *shape)
{
	const TileOp *to = &e->T->op[id];
	int bufat = e->ns->n, save = e->depth;
	em_push(e, NS_BUF);
	int buf = e->ns->nvars++;
	block_loops(e, to, axes);
	NsRef res;
	em_inst(e, inst, eng, attr, sattr, opnd, NULL, mem, &res);
	if (mv && !e->bad) {
		const NsRef *mo[AX_MAXOPND] = { &res };
		int zattr[AX_MAXATTR] = { 0 };
		Term *zsattr[AX_MAXATTR] = { 0 };
		em_inst(e, mv->inst, ax_nth_bit(mv->engines, 0), zattr, zsattr, mo, NULL, mv->to, &res);
	}
	if (e->bad)
		return -1;
	NsStmt *ld = &e->ns->s[e->ns->n - 1];
	ld->out = em_block_tile(e, buf, axes, -1, &ld->shape);
	for (int i = 0; i < e->ncse; i++)   /* a constant made here: later reads of it read the buffer */
		if (e->cse[i].val.var == ld->var)
			e->cse[i].val = ld->out;
	NsStmt *bf = &e->ns->s[bufat];
	bf->var = buf;
	bf->node = id;
	bf->mem = ld->mem;
	bf->shape = em_block_shape(e, axes, &ld->shape);
	ld->mem = -1;
	*shape = ld->shape;
	em_close_to(e, save);
	return buf;
}

/* After the block's loads: each step of the sequence (an instruction, or a
 * move of an operand) whose operands are all in block buffers and which
 * depends on fewer of the blocked axes than the operation (a transpose of a
 * row block's tile, the same for every column tile of the block) is made
 * once per tile of those axes, ahead of the tile loops, into a buffer of
 * its own; em_tile_body reads it there.  An instruction whose one reader
 * moves its result first is made with that move, the buffer holding the
 * moved tile (a transpose into PSUM, copied to SBUF: only the copy kept). */
static void
hoist_steps(Em *e, int id)
{
	const AxGraph *g = e->g;
	const AxTarget *t = g->t;
	const TileOp *to = &e->T->op[id];
	const LowerChoice *ch = &e->L[id].choice[e->choice[id]];
	const SynthSeq *q = &ch->seq;
	const AxGraph *tile = ch->tile ? ch->tile : to->tile;
	OpSt *st = e->cur;
	uint32_t all = 0;
	for (int a = 0; a < to->naxes; a++)
		if (st->blk[a] > 1)
			all |= 1u << a;
	HVal in[2 * AX_MAXOPND], iv[8];
	for (int p = 0; p < 2 * AX_MAXOPND; p++)
		in[p].buf = -1;
	for (int j = 0; j < q->ninsts && !e->bad; j++) {
		const AxOp *op = &t->insts[q->inst[j]];
		int ok = j < q->ninsts - 1;   /* the tile's result is made per tile */
		uint32_t axes = 0;
		NsRef sl[AX_MAXOPND];
		const NsRef *opnd[AX_MAXOPND] = { 0 };
		for (int o = 0; o < op->nopnd; o++) {
			int s = q->src[j][o];
			if (s == SYNTH_OMITTED)
				continue;
			HVal *v = s >= 0 ? &iv[s] : &in[-1 - s];
			if (s < 0 && (-1 - s >= tile->nparams || replicated_input(e, id, ch, -1 - s)))
				v->buf = -1;   /* a row replicated per tile after its load */
			for (int k = 0; k < ch->nmoves; k++) {
				if (ch->move[k].before != j || ch->move[k].opnd != o)
					continue;
				if (st->hoisted[k] >= 0)
					*v = (HVal){ st->hoisted[k], st->hoisted_axes[k], st->hoisted_merge[k], st->hoisted_shape[k] };
				else if (v->buf >= 0 && v->axes != all) {
					const NsRef tl = em_block_tile(e, v->buf, v->axes, v->merge, &v->shape);
					const NsRef *mo[AX_MAXOPND] = { &tl };
					int zattr[AX_MAXATTR] = { 0 };
					Term *zsattr[AX_MAXATTR] = { 0 };
					const LowerMove *m = &ch->move[k];
					int b = hoist_into(e, id, v->axes, m->inst, ax_nth_bit(m->engines, 0), zattr, zsattr, mo, m->to,
					                   NULL, &v->shape);
					if (b < 0)
						return;
					v->buf = b;
					v->merge = -1;
					st->hoisted[k] = b;
					st->hoisted_axes[k] = v->axes;
					st->hoisted_merge[k] = -1;
					st->hoisted_shape[k] = v->shape;
				} else
					v->buf = -1;
			}
			if (v->buf < 0)
				ok = 0;
			else {
				axes |= v->axes;
				sl[o] = em_block_tile(e, v->buf, v->axes, v->merge, &v->shape);
				opnd[o] = &sl[o];
			}
		}
		if (st->hoisted[LOWER_MAXSTEPS + j] >= 0) {
			int k = LOWER_MAXSTEPS + j;
			iv[j] = (HVal){ st->hoisted[k], st->hoisted_axes[k], st->hoisted_merge[k], st->hoisted_shape[k] };
			continue;
		}
		iv[j].buf = -1;
		if (!ok || axes == all)
			continue;
		/* its one reader's first move on it, made with it */
		int cj = -1, co = -1, mk = -1;
		if (consumers(q, t, j, &cj, &co) == 1)
			for (int k = 0; k < ch->nmoves && mk < 0; k++)
				if (ch->move[k].before == cj && ch->move[k].opnd == co)
					mk = k;
		int b = hoist_into(e, id, axes, q->inst[j], em_seq_engine(t, q, j, e->engsel ? e->engsel[id * 8 + j] : 0),
		                   q->attr[j], q->sattr[j], opnd, ch->mem[j], mk >= 0 ? &ch->move[mk] : NULL, &iv[j].shape);
		if (b < 0)
			return;
		iv[j].buf = b;
		iv[j].axes = axes;
		iv[j].merge = -1;
		st->hoisted[LOWER_MAXSTEPS + j] = b;
		st->hoisted_axes[LOWER_MAXSTEPS + j] = axes;
		st->hoisted_merge[LOWER_MAXSTEPS + j] = -1;
		st->hoisted_shape[LOWER_MAXSTEPS + j] = iv[j].shape;
		if (mk >= 0) {
			st->hoisted[mk] = b;
			st->hoisted_axes[mk] = axes;
			st->hoisted_merge[mk] = -1;
			st->hoisted_shape[mk] = iv[j].shape;
		}
	}
}

/* Loads of a blocked operation: every instruction that reads an operand
 * straight from off chip (a copy the lowering inserted, or an instruction
 * of the sequence itself, such as a transposing load) is made for the whole
 * block at once, ahead of the loops over the tiles of the block, into a
 * buffer indexed by the tile's position in the block along the blocked
 * axes its operands read: the loaded tiles are reused across the block's
 * other axes (a row block of A serves every column tile of B).  Slot k <
 * LOWER_MAXSTEPS is move k; LOWER_MAXSTEPS + j is instruction j. */
void
em_block_loads(Em *e, int id, const NsDim *idx)
{
	const AxGraph *g = e->g;
	const AxTarget *t = g->t;
	const TileOp *to = &e->T->op[id];
	const LowerChoice *ch = &e->L[id].choice[e->choice[id]];
	const SynthSeq *q = &ch->seq;
	for (int k = 0; k < LOWER_MAXSTEPS + 8; k++) {   /* every slot, also those a failure leaves unvisited */
		e->cur->hoisted[k] = -1;
		e->cur->hoisted_merge[k] = -1;
	}
	for (int k = 0; k < LOWER_MAXSTEPS + 8; k++) {
		int inst, mem, eng, ins[AX_MAXOPND], nin = 0, slot[AX_MAXOPND], nop;
		const int *attr = NULL;
		Term *const *sattr = NULL;
		int zattr[AX_MAXATTR] = { 0 };
		Term *zsattr[AX_MAXATTR] = { 0 };
		if (k < LOWER_MAXSTEPS) {   /* a copy from off chip */
			if (k >= ch->nmoves)
				continue;
			const LowerMove *m = &ch->move[k];
			if (m->before >= q->ninsts || !t->mems[m->from].offchip)
				continue;
			int s = q->src[m->before][m->opnd];
			if (s >= 0 || s == SYNTH_OMITTED)
				continue;
			inst = m->inst, mem = m->to, attr = zattr, sattr = zsattr, eng = ax_nth_bit(m->engines, 0);
			ins[nin] = -1 - s;
			slot[nin++] = 0;
			nop = 1;
		} else {   /* an instruction whose operands all come straight from off chip */
			int j = k - LOWER_MAXSTEPS;
			if (j >= q->ninsts)
				continue;
			const AxOp *op = &t->insts[q->inst[j]];
			int ok = 1;
			for (int o = 0; o < op->nopnd && ok; o++) {
				int s = q->src[j][o];
				if (s == SYNTH_OMITTED)
					continue;
				ok = s < 0 && !moved(ch, j, o);
				if (ok) {
					ins[nin] = -1 - s;
					slot[nin++] = o;
				}
			}
			if (!ok || !nin)
				continue;
			inst = q->inst[j], mem = ch->mem[j], attr = q->attr[j], sattr = q->sattr[j];
			eng = em_seq_engine(t, q, j, e->engsel ? e->engsel[id * 8 + j] : 0);
			nop = op->nopnd;
		}
		/* the operands' slices, and the blocked axes they read */
		NsRef sl[AX_MAXOPND];
		const NsRef *opnd[AX_MAXOPND] = { 0 };
		uint32_t axes = 0;
		int ok = 1;
		for (int i = 0; i < nin && ok; i++) {
			int node, o = offchip_operand(e, id, ins[i], &node);
			if (o < 0) {
				ok = 0;
				break;
			}
			/* an input of the producer id's choice includes: at the producer's tile that this
			 * tile of id reads (its axes that id follows take id's indices, as em_producers) */
			const TileOp *tn = &e->T->op[node];
			NsDim pidx[AX_MAXR + 4];
			for (int k = 0; node != id && k < tn->naxes; k++) {
				int ck = consumer_axis(e, id, node, k);
				if (em_iterated(e, tn, k) && ck >= 0)
					pidx[k] = idx[ck];
				else if (!tn->ax[k].tiled)
					em_dim(&pidx[k], 0, "0");
				else
					em_dim(&pidx[k], tn->ax[k].unit ? 1 : em_int(e, tn->ax[k].extent), "0");
			}
			const AxNode *src = &g->nodes[g->nodes[node].in[o]];
			for (int d = 0; d < src->rank; d++) {
				int a = tn->read[o][d].kind == 1 ? tn->read[o][d].axis : -1;
				if (a >= 0 && node != id)
					a = consumer_axis(e, id, node, a);
				if (a >= 0 && e->cur->blk[a] > 1)
					axes |= 1u << a;
			}
			sl[i] = (NsRef){ 0 };
			const AxGraph *tile = ch->tile ? ch->tile : to->tile;
			if (graph_shape(tile, tile->params[ins[i]].node, &e->env, &sl[i].shape) != 0)
				em_fail(e, "cannot evaluate the tile of operand %s", tile->params[ins[i]].name);
			em_operand(e, node, o, node == id ? idx : pidx, &sl[i]);
			opnd[slot[i]] = &sl[i];
		}
		(void)nop;
		if (!ok)
			continue;
		/* a copy along a blocked axis that its tile's last dim reads: one transfer for the block's
		 * tiles along it (their slices lie side by side), the buffer's last dim theirs together */
		int merge = k < LOWER_MAXSTEPS && nin == 1 ? merge_axis(e, id, ins[0], axes, &sl[0]) : -1;
		AxShape tshape = sl[0].shape;
		if (merge >= 0) {
			NsDim *d = &sl[0].idx[sl[0].nidx - 1];
			em_dim(d, d->len * e->cur->blk[merge], "%s", e->bstart[merge]);
			sl[0].shape.d[sl[0].shape.rank - 1] *= e->cur->blk[merge];
		}
		/* else a copy whose slice folds the rows of the one blocked axis it reads (emit_fold.c):
		 * one transfer of the block's rows into one tile (T, b, ...), its tiles the rows j */
		NsRef tile_sl = sl[0];
		int fold = merge < 0 && k < LOWER_MAXSTEPS && nin == 1 ? em_fold_load(e, axes, &sl[0]) : -1;
		uint32_t loops = merge >= 0 ? axes & ~(1u << merge) : fold >= 0 ? axes & ~(1u << fold) : axes;
		/* the same block load made earlier in an open loop (another operation of this loop nest) */
		char key[480];
		size_t kk = (size_t)snprintf(key, sizeof key, "block %u/%d/%d/%d/%d/%d", axes, merge, fold, inst, eng, mem);
		for (int a = 0; a < AX_MAXR + 4 && kk < sizeof key; a++)   /* the buffer's shape: its tiles per axis */
			if (axes & (1u << a))
				kk += (size_t)snprintf(key + kk, sizeof key - kk, ",b%d", e->cur->blk[a]);
		for (int a = 0; a < t->insts[inst].nattr && kk < sizeof key; a++)
			kk += (size_t)snprintf(key + kk, sizeof key - kk, ",%d:%p", attr[a], (void *)sattr[a]);
		for (int i = 0; i < nin && kk < sizeof key; i++)
			kk += em_key_ref(key + kk, sizeof key - kk, &sl[i]);
		Cse *c = em_cse_find(e, key);
		if (c) {
			e->cur->hoisted[k] = c->val.var;
			e->cur->hoisted_axes[k] = c->axes;
			e->cur->hoisted_merge[k] = merge;
			e->cur->hoisted_shape[k] = merge >= 0 || fold >= 0 ? tshape : c->val.shape;
			continue;
		}
		int bufat = e->ns->n, save = e->depth;
		em_push(e, NS_BUF);
		int buf = e->ns->nvars++;
		block_loops(e, to, loops);
		int at = e->ns->n;
		NsRef res;
		em_inst(e, inst, eng, attr, sattr, opnd, NULL, mem, &res);
		if (e->bad)
			return;
		if (e->ns->n == at) {   /* the same tile was loaded earlier in an open loop: not loaded again here, */
			e->ns->n = bufat;   /* so no block buffer: the tile loop reads that load */
			e->depth = save;
			e->ns->nvars--;
			continue;
		}
		NsStmt *ld = &e->ns->s[at];
		NsRef dst = em_block_tile(e, buf, loops, -1, &ld->shape);
		char tkey[480];
		if (fold >= 0) {   /* the load of one tile, as a reader would make it: found in the buffer */
			NsStmt one = *ld;
			one.opnd[slot[0]] = tile_sl;
			if (!em_load_key(t, &one, tkey, sizeof tkey))
				tkey[0] = 0;
		}
		ld->out = dst;
		/* the load written into the buffer: later reads of it read there, also in the later loops
		 * over the block's tiles (their variables are the same j<a>: the key names the same tile) */
		int keep = -1;
		for (int i = 0; i < e->ncse; i++)
			if (e->cse[i].val.var == res.var) {
				e->cse[i].val = dst;
				keep = i;
			}
		Cse kept = keep >= 0 ? e->cse[keep] : (Cse){ 0 };
		NsStmt *bf = &e->ns->s[bufat];
		bf->var = buf;
		bf->node = id;
		bf->mem = ld->mem;
		bf->shape = em_block_shape(e, loops, &ld->shape);
		bf->onetile = fold >= 0;
		ld->mem = -1;
		em_close_to(e, save);
		if (keep >= 0 && merge < 0 && fold < 0)
			em_cse_add(e, kept.key, &kept.val, 0);
		if (fold >= 0 && tkey[0]) {
			NsRef tv = em_block_tile(e, buf, axes, -1, &tshape);
			em_cse_add(e, tkey, &tv, 0);
		}
		e->cur->hoisted[k] = buf;
		e->cur->hoisted_axes[k] = axes;
		e->cur->hoisted_merge[k] = merge;
		e->cur->hoisted_shape[k] = merge >= 0 || fold >= 0 ? tshape : dst.shape;
		NsRef bv = dst;
		bv.var = buf;
		em_cse_add(e, key, &bv, axes);
	}
	hoist_steps(e, id);
}

/* A block buffer's shape: the tile's partition dim first (a buffer of
 * several tiles still spans the partitions once), then a dim per blocked
 * axis, then the tile's other dims. */
AxShape
em_block_shape(Em *e, uint32_t axes, const AxShape *tile)
{
	AxShape bs = { 0 };
	if (tile->rank)
		bs.d[bs.rank++] = tile->d[0];
	for (int a = 0; a < AX_MAXR + 4; a++)
		if (axes & (1u << a))
			bs.d[bs.rank++] = e->cur->blk[a];
	for (int d = 1; d < tile->rank; d++)
		bs.d[bs.rank++] = tile->d[d];
	return bs;
}

/* The position in the block of the current tile along blocked axis a: the
 * variable of the loop over the block's tiles, or where the tile body of a
 * K block reads its K tile. */
static const char *
block_pos(Em *e, int a, char *buf, size_t n)
{
	if (a == e->cur->kax && e->cur->kj[0])
		return e->cur->kj;
	snprintf(buf, n, "j%d", a);
	return buf;
}

/* Within the block: the tile of buffer buf at the current block position
 * along axes (shape s): [0:P, j.., 0:F..]; merge >= 0: along that axis the
 * tiles lie side by side in the buffer's last dim. */
NsRef
em_block_tile(Em *e, int buf, uint32_t axes, int merge, const AxShape *s)
{
	NsRef r = (NsRef){ 0 };
	char pos[24];
	r.var = buf;
	r.shape = *s;
	if (s->rank)
		em_dim(&r.idx[r.nidx++], s->d[0], "0");
	for (int a = 0; a < AX_MAXR + 4; a++)
		if ((axes & (1u << a)) && a != merge) {
			if (e->cur->blk[a] > 1)
				em_dim(&r.idx[r.nidx++], 0, "%s", block_pos(e, a, pos, sizeof pos));
			else
				em_dim(&r.idx[r.nidx++], 0, "0");
		}
	for (int d = 1; d < s->rank; d++)
		if (merge >= 0 && d == s->rank - 1)
		{
			const char *bp = block_pos(e, merge, pos, sizeof pos);
			if (strchr(bp, ' '))
				em_dim(&r.idx[r.nidx++], s->d[d], "(%s) * %lld", bp, (long long)s->d[d]);
			else
				em_dim(&r.idx[r.nidx++], s->d[d], "%s * %lld", bp, (long long)s->d[d]);
		}
		else
			em_dim(&r.idx[r.nidx++], s->d[d], "0");
	return r;
}

/* The blocked axis (in axes) along which the block's copies of tile input p
 * of node id (its off-chip slice sl) can be one transfer: the one its
 * source's last dim reads, whole tiles of it (-1: none). */
static int
merge_axis(Em *e, int id, int p, uint32_t axes, const NsRef *sl)
{
	int node, o = offchip_operand(e, id, p, &node);
	if (o < 0 || sl->nidx < 2 || sl->shape.rank < 2)
		return -1;
	/* the operand's reader: id, or the producer id's instructions compute (its axes followed
	 * to id's) */
	const TileOp *to = &e->T->op[node];
	int last = sl->nidx - 1;
	const TileAxisRead *r = &to->read[o][last];
	if (r->kind != 1)
		return -1;
	int a = node == id ? r->axis : consumer_axis(e, id, node, r->axis);
	if (a < 0 || !(axes & (1u << a)) || !e->bstart[a][0] || e->fold[a])
		return -1;
	for (int d = 0; d < last; d++)
		if (to->read[o][d].kind == 1 && to->read[o][d].axis == r->axis)
			return -1;
	if (sl->idx[last].len <= 0 || sl->shape.d[sl->shape.rank - 1] != sl->idx[last].len)
		return -1;
	return a;
}

/* Opens the loops over the tiles of a block. */
void
em_inner_loops(Em *e, const TileOp *to)
{
	for (int k = 0; k < to->naxes; k++)
		if (e->cur->blk[k] > 1 && k != e->cur->kax) {
			char var[16];
			snprintf(var, sizeof var, "j%d", k);
			em_loop(e, 0, var, e->cur->blk[k]);
		}
}
