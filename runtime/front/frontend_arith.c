/*
 * frontend_arith.c — numbers and Python's operators in the NumPy subset: decimal
 * literals as exact rationals, the kinds of values for messages, and arithmetic:
 * tensors through the op that plays the operator's role (`python "+"` in specs/),
 * sizes and scalars as terms.  Names no op.
 */
#include <stdlib.h>
#include <string.h>
#include "fe.h"

/* A decimal literal as an exact rational num / den; 0 where either would pass 2^63 / 100. */
static int
decimal(const char *text, int64_t *pnum, int64_t *pden)
{
	int64_t num = 0, den = 1;
	const char *p = text;
	int frac = 0, ok = 1;
	for (; *p && *p != 'e' && *p != 'E'; p++) {
		if (*p == '.') {
			frac = 1;
			continue;
		}
		if (num > INT64_MAX / 100 || den > INT64_MAX / 100) {
			ok = 0;
			break;
		}
		num = num * 10 + (*p - '0');
		if (frac)
			den *= 10;
	}
	if (ok && *p) {
		int ex = atoi(p + 1);
		for (; ex > 0 && ok; ex--)
			num > INT64_MAX / 100 ? (void)(ok = 0) : (void)(num *= 10);
		for (; ex < 0 && ok; ex++)
			den > INT64_MAX / 100 ? (void)(ok = 0) : (void)(den *= 10);
	}
	*pnum = num, *pden = den;
	return ok;
}

Term *
fe_real_literal(Fe *fe, const char *text, AxLoc loc)
{
	int64_t num, den;
	if (!decimal(text, &num, &den))
		fe_error(fe, loc, "the literal %s has too many digits to be represented exactly", text);
	return t_num(fe->tc, num, den, TS_REAL);
}

/* A double (what Python computes for math.sqrt(2.0)) as a decimal of 17 significant digits, or
 * as few as 9 where the exponent leaves no room (more than float32's 7 either way). */
Term *
fe_double_literal(Fe *fe, double y, AxLoc loc)
{
	char text[64];
	int64_t num, den;
	for (int digits = 17; digits >= 9; digits--) {
		snprintf(text, sizeof text, "%.*e", digits - 1, y < 0 ? -y : y);
		if (decimal(text, &num, &den))
			return t_num(fe->tc, y < 0 ? -num : num, den, TS_REAL);
	}
	fe_error(fe, loc, "%g is too small or too large a number here (a rational of 64-bit integers)", y);
}

/* Decimal digits as an integer of at most limit; 0 when there are more. */
int
fe_int_literal(const char *s, int64_t limit, int64_t *out)
{
	int64_t v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (limit - (*s - '0')) / 10)
			return 0;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 1;
}

/* The kind of a value with its article, for messages: "a tensor", "an integer". */
const char *
fe_vkind_name(VKind k)
{
	static const char *s[] = { "None", "a tensor", "an integer", "a number", "a boolean", "a tuple", "a module",
		                       "a function", "a method", "a function", "a shape" };
	return s[k];
}


/* Tensor node x to the integer power n (2 <= |n| <= FE_MAX_POW) through the ops that play '**2',
 * '*' and '**-1': squares and products by binary powering, the reciprocal of that if n < 0
 * (x**3 = x**2 * x, x**-4 = ((x**2)**2)**-1). */
static int
int_power(Fe *fe, int x, int n, AxLoc loc)
{
	int m = n < 0 ? -n : n, acc = -1, sq = fe_role(fe, "**2", loc), mul = fe_role(fe, "*", loc);
	for (int base = x; m; m >>= 1) {
		if (m & 1) {
			int in[2] = { acc, base };
			acc = acc < 0 ? base : fe_apply(fe, mul, in, 2, NULL, 0, NULL, loc);
		}
		if (m > 1)
			base = fe_apply(fe, sq, &base, 1, NULL, 0, NULL, loc);
	}
	return n < 0 ? fe_apply(fe, fe_role(fe, "**-1", loc), &acc, 1, NULL, 0, NULL, loc) : acc;
}

/* Python arithmetic: tensors through the op that plays the operator's role,
 * sizes and scalars as terms. */
Val
fe_arith(Fe *fe, int op, Val a, Val b, AxLoc loc)
{
	static const char *role[128] = { ['+'] = "+", ['-'] = "-", ['*'] = "*", ['/'] = "/", ['@'] = "@" };
	if (a.k == V_TENSOR || b.k == V_TENSOR) {
		if (op == 'p') {
			if (b.k == V_TENSOR)
				fe_error(fe, loc, "'**' with a tensor exponent is not supported");
			double x;
			if (t_eval(b.t, NULL, &x) != 0)
				fe_error(fe, loc, "the exponent of '**' must be a constant");
			if (x == 1)
				return a;
			const char *r = x == 2 ? "**2" : x == 0.5 ? "**0.5" : x == -1 ? "**-1" : x == -0.5 ? "**-0.5" : NULL;
			int in = fe_tensor(fe, a, loc);
			if (!r && x >= -FE_MAX_POW && x <= FE_MAX_POW && x == (int)x && x != 0)   /* in range before the cast */
				return (Val){ .k = V_TENSOR, .node = int_power(fe, in, (int)x, loc) };
			if (!r)
				fe_error(fe, loc, "'**' with exponent %g is not supported (an integer from %d to %d but 0, or 0.5 or -0.5)",
				         x, -FE_MAX_POW, FE_MAX_POW);
			return (Val){ .k = V_TENSOR, .node = fe_apply(fe, fe_role(fe, r, loc), &in, 1, NULL, 0, NULL, loc) };
		}
		if (op == 'f' || op == '%')
			fe_error(fe, loc, "'%s' on tensors is not supported", op == 'f' ? "//" : "%");
		if (op == '@' && (a.k != V_TENSOR || b.k != V_TENSOR))
			fe_error(fe, loc, "'@' needs two tensors, got %s", fe_vkind_name(a.k == V_TENSOR ? b.k : a.k));
		if (op == '@')
			return (Val){ .k = V_TENSOR, .node = fe_matmul(fe, fe_role(fe, "@", loc), a.node, b.node, loc) };
		int in[2] = { fe_tensor(fe, a, loc), fe_tensor(fe, b, loc) };
		return (Val){ .k = V_TENSOR, .node = fe_apply(fe, fe_role(fe, role[op], loc), in, 2, NULL, 0, NULL, loc) };
	}
	if ((a.k != V_SIZE && a.k != V_REAL) || (b.k != V_SIZE && b.k != V_REAL))
		fe_error(fe, loc, "arithmetic on %s and %s", fe_vkind_name(a.k), fe_vkind_name(b.k));
	int ints = a.k == V_SIZE && b.k == V_SIZE;
	double x, y;
	if (ints && t_eval(a.t, NULL, &x) == 0 && t_eval(b.t, NULL, &y) == 0) {   /* constants fold: in 64 bits */
		int64_t r, p = (int64_t)x, q = (int64_t)y;
		int over = op == '+' ? __builtin_add_overflow(p, q, &r) : op == '-' ? __builtin_sub_overflow(p, q, &r)
		         : op == '*' || op == 'p' ? __builtin_mul_overflow(p, op == 'p' ? p : q, &r) : 0;
		if (over || (!over && (op == '+' || op == '-' || op == '*' || op == 'p') && (r > FE_MAX_INT || r < -FE_MAX_INT)))
			fe_error(fe, loc, "integer arithmetic past 2^62 (%lld %s %lld)", (long long)p,
			         op == 'p' ? "**" : op == '+' ? "+" : op == '-' ? "-" : "*", (long long)q);
	}
	switch (op) {
	case '+': return (Val){ .k = ints ? V_SIZE : V_REAL, .t = t_bin(fe->tc, TK_ADD, a.t, b.t) };
	case '-': return (Val){ .k = ints ? V_SIZE : V_REAL, .t = t_bin(fe->tc, TK_SUB, a.t, b.t) };
	case '*': return (Val){ .k = ints ? V_SIZE : V_REAL, .t = t_bin(fe->tc, TK_MUL, a.t, b.t) };
	case '/': return (Val){ .k = V_REAL, .t = t_bin(fe->tc, TK_DIV, t_toreal(fe->tc, a.t), t_toreal(fe->tc, b.t)) };
	case 'f':
	case '%': {
		if (!ints)
			fe_error(fe, loc, "'%s' is supported on integers (sizes) only", op == 'f' ? "//" : "%");
		double z;
		if (t_eval(b.t, NULL, &z) == 0 && z <= 0)
			fe_error(fe, loc, "'%s' by %g: sizes are divided by positive numbers only", op == 'f' ? "//" : "%", z);
		return (Val){ .k = V_SIZE, .t = t_bin(fe->tc, op == 'f' ? TK_DIV : TK_MOD, a.t, b.t) };
	}
	case 'p': {
		double x;
		if (t_eval(b.t, NULL, &x) == 0 && (x == 0.5 || x == -0.5))   /* D ** -0.5: a square root, on chip */
			return fe_arith(fe, op, (Val){ .k = V_TENSOR, .node = fe_tensor(fe, a, loc) }, b, loc);
		if (t_eval(b.t, NULL, &x) != 0 || x != 2)
			fe_error(fe, loc, "'**' on numbers is supported with the exponents 2, 0.5 and -0.5 only");
		return (Val){ .k = a.k, .t = t_bin(fe->tc, TK_MUL, a.t, a.t) };
	}
	default:
		fe_error(fe, loc, "'@' needs two tensors");
	}
}
