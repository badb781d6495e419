/*
 * widen.c — block buffers filled from side by side slices made one (one pass
 * over a candidate's statements, nest.h).
 *
 * Where an axis has a tail tile, a block's loads of a tensor come in two: a
 * buffer filled with the block's full tiles (W[rows, 0:1640], four tiles of
 * 410) and one with the tail (W[rows, 1640:2049]).  Each transfer holds its
 * DMA queue a fixed time beyond its bytes (machine.ax, `gap`), so two
 * transfers of the same rows cost more than one of both.  This pass finds a
 * fill (a block buffer, and the loops filling it with copies of an off-chip
 * slice, the buffer's only writers: hoist.c's fills) followed in the same
 * loop body by another of the same loops and the same slices but for the
 * last dim, whose range meets or overlaps the first's (RoPE at N = 1025 reads
 * X[:, 0:513] and X[:, 512:1025]): the first buffer and its copies widen to
 * the range of both, the second fill goes, and the readers of each read the
 * first buffer from their own columns on.  Outside loops a buffer is
 * declared apart from its one copy; such fills count too (of a tensor the
 * kernel does not write), the first's copy made before the second's.  The
 * copies are instructions that copy (lower_is_copy), of a tensor the loop
 * nest does not write.  Where the range of both is wider than the first's,
 * only if that holds no reader back: nothing reads the first buffer before
 * the second fill, and its first reader after it reads the second buffer too,
 * or is in the same loop body as the second's first reader (GLU's halves of
 * X, read by one multiply; not a matmul's full tiles, computed on before the
 * tail's arrive).  If the tiles do not fit on chip then, nothing changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "affine.h"
#include "nest.h"

enum { MAXF = 256 };

typedef struct Fill {
	int p, q;                /* the buffer's statement, the last of its fill */
	int inst;                /* its one copy: the statement (after q where the fill is apart) */
	int apart;               /* outside loops, the copy apart from the buffer: p == q < inst */
} Fill;

/* Is statement i part of fill f? */
static int
in_fill(const Fill *f, int i)
{
	return (i >= f->p && i <= f->q) || i == f->inst;
}

/* Does instruction inst copy (lower_is_copy, cached in copy[], -1: not asked yet)? */
static int
copies(const Nest *ns, int *copy, int inst)
{
	if (copy[inst] < 0)
		copy[inst] = lower_is_copy(ns->g->t, ns->g->tc, inst);
	return copy[inst];
}

/* The fill of the block buffer declared at p (nest_fill) whose one instruction copies: 1 and
 * *f, else 0. */
static int
fill_at(const Nest *ns, const int *endof, int p, int a, int e, const int *wrote, int *copy, Fill *f)
{
	int q = nest_fill(ns, endof, p, a, e, wrote), inst = -1;
	for (int i = p + 1; q >= 0 && i <= q; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind != NS_INST)
			continue;
		if (inst >= 0)
			return 0;
		if (!copies(ns, copy, s->inst))
			return 0;
		inst = i;
	}
	if (inst < 0)
		return 0;
	*f = (Fill){ p, q, inst, 0 };
	return 1;
}

/* Per variable, the statement writing it (-1: none, -2: more than one). */
static void
writers(const Nest *ns, int *by)
{
	for (int v = 0; v < ns->nvars; v++)
		by[v] = -1;
	for (int i = 0; i < ns->n; i++) {
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, (NsStmt *)&ns->s[i], r, wr);
		for (int k = 0; k < nr; k++) {
			int v = r[k]->var;
			if (wr[k] && v >= 0 && v < ns->nvars)
				by[v] = by[v] == -1 || by[v] == i ? i : -2;
		}
	}
}

/* A buffer declared outside loops at p and written once, outside loops, by a copy of an
 * off-chip slice the nest does not write (the top-level buffers are declared before their
 * fills): 1 and *f, else 0.  by: writers(). */
static int
fill_apart(const Nest *ns, int p, const int *by, const int *wrote, int *copy, Fill *f)
{
	const NsStmt *b = &ns->s[p];
	if (b->kind != NS_BUF || b->depth != 0 || b->var < 0 || b->var >= ns->nvars)
		return 0;
	int inst = by[b->var];
	if (inst <= p)
		return 0;
	const NsStmt *s = &ns->s[inst];
	if (s->kind != NS_INST || s->depth != 0 || s->out.var != b->var || !nest_reads_offchip(ns, s, wrote))
		return 0;
	if (!copies(ns, copy, s->inst))
		return 0;
	*f = (Fill){ p, p, inst, 1 };
	return 1;
}

/* The start of a slice dim as a literal: 0 and *v, else -1. */
static int
literal(const NsDim *d, int64_t *v)
{
	Aff a;
	if (aff_parse(d->start, &a) != 0 || a.n)
		return -1;
	*v = a.c;
	return 0;
}

/* The columns of fills x and y together: where each starts (literals) and how wide, and the
 * range of both (one range: they overlap or meet). */
typedef struct Span {
	int64_t s0, w0, s1, w1, lo, hi;
} Span;

/* Do fills x and y take one range of columns between them: the same loops and copy, the same
 * slices but the last dim of the source, whose ranges (literal starts) overlap or meet, and
 * buffers alike but for that dim?  Into *sp. */
static int
joins(const Nest *ns, const Fill *x, const Fill *y, Span *sp)
{
	if (x->apart != y->apart || (!x->apart && (x->q - x->p != y->q - y->p || x->inst - x->p != y->inst - y->p ||
	                                           !nest_same_loops(ns, x->p, y->p, x->q - x->p))))
		return 0;
	const NsStmt *bx = &ns->s[x->p], *by = &ns->s[y->p], *cx = &ns->s[x->inst], *cy = &ns->s[y->inst];
	int rank = bx->shape.rank;
	if (bx->mem != by->mem || bx->onetile != by->onetile || rank < 2 || by->shape.rank != rank ||
	    cx->inst != cy->inst || cx->engine != cy->engine || cx->mem != cy->mem)
		return 0;
	for (int d = 0; d < rank - 1; d++)
		if (bx->shape.d[d] != by->shape.d[d])
			return 0;
	const NsRef *ox = &cx->out, *oy = &cy->out, *sx = &cx->opnd[0], *sy = &cy->opnd[0];
	int64_t wx = bx->shape.d[rank - 1], wy = by->shape.d[rank - 1], s0, s1;
	/* the copies write their buffer's last dim whole, from slices of one tensor alike but for
	 * their last dim */
	if (ox->nidx != rank || oy->nidx != rank || sx->var != sy->var || sx->var >= 0 || sx->nidx != sy->nidx ||
	    sx->nidx < 1 || sx->ellipsis || sy->ellipsis)
		return 0;
	for (int d = 0; d < rank - 1; d++)
		if (!nest_same_dim(&ox->idx[d], &oy->idx[d]))
			return 0;
	for (int d = 0; d < sx->nidx - 1; d++)
		if (!nest_same_dim(&sx->idx[d], &sy->idx[d]))
			return 0;
	const NsDim *lx = &sx->idx[sx->nidx - 1], *ly = &sy->idx[sy->nidx - 1];
	if (ox->idx[rank - 1].len != wx || oy->idx[rank - 1].len != wy || strcmp(ox->idx[rank - 1].start, "0") != 0 ||
	    strcmp(oy->idx[rank - 1].start, "0") != 0 || lx->len != wx || ly->len != wy || lx->fold || ly->fold ||
	    literal(lx, &s0) != 0 || literal(ly, &s1) != 0 || s1 > s0 + wx || s0 > s1 + wy)
		return 0;
	*sp = (Span){ s0, wx, s1, wy, s0 < s1 ? s0 : s1, s0 + wx > s1 + wy ? s0 + wx : s1 + wy };
	return 1;
}

/* r, a reference to buffer var `from` (of shape bs), made one to buffer `to` from column off on. */
static int
move_ref(NsRef *r, int to, const AxShape *bs, int64_t off)
{
	if (!r->nidx) {   /* the whole buffer: a slice of all of it */
		r->nidx = bs->rank;
		for (int d = 0; d < bs->rank; d++) {
			r->idx[d] = (NsDim){ .start = "0", .len = bs->d[d] };
		}
	}
	NsDim *l = &r->idx[r->nidx - 1];
	Aff a;
	if (r->nidx != bs->rank || aff_parse(l->start, &a) != 0)
		return -1;
	a.c += off;
	if (aff_print(&a, l->start, sizeof l->start) != 0)
		return -1;
	r->var = to;
	return 0;
}

/* Would the pair (x, y) made one hold back a reader of x's buffer, where the one transfer is
 * wider than x's: is one of its readers before y, or is its first reader after y in another
 * loop body than the first reader of y's buffer (it waits for both transfers then, where it
 * could work on x's columns before y's came)?  up: each statement's loop (nest_loops). */
static int
holds_back(const Nest *ns, const int *up, const Fill *x, const Fill *y, const Span *sp)
{
	if (sp->lo == sp->s0 && sp->hi == sp->s0 + sp->w0)
		return 0;   /* y's columns are x's: x's transfer is the same */
	int D = ns->s[x->p].var, E = ns->s[y->p].var, rd = -1, re = -1;
	for (int i = x->p + 1; i < ns->n && (rd < 0 || re < 0); i++) {
		if (in_fill(x, i) || in_fill(y, i))
			continue;
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, (NsStmt *)&ns->s[i], r, wr);
		for (int k = 0; k < nr; k++) {
			if (r[k]->var == D && rd < 0)
				rd = i;
			if (r[k]->var == E && re < 0)
				re = i;
		}
	}
	if (rd < 0 || re < 0)
		return rd >= 0 && rd < y->inst;
	return rd < y->inst || (rd < re && up[rd] != up[re]);   /* (y's read first: it waited for both already) */
}

/* A pair of fills to make one: the first, the second, their columns. */
typedef struct Pair {
	const Fill *x, *y;
	Span sp;
} Pair;

/* The pairs pr[0..np) made one: into o (*no statements), each first buffer and its copy
 * widened to the columns of both, its readers and the second's reading it from their own
 * columns on, the second fill dropped: 0, or -1 if a reader cannot be moved. */
static int
widen(const Nest *ns, const Pair *pr, int np, NsStmt *o, int *no)
{
	int m = 0;
	for (int i = 0; i < ns->n; i++) {
		int drop = 0;
		for (int k = 0; k < np && !drop; k++)
			drop = in_fill(pr[k].y, i);
		if (drop)
			continue;   /* a second fill */
		NsStmt *t = &o[m++];
		*t = ns->s[i];
		for (int k = 0; k < np; k++) {
			const Fill *x = pr[k].x, *y = pr[k].y;
			const Span *sp = &pr[k].sp;
			int rank = ns->s[x->p].shape.rank, from = ns->s[y->p].var, to = ns->s[x->p].var;
			int64_t w = sp->hi - sp->lo;
			if (i == x->p)
				t->shape.d[rank - 1] = w;
			if (i == x->inst) {
				t->out.idx[rank - 1].len = w;
				t->shape.d[t->shape.rank - 1] = w;
				t->out.shape.d[t->out.shape.rank - 1] = w;
				NsDim *l = &t->opnd[0].idx[t->opnd[0].nidx - 1];
				snprintf(l->start, sizeof l->start, "%lld", (long long)sp->lo);
				l->len = w;
				t->opnd[0].shape.d[t->opnd[0].shape.rank - 1] = w;
			}
			if (in_fill(x, i))
				continue;
			NsRef *r[AX_MAXOPND + 2];
			int wr[AX_MAXOPND + 2], nr = nest_refs(ns, t, r, wr);
			for (int q = 0; q < nr; q++)
				if ((r[q]->var == to && move_ref(r[q], to, &ns->s[x->p].shape, sp->s0 - sp->lo) != 0) ||
				    (r[q]->var == from && move_ref(r[q], to, &ns->s[y->p].shape, sp->s1 - sp->lo) != 0))
					return -1;
		}
	}
	*no = m;
	return 0;
}

/* Pairs of fills in statements a..e (at its top level only, where top) made one, each fill in
 * one pair at most, all at once where the tiles fit, else the first pair that does: 1 if any. */
static int
widen_in(Nest *ns, int a, int e, int top, const int *up, const int *endof, int *wrote, int *copy, Fill *f, int *by)
{
	int n = ns->n, nf = 0, np = 0;
	nest_written(ns, a, e, wrote);
	if (top)
		writers(ns, by);
	for (int p = a; p <= e && nf < MAXF; p++)
		if (!top && fill_at(ns, endof, p, a, e, wrote, copy, &f[nf]))
			p = f[nf++].q;
		else if (top && fill_apart(ns, p, by, wrote, copy, &f[nf]))
			nf++;
	char used[MAXF] = { 0 };
	Pair pr[MAXF / 2];
	for (int i = 0; i < nf; i++)
		for (int j = i + 1; j < nf && !used[i]; j++) {
			Span sp;
			/* (x's copy first: y's readers, after y's copy, then find x's buffer filled) */
			if (used[j] || up[f[i].p] != up[f[j].p] || f[i].inst > f[j].inst || !joins(ns, &f[i], &f[j], &sp) ||
			    holds_back(ns, up, &f[i], &f[j], &sp))
				continue;
			pr[np++] = (Pair){ &f[i], &f[j], sp };
			used[i] = used[j] = 1;
		}
	if (!np)
		return 0;
	NsStmt *o = malloc(sizeof *o * (size_t)n);
	if (!o)
		ax_die("out of memory");
	int done = 0, m;
	if (widen(ns, pr, np, o, &m) == 0)
		done = nest_install(ns, o, m, ns->nvars);
	for (int k = 0; k < np && !done && np > 1; k++)   /* not all fit: one pair at a time */
		if (widen(ns, &pr[k], 1, o, &m) == 0)
			done = nest_install(ns, o, m, ns->nvars);
	free(o);
	return done;
}

int
nest_widen(Nest *ns)
{
	int done = 0;
	int *copy = malloc(sizeof(int) * (size_t)(ns->g->t->ninsts + 1));
	if (!copy)
		ax_die("out of memory");
	for (int k = 0; k <= ns->g->t->ninsts; k++)
		copy[k] = -1;
	for (int again = 1; again && ns->n;) {   /* again after each join: statements move */
		again = 0;
		int n = ns->n;
		int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
		int *wrote = calloc((size_t)ns->g->nnodes + 1, sizeof(int));
		int *by = malloc(sizeof(int) * (size_t)(ns->nvars + 1));
		Fill *f = malloc(sizeof *f * MAXF);
		if (!up || !endof || !wrote || !by || !f)
			ax_die("out of memory");
		nest_loops(ns, up, endof);
		for (int a = 0; a < n && !again; a++)   /* in each top-level loop nest */
			if (ns->s[a].kind == NS_LOOP && ns->s[a].depth == 0 && endof[a] >= 0) {
				again = widen_in(ns, a, endof[a], 0, up, endof, wrote, copy, f, by);
				a = endof[a];
			}
		/* then the fills outside loops, of tensors nothing writes */
		again = again || widen_in(ns, 0, n - 1, 1, up, endof, wrote, copy, f, by);
		done += again;
		free(up), free(endof), free(wrote), free(by), free(f);
	}
	free(copy);
	return done;
}
