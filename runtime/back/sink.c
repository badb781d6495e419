/*
 * sink.c — tail tiles moved from between loop nests that can merge (one
 * pass over a candidate's statements, nest.h; before forward.c's merge).
 *
 * After a loop nest the emitter writes its tail tiles (statements and loops
 * of their own), and only then the next operation's nest, so two nests that
 * open with the same loops do not follow each other and forward.c cannot
 * merge them.  For each top-level loop, the later top-level loop nest that
 * shares the most of its loops (their spines compared: variables, trip
 * counts, kinds) is found, within the next few; where it reads an off-chip
 * tensor the loop writes, and the statements between them that are not
 * declarations (the run) are independent of it (boxes.h: no variable
 * shared, no tensor one side writes touched by the other inside the box of
 * its accesses), the run is moved after it.  A view neither reads moves
 * after the run too (the C rendering makes a view where it is declared, and
 * the run may write its tensor).  Where no nest shares a loop but the next
 * with the loop's variable and kind has a trip count one or two larger (or
 * smaller) -- a reduction's last block written with its tail after the
 * loop over the other blocks, then the next operation's loop over all of
 * them -- the longer loop's last iterations are first written after it,
 * each a loop of one trip whose variable counts from the iteration, with
 * variables of its own, and kept only if the run then moves; of loops with
 * its header, the one one or two longer is preferred (the emitter writes
 * the reduction's last block as a loop of one trip, `once`, and the loop
 * over the blocks before it even with one trip, so each meets one of these
 * and forward.c merges both).  The caller keeps the moves only if a merge
 * follows (emit_kernel.c).  nest_unwrap_once then writes every such loop of
 * one trip as its body, its variable 0, merged or not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "boxes.h"
#include "affine.h"

enum { PEEL_MAX = 2,    /* iterations peeled off a loop to meet another's trip count */
       MAXSPINE = 16, MAXLOOK = 16 };

/* Is top-level loop b's header loop a's but for its trip count (variable, kind)? */
static int
same_header(const NsStmt *a, const NsStmt *b)
{
	return strcmp(a->name, b->name) == 0 && a->seq == b->seq;
}

/* Loop l's last k iterations written after it, each a loop of one trip whose variable counts from
 * the iteration (the emitter's last block with its tail is such a loop, so the two line up) and
 * with variables of its own: 0, or -1 if an index does not fit (ns unchanged). */
static int
peel_last(Nest *ns, int l, int e, int64_t k)
{
	const NsStmt *L = &ns->s[l];
	int body = e - l - 1, no = 0, nv = ns->nvars;
	if (k < 1 || k >= L->hi)
		return -1;
	NsStmt *o = malloc(sizeof *o * (size_t)(ns->n + k * (body + 2) + 1));
	int *map = malloc(sizeof(int) * (size_t)(nv + 1));
	if (!o || !map)
		ax_die("out of memory");
	memcpy(o, ns->s, sizeof *o * (size_t)(e + 1));
	no = e + 1;
	o[l].hi = L->hi - k;
	int ok = 1;
	for (int64_t it = L->hi - k; it < L->hi && ok; it++) {
		char lit[sizeof L->name + 32];
		snprintf(lit, sizeof lit, "(%s + %lld)", L->name, (long long)it);
		for (int v = 0; v < ns->nvars; v++)
			map[v] = -1;
		for (int i = l + 1; i < e; i++) {
			const NsStmt *s = &ns->s[i];
			if ((s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 && s->var < ns->nvars)
				map[s->var] = nv++;
		}
		o[no] = *L;
		o[no].once = 1;
		o[no++].hi = 1;
		for (int i = l + 1; i < e && ok; i++) {
			NsStmt *c = &o[no++];
			*c = ns->s[i];
			if ((c->kind == NS_INST || c->kind == NS_BUF) && c->var >= 0 && c->var < ns->nvars)
				c->var = map[c->var];
			NsRef *r[AX_MAXOPND + 2];
			int wr[AX_MAXOPND + 2], nr = nest_refs(ns, c, r, wr);
			for (int j = 0; j < nr && ok; j++) {
				for (int q = 0; q < r[j]->nidx && ok; q++)
					ok = nest_subst_var(r[j]->idx[q].start, sizeof r[j]->idx[q].start, L->name, lit) == 0 &&
					     nest_subst_var(r[j]->idx[q].fin, sizeof r[j]->idx[q].fin, L->name, lit) == 0;
				if (r[j]->var >= 0 && r[j]->var < ns->nvars && map[r[j]->var] >= 0)
					r[j]->var = map[r[j]->var];
			}
		}
		o[no++] = ns->s[e];   /* its NS_END */
	}
	if (ok) {
		memcpy(o + no, ns->s + e + 1, sizeof *o * (size_t)(ns->n - e - 1));
		no += ns->n - e - 1;
		nest_replace(ns, o, no, nv);
	}
	free(o);
	free(map);
	return ok ? 0 : -1;
}

/* The statements between top-level loop i and loop l2 that are not declarations (the run) moved
 * after l2, if they are independent of it: 0, else -1 (ns unchanged). */
static int
sink_run(Nest *ns, const char *isview, int i, int l2)
{
	int n = ns->n, nv = ns->nvars, r = -1;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	char *mv = calloc((size_t)n + 1, 1);
	NsStmt *tmp = malloc(sizeof *tmp * (size_t)n);
	Side R = side_new(nv), L = side_new(nv);
	if (!up || !endof || !mv || !tmp)
		ax_die("out of memory");
	nest_loops(ns, up, endof);
	int r0 = endof[i] + 1, e2 = endof[l2];
	/* a view is made where it is declared (the C rendering): one neither the run nor loop l2
	 * reads, directly or through a view of it that stays, goes after the run, which may write
	 * its tensor; one they read stays before them, and then neither may write its tensor (the
	 * views from the last: a view of a view is declared after it) */
	for (int j = l2 - 1; j >= r0; j--) {
		int k = ns->s[j].kind;
		mv[j] = (char)(ns->s[j].depth > 0 || !(k == NS_TENSOR || k == NS_VIEW || k == NS_SIZE || k == NS_NOTE));
		if (k != NS_VIEW || e2 < 0)
			continue;
		int used = 0, wrote = 0;
		const AxNode *vn = &ns->g->nodes[ns->s[j].node];
		for (int x = r0; x <= e2; x++) {
			NsRef *rf[AX_MAXOPND + 2];
			int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[x], rf, wr);
			for (int q = 0; q < nr; q++) {
				used |= rf[q]->var == -1 - ns->s[j].node;
				for (int o = 0; o < vn->nin; o++)
					wrote |= wr[q] && vn->in[o] >= 0 && rf[q]->var == -1 - vn->in[o];
			}
		}
		for (int x = j + 1; x < l2 && !used; x++)   /* a view of it that stays */
			if (ns->s[x].kind == NS_VIEW && !mv[x])
				for (int o = 0; o < ns->g->nodes[ns->s[x].node].nin; o++)
					used |= ns->g->nodes[ns->s[x].node].in[o] == ns->s[j].node;
		if (used && wrote)
			e2 = -1;   /* not moved */
		mv[j] = used ? 0 : 2;
	}
	if (e2 >= 0) {
		/* only where loop l2 reads what loop i writes off chip (forward.c's reason to merge them) */
		side_scan(ns, up, i, r0, i, NULL, &R);
		side_scan(ns, up, l2, e2 + 1, l2, NULL, &L);
		int cross = 0;
		for (int a = 0; a < R.n && !cross; a++)
			for (int b = 0; b < L.n && !cross; b++)
				cross = R.b[a].write && !L.b[b].write && side_reaches(ns, isview, L.b[b].node, R.b[a].node);
		side_scan(ns, up, r0, l2, r0, mv, &R);
		if (cross && !side_conflict(ns, isview, &R, &L) && !side_conflict(ns, isview, &L, &R)) {
			int m = 0;   /* [r0, l2): its declarations, then loop l2, then the run */
			for (int j = r0; j < l2; j++)
				if (!mv[j])
					tmp[m++] = ns->s[j];
			for (int j = l2; j <= e2; j++)
				tmp[m++] = ns->s[j];
			for (int j = r0; j < l2; j++)
				if (mv[j] == 1)
					tmp[m++] = ns->s[j];
			for (int j = r0; j < l2; j++)
				if (mv[j] == 2)
					tmp[m++] = ns->s[j];
			memcpy(ns->s + r0, tmp, sizeof *tmp * (size_t)m);
			r = 0;
		}
	}
	free(up), free(endof), free(mv), free(tmp);
	side_free(&R), side_free(&L);
	return r;
}

int
nest_sink_tails(Nest *ns)
{
	int moved = 0;
	if (!ns->n)
		return 0;
	const AxGraph *g = ns->g;
	char *isview = calloc((size_t)g->nnodes + 1, 1);
	if (!isview)
		ax_die("out of memory");
	for (int i = 0; i < ns->n; i++)
		if (ns->s[i].kind == NS_VIEW && ns->s[i].node >= 0 && ns->s[i].node < g->nnodes)
			isview[ns->s[i].node] = 1;
	for (int i = 0; i < ns->n; i++) {
		int n = ns->n;
		int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
		if (!up || !endof)
			ax_die("out of memory");
		nest_loops(ns, up, endof);
		int l2 = -1, any = 0;
		if (ns->s[i].kind == NS_LOOP && ns->s[i].depth == 0 && endof[i] >= 0) {
			/* the top-level loop nest after it that shares more of its loops than any between
			 * them (the next operation's nest over the same full tiles; those between: the tail
			 * tiles' nests, as the emitter writes them), else the next with its loop but for the
			 * trip count; the statements between that are not declarations: the run */
			int sa[MAXSPINE], na = nest_spine(ns, up, endof, i, sa, MAXSPINE), most = 0, hdr = -1, hmore = 0;
			for (int j = endof[i] + 1, seen = 0; j < n && seen < MAXLOOK; j++) {
				const NsStmt *s = &ns->s[j];
				if (s->kind != NS_LOOP || s->depth != 0 || endof[j] < 0)
					continue;
				int sb[MAXSPINE], nb = nest_spine(ns, up, endof, j, sb, MAXSPINE), k = 0;
				while (k < na && k < nb && same_header(&ns->s[sa[k]], &ns->s[sb[k]]) &&
				       ns->s[sa[k]].hi == ns->s[sb[k]].hi)
					k++;
				if (k > most)
					l2 = j, most = k;
				/* the next operation's loop over all the blocks (one or two more) before one of
				 * fewer (the emitter's last block with its tail, a loop of one trip) */
				int64_t dj = s->hi - ns->s[i].hi;
				if (!k && same_header(&ns->s[i], s) && (hdr < 0 || (!hmore && dj > 0 && dj <= PEEL_MAX)))
					hdr = j, hmore = dj > 0 && dj <= PEEL_MAX;
				seen++;
				j = endof[j];
			}
			if (l2 < 0 && hdr >= 0)
				l2 = hdr;
			for (int j = endof[i] + 1; l2 >= 0 && j < l2; j++)
				any |= !(ns->s[j].kind == NS_TENSOR || ns->s[j].kind == NS_VIEW || ns->s[j].kind == NS_SIZE ||
				         ns->s[j].kind == NS_NOTE);
		}
		free(up), free(endof);
		if (l2 < 0 || !any)
			continue;
		int64_t d = ns->s[l2].hi - ns->s[i].hi;
		if (d > PEEL_MAX || d < -PEEL_MAX)
			continue;
		/* the longer loop's last iterations peeled (kept only if the run then moves) */
		Nest *was = d ? nest_dup(ns) : NULL;
		if (d) {
			int *up2 = malloc(sizeof(int) * (size_t)ns->n), *end2 = malloc(sizeof(int) * (size_t)ns->n);
			if (!up2 || !end2)
				ax_die("out of memory");
			nest_loops(ns, up2, end2);
			int l = d > 0 ? l2 : i, bad = peel_last(ns, l, end2[l], d > 0 ? d : -d) != 0;
			free(up2), free(end2);
			if (bad) {
				nest_free(was);
				continue;
			}
			if (d < 0) {   /* loop i's peeled iterations join the run: l2 moved on */
				int e = -1;
				for (int j = i + 1; j < ns->n && e < 0; j++)
					if (ns->s[j].kind == NS_LOOP && ns->s[j].depth == 0 && same_header(&ns->s[i], &ns->s[j]) &&
					    ns->s[j].hi == ns->s[i].hi)
						e = j;
				l2 = e;
			}
		}
		if (l2 > i && sink_run(ns, isview, i, l2) == 0)
			moved++, i--;   /* loop i again: the next loop with its header may follow a run of its own */
		else if (was)
			nest_replace(ns, was->s, was->n, was->nvars);
		nest_free(was);
	}
	free(isview);
	return moved;
}

/* Does every index of statement c that uses loop variable v take v = 0 and fit (into *with its
 * text then, if apply)? */
static int
at_zero(const Nest *ns, NsStmt *c, const char *v, int apply)
{
	NsRef *r[AX_MAXOPND + 2];
	int wr[AX_MAXOPND + 2], nr = nest_refs(ns, c, r, wr);
	for (int k = 0; k < nr; k++)
		for (int q = 0; q < r[k]->nidx; q++) {
			NsDim *d = &r[k]->idx[q], t = *d;
			Aff a;
			if (!nest_uses_var(d->start, v) && !nest_uses_var(d->fin, v))
				continue;
			if (nest_subst_var(t.start, sizeof t.start, v, "0") != 0 || nest_subst_var(t.fin, sizeof t.fin, v, "0") != 0)
				return 0;
			if (aff_parse(t.start, &a) == 0 && aff_print(&a, t.start, sizeof t.start) != 0)
				return 0;   /* "((0 + 3) * 4 + j0) * 128" as "j0 * 128 + 1536" */
			if (apply)
				*d = t;
		}
	return 1;
}

void
nest_unwrap_once(Nest *ns)
{
	int n = ns->n, any = 0;
	for (int i = 0; i < n; i++)
		any |= ns->s[i].kind == NS_LOOP && ns->s[i].depth == 0 && ns->s[i].once;
	if (!any)
		return;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	if (!up || !endof)
		ax_die("out of memory");
	nest_loops(ns, up, endof);
	int no = 0;
	for (int i = 0; i < n; i++) {   /* in place: each statement moves down, if at all */
		NsStmt *L = &ns->s[i];
		int e = endof[i], ok = L->kind == NS_LOOP && L->depth == 0 && L->once && L->hi == 1 && e > i;
		for (int j = i + 1; ok && j < e; j++)
			ok = at_zero(ns, &ns->s[j], L->name, 0);
		if (!ok) {   /* (an index that does not fit: the loop kept) */
			if (no != i)
				ns->s[no] = ns->s[i];
			no++;
			continue;
		}
		char v[sizeof L->name];
		memcpy(v, L->name, sizeof v);
		for (int j = i + 1; j < e; j++) {
			at_zero(ns, &ns->s[j], v, 1);
			ns->s[j].depth--;
			ns->s[no++] = ns->s[j];
		}
		i = e;
	}
	ns->n = no;
	free(up), free(endof);
}
