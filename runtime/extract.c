/*
 * extract.c — the candidates of one variant, one at a time (paper section
 * 3.6): every instruction sequence of each operation, every engine of each
 * instruction, every block size (1, 2, 4 .. 32 tiles per block along each
 * axis class, up to its tile count), the loop-fused form and the unfused
 * one.  Each candidate is written as statements (nest.h) and its on-chip
 * footprint measured before anything is printed; those that do not fit are
 * dropped and counted.  Nothing but the current candidate is held.
 */
#include <stdlib.h>
#include <string.h>
#include "nest.h"

enum { MAXBLOCK = 32 };

struct Extract {
	const AxTiling *T;
	const LowerNode *L;
	const char **names;      /* the sizes, then the tile sizes of the current choice */
	double *vals;
	int nsizes, n;
	int maxtile, no_fusion;
	int *choice, *engsel;
	int nblk[64];            /* per axis class: the block options (powers of two) */
	int blocks[64];          /* ... and the current one, in tiles */
	int pending_unfused;     /* the current choice's unfused form is next */
	int started;
	int64_t index;           /* of the current (choice, engines, blocks) */
	char why[512];
};

Extract *
extract_new(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int nsizes,
            int maxtile, int no_fusion)
{
	const AxGraph *g = T->g;
	Extract *x = calloc(1, sizeof *x);
	if (!x)
		ax_die("out of memory");
	x->T = T;
	x->L = L;
	x->names = calloc(512, sizeof *x->names);
	x->vals = calloc(512, sizeof *x->vals);
	x->choice = calloc((size_t)g->nnodes + 1, sizeof(int));
	x->engsel = calloc((size_t)g->nnodes * 8 + 8, sizeof(int));
	if (!x->names || !x->vals || !x->choice || !x->engsel)
		ax_die("out of memory");
	memcpy(x->names, names, sizeof *names * (size_t)nsizes);
	memcpy(x->vals, vals, sizeof *vals * (size_t)nsizes);
	x->nsizes = x->n = nsizes;
	x->maxtile = maxtile;
	x->no_fusion = no_fusion;
	return x;
}

void
extract_free(Extract *x)
{
	if (!x)
		return;
	free(x->names);
	free(x->vals);
	free(x->choice);
	free(x->engsel);
	free(x);
}

/* The next sequence and engine choice: an odometer; 0 at the end. */
static int
next_choice(Extract *x)
{
	const AxGraph *g = x->T->g;
	const AxTarget *t = g->t;
	for (int id = g->nnodes - 1; id >= 0; id--) {
		if (x->T->op[id].kind != TO_COMPUTE || !x->L[id].nchoices)
			continue;
		const SynthSeq *q = &x->L[id].choice[x->choice[id]].seq;
		for (int j = q->ninsts - 1; j >= 0; j--) {
			int ne = 0;
			for (int e = 0; e < t->nengines; e++)
				ne += (t->insts[q->inst[j]].engines >> e) & 1;
			if (++x->engsel[id * 8 + j] < ne)
				return 1;
			x->engsel[id * 8 + j] = 0;
		}
		if (++x->choice[id] < x->L[id].nchoices)
			return 1;
		x->choice[id] = 0;
	}
	return 0;
}

/* Tile sizes of the current choice, and the block options they leave: per
 * axis class, powers of two up to the most tiles an operation has along it
 * (at most MAXBLOCK).  0 = ok. */
static int
set_tiles(Extract *x)
{
	const AxTiling *T = x->T;
	const AxGraph *g = T->g;
	x->n = x->nsizes;
	if (nki_tile_sizes(T, x->L, x->choice, x->engsel, x->names, x->vals, &x->n, 512, x->maxtile, x->why,
	                   sizeof x->why) != 0)
		return -1;
	AxEnv env = { x->n, x->names, x->vals };
	int64_t most[64] = { 0 };
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &T->op[id];
		if (to->kind != TO_COMPUTE)
			continue;
		for (int k = 0; k < to->naxes; k++) {
			const TileAxis *ax = &to->ax[k];
			double ext, t;
			if (!ax->tiled || !ax->t || ax->unit || ax->red || ax->cls < 0 || ax->cls >= 64 ||
			    t_eval(ax->extent, &env, &ext) != 0 || t_eval(t_var(g->tc, ax->t, TS_INT), &env, &t) != 0 || t < 1)
				continue;
			if ((int64_t)(ext / t) > most[ax->cls])
				most[ax->cls] = (int64_t)(ext / t);
		}
	}
	for (int c = 0; c < 64; c++) {
		x->nblk[c] = 1;
		while (x->nblk[c] < 6 && (1 << x->nblk[c]) <= most[c] && (1 << x->nblk[c]) <= MAXBLOCK)
			x->nblk[c]++;
		x->blocks[c] = 1;
	}
	return 0;
}

static int
next_blocks(Extract *x)
{
	for (int c = 63; c >= 0; c--) {
		if (x->blocks[c] < 1 << (x->nblk[c] - 1)) {
			x->blocks[c] *= 2;
			return 1;
		}
		x->blocks[c] = 1;
	}
	return 0;
}

/* Advances to the next (choice, engines, blocks) whose tile sizes are
 * known; 0 at the end. */
static int
advance(Extract *x)
{
	if (!x->started) {
		x->started = 1;
		if (set_tiles(x) == 0)
			return 1;
	} else if (next_blocks(x)) {
		x->index++;
		return 1;
	}
	while (next_choice(x)) {
		x->index++;
		if (set_tiles(x) == 0)
			return 1;
	}
	return 0;
}

Nest *
extract_next(Extract *x, ExtractCand *c)
{
	memset(c, 0, sizeof *c);
	int fuse;
	if (x->pending_unfused) {
		x->pending_unfused = 0;
		fuse = 0;
	} else if (!advance(x)) {
		c->end = 1;
		snprintf(c->why, sizeof c->why, "%s", x->why);
		return NULL;
	} else
		fuse = !x->no_fusion;
	AxEnv env = { x->n, x->names, x->vals };
	int nfused = 0;
	Nest *ns = nest_build(x->T, x->L, x->choice, x->engsel, x->blocks, &env, fuse, &nfused, c->why, sizeof c->why);
	/* the unfused form next, unless it is the same candidate */
	x->pending_unfused = fuse && (!ns || nfused > 0);
	c->index = x->index;
	c->fused = fuse ? nfused : -1;
	c->choice = x->choice;
	c->engsel = x->engsel;
	c->blocks = x->blocks;
	c->env = env;
	if (!ns) {
		c->failed = 1;
		return NULL;
	}
	nest_room(ns, &c->fp);
	return ns;
}

int64_t
extract_count(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int nsizes,
              int maxtile)
{
	Extract *x = extract_new(T, L, names, vals, nsizes, maxtile, 1);
	int64_t n = 0;
	while (advance(x))
		n++;
	extract_free(x);
	return n;
}
