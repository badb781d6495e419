/*
 * synth.h — the synthesizer's state, shared by synth.c (the bottom-up
 * enumeration with concrete refutation) and synth_check.c (turning a
 * candidate into a sequence: proof, constraints, engines).  Private to them.
 */
#ifndef AXON_SYNTH_H
#define AXON_SYNTH_H
#include "search.h"

/* MAXCAND bounds the candidates of one tile (a guard against a runaway
 * search, said on stderr when it is reached); the array grows on demand. */
enum { MAXCAND = 1 << 18, PER_VALUE = 2, NKEY = 2 };

typedef struct Cand {
	int input;               /* >= 0: the operation's input; -1: an instruction */
	int inst;
	int attr[AX_MAXATTR];
	int nin;
	int in[AX_MAXOPND];      /* candidate ids; -1: an optional operand left out */
	Term *sattr[AX_MAXATTR]; /* constants: their size and float attributes */
	int ninsts;
	uint32_t eng;            /* the engines its instructions may run on, together (inputs: none) */
	AxShape shape;
	float *val;
} Cand;

/* The operands of one level: the candidates made before it, grouped by
 * shape and, within a shape, by instruction count, each group in id order. */
typedef struct Level {
	int n;                   /* candidates [0, n) */
	int nshape;
	AxShape *shapes;
	int nk;                  /* instruction counts 0 .. nk - 1 */
	int **ids;               /* ids[s * nk + k]: the candidates of shape s with k instructions */
	int *nids;
} Level;

typedef struct Synth {
	const AxTarget *t;
	TermCtx *tc;
	Arena *a;                /* candidates and their values: this tile's own arena */
	AxGraph *lhs;            /* the tile operation over its inputs */
	int nin;                 /* its inputs */
	AxConc conc;             /* the operation at the concrete sizes */
	AxEnv env;
	Cand *c;
	int nc, capc;
	int spent;               /* MAXCAND was reached, or the callback ended the search */
	float *want;
	AxShape wshape;
	int *pool, npool;
	Equiv *eq;               /* the checker, made by the first candidate tried (NULL before) */
	Equiv **shared;          /* where eq is kept for the next search, or NULL */
	Smt *smt;
	Term *sizes_pos;         /* every size >= 1 */
	int checked;
	int unproved, proved;    /* candidates with the result's value here the checker did not prove, proved */
	int depth;
	int only_result;         /* make only candidates with the result's value */
	int found;               /* fewest instructions of a candidate with the result's value; -1: none yet */
	int made;                /* the result must be made by an instruction even where an input has its value
	                            (an op's tile, not a window of instructions to fuse) */
	uint32_t found_eng;      /* the engines of the candidates for the result at that length, together */
	int longer;              /* sequences for the result proved past that length (the extra level: one) */
	float *trial;            /* a value being tried */
	int64_t captrial;
	SynthCb cb;
	void *cbenv;
	/* observational equivalence: candidates hashed by shape and a couple of
	 * their values, coarsely; those with an infinity there are "wild" */
	int *head, hcap;         /* chain heads, hcap a power of two */
	int *next;               /* per candidate, capc entries */
	int *wild, nwild;
	/* operand tuples of one instruction at one level, in enumeration order */
	int *tup, ntup, captup;
	/* the values of float attributes: -1, then 1 / size per size of the tile (scalar_values) */
	Term *fval[65];
	int nfval;
} Synth;

void try_solution(Synth *sy, int id);   /* prove candidate id equal to the tile op; report it */

#endif
