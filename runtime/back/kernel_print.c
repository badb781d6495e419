/*
 * kernel_print.c — a candidate's statements (nest.h) as a kernel, every line
 * through a template of the target's specs: each instruction's `emit`
 * string and the kernel templates (header, kernel, buffer, output,
 * loop_parallel, loop_sequential, store, accumulate, engine_ref, dtype_*).
 * Slices print as base[start:start + len, index, ...]; views as the NumPy
 * expression of their layout op over the off-chip tensors.
 */
#include <stdlib.h>
#include <string.h>
#include "nest.h"

typedef struct Pr {
	const Nest *ns;
	const AxTarget *t;
	FILE *f;
	char *why;
	size_t nwhy;
	int bad;
	const char *dtype;       /* the template of the kernel's element type (dtype_f32, dtype_bf16) */
	int *nblk;               /* per variable: the block dims of a block buffer (0: none) */
	char *outview;           /* per node: a kernel result is a view of its tensor */
} Pr;

static const char *
tmpl(const AxTarget *t, const char *name)
{
	for (int i = 0; i < t->ntemplates; i++)
		if (strcmp(t->templates[i].name, name) == 0)
			return t->templates[i].text;
	return NULL;
}

static const char *
need(Pr *p, const char *name)
{
	const char *t = tmpl(p->t, name);
	if (!t && !p->bad) {
		snprintf(p->why, p->nwhy, "the target has no '%s' template", name);
		p->bad = 1;
	}
	return t ? t : "";
}

/* text with every {key} replaced by its value (unknown keys stay) */
static void
fill(FILE *f, const char *text, const char *const *keys, const char *const *vals, int n)
{
	for (const char *p = text; *p; p++) {
		if (*p == '{') {
			const char *e = strchr(p, '}');
			int k;
			for (k = 0; e && k < n; k++)
				if (strlen(keys[k]) == (size_t)(e - p - 1) && strncmp(keys[k], p + 1, (size_t)(e - p - 1)) == 0)
					break;
			if (e && k < n) {
				fputs(vals[k], f);
				p = e;
				continue;
			}
		}
		fputc(*p, f);
	}
}

static void
indent(Pr *p, int depth)
{
	for (int i = 0; i <= depth; i++)
		fputs("    ", p->f);
}

/* one template as a statement line */
static void
line(Pr *p, int depth, const char *name, const char *const *keys, const char *const *vals, int n)
{
	const char *t = need(p, name);
	indent(p, depth);
	fill(p->f, t, keys, vals, n);
	fputc('\n', p->f);
}

static void
shape_text(const AxShape *s, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "(");
	for (int d = 0; d < s->rank && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%lld%s", (long long)s->d[d], s->rank == 1 || d + 1 < s->rank ? ", " : "");
	if (k < n)
		snprintf(buf + k, n - k, ")");
}

/* The statements keep a block buffer as (partitions, blocks..., the tile's
 * other dims); the kernel shows the nb block dims first, then the partition
 * dim, then the rest (the target's par_dim template marks the partition dim,
 * if it has one).  The statement dim printed at position q: */
static int
buf_dim(int nb, int q)
{
	return nb <= 0 ? q : q < nb ? q + 1 : q == nb ? 0 : q;
}

static void
buf_shape_text(Pr *p, const AxShape *s, int nb, char *buf, size_t n)
{
	if (nb <= 0) {
		shape_text(s, buf, n);
		return;
	}
	const char *pt = tmpl(p->t, "par_dim");
	size_t k = (size_t)snprintf(buf, n, "(");
	for (int q = 0; q < s->rank && k < n; q++) {
		int d = buf_dim(nb, q);
		char num[32];
		snprintf(num, sizeof num, "%lld", (long long)s->d[d]);
		if (d == 0 && pt) {
			FILE *m = fmemopen(buf + k, n - k, "w");
			if (!m)
				break;
			const char *k1[] = { "n" }, *v1[] = { num };
			fill(m, pt, k1, v1, 1);
			fclose(m);
			k += strlen(buf + k);
		} else
			k += (size_t)snprintf(buf + k, n - k, "%s", num);
		k += (size_t)snprintf(buf + k, n - k, "%s", q + 1 < s->rank ? ", " : "");
	}
	if (k < n)
		snprintf(buf + k, n - k, ")");
}

/* the element type of a tile in memory mem: a banked memory holds matmul
 * accumulators, kept in fp32 whatever the kernel's type (the model counts
 * them at 4 bytes likewise, measure/model.c) */
static const char *
dtype_of(Pr *p, int mem)
{
	if (mem >= 0 && p->t->mems[mem].banks > 0)
		return need(p, "dtype_f32");
	return need(p, p->dtype);
}

static int
is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* one index (len 0) or range of a slice, after sep */
static size_t
index_text(char *buf, size_t n, const char *sep, const char *start, int64_t len)
{
	size_t k;
	if (!len)
		k = (size_t)snprintf(buf, n, "%s%s", sep, start);
	else if (is_number(start))
		k = (size_t)snprintf(buf, n, "%s%s:%lld", sep, start, atoll(start) + (long long)len);
	else
		k = (size_t)snprintf(buf, n, "%s%s:%s + %lld", sep, start, start, (long long)len);
	return k < n ? k : n;
}

/* An off-chip tensor whose slice folds a dim (nest.h): the target's reshape
 * of base with that dim as (groups, fold), into base; 1 = ok (also with no
 * fold), 0 and why if the target has no reshape or the fold does not divide. */
static int
fold_view(Pr *p, const NsRef *r, char *base, size_t n)
{
	int any = 0;
	for (int d = 0; d < r->nidx; d++)
		any |= r->idx[d].fold > 0;
	if (!any)
		return 1;
	const char *rt = tmpl(p->t, "reshape");
	AxShape bs, sh = { 0 };
	int ok = rt && graph_shape(p->ns->g, -1 - r->var, &p->ns->env, &bs) == 0 && bs.rank == r->nidx;
	for (int d = 0; ok && d < bs.rank; d++) {
		int64_t f = r->idx[d].fold;
		if (f > 0 && (bs.d[d] % f || sh.rank + 2 > AX_MAXR))
			ok = 0;
		else if (f > 0) {
			sh.d[sh.rank++] = bs.d[d] / f;
			sh.d[sh.rank++] = f;
		} else if (sh.rank < AX_MAXR)
			sh.d[sh.rank++] = bs.d[d];
		else
			ok = 0;
	}
	if (!ok) {
		if (!p->bad)
			snprintf(p->why, p->nwhy, "%s cannot be seen in groups of rows (a folded block)", base);
		p->bad = 1;
		return 0;
	}
	char shape[128], src[32];
	shape_text(&sh, shape, sizeof shape);
	snprintf(src, sizeof src, "%.31s", base);
	FILE *m = fmemopen(base, n, "w");
	if (!m)
		ax_die("out of memory");
	const char *k2[] = { "src", "shape" }, *v2[] = { src, shape };
	fill(m, rt, k2, v2, 2);
	fclose(m);
	return 1;
}

/* a ref as text: v3, X[i0 * 128:i0 * 128 + 128, 0], t2[...] */
static void
ref_text(Pr *p, const NsRef *r, char *buf, size_t n)
{
	const Nest *ns = p->ns;
	int nb = r->var >= 0 && r->var < ns->nvars && r->nidx > 1 ? p->nblk[r->var] : 0;
	char base[160];
	if (r->var >= 0)
		snprintf(base, sizeof base, "v%d", r->var);
	else
		nest_tensor_name(ns->g, -1 - r->var, base, sizeof base);
	if (r->var < 0 && !fold_view(p, r, base, sizeof base))
		return;
	size_t k = (size_t)snprintf(buf, n, "%s", base);
	if (!r->nidx && !r->ellipsis)
		return;
	k += (size_t)snprintf(buf + k, n - k, "[%s", r->ellipsis ? "..." : "");
	for (int q = 0; q < r->nidx && k < n; q++) {
		int d = nb < r->nidx ? buf_dim(nb, q) : q;
		const NsDim *x = &r->idx[d];
		k += index_text(buf + k, n - k, q ? ", " : "", x->start, x->len);
		if (x->fold > 0 && k < n)   /* the row in the group, after the group */
			k += index_text(buf + k, n - k, ", ", x->fin, x->flen);
	}
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

/* the scalar parameter t names (a non-tensor parameter of the program), or -1 */
static int
scalar_param(const AxGraph *g, const Term *t)
{
	if (t->kind != TK_VAR)
		return -1;
	for (int i = 0; i < g->nparams; i++)
		if (!g->params[i].tensor && strcmp(g->params[i].name, t->name) == 0)
			return i;
	return -1;
}

static int
mentions_param(const AxGraph *g, const Term *t)
{
	if (scalar_param(g, t) >= 0)
		return 1;
	for (int k = 0; k < t->n; k++)
		if (mentions_param(g, t->a[k]))
			return 1;
	return 0;
}

/* a number as Python reads it back exactly, the shortest way */
static void
py_number(char *buf, size_t n, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".eEn"))
		snprintf(buf + strlen(buf), n - strlen(buf), ".0");
}

/* A float attribute as Python: the parameters it mentions by name, every part
 * without one evaluated (sizes are the kernel's); 0 = written. */
static int
py_attr(FILE *f, const AxGraph *g, const AxEnv *env, const Term *t)
{
	double v;
	char num[40];
	if (!mentions_param(g, t)) {
		if (t_eval(t, env, &v) != 0)
			return -1;
		py_number(num, sizeof num, v);
		fputs(v < 0 ? "(" : "", f);
		fputs(num, f);
		fputs(v < 0 ? ")" : "", f);
		return 0;
	}
	int pi = scalar_param(g, t);
	if (pi >= 0) {
		fputs(g->params[pi].name, f);
		return 0;
	}
	const char *op = NULL;
	switch ((TermKind)t->kind) {
	case TK_TOREAL:
		return py_attr(f, g, env, t->a[0]);
	case TK_CALL:   /* a fn defined by an expression: that expression */
		if (!g->t->fns[t->id].unfold)
			return -1;
		return py_attr(f, g, env, g->t->fns[t->id].unfold(g->tc, t->a));
	case TK_NEG:
		fputs("(-", f);
		if (py_attr(f, g, env, t->a[0]))
			return -1;
		fputc(')', f);
		return 0;
	case TK_ADD: op = " + "; break;
	case TK_SUB: op = " - "; break;
	case TK_MUL: op = " * "; break;
	case TK_DIV: op = " / "; break;
	default:
		return -1;
	}
	fputc('(', f);
	if (py_attr(f, g, env, t->a[0]))
		return -1;
	fputs(op, f);
	if (py_attr(f, g, env, t->a[1]))
		return -1;
	fputc(')', f);
	return 0;
}

static void
inst_line(Pr *p, const NsStmt *s)
{
	const AxTarget *t = p->t;
	const AxOp *op = &t->insts[s->inst];
	const char *keys[2 * AX_MAXOPND + AX_MAXATTR + 3], *vals[2 * AX_MAXOPND + AX_MAXATTR + 3];
	char buf[2 * AX_MAXOPND + AX_MAXATTR + 3][288], opt[AX_MAXOPND][40];
	int n = 0;
	if (!op->emit) {
		if (!p->bad)
			snprintf(p->why, p->nwhy, "instruction %s has no emit template", op->name);
		p->bad = 1;
		return;
	}
	for (int o = 0; o < op->nopnd; o++) {
		keys[n] = op->opnd[o].name;
		if (s->opnd[o].var != NS_NONE)
			ref_text(p, &s->opnd[o], buf[n], sizeof buf[n]);
		else
			snprintf(buf[n], sizeof buf[n], "%.9g", op->opnd[o].defval);
		vals[n] = buf[n];
		n++;
		/* {,name}: ", name=<ref>" when given, nothing when left out (it reads its default) */
		snprintf(opt[o], sizeof opt[o], ",%s", op->opnd[o].name);
		keys[n] = opt[o];
		if (s->opnd[o].var != NS_NONE) {
			char given[sizeof buf[n]];
			memcpy(given, buf[n - 1], sizeof given);
			snprintf(buf[n], sizeof buf[n], ", %.30s=%.250s", op->opnd[o].name, given);
		} else
			buf[n][0] = 0;
		vals[n] = buf[n];
		n++;
	}
	for (int a = 0; a < op->nattr; a++) {
		keys[n] = op->attr[a].name;
		if (op->attr[a].kind == AX_ATTR_ENUM)
			vals[n++] = t->enums[op->attr[a].enum_id].items[s->attr[a]];
		else {
			if (op->attr[a].kind == AX_ATTR_SIZE)
				snprintf(buf[n], sizeof buf[n], "%.0f", s->aval[a]);
			else   /* exactly the value the model and validation used */
				py_number(buf[n], sizeof buf[n], s->aval[a]);
			if (op->attr[a].kind == AX_ATTR_FLOAT && s->aterm[a] && mentions_param(p->ns->g, s->aterm[a])) {
				FILE *m = fmemopen(buf[n], sizeof buf[n], "w");   /* the value a scalar parameter gives */
				int rc = m ? py_attr(m, p->ns->g, &p->ns->env, s->aterm[a]) : -1;
				if (m)
					fclose(m);
				if (rc != 0 && !p->bad) {
					snprintf(p->why, p->nwhy, "an attribute of %s has no Python spelling", op->name);
					p->bad = 1;
				}
			}
			vals[n] = buf[n];
			n++;
		}
	}
	char eng[64] = "";
	const char *er = tmpl(t, "engine_ref");
	if (er && s->engine >= 0) {
		FILE *m = fmemopen(eng, sizeof eng, "w");
		const char *k1[] = { "name" }, *v1[] = { t->engines[s->engine].name };
		fill(m, er, k1, v1, 1);
		fclose(m);
	}
	keys[n] = "engine";
	vals[n++] = eng;
	keys[n] = "dtype";
	vals[n++] = dtype_of(p, s->mem);
	char var[32], out[256];
	snprintf(var, sizeof var, "v%d", s->var);
	int writes_out = strstr(op->emit, "{out}") != NULL;
	if (s->out.var != NS_NONE)
		ref_text(p, &s->out, out, sizeof out);
	else {
		snprintf(out, sizeof out, "%s", var);
		if (writes_out) {   /* the tile it writes: a buffer in its memory */
			char sh[96];
			shape_text(&s->shape, sh, sizeof sh);
			const char *k2[] = { "name", "shape", "dtype", "memory", "partitions" };
			const char *v2[] = { var, sh, dtype_of(p, s->mem), s->mem >= 0 ? t->mems[s->mem].name : "", "" };
			line(p, s->depth, "buffer", k2, v2, 5);
		}
	}
	keys[n] = "out";
	vals[n++] = out;
	indent(p, s->depth);
	if (!writes_out)
		fprintf(p->f, "%s = ", out);
	fill(p->f, op->emit, keys, vals, n);
	fputc('\n', p->f);
}

static void
stmt_line(Pr *p, const NsStmt *s)
{
	const Nest *ns = p->ns;
	const AxGraph *g = ns->g;
	const AxTarget *t = p->t;
	char a[256], b[256];
	switch (s->kind) {
	case NS_SIZE:
		indent(p, s->depth);
		fprintf(p->f, "%s = %lld\n", s->name, (long long)s->hi);
		break;
	case NS_NOTE:
		if (s->seq)
			fputc('\n', p->f);
		indent(p, s->depth);
		fprintf(p->f, "# %%%d %s\n", s->node, s->text);
		break;
	case NS_TENSOR: {
		const char *memname = "";
		for (int m = 0; m < t->nmems; m++)
			if (t->mems[m].offchip) {
				memname = t->mems[m].name;
				break;
			}
		shape_text(&s->shape, b, sizeof b);
		nest_tensor_name(g, s->node, a, sizeof a);
		const char *k2[] = { "name", "shape", "dtype", "memory", "partitions" };
		const char *v2[] = { a, b, dtype_of(p, -1), memname, "" };
		line(p, s->depth, (s->output || p->outview[s->node]) && tmpl(t, "output") ? "output" : "buffer", k2, v2, 5);
		break;
	}
	case NS_BUF: {
		snprintf(a, sizeof a, "v%d", s->var);
		buf_shape_text(p, &s->shape, s->var >= 0 && s->var < ns->nvars ? p->nblk[s->var] : 0, b, sizeof b);
		const char *k2[] = { "name", "shape", "dtype", "memory", "partitions" };
		const char *v2[] = { a, b, dtype_of(p, s->mem), s->mem >= 0 ? t->mems[s->mem].name : "", "" };
		line(p, s->depth, "buffer", k2, v2, 5);
		break;
	}
	case NS_LOOP: {
		char hi[32];
		snprintf(hi, sizeof hi, "%lld", (long long)s->hi);
		const char *k[] = { "var", "hi", "lo", "step" }, *v[] = { s->name, hi, "0", "1" };
		line(p, s->depth, s->seq ? "loop_sequential" : "loop_parallel", k, v, 4);
		break;
	}
	case NS_END:
		break;
	case NS_INST:
		inst_line(p, s);
		break;
	case NS_STORE: {
		ref_text(p, &s->out, a, sizeof a);
		ref_text(p, &s->src, b, sizeof b);
		const char *k2[] = { "dst", "src" }, *v2[] = { a, b };
		line(p, s->depth, "store", k2, v2, 2);
		break;
	}
	case NS_ACC: {
		ref_text(p, &s->out, a, sizeof a);
		ref_text(p, &s->src, b, sizeof b);
		const char *k2[] = { "dst", "src" }, *v2[] = { a, b };
		line(p, s->depth, "accumulate", k2, v2, 2);
		break;
	}
	case NS_SET:
		ref_text(p, &s->out, a, sizeof a);
		ref_text(p, &s->src, b, sizeof b);
		indent(p, s->depth);
		fprintf(p->f, "%s = %s\n", a, b);
		break;
	case NS_VIEW: {
		const AxNode *nd = &g->nodes[s->node];
		const char *rt = tmpl(t, "reshape");
		if (rt && (s->reshape || node_is_reshape(g, s->node))) {   /* the target's own reshape, to literal sizes */
			AxShape sh = { .rank = nd->rank };
			for (int d = 0; d < nd->rank; d++) {
				double v = 0;
				if (t_eval(nd->dim[d], &ns->env, &v) != 0 && !p->bad) {
					snprintf(p->why, p->nwhy, "a size of %s cannot be evaluated", node_op(g, nd)->name);
					p->bad = 1;
				}
				sh.d[d] = (int64_t)v;
			}
			char src[32];
			shape_text(&sh, b, sizeof b);
			nest_tensor_name(g, nd->in[0], src, sizeof src);
			indent(p, s->depth);
			fprintf(p->f, "%s = ", nest_tensor_name(g, s->node, a, sizeof a));
			const char *k2[] = { "src", "shape" }, *v2[] = { src, b };
			fill(p->f, rt, k2, v2, 2);
			fputc('\n', p->f);
			break;
		}
		char names[AX_MAXOPND][16], w[128];
		for (int o = 0; o < nd->nin; o++)
			nest_tensor_name(g, nd->in[o], names[o], sizeof names[o]);
		indent(p, s->depth);
		fprintf(p->f, "%s = ", nest_tensor_name(g, s->node, a, sizeof a));
		if (node_numpy(p->f, g, s->node, names, w, sizeof w) != 0 && !p->bad) {
			snprintf(p->why, p->nwhy, "%s", w);
			p->bad = 1;
		}
		fputc('\n', p->f);
		break;
	}
	}
}

/* the block dims of each block buffer: its rank less that of the tiles refs take of it */
static void
block_dims(const Nest *ns, int *nblk)
{
	int *rank = calloc((size_t)ns->nvars + 1, sizeof *rank);
	if (!rank)
		ax_die("out of memory");
	for (int i = 0; i < ns->n; i++)
		if (ns->s[i].kind == NS_BUF && ns->s[i].var >= 0 && ns->s[i].var < ns->nvars && !ns->s[i].onetile)
			rank[ns->s[i].var] = ns->s[i].shape.rank;   /* one tile: its dims as they are */
	for (int i = 0; i < ns->n; i++) {
		const NsStmt *s = &ns->s[i];
		const NsRef *r[AX_MAXOPND + 2];
		int nr = 0;
		for (int o = 0; o < AX_MAXOPND; o++)
			r[nr++] = &s->opnd[o];
		r[nr++] = &s->out;
		r[nr++] = &s->src;
		for (int k = 0; k < nr; k++) {
			int v = r[k]->var;
			if (r[k]->var == NS_NONE || v < 0 || v >= ns->nvars || !rank[v] || r[k]->nidx != rank[v])
				continue;
			int nb = rank[v] - r[k]->shape.rank;
			if (nb > 0 && (!nblk[v] || nb < nblk[v]))
				nblk[v] = nb;
		}
	}
	free(rank);
}

char *
nest_kernel(const Nest *ns, const char *name, char *why, size_t nwhy)
{
	return nest_kernel_as(ns, name, 4, why, nwhy);
}

char *
nest_kernel_as(const Nest *ns, const char *name, int dtype_bytes, char *why, size_t nwhy)
{
	const AxGraph *g = ns->g;
	char *body = NULL, *all = NULL;
	size_t blen = 0, alen = 0;
	Pr p = { .ns = ns, .t = g->t, .why = why, .nwhy = nwhy, .dtype = dtype_bytes == 2 ? "dtype_bf16" : "dtype_f32" };
	p.nblk = calloc((size_t)ns->nvars + 1, sizeof *p.nblk);
	if (!p.nblk)
		ax_die("out of memory");
	block_dims(ns, p.nblk);
	/* a tensor a result views (a reshape of it returned) is itself a result's storage */
	p.outview = calloc((size_t)g->nnodes + 1, 1);
	if (!p.outview)
		ax_die("out of memory");
	for (int k = 0; k < g->noutputs; k++)
		p.outview[g->outputs[k]] = 1;
	for (int i = ns->n - 1; i >= 0; i--)
		if (ns->s[i].kind == NS_VIEW && p.outview[ns->s[i].node])
			for (int o = 0; o < g->nodes[ns->s[i].node].nin; o++)
				if (g->nodes[ns->s[i].node].in[o] >= 0)
					p.outview[g->nodes[ns->s[i].node].in[o]] = 1;
	p.f = open_memstream(&body, &blen);
	if (!p.f)
		ax_die("out of memory");
	for (int i = 0; i < ns->n; i++)
		stmt_line(&p, &ns->s[i]);
	fclose(p.f);
	free(p.nblk);
	free(p.outview);
	const char *h = tmpl(g->t, "header"), *kt = tmpl(g->t, "kernel");
	if (!p.bad && (!h || !kt)) {
		snprintf(why, nwhy, "the target has no 'header' or 'kernel' template");
		p.bad = 1;
	}
	if (p.bad) {
		free(body);
		return NULL;
	}
	/* the skeleton: header, then the kernel with its parameters and outputs */
	FILE *f = open_memstream(&all, &alen);
	if (!f)
		ax_die("out of memory");
	char params[512] = "", outs[256] = "";
	size_t pk = 0, ok = 0;
	for (int i = 0; i < g->nparams && pk < sizeof params - 64; i++) {
		if (g->params[i].tensor)
			pk += (size_t)snprintf(params + pk, sizeof params - pk, "%s%s", pk ? ", " : "", g->params[i].name);
		else {
			char num[40];
			py_number(num, sizeof num, g->params[i].defval);
			pk += (size_t)snprintf(params + pk, sizeof params - pk, "%s%s=%s", pk ? ", " : "", g->params[i].name, num);
		}
	}
	for (int k = 0; k < g->noutputs && ok < sizeof outs - 40; k++) {
		char nm[32];
		ok += (size_t)snprintf(outs + ok, sizeof outs - ok, "%s%s", k ? ", " : "",
		                       nest_tensor_name(g, g->outputs[k], nm, sizeof nm));
	}
	const char *k1[] = { "target" }, *v1[] = { g->t->name };
	fill(f, h, k1, v1, 1);
	fputc('\n', f);
	/* the body without its trailing newline: the kernel template places it */
	if (blen && body[blen - 1] == '\n')
		body[blen - 1] = 0;
	const char *k3[] = { "name", "params", "body", "outputs" }, *v3[] = { name, params, body, outs };
	fill(f, kt, k3, v3, 4);
	fclose(f);
	free(body);
	return all;
}
