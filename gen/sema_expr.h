/*
 * sema_expr.h — the checking of expressions (sema_expr.c), which the checking
 * of declarations (sema.c) stands on: sema.c fills a Scope for each
 * expression a declaration holds and hands both to check_expr.
 */
#ifndef AXGEN_SEMA_EXPR_H
#define AXGEN_SEMA_EXPR_H
#include "ast.h"

typedef enum { CX_FN, CX_AXIOM, CX_ENUM, CX_BODY, CX_SHAPE, CX_WHERE, CX_COST, CX_DEFAULT } Cx;

typedef struct Scope {
	Spec *spec;
	Decl *d;           /* the declaration being checked */
	Cx cx;
	List params;       /* fn/enum/axiom parameters */
	List idx;          /* output index names */
	List bound;        /* reduction vars and accumulators in scope, innermost last */
	List bound_ids;    /* parallel to bound: (intptr_t) ids */
	List bound_kind;   /* parallel: (intptr_t) N_BOUND or N_ACC */
	List gran;         /* granular operations seen */
	int value_ops;     /* number of value computations (not layout) */
} Scope;

extern int next_var_id;   /* ids of bound variables within one declaration */
Ty check_expr(Scope *s, Expr *e);
Ty want(Expr *e, Ty got, Ty need, const char *what);
Attr *find_attr(Decl *d, const char *name, int *slot);
int find_operand(Decl *d, const char *name);
int engine_index(Spec *spec, const char *name);
int is_cmp(BinOp op);
#endif
