/*
 * equiv.c — the equivalence checker: do two graphs compute the same outputs
 * for every size of their inputs?  (Paper section 5; docs/checker.md.)
 *
 * The steps, in order:
 *   1. the sides line up (equiv_sides.c: parameters by position, the right
 *      side's size names renamed to the left's) and their assumptions have a
 *      model; otherwise EQ_ERROR, never a vacuous proof;
 *   2. shape condition: the output ranks agree and every output dim of one is
 *      provably the other's;
 *   3. computation condition: at a symbolic index inside the shape, both
 *      outputs' element terms (each op's generated encoder, composed by pull
 *      semantics) are brought to the normal form of canon.c; equal normal
 *      forms are equal; otherwise the rest goes to Z3 with each reduction an
 *      opaque value named by its normal form, each call of a spec'd fn with
 *      the instances of the spec's axioms about it, and each reciprocal 1/d
 *      with d * (1/d) = 1: a proof assumes non-zero denominators, and says so;
 *   4. the spot check: a proof is confirmed by running both sides at small
 *      sizes (equiv_spot.c); a disagreement is a bug of the checker
 *      (EQ_INTERNAL, reported on stderr), never a verdict.
 * Any doubt is "not proved": unknown, a time-out, the normal form's budget,
 * an encoding the translation does not know.  When a proof fails, random
 * small sizes and inputs look for a real counterexample (its first runs before
 * the solver is asked, refuted_by_run).  Verdicts are cached
 * by the pair's normal forms, the assumptions and the compared index range.
 * --timeout-ms bounds the whole check: normal forms and every solver query.
 */
#include <string.h>
#include "equiv.h"

typedef struct EncMemo {     /* a node's element at the index last asked for */
	int n;
	Term *idx[AX_MAXR], *val;
} EncMemo;

typedef struct Enc {
	TermCtx *tc;
	const AxGraph *g;
	const char *const *pname;   /* tensor names by parameter position (shared by both sides) */
	EncMemo *memo;              /* per node: a node read twice at one index is encoded once */
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
	EncMemo *m = &e->memo[id];
	if (m->val && m->n == n && n <= AX_MAXR && memcmp(m->idx, idx, sizeof(Term *) * (size_t)n) == 0)
		return m->val;
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
	Term *v = op->enc(e->tc, &s, idx);
	if (n <= AX_MAXR) {
		m->n = n;
		memcpy(m->idx, idx, sizeof(Term *) * (size_t)n);
		m->val = v;
	}
	return v;
}

/* ---- what Z3 is given of a normal form ---------------------------------------- */

/* Reductions left in a normal form become opaque reals, one per distinct
 * normal form (the same closed term, the same value); calls of spec'd fns and
 * reciprocals are collected for their axioms. */
typedef struct Abs {
	TermCtx *tc;
	int n;
	Term *red[256];
	int ncalls, nrecip;
	Term *call[128], *recip[64];
	int bad;
	TMap memo;
} Abs;

static void
collect(Term **set, int *n, int cap, Term *t, int *bad)
{
	for (int i = 0; i < *n; i++)
		if (set[i] == t)
			return;
	if (*n == cap)
		*bad = 1;
	else
		set[(*n)++] = t;
}

static Term *
abstract(Abs *a, Term *t)
{
	TermCtx *tc = a->tc;
	if (t->kind == TK_SUM || t->kind == TK_RMAX || t->kind == TK_RMIN || t->kind == TK_FOLD) {
		int i;
		for (i = 0; i < a->n && a->red[i] != t; i++)
			;
		if (i == a->n) {
			if (a->n == 256) {
				a->bad = 1;
				return t;
			}
			a->red[a->n++] = t;
		}
		char name[32];
		snprintf(name, sizeof name, "%%reduction%d", i);
		return t_var(tc, name, TS_REAL);
	}
	if (t->n == 0)
		return t;
	int found;
	void **slot = tmap_slot(&a->memo, t, &found);
	if (found)
		return *slot;
	Term *x[16];
	int same = 1;
	for (int i = 0; i < t->n; i++) {
		x[i] = abstract(a, t->a[i]);
		same &= x[i] == t->a[i];
	}
	Term *r = same ? t : t_rebuild(tc, t, x);
	if (r->kind == TK_CALL)
		collect(a->call, &a->ncalls, 128, r, &a->bad);
	if (r->kind == TK_DIV && r->sort == TS_REAL)
		collect(a->recip, &a->nrecip, 64, r, &a->bad);
	*tmap_slot(&a->memo, t, &found) = r;
	return r;
}

/* The spec's axioms about the fns called, instantiated at each call, and
 * d * (1/d) = 1 for each reciprocal (its denominator is assumed non-zero). */
static Term *
axioms(const AxTarget *tg, TermCtx *tc, const Abs *a)
{
	Term *h = t_bool(tc, 1);
	for (int i = 0; i < a->ncalls; i++) {
		const Term *call = a->call[i];
		for (int k = 0; k < tg->naxioms; k++) {
			const AxAxiom *ax = &tg->axioms[k];
			int mentions = 0;
			for (const int *f = ax->fns; f && *f >= 0; f++)
				mentions |= *f == call->id;
			if (mentions && ax->nvars == 1 && call->n == 1)
				h = t_bin(tc, TK_AND, h, ax->inst(tc, &call->a[0]));
			/* a fact of two reals: at each pair of arguments of the calls it is about */
			for (int j = 0; mentions && ax->nvars == 2 && call->n == 1 && j < a->ncalls && j < 16; j++) {
				const Term *other = a->call[j];
				int also = 0;
				for (const int *f = ax->fns; f && *f >= 0; f++)
					also |= *f == other->id;
				if (also && other->n == 1 && i < 16)
					h = t_bin(tc, TK_AND, h, ax->inst(tc, (Term *[]){ call->a[0], other->a[0] }));
			}
		}
	}
	for (int i = 0; i < a->nrecip; i++) {
		Term *r = a->recip[i];
		h = t_bin(tc, TK_AND, h, t_bin(tc, TK_EQ, t_bin(tc, TK_MUL, r->a[1], r), t_num(tc, 1, 1, TS_REAL)));
	}
	return h;
}

/* ---- the checker ------------------------------------------------------------- */

typedef struct CacheEnt {
	Term *l, *r, *key;
	int verdict;
	char *reason;
} CacheEnt;

struct Equiv {
	const AxTarget *t;
	TermCtx *tc;
	Smt *smt;
	int timeout_ms;
	int report;
	int ncache;
	CacheEnt cache[1024];
	int nspot;
	uint64_t spot[1024];    /* pairs whose proof the spot check confirmed */
	int hits, checks;
	int spot_run, spot_none; /* proofs spot-checked by running, and those no small sizes let run */
	int solver_first;       /* equiv_runs_first(q, 0) */
};

Equiv *
equiv_new(const AxTarget *t, TermCtx *tc, int timeout_ms)
{
	Equiv *q = arena_alloc(tc_arena(tc), sizeof *q);
	q->t = t;
	q->tc = tc;
	q->smt = smt_new(t);
	q->timeout_ms = timeout_ms;
	smt_set_timeout(q->smt, timeout_ms);
	return q;
}

void
equiv_free(Equiv *q)
{
	if (q)
		smt_free(q->smt);
}

void
equiv_report(Equiv *q, int on)
{
	q->report = on;
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
	q->nspot = 0;
}

void
equiv_runs_first(Equiv *q, int on)
{
	q->solver_first = !on;
}

void
equiv_stats(const Equiv *q, EquivStats *st)
{
	*st = (EquivStats){ q->checks, q->hits, q->spot_run, q->spot_none };
}

typedef struct Check {
	Equiv *q;
	TermCtx *tc;
	Sides s;
	double deadline;
	EquivResult *r;
	FILE *explain;           /* with report: the normal forms */
	char *exbuf;
	size_t exlen;
	int ndens;
	Term *dens[128];         /* denominators met on both sides, every output */
	uint64_t key;            /* the pair, for the spot check's memory */
	int cex;                 /* the search for a real counterexample: 0 not run, 1 none, 2 cexmsg */
	int cex_runs;            /* the runs it has made so far (CEX_FIRST, then CEX_RUNS) */
	char cexmsg[600];
} Check;

/* The per-query time limit: what is left of the whole check's. */
static int
time_left(Check *k)
{
	if (k->q->timeout_ms <= 0)
		return 1;
	double left = k->deadline - ax_now_ms();
	if (left < 1)
		return 0;
	smt_set_timeout(k->q->smt, (int)left);
	return 1;
}

static int
out_of_time(Check *k)
{
	snprintf(k->r->reason, sizeof k->r->reason, "resource limit: the time limit (--timeout-ms %d) ran out", k->q->timeout_ms);
	return EQ_NOT_PROVED;
}

static int
shape_condition(Check *k)
{
	const AxGraph *a = k->s.a, *b = k->s.b;
	char why[1024];
	for (int o = 0; o < a->noutputs; o++) {
		const AxNode *x = &a->nodes[a->outputs[o]], *y = &b->nodes[b->outputs[o]];
		if (x->rank != y->rank) {
			snprintf(k->r->reason, sizeof k->r->reason, "shape condition: output %d has rank %d and %d", o, x->rank, y->rank);
			return 0;
		}
		for (int d = 0; d < x->rank; d++) {
			Term *yd = sides_rhs(&k->s, y->dim[d]);
			if (!time_left(k))
				return out_of_time(k), 0;
			if (!smt_prove(k->q->smt, k->s.hyp, t_bin(k->tc, TK_EQ, x->dim[d], yd), why, sizeof why)) {
				snprintf(k->r->reason, sizeof k->r->reason,
				         "shape condition: output %d dim %d is %s on one side and %s on the other", o, d,
				         t_infix(k->tc, x->dim[d]), t_infix(k->tc, yd));
				return 0;
			}
		}
	}
	return 1;
}

/* The sum of monomials of a normal form, for --explain's "first difference". */
static int
summands(Term *t, Term **out, int cap)
{
	if (t->kind == TK_ADD) {
		int n = summands(t->a[0], out, cap);
		return n + summands(t->a[1], out + n, cap - n);
	}
	if (cap <= 0)
		return 0;
	out[0] = t;
	return 1;
}

static void
explain_output(Check *k, int o, Term *l, Term *rr)
{
	if (!k->explain)
		return;
	fprintf(k->explain, "output %d, normal forms at index (i0, ...):\n  lhs: %s\n  rhs: %s\n", o, sides_show(k->tc, l),
	        sides_show(k->tc, rr));
	if (l == rr) {
		fprintf(k->explain, "  the same term\n");
		return;
	}
	Term *ls[256], *rs[256];
	int nl = summands(l, ls, 256), nr = summands(rr, rs, 256);
	for (int side = 0; side < 2; side++) {
		Term **x = side ? rs : ls, **y = side ? ls : rs;
		int nx = side ? nr : nl, ny = side ? nl : nr;
		for (int i = 0; i < nx; i++) {
			int j;
			for (j = 0; j < ny && y[j] != x[i]; j++)
				;
			if (j == ny) {
				fprintf(k->explain, "  first summand on the %s only: %s\n", side ? "rhs" : "lhs", sides_show(k->tc, x[i]));
				break;
			}
		}
	}
}

typedef struct Facts {
	Check *k;
	Term *hyp;
} Facts;

/* What canon.c may ask of the sizes: proved under the assumptions and the
 * output index's range, within the check's time. */
static int
prove_fact(void *env, Term *goal)
{
	Facts *f = env;
	char why[256];
	return time_left(f->k) && smt_prove(f->k->q->smt, f->hyp, goal, why, sizeof why);
}

/* The signs of the opaque reductions: a sum of terms >= 0 is >= 0, and > 0
 * when they are > 0 over a range that is not empty; a max or min over a
 * range that is not empty has the sign all its terms share.  Each body is
 * opened at named indices inside its ranges and asked of Z3 with the
 * assumptions and the axioms of its calls. */
static Term *
signs(Check *k, Abs *ab, Term *hyp)
{
	TermCtx *tc = k->tc;
	Term *facts = t_bool(tc, 1), *zero = t_num(tc, 0, 1, TS_REAL);
	char why[256];
	for (int i = 0; i < ab->n && i < 32 && time_left(k); i++) {
		Term *r = ab->red[i];
		if (r->kind == TK_FOLD)
			continue;
		TermKind kind = (TermKind)r->kind;
		Term *ranges = hyp, *body = r, *nonempty = t_bool(tc, 1);
		for (int level = 0; body->kind == kind && (level == 0 || kind == TK_SUM) && level < 8; level++) {
			char nm[32];
			snprintf(nm, sizeof nm, "%%index%d.%d", i, level);
			Term *v = t_var(tc, nm, TS_INT);
			nonempty = t_bin(tc, TK_AND, nonempty, t_bin(tc, TK_LT, body->a[1], body->a[2]));
			ranges = t_bin(tc, TK_AND, ranges, t_bin(tc, TK_AND, t_bin(tc, TK_LE, body->a[1], v), t_bin(tc, TK_LT, v, body->a[2])));
			body = t_open(tc, body->a[3], v);
		}
		/* the body alone, with the axioms of its own calls: the whole check's
		 * nonlinear facts can send Z3 past its time limit, unheeded */
		Abs own = { .tc = tc };
		Term *ba = abstract(&own, body);
		tmap_free(&own.memo);
		if (own.bad)
			continue;
		Term *h = t_bin(tc, TK_AND, ranges, axioms(k->q->t, tc, &own));
		char name[32];
		snprintf(name, sizeof name, "%%reduction%d", i);
		Term *rv = t_var(tc, name, TS_REAL);
		int occupied = smt_prove(k->q->smt, hyp, nonempty, why, sizeof why);
		if (occupied && smt_prove(k->q->smt, h, t_bin(tc, TK_LT, zero, ba), why, sizeof why))
			facts = t_bin(tc, TK_AND, facts, t_bin(tc, TK_LT, zero, rv));
		else if ((occupied || kind == TK_SUM) && smt_prove(k->q->smt, h, t_bin(tc, TK_LE, zero, ba), why, sizeof why))
			facts = t_bin(tc, TK_AND, facts, t_bin(tc, TK_LE, zero, rv));
	}
	return facts;
}

/* The computation condition for output o; 1 proved. */

/* Is some denominator of output o zero wherever the assumptions hold (key)?
 * Then its assumption "d != 0" contradicts them and a proof would be
 * vacuous: 0 * (1 / d) is 0 in the normal form and nan when run (a fuzzed
 * program whose mean of X - X was divided by).  Rejected, with the reason. */
static int
zero_denominator(Check *k, Term *key, Term *const *dens, int nd, int o)
{
	TermCtx *tc = k->tc;
	Term *zero = t_num(tc, 0, 1, TS_REAL), *any = t_bool(tc, 0);
	int hit = -1;
	for (int i = 0; i < nd && hit < 0; i++) {
		if (dens[i] == zero)
			hit = i;
		any = t_bin(tc, TK_OR, any, t_bin(tc, TK_EQ, dens[i], zero));
	}
	if (hit < 0) {
		Abs ab = { .tc = tc };
		Term *a = abstract(&ab, any);
		char why[256];
		if (!ab.bad && time_left(k) && smt_prove_isolated(k->q->smt, key, a, why, sizeof why))
			hit = nd;
		if (ab.memo.cap)
			tmap_free(&ab.memo);
	}
	if (hit < 0)
		return 0;
	snprintf(k->r->reason, sizeof k->r->reason,
	         "computation condition, output %d: %s 0 for every input that meets the assumptions, so no input "
	         "meets the assumption that it is not; rejected", o,
	         hit < nd ? "a denominator is" : "one of the denominators is");
	return 1;
}

/* The search for a real counterexample: random small sizes and inputs, both sides run
 * (equiv_spot.c), CEX_RUNS runs over CEX_TRIES tries from one seed.  sides_run stops at
 * the first difference and its trials depend on the seed and the tries only, so its first
 * `runs` runs are those of a longer search: the first CEX_FIRST of them, before the solver
 * is asked (a pair that differs when run is never proved, and the solver's search for
 * values on the abstraction, nonlinear with fns, costs more than the runs), find exactly
 * the difference the whole search would; the rest only when the proof has failed. */
enum { CEX_FIRST = 3, CEX_RUNS = 24, CEX_TRIES = 24 };
static const uint64_t CEX_SEED = 0x5eed;

static int
refuted_by_run(Check *k, int runs)
{
	if (k->cex == 0 && k->cex_runs < runs && k->s.a->noutputs == k->s.b->noutputs) {
		int ran = 0;
		if (sides_run(&k->s, runs, CEX_TRIES, CEX_SEED, &ran, k->cexmsg, sizeof k->cexmsg))
			k->cex = 2;
		k->cex_runs = runs;
		if (k->cex == 0 && runs >= CEX_RUNS)
			k->cex = 1;
	}
	return k->cex == 2;
}

static int
computation(Check *k, int o)
{
	Equiv *q = k->q;
	TermCtx *tc = k->tc;
	const AxGraph *a = k->s.a, *b = k->s.b;
	const AxNode *x = &a->nodes[a->outputs[o]];
	Term *idx[AX_MAXR];
	Term *inrange = t_bool(tc, 1);
	Canon *c = canon_new(tc, q->t);
	if (q->timeout_ms > 0)
		canon_deadline(c, k->deadline);
	for (int d = 0; d < x->rank; d++) {
		char nm[16];
		snprintf(nm, sizeof nm, "$i%d", d);
		idx[d] = x->dim[d] == t_int(tc, 1) ? t_int(tc, 0) : t_var(tc, nm, TS_INT);   /* a dim of 1 has index 0 */
		inrange = t_bin(tc, TK_AND, inrange,
		                t_bin(tc, TK_AND, t_bin(tc, TK_LE, t_int(tc, 0), idx[d]), t_bin(tc, TK_LT, idx[d], x->dim[d])));
		canon_range(c, idx[d], canon_term(c, x->dim[d]));
	}
	Facts facts = { k, t_bin(tc, TK_AND, k->s.hyp, inrange) };
	canon_prover(c, prove_fact, &facts);
	const char *pname[64];
	for (int p = 0; p < a->nparams && p < 64; p++)
		pname[p] = a->params[p].name;
	Arena *ar = tc_arena(tc);
	Enc ea = { tc, a, pname, arena_alloc(ar, sizeof(EncMemo) * (size_t)(a->nnodes + 1)) };
	Enc eb = { tc, b, pname, arena_alloc(ar, sizeof(EncMemo) * (size_t)(b->nnodes + 1)) };
	Term *l = canon_term(c, enc_node(&ea, a->outputs[o], idx, x->rank));
	Term *rr = canon_term(c, sides_rhs(&k->s, enc_node(&eb, b->outputs[o], idx, x->rank)));
	Term *const *dens;
	int nd = canon_denominators(c, &dens);
	for (int i = 0; i < nd; i++) {
		int j;
		for (j = 0; j < k->ndens && k->dens[j] != dens[i]; j++)
			;
		if (j == k->ndens && k->ndens < 128)
			k->dens[k->ndens++] = dens[i];
	}
	int overflowed = canon_overflowed(c);
	const char *why_canon = canon_why(c);
	canon_free(c);
	if (overflowed) {
		snprintf(k->r->reason, sizeof k->r->reason, "computation condition, output %d: %s; rejected", o, why_canon);
		return 0;
	}
	explain_output(k, o, l, rr);
	k->key = (k->key ^ (uint64_t)(uintptr_t)l) * 0x100000001b3ull;
	k->key = (k->key ^ (uint64_t)(uintptr_t)rr) * 0x100000001b3ull;
	Term *key = t_bin(tc, TK_AND, k->s.hyp, inrange);
	if (nd && zero_denominator(k, key, dens, nd, o))
		return 0;
	if (l == rr)
		return 1;
	for (int i = 0; i < q->ncache; i++)
		if (q->cache[i].l == l && q->cache[i].r == rr && q->cache[i].key == key) {
			q->hits++;
			if (q->cache[i].verdict == EQ_EQUIVALENT)
				return 1;
			snprintf(k->r->reason, sizeof k->r->reason, "%s", q->cache[i].reason);
			return 0;
		}
	Abs ab = { .tc = tc };
	Term *la = abstract(&ab, l), *ra = abstract(&ab, rr);
	char why[1024];
	int ok = 0;
	if (ab.bad)
		snprintf(why, sizeof why, "too many distinct reductions, calls or reciprocals");
	else if (!time_left(k))
		snprintf(why, sizeof why, "resource limit: the time limit (--timeout-ms %d) ran out", q->timeout_ms);
	else if (!q->solver_first && refuted_by_run(k, CEX_FIRST))
		snprintf(why, sizeof why, "the sides differ when run at small sizes");
	else {
		Term *h = t_bin(tc, TK_AND, key, axioms(q->t, tc, &ab));
		ok = smt_prove_isolated(q->smt, h, t_bin(tc, TK_EQ, la, ra), why, sizeof why);   /* Z3 may not stop by itself */
		if (!ok && strncmp(why, "counterexample", 14) == 0 && time_left(k)) {
			/* once more, with the signs the reductions' bodies give them */
			Term *f = signs(k, &ab, key);
			if (f != t_bool(tc, 1) && time_left(k))   /* nonlinear with fns: Z3 may not stop by itself */
				ok = smt_prove_isolated(q->smt, t_bin(tc, TK_AND, h, f), t_bin(tc, TK_EQ, la, ra), why, sizeof why);
		}
		tmap_free(&ab.memo);
		if (!ok && strncmp(why, "counterexample", 14) == 0)
			snprintf(why, sizeof why, "the solver found values at which the normal forms differ");
	}
	if (ab.memo.cap)
		tmap_free(&ab.memo);
	if (!ok)
		snprintf(k->r->reason, sizeof k->r->reason, "computation condition, output %d: %.900s", o, why);
	if (q->ncache < 1024 && strncmp(why, "resource limit", 14) != 0) {
		CacheEnt *ce = &q->cache[q->ncache++];
		*ce = (CacheEnt){ l, rr, key, ok ? EQ_EQUIVALENT : EQ_NOT_PROVED, arena_strdup(tc_arena(tc), k->r->reason) };
	}
	return ok;
}

/* What the proof assumed, for the user: the sides' parts, then the
 * denominators that the sizes do not already make non-zero. */
static void
list_assumptions(Check *k)
{
	EquivResult *r = k->r;
	TermCtx *tc = k->tc;
	char buf[512], why[256];
	for (int i = 0; i < k->s.nparts && r->nassume < 64; i++) {
		const Part *p = &k->s.part[i];
		if (strcmp(p->src, "size") == 0)
			snprintf(buf, sizeof buf, "%s", sides_show(tc, p->t));
		else
			snprintf(buf, sizeof buf, "%.400s (%s)", sides_show(tc, p->t), p->src);
		r->assume[r->nassume++] = arena_strdup(tc_arena(tc), buf);
	}
	for (int i = 0; i < k->ndens && r->nassume < 64; i++) {
		Term *nz = t_bin(tc, TK_NE, k->dens[i], t_num(tc, 0, 1, TS_REAL));
		if (time_left(k) && smt_prove(k->q->smt, k->s.hyp, nz, why, sizeof why))
			continue;   /* a size, say: non-zero by the assumptions */
		snprintf(buf, sizeof buf, "%.400s != 0", sides_show(tc, k->dens[i]));
		r->assume[r->nassume++] = arena_strdup(tc_arena(tc), buf);
	}
}

/* The spot check behind a proof: 1 if it holds (or cannot run), 0 refuted. */
static int
spot_check(Check *k)
{
	Equiv *q = k->q;
	uint64_t key = (k->key ^ (uint64_t)(uintptr_t)k->s.hyp) | 1;
	for (int i = 0; i < q->nspot; i++)
		if (q->spot[i] == key) {
			k->r->spot_runs = -1;   /* confirmed before */
			return 1;
		}
	char msg[600];
	int ran = 0;
	if (sides_run(&k->s, 2, 12, 0x5b07c4ec, &ran, msg, sizeof msg)) {
		snprintf(k->r->reason, sizeof k->r->reason,
		         "internal error: the checker proved '%s' and '%s' equivalent, but running both gives a %.600s; "
		         "this is a bug of axonc, please report it with the program",
		         k->s.a->fn ? k->s.a->fn : "lhs", k->s.b->fn ? k->s.b->fn : "rhs", msg);
		fprintf(stderr, "axonc: %s\n--- lhs\n", k->r->reason);
		graph_print(stderr, k->s.a);
		fprintf(stderr, "--- rhs\n");
		graph_print(stderr, k->s.b);
		return 0;
	}
	k->r->spot_runs = ran;
	if (ran > 0)
		q->spot_run++;
	else
		q->spot_none++;
	if (q->nspot < 1024)
		q->spot[q->nspot++] = key;
	return 1;
}

static int
verdict(Check *k, int v)
{
	EquivResult *r = k->r;
	r->verdict = v;
	if (k->q->report && v != EQ_ERROR)
		list_assumptions(k);
	if (k->explain) {
		fclose(k->explain);
		r->explain = arena_strdup(tc_arena(k->tc), k->exbuf ? k->exbuf : "");
		free(k->exbuf);
		k->explain = NULL;
	}
	return v;
}

/* Not proved: look for a real counterexample. */
static int
not_proved(Check *k)
{
	if (refuted_by_run(k, CEX_RUNS)) {
		snprintf(k->r->reason, sizeof k->r->reason, "%s", k->cexmsg);
		return verdict(k, EQ_NOT_EQUIVALENT);
	}
	return verdict(k, EQ_NOT_PROVED);
}

enum { EQUIV_MAXDEPTH = 20000 };   /* operations on one path: the walks recurse along it */

static int
graph_depth(const AxGraph *g)
{
	int *d = calloc((size_t)g->nnodes + 1, sizeof *d), most = 0;
	if (!d)
		return INT32_MAX;
	for (int id = 0; id < g->nnodes; id++) {   /* producers come first */
		for (int o = 0; o < g->nodes[id].nin; o++) {
			int src = g->nodes[id].in[o];
			if (src >= 0 && src < id && d[src] + 1 > d[id])
				d[id] = d[src] + 1;
		}
		most = d[id] > most ? d[id] : most;
	}
	free(d);
	return most;
}

int
equiv_graphs(Equiv *q, const AxGraph *a, const AxGraph *b, EquivResult *r)
{
	TermCtx *tc = q->tc;
	*r = (EquivResult){ 0 };
	q->checks++;
	Check k = { .q = q, .tc = tc, .r = r, .key = 0xcbf29ce484222325ull };
	k.deadline = ax_now_ms() + q->timeout_ms;
	if (q->report)
		k.explain = open_memstream(&k.exbuf, &k.exlen);
	if (sides_match(tc, a, b, &k.s, r->reason, sizeof r->reason) != 0)
		return verdict(&k, EQ_ERROR);
	int depth = graph_depth(a) > graph_depth(b) ? graph_depth(a) : graph_depth(b);
	if (depth > EQUIV_MAXDEPTH) {
		snprintf(r->reason, sizeof r->reason, "resource limit: a path of %d operations (the checker takes at most %d)",
		         depth, EQUIV_MAXDEPTH);
		return verdict(&k, EQ_NOT_PROVED);
	}
	int c = time_left(&k) ? sides_contradict(q->smt, &k.s, r->reason, sizeof r->reason) : (out_of_time(&k), -1);
	if (c != 0)
		return verdict(&k, c > 0 ? EQ_ERROR : EQ_NOT_PROVED);
	if (a->noutputs != b->noutputs) {
		snprintf(r->reason, sizeof r->reason, "the left side returns %d output%s and the right side %d", a->noutputs,
		         a->noutputs == 1 ? "" : "s", b->noutputs);
		return verdict(&k, EQ_NOT_PROVED);
	}
	if (!shape_condition(&k))
		return not_proved(&k);
	for (int o = 0; o < a->noutputs; o++)
		if (!computation(&k, o))
			return strncmp(r->reason, "resource limit", 14) == 0 ? verdict(&k, EQ_NOT_PROVED) : not_proved(&k);
	if (!spot_check(&k))
		return verdict(&k, EQ_INTERNAL);
	snprintf(r->reason, sizeof r->reason, "equivalent");
	return verdict(&k, EQ_EQUIVALENT);
}
