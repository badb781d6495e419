/*
 * ckcheck.c — validation: a candidate's C rendering (ckernel.c runs it)
 * against the program's reference execution on the same random inputs, for
 * axonc compile (structures at reduced sizes, the winner, --emit-all).
 */
#include <math.h>
#include <string.h>
#include "nest.h"

int
ck_compare(int nout, float *const *got, const AxShape *gs, float *const *want, const AxShape *ws, char *why,
           size_t nwhy)
{
	for (int k = 0; k < nout; k++) {
		char a[96], b[96];
		if (gs[k].rank != ws[k].rank || memcmp(gs[k].d, ws[k].d, sizeof(int64_t) * (size_t)gs[k].rank) != 0) {
			ax_shape_str(&gs[k], a, sizeof a);
			ax_shape_str(&ws[k], b, sizeof b);
			snprintf(why, nwhy, "result %d has shape %s, the program's %s", k, a, b);
			return 0;
		}
		int64_t n = ax_numel(&gs[k]);
		for (int64_t i = 0; i < n; i++) {
			double x = got[k][i], y = want[k][i];
			int same = (isnan(x) && isnan(y)) || x == y || fabs(x - y) <= 1e-4 + 1e-4 * fabs(y);
			if (!same) {
				int64_t idx[AX_MAXR];
				ax_unflatten(&gs[k], i, idx);
				size_t w = (size_t)snprintf(a, sizeof a, "[");
				for (int d = 0; d < gs[k].rank && w < sizeof a; d++)
					w += (size_t)snprintf(a + w, sizeof a - w, "%s%lld", d ? ", " : "", (long long)idx[d]);
				snprintf(why, nwhy, "result %d differs at %s]: %.9g, the program's reference gives %.9g", k, a, x, y);
				return 0;
			}
		}
	}
	return 1;
}

struct CkCheck {
	const AxGraph *g0;
	const char *names[256];  /* the program's sizes and scalar parameters */
	double vals[256];
	int n, validate;
	const char *dir;         /* --emit-all: NAME.c beside NAME.py */
	float *in[64];           /* inputs by parameter position, random from the seed */
	float *ref[16];          /* the program's reference results on them */
	AxShape rshape[16];
	char refwhy[400];        /* why the reference does not run ("" if it does) */
	int validated, rejected;
	double ms;
	char first[700];         /* the first rejection */
};


CkCheck *
ck_check_new(const AxGraph *g0, const char *const *names, const double *vals, int n, int validate, uint64_t seed,
             const char *dir)
{
	CkCheck *c = calloc(1, sizeof *c);
	if (!c)
		ax_die("out of memory");
	c->g0 = g0;
	c->n = n < 200 ? n : 200;
	memcpy(c->names, names, sizeof *names * (size_t)c->n);
	memcpy(c->vals, vals, sizeof *vals * (size_t)c->n);
	c->validate = validate;
	c->dir = dir;
	if (!validate)
		return c;
	AxEnv env = { c->n, c->names, c->vals };
	for (int p = 0; p < g0->nparams && p < 64; p++) {
		AxShape s;
		if (!g0->params[p].tensor)
			continue;
		if (graph_shape(g0, g0->params[p].node, &env, &s) != 0 || ax_numel(&s) > ((int64_t)1 << 31)) {
			snprintf(c->refwhy, sizeof c->refwhy, "input '%s' cannot be made at these sizes", g0->params[p].name);
			return c;
		}
		int64_t numel = ax_numel(&s);
		c->in[p] = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
		if (!c->in[p])
			ax_die("out of memory");
		uint64_t st = seed * 1000003u + (uint64_t)p;   /* as `axonc run --seed` makes them */
		for (int64_t i = 0; i < numel; i++)
			c->in[p][i] = (float)((double)(ax_splitmix(&st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
	}
	char err[400];
	if (graph_run(g0, &env, (const float *const *)c->in, c->ref, c->rshape, err, sizeof err) != 0)
		snprintf(c->refwhy, sizeof c->refwhy, "the program's reference execution fails: %.340s", err);
	return c;
}

/* The rendering src of ns (function fn) run on the inputs and compared; 1 = same */
int
ck_check_nest(CkCheck *c, const Nest *ns, const char *src, const char *fn, char *why, size_t nwhy)
{
	if (c->refwhy[0] || !src) {   /* no reference, or no rendering (why says so) */
		if (c->refwhy[0])
			snprintf(why, nwhy, "%s", c->refwhy);
		return 0;
	}
	float *got[16] = { 0 };
	AxShape gs[16];
	int nout = c->g0->noutputs, same = 0;
	if (ns->g->noutputs != nout)
		snprintf(why, nwhy, "%d results, the program has %d", ns->g->noutputs, nout);
	else if (nest_run_c(ns, src, fn, (const float *const *)c->in, got, gs, why, nwhy) == 0)
		same = ck_compare(nout, got, gs, c->ref, c->rshape, why, nwhy);
	for (int k = 0; k < 16; k++)
		free(got[k]);
	return same;
}

float *const *
ck_check_inputs(CkCheck *c)
{
	return c->in;
}

int
ck_candidate(CkCheck *c, const Nest *ns, const char *fn, const char *label)
{
	if (!c)
		return 0;
	double t0 = ax_now_ms();
	int rc = 0;
	char why[600] = "", path[1200];
	char *src = nest_c(ns, fn, why, sizeof why);
	if (src && c->dir) {
		snprintf(path, sizeof path, "%s/%s.c", c->dir, label);
		FILE *f = fopen(path, "w");
		if (!f || fputs(src, f) < 0 || fclose(f) != 0) {
			fprintf(stderr, "axonc: error: cannot write %s\n", path);
			rc = -1;
		}
	}
	if (c->validate && rc == 0) {
		if (src && ck_check_nest(c, ns, src, fn, why, sizeof why))
			c->validated++;
		else {
			if (!c->rejected++)
				snprintf(c->first, sizeof c->first, "%s is rejected by validation: %.600s", label, why);
			rc = 1;
		}
	}
	free(src);
	c->ms += ax_now_ms() - t0;
	return rc;
}

void
ck_report(const CkCheck *c, FILE *f)
{
	if (!c || !c->validate)
		return;
	fprintf(f, ", \"emit_all_validated\": %d, \"emit_all_rejected\": %d", c->validated, c->rejected);
	if (c->rejected) {
		fputs(", \"emit_all_first_rejection\": ", f);
		json_fstr(f, c->first);
	}
}

void
ck_summary(const CkCheck *c, FILE *f)
{
	if (!c || !c->validate)
		return;
	int n = c->validated + c->rejected;
	fprintf(f, "axonc: numerics: %d candidate%s validated, %d rejected (C renderings run by libtcc against the "
	           "program's reference execution, |a-b| <= 1e-4 + 1e-4*|b|; %.1f ms, %.2f ms each)\n",
	        c->validated, c->validated == 1 ? "" : "s", c->rejected, c->ms, n ? c->ms / n : 0.0);
	if (c->rejected)
		fprintf(f, "axonc: first rejection: %s\n", c->first);
}

const char *
ck_first_rejection(const CkCheck *c)
{
	return c && c->rejected ? c->first : "";
}

void
ck_check_free(CkCheck *c)
{
	if (!c)
		return;
	for (int p = 0; p < 64; p++)
		free(c->in[p]);
	for (int k = 0; k < 16; k++)
		free(c->ref[k]);
	free(c);
}
