/*
 * cmd_run.c — `axonc graph` (a program's dataflow graph) and `axonc run` (a
 * program on concrete sizes through the reference kernels, inputs and
 * outputs in NumPy's .npy format).
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"


/* The path of output k of n: out.npy, or out.0.npy, out.1.npy, ... */
static char *
out_path(const char *base, int k, int n)
{
	size_t len = strlen(base);
	char *p = malloc(len + 16);
	if (!p)
		ax_die("out of memory");
	if (n == 1) {
		memcpy(p, base, len + 1);
		return p;
	}
	size_t stem = len > 4 && strcmp(base + len - 4, ".npy") == 0 ? len - 4 : len;
	snprintf(p, len + 16, "%.*s.%d.npy", (int)stem, base, k);
	return p;
}

static int
run_program(const AxGraph *g, const char *dims, const char *inputs, uint64_t seed, const char *out)
{
	const char *names[80];
	double vals[80];
	int n = 0, nsizes = 0, rc = 1;
	char err[512];
	float *in[64] = { 0 }, *res[16] = { 0 };
	int owned[64] = { 0 };
	int bad = ax_size_env(g, dims, names, vals, 80, &n, &nsizes, err, sizeof err);
	if (bad) {
		fprintf(stderr, "axonc: error: %s\n", err);
		rc = bad;
		goto done;
	}
	AxEnv env = { n, names, vals };
	/* inputs: from files, or random in [-1, 1) from the seed */
	int ntensor = 0;
	for (int p = 0; p < g->nparams; p++)
		ntensor += g->params[p].tensor;
	const char *files[64];
	int nfiles = 0;
	char *list = inputs ? strdup(inputs) : NULL;
	for (char *tok = list ? strtok(list, ",") : NULL; tok && nfiles < 64; tok = strtok(NULL, ","))
		files[nfiles++] = tok;
	if (inputs && nfiles != ntensor) {
		fprintf(stderr, "axonc: error: --inputs gives %d files for %d tensor parameters\n", nfiles, ntensor);
		free(list);
		goto done;
	}
	int fi = 0;
	for (int p = 0; p < g->nparams; p++) {
		if (!g->params[p].tensor)
			continue;
		AxShape want;
		if (graph_shape(g, g->params[p].node, &env, &want) != 0) {
			fprintf(stderr, "axonc: error: cannot evaluate the shape of '%s'\n", g->params[p].name);
			free(list);
			goto done;
		}
		if (inputs) {
			AxShape got;
			if (npy_read(files[fi], &got, &in[p], err, sizeof err) != 0) {
				fprintf(stderr, "axonc: error: %s\n", err);
				free(list);
				goto done;
			}
			owned[p] = 1;
			int same = got.rank == want.rank;
			for (int d = 0; same && d < got.rank; d++)
				same = got.d[d] == want.d[d];
			if (!same) {
				fprintf(stderr, "axonc: error: %s holds a tensor of another shape than '%s' needs\n", files[fi],
				        g->params[p].name);
				free(list);
				goto done;
			}
			fi++;
			continue;
		}
		int64_t numel = ax_numel(&want);
		if (numel > ((int64_t)1 << 31)) {
			fprintf(stderr, "axonc: error: input '%s' is too large to run\n", g->params[p].name);
			goto done;
		}
		in[p] = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
		if (!in[p])
			ax_die("out of memory");
		owned[p] = 1;
		uint64_t st = seed * 1000003u + (uint64_t)p;
		for (int64_t i = 0; i < numel; i++)
			in[p][i] = (float)((double)(ax_splitmix(&st) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
	}
	free(list);
	AxShape os[16];
	if (graph_run(g, &env, (const float *const *)in, res, os, err, sizeof err) != 0) {
		fprintf(stderr, "axonc: error: %s\n", err);
		goto done;
	}
	for (int k = 0; k < g->noutputs; k++) {
		char *path = out_path(out, k, g->noutputs);
		int bad = npy_write(path, &os[k], res[k], err, sizeof err);
		free(path);
		if (bad) {
			fprintf(stderr, "axonc: error: %s\n", err);
			goto done;
		}
	}
	rc = 0;
done:
	for (int p = 0; p < 64; p++)
		if (owned[p])
			free(in[p]);
	for (int k = 0; k < 16; k++)
		free(res[k]);
	for (int i = 0; i < nsizes; i++)
		free((char *)names[i]);
	return rc;
}

int
cmd_graph(const AxTarget *t, const Opts *o)
{
	TermCtx *tc = tc_new(t);
	AxGraph *g = program_graph(t, tc, o);
	if (g) {
		printf("%s(", g->fn);
		for (int p = 0; p < g->nparams; p++)
			printf("%s%s", p ? ", " : "", g->params[p].name);
		printf(")\n");
		graph_print(stdout, g);
		for (int i = 0; i < g->nassume; i++)
			printf("  assumes %s\n", t_infix(tc, g->assume[i]));
	}
	tc_free(tc);
	return g ? 0 : 1;
}

int
cmd_run(const AxTarget *t, const Opts *o)
{
	TermCtx *tc = tc_new(t);
	AxGraph *g = program_graph(t, tc, o);
	int rc = !g ? 1 : !o->out ? fail("%s needs -o OUT.npy", "run") : run_program(g, o->dims, o->inputs, o->seed, o->out);
	tc_free(tc);
	return rc;
}
