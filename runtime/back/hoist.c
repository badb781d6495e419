/*
 * hoist.c — loads out of the loops they do not depend on (one pass over a
 * candidate's statements, nest.h).
 *
 * A load (an instruction of on-chip result reading only off-chip tensors
 * its loop nest does not write) inside a loop whose variable its slices do
 * not use is made once before that loop instead of once per iteration.  So
 * is an instruction whose on-chip operands were made before its loop nest
 * and are not written in it (a bias row loaded ahead of the nest and
 * replicated across partitions: once per column tile, not per row tile).
 * Where loops it does use lie between it and the outermost such loop (a
 * matmul's loop over K tiles inside a loop over row tiles it does not
 * read), they are written again before that loop, around the load, which
 * fills a buffer with a dim per such loop; the uses read the buffer's tile
 * at the loop variables.  Merged loop nests (forward.c) are where this
 * happens: V of attention read per row tile of the scores, which it does
 * not depend on.  Loads that hoist to the same place from the same slice
 * are made once, and so are block buffers filled with the same loads (a
 * tail tile's nest merged with its operation's loop reads the same K and
 * V).  If the tiles then do not fit on chip, nothing is hoisted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nest.h"

enum { MAXCHAIN = 2, MAXSLOTS = 64, MAXH = 256 };

typedef struct Hoist {
	int st;                  /* the load */
	int at;                  /* the loop it is made before */
	int nc, chain[MAXCHAIN]; /* the loops around it it uses, outermost first */
	int buf;                 /* with a chain: its buffer's variable */
	int same;                /* an earlier hoist of the same load to the same place (-1: none) */
} Hoist;

/* Chains of loops of the same variables and trips (their uses read the buffer by those names). */
static int
same_chain(const Nest *ns, const Hoist *a, const Hoist *b)
{
	if (a->nc != b->nc)
		return 0;
	for (int c = 0; c < a->nc; c++)
		if (strcmp(ns->s[a->chain[c]].name, ns->s[b->chain[c]].name) != 0 ||
		    ns->s[a->chain[c]].hi != ns->s[b->chain[c]].hi)
			return 0;
	return 1;
}

/* Is on-chip value var made before statement a (a buffer declared, or an
 * instruction's result) and neither made nor written in [a, e]? */
static int
made_before(const Nest *ns, int a, int e, int var)
{
	int made = 0;
	for (int j = 0; j < a && !made; j++)
		made = (ns->s[j].kind == NS_BUF || (ns->s[j].kind == NS_INST && ns->s[j].out.var == NS_NONE)) &&
		       ns->s[j].var == var;
	for (int j = a; j <= e && made; j++) {
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[j], r, wr);
		if ((ns->s[j].kind == NS_BUF || ns->s[j].kind == NS_INST) && ns->s[j].var == var)
			return 0;
		for (int k = 0; k < nr; k++)
			if (r[k]->var == var && wr[k])
				return 0;
	}
	return made;
}

/* Does statement i of loop nest [a, e] compute the same tile in every
 * iteration of the loops whose variables it does not use: a load (off-chip
 * tensors the nest does not write), or an instruction of on-chip result
 * whose on-chip operands were made before the nest and are not written in
 * it (a row loaded once, replicated across partitions per tile)? */
static int
invariant(const Nest *ns, int a, int e, int i, const int *wrote)
{
	const NsStmt *s = &ns->s[i];
	if (nest_is_load(ns, s, wrote))
		return 1;
	if (s->kind != NS_INST || s->out.var != NS_NONE || s->var < 0 || s->mem < 0 || ns->g->t->mems[s->mem].offchip)
		return 0;
	int onchip = 0;
	for (int o = 0; o < ns->g->t->insts[s->inst].nopnd && o < AX_MAXOPND; o++) {
		int v = s->opnd[o].var;
		if (v == NS_NONE)
			continue;
		if (v < 0 ? wrote[-1 - v] : !made_before(ns, a, e, v))
			return 0;
		onchip |= v >= 0;
	}
	return onchip;
}

/* The hoist of invariant statement i (0 if it stays). */
static int
plan(const Nest *ns, const int *up, const int *endof, int i, Hoist *h)
{
	const NsStmt *s = &ns->s[i];
	const AxOp *op = &ns->g->t->insts[s->inst];
	int loops[64], nl = 0;
	for (int l = up[i]; l >= 0 && nl < 64; l = up[l])
		loops[nl++] = l;   /* innermost first */
	*h = (Hoist){ .st = i, .at = -1, .same = -1, .buf = -1 };
	int used[64], nused = 0;
	int64_t slots = 1;
	for (int k = 0; k < nl; k++) {
		used[k] = 0;
		for (int o = 0; o < op->nopnd && o < AX_MAXOPND; o++)
			used[k] |= s->opnd[o].var != NS_NONE && nest_ref_uses(&s->opnd[o], ns->s[loops[k]].name);
		/* a loop it uses is written again around it, up to MAXCHAIN of them, MAXSLOTS tiles */
		if (used[k]) {
			if (nused == MAXCHAIN || slots * ns->s[loops[k]].hi > MAXSLOTS)
				break;
			nused++;
			slots *= ns->s[loops[k]].hi;
			continue;
		}
		h->at = loops[k];   /* made before this loop, the loops it uses inside it around it */
		h->nc = 0;
		for (int j = k - 1; j >= 0; j--)
			if (used[j])
				h->chain[h->nc++] = loops[j];
	}
	if (h->at < 0)
		return 0;
	/* the uses: inside the load's own loop, and none writing the tile (a running value that
	 * starts from the load starts again every iteration) */
	int end = endof[up[i]];
	for (int j = 0; j < ns->n; j++) {
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[j], r, wr);
		for (int k = 0; k < nr; k++)
			if (r[k]->var == s->var && (wr[k] || j < i || j > end))
				return 0;
	}
	return 1;
}

/* The buffer's tile for a use r of the hoisted load's value (prefetch.c's layout). */
static NsRef
chain_ref(const Nest *ns, const NsRef *r, const Hoist *h, const AxShape *tile, int buf)
{
	const NsStmt *chain[MAXCHAIN];
	for (int c = 0; c < h->nc; c++)
		chain[c] = &ns->s[h->chain[c]];
	return nest_chain_ref(r, buf, chain, h->nc, tile);
}

/* One round: whether anything was hoisted. */
static int
hoist_loads(Nest *ns)
{
	int n = ns->n;
	if (!n)
		return 0;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	int *wrote = calloc((size_t)ns->g->nnodes + 1, sizeof(int));
	Hoist *h = malloc(sizeof *h * MAXH);
	if (!up || !endof || !wrote || !h)
		ax_die("out of memory");
	nest_loops(ns, up, endof);
	int nh = 0;
	for (int a = 0; a < n; a++) {   /* per top-level loop nest: the tensors it writes, then its loads */
		if (ns->s[a].kind != NS_LOOP || ns->s[a].depth != 0 || endof[a] < 0)
			continue;
		int e = endof[a];
		nest_written(ns, a, e, wrote);
		for (int i = a + 1; i < e && nh < MAXH; i++)
			if (invariant(ns, a, e, i, wrote) && plan(ns, up, endof, i, &h[nh])) {
				for (int k = 0; k < nh && h[nh].same < 0; k++)
					if (h[k].at == h[nh].at && same_chain(ns, &h[k], &h[nh]) &&
					    nest_same_load(ns, &ns->s[h[k].st], &ns->s[i]))
						h[nh].same = k;
				nh++;
			}
	}
	free(wrote);
	if (!nh) {
		free(up), free(endof), free(h);
		return 0;
	}
	/* the new statements: before each loop, the loads hoisted to it (with a chain: a buffer and
	 * the chain's loops around the load); each use of a hoisted value reads it (a chain's buffer
	 * at the loops' variables); a load made once for several reads the first */
	int nv = ns->nvars, extra = 0;
	for (int k = 0; k < nh; k++) {
		if (h[k].same >= 0)
			continue;
		if (h[k].nc)
			h[k].buf = nv++;
		extra += 2 + 2 * h[k].nc;
	}
	NsStmt *w = malloc(sizeof *w * (size_t)n), *o = malloc(sizeof *o * (size_t)(n + extra));
	char *skip = calloc((size_t)n, 1);
	if (!w || !o || !skip)
		ax_die("out of memory");
	memcpy(w, ns->s, sizeof *w * (size_t)n);
	for (int k = 0; k < nh; k++) {
		const Hoist *x = &h[k], *y = x->same >= 0 ? &h[x->same] : x;
		const NsStmt *ld = &ns->s[x->st];
		int end = endof[up[x->st]];
		skip[x->st] = 1;
		for (int j = x->st + 1; j <= end; j++) {
			NsRef *r[AX_MAXOPND + 2];
			int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &w[j], r, wr);
			for (int q = 0; q < nr; q++)
				if (r[q]->var == ld->var) {
					if (y->nc)
						*r[q] = chain_ref(ns, r[q], y, &ld->shape, y->buf);
					else
						r[q]->var = ns->s[y->st].var;
				}
		}
	}
	int no = 0;
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < nh; k++) {
			const Hoist *x = &h[k];
			if (x->at != i || x->same >= 0)
				continue;
			int d = ns->s[i].depth;
			NsStmt ld = ns->s[x->st];
			if (x->nc) {
				NsStmt *b = &o[no++];
				*b = (NsStmt){ .kind = NS_BUF, .depth = d, .var = x->buf, .mem = ld.mem, .node = -1 };
				b->out.var = b->src.var = NS_NONE;
				b->shape.rank = ld.shape.rank + x->nc;
				b->shape.d[0] = ld.shape.d[0];
				for (int c = 0; c < x->nc; c++)
					b->shape.d[1 + c] = ns->s[x->chain[c]].hi;
				for (int q = 1; q < ld.shape.rank; q++)
					b->shape.d[x->nc + q] = ld.shape.d[q];
				for (int c = 0; c < x->nc; c++) {
					o[no] = ns->s[x->chain[c]];
					o[no].depth = d + c;
					o[no++].fetch = 0;
				}
				NsRef whole = ns_var(ld.var, &ld.shape);
				ld.out = chain_ref(ns, &whole, x, &ld.shape, x->buf);
			}
			ld.depth = d + x->nc;
			o[no++] = ld;
			for (int c = x->nc - 1; c >= 0; c--) {
				NsStmt *en = &o[no++];
				*en = (NsStmt){ .kind = NS_END, .depth = d + c, .var = NS_NONE, .node = -1 };
				en->out.var = en->src.var = NS_NONE;
			}
		}
		if (!skip[i])
			o[no++] = w[i];
	}
	free(w);
	free(skip);
	no = nest_drop_empty(o, no);
	int done = nest_install(ns, o, no, nv);
	free(o);
	free(up), free(endof), free(h);
	return done;
}

/* Statements [p, q] moved before statement at, the rest kept: into ns if the tiles fit.  With
 * same >= 0, an earlier fill moved to the same place that makes the same tiles: this one is
 * dropped and its buffer's readers read that one's. */
typedef struct Fill {
	int p, q, at, same;
} Fill;

/* Do fills a and b (a buffer and its loads) make the same tiles: the same statements but for
 * their variables, b's read nowhere but through its buffer? */
static int
same_fill(const Nest *ns, const Fill *a, const Fill *b)
{
	int n = a->q - a->p, D = ns->s[a->p].var, E = ns->s[b->p].var;
	if (n != b->q - b->p || !nest_same_loops(ns, a->p, b->p, n))
		return 0;
	for (int t = 0; t <= n; t++) {
		const NsStmt *x = &ns->s[a->p + t], *y = &ns->s[b->p + t];
		if (x->kind == NS_BUF && (x->mem != y->mem || x->onetile != y->onetile || x->shape.rank != y->shape.rank ||
		                          memcmp(x->shape.d, y->shape.d, sizeof x->shape.d[0] * (size_t)x->shape.rank)))
			return 0;
		if (x->kind != NS_INST)
			continue;
		NsStmt z = *y;   /* y's tile slice as a slice of a's buffer */
		z.out.var = D;
		NsStmt wx = *x, wz = z;   /* the outs compared as operands of the same load */
		wx.opnd[0] = x->out;
		wz.opnd[0] = z.out;
		if (y->out.var != E || !nest_same_load(ns, x, y) || !nest_same_load(ns, &wx, &wz))
			return 0;
		for (int j = 0; j < ns->n; j++) {   /* its own value read nowhere */
			NsRef *r[AX_MAXOPND + 2];
			int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[j], r, wr);
			for (int k = 0; k < nr; k++)
				if (r[k]->var == y->var && j != b->p + t)
					return 0;
		}
	}
	return 1;
}

static int
apply_fills(Nest *ns, const Fill *fl, int nf)
{
	int n = ns->n, no = 0;
	NsStmt *o = malloc(sizeof *o * (size_t)n);
	char *moved = calloc((size_t)n, 1);
	if (!o || !moved)
		ax_die("out of memory");
	for (int k = 0; k < nf; k++)
		for (int j = fl[k].p; j <= fl[k].q; j++)
			moved[j] = 1;
	for (int k = 0; k < nf; k++)   /* a fill made twice: its readers read the first */
		if (fl[k].same >= 0) {
			int from = ns->s[fl[k].p].var, to = ns->s[fl[fl[k].same].p].var;
			for (int i = 0; i < n; i++) {
				NsRef *r[AX_MAXOPND + 2];
				int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, wr);
				for (int q = 0; q < nr; q++)
					if (r[q]->var == from && (i < fl[k].p || i > fl[k].q))
						r[q]->var = to;
			}
		}
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < nf; k++)
			if (fl[k].at == i && fl[k].same < 0)
				for (int j = fl[k].p; j <= fl[k].q; j++) {
					o[no] = ns->s[j];
					o[no++].depth += ns->s[i].depth - ns->s[fl[k].p].depth;
				}
		if (!moved[i])
			o[no++] = ns->s[i];
	}
	free(moved);
	no = nest_drop_empty(o, no);
	int done = nest_install(ns, o, no, ns->nvars);
	free(o);
	return done;
}

/* A block buffer and the loops that fill it with loads only, made before the loops around them
 * whose variables their slices do not use (the innermost of them up to the first they use);
 * whether any moved. */
static int
hoist_fills(Nest *ns)
{
	int n = ns->n;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	int *wrote = calloc((size_t)ns->g->nnodes + 1, sizeof(int));
	Fill *fl = malloc(sizeof *fl * MAXH);
	if (!up || !endof || !wrote || !fl)
		ax_die("out of memory");
	int nf = 0;
	nest_loops(ns, up, endof);
	for (int a = 0; a < n; a++) {
		if (ns->s[a].kind != NS_LOOP || ns->s[a].depth != 0 || endof[a] < 0)
			continue;
		int e = endof[a];
		nest_written(ns, a, e, wrote);
		for (int p = a + 1; p < e && nf < MAXH; p++) {
			if (p + 1 >= e || up[p] < 0)
				continue;
			int q = nest_fill(ns, endof, p, a, e, wrote);
			if (q < 0)
				continue;
			int at = -1;
			for (int l = up[p]; l >= 0; l = up[l]) {
				int used = 0;
				for (int i = p + 1; i <= q && !used; i++)
					if (ns->s[i].kind == NS_INST)
						for (int o = 0; o < ns->g->t->insts[ns->s[i].inst].nopnd && o < AX_MAXOPND; o++)
							used |= ns->s[i].opnd[o].var != NS_NONE && nest_ref_uses(&ns->s[i].opnd[o], ns->s[l].name);
				if (used)
					break;
				at = l;
			}
			if (at >= 0) {
				fl[nf] = (Fill){ p, q, at, -1 };
				for (int k = 0; k < nf && fl[nf].same < 0; k++)
					if (fl[k].at == at && fl[k].same < 0 && same_fill(ns, &fl[k], &fl[nf]))
						fl[nf].same = k;
				nf++;
			}
			p = q;
		}
	}
	int done = nf && apply_fills(ns, fl, nf);
	free(up), free(endof), free(wrote), free(fl);
	return done;
}

void
nest_hoist(Nest *ns)
{
	/* again while something moved: an instruction whose operand a round hoisted out of its
	 * loop nest can follow in the next (a row's replication after the row's fill) */
	for (int round = 0; round < 3; round++) {
		int loads = hoist_loads(ns), fills = hoist_fills(ns);
		if (!loads && !fills)
			break;
	}
}
