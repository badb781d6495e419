/*
 * axonc_compile.c — `axonc compile`: a program to a kernel file.  Until the
 * performance model exists ([6/7]), the candidate is chosen in a placeholder
 * order (the first variant whose operations all lower, the first sequence
 * of each, the largest tiles their limits allow), and the report says so.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "axon.h"
#include "cli.h"

enum { MAXEMIT = 64 };   /* candidates written per variant by --emit-all */

static int
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "axonc: error: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The next candidate of a variant: an odometer over each operation's
 * sequences and, within a sequence, each instruction's engines; 0 at the end. */
static int
next_choice(const AxTarget *t, const AxGraph *g, const LowerNode *L, const AxTiling *T, int *choice, int *engsel)
{
	for (int id = g->nnodes - 1; id >= 0; id--) {
		if (T->op[id].kind != TO_COMPUTE || !L[id].nchoices)
			continue;
		const SynthSeq *q = &L[id].choice[choice[id]].seq;
		for (int j = q->ninsts - 1; j >= 0; j--) {
			int ne = 0;
			for (int e = 0; e < t->nengines; e++)
				ne += (t->insts[q->inst[j]].engines >> e) & 1;
			if (++engsel[id * 8 + j] < ne)
				return 1;
			engsel[id * 8 + j] = 0;
		}
		if (++choice[id] < L[id].nchoices)
			return 1;
		choice[id] = 0;
	}
	return 0;
}

/* A kernel for one candidate; NULL and why if none. */
static char *
kernel_for(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, const char **names,
           double *vals, int nsz, const char *fn, int maxtile, int fuse, int *nfused, NkiFootprint *fp, char *why,
           size_t n)
{
	int nv = nsz;
	if (nki_tile_sizes(T, L, choice, engsel, names, vals, &nv, 256, maxtile, why, n) != 0)
		return NULL;
	AxEnv env = { nv, names, vals };
	return emit_nki(T, L, choice, engsel, &env, fuse, nfused, fp, fn, why, n);
}

int
cmd_compile(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "compile");
	if (!o->dims)
		return fail("%s needs --dims (the sizes to compile for, e.g. --dims M=2048,K=2048,N=2048)", "compile");
	double t0 = ax_now_ms();
	TermCtx *tc = tc_new(t);
	NuGraph *ng = load_variants(t, tc, o);
	const char *names[256];
	double vals[256];
	int n = 0, nsizes = 0, rc = ng ? 0 : 1;
	char err[512];
	if (ng && (rc = ax_size_env(ng->g0, o->dims, names, vals, 128, &n, &nsizes, err, sizeof err)) != 0)
		fprintf(stderr, "axonc: error: %s\n", err);
	if (rc) {
		for (int i = 0; i < nsizes; i++)
			free((char *)names[i]);
		tc_free(tc);
		return rc;
	}
	if (o->emit_all && mkdir(o->emit_all, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "axonc: error: cannot make %s: %s\n", o->emit_all, strerror(errno));
		rc = 1;
	}
	LowerCache *cache = lower_cache_new(t, tc, o->depth > 0 ? o->depth : 3);
	const char *fn = ng->g0->fn;
	char *best = NULL;
	int bestv = -1, emitted = 0, failed = 0, bestfused = 0, dropped = 0;
	NkiFootprint bestfp = { 0 };
	int *bestchoice = NULL, *bestengsel = NULL;
	AxTiling *bestT = NULL;
	LowerNode *bestL = NULL;
	char firstwhy[512] = "";
	/* the C renderings (--emit-all: NAME.c) and their numerics (--validate): ckernel.c */
	CkCheck *ck = o->validate || o->emit_all ? ck_check_new(ng->g0, names, vals, n, o->validate, o->seed, o->emit_all)
	                                         : NULL;
	for (int v = 0; v < ng->nvariants && rc == 0; v++) {
		AxTiling *T = tile_graph(ng->variants[v]);
		LowerNode *L = lower_variant(cache, T, 64);
		const AxGraph *g = T->g;
		int *choice = arena_alloc(tc_arena(tc), sizeof(int) * (size_t)(g->nnodes + 1));
		int *engsel = arena_alloc(tc_arena(tc), sizeof(int) * (size_t)(g->nnodes * 8 + 8));
		int k = 0;
		do {
			/* the fused form, then the unfused one when fusion changed anything */
			for (int form = o->no_fusion ? 1 : 0; form < 2 && rc == 0; form++) {
				char why[512];
				int nfused = 0;
				NkiFootprint fp;
				char *src = kernel_for(T, L, choice, engsel, names, vals, n, fn, o->max_tile, form == 0, &nfused, &fp,
				                       why, sizeof why);
				if (src && !fp.fits) {   /* its tiles do not fit on chip: dropped, counted */
					dropped++;
					src = NULL;
					snprintf(why, sizeof why, "its tiles do not fit in on-chip memory");
				} else if (!src)
					failed++;
				if (!src && !*firstwhy)
					snprintf(firstwhy, sizeof firstwhy, "variant %d: %.400s", v, why);
				int rejected = 0;
				if (src && ck && (rejected = ck_candidate(ck, T, L, choice, engsel, form == 0, o->max_tile, fn, v, k,
				                                          form)) < 0)
					rc = 1;
				if (src) {
					emitted++;
					if (!best && rejected == 0) {
						best = src;
						bestv = v;
						bestfused = nfused;
						bestfp = fp;
						bestchoice = arena_alloc(tc_arena(tc), sizeof(int) * (size_t)(g->nnodes + 1));
						memcpy(bestchoice, choice, sizeof(int) * (size_t)g->nnodes);
						bestengsel = arena_alloc(tc_arena(tc), sizeof(int) * (size_t)(g->nnodes * 8 + 8));
						memcpy(bestengsel, engsel, sizeof(int) * (size_t)(g->nnodes * 8));
						bestT = T;
						bestL = L;
					}
					if (o->emit_all) {
						char path[1024];
						snprintf(path, sizeof path, "%s/v%d_c%d%s.py", o->emit_all, v, k, form ? "_unfused" : "");
						if (write_file(path, src) != 0)
							rc = 1;
					}
				}
				if (form == 0 && src && !nfused)
					break;   /* nothing fused: the unfused form is the same kernel */
				if (form == 0 && src && !o->emit_all)
					break;   /* the fused form fits: enough for one kernel */
			}
			k++;
		} while (o->emit_all && k < MAXEMIT && rc == 0 && next_choice(t, g, L, T, choice, engsel));
	}
	if (rc == 0 && !best) {
		fprintf(stderr, "axonc: error: no candidate could be emitted (%s)\n",
		        *firstwhy ? firstwhy : ck_first_rejection(ck));
		rc = 1;
	}
	if (rc == 0) {
		if (o->out)
			rc = write_file(o->out, best) ? 1 : 0;
		else
			fputs(best, stdout);
	}
	if (rc == 0 && o->report) {
		char *rep = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&rep, &len);
		fprintf(f, "{\"measure\": \"none\", \"selection\": \"placeholder order (no performance model yet): the first "
		           "variant whose operations all lower, the first sequence of each, the largest tiles their limits "
		           "allow\", \"variants\": %d, \"emitted\": %d, \"not_emitted\": %d, \"dropped_footprint\": %d, \"ms\": %.3f, \"best\": "
		           "{\"variant\": %d, ",
		        ng->nvariants, emitted, failed, dropped, ax_now_ms() - t0, bestv);
		fprintf(f, "\"fused_producers\": %d, \"footprint\": {", bestfused);
		for (int m = 0, first = 1; m < t->nmems && m < 32; m++)
			if (!t->mems[m].offchip) {
				fprintf(f, "%s\"%s_bytes_per_partition\": %lld", first ? "" : ", ", t->mems[m].name,
				        (long long)bestfp.bytes[m]);
				if (t->mems[m].banks > 0)
					fprintf(f, ", \"%s_banks\": %lld", t->mems[m].name, (long long)bestfp.banks[m]);
				first = 0;
			}
		fprintf(f, "}, \"instructions\": {");
		const AxGraph *g = bestT->g;
		int first = 1;
		for (int id = 0; id < g->nnodes; id++)
			if (bestT->op[id].kind == TO_COMPUTE) {
				fprintf(f, "%s\"%%%d %s\": ", first ? "" : ", ", id, node_op(g, &g->nodes[id])->name);
				fprintf(f, "\"%s\"", bestL[id].choice[bestchoice[id]].seq.text);
				first = 0;
			}
		fprintf(f, "}, \"tiles\": {");
		int nv = n;
		char why[256];
		nki_tile_sizes(bestT, bestL, bestchoice, bestengsel, names, vals, &nv, 256, o->max_tile, why, sizeof why);
		for (int i = n; i < nv; i++)
			fprintf(f, "%s\"%s\": %.0f", i > n ? ", " : "", names[i], vals[i]);
		fprintf(f, "}}");
		ck_report(ck, f);
		fprintf(f, "}\n");
		fclose(f);
		rc = write_file(o->report, rep) ? 1 : 0;
		free(rep);
	}
	if (rc == 0)
		fprintf(stderr, "axonc: %d candidate%s emitted (%d could not be, %d dropped: their tiles do not fit on chip), "
		                "%.1f ms; selection: placeholder order (no performance model yet)\n",
		        emitted, emitted == 1 ? "" : "s", failed, dropped, ax_now_ms() - t0);
	if (rc == 0)
		ck_summary(ck, stderr);
	ck_check_free(ck);
	lower_cache_free(cache);
	for (int i = 0; i < nsizes; i++)
		free((char *)names[i]);
	tc_free(tc);
	return rc;
}
