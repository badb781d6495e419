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
 * a statement after the merged nest reads it or it is a result.
 *
 * A merge is not made if a tensor crossing between its nests cannot be kept
 * so (it would be read from HBM in the iteration that wrote it), if no
 * tensor crosses (nothing to gain), or if the merged nest's tiles do not fit
 * on chip (nest_room).  Runs sharing more loops are merged first, the
 * longest run first; the pass repeats until no merge is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "affine.h"
#include "nest.h"

enum { MAXNEST = 64, MAXACC = 32, MAXFWD = 4, MAXDEPTH = 16 };

/* ---- the statements' structure ------------------------------------------------------------ */

typedef struct Acc {          /* one access to a forwarded tensor */
	int st;                  /* its statement */
	int write;
	int src;                 /* a write: the statement making the stored tile (-1: a block buffer's slot) */
	int cinst, ceng;         /* ... a slot's: the copy into the buffer that takes the store's place */
	int dbuf;                /* a load into a block buffer: that buffer's statement (-1: into its own tile) */
	int nslot;               /* ... the buffer's block dims, each a loop variable (slot[]) */
	char slot[AX_MAXR][24];
	int64_t len[AX_MAXR];    /* per dim of the tensor (0: one index) */
	Aff in[AX_MAXR];         /* the start less its part over the shared loops */
	Aff out[AX_MAXR];        /* ... that part */
	int64_t lo[AX_MAXR], hi[AX_MAXR];
} Acc;

typedef struct Plan {         /* a tensor kept on chip */
	int node, outside, mem, dp, nfd, fd[AX_MAXR];
	int64_t P, ntiles;
	AxShape shape;           /* the buffer's: (P, ntiles, the box along fd[]...) */
	int64_t rlo[AX_MAXR];
	int nacc;
	Acc acc[MAXACC];
} Plan;

typedef struct Fw {
	Nest *ns;
	int n;
	int *up, *endof, *def, *uses;   /* per statement: its loop, a loop's end; per variable: its statement, refs */
	int *wrt;                /* per variable: written by a statement (a running value, an accumulation) */
	int nn, st[MAXNEST], en[MAXNEST], perf[MAXNEST];
	int nsp[MAXNEST], sp[MAXNEST][MAXDEPTH];   /* per nest: its spine (loops each the last statement of the one around it) */
	int *base;               /* per node: the tensor a view of it is (itself if none; -2 several) */
	int K, ga;               /* the shared loops of the group tried, its first nest */
	int lo, hi;              /* its statements */
	int *nest;               /* per statement in it: which of the group's nests (0, 1, ...) */
	int *copy;               /* per instruction: lower_is_copy, -1 not known yet */
	Plan plan[MAXFWD];
	int np;
} Fw;

static int
is_copy(Fw *f, int inst)
{
	if (f->copy[inst] < 0)
		f->copy[inst] = lower_is_copy(f->ns->g->t, f->ns->g->tc, inst);
	return f->copy[inst];
}

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
		f->nsp[m] = 0;
		for (int l = a; e >= 0 && l >= 0 && f->nsp[m] < MAXDEPTH;) {
			f->sp[m][f->nsp[m]++] = l;
			int next = -1;
			for (int i = l + 1; i < f->endof[l]; i++)
				if (ns->s[i].kind == NS_LOOP && f->up[i] == l && f->endof[i] == f->endof[l] - 1)
					next = i;
			l = next;
		}
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
static int64_t
loop_of(const Fw *f, int i, const char *v, int *shared, int *at)
{
	for (int l = f->up[i]; l >= 0; l = f->up[l])
		if (strcmp(f->ns->s[l].name, v) == 0) {
			int d = f->ns->s[l].depth, m = l >= f->lo && l <= f->hi ? f->nest[l - f->lo] : -1;
			*shared = m >= 0 && d < f->K && f->sp[f->ga + m][d] == l;
			if (at)
				*at = l;
			return f->ns->s[l].hi;
		}
	return 0;
}

/* Is loop statement l around statement i? */
static int
encloses(const Fw *f, int l, int i)
{
	for (int u = f->up[i]; u >= 0; u = f->up[u])
		if (u == l)
			return 1;
	return 0;
}

/* Is statement i (of the group) inside the shared loops?  Nest a's statements before one of its
 * spine loops are not, and the buffers are made inside them. */
static int
inside(const Fw *f, int i)
{
	int m = i >= f->lo && i <= f->hi ? f->nest[i - f->lo] : -1;
	return m >= 0 && encloses(f, f->sp[f->ga + m][f->K - 1], i);
}

/* An access of statement i to the tensor through ref r: its box per iteration of the shared loops. */
static int
access_box(Fw *f, int i, const NsRef *r, int rank, const AxShape *ts, Acc *a)
{
	if (r->ellipsis || (r->nidx && r->nidx != rank))
		return -1;
	uint32_t seen = 0;
	for (int d = 0; d < rank; d++) {
		Aff s;
		int64_t len = ts->d[d];
		if (r->nidx) {
			if (r->idx[d].fold > 0 || aff_parse(r->idx[d].start, &s) != 0)
				return -1;
			len = r->idx[d].len;
		} else
			s = (Aff){ 0 };
		a->len[d] = len;
		a->in[d] = (Aff){ .c = s.c };
		a->out[d] = (Aff){ 0 };
		a->lo[d] = a->hi[d] = s.c;
		int64_t kk[AFF_MAXV], hh[AFF_MAXV];
		int nk = 0;
		for (int j = 0; j < s.n; j++) {
			if (!s.k[j])
				continue;
			int shared = 0, at = -1;
			int64_t hi = loop_of(f, i, s.v[j], &shared, &at);
			if (hi <= 0)
				return -1;
			if (aff_term(shared ? &a->out[d] : &a->in[d], s.v[j], s.k[j]) != 0)
				return -1;
			if (shared)
				continue;
			int bit = (at - f->lo) & 31;   /* a loop variable in two dims: not a box */
			if (a->write && (seen >> bit & 1u))
				return -1;
			seen |= 1u << bit;
			(s.k[j] < 0 ? a->lo : a->hi)[d] += s.k[j] * (hi - 1);
			kk[nk] = s.k[j];
			hh[nk++] = hi;
		}
		a->hi[d] += len > 0 ? len : 1;
		if (!a->write)
			continue;
		/* a store's tiles cover its box without gaps: by increasing stride, each at most what the
		 * smaller ones cover */
		for (int x = 0; x < nk; x++)
			for (int y = x + 1; y < nk; y++)
				if (kk[y] < kk[x]) {
					int64_t t = kk[x], u = hh[x];
					kk[x] = kk[y], hh[x] = hh[y];
					kk[y] = t, hh[y] = u;
				}
		int64_t cover = len > 0 ? len : 1;
		for (int x = 0; x < nk; x++) {
			if (kk[x] <= 0 || kk[x] > cover)
				return -1;
			cover += kk[x] * (hh[x] - 1);
		}
	}
	return 0;
}

/* Boxes a and b of the same shared part: b inside a? */
static int
box_in(const Acc *a, const Acc *b, int rank)
{
	for (int d = 0; d < rank; d++)
		if (!aff_eq(&a->out[d], &b->out[d]) || b->lo[d] < a->lo[d] || b->hi[d] > a->hi[d])
			return 0;
	return 1;
}

/* The union of the stores' boxes as one box (-1 if it is none). */
static int
join_boxes(const Plan *p, int rank, Acc *box)
{
	Acc b[MAXACC];
	int n = 0;
	for (int k = 0; k < p->nacc; k++)
		if (p->acc[k].write)
			b[n++] = p->acc[k];
	for (int changed = 1; changed && n > 1;) {
		changed = 0;
		for (int x = 0; x < n && !changed; x++)
			for (int y = x + 1; y < n && !changed; y++) {
				int diff = -1, ok = 1;
				for (int d = 0; d < rank && ok; d++) {
					if (!aff_eq(&b[x].out[d], &b[y].out[d]))
						ok = 0;
					else if (b[x].lo[d] != b[y].lo[d] || b[x].hi[d] != b[y].hi[d])
						ok = diff < 0 ? (diff = d, 1) : 0;
				}
				if (!ok)
					continue;
				if (diff >= 0) {
					if (b[y].lo[diff] > b[x].hi[diff] || b[x].lo[diff] > b[y].hi[diff])
						continue;   /* apart */
					b[x].lo[diff] = b[x].lo[diff] < b[y].lo[diff] ? b[x].lo[diff] : b[y].lo[diff];
					b[x].hi[diff] = b[x].hi[diff] > b[y].hi[diff] ? b[x].hi[diff] : b[y].hi[diff];
				}
				b[y] = b[--n];
				changed = 1;
			}
	}
	if (n != 1)
		return -1;
	*box = b[0];
	return 0;
}

/* The statement whose tile statement i stores into the tensor (-1 if it cannot write into a buffer). */
static int
stored_tile(Fw *f, const NsRef *x)
{
	const Nest *ns = f->ns;
	if (x->var < 0 || x->var >= ns->nvars || x->nidx || f->uses[x->var] != 1)
		return -1;
	int d = f->def[x->var];
	if (d < f->lo || d > f->hi)
		return -1;
	const NsStmt *s = &ns->s[d];
	const AxTarget *t = ns->g->t;
	if (s->kind != NS_INST || s->out.var != NS_NONE || s->mem < 0 || t->mems[s->mem].offchip || t->mems[s->mem].banks > 0)
		return -1;
	return d;
}

/* A store of a block buffer's slot x (its instruction s): the copy on chip that can take its place
 * into a buffer in the slot's memory (*mem), its instruction (a->cinst, a->ceng); -1 if none. */
static int
slot_copy(Fw *f, const NsStmt *s, const NsRef *x, Acc *a, int *mem)
{
	const Nest *ns = f->ns;
	const AxTarget *t = ns->g->t;
	int d = x->var >= 0 && x->var < ns->nvars && x->nidx ? f->def[x->var] : -1;
	if (s->kind != NS_INST || d < f->lo || d > f->hi || ns->s[d].kind != NS_BUF || ns->s[d].mem < 0 ||
	    t->mems[ns->s[d].mem].offchip || t->mems[ns->s[d].mem].banks > 0)
		return -1;
	for (int k = 0; k < t->ninsts; k++)
		is_copy(f, k);
	*mem = ns->s[d].mem;
	a->cinst = nest_copy_choice(ns, s, *mem, *mem, f->copy, &a->ceng);
	return a->cinst < 0 ? -1 : 0;
}

/* A load's use through a block buffer: its block dims loop variables of loops around the load
 * but not around the buffer; 0 = ok. */
static int
load_into_buffer(Fw *f, int i, Acc *a)
{
	const Nest *ns = f->ns;
	const NsStmt *s = &ns->s[i];
	int D = s->out.var, db = D >= 0 && D < ns->nvars ? f->def[D] : -1;
	if (db < 0 || ns->s[db].kind != NS_BUF || ns->s[db].onetile)
		return -1;
	const AxShape *bs = &ns->s[db].shape;
	int m = bs->rank - s->shape.rank;
	if (m < 0 || s->out.nidx != bs->rank)
		return -1;
	for (int j = 0; j < ns->n; j++)   /* the load its one writer */
		if (j != i && ns->s[j].out.var == D && ns->s[j].kind != NS_LOOP)
			return -1;
	Aff z;
	if (aff_parse(s->out.idx[0].start, &z) != 0 || z.c || z.n || s->out.idx[0].len != s->shape.d[0])
		return -1;
	for (int q = 1; q < s->shape.rank; q++) {
		const NsDim *x = &s->out.idx[m + q];
		if (aff_parse(x->start, &z) != 0 || z.c || z.n || x->len != s->shape.d[q])
			return -1;
	}
	for (int j = 0; j < m; j++) {
		const NsDim *x = &s->out.idx[1 + j];
		int shared = 0, at = -1;
		if (x->len || aff_parse(x->start, &z) != 0 || z.c || z.n != 1 || z.k[0] != 1 ||
		    loop_of(f, i, z.v[0], &shared, &at) <= 0 || encloses(f, at, db))
			return -1;
		snprintf(a->slot[j], sizeof a->slot[j], "%s", z.v[0]);
	}
	a->dbuf = db;
	a->nslot = m;
	return 0;
}

/* Are the variables of access a's place in the buffer loops around where it is written (the
 * instruction making a stored tile) or read (a loaded tile's uses; a block buffer's: its slot
 * variables or loops around the buffer)? */
static int
in_scope(const Fw *f, const Acc *a, int rank)
{
	int at = a->write && a->src >= 0 ? a->src : a->dbuf >= 0 ? a->dbuf : a->st;
	for (int d = 0; d < rank; d++)
		for (int j = 0; j < a->in[d].n; j++) {
			int shared = 0, slot = 0;
			for (int q = 0; q < a->nslot; q++)
				slot |= strcmp(a->slot[q], a->in[d].v[j]) == 0;
			if (a->in[d].k[j] && !slot && loop_of(f, at, a->in[d].v[j], &shared, NULL) <= 0)
				return 0;
		}
	return 1;
}

/* The accesses of tensor node T (written in the group's nest wn, read in later ones) and its buffer. */
static int
plan_tensor(Fw *f, int T, int wn, Plan *p)
{
	const Nest *ns = f->ns;
	const AxTarget *t = ns->g->t;
	p->node = T;   /* not zeroed whole: a plan is large, and most are refused early */
	p->outside = p->nacc = p->nfd = 0;
	p->mem = p->dp = -1;
	p->P = 0;
	p->shape.rank = 0;
	const AxShape *ts = NULL;
	for (int i = 0; i < ns->n; i++) {
		NsStmt *s = &ns->s[i];
		if (s->kind == NS_TENSOR && s->node == T) {
			ts = &s->shape;
			p->outside |= s->output;
		}
		if (s->kind == NS_VIEW)   /* a view of it stays declared: so does it */
			for (int o = 0; o < ns->g->nodes[s->node].nin; o++)
				p->outside |= ns->g->nodes[s->node].in[o] == T;
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, s, r, wr);
		for (int k = 0; k < nr; k++) {
			if (r[k]->var >= 0 || r[k]->var == NS_NONE)
				continue;
			int node = -1 - r[k]->var, direct = node == T;
			if (!direct && f->base[node] != T && f->base[node] != -2)
				continue;
			if (i < f->lo || i > f->hi) {   /* after the merged nest: kept in HBM too */
				if (wr[k] || (f->base[node] == -2 && !direct))
					return -1;
				p->outside = 1;
				continue;
			}
			if (!direct || !ts || p->nacc == MAXACC)
				return -1;
			Acc *a = &p->acc[p->nacc++];
			*a = (Acc){ .st = i, .write = wr[k] == 1, .src = -1, .dbuf = -1 };
			if (wr[k] == 2 || (a->write ? f->nest[i - f->lo] != wn : f->nest[i - f->lo] <= wn))
				return -1;
			int mem;
			if (a->write) {
				const NsRef *x = s->kind == NS_INST ? &s->opnd[0] : &s->src;
				if (s->kind == NS_INST && (!is_copy(f, s->inst) || r[k] != &s->out))
					return -1;
				if ((a->src = stored_tile(f, x)) >= 0)
					mem = ns->s[a->src].mem;
				else if (slot_copy(f, s, x, a, &mem) != 0)
					return -1;
			} else {
				if (s->kind != NS_INST || !is_copy(f, s->inst) || r[k] != &s->opnd[0] ||
				    (s->out.var != NS_NONE ? load_into_buffer(f, i, a) != 0 : s->var < 0 || (s->var < ns->nvars && f->wrt[s->var])))
					return -1;
				mem = s->out.var != NS_NONE ? ns->s[a->dbuf].mem : s->mem;
				if (mem < 0 || t->mems[mem].offchip || t->mems[mem].banks > 0)
					return -1;
			}
			if (p->mem >= 0 && mem != p->mem)
				return -1;
			p->mem = mem;
			if (!inside(f, i) || (a->src >= 0 && !inside(f, a->src)) || (a->dbuf >= 0 && !inside(f, a->dbuf)) ||
			    access_box(f, i, r[k], ts->rank, ts, a) != 0 || !in_scope(f, a, ts->rank))
				return -1;
			int dp = 0;
			while (dp < ts->rank && a->len[dp] == 0)
				dp++;
			if (dp == ts->rank || (p->dp >= 0 && dp != p->dp))
				return -1;
			p->dp = dp;
			p->P = a->len[dp] > p->P ? a->len[dp] : p->P;
		}
	}
	Acc box;
	if (!ts || p->mem < 0 || p->P > t->mems[p->mem].partitions || join_boxes(p, ts->rank, &box) != 0)
		return -1;
	int reads = 0;
	for (int k = 0; k < p->nacc; k++) {
		if (p->acc[k].write && p->acc[k].src < 0 && p->outside)
			return -1;   /* a slot's store would be needed as well as its copy */
		reads += !p->acc[k].write;
		if (!p->acc[k].write && !box_in(&box, &p->acc[k], ts->rank))
			return -1;
	}
	if (!reads)
		return -1;
	/* the buffer: (P, tiles, the box along the other dims any access takes a range of) */
	p->shape.rank = 2;
	p->shape.d[0] = p->P;
	p->ntiles = p->shape.d[1] = (box.hi[p->dp] - box.lo[p->dp] + p->P - 1) / p->P;
	for (int d = 0; d < ts->rank; d++) {
		p->rlo[d] = box.lo[d];
		if (d == p->dp)
			continue;
		int any = 0;
		for (int k = 0; k < p->nacc; k++)
			any |= p->acc[k].len[d] > 0;
		if (!any) {
			if (box.hi[d] - box.lo[d] != 1)
				return -1;
			continue;
		}
		if (p->shape.rank == AX_MAXR)
			return -1;
		p->fd[p->nfd++] = d;
		p->shape.d[p->shape.rank++] = box.hi[d] - box.lo[d];
	}
	for (int k = 0; k < p->nacc; k++) {   /* each access within one tile of the partition dim */
		Aff *x = &p->acc[k].in[p->dp];
		x->c -= box.lo[p->dp];
		if (x->c % p->P)
			return -1;
		for (int j = 0; j < x->n; j++)
			if (x->k[j] % p->P)
				return -1;
		for (int d = 0; d < ts->rank; d++)
			if (d != p->dp)
				p->acc[k].in[d].c -= box.lo[d];
	}
	return 0;
}

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
		if (!p->outside)
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
			if (f->np == MAXFWD || plan_tensor(f, b, wn[b], &f->plan[f->np]) != 0)
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

void
nest_forward(Nest *ns)
{
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
	}
	free(f->copy);
	free(f->base);
	free(f);
}
