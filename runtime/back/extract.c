/*
 * extract.c — the candidates of one variant, one at a time (paper section
 * 3.6).  A candidate is a combination — one instruction sequence per
 * operation and one engine per instruction — with tile sizes (per axis
 * class the largest the limits allow, a half and a quarter of it; where an axis is not a
 * multiple of its tile, its tiles balanced or not), block sizes (1, 2, 4 .. 32 tiles per block along each
 * axis class, up to its tile count) and a fusion choice (loop-fused, and
 * the unfused form when fusion changed anything).  Instruction fusions are
 * sequence choices (lower_variant, fuse_apply.c); one that includes its
 * producer's computation is a candidate only where that producer is
 * loop-fused into it, with the producer's choice it was found with, and
 * has no unfused form; --no-fusion leaves them all out.  Each candidate is
 * written as statements (nest.h) and its on-chip footprint measured before
 * anything is printed; those that do not fit are dropped and counted.
 * Nothing but the current candidate is held.
 *
 * The space is the product of those choices, often millions; a budget
 * bounds what is visited, spread evenly: if there are more combinations
 * than the budget allows at MINPER tile/block choices each, every k-th
 * combination with MINPER of its tile and block choices; otherwise every
 * combination, each with budget / combinations of them.  A combination's
 * choices are visited in the order j * step mod n (order_step), which
 * starts at the largest tiles without blocks and varies every axis class's
 * scale and blocks from one to the next.  (Where instruction fusion
 * multiplies the combinations, one choice per combination left blocks
 * unvisited: the selected RMSNorm+MatMul at 2048^3 was 4.37 ms in the model,
 * 2.86 ms with 16.)  Sampling is by index: deterministic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract_impl.h"

/* the engines instruction j of s may run on, as its placement allows */
static int
nengines(const AxTarget *t, const SynthSeq *s, int j)
{
	uint32_t m = s->engines[j] ? s->engines[j] : t->insts[s->inst[j]].engines;
	int ne = 0;
	for (int e = 0; e < t->nengines; e++)
		ne += (m >> e) & 1;
	return ne ? ne : 1;
}

/* (sequence, engines) combinations of operation id with sequence q (none for
 * an instruction fusion's under --no-fusion) */
static int64_t
seq_combos(const Extract *x, int id, int q)
{
	const SynthSeq *s = &x->L[id].choice[q].seq;
	if (x->no_fusion && x->L[id].choice[q].fused)
		return 0;
	int64_t n = 1;
	for (int j = 0; j < s->ninsts; j++)
		n *= nengines(x->T->g->t, s, j);
	return n;
}

static int
active(const Extract *x, int id)
{
	return x->T->op[id].kind == TO_COMPUTE && x->L[id].nchoices;
}

Extract *
extract_new(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int nsizes,
            int maxtile, int no_fusion, int64_t budget)
{
	const AxGraph *g = T->g;
	Extract *x = calloc(1, sizeof *x);
	if (!x)
		ax_die("out of memory");
	x->T = T;
	x->L = L;
	x->maxtry = MAXTRY;
	x->names = calloc(512, sizeof *x->names);
	x->vals = calloc(512, sizeof *x->vals);
	x->choice = calloc((size_t)g->nnodes + 1, sizeof(int));
	x->engsel = calloc((size_t)g->nnodes * 8 + 8, sizeof(int));
	x->cnt = calloc((size_t)g->nnodes + 1, sizeof(int64_t));
	x->memo = calloc((size_t)g->nnodes + 1, sizeof(Term **));
	x->limits = calloc((size_t)g->nnodes + 1, sizeof(Term *));
	if (!x->names || !x->vals || !x->choice || !x->engsel || !x->cnt || !x->memo || !x->limits)
		ax_die("out of memory");
	memcpy(x->names, names, sizeof *names * (size_t)nsizes);
	memcpy(x->vals, vals, sizeof *vals * (size_t)nsizes);
	x->nsizes = x->n = nsizes;
	x->maxtile = maxtile;
	x->no_fusion = no_fusion;
	x->ncombo = 1;
	for (int id = 0; id < g->nnodes; id++) {
		if (!active(x, id))
			continue;
		for (int q = 0; q < L[id].nchoices; q++)
			x->cnt[id] += seq_combos(x, id, q);
		x->memo[id] = calloc((size_t)x->cnt[id] + 1, sizeof(Term *));
		if (!x->memo[id])
			ax_die("out of memory");
		if (!x->cnt[id]) {   /* only fused choices, and fusion is off */
			x->ncombo = 0;
			break;
		}
		x->ncombo = x->ncombo > INT64_MAX / x->cnt[id] ? INT64_MAX : x->ncombo * x->cnt[id];
	}
	if (budget < 1)
		budget = 1;
	int64_t combos = budget / MINPER > 0 ? budget / MINPER : 1;   /* combinations visited at most */
	x->cstride = x->ncombo > combos ? x->ncombo / combos + (x->ncombo % combos != 0) : 1;   /* no overflow at INT64_MAX */
	x->per = x->ncombo >= combos ? MINPER : budget / x->ncombo;
	x->visit = -1;
	return x;
}

void
extract_free(Extract *x)
{
	if (!x)
		return;
	for (int id = 0; id < x->T->g->nnodes; id++)
		free(x->memo[id]);
	free(x->memo);
	free(x->limits);
	free(x->cnt);
	free(x->focus);
	free(x->list);
	free(x->names);
	free(x->vals);
	free(x->choice);
	free(x->engsel);
	free(x);
}

int64_t
extract_combinations(const Extract *x)
{
	return x->ncombo;
}

/* The conjuncts of limit that do not mention operation id's tile sizes. */
static Term *
without_sizes_of(const AxTiling *T, int id, Term *limit)
{
	TermCtx *tc = T->g->tc;
	if (limit->kind == TK_AND && limit->n == 2)
		return t_bin(tc, TK_AND, without_sizes_of(T, id, limit->a[0]), without_sizes_of(T, id, limit->a[1]));
	const TileOp *to = &T->op[id];
	for (int k = 0; k < to->naxes; k++)
		if (to->ax[k].t && t_mentions(limit, t_var(tc, to->ax[k].t, TS_INT)))
			return t_bool(tc, 1);
	return limit;
}

/* Combination c (mixed radix over the operations, last fastest) into
 * choice/engsel, with each operation's limits.  0 if it repeats another: a
 * choice that includes its producer's computation (instruction fusion across
 * the two) with the producer's choice not the one it was found with. */
int
ex_decode(Extract *x, int64_t c)
{
	const AxGraph *g = x->T->g;
	for (int id = g->nnodes - 1; id >= 0; id--) {
		if (!active(x, id))
			continue;
		int64_t d = c % x->cnt[id], k = d;
		c /= x->cnt[id];
		int q = 0;
		while (q + 1 < x->L[id].nchoices && k >= seq_combos(x, id, q))
			k -= seq_combos(x, id, q++);
		x->choice[id] = q;
		const SynthSeq *s = &x->L[id].choice[q].seq;
		for (int j = s->ninsts - 1; j >= 0; j--) {
			int ne = nengines(g->t, s, j);
			x->engsel[id * 8 + j] = (int)(k % ne);
			k /= ne;
		}
		if (!x->memo[id][d])
			x->memo[id][d] = seq_limit(x->T, x->L, id, q, x->engsel + id * 8);
		x->limits[id] = x->memo[id][d];
	}
	for (int id = 0; id < g->nnodes; id++) {
		const LowerChoice *ch = active(x, id) ? &x->L[id].choice[x->choice[id]] : NULL;
		if (!ch || !ch->tile)
			continue;
		int p = ch->absorb;
		if (x->choice[p] != ch->absorb_choice)
			return 0;
		/* the producer's tiles obey the fused instructions' limits too (those on its sizes) */
		x->limits[p] = t_bin(g->tc, TK_AND, x->limits[p], without_sizes_of(x->T, id, x->limits[id]));
	}
	return 1;
}

/* Does the current combination include a producer's computation in its reader's choice? */
int
ex_absorbing(const Extract *x)
{
	for (int id = 0; id < x->T->g->nnodes; id++)
		if (active(x, id) && x->L[id].choice[x->choice[id]].tile)
			return 1;
	return 0;
}

/* Tile sizes of the current combination at the current scales (each axis
 * class's tiles at most its largest >> scale), and the block options they
 * leave: per axis class, powers of two up to the first at or above the most
 * tiles an operation has along it (at most MAXBLOCK).  0 = ok. */
int
ex_set_tiles(Extract *x)
{
	const AxTiling *T = x->T;
	const AxGraph *g = T->g;
	int any = 0;
	for (int c = 0; c < 64; c++) {
		x->capv[c] = x->scale[c] ? x->largest[c] >> x->scale[c] : 0;
		any |= x->scale[c] != 0;
	}
	x->n = x->nsizes;
	if (tile_sizes_capped(T, x->L, x->choice, x->engsel, x->limits, any ? x->capv : NULL, x->bal, x->names, x->vals,
	                      &x->n, 512, x->maxtile, x->why, sizeof x->why) != 0)
		return -1;
	AxEnv env = { x->n, x->names, x->vals };
	if (x->bal && !tiles_have_tail(T, &env))
		return -1;   /* nothing to balance: the same tiles as unbalanced */
	int64_t most[64] = { 0 };
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &T->op[id];
		for (int k = 0; to->kind == TO_COMPUTE && k < to->naxes; k++) {
			const TileAxis *ax = &to->ax[k];
			double ext, t;
			if (!ax->t || ax->bcls < 0 || ax->bcls >= 64 || t_eval(ax->extent, &env, &ext) != 0 ||
			    t_eval(t_var(g->tc, ax->t, TS_INT), &env, &t) != 0 || t < 1)
				continue;
			if (!any && ax->cls >= 0 && (int64_t)t > x->largest[ax->cls])   /* the halvings are of these */
				x->largest[ax->cls] = (int64_t)t;
			/* blocks along parallel axes, and K blocks along a sum across tiles (emit_kernel.c) */
			if (ax->tiled && !ax->unit && (!ax->red || ax->red == TR_SUM) && (int64_t)(ext / t) > most[ax->bcls])
				most[ax->bcls] = (int64_t)(ext / t);
		}
	}
	for (int c = 0; c < 64; c++) {   /* up to the first power of two at or above the most tiles: the
		                                  * emitter takes the largest divisor of the tile count not above
		                                  * it, so 3 tiles can be one block of 3 (em_op_axes) */
		x->nblk[c] = 1;
		while (x->nblk[c] < 6 && (1 << (x->nblk[c] - 1)) < most[c] && (1 << x->nblk[c]) <= MAXBLOCK)
			x->nblk[c]++;
		x->blocks[c] = 1;
	}
	return 0;
}

/* Could the current blocks fold (emit_fold.c's first test: a block class of
 * more than one tile along an axis that is the partition axis of a result)?
 * sized: at the current tiles, with the blocks a fold takes there
 * (fold_blocks), so that a folded form that cannot be written fails for its
 * slices, the same for every tile and block choice of the combination. */
static int
foldable(const Extract *x, int sized)
{
	const AxGraph *g = x->T->g;
	AxEnv env = { x->n, x->names, x->vals };
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &x->T->op[id];
		for (int k = 0; to->kind == TO_COMPUTE && k < to->naxes; k++) {
			const TileAxis *ax = &to->ax[k];
			double ext, t;
			if (!ax->t || ax->bcls < 0 || ax->bcls >= 64 || x->blocks[ax->bcls] < 2 || !fold_axis_ok(g, to, id, k))
				continue;
			if (!sized)
				return 1;
			if (t_eval(ax->extent, &env, &ext) == 0 && t_eval(t_var(g->tc, ax->t, TS_INT), &env, &t) == 0 &&
			    fold_blocks((int64_t)ext, (int64_t)t, x->blocks[ax->bcls]) > 1)
				return 1;
		}
	}
	return 0;
}

/* Tile/block choice i's digits (set_sub's mixed radix): blocks, scales, balance; what is left
 * above them (the fold digit).  sub_index puts them back, unfolded. */
static int64_t
sub_digits(const Extract *x, int64_t i, int *blk, int *scale, int *bal)
{
	for (int c = 63; c >= 0; c--) {
		blk[c] = (int)(i % x->nblkmax[c]);
		i /= x->nblkmax[c];
	}
	for (int c = 63; c >= 0; c--) {
		scale[c] = (int)(i % x->nscale[c]);
		i /= x->nscale[c];
	}
	*bal = (int)(i % x->nbal);
	return i / x->nbal;
}

/* Tile/block choice i of the current combination: mixed radix, the blocks
 * fastest, each class's scale (radix nscale) then block (radix nblkmax: 1,
 * 2, 4 .. tiles per block, up to the most tiles at the smallest scale),
 * then whether tails are balanced (radix nbal), then whether blocks fold
 * (radix nfold).  0 if it is not a choice: a block larger than the tiles
 * there are, balance where no axis has a tail, folds where no block can. */
int
ex_set_sub(Extract *x, int64_t i)
{
	int scale[64], blk[64], bal, changed = 0;
	x->fold = (int)(sub_digits(x, i, blk, scale, &bal) % x->nfold);
	for (int c = 0; c < 64; c++)
		changed |= scale[c] != x->scale[c];
	changed |= bal != x->bal;
	if (changed || !x->sized) {
		memcpy(x->scale, scale, sizeof scale);
		x->bal = bal;
		x->sized = ex_set_tiles(x) == 0;
	}
	if (!x->sized)
		return 0;
	for (int c = 0; c < 64; c++) {
		if (blk[c] >= x->nblk[c])
			return 0;
		x->blocks[c] = 1 << blk[c];
	}
	return !x->fold || (!x->unfit && foldable(x, 1));
}

/* The current combination's tile/block choices: *count gets how many
 * indices there are.  0 = its tiles cannot be sized. */
int
ex_start_combo(Extract *x, int64_t *count)
{
	for (int i_ = 0; i_ < 64; i_++)
		x->scale[i_] = 0;
	for (int i_ = 0; i_ < 64; i_++)
		x->largest[i_] = 0;
	x->bal = x->fold = x->unfit = 0;
	if (ex_set_tiles(x) != 0)
		return 0;
	AxEnv env0 = { x->n, x->names, x->vals };
	x->nbal = tiles_have_tail(x->T, &env0) ? 2 : 1;
	*count = 1;
	for (int c = 0; c < 64; c++) {
		x->nscale[c] = 1;
		while (x->nscale[c] < MAXSCALE && x->largest[c] >> x->nscale[c] >= 1)
			x->nscale[c]++;
		x->scale[c] = x->nscale[c] - 1;
	}
	/* at the smallest tiles, the most blocks */
	int ok = ex_set_tiles(x) == 0;
	AxEnv env1 = { x->n, x->names, x->vals };
	if (ok && tiles_have_tail(x->T, &env1))
		x->nbal = 2;
	for (int c = 0; c < 64; c++) {
		x->nblkmax[c] = ok ? x->nblk[c] : 1;
		*count *= x->nscale[c] * x->nblkmax[c];
		if (*count > INT64_MAX / 64 / 64)
			*count = INT64_MAX / 64 / 64;
	}
	*count *= x->nbal;
	x->nfold = 1;   /* folds where blocks can be had along a partition axis */
	for (int c = 0; c < 64 && x->nfold == 1; c++)
		if (x->nblkmax[c] > 1) {
			for (int k = 0; k < 64; k++)
				x->blocks[k] = k == c ? 2 : 1;
			x->nfold = foldable(x, 0) ? 2 : 1;
		}
	for (int k = 0; k < 64; k++)
		x->blocks[k] = 1;
	*count *= x->nfold;
	x->sized = 0;
	return 1;
}

/* The step of a combination's visiting order over its n tile/block choices: index j * step mod n
 * for j = 0, 1, ..., which starts at choice 0 (the largest tiles, no blocks) and, the step near
 * n / golden ratio and prime to n, reaches every choice once while any few consecutive ones differ
 * in every digit of the mixed radix (scale and blocks of every axis class), not only the fastest. */
static int64_t
order_step(int64_t n)
{
	if (n <= 2)
		return 1;
	int64_t s = (int64_t)((double)n * 0.6180339887498949);
	if (s < 1)
		s = 1;
	while (ax_gcd(s, n) != 1)
		s++;
	return s;
}

/* Does the first round visit combination combo (every cstride-th)? */
static int
first_round(const Extract *x, int64_t combo)
{
	return combo % x->cstride == 0;
}

/* The next combination visited: a stride further, or the end (ncombo may be INT64_MAX) */
static void
step_combo(Extract *x)
{
	x->combo = x->combo > x->ncombo - x->cstride ? x->ncombo : x->combo + x->cstride;
}

/* The next combination visited: a stride further, or the next in focus */
static void
next_combo(Extract *x)
{
	if (!x->focus)
		step_combo(x);
	else
		x->combo = ++x->fi < x->nfocus ? x->focus[x->fi] : x->ncombo;
}


/* The next pair of the list (extract_list); 0 at its end.  Every pair is a visit, so that
 * the ordinals, and the workers' shares, are the pairs' places in the list. */
static int
advance_list(Extract *x)
{
	while (++x->li < x->nlist) {
		int64_t combo = x->list[x->li][0], sub = x->list[x->li][1];
		x->visit++;
		if (!x->started || combo != x->combo) {
			x->started = 1;
			x->combo = combo;
			x->lok = combo >= 0 && combo < x->ncombo && ex_decode(x, combo) && ex_start_combo(x, &x->count);
		}
		if (x->lok && sub >= 0 && sub < x->count / x->nfold && ex_set_sub(x, sub)) {
			x->sub = sub;
			return 1;
		}
	}
	return 0;
}

static int blocked_firsts(Extract *x, int64_t *out);

/* Advances to the next candidate to visit; 0 at the end. */
static int
advance(Extract *x)
{
	if (x->list)
		return advance_list(x);
	for (;;) {
		/* the current combination's next tile/block choice in its visiting order */
		int64_t nv = x->nfold > 0 ? x->count / x->nfold : x->count;   /* the folded forms are visited with the unfolded (next_one) */
		while (x->started && x->sj < nv && x->taken < x->per) {
			int64_t i = x->si;
			x->si = (x->si + x->sstride) % nv;   /* both below nv: no overflow */
			x->sj++;
			int seen = 0;
			for (int k = 0; k < x->nseen; k++)
				seen |= x->seen[k] == i;
			if (!seen && ex_set_sub(x, i)) {
				x->sub = i;
				x->taken++;
				x->visit++;
				return 1;
			}
		}
		if (x->started)
			next_combo(x);
		x->started = 1;
		while (x->combo < x->ncombo && (!ex_decode(x, x->combo) || !ex_start_combo(x, &x->count)))
			next_combo(x);
		if (x->combo >= x->ncombo)
			return 0;
		nv = x->count / x->nfold;
		x->sstride = order_step(nv);
		x->sj = x->si = x->taken = 0;
		x->nseen = 0;
		if (x->focus) {   /* past the choices the first round visited, or as a neighbour, its blocked firsts */
			x->sj = x->fskip < nv ? x->fskip : nv;
			x->si = (int64_t)((__int128)x->sj * x->sstride % nv);
			if (!first_round(x, x->combo))
				x->nseen = blocked_firsts(x, x->seen);
		}
	}
}

void
extract_focus(Extract *x, const int64_t *combos, int n, int64_t per)
{
	free(x->focus);
	x->focus = malloc(sizeof *x->focus * (size_t)(n + 1));
	if (!x->focus)
		ax_die("out of memory");
	memcpy(x->focus, combos, sizeof *combos * (size_t)n);
	x->nfocus = n;
	x->fi = 0;
	x->fskip = x->per;
	x->per = per;
	x->combo = n ? combos[0] : x->ncombo;
	x->started = 0;
	x->pending_unfused = x->pending_fold = x->pending_plain = 0;
	x->visit = EXTRACT_FOCUS_BASE - 1;
}

void
extract_list(Extract *x, const int64_t (*pairs)[2], int n, int64_t base)
{
	free(x->list);
	x->list = malloc(sizeof *x->list * (size_t)(n + 1));
	if (!x->list)
		ax_die("out of memory");
	memcpy(x->list, pairs, sizeof *pairs * (size_t)n);
	x->nlist = n;
	x->li = -1;
	x->started = 0;
	x->pending_unfused = x->pending_fold = x->pending_plain = 0;
	x->visit = base - 1;
}

static int64_t
sub_index(const Extract *x, const int *blk, const int *scale, int bal)
{
	int64_t i = bal;
	for (int c = 0; c < 64; c++)
		i = i * x->nscale[c] + scale[c];
	for (int c = 0; c < 64; c++)
		i = i * x->nblkmax[c] + blk[c];
	return i;
}

/* The first choices a neighbour combination is judged at (extract_neighbour_visits): the
 * largest tiles without blocks, then in blocks of 2 and of 4 tiles along every axis class (a
 * combination's worth shows with blocks; the next choice of the visiting order may be its
 * smallest tiles), those that differ, into out[3]: how many. */
static int
blocked_firsts(Extract *x, int64_t *out)
{
	int blk[64] = { 0 }, scale[64] = { 0 }, nblk[64], n = 0;
	if (!ex_set_sub(x, sub_index(x, blk, scale, 0)))   /* the block options at the largest tiles */
		return 0;
	memcpy(nblk, x->nblk, sizeof nblk);
	for (int b = 0; b < 3; b++) {
		for (int c = 0; c < 64; c++)
			blk[c] = b < nblk[c] ? b : nblk[c] - 1;
		int64_t s = sub_index(x, blk, scale, 0);
		if (!n || out[n - 1] != s)
			out[n++] = s;
	}
	return n;
}

int
extract_neighbours(Extract *x, int64_t combo, int64_t sub, int64_t *out, int room)
{
	int64_t count = 0;
	if (combo < 0 || combo >= x->ncombo || sub < 0 || !ex_decode(x, combo) || !ex_start_combo(x, &count))
		return 0;
	int64_t nv = count / x->nfold;
	int blk[64], scale[64], bal, n = 0;
	sub_digits(x, sub % nv, blk, scale, &bal);
	/* per axis class: blocks one step up or down, tiles one step, and both together (halved
	 * tiles with twice the blocks: the same block extent); tails balanced or not */
	static const int moves[6][2] = { { 0, 1 }, { 0, -1 }, { 1, 0 }, { -1, 0 }, { 1, 1 }, { -1, -1 } };
	for (int c = 0; c < 64; c++)
		for (int m = 0; m < 6; m++) {
			int s = scale[c] + moves[m][0], b = blk[c] + moves[m][1];
			if (s < 0 || s >= x->nscale[c] || b < 0 || b >= x->nblkmax[c])
				continue;
			int os = scale[c], ob = blk[c];
			scale[c] = s;
			blk[c] = b;
			int64_t i = sub_index(x, blk, scale, bal);
			scale[c] = os;
			blk[c] = ob;
			int dup = 0;
			for (int k = 0; k < n && !dup; k++)
				dup = out[k] == i;
			if (!dup && n < room)
				out[n++] = i;
		}
	if (x->nbal > 1 && n < room)
		out[n++] = sub_index(x, blk, scale, !bal);
	return n;
}

/* the choice of operation id that digit d of a combination names */
static int
digit_choice(const Extract *x, int id, int64_t d)
{
	int q = 0;
	while (q + 1 < x->L[id].nchoices && d >= seq_combos(x, id, q))
		d -= seq_combos(x, id, q++);
	return q;
}

int
extract_combo_neighbours(Extract *x, int64_t combo, int64_t *out, int room)
{
	const AxGraph *g = x->T->g;
	if (combo < 0 || combo >= x->ncombo || x->ncombo == INT64_MAX || !ex_decode(x, combo))
		return 0;
	int64_t *place = calloc((size_t)g->nnodes + 1, sizeof *place), *digit = calloc((size_t)g->nnodes + 1, sizeof *digit);
	if (!place || !digit)
		ax_die("out of memory");
	int64_t pl = 1, c = combo;
	for (int id = g->nnodes - 1; id >= 0; id--)   /* mixed radix, the last operation fastest (ex_decode) */
		if (active(x, id)) {
			place[id] = pl;
			digit[id] = c % x->cnt[id];
			c /= x->cnt[id];
			pl *= x->cnt[id];   /* at most ncombo: no overflow */
		}
	int n = 0;
	for (int id = 0; id < g->nnodes && n < room; id++) {
		if (!active(x, id))
			continue;
		for (int64_t d = 0; d < x->cnt[id] && n < room; d++) {
			if (d == digit[id])
				continue;
			int64_t nc = combo + (d - digit[id]) * place[id];
			const LowerChoice *ch = &x->L[id].choice[digit_choice(x, id, d)];
			if (ch->tile && active(x, ch->absorb) && ch->absorb != id &&
			    digit_choice(x, ch->absorb, digit[ch->absorb]) != ch->absorb_choice) {
				int64_t off = 0;   /* the producer's choice it was found with, its first engines */
				for (int q = 0; q < ch->absorb_choice; q++)
					off += seq_combos(x, ch->absorb, q);
				nc += (off - digit[ch->absorb]) * place[ch->absorb];
			}
			int dup = 0;
			for (int k = 0; k < n && !dup; k++)
				dup = out[k] == nc;
			if (!dup && nc != combo && ex_decode(x, nc))
				out[n++] = nc;
		}
	}
	free(place);
	free(digit);
	return n;
}

/* Visit (combo, sub) appended to pairs[*n] unless the combination's visits from first on have
 * it or it cannot be sized: 1 if appended. */
static int
add_visit(Extract *x, int64_t (*pairs)[2], int *n, int first, int64_t combo, int64_t sub)
{
	for (int k = first; k < *n; k++)
		if (pairs[k][1] == sub)
			return 0;
	if (!ex_set_sub(x, sub))
		return 0;
	pairs[*n][0] = combo;
	pairs[(*n)++][1] = sub;
	return 1;
}

int
extract_neighbour_visits(Extract *x, int64_t combo, int64_t (*pairs)[2], int room)
{
	int64_t nb[256];
	int k = extract_combo_neighbours(x, combo, nb, 256), n = 0;
	for (int j = 0; j < k && n + EXTRACT_NEIGHBOUR_SUBS <= room; j++) {
		int64_t count = 0;
		if (first_round(x, nb[j]) ||
		    !ex_decode(x, nb[j]) || !ex_start_combo(x, &count))
			continue;
		int64_t nv = count / x->nfold, step = order_step(nv), i = 0;
		int first = n, got = 0;
		int64_t bf[3];   /* its blocked first choices, then the visiting order's */
		for (int b = 0, nbf = blocked_firsts(x, bf); b < nbf && got < EXTRACT_NEIGHBOUR_SUBS; b++)
			got += add_visit(x, pairs, &n, first, nb[j], bf[b]);
		for (int64_t m = 0; m < nv && got < EXTRACT_NEIGHBOUR_SUBS; m++, i = (i + step) % nv)
			got += add_visit(x, pairs, &n, first, nb[j], i);
	}
	return n;
}

/* x's current choice (choice i of combination combo) written, into c (fuse: nest_build's; *nf
 * its fusions); NULL and c->why if it cannot be. */
Nest *
ex_write_current(Extract *x, int64_t combo, int64_t i, int fuse, int *nf, ExtractCand *c)
{
	AxEnv env = { x->n, x->names, x->vals };
	*nf = 0;
	Nest *ns = nest_build_at(x->T, x->L, x->choice, x->engsel, x->blocks, x->fold, &env, fuse, nf, c->why,
	                         sizeof c->why, &c->why_node);
	if (!ns)
		return NULL;
	*c = (ExtractCand){ .combo = combo, .sub = i, .visit = -1, .fused = fuse ? *nf : -1, .choice = x->choice,
	                    .engsel = x->engsel, .blocks = x->blocks, .fold = x->fold, .env = env };
	nest_room(ns, &c->fp);
	return ns;
}

Nest *
extract_at(Extract *x, int64_t combo, int64_t sub, int fuse, ExtractCand *c)
{
	*c = (ExtractCand){ .combo = combo, .sub = sub, .visit = -1, .fused = -1, .failed = 1, .why_node = -1 };
	fuse = x->no_fusion ? 0 : fuse;   /* a fused form: NEST_FUSE or NEST_FUSE_PLAIN */
	int64_t count = 0;
	if (combo < 0 || combo >= x->ncombo || !ex_decode(x, combo) || !ex_start_combo(x, &count) || sub < 0 || sub >= count ||
	    !ex_set_sub(x, sub) || !ex_usable(x) || (!fuse && ex_absorbing(x))) {
		snprintf(c->why, sizeof c->why, "no candidate %lld.%lld at these sizes", (long long)combo, (long long)sub);
		return NULL;
	}
	int nf;
	return ex_write_current(x, combo, sub, fuse, &nf, c);
}

/* Is the current candidate one?  Not if a choice includes its producer's
 * computation and the producer is not loop-fused into it at these tiles. */
int
ex_usable(Extract *x)
{
	AxEnv env = { x->n, x->names, x->vals };
	return !ex_absorbing(x) || nest_can_absorb(x->T, x->L, x->choice, &env);
}

/* The next visit of this worker's share (extract_share); 0 at the end. */
static int
advance_share(Extract *x)
{
	for (;;) {
		if (!advance(x))
			return 0;
		if (x->share_n <= 0 || x->visit % x->share_n == x->share_k)
			return 1;
	}
}

void
extract_share(Extract *x, int64_t k, int64_t n)
{
	x->share_k = k;
	x->share_n = n;
}

void
extract_set_tries(Extract *x, int64_t n)
{
	x->maxtry = n > 0 ? n : MAXTRY;
}

int64_t
extract_stride(const Extract *x)
{
	return x->cstride;
}

static Nest *next_one(Extract *x, ExtractCand *c);

Nest *
extract_next(Extract *x, ExtractCand *c)
{
	for (;;) {   /* a folded form that cannot be written is no candidate: the next, and the
	              * combination's other folded forms are passed over (their slices are the same) */
		Nest *ns = next_one(x, c);
		if (ns || c->end || !x->fold)
			return ns;
		x->unfit = 1;
		x->pending_unfused = x->pending_fold = x->pending_plain = 0;
	}
}

static Nest *
next_one(Extract *x, ExtractCand *c)
{
	*c = (ExtractCand){ .why_node = -1 };
	int fuse;
	if (x->pending_plain) {
		x->pending_plain = 0;
		fuse = NEST_FUSE_PLAIN;
	} else if (x->pending_unfused) {
		x->pending_unfused = 0;
		fuse = 0;
	} else if (x->pending_fold) {   /* the same tiles and blocks folded: the choice's twin in the upper half */
		x->pending_fold = 0;
		x->fold = 1;
		x->sub += x->count / x->nfold;
		fuse = !x->no_fusion;
	} else {
		int more;
		while ((more = advance_share(x)) && !ex_usable(x))
			;
		if (!more) {
			c->end = 1;
			snprintf(c->why, sizeof c->why, "%s", x->why);
			return NULL;
		}
		fuse = !x->no_fusion;
		x->pending_fold = x->nfold > 1 && !x->unfit && foldable(x, 1);
	}
	AxEnv env = { x->n, x->names, x->vals };
	int nfused = 0;
	Nest *ns = nest_build_at(x->T, x->L, x->choice, x->engsel, x->blocks, x->fold, &env, fuse, &nfused, c->why,
	                         sizeof c->why, &c->why_node);
	/* the form without epilogues next, if it differs; the unfused form, unless it is the same candidate */
	x->pending_plain = fuse == NEST_FUSE && ns && nfused >= NEST_EPILOGUE;
	x->pending_unfused = fuse && (!ns || nfused > 0) && !ex_absorbing(x) && !x->fold;   /* folded: the fused form only */
	c->combo = x->combo;
	c->sub = x->sub;
	c->visit = x->visit;
	c->fused = fuse ? nfused : -1;
	c->choice = x->choice;
	c->engsel = x->engsel;
	c->blocks = x->blocks;
	c->fold = x->fold;
	c->env = env;
	if (!ns) {
		c->failed = 1;
		return NULL;
	}
	nest_room(ns, &c->fp);
	return ns;
}

int64_t
extract_visits(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int nsizes,
               int maxtile, int64_t budget)
{
	Extract *x = extract_new(T, L, names, vals, nsizes, maxtile, 0, budget);
	int64_t n = 0;
	while (advance(x))
		n += ex_usable(x);
	extract_free(x);
	return n;
}
