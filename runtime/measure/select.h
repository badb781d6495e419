/*
 * select.h — Phase 2 of axonc compile (select.c): the candidates extraction
 * streams, validated by structure at reduced sizes, measured by the
 * performance model or a user's command in parallel worker processes, and
 * the best chosen deterministically.  Private to the axonc command files.
 */
#ifndef AXON_SELECT_H
#define AXON_SELECT_H

#include "nest.h"

enum { SEL_LEVELS = 3,         /* reduced size sets at most */
       SEL_TOP = 4,          /* best candidates kept, in order (the winner's validation may refuse one) */
       SEL_MAXJOBS = 64 };

typedef struct SelIn {
	const AxGraph *g0;
	int nv;                  /* variants, each tiled and lowered */
	AxTiling **T;
	LowerNode **L;
	const char *const *names;   /* the requested sizes, then the scalar parameters */
	const double *vals;
	int n;
	const char *const *rnames;  /* the reduced sizes structures are validated at (NULL: none): */
	const double *const *rvals; /* nlevels sets, each larger; a structure that cannot be written */
	int rn, nlevels;            /* at one (its fusion differs there) is tried at the next, */
	int validate_requested;     /* and at last as itself at the requested sizes, if set */
	int maxtile, no_fusion;
	int64_t budget;          /* visits per variant */
	int jobs;                /* worker processes (1: in this one) */
	int progress;            /* a progress line on stderr */
	const char *cmd;         /* --measure CMD ({kernel}, {config}); NULL: the model */
	int dtype;               /* bytes per element for the model */
	const char *fn;          /* the kernel's name */
	uint64_t seed;
} SelIn;

typedef struct SelPick {     /* a candidate, by its place in the stream */
	int have, v;
	int64_t visit;           /* its (combination, tiles, blocks) among the variant's visits */
	int unfused;             /* the unfused form of that visit */
	double latency;          /* seconds */
	ModelStats st;           /* the model's view of it (also with a command) */
} SelPick;

typedef struct SelOut {
	int64_t visits;          /* (combination, tiles, blocks) visited, all variants */
	int64_t considered;      /* candidates (a visit's fused and unfused forms) */
	int64_t failed;          /* could not be written */
	int64_t dropped;         /* their tiles do not fit on chip */
	int64_t emitted;         /* written and fit */
	int64_t infeasible;      /* the command failed or printed no latency (with cmd) */
	int64_t rejected;        /* dropped because their structure failed validation */
	int64_t unvalidated;     /* dropped because their structure could not be validated */
	int64_t feasible;        /* measured */
	int64_t structures, validated, struct_rejected, struct_unvalidated;
	int64_t runs;            /* renderings run (structures differing only in engines share one) */
	double validate_ms;
	SelPick top[SEL_TOP];    /* the best, in order (latency, then stream order) */
	char first_failure[600];    /* why a candidate (or any) could not be written */
	char first_rejection[600];
	char first_infeasible[600];
} SelOut;

/* Validates, measures and ranks every candidate; 0 = ok (out->top[0].have: a winner). */
int select_run(const SelIn *in, SelOut *out);
/* The candidate p again (its statements; the caller frees them and extract_free's *xo). */
Nest *select_rebuild(const SelIn *in, const SelPick *p, ExtractCand *c, Extract **xo);
/* A candidate's choices as a JSON object: variant, instructions, engines, fusion, blocks, tiles. */
void select_config_json(FILE *f, const SelIn *in, int v, const ExtractCand *c);
/* Sizes shrunk (the largest halved first, the program's assumptions kept) until the
 * program's work as its reference kernels do it (multiply-adds and other flops, a range
 * that moves with the index at its longest: roofline.c's ref_ops) is at most
 * max_ops and its tensors at most max_bytes; vals is changed in place (the first
 * nsizes entries are sizes).  Returns 1 if anything was shrunk, -1 if it could not
 * get under the limits. */
int select_shrink(const AxGraph *g0, const char *const *names, double *vals, int n, int nsizes, double max_ops,
                  double max_bytes);

#endif
