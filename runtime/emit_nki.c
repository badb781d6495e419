/*
 * emit_nki.c — one candidate as loop nests (paper section 3.6), written
 * into the statements of nest.h; nki_print.c prints them through the
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
 * unfused form.  Views are layout ops over the off-chip tensors.  Tile
 * sizes divide their axes (clean splits).  Loop fusion: a producer whose
 * only reader has the same loops and tiles (and neither reduces across
 * tiles) is computed inside the reader's loop nest, its tile passed on
 * chip instead of through an off-chip tensor.
 */
#include <stdarg.h>
#include <string.h>
#include "nest.h"

typedef struct OpSt {       /* one operation of the loop nest being written */
	int id;
	int blk[AX_MAXR + 4];    /* tiles per block along each axis */
	int blocked;
	/* per move k of its lowering (then per instruction j at LOWER_MAXSTEPS + j): the block
	 * buffer it was loaded into (-1: none), indexed by these axes' tile in the block, each
	 * tile of this shape */
	int hoisted[LOWER_MAXSTEPS + 8];
	uint32_t hoisted_axes[LOWER_MAXSTEPS + 8];
	AxShape hoisted_shape[LOWER_MAXSTEPS + 8];
	NsRef acc;               /* a reduction across tiles: its running value */
	int accbuf, accat;       /* ... blocked: the buffer of the block's running values */
} OpSt;

typedef struct Cse {        /* a load made earlier in a loop still open */
	char key[480];
	int depth;
	NsRef val;
	uint32_t axes;           /* a block load: its buffer's block axes */
} Cse;

typedef struct Em {
	const AxGraph *g;
	const AxTiling *T;
	const LowerNode *L;
	const int *choice;
	const int *engsel;       /* [node * 8 + j]: which of instruction j's engines (NULL: each its first) */
	AxEnv env;               /* sizes, scalar parameters, tile sizes */
	Nest *ns;
	int depth;               /* loops open */
	int node;                /* the operation being written */
	int *into;               /* loop fusion: per node, the consumer whose loop nest computes it, or -1 */
	NsRef *onchip;           /* ... and its tile there, at the current iteration */
	int *prefix;             /* per reader: after which of its axes its fused producers are made */
	const int *blocks;       /* per axis class: tiles per block (NULL: 1) */
	OpSt *cur;               /* the operation being written */
	int hoist;               /* the blocked operation whose loads are made per block (-1: none) */
	int late;                /* fused producers are made per tile (they need a blocked axis) */
	Cse *cse;                /* loads from off chip, made once per loop that can see them */
	int ncse, capcse;
	char *why;
	size_t nwhy;
	int bad;
} Em;

static void
fail_em(Em *e, const char *msg, const char *arg)
{
	if (!e->bad)
		snprintf(e->why, e->nwhy, msg, arg);
	e->bad = 1;
}

static int64_t
eval_int(Em *e, const Term *t)
{
	double v;
	if (t_eval(t, &e->env, &v) != 0) {
		fail_em(e, "cannot evaluate %s at these sizes", t_infix(e->g->tc, t));
		return 1;
	}
	return (int64_t)v;
}

/* the k-th engine instruction op may run on (the first if k is out of range) */
static int
nth_engine(const AxOp *op, const AxTarget *t, int k)
{
	int first = -1;
	for (int e = 0; e < t->nengines; e++)
		if (op->engines & (1u << e)) {
			if (first < 0)
				first = e;
			if (k-- == 0)
				return e;
		}
	return first;
}

static NsStmt *
push(Em *e, int kind)
{
	return nest_push(e->ns, kind, e->depth);
}

static void
note(Em *e, int node, int blank, const char *fmt, const char *arg)
{
	NsStmt *s = push(e, NS_NOTE);
	s->node = node;
	s->seq = blank;
	snprintf(s->text, sizeof s->text, fmt, arg);
}

static void
dim_set(NsDim *d, int64_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
dim_set(NsDim *d, int64_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->start, sizeof d->start, fmt, ap);
	va_end(ap);
	d->len = len;
}

/* ---- one instruction ------------------------------------------------------------- */

/* The first on-chip memory an instruction writes (-1: none). */
static int
onchip_mem(const AxTarget *t, const AxOp *op)
{
	for (int m = 0; m < t->nmems && m < 32; m++)
		if ((op->out_mems & (1u << m)) && !t->mems[m].offchip)
			return m;
	return -1;
}

/* ---- loads made once ----------------------------------------------------------------- */

static size_t
key_ref(char *buf, size_t n, const NsRef *r)
{
	size_t k = (size_t)snprintf(buf, n, "|%d:%d:%d", r->var, r->nidx, r->ellipsis);
	for (int d = 0; d < r->nidx && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, ",%s/%lld", r->idx[d].start, (long long)r->idx[d].len);
	return k < n ? k : n;
}

/* The key of an instruction reading only off-chip slices, or nothing (a
 * constant), 0 if it reads a tile on chip. */
static int
load_key(const NsStmt *s, const AxOp *op, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%d/%d/%d", s->inst, s->engine, s->mem);
	for (int a = 0; a < op->nattr && k < n; a++)
		k += (size_t)snprintf(buf + k, n - k, ",%d:%.17g", s->attr[a], s->aval[a]);
	for (int o = 0; o < op->nopnd && k < n; o++) {
		if (s->opnd[o].var == NS_NONE)
			continue;
		if (s->opnd[o].var >= 0)
			return 0;
		k += key_ref(buf + k, n - k, &s->opnd[o]);
	}
	return k < n - 1;
}

static Cse *
cse_find(Em *e, const char *key)
{
	for (int i = e->ncse - 1; i >= 0; i--)
		if (strcmp(e->cse[i].key, key) == 0)
			return &e->cse[i];
	return NULL;
}

static void
cse_add(Em *e, const char *key, const NsRef *val, uint32_t axes)
{
	if (e->ncse == e->capcse) {
		e->capcse = e->capcse ? 2 * e->capcse : 32;
		e->cse = realloc(e->cse, sizeof *e->cse * (size_t)e->capcse);
		if (!e->cse)
			ax_die("out of memory");
	}
	Cse *c = &e->cse[e->ncse++];
	snprintf(c->key, sizeof c->key, "%s", key);
	c->depth = e->depth;
	c->val = *val;
	c->axes = axes;
}

/* Instruction inst over operand refs (NULL: left out) into a new variable
 * in memory mem (-1: its first on-chip one), or written into the off-chip
 * slice dst; its value in *out. */
static void
emit_inst(Em *e, int inst, int engk, const int *attr, Term *const *sattr, const NsRef *const *opnd,
          const NsRef *dst, int mem, NsRef *out)
{
	const AxTarget *t = e->g->t;
	const AxOp *op = &t->insts[inst];
	NsStmt s = { .kind = NS_INST, .depth = e->depth, .node = e->node, .inst = inst, .mem = mem };
	AxConc c = { .nopnd = op->nopnd };
	for (int o = 0; o < op->nopnd; o++) {
		if (opnd[o]) {
			s.opnd[o] = *opnd[o];
			c.rank[o] = opnd[o]->shape.rank;
			memcpy(c.dim[o], opnd[o]->shape.d, sizeof c.dim[o]);
		} else {
			s.opnd[o].var = NS_NONE;
			c.rank[o] = -1;
		}
	}
	for (int a = 0; a < op->nattr; a++) {
		if (op->attr[a].kind == AX_ATTR_ENUM) {
			s.attr[a] = c.attr[a] = attr[a];
			continue;
		}
		double v = 1;
		if (!sattr[a] || t_eval(sattr[a], &e->env, &v) != 0)
			fail_em(e, "cannot evaluate an attribute of %s", op->name);
		if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)v;
		else
			c.fval[a] = v;
		s.aval[a] = v;
	}
	s.engine = c.engine = nth_engine(op, t, engk);
	char err[256];
	if (op->check(&c, &s.shape, err, sizeof err) != 0) {
		fail_em(e, "%s", err);
		return;
	}
	if (s.mem < 0)
		s.mem = onchip_mem(t, op);
	char key[480];
	int loadk = !dst && load_key(&s, op, key, sizeof key);
	if (loadk) {   /* the same load made earlier in an open loop: its tile */
		Cse *c = cse_find(e, key);
		if (c) {
			*out = c->val;
			return;
		}
	}
	s.var = e->ns->nvars++;
	s.out.var = NS_NONE;
	if (dst) {
		s.out = *dst;
		s.mem = -1;
		*out = *dst;
		out->shape = s.shape;
	} else
		*out = ns_var(s.var, &s.shape);
	*push(e, NS_INST) = s;
	if (loadk)
		cse_add(e, key, out, 0);
}

/* A sequence over input refs in[] (no copies): its last value in *out. */
static void
emit_seq(Em *e, const SynthSeq *q, const NsRef *in, NsRef *out)
{
	NsRef iv[8];
	for (int j = 0; j < q->ninsts; j++) {
		const AxOp *op = &e->g->t->insts[q->inst[j]];
		const NsRef *opnd[AX_MAXOPND] = { 0 };
		for (int o = 0; o < op->nopnd; o++) {
			int s = q->src[j][o];
			if (s != SYNTH_OMITTED)
				opnd[o] = s >= 0 ? &iv[s] : &in[-1 - s];
		}
		emit_inst(e, q->inst[j], 0, q->attr[j], q->sattr[j], opnd, NULL, -1, &iv[j]);
	}
	*out = iv[q->ninsts - 1];
}

/* ---- one operation ------------------------------------------------------------------ */

/* The slice of node src's off-chip tensor that operand o of node id reads at
 * the current tile. */
static void
operand_slice(Em *e, int id, int o, const NsDim *axidx, NsRef *r)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	int sid = g->nodes[id].in[o];
	const AxNode *src = &g->nodes[sid];
	AxShape keep = r->shape;
	memset(r, 0, sizeof *r);
	r->shape = keep;
	r->var = -1 - sid;
	r->nidx = src->rank;
	r->ellipsis = src->rank == 0;
	for (int j = 0; j < src->rank; j++) {
		const TileAxisRead *rd = &to->read[o][j];
		if (rd->kind == 1)
			r->idx[j] = axidx[rd->axis];
		else
			dim_set(&r->idx[j], src->dim[j]->kind == TK_NUM && j >= src->rank - 2, "0");
	}
}

/* ---- loop fusion ------------------------------------------------------------------- */

/* Axes a loop nest runs over: loops with more than one index, tile axes cut
 * into more than one tile. */
static int
iterated(Em *e, const TileOp *to, int k)
{
	const TileAxis *ax = &to->ax[k];
	if (!ax->tiled)
		return eval_int(e, ax->extent) > 1;
	return ax->t && !ax->whole && eval_int(e, t_var(e->g->tc, ax->t, TS_INT)) < eval_int(e, ax->extent);
}

static int
seq_axis(const TileOp *to)
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
 * size, a loop in both or in neither, not c's sequential axis); and the
 * loops p needs must be the outermost of c's parallel loops, so that p's
 * tile is made once per iteration of them, before c's other loops (a tile
 * of rsqrt per row block, used by every column tile of the multiply).
 * *kmax gets the last of c's axes p needs (-1: none, p is made once). */
static int
can_fuse(Em *e, int p, int c, int o, int *kmax)
{
	const AxGraph *g = e->g;
	const TileOp *tp = &e->T->op[p], *tq = &e->T->op[c];
	if (tp->kind != TO_COMPUTE || tq->kind != TO_COMPUTE || !e->L[p].nchoices || !e->L[c].nchoices ||
	    seq_axis(tp) >= 0 || graph_readers(g, p) != 1)
		return 0;
	int seqax = seq_axis(tq);
	uint32_t used = 0;
	*kmax = -1;
	for (int k = 0; k < tp->naxes; k++) {
		int j = tp->ax[k].out, it = iterated(e, tp, k);
		const TileAxisRead *r = j >= 0 ? &tq->read[o][j] : NULL;
		if (!r || r->kind != 1) {
			if (it)
				return 0;   /* a loop of p that c does not follow */
			continue;
		}
		const TileAxis *a = &tp->ax[k], *b = &tq->ax[r->axis];
		if (it != iterated(e, tq, r->axis) || eval_int(e, a->extent) != eval_int(e, b->extent))
			return 0;
		if (!it)
			continue;
		if (r->axis == seqax || a->tiled != b->tiled ||
		    (a->tiled && eval_int(e, t_var(g->tc, a->t, TS_INT)) != eval_int(e, t_var(g->tc, b->t, TS_INT))))
			return 0;
		used |= 1u << r->axis;
		if (r->axis > *kmax)
			*kmax = r->axis;
	}
	for (int k = 0; k <= *kmax; k++)   /* p's loops are c's outermost */
		if (k != seqax && iterated(e, tq, k) && !(used & (1u << k)))
			return 0;
	return 1;
}

static void tile_body(Em *e, int id, const NsDim *axidx, NsRef *res);
static NsRef block_tile(Em *e, int buf, uint32_t axes, const AxShape *s);
static void store(Em *e, int id, NsRef *v, const NsRef *dst);

/* The producers fused into c, computed at c's current tile (recursively,
 * their own producers first); their tiles stay on chip. */
static void
emit_producers(Em *e, int c, const NsDim *caxidx)
{
	const AxGraph *g = e->g;
	const AxNode *cn = &g->nodes[c];
	for (int o = 0; o < cn->nin; o++) {
		int p = cn->in[o];
		if (p < 0 || !e->into || e->into[p] != c)
			continue;
		const TileOp *tp = &e->T->op[p];
		NsDim pax[AX_MAXR + 4];
		for (int k = 0; k < tp->naxes; k++) {
			const TileAxis *ax = &tp->ax[k];
			int j = ax->out;
			const TileAxisRead *r = j >= 0 ? &e->T->op[c].read[o][j] : NULL;
			if (iterated(e, tp, k) && r && r->kind == 1)
				pax[k] = caxidx[r->axis];
			else if (!ax->tiled)
				dim_set(&pax[k], 0, "0");
			else
				dim_set(&pax[k], ax->unit ? 1 : eval_int(e, ax->extent), "0");
		}
		note(e, p, 0, "%s, in this loop nest", node_op(g, &g->nodes[p])->name);
		emit_producers(e, p, pax);
		NsRef r;
		int save = e->node;
		e->node = p;
		tile_body(e, p, pax, &r);
		store(e, p, &r, NULL);
		e->node = save;
		e->onchip[p] = r;
	}
}

/* The body of one tile: operand loads, the sequence; returns its value. */
static void
tile_body(Em *e, int id, const NsDim *axidx, NsRef *res)
{
	const AxGraph *g = e->g;
	const AxTarget *t = g->t;
	const TileOp *to = &e->T->op[id];
	const LowerNode *ln = &e->L[id];
	const LowerChoice *ch = &ln->choice[e->choice[id]];
	const SynthSeq *q = &ch->seq;
	const AxNode *nd = &g->nodes[id];
	NsRef in[AX_MAXOPND], iv[8];
	uint32_t fused = 0;      /* inputs already on chip: no copies for them */
	/* the tile's inputs: an off-chip slice, a constant made on chip, or a tile
	 * of a producer in the same loop nest */
	for (int o = 0, p = 0; o < nd->nin; o++) {
		if (nd->in[o] < 0)
			continue;
		NsRef *v = &in[p];
		memset(v, 0, sizeof *v);
		if (graph_shape(to->tile, to->tile->params[p].node, &e->env, &v->shape) != 0)
			fail_em(e, "cannot evaluate the tile of operand %s", to->tile->params[p].name);
		if (e->into && e->into[nd->in[o]] == id) {
			AxShape keep = v->shape;
			*v = e->onchip[nd->in[o]];   /* computed in this loop nest: on chip */
			v->shape = keep;
			fused |= 1u << p;
		} else if (ln->constant[o]) {
			const NsRef *none[AX_MAXOPND] = { 0 };
			int attr[AX_MAXATTR] = { 0 };
			emit_inst(e, ln->const_inst[o], 0, attr, ln->const_sattr[o], none, NULL, -1, v);
		} else
			operand_slice(e, id, o, axidx, v);
		p++;
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
					moved = block_tile(e, e->cur->hoisted[k], e->cur->hoisted_axes[k], &e->cur->hoisted_shape[k]);
				else
					emit_inst(e, m->inst, 0, attr, sattr, mo, NULL, m->to, &moved);
				moved.shape = keep;   /* a replicated load fills the whole tile */
				*v = moved;
			}
			opnd[o] = v;
		}
		if (e->hoist == id && e->cur->hoisted[LOWER_MAXSTEPS + j] >= 0)   /* loaded with its block */
			iv[j] = block_tile(e, e->cur->hoisted[LOWER_MAXSTEPS + j], e->cur->hoisted_axes[LOWER_MAXSTEPS + j],
			                   &e->cur->hoisted_shape[LOWER_MAXSTEPS + j]);
		else
			emit_inst(e, q->inst[j], e->engsel ? e->engsel[id * 8 + j] : 0, q->attr[j], q->sattr[j], opnd, NULL,
			          ch->mem[j], &iv[j]);
	}
	*res = iv[q->ninsts - 1];
}

/* The result's moves, the last into the off-chip slice dst; with dst NULL,
 * only the moves between on-chip memories (a tile a fused consumer reads). */
static void
store(Em *e, int id, NsRef *v, const NsRef *dst)
{
	const AxTarget *t = e->g->t;
	const LowerChoice *ch = &e->L[id].choice[e->choice[id]];
	int last = -1;
	for (int k = 0; k < ch->nmoves; k++)
		if (ch->move[k].before == ch->seq.ninsts)
			last = k;
	for (int k = 0; k < ch->nmoves; k++) {
		const LowerMove *m = &ch->move[k];
		if (m->before != ch->seq.ninsts || (!dst && t->mems[m->to].offchip))
			continue;
		const NsRef *mo[AX_MAXOPND] = { v };
		int attr[AX_MAXATTR] = { 0 };
		Term *sattr[AX_MAXATTR] = { 0 };
		NsRef moved;
		emit_inst(e, m->inst, 0, attr, sattr, mo, k == last ? dst : NULL, m->to, &moved);
		*v = moved;
	}
	if (last < 0 && dst) {   /* already off chip, or no copy declared: a plain store */
		NsStmt *s = push(e, NS_STORE);
		s->node = id;
		s->out = *dst;
		s->src = *v;
	}
}

static void
loop(Em *e, int seq, const char *var, int64_t hi)
{
	NsStmt *s = push(e, NS_LOOP);
	snprintf(s->name, sizeof s->name, "%s", var);
	s->hi = hi;
	s->seq = seq;
	e->depth++;
}

static void
close_to(Em *e, int depth)
{
	while (e->depth > depth) {
		e->depth--;
		push(e, NS_END);
	}
	while (e->ncse && e->cse[e->ncse - 1].depth > e->depth)   /* their loops are closed */
		e->ncse--;
}

/* the result slice of node id: its axes' dims in order */
static void
result_slice(Em *e, int id, const NsDim *idx, NsRef *r)
{
	const AxNode *nd = &e->g->nodes[id];
	AxShape keep = r->shape;
	memset(r, 0, sizeof *r);
	r->shape = keep;
	r->var = -1 - id;
	r->nidx = nd->rank;
	r->ellipsis = nd->rank == 0;
	for (int k = 0; k < nd->rank; k++)
		r->idx[k] = idx[k];
}

/* ---- blocks ---------------------------------------------------------------------- */

/* The node operand o of tile input p of node id, if it is read from an
 * off-chip tensor (not made on chip, not computed in this loop nest). */
static int
offchip_operand(Em *e, int id, int p)
{
	const AxNode *nd = &e->g->nodes[id];
	int o;
	for (o = 0; o < nd->nin; o++)
		if (nd->in[o] >= 0 && p-- == 0)
			break;
	if (o == nd->nin || e->L[id].constant[o] || (e->into && e->into[nd->in[o]] == id))
		return -1;
	return o;
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

/* Loads of a blocked operation: every instruction that reads an operand
 * straight from off chip (a copy the lowering inserted, or an instruction
 * of the sequence itself, such as a transposing load) is made for the whole
 * block at once, ahead of the loops over the tiles of the block, into a
 * buffer indexed by the tile's position in the block along the blocked
 * axes its operands read: the loaded tiles are reused across the block's
 * other axes (a row block of A serves every column tile of B).  Slot k <
 * LOWER_MAXSTEPS is move k; LOWER_MAXSTEPS + j is instruction j. */
static void
block_loads(Em *e, int id, const NsDim *idx)
{
	const AxGraph *g = e->g;
	const AxTarget *t = g->t;
	const TileOp *to = &e->T->op[id];
	const LowerChoice *ch = &e->L[id].choice[e->choice[id]];
	const SynthSeq *q = &ch->seq;
	const AxNode *nd = &g->nodes[id];
	for (int k = 0; k < LOWER_MAXSTEPS + 8; k++) {
		e->cur->hoisted[k] = -1;
		int inst, mem, ins[AX_MAXOPND], nin = 0, slot[AX_MAXOPND], nop;
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
			inst = m->inst, mem = m->to, attr = zattr, sattr = zsattr;
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
			nop = op->nopnd;
		}
		/* the operands' slices, and the blocked axes they read */
		NsRef slice[AX_MAXOPND];
		const NsRef *opnd[AX_MAXOPND] = { 0 };
		uint32_t axes = 0;
		int ok = 1;
		for (int i = 0; i < nin && ok; i++) {
			int o = offchip_operand(e, id, ins[i]);
			if (o < 0) {
				ok = 0;
				break;
			}
			const AxNode *src = &g->nodes[nd->in[o]];
			for (int d = 0; d < src->rank; d++)
				if (to->read[o][d].kind == 1 && e->cur->blk[to->read[o][d].axis] > 1)
					axes |= 1u << to->read[o][d].axis;
			memset(&slice[i], 0, sizeof slice[i]);
			if (graph_shape(to->tile, to->tile->params[ins[i]].node, &e->env, &slice[i].shape) != 0)
				fail_em(e, "cannot evaluate the tile of operand %s", to->tile->params[ins[i]].name);
			operand_slice(e, id, o, idx, &slice[i]);
			opnd[slot[i]] = &slice[i];
		}
		(void)nop;
		if (!ok)
			continue;
		/* the same block load made earlier in an open loop (another operation of this loop nest) */
		char key[480];
		size_t kk = (size_t)snprintf(key, sizeof key, "block %u/%d/%d", axes, inst, mem);
		for (int a = 0; a < t->insts[inst].nattr && kk < sizeof key; a++)
			kk += (size_t)snprintf(key + kk, sizeof key - kk, ",%d:%p", attr[a], (void *)sattr[a]);
		for (int i = 0; i < nin && kk < sizeof key; i++)
			kk += key_ref(key + kk, sizeof key - kk, &slice[i]);
		Cse *c = cse_find(e, key);
		if (c) {
			e->cur->hoisted[k] = c->val.var;
			e->cur->hoisted_axes[k] = c->axes;
			e->cur->hoisted_shape[k] = c->val.shape;
			continue;
		}
		int bufat = e->ns->n, save = e->depth;
		push(e, NS_BUF);
		int buf = e->ns->nvars++;
		NsRef dst;
		memset(&dst, 0, sizeof dst);
		dst.var = buf;
		AxShape bs = { 0 };
		for (int a = 0; a < to->naxes; a++)
			if (axes & (1u << a)) {
				char var[16];
				snprintf(var, sizeof var, "j%d", a);
				loop(e, 0, var, e->cur->blk[a]);
				dim_set(&dst.idx[dst.nidx++], 0, "%s", var);
				bs.d[bs.rank++] = e->cur->blk[a];
			}
		int lead = bs.rank, at = e->ns->n;
		NsRef res;
		emit_inst(e, inst, 0, attr, sattr, opnd, NULL, mem, &res);
		if (e->bad)
			return;
		NsStmt *ld = &e->ns->s[at];
		for (int d = 0; d < ld->shape.rank; d++) {
			bs.d[bs.rank++] = ld->shape.d[d];
			dim_set(&dst.idx[dst.nidx++], ld->shape.d[d], "0");
		}
		dst.shape = ld->shape;
		ld->out = dst;
		NsStmt *bf = &e->ns->s[bufat];
		bf->var = buf;
		bf->node = id;
		bf->mem = ld->mem;
		bf->lead = lead;
		bf->shape = bs;
		ld->mem = -1;
		close_to(e, save);
		e->cur->hoisted[k] = buf;
		e->cur->hoisted_axes[k] = axes;
		e->cur->hoisted_shape[k] = dst.shape;
		NsRef bv = dst;
		bv.var = buf;
		cse_add(e, key, &bv, axes);
	}
}

/* Within the block: the tile of buffer buf at the current block position
 * along axes, its tile dims whole (the buffer's tile shape s). */
static NsRef
block_tile(Em *e, int buf, uint32_t axes, const AxShape *s)
{
	NsRef r;
	memset(&r, 0, sizeof r);
	r.var = buf;
	r.shape = *s;
	for (int a = 0; a < AX_MAXR + 4; a++)
		if (axes & (1u << a)) {
			if (e->cur->blk[a] > 1)
				dim_set(&r.idx[r.nidx++], 0, "j%d", a);
			else
				dim_set(&r.idx[r.nidx++], 0, "0");
		}
	for (int d = 0; d < s->rank; d++)
		dim_set(&r.idx[r.nidx++], s->d[d], "0");
	return r;
}

/* Opens the loops over the tiles of a block. */
static void
inner_loops(Em *e, const TileOp *to)
{
	for (int k = 0; k < to->naxes; k++)
		if (e->cur->blk[k] > 1) {
			char var[16];
			snprintf(var, sizeof var, "j%d", k);
			loop(e, 0, var, e->cur->blk[k]);
		}
}

/* The loop structure of operation id: per axis its extent, tile size and
 * tiles per block (into st->blk); the sequential axis or -1. */
static int
op_axes(Em *e, int id, OpSt *st, int64_t *ext, int64_t *tsz)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	int seqax = seq_axis(to);
	st->id = id;
	st->blocked = 0;
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		ext[k] = eval_int(e, ax->extent);
		tsz[k] = ax->t ? eval_int(e, t_var(g->tc, ax->t, TS_INT)) : ext[k];
		if (ax->tiled && ax->t && ax->red && !ax->whole && k != seqax)
			fail_em(e, "%s: two reductions across tiles", node_op(g, &g->nodes[id])->name);
		/* tiles per block: the class's, the largest divisor of the tile count not above it */
		int64_t want = e->blocks && ax->cls >= 0 ? e->blocks[ax->cls] : 1, n = ext[k] / (tsz[k] ? tsz[k] : 1);
		st->blk[k] = 1;
		if (ax->tiled && ax->t && k != seqax && !ax->unit && n > 1)
			for (int64_t b = want < n ? want : n; b > 1; b--)
				if (n % b == 0) {
					st->blk[k] = (int)b;
					break;
				}
		st->blocked |= st->blk[k] > 1;
	}
	return seqax;
}

/* Operations a and b iterate the same way: the same loops, tiles, blocks and
 * sequential axis, so one loop nest can run both. */
static int
same_loops(Em *e, int a, int b)
{
	const TileOp *ta = &e->T->op[a], *tb = &e->T->op[b];
	if (ta->naxes != tb->naxes || seq_axis(ta) != seq_axis(tb))
		return 0;
	OpSt sa, sb;
	int64_t ea[AX_MAXR + 4], ta_[AX_MAXR + 4], eb[AX_MAXR + 4], tb_[AX_MAXR + 4];
	op_axes(e, a, &sa, ea, ta_);
	op_axes(e, b, &sb, eb, tb_);
	for (int k = 0; k < ta->naxes; k++) {
		const TileAxis *x = &ta->ax[k], *y = &tb->ax[k];
		if (x->tiled != y->tiled || x->unit != y->unit || !x->t != !y->t || (x->red != 0) != (y->red != 0) ||
		    x->whole != y->whole || ea[k] != eb[k] || ta_[k] != tb_[k] || sa.blk[k] != sb.blk[k])
			return 0;
		if (seq_axis(ta) == k && x->red != y->red)
			return 0;
	}
	return 1;
}

/* The first tile of a reduction or scan across tiles (st->acc gets it), or
 * a tile of it after (combined into st->acc); a plain tile written out. */
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
		block_loads(e, id, idx);
	e->hoist = st->blocked ? id : -1;
	inner_loops(e, to);
	if (e->late)
		emit_producers(e, id, idx);
	e->node = id;
	NsRef v, dst;
	tile_body(e, id, idx, &v);
	if (e->bad) {
		e->hoist = -1;
		return;
	}
	if (seqax < 0) {
		result_slice(e, id, idx, &dst);
		store(e, id, &v, &dst);
		e->hoist = -1;
		close_to(e, outer);
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
			AxShape bs = { 0 };
			uint32_t allblk = 0;
			for (int k = 0; k < to->naxes; k++)
				if (st->blk[k] > 1) {
					bs.d[bs.rank++] = st->blk[k];
					allblk |= 1u << k;
				}
			for (int d = 0; d < v.shape.rank; d++)
				bs.d[bs.rank++] = v.shape.d[d];
			bf->var = st->accbuf;
			bf->node = id;
			bf->lead = bs.rank - v.shape.rank;
			bf->shape = bs;
			bf->mem = v.var >= 0 && e->ns->s[e->ns->n - 1].kind == NS_INST ? e->ns->s[e->ns->n - 1].mem : -1;
			st->acc = block_tile(e, st->accbuf, allblk, &v.shape);
			NsStmt *set = push(e, NS_SET);
			set->node = id;
			set->out = st->acc;
			set->src = v;
		}
		if (scan) {
			result_slice(e, id, idx, &dst);
			NsRef w = st->acc;
			store(e, id, &w, &dst);
		}
	} else {
		if (!ln->ncombine) {
			fail_em(e, "%s: no combining sequence for its partial tiles", node_op(g, nd)->name);
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
					dim_set(&c->idx[d], st->acc.shape.d[d], "0");
			}
			dim_set(&c->idx[base + qdim], 1, "%lld", (long long)st->acc.shape.d[qdim] - 1);
			c->shape.d[qdim] = 1;
		}
		NsRef nacc;
		if (to->ax[seqax].red == TR_SUM && e->ns->accumulate) {
			/* a sum accumulates in place (PSUM accumulation of a matrix product's K loop) */
			NsStmt *a = push(e, NS_ACC);
			a->node = id;
			a->out = st->acc;
			a->src = v;
			nacc = st->acc;
		} else
			emit_seq(e, &ln->combine[0], cin, &nacc);
		if (scan) {
			result_slice(e, id, idx, &dst);
			NsRef w = nacc;
			store(e, id, &w, &dst);
		}
		if (nacc.var != st->acc.var) {   /* the running value for the next tile */
			NsStmt *set = push(e, NS_SET);
			set->node = id;
			set->out = st->acc;
			set->src = nacc;
		}
	}
	e->hoist = -1;
	close_to(e, outer);
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
	NsDim idx[AX_MAXR + 4];
	int64_t ext[AX_MAXR + 4], tsz[AX_MAXR + 4];
	OpSt st[8];
	int seqax = -1;
	for (int m = 0; m < n; m++) {
		seqax = op_axes(e, ids[m], &st[m], ext, tsz);
		note(e, ids[m], m == 0, m ? "%s, in the same loop nest" : "%s", node_op(g, &g->nodes[ids[m]])->name);
	}
	e->cur = &st[0];
	e->node = id;
	int firstblk = to->naxes;
	for (int k = 0; k < to->naxes; k++)
		if (st[0].blk[k] > 1 && k < firstblk)
			firstblk = k;
	int pre = e->prefix ? e->prefix[id] : -1;
	e->late = 0;
	if (pre >= firstblk) {   /* the producers need a blocked axis: made per tile */
		e->late = 1;
		pre = -2;
	}
	if (pre == -1)
		for (int m = 0; m < n; m++)
			emit_producers(e, ids[m], idx);   /* made once, before the loops */
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		char var[16];
		if (!ax->tiled) {
			snprintf(var, sizeof var, "l%d", k);
			if (ext[k] > 1)
				loop(e, 0, var, ext[k]);
			dim_set(&idx[k], 0, "%s", ext[k] > 1 ? var : "0");
		} else if (ax->unit)
			dim_set(&idx[k], 1, "0");
		else if (!ax->t)
			dim_set(&idx[k], ext[k], "0");
		else if (k != seqax && st[0].blk[k] > 1) {
			int64_t nb = ext[k] / tsz[k] / st[0].blk[k];
			snprintf(var, sizeof var, "b%d", k);
			if (nb > 1) {
				loop(e, 0, var, nb);
				dim_set(&idx[k], tsz[k], "(%s * %d + j%d) * %lld", var, st[0].blk[k], k, (long long)tsz[k]);
			} else
				dim_set(&idx[k], tsz[k], "j%d * %lld", k, (long long)tsz[k]);
		} else if (k != seqax) {
			snprintf(var, sizeof var, "i%d", k);
			if (ext[k] / tsz[k] > 1) {
				loop(e, 0, var, ext[k] / tsz[k]);
				dim_set(&idx[k], tsz[k], "%s * %lld", var, (long long)tsz[k]);
			} else
				dim_set(&idx[k], tsz[k], "0");
		}
		if (k == pre)
			emit_producers(e, id, idx);   /* once per iteration of the loops they need */
	}
	if (seqax < 0) {
		for (int m = 0; m < n && !e->bad; m++)
			op_tile(e, &st[m], idx, -1, 0);
		close_to(e, save);
		return;
	}
	int64_t T = tsz[seqax], ntile = ext[seqax] / T;
	for (int m = 0; m < n; m++)
		if (st[m].blocked) {
			st[m].accat = e->ns->n;
			push(e, NS_BUF);
			st[m].accbuf = e->ns->nvars++;
		}
	dim_set(&idx[seqax], T, "0");
	for (int m = 0; m < n && !e->bad; m++)
		op_tile(e, &st[m], idx, seqax, 0);
	if (ntile > 1) {
		loop(e, 1, "r", ntile - 1);
		dim_set(&idx[seqax], T, "(r + 1) * %lld", (long long)T);
		for (int m = 0; m < n && !e->bad; m++)
			op_tile(e, &st[m], idx, seqax, 1);
		close_to(e, e->depth - 1);
	}
	if (e->T->op[id].ax[seqax].red != TR_SCAN)
		for (int m = 0; m < n && !e->bad; m++) {   /* the results */
			NsRef dst, w = st[m].acc;
			int d0 = e->depth;
			e->cur = &st[m];
			e->node = ids[m];
			inner_loops(e, &e->T->op[ids[m]]);
			result_slice(e, ids[m], idx, &dst);
			store(e, ids[m], &w, &dst);
			close_to(e, d0);
		}
	close_to(e, save);
}

/* ---- the candidate ------------------------------------------------------------------ */

/* Can node id be written (an untiled or unlowered operation cannot; why)? */
static int
writable(Em *e, int id)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	if (to->kind == TO_UNTILED || (to->kind == TO_COMPUTE && !e->L[id].nchoices)) {
		char msg[300];
		snprintf(msg, sizeof msg, "%s: %s", node_op(g, &g->nodes[id])->name,
		         to->kind == TO_UNTILED ? to->why
		         : e->L[id].unplaced    ? "its sequences use memories no copy instruction of the target connects"
		                                : "no instruction sequence found");
		fail_em(e, "%s", msg);
		return 0;
	}
	return 1;
}

/* Are producers computed inside node id's loop nest? */
static int
has_producers(Em *e, int id)
{
	const AxNode *nd = &e->g->nodes[id];
	for (int o = 0; e->into && o < nd->nin; o++)
		if (nd->in[o] >= 0 && e->into[nd->in[o]] == id)
			return 1;
	return 0;
}

Nest *
nest_build(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const int *blocks,
           const AxEnv *env, int fuse, int *nfused, char *why, size_t nwhy)
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
	         .nwhy = nwhy, .node = -1, .blocks = blocks, .hoist = -1 };
	for (int i = 0; i < g->nsyms; i++) {
		NsStmt *s = push(&e, NS_SIZE);
		snprintf(s->name, sizeof s->name, "%s", g->syms[i]);
		s->hi = eval_int(&e, t_var(g->tc, g->syms[i], TS_INT));
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
		for (int id = 0; id < g->nnodes; id++)
			into[id] = -1;
		for (int c = 0; c < g->nnodes; c++) {
			prefix[c] = -1;
			for (int o = 0; o < g->nodes[c].nin; o++) {
				int p = g->nodes[c].in[o], kmax;
				if (p >= 0 && can_fuse(&e, p, c, o, &kmax)) {
					into[p] = c;
					if (kmax > prefix[c])
						prefix[c] = kmax;
					(*nfused)++;
				}
			}
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
			NsStmt *s = push(&e, NS_VIEW);
			s->node = id;
			continue;
		}
		/* the operations after it that can share its loop nest */
		int ids[8], n = 0, next = id + 1;
		ids[n++] = id;
		for (int k = id + 1; fuse && k < g->nnodes && n < 8; k++) {
			const TileOp *tk = &T->op[k];
			if (tk->kind == TO_INPUT || tk->kind == TO_CONST)
				continue;
			if (tk->kind != TO_COMPUTE || (e.into && e.into[k] >= 0) || !writable(&e, k) || has_producers(&e, k) ||
			    has_producers(&e, id) || !same_loops(&e, id, k))
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
			NsStmt *s = push(&e, NS_TENSOR);
			s->node = ids[m];
			if (graph_shape(g, ids[m], &e.env, &s->shape) != 0)
				fail_em(&e, "cannot evaluate the shape of %s", node_op(g, nd)->name);
			for (int k = 0; k < g->noutputs; k++)
				s->output |= g->outputs[k] == ids[m];
		}
		emit_group(&e, ids, n);
		if (n > 1) {
			*nfused += n - 1;
			id = next - 1;
		}
	}
	free(onchip);
	free(e.cse);
	if (e.bad) {
		nest_free(ns);
		return NULL;
	}
	return ns;
}

char *
emit_nki(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const AxEnv *env, int fuse,
         int *nfused, NkiFootprint *fp, const char *name, char *why, size_t nwhy)
{
	*fp = (NkiFootprint){ .fits = 1 };
	Nest *ns = nest_build(T, L, choice, engsel, NULL, env, fuse, nfused, why, nwhy);
	if (!ns)
		return NULL;
	nest_room(ns, fp);
	char *src = nest_nki(ns, name, why, nwhy);
	nest_free(ns);
	if (!src)
		return NULL;
	char *r = arena_strdup(tc_arena(T->g->tc), src);
	free(src);
	return r;
}

/* ---- tile sizes ------------------------------------------------------------------- */

/* Per tile parameter of the chosen sequences, the largest divisor of its axis
 * that the sequence's limits (and its combining sequence's) allow; appended
 * to the environment names/vals (cap entries at most).  0 = ok. */
int
nki_tile_sizes(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const char **names,
               double *vals, int *n, int cap, int64_t maxtile, char *why, size_t nwhy)
{
	const AxGraph *g = T->g;
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &T->op[id];
		if (to->kind != TO_COMPUTE || !L[id].nchoices)
			continue;
		const SynthSeq *q = &L[id].choice[choice[id]].seq;
		/* the sequence's preconditions on the chosen engines */
		AxGraph *h = graph_new(g->t, g->tc);
		int node[8], in[AX_MAXOPND];
		for (int p = 0; p < to->tile->nparams; p++) {
			AxNode x = to->tile->nodes[to->tile->params[p].node];
			in[p] = graph_add(h, &x);
		}
		Term *limit = t_bool(g->tc, 1);
		for (int j = 0; j < q->ninsts; j++) {
			const AxOp *op = &g->t->insts[q->inst[j]];
			int opnd[AX_MAXOPND];
			for (int o = 0; o < AX_MAXOPND; o++) {
				int s = q->src[j][o];
				opnd[o] = s == SYNTH_OMITTED ? -1 : s >= 0 ? node[s] : in[-1 - s];
			}
			Term *pre;
			node[j] = graph_add_inst(h, q->inst[j], nth_engine(op, g->t, engsel ? engsel[id * 8 + j] : 0), q->attr[j],
			                         q->sattr[j], opnd, &pre);
			limit = t_bin(g->tc, TK_AND, limit, pre);
		}
		int base = *n;
		for (int k = 0; k < to->naxes; k++)
			if (to->ax[k].t && *n < cap) {
				names[*n] = to->ax[k].t;
				vals[(*n)++] = 1;
			}
		for (int k = 0, p = base; k < to->naxes; k++) {
			if (!to->ax[k].t)
				continue;
			AxEnv env = { *n, names, vals };
			double ext;
			if (t_eval(to->ax[k].extent, &env, &ext) != 0) {
				snprintf(why, nwhy, "cannot evaluate the extent of %s", to->ax[k].t);
				return -1;
			}
			for (int64_t d = (int64_t)ext; d >= 1; d--) {
				if ((int64_t)ext % d || (maxtile > 0 && d > maxtile && d > 1))
					continue;
				vals[p] = (double)d;
				double ok1 = 1, ok2 = 1;
				if (t_eval(limit, &env, &ok1) != 0)
					ok1 = 1;
				if (L[id].ncombine && L[id].combine[0].limit && t_eval(L[id].combine[0].limit, &env, &ok2) != 0)
					ok2 = 1;
				if (ok1 != 0 && ok2 != 0)
					break;
			}
			p++;
		}
	}
	return 0;
}
