/*
 * canon.c — a normal form for element terms, so that equal computations
 * become the same term (DESIGN.md, "The equivalence checker", route 2).
 *
 * A real term becomes a polynomial: a sum of monomials, each a rational
 * coefficient times a product of atoms, possibly under a multi-sum
 *     c * SUM over (k1 in [lo1, hi1), k2 ...) of a1 * a2 * ...
 * Atoms are what arithmetic cannot see into: tensor elements (indices in
 * normal form), uninterpreted fns (defined fns are unfolded first), 1 / x
 * (division is multiplication by a reciprocal, never simplified: x may be 0),
 * max/min/select, and max/min reductions and folds (normalised inside, their
 * bound variable renamed canonically).  Every step is an identity of real
 * arithmetic on finite sums:
 *   - distributivity and commutativity of + and *;
 *   - SUM(a + b) = SUM a + SUM b, and c * SUM a = SUM (c * a) when c does not
 *     mention the bound variable, so products of sums become one multi-sum
 *     over the product of their domains (bound variables are renamed apart);
 *   - SUM over k in [lo, hi) of an expression without k is max(hi - lo, 0)
 *     times it;
 *   - fold(acc + g(k) for k in [lo, hi), acc = init) = init + SUM g(k);
 *   - a broadcast index select(d == 1, 0, i) is i when i ranges over [0, d).
 * Integer index terms get the same treatment without sums.  Bound variables
 * of a multi-sum are numbered by their first occurrence in the atoms sorted
 * by a signature that ignores bound variables, so alpha-equivalent sums get
 * the same term (a tie in signatures can only cost a proof, never give one).
 */
#include <stdlib.h>
#include <string.h>
#include "axon.h"

typedef struct SVar {
	Term *v, *lo, *hi;
} SVar;

typedef struct Mono {
	int64_t num, den;
	int natoms, nvars;
	Term **atoms;
	SVar *vars;
} Mono;

typedef struct Poly {
	int n;
	Mono *m;
} Poly;

struct Canon {
	TermCtx *tc;
	Arena *a;
	const AxTarget *t;
	int nrange;
	Term *rvar[512], *rhi[512];   /* index variables and their (normalised) upper bounds */
	int overflow;                 /* a coefficient overflowed: the result must not be trusted */
	int depth;                    /* nesting of opaque reductions, for canonical bound ids */
	int unfold_depth;
};

enum { CANON_BVAR = 1 << 20 };   /* canonical bound variables: CANON_BVAR + k */

Canon *
canon_new(TermCtx *tc, const AxTarget *t)
{
	Canon *c = arena_alloc(tc_arena(tc), sizeof *c);
	c->tc = tc;
	c->a = tc_arena(tc);
	c->t = t;
	return c;
}

void
canon_range(Canon *c, Term *v, Term *hi)
{
	if (c->nrange < 512) {
		c->rvar[c->nrange] = v;
		c->rhi[c->nrange++] = hi;
	}
}

int
canon_overflowed(const Canon *c)
{
	return c->overflow;
}

/* ---- coefficients --------------------------------------------------------- */

static void
q_norm(Canon *c, int64_t *n, int64_t *d)
{
	if (*d < 0) {
		if (*n == INT64_MIN || *d == INT64_MIN)
			c->overflow = 1;
		*n = -*n;
		*d = -*d;
	}
	int64_t g = ax_gcd(*n, *d);
	*n /= g;
	*d /= g;
}

static void
q_mul(Canon *c, int64_t an, int64_t ad, int64_t bn, int64_t bd, int64_t *n, int64_t *d)
{
	int64_t g1 = ax_gcd(an, bd), g2 = ax_gcd(bn, ad);
	an /= g1;
	bd /= g1;
	bn /= g2;
	ad /= g2;
	if (__builtin_mul_overflow(an, bn, n) || __builtin_mul_overflow(ad, bd, d))
		c->overflow = 1;
	q_norm(c, n, d);
}

static void
q_add(Canon *c, int64_t an, int64_t ad, int64_t bn, int64_t bd, int64_t *n, int64_t *d)
{
	int64_t x = 0, y = 0, z = 1;
	if (__builtin_mul_overflow(an, bd, &x) || __builtin_mul_overflow(bn, ad, &y) || __builtin_add_overflow(x, y, n) ||
	    __builtin_mul_overflow(ad, bd, &z))
		c->overflow = 1;
	*d = z;
	q_norm(c, n, d);
}

/* ---- terms: printing for ordering ------------------------------------------- */

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* ---- polynomials ------------------------------------------------------------ */

static Poly
p_const(Canon *c, int64_t num, int64_t den)
{
	Poly p = { 0 };
	if (num == 0)
		return p;
	p.n = 1;
	p.m = arena_alloc(c->a, sizeof *p.m);
	p.m->num = num;
	p.m->den = den;
	return p;
}

static Poly
p_atom(Canon *c, Term *t)
{
	Poly p = p_const(c, 1, 1);
	p.m->natoms = 1;
	p.m->atoms = arena_alloc(c->a, sizeof(Term *));
	p.m->atoms[0] = t;
	return p;
}

static Poly
p_add(Canon *c, Poly a, Poly b)
{
	Poly p = { a.n + b.n, arena_alloc(c->a, sizeof(Mono) * (size_t)(a.n + b.n + 1)) };
	if (a.n)
		memcpy(p.m, a.m, sizeof(Mono) * (size_t)a.n);
	if (b.n)
		memcpy(p.m + a.n, b.m, sizeof(Mono) * (size_t)b.n);
	return p;
}

static Poly
p_scale(Canon *c, Poly a, int64_t num, int64_t den)
{
	Poly p = { a.n, arena_alloc(c->a, sizeof(Mono) * (size_t)(a.n + 1)) };
	for (int i = 0; i < a.n; i++) {
		p.m[i] = a.m[i];
		q_mul(c, a.m[i].num, a.m[i].den, num, den, &p.m[i].num, &p.m[i].den);
	}
	return p;
}

static Mono
m_mul(Canon *c, const Mono *x, const Mono *y)
{
	Mono m = { 0 };
	q_mul(c, x->num, x->den, y->num, y->den, &m.num, &m.den);
	/* rename y's bound variables apart from x's */
	Term *from[64], *to[64];
	int nren = 0;
	for (int j = 0; j < y->nvars && nren < 64; j++)
		for (int i = 0; i < x->nvars; i++)
			if (x->vars[i].v == y->vars[j].v) {
				from[nren] = y->vars[j].v;
				to[nren++] = t_fresh(c->tc, TS_INT);
			}
	m.natoms = x->natoms + y->natoms;
	m.atoms = arena_alloc(c->a, sizeof(Term *) * (size_t)(m.natoms + 1));
	for (int i = 0; i < x->natoms; i++)
		m.atoms[i] = x->atoms[i];
	for (int i = 0; i < y->natoms; i++)
		m.atoms[x->natoms + i] = t_subst(c->tc, y->atoms[i], from, to, nren);
	m.nvars = x->nvars + y->nvars;
	m.vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(m.nvars + 1));
	for (int i = 0; i < x->nvars; i++)
		m.vars[i] = x->vars[i];
	for (int j = 0; j < y->nvars; j++) {
		SVar v = y->vars[j];
		v.v = t_subst(c->tc, v.v, from, to, nren);
		v.lo = t_subst(c->tc, v.lo, from, to, nren);
		v.hi = t_subst(c->tc, v.hi, from, to, nren);
		m.vars[x->nvars + j] = v;
	}
	return m;
}

static Poly
p_mul(Canon *c, Poly a, Poly b)
{
	if ((int64_t)a.n * b.n > 4096) {   /* a blow-up: keep the product as it is */
		c->overflow = 1;
		return p_const(c, 0, 1);
	}
	Poly p = { a.n * b.n, arena_alloc(c->a, sizeof(Mono) * (size_t)(a.n * b.n + 1)) };
	for (int i = 0; i < a.n; i++)
		for (int j = 0; j < b.n; j++)
			p.m[i * b.n + j] = m_mul(c, &a.m[i], &b.m[j]);
	return p;
}

static Term *p_term(Canon *c, Poly p, TermSort s);

/* SUM over v in [lo, hi) of p: a multi-sum for monomials that mention v,
 * max(hi - lo, 0) times the others. */
static Poly
p_sum(Canon *c, Term *v, Term *lo, Term *hi, Poly p)
{
	Poly out = { 0 };
	for (int i = 0; i < p.n; i++) {
		Mono m = p.m[i];
		int dep = 0;
		for (int k = 0; k < m.natoms && !dep; k++)
			dep = t_mentions(m.atoms[k], v);
		for (int k = 0; k < m.nvars && !dep; k++)
			dep = t_mentions(m.vars[k].lo, v) || t_mentions(m.vars[k].hi, v);
		Poly one = { 1, arena_alloc(c->a, sizeof(Mono)) };
		one.m[0] = m;
		if (dep) {
			Mono *n = one.m;
			SVar *vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(m.nvars + 1));
			if (m.nvars)
				memcpy(vars, m.vars, sizeof(SVar) * (size_t)m.nvars);
			vars[m.nvars] = (SVar){ v, lo, hi };
			n->vars = vars;
			n->nvars = m.nvars + 1;
			out = p_add(c, out, one);
			continue;
		}
		Term *count = t_bin(c->tc, TK_MAX, t_bin(c->tc, TK_SUB, hi, lo), t_int(c->tc, 0));
		double k;
		if (t_eval(count, NULL, &k) == 0)
			out = p_add(c, out, p_scale(c, one, (int64_t)k, 1));
		else
			out = p_add(c, out, p_mul(c, one, p_atom(c, t_toreal(c->tc, count))));
	}
	return out;
}

/* ---- normalising ------------------------------------------------------------ */

static Poly norm(Canon *c, Term *t);
static Term *norm_bool(Canon *c, Term *t);

static Term *
norm_int(Canon *c, Term *t)
{
	return p_term(c, norm(c, t), TS_INT);
}

static Term *
norm_any(Canon *c, Term *t)
{
	if (t->sort == TS_BOOL)
		return norm_bool(c, t);
	return p_term(c, norm(c, t), (TermSort)t->sort);
}

static Term *
norm_bool(Canon *c, Term *t)
{
	switch ((TermKind)t->kind) {
	case TK_AND: case TK_OR:
		return t_bin(c->tc, (TermKind)t->kind, norm_bool(c, t->a[0]), norm_bool(c, t->a[1]));
	case TK_NOT:
		return t_not(c->tc, norm_bool(c, t->a[0]));
	case TK_LT: case TK_LE: case TK_EQ: case TK_NE:
		return t_bin(c->tc, (TermKind)t->kind, norm_any(c, t->a[0]), norm_any(c, t->a[1]));
	default:
		return t;
	}
}

static Term *
upper_bound(Canon *c, Term *v)
{
	for (int i = c->nrange - 1; i >= 0; i--)
		if (c->rvar[i] == v)
			return c->rhi[i];
	return NULL;
}

/* Whether index v ranges over [0, hi) with hi = d or hi = max(d, 1): then
 * d == 1 forces v == 0 (the broadcasting identity above). */
static int
bounded_by(Canon *c, Term *v, Term *d)
{
	Term *hi = upper_bound(c, v);
	if (!hi)
		return 0;
	if (hi == d)
		return 1;
	if (hi->kind == TK_MAX) {
		Term *one = t_int(c->tc, 1);
		return (hi->a[0] == d && hi->a[1] == one) || (hi->a[1] == d && hi->a[0] == one);
	}
	return 0;
}

/* A max/min reduction or fold as an atom: body normalised, its bound
 * variables renamed to canonical ids by nesting depth. */
static Term *
opaque_red(Canon *c, Term *t)
{
	Term *v = t->a[0], *lo = norm_int(c, t->a[1]), *hi = norm_int(c, t->a[2]);
	int d = c->depth++;
	Term *cv = t_bvar(c->tc, CANON_BVAR + 2 * d, TS_INT);
	Term *r;
	canon_range(c, v, hi);
	if (t->kind == TK_FOLD) {
		Term *acc = t->a[3];
		Term *cacc = t_bvar(c->tc, CANON_BVAR + 2 * d + 1, TS_REAL);
		Term *init = p_term(c, norm(c, t->a[4]), TS_REAL);
		Term *body = p_term(c, norm(c, t->a[5]), TS_REAL);
		Term *from[2] = { v, acc }, *to[2] = { cv, cacc };
		r = t_fold(c->tc, cv, lo, hi, cacc, init, t_subst(c->tc, body, from, to, 2));
	} else {
		Term *body = p_term(c, norm(c, t->a[3]), TS_REAL);
		r = t_red(c->tc, (TermKind)t->kind, cv, lo, hi, t_subst(c->tc, body, &v, &cv, 1));
	}
	c->nrange--;
	c->depth--;
	return r;
}

static Poly
norm(Canon *c, Term *t)
{
	Term *a[16];
	switch ((TermKind)t->kind) {
	case TK_NUM:
		return p_const(c, t->num, t->den);
	case TK_VAR:
	case TK_BVAR:
		return p_atom(c, t);
	case TK_TENSOR:
		for (int i = 0; i < t->n; i++)
			a[i] = norm_int(c, t->a[i]);
		return p_atom(c, t_tensor(c->tc, t->id, t->name, t->n, a));
	case TK_CALL: {
		const AxFn *f = c->t && t->id < c->t->nfns ? &c->t->fns[t->id] : NULL;
		if (f && f->unfold && c->unfold_depth < 32) {
			c->unfold_depth++;
			Poly p = norm(c, f->unfold(c->tc, t->a));
			c->unfold_depth--;
			return p;
		}
		for (int i = 0; i < t->n; i++)
			a[i] = p_term(c, norm(c, t->a[i]), TS_REAL);
		return p_atom(c, t_call(c->tc, t->id, t->n, a));
	}
	case TK_ADD:
		return p_add(c, norm(c, t->a[0]), norm(c, t->a[1]));
	case TK_SUB:
		return p_add(c, norm(c, t->a[0]), p_scale(c, norm(c, t->a[1]), -1, 1));
	case TK_NEG:
		return p_scale(c, norm(c, t->a[0]), -1, 1);
	case TK_MUL:
		return p_mul(c, norm(c, t->a[0]), norm(c, t->a[1]));
	case TK_DIV:
		if (t->sort == TS_REAL) {
			Poly den = norm(c, t->a[1]);
			if (den.n == 1 && den.m[0].natoms == 0 && den.m[0].nvars == 0)   /* a nonzero constant */
				return p_scale(c, norm(c, t->a[0]), den.m[0].den, den.m[0].num);
			Term *r = t_bin(c->tc, TK_DIV, t_num(c->tc, 1, 1, TS_REAL), p_term(c, den, TS_REAL));
			return p_mul(c, norm(c, t->a[0]), p_atom(c, r));
		}
		return p_atom(c, t_bin(c->tc, TK_DIV, norm_any(c, t->a[0]), norm_any(c, t->a[1])));   /* integer: an atom */
	case TK_MOD:
	case TK_MAX:
	case TK_MIN:
		return p_atom(c, t_bin(c->tc, (TermKind)t->kind, norm_any(c, t->a[0]), norm_any(c, t->a[1])));
	case TK_TOREAL: {
		Term *x = norm_int(c, t->a[0]);
		if (x->kind == TK_NUM)
			return p_const(c, x->num, x->den);
		return p_atom(c, t_toreal(c->tc, x));
	}
	case TK_ITE: {
		Term *cond = norm_bool(c, t->a[0]);
		Term *x = norm_any(c, t->a[1]), *y = norm_any(c, t->a[2]);
		/* broadcasting reads index 0 where a dim is 1: select(d == 1, 0, i) is i
		 * when i ranges over [0, d) */
		if (cond->kind == TK_EQ && cond->a[1]->kind == TK_NUM && cond->a[1]->num == 1 && x->kind == TK_NUM &&
		    x->num == 0 && bounded_by(c, y, cond->a[0]))
			return norm(c, y);
		if (cond->kind == TK_NUM)
			return norm(c, cond->num ? x : y);
		return p_atom(c, t_ite(c->tc, cond, x, y));
	}
	case TK_SUM: {
		Term *lo = norm_int(c, t->a[1]), *hi = norm_int(c, t->a[2]);
		canon_range(c, t->a[0], hi);
		Poly body = norm(c, t->a[3]);
		c->nrange--;
		return p_sum(c, t->a[0], lo, hi, body);
	}
	case TK_FOLD: {
		/* fold(acc + g for k in [lo, hi), acc = init) = init + SUM g */
		Term *acc = t->a[3];
		canon_range(c, t->a[0], norm_int(c, t->a[2]));
		Poly body = norm(c, t->a[5]);
		c->nrange--;
		int plain = -1, other = 0;
		for (int i = 0; i < body.n; i++) {
			Mono *m = &body.m[i];
			int has = 0;
			for (int k = 0; k < m->natoms; k++)
				has += t_mentions(m->atoms[k], acc);
			if (m->natoms == 1 && m->atoms[0] == acc && m->nvars == 0 && m->num == 1 && m->den == 1 && plain < 0)
				plain = i;
			else if (has)
				other = 1;
		}
		if (plain >= 0 && !other) {
			Poly g = { 0 };
			for (int i = 0; i < body.n; i++)
				if (i != plain) {
					Poly one = { 1, &body.m[i] };
					g = p_add(c, g, one);
				}
			Term *lo = norm_int(c, t->a[1]), *hi = norm_int(c, t->a[2]);
			return p_add(c, norm(c, t->a[4]), p_sum(c, t->a[0], lo, hi, g));
		}
		return p_atom(c, opaque_red(c, t));
	}
	case TK_RMAX:
	case TK_RMIN:
		return p_atom(c, opaque_red(c, t));
	default:
		ax_die("canon: a %s term in place of a number", t->sort == TS_BOOL ? "boolean" : "strange");
	}
}

/* ---- back to terms, in canonical order ----------------------------------------- */

typedef struct Keyed {
	const char *key;
	Term *t;
} Keyed;

static int
cmp_keyed(const void *x, const void *y)
{
	return strcmp(((const Keyed *)x)->key, ((const Keyed *)y)->key);
}

/* The bound variables of m renamed by first occurrence in its atoms sorted by
 * a signature blind to them; returns the monomial's body and sum, without
 * the coefficient. */
static Term *
m_body(Canon *c, const Mono *m, TermSort s)
{
	int na = m->natoms, nv = m->nvars;
	Term *from[64], *to[64];
	Keyed *ks = arena_alloc(c->a, sizeof(Keyed) * (size_t)(na + 1));
	Term *blind = t_bvar(c->tc, -1, TS_INT);
	for (int i = 0; i < nv && i < 64; i++) {
		from[i] = m->vars[i].v;
		to[i] = blind;
	}
	for (int i = 0; i < na; i++) {
		ks[i].t = m->atoms[i];
		ks[i].key = t_str(c->tc, t_subst(c->tc, m->atoms[i], from, to, nv < 64 ? nv : 64));
	}
	qsort(ks, (size_t)na, sizeof *ks, cmp_keyed);
	/* number the variables by first occurrence */
	int order[64], no = 0;
	for (int i = 0; i < na; i++)
		for (int k = 0; k < nv && k < 64; k++) {
			int seen = 0;
			for (int j = 0; j < no; j++)
				seen |= order[j] == k;
			if (!seen && t_mentions(ks[i].t, m->vars[k].v))
				order[no++] = k;
		}
	for (int k = 0; k < nv && k < 64; k++) {
		int seen = 0;
		for (int j = 0; j < no; j++)
			seen |= order[j] == k;
		if (!seen)
			order[no++] = k;
	}
	int base = CANON_BVAR + 4096;   /* apart from opaque reductions' ids */
	for (int j = 0; j < no; j++) {
		from[j] = m->vars[order[j]].v;
		to[j] = t_bvar(c->tc, base + j, TS_INT);
	}
	for (int i = 0; i < na; i++) {
		ks[i].t = t_subst(c->tc, ks[i].t, from, to, no);
		ks[i].key = t_str(c->tc, ks[i].t);
	}
	qsort(ks, (size_t)na, sizeof *ks, cmp_keyed);
	Term *body = NULL;
	for (int i = 0; i < na; i++)
		body = body ? t_bin(c->tc, TK_MUL, body, ks[i].t) : ks[i].t;
	if (!body)
		body = t_num(c->tc, 1, 1, s);
	for (int j = no - 1; j >= 0; j--) {
		const SVar *v = &m->vars[order[j]];
		body = t_red(c->tc, TK_SUM, to[j], t_subst(c->tc, v->lo, from, to, no), t_subst(c->tc, v->hi, from, to, no),
		             t_toreal(c->tc, body));
	}
	return body;
}

static Term *
p_term(Canon *c, Poly p, TermSort s)
{
	/* combine like monomials */
	Keyed *ks = arena_alloc(c->a, sizeof(Keyed) * (size_t)(p.n + 1));
	int64_t *num = arena_alloc(c->a, sizeof(int64_t) * (size_t)(p.n + 1));
	int64_t *den = arena_alloc(c->a, sizeof(int64_t) * (size_t)(p.n + 1));
	int n = 0;
	for (int i = 0; i < p.n; i++) {
		Term *b = m_body(c, &p.m[i], s);
		int j;
		for (j = 0; j < n; j++)
			if (ks[j].t == b)
				break;
		if (j == n) {
			ks[n].t = b;
			ks[n].key = t_str(c->tc, b);
			num[n] = 0;
			den[n] = 1;
			n++;
		}
		q_add(c, num[j], den[j], p.m[i].num, p.m[i].den, &num[j], &den[j]);
	}
	/* sort by key, carrying coefficients */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(ks[j - 1].key, ks[j].key) > 0; j--) {
			Keyed k = ks[j];
			ks[j] = ks[j - 1];
			ks[j - 1] = k;
			int64_t x = num[j], y = den[j];
			num[j] = num[j - 1];
			den[j] = den[j - 1];
			num[j - 1] = x;
			den[j - 1] = y;
		}
	Term *total = NULL;
	for (int i = 0; i < n; i++) {
		if (num[i] == 0)
			continue;
		Term *m = ks[i].t;
		int one = m->kind == TK_NUM;
		if (s == TS_INT && den[i] != 1)
			c->overflow = 1;   /* a fraction in an integer term: cannot happen for spec'd ops */
		Term *k = t_num(c->tc, num[i], s == TS_INT ? 1 : den[i], s);
		Term *term = one ? k : (num[i] == 1 && den[i] == 1) ? m : t_bin(c->tc, TK_MUL, k, m);
		total = total ? t_bin(c->tc, TK_ADD, total, term) : term;
	}
	(void)cmp_str;
	return total ? total : t_num(c->tc, 0, 1, s);
}

Term *
canon_term(Canon *c, Term *t)
{
	if (t->sort == TS_BOOL)
		return norm_bool(c, t);
	return p_term(c, norm(c, t), (TermSort)t->sort);
}
