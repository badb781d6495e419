/*
 * roofline.c — the physical bound of a program at given sizes: the larger
 * of its least off-chip traffic over the bandwidth and its work over the
 * engines' peak.
 *
 * Traffic: every tensor input read once, every output written once, at
 * dtype_bytes per element, over the least of the off-chip memory's
 * bandwidth and the transferring engines' (all data reaches the chip
 * through them).
 *
 * Work comes from the element equations, not from names: each operation's
 * equation is built at a symbolic index and walked; an arithmetic node of
 * real sort counts one per evaluation, and a reduction evaluates its body
 * (and one combine) once per index of its range.  Work inside a sum of a
 * product of two reads that both move with the summed index is contraction
 * work (multiply-accumulates, counted as MACs); the rest is plain
 * arithmetic.  The peak of each kind is found the same way from the
 * instructions: every instruction is probed at sizes 1..8192 (powers of
 * two) that its constraints allow, its work per instance divided by its
 * cost on its engine's clock; contraction work runs at the fastest
 * contraction instruction's rate, plain arithmetic at the sum over engines
 * of each engine's fastest rate (engines run in parallel).  Data movement
 * (layout-only instructions, transferring engines) is not work.
 *
 * The reference kernels' work is counted apart (ref_ops, what validation
 * costs): the same walk with the element's indices at their largest, so a
 * reduction whose range moves with the index (a prefix sum) counts its
 * longest range for every element, as the reference evaluates it.
 */
#include <ctype.h>
#include <pthread.h>
#include <string.h>
#include "measure.h"

typedef struct Work {
	double flops;            /* arithmetic nodes evaluated */
	double ref;              /* ... by the reference kernels, an upper bound, a MAC once (ref_ops) */
	double macs;             /* of which multiply-accumulates of a contraction */
	int bad, ref_bad;
} Work;

static int
extent(const Term *lo, const Term *hi, const AxEnv *env, double *n)
{
	double a, b;
	if (t_eval(lo, env, &a) != 0 || t_eval(hi, env, &b) != 0)
		return -1;
	*n = b > a ? b - a : 0;
	return 0;
}

/* Does t read a tensor at an index that mentions v? */
static int
reads_with(const Term *t, const Term *v)
{
	if (t->kind == TK_TENSOR)
		return t_mentions(t, v);
	for (int i = 0; i < t->n; i++)
		if (reads_with(t->a[i], v))
			return 1;
	return 0;
}

static void
walk(const Term *t, double mult, const AxEnv *env, Work *w)
{
	switch ((TermKind)t->kind) {
	case TK_TENSOR: case TK_NUM: case TK_VAR: case TK_BVAR:
		return;   /* reads and index arithmetic are not work */
	case TK_SUM: case TK_RMAX: case TK_RMIN: case TK_FOLD: {
		double n;
		const Term *body = t->a[t->kind == TK_FOLD ? 5 : 3];
		if (extent(t->a[1], t->a[2], env, &n) != 0) {
			w->bad = 1;
			return;
		}
		w->flops += mult * n;   /* one combine per index */
		w->ref += mult * n;
		if (t->kind == TK_SUM && body->kind == TK_MUL && reads_with(body->a[0], t->a[0]) &&
		    reads_with(body->a[1], t->a[0]))
			w->macs += mult * n;
		if (t->kind == TK_FOLD)
			walk(t->a[4], mult, env, w);
		walk(body, mult * n, env, w);
		return;
	}
	default:
		break;
	}
	if (t->sort == TS_REAL && t->kind != TK_TOREAL && t->kind != TK_ITE) {
		w->flops += mult;
		w->ref += mult;
	}
	for (int i = 0; i < t->n; i++)
		walk(t->a[i], mult, env, w);
}

/* ---- the program's work ------------------------------------------------------------- */

static Term *
access_input(TermCtx *c, void *env, int o, Term *const *idx, int n)
{
	(void)env;
	char name[32];
	snprintf(name, sizeof name, "in%d", o);
	return t_tensor(c, o, name, n, idx);
}

static Term *
index_vars(TermCtx *tc, Term **idx)
{
	char name[32];
	for (int d = 0; d < AX_MAXR; d++) {
		snprintf(name, sizeof name, "%%roof%d", d);
		idx[d] = t_var(tc, name, TS_INT);
	}
	return idx[0];
}

/* Work of node id: its element's work times its elements. */
static void
node_work(const AxGraph *g, int id, const AxEnv *sizes, Work *w)
{
	const AxNode *nd = &g->nodes[id];
	const AxOp *op = node_op(g, nd);
	AxShape out;
	if (nd->op < 0 || op->layout_only || !op->enc || graph_shape(g, id, sizes, &out) != 0)
		return;
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		int src = o < nd->nin ? nd->in[o] : -1;
		s.rank[o] = src >= 0 ? g->nodes[src].rank : -1;
		for (int d = 0; src >= 0 && d < s.rank[o]; d++)
			s.dim[o][d] = g->nodes[src].dim[d];
	}
	memcpy(s.grank, nd->grank, sizeof s.grank);
	memcpy(s.attr, nd->attr, sizeof s.attr);
	memcpy(s.sattr, nd->sattr, sizeof s.sattr);
	s.engine = nd->engine;
	s.access = access_input;
	Term *idx[AX_MAXR];
	index_vars(g->tc, idx);
	Term *elem = op->enc(g->tc, &s, idx);
	Work e = { 0 }, r = { 0 };
	walk(elem, 1, sizes, &e);
	/* the reference's work: the indices at their largest */
	const char *names[128 + AX_MAXR];
	double vals[128 + AX_MAXR];
	int k = 0;
	for (int i = 0; i < sizes->n && i < 128; i++, k++) {
		names[k] = sizes->names[i];
		vals[k] = sizes->vals[i];
	}
	for (int d = 0; d < out.rank; d++, k++) {
		names[k] = idx[d]->name;
		vals[k] = (double)out.d[d] - 1;
	}
	AxEnv hi = { k, names, vals };
	walk(elem, 1, &hi, &r);
	double n = (double)ax_numel(&out);
	w->flops += e.flops * n;
	w->macs += e.macs * n;
	w->bad |= e.bad;
	w->ref += (r.ref - r.macs) * n;   /* a multiply-accumulate counted once, as in macs + flops */
	w->ref_bad |= r.bad;
}

/* ---- the instructions' peaks -------------------------------------------------------- */

/* An operand's pattern "[par K, M]" as symbol indices (>= 0) or literals
 * (-1 - value); the number of entries, or -1 if it has a group or a form
 * this does not read. */
static int
pattern_dims(const AxOp *op, const char *pat, int *ent)
{
	int n = 0;
	const char *p = strchr(pat, '[');
	if (!p)
		return -1;
	for (p++; *p && *p != ']';) {
		while (*p == ' ' || *p == ',')
			p++;
		if (strncmp(p, "par ", 4) == 0)
			p += 4;
		char w[32];
		int k = 0;
		while ((isalnum((unsigned char)*p) || *p == '_') && k < 31)
			w[k++] = *p++;
		w[k] = 0;
		if (!k || n == AX_MAXR)
			return -1;
		if (isdigit((unsigned char)w[0]))
			ent[n++] = -1 - atoi(w);
		else {
			int s = 0;
			while (s < op->nsyms && strcmp(op->syms[s], w) != 0)
				s++;
			if (s == op->nsyms)
				return -1;
			ent[n++] = s;
		}
		while (*p == ' ')
			p++;
	}
	return n;
}

/* The best rates of instruction op: contraction MACs/s and other flops/s per engine. */
static void
probe(const AxTarget *t, TermCtx *tc, const AxOp *op, int dtype_bytes, double *mac_rate, double *flop_rate)
{
	int ent[AX_MAXOPND][AX_MAXR], nd[AX_MAXOPND], nin = 0;
	if (op->layout_only || op->nsyms > 4 || !op->enc || !op->cost)
		return;
	for (int a = 0; a < op->nattr; a++)
		if (op->attr[a].kind == AX_ATTR_SIZE)
			return;
	for (int o = 0; o < op->nopnd; o++) {
		if ((nd[o] = pattern_dims(op, op->opnd[o].pattern, ent[o])) < 0)
			return;
		nin += !op->opnd[o].optional;
	}
	if (!nin)
		return;
	int64_t val[4] = { 1, 1, 1, 1 };
	int total = 1;
	for (int s = 0; s < op->nsyms; s++)
		total *= 14;
	for (int code = 0; code < total; code++) {
		for (int s = 0, c = code; s < op->nsyms; s++, c /= 14)
			val[s] = (int64_t)1 << (c % 14);
		AxConc c = { .nopnd = op->nopnd };
		AxSym sy = { 0 };
		for (int o = 0; o < op->nopnd; o++) {
			c.rank[o] = sy.rank[o] = op->opnd[o].optional ? -1 : nd[o];
			for (int d = 0; d < c.rank[o]; d++) {
				c.dim[o][d] = ent[o][d] >= 0 ? val[ent[o][d]] : -1 - ent[o][d];
				sy.dim[o][d] = t_int(tc, c.dim[o][d]);
			}
		}
		for (int a = 0; a < op->nattr; a++) {   /* a float attribute (a scale) at 1 */
			c.fval[a] = 1;
			if (op->attr[a].kind == AX_ATTR_FLOAT)
				sy.sattr[a] = t_num(tc, 1, 1, TS_REAL);
		}
		sy.access = access_input;
		for (int e = 0; e < t->nengines && e < 32; e++) {
			if (!(op->engines & (1u << e)) || t->engines[e].dma)
				continue;
			c.engine = sy.engine = e;
			AxShape out;
			char err[128];
			if (op->check(&c, &out, err, sizeof err) != 0)
				continue;
			double cyc = op->cost(&c, dtype_bytes);
			double hz = t->engines[e].clock_hz > 0 ? t->engines[e].clock_hz : 1e9;
			if (cyc <= 0)
				continue;
			Term *idx[AX_MAXR];
			index_vars(tc, idx);
			Work w = { 0 };
			AxEnv none = { 0, NULL, NULL };
			walk(op->enc(tc, &sy, idx), 1, &none, &w);
			if (w.bad)
				continue;
			double n = (double)ax_numel(&out), sec = cyc / hz;
			if (w.macs > 0 && w.macs * n / sec > *mac_rate)
				*mac_rate = w.macs * n / sec;
			else if (w.macs == 0 && w.flops * n / sec > flop_rate[e])
				flop_rate[e] = w.flops * n / sec;
		}
	}
}

/* The instructions' peaks of target t at dtype_bytes, probed once: they depend on nothing
 * else, and select_shrink asks for the roofline at each halving (GQA: a fifth of Phase 1
 * probing).  The probe's fresh variables are skipped when it is not run again, so the
 * terms made after it are the same. */
typedef struct Peak {
	const AxTarget *t;
	int dtype_bytes, nfresh;
	double mac_rate, flop_rate[32];
} Peak;

static void
peaks(const AxTarget *t, TermCtx *tc, int dtype_bytes, double *mac_rate, double *flop_rate)
{
	static Peak memo[8];
	static int nmemo;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nmemo; i++)
		if (memo[i].t == t && memo[i].dtype_bytes == dtype_bytes) {
			*mac_rate = memo[i].mac_rate;
			memcpy(flop_rate, memo[i].flop_rate, sizeof memo[i].flop_rate);
			tc_fresh_skip(tc, memo[i].nfresh);
			pthread_mutex_unlock(&lock);
			return;
		}
	int before = tc_fresh_count(tc);
	for (int i = 0; i < t->ninsts; i++)
		probe(t, tc, &t->insts[i], dtype_bytes, mac_rate, flop_rate);
	if (nmemo < 8) {
		Peak *p = &memo[nmemo++];
		*p = (Peak){ .t = t, .dtype_bytes = dtype_bytes, .nfresh = tc_fresh_count(tc) - before, .mac_rate = *mac_rate };
		memcpy(p->flop_rate, flop_rate, sizeof p->flop_rate);
	}
	pthread_mutex_unlock(&lock);
}

double
model_roofline(const AxGraph *g0, const AxEnv *sizes, int dtype_bytes, ModelRoof *r)
{
	const AxTarget *t = g0->t;
	ModelRoof z = { 0 };
	if (dtype_bytes <= 0)
		dtype_bytes = 4;
	/* traffic */
	for (int p = 0; p < g0->nparams; p++) {
		AxShape s;
		if (g0->params[p].tensor && graph_shape(g0, g0->params[p].node, sizes, &s) == 0)
			z.bytes += (double)ax_numel(&s) * dtype_bytes;
	}
	for (int k = 0; k < g0->noutputs; k++) {
		AxShape s;
		if (graph_shape(g0, g0->outputs[k], sizes, &s) == 0)
			z.bytes += (double)ax_numel(&s) * dtype_bytes;
	}
	for (int m = 0; m < t->nmems; m++)
		if (t->mems[m].offchip && t->mems[m].bandwidth > 0 && (z.bandwidth == 0 || t->mems[m].bandwidth < z.bandwidth))
			z.bandwidth = t->mems[m].bandwidth;
	double xfer = 0;
	for (int e = 0; e < t->nengines; e++)
		if (t->engines[e].dma)
			xfer += t->engines[e].bandwidth;
	if (xfer > 0 && (z.bandwidth == 0 || xfer < z.bandwidth))
		z.bandwidth = xfer;
	z.mem_s = z.bandwidth > 0 ? z.bytes / z.bandwidth : 0;
	/* work */
	Work w = { 0 };
	for (int id = 0; id < g0->nnodes; id++)
		node_work(g0, id, sizes, &w);
	z.macs = w.macs;
	z.ref_ops = w.ref_bad ? -1 : w.ref;
	z.flops = w.flops - 2 * w.macs;   /* a MAC is a multiply and an add */
	if (z.flops < 0)
		z.flops = 0;
	double flop_rate[32] = { 0 };
	peaks(t, g0->tc, dtype_bytes, &z.macs_rate, flop_rate);
	for (int e = 0; e < t->nengines && e < 32; e++)
		z.flops_rate += flop_rate[e];
	double tc = z.macs_rate > 0 ? z.macs / z.macs_rate : 0, te = z.flops_rate > 0 ? z.flops / z.flops_rate : 0;
	z.compute_s = tc > te ? tc : te;
	if (r)
		*r = z;
	return z.compute_s > z.mem_s ? z.compute_s : z.mem_s;
}
