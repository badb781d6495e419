/*
 * sema.c — semantic analysis of the spec language.
 *
 * Resolves every name (size symbols, index variables, operands, attributes,
 * fns, enums, engines, memories), gives every expression a type (int, real or
 * bool), checks that declarations agree with each other, and derives the
 * properties the engines query: the granular operations an op uses, whether it
 * only moves data, its ellipsis groups.  Errors are collected (diag.c caps
 * them); nothing is generated unless sema finishes with none.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ast.h"

/* C math functions a `ref` may name, with their arity. */
static const struct { const char *name; int arity; } libm[] = {
	{ "expf", 1 }, { "logf", 1 }, { "sqrtf", 1 }, { "tanhf", 1 }, { "erff", 1 },
	{ "fabsf", 1 }, { "sinf", 1 }, { "cosf", 1 }, { "atanf", 1 }, { "log1pf", 1 },
	{ "expm1f", 1 }, { "powf", 2 }, { "fmaxf", 2 }, { "fminf", 2 },
};

/* Kernel skeleton templates a target may declare, and their placeholders.
 * The NKI emitter ([5/7]) fills them; axgen checks them here. */
static const struct { const char *name; const char *holes; } skeletons[] = {
	{ "header", "target" },
	{ "kernel", "name params body outputs" },
	{ "param", "name shape dtype" },
	{ "buffer", "name shape dtype memory partitions" },
	{ "loop_parallel", "var lo hi step body" },
	{ "loop_sequential", "var lo hi step body" },
	{ "load", "dst src memory" },
	{ "store", "dst src" },
	{ "accumulate", "dst src" },
	{ "zeros", "name shape dtype memory" },
	{ "return", "outputs" },
};

static const char *engine_props[] = { "clock", "queues", "bandwidth", "latency", "transfers", 0 };
static const char *memory_props[] = { "partitions", "bytes", "banks", "bandwidth", "offchip", 0 };
static const char *cost_builtins[] = { "dtype_bytes", 0 };

int
find_str(const List *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return i;
	return -1;
}

static int
in_strv(const char *const *v, const char *s)
{
	for (int i = 0; v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

static int
holes_contain(const char *holes, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = holes; *p;) {
		size_t w = strcspn(p, " ");
		if (w == n && strncmp(p, name, n) == 0)
			return 1;
		p += w;
		p += strspn(p, " ");
	}
	return 0;
}

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

/* ---- expression checking ------------------------------------------------ */

typedef enum { CX_FN, CX_AXIOM, CX_ENUM, CX_BODY, CX_SHAPE, CX_WHERE, CX_COST, CX_DEFAULT } Cx;

typedef struct Scope {
	Spec *spec;
	Decl *d;           /* the declaration being checked */
	Cx cx;
	List params;       /* fn/enum/axiom parameters */
	List idx;          /* output index names */
	List bound;        /* reduction vars and accumulators in scope, innermost last */
	List bound_ids;    /* parallel to bound: (intptr_t) ids */
	List bound_kind;   /* parallel: (intptr_t) N_BOUND or N_ACC */
	List gran;         /* granular operations seen */
	int value_ops;     /* number of value computations (not layout) */
} Scope;

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

static Ty check_expr(Scope *s, Expr *e);

static Attr *
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

static int
find_operand(Decl *d, const char *name)
{
	for (int i = 0; d && (d->kind == D_OP || d->kind == D_INST) && i < d->operands.n; i++)
		if (strcmp(((Operand *)d->operands.v[i])->name, name) == 0)
			return i;
	return -1;
}

static Ty
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
static int
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
	if (s->cx == CX_WHERE || s->cx == CX_SHAPE || s->cx == CX_COST)
		error_at(e->loc, "constraint on unknown size '%s'", e->name);
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
	Ty at[16];
	int n = e->args.n;
	for (int i = 0; i < n && i < 16; i++)
		at[i] = check_expr(s, e->args.v[i]);
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
			add_gran(s, e->name);
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
		for (int i = 0; i < n && i < 16; i++)
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
	for (int i = 0; i < n && i < 16; i++)
		want(e->args.v[i], at[i], T_REAL, "an argument");
	add_gran(s, f->name);
	return T_REAL;
}

static int next_var_id;

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
			error_at(e->loc, "attribute '%s' is a '%s' (a value function), not a reduction", e->name, en->name);
		e->red = R_SUM;
		e->callk = 1;
		e->slot = slot;
		for (int i = 0; i < en->gran.n; i++)
			add_gran(s, en->gran.v[i]);
	} else {
		static const char *g[] = { "sum", "rmax", "rmin", "fold" };
		add_gran(s, g[e->red]);
	}
	if (s->cx != CX_BODY && s->cx != CX_FN)
		error_at(e->loc, "reductions are only allowed in a body");
	if (e->lo)
		want(e->lo, check_expr(s, e->lo), T_INT, "a reduction bound");
	want(e->hi, check_expr(s, e->hi), T_INT, "a reduction bound");
	if (find_str(&s->idx, e->var) >= 0 || (s->d && find_str(&s->d->syms, e->var) >= 0) ||
	    find_str(&s->bound, e->var) >= 0)
		error_at(e->loc, "reduction index '%s' shadows another name", e->var);
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

static int
is_cmp(BinOp op)
{
	return op >= B_LT && op <= B_NE;
}

static Ty
check_expr(Scope *s, Expr *e)
{
	Ty ta, tb, tc;
	switch (e->kind) {
	case E_NUM:
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
		if (ta == T_BOOL)
			error_at(e->loc, "cannot negate a boolean");
		if (ta == T_REAL)
			add_gran(s, "neg");
		return e->ty = ta;
	case E_NOT:
		want(e->a, check_expr(s, e->a), T_BOOL, "the operand of '!'");
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
			static const char *g[] = { [B_ADD] = "add", [B_SUB] = "sub", [B_MUL] = "mul", [B_DIV] = "div" };
			add_gran(s, g[e->op]);
		}
		return e->ty = T_REAL;
	}
	die("bad expression kind %d", e->kind);
}

/* ---- declarations ------------------------------------------------------- */

static void
check_fn(Spec *spec, Decl *d)
{
	Scope s = { .spec = spec, .d = d, .cx = CX_FN };
	for (int i = 0; i < d->params.n; i++) {
		if (find_str(&s.params, d->params.v[i]) >= 0)
			error_at(d->nloc, "parameter '%s' of fn '%s' declared twice", (char *)d->params.v[i], d->name);
		list_push(&s.params, d->params.v[i]);
	}
	if (d->def) {
		want(d->def, check_expr(&s, d->def), T_REAL, "a fn definition");
		d->gran = s.gran;
	}
	if (d->ref) {
		int ok = 0;
		for (size_t i = 0; i < sizeof libm / sizeof libm[0]; i++)
			if (strcmp(libm[i].name, d->ref) == 0) {
				ok = 1;
				if (libm[i].arity != d->params.n)
					error_at(d->refloc, "ref \"%s\" takes %d argument%s but fn '%s' has %d", d->ref,
					         libm[i].arity, libm[i].arity == 1 ? "" : "s", d->name, d->params.n);
			}
		if (!ok)
			error_at(d->refloc, "ref \"%s\" is not a known C math function", d->ref);
	}
	if (!d->def && !d->ref)
		error_at(d->nloc, "fn '%s' has neither a definition nor a ref: reference kernels cannot compute it", d->name);
}

/* A fn definition may not reach itself through other definitions. */
static int
fn_reaches(Spec *spec, Expr *e, const char *target, int depth)
{
	if (!e || depth > 64)
		return depth > 64;
	if (e->kind == E_CALL && e->callk == 0) {
		if (strcmp(e->name, target) == 0)
			return 1;
		Decl *f = find_decl(spec, D_FN, e->name);
		if (f && f->def && fn_reaches(spec, f->def, target, depth + 1))
			return 1;
	}
	for (int i = 0; i < e->args.n; i++)
		if (fn_reaches(spec, e->args.v[i], target, depth))
			return 1;
	return fn_reaches(spec, e->a, target, depth) || fn_reaches(spec, e->b, target, depth) ||
	       fn_reaches(spec, e->c, target, depth) || fn_reaches(spec, e->body, target, depth);
}

static void
check_axiom(Spec *spec, Decl *d)
{
	Scope s = { .spec = spec, .d = d, .cx = CX_AXIOM };
	for (int i = 0; i < d->params.n; i++)
		list_push(&s.params, d->params.v[i]);
	want(d->def, check_expr(&s, d->def), T_BOOL, "an axiom");
	if (s.gran.n == 0)
		error_at(d->loc, "axiom mentions no fn");
	d->gran = s.gran;
}

static void
check_enum(Spec *spec, Decl *d)
{
	List seen = { 0 };
	for (int i = 0; i < d->items.n; i++) {
		EnumItem *it = d->items.v[i];
		if (find_str(&seen, it->name) >= 0)
			error_at(it->loc, "item '%s' appears twice in enum '%s'", it->name, d->name);
		list_push(&seen, (void *)it->name);
		if (d->params.n == 0) {
			static const char *reds[] = { "sum", "max", "min", 0 };
			static const char *gran[] = { "sum", "rmax", "rmin" };
			if (it->sem->kind != E_NAME || !in_strv(reds, it->sem->name)) {
				error_at(it->sem->loc, "item '%s' of reduction enum '%s' must be sum, max or min", it->name, d->name);
				continue;
			}
			for (int k = 0; k < 3; k++)
				if (strcmp(reds[k], it->sem->name) == 0 && find_str(&d->gran, gran[k]) < 0)
					list_push(&d->gran, (void *)gran[k]);
			continue;
		}
		Scope s = { .spec = spec, .d = d, .cx = CX_ENUM };
		for (int k = 0; k < d->params.n; k++)
			list_push(&s.params, d->params.v[k]);
		want(it->sem, check_expr(&s, it->sem), T_REAL, "an enum item's semantics");
		for (int k = 0; k < s.gran.n; k++)
			if (find_str(&d->gran, s.gran.v[k]) < 0)
				list_push(&d->gran, s.gran.v[k]);
	}
	list_sort_str(&d->gran);
}

static void
bind_group(Decl *d, Dim *dm)
{
	if (find_str(&d->groups, dm->group) < 0)
		list_push(&d->groups, (void *)dm->group);
}

static void
check_template_holes(Decl *d, const char *str, Loc loc, const char *holes, const char *what)
{
	for (const char *p = str; (p = strchr(p, '{')) != NULL; p++) {
		const char *q = strchr(p, '}');
		if (!q) {
			error_at(loc, "unclosed '{' in %s", what);
			return;
		}
		char *name = xstrndup(p + 1, (size_t)(q - p - 1));
		int ok;
		if (holes)
			ok = holes_contain(holes, name);
		else
			ok = find_operand(d, name) >= 0 || find_attr(d, name, NULL) || strcmp(name, "engine") == 0 ||
			     strcmp(name, "out") == 0 || strcmp(name, "dtype") == 0;
		if (!ok) {
			if (holes)
				error_at(loc, "%s has unknown placeholder '{%s}' (allowed: %s)", what, name, holes);
			else
				error_at(loc, "emit template names unknown operand or attribute '{%s}'", name);
		}
		p = q;
	}
}

static void
check_opinst(Spec *spec, Decl *d)
{
	int inst = d->kind == D_INST;
	Scope s = { .spec = spec, .d = d, .cx = CX_SHAPE };
	List opnames = { 0 };

	/* operands: patterns bind size symbols and ellipsis groups */
	for (int i = 0; i < d->operands.n; i++) {
		Operand *o = d->operands.v[i];
		if (find_str(&opnames, o->name) >= 0)
			error_at(o->loc, "operand '%s' declared twice", o->name);
		list_push(&opnames, (void *)o->name);
		if (inst && o->mems.n == 0)
			error_at(o->loc, "operand '%s' of instruction '%s' needs a memory (e.g. %s: sbuf[P, F])",
			         o->name, d->name, o->name);
		if (!inst && o->mems.n)
			error_at(o->loc, "operand '%s': memories belong to instructions, not tensor ops", o->name);
		for (int k = 0; k < o->mems.n; k++)
			if (!find_decl(spec, D_MEMORY, o->mems.v[k]))
				error_at(o->loc, "unknown memory '%s' for operand '%s'", (char *)o->mems.v[k], o->name);
		int npar = 0, ngroups = 0;
		for (int k = 0; k < o->dims.n; k++) {
			Dim *dm = o->dims.v[k];
			if (dm->ellipsis) {
				ngroups++;
				for (int j = 0; j < k; j++)
					if (((Dim *)o->dims.v[j])->ellipsis &&
					    strcmp(((Dim *)o->dims.v[j])->group, dm->group) == 0)
						error_at(dm->loc, "group '...%s' appears twice in operand '%s'", dm->group, o->name);
				bind_group(d, dm);
				continue;
			}
			if (dm->par) {
				npar++;
				if (!inst)
					error_at(dm->loc, "'par' marks the partition axis of an instruction operand; tensor ops have none");
			}
			Expr *e = dm->e;
			if (e->kind == E_NUM && e->is_int) {
				e->ty = T_INT;
				continue;
			}
			if (e->kind != E_NAME) {
				error_at(e->loc, "an operand pattern holds size names or integers, not expressions");
				continue;
			}
			if (find_str(&d->syms, e->name) < 0) {
				list_push(&d->syms, (void *)e->name);
				Loc *l = xalloc(sizeof *l);
				*l = e->loc;
				list_push(&d->symlocs, l);
			}
			e->nk = N_SIZE;
			e->slot = find_str(&d->syms, e->name);
			e->ty = T_INT;
		}
		if (npar > 1)
			error_at(o->loc, "operand '%s' has %d partition axes; at most one", o->name, npar);
		if (d->broadcast && (ngroups != 1 || !((Dim *)o->dims.v[0])->ellipsis))
			error_at(o->loc, "a broadcast op's operands start with one '...' group ('%s' does not)", o->name);
		if (o->defval) {
			Expr *v = o->defval;
			int neg = v->kind == E_NEG;
			if ((neg ? v->a : v)->kind != E_NUM)
				error_at(v->loc, "the default of operand '%s' must be a number", o->name);
			else
				v->ty = T_REAL;
		}
	}
	/* attributes */
	for (int i = 0; i < d->attrs.n; i++) {
		Attr *a = d->attrs.v[i];
		if (find_str(&opnames, a->name) >= 0 || find_str(&d->syms, a->name) >= 0)
			error_at(a->loc, "attribute '%s' has the name of an operand or size", a->name);
		for (int k = 0; k < i; k++)
			if (strcmp(((Attr *)d->attrs.v[k])->name, a->name) == 0)
				error_at(a->loc, "attribute '%s' declared twice", a->name);
		if (a->kind == A_ENUM) {
			Decl *en = find_decl(spec, D_ENUM, a->type);
			if (!en)
				error_at(a->tloc, "unknown enum '%s' for attribute '%s'", a->type, a->name);
		} else if (a->kind == A_SIZE) {
			list_push(&d->syms, (void *)a->name);
			Loc *l = xalloc(sizeof *l);
			*l = a->loc;
			list_push(&d->symlocs, l);
		}
	}
	/* engines and memories of the result */
	if (inst) {
		if (d->engines.n == 0)
			error_at(d->nloc, "instruction '%s' runs on no engine (add: on ENGINE)", d->name);
		for (int i = 0; i + 1 < d->engines.n; i += 2) {
			Loc *l = d->engines.v[i];
			const char *en = d->engines.v[i + 1];
			if (!find_decl(spec, D_ENGINE, en))
				error_at(*l, "unknown engine '%s'", en);
		}
		for (int k = 0; k < d->outmems.n; k++)
			if (!find_decl(spec, D_MEMORY, d->outmems.v[k]))
				error_at(d->nloc, "unknown memory '%s' for the result of '%s'", (char *)d->outmems.v[k], d->name);
		if (!d->cost)
			error_at(d->nloc, "instruction '%s' has no cost term", d->name);
	}
	/* result shape */
	int out_par = 0;
	for (int i = 0; i < d->out.n; i++) {
		Dim *dm = d->out.v[i];
		if (dm->ellipsis) {
			if (find_str(&d->groups, dm->group) < 0)
				error_at(dm->loc, "group '...%s' of the result is not bound by any operand", dm->group);
			continue;
		}
		if (dm->par && !inst)
			error_at(dm->loc, "'par' marks the partition axis of an instruction operand; tensor ops have none");
		out_par += dm->par;
		want(dm->e, check_expr(&s, dm->e), T_INT, "a result dimension");
	}
	if (d->broadcast && (d->out.n == 0 || !((Dim *)d->out.v[0])->ellipsis))
		error_at(d->nloc, "a broadcast op's result starts with its '...' group");
	for (int i = 0; i < d->groups.n; i++) {
		int used = 0;
		for (int k = 0; k < d->out.n; k++)
			if (((Dim *)d->out.v[k])->ellipsis && strcmp(((Dim *)d->out.v[k])->group, d->groups.v[i]) == 0)
				used = 1;
		if (!used)
			error_at(d->nloc, "group '...%s' of the operands does not appear in the result of '%s'",
			         (char *)d->groups.v[i], d->name);
	}
	/* preconditions and hardware constraints */
	s.cx = CX_WHERE;
	for (int i = 0; i < d->where.n; i++) {
		Expr *w = d->where.v[i];
		want(w, check_expr(&s, w), T_BOOL, "a constraint");
	}
	if (d->cost) {
		s.cx = CX_COST;
		Ty t = check_expr(&s, d->cost);
		if (t == T_BOOL)
			error_at(d->cost->loc, "a cost term must be a number");
	}
	/* body */
	for (int i = 0; i < d->body.n; i++) {
		Stmt *st = d->body.v[i];
		if (st->is_emit) {
			if (d->emit)
				error_at(st->loc, "second emit template for '%s'", d->name);
			d->emit = st->str;
			check_template_holes(d, st->str, st->loc, NULL, "emit template");
			continue;
		}
		if (d->out_stmt) {
			error_at(st->loc, "'%s' already defines its result; one element equation per declaration", d->name);
			continue;
		}
		d->out_stmt = st;
		if (strcmp(st->lhs, "out") != 0)
			error_at(st->loc, "the element equation defines 'out[...]', not '%s[...]'", st->lhs);
		if (st->lhs_idx.n != d->out.n)
			error_at(st->loc, "out has %d indices but the result has rank %d", st->lhs_idx.n, d->out.n);
		Scope b = { .spec = spec, .d = d, .cx = CX_BODY };
		for (int k = 0; k < st->lhs_idx.n; k++) {
			Expr *ix = st->lhs_idx.v[k];
			Dim *dm = k < d->out.n ? d->out.v[k] : NULL;
			if (ix->kind == E_ELLIPSIS) {
				if (dm && (!dm->ellipsis || strcmp(dm->group, ix->name) != 0))
					error_at(ix->loc, "out index %d is '...%s' but the result has %s there", k, ix->name,
					         dm->ellipsis ? "another group" : "a named dim");
				list_push(&b.idx, "");
				continue;
			}
			if (ix->kind != E_NAME) {
				error_at(ix->loc, "out indices are fresh names, one per result dim");
				list_push(&b.idx, "");
				continue;
			}
			if (dm && dm->ellipsis)
				error_at(ix->loc, "out index %d is '%s' but the result has group '...%s' there", k, ix->name, dm->group);
			if (find_str(&b.idx, ix->name) >= 0 || find_str(&d->syms, ix->name) >= 0 ||
			    find_operand(d, ix->name) >= 0)
				error_at(ix->loc, "out index '%s' is already a name here", ix->name);
			ix->nk = N_INDEX;
			ix->slot = k;
			ix->ty = T_INT;
			list_push(&b.idx, (void *)ix->name);
		}
		next_var_id = 0;
		want(st->rhs, check_expr(&b, st->rhs), T_REAL, "an element equation");
		d->nvars = next_var_id;
		list_sort_str(&b.gran);
		d->gran = b.gran;
		d->layout_only = b.value_ops == 0;
	}
	if (!d->out_stmt)
		error_at(d->nloc, "'%s' has no element equation (out[...] = ...)", d->name);
	if (inst && !d->emit)
		error_at(d->nloc, "instruction '%s' has no emit template", d->name);
	(void)out_par;
}

static void
check_props(Decl *d, const char *const *allowed)
{
	for (int i = 0; i < d->props.n; i++) {
		Prop *p = d->props.v[i];
		if (!in_strv(allowed, p->name))
			error_at(p->loc, "unknown property '%s' of %s '%s'", p->name,
			         d->kind == D_ENGINE ? "engine" : "memory", d->name);
		for (int k = 0; k < i; k++)
			if (strcmp(((Prop *)d->props.v[k])->name, p->name) == 0)
				error_at(p->loc, "property '%s' given twice", p->name);
		int flag = strcmp(p->name, "transfers") == 0 || strcmp(p->name, "offchip") == 0;
		if (flag && p->has_value)
			error_at(p->loc, "'%s' is a flag and takes no value", p->name);
		if (!flag && !p->has_value && in_strv(allowed, p->name))
			error_at(p->loc, "property '%s' needs a value", p->name);
	}
}

static void
check_target(Spec *spec, Decl *t)
{
	for (int i = 0; i < t->decls.n; i++) {
		Decl *d = t->decls.v[i];
		for (int k = 0; k < i; k++) {
			Decl *p = t->decls.v[k];
			if (p->kind == d->kind && strcmp(p->name, d->name) == 0) {
				error_at(d->nloc, "redefinition of %s '%s'", d->kind == D_ENGINE ? "engine" :
				         d->kind == D_MEMORY ? "memory" : "template", d->name);
				note_at(p->nloc, "previous definition is here");
			}
		}
		if (d->kind == D_ENGINE)
			check_props(d, engine_props);
		else if (d->kind == D_MEMORY)
			check_props(d, memory_props);
		else if (d->kind == D_TEMPLATE) {
			const char *holes = NULL;
			for (size_t k = 0; k < sizeof skeletons / sizeof skeletons[0]; k++)
				if (strcmp(skeletons[k].name, d->name) == 0)
					holes = skeletons[k].holes;
			if (!holes) {
				error_at(d->nloc, "unknown kernel template '%s'", d->name);
				continue;
			}
			check_template_holes(d, d->str, d->sloc, holes, xprintf("template '%s'", d->name));
		}
	}
	int nengines = 0, nmem = 0;
	for (int i = 0; i < t->decls.n; i++) {
		nengines += ((Decl *)t->decls.v[i])->kind == D_ENGINE;
		nmem += ((Decl *)t->decls.v[i])->kind == D_MEMORY;
	}
	if (!nengines)
		error_at(t->nloc, "target '%s' declares no engine", t->name);
	if (!nmem)
		error_at(t->nloc, "target '%s' declares no memory", t->name);
	(void)spec;
}

static const char *
kind_name(DeclKind k)
{
	static const char *s[] = { "fn", "axiom", "enum", "op", "inst", "engine", "memory", "template", "target" };
	return s[k];
}

/* fns, enums, tensor ops and instructions are four namespaces: the scalar fn
 * exp, the tensor op exp and an instruction reciprocal next to the op
 * reciprocal are different things. */
static int
namespace_of(DeclKind k)
{
	return (int)k;
}

void
sema(Spec *spec)
{
	/* one target block, then one namespace for fn, enum, op and inst */
	for (int i = 0; i < spec->decls.n; i++) {
		Decl *d = spec->decls.v[i];
		if (d->kind != D_TARGET)
			continue;
		if (spec->target) {
			error_at(d->nloc, "second target '%s'; a target directory describes one target", d->name);
			note_at(spec->target->nloc, "first target is here");
		} else
			spec->target = d;
	}
	if (!spec->target && !spec->check_only)
		error_at((Loc){ 0 }, "no target block found in %s", spec->target_dir ? spec->target_dir : "the inputs");
	for (int i = 0; i < spec->decls.n; i++) {
		Decl *d = spec->decls.v[i];
		if (d->kind == D_TARGET || d->kind == D_AXIOM)
			continue;
		for (int k = 0; k < i; k++) {
			Decl *p = spec->decls.v[k];
			if (p->kind == D_TARGET || p->kind == D_AXIOM || strcmp(p->name, d->name) != 0 ||
			    namespace_of(p->kind) != namespace_of(d->kind))
				continue;
			error_at(d->nloc, "redefinition of '%s' (%s)", d->name, kind_name(d->kind));
			note_at(p->nloc, "previous definition (%s) is here", kind_name(p->kind));
			break;
		}
	}
	if (spec->target)
		check_target(spec, spec->target);
	for (int i = 0; i < spec->decls.n; i++) {
		Decl *d = spec->decls.v[i];
		if (d->kind == D_FN)
			check_fn(spec, d);
	}
	for (int i = 0; i < spec->decls.n; i++) {
		Decl *d = spec->decls.v[i];
		if (d->kind == D_FN && d->def && fn_reaches(spec, d->def, d->name, 0))
			error_at(d->nloc, "fn '%s' is defined in terms of itself", d->name);
	}
	for (int i = 0; i < spec->decls.n; i++) {
		Decl *d = spec->decls.v[i];
		if (d->kind == D_AXIOM)
			check_axiom(spec, d);
		else if (d->kind == D_ENUM)
			check_enum(spec, d);
	}
	for (int i = 0; i < spec->decls.n; i++) {
		Decl *d = spec->decls.v[i];
		if (d->kind == D_OP || d->kind == D_INST)
			check_opinst(spec, d);
	}
}
