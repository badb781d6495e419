/*
 * select_aux.c — the parts of selection (select.c) that stand alone: a
 * candidate's choices as JSON (given to a --measure command as {config} and
 * written in the report) and the reduced sizes candidates are validated at.
 */
#include <math.h>
#include <string.h>
#include "measure.h"

/* ---- the choices as JSON ------------------------------------------------------------ */

/* the engine of instruction inst chosen by sel (the sel-th it may run on) */
static const char *
engine_name(const AxTarget *t, const SynthSeq *q, int j, int sel)
{
	uint32_t m = q->engines[j] ? q->engines[j] : t->insts[q->inst[j]].engines;
	int e = ax_nth_bit(m, sel);
	return e >= 0 ? t->engines[e].name : "-";
}

void
select_config_json(FILE *f, const SelIn *in, int v, const ExtractCand *c)
{
	const AxTiling *T = in->T[v];
	const LowerNode *L = in->L[v];
	const AxGraph *g = T->g;
	fprintf(f, "{\"variant\": %d, \"instructions\": {", v);
	int first = 1;
	for (int id = 0; id < g->nnodes; id++)
		if (T->op[id].kind == TO_COMPUTE && L[id].nchoices) {
			char key[96];
			snprintf(key, sizeof key, "%%%d %s", id, node_op(g, &g->nodes[id])->name);
			fputs(first ? "" : ", ", f);
			json_fstr(f, key);
			fputs(": ", f);
			json_fstr(f, L[id].choice[c->choice[id]].seq.text);
			first = 0;
		}
	fputs("}, \"engines\": {", f);
	first = 1;
	for (int id = 0; id < g->nnodes; id++)
		if (T->op[id].kind == TO_COMPUTE && L[id].nchoices) {
			const SynthSeq *q = &L[id].choice[c->choice[id]].seq;
			fprintf(f, "%s\"%%%d\": [", first ? "" : ", ", id);
			for (int j = 0; j < q->ninsts; j++)
				fprintf(f, "%s\"%s\"", j ? ", " : "", engine_name(g->t, q, j, c->engsel[id * 8 + j]));
			fputs("]", f);
			first = 0;
		}
	fprintf(f, "}, \"fusion\": \"%s\", \"fused_producers\": %d, \"blocks\": {",
	        c->fused < 0 ? "unfused" : c->fused > 0 ? "loop-fused" : "nothing to fuse", c->fused > 0 ? c->fused : 0);
	first = 1;
	for (int k = 0; k < T->nbcls && k < 64; k++)
		if (c->blocks[k] > 1) {
			fprintf(f, "%s\"%s\": %d", first ? "" : ", ", T->bname[k], c->blocks[k]);
			first = 0;
		}
	fputs(c->fold ? "}, \"fold\": 1" : "}", f);   /* folded blocks (emit_fold.c) */
	if (c->sched)   /* nest_schedule's form */
		fprintf(f, ", \"scheduled\": %d", c->sched);
	fputs(", \"tiles\": {", f);
	for (int i = in->n; i < c->env.n; i++)
		fprintf(f, "%s\"%s\": %.0f", i > in->n ? ", " : "", c->env.names[i], c->env.vals[i]);
	fputs("}}", f);
}

/* ---- reduced sizes -------------------------------------------------------------------- */

static int
assumptions_hold(const AxGraph *g0, const AxEnv *env)
{
	for (int i = 0; i < g0->nassume; i++) {
		double v;
		if (t_eval(g0->assume[i], env, &v) != 0 || v == 0)
			return 0;
	}
	return 1;
}

int
select_shrink(const AxGraph *g0, const char *const *names, double *vals, int n, int nsizes, double max_ops,
              double max_bytes)
{
	AxEnv env = { n, names, vals };
	int shrunk = 0;
	if (nsizes > 128)
		nsizes = 128;
	for (;;) {
		ModelRoof rf;
		model_roofline(g0, &env, 4, &rf);
		double ops = rf.ref_ops >= 0 ? rf.ref_ops : rf.macs + rf.flops;   /* what checking costs */
		if (ops <= max_ops && rf.bytes <= max_bytes)
			return shrunk;
		/* halve the largest size whose half keeps the program's assumptions (an odd one
		 * rounded up: its tiles then have a tail), the odd one of two a unit apart, as the first of
		 * their proportions, so that M=2049 is reduced as M=2048 is (M=33, not M=65 with
		 * K halved once more, which leaves K one tile and drops the structures of its tiles) */
		char tried[128] = { 0 };
		for (;;) {
			int even = -1, odd = -1;
			for (int i = 0; i < nsizes; i++) {
				if (tried[i] || vals[i] < 2)
					continue;
				int *w = fmod(vals[i], 2) != 0 ? &odd : &even;
				if (*w < 0 || vals[i] > vals[*w])
					*w = i;
			}
			int pick = even >= 0 && (odd < 0 || vals[odd] < vals[even]) ? even : odd;
			if (pick < 0)
				return -1;
			tried[pick] = 1;
			double was = vals[pick];
			vals[pick] = ceil(was / 2);
			if (assumptions_hold(g0, &env))
				break;
			vals[pick] = was;
		}
		shrunk = 1;
	}
}
