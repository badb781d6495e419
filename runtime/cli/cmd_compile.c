/*
 * cmd_compile.c — `axonc compile`: a program to its fastest proved kernel.
 *
 * Phase 1: the program's variants (operator propagation), each tiled and
 * lowered to proved instruction sequences.  Phase 2 (select.c): every
 * candidate structure validated at reduced sizes, every candidate measured
 * (the performance model, or --measure CMD), the best kept.  The winner is
 * validated again at the requested sizes (or the largest within the check's
 * limits, said in the report), written as NKI, and described in a JSON
 * report beside the roofline bound and the naive lowering.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "axon.h"
#include "cli.h"
#include "select.h"

enum { MAXEMIT = 64,              /* candidates written per variant by --emit-all */
       DEFAULT_BUDGET = 20000 };  /* candidates visited by default, all variants together */

/* the numerical check's limits: the work (multiply-adds and flops) and tensor bytes of one run */
#define STRUCT_OPS (1 << 18)      /* structures, at reduced sizes */
#define STRUCT_BYTES (1 << 17)
#define WINNER_OPS (1 << 25)      /* the winner: the requested sizes if within these */
#define WINNER_BYTES (1 << 26)

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

static void
dims_text(const char *const *names, const double *vals, int nsizes, char *b, size_t n)
{
	size_t k = 0;
	b[0] = 0;
	for (int i = 0; i < nsizes && k < n; i++)
		k += (size_t)snprintf(b + k, n - k, "%s%s=%.0f", i ? "," : "", names[i], vals[i]);
}

/* --emit-all: an even sample of every variant's candidates as NAME.py and NAME.c (ck: --validate
 * runs each at the requested sizes) */
static int
emit_all(const SelIn *in, const char *dir, CkCheck *ck, int64_t *written)
{
	int rc = 0;
	for (int v = 0; v < in->nv && rc == 0; v++) {
		int64_t total = extract_visits(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->budget);
		int64_t stride = total > MAXEMIT ? (total + MAXEMIT - 1) / MAXEMIT : 1;
		Extract *x = extract_new(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->no_fusion,
		                         in->budget);
		for (;;) {
			ExtractCand c;
			Nest *ns = extract_next(x, &c);
			if (c.end)
				break;
			if (ns && c.fp.fits && c.visit % stride == 0) {
				char label[96], path[1200], why[512];
				snprintf(label, sizeof label, "v%d_c%lld_s%lld%s", v, (long long)c.combo, (long long)c.sub,
				         c.fused < 0 ? "_unfused" : "");
				char *src = nest_nki(ns, in->fn, why, sizeof why);
				snprintf(path, sizeof path, "%s/%s.py", dir, label);
				if (src && write_file(path, src) != 0)
					rc = 1;
				if (src && rc == 0 && ck_candidate(ck, ns, in->fn, label) < 0)
					rc = 1;
				*written += src != NULL;
				free(src);
			}
			nest_free(ns);
			if (rc)
				break;
		}
		extract_free(x);
	}
	return rc;
}

/* The winner p validated at the requested sizes, or the largest within the limits
 * (its structure there, smallest tiles); 1 = same results, 0 = rejected (why). */
static int
validate_winner(const SelIn *in, const AxGraph *g0, int nsizes, const SelPick *p, const ExtractCand *wc,
                const Nest *wns, char *at, size_t nat, char *why, size_t nwhy)
{
	double vals[512];
	memcpy(vals, in->vals, sizeof *vals * (size_t)in->n);
	int shrunk = select_shrink(g0, in->names, vals, in->n, nsizes, WINNER_OPS, WINNER_BYTES);
	dims_text(in->names, vals, nsizes, at, nat);
	CkCheck *ck = ck_check_new(g0, in->names, vals, in->n, 1, in->seed, NULL);
	int ok = 0;
	if (!shrunk) {
		char *src = nest_c(wns, in->fn, why, nwhy);
		ok = src && ck_check_nest(ck, wns, src, in->fn, why, nwhy);
		free(src);
	} else {
		Extract *x = extract_new(in->T[p->v], in->L[p->v], in->names, vals, in->n, in->maxtile, in->no_fusion,
		                         in->budget);
		ExtractCand c;
		Nest *ns = extract_combo(x, wc->combo, !p->unfused, wc->fused, &c);
		if (!ns)
			snprintf(why, nwhy, "its structure cannot be written at %.200s: %.300s", at, c.why);
		else {
			char *src = nest_c(ns, in->fn, why, nwhy);
			ok = src && ck_check_nest(ck, ns, src, in->fn, why, nwhy);
			free(src);
		}
		nest_free(ns);
		extract_free(x);
	}
	ck_check_free(ck);
	return ok;
}

static void
stats_json(FILE *f, const AxTarget *t, const ModelStats *st)
{
	char why[256];
	model_bottleneck_text(t, st, why, sizeof why);
	fprintf(f, "\"bottleneck\": \"%s\", \"bottleneck_detail\": ", st->bottleneck >= 0 ? t->engines[st->bottleneck].name : "-");
	json_fstr(f, why);
	fprintf(f, ", \"busy_us\": {");
	for (int e = 0; e < t->nengines && e < 32; e++)
		fprintf(f, "%s\"%s\": %.3f", e ? ", " : "", t->engines[e].name, st->busy[e] * 1e6);
	fprintf(f, "}, \"bytes_moved\": %.0f, \"transfers\": %.0f, \"instructions\": %.0f", st->bytes, st->transfers,
	        st->insts);
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
	NuGraph *ng = program_variants(t, tc, o);
	const char *names[512];
	double vals[512];
	int n = 0, nsizes = 0, rc = ng ? 0 : 1;
	char err[512];
	if (ng && (rc = ax_size_env(ng->g0, o->dims, names, vals, 128, &n, &nsizes, err, sizeof err)) != 0)
		fprintf(stderr, "axonc: error: %s\n", err);
	if (rc == 0 && o->emit_all && mkdir(o->emit_all, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "axonc: error: cannot make %s: %s\n", o->emit_all, strerror(errno));
		rc = 1;
	}
	if (rc) {
		for (int i = 0; i < nsizes; i++)
			free((char *)names[i]);
		tc_free(tc);
		return rc;
	}
	const AxGraph *g0 = ng->g0;
	int dtype = o->dtype > 0 ? o->dtype : 4;
	/* Phase 1: every variant tiled and lowered */
	LowerCache *cache = lower_cache_new(t, tc, o->depth > 0 ? o->depth : 3);
	int nv = ng->nvariants;
	AxTiling **T = arena_alloc(tc_arena(tc), sizeof *T * (size_t)(nv + 1));
	LowerNode **L = arena_alloc(tc_arena(tc), sizeof *L * (size_t)(nv + 1));
	for (int v = 0; v < nv; v++) {
		T[v] = tile_graph(ng->variants[v]);
		L[v] = lower_variant(cache, T[v], 64);
	}
	double t1 = ax_now_ms();
	/* the bounds: roofline, and the naive lowering of the program as written */
	AxEnv sizes = { n, names, vals };
	double roof_s = model_roofline(g0, &sizes, dtype, NULL), naive_s = -1;
	char naive_why[512] = "";
	{
		const char *nn[512];
		double nvv[512];
		memcpy(nn, names, sizeof *names * (size_t)n);
		memcpy(nvv, vals, sizeof *vals * (size_t)n);
		Nest *ns = naive_nest(T[0], L[0], nn, nvv, n, 512, naive_why, sizeof naive_why);
		if (ns) {
			ModelStats st;
			naive_s = model_latency(ns, dtype, NULL, &st);
			if (!st.fits) {
				naive_s = -1;
				snprintf(naive_why, sizeof naive_why, "its tiles do not fit on chip");
			}
			nest_free(ns);
		}
	}
	/* Phase 2 */
	/* the reduced sizes structures are validated at: the smallest first, then larger ones
	 * (x8 the work each) for structures whose fusion differs at the smaller */
	double rv[SEL_LEVELS][512];
	const double *rlev[SEL_LEVELS];
	int nlev = 0;
	for (int l = 0; l < SEL_LEVELS; l++) {
		memcpy(rv[nlev], vals, sizeof *vals * (size_t)n);
		double f = (double)(1 << (3 * l));
		int sh = select_shrink(g0, names, rv[nlev], n, nsizes, STRUCT_OPS * f, STRUCT_BYTES * f);
		if (sh < 0 && l == 0)
			fprintf(stderr, "axonc: warning: the reduced sizes for validation are over the check's limits\n");
		if (nlev > 0 && memcmp(rv[nlev], rv[nlev - 1], sizeof *vals * (size_t)nsizes) == 0)
			continue;
		rlev[nlev] = rv[nlev];
		nlev++;
		if (sh == 0)
			break;   /* the requested sizes themselves */
	}
	char rdims[256], wdims[256] = "";
	dims_text(names, rv[0], nsizes, rdims, sizeof rdims);
	double wv[512];   /* are the requested sizes within the winner's limits? */
	memcpy(wv, vals, sizeof *vals * (size_t)n);
	int requested_ok = select_shrink(g0, names, wv, n, nsizes, WINNER_OPS, WINNER_BYTES) == 0;
	int64_t budget = (o->budget > 0 ? o->budget : DEFAULT_BUDGET) / (nv > 0 ? nv : 1);
	if (budget < MAXEMIT)
		budget = MAXEMIT;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	SelIn in = { .g0 = g0, .nv = nv, .T = T, .L = L, .names = names, .vals = vals, .n = n,
		     .rnames = names, .rvals = rlev, .rn = n, .nlevels = nlev, .validate_requested = requested_ok, .maxtile = o->tile_cap, .no_fusion = o->no_fusion,
		     .budget = budget, .jobs = o->jobs > 0 ? o->jobs : ncpu > 0 ? (int)ncpu : 1,
		     .progress = isatty(2), .cmd = o->measure, .dtype = dtype, .fn = g0->fn, .seed = o->seed };
	SelOut so;
	if (select_run(&in, &so) != 0)
		rc = 1;
	/* the winner: the best whose results at the requested sizes agree */
	int64_t winner_rejected = 0;
	Nest *best = NULL;
	Extract *bx = NULL;
	ExtractCand bc;
	const SelPick *bp = NULL;
	char wwhy[600] = "";
	for (int i = 0; rc == 0 && i < SEL_TOP && so.top[i].have && !best; i++) {
		Extract *x;
		Nest *ns = select_rebuild(&in, &so.top[i], &bc, &x);
		char why[600] = "";
		if (ns && validate_winner(&in, g0, nsizes, &so.top[i], &bc, ns, wdims, sizeof wdims, why, sizeof why)) {
			best = ns;
			bx = x;
			bp = &so.top[i];
			break;
		}
		winner_rejected++;
		if (!wwhy[0])
			snprintf(wwhy, sizeof wwhy, "%.590s", ns ? why : "it could not be written again");
		nest_free(ns);
		extract_free(x);
	}
	char *src = NULL;
	if (best && !(src = nest_nki(best, g0->fn, err, sizeof err))) {
		fprintf(stderr, "axonc: error: the best candidate cannot be printed: %s\n", err);
		rc = 1;
	}
	if (rc == 0 && !src) {
		const char *why = wwhy[0]              ? wwhy
		                  : so.first_infeasible[0] ? so.first_infeasible
		                  : so.first_rejection[0]  ? so.first_rejection
		                  : so.dropped             ? "the tiles of every candidate are too large for on-chip memory"
		                  : so.first_failure[0]    ? so.first_failure
		                                           : "no candidate could be written";
		fprintf(stderr, "axonc: error: no candidate could be selected (%s)\n", why);
		rc = 1;
	}
	double t2 = ax_now_ms();
	if (rc == 0)
		rc = o->out ? (write_file(o->out, src) ? 1 : 0) : (fputs(src, stdout), 0);
	int64_t nemit = 0;
	CkCheck *ck = NULL;
	if (rc == 0 && o->emit_all) {
		ck = ck_check_new(g0, names, vals, n, o->validate, o->seed, o->emit_all);
		rc = emit_all(&in, o->emit_all, ck, &nemit);
	}
	if (rc == 0 && o->report) {
		char *rep = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&rep, &len);
		fprintf(f, "{\"measure\": \"%s\", ", o->measure ? "command" : "model");
		if (o->measure) {
			fputs("\"command\": ", f);
			json_fstr(f, o->measure);
			fputs(", ", f);
		}
		fprintf(f, "\"note\": \"latencies are %s; naive_latency_us and roofline_us are modelled\", ",
		        o->measure ? "as printed by the command" : "modelled on one NeuronCore, not measured");
		fprintf(f, "\"dims\": \"%s\", \"dtype_bytes\": %d, \"phase1_s\": %.3f, \"phase2_s\": %.3f, \"jobs\": %d, ", o->dims,
		        dtype, (t1 - t0) / 1e3, (t2 - t1) / 1e3, in.jobs);
		fprintf(f, "\"variants\": %d, \"visits\": %lld, \"candidates\": %lld, \"not_written\": %lld, "
		           "\"dropped_footprint\": %lld, \"emitted\": %lld, \"feasible\": %lld, \"infeasible_command\": %lld, ",
		        nv, (long long)so.visits, (long long)so.considered, (long long)so.failed, (long long)so.dropped,
		        (long long)so.emitted, (long long)so.feasible, (long long)so.infeasible);
		fprintf(f, "\"validation\": {\"reduced_dims\": \"%s\", \"structures\": %lld, \"structures_rejected\": %lld, "
		           "\"structures_unvalidated\": %lld, \"runs\": %lld, \"ms\": %.1f, \"winner_dims\": \"%s\", \"winner_at_requested\": %s}, ",
		        rdims, (long long)so.structures, (long long)so.struct_rejected, (long long)so.struct_unvalidated,
		        (long long)so.runs, so.validate_ms, wdims, strcmp(wdims, o->dims) == 0 || !strchr(wdims, '=') ? "true" : "false");
		fprintf(f, "\"validated\": %lld, \"rejected_numerics\": %lld, \"unvalidated\": %lld, ",
		        (long long)so.validated, (long long)(so.rejected + winner_rejected), (long long)so.unvalidated);
		if (so.first_rejection[0]) {
			fputs("\"first_rejection\": ", f);
			json_fstr(f, so.first_rejection);
			fputs(", ", f);
		}
		fprintf(f, "\"best\": {\"latency_us\": %.3f, \"modelled_us\": %.3f, ", bp->latency * 1e6, bp->st.latency * 1e6);
		stats_json(f, t, &bp->st);
		fputs(", \"footprint\": {", f);
		for (int m = 0, first = 1; m < t->nmems && m < 32; m++)
			if (!t->mems[m].offchip) {
				fprintf(f, "%s\"%s_bytes_per_partition\": %lld", first ? "" : ", ", t->mems[m].name,
				        (long long)bc.fp.bytes[m]);
				if (t->mems[m].banks > 0)
					fprintf(f, ", \"%s_banks\": %lld", t->mems[m].name, (long long)bc.fp.banks[m]);
				first = 0;
			}
		fputs("}, \"config\": ", f);
		select_config_json(f, &in, bp->v, &bc);
		fputs("}, ", f);
		if (naive_s > 0)
			fprintf(f, "\"naive_latency_us\": %.3f, ", naive_s * 1e6);
		else {
			fputs("\"naive_latency_us\": null, \"naive_why\": ", f);
			json_fstr(f, naive_why);
			fputs(", ", f);
		}
		fprintf(f, "\"roofline_us\": %.3f, \"fraction_of_roofline\": %.4f, ", roof_s * 1e6,
		        bp->latency > 0 ? roof_s / bp->latency : 0);
		if (naive_s > 0)
			fprintf(f, "\"speedup_vs_naive\": %.4f", naive_s / bp->latency);
		else
			fputs("\"speedup_vs_naive\": null", f);
		ck_report(ck, f);
		fputs("}\n", f);
		fclose(f);
		rc = write_file(o->report, rep) ? 1 : 0;
		free(rep);
	}
	if (rc == 0) {
		fprintf(stderr,
		        "axonc: phase 1 %.2f s (%d variant%s); phase 2 %.2f s: %lld candidates, %lld fit on chip (%lld dropped: "
		        "tiles too large, %lld could not be written), %lld measured%s\n",
		        (t1 - t0) / 1e3, nv, nv == 1 ? "" : "s", (t2 - t1) / 1e3, (long long)so.considered,
		        (long long)so.emitted, (long long)so.dropped, (long long)so.failed, (long long)so.feasible,
		        o->measure ? " by the command" : " by the model");
		fprintf(stderr,
		        "axonc: numerics: %lld structure%s validated at %s, %lld rejected, %lld could not be written there "
		        "(%lld candidates dropped); the winner validated at %s\n",
		        (long long)so.validated, so.validated == 1 ? "" : "s", rdims, (long long)so.struct_rejected,
		        (long long)so.struct_unvalidated, (long long)(so.rejected + so.unvalidated + winner_rejected), wdims);
		fprintf(stderr, "axonc: best %.4f ms (%s), %.2fx the roofline bound", bp->latency * 1e3,
		        o->measure ? "measured by the command" : "modelled", roof_s > 0 ? bp->latency / roof_s : 0);
		if (naive_s > 0)
			fprintf(stderr, ", %.2fx faster than the naive lowering", naive_s / bp->latency);
		char why[256];
		model_bottleneck_text(t, &bp->st, why, sizeof why);
		fprintf(stderr, "; bottleneck %s\n", why);
		if (o->emit_all)
			fprintf(stderr, "axonc: wrote %lld sampled candidates into %s\n", (long long)nemit, o->emit_all);
		ck_summary(ck, stderr);
	}
	free(src);
	nest_free(best);
	extract_free(bx);
	ck_check_free(ck);
	lower_cache_free(cache);
	for (int i = 0; i < nsizes; i++)
		free((char *)names[i]);
	tc_free(tc);
	return rc;
}
