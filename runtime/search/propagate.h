/*
 * propagate.h — operator propagation (Algorithm 1) as later stages call it:
 * over any graph, instruction graphs included, with the caller's checker and
 * a say in which variants are usable.  Private to propagate.c and its
 * callers in runtime/ (fuse.c runs the second round over instructions).
 */
#ifndef AXON_PROPAGATE_H
#define AXON_PROPAGATE_H
#include "search.h"

typedef struct PropStep {    /* how a variant was reached: one swap, proved */
	int parent;              /* the variant it was made from; -1 for variant 0 */
	int moved;               /* op1: the node (origin, an id of the input graph) pushed past ... */
	int past;                /* ... op2, its one consumer, which now applies to op1's operands first */
	unsigned clones;         /* bit o: op2 was cloned onto op1's operand o */
} PropStep;

typedef struct PropHooks {
	Equiv **eq;              /* the checker (NULL: one of its own); *eq is made at the first
	                            need if NULL, and is the caller's to free */
	/* a variant the caller can use (NULL: every one); asked before the checker, so a swap
	 * into an unusable graph costs no proof */
	int (*admit)(void *env, const AxGraph *g);
	void *env;
	/* run each local pair at small sizes on random inputs before the checker: a concrete
	 * difference rejects the swap unproved (it can only reject; the checker alone accepts) */
	int refute_first;
	PropStep *steps;         /* out: per variant (in the graph's arena) */
	int nsteps;
} PropHooks;

/* propagate() with hooks (h may be NULL).  The sizes' hypothesis is every
 * size symbol of g0 >= 1 and g0's assumptions; when no size satisfies it
 * no swap is kept (ng->stop is "unsatisfiable"). */
NuGraph *propagate_ex(const AxGraph *g0, const PropOpts *o, PropHooks *h);

#endif
