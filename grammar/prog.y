/*
 * prog.y — grammar of the NumPy subset axonc reads.
 *
 *   import numpy as np
 *   def helper(x): return ...
 *   def kernel(X: "f32[M,K]", W: "f32[K,N]", eps=1e-6):
 *       y = expr
 *       return expr[, expr...]
 *
 * Expressions follow Python's precedence: comparisons < + - < * / // % @
 * < unary - + < ** < calls, attributes, subscripts.  The parser builds the
 * AST (runtime/axon.h, "the program language") and stops at the first
 * syntax error; meaning (which names and functions exist, shapes) is the
 * front end's (runtime/frontend.c).
 */
%define api.pure full
%define api.prefix {prog}
%define parse.error custom
%locations
%param {void *sc}
%parse-param {PFile *out} {const char *file} {Arena *A}

%code requires {
#include "front.h"
typedef struct Vec { void **v; int n, cap; } Vec;   /* a growing array in the parse arena */
}

%code {
#include <stdlib.h>
#include <string.h>
int proglex(PROGSTYPE *lval, PROGLTYPE *lloc, void *sc);
static void progerror(PROGLTYPE *l, void *sc, PFile *out, const char *file, Arena *A, const char *msg);
#define L(n) ((AxLoc){ file, (n).first_line, (n).first_column })
static void vpush(Arena *A, Vec *v, void *p);
static PExpr *px(Arena *A, int kind, AxLoc loc);
static PExpr *pbin(Arena *A, int op, PExpr *a, PExpr *b, AxLoc loc);
static PExpr *pvec(Arena *A, int kind, AxLoc loc, Vec *v);
}

%union {
	const char *s;
	PExpr *e;
	PStmt *st;
	PFunc *fn;
	PParam *par;
	Vec vec;
}

%token DEF "def" RETURN "return" IMPORT "import" AS "as" FROM "from"
%token NONE "None" TRUE "True" FALSE "False"
%token POW "**" FLOORDIV "//" ARROW "->" ELLIPSIS "..."
%token NEWLINE "end of line" INDENT "indentation" DEDENT "end of block" BADINDENT "inconsistent indentation"
%token <s> NAME "name" INTLIT "integer" FLOATLIT "number" STRING "string" KEYWORD "keyword"
%token <s> CMP "comparison" AUGASSIGN "augmented assignment" BADCHAR "invalid character" BADSTRING "unterminated string"

%type <e> expr cmp arith term factor power postfix atom arg sub expr_opt ret_opt
%type <vec> args args_opt subs exprs stmts params params_opt body line smalls names
%type <st> stmt
%type <fn> funcdef
%type <par> param

%%

file
	: %empty
	| file NEWLINE
	| file import
	| file funcdef      { Vec v = { (void **)out->funcs, out->nfuncs, out->nfuncs }; vpush(A, &v, $2);
	                      out->funcs = (PFunc **)v.v; out->nfuncs = v.n; }
	;

import
	: IMPORT NAME NEWLINE            { if (strcmp($2, "numpy") == 0) out->np = "numpy";
	                                   if (strcmp($2, "math") == 0) out->math = "math"; }
	| IMPORT NAME AS NAME NEWLINE    { if (strcmp($2, "numpy") == 0) out->np = $4;
	                                   if (strcmp($2, "math") == 0) out->math = $4; }
	;

funcdef
	: DEF NAME '(' params_opt ')' ret_opt ':' body {
		$$ = arena_alloc(A, sizeof *$$);
		$$->name = $2; $$->loc = L(@2);
		$$->nparams = $4.n;
		$$->params = arena_alloc(A, sizeof *$$->params * (size_t)($4.n + 1));
		for (int i = 0; i < $4.n; i++)
			$$->params[i] = *(PParam *)$4.v[i];
		$$->nstmts = $8.n; $$->stmts = (PStmt **)$8.v;
		(void)$6;
	}
	;
/* an indented block, or simple statements on the line of the def
 * (def f(x): return x + 1.0) */
body
	: NEWLINE INDENT stmts DEDENT   { $$ = $3; }
	| line
	;
ret_opt: %empty { $$ = NULL; } | ARROW expr { $$ = $2; } ;
params_opt: %empty { $$ = (Vec){0}; } | params { $$ = $1; } | params ',' { $$ = $1; } ;
params
	: param              { $$ = (Vec){0}; vpush(A, &$$, $1); }
	| params ',' param   { $$ = $1; vpush(A, &$$, $3); }
	;
param
	: NAME                       { $$ = arena_alloc(A, sizeof *$$); $$->name = $1; $$->loc = L(@1); }
	| NAME ':' STRING            { $$ = arena_alloc(A, sizeof *$$); $$->name = $1; $$->loc = L(@1); $$->ann = $3; $$->annloc = L(@3); }
	| NAME '=' expr              { $$ = arena_alloc(A, sizeof *$$); $$->name = $1; $$->loc = L(@1); $$->def = $3; }
	| NAME ':' STRING '=' expr   { $$ = arena_alloc(A, sizeof *$$); $$->name = $1; $$->loc = L(@1); $$->ann = $3; $$->annloc = L(@3); $$->def = $5; }
	;

stmts
	: line          { $$ = $1; }
	| stmts line    { $$ = $1; for (int i = 0; i < $2.n; i++) vpush(A, &$$, $2.v[i]); }
	;
/* one logical line: simple statements separated by ';' (a = f(x); return a) */
line
	: smalls NEWLINE       { $$ = $1; }
	| smalls ';' NEWLINE   { $$ = $1; }
	;
smalls
	: stmt                 { $$ = (Vec){0}; vpush(A, &$$, $1); }
	| smalls ';' stmt      { $$ = $1; vpush(A, &$$, $3); }
	;
stmt
	: NAME '=' expr {
		$$ = arena_alloc(A, sizeof *$$); $$->kind = PS_ASSIGN; $$->loc = L(@1); $$->target = $1; $$->value = $3;
	}
	| names '=' exprs {   /* a, b = t  (tuple unpacking: M, N = X.shape) */
		$$ = arena_alloc(A, sizeof *$$); $$->kind = PS_ASSIGN; $$->loc = L(@1);
		$$->ntargets = $1.n; $$->targets = (PExpr **)$1.v;
		$$->value = $3.n == 1 ? $3.v[0] : pvec(A, PX_TUPLE, L(@3), &$3);
	}
	| RETURN exprs {
		$$ = arena_alloc(A, sizeof *$$); $$->kind = PS_RETURN; $$->loc = L(@1);
		$$->value = $2.n == 1 ? $2.v[0] : pvec(A, PX_TUPLE, L(@2), &$2);
	}
	| RETURN exprs ',' {
		$$ = arena_alloc(A, sizeof *$$); $$->kind = PS_RETURN; $$->loc = L(@1);
		$$->value = pvec(A, PX_TUPLE, L(@2), &$2);
	}
	| STRING { $$ = arena_alloc(A, sizeof *$$); $$->kind = PS_DOC; $$->loc = L(@1); }
	;

names
	: NAME ',' NAME     { PExpr *a = px(A, PX_NAME, L(@1)), *b = px(A, PX_NAME, L(@3)); a->s = $1; b->s = $3;
	                      $$ = (Vec){0}; vpush(A, &$$, a); vpush(A, &$$, b); }
	| names ',' NAME    { PExpr *c = px(A, PX_NAME, L(@3)); c->s = $3; $$ = $1; vpush(A, &$$, c); }
	;

exprs
	: expr              { $$ = (Vec){0}; vpush(A, &$$, $1); }
	| exprs ',' expr    { $$ = $1; vpush(A, &$$, $3); }
	;

expr: cmp ;
cmp
	: arith
	| cmp CMP arith     { $$ = pbin(A, $1->kind == PX_CMP && $1->op != '(' ? 'C' : 'c', $1, $3, L(@2));
	                      $$->kind = PX_CMP; $$->s = $2; }
	;
arith
	: term
	| arith '+' term    { $$ = pbin(A, '+', $1, $3, L(@2)); }
	| arith '-' term    { $$ = pbin(A, '-', $1, $3, L(@2)); }
	;
term
	: factor
	| term '*' factor       { $$ = pbin(A, '*', $1, $3, L(@2)); }
	| term '/' factor       { $$ = pbin(A, '/', $1, $3, L(@2)); }
	| term FLOORDIV factor  { $$ = pbin(A, 'f', $1, $3, L(@2)); }
	| term '%' factor       { $$ = pbin(A, '%', $1, $3, L(@2)); }
	| term '@' factor       { $$ = pbin(A, '@', $1, $3, L(@2)); }
	;
factor
	: power
	| '-' factor        { $$ = px(A, PX_NEG, L(@1)); $$->a = $2; }
	| '+' factor        { $$ = px(A, PX_POS, L(@1)); $$->a = $2; }
	;
power
	: postfix
	| postfix POW factor    { $$ = pbin(A, 'p', $1, $3, L(@2)); }
	;
postfix
	: atom
	| postfix '(' args_opt ')'   { $$ = pvec(A, PX_CALL, L(@2), &$3); $$->a = $1; }
	| postfix '.' NAME           { $$ = px(A, PX_ATTR, L(@3)); $$->a = $1; $$->s = $3; }
	| postfix '[' subs ']'       { $$ = pvec(A, PX_INDEX, L(@2), &$3); $$->a = $1; }
	| postfix '[' subs ',' ']'   { $$ = pvec(A, PX_INDEX, L(@2), &$3); $$->a = $1; }
	;
atom
	: NAME          { $$ = px(A, PX_NAME, L(@1)); $$->s = $1; }
	| INTLIT        { $$ = px(A, PX_NUM, L(@1)); $$->s = $1; $$->is_int = 1; $$->num = strtod($1, NULL); }
	| FLOATLIT      { $$ = px(A, PX_NUM, L(@1)); $$->s = $1; $$->num = strtod($1, NULL); }
	| STRING        { $$ = px(A, PX_STR, L(@1)); $$->s = $1; }
	| NONE          { $$ = px(A, PX_NONE, L(@1)); }
	| TRUE          { $$ = px(A, PX_TRUE, L(@1)); }
	| FALSE         { $$ = px(A, PX_FALSE, L(@1)); }
	| ELLIPSIS      { $$ = px(A, PX_ELLIPSIS, L(@1)); }
	| '(' expr ')'  { $$ = $2; if ($$->kind == PX_CMP) $$->op = '('; }   /* (a < b) < c is no chain */
	| '(' expr ',' ')'          { Vec v = { 0 }; vpush(A, &v, $2); $$ = pvec(A, PX_TUPLE, L(@1), &v); }
	| '(' expr ',' exprs ')'    { Vec v = { 0 }; vpush(A, &v, $2); for (int i = 0; i < $4.n; i++) vpush(A, &v, $4.v[i]);
	                              $$ = pvec(A, PX_TUPLE, L(@1), &v); }
	| '(' ')'                   { Vec v = { 0 }; $$ = pvec(A, PX_TUPLE, L(@1), &v); }
	| '[' ']'                   { Vec v = { 0 }; $$ = pvec(A, PX_LIST, L(@1), &v); }
	| '[' exprs ']'             { $$ = pvec(A, PX_LIST, L(@1), &$2); }
	| '[' exprs ',' ']'         { $$ = pvec(A, PX_LIST, L(@1), &$2); }
	;

args_opt: %empty { $$ = (Vec){0}; } | args { $$ = $1; } | args ',' { $$ = $1; } ;
args
	: arg               { $$ = (Vec){0}; vpush(A, &$$, $1); }
	| args ',' arg      { $$ = $1; vpush(A, &$$, $3); }
	;
arg
	: expr
	| NAME '=' expr     { $$ = px(A, PX_KW, L(@1)); $$->s = $1; $$->a = $3; }
	;

subs
	: sub               { $$ = (Vec){0}; vpush(A, &$$, $1); }
	| subs ',' sub      { $$ = $1; vpush(A, &$$, $3); }
	;
sub
	: expr
	| expr_opt ':' expr_opt                 { $$ = px(A, PX_SLICE, L(@2)); $$->a = $1; $$->b = $3; }
	| expr_opt ':' expr_opt ':' expr_opt    { $$ = px(A, PX_SLICE, L(@2)); $$->a = $1; $$->b = $3; $$->c = $5; }
	;
expr_opt: %empty { $$ = NULL; } | expr ;

%%

static void
vpush(Arena *A, Vec *v, void *p)
{
	if (v->n == v->cap) {
		int cap = v->cap ? 2 * v->cap : 4;
		void **nv = arena_alloc(A, sizeof *nv * (size_t)cap);
		for (int i = 0; i < v->n; i++)
			nv[i] = v->v[i];
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = p;
}

static PExpr *
px(Arena *A, int kind, AxLoc loc)
{
	PExpr *e = arena_alloc(A, sizeof *e);
	e->kind = kind;
	e->loc = loc;
	return e;
}

static PExpr *
pbin(Arena *A, int op, PExpr *a, PExpr *b, AxLoc loc)
{
	PExpr *e = px(A, PX_BIN, loc);
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

static PExpr *
pvec(Arena *A, int kind, AxLoc loc, Vec *v)
{
	PExpr *e = px(A, kind, loc);
	e->n = v->n;
	e->v = (PExpr **)v->v;
	return e;
}

/* the text of the last keyword, comparison or invalid token (prog.l) */
const char *prog_last_text(void *sc);

static int
yyreport_syntax_error(const yypcontext_t *ctx, void *sc, PFile *out, const char *file, Arena *A)
{
	(void)out;
	(void)A;
	const PROGLTYPE *l = yypcontext_location(ctx);
	AxLoc loc = { file, l->first_line, l->first_column };
	yysymbol_kind_t tok = yypcontext_token(ctx);
	const char *text = prog_last_text(sc);
	switch (tok) {
	case YYSYMBOL_KEYWORD:
		ax_error_at(loc, "'%s' is not supported by the NumPy subset", text);
		return 0;
	case YYSYMBOL_AUGASSIGN:
		ax_error_at(loc, "augmented assignment '%s' is not supported: write x = x %.*s ...", text,
		            (int)strlen(text) - 1, text);
		return 0;
	case YYSYMBOL_BADCHAR:
		ax_error_at(loc, "invalid character '%s'", text);
		return 0;
	case YYSYMBOL_BADSTRING:
		ax_error_at(loc, "unterminated string");
		return 0;
	case YYSYMBOL_BADINDENT:
		ax_error_at(loc, "indentation does not match any outer block");
		return 0;
	case YYSYMBOL_INDENT:
		ax_error_at(loc, "unexpected indentation");
		return 0;
	default:
		break;
	}
	enum { NEXP = 5 };
	yysymbol_kind_t exp[NEXP];
	int n = yypcontext_expected_tokens(ctx, exp, NEXP);
	char msg[512];
	int k = snprintf(msg, sizeof msg, "syntax error: unexpected %s", yysymbol_name(tok));
	if (n > 0 && n <= NEXP) {
		k += snprintf(msg + k, sizeof msg - (size_t)k, ", expecting ");
		for (int i = 0; i < n && k < (int)sizeof msg; i++)
			k += snprintf(msg + k, sizeof msg - (size_t)k, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
			              yysymbol_name(exp[i]));
	}
	ax_error_at(loc, "%s", msg);
	return 0;
}

static void
progerror(PROGLTYPE *l, void *sc, PFile *out, const char *file, Arena *A, const char *msg)
{
	(void)sc;
	(void)out;
	(void)A;
	if (strcmp(msg, "memory exhausted") == 0)
		msg = "the program nests too deeply";
	ax_error_at((AxLoc){ file, l->first_line, l->first_column }, "%s", msg);
}
