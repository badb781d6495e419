/*
 * tilecheck.c — runs a tiling: every tiled operation, tile by tile with the
 * reference kernels (loops over loop axes, edge tiles smaller, partial tiles
 * of a reduction combined the way the tiling says, a scan's carry added),
 * compared with the same operation computed whole.  The executable check of
 * the tiling pass: a wrong axis map, a missing reduction or carry, a wrong
 * broadcast shows up as a difference.
 */
#include <math.h>
#include <string.h>
#include "search.h"

enum { MAXAX = AX_MAXR + 4 };

typedef struct Range {
	int64_t lo, hi;
} Range;

/* The value the axis map of node id reads for operand o, dim j: a range of
 * its axis, or [0, 1) for a broadcast; kept: whether the tile has the dim. */
static Range
operand_range(const TileOp *to, const AxNode *src, int j, int kind, int axis, const Range *cur, int *kept)
{
	if (kind == 1) {
		*kept = to->ax[axis].tiled;
		return cur[axis];
	}
	*kept = src->dim[j]->kind == TK_NUM && j >= src->rank - 2;
	return (Range){ 0, 1 };
}

static void
strides(const AxShape *s, int64_t *st)
{
	int64_t k = 1;
	for (int d = s->rank - 1; d >= 0; d--) {
		st[d] = k;
		k *= s->d[d];
	}
}

/* Gathers operand o's tile (shape tshape) from its whole value. */
static void
gather(const TileOp *to, const AxNode *src, const TileAxisRead *rd, const float *whole, const AxShape *ws,
       const Range *cur, const AxShape *tshape, float *tile)
{
	int64_t wst[AX_MAXR];
	strides(ws, wst);
	Range r[AX_MAXR];
	int kept[AX_MAXR], nk = 0, map[AX_MAXR];
	for (int j = 0; j < src->rank; j++) {
		r[j] = operand_range(to, src, j, rd[j].kind, rd[j].axis, cur, &kept[j]);
		if (kept[j])
			map[nk++] = j;
	}
	int skip = tshape->rank - nk;   /* leading dims of a replicated operand */
	int64_t n = ax_numel(tshape), idx[AX_MAXR];
	for (int64_t e = 0; e < n; e++) {
		ax_unflatten(tshape, e, idx);
		int64_t off = 0;
		for (int j = 0; j < src->rank; j++)
			off += r[j].lo * wst[j];
		for (int k = skip; k < tshape->rank; k++) {
			int j = map[k - skip];
			off += (r[j].hi - r[j].lo == 1 ? 0 : idx[k]) * wst[j];
		}
		tile[e] = whole[off];
	}
}

static double
red_init(int red)
{
	return red == TR_MAX ? -INFINITY : red == TR_MIN ? INFINITY : 0;
}

static double
red_step(int red, double acc, double x)
{
	return red == TR_MAX ? fmax(acc, x) : red == TR_MIN ? fmin(acc, x) : acc + x;
}

static int
check_node(const AxTiling *T, int id, const AxEnv *sizes, float *const *val, const AxShape *shape, char *err,
           size_t errlen)
{
	const AxGraph *g = T->g;
	const AxNode *nd = &g->nodes[id];
	const TileOp *to = &T->op[id];
	const AxGraph *tg = to->tile;
	const AxShape *os = &shape[id];
	int64_t ost[AX_MAXR];
	strides(os, ost);
	int64_t numel = ax_numel(os);
	float *out = calloc((size_t)(numel + 1), sizeof *out);
	if (!out)
		ax_die("out of memory");
	int red = 0, scan = -1;
	for (int k = 0; k < to->naxes; k++) {
		if (to->ax[k].red == TR_SCAN)
			scan = k;
		else if (to->ax[k].red && !to->ax[k].whole)
			red = to->ax[k].red;
	}
	for (int64_t e = 0; e < numel; e++)
		out[e] = (float)red_init(red);
	/* concrete extents and tile sizes: 2, 3, 4, ... per tile parameter */
	int64_t ext[MAXAX], tsz[MAXAX], ntiles[MAXAX];
	for (int k = 0; k < to->naxes; k++) {
		double v;
		if (t_eval(to->ax[k].extent, sizes, &v) != 0) {
			free(out);
			return ax_fail(err, errlen, "%%%d: cannot evaluate the extent of axis %d", id, k);
		}
		ext[k] = (int64_t)v;
		const TileAxis *ax = &to->ax[k];
		tsz[k] = !ax->tiled ? 1 : ax->unit || ax->whole ? ext[k] : 2 + k % 3;
		ntiles[k] = (ext[k] + tsz[k] - 1) / tsz[k];
	}
	const char *names[128];
	double vals[128];
	int nv = 0;
	for (int k = 0; k < to->naxes; k++)
		if (to->ax[k].t)
			names[nv++] = to->ax[k].t;
	int base = nv;
	for (int i = 0; i < sizes->n && nv < 128; i++, nv++) {
		names[nv] = sizes->names[i];
		vals[nv] = sizes->vals[i];
	}
	int64_t it[MAXAX] = { 0 };
	int rc = 0;
	for (;;) {
		Range cur[MAXAX];
		for (int k = 0, p = 0; k < to->naxes; k++) {
			cur[k].lo = it[k] * tsz[k];
			cur[k].hi = cur[k].lo + tsz[k] < ext[k] ? cur[k].lo + tsz[k] : ext[k];
			if (to->ax[k].t)
				vals[p++] = (double)(cur[k].hi - cur[k].lo);
		}
		(void)base;
		AxEnv env = { nv, names, vals };
		const float *in[AX_MAXOPND] = { 0 };
		float *bufs[AX_MAXOPND] = { 0 };
		for (int p = 0; p < tg->nparams && rc == 0; p++) {
			int o = p;   /* tile params are the operands present, in order */
			for (int k = 0, seen = 0; k < nd->nin; k++)
				if (nd->in[k] >= 0 && seen++ == p)
					o = k;
			AxShape ts;
			if (graph_shape(tg, tg->params[p].node, &env, &ts) != 0) {
				rc = ax_fail(err, errlen, "%%%d: cannot evaluate tile shape of operand %d", id, o);
				break;
			}
			bufs[p] = malloc(sizeof(float) * (size_t)(ax_numel(&ts) + 1));
			if (!bufs[p])
				ax_die("out of memory");
			gather(to, &g->nodes[nd->in[o]], to->read[o], val[nd->in[o]], &shape[nd->in[o]], cur, &ts, bufs[p]);
			in[p] = bufs[p];
		}
		float *res[1] = { NULL };
		AxShape rs;
		char e2[256];
		if (rc == 0 && graph_run(tg, &env, in, res, &rs, e2, sizeof e2) != 0)
			rc = ax_fail(err, errlen, "%%%d: the tile op failed: %s", id, e2);
		for (int p = 0; p < tg->nparams; p++)
			free(bufs[p]);
		if (rc != 0) {
			free(res[0]);
			break;
		}
		/* scatter: tile result dims are the node's tiled result axes in order */
		int rmap[AX_MAXR], nr = 0;
		for (int k = 0; k < nd->rank; k++)
			if (to->ax[k].tiled)
				rmap[nr++] = k;
		int64_t ridx[AX_MAXR];
		for (int64_t e = 0; e < ax_numel(&rs) && nr == rs.rank; e++) {
			ax_unflatten(&rs, e, ridx);
			int64_t off = 0, sc = 0;
			for (int k = 0; k < nd->rank; k++)
				off += cur[k].lo * ost[k];
			for (int q = 0; q < nr; q++)
				off += (to->ax[rmap[q]].unit ? 0 : ridx[q]) * ost[rmap[q]];
			double x = res[0][e];
			if (scan >= 0 && cur[scan].lo > 0) {   /* the carry: the value just before this tile */
				for (int q = 0; q < nr; q++)
					if (rmap[q] == scan)
						sc = ridx[q];
				x += out[off - (sc + 1) * ost[scan]];
			}
			out[off] = red ? (float)red_step(red, out[off], x) : (float)x;
		}
		int shape_ok = nr == rs.rank;
		free(res[0]);
		if (!shape_ok) {
			rc = ax_fail(err, errlen, "%%%d: the tile result has rank %d, the tiling says %d", id, rs.rank, nr);
			break;
		}
		int k = to->naxes - 1;
		while (k >= 0 && ++it[k] == ntiles[k])
			it[k--] = 0;
		if (k < 0)
			break;
	}
	for (int64_t e = 0; e < numel && rc == 0; e++) {
		double a = out[e], b = val[id][e];
		if (!(fabs(a - b) <= 1e-4 * (1 + fabs(a) + fabs(b))) && !(isnan(a) && isnan(b))) {
			int64_t idx[AX_MAXR];
			ax_unflatten(os, e, idx);
			rc = ax_fail(err, errlen, "%%%d %s: tiled result differs at element %lld: %g, whole: %g", id,
			             node_op(g, nd)->name, (long long)e, a, b);
		}
	}
	free(out);
	return rc;
}

int
tile_check(const AxTiling *T, const AxEnv *sizes, uint64_t seed, char *err, size_t errlen)
{
	const AxGraph *g = T->g;
	/* every node's whole value: a copy of the graph whose outputs are all nodes, 16 at a time */
	float **val = calloc((size_t)g->nnodes + 1, sizeof *val);
	AxShape *shape = calloc((size_t)g->nnodes + 1, sizeof *shape);
	float **in = calloc((size_t)g->nparams + 1, sizeof *in);
	if (!val || !shape || !in)
		ax_die("out of memory");
	int rc = 0, checked = 0;
	for (int p = 0; p < g->nparams && rc == 0; p++) {
		AxShape s;
		if (graph_shape(g, g->params[p].node, sizes, &s) != 0) {
			rc = ax_fail(err, errlen, "cannot evaluate the shape of '%s' at these sizes", g->params[p].name);
			break;
		}
		int64_t n = ax_numel(&s);
		in[p] = malloc(sizeof(float) * (size_t)(n + 1));
		if (!in[p])
			ax_die("out of memory");
		for (int64_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			in[p][i] = (float)(2.0 * (double)(seed >> 40) / 16777216.0 - 1.0);
		}
	}
	AxGraph *all = graph_copy(g);
	for (int first = 0; first < g->nnodes && rc == 0; first += 16) {
		all->noutputs = 0;
		for (int id = first; id < g->nnodes && all->noutputs < 16; id++)
			all->outputs[all->noutputs++] = id;
		float *outs[16];
		AxShape os[16];
		if (graph_run(all, sizes, (const float *const *)in, outs, os, err, errlen) != 0) {
			rc = -1;
			break;
		}
		for (int k = 0; k < all->noutputs; k++) {
			val[first + k] = outs[k];
			shape[first + k] = os[k];
		}
	}
	for (int id = 0; id < g->nnodes && rc == 0; id++)
		if (T->op[id].kind == TO_COMPUTE && T->op[id].tile) {
			rc = check_node(T, id, sizes, val, shape, err, errlen);
			checked++;
		}
	for (int id = 0; id < g->nnodes; id++)
		free(val[id]);
	for (int p = 0; p < g->nparams; p++)
		free(in[p]);
	free(val);
	free(shape);
	free(in);
	return rc ? -1 : checked;
}
