/*
 * canon_poly.c — the ground floor of the normal form: the Canon's facts and
 * limits, exact coefficients and polynomials (sums of monomials) with
 * their arithmetic.  Everything above it (canon_order.c, canon_range.c,
 * canon.c) builds on these; none of them is called from here.
 */
#include <stdlib.h>
#include <string.h>
#include "canon_poly.h"

int
proves(Canon *c, Term *goal)
{
	if (goal->kind == TK_NUM)
		return goal->num != 0;
	return c->prove && c->prove(c->prove_env, goal);
}

void
give_up(Canon *c, const char *why)
{
	if (!c->overflow)
		c->why = why;
	c->overflow = 1;
}

/* Charges n monomials and, now and then, looks at the clock. */
static int
spend(Canon *c, long n)
{
	c->budget -= n;
	if (c->budget < 0)
		give_up(c, "resource limit: the normal form grew past its budget of monomials");
	if (c->deadline > 0 && (++c->ticks & 255) == 0 && ax_now_ms() > c->deadline)
		give_up(c, "resource limit: the time limit ran out while normalising");
	return c->overflow;
}

void
canon_range(Canon *c, Term *v, Term *hi)
{
	if (c->nrange < 512) {
		c->rvar[c->nrange] = v;
		c->rhi[c->nrange++] = hi;
	}
}

/* ---- coefficients --------------------------------------------------------- */

static Q
q_gcd(Q a, Q b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		Q t = a % b;
		a = b;
		b = t;
	}
	return a ? a : 1;
}

static void
q_norm(Canon *c, Q *n, Q *d)
{
	if (*d < 0) {
		if (__builtin_mul_overflow(*n, -1, n) || __builtin_mul_overflow(*d, -1, d))
			give_up(c, "a coefficient overflowed 128 bits");
	}
	Q g = q_gcd(*n, *d);
	*n /= g;
	*d /= g;
}

static void
q_mul(Canon *c, Q an, Q ad, Q bn, Q bd, Q *n, Q *d)
{
	Q g1 = q_gcd(an, bd), g2 = q_gcd(bn, ad);
	an /= g1;
	bd /= g1;
	bn /= g2;
	ad /= g2;
	if (__builtin_mul_overflow(an, bn, n) || __builtin_mul_overflow(ad, bd, d)) {
		give_up(c, "a coefficient overflowed 128 bits");
		*n = 0;
		*d = 1;
		return;
	}
	q_norm(c, n, d);
}

void
q_add(Canon *c, Q an, Q ad, Q bn, Q bd, Q *n, Q *d)
{
	Q x = 0, y = 0, z = 1;
	if (__builtin_mul_overflow(an, bd, &x) || __builtin_mul_overflow(bn, ad, &y) || __builtin_add_overflow(x, y, n) ||
	    __builtin_mul_overflow(ad, bd, &z)) {
		give_up(c, "a coefficient overflowed 128 bits");
		*n = 0;
		*d = 1;
		return;
	}
	*d = z;
	q_norm(c, n, d);
}

/* A coefficient as a real constant term: exact, also past 64 bits. */
Term *
q_term(Canon *c, Q n, Q d, TermSort s)
{
	if (n >= INT64_MIN && n <= INT64_MAX && d <= INT64_MAX)
		return t_num(c->tc, (int64_t)n, s == TS_INT ? 1 : (int64_t)d, s);
	char buf[96], *p = buf + sizeof buf;
	*--p = 0;
	for (Q x = d; x; x /= 10)
		*--p = (char)('0' + (int)(x % 10));
	*--p = '/';
	int neg = n < 0;
	for (Q x = n; x; x /= 10)
		*--p = (char)('0' + (int)(neg ? -(x % 10) : x % 10));
	if (neg)
		*--p = '-';
	return t_bignum(c->tc, p);
}

/* ---- polynomials ------------------------------------------------------------ */

Poly
p_const(Canon *c, Q num, Q den)
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

Poly
p_atom(Canon *c, Term *t)
{
	Poly p = p_const(c, 1, 1);
	p.m->natoms = 1;
	p.m->atoms = arena_alloc(c->a, sizeof(Term *));
	p.m->atoms[0] = t;
	return p;
}

/* Whether two monomials are the same product of the same atoms under the same
 * sums, as built (the merge below only needs to catch copies). */
static int
m_same(const Mono *x, const Mono *y)
{
	if (x->natoms != y->natoms || x->nvars != y->nvars)
		return 0;
	for (int i = 0; i < x->natoms; i++)
		if (x->atoms[i] != y->atoms[i])
			return 0;
	for (int i = 0; i < x->nvars; i++)
		if (x->vars[i].v != y->vars[i].v || x->vars[i].lo != y->vars[i].lo || x->vars[i].hi != y->vars[i].hi)
			return 0;
	return 1;
}

static uint64_t
m_hash(const Mono *m)
{
	uint64_t h = (uint64_t)m->natoms * 31 + (uint64_t)m->nvars;
	for (int i = 0; i < m->natoms; i++)
		h = (h ^ (uint64_t)(uintptr_t)m->atoms[i]) * 0x100000001b3ull;
	for (int i = 0; i < m->nvars; i++)
		h = (h ^ (uint64_t)(uintptr_t)m->vars[i].v) * 0x100000001b3ull;
	return h;
}

/* Merges copies of one monomial (x + x, as y = y + y makes them). */
static Poly
p_merge(Canon *c, Poly p)
{
	size_t cap = 1;
	while (cap < 2 * (size_t)p.n)
		cap *= 2;
	int *slot = arena_alloc(c->a, sizeof(int) * cap);   /* index + 1 into out */
	Poly out = { 0, arena_alloc(c->a, sizeof(Mono) * (size_t)(p.n + 1)) };
	for (int i = 0; i < p.n; i++) {
		size_t h = (size_t)m_hash(&p.m[i]) & (cap - 1);
		for (; slot[h] && !m_same(&out.m[slot[h] - 1], &p.m[i]); h = (h + 1) & (cap - 1))
			;
		if (!slot[h]) {
			out.m[out.n++] = p.m[i];
			slot[h] = out.n;
			continue;
		}
		Mono *m = &out.m[slot[h] - 1];
		q_add(c, m->num, m->den, p.m[i].num, p.m[i].den, &m->num, &m->den);
	}
	int k = 0;
	for (int i = 0; i < out.n; i++)
		if (out.m[i].num != 0)
			out.m[k++] = out.m[i];
	out.n = k;
	return out;
}

Poly
p_add(Canon *c, Poly a, Poly b)
{
	if (spend(c, a.n + b.n))
		return (Poly){ 0 };
	Poly p = { a.n + b.n, arena_alloc(c->a, sizeof(Mono) * (size_t)(a.n + b.n + 1)) };
	if (a.n)
		memcpy(p.m, a.m, sizeof(Mono) * (size_t)a.n);
	if (b.n)
		memcpy(p.m + a.n, b.m, sizeof(Mono) * (size_t)b.n);
	return p.n > 16 ? p_merge(c, p) : p;
}

Poly
p_scale(Canon *c, Poly a, Q num, Q den)
{
	if (spend(c, a.n))
		return (Poly){ 0 };
	Poly p = { a.n, arena_alloc(c->a, sizeof(Mono) * (size_t)(a.n + 1)) };
	for (int i = 0; i < a.n; i++) {
		p.m[i] = a.m[i];
		q_mul(c, a.m[i].num, a.m[i].den, num, den, &p.m[i].num, &p.m[i].den);
	}
	return p;
}


/* f(a) * f(b) = f(a + b) = f(0) = 1 where a + b is 0, for f with hom 2. */
static void
cancel(Canon *c, Mono *m)
{
	if (!c->hom)
		return;
	for (int i = 0; i < m->natoms; i++) {
		Term *a = m->atoms[i];
		if (a->kind != TK_CALL || a->n != 1 || c->hom[a->id] != 2)
			continue;
		for (int j = i + 1; j < m->natoms; j++) {
			Term *b = m->atoms[j];
			if (b->kind != TK_CALL || b->id != a->id ||
			    c->walk_any(c, t_bin(c->tc, TK_ADD, a->a[0], b->a[0])) != t_num(c->tc, 0, 1, TS_REAL))
				continue;
			m->atoms[j] = m->atoms[--m->natoms];
			m->atoms[i] = m->atoms[--m->natoms];
			i--;
			break;
		}
	}
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
		m.atoms[x->natoms + i] = nren ? t_subst(c->tc, y->atoms[i], from, to, nren) : y->atoms[i];
	cancel(c, &m);
	m.nvars = x->nvars + y->nvars;
	m.vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(m.nvars + 1));
	for (int i = 0; i < x->nvars; i++)
		m.vars[i] = x->vars[i];
	for (int j = 0; j < y->nvars; j++) {
		SVar v = y->vars[j];
		if (nren) {
			v.v = t_subst(c->tc, v.v, from, to, nren);
			v.lo = t_subst(c->tc, v.lo, from, to, nren);
			v.hi = t_subst(c->tc, v.hi, from, to, nren);
		}
		m.vars[x->nvars + j] = v;
	}
	return m;
}

Poly
p_mul(Canon *c, Poly a, Poly b)
{
	if ((int64_t)a.n * b.n > 4096) {   /* a blow-up: give up rather than grow */
		give_up(c, "resource limit: a product of sums of more than 4096 terms");
		return (Poly){ 0 };
	}
	if (spend(c, (long)a.n * b.n))
		return (Poly){ 0 };
	Poly p = { a.n * b.n, arena_alloc(c->a, sizeof(Mono) * (size_t)(a.n * b.n + 1)) };
	for (int i = 0; i < a.n; i++)
		for (int j = 0; j < b.n; j++)
			p.m[i * b.n + j] = m_mul(c, &a.m[i], &b.m[j]);
	return p.n > 16 ? p_merge(c, p) : p;
}
