/*
 * verdict.h — validation by structure at reduced sizes (verdict.c), private to select.c.
 */
#ifndef AXON_VERDICT_H
#define AXON_VERDICT_H

#include "measure.h"

enum { V_OK = 1, V_BAD, V_UNBUILT };

/* a worker's validation state (checkers, memos), made at first need */
typedef struct Checker Checker;
Checker *checker_new(int nv);
void checker_free(Checker *K);
/* The verdict of the structure of variant v's combination combo in fusion form fused (< 0: the
 * unfused form), validated now if no worker has yet: V_OK, V_BAD or V_UNBUILT (it cannot be
 * written where it may be run).  cell: the structure's byte in memory the workers share, zero
 * at first (own: the cell is that form's alone; else the forms sharing it are judged one by one
 * by each worker). */
int checker_verdict(Checker *K, const SelIn *in, int v, int64_t combo, int fused, unsigned char *cell, int own,
                    SelOut *o);
/* a cell as counted: 0 (not met), V_OK, V_BAD (a form sharing it failed), V_UNBUILT */
int cell_summary(unsigned char f);

#endif
