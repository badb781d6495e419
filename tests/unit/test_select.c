/*
 * test_select.c — Phase 2 of axonc compile (select.c).
 *
 *   1. matmul: structures validated, a winner, the same winner and counts with
 *      one worker and with two; the winner is the lowest modelled latency of
 *      every candidate the stream visits (checked against a plain walk)
 *   2. soundness: candidates of one program checked against the reference
 *      of another with the same parameters (MatMul against RMSNorm+MatMul):
 *      every structure is rejected, every candidate dropped, no winner
 *   3. --measure CMD: a command that prints a constant (stream order breaks
 *      the tie), one that fails (every candidate infeasible, the status said),
 *      one that prefers blocked candidates by reading {config}
 *   4. select_shrink: sizes halved, largest first, under the limits; odd sizes reduced as
 *      their even neighbours are
 *   5. the descent: extract_neighbours is symmetric (one move there, one back), never the
 *      choice itself; a compile with a second round ends at a choice none of whose
 *      neighbours is faster, the same with one worker and with two
 *   6. lower_tile_first (a reduction's partial tiles combined by it): the first sequence of
 *      the whole search, and the search stops there
 *   8. the combinations next to the best (extract_combo_neighbours): each one operation's
 *      choice away, or two where a fused choice brings its producer's; each visited at the
 *      largest tiles without blocks, then in blocks of two tiles at them; a compile whose
 *      neighbours are visited validates them as structures of their own (none dropped
 *      unvalidated), the same with one worker and with two
 *   7. extract_mirror: a candidate's structure at reduced sizes, each tile cut as many times
 *      as the candidate's, or where the axis is too short, into the most tiles that divide
 *      it and the candidate's blocks (more than one where there were); its blocks kept
 *
 * Run from the repository root (examples/).  The last line is
 * "N passed, M failed".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "front.h"
#include "measure.h"
#include "check.h"

static const AxTarget *T;

typedef struct Prog {
	TermCtx *tc;
	AxGraph *g;
	AxTiling *tiling;
	LowerCache *cache;
	LowerNode *L;
	const char *names[256];
	double vals[256];
	int n, nsizes;
} Prog;

static int
prog_open(Prog *p, const char *path, const char *dims)
{
	char why[512];
	*p = (Prog){ 0 };
	p->tc = tc_new(T);
	p->g = frontend_read(T, p->tc, path, NULL);
	if (!p->g || ax_size_env(p->g, dims, p->names, p->vals, 128, &p->n, &p->nsizes, why, sizeof why) != 0) {
		report(0, __LINE__, "%s at %s: %s", path, dims, p->g ? why : "does not load");
		return -1;
	}
	p->tiling = tile_graph(p->g);
	p->cache = lower_cache_new(T, p->tc, 3);
	p->L = lower_variant(p->cache, p->tiling, 64);
	return 0;
}

static void
prog_close(Prog *p)
{
	if (p->cache)
		lower_cache_free(p->cache);
	for (int i = 0; i < p->nsizes; i++)
		free((char *)p->names[i]);
	if (p->tc)
		tc_free(p->tc);
}

static SelIn
sel_in(Prog *p, const AxGraph *ref, int jobs, int64_t budget, const char *cmd)
{
	static const double *lev[1];
	lev[0] = p->vals;
	return (SelIn){ .g0 = ref, .nv = 1, .T = &p->tiling, .L = &p->L, .names = p->names, .vals = p->vals,
		        .n = p->n, .rnames = p->names, .rvals = lev, .rn = p->n, .nlevels = 1, .budget = budget, .jobs = jobs,
		        .cmd = cmd, .dtype = 4, .fn = "kernel", .seed = 1 };
}

/* 1, 2 */
static void
test_model_and_soundness(void)
{
	Prog a, b;
	if (prog_open(&a, "examples/matmul.py", "M=64,K=64,N=128") != 0)
		return;
	SelIn in = sel_in(&a, a.g, 1, 200, NULL);
	SelOut o1, o2;
	CHECK(select_run(&in, &o1) == 0);
	CHECK(o1.top[0].have);
	CHECK(o1.structures > 0 && o1.validated == o1.structures && o1.struct_rejected == 0);
	CHECK(o1.feasible > 0 && o1.rejected == 0 && o1.unvalidated == 0);
	in.jobs = 2;
	CHECK(select_run(&in, &o2) == 0);
	CHECK(o2.top[0].have && o2.top[0].v == o1.top[0].v && o2.top[0].visit == o1.top[0].visit &&
	      o2.top[0].unfused == o1.top[0].unfused && o2.top[0].latency == o1.top[0].latency);
	CHECK(o2.considered == o1.considered && o2.feasible == o1.feasible && o2.validated == o1.validated);
	/* the winner is no slower than the least of a plain walk over the same stream (its scheduled
	 * twin may be faster), and the best by their own latencies is that least */
	Extract *x = extract_new(a.tiling, a.L, a.names, a.vals, a.n, 0, 0, 200);
	double least = HUGE_VAL;
	for (;;) {
		ExtractCand c;
		Nest *ns = extract_next(x, &c);
		if (c.end)
			break;
		if (ns && c.fp.fits) {
			ModelStats st;
			double s = model_latency(ns, 4, &c.fp, &st);
			if (st.fits && s < least)
				least = s;
		}
		nest_free(ns);
	}
	extract_free(x);
	CHECK(o1.top[0].latency <= least && o1.topp[0].have && o1.topp[0].latency == least);
	CHECK(o1.top[0].latency == least || o1.top[0].sched);
	for (int i = 1; i < SEL_TOP; i++)
		CHECK(!o1.top[i].have || o1.top[i].latency >= o1.top[i - 1].latency);
	/* the same candidate again */
	ExtractCand c;
	Extract *xo;
	Nest *ns = select_rebuild(&in, &o1.top[0], &c, &xo);
	CHECK(ns != NULL);
	if (ns) {
		ModelStats st;
		CHECK(model_latency(ns, 4, &c.fp, &st) == o1.top[0].latency);
	}
	nest_free(ns);
	extract_free(xo);

	/* 2: MatMul's candidates against RMSNorm+MatMul's reference (the same X[M,K], W[K,N]) */
	if (prog_open(&b, "examples/rmsnorm_matmul.py", "M=64,K=64,N=128") == 0) {
		SelIn wrong = sel_in(&a, b.g, 2, 200, NULL);
		SelOut ow;
		CHECK(select_run(&wrong, &ow) == 0);
		CHECK(!ow.top[0].have);
		CHECK(ow.structures > 0 && ow.struct_rejected == ow.structures && ow.validated == 0);
		CHECK(ow.feasible == 0 && ow.rejected == ow.emitted && ow.emitted > 0);
		CHECK(strstr(ow.first_rejection, "fails validation") != NULL);
	}
	prog_close(&b);
	prog_close(&a);
}

/* 3 */
static void
test_command(void)
{
	Prog a;
	if (prog_open(&a, "examples/matmul.py", "M=64,K=64,N=256") != 0)
		return;
	SelIn in = sel_in(&a, a.g, 2, 40, "echo latency: 5 {kernel}");
	SelOut o;
	CHECK(select_run(&in, &o) == 0);
	CHECK(o.top[0].have && fabs(o.top[0].latency - 5e-6) < 1e-12);
	CHECK(o.top[0].visit == 0 && o.infeasible == 0 && o.feasible > 1);   /* a tie: the first in the stream */

	in.cmd = "echo oops >&2; exit 3 # {kernel}";
	CHECK(select_run(&in, &o) == 0);
	CHECK(!o.top[0].have && o.feasible == 0 && o.infeasible == o.emitted && o.emitted > 0);
	CHECK(strstr(o.first_infeasible, "status 3") && strstr(o.first_infeasible, "oops"));

	/* blocked candidates 1 us, unblocked 9 us: read from the config file */
	in.cmd = "if grep -q '\"blocks\": {}' {config}; then echo 9; else echo 1; fi";
	CHECK(select_run(&in, &o) == 0);
	CHECK(o.top[0].have && fabs(o.top[0].latency - 1e-6) < 1e-12);
	ExtractCand c;
	Extract *xo;
	Nest *ns = o.top[0].have ? select_rebuild(&in, &o.top[0], &c, &xo) : NULL;
	int blocked = 0;
	for (int k = 0; ns && k < a.tiling->ncls; k++)
		blocked |= c.blocks[k] > 1;
	CHECK(blocked);
	if (ns) {
		nest_free(ns);
		extract_free(xo);
	}
	prog_close(&a);
}

/* 4 */
static void
test_shrink(void)
{
	Prog a;
	if (prog_open(&a, "examples/matmul.py", "M=2048,K=2048,N=2048") != 0)
		return;
	double v[256];
	memcpy(v, a.vals, sizeof v);
	CHECK(select_shrink(a.g, a.names, v, a.n, a.nsizes, 1e12, 1e12) == 0);
	CHECK(v[0] == 2048 && v[1] == 2048 && v[2] == 2048);
	CHECK(select_shrink(a.g, a.names, v, a.n, a.nsizes, 1 << 18, 1 << 20) == 1);
	CHECK(v[0] * v[1] * v[2] <= (1 << 18) && v[0] * v[1] * v[2] >= (1 << 15));
	for (int i = 0; i < 3; i++)
		CHECK(v[i] >= 32 && v[i] <= 64);
	prog_close(&a);
	/* an odd size is reduced as its even neighbour is: no size past it by more than one, at
	 * most one halved once more, an odd one (the odd one first of a tie), so the structures of the
	 * candidates at 2049 are those at 2048 (the rule before: M=65 with K down to 32) */
	const char *odd[] = { "M=2049,K=2048,N=2048", "M=2048,K=2049,N=2048", "M=2049,K=2049,N=2049" };
	double even[256];
	memcpy(even, v, sizeof even);
	for (int c = 0; c < 3; c++) {
		if (prog_open(&a, "examples/matmul.py", odd[c]) != 0)
			return;
		double w[256];
		memcpy(w, a.vals, sizeof w);
		CHECK(select_shrink(a.g, a.names, w, a.n, a.nsizes, 1 << 18, 1 << 20) == 1);
		int below = 0;
		for (int i = 0; i < 3; i++) {
			CHECK(w[i] <= even[i] + 1);
			CHECK(w[i] >= even[i] || fmod(a.vals[i], 2) != 0);   /* only an odd one halved more */
			below += w[i] < even[i];
		}
		CHECK(below <= 1);
		prog_close(&a);
	}
}

/* the least modelled latency of choice sub of combo in any form (loop-fused or not, with or
 * without epilogues); HUGE_VAL if none fits */
static double
least_form(Extract *x, int64_t combo, int64_t sub)
{
	double least = HUGE_VAL;
	for (int f = 0; f < 3; f++) {
		ExtractCand c;
		Nest *ns = extract_at(x, combo, sub, f == 0 ? 0 : f == 1 ? NEST_FUSE : NEST_FUSE_PLAIN, &c);
		if (ns && footprint_fits(T, &c.fp, 4)) {
			ModelStats st;
			double s = model_latency(ns, 4, &c.fp, &st);
			if (st.fits && s < least)
				least = s;
		}
		nest_free(ns);
	}
	return least;
}

/* 5 */
static void
test_descent(void)
{
	Prog a;
	if (prog_open(&a, "examples/rmsnorm_matmul.py", "M=1024,K=1024,N=2048") != 0)
		return;
	SelIn in = sel_in(&a, a.g, 1, 400, NULL);
	in.rnames = NULL;   /* no validation: the descent alone */
	in.refine = 4000;
	SelOut o1, o2;
	CHECK(select_run(&in, &o1) == 0);
	CHECK(o1.top[0].have && o1.refined > 0);
	in.jobs = 2;
	CHECK(select_run(&in, &o2) == 0);
	CHECK(o2.top[0].have && o2.top[0].latency == o1.top[0].latency && o2.top[0].combo == o1.top[0].combo &&
	      o2.top[0].sub == o1.top[0].sub && o2.refined == o1.refined);
	Extract *x = extract_new(a.tiling, a.L, a.names, a.vals, a.n, 0, 0, 400);
	int64_t nb[512], back[512], combo = o1.top[0].combo, sub = o1.top[0].sub;
	int n = extract_neighbours(x, combo, sub, nb, 512), faster = 0, asym = 0, self = 0;
	CHECK(n > 4);
	for (int i = 0; i < n; i++) {
		self += nb[i] == sub;
		int m = extract_neighbours(x, combo, nb[i], back, 512), found = 0;
		for (int j = 0; j < m; j++)
			found |= back[j] == sub;
		asym += !found;
		faster += least_form(x, combo, nb[i]) < o1.top[0].latency;
	}
	CHECK(self == 0);
	CHECK(asym == 0);
	CHECK(faster == 0);
	if (faster)
		report(0, __LINE__, "%d of the winner's %d neighbours are faster than it", faster, n);
	extract_free(x);
	prog_close(&a);
}

/* each operation's choice and engines (9 ints per node) of combination combo, at the first of
 * its tile/block choices that can be written; 0 if none of the first 64 can */
static int
combo_choices(Extract *x, const AxGraph *g, int64_t combo, int *out)
{
	for (int64_t sub = 0; sub < 64; sub++) {
		ExtractCand c;
		Nest *ns = extract_at(x, combo, sub, NEST_FUSE_OF(-1), &c);
		int ok = !c.failed || ns;
		if (ok)
			for (int id = 0; id < g->nnodes; id++) {
				out[id * 9] = c.choice[id];
				memcpy(out + id * 9 + 1, c.engsel + id * 8, 8 * sizeof *out);
			}
		nest_free(ns);
		if (ok)
			return 1;
	}
	return 0;
}

/* 8 */
static void
test_combo_neighbours(void)
{
	Prog a;
	if (prog_open(&a, "examples/softmax_matmul.py", "M=256,K=512,N=256") != 0)
		return;
	Extract *x = extract_new(a.tiling, a.L, a.names, a.vals, a.n, 0, 0, 400);
	const AxGraph *g = a.tiling->g;
	int64_t nb[256];
	int n = extract_combo_neighbours(x, 0, nb, 256), bad = 0;
	CHECK(n > 4);
	int *c0 = calloc((size_t)g->nnodes * 9 + 1, sizeof *c0), *c1 = calloc((size_t)g->nnodes * 9 + 1, sizeof *c1);
	int ok0 = combo_choices(x, g, 0, c0);
	CHECK(ok0);
	for (int i = 0; i < n && ok0; i++) {
		if (!combo_choices(x, g, nb[i], c1))
			continue;
		int diff[4], nd = 0;
		for (int id = 0; id < g->nnodes; id++)
			if (memcmp(c0 + id * 9, c1 + id * 9, 9 * sizeof *c0) != 0 && nd < 4)
				diff[nd++] = id;
		int one = nd == 1, two = 0;
		for (int k = 0; nd == 2 && k < 2; k++) {   /* a fused choice and the producer's it was found with */
			const LowerChoice *ch = &a.L[diff[k]].choice[c1[diff[k] * 9]];
			two |= ch->tile && ch->absorb == diff[1 - k] && c1[diff[1 - k] * 9] == ch->absorb_choice;
		}
		bad += !one && !two;
	}
	CHECK(bad == 0);
	if (bad)
		report(0, __LINE__, "%d of %d neighbours of combination 0 are not one choice away", bad, n);
	free(c0);
	free(c1);
	extract_free(x);
	/* a neighbour combination is judged at the largest tiles without blocks, then with blocks of
	 * two tiles (and four) along every axis class: the visit after its first has the first's
	 * tile sizes and a block of more than one tile */
	Extract *xv = extract_new(a.tiling, a.L, a.names, a.vals, a.n, 0, 0, 400);
	int64_t pairs[256][2];
	int nvis = extract_neighbour_visits(xv, 0, pairs, 256), judged = 0, unblocked = 0;
	for (int i = 0; i + 1 < nvis; i++) {
		if (pairs[i + 1][0] != pairs[i][0] || (i > 0 && pairs[i - 1][0] == pairs[i][0]))
			continue;   /* the first two visits of a combination */
		ExtractCand c;
		Nest *ns = extract_at(xv, pairs[i][0], pairs[i][1], NEST_FUSE_OF(-1), &c);
		double t0[64];
		int nt = c.env.n < 64 ? c.env.n : 64, same = 1, blocked = 0;
		memcpy(t0, c.env.vals, sizeof *t0 * (size_t)nt);
		nest_free(ns);
		ns = extract_at(xv, pairs[i + 1][0], pairs[i + 1][1], NEST_FUSE_OF(-1), &c);
		for (int k = a.n; k < nt; k++)
			same &= k < c.env.n && c.env.vals[k] == t0[k];
		for (int k = 0; k < 64 && c.blocks; k++)
			blocked |= c.blocks[k] > 1;
		nest_free(ns);
		judged++;
		unblocked += !(same && blocked);
	}
	CHECK(judged > 0);
	CHECK(unblocked == 0);
	if (unblocked)
		report(0, __LINE__, "%d of %d neighbours' second visits are not the largest tiles in blocks", unblocked, judged);
	extract_free(xv);
	/* a compile that visits neighbours validates them (their verdicts' own cells) */
	SelIn in = sel_in(&a, a.g, 1, 400, NULL);
	in.refine = 2000;
	SelOut o1, o2;
	CHECK(select_run(&in, &o1) == 0);
	CHECK(o1.top[0].have && o1.neighbours > 0);
	CHECK(o1.unvalidated == 0 && o1.rejected == 0 && o1.struct_rejected == 0);
	in.jobs = 2;
	CHECK(select_run(&in, &o2) == 0);
	CHECK(o2.top[0].have && o2.top[0].latency == o1.top[0].latency && o2.neighbours == o1.neighbours &&
	      o2.validated == o1.validated);
	prog_close(&a);
}

static void
test_first(void)
{
	const char *path = "/tmp/axon_test_first.py";
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("import numpy as np\n\n\ndef kernel(A: \"f32[M,1]\", B: \"f32[M,1]\"):\n    return np.maximum(A, B)\n", f);
	fclose(f);
	TermCtx *tc = tc_new(T);
	AxGraph *g = frontend_read(T, tc, path, NULL);
	CHECK(g != NULL);
	if (g) {
		AxTiling *tl = tile_graph(g);
		const AxGraph *tile = NULL;
		for (int id = 0; id < g->nnodes && !tile; id++)
			if (tl->op[id].kind == TO_COMPUTE)
				tile = tl->op[id].tile;
		CHECK(tile != NULL);
		if (tile) {
			LowerCache *all = lower_cache_new(T, tc, 3), *first = lower_cache_new(T, tc, 3);
			SynthSeq a[64], b[1];
			int na = lower_tile(all, tile, a, 64), nb = lower_tile_first(first, tile, b);
			int tiles, hits, ca = 0, cb = 0;
			double ms;
			lower_cache_stats(all, &tiles, &hits, &ca, &ms);
			lower_cache_stats(first, &tiles, &hits, &cb, &ms);
			CHECK(na > 1);
			CHECK(nb == 1);
			CHECK(nb == 1 && strcmp(a[0].text, b[0].text) == 0);
			CHECK(cb < ca);
			printf("first: %d sequences for a max of two column tiles (%d checked), the first alone (%d checked): %s\n", na,
			       ca, cb, nb ? b[0].text : "none");
			lower_cache_free(all);
			lower_cache_free(first);
		}
	}
	tc_free(tc);
	remove(path);
}

static double
env_get(const AxEnv *e, const char *name)
{
	for (int i = 0; i < e->n; i++)
		if (strcmp(e->names[i], name) == 0)
			return e->vals[i];
	return -1;
}

/* 7 */
static void
test_mirror(void)
{
	Prog big, small;
	if (prog_open(&big, "examples/matmul.py", "M=1024,K=512,N=2048") != 0)
		return;
	if (prog_open(&small, "examples/matmul.py", "M=4,K=64,N=6") != 0) {
		prog_close(&big);
		return;
	}
	Extract *xb = extract_new(big.tiling, big.L, big.names, big.vals, big.n, 0, 0, 300);
	Extract *xs = extract_new(small.tiling, small.L, small.names, small.vals, small.n, 0, 0, 300);
	int mirrored = 0, shortened = 0, exact = 0, bad_blocks = 0, bad_exact = 0, bad_short = 0, not_most = 0;
	for (int visits = 0; visits < 600; visits++) {
		ExtractCand c, m;
		Nest *ns = extract_next(xb, &c);
		if (c.end)
			break;
		if (!ns)
			continue;
		Nest *ms = extract_mirror(xs, c.combo, &c, c.fused >= 0, c.fused, &m);
		if (ms) {
			mirrored++;
			for (int b = 0; b < 64; b++)
				bad_blocks += m.blocks[b] != c.blocks[b];
			const AxTiling *tl = small.tiling;
			for (int id = 0; id < tl->g->nnodes; id++)
				for (int a = 0; tl->op[id].kind == TO_COMPUTE && a < tl->op[id].naxes; a++) {
					const TileAxis *ax = &tl->op[id].ax[a];
					double er, ed, tr = env_get(&c.env, ax->t), ts = env_get(&m.env, ax->t);
					if (!ax->t || tr < 1 || t_eval(ax->extent, &c.env, &er) != 0 ||
					    t_eval(ax->extent, &m.env, &ed) != 0)
						continue;
					double n0 = er / tr, n = ed / ts;
					double blk = ax->bcls >= 0 && ax->bcls < 64 ? c.blocks[ax->bcls] : 1;
					if (blk <= 1 || fmod(n0, blk) != 0)
						blk = 1;
					if (n0 <= ed && fmod(ed, n0) == 0) {
						bad_exact += n != n0;
						exact++;
						continue;
					}
					/* too short: the most tiles that divide the axis and the blocks */
					shortened++;
					bad_short += !(ts >= 1 && fmod(ed, ts) == 0 && n < n0 && fmod(n, blk) == 0 && (n0 < 2 || n >= 2) &&
					               (n0 <= blk || n > blk));
					for (double k = n + 1; k < n0 && k <= ed; k++)
						not_most += fmod(ed, k) == 0 && fmod(k, blk) == 0;
				}
		}
		nest_free(ms);
		nest_free(ns);
	}
	CHECK(mirrored > 0 && shortened > 0 && exact > 0);
	CHECK(bad_blocks == 0);
	CHECK(bad_exact == 0);
	CHECK(bad_short == 0);
	CHECK(not_most == 0);
	printf("mirror: %d structures at M=4,K=64,N=6 like candidates at M=1024,K=512,N=2048 (%d tile axes cut "
	       "as often, %d cut less: too short)\n", mirrored, exact, shortened);
	extract_free(xs);
	extract_free(xb);
	prog_close(&small);
	prog_close(&big);
}

/* 8: one worker or two, the same verdicts where structures are mirrored (their verdict depends on
 * the candidate's tiles, extract_mirror): the counts and the best agree */
static int
jobs_agree(const char *path, const char *dims, const char *rdims, int64_t budget)
{
	Prog big, small;
	if (prog_open(&big, path, dims) != 0)
		return 0;
	if (prog_open(&small, path, rdims) != 0) {
		prog_close(&big);
		return 0;
	}
	CHECK(small.n == big.n);
	SelIn in = sel_in(&big, big.g, 1, budget, NULL);
	const double *lev[1] = { small.vals };
	in.rvals = lev;
	SelOut o1, o2;
	CHECK(select_run(&in, &o1) == 0);
	in.jobs = 2;
	CHECK(select_run(&in, &o2) == 0);
	printf("jobs: %s at %s validated at %s: one worker %lld of %lld structures validated, %lld rejected, %lld "
	       "unbuilt, %lld candidates dropped; two workers %lld of %lld, %lld, %lld, %lld\n", path, dims, rdims,
	       (long long)o1.validated, (long long)o1.structures, (long long)o1.struct_rejected,
	       (long long)o1.struct_unvalidated, (long long)o1.unvalidated, (long long)o2.validated,
	       (long long)o2.structures, (long long)o2.struct_rejected, (long long)o2.struct_unvalidated,
	       (long long)o2.unvalidated);
	int same = o1.structures == o2.structures && o1.validated == o2.validated &&
	           o1.struct_rejected == o2.struct_rejected && o1.struct_unvalidated == o2.struct_unvalidated &&
	           o1.rejected == o2.rejected && o1.unvalidated == o2.unvalidated && o1.feasible == o2.feasible &&
	           o1.top[0].have == o2.top[0].have && o1.top[0].v == o2.top[0].v && o1.top[0].visit == o2.top[0].visit &&
	           o1.top[0].latency == o2.top[0].latency;
	CHECK(same);
	prog_close(&small);
	prog_close(&big);
	return same;
}

static void
test_jobs(void)
{
	/* at these sizes most of GQA's fused structures cannot be written with their own tile
	 * choices: their stand-ins' loops are (extract_mirror) */
	jobs_agree("examples/gqa.py", "B=1,Hq=32,Hkv=8,S=4096,D=128", "B=1,Hq=16,Hkv=8,S=16,D=16", 300);
}

int
main(void)
{
	T = ax_find_target("trainium");
	if (!T) {
		report(0, __LINE__, "no target 'trainium' in this build");
		return 1;
	}
	test_model_and_soundness();
	test_command();
	test_shrink();
	test_descent();
	test_combo_neighbours();
	test_first();
	test_mirror();
	test_jobs();
	return check_done();
}
