/*
 * cmd_compile.c — `axonc compile`: a program to its fastest proved kernel.
 *
 * Phase 1: the program's variants (operator propagation), each tiled and
 * lowered to proved instruction sequences.  Phase 2 (select.c): every
 * candidate structure validated at reduced sizes, every candidate measured
 * (the performance model, or --measure CMD), the best kept.  The winner is
 * validated again at the requested sizes (or the largest within the check's
 * limits, said in the report), written in the target's kernel language, and described in a JSON
 * report beside the roofline bound and the naive lowering.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "measure.h"

/* What flows down the pipeline of one compile, each stage adding its part. */
struct Compile {
	const AxTarget *t;
	const Opts *o;
	TermCtx *tc;
	double t0, t1, t2;          /* start, end of Phase 1, end of Phase 2 (ms) */
	/* parse, variants */
	NuGraph *ng;
	const AxGraph *g0;
	const char *dims;           /* --dims as given ("" where every shape is literal) */
	const char *names[512];     /* the requested sizes (malloc'd), then the scalar parameters */
	double vals[512];
	int n, nsizes, dtype;
	/* tile, synth, fuse: every variant tiled and lowered */
	int nv;
	AxTiling **T;
	LowerNode **L;
	LowerCache *cache;
	/* the bounds the result is read against */
	double roof_s, naive_s;
	char naive_why[512];
	/* extract, validate, measure (Phase 2) */
	double rv[SEL_LEVELS][512]; /* the reduced sizes structures are validated at */
	int nlev, requested_ok;     /* how many; the requested sizes within the winner's check */
	const double *rlev[SEL_LEVELS];
	char rdims[256], wdims[256];
	SelIn in;
	SlurmOpts slurm;            /* --slurm */
	SelOut so;
	/* the winner, validated again at the requested sizes */
	Nest *best;
	Extract *bx;
	ExtractCand bc;
	const SelPick *bp;
	int64_t winner_rejected;
	char *src;
	/* emit */
	CkCheck *ck;
	int64_t nemit;
	char *bucket_dims;          /* compile --sizes: the sizes of the bucket at hand (malloc'd) */
};

enum { WINNER_TRIES = 512 };      /* tile/block choices tried for the winner's structure at reduced sizes */
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

/* path can be written (made and removed again if it did not exist); else said so */
static int
writable(const char *path)
{
	int existed = access(path, F_OK) == 0;
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "axonc: error: cannot write %s: %s\n", path, strerror(errno));
		return 0;
	}
	fclose(f);
	if (!existed)
		remove(path);
	return 1;
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
			if (ns && footprint_fits(in->g0->t, &c.fp, in->dtype) && c.visit % stride == 0) {
				char label[96], path[1200], why[512];
				snprintf(label, sizeof label, "v%d_c%lld_s%lld%s", v, (long long)c.combo, (long long)c.sub,
				         c.fused < 0 ? "_unfused" : c.fused >= NEST_EPILOGUE ? "_epilogue" : "");
				char *src = nest_kernel_as(ns, in->fn, in->dtype, why, sizeof why);
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
		extract_set_tries(x, WINNER_TRIES);
		Nest *ns = extract_combo(x, wc->combo, !p->unfused, wc->fused, &c);
		if (!ns)   /* its own loops, smaller tiles */
			ns = extract_mirror(x, wc->combo, wc, !p->unfused, wc->fused, &c);
		if (ns && p->sched)
			model_schedule(ns, p->sched, in->dtype);
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

/* the report (--report FILE): what was done, the winner and its bounds, as JSON */
static int
compile_report(const Compile *c)
{
	const Opts *o = c->o;
	const AxTarget *t = c->t;
	const SelOut *so = &c->so;
	const SelPick *bp = c->bp;
	char *rep = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&rep, &len);
	fprintf(f, "{\"target\": \"%s\", \"measure\": \"%s\", ", t->name, o->measure ? "command" : "model");
	if (o->measure) {
		fputs("\"command\": ", f);
		json_fstr(f, o->measure);
		fputs(", ", f);
	}
	fprintf(f, "\"note\": \"latencies are %s%s%s; naive_latency_us and roofline_us are modelled\", ",
	        o->measure ? "as printed by the command" : "modelled on one core of ", o->measure ? "" : t->name,
	        o->measure ? "" : ", not measured");
	fprintf(f, "\"dims\": \"%s\", \"dtype_bytes\": %d, \"phase1_s\": %.3f, \"phase2_s\": %.3f, \"jobs\": %d, ", c->dims,
	        c->dtype, (c->t1 - c->t0) / 1e3, (c->t2 - c->t1) / 1e3, c->in.jobs);
	fprintf(f, "\"variants\": %d, \"visits\": %lld, \"visits_second_round\": %lld, \"candidates\": %lld, \"not_written\": %lld, "
	           "\"dropped_footprint\": %lld, \"emitted\": %lld, \"feasible\": %lld, \"infeasible_command\": %lld, ",
	        c->nv, (long long)so->visits, (long long)so->refined, (long long)so->considered, (long long)so->failed, (long long)so->dropped,
	        (long long)so->emitted, (long long)so->feasible, (long long)so->infeasible);
	fprintf(f, "\"validation\": {\"reduced_dims\": \"%s\", \"structures\": %lld, \"structures_rejected\": %lld, "
	           "\"structures_unvalidated\": %lld, \"runs\": %lld, \"ms\": %.1f, \"winner_dims\": \"%s\", \"winner_at_requested\": %s}, ",
	        c->rdims, (long long)so->structures, (long long)so->struct_rejected, (long long)so->struct_unvalidated,
	        (long long)so->runs, so->validate_ms, c->wdims,
	        strcmp(c->wdims, c->dims) == 0 || !strchr(c->wdims, '=') ? "true" : "false");
	fprintf(f, "\"validated\": %lld, \"rejected_numerics\": %lld, \"unvalidated\": %lld, ",
	        (long long)so->validated, (long long)(so->rejected + c->winner_rejected), (long long)so->unvalidated);
	if (so->unmeasured) {   /* --slurm: only then, so that a run through Slurm reports what a local run does */
		fprintf(f, "\"unmeasured\": %lld, \"first_unmeasured\": ", (long long)so->unmeasured);
		json_fstr(f, so->first_unmeasured);
		fputs(", ", f);
	}
	if (so->first_rejection[0]) {
		fputs("\"first_rejection\": ", f);
		json_fstr(f, so->first_rejection);
		fputs(", ", f);
	}
	fprintf(f, "\"best\": {\"latency_us\": %.3f, \"modelled_us\": %.3f, ", bp->latency * 1e6, bp->st.latency * 1e6);
	stats_json(f, t, &bp->st);
	fputs(", \"footprint\": {", f);
	for (int m = 0, first = 1; m < t->nmems && m < 32; m++)
		if (!t->mems[m].offchip) {
			fprintf(f, "%s\"%s_bytes_per_partition\": %lld", first ? "" : ", ", t->mems[m].name,
			        (long long)c->bc.fp.bytes[m]);
			if (t->mems[m].banks > 0)
				fprintf(f, ", \"%s_banks\": %lld", t->mems[m].name, (long long)c->bc.fp.banks[m]);
			first = 0;
		}
	fputs("}, \"config\": ", f);
	select_config_json(f, &c->in, bp->v, &c->bc);
	fputs("}, ", f);
	if (c->naive_s > 0)
		fprintf(f, "\"naive_latency_us\": %.3f, ", c->naive_s * 1e6);
	else {
		fputs("\"naive_latency_us\": null, \"naive_why\": ", f);
		json_fstr(f, c->naive_why);
		fputs(", ", f);
	}
	fprintf(f, "\"roofline_us\": %.3f, \"fraction_of_roofline\": %.4f, ", c->roof_s * 1e6,
	        bp->latency > 0 ? c->roof_s / bp->latency : 0);
	if (c->naive_s > 0)
		fprintf(f, "\"speedup_vs_naive\": %.4f", c->naive_s / bp->latency);
	else
		fputs("\"speedup_vs_naive\": null", f);
	ck_report(c->ck, f);
	fputs("}\n", f);
	fclose(f);
	int rc = write_file(o->report, rep) ? 1 : 0;
	free(rep);
	return rc;
}

/* the summary on stderr */
static void
compile_summary(const Compile *c)
{
	const Opts *o = c->o;
	const SelOut *so = &c->so;
	const SelPick *bp = c->bp;
	fprintf(stderr,
	        "axonc: target %s; phase 1 %.2f s (%d variant%s); phase 2 %.2f s: %lld candidates, %lld fit on chip (%lld dropped: "
	        "tiles too large, %lld could not be written), %lld measured%s\n",
	        c->t->name, (c->t1 - c->t0) / 1e3, c->nv, c->nv == 1 ? "" : "s", (c->t2 - c->t1) / 1e3,
	        (long long)so->considered, (long long)so->emitted, (long long)so->dropped, (long long)so->failed,
	        (long long)so->feasible, o->slurm ? " by the command through Slurm" : o->measure ? " by the command" : " by the model");
	if (so->unmeasured)
		fprintf(stderr, "axonc: %lld candidate%s unmeasured (their Slurm tasks failed twice), the first: %s\n",
		        (long long)so->unmeasured, so->unmeasured == 1 ? "" : "s", so->first_unmeasured);
	fprintf(stderr,
	        "axonc: numerics: %lld structure%s validated at %s, %lld rejected, %lld could not be written there "
	        "(%lld candidates dropped); the winner validated at %s\n",
	        (long long)so->validated, so->validated == 1 ? "" : "s", c->rdims, (long long)so->struct_rejected,
	        (long long)so->struct_unvalidated, (long long)(so->rejected + so->unvalidated + c->winner_rejected), c->wdims);
	fprintf(stderr, "axonc: best %.4f ms (%s), %.2fx the roofline bound", bp->latency * 1e3,
	        o->measure ? "measured by the command" : "modelled", c->roof_s > 0 ? bp->latency / c->roof_s : 0);
	if (c->naive_s > 0)
		fprintf(stderr, ", %.2fx faster than the naive lowering", c->naive_s / bp->latency);
	char why[256];
	model_bottleneck_text(c->t, &bp->st, why, sizeof why);
	fprintf(stderr, "; bottleneck %s\n", why);
	if (o->emit_all)
		fprintf(stderr, "axonc: wrote %lld sampled candidates into %s\n", (long long)c->nemit, o->emit_all);
	ck_summary(c->ck, stderr);
}
/* parse: the program, its variants (operator propagation) and the sizes of --dims */
static int
compile_variants(Compile *c)
{
	const Opts *o = c->o;
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "compile");
	c->t0 = ax_now_ms();
	c->dims = o->dims ? o->dims : "";
	c->tc = tc_new(c->t);
	int rc = 0;
	c->ng = program_at_sizes(c->t, c->tc, o, c->names, c->vals, &c->n, &c->nsizes, &rc);
	if (rc == 0 && o->emit_all && mkdir(o->emit_all, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "axonc: error: cannot make %s: %s\n", o->emit_all, strerror(errno));
		rc = 1;
	}
	if (rc == 0) {
		c->g0 = c->ng->g0;
		c->dtype = o->dtype > 0 ? o->dtype : 4;
		c->nv = c->ng->nvariants;
	}
	return rc;
}

/* limits, checked before any work: the outputs can be written, and the program can be
 * validated at reduced sizes (the smallest first, then larger ones, x8 the work each, for
 * structures whose fusion differs at the smaller) */
static int
compile_limits(Compile *c)
{
	const Opts *o = c->o;
	const char *out[3] = { o->out, o->report, o->timeline };
	for (int k = 0; k < 3; k++)
		if (out[k] && !writable(out[k]))
			return 1;
	if (o->slurm) {   /* sbatch and squeue there, the work directory made */
		char why[600];
		c->slurm = (SlurmOpts){ .workdir = o->workdir ? o->workdir : "axonc-slurm", .partition = o->partition,
		                        .max_tasks = o->max_tasks };
		if (slurm_ready(&c->slurm, why, sizeof why) != 0) {
			fprintf(stderr, "axonc: error: --slurm: %s\n", why);
			return 1;
		}
	}
	for (int l = 0; l < SEL_LEVELS; l++) {
		memcpy(c->rv[c->nlev], c->vals, sizeof *c->vals * (size_t)c->n);
		double f = (double)(1 << (3 * l));
		int sh = select_shrink(c->g0, c->names, c->rv[c->nlev], c->n, c->nsizes, STRUCT_OPS * f, STRUCT_BYTES * f);
		if (sh < 0 && l == 0) {   /* validated where it could be reduced to: refused if that is past the winner's limits */
			double big[512];
			memcpy(big, c->rv[0], sizeof *c->vals * (size_t)c->n);
			if (select_shrink(c->g0, c->names, big, c->n, c->nsizes, WINNER_OPS, WINNER_BYTES) < 0) {
				char at[256];
				dims_text(c->names, c->rv[0], c->nsizes, at, sizeof at);
				fprintf(stderr, "axonc: error: %s at %s is too large to validate: every candidate is run against "
				        "the program, and these sizes cannot be reduced below %d operations and %d bytes (sizes "
				        "are halved while the program's assumptions hold; got down to %s)\n", c->g0->fn, c->dims[0] ? c->dims : "its literal shapes",
				        WINNER_OPS, WINNER_BYTES, at[0] ? at : "the same");
				return 1;
			}
		}
		if (c->nlev > 0 && memcmp(c->rv[c->nlev], c->rv[c->nlev - 1], sizeof *c->vals * (size_t)c->nsizes) == 0)
			continue;
		c->rlev[c->nlev] = c->rv[c->nlev];
		c->nlev++;
		if (sh == 0)
			break;   /* the requested sizes themselves */
	}
	dims_text(c->names, c->rv[0], c->nsizes, c->rdims, sizeof c->rdims);
	double wv[512];   /* are the requested sizes within the winner's limits? */
	memcpy(wv, c->vals, sizeof *c->vals * (size_t)c->n);
	c->requested_ok = select_shrink(c->g0, c->names, wv, c->n, c->nsizes, WINNER_OPS, WINNER_BYTES) == 0;
	return 0;
}

/* At least one variant has every operation written by some instruction sequence that fits the
 * requested sizes; else the first operation of variant 0 that has none, at its place in the
 * program, before Phase 2. */
static int
compile_writable(Compile *c)
{
	AxEnv sizes = { c->n, c->names, c->vals };
	return variants_writable(c->t, c->nv, c->T, c->L, &sizes, c->o->tile_cap);
}

/* tile, synth, fuse (Phase 1): every variant tiled, its tile operations lowered to proved
 * instruction sequences, then the fusions found among them added as more choices */
static int
compile_lower(Compile *c)
{
	Arena *ar = tc_arena(c->tc);
	c->cache = lower_cache_new(c->t, c->tc, c->o->depth > 0 ? c->o->depth : 3);
	c->T = arena_alloc(ar, sizeof *c->T * (size_t)(c->nv + 1));
	c->L = arena_alloc(ar, sizeof *c->L * (size_t)(c->nv + 1));
	for (int v = 0; v < c->nv; v++) {
		c->T[v] = tile_graph(c->ng->variants[v]);
		c->L[v] = lower_variant(c->cache, c->T[v], 64);
	}
	fusion_budget_note(c->cache, c->nv);
	c->t1 = ax_now_ms();
	return 0;
}

/* the bounds: the roofline, and the naive lowering of the program as written */
static int
compile_bounds(Compile *c)
{
	AxEnv sizes = { c->n, c->names, c->vals };
	c->roof_s = model_roofline(c->g0, &sizes, c->dtype, NULL);
	ModelStats st;
	c->naive_s = naive_latency(c->T[0], c->L[0], c->names, c->vals, c->n, c->dtype, &st, c->naive_why,
	                           sizeof c->naive_why);
	if (c->naive_s < 0)
		c->naive_s = -1;
	return 0;
}

/* extract, validate, measure (Phase 2, select.c): every candidate visited; structures
 * validated at reduced sizes (the smallest first, then larger ones, x8 the work each, for
 * structures whose fusion differs at the smaller); the feasible measured, the best kept */
static int
compile_select(Compile *c)
{
	const Opts *o = c->o;
	/* three quarters of the budget in the first round, spread over the variants; the rest
	 * (measured by the model) on the best combinations' tiles and blocks */
	int64_t all = o->budget > 0 ? o->budget : DEFAULT_BUDGET, nv = c->nv > 0 ? c->nv : 1;
	int64_t budget = (all - (o->measure ? 0 : all / 4)) / nv;
	if (budget < MAXEMIT)
		budget = MAXEMIT;
	int64_t refine = o->measure || all <= budget * nv ? 0 : all - budget * nv;   /* what the first round left */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->in = (SelIn){ .g0 = c->g0, .nv = c->nv, .T = c->T, .L = c->L, .names = c->names, .vals = c->vals,
		         .n = c->n, .rnames = c->names, .rvals = c->rlev, .rn = c->n, .nlevels = c->nlev,
		         .validate_requested = c->requested_ok, .maxtile = o->tile_cap, .no_fusion = o->no_fusion,
		         .budget = budget, .refine = refine, .jobs = o->jobs > 0 ? o->jobs : ncpu > 0 ? (int)ncpu : 1,
		         .progress = isatty(2), .cmd = o->measure, .slurm = o->slurm ? &c->slurm : NULL, .dtype = c->dtype,
		         .fn = c->g0->fn, .seed = o->seed };
	return select_run(&c->in, &c->so) != 0;
}

/* the winner: the best whose results at the requested sizes agree with the program's */
static int
compile_winner(Compile *c)
{
	char wwhy[600] = "", err[512];
	ExtractCand bc;
	for (int i = 0; i < SEL_TOP && c->so.top[i].have; i++) {
		Extract *x;
		Nest *ns = select_rebuild(&c->in, &c->so.top[i], &bc, &x);
		char why[600] = "";
		if (ns && validate_winner(&c->in, c->g0, c->nsizes, &c->so.top[i], &bc, ns, c->wdims, sizeof c->wdims,
		                          why, sizeof why)) {
			c->best = ns;
			c->bx = x;
			c->bc = bc;
			c->bp = &c->so.top[i];
			break;
		}
		c->winner_rejected++;
		if (!wwhy[0])
			snprintf(wwhy, sizeof wwhy, "%.590s", ns ? why : "it could not be written again");
		nest_free(ns);
		extract_free(x);
	}
	if (c->best && !(c->src = nest_kernel_as(c->best, c->g0->fn, c->dtype, err, sizeof err))) {
		fprintf(stderr, "axonc: error: the best candidate cannot be printed: %s\n", err);
		return 1;
	}
	if (!c->src) {
		const SelOut *so = &c->so;
		if (!wwhy[0] && !so->first_infeasible[0] && !so->first_unmeasured[0] && !so->first_rejection[0] &&
		    !so->dropped && so->first_failure[0]) {   /* none could be written: where, if an operation failed */
			int v = so->failure_variant, id = so->failure_node;
			if (v >= 0 && v < c->nv && id >= 0 && id < c->T[v]->g->nnodes) {
				ax_error_at(c->T[v]->g->nodes[id].loc, "no candidate could be written: %s (target %s, variant %d)",
				            so->first_failure, c->t->name, v);
				return 1;
			}
		}
		char fail[640];
		snprintf(fail, sizeof fail, "variant %d: %.600s", so->failure_variant, so->first_failure);
		const char *why = wwhy[0]              ? wwhy
		                  : so->first_infeasible[0] ? so->first_infeasible
		                  : so->first_unmeasured[0] ? so->first_unmeasured
		                  : so->first_rejection[0]  ? so->first_rejection
		                  : so->dropped             ? "the tiles of every candidate are too large for on-chip memory"
		                  : so->first_failure[0]    ? fail
		                                            : "no candidate could be written";
		fprintf(stderr, "axonc: error: no candidate could be selected (%s)\n", why);
		return 1;
	}
	c->t2 = ax_now_ms();
	return 0;
}

/* --timeline FILE: the selected kernel's schedule in the model, as CSV (model_timeline) */
static int
compile_timeline(const Compile *c)
{
	if (!c->best)
		return 0;
	FILE *f = fopen(c->o->timeline, "w");
	if (!f) {
		fprintf(stderr, "axonc: error: --timeline %s: %s\n", c->o->timeline, strerror(errno));
		return 1;
	}
	model_timeline(c->best, c->dtype, f);
	if (fclose(f) != 0) {
		fprintf(stderr, "axonc: error: --timeline %s: %s\n", c->o->timeline, strerror(errno));
		return 1;
	}
	return 0;
}

/* emit: the kernel (-o, or stdout), the sample of --emit-all, the report and the summary */
static int
compile_emit(Compile *c)
{
	const Opts *o = c->o;
	if (o->out ? write_file(o->out, c->src) : fputs(c->src, stdout) < 0)
		return 1;
	if (o->emit_all) {
		c->ck = ck_check_new(c->g0, c->names, c->vals, c->n, o->validate, o->seed, o->emit_all);
		if (emit_all(&c->in, o->emit_all, c->ck, &c->nemit))
			return 1;
	}
	if (o->report && compile_report(c))
		return 1;
	if (o->timeline && compile_timeline(c))
		return 1;
	compile_summary(c);
	return 0;
}

/* --config: the configuration replayed at the requested sizes (cmd_config.c), no search, its
 * results checked as the winner's are (at the requested sizes, or the largest within the
 * check's limits, where the configuration is written again) */
static int
compile_replay(Compile *c)
{
	const Opts *o = c->o;
	char why[700], err[512];
	Config *cf = config_read(o->config, why, sizeof why);
	if (!cf) {
		fprintf(stderr, "axonc: error: --config: %s\n", why);
		return 1;
	}
	ExtractCand ec;
	int v = 0, ok = 1;
	double vals[512];
	memcpy(vals, c->vals, sizeof *vals * (size_t)c->n);
	int shrunk = select_shrink(c->g0, c->names, vals, c->n, c->nsizes, WINNER_OPS, WINNER_BYTES);
	dims_text(c->names, vals, c->nsizes, c->wdims, sizeof c->wdims);
	CkCheck *ck = ck_check_new(c->g0, c->names, vals, c->n, 1, o->seed, NULL);
	if (shrunk) {   /* first the check at reduced sizes (the nest keeps the configuration's sizes) */
		Nest *vs = config_nest(cf, c->nv, c->T, c->L, c->names, vals, c->n, o->no_fusion, c->dtype, &ec, &v, why, sizeof why);
		char *src = vs ? nest_c(vs, c->g0->fn, why, sizeof why) : NULL;
		ok = src && ck_check_nest(ck, vs, src, c->g0->fn, why, sizeof why);
		free(src);
		nest_free(vs);
		if (!vs) {
			fprintf(stderr, "axonc: error: the configuration of %s cannot be written at %s, at which it is checked: %s\n",
			        o->config, c->wdims, why);
			ok = -1;
		}
	}
	if (ok > 0) {
		c->best = config_nest(cf, c->nv, c->T, c->L, c->names, c->vals, c->n, o->no_fusion, c->dtype, &ec, &v, why, sizeof why);
		if (!c->best) {
			fprintf(stderr, "axonc: error: the configuration of %s cannot be written at %s: %s\n", o->config,
			        c->dims, why);
			ok = -1;
		} else if (!shrunk) {
			char *src = nest_c(c->best, c->g0->fn, why, sizeof why);
			ok = src && ck_check_nest(ck, c->best, src, c->g0->fn, why, sizeof why);
			free(src);
		}
	}
	ck_check_free(ck);
	if (ok == 0)
		fprintf(stderr, "axonc: error: the configuration of %s at %s gives other results than the program at %s: %s\n",
		        o->config, c->dims, c->wdims, why);
	if (ok > 0 && !(c->src = nest_kernel_as(c->best, c->g0->fn, c->dtype, err, sizeof err))) {
		fprintf(stderr, "axonc: error: the kernel cannot be printed: %s\n", err);
		ok = -1;
	}
	if (ok > 0) {
		ModelStats st;
		double ms = model_latency(c->best, c->dtype, &ec.fp, &st) * 1e3;
		fprintf(stderr, "axonc: configuration %s (variant %d, %s) written at %s, no search; %.4f ms (modelled); "
		        "validated at %s\n", o->config, v, ec.fused < 0 ? "unfused" : ec.fused > 0 ? "loop-fused" : "nothing to fuse",
		        c->dims, ms, c->wdims);
	}
	config_free(cf);
	return ok > 0 ? 0 : 1;
}

/* --config: the kernel (-o, or stdout), the timeline */
static int
compile_replay_emit(Compile *c)
{
	if (c->o->out ? write_file(c->o->out, c->src) != 0 : fputs(c->src, stdout) < 0)
		return 1;
	return c->o->timeline && compile_timeline(c);
}

static void
compile_free(Compile *c)
{
	free(c->src);
	nest_free(c->best);
	extract_free(c->bx);
	ck_check_free(c->ck);
	if (c->cache)
		lower_cache_free(c->cache);
	for (int i = 0; i < c->nsizes; i++)
		free((char *)c->names[i]);
	if (c->tc)
		tc_free(c->tc);
	free(c->bucket_dims);
	free(c);
}

Compile *
compile_phase1(const AxTarget *t, const Opts *o, int *rc)
{
	Compile *c = calloc(1, sizeof *c);
	if (!c)
		ax_die("out of memory");
	c->t = t;
	c->o = o;
	*rc = compile_variants(c);
	if (*rc == 0)
		*rc = compile_lower(c);
	if (*rc) {
		compile_free(c);
		return NULL;
	}
	return c;
}

int
compile_phase2_at(Compile *c, const char *dims, char **src, char **config, double *latency_s)
{
	char err[512];
	*src = *config = NULL;
	/* what the bucket before left */
	free(c->src);
	c->src = NULL;
	nest_free(c->best);
	c->best = NULL;
	extract_free(c->bx);
	c->bx = NULL;
	c->bp = NULL;
	c->winner_rejected = 0;
	c->nlev = 0;
	c->so = (SelOut){ 0 };
	for (int i = 0; i < c->nsizes; i++)
		free((char *)c->names[i]);
	free(c->bucket_dims);
	c->dims = c->bucket_dims = strdup(dims);
	if (!c->bucket_dims)
		ax_die("out of memory");
	int rc = ax_size_env(c->g0, dims, c->names, c->vals, 128, &c->n, &c->nsizes, err, sizeof err);
	if (rc) {
		fprintf(stderr, "axonc: error: %s\n", err);
		return rc;
	}
	static int (*const stage[])(Compile *) = { compile_limits, compile_writable, compile_bounds, compile_select,
	                                           compile_winner };
	for (size_t k = 0; k < sizeof stage / sizeof stage[0] && rc == 0; k++)
		rc = stage[k](c);
	if (rc)
		return rc;
	char *cfg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cfg, &len);
	if (!f)
		ax_die("out of memory");
	select_config_json(f, &c->in, c->bp->v, &c->bc);
	fclose(f);
	*config = cfg;
	*src = c->src;
	c->src = NULL;
	*latency_s = c->bp->latency;
	return 0;
}

void
compile_close(Compile *c)
{
	if (c)
		compile_free(c);
}

/* axonc compile FILE.py --dims ...: the pipeline, one stage a line (each returns 0 to go on) */
int
cmd_compile(const AxTarget *t, const Opts *o)
{
	if (o->cache)
		return fail("%s is an option of compile --sizes", "--cache");
	if (o->config && (o->report || o->emit_all || o->measure || o->slurm))
		return fail("--config writes the kernel of a configuration, with no search: %s does not go with it",
		            o->report ? "--report" : o->emit_all ? "--emit-all" : o->measure ? "--measure" : "--slurm");
	Compile *c = calloc(1, sizeof *c);
	if (!c)
		ax_die("out of memory");
	c->t = t;
	c->o = o;
	static int (*const stage[])(Compile *) = {
		compile_variants,   /* parse -> variants; the sizes of --dims */
		compile_limits,     /* the outputs writable, the sizes within the check's limits */
		compile_lower,      /* tile -> synth -> fuse (Phase 1) */
		compile_writable,   /* every operation has a sequence in some variant, else where not */
		compile_bounds,     /* the roofline and the naive lowering */
		compile_select,     /* extract -> validate -> measure (Phase 2) */
		compile_winner,     /* the best, validated again at the requested sizes */
		compile_emit,       /* the kernel, --emit-all, the report */
	};
	static int (*const replay[])(Compile *) = {
		compile_variants, compile_limits, compile_lower, compile_writable,
		compile_replay,      /* --config: the configuration at these sizes, validated */
		compile_replay_emit,
	};
	int rc = 0;
	if (o->config)
		for (size_t k = 0; k < sizeof replay / sizeof replay[0] && rc == 0; k++)
			rc = replay[k](c);
	else
		for (size_t k = 0; k < sizeof stage / sizeof stage[0] && rc == 0; k++)
			rc = stage[k](c);
	compile_free(c);
	return rc;
}
