/*
 * cli.c — what the command files share: the usage error, a JSON string on
 * stdout, and the program a command reads (its graph, or its variants).
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

int
fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "axonc: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(run 'axonc --help' for usage)\n");
	return 2;
}

AxGraph *
program_graph(const AxTarget *t, TermCtx *tc, const Opts *o)
{
	if (o->nargs < 1) {
		fail("%s needs a program file", o->cmd);
		return NULL;
	}
	return frontend_read(t, tc, o->args[0], o->fn);
}

void
json_str(const char *s)
{
	json_fstr(stdout, s);
}

/* The program's variants (operator propagation), their invariants checked;
 * NULL after the front end reported errors. */
NuGraph *
program_variants(const AxTarget *t, TermCtx *tc, const Opts *o, int lowered)
{
	AxGraph *g = program_graph(t, tc, o);
	if (!g)
		return NULL;
	PropOpts po = { .variant_cap = o->variant_cap, .no_algebraic = o->no_algebraic, .timeout_ms = 2000 };
	if (lowered && g->nnodes > LOWER_MAX_OPS) {
		ax_error_at(g->nodes[LOWER_MAX_OPS].loc, "%s has %d operations, and tiling and lowering take at most %d: "
		            "this is operation %d (split the program into smaller kernels)", g->fn, g->nnodes, LOWER_MAX_OPS,
		            LOWER_MAX_OPS + 1);
		return NULL;
	}
	int adaptive = lowered && !o->variant_cap;   /* each variant is tiled and lowered: their work is bounded */
	if (adaptive) {
		po.variant_cap = LOWER_WORK / (g->nnodes > 0 ? g->nnodes : 1);
		po.variant_cap = po.variant_cap < 1 ? 1 : po.variant_cap > PROP_VARIANTS ? PROP_VARIANTS : po.variant_cap;
	}
	NuGraph *ng = propagate(g, &po);
	char err[256];
	if (ng_check(ng, err, sizeof err) != 0)
		ax_die("νGraph invariant: %s", err);
	if (adaptive && po.variant_cap < PROP_VARIANTS && strcmp(ng->stop, "max-variants") == 0)
		fprintf(stderr, "axonc: note: %d variants kept of more, for a program of %d operations (each variant is "
		        "tiled and lowered); --max-variants N keeps more\n", ng->nvariants, g->nnodes);
	return ng;
}

NuGraph *
program_at_sizes(const AxTarget *t, TermCtx *tc, const Opts *o, const char **names, double *vals, int *n,
                 int *nsizes, int *rc)
{
	*n = *nsizes = 0;
	NuGraph *ng = program_variants(t, tc, o, 1);
	char err[512];
	*rc = ng ? 0 : 1;
	if (ng && !o->dims && ng->g0->nsyms > 0) {   /* no sizes are needed where every shape is literal */
		size_t k = (size_t)snprintf(err, sizeof err, "%s needs --dims (the sizes of %s: --dims ", o->cmd, ng->g0->fn);
		for (int i = 0; i < ng->g0->nsyms && k < sizeof err; i++)
			k += (size_t)snprintf(err + k, sizeof err - k, "%s%s=...", i ? "," : "", ng->g0->syms[i]);
		if (k < sizeof err)
			snprintf(err + k, sizeof err - k, ")");
		*rc = fail("%s", err);
		return NULL;
	}
	if (ng && (*rc = ax_size_env(ng->g0, o->dims, names, vals, 128, n, nsizes, err, sizeof err)) != 0)
		fprintf(stderr, "axonc: error: %s\n", err);
	return *rc ? NULL : ng;
}

/* Every sequence of the operation provably breaks its limits at the sizes with each tile size
 * at 1 but axis k's at x (k < 0: all at 1; limits bound sizes from above, so 1 is the most
 * permissive); 0 if one fits or a limit cannot be evaluated here. */
static int
none_fits(const TileOp *to, const LowerNode *ln, const AxEnv *sizes, int k, double x)
{
	if (sizes->n > 512)
		return 0;
	const char *names[512 + AX_MAXR + 4];
	double vals[512 + AX_MAXR + 4];
	int n = 0;
	for (int i = 0; i < sizes->n; i++)
		names[n] = sizes->names[i], vals[n++] = sizes->vals[i];
	for (int j = 0; j < to->naxes; j++)
		if (to->ax[j].t)
			names[n] = to->ax[j].t, vals[n++] = j == k ? x : 1;
	AxEnv env = { n, names, vals };
	for (int i = 0; i < ln->nchoices; i++) {
		double ok;
		if (!ln->choice[i].seq.limit || t_eval(ln->choice[i].seq.limit, &env, &ok) != 0 || ok != 0)
			return 0;
	}
	return 1;
}

/* Operation id of a variant cannot be written at the requested sizes whatever its tile sizes:
 * every sequence breaks its limits with each tile size at 1 (limits bound sizes from above), so
 * the sizes it must span whole break them (a reduction whose partial tiles do not combine spans
 * its axis).  The reason in user terms, or NULL (it fits, or a limit cannot be evaluated here). */
static const char *
too_large(const AxTiling *T, const LowerNode *L, const AxEnv *sizes, int id, char *buf, size_t nbuf)
{
	const TileOp *to = &T->op[id];
	const LowerNode *ln = &L[id];
	if (to->kind != TO_COMPUTE || !ln->nchoices || !none_fits(to, ln, sizes, -1, 0))
		return NULL;
	const char *whole = NULL;
	for (int k = 0; k < to->naxes && !whole; k++)
		if (to->ax[k].red && to->ax[k].whole)
			whole = t_infix(T->g->tc, to->ax[k].extent);
	snprintf(buf, nbuf, "%s%s%sat these sizes no instruction sequence found for it fits its limits (%s)",
	         whole ? "one tile spans " : "", whole ? whole : "",
	         whole ? " (a reduction whose partial tiles do not combine), and " : "", ln->choice[0].seq.constraints);
	return buf;
}

/* Operation id must combine partial tiles of a reduction it cannot combine: the reduced axis
 * must be split at these sizes (--max-tile, maxtile > 0, is below its extent, or no sequence's
 * limits admit the whole axis in one tile) and no sequence combines the parts.  The reason,
 * or NULL. */
static const char *
no_combine(const AxTiling *T, const LowerNode *L, const AxEnv *sizes, int maxtile, int id, char *buf, size_t nbuf)
{
	const TileOp *to = &T->op[id];
	const LowerNode *ln = &L[id];
	if (to->kind != TO_COMPUTE || !ln->nchoices || ln->ncombine || !sizes)
		return NULL;
	for (int k = 0; k < to->naxes; k++) {
		const TileAxis *ax = &to->ax[k];
		double x;
		if (!ax->red || !ax->tiled || ax->whole || !ax->extent || !ax->t || t_eval(ax->extent, sizes, &x) != 0)
			continue;
		/* split: by --max-tile, or no sequence fits the whole axis in one tile */
		if (!(maxtile > 0 && x > maxtile) && !none_fits(to, ln, sizes, k, x))
			continue;
		const char *ext = t_infix(T->g->tc, ax->extent);
		snprintf(buf, nbuf, "the reduced axis %s = %.0f is split into tiles (%s), and %s", ext, x,
		         maxtile > 0 && x > maxtile ? "--max-tile" : "no sequence's limits admit it whole",
		         ln->combine_why ? ln->combine_why : "no instruction sequence combines its partial tiles");
		return buf;
	}
	return NULL;
}

int
variants_writable(const AxTarget *t, int nv, AxTiling *const *T, LowerNode *const *L, const AxEnv *sizes, int maxtile)
{
	int first = -1;
	char buf[700];
	for (int v = 0; v < nv; v++) {
		int bad = -1;
		for (int id = 0; id < T[v]->g->nnodes && bad < 0; id++)
			if (lower_unwritable(T[v], L[v], id) || (sizes && too_large(T[v], L[v], sizes, id, buf, sizeof buf)) ||
			    no_combine(T[v], L[v], sizes, maxtile, id, buf, sizeof buf))
				bad = id;
		if (bad < 0)
			return 0;
		if (v == 0)
			first = bad;
	}
	const AxGraph *g = T[0]->g;
	const AxNode *n = &g->nodes[first];
	const char *why = lower_unwritable(T[0], L[0], first);
	if (!why)
		why = too_large(T[0], L[0], sizes, first, buf, sizeof buf);
	if (!why)
		why = no_combine(T[0], L[0], sizes, maxtile, first, buf, sizeof buf);
	ax_error_at(n->loc, "%s: %s (target %s, %s variant%s)", node_op(g, n)->name, why, t->name,
	            nv == 1 ? "its one" : "each of its", nv == 1 ? "" : "s");
	return 1;
}

void
fusion_budget_note(LowerCache *c, int nv)
{
	int *windows, *skipped;
	lower_cache_fusion(c, &windows, &skipped);
	if (*skipped)
		fprintf(stderr, "axonc: note: instruction fusion searched in the first %d of %d variants, which tried %d windows "
		        "of two instructions, the budget of %d; the others keep their plain sequences\n", nv - *skipped, nv,
		        *windows, FUSE_BUDGET);
}
