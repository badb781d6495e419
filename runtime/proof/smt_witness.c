/*
 * smt_witness.c — a model found without the solver: smt.c's smt_satisfiable (a size
 * assignment where a condition holds) and prove_with (one where the hypothesis holds and
 * the goal does not: a counterexample).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "proof.h"

/* Most questions about sizes (1 <= M, M <= 128, M % 128 == 0, Hq == Hkv) are decided by a
 * small assignment; each took the solver about a millisecond, several when integer division
 * sends it to the prover process (a fifth of GQA's Phase 1 went to refuting the front end's
 * reshape questions and the checker's "is a denominator always 0").  The terms are
 * evaluated exactly, in 64-bit integers as translated for Z3 (floor division and NumPy's %
 * for every sign of a non-zero divisor), at a few assignments of the integer variables:
 * each at its least value (a constant lower bound among hyp's conjuncts, else 1); every one
 * at one value; one at another value; two at 0..3 above their least.  Every element of every
 * tensor is one constant, 1 or 2: a function the solver could choose, so the model is a
 * model of the uninterpreted tensors too; with them, reals are exact where every value is an
 * integer (a real divided, a non-integer constant: no witness).  An assignment found is a
 * model, so the answer is the solver's own.  Anything else (a fn, a real variable, more than
 * WITNESS_VARS variables) gives no witness and the solver is asked; a divisor 0 or an
 * overflow skips that assignment. */
enum { WITNESS_NODES = 4096,     /* nodes visited per evaluation */
       WITNESS_TOTAL = 32768,    /* ... and over all the assignments of one question */
       WITNESS_VARS = 16 };

typedef struct Asg {
	int n;
	const Term *var[WITNESS_VARS];
	int64_t val[WITNESS_VARS], least[WITNESS_VARS];
	int64_t tensor;          /* the value of every tensor element */
} Asg;

enum { EV_OK = 0, EV_SKIP = -1, EV_NEVER = -2 };   /* EV_NEVER: at no assignment either */

static int
ev(const Term *t, const Asg *s, int64_t *out, int *budget)
{
	int64_t a[3];
	if (--*budget < 0)
		return EV_NEVER;
	switch ((TermKind)t->kind) {
	case TK_NUM:   /* a truth value as Z3 gets it (any number not 0 is true) */
		if (t->name || t->den != 1)
			return EV_NEVER;
		*out = t->sort == TS_BOOL ? t->num != 0 : t->num;
		return EV_OK;
	case TK_VAR:   /* an integer (a real or truth-valued variable: the solver is asked) */
		if (t->sort != TS_INT)
			return EV_NEVER;
		for (int i = 0; i < s->n; i++)
			if (s->var[i] == t) {
				*out = s->val[i];
				return EV_OK;
			}
		return EV_NEVER;
	case TK_TENSOR:
		*out = s->tensor;
		return EV_OK;
	case TK_TOREAL:
		return t->n == 1 ? ev(t->a[0], s, out, budget) : EV_NEVER;
	case TK_DIV: case TK_MOD:
		if (t->sort != TS_INT)
			return EV_NEVER;
		break;
	case TK_ADD: case TK_SUB: case TK_MUL: case TK_NEG: case TK_MAX: case TK_MIN:
	case TK_LT: case TK_LE: case TK_EQ: case TK_NE: case TK_AND: case TK_OR: case TK_NOT: case TK_ITE:
		break;
	default:
		return EV_NEVER;
	}
	int n = t->kind == TK_ITE ? 3 : t->kind == TK_NEG || t->kind == TK_NOT ? 1 : 2;
	if (t->n != n)
		return EV_NEVER;
	for (int i = 0; i < n; i++) {
		int rc = ev(t->a[i], s, &a[i], budget);
		if (rc != EV_OK)
			return rc;
	}
	switch ((TermKind)t->kind) {
	case TK_ADD: return __builtin_add_overflow(a[0], a[1], out) ? EV_SKIP : EV_OK;
	case TK_SUB: return __builtin_sub_overflow(a[0], a[1], out) ? EV_SKIP : EV_OK;
	case TK_MUL: return __builtin_mul_overflow(a[0], a[1], out) ? EV_SKIP : EV_OK;
	case TK_DIV:
	case TK_MOD:
		if (a[1] == 0 || (a[0] == INT64_MIN && a[1] == -1))
			return EV_SKIP;
		*out = t->kind == TK_DIV ? ax_idiv(a[0], a[1]) : ax_imod(a[0], a[1]);
		return EV_OK;
	case TK_NEG: return a[0] == INT64_MIN ? EV_SKIP : (*out = -a[0], EV_OK);
	case TK_MAX: *out = a[0] >= a[1] ? a[0] : a[1]; return EV_OK;
	case TK_MIN: *out = a[0] <= a[1] ? a[0] : a[1]; return EV_OK;
	case TK_LT: *out = a[0] < a[1]; return EV_OK;
	case TK_LE: *out = a[0] <= a[1]; return EV_OK;
	case TK_EQ: *out = a[0] == a[1]; return EV_OK;
	case TK_NE: *out = a[0] != a[1]; return EV_OK;
	case TK_AND: *out = a[0] && a[1]; return EV_OK;
	case TK_OR: *out = a[0] || a[1]; return EV_OK;
	case TK_NOT: *out = !a[0]; return EV_OK;
	case TK_ITE: *out = a[0] ? a[1] : a[2]; return EV_OK;
	default: return EV_NEVER;
	}
}

/* the integer variables of t into s (terms are hash-consed: one variable, one pointer; a
 * tensor element's indices are not read); -1 past the limits */
static int
vars_of(const Term *t, Asg *s, int *budget)
{
	if (--*budget < 0)
		return -1;
	if (t->kind == TK_TENSOR)
		return 0;
	if (t->kind == TK_VAR) {
		for (int i = 0; i < s->n; i++)
			if (s->var[i] == t)
				return 0;
		if (s->n == WITNESS_VARS)
			return -1;
		s->least[s->n] = 1;
		s->var[s->n++] = t;
		return 0;
	}
	for (int i = 0; i < t->n; i++)
		if (vars_of(t->a[i], s, budget) != 0)
			return -1;
	return 0;
}

/* the least values: c for a conjunct c <= v of hyp (c an integer constant, v a variable) */
static void
least_of(const Term *hyp, Asg *s, int depth)
{
	if (!hyp || depth > 64)
		return;
	if (hyp->kind == TK_AND && hyp->n == 2) {
		least_of(hyp->a[0], s, depth + 1);
		least_of(hyp->a[1], s, depth + 1);
		return;
	}
	if (hyp->kind != TK_LE || hyp->n != 2 || hyp->a[0]->kind != TK_NUM || hyp->a[0]->den != 1 ||
	    hyp->a[0]->name || hyp->a[1]->kind != TK_VAR || hyp->a[0]->num < -1000 || hyp->a[0]->num > 1000)
		return;
	for (int i = 0; i < s->n; i++)
		if (s->var[i] == hyp->a[1])
			s->least[i] = hyp->a[0]->num;
}

/* hyp true (NULL: true) and goal false (NULL: no goal) at s: 1; 0 not; EV_NEVER */
static int
holds_at(const Term *hyp, const Term *goal, const Asg *s, int *total)
{
	int64_t h = 1, g = 0;
	int budget = WITNESS_NODES, rc = hyp ? ev(hyp, s, &h, &budget) : EV_OK;
	if (rc == EV_OK && h && goal)
		rc = ev(goal, s, &g, &budget);
	*total -= WITNESS_NODES - budget;
	if (rc == EV_NEVER || *total < 0)
		return EV_NEVER;
	return rc == EV_OK && h && !g;
}

/* an assignment at which hyp holds and goal does not (goal NULL: hyp holds), in s */
static int
search(const Term *hyp, const Term *goal, Asg *s)
{
	static const int64_t every[] = { 1, 2, 4, 8, 16, 64, 128, 512, 2048 }, one[] = { 2, 3, 4, 8, 128 };
	int budget = WITNESS_NODES * 4, total = WITNESS_TOTAL;
	s->n = 0;
	if ((hyp && (hyp->sort != TS_BOOL || vars_of(hyp, s, &budget) != 0)) ||
	    (goal && (goal->sort != TS_BOOL || vars_of(goal, s, &budget) != 0)))
		return 0;
	least_of(hyp, s, 0);
	int n = s->n, rc;
#define TRY()                                                   \
	do {                                                    \
		if ((rc = holds_at(hyp, goal, s, &total)) != 0) \
			return rc > 0;                          \
	} while (0)
	for (s->tensor = 1; s->tensor <= 2; s->tensor++) {
		for (int i = 0; i < n; i++)
			s->val[i] = s->least[i];
		TRY();
		if (n == 0)
			continue;
		for (size_t k = 0; k < sizeof every / sizeof every[0]; k++) {
			for (int i = 0; i < n; i++)
				s->val[i] = every[k] > s->least[i] ? every[k] : s->least[i];
			TRY();
		}
		for (int i = 0; i < n; i++)
			for (size_t k = 0; k < sizeof one / sizeof one[0]; k++) {
				for (int j = 0; j < n; j++)
					s->val[j] = s->least[j];
				s->val[i] = one[k] > s->least[i] ? one[k] : s->least[i] + 1;
				TRY();
			}
		for (int i = 0; i < n && n > 1; i++)
			for (int j = i + 1; j < n; j++)
				for (int a = 1; a <= 3; a++)
					for (int b = 1; b <= 3; b++) {
						for (int k = 0; k < n; k++)
							s->val[k] = s->least[k];
						s->val[i] += a;
						s->val[j] += b;
						TRY();
					}
	}
#undef TRY
	return 0;
}

int
t_witness(const Term *t)
{
	Asg s;
	return search(t, NULL, &s);
}

int
t_counterexample(const Term *hyp, const Term *goal, char *why, size_t n)
{
	Asg s;
	if (!search(hyp, goal, &s))
		return 0;
	size_t k = (size_t)snprintf(why, n, "counterexample:");
	for (int i = 0; i < s.n && k < n; i++)
		k += (size_t)snprintf(why + k, n - k, "%s %s -> %lld", i ? "," : "", s.var[i]->name ? s.var[i]->name : "?",
		                      (long long)s.val[i]);
	return 1;
}
