/*
 * emit_c.c — a candidate's statements (nest.h) as one C function with the
 * identical loop nest, for libtcc (ckernel.c compiles and runs it).
 *
 * The loops, sizes and loop variables are the kernel's, written in C; every
 * other statement is a call of a bridge function of ckernel.c (axk_*), which
 * runs the target's generated reference kernels on row-major float32 tiles:
 * an instruction by its index in the target's instruction table (never by
 * name), a view by its layout op's own reference kernel over whole tensors.
 * A value reference is an array { base, nidx, ellipsis, start, len, ... }:
 * base >= 0 the variable v<base>, < 0 the off-chip tensor of node -1 - base;
 * per dim of the base a start (the statement's integer expression over the
 * loop variables, valid C as written) and a length (0: one index, the dim
 * dropped).  A slice that folds a dim (nest.h) has ellipsis 2 and per dim
 * five: start, len, fold, fin, flen (fold > 0: the dim seen as groups of
 * fold rows, start and len over the groups, fin and flen the row in the
 * group; 0: none).  The file needs no header (the prelude declares the bridge) and
 * uses no macro; arrays are compound literals of explicit size (tcc reads an
 * unsized one twice), so a candidate compiles in about half a millisecond.
 * A comment above each call says what it is in the kernel's terms.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nest.h"

typedef struct Cw {
	const Nest *ns;
	const AxGraph *g;
	const AxTarget *t;
	FILE *f;
	char *why;
	size_t nwhy;
	int bad;
} Cw;

static const char prelude[] =
	"typedef long long int64_t;\n"
	"typedef struct AxkCtx AxkCtx;\n"
	"/* a value reference: { base, nidx, ellipsis, start0, len0, start1, len1, ... }, base >= 0 the\n"
	" * variable v<base>, < 0 the off-chip tensor of node -1 - base; len 0: one index, the dim dropped;\n"
	" * ellipsis 2: per dim start, len, fold, fin, flen (fold > 0: the dim in groups of fold rows);\n"
	" * a null reference: an operand left out.  Every call returns 0, or 1 with the reason kept. */\n"
	"int axk_input(AxkCtx *k, int node, const float *data, int rank, const int64_t *dims);\n"
	"int axk_tensor(AxkCtx *k, int node, int rank, const int64_t *dims);\n"
	"int axk_buf(AxkCtx *k, int var, int rank, const int64_t *dims);\n"
	"int axk_inst(AxkCtx *k, int var, int inst, int engine, const int *attr, const double *aval,\n"
	"             const int64_t *const *opnd, const int64_t *out, int rank, const int64_t *dims);\n"
	"int axk_store(AxkCtx *k, const int64_t *dst, const int64_t *src);\n"
	"int axk_acc(AxkCtx *k, const int64_t *dst, const int64_t *src);\n"
	"int axk_set(AxkCtx *k, int var, const int64_t *src);\n"
	"int axk_view(AxkCtx *k, int node, int op, int is_inst, int engine, const int *in, const int *grank,\n"
	"             const int *attr, const double *aval);\n"
	"int axk_output(AxkCtx *k, float **out, int k_, int node);\n";

static void
fail_cw(Cw *w, const char *msg, int arg)
{
	if (!w->bad)
		snprintf(w->why, w->nwhy, msg, arg);
	w->bad = 1;
}

static void
indent(Cw *w, int depth)
{
	for (int i = 0; i <= depth; i++)
		fputs("    ", w->f);
}

/* a double as a C constant (exact; infinities and NaN as expressions) */
static void
put_double(FILE *f, double v)
{
	if (isnan(v))
		fputs("(0.0 / 0.0)", f);
	else if (isinf(v))
		fputs(v > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)", f);
	else {
		char b[40];
		snprintf(b, sizeof b, "%.17g", v);
		fputs(b, f);
		if (!strpbrk(b, ".eE"))
			fputs(".0", f);
	}
}

/* (const int[n]){ v0, ... } (one 0 when n is 0): sized, so tcc reads the list once */
static void
put_ints(FILE *f, const int *v, int n)
{
	fprintf(f, "(const int[%d]){ ", n ? n : 1);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? ", " : "", v[i]);
	fputs(n ? " }" : "0 }", f);
}

static void
put_vals(FILE *f, const double *v, int n)
{
	fprintf(f, "(const double[%d]){ ", n ? n : 1);
	for (int i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		put_double(f, v[i]);
	}
	fputs(n ? " }" : "0 }", f);
}

/* rank, (const int64_t[rank]){ dims } */
static void
put_dims(FILE *f, const AxShape *s)
{
	fprintf(f, "%d, (const int64_t[%d]){ ", s->rank, s->rank ? s->rank : 1);
	for (int d = 0; d < s->rank; d++)
		fprintf(f, "%s%lld", d ? ", " : "", (long long)s->d[d]);
	fputs(s->rank ? " }" : "0 }", f);
}

static int
ref_ok(Cw *w, const NsRef *r)
{
	if (r->var == NS_NONE)
		return 1;
	if (r->nidx < 0 || r->nidx > AX_MAXR + 2) {
		fail_cw(w, "a reference has %d indices", r->nidx);
		return 0;
	}
	if (r->var < 0 && -1 - r->var >= w->g->nnodes) {
		fail_cw(w, "a reference names node %d, which the graph does not have", -1 - r->var);
		return 0;
	}
	for (int d = 0; d < r->nidx; d++)
		if (!r->idx[d].start[0] || memchr(r->idx[d].start, 0, sizeof r->idx[d].start) == NULL ||
		    (r->idx[d].fold > 0 && (!r->idx[d].fin[0] || memchr(r->idx[d].fin, 0, sizeof r->idx[d].fin) == NULL))) {
			fail_cw(w, "dim %d of a reference has no start", d);
			return 0;
		}
	return 1;
}

/* a value reference (see the prelude), or 0 for an omitted operand */
static void
put_ref(Cw *w, const NsRef *r)
{
	if (r->var == NS_NONE || !ref_ok(w, r)) {
		fputs("0", w->f);
		return;
	}
	int folded = 0;
	for (int d = 0; d < r->nidx; d++)
		folded |= r->idx[d].fold > 0;
	fprintf(w->f, "(const int64_t[%d]){ %d, %d, %d", 3 + (folded ? 5 : 2) * r->nidx, r->var, r->nidx,
	        folded ? 2 : r->ellipsis);
	for (int d = 0; d < r->nidx; d++) {
		fprintf(w->f, ", %s, %lld", r->idx[d].start, (long long)r->idx[d].len);
		if (folded)
			fprintf(w->f, ", %d, %s, %d", r->idx[d].fold, r->idx[d].fold > 0 ? r->idx[d].fin : "0", r->idx[d].flen);
	}
	fputs(" }", w->f);
}

/* a comment's text: no comment terminator inside */
static void
put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (s[0] == '*' && s[1] == '/')
			fputs("* /", f), s++;
		else if (*s != '\n')
			fputc(*s, f);
	}
}

/* a reference as the reader knows it, for comments: v3, X[i0 * 4:+4, 0], t2 */
static void
put_ref_text(Cw *w, const NsRef *r)
{
	char nm[32];
	if (r->var >= 0)
		fprintf(w->f, "v%d", r->var);
	else
		fputs(nest_tensor_name(w->g, -1 - r->var, nm, sizeof nm), w->f);
	if (!r->nidx)
		return;
	fputc('[', w->f);
	for (int d = 0; d < r->nidx; d++) {
		fputs(d ? ", " : "", w->f);
		put_text(w->f, r->idx[d].start);
		if (r->idx[d].len)
			fprintf(w->f, ":+%lld", (long long)r->idx[d].len);
	}
	fputc(']', w->f);
}

static void
inst_stmt(Cw *w, const NsStmt *s)
{
	const AxTarget *t = w->t;
	if (s->inst < 0 || s->inst >= t->ninsts) {
		fail_cw(w, "a statement names instruction %d, which the target does not have", s->inst);
		return;
	}
	const AxOp *op = &t->insts[s->inst];
	for (int o = 0; o < op->nopnd; o++)
		if (!ref_ok(w, &s->opnd[o]))
			return;
	/* what it is, for the reader: %node v3 = NAME(operand=ref, ..., attribute=value) on ENGINE */
	indent(w, s->depth);
	fprintf(w->f, "/* %%%d v%d = %s(", s->node, s->var, op->name);
	for (int o = 0; o < op->nopnd; o++) {
		fprintf(w->f, "%s%s=", o ? ", " : "", op->opnd[o].name);
		if (s->opnd[o].var == NS_NONE)
			fputs("default", w->f);
		else
			put_ref_text(w, &s->opnd[o]);
	}
	for (int a = 0; a < op->nattr; a++) {
		fprintf(w->f, "%s%s=", op->nopnd || a ? ", " : "", op->attr[a].name);
		if (op->attr[a].kind == AX_ATTR_ENUM)
			fputs(t->enums[op->attr[a].enum_id].items[s->attr[a]], w->f);
		else
			fprintf(w->f, "%.9g", s->aval[a]);
	}
	fputs(")", w->f);
	if (s->engine >= 0 && s->engine < t->nengines)
		fprintf(w->f, " on %s", t->engines[s->engine].name);
	if (s->out.var != NS_NONE) {
		fputs(", into ", w->f);
		put_ref_text(w, &s->out);
	}
	fputs(" */\n", w->f);
	int attr[AX_MAXATTR];
	double aval[AX_MAXATTR];
	for (int a = 0; a < op->nattr; a++) {
		attr[a] = op->attr[a].kind == AX_ATTR_ENUM ? s->attr[a] : 0;
		aval[a] = op->attr[a].kind == AX_ATTR_ENUM ? 0 : s->aval[a];
	}
	indent(w, s->depth);
	fprintf(w->f, "if (axk_inst(axk, %d, %d, %d, ", s->var, s->inst, s->engine);
	put_ints(w->f, attr, op->nattr);
	fputs(", ", w->f);
	put_vals(w->f, aval, op->nattr);
	fprintf(w->f, ", (const int64_t *const[%d]){ ", op->nopnd ? op->nopnd : 1);
	for (int o = 0; o < op->nopnd; o++) {
		fputs(o ? ", " : "", w->f);
		put_ref(w, &s->opnd[o]);
	}
	fputs(op->nopnd ? " }, " : "0 }, ", w->f);
	put_ref(w, &s->out);
	fputs(", ", w->f);
	put_dims(w->f, &s->shape);
	fputs(")) return __LINE__;\n", w->f);
}

static void
view_stmt(Cw *w, const NsStmt *s)
{
	const AxGraph *g = w->g;
	if (s->node < 0 || s->node >= g->nnodes || g->nodes[s->node].op < 0) {
		fail_cw(w, "a view names node %d, which is no operation", s->node);
		return;
	}
	const AxNode *nd = &g->nodes[s->node];
	const AxOp *op = node_op(g, nd);
	char nm[32];
	indent(w, s->depth);
	fprintf(w->f, "/* %s = %s(", nest_tensor_name(g, s->node, nm, sizeof nm), op->name);
	for (int o = 0; o < nd->nin; o++)
		fprintf(w->f, "%s%s", o ? ", " : "", nd->in[o] >= 0 ? nest_tensor_name(g, nd->in[o], nm, sizeof nm) : "default");
	fputs("), a view: its op over whole tensors */\n", w->f);
	int in[AX_MAXOPND], attr[AX_MAXATTR];
	double aval[AX_MAXATTR];
	for (int o = 0; o < op->nopnd; o++)
		in[o] = o < nd->nin ? nd->in[o] : -1;
	for (int a = 0; a < op->nattr; a++) {
		attr[a] = op->attr[a].kind == AX_ATTR_ENUM ? nd->attr[a] : 0;
		aval[a] = 0;
		if (op->attr[a].kind != AX_ATTR_ENUM && (!nd->sattr[a] || t_eval(nd->sattr[a], &w->ns->env, &aval[a]) != 0))
			fail_cw(w, "cannot evaluate an attribute of the view of node %d", s->node);
	}
	indent(w, s->depth);
	fprintf(w->f, "if (axk_view(axk, %d, %d, %d, %d, ", s->node, nd->op, nd->inst, nd->engine);
	put_ints(w->f, in, op->nopnd);
	fputs(", ", w->f);
	put_ints(w->f, nd->grank, AX_MAXGROUP);
	fputs(", ", w->f);
	put_ints(w->f, attr, op->nattr);
	fputs(", ", w->f);
	put_vals(w->f, aval, op->nattr);
	fputs(")) return __LINE__;\n", w->f);
}

static void
stmt(Cw *w, const NsStmt *s)
{
	const AxGraph *g = w->g;
	FILE *f = w->f;
	char nm[32];
	switch (s->kind) {
	case NS_SIZE:
		indent(w, s->depth);
		fprintf(f, "const int64_t %s = %lld;\n", s->name, (long long)s->hi);
		break;
	case NS_NOTE:
		if (s->seq)
			fputc('\n', f);
		indent(w, s->depth);
		fprintf(f, "/* %%%d ", s->node);
		put_text(f, s->text);
		fputs(" */\n", f);
		break;
	case NS_TENSOR:
		if (s->node < 0 || s->node >= g->nnodes) {
			fail_cw(w, "a tensor names node %d, which the graph does not have", s->node);
			break;
		}
		indent(w, s->depth);
		fprintf(f, "/* %s, off chip%s */\n", nest_tensor_name(g, s->node, nm, sizeof nm), s->output ? ", a result" : "");
		indent(w, s->depth);
		fprintf(f, "if (axk_tensor(axk, %d, ", s->node);
		put_dims(f, &s->shape);
		fputs(")) return __LINE__;\n", f);
		break;
	case NS_BUF:
		indent(w, s->depth);
		fprintf(f, "/* v%d, a buffer on chip */\n", s->var);
		indent(w, s->depth);
		fprintf(f, "if (axk_buf(axk, %d, ", s->var);
		put_dims(f, &s->shape);
		fputs(")) return __LINE__;\n", f);
		break;
	case NS_LOOP:
		indent(w, s->depth);
		fprintf(f, "for (int64_t %s = 0; %s < %lld; %s++) {%s\n", s->name, s->name, (long long)s->hi, s->name,
		        s->seq ? "   /* in order */" : "");
		break;
	case NS_END:
		indent(w, s->depth);
		fputs("}\n", f);
		break;
	case NS_INST:
		inst_stmt(w, s);
		break;
	case NS_STORE:
		if (!ref_ok(w, &s->out) || !ref_ok(w, &s->src))
			break;
		indent(w, s->depth);
		fputs("/* ", f);
		put_ref_text(w, &s->out);
		fputs(" = ", f);
		put_ref_text(w, &s->src);
		fputs(" */\n", f);
		indent(w, s->depth);
		fputs("if (axk_store(axk, ", f);
		put_ref(w, &s->out);
		fputs(", ", f);
		put_ref(w, &s->src);
		fputs(")) return __LINE__;\n", f);
		break;
	case NS_ACC:
	case NS_SET: {
		if (!ref_ok(w, &s->out) || !ref_ok(w, &s->src))
			break;
		indent(w, s->depth);
		fputs("/* ", f);
		put_ref_text(w, &s->out);
		fputs(s->kind == NS_ACC ? " += " : " = ", f);
		put_ref_text(w, &s->src);
		fputs(s->kind == NS_ACC ? ", in place */\n" : " */\n", f);
		indent(w, s->depth);
		int whole = s->out.var >= 0 && !s->out.nidx;
		if (s->kind == NS_SET && whole)   /* the running value: the variable rebound */
			fprintf(f, "if (axk_set(axk, %d, ", s->out.var);
		else {   /* accumulated in place, or a tile set into a block buffer */
			fprintf(f, "if (axk_%s(axk, ", s->kind == NS_ACC ? "acc" : "store");
			put_ref(w, &s->out);
			fputs(", ", f);
		}
		put_ref(w, &s->src);
		fputs(")) return __LINE__;\n", f);
		break;
	}
	case NS_VIEW:
		view_stmt(w, s);
		break;
	default:
		fail_cw(w, "unknown statement kind %d", s->kind);
	}
}

char *
nest_c(const Nest *ns, const char *name, char *why, size_t nwhy)
{
	const AxGraph *g = ns->g;
	char *src = NULL;
	size_t len = 0;
	Cw w = { .ns = ns, .g = g, .t = g->t, .why = why, .nwhy = nwhy };
	w.f = open_memstream(&src, &len);
	if (!w.f)
		ax_die("out of memory");
	fprintf(w.f, "/* %s: the C rendering of a candidate's loop nests (axonc, target %s): the loops are\n"
	             " * the kernel's; instructions, stores, accumulations and views call the bridge\n"
	             " * (runtime/ckernel.c), which runs the target's reference kernels.  in[p]: tensor\n"
	             " * parameter p (by position); out[k]: result k, malloc'd.  0 = ok, else the line\n"
	             " * of the call that failed. */\n",
	        name, g->t->name);
	fputs(prelude, w.f);
	fprintf(w.f, "\nint\n%s(AxkCtx *axk, float *const *axk_in, float **axk_out)\n{\n", name);
	for (int p = 0; p < g->nparams; p++)
		if (!g->params[p].tensor) {
			fprintf(w.f, "    const double %s = ", g->params[p].name);
			put_double(w.f, g->params[p].defval);
			fputs(";   /* a scalar parameter, at its default */\n", w.f);
		}
	int i = 0;
	for (; i < ns->n && ns->s[i].kind == NS_SIZE; i++)
		stmt(&w, &ns->s[i]);
	for (int id = 0; id < g->nnodes; id++) {   /* the tensor parameters, after the sizes */
		const AxNode *nd = &g->nodes[id];
		AxShape sh;
		if (nd->op >= 0)
			continue;
		if (graph_shape(g, id, &ns->env, &sh) != 0) {
			fail_cw(&w, "cannot evaluate the shape of input %d", nd->input);
			break;
		}
		fprintf(w.f, "    /* %s, a kernel input */\n", g->params[nd->input].name);
		fprintf(w.f, "    if (axk_input(axk, %d, axk_in[%d], ", id, nd->input);
		put_dims(w.f, &sh);
		fputs(")) return __LINE__;\n", w.f);
	}
	for (; i < ns->n && !w.bad; i++)
		stmt(&w, &ns->s[i]);
	fputc('\n', w.f);
	for (int k = 0; k < g->noutputs; k++)
		fprintf(w.f, "    if (axk_output(axk, axk_out, %d, %d)) return __LINE__;\n", k, g->outputs[k]);
	fputs("    return 0;\n}\n", w.f);
	fclose(w.f);
	if (w.bad) {
		free(src);
		return NULL;
	}
	return src;
}
