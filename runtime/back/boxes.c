/*
 * boxes.c — what a run of statements makes, writes and reads, and whether
 * two runs may change places (boxes.h).
 */
#include <stdlib.h>
#include <string.h>
#include "affine.h"
#include "boxes.h"

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
Box
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
void
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
int
side_reaches(const Nest *ns, const char *isview, int x, int w)
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

int
box_overlap(const Box *a, const Box *b)
{
	if (!a->exact || !b->exact || a->nd != b->nd)
		return 1;
	for (int d = 0; d < a->nd; d++)
		if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d])
			return 0;
	return 1;
}

/* Does a write on side p conflict with an access on side q? */
int
side_conflict(const Nest *ns, const char *isview, const Side *p, const Side *q)
{
	for (int i = 0; i < p->n; i++) {
		const Box *w = &p->b[i];
		if (!w->write)
			continue;
		if (w->node < 0 || w->node >= ns->g->nnodes || isview[w->node])
			return 1;   /* a write through a view: its tensor not known here */
		for (int j = 0; j < q->n; j++) {
			const Box *x = &q->b[j];
			if (x->node == w->node ? box_overlap(w, x) : side_reaches(ns, isview, x->node, w->node))
				return 1;
		}
	}
	for (int v = 0; v < ns->nvars; v++)
		if (p->made[v] && (q->made[v] || q->used[v]))
			return 1;
	return 0;
}


Side
side_new(int nv)
{
	Side sd = { .made = calloc((size_t)nv + 1, 1), .used = calloc((size_t)nv + 1, 1) };
	if (!sd.made || !sd.used)
		ax_die("out of memory");
	return sd;
}

void
side_free(Side *sd)
{
	free(sd->b), free(sd->made), free(sd->used);
	*sd = (Side){ 0 };
}
