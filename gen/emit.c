/*
 * emit.c — writes the C for one target: build/gen/<target>/{fns,ops,insts}.def
 * and target.c.
 *
 * target.c holds, per op and instruction (sorted by name, each behind a
 * `/ * file:line * /` note): its layout tables, a concrete precondition check,
 * the same preconditions as a term, its symbolic result shape, its element
 * encoder (terms, reductions kept visible), a reference kernel on float32
 * arrays, and for instructions a cost function; then the tables the runtime
 * indexes and one exported `const AxTarget ax_target_<name>`.  Output depends
 * only on the spec text, so regeneration is byte-identical.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "emit.h"

static FILE *out;

static void emitf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
emitf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

static FILE *
open_out(const char *dir, const char *name)
{
	char *path = xprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		error_at((Loc){ 0 }, "cannot write %s", path);
		diag_finish();
	}
	return f;
}

/* A C string literal for s. */
static const char *
cstr(const char *s)
{
	if (!s)
		return "NULL";
	Buf b = { 0 };
	buf_printf(&b, "\"");
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '"': buf_printf(&b, "\\\""); break;
		case '\\': buf_printf(&b, "\\\\"); break;
		case '\n': buf_printf(&b, "\\n"); break;
		case '\t': buf_printf(&b, "\\t"); break;
		default:
			if ((unsigned char)*p < 32)
				buf_printf(&b, "\\%03o", (unsigned char)*p);
			else
				buf_printf(&b, "%c", *p);
		}
	}
	buf_printf(&b, "\"");
	return xstrdup(buf_str(&b));
}

static const char *
locstr(Loc l)
{
	return xprintf("%s:%d", l.file, l.line);
}

/* ---- printable forms of declarations ------------------------------------- */

static const char *
dim_str(const Dim *d)
{
	if (d->ellipsis)
		return xprintf("...%s", d->group);
	return xprintf("%s%s", d->par ? "par " : "", expr_str(d->e));
}

static const char *
pattern_str(const List *dims)
{
	Buf b = { 0 };
	buf_printf(&b, "[");
	for (int i = 0; i < dims->n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", dim_str(dims->v[i]));
	buf_printf(&b, "]");
	return xstrdup(buf_str(&b));
}

static const char *
mems_str(const List *m)
{
	Buf b = { 0 };
	for (int i = 0; i < m->n; i++)
		buf_printf(&b, "%s%s", i ? "|" : "", (char *)m->v[i]);
	return xstrdup(buf_str(&b));
}

static const char *
sig_str(const Decl *d)
{
	Buf b = { 0 };
	buf_printf(&b, "%s %s(", d->kind == D_OP ? "op" : "inst", d->name);
	for (int i = 0; i < d->operands.n; i++) {
		Operand *o = d->operands.v[i];
		buf_printf(&b, "%s%s%s%s%s", i ? ", " : "", o->name, o->mems.n ? ": " : "", mems_str(&o->mems),
		           pattern_str(&o->dims));
		if (o->defval)
			buf_printf(&b, " = %s", expr_str(o->defval));
	}
	for (int i = 0; i < d->attrs.n; i++) {
		Attr *a = d->attrs.v[i];
		buf_printf(&b, "%s%s: %s", i ? ", " : "; ", a->name, a->type);
	}
	buf_printf(&b, ") -> %s%s%s", mems_str(&d->outmems), d->outmems.n ? " " : "", pattern_str(&d->out));
	if (d->engines.n) {
		buf_printf(&b, " on ");
		for (int i = 1; i < d->engines.n; i += 2)
			buf_printf(&b, "%s%s", i > 1 ? " | " : "", (char *)d->engines.v[i]);
	}
	return xstrdup(buf_str(&b));
}

/* ---- tables of the whole target ------------------------------------------ */

typedef struct Gen {
	Spec *spec;
	Decl **fns, **enums, **ops, **insts;
	int nfns, nenums, nops, ninsts;
	List engines, mems, templates;   /* Decl*, declaration order */
} Gen;

static int
index_of_decl(Decl **v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i]->name, name) == 0)
			return i;
	return -1;
}

static int
index_in(const List *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(((Decl *)l->v[i])->name, name) == 0)
			return i;
	return -1;
}

static Ctx
ctx_for(Gen *g, Decl *d, Mode m, Buf *pre, const char *prefix)
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
	(void)g;
	return x;
}

/* ---- fns, axioms, enums ---------------------------------------------------- */

static void
emit_fns(Gen *g)
{
	emitf("/* ---- scalar fns ---- */\n\n");
	for (int i = 0; i < g->nfns; i++)
		emitf("static double fn_%s_ref(const double *p);\n", g->fns[i]->name);
	emitf("\n");
	for (int i = 0; i < g->nfns; i++) {
		Decl *f = g->fns[i];
		emitf("/* %s */\n", locstr(f->loc));
		emitf("static double\nfn_%s_ref(const double *p)\n{\n", f->name);
		if (f->ref) {
			size_t n = strlen(f->ref);
			const char *dbl = xstrndup(f->ref, n - 1);   /* the double-precision function */
			emitf("\treturn %s(", dbl);
			for (int k = 0; k < f->params.n; k++)
				emitf("%sp[%d]", k ? ", " : "", k);
			emitf(");\n}\n\n");
		} else {
			Buf pre = { 0 };
			Ctx x = ctx_for(g, f, M_REF, &pre, "");
			const char *e = compile_expr(&x, f->def);
			emitf("%s\treturn %s;\n}\n\n", buf_str(&pre), e);
		}
		if (f->def) {
			Ctx x = ctx_for(g, f, M_TERM, NULL, "");
			emitf("static Term *\nfn_%s_unfold(TermCtx *tc, Term *const *p)\n{\n\treturn %s;\n}\n\n", f->name,
			      compile_expr(&x, f->def));
		}
	}
}

static void
collect_fns(const Expr *e, List *out)
{
	if (!e)
		return;
	if (e->kind == E_CALL && e->callk == 0 && find_str(out, e->name) < 0)
		list_push(out, (void *)e->name);
	for (int i = 0; i < e->args.n; i++)
		collect_fns(e->args.v[i], out);
	collect_fns(e->a, out);
	collect_fns(e->b, out);
	collect_fns(e->c, out);
}

static void
emit_axioms(Gen *g, List *axioms)
{
	emitf("/* ---- axioms ---- */\n\n");
	for (int i = 0; i < axioms->n; i++) {
		Decl *a = axioms->v[i];
		Ctx x = ctx_for(g, a, M_TERM, NULL, "");
		emitf("/* %s */\n", locstr(a->loc));
		emitf("static Term *\naxiom_%d(TermCtx *tc, Term *const *p)\n{\n\treturn %s;\n}\n", i,
		      compile_expr(&x, a->def));
		List fl = { 0 };
		collect_fns(a->def, &fl);
		list_sort_str(&fl);
		emitf("static const int axiom_%d_fns[] = { ", i);
		for (int k = 0; k < fl.n; k++)
			emitf("FN_%s, ", (char *)fl.v[k]);
		emitf("-1 };\n\n");
	}
}

static void
emit_enums(Gen *g)
{
	emitf("/* ---- enums ---- */\n\n");
	for (int i = 0; i < g->nenums; i++) {
		Decl *en = g->enums[i];
		emitf("/* %s */\n", locstr(en->loc));
		emitf("static const char *const enum_%s_items[] = { ", en->name);
		for (int k = 0; k < en->items.n; k++)
			emitf("%s, ", cstr(((EnumItem *)en->items.v[k])->name));
		emitf("NULL };\n");
		if (en->params.n == 0) {
			emitf("static const int enum_%s_red[] = { ", en->name);
			for (int k = 0; k < en->items.n; k++) {
				const char *r = ((EnumItem *)en->items.v[k])->sem->name;
				emitf("%d, ", strcmp(r, "sum") == 0 ? 0 : strcmp(r, "max") == 0 ? 1 : 2);
			}
			emitf("};\nstatic const TermKind enum_%s_tk[] = { ", en->name);
			for (int k = 0; k < en->items.n; k++) {
				const char *r = ((EnumItem *)en->items.v[k])->sem->name;
				emitf("%s, ", strcmp(r, "sum") == 0 ? "TK_SUM" : strcmp(r, "max") == 0 ? "TK_RMAX" : "TK_RMIN");
			}
			emitf("};\n\n");
			continue;
		}
		emitf("static Term *\nenum_%s_term(TermCtx *tc, int item, Term *const *p)\n{\n\tswitch (item) {\n", en->name);
		for (int k = 0; k < en->items.n; k++) {
			EnumItem *it = en->items.v[k];
			Ctx x = ctx_for(g, en, M_TERM, NULL, "");
			emitf("\tcase %d: return %s;   /* %s */\n", k, compile_expr(&x, it->sem), it->name);
		}
		emitf("\t}\n\tax_die(\"enum %s: item %%d\", item);\n}\n\n", en->name);
		emitf("static double\nenum_%s_ref(int item, const double *p)\n{\n\tswitch (item) {\n", en->name);
		for (int k = 0; k < en->items.n; k++) {
			EnumItem *it = en->items.v[k];
			Buf pre = { 0 };
			Ctx x = ctx_for(g, en, M_REF, &pre, "");
			x.depth = 2;
			const char *e = compile_expr(&x, it->sem);
			emitf("\tcase %d: {   /* %s */\n%s\t\treturn %s;\n\t}\n", k, it->name, buf_str(&pre), e);
		}
		emitf("\t}\n\treturn 0;\n}\n\n");
	}
}

/* ---- one op or instruction ------------------------------------------------- */

typedef struct Site {   /* where a size symbol is read */
	int o, k;           /* operand and pattern entry; o = -1: attribute k */
} Site;

static int
is_required(Decl *d, int o)
{
	return !((Operand *)d->operands.v[o])->has_default;
}

/* The binding site of each symbol: first required operand entry, else the
 * size attribute that declares it. */
static void
bind_sites(Decl *d, Site *site)
{
	for (int j = 0; j < d->syms.n; j++)
		site[j].o = -2;
	for (int pass = 0; pass < 2; pass++)
		for (int o = 0; o < d->operands.n; o++) {
			if ((pass == 0) != is_required(d, o))
				continue;
			Operand *op = d->operands.v[o];
			for (int k = 0; k < op->dims.n; k++) {
				Dim *dm = op->dims.v[k];
				if (dm->ellipsis || dm->e->kind != E_NAME)
					continue;
				int j = dm->e->slot;
				if (site[j].o == -2) {
					site[j].o = o;
					site[j].k = k;
				}
			}
		}
	for (int a = 0; a < d->attrs.n; a++) {
		Attr *at = d->attrs.v[a];
		if (at->kind == A_SIZE) {
			int j = find_str(&d->syms, at->name);
			site[j].o = -1;
			site[j].k = a;
		}
	}
}

static void
emit_bind(Decl *d, const char *P, int sym_term)
{
	Site site[64];
	bind_sites(d, site);
	if (sym_term)
		emitf("static void\n%s_bind_s(const AxSym *s, Term **sym)\n{\n", P);
	else
		emitf("static void\n%s_bind_c(const AxConc *c, int64_t *sym)\n{\n", P);
	const char *X = sym_term ? "s" : "c";
	for (int j = 0; j < d->syms.n; j++) {
		if (site[j].o == -1)
			emitf("\tsym[%d] = %s->%s[%d];   /* %s */\n", j, X, sym_term ? "sattr" : "size", site[j].k,
			      (char *)d->syms.v[j]);
		else if (site[j].o >= 0)
			emitf("\tsym[%d] = %s->dim[%d][ax_pos(&%s_L, %s->rank, %s->grank, %d, %d)];   /* %s */\n", j, X,
			      site[j].o, P, X, X, site[j].o, site[j].k, (char *)d->syms.v[j]);
	}
	if (!d->syms.n)
		emitf("\t(void)%s;\n\t(void)sym;\n", X);
	emitf("}\n\n");
}

static void
collect_syms(const Expr *e, List *out)
{
	if (!e)
		return;
	if (e->kind == E_NAME && e->nk == N_SIZE && find_str(out, e->name) < 0)
		list_push(out, (void *)e->name);
	for (int i = 0; i < e->args.n; i++)
		collect_syms(e->args.v[i], out);
	collect_syms(e->a, out);
	collect_syms(e->b, out);
	collect_syms(e->c, out);
	collect_syms(e->lo, out);
	collect_syms(e->hi, out);
	collect_syms(e->init, out);
	collect_syms(e->body, out);
}

static void
emit_check(Gen *g, Decl *d, const char *P)
{
	Site site[64];
	bind_sites(d, site);
	emitf("static int\n%s_check(const AxConc *c, AxShape *out, char *err, size_t n)\n{\n", P);
	emitf("\tint64_t sym[%d];\n", d->syms.n ? d->syms.n : 1);
	emitf("\tif (ax_layout_check(&%s_L, c, err, n))\n\t\treturn 1;\n", P);
	for (int a = 0; a < d->attrs.n; a++) {
		Attr *at = d->attrs.v[a];
		if (at->kind != A_ENUM)
			continue;
		Decl *en = find_decl(g->spec, D_ENUM, at->type);
		emitf("\tif (c->attr[%d] < 0 || c->attr[%d] >= %d)\n", a, a, en->items.n);
		emitf("\t\treturn ax_fail(err, n, \"attribute '%s' is not one of the %d items of '%s'\");\n", at->name,
		      en->items.n, en->name);
	}
	emitf("\t%s_bind_c(c, sym);\n", P);
	for (int o = 0; o < d->operands.n; o++) {
		Operand *op = d->operands.v[o];
		for (int k = 0; k < op->dims.n; k++) {
			Dim *dm = op->dims.v[k];
			if (dm->ellipsis)
				continue;
			const char *pos = xprintf("ax_pos(&%s_L, c->rank, c->grank, %d, %d)", P, o, k);
			if (dm->e->kind == E_NUM) {
				emitf("\tif (c->rank[%d] >= 0 && c->dim[%d][%s] != %s)\n", o, o, pos, dm->e->text);
				emitf("\t\treturn ax_fail(err, n, \"operand '%s' dim %%d must be %s, is %%lld\", %s, "
				      "(long long)c->dim[%d][%s]);\n", op->name, dm->e->text, pos, o, pos);
				continue;
			}
			int j = dm->e->slot;
			if (site[j].o == o && site[j].k == k)
				continue;
			const char *from = site[j].o >= 0 ? xprintf("operand '%s'", ((Operand *)d->operands.v[site[j].o])->name)
			                                  : xprintf("attribute '%s'", ((Attr *)d->attrs.v[site[j].k])->name);
			emitf("\tif (c->rank[%d] >= 0 && c->dim[%d][%s] != sym[%d])\n", o, o, pos, j);
			emitf("\t\treturn ax_fail(err, n, \"operand '%s' dim %%d is %%lld but %s is %%lld (from %s)\", %s, "
			      "(long long)c->dim[%d][%s], (long long)sym[%d]);\n", op->name, dm->e->name, from, pos, o, pos, j);
		}
	}
	for (int i = 0; i < d->where.n; i++) {
		Expr *w = d->where.v[i];
		Buf pre = { 0 };
		Ctx x = ctx_for(g, d, M_REF, &pre, P);
		const char *e = compile_expr(&x, w);
		List used = { 0 };
		collect_syms(w, &used);
		Buf fmt = { 0 }, args = { 0 };
		for (int k = 0; k < used.n; k++) {
			buf_printf(&fmt, "%s%s = %%lld", k ? ", " : ": ", (char *)used.v[k]);
			buf_printf(&args, ", (long long)sym[%d]", find_str(&d->syms, used.v[k]));
		}
		emitf("\t/* %s */\n%s", locstr(w->loc), buf_str(&pre));
		emitf("\tif (!(%s))\n", e);
		emitf("\t\treturn ax_fail(err, n, \"constraint '%%s' does not hold%s\", %s%s);\n", buf_str(&fmt),
		      cstr(expr_str(w)), buf_str(&args));
	}
	emitf("\tint r = ax_layout_out(&%s_L, c, out);\n", P);
	for (int k = 0; k < d->out.n; k++) {
		Dim *dm = d->out.v[k];
		if (dm->ellipsis)
			continue;
		Buf pre = { 0 };
		Ctx x = ctx_for(g, d, M_REF, &pre, P);
		const char *e = compile_expr(&x, dm->e);
		const char *pos = xprintf("ax_pos(&%s_L, c->rank, c->grank, -1, %d)", P, k);
		emitf("%s\tout->d[%s] = %s;\n", buf_str(&pre), pos, e);
		emitf("\tif (out->d[%s] < 1)\n\t\treturn ax_fail(err, n, \"result dim %%d (%s) is %%lld\", %s, "
		      "(long long)out->d[%s]);\n", pos, expr_str(dm->e), pos, pos);
	}
	emitf("\tif (r > AX_MAXR)\n\t\treturn ax_fail(err, n, \"result rank %%d exceeds %%d\", r, AX_MAXR);\n");
	emitf("\t(void)sym;\n\treturn 0;\n}\n\n");
}

static void
emit_pre(Gen *g, Decl *d, const char *P)
{
	Site site[64];
	bind_sites(d, site);
	emitf("static Term *\n%s_pre(TermCtx *tc, const AxSym *s)\n{\n", P);
	emitf("\tTerm *sym[%d];\n\tTerm *cs[%d];\n", d->syms.n ? d->syms.n : 1, 256 + d->where.n + d->out.n);
	emitf("\tint n = ax_layout_pre(tc, &%s_L, s, cs, 0);\n", P);
	emitf("\t%s_bind_s(s, sym);\n", P);
	for (int o = 0; o < d->operands.n; o++) {
		Operand *op = d->operands.v[o];
		for (int k = 0; k < op->dims.n; k++) {
			Dim *dm = op->dims.v[k];
			if (dm->ellipsis)
				continue;
			const char *pos = xprintf("ax_pos(&%s_L, s->rank, s->grank, %d, %d)", P, o, k);
			if (dm->e->kind == E_NUM) {
				emitf("\tif (s->rank[%d] >= 0)\n\t\tcs[n++] = t_bin(tc, TK_EQ, s->dim[%d][%s], t_int(tc, %s));\n",
				      o, o, pos, dm->e->text);
				continue;
			}
			int j = dm->e->slot;
			if (site[j].o == o && site[j].k == k)
				continue;
			emitf("\tif (s->rank[%d] >= 0)\n\t\tcs[n++] = t_bin(tc, TK_EQ, s->dim[%d][%s], sym[%d]);   /* %s */\n",
			      o, o, pos, j, dm->e->name);
		}
	}
	for (int i = 0; i < d->where.n; i++) {
		Ctx x = ctx_for(g, d, M_TERM, NULL, P);
		emitf("\tcs[n++] = %s;   /* %s: %s */\n", compile_expr(&x, d->where.v[i]),
		      locstr(((Expr *)d->where.v[i])->loc), expr_str(d->where.v[i]));
	}
	/* named result dims are at least 1, as every size is */
	for (int k = 0; k < d->out.n; k++) {
		Dim *dm = d->out.v[k];
		if (dm->ellipsis || (dm->e->kind == E_NAME) || dm->e->kind == E_NUM)
			continue;
		Ctx x = ctx_for(g, d, M_TERM, NULL, P);
		emitf("\tcs[n++] = t_bin(tc, TK_LE, t_int(tc, 1), %s);\n", compile_expr(&x, dm->e));
	}
	emitf("\treturn t_and_all(tc, n, cs);\n}\n\n");

	emitf("static int\n%s_shape(TermCtx *tc, const AxSym *s, Term **out)\n{\n", P);
	emitf("\tTerm *sym[%d];\n\t%s_bind_s(s, sym);\n\t(void)sym;\n", d->syms.n ? d->syms.n : 1, P);
	emitf("\tint r = ax_layout_shape(tc, &%s_L, s, out);\n", P);
	for (int k = 0; k < d->out.n; k++) {
		Dim *dm = d->out.v[k];
		if (dm->ellipsis)
			continue;
		Ctx x = ctx_for(g, d, M_TERM, NULL, P);
		emitf("\tout[ax_pos(&%s_L, s->rank, s->grank, -1, %d)] = %s;\n", P, k, compile_expr(&x, dm->e));
	}
	emitf("\treturn r;\n}\n\n");
}

static void
emit_outvars(Decl *d, const char *P, const char *X, const char *ty, const char *src)
{
	Stmt *st = d->out_stmt;
	for (int k = 0; k < st->lhs_idx.n; k++) {
		Expr *ix = st->lhs_idx.v[k];
		if (ix->kind != E_NAME)
			continue;
		emitf("\t%sx_%s = %s[ax_pos(&%s_L, %s->rank, %s->grank, -1, %d)];\n", ty, ix->name, src, P, X, X, k);
		emitf("\t(void)x_%s;\n", ix->name);
	}
}

static void
emit_enc(Gen *g, Decl *d, const char *P)
{
	if (d->operands.n) {
		emitf("static Term *\n%s_acc(TermCtx *tc, const AxSym *s, int o, Term *const *idx, Term *const *fixed)\n{\n", P);
		emitf("\treturn ax_sym_access(tc, &%s_L, s, o, idx, fixed);\n}\n\n", P);
	}
	emitf("static Term *\n%s_enc(TermCtx *tc, const AxSym *s, Term *const *idx)\n{\n", P);
	emitf("\tTerm *sym[%d];\n\t%s_bind_s(s, sym);\n\t(void)sym;\n", d->syms.n ? d->syms.n : 1, P);
	if (d->nvars)
		emitf("\tTerm *v[%d];\n", d->nvars);
	emit_outvars(d, P, "s", "Term *", "idx");
	Ctx x = ctx_for(g, d, M_TERM, NULL, P);
	emitf("\t/* %s */\n", locstr(d->out_stmt->loc));
	emitf("\treturn t_toreal(tc, %s);\n}\n\n", compile_expr(&x, d->out_stmt->rhs));
}

static void
emit_ref(Gen *g, Decl *d, const char *P)
{
	if (d->operands.n) {
		emitf("static double\n%s_rd(const AxConc *c, const float *const *in, int o, const int64_t *oi, "
		      "const int64_t *fixed, int *bad)\n{\n", P);
		emitf("\treturn ax_ref_read(&%s_L, c, in, o, oi, fixed, bad);\n}\n\n", P);
	}
	emitf("static int\n%s_ref(const AxConc *c, const float *const *in, float *out, char *err, size_t n)\n{\n", P);
	emitf("\tAxShape os;\n\tif (%s_check(c, &os, err, n))\n\t\treturn 1;\n", P);
	emitf("\tint64_t sym[%d];\n\t%s_bind_c(c, sym);\n\t(void)sym;\n", d->syms.n ? d->syms.n : 1, P);
	emitf("\tint64_t oi[AX_MAXR] = { 0 };\n\tint bad = 0;\n\t(void)in;\n\tint64_t total = ax_numel(&os);\n");
	emitf("\tfor (int64_t flat = 0; flat < total; flat++) {\n\t\tax_unflatten(&os, flat, oi);\n");
	Stmt *st = d->out_stmt;
	for (int k = 0; k < st->lhs_idx.n; k++) {
		Expr *ix = st->lhs_idx.v[k];
		if (ix->kind != E_NAME)
			continue;
		emitf("\t\tint64_t x_%s = oi[ax_pos(&%s_L, c->rank, c->grank, -1, %d)];\n\t\t(void)x_%s;\n", ix->name, P,
		      k, ix->name);
	}
	Buf pre = { 0 };
	Ctx x = ctx_for(g, d, M_REF, &pre, P);
	x.depth = 2;
	const char *e = compile_expr(&x, st->rhs);
	emitf("%s\t\tout[flat] = (float)(%s);\n", buf_str(&pre), e);
	emitf("\t\tif (bad)\n\t\t\treturn ax_fail(err, n, \"'%s' reads outside an operand at result element %%lld\", "
	      "(long long)flat);\n\t}\n\treturn 0;\n}\n\n", d->name);
}

static void
emit_cost(Gen *g, Decl *d, const char *P)
{
	Buf pre = { 0 };
	Ctx x = ctx_for(g, d, M_REF, &pre, P);
	const char *e = compile_expr(&x, d->cost);
	emitf("static double\n%s_cost(const AxConc *c, int dtype_bytes)\n{\n", P);
	emitf("\tint64_t sym[%d];\n\t%s_bind_c(c, sym);\n\t(void)sym;\n\t(void)dtype_bytes;\n", d->syms.n ? d->syms.n : 1, P);
	emitf("\t/* %s */\n%s\treturn (double)(%s);\n}\n\n", locstr(d->cost->loc), buf_str(&pre), e);
}

static unsigned
mem_mask(Gen *g, const List *mems)
{
	unsigned m = 0;
	for (int i = 0; i < mems->n; i++) {
		int k = index_in(&g->mems, mems->v[i]);
		if (k >= 0)
			m |= 1u << k;
	}
	return m;
}

static void
emit_layout(Gen *g, Decl *d, const char *P)
{
	for (int o = 0; o < d->operands.n; o++) {
		Operand *op = d->operands.v[o];
		emitf("static const signed char %s_pat%d[] = { ", P, o);
		for (int k = 0; k < op->dims.n; k++) {
			Dim *dm = op->dims.v[k];
			emitf("%d, ", dm->ellipsis ? find_str(&d->groups, dm->group) : -1);
		}
		emitf("0 };\n");
	}
	emitf("static const signed char %s_opat[] = { ", P);
	for (int k = 0; k < d->out.n; k++) {
		Dim *dm = d->out.v[k];
		emitf("%d, ", dm->ellipsis ? find_str(&d->groups, dm->group) : -1);
	}
	emitf("0 };\n");
	emitf("static const AxOperand %s_opnd[] = {\n", P);
	for (int o = 0; o < d->operands.n; o++) {
		Operand *op = d->operands.v[o];
		int nfixed = 0, par = -1;
		unsigned groups = 0;
		for (int k = 0; k < op->dims.n; k++) {
			Dim *dm = op->dims.v[k];
			if (dm->ellipsis)
				groups |= 1u << find_str(&d->groups, dm->group);
			else
				nfixed++;
			if (dm->par)
				par = k;
		}
		long long num = 0, den = 1;
		double dv = 0;
		if (op->defval) {
			Expr *v = op->defval->kind == E_NEG ? op->defval->a : op->defval;
			if (num_rational(v->text, &num, &den) != 0)
				error_at(v->loc, "default %s has too many digits", v->text);
			if (op->defval->kind == E_NEG)
				num = -num;
			dv = (double)num / (double)den;
		}
		emitf("\t{ %s, %s, %d, %d, 0x%xu, 0x%xu, %d, %d, %.17g, %lld, %lld, %s_pat%d },\n", cstr(op->name),
		      cstr(pattern_str(&op->dims)), op->dims.n, nfixed, groups, mem_mask(g, &op->mems), par,
		      op->has_default, dv, num, den, P, o);
	}
	emitf("};\n");
	emitf("static const AxLayout %s_L = { %d, %s_opnd, %d, %s_opat, %d, %d };\n", P, d->operands.n, P, d->out.n, P,
	      d->groups.n, d->broadcast);
	if (d->attrs.n) {
		emitf("static const AxAttr %s_attr[] = {\n", P);
		for (int a = 0; a < d->attrs.n; a++) {
			Attr *at = d->attrs.v[a];
			emitf("\t{ %s, %s, %d },\n", cstr(at->name),
			      at->kind == A_ENUM ? "AX_ATTR_ENUM" : at->kind == A_SIZE ? "AX_ATTR_SIZE" : "AX_ATTR_FLOAT",
			      at->kind == A_ENUM ? index_of_decl(g->enums, g->nenums, at->type) : -1);
		}
		emitf("};\n");
	}
	emitf("static const char *const %s_syms[] = { ", P);
	for (int j = 0; j < d->syms.n; j++)
		emitf("%s, ", cstr(d->syms.v[j]));
	emitf("NULL };\nstatic const char *const %s_groups[] = { ", P);
	for (int j = 0; j < d->groups.n; j++)
		emitf("%s, ", cstr(d->groups.v[j]));
	emitf("NULL };\nstatic const char *const %s_gran[] = { ", P);
	for (int j = 0; j < d->gran.n; j++)
		emitf("%s, ", cstr(d->gran.v[j]));
	emitf("NULL };\n\n");
}

static void
emit_opinst(Gen *g, Decl *d)
{
	const char *P = xprintf("%s_%s", d->kind == D_OP ? "op" : "inst", d->name);
	emitf("/* ---- %s: %s ---- */\n\n", locstr(d->loc), sig_str(d));
	emit_layout(g, d, P);
	emit_bind(d, P, 0);
	emit_bind(d, P, 1);
	emit_check(g, d, P);
	emit_pre(g, d, P);
	emit_enc(g, d, P);
	emit_ref(g, d, P);
	if (d->cost)
		emit_cost(g, d, P);
}

static const char *
join_where(const Decl *d)
{
	Buf b = { 0 };
	for (int i = 0; i < d->where.n; i++)
		buf_printf(&b, "%s%s", i ? "; " : "", expr_str(d->where.v[i]));
	return xstrdup(buf_str(&b));
}

static void
emit_op_row(Gen *g, Decl *d)
{
	const char *P = xprintf("%s_%s", d->kind == D_OP ? "op" : "inst", d->name);
	unsigned engines = 0;
	for (int i = 1; i < d->engines.n; i += 2) {
		int k = index_in(&g->engines, d->engines.v[i]);
		if (k >= 0)
			engines |= 1u << k;
	}
	int out_par = -1;
	for (int k = 0; k < d->out.n; k++)
		if (((Dim *)d->out.v[k])->par)
			out_par = k;
	Buf body = { 0 };
	buf_printf(&body, "out[");
	for (int k = 0; k < d->out_stmt->lhs_idx.n; k++) {
		Expr *ix = d->out_stmt->lhs_idx.v[k];
		buf_printf(&body, "%s%s%s", k ? ", " : "", ix->kind == E_ELLIPSIS ? "..." : "", ix->name);
	}
	buf_printf(&body, "] = %s", expr_str(d->out_stmt->rhs));
	emitf("\t/* %s */\n", locstr(d->loc));
	emitf("\t{ %s, %s, %s, %d,\n", cstr(d->name), cstr(locstr(d->loc)), cstr(sig_str(d)), d->kind == D_INST);
	emitf("\t  %d, %s_opnd, %d, %s, %d, %s_groups, %d, %d, %s_syms,\n", d->operands.n, P, d->attrs.n,
	      d->attrs.n ? xprintf("%s_attr", P) : "NULL", d->groups.n, P, d->broadcast, d->syms.n, P);
	emitf("\t  0x%xu, 0x%xu, %d, %s_gran, %d,\n", engines, mem_mask(g, &d->outmems), out_par, P, d->layout_only);
	emitf("\t  %s,\n\t  %s,\n\t  %s,\n\t  %s,\n", cstr(d->emit), cstr(join_where(d)),
	      d->cost ? cstr(expr_str(d->cost)) : "NULL", cstr(buf_str(&body)));
	emitf("\t  &%s_L, %s_check, %s_pre, %s_shape, %s_enc, %s_ref, %s },\n", P, P, P, P, P, P,
	      d->cost ? xprintf("%s_cost", P) : "NULL");
}

static double
prop(const Decl *d, const char *name, int *present)
{
	for (int i = 0; i < d->props.n; i++) {
		Prop *p = d->props.v[i];
		if (strcmp(p->name, name) == 0) {
			if (present)
				*present = 1;
			return p->value;
		}
	}
	if (present)
		*present = 0;
	return 0;
}

static void
emit_defs(Gen *g, const char *dir)
{
	out = open_out(dir, "fns.def");
	emitf("/* Generated by axgen. DO NOT EDIT.  FN(name, arity, defined, loc) */\n");
	for (int i = 0; i < g->nfns; i++)
		emitf("FN(%s, %d, %d, %s)\n", g->fns[i]->name, g->fns[i]->params.n, g->fns[i]->def != NULL,
		      cstr(locstr(g->fns[i]->loc)));
	fclose(out);
	out = open_out(dir, "ops.def");
	emitf("/* Generated by axgen. DO NOT EDIT.  OP(name, operands, attributes, loc) */\n");
	for (int i = 0; i < g->nops; i++)
		emitf("OP(%s, %d, %d, %s)\n", g->ops[i]->name, g->ops[i]->operands.n, g->ops[i]->attrs.n,
		      cstr(locstr(g->ops[i]->loc)));
	fclose(out);
	out = open_out(dir, "insts.def");
	emitf("/* Generated by axgen. DO NOT EDIT.  INST(name, operands, attributes, loc) */\n");
	for (int i = 0; i < g->ninsts; i++)
		emitf("INST(%s, %d, %d, %s)\n", g->insts[i]->name, g->insts[i]->operands.n, g->insts[i]->attrs.n,
		      cstr(locstr(g->insts[i]->loc)));
	fclose(out);
}

void
emit_all(Spec *spec, const char *dir, const char *tname)
{
	Gen g = { .spec = spec };
	g.fns = sorted_decls(spec, D_FN, &g.nfns);
	g.enums = sorted_decls(spec, D_ENUM, &g.nenums);
	g.ops = sorted_decls(spec, D_OP, &g.nops);
	g.insts = sorted_decls(spec, D_INST, &g.ninsts);
	List axioms = { 0 };
	for (int i = 0; i < spec->decls.n; i++)
		if (((Decl *)spec->decls.v[i])->kind == D_AXIOM)
			list_push(&axioms, spec->decls.v[i]);
	for (int i = 0; i < spec->target->decls.n; i++) {
		Decl *d = spec->target->decls.v[i];
		list_push(d->kind == D_ENGINE ? &g.engines : d->kind == D_MEMORY ? &g.mems : &g.templates, d);
	}
	if (g.engines.n > 32 || g.mems.n > 32) {
		error_at(spec->target->nloc, "at most 32 engines and 32 memories");
		diag_finish();
	}
	mkdir(dir, 0777);
	emit_defs(&g, dir);

	out = open_out(dir, "target.c");
	emitf("/* Generated by axgen from:");
	for (int i = 0; i < spec->files.n; i++)
		emitf("%s %s", i ? "," : "", (char *)spec->files.v[i]);
	emitf("\n * DO NOT EDIT: edit the spec files and run make. */\n\n");
	emitf("#include <math.h>\n#include <stdint.h>\n#include \"axon.h\"\n\n");
	emitf("enum {\n#define FN(name, arity, defined, loc) FN_##name,\n#include \"fns.def\"\n#undef FN\n\tNFNS\n};\n");
	emitf("enum {\n#define OP(name, nopnd, nattr, loc) OPX_##name,\n#include \"ops.def\"\n#undef OP\n\tNOPS\n};\n");
	emitf("enum {\n#define INST(name, nopnd, nattr, loc) INSTX_##name,\n#include \"insts.def\"\n#undef INST\n\tNINSTS\n};\n\n");
	emit_fns(&g);
	emit_axioms(&g, &axioms);
	emit_enums(&g);
	for (int i = 0; i < g.nops; i++)
		emit_opinst(&g, g.ops[i]);
	for (int i = 0; i < g.ninsts; i++)
		emit_opinst(&g, g.insts[i]);

	emitf("/* ---- tables ---- */\n\n");
	emitf("static const char *const files[] = {\n");
	for (int i = 0; i < spec->files.n; i++)
		emitf("\t%s,\n", cstr(spec->files.v[i]));
	emitf("\tNULL\n};\n\n");
	emitf("static const AxFn fns[%d] = {\n", g.nfns ? g.nfns : 1);
	for (int i = 0; i < g.nfns; i++) {
		Decl *f = g.fns[i];
		emitf("\t[FN_%s] = { %s, %s, %d, %d, %s, fn_%s_ref, %s },\n", f->name, cstr(f->name), cstr(locstr(f->loc)),
		      f->params.n, f->def != NULL, f->def ? xprintf("fn_%s_unfold", f->name) : "NULL", f->name,
		      f->def ? cstr(expr_str(f->def)) : "NULL");
	}
	emitf("};\n\nstatic const AxAxiom axioms[%d] = {\n", axioms.n ? axioms.n : 1);
	for (int i = 0; i < axioms.n; i++) {
		Decl *a = axioms.v[i];
		emitf("\t{ %s, %s, %d, axiom_%d_fns, axiom_%d },\n", cstr(locstr(a->loc)), cstr(expr_str(a->def)),
		      a->params.n, i, i);
	}
	emitf("};\n\nstatic const AxEnum enums[%d] = {\n", g.nenums ? g.nenums : 1);
	for (int i = 0; i < g.nenums; i++) {
		Decl *en = g.enums[i];
		emitf("\t{ %s, %s, %d, enum_%s_items, %d, %s },\n", cstr(en->name), cstr(locstr(en->loc)), en->items.n,
		      en->name, en->params.n == 0, en->params.n == 0 ? xprintf("enum_%s_red", en->name) : "NULL");
	}
	emitf("};\n\nstatic const AxOp ops[%d] = {\n", g.nops ? g.nops : 1);
	for (int i = 0; i < g.nops; i++)
		emit_op_row(&g, g.ops[i]);
	emitf("};\n\nstatic const AxOp insts[%d] = {\n", g.ninsts ? g.ninsts : 1);
	for (int i = 0; i < g.ninsts; i++)
		emit_op_row(&g, g.insts[i]);
	emitf("};\n\nstatic const AxEngine engines[%d] = {\n", g.engines.n ? g.engines.n : 1);
	for (int i = 0; i < g.engines.n; i++) {
		Decl *e = g.engines.v[i];
		int dma;
		prop(e, "transfers", &dma);
		emitf("\t{ %s, %.17g, %d, %.17g, %.17g, %d },   /* %s */\n", cstr(e->name), prop(e, "clock", NULL),
		      (int)prop(e, "queues", NULL), prop(e, "bandwidth", NULL), prop(e, "latency", NULL), dma,
		      locstr(e->loc));
	}
	emitf("};\n\nstatic const AxMemory mems[%d] = {\n", g.mems.n ? g.mems.n : 1);
	for (int i = 0; i < g.mems.n; i++) {
		Decl *m = g.mems.v[i];
		int off;
		prop(m, "offchip", &off);
		emitf("\t{ %s, %d, %lld, %d, %.17g, %d },   /* %s */\n", cstr(m->name), (int)prop(m, "partitions", NULL),
		      (long long)prop(m, "bytes", NULL), (int)prop(m, "banks", NULL), prop(m, "bandwidth", NULL), off,
		      locstr(m->loc));
	}
	emitf("};\n\nstatic const AxTemplate templates[%d] = {\n", g.templates.n ? g.templates.n : 1);
	for (int i = 0; i < g.templates.n; i++) {
		Decl *t = g.templates.v[i];
		emitf("\t{ %s, %s },   /* %s */\n", cstr(t->name), cstr(t->str), locstr(t->loc));
	}
	emitf("};\n\n");
	emitf("const AxTarget ax_target_%s = {\n\t%s, files,\n", tname, cstr(tname));
	emitf("\tNOPS, NINSTS, NFNS, %d, %d, %d, %d, %d,\n", axioms.n, g.nenums, g.engines.n, g.mems.n, g.templates.n);
	emitf("\tops, insts, fns, axioms, enums, engines, mems, templates,\n};\n");
	fclose(out);
}
