/*
 * extract_like.c — a combination written at other sizes than extraction's, to validate its
 * structure there (measure/verdict.c): at its own tile/block choices (extract_combo), or with
 * the loops of a stand-in at the requested sizes (extract_standin, extract_mirror).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "extract_impl.h"

/* The value of size or tile name in env (0 if it has none). */
static double
env_val(const AxEnv *env, const char *name)
{
	for (int k = 0; k < env->n; k++)
		if (strcmp(env->names[k], name) == 0)
			return env->vals[k];
	return 0;
}

/* The tile that cuts an axis of ed as tiles of tr cut one of er: as many full tiles, or where the
 * axis is too short for them, the most it holds that blk (the blocks of tiles asked for, where
 * they divide the full tiles) divides, more than one and more than a block where there were so;
 * and a short last tile where there was one (written at its own size: emit_tail.c).  0: none. */
static double
like_tile(double er, double tr, double ed, double want)
{
	double n0 = floor(er / tr), blk = want > 1 && n0 >= 1 && fmod(n0, want) == 0 ? want : 1;
	int tail = fmod(er, tr) != 0;
	for (double n = n0; n >= 1 && !(n0 > 1 && n < 2) && !(n0 > blk && n <= blk); n--) {
		if (fmod(n, blk) != 0)
			continue;
		if (!tail && n <= ed && fmod(ed, n) == 0)
			return ed / n;
		for (double td = floor(ed / n); tail && td >= 1 && floor(ed / td) == n; td--)
			if (fmod(ed, td) != 0)
				return td;
	}
	return 0;
}

/* Choice i of the decoded combination, written and fusing as asked (fuse: NEST_FUSE_OF or 0),
 * into c; NULL if it is no candidate or fuses otherwise (*written counts the nests built). */
static Nest *
try_sub(Extract *x, int64_t combo, int64_t i, int fuse, int nfused, int *written, ExtractCand *c)
{
	int nf;
	Nest *ns = ex_set_sub(x, i) && ex_usable(x) && (fuse || !ex_absorbing(x)) ? ex_write_current(x, combo, i, fuse, &nf, c) : NULL;
	if (!ns)
		return NULL;
	(*written)++;
	if (fuse && nfused >= 0 && nf != nfused) {   /* another structure: its fusion differs */
		nest_free(ns);
		return NULL;
	}
	return ns;
}

/* combination combo decoded and its tile/block choices counted into *n (unfolded: a structure is
 * validated as it is); c failed, with why, if it cannot be */
static int
start_walk(Extract *x, int64_t combo, int64_t *n, ExtractCand *c)
{
	*c = (ExtractCand){ 0 };
	c->combo = combo;
	c->fused = -1;
	c->failed = 1;
	if (combo < 0 || combo >= x->ncombo) {
		snprintf(c->why, sizeof c->why, "no combination %lld", (long long)combo);
		return 0;
	}
	int64_t count = 0;
	if (!ex_decode(x, combo) || !ex_start_combo(x, &count)) {
		snprintf(c->why, sizeof c->why, "%s", x->why[0] ? x->why : "its tiles cannot be sized at these sizes");
		return 0;
	}
	*n = count / x->nfold;
	return 1;
}

Nest *
extract_combo(Extract *x, int64_t combo, int fuse, int nfused, ExtractCand *c)
{
	int64_t n = 0;
	if (!start_walk(x, combo, &n, c))
		return NULL;
	fuse = fuse && !x->no_fusion ? NEST_FUSE_OF(nfused < 0 ? NEST_EPILOGUE : nfused) : 0;
	int written = 0;
	int64_t tried = 0, most = 64 * x->maxtry;   /* choices looked at, written or not */
	/* half the tries from the smallest tiles and most blocks down, half from the largest
	 * tiles without blocks up (fusion depends on the tiles: either end may be the one); at most
	 * `most` looked at, written or not (a 39-op attention layer at S=130 had 10^8 choices, nearly
	 * all not usable, and its validation walked them for minutes) */
	for (int64_t lo = 0, hi = n - 1; lo <= hi && written < x->maxtry && tried < most; tried++) {
		Nest *ns = try_sub(x, combo, written < x->maxtry / 2 ? hi-- : lo++, fuse, nfused, &written, c);
		if (ns)
			return ns;
	}
	c->failed = 1;
	if (tried == most && !written)
		snprintf(c->why, sizeof c->why, "none of the first %lld of its %lld tile and block choices can be written at "
		         "these sizes", (long long)most, (long long)n);
	else if (written)
		snprintf(c->why, sizeof c->why, "none of its first %d tile and block choices fuses %d producer%s at these sizes",
		         written, nfused, nfused == 1 ? "" : "s");
	else if (!c->why[0])
		snprintf(c->why, sizeof c->why, "no tile and block choice can be written at these sizes");
	return NULL;
}

int
extract_standin(Extract *x, int64_t combo, int fuse, int nfused, int *k, ExtractCand *c)
{
	int64_t n = 0;
	if (!start_walk(x, combo, &n, c))
		return 0;
	fuse = fuse && !x->no_fusion ? NEST_FUSE_OF(nfused < 0 ? NEST_EPILOGUE : nfused) : 0;
	/* choices spread evenly over them all (tile counts differ most) */
	while (*k < x->maxtry && *k < n) {
		int64_t i = n <= x->maxtry ? *k : *k * (n - 1) / (x->maxtry - 1);
		int written = 0;
		(*k)++;
		Nest *ns = try_sub(x, combo, i, fuse, nfused, &written, c);
		if (ns) {
			nest_free(ns);
			return 1;
		}
	}
	return 0;
}

Nest *
extract_mirror(Extract *x, int64_t combo, const ExtractCand *req, int fuse, int nfused, ExtractCand *c)
{
	const AxTiling *T = x->T;
	const AxGraph *g = T->g;
	*c = (ExtractCand){ 0 };
	c->combo = combo;
	c->fused = -1;
	c->failed = 1;
	int64_t count = 0;
	if (combo < 0 || combo >= x->ncombo || !ex_decode(x, combo) || !ex_start_combo(x, &count) || ex_set_tiles(x) != 0) {
		snprintf(c->why, sizeof c->why, "its tiles cannot be sized at these sizes");
		return NULL;
	}
	/* every tile: cut along its axis as the requested candidate's is (like_tile) */
	AxEnv env = { x->n, x->names, x->vals };
	for (int k = x->nsizes; k < x->n; k++)
		for (int id = 0; id < g->nnodes; id++) {
			const TileOp *to = &T->op[id];
			for (int a = 0; to->kind == TO_COMPUTE && a < to->naxes; a++) {
				const TileAxis *ax = &to->ax[a];
				double er, ed;
				if (!ax->t || strcmp(ax->t, x->names[k]) != 0)
					continue;
				double tr = env_val(&req->env, ax->t);
				if (tr < 1 || t_eval(ax->extent, &req->env, &er) != 0 || t_eval(ax->extent, &env, &ed) != 0 ||
				    er < 1 || ed < 1) {
					snprintf(c->why, sizeof c->why, "tile %s has no like at these sizes", ax->t);
					return NULL;
				}
				double want = req->blocks && ax->bcls >= 0 && ax->bcls < 64 ? req->blocks[ax->bcls] : 1;
				double td = like_tile(er, tr, ed, want);
				if (!td) {
					snprintf(c->why, sizeof c->why, "%s cannot be cut into %g tiles at these sizes", ax->t,
					         ceil(er / tr));
					return NULL;
				}
				x->vals[k] = td;
			}
		}
	for (int b = 0; b < 64; b++)
		x->blocks[b] = req->blocks ? req->blocks[b] : 1;
	x->fold = req->fold;
	fuse = fuse && !x->no_fusion ? NEST_FUSE_OF(nfused < 0 ? NEST_EPILOGUE : nfused) : 0;
	if (!ex_usable(x) || (!fuse && ex_absorbing(x))) {
		snprintf(c->why, sizeof c->why, "its tiles like the requested ones are no candidate at these sizes");
		return NULL;
	}
	int nf = 0;
	Nest *ns = nest_build_at(T, x->L, x->choice, x->engsel, x->blocks, x->fold, &env, fuse, &nf, c->why, sizeof c->why,
	                         &c->why_node);
	if (ns && fuse && nfused >= 0 && nf != nfused) {
		snprintf(c->why, sizeof c->why, "its tiles like the requested ones fuse %d producers, not %d", nf, nfused);
		nest_free(ns);
		return NULL;
	}
	if (!ns)
		return NULL;
	*c = (ExtractCand){ .combo = combo, .sub = -1, .visit = -1, .fused = fuse ? nf : -1, .choice = x->choice,
			    .engsel = x->engsel, .blocks = x->blocks, .fold = x->fold, .env = env };
	nest_room(ns, &c->fp);
	return ns;
}

