/*
 * sema_expr.c — typing and name resolution of spec expressions.
 *
 * Gives every expression a type (integer, real or boolean), resolves each
 * name to what it refers to (size, index, bound variable, parameter,
 * attribute, engine), checks operand accesses against the operand patterns
 * and collects the granular operations an expression uses.  Chains of
 * comparisons (a <= b <= c) become conjunctions here.  Declarations are
 * checked in sema.c, which calls check_expr for each expression it holds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sema_expr.h"

static const char *cost_builtins[] = { "dtype_bytes", 0 };
static const char *
tyname(Ty t)
{
	return t == T_INT ? "integer" : t == T_REAL ? "real" : t == T_BOOL ? "boolean" : "untyped";
}

static void
add_gran(Scope *s, const char *g)
{
	s->value_ops++;
	if (find_str(&s->gran, g) < 0)
		list_push(&s->gran, (void *)g);
}


Attr *
find_attr(Decl *d, const char *name, int *slot)
{
	if (!d || (d->kind != D_OP && d->kind != D_INST))
		return NULL;
	for (int i = 0; i < d->attrs.n; i++) {
		Attr *a = d->attrs.v[i];
		if (strcmp(a->name, name) == 0) {
			if (slot)
				*slot = i;
			return a;
		}
	}
	return NULL;
}

int
find_operand(Decl *d, const char *name)
{
	for (int i = 0; d && (d->kind == D_OP || d->kind == D_INST) && i < d->operands.n; i++)
		if (strcmp(((Operand *)d->operands.v[i])->name, name) == 0)
			return i;
	return -1;
}

Ty
want(Expr *e, Ty got, Ty need, const char *what)
{
	if (got == T_NONE)
		return need;
	if (need == T_REAL && got == T_INT)
		return T_REAL;
	if (got != need)
		error_at(e->loc, "%s must be %s, got %s", what, tyname(need), tyname(got));
	return need;
}

/* index of an engine in declaration order (the bit of AxOp.engines) */
int
engine_index(Spec *spec, const char *name)
{
	int k = 0;
	for (int i = 0; spec->target && i < spec->target->decls.n; i++) {
		Decl *d = spec->target->decls.v[i];
		if (d->kind != D_ENGINE)
			continue;
		if (strcmp(d->name, name) == 0)
			return k;
		k++;
	}
	return -1;
}

static Ty
check_name(Scope *s, Expr *e)
{
	for (int i = s->bound.n - 1; i >= 0; i--)
		if (strcmp(s->bound.v[i], e->name) == 0) {
			e->nk = (NameKind)(intptr_t)s->bound_kind.v[i];
			e->slot = (int)(intptr_t)s->bound_ids.v[i];
			return e->nk == N_ACC ? T_REAL : T_INT;
		}
	int k;
	if ((k = find_str(&s->params, e->name)) >= 0) {
		e->nk = N_PARAM;
		e->slot = k;
		return T_REAL;
	}
	if ((k = find_str(&s->idx, e->name)) >= 0) {
		e->nk = N_INDEX;
		e->slot = k;
		return T_INT;
	}
	if (s->d && (s->d->kind == D_OP || s->d->kind == D_INST)) {
		if ((k = find_str(&s->d->syms, e->name)) >= 0) {
			e->nk = N_SIZE;
			e->slot = k;
			return T_INT;
		}
		Attr *a = find_attr(s->d, e->name, &k);
		if (a && a->kind == A_FLOAT && s->cx == CX_BODY) {
			e->nk = N_FATTR;
			e->slot = k;
			return T_REAL;
		}
		if (a && a->kind == A_ENUM) {
			error_at(e->loc, "attribute '%s' chooses among '%s' items: call it, e.g. %s(...)",
			         e->name, a->type, e->name);
			return T_NONE;
		}
		if (find_operand(s->d, e->name) >= 0) {
			error_at(e->loc, "operand '%s' used without indices", e->name);
			return T_NONE;
		}
	}
	if (s->cx == CX_COST && in_strv(cost_builtins, e->name)) {
		e->nk = N_BUILTIN;
		return T_INT;
	}
	if (s->cx == CX_COST && s->d && s->d->kind == D_INST && find_str(&s->d->groups, e->name) >= 0) {
		e->nk = N_GROUP;   /* an ellipsis group: the product of its dims */
		e->slot = find_str(&s->d->groups, e->name);
		return T_INT;
	}
	if ((s->cx == CX_COST || s->cx == CX_WHERE) && s->d && s->d->kind == D_INST) {
		if (strcmp(e->name, "engine") == 0) {
			e->nk = N_BUILTIN;
			return T_INT;
		}
		for (int i = 1; i < s->d->engines.n; i += 2)
			if (strcmp(s->d->engines.v[i], e->name) == 0) {
				e->nk = N_ENGINE;
				e->slot = engine_index(s->spec, e->name);
				return T_INT;
			}
	}
	{
		int slot;
		Attr *a = find_attr(s->d, e->name, &slot);
		if (a && a->kind == A_FLOAT) {
			error_at(e->loc, "float attribute '%s' may only appear in the element equation", e->name);
			return T_NONE;
		}
		if (s->spec && engine_index(s->spec, e->name) >= 0 && (s->cx == CX_WHERE || s->cx == CX_COST)) {
			error_at(e->loc, "engine '%s' is not one that '%s' runs on", e->name, s->d->name);
			return T_NONE;
		}
	}
	if (strcmp(e->name, "engine") == 0 && s->d && s->d->kind == D_OP)
		error_at(e->loc, "tensor ops run on no engine: 'engine' belongs in instruction constraints and costs");
	else if (s->cx == CX_WHERE && s->d && find_str(&s->d->groups, e->name) >= 0)
		error_at(e->loc, "'%s' is an ellipsis group: only a cost may name one (the product of its dims)", e->name);
	else if (s->cx == CX_WHERE)
		error_at(e->loc, "constraint on unknown size '%s'", e->name);
	else if (s->cx == CX_SHAPE)
		error_at(e->loc, "unknown size '%s' in the result shape", e->name);
	else if (s->cx == CX_COST)
		error_at(e->loc, "unknown size '%s' in the cost", e->name);
	else
		error_at(e->loc, "unknown name '%s'", e->name);
	return T_NONE;
}

static Ty
check_access(Scope *s, Expr *e)
{
	int k = find_operand(s->d, e->name);
	if (s->cx != CX_BODY || k < 0) {
		if (s->cx == CX_BODY)
			error_at(e->loc, "unknown operand '%s'", e->name);
		else
			error_at(e->loc, "tensor access '%s[...]' is only allowed in a body", e->name);
		for (int i = 0; i < e->args.n; i++)
			if (((Expr *)e->args.v[i])->kind != E_ELLIPSIS)
				check_expr(s, e->args.v[i]);
		return T_REAL;
	}
	e->slot = k;
	Operand *o = s->d->operands.v[k];
	if (e->args.n != o->dims.n) {
		error_at(e->loc, "operand '%s' has %d dims in its pattern, this access gives %d",
		         o->name, o->dims.n, e->args.n);
		note_at(o->loc, "'%s' declared here", o->name);
	}
	for (int i = 0; i < e->args.n; i++) {
		Expr *a = e->args.v[i];
		Dim *dm = i < o->dims.n ? o->dims.v[i] : NULL;
		if (a->kind == E_ELLIPSIS) {
			if (dm && (!dm->ellipsis || strcmp(dm->group, a->name) != 0))
				error_at(a->loc, "'...%s' does not stand at a '...%s' position of operand '%s'",
				         a->name, a->name, o->name);
			continue;
		}
		if (dm && dm->ellipsis)
			error_at(a->loc, "operand '%s' has group '...%s' at position %d", o->name, dm->group, i);
		want(a, check_expr(s, a), T_INT, "an index expression");
	}
	return T_REAL;
}

static Ty
check_call(Scope *s, Expr *e)
{
	enum { MAXARGS = 16 };   /* as t_call in runtime/term.c */
	Ty at[MAXARGS];
	int n = e->args.n;
	for (int i = 0; i < n; i++) {
		Ty t = check_expr(s, e->args.v[i]);
		if (i < MAXARGS)
			at[i] = t;
	}
	if (n > MAXARGS) {
		error_at(e->loc, "'%s' is called with %d arguments; at most %d", e->name, n, MAXARGS);
		return T_REAL;
	}
	if (strcmp(e->name, "max") == 0 || strcmp(e->name, "min") == 0) {
		e->callk = e->name[1] == 'a' ? 2 : 3;
		if (n != 2) {
			error_at(e->loc, "'%s' takes 2 arguments, got %d", e->name, n);
			return T_REAL;
		}
		Ty t = (at[0] == T_INT && at[1] == T_INT) ? T_INT : T_REAL;
		for (int i = 0; i < 2; i++)
			want(e->args.v[i], at[i], t, "an argument of max/min");
		if (t == T_REAL)
			add_gran(s, e->callk == 2 ? "binary-max" : "binary-min");
		return t;
	}
	int slot;
	Attr *a = find_attr(s->d, e->name, &slot);
	if (a && a->kind == A_ENUM && s->cx == CX_BODY) {
		Decl *en = find_decl(s->spec, D_ENUM, a->type);
		e->callk = 1;
		e->slot = slot;
		if (!en)
			return T_REAL;
		if (en->params.n == 0) {
			error_at(e->loc, "attribute '%s' chooses a reduction: write %s(expr for k < N)", e->name, e->name);
			return T_REAL;
		}
		if (n != en->params.n)
			error_at(e->loc, "'%s' (enum %s) takes %d argument%s, got %d", e->name, en->name,
			         en->params.n, en->params.n == 1 ? "" : "s", n);
		for (int i = 0; i < n; i++)
			want(e->args.v[i], at[i], T_REAL, "an argument");
		for (int i = 0; i < en->gran.n; i++)
			add_gran(s, en->gran.v[i]);
		return T_REAL;
	}
	Decl *f = find_decl(s->spec, D_FN, e->name);
	if (!f) {
		if (find_decl(s->spec, D_OP, e->name) || find_decl(s->spec, D_INST, e->name))
			error_at(e->loc, "'%s' is a tensor operation, not a scalar fn", e->name);
		else
			error_at(e->loc, "unknown function '%s'", e->name);
		return T_REAL;
	}
	e->callk = 0;
	if (n != f->params.n) {
		error_at(e->loc, "fn '%s' takes %d argument%s, got %d", f->name, f->params.n,
		         f->params.n == 1 ? "" : "s", n);
		note_at(f->nloc, "'%s' declared here", f->name);
	}
	for (int i = 0; i < n; i++)
		want(e->args.v[i], at[i], T_REAL, "an argument");
	add_gran(s, f->name);
	for (int i = 0; i < f->gran.n; i++)   /* a defined fn brings what its definition computes */
		add_gran(s, f->gran.v[i]);
	return T_REAL;
}

int next_var_id;

/* A name bound by a reduction must be new in its scope. */
static void
shadow_check(Scope *s, const char *name, Loc loc, const char *what)
{
	const char *other = NULL;
	if (find_str(&s->idx, name) >= 0)
		other = "an out index";
	else if (s->d && find_str(&s->d->syms, name) >= 0)
		other = "a size";
	else if (find_str(&s->bound, name) >= 0)
		other = "an enclosing reduction's name";
	else if (find_operand(s->d, name) >= 0)
		other = "an operand";
	else if (find_attr(s->d, name, NULL))
		other = "an attribute";
	if (other)
		error_at(loc, "%s '%s' shadows %s of the same name", what, name, other);
}

static Ty
check_red(Scope *s, Expr *e)
{
	static const char *kinds[] = { "sum", "max", "min", "fold" };
	int slot = -1;
	e->red = R_SUM;
	int found = 0;
	for (int i = 0; i < 4; i++)
		if (strcmp(e->name, kinds[i]) == 0) {
			e->red = (RedKind)i;
			found = 1;
		}
	Attr *a = found ? NULL : find_attr(s->d, e->name, &slot);
	Decl *en = a && a->kind == A_ENUM ? find_decl(s->spec, D_ENUM, a->type) : NULL;
	if (!found && !en) {
		error_at(e->loc, "unknown reduction '%s' (expected sum, max, min, fold or a reduction attribute)", e->name);
	} else if (en) {
		if (en->params.n != 0)
			error_at(e->loc, "attribute '%s' chooses among the values of enum '%s', not a reduction", e->name, en->name);
		e->red = R_SUM;
		e->callk = 1;
		e->slot = slot;
		for (int i = 0; i < en->gran.n; i++)
			add_gran(s, en->gran.v[i]);
	} else {
		static const char *g[] = { "sum-reduce", "max-reduce", "min-reduce", "fold" };
		add_gran(s, g[e->red]);
	}
	if (s->cx != CX_BODY)
		error_at(e->loc, "reductions are only allowed in an element equation");
	if (e->lo)
		want(e->lo, check_expr(s, e->lo), T_INT, "a reduction bound");
	want(e->hi, check_expr(s, e->hi), T_INT, "a reduction bound");
	shadow_check(s, e->var, e->varloc, "reduction index");
	if (e->acc) {
		if (strcmp(e->acc, e->var) == 0)
			error_at(e->accloc, "accumulator '%s' has the name of its reduction index", e->acc);
		else
			shadow_check(s, e->acc, e->accloc, "accumulator");
	}
	if (e->red == R_FOLD && !e->acc)
		error_at(e->loc, "fold needs an accumulator: fold(body for k < N, acc = init)");
	if (e->red != R_FOLD && e->acc)
		error_at(e->loc, "only fold takes an accumulator");
	if (e->init)
		want(e->init, check_expr(s, e->init), T_REAL, "a fold's initial value");
	e->var_id = next_var_id++;
	list_push(&s->bound, (void *)e->var);
	list_push(&s->bound_ids, (void *)(intptr_t)e->var_id);
	list_push(&s->bound_kind, (void *)(intptr_t)N_BOUND);
	int pushed = 1;
	if (e->acc) {
		e->acc_id = next_var_id++;
		list_push(&s->bound, (void *)e->acc);
		list_push(&s->bound_ids, (void *)(intptr_t)e->acc_id);
		list_push(&s->bound_kind, (void *)(intptr_t)N_ACC);
		pushed++;
	}
	want(e->body, check_expr(s, e->body), T_REAL, "a reduction body");
	s->bound.n -= pushed;
	s->bound_ids.n -= pushed;
	s->bound_kind.n -= pushed;
	return T_REAL;
}

int
is_cmp(BinOp op)
{
	return op >= B_LT && op <= B_NE;
}

Ty
check_expr(Scope *s, Expr *e)
{
	Ty ta, tb, tc;
	switch (e->kind) {
	case E_NUM:
		for (const char *p = e->text; *p; p++)
			if ((*p >= 'A' && *p <= 'Z' && *p != 'E') || (*p >= 'a' && *p <= 'z' && *p != 'e') || *p == '/') {
				error_at(e->loc, "'%s': a number with a unit belongs in an engine or memory property", e->text);
				break;
			}
		if (e->is_int && (strlen(e->text) > 18 || e->num > 9e17)) {
			error_at(e->loc, "integer literal %s is too large", e->text);
			e->is_int = 0;
		}
		return e->ty = e->is_int ? T_INT : T_REAL;
	case E_NAME:
		return e->ty = check_name(s, e);
	case E_ELLIPSIS:
		error_at(e->loc, "'...' is only allowed as an index");
		return e->ty = T_NONE;
	case E_ACCESS:
		return e->ty = check_access(s, e);
	case E_CALL:
		return e->ty = check_call(s, e);
	case E_RED:
		return e->ty = check_red(s, e);
	case E_NEG:
		ta = check_expr(s, e->a);
		if (ta == T_BOOL) {
			error_at(e->loc, "cannot negate a boolean (use '!')");
			return e->ty = T_NONE;
		}
		if (ta == T_REAL)
			add_gran(s, "negate");
		return e->ty = ta;
	case E_NOT:
		ta = check_expr(s, e->a);
		if (ta != T_BOOL && ta != T_NONE) {
			error_at(e->a->loc, "the operand of '!' must be boolean, got %s", tyname(ta));
			return e->ty = T_NONE;
		}
		return e->ty = T_BOOL;
	case E_COND:
		want(e->a, check_expr(s, e->a), T_BOOL, "a condition");
		tb = check_expr(s, e->b);
		tc = check_expr(s, e->c);
		if (tb == T_BOOL || tc == T_BOOL)
			error_at(e->loc, "the branches of '?:' must be numbers");
		if (e->a->ty == T_BOOL && e->a->kind == E_BIN && is_cmp(e->a->op) && e->a->a->ty == T_REAL)
			add_gran(s, "select");
		return e->ty = (tb == T_REAL || tc == T_REAL) ? T_REAL : T_INT;
	case E_BIN:
		/* a <= b <= c: a chain of comparisons means a <= b && b <= c */
		if (is_cmp(e->op) && e->a->kind == E_BIN && is_cmp(e->a->op) && !e->a->paren) {
			Expr *left = e->a;
			Expr *mid = left->b;   /* the last operand of the chain so far */
			check_expr(s, left);
			Expr *right = new_bin(e->op, mid, e->b, e->loc);
			tb = check_expr(s, e->b);
			right->ty = T_BOOL;
			if (tb == T_BOOL)
				error_at(e->b->loc, "cannot compare booleans");
			e->op = B_AND;
			e->b = right;
			return e->ty = T_BOOL;
		}
		ta = check_expr(s, e->a);
		tb = check_expr(s, e->b);
		if (e->op == B_AND || e->op == B_OR) {
			want(e->a, ta, T_BOOL, "an operand of '&&'/'||'");
			want(e->b, tb, T_BOOL, "an operand of '&&'/'||'");
			return e->ty = T_BOOL;
		}
		if (ta == T_BOOL || tb == T_BOOL) {
			error_at(e->loc, "operator '%s' does not take booleans", binop_str(e->op));
			return e->ty = is_cmp(e->op) ? T_BOOL : T_INT;
		}
		if (is_cmp(e->op)) {
			if (ta == T_REAL || tb == T_REAL)
				add_gran(s, "cmp");
			return e->ty = T_BOOL;
		}
		if (e->op == B_MOD) {
			want(e->a, ta, T_INT, "an operand of '%'");
			want(e->b, tb, T_INT, "an operand of '%'");
			return e->ty = T_INT;
		}
		if (ta == T_INT && tb == T_INT)
			return e->ty = T_INT;
		{
			static const char *g[] = { [B_ADD] = "+", [B_SUB] = "-", [B_MUL] = "*", [B_DIV] = "/" };
			add_gran(s, g[e->op]);
		}
		return e->ty = T_REAL;
	}
	die("bad expression kind %d", e->kind);
}
