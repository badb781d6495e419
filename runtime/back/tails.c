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
 *
 * With `near`, the loads go back only over loops that load nothing (their
 * stores, their arithmetic): the next row block of a matmul at 2049 rows,
 * written after the first, waited for its X^T behind the first block's
 * stores, while made before every loop it is independent of it delayed the
 * first block's own loads.
 */
#include <stdlib.h>
#include <string.h>
#include "boxes.h"

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
				clash = pre->b[a].write && (pre->b[a].node == one->b[b].node ? box_overlap(&pre->b[a], &one->b[b])
				                                                             : side_reaches(ns, isview, one->b[b].node,
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

/* Does a statement of [a, e) read an off-chip tensor? */
static int
loads_in(const Nest *ns, int a, int e)
{
	for (int j = a; j < e; j++)
		if (nest_reads_offchip(ns, &ns->s[j], NULL))
			return 1;
	return 0;
}

int
nest_tails_first(Nest *ns, int near)
{
	int n = ns->n, nv = ns->nvars, moved = 0, stopped = 0;
	if (!n)
		return 0;
	const AxGraph *g = ns->g;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	char *isview = calloc((size_t)g->nnodes + 1, 1), *mv = calloc((size_t)n + 1, 1);
	NsStmt *tmp = malloc(sizeof *tmp * (size_t)n);
	Side sd[3];
	for (int k = 0; k < 3; k++)
		sd[k] = side_new(nv);
	if (!up || !endof || !isview || !mv || !tmp)
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
		int at = r0, held = 0;
		for (;;) {
			int l = -1;
			for (int k = 0; k < at; k++)   /* the top-level loop ending right before at */
				if (ns->s[k].kind == NS_LOOP && ns->s[k].depth == 0 && endof[k] == at - 1)
					l = k;
			if (l < 0)
				break;
			side_scan(ns, up, l, at, l, NULL, L);
			if (side_conflict(ns, isview, L, G) || side_conflict(ns, isview, G, L))
				break;
			if (near && loads_in(ns, l, at)) {   /* (as far back as independent would go on) */
				held = 1;
				break;
			}
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
		stopped += held;
		i = r1 - 1;
	}
	free(up), free(endof), free(isview), free(mv), free(tmp);
	for (int k = 0; k < 3; k++)
		side_free(&sd[k]);
	return near ? (moved && stopped ? moved : 0) : moved;
}

