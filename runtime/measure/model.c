/*
 * model.c — the performance model (`--measure model`): a candidate's
 * latency on one core of the target, from the target tables alone.
 *
 * The candidate's statements (nest.h) are its instruction stream.  Each
 * engine runs its instructions in program order (one sequencer per engine,
 * as on the hardware); an instruction starts when its engine is free, its
 * operands are ready and the buffer it writes may be reused.  Costs come
 * from the instruction's `cost` in the spec: cycles on the engine's clock,
 * or, on an engine that `transfers`, bytes: a transfer over P partitions is
 * split over the queues those partitions map to (partitions / queues per
 * queue), each piece taking its bytes at the queue's share of the engine's
 * bandwidth plus the engine's `gap`, one transfer at a time per queue.  An
 * engine's `latency` is the fixed delay before a result may be read, not
 * time the engine is busy: a compute engine's SBUF/PSUM access overhead, a
 * transfer's descriptor and semaphore latency (paid on the dependency, so
 * transfers on a queue pipeline behind each other).
 *
 * Dependencies: a value is ready when the instruction that makes it (or,
 * for block buffers and running values, every instruction that writes it)
 * has finished; an accumulation in place (NS_ACC) and a running value set
 * from another (NS_SET) cost nothing but chain the dependency; an off-chip
 * tensor is ready when every write of the loop nest that makes it has
 * finished (results round-trip through off-chip memory); a view is ready
 * with its operands.  Capacity: a candidate whose footprint does not fit
 * cannot run; a tile made inside a loop gets a second buffer when memory
 * allows (innermost loops first, see capacity below), and a new instance of
 * a tile may only be written once the readers of the instance one or two
 * iterations back are done, so loads run ahead of compute only as far as
 * memory allows.
 *
 * Loops are not unrolled.  The schedule's state (engine and queue free
 * times, ready and release times, counters) evolves from one iteration of
 * a loop body to the next by max and + only, so after a transient it moves
 * by the same delta every period of p iterations (p is 2 when double
 * buffers alternate).  A loop is run iteration by iteration until two
 * consecutive periods (p <= MAXPER) move it by the same delta, then whole
 * periods are jumped over by adding the delta, and one more period run from
 * the jumped state must move it by the same delta again; if it does not,
 * the regime changed somewhere in between (two of a max's arguments
 * crossed), and the jump is halved and retried.  Every argument of every
 * max is linear in the iteration count while a regime lasts, and two lines
 * ordered alike at both ends of a jump are ordered alike in between, so a
 * checked jump is exact, not an estimate (tests compare it with the
 * schedule run iteration by iteration: model_no_jump).  A loop whose body
 * is one loop is one loop over the product of their trips.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"

enum {
	MAXBUF = 2,              /* buffers per tile at most (double buffering) */
	MAXQ = 64,               /* queues of one transferring engine */
	MAXENG = 32,
	MAXPER = 32,             /* the longest period of a loop's steady state looked for (a queue pattern can take one per queue) */
	HIST = 2 * MAXPER + 1,   /* states a loop keeps */
};

enum { MK_SKIP, MK_EXEC, MK_XFER, MK_FREE, MK_BUF, MK_LOOP, MK_END, MK_VIEW };

typedef struct MOp {
	int kind;
	int eng;                 /* MK_EXEC, MK_XFER: the engine */
	int nq;                  /* MK_XFER: queues the transfer is split over */
	double dur;              /* MK_EXEC: seconds busy; MK_XFER: seconds per queue */
	double lat;              /* MK_EXEC: from its end until its result may be read */
	double bytes;            /* MK_XFER */
	int nin, in[AX_MAXOPND + 2];   /* state slots whose times it waits for */
	int nsr, sr[AX_MAXOPND + 2];   /* tiles of block buffers it reads (Model.sref) */
	int wsr;                 /* the tile of wvar it writes (-1: all of it) */
	int nrd, rd[AX_MAXOPND + 2];   /* variables it reads (their release times grow) */
	int def;                 /* variable made afresh (MK_EXEC, MK_XFER, MK_BUF), -1 none */
	int wvar;                /* variable written in place (a block buffer, a running value), -1 none */
	int wten;                /* off-chip tensor (node) written, -1 none */
	int end;                 /* MK_LOOP: its MK_END */
	int64_t trip;            /* MK_LOOP */
	int touch, ntouch;       /* MK_LOOP: its body's state slots, in Model.touch */
	int hist;                /* MK_LOOP: (HIST + 1) * ntouch doubles in Model.scr */
	int64_t sper;            /* MK_LOOP: its periods are multiples of this (tiles of block buffers indexed by it) */
} MOp;

/* One tile of a block buffer, its slot computed from the iteration: per
 * block dim a literal (loop -1) or a loop's index, times a stride. */
typedef struct SlotRef {
	int var, nd;
	int loop[AX_MAXR], lit[AX_MAXR];
	int stride[AX_MAXR];
} SlotRef;

typedef struct Model {
	const Nest *ns;
	const AxTarget *t;
	MOp *op;
	int n;
	int nv, nn;              /* variables, graph nodes */
	int eslot[MAXENG], nslot[MAXENG];   /* per engine: its first state slot, how many (queues) */
	int vr, vl, va, vg, tn, st;         /* bases: ready, release, avail, ring, tensors, stats */
	int *nbuf;               /* per variable */
	int *sbase, *nsl;        /* per variable: its first tile slot, how many (0: not kept per tile) */
	uint32_t *dims;          /* ... its block dims */
	int (*bdim)[AX_MAXR];    /* ... their sizes */
	int open[64], nopen;     /* compile_ops: the NS_LOOP statements around the current one */
	SlotRef *sref;           /* references to one tile of a block buffer */
	int nsref, capsref;
	int *host, *div, *mod;   /* per statement NS_LOOP: the loop op that runs it (merged), its index there */
	int64_t *cnt;            /* per MK_LOOP op: the iteration being run */
	int z;                   /* state size */
	double *x;
	int *touch;
	double *scr;
} Model;

/* stats slots after st: busy per engine, then bytes, instructions, transfers */
enum { ST_BYTES = MAXENG, ST_INSTS, ST_XFERS, ST_QUEUES, ST_FIXED, ST_N };

#define R(m, v) ((m)->vr + (v))
#define L(m, v) ((m)->vl + (v))
#define A(m, v) ((m)->va + (v))
#define G(m, v, k) ((m)->vg + (v) * MAXBUF + (k))
#define T(m, n) ((m)->tn + (n))
#define S(m, v, k) ((m)->sbase[v] + (k))

static double
dmax(double a, double b)
{
	return a > b ? a : b;
}

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

/* The first engine that transfers (-1: none). */
static int
xfer_engine(const AxTarget *t)
{
	for (int e = 0; e < t->nengines && e < MAXENG; e++)
		if (t->engines[e].dma)
			return e;
	return -1;
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

static int64_t
shape_numel(const AxShape *s)
{
	int64_t n = 1;
	for (int d = 0; d < s->rank; d++)
		n *= s->d[d];
	return n;
}

/* One instruction statement: its cost on its engine. */
static void
set_inst(Model *m, MOp *o, const NsStmt *s, int at, int dtype_bytes)
{
	const AxTarget *t = m->t;
	const AxOp *op = &t->insts[s->inst];
	AxConc c = { .nopnd = op->nopnd, .engine = s->engine };
	for (int k = 0; k < op->nopnd && k < AX_MAXOPND; k++) {
		const NsRef *r = &s->opnd[k];
		if (r->var == NS_NONE) {
			c.rank[k] = -1;
			continue;
		}
		add_in(m, o, r, at);
		c.rank[k] = r->shape.rank;
		memcpy(c.dim[k], r->shape.d, sizeof c.dim[k]);
	}
	for (int a = 0; a < op->nattr && a < AX_MAXATTR; a++) {
		if (op->attr[a].kind == AX_ATTR_ENUM)
			c.attr[a] = s->attr[a];
		else if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)s->aval[a];
		else
			c.fval[a] = s->aval[a];
	}
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

static void
slot_plan(Model *m)
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
		const char *a = r->idx[d].start;
		char *end;
		long lit = strtol(a, &end, 10);
		sr.loop[sr.nd] = -1;
		sr.lit[sr.nd] = 0;
		if (*a && !*end)
			sr.lit[sr.nd] = (int)lit;
		else {
			int l = m->nopen - 1;
			while (l >= 0 && strcmp(m->ns->s[m->open[l]].name, a) != 0)
				l--;
			if (l < 0)
				return -1;
			sr.loop[sr.nd] = m->open[l];
		}
		sr.nd++;
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
static void
compile_ops(Model *m, int dtype_bytes)
{
	const Nest *ns = m->ns;
	int xe = xfer_engine(m->t);
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
				set_xfer(m, o, xe, (double)shape_numel(&s->src.shape) * dtype_bytes,
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

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Per loop: its iterations touch the tiles of block buffers in a cycle; a
 * steady state's period must be a multiple of it. */
static void
slot_periods(Model *m)
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
				int64_t c = (int64_t)m->div[l] * m->mod[l];
				h->sper = h->sper / gcd64(h->sper, c) * c;
				if (h->sper > MAXPER)
					h->sper = MAXPER + 1;
			}
		}
	}
}

/* Per loop: the state slots its body may change. */
static void
collect_touch(Model *m)
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

/* ---- the schedule ----------------------------------------------------------------- */

/* A new instance of variable v: it may be written once the readers of the
 * instance nbuf back are done. */
static void
fresh(Model *m, int v)
{
	double *x = m->x;
	int nb = m->nbuf[v];
	for (int k = nb - 1; k > 0; k--)
		x[G(m, v, k)] = x[G(m, v, k - 1)];
	x[G(m, v, 0)] = x[L(m, v)];
	x[A(m, v)] = x[G(m, v, nb - 1)];
	x[R(m, v)] = x[L(m, v)] = x[A(m, v)];
	for (int k = 0; k < m->nsl[v]; k++)
		x[S(m, v, k)] = x[A(m, v)];
}

/* The slot of tile reference k at the current iterations. */
static int
slot_at(const Model *m, int k)
{
	const SlotRef *r = &m->sref[k];
	int64_t at = 0;
	for (int d = 0; d < r->nd; d++) {
		int64_t i = r->lit[d];
		if (r->loop[d] >= 0) {
			int l = r->loop[d];
			i = (m->cnt[m->host[l]] / m->div[l]) % m->mod[l];
		}
		at += i * r->stride[d];
	}
	return at >= 0 && at < m->nsl[r->var] ? (int)at : 0;
}

/* Times the operation waits for; then its results' times from its end. */
static double
ready_at(Model *m, const MOp *o)
{
	double *x = m->x, t = 0;
	for (int k = 0; k < o->nin; k++)
		t = dmax(t, x[o->in[k]]);
	for (int k = 0; k < o->nsr; k++)
		t = dmax(t, x[S(m, m->sref[o->sr[k]].var, slot_at(m, o->sr[k]))]);
	if (o->def >= 0) {
		fresh(m, o->def);
		t = dmax(t, x[A(m, o->def)]);
	}
	if (o->wvar >= 0)
		t = dmax(t, x[A(m, o->wvar)]);
	return t;
}

static void
finish(Model *m, const MOp *o, double end, double ready)
{
	double *x = m->x;
	for (int k = 0; k < o->nrd; k++)
		x[L(m, o->rd[k])] = dmax(x[L(m, o->rd[k])], end);
	if (o->def >= 0) {
		x[R(m, o->def)] = ready;
		x[L(m, o->def)] = end;
	}
	if (o->wvar >= 0) {
		int v = o->wvar;
		x[R(m, v)] = dmax(x[R(m, v)], ready);
		x[L(m, v)] = dmax(x[L(m, v)], end);
		if (o->wsr >= 0) {   /* one tile of a block buffer: it alone is ready then */
			int k = S(m, v, slot_at(m, o->wsr));
			x[k] = dmax(x[k], ready);
		} else
			for (int k = 0; k < m->nsl[v]; k++)
				x[S(m, v, k)] = dmax(x[S(m, v, k)], ready);
	}
	if (o->wten >= 0)
		x[T(m, o->wten)] = dmax(x[T(m, o->wten)], ready);
}

static void run_loop(Model *m, int at);
int model_no_jump;

static void
run_range(Model *m, int lo, int hi)
{
	double *x = m->x;
	for (int i = lo; i < hi; i++) {
		const MOp *o = &m->op[i];
		switch (o->kind) {
		case MK_EXEC: {
			int s = m->eslot[o->eng];
			double t = dmax(ready_at(m, o), x[s]), end = t + o->dur;
			x[s] = end;
			x[m->st + o->eng] += o->dur;
			x[m->st + ST_INSTS] += 1;
			finish(m, o, end, end + o->lat);
			break;
		}
		case MK_XFER: {   /* the queues free first, kept sorted */
			double t = ready_at(m, o), end = 0;
			double *q = x + m->eslot[o->eng];
			int nq = m->nslot[o->eng];
			for (int k = 0; k < o->nq; k++) {
				q[k] = dmax(q[k], t) + o->dur;
				end = dmax(end, q[k]);
			}
			for (int k = 1; k < nq; k++)
				for (int j = k; j > 0 && q[j] < q[j - 1]; j--) {
					double w = q[j];
					q[j] = q[j - 1];
					q[j - 1] = w;
				}
			x[m->st + o->eng] += o->dur * o->nq / nq;
			x[m->st + ST_BYTES] += o->bytes;
			x[m->st + ST_INSTS] += 1;
			x[m->st + ST_XFERS] += 1;
			x[m->st + ST_QUEUES] += o->nq;
			x[m->st + ST_FIXED] += m->t->engines[o->eng].gap_s * o->nq / nq;
			finish(m, o, end, end + o->lat);
			break;
		}
		case MK_FREE: {
			double t = ready_at(m, o);
			finish(m, o, t, t);
			break;
		}
		case MK_BUF:
			fresh(m, o->def);
			break;
		case MK_VIEW: {
			double t = 0;
			for (int k = 0; k < o->nin; k++)
				t = dmax(t, x[o->in[k]]);
			x[T(m, o->wten)] = dmax(x[T(m, o->wten)], t);
			break;
		}
		case MK_LOOP:
			run_loop(m, i);
			i = o->end;
			break;
		default:
			break;
		}
	}
}

static int
same(double a, double b)
{
	return fabs(a - b) <= 1e-12 + 1e-9 * fabs(b);
}

/* Does the state h[k] - h[k - p] equal h[k - p] - h[k - 2p] (history rows of nt)? */
static int
periodic(const double *h, int w, int64_t k, int p, int nt)
{
	const double *a = h + (k % w) * nt, *b = h + ((k - p) % w) * nt, *c = h + ((k - 2 * p) % w) * nt;
	for (int i = 0; i < nt; i++)
		if (!same(a[i] - b[i], b[i] - c[i]))
			return 0;
	return 1;
}

static void
record(Model *m, const int *tv, int nt, double *h, int w, int64_t k)
{
	double *row = h + (k % w) * nt;
	for (int i = 0; i < nt; i++)
		row[i] = m->x[tv[i]];
}

/* One loop: iterations until the state moves by the same delta over two
 * consecutive periods of p iterations (p <= MAXPER), then a checked jump
 * over whole periods (see the top of the file). */
static void
run_loop(Model *m, int at)
{
	const MOp *lp = &m->op[at];
	const int *tv = m->touch + lp->touch;
	int nt = lp->ntouch, lo = at + 1, hi = lp->end, w = HIST;
	double *x = m->x, *h = m->scr + lp->hist, *pre = h + w * nt;
	int64_t k = 0, n = lp->trip, base = 0, wait = 0;
	record(m, tv, nt, h, w, 0);
	while (k < n) {
		m->cnt[at] = k;
		run_range(m, lo, hi);
		record(m, tv, nt, h, w, ++k);
		if (k < wait || model_no_jump)
			continue;
		int p = 1;
		while (p <= MAXPER && !(p % lp->sper == 0 && k - base >= 2 * p && periodic(h, w, k, p, nt)))
			p++;
		if (p > MAXPER)
			continue;
		/* jump c whole periods, then run one more period and compare */
		int64_t c = (n - k) / p - 1;
		const double *now = h + (k % w) * nt, *was = h + ((k - p) % w) * nt;
		while (c > 0) {
			for (int i = 0; i < nt; i++)
				pre[i] = x[tv[i]] = now[i] + (double)c * (now[i] - was[i]);
			for (int r = 0; r < p; r++) {
				m->cnt[at] = k + c * p + r;
				run_range(m, lo, hi);
			}
			int ok = 1;
			for (int i = 0; i < nt && ok; i++)
				ok = same(x[tv[i]] - pre[i], now[i] - was[i]);
			if (ok)
				break;
			for (int i = 0; i < nt; i++)
				x[tv[i]] = now[i];
			c /= 2;
		}
		if (c > 0) {
			k += (c + 1) * p;
			base = k;
			record(m, tv, nt, h, w, k);
		} else
			wait = k + 2 * p;   /* the regime is changing: run on before trying again */
	}
}

/* ---- capacity ----------------------------------------------------------------------- */

/* ---- the model -------------------------------------------------------------------- */

double
model_latency(const Nest *ns, int dtype_bytes, const Footprint *fp, ModelStats *st)
{
	const AxTarget *t = ns->g->t;
	Model m = { .ns = ns, .t = t, .n = ns->n, .nv = ns->nvars > 0 ? ns->nvars : 1, .nn = ns->g->nnodes + 1 };
	if (dtype_bytes <= 0)
		dtype_bytes = 4;
	Footprint own;
	if (!fp) {
		nest_room(ns, &own);
		fp = &own;
	}
	/* fits: the footprint (4 bytes per element) at dtype_bytes, but for a banked
	 * memory (accumulators stay 4 bytes).  Then per memory, the fewest loops a
	 * tile must be made in to get a second buffer, such that it all still fits:
	 * the innermost loops' tiles, which turn over most often, first. */
	int fits = footprint_fits(t, fp, dtype_bytes), dmin[32];
	NestLive lv;
	nest_live(ns, dtype_bytes / 4.0, &lv);
	int maxd = 0;
	for (int v = 0; v < lv.nv; v++)
		if (lv.mem[v] >= 0 && lv.depth[v] > maxd)
			maxd = lv.depth[v];
	for (int k = 0; k < 32; k++) {
		dmin[k] = maxd + 1;
		if (k >= t->nmems || t->mems[k].offchip)
			continue;
		const AxMemory *mm = &t->mems[k];
		for (int d = 1; d <= maxd; d++) {
			double b, u;
			nest_live_peak(&lv, mm, k, d, &b, &u);
			if (b <= (double)mm->bytes && (mm->banks <= 0 || u <= mm->banks)) {
				dmin[k] = d;
				break;
			}
		}
	}
	if (!fits) {   /* it cannot run: nothing to schedule */
		nest_live_free(&lv);
		if (st) {
			*st = (ModelStats){ 0 };
			st->latency = HUGE_VAL;
			st->bottleneck = -1;
		}
		return HUGE_VAL;
	}
	int z = 0;
	for (int e = 0; e < t->nengines && e < MAXENG; e++) {
		m.eslot[e] = z;
		m.nslot[e] = t->engines[e].dma ? (t->engines[e].queues > 0 ? t->engines[e].queues : 1) : 1;
		if (m.nslot[e] > MAXQ)
			m.nslot[e] = MAXQ;
		z += m.nslot[e];
	}
	m.vr = z;
	m.vl = m.vr + m.nv;
	m.va = m.vl + m.nv;
	m.vg = m.va + m.nv;
	m.tn = m.vg + m.nv * MAXBUF;
	m.st = m.tn + m.nn;
	m.z = m.st + ST_N;
	slot_plan(&m);
	for (int v = 0; v < m.nv; v++) {   /* block buffers kept per tile: their slots after the rest */
		m.sbase[v] = m.z;
		m.z += m.nsl[v];
	}
	m.host = malloc(sizeof(int) * (size_t)(m.n + 1));
	m.div = malloc(sizeof(int) * (size_t)(m.n + 1));
	m.mod = malloc(sizeof(int) * (size_t)(m.n + 1));
	m.cnt = calloc((size_t)(m.n + 1), sizeof(int64_t));
	if (!m.host || !m.div || !m.mod || !m.cnt)
		ax_die("out of memory");
	m.x = calloc((size_t)m.z, sizeof(double));
	m.op = calloc((size_t)(m.n + 1), sizeof(MOp));
	m.nbuf = malloc(sizeof(int) * (size_t)m.nv);
	if (!m.x || !m.op || !m.nbuf)
		ax_die("out of memory");
	for (int v = 0; v < m.nv; v++)   /* off-chip values: no on-chip room to wait for */
		m.nbuf[v] = lv.mem[v] < 0 ? MAXBUF : lv.depth[v] >= dmin[lv.mem[v]] ? 2 : 1;
	nest_live_free(&lv);
	compile_ops(&m, dtype_bytes);
	slot_periods(&m);
	collect_touch(&m);
	run_range(&m, 0, m.n);
	double lat = 0;   /* the engines done, and the off-chip tensors written (a transfer's latency after it) */
	for (int s = 0; s < m.vr; s++)
		lat = dmax(lat, m.x[s]);
	for (int s = m.tn; s < m.tn + m.nn; s++)
		lat = dmax(lat, m.x[s]);
	if (st) {
		*st = (ModelStats){ 0 };
		st->latency = lat;
		st->fits = fits;
		st->bottleneck = -1;
		double most = -1;
		for (int e = 0; e < t->nengines && e < MAXENG; e++) {
			st->busy[e] = m.x[m.st + e];
			if (st->busy[e] > most) {
				most = st->busy[e];
				st->bottleneck = e;
			}
		}
		st->bytes = m.x[m.st + ST_BYTES];
		st->insts = m.x[m.st + ST_INSTS];
		st->transfers = m.x[m.st + ST_XFERS];
		st->xfer_queues = m.x[m.st + ST_QUEUES];
		st->xfer_fixed = m.x[m.st + ST_FIXED];
		memcpy(st->dbl, dmin, sizeof st->dbl);
	}
	free(m.x);
	free(m.op);
	free(m.nbuf);
	free(m.nsl);
	free(m.sbase);
	free(m.dims);
	free(m.bdim);
	free(m.sref);
	free(m.host);
	free(m.div);
	free(m.mod);
	free(m.cnt);
	free(m.touch);
	free(m.scr);
	return fits ? lat : HUGE_VAL;
}

void
model_bottleneck_text(const AxTarget *t, const ModelStats *st, char *buf, size_t n)
{
	int e = st->bottleneck;
	if (e < 0 || e >= t->nengines) {
		snprintf(buf, n, "-");
		return;
	}
	const AxEngine *en = &t->engines[e];
	if (!en->dma || st->transfers <= 0 || st->busy[e] <= 0) {
		snprintf(buf, n, "%s", en->name);
		return;
	}
	double b = st->bytes / st->transfers;
	snprintf(buf, n, "%s: %d queues, %.1f per transfer, %.0f%% of busy time fixed per-transfer gap, %.*f %s per transfer",
	         en->name, en->queues > 0 ? en->queues : 1, st->xfer_queues / st->transfers,
	         100 * st->xfer_fixed / st->busy[e], b >= 1024 * 1024 ? 1 : 0,
	         b >= 1024 * 1024 ? b / 1048576 : b >= 1024 ? b / 1024 : b, b >= 1024 * 1024 ? "MiB" : b >= 1024 ? "KiB" : "B");
}
