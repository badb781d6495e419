/*
 * emit.h — shared by the C writers of axgen (emit.c, emit_expr.c).
 */
#ifndef AXGEN_EMIT_H
#define AXGEN_EMIT_H
#include <stdio.h>
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

typedef struct Gen {
	Spec *spec;
	Decl **fns, **enums, **ops, **insts;
	int nfns, nenums, nops, ninsts;
	List engines, mems, templates;   /* Decl*, declaration order */
} Gen;

/* emit.c */
extern FILE *out;
void emitf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *cstr(const char *s);
const char *locstr(Loc l);
const char *pattern_str(const List *dims);
const char *mems_str(const List *m);
const char *sig_str(const Decl *d);
int index_of_decl(Decl **v, int n, const char *name);
int index_in(const List *l, const char *name);
Ctx ctx_for(Gen *g, Decl *d, Mode m, Buf *pre, const char *prefix);
/* emit_op.c */
void emit_opinst(Gen *g, Decl *d);
unsigned mem_mask(Gen *g, const List *mems);
unsigned engine_mask(Gen *g, const Decl *d);
int num_rational(const char *text, long long *num, long long *den);

#endif
