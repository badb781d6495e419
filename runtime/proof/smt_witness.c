/*
 * smt_witness.c — a model found without the solver (smt.c's smt_satisfiable).
 */
#include <stdint.h>
#include "proof.h"

/* Most satisfiability questions are about sizes (1 <= M, M <= 128, M % 128 == 0) that
 * one value for every size satisfies; each took the solver about a millisecond.  The
 * term is evaluated exactly, in 64-bit integers as translated for Z3 (floor division and
 * NumPy's % for every sign of a non-zero divisor), at every size equal to each of a few
 * values: a value at which it is true is a model, so the answer is the solver's own
 * ("sat").  Anything else (a real, a tensor element, a fn, a divisor 0, an overflow)
 * gives no witness and the solver is asked. */
enum { WITNESS_NODES = 4096 };

static int
ev(const Term *t, int64_t v, int64_t *out, int *budget)
{
	int64_t a[3];
	if (--*budget < 0 || (t->sort != TS_INT && t->sort != TS_BOOL))
		return -1;
	switch ((TermKind)t->kind) {
	case TK_NUM:   /* a truth value as Z3 gets it (any number not 0 is true) */
		if (t->name || t->den != 1)
			return -1;
		*out = t->sort == TS_BOOL ? t->num != 0 : t->num;
		return 0;
	case TK_VAR:   /* a size (a truth-valued variable: the solver is asked) */
		if (t->sort != TS_INT)
			return -1;
		*out = v;
		return 0;
	case TK_ADD: case TK_SUB: case TK_MUL: case TK_DIV: case TK_MOD: case TK_NEG: case TK_MAX: case TK_MIN:
	case TK_LT: case TK_LE: case TK_EQ: case TK_NE: case TK_AND: case TK_OR: case TK_NOT: case TK_ITE:
		break;
	default:
		return -1;
	}
	int n = t->kind == TK_ITE ? 3 : t->kind == TK_NEG || t->kind == TK_NOT ? 1 : 2;
	if (t->n != n)
		return -1;
	for (int i = 0; i < n; i++)
		if (ev(t->a[i], v, &a[i], budget) != 0)
			return -1;
	switch ((TermKind)t->kind) {
	case TK_ADD: return __builtin_add_overflow(a[0], a[1], out) ? -1 : 0;
	case TK_SUB: return __builtin_sub_overflow(a[0], a[1], out) ? -1 : 0;
	case TK_MUL: return __builtin_mul_overflow(a[0], a[1], out) ? -1 : 0;
	case TK_DIV:
	case TK_MOD:
		if (a[1] == 0 || (a[0] == INT64_MIN && a[1] == -1))
			return -1;
		*out = t->kind == TK_DIV ? ax_idiv(a[0], a[1]) : ax_imod(a[0], a[1]);
		return 0;
	case TK_NEG: return a[0] == INT64_MIN ? -1 : (*out = -a[0], 0);
	case TK_MAX: *out = a[0] >= a[1] ? a[0] : a[1]; return 0;
	case TK_MIN: *out = a[0] <= a[1] ? a[0] : a[1]; return 0;
	case TK_LT: *out = a[0] < a[1]; return 0;
	case TK_LE: *out = a[0] <= a[1]; return 0;
	case TK_EQ: *out = a[0] == a[1]; return 0;
	case TK_NE: *out = a[0] != a[1]; return 0;
	case TK_AND: *out = a[0] && a[1]; return 0;
	case TK_OR: *out = a[0] || a[1]; return 0;
	case TK_NOT: *out = !a[0]; return 0;
	case TK_ITE: *out = a[0] ? a[1] : a[2]; return 0;
	default: return -1;
	}
}

int
t_witness(const Term *t)
{
	static const int64_t value[] = { 1, 2, 4, 8, 16, 64, 128, 512, 2048 };
	if (t->sort != TS_BOOL)
		return 0;
	for (size_t i = 0; i < sizeof value / sizeof value[0]; i++) {
		int64_t r;
		int budget = WITNESS_NODES;
		if (ev(t, value[i], &r, &budget) != 0)
			return 0;   /* not evaluable: at no value either */
		if (r)
			return 1;
	}
	return 0;
}
