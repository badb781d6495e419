/*
 * model_state.h — the performance model's state (private to model.c, the
 * schedule, and model_stream.c, the statements made into its operations).
 */
#ifndef AXON_MODEL_STATE_H
#define AXON_MODEL_STATE_H

#include <stdio.h>
#include "measure.h"

enum {
	MAXBUF = 2,              /* buffers per tile at most (double buffering) */
	MAXQ = 64,               /* queues of one transferring engine */
	MAXENG = 32,
	MAXPER = 32,             /* the longest period of a loop's steady state looked for (a queue pattern can take one per queue) */
	HIST = 2 * MAXPER + 1,   /* states a loop keeps */
};

enum { MK_SKIP, MK_EXEC, MK_XFER, MK_FREE, MK_BUF, MK_LOOP, MK_END, MK_VIEW };

typedef struct MOp {
	int kind;
	int eng;                 /* MK_EXEC, MK_XFER: the engine */
	int nq;                  /* MK_XFER: queues the transfer is split over */
	double dur;              /* MK_EXEC: seconds busy; MK_XFER: seconds per queue */
	double lat;              /* MK_EXEC: from its end until its result may be read */
	double bytes;            /* MK_XFER */
	int nin, in[AX_MAXOPND + 2];   /* state slots whose times it waits for */
	int nsr, sr[AX_MAXOPND + 2];   /* tiles of block buffers it reads (Model.sref) */
	int wsr;                 /* the tile of wvar it writes (-1: all of it) */
	int nrd, rd[AX_MAXOPND + 2];   /* variables it reads (their release times grow) */
	int def;                 /* variable made afresh (MK_EXEC, MK_XFER, MK_BUF), -1 none */
	int wvar;                /* variable written in place (a block buffer, a running value), -1 none */
	int wten;                /* off-chip tensor (node) written, -1 none */
	int end;                 /* MK_LOOP: its MK_END */
	int64_t trip;            /* MK_LOOP */
	int touch, ntouch;       /* MK_LOOP: its body's state slots, in Model.touch */
	int hist;                /* MK_LOOP: (HIST + 1) * ntouch doubles in Model.scr */
	int64_t sper;            /* MK_LOOP: its periods are multiples of this (tiles of block buffers indexed by it) */
} MOp;

/* One tile of a block buffer, its slot computed from the iteration: per
 * block dim a literal (loop -1) or a loop's index plus lit, modulo mod if
 * mod > 0 (a pipelined loop's slots, back/pipeline.c), times a stride. */
typedef struct SlotRef {
	int var, nd;
	int loop[AX_MAXR], lit[AX_MAXR], mod[AX_MAXR];
	int stride[AX_MAXR];
} SlotRef;

typedef struct Model {
	const Nest *ns;
	const AxTarget *t;
	MOp *op;
	int n;
	int nv, nn;              /* variables, graph nodes */
	int eslot[MAXENG], nslot[MAXENG];   /* per engine: its first state slot, how many (queues) */
	int vr, vl, va, vg, tn, st;         /* bases: ready, release, avail, ring, tensors, stats */
	int *nbuf;               /* per variable */
	int *sbase, *nsl;        /* per variable: its first tile slot, how many (0: not kept per tile) */
	uint32_t *dims;          /* ... its block dims */
	int (*bdim)[AX_MAXR];    /* ... their sizes */
	int open[64], nopen;     /* compile_ops: the NS_LOOP statements around the current one */
	SlotRef *sref;           /* references to one tile of a block buffer */
	int nsref, capsref;
	int *host, *div, *mod;   /* per statement NS_LOOP: the loop op that runs it (merged), its index there */
	int64_t *cnt;            /* per MK_LOOP op: the iteration being run */
	int z;                   /* state size */
	double *x;
	int *touch;
	double *scr;
	FILE *trace;             /* model_timeline: each instruction's times written here (every iteration run) */
	int nrun;                /* ... the loops running, */
	int64_t iter[64];        /* ... their iterations, outermost first */
	double ran;              /* operations run (the loops' jumped iterations not counted) */
} Model;

/* stats slots after st: busy per engine, then bytes, instructions, transfers */
enum { ST_BYTES = MAXENG, ST_INSTS, ST_XFERS, ST_QUEUES, ST_FIXED, ST_N };

#define R(m, v) ((m)->vr + (v))
#define L(m, v) ((m)->vl + (v))
#define A(m, v) ((m)->va + (v))
#define G(m, v, k) ((m)->vg + (v) * MAXBUF + (k))
#define T(m, n) ((m)->tn + (n))
#define S(m, v, k) ((m)->sbase[v] + (k))

static inline double
dmax(double a, double b)
{
	return a > b ? a : b;
}

/* model_stream.c */
void model_slot_plan(Model *m);                   /* which block buffers are kept per tile */
void model_compile_ops(Model *m, int dtype_bytes);  /* the statements as operations */
void model_slot_periods(Model *m);                /* per loop: the cycle of the tiles it indexes */
void model_collect_touch(Model *m);               /* per loop: the state its body may change */

#endif
