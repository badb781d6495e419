/*
 * permute.c — views that only permute the axes of an off-chip tensor,
 * addressed in place (one pass over a candidate's statements, nest.h).
 *
 * An exchange of a loop axis with another (np.swapaxes(X, 0, 1) of a [B, M,
 * N] tensor) is a view: the tiling moves no data for it.  Written as a view
 * statement, the kernel would apply a NumPy function to an off-chip tensor,
 * which the target's compiler does not take; but a transfer can read or write
 * any slice of the tensor itself, so no statement is needed.  (NKI: a slice
 * with integer indices and ranges is plain slicing, "access patterns are only
 * necessary if slicing cannot represent the desired tensor access", NKI
 * Access Patterns; nki.isa.dma_copy moves between HBM and SBUF both ways and
 * within HBM.)  Views whose
 * reads are a permutation of their operand's axes (every axis read whole,
 * once) chain back to a root S, the tensor they all permute, and go:
 *
 *  - if none is a result, every slice of each is read as the slice of S at
 *    the permuted indices (X[j * 100:j * 100 + 100, l, 0:96] of swapaxes(X,
 *    0, 1) is X[l, j * 100:j * 100 + 100, 0:96]);
 *  - if view V is a result, S's tensor is declared as V's, and every slice of
 *    S or of another view of it is addressed in V.
 *
 * A permutation that moves only axes of extent 1 keeps the elements' order:
 * it stays a view statement, written as the target's reshape, unless it is
 * next to one that moves more in a chain (then it is a link of the chain).
 *
 * A slice keeps its ranges in the order of the tile's dims (partition dim
 * first): where the permutation would reorder two ranges, the slice would be
 * the tile transposed, and the candidate is not written (the front end makes
 * such exchanges with one transpose of the tile axes on chip, fe_transpose).
 * Nor is one where a view of the chain is read by another kind of view (the
 * emitter copies such a permutation into a tensor of its own first, unless
 * it is a link of a chain), a slice takes a whole tensor, or a result views a
 * tensor the kernel does not make (an input or another result).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nest.h"

/* the permutation view node id is, into perm (S dim k is V dim perm[k]): its source, or -1 */
static int
permutation(const AxTiling *T, int id, int *perm)
{
	const AxGraph *g = T->g;
	const TileOp *to = &T->op[id];
	const AxNode *nd = &g->nodes[id];
	if (to->kind != TO_VIEW || to->gather || nd->nin < 1 || nd->in[0] < 0 || nd->rank < 2 ||
	    g->nodes[nd->in[0]].rank != nd->rank)
		return -1;
	for (int o = 1; o < nd->nin; o++)
		if (nd->in[o] >= 0)
			return -1;
	unsigned seen = 0;
	int moved = 0;
	for (int k = 0; k < nd->rank; k++) {
		const TileAxisRead *rd = &to->read[0][k];
		if (rd->kind != 1 || rd->axis < 0 || rd->axis >= nd->rank || (seen >> rd->axis & 1))
			return -1;
		seen |= 1u << rd->axis;
		perm[k] = rd->axis;
		moved |= rd->axis != k;
	}
	return moved ? nd->in[0] : -1;
}

/* Does permutation view id move only axes of extent 1 (the others keep their order)?  Then it is
 * a reshape of its operand, which the target writes as such. */
static int
keeps_order(const AxTiling *T, const AxEnv *env, int id)
{
	int perm[AX_MAXR], s = permutation(T, id, perm), last = -1;
	AxShape sh;
	if (s < 0 || graph_shape(T->g, s, env, &sh) != 0)
		return 0;
	for (int k = 0; k < sh.rank; k++)
		if (sh.d[k] != 1) {
			if (perm[k] < last)
				return 0;
			last = perm[k];
		}
	return 1;
}

int
nest_view_permutes(const AxTiling *T, const AxEnv *env, int id, int *perm)
{
	return keeps_order(T, env, id) ? -1 : permutation(T, id, perm);
}

int
nest_view_read_as_view(const AxTiling *T, int id)
{
	const AxGraph *g = T->g;
	int perm[AX_MAXR];
	for (int r = id + 1; r < g->nnodes; r++)
		for (int o = 0; o < g->nodes[r].nin; o++)
			if (g->nodes[r].in[o] == id && T->op[r].kind == TO_VIEW && !T->op[r].gather &&
			    permutation(T, r, perm) < 0)
				return 1;
	return 0;
}

/* r, a slice of node x (S dim k is its dim rx[k]), made the same slice of base (S dim k is its
 * dim rb[k]): 1, or 0 if it takes the whole tensor or its ranges would change order */
static int
readdress(NsRef *r, const int *rx, const int *rb, int rank, int base)
{
	if (r->nidx != rank || r->ellipsis)
		return 0;
	NsDim d[AX_MAXR];
	int last = -1;
	for (int b = 0; b < rank; b++) {   /* b over base's dims, from x's dim rx[k] */
		int k = 0;
		while (rb[k] != b)
			k++;
		d[b] = r->idx[rx[k]];
		if (d[b].len > 0 || d[b].fold > 0) {
			if (rx[k] < last)
				return 0;
			last = rx[k];
		}
	}
	memcpy(r->idx, d, sizeof *d * (size_t)rank);
	r->var = -1 - base;
	return 1;
}

/* Does a view statement read node id, other than a permutation of it (root[v] >= 0)? */
static int
viewed(const Nest *ns, int id, const int *root)
{
	for (int i = 0; i < ns->n; i++)
		if (ns->s[i].kind == NS_VIEW && root[ns->s[i].node] < 0)
			for (int o = 0; o < ns->g->nodes[ns->s[i].node].nin; o++)
				if (ns->g->nodes[ns->s[i].node].in[o] == id)
					return 1;
	return 0;
}

/* the permutations of the tensor of root s addressed in place (root[v] == s): 1, or 0 and why */
static int
one_root(Nest *ns, int s, const int *root, int (*rel)[AX_MAXR], char *why, size_t nwhy)
{
	const AxGraph *g = ns->g;
	int rank = g->nodes[s].rank, base = s, decl = -1;
	char nm[32], sn[32];
	nest_tensor_name(g, s, sn, sizeof sn);
	for (int v = 0; v < g->nnodes; v++)
		if ((v == s || root[v] == s) && graph_is_output(g, v) && v != s) {
			if (base != s || graph_is_output(g, s)) {
				snprintf(why, nwhy, "%s: returned with its axes permuted, and as another result too", sn);
				return 0;
			}
			base = v;
		}
	for (int k = 0; k < ns->n && base != s; k++)
		if (ns->s[k].kind == NS_TENSOR && ns->s[k].node == s)
			decl = k;
	if (base != s && decl < 0) {
		snprintf(why, nwhy, "%s: returned with its axes permuted, made by no statement of the kernel", sn);
		return 0;
	}
	for (int v = 0; v < g->nnodes; v++)
		if ((v == s || root[v] == s) && v != base && viewed(ns, v, root)) {
			snprintf(why, nwhy, "%s: %s with its axes permuted, read by another view",
			         nest_tensor_name(g, v, nm, sizeof nm), sn);
			return 0;
		}
	for (int k = 0; k < ns->n; k++) {
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[k], r, wr);
		for (int q = 0; q < nr; q++) {
			int x = r[q]->var < 0 && r[q]->var != NS_NONE ? -1 - r[q]->var : -1;
			if (x < 0 || x == base || (x != s && root[x] != s))
				continue;
			if (!readdress(r[q], rel[x], rel[base], rank, base)) {
				snprintf(why, nwhy, "%s: %s with its axes permuted, read with the tile's two axes in the other order",
				         nest_tensor_name(g, x == s ? base : x, nm, sizeof nm), sn);
				return 0;
			}
		}
	}
	if (decl >= 0) {   /* the root's tensor is the result's: its name and shape */
		ns->s[decl].node = base;
		ns->s[decl].output = 1;
		graph_shape(g, base, &ns->env, &ns->s[decl].shape);
	}
	for (int k = 0; k < ns->n; k++)
		if (ns->s[k].kind == NS_VIEW && root[ns->s[k].node] == s) {
			int v = ns->s[k].node;
			ns->s[k].kind = NS_NOTE;
			snprintf(ns->s[k].text, sizeof ns->s[k].text, "%s: %s with its axes permuted, addressed in place",
			         nest_tensor_name(g, v, nm, sizeof nm), nest_tensor_name(g, v == base ? s : base, sn, sizeof sn));
		}
	return 1;
}

int
nest_permute_views(Nest *ns, const AxTiling *T, char *why, size_t nwhy)
{
	const AxGraph *g = ns->g;
	int nn = g->nnodes, any = 0;
	for (int i = 0; i < ns->n && !any; i++)
		any = ns->s[i].kind == NS_VIEW;
	if (!any)
		return 1;
	int *root = malloc(sizeof *root * (size_t)nn);
	int (*rel)[AX_MAXR] = malloc(sizeof *rel * (size_t)nn);
	if (!root || !rel)
		ax_die("out of memory");
	char *moves = calloc((size_t)nn, 1);   /* a view statement permutes more than axes of extent 1 */
	if (!moves)
		ax_die("out of memory");
	for (int i = 0; i < ns->n; i++)
		if (ns->s[i].kind == NS_VIEW)
			moves[ns->s[i].node] = !(ns->s[i].reshape = keeps_order(T, &ns->env, ns->s[i].node));
	for (int again = 1; again;) {   /* one of extent-1 axes next to one that moves: in its chain */
		again = 0;
		for (int i = 0; i < ns->n; i++) {
			int v = ns->s[i].node, perm[AX_MAXR], s;
			if (ns->s[i].kind != NS_VIEW || !moves[v] || (s = permutation(T, v, perm)) < 0)
				continue;
			for (int k = 0; k < ns->n; k++)
				if (ns->s[k].kind == NS_VIEW && !moves[ns->s[k].node] && permutation(T, ns->s[k].node, perm) >= 0 &&
				    (ns->s[k].node == s || g->nodes[ns->s[k].node].in[0] == v))
					moves[ns->s[k].node] = 1, again = 1;
		}
	}
	for (int i = 0; i < ns->n; i++)
		if (ns->s[i].kind == NS_VIEW)
			ns->s[i].reshape &= !moves[ns->s[i].node];
	for (int v = 0; v < nn; v++) {   /* a view's operand comes before it */
		int perm[AX_MAXR], s = moves[v] ? permutation(T, v, perm) : -1;
		root[v] = -1;
		for (int k = 0; k < AX_MAXR; k++)
			rel[v][k] = k;
		if (s < 0)
			continue;
		root[v] = root[s] >= 0 ? root[s] : s;
		for (int k = 0; k < g->nodes[v].rank; k++)   /* root dim k is s's dim rel[s][k], which is v's perm[] */
			rel[v][k] = perm[rel[s][k]];
	}
	int ok = 1;
	for (int s = 0; s < nn && ok; s++) {
		int has = 0;
		for (int v = 0; v < nn && !has; v++)
			has = root[v] == s;
		if (has && root[s] < 0)
			ok = one_root(ns, s, root, rel, why, nwhy);
	}
	free(root);
	free(rel);
	free(moves);
	return ok;
}
