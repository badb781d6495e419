/*
 * ast.h — the abstract syntax of Axon's spec language, shared by the parser
 * (grammar/spec.y), semantic analysis (gen/sema.c) and the C writers
 * (gen/emit_*.c).
 *
 * One header with a section per stage that main.c drives (QBE all.h,
 * chibicc chibicc.h), standing on util.h.  The lower files of sema and of
 * the C writers, which the upper ones call into, declare themselves in
 * headers of their own (sema_expr.h; emit_buf.h, emit_expr.h, emit_op.h), so
 * that each file includes only what lies below it.
 * axgen is a short-lived program: nodes come from a bump allocator that is
 * never freed (chibicc's rule).  Every node keeps the Loc it was parsed at,
 * so any stage can report "at this node".
 */
#ifndef AXGEN_AST_H
#define AXGEN_AST_H

#include <stddef.h>
#include <stdio.h>

enum { MAXDIMS = 8, MAXERR = 20 };

#include "axon.h"
#include "util.h"

typedef AxLoc Loc;      /* runtime/diag.c prints them, for axgen and axonc alike */

/* ---- expressions -------------------------------------------------------- */

typedef enum {
	E_NUM,      /* numeric literal */
	E_NAME,     /* identifier; sema resolves it (see NameKind) */
	E_ACCESS,   /* tensor element: a[i, ..., k] */
	E_CALL,     /* fn, enum attribute or builtin call */
	E_NEG,      /* -x */
	E_NOT,      /* !x */
	E_BIN,      /* binary operator, see BinOp */
	E_COND,     /* c ? x : y */
	E_RED,      /* sum/max/min/fold over a bound index */
	E_ELLIPSIS, /* `...` or `...G` inside an index list */
} ExprKind;

typedef enum {
	B_ADD, B_SUB, B_MUL, B_DIV, B_MOD,
	B_LT, B_LE, B_GT, B_GE, B_EQ, B_NE,
	B_AND, B_OR,
} BinOp;

typedef enum { R_SUM, R_MAX, R_MIN, R_FOLD } RedKind;

typedef enum {   /* what an E_NAME refers to, filled by sema */
	N_UNRES,
	N_SIZE,     /* a size symbol bound by an operand pattern or a size attribute */
	N_INDEX,    /* an output index variable (lhs of the body) */
	N_BOUND,    /* a reduction index */
	N_ACC,      /* a fold accumulator */
	N_PARAM,    /* a parameter of fn / enum / axiom */
	N_FATTR,    /* a float attribute of an op */
	N_BUILTIN,  /* dtype_bytes (cost) and engine (constraints, cost) */
	N_ENGINE,   /* an engine name, compared with `engine` */
	N_GROUP,    /* an instruction's ellipsis group in its cost: the product of its dims */
} NameKind;

typedef enum { T_NONE, T_INT, T_REAL, T_BOOL } Ty;

typedef struct Expr Expr;
struct Expr {
	ExprKind kind;
	Loc loc;
	Ty ty;            /* sema */
	int paren;        /* written inside parentheses (stops comparison chains) */
	/* E_NUM */
	double num;
	int is_int;
	const char *text; /* literal as written */
	/* E_NAME, E_ACCESS, E_CALL, E_ELLIPSIS (group name or "") */
	const char *name;
	NameKind nk;      /* E_NAME */
	int slot;         /* E_NAME: index into the kind's table; E_ACCESS: operand; E_CALL: see callk */
	int callk;        /* E_CALL: 0 fn, 1 enum attribute, 2 builtin max, 3 builtin min */
	List args;        /* E_ACCESS indices, E_CALL arguments */
	/* E_BIN / E_NEG / E_NOT / E_COND */
	BinOp op;
	Expr *a, *b, *c;
	/* E_RED: red over var in [lo, hi) of body; fold also acc = init */
	RedKind red;
	const char *var, *acc;
	Loc varloc, accloc;
	Expr *lo, *hi, *init, *body;
	int var_id, acc_id; /* sema: unique ids within the declaration */
};

/* ---- declarations -------------------------------------------------------- */

typedef struct Dim {     /* one entry of an operand pattern or output shape */
	Loc loc;
	int ellipsis;        /* `...` or `...G` */
	const char *group;   /* group name ("" for the anonymous group) */
	int par;             /* marked `par`: the partition axis */
	Expr *e;             /* size expression (a name or literal in operand patterns) */
} Dim;

typedef struct Operand {
	Loc loc;
	const char *name;
	List mems;           /* (Loc *, memory name) pairs (instructions) */
	List dims;           /* of Dim* */
	int has_default;
	Expr *defval;        /* `= 0`: an optional operand reading a constant */
} Operand;

typedef enum { A_ENUM, A_SIZE, A_FLOAT } AttrKind;

typedef struct Attr {
	Loc loc, tloc;
	const char *name;
	AttrKind kind;
	const char *type;    /* enum name for A_ENUM */
	int enum_id;         /* sema */
} Attr;

typedef struct Decl Decl;

typedef struct Stmt {    /* body statement */
	Loc loc;
	int is_emit;
	const char *str;     /* emit template */
	const char *lhs;     /* "out" */
	List lhs_idx;        /* of Expr* (E_NAME or E_ELLIPSIS) */
	Expr *rhs;
} Stmt;

typedef struct Prop {    /* `clock 2.8GHz` in engine/memory declarations */
	Loc loc;
	const char *name;
	int has_value;
	double value;
	const char *text;
	List mems;           /* `reads(sbuf|psum)`: (Loc *, memory name) pairs */
} Prop;

typedef enum { D_FN, D_AXIOM, D_ENUM, D_OP, D_INST, D_ENGINE, D_MEMORY, D_TEMPLATE, D_TARGET, D_KERNEL } DeclKind;

typedef struct EnumItem {
	Loc loc;
	const char *name;
	Expr *sem;
} EnumItem;

struct Decl {
	DeclKind kind;
	Loc loc;             /* of the keyword */
	Loc nloc;            /* of the name */
	const char *name;
	const char *file;    /* spec file (repo-relative as given) */
	/* D_FN, D_AXIOM, D_ENUM: parameters (const char*) */
	List params;
	Expr *def;           /* D_FN definition, D_AXIOM formula */
	const char *ref;     /* D_FN: C math function for reference kernels */
	Loc refloc;
	List items;          /* D_ENUM: EnumItem* */
	/* D_OP, D_INST */
	List operands;       /* Operand* */
	List attrs;          /* Attr* */
	List outmems;        /* (Loc *, memory name) pairs */
	List out;            /* Dim* */
	int broadcast;
	List python;         /* (Loc *, syntax string) pairs: Python syntax the op implements */
	List engines;        /* (Loc *, engine name) pairs */
	List where;          /* Expr* */
	List apart;          /* D_INST `apart MEM(a, b)`: (Loc *, name) pairs, the memory then the operands */
	Expr *cost;
	List body;           /* Stmt* */
	/* D_ENGINE, D_MEMORY */
	List props;          /* Prop* */
	/* D_TEMPLATE, D_KERNEL: the template, the kernel language's name */
	const char *str;
	Loc sloc;
	/* D_TARGET: nested declarations */
	List decls;
	const char *kernel;  /* D_TARGET: the language its kernel templates write (sema, from its D_KERNEL) */
	/* sema results for D_OP / D_INST */
	List syms;           /* const char*: size symbols, in binding order */
	List symlocs;        /* Loc* */
	List groups;         /* const char*: ellipsis groups, in order of appearance */
	Stmt *out_stmt;
	const char *emit;
	List gran;           /* const char*: granular operations used, sorted */
	int layout_only;     /* body is a single access: a pure data-movement op */
	int nvars;           /* number of bound vars + accumulators (ids) */
};

typedef struct Spec {    /* everything read: specs/ plus one target directory */
	List files;          /* const char* */
	List decls;          /* top-level Decl*, in reading order */
	Decl *target;        /* the (single) target block */
	const char *target_dir;
	int check_only;      /* axgen --check: a target block is optional */
	const char *numpy_file, *numpy;   /* numpy.py of a directory read: NumPy functions that are
	                                     several ops, written in NumPy (path, text; NULL: none) */
} Spec;

/* ---- diag.c --------------------------------------------------------------- */
extern int nerrors;
void diag_add_source(const char *file, const char *text);
void error_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_finish(void);  /* prints "N errors" and exits 1 if any */

/* ---- parse (grammar/spec.y) ----------------------------------------------- */
int parse_file(const char *path, Spec *spec);   /* 0 ok; on a syntax error prints it, returns 1 */

/* ---- ast.c ---------------------------------------------------------------- */
Expr *new_expr(ExprKind k, Loc loc);
Expr *new_bin(BinOp op, Expr *a, Expr *b, Loc loc);
const char *binop_str(BinOp op);
void print_expr(FILE *f, const Expr *e);   /* spec syntax, for comments and strings */
char *expr_str(const Expr *e);
Decl *find_decl(Spec *spec, DeclKind k, const char *name);
Decl **sorted_decls(Spec *spec, DeclKind k, int *n);

/* ---- sema.c --------------------------------------------------------------- */
void sema(Spec *spec);   /* resolves names, types and checks consistency; collects errors */

/* ---- emit.c --------------------------------------------------------------- */
void emit_all(Spec *spec, const char *outdir, const char *tname);

#endif
