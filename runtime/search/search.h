/*
 * search.h — Phase 1 (runtime/search/): the space of candidate kernels.
 * Takes the program's graph; gives its proved variants (propagate.c,
 * Algorithm 1), each tiled symbolically (tile.c; tilecheck.c runs a tiling),
 * its tile operations lowered to proved instruction sequences with their
 * data movement (synth*.c, Algorithm 2; lower.c), and the instruction
 * fusions found among them as more choices (fuse.c, fuse_apply.c).
 */
#ifndef AXON_SEARCH_H
#define AXON_SEARCH_H
#include "proof.h"

/* ---- propagate.c: Algorithm 1, operator propagation ------------------------- */
enum { PROP_VARIANTS = 256 };   /* variants kept by default */
typedef struct PropOpts {
	int variant_cap;        /* stop after this many (0: PROP_VARIANTS) */
	int time_ms;             /* stop after this long (0: 10000) */
	int no_algebraic;        /* keep the input graph only */
	int timeout_ms;          /* per solver query */
} PropOpts;
NuGraph *propagate(const AxGraph *g0, const PropOpts *o);

/* ---- synth.c: instruction sequences for a tile operation (Algorithm 2) ------- */
enum { SYNTH_OMITTED = -1000 };
typedef struct SynthSeq {
	int ninsts;
	const char *insts[8];    /* instruction names, operands before users */
	uint32_t engines[8];     /* the engines each may run on */
	int inst[8];             /* instruction indices in the target */
	int src[8][AX_MAXOPND];  /* operand sources: j >= 0 instruction j of the sequence, -1 - p the
	                            tile's input p, SYNTH_OMITTED an optional operand left out */
	int attr[8][AX_MAXATTR]; /* each instruction's enum attributes */
	Term *sattr[8][AX_MAXATTR];   /* and size/float attributes (constants), over the tile's sizes */
	char text[512];          /* nc_matmul(stationary=..., moving=b) */
	char constraints[512];   /* hardware limits on the tile sizes */
	Term *limit;             /* the same limits as a term (on the instructions' first engines) */
} SynthSeq;
typedef int (*SynthCb)(void *env, const SynthSeq *seq);   /* nonzero: the caller has what it needs */
typedef void (*SynthInstCb)(void *env, const AxGraph *tile);
/* Sequences of at most depth instructions proved equal to the graph's one
 * operation (inputs first); each reported through cb.  0 = ok.  The checker
 * is *eq, made at first need and left for the caller to free (searches over
 * one TermCtx share it, and with it the solver's answers), or the search's
 * own when eq is NULL. */
int synth_tile(const AxTarget *t, TermCtx *tc, AxGraph *lhs, int depth, Equiv **eq, SynthCb cb, void *env,
               int *checked);
/* Every 2-D tile instance of op, synthesized; returns the number of instances. */
int synth_op(const AxTarget *t, TermCtx *tc, int op, int depth, SynthInstCb icb, SynthCb cb, void *env, int *checked);

/* ---- tile.c: the tiling pass (strip, block and tile sizes; 2-D tile ops) ------- */
enum { TR_NONE, TR_SUM, TR_MAX, TR_MIN, TR_SCAN };        /* how partial tiles combine */
enum { TO_INPUT, TO_COMPUTE, TO_VIEW, TO_CONST, TO_UNTILED };
typedef struct TileAxis {    /* one axis an operation iterates over */
	Term *extent;
	int out;                 /* position in the result; -1: reduced away */
	int tiled;               /* 1: a dim of the 2-D tiles; 0: a loop, one index at a time */
	int red;                 /* TR_*: a reduction along it (TR_SCAN: a running one, carried) */
	int whole;               /* a reduction that is not plain: one tile spans the axis */
	int unit;                /* a size-1 axis: 1 in the tile, no parameters */
	int cls;                 /* axis class: one strip count shared by the graph; -1 none */
	int bcls;                /* block class: cls, or for a sum across tiles one of its own after the
	                            strips (blocks of K tiles); -1 none */
	const char *t, *b;       /* tile size and block count ("t0_5", "b0_5"); NULL for loops */
} TileAxis;
typedef struct TileAxisRead {   /* how an operation reads one dim of an operand */
	int kind;                /* 1 an axis of the operation, 2 a constant index (broadcast),
	                            3 index arithmetic, 4 an axis plus an offset (views) */
	int axis;
	Term *off;               /* kind 4: the offset added to the axis (NULL: not a plain sum) */
} TileAxisRead;
typedef struct TileOp {
	int kind;                /* TO_* */
	TileAxisRead read[AX_MAXOPND][AX_MAXR];   /* per operand dim */
	int naxes;
	TileAxis ax[AX_MAXR + 4];
	uint32_t replicated;     /* bit o: operand o is replicated across partitions by its load */
	AxGraph *tile;           /* TO_COMPUTE: the op over 2-D tiles, sizes named by its tile parameters */
	const char *why;         /* TO_VIEW, TO_UNTILED: what it is instead */
	int deep;                /* a reduction along a short axis: its tile spans more than two of the
	                            operand's dims (its literal ones whole), partition axis the outermost */
	int gather;              /* TO_VIEW of several tensors (a concatenation): no view of one tensor
	                            on chip, its tensor is made by copies of its operands into place */
} TileOp;
typedef struct AxTiling {
	const AxGraph *g;
	TileOp *op;              /* per node */
	int ncls;
	Term *cls_extent[64];
	const char *strip[64];   /* "n0", ...: the number of strips along the class */
	int nbcls;               /* block classes: the ncls strips, then the sums' ("k0", ...) */
	const char *bname[64];
} AxTiling;
AxTiling *tile_graph(const AxGraph *g);
/* op's element equation at node nd's operands, groups and attributes (op: nd's own, or another
 * of the same operands), at fresh result indices put in out[]; operand o is read as "@in<o>" */
Term *tile_equation(const AxGraph *g, const AxNode *nd, const AxOp *op, Term **out);
/* The constant node id is, or the constant of rank 0 that a chain of views id reads (every
 * element of a view of it is its value, so a reader makes it on chip as it would the
 * constant); -1 if neither. */
int tile_const_of(const AxTiling *T, int id);
void tile_print(FILE *f, const AxTiling *T);   /* the paper's [n.. | b..] op [t..] notation */
int tile_print_node(FILE *f, const AxTiling *T, int id);   /* one node's line (no newline); 0: an input */

/* ---- tilecheck.c: a tiling executed tile by tile ----------------------------------- */
/* Every tiled op of T run tile by tile at the given sizes (random inputs from
 * seed) and compared with the op computed whole; the number of ops checked,
 * or -1 and err says which differs. */
int tile_check(const AxTiling *T, const AxEnv *sizes, uint64_t seed, char *err, size_t n);

/* ---- lower.c: tile operations to instruction choices, with data movement ------- */
enum { LOWER_MAXSTEPS = 16 };
typedef struct LowerCache LowerCache;   /* synthesized sequences by (tile semantics, target, depth) */
typedef struct LowerMove {
	int inst, from, to;      /* a copy instruction between two memories */
	const char *what;        /* the operand or instruction whose data it moves, or "result" */
	int before, opnd;        /* for operand opnd of instruction before (before = ninsts: the result) */
	uint32_t engines;        /* the engines of inst that read from and write to */
} LowerMove;
typedef struct LowerChoice {
	SynthSeq seq;            /* the computation, sizes named by the node's tile parameters; its
	                            engines narrowed to those that read and write the memories below */
	int mem[8];              /* the memory each instruction writes */
	int nmoves;
	LowerMove move[LOWER_MAXSTEPS];   /* loads, moves between instructions, the store */
	char text[1024];         /* the whole sequence in order */
	/* instruction fusion (fuse_apply.c): a window of the sequence (or of a producer's and this
	 * node's sequences in one loop nest) replaced by the one instruction proved equal to it */
	int fused;               /* 1: made by instruction fusion (--no-fusion leaves it out) */
	const char *fusion;      /* what was fused: "window => instruction", or NULL */
	const AxGraph *tile;     /* non-NULL: seq's inputs (the producer's tile inputs, then this node's
	                            but the one the producer feeds), sizes shared with the producer
	                            named by its tile parameters; NULL: the node's own tile */
	int absorb;              /* with tile: the producer whose computation seq includes; the choice
	                            is written only when that producer is loop-fused into this node */
	int absorb_opnd;         /* ... the node's tile input it feeds */
	int absorb_choice;       /* ... the producer's choice the fusion was found with */
	int nprod;               /* ... seq's inputs 0..nprod-1 are the producer's */
	Term *hyp;               /* the instruction limits the fusion's proofs assumed (a limit too) */
	int ntie;                /* ... this node's tile sizes tie_from[k] are the producer's tie_to[k] */
	Term *tie_from[8], *tie_to[8];
} LowerChoice;
typedef struct LowerNode {
	int nchoices, unplaced;  /* unplaced: sequences whose memories no copy reaches */
	LowerChoice *choice;
	const char *constant[AX_MAXOPND];   /* operands made on chip: the instruction that makes them */
	int const_inst[AX_MAXOPND];         /* ... its index, and its attributes */
	Term *const_sattr[AX_MAXOPND][AX_MAXATTR];
	int red;                 /* TR_* of the reduction that crosses tiles, 0 none */
	const char *combine_op;  /* the op that merges partial tiles */
	int ncombine;
	SynthSeq *combine;       /* its sequences */
	const char *combine_why; /* why there is none */
} LowerNode;
LowerCache *lower_cache_new(const AxTarget *t, TermCtx *tc, int depth);
void lower_cache_free(LowerCache *c);
void lower_cache_stats(const LowerCache *c, int *tiles, int *hits, int *checked, double *ms);
/* the depth-1 cache the fusion searches of c's variants share, and their counts: windows
 * tried, variants lowered without a search (FUSE_BUDGET spent) */
LowerCache *lower_cache_fusion(LowerCache *c, int **windows, int **skipped);
/* sequences for one tile graph (cached), renamed to its sizes; returns how many */
int lower_tile(LowerCache *c, const AxGraph *tile, SynthSeq *out, int cap);
/* ... the first sequence synthesis finds only (the back end writes a reduction's partial tiles
 * combined by its first; synthesis stops there); 1 if there is one */
int lower_tile_first(LowerCache *c, const AxGraph *tile, SynthSeq *out);
/* every compute node of a tiled variant: its choices (per node, NULL for others), the
 * synthesized sequences first, then those instruction fusion adds (fuse_apply) */
LowerNode *lower_variant(LowerCache *c, const AxTiling *T, int maxchoices);
/* ... the synthesized sequences only (what fusion is searched over) */
LowerNode *lower_variant_plain(LowerCache *c, const AxTiling *T, int maxchoices);
/* Appends a choice to node id of T: ch's sequence (over ch->tile's inputs, or the node's tile's)
 * with its data movement placed; constants made on chip per input (their instruction
 * cinst[k] >= 0).  0 = added, -1 if a memory cannot be reached. */
int lower_add_choice(const AxTiling *T, LowerNode *L, int id, const LowerChoice *ch, const int *cinst);
/* Which node's operand input k of choice ch of node id is: returns the node (id, or the producer
 * ch absorbs) and its operand index in *o (nin if none). */
int lower_input(const AxGraph *g, const LowerChoice *ch, int id, int k, int *o);
/* Why operation id of T cannot be written in any candidate (untiled, or no instruction
 * sequence, or none whose memories copies connect); NULL if it can. */
const char *lower_unwritable(const AxTiling *T, const LowerNode *L, int id);
/* An instruction whose element equation is the identity on its one operand (a copy). */
int lower_is_copy(const AxTarget *t, TermCtx *tc, int inst);
/* The op whose element equation over two scalars a, b is a k b (or b k a, where either_order),
 * a broadcasting op of the specs; -1 if there is none. */
int spec_binary_op(const AxTarget *t, TermCtx *tc, TermKind k, int either_order);

/* ---- fuse.c: instruction fusion found by depth-1 synthesis ----------------------- */
typedef struct FuseFound {
	int nodes[2];            /* the graph ops the two instructions come from (equal: one op's;
	                            else a producer's and its consumer's, in one loop nest) */
	int inst[2];             /* the two instructions: nodes of the instruction graph they are in */
	char window[300];        /* the two instructions */
	int nmoves;              /* the second round's swaps that made the window (0: none), */
	const char *const *moves;   /* in order: "nc_transpose() before activation(func=exp)" */
	SynthSeq fused;          /* one instruction proved equal to them */
	int nwsrc;               /* the window's inputs: fused's input k is node wsrc[k] of the graph */
	int wsrc[2 * AX_MAXOPND];
} FuseFound;
typedef void (*FuseCb)(void *env, const FuseFound *f);
typedef struct FuseResult FuseResult;
/* every fusion in a lowered variant (fuse_nests below, default budget), through
 * cb (c1: a cache of depth 1), each (ops, window, fused instruction) once, the
 * first time it is found; returns how many, and the nests in *res (if res) */
int fuse_variant(LowerCache *c1, const AxTiling *T, const LowerNode *L, FuseCb cb, void *env, FuseResult **res);

/* The instruction-level variants behind fuse_variant, as data.  A loop nest's
 * instruction graph is one op's chosen sequence over its operands (each behind
 * its load), or a producer's sequence followed by its only consumer's, the
 * consumer's tile sizes set to the producer's.  The second propagation round
 * (Algorithm 1, propagate_ex, the same checker) runs over it: an instruction
 * is pushed past its one reader when the checker proves the pair equal for
 * every tile size the graph's instruction limits admit, and only into graphs
 * where every instruction can read its operands where they are (a load is
 * not pushed past the instruction it feeds).  Every variant's windows are
 * then depth-1 synthesized. */
typedef struct FuseInstVariant {
	AxGraph *g;              /* instructions over the nest's tiles; meta[i].origin: the node of
	                            v[0] it derives from (clones: the node they copy) */
	int parent;              /* the variant it was made from by one swap; -1 for v[0] */
	int moved, past;         /* that swap, as nodes of v[0]: past (the reader of moved) was
	                            cloned onto moved's operands in `clones` and moved reads the clones */
	unsigned clones;
	int nmoves;              /* the swaps from v[0], in order, as text */
	const char **moves;
	int nfound;              /* fusions in its windows (v[0] of a producer and consumer: the
	                            windows across the two; each op's own are in its own nest) */
	FuseFound *found;
} FuseInstVariant;
typedef struct FuseNest {
	int nodes[2];            /* the graph ops (equal: one op; else producer, consumer) */
	int choice[2];           /* their sequences: L[nodes[k]].choice[choice[k]] */
	const int *owner;        /* per node of v[0]: the graph op whose sequence or load it is */
	int nvariants;
	FuseInstVariant *v;      /* v[0]: as lowered; the rest proved equal to it */
	const char *stop;        /* why the round stopped: "saturated", "max-variants", "time", ... */
	Term *hyp;               /* the instructions' limits the second round assumed */
	int opnd;                /* producer and consumer: the consumer's tile input the producer feeds */
	int nsub;                /* ... the consumer's tile sizes from[k] set to the producer's to[k] */
	Term *from[8], *to[8];
} FuseNest;
struct FuseResult {
	int nnests;
	FuseNest *nest;          /* per op in order: each of its sequences, then with each producer
	                            whose only reader it is, each pair of sequences */
	int nwindows, nfound;    /* windows tried, fusions found (with repeats across variants) */
	int swaps, checks;       /* swaps the checker proved, equivalence checks asked */
	int skipped;             /* loop nests not searched: the windows reached FUSE_MAX_WINDOWS first */
};
/* the windows one lowered variant's fusion search tries at most (in a fixed order, so the
 * result does not depend on the machine): the 20 examples take at most 354; a program of
 * columns [M,1] with many sequence choices took 32,603 windows and 20 s before the cap */
enum { FUSE_MAX_WINDOWS = 2048 };
/* Every loop nest of a lowered variant with its instruction-level variants and
 * their fusions (c1: a cache of depth 1; po: the round's budget per nest, NULL:
 * 16 variants, 10 s).  In the arena of T's terms. */
FuseResult *fuse_nests(LowerCache *c1, const AxTiling *T, const LowerNode *L, const PropOpts *po);
/* fuse_apply.c: the fusions of fuse_nests made choices of L (LowerChoice.fused): per loop
 * nest variant, each fusion alone and all of its disjoint ones together, the sequence (or
 * the producer's and consumer's together, as a choice of the consumer) rebuilt around the
 * fused instruction; copies of inputs left to the lowering's data movement.  A choice
 * equal to one L has is not added again.  Returns how many were added. */
int fuse_apply(LowerCache *c, const AxTiling *T, LowerNode *L);
/* the windows the fusion searches of one program's variants try in all (lower_variant with
 * one cache): the variants after the budget is spent get no fusion search, in a fixed order,
 * so the result does not depend on the machine.  The 20 examples take at most 354 windows; a
 * program of [M,1] columns with many sequence choices took 32,603 (4 s per variant) */
enum { FUSE_BUDGET = 4096 };

#endif
