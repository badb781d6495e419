/*
 * split.h — an operation along an axis that tiles cannot cut, as other
 * operations of the specs (split.c): a sum scaled by a number of the sizes
 * (a mean), or a scan or an op along a loop axis moved to another axis
 * between exchanges of axes; propagate.c makes and proves the rewrite.
 */
#ifndef AXON_SPLIT_H
#define AXON_SPLIT_H
#include "search.h"

enum { SPLIT_SUM, SPLIT_TRANSPOSED };
typedef struct SplitPlan {
	int kind;                /* SPLIT_SUM: a sum, a scalar and a / b or a * b; SPLIT_TRANSPOSED: the
	                            op along another axis, between exchanges of axes */
	int node;                /* the operation split */
	int sum_op;              /* the op whose equation is its sum alone */
	int bin_op;              /* a / b or a * b, broadcasting: the sum and the number */
	int scalar_op, scalar_attr;   /* the op of the specs' role "scalar", its float attribute */
	Term *value;             /* the number (a real term of the sizes) */
	int swap_op;             /* SPLIT_TRANSPOSED: the op of role ".T" (np.swapaxes) */
	int nswap;               /* ... how many exchanges of two axes, each of the tensor before it */
	int swap[2 * AX_MAXR][2];   /* ... the axes of each */
	int at;                  /* ... the op comes after the first `at` of them */
	int grank[AX_MAXGROUP];  /* ... and the op's groups with its axis where it is moved */
} SplitPlan;

/* 1 and *sp when node id of g splits so; 0 when it does not */
int split_find(const AxGraph *g, int id, SplitPlan *sp);

#endif
