/*
 * emit_expr.h — spec expressions compiled to C (emit_expr.c), in the two
 * renderings the generated functions need: a term builder and a reference
 * computation on numbers.
 */
#ifndef AXGEN_EMIT_EXPR_H
#define AXGEN_EMIT_EXPR_H
#include "emit_buf.h"

typedef enum { M_TERM, M_REF } Mode;

typedef struct Ctx {     /* how to compile one expression */
	Mode mode;
	const char *prefix;  /* the op's generated-function prefix */
	const char *enum_prefix_of_attr[16];
	Buf *pre;            /* REF mode: statements that must run first */
	int depth;           /* REF mode: indentation of those statements */
	int ntemp;
} Ctx;

Ctx ctx_for(Decl *d, Mode m, Buf *pre, const char *prefix);
const char *compile_expr(Ctx *x, const Expr *e);
int num_rational(const char *text, long long *num, long long *den);

#endif
