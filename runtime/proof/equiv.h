/*
 * equiv.h — inside the equivalence checker: equiv.c (the proof), equiv_sides.c
 * (how the two functions' sizes line up, and what is assumed of them) and
 * equiv_spot.c (running both sides on small sizes).  Nothing else includes it.
 */
#ifndef EQUIV_H
#define EQUIV_H
#include "proof.h"

enum { SIDES_MAXREN = 128, SIDES_MAXPART = 192 };

typedef struct Part {          /* one conjunct of what a proof assumes */
	Term *t;
	const char *src;           /* "size", "lhs", "rhs", "lhs, rhs" */
} Part;

/* The two sides of a check.  Parameters line up by position: dimension d of
 * parameter p names the same size on both sides, so the right side's size
 * names are renamed to the left side's terms (from[i] -> to[i]).  A size
 * that no parameter names alone (a variant's Hq // Hkv) keeps its name: the
 * two sides are then graphs of one program. */
typedef struct Sides {
	TermCtx *tc;
	const AxGraph *a, *b;
	int nren;
	Term *from[SIDES_MAXREN], *to[SIDES_MAXREN];
	int nparts;
	Part part[SIDES_MAXPART];
	Term *hyp;                 /* the conjunction of the parts */
} Sides;

/* 0: the sides line up and s is filled; -1: they do not, err says how. */
int sides_match(TermCtx *tc, const AxGraph *a, const AxGraph *b, Sides *s, char *err, size_t n);
Term *sides_rhs(const Sides *s, Term *t);         /* a right-side term in the left side's names */
/* 1: the assumptions contradict (err names a smallest contradicting set);
 * 0: they have a model; -1: the solver cannot say (err says why) */
int sides_contradict(Smt *smt, Sides *s, char *err, size_t n);
/* The printed form of a term for the user: output indices i0, i1, ... */
char *sides_show(TermCtx *tc, Term *t);

/* Runs both sides at up to `runs` small size assignments that satisfy the
 * parts (trying at most `tries`), on random inputs from seed.  1: they
 * differ somewhere (msg says where, with the sizes); 0: they agree at every
 * run; *ran says how many runs there were (0: none was possible). */
int sides_run(const Sides *s, int runs, int tries, uint64_t seed, int *ran, char *msg, size_t n);

#endif
