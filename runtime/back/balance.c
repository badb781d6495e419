/*
 * balance.c — copies given to the engine with less to do (one pass over a
 * candidate's statements, nest.h).
 *
 * The lowering makes each move between on-chip memories with one copy
 * instruction (of those that move between the two memories, the one with
 * the most engines, lower.c).  A kernel with many such moves (attention:
 * its scores and every transposed block copied out of the matrix unit's
 * accumulators) then loads that engine with all of them while another that
 * could copy them idles.  Per loop nest, in program order, a copy (an
 * instruction the lowering takes for one) becomes another copy instruction
 * on another engine where that one reads and writes the same memories,
 * takes the tile (its constraints checked on the sizes) and the move lowers
 * the larger of the two engines' busy time in the nest: each instruction's
 * cost from the spec on its engine's clock, times the trips of the loops
 * around it in the nest.
 */
#include <stdlib.h>
#include <string.h>
#include "nest.h"

/* The instance of s as instruction `inst` on engine e: its cost in seconds (-1 if it cannot be). */
static double
seconds(const AxTarget *t, const NsStmt *s, int inst, int e)
{
	const AxOp *op = &t->insts[inst];
	if (op->nattr || !op->cost || e < 0 || e >= t->nengines || t->engines[e].dma)
		return -1;
	AxConc c;
	nest_conc(t, s, inst, e, &c);
	AxShape out;
	char err[128];
	if (op->check && op->check(&c, &out, err, sizeof err) != 0)
		return -1;
	double hz = t->engines[e].clock_hz > 0 ? t->engines[e].clock_hz : 1e9;
	return op->cost(&c, 4) / hz;
}

/* Does instruction k on engine f read memory src and write dst? */
static int
moves(const AxTarget *t, int k, int f, int src, int dst)
{
	return (t->insts[k].engines & (1u << f)) && (ax_inst_mems(t, &t->insts[k], 0, 1u << f) & (1u << src)) &&
	       (ax_inst_mems(t, &t->insts[k], -1, 1u << f) & (1u << dst));
}

int
nest_copy_choice(const Nest *ns, const NsStmt *s, int src, int dst, const int *copy, int *engine)
{
	const AxTarget *t = ns->g->t;
	int bi = -1;
	double best = 0;
	for (int k = 0; k < t->ninsts; k++)
		for (int f = 0; copy[k] && f < t->nengines && f < 32; f++) {
			if (!moves(t, k, f, src, dst))
				continue;
			double c = seconds(t, s, k, f);
			if (c > 0 && (bi < 0 || c < best))
				bi = k, *engine = f, best = c;
		}
	return bi;
}

/* Per variable of ns, the memory its definition puts it in (-1: none); mem has room for nvars. */
static void
var_mems(const Nest *ns, int *mem)
{
	for (int v = 0; v < ns->nvars; v++)
		mem[v] = -1;
	for (int i = 0; i < ns->n; i++) {
		const NsStmt *s = &ns->s[i];
		if ((s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 && s->var < ns->nvars)
			mem[s->var] = s->mem;
	}
}

/* The memories copy s moves between (var_mems' mem): 1 if both are on chip. */
static int
copy_ends(const Nest *ns, const NsStmt *s, const int *mem, int *src, int *dst)
{
	const AxTarget *t = ns->g->t;
	int nv = ns->nvars;
	*src = s->opnd[0].var >= 0 && s->opnd[0].var < nv ? mem[s->opnd[0].var] : -1;
	*dst = s->out.var == NS_NONE ? s->mem : s->out.var >= 0 && s->out.var < nv ? mem[s->out.var] : -1;
	return *src >= 0 && *dst >= 0 && !t->mems[*src].offchip && !t->mems[*dst].offchip;
}

int
nest_balance(Nest *ns)
{
	const AxTarget *t = ns->g->t;
	int n = ns->n, nv = ns->nvars, moved = 0;
	if (!n)
		return 0;
	int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
	int *mem = malloc(sizeof(int) * (size_t)(nv + 1)), *copy = malloc(sizeof(int) * (size_t)(t->ninsts + 1));
	if (!up || !endof || !mem || !copy)
		ax_die("out of memory");
	nest_loops(ns, up, endof);
	var_mems(ns, mem);
	for (int k = 0; k < t->ninsts; k++)
		copy[k] = lower_is_copy(t, ns->g->tc, k);
	for (int a = 0; a < n; a++) {
		if (ns->s[a].kind != NS_LOOP || ns->s[a].depth != 0 || endof[a] < 0)
			continue;
		int e = endof[a];
		double busy[32] = { 0 };
		for (int i = a; i <= e; i++) {   /* the nest's busy time per engine */
			NsStmt *s = &ns->s[i];
			if (s->kind != NS_INST)
				continue;
			double c = seconds(t, s, s->inst, s->engine);
			for (int l = up[i]; l >= 0 && l >= a; l = up[l])
				c *= (double)ns->s[l].hi;
			if (c > 0 && s->engine >= 0 && s->engine < 32)
				busy[s->engine] += c;
		}
		for (int i = a; i <= e; i++) {
			NsStmt *s = &ns->s[i];
			if (s->kind != NS_INST || !copy[s->inst] || s->engine < 0 || s->engine >= 32)
				continue;
			int src, dst;
			if (!copy_ends(ns, s, mem, &src, &dst))
				continue;
			double mult = 1;
			for (int l = up[i]; l >= 0 && l >= a; l = up[l])
				mult *= (double)ns->s[l].hi;
			double now = seconds(t, s, s->inst, s->engine) * mult;
			if (now <= 0)
				continue;
			int bi = -1, be = -1;
			double bmax = 0, bcost = 0;
			for (int k = 0; k < t->ninsts; k++) {
				if (!copy[k])
					continue;
				for (int f = 0; f < t->nengines && f < 32; f++) {
					if (f == s->engine || !moves(t, k, f, src, dst))
						continue;
					double c = seconds(t, s, k, f) * mult;
					if (c <= 0)
						continue;
					double was = busy[s->engine] > busy[f] ? busy[s->engine] : busy[f];
					double a1 = busy[s->engine] - now, b1 = busy[f] + c;
					double will = a1 > b1 ? a1 : b1;
					if (will < was * (1 - 1e-9) && (bi < 0 || will < bmax)) {
						bi = k, be = f, bmax = will, bcost = c;
					}
				}
			}
			if (bi < 0)
				continue;
			busy[s->engine] -= now;
			busy[be] += bcost;
			s->inst = bi;
			s->engine = be;
			moved++;
		}
		a = e;
	}
	free(up), free(endof), free(mem), free(copy);
	return moved;
}

int
nest_copy_alts(const Nest *ns, int i, int (*alt)[2], int room)
{
	const AxTarget *t = ns->g->t;
	const NsStmt *s = &ns->s[i];
	if (s->kind != NS_INST || s->engine < 0 || !lower_is_copy(t, ns->g->tc, s->inst))
		return 0;
	int *mem = malloc(sizeof(int) * (size_t)(ns->nvars + 1)), src, dst;
	if (!mem)
		ax_die("out of memory");
	var_mems(ns, mem);
	int onchip = copy_ends(ns, s, mem, &src, &dst);
	free(mem);
	if (!onchip)
		return 0;
	int k = 0;
	for (int m = 0; m < t->ninsts; m++) {
		if (!lower_is_copy(t, ns->g->tc, m))
			continue;
		for (int f = 0; f < t->nengines && f < 32 && k < room; f++)
			if ((m != s->inst || f != s->engine) && moves(t, m, f, src, dst) && seconds(t, s, m, f) > 0) {
				alt[k][0] = m;
				alt[k][1] = f;
				k++;
			}
	}
	return k;
}

/* The scheduled twin's forms 1 to 12: tails first (tails.c; 1 as far back as they are
 * independent, 2 near), a loop per nest pipelined (pipeline.c), its stages interleaved or not,
 * with fills ahead or not, then the copies balanced. */
static const struct { char tails, interleave, ahead, parent; } Forms[NEST_FORMS + 1] = {
	[1] = { 0, 0, 0, 0 }, [2] = { 0, 1, 0, 0 }, [3] = { 1, 0, 0, 0 }, [4] = { 1, 1, 0, 0 },
	[5] = { 0, 0, 1, 1 }, [6] = { 0, 1, 1, 2 }, [7] = { 1, 0, 1, 3 }, [8] = { 1, 1, 1, 4 },
	[9] = { 2, 0, 0, 3 }, [10] = { 2, 1, 0, 4 }, [11] = { 2, 0, 1, 7 }, [12] = { 2, 1, 1, 8 },
};

int
nest_form_parts(int form, int *tails, int *interleave, int *ahead, int *parent)
{
	if (form < 1 || form > NEST_FORMS)
		return 0;
	*tails = Forms[form].tails, *interleave = Forms[form].interleave, *ahead = Forms[form].ahead;
	*parent = Forms[form].parent;
	return 1;
}

int
nest_schedule(Nest *ns, int form, int *piped, int *tails, int *ahead)
{
	int ft, fi, fa, fp, a = 0;
	if (!nest_form_parts(form, &ft, &fi, &fa, &fp))
		return 0;
	int t = ft ? nest_tails_first(ns, ft == 2) : 0;
	int k = nest_pipeline(ns, fi, fa, &a);
	if (piped)
		*piped = k;
	if (tails)
		*tails = t;
	if (ahead)
		*ahead = a;
	return t + k + nest_balance(ns);
}
