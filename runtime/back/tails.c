/*
 * tails.c — the loads of tail tiles made before the loops they follow (one
 * pass over a candidate's statements, nest.h).
 *
 * Where an axis is no multiple of its tile, the emitter writes the loop
 * nest over the whole tiles and then, after it, the same operations again
 * for the tail tile (emit_kernel.c): statements outside any loop.  Run
 * last, the tail's chain (its loads, its arithmetic, its stores, each
 * waiting for the one before) is paid after everything else, though its
 * loads depend on nothing the loop makes.  This pass moves the loads of
 * such a run of statements (up to the next loop or tensor declaration),
 * with the buffers they fill, before the top-level loops the run follows
 * whose statements they are independent of, so that they are made while
 * the loops run; the rest of the run stays where it is.  (The run moved
 * whole was tried first: a tail store made before the loops holds its
 * queue until the tail's arithmetic is done, and the model found nothing
 * gained.)
 *
 * A load: an instruction whose operands are all off chip, into a tile of
 * its own or a buffer the run declares and nothing in the run uses before
 * it, reading nothing an earlier statement of the run writes.
 * Independent: every off-chip tensor the loops write is touched by the
 * loads only outside the box of the loops' accesses (each slice start an
 * affine expression of the loops around it, the box spanning their trip
 * counts), and through no view of it.  A folded slice, an index that is
 * not affine or a whole-tensor access makes the two dependent.  A scheduled
 * twin's choice (nest_schedule): the model judges whether it is faster.
 */
#include <stdlib.h>
#include <string.h>
#include "affine.h"
#include "nest.h"

typedef struct Box {
	int node, write, exact;
	int64_t lo[AX_MAXR + 2], hi[AX_MAXR + 2];
	int nd;
} Box;

typedef struct Side {
	int n, cap;
	Box *b;
	char *made;              /* per variable: defined or written on this side */
	char *used;              /* per variable: read on this side */
} Side;

/* The range of affine start a over the loops around statement i from statement a0 on (lo, hi
 * inclusive); 0, or -1 if it uses a variable of no such loop. */
static int
aff_range(const Nest *ns, const int *up, int i, int a0, const Aff *a, int64_t *lo, int64_t *hi)
{
	*lo = *hi = a->c;
	for (int k = 0; k < a->n; k++) {
		int l = up[i];
		while (l >= a0 && strcmp(ns->s[l].name, a->v[k]) != 0)
			l = up[l];
		if (l < a0 || ns->s[l].hi < 1)
			return -1;
		int64_t span = a->k[k] * (ns->s[l].hi - 1);
		if (span < 0)
			*lo += span;
		else
			*hi += span;
	}
	return 0;
}

/* The box of slice r of statement i (loops from a0 on); exact 0 where it is not known. */
static Box
box_of(const Nest *ns, const int *up, int i, int a0, const NsRef *r, int write)
{
	Box b = { .node = -1 - r->var, .write = write, .exact = r->nidx > 0 && !r->ellipsis, .nd = r->nidx };
	for (int d = 0; b.exact && d < r->nidx; d++) {
		const NsDim *x = &r->idx[d];
		Aff a;
		int64_t lo, hi;
		if (x->fold || x->flen || aff_parse(x->start, &a) != 0 || aff_range(ns, up, i, a0, &a, &lo, &hi) != 0) {
			b.exact = 0;
			break;
		}
		b.lo[d] = lo;
		b.hi[d] = hi + (x->len > 0 ? x->len : 1);   /* exclusive */
	}
	return b;
}

static void
side_add(Side *sd, Box b)
{
	if (sd->n == sd->cap) {
		sd->cap = sd->cap ? 2 * sd->cap : 16;
		sd->b = realloc(sd->b, sizeof *sd->b * (size_t)sd->cap);
		if (!sd->b)
			ax_die("out of memory");
	}
	sd->b[sd->n++] = b;
}

/* What statements [s0, s1) (those mask marks, if not NULL) make, write, read (loops from a0 on). */
static void
side_scan(Nest *ns, const int *up, int s0, int s1, int a0, const char *mask, Side *sd)
{
	int nv = ns->nvars;
	sd->n = 0;
	for (int v = 0; v <= nv; v++)
		sd->made[v] = sd->used[v] = 0;
	for (int i = s0; i < s1; i++) {
		NsStmt *s = &ns->s[i];
		if (mask && !mask[i])
			continue;
		if ((s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 && s->var < nv)
			sd->made[s->var] = 1;
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2];
		int k = nest_refs(ns, s, r, wr);
		for (int j = 0; j < k; j++) {
			if (r[j]->var >= 0 && r[j]->var < nv) {
				if (wr[j])
					sd->made[r[j]->var] = 1;
				if (wr[j] != 1)
					sd->used[r[j]->var] = 1;
			} else if (r[j]->var < 0 && r[j]->var != NS_NONE)
				side_add(sd, box_of(ns, up, i, a0, r[j], wr[j] != 0));
		}
	}
}

/* Is node x node w itself, or read through views of it (unknown: 1)? */
static int
reaches(const Nest *ns, const char *isview, int x, int w)
{
	const AxGraph *g = ns->g;
	for (int hop = 0; hop < 64; hop++) {
		if (x == w)
			return 1;
		if (x < 0 || x >= g->nnodes || !isview[x])
			return 0;
		if (g->nodes[x].nin != 1)
			return 1;
		x = g->nodes[x].in[0];
	}
	return 1;
}

static int
overlap(const Box *a, const Box *b)
{
	if (!a->exact || !b->exact || a->nd != b->nd)
		return 1;
	for (int d = 0; d < a->nd; d++)
		if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d])
			return 0;
	return 1;
}

/* Does a write on side p conflict with an access on side q? */
static int
conflict(const Nest *ns, const char *isview, const Side *p, const Side *q)
{
	for (int i = 0; i < p->n; i++) {
		const Box *w = &p->b[i];
		if (!w->write)
			continue;
		if (w->node < 0 || w->node >= ns->g->nnodes || isview[w->node])
			return 1;   /* a write through a view: its tensor not known here */
		for (int j = 0; j < q->n; j++) {
			const Box *x = &q->b[j];
			if (x->node == w->node ? overlap(w, x) : reaches(ns, isview, x->node, w->node))
				return 1;
		}
	}
	for (int v = 0; v < ns->nvars; v++)
		if (p->made[v] && (q->made[v] || q->used[v]))
			return 1;
	return 0;
}

/* Is loop l (its end e) a nest of loads (and notes) only? */
static int
loads_only(const Nest *ns, int l, int e)
{
	if (e < 0)
		return 0;
	for (int j = l + 1; j < e; j++) {
		int k = ns->s[j].kind;
		if (k != NS_NOTE && k != NS_LOOP && k != NS_END && !nest_reads_offchip(ns, &ns->s[j], NULL))
			return 0;
	}
	return 1;
}

/* The loads of run [r0, r1) that may be made first, in mv[] (with their buffers, and the loops
 * of loads they are in, whole): how many. */
static int
movable(Nest *ns, const int *up, const int *endof, const char *isview, int r0, int r1, char *mv, Side *pre,
        Side *one)
{
	int nv = ns->nvars, k = 0;
	for (int i = r0; i < r1; i++)
		mv[i] = 0;
	for (int i = r0; i < r1; i++) {
		NsStmt *s = &ns->s[i];
		if (!nest_reads_offchip(ns, s, NULL))
			continue;
		int buf = -1;
		if (s->out.var != NS_NONE) {   /* into a buffer the run declares, untouched before it */
			if (s->out.var < 0 || s->out.var >= nv)
				continue;
			for (int j = r0; j < i && buf < 0; j++)
				if (ns->s[j].kind == NS_BUF && ns->s[j].var == s->out.var)
					buf = j;
			if (buf < 0)
				continue;
			side_scan(ns, up, buf + 1, i, r0, NULL, pre);
			if (pre->made[s->out.var] || pre->used[s->out.var])
				continue;
		}
		side_scan(ns, up, r0, i, r0, NULL, pre);
		side_scan(ns, up, i, i + 1, r0, NULL, one);
		int clash = 0;   /* an earlier statement of the run writes what it reads */
		for (int a = 0; a < pre->n && !clash; a++)
			for (int b = 0; b < one->n && !clash; b++)
				clash = pre->b[a].write && (pre->b[a].node == one->b[b].node ? overlap(&pre->b[a], &one->b[b])
				                                                             : reaches(ns, isview, one->b[b].node,
				                                                                       pre->b[a].node));
		if (clash)
			continue;
		mv[i] = 1;
		if (buf >= 0)
			mv[buf] = 1;
		k++;
	}
	for (int l = r0; l < r1; l++) {   /* a loop of loads moves whole, or not at all */
		if (ns->s[l].kind != NS_LOOP || ns->s[l].depth != 0)
			continue;
		int all = 1;
		for (int j = l + 1; j < endof[l]; j++)
			all &= ns->s[j].kind != NS_INST || mv[j];
		for (int j = l; j <= endof[l]; j++)
			if (ns->s[j].kind != NS_INST || !all) {
				k -= ns->s[j].kind == NS_INST && mv[j];
				mv[j] = (char)all;
			}
		l = endof[l];
	}
	for (int b = r0; b < r1; b++) {   /* a buffer moves with a load into it */
		if (!mv[b] || ns->s[b].kind != NS_BUF)
			continue;
		int used = 0;
		for (int j = b + 1; j < r1 && !used; j++)
			used = mv[j] && ns->s[j].kind == NS_INST && ns->s[j].out.var == ns->s[b].var;
		mv[b] = (char)used;
	}
	return k;
}

int
nest_tails_first(Nest *ns)
{
	int n = ns->n, nv = ns->nvars, moved = 0;
	if (!n)
		return 0;
	const AxGraph *g = ns->g;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	char *isview = calloc((size_t)g->nnodes + 1, 1), *mv = calloc((size_t)n + 1, 1);
	NsStmt *tmp = malloc(sizeof *tmp * (size_t)n);
	Side sd[3];
	for (int k = 0; k < 3; k++)
		sd[k] = (Side){ .made = calloc((size_t)nv + 1, 1), .used = calloc((size_t)nv + 1, 1) };
	if (!up || !endof || !isview || !mv || !tmp || !sd[0].made || !sd[0].used || !sd[1].made || !sd[1].used ||
	    !sd[2].made || !sd[2].used)
		ax_die("out of memory");
	Side *L = &sd[0], *G = &sd[1], *one = &sd[2];
	for (int i = 0; i < n; i++)
		if (ns->s[i].kind == NS_VIEW && ns->s[i].node >= 0 && ns->s[i].node < g->nnodes)
			isview[ns->s[i].node] = 1;
	for (int i = 0; i < n; i++) {
		/* a run of top-level statements after a top-level loop, up to the next loop, tensor or view */
		if (ns->s[i].kind != NS_LOOP || ns->s[i].depth != 0)
			continue;
		nest_loops(ns, up, endof);
		if (endof[i] < 0)
			break;
		int r0 = endof[i] + 1, r1 = r0;
		while (r1 < n && ns->s[r1].depth == 0 && ns->s[r1].kind != NS_TENSOR && ns->s[r1].kind != NS_VIEW &&
		       ns->s[r1].kind != NS_SIZE && ns->s[r1].kind != NS_END) {
			if (ns->s[r1].kind == NS_LOOP) {   /* a loop of loads only is part of the run */
				if (!loads_only(ns, r1, endof[r1]))
					break;
				r1 = endof[r1];
			}
			r1++;
		}
		if (!movable(ns, up, endof, isview, r0, r1, mv, L, one)) {
			i = r1 - 1;
			continue;
		}
		side_scan(ns, up, r0, r1, r0, mv, G);
		/* before each top-level loop right before the run that they are independent of, back to
		 * the first that is not */
		int at = r0;
		for (;;) {
			int l = -1;
			for (int k = 0; k < at; k++)   /* the top-level loop ending right before at */
				if (ns->s[k].kind == NS_LOOP && ns->s[k].depth == 0 && endof[k] == at - 1)
					l = k;
			if (l < 0)
				break;
			side_scan(ns, up, l, at, l, NULL, L);
			if (conflict(ns, isview, L, G) || conflict(ns, isview, G, L))
				break;
			at = l;
		}
		if (at < r0) {   /* [at, r0) loops, [r0, r1) the run: its loads, the loops, the rest */
			int m = 0;
			for (int j = r0; j < r1; j++)
				if (mv[j])
					tmp[m++] = ns->s[j];
			for (int j = at; j < r0; j++)
				tmp[m++] = ns->s[j];
			for (int j = r0; j < r1; j++)
				if (!mv[j])
					tmp[m++] = ns->s[j];
			memcpy(ns->s + at, tmp, sizeof *tmp * (size_t)m);
			moved++;
		}
		i = r1 - 1;
	}
	free(up), free(endof), free(isview), free(mv), free(tmp);
	for (int k = 0; k < 3; k++)
		free(sd[k].b), free(sd[k].made), free(sd[k].used);
	return moved;
}
