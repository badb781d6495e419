/*
 * spec.y — grammar of Axon's spec language (*.ax).
 *
 * A spec file is a list of declarations:
 *   fn NAME(x, ...) [= expr] [ref "cfunc"];     scalar function: uninterpreted or defined
 *   axiom(x, ...) expr;                         a fact about fns, for every x
 *   enum NAME[(a, b)] { item = expr, ... }      finite attribute choices with semantics
 *   op NAME(operands [; attrs]) -> [shape] [broadcast] [where c, ...] { body }
 *   inst NAME(operands [; attrs]) -> mems [shape] [on e | e] [where c, ...] [cost expr] { body }
 *   target NAME { kernel "LANGUAGE"; engine ...; memory ...; template NAME "..."; }
 * The parser only builds the AST (gen/ast.h); names, types and consistency are
 * checked by gen/sema.c.  It stops at the first syntax error.
 */
%define api.pure full
%define api.prefix {spec}
%define parse.error custom
%locations
%param {void *sc}
%parse-param {Spec *spec} {const char *file}

%code requires {
#include "ast.h"
}

%code {
#include <stdlib.h>
#include <string.h>
int speclex(SPECSTYPE *lval, SPECLTYPE *lloc, void *sc);
static void specerror(SPECLTYPE *l, void *sc, Spec *spec, const char *file, const char *msg);
#define L(n) ((Loc){ file, (n).first_line, (n).first_column })
static Decl *new_decl(DeclKind k, Loc loc, Loc nloc, const char *name, const char *file);
static List one(void *p) { List l = { 0 }; list_push(&l, p); return l; }
}

%union {
	Expr *e;
	const char *s;
	Loc loc;
	List list;
	Decl *d;
	Dim *dim;
	Operand *opnd;
	Attr *attr;
	Stmt *stmt;
	Prop *prop;
	EnumItem *item;
}

%token FN "fn" AXIOM "axiom" ENUM "enum" OP "op" INST "inst" TARGET "target"
%token ENGINE "engine" MEMORY "memory" TEMPLATE "template" WHERE "where" COST "cost"
%token ON "on" EMIT "emit" REF "ref" SIZE "size" FLOAT "float" PAR "par"
%token BROADCAST "broadcast" FOR "for" PYTHON "python" KERNEL "kernel" APART "apart"
%token ARROW "->" LE "<=" GE ">=" EQ "==" NE "!=" AND "&&" OR "||"
%token <s> ID "identifier" STRING "string" ELLIPSIS "..."
%token <s> BADCHAR "invalid character" BADSTRING "unterminated string"
%token <e> NUM "number"

%type <d> item fn axiom enum op inst target tdecl
%type <list> idlist idlist_opt enumitems operands operands_opt idxlist_opt attrs_opt attrs dims dims_opt memlist memspec_opt
%type <list> apart_opt memlist_commas python_opt pystrs on_opt where_opt exprlist args_opt args idxlist stmts props tdecls engines enum_params
%type <e> expr cond or and cmp add mul unary primary idx fndef_opt cost_opt default_opt
%type <s> ref_opt opname name tname
%type <dim> dim
%type <opnd> operand
%type <attr> attr
%type <stmt> stmt
%type <prop> prop
%type <item> enumitem
%type <e> reduction
%type <list> shape
%type <e> bcast_opt

%%

file
	: %empty
	| file item        { list_push(&spec->decls, $2); }
	;

item: fn | axiom | enum | op | inst | target ;

fn
	: FN ID '(' idlist_opt ')' fndef_opt ref_opt ';' {
		$$ = new_decl(D_FN, L(@1), L(@2), $2, file);
		$$->params = $4; $$->def = $6; $$->ref = $7; $$->refloc = L(@7);
	}
	;
fndef_opt: %empty { $$ = NULL; } | '=' expr { $$ = $2; } ;
ref_opt: %empty { $$ = NULL; } | REF STRING { $$ = $2; } ;

axiom
	: AXIOM '(' idlist ')' expr ';' {
		$$ = new_decl(D_AXIOM, L(@1), L(@5), "", file);
		$$->params = $3; $$->def = $5;
	}
	;

enum
	: ENUM ID enum_params '{' enumitems comma_opt '}' {
		$$ = new_decl(D_ENUM, L(@1), L(@2), $2, file);
		$$->params = $3; $$->items = $5;
	}
	;
enum_params: %empty { $$ = (List){0}; } | '(' idlist ')' { $$ = $2; } ;
enumitems
	: enumitem                 { $$ = one($1); }
	| enumitems ',' enumitem   { $$ = $1; list_push(&$$, $3); }
	;
enumitem: name '=' expr { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->name = $1; $$->sem = $3; } ;
comma_opt: %empty | ',' ;

op
	: OP opname '(' operands_opt attrs_opt ')' ARROW shape bcast_opt python_opt where_opt '{' stmts '}' {
		$$ = new_decl(D_OP, L(@1), L(@2), $2, file);
		$$->operands = $4; $$->attrs = $5; $$->out = $8; $$->broadcast = $9 != NULL;
		$$->python = $10; $$->where = $11; $$->body = $13;
	}
	;
/* Keywords may also be names where a name is expected: an op is named as in
 * NumPy (np.where), NKI calls an ALU attribute `op`. */
opname: name | WHERE { $$ = "where"; } ;
name
	: ID
	| OP { $$ = "op"; } | SIZE { $$ = "size"; } | FLOAT { $$ = "float"; }
	| MEMORY { $$ = "memory"; } | TEMPLATE { $$ = "template"; } | TARGET { $$ = "target"; }
	| REF { $$ = "ref"; } | EMIT { $$ = "emit"; } | KERNEL { $$ = "kernel"; }
	;
bcast_opt: %empty { $$ = NULL; } | BROADCAST { $$ = new_expr(E_NUM, L(@1)); } ;
/* the Python syntax an op implements, for the NumPy front end: (Loc *, string) pairs */
python_opt: %empty { $$ = (List){0}; } | PYTHON pystrs { $$ = $2; } ;
pystrs
	: STRING             { $$ = (List){0}; Loc *l = xalloc(sizeof *l); *l = L(@1); list_push(&$$, l); list_push(&$$, (void *)$1); }
	| pystrs ',' STRING  { $$ = $1; Loc *l = xalloc(sizeof *l); *l = L(@3); list_push(&$$, l); list_push(&$$, (void *)$3); }
	;

inst
	: INST ID '(' operands_opt attrs_opt ')' ARROW memlist shape on_opt where_opt apart_opt cost_opt '{' stmts '}' {
		$$ = new_decl(D_INST, L(@1), L(@2), $2, file);
		$$->operands = $4; $$->attrs = $5; $$->outmems = $8; $$->out = $9;
		$$->engines = $10; $$->where = $11; $$->apart = $12; $$->cost = $13; $$->body = $15;
	}
	;
/* `apart psum(a, b)`: at most one of the operands a, b may be in memory psum; (Loc *, name)
 * pairs, the memory first */
apart_opt
	: %empty { $$ = (List){0}; }
	| APART ID '(' memlist_commas ')' {
		$$ = (List){0}; Loc *l = xalloc(sizeof *l); *l = L(@2); list_push(&$$, l); list_push(&$$, (void *)$2);
		for (int i = 0; i < $4.n; i++) list_push(&$$, $4.v[i]);
	}
	;
memlist_commas
	: name                     { $$ = (List){0}; Loc *l = xalloc(sizeof *l); *l = L(@1); list_push(&$$, l); list_push(&$$, (void *)$1); }
	| memlist_commas ',' name  { $$ = $1; Loc *l = xalloc(sizeof *l); *l = L(@3); list_push(&$$, l); list_push(&$$, (void *)$3); }
	;
on_opt: %empty { $$ = (List){0}; } | ON engines { $$ = $2; } ;
engines
	: ID                { $$ = (List){0}; Loc *l = xalloc(sizeof *l); *l = L(@1); list_push(&$$, l); list_push(&$$, (void *)$1); }
	| engines '|' ID    { $$ = $1; Loc *l = xalloc(sizeof *l); *l = L(@3); list_push(&$$, l); list_push(&$$, (void *)$3); }
	;
where_opt: %empty { $$ = (List){0}; } | WHERE exprlist { $$ = $2; } ;
cost_opt: %empty { $$ = NULL; } | COST expr { $$ = $2; } ;

 operands_opt: %empty { $$ = (List){0}; } | operands { $$ = $1; } ;
operands
	: operand               { $$ = one($1); }
	| operands ',' operand  { $$ = $1; list_push(&$$, $3); }
	;
operand
	: name memspec_opt '[' dims_opt ']' default_opt {
		$$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->name = $1; $$->mems = $2;
		$$->dims = $4; $$->defval = $6; $$->has_default = $6 != NULL;
	}
	;
memspec_opt: %empty { $$ = (List){0}; } | ':' memlist { $$ = $2; } ;
/* memories and engines are lists of (Loc *, name) pairs: name at odd indices */
memlist
	: ID                { $$ = (List){0}; Loc *l = xalloc(sizeof *l); *l = L(@1); list_push(&$$, l); list_push(&$$, (void *)$1); }
	| memlist '|' ID    { $$ = $1; Loc *l = xalloc(sizeof *l); *l = L(@3); list_push(&$$, l); list_push(&$$, (void *)$3); }
	;
default_opt: %empty { $$ = NULL; } | '=' expr { $$ = $2; } ;

attrs_opt: %empty { $$ = (List){0}; } | ';' attrs { $$ = $2; } ;
attrs
	: attr              { $$ = one($1); }
	| attrs ',' attr    { $$ = $1; list_push(&$$, $3); }
	;
attr
	: name ':' ID    { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->tloc = L(@3); $$->name = $1; $$->kind = A_ENUM; $$->type = $3; }
	| name ':' SIZE  { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->tloc = L(@3); $$->name = $1; $$->kind = A_SIZE; $$->type = "size"; }
	| name ':' FLOAT { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->tloc = L(@3); $$->name = $1; $$->kind = A_FLOAT; $$->type = "float"; }
	;

shape: '[' dims_opt ']' { $$ = $2; } ;
dims_opt: %empty { $$ = (List){0}; } | dims { $$ = $1; } ;
dims
	: dim           { $$ = one($1); }
	| dims ',' dim  { $$ = $1; list_push(&$$, $3); }
	;
dim
	: ELLIPSIS      { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->ellipsis = 1; $$->group = $1; }
	| PAR expr      { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->par = 1; $$->e = $2; }
	| expr          { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->e = $1; }
	;

stmts: %empty { $$ = (List){0}; } | stmts stmt { $$ = $1; list_push(&$$, $2); } ;
stmt
	: ID '[' idxlist_opt ']' '=' expr ';' {
		$$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->lhs = $1; $$->lhs_idx = $3; $$->rhs = $6;
	}
	| EMIT STRING ';' { $$ = xalloc(sizeof *$$); $$->loc = L(@2); $$->is_emit = 1; $$->str = $2; }
	;

target
	: TARGET ID '{' tdecls '}' {
		$$ = new_decl(D_TARGET, L(@1), L(@2), $2, file);
		$$->decls = $4;
	}
	;
tdecls: %empty { $$ = (List){0}; } | tdecls tdecl { $$ = $1; list_push(&$$, $2); } ;
tdecl
	: ENGINE ID props ';'       { $$ = new_decl(D_ENGINE, L(@1), L(@2), $2, file); $$->props = $3; }
	| MEMORY ID props ';'       { $$ = new_decl(D_MEMORY, L(@1), L(@2), $2, file); $$->props = $3; }
	| TEMPLATE tname STRING ';' { $$ = new_decl(D_TEMPLATE, L(@1), L(@2), $2, file); $$->str = $3; $$->sloc = L(@3); }
	| KERNEL STRING ';'         { $$ = new_decl(D_KERNEL, L(@1), L(@2), "kernel", file); $$->str = $2; $$->sloc = L(@2); }
	;
/* the skeleton template `kernel` is named by the keyword of the kernel language statement */
tname: ID | KERNEL { $$ = "kernel"; } ;
props: %empty { $$ = (List){0}; } | props prop { $$ = $1; list_push(&$$, $2); } ;
prop
	: ID      { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->name = $1; }
	| ID NUM  { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->name = $1; $$->has_value = 1; $$->value = $2->num; $$->text = $2->text; }
	| ID '(' memlist ')' { $$ = xalloc(sizeof *$$); $$->loc = L(@1); $$->name = $1; $$->mems = $3; }
	;

idlist_opt: %empty { $$ = (List){0}; } | idlist { $$ = $1; } ;
idlist
	: ID             { $$ = one((void *)$1); }
	| idlist ',' ID  { $$ = $1; list_push(&$$, (void *)$3); }
	;
exprlist
	: expr               { $$ = one($1); }
	| exprlist ',' expr  { $$ = $1; list_push(&$$, $3); }
	;

expr: cond ;
cond
	: or
	| or '?' expr ':' cond  { $$ = new_expr(E_COND, L(@2)); $$->a = $1; $$->b = $3; $$->c = $5; }
	;
or
	: and
	| or OR and      { $$ = new_bin(B_OR, $1, $3, L(@2)); }
	;
and
	: cmp
	| and AND cmp    { $$ = new_bin(B_AND, $1, $3, L(@2)); }
	;
cmp
	: add
	| cmp '<' add    { $$ = new_bin(B_LT, $1, $3, L(@2)); }
	| cmp LE add     { $$ = new_bin(B_LE, $1, $3, L(@2)); }
	| cmp '>' add    { $$ = new_bin(B_GT, $1, $3, L(@2)); }
	| cmp GE add     { $$ = new_bin(B_GE, $1, $3, L(@2)); }
	| cmp EQ add     { $$ = new_bin(B_EQ, $1, $3, L(@2)); }
	| cmp NE add     { $$ = new_bin(B_NE, $1, $3, L(@2)); }
	;
add
	: mul
	| add '+' mul    { $$ = new_bin(B_ADD, $1, $3, L(@2)); }
	| add '-' mul    { $$ = new_bin(B_SUB, $1, $3, L(@2)); }
	;
mul
	: unary
	| mul '*' unary  { $$ = new_bin(B_MUL, $1, $3, L(@2)); }
	| mul '/' unary  { $$ = new_bin(B_DIV, $1, $3, L(@2)); }
	| mul '%' unary  { $$ = new_bin(B_MOD, $1, $3, L(@2)); }
	;
unary
	: primary
	| '-' unary      { $$ = new_expr(E_NEG, L(@1)); $$->a = $2; }
	| '!' unary      { $$ = new_expr(E_NOT, L(@1)); $$->a = $2; }
	;
primary
	: NUM
	| name                   { $$ = new_expr(E_NAME, L(@1)); $$->name = $1; }
	| ENGINE                 { $$ = new_expr(E_NAME, L(@1)); $$->name = "engine"; }
	| name '[' idxlist ']'   { $$ = new_expr(E_ACCESS, L(@1)); $$->name = $1; $$->args = $3; }
	| name '(' args_opt ')'  { $$ = new_expr(E_CALL, L(@1)); $$->name = $1; $$->args = $3; }
	| reduction
	| '(' expr ')'           { $$ = $2; $$->paren = 1; }
	;
reduction
	: name '(' expr FOR ID '<' add ')' {
		$$ = new_expr(E_RED, L(@1)); $$->name = $1; $$->body = $3; $$->var = $5; $$->varloc = L(@5); $$->hi = $7;
	}
	| name '(' expr FOR add LE ID '<' add ')' {
		$$ = new_expr(E_RED, L(@1)); $$->name = $1; $$->body = $3; $$->lo = $5; $$->var = $7; $$->varloc = L(@7);
		$$->hi = $9;
	}
	| name '(' expr FOR ID '<' add ',' ID '=' expr ')' {
		$$ = new_expr(E_RED, L(@1)); $$->name = $1; $$->body = $3; $$->var = $5; $$->varloc = L(@5); $$->hi = $7;
		$$->acc = $9; $$->accloc = L(@9); $$->init = $11;
	}
	;
args_opt: %empty { $$ = (List){0}; } | args { $$ = $1; } ;
args
	: expr           { $$ = one($1); }
	| args ',' expr  { $$ = $1; list_push(&$$, $3); }
	;
 idxlist_opt: %empty { $$ = (List){0}; } | idxlist { $$ = $1; } ;
idxlist
	: idx               { $$ = one($1); }
	| idxlist ',' idx   { $$ = $1; list_push(&$$, $3); }
	;
idx
	: expr
	| ELLIPSIS       { $$ = new_expr(E_ELLIPSIS, L(@1)); $$->name = $1; }
	;

%%

static Decl *
new_decl(DeclKind k, Loc loc, Loc nloc, const char *name, const char *file)
{
	Decl *d = xalloc(sizeof *d);
	d->kind = k;
	d->loc = loc;
	d->nloc = nloc;
	d->name = name;
	d->file = file;
	return d;
}

/* The text of the last invalid token, for the message (spec.l). */
extern const char *spec_bad_text;

/* Syntax errors name what was found and what would have been accepted;
 * tokens the lexer could not make sense of get a message of their own. */
static int
yyreport_syntax_error(const yypcontext_t *ctx, void *sc, Spec *spec, const char *file)
{
	(void)sc;
	(void)spec;
	const SPECLTYPE *l = yypcontext_location(ctx);
	Loc loc = { file, l->first_line, l->first_column };
	yysymbol_kind_t tok = yypcontext_token(ctx);
	if (tok == YYSYMBOL_BADCHAR) {
		unsigned char c = spec_bad_text ? (unsigned char)spec_bad_text[0] : 0;
		if (c >= 32 && c < 127)
			error_at(loc, "invalid character '%c'", c);
		else
			error_at(loc, "invalid byte 0x%02x", c);
		return 0;
	}
	if (tok == YYSYMBOL_BADSTRING) {
		error_at(loc, "unterminated string");
		return 0;
	}
	enum { NEXP = 6 };
	yysymbol_kind_t exp[NEXP];
	int n = yypcontext_expected_tokens(ctx, exp, NEXP);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		die("open_memstream failed");
	fprintf(f, "syntax error: unexpected %s", yysymbol_name(tok));
	if (n > 0 && n <= NEXP) {
		fprintf(f, ", expecting ");
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", yysymbol_name(exp[i]));
	}
	fclose(f);
	error_at(loc, "%s", buf);
	free(buf);
	return 0;
}

static void
specerror(SPECLTYPE *l, void *sc, Spec *spec, const char *file, const char *msg)
{
	(void)sc;
	(void)spec;
	Loc loc = { file, l->first_line, l->first_column };
	error_at(loc, "%s", msg);
}

int spec_lex_file(const char *file, const char *text, Spec *spec);

int
parse_file(const char *path, Spec *spec)
{
	char *text = read_file(path, NULL);
	if (!text) {
		error_at((Loc){ 0 }, "cannot read %s", path);
		return 1;
	}
	diag_add_source(path, text);
	list_push(&spec->files, (void *)path);
	return spec_lex_file(path, text, spec) != 0;
}
