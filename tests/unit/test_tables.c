/*
 * test_tables.c — the generated trainium tables against hand-written truth.
 *
 *   1. reference kernels of the tensor ops (AxOp.ref) vs naive double loops
 *   2. reference kernels of the instructions, engines and optional operands
 *   3. check() diagnostics
 *   4. encoders: the element terms, printed, for hand-checked instances
 *   5. check() and pre() agree on random concrete sizes (Z3), and shape()
 *      agrees with the shape check() computes
 *   6. smt_prove on preconditions
 *
 * Inputs come from a fixed-seed splitmix64; floats are compared with
 * rtol = atol = 1e-5.  The last line is "N passed, M failed".
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front.h"
#include "measure.h"

/* ---- the harness ----------------------------------------------------------- */

#include "check.h"

static int
close_enough(double got, double want)
{
	if (isnan(got) || isnan(want))
		return 0;
	return fabs(got - want) <= 1e-5 + 1e-5 * fabs(want);
}

static void
check_arr_(const char *file, int line, const char *what, const float *got, const double *want, int64_t n)
{
	int64_t bad = -1;
	for (int64_t i = 0; i < n && bad < 0; i++)
		if (!close_enough(got[i], want[i]))
			bad = i;
	report_at(bad < 0, file, line, "%s: element %lld is %.9g, want %.9g", what, (long long)bad,
	       bad >= 0 ? (double)got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
}
#define CHECK_ARR(what, got, want, n) check_arr_(__FILE__, __LINE__, what, got, want, n)

static const AxTarget *T;

static void
finish(void)
{
	check_done();
	fflush(stdout);
}

/* a missing op or instruction makes the rest meaningless: stop here */
static const AxOp *
need(const AxOp *op, const char *kind, const char *name)
{
	if (!op) {
		report_at(0, __FILE__, __LINE__, "no %s '%s' in target '%s'", kind, name, T->name);
		finish();
		exit(1);
	}
	return op;
}
static const AxOp *OP(const char *name) { return need(ax_find_op(T, name), "op", name); }
static const AxOp *INST(const char *name) { return need(ax_find_inst(T, name), "instruction", name); }

static int
attr_index(const AxOp *op, const char *name)
{
	for (int a = 0; a < op->nattr; a++)
		if (strcmp(op->attr[a].name, name) == 0)
			return a;
	report_at(0, __FILE__, __LINE__, "%s has no attribute '%s'", op->name, name);
	finish();
	exit(1);
}

/* index of an enum item for attribute attr of op */
static int
item(const AxOp *op, const char *attr, const char *name)
{
	const AxAttr *at = &op->attr[attr_index(op, attr)];
	if (at->kind == AX_ATTR_ENUM) {
		const AxEnum *e = &T->enums[at->enum_id];
		for (int k = 0; k < e->nitems; k++)
			if (strcmp(e->items[k], name) == 0)
				return k;
	}
	report_at(0, __FILE__, __LINE__, "%s.%s has no item '%s'", op->name, attr, name);
	finish();
	exit(1);
}

static int
engine(const char *name)
{
	for (int e = 0; e < T->nengines; e++)
		if (strcmp(T->engines[e].name, name) == 0)
			return e;
	report_at(0, __FILE__, __LINE__, "no engine '%s'", name);
	finish();
	exit(1);
}

/* ---- a fixed-seed PRNG ------------------------------------------------------ */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform integer in [lo, hi] */
static int64_t
rint_in(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1));
}

/* uniform in [lo, hi) */
static float
runi(double lo, double hi)
{
	return (float)(lo + (hi - lo) * ((double)(rng() >> 11) / 9007199254740992.0));
}

static void
fill(float *v, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		v[i] = runi(-1, 1);
}

static void
fill_range(float *v, int64_t n, double lo, double hi)
{
	for (int64_t i = 0; i < n; i++)
		v[i] = runi(lo, hi);
}

/* ---- concrete instances ------------------------------------------------------ */

static void
set_opnd(AxConc *c, int o, int rank, const int64_t *d)
{
	c->rank[o] = rank;
	for (int i = 0; i < rank; i++)
		c->dim[o][i] = d[i];
	if (o + 1 > c->nopnd)
		c->nopnd = o + 1;
}
#define SET(c, o, rank, ...) set_opnd(c, o, rank, (const int64_t[]){ __VA_ARGS__ })

static void
infer(const AxOp *op, AxConc *c)
{
	c->nopnd = op->nopnd;
	ax_infer_granks(op->layout, c->rank, c->grank);
}

static void
shape_str(char *buf, size_t n, int rank, const int64_t *d)
{
	size_t k = (size_t)snprintf(buf, n, "[");
	for (int i = 0; i < rank && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

/* check() then ref(); 1 if both succeed and the result has the wanted shape */
static int
run_(const char *file, int line, const AxOp *op, AxConc *c, const float *const *in, float *out, int64_t cap,
     int rank, const int64_t *dims)
{
	AxShape os;
	char err[256] = "";
	int rc = op->check(c, &os, err, sizeof err);
	report_at(rc == 0, file, line, "%s: check() failed: %s", op->name, err);
	if (rc)
		return 0;
	int same = os.rank == rank;
	for (int d = 0; same && d < rank; d++)
		same = os.d[d] == dims[d];
	char got[128], want[128];
	shape_str(got, sizeof got, os.rank, os.d);
	shape_str(want, sizeof want, rank, dims);
	report_at(same, file, line, "%s: result shape %s, want %s", op->name, got, want);
	if (!same || ax_numel(&os) > cap)
		return 0;
	rc = op->ref(c, in, out, err, sizeof err);
	report_at(rc == 0, file, line, "%s: ref() failed: %s", op->name, err);
	return rc == 0;
}
#define RUN(op, c, in, out, rank, ...)                                                            \
	run_(__FILE__, __LINE__, op, c, in, out, (int64_t)(sizeof(out) / sizeof((out)[0])), rank,  \
	     (const int64_t[]){ __VA_ARGS__ })
#define IN(...) ((const float *const[]){ __VA_ARGS__ })

/* row-major offset and an odometer over all indices of a shape */
static int64_t
off(int rank, const int64_t *d, const int64_t *ix)
{
	int64_t o = 0;
	for (int i = 0; i < rank; i++)
		o = o * d[i] + ix[i];
	return o;
}
#define OFF(rank, d, ...) off(rank, d, (const int64_t[]){ __VA_ARGS__ })

static int
next(int rank, const int64_t *d, int64_t *ix)
{
	for (int i = rank - 1; i >= 0; i--) {
		if (++ix[i] < d[i])
			return 1;
		ix[i] = 0;
	}
	return 0;
}

static void describe(char *buf, size_t n, const AxOp *op, const AxConc *c);

/* ---- 1. reference kernels of the tensor ops ----------------------------------- */

static void
test_elementwise_broadcast(void)
{
	const AxOp *add = OP("add"), *mul = OP("multiply");
	{       /* [2,3] + [3] */
		float a[6], b[3], out[6];
		double want[6];
		fill(a, 6);
		fill(b, 3);
		AxConc c = { 0 };
		SET(&c, 0, 2, 2, 3);
		SET(&c, 1, 1, 3);
		infer(add, &c);
		CHECK_INT(c.grank[0], 2);
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 3; j++)
				want[i * 3 + j] = (double)a[i * 3 + j] + b[j];
		if (RUN(add, &c, IN(a, b), out, 2, 2, 3))
			CHECK_ARR("add [2,3]+[3]", out, want, 6);
	}
	{       /* [4,1] * [1,5] */
		float a[4], b[5], out[20];
		double want[20];
		fill(a, 4);
		fill(b, 5);
		AxConc c = { 0 };
		SET(&c, 0, 2, 4, 1);
		SET(&c, 1, 2, 1, 5);
		infer(mul, &c);
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 5; j++)
				want[i * 5 + j] = (double)a[i] * b[j];
		if (RUN(mul, &c, IN(a, b), out, 2, 4, 5))
			CHECK_ARR("multiply [4,1]*[1,5]", out, want, 20);
	}
	{       /* [2,3] + rank 0, and rank 0 + [3] */
		float a[6], b[1], out[6];
		double want[6];
		fill(a, 6);
		fill(b, 1);
		AxConc c = { 0 };
		SET(&c, 0, 2, 2, 3);
		c.rank[1] = 0;
		infer(add, &c);
		CHECK_INT(c.grank[0], 2);
		for (int i = 0; i < 6; i++)
			want[i] = (double)a[i] + b[0];
		if (RUN(add, &c, IN(a, b), out, 2, 2, 3))
			CHECK_ARR("add [2,3]+[]", out, want, 6);

		AxConc c2 = { 0 };
		c2.rank[0] = 0;
		SET(&c2, 1, 1, 3);
		infer(add, &c2);
		for (int i = 0; i < 3; i++)
			want[i] = (double)b[0] + a[i];
		if (RUN(add, &c2, IN(b, a), out, 1, 3))
			CHECK_ARR("add []+[3]", out, want, 3);

		AxConc c3 = { 0 };   /* both rank 0: a rank-0 result */
		c3.nopnd = 2;
		infer(add, &c3);
		CHECK_INT(c3.grank[0], 0);
		want[0] = (double)a[0] + b[0];
		if (RUN(add, &c3, IN(a, b), out, 0, 0))
			CHECK_ARR("add []+[]", out, want, 1);
	}
}

/* NumPy broadcasting on random shapes: every binary element-wise op and where */
static void
test_random_broadcast(void)
{
	static const char *const names[] = { "add", "subtract", "multiply", "divide", "maximum", "minimum", "where" };
	for (int t = 0; t < 42; t++) {
		const char *name = names[t % 7];
		const AxOp *op = OP(name);
		int nin = op->nopnd;
		int64_t rd[AX_MAXR];   /* the result shape */
		int rr = (int)rint_in(0, 3);
		for (int d = 0; d < rr; d++)
			rd[d] = rint_in(1, 3);
		AxConc c = { 0 };
		static float in[3][64];
		int64_t n[3];
		for (int o = 0; o < nin; o++) {   /* right-aligned, each dim the result's or 1 */
			int r = (int)rint_in(0, rr);
			c.rank[o] = r;
			n[o] = 1;
			for (int d = 0; d < r; d++) {
				int64_t x = rd[rr - r + d];
				c.dim[o][d] = rint_in(0, 2) ? x : 1;
				n[o] *= c.dim[o][d];
			}
			fill_range(in[o], n[o], 0.25, 2);   /* positive: a safe divisor */
			if (o == 0 && strcmp(name, "where") == 0)
				for (int64_t i = 0; i < n[o]; i++)
					in[o][i] = rint_in(0, 1) ? 0.0f : in[o][i];
		}
		/* the result rank is the largest operand rank: shrink rd to it */
		int maxr = 0;
		for (int o = 0; o < nin; o++)
			maxr = c.rank[o] > maxr ? c.rank[o] : maxr;
		int64_t od[AX_MAXR];
		for (int d = 0; d < maxr; d++) {
			od[d] = 1;
			for (int o = 0; o < nin; o++) {
				int k = d - (maxr - c.rank[o]);
				if (k >= 0 && c.dim[o][k] > od[d])
					od[d] = c.dim[o][k];
			}
		}
		infer(op, &c);
		CHECK_INT(c.grank[0], maxr);
		int64_t total = 1;
		for (int d = 0; d < maxr; d++)
			total *= od[d];
		float out[64];
		double want[64];
		int64_t o_ix[AX_MAXR] = { 0 }, k = 0;
		do {
			double v[3];
			for (int o = 0; o < nin; o++) {
				int64_t ix[AX_MAXR];
				for (int d = 0; d < c.rank[o]; d++) {
					int64_t x = o_ix[maxr - c.rank[o] + d];
					ix[d] = c.dim[o][d] == 1 ? 0 : x;
				}
				v[o] = in[o][off(c.rank[o], c.dim[o], ix)];
			}
			switch (t % 7) {
			case 0: want[k] = v[0] + v[1]; break;
			case 1: want[k] = v[0] - v[1]; break;
			case 2: want[k] = v[0] * v[1]; break;
			case 3: want[k] = v[0] / v[1]; break;
			case 4: want[k] = fmax(v[0], v[1]); break;
			case 5: want[k] = fmin(v[0], v[1]); break;
			default: want[k] = v[0] != 0 ? v[1] : v[2]; break;
			}
			k++;
		} while (next(maxr, od, o_ix));
		AxShape os;
		char err[256] = "", what[256];
		int rc = op->check(&c, &os, err, sizeof err);
		describe(what, sizeof what, op, &c);
		CHECK_MSG(rc == 0, "%s: check() failed: %s", what, err);
		if (rc)
			continue;
		int same = os.rank == maxr;
		for (int d = 0; same && d < maxr; d++)
			same = os.d[d] == od[d];
		CHECK_MSG(same, "%s: wrong result shape", what);
		rc = op->ref(&c, (const float *const[]){ in[0], in[1], in[2] }, out, err, sizeof err);
		CHECK_MSG(rc == 0, "%s: ref() failed: %s", what, err);
		if (rc == 0 && same)
			CHECK_ARR(what, out, want, total);
	}
}

/* matmul with random batch broadcasting */
static void
test_random_matmul(void)
{
	const AxOp *op = OP("matmul");
	for (int t = 0; t < 20; t++) {
		int rb = (int)rint_in(0, 2);   /* result batch rank */
		int64_t bd[2];
		for (int d = 0; d < rb; d++)
			bd[d] = rint_in(1, 3);
		int64_t M = rint_in(1, 3), K = rint_in(1, 4), N = rint_in(1, 3);
		AxConc c = { 0 };
		int64_t n[2] = { 1, 1 };
		for (int o = 0; o < 2; o++) {
			int r = (int)rint_in(0, rb);
			c.rank[o] = r + 2;
			for (int d = 0; d < r; d++) {
				c.dim[o][d] = rint_in(0, 2) ? bd[rb - r + d] : 1;
				n[o] *= c.dim[o][d];
			}
			c.dim[o][r] = o ? K : M;
			c.dim[o][r + 1] = o ? N : K;
			n[o] *= c.dim[o][r] * c.dim[o][r + 1];
		}
		int maxb = ax_max64(c.rank[0], c.rank[1]) - 2;
		int64_t od[AX_MAXR];
		for (int d = 0; d < maxb; d++) {
			od[d] = 1;
			for (int o = 0; o < 2; o++) {
				int k = d - (maxb - (c.rank[o] - 2));
				if (k >= 0 && c.dim[o][k] > od[d])
					od[d] = c.dim[o][k];
			}
		}
		od[maxb] = M;
		od[maxb + 1] = N;
		static float a[128], b[128];
		float out[128];
		double want[128];
		fill(a, n[0]);
		fill(b, n[1]);
		infer(op, &c);
		int64_t oi[AX_MAXR] = { 0 }, k = 0;
		do {
			double s = 0;
			for (int64_t kk = 0; kk < K; kk++) {
				int64_t ia[AX_MAXR], ib[AX_MAXR];
				for (int o = 0; o < 2; o++) {
					int r = c.rank[o] - 2;
					int64_t *ix = o ? ib : ia;
					for (int d = 0; d < r; d++)
						ix[d] = c.dim[o][d] == 1 ? 0 : oi[maxb - r + d];
					ix[r] = o ? kk : oi[maxb];
					ix[r + 1] = o ? oi[maxb + 1] : kk;
				}
				s += (double)a[off(c.rank[0], c.dim[0], ia)] * b[off(c.rank[1], c.dim[1], ib)];
			}
			want[k++] = s;
		} while (next(maxb + 2, od, oi));
		AxShape os;
		char err[256] = "", what[256];
		describe(what, sizeof what, op, &c);
		int rc = op->check(&c, &os, err, sizeof err);
		CHECK_MSG(rc == 0, "%s: check() failed: %s", what, err);
		if (rc)
			continue;
		int same = os.rank == maxb + 2;
		for (int d = 0; same && d < maxb + 2; d++)
			same = os.d[d] == od[d];
		CHECK_MSG(same, "%s: wrong result shape", what);
		rc = op->ref(&c, IN(a, b), out, err, sizeof err);
		CHECK_MSG(rc == 0, "%s: ref() failed: %s", what, err);
		if (rc == 0 && same)
			CHECK_ARR(what, out, want, k);
	}
}

static void
test_matmul(void)
{
	const AxOp *op = OP("matmul");
	{       /* [2,3,4] @ [4,5] */
		float a[24], b[20], out[30];
		double want[30];
		fill(a, 24);
		fill(b, 20);
		AxConc c = { 0 };
		SET(&c, 0, 3, 2, 3, 4);
		SET(&c, 1, 2, 4, 5);
		infer(op, &c);
		CHECK_INT(c.grank[0], 1);
		for (int n = 0; n < 2; n++)
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 5; j++) {
					double s = 0;
					for (int k = 0; k < 4; k++)
						s += (double)a[n * 12 + i * 4 + k] * b[k * 5 + j];
					want[n * 15 + i * 5 + j] = s;
				}
		if (RUN(op, &c, IN(a, b), out, 3, 2, 3, 5))
			CHECK_ARR("matmul [2,3,4]@[4,5]", out, want, 30);
	}
	{       /* [1,3,4] @ [2,4,5] */
		float a[12], b[40], out[30];
		double want[30];
		fill(a, 12);
		fill(b, 40);
		AxConc c = { 0 };
		SET(&c, 0, 3, 1, 3, 4);
		SET(&c, 1, 3, 2, 4, 5);
		infer(op, &c);
		for (int n = 0; n < 2; n++)
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 5; j++) {
					double s = 0;
					for (int k = 0; k < 4; k++)
						s += (double)a[i * 4 + k] * b[n * 20 + k * 5 + j];
					want[n * 15 + i * 5 + j] = s;
				}
		if (RUN(op, &c, IN(a, b), out, 3, 2, 3, 5))
			CHECK_ARR("matmul [1,3,4]@[2,4,5]", out, want, 30);
	}
}

/* sum, max, min, mean, cumsum along axis 1 of a [2,3,4] tensor */
static void
test_reductions(void)
{
	static const char *const names[] = { "sum", "max", "min", "mean", "cumsum" };
	float a[24], out[24];
	double want[24];
	fill(a, 24);
	for (int w = 0; w < 5; w++) {
		const AxOp *op = OP(names[w]);
		AxConc c = { 0 };
		SET(&c, 0, 3, 2, 3, 4);
		c.grank[0] = 1;   /* L */
		c.grank[1] = 1;   /* R */
		int scan = w == 4;
		for (int l = 0; l < 2; l++)
			for (int r = 0; r < 4; r++) {
				double s = 0, mx = -INFINITY, mn = INFINITY;
				for (int k = 0; k < 3; k++) {
					double x = a[l * 12 + k * 4 + r];
					s += x;
					mx = fmax(mx, x);
					mn = fmin(mn, x);
					if (scan)
						want[l * 12 + k * 4 + r] = s;
				}
				if (!scan)
					want[l * 4 + r] = w == 0 ? s : w == 1 ? mx : w == 2 ? mn : s / 3;
			}
		int ok = scan ? RUN(op, &c, IN(a), out, 3, 2, 3, 4) : RUN(op, &c, IN(a), out, 3, 2, 1, 4);
		if (ok)
			CHECK_ARR(names[w], out, want, scan ? 24 : 8);
	}
}

static void
test_swapaxes(void)
{
	const AxOp *op = OP("swapaxes");
	float a[120], out[120];
	double want[120];
	fill(a, 120);
	{       /* rank 2: the transpose */
		AxConc c = { 0 };
		SET(&c, 0, 2, 3, 4);   /* all groups empty */
		const int64_t od[] = { 4, 3 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = a[o[1] * 4 + o[0]];
		while (next(2, od, o));
		if (RUN(op, &c, IN(a), out, 2, 4, 3))
			CHECK_ARR("swapaxes [3,4]", out, want, 12);
	}
	{       /* [2,3,4,5], axes 1 and 3: L = [2], C = [4], R = [] */
		AxConc c = { 0 };
		SET(&c, 0, 4, 2, 3, 4, 5);
		c.grank[0] = 1;
		c.grank[1] = 1;
		c.grank[2] = 0;
		const int64_t ad[] = { 2, 3, 4, 5 }, od[] = { 2, 5, 4, 3 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = a[OFF(4, ad, o[0], o[3], o[2], o[1])];
		while (next(4, od, o));
		if (RUN(op, &c, IN(a), out, 4, 2, 5, 4, 3))
			CHECK_ARR("swapaxes [2,3,4,5] axes 1,3", out, want, 120);
	}
	{       /* [2,3,4,5], axes 0 and 2: L = [], C = [3], R = [5] */
		AxConc c = { 0 };
		SET(&c, 0, 4, 2, 3, 4, 5);
		c.grank[0] = 0;
		c.grank[1] = 1;
		c.grank[2] = 1;
		const int64_t ad[] = { 2, 3, 4, 5 }, od[] = { 4, 3, 2, 5 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = a[OFF(4, ad, o[2], o[1], o[0], o[3])];
		while (next(4, od, o));
		if (RUN(op, &c, IN(a), out, 4, 4, 3, 2, 5))
			CHECK_ARR("swapaxes [2,3,4,5] axes 0,2", out, want, 120);
	}
}

static void
test_slicing(void)
{
	float a[120], b[120], out[120];
	double want[120];
	fill(a, 120);
	fill(b, 120);
	{       /* a[:, 2:6, :] of [3,7,2] */
		const AxOp *op = OP("slice");
		AxConc c = { 0 };
		SET(&c, 0, 3, 3, 7, 2);
		c.grank[0] = c.grank[1] = 1;
		c.size[attr_index(op, "start")] = 2;
		c.size[attr_index(op, "stop")] = 6;
		const int64_t ad[] = { 3, 7, 2 }, od[] = { 3, 4, 2 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = a[OFF(3, ad, o[0], o[1] + 2, o[2])];
		while (next(3, od, o));
		if (RUN(op, &c, IN(a), out, 3, 3, 4, 2))
			CHECK_ARR("slice", out, want, 24);
	}
	{       /* a[:, 1:9:3, :] of [3,10,2]: rows 1, 4, 7 */
		const AxOp *op = OP("strided_slice");
		AxConc c = { 0 };
		SET(&c, 0, 3, 3, 10, 2);
		c.grank[0] = c.grank[1] = 1;
		c.size[attr_index(op, "start")] = 1;
		c.size[attr_index(op, "stop")] = 9;
		c.size[attr_index(op, "step")] = 3;
		const int64_t ad[] = { 3, 10, 2 }, od[] = { 3, 3, 2 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = a[OFF(3, ad, o[0], 1 + 3 * o[1], o[2])];
		while (next(3, od, o));
		if (RUN(op, &c, IN(a), out, 3, 3, 3, 2))
			CHECK_ARR("strided_slice", out, want, 18);
	}
	{       /* a[:, 0:8:4] of [2,8]: rows 0, 4 (stop - start divisible by step) */
		const AxOp *op = OP("strided_slice");
		AxConc c = { 0 };
		SET(&c, 0, 2, 2, 8);
		c.grank[0] = 1;
		c.grank[1] = 0;
		c.size[attr_index(op, "start")] = 0;
		c.size[attr_index(op, "stop")] = 8;
		c.size[attr_index(op, "step")] = 4;
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 2; j++)
				want[i * 2 + j] = a[i * 8 + 4 * j];
		if (RUN(op, &c, IN(a), out, 2, 2, 2))
			CHECK_ARR("strided_slice step 4", out, want, 4);
	}
	{       /* concatenate [2,3,4] and [2,5,4] along axis 1 */
		const AxOp *op = OP("concatenate");
		AxConc c = { 0 };
		SET(&c, 0, 3, 2, 3, 4);
		SET(&c, 1, 3, 2, 5, 4);
		c.grank[0] = c.grank[1] = 1;
		const int64_t ad[] = { 2, 3, 4 }, bd[] = { 2, 5, 4 }, od[] = { 2, 8, 4 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = o[1] < 3 ? a[OFF(3, ad, o[0], o[1], o[2])] : b[OFF(3, bd, o[0], o[1] - 3, o[2])];
		while (next(3, od, o));
		if (RUN(op, &c, IN(a, b), out, 3, 2, 8, 4))
			CHECK_ARR("concatenate", out, want, 64);
	}
	{       /* concatenate along the last axis: [3,2] and [3,4] */
		const AxOp *op = OP("concatenate");
		AxConc c = { 0 };
		SET(&c, 0, 2, 3, 2);
		SET(&c, 1, 2, 3, 4);
		c.grank[0] = 1;
		c.grank[1] = 0;
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 6; j++)
				want[i * 6 + j] = j < 2 ? a[i * 2 + j] : b[i * 4 + j - 2];
		if (RUN(op, &c, IN(a, b), out, 2, 3, 6))
			CHECK_ARR("concatenate last axis", out, want, 18);
	}
}

static void
test_reshapes(void)
{
	float a[120], out[120];
	double want[120];
	fill(a, 120);
	{       /* split_axis [2,6,3], (A, B) = (2, 3) -> [2,2,3,3] */
		const AxOp *op = OP("split_axis");
		AxConc c = { 0 };
		SET(&c, 0, 3, 2, 6, 3);
		c.grank[0] = c.grank[1] = 1;
		c.size[attr_index(op, "A")] = 2;
		c.size[attr_index(op, "B")] = 3;
		const int64_t ad[] = { 2, 6, 3 }, od[] = { 2, 2, 3, 3 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = a[OFF(3, ad, o[0], o[1] * 3 + o[2], o[3])];
		while (next(4, od, o));
		if (RUN(op, &c, IN(a), out, 4, 2, 2, 3, 3))
			CHECK_ARR("split_axis", out, want, 36);
	}
	{       /* merge_axes [2,3,4,5], axes 1 and 2 -> [2,12,5] */
		const AxOp *op = OP("merge_axes");
		AxConc c = { 0 };
		SET(&c, 0, 4, 2, 3, 4, 5);
		c.grank[0] = c.grank[1] = 1;
		const int64_t ad[] = { 2, 3, 4, 5 }, od[] = { 2, 12, 5 };
		int64_t o[AX_MAXR] = { 0 };
		int k = 0;
		do
			want[k++] = a[OFF(4, ad, o[0], o[1] / 4, o[1] % 4, o[2])];
		while (next(3, od, o));
		if (RUN(op, &c, IN(a), out, 3, 2, 12, 5))
			CHECK_ARR("merge_axes", out, want, 120);
	}
	{       /* expand_dims [3,4] at axis 1 -> [3,1,4], and at axis 0 -> [1,3,4] */
		const AxOp *op = OP("expand_dims");
		AxConc c = { 0 };
		SET(&c, 0, 2, 3, 4);
		c.grank[0] = c.grank[1] = 1;
		for (int i = 0; i < 12; i++)
			want[i] = a[i];
		if (RUN(op, &c, IN(a), out, 3, 3, 1, 4))
			CHECK_ARR("expand_dims axis 1", out, want, 12);
		c.grank[0] = 0;
		c.grank[1] = 2;
		if (RUN(op, &c, IN(a), out, 3, 1, 3, 4))
			CHECK_ARR("expand_dims axis 0", out, want, 12);
	}
	{       /* squeeze [3,1,4] -> [3,4] */
		const AxOp *op = OP("squeeze");
		AxConc c = { 0 };
		SET(&c, 0, 3, 3, 1, 4);
		c.grank[0] = c.grank[1] = 1;
		for (int i = 0; i < 12; i++)
			want[i] = a[i];
		if (RUN(op, &c, IN(a), out, 2, 3, 4))
			CHECK_ARR("squeeze", out, want, 12);
	}
	{       /* broadcast_axis [3,1,4], N = 5 -> [3,5,4] */
		const AxOp *op = OP("broadcast_axis");
		AxConc c = { 0 };
		SET(&c, 0, 3, 3, 1, 4);
		c.grank[0] = c.grank[1] = 1;
		c.size[attr_index(op, "N")] = 5;
		for (int i = 0; i < 3; i++)
			for (int n = 0; n < 5; n++)
				for (int r = 0; r < 4; r++)
					want[i * 20 + n * 4 + r] = a[i * 4 + r];
		if (RUN(op, &c, IN(a), out, 3, 3, 5, 4))
			CHECK_ARR("broadcast_axis", out, want, 60);
	}
}

static void
test_max_pool2d(void)
{
	const AxOp *op = OP("max_pool2d");
	float a[60], out[60];
	double want[60];
	fill(a, 60);
	/* [2,5,6], 2x3 window, strides 2 and 1 -> [2, (5-2)/2+1, (6-3)/1+1] = [2,2,4] */
	AxConc c = { 0 };
	SET(&c, 0, 3, 2, 5, 6);
	infer(op, &c);
	CHECK_INT(c.grank[0], 1);
	c.size[attr_index(op, "kh")] = 2;
	c.size[attr_index(op, "kw")] = 3;
	c.size[attr_index(op, "sh")] = 2;
	c.size[attr_index(op, "sw")] = 1;
	for (int n = 0; n < 2; n++)
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 4; j++) {
				double m = -INFINITY;
				for (int p = 0; p < 2; p++)
					for (int q = 0; q < 3; q++)
						m = fmax(m, a[n * 30 + (i * 2 + p) * 6 + (j + q)]);
				want[n * 8 + i * 4 + j] = m;
			}
	if (RUN(op, &c, IN(a), out, 3, 2, 2, 4))
		CHECK_ARR("max_pool2d", out, want, 16);
}

static void
test_where(void)
{
	const AxOp *op = OP("where");
	float cond[2] = { 0.0f, 1.5f }, a[6], b[3], out[6];
	double want[6];
	fill(a, 6);
	fill(b, 3);
	AxConc c = { 0 };
	SET(&c, 0, 2, 2, 1);
	SET(&c, 1, 2, 2, 3);
	SET(&c, 2, 1, 3);
	infer(op, &c);
	CHECK_INT(c.grank[0], 2);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			want[i * 3 + j] = cond[i] != 0 ? a[i * 3 + j] : b[j];
	if (RUN(op, &c, IN(cond, a, b), out, 2, 2, 3))
		CHECK_ARR("where", out, want, 6);
}

static double sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }
static double silu_d(double x) { return x * sigmoid_d(x); }
static double rsqrt_d(double x) { return 1.0 / sqrt(x); }
static double
gelu_d(double x)
{
	return 0.5 * x * (1.0 + tanh(sqrt(2.0 / (4.0 * atan(1.0))) * (x + 0.044715 * x * x * x)));
}

static void
test_unary(void)
{
	static const struct {
		const char *name;
		double (*f)(double);
		double lo, hi;
	} fs[] = {
		{ "exp", exp, -2, 2 },
		{ "rsqrt", rsqrt_d, 0.1, 4 },
		{ "silu", silu_d, -4, 4 },
		{ "gelu", gelu_d, -4, 4 },
		{ "sigmoid", sigmoid_d, -6, 6 },
		{ "tanh", tanh, -3, 3 },
	};
	for (size_t w = 0; w < sizeof fs / sizeof fs[0]; w++) {
		const AxOp *op = OP(fs[w].name);
		float a[6], out[6];
		double want[6];
		fill_range(a, 6, fs[w].lo, fs[w].hi);
		for (int i = 0; i < 6; i++)
			want[i] = fs[w].f(a[i]);
		AxConc c = { 0 };
		SET(&c, 0, 2, 2, 3);
		infer(op, &c);
		CHECK_INT(c.grank[0], 2);
		if (RUN(op, &c, IN(a), out, 2, 2, 3))
			CHECK_ARR(fs[w].name, out, want, 6);
	}
}

static void
test_full(void)
{
	const AxOp *op = OP("full");
	CHECK_INT(op->nopnd, 0);
	int v = attr_index(op, "value");
	CHECK_INT(op->attr[v].kind, AX_ATTR_FLOAT);
	static const double vals[] = { 2.5, -0.125, 0.0 };
	for (int i = 0; i < 3; i++) {
		float out[1] = { 99.0f };
		double want[1] = { vals[i] };
		AxConc c = { 0 };
		c.fval[v] = vals[i];
		if (RUN(op, &c, IN(NULL), out, 0, 0))
			CHECK_ARR("full", out, want, 1);
	}
}

/* ---- 2. instructions ------------------------------------------------------------ */

static void
test_nc_matmul(void)
{
	const AxOp *op = INST("nc_matmul");
	CHECK(op->engines & (1u << engine("tensor")));
	float st[15], mv[20], out[12];
	double want[12];
	fill(st, 15);
	fill(mv, 20);
	AxConc c = { 0 };
	SET(&c, 0, 2, 5, 3);   /* stationary [K, M] */
	SET(&c, 1, 2, 5, 4);   /* moving [K, N] */
	c.engine = engine("tensor");
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			double s = 0;
			for (int k = 0; k < 5; k++)
				s += (double)st[k * 3 + i] * mv[k * 4 + j];
			want[i * 4 + j] = s;
		}
	if (RUN(op, &c, IN(st, mv), out, 2, 3, 4))
		CHECK_ARR("nc_matmul = stationary.T @ moving", out, want, 12);
}

static void
test_tensor_tensor_scan(void)
{
	const AxOp *op = INST("tensor_tensor_scan");
	float d0[18], d1[18], init[3], out[18];
	double want[18];
	for (int i = 0; i < 18; i++)
		d0[i] = 1.0f;
	fill(d1, 18);
	fill(init, 3);
	AxConc c = { 0 };
	SET(&c, 0, 2, 3, 6);
	SET(&c, 1, 2, 3, 6);
	SET(&c, 2, 2, 3, 1);
	c.attr[attr_index(op, "op0")] = item(op, "op0", "multiply");
	c.attr[attr_index(op, "op1")] = item(op, "op1", "add");
	c.engine = engine("vector");
	for (int p = 0; p < 3; p++) {
		double s = init[p];
		for (int f = 0; f < 6; f++)
			want[p * 6 + f] = s += d1[p * 6 + f];
	}
	if (RUN(op, &c, IN(d0, d1, init), out, 2, 3, 6))
		CHECK_ARR("tensor_tensor_scan = cumsum + initial", out, want, 18);

	c.rank[2] = -1;   /* initial left out: starts from 0 */
	for (int p = 0; p < 3; p++) {
		double s = 0;
		for (int f = 0; f < 6; f++)
			want[p * 6 + f] = s += d1[p * 6 + f];
	}
	if (RUN(op, &c, IN(d0, d1, NULL), out, 2, 3, 6))
		CHECK_ARR("tensor_tensor_scan without initial = cumsum", out, want, 18);

	/* op0 = add, op1 = maximum: r = max(data0 + r, data1), a non-commutative chain */
	c.rank[2] = 2;
	fill(d0, 18);
	c.attr[attr_index(op, "op0")] = item(op, "op0", "add");
	c.attr[attr_index(op, "op1")] = item(op, "op1", "maximum");
	for (int p = 0; p < 3; p++) {
		double r = init[p];
		for (int f = 0; f < 6; f++)
			want[p * 6 + f] = r = fmax(d0[p * 6 + f] + r, d1[p * 6 + f]);
	}
	if (RUN(op, &c, IN(d0, d1, init), out, 2, 3, 6))
		CHECK_ARR("tensor_tensor_scan add/maximum", out, want, 18);
}

static void
test_activation(void)
{
	static const struct {
		const char *name;
		double (*f)(double);
	} fs[] = { { "exp", exp }, { "silu", silu_d } };
	const char *insts[] = { "activation", "activation_reduce" };
	float x[20], bias[4], scale[4], out[20];
	double want[20];
	fill(x, 20);
	fill(bias, 4);
	fill(scale, 4);
	for (int red = 0; red < 2; red++) {
		const AxOp *op = INST(insts[red]);
		for (int w = 0; w < 2; w++)
			for (int mode = 0; mode < 4; mode++) {   /* bit 0: bias present, bit 1: scale present */
				AxConc c = { 0 };
				SET(&c, 0, 2, 4, 5);
				SET(&c, 1, 2, 4, 1);
				SET(&c, 2, 2, 4, 1);
				if (!(mode & 1))
					c.rank[1] = -1;
				if (!(mode & 2))
					c.rank[2] = -1;
				c.attr[attr_index(op, "func")] = item(op, "func", fs[w].name);
				c.engine = engine("scalar");
				for (int p = 0; p < 4; p++) {
					double s = 0;
					for (int f = 0; f < 5; f++) {
						double b = (mode & 1) ? bias[p] : 0.0, k = (mode & 2) ? scale[p] : 1.0;
						double y = fs[w].f((double)x[p * 5 + f] * k + b);
						s += y;
						if (!red)
							want[p * 5 + f] = y;
					}
					if (red)
						want[p] = s;
				}
				char what[96];
				snprintf(what, sizeof what, "%s func=%s bias %s scale %s", op->name, fs[w].name,
				         (mode & 1) ? "given" : "left out", (mode & 2) ? "given" : "left out");
				int ok = red ? RUN(op, &c, IN(x, bias, scale), out, 2, 4, 1)
				             : RUN(op, &c, IN(x, bias, scale), out, 2, 4, 5);
				if (ok)
					CHECK_ARR(what, out, want, red ? 4 : 20);
			}
	}
}

static double
red_apply(const char *item_name, const double *v, int n)
{
	double acc = strcmp(item_name, "add") == 0 ? 0 : strcmp(item_name, "max") == 0 ? -INFINITY : INFINITY;
	for (int i = 0; i < n; i++)
		acc = strcmp(item_name, "add") == 0 ? acc + v[i] : strcmp(item_name, "max") == 0 ? fmax(acc, v[i])
		                                                                              : fmin(acc, v[i]);
	return acc;
}

static void
test_reduce_insts(void)
{
	float x[28], out[28];
	double want[28], row[8];
	fill(x, 28);
	{       /* tensor_reduce over the free axis of [4,7], every redop item */
		const AxOp *op = INST("tensor_reduce");
		const AxEnum *e = &T->enums[op->attr[attr_index(op, "op")].enum_id];
		CHECK_INT(e->nitems, 3);
		for (int it = 0; it < e->nitems; it++) {
			AxConc c = { 0 };
			SET(&c, 0, 2, 4, 7);
			c.attr[attr_index(op, "op")] = it;
			c.engine = engine("vector");
			for (int p = 0; p < 4; p++) {
				for (int f = 0; f < 7; f++)
					row[f] = x[p * 7 + f];
				want[p] = red_apply(e->items[it], row, 7);
			}
			char what[64];
			snprintf(what, sizeof what, "tensor_reduce op=%s", e->items[it]);
			if (RUN(op, &c, IN(x), out, 2, 4, 1))
				CHECK_ARR(what, out, want, 4);
		}
		AxConc c = { 0 };   /* an item out of range */
		SET(&c, 0, 2, 4, 7);
		c.attr[0] = e->nitems;
		AxShape os;
		char err[256] = "";
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
	}
	{       /* tensor_partition_reduce over the partition axis of [4,7] -> [1,7] */
		const AxOp *op = INST("tensor_partition_reduce");
		const AxEnum *e = &T->enums[op->attr[attr_index(op, "op")].enum_id];
		for (int it = 0; it < e->nitems; it++) {
			AxConc c = { 0 };
			SET(&c, 0, 2, 4, 7);
			c.attr[attr_index(op, "op")] = it;
			c.engine = engine("gpsimd");
			for (int f = 0; f < 7; f++) {
				for (int p = 0; p < 4; p++)
					row[p] = x[p * 7 + f];
				want[f] = red_apply(e->items[it], row, 4);
			}
			char what[64];
			snprintf(what, sizeof what, "tensor_partition_reduce op=%s", e->items[it]);
			if (RUN(op, &c, IN(x), out, 2, 1, 7))
				CHECK_ARR(what, out, want, 7);
		}
	}
	{       /* tensor_scalar_reduce: reduce_op(op0(data, operand0)) over the free axis */
		const AxOp *op = INST("tensor_scalar_reduce");
		const AxEnum *e = &T->enums[op->attr[attr_index(op, "reduce_op")].enum_id];
		static const char *const alus[] = { "subtract", "multiply", "maximum" };
		float s0[4];
		fill(s0, 4);
		for (int ai = 0; ai < 3; ai++)
			for (int it = 0; it < e->nitems; it++) {
				AxConc c = { 0 };
				SET(&c, 0, 2, 4, 7);
				SET(&c, 1, 2, 4, 1);
				c.attr[attr_index(op, "op0")] = item(op, "op0", alus[ai]);
				c.attr[attr_index(op, "reduce_op")] = it;
				c.engine = engine("vector");
				for (int p = 0; p < 4; p++) {
					for (int f = 0; f < 7; f++) {
						double d = x[p * 7 + f], o = s0[p];
						row[f] = ai == 0 ? d - o : ai == 1 ? d * o : fmax(d, o);
					}
					want[p] = red_apply(e->items[it], row, 7);
				}
				char what[96];
				snprintf(what, sizeof what, "tensor_scalar_reduce op0=%s reduce_op=%s", alus[ai],
				         e->items[it]);
				if (RUN(op, &c, IN(x, s0), out, 2, 4, 1))
					CHECK_ARR(what, out, want, 4);
			}
	}
}

static void
test_constants(void)
{
	{       /* iota: p * pstep + f * fstep on [3,4] */
		const AxOp *op = INST("iota");
		float out[12];
		double want[12];
		AxConc c = { 0 };
		c.size[attr_index(op, "P")] = 3;
		c.size[attr_index(op, "F")] = 4;
		c.size[attr_index(op, "pstep")] = 10;
		c.size[attr_index(op, "fstep")] = 2;
		c.engine = engine("gpsimd");
		for (int p = 0; p < 3; p++)
			for (int f = 0; f < 4; f++)
				want[p * 4 + f] = p * 10 + f * 2;
		if (RUN(op, &c, IN(NULL), out, 2, 3, 4))
			CHECK_ARR("iota", out, want, 12);
		c.size[attr_index(op, "P")] = 129;
		AxShape os;
		char err[256] = "";
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "P <= 128");
	}
	{       /* memset: value on [2,3], on both of its engines */
		const AxOp *op = INST("memset");
		float out[6];
		double want[6];
		for (int e = 0; e < 2; e++) {
			AxConc c = { 0 };
			c.size[attr_index(op, "P")] = 2;
			c.size[attr_index(op, "F")] = 3;
			c.fval[attr_index(op, "value")] = e ? 3.25 : -1.5;
			c.engine = engine(e ? "gpsimd" : "vector");
			CHECK(op->engines & (1u << c.engine));
			for (int i = 0; i < 6; i++)
				want[i] = e ? 3.25 : -1.5;
			if (RUN(op, &c, IN(NULL), out, 2, 2, 3))
				CHECK_ARR("memset", out, want, 6);
		}
	}
}

static void
test_nc_transpose(void)
{
	const AxOp *op = INST("nc_transpose");
	int te = engine("tensor"), ve = engine("vector");
	CHECK(op->engines & (1u << te));
	CHECK(op->engines & (1u << ve));
	static float x[64 * 64], out[64 * 64];
	static double want[64 * 64];
	fill(x, 64 * 64);
	for (int p = 0; p < 64; p++)
		for (int f = 0; f < 64; f++)
			want[f * 64 + p] = x[p * 64 + f];
	AxConc c = { 0 };
	SET(&c, 0, 2, 64, 64);
	c.engine = te;
	if (RUN(op, &c, IN(x), out, 2, 64, 64))
		CHECK_ARR("nc_transpose 64x64 on the tensor engine", out, want, 64 * 64);

	{   /* an engine the instruction does not list is refused, by check() and pre() alike */
		AxConc w = c;
		w.engine = engine("scalar");
		AxShape ws;
		char werr[256];
		CHECK(op->check(&w, &ws, werr, sizeof werr) != 0);
		CHECK(strstr(werr, "does not run on engine") != NULL);
	}
	c.engine = ve;   /* the vector engine transposes at most 32x32 */
	AxShape os;
	char err[256] = "";
	CHECK(op->check(&c, &os, err, sizeof err) != 0);
	CHECK_HAS(err, "vector");
	CHECK_HAS(err, "32");
	CHECK_HAS(err, "64");

	SET(&c, 0, 2, 5, 7);   /* small: fine on the vector engine */
	for (int p = 0; p < 5; p++)
		for (int f = 0; f < 7; f++)
			want[f * 5 + p] = x[p * 7 + f];
	if (RUN(op, &c, IN(x), out, 2, 7, 5))
		CHECK_ARR("nc_transpose 5x7 on the vector engine", out, want, 35);
}

static double copy_d(double x) { return x; }
static double recip_d(double x) { return 1.0 / x; }
static double square_d(double x) { return x * x; }
static double relu_d(double x) { return x > 0 ? x : 0; }

/* the alu items in the order alus[] below names them */
static double
alu_d(int a, double u, double v)
{
	switch (a) {
	case 0: return u + v;
	case 1: return u - v;
	case 2: return u * v;
	case 3: return u / v;
	case 4: return fmax(u, v);
	default: return fmin(u, v);
	}
}

/* every act item through activation, every alu item through the ALU instructions */
static void
test_enum_items(void)
{
	static const struct {
		const char *name;
		double (*f)(double);
	} acts[] = {
		{ "copy", copy_d }, { "exp", exp }, { "log", log }, { "sqrt", sqrt }, { "rsqrt", rsqrt_d },
		{ "reciprocal", recip_d }, { "square", square_d }, { "relu", relu_d }, { "sigmoid", sigmoid_d },
		{ "tanh", tanh }, { "silu", silu_d }, { "gelu_apprx_tanh", gelu_d }, { "abs", fabs },
	};
	const AxOp *act = INST("activation");
	const AxEnum *ae = &T->enums[act->attr[attr_index(act, "func")].enum_id];
	CHECK_INT(ae->nitems, (int)(sizeof acts / sizeof acts[0]));
	float x[12], bias[3], scale[3], out[12];
	double want[12];
	fill_range(x, 12, 0.5, 2);   /* x * scale + bias > 0: log, sqrt and rsqrt are defined */
	fill_range(scale, 3, 0.5, 1.5);
	fill_range(bias, 3, 0, 1);
	for (size_t w = 0; w < sizeof acts / sizeof acts[0]; w++) {
		AxConc c = { 0 };
		SET(&c, 0, 2, 3, 4);
		SET(&c, 1, 2, 3, 1);
		SET(&c, 2, 2, 3, 1);
		c.attr[0] = item(act, "func", acts[w].name);
		c.engine = engine("scalar");
		for (int p = 0; p < 3; p++)
			for (int f = 0; f < 4; f++)
				want[p * 4 + f] = acts[w].f((double)x[p * 4 + f] * scale[p] + bias[p]);
		char what[64];
		snprintf(what, sizeof what, "activation func=%s", acts[w].name);
		if (RUN(act, &c, IN(x, bias, scale), out, 2, 3, 4))
			CHECK_ARR(what, out, want, 12);
	}
	/* negative inputs for the functions defined there */
	fill_range(x, 12, -2, 2);
	static const char *const neg[] = { "abs", "relu", "tanh", "silu", "gelu_apprx_tanh", "square" };
	for (int w = 0; w < 6; w++) {
		double (*f)(double) = NULL;
		for (size_t k = 0; k < sizeof acts / sizeof acts[0]; k++)
			if (strcmp(acts[k].name, neg[w]) == 0)
				f = acts[k].f;
		AxConc c = { 0 };
		SET(&c, 0, 2, 3, 4);
		c.nopnd = 3;
		c.rank[1] = c.rank[2] = -1;
		c.attr[0] = item(act, "func", neg[w]);
		c.engine = engine("scalar");
		for (int i = 0; i < 12; i++)
			want[i] = f(x[i]);
		char what[64];
		snprintf(what, sizeof what, "activation func=%s on [-2, 2]", neg[w]);
		if (RUN(act, &c, IN(x, NULL, NULL), out, 2, 3, 4))
			CHECK_ARR(what, out, want, 12);
	}

	static const char *const alus[] = { "add", "subtract", "multiply", "divide", "maximum", "minimum" };
	const AxOp *tt = INST("tensor_tensor"), *ts = INST("tensor_scalar"), *stt = INST("scalar_tensor_tensor");
	float y[12], z[12], s0[3];
	fill(x, 12);
	fill_range(y, 12, 0.5, 2);   /* divisors away from 0 */
	fill(z, 12);
	fill_range(s0, 3, -2, -0.5);
	for (int a = 0; a < 6; a++) {
		AxConc c = { 0 };
		SET(&c, 0, 2, 3, 4);
		SET(&c, 1, 2, 3, 4);
		c.attr[0] = item(tt, "op", alus[a]);
		c.engine = engine("vector");
		for (int i = 0; i < 12; i++) {
			double u = x[i], v = y[i];
			want[i] = alu_d(a, u, v);
		}
		char what[96];
		snprintf(what, sizeof what, "tensor_tensor op=%s", alus[a]);
		if (RUN(tt, &c, IN(x, y), out, 2, 3, 4))
			CHECK_ARR(what, out, want, 12);

		AxConc d = { 0 };   /* tensor_scalar: data op0 operand0[p] */
		SET(&d, 0, 2, 3, 4);
		SET(&d, 1, 2, 3, 1);
		d.attr[0] = item(ts, "op0", alus[a]);
		d.engine = engine("vector");
		for (int i = 0; i < 12; i++) {
			double u = x[i], v = s0[i / 4];
			want[i] = alu_d(a, u, v);
		}
		snprintf(what, sizeof what, "tensor_scalar op0=%s", alus[a]);
		if (RUN(ts, &d, IN(x, s0), out, 2, 3, 4))
			CHECK_ARR(what, out, want, 12);

		for (int b = 0; b < 6; b++) {   /* scalar_tensor_tensor: (data op0 operand0[p]) op1 operand1 */
			AxConc e = { 0 };
			SET(&e, 0, 2, 3, 4);
			SET(&e, 1, 2, 3, 1);
			SET(&e, 2, 2, 3, 4);
			e.attr[attr_index(stt, "op0")] = item(stt, "op0", alus[a]);
			e.attr[attr_index(stt, "op1")] = item(stt, "op1", alus[b]);
			e.engine = engine("vector");
			for (int i = 0; i < 12; i++) {
				double u = y[i], v = s0[i / 4];
				double r = alu_d(a, u, v);
				double w2 = y[11 - i];
				want[i] = alu_d(b, r, w2);
			}
			float yr[12];
			for (int i = 0; i < 12; i++)
				yr[i] = y[11 - i];
			snprintf(what, sizeof what, "scalar_tensor_tensor op0=%s op1=%s", alus[a], alus[b]);
			if (RUN(stt, &e, IN(y, s0, yr), out, 2, 3, 4))
				CHECK_ARR(what, out, want, 12);
		}
	}
}

/* the data movers and reciprocal */
static void
test_movers(void)
{
	float x[12], out[12];
	double want[12];
	fill_range(x, 12, 0.5, 2);
	AxConc c = { 0 };
	SET(&c, 0, 2, 3, 4);
	for (int i = 0; i < 12; i++)
		want[i] = x[i];
	c.engine = engine("dma");
	if (RUN(INST("dma_copy"), &c, IN(x), out, 2, 3, 4))
		CHECK_ARR("dma_copy", out, want, 12);
	/* not on the Scalar engine: unsupported on NeuronCore-v2 (nki.isa.tensor_copy) */
	CHECK(!(INST("tensor_copy")->engines & (1u << engine("scalar"))));
	static const char *const engs[] = { "vector", "gpsimd" };
	for (int e = 0; e < 2; e++) {
		c.engine = engine(engs[e]);
		CHECK(INST("tensor_copy")->engines & (1u << c.engine));
		if (RUN(INST("tensor_copy"), &c, IN(x), out, 2, 3, 4))
			CHECK_ARR("tensor_copy", out, want, 12);
	}
	/* dma_transpose: src [F, P] -> [P, F] */
	for (int p = 0; p < 4; p++)
		for (int f = 0; f < 3; f++)
			want[p * 3 + f] = x[f * 4 + p];
	c.engine = engine("dma");
	if (RUN(INST("dma_transpose"), &c, IN(x), out, 2, 4, 3))
		CHECK_ARR("dma_transpose", out, want, 12);
	for (int i = 0; i < 12; i++)
		want[i] = 1.0 / x[i];
	c.engine = engine("vector");
	if (RUN(INST("reciprocal"), &c, IN(x), out, 2, 3, 4))
		CHECK_ARR("reciprocal", out, want, 12);
}

/* costs: the formulas of isa.ax on concrete instances */
static void
test_costs(void)
{
	{       /* nc_transpose: tensor max(P, min(64, F)), vector max(64, F) */
		const AxOp *op = INST("nc_transpose");
		AxConc c = { 0 };
		SET(&c, 0, 2, 100, 20);
		c.engine = engine("tensor");
		CHECK(op->cost(&c, 4) == 100.0);
		SET(&c, 0, 2, 10, 100);
		CHECK(op->cost(&c, 4) == 64.0);
		SET(&c, 0, 2, 16, 30);
		c.engine = engine("vector");
		CHECK(op->cost(&c, 4) == 64.0);
		SET(&c, 0, 2, 16, 100);
		CHECK(op->cost(&c, 4) == 100.0);
	}
	{       /* nc_matmul: max(min(64, M), N) * (fp32 ? 4 : 1) */
		const AxOp *op = INST("nc_matmul");
		AxConc c = { 0 };
		SET(&c, 0, 2, 128, 100);
		SET(&c, 1, 2, 128, 32);
		c.engine = engine("tensor");
		CHECK(op->cost(&c, 2) == 64.0);
		CHECK(op->cost(&c, 4) == 256.0);
		SET(&c, 1, 2, 128, 500);
		CHECK(op->cost(&c, 2) == 500.0);
	}
	{       /* dma_copy: P * F * dtype_bytes bytes */
		const AxOp *op = INST("dma_copy");
		AxConc c = { 0 };
		SET(&c, 0, 2, 128, 512);
		c.engine = engine("dma");
		CHECK(op->cost(&c, 2) == 128.0 * 512 * 2);
	}
}

/* ---- 3. check() diagnostics --------------------------------------------------- */

static void
test_diagnostics(void)
{
	AxShape os;
	char err[256];
	{       /* matmul [3,4] @ [5,6]: the contraction dims differ */
		const AxOp *op = OP("matmul");
		AxConc c = { 0 };
		SET(&c, 0, 2, 3, 4);
		SET(&c, 1, 2, 5, 6);
		infer(op, &c);
		err[0] = 0;
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "'a'");
		CHECK_HAS(err, "'b'");
		CHECK_HAS(err, "4");
		CHECK_HAS(err, "5");
		float a[12] = { 0 }, b[30] = { 0 }, out[64];
		err[0] = 0;
		CHECK(op->ref(&c, IN(a, b), out, err, sizeof err) != 0);   /* ref checks too */
		CHECK_HAS(err, "'b'");
	}
	{       /* nc_matmul with K = 200 */
		const AxOp *op = INST("nc_matmul");
		AxConc c = { 0 };
		SET(&c, 0, 2, 200, 3);
		SET(&c, 1, 2, 200, 4);
		c.engine = engine("tensor");
		err[0] = 0;
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "K <= 128");
		CHECK_HAS(err, "200");
		/* and M = 129, N = 513 each name their constraint */
		SET(&c, 0, 2, 8, 129);
		SET(&c, 1, 2, 8, 4);
		err[0] = 0;
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "M <= 128");
		CHECK_HAS(err, "129");
		SET(&c, 0, 2, 8, 3);
		SET(&c, 1, 2, 8, 513);
		err[0] = 0;
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "N <= 512");
		CHECK_HAS(err, "513");
		/* mismatched K names both operands */
		SET(&c, 0, 2, 8, 3);
		SET(&c, 1, 2, 9, 4);
		err[0] = 0;
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "'moving'");
		CHECK_HAS(err, "'stationary'");
	}
	{       /* [2,3] + [4] does not broadcast */
		const AxOp *op = OP("add");
		AxConc c = { 0 };
		SET(&c, 0, 2, 2, 3);
		SET(&c, 1, 1, 4);
		infer(op, &c);
		err[0] = 0;
		CHECK(op->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "'a'");
		CHECK_HAS(err, "'b'");
		CHECK_HAS(err, "broadcast");
		/* [2,3] + [2,1] does */
		SET(&c, 1, 2, 2, 1);
		infer(op, &c);
		err[0] = 0;
		CHECK_MSG(op->check(&c, &os, err, sizeof err) == 0, "add [2,3]+[2,1]: %s", err);
	}
	{       /* squeeze of a dim that is not 1; slice out of range; split that does not divide */
		const AxOp *sq = OP("squeeze"), *sl = OP("slice"), *sp = OP("split_axis");
		AxConc c = { 0 };
		SET(&c, 0, 3, 3, 2, 4);
		c.grank[0] = c.grank[1] = 1;
		err[0] = 0;
		CHECK(sq->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "must be 1");
		c.size[attr_index(sl, "start")] = 1;
		c.size[attr_index(sl, "stop")] = 3;
		err[0] = 0;
		CHECK(sl->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "stop <= N");
		c.size[attr_index(sp, "A")] = 2;
		c.size[attr_index(sp, "B")] = 3;
		err[0] = 0;
		CHECK(sp->check(&c, &os, err, sizeof err) != 0);
		CHECK_HAS(err, "(A * B) == N");
	}
}

/* ---- symbolic instances -------------------------------------------------------- */

static Term *
access_cb(TermCtx *tc, void *env, int o, Term *const *idx, int n)
{
	const AxOp *op = env;
	return t_tensor(tc, o, op->opnd[o].name, n, idx);
}

/* the symbolic twin of a concrete instance: dim d of operand X is the integer
 * variable "X<d>", a size or float attribute the variable of its name */
static void
sym_from(TermCtx *tc, const AxOp *op, const AxConc *c, AxSym *s)
{
	static const AxSym zero;
	char name[64];
	*s = zero;
	s->access = access_cb;
	s->env = (void *)op;
	s->engine = c->engine;
	for (int g = 0; g < AX_MAXGROUP; g++)
		s->grank[g] = c->grank[g];
	for (int o = 0; o < op->nopnd; o++) {
		s->rank[o] = c->rank[o];
		for (int d = 0; d < c->rank[o]; d++) {
			snprintf(name, sizeof name, "%s%d", op->opnd[o].name, d);
			s->dim[o][d] = t_var(tc, name, TS_INT);
		}
	}
	for (int a = 0; a < op->nattr; a++) {
		s->attr[a] = c->attr[a];
		if (op->attr[a].kind == AX_ATTR_SIZE)
			s->sattr[a] = t_var(tc, op->attr[a].name, TS_INT);
		else if (op->attr[a].kind == AX_ATTR_FLOAT)
			s->sattr[a] = t_var(tc, op->attr[a].name, TS_REAL);
	}
}

static void
idx_vars(TermCtx *tc, int n, Term **idx)
{
	char name[16];
	for (int d = 0; d < n; d++) {
		snprintf(name, sizeof name, "i%d", d);
		idx[d] = t_var(tc, name, TS_INT);
	}
}

/* the element term of op on the instance c at [i0, i1, ...], printed */
static const char *
enc_str(TermCtx *tc, const AxOp *op, const AxConc *c)
{
	AxSym s;
	Term *shape[AX_MAXR], *idx[AX_MAXR];
	sym_from(tc, op, c, &s);
	int r = op->shape(tc, &s, shape);
	idx_vars(tc, r, idx);
	return t_str(tc, op->enc(tc, &s, idx));
}

/* ---- 4. encoders ------------------------------------------------------------------ */

#define CHECK_ENC(op, c, want)                                                                    \
	do {                                                                                      \
		TermCtx *tc_ = tc_new(T);                                                         \
		CHECK_STR(enc_str(tc_, op, c), want);                                             \
		tc_free(tc_);                                                                     \
	} while (0)

static void
test_encoders(void)
{
	{       /* matmul [M, K] @ [K, N] */
		const AxOp *op = OP("matmul");
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 2, 1, 1);
		infer(op, &c);
		CHECK_ENC(op, &c, "(sigma %0 0 a1 (* a[i0, %0] b[%0, i1]))");
	}
	{       /* nc_matmul reads the stationary operand transposed */
		const AxOp *op = INST("nc_matmul");
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 2, 1, 1);
		c.engine = engine("tensor");
		CHECK_ENC(op, &c, "(sigma %0 0 stationary0 (* stationary[%0, i0] moving[%0, i1]))");
	}
	{       /* cumsum along the middle axis of a rank-3 tensor */
		const AxOp *op = OP("cumsum");
		AxConc c = { 0 };
		SET(&c, 0, 3, 1, 1, 1);
		c.grank[0] = c.grank[1] = 1;
		CHECK_ENC(op, &c, "(sigma %0 0 (+ i1 1) a[i0, %0, i2])");
	}
	{       /* tensor_reduce with op = max */
		const AxOp *op = INST("tensor_reduce");
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		c.attr[attr_index(op, "op")] = item(op, "op", "max");
		c.engine = engine("vector");
		CHECK_ENC(op, &c, "(maxover %0 0 data1 data[i0, %0])");
		c.attr[attr_index(op, "op")] = item(op, "op", "add");
		CHECK_ENC(op, &c, "(sigma %0 0 data1 data[i0, %0])");
		c.attr[attr_index(op, "op")] = item(op, "op", "min");
		CHECK_ENC(op, &c, "(minover %0 0 data1 data[i0, %0])");
	}
	{       /* tensor_tensor_scan: a fold with the accumulator %1 */
		const AxOp *op = INST("tensor_tensor_scan");
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 2, 1, 1);
		SET(&c, 2, 2, 1, 1);
		c.attr[attr_index(op, "op0")] = item(op, "op0", "multiply");
		c.attr[attr_index(op, "op1")] = item(op, "op1", "add");
		c.engine = engine("vector");
		CHECK_ENC(op, &c,
		          "(fold %0 0 (+ i1 1) %1 initial[i0, 0] (+ (* data0[i0, %0] %1) data1[i0, %0]))");
		c.rank[2] = -1;   /* initial left out: the fold starts from 0.0 */
		CHECK_ENC(op, &c, "(fold %0 0 (+ i1 1) %1 0.0 (+ (* data0[i0, %0] %1) data1[i0, %0]))");
	}
	{       /* broadcast add [a0, a1] + [b0]: a dim of size 1 reads index 0 */
		const AxOp *op = OP("add");
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 1, 1);
		infer(op, &c);
		CHECK_ENC(op, &c,
		          "(+ a[(ite (= a0 1) 0 i0), (ite (= a1 1) 0 i1)] b[(ite (= b0 1) 0 i1)])");
	}
	{       /* activation func=exp; bias left out reads 0.0, scale left out 1.0 */
		const AxOp *op = INST("activation");
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 2, 1, 1);
		SET(&c, 2, 2, 1, 1);
		c.rank[1] = -1;
		c.attr[attr_index(op, "func")] = item(op, "func", "exp");
		c.engine = engine("scalar");
		CHECK_ENC(op, &c, "exp((+ (* data[i0, i1] scale[i0, 0]) 0.0))");
		c.rank[1] = 2;
		CHECK_ENC(op, &c, "exp((+ (* data[i0, i1] scale[i0, 0]) bias[i0, 0]))");
		c.rank[1] = c.rank[2] = -1;
		c.attr[attr_index(op, "func")] = item(op, "func", "silu");
		CHECK_ENC(op, &c, "silu((+ (* data[i0, i1] 1.0) 0.0))");
	}
	{       /* slice and max_pool2d: index arithmetic on size attributes */
		const AxOp *op = OP("slice");
		AxConc c = { 0 };
		SET(&c, 0, 3, 1, 1, 1);
		c.grank[0] = c.grank[1] = 1;
		CHECK_ENC(op, &c, "a[i0, (+ i1 start), i2]");
		const AxOp *mp = OP("max_pool2d");
		AxConc m = { 0 };
		SET(&m, 0, 2, 1, 1);
		infer(mp, &m);
		CHECK_ENC(mp, &m,
		          "(maxover %0 0 kh (maxover %1 0 kw a[(+ (* i0 sh) %0), (+ (* i1 sw) %1)]))");
	}
	{       /* batched matmul: the batch index is read through the broadcast ite */
		const AxOp *op = OP("matmul");
		AxConc c = { 0 };
		SET(&c, 0, 3, 1, 1, 1);
		SET(&c, 1, 3, 1, 1, 1);
		infer(op, &c);
		CHECK_ENC(op, &c,
		          "(sigma %0 0 a2 (* a[(ite (= a0 1) 0 i0), i1, %0] b[(ite (= b0 1) 0 i0), %0, i2]))");
	}
	{       /* layout ops: concatenate, split_axis, merge_axes, swapaxes, squeeze, expand_dims */
		AxConc c = { 0 };
		SET(&c, 0, 3, 1, 1, 1);
		SET(&c, 1, 3, 1, 1, 1);
		c.grank[0] = c.grank[1] = 1;
		CHECK_ENC(OP("concatenate"), &c, "(ite (< i1 a1) a[i0, i1, i2] b[i0, (- i1 a1), i2])");
		c.nopnd = 1;
		CHECK_ENC(OP("split_axis"), &c, "a[i0, (+ (* i1 B) i2), i3]");
		CHECK_ENC(OP("squeeze"), &c, "a[i0, 0, i1]");
		AxConc m = { 0 };
		SET(&m, 0, 4, 1, 1, 1, 1);
		m.grank[0] = m.grank[1] = 1;
		CHECK_ENC(OP("merge_axes"), &m, "a[i0, (/ i1 a2), (mod i1 a2), i2]");
		m.grank[0] = 0;
		m.grank[1] = 1;
		m.grank[2] = 1;
		CHECK_ENC(OP("swapaxes"), &m, "a[i2, i1, i0, i3]");
		AxConc e = { 0 };
		SET(&e, 0, 2, 1, 1);
		e.grank[0] = e.grank[1] = 1;
		CHECK_ENC(OP("expand_dims"), &e, "a[i0, i2]");
	}
	{       /* mean divides the sum by N as a real; iota is integer arithmetic made real */
		AxConc c = { 0 };
		SET(&c, 0, 3, 1, 1, 1);
		c.grank[0] = c.grank[1] = 1;
		CHECK_ENC(OP("mean"), &c, "(/ (sigma %0 0 a1 a[i0, %0, i2]) (real a1))");
		AxConc io = { 0 };
		io.engine = engine("gpsimd");
		CHECK_ENC(INST("iota"), &io, "(real (+ (* i0 pstep) (* i1 fstep)))");
	}
	{       /* full and memset: the float attribute itself */
		const AxOp *op = OP("full");
		AxConc c = { 0 };
		CHECK_ENC(op, &c, "value");
		const AxOp *ms = INST("memset");
		AxConc m = { 0 };
		m.engine = engine("vector");
		CHECK_ENC(ms, &m, "value");
	}
}

/* ---- 5. check() and pre() agree ------------------------------------------------- */

static void
describe(char *buf, size_t n, const AxOp *op, const AxConc *c)
{
	size_t k = (size_t)snprintf(buf, n, "%s", op->name);
	for (int o = 0; o < op->nopnd && k < n; o++) {
		char sh[96];
		if (c->rank[o] < 0)
			snprintf(sh, sizeof sh, "(left out)");
		else
			shape_str(sh, sizeof sh, c->rank[o], c->dim[o]);
		k += (size_t)snprintf(buf + k, n - k, " %s%s", op->opnd[o].name, sh);
	}
	for (int a = 0; a < op->nattr && k < n; a++)
		if (op->attr[a].kind == AX_ATTR_SIZE)
			k += (size_t)snprintf(buf + k, n - k, " %s=%lld", op->attr[a].name, (long long)c->size[a]);
	for (int g = 0; g < op->ngroups && k < n; g++)
		k += (size_t)snprintf(buf + k, n - k, " grank[%d]=%d", g, c->grank[g]);
	if (op->is_inst && k < n)
		snprintf(buf + k, n - k, " engine=%s", T->engines[c->engine].name);
}

static int nvalid, ninvalid;

static void
agree(Smt *smt, const AxOp *op, const AxConc *c)
{
	AxShape os;
	char err[256] = "", why[1024] = "", desc[512];
	int ok = op->check(c, &os, err, sizeof err) == 0;
	describe(desc, sizeof desc, op, c);
	TermCtx *tc = tc_new(T);
	AxSym s;
	sym_from(tc, op, c, &s);
	Term *cs[64];
	int n = 0;
	cs[n++] = op->pre(tc, &s);
	for (int o = 0; o < op->nopnd; o++)
		for (int d = 0; d < c->rank[o]; d++)
			cs[n++] = t_bin(tc, TK_EQ, s.dim[o][d], t_int(tc, c->dim[o][d]));
	for (int a = 0; a < op->nattr; a++)
		if (op->attr[a].kind == AX_ATTR_SIZE)
			cs[n++] = t_bin(tc, TK_EQ, s.sattr[a], t_int(tc, c->size[a]));
	Term *all = t_and_all(tc, n, cs);
	int sat = smt_satisfiable(smt, all, why, sizeof why);
	CHECK_MSG(ok == sat, "%s: check() %s%s but pre() is %s", desc, ok ? "accepts" : "rejects: ", ok ? "" : err,
	          why);
	if (ok)
		nvalid++;
	else
		ninvalid++;
	if (ok && sat) {   /* shape() at these sizes is the shape check() computed */
		Term *shape[AX_MAXR];
		int r = op->shape(tc, &s, shape);
		CHECK_MSG(r == os.rank, "%s: shape() has rank %d, check() %d", desc, r, os.rank);
		for (int d = 0; d < r && d < os.rank; d++) {
			Term *goal = t_bin(tc, TK_EQ, shape[d], t_int(tc, os.d[d]));
			int pr = smt_prove(smt, all, goal, why, sizeof why);
			CHECK_MSG(pr, "%s: shape() dim %d = %s is not %lld: %s", desc, d, t_str(tc, shape[d]),
			          (long long)os.d[d], why);
		}
	}
	tc_free(tc);
}

/* a dim: usually in [lo, hi], now and then 0 (which no check() accepts) */
static int64_t
rdim(int64_t lo, int64_t hi)
{
	return rint_in(0, 24) == 0 ? 0 : rint_in(lo, hi);
}

static void
test_consistency(void)
{
	Smt *smt = smt_new(T);
	enum { TRIALS = 60 };
	const AxOp *mm = OP("matmul"), *ncm = INST("nc_matmul"), *sl = OP("slice"), *sp = OP("split_axis");
	const AxOp *mp = OP("max_pool2d"), *add = OP("add"), *nct = INST("nc_transpose"), *cat = OP("concatenate");
	int before = nfail;
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		/* matmul [..., M, K] @ [..., K', N] with batch broadcasting */
		int ra = (int)rint_in(0, 2), rb = (int)rint_in(0, 2);
		int64_t M = rdim(1, 4), K = rdim(1, 4), N = rdim(1, 4);
		int64_t K2 = rint_in(0, 3) ? K : rdim(1, 4);
		for (int d = 0; d < ra; d++)
			c.dim[0][d] = rdim(1, 3);
		for (int d = 0; d < rb; d++)
			c.dim[1][d] = rdim(1, 3);
		c.rank[0] = ra + 2;
		c.rank[1] = rb + 2;
		c.dim[0][ra] = M;
		c.dim[0][ra + 1] = K;
		c.dim[1][rb] = K2;
		c.dim[1][rb + 1] = N;
		infer(mm, &c);
		agree(smt, mm, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		int64_t K = rdim(1, 140);
		SET(&c, 0, 2, K, rdim(1, 140));
		SET(&c, 1, 2, rint_in(0, 4) ? K : rdim(1, 140), rdim(1, 530));
		c.engine = engine("tensor");
		agree(smt, ncm, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		int L = (int)rint_in(0, 1), R = (int)rint_in(0, 1);
		c.nopnd = 1;
		c.rank[0] = L + 1 + R;
		for (int d = 0; d < c.rank[0]; d++)
			c.dim[0][d] = rdim(1, 3);
		c.dim[0][L] = rdim(1, 8);
		c.grank[0] = L;
		c.grank[1] = R;
		c.size[attr_index(sl, "start")] = rint_in(-1, 8);
		c.size[attr_index(sl, "stop")] = rint_in(-1, 9);
		agree(smt, sl, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		int L = (int)rint_in(0, 1), R = (int)rint_in(0, 1);
		c.nopnd = 1;
		c.rank[0] = L + 1 + R;
		for (int d = 0; d < c.rank[0]; d++)
			c.dim[0][d] = rdim(1, 3);
		c.dim[0][L] = rdim(1, 12);
		c.grank[0] = L;
		c.grank[1] = R;
		c.size[attr_index(sp, "A")] = rint_in(-1, 7);
		c.size[attr_index(sp, "B")] = rint_in(-1, 7);
		agree(smt, sp, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		int B = (int)rint_in(0, 2);
		c.nopnd = 1;
		c.rank[0] = B + 2;
		for (int d = 0; d < B; d++)
			c.dim[0][d] = rdim(1, 3);
		c.dim[0][B] = rdim(1, 7);
		c.dim[0][B + 1] = rdim(1, 7);
		c.grank[0] = B;
		c.size[attr_index(mp, "kh")] = rint_in(0, 8);
		c.size[attr_index(mp, "kw")] = rint_in(0, 8);
		c.size[attr_index(mp, "sh")] = rint_in(-1, 3);
		c.size[attr_index(mp, "sw")] = rint_in(-1, 3);
		agree(smt, mp, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		c.nopnd = 2;
		c.rank[0] = (int)rint_in(0, 3);
		c.rank[1] = (int)rint_in(0, 3);
		for (int o = 0; o < 2; o++)
			for (int d = 0; d < c.rank[o]; d++)
				c.dim[o][d] = rdim(1, 3);
		infer(add, &c);
		agree(smt, add, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		int vec = (int)rint_in(0, 1);
		int64_t hi = vec ? 40 : 140;
		SET(&c, 0, 2, rdim(1, hi), rdim(1, hi));
		c.engine = engine(vec ? "vector" : "tensor");
		agree(smt, nct, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		int L = (int)rint_in(0, 1), R = (int)rint_in(0, 1);
		c.nopnd = 2;
		c.rank[0] = c.rank[1] = L + 1 + R;
		for (int d = 0; d < c.rank[0]; d++) {
			c.dim[0][d] = rdim(1, 3);
			c.dim[1][d] = rint_in(0, 3) ? c.dim[0][d] : rdim(1, 3);
		}
		c.dim[0][L] = rdim(1, 4);
		c.dim[1][L] = rdim(1, 4);
		c.grank[0] = L;
		c.grank[1] = R;
		agree(smt, cat, &c);
	}
	/* beyond the required list: more ops, optional operands, size-only instructions */
	const AxOp *ss = OP("strided_slice"), *ba = OP("broadcast_axis"), *sq = OP("squeeze");
	const AxOp *sw = OP("swapaxes"), *ma = OP("merge_axes"), *wh = OP("where"), *ed = OP("expand_dims");
	const AxOp *act = INST("activation"), *tts = INST("tensor_tensor_scan"), *io = INST("iota");
	for (int t = 0; t < TRIALS / 2; t++) {
		AxConc c = { 0 };
		int L = (int)rint_in(0, 1), R = (int)rint_in(0, 1);
		c.nopnd = 1;
		c.rank[0] = L + 1 + R;
		for (int d = 0; d < c.rank[0]; d++)
			c.dim[0][d] = rdim(1, 3);
		c.dim[0][L] = rdim(1, 9);
		c.grank[0] = L;
		c.grank[1] = R;
		c.size[attr_index(ss, "start")] = rint_in(-1, 8);
		c.size[attr_index(ss, "stop")] = rint_in(-1, 10);
		c.size[attr_index(ss, "step")] = rint_in(-1, 4);
		agree(smt, ss, &c);
		c.dim[0][L] = rint_in(0, 3) ? 1 : rdim(1, 3);
		c.size[attr_index(ba, "N")] = rint_in(-1, 4);
		agree(smt, ba, &c);
		agree(smt, sq, &c);
		c.rank[0] = L + R;   /* expand_dims: a[...L, ...R] */
		agree(smt, ed, &c);
	}
	for (int t = 0; t < TRIALS / 2; t++) {
		AxConc c = { 0 };
		c.nopnd = 1;
		c.grank[0] = (int)rint_in(0, 1);
		c.grank[1] = (int)rint_in(0, 1);
		c.grank[2] = (int)rint_in(0, 1);
		c.rank[0] = c.grank[0] + c.grank[1] + c.grank[2] + 2;
		for (int d = 0; d < c.rank[0]; d++)
			c.dim[0][d] = rdim(1, 4);
		agree(smt, sw, &c);
		c.grank[2] = 0;   /* merge_axes: a[...L, A, B, ...R] */
		c.rank[0] = c.grank[0] + c.grank[1] + 2;
		agree(smt, ma, &c);
	}
	for (int t = 0; t < TRIALS / 2; t++) {
		AxConc c = { 0 };
		c.nopnd = 3;
		for (int o = 0; o < 3; o++) {
			c.rank[o] = (int)rint_in(0, 2);
			for (int d = 0; d < c.rank[o]; d++)
				c.dim[o][d] = rdim(1, 2);
		}
		infer(wh, &c);
		agree(smt, wh, &c);
	}
	for (int t = 0; t < TRIALS; t++) {
		AxConc c = { 0 };
		int64_t P = rdim(1, 140), F = rdim(1, 8);
		SET(&c, 0, 2, P, F);
		SET(&c, 1, 2, rint_in(0, 3) ? P : rdim(1, 140), rint_in(0, 3) ? 1 : rdim(1, 3));
		SET(&c, 2, 2, rint_in(0, 3) ? P : rdim(1, 140), rint_in(0, 3) ? 1 : rdim(1, 3));
		if (rint_in(0, 1))
			c.rank[1] = -1;
		if (rint_in(0, 1))
			c.rank[2] = -1;
		c.attr[0] = (int)rint_in(0, T->enums[act->attr[0].enum_id].nitems - 1);
		c.engine = engine("scalar");
		agree(smt, act, &c);
		c.dim[1][1] = rint_in(0, 3) ? F : rdim(1, 8);   /* tensor_tensor_scan: data1 [P, F] */
		c.rank[1] = 2;
		c.attr[0] = (int)rint_in(0, 5);
		c.attr[1] = (int)rint_in(0, 5);
		c.engine = engine("vector");
		agree(smt, tts, &c);
	}
	for (int t = 0; t < TRIALS / 2; t++) {
		AxConc c = { 0 };
		c.size[attr_index(io, "P")] = rint_in(-1, 140);
		c.size[attr_index(io, "F")] = rint_in(-1, 4);
		c.size[attr_index(io, "pstep")] = rint_in(-2, 2);
		c.size[attr_index(io, "fstep")] = rint_in(-2, 2);
		c.engine = engine("gpsimd");
		agree(smt, io, &c);
	}
	/* the random instances must have exercised both answers */
	CHECK_MSG(nvalid > 100 && ninvalid > 100, "%d valid and %d invalid instances", nvalid, ninvalid);
	if (nfail > before)
		printf("(check/pre consistency: %d failures above)\n", nfail - before);
	smt_free(smt);
}

/* ---- 6. smt_prove on preconditions ------------------------------------------------ */

static void
test_prove(void)
{
	Smt *smt = smt_new(T);
	char why[1024];
	{       /* pre(matmul) => a.dims[1] == b.dims[0] */
		const AxOp *op = OP("matmul");
		TermCtx *tc = tc_new(T);
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 2, 1, 1);
		infer(op, &c);
		AxSym s;
		sym_from(tc, op, &c, &s);
		Term *goal = t_bin(tc, TK_EQ, s.dim[0][1], s.dim[1][0]);
		int r = smt_prove(smt, op->pre(tc, &s), goal, why, sizeof why);
		CHECK_MSG(r == 1, "pre(matmul) => a1 == b0: %s", why);
		CHECK_STR(why, "proved");
		/* but not a0 == b1 */
		goal = t_bin(tc, TK_EQ, s.dim[0][0], s.dim[1][1]);
		r = smt_prove(smt, op->pre(tc, &s), goal, why, sizeof why);
		CHECK_MSG(r == 0, "pre(matmul) => a0 == b1 was proved: %s", why);
		CHECK_HAS(why, "counterexample");
		/* asked again (the context remembers answers): the same answers, the same reasons, also
		 * for the same terms made in another TermCtx; a query that differs only in its
		 * hypothesis is not taken for the remembered one */
		char again[1024];
		snprintf(again, sizeof again, "%s", why);
		TermCtx *tc2 = tc_new(T);
		AxSym s2;
		sym_from(tc2, op, &c, &s2);
		r = smt_prove(smt, op->pre(tc2, &s2), t_bin(tc2, TK_EQ, s2.dim[0][0], s2.dim[1][1]), why, sizeof why);
		CHECK_MSG(r == 0 && strcmp(why, again) == 0, "asked again: %d, %s", r, why);
		r = smt_prove(smt, op->pre(tc2, &s2), t_bin(tc2, TK_EQ, s2.dim[0][1], s2.dim[1][0]), why, sizeof why);
		CHECK_MSG(r == 1, "pre(matmul) => a1 == b0 asked again: %s", why);
		CHECK_STR(why, "proved");
		r = smt_prove(smt, NULL, t_bin(tc2, TK_EQ, s2.dim[0][1], s2.dim[1][0]), why, sizeof why);
		CHECK_MSG(r == 0, "a1 == b0 with no hypothesis was proved: %s", why);
		r = smt_satisfiable(smt, t_bin(tc2, TK_EQ, s2.dim[0][1], s2.dim[1][0]), why, sizeof why);
		CHECK_MSG(r == 1, "a1 == b0 is satisfiable: %s", why);
		r = smt_satisfiable(smt, t_bin(tc2, TK_EQ, s2.dim[0][1], s2.dim[1][0]), why, sizeof why);
		CHECK_MSG(r == 1 && strcmp(why, "sat") == 0, "satisfiable asked again: %s", why);
		tc_free(tc2);
		tc_free(tc);
	}
	{       /* pre(add) does not imply equal last dims: one may be 1 */
		const AxOp *op = OP("add");
		TermCtx *tc = tc_new(T);
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 2, 1, 1);
		infer(op, &c);
		AxSym s;
		sym_from(tc, op, &c, &s);
		Term *goal = t_bin(tc, TK_EQ, s.dim[0][1], s.dim[1][1]);
		int r = smt_prove(smt, op->pre(tc, &s), goal, why, sizeof why);
		CHECK_MSG(r == 0, "pre(add) => a1 == b1 was proved: %s", why);
		CHECK_HAS(why, "counterexample");
		/* it does imply: equal, or one of them is 1 */
		Term *one = t_int(tc, 1);
		goal = t_bin(tc, TK_OR, goal,
		             t_bin(tc, TK_OR, t_bin(tc, TK_EQ, s.dim[0][1], one), t_bin(tc, TK_EQ, s.dim[1][1], one)));
		r = smt_prove(smt, op->pre(tc, &s), goal, why, sizeof why);
		CHECK_MSG(r == 1, "pre(add) => a1 == b1 || a1 == 1 || b1 == 1: %s", why);
		tc_free(tc);
	}
	{       /* pre(nc_matmul) => K <= 128 */
		const AxOp *op = INST("nc_matmul");
		TermCtx *tc = tc_new(T);
		AxConc c = { 0 };
		SET(&c, 0, 2, 1, 1);
		SET(&c, 1, 2, 1, 1);
		c.engine = engine("tensor");
		AxSym s;
		sym_from(tc, op, &c, &s);
		Term *goal = t_bin(tc, TK_LE, s.dim[1][0], t_int(tc, 128));
		int r = smt_prove(smt, op->pre(tc, &s), goal, why, sizeof why);
		CHECK_MSG(r == 1, "pre(nc_matmul) => moving0 <= 128: %s", why);
		tc_free(tc);
	}
	smt_free(smt);
}

int
main(void)
{
	T = ax_find_target("trainium");
	if (!T) {
		report_at(0, __FILE__, __LINE__, "no target 'trainium' in this build");
		finish();
		return 1;
	}
	test_elementwise_broadcast();
	test_matmul();
	test_random_broadcast();
	test_random_matmul();
	test_reductions();
	test_swapaxes();
	test_slicing();
	test_reshapes();
	test_max_pool2d();
	test_where();
	test_unary();
	test_full();
	test_nc_matmul();
	test_tensor_tensor_scan();
	test_activation();
	test_reduce_insts();
	test_constants();
	test_nc_transpose();
	test_enum_items();
	test_movers();
	test_costs();
	test_diagnostics();
	test_encoders();
	test_consistency();
	test_prove();
	finish();
	return nfail ? 1 : 0;
}
