/*
 * fe.h — shared by the parts of the NumPy front end, from the top down:
 * frontend.c (values, statements, calls), frontend_index.c (indexing,
 * reshape, transpose), frontend_ops.c (turning a call or a piece of Python
 * syntax into a node: axes, keepdims, slicing, and the shape checks that go
 * with them), frontend_mask.c (NumPy's bool arrays) and frontend_size.c
 * (errors, roles, facts proved about sizes, linear size terms, axes).  Each
 * calls only the files after it.
 */
#ifndef AXON_FE_H
#define AXON_FE_H
#include <setjmp.h>
#include "front.h"

/* Integers of the program stay within 64 bits through the shape arithmetic
 * the specs do on them: a literal or a size computed from literals is at
 * most 2^62, a fixed dim of an annotation at most 2^48 (sums of thousands
 * of them fit), the fixed dims of one tensor at most 2^62 elements (a
 * product of them fits). */
#define FE_MAX_INT ((int64_t)1 << 62)
#define FE_MAX_POW 16   /* |n| of the largest integer power x ** n of a tensor (squares and products) */
#define FE_MAX_DIM AX_MAX_SIZE

typedef enum {
	V_NONE,
	V_TENSOR,   /* node */
	V_SIZE,     /* integer term: a size expression or an int literal */
	V_REAL,     /* real term: float literal, scalar parameter, arithmetic of them */
	V_BOOL,     /* b */
	V_TUPLE,    /* n, v (tuples and lists alike) */
	V_MODULE,   /* numpy; b = 1: math */
	V_NPFN,     /* np.name; b = 1: math.name, of numbers only */
	V_METHOD,   /* node.name */
	V_FUNC,     /* a def of the same file */
	V_SHAPE,    /* node.shape */
} VKind;

typedef struct Val Val;
struct Val {
	VKind k;
	int node;
	Term *t;
	int b;
	int n;
	Val *v;
	const char *name;
	PFunc *fn;
};

typedef struct FeKw {        /* a keyword argument */
	const char *name;
	Val v;
	AxLoc loc;
} FeKw;

typedef struct Fe {
	const AxTarget *t;
	AxGraph *g;
	TermCtx *tc;
	Arena *a;
	PFile *file;
	Smt *smt;
	Equiv *eq;               /* for lifting helpers to spec'd ops; made when first needed */
	jmp_buf fail;            /* the first error ends the analysis */
	int depth;               /* helper-call nesting */
	int edepth;              /* expression nesting */
	PFunc *top;              /* the function being compiled */
	AxLoc ret_loc;           /* the last returned expression */
	unsigned char *mask;     /* per node: 1 when it holds a NumPy bool array (a comparison's 1.0/0.0) */
	int maskcap;
	PFile *numpy;            /* the target's numpy.py, parsed when first needed */
	const char *np_name;     /* inside a function of it: the one the program called, and where */
	AxLoc np_call;
} Fe;

_Noreturn void fe_error(Fe *fe, AxLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* frontend_ops.c */
int fe_role(Fe *fe, const char *role, AxLoc loc);          /* op playing a Python role */
int fe_scalar(Fe *fe, Term *value, AxLoc loc);            /* a rank-0 constant node */
int fe_tensor(Fe *fe, Val v, AxLoc loc);                  /* v as a node (scalars become constants) */
/* applies op to the operand nodes; axes (normalised to the first operand's
 * rank) choose where the op's fixed dims sit; sattr sets size attributes */
int fe_apply(Fe *fe, int op, const int *in, int nin, const int64_t *axes, int naxes, Term *const *sattr, AxLoc loc);
int fe_call_op(Fe *fe, int op, Val *args, int nargs, FeKw *kw, int nkw, AxLoc loc);
/* an op of two operands of one rank, its result of that rank (concatenate): a list is a fold of it */
int fe_op_folds(const AxOp *op);
int fe_matmul(Fe *fe, int op, int a, int b, AxLoc loc);    /* a @ b, vectors as NumPy treats them */
int fe_outer(Fe *fe, int a, int b, AxLoc loc);             /* np.outer of two vectors */
int fe_int_const(Fe *fe, Val v, int64_t *out);            /* 1 if v is an integer constant */
Term *fe_size_hyp(Fe *fe);                                /* sizes >= 1 and the assumptions so far */
int fe_proves(Fe *fe, Term *goal);                        /* goal holds for every size admitted */
/* cond holds (1), or is satisfiable and becomes an assumption of the graph
 * (1), or holds for no size admitted (0) */
int fe_need(Fe *fe, Term *cond, AxLoc loc);
int64_t fe_norm_axis(Fe *fe, int64_t a, int rank, AxLoc loc);   /* a negative axis counts from the end */
/* the result positions where the node's op writes a literal 1 (a reduction's kept axis) */
int fe_kept_axes(Fe *fe, const AxNode *n, int64_t *at);

/* frontend_mask.c: whether node holds a NumPy bool array (a comparison's
 * 1.0/0.0); fe_mark_mask decides it for a node fe_apply made, and refuses
 * the op where NumPy's bool arithmetic would give other values */
int fe_is_mask(Fe *fe, int node);
void fe_set_mask(Fe *fe, int node, int v);
void fe_mark_mask(Fe *fe, int node, AxLoc loc);

/* frontend_index.c: x[...] (per index four values: the index (V_NONE with
 * b = -1: a slice, b = -2: `...`) and a slice's start, stop, step (V_NONE
 * when left out)), reshape, transpose */
int fe_index(Fe *fe, int node, PExpr *index, Val *subs, AxLoc loc);
/* frontend_np.c: NumPy spellings written as other ops, functions of known numbers folded */
Val fe_np_transpose(Fe *fe, Val *args, int nargs, AxLoc loc);  /* np.transpose, x.T */
int fe_np_spelling(Fe *fe, const char *name, Val *args, int nargs, FeKw *kw, int nkw, AxLoc loc, Val *out);
/* frontend_arith.c: literals, value kinds, Python arithmetic */
Term *fe_real_literal(Fe *fe, const char *text, AxLoc loc);   /* a decimal literal, exactly */
Term *fe_double_literal(Fe *fe, double y, AxLoc loc);         /* a computed double, 17 digits */
int fe_int_literal(const char *s, int64_t limit, int64_t *out);   /* 0 past limit */
const char *fe_vkind_name(VKind k);                           /* "a tensor", "an integer" */
Val fe_arith(Fe *fe, int op, Val a, Val b, AxLoc loc);         /* a op b ('p' is **, 'f' is //) */
int fe_reshape(Fe *fe, int node, Val *dims, int ndims, AxLoc loc);
int fe_slice(Fe *fe, int node, int axis, Term *start, Term *stop, AxLoc loc);   /* x[.., start:stop] */
int fe_transpose(Fe *fe, int node, const int64_t *perm, int n, AxLoc loc);
Term *fe_lin_le(Fe *fe, Term *a, Term *b, int strict);    /* a <= b (a < b) as Q + c <= P: "2 <= M" */
Term *fe_lin_norm(Fe *fe, Term *t);                       /* a linear size term tidied: M - 1 */
#endif
