/*
 * emit_op.c — the generated functions of one op or instruction.
 *
 * Per declaration: its layout tables (operand patterns, groups), the binding
 * of size symbols to operand dims, a concrete check, the preconditions as a
 * term, the symbolic result shape, the element encoder, the reference kernel
 * and, for instructions, the cost.  All rank-polymorphic bookkeeping is
 * delegated to runtime/layout.c, so each function is short.
 */
#include <stdlib.h>
#include <string.h>
#include "emit_expr.h"
#include "emit_op.h"

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

/* An instruction's ellipsis groups are read off its operands' ranks (each
 * group stands alone in some operand): callers of an instruction's functions
 * pass ranks, not group ranks, so each function infers them first. */
static void
emit_infer(Decl *d, const char *P, int sym_term)
{
	if (d->kind != D_INST || !d->groups.n)
		return;
	if (sym_term)
		emitf("\tAxSym s_ = *s;\n\tax_infer_granks(&%s_L, s_.rank, s_.grank);\n\ts = &s_;\n", P);
	else
		emitf("\tAxConc c_ = *c;\n\tax_infer_granks(&%s_L, c_.rank, c_.grank);\n\tc = &c_;\n", P);
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
	emit_infer(d, P, sym_term);
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

/* Every operand dim that is a literal, or a size already bound elsewhere,
 * must equal it: as early returns of the concrete check (term = 0) or as
 * conjuncts of the precondition term (term = 1). */
static void
emit_dim_checks(Decl *d, const char *P, int term)
{
	Site site[64];
	bind_sites(d, site);
	const char *X = term ? "s" : "c";
	for (int o = 0; o < d->operands.n; o++) {
		Operand *op = d->operands.v[o];
		for (int k = 0; k < op->dims.n; k++) {
			Dim *dm = op->dims.v[k];
			if (dm->ellipsis)
				continue;
			int lit = dm->e->kind == E_NUM;
			int j = lit ? -1 : dm->e->slot;
			if (!lit && site[j].o == o && site[j].k == k)
				continue;   /* the binding site itself */
			const char *pos = xprintf("ax_pos(&%s_L, %s->rank, %s->grank, %d, %d)", P, X, X, o, k);
			const char *want = lit ? dm->e->text : xprintf("sym[%d]", j);
			if (term) {
				emitf("\tif (s->rank[%d] >= 0)   /* %s */\n", o, lit ? "literal" : dm->e->name);
				emitf("\t\tcs[n++] = t_bin(tc, TK_EQ, s->dim[%d][%s], %s);\n", o, pos,
				      lit ? xprintf("t_int(tc, %s)", want) : want);
				continue;
			}
			emitf("\tif (c->rank[%d] >= 0 && c->dim[%d][%s] != %s)\n", o, o, pos, want);
			if (lit) {
				emitf("\t\treturn ax_fail(err, n, \"operand '%s' dim %%d must be %s, is %%lld\", %s, "
				      "(long long)c->dim[%d][%s]);\n", op->name, want, pos, o, pos);
				continue;
			}
			const char *from = site[j].o >= 0 ? xprintf("operand '%s'", ((Operand *)d->operands.v[site[j].o])->name)
			                                  : xprintf("attribute '%s'", ((Attr *)d->attrs.v[site[j].k])->name);
			emitf("\t\treturn ax_fail(err, n, \"operand '%s' dim %%d is %%lld but %s is %%lld (from %s)\", %s, "
			      "(long long)c->dim[%d][%s], (long long)sym[%d]);\n", op->name, dm->e->name, from, pos, o, pos, j);
		}
	}
}

static void
emit_check(Gen *g, Decl *d, const char *P)
{
	Site site[64];
	bind_sites(d, site);
	emitf("static int\n%s_check(const AxConc *c, AxShape *out, char *err, size_t n)\n{\n", P);
	emit_infer(d, P, 0);
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
	if (d->kind == D_INST) {
		emitf("\tif (c->engine < 0 || c->engine >= 32 || !((0x%xu >> c->engine) & 1u))\n", engine_mask(g, d));
		emitf("\t\treturn ax_fail(err, n, \"'%s' does not run on engine %%d\", c->engine);\n", d->name);
	}
	emitf("\t%s_bind_c(c, sym);\n", P);
	emit_dim_checks(d, P, 0);
	for (int i = 0; i < d->where.n; i++) {
		Expr *w = d->where.v[i];
		Buf pre = { 0 };
		Ctx x = ctx_for(d, M_REF, &pre, P);
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
		Ctx x = ctx_for(d, M_REF, &pre, P);
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
	emit_infer(d, P, 1);
	emitf("\tTerm *sym[%d];\n\tTerm *cs[%d];\n", d->syms.n ? d->syms.n : 1, 256 + d->where.n + d->out.n);
	emitf("\tint n = ax_layout_pre(tc, &%s_L, s, cs, 0);\n", P);
	if (d->kind == D_INST) {
		emitf("\tif (s->engine < 0 || s->engine >= 32 || !((0x%xu >> s->engine) & 1u))   /* not its engine */\n",
		      engine_mask(g, d));
		emitf("\t\tcs[n++] = t_bin(tc, TK_EQ, t_int(tc, 0), t_int(tc, 1));\n");
	}
	emitf("\t%s_bind_s(s, sym);\n", P);
	emit_dim_checks(d, P, 1);
	for (int i = 0; i < d->where.n; i++) {
		Ctx x = ctx_for(d, M_TERM, NULL, P);
		emitf("\tcs[n++] = %s;   /* %s: %s */\n", compile_expr(&x, d->where.v[i]),
		      locstr(((Expr *)d->where.v[i])->loc), expr_str(d->where.v[i]));
	}
	/* result dims are at least 1, as every size is (operand dims already are) */
	for (int k = 0; k < d->out.n; k++) {
		Dim *dm = d->out.v[k];
		if (dm->ellipsis || dm->e->kind == E_NUM ||
		    (dm->e->kind == E_NAME && dm->e->nk == N_SIZE && site[dm->e->slot].o >= 0))
			continue;
		Ctx x = ctx_for(d, M_TERM, NULL, P);
		emitf("\tcs[n++] = t_bin(tc, TK_LE, t_int(tc, 1), %s);\n", compile_expr(&x, dm->e));
	}
	emitf("\treturn t_and_all(tc, n, cs);\n}\n\n");

	emitf("static int\n%s_shape(TermCtx *tc, const AxSym *s, Term **out)\n{\n", P);
	emit_infer(d, P, 1);
	emitf("\tTerm *sym[%d];\n\t%s_bind_s(s, sym);\n\t(void)sym;\n", d->syms.n ? d->syms.n : 1, P);
	emitf("\tint r = ax_layout_shape(tc, &%s_L, s, out);\n\tif (r > AX_MAXR)\n\t\treturn r;   /* the caller refuses it */\n", P);
	for (int k = 0; k < d->out.n; k++) {
		Dim *dm = d->out.v[k];
		if (dm->ellipsis)
			continue;
		Ctx x = ctx_for(d, M_TERM, NULL, P);
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
emit_enc(Decl *d, const char *P)
{
	if (d->operands.n) {
		emitf("static Term *\n%s_acc(TermCtx *tc, const AxSym *s, int o, Term *const *idx, Term *const *fixed)\n{\n", P);
		emit_infer(d, P, 1);
		emitf("\treturn ax_sym_access(tc, &%s_L, s, o, idx, fixed);\n}\n\n", P);
	}
	emitf("static Term *\n%s_enc(TermCtx *tc, const AxSym *s, Term *const *idx)\n{\n", P);
	emit_infer(d, P, 1);
	emitf("\tTerm *sym[%d];\n\t%s_bind_s(s, sym);\n\t(void)sym;\n", d->syms.n ? d->syms.n : 1, P);
	if (d->nvars)
		emitf("\tTerm *v[%d];\n", d->nvars);
	emit_outvars(d, P, "s", "Term *", "idx");
	Ctx x = ctx_for(d, M_TERM, NULL, P);
	emitf("\t/* %s */\n", locstr(d->out_stmt->loc));
	emitf("\treturn t_toreal(tc, %s);\n}\n\n", compile_expr(&x, d->out_stmt->rhs));
}

static void
emit_ref(Decl *d, const char *P)
{
	emitf("static int\n%s_ref(const AxConc *c, const float *const *in, float *out, char *err, size_t n)\n{\n", P);
	emit_infer(d, P, 0);
	emitf("\tAxShape os;\n\tif (c->shape)\n\t\tos = *c->shape;   /* checked by the caller */\n"
	      "\telse if (%s_check(c, &os, err, n))\n\t\treturn 1;\n", P);
	emitf("\tint64_t sym[%d];\n\t%s_bind_c(c, sym);\n\t(void)sym;\n", d->syms.n ? d->syms.n : 1, P);
	emitf("\tint64_t oi[AX_MAXR] = { 0 };\n\tint bad = 0;\n\t(void)in;\n\tint64_t total = ax_numel(&os);\n");
	if (d->operands.n)
		emitf("\tAxRead rp[%d];\n\tax_read_plan(&%s_L, c, rp);\n", d->operands.n, P);
	Stmt *st = d->out_stmt;
	for (int k = 0; k < st->lhs_idx.n; k++) {   /* where the result's named indices sit in oi */
		Expr *ix = st->lhs_idx.v[k];
		if (ix->kind == E_NAME)
			emitf("\tconst int p_%s = ax_pos(&%s_L, c->rank, c->grank, -1, %d);\n", ix->name, P, k);
	}
	emitf("\tfor (int64_t flat = 0; flat < total; flat++, ax_next_index(&os, oi)) {\n");
	for (int k = 0; k < st->lhs_idx.n; k++) {
		Expr *ix = st->lhs_idx.v[k];
		if (ix->kind != E_NAME)
			continue;
		emitf("\t\tint64_t x_%s = oi[p_%s];\n\t\t(void)x_%s;\n", ix->name, ix->name, ix->name);
	}
	Buf pre = { 0 };
	Ctx x = ctx_for(d, M_REF, &pre, P);
	x.depth = 2;
	const char *e = compile_expr(&x, st->rhs);
	emitf("%s\t\tout[flat] = (float)(%s);\n", buf_str(&pre), e);
	emitf("\t\tif (bad)\n\t\t\treturn ax_fail(err, n, \"'%s' reads outside an operand at result element %%lld\", "
	      "(long long)flat);\n", d->name);
	emitf("\t\tif (c->want && !ax_close(out[flat], c->want[flat]))\n\t\t\treturn 2;   /* not the value wanted */\n");
	emitf("\t}\n\treturn 0;\n}\n\n");
}

static void
emit_cost(Decl *d, const char *P)
{
	Buf pre = { 0 };
	Ctx x = ctx_for(d, M_REF, &pre, P);
	const char *e = compile_expr(&x, d->cost);
	emitf("static double\n%s_cost(const AxConc *c, int dtype_bytes)\n{\n", P);
	emit_infer(d, P, 0);
	emitf("\tint64_t sym[%d];\n\t%s_bind_c(c, sym);\n\t(void)sym;\n\t(void)dtype_bytes;\n", d->syms.n ? d->syms.n : 1, P);
	emitf("\t/* %s */\n%s\treturn (double)(%s);\n}\n\n", locstr(d->cost->loc), buf_str(&pre), e);
}

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

unsigned
engine_mask(Gen *g, const Decl *d)
{
	unsigned m = 0;
	for (int i = 1; i < d->engines.n; i += 2) {
		int k = index_in(&g->engines, d->engines.v[i]);
		if (k >= 0)
			m |= 1u << k;
	}
	return m;
}

unsigned
mem_mask(Gen *g, const List *mems)
{
	unsigned m = 0;
	for (int i = 1; i < mems->n; i += 2) {
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
	emitf("NULL };\nstatic const char *const %s_python[] = { ", P);
	for (int j = 1; j < d->python.n; j += 2)
		emitf("%s, ", cstr(d->python.v[j]));
	emitf("NULL };\n\n");
}

void
emit_opinst(Gen *g, Decl *d)
{
	const char *P = xprintf("%s_%s", d->kind == D_OP ? "op" : "inst", d->name);
	emitf("/* ---- %s: %s ---- */\n\n", locstr(d->loc), sig_str(d));
	emit_layout(g, d, P);
	emit_bind(d, P, 0);
	emit_bind(d, P, 1);
	emit_check(g, d, P);
	emit_pre(g, d, P);
	emit_enc(d, P);
	emit_ref(d, P);
	if (d->cost)
		emit_cost(d, P);
}
