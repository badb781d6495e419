/*
 * equiv.c — the equivalence checker: do two graphs compute the same outputs
 * for every size of their inputs?  (Paper section 4; DESIGN.md's checker.)
 *
 * Inputs are matched by position and are uninterpreted functions from
 * indices to reals; sizes are symbolic integers >= 1 under both programs'
 * assumptions.  Shape condition: the output ranks agree and every output dim
 * of one is provably the other's.  Computation condition: at a symbolic
 * index inside the shape, both outputs' element terms (each op's generated
 * encoder, composed by pull semantics) are brought to the normal form of
 * canon.c; equal normal forms are equal; otherwise the rest goes to Z3 with
 * each reduction an opaque value named by its normal form.  Any doubt is
 * "not proved": unknown, timeout, a coefficient overflow, an encoding the
 * translation does not know.  When a proof fails, random small sizes and
 * inputs run through the reference kernels look for a real counterexample.
 * Verdicts are cached by the pair's normal forms.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "axon.h"

typedef struct Enc {
	TermCtx *tc;
	const AxGraph *g;
	const char *const *pname;   /* tensor names by parameter position (shared by both sides) */
} Enc;

static Term *enc_node(Enc *e, int node, Term *const *idx, int n);

static Term *
access(TermCtx *tc, void *env, int o, Term *const *idx, int n)
{
	(void)tc;
	Enc *e = ((Enc **)env)[0];
	const AxNode *node = ((const AxNode **)env)[1];
	return enc_node(e, node->in[o], idx, n);
}

/* The element of node at idx (pull semantics through the ops' encoders). */
static Term *
enc_node(Enc *e, int id, Term *const *idx, int n)
{
	const AxNode *nd = &e->g->nodes[id];
	if (nd->op < 0)
		return t_tensor(e->tc, nd->input, e->pname[nd->input], n, idx);
	const AxOp *op = node_op(e->g, nd);
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		int src = o < nd->nin ? nd->in[o] : -1;
		s.rank[o] = src >= 0 ? e->g->nodes[src].rank : -1;
		for (int d = 0; src >= 0 && d < s.rank[o]; d++)
			s.dim[o][d] = e->g->nodes[src].dim[d];
	}
	memcpy(s.grank, nd->grank, sizeof s.grank);
	memcpy(s.attr, nd->attr, sizeof s.attr);
	memcpy(s.sattr, nd->sattr, sizeof s.sattr);
	s.engine = nd->engine;
	const void *env[2] = { e, nd };
	s.access = access;
	s.env = (void *)env;
	return op->enc(e->tc, &s, idx);
}

/* Reductions left in a normal form become opaque reals, one per distinct
 * normal form (the same term, the same value). */
typedef struct Abs {
	int n;
	Term *red[256];
} Abs;

static Term *
abstract(TermCtx *tc, Abs *a, Term *t, int *bad)
{
	if (t->kind == TK_SUM || t->kind == TK_RMAX || t->kind == TK_RMIN || t->kind == TK_FOLD) {
		for (int i = 0; i < a->n; i++)
			if (a->red[i] == t)
				goto found;
		if (a->n == 256) {
			*bad = 1;
			return t;
		}
		a->red[a->n++] = t;
	found:;
		char name[32];
		for (int i = 0; i < a->n; i++)
			if (a->red[i] == t)
				snprintf(name, sizeof name, "%%reduction%d", i);
		return t_var(tc, name, TS_REAL);
	}
	if (t->n == 0)
		return t;
	Term *x[16];
	int same = 1;
	for (int i = 0; i < t->n; i++) {
		x[i] = abstract(tc, a, t->a[i], bad);
		same &= x[i] == t->a[i];
	}
	if (same)
		return t;
	switch ((TermKind)t->kind) {
	case TK_TENSOR: return t_tensor(tc, t->id, t->name, t->n, x);
	case TK_CALL: return t_call(tc, t->id, t->n, x);
	case TK_NEG: return t_neg(tc, x[0]);
	case TK_NOT: return t_not(tc, x[0]);
	case TK_TOREAL: return t_toreal(tc, x[0]);
	case TK_ITE: return t_ite(tc, x[0], x[1], x[2]);
	default: return t_bin(tc, (TermKind)t->kind, x[0], x[1]);
	}
}

typedef struct CacheEnt {
	Term *l, *r, *hyp;
	int verdict;
	char *reason;
} CacheEnt;

struct Equiv {
	const AxTarget *t;
	TermCtx *tc;
	Smt *smt;
	int ncache;
	CacheEnt cache[1024];
	int hits, checks;
};

Equiv *
equiv_new(const AxTarget *t, TermCtx *tc, int timeout_ms)
{
	Equiv *q = arena_alloc(tc_arena(tc), sizeof *q);
	q->t = t;
	q->tc = tc;
	q->smt = smt_new(t);
	smt_set_timeout(q->smt, timeout_ms);
	return q;
}

void
equiv_free(Equiv *q)
{
	if (q)
		smt_free(q->smt);
}

Smt *
equiv_smt(Equiv *q)
{
	return q->smt;
}

void
equiv_clear_cache(Equiv *q)
{
	q->ncache = 0;
}

void
equiv_stats(const Equiv *q, int *checks, int *hits)
{
	*checks = q->checks;
	*hits = q->hits;
}

static Term *
hypothesis(Equiv *q, const AxGraph *a, const AxGraph *b, Term *extra)
{
	Term *h = extra ? extra : t_bool(q->tc, 1);
	const AxGraph *gs[2] = { a, b };
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < gs[k]->nsyms; i++)
			h = t_bin(q->tc, TK_AND, h, t_bin(q->tc, TK_LE, t_int(q->tc, 1), t_var(q->tc, gs[k]->syms[i], TS_INT)));
		for (int i = 0; i < gs[k]->nassume; i++)
			h = t_bin(q->tc, TK_AND, h, gs[k]->assume[i]);
	}
	return h;
}

/* Random small sizes and inputs: a concrete disagreement, or 0. */
static int
find_counterexample(const AxGraph *a, const AxGraph *b, char *msg, size_t n)
{
	const char *names[80];
	double vals[80];
	uint64_t st = 0x5eed;
	for (int trial = 0; trial < 24; trial++) {
		int nv = 0;
		const AxGraph *gs[2] = { a, b };
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < gs[k]->nsyms && nv < 64; i++) {
				int seen = 0;
				for (int j = 0; j < nv; j++)
					seen |= strcmp(names[j], gs[k]->syms[i]) == 0;
				if (seen)
					continue;
				st = st * 6364136223846793005ull + 1442695040888963407ull;
				names[nv] = gs[k]->syms[i];
				vals[nv++] = (double)(1 + (st >> 33) % (trial < 8 ? 3 : 6));
			}
		for (int k = 0; k < 2; k++)
			for (int p = 0; p < gs[k]->nparams && nv < 80; p++)
				if (!gs[k]->params[p].tensor) {
					names[nv] = gs[k]->params[p].name;
					vals[nv++] = gs[k]->params[p].defval;
				}
		AxEnv env = { nv, names, vals };
		int ok = 1;
		for (int k = 0; k < 2 && ok; k++)
			for (int i = 0; i < gs[k]->nassume && ok; i++) {
				double v;
				ok = t_eval(gs[k]->assume[i], &env, &v) == 0 && v != 0;
			}
		if (!ok)
			continue;
		float *in[64] = { 0 };
		int np_ = 0, fail = 0;
		for (int p = 0; p < a->nparams; p++) {
			if (!a->params[p].tensor)
				continue;
			AxShape s;
			if (graph_shape(a, a->params[p].node, &env, &s) != 0) {
				fail = 1;
				break;
			}
			int64_t numel = ax_numel(&s);
			in[p] = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
			for (int64_t i = 0; i < numel; i++) {
				st = st * 6364136223846793005ull + 1442695040888963407ull;
				in[p][i] = (float)((double)(st >> 40) / 16777216.0 * 2.0 - 1.0);
			}
			np_ = p + 1;
		}
		float *oa[16] = { 0 }, *ob[16] = { 0 };
		AxShape sa[16], sb[16];
		char err[256];
		int found = 0;
		if (!fail && graph_run(a, &env, (const float *const *)in, oa, sa, err, sizeof err) == 0 &&
		    graph_run(b, &env, (const float *const *)in, ob, sb, err, sizeof err) == 0) {
			for (int k = 0; k < a->noutputs && !found; k++) {
				int64_t numel = ax_numel(&sa[k]);
				int same_shape = sa[k].rank == sb[k].rank;
				for (int d = 0; same_shape && d < sa[k].rank; d++)
					same_shape = sa[k].d[d] == sb[k].d[d];
				if (!same_shape) {
					found = 1;
					snprintf(msg, n, "output %d has different shapes", k);
					break;
				}
				for (int64_t i = 0; i < numel; i++) {
					double x = oa[k][i], y = ob[k][i];
					if ((isnan(x) && isnan(y)) || fabs(x - y) <= 1e-3 * (1 + fabs(x) + fabs(y)))
						continue;
					found = 1;
					snprintf(msg, n, "output %d element %lld is %g on one side and %g on the other", k, (long long)i, x,
					         y);
					break;
				}
			}
		}
		for (int k = 0; k < 16; k++) {
			free(oa[k]);
			free(ob[k]);
		}
		for (int p = 0; p < np_; p++)
			free(in[p]);
		if (found) {
			char sizes[256] = "";
			size_t len = 0;
			for (int i = 0; i < nv; i++) {
				int size = 0;
				for (int k = 0; k < 2; k++)
					for (int j = 0; j < gs[k]->nsyms; j++)
						size |= strcmp(gs[k]->syms[j], names[i]) == 0;
				if (size && len < sizeof sizes - 32)
					len += (size_t)snprintf(sizes + len, sizeof sizes - len, "%s%s=%g", len ? " " : "", names[i], vals[i]);
			}
			char detail[256];
			snprintf(detail, sizeof detail, "%.250s", msg);
			snprintf(msg, n, "counterexample %.200s: %.250s", sizes, detail);
			return 1;
		}
	}
	return 0;
}

int
equiv_graphs(Equiv *q, const AxGraph *a, const AxGraph *b, EquivResult *r)
{
	TermCtx *tc = q->tc;
	*r = (EquivResult){ 0 };
	r->verdict = EQ_NOT_PROVED;
	q->checks++;
	/* inputs by position: same kinds and ranks; their dims are the same sizes */
	const char *pname[64];
	Term *match = t_bool(tc, 1);
	if (a->nparams != b->nparams) {
		snprintf(r->reason, sizeof r->reason, "the functions take %d and %d parameters", a->nparams, b->nparams);
		return r->verdict;
	}
	for (int p = 0; p < a->nparams && p < 64; p++) {
		const AxParam *x = &a->params[p], *y = &b->params[p];
		pname[p] = x->name;
		if (x->tensor != y->tensor) {
			snprintf(r->reason, sizeof r->reason, "parameter %d is a tensor on one side only", p + 1);
			return r->verdict;
		}
		if (!x->tensor) {
			if (strcmp(x->name, y->name) != 0 || x->defval != y->defval) {
				snprintf(r->reason, sizeof r->reason, "scalar parameter %d differs ('%s' and '%s')", p + 1, x->name,
				         y->name);
				return r->verdict;
			}
			continue;
		}
		const AxNode *nx = &a->nodes[x->node], *ny = &b->nodes[y->node];
		if (nx->rank != ny->rank) {
			snprintf(r->reason, sizeof r->reason, "parameter '%s' has rank %d and %d", x->name, nx->rank, ny->rank);
			return r->verdict;
		}
		for (int d = 0; d < nx->rank; d++)
			match = t_bin(tc, TK_AND, match, t_bin(tc, TK_EQ, nx->dim[d], ny->dim[d]));
	}
	Term *hyp = hypothesis(q, a, b, match);
	char why[1024];
	/* shape condition */
	if (a->noutputs != b->noutputs) {
		snprintf(r->reason, sizeof r->reason, "shape condition: %d outputs against %d", a->noutputs, b->noutputs);
		goto cex;
	}
	for (int k = 0; k < a->noutputs; k++) {
		const AxNode *x = &a->nodes[a->outputs[k]], *y = &b->nodes[b->outputs[k]];
		if (x->rank != y->rank) {
			snprintf(r->reason, sizeof r->reason, "shape condition: output %d has rank %d and %d", k, x->rank, y->rank);
			goto cex;
		}
		for (int d = 0; d < x->rank; d++)
			if (!smt_prove(q->smt, hyp, t_bin(tc, TK_EQ, x->dim[d], y->dim[d]), why, sizeof why)) {
				snprintf(r->reason, sizeof r->reason, "shape condition: output %d dim %d is %s on one side and %s on the other",
				         k, d, t_infix(tc, x->dim[d]), t_infix(tc, y->dim[d]));
				goto cex;
			}
	}
	/* computation condition, output by output */
	for (int k = 0; k < a->noutputs; k++) {
		const AxNode *x = &a->nodes[a->outputs[k]];
		Term *idx[AX_MAXR];
		Term *inrange = t_bool(tc, 1);
		Canon *c = canon_new(tc, q->t);
		for (int d = 0; d < x->rank; d++) {
			char nm[16];
			snprintf(nm, sizeof nm, "$i%d", d);
			idx[d] = t_var(tc, nm, TS_INT);
			inrange = t_bin(tc, TK_AND, inrange, t_bin(tc, TK_AND, t_bin(tc, TK_LE, t_int(tc, 0), idx[d]),
			                                                    t_bin(tc, TK_LT, idx[d], x->dim[d])));
			canon_range(c, idx[d], canon_term(c, x->dim[d]));
		}
		Enc ea = { tc, a, pname }, eb = { tc, b, pname };
		Term *l = canon_term(c, enc_node(&ea, a->outputs[k], idx, x->rank));
		Term *rr = canon_term(c, enc_node(&eb, b->outputs[k], idx, x->rank));
		if (canon_overflowed(c)) {
			snprintf(r->reason, sizeof r->reason, "computation condition: the normal form overflowed; rejected");
			goto cex;
		}
		if (l == rr)
			continue;
		for (int i = 0; i < q->ncache; i++)
			if (q->cache[i].l == l && q->cache[i].r == rr && q->cache[i].hyp == hyp) {
				q->hits++;
				if (q->cache[i].verdict == EQ_EQUIVALENT)
					goto next;
				snprintf(r->reason, sizeof r->reason, "%s", q->cache[i].reason);
				goto cex;
			}
		Abs ab = { 0 };
		int bad = 0;
		Term *la = abstract(tc, &ab, l, &bad), *ra = abstract(tc, &ab, rr, &bad);
		int ok = !bad && smt_prove(q->smt, t_bin(tc, TK_AND, hyp, inrange), t_bin(tc, TK_EQ, la, ra), why, sizeof why);
		if (!ok) {
			if (bad)
				snprintf(why, sizeof why, "too many distinct reductions");
			char *nl = strchr(why, '\n');
			if (nl && strncmp(why, "counterexample", 14) == 0)
				snprintf(why, sizeof why, "the solver found values at which the normal forms differ");
			snprintf(r->reason, sizeof r->reason, "computation condition, output %d: %.900s", k, why);
		}
		if (q->ncache < 1024) {
			CacheEnt *ce = &q->cache[q->ncache++];
			ce->l = l;
			ce->r = rr;
			ce->hyp = hyp;
			ce->verdict = ok ? EQ_EQUIVALENT : EQ_NOT_PROVED;
			ce->reason = arena_strdup(tc_arena(tc), r->reason);
		}
		if (!ok)
			goto cex;
	next:;
	}
	r->verdict = EQ_EQUIVALENT;
	snprintf(r->reason, sizeof r->reason, "equivalent");
	return r->verdict;
cex:;
	char msg[512];
	if (find_counterexample(a, b, msg, sizeof msg)) {
		r->verdict = EQ_NOT_EQUIVALENT;
		snprintf(r->reason, sizeof r->reason, "%s", msg);
	}
	return r->verdict;
}
