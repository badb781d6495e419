/*
 * emit_inst.c — the statements of one instruction, a sl, a loop; loads
 * from off chip (and constants) made once per loop that can see them.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"


void
em_fail(Em *e, const char *msg, const char *arg)
{
	if (!e->bad) {
		snprintf(e->why, e->nwhy, msg, arg);
		if (e->why_node)
			*e->why_node = e->node >= 0 && e->node < e->g->nnodes ? e->node : -1;
	}
	e->bad = 1;
}

int64_t
em_int(Em *e, const Term *t)
{
	double v;
	if (t_eval(t, &e->env, &v) != 0) {
		em_fail(e, "cannot evaluate %s at these sizes", t_infix(e->g->tc, t));
		return 1;
	}
	return (int64_t)v;
}

/* the engine instruction j of q runs on: the k-th of those its placement allows */
int
em_seq_engine(const AxTarget *t, const SynthSeq *q, int j, int k)
{
	return ax_nth_bit(q->engines[j] ? q->engines[j] : t->insts[q->inst[j]].engines, k);
}

NsStmt *
em_push(Em *e, int kind)
{
	return nest_push(e->ns, kind, e->depth);
}

void
em_note(Em *e, int node, int blank, const char *fmt, const char *arg)
{
	NsStmt *s = em_push(e, NS_NOTE);
	s->node = node;
	s->seq = blank;
	snprintf(s->text, sizeof s->text, fmt, arg);
}

void
em_dim(NsDim *d, int64_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void
em_dim(NsDim *d, int64_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->start, sizeof d->start, fmt, ap);
	va_end(ap);
	d->len = len;
	d->fold = d->flen = 0;
	d->fin[0] = 0;
}

/* ---- one instruction ------------------------------------------------------------- */

/* The first on-chip memory an instruction writes on its engine (-1: none). */
static int
onchip_mem(const AxTarget *t, const AxOp *op, int engine)
{
	uint32_t out = ax_inst_mems(t, op, -1, engine >= 0 ? 1u << engine : op->engines);
	for (int m = 0; m < t->nmems && m < 32; m++)
		if ((out & (1u << m)) && !t->mems[m].offchip)
			return m;
	return -1;
}

/* ---- loads made once ----------------------------------------------------------------- */

size_t
em_key_ref(char *buf, size_t n, const NsRef *r)
{
	size_t k = (size_t)snprintf(buf, n, "|%d:%d:%d", r->var, r->nidx, r->ellipsis);
	for (int d = 0; d < r->nidx && k < n; d++) {
		k += (size_t)snprintf(buf + k, n - k, ",%s/%lld", r->idx[d].start, (long long)r->idx[d].len);
		if (r->idx[d].fold && k < n)
			k += (size_t)snprintf(buf + k, n - k, "@%d:%s/%d", r->idx[d].fold, r->idx[d].fin, r->idx[d].flen);
	}
	return k < n ? k : n;
}

/* The key of an instruction reading only off-chip slices, or nothing (a
 * constant), 0 if it reads a tile on chip. */
static int
load_key(const NsStmt *s, const AxOp *op, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%d/%d/%d", s->inst, s->engine, s->mem);
	for (int a = 0; a < op->nattr && k < n; a++)
		k += (size_t)snprintf(buf + k, n - k, ",%d:%.17g:%p", s->attr[a], s->aval[a], (const void *)s->aterm[a]);
	for (int o = 0; o < op->nopnd && k < n; o++) {
		if (s->opnd[o].var == NS_NONE)
			continue;
		if (s->opnd[o].var >= 0)
			return 0;
		k += em_key_ref(buf + k, n - k, &s->opnd[o]);
	}
	return k < n - 1;
}

int
em_load_key(const AxTarget *t, const NsStmt *s, char *buf, size_t n)
{
	return load_key(s, &t->insts[s->inst], buf, n);
}

Cse *
em_cse_find(Em *e, const char *key)
{
	for (int i = e->ncse - 1; i >= 0; i--)
		if (strcmp(e->cse[i].key, key) == 0)
			return &e->cse[i];
	return NULL;
}

void
em_cse_add(Em *e, const char *key, const NsRef *val, uint32_t axes)
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

/* d moved by off: a literal start summed, a leading literal term folded in. */
static int
shift_dim(NsDim *d, int64_t off)
{
	char buf[448], *end;
	long long a = strtoll(d->start, &end, 10);
	if (!off)
		return 1;
	if (end != d->start && !*end)
		snprintf(buf, sizeof buf, "%lld", a + off);
	else if (end != d->start && strncmp(end, " + ", 3) == 0)
		snprintf(buf, sizeof buf, "%lld + %.*s", a + off, (int)sizeof d->start, end + 3);
	else
		snprintf(buf, sizeof buf, "%lld + %.*s", (long long)off, (int)sizeof d->start, d->start);
	if (strlen(buf) >= sizeof d->start)
		return 0;
	memcpy(d->start, buf, strlen(buf) + 1);
	return 1;
}

/* A slice of a view that only moves the indices of its one tensor (X[:, a:b])
 * read as the slice of that tensor: a load through the view and the same
 * load straight from the tensor are one load, made once (em_inst, once the
 * slice is final: a block load's start is set after em_operand). */
static void
through_views(Em *e, NsRef *r)
{
	const AxGraph *g = e->g;
	for (int hop = 0; hop < 8 && r->var < 0 && r->var != NS_NONE; hop++) {
		int v = -1 - r->var;
		const TileOp *tv = &e->T->op[v];
		const AxNode *nd = &g->nodes[v];
		if (tv->kind != TO_VIEW || tv->gather || nd->nin < 1 || nd->in[0] < 0 || nd->rank < 1 ||
		    nd->rank != r->nidx || g->nodes[nd->in[0]].rank != nd->rank)
			return;
		for (int o = 1; o < nd->nin; o++)
			if (nd->in[o] >= 0)
				return;
		NsDim idx[AX_MAXR];
		for (int j = 0; j < nd->rank; j++) {
			const TileAxisRead *rd = &tv->read[0][j];
			double off = 0;
			idx[j] = r->idx[j];
			if (rd->axis != j || (rd->kind != 1 && rd->kind != 4) ||
			    (rd->kind == 4 && (!rd->off || t_eval(rd->off, &e->env, &off) != 0 || !shift_dim(&idx[j], (int64_t)off))))
				return;
		}
		memcpy(r->idx, idx, sizeof *idx * (size_t)nd->rank);
		r->var = -1 - nd->in[0];
	}
}

/* The sl of node src's off-chip tensor that operand o of node id reads at
 * the current tile. */
/* Instruction inst over operand refs (NULL: left out) into a new variable
 * in memory mem (-1: its first on-chip one), or written into the off-chip
 * sl dst; its value in *out. */
void
em_inst(Em *e, int inst, int engine, const int *attr, Term *const *sattr, const NsRef *const *opnd,
          const NsRef *dst, int mem, NsRef *out)
{
	const AxTarget *t = e->g->t;
	const AxOp *op = &t->insts[inst];
	NsStmt s = { .kind = NS_INST, .depth = e->depth, .node = e->node, .inst = inst, .mem = mem };
	AxConc c = { .nopnd = op->nopnd };
	for (int o = 0; o < op->nopnd; o++) {
		if (opnd[o]) {
			s.opnd[o] = *opnd[o];
			through_views(e, &s.opnd[o]);
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
			em_fail(e, "cannot evaluate an attribute of %s", op->name);
		if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)v;
		else
			c.fval[a] = v;
		s.aval[a] = v;
		s.aterm[a] = sattr[a];
	}
	s.engine = c.engine = engine >= 0 ? engine : ax_nth_bit(op->engines, 0);
	char err[256];
	if (op->check(&c, &s.shape, err, sizeof err) != 0) {   /* which operation, which instruction, why */
		char msg[400];
		const AxGraph *g = e->g;
		snprintf(msg, sizeof msg, "%s%s%s: %s", e->node >= 0 && e->node < g->nnodes ? node_op(g, &g->nodes[e->node])->name : "",
		         e->node >= 0 && e->node < g->nnodes ? ", its " : "", op->name, err);
		em_fail(e, "%s", msg);
		*out = (NsRef){ .var = NS_NONE };   /* no value: later statements of the failed nest read none */
		return;
	}
	if (s.mem < 0)
		s.mem = onchip_mem(t, op, s.engine);
	char key[480];
	int loadk = !dst && load_key(&s, op, key, sizeof key);
	if (loadk) {   /* the same load made earlier in an open loop: its tile */
		Cse *c = em_cse_find(e, key);
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
	*em_push(e, NS_INST) = s;
	if (loadk)
		em_cse_add(e, key, out, 0);
}

/* A sequence over input refs in[] (no copies): its last value in *out. */
void
em_seq(Em *e, const SynthSeq *q, const NsRef *in, NsRef *out)
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
		em_inst(e, q->inst[j], em_seq_engine(e->g->t, q, j, 0), q->attr[j], q->sattr[j], opnd, NULL, -1, &iv[j]);
	}
	*out = iv[q->ninsts - 1];
}

/* ---- one operation ------------------------------------------------------------------ */

void
em_operand(Em *e, int id, int o, const NsDim *axidx, NsRef *r)
{
	const AxGraph *g = e->g;
	const TileOp *to = &e->T->op[id];
	int sid = em_src(e, id, o);   /* a concatenation split here: the part's operand */
	const AxNode *src = &g->nodes[sid];
	AxShape keep = r->shape;
	*r = (NsRef){ 0 };
	r->shape = keep;
	r->var = -1 - sid;
	r->nidx = src->rank;
	r->ellipsis = src->rank == 0;
	for (int j = 0; j < src->rank; j++) {
		const TileAxisRead *rd = &to->read[o][j];
		if (rd->kind == 1) {
			r->idx[j] = axidx[rd->axis];
			em_concat_local(e, id, o, j, &r->idx[j]);
		} else
			em_dim(&r->idx[j], src->dim[j]->kind == TK_NUM && j >= src->rank - 2, "0");
	}
	if (to->replicated & (1u << o)) {   /* the slice as it is: one row, replicated once loaded */
		r->shape.rank = 0;
		for (int j = 0; j < r->nidx; j++)
			if (r->idx[j].len)
				r->shape.d[r->shape.rank++] = r->idx[j].len;
		if (r->shape.rank < 2)   /* a vector or a 0-d tensor: no row for the load to bring */
			em_fail(e, "operand %s has rank below 2: it cannot be replicated across partitions",
			        node_op(g, &g->nodes[id])->opnd[o].name);
	}
}

void
em_loop(Em *e, int seq, const char *var, int64_t hi)
{
	NsStmt *s = em_push(e, NS_LOOP);
	snprintf(s->name, sizeof s->name, "%s", var);
	s->hi = hi;
	s->seq = seq;
	e->depth++;
}

void
em_close_to(Em *e, int depth)
{
	while (e->depth > depth) {
		e->depth--;
		int l = e->depth ? -1 : e->ns->n - 1;   /* (such loops open a loop nest) */
		while (l >= 0 && !(e->ns->s[l].kind == NS_LOOP && e->ns->s[l].depth == e->depth))
			l--;
		/* a loop of one trip made only to line up with the next nest's is written as its body
		 * in the end (sink.c): what its body loaded, of slices that do not use its variable,
		 * stays found as if it were already (the others are dropped below: a later loop may
		 * have a variable of the same name) */
		for (int c = 0; l >= 0 && e->ns->s[l].once && c < e->ncse; c++)
			if (e->cse[c].depth > e->depth && !nest_uses_var(e->cse[c].key, e->ns->s[l].name))
				e->cse[c].depth = e->depth;
		em_push(e, NS_END);
	}
	int n = 0;
	for (int c = 0; c < e->ncse; c++)   /* those whose loops are closed dropped */
		if (e->cse[c].depth <= e->depth) {
			if (n != c)
				e->cse[n] = e->cse[c];
			n++;
		}
	e->ncse = n;
}

/* the result sl of node id: its axes' dims in order */
void
em_result(Em *e, int id, const NsDim *idx, NsRef *r)
{
	const AxNode *nd = &e->g->nodes[id];
	*r = (NsRef){ 0 };
	r->var = -1 - id;
	r->nidx = nd->rank;
	r->ellipsis = nd->rank == 0;
	for (int k = 0; k < nd->rank; k++) {
		r->idx[k] = idx[k];
		if (idx[k].len)
			r->shape.d[r->shape.rank++] = idx[k].len;
	}
}

/* ---- reading through a split concatenation (emit_concat.c sets e->cat, e->cseg) -------- */

/* The nodes operand o of node reads at the current part: the concatenation's
 * operand whose part is being written; all of them outside the split. */
int
em_srcs(const Em *e, int node, int o, int *src)
{
	int in = e->g->nodes[node].in[o];
	if (in < 0 || !e->catax || e->catax[in] < 0) {
		src[0] = in;
		return 1;
	}
	const AxNode *gn = &e->g->nodes[in];
	if (e->cat == in && e->cseg >= 0) {
		src[0] = gn->in[e->cseg];
		return 1;
	}
	memcpy(src, gn->in, sizeof *src * (size_t)gn->nin);
	return gn->nin;
}

/* ... the one it reads now: the part's operand, or the concatenation itself */
int
em_src(const Em *e, int node, int o)
{
	int in = e->g->nodes[node].in[o];
	if (in >= 0 && e->catax && e->catax[in] >= 0 && e->cat == in && e->cseg >= 0)
		return e->g->nodes[in].in[e->cseg];
	return in;
}

/* Dim `dim` of operand o of node, read at *d: within the part when the
 * operand is the split concatenation (the tile's start less the part's). */
void
em_concat_local(Em *e, int node, int o, int dim, NsDim *d)
{
	int in = e->g->nodes[node].in[o];
	if (in < 0 || !e->catax || e->catax[in] < 0)
		return;
	if (e->cat != in || e->cseg < 0) {
		em_fail(e, "%s: read outside the loops that split it", node_op(e->g, &e->g->nodes[in])->name);
		return;
	}
	if (dim != e->cdim)
		return;
	if (strcmp(d->start, e->cabs) != 0) {
		em_fail(e, "%s: read at another tile than the one its split is at", node_op(e->g, &e->g->nodes[in])->name);
		return;
	}
	snprintf(d->start, sizeof d->start, "%s", e->cloc);
}
