/*
 * equiv_spot.c — both sides of a check run on small sizes with the reference
 * kernels.  Used twice: to find a real counterexample (before and after a proof fails), and
 * as the second line of defence behind every proof (the spot check): a proved
 * pair that differs when run is a bug of the checker, reported as one.
 *
 * Sizes are small random values that satisfy every assumption of the check
 * (equiv_sides.c); the right side gets its own names' values through the
 * renaming, and the names it does not rename the values of those names.  Inputs are random in [-1, 1), the same arrays for both sides.
 * A tensor larger than 2^16 elements at the chosen sizes (a static size like
 * 99999) is not run.  An element that is inf or nan on either side is not
 * compared: real arithmetic, the checker's model, has no such values.
 */
#include <math.h>
#include <string.h>
#include "equiv.h"

enum { SPOT_MAXNUMEL = 1 << 16, SPOT_MAXVAL = 160 };

static uint64_t
next(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return *st >> 11;
}

/* The values of b's size names (and scalar parameters) from a's. */
static int
env_rhs(const Sides *s, const AxEnv *ea, const char **names, double *vals, int *nv)
{
	const AxGraph *b = s->b;
	for (int i = 0; i < s->nren && *nv < SPOT_MAXVAL; i++) {
		double v;
		if (t_eval(s->to[i], ea, &v) != 0)
			return -1;
		names[*nv] = s->from[i]->name;
		vals[(*nv)++] = v;
	}
	/* a size the renaming leaves alone is the same size as a's of that name (sides_rhs leaves
	 * it so for the proof): a size that b's shapes write only in expressions (Hq // Hkv), or
	 * one of the right side only, valued in ea by sides_run */
	for (int i = 0; i < b->nsyms && *nv < SPOT_MAXVAL; i++) {
		int renamed = 0;
		for (int j = 0; j < s->nren && !renamed; j++)
			renamed = strcmp(s->from[j]->name, b->syms[i]) == 0;
		for (int j = 0; j < ea->n && !renamed; j++)
			if (strcmp(ea->names[j], b->syms[i]) == 0) {
				names[*nv] = b->syms[i];
				vals[(*nv)++] = ea->vals[j];
				break;
			}
	}
	for (int p = 0; p < b->nparams && *nv < SPOT_MAXVAL; p++)
		if (!b->params[p].tensor) {
			names[*nv] = b->params[p].name;
			vals[(*nv)++] = b->params[p].defval;
		}
	return 0;
}

/* Compares the outputs; 1 at the first difference, with msg. */
static int
differ(int nout, float **oa, float **ob, const AxShape *sa, const AxShape *sb, char *msg, size_t n)
{
	for (int k = 0; k < nout; k++) {
		int same = sa[k].rank == sb[k].rank;
		for (int d = 0; same && d < sa[k].rank; d++)
			same = sa[k].d[d] == sb[k].d[d];
		if (!same) {
			snprintf(msg, n, "output %d has different shapes", k);
			return 1;
		}
		int64_t numel = ax_numel(&sa[k]);
		for (int64_t i = 0; i < numel; i++) {
			double x = oa[k][i], y = ob[k][i];
			/* inf or nan on a side is outside real arithmetic (a zero denominator,
			 * sqrt of a negative, where the reference's max ignores nan and NumPy's
			 * does not): no evidence either way */
			if (!isfinite(x) || !isfinite(y) || x == y || fabs(x - y) <= 1e-3 * (1 + fabs(x) + fabs(y)))
				continue;
			snprintf(msg, n, "output %d element %lld is %g on one side and %g on the other", k, (long long)i, x, y);
			return 1;
		}
	}
	return 0;
}

int
sides_run(const Sides *s, int runs, int tries, uint64_t seed, int *ran, char *msg, size_t n)
{
	const AxGraph *a = s->a, *b = s->b;
	uint64_t st = seed;
	*ran = 0;
	int nout = a->noutputs < b->noutputs ? a->noutputs : b->noutputs;
	for (int trial = 0; trial < tries && *ran < runs; trial++) {
		const char *names[SPOT_MAXVAL];
		double vals[SPOT_MAXVAL];
		int nv = 0;
		for (int i = 0; i < a->nsyms && nv < SPOT_MAXVAL; i++) {
			names[nv] = a->syms[i];
			/* sizes of 2 to 4 first: at 1 a transpose or a wrong axis is invisible */
			vals[nv++] = (double)(trial < tries / 2 ? 2 + next(&st) % 3 : 1 + next(&st) % 6);
		}
		for (int i = 0; i < s->b->nsyms && nv < SPOT_MAXVAL; i++) {   /* sizes of the right side only */
			int known = 0;
			for (int j = 0; j < nv; j++)
				known |= strcmp(names[j], s->b->syms[i]) == 0;
			for (int j = 0; j < s->nren; j++)
				known |= strcmp(s->from[j]->name, s->b->syms[i]) == 0;
			if (!known) {
				names[nv] = s->b->syms[i];
				vals[nv++] = (double)(1 + next(&st) % 4);
			}
		}
		for (int p = 0; p < a->nparams && nv < SPOT_MAXVAL; p++)
			if (!a->params[p].tensor) {
				names[nv] = a->params[p].name;
				vals[nv++] = a->params[p].defval;
			}
		AxEnv ea = { nv, names, vals };
		int ok = 1;
		for (int i = 0; i < s->nparts && ok; i++) {
			double v;
			ok = t_eval(s->part[i].t, &ea, &v) == 0 && v != 0;
		}
		const char *bn[SPOT_MAXVAL];
		double bv[SPOT_MAXVAL];
		int nb = 0;
		if (!ok || env_rhs(s, &ea, bn, bv, &nb) != 0)
			continue;
		AxEnv eb = { nb, bn, bv };
		/* inputs, shared by both sides (their shapes line up by the sizes rule) */
		float *in[64] = { 0 };
		int fail = 0;
		for (int p = 0; p < a->nparams && p < 64 && !fail; p++) {
			if (!a->params[p].tensor)
				continue;
			AxShape sh;
			if (graph_shape(a, a->params[p].node, &ea, &sh) != 0 || ax_numel(&sh) > SPOT_MAXNUMEL) {
				fail = 1;
				break;
			}
			int64_t numel = ax_numel(&sh);
			in[p] = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
			if (!in[p]) {
				fail = 1;
				break;
			}
			for (int64_t i = 0; i < numel; i++)
				in[p][i] = (float)((double)(next(&st) >> 29) / 16777216.0 * 2.0 - 1.0);
		}
		float *oa[16] = { 0 }, *ob[16] = { 0 };
		AxShape sa[16], sb[16];
		char err[256];
		int found = 0;
		if (!fail && graph_run(a, &ea, (const float *const *)in, oa, sa, err, sizeof err) == 0 &&
		    graph_run(b, &eb, (const float *const *)in, ob, sb, err, sizeof err) == 0) {
			(*ran)++;
			char detail[300];
			found = differ(nout, oa, ob, sa, sb, detail, sizeof detail);
			if (found) {
				char sizes[256] = "";
				size_t len = 0;
				for (int i = 0; i < nv && len < sizeof sizes - 40; i++) {
					int size = 0;
					for (int j = 0; j < a->nsyms; j++)
						size |= strcmp(a->syms[j], names[i]) == 0;
					if (size)
						len += (size_t)snprintf(sizes + len, sizeof sizes - len, "%s%s=%g", len ? " " : "", names[i],
						                        vals[i]);
				}
				snprintf(msg, n, "counterexample%s%.200s: %.280s", len ? " " : "", sizes, detail);
			}
		}
		for (int k = 0; k < 16; k++) {
			free(oa[k]);
			free(ob[k]);
		}
		for (int p = 0; p < 64; p++)
			free(in[p]);
		if (found)
			return 1;
	}
	return 0;
}
