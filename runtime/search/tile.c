/*
 * tile.c — the tiling pass (paper section 4.3): every operation of a variant
 * gets symbolic strip, block and tile sizes, and N-D operations become 2-D
 * tile operations inside loops over the remaining axes.
 *
 * An operation's axes are read off its element equation: the generated
 * encoder is called with one fresh variable per result index, and every
 * operand read is classified per index — a result index (the same axis), a
 * variable bound by a reduction (a reduced axis, combined the way its binder
 * says), a constant (a broadcast), or arithmetic (an axis this pass cannot
 * cut: only views may have it).  Axes joined by a data edge or an identity
 * read form a class; a class shares one strip count across the graph, while
 * block and tile sizes belong to each operation, so independent branches get
 * independent ones.  The axes among the last two of any operand or the result
 * are the tile's; the rest become loops.  A reduction over a tiled axis
 * crosses tiles: its combining operation is found among the spec'd ops by
 * its element equation (a + b, max, min) and synthesized like any tile.
 */
#include <string.h>
#include "search.h"

enum { MAXAX = AX_MAXR + 4 };

typedef struct Scan {        /* an operation's element equation, analysed */
	TermCtx *tc;
	Term *out[AX_MAXR];      /* result index variables */
	int nout;
	Term *bv[8];             /* reduction binders: variable, kind, extent */
	int bkind[8], bscan[8];
	Term *bhi[8];
	int nb;
	TileAxisRead rd[AX_MAXOPND][AX_MAXR];
	int top;                 /* the equation is a reduction at its top (or no reduction) */
} Scan;

static Term *
scan_access(TermCtx *tc, void *env, int o, Term *const *idx, int n)
{
	(void)env;
	char nm[16];
	snprintf(nm, sizeof nm, "@in%d", o);
	return t_tensor(tc, o, nm, n, idx);
}

static int
red_kind(int k)
{
	return k == TK_SUM ? TR_SUM : k == TK_RMAX ? TR_MAX : k == TK_RMIN ? TR_MIN : TR_SCAN;
}

/* Binders first (outermost first), then every tensor read. */
static void
scan_term(Scan *s, Term *t)
{
	if (t->kind == TK_SUM || t->kind == TK_RMAX || t->kind == TK_RMIN || t->kind == TK_FOLD) {
		if (s->nb < 8) {
			s->bv[s->nb] = t->a[0];
			s->bhi[s->nb] = t->a[2];
			s->bkind[s->nb] = red_kind(t->kind);
			s->bscan[s->nb] = -1;
			/* a binder whose range grows with a result index is a scan along it */
			for (int k = 0; k < s->nout; k++)
				if (t_mentions(t->a[2], s->out[k]))
					s->bscan[s->nb] = k;
			if (s->bscan[s->nb] >= 0)
				s->bkind[s->nb] = TR_SCAN;
			s->nb++;
		}
	}
	if (t->kind == TK_TENSOR) {
		for (int j = 0; j < t->n && j < AX_MAXR && t->id < AX_MAXOPND; j++) {
			Term *ix = t->a[j];
			/* a broadcast guard: dim == 1 ? 0 : i */
			if (ix->kind == TK_ITE && ix->a[1]->kind == TK_NUM && ix->a[1]->num == 0)
				ix = ix->a[2];
			TileAxisRead r = { 3, -1, NULL };
			if (ix->kind == TK_NUM)
				r.kind = 2;
			for (int k = 0; k < s->nout; k++)
				if (ix == s->out[k])
					r = (TileAxisRead){ 1, k, NULL };
			for (int b = 0; b < s->nb; b++)
				if (ix == s->bv[b])
					r = (TileAxisRead){ 1, s->bscan[b] >= 0 ? s->bscan[b] : s->nout + b, NULL };
			if (r.kind == 3 && (ix->kind == TK_ADD || ix->kind == TK_SUB))
				for (int k = 0; k < s->nout; k++)   /* i + start: an offset view */
					if (ix->a[0] == s->out[k] && !t_mentions(ix->a[1], s->out[k]))
						r = (TileAxisRead){ 4, k, ix->kind == TK_ADD ? ix->a[1] : NULL };
			TileAxisRead *old = &s->rd[t->id][j];
			if (old->kind == 0)
				*old = r;
			else if (old->kind != r.kind || old->axis != r.axis)
				old->kind = 3, old->off = NULL;
			else if (old->off != r.off)
				old->off = NULL;   /* two offsets: no one view of it */
		}
		return;
	}
	for (int i = 0; i < t->n; i++)
		scan_term(s, t->a[i]);
}

Term *
tile_equation(const AxGraph *g, const AxNode *nd, const AxOp *op, Term **out)
{
	AxSym sym = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		int src = o < nd->nin ? nd->in[o] : -1;
		sym.rank[o] = src >= 0 ? g->nodes[src].rank : -1;
		for (int d = 0; src >= 0 && d < sym.rank[o]; d++)
			sym.dim[o][d] = g->nodes[src].dim[d];
	}
	memcpy(sym.grank, nd->grank, sizeof sym.grank);
	memcpy(sym.attr, nd->attr, sizeof sym.attr);
	memcpy(sym.sattr, nd->sattr, sizeof sym.sattr);
	sym.access = scan_access;
	for (int k = 0; k < nd->rank; k++) {
		char nm[16];
		snprintf(nm, sizeof nm, "@out%d", k);
		out[k] = t_var(g->tc, nm, TS_INT);
	}
	return op->enc(g->tc, &sym, out);
}

static void
scan_node(const AxGraph *g, const AxNode *nd, Scan *s)
{
	*s = (Scan){ 0 };
	s->tc = g->tc;
	s->nout = nd->rank;
	Term *e = tile_equation(g, nd, node_op(g, nd), s->out);
	int at_top = e->kind == TK_SUM || e->kind == TK_RMAX || e->kind == TK_RMIN || e->kind == TK_FOLD;
	scan_term(s, e);
	s->top = s->nb == 0 || (at_top && s->nb == 1);
}

/* ---- union-find over (node, axis) ------------------------------------------- */

typedef struct Tiler {
	const AxGraph *g;
	AxTiling *T;
	int *parent;             /* per (node * MAXAX + axis) */
	Smt *smt;                /* one solver for the whole graph's tile instances */
} Tiler;

static int
uf_find(Tiler *t, int x)
{
	while (t->parent[x] != x)
		x = t->parent[x] = t->parent[t->parent[x]];
	return x;
}

static void
uf_join(Tiler *t, int a, int b)
{
	a = uf_find(t, a);
	b = uf_find(t, b);
	if (a != b)
		t->parent[a > b ? a : b] = a < b ? a : b;
}

static const char *
pname(TermCtx *tc, const char *fmt, int k, int node)
{
	char nm[32];
	snprintf(nm, sizeof nm, fmt, k, node);
	return arena_strdup(tc_arena(tc), nm);
}

/* The axes of node id: its result axes, then one per reduction binder. */
static void
node_axes(Tiler *tl, int id, Scan *s)
{
	const AxGraph *g = tl->g;
	const AxNode *nd = &g->nodes[id];
	TileOp *to = &tl->T->op[id];
	to->naxes = nd->rank;
	for (int k = 0; k < nd->rank; k++)
		to->ax[k] = (TileAxis){ .extent = nd->dim[k], .out = k, .cls = -1, .bcls = -1 };
	if (nd->op < 0)
		return;
	scan_node(g, nd, s);
	for (int b = 0; b < s->nb && to->naxes < MAXAX; b++) {
		if (s->bscan[b] >= 0) {
			to->ax[s->bscan[b]].red = TR_SCAN;
			continue;
		}
		to->ax[to->naxes++] = (TileAxis){ .extent = s->bhi[b], .out = -1, .red = s->bkind[b], .cls = -1, .bcls = -1 };
	}
	/* scan_node numbered reduction axes nout + b; renumber to ax[] positions */
	int map[16];
	for (int b = 0, k = nd->rank; b < s->nb && b < 16; b++)
		map[b] = s->bscan[b] >= 0 ? s->bscan[b] : k++;
	for (int o = 0; o < AX_MAXOPND; o++)
		for (int j = 0; j < AX_MAXR; j++)
			if (s->rd[o][j].kind == 1 && s->rd[o][j].axis >= nd->rank)
				s->rd[o][j].axis = map[s->rd[o][j].axis - nd->rank];
	memcpy(to->read, s->rd, sizeof to->read);
}

/* ---- the 2-D tile instance of a node ------------------------------------------ */

/* The node's op over tiles: each operand keeps its tiled dims (tile-size
 * parameters), drops loop dims; an operand without the partition axis is
 * replicated across partitions by its load. */
static AxGraph *
tile_instance(Tiler *tl, int id, const Scan *s, char *why, size_t n)
{
	const AxGraph *g = tl->g;
	const AxNode *nd = &g->nodes[id];
	const AxOp *op = node_op(g, nd);
	TileOp *to = &tl->T->op[id];
	TermCtx *tc = g->tc;
	AxGraph *t = graph_new(g->t, tc);
	t->params = arena_alloc(tc_arena(tc), sizeof *t->params * (size_t)(op->nopnd + 1));
	int par = nd->rank >= 2 ? nd->rank - 2 : -1;   /* the result's partition axis */
	int rank[AX_MAXOPND];
	for (int o = 0; o < op->nopnd; o++) {
		int src = o < nd->nin ? nd->in[o] : -1;
		if (src < 0) {
			rank[o] = -1;
			continue;
		}
		const AxNode *sn = &g->nodes[src];
		AxNode in = { .op = -1, .input = t->nparams };
		for (int j = 0; j < sn->rank; j++) {
			const TileAxisRead *r = &s->rd[o][j];
			if (r->kind == 1 && !to->ax[r->axis].tiled)
				continue;                     /* a loop index */
			if (r->kind == 1 && to->ax[r->axis].whole)
				in.dim[in.rank++] = to->ax[r->axis].extent;   /* one tile spans it */
			else if (r->kind == 1 && !to->ax[r->axis].unit)
				in.dim[in.rank++] = t_var(tc, to->ax[r->axis].t, TS_INT);
			else if (r->kind == 1 && to->ax[r->axis].unit)
				in.dim[in.rank++] = t_int(tc, 1);
			else if (r->kind == 2 && sn->dim[j]->kind == TK_NUM) {
				if (j >= sn->rank - 2)
					in.dim[in.rank++] = sn->dim[j];   /* a broadcast dim of the tile */
			}
			else {
				snprintf(why, n, "operand %d reads its axis %d through index arithmetic: not tiled", o, j);
				return NULL;
			}
		}
		if (op->broadcast && par >= 0 && to->ax[par].t && in.rank < 2) {
			/* replicated across partitions by the load: [tP, 1] or [tP, tF] */
			Term *tp = t_var(tc, to->ax[par].t, TS_INT);
			if (in.rank == 0)
				in.dim[in.rank++] = tp, in.dim[in.rank++] = t_int(tc, 1);
			else
				in.dim[1] = in.dim[0], in.dim[0] = tp, in.rank = 2;
			to->replicated |= 1u << o;
		}
		if (op->broadcast && par >= 0 && to->ax[par].unit && in.rank < 2 && sn->op >= 0 &&
		    node_op(g, sn)->nopnd == 0) {
			/* a constant beside a tile whose partition axis has size 1: made on chip as a [1, 1]
			 * or [1, tF] tile, nothing to replicate */
			if (in.rank == 0)
				in.dim[in.rank++] = t_int(tc, 1);
			in.dim[1] = in.dim[0], in.dim[0] = t_int(tc, 1), in.rank = 2;
		}
		if (op->broadcast && in.rank == 2 && par >= 0 && in.dim[0]->kind == TK_NUM && to->ax[par].t) {
			in.dim[0] = t_var(tc, to->ax[par].t, TS_INT);
			to->replicated |= 1u << o;
		}
		rank[o] = in.rank;
		t->params[t->nparams++] = (AxParam){ .name = op->opnd[o].name, .tensor = 1, .node = t->nnodes, .dtype = "f32" };
		graph_add(t, &in);
	}
	AxNode x = *nd;
	x.nin = op->nopnd;
	for (int o = 0, k = 0; o < op->nopnd; o++)
		x.in[o] = rank[o] < 0 ? -1 : k++;
	/* group ranks: for broadcasting ops the widest operand; else the result's
	 * group dims that stay */
	if (op->broadcast)
		ax_infer_granks(op->layout, rank, x.grank);
	else {
		int orank[AX_MAXOPND];
		for (int o = 0; o < op->nopnd; o++)
			orank[o] = o < nd->nin && nd->in[o] >= 0 ? g->nodes[nd->in[o]].rank : -1;
		for (int gi = 0; gi < op->ngroups; gi++) {
			int kept = 0;
			for (int k = 0; k < op->layout->nout; k++) {
				if (op->layout->out_pat[k] != gi)
					continue;
				int base = ax_pos(op->layout, orank, nd->grank, -1, k);
				for (int d = 0; d < nd->grank[gi]; d++)
					kept += to->ax[base + d].tiled;
			}
			x.grank[gi] = kept;
		}
	}
	AxSym sy = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		sy.rank[o] = rank[o];
		for (int d = 0; rank[o] > 0 && d < rank[o]; d++)
			sy.dim[o][d] = t->nodes[x.in[o]].dim[d];
	}
	memcpy(sy.grank, x.grank, sizeof sy.grank);
	memcpy(sy.attr, x.attr, sizeof sy.attr);
	memcpy(sy.sattr, x.sattr, sizeof sy.sattr);
	for (int k = 0; k < to->naxes; k++)
		if (to->ax[k].t && t->nsyms < 64)
			t->syms[t->nsyms++] = to->ax[k].t;
	/* sizes the op still mentions (N of a mean, a slice bound) stay symbols;
	 * the others would only widen the synthesizer's search */
	for (int i = 0; i < g->nsyms && t->nsyms < 64; i++) {
		Term *v = t_var(tc, g->syms[i], TS_INT);
		int used = 0;
		for (int k = 0; k < t->nnodes && !used; k++)
			for (int d = 0; d < t->nodes[k].rank; d++)
				used |= t_mentions(t->nodes[k].dim[d], v);
		for (int a = 0; a < AX_MAXATTR; a++)
			used |= x.sattr[a] && t_mentions(x.sattr[a], v);
		if (used)
			t->syms[t->nsyms++] = g->syms[i];
	}
	memcpy(t->assume, g->assume, sizeof t->assume);
	t->nassume = g->nassume;
	Smt *smt = tl->smt;
	Term *h = t_bool(tc, 1);
	for (int k = 0; k < t->nsyms; k++)
		h = t_bin(tc, TK_AND, h, t_bin(tc, TK_LE, t_int(tc, 1), t_var(tc, t->syms[k], TS_INT)));
	char w[256];
	int ok = smt_satisfiable(smt, t_bin(tc, TK_AND, h, op->pre(tc, &sy)), w, sizeof w);
	Term *out[AX_MAXR];
	x.rank = op->shape(tc, &sy, out);
	for (int d = 0; d < x.rank && d < AX_MAXR; d++)
		x.dim[d] = size_simplify(smt, tc, h, out[d]);
	if (!ok) {
		snprintf(why, n, "its tile instance cannot satisfy the op's conditions");
		return NULL;
	}
	if (x.rank > 2 && !to->deep) {
		snprintf(why, n, "its tile has rank %d", x.rank);
		return NULL;
	}
	t->outputs[0] = graph_add(t, &x);
	t->noutputs = 1;
	return t;
}

int
tile_const_of(const AxTiling *T, int id)
{
	const AxGraph *g = T->g;
	for (int hop = 0; id >= 0 && id < g->nnodes && hop < 64; hop++) {
		const TileOp *to = &T->op[id];
		const AxNode *nd = &g->nodes[id];
		if (to->kind == TO_CONST)
			return hop == 0 || nd->rank == 0 ? id : -1;
		if (to->kind != TO_VIEW || to->gather || nd->nin < 1)
			return -1;
		for (int o = 1; o < nd->nin; o++)
			if (nd->in[o] >= 0)
				return -1;
		id = nd->in[0];
	}
	return -1;
}

/* ---- the pass ----------------------------------------------------------------- */

AxTiling *
tile_graph(const AxGraph *g)
{
	Arena *a = tc_arena(g->tc);
	AxTiling *T = arena_alloc(a, sizeof *T);
	T->g = g;
	T->op = arena_alloc(a, sizeof *T->op * (size_t)(g->nnodes + 1));
	Tiler tl = { .g = g, .T = T };
	tl.parent = arena_alloc(a, sizeof(int) * (size_t)(g->nnodes * MAXAX + 1));
	for (int i = 0; i < g->nnodes * MAXAX; i++)
		tl.parent[i] = i;
	Scan *scans = arena_alloc(a, sizeof *scans * (size_t)(g->nnodes + 1));
	for (int id = 0; id < g->nnodes; id++)
		node_axes(&tl, id, &scans[id]);
	/* which axes are the tile's: among the last two of an operand or the result */
	for (int id = 0; id < g->nnodes; id++) {
		const AxNode *nd = &g->nodes[id];
		TileOp *to = &T->op[id];
		for (int k = nd->rank - 2; k < nd->rank; k++)
			if (k >= 0)
				to->ax[k].tiled = 1;
		if (nd->op < 0)
			continue;
		const AxOp *op = node_op(g, nd);
		for (int o = 0; o < op->nopnd && o < nd->nin; o++) {
			int src = nd->in[o];
			if (src < 0)
				continue;
			int r = g->nodes[src].rank;
			for (int j = r - 2; j < r; j++)
				if (j >= 0 && scans[id].rd[o][j].kind == 1)
					to->ax[scans[id].rd[o][j].axis].tiled = 1;
		}
	}
	/* a plain reduction along a short axis (a literal extent) among its operand's last two:
	 * a tile of those two dims (trailing size-1 dims aside) would hold a few elements per
	 * partition (a 2-wide window: 8 bytes).  The tile takes the operand's outer dims too, through the literal ones, up to
	 * the first that is not literal, which becomes its partition axis: many windows per
	 * partition, contiguous in memory.  Literal dims of such a tile are whole in it. */
	for (int id = 0; id < g->nnodes; id++) {
		const AxNode *nd = &g->nodes[id];
		TileOp *to = &T->op[id];
		const Scan *sc = &scans[id];
		if (nd->op < 0 || !sc->top || sc->nb != 1 || sc->bscan[0] >= 0 || node_op(g, nd)->nopnd != 1 ||
		    nd->nin < 1 || nd->in[0] < 0)
			continue;
		const AxNode *src = &g->nodes[nd->in[0]];
		int r = src->rank, short_red = 0;
		while (r > 2 && src->dim[r - 1]->kind == TK_NUM && src->dim[r - 1]->num == 1)
			r--;   /* trailing size-1 dims (a reduction's kept axis) are in the tile as 1 */
		for (int j = r - 2; j < r && r >= 3; j++) {
			const TileAxisRead *rd = &sc->rd[0][j];
			if (j >= 0 && rd->kind == 1 && to->ax[rd->axis].red && src->dim[j]->kind == TK_NUM &&
			    src->dim[j]->num >= 2)
				short_red = 1;
		}
		if (!short_red)
			continue;
		int j = r - 2;
		while (j > 0 && (src->dim[j]->kind == TK_NUM || (j == r - 2 && src->dim[r - 1]->kind == TK_NUM))) {
			if (sc->rd[0][j - 1].kind != 1)
				break;
			j--;
			if (src->dim[j]->kind != TK_NUM)
				break;
		}
		int first = nd->rank;   /* the first result axis in the tile */
		for (int d = j; d < src->rank; d++)
			if (sc->rd[0][d].kind == 1) {
				to->ax[sc->rd[0][d].axis].tiled = 1;
				if (to->ax[sc->rd[0][d].axis].out >= 0 && to->ax[sc->rd[0][d].axis].out < first)
					first = to->ax[sc->rd[0][d].axis].out;
			}
		for (int k = first; k < nd->rank; k++)   /* the reduced axis kept as 1, inside the tile */
			if (to->ax[k].extent->kind == TK_NUM && to->ax[k].extent->num == 1)
				to->ax[k].tiled = 1, to->ax[k].unit = 1;
		to->deep = 1;
		for (int k = 0; k < to->naxes; k++)
			if (to->ax[k].tiled && to->ax[k].extent->kind == TK_NUM && to->ax[k].extent->num >= 2)
				to->ax[k].whole = 1;
	}
	/* classes: identity reads and data edges join axes */
	for (int id = 0; id < g->nnodes; id++) {
		const AxNode *nd = &g->nodes[id];
		if (nd->op < 0)
			continue;
		const AxOp *op = node_op(g, nd);
		for (int o = 0; o < op->nopnd && o < nd->nin; o++) {
			int src = nd->in[o];
			for (int j = 0; src >= 0 && j < g->nodes[src].rank; j++) {
				const TileAxisRead *r = &scans[id].rd[o][j];
				if (r->kind == 1 && !T->op[id].ax[r->axis].red)
					uf_join(&tl, src * MAXAX + j, id * MAXAX + r->axis);
			}
		}
	}
	/* size-1 result axes stay in the tile as a literal 1 */
	for (int id = 0; id < g->nnodes; id++) {
		TileOp *to = &T->op[id];
		for (int k = 0; k < to->naxes; k++)
			if (to->ax[k].extent->kind == TK_NUM && to->ax[k].extent->num == 1 && to->ax[k].out >= g->nodes[id].rank - 2)
				to->ax[k].tiled = 1, to->ax[k].unit = 1;
	}
	/* a class per set of joined axes that some operation cuts into strips */
	int *clsof = arena_alloc(a, sizeof(int) * (size_t)(g->nnodes * MAXAX + 1));
	for (int i = 0; i < g->nnodes * MAXAX; i++)
		clsof[i] = -1;
	for (int id = 0; id < g->nnodes; id++) {
		TileOp *to = &T->op[id];
		for (int k = 0; k < to->naxes && g->nodes[id].op >= 0; k++) {
			TileAxis *ax = &to->ax[k];
			if ((ax->red && ax->red != TR_SCAN) || !ax->tiled || ax->unit || ax->whole)
				continue;
			int r = uf_find(&tl, id * MAXAX + k);
			if (clsof[r] < 0 && T->ncls < 64) {
				clsof[r] = T->ncls;
				T->cls_extent[T->ncls] = ax->extent;
				T->strip[T->ncls] = pname(g->tc, "n%d", T->ncls, 0);
				T->ncls++;
			}
			ax->cls = clsof[r];
		}
	}
	/* block classes: the strips', then one per set of joined sums across tiles */
	for (int c = 0; c < T->ncls; c++)
		T->bname[c] = T->strip[c];
	T->nbcls = T->ncls;
	for (int i = 0; i < g->nnodes * MAXAX; i++)
		clsof[i] = -1;
	for (int id = 0; id < g->nnodes; id++) {
		TileOp *to = &T->op[id];
		for (int k = 0; k < to->naxes && g->nodes[id].op >= 0; k++) {
			TileAxis *ax = &to->ax[k];
			ax->bcls = ax->cls;
			if (ax->red != TR_SUM || !ax->tiled || ax->unit)
				continue;
			int r = uf_find(&tl, id * MAXAX + k);
			if (clsof[r] < 0 && T->nbcls < 64) {
				clsof[r] = T->nbcls;
				T->bname[T->nbcls] = pname(g->tc, "k%d", T->nbcls - T->ncls, 0);
				T->nbcls++;
			}
			ax->bcls = clsof[r];
		}
	}
	/* kinds, parameters, tile instances */
	for (int id = 0; id < g->nnodes; id++) {
		const AxNode *nd = &g->nodes[id];
		TileOp *to = &T->op[id];
		if (nd->op < 0) {
			to->kind = TO_INPUT;
			continue;
		}
		const AxOp *op = node_op(g, nd);
		int nt = 0;
		for (int k = 0; k < to->naxes; k++)
			if (to->ax[k].tiled && !to->ax[k].unit && !to->ax[k].whole) {
				to->ax[k].t = pname(g->tc, "t%d_%d", nt, id);
				to->ax[k].b = pname(g->tc, "b%d_%d", nt, id);
				nt++;
			}
		Scan *s = &scans[id];
		if (op->nopnd == 0) {
			to->kind = TO_CONST;
		} else if (op->layout_only) {
			/* data movement: a view unless it exchanges the two tile axes */
			int r = g->nodes[nd->in[0]].rank;
			int swap = r >= 2 && nd->rank >= 2 && s->rd[0][r - 2].kind == 1 && s->rd[0][r - 1].kind == 1 &&
			           s->rd[0][r - 2].axis == nd->rank - 1 && s->rd[0][r - 1].axis == nd->rank - 2;
			int tensors = 0;   /* a view of several tensors is made by copies (the back end's gather) */
			for (int o = 0; o < nd->nin; o++)
				tensors += nd->in[o] >= 0 && g->nodes[nd->in[o]].rank > 0;
			if (!swap && tensors > 1 && nd->rank < 2) {
				to->kind = TO_UNTILED;
				to->why = "joins several tensors, which a kernel copies into place for rank 2 or more only";
				continue;
			}
			if (!swap) {
				to->kind = TO_VIEW;
				to->gather = tensors > 1;
				to->why = to->gather ? "its tensor is made off chip by copies of its operands into place"
				                     : "addressing only: loads and stores address its operand in place";
				continue;
			}
			to->kind = TO_COMPUTE;
		} else
			to->kind = TO_COMPUTE;
		for (int k = 0; k < to->naxes; k++)
			if (to->ax[k].red && !to->ax[k].tiled && to->kind == TO_COMPUTE) {
				to->kind = TO_UNTILED;
				to->why = "reduces along a loop axis: not tiled yet";
			}
		if (to->kind == TO_UNTILED)
			continue;
		if (!s->top)
			for (int k = 0; k < to->naxes; k++)
				if (to->ax[k].red && to->ax[k].tiled)
					to->ax[k].whole = 1, to->ax[k].t = to->ax[k].b = NULL;   /* f(reduction): partial tiles do not combine */
		char why[256];
		if (!tl.smt)
			tl.smt = smt_new(g->t);
		to->tile = tile_instance(&tl, id, s, why, sizeof why);
		if (!to->tile) {
			to->kind = TO_UNTILED;
			to->why = arena_strdup(a, why);
		}
	}
	if (tl.smt)
		smt_free(tl.smt);
	return T;
}

static void
print_axes(FILE *f, const AxTiling *T, const TileOp *to, int which)
{
	int first = 1;
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		if (!ax->tiled)
			continue;
		const char *s = which == 0 ? (ax->cls >= 0 && !ax->red ? T->strip[ax->cls] : NULL) : which == 1 ? ax->b
		                : ax->unit ? "1" : ax->t;
		if (!s)
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", s);
		first = 0;
	}
}

static const char *const red_name[] = { "", "sum-reduce", "max-reduce", "min-reduce", "scan" };

/* One node's line: loops, [strips | blocks] op operand tiles -> result tile,
 * cross-tile reductions; 0 if the node is an input. */
int
tile_print_node(FILE *f, const AxTiling *T, int id)
{
	const AxGraph *g = T->g;
	TermCtx *tc = g->tc;
	const AxNode *nd = &g->nodes[id];
	const TileOp *to = &T->op[id];
	if (to->kind == TO_INPUT)
		return 0;
	const AxOp *op = node_op(g, nd);
	int loops = 0;
	for (int k = 0; k < to->naxes; k++)
		if (!to->ax[k].tiled && !(to->ax[k].extent->kind == TK_NUM && to->ax[k].extent->num == 1))
			fprintf(f, "%s%s", loops++ ? ", " : "for ", t_infix(tc, to->ax[k].extent));
	if (loops)
		fprintf(f, ": ");
	if (to->kind == TO_VIEW) {
		fprintf(f, "%s: view (%s)", op->name, to->why);
		return 1;
	}
	if (to->kind == TO_CONST) {
		fprintf(f, "%s: a constant, made in place for each tile that reads it", op->name);
		return 1;
	}
	if (to->kind == TO_UNTILED) {
		fprintf(f, "%s: %s", op->name, to->why);
		return 1;
	}
	fprintf(f, "[");
	print_axes(f, T, to, 0);
	fprintf(f, " | ");
	print_axes(f, T, to, 1);
	fprintf(f, "] %s ", op->name);
	const AxGraph *tg = to->tile;
	for (int n = 0; n < tg->nnodes; n++) {
		const AxNode *tn = &tg->nodes[n];
		fprintf(f, "%s[", n == 0 ? "" : n == tg->nnodes - 1 ? " -> " : ", ");
		for (int d = 0; d < tn->rank; d++)
			fprintf(f, "%s%s", d ? ", " : "", t_infix(tc, tn->dim[d]));
		fprintf(f, "]");
	}
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		if (ax->red && ax->tiled && ax->whole && to->deep)
			fprintf(f, "; one tile spans %s (a short axis: the tile takes outer axes instead)", t_infix(tc, ax->extent));
		else if (ax->red && ax->tiled && ax->whole)
			fprintf(f, "; one tile spans %s (the reduction is not the whole equation: partial tiles do not combine)",
			        t_infix(tc, ax->extent));
		else if (ax->red && ax->tiled)
			fprintf(f, "; %s across tiles along %s", red_name[ax->red], t_infix(tc, ax->extent));
	}
	for (int o = 0; o < AX_MAXOPND; o++)
		if (to->replicated & (1u << o))
			fprintf(f, "; %s replicated across partitions", op->opnd[o].name);
	return 1;
}

void
tile_print(FILE *f, const AxTiling *T)
{
	for (int c = 0; c < T->ncls; c++)
		fprintf(f, "  strip %s over %s\n", T->strip[c], t_infix(T->g->tc, T->cls_extent[c]));
	for (int id = 0; id < T->g->nnodes; id++) {
		if (T->op[id].kind == TO_INPUT)
			continue;
		fprintf(f, "  %%%d ", id);
		tile_print_node(f, T, id);
		fprintf(f, "\n");
	}
}
