/*
 * front.h — the front end (runtime/front/): a NumPy program to a graph.
 * Takes a .py file (grammar/prog.y parses it into the AST below); gives the
 * AxGraph of one of its functions, every shape checked and every needed
 * fact about sizes proved (proof.h) or stated as an assumption, or errors
 * with file:line:col.
 */
#ifndef AXON_FRONT_H
#define AXON_FRONT_H
#include "proof.h"

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
	const char *target;      /* PS_ASSIGN to one name */
	PExpr *value;
	int ntargets;            /* PS_ASSIGN to several (a, b = ...): their PX_NAMEs */
	PExpr **targets;
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
	const char *math;        /* the name math is imported as (its functions of numbers) */
	int nfuncs;
	PFunc **funcs;
} PFile;

/* Parses a file into a (0 = ok; otherwise the error was reported). */
int prog_parse_file(const char *path, Arena *a, PFile *out);
int prog_parse_text(const char *file, const char *text, Arena *a, PFile *out);   /* text stays referenced */

/* ---- frontend.c: the NumPy subset to a graph --------------------------------- */

/* Parses path and builds the graph of function fn (NULL: "kernel"); NULL after
 * reporting errors with file:line:col. */
AxGraph *frontend_read(const AxTarget *t, TermCtx *tc, const char *path, const char *fn);

#endif
