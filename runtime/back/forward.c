/*
 * forward.c — consecutive loop nests merged, the tensors between them kept
 * on chip (one pass over a candidate's statements, nest.h).
 *
 * Each operation (or loop-fused group of them) is a loop nest of its own,
 * and what one nest makes and a later one reads goes to HBM and back.
 * Where consecutive nests open with the same loops (variables, trip counts
 * and kinds, each loop the only statement of the one around it), they are
 * merged into one nest over those loops, and each tensor one of them
 * writes and a later one reads is kept in a buffer on chip per iteration
 * instead, if every iteration of the later nest reads only what the same
 * iteration of the earlier one wrote.  That is checked on the slices: each
 * slice start is an affine expression of loop variables; per iteration of
 * the shared loops, each statement storing the tensor covers a box of it
 * without gaps, the boxes of all of them (tails included) join into one,
 * and every load reads inside it.  The buffer holds that box: the tiles'
 * partition dim in tiles of the largest partition extent any access takes,
 * its other dims as they are.  The instruction that made a stored tile
 * writes it into the buffer (the tile is read by the store alone); the
 * uses of a loaded tile read the buffer.  The tensor is still stored where
 * a statement after the merged nest reads it inside the box the nest's
 * iterations write, or it is a result; a statement after it may read or
 * write other parts of it (a tail tile's rows, sink.c); a store the same at
 * every iteration that no load of the nests reads, apart from the stores
 * that stay (a tail row only a statement after them reads), stays a store
 * and out of the buffer; a loop of one trip adds nothing to a box.  Returns
 * how many merges were made.
 *
 * A merge is not made if a tensor crossing between its nests cannot be kept
 * so (it would be read from HBM in the iteration that wrote it), if no
 * tensor crosses (nothing to gain), or if the merged nest's tiles do not fit
 * on chip (nest_room).  Runs sharing more loops are merged first, the
 * longest run first; the pass repeats until no merge is made.  Which
 * tensors can be kept, and their buffers: forward_plan.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "forward_impl.h"

static void
fw_scan(Fw *f)
{
	const Nest *ns = f->ns;
	f->n = ns->n;
	f->nn = 0;
	nest_loops(ns, f->up, f->endof);
	for (int v = 0; v < ns->nvars; v++)
		f->def[v] = -1, f->uses[v] = 0, f->wrt[v] = 0;
	for (int i = 0; i < ns->n; i++) {
		NsStmt *s = &ns->s[i];
		if (s->kind == NS_LOOP && s->depth == 0 && f->nn < MAXNEST)
			f->st[f->nn++] = i;
		if ((s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 && s->var < ns->nvars)
			f->def[s->var] = i;
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, s, r, wr);
		for (int k = 0; k < nr; k++)
			if (r[k]->var >= 0 && r[k]->var < ns->nvars)
				f->uses[r[k]->var]++, f->wrt[r[k]->var] |= wr[k] != 0;
	}
	for (int m = 0; m < f->nn; m++) {
		int a = f->st[m], e = f->endof[a], k = 0;
		f->en[m] = e;
		while (a + k < e - k && ns->s[a + k].kind == NS_LOOP && f->endof[a + k] == e - k && k < MAXDEPTH)
			k++;
		f->perf[m] = e < 0 ? 0 : k;
		f->nsp[m] = nest_spine(ns, f->up, f->endof, a, f->sp[m], MAXDEPTH);
	}
	for (int id = 0; id < ns->g->nnodes; id++)
		f->base[id] = id;
	for (int i = 0; i < ns->n; i++)   /* views in order: an operand's view comes first */
		if (ns->s[i].kind == NS_VIEW) {
			const AxNode *nd = &ns->g->nodes[ns->s[i].node];
			f->base[ns->s[i].node] = nd->nin == 1 && nd->in[0] >= 0 ? f->base[nd->in[0]] : -2;
		}
}

static int
same_loops(const Fw *f, int a, int b, int K)
{
	for (int i = 0; i < K; i++) {
		const NsStmt *x = &f->ns->s[f->sp[a][i]], *y = &f->ns->s[f->sp[b][i]];
		if (strcmp(x->name, y->name) != 0 || x->hi != y->hi || x->seq != y->seq)
			return 0;
	}
	return 1;
}

/* Only declarations and notes between nests m and m + 1? */
static int
gap_ok(const Fw *f, int m)
{
	for (int i = f->en[m] + 1; i < f->st[m + 1]; i++) {
		int k = f->ns->s[i].kind;
		if (k != NS_TENSOR && k != NS_VIEW && k != NS_NOTE && k != NS_SIZE)
			return 0;
	}
	return 1;
}

/* the trip count of loop variable v around statement i (0 if none); *shared: one of the group's shared loops */
/* ---- the rewrite ------------------------------------------------------------------------ */

/* Access a's place in buffer var bv, its tile's dims read through r (a ref to the loaded tile, or
 * to the block buffer it was loaded into, whose block dims' variables take r's indices there;
 * NULL: the whole tile); -1 if a start does not fit. */
static int
buffer_ref(const Plan *p, const Acc *a, int bv, const NsRef *r, int nslot, NsRef *b)
{
	Aff sub[AX_MAXR];   /* slot variable j := r's index along block dim j */
	for (int j = 0; j < nslot; j++)
		if (aff_parse(r->idx[1 + j].start, &sub[j]) != 0)
			return -1;
	/* r's dims of the tile: the partition dim first, the others after the block dims */
	const NsDim *rp = r && r->nidx ? &r->idx[0] : NULL, *rt = r && r->nidx ? r->idx + nslot : NULL;
	*b = (NsRef){ .var = bv };
	int q = 1, dims[1 + AX_MAXR], nd = 0;
	dims[nd++] = p->dp;
	dims[nd++] = -1;   /* the tile */
	for (int j = 0; j < p->nfd; j++)
		dims[nd++] = p->fd[j];
	for (int k = 0; k < nd; k++) {
		Aff x = { 0 };
		int64_t len = 0;
		int d = dims[k];
		if (d < 0) {
			x = a->in[p->dp];
			for (int j = 0; j < x.n; j++)
				x.k[j] /= p->P;
			x.c /= p->P;
		} else if (d == p->dp) {
			len = rp ? rp->len : a->len[d];
			if (rp && aff_parse(rp->start, &x) != 0)
				return -1;
		} else {
			x = a->in[d];
			len = a->len[d];
			if (len > 0 && rt) {
				Aff y;
				if (aff_parse(rt[q].start, &y) != 0 || aff_add(&x, &y, 1) != 0)
					return -1;
				len = rt[q++].len;
			}
		}
		for (int j = 0; j < nslot; j++) {
			int64_t c = aff_coef(&x, a->slot[j]);
			if (c && (aff_term(&x, a->slot[j], -c) != 0 || aff_add(&x, &sub[j], c) != 0))
				return -1;
		}
		NsDim *o = &b->idx[b->nidx++];
		o->len = len;
		if (aff_print(&x, o->start, sizeof o->start) != 0)
			return -1;
	}
	return 0;
}

static void
drop(NsStmt *s)
{
	s->kind = -1;
}

/* The forwards of the group applied to w (a copy of the statements); -1 if a start does not fit. */
static int
rewrite(Fw *f, NsStmt *w)
{
	const Nest *ns = f->ns;
	for (int pi = 0; pi < f->np; pi++) {
		const Plan *p = &f->plan[pi];
		int bv = ns->nvars + pi;
		if (!p->outside && !p->after)
			for (int i = 0; i < ns->n; i++)
				if (w[i].kind == NS_TENSOR && w[i].node == p->node)
					drop(&w[i]);
		for (int k = 0; k < p->nacc; k++) {
			const Acc *a = &p->acc[k];
			NsStmt *s = &w[a->st];
			NsRef b;
			if (a->write) {
				if (buffer_ref(p, a, bv, NULL, 0, &b) != 0)
					return -1;
				if (a->src < 0) {   /* the store of a slot becomes its copy into the buffer */
					b.shape = s->opnd[0].shape;
					s->inst = a->cinst;
					s->engine = a->ceng;
					s->mem = p->mem;
					s->out = b;
					for (int q = 0; q < AX_MAXATTR; q++)
						s->attr[q] = 0, s->aval[q] = 0, s->aterm[q] = NULL;
					continue;
				}
				b.shape = w[a->src].shape;
				w[a->src].out = b;
				if (p->outside)
					*(s->kind == NS_INST ? &s->opnd[0] : &s->src) = b;
				else
					drop(s);
				continue;
			}
			int v = a->dbuf >= 0 ? s->out.var : s->var;
			int from = a->dbuf >= 0 ? a->dbuf : a->st, to = f->up[a->st] >= 0 ? f->endof[f->up[a->st]] : ns->n - 1;
			if (a->dbuf >= 0)
				to = f->up[a->dbuf] >= 0 ? f->endof[f->up[a->dbuf]] : ns->n - 1;
			for (int i = 0; i < ns->n; i++) {
				NsRef *r[AX_MAXOPND + 2];
				int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &w[i], r, wr);
				for (int j = 0; j < nr; j++) {
					if (r[j]->var != v || i == a->st)
						continue;
					if (i < from || i > to || (a->dbuf >= 0 && r[j]->nidx != ns->s[a->dbuf].shape.rank) ||
					    buffer_ref(p, a, bv, r[j], a->nslot, &b) != 0)
						return -1;
					b.shape = r[j]->shape;
					*r[j] = b;
				}
			}
			drop(s);
			if (a->dbuf >= 0)
				drop(&w[a->dbuf]);
		}
	}
	return 0;
}

/* Nests a..e merged over their K shared loops, if every tensor crossing between them can be
 * kept on chip and the result fits; 1 if made. */
static int
try_group(Fw *f, int a, int e, int K)
{
	Nest *ns = f->ns;
	const AxGraph *g = ns->g;
	f->K = K;
	f->ga = a;
	f->lo = f->st[a];
	f->hi = f->en[e];
	f->np = 0;
	for (int i = f->lo, m = a; i <= f->hi; i++) {
		while (m < e && i > f->en[m])
			m++;
		f->nest[i - f->lo] = i < f->st[m] ? -1 : m - a;
	}
	int *wn = malloc(sizeof(int) * (size_t)g->nnodes);
	if (!wn)
		ax_die("out of memory");
	for (int id = 0; id < g->nnodes; id++)
		wn[id] = -1;
	int ok = 1;
	for (int i = f->lo; i <= f->hi && ok; i++) {   /* which nest writes each tensor */
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, wr), m = f->nest[i - f->lo];
		for (int k = 0; k < nr; k++) {
			if (!wr[k] || r[k]->var >= 0 || r[k]->var == NS_NONE)
				continue;
			int node = -1 - r[k]->var, b = f->base[node];
			if (b < 0 || b != node)
				ok = 0;   /* written through a view */
			else
				wn[b] = wn[b] == -1 || wn[b] == m ? m : -2;
		}
	}
	for (int i = f->lo; i <= f->hi && ok; i++) {   /* the tensors crossing */
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, wr), m = f->nest[i - f->lo];
		for (int k = 0; k < nr && ok; k++) {
			if (wr[k] == 1 || r[k]->var >= 0 || r[k]->var == NS_NONE)
				continue;
			int node = -1 - r[k]->var, b = f->base[node];
			if (b == -2) {
				const AxNode *nd = &g->nodes[node];
				for (int o = 0; o < nd->nin; o++)
					ok &= nd->in[o] < 0 || wn[nd->in[o]] == -1;
				continue;
			}
			if (wn[b] == -1 || wn[b] == m)
				continue;
			if (wn[b] == -2 || b != node || wn[b] > m) {
				ok = 0;
				continue;
			}
			int have = 0;
			for (int pi = 0; pi < f->np; pi++)
				have |= f->plan[pi].node == b;
			if (have)
				continue;
			if (f->np == MAXFWD || fw_plan_tensor(f, b, wn[b], &f->plan[f->np]) != 0)
				ok = 0;
			else
				f->np++;
		}
	}
	if (!ok || !f->np) {
		free(wn);
		return 0;
	}
	/* a view between the nests of a tensor the group writes is declared after the merged nest
	 * (in the C rendering a view is made where it is declared; none of the group reads it) */
	for (int i = 0; i < ns->n; i++)
		if (ns->s[i].kind == NS_VIEW) {
			const AxNode *nd = &g->nodes[ns->s[i].node];
			for (int o = 0; o < nd->nin; o++)
				if (nd->in[o] >= 0 && wn[nd->in[o]] != -1)
					wn[ns->s[i].node] = -3;
		}
	/* the merged statements: declarations between the nests first, then nest a without its last
	 * K ends and with the buffers after its K loops, the others' bodies (their notes at depth K),
	 * the K ends */
	NsStmt *w = malloc(sizeof *w * (size_t)ns->n);
	NsStmt *o = malloc(sizeof *o * (size_t)(ns->n + f->np));
	if (!w || !o)
		ax_die("out of memory");
	memcpy(w, ns->s, sizeof *w * (size_t)ns->n);
	int no = 0;
	if (rewrite(f, w) != 0) {
		free(w);
		free(o);
		free(wn);
		return 0;
	}
#define PUT(i) do { if (w[i].kind >= 0) o[no++] = w[i]; } while (0)
	for (int i = 0; i < f->lo; i++)
		PUT(i);
	for (int m = a; m < e; m++)
		for (int i = f->en[m] + 1; i < f->st[m + 1]; i++)
			if (w[i].kind != NS_NOTE && !(w[i].kind == NS_VIEW && wn[w[i].node] != -1))
				PUT(i);
	for (int i = f->st[a]; i <= f->en[a] - K; i++) {
		PUT(i);
		if (i == f->sp[a][K - 1])
			for (int pi = 0; pi < f->np; pi++) {
				NsStmt *b = &o[no++];
				*b = (NsStmt){ .kind = NS_BUF, .depth = K, .var = ns->nvars + pi, .mem = f->plan[pi].mem,
				               .shape = f->plan[pi].shape, .node = -1 };
				b->out.var = b->src.var = NS_NONE;
			}
	}
	for (int m = a + 1; m <= e; m++) {
		for (int i = f->en[m - 1] + 1; i < f->st[m]; i++)
			if (w[i].kind == NS_NOTE) {
				w[i].depth = K;
				PUT(i);
			}
		for (int i = f->st[m] + K; i <= f->en[m] - K; i++)
			PUT(i);
	}
	for (int i = f->en[e] - K + 1; i <= f->en[e]; i++)
		PUT(i);
	for (int m = a; m < e; m++)
		for (int i = f->en[m] + 1; i < f->st[m + 1]; i++)
			if (w[i].kind == NS_VIEW && wn[w[i].node] != -1)
				PUT(i);
	for (int i = f->en[e] + 1; i < ns->n; i++)
		PUT(i);
#undef PUT
	free(wn);
	free(w);
	no = nest_drop_empty(o, no);
	int made = nest_install(ns, o, no, ns->nvars + f->np);
	free(o);
	return made;
}

int
nest_forward(Nest *ns)
{
	int merged = 0;
	int nodes = ns->g->nnodes, nins = ns->g->t->ninsts;
	Fw *f = malloc(sizeof *f);   /* every field set before it is read */
	if (!f)
		ax_die("out of memory");
	f->ns = ns;
	f->copy = malloc(sizeof(int) * (size_t)(nins > 0 ? nins : 1));
	f->base = malloc(sizeof(int) * (size_t)(nodes > 0 ? nodes : 1));
	if (!f->copy || !f->base)
		ax_die("out of memory");
	for (int k = 0; k < nins; k++)
		f->copy[k] = -1;
	for (int round = 0; round < MAXNEST; round++) {
		int n = ns->n + MAXFWD, nv = ns->nvars + 1;
		f->up = malloc(sizeof(int) * (size_t)n);
		f->endof = malloc(sizeof(int) * (size_t)n);
		f->nest = malloc(sizeof(int) * (size_t)n);
		f->def = malloc(sizeof(int) * (size_t)nv);
		f->uses = malloc(sizeof(int) * (size_t)nv);
		f->wrt = malloc(sizeof(int) * (size_t)nv);
		if (!f->up || !f->endof || !f->nest || !f->def || !f->uses || !f->wrt)
			ax_die("out of memory");
		fw_scan(f);
		int done = 0, maxk = 0;
		for (int m = 0; m < f->nn; m++)
			maxk = f->nsp[m] > maxk ? f->nsp[m] : maxk;
		for (int K = maxk; K >= 1 && !done; K--)
			for (int a = 0; a + 1 < f->nn && !done; a++) {
				if (f->nsp[a] < K)
					continue;
				int b = a;
				while (b + 1 < f->nn && f->perf[b + 1] >= K && gap_ok(f, b) && same_loops(f, a, b + 1, K))
					b++;
				for (int e = b; e > a && !done; e--)
					done = try_group(f, a, e, K);
			}
		free(f->up);
		free(f->endof);
		free(f->nest);
		free(f->def);
		free(f->uses);
		free(f->wrt);
		if (!done)
			break;
		merged++;
	}
	free(f->copy);
	free(f->base);
	free(f);
	return merged;
}

