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
#include "sema_expr.h"

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
	{ "output", "name shape dtype" },            /* a kernel result in off-chip memory */
	{ "engine_ref", "name" },                    /* how an instruction names its engine */
	{ "par_dim", "n" },                          /* the partition dim of a block buffer's shape */
	{ "reshape", "src shape" },                  /* an off-chip tensor seen in another shape */
	{ "dtype_f32", "" }, { "dtype_bf16", "" }, { "dtype_f16", "" },   /* element types */
};

/* Python syntax the NumPy front end lowers through an op (`python "+"`): the
 * front end knows these roles, the specs say which op plays each. */
static const char *python_roles[] = {
	"+", "-", "*", "/", "@", "-x", "**2", "**0.5", "**-1", "**-0.5", ".T", "keepdims=False",
	"x[None]", "x[a:b]", "x[a:b:s]", "reshape-split", "reshape-merge", "scalar", "np",
	"<", "<=", ">", ">=", "==", "!=", 0,
};

static const char *engine_props[] = { "clock", "queues", "bandwidth", "latency", "gap", "transfers", "reads", "writes", 0 };
static const char *memory_props[] = { "partitions", "bytes", "banks", "bandwidth", "offchip", 0 };

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

/* Calls of fns in e, appended to out (Decl *), each once. */
static void
fn_calls(Spec *spec, const Expr *e, List *out)
{
	if (!e)
		return;
	if (e->kind == E_CALL && e->callk == 0) {
		Decl *f = find_decl(spec, D_FN, e->name);
		int seen = 0;
		for (int i = 0; i < out->n && !seen; i++)
			seen = out->v[i] == f;
		if (f && !seen)
			list_push(out, f);
	}
	for (int i = 0; i < e->args.n; i++)
		fn_calls(spec, e->args.v[i], out);
	fn_calls(spec, e->a, out);
	fn_calls(spec, e->b, out);
	fn_calls(spec, e->c, out);
	fn_calls(spec, e->body, out);
}

/* Whether start's definition reaches start again: depth-first search over
 * the call graph of definitions, each fn visited once per start. */
static int
fn_reaches(Spec *spec, Decl *start, Decl *f, List *visited)
{
	List callees = { 0 };
	fn_calls(spec, f->def, &callees);
	for (int i = 0; i < callees.n; i++) {
		Decl *g = callees.v[i];
		if (g == start)
			return 1;
		int seen = 0;
		for (int k = 0; k < visited->n && !seen; k++)
			seen = visited->v[k] == g;
		if (seen)
			continue;
		list_push(visited, g);
		if (fn_reaches(spec, start, g, visited))
			return 1;
	}
	return 0;
}

static void
check_axiom(Spec *spec, Decl *d)
{
	Scope s = { .spec = spec, .d = d, .cx = CX_AXIOM };
	for (int i = 0; i < d->params.n; i++)
		list_push(&s.params, d->params.v[i]);
	want(d->def, check_expr(&s, d->def), T_BOOL, "an axiom");
	List calls = { 0 };
	fn_calls(spec, d->def, &calls);
	if (calls.n == 0)
		error_at(d->loc, "axiom mentions no fn: an axiom may only state facts about fns");
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
			static const char *gran[] = { "sum-reduce", "max-reduce", "min-reduce" };
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
		if (strchr(name, '{')) {
			error_at(loc, "unclosed '{' in %s", what);
			p = strchr(p + 1, '{') - 1;
			continue;
		}
		int ok;
		if (holes)
			ok = holes_contain(holes, name);
		else if (name[0] == ',') {   /* {,opnd}: ", opnd=..." when given, nothing when left out */
			int o = find_operand(d, name + 1);
			ok = o >= 0 && ((Operand *)d->operands.v[o])->has_default;
			if (!ok) {
				error_at(loc, "emit template's '{%s}' names no optional operand", name);
				ok = 1;
			}
		} else
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

static int
find_index(Spec *spec, Decl *d)
{
	for (int i = 0; i < spec->decls.n; i++)
		if (spec->decls.v[i] == d)
			return i;
	return -1;
}

static const char *
first_memory(Spec *spec)
{
	for (int i = 0; spec->target && i < spec->target->decls.n; i++)
		if (((Decl *)spec->target->decls.v[i])->kind == D_MEMORY)
			return ((Decl *)spec->target->decls.v[i])->name;
	return "MEMORY";
}

/* Whether engine en may read (which: "reads") or write ("writes") memory m:
 * an engine that does not say touches every memory. */
static int
engine_touches(Spec *spec, const char *en, const char *which, const char *m)
{
	Decl *e = find_decl(spec, D_ENGINE, en);
	for (int i = 0; e && i < e->props.n; i++) {
		Prop *p = e->props.v[i];
		if (strcmp(p->name, which) != 0)
			continue;
		for (int k = 1; k < p->mems.n; k += 2)
			if (strcmp(p->mems.v[k], m) == 0)
				return 1;
		return 0;
	}
	return 1;
}

/* The memories an operand (or the result: which "writes") may use against the
 * engines the instruction runs on: each engine must reach one of them, and each
 * of them must be reached by one engine, or the spec contradicts itself. */
static void
check_placement(Spec *spec, Decl *d, const List *mems, const char *what, const char *which)
{
	const char *verb = which[0] == 'r' ? "reads" : "writes", *all = "";
	if (!mems->n || !d->engines.n)
		return;   /* said already: no memory, or no engine */
	for (int k = 1; k < mems->n; k += 2)
		all = xprintf("%s%s%s", all, k > 1 ? "|" : "", (char *)mems->v[k]);
	for (int i = 0; i + 1 < d->engines.n; i += 2) {
		const char *en = d->engines.v[i + 1];
		int any = 0;
		for (int k = 1; k < mems->n; k += 2)
			any |= engine_touches(spec, en, which, mems->v[k]);
		if (!any)
			error_at(*(Loc *)d->engines.v[i], "'%s' runs on engine '%s', which %s none of the memories of %s (%s)",
			         d->name, en, verb, what, all);
	}
	for (int k = 1; k < mems->n; k += 2) {
		int any = 0;
		for (int i = 0; i + 1 < d->engines.n; i += 2)
			any |= engine_touches(spec, d->engines.v[i + 1], which, mems->v[k]);
		if (!any)
			error_at(*(Loc *)mems->v[k - 1], "%s of '%s' may be in %s, but none of its engines %s %s", what, d->name,
			         (char *)mems->v[k], verb, (char *)mems->v[k]);
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
			error_at(o->loc, "operand '%s' of instruction '%s' needs a memory (e.g. %s: %s[P, F])",
			         o->name, d->name, o->name, first_memory(spec));
		if (!inst && o->mems.n)
			error_at(o->loc, "operand '%s': memories belong to instructions, not tensor ops", o->name);
		for (int k = 1; k < o->mems.n; k += 2)
			if (!find_decl(spec, D_MEMORY, o->mems.v[k]))
				error_at(*(Loc *)o->mems.v[k - 1], "unknown memory '%s' for operand '%s'", (char *)o->mems.v[k],
				         o->name);
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
				check_expr(&s, e);
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
	for (int i = 1; i < d->python.n; i += 2) {
		const char *r = d->python.v[i];
		Loc *l = d->python.v[i - 1];
		if (!in_strv(python_roles, r)) {
			error_at(*l, "unknown Python syntax \"%s\" (the front end knows: + - * / @ -x **2 **0.5 **-1 **-0.5 .T "
			         "keepdims=False x[None] x[a:b] x[a:b:s] reshape-split reshape-merge scalar np)", r);
			continue;
		}
		for (int k = 0; k < spec->decls.n; k++) {
			Decl *o = spec->decls.v[k];
			if (o == d || o->kind != D_OP)
				continue;
			for (int j = 1; j < o->python.n && strcmp(r, "np") != 0; j += 2)
				if (strcmp(o->python.v[j], r) == 0 && k < find_index(spec, d)) {
					error_at(*l, "Python syntax \"%s\" is already lowered through '%s'", r, o->name);
					note_at(*(Loc *)o->python.v[j - 1], "claimed here");
				}
		}
	}
	/* the sizes of the runtime's instance records (runtime/axon.h) */
	if (d->operands.n > 8)
		error_at(d->nloc, "'%s' has %d operands; at most 8", d->name, d->operands.n);
	if (d->attrs.n > 8)
		error_at(d->nloc, "'%s' has %d attributes; at most 8", d->name, d->attrs.n);
	if (d->groups.n > 4)
		error_at(d->nloc, "'%s' has %d ellipsis groups; at most 4", d->name, d->groups.n);
	if (d->syms.n > 24)
		error_at(d->nloc, "'%s' has %d size names; at most 24", d->name, d->syms.n);
	for (int i = 0; i < d->operands.n; i++) {
		Operand *o = d->operands.v[i];
		if (o->dims.n > 8)
			error_at(o->loc, "operand '%s' has %d dims; at most 8", o->name, o->dims.n);
	}
	if (d->out.n > 8)
		error_at(d->nloc, "the result of '%s' has %d dims; at most 8", d->name, d->out.n);
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
		for (int k = 1; k < d->outmems.n; k += 2)
			if (!find_decl(spec, D_MEMORY, d->outmems.v[k]))
				error_at(*(Loc *)d->outmems.v[k - 1], "unknown memory '%s' for the result of '%s'",
				         (char *)d->outmems.v[k], d->name);
		if (!d->cost)
			error_at(d->nloc, "instruction '%s' has no cost term", d->name);
		for (int i = 0; i < d->operands.n; i++) {
			Operand *o = d->operands.v[i];
			check_placement(spec, d, &o->mems, xprintf("operand '%s'", o->name), "reads");
		}
		check_placement(spec, d, &d->outmems, "the result", "writes");
		if (d->apart.n) {   /* apart MEM(a, b, ...): a memory, then at least two operands that may be in it */
			const char *m = d->apart.v[1];
			if (!find_decl(spec, D_MEMORY, m))
				error_at(*(Loc *)d->apart.v[0], "unknown memory '%s' in 'apart' of '%s'", m, d->name);
			if (d->apart.n < 6)
				error_at(*(Loc *)d->apart.v[0], "'apart %s(...)' names at least two operands", m);
			for (int k = 3; k < d->apart.n; k += 2) {
				Operand *o = NULL;
				for (int i = 0; i < d->operands.n && !o; i++)
					if (strcmp(((Operand *)d->operands.v[i])->name, d->apart.v[k]) == 0)
						o = d->operands.v[i];
				int may = 0;
				for (int j = 1; o && j < o->mems.n; j += 2)
					may |= strcmp(o->mems.v[j], m) == 0;
				if (!o)
					error_at(*(Loc *)d->apart.v[k - 1], "'%s' is not an operand of '%s'", (char *)d->apart.v[k], d->name);
				else if (!may && find_decl(spec, D_MEMORY, m))
					error_at(*(Loc *)d->apart.v[k - 1], "operand '%s' of '%s' is never in %s: 'apart' says nothing",
					         o->name, d->name, m);
				for (int j = 3; j < k; j += 2)
					if (strcmp(d->apart.v[j], d->apart.v[k]) == 0)
						error_at(*(Loc *)d->apart.v[k - 1], "operand '%s' named twice in 'apart'", (char *)d->apart.v[k]);
			}
		}
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
			error_at(st->loc, "out has %d ind%s but the result has rank %d", st->lhs_idx.n,
			         st->lhs_idx.n == 1 ? "ex" : "ices", d->out.n);
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

static int
is_memlist_prop(const char *name)
{
	return strcmp(name, "reads") == 0 || strcmp(name, "writes") == 0;
}

static Prop *
find_prop(const Decl *d, const char *name)
{
	for (int i = 0; i < d->props.n; i++)
		if (strcmp(((Prop *)d->props.v[i])->name, name) == 0)
			return d->props.v[i];
	return NULL;
}

static void
check_props(Spec *spec, Decl *d, const char *const *allowed)
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
		int memlist = is_memlist_prop(p->name);
		if (flag && p->has_value)
			error_at(p->loc, "'%s' is a flag and takes no value", p->name);
		if (memlist && !p->mems.n)
			error_at(p->loc, "'%s' takes a list of memories, e.g. %s(%s)", p->name, p->name, first_memory(spec));
		if (!memlist && p->mems.n)
			error_at(p->loc, "property '%s' takes no list of memories", p->name);
		if (!flag && !memlist && !p->has_value && !p->mems.n && in_strv(allowed, p->name))
			error_at(p->loc, "property '%s' needs a value", p->name);
		for (int k = 1; k < p->mems.n; k += 2)
			if (!find_decl(spec, D_MEMORY, p->mems.v[k]))
				error_at(*(Loc *)p->mems.v[k - 1], "unknown memory '%s' in '%s' of %s '%s'", (char *)p->mems.v[k],
				         p->name, d->kind == D_ENGINE ? "engine" : "memory", d->name);
	}
}

static void
check_target(Spec *spec, Decl *t)
{
	Decl *kernel = NULL;
	for (int i = 0; i < t->decls.n; i++) {
		Decl *d = t->decls.v[i];
		if (d->kind == D_KERNEL) {
			if (kernel) {
				error_at(d->loc, "second kernel language for target '%s'", t->name);
				note_at(kernel->loc, "first kernel language is here");
			} else
				kernel = d;
			continue;
		}
		for (int k = 0; k < i; k++) {
			Decl *p = t->decls.v[k];
			if (p->kind == d->kind && strcmp(p->name, d->name) == 0) {
				error_at(d->nloc, "redefinition of %s '%s'", d->kind == D_ENGINE ? "engine" :
				         d->kind == D_MEMORY ? "memory" : "template", d->name);
				note_at(p->nloc, "previous definition is here");
			}
		}
		if (d->kind == D_ENGINE) {
			check_props(spec, d, engine_props);
			Prop *gap = find_prop(d, "gap");
			if (gap && !find_prop(d, "transfers"))
				error_at(gap->loc, "'gap' is what a transfer holds its queue beyond its bytes: engine '%s' "
				         "does not declare 'transfers'", d->name);
		} else if (d->kind == D_MEMORY)
			check_props(spec, d, memory_props);
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
	if (kernel)
		t->kernel = kernel->str;
	else
		error_at(t->nloc, "target '%s' names no kernel language (add: kernel \"LANGUAGE\";)", t->name);
	(void)spec;
}

static const char *
kind_name(DeclKind k)
{
	static const char *s[] = { "fn", "axiom", "enum", "op", "inst", "engine", "memory", "template", "target", "kernel" };
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
		List visited = { 0 };
		if (d->kind == D_FN && d->def && fn_reaches(spec, d, d, &visited))
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
