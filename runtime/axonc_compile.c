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
#include "nest.h"

enum { MAXEMIT = 64,            /* candidates written per variant by --emit-all */
       DEFAULT_BUDGET = 20000 };  /* candidates visited by default, all variants together */

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
	int bestv = -1, bestfused = 0;
	int64_t emitted = 0, failed = 0, dropped = 0, considered = 0;
	NkiFootprint bestfp = { 0 };
	int *bestchoice = NULL, bestblocks[64] = { 0 };
	const char *bestnames[512];
	double bestvals[512];
	int bestn = 0;
	AxTiling *bestT = NULL;
	LowerNode *bestL = NULL;
	char firstwhy[512] = "";
	/* the budget, shared evenly by the variants */
	int64_t budget = (o->budget > 0 ? o->budget : DEFAULT_BUDGET) / (ng->nvariants > 0 ? ng->nvariants : 1);
	if (budget < MAXEMIT)
		budget = MAXEMIT;
	/* the C renderings (--emit-all: NAME.c) and their numerics (--validate): ckernel.c */
	CkCheck *ck = o->validate || o->emit_all ? ck_check_new(ng->g0, names, vals, n, o->validate, o->seed, o->emit_all)
	                                         : NULL;
	for (int v = 0; v < ng->nvariants && rc == 0; v++) {
		AxTiling *T = tile_graph(ng->variants[v]);
		LowerNode *L = lower_variant(cache, T, 64);
		const AxGraph *g = T->g;
		/* --emit-all writes an even sample of at most MAXEMIT of the variant's candidates */
		int64_t total = o->emit_all ? extract_visits(T, L, names, vals, n, o->max_tile, budget) : 0;
		int64_t stride = total > MAXEMIT ? (total + MAXEMIT - 1) / MAXEMIT : 1, visit = -1;
		Extract *x = extract_new(T, L, names, vals, n, o->max_tile, o->no_fusion, budget);
		for (;;) {
			ExtractCand c;
			Nest *ns = extract_next(x, &c);
			if (c.end) {
				if (!*firstwhy && c.why[0])
					snprintf(firstwhy, sizeof firstwhy, "variant %d: %.400s", v, c.why);
				break;
			}
			considered++;
			if (c.fused != -1 || o->no_fusion)
				visit++;   /* a new (combination, tiles, blocks); its unfused form shares the number */
			if (ns && !c.fp.fits) {   /* its tiles do not fit on chip: dropped, counted */
				dropped++;
				if (!*firstwhy)
					snprintf(firstwhy, sizeof firstwhy, "variant %d: its tiles do not fit in on-chip memory", v);
			} else if (!ns) {
				failed++;
				if (!*firstwhy)
					snprintf(firstwhy, sizeof firstwhy, "variant %d: %.400s", v, c.why);
			}
			int keep = ns && c.fp.fits && (!best || (o->emit_all && visit % stride == 0));
			char *src = NULL;
			if (ns && c.fp.fits) {
				emitted++;
				char why[512];
				if (keep && !(src = nest_nki(ns, fn, why, sizeof why))) {
					failed++;
					emitted--;
				}
			}
			int rejected = 0;
			if (src && ck) {   /* its C rendering: written (--emit-all), run (--validate) */
				char label[96];
				snprintf(label, sizeof label, "v%d_c%lld_s%lld%s", v, (long long)c.combo, (long long)c.sub,
				         c.fused < 0 ? "_unfused" : "");
				if ((rejected = ck_candidate(ck, ns, fn, label)) < 0)
					rc = 1;
			}
			if (src && !best && rejected == 0) {   /* the placeholder order: the first that fits and validates */
				best = arena_strdup(tc_arena(tc), src);
				bestv = v;
				bestfused = c.fused > 0 ? c.fused : 0;
				bestfp = c.fp;
				bestchoice = arena_alloc(tc_arena(tc), sizeof(int) * (size_t)(g->nnodes + 1));
				memcpy(bestchoice, c.choice, sizeof(int) * (size_t)g->nnodes);
				memcpy(bestblocks, c.blocks, sizeof bestblocks);
				bestn = c.env.n < 512 ? c.env.n : 512;
				memcpy(bestnames, c.env.names, sizeof *bestnames * (size_t)bestn);
				memcpy(bestvals, c.env.vals, sizeof *bestvals * (size_t)bestn);
				bestT = T;
				bestL = L;
			}
			if (src && o->emit_all && visit % stride == 0) {
				char path[1024];
				snprintf(path, sizeof path, "%s/v%d_c%lld_s%lld%s.py", o->emit_all, v, (long long)c.combo,
				         (long long)c.sub, c.fused < 0 ? "_unfused" : "");
				if (write_file(path, src) != 0)
					rc = 1;
			}
			free(src);
			nest_free(ns);
			if (rc || (best && !o->emit_all))
				break;   /* the placeholder selection needs no more */
		}
		extract_free(x);
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
		           "allow, no blocks\", \"variants\": %d, \"candidates\": %lld, \"emitted\": %lld, \"not_emitted\": %lld, "
		           "\"dropped_footprint\": %lld, \"ms\": %.3f, \"best\": {\"variant\": %d, ",
		        ng->nvariants, (long long)considered, (long long)emitted, (long long)failed, (long long)dropped,
		        ax_now_ms() - t0, bestv);
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
		fprintf(f, "}, \"blocks\": {");
		for (int c = 0, first2 = 1; c < bestT->ncls && c < 64; c++)
			if (bestblocks[c] > 1) {
				fprintf(f, "%s\"%s\": %d", first2 ? "" : ", ", bestT->strip[c], bestblocks[c]);
				first2 = 0;
			}
		fprintf(f, "}, \"tiles\": {");
		for (int i = n; i < bestn; i++)
			fprintf(f, "%s\"%s\": %.0f", i > n ? ", " : "", bestnames[i], bestvals[i]);
		fprintf(f, "}}");
		ck_report(ck, f);
		fprintf(f, "}\n");
		fclose(f);
		rc = write_file(o->report, rep) ? 1 : 0;
		free(rep);
	}
	if (rc == 0)
		fprintf(stderr, "axonc: %lld candidate%s considered, %lld fit on chip (%lld could not be written, %lld dropped: "
		                "their tiles do not fit), %.1f ms; selection: placeholder order (no performance model yet)\n",
		        (long long)considered, considered == 1 ? "" : "s", (long long)emitted, (long long)failed,
		        (long long)dropped, ax_now_ms() - t0);
	if (rc == 0)
		ck_summary(ck, stderr);
	ck_check_free(ck);
	lower_cache_free(cache);
	for (int i = 0; i < nsizes; i++)
		free((char *)names[i]);
	tc_free(tc);
	return rc;
}
