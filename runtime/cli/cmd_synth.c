/*
 * cmd_synth.c — the commands `axonc synth` and `axonc tile`: one op's
 * instruction sequences, or a program's variants tiled and lowered.
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

typedef struct SynthOut {
	const AxTarget *t;
	int json, nseq;
	const char *indent;
} SynthOut;

static void
synth_instance(void *env, const AxGraph *g)
{
	SynthOut *so = env;
	if (so->json)
		return;
	printf("# tile:");
	for (int n = 0; n < g->nnodes; n++) {
		const AxNode *nd = &g->nodes[n];
		if (n < g->nparams)
			printf(" %s[", g->params[n].name);
		else
			printf(" -> [");
		for (int d = 0; d < nd->rank; d++)
			printf("%s%s", d ? ", " : "", t_infix(g->tc, nd->dim[d]));
		printf("]");
	}
	printf("\n");
}

static void
json_engines(const AxTarget *t, uint32_t mask)
{
	printf("[");
	int first = 1;
	for (int e = 0; e < t->nengines; e++)
		if (mask & (1u << e)) {
			printf("%s\"%s\"", first ? "" : ", ", t->engines[e].name);
			first = 0;
		}
	printf("]");
}

/* One sequence; with its data movement when ch is given. */
static void
print_seq(SynthOut *so, const SynthSeq *q, const LowerChoice *ch)
{
	const AxTarget *t = so->t;
	if (so->json) {
		printf("%s\n  {\"insts\": [", so->nseq ? "," : "");
		for (int i = 0; i < q->ninsts; i++)
			printf("%s\"%s\"", i ? ", " : "", q->insts[i]);
		printf("], \"engines\": [");
		for (int i = 0; i < q->ninsts; i++) {
			printf("%s", i ? ", " : "");
			json_engines(t, q->engines[i]);
		}
		printf("], \"constraints\": ");
		json_str(q->constraints);
		printf(", \"text\": ");
		json_str(q->text);
		if (ch) {
			printf(", \"moves\": [");
			for (int k = 0; k < ch->nmoves; k++) {
				const LowerMove *m = &ch->move[k];
				printf("%s{\"inst\": \"%s\", \"of\": ", k ? ", " : "", t->insts[m->inst].name);
				json_str(m->what);
				printf(", \"from\": \"%s\", \"to\": \"%s\", \"engines\": ", t->mems[m->from].name,
				       t->mems[m->to].name);
				json_engines(t, m->engines);
				printf("}");
			}
			printf("], \"lowered\": ");
			json_str(ch->text);
		}
		printf("}");
	} else {
		printf("%s%s", so->indent, q->text);
		if (*q->constraints)
			printf("   if %s", q->constraints);
		printf("   on");
		for (int i = 0; i < q->ninsts; i++) {
			printf("%s", i ? " ;" : "");
			for (int e = 0; e < t->nengines; e++)
				if (q->engines[i] & (1u << e))
					printf(" %s", t->engines[e].name);
		}
		printf("\n");
		if (ch)
			printf("%s    %s\n", so->indent, ch->text);
	}
	so->nseq++;
}

static int
synth_seq(void *env, const SynthSeq *q)
{
	print_seq(env, q, NULL);
	return 0;
}

static const char *const red_names[] = { "", "sum-reduce", "max-reduce", "min-reduce", "scan" };

/* axonc synth FILE.py: every variant tiled, every tile op lowered */
static int
cmd_synth_program(const AxTarget *t, const Opts *o)
{
	double t0 = ax_now_ms();
	TermCtx *tc = tc_new(t);
	NuGraph *ng = program_variants(t, tc, o, 1);
	if (!ng) {
		tc_free(tc);
		return 1;
	}
	LowerCache *cache = lower_cache_new(t, tc, o->depth > 0 ? o->depth : 3);
	SynthOut so = { .t = t, .json = o->json, .indent = "      " };
	int missing = 0;
	if (o->json) {
		printf("{\"file\": ");
		json_str(o->args[0]);
		printf(", \"variants\": [");
	}
	for (int v = 0; v < ng->nvariants; v++) {
		AxGraph *vg = ng->variants[v];
		AxTiling *T = tile_graph(vg);
		LowerNode *L = lower_variant_plain(cache, T, 64);
		if (o->json)
			printf("%s\n {\"id\": %d, \"strips\": [", v ? "," : "", v);
		else
			printf("# variant %d\n", v);
		for (int c = 0; c < T->ncls; c++) {
			if (o->json) {
				printf("%s{\"name\": \"%s\", \"over\": ", c ? ", " : "", T->strip[c]);
				json_str(t_infix(tc, T->cls_extent[c]));
				printf("}");
			} else
				printf("  strip %s over %s\n", T->strip[c], t_infix(tc, T->cls_extent[c]));
		}
		if (o->json)
			printf("], \"ops\": [");
		int firstop = 1;
		for (int i = 0; i < vg->nnodes; i++) {
			const TileOp *to = &T->op[i];
			if (to->kind == TO_INPUT)
				continue;
			char *line = NULL;
			size_t len = 0;
			FILE *mf = open_memstream(&line, &len);
			if (!mf)
				ax_die("out of memory");
			tile_print_node(mf, T, i);
			fclose(mf);
			const LowerNode *ln = &L[i];
			const char *name = node_op(vg, &vg->nodes[i])->name;
			if ((to->kind == TO_COMPUTE && ln->nchoices == 0) || to->kind == TO_UNTILED)
				missing++;
			if (o->json) {
				printf("%s\n  {\"node\": %d, \"op\": \"%s\", \"tiling\": ", firstop ? "" : ",", i, name);
				json_str(line);
				printf(", \"kind\": \"%s\"", to->kind == TO_COMPUTE ? "compute" : to->kind == TO_VIEW ? "view"
				                             : to->kind == TO_CONST ? "constant" : "untiled");
				if (to->kind == TO_COMPUTE) {
					printf(", \"unplaced\": %d, \"sequences\": [", ln->unplaced);
					so.nseq = 0;
					for (int q = 0; q < ln->nchoices; q++)
						print_seq(&so, &ln->choice[q].seq, &ln->choice[q]);
					printf("]");
					for (int c = 0; c < AX_MAXOPND; c++)
						if (ln->constant[c]) {
							printf(", \"constant\": ");
							json_str(ln->constant[c]);
						}
					if (ln->red) {
						printf(", \"across_tiles\": {\"reduction\": \"%s\", \"op\": \"%s\", \"sequences\": [",
						       red_names[ln->red], ln->combine_op ? ln->combine_op : "");
						so.nseq = 0;
						for (int q = 0; q < ln->ncombine; q++)
							print_seq(&so, &ln->combine[q], NULL);
						printf("]}");
					}
				}
				printf("}");
				firstop = 0;
			} else {
				printf("  %%%d %s\n", i, line);
				if (to->kind == TO_COMPUTE && ln->nchoices == 0 && ln->unplaced)
					printf("      %d sequence%s found, but no copy instruction of the target moves their data "
					       "between the memories they use\n", ln->unplaced, ln->unplaced == 1 ? "" : "s");
				else if (to->kind == TO_COMPUTE && ln->nchoices == 0)
					printf("      no sequence found\n");
				for (int c = 0; c < AX_MAXOPND; c++)
					if (ln->constant[c])
						printf("      made on chip: %s\n", ln->constant[c]);
				for (int q = 0; q < ln->nchoices; q++)
					print_seq(&so, &ln->choice[q].seq, &ln->choice[q]);
				if (ln->red) {
					printf("      partial tiles (%s) combine by %s:\n", red_names[ln->red], ln->combine_op);
					so.indent = "        ";
					for (int q = 0; q < ln->ncombine; q++)
						print_seq(&so, &ln->combine[q], NULL);
					so.indent = "      ";
				} else if (ln->combine_why)
					printf("      partial tiles: %s\n", ln->combine_why);
			}
			free(line);
		}
		if (o->json)
			printf("]}");
	}
	int tiles, hits, checked;
	double sms;
	lower_cache_stats(cache, &tiles, &hits, &checked, &sms);
	double ms = ax_now_ms() - t0;
	if (o->json)
		printf("\n], \"tiles\": %d, \"cache_hits\": %d, \"checked\": %d, \"missing\": %d, \"synth_ms\": %.3f, \"ms\": %.3f}\n",
		       tiles, hits, checked, missing, sms, ms);
	else
		printf("# %d variant%s, %d distinct tiles synthesized (%d reused), %d checked by the prover, "
		       "%d operation%s without a sequence, %.1f ms (synthesis %.1f ms)\n",
		       ng->nvariants, ng->nvariants == 1 ? "" : "s", tiles, hits, checked, missing, missing == 1 ? "" : "s",
		       ms, sms);
	lower_cache_free(cache);
	tc_free(tc);
	return missing ? 1 : 0;
}

typedef struct FuseOut {
	SynthOut so;
	const AxGraph *g;
	int first;
} FuseOut;

static void
fuse_found(void *env, const FuseFound *f)
{
	FuseOut *fo = env;
	const AxGraph *g = fo->g;
	const char *a = node_op(g, &g->nodes[f->nodes[0]])->name, *b = node_op(g, &g->nodes[f->nodes[1]])->name;
	if (fo->so.json) {
		printf("%s\n  {\"nodes\": [%d, %d], \"ops\": [\"%s\", \"%s\"], \"moves\": [", fo->first ? "" : ",",
		       f->nodes[0], f->nodes[1], a, b);
		for (int k = 0; k < f->nmoves; k++) {
			printf("%s", k ? ", " : "");
			json_str(f->moves[k]);
		}
		printf("], \"window\": ");
		json_str(f->window);
		printf(", \"fused\": ");
		fo->so.nseq = 0;
		print_seq(&fo->so, &f->fused, NULL);
		printf("}");
	} else {
		if (f->nodes[0] == f->nodes[1])
			printf("  %%%d %s", f->nodes[0], a);
		else
			printf("  %%%d %s + %%%d %s (one loop nest)", f->nodes[0], a, f->nodes[1], b);
		if (f->nmoves) {   /* the swaps of the second propagation round that made the window */
			printf(", after the second round moved");
			for (int k = 0; k < f->nmoves; k++)
				printf("%s %s", k ? ", then" : "", f->moves[k]);
			printf(":\n      %s =>\n", f->window);
		} else
			printf(": %s =>\n", f->window);
		print_seq(&fo->so, &f->fused, NULL);
	}
	fo->first = 0;
}

/* axonc fuse FILE.py: the instruction fusions of every lowered variant */
int
cmd_fuse(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "fuse");
	double t0 = ax_now_ms();
	TermCtx *tc = tc_new(t);
	NuGraph *ng = program_variants(t, tc, o, 1);
	if (!ng) {
		tc_free(tc);
		return 1;
	}
	LowerCache *cache = lower_cache_new(t, tc, o->depth > 0 ? o->depth : 3), *c1 = lower_cache_new(t, tc, 1);
	FuseOut fo = { .so = { .t = t, .json = o->json, .indent = "      " } };
	int total = 0, windows = 0, swaps = 0, skipped = 0;
	if (o->json)
		printf("{\"file\": ");
	if (o->json) {
		json_str(o->args[0]);
		printf(", \"variants\": [");
	}
	for (int v = 0; v < ng->nvariants; v++) {
		AxTiling *T = tile_graph(ng->variants[v]);
		LowerNode *L = lower_variant_plain(cache, T, 64);
		fo.g = T->g;
		fo.first = 1;
		if (o->json)
			printf("%s\n {\"id\": %d, \"fusions\": [", v ? "," : "", v);
		else
			printf("# variant %d\n", v);
		FuseResult *r;
		total += fuse_variant(c1, T, L, fuse_found, &fo, &r);
		windows += r->nwindows;
		swaps += r->swaps;
		skipped += r->skipped;
		if (o->json)
			printf("]}");
	}
	double ms = ax_now_ms() - t0;
	if (o->json)
		printf("\n], \"fusions\": %d, \"windows\": %d, \"swaps\": %d, \"nests_skipped\": %d, \"ms\": %.3f}\n", total,
		       windows, swaps, skipped, ms);
	else {
		printf("# %d fusion%s found in %d windows of two instructions, %d instruction swap%s proved, %.1f ms\n", total,
		       total == 1 ? "" : "s", windows, swaps, swaps == 1 ? "" : "s", ms);
		if (skipped)
			printf("# %d loop nest%s not searched: a variant's search stops at %d windows\n", skipped,
			       skipped == 1 ? "" : "s", FUSE_MAX_WINDOWS);
	}
	lower_cache_free(cache);
	lower_cache_free(c1);
	tc_free(tc);
	return 0;
}

/* axonc tile FILE.py [--dims ...]: every variant's tiling; with sizes, each
 * tiled op is also run tile by tile against the op computed whole */
int
cmd_tile(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "tile");
	TermCtx *tc = tc_new(t);
	NuGraph *ng = program_variants(t, tc, o, 1);
	const char *names[96];
	double vals[96];
	int n = 0, nsizes = 0, rc = ng ? 0 : 1;
	char err[512];
	if (ng && o->dims && (rc = ax_size_env(ng->g0, o->dims, names, vals, 96, &n, &nsizes, err, sizeof err)) != 0)
		fprintf(stderr, "axonc: error: %s\n", err);
	int envbad = rc != 0;
	for (int v = 0; ng && !envbad && v < ng->nvariants; v++) {
		AxTiling *T = tile_graph(ng->variants[v]);
		printf("# variant %d\n", v);
		tile_print(stdout, T);
		if (!o->dims)
			continue;
		AxEnv env = { n, names, vals };
		int k = tile_check(T, &env, o->seed ? o->seed : 1, err, sizeof err);
		if (k < 0) {
			fprintf(stderr, "axonc: error: variant %d: %s\n", v, err);
			rc = 1;
		} else
			printf("# variant %d: %d tiled op%s run tile by tile agree with the whole ops\n", v, k, k == 1 ? "" : "s");
	}
	for (int i = 0; i < nsizes; i++)
		free((char *)names[i]);
	tc_free(tc);
	return rc;
}

/* axonc synth OP: instruction sequences for one tensor op, every 2-D tile of it */
int
cmd_synth(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs the name of an op (see axonc ops) or a program", "synth");
	size_t len = strlen(o->args[0]);
	if (len > 3 && strcmp(o->args[0] + len - 3, ".py") == 0)
		return cmd_synth_program(t, o);
	const AxOp *op = ax_find_op(t, o->args[0]);
	if (!op)
		return fail("no op '%s' (see 'axonc ops')", o->args[0]);
	double t0 = ax_now_ms();
	TermCtx *tc = tc_new(t);
	SynthOut so = { .t = t, .json = o->json, .indent = "  " };
	if (o->json)
		printf("{\"op\": \"%s\", \"sequences\": [", op->name);
	int checked;
	int n = synth_op(t, tc, (int)(op - t->ops), o->depth > 0 ? o->depth : 3, synth_instance, synth_seq, &so, &checked);
	double ms = ax_now_ms() - t0;
	if (o->json)
		printf("\n], \"checked\": %d, \"ms\": %.3f}\n", checked, ms);
	else
		printf("# %s: %d sequence%s over %d tile instance%s, %d checked by the prover, %.1f ms\n", op->name, so.nseq,
		       so.nseq == 1 ? "" : "s", n, n == 1 ? "" : "s", checked, ms);
	tc_free(tc);
	return 0;
}
