/*
 * layout.c — rank-polymorphic operand patterns.
 *
 * A pattern such as [..., M, K] or [...L, N, ...R] is a list of entries: a
 * named dim, or an ellipsis group whose rank is fixed only when the op is
 * instantiated.  Generated code describes each op's patterns in an AxLayout
 * and calls these helpers for everything about positions, group dims and
 * NumPy broadcasting, so that logic exists once.
 *
 * Broadcasting (AxLayout.broadcast): every pattern starts with the one group;
 * an operand's group may be shorter than the result's (aligned right, as
 * NumPy does) and a group dim of size 1 stretches to the result's size.
 */
#include <stdarg.h>
#include <math.h>
#include "axon.h"

int
ax_fail(char *err, size_t n, const char *fmt, ...)
{
	if (err && n) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return 1;
}

static int
nfixed_of(const AxLayout *L, int o)
{
	return o < 0 ? 0 : L->opnd[o].nfixed;
}

int
ax_grank(const AxLayout *L, const int *rank, const int *grank, int o, int g)
{
	if (L->broadcast && o >= 0)
		return rank[o] - nfixed_of(L, o);
	return grank[g];
}

int
ax_pos(const AxLayout *L, const int *rank, const int *grank, int o, int k)
{
	const signed char *pat = o < 0 ? L->out_pat : L->opnd[o].pat;
	int pos = 0;
	for (int i = 0; i < k; i++)
		pos += pat[i] < 0 ? 1 : ax_grank(L, rank, grank, o, pat[i]);
	return pos;
}

void
ax_infer_granks(const AxLayout *L, const int *rank, int *grank)
{
	for (int g = 0; g < L->ngroups; g++)
		grank[g] = -1;
	for (int o = 0; o < L->nopnd; o++) {
		const AxOperand *od = &L->opnd[o];
		int ng = 0, gid = -1;
		for (int k = 0; k < od->ndims; k++)
			if (od->pat[k] >= 0) {
				ng++;
				gid = od->pat[k];
			}
		if (ng != 1 || rank[o] < 0)
			continue;
		int r = rank[o] - od->nfixed;
		if (L->broadcast)
			grank[gid] = grank[gid] > r ? grank[gid] : r;
		else if (grank[gid] < 0)
			grank[gid] = r;
	}
}

static int
out_group_base(const AxLayout *L, const int *rank, const int *grank, int g, int *found)
{
	*found = 0;
	for (int k = 0; k < L->nout; k++)
		if (L->out_pat[k] == g) {
			*found = 1;
			return ax_pos(L, rank, grank, -1, k);
		}
	return 0;
}

int
ax_layout_check(const AxLayout *L, const AxConc *c, char *err, size_t n)
{
	if (c->nopnd != L->nopnd)
		return ax_fail(err, n, "takes %d operands, got %d", L->nopnd, c->nopnd);
	for (int g = 0; g < L->ngroups; g++)
		if (c->grank[g] < 0 || c->grank[g] > AX_MAXR)
			return ax_fail(err, n, "rank of group %d is not set", g);
	int r = ax_pos(L, c->rank, c->grank, -1, L->nout);
	if (r > AX_MAXR)
		return ax_fail(err, n, "the result would have rank %d (at most %d)", r, AX_MAXR);
	for (int o = 0; o < L->nopnd; o++) {
		const AxOperand *od = &L->opnd[o];
		if (c->rank[o] < 0) {
			if (od->optional)
				continue;
			return ax_fail(err, n, "operand '%s' is missing", od->name);
		}
		int want = od->nfixed;
		for (int k = 0; k < od->ndims; k++)
			if (od->pat[k] >= 0)
				want += L->broadcast ? 0 : c->grank[od->pat[k]];
		if (L->broadcast) {
			if (c->rank[o] < want || c->rank[o] - want > c->grank[0])
				return ax_fail(err, n, "operand '%s' %s has rank %d; the result's batch rank is %d",
				               od->name, od->pattern, c->rank[o], c->grank[0]);
		} else if (c->rank[o] != want)
			return ax_fail(err, n, "operand '%s' %s needs rank %d, has rank %d", od->name, od->pattern,
			               want, c->rank[o]);
		if (c->rank[o] > AX_MAXR)
			return ax_fail(err, n, "operand '%s' has rank %d (at most %d)", od->name, c->rank[o], AX_MAXR);
		for (int d = 0; d < c->rank[o]; d++)
			if (c->dim[o][d] < 1)
				return ax_fail(err, n, "operand '%s' dim %d is %lld (sizes are at least 1)", od->name, d,
				               (long long)c->dim[o][d]);
	}
	/* group dims agree (or broadcast) across operands */
	for (int g = 0; g < L->ngroups; g++) {
		for (int d = 0; d < c->grank[g]; d++) {
			int64_t seen = -1;
			int seen_o = -1;
			for (int o = 0; o < L->nopnd; o++) {
				const AxOperand *od = &L->opnd[o];
				if (c->rank[o] < 0)
					continue;
				for (int k = 0; k < od->ndims; k++) {
					if (od->pat[k] != g)
						continue;
					int r = ax_grank(L, c->rank, c->grank, o, g);
					int dd = d - (c->grank[g] - r);
					if (dd < 0)
						continue;
					int64_t v = c->dim[o][ax_pos(L, c->rank, c->grank, o, k) + dd];
					if (L->broadcast && v == 1)
						continue;
					if (seen >= 0 && v != seen)
						return ax_fail(err, n,
						               "operand '%s' dim %d is %lld but operand '%s' has %lld there%s",
						               od->name, ax_pos(L, c->rank, c->grank, o, k) + dd, (long long)v,
						               L->opnd[seen_o].name, (long long)seen,
						               L->broadcast ? " (shapes do not broadcast)" : "");
					seen = v;
					seen_o = o;
				}
			}
		}
	}
	return 0;
}

int
ax_layout_out(const AxLayout *L, const AxConc *c, AxShape *out)
{
	int r = ax_pos(L, c->rank, c->grank, -1, L->nout);
	out->rank = r;
	if (r > AX_MAXR)
		return r;
	for (int k = 0; k < L->nout; k++) {
		int g = L->out_pat[k];
		if (g < 0)
			continue;
		int base = ax_pos(L, c->rank, c->grank, -1, k);
		for (int d = 0; d < c->grank[g]; d++) {
			int64_t v = 1;
			for (int o = 0; o < L->nopnd; o++) {
				const AxOperand *od = &L->opnd[o];
				if (c->rank[o] < 0)
					continue;
				for (int kk = 0; kk < od->ndims; kk++) {
					if (od->pat[kk] != g)
						continue;
					int rr = ax_grank(L, c->rank, c->grank, o, g);
					int dd = d - (c->grank[g] - rr);
					if (dd < 0)
						continue;
					int64_t x = c->dim[o][ax_pos(L, c->rank, c->grank, o, kk) + dd];
					if (x > v)
						v = x;
				}
			}
			out->d[base + d] = v;
		}
	}
	return r;
}

int
ax_layout_pre(TermCtx *tc, const AxLayout *L, const AxSym *s, Term **cs, int n)
{
	Term *one = t_int(tc, 1);
	for (int o = 0; o < L->nopnd; o++)
		for (int d = 0; d < s->rank[o]; d++)
			cs[n++] = t_bin(tc, TK_LE, one, s->dim[o][d]);
	Term *out[AX_MAXR];
	ax_layout_shape(tc, L, s, out);
	for (int g = 0; g < L->ngroups; g++) {
		int found;
		int base = out_group_base(L, s->rank, s->grank, g, &found);
		for (int d = 0; d < s->grank[g]; d++) {
			Term *first = NULL;
			for (int o = 0; o < L->nopnd; o++) {
				const AxOperand *od = &L->opnd[o];
				if (s->rank[o] < 0)
					continue;
				for (int k = 0; k < od->ndims; k++) {
					if (od->pat[k] != g)
						continue;
					int r = ax_grank(L, s->rank, s->grank, o, g);
					int dd = d - (s->grank[g] - r);
					if (dd < 0)
						continue;
					Term *v = s->dim[o][ax_pos(L, s->rank, s->grank, o, k) + dd];
					if (L->broadcast && found)
						cs[n++] = t_bin(tc, TK_OR, t_bin(tc, TK_EQ, v, one),
						                t_bin(tc, TK_EQ, v, out[base + d]));
					else if (first)
						cs[n++] = t_bin(tc, TK_EQ, v, first);
					else
						first = v;
				}
			}
		}
	}
	return n;
}

int
ax_layout_shape(TermCtx *tc, const AxLayout *L, const AxSym *s, Term **out)
{
	int r = ax_pos(L, s->rank, s->grank, -1, L->nout);
	if (r > AX_MAXR)
		return r;
	for (int k = 0; k < L->nout; k++) {
		int g = L->out_pat[k];
		if (g < 0)
			continue;
		int base = ax_pos(L, s->rank, s->grank, -1, k);
		for (int d = 0; d < s->grank[g]; d++) {
			Term *v = NULL;
			for (int o = 0; o < L->nopnd; o++) {
				const AxOperand *od = &L->opnd[o];
				if (s->rank[o] < 0)
					continue;
				for (int kk = 0; kk < od->ndims; kk++) {
					if (od->pat[kk] != g)
						continue;
					int rr = ax_grank(L, s->rank, s->grank, o, g);
					int dd = d - (s->grank[g] - rr);
					if (dd < 0)
						continue;
					Term *x = s->dim[o][ax_pos(L, s->rank, s->grank, o, kk) + dd];
					v = !v ? x : L->broadcast ? t_bin(tc, TK_MAX, v, x) : v;
				}
			}
			out[base + d] = v ? v : t_int(tc, 1);
		}
	}
	return r;
}

Term *
ax_sym_access(TermCtx *tc, const AxLayout *L, const AxSym *s, int o, Term *const *idx, Term *const *fixed)
{
	const AxOperand *od = &L->opnd[o];
	if (s->rank[o] < 0)
		return t_num(tc, od->defnum, od->defden ? od->defden : 1, TS_REAL);
	Term *whole[AX_MAXR];
	int n = 0, nf = 0;
	for (int k = 0; k < od->ndims; k++) {
		int g = od->pat[k];
		if (g < 0) {
			whole[n++] = fixed[nf++];
			continue;
		}
		int found;
		int base = out_group_base(L, s->rank, s->grank, g, &found);
		int r = ax_grank(L, s->rank, s->grank, o, g);
		for (int d = 0; d < r; d++) {
			Term *ix = idx[base + (s->grank[g] - r) + d];
			if (L->broadcast)
				ix = t_ite(tc, t_bin(tc, TK_EQ, s->dim[o][n], t_int(tc, 1)), t_int(tc, 0), ix);
			whole[n++] = ix;
		}
	}
	return s->access(tc, s->env, o, whole, n);
}

void
ax_read_plan(const AxLayout *L, const AxConc *c, AxRead *plan)
{
	for (int o = 0; o < L->nopnd; o++) {
		const AxOperand *od = &L->opnd[o];
		AxRead *r = &plan[o];
		r->def = od->defval;
		r->n = c->rank[o] < 0 ? -1 : 0;
		if (r->n < 0)
			continue;
		int nf = 0;
		for (int k = 0; k < od->ndims; k++) {
			int g = od->pat[k];
			if (g < 0) {
				r->src[r->n++] = (signed char)(-1 - nf++);
				continue;
			}
			int found;
			int base = out_group_base(L, c->rank, c->grank, g, &found);
			int gr = ax_grank(L, c->rank, c->grank, o, g);
			for (int d = 0; d < gr; d++) {
				int n = r->n++;
				r->src[n] = L->broadcast && c->dim[o][n] == 1 ? AX_READ_ZERO
				            : (signed char)(base + (c->grank[g] - gr) + d);
			}
		}
		int64_t stride = 1;
		for (int k = c->rank[o] - 1; k >= 0; k--) {
			r->dim[k] = c->dim[o][k];
			r->stride[k] = stride;
			stride *= c->dim[o][k];
		}
	}
}

void
ax_unflatten(const AxShape *s, int64_t flat, int64_t *idx)
{
	for (int d = s->rank - 1; d >= 0; d--) {
		idx[d] = flat % s->d[d];
		flat /= s->d[d];
	}
}


int64_t
ax_group_numel(const AxLayout *L, const AxConc *c, int g)
{
	for (int o = 0; o < L->nopnd; o++) {
		const AxOperand *od = &L->opnd[o];
		if (c->rank[o] < 0 || !(od->groups & (1u << g)))
			continue;
		for (int k = 0; k < od->ndims; k++)
			if (od->pat[k] == g) {
				int64_t p = 1;
				int base = ax_pos(L, c->rank, c->grank, o, k);
				for (int d = 0; d < ax_grank(L, c->rank, c->grank, o, g); d++)
					p *= c->dim[o][base + d];
				return p;
			}
	}
	return 1;
}
