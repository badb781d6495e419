/*
 * ast.c — constructors and a printer for spec expressions, and the lookups of
 * declarations in a Spec.
 *
 * The printer writes spec syntax back; generated C uses it in comments and in
 * the human-readable strings of the tables (preconditions, cost terms).
 */
#include <stdlib.h>
#include <string.h>
#include "ast.h"

Expr *
new_expr(ExprKind k, Loc loc)
{
	Expr *e = xalloc(sizeof *e);
	e->kind = k;
	e->loc = loc;
	return e;
}

Expr *
new_bin(BinOp op, Expr *a, Expr *b, Loc loc)
{
	Expr *e = new_expr(E_BIN, loc);
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

const char *
binop_str(BinOp op)
{
	static const char *s[] = {
		[B_ADD] = "+", [B_SUB] = "-", [B_MUL] = "*", [B_DIV] = "/", [B_MOD] = "%",
		[B_LT] = "<", [B_LE] = "<=", [B_GT] = ">", [B_GE] = ">=", [B_EQ] = "==",
		[B_NE] = "!=", [B_AND] = "&&", [B_OR] = "||",
	};
	return s[op];
}

static void
print_list(FILE *f, const List *l)
{
	for (int i = 0; i < l->n; i++) {
		if (i)
			fputs(", ", f);
		print_expr(f, l->v[i]);
	}
}

void
print_expr(FILE *f, const Expr *e)
{
	static const char *red[] = { "sum", "max", "min", "fold" };
	switch (e->kind) {
	case E_NUM:
		fputs(e->text, f);
		break;
	case E_NAME:
		fputs(e->name, f);
		break;
	case E_ELLIPSIS:
		fprintf(f, "...%s", e->name);
		break;
	case E_ACCESS:
		fprintf(f, "%s[", e->name);
		print_list(f, &e->args);
		fputc(']', f);
		break;
	case E_CALL:
		fprintf(f, "%s(", e->name);
		print_list(f, &e->args);
		fputc(')', f);
		break;
	case E_NEG:
		fputs("-", f);
		print_expr(f, e->a);
		break;
	case E_NOT:
		fputs("!", f);
		print_expr(f, e->a);
		break;
	case E_BIN:
		fputc('(', f);
		print_expr(f, e->a);
		fprintf(f, " %s ", binop_str(e->op));
		print_expr(f, e->b);
		fputc(')', f);
		break;
	case E_COND:
		fputc('(', f);
		print_expr(f, e->a);
		fputs(" ? ", f);
		print_expr(f, e->b);
		fputs(" : ", f);
		print_expr(f, e->c);
		fputc(')', f);
		break;
	case E_RED:
		fprintf(f, "%s(", e->name ? e->name : red[e->red]);
		print_expr(f, e->body);
		fputs(" for ", f);
		if (e->lo) {
			print_expr(f, e->lo);
			fputs(" <= ", f);
		}
		fprintf(f, "%s < ", e->var);
		print_expr(f, e->hi);
		if (e->red == R_FOLD) {
			fprintf(f, ", %s = ", e->acc);
			print_expr(f, e->init);
		}
		fputc(')', f);
		break;
	}
}

char *
expr_str(const Expr *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		die("open_memstream failed");
	print_expr(f, e);
	fclose(f);
	char *s = xstrdup(buf);
	free(buf);
	return s;
}

/* ---- declarations of a spec ------------------------------------------------ */

/* The declaration of kind k named name, in the files or the target block. */
Decl *
find_decl(Spec *spec, DeclKind k, const char *name)
{
	List *ls[2] = { &spec->decls, spec->target ? &spec->target->decls : NULL };
	for (int j = 0; j < 2; j++) {
		if (!ls[j])
			continue;
		for (int i = 0; i < ls[j]->n; i++) {
			Decl *d = ls[j]->v[i];
			if (d->kind == k && strcmp(d->name, name) == 0)
				return d;
		}
	}
	return NULL;
}

static int
cmpdecl(const void *a, const void *b)
{
	return strcmp((*(Decl *const *)a)->name, (*(Decl *const *)b)->name);
}

/* All declarations of kind k sorted by name: generated output is ordered by
 * name so that regeneration is byte-identical whatever the file order. */
Decl **
sorted_decls(Spec *spec, DeclKind k, int *n)
{
	List l = { 0 };
	List *ls[2] = { &spec->decls, spec->target ? &spec->target->decls : NULL };
	for (int j = 0; j < 2; j++)
		for (int i = 0; ls[j] && i < ls[j]->n; i++)
			if (((Decl *)ls[j]->v[i])->kind == k)
				list_push(&l, ls[j]->v[i]);
	if (l.n > 1)
		qsort(l.v, (size_t)l.n, sizeof *l.v, cmpdecl);
	*n = l.n;
	return (Decl **)l.v;
}
