/*
 * term_print.c — terms as text: the S-expression form (t_print, t_str) the
 * tests and --explain read, and the infix form (t_infix) of the messages
 * about sizes a person reads ("M >= 2", "D % 2 == 0").
 */
#include <stdlib.h>
#include "axon.h"

/* Printed names of term kinds.  They are term operators, not tensor ops, and
 * are spelled so that no op name of any spec can collide with them. */
static const char *const opname[TK_NKINDS] = {
	[TK_ADD] = "+", [TK_SUB] = "-", [TK_MUL] = "*", [TK_DIV] = "/", [TK_MOD] = "mod",
	[TK_MAX] = "maxof", [TK_MIN] = "minof", [TK_LT] = "<", [TK_LE] = "<=", [TK_EQ] = "=",
	[TK_NE] = "!=", [TK_AND] = "and", [TK_OR] = "or", [TK_NOT] = "not", [TK_NEG] = "-",
	[TK_ITE] = "ite", [TK_TOREAL] = "real", [TK_SUM] = "sigma", [TK_RMAX] = "maxover",
	[TK_RMIN] = "minover", [TK_FOLD] = "fold",
};

/* S-expression form: (+ a b), (sigma v lo hi body), X[i, j], fn(x) */
void
t_print(FILE *f, const TermCtx *c, const Term *t)
{
	switch ((TermKind)t->kind) {
	case TK_NUM:
		if (t->name)
			fputs(t->name, f);
		else if (t->sort == TS_BOOL)
			fputs(t->num ? "true" : "false", f);
		else if (t->den == 1)
			fprintf(f, t->sort == TS_REAL ? "%lld.0" : "%lld", (long long)t->num);
		else
			fprintf(f, "%lld/%lld", (long long)t->num, (long long)t->den);
		return;
	case TK_VAR:
		fputs(t->name, f);
		return;
	case TK_BVAR:
		if (t_is_dbvar(t) >= 0)
			fprintf(f, "@%d", t_is_dbvar(t));   /* De Bruijn index */
		else if (t->id == DB_BINDER)
			fputs("@", f);
		else
			fprintf(f, "%%%d", t->id);
		return;
	case TK_TENSOR:
		fprintf(f, "%s[", t->name ? t->name : "?");
		for (int i = 0; i < t->n; i++) {
			if (i)
				fputs(", ", f);
			t_print(f, c, t->a[i]);
		}
		fputc(']', f);
		return;
	case TK_CALL:
		if (c && tc_target(c) && t->id >= 0 && t->id < tc_target(c)->nfns)
			fputs(tc_target(c)->fns[t->id].name, f);
		else
			fprintf(f, "fn%d", t->id);
		fputc('(', f);
		for (int i = 0; i < t->n; i++) {
			if (i)
				fputs(", ", f);
			t_print(f, c, t->a[i]);
		}
		fputc(')', f);
		return;
	default:
		fprintf(f, "(%s", opname[t->kind]);
		for (int i = 0; i < t->n; i++) {
			fputc(' ', f);
			t_print(f, c, t->a[i]);
		}
		fputc(')', f);
		return;
	}
}

static void infix(FILE *f, const TermCtx *c, const Term *t, int prec);

/* A printer's output as a string in the context's arena. */
static char *
print_to_string(TermCtx *c, const Term *t, int infix_form)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		ax_die("open_memstream");
	if (infix_form)
		infix(f, c, t, 0);
	else
		t_print(f, c, t);
	fclose(f);
	char *s = arena_strdup(tc_arena(c), buf);
	free(buf);
	return s;
}

char *
t_str(TermCtx *c, const Term *t)
{
	return print_to_string(c, t, 0);
}

static void
infix(FILE *f, const TermCtx *c, const Term *t, int prec)
{
	static const struct { TermKind k; const char *s; int prec; } ops[] = {
		{ TK_OR, " || ", 1 }, { TK_AND, " && ", 2 }, { TK_EQ, " == ", 3 }, { TK_NE, " != ", 3 },
		{ TK_LT, " < ", 3 }, { TK_LE, " <= ", 3 }, { TK_ADD, " + ", 4 }, { TK_SUB, " - ", 4 },
		{ TK_MUL, " * ", 5 }, { TK_DIV, " / ", 5 }, { TK_MOD, " % ", 5 },
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		if (ops[i].k != t->kind)
			continue;
		if (ops[i].prec < prec)
			fputc('(', f);
		infix(f, c, t->a[0], ops[i].prec);
		fputs(ops[i].s, f);
		infix(f, c, t->a[1], ops[i].prec + 1);
		if (ops[i].prec < prec)
			fputc(')', f);
		return;
	}
	if (t->kind == TK_NOT) {
		fputs("!", f);
		infix(f, c, t->a[0], 6);
		return;
	}
	if (t->kind == TK_NEG) {
		fputs("-", f);
		infix(f, c, t->a[0], 6);
		return;
	}
	if (t->kind == TK_TOREAL) {
		infix(f, c, t->a[0], prec);
		return;
	}
	t_print(f, c, t);
}

char *
t_infix(TermCtx *c, const Term *t)
{
	return print_to_string(c, t, 1);
}
