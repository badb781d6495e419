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
 * Integer index terms get the same treatment without sums.
 *
 * Bound variables.  The encoders bind each reduction's variable with a fresh
 * name; a normal form binds it by De Bruijn index (term.c, t_abstract): a
 * canonical reduction has a placeholder in its variable slot and refers to
 * its variable by the number of binders between the use and the binder.  So
 * a normal form never depends on bound names, a free index can never be
 * captured by an inner reduction when an outer one is bound (the bug of a
 * numbering by fixed ids: two contractions confused inside exp(Q @ K.T) @ V),
 * and alpha-equivalent reductions are the same term.  The variables of a
 * multi-sum are ordered by their first occurrence in the atoms sorted by a
 * signature blind to them (a tie can only cost a proof, never give one), a
 * variable after every variable its bounds mention.
 *
 * Resources.  Each subterm is normalised once (terms are DAGs), like
 * monomials are merged as sums grow, and a budget of monomials and a
 * deadline bound the work: past either, canon_overflowed() says why and
 * nothing made may be trusted.  Coefficients are 128-bit rationals.
 * Non-constant real denominators met on the way are recorded: a proof holds
 * where they are non-zero, and the checker states that (canon_denominators).
 */
#include <stdlib.h>
#include <string.h>
#include "axon.h"

typedef struct SVar {
	Term *v, *lo, *hi;
} SVar;

typedef __int128 Q;   /* coefficients: exact 128-bit rationals (16-digit constants multiply) */

typedef struct Mono {
	Q num, den;
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
	int overflow;                 /* the result must not be trusted: why is in `why` */
	const char *why;
	int unfold_depth;
	TMap memo;                    /* term -> Poly*: each subterm normalised once */
	long budget;                  /* monomials it may still make */
	double deadline;              /* ax_now_ms() past which it gives up; 0: none */
	unsigned ticks;
	int ndens;
	Term *dens[64];               /* non-constant real denominators met */
	int (*prove)(void *env, Term *goal);   /* facts of the sizes, for ranges; NULL: none */
	void *prove_env;
	unsigned char *hom;           /* per fn: 1 f(x + y) = f(x) * f(y) is an axiom; 2 and f(0) = 1 too */
};

enum { CANON_BUDGET = 1 << 21 };   /* monomials per Canon: ~100 MB of normal form */

/* Which fns the spec's axioms make homomorphisms from + to *: an axiom of the
 * shape f(x + y) == f(x) * f(y), and f(x - x) == 1 for f(0) = 1 (recognised
 * by the shape of its instance, never by the fn's name). */
static unsigned char *
homomorphisms(TermCtx *tc, const AxTarget *t)
{
	if (!t || !t->nfns)
		return NULL;
	unsigned char *hom = arena_alloc(tc_arena(tc), (size_t)t->nfns);
	Term *x = t_var(tc, "%axiom.x", TS_REAL), *y = t_var(tc, "%axiom.y", TS_REAL);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->naxioms; i++) {
			const AxAxiom *ax = &t->axioms[i];
			if (!ax->fns || ax->fns[0] < 0 || ax->fns[1] >= 0 || ax->fns[0] >= t->nfns)
				continue;
			int f = ax->fns[0];
			if (pass == 0 && ax->nvars == 2) {
				Term *xy[2] = { x, y };
				Term *of_plus = t_call(tc, f, 1, (Term *[]){ t_bin(tc, TK_ADD, x, y) });
				Term *prod = t_bin(tc, TK_MUL, t_call(tc, f, 1, &x), t_call(tc, f, 1, &y));
				Term *inst = ax->inst(tc, xy);
				if (inst == t_bin(tc, TK_EQ, of_plus, prod) || inst == t_bin(tc, TK_EQ, prod, of_plus))
					hom[f] = 1;
			}
			if (pass == 1 && ax->nvars == 1 && hom[f]) {
				Term *zero = t_call(tc, f, 1, (Term *[]){ t_bin(tc, TK_SUB, x, x) });
				Term *inst = ax->inst(tc, &x), *one = t_num(tc, 1, 1, TS_REAL);
				if (inst == t_bin(tc, TK_EQ, zero, one) || inst == t_bin(tc, TK_EQ, one, zero))
					hom[f] = 2;
			}
		}
	return hom;
}

Canon *
canon_new(TermCtx *tc, const AxTarget *t)
{
	Canon *c = arena_alloc(tc_arena(tc), sizeof *c);
	c->tc = tc;
	c->a = tc_arena(tc);
	c->t = t;
	c->budget = CANON_BUDGET;
	c->hom = homomorphisms(tc, t);
	return c;
}

void
canon_free(Canon *c)
{
	if (c)
		tmap_free(&c->memo);
}

void
canon_prover(Canon *c, int (*prove)(void *env, Term *goal), void *env)
{
	c->prove = prove;
	c->prove_env = env;
}

static int
proves(Canon *c, Term *goal)
{
	if (goal->kind == TK_NUM)
		return goal->num != 0;
	return c->prove && c->prove(c->prove_env, goal);
}

void
canon_deadline(Canon *c, double deadline_ms)
{
	c->deadline = deadline_ms;
}

const char *
canon_why(const Canon *c)
{
	return c->overflow ? c->why : NULL;
}

int
canon_denominators(const Canon *c, Term *const **dens)
{
	*dens = c->dens;
	return c->ndens;
}

static void
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

int
canon_overflowed(const Canon *c)
{
	return c->overflow;
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

static void
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
static Term *
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

static Poly
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

static Poly
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

static Poly
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

static Poly
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

static Poly norm(Canon *c, Term *t);
static Term *p_term(Canon *c, Poly p, TermSort s);

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
			    p_term(c, norm(c, t_bin(c->tc, TK_ADD, a->a[0], b->a[0])), TS_REAL) != t_num(c->tc, 0, 1, TS_REAL))
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

static Poly
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

static Term *p_term(Canon *c, Poly p, TermSort s);
static Term *norm_int(Canon *c, Term *t);
static Poly norm(Canon *c, Term *t);

/* A monomial rebuilt as a term (coefficient, atoms, its sums as written with
 * named variables), to be normalised again after a substitution. */
static Term *
m_term(Canon *c, const Mono *m, Term *v, Term *by)
{
	Term *from[1] = { v }, *to[1] = { by };
	Term *t = q_term(c, m->num, m->den, TS_REAL);
	for (int k = 0; k < m->natoms; k++)
		t = t_bin(c->tc, TK_MUL, t, v ? t_subst(c->tc, m->atoms[k], from, to, 1) : m->atoms[k]);
	for (int k = m->nvars - 1; k >= 0; k--) {
		Term *lo = v ? t_subst(c->tc, m->vars[k].lo, from, to, 1) : m->vars[k].lo;
		Term *hi = v ? t_subst(c->tc, m->vars[k].hi, from, to, 1) : m->vars[k].hi;
		t = t_red(c->tc, TK_SUM, m->vars[k].v, lo, hi, t);
	}
	return t;
}

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
			return strict ? r : norm_int(c, t_bin(c->tc, TK_ADD, r, t_int(c->tc, 1)));
		}
		if (r == v && !t_mentions(l, v)) {   /* l < v: then from l + 1;  l <= v: then from l */
			*below = 0;
			return strict ? norm_int(c, t_bin(c->tc, TK_ADD, l, t_int(c->tc, 1))) : l;
		}
	}
	return NULL;
}

static Poly p_sum(Canon *c, Term *v, Term *lo, Term *hi, Poly p);

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
			branch[side] = p_term(c, p_sum(c, v, lo, hi, norm(c, m_term(c, &n, NULL, NULL))), TS_REAL);
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
			part[side] = p_sum(c, v, side ? sp : lo, side ? hi : sp, norm(c, m_term(c, &n, NULL, NULL)));
		}
		return p_add(c, part[0], part[1]);
	}
	if (lo != t_int(c->tc, 0)) {
		/* from 0: SUM over v in [lo, hi) of f(v) = SUM over v in [0, hi - lo) of f(v + lo) */
		Term *len = norm_int(c, t_bin(c->tc, TK_SUB, hi, lo));
		Poly body = norm(c, m_term(c, &m, v, t_bin(c->tc, TK_ADD, v, lo)));
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
static Poly
p_sum(Canon *c, Term *v, Term *lo, Term *hi, Poly p)
{
	Poly out = { 0 };
	Term *len = norm_int(c, t_bin(c->tc, TK_SUB, hi, lo));
	if (len->kind == TK_NUM && len->num <= 0)
		return out;   /* an empty range */
	if (len->kind == TK_NUM && !len->name && len->num <= 4) {
		/* at most 4 terms: the sum written out, its body at v = lo, lo + 1, ... */
		for (int64_t j = 0; j < len->num; j++)
			for (int i = 0; i < p.n && !c->overflow; i++)
				out = p_add(c, out, norm(c, m_term(c, &p.m[i], v, t_bin(c->tc, TK_ADD, lo, t_int(c->tc, j)))));
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
		if ((hi->a[0] == d && hi->a[1] == one) || (hi->a[1] == d && hi->a[0] == one))
			return 1;
	}
	return proves(c, t_bin(c->tc, TK_LE, hi, d));   /* (D + 1) // 2 against D // 2 for an even D, say */
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
static Term *
opaque_red(Canon *c, Term *t)
{
	Term *v = t->a[0], *lo = norm_int(c, t->a[1]), *hi = norm_int(c, t->a[2]);
	Term *r;
	if (t->kind == TK_FOLD) {
		Term *init = p_term(c, norm(c, t->a[4]), TS_REAL);
		canon_range(c, v, hi);
		Term *body = p_term(c, norm(c, t->a[5]), TS_REAL);
		c->nrange--;
		Term *vars[2] = { t->a[3], v };   /* the accumulator is the inner binder */
		r = t_fold(c->tc, t_binder(c->tc, TS_INT), lo, hi, t_binder(c->tc, TS_REAL), init,
		           t_abstract(c->tc, body, vars, 2));
	} else {
		canon_range(c, v, hi);
		Term *body = p_term(c, norm(c, t->a[3]), TS_REAL);
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
static Poly
p_extreme(Canon *c, Term *t)
{
	TermKind k = (TermKind)t->kind, other = k == TK_RMAX ? TK_RMIN : TK_RMAX;
	Term *v = t->a[0], *lo = norm_int(c, t->a[1]), *hi = norm_int(c, t->a[2]);
	canon_range(c, v, hi);
	Poly body = norm(c, t->a[3]);
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
		return p_add(c, fixed, norm(c, t_red(c->tc, k, v, lo, hi, p_term(c, moving, TS_REAL))));
	if (moving.n == 1 && (moving.m[0].num != 1 || moving.m[0].den != 1)) {
		Mono g = moving.m[0];
		Q n = g.num, d = g.den;
		g.num = 1;
		g.den = 1;
		Poly pg = { 1, &g };
		Term *inner = t_red(c->tc, n > 0 ? k : other, v, lo, hi, p_term(c, pg, TS_REAL));
		return p_scale(c, norm(c, inner), n, d);
	}
	if (lo != t_int(c->tc, 0)) {
		Term *len = norm_int(c, t_bin(c->tc, TK_SUB, hi, lo));
		Term *from[1] = { v }, *to[1] = { t_bin(c->tc, TK_ADD, v, lo) };
		return norm(c, t_red(c->tc, k, v, t_int(c->tc, 0), len, t_subst(c->tc, p_term(c, body, TS_REAL), from, to, 1)));
	}
	if (body.n == 1 && body.m[0].natoms == 1 && body.m[0].nvars == 0 && body.m[0].num == 1 && body.m[0].den == 1) {
		int at, below;
		Term *sp = split_point(c, &body.m[0], v, &at, &below);
		Term *ite = body.m[0].atoms[0];
		if (sp && proves(c, t_bin(c->tc, TK_AND, t_bin(c->tc, TK_LT, lo, sp), t_bin(c->tc, TK_LT, sp, hi)))) {
			Term *x = t_red(c->tc, k, v, lo, sp, below ? ite->a[1] : ite->a[2]);
			Term *y = t_red(c->tc, k, v, sp, hi, below ? ite->a[2] : ite->a[1]);
			Term *px = p_term(c, norm(c, x), TS_REAL), *py = p_term(c, norm(c, y), TS_REAL);
			return p_atom(c, t_bin(c->tc, k == TK_RMAX ? TK_MAX : TK_MIN, px, py));
		}
	}
	return p_atom(c, opaque_red(c, t));
}

/* A real denominator that is not a constant: recorded, once. */
static void
note_denominator(Canon *c, Term *d)
{
	for (int i = 0; i < c->ndens; i++)
		if (c->dens[i] == d)
			return;
	if (c->ndens < 64)
		c->dens[c->ndens++] = d;
	else
		give_up(c, "more than 64 distinct denominators");
}

static Poly norm_kind(Canon *c, Term *t);

static Poly
norm(Canon *c, Term *t)
{
	if (c->overflow)
		return (Poly){ 0 };
	/* Each subterm once.  Its normal form depends only on the ranges of the
	 * variables in it, and each variable has one range (a bound one is only
	 * reached inside its reduction), so the memo holds wherever t recurs. */
	int found = 0;
	void **slot = tmap_slot(&c->memo, t, &found);
	if (found)
		return *(Poly *)*slot;
	Poly p = norm_kind(c, t);
	Poly *keep = arena_alloc(c->a, sizeof *keep);
	*keep = p;
	*tmap_slot(&c->memo, t, &found) = keep;
	return p;
}

/* A canonical reduction met again (a normal form normalised after a
 * substitution) opened back to a named variable: its body refers to its
 * variable by index, which the rules below, written for named variables,
 * must never take for a constant. */
static Term *
reopen(Canon *c, Term *t)
{
	Term *binder = t_binder(c->tc, TS_INT);
	if (t->kind == TK_SUM || t->kind == TK_RMAX || t->kind == TK_RMIN) {
		if (t->a[0] != binder)
			return t;
		Term *v = t_fresh(c->tc, TS_INT);
		return t_red(c->tc, (TermKind)t->kind, v, t->a[1], t->a[2], t_open(c->tc, t->a[3], v));
	}
	if (t->kind == TK_FOLD && t->a[0] == binder) {
		Term *v = t_fresh(c->tc, TS_INT), *acc = t_fresh(c->tc, TS_REAL);
		Term *body = t_open(c->tc, t_open(c->tc, t->a[5], acc), v);   /* the accumulator is index 0 */
		return t_fold(c->tc, v, t->a[1], t->a[2], acc, t->a[4], body);
	}
	return t;
}

static Poly
norm_kind(Canon *c, Term *t)
{
	Term *a[16];
	t = reopen(c, t);
	switch ((TermKind)t->kind) {
	case TK_NUM:
		if (t->name)
			return p_atom(c, t);   /* a constant past 64 bits: exact, opaque to arithmetic here */
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
		if (t->n == 1 && c->hom && c->hom[t->id]) {
			/* f(a + b) = f(a) * f(b): one call per monomial of the argument, so a
			 * factor like exp(-max) stands outside a sum; f(0) = 1 */
			Poly arg = norm(c, t->a[0]);
			if (arg.n == 0 && c->hom[t->id] == 2)
				return p_const(c, 1, 1);
			if (arg.n > 1 && arg.n <= 64) {
				Poly out = p_const(c, 1, 1);
				for (int i = 0; i < arg.n; i++) {
					Poly one = { 1, &arg.m[i] };
					Term *x = p_term(c, one, TS_REAL);
					out = p_mul(c, out, p_atom(c, t_call(c->tc, t->id, 1, &x)));
				}
				return out;
			}
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
			Term *d = p_term(c, den, TS_REAL);
			note_denominator(c, d);
			Term *r = t_bin(c->tc, TK_DIV, t_num(c->tc, 1, 1, TS_REAL), d);
			return p_mul(c, norm(c, t->a[0]), p_atom(c, r));
		}
		return p_atom(c, t_bin(c->tc, TK_DIV, norm_any(c, t->a[0]), norm_any(c, t->a[1])));   /* integer: an atom */
	case TK_MOD:
	case TK_MAX:
	case TK_MIN:
		return p_atom(c, t_bin(c->tc, (TermKind)t->kind, norm_any(c, t->a[0]), norm_any(c, t->a[1])));
	case TK_TOREAL: {
		Term *x = norm_int(c, t->a[0]);
		if (x->kind == TK_NUM && !x->name)
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
		if (t->sort == TS_REAL) {
			/* q * ite(c, x, y) with the first summand of x (or of y, when x is 0)
			 * of coefficient 1: where(m, s, -1e9) * 0.125 is where(m, 0.125 * s, -1.25e8) */
			Term *lead = x->kind == TK_NUM && x->num == 0 && !x->name ? y : x;
			while (lead->kind == TK_ADD)
				lead = lead->a[0];
			Term *q = lead->kind == TK_NUM && !lead->name ? lead
			          : lead->kind == TK_MUL && lead->a[0]->kind == TK_NUM && !lead->a[0]->name ? lead->a[0] : NULL;
			if (q && q->num != 0 && !(q->num == 1 && q->den == 1)) {
				Term *xs = p_term(c, p_scale(c, norm(c, x), q->den, q->num), TS_REAL);
				Term *ys = p_term(c, p_scale(c, norm(c, y), q->den, q->num), TS_REAL);
				return p_scale(c, p_atom(c, t_ite(c->tc, cond, xs, ys)), q->num, q->den);
			}
		}
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
		return p_extreme(c, t);
	default:
		ax_die("canon: a %s term in place of a number", t->sort == TS_BOOL ? "boolean" : "strange");
	}
}

/* ---- back to terms, in canonical order ----------------------------------------- */

typedef struct Keyed {
	Term *key;               /* ordered by t_cmp */
	Term *t;
	int dep;                 /* m_body: the atom mentions a variable of the monomial's sums */
} Keyed;

static int
cmp_keyed(const void *x, const void *y)
{
	return t_cmp(((const Keyed *)x)->key, ((const Keyed *)y)->key);
}

/* How variable k of m is used: each atom that mentions it (and its bounds)
 * with k written as one marker and every other variable as its colour. */
typedef struct Usage {
	int k, n;
	Term **views;            /* sorted by t_cmp */
} Usage;

static int
cmp_term(const void *x, const void *y)
{
	return t_cmp(*(Term *const *)x, *(Term *const *)y);
}

static int
cmp_usage(const void *x, const void *y)
{
	const Usage *a = x, *b = y;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = 0; i < a->n; i++) {
		int c = t_cmp(a->views[i], b->views[i]);
		if (c)
			return c;
	}
	return 0;
}

/* Colour refinement of m's variables: colours from how each is used, given
 * the others' colours, until no class splits.  Structure only: the same
 * monomial written with other names or its atoms in another order gets the
 * same colours. */
static void
refine(Canon *c, const Mono *m, int *colour)
{
	int nv = m->nvars, na = m->natoms, ncol = 1;
	for (int k = 0; k < nv; k++)
		colour[k] = 0;
	Usage *u = arena_alloc(c->a, sizeof(Usage) * (size_t)nv);
	for (int round = 0; round < nv; round++) {
		Term *from[64], *to[64];
		for (int k = 0; k < nv; k++) {
			u[k].k = k;
			u[k].n = 0;
			u[k].views = arena_alloc(c->a, sizeof(Term *) * (size_t)(na + 2));
			for (int q = 0; q < nv; q++) {
				char nm[32];
				snprintf(nm, sizeof nm, q == k ? "%%self" : "%%colour%d", colour[q]);
				from[q] = m->vars[q].v;
				to[q] = t_var(c->tc, nm, TS_INT);
			}
			for (int i = 0; i < na; i++)
				if (t_mentions(m->atoms[i], m->vars[k].v))
					u[k].views[u[k].n++] = t_subst(c->tc, m->atoms[i], from, to, nv);
			u[k].views[u[k].n++] = t_bin(c->tc, TK_LT, t_subst(c->tc, m->vars[k].lo, from, to, nv),
			                             t_subst(c->tc, m->vars[k].hi, from, to, nv));
			qsort(u[k].views, (size_t)u[k].n, sizeof(Term *), cmp_term);
		}
		/* new colour: (old colour, usage) ranked */
		int idx[64];
		for (int k = 0; k < nv; k++)
			idx[k] = k;
		for (int i = 1; i < nv; i++)
			for (int j = i; j > 0; j--) {
				const Usage *a = &u[idx[j - 1]], *b = &u[idx[j]];
				int d = colour[a->k] != colour[b->k] ? (colour[a->k] > colour[b->k] ? 1 : -1) : cmp_usage(a, b);
				if (d <= 0)
					break;
				int x = idx[j];
				idx[j] = idx[j - 1];
				idx[j - 1] = x;
			}
		int next[64], n = 0;
		for (int i = 0; i < nv; i++) {
			if (i > 0 && (colour[idx[i - 1]] != colour[idx[i]] || cmp_usage(&u[idx[i - 1]], &u[idx[i]]) != 0))
				n++;
			next[idx[i]] = n;
		}
		memcpy(colour, next, sizeof(int) * (size_t)nv);
		if (n + 1 == ncol)
			break;   /* no class split: stable */
		ncol = n + 1;
	}
}

/* Appends to first[] the variables of m's sums in the order a left-to-right
 * walk of t meets them (each once). */
static void
occurrences(const Term *t, const Mono *m, int *first, int *nf, uint32_t walk)
{
	if (!t_first_visit(t, walk))
		return;
	if (t->kind == TK_BVAR) {
		for (int k = 0; k < m->nvars; k++)
			if (m->vars[k].v == t) {
				for (int j = 0; j < *nf; j++)
					if (first[j] == k)
						return;
				first[(*nf)++] = k;
			}
		return;
	}
	for (int i = 0; i < t->n && *nf < m->nvars; i++)
		occurrences(t->a[i], m, first, nf, walk);
}

/* The monomial's product of atoms under its sums, without the coefficient.
 * Its variables are ordered outermost first by first occurrence in its atoms
 * sorted by a signature blind to them, then moved after every variable their
 * bounds mention; each is bound by De Bruijn index. */
static Term *
m_body(Canon *c, const Mono *m, TermSort s)
{
	int na = m->natoms, nv = m->nvars;
	if (nv > 64) {
		give_up(c, "more than 64 indices under one reduction");
		return t_num(c->tc, 0, 1, s);
	}
	Term *from[64], *to[64];
	Keyed *ks = arena_alloc(c->a, sizeof(Keyed) * (size_t)(na + 1));
	Term *blind = t_bvar(c->tc, -1, TS_INT);
	for (int i = 0; i < nv; i++) {
		from[i] = m->vars[i].v;
		to[i] = blind;
	}
	for (int i = 0; i < na; i++) {
		ks[i].t = m->atoms[i];
		ks[i].key = nv ? t_subst(c->tc, m->atoms[i], from, to, nv) : m->atoms[i];
	}
	qsort(ks, (size_t)na, sizeof *ks, cmp_keyed);
	/* variables by first occurrence, left to right in the sorted atoms, then
	 * stably by the colour refinement gives them (ties among atoms that look
	 * alike with the variables blinded are broken by how each variable is used) */
	int first[64], nf = 0, placed[64] = { 0 }, order[64], no = 0;
	uint32_t walk = t_walk();
	for (int i = 0; i < na; i++)
		occurrences(ks[i].t, m, first, &nf, walk);
	for (int k = 0; k < nv; k++) {
		int seen = 0;
		for (int j = 0; j < nf; j++)
			seen |= first[j] == k;
		if (!seen)
			first[nf++] = k;
	}
	if (nv > 1) {
		int colour[64];
		refine(c, m, colour);
		for (int i = 1; i < nf; i++)   /* a stable insertion sort by colour */
			for (int j = i; j > 0 && colour[first[j - 1]] > colour[first[j]]; j--) {
				int x = first[j];
				first[j] = first[j - 1];
				first[j - 1] = x;
			}
	}
	/* then each after the variables its bounds mention */
	while (no < nv) {
		int progress = 0;
		for (int j = 0; j < nf; j++) {
			int k = first[j];
			if (placed[k])
				continue;
			int ready = 1;
			for (int q = 0; q < nv && ready; q++)
				if (q != k && !placed[q] && (t_mentions(m->vars[k].lo, m->vars[q].v) || t_mentions(m->vars[k].hi, m->vars[q].v)))
					ready = 0;
			if (ready) {
				placed[k] = 1;
				order[no++] = k;
				progress = 1;
				break;
			}
		}
		if (!progress) {
			give_up(c, "the bounds of a multi-sum depend on each other in a circle");
			return t_num(c->tc, 0, 1, s);
		}
	}
	/* innermost variable is index 0: vars[k] is order[no - 1 - k] */
	Term *vars[64];
	for (int k = 0; k < no; k++)
		vars[k] = m->vars[order[no - 1 - k]].v;
	for (int i = 0; i < na; i++) {
		for (int k = 0; k < no && !ks[i].dep; k++)
			ks[i].dep = t_mentions(ks[i].t, vars[k]);
		ks[i].t = no ? t_abstract(c->tc, ks[i].t, vars, no) : ks[i].t;
		ks[i].key = ks[i].t;
	}
	qsort(ks, (size_t)na, sizeof *ks, cmp_keyed);
	/* factors that mention no variable of the sums stand outside them
	 * (c * SUM a = SUM (c * a)), so that Z3 sees them: (1/N) * SUM X = ... */
	Term *body = NULL, *outside = NULL;
	for (int i = 0; i < na; i++) {
		if (no && !ks[i].dep)
			outside = outside ? t_bin(c->tc, TK_MUL, outside, ks[i].t) : ks[i].t;
		else
			body = body ? t_bin(c->tc, TK_MUL, body, ks[i].t) : ks[i].t;
	}
	if (!body)
		body = t_num(c->tc, 1, 1, s);
	for (int j = no - 1; j >= 0; j--) {
		const SVar *v = &m->vars[order[j]];
		/* the bounds of order[j] are under the binders order[0..j-1]: order[j-1] is index 0 */
		Term *outer[64];
		for (int k = 0; k < j; k++)
			outer[k] = m->vars[order[j - 1 - k]].v;
		Term *lo = j ? t_abstract(c->tc, v->lo, outer, j) : v->lo;
		Term *hi = j ? t_abstract(c->tc, v->hi, outer, j) : v->hi;
		body = t_red(c->tc, TK_SUM, t_binder(c->tc, TS_INT), lo, hi, t_toreal(c->tc, body));
	}
	return outside ? t_bin(c->tc, TK_MUL, outside, body) : body;
}

static Term *p_term(Canon *c, Poly p, TermSort s);

/* Adjacent ranges joined: SUM over u < a of f(u) + SUM over w < b of
 * f(w + a) = SUM over u < a + b of f(u), where a >= 0 and b >= 0 (the sizes'
 * facts prove it).  So a sum split over a range and added again is the sum. */
static Poly
p_join(Canon *c, Poly p, TermSort s)
{
	if (p.n < 2 || p.n > 32 || !c->prove)
		return p;
	Poly q = { p.n, arena_alloc(c->a, sizeof(Mono) * (size_t)(p.n + 1)) };
	memcpy(q.m, p.m, sizeof(Mono) * (size_t)p.n);
	for (int again = 1; again && !c->overflow;) {
		again = 0;
		for (int i = 0; i < q.n && !again; i++)
			for (int j = 0; j < q.n && !again; j++) {
				const Mono *x = &q.m[i], *y = &q.m[j];
				if (i == j || !x->nvars || x->num != y->num || x->den != y->den)
					continue;
				Poly py = { 1, (Mono *)y };
				Term *want = NULL;
				if (y->nvars + 1 == x->nvars) {
					/* f(-1) + SUM over u < b of f(u) = SUM over u < b + 1 of f(u - 1), and
					 * SUM over u < b of f(u) + f(b) = SUM over u < b + 1 of f(u) (b >= 0) */
					for (int u = 0; u < x->nvars && !again; u++) {
						Term *uv = x->vars[u].v, *b = x->vars[u].hi;
						if (x->vars[u].lo != t_int(c->tc, 0))
							continue;
						for (int end = 0; end < 2 && !again; end++) {
							Mono point = *x;   /* x without u's sum, read at u = -1 or u = b */
							point.vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(x->nvars + 1));
							memcpy(point.vars, x->vars, sizeof(SVar) * (size_t)x->nvars);
							point.vars[u] = point.vars[--point.nvars];
							Poly pp = norm(c, m_term(c, &point, uv, end ? b : t_int(c->tc, -1)));
							if (!want)
								want = p_term(c, py, s);
							if (pp.n != 1 || p_term(c, pp, s) != want ||
							    !proves(c, t_bin(c->tc, TK_LE, t_int(c->tc, 0), b)))
								continue;
							Poly pj = norm(c, m_term(c, x, uv, end ? uv : t_bin(c->tc, TK_SUB, uv, t_int(c->tc, 1))));
							if (pj.n != 1)
								continue;
							Mono joined = pj.m[0];
							SVar *vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(joined.nvars + 1));
							memcpy(vars, joined.vars, sizeof(SVar) * (size_t)joined.nvars);
							joined.vars = vars;
							int w;
							for (w = 0; w < joined.nvars && joined.vars[w].v != uv; w++)
								;
							if (w == joined.nvars)
								continue;
							joined.vars[w].hi = norm_int(c, t_bin(c->tc, TK_ADD, b, t_int(c->tc, 1)));
							q.m[i] = joined;
							q.m[j] = q.m[--q.n];
							again = 1;
						}
					}
					continue;
				}
				if (x->nvars != y->nvars)
					continue;
				for (int u = 0; u < x->nvars && !again; u++)
					for (int w = 0; w < y->nvars && !again; w++) {
						if (x->vars[u].lo != t_int(c->tc, 0) || y->vars[w].lo != t_int(c->tc, 0))
							continue;
						Term *a = x->vars[u].hi, *b = y->vars[w].hi, *uv = x->vars[u].v;
						Mono shifted = *x;   /* x over u < b, read at u + a */
						shifted.vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(x->nvars + 1));
						memcpy(shifted.vars, x->vars, sizeof(SVar) * (size_t)x->nvars);
						shifted.vars[u].hi = b;
						Poly ps = norm(c, m_term(c, &shifted, uv, t_bin(c->tc, TK_ADD, uv, a)));
						if (!want)
							want = p_term(c, py, s);
						if (ps.n != 1 || p_term(c, ps, s) != want)
							continue;
						if (!proves(c, t_bin(c->tc, TK_AND, t_bin(c->tc, TK_LE, t_int(c->tc, 0), a),
						                     t_bin(c->tc, TK_LE, t_int(c->tc, 0), b))))
							continue;
						Mono joined = *x;
						joined.vars = arena_alloc(c->a, sizeof(SVar) * (size_t)(x->nvars + 1));
						memcpy(joined.vars, x->vars, sizeof(SVar) * (size_t)x->nvars);
						joined.vars[u].hi = norm_int(c, t_bin(c->tc, TK_ADD, a, b));
						q.m[i] = joined;
						q.m[j] = q.m[--q.n];
						again = 1;
					}
			}
	}
	return q;
}

static Term *
p_term(Canon *c, Poly p, TermSort s)
{
	if (c->overflow)
		return t_num(c->tc, 0, 1, s);
	p = p_join(c, p, s);
	/* combine like monomials */
	Keyed *ks = arena_alloc(c->a, sizeof(Keyed) * (size_t)(p.n + 1));
	Q *num = arena_alloc(c->a, sizeof(Q) * (size_t)(p.n + 1));
	Q *den = arena_alloc(c->a, sizeof(Q) * (size_t)(p.n + 1));
	int n = 0;
	TMap at = { 0 };   /* body -> its index + 1 */
	for (int i = 0; i < p.n && !c->overflow; i++) {
		Term *b = m_body(c, &p.m[i], s);
		int found;
		void **slot = tmap_slot(&at, b, &found);
		int j = found ? (int)(intptr_t)*slot - 1 : n;
		if (!found) {
			*slot = (void *)(intptr_t)(n + 1);
			ks[n].t = b;
			ks[n].key = b;
			num[n] = 0;
			den[n] = 1;
			n++;
		}
		q_add(c, num[j], den[j], p.m[i].num, p.m[i].den, &num[j], &den[j]);
	}
	tmap_free(&at);
	/* sort by body, carrying coefficients (bodies are distinct) */
	Keyed *sorted = arena_alloc(c->a, sizeof(Keyed) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		sorted[i] = (Keyed){ ks[i].key, (Term *)(intptr_t)i, 0 };
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_keyed);
	Term *total = NULL;
	for (int ii = 0; ii < n; ii++) {
		int i = (int)(intptr_t)sorted[ii].t;
		if (num[i] == 0)
			continue;
		Term *m = ks[i].t;
		int one = m->kind == TK_NUM && !m->name;
		if (s == TS_INT && den[i] != 1)
			give_up(c, "a fraction in an integer term");   /* cannot happen for spec'd ops */
		Term *k = q_term(c, num[i], den[i], s);
		Term *term = one ? k : (num[i] == 1 && den[i] == 1) ? m : t_bin(c->tc, TK_MUL, k, m);
		total = total ? t_bin(c->tc, TK_ADD, total, term) : term;
	}
	return total ? total : t_num(c->tc, 0, 1, s);
}

Term *
canon_term(Canon *c, Term *t)
{
	if (t->sort == TS_BOOL)
		return norm_bool(c, t);
	return p_term(c, norm(c, t), (TermSort)t->sort);
}
