/*
 * nest.c — the statements of a candidate's loop nests (nest.h), and the
 * room their tiles take on chip.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nest.h"

NsStmt *
nest_push(Nest *ns, int kind, int depth)
{
	if (ns->n == ns->cap) {   /* the arrays are large: kept for the next candidate (ax_spare_give) */
		size_t got;
		NsStmt *s = ax_spare_take(sizeof *s * (size_t)(ns->cap ? 2 * ns->cap : 64), &got);
		if (ns->n)
			memcpy(s, ns->s, sizeof *s * (size_t)ns->n);
		ax_spare_give(ns->s, sizeof *s * (size_t)ns->cap);
		ns->s = s;
		ns->cap = (int)(got / sizeof *s);
	}
	NsStmt *s = &ns->s[ns->n++];
	*s = (NsStmt){ 0 };
	s->kind = kind;
	s->depth = depth;
	s->var = NS_NONE;
	s->out.var = s->src.var = NS_NONE;
	return s;
}

void
nest_free(Nest *ns)
{
	if (ns) {
		ax_spare_give(ns->s, sizeof *ns->s * (size_t)ns->cap);
		free(ns);
	}
}

void
nest_conc(const AxTarget *t, const NsStmt *s, int inst, int e, AxConc *c)
{
	const AxOp *op = &t->insts[inst];
	*c = (AxConc){ .nopnd = op->nopnd, .engine = e };
	for (int k = 0; k < op->nopnd && k < AX_MAXOPND; k++) {
		c->rank[k] = s->opnd[k].var == NS_NONE ? -1 : s->opnd[k].shape.rank;
		if (c->rank[k] >= 0)
			memcpy(c->dim[k], s->opnd[k].shape.d, sizeof c->dim[k]);
	}
	for (int a = 0; inst == s->inst && a < op->nattr && a < AX_MAXATTR; a++) {
		if (op->attr[a].kind == AX_ATTR_ENUM)
			c->attr[a] = s->attr[a];
		else if (op->attr[a].kind == AX_ATTR_SIZE)
			c->size[a] = (int64_t)s->aval[a];
		else
			c->fval[a] = s->aval[a];
	}
}

Nest *
nest_dup(const Nest *ns)
{
	Nest *d = malloc(sizeof *d);
	if (!d)
		ax_die("out of memory");
	*d = *ns;
	d->s = NULL;
	d->n = d->cap = 0;
	size_t got;
	d->s = ax_spare_take(sizeof *d->s * (size_t)(ns->n ? ns->n : 1), &got);
	d->cap = (int)(got / sizeof *d->s);
	memcpy(d->s, ns->s, sizeof *d->s * (size_t)ns->n);
	d->n = ns->n;
	return d;
}

NsRef
ns_var(int var, const AxShape *s)
{
	NsRef r = { 0 };
	r.var = var;
	r.shape = *s;
	return r;
}

int
nest_refs(const Nest *ns, NsStmt *s, NsRef **r, int *wr)
{
	int n = 0;
	if (s->kind == NS_INST)
		for (int o = 0; o < ns->g->t->insts[s->inst].nopnd && o < AX_MAXOPND; o++)
			if (s->opnd[o].var != NS_NONE)
				wr[n] = 0, r[n++] = &s->opnd[o];
	if ((s->kind == NS_INST || s->kind == NS_STORE || s->kind == NS_ACC || s->kind == NS_SET) &&
	    s->out.var != NS_NONE)
		wr[n] = s->kind == NS_ACC ? 2 : 1, r[n++] = &s->out;
	if ((s->kind == NS_STORE || s->kind == NS_ACC || s->kind == NS_SET) && s->src.var != NS_NONE)
		wr[n] = 0, r[n++] = &s->src;
	return n;
}

static int
ident_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The next use of loop variable v in e at or after p (a whole identifier), NULL if none. */
static const char *
next_use(const char *e, const char *p, const char *v)
{
	size_t n = strlen(v);
	for (p = strstr(p, v); p; p = strstr(p + 1, v))
		if (!(p > e && ident_char(p[-1])) && !ident_char(p[n]))
			return p;
	return NULL;
}

int
nest_uses_var(const char *e, const char *v)
{
	return next_use(e, e, v) != NULL;
}

int
nest_ref_uses(const NsRef *r, const char *v)
{
	for (int d = 0; d < r->nidx; d++)
		if (nest_uses_var(r->idx[d].start, v) || (r->idx[d].fold > 0 && nest_uses_var(r->idx[d].fin, v)))
			return 1;
	return 0;
}

int
nest_subst_var(char *e, size_t cap, const char *v, const char *with)
{
	char out[256];
	size_t k = 0, n = strlen(v), w = strlen(with);
	const char *p = e;
	for (const char *u = next_use(e, e, v); u; u = next_use(e, u + n, v)) {
		size_t pre = (size_t)(u - p);
		if (k + pre + w >= sizeof out)
			return -1;
		memcpy(out + k, p, pre);
		memcpy(out + k + pre, with, w);
		k += pre + w;
		p = u + n;
	}
	size_t rest = strlen(p);
	if (k + rest >= cap || k + rest >= sizeof out)
		return -1;
	memcpy(out + k, p, rest + 1);
	memcpy(e, out, k + rest + 1);
	return 0;
}

/* The buffer's tile for a reference r to the loaded value (partition dim,
 * then the chain's loop variables, then the tile's other dims). */
NsRef
nest_chain_ref(const NsRef *r, int buf, const NsStmt *const *chain, int nc, const AxShape *tile)
{
	NsRef b = { 0 };
	b.var = buf;
	b.shape = r->shape;
	const NsDim *src = r->idx;
	NsDim whole[AX_MAXR];
	if (!r->nidx) {   /* the whole tile */
		for (int d = 0; d < tile->rank; d++) {
			whole[d] = (NsDim){ .len = tile->d[d] };
			snprintf(whole[d].start, sizeof whole[d].start, "0");
		}
		src = whole;
	}
	int rank = r->nidx ? r->nidx : tile->rank;
	b.idx[b.nidx++] = src[0];
	for (int k = 0; k < nc; k++) {
		NsDim *d = &b.idx[b.nidx++];
		d->len = 0;
		snprintf(d->start, sizeof d->start, "%s", chain[k]->name);
	}
	for (int d = 1; d < rank; d++)
		b.idx[b.nidx++] = src[d];
	return b;
}

int
nest_reads_offchip(const Nest *ns, const NsStmt *s, const int *wrote)
{
	if (s->kind != NS_INST)
		return 0;
	const AxOp *op = &ns->g->t->insts[s->inst];
	int any = 0;
	for (int o = 0; o < op->nopnd && o < AX_MAXOPND; o++) {
		if (s->opnd[o].var == NS_NONE)
			continue;
		if (s->opnd[o].var >= 0 || (wrote && wrote[-1 - s->opnd[o].var]))
			return 0;
		any = 1;
	}
	return any;
}

int
nest_is_load(const Nest *ns, const NsStmt *s, const int *wrote)
{
	return s->kind == NS_INST && s->out.var == NS_NONE && s->var >= 0 && s->mem >= 0 &&
	       !ns->g->t->mems[s->mem].offchip && nest_reads_offchip(ns, s, wrote);
}

void
nest_written(const Nest *ns, int a, int e, int *wrote)
{
	for (int id = 0; id < ns->g->nnodes; id++)
		wrote[id] = 0;
	for (int i = a; i <= e; i++) {
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, wr);
		for (int k = 0; k < nr; k++)
			if (r[k]->var < 0 && wr[k])
				wrote[-1 - r[k]->var] = 1;
	}
	for (int i = 0; i < ns->n; i++)   /* a view of a tensor written here is written too */
		if (ns->s[i].kind == NS_VIEW)
			for (int o = 0; o < ns->g->nodes[ns->s[i].node].nin; o++) {
				int in = ns->g->nodes[ns->s[i].node].in[o];
				wrote[ns->s[i].node] |= in >= 0 && wrote[in];
			}
}

void
nest_loops(const Nest *ns, int *up, int *endof)
{
	int stack[256], sp = 0;
	for (int i = 0; i < ns->n; i++) {
		up[i] = sp ? stack[sp - 1] : -1;
		endof[i] = -1;
		if (ns->s[i].kind == NS_LOOP && sp < 256)
			stack[sp++] = i;
		else if (ns->s[i].kind == NS_END && sp) {
			endof[stack[--sp]] = i;
			up[i] = sp ? stack[sp - 1] : -1;
		}
	}
}

int
nest_spine(const Nest *ns, const int *up, const int *endof, int l, int *sp, int room)
{
	int n = 0;
	while (l >= 0 && endof[l] >= 0 && n < room) {
		sp[n++] = l;
		int next = -1;
		for (int i = l + 1; i < endof[l] && next < 0; i++)
			if (ns->s[i].kind == NS_LOOP && up[i] == l && endof[i] == endof[l] - 1)
				next = i;
		l = next;
	}
	return n;
}

int
nest_install(Nest *ns, const NsStmt *o, int no, int nvars)
{
	Nest tmp = *ns;
	tmp.s = (NsStmt *)o;
	tmp.n = no;
	tmp.nvars = nvars;
	Footprint fp;
	nest_room(&tmp, &fp);
	if (!fp.fits)
		return 0;
	nest_replace(ns, o, no, nvars);
	return 1;
}

void
nest_replace(Nest *ns, const NsStmt *o, int no, int nvars)
{
	if (no > ns->cap) {
		size_t got;
		NsStmt *s = ax_spare_take(sizeof *s * (size_t)no, &got);
		ax_spare_give(ns->s, sizeof *ns->s * (size_t)ns->cap);
		ns->s = s;
		ns->cap = (int)(got / sizeof *s);
	}
	memmove(ns->s, o, sizeof *o * (size_t)no);
	ns->n = no;
	ns->nvars = nvars;
}

int
nest_drop_empty(NsStmt *s, int n)
{
	for (int changed = 1; changed;) {
		changed = 0;
		int o = 0;
		for (int i = 0; i < n; i++) {
			int j = i + 1;
			while (s[i].kind == NS_LOOP && j < n && s[j].kind == NS_NOTE)
				j++;
			if (s[i].kind == NS_LOOP && j < n && s[j].kind == NS_END && s[j].depth == s[i].depth) {
				i = j;   /* the loop, its notes and its end */
				changed = 1;
				continue;
			}
			s[o++] = s[i];
		}
		n = o;
	}
	return n;
}

int
nest_same_dim(const NsDim *x, const NsDim *y)
{
	return x->len == y->len && x->fold == y->fold && x->flen == y->flen && strcmp(x->start, y->start) == 0 &&
	       strcmp(x->fin, y->fin) == 0;
}

static int
same_ref(const NsRef *a, const NsRef *b)
{
	if (a->var != b->var || a->nidx != b->nidx || a->ellipsis != b->ellipsis || a->shape.rank != b->shape.rank)
		return 0;
	for (int d = 0; d < a->shape.rank; d++)
		if (a->shape.d[d] != b->shape.d[d])
			return 0;
	for (int d = 0; d < a->nidx; d++)
		if (!nest_same_dim(&a->idx[d], &b->idx[d]))
			return 0;
	return 1;
}

int
nest_same_loops(const Nest *ns, int p, int q, int n)
{
	for (int t = 0; t <= n; t++) {
		const NsStmt *x = &ns->s[p + t], *y = &ns->s[q + t];
		if (x->kind != y->kind || x->depth - ns->s[p].depth != y->depth - ns->s[q].depth)
			return 0;
		if (x->kind == NS_LOOP && (strcmp(x->name, y->name) != 0 || x->hi != y->hi || x->seq != y->seq))
			return 0;
	}
	return 1;
}

int
nest_fill(const Nest *ns, const int *endof, int p, int a, int e, const int *wrote)
{
	const NsStmt *b = &ns->s[p];
	if (b->kind != NS_BUF || p + 1 > e)
		return -1;
	int D = b->var, q = ns->s[p + 1].kind == NS_LOOP ? endof[p + 1] : p + 1, any = 0;
	if (q < 0 || q > e)
		return -1;
	for (int i = p + 1; i <= q; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind == NS_LOOP || s->kind == NS_END || s->kind == NS_NOTE)
			continue;
		if (s->out.var != D || !nest_reads_offchip(ns, s, wrote))
			return -1;
		any = 1;
	}
	for (int i = a; i <= e; i++) {   /* filled there only */
		if (i >= p && i <= q)
			continue;
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, (NsStmt *)&ns->s[i], r, wr);
		for (int k = 0; k < nr; k++)
			if (r[k]->var == D && wr[k])
				return -1;
	}
	return any ? q : -1;
}

int
nest_same_load(const Nest *ns, const NsStmt *a, const NsStmt *b)
{
	const AxOp *op = &ns->g->t->insts[a->inst];
	if (a->inst != b->inst || a->engine != b->engine || a->mem != b->mem || a->shape.rank != b->shape.rank)
		return 0;
	for (int d = 0; d < a->shape.rank; d++)
		if (a->shape.d[d] != b->shape.d[d])
			return 0;
	for (int k = 0; k < op->nattr && k < AX_MAXATTR; k++)
		if (a->attr[k] != b->attr[k] || a->aval[k] != b->aval[k] || a->aterm[k] != b->aterm[k])
			return 0;
	for (int o = 0; o < op->nopnd && o < AX_MAXOPND; o++)
		if (!same_ref(&a->opnd[o], &b->opnd[o]))
			return 0;
	return 1;
}

/* The tiles live on chip: a tile lives from the statement that makes it to
 * its last reader, or to the end of a loop it is read in but made before
 * (every iteration reads it).  Bytes per partition at `scale` of 4 per
 * element (a banked memory holds the matrix unit's accumulators: always 4). */

void
nest_live(const Nest *ns, double scale, NestLive *lv)
{
	const AxTarget *t = ns->g->t;
	int nv = ns->nvars > 0 ? ns->nvars : 1, n = ns->n;
	lv->nv = nv;
	lv->n = n;
	lv->def = malloc(sizeof(int) * (size_t)nv);
	lv->last = malloc(sizeof(int) * (size_t)nv);
	lv->mem = malloc(sizeof(int) * (size_t)nv);
	lv->depth = malloc(sizeof(int) * (size_t)nv);
	lv->per = malloc(sizeof(double) * (size_t)nv);
	lv->delta = malloc(sizeof(double) * (size_t)(n + 1));
	lv->bdelta = malloc(sizeof(double) * (size_t)(n + 1));
	int *endof = malloc(sizeof(int) * (size_t)(n + 1)), *open = malloc(sizeof(int) * (size_t)(n + 1));
	if (!lv->def || !lv->last || !lv->mem || !lv->depth || !lv->per || !lv->delta || !lv->bdelta || !endof || !open)
		ax_die("out of memory");
	int nopen = 0;
	for (int v = 0; v < nv; v++)
		lv->def[v] = lv->last[v] = lv->mem[v] = -1;
	for (int i = 0; i < n; i++) {
		if (ns->s[i].kind == NS_LOOP)
			open[nopen++] = i;
		else if (ns->s[i].kind == NS_END && nopen)
			endof[open[--nopen]] = i;
	}
	nopen = 0;
	for (int i = 0; i < n; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind == NS_LOOP) {
			open[nopen++] = i;
			continue;
		}
		if (s->kind == NS_END) {
			nopen -= nopen > 0;
			continue;
		}
		int use[AX_MAXOPND + 3], nu = 0;
		for (int o = 0; s->kind == NS_INST && o < t->insts[s->inst].nopnd && o < AX_MAXOPND; o++)
			if (s->opnd[o].var >= 0)
				use[nu++] = s->opnd[o].var;
		if ((s->kind == NS_STORE || s->kind == NS_ACC || s->kind == NS_SET) && s->src.var >= 0)
			use[nu++] = s->src.var;   /* an instruction's src slot is not its own */
		if (s->out.var >= 0)
			use[nu++] = s->out.var;
		for (int k = 0; k < nu; k++) {
			int v = use[k];
			if (v >= nv || lv->def[v] < 0)
				continue;
			if (i > lv->last[v])
				lv->last[v] = i;
			for (int l = 0; l < nopen; l++)
				if (open[l] > lv->def[v]) {
					if (endof[open[l]] > lv->last[v])
						lv->last[v] = endof[open[l]];
					break;
				}
		}
		if ((s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 && s->var < nv && s->mem >= 0 &&
		    s->mem < 32 && !t->mems[s->mem].offchip && s->out.var == NS_NONE) {
			double b = 4;   /* bytes per partition: every dim but the first */
			for (int d = 1; d < s->shape.rank; d++)
				b *= (double)s->shape.d[d];
			lv->def[s->var] = lv->last[s->var] = i;
			lv->mem[s->var] = s->mem;
			lv->depth[s->var] = nopen;
			lv->per[s->var] = (t->mems[s->mem].banks > 0 ? 1 : scale) * b;
		}
	}
	free(endof);
	free(open);
}

void
nest_live_free(NestLive *lv)
{
	free(lv->def);
	free(lv->last);
	free(lv->mem);
	free(lv->depth);
	free(lv->per);
	free(lv->delta);
	free(lv->bdelta);
}

/* The most bytes per partition and banks of memory m live at once when the
 * tiles made inside at least dmin loops have two buffers. */
void
nest_live_peak(const NestLive *lv, const AxMemory *mm, int m, int dmin, double *bytes, double *banks)
{
	double bank = mm->banks > 0 ? (double)mm->bytes / mm->banks : 0, b = 0, u = 0;
	for (int i = 0; i <= lv->n; i++)
		lv->delta[i] = lv->bdelta[i] = 0;
	for (int v = 0; v < lv->nv; v++)
		if (lv->mem[v] == m) {
			double copies = lv->depth[v] >= dmin && lv->depth[v] > 0 ? 2 : 1;
			lv->delta[lv->def[v]] += copies * lv->per[v];
			lv->delta[lv->last[v] + 1] -= copies * lv->per[v];
			if (bank > 0) {
				lv->bdelta[lv->def[v]] += copies * ceil(lv->per[v] / bank);
				lv->bdelta[lv->last[v] + 1] -= copies * ceil(lv->per[v] / bank);
			}
		}
	*bytes = *banks = 0;
	for (int i = 0; i < lv->n; i++) {
		b += lv->delta[i];
		u += lv->bdelta[i];
		*bytes = (*bytes > b ? *bytes : b);
		*banks = (*banks > u ? *banks : u);
	}
}


/* Per memory, the most bytes per partition (and banks) live at any statement. */
void
nest_room(const Nest *ns, Footprint *fp)
{
	const AxTarget *t = ns->g->t;
	NestLive lv;
	nest_live(ns, 1, &lv);
	*fp = (Footprint){ .fits = 1 };
	for (int m = 0; m < t->nmems && m < 32; m++) {
		if (t->mems[m].offchip)
			continue;
		double b, u;
		nest_live_peak(&lv, &t->mems[m], m, 1 << 30, &b, &u);
		fp->bytes[m] = (int64_t)b;
		fp->banks[m] = (int64_t)u;
		if (fp->bytes[m] > t->mems[m].bytes || (t->mems[m].banks > 0 && fp->banks[m] > t->mems[m].banks))
			fp->fits = 0;
	}
	nest_live_free(&lv);
}

int
footprint_fits(const AxTarget *t, const Footprint *fp, int dtype_bytes)
{
	return footprint_explain(t, fp, dtype_bytes, NULL, 0);
}

int
footprint_explain(const AxTarget *t, const Footprint *fp, int dtype_bytes, char *why, size_t nwhy)
{
	int fits = 1;
	size_t w = 0;
	if (why && nwhy)
		why[0] = 0;
	for (int k = 0; k < t->nmems && k < 32; k++) {
		const AxMemory *mm = &t->mems[k];
		if (mm->offchip)
			continue;
		double need = (double)fp->bytes[k] * (mm->banks > 0 ? 4 : dtype_bytes) / 4;
		int over = need > (double)mm->bytes, banks = mm->banks > 0 && fp->banks[k] > mm->banks;
		fits &= !over && !banks;
		if (why && w < nwhy && over)
			w += (size_t)snprintf(why + w, nwhy - w, "%s%s %.0f of %lld bytes per partition", w ? ", " : "", mm->name,
			                      need, (long long)mm->bytes);
		if (why && w < nwhy && banks)
			w += (size_t)snprintf(why + w, nwhy - w, "%s%s %lld of %d banks", w ? ", " : "", mm->name,
			                      (long long)fp->banks[k], mm->banks);
	}
	return fits;
}

const char *
nest_tensor_name(const AxGraph *g, int id, char *buf, size_t n)
{
	const AxNode *nd = &g->nodes[id];
	if (nd->op < 0)
		snprintf(buf, n, "%s", g->params[nd->input].name);
	else
		snprintf(buf, n, "t%d", id);
	return buf;
}
