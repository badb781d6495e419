/*
 * sizes.c — concrete sizes given on the command line (--dims M=64,K=32):
 * parsed, matched with a program's size names and scalar parameters, and
 * checked against its assumptions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "axon.h"

/* "M=64,K=32" into names (malloc'd) and values; 0 = ok. */
int
ax_parse_dims(const char *spec, const char **names, double *vals, int cap, int *n, char *err, size_t errlen)
{
	*n = 0;
	const char *p = spec;
	while (p && *p) {
		size_t w = strcspn(p, ",");
		const char *eq = memchr(p, '=', w);
		if (!eq || eq == p)
			return ax_fail(err, errlen, "--dims: expected NAME=VALUE, got '%.*s'", (int)w, p);
		char *end;
		errno = 0;
		long long v = strtoll(eq + 1, &end, 10);
		if (end != p + w || end == eq + 1 || v < 1)
			return ax_fail(err, errlen, "--dims: '%.*s' needs a positive integer value", (int)w, p);
		if (errno == ERANGE || v > AX_MAX_SIZE)   /* as the program's own annotations: their products stay in 64 bits */
			return ax_fail(err, errlen, "--dims: '%.*s' is too large (a size is at most 2^48)", (int)w, p);
		if (*n == cap)
			return ax_fail(err, errlen, "--dims: too many sizes");
		char *nm = malloc((size_t)(eq - p) + 1);
		if (!nm)
			ax_die("out of memory");
		memcpy(nm, p, (size_t)(eq - p));
		nm[eq - p] = 0;
		for (int i = 0; i < *n; i++)
			if (strcmp(names[i], nm) == 0) {
				free(nm);
				return ax_fail(err, errlen, "--dims: '%s' given twice", names[i]);
			}
		names[*n] = nm;
		vals[(*n)++] = (double)v;
		p += w;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The sizes of g from "M=64,K=32", its scalar parameters at their defaults,
 * its assumptions checked: names[0..*nsizes) are malloc'd (the caller frees
 * them).  0 = ok; 2 = the sizes are wrongly written; 1 = they do not fit g. */
int
ax_size_env(const AxGraph *g, const char *dims, const char **names, double *vals, int cap, int *n, int *nsizes,
            char *err, size_t errlen)
{
	*n = *nsizes = 0;
	if (ax_parse_dims(dims ? dims : "", names, vals, cap - g->nparams, n, err, errlen) != 0) {
		*nsizes = *n;
		return 2;
	}
	*nsizes = *n;
	for (int i = 0; i < *nsizes; i++) {
		int known = 0;
		for (int k = 0; k < g->nsyms; k++)
			known |= strcmp(g->syms[k], names[i]) == 0;
		if (!known)
			return ax_fail(err, errlen, "--dims: '%s' is not a size of %s", names[i], g->fn), 1;
	}
	for (int k = 0; k < g->nsyms; k++) {
		int given = 0;
		for (int i = 0; i < *nsizes; i++)
			given |= strcmp(g->syms[k], names[i]) == 0;
		if (!given)
			return ax_fail(err, errlen, "size %s is not given (--dims %s=...)", g->syms[k], g->syms[k]), 1;
	}
	for (int p = 0; p < g->nparams; p++)
		if (!g->params[p].tensor && *n < cap) {
			names[*n] = g->params[p].name;
			vals[(*n)++] = g->params[p].defval;
		}
	AxEnv env = { *n, names, vals };
	for (int i = 0; i < g->nassume; i++) {
		double v;
		if (t_eval(g->assume[i], &env, &v) != 0 || v == 0)
			return ax_fail(err, errlen, "%s needs %s, which these sizes break", g->fn, t_infix(g->tc, g->assume[i])),
			       1;
	}
	return 0;
}
