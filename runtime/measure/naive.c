/*
 * naive.c — the in-house baseline the performance model is read against:
 * the program as written (the variant given, normally variant 0), each
 * operation its own loop nest with its results round-tripping through
 * off-chip memory (no loop fusion), its first instruction sequence with
 * every instruction on its first engine, no blocks, and tiles of at most
 * NAIVE_TILE elements along each axis (the largest the instruction limits
 * allow below that: 128 partitions by 512 on the target's matrix unit).
 */
#include <string.h>
#include "measure.h"

Nest *
naive_nest(const AxTiling *T, const LowerNode *L, const char **names, double *vals, int nsizes, int cap, char *why,
           size_t nwhy)
{
	const AxGraph *g = T->g;
	int *choice = calloc((size_t)g->nnodes + 1, sizeof(int));
	if (!choice)
		ax_die("out of memory");
	for (int id = 0; id < g->nnodes; id++)
		if (T->op[id].kind == TO_COMPUTE && !L[id].nchoices) {
			snprintf(why, nwhy, "%s: no instruction sequence", node_op(g, &g->nodes[id])->name);
			free(choice);
			return NULL;
		}
	int n = nsizes, nfused = 0;
	Nest *ns = NULL;
	if (kernel_tile_sizes(T, L, choice, NULL, names, vals, &n, cap, NAIVE_TILE, why, nwhy) == 0) {
		AxEnv env = { n, names, vals };
		ns = nest_build(T, L, choice, NULL, NULL, 0, &env, 0, &nfused, why, nwhy);
	}
	free(choice);
	return ns;
}

double
naive_latency(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int n,
              int dtype_bytes, ModelStats *st, char *why, size_t nwhy)
{
	const char *nn[512];
	double nv[512];
	if (n > 512)
		n = 512;
	memcpy(nn, names, sizeof *names * (size_t)n);
	memcpy(nv, vals, sizeof *vals * (size_t)n);
	Nest *ns = naive_nest(T, L, nn, nv, n, 512, why, nwhy);
	if (!ns)
		return -1;
	double s = model_latency(ns, dtype_bytes, NULL, st);
	nest_free(ns);
	if (!st->fits) {
		snprintf(why, nwhy, "its tiles do not fit on chip");
		return -2;
	}
	return s;
}
