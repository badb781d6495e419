/*
 * balance.c — copies between on-chip memories placed on the engine with the
 * least work (one pass over a candidate's statements, nest.h).
 *
 * A copy (an instruction whose semantics are its operand, lower_is_copy)
 * that moves a tile between on-chip memories, a product's result out of an
 * accumulator memory say, runs on the first engine of the copy instruction
 * synthesis and the moves use (lower_copy_root).  A target may declare
 * other instructions that copy between the same memories on other engines
 * (docs/design.md has the Trainium pair); synthesis leaves such twins out
 * (they compute nothing new) and this pass chooses among them.  The work
 * of every other instruction is summed per engine (its spec cost over its
 * engine's clock, times the trips of the loops around it); then, in
 * program order, each copy goes to the twin and engine
 * (reading its operand's memory and writing its result's, its limits
 * holding at its sizes) where that sum plus its own cost is least, the
 * one it has on a tie.  Transfers (engines that move data off chip) are
 * left as they are.
 */
#include <stdlib.h>
#include <string.h>
#include "nest.h"

enum { MAXENG = 32 };

/* Is instruction j a twin of copy i (the same copy, maybe on other engines)? */
static int
twin(const Nest *ns, int i, int j)
{
	int r = lower_copy_root(ns->g->t, ns->g->tc, i);
	return r >= 0 && lower_copy_root(ns->g->t, ns->g->tc, j) == r;
}

/* Instruction inst on engine e for statement s: its time (seconds), or -1 if it cannot run it there. */
static double
time_on(const AxTarget *t, const NsStmt *s, int inst, int e, int src_mem, int dst_mem)
{
	const AxOp *op = &t->insts[inst];
	if (e < 0 || e >= t->nengines || e >= MAXENG || !(op->engines & (1u << e)) || t->engines[e].dma)
		return -1;
	if (src_mem >= 0 && !(ax_inst_mems(t, op, 0, 1u << e) & (1u << src_mem)))
		return -1;
	if (dst_mem >= 0 && !(ax_inst_mems(t, op, -1, 1u << e) & (1u << dst_mem)))
		return -1;
	AxConc c = { .nopnd = op->nopnd, .engine = e };
	for (int k = 0; k < op->nopnd && k < AX_MAXOPND; k++) {
		const NsRef *r = &s->opnd[k];
		c.rank[k] = r->var == NS_NONE ? -1 : r->shape.rank;
		if (r->var != NS_NONE)
			memcpy(c.dim[k], r->shape.d, sizeof c.dim[k]);
	}
	AxShape out;
	char err[8];
	if (op->check && op->check(&c, &out, err, sizeof err) != 0)
		return -1;
	double hz = t->engines[e].clock_hz > 0 ? t->engines[e].clock_hz : 1e9;
	return (op->cost ? op->cost(&c, 4) : 0) / hz;
}

void
nest_balance(Nest *ns)
{
	const AxTarget *t = ns->g->t;
	int ni = t->ninsts, n = ns->n;
	int *mem = malloc(sizeof(int) * (size_t)(ns->nvars > 0 ? ns->nvars : 1));
	double *trips = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	if (!mem || !trips)
		ax_die("out of memory");
	for (int v = 0; v < ns->nvars; v++)
		mem[v] = -1;
	double stack[64], cur = 1, work[MAXENG] = { 0 };
	int depth = 0;
	for (int i = 0; i < n; i++) {   /* trips of the loops around each statement; values' memories */
		NsStmt *s = &ns->s[i];
		if (s->kind == NS_END && depth > 0)
			cur = stack[--depth];
		trips[i] = cur;
		if (s->kind == NS_LOOP && depth < 64) {
			stack[depth++] = cur;
			cur *= (double)(s->hi > 0 ? s->hi : 1);
		}
		if ((s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 && s->var < ns->nvars)
			mem[s->var] = s->mem;
	}
	/* the copies that could move (an on-chip operand and result), and the work of the rest */
	int *movable = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
	if (!movable)
		ax_die("out of memory");
	for (int i = 0; i < n; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind != NS_INST || s->inst < 0 || s->inst >= ni)
			continue;
		int src = s->opnd[0].var >= 0 && s->opnd[0].var < ns->nvars ? mem[s->opnd[0].var] : -1;
		int dst = s->out.var == NS_NONE ? s->mem : s->out.var >= 0 && s->out.var < ns->nvars ? mem[s->out.var] : -1;
		double d = time_on(t, s, s->inst, s->engine, -1, -1);
		if (src >= 0 && dst >= 0 && d >= 0 && lower_copy_root(t, ns->g->tc, s->inst) >= 0) {
			for (int j = 0; j < ni && !movable[i]; j++)
				for (int e = 0; e < t->nengines && e < MAXENG && !movable[i]; e++)
					movable[i] = (j != s->inst || e != s->engine) && twin(ns, s->inst, j) &&
					             time_on(t, s, j, e, src, dst) >= 0;
		}
		if (!movable[i] && d > 0 && s->engine >= 0 && s->engine < MAXENG)
			work[s->engine] += d * trips[i];
	}
	for (int i = 0; i < n; i++) {
		if (!movable[i])
			continue;
		NsStmt *s = &ns->s[i];
		int src = mem[s->opnd[0].var];
		int dst = s->out.var == NS_NONE ? s->mem : mem[s->out.var];
		int bi = s->inst, be = s->engine;
		double best = work[be] + time_on(t, s, bi, be, -1, -1) * trips[i];
		for (int j = 0; j < ni; j++) {
			if (!twin(ns, s->inst, j))
				continue;
			for (int e = 0; e < t->nengines && e < MAXENG; e++) {
				double d = time_on(t, s, j, e, src, dst);
				if (d >= 0 && work[e] + d * trips[i] < best) {
					best = work[e] + d * trips[i];
					bi = j;
					be = e;
				}
			}
		}
		work[be] = best;
		s->inst = bi;
		s->engine = be;
	}
	free(movable);
	free(mem);
	free(trips);
}
