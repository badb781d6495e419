/*
 * emit_nki.c — one candidate as a kernel, written from the target's
 * templates (paper section 3.6).
 *
 * A candidate is a variant, one lowered sequence per tile operation, and a
 * concrete size for every tile parameter.  Each operation becomes its own
 * loop nest (parallel loops over its loop axes and tiles, a sequential loop
 * over the tiles of a reduction or a scan, the first tile peeled so that the
 * partial results combine through the synthesized combining sequence), its
 * operands read from off-chip tensors and its result written back: the
 * unfused form.  Every instruction, copy and buffer is printed through a
 * template of the target's specs (its `emit` string or a kernel template:
 * header, kernel, buffer, output, loop_parallel, loop_sequential, store,
 * engine_ref, dtype_*); views are printed as NumPy expressions over the
 * off-chip tensors.  Tile sizes divide their axes (clean splits).  Loop
 * fusion: a producer whose only reader has the same loops and tiles (and
 * neither reduces across tiles) is computed inside the reader's loop nest,
 * its tile passed on chip instead of through an off-chip tensor.
 */
#include <string.h>
#include "axon.h"

typedef struct Val {
	char text[256];          /* a variable, or an off-chip slice expression */
	AxShape shape;
} Val;

typedef struct Em {
	const AxGraph *g;
	const AxTiling *T;
	const LowerNode *L;
	const int *choice;
	const int *engsel;       /* [node * 8 + j]: which of instruction j's engines (NULL: each its first) */
	AxEnv env;               /* sizes, scalar parameters, tile sizes */
	FILE *f;
	int depth;               /* indentation, 4 spaces a level */
	int nvar;
	int *into;               /* loop fusion: per node, the consumer whose loop nest computes it, or -1 */
	int64_t use[32], units[32];   /* per memory, in the loop nest being written: bytes per partition, banks */
	NkiFootprint *fp;        /* the largest over the loop nests */
	Val *onchip;             /* ... and its tile there, at the current iteration */
	int *prefix;             /* per reader: after which of its axes its fused producers are made */
	char *why;
	size_t nwhy;
	int bad;
} Em;

static const char *
tmpl(const AxTarget *t, const char *name)
{
	for (int i = 0; i < t->ntemplates; i++)
		if (strcmp(t->templates[i].name, name) == 0)
			return t->templates[i].text;
	return NULL;
}

static void
fail_em(Em *e, const char *msg, const char *arg)
{
	if (!e->bad)
		snprintf(e->why, e->nwhy, msg, arg);
	e->bad = 1;
}

/* text with every {key} replaced by its value (unknown keys stay) */
static void
fill(FILE *f, const char *text, const char *const *keys, const char *const *vals, int n)
{
	for (const char *p = text; *p; p++) {
		if (*p == '{') {
			const char *e = strchr(p, '}');
			int k;
			for (k = 0; e && k < n; k++)
				if (strlen(keys[k]) == (size_t)(e - p - 1) && strncmp(keys[k], p + 1, (size_t)(e - p - 1)) == 0)
					break;
			if (e && k < n) {
				fputs(vals[k], f);
				p = e;
				continue;
			}
		}
		fputc(*p, f);
	}
}

static void
line_start(Em *e)
{
	for (int i = 0; i < e->depth; i++)
		fputs("    ", e->f);
}

/* one template as a statement line */
static void
stmt(Em *e, const char *name, const char *const *keys, const char *const *vals, int n)
{
	const char *t = tmpl(e->g->t, name);
	if (!t) {
		fail_em(e, "the target has no '%s' template", name);
		return;
	}
	line_start(e);
	fill(e->f, t, keys, vals, n);
	fputc('\n', e->f);
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

static const char *
dtype(Em *e)
{
	const char *t = tmpl(e->g->t, "dtype_f32");
	if (!t)
		fail_em(e, "the target has no '%s' template", "dtype_f32");
	return t ? t : "";
}

static void
shape_text(const AxShape *s, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "(");
	for (int d = 0; d < s->rank && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%lld%s", (long long)s->d[d], s->rank == 1 || d + 1 < s->rank ? ", " : "");
	if (k < n)
		snprintf(buf + k, n - k, ")");
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

/* ---- one instruction ------------------------------------------------------------- */

/* Emits instruction inst over operand values (NULL: left out) into a new
 * variable; its value in *out. */
static void
emit_inst(Em *e, int inst, int engk, const int *attr, Term *const *sattr, const Val *const *opnd,
          const char *dst_offchip, Val *out)
{
	const AxTarget *t = e->g->t;
	const AxOp *op = &t->insts[inst];
	const char *keys[AX_MAXOPND + AX_MAXATTR + 2], *vals[AX_MAXOPND + AX_MAXATTR + 2];
	char buf[AX_MAXOPND + AX_MAXATTR + 2][64];
	int n = 0;
	AxConc c = { .nopnd = op->nopnd };
	for (int o = 0; o < op->nopnd; o++) {
		keys[n] = op->opnd[o].name;
		if (opnd[o]) {
			vals[n++] = opnd[o]->text;
			c.rank[o] = opnd[o]->shape.rank;
			memcpy(c.dim[o], opnd[o]->shape.d, sizeof c.dim[o]);
		} else {
			snprintf(buf[n], sizeof buf[n], "%.9g", op->opnd[o].defval);
			vals[n] = buf[n];
			n++;
			c.rank[o] = -1;
		}
	}
	for (int a = 0; a < op->nattr; a++) {
		keys[n] = op->attr[a].name;
		if (op->attr[a].kind == AX_ATTR_ENUM) {
			vals[n++] = t->enums[op->attr[a].enum_id].items[attr[a]];
			c.attr[a] = attr[a];
			continue;
		}
		double v = 1;
		if (!sattr[a] || t_eval(sattr[a], &e->env, &v) != 0)
			fail_em(e, "cannot evaluate an attribute of %s", op->name);
		if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)v;
		else
			c.fval[a] = v;
		snprintf(buf[n], sizeof buf[n], op->attr[a].kind == AX_ATTR_SIZE ? "%.0f" : "%.9g", v);
		vals[n] = buf[n];
		n++;
	}
	int eng = nth_engine(op, t, engk);
	c.engine = eng;
	char engbuf[64] = "";
	const char *er = tmpl(t, "engine_ref");
	if (er && eng >= 0) {
		FILE *m = fmemopen(engbuf, sizeof engbuf, "w");
		const char *k1[] = { "name" }, *v1[] = { t->engines[eng].name };
		fill(m, er, k1, v1, 1);
		fclose(m);
	}
	keys[n] = "engine";
	vals[n++] = engbuf;
	char err[256];
	if (op->check(&c, &out->shape, err, sizeof err) != 0) {
		fail_em(e, "%s", err);
		return;
	}
	snprintf(out->text, sizeof out->text, "v%d", e->nvar++);
	int writes_out = op->emit && strstr(op->emit, "{out}");
	if (!op->emit) {
		fail_em(e, "instruction %s has no emit template", op->name);
		return;
	}
	/* its tile's room in the on-chip memory it is written to */
	for (int m = 0; m < t->nmems && m < 32 && !(writes_out && dst_offchip); m++)
		if ((op->out_mems & (1u << m)) && !t->mems[m].offchip) {
			int64_t per = 4;
			for (int d = 1; d < out->shape.rank; d++)
				per *= out->shape.d[d];
			e->use[m] += per;
			if (t->mems[m].banks > 0) {
				int64_t bank = t->mems[m].bytes / t->mems[m].banks;
				e->units[m] += bank > 0 ? (per + bank - 1) / bank : 1;
			}
			break;
		}
	if (writes_out && dst_offchip) {
		snprintf(out->text, sizeof out->text, "%s", dst_offchip);
	} else if (writes_out) {
		char sh[64];
		shape_text(&out->shape, sh, sizeof sh);
		const char *memname = "";
		for (int m = 0; m < t->nmems; m++)
			if ((op->out_mems & (1u << m)) && !t->mems[m].offchip) {
				memname = t->mems[m].name;
				break;
			}
		const char *k2[] = { "name", "shape", "dtype", "memory", "partitions" };
		const char *v2[] = { out->text, sh, dtype(e), memname, "" };
		stmt(e, "buffer", k2, v2, 5);
	}
	keys[n] = "out";
	vals[n++] = out->text;
	line_start(e);
	if (!writes_out)
		fprintf(e->f, "%s = ", out->text);
	fill(e->f, op->emit, keys, vals, n);
	fputc('\n', e->f);
}

/* base[idx0, idx1, ...] (base[...] for rank 0) */
static void
slice_text(const char *base, int rank, const char *const *idx, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s[", base);
	for (int d = 0; d < rank && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", d ? ", " : "", idx[d]);
	if (k < n)
		snprintf(buf + k, n - k, "%s]", rank ? "" : "...");
}

/* A sequence over input values in[] (no copies): its last value in *out. */
static void
emit_seq(Em *e, const SynthSeq *q, const Val *in, Val *out)
{
	Val iv[8];
	for (int j = 0; j < q->ninsts; j++) {
		const AxOp *op = &e->g->t->insts[q->inst[j]];
		const Val *opnd[AX_MAXOPND] = { 0 };
		for (int o = 0; o < op->nopnd; o++) {
			int s = q->src[j][o];
			if (s != SYNTH_OMITTED)
				opnd[o] = s >= 0 ? &iv[s] : &in[-1 - s];
		}
		emit_inst(e, q->inst[j], 0, q->attr[j], q->sattr[j], opnd, NULL, &iv[j]);
	}
	*out = iv[q->ninsts - 1];
}

/* ---- one operation ------------------------------------------------------------------ */

/* The slice of node src's off-chip tensor that operand o of node id reads at
 * the current tile: per dim an index or a range. */
static void
operand_slice(Em *e, int id, int o, const char *const *axidx, const char *base, char *buf, size_t n)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	const AxNode *src = &g->nodes[g->nodes[id].in[o]];
	size_t k = (size_t)snprintf(buf, n, "%s[", base);
	for (int j = 0; j < src->rank && k < n; j++) {
		const TileAxisRead *r = &to->read[o][j];
		const char *s;
		char tmp[96];
		if (r->kind == 1)
			s = axidx[r->axis];
		else {
			int kept = src->dim[j]->kind == TK_NUM && j >= src->rank - 2;
			s = kept ? "0:1" : "0";
			(void)tmp;
		}
		k += (size_t)snprintf(buf + k, n - k, "%s%s", j ? ", " : "", s);
	}
	if (src->rank == 0 && k < n)
		k += (size_t)snprintf(buf + k, n - k, "...");
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

/* The names of every node's off-chip tensor. */
static const char *
tensor_name(Em *e, int id, char *buf, size_t n)
{
	const AxNode *nd = &e->g->nodes[id];
	if (nd->op < 0)
		snprintf(buf, n, "%s", e->g->params[nd->input].name);
	else
		snprintf(buf, n, "t%d", id);
	return buf;
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
crosses_tiles(const TileOp *to)
{
	for (int k = 0; k < to->naxes; k++)
		if (to->ax[k].tiled && to->ax[k].t && to->ax[k].red && !to->ax[k].whole)
			return 1;
	return 0;
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
	    crosses_tiles(tp) || graph_readers(g, p) != 1)
		return 0;
	int seqax = -1;
	for (int k = 0; k < tq->naxes; k++)
		if (tq->ax[k].tiled && tq->ax[k].t && tq->ax[k].red && !tq->ax[k].whole)
			seqax = k;
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

static void tile_body(Em *e, int id, const char *const *axidx, Val *res);
static void store(Em *e, int id, Val *v, const char *dst);

/* The producers fused into c, computed at c's current tile (recursively,
 * their own producers first); their tiles stay on chip. */
static void
emit_producers(Em *e, int c, const char *const *caxidx)
{
	const AxGraph *g = e->g;
	const AxNode *cn = &g->nodes[c];
	for (int o = 0; o < cn->nin; o++) {
		int p = cn->in[o];
		if (p < 0 || !e->into || e->into[p] != c)
			continue;
		const TileOp *tp = &e->T->op[p];
		char own[AX_MAXR + 4][48];
		const char *pax[AX_MAXR + 4];
		for (int k = 0; k < tp->naxes; k++) {
			const TileAxis *ax = &tp->ax[k];
			int j = ax->out;
			const TileAxisRead *r = j >= 0 ? &e->T->op[c].read[o][j] : NULL;
			if (iterated(e, tp, k) && r && r->kind == 1) {
				pax[k] = caxidx[r->axis];
				continue;
			}
			if (!ax->tiled)
				snprintf(own[k], sizeof own[k], "0");
			else if (ax->unit)
				snprintf(own[k], sizeof own[k], "0:1");
			else
				snprintf(own[k], sizeof own[k], "0:%lld", (long long)eval_int(e, ax->extent));
			pax[k] = own[k];
		}
		line_start(e);
		fprintf(e->f, "# %%%d %s, in this loop nest\n", p, node_op(g, &g->nodes[p])->name);
		emit_producers(e, p, pax);
		Val r;
		tile_body(e, p, pax, &r);
		store(e, p, &r, NULL);
		e->onchip[p] = r;
	}
}

/* The body of one tile: operand loads, the sequence, returns its value. */
static void
tile_body(Em *e, int id, const char *const *axidx, Val *res)
{
	const AxGraph *g = e->g;
	const AxTarget *t = g->t;
	const TileOp *to = &e->T->op[id];
	const LowerNode *ln = &e->L[id];
	const LowerChoice *ch = &ln->choice[e->choice[id]];
	const SynthSeq *q = &ch->seq;
	const AxNode *nd = &g->nodes[id];
	Val in[AX_MAXOPND], iv[8];
	uint32_t fused = 0;      /* inputs already on chip: no copies for them */
	/* the tile's inputs: an off-chip slice, a constant made on chip, or a tile
	 * of a producer in the same loop nest */
	for (int o = 0, p = 0; o < nd->nin; o++) {
		if (nd->in[o] < 0)
			continue;
		Val *v = &in[p];
		if (graph_shape(to->tile, to->tile->params[p].node, &e->env, &v->shape) != 0)
			fail_em(e, "cannot evaluate the tile of operand %s", to->tile->params[p].name);
		if (e->into && e->into[nd->in[o]] == id) {
			AxShape keep = v->shape;
			*v = e->onchip[nd->in[o]];   /* computed in this loop nest: on chip */
			v->shape = keep;
			fused |= 1u << p;
		} else if (ln->constant[o]) {
			Val *none[AX_MAXOPND] = { 0 };
			int attr[AX_MAXATTR] = { 0 };
			emit_inst(e, ln->const_inst[o], 0, attr, ln->const_sattr[o], (const Val *const *)none, NULL, v);
		} else {
			char nm[32];
			operand_slice(e, id, o, axidx, tensor_name(e, nd->in[o], nm, sizeof nm), v->text, sizeof v->text);
		}
		p++;
	}
	for (int j = 0; j < q->ninsts; j++) {
		const AxOp *op = &t->insts[q->inst[j]];
		const Val *opnd[AX_MAXOPND] = { 0 };
		for (int o = 0; o < op->nopnd; o++) {
			int s = q->src[j][o];
			if (s == SYNTH_OMITTED)
				continue;
			Val *v = s >= 0 ? &iv[s] : &in[-1 - s];
			for (int k = 0; k < ch->nmoves && !(s < 0 && (fused & (1u << (-1 - s)))); k++) {
				const LowerMove *m = &ch->move[k];
				if (m->before != j || m->opnd != o)
					continue;
				Val moved;
				const Val *mo[AX_MAXOPND] = { v };
				int attr[AX_MAXATTR] = { 0 };
				Term *sattr[AX_MAXATTR] = { 0 };
				AxShape keep = v->shape;
				emit_inst(e, m->inst, 0, attr, sattr, mo, NULL, &moved);
				moved.shape = keep;   /* a replicated load fills the whole tile */
				*v = moved;
			}
			opnd[o] = v;
		}
		emit_inst(e, q->inst[j], e->engsel ? e->engsel[id * 8 + j] : 0, q->attr[j], q->sattr[j], opnd, NULL, &iv[j]);
	}
	*res = iv[q->ninsts - 1];
}

/* The result's moves, the last into the off-chip slice dst; with dst NULL,
 * only the moves between on-chip memories (a tile a fused consumer reads). */
static void
store(Em *e, int id, Val *v, const char *dst)
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
		const Val *mo[AX_MAXOPND] = { v };
		int attr[AX_MAXATTR] = { 0 };
		Term *sattr[AX_MAXATTR] = { 0 };
		Val moved;
		emit_inst(e, m->inst, 0, attr, sattr, mo, k == last ? dst : NULL, &moved);
		*v = moved;
	}
	if (last < 0 && dst) {   /* already off chip, or no copy declared: the store template */
		const char *k2[] = { "dst", "src" }, *v2[] = { dst, v->text };
		stmt(e, "store", k2, v2, 2);
	}
}

static void
loop(Em *e, const char *kind, const char *var, int64_t hi)
{
	char h[32];
	snprintf(h, sizeof h, "%lld", (long long)hi);
	const char *k[] = { "var", "hi", "lo", "step" }, *v[] = { var, h, "0", "1" };
	stmt(e, kind, k, v, 4);
	e->depth++;
}

/* The loop nest just written: its room, the largest so far kept. */
static void
record_room(Em *e)
{
	const AxTarget *t = e->g->t;
	for (int m = 0; m < t->nmems && m < 32; m++) {
		if (e->use[m] > e->fp->bytes[m])
			e->fp->bytes[m] = e->use[m];
		if (e->units[m] > e->fp->banks[m])
			e->fp->banks[m] = e->units[m];
		if (e->use[m] > t->mems[m].bytes || (t->mems[m].banks > 0 && e->units[m] > t->mems[m].banks))
			e->fp->fits = 0;
		e->use[m] = e->units[m] = 0;
	}
}

/* One operation's loop nest. */
static void
emit_op(Em *e, int id)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	const LowerNode *ln = &e->L[id];
	const AxNode *nd = &g->nodes[id];
	int save = e->depth;
	char idx[AX_MAXR + 4][96], first[AX_MAXR + 4][96];
	const char *axidx[AX_MAXR + 4];
	int64_t ext[AX_MAXR + 4], tsz[AX_MAXR + 4];
	int seqax = -1;
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		ext[k] = eval_int(e, ax->extent);
		tsz[k] = ax->t ? eval_int(e, t_var(g->tc, ax->t, TS_INT)) : ext[k];
		if (ax->tiled && ax->t && ax->red && !ax->whole) {
			if (seqax >= 0)
				fail_em(e, "%s: two reductions across tiles", node_op(g, nd)->name);
			seqax = k;
		}
	}
	fputc('\n', e->f);
	line_start(e);
	fprintf(e->f, "# %%%d %s\n", id, node_op(g, nd)->name);
	int pre = e->prefix ? e->prefix[id] : -1;
	if (pre < 0)
		emit_producers(e, id, axidx);   /* made once, before the loops */
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		char var[16];
		if (!ax->tiled) {
			snprintf(var, sizeof var, "l%d", k);
			if (ext[k] > 1)
				loop(e, "loop_parallel", var, ext[k]);
			snprintf(idx[k], sizeof idx[k], "%s", ext[k] > 1 ? var : "0");
		} else if (ax->unit)
			snprintf(idx[k], sizeof idx[k], "0:1");
		else if (!ax->t)
			snprintf(idx[k], sizeof idx[k], "0:%lld", (long long)ext[k]);
		else if (k != seqax) {
			snprintf(var, sizeof var, "i%d", k);
			if (ext[k] / tsz[k] > 1) {
				loop(e, "loop_parallel", var, ext[k] / tsz[k]);
				snprintf(idx[k], sizeof idx[k], "%s * %lld:%s * %lld + %lld", var, (long long)tsz[k], var,
				         (long long)tsz[k], (long long)tsz[k]);
			} else
				snprintf(idx[k], sizeof idx[k], "0:%lld", (long long)tsz[k]);
		}
		axidx[k] = idx[k];
		if (k == pre)
			emit_producers(e, id, axidx);   /* once per iteration of the loops they need */
	}
	char out[32], dst[256];
	tensor_name(e, id, out, sizeof out);
	/* the result slice: result axes in order */
	const char *ridx[AX_MAXR];
	for (int k = 0; k < nd->rank; k++)
		ridx[k] = idx[k];
	if (seqax < 0) {
		Val r;
		tile_body(e, id, axidx, &r);
		slice_text(out, nd->rank, ridx, dst, sizeof dst);
		store(e, id, &r, dst);
		e->depth = save;
		return;
	}
	/* a reduction or scan across tiles: the first tile, then the others in order */
	int scan = to->ax[seqax].red == TR_SCAN;
	int64_t T = tsz[seqax], ntile = ext[seqax] / T;
	snprintf(first[seqax], sizeof first[seqax], "0:%lld", (long long)T);
	axidx[seqax] = first[seqax];
	Val acc;
	tile_body(e, id, axidx, &acc);
	/* the tile's result dim along the scan axis (result tiled axes in order) */
	int qdim = 0;
	for (int k = 0; k < seqax; k++)
		qdim += k < nd->rank && to->ax[k].tiled;
	if (scan) {
		ridx[seqax] = first[seqax];
		slice_text(out, nd->rank, ridx, dst, sizeof dst);
		Val st = acc;
		store(e, id, &st, dst);
	}
	if (ntile > 1) {
		loop(e, "loop_sequential", "r", ntile - 1);
		snprintf(idx[seqax], sizeof idx[seqax], "(r + 1) * %lld:(r + 1) * %lld + %lld", (long long)T, (long long)T,
		         (long long)T);
		axidx[seqax] = idx[seqax];
		Val part;
		tile_body(e, id, axidx, &part);
		if (!ln->ncombine) {
			fail_em(e, "%s: no combining sequence for its partial tiles", node_op(g, nd)->name);
			e->depth = save;
			return;
		}
		const SynthSeq *cq = &ln->combine[0];
		Val cin[2];
		cin[0] = scan ? part : acc;
		cin[1] = scan ? acc : part;
		if (scan) {   /* the carry: the last column of the tile before */
			char c2[200];
			size_t m = (size_t)snprintf(c2, sizeof c2, "%s[", acc.text);
			for (int d = 0; d < acc.shape.rank; d++) {
				if (d == qdim)
					m += (size_t)snprintf(c2 + m, sizeof c2 - m, "%s%lld:%lld", d ? ", " : "",
					                      (long long)acc.shape.d[d] - 1, (long long)acc.shape.d[d]);
				else
					m += (size_t)snprintf(c2 + m, sizeof c2 - m, "%s:", d ? ", " : "");
			}
			snprintf(c2 + m, sizeof c2 - m, "]");
			memcpy(cin[1].text, c2, sizeof c2);
			cin[1].shape = acc.shape;
			cin[1].shape.d[qdim] = 1;
		}
		Val nacc;
		if (to->ax[seqax].red == TR_SUM && tmpl(g->t, "accumulate")) {
			/* a sum accumulates in place (the target's accumulate template: PSUM accumulation) */
			const char *k2[] = { "dst", "src" }, *v2[] = { acc.text, part.text };
			stmt(e, "accumulate", k2, v2, 2);
			nacc = acc;
		} else
			emit_seq(e, cq, cin, &nacc);
		if (scan) {
			ridx[seqax] = idx[seqax];
			slice_text(out, nd->rank, ridx, dst, sizeof dst);
			Val st = nacc;
			store(e, id, &st, dst);
		}
		if (strcmp(acc.text, nacc.text) != 0) {
			line_start(e);
			fprintf(e->f, "%s = %s\n", acc.text, nacc.text);   /* the running value for the next tile */
		}
		e->depth--;
	}
	if (!scan) {
		slice_text(out, nd->rank, ridx, dst, sizeof dst);
		store(e, id, &acc, dst);
	}
	e->depth = save;
}

/* ---- the kernel ------------------------------------------------------------------- */

char *
emit_nki(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const AxEnv *env, int fuse,
         int *nfused, NkiFootprint *fp, const char *name, char *why, size_t nwhy)
{
	const AxGraph *g = T->g;
	char *body = NULL, *all = NULL;
	size_t blen = 0, alen = 0;
	Em e = { .g = g, .T = T, .L = L, .choice = choice, .engsel = engsel, .env = *env, .depth = 1, .why = why,
	         .nwhy = nwhy, .fp = fp };
	*fp = (NkiFootprint){ .fits = 1 };
	e.f = open_memstream(&body, &blen);
	if (!e.f)
		ax_die("out of memory");
	for (int i = 0; i < g->nsyms; i++) {
		line_start(&e);
		fprintf(e.f, "%s = %lld\n", g->syms[i], (long long)eval_int(&e, t_var(g->tc, g->syms[i], TS_INT)));
	}
	/* loop fusion: a producer runs in the loop nest of its only reader when their loops match */
	*nfused = 0;
	if (fuse) {
		e.into = arena_alloc(tc_arena(g->tc), sizeof(int) * (size_t)(g->nnodes + 1));
		e.onchip = arena_alloc(tc_arena(g->tc), sizeof(Val) * (size_t)(g->nnodes + 1));
		for (int id = 0; id < g->nnodes; id++)
			e.into[id] = -1;
		e.prefix = arena_alloc(tc_arena(g->tc), sizeof(int) * (size_t)(g->nnodes + 1));
		for (int c = 0; c < g->nnodes; c++) {
			e.prefix[c] = -1;
			for (int o = 0; o < g->nodes[c].nin; o++) {
				int p = g->nodes[c].in[o], kmax;
				if (p >= 0 && can_fuse(&e, p, c, o, &kmax)) {
					e.into[p] = c;
					if (kmax > e.prefix[c])
						e.prefix[c] = kmax;
					(*nfused)++;
				}
			}
		}
	}
	for (int id = 0; id < g->nnodes && !e.bad; id++) {
		const AxNode *nd = &g->nodes[id];
		const TileOp *to = &T->op[id];
		if (to->kind == TO_INPUT || to->kind == TO_CONST)
			continue;
		if (to->kind == TO_UNTILED || (to->kind == TO_COMPUTE && !L[id].nchoices)) {
			char msg[300];
			snprintf(msg, sizeof msg, "%s: %s", node_op(g, nd)->name,
			         to->kind == TO_UNTILED ? to->why
			         : L[id].unplaced       ? "its sequences use memories no copy instruction of the target connects"
			                                : "no instruction sequence found");
			fail_em(&e, "%s", msg);
			break;
		}
		if (e.into && e.into[id] >= 0)
			continue;   /* computed inside its reader's loop nest */
		char nm[32];
		tensor_name(&e, id, nm, sizeof nm);
		if (to->kind == TO_VIEW) {
			char a[AX_MAXOPND][16];
			for (int o = 0; o < nd->nin; o++)
				tensor_name(&e, nd->in[o], a[o], sizeof a[o]);
			line_start(&e);
			fprintf(e.f, "%s = ", nm);
			char w[128];
			if (node_numpy(e.f, g, id, a, w, sizeof w) != 0)
				fail_em(&e, "%s", w);
			fputc('\n', e.f);
			continue;
		}
		AxShape s;
		if (graph_shape(g, id, &e.env, &s) != 0)
			fail_em(&e, "cannot evaluate the shape of %s", node_op(g, nd)->name);
		char sh[96];
		shape_text(&s, sh, sizeof sh);
		int is_out = 0;
		for (int k = 0; k < g->noutputs; k++)
			is_out |= g->outputs[k] == id;
		const char *memname = "";
		for (int m = 0; m < g->t->nmems; m++)
			if (g->t->mems[m].offchip) {
				memname = g->t->mems[m].name;
				break;
			}
		const char *k2[] = { "name", "shape", "dtype", "memory", "partitions" };
		const char *v2[] = { nm, sh, dtype(&e), memname, "" };
		stmt(&e, is_out && tmpl(g->t, "output") ? "output" : "buffer", k2, v2, 5);
		emit_op(&e, id);
		record_room(&e);
	}
	fclose(e.f);
	if (e.bad) {
		free(body);
		return NULL;
	}
	/* the skeleton: header, then the kernel with its parameters and outputs */
	FILE *f = open_memstream(&all, &alen);
	char params[512] = "", outs[256] = "";
	size_t pk = 0, ok = 0;
	for (int p = 0; p < g->nparams && pk < sizeof params - 64; p++) {
		if (g->params[p].tensor)
			pk += (size_t)snprintf(params + pk, sizeof params - pk, "%s%s", pk ? ", " : "", g->params[p].name);
		else
			pk += (size_t)snprintf(params + pk, sizeof params - pk, "%s%s=%.17g", pk ? ", " : "", g->params[p].name,
			                       g->params[p].defval);
	}
	for (int k = 0; k < g->noutputs; k++) {
		char nm[32];
		ok += (size_t)snprintf(outs + ok, sizeof outs - ok, "%s%s", k ? ", " : "", tensor_name(&e, g->outputs[k], nm, sizeof nm));
	}
	const char *h = tmpl(g->t, "header"), *kt = tmpl(g->t, "kernel");
	if (!h || !kt) {
		fclose(f);
		free(all);
		free(body);
		snprintf(why, nwhy, "the target has no 'header' or 'kernel' template");
		return NULL;
	}
	const char *k1[] = { "target" }, *v1[] = { g->t->name };
	fill(f, h, k1, v1, 1);
	fputc('\n', f);
	/* the body without its trailing newline: the kernel template places it */
	if (blen && body[blen - 1] == '\n')
		body[blen - 1] = 0;
	const char *k3[] = { "name", "params", "body", "outputs" }, *v3[] = { name, params, body, outs };
	fill(f, kt, k3, v3, 4);
	fclose(f);
	free(body);
	char *r = arena_strdup(tc_arena(g->tc), all);
	free(all);
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
