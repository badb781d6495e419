/*
 * back.h — the back end (runtime/back/): candidates written down.  Takes a
 * tiled, lowered variant and one choice per operation; gives its loop nests
 * as statements (nest.h: extract.c streams the candidates, emit_kernel.c,
 * emit_tile.c and emit_inst.c write them), the kernel through the target's
 * templates (kernel_print.c), the same nests as C run by libtcc (emit_c.c,
 * ckernel.c), and a variant as NumPy (pyemit.c).
 */
#ifndef AXON_BACK_H
#define AXON_BACK_H
#include "search.h"

/* ---- emit_kernel.c: a candidate as a kernel, through the target's templates ------------ */
typedef struct Footprint {  /* on-chip room: the largest over the kernel's loop nests */
	int64_t bytes[32];       /* per memory: bytes per partition of the tiles a loop nest makes */
	int64_t banks[32];       /* per banked memory: banks they take */
	int fits;                /* within every memory's capacity */
} Footprint;
/* The kernel `name` for variant T with sequence choice[id] per operation (instruction j
 * of it on its engsel[id * 8 + j]-th engine; engsel NULL: each on its first), with loop
 * fusion if fuse (*nfused: the producers fused), at
 * the sizes env (program sizes, scalar parameters and tile sizes); NULL and
 * why if it cannot be written. */
char *emit_kernel(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const AxEnv *env,
               int fuse, int *nfused, Footprint *fp, const char *name, char *why, size_t nwhy);
/* ---- tile_size.c: a candidate's tile sizes ---------------------------------------------- */
/* Per tile parameter of the chosen sequences, the size with the fewest tiles the limits
 * allow (a divisor where one does as well, else full tiles and a tail), at most maxtile
 * (> 0), appended to names/vals. */
int kernel_tile_sizes(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const char **names,
                   double *vals, int *n, int cap, int64_t maxtile, char *why, size_t nwhy);


/* ---- ckernel.c: the C rendering of candidates, run through libtcc (nest.h) ------------- */
typedef struct CkCheck CkCheck;
struct Nest;
/* For axonc compile: each candidate's C rendering written as DIR/NAME.c (dir non-NULL) and,
 * with validate, run on random inputs (seed) at the sizes names/vals (sizes and scalar
 * parameters) and compared with g0's reference execution on the same inputs. */
CkCheck *ck_check_new(const AxGraph *g0, const char *const *names, const double *vals, int n, int validate,
                      uint64_t seed, const char *dir);
/* One candidate's statements (nest.h; label: its file name, DIR/label.c): -1 a file cannot
 * be written, 1 rejected by validation, else 0.  c NULL: nothing, 0. */
int ck_candidate(CkCheck *c, const struct Nest *ns, const char *fn, const char *label);
void ck_report(const CkCheck *c, FILE *f);     /* , "emit_all_validated": N, "emit_all_rejected": M (with validation) */
void ck_summary(const CkCheck *c, FILE *f);    /* a line for stderr (with validation) */
const char *ck_first_rejection(const CkCheck *c);
void ck_check_free(CkCheck *c);

/* ---- pyemit.c: a variant as a NumPy function ----------------------------------- */
/* The source of a runnable NumPy function `name(params)` computing g; NULL
 * (and why) if an op has no NumPy spelling. */
char *graph_numpy(const AxGraph *g, const char *name, char *why, size_t n);
void graph_dot(FILE *f, const NuGraph *ng);
/* the NumPy expression of node id over operands named a[]; 0 = ok, else why not */
int node_numpy(FILE *f, const AxGraph *g, int id, char a[][16], char *why, size_t wn);
/* 1 if node id only gives its one operand's elements, in row-major order, another
 * shape (an axis of 1 added or dropped, an axis split or two merged): a reshape */
int node_is_reshape(const AxGraph *g, int id);

#endif
