/*
 * emit.h — shared by the C writers of axgen (emit.c, emit_expr.c).
 */
#ifndef AXGEN_EMIT_H
#define AXGEN_EMIT_H
#include "ast.h"

typedef struct Buf {     /* growing string */
	char *s;
	size_t len, cap;
} Buf;
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *buf_str(Buf *b);

typedef enum { M_TERM, M_REF } Mode;

typedef struct Ctx {     /* how to compile one expression */
	Mode mode;
	const char *prefix;  /* the op's generated-function prefix */
	const char *enum_prefix_of_attr[16];
	Buf *pre;            /* REF mode: statements that must run first */
	int depth;           /* REF mode: indentation of those statements */
	int ntemp;
} Ctx;

const char *compile_expr(Ctx *x, const Expr *e);
int num_rational(const char *text, long long *num, long long *den);

#endif
