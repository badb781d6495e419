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
 * last dim, which starts where the first's ends: the first buffer and its
 * copies widen to both ranges, the second fill goes, and its readers read
 * the first buffer from the first's width on.  The copies are instructions
 * that copy (lower_is_copy), of a tensor the loop nest does not write.  Only
 * where that holds no reader back: nothing reads the first buffer before the
 * second fill, and its first reader after it reads the second buffer too (GLU's
 * halves of X, read by one multiply; not a matmul's full tiles, computed on
 * before the tail's arrive).  If the tiles do not fit on chip then, nothing
 * changes.
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
		if (copy[s->inst] < 0)
			copy[s->inst] = lower_is_copy(ns->g->t, ns->g->tc, s->inst);
		if (!copy[s->inst])
			return 0;
		inst = i;
	}
	if (inst < 0)
		return 0;
	*f = (Fill){ p, q, inst, 0 };
	return 1;
}

/* A buffer declared outside loops at p and written once, outside loops, by a copy of an
 * off-chip slice the nest does not write (the top-level buffers are declared before their
 * fills): 1 and *f, else 0. */
static int
fill_apart(const Nest *ns, int p, const int *wrote, int *copy, Fill *f)
{
	const NsStmt *b = &ns->s[p];
	int inst = -1;
	if (b->kind != NS_BUF || b->depth != 0)
		return 0;
	for (int i = p + 1; i < ns->n; i++) {
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, (NsStmt *)&ns->s[i], r, wr);
		for (int k = 0; k < nr; k++)
			if (r[k]->var == b->var && wr[k]) {
				const NsStmt *s = &ns->s[i];
				if (inst >= 0 || s->kind != NS_INST || s->depth != 0 || &s->out != r[k] || !nest_reads_offchip(ns, s, wrote))
					return 0;
				if (copy[s->inst] < 0)
					copy[s->inst] = lower_is_copy(ns->g->t, ns->g->tc, s->inst);
				if (!copy[s->inst])
					return 0;
				inst = i;
			}
	}
	if (inst < 0)
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

/* The pair (x, y) made one: into o (n statements of ns), x's buffer and copy widened to the
 * columns of both, its readers and y's reading it from their own columns on: 0, or -1 if a
 * reader cannot be moved. */
static int
widen(const Nest *ns, const Fill *x, const Fill *y, const Span *sp, NsStmt *o)
{
	memcpy(o, ns->s, sizeof *o * (size_t)ns->n);
	NsStmt *bx = &o[x->p], *cx = &o[x->inst];
	int rank = bx->shape.rank, from = ns->s[y->p].var, to = bx->var;
	int64_t w = sp->hi - sp->lo;
	AxShape xs = bx->shape, ys = ns->s[y->p].shape;
	bx->shape.d[rank - 1] = w;
	cx->out.idx[rank - 1].len = w;
	cx->shape.d[cx->shape.rank - 1] = w;
	cx->out.shape.d[cx->out.shape.rank - 1] = w;
	NsDim *l = &cx->opnd[0].idx[cx->opnd[0].nidx - 1];
	snprintf(l->start, sizeof l->start, "%lld", (long long)sp->lo);
	l->len = w;
	cx->opnd[0].shape.d[cx->opnd[0].shape.rank - 1] = w;
	for (int i = 0; i < ns->n; i++) {
		if (in_fill(x, i) || in_fill(y, i))
			continue;
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &o[i], r, wr);
		for (int k = 0; k < nr; k++)
			if ((r[k]->var == to && move_ref(r[k], to, &xs, sp->s0 - sp->lo) != 0) ||
			    (r[k]->var == from && move_ref(r[k], to, &ys, sp->s1 - sp->lo) != 0))
				return -1;
	}
	return 0;
}

/* The first pair of fills in statements a..e (at its top level only, where top) made one;
 * 1 if one was. */
static int
widen_in(Nest *ns, int a, int e, int top, const int *up, const int *endof, int *wrote, int *copy, Fill *f)
{
	int n = ns->n, nf = 0;
	nest_written(ns, a, e, wrote);
	for (int p = a; p <= e && nf < MAXF; p++)
		if (!top && fill_at(ns, endof, p, a, e, wrote, copy, &f[nf]))
			p = f[nf++].q;
		else if (top && fill_apart(ns, p, wrote, copy, &f[nf]))
			nf++;
	for (int i = 0; i < nf; i++)
		for (int j = i + 1; j < nf; j++) {
			Span sp;
			if (up[f[i].p] != up[f[j].p] || !joins(ns, &f[i], &f[j], &sp) || holds_back(ns, up, &f[i], &f[j], &sp))
				continue;
			NsStmt *o = malloc(sizeof *o * (size_t)n);
			if (!o)
				ax_die("out of memory");
			int done = 0;
			if (widen(ns, &f[i], &f[j], &sp, o) == 0) {
				int m = 0;   /* the second fill dropped */
				for (int k = 0; k < n; k++)
					if (!in_fill(&f[j], k))
						o[m++] = o[k];
				done = nest_install(ns, o, m, ns->nvars);
			}
			free(o);
			if (done)
				return 1;
		}
	return 0;
}

int
nest_widen(Nest *ns)
{
	int done = 0;
	for (int again = 1; again && ns->n;) {   /* a pair at a time: statements move */
		again = 0;
		int n = ns->n;
		int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
		int *wrote = calloc((size_t)ns->g->nnodes + 1, sizeof(int));
		int *copy = malloc(sizeof(int) * (size_t)(ns->g->t->ninsts + 1));
		Fill *f = malloc(sizeof *f * MAXF);
		if (!up || !endof || !wrote || !copy || !f)
			ax_die("out of memory");
		for (int k = 0; k <= ns->g->t->ninsts; k++)
			copy[k] = -1;
		nest_loops(ns, up, endof);
		for (int a = 0; a < n && !again; a++)   /* in each top-level loop nest */
			if (ns->s[a].kind == NS_LOOP && ns->s[a].depth == 0 && endof[a] >= 0) {
				again = widen_in(ns, a, endof[a], 0, up, endof, wrote, copy, f);
				a = endof[a];
			}
		/* then the fills outside loops, of tensors nothing writes */
		again = again || widen_in(ns, 0, n - 1, 1, up, endof, wrote, copy, f);
		done += again;
		free(up), free(endof), free(wrote), free(copy), free(f);
	}
	return done;
}
