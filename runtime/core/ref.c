/*
 * ref.c — small helpers that the generated reference kernels call, and
 * the shape text and random numbers the runs of programs and kernels share.
 *
 * Index arithmetic follows the integer semantics the SMT encoding uses
 * (floor division and a non-negative remainder for a positive divisor), so the
 * reference kernels and the proofs agree on what an index expression means.
 */
#include "axon.h"

int64_t
ax_idiv(int64_t a, int64_t b)
{
	if (b == -1)   /* INT64_MIN / -1 overflows: wrap as the hardware would not */
		return a == INT64_MIN ? INT64_MIN : -a;
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

int64_t
ax_imod(int64_t a, int64_t b)
{
	if (b == -1)
		return 0;
	int64_t r = a % b;   /* NumPy's (floored) modulo: the sign of b */
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

int64_t
ax_offset(int rank, const int64_t *dims, const int64_t *idx)
{
	int64_t off = 0;
	for (int i = 0; i < rank; i++) {
		int64_t x = idx[i];
		if (x < 0 || x >= dims[i])
			return -1;
		off = off * dims[i] + x;
	}
	return off;
}

int64_t
ax_numel(const AxShape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++)
		n *= s->d[i];
	return n;
}

int64_t
ax_gcd(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a ? a : 1;
}

void
ax_shape_str(const AxShape *s, char *b, size_t n)
{
	size_t w = (size_t)snprintf(b, n, "[");
	for (int d = 0; d < s->rank && w < n; d++)
		w += (size_t)snprintf(b + w, n - w, "%s%lld", d ? ", " : "", (long long)s->d[d]);
	if (w < n)
		snprintf(b + w, n - w, "]");
}

/* SplitMix64: the random inputs of runs and validations, from a seed */
uint64_t
ax_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
