/*
 * emit_expr.c — compiles spec expressions to C.
 *
 * Two renderings of the same typed expression:
 *   TERM mode: a C expression that builds the runtime term (runtime/term.c)
 *              for the Z3 encoders; reductions become t_red/t_fold nodes with
 *              a fresh bound variable, never unrolled;
 *   REF mode:  C that computes the value on concrete numbers for the
 *              reference kernels; reductions and value selects become
 *              statements (selects evaluate only the branch taken, so an
 *              index guard really guards the access behind it).
 * Names resolved by sema map to fixed local names of the generated functions:
 * sym[] sizes, x_<name> output indices, v[] / v<id> bound variables,
 * p[] parameters, c->/s-> instance fields.
 */
#include <stdlib.h>
#include <string.h>
#include "emit_expr.h"

/* How to compile the expressions of d (NULL: of no op) in mode m. */
Ctx
ctx_for(Decl *d, Mode m, Buf *pre, const char *prefix)
{
	Ctx x = { 0 };
	x.mode = m;
	x.pre = pre;
	x.depth = 1;
	x.prefix = prefix;
	for (int i = 0; d && (d->kind == D_OP || d->kind == D_INST) && i < d->attrs.n && i < 16; i++) {
		Attr *a = d->attrs.v[i];
		x.enum_prefix_of_attr[i] = a->kind == A_ENUM ? xprintf("enum_%s", a->type) : "";
	}
	return x;
}

/* A decimal literal as an exact fraction. */
int
num_rational(const char *text, long long *num, long long *den)
{
	long long n = 0, d = 1;
	const char *p = text;
	int frac = 0;
	for (; *p && *p != 'e' && *p != 'E'; p++) {
		if (*p == '.') {
			frac = 1;
			continue;
		}
		if (*p < '0' || *p > '9')
			return -1;
		if (n > (long long)1e16)
			return -1;
		n = n * 10 + (*p - '0');
		if (frac) {
			if (d > (long long)1e16)
				return -1;
			d *= 10;
		}
	}
	if (*p == 'e' || *p == 'E') {
		int ex = atoi(p + 1);
		for (; ex > 0; ex--) {
			if (n > (long long)1e16)
				return -1;
			n *= 10;
		}
		for (; ex < 0; ex++) {
			if (d > (long long)1e16)
				return -1;
			d *= 10;
		}
	}
	*num = n;
	*den = d;
	return 0;
}

static const char *
term_kind(BinOp op)
{
	static const char *k[] = {
		[B_ADD] = "TK_ADD", [B_SUB] = "TK_SUB", [B_MUL] = "TK_MUL", [B_DIV] = "TK_DIV",
		[B_MOD] = "TK_MOD", [B_LT] = "TK_LT", [B_LE] = "TK_LE", [B_GT] = "TK_LT",
		[B_GE] = "TK_LE", [B_EQ] = "TK_EQ", [B_NE] = "TK_NE", [B_AND] = "TK_AND", [B_OR] = "TK_OR",
	};
	return k[op];
}

static const char *
name_ref(const Ctx *x, const Expr *e)
{
	switch (e->nk) {
	case N_SIZE: return xprintf("sym[%d]", e->slot);
	case N_INDEX: return xprintf("x_%s", e->name);
	case N_BOUND: return x->mode == M_TERM ? xprintf("v[%d]", e->slot) : xprintf("v%d", e->slot);
	case N_ACC: return x->mode == M_TERM ? xprintf("v[%d]", e->slot) : xprintf("acc%d", e->slot);
	case N_PARAM: return xprintf("p[%d]", e->slot);
	case N_FATTR: return x->mode == M_TERM ? xprintf("s->sattr[%d]", e->slot) : xprintf("c->fval[%d]", e->slot);
	case N_BUILTIN:
		if (strcmp(e->name, "engine") == 0)
			return x->mode == M_TERM ? "t_int(tc, s->engine)" : "c->engine";
		return xprintf("%s", e->name);
	case N_ENGINE: return x->mode == M_TERM ? xprintf("t_int(tc, %d)", e->slot) : xprintf("%d", e->slot);
	case N_GROUP:
		if (x->mode == M_TERM)
			die("group %s outside a cost", e->name);
		return xprintf("ax_group_numel(&%s_L, c, %d)", x->prefix, e->slot);
	case N_UNRES: break;
	}
	die("unresolved name %s", e->name);
}

static const char *cx(Ctx *x, const Expr *e);

static const char *
args_list(Ctx *x, const List *args, const char *ctype)
{
	Buf b = { 0 };
	buf_printf(&b, "(%s[]){ ", ctype);
	for (int i = 0; i < args->n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", cx(x, args->v[i]));
	if (!args->n)
		buf_printf(&b, "0");
	buf_printf(&b, " }");
	return xstrdup(buf_str(&b));
}

static const char *
fixed_indices(Ctx *x, const Expr *e)
{
	List fx = { 0 };
	for (int i = 0; i < e->args.n; i++)
		if (((Expr *)e->args.v[i])->kind != E_ELLIPSIS)
			list_push(&fx, e->args.v[i]);
	return args_list(x, &fx, x->mode == M_TERM ? "Term *" : "int64_t");
}

static void
indent(Ctx *x)
{
	for (int i = 0; i < x->depth; i++)
		buf_printf(x->pre, "\t");
}

/* c inside exactly one pair of parentheses (compilers warn on if ((a == b))). */
static const char *
parenthesized(const char *c)
{
	size_t n = strlen(c);
	if (n >= 2 && c[0] == '(' && c[n - 1] == ')') {
		int depth = 0;
		size_t i;
		for (i = 0; i < n; i++) {
			depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
			if (depth == 0)
				break;
		}
		if (i == n - 1)
			return c;
	}
	return xprintf("(%s)", c);
}

/* REF mode: a new temporary holding a value computed by statements. */
static const char *
ref_red(Ctx *x, const Expr *e)
{
	int t = x->ntemp++;
	const char *lo = e->lo ? cx(x, e->lo) : "0";
	const char *hi = cx(x, e->hi);
	if (e->red == R_FOLD) {
		const char *init = cx(x, e->init);
		indent(x);
		buf_printf(x->pre, "double acc%d = %s;\n", e->acc_id, init);
		indent(x);
		buf_printf(x->pre, "for (int64_t v%d = %s; v%d < %s; v%d++) {\n", e->var_id, lo, e->var_id, hi, e->var_id);
		x->depth++;
		const char *body = cx(x, e->body);
		indent(x);
		buf_printf(x->pre, "acc%d = %s;\n", e->acc_id, body);
		x->depth--;
		indent(x);
		buf_printf(x->pre, "}\n");
		return xprintf("acc%d", e->acc_id);
	}
	const char *kind;
	if (e->callk == 1)
		kind = xprintf("%s_red[c->attr[%d]]", x->enum_prefix_of_attr[e->slot], e->slot);
	else
		kind = e->red == R_SUM ? "0" : e->red == R_MAX ? "1" : "2";
	indent(x);
	buf_printf(x->pre, "int rk%d = %s;\n", t, kind);
	indent(x);
	buf_printf(x->pre, "double t%d = ax_red_init(rk%d);\n", t, t);
	indent(x);
	buf_printf(x->pre, "for (int64_t v%d = %s; v%d < %s; v%d++) {\n", e->var_id, lo, e->var_id, hi, e->var_id);
	x->depth++;
	const char *body = cx(x, e->body);
	indent(x);
	buf_printf(x->pre, "t%d = ax_red_step(rk%d, t%d, %s);\n", t, t, t, body);
	x->depth--;
	indent(x);
	buf_printf(x->pre, "}\n");
	return xprintf("t%d", t);
}

static const char *
ref_cond(Ctx *x, const Expr *e)
{
	int t = x->ntemp++;
	const char *c = cx(x, e->a);
	const char *ty = e->ty == T_INT ? "int64_t" : "double";
	indent(x);
	buf_printf(x->pre, "%s t%d;\n", ty, t);
	indent(x);
	buf_printf(x->pre, "if %s {\n", parenthesized(c));
	x->depth++;
	const char *a = cx(x, e->b);
	indent(x);
	buf_printf(x->pre, "t%d = %s;\n", t, a);
	x->depth--;
	indent(x);
	buf_printf(x->pre, "} else {\n");
	x->depth++;
	const char *b = cx(x, e->c);
	indent(x);
	buf_printf(x->pre, "t%d = %s;\n", t, b);
	x->depth--;
	indent(x);
	buf_printf(x->pre, "}\n");
	return xprintf("t%d", t);
}

static const char *
cx_num(Ctx *x, const Expr *e)
{
	if (x->mode == M_TERM) {
		if (e->ty == T_INT)
			return xprintf("t_int(tc, %s)", e->text);
		long long n, d;
		if (num_rational(e->text, &n, &d) != 0) {
			error_at(e->loc, "literal %s has too many digits to be exact", e->text);
			return "NULL";
		}
		return xprintf("t_num(tc, %lld, %lld, TS_REAL)", n, d);
	}
	if (e->ty == T_INT)
		return xprintf("INT64_C(%s)", e->text);
	return strchr(e->text, '.') || strchr(e->text, 'e') || strchr(e->text, 'E') ? xprintf("%s", e->text)
	                                                                           : xprintf("%s.0", e->text);
}

/* Compiles e; in REF mode statements go to x->pre. */
static const char *
cx(Ctx *x, const Expr *e)
{
	int term = x->mode == M_TERM;
	const char *a, *b;
	switch (e->kind) {
	case E_NUM:
		return cx_num(x, e);
	case E_NAME:
		if (!term && e->ty == T_REAL && e->nk == N_SIZE)
			return xprintf("(double)%s", name_ref(x, e));
		return name_ref(x, e);
	case E_ELLIPSIS:
		die("ellipsis outside an index list");
	case E_ACCESS:
		if (term)
			return xprintf("%s_acc(tc, s, %d, idx, %s)", x->prefix, e->slot, fixed_indices(x, e));
		return xprintf("ax_read(&rp[%d], in[%d], oi, %s, &bad)", e->slot, e->slot, fixed_indices(x, e));
	case E_CALL:
		if (e->callk == 2 || e->callk == 3) {
			a = cx(x, e->args.v[0]);
			b = cx(x, e->args.v[1]);
			if (term)
				return xprintf("t_bin(tc, %s, %s, %s)", e->callk == 2 ? "TK_MAX" : "TK_MIN", a, b);
			if (e->ty == T_INT)
				return xprintf("ax_%s64(%s, %s)", e->callk == 2 ? "max" : "min", a, b);
			return xprintf("%s((double)(%s), (double)(%s))", e->callk == 2 ? "fmax" : "fmin", a, b);
		}
		if (e->callk == 1) {
			const char *en = x->enum_prefix_of_attr[e->slot];
			if (term)
				return xprintf("%s_term(tc, s->attr[%d], %s)", en, e->slot, args_list(x, &e->args, "Term *"));
			return xprintf("%s_ref(c->attr[%d], %s)", en, e->slot, args_list(x, &e->args, "double"));
		}
		if (term)
			return xprintf("t_call(tc, FN_%s, %d, %s)", e->name, e->args.n, args_list(x, &e->args, "Term *"));
		return xprintf("fn_%s_ref(%s)", e->name, args_list(x, &e->args, "double"));
	case E_NEG:
		a = cx(x, e->a);
		return term ? xprintf("t_neg(tc, %s)", a) : xprintf("(-%s)", a);
	case E_NOT:
		a = cx(x, e->a);
		return term ? xprintf("t_not(tc, %s)", a) : xprintf("(!%s)", a);
	case E_COND:
		if (term) {
			const char *c = cx(x, e->a);
			a = cx(x, e->b);
			b = cx(x, e->c);
			return xprintf("t_ite(tc, %s, %s, %s)", c, a, b);
		}
		return ref_cond(x, e);
	case E_RED:
		if (!term)
			return ref_red(x, e);
		{
			const char *lo = e->lo ? cx(x, e->lo) : "t_int(tc, 0)";
			const char *hi = cx(x, e->hi);
			if (e->red == R_FOLD) {
				const char *init = cx(x, e->init);
				const char *body = cx(x, e->body);
				return xprintf("(v[%d] = t_fresh(tc, TS_INT), v[%d] = t_fresh(tc, TS_REAL), "
				               "t_fold(tc, v[%d], %s, %s, v[%d], %s, %s))",
				               e->var_id, e->acc_id, e->var_id, lo, hi, e->acc_id, init, body);
			}
			const char *kind = e->callk == 1
			                       ? xprintf("%s_tk[s->attr[%d]]", x->enum_prefix_of_attr[e->slot], e->slot)
			                       : e->red == R_SUM ? "TK_SUM" : e->red == R_MAX ? "TK_RMAX" : "TK_RMIN";
			const char *body = cx(x, e->body);
			return xprintf("(v[%d] = t_fresh(tc, TS_INT), t_red(tc, %s, v[%d], %s, %s, %s))",
			               e->var_id, kind, e->var_id, lo, hi, body);
		}
	case E_BIN:
		a = cx(x, e->a);
		b = cx(x, e->b);
		if (term) {
			if (e->op == B_GT || e->op == B_GE)
				return xprintf("t_bin(tc, %s, %s, %s)", term_kind(e->op), b, a);
			return xprintf("t_bin(tc, %s, %s, %s)", term_kind(e->op), a, b);
		}
		if (e->ty == T_INT && e->op == B_DIV)
			return xprintf("ax_idiv(%s, %s)", a, b);
		if (e->op == B_MOD)
			return xprintf("ax_imod(%s, %s)", a, b);
		if (e->ty == T_REAL && (e->a->ty == T_INT))
			a = xprintf("(double)%s", a);
		if (e->ty == T_REAL && (e->b->ty == T_INT))
			b = xprintf("(double)%s", b);
		return xprintf("(%s %s %s)", a, binop_str(e->op), b);
	}
	die("bad expression kind");
}

const char *
compile_expr(Ctx *x, const Expr *e)
{
	return cx(x, e);
}
