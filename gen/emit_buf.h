/*
 * emit_buf.h — the text of the C writers (emit_buf.c): a growing string, the
 * file being written, C string literals, file:line notes and the printed
 * forms of declarations.  emit_expr.c, emit_op.c and emit.c stand on it.
 */
#ifndef AXGEN_EMIT_BUF_H
#define AXGEN_EMIT_BUF_H
#include <stdio.h>
#include "ast.h"

typedef struct Buf {     /* growing string */
	char *s;
	size_t len, cap;
} Buf;
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *buf_str(Buf *b);

extern FILE *out;        /* the generated file being written */
void emitf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *cstr(const char *s);
const char *locstr(Loc l);
const char *pattern_str(const List *dims);
const char *mems_str(const List *m);
const char *sig_str(const Decl *d);

#endif
