/*
 * axon.h — the runtime's shared core (runtime/core/), a section per file:
 * diagnostics, arenas, the term IR, the tables axgen generates for a target,
 * the graph and the νGraph, layouts, sizes, .npy files and JSON.  Every stage
 * above it (proof, front, search, back, measure, cli) and the generated code
 * include it; it names nothing of theirs.
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
/* a scratch buffer of at least want bytes (*cap: its size; not zeroed), kept by ax_spare_give for
 * the next taker instead of freed (large arrays built and dropped per candidate) */
void *ax_spare_take(size_t want, size_t *cap);
void *ax_spare_zeroed(size_t want, size_t *cap);   /* its first want bytes zeroed */
void ax_spare_give(void *p, size_t cap);
double ax_now_ms(void);                         /* a monotonic clock */
void ax_heap_reserve(size_t bytes);             /* the malloc heap faulted in at once (once a process) */

/* ---- proc.c: child processes ------------------------------------------------ */
#include <sys/types.h>
pid_t ax_fork(void);   /* fork(), the child killed (SIGKILL) when its parent ends */
/* popen(cmd, "r") whose command (and all it starts in its process group) is
 * killed when it ends or when the caller ends; close with ax_pclose_group
 * (the command's wait status) */
FILE *ax_popen_group(const char *cmd, pid_t *pid);
int ax_pclose_group(FILE *f, pid_t pid);

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
enum { DB_BASE = 1 << 24, DB_BINDER = DB_BASE - 1 };   /* bound-variable ids of De Bruijn indices, the binder placeholder */
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
const AxTarget *tc_target(const TermCtx *c);   /* the target whose fns its calls name */
int tc_fresh_count(const TermCtx *c);          /* bound variables t_fresh has handed out */
void tc_fresh_skip(TermCtx *c, int n);         /* as if t_fresh had been called n more times */

typedef struct AxEnv {       /* values of free variables, by name */
	int n;
	const char *const *names;
	const double *vals;
} AxEnv;
/* The value of a term without tensors or reductions; 0 = ok, -1 otherwise
 * (unknown variable, division by zero, a kind it cannot evaluate). */
int t_eval(const Term *t, const AxEnv *env, double *out);

/* ---- tables written by axgen ------------------------------------------------ */

typedef struct AxShape {
	int rank;
	int64_t d[AX_MAXR];
} AxShape;

typedef struct AxConc {      /* a concrete instance: sizes are numbers */
	int nopnd;
	int rank[AX_MAXOPND];    /* -1: an optional operand left out (reads its default) */
	int64_t dim[AX_MAXOPND][AX_MAXR];
	int grank[AX_MAXGROUP];  /* rank of each ellipsis group in the result */
	int attr[AX_MAXATTR];    /* enum attributes: index of the chosen item */
	int64_t size[AX_MAXATTR];/* size attributes */
	double fval[AX_MAXATTR]; /* float attributes */
	int engine;              /* instructions: index of the chosen engine */
	const AxShape *shape;    /* not NULL: the result's shape from check on this instance (its
	                          * enum attributes aside: they are only range-checked, as the spec
	                          * language allows them only in an op's body), so ref does not
	                          * check again */
	const float *want;       /* not NULL: ref stops at the first element not ax_close to want's
	                          * (returning 2; the result is then partial): synthesis's test for
	                          * a value that must be the operation's */
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
	uint32_t apart_mems;     /* `apart MEM(a, b)`: at most one of the operands apart_opnds */
	uint32_t apart_opnds;    /* (bit o) may be in the memories apart_mems */
} AxOp;

typedef struct AxEngine {
	const char *name;
	double clock_hz;         /* 0 if not given */
	int queues;
	double bandwidth;        /* bytes/s */
	double latency_s;        /* the delay before a result may be read (a transfer's: after its data moved) */
	double gap_s;            /* an engine that transfers: the time each transfer holds its queues beyond its bytes */
	int dma;                 /* moves data between memories */
	uint32_t reads, writes;  /* bit m: may read / write memory m (`reads(...)`, `writes(...)`) */
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
	/* NumPy functions that are several ops, written in NumPy (the spec directory's numpy.py,
	 * run by the front end like a program's helpers): its path and text; NULL if none */
	const char *numpy_file, *numpy;
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
int graph_is_output(const AxGraph *g, int id);   /* node id is one of the graph's outputs */
/* A node's concrete shape under sizes; 0 = ok. */
int graph_shape(const AxGraph *g, int node, const AxEnv *sizes, AxShape *s);
void graph_print(FILE *f, const AxGraph *g);
/* t with maxof/minof decided where the sizes hyp admits decide them */

/* ---- nugraph.c: the set of equivalent variants ----------------------------- */

typedef struct NuGraph {
	const AxGraph *g0;       /* the program as written */
	TermCtx *tc;
	int nvariants, cap;
	AxGraph **variants;      /* variant 0 is the program as written */
	char **canon;            /* canonical forms, for deduplication */
	/* propagation's record */
	int checks, cache_hits, swaps;
	int spot_run, spot_none; /* proofs run at small sizes behind them (the spot check); not runnable */
	double ms;
	const char *stop;        /* "saturated", "max-variants", "time" */
} NuGraph;

NuGraph *ng_new(const AxGraph *g0);
AxGraph *graph_copy(const AxGraph *g);
AxGraph *graph_shell(const AxGraph *g, int cap);   /* g's header, no nodes, room for cap */
void graph_compact(AxGraph *g);
char *graph_canon(const AxGraph *g);
int ng_add(NuGraph *ng, AxGraph *g, int *added);      /* index of g or of its equal */
int ng_check(const NuGraph *ng, char *err, size_t n);

/* ---- npy.c: NumPy's .npy files (float32, C order) ----------------------------- */
int npy_write(const char *path, const AxShape *s, const float *data, char *err, size_t n);
int npy_read(const char *path, AxShape *s, float **data, char *err, size_t n);   /* data: malloc'd */

/* ---- sizes.c: concrete sizes from --dims ------------------------------------  */
#define AX_MAX_SIZE ((int64_t)1 << 48)   /* the largest size --dims takes (an annotation's fixed dim alike) */
/* "M=64,K=32" into names (malloc'd) and values; 0 = ok, else err says why */
int ax_parse_dims(const char *spec, const char **names, double *vals, int cap, int *n, char *err, size_t errlen);
/* g's sizes from "M=64,K=32" plus scalar defaults, assumptions checked; names[0..*nsizes)
 * are malloc'd.  0 = ok, 2 = badly written, 1 = they do not fit g (err says why) */
int ax_size_env(const AxGraph *g, const char *dims, const char **names, double *vals, int cap, int *n, int *nsizes,
                char *err, size_t errlen);

/* ---- hash.c: a 128-bit hash of strings (slurm.c's keys, compile --sizes's cache) ---- */
void ax_hash_add(uint64_t h[2], const char *s);   /* s and its terminating 0 into h */
void ax_hash_hex(const uint64_t h[2], char out[33]);
/* ---- files.c ---- */
char *ax_read_text(const char *path, size_t *len);   /* malloc'd, 0-terminated; NULL if unreadable */
int ax_mkdir_p(const char *path);                     /* path and its parents; 0 = ok, -1 and errno */

/* ---- layout.c: rank-polymorphic patterns, shared by all generated code ---- */

int ax_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* rank of group g inside operand o (o = -1: the result) */
int ax_grank(const AxLayout *L, const int *rank, const int *grank, int o, int g);
/* position in operand o (o = -1: the result) of pattern entry k */
int ax_pos(const AxLayout *L, const int *rank, const int *grank, int o, int k);
/* the group ranks implied by the operand ranks; -1 where they do not say */
void ax_infer_granks(const AxLayout *L, const int *rank, int *grank);
/* the product of group g's dims in the first operand that has it (1 if empty): an
 * instruction's cost names a group for it */
int64_t ax_group_numel(const AxLayout *L, const AxConc *c, int g);
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

/* two elements equal up to the tolerance of synthesis's observational equivalence (NaN
 * equals only NaN; an infinity is within the tolerance of everything) */
static inline int
ax_close(double a, double b)
{
	if (isnan(a) && isnan(b))
		return 1;
	return !(isnan(a) || isnan(b) || fabs(a - b) > 1e-3 * (1 + fabs(a) + fabs(b)));
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
void ax_shape_str(const AxShape *s, char *b, size_t n);   /* "[2, 3]" */
uint64_t ax_splitmix(uint64_t *state);                    /* the next of a seeded sequence */

/* ---- target.c --------------------------------------------------------------- */
const AxOp *ax_find_op(const AxTarget *t, const char *name);
const AxOp *ax_find_inst(const AxTarget *t, const char *name);
int ax_has_role(const AxOp *op, const char *role);   /* the op declares python "role" */
/* The memories operand o of instruction op (o = -1: its result) may be in
 * when it runs on one of the engines in the mask: its own memories, narrowed
 * by what those engines read (write). */
uint32_t ax_inst_mems(const AxTarget *t, const AxOp *op, int o, uint32_t engines);
int ax_xfer_engine(const AxTarget *t);   /* the first engine that transfers (stores); -1 none */
int ax_nth_bit(uint32_t mask, int k);   /* the k-th set bit of an engine or memory mask (its first if k is out of range; -1 none) */
void ax_print_target(FILE *f, const AxTarget *t);

/* ---- json.c ------------------------------------------------------------------ */
void json_fstr(FILE *f, const char *s);   /* s as a JSON string on f */

#endif
