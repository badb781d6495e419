/*
 * axon.h — the runtime's one header, with a section per file.
 *
 * The engines in runtime/ know no operator, instruction, engine, memory or
 * output syntax by name: all of that reaches them through the AxTarget tables
 * that gen/axgen writes from the spec files (build/gen/<target>/).  Runtime
 * code indexes those tables and asks them for properties; it never names a row.
 */
#ifndef AXON_H
#define AXON_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum {
	AX_MAXR = 8,       /* tensor rank */
	AX_MAXOPND = 8,    /* operands of one op or instruction */
	AX_MAXATTR = 8,    /* attributes of one op or instruction */
	AX_MAXGROUP = 4,   /* ellipsis groups of one op or instruction */
	AX_MAXSYM = 24,    /* size symbols of one op or instruction */
};

/* ---- diag.c: messages about user input ------------------------------------- */

typedef struct AxLoc {
	const char *file;        /* as the user named it */
	int line, col;           /* 1-based */
} AxLoc;
void ax_diag_source(const char *file, const char *text);  /* for the source line and caret */
void ax_vdiag(AxLoc loc, const char *kind, const char *fmt, va_list ap);
void ax_error_at(AxLoc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ax_note_at(AxLoc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ax_nerrors(void);

/* ---- arena.c: region allocation -------------------------------------------- */

typedef struct Arena Arena;
Arena *arena_new(void);
void *arena_alloc(Arena *a, size_t n);          /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
void arena_free(Arena *a);                      /* frees everything at once */
double ax_now_ms(void);                         /* a monotonic clock */

void ax_die_(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
#define ax_die(...) ax_die_(__FILE__, __LINE__, __VA_ARGS__)

/* ---- term.c: the term IR the generated encoders build ------------------- */

typedef enum {
	TS_INT, TS_REAL, TS_BOOL,
} TermSort;

typedef enum {
	TK_NUM,     /* rational constant num/den */
	TK_VAR,     /* free symbolic integer or real (sizes, indices, float attributes) */
	TK_BVAR,    /* variable bound by a reduction or fold (also a fold's accumulator) */
	TK_TENSOR,  /* element of an input tensor: id = tensor, args = indices */
	TK_ADD, TK_SUB, TK_MUL, TK_DIV, TK_MOD, TK_NEG,
	TK_MAX, TK_MIN,
	TK_LT, TK_LE, TK_EQ, TK_NE,
	TK_AND, TK_OR, TK_NOT,
	TK_ITE,     /* args: cond, then, else */
	TK_CALL,    /* scalar fn of the spec: id = index in AxTarget.fns */
	TK_TOREAL,  /* integer used as a real */
	TK_SUM, TK_RMAX, TK_RMIN,  /* args: bvar, lo, hi, body — visible reductions */
	TK_FOLD,    /* args: bvar, lo, hi, acc bvar, init, body */
	TK_NKINDS
} TermKind;

typedef struct Term Term;
struct Term {
	uint8_t kind;      /* TermKind */
	uint8_t sort;      /* TermSort */
	uint16_t n;        /* number of args */
	int32_t id;        /* TK_VAR / TK_BVAR / TK_TENSOR / TK_CALL */
	int64_t num, den;  /* TK_NUM */
	uint32_t hash;
	uint32_t mark;     /* visit stamp of the walk in progress (term.c, single-threaded) */
	const char *name;  /* TK_VAR, TK_TENSOR: for printing */
	Term *next;        /* hash-cons chain */
	Term *a[];
};

typedef struct AxTarget AxTarget;
typedef struct TermCtx TermCtx;
typedef struct Smt Smt;
typedef struct Equiv Equiv;

TermCtx *tc_new(const AxTarget *t);
void tc_free(TermCtx *c);
Term *t_num(TermCtx *c, int64_t num, int64_t den, TermSort s);
Term *t_int(TermCtx *c, int64_t v);
Term *t_var(TermCtx *c, const char *name, TermSort s);   /* same name, same term */
Term *t_bool(TermCtx *c, int v);
Term *t_bvar(TermCtx *c, int id, TermSort s);            /* the bound variable with that id */
Term *t_fresh(TermCtx *c, TermSort s);                   /* a new bound variable */
Term *t_tensor(TermCtx *c, int id, const char *name, int n, Term *const *idx);
Term *t_bin(TermCtx *c, TermKind k, Term *a, Term *b);   /* arithmetic, compare, and/or */
Term *t_neg(TermCtx *c, Term *a);
Term *t_not(TermCtx *c, Term *a);
Term *t_ite(TermCtx *c, Term *cond, Term *a, Term *b);
Term *t_call(TermCtx *c, int fn, int n, Term *const *args);
Term *t_red(TermCtx *c, TermKind k, Term *v, Term *lo, Term *hi, Term *body);
Term *t_fold(TermCtx *c, Term *v, Term *lo, Term *hi, Term *acc, Term *init, Term *body);
Term *t_and_all(TermCtx *c, int n, Term *const *a);
Term *t_toreal(TermCtx *c, Term *a);                     /* an integer as a real */
/* t with from[k] replaced by to[k] (from[] must not be rebound inside t).  Every
 * walk below visits a shared subterm once: terms are DAGs, and a program like
 * y = y + y repeated makes one exponentially larger as a tree. */
int t_mentions(const Term *t, const Term *v);             /* v occurs in t */
Term *t_subst(TermCtx *c, Term *t, Term *const *from, Term *const *to, int n);
Term *t_rebuild(TermCtx *c, const Term *t, Term **a);   /* t's kind over new arguments a[] */
/* De Bruijn binding (canonical reductions): t with every occurrence of vars[k]
 * replaced by the bound index k + (binders crossed), so that a normal form
 * never depends on the names of bound variables and a substitution can never
 * capture (canon.c).  t_dbvar(k) is that index; t_binder() the placeholder a
 * canonical reduction has in its variable slots. */
Term *t_abstract(TermCtx *c, Term *t, Term *const *vars, int n);
/* t with each free index k renumbered: map[k] for k < n, k + shift above */
Term *t_dbmap(TermCtx *c, Term *t, const int *map, int n, int shift);
/* the body of a canonical binder opened: free index 0 replaced by x (a term
 * without indices), the others one lower */
Term *t_open(TermCtx *c, Term *t, Term *x);
Term *t_dbvar(TermCtx *c, int k, TermSort s);
Term *t_bignum(TermCtx *c, const char *rational);        /* an exact real "num/den" past 64 bits */
Term *t_binder(TermCtx *c, TermSort s);
int t_is_dbvar(const Term *t);                            /* its index, or -1 */
size_t t_dag_size(const Term *t);                         /* distinct subterms */
int t_cmp(const Term *a, const Term *b);                  /* a total order by structure */
/* A walk of one's own that visits a shared subterm once: w = t_walk(), then
 * t_first_visit(t, w) is 1 the first time (no other walk may run meanwhile). */
uint32_t t_walk(void);
int t_first_visit(const Term *t, uint32_t walk);

/* A map from terms to pointers for one walk (open addressing, malloc'd). */
typedef struct TMap {
	size_t cap, n;
	const Term **key;
	void **val;
} TMap;
void **tmap_slot(TMap *m, const Term *k, int *found);     /* the value's slot, made if absent */
void tmap_free(TMap *m);
void t_print(FILE *f, const TermCtx *c, const Term *t);
char *t_str(TermCtx *c, const Term *t);                  /* in the context's arena */
char *t_infix(TermCtx *c, const Term *t);                /* K == N, D / 2 >= 1: for messages */
int t_size(const Term *t);                               /* nodes of the tree */
Arena *tc_arena(TermCtx *c);

typedef struct AxEnv {       /* values of free variables, by name */
	int n;
	const char *const *names;
	const double *vals;
} AxEnv;
/* The value of a term without tensors or reductions; 0 = ok, -1 otherwise
 * (unknown variable, division by zero, a kind it cannot evaluate). */
int t_eval(const Term *t, const AxEnv *env, double *out);

/* ---- the program language (grammar/prog.y): a NumPy subset ----------------- */

typedef enum {
	PX_NUM,      /* literal; is_int tells int from float */
	PX_NAME,
	PX_STR,
	PX_NONE, PX_TRUE, PX_FALSE, PX_ELLIPSIS,
	PX_BIN,      /* op: '+' '-' '*' '/' '%' '@' 'p' (**) 'f' (//) */
	PX_NEG, PX_POS,
	PX_CMP,      /* a comparison: s is the operator; op 'C' when it chains (a < b < c) */
	PX_CALL,     /* a(v...) */
	PX_KW,       /* s=a inside a call */
	PX_ATTR,     /* a.s */
	PX_INDEX,    /* a[v...] */
	PX_SLICE,    /* a:b:c, each may be NULL */
	PX_TUPLE, PX_LIST,
} PExprKind;

typedef struct PExpr PExpr;
struct PExpr {
	int kind;                /* PExprKind */
	AxLoc loc;
	int op;
	int is_int;
	double num;
	const char *s;           /* name, attribute, keyword, string, literal text */
	PExpr *a, *b, *c;
	int n;
	PExpr **v;               /* call arguments, indices, tuple items */
};

enum { PS_ASSIGN, PS_RETURN, PS_DOC };

typedef struct PStmt {
	int kind;
	AxLoc loc;
	const char *target;      /* PS_ASSIGN */
	PExpr *value;
} PStmt;

typedef struct PParam {
	const char *name;
	AxLoc loc;
	const char *ann;         /* "f32[M,K]" or NULL */
	AxLoc annloc;
	PExpr *def;              /* default value or NULL */
} PParam;

typedef struct PFunc {
	const char *name;
	AxLoc loc;
	int nparams, nstmts;
	PParam *params;
	PStmt **stmts;
} PFunc;

typedef struct PFile {
	const char *path;
	const char *np;          /* the name numpy is imported as */
	int nfuncs;
	PFunc **funcs;
} PFile;

/* Parses a file into a (0 = ok; otherwise the error was reported). */
int prog_parse_file(const char *path, Arena *a, PFile *out);

/* ---- tables written by axgen ------------------------------------------------ */

typedef struct AxConc {      /* a concrete instance: sizes are numbers */
	int nopnd;
	int rank[AX_MAXOPND];    /* -1: an optional operand left out (reads its default) */
	int64_t dim[AX_MAXOPND][AX_MAXR];
	int grank[AX_MAXGROUP];  /* rank of each ellipsis group in the result */
	int attr[AX_MAXATTR];    /* enum attributes: index of the chosen item */
	int64_t size[AX_MAXATTR];/* size attributes */
	double fval[AX_MAXATTR]; /* float attributes */
	int engine;              /* instructions: index of the chosen engine */
} AxConc;

typedef struct AxSym {       /* a symbolic instance: sizes are integer terms */
	int rank[AX_MAXOPND];
	Term *dim[AX_MAXOPND][AX_MAXR];
	int grank[AX_MAXGROUP];
	int attr[AX_MAXATTR];
	Term *sattr[AX_MAXATTR]; /* size attributes (int) and float attributes (real) */
	int engine;              /* instructions: index of the chosen engine */
	/* the value of operand o at the given indices (pull semantics) */
	Term *(*access)(TermCtx *c, void *env, int o, Term *const *idx, int n);
	void *env;
} AxSym;

typedef struct AxShape {
	int rank;
	int64_t d[AX_MAXR];
} AxShape;

enum { AX_ATTR_ENUM, AX_ATTR_SIZE, AX_ATTR_FLOAT };

typedef struct AxOperand {
	const char *name;
	const char *pattern;     /* as written, e.g. "[..., M, K]" */
	int ndims;               /* entries in the pattern (a group counts once) */
	int nfixed;              /* named or literal dims */
	uint32_t groups;         /* bit g: the pattern contains group g */
	uint32_t mems;           /* bit m: may live in memory m (instructions) */
	int par;                 /* pattern position of the partition axis, -1 none */
	int optional;            /* has a default value */
	double defval;
	int64_t defnum, defden;   /* the default as an exact fraction */
	const signed char *pat;  /* per pattern entry: group id, or -1 for a named dim */
} AxOperand;

typedef struct AxLayout {    /* where each dim of each operand and the result sits */
	int nopnd;
	const AxOperand *opnd;
	int nout;                /* entries in the result pattern */
	const signed char *out_pat;
	int ngroups;
	int broadcast;
} AxLayout;

typedef struct AxAttr {
	const char *name;
	int kind;                /* AX_ATTR_* */
	int enum_id;             /* AX_ATTR_ENUM: index in AxTarget.enums */
} AxAttr;

typedef struct AxEnum {
	const char *name;
	const char *loc;
	int nitems;
	const char *const *items;
	int is_reduction;        /* items choose a reduction (sum/max/min) */
	const int *red;          /* per item: TK_SUM / TK_RMAX / TK_RMIN */
} AxEnum;

typedef struct AxFn {
	const char *name;
	const char *loc;
	int arity;
	int defined;             /* has a definition the checker may unfold */
	Term *(*unfold)(TermCtx *c, Term *const *args);  /* definition, or NULL */
	double (*ref)(const double *args);                /* reference value */
	const char *def_src;     /* the definition as written, or NULL */
	const char *cname;       /* the C math function of `ref`, or NULL */
} AxFn;

typedef struct AxAxiom {
	const char *loc;
	const char *src;
	int nvars;
	const int *fns;          /* NULL-terminated by -1: fns it mentions */
	Term *(*inst)(TermCtx *c, Term *const *vars);     /* instance at the given reals */
} AxAxiom;

typedef struct AxOp {        /* a tensor operator or an instruction */
	const char *name;
	const char *loc;         /* "specs/linalg.ax:12" */
	const char *sig;         /* printable signature */
	int is_inst;
	int nopnd;
	const AxOperand *opnd;
	int nattr;
	const AxAttr *attr;
	int ngroups;
	const char *const *groups;
	int broadcast;           /* NumPy broadcasting over the leading group */
	int nsyms;
	const char *const *syms; /* size symbols, binding order */
	uint32_t engines;        /* bit e: may run on engine e */
	uint32_t out_mems;
	int out_par;             /* result position of the partition axis, -1 none */
	const char *const *gran; /* granular operations used (sorted, NULL-terminated) */
	const char *const *python; /* Python syntax the front end lowers through it (NULL-terminated) */
	int layout_only;         /* moves data only: no value computation */
	const char *emit;        /* emit template, or NULL */
	const char *limits_src;  /* constraints as written, "; "-separated */
	const char *cost_src;
	const char *body_src;    /* the element equation as written */
	const AxLayout *layout;
	/* checks the instance on concrete sizes; fills the result shape; 0 = ok */
	int (*check)(const AxConc *c, AxShape *out, char *err, size_t errlen);
	/* the same conditions as a boolean term over symbolic sizes */
	Term *(*pre)(TermCtx *tc, const AxSym *s);
	/* the result shape over symbolic sizes; returns the rank */
	int (*shape)(TermCtx *tc, const AxSym *s, Term **out);
	/* the result element at the given output indices */
	Term *(*enc)(TermCtx *tc, const AxSym *s, Term *const *idx);
	/* reference kernel on row-major float32 arrays; 0 = ok */
	int (*ref)(const AxConc *c, const float *const *in, float *out, char *err, size_t errlen);
	/* cost on the instruction's engine (cycles, or bytes on a DMA engine) */
	double (*cost)(const AxConc *c, int dtype_bytes);
} AxOp;

typedef struct AxEngine {
	const char *name;
	double clock_hz;         /* 0 if not given */
	int queues;
	double bandwidth;        /* bytes/s */
	double latency_s;
	int dma;                 /* moves data between memories */
} AxEngine;

typedef struct AxMemory {
	const char *name;
	int partitions;
	int64_t bytes;           /* per partition */
	int banks;
	double bandwidth;
	int offchip;
} AxMemory;

typedef struct AxTemplate {
	const char *name;
	const char *text;
} AxTemplate;

struct AxTarget {
	const char *name;
	const char *kernel;        /* the language its kernel templates write ("NKI"): `kernel "NKI";` */
	const char *const *files;  /* spec files it was generated from */
	int nops, ninsts, nfns, naxioms, nenums, nengines, nmems, ntemplates;
	const AxOp *ops;
	const AxOp *insts;
	const AxFn *fns;
	const AxAxiom *axioms;
	const AxEnum *enums;
	const AxEngine *engines;
	const AxMemory *mems;
	const AxTemplate *templates;
};

/* registry.c (generated): every target this build knows, and the one used
 * when none is named (the Makefile's DEFAULT_TARGET) */
extern const AxTarget *const ax_targets[];
extern const AxTarget *const ax_default_target;
const AxTarget *ax_find_target(const char *name);   /* NULL: the default target */

/* ---- graph.c: a tensor program as a dataflow graph of spec'd ops ----------- */

typedef struct AxNode {
	int op;                  /* index in AxTarget.ops (or .insts); -1: a tensor input */
	int inst;                /* 1: op indexes the target's instructions */
	int engine;              /* instructions: the engine it runs on */
	int input;               /* tensor inputs: parameter position */
	int nin;
	int in[AX_MAXOPND];      /* producer node ids; -1: an optional operand left out */
	int grank[AX_MAXGROUP];
	int attr[AX_MAXATTR];    /* enum attributes: item index */
	Term *sattr[AX_MAXATTR]; /* size attributes (int terms), float attributes (real terms) */
	int rank;
	Term *dim[AX_MAXR];      /* symbolic shape over the program's size symbols */
	AxLoc loc;               /* where the program wrote it */
} AxNode;

typedef struct NodeMeta {    /* per-operation metadata, one copy per variant; later stages extend it */
	int origin;              /* the node of the input graph it derives from */
} NodeMeta;

typedef struct AxParam {     /* a parameter of the program's function */
	const char *name;
	int tensor;              /* 1: a tensor input (node), 0: a scalar with a default */
	int node;
	double defval;
	const char *dtype;       /* "f32", "bf16", "f16" */
} AxParam;

typedef struct AxGraph {
	const AxTarget *t;
	TermCtx *tc;             /* sizes, scalar parameters and shapes live here */
	const char *fn;          /* the function it was made from */
	int nnodes, cap;
	AxNode *nodes;
	int nparams;
	AxParam *params;
	int noutputs;
	int outputs[16];
	int nsyms;
	const char *syms[64];    /* size symbols, in order of first appearance */
	int nassume;
	Term *assume[64];        /* what the program needs of its sizes (D % 2 == 0, ...) */
	NodeMeta *meta;          /* parallel to nodes; NULL until a νGraph owns the graph */
} AxGraph;

AxGraph *graph_new(const AxTarget *t, TermCtx *tc);
const AxOp *node_op(const AxGraph *g, const AxNode *n);  /* its op or instruction */
int graph_add(AxGraph *g, const AxNode *n);   /* returns the node id */
/* an instruction node over in[] (-1: left out) on engine (-1: its first), dims by its shape
 * function; its preconditions (on that engine) in *pre */
int graph_add_inst(AxGraph *g, int inst, int engine, const int *attr, Term *const *sattr, const int *in, Term **pre);
/* Runs the graph on concrete sizes with the reference kernels.  in[p] holds
 * tensor parameter p's data (row-major); out[k] receives a malloc'd array and
 * its shape.  0 = ok, else err says why. */
int graph_run(const AxGraph *g, const AxEnv *sizes, const float *const *in, float **out, AxShape *oshape,
              char *err, size_t errlen);
int graph_readers(const AxGraph *g, int id);   /* operand slots and outputs that read node id */
/* A node's concrete shape under sizes; 0 = ok. */
int graph_shape(const AxGraph *g, int node, const AxEnv *sizes, AxShape *s);
void graph_print(FILE *f, const AxGraph *g);
/* t with maxof/minof decided where the sizes hyp admits decide them */
Term *size_simplify(Smt *smt, TermCtx *tc, Term *hyp, Term *t);

/* ---- nugraph.c: the set of equivalent variants ----------------------------- */

typedef struct NuGraph {
	const AxGraph *g0;       /* the program as written */
	TermCtx *tc;
	int nvariants, cap;
	AxGraph **variants;      /* variant 0 is the program as written */
	char **canon;            /* canonical forms, for deduplication */
	/* propagation's record */
	int checks, cache_hits, swaps;
	double ms;
	const char *stop;        /* "saturated", "max-variants", "time" */
} NuGraph;

NuGraph *ng_new(const AxGraph *g0);
AxGraph *graph_copy(const AxGraph *g);
void graph_compact(AxGraph *g);
char *graph_canon(const AxGraph *g);
int ng_add(NuGraph *ng, AxGraph *g, int *added);      /* index of g or of its equal */
int ng_check(const NuGraph *ng, char *err, size_t n);

/* ---- propagate.c: Algorithm 1, operator propagation ------------------------- */
typedef struct PropOpts {
	int variant_cap;        /* stop after this many (0: 256) */
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
typedef void (*SynthCb)(void *env, const SynthSeq *seq);
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
	const char *t, *b;       /* tile size and block count ("t0_5", "b0_5"); NULL for loops */
} TileAxis;
typedef struct TileAxisRead {   /* how an operation reads one dim of an operand */
	int kind;                /* 1 an axis of the operation, 2 a constant index (broadcast),
	                            3 index arithmetic, 4 an axis plus an offset (views) */
	int axis;
} TileAxisRead;
typedef struct TileOp {
	int kind;                /* TO_* */
	TileAxisRead read[AX_MAXOPND][AX_MAXR];   /* per operand dim */
	int naxes;
	TileAxis ax[AX_MAXR + 4];
	uint32_t replicated;     /* bit o: operand o is replicated across partitions by its load */
	AxGraph *tile;           /* TO_COMPUTE: the op over 2-D tiles, sizes named by its tile parameters */
	const char *why;         /* TO_VIEW, TO_UNTILED: what it is instead */
} TileOp;
typedef struct AxTiling {
	const AxGraph *g;
	TileOp *op;              /* per node */
	int ncls;
	Term *cls_extent[64];
	const char *strip[64];   /* "n0", ...: the number of strips along the class */
} AxTiling;
AxTiling *tile_graph(const AxGraph *g);
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
} LowerMove;
typedef struct LowerChoice {
	SynthSeq seq;            /* the computation, sizes named by the node's tile parameters */
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
/* sequences for one tile graph (cached), renamed to its sizes; returns how many */
int lower_tile(LowerCache *c, const AxGraph *tile, SynthSeq *out, int cap);
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
/* An instruction whose element equation is the identity on its one operand (a copy). */
int lower_is_copy(const AxTarget *t, TermCtx *tc, int inst);

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
};
/* Every loop nest of a lowered variant with its instruction-level variants and
 * their fusions (c1: a cache of depth 1; po: the round's budget per nest, NULL:
 * 16 variants, 10 s).  In the arena of T's terms. */
FuseResult *fuse_nests(LowerCache *c1, const AxTiling *T, const LowerNode *L, const PropOpts *po);
/* fuse_apply.c: the fusions of fuse_nests made choices of L (LowerChoice.fused): per loop
 * nest variant, each fusion alone and all of its disjoint ones together, the sequence (or
 * the producer's and consumer's together, as a choice of the consumer) rebuilt around the
 * fused instruction; copies of inputs left to the lowering's data movement.  A choice
 * equal to one L has is not added again.  Returns how many were added. */
int fuse_apply(const AxTiling *T, LowerNode *L);

/* ---- emit_nki.c: a candidate as a kernel, through the target's templates ------------ */
typedef struct NkiFootprint {  /* on-chip room: the largest over the kernel's loop nests */
	int64_t bytes[32];       /* per memory: bytes per partition of the tiles a loop nest makes */
	int64_t banks[32];       /* per banked memory: banks they take */
	int fits;                /* within every memory's capacity */
} NkiFootprint;
/* The kernel `name` for variant T with sequence choice[id] per operation (instruction j
 * of it on its engsel[id * 8 + j]-th engine; engsel NULL: each on its first), with loop
 * fusion if fuse (*nfused: the producers fused), at
 * the sizes env (program sizes, scalar parameters and tile sizes); NULL and
 * why if it cannot be written. */
char *emit_nki(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const AxEnv *env,
               int fuse, int *nfused, NkiFootprint *fp, const char *name, char *why, size_t nwhy);
/* Tile sizes: per tile parameter of the chosen sequences, the largest divisor of
 * its axis the limits allow and at most maxtile (> 0), appended to names/vals. */
int nki_tile_sizes(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const char **names,
                   double *vals, int *n, int cap, int64_t maxtile, char *why, size_t nwhy);

/* select.c: s as a JSON string on f */
void json_fstr(FILE *f, const char *s);

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

/* ---- npy.c: NumPy's .npy files (float32, C order) ----------------------------- */
int npy_write(const char *path, const AxShape *s, const float *data, char *err, size_t n);
int npy_read(const char *path, AxShape *s, float **data, char *err, size_t n);   /* data: malloc'd */

/* ---- canon.c: normal forms of element terms --------------------------------- */
typedef struct Canon Canon;
Canon *canon_new(TermCtx *tc, const AxTarget *t);
void canon_free(Canon *c);
void canon_range(Canon *c, Term *index, Term *hi);    /* index ranges over [0, hi) */
void canon_deadline(Canon *c, double deadline_ms);    /* gives up past ax_now_ms() == deadline */
/* facts about sizes it may ask (lo <= s <= hi to split a sum); 1 = proved */
void canon_prover(Canon *c, int (*prove)(void *env, Term *goal), void *env);
Term *canon_term(Canon *c, Term *t);
int canon_overflowed(const Canon *c);                 /* then nothing it made may be trusted */
const char *canon_why(const Canon *c);                /* why, when it overflowed */
int canon_denominators(const Canon *c, Term *const **dens);  /* non-constant real divisors met */

/* ---- equiv.c: the equivalence checker ------------------------------------------ */
/* verdicts: EQ_ERROR, the pair is no question (its parameters do not line up,
 * its assumptions contradict); EQ_INTERNAL, a proof the spot check refuted (a
 * bug of the checker, reported on stderr, never a verdict to act on) */
enum { EQ_INTERNAL = -3, EQ_ERROR = -2, EQ_NOT_EQUIVALENT = -1, EQ_NOT_PROVED = 0, EQ_EQUIVALENT = 1 };
typedef struct EquivResult {
	int verdict;             /* EQ_* */
	char reason[1024];
	/* with equiv_report(q, 1), in the TermCtx's arena: */
	int nassume;             /* what the proof assumed: "M >= 1", "D % 2 == 0 (rhs)", "Y[i0, i1] != 0" */
	const char *assume[64];
	const char *explain;     /* the normal forms compared, output by output, or where they first differ */
	int spot_runs;           /* runs of the spot check behind "equivalent" (0: none was possible) */
} EquivResult;
Equiv *equiv_new(const AxTarget *t, TermCtx *tc, int timeout_ms);
void equiv_free(Equiv *q);
void equiv_report(Equiv *q, int on);                   /* fill EquivResult's texts */
/* Do a and b compute the same outputs for every size?  Parameters line up by
 * position, sizes by the rule of equiv_sides.c; a proof holds under both
 * sides' assumptions and non-zero denominators (listed with equiv_report);
 * --timeout-ms bounds the whole check.  Both graphs live in q's TermCtx. */
int equiv_graphs(Equiv *q, const AxGraph *a, const AxGraph *b, EquivResult *r);
void equiv_stats(const Equiv *q, int *checks, int *hits);
void equiv_clear_cache(Equiv *q);
Smt *equiv_smt(Equiv *q);                             /* its solver, for shape questions */

/* ---- run.c: axonc run ------------------------------------------------------------ */
/* "M=64,K=32" into names (malloc'd) and values; 0 = ok, else err says why */
int ax_parse_dims(const char *spec, const char **names, double *vals, int cap, int *n, char *err, size_t errlen);
/* g's sizes from "M=64,K=32" plus scalar defaults, assumptions checked; names[0..*nsizes)
 * are malloc'd.  0 = ok, 2 = badly written, 1 = they do not fit g (err says why) */
int ax_size_env(const AxGraph *g, const char *dims, const char **names, double *vals, int cap, int *n, int *nsizes,
                char *err, size_t errlen);
int cmd_run(const AxGraph *g, const char *dims, const char *inputs, uint64_t seed, const char *out);

/* ---- frontend.c: the NumPy subset to a graph --------------------------------- */

/* Parses path and builds the graph of function fn (NULL: "kernel"); NULL after
 * reporting errors with file:line:col. */
AxGraph *frontend_read(const AxTarget *t, TermCtx *tc, const char *path, const char *fn);

/* ---- layout.c: rank-polymorphic patterns, shared by all generated code ---- */

int ax_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* rank of group g inside operand o (o = -1: the result) */
int ax_grank(const AxLayout *L, const int *rank, const int *grank, int o, int g);
/* position in operand o (o = -1: the result) of pattern entry k */
int ax_pos(const AxLayout *L, const int *rank, const int *grank, int o, int k);
/* the group ranks implied by the operand ranks; -1 where they do not say */
void ax_infer_granks(const AxLayout *L, const int *rank, int *grank);
/* ranks, group dims and broadcasting of a concrete instance; 0 = ok */
int ax_layout_check(const AxLayout *L, const AxConc *c, char *err, size_t n);
/* result rank and group dims (named dims are the caller's) */
int ax_layout_out(const AxLayout *L, const AxConc *c, AxShape *out);
/* the same conditions as terms, appended to cs[n...]; returns the new n */
int ax_layout_pre(TermCtx *tc, const AxLayout *L, const AxSym *s, Term **cs, int n);
int ax_layout_shape(TermCtx *tc, const AxLayout *L, const AxSym *s, Term **out);
/* operand o read at result index idx with the named indices fixed[] */
Term *ax_sym_access(TermCtx *tc, const AxLayout *L, const AxSym *s, int o, Term *const *idx,
                    Term *const *fixed);
/* How a reference kernel reads operand o: made once per call (ax_read_plan, every operand),
 * then each element is a sum of strides.  An index comes from the result index oi (src >= 0),
 * from the named indices fixed (-1 - k), or is 0 (AX_READ_ZERO: a broadcast dimension). */
enum { AX_READ_ZERO = -128 };
typedef struct AxRead {
	int n;                   /* the operand's rank; -1: left out, reads def */
	double def;
	signed char src[AX_MAXR];
	int64_t dim[AX_MAXR], stride[AX_MAXR];
} AxRead;
void ax_read_plan(const AxLayout *L, const AxConc *c, AxRead *plan);
static inline double
ax_read(const AxRead *r, const float *data, const int64_t *oi, const int64_t *fixed, int *bad)
{
	if (r->n < 0)
		return r->def;
	int64_t off = 0;
	for (int k = 0; k < r->n; k++) {
		int s = r->src[k];
		int64_t ix = s >= 0 ? oi[s] : s == AX_READ_ZERO ? 0 : fixed[-1 - s];
		if (ix < 0 || ix >= r->dim[k]) {
			*bad = 1;
			return 0;
		}
		off += ix * r->stride[k];
	}
	return data[off];
}
void ax_unflatten(const AxShape *s, int64_t flat, int64_t *idx);
/* idx to the next index of shape s in row-major order (the last one wraps to zeros) */
static inline void
ax_next_index(const AxShape *s, int64_t *idx)
{
	for (int d = s->rank - 1; d >= 0; d--) {
		if (++idx[d] < s->d[d])
			return;
		idx[d] = 0;
	}
}

static inline int64_t ax_max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t ax_min64(int64_t a, int64_t b) { return a < b ? a : b; }
/* reductions chosen at run time: 0 sum, 1 max, 2 min */
static inline double ax_red_init(int rk) { return rk == 0 ? 0.0 : rk == 1 ? -INFINITY : INFINITY; }
static inline double ax_red_step(int rk, double acc, double x)
{
	return rk == 0 ? acc + x : rk == 1 ? fmax(acc, x) : fmin(acc, x);
}

/* ---- ref.c: helpers for the generated reference kernels ------------------- */

int64_t ax_idiv(int64_t a, int64_t b);     /* floor division (NumPy's //), b != 0 */
int64_t ax_imod(int64_t a, int64_t b);     /* NumPy's %: the sign of b, b != 0 */
int64_t ax_gcd(int64_t a, int64_t b);      /* >= 1 */
/* row-major offset of idx in a tensor of the given shape; -1 if an index is
 * out of range (broadcast indices are already mapped to 0 by the caller) */
int64_t ax_offset(int rank, const int64_t *dims, const int64_t *idx);
int64_t ax_numel(const AxShape *s);

/* ---- smt.c: the Z3 boundary ------------------------------------------------ */
Smt *smt_new(const AxTarget *t);
void smt_free(Smt *s);
void smt_set_timeout(Smt *s, int ms);                  /* per query; 0: none */
/* 1 if hyp => goal for all values of the free variables; else 0 and why */
int smt_prove(Smt *s, Term *hyp, Term *goal, char *why, size_t n);
/* the same in a child process killed at the time limit (Z3 4.8 does not always stop
 * by itself on nonlinear queries with fns); the checker's computation condition */
int smt_prove_isolated(Smt *s, Term *hyp, Term *goal, char *why, size_t n);
/* 1 if t can be true; 0 if not or unknown */
int smt_satisfiable(Smt *s, Term *t, char *why, size_t n);

/* ---- target.c --------------------------------------------------------------- */
const AxOp *ax_find_op(const AxTarget *t, const char *name);
const AxOp *ax_find_inst(const AxTarget *t, const char *name);
int ax_has_role(const AxOp *op, const char *role);   /* the op declares python "role" */
void ax_print_target(FILE *f, const AxTarget *t);

#endif
