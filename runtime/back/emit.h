/*
 * emit.h — the walk that writes a candidate's loop nests as statements
 * (nest.h), shared by its files: emit_inst.c (instructions, slices, loops,
 * loads made once), emit_tile.c (a tile's body, loop fusion of producers,
 * blocks), emit_kernel.c (loop nests, candidates, tile sizes), emit_axes.c
 * (an operation's loops), emit_tail.c (tail tiles), emit_kblock.c (K
 * blocks), emit_fuse.c (loop fusion), emit_epi.c (epilogues), emit_fold.c
 * (folded blocks), emit_concat.c (concatenations split at their boundaries
 * in their reader's loop nest).
 */
#ifndef AXON_EMIT_H
#define AXON_EMIT_H

#include "nest.h"

typedef struct OpSt {       /* one operation of the loop nest being written */
	int id;
	int blk[AX_MAXR + 4];    /* tiles per block along each axis */
	int blocked;
	/* per move k of its lowering (then per instruction j at LOWER_MAXSTEPS + j): the block
	 * buffer it was loaded into (-1: none), indexed by these axes' tile in the block, each
	 * tile of this shape */
	int hoisted[LOWER_MAXSTEPS + 8];
	uint32_t hoisted_axes[LOWER_MAXSTEPS + 8];
	AxShape hoisted_shape[LOWER_MAXSTEPS + 8];
	int hoisted_merge[LOWER_MAXSTEPS + 8];   /* ... the blocked axis merged into the tile's last dim (-1: none) */
	int kax;                 /* the sequential axis, when it is blocked (K blocks: -1 none) */
	char kj[24];             /* ... the K tile's position in its block, where the tile body reads it ("" in the
	                            loops over the block's tiles: their variable) */
	NsRef acc;               /* a reduction across tiles: its running value */
	int accbuf, accat;       /* ... blocked: the buffer of the block's running values */
} OpSt;

typedef struct Cse {        /* a load made earlier in a loop still open */
	char key[480];
	int depth;
	NsRef val;
	uint32_t axes;           /* a block load: its buffer's block axes */
} Cse;

typedef struct Em {
	const AxGraph *g;
	const AxTiling *T;
	const LowerNode *L;
	const int *choice;
	const int *engsel;       /* [node * 8 + j]: which of instruction j's engines (NULL: each its first) */
	AxEnv env;               /* sizes, scalar parameters, tile sizes */
	double *tv;              /* env's values, writable (a tail tile sets its tile sizes) */
	Nest *ns;
	int depth;               /* loops open */
	int node;                /* the operation being written */
	int *into;               /* loop fusion: per node, the consumer whose loop nest computes it, or -1 */
	int *epi;                /* ... per reduction across tiles: the reader computed on each finished tile
	                            in its loop nest (an epilogue; into[] is that reader too), or -1 */
	NsRef *onchip;           /* ... and its tile there, at the current iteration */
	char *shared;            /* per node: fused with several readers, into[] its loop nest's operation */
	int *made;               /* ... the iteration (gen) it was last made in, */
	NsDim (*spax)[AX_MAXR + 4];   /* ... at this tile */
	int gen, pdepth, clash;  /* iterations of em_producers; its recursion; readers wanting different tiles */
	int anyreaders;          /* em_can_fuse: a producer with several readers may be fused (shared) */
	int *prefix;             /* per reader: after which of its axes its fused producers are made */
	NsDim (*pax)[AX_MAXR + 4];   /* per producer whose computation its reader's fused choice includes:
	                            its tile's indices at the current iteration */
	const int *blocks;       /* per axis class: tiles per block (NULL: 1) */
	char bstart[AX_MAXR + 4][64];   /* per blocked axis: where the current block starts */
	int fold[AX_MAXR + 4];   /* per axis of the loop nest being written: its blocks' rows folded (NsDim) */
	int nofold;              /* no folded blocks in this candidate (emit_fold.c found them unfit) */
	int folded;              /* ... or some were made */
	OpSt *cur;               /* the operation being written */
	int hoist;               /* the blocked operation whose loads are made per block (-1: none) */
	int late;                /* fused producers are made per tile (they need a blocked axis) */
	/* concatenations split at their boundaries (emit_concat.c): per node, the axis of the loop
	 * nest that writes its reader which a concatenation is split along (-1: none, made off chip) */
	int *catax;
	int cat, cseg, cdim;     /* the one being written (-1: none), its operand whose part is written, its joined dim */
	char cabs[40], cloc[40]; /* ... the current tile's start along the split axis, and within that part */
	Cse *cse;                /* loads from off chip, made once per loop that can see them */
	int ncse, capcse;
	char *why;
	size_t nwhy;
	int *why_node;          /* the operation being written when why was set (-1: none); may be NULL */
	int bad;
} Em;

void em_fail(Em *e, const char *msg, const char *arg);
int64_t em_int(Em *e, const Term *t);
int em_seq_engine(const AxTarget *t, const SynthSeq *q, int j, int k);   /* engine of q's instruction j: the k-th its placement allows */
NsStmt *em_push(Em *e, int kind);
void em_note(Em *e, int node, int blank, const char *fmt, const char *arg);
void em_dim(NsDim *d, int64_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void em_inst(Em *e, int inst, int engine, const int *attr, Term *const *sattr, const NsRef *const *opnd,
             const NsRef *dst, int mem, NsRef *out);
size_t em_key_ref(char *buf, size_t n, const NsRef *r);
Cse *em_cse_find(Em *e, const char *key);
/* the key under which em_inst finds instruction statement s made earlier (0: s reads a tile on chip) */
int em_load_key(const AxTarget *t, const NsStmt *s, char *buf, size_t n);
void em_cse_add(Em *e, const char *key, const NsRef *val, uint32_t axes);
void em_seq(Em *e, const SynthSeq *q, const NsRef *in, NsRef *out);
void em_operand(Em *e, int id, int o, const NsDim *axidx, NsRef *r);
void em_loop(Em *e, int seq, const char *var, int64_t hi);
void em_close_to(Em *e, int depth);
void em_result(Em *e, int id, const NsDim *idx, NsRef *r);
int em_seq_axis(const TileOp *to);
/* emit_fuse.c: is axis k of to cut into more than one tile (or a loop of more than one index)? */
int em_iterated(Em *e, const TileOp *to, int k);
int em_can_fuse(Em *e, int p, int c, int o, int *kmax);
/* ... p's result dim skip (-1: none) left out of the comparison: c reads it through a concatenation */
int em_can_fuse_at(Em *e, int p, int c, int o, int skip, int *kmax);
int em_fused_into(const Em *e, int p, int c);
void em_producers(Em *e, int c, const NsDim *caxidx);
void em_tile_body(Em *e, int id, const NsDim *axidx, NsRef *res);
void em_store(Em *e, int id, NsRef *v, const NsRef *dst);
/* ... from memory `from` on (the result's moves before the first out of it left out) */
void em_store_from(Em *e, int id, NsRef *v, const NsRef *dst, int from);
void em_block_loads(Em *e, int id, const NsDim *idx);
AxShape em_block_shape(Em *e, uint32_t axes, const AxShape *tile);
NsRef em_block_tile(Em *e, int buf, uint32_t axes, int merge, const AxShape *s);
void em_inner_loops(Em *e, const TileOp *to);

/* A loop nest being written: its operations, their loop structure, where
 * their producers are made, and the indices of the current tile. */
typedef struct Group {
	const int *ids;
	int n;
	OpSt *st;
	int64_t *ext, *tsz;
	int seqax, pre;
	int catk;                /* the axis a concatenation is split along (-1: none) */
	/* an axis inside a loop whose tail tile is written in a loop nest of its own after the one
	 * over its full tiles (-1: none), and which of the two is being written */
	int defer, tailpass;
	/* axes whose tail tile is written inside the block's loop nest (emit_kblock.c): the block
	 * spans every full tile of the axis, its tail after them, of mrem[k] at mat[k] */
	uint32_t mtail;
	int64_t mrem[AX_MAXR + 4], mat[AX_MAXR + 4];
	NsDim idx[AX_MAXR + 4];
} Group;

/* The tail tile along axis k of group gr (the axis is not a multiple of the
 * tile, rem left): the tile parameter of that axis, of each operation of the
 * group and, through the read maps, of the producers fused into them (the
 * axes they read as k) set to rem, and no blocks along k; undone by
 * em_tail_undo.  Shapes, attributes and limits are all evaluated at the
 * environment, so the tile's body is written as any other at its size. */
typedef struct Tail {
	int n, at[64];
	double old[64];
	int blk[8], blocked[8];
} Tail;
void em_tail_set(Em *e, Group *gr, int k, int64_t rem, Tail *tl);
/* The tail tiles written inside the last block of a reduction's loop nest (Group.mtail, at
 * most two axes): variant v is the subset v.axes of those axes at their tail tile (the first,
 * none: the block's full tiles), its operations' state (no blocks along those axes) in v.gr.st;
 * em_var_set makes its tiles current (tile parameters and indices), em_var_undo undoes it.
 * Loads the variants share are made once: em_block_loads finds them in the loops still open. */
typedef struct Var {
	uint32_t axes;
	Group gr;
	OpSt st[8];
	Tail tl;
	NsDim save[AX_MAXR + 4];
} Var;
Var *em_variants(Group *gr, int *count);   /* malloc'd, count of them (the caller frees) */
void em_var_set(Em *e, Var *x, NsDim *idx);
void em_var_undo(Em *e, Var *x, NsDim *idx);
/* ... the tile parameter of axis k of id (and of the producers fused into it, along the axes
 * they read as k) set from T to rem */
void em_tile_set(Em *e, int id, int k, int64_t T, int64_t rem, Tail *tl);

/* emit_epi.c: epilogues, planned after the other fusions; the reductions whose epilogue c is
 * (their count); a finished tile stored, or handed on chip to its epilogue; the epilogue's
 * tile computed from the finished tiles of its reductions and stored */
void em_plan_epilogues(Em *e, int *nfused);
int em_epilogue_of(const Em *e, int c, int *ids);
void em_finish(Em *e, int id, const NsDim *idx, NsRef *w, int from);
void em_epilogue(Em *e, int id, const NsDim *idx, int loops_at);
/* emit_axes.c: the loop structure of operation id (per axis extent, tile size, tiles per block in
 * st); its sequential axis or -1; do a and b iterate the same way (one loop nest can run both)? */
int em_op_axes(Em *e, int id, OpSt *st, int64_t *ext, int64_t *tsz);
int em_same_loops(Em *e, int a, int b);
void em_tail_undo(Em *e, Group *gr, int k, const Tail *tl);

/* emit_fold.c: may the blocks along axis k of gr fold their rows (nest.h, NsDim)? */
int em_fold_axis(Em *e, Group *gr, int k);
/* ... are the folded slices of ns all what a fold needs (each a transfer's partition dim,
 * of a tensor that reshapes)?  1 yes; 0: the candidate is written again without folds */
int nest_folds_ok(const Nest *ns, const AxTiling *T);
/* ... the folded axis the block's copies of off-chip slice sl read (sl made the block's rows,
 * one transfer), or -1 */
int em_fold_load(Em *e, uint32_t axes, NsRef *sl);
/* emit_inst.c: reading through a split concatenation (the state emit_concat.c sets) */
int em_srcs(const Em *e, int node, int o, int *src);   /* the nodes node's operand o reads now */
int em_src(const Em *e, int node, int o);
void em_concat_local(Em *e, int node, int o, int dim, NsDim *d);
/* emit_concat.c: a concatenation split at its boundaries in its reader's loop nest */
void em_concat_plan(Em *e, int *prefix, int *nfused);
int em_concat_group(Em *e, Group *gr);   /* the group's split axis (-1: none) */
void em_concat_axis(Em *e, Group *gr, int k, void (*inner)(Em *, Group *, int));
void em_gather(Em *e, int id);   /* ... or made off chip: each operand copied into its part */
void em_permuted_copy(Em *e, int id, const int *perm);   /* a result permuting a tensor made elsewhere, copied into place */

/* emit_axes.c, emit_kblock.c: K blocks */
int em_kblock_move(Em *e, int id, int *eng);
void em_seq_var(const AxGraph *g, char *rv, size_t n);
void em_group_kblocks(Em *e, Group *gr);

#endif
