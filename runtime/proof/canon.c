/*
 * canon.c — a normal form for element terms, so that equal computations
 * become the same term (docs/checker.md).
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
 *
 * The files, from the top down: canon.c the Canon and the walk over a term;
 * canon_range.c sums and maxima over ranges; canon_order.c back to a term in
 * canonical order; canon_poly.c coefficients and polynomials (canon_poly.h
 * holds what they share).  The walk is recursive through all of them: the
 * files below canon.c reach it through the Canon's walk pointers, set by
 * canon_new, never by name.
 */

#include <stdlib.h>
#include <string.h>
#include "canon_poly.h"


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

static Term *norm_any(Canon *c, Term *t);

Canon *
canon_new(TermCtx *tc, const AxTarget *t)
{
	Canon *c = arena_alloc(tc_arena(tc), sizeof *c);
	c->tc = tc;
	c->a = tc_arena(tc);
	c->t = t;
	c->budget = CANON_BUDGET;
	c->hom = homomorphisms(tc, t);
	c->walk = norm;
	c->walk_int = norm_int;
	c->walk_bool = norm_bool;
	c->walk_any = norm_any;
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

int
canon_overflowed(const Canon *c)
{
	return c->overflow;
}

/* ---- normalising ------------------------------------------------------------ */


Term *
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

Term *
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

Poly
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
