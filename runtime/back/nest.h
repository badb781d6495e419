/*
 * nest.h — a candidate's loop nests as a list of statements (private to
 * the emitters).
 *
 * emit_kernel.c walks a candidate (a variant, one lowered sequence per
 * operation, engines, loop fusion, blocks, tile sizes) and writes it here
 * once; the printers render the same statements: kernel_print.c through the
 * target's templates, emit_c.c as C calling the generated reference
 * kernels; nest_room() measures the tiles live on chip.  Values are
 * variables v<k> (single assignment, but for the running value of a
 * reduction across tiles, which NS_SET and NS_ACC update, and block
 * buffers (NS_BUF), which instructions write through their `out` slice).
 */
#ifndef AXON_NEST_H
#define AXON_NEST_H

#include "back.h"

enum { NS_NONE = -1000000 };   /* NsRef.var of an omitted operand */

typedef struct NsDim {         /* one dim of a slice */
	char start[40];          /* an integer expression over loop variables (Python and C alike) */
	int64_t len;             /* > 0: a range of len; 0: one index, the dim dropped */
	int32_t fold;            /* off chip, > 0: the dim seen as (groups, fold), start and len over the groups
	                            (rows fold apart), fin and flen the row in the group: a block of fold
	                            tiles along a partition axis holds rows p * fold + j in partition p of its
	                            tile j (emit_fold.c), so the block is one transfer of contiguous rows */
	int32_t flen;            /* > 0: a range of rows in the group from fin; 0: the one row fin */
	char fin[12];
} NsDim;

typedef struct NsRef {         /* a value, an off-chip tensor, or a slice of either */
	int var;                 /* >= 0: variable v<var>; < 0: the off-chip tensor of node -1 - var; NS_NONE */
	int nidx;                /* 0: the whole value; else one NsDim per dim of the base */
	int ellipsis;            /* rank-0 tensor read whole (printed base[...]) */
	NsDim idx[AX_MAXR + 2];
	AxShape shape;           /* the shape of what is referred to */
} NsRef;

enum {
	NS_SIZE,                 /* name = value (a program size) */
	NS_NOTE,                 /* a comment */
	NS_TENSOR,               /* an off-chip tensor for node `node` (output: a kernel result) */
	NS_BUF,                  /* an on-chip block buffer var in mem: (partitions, blocks..., tile's other dims) */
	NS_LOOP,                 /* for var in 0..hi (seq: in order) */
	NS_END,                  /* closes the innermost loop */
	NS_INST,                 /* var = inst(opnd...) [written into out when out.var != NS_NONE] */
	NS_STORE,                /* dst (an off-chip slice) = src */
	NS_ACC,                  /* out += src (in place) */
	NS_SET,                  /* out = src (the running value, or a tile into a block buffer) */
	NS_VIEW,                 /* the off-chip tensor of node = its layout op over its operands' tensors */
};

typedef struct NsStmt {
	int kind;
	int depth;               /* loops around it */
	int node;                /* NS_TENSOR, NS_VIEW, NS_NOTE: the node; NS_INST: the node it computes */
	int var;
	int output;              /* NS_TENSOR: a kernel result */
	int mem;                 /* NS_BUF, NS_INST: the memory of var's tile (-1 off chip or none) */
	AxShape shape;           /* NS_TENSOR, NS_BUF, NS_INST: var's shape */
	char name[24];           /* NS_SIZE, NS_LOOP: the name */
	int64_t hi;              /* NS_SIZE: value; NS_LOOP: trip count */
	int seq;                 /* NS_LOOP: sequential */
	int fetch;               /* NS_LOOP: over a block's tiles, its loads may be made before it (prefetch.c) */
	int piped;               /* NS_LOOP: software-pipelined (pipeline.c): it runs one stage of two iterations */
	int once;                /* NS_LOOP: of one trip, a loop only to line up with the next nest's (sink.c) */
	int reshape;             /* NS_VIEW: its elements in its operand's order (the target's reshape) */
	int onetile;             /* NS_BUF: one tile of several free axes (partition dim first), not an array
	                            of tiles: filled by one transfer of folded rows */
	int inst, engine;        /* NS_INST */
	int attr[AX_MAXATTR];    /* enum attributes */
	double aval[AX_MAXATTR]; /* numeric attributes, evaluated */
	const Term *aterm[AX_MAXATTR]; /* ... and as terms (a scalar parameter prints by name) */
	NsRef opnd[AX_MAXOPND];
	NsRef out;               /* NS_INST: the slice it writes (off chip, or of a block buffer); NS_STORE, NS_ACC, NS_SET: dst */
	NsRef src;               /* NS_STORE, NS_ACC, NS_SET */
	char text[96];           /* NS_NOTE */
} NsStmt;

typedef struct Nest {
	const AxGraph *g;
	AxEnv env;
	NsStmt *s;
	int n, cap;
	int nvars;
	int accumulate;          /* the target has an in-place accumulate */
} Nest;

NsStmt *nest_push(Nest *ns, int kind, int depth);
void nest_free(Nest *ns);
/* the name of node id's off-chip tensor in every rendering: its parameter's, or t<id> */
const char *nest_tensor_name(const AxGraph *g, int id, char *buf, size_t n);
/* a ref to variable var (whole) of shape s */
NsRef ns_var(int var, const AxShape *s);
/* Does the text of an index use loop variable v (a whole identifier)?  Does a slice of r? */
int nest_uses_var(const char *e, const char *v);
int nest_ref_uses(const NsRef *r, const char *v);
/* every use of loop variable v in index text e (of cap bytes) replaced by `with`: 0, or -1 if
 * the result does not fit (e unchanged) */
int nest_subst_var(char *e, size_t cap, const char *v, const char *with);
/* the refs of statement s (operands, out, src; omitted ones left out) into r, wr[k] 1 where
 * r[k] is written, 2 written and read (an accumulation), else 0: how many */
int nest_refs(const Nest *ns, NsStmt *s, NsRef **r, int *wr);
/* the tile of block buffer buf, a dim per loop of chain (its variable) after the partition dim,
 * for a reference r to a tile of shape tile (whole if r takes no slice) */
NsRef nest_chain_ref(const NsRef *r, int buf, const NsStmt *const *chain, int nc, const AxShape *tile);
/* Is s a load: an instruction of an on-chip tile of its own, from off-chip operands only (none
 * of which wrote[id] marks, wrote non-NULL)? */
int nest_is_load(const Nest *ns, const NsStmt *s, const int *wrote);
/* ... an instruction reading off-chip operands only (at least one, none marked in wrote) */
int nest_reads_offchip(const Nest *ns, const NsStmt *s, const int *wrote);
/* wrote[id]: does a statement of [a, e] write off-chip tensor id (or one a view of it is of)? */
void nest_written(const Nest *ns, int a, int e, int *wrote);
/* per statement: the loop around it (up, -1 none: an NS_END's is the loop around its loop), and
 * per NS_LOOP its NS_END (endof, else -1) */
void nest_loops(const Nest *ns, int *up, int *endof);
/* loop l's spine (nest_loops' up and endof): l, then the loop that ends its body, and so on, at
 * most room, into sp: how many */
int nest_spine(const Nest *ns, const int *up, const int *endof, int l, int *sp, int room);
/* ns's statements replaced by o[0, no) (nvars variables), if their tiles fit on chip: 1, else 0 */
int nest_install(Nest *ns, const NsStmt *o, int no, int nvars);
/* ... whether they fit or not */
void nest_replace(Nest *ns, const NsStmt *o, int no, int nvars);
/* s[0, n) without loops that hold no statement but notes (a pass that moved their statements out
 * leaves them): the new n */
int nest_drop_empty(NsStmt *s, int n);
/* two loads of the same data into the same kind of tile */
int nest_same_load(const Nest *ns, const NsStmt *a, const NsStmt *b);
/* two slice dims alike (start, length, fold) */
int nest_same_dim(const NsDim *x, const NsDim *y);
/* statements [p, p + n] and [q, q + n] alike in kind, depth within them, and loops (name, trips) */
int nest_same_loops(const Nest *ns, int p, int q, int n);
/* The fill of the block buffer declared at p: the loops right after it (or one statement),
 * every instruction in them writing into it from off-chip tensors wrote[] does not mark, and
 * no other statement of [a, e] writing it.  Its last statement, or -1 if there is none. */
int nest_fill(const Nest *ns, const int *endof, int p, int a, int e, const int *wrote);

/* emit_fold.c: may axis k of node id (its tiling to) fold its blocks' rows: a tile axis, not
 * reduced, the partition axis of the result, not a deep tile's? (the emitter and extraction ask) */
int fold_axis_ok(const AxGraph *g, const TileOp *to, int id, int k);
/* ... the tiles per block a folded axis of ext rows in tiles of T takes where its class allows
 * want (1: it does not fold); the largest divisor of m not above cap (1: none) */
int64_t fold_blocks(int64_t ext, int64_t T, int64_t want);
int64_t nest_divisor(int64_t m, int64_t cap);

/* emit_kernel.c: the candidate's statements (blocks: tiles per block per axis class of T,
 * NULL: 1; fold: blocks along partition axes folded, emit_fold.c, and NULL if none can be);
 * NULL and why if it cannot be written */
/* What an epilogue (emit_fuse.c) adds to nest_build's count of fusions, so that a form with
 * epilogues is a structure of its own wherever forms are told apart by that count. */
enum { NEST_EPILOGUE = 100 };
/* nest_build's fuse: 0 no loop fusion, NEST_FUSE loop fusion with epilogues, NEST_FUSE_PLAIN
 * without them (the form with epilogues has a twin without, a candidate of its own); the level
 * that rebuilds a fused form of `fused` fusions */
enum { NEST_FUSE = 1, NEST_FUSE_PLAIN = 2 };
#define NEST_FUSE_OF(fused) ((fused) < 0 ? 0 : (fused) >= NEST_EPILOGUE ? NEST_FUSE : NEST_FUSE_PLAIN)
Nest *nest_build(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const int *blocks,
                 int fold, const AxEnv *env, int fuse, int *nfused, char *why, size_t nwhy);
/* ... and *why_node: the operation being written when it failed (-1: none, or it was written) */
Nest *nest_build_at(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const int *blocks,
                    int fold, const AxEnv *env, int fuse, int *nfused, char *why, size_t nwhy, int *why_node);
/* emit_kernel.c: 1 if every choice that includes its producer's computation (instruction fusion
 * across the two) has that producer loop-fused into it at these sizes, as nest_build fuses */
int nest_can_absorb(const AxTiling *T, const LowerNode *L, const int *choice, const AxEnv *env);
/* nest.c: the tiles live on chip at once, the most over the statements */
void nest_room(const Nest *ns, Footprint *fp);
/* ... fit at dtype_bytes per element (nest_room measures 4; a banked memory's accumulators stay 4) */
int footprint_fits(const AxTarget *t, const Footprint *fp, int dtype_bytes);
/* ... and where not, what each memory that is short would need into why ("psum 16400 of 16384
 * bytes per partition") */
int footprint_explain(const AxTarget *t, const Footprint *fp, int dtype_bytes, char *why, size_t nwhy);
/* ... and the liveness behind it: per variable its defining and last statement */
typedef struct NestLive {
	int nv, n;
	int *def, *last, *mem, *depth;   /* per variable (mem -1: not an on-chip tile) */
	double *per;
	double *delta, *bdelta;          /* per statement */
} NestLive;
void nest_live(const Nest *ns, double scale, NestLive *lv);
/* the most bytes per partition and banks of memory m live at once, the tiles made
 * inside at least dmin loops counted twice (double buffering) */
void nest_live_peak(const NestLive *lv, const AxMemory *mm, int m, int dmin, double *bytes, double *banks);
void nest_live_free(NestLive *lv);
/* prefetch.c: loads in loops over a block's tiles (marked fetch) made before them, per block */
void nest_prefetch(Nest *ns);
/* forward.c: consecutive loop nests over the same loops merged, the tensors between them kept
 * on chip per iteration (where each iteration reads what the same one wrote, and it fits): how
 * many merges */
int nest_forward(Nest *ns);
/* hoist.c: loads made before the loops they do not depend on (if the tiles still fit) */
void nest_hoist(Nest *ns);
/* pipeline.c: a loop per loop nest software-pipelined, its first stage of the next iteration
 * before its second stage of this one or (interleave) their statements in turn (if the tiles
 * still fit); with `ahead`, the first stage's fills from off chip a further iteration ahead
 * where it has some and they fit (*nahead: in how many loops): how many loops */
int nest_pipeline(Nest *ns, int interleave, int ahead, int *nahead);
/* balance.c: copies given to another engine where that lowers the busier one's time in the loop
 * nest (cost by the spec): how many */
int nest_balance(Nest *ns);
/* ... the cheapest copy instruction (copy[k]: lower_is_copy) and its engine (*engine) that moves
 * statement s's tile from memory src to dst on chip: the instruction, or -1 if none */
int nest_copy_choice(const Nest *ns, const NsStmt *s, int src, int dst, const int *copy, int *engine);
/* ... statement i, a copy between on-chip memories: the other (instruction, engine) pairs that
 * could make it (alt, room for room pairs): how many (model_refine_copies tries them) */
int nest_copy_alts(const Nest *ns, int i, int (*alt)[2], int room);
/* reuse.c: a pair (an instruction, then one writing its tile into a block buffer) made again
 * after the loops it is in, with one of their variables a literal, read from the buffer
 * instead (a column tail's transposes of the stationary operand): how many pairs removed */
int nest_reuse(Nest *ns);
/* widen.c: a block buffer filled with copies of a slice, and one after it in the same loop body
 * (or both outside loops) filled from a slice next to or overlapping it along the last dim, made
 * one buffer filled by one copy (one transfer, not two): how many times pairs were joined */
int nest_widen(Nest *ns);
/* permute.c: each view permuting an off-chip tensor's axes addressed in place (its slices read
 * as slices of the tensor, or a result's tensor written through it): 1, or 0 and why where a
 * slice would reorder its ranges or the view is read or returned as no slice */
int nest_permute_views(Nest *ns, const AxTiling *T, char *why, size_t nwhy);
/* ... node id a view permuting its operand's axes (operand dim k is its dim perm[k]), moving
 * more than axes of extent 1: its operand, else -1 */
int nest_view_permutes(const AxTiling *T, const AxEnv *env, int id, int *perm);
/* does a view of another kind (a reshape, a merge of axes) read node id? */
int nest_view_read_as_view(const AxTiling *T, int id);
/* tails.c: the loads of each run of statements after a top-level loop (a tail tile's) moved
 * before the loops it follows that it is independent of (near: that load nothing, back to the
 * first that does): how many runs moved (near: 0 where none stopped short of where the other
 * rule would have taken it, the same nest) */
int nest_tails_first(Nest *ns, int near);
/* sink.c: each run of statements between a top-level loop and the later nest sharing the most
 * of its loops (an operation's tail tiles, then the next operation's loop nest) moved after that
 * nest where independent, so that the nests meet (forward.c): how many runs moved */
int nest_sink_tails(Nest *ns);
/* sink.c: each top-level loop of one trip made only to line up with another (`once`) written as
 * its body, its variable 0, after the merges (whether or not it merged) */
void nest_unwrap_once(Nest *ns);
/* balance.c: the passes above, tails first in forms 3 and 4, then pipelining, its stages in
 * sequence (forms 1, 3) or interleaved (2, 4), then balancing; forms 5 to 8 are forms 1 to 4
 * with the fills ahead (nest_pipeline); forms 9 to 12 are forms 3, 4, 7 and 8 with the tails'
 * loads moved near (nest_tails_first): how many changes (0: the nest as it was), and in
 * *piped, *tails, *ahead (if not NULL) how many loops were pipelined, runs moved, loops with
 * fills ahead */
int nest_schedule(Nest *ns, int form, int *piped, int *tails, int *ahead);
enum { NEST_FORMS = 12 };
/* form's parts: tails first (0 no, 1 far, 2 near), stages interleaved, fills ahead, and the form
 * it is with one part more (0: none; a twin of this form differs from that one's only where
 * that one is made too); 0 if there is no such form */
int nest_form_parts(int form, int *tails, int *interleave, int *ahead, int *parent);
/* nest.c: a copy of ns (nest_free frees it) */
Nest *nest_dup(const Nest *ns);
/* The concrete instance of statement s as instruction inst on engine e: its operands'
 * shapes and, for its own instruction, its attributes (the cost and check functions' input). */
void nest_conc(const AxTarget *t, const NsStmt *s, int inst, int e, AxConc *c);
/* kernel_print.c: the kernel `name` through the target's templates (malloc'd); NULL and why */
char *nest_kernel(const Nest *ns, const char *name, char *why, size_t nwhy);
/* ... its tiles of dtype_bytes per element (2: the target's dtype_bf16 template, else
 * dtype_f32), tiles of a banked memory (accumulators) of dtype_f32 whatever it is */
char *nest_kernel_as(const Nest *ns, const char *name, int dtype_bytes, char *why, size_t nwhy);
/* emit_c.c: the same loop nests as one C function
 *   int name(AxkCtx *k, float *const *in, float **out)
 * calling the bridge of ckernel.c (malloc'd); NULL and why */
char *nest_c(const Nest *ns, const char *name, char *why, size_t nwhy);
/* ckernel.c: the C rendering compiled by libtcc and run on inputs[p] (tensor parameter p
 * by position, row-major); outputs[k] get malloc'd results, in g->outputs order, and
 * oshapes their shapes.  0 = ok, else -1 and why. */
int nest_run(const Nest *ns, const float *const *inputs, float **outputs, AxShape *oshapes, char *why, size_t nwhy);
/* the same for a rendering src already made (its function `name`) */
int nest_run_c(const Nest *ns, const char *src, const char *name, const float *const *inputs, float **outputs,
               AxShape *oshapes, char *why, size_t nwhy);
/* results against expected ones: 1 if every element has |a-b| <= 1e-4 + 1e-4*|b|, else 0 and why */
int ck_compare(int nout, float *const *got, const AxShape *gs, float *const *want, const AxShape *ws, char *why,
               size_t nwhy);
/* ns's rendering src run on the check's inputs and compared with the program's results: 1 = same */
int ck_check_nest(CkCheck *c, const Nest *ns, const char *src, const char *fn, char *why, size_t nwhy);
float *const *ck_check_inputs(CkCheck *c);   /* by parameter position */

/* tile_size.c: kernel_tile_sizes with each operation's limits given (limits[id]; NULL:
 * computed), a cap per axis class of T (clscap[c] > 0), and where an axis is not a multiple
 * of its tile, its tiles balanced (1: all but the tail of one size, the smallest that keeps
 * their number) or not (0: the largest the limits allow, and what is left) */
int tile_sizes_capped(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, Term *const *limits,
                      const int64_t *clscap, int balance, const char **names, double *vals, int *n, int cap,
                      int64_t maxtile, char *why, size_t nwhy);
/* Has an axis of T a tail tile (not a multiple of its tile size) at env? */
int tiles_have_tail(const AxTiling *T, const AxEnv *env);
/* Do operation id's sequence limits (and its combining sequence's) hold at env? */
int tile_limits_hold(const LowerNode *L, int id, Term *limit, const AxEnv *env);
/* the preconditions of operation id's sequence choice, its instructions on engsel[j] */
Term *seq_limit(const AxTiling *T, const LowerNode *L, int id, int choice, const int *engsel);

/* extract.c: the candidates of a variant, streamed */
typedef struct Extract Extract;
typedef struct ExtractCand {
	int64_t combo, sub;      /* its (sequences, engines) combination; its tile/block choice in it */
	int64_t visit;           /* the ordinal of its (combination, tiles, blocks) among those visited */
	int fused;               /* producers and independent operations loop-fused (-1: the unfused form) */
	const int *choice, *engsel, *blocks;   /* valid until the next call */
	int fold;                /* its blocks along partition axes folded (emit_fold.c) */
	int sched;               /* its scheduled twin's form (nest_schedule; 0: none) */
	AxEnv env;               /* sizes and tile sizes, likewise */
	Footprint fp;
	int failed, end;         /* no nest: it could not be written (why) / no more candidates */
	char why[512];
	int why_node;            /* ... the operation being written when it failed (-1: none) */
} ExtractCand;
/* budget: how many (combination, tiles, blocks) to visit at most, spread evenly */
Extract *extract_new(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int nsizes,
                     int maxtile, int no_fusion, int64_t budget);
/* the next candidate's statements (the caller frees them); NULL with c->failed or c->end */
Nest *extract_next(Extract *x, ExtractCand *c);
void extract_free(Extract *x);
int64_t extract_combinations(const Extract *x);
/* the step between the combinations visited (every k-th, k = the stride) */
int64_t extract_stride(const Extract *x);
/* for parallel workers: only visits whose ordinal % n == k are written (their fused and
 * unfused forms both); the others are passed over unbuilt.  n = 0: every visit. */
void extract_share(Extract *x, int64_t k, int64_t n);
/* combination combo at x's sizes, loop-fused if fuse with nfused producers fused (< 0:
 * any), at the tile/block choice with the smallest tiles and most blocks that is so
 * (c->fused as extract_next's; the first 8 choices written are tried); NULL and c->why
 * if none.  For validating a structure
 * at reduced sizes. */
Nest *extract_combo(Extract *x, int64_t combo, int fuse, int nfused, ExtractCand *c);
/* ... combination combo at x's sizes with the loops of candidate req (of another Extract, at
 * other sizes): each tile cut as many times along its axis as req's, or where the axis is too
 * short, into the most tiles that divide it and req's blocks, with a short last tile where req
 * has one; req's blocks and fold; NULL and c->why if that cannot be or fuses other than nfused. */
Nest *extract_mirror(Extract *x, int64_t combo, const ExtractCand *req, int fuse, int nfused, ExtractCand *c);
/* ... combination combo's stand-ins at x's sizes (the requested ones), to be written elsewhere
 * like them (extract_mirror): its tile/block choices (x's tries, spread evenly over them all)
 * that fuse as asked.  From walk position *k on (0 at first), the next into c (valid until the
 * next call), *k moved past it; 0 when there are no more. */
int extract_standin(Extract *x, int64_t combo, int fuse, int nfused, int *k, ExtractCand *c);
/* A second round over some combinations (in that order): of each, its tile/block choices
 * after those the first round visited (x's budget per combination), per more; the visits'
 * ordinals start at EXTRACT_FOCUS_BASE.  Then extract_next as before. */
enum { EXTRACT_FOCUS_BASE = 1 << 30 };
void extract_focus(Extract *x, const int64_t *combos, int n, int64_t per);
/* A round over explicit (combination, tile/block choice) pairs, in that order, each a visit
 * (unfolded choices: a choice's folded form follows it, as in extract_next); the visits'
 * ordinals start at base.  Then extract_next as before. */
void extract_list(Extract *x, const int64_t (*pairs)[2], int n, int64_t base);
/* The tile/block choices next to choice sub of combination combo (one axis class's blocks
 * or tiles a step up or down, or both; tails balanced or not), at most room, into out: how
 * many.  For a descent from the best choices found. */
int extract_neighbours(Extract *x, int64_t combo, int64_t sub, int64_t *out, int room);
/* The combinations one operation's choice away from combo (another sequence or engines of one
 * operation; a choice that includes its producer's computation together with the producer's
 * choice it was found with), at most room, into out: how many.  For the best combinations of
 * the first round, which samples the combinations. */
int extract_combo_neighbours(Extract *x, int64_t combo, int64_t *out, int room);
/* The visits of the neighbours of combo the first round did not visit (its stride passes over
 * them): per neighbour in order, EXTRACT_NEIGHBOUR_SUBS tile/block choices that can be sized (the
 * largest tiles without blocks, with blocks of 2 and of 4 tiles along every axis class, then its
 * visiting order's), as (combination, choice) pairs, at most room: how many. */
enum { EXTRACT_NEIGHBOUR_SUBS = 4 };
int extract_neighbour_visits(Extract *x, int64_t combo, int64_t (*pairs)[2], int room);
/* descent.c: the steps of a descent over the tile/block choices of the best combinations */
typedef struct Descent Descent;
Descent *descent_new(void);
void descent_free(Descent *d);
/* a start of the descent: (variant v, combo, sub), visited */
void descent_start(Descent *d, int v, int64_t combo, int64_t sub);
/* the step's choices around a start not visited yet (one move away, or two after a step that
 * improved nothing), at most room, into out as (combo, sub) pairs and marked visited: how many */
int descent_around(Descent *d, Extract *x, int v, int64_t combo, int64_t sub, int64_t (*out)[2], int room);
/* after a step: 1 if another is to be taken (improved: from the better choices; else two moves
 * out, once), 0 at the end */
int descent_next(Descent *d, int improved);
/* The candidate (combo, sub) at x's sizes, loop-fused or not: its statements, NULL and c->why */
Nest *extract_at(Extract *x, int64_t combo, int64_t sub, int fuse, ExtractCand *c);
/* extract_combo writes at most n tile/block choices (8 unless set; the winner's check at
 * reduced sizes looks further: which choices fuse as the winner does depends on the sizes) */
void extract_set_tries(Extract *x, int64_t n);
/* how many (combination, tiles, blocks) extract_next will visit */
int64_t extract_visits(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int nsizes,
                       int maxtile, int64_t budget);

#endif
