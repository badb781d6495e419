/*
 * reuse.c — a tile made again read from the buffer that holds it (one pass
 * over a candidate's statements, nest.h).
 *
 * A matrix product whose stationary operand is transposed on chip writes
 * each transposed tile into a block buffer once per K block, in the loop
 * nest over the block's tiles (B[j0, j2] = copy(transpose(X[j0, j2]))).
 * Where the columns have a tail, the emitter writes the rest of that loop
 * nest again for the tail (emit_kernel.c), in the same iteration of the K
 * loop: its own loops over the rows, and the K tiles as literals, making
 * every transposed tile again (u = copy(transpose(X[j0, 0]))).  This pass
 * finds such a pair made again, the same instructions on the same slices
 * with one loop variable of the first pair a literal within its trip count,
 * and has the second pair's readers read the buffer's tile instead.
 *
 * The first pair: an instruction X making a tile of its own, read only by
 * the next statement Y, which writes its result into block buffer B at
 * indices that include loop variable v.  The second: the same X with v a
 * literal c in [0, trips of v) (slice starts compared as affine
 * expressions), its tile read only by the next statement, the same Y, into
 * a tile of its own in B's memory, read whole.  The loops around the second
 * pair are those around the first without v's (the same names and trips),
 * inside the loops they share; B is declared outside the first pair's own
 * loops and indexed by each of their variables (a tile per iteration), and
 * Y is its only writer there; nothing after those loops up to the second
 * pair writes B, and nothing from their start on writes what X reads.
 */
#include <stdlib.h>
#include <string.h>
#include "affine.h"
#include "nest.h"

enum { MAXL = 16 };

/* Slice starts of s's operands as affine expressions printed again where they are ones, and
 * with loop variable v at literal c (v NULL: none). */
static void
normal(NsStmt *s, const Nest *ns, const char *v, const char *c)
{
	const AxOp *op = &ns->g->t->insts[s->inst];
	for (int o = 0; o < op->nopnd && o < AX_MAXOPND; o++)
		for (int d = 0; s->opnd[o].var != NS_NONE && d < s->opnd[o].nidx; d++) {
			char *e = s->opnd[o].idx[d].start;
			size_t cap = sizeof s->opnd[o].idx[d].start;
			if (v)
				nest_subst_var(e, cap, v, c);
			Aff a;
			char buf[64];
			if (aff_parse(e, &a) == 0 && aff_print(&a, buf, sizeof buf) == 0 && strlen(buf) < cap)
				memcpy(e, buf, strlen(buf) + 1);
		}
}

/* The loops around statement i, outermost first: how many. */
static int
chain_of(const int *up, int i, int *l)
{
	int n = 0, tmp[MAXL];
	for (int k = up[i]; k >= 0 && n < MAXL; k = up[k])
		tmp[n++] = k;
	for (int k = 0; k < n; k++)
		l[k] = tmp[n - 1 - k];
	return n;
}

/* References to variable v in statements [a, b): reads and writes, counted. */
static void
refs_of(Nest *ns, int a, int b, int v, int *reads, int *writes)
{
	*reads = *writes = 0;
	for (int i = a; i < b; i++) {
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, wr);
		for (int k = 0; k < nr; k++)
			if (r[k]->var == v) {
				*writes += wr[k] != 0;
				*reads += wr[k] != 1;
			}
		if ((ns->s[i].kind == NS_INST || ns->s[i].kind == NS_BUF) && ns->s[i].var == v && ns->s[i].out.var == NS_NONE)
			*writes += 1;
	}
}

/* Does the second pair (x2, x2 + 1) make again what the first (x, x + 1) wrote into its buffer,
 * with a loop variable of the first a literal?  Then *with is the buffer's tile for its readers
 * and *after the first statement after the first pair's own loops. */
static int
again(Nest *ns, const int *up, const int *endof, const int *defat, int x, int x2, NsRef *with, int *after)
{
	const NsStmt *X = &ns->s[x], *Y = &ns->s[x + 1], *X2 = &ns->s[x2], *Y2 = &ns->s[x2 + 1];
	int B = Y->out.var;
	if (X2->kind != NS_INST || Y2->kind != NS_INST || X2->inst != X->inst || Y2->inst != Y->inst ||
	    Y2->engine != Y->engine || X2->out.var != NS_NONE || Y2->out.var != NS_NONE ||
	    Y2->opnd[0].var != X2->var || Y2->opnd[0].nidx || B < 0 || B >= ns->nvars || defat[B] < 0 ||
	    ns->s[defat[B]].kind != NS_BUF || Y2->mem != ns->s[defat[B]].mem)
		return 0;
	for (int o = 1; o < AX_MAXOPND; o++)   /* the copy's other operands: the same */
		if (Y2->opnd[o].var != Y->opnd[o].var)
			return 0;
	int l1[MAXL], l2[MAXL], n1 = chain_of(up, x, l1), n2 = chain_of(up, x2, l2), p = 0;
	while (p < n1 && p < n2 && l1[p] == l2[p])
		p++;
	if (n1 != n2 + 1 || defat[B] > l1[p])
		return 0;
	int scope = 0;   /* B declared outside the first pair's own loops, in a loop both are in */
	for (int k = 0; k < p; k++)
		scope |= up[defat[B]] == l1[k];
	if (up[defat[B]] >= 0 && !scope)
		return 0;
	int rd, wr;   /* B written by Y alone in those loops, at a tile of its own per iteration */
	*after = endof[l1[p]] + 1;
	refs_of(ns, l1[p], *after, B, &rd, &wr);
	if (wr != 1 || *after > x2)
		return 0;
	for (int a = p; a < n1; a++) {
		int bare = 0;
		for (int d = 0; d < Y->out.nidx; d++)
			bare |= Y->out.idx[d].len == 0 && strcmp(Y->out.idx[d].start, ns->s[l1[a]].name) == 0;
		if (!bare)
			return 0;
	}
	/* the loop of the first pair's own that the second lacks: its variable a literal */
	for (int skip = p; skip < n1; skip++) {
		int ok = 1;
		for (int a = p, b = p; a < n1 && ok; a++) {
			if (a == skip)
				continue;
			ok = strcmp(ns->s[l1[a]].name, ns->s[l2[b]].name) == 0 && ns->s[l1[a]].hi == ns->s[l2[b]].hi;
			b++;
		}
		const char *v = ns->s[l1[skip]].name;
		if (!ok || !nest_ref_uses(&Y->out, v))
			continue;
		for (int64_t c = 0; c < ns->s[l1[skip]].hi; c++) {
			char lit[24];
			snprintf(lit, sizeof lit, "%lld", (long long)c);
			NsStmt a = *X, b = *X2;
			normal(&a, ns, v, lit);
			normal(&b, ns, NULL, NULL);
			if (!nest_same_load(ns, &a, &b))
				continue;
			*with = Y->out;
			for (int d = 0; d < with->nidx; d++)
				if (nest_subst_var(with->idx[d].start, sizeof with->idx[d].start, v, lit) != 0)
					return 0;
			return 1;
		}
	}
	return 0;
}

int
nest_reuse(Nest *ns)
{
	int n = ns->n, nv = ns->nvars, done = 0;
	if (!n)
		return 0;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	int *defat = malloc(sizeof(int) * (size_t)(nv + 1)), *at = malloc(sizeof(int) * (size_t)(nv + 1));
	char *drop = calloc((size_t)n + 1, 1);
	NsRef *with = NULL;   /* per pair removed: the buffer's tile its readers take (at[u]) */
	if (!up || !endof || !defat || !at || !drop)
		ax_die("out of memory");
	for (int v = 0; v < nv; v++)
		at[v] = -1;
	nest_loops(ns, up, endof);
	for (int v = 0; v < nv; v++)
		defat[v] = -1;
	for (int i = 0; i < n; i++)
		if ((ns->s[i].kind == NS_INST || ns->s[i].kind == NS_BUF) && ns->s[i].var >= 0 && ns->s[i].var < nv &&
		    defat[ns->s[i].var] < 0)
			defat[ns->s[i].var] = i;
	for (int x = 0; x + 1 < n; x++) {
		NsStmt *X = &ns->s[x], *Y = &ns->s[x + 1];
		int rd, wr;
		if (drop[x] || X->kind != NS_INST || X->out.var != NS_NONE || X->var < 0 || Y->kind != NS_INST || Y->out.var < 0 ||
		    Y->opnd[0].var != X->var || Y->opnd[0].nidx)
			continue;
		refs_of(ns, 0, n, X->var, &rd, &wr);
		if (rd != 1)
			continue;
		int B = Y->out.var;
		for (int x2 = x + 2; x2 + 1 < n; x2++) {
			NsRef tile;
			int from;
			if (drop[x2] || !again(ns, up, endof, defat, x, x2, &tile, &from))
				continue;
			int t = ns->s[x2].var, u = ns->s[x2 + 1].var, rt, wt, ok = 1;
			refs_of(ns, 0, n, t, &rt, &wt);
			ok = rt == 1;
			/* nothing between writes the buffer (after the first pair's own loops), nothing from
			 * the first of those loops on what X reads */
			int own = up[x];
			while (own >= 0 && up[own] >= 0 && endof[up[own]] < x2)
				own = up[own];
			if (own < 0)
				continue;
			refs_of(ns, from, x2, B, &rd, &wr);
			ok &= wr == 0;
			const AxOp *op = &ns->g->t->insts[X->inst];
			for (int o = 0; o < op->nopnd && o < AX_MAXOPND && ok; o++) {
				int v = X->opnd[o].var;
				if (v == NS_NONE)
					continue;
				if (v >= 0) {
					refs_of(ns, own, x2, v, &rd, &wr);
					ok = wr == 0;
				} else
					for (int i = own; i < x2 && ok; i++) {
						NsRef *r[AX_MAXOPND + 2];
						int w[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, w);
						for (int k = 0; k < nr; k++)
							ok &= !(w[k] && r[k]->var < 0);
					}
			}
			for (int i = x2 + 2; i < n && ok; i++) {   /* u read whole only */
				NsRef *r[AX_MAXOPND + 2];
				int w[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, w);
				for (int k = 0; k < nr; k++)
					ok &= r[k]->var != u || (!w[k] && !r[k]->nidx);
			}
			if (!ok || u < 0 || u >= nv)
				continue;
			with = realloc(with, sizeof *with * (size_t)(done + 1));
			if (!with)
				ax_die("out of memory");
			with[done] = tile;
			at[u] = done++;
			drop[x2] = drop[x2 + 1] = 1;
		}
	}
	if (done) {   /* the buffers now live longer: kept only if the tiles still fit */
		NsStmt *o = malloc(sizeof *o * (size_t)n);
		int no = 0;
		if (!o)
			ax_die("out of memory");
		for (int i = 0; i < n; i++) {
			if (drop[i])
				continue;
			o[no] = ns->s[i];
			NsRef *r[AX_MAXOPND + 2];
			int w[AX_MAXOPND + 2], nr = nest_refs(ns, &o[no], r, w);
			for (int k = 0; k < nr; k++)
				if (r[k]->var >= 0 && r[k]->var < nv && at[r[k]->var] >= 0) {
					AxShape sh = r[k]->shape;
					*r[k] = with[at[r[k]->var]];
					r[k]->shape = sh;
				}
			no++;
		}
		no = nest_drop_empty(o, no);
		if (!nest_install(ns, o, no, nv))
			done = 0;
		free(o);
	}
	free(up), free(endof), free(defat), free(at), free(drop), free(with);
	return done;
}
