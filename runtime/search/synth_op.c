/*
 * synth_op.c — `axonc synth OP`: the 2-D tile instances of one tensor op
 * (every choice of its groups' ranks that makes the operands and the result
 * 2-D, and for an elementwise op also the [P, 1] broadcast), sizes named P,
 * F, K, ... after the equalities the op's preconditions impose, each
 * synthesized by synth_tile.
 */
#include <string.h>
#include "search.h"

/* Union-find over size variables by name, for the equalities an op needs. */
static Term *
root_of(Term **from, Term **to, int n, Term *v)
{
	for (int i = 0; i < n; i++)
		if (from[i] == v)
			return root_of(from, to, n, to[i]);
	return v;
}

/* Tile instances of op: operands of rank 2 (or a broadcast [P, 1] operand),
 * a result of rank 1 or 2; each is synthesized.  Returns the instances done. */
int
synth_op(const AxTarget *t, TermCtx *tc, int opi, int depth, SynthInstCb icb, SynthCb cb, void *env, int *checked)
{
	const AxOp *op = &t->ops[opi];
	int ng = op->ngroups, done = 0;
	*checked = 0;
	if (op->nopnd == 0 || op->nattr)
		return 0;
	int total = 1;
	for (int g = 0; g < ng; g++)
		total *= 3;
	for (int code = 0; code < total; code++) {
		int grank[AX_MAXGROUP] = { 0 }, c = code;
		for (int g = 0; g < ng; g++, c /= 3)
			grank[g] = c % 3;
		int rank[AX_MAXOPND], ok = 1;
		for (int o = 0; o < op->nopnd; o++) {
			rank[o] = op->opnd[o].nfixed;
			for (int k = 0; k < op->opnd[o].ndims; k++)
				if (op->opnd[o].pat[k] >= 0)
					rank[o] += grank[op->opnd[o].pat[k]];
			ok &= rank[o] == 2;
		}
		int r = ax_pos(op->layout, rank, grank, -1, op->layout->nout);
		if (!ok || r < 1 || r > 2)
			continue;
		int elementwise = op->broadcast;   /* every operand is the group alone: [P, F] alike */
		for (int o = 0; o < op->nopnd; o++)
			elementwise &= op->opnd[o].nfixed == 0;
		for (int bvar = 0; bvar < (elementwise && op->nopnd == 2 ? 2 : 1); bvar++) {
			AxGraph *g = graph_new(t, tc);
			g->params = arena_alloc(tc_arena(tc), sizeof *g->params * (size_t)(op->nopnd + 1));
			static const char *letters[] = { "P", "F", "K", "N", "Q", "R", "S", "U" };
			Term *from[32], *to[32];
			int nu = 0;
			for (int o = 0; o < op->nopnd; o++) {
				AxNode n = { .op = -1, .input = o, .rank = 2 };
				for (int d = 0; d < 2; d++) {
					char nm[40];
					snprintf(nm, sizeof nm, "%%s%d_%d", o & 7, d & 7);
					n.dim[d] = elementwise ? t_var(tc, letters[d], TS_INT) : t_var(tc, nm, TS_INT);
				}
				if (bvar && o == 1)
					n.dim[1] = t_int(tc, 1);
				g->params[g->nparams++] = (AxParam){ .name = op->opnd[o].name, .tensor = 1, .node = o, .dtype = "f32" };
				graph_add(g, &n);
			}
			/* unify the sizes the op equates, name them P, F, K, ... */
			AxSym s = { 0 };
			for (int o = 0; o < op->nopnd; o++) {
				s.rank[o] = 2;
				s.dim[o][0] = g->nodes[o].dim[0];
				s.dim[o][1] = g->nodes[o].dim[1];
			}
			memcpy(s.grank, grank, sizeof s.grank);
			Term *pre = op->pre(tc, &s), *st[64];
			int sp = 0;
			st[sp++] = pre;
			while (sp) {
				Term *x = st[--sp];
				if (x->kind == TK_AND && sp < 62) {
					st[sp++] = x->a[0];
					st[sp++] = x->a[1];
				} else if (x->kind == TK_EQ && x->a[0]->kind == TK_VAR && x->a[1]->kind == TK_VAR && nu < 32) {
					Term *a = root_of(from, to, nu, x->a[0]), *b = root_of(from, to, nu, x->a[1]);
					if (a != b) {
						from[nu] = a;
						to[nu++] = b;
					}
				}
			}
			int nl = 0;
			Term *seen[32], *named[32];
			for (int o = 0; o < op->nopnd; o++)
				for (int d = 0; d < 2; d++) {
					Term *v = root_of(from, to, nu, g->nodes[o].dim[d]);
					if (v->kind == TK_VAR && !elementwise) {
						int k;
						for (k = 0; k < nl && seen[k] != v; k++)
							;
						if (k == nl && nl < 8) {
							seen[nl] = v;
							named[nl] = t_var(tc, letters[nl], TS_INT);
							nl++;
						}
						v = k < nl ? named[k] : v;
					}
					g->nodes[o].dim[d] = v;
				}
			for (int k = 0; k < (elementwise ? 2 : nl); k++)
				g->syms[g->nsyms++] = elementwise ? letters[k] : t_str(tc, named[k]);
			for (int o = 0; o < op->nopnd; o++) {
				s.dim[o][0] = g->nodes[o].dim[0];
				s.dim[o][1] = g->nodes[o].dim[1];
			}
			AxNode n = { .op = opi, .nin = op->nopnd };
			for (int o = 0; o < op->nopnd; o++)
				n.in[o] = o;
			memcpy(n.grank, grank, sizeof n.grank);
			Term *out[AX_MAXR];
			n.rank = op->shape(tc, &s, out);
			for (int d = 0; d < n.rank; d++)
				n.dim[d] = out[d];
			g->outputs[0] = graph_add(g, &n);
			g->noutputs = 1;
			char why[256];
			Smt *smt = smt_new(t);
			Term *h = t_bool(tc, 1);
			for (int k = 0; k < g->nsyms; k++)
				h = t_bin(tc, TK_AND, h, t_bin(tc, TK_LE, t_int(tc, 1), t_var(tc, g->syms[k], TS_INT)));
			int valid = smt_prove(smt, h, op->pre(tc, &s), why, sizeof why);
			AxNode *res = &g->nodes[g->outputs[0]];
			for (int d = 0; valid && d < res->rank; d++)
				res->dim[d] = size_simplify(smt, tc, h, res->dim[d]);
			smt_free(smt);
			if (!valid)
				continue;
			if (icb)
				icb(env, g);
			int ch = 0;
			synth_tile(t, tc, g, depth, NULL, cb, env, &ch);
			*checked += ch;
			done++;
		}
	}
	return done;
}
