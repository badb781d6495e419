/*
 * select_impl.h — what select.c and select_rounds.c share: Phase 2's state
 * (the workers' shared memory, the verdicts' cells, the current round's
 * combinations; the round over the workers, select.c's, as a function the state holds).
 */
#ifndef AX_SELECT_IMPL_H
#define AX_SELECT_IMPL_H

#include "measure.h"

typedef struct Shared {
	int64_t done[SEL_MAXJOBS];   /* visits done, per worker */
	double best[SEL_MAXJOBS];    /* the best latency so far, per worker (0: none) */
	SelOut part[SEL_MAXJOBS];
	int failed[SEL_MAXJOBS];     /* the worker could not finish: its exit status, or minus the signal that ended it */
} Shared;

typedef struct Sel {
	const SelIn *in;
	/* a round over the workers, its visits counted, its results merged into out (select.c) */
	int (*round_over)(struct Sel *S, int jobs, int64_t total, SelOut *out);
	Shared *sh;
	unsigned char **verdict;     /* per variant: per visited combination, W cells (shared memory, verdict.h):
	                                [0] the unfused form, [1 + k] the fused form with k producers fused,
	                                then the same with one epilogue, and with more (nest.h) */
	int64_t *ncv;                /* per variant: combinations visited */
	int64_t *stride;
	int64_t (*xcombo)[SEL_XCOMBO];   /* per variant: combinations visited past the first round (their
	                                    verdict cells follow the first round's) */
	int *nxcombo;
	int W;
	char tmpdir[64];             /* --measure: where candidates are written (--slurm: the workers' records) */
	SlurmRun *slurm;             /* --slurm: the work directory */
	int64_t (*focus)[SEL_TOPC];  /* the second round: per variant its combinations (NULL: first round) */
	int *nfocus;
	int64_t fper;                /* ... tile/block choices more of each */
	int64_t (**list)[2];         /* the descent: per variant the (combination, choice) pairs of a step */
	int *nlist;
	int64_t *lbase;              /* ... the ordinal of each variant's first */
} Sel;

/* select_rounds.c: the rounds after the first (measured by the model): the neighbours of the best
 * combinations, the second round over the best combinations' tile/block choices, the descent */
int sel_refine(Sel *S, int jobs, SelOut *out);

#endif
