/*
 * emit_op.h — the generated functions and layout tables of one op or
 * instruction (emit_op.c), written for emit.c, which writes the whole target.
 */
#ifndef AXGEN_EMIT_OP_H
#define AXGEN_EMIT_OP_H
#include "ast.h"

typedef struct Gen {     /* the target being written: its declarations, sorted by name */
	Spec *spec;
	Decl **fns, **enums, **ops, **insts;
	int nfns, nenums, nops, ninsts;
	List engines, mems, templates;   /* Decl*, declaration order */
} Gen;

void emit_opinst(Gen *g, Decl *d);
unsigned mem_mask(Gen *g, const List *mems);      /* bit k: memory k of the target */
unsigned engine_mask(Gen *g, const Decl *d);      /* bit k: engine k of the target */

#endif
