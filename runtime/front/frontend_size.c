/*
 * frontend_size.c — what every part of the front end asks of sizes and
 * axes: an error at a place in the program; the op that plays a Python
 * role; integer constants; facts proved for every size the program admits
 * (Z3), or else recorded as the program's assumptions; linear size terms
 * as a person reads them (M - 1, 2 <= M); axes counted from the end, and
 * those keepdims applies to.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fe.h"

_Noreturn void
fe_error(Fe *fe, AxLoc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ax_vdiag(loc, "error", fmt, ap);
	va_end(ap);
	if (fe->np_name && (!loc.file || strcmp(loc.file, fe->np_call.file) != 0))   /* not at the call itself */
		ax_note_at(fe->np_call, "in np.%s (%s), called here", fe->np_name, fe->t->numpy_file);
	longjmp(fe->fail, 1);
}

/* ---- linear size terms, for bounds and assumptions a person reads ---- */

typedef struct Lin {
	Fe *fe;                  /* to tidy the atoms' operands too (NULL: leave them) */
	TermCtx *tc;
	int n;
	Term *atom[16];          /* variables, or non-linear subterms kept whole */
	int64_t coef[16];
	int64_t k;               /* the constant */
} Lin;

static Term *lin_norm(Fe *fe, Term *t);

/* adds scale * t to l; 0 when t is not linear in few enough atoms */
static int
lin_add(Lin *l, const Term *t, int64_t scale)
{
	switch ((TermKind)t->kind) {
	case TK_NUM: {
		int64_t v;
		if (t->den != 1 || t->sort != TS_INT || __builtin_mul_overflow(scale, t->num, &v) ||
		    __builtin_add_overflow(l->k, v, &l->k))
			return 0;
		return 1;
	}
	case TK_ADD:
		return lin_add(l, t->a[0], scale) && lin_add(l, t->a[1], scale);
	case TK_SUB:
		return lin_add(l, t->a[0], scale) && lin_add(l, t->a[1], -scale);
	case TK_NEG:
		return lin_add(l, t->a[0], -scale);
	case TK_MUL:
		for (int k = 0; k < 2; k++) {
			int64_t v;
			if (t->a[k]->kind == TK_NUM && t->a[k]->den == 1)
				return !__builtin_mul_overflow(scale, t->a[k]->num, &v) && lin_add(l, t->a[1 - k], v);
		}
		break;
	default:
		break;
	}
	if (t->sort != TS_INT)
		return 0;
	if ((t->kind == TK_DIV || t->kind == TK_MOD || t->kind == TK_MAX || t->kind == TK_MIN) && l->tc)
		t = t_bin(l->tc, t->kind, lin_norm(l->fe, t->a[0]), lin_norm(l->fe, t->a[1]));   /* (N - 1 + 1) / 2 */
	for (int i = 0; i < l->n; i++)   /* terms are hash-consed: equal terms are one pointer */
		if (l->atom[i] == t)
			return !__builtin_add_overflow(l->coef[i], scale, &l->coef[i]);
	if (l->n == 16)
		return 0;
	l->atom[l->n] = (Term *)t;
	l->coef[l->n++] = scale;
	return 1;
}

/* the atoms of l with a coefficient of sign sgn, as a sum of positive terms (NULL: none) */
static Term *
lin_part(Fe *fe, const Lin *l, int sgn)
{
	Term *r = NULL;
	for (int i = 0; i < l->n; i++) {
		int64_t c = l->coef[i] * sgn;
		if (c <= 0)
			continue;
		Term *x = c == 1 ? l->atom[i] : t_bin(fe->tc, TK_MUL, t_int(fe->tc, c), l->atom[i]);
		r = r ? t_bin(fe->tc, TK_ADD, r, x) : x;
	}
	return r;
}

/* t as P - Q + k (M - 1, N - K + 2), or t itself when it is not linear */
static Term *
lin_norm(Fe *fe, Term *t)
{
	Lin l = { .fe = fe, .tc = fe->tc };
	if (t->sort != TS_INT || !lin_add(&l, t, 1))
		return t;
	Term *p = lin_part(fe, &l, 1), *q = lin_part(fe, &l, -1);
	Term *r = p ? p : q ? t_neg(fe->tc, q) : t_int(fe->tc, l.k);
	if (p && q)
		r = t_bin(fe->tc, TK_SUB, r, q);
	if ((p || q) && l.k)
		r = t_bin(fe->tc, l.k > 0 ? TK_ADD : TK_SUB, r, t_int(fe->tc, l.k > 0 ? l.k : -l.k));
	return r;
}

/* a <= b (strict: a < b) as the integer condition Q + c <= P, read as "2 <= M" */
Term *
fe_lin_le(Fe *fe, Term *a, Term *b, int strict)
{
	Lin l = { .fe = fe, .tc = fe->tc };
	if (!lin_add(&l, b, 1) || !lin_add(&l, a, -1))
		return t_bin(fe->tc, strict ? TK_LT : TK_LE, a, b);
	l.k -= strict;   /* P - Q + k >= 0, that is Q - k <= P */
	Term *p = lin_part(fe, &l, 1), *q = lin_part(fe, &l, -1);
	Term *lhs = q, *rhs = p;
	if (l.k < 0)
		lhs = lhs ? t_bin(fe->tc, TK_ADD, lhs, t_int(fe->tc, -l.k)) : t_int(fe->tc, -l.k);
	else if (l.k > 0)
		rhs = rhs ? t_bin(fe->tc, TK_ADD, rhs, t_int(fe->tc, l.k)) : t_int(fe->tc, l.k);
	return t_bin(fe->tc, TK_LE, lhs ? lhs : t_int(fe->tc, 0), rhs ? rhs : t_int(fe->tc, 0));
}

Term *
fe_lin_norm(Fe *fe, Term *t)
{
	return lin_norm(fe, t);
}

/* ---- facts about sizes ---- */

int
fe_role(Fe *fe, const char *role, AxLoc loc)
{
	for (int i = 0; i < fe->t->nops; i++)
		for (int k = 0; fe->t->ops[i].python[k]; k++)
			if (strcmp(fe->t->ops[i].python[k], role) == 0)
				return i;
	fe_error(fe, loc, "the specs declare no op for Python's '%s' (declare python \"%s\" on one)", role, role);
}

int
fe_int_const(Fe *fe, Val v, int64_t *out)
{
	(void)fe;
	double x;
	if (v.k != V_SIZE || t_eval(v.t, NULL, &x) != 0)
		return 0;
	*out = (int64_t)x;
	return 1;
}

Term *
fe_size_hyp(Fe *fe)
{
	Term *cs[128];
	int n = 0;
	for (int i = 0; i < fe->g->nsyms && n < 64; i++)
		cs[n++] = t_bin(fe->tc, TK_LE, t_int(fe->tc, 1), t_var(fe->tc, fe->g->syms[i], TS_INT));
	for (int i = 0; i < fe->g->nassume; i++)
		cs[n++] = fe->g->assume[i];
	return t_and_all(fe->tc, n, cs);
}

static int
proves(Fe *fe, Term *goal)
{
	char why[512];
	return smt_prove(fe->smt, fe_size_hyp(fe), goal, why, sizeof why);
}

int
fe_proves(Fe *fe, Term *goal)
{
	return proves(fe, goal);
}

int
fe_need(Fe *fe, Term *cond, AxLoc loc)
{
	char why[512];
	if (proves(fe, cond))
		return 1;
	if (!smt_satisfiable(fe->smt, t_bin(fe->tc, TK_AND, fe_size_hyp(fe), cond), why, sizeof why))
		return 0;
	if (fe->g->nassume == 64)
		fe_error(fe, loc, "too many assumptions on sizes");
	fe->g->assume[fe->g->nassume++] = cond;
	return 1;
}

int64_t
fe_norm_axis(Fe *fe, int64_t a, int rank, AxLoc loc)
{
	if (a < -rank || a >= rank)
		fe_error(fe, loc, "axis %lld is out of range for a tensor of rank %d", (long long)a, rank);
	return a < 0 ? a + rank : a;
}

/* The result positions where op writes a literal 1 whatever its operands'
 * sizes (sum's [...L, 1, ...R]): where keepdims applies.  Found by asking the
 * op's shape function about operands of fresh sizes. */
int
fe_kept_axes(Fe *fe, const AxNode *n, int64_t *at)
{
	const AxOp *op = &fe->t->ops[n->op];
	AxSym s = { 0 };
	char name[32];
	for (int o = 0; o < op->nopnd; o++) {
		s.rank[o] = n->in[o] >= 0 ? fe->g->nodes[n->in[o]].rank : -1;
		for (int d = 0; d < s.rank[o]; d++) {
			snprintf(name, sizeof name, "%%fresh%d_%d", o, d);
			s.dim[o][d] = t_var(fe->tc, name, TS_INT);
		}
	}
	memcpy(s.grank, n->grank, sizeof s.grank);
	for (int a = 0; a < op->nattr; a++) {
		snprintf(name, sizeof name, "%%attr%d", a);
		s.sattr[a] = t_var(fe->tc, name, op->attr[a].kind == AX_ATTR_FLOAT ? TS_REAL : TS_INT);
	}
	Term *out[AX_MAXR];
	int r = op->shape(fe->tc, &s, out), k = 0;
	for (int d = 0; d < r; d++)
		if (out[d]->kind == TK_NUM && out[d]->num == 1 && out[d]->den == 1)
			at[k++] = d;
	return k;
}
