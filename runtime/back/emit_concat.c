/*
 * emit_concat.c — a concatenation split at its boundaries in its reader's
 * loop nest, instead of made off chip by copies (em_gather, below).
 *
 * A concatenation with one reader, an elementwise path from that reader to
 * the loop nest that computes it (loop fusion: into[]), and the joined dim
 * read as one of that nest's tiled parallel axes: the nest's loop over that
 * axis is written once per operand of the concatenation, over the operand's
 * part of the axis (its full tiles, then its tail, the tail-tile mechanism
 * of emit_tail.c), and within the part the reader reads that operand at
 * the tile's start less the part's (`X[:, 512:1024]` read where a tile
 * of columns [0, 512) of `concatenate([-X2, X1])` is wanted).  An operand
 * computed by an operation that only the concatenation reads, and which the
 * reader could run in its loop nest but for the joined dim's extent, is
 * computed there, at the part's tiles (its tile parameter along the dim set
 * to the nest's), never stored off chip.  So nothing crosses off chip
 * between the concatenation's producers and its reader.  Any failure to
 * write a candidate this way writes it again with the copies (nest_build).
 */
#include <string.h>
#include "emit.h"

/* The dim along which concatenation id joins its operands (rank 2, every
 * other dim equal, the parts adding up to the whole), or -1. */
static int
joined_dim(Em *e, int id)
{
	const AxGraph *g = e->g;
	const AxNode *nd = &g->nodes[id];
	AxShape out, in;
	if (graph_shape(g, id, &e->env, &out) != 0 || out.rank != 2 || nd->nin < 1)
		return -1;
	int dim = -1;
	int64_t total = 0;
	for (int d = 0; d < 2 && dim < 0; d++) {
		total = 0;
		int ok = 1;
		for (int o = 0; o < nd->nin && ok; o++) {
			ok = nd->in[o] >= 0 && graph_shape(g, nd->in[o], &e->env, &in) == 0 && in.rank == 2 &&
			     in.d[1 - d] == out.d[1 - d];
			total += ok ? in.d[d] : 0;
		}
		if (ok && total == out.d[d])
			dim = d;
	}
	return dim;
}

/* Concatenation id's reader c (its operand *o), and the loop nest that
 * computes c: its root operation and the axis of it that reads the joined
 * dim *dim, following into[] through elementwise readers; the axis or -1. */
static int
chain(Em *e, int id, int *c, int *o, int *dim, int *root)
{
	const AxGraph *g = e->g;
	const TileOp *T = e->T->op;
	int n = 0;
	for (int r = id + 1; r < g->nnodes; r++)
		for (int k = 0; k < g->nodes[r].nin; k++)
			if (g->nodes[r].in[k] == id)
				*c = r, *o = k, n++;
	if (n != 1 || graph_readers(g, id) != 1 || T[*c].kind != TO_COMPUTE || !e->L[*c].nchoices ||
	    (*dim = joined_dim(e, id)) < 0)
		return -1;
	const TileAxisRead *rd = &T[*c].read[*o][*dim];
	if (rd->kind != 1)
		return -1;
	int node = *c, ax = rd->axis;
	while (e->into[node] >= 0) {
		int nx = e->into[node], o2 = -1, cnt = 0;
		if (e->shared && e->shared[node])
			return -1;
		for (int k = 0; k < g->nodes[nx].nin; k++)
			if (g->nodes[nx].in[k] == node)
				o2 = k, cnt++;
		int j = T[node].ax[ax].out;
		if (cnt != 1 || j < 0 || T[nx].read[o2][j].kind != 1)
			return -1;
		ax = T[nx].read[o2][j].axis;
		node = nx;
	}
	const TileAxis *ka = &T[node].ax[ax];
	AxShape out;
	if (!ka->tiled || !ka->t || ka->unit || ka->whole || ax == em_seq_axis(&T[node]) ||
	    graph_shape(g, id, &e->env, &out) != 0 || em_int(e, ka->extent) != out.d[*dim])
		return -1;
	*root = node;
	return ax;
}

/* The axis of p (an operand of a concatenation) along its joined dim, if
 * it is cut by a tile parameter; else -1. */
static int
part_axis(Em *e, int p, int dim)
{
	const TileOp *tp = &e->T->op[p];
	for (int k = 0; k < tp->naxes; k++)
		if (tp->ax[k].out == dim)
			return tp->ax[k].tiled && tp->ax[k].t && !tp->ax[k].unit && !tp->ax[k].whole ? k : -1;
	return -1;
}

/* With loop fusion: which concatenations are split (e->catax), which of
 * their operands are computed in the reader's loop nest (into[], prefix[]),
 * at most one concatenation per loop nest.  The nest's producers are made
 * inside the split (prefix at least its axis). */
void
em_concat_plan(Em *e, int *prefix, int *nfused)
{
	const AxGraph *g = e->g;
	for (int id = 0; id < g->nnodes; id++)
		e->catax[id] = -1;
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *tg = &e->T->op[id];
		const AxNode *gn = &g->nodes[id];
		int c, o, dim, root, out = graph_is_output(g, id), taken = 0;
		if (tg->kind != TO_VIEW || !tg->gather)
			continue;
		int K = out ? -1 : chain(e, id, &c, &o, &dim, &root);
		const LowerChoice *ch = K >= 0 ? &e->L[c].choice[e->choice[c]] : NULL;
		if (K < 0 || (ch->tile && ch->absorb == id))
			continue;
		for (int q = 0; q < id; q++) {   /* one concatenation per loop nest */
			int c2, o2, d2, r2;
			taken |= e->catax[q] >= 0 && chain(e, q, &c2, &o2, &d2, &r2) >= 0 && r2 == root;
		}
		if (taken)
			continue;
		e->catax[id] = K;
		if (K > prefix[root])
			prefix[root] = K;
		for (int s = 0; s < gn->nin; s++) {
			int p = gn->in[s], once = 1, kmax;
			for (int s2 = 0; s2 < gn->nin; s2++)
				once &= s2 == s || gn->in[s2] != p;
			if (!once || e->T->op[p].kind != TO_COMPUTE || e->into[p] >= 0 || graph_readers(g, p) != 1 ||
			    part_axis(e, p, dim) < 0 || !em_can_fuse_at(e, p, c, o, dim, &kmax))
				continue;   /* read from its own tensor off chip */
			e->into[p] = c;
			if (kmax > prefix[c])
				prefix[c] = kmax;
			(*nfused)++;
		}
	}
}

/* The axis of group gr's loop nest along which a concatenation is split
 * (-1: none); e->cat and e->cdim set for it. */
int
em_concat_group(Em *e, Group *gr)
{
	e->cat = e->cseg = -1;
	for (int id = 0; e->catax && id < e->g->nnodes; id++) {
		int c, o, dim, root;
		if (e->catax[id] < 0 || chain(e, id, &c, &o, &dim, &root) < 0)
			continue;
		for (int m = 0; m < gr->n; m++)
			if (gr->ids[m] == root) {
				e->cat = id;
				e->cdim = dim;
				return e->catax[id];
			}
	}
	return -1;
}

/* Tile parameter of axis k of node id, and of the producers computed in
 * its loop nest along it, set to v (old values into tl). */
static void
set_axis(Em *e, int id, int k, int64_t v, Tail *tl)
{
	const TileOp *to = &e->T->op[id];
	if (to->ax[k].t)
		for (int i = 0; i < e->env.n && tl->n < 64; i++)
			if (strcmp(e->env.names[i], to->ax[k].t) == 0) {
				tl->at[tl->n] = i;
				tl->old[tl->n++] = e->tv[i];
				e->tv[i] = (double)v;
			}
	const AxNode *nd = &e->g->nodes[id];
	for (int o = 0; o < nd->nin; o++) {
		int src[AX_MAXOPND], ns = em_srcs(e, id, o, src);
		for (int s = 0; s < ns; s++) {
			if (!em_fused_into(e, src[s], id))
				continue;
			const TileOp *tp = &e->T->op[src[s]];
			for (int kp = 0; kp < tp->naxes; kp++) {
				int j = tp->ax[kp].out;
				if (j >= 0 && j < AX_MAXR && to->read[o][j].kind == 1 && to->read[o][j].axis == k)
					set_axis(e, src[s], kp, v, tl);
			}
		}
	}
}

/* One tile (or a loop's body, tiles of T from `first` on in loop var `var`,
 * NULL: the one tile at first, of len) of part s of the split axis k,
 * starting at `at` along it: the part's operand made at the nest's tiles,
 * the axes after k written by inner. */
static void
part_tile(Em *e, Group *gr, int k, int s, int64_t at, const char *var, int64_t first, int64_t len, int c,
          void (*inner)(Em *, Group *, int))
{
	const AxNode *gn = &e->g->nodes[e->cat];
	NsDim *idx = gr->idx;
	int64_t T = gr->tsz[k];
	int depth = e->depth;
	Tail pt = { 0 }, tl;
	e->cseg = s;
	int p = gn->in[s], kp = p >= 0 && em_fused_into(e, p, c) ? part_axis(e, p, e->cdim) : -1;
	if (kp >= 0)   /* the operand computed here: at the nest's tiles */
		set_axis(e, p, kp, T, &pt);
	em_tail_set(e, gr, k, len, &tl);   /* a tail's size, and no blocks along k */
	if (var) {
		if (at)
			em_dim(&idx[k], T, "%lld + %s * %lld", (long long)at, var, (long long)T);
		else
			em_dim(&idx[k], T, "%s * %lld", var, (long long)T);
		snprintf(e->cloc, sizeof e->cloc, "%s * %lld", var, (long long)T);
	} else {
		em_dim(&idx[k], len, "%lld", (long long)(at + first));
		snprintf(e->cloc, sizeof e->cloc, "%lld", (long long)first);
	}
	snprintf(e->cabs, sizeof e->cabs, "%s", idx[k].start);
	if (k == gr->pre)
		em_producers(e, gr->ids[0], idx);
	inner(e, gr, k + 1);
	em_close_to(e, depth);
	em_tail_undo(e, gr, k, &tl);
	for (int i = pt.n - 1; i >= 0; i--)
		e->tv[pt.at[i]] = pt.old[i];
	e->cseg = -1;
}

/* Axis k of group gr, split at the concatenation's boundaries: per part
 * its full tiles in a loop, then its tail, each calling inner for the axes
 * after k.  Parts of one length share the loop over their tiles (tile i of
 * every part in iteration i: the loads of one part's tile serve the others',
 * X[:, N/2 + i * T] read by both halves of RoPE), then the tails. */
void
em_concat_axis(Em *e, Group *gr, int k, void (*inner)(Em *, Group *, int))
{
	const AxGraph *g = e->g;
	const AxNode *gn = &g->nodes[e->cat];
	int64_t T = gr->tsz[k], len[AX_MAXOPND], at[AX_MAXOPND + 1];
	int save = e->depth, c = -1, o = -1, dim, root, same = 1;
	chain(e, e->cat, &c, &o, &dim, &root);
	at[0] = 0;
	for (int s = 0; s < gn->nin; s++) {
		AxShape in;
		if (graph_shape(g, gn->in[s], &e->env, &in) != 0) {
			em_fail(e, "%s: an operand's shape cannot be evaluated", node_op(g, gn)->name);
			return;
		}
		len[s] = in.d[e->cdim];
		at[s + 1] = at[s] + len[s];
		same &= len[s] == len[0];
	}
	char var[16];
	snprintf(var, sizeof var, "i%d", k);
	for (int s0 = 0; s0 < gn->nin && !e->bad; s0 += same ? gn->nin : 1) {
		int s1 = same ? gn->nin : s0 + 1;   /* the parts written together */
		int64_t nfull = len[s0] / T, rem = len[s0] % T;
		if (nfull > 1)
			em_loop(e, 0, var, nfull);
		for (int s = s0; s < s1 && nfull && !e->bad; s++)
			part_tile(e, gr, k, s, at[s], nfull > 1 ? var : NULL, 0, T, c, inner);
		em_close_to(e, save);
		for (int s = s0; s < s1 && rem && !e->bad; s++)
			part_tile(e, gr, k, s, at[s], NULL, nfull * T, rem, c, inner);
	}
}

/* A view of several tensors (a concatenation) is no view of one tensor on the
 * target: its tensor is made off chip and each operand copied into its part,
 * in slices of at most the on-chip memories' partitions, by an instruction that
 * copies within off-chip memory (found by its element equation and its
 * engines' memories); the model charges those copies like any other. */
/* The instruction (and its engine) that copies within off-chip memory off, found by its element
 * equation and its engines' memories, and the most partitions of an on-chip memory: 1, or 0 (and
 * the kernel fails) when the target has none */
static int
offchip_copy(Em *e, int id, int *inst, int *eng, int *off, int *pmax)
{
	const AxGraph *g = e->g;
	const AxTarget *t = g->t;
	*off = -1, *pmax = 0, *inst = -1, *eng = -1;
	for (int m = 0; m < t->nmems && m < 32; m++) {
		if (t->mems[m].offchip && *off < 0)
			*off = m;
		if (!t->mems[m].offchip && t->mems[m].partitions > *pmax)
			*pmax = t->mems[m].partitions;
	}
	for (int i = 0; i < t->ninsts && *inst < 0 && *off >= 0; i++)
		for (int k = 0; k < t->nengines && k < 32 && *inst < 0; k++)
			if ((ax_inst_mems(t, &t->insts[i], 0, 1u << k) & ax_inst_mems(t, &t->insts[i], -1, 1u << k) & (1u << *off)) &&
			    lower_is_copy(t, g->tc, i))
				*inst = i, *eng = k;
	if (*inst < 0 || *pmax <= 0) {
		em_fail(e, "%s: no instruction of the target copies within off-chip memory", node_op(g, &g->nodes[id])->name);
		return 0;
	}
	return 1;
}

/* off-chip slice src copied into off-chip slice dst by instruction inst on engine eng */
static void
copy_slice(Em *e, int inst, int eng, int off, const NsRef *src, const NsRef *dst)
{
	const NsRef *opnd[AX_MAXOPND] = { src };
	int attr[AX_MAXATTR] = { 0 };
	Term *sattr[AX_MAXATTR] = { 0 };
	NsRef res;
	em_inst(e, inst, eng, attr, sattr, opnd, dst, off, &res);
}

/* a loop over each axis of sh before its last two (its index var[d]: "c<d>", or "0" where the
 * extent is 1), one copy of a slice of the last two in each */
static void
loop_axes(Em *e, const AxShape *sh, char (*var)[16])
{
	for (int d = 0; d < sh->rank - 2; d++) {
		snprintf(var[d], 16, "c%d", d);
		if (sh->d[d] > 1)
			em_loop(e, 0, var[d], sh->d[d]);
		else
			snprintf(var[d], 16, "0");
	}
}

/* A result that permutes the axes of a tensor the kernel does not make alone (an input, or
 * another result), or a permutation a view of another kind reads (merged axes after it: the
 * heads of an attention joined again): its own tensor, made off chip by copies of the operand's
 * slices into place
 * (for each index of its loop axes, slices of at most pmax rows of its last two), the operand
 * read at the permuted indices (perm: operand dim k is the result's perm[k]). */
void
em_permuted_copy(Em *e, int id, const int *perm)
{
	const AxGraph *g = e->g;
	const AxNode *nd = &g->nodes[id];
	int off, pmax, inst, eng;
	AxShape out;
	if (!offchip_copy(e, id, &inst, &eng, &off, &pmax))
		return;
	if (graph_shape(g, id, &e->env, &out) != 0 || out.rank < 2) {
		em_fail(e, "%s: the shape of a permuted result cannot be evaluated", node_op(g, nd)->name);
		return;
	}
	int r = out.rank, from[AX_MAXR];   /* the operand dim each result dim reads */
	for (int k = 0; k < r; k++)
		from[perm[k]] = k;
	if (from[r - 2] > from[r - 1]) {   /* the tile's two dims must keep their order */
		em_fail(e, "%s: a result permuting its operand's axes reorders the tile's", node_op(g, nd)->name);
		return;
	}
	NsStmt *ts = em_push(e, NS_TENSOR);
	ts->node = id;
	ts->shape = out;
	ts->output = graph_is_output(g, id);
	int save = e->depth;
	char var[AX_MAXR][16];
	loop_axes(e, &out, var);
	int64_t rows = out.d[r - 2], nwhole = rows / pmax, tail = rows % pmax;
	for (int part = 0; part < 2 && !e->bad; part++) {
		int64_t n = part ? (tail ? 1 : 0) : nwhole, len = part ? tail : pmax;
		if (!n)
			continue;
		int in = e->depth;
		char r0[40];
		if (n > 1) {
			em_loop(e, 0, "c_r", n);
			snprintf(r0, sizeof r0, "c_r * %d", pmax);
		} else
			snprintf(r0, sizeof r0, "%lld", (long long)(part ? nwhole * pmax : 0));
		NsRef dst = { .var = -1 - id, .nidx = r }, src = { .var = -1 - nd->in[0], .nidx = r };
		dst.shape = (AxShape){ .rank = 2, .d = { len, out.d[r - 1] } };
		src.shape = dst.shape;
		for (int d = 0; d < r - 2; d++)
			em_dim(&dst.idx[d], 0, "%s", var[d]);
		em_dim(&dst.idx[r - 2], len, "%s", r0);
		em_dim(&dst.idx[r - 1], out.d[r - 1], "0");
		for (int k = 0; k < r; k++)
			src.idx[k] = dst.idx[perm[k]];
		copy_slice(e, inst, eng, off, &src, &dst);
		em_close_to(e, in);
	}
	em_close_to(e, save);
}

void
em_gather(Em *e, int id)
{
	const AxGraph *g = e->g;
	const AxNode *nd = &g->nodes[id];
	int off, pmax, inst, eng;
	if (!offchip_copy(e, id, &inst, &eng, &off, &pmax))
		return;
	AxShape out;
	if (graph_shape(g, id, &e->env, &out) != 0 || out.rank < 2) {
		em_fail(e, "%s: only tensors of rank 2 or more are concatenated in a kernel yet", node_op(g, nd)->name);
		return;
	}
	int r = out.rank;
	NsStmt *ts = em_push(e, NS_TENSOR);
	ts->node = id;
	ts->shape = out;
	ts->output = graph_is_output(g, id);
	int64_t at = 0;   /* where the next operand starts along the joined axis */
	for (int o = 0; o < nd->nin && !e->bad; o++) {
		AxShape in;
		if (nd->in[o] < 0 || graph_shape(g, nd->in[o], &e->env, &in) != 0 || in.rank != r) {
			em_fail(e, "%s: an operand's shape cannot be evaluated", node_op(g, nd)->name);
			return;
		}
		int ax = r - 1;   /* the joined axis: the one dim the operand does not span */
		for (int k = r - 1; k >= 0; k--)
			if (in.d[k] != out.d[k])
				ax = k;
		int save = e->depth;
		char var[AX_MAXR][16];
		loop_axes(e, &in, var);
		int64_t rows = in.d[r - 2], nwhole = rows / pmax, tail = rows % pmax;
		for (int part = 0; part < 2; part++) {
			int64_t n = part ? (tail ? 1 : 0) : nwhole, len = part ? tail : pmax;
			if (!n)
				continue;
			int inner = e->depth;
			char r0[40], d0[48];   /* the first row read, and written */
			int64_t first = part ? nwhole * pmax : 0, shift = ax == r - 2 ? at : 0;
			if (n > 1) {
				em_loop(e, 0, "c_r", n);
				snprintf(r0, sizeof r0, "c_r * %lld", (long long)pmax);
				if (shift)
					snprintf(d0, sizeof d0, "%lld + c_r * %lld", (long long)shift, (long long)pmax);
				else
					snprintf(d0, sizeof d0, "%s", r0);
			} else {
				snprintf(r0, sizeof r0, "%lld", (long long)first);
				snprintf(d0, sizeof d0, "%lld", (long long)(shift + first));
			}
			NsRef src = { .var = -1 - nd->in[o], .nidx = r }, dst = { .var = -1 - id, .nidx = r };
			src.shape = (AxShape){ .rank = 2, .d = { len, in.d[r - 1] } };
			dst.shape = src.shape;
			for (int d = 0; d < r - 2; d++) {
				em_dim(&src.idx[d], 0, "%s", var[d]);
				if (d == ax && at)
					em_dim(&dst.idx[d], 0, "%lld + %s", (long long)at, var[d]);
				else
					em_dim(&dst.idx[d], 0, "%s", var[d]);
			}
			em_dim(&src.idx[r - 2], len, "%s", r0);
			em_dim(&src.idx[r - 1], in.d[r - 1], "0");
			em_dim(&dst.idx[r - 2], len, "%s", d0);
			em_dim(&dst.idx[r - 1], in.d[r - 1], "%lld", (long long)(ax == r - 1 ? at : 0));
			copy_slice(e, inst, eng, off, &src, &dst);
			em_close_to(e, inner);
		}
		em_close_to(e, save);
		at += in.d[ax];
	}
}
