/*
 * emit_fold.c — blocks of tiles along a partition axis with their rows
 * folded (nest.h, NsDim.fold): which axes fold, and the check that a
 * written candidate's folded slices are all what a fold needs.
 *
 * A block of b tiles of T rows along the partition axis of a loop nest
 * normally holds rows (B b + j) T + p in partition p of its tile j: each
 * tile is its own transfer, and a block load is b transfers.  Folded, tile
 * j holds rows (B T + p) b + j instead: the tensor seen as (rows / b, b,
 * ...), tile j its row j of groups B T .. B T + T - 1.  Every slice of the
 * loop nest along that axis is written so (the loads, the stores, the
 * producers made in it), so the mapping of rows to tiles is the same
 * throughout and the result is too; but now the block's rows are b T
 * contiguous rows, b in each partition, and its load is one transfer of
 * b times the bytes per partition into one tile of several free axes
 * (T, b, ...) ("a tile of any dimensionality", nki.isa.dma_copy): fewer,
 * larger transfers, as the NKI performance guide asks (>= 2 KiB, better 4
 * KiB per partition and transfer; its fixed cost per transfer is paid
 * once per block).  The view is the target's reshape of the tensor.
 *
 * Which axes: a blocked tile axis that is the partition axis of the loop
 * nest's result, neither its sequential axis nor K-blocked, cut into whole
 * blocks (no tail).  After the candidate is written, nest_folds_ok checks
 * every folded slice: each must be the partition dim of a transfer, of a
 * tensor (not a view of one) whose dim the fold divides; otherwise the
 * folded form is no candidate (nest_build; the unfolded form is its own).
 */
#include "emit.h"

int
fold_axis_ok(const AxGraph *g, const TileOp *to, int id, int k)
{
	int rank = g->nodes[id].rank;
	if (to->deep || k < 0 || k >= to->naxes)
		return 0;
	return to->ax[k].tiled && !to->ax[k].red && rank >= 2 && to->ax[k].out == rank - 2;
}

int64_t
nest_divisor(int64_t m, int64_t cap)
{
	for (int64_t b = cap < m ? cap : m; b > 1; b--)
		if (m % b == 0)
			return b;
	return 1;
}

/* The tiles per block of a folded axis of ext rows in tiles of T where its
 * block class allows want: without a tail tile, the largest divisor of the
 * tile count not above want (as any blocks, em_op_axes); with one, the
 * largest divisor of ext not above want, the rows seen as groups of that
 * many (emit_kernel.c writes the groups left after the whole blocks as a
 * block of smaller tiles).  1: no fold. */
int64_t
fold_blocks(int64_t ext, int64_t T, int64_t want)
{
	return T < 1 ? 1 : nest_divisor(ext % T ? ext : ext / T, want);
}

int
em_fold_axis(Em *e, Group *gr, int k)
{
	if (e->nofold || k == gr->seqax)
		return 0;
	int blk = gr->st[0].blk[k];
	int64_t T = gr->tsz[k], ext = gr->ext[k];
	if (blk < 2 || T < 1 || ext % blk || (ext % T == 0 && ext % (blk * T)))
		return 0;   /* (a tail tile: the groups' tail is a block of its own, emit_kernel.c) */
	const AxGraph *g = e->g;
	for (int m = 0; m < gr->n; m++) {
		if (gr->st[m].blk[k] != blk || gr->st[m].kax == k || !fold_axis_ok(g, &e->T->op[gr->ids[m]], gr->ids[m], k))
			return 0;
	}
	return 1;
}

/* Is r, a slice of statement s, fit for its folds (1: also when it has none)? */
static int
ref_fold_ok(const Nest *ns, const AxTiling *T, const NsStmt *s, const NsRef *r)
{
	if (r->var == NS_NONE || r->var >= 0)
		return 1;
	int fd = -1, first = -1;
	for (int d = 0; d < r->nidx; d++) {
		if (first < 0 && (r->idx[d].len > 0 || r->idx[d].flen > 0))
			first = d;
		if (r->idx[d].fold > 0) {
			if (fd >= 0)
				return 0;   /* one folded dim a slice */
			fd = d;
		}
	}
	if (fd < 0)
		return 1;
	const AxGraph *g = ns->g;
	const AxTarget *t = g->t;
	int node = -1 - r->var;
	if (node >= g->nnodes || T->op[node].kind == TO_VIEW)
		return 0;
	int dma = s->kind == NS_STORE ||
	          (s->kind == NS_INST && s->engine >= 0 && s->engine < t->nengines && t->engines[s->engine].dma);
	if (!dma || fd != first || r->idx[fd].len < 1 || r->shape.rank < 1 || r->shape.d[0] != r->idx[fd].len)
		return 0;   /* the fold must be the partition dim of a transfer */
	AxShape bs;
	if (graph_shape(g, node, &ns->env, &bs) != 0 || bs.rank != r->nidx || bs.d[fd] % r->idx[fd].fold)
		return 0;
	return 1;
}

int
nest_folds_ok(const Nest *ns, const AxTiling *T)
{
	for (int i = 0; i < ns->n; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind != NS_INST && s->kind != NS_STORE && s->kind != NS_ACC && s->kind != NS_SET)
			continue;
		for (int o = 0; o < AX_MAXOPND; o++)
			if (!ref_fold_ok(ns, T, s, &s->opnd[o]))
				return 0;
		if (!ref_fold_ok(ns, T, s, &s->out) || !ref_fold_ok(ns, T, s, &s->src))
			return 0;
	}
	return 1;
}

/* The folded axis (emit_fold.c) that the block's copies of an off-chip
 * slice sl read as their partition dim, the only blocked axis they read:
 * then sl becomes the whole block's rows, one transfer into one tile
 * (T, b, the tile's other dims), and the axis is returned; else -1. */
int
em_fold_load(Em *e, uint32_t axes, NsRef *sl)
{
	int a = -1;
	for (int k = 0; k < AX_MAXR + 4; k++)
		if (axes == 1u << k)
			a = k;
	if (a < 0 || !e->fold[a] || sl->var >= 0 || sl->shape.rank < 1 || sl->shape.rank + 1 > AX_MAXR)
		return -1;
	int d = 0;
	while (d < sl->nidx && !sl->idx[d].len)
		d++;
	if (d == sl->nidx || sl->idx[d].fold != e->cur->blk[a] || sl->idx[d].flen || sl->idx[d].len != sl->shape.d[0])
		return -1;
	for (int j = d + 1; j < sl->nidx; j++)
		if (sl->idx[j].fold)
			return -1;
	snprintf(sl->idx[d].fin, sizeof sl->idx[d].fin, "0");
	sl->idx[d].flen = sl->idx[d].fold;
	for (int j = sl->shape.rank; j > 1; j--)
		sl->shape.d[j] = sl->shape.d[j - 1];
	sl->shape.d[1] = sl->idx[d].fold;
	sl->shape.rank++;
	return a;
}
