/*
 * equiv_sides.c — how the two functions of a check line up, and what a proof
 * of their equivalence assumes.
 *
 * The sizes rule.  The functions must take the same parameters in the same
 * order: the same kinds (tensor or scalar), ranks and scalar defaults.  Each
 * function's size names are its own; dimension d of parameter p is the same
 * size on both sides.  So the right side's names are renamed to the left
 * side's through the parameters, and the renaming must be one-to-one: where
 * one side writes a number the other must write the same number, and where
 * one side repeats a name (a square matrix) the other must repeat one in the
 * same places.  `f32[M,K]` and `f32[A,B]` are the same inputs; `f32[M,4]`
 * and `f32[M,5]` are an error, as are W1 `f32[N,K]` and W1 `f32[K,N]` with
 * N and K sizes of other parameters (a different layout, not a renaming).
 *
 * The assumptions are every size >= 1 and what either side's operations need
 * of the sizes (a reshape's D % 2 == 0, a slice's D >= 3), each with the side
 * it comes from.  Before any proof they are checked for a model: if they
 * contradict, the check is an error that names a smallest contradicting set,
 * never a vacuous "equivalent".
 */
#include <string.h>
#include "equiv.h"

static int
is_size(const Term *t)
{
	return t->kind == TK_VAR && t->sort == TS_INT;
}

/* "dim 1 of 'X'" */
static void
dim_name(char *buf, size_t n, const AxGraph *g, int p, int d)
{
	snprintf(buf, n, "dim %d of '%s'", d, g->params[p].name);
}

static int
sides_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
sides_fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

static void
add_part(Sides *s, Term *t, const char *src)
{
	for (int i = 0; i < s->nparts; i++)
		if (s->part[i].t == t) {
			if (strcmp(s->part[i].src, src) != 0 && strcmp(s->part[i].src, "size") != 0)
				s->part[i].src = "lhs, rhs";
			return;
		}
	if (s->nparts < SIDES_MAXPART)
		s->part[s->nparts++] = (Part){ t, src };
}

int
sides_match(TermCtx *tc, const AxGraph *a, const AxGraph *b, Sides *s, char *err, size_t n)
{
	*s = (Sides){ 0 };
	s->tc = tc;
	s->a = a;
	s->b = b;
	if (a->nparams != b->nparams)
		return sides_fail(err, n, "the functions take %d and %d parameters", a->nparams, b->nparams);
	/* where each left-side size was first met, to name a repeated one */
	int ap[SIDES_MAXREN], ad[SIDES_MAXREN], bp[SIDES_MAXREN], bd[SIDES_MAXREN];
	char w1[96], w2[96];
	for (int p = 0; p < a->nparams; p++) {
		const AxParam *x = &a->params[p], *y = &b->params[p];
		if (x->tensor != y->tensor)
			return sides_fail(err, n, "parameter %d is a tensor on one side only ('%s' and '%s')", p + 1, x->name, y->name);
		if (!x->tensor) {
			if (strcmp(x->name, y->name) != 0 || x->defval != y->defval)
				return sides_fail(err, n, "scalar parameter %d differs ('%s=%g' and '%s=%g')", p + 1, x->name, x->defval,
				                  y->name, y->defval);
			continue;
		}
		const AxNode *nx = &a->nodes[x->node], *ny = &b->nodes[y->node];
		if (nx->rank != ny->rank)
			return sides_fail(err, n, "parameter %d ('%s') has rank %d on the left and %d on the right", p + 1, x->name,
			                  nx->rank, ny->rank);
		for (int d = 0; d < nx->rank; d++) {
			Term *l = nx->dim[d], *r = ny->dim[d];
			dim_name(w1, sizeof w1, a, p, d);
			if (!is_size(l) || !is_size(r)) {
				if (is_size(l) || is_size(r) || (l->kind == TK_NUM && l != r))
					return sides_fail(err, n,
					                  "%s is %s on the left and %s on the right: the two functions must take the same "
					                  "shapes, up to the names of sizes",
					                  w1, t_infix(tc, l), t_infix(tc, r));
				continue;
			}
			int i;
			for (i = 0; i < s->nren && s->from[i] != r; i++)
				;
			if (i < s->nren) {   /* the right side named this size before */
				if (s->to[i] != l) {
					dim_name(w2, sizeof w2, a, bp[i], bd[i]);
					return sides_fail(err, n,
					                  "the right side names %s and %s both '%s', the left side names them '%s' and '%s': "
					                  "the two functions must take the same shapes, up to the names of sizes",
					                  w2, w1, r->name, s->to[i]->name, l->name);
				}
				continue;
			}
			for (i = 0; i < s->nren && s->to[i] != l; i++)
				;
			if (i < s->nren) {   /* the left side's name stands for another right-side name */
				dim_name(w2, sizeof w2, a, ap[i], ad[i]);
				return sides_fail(err, n,
				                  "the left side names %s and %s both '%s', the right side names them '%s' and '%s': "
				                  "the two functions must take the same shapes, up to the names of sizes",
				                  w2, w1, l->name, s->from[i]->name, r->name);
			}
			if (s->nren == SIDES_MAXREN)
				return sides_fail(err, n, "more than %d sizes", SIDES_MAXREN);
			ap[s->nren] = bp[s->nren] = p;
			ad[s->nren] = bd[s->nren] = d;
			s->from[s->nren] = r;
			s->to[s->nren++] = l;
		}
	}
	/* dims written as expressions (a variant's intermediate tensors: Hq // Hkv)
	 * must be the same expression once renamed */
	for (int p = 0; p < a->nparams; p++) {
		const AxParam *x = &a->params[p], *y = &b->params[p];
		if (!x->tensor)
			continue;
		const AxNode *nx = &a->nodes[x->node], *ny = &b->nodes[y->node];
		for (int d = 0; d < nx->rank; d++)
			if (!is_size(nx->dim[d]) && nx->dim[d] != sides_rhs(s, ny->dim[d])) {
				dim_name(w1, sizeof w1, a, p, d);
				return sides_fail(err, n, "%s is %s on the left and %s on the right", w1, t_infix(tc, nx->dim[d]),
				                  t_infix(tc, ny->dim[d]));
			}
	}
	/* what is assumed: sizes >= 1, then each side's needs */
	Term *one = t_int(tc, 1);
	for (int i = 0; i < a->nsyms; i++)
		add_part(s, t_bin(tc, TK_LE, one, t_var(tc, a->syms[i], TS_INT)), "size");
	for (int i = 0; i < b->nsyms; i++)   /* a size of the right side only (never in a program's functions) */
		add_part(s, t_bin(tc, TK_LE, one, sides_rhs(s, t_var(tc, b->syms[i], TS_INT))), "size");
	for (int i = 0; i < a->nassume; i++)
		add_part(s, a->assume[i], "lhs");
	for (int i = 0; i < b->nassume; i++)
		add_part(s, sides_rhs(s, b->assume[i]), "rhs");
	s->hyp = t_bool(tc, 1);
	for (int i = 0; i < s->nparts; i++)
		s->hyp = t_bin(tc, TK_AND, s->hyp, s->part[i].t);
	return 0;
}

Term *
sides_rhs(const Sides *s, Term *t)
{
	return s->nren ? t_subst(s->tc, t, s->from, s->to, s->nren) : t;
}

static Term *
conjunction(TermCtx *tc, const Sides *s, const int *keep)
{
	Term *h = t_bool(tc, 1);
	for (int i = 0; i < s->nparts; i++)
		if (keep[i])
			h = t_bin(tc, TK_AND, h, s->part[i].t);
	return h;
}

int
sides_contradict(Smt *smt, Sides *s, char *err, size_t n)
{
	char why[256];
	if (smt_satisfiable(smt, s->hyp, why, sizeof why))
		return 0;
	if (strcmp(why, "unsat") != 0) {
		snprintf(err, n, "the solver cannot say whether the assumptions have a model (%s)", why);
		return -1;
	}
	/* a smallest contradicting set: drop every part the rest still contradicts without */
	int keep[SIDES_MAXPART];
	for (int i = 0; i < s->nparts; i++)
		keep[i] = 1;
	for (int i = 0; i < s->nparts; i++) {
		keep[i] = 0;
		if (smt_satisfiable(smt, conjunction(s->tc, s, keep), why, sizeof why) || strcmp(why, "unsat") != 0)
			keep[i] = 1;
	}
	size_t len = (size_t)snprintf(err, n, "the assumptions contradict each other:");
	int first = 1;
	for (int i = 0; i < s->nparts && len < n; i++)
		if (keep[i]) {
			len += (size_t)snprintf(err + len, n - len, "%s %s (%s)", first ? "" : ",", sides_show(s->tc, s->part[i].t),
			                        strcmp(s->part[i].src, "size") == 0 ? "a size" : s->part[i].src);
			first = 0;
		}
	return 1;
}

char *
sides_show(TermCtx *tc, Term *t)
{
	char *s = t_infix(tc, t);
	if ((t->kind == TK_LE || t->kind == TK_LT) && t->a[0]->kind == TK_NUM && t->a[1]->kind != TK_NUM) {
		char *lhs = t_infix(tc, t->a[1]), *rhs = t_infix(tc, t->a[0]);
		size_t n = strlen(lhs) + strlen(rhs) + 8;
		s = arena_alloc(tc_arena(tc), n);
		snprintf(s, n, "%s %s %s", lhs, t->kind == TK_LE ? ">=" : ">", rhs);
	}
	/* the checker's output indices are $i0, $i1, ...: shown as i0, i1, ... */
	char *o = s;
	for (char *p = s; *p; p++)
		if (!(p[0] == '$' && p[1] == 'i'))
			*o++ = *p;
	*o = 0;
	return s;
}
