/*
 * forward_impl.h — the state of forward.c's merge, shared with
 * forward_plan.c (which tensors crossing between the nests can be kept on
 * chip, and how).
 */
#ifndef AXON_FORWARD_IMPL_H
#define AXON_FORWARD_IMPL_H
#include "affine.h"
#include "boxes.h"

enum { MAXNEST = 64, MAXACC = 32, MAXFWD = 4, MAXDEPTH = 16 };

/* ---- the statements' structure ------------------------------------------------------------ */

typedef struct Acc {          /* one access to a forwarded tensor */
	int st;                  /* its statement */
	int write;
	int src;                 /* a write: the statement making the stored tile (-1: a block buffer's slot) */
	int cinst, ceng;         /* ... a slot's: the copy into the buffer that takes the store's place */
	int dbuf;                /* a load into a block buffer: that buffer's statement (-1: into its own tile) */
	int nslot;               /* ... the buffer's block dims, each a loop variable (slot[]) */
	char slot[AX_MAXR][24];
	int64_t len[AX_MAXR];    /* per dim of the tensor (0: one index) */
	Aff in[AX_MAXR];         /* the start less its part over the shared loops */
	Aff out[AX_MAXR];        /* ... that part */
	int64_t lo[AX_MAXR], hi[AX_MAXR];
} Acc;

typedef struct Plan {         /* a tensor kept on chip */
	int node, outside, mem, dp, nfd, fd[AX_MAXR];
	int after;               /* touched after the merged nest, outside the box the nest writes */
	int64_t P, ntiles;
	AxShape shape;           /* the buffer's: (P, ntiles, the box along fd[]...) */
	int64_t rlo[AX_MAXR];
	int nacc;
	Acc acc[MAXACC];
} Plan;

typedef struct Fw {
	Nest *ns;
	int n;
	int *up, *endof, *def, *uses;   /* per statement: its loop, a loop's end; per variable: its statement, refs */
	int *wrt;                /* per variable: written by a statement (a running value, an accumulation) */
	int nn, st[MAXNEST], en[MAXNEST], perf[MAXNEST];
	int nsp[MAXNEST], sp[MAXNEST][MAXDEPTH];   /* per nest: its spine (loops each the last statement of the one around it) */
	int *base;               /* per node: the tensor a view of it is (itself if none; -2 several) */
	int K, ga;               /* the shared loops of the group tried, its first nest */
	int lo, hi;              /* its statements */
	int *nest;               /* per statement in it: which of the group's nests (0, 1, ...) */
	int *copy;               /* per instruction: lower_is_copy, -1 not known yet */
	Plan plan[MAXFWD];
	int np;
} Fw;

/* lower_is_copy of an instruction, asked once */
int fw_is_copy(Fw *f, int inst);
/* The accesses of tensor node T (written in the group's nest wn, read in later ones) and its
 * buffer: 0, or -1 if it cannot be kept on chip. */
int fw_plan_tensor(Fw *f, int T, int wn, Plan *p);
#endif
