/*
 * emit.c — writes the C for one target: build/gen/<target>/{fns,ops,insts}.def
 * and target.c (the per-op functions come from emit_op.c).
 *
 * target.c holds, per op and instruction (sorted by name, each behind a
 * `/ * file:line * /` note): its layout tables, a concrete precondition check,
 * the same preconditions as a term, its symbolic result shape, its element
 * encoder (terms, reductions kept visible), a reference kernel on float32
 * arrays, and for instructions a cost function; then the tables the runtime
 * indexes and one exported `const AxTarget ax_target_<name>`.  Output depends
 * only on the spec text, so regeneration is byte-identical.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "emit_expr.h"
#include "emit_op.h"

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
			Ctx x = ctx_for(f, M_REF, &pre, "");
			const char *e = compile_expr(&x, f->def);
			emitf("%s\treturn %s;\n}\n\n", buf_str(&pre), e);
		}
		if (f->def) {
			Ctx x = ctx_for(f, M_TERM, NULL, "");
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
emit_axioms(List *axioms)
{
	emitf("/* ---- axioms ---- */\n\n");
	for (int i = 0; i < axioms->n; i++) {
		Decl *a = axioms->v[i];
		Ctx x = ctx_for(a, M_TERM, NULL, "");
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
			Ctx x = ctx_for(en, M_TERM, NULL, "");
			emitf("\tcase %d: return %s;   /* %s */\n", k, compile_expr(&x, it->sem), it->name);
		}
		emitf("\t}\n\tax_die(\"enum %s: item %%d\", item);\n}\n\n", en->name);
		emitf("static double\nenum_%s_ref(int item, const double *p)\n{\n\tswitch (item) {\n", en->name);
		for (int k = 0; k < en->items.n; k++) {
			EnumItem *it = en->items.v[k];
			Buf pre = { 0 };
			Ctx x = ctx_for(en, M_REF, &pre, "");
			x.depth = 2;
			const char *e = compile_expr(&x, it->sem);
			emitf("\tcase %d: {   /* %s */\n%s\t\treturn %s;\n\t}\n", k, it->name, buf_str(&pre), e);
		}
		emitf("\t}\n\treturn 0;\n}\n\n");
	}
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
	unsigned engines = engine_mask(g, d);
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
	emitf("\t  0x%xu, 0x%xu, %d, %s_gran, %s_python, %d,\n", engines, mem_mask(g, &d->outmems), out_par, P, P,
	      d->layout_only);
	emitf("\t  %s,\n\t  %s,\n\t  %s,\n\t  %s,\n", cstr(d->emit), cstr(join_where(d)),
	      d->cost ? cstr(expr_str(d->cost)) : "NULL", cstr(buf_str(&body)));
	unsigned apart_mem = 0, apart_opnds = 0;
	if (d->apart.n) {
		List m = { 0 };
		list_push(&m, d->apart.v[0]);
		list_push(&m, d->apart.v[1]);
		apart_mem = mem_mask(g, &m);
		for (int k = 3; k < d->apart.n; k += 2)
			for (int i = 0; i < d->operands.n; i++)
				if (strcmp(((Operand *)d->operands.v[i])->name, d->apart.v[k]) == 0)
					apart_opnds |= 1u << i;
	}
	emitf("\t  &%s_L, %s_check, %s_pre, %s_shape, %s_enc, %s_ref, %s, 0x%xu, 0x%xu },\n", P, P, P, P, P, P,
	      d->cost ? xprintf("%s_cost", P) : "NULL", apart_mem, apart_opnds);
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
		if (d->kind != D_KERNEL)
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
	emit_axioms(&axioms);
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
		emitf("\t[FN_%s] = { %s, %s, %d, %d, %s, fn_%s_ref, %s, %s },\n", f->name, cstr(f->name), cstr(locstr(f->loc)),
		      f->params.n, f->def != NULL, f->def ? xprintf("fn_%s_unfold", f->name) : "NULL", f->name,
		      f->def ? cstr(expr_str(f->def)) : "NULL", cstr(f->ref));
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
		unsigned rw[2];
		for (int w = 0; w < 2; w++) {   /* reads(...), writes(...): every memory when left out */
			rw[w] = g.mems.n >= 32 ? 0xffffffffu : (1u << g.mems.n) - 1;
			for (int k = 0; k < e->props.n; k++) {
				Prop *p = e->props.v[k];
				if (strcmp(p->name, w ? "writes" : "reads") == 0)
					rw[w] = mem_mask(&g, &p->mems);
			}
		}
		emitf("\t{ %s, %.17g, %d, %.17g, %.17g, %.17g, %d, 0x%xu, 0x%xu },   /* %s */\n", cstr(e->name),
		      prop(e, "clock", NULL), (int)prop(e, "queues", NULL), prop(e, "bandwidth", NULL),
		      prop(e, "latency", NULL), prop(e, "gap", NULL), dma, rw[0], rw[1], locstr(e->loc));
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
	emitf("const AxTarget ax_target_%s = {\n\t%s, %s, files,\n", tname, cstr(tname), cstr(spec->target->kernel));
	emitf("\tNOPS, NINSTS, NFNS, %d, %d, %d, %d, %d,\n", axioms.n, g.nenums, g.engines.n, g.mems.n, g.templates.n);
	emitf("\tops, insts, fns, axioms, enums, engines, mems, templates,\n\t%s,\n\t%s,\n};\n", cstr(spec->numpy_file),
	      cstr(spec->numpy));
	fclose(out);
}
