/*
 * canon_order.c — a polynomial back to a term in canonical order: the
 * variables of a multi-sum ordered (colour refinement, first occurrence, bounds
 * before use) and bound by De Bruijn index, factors free of them outside,
 * adjacent ranges joined, like monomials combined, summands sorted.
 */

#include <stdlib.h>
#include <string.h>
#include "canon_poly.h"

/* A monomial rebuilt as a term (coefficient, atoms, its sums as written with
 * named variables), to be normalised again after a substitution. */
Term *
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
							Poly pp = c->walk(c, m_term(c, &point, uv, end ? b : t_int(c->tc, -1)));
							if (!want)
								want = p_term(c, py, s);
							if (pp.n != 1 || p_term(c, pp, s) != want ||
							    !proves(c, t_bin(c->tc, TK_LE, t_int(c->tc, 0), b)))
								continue;
							Poly pj = c->walk(c, m_term(c, x, uv, end ? uv : t_bin(c->tc, TK_SUB, uv, t_int(c->tc, 1))));
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
							joined.vars[w].hi = c->walk_int(c, t_bin(c->tc, TK_ADD, b, t_int(c->tc, 1)));
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
						Poly ps = c->walk(c, m_term(c, &shifted, uv, t_bin(c->tc, TK_ADD, uv, a)));
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
						joined.vars[u].hi = c->walk_int(c, t_bin(c->tc, TK_ADD, a, b));
						q.m[i] = joined;
						q.m[j] = q.m[--q.n];
						again = 1;
					}
			}
	}
	return q;
}

Term *
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
		return c->walk_bool(c, t);
	return p_term(c, c->walk(c, t), (TermSort)t->sort);
}
