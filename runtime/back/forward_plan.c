/*
 * forward_plan.c — for forward.c's merge, whether a tensor crossing
 * between the nests can be kept on chip per iteration of the shared loops,
 * and its buffer: each access's box per iteration, the stores joined into
 * one box, every load inside it, what statements after the merged nest
 * touch of it (forward_impl.h).
 */
#include <stdlib.h>
#include <string.h>
#include "forward_impl.h"

int
fw_is_copy(Fw *f, int inst)
{
	if (f->copy[inst] < 0)
		f->copy[inst] = lower_is_copy(f->ns->g->t, f->ns->g->tc, inst);
	return f->copy[inst];
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
			if (hi == 1)
				continue;   /* a loop of one trip: its variable is 0 */
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

/* Boxes a and b the same at every iteration of the shared loops (no part over them), and apart? */
static int
fixed_apart(const Acc *a, const Acc *b, int rank)
{
	int apart = 0;
	for (int d = 0; d < rank; d++) {
		if (a->out[d].n || b->out[d].n || a->out[d].c || b->out[d].c)
			return 0;
		apart |= a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d];
	}
	return apart;
}

/* A store that no load of the group reads, apart from the stores that stay (a tail tile's rows
 * that only a statement after the merged nest reads, where the shared loops make one trip): left
 * a store to HBM, out of the plan.  Only boxes the same at every iteration are compared. */
static void
leave_stores(Plan *p, int rank)
{
	char left[MAXACC] = { 0 };
	for (int k = 0; k < p->nacc; k++) {
		left[k] = (char)p->acc[k].write;
		for (int r = 0; r < p->nacc && left[k]; r++)
			left[k] = p->acc[r].write || fixed_apart(&p->acc[k], &p->acc[r], rank);
	}
	for (int changed = 1; changed;) {   /* one that overlaps a store that stays, stays */
		changed = 0;
		for (int k = 0; k < p->nacc; k++)
			for (int w = 0; w < p->nacc && left[k]; w++)
				if (p->acc[w].write && !left[w] && !fixed_apart(&p->acc[k], &p->acc[w], rank))
					left[k] = 0, changed = 1;
	}
	int n = 0, kept = 0;
	for (int k = 0; k < p->nacc; k++)
		kept += p->acc[k].write && !left[k];
	if (!kept)
		return;
	for (int k = 0; k < p->nacc; k++)
		if (!left[k])
			p->acc[n++] = p->acc[k];
	p->after |= n < p->nacc;   /* the tensor stays declared for them */
	p->nacc = n;
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
		fw_is_copy(f, k);
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

/* Does box x (over all its loops; boxes.h) meet what box b (per iteration of the shared loops)
 * takes over all of them? */
static int
overlaps(const Fw *f, const Acc *b, int rank, const Box *x)
{
	if (!x->exact || x->nd != rank)
		return 1;
	for (int d = 0; d < rank; d++) {
		int64_t blo = b->lo[d], bhi = b->hi[d];
		for (int j = 0; j < b->out[d].n; j++) {
			int64_t trip = 0;
			for (int k = 0; k < f->K; k++)
				if (strcmp(f->ns->s[f->sp[f->ga][k]].name, b->out[d].v[j]) == 0)
					trip = f->ns->s[f->sp[f->ga][k]].hi;
			if (trip < 1)
				return 1;
			(b->out[d].k[j] < 0 ? &blo : &bhi)[0] += b->out[d].k[j] * (trip - 1);
		}
		if (x->hi[d] <= blo || bhi <= x->lo[d])
			return 0;
	}
	return 1;
}

/* The accesses of tensor node T (written in the group's nest wn, read in later ones) and its buffer. */
int
fw_plan_tensor(Fw *f, int T, int wn, Plan *p)
{
	const Nest *ns = f->ns;
	const AxTarget *t = ns->g->t;
	p->node = T;   /* not zeroed whole: a plan is large, and most are refused early */
	p->outside = p->after = p->nacc = p->nfd = 0;
	p->mem = p->dp = -1;
	int after[MAXACC], nafter = 0;
	const NsRef *aref[MAXACC];
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
			if (i > f->hi && direct && nafter < MAXACC) {   /* after it: judged by its box below */
				after[nafter] = i;
				aref[nafter++] = r[k];
				continue;
			}
			if (i < f->lo || i > f->hi) {   /* before the merged nest: kept in HBM too */
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
				if (s->kind == NS_INST && (!fw_is_copy(f, s->inst) || r[k] != &s->out))
					return -1;
				if ((a->src = stored_tile(f, x)) >= 0)
					mem = ns->s[a->src].mem;
				else if (slot_copy(f, s, x, a, &mem) != 0)
					return -1;
			} else {
				if (s->kind != NS_INST || !fw_is_copy(f, s->inst) || r[k] != &s->opnd[0] ||
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
	if (!ts)
		return -1;
	leave_stores(p, ts->rank);
	Acc box;
	if (p->mem < 0 || p->P > t->mems[p->mem].partitions || join_boxes(p, ts->rank, &box) != 0)
		return -1;
	/* what statements after the merged nest read of the tensor: outside the box its iterations
	 * write (a tail tile's rows, which the statements after it write), or it is kept in HBM too;
	 * what they write is their own */
	for (int k = 0; k < nafter; k++) {
		NsRef *rr[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[after[k]], rr, wr), w = 0;
		for (int j = 0; j < nr; j++)
			w |= rr[j] == aref[k] && wr[j] == 1;
		p->after = 1;
		if (!w) {
			Box x = box_of(ns, f->up, after[k], 0, aref[k], 0);
			p->outside |= overlaps(f, &box, ts->rank, &x);
		}
	}
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

