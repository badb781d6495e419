/*
 * prefetch.c — loads out of the loops over a block's tiles (one pass over
 * a candidate's statements, nest.h).
 *
 * A loop nest with blocks makes the loads of its own operation once per
 * block, before the loops over the block's tiles (emit_tile.c, block
 * loads).  The producers fused into it whose loop needs a blocked axis are
 * made per tile, inside those loops, with their own loads.  This pass
 * moves such loads out: each load in the body of a chain of loops marked
 * `fetch` (the loops over a block's tiles, emit_kernel.c marks them) that
 * reads only off-chip tensors no statement of the chain writes is made in
 * loops of its own before the chain, into a block buffer with a dim per
 * loop of the chain that its slices use, and every later use of its value
 * in the chain reads the buffer's tile at those loops' indices (a bias row
 * beside a block of row tiles is loaded once per column tile, not once per
 * row tile as well).  So the transfers of a block go
 * out ahead of its compute (the DMA queues run in program order), as the
 * operation's own block loads do.  A load an earlier chain of the same
 * loops (same variables and trip counts) already moved into a buffer that
 * is still in scope, of a tensor nothing wrote since, is not made again:
 * the chain reads that buffer (the parts of a split concatenation, each
 * its own chain, reading the same tile of X).  A load of folded rows
 * (emit_fold.c) whose row is the loop's variable is one transfer of the
 * loop's tiles into one tile (partition, tiles, ...), with no loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nest.h"

enum { MAXCHAIN = 4, MAXLOADS = 16, MAXMADE = 64 };

typedef struct Made {        /* a load an earlier chain moved into a buffer */
	NsStmt ld;
	int buf, depth, at;      /* its buffer, the depth it is declared at, where in out[] */
	int nc;
	char loop[MAXCHAIN][24];
	int64_t hi[MAXCHAIN];
} Made;

typedef struct Fetch {
	Made made[MAXMADE];
	int n;
} Fetch;

/* Does a statement of s[lo, hi) write off-chip tensor node `node`? */
static int
writes_tensor(const NsStmt *st, int lo, int hi, int node)
{
	for (int i = lo; i < hi; i++) {
		const NsStmt *s = &st[i];
		if ((s->kind == NS_INST || s->kind == NS_STORE) && s->out.var < 0 && s->out.var != NS_NONE &&
		    -1 - s->out.var == node)
			return 1;
	}
	return 0;
}

static void
rewrite(NsRef *r, int var, int buf, const NsStmt *const *chain, int nc, const AxShape *tile)
{
	if (r->var == var)
		*r = nest_chain_ref(r, buf, chain, nc, tile);
}

/* The chain of fetch loops starting at statement at: how many (directly
 * nested, each the first statement of the one around it), and the end of
 * the innermost's body. */
static int
chain_at(const Nest *ns, int at, int *body, int *end)
{
	int nc = 0, i = at;
	while (i < ns->n && ns->s[i].kind == NS_LOOP && ns->s[i].fetch && nc < MAXCHAIN) {
		nc++;
		i++;
	}
	*body = i;
	int depth = ns->s[at].depth + nc - 1, j = i;   /* the innermost loop's, and its end's */
	while (j < ns->n && !(ns->s[j].kind == NS_END && ns->s[j].depth == depth))
		j++;
	*end = j;
	return nc;
}

/* Can load ld, made in a chain of one loop over a block's tiles, load them
 * all in one transfer: an operand slice (its only folded one) whose rows
 * in the group are the loop's variable, the fold the loop's trip, its
 * partition dim (emit_fold.c)?  Then operand * 64 + dim, else -1. */
static int
fold_load(const Nest *ns, const NsStmt *ld, const NsStmt *const *chain, int nc)
{
	if (nc != 1)
		return -1;
	const AxOp *op = &ns->g->t->insts[ld->inst];
	int found = -1;
	for (int o = 0; o < op->nopnd && o < AX_MAXOPND; o++) {
		const NsRef *r = &ld->opnd[o];
		if (r->var == NS_NONE)
			continue;
		int first = -1;
		for (int d = 0; d < r->nidx; d++) {
			if (first < 0 && r->idx[d].len > 0)
				first = d;
			if (r->idx[d].fold <= 0)
				continue;
			if (found >= 0 || d != first || r->idx[d].flen || r->idx[d].fold != chain[0]->hi ||
			    strcmp(r->idx[d].fin, chain[0]->name) != 0 || r->shape.rank < 1 || r->shape.rank + 1 > AX_MAXR ||
			    ld->shape.rank != r->shape.rank)
				return -1;
			found = o * 64 + d;
		}
	}
	return found;
}

/* One chain: its loads moved before it; the statements rebuilt in out. */
static int
fetch_chain(Nest *ns, int at, NsStmt *out, int *nout, Fetch *f)
{
	int body, end, nc = chain_at(ns, at, &body, &end);
	const NsStmt *chain[MAXCHAIN];
	for (int k = 0; k < nc; k++)
		chain[k] = &ns->s[at + k];
	int loads[MAXLOADS], nl = 0, depth = ns->s[at].depth + nc;
	for (int i = body; i < end && nl < MAXLOADS; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->depth != depth || !nest_is_load(ns, s, NULL))
			continue;
		const AxOp *op = &ns->g->t->insts[s->inst];
		int ok = s->shape.rank >= 1 && s->shape.rank + nc <= AX_MAXR;
		for (int o = 0; o < op->nopnd && o < AX_MAXOPND && ok; o++)
			if (s->opnd[o].var != NS_NONE)
				ok = !writes_tensor(ns->s, at, end, -1 - s->opnd[o].var);
		for (int j = i + 1; j < end && ok; j++)   /* a value only read after it, never written into */
			ok = ns->s[j].out.var != s->var;
		if (ok)
			loads[nl++] = i;
	}
	if (!nl)
		return 0;
	/* each load's loops: those of the chain its slices use, outermost first */
	const NsStmt *sub[MAXLOADS][MAXCHAIN];
	int nsub[MAXLOADS];
	unsigned mask[MAXLOADS];
	for (int k = 0; k < nl; k++) {
		const NsStmt *ld = &ns->s[loads[k]];
		nsub[k] = 0;
		mask[k] = 0;
		for (int c = 0; c < nc; c++) {
			int uses = 0;
			for (int o = 0; o < AX_MAXOPND && !uses; o++)
				uses = ld->opnd[o].var != NS_NONE && nest_ref_uses(&ld->opnd[o], chain[c]->name);
			if (uses) {
				sub[k][nsub[k]++] = chain[c];
				mask[k] |= 1u << c;
			}
		}
	}
	int bufs[MAXLOADS], fresh[MAXLOADS], folded[MAXLOADS];
	AxShape bshape[MAXLOADS];
	for (int k = 0; k < nl; k++) {   /* the buffers, then the loops making the loads into them */
		const NsStmt *ld = &ns->s[loads[k]];
		fresh[k] = 1;
		folded[k] = -1;
		for (int m = f->n - 1; m >= 0 && fresh[k]; m--) {   /* made by an earlier chain of the same loops */
			const Made *md = &f->made[m];
			int same = md->depth == ns->s[at].depth && md->nc == nsub[k] && nest_same_load(ns, &md->ld, ld);
			for (int c = 0; c < nsub[k] && same; c++)
				same = md->hi[c] == sub[k][c]->hi && strcmp(md->loop[c], sub[k][c]->name) == 0;
			for (int o = 0; o < AX_MAXOPND && same; o++)
				same = ld->opnd[o].var == NS_NONE || ld->opnd[o].var >= 0 ||
				       !writes_tensor(out, md->at, *nout, -1 - ld->opnd[o].var);
			if (same) {
				fresh[k] = 0;
				bufs[k] = md->buf;
			}
		}
		if (!fresh[k])
			continue;
		if (!nsub[k]) {   /* the same tile in every iteration: the load itself made before the chain */
			bufs[k] = ld->var;
			if (f->n < MAXMADE)
				f->made[f->n++] = (Made){ .ld = *ld, .buf = ld->var, .depth = ns->s[at].depth, .at = *nout };
			continue;
		}
		NsStmt *b = &out[(*nout)++];
		*b = (NsStmt){ .kind = NS_BUF, .depth = ns->s[at].depth, .var = ns->nvars++, .mem = ld->mem,
		               .node = ld->node };
		b->out.var = b->src.var = NS_NONE;
		b->shape.d[b->shape.rank++] = ld->shape.d[0];
		for (int c = 0; c < nsub[k]; c++)
			b->shape.d[b->shape.rank++] = sub[k][c]->hi;
		for (int d = 1; d < ld->shape.rank; d++)
			b->shape.d[b->shape.rank++] = ld->shape.d[d];
		bufs[k] = b->var;
		bshape[k] = b->shape;
		folded[k] = fold_load(ns, ld, sub[k], nsub[k]);
		b->onetile = folded[k] >= 0;
		if (f->n < MAXMADE) {
			Made *md = &f->made[f->n++];
			md->ld = *ld;
			md->buf = b->var;
			md->depth = ns->s[at].depth;
			md->at = *nout;
			md->nc = nsub[k];
			for (int c = 0; c < nsub[k]; c++) {
				snprintf(md->loop[c], sizeof md->loop[c], "%s", sub[k][c]->name);
				md->hi[c] = sub[k][c]->hi;
			}
		}
	}
	for (int k = 0; k < nl; k++)   /* a load of folded rows: the chain's tiles in one transfer */
		if (fresh[k] && folded[k] >= 0) {
			NsStmt *s = &out[(*nout)++];
			*s = ns->s[loads[k]];
			s->depth = ns->s[at].depth;
			int o = folded[k] / 64, d = folded[k] % 64;
			NsRef *r = &s->opnd[o];
			snprintf(r->idx[d].fin, sizeof r->idx[d].fin, "0");
			r->idx[d].flen = r->idx[d].fold;
			s->shape = bshape[k];
			r->shape = s->shape;
			s->out = (NsRef){ .var = bufs[k], .nidx = s->shape.rank, .shape = s->shape };
			for (int q = 0; q < s->shape.rank; q++) {
				snprintf(s->out.idx[q].start, sizeof s->out.idx[q].start, "0");
				s->out.idx[q].len = s->shape.d[q];
			}
			s->mem = -1;
		}
	/* the other loads, in loops of their own per set of the chain's loops they use (in the
	 * order of their first load) */
	unsigned done = 0;
	for (int k0 = 0; k0 < nl; k0++) {
		if (!fresh[k0] || folded[k0] >= 0 || (done >> mask[k0] & 1u))
			continue;
		done |= 1u << mask[k0];
		int d0 = ns->s[at].depth;
		for (int c = 0; c < nsub[k0]; c++) {
			out[*nout] = *sub[k0][c];
			out[(*nout)++].depth = d0 + c;
		}
		for (int k = k0; k < nl; k++) {
			if (!fresh[k] || folded[k] >= 0 || mask[k] != mask[k0])
				continue;
			NsStmt *s = &out[(*nout)++];
			*s = ns->s[loads[k]];
			s->depth = d0 + nsub[k];
			if (!nsub[k])
				continue;
			NsRef whole = ns_var(s->var, &s->shape);
			s->out = nest_chain_ref(&whole, bufs[k], sub[k], nsub[k], &s->shape);
			s->mem = -1;
		}
		for (int c = nsub[k0] - 1; c >= 0; c--)
			out[(*nout)++] = (NsStmt){ .kind = NS_END, .depth = d0 + c, .var = NS_NONE, .out.var = NS_NONE,
			                           .src.var = NS_NONE };
	}
	/* the chain itself, without the loads, their values read from the buffers */
	for (int i = at; i <= end && i < ns->n; i++) {
		int moved = -1;
		for (int k = 0; k < nl; k++)
			if (loads[k] == i)
				moved = k;
		if (moved >= 0)
			continue;
		NsStmt *s = &out[(*nout)++];
		*s = ns->s[i];
		for (int k = 0; k < nl; k++) {
			const NsStmt *ld = &ns->s[loads[k]];
			if (bufs[k] == ld->var)   /* made before the chain as it was: read as it is */
				continue;
			for (int o = 0; o < AX_MAXOPND; o++)
				rewrite(&s->opnd[o], ld->var, bufs[k], sub[k], nsub[k], &ld->shape);
			rewrite(&s->out, ld->var, bufs[k], sub[k], nsub[k], &ld->shape);
			rewrite(&s->src, ld->var, bufs[k], sub[k], nsub[k], &ld->shape);
		}
	}
	return end - at + 1;
}

void
nest_prefetch(Nest *ns)
{
	/* a chain adds its loads' buffers and, per set of its loops its loads use, one more loop
	 * and end per loop of the set: at most MAXLOADS + 2 * MAXCHAIN << MAXCHAIN statements per
	 * fetch loop (a statement is ~6 KiB: no more) */
	size_t nfetch = 0;
	for (int i = 0; i < ns->n; i++)
		nfetch += ns->s[i].kind == NS_LOOP && ns->s[i].fetch;
	if (!nfetch)
		return;
	size_t cap = (size_t)ns->n + nfetch * (MAXLOADS + (2 * MAXCHAIN << MAXCHAIN)) + 1;
	size_t outcap, fcap;
	NsStmt *out = ax_spare_take(sizeof *out * cap, &outcap);
	int n = 0;
	Fetch *f = ax_spare_zeroed(sizeof *f, &fcap);
	for (int i = 0; i < ns->n;) {
		if (ns->s[i].kind == NS_LOOP && ns->s[i].fetch) {
			int used = fetch_chain(ns, i, out, &n, f);
			if (used) {
				i += used;
				continue;
			}
		}
		if (ns->s[i].kind == NS_END)   /* a loop closed: the buffers declared in it are out of scope */
			while (f->n && f->made[f->n - 1].depth > ns->s[i].depth)
				f->n--;
		out[n++] = ns->s[i++];
	}
	ax_spare_give(f, fcap);
	ax_spare_give(ns->s, sizeof *ns->s * (size_t)ns->cap);
	ns->s = out;
	ns->n = n;
	ns->cap = (int)(outcap / sizeof *out);
}
