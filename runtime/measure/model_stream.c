/*
 * model_stream.c — a candidate's statements (nest.h) made into the
 * operations the model schedules (model.c): per instruction its engine,
 * cost and latency, or a transfer's bytes over the DMA queues; the state
 * slots each waits for and writes; loops matched with their ends and
 * merged when one is the other's whole body; the block buffers kept per
 * tile (a reader of one tile waits for the writes into that tile only),
 * and per loop the state its body may change (for the steady-state jumps).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_state.h"

/* ---- the stream ------------------------------------------------------------------- */

/* The state slot a reference reads (-1: none). */
static int
ref_slot(const Model *m, const NsRef *r)
{
	if (r->var == NS_NONE)
		return -1;
	if (r->var >= 0)
		return r->var < m->nv ? R(m, r->var) : -1;
	int node = -1 - r->var;
	return node < m->nn ? T(m, node) : -1;
}

static int slot_ref(Model *m, const NsRef *r, int at);

static void
add_in(Model *m, MOp *o, const NsRef *r, int at)
{
	int k = slot_ref(m, r, at);
	if (k >= 0 && o->nsr < AX_MAXOPND + 2) {   /* one tile of a block buffer: its own ready time */
		o->sr[o->nsr++] = k;
		if (o->nrd < AX_MAXOPND + 2)
			o->rd[o->nrd++] = r->var;
		return;
	}
	int s = ref_slot(m, r);
	if (s >= 0 && o->nin < AX_MAXOPND + 2)
		o->in[o->nin++] = s;
	if (r->var >= 0 && r->var < m->nv && o->nrd < AX_MAXOPND + 2)
		o->rd[o->nrd++] = r->var;
}

/* A transfer of bytes over P partitions on engine e. */
static void
set_xfer(const Model *m, MOp *o, int e, double bytes, int64_t P)
{
	const AxTarget *t = m->t;
	const AxEngine *en = &t->engines[e];
	int Q = m->nslot[e], part = 0;
	for (int k = 0; k < t->nmems && k < 32; k++)
		if (!t->mems[k].offchip && t->mems[k].partitions > part)
			part = t->mems[k].partitions;
	int per = part / Q > 0 ? part / Q : 1;   /* partitions one queue serves */
	int64_t nq = P > 0 ? (P + per - 1) / per : 1;
	o->kind = MK_XFER;
	o->eng = e;
	o->nq = nq < 1 ? 1 : nq > Q ? Q : (int)nq;
	o->bytes = bytes;
	o->dur = (en->bandwidth > 0 ? bytes / o->nq / (en->bandwidth / Q) : 0) + en->gap_s;
	o->lat = en->latency_s;
}


/* One instruction statement: its cost on its engine. */
static void
set_inst(Model *m, MOp *o, const NsStmt *s, int at, int dtype_bytes)
{
	const AxTarget *t = m->t;
	const AxOp *op = &t->insts[s->inst];
	AxConc c;
	nest_conc(t, s, s->inst, s->engine, &c);
	for (int k = 0; k < op->nopnd && k < AX_MAXOPND; k++)
		if (s->opnd[k].var != NS_NONE)
			add_in(m, o, &s->opnd[k], at);
	double cost = op->cost ? op->cost(&c, dtype_bytes) : 0;
	int e = s->engine >= 0 && s->engine < t->nengines && s->engine < MAXENG ? s->engine : 0;
	if (t->engines[e].dma) {
		int64_t P = op->out_par >= 0 && op->out_par < s->shape.rank ? s->shape.d[op->out_par] : 1;
		set_xfer(m, o, e, cost, P);
	} else {
		o->kind = MK_EXEC;
		o->eng = e;
		double hz = t->engines[e].clock_hz > 0 ? t->engines[e].clock_hz : 1e9;
		o->dur = cost / hz;
		o->lat = t->engines[e].latency_s;
	}
	if (s->out.var == NS_NONE) {
		if (s->var >= 0 && s->var < m->nv)
			o->def = s->var;
	} else if (s->out.var >= 0) {
		o->wvar = s->out.var < m->nv ? s->out.var : -1;
		o->wsr = slot_ref(m, &s->out, at);
	}
	else
		o->wten = -1 - s->out.var < m->nn ? -1 - s->out.var : -1;
}

/* ---- tiles of block buffers ----------------------------------------------------------- */

/* The references of statement s to variables, each once: n of them into r. */
static int
stmt_refs(const Model *m, const NsStmt *s, const NsRef **r)
{
	int n = 0;
	switch (s->kind) {
	case NS_INST:
		for (int k = 0; s->inst >= 0 && s->inst < m->t->ninsts && k < m->t->insts[s->inst].nopnd && k < AX_MAXOPND; k++)
			if (s->opnd[k].var != NS_NONE)
				r[n++] = &s->opnd[k];
		if (s->out.var != NS_NONE)
			r[n++] = &s->out;
		break;
	case NS_ACC:
	case NS_SET:
		r[n++] = &s->out;
		/* fall through */
	case NS_STORE:
		r[n++] = &s->src;
		break;
	default:
		break;
	}
	return n;
}

/* Block buffers kept per tile: a buffer (NS_BUF) all of whose sliced
 * references take one index (not a range) along the same dims -- the
 * block dims -- gets one ready time per tile (at most MAXSLOT), so that a
 * reader of one tile waits for the writes into that tile, not for the
 * whole block.  A reference whose index along a block dim is neither a
 * literal nor a loop variable reads (or writes) every tile. */
enum { MAXSLOT = 64 };

void
model_slot_plan(Model *m)
{
	const Nest *ns = m->ns;
	int nv = m->nv;
	uint32_t *mask = calloc((size_t)nv, sizeof *mask);
	int *rank = calloc((size_t)nv, sizeof *rank);
	m->nsl = calloc((size_t)nv, sizeof *m->nsl);
	m->sbase = calloc((size_t)nv, sizeof *m->sbase);
	m->dims = calloc((size_t)nv, sizeof *m->dims);
	m->bdim = calloc((size_t)nv, sizeof *m->bdim);
	const AxShape **shape = calloc((size_t)nv, sizeof *shape);
	if (!mask || !rank || !m->nsl || !m->sbase || !m->dims || !m->bdim || !shape)
		ax_die("out of memory");
	for (int i = 0; i < ns->n; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind == NS_BUF && s->var >= 0 && s->var < nv && !shape[s->var]) {
			shape[s->var] = &s->shape;
			rank[s->var] = s->shape.rank;
			mask[s->var] = s->shape.rank >= 32 ? 0 : (1u << s->shape.rank) - 1;
		}
	}
	for (int i = 0; i < ns->n; i++) {
		const NsRef *r[AX_MAXOPND + 2];
		int n = stmt_refs(m, &ns->s[i], r);
		for (int k = 0; k < n; k++) {
			int v = r[k]->var;
			if (v < 0 || v >= nv || !shape[v] || !r[k]->nidx)
				continue;
			uint32_t one = 0;
			for (int d = 0; d < r[k]->nidx && d < 32; d++)
				if (!r[k]->idx[d].len)
					one |= 1u << d;
			mask[v] &= r[k]->nidx == rank[v] ? one : 0;
		}
	}
	for (int v = 0; v < nv; v++) {
		int64_t n = shape[v] && mask[v] ? 1 : 0;
		int k = 0;
		for (int d = 0; n && d < rank[v]; d++)
			if (mask[v] & (1u << d)) {
				n *= shape[v]->d[d];
				m->bdim[v][k++] = (int)shape[v]->d[d];
			}
		m->nsl[v] = n >= 2 && n <= MAXSLOT ? (int)n : 0;
		m->dims[v] = mask[v];
	}
	free(mask);
	free(rank);
	free(shape);
}

/* An index of one of the forms "7", "i", "(i + 1)", "i % 2", "(i + 1) % 2"
 * (i a loop around, back/pipeline.c writes the last three): the loop (-1
 * none), the constant plus it, the modulus (0 none); 0 if it is none of them. */
static int
index_form(const Model *m, const char *a, int *loop, int *plus, int *mod)
{
	char name[32];
	int c = 0, q = 0, k = 0;
	*loop = -1;
	*plus = *mod = 0;
	if (sscanf(a, "%d%n", &c, &k) == 1 && !a[k]) {
		*plus = c;
		return 1;
	}
	if (!(sscanf(a, "(%31[A-Za-z0-9_] + %d)%n", name, &c, &k) == 2 ||
	      (c = 0, sscanf(a, "%31[A-Za-z0-9_]%n", name, &k) == 1)))
		return 0;
	a += k;
	if (*a && !(sscanf(a, " %% %d%n", &q, &k) == 1 && !a[k] && q > 0))
		return 0;
	int l = m->nopen - 1;
	while (l >= 0 && strcmp(m->ns->s[m->open[l]].name, name) != 0)
		l--;
	if (l < 0)
		return 0;
	*loop = m->open[l];
	*plus = c;
	*mod = q;
	return 1;
}

/* Reference r (at statement at, inside the loops m->open) to one tile of a
 * buffer kept per tile: its SlotRef; -1 if r is not one. */
static int
slot_ref(Model *m, const NsRef *r, int at)
{
	(void)at;
	int v = r->var;
	if (v < 0 || v >= m->nv || m->nsl[v] < 2 || !r->nidx)
		return -1;
	SlotRef sr = { .var = v };
	uint32_t dims = m->dims[v];
	for (int d = 0; d < r->nidx && d < 32; d++) {
		if (!(dims & (1u << d)))
			continue;
		int l;
		if (!index_form(m, r->idx[d].start, &l, &sr.lit[sr.nd], &sr.mod[sr.nd]))
			return -1;
		sr.loop[sr.nd++] = l;
	}
	/* row-major strides over the block dims of the buffer */
	int stride = 1;
	for (int k = sr.nd - 1; k >= 0; k--) {
		sr.stride[k] = stride;
		stride *= m->bdim[v][k];
	}
	if (m->nsref == m->capsref) {
		m->capsref = m->capsref ? 2 * m->capsref : 64;
		m->sref = realloc(m->sref, sizeof *m->sref * (size_t)m->capsref);
		if (!m->sref)
			ax_die("out of memory");
	}
	m->sref[m->nsref] = sr;
	return m->nsref++;
}

/* The statements as operations; loops matched with their ends. */
void
model_compile_ops(Model *m, int dtype_bytes)
{
	const Nest *ns = m->ns;
	int xe = ax_xfer_engine(m->t);
	if (xe >= MAXENG)
		xe = -1;
	int *open = m->open, nopen = 0;
	for (int i = 0; i < ns->n; i++) {
		m->host[i] = i;
		m->div[i] = 1;
		m->mod[i] = ns->s[i].kind == NS_LOOP && ns->s[i].hi > 0 ? (int)ns->s[i].hi : 1;
	}
	for (int i = 0; i < ns->n; i++) {
		m->nopen = nopen < 64 ? nopen : 64;
		const NsStmt *s = &ns->s[i];
		MOp *o = &m->op[i];
		*o = (MOp){ 0 };
		o->def = o->wvar = o->wten = o->end = o->wsr = -1;
		switch (s->kind) {
		case NS_INST:
			if (s->inst >= 0 && s->inst < m->t->ninsts)
				set_inst(m, o, s, i, dtype_bytes);
			break;
		case NS_STORE:   /* a plain store: a transfer where the target has one */
			add_in(m, o, &s->src, i);
			if (xe >= 0)
				set_xfer(m, o, xe, (double)ax_numel(&s->src.shape) * dtype_bytes,
				         s->src.shape.rank ? s->src.shape.d[0] : 1);
			else
				o->kind = MK_FREE;
			o->wten = s->out.var < 0 && s->out.var != NS_NONE && -1 - s->out.var < m->nn ? -1 - s->out.var : -1;
			break;
		case NS_ACC:
			add_in(m, o, &s->out, i);
			/* fall through */
		case NS_SET:
			add_in(m, o, &s->src, i);
			o->kind = MK_FREE;
			o->wvar = s->out.var >= 0 && s->out.var < m->nv ? s->out.var : -1;
			if (o->wvar >= 0)
				o->wsr = slot_ref(m, &s->out, i);
			break;
		case NS_BUF:
			if (s->var >= 0 && s->var < m->nv) {
				o->kind = MK_BUF;
				o->def = s->var;
			}
			break;
		case NS_VIEW:
			if (s->node >= 0 && s->node < m->nn) {
				const AxNode *nd = &ns->g->nodes[s->node];
				o->kind = MK_VIEW;
				o->wten = s->node;
				for (int k = 0; k < nd->nin && o->nin < AX_MAXOPND + 2; k++)
					if (nd->in[k] >= 0 && nd->in[k] < m->nn)
						o->in[o->nin++] = T(m, nd->in[k]);
			}
			break;
		case NS_LOOP:
			o->kind = MK_LOOP;
			o->trip = s->hi;
			if (nopen < 64)
				open[nopen] = i;
			nopen++;
			break;
		case NS_END:
			o->kind = MK_END;
			if (nopen > 0 && --nopen < 64)
				m->op[open[nopen]].end = i;
			break;
		default:
			break;
		}
	}
	for (int i = 0; i < ns->n; i++)   /* an unclosed loop closes at the end */
		if (m->op[i].kind == MK_LOOP && m->op[i].end < 0)
			m->op[i].end = ns->n;
	/* a loop whose body is one loop runs the same stream as one loop over the
	 * product of their trips: merged, innermost first */
	for (int i = ns->n - 1; i >= 0; i--) {
		MOp *o = &m->op[i];
		if (o->kind != MK_LOOP)
			continue;
		int j = i + 1, e = o->end - 1;
		while (j < o->end && m->op[j].kind == MK_SKIP)
			j++;
		while (e > i && m->op[e].kind == MK_SKIP)
			e--;
		if (j < o->end && m->op[j].kind == MK_LOOP && m->op[j].end == e) {
			for (int q = j; q < e; q++)   /* the inner loops' indices: the merged index mod their trips */
				if (m->host[q] == j)
					m->host[q] = i;
			m->div[i] = (int)m->op[j].trip;
			o->trip *= m->op[j].trip;
			m->op[j].kind = m->op[e].kind = MK_SKIP;
		}
	}
}

/* Per loop: its iterations touch the tiles of block buffers in a cycle; a
 * steady state's period must be a multiple of it. */
void
model_slot_periods(Model *m)
{
	for (int i = 0; i < m->n; i++)
		m->op[i].sper = 1;
	for (int i = 0; i < m->n; i++) {
		const MOp *o = &m->op[i];
		for (int k = 0; k <= o->nsr; k++) {
			int r = k < o->nsr ? o->sr[k] : o->wsr;
			for (int d = 0; r >= 0 && d < m->sref[r].nd; d++) {
				int l = m->sref[r].loop[d];
				if (l < 0)
					continue;
				MOp *h = &m->op[m->host[l]];
				int64_t c = (int64_t)m->div[l] * m->mod[l] * (m->sref[r].mod[d] > 0 ? m->sref[r].mod[d] : 1);
				h->sper = h->sper / ax_gcd(h->sper, c) * c;
				if (h->sper > MAXPER)
					h->sper = MAXPER + 1;
			}
		}
	}
}

/* Per loop: the state slots its body may change. */
void
model_collect_touch(Model *m)
{
	int *mark = calloc((size_t)m->z, sizeof(int)), stamp = 0, total = 0;
	int *buf = malloc(sizeof(int) * (size_t)m->z);
	if (!mark || !buf)
		ax_die("out of memory");
	for (int pass = 0; pass < 2; pass++) {
		int used = 0, sc = 0;
		for (int i = 0; i < m->n; i++) {
			MOp *lp = &m->op[i];
			if (lp->kind != MK_LOOP)
				continue;
			stamp++;
			int k = 0;
#define PUT(s)                                      \
	do {                                        \
		int s_ = (s);                       \
		if (mark[s_] != stamp) {            \
			mark[s_] = stamp;           \
			buf[k++] = s_;              \
		}                                   \
	} while (0)
			for (int j = 0; j < MAXENG; j++)
				if (m->nslot[j])
					PUT(m->st + j);
			PUT(m->st + ST_BYTES);
			PUT(m->st + ST_INSTS);
			PUT(m->st + ST_XFERS);
			PUT(m->st + ST_QUEUES);
			PUT(m->st + ST_FIXED);
			for (int j = i + 1; j < lp->end && j < m->n; j++) {
				const MOp *o = &m->op[j];
				if (o->kind == MK_EXEC || o->kind == MK_XFER)
					for (int q = 0; q < m->nslot[o->eng]; q++)
						PUT(m->eslot[o->eng] + q);
				for (int r = 0; r < o->nrd; r++)
					PUT(L(m, o->rd[r]));
				int vs[2] = { o->def, o->wvar };
				for (int r = 0; r < 2; r++)
					if (vs[r] >= 0) {
						PUT(R(m, vs[r]));
						PUT(L(m, vs[r]));
						PUT(A(m, vs[r]));
						for (int g = 0; g < MAXBUF; g++)
							PUT(G(m, vs[r], g));
						for (int g = 0; g < m->nsl[vs[r]]; g++)
							PUT(S(m, vs[r], g));
					}
				if (o->wten >= 0)
					PUT(T(m, o->wten));
			}
#undef PUT
			if (pass == 1)
				memcpy(m->touch + used, buf, sizeof(int) * (size_t)k);
			lp->touch = used;
			lp->ntouch = k;
			lp->hist = sc;
			used += k;
			sc += (HIST + 1) * k;
		}
		if (pass == 0) {
			total = used;
			m->touch = malloc(sizeof(int) * (size_t)(total + 1));
			m->scr = malloc(sizeof(double) * (size_t)((HIST + 1) * total + 1));
			if (!m->touch || !m->scr)
				ax_die("out of memory");
		}
	}
	free(mark);
	free(buf);
}
