/*
 * canon_poly.h — inside the normal form, shared by its files from the top
 * down: canon.c (the walk over a term), canon_range.c (sums and maxima over
 * ranges), canon_order.c (back to terms in canonical order), canon_poly.c
 * (coefficients and polynomials).  Nothing else includes it.
 */
#ifndef CANON_H
#define CANON_H
#include "proof.h"

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
	/* the walk over a term (canon.c), for the files below it that normalise a subterm */
	Poly (*walk)(Canon *c, Term *t);
	Term *(*walk_int)(Canon *c, Term *t);
	Term *(*walk_bool)(Canon *c, Term *t);
	Term *(*walk_any)(Canon *c, Term *t);   /* in normal form, of t's own sort */
	unsigned char *hom;           /* per fn: 1 f(x + y) = f(x) * f(y) is an axiom; 2 and f(0) = 1 too */
};

enum { CANON_BUDGET = 1 << 21 };   /* monomials per Canon: ~100 MB of normal form */

/* canon_poly.c */
int proves(Canon *c, Term *goal);
void give_up(Canon *c, const char *why);
void q_add(Canon *c, Q an, Q ad, Q bn, Q bd, Q *n, Q *d);
Term *q_term(Canon *c, Q n, Q d, TermSort s);
Poly p_const(Canon *c, Q num, Q den);
Poly p_atom(Canon *c, Term *t);
Poly p_add(Canon *c, Poly a, Poly b);
Poly p_scale(Canon *c, Poly a, Q num, Q den);
Poly p_mul(Canon *c, Poly a, Poly b);

/* canon.c: the walk (through c->walk, c->walk_int, c->walk_bool below it) */
Poly norm(Canon *c, Term *t);
Term *norm_int(Canon *c, Term *t);
Term *norm_bool(Canon *c, Term *t);

/* canon_range.c */
Poly p_sum(Canon *c, Term *v, Term *lo, Term *hi, Poly p);
Poly p_extreme(Canon *c, Term *t);
Term *opaque_red(Canon *c, Term *t);

/* canon_order.c */
Term *m_term(Canon *c, const Mono *m, Term *v, Term *by);
Term *p_term(Canon *c, Poly p, TermSort s);

#endif
