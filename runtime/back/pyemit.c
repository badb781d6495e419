/*
 * pyemit.c — a graph variant as a runnable NumPy function, and all variants
 * as a Graphviz picture.
 *
 * Every op prints as NumPy spells it: an op that plays an operator or
 * indexing role (specs: `python "+"`) as that syntax, any other op as
 * np.NAME (ops are named as in NumPy) with its axes.  Sizes print as the inputs' shapes (M is X.shape[0]).  Nothing here
 * names an op: names and roles come from the tables.
 */
#include <stdlib.h>
#include <string.h>
#include "back.h"

static const char *
role_of(const AxOp *op)
{
	static const char *known[] = { "+", "-", "*", "/", "@", "-x", "**2", "**0.5", "**-1", "**-0.5", ".T",
		                           "keepdims=False", "x[None]", "x[a:b]", "x[a:b:s]", "reshape-split",
		                           "reshape-merge", "scalar", "<", "<=", ">", ">=", "==", "!=", NULL };
	for (int k = 0; op->python[k]; k++)
		for (int i = 0; known[i]; i++)
			if (strcmp(op->python[k], known[i]) == 0)
				return known[i];
	return NULL;
}

/* A size term in Python over the inputs' shapes. */
static void
py_size(FILE *f, const AxGraph *g, const Term *t)
{
	switch ((TermKind)t->kind) {
	case TK_NUM:
		if (t->sort == TS_REAL && t->den != 1)
			fprintf(f, "(%lld / %lld)", (long long)t->num, (long long)t->den);
		else
			fprintf(f, t->sort == TS_REAL ? "%lld.0" : "%lld", (long long)t->num);
		return;
	case TK_VAR:
		for (int p = 0; p < g->nparams; p++) {
			if (!g->params[p].tensor) {
				if (strcmp(g->params[p].name, t->name) == 0) {
					fputs(t->name, f);
					return;
				}
				continue;
			}
			const AxNode *n = &g->nodes[g->params[p].node];
			for (int d = 0; d < n->rank; d++)
				if (n->dim[d] == t) {
					fprintf(f, "%s.shape[%d]", g->params[p].name, d);
					return;
				}
		}
		fputs(t->name, f);
		return;
	case TK_TOREAL:
		py_size(f, g, t->a[0]);
		return;
	case TK_NEG:
		fputs("(-", f);
		py_size(f, g, t->a[0]);
		fputc(')', f);
		return;
	case TK_MAX:
	case TK_MIN:   /* (a if a >= b else b) */
		fputc('(', f);
		py_size(f, g, t->a[0]);
		fputs(" if ", f);
		py_size(f, g, t->a[0]);
		fputs(t->kind == TK_MAX ? " >= " : " <= ", f);
		py_size(f, g, t->a[1]);
		fputs(" else ", f);
		py_size(f, g, t->a[1]);
		fputc(')', f);
		return;
	default: {
		const char *op = t->kind == TK_ADD ? " + " : t->kind == TK_SUB ? " - " : t->kind == TK_MUL ? " * "
		                 : t->kind == TK_MOD ? " % " : t->kind == TK_DIV ? (t->sort == TS_INT ? " // " : " / ") : " ? ";
		fputc('(', f);
		py_size(f, g, t->a[0]);
		fputs(op, f);
		py_size(f, g, t->a[1]);
		fputc(')', f);
	}
	}
}

/* the size attribute a of n, k-th among the op's size attributes */
static const Term *
size_attr(const AxOp *op, const AxNode *n, int k)
{
	for (int a = 0; a < op->nattr; a++)
		if (op->attr[a].kind != AX_ATTR_ENUM && k-- == 0)
			return n->sattr[a];
	return NULL;
}

/* An element term of an element-wise op in NumPy syntax: operand o's
 * element is the array name[o], defined fns unfold, fns the reference kernels
 * compute with C's NAMEf print as np.NAME. */
static int
py_elem(FILE *f, const AxGraph *g, const Term *t, char names[][16])
{
	const char *bin = NULL;
	switch ((TermKind)t->kind) {
	case TK_TENSOR:
		fputs(names[t->id], f);
		return 0;
	case TK_NUM:
		if (t->den == 1)
			fprintf(f, "%lld.0", (long long)t->num);
		else
			fprintf(f, "(%lld / %lld)", (long long)t->num, (long long)t->den);
		return 0;
	case TK_VAR:
		fputs(t->name, f);
		return 0;
	case TK_TOREAL:
		return py_elem(f, g, t->a[0], names);
	case TK_NEG:
		fputs("(-", f);
		if (py_elem(f, g, t->a[0], names))
			return -1;
		fputc(')', f);
		return 0;
	case TK_ADD: bin = " + "; break;
	case TK_SUB: bin = " - "; break;
	case TK_MUL: bin = " * "; break;
	case TK_DIV: bin = " / "; break;
	case TK_MAX:
	case TK_MIN:
		fputs(t->kind == TK_MAX ? "np.fmax(" : "np.fmin(", f);
		if (py_elem(f, g, t->a[0], names))
			return -1;
		fputs(", ", f);
		if (py_elem(f, g, t->a[1], names))
			return -1;
		fputc(')', f);
		return 0;
	case TK_CALL: {
		const AxFn *fn = &g->t->fns[t->id];
		if (fn->unfold)
			return py_elem(f, g, fn->unfold(g->tc, t->a), names);
		if (!fn->cname || fn->arity != 1)
			return -1;
		fprintf(f, "np.%.*s(", (int)strlen(fn->cname) - 1, fn->cname);   /* expf: np.exp */
		if (py_elem(f, g, t->a[0], names))
			return -1;
		fputc(')', f);
		return 0;
	}
	default:
		return -1;
	}
	fputc('(', f);
	if (py_elem(f, g, t->a[0], names))
		return -1;
	fputs(bin, f);
	if (py_elem(f, g, t->a[1], names))
		return -1;
	fputc(')', f);
	return 0;
}

static Term *
elem_access(TermCtx *c, void *env, int o, Term *const *idx, int n)
{
	(void)env;
	return t_tensor(c, o, "operand", n, idx);
}

/* An element-wise op with no NumPy function of its name, as its element
 * expression; 0 = printed. */
static int
py_elementwise(FILE *f, const AxGraph *g, const AxNode *n, char names[][16])
{
	const AxOp *op = node_op(g, n);
	if (op->ngroups != 1 || op->nattr || op->layout_only)
		return -1;
	for (int o = 0; o < op->nopnd; o++)
		if (op->opnd[o].nfixed != 0)
			return -1;
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		s.rank[o] = g->nodes[n->in[o]].rank;
		for (int d = 0; d < s.rank[o]; d++)
			s.dim[o][d] = g->nodes[n->in[o]].dim[d];
	}
	memcpy(s.grank, n->grank, sizeof s.grank);
	s.access = elem_access;
	Term *idx[AX_MAXR];
	for (int d = 0; d < n->rank; d++)
		idx[d] = t_var(g->tc, "%i", TS_INT);
	Term *t = op->enc(g->tc, &s, idx);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		ax_die("open_memstream");
	int rc = py_elem(m, g, t, names);
	fclose(m);
	if (rc == 0)
		fputs(buf, f);
	free(buf);
	return rc;
}

/* Whether the op writes a literal 1 at result position d whatever its
 * operands' sizes (sum's [...L, 1, ...R]): asked of its shape function with
 * operands of fresh sizes. */
static int
keeps_axis(const AxGraph *g, const AxNode *n, int d)
{
	const AxOp *op = node_op(g, n);
	AxSym s = { 0 };
	char name[32];
	for (int o = 0; o < op->nopnd; o++) {
		s.rank[o] = n->in[o] >= 0 ? g->nodes[n->in[o]].rank : -1;
		for (int k = 0; k < s.rank[o]; k++) {
			snprintf(name, sizeof name, "%%fresh%d_%d", o, k);
			s.dim[o][k] = t_var(g->tc, name, TS_INT);
		}
	}
	memcpy(s.grank, n->grank, sizeof s.grank);
	Term *out[AX_MAXR];
	int r = op->shape(g->tc, &s, out);
	return d < r && out[d]->kind == TK_NUM && out[d]->num == 1 && out[d]->den == 1;
}

int
node_is_reshape(const AxGraph *g, int id)
{
	const AxNode *n = &g->nodes[id];
	if (n->op < 0 || n->nin != 1)
		return 0;
	const char *role = role_of(node_op(g, n));
	return role && (strcmp(role, "x[None]") == 0 || strcmp(role, "keepdims=False") == 0 ||
	                strcmp(role, "reshape-split") == 0 || strcmp(role, "reshape-merge") == 0);
}

/* The NumPy expression of node id over operands named a[]; 0 = ok, else
 * why there is none. */
int
node_numpy(FILE *f, const AxGraph *g, int id, char a[][16], char *why, size_t wn)
{
	const AxNode *n = &g->nodes[id];
	const AxOp *op = node_op(g, n);
	const char *role = role_of(op);
	int l = op->ngroups ? n->grank[0] : 0;   /* the first named dim's axis */
	int ok = 1;
	if (role && strchr("<>=!", role[0]))   /* a comparison: NumPy's bools as the graph's 1.0/0.0 */
		fprintf(f, "(%s %s %s).astype(np.float32)", a[0], role, a[1]);
	else if (role && strlen(role) == 1)
		fprintf(f, "%s %s %s", a[0], role, a[1]);
	else if (role && strcmp(role, "-x") == 0)
		fprintf(f, "-%s", a[0]);
	else if (role && role[0] == '*')
		fprintf(f, "%s %s", a[0], role);
	else if (role && strcmp(role, ".T") == 0)
		fprintf(f, "np.%s(%s, %d, %d)", op->name, a[0], l, l + 1 + (op->ngroups > 1 ? n->grank[1] : 0));
	else if (role && strcmp(role, "keepdims=False") == 0)
		fprintf(f, "np.%s(%s, axis=%d)", op->name, a[0], l);
	else if (role && strcmp(role, "x[None]") == 0)
		fprintf(f, "np.%s(%s, %d)", op->name, a[0], l);
	else if (role && strncmp(role, "x[a:b", 5) == 0) {
		fprintf(f, "%s[", a[0]);
		for (int k = 0; k < l; k++)
			fputs(":, ", f);
		py_size(f, g, size_attr(op, n, 0));
		fputc(':', f);
		py_size(f, g, size_attr(op, n, 1));
		if (role[5] == ':') {
			fputc(':', f);
			py_size(f, g, size_attr(op, n, 2));
		}
		fputc(']', f);
	} else if (role && strcmp(role, "reshape-split") == 0) {
		fprintf(f, "%s.reshape(%s.shape[:%d] + (", a[0], a[0], l);
		py_size(f, g, size_attr(op, n, 0));
		fputs(", ", f);
		py_size(f, g, size_attr(op, n, 1));
		fprintf(f, ") + %s.shape[%d:])", a[0], l + 1);
	} else if (role && strcmp(role, "reshape-merge") == 0)
		fprintf(f, "%s.reshape(%s.shape[:%d] + (-1,) + %s.shape[%d:])", a[0], a[0], l, a[0], l + 2);
	else if (role && strcmp(role, "scalar") == 0) {
		fputs("np.float32(", f);
		py_size(f, g, size_attr(op, n, 0) ? size_attr(op, n, 0) : n->sattr[0]);
		fputc(')', f);
	} else if (op->nattr || (op->layout_only && !(op->nopnd == 2 && op->ngroups >= 2))) {
		ok = 0;
		snprintf(why, wn, "%s has no NumPy spelling", op->name);
	} else if (op->nopnd >= 2 && op->ngroups >= 2 && !op->broadcast) {   /* a list: np.concatenate */
		fprintf(f, "np.%s([", op->name);
		for (int o = 0; o < n->nin; o++)
			fprintf(f, "%s%s", o ? ", " : "", a[o]);
		fprintf(f, "], axis=%d)", l);
	} else if (!ax_has_role(op, "np") && py_elementwise(f, g, n, a) == 0) {
		;   /* no NumPy function of that name: its element expression */
	} else {
		fprintf(f, "np.%s(", op->name);
		for (int o = 0; o < n->nin; o++)
			fprintf(f, "%s%s", o ? ", " : "", a[o]);
		if (op->ngroups >= 2 && !op->broadcast)
			fprintf(f, ", axis=%d%s", l, keeps_axis(g, n, l) ? ", keepdims=True" : "");
		fputc(')', f);
	}
	return ok ? 0 : -1;
}

char *
graph_numpy(const AxGraph *g, const char *name, char *why, size_t wn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		ax_die("open_memstream");
	fprintf(f, "def %s(", name);
	for (int p = 0; p < g->nparams; p++) {
		const AxParam *pp = &g->params[p];
		if (pp->tensor) {
			const AxNode *n = &g->nodes[pp->node];
			fprintf(f, "%s%s: \"%s[", p ? ", " : "", pp->name, pp->dtype ? pp->dtype : "f32");
			for (int d = 0; d < n->rank; d++) {
				fputs(d ? "," : "", f);
				t_print(f, NULL, n->dim[d]);
			}
			fputs("]\"", f);
		} else {
			char num[40];
			snprintf(num, sizeof num, "%.15g", pp->defval);   /* the shortest that reads back */
			if (strtod(num, NULL) != pp->defval)
				snprintf(num, sizeof num, "%.17g", pp->defval);
			fprintf(f, "%s%s=%s%s", p ? ", " : "", pp->name, num, strpbrk(num, ".eEn") ? "" : ".0");
		}
	}
	fputs("):\n", f);
	int ok = 1;
	for (int i = 0; i < g->nnodes && ok; i++) {
		const AxNode *n = &g->nodes[i];
		if (n->op < 0)
			continue;
		const AxOp *op = node_op(g, n);
		char a[AX_MAXOPND][16];
		for (int o = 0; o < n->nin; o++) {
			if (n->in[o] < 0) {
				ok = 0;
				snprintf(why, wn, "%s with an operand left out has no NumPy spelling", op->name);
				break;
			}
			const AxNode *src = &g->nodes[n->in[o]];
			if (src->op < 0)
				snprintf(a[o], sizeof a[o], "%s", g->params[src->input].name);
			else
				snprintf(a[o], sizeof a[o], "v%d", n->in[o]);
		}
		if (!ok)
			break;
		fprintf(f, "    v%d = ", i);
		ok = node_numpy(f, g, i, a, why, wn) == 0;
		fputc('\n', f);
	}
	if (ok) {
		fputs("    return ", f);
		for (int k = 0; k < g->noutputs; k++) {
			const AxNode *o = &g->nodes[g->outputs[k]];
			if (o->op < 0)
				fprintf(f, "%s%s", k ? ", " : "", g->params[o->input].name);
			else
				fprintf(f, "%sv%d", k ? ", " : "", g->outputs[k]);
		}
		fputc('\n', f);
	}
	fclose(f);
	if (!ok) {
		free(buf);
		return NULL;
	}
	char *s = arena_strdup(tc_arena(g->tc), buf);
	free(buf);
	return s;
}

void
graph_dot(FILE *f, const NuGraph *ng)
{
	fprintf(f, "digraph variants {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n");
	for (int v = 0; v < ng->nvariants; v++) {
		const AxGraph *g = ng->variants[v];
		fprintf(f, "  subgraph cluster_%d {\n    label=\"variant %d\";\n", v, v);
		for (int i = 0; i < g->nnodes; i++) {
			const AxNode *n = &g->nodes[i];
			if (n->op < 0)
				fprintf(f, "    v%d_%d [shape=box, label=\"%s\"];\n", v, i, g->params[n->input].name);
			else
				fprintf(f, "    v%d_%d [shape=ellipse, label=\"%s\"];\n", v, i, node_op(g, n)->name);
			for (int o = 0; o < n->nin; o++)
				if (n->in[o] >= 0)
					fprintf(f, "    v%d_%d -> v%d_%d;\n", v, n->in[o], v, i);
		}
		for (int k = 0; k < g->noutputs; k++)
			fprintf(f, "    v%d_out%d [shape=box, style=filled, fillcolor=lightyellow, label=\"out %d\"];\n"
			           "    v%d_%d -> v%d_out%d;\n", v, k, k, v, g->outputs[k], v, k);
		fprintf(f, "  }\n");
	}
	fprintf(f, "}\n");
}
