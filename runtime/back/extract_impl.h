/*
 * extract_impl.h — what extract.c and extract_like.c share: the extraction state and the
 * steps that set its current combination and tile/block choice (private to those two).
 */
#ifndef AXON_EXTRACT_IMPL_H
#define AXON_EXTRACT_IMPL_H

#include "nest.h"

enum { MAXBLOCK = 32, MAXSCALE = 3,
       MAXTRY = 8,     /* extract_combo: tile/block choices written at most */
       MINPER = 16 };  /* tile/block choices visited per combination when the budget is short */

struct Extract {
	const AxTiling *T;
	const LowerNode *L;
	const char **names;      /* the sizes, then the tile sizes of the current choice */
	double *vals;
	int nsizes, n;
	int maxtile, no_fusion;
	int *choice, *engsel;
	int64_t *cnt;            /* per operation: its (sequence, engines) combinations */
	Term ***memo;            /* per operation and combination: the limits */
	Term **limits;           /* per operation, of the current combination */
	int64_t ncombo, combo, cstride;   /* combinations, the current one, the step between visited ones */
	int64_t sub, sstride, per, count; /* the current tile/block choice's index, step, budget per combination, choices */
	int64_t sj, si, taken;   /* positions of the choices' visiting order passed, the next one's index, choices visited */
	int64_t largest[64];     /* per axis class: the largest tile of the combination */
	int nscale[64], scale[64];   /* ... tiles at most largest >> scale (options, current) */
	int64_t capv[64];
	int nblk[64];            /* per axis class: the block options (powers of two) at these tiles */
	int nblkmax[64];         /* ... at the smallest tiles */
	int sized;               /* the tile sizes are those of scale[] */
	int blocks[64];          /* ... and the current one, in tiles */
	int nbal, bal;           /* tails balanced or not (2 options where some axis has a tail, else 1; current) */
	int nfold, fold;         /* blocks along partition axes folded or not (2 options where some could, else 1;
	                            current: emit_fold.c) */
	int unfit;               /* a folded form of the current combination could not be written: no more */
	int pending_fold;        /* the current choice's folded form is next (after its unfused form) */
	int pending_unfused;     /* the current candidate's unfused form is next */
	int pending_plain;       /* ... its fused form without epilogues is next (before the unfused one) */
	int started;
	int64_t visit;           /* the current visit's ordinal (-1 before the first) */
	int64_t share_k, share_n;   /* only visits with ordinal % share_n == share_k are written (n 0: all) */
	int64_t maxtry;          /* extract_combo: tile/block choices written at most (MAXTRY unless set) */
	int64_t *focus;          /* extract_focus: the combinations visited again, in order (NULL: none) */
	int nfocus, fi;
	int64_t fskip, fper;     /* ... past the first fskip choices of each in its visiting order, fper more */
	int64_t seen[3];         /* ... and past these of a neighbour combination (blocked_firsts) */
	int nseen;
	int64_t (*list)[2];      /* extract_list: the (combination, tile/block choice) pairs visited (NULL: none) */
	int nlist, li, lok;      /* ... how many, the current one, its combination could be decoded */
	char why[512];
};

/* combination c decoded into x's choices (0: it cannot be) */
int ex_decode(Extract *x, int64_t c);
/* the current combination's tile/block choices: *count of them; 0 = its tiles cannot be sized */
int ex_start_combo(Extract *x, int64_t *count);
/* the current combination's tile sizes at x's scales (0 = ok) */
int ex_set_tiles(Extract *x);
/* tile/block choice i of the current combination set (0: it is none) */
int ex_set_sub(Extract *x, int64_t i);
/* does a choice include its producer's computation? is the current candidate one? */
int ex_absorbing(const Extract *x);
int ex_usable(Extract *x);
/* x's current choice (choice i of combination combo) written, into c (fuse: nest_build's; *nf
 * its fusions); NULL and c->why if it cannot be. */
Nest *ex_write_current(Extract *x, int64_t combo, int64_t i, int fuse, int *nf, ExtractCand *c);

#endif
