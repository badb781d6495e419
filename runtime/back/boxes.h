/*
 * boxes.h — what a run of statements makes, writes and reads (variables,
 * and boxes of off-chip tensors over the loops' trip counts), and whether
 * two runs may change places (tails.c, sink.c).
 */
#ifndef AXON_BOXES_H
#define AXON_BOXES_H
#include "nest.h"

typedef struct Box {
	int node, write, exact;
	int64_t lo[AX_MAXR + 2], hi[AX_MAXR + 2];
	int nd;
} Box;

typedef struct Side {
	int n, cap;
	Box *b;
	char *made;              /* per variable: defined or written on this side */
	char *used;              /* per variable: read on this side */
} Side;

/* The box of slice r of statement i (loops from statement a0 on); exact 0 where it is not known. */
Box box_of(const Nest *ns, const int *up, int i, int a0, const NsRef *r, int write);
/* What statements [s0, s1) (those mask marks, if not NULL) make, write, read (loops from a0 on). */
void side_scan(Nest *ns, const int *up, int s0, int s1, int a0, const char *mask, Side *sd);
/* Is node x node w itself, or read through views of it (unknown: 1)? */
int side_reaches(const Nest *ns, const char *isview, int x, int w);
/* Do boxes a and b meet (unknown: 1)? */
int box_overlap(const Box *a, const Box *b);
/* Does a write on side p conflict with an access on side q? */
int side_conflict(const Nest *ns, const char *isview, const Side *p, const Side *q);
/* a side for nv variables, and freed */
Side side_new(int nv);
void side_free(Side *sd);
#endif
