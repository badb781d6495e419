/*
 * tile_size.c — the concrete tile sizes of a candidate: per tile parameter
 * of its chosen sequences, the size with the fewest tiles that the
 * sequences' limits allow (a divisor of the axis where one gives as few
 * tiles, else full tiles and a tail tile, balanced or not), within the
 * caps of the search; and whether a candidate has a tail anywhere.
 */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* The preconditions of operation id's sequence choice on its chosen
 * engines (engsel: per instruction of it), over its tile parameters. */
Term *
seq_limit(const AxTiling *T, const LowerNode *L, int id, int choice, const int *engsel)
{
	const AxGraph *g = T->g;
	const TileOp *to = &T->op[id];
	const LowerChoice *ch = &L[id].choice[choice];
	const SynthSeq *q = &ch->seq;
	const AxGraph *tile = ch->tile ? ch->tile : to->tile;
	AxGraph *h = graph_new(g->t, g->tc);
	int node[8], in[2 * AX_MAXOPND];
	for (int p = 0; p < tile->nparams && p < 2 * AX_MAXOPND; p++) {
		AxNode x = tile->nodes[tile->params[p].node];
		in[p] = graph_add(h, &x);
	}
	Term *limit = ch->hyp ? ch->hyp : t_bool(g->tc, 1);   /* a fusion: where its proofs hold */
	for (int j = 0; j < q->ninsts; j++) {
		int opnd[AX_MAXOPND];
		for (int o = 0; o < AX_MAXOPND; o++) {
			int s = q->src[j][o];
			opnd[o] = s == SYNTH_OMITTED ? -1 : s >= 0 ? node[s] : in[-1 - s];
		}
		Term *pre;
		node[j] = graph_add_inst(h, q->inst[j], em_seq_engine(g->t, q, j, engsel ? engsel[j] : 0), q->attr[j],
		                         q->sattr[j], opnd, &pre);
		limit = t_bin(g->tc, TK_AND, limit, pre);
	}
	return limit;
}

/* Do operation id's sequence limits (and its combining sequence's) hold at env? */
int
tile_limits_hold(const LowerNode *L, int id, Term *limit, const AxEnv *env)
{
	double ok1 = 1, ok2 = 1;
	if (t_eval(limit, env, &ok1) != 0)
		ok1 = 1;
	if (L[id].ncombine && L[id].combine[0].limit && t_eval(L[id].combine[0].limit, env, &ok2) != 0)
		ok2 = 1;
	return ok1 != 0 && ok2 != 0;
}

/* Where the scan for a tile size starts, at most top: top itself when its
 * limits hold there, else below twice the largest power of two at which they
 * hold (a limit such as 't <= 128' makes the scan of a size of 10^8 short;
 * every size scanned is still checked). */
static int64_t
scan_start(const LowerNode *L, int id, Term *limit, const AxEnv *env, double *val, int64_t top)
{
	*val = (double)top;
	if (top <= 64 || tile_limits_hold(L, id, limit, env))
		return top;
	int64_t p = (int64_t)1 << 62;
	while (p > top)
		p >>= 1;
	for (; p > 64; p >>= 1) {
		*val = (double)p;
		if (tile_limits_hold(L, id, limit, env))
			return 2 * p - 1 < top ? 2 * p - 1 : top;
	}
	return 127 < top ? 127 : top;
}

/* Per tile parameter of the chosen sequences, the size of its axis with the
 * fewest tiles (a divisor when one does as well, else full tiles and a
 * smaller tail tile: the largest size, or with balance the smallest that
 * keeps as few tiles) that the sequence's limits (limits[id], or computed; and its combining
 * sequence's) allow, at most maxtile (> 0) and its axis class's clscap
 * (> 0); appended to the environment names/vals (cap entries at most).
 * 0 = ok. */
int
tile_sizes_capped(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, Term *const *limits,
                  const int64_t *clscap, int balance, const char **names, double *vals, int *n, int cap,
                  int64_t maxtile, char *why, size_t nwhy)
{
	const AxGraph *g = T->g;
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &T->op[id];
		if (to->kind != TO_COMPUTE || !L[id].nchoices)
			continue;
		Term *limit = limits ? limits[id] : seq_limit(T, L, id, choice[id], engsel ? engsel + id * 8 : NULL);
		int base = *n;
		for (int k = 0; k < to->naxes; k++)
			if (to->ax[k].t && *n < cap) {
				names[*n] = t_var(g->tc, to->ax[k].t, TS_INT)->name;   /* the term's own: found by pointer */
				vals[(*n)++] = 1;
			}
		const LowerChoice *ch = &L[id].choice[choice[id]];
		for (int k = 0, p = base; k < to->naxes; k++) {
			if (!to->ax[k].t)
				continue;
			/* a choice that includes its producer's computation: the tiles they share are the producer's */
			Term *tied = NULL;
			for (int j = 0; ch->tile && j < ch->ntie && !tied; j++)
				if (ch->tie_from[j] == t_var(g->tc, to->ax[k].t, TS_INT))
					tied = ch->tie_to[j];
			if (tied) {
				AxEnv env = { *n, names, vals };
				if (t_eval(tied, &env, &vals[p]) != 0) {
					snprintf(why, nwhy, "cannot evaluate the producer's tile size for %s", to->ax[k].t);
					return -1;
				}
				p++;
				continue;
			}
			AxEnv env = { *n, names, vals };
			double ext;
			if (t_eval(to->ax[k].extent, &env, &ext) != 0) {
				snprintf(why, nwhy, "cannot evaluate the extent of %s", to->ax[k].t);
				return -1;
			}
			int cls = to->ax[k].cls;
			int64_t most = clscap && cls >= 0 && cls < 64 && clscap[cls] > 0 ? clscap[cls] : 0;
			int64_t top = (int64_t)ext;
			if (maxtile > 0 && top > maxtile)
				top = maxtile;
			if (most && top > most)
				top = most;
			/* the size with the fewest tiles whose limits hold (at the tail tile too): a divisor
			 * of the extent when one gives as few tiles (clean splits), else full tiles and a tail */
			int64_t e64 = (int64_t)ext, div = 0, any = 0;
			int64_t start = scan_start(L, id, limit, &env, &vals[p], top > 1 ? top : 1);
			for (int64_t d = start; d >= 1; d--) {
				if (any && d * ((e64 + any - 1) / any) < e64)
					break;   /* a divisor this small gives more tiles than the tail does */
				vals[p] = (double)d;
				if (!tile_limits_hold(L, id, limit, &env))
					continue;
				if (e64 % d == 0) {
					div = d;
					break;
				}
				if (!any) {
					vals[p] = (double)(e64 % d);
					if (tile_limits_hold(L, id, limit, &env))
						any = d;
				}
			}
			vals[p] = div ? (double)div : any ? (double)any : 1;
			if (!div && any && balance) {   /* as few tiles, balanced: the tail nearly full (2049 = 16 x 121 + 113) */
				int64_t nt = (e64 + any - 1) / any, bal = (e64 + nt - 1) / nt;
				vals[p] = (double)bal;
				int ok = tile_limits_hold(L, id, limit, &env);
				vals[p] = (double)(e64 % bal);
				if (ok && (e64 % bal == 0 || tile_limits_hold(L, id, limit, &env)))
					vals[p] = (double)bal;
				else
					vals[p] = (double)any;
			}
			p++;
		}
	}
	return 0;
}

int
kernel_tile_sizes(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const char **names,
               double *vals, int *n, int cap, int64_t maxtile, char *why, size_t nwhy)
{
	return tile_sizes_capped(T, L, choice, engsel, NULL, NULL, 0, names, vals, n, cap, maxtile, why, nwhy);
}

int
tiles_have_tail(const AxTiling *T, const AxEnv *env)
{
	const AxGraph *g = T->g;
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &T->op[id];
		for (int k = 0; to->kind == TO_COMPUTE && k < to->naxes; k++) {
			double ext, t;
			if (to->ax[k].t && t_eval(to->ax[k].extent, env, &ext) == 0 &&
			    t_eval(t_var(g->tc, to->ax[k].t, TS_INT), env, &t) == 0 && t >= 1 &&
			    (int64_t)ext % (int64_t)t != 0)
				return 1;
		}
	}
	return 0;
}
