/*
 * split.h — an operation that is a sum scaled by a number of the sizes (a
 * mean), as two operations of the specs (split.c); propagate.c makes and
 * proves the rewrite.
 */
#ifndef AXON_SPLIT_H
#define AXON_SPLIT_H
#include "search.h"

typedef struct SplitPlan {
	int node;                /* the operation split */
	int sum_op;              /* the op whose equation is its sum alone */
	int bin_op;              /* a / b or a * b, broadcasting: the sum and the number */
	int scalar_op, scalar_attr;   /* the op of the specs' role "scalar", its float attribute */
	Term *value;             /* the number (a real term of the sizes) */
} SplitPlan;

/* 1 and *sp when node id of g splits so; 0 when it does not */
int split_find(const AxGraph *g, int id, SplitPlan *sp);

#endif
