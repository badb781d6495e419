/*
 * canon_range.c — sums and maxima over a range, in normal form (the rules are
 * listed in canon.c's header): a monomial summed over one more index (split at
 * a comparison, an ite moved out, re-based to 0, written out when short), and
 * max/min reductions (terms and coefficients out, split, opaque otherwise).
 */

#include <stdlib.h>
#include <string.h>
#include "canon_poly.h"



/* An atom ite(v < s, x, y) (or <=, or s on the left) of m: the split point s
 * with the then-branch below it (*below) or above; NULL if m has none. */
static Term *
split_point(Canon *c, const Mono *m, Term *v, int *at, int *below)
{
	for (int k = 0; k < m->natoms; k++) {
		Term *a = m->atoms[k];
		if (a->kind != TK_ITE || (a->a[0]->kind != TK_LT && a->a[0]->kind != TK_LE))
			continue;
		Term *l = a->a[0]->a[0], *r = a->a[0]->a[1];
		int strict = a->a[0]->kind == TK_LT;
		*at = k;
		if (l == v && !t_mentions(r, v)) {   /* v < r: then below r;  v <= r: then below r + 1 */
			*below = 1;
			return strict ? r : c->walk_int(c, t_bin(c->tc, TK_ADD, r, t_int(c->tc, 1)));
		}
		if (r == v && !t_mentions(l, v)) {   /* l < v: then from l + 1;  l <= v: then from l */
			*below = 0;
			return strict ? c->walk_int(c, t_bin(c->tc, TK_ADD, l, t_int(c->tc, 1))) : l;
		}
	}
	return NULL;
}


/* SUM over v in [lo, hi) of one monomial that mentions v. */
static Poly
m_sum(Canon *c, Mono m, Term *v, Term *lo, Term *hi)
{
	int at, below;
	/* ite(c, x, y) with c free of v: the sum of each branch under the ite
	 * (SUM f * ite(c, x, y) = ite(c, SUM f * x, SUM f * y)), so a sum over the
	 * pieces of a concatenated operand meets the concatenation of sums */
	for (int k = 0; k < m.natoms; k++) {
		Term *a = m.atoms[k];
		int bound = a->kind != TK_ITE || t_mentions(a->a[0], v);
		for (int q = 0; q < m.nvars && !bound; q++)   /* nor of the monomial's other sums */
			bound = t_mentions(a->a[0], m.vars[q].v);
		if (bound)
			continue;
		Term *branch[2];
		for (int side = 0; side < 2; side++) {
			Mono n = m;
			n.atoms = arena_alloc(c->a, sizeof(Term *) * (size_t)(m.natoms + 1));
			memcpy(n.atoms, m.atoms, sizeof(Term *) * (size_t)m.natoms);
			n.atoms[k] = a->a[1 + side];
			branch[side] = p_term(c, p_sum(c, v, lo, hi, c->walk(c, m_term(c, &n, NULL, NULL))), TS_REAL);
		}
		return p_atom(c, t_ite(c->tc, a->a[0], branch[0], branch[1]));
	}
	Term *sp = split_point(c, &m, v, &at, &below);
	if (sp && proves(c, t_bin(c->tc, TK_AND, t_bin(c->tc, TK_LE, lo, sp), t_bin(c->tc, TK_LE, sp, hi)))) {
		/* sum over [lo, sp) + sum over [sp, hi), the ite decided in each */
		Term *ite = m.atoms[at];
		Poly part[2];
		for (int side = 0; side < 2; side++) {
			Mono n = m;
			n.atoms = arena_alloc(c->a, sizeof(Term *) * (size_t)(m.natoms + 1));
			memcpy(n.atoms, m.atoms, sizeof(Term *) * (size_t)m.natoms);
			n.atoms[at] = (side == 0) == (below != 0) ? ite->a[1] : ite->a[2];
			part[side] = p_sum(c, v, side ? sp : lo, side ? hi : sp, c->walk(c, m_term(c, &n, NULL, NULL)));
		}
		return p_add(c, part[0], part[1]);
	}
	if (lo != t_int(c->tc, 0)) {
		/* from 0: SUM over v in [lo, hi) of f(v) = SUM over v in [0, hi - lo) of f(v + lo) */
		Term *len = c->walk_int(c, t_bin(c->tc, TK_SUB, hi, lo));
		Poly body = c->walk(c, m_term(c, &m, v, t_bin(c->tc, TK_ADD, v, lo)));
		return p_sum(c, v, t_int(c->tc, 0), len, body);
	}
	Poly one = { 1, arena_alloc(c->a, sizeof(Mono)) };
	one.m[0] = m;
	SVar *vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(m.nvars + 1));
	if (m.nvars)
		memcpy(vars, m.vars, sizeof(SVar) * (size_t)m.nvars);
	vars[m.nvars] = (SVar){ v, lo, hi };
	one.m->vars = vars;
	one.m->nvars = m.nvars + 1;
	return one;
}

/* SUM over v in [lo, hi) of p: a multi-sum for monomials that mention v,
 * max(hi - lo, 0) times the others.  A sum with one term is its term; a
 * monomial with ite(v < s, x, y) splits at s when lo <= s <= hi (the sizes'
 * facts prove it), so a sum over a concatenation is the sum of the sums; a
 * sum is re-based to start at 0 (ranges compare as lengths). */
Poly
p_sum(Canon *c, Term *v, Term *lo, Term *hi, Poly p)
{
	Poly out = { 0 };
	Term *len = c->walk_int(c, t_bin(c->tc, TK_SUB, hi, lo));
	if (len->kind == TK_NUM && len->num <= 0)
		return out;   /* an empty range */
	if (len->kind == TK_NUM && !len->name && len->num <= 4) {
		/* at most 4 terms: the sum written out, its body at v = lo, lo + 1, ... */
		for (int64_t j = 0; j < len->num; j++)
			for (int i = 0; i < p.n && !c->overflow; i++)
				out = p_add(c, out, c->walk(c, m_term(c, &p.m[i], v, t_bin(c->tc, TK_ADD, lo, t_int(c->tc, j)))));
		return out;
	}
	for (int i = 0; i < p.n && !c->overflow; i++) {
		Mono m = p.m[i];
		int dep = 0;
		for (int k = 0; k < m.natoms && !dep; k++)
			dep = t_mentions(m.atoms[k], v);
		for (int k = 0; k < m.nvars && !dep; k++)
			dep = t_mentions(m.vars[k].lo, v) || t_mentions(m.vars[k].hi, v);
		if (dep) {
			out = p_add(c, out, m_sum(c, m, v, lo, hi));
			continue;
		}
		Poly one = { 1, arena_alloc(c->a, sizeof(Mono)) };
		one.m[0] = m;
		Term *count = t_bin(c->tc, TK_MAX, t_bin(c->tc, TK_SUB, hi, lo), t_int(c->tc, 0));
		double k;
		if (t_eval(count, NULL, &k) == 0)
			out = p_add(c, out, p_scale(c, one, (Q)k, 1));
		else
			out = p_add(c, out, p_mul(c, one, p_atom(c, t_toreal(c->tc, count))));
	}
	return out;
}

/* max over a of max over b of f(a, b) is max over b of max over a: of a
 * directly nested pair of the same reduction whose inner range does not
 * depend on the outer index, the order smaller by t_cmp (nested reductions
 * in either order get one form). */
static Term *
swap_nested(Canon *c, Term *r)
{
	Term *in = r->a[3];
	Term *zero = t_dbvar(c->tc, 0, TS_INT);
	if (in->kind != r->kind || t_mentions(in->a[1], zero) || t_mentions(in->a[2], zero))
		return r;
	static const int down[1] = { 0 }, swap[2] = { 1, 0 };
	Term *ilo = t_dbmap(c->tc, in->a[1], down, 1, -1), *ihi = t_dbmap(c->tc, in->a[2], down, 1, -1);
	Term *olo = t_dbmap(c->tc, r->a[1], NULL, 0, 1), *ohi = t_dbmap(c->tc, r->a[2], NULL, 0, 1);
	Term *body = t_dbmap(c->tc, in->a[3], swap, 2, 0);
	Term *b = t_binder(c->tc, TS_INT);
	Term *s = t_red(c->tc, (TermKind)r->kind, b, ilo, ihi, t_red(c->tc, (TermKind)r->kind, b, olo, ohi, body));
	return t_cmp(s, r) < 0 ? s : r;
}

/* A max/min reduction or fold as an atom: body normalised, its variable (and
 * a fold's accumulator) bound by De Bruijn index. */
Term *
opaque_red(Canon *c, Term *t)
{
	Term *v = t->a[0], *lo = c->walk_int(c, t->a[1]), *hi = c->walk_int(c, t->a[2]);
	Term *r;
	if (t->kind == TK_FOLD) {
		Term *init = p_term(c, c->walk(c, t->a[4]), TS_REAL);
		canon_range(c, v, hi);
		Term *body = p_term(c, c->walk(c, t->a[5]), TS_REAL);
		c->nrange--;
		Term *vars[2] = { t->a[3], v };   /* the accumulator is the inner binder */
		r = t_fold(c->tc, t_binder(c->tc, TS_INT), lo, hi, t_binder(c->tc, TS_REAL), init,
		           t_abstract(c->tc, body, vars, 2));
	} else {
		canon_range(c, v, hi);
		Term *body = p_term(c, c->walk(c, t->a[3]), TS_REAL);
		c->nrange--;
		r = t_red(c->tc, (TermKind)t->kind, t_binder(c->tc, TS_INT), lo, hi, t_abstract(c->tc, body, &v, 1));
		r = swap_nested(c, r);
	}
	return r;
}

/* max (min) over v in [lo, hi) of a body, with the identities of a maximum
 * over a range (each also holds for an empty range, whose max is -inf):
 *   max(c + f(v)) = c + max f(v) for c free of v;
 *   max(q * g(v)) = q * max g(v) for q > 0, = q * min g(v) for q < 0;
 *   max over [lo, hi) of f(v) = max over [0, hi - lo) of f(v + lo);
 *   max of ite(v < s, x, y) = max(max over [lo, s) of x, max over [s, hi) of y)
 *     where lo < s < hi (both parts non-empty; the sizes' facts prove it).
 * What is left is an opaque atom (opaque_red). */
Poly
p_extreme(Canon *c, Term *t)
{
	TermKind k = (TermKind)t->kind, other = k == TK_RMAX ? TK_RMIN : TK_RMAX;
	Term *v = t->a[0], *lo = c->walk_int(c, t->a[1]), *hi = c->walk_int(c, t->a[2]);
	Term *len = c->walk_int(c, t_bin(c->tc, TK_SUB, hi, lo));
	if (len->kind == TK_NUM && !len->name && len->num >= 1 && len->num <= 4) {
		/* at most 4 terms, as a sum: the binary max (min) of the body at v = lo, lo + 1, ... */
		Term *acc = NULL;
		for (int64_t j = 0; j < len->num; j++) {
			Term *from[1] = { v }, *to[1] = { t_bin(c->tc, TK_ADD, lo, t_int(c->tc, j)) };
			Term *x = t_subst(c->tc, t->a[3], from, to, 1);
			acc = acc ? t_bin(c->tc, k == TK_RMAX ? TK_MAX : TK_MIN, acc, x) : x;
		}
		return c->walk(c, acc);
	}
	canon_range(c, v, hi);
	Poly body = c->walk(c, t->a[3]);
	c->nrange--;
	if (c->overflow)
		return body;
	Poly fixed = { 0 }, moving = { 0 };
	for (int i = 0; i < body.n; i++) {
		Mono *m = &body.m[i];
		int dep = 0;
		for (int q = 0; q < m->natoms && !dep; q++)
			dep = t_mentions(m->atoms[q], v);
		for (int q = 0; q < m->nvars && !dep; q++)
			dep = t_mentions(m->vars[q].lo, v) || t_mentions(m->vars[q].hi, v);
		Poly one = { 1, m };
		if (dep)
			moving = p_add(c, moving, one);
		else
			fixed = p_add(c, fixed, one);
	}
	if (moving.n && fixed.n)
		return p_add(c, fixed, c->walk(c, t_red(c->tc, k, v, lo, hi, p_term(c, moving, TS_REAL))));
	if (moving.n == 1 && (moving.m[0].num != 1 || moving.m[0].den != 1)) {
		Mono g = moving.m[0];
		Q n = g.num, d = g.den;
		g.num = 1;
		g.den = 1;
		Poly pg = { 1, &g };
		Term *inner = t_red(c->tc, n > 0 ? k : other, v, lo, hi, p_term(c, pg, TS_REAL));
		return p_scale(c, c->walk(c, inner), n, d);
	}
	if (lo != t_int(c->tc, 0)) {
		Term *len = c->walk_int(c, t_bin(c->tc, TK_SUB, hi, lo));
		Term *from[1] = { v }, *to[1] = { t_bin(c->tc, TK_ADD, v, lo) };
		return c->walk(c, t_red(c->tc, k, v, t_int(c->tc, 0), len, t_subst(c->tc, p_term(c, body, TS_REAL), from, to, 1)));
	}
	if (body.n == 1 && body.m[0].natoms == 1 && body.m[0].nvars == 0 && body.m[0].num == 1 && body.m[0].den == 1) {
		int at, below;
		Term *sp = split_point(c, &body.m[0], v, &at, &below);
		Term *ite = body.m[0].atoms[0];
		if (sp && proves(c, t_bin(c->tc, TK_AND, t_bin(c->tc, TK_LT, lo, sp), t_bin(c->tc, TK_LT, sp, hi)))) {
			Term *x = t_red(c->tc, k, v, lo, sp, below ? ite->a[1] : ite->a[2]);
			Term *y = t_red(c->tc, k, v, sp, hi, below ? ite->a[2] : ite->a[1]);
			Term *px = p_term(c, c->walk(c, x), TS_REAL), *py = p_term(c, c->walk(c, y), TS_REAL);
			return p_atom(c, t_bin(c->tc, k == TK_RMAX ? TK_MAX : TK_MIN, px, py));
		}
	}
	return p_atom(c, opaque_red(c, t));
}
