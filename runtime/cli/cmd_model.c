/*
 * cmd_model.c — `axonc model FILE.py --dims ...`: the performance model
 * (model.c) over a program's candidates, for reading and for tests.
 *
 * Prints the roofline bound (roofline.c), the naive lowering (naive.c), the
 * first candidate that fits and the one the model ranks first (compile's
 * winner, before validation), each with its per-engine busy time and
 * bottleneck; with --list, one line per candidate first.  Every figure is a
 * model of one core, not a measurement, and the output says so.
 */
#include <string.h>
#include "cli.h"
#include "nest.h"

typedef struct Pick {
	int have, v;
	int64_t combo, sub;
	int fused;
	double ms;
	int sched;               /* ms is its scheduled twin's (model_pick_form) */
	ModelStats st;
	char blocks[256], key[256];
} Pick;

enum { MODEL_BUDGET = 20000 };   /* candidates visited by default (compile's default), all variants together */

/* blocks per strip, "n0=2,n1=4" ("-" for none) */
static void
blocks_text(const AxTiling *T, const int *blocks, char *b, size_t n)
{
	size_t k = 0;
	b[0] = 0;
	for (int c = 0; c < T->nbcls && c < 64 && blocks; c++)
		if (blocks[c] > 1 && k < n)
			k += (size_t)snprintf(b + k, n - k, "%s%s=%d", k ? "," : "", T->bname[c], blocks[c]);
	if (!b[0])
		snprintf(b, n, "-");
}

/* the sequences and engines of a candidate, "%2:1/0.1;%5:0/0" */
static void
choice_text(const AxTiling *T, const LowerNode *L, const int *choice, const int *engsel, char *b, size_t n)
{
	const AxGraph *g = T->g;
	size_t k = 0;
	b[0] = 0;
	for (int id = 0; id < g->nnodes && k < n; id++) {
		if (T->op[id].kind != TO_COMPUTE || !L[id].nchoices)
			continue;
		k += (size_t)snprintf(b + k, n - k, "%s%%%d:%d/", k ? ";" : "", id, choice[id]);
		const SynthSeq *q = &L[id].choice[choice[id]].seq;
		for (int j = 0; j < q->ninsts && k < n; j++)
			k += (size_t)snprintf(b + k, n - k, "%s%d", j ? "." : "", engsel ? engsel[id * 8 + j] : 0);
	}
}

static void
print_stats(const AxTarget *t, const char *what, double ms, double roof_ms, const ModelStats *st)
{
	printf("%-12s%10.4f ms", what, ms);
	if (roof_ms > 0)
		printf("  (%.2fx roofline)", ms / roof_ms);
	char why[256];
	model_bottleneck_text(t, st, why, sizeof why);
	printf("  bottleneck %s |", why);
	for (int e = 0; e < t->nengines && e < 32; e++)
		printf(" %s %.4f", t->engines[e].name, st->busy[e] * 1e3);
	printf(" ms busy | %.4g MB in %.0f transfers, %.0f instructions\n", st->bytes / 1e6, st->transfers, st->insts);
}

static void
print_pick(const AxTarget *t, const char *what, const Pick *p, double roof_ms)
{
	if (!p->have) {
		printf("%-12s(none fits)\n", what);
		return;
	}
	print_stats(t, what, p->ms, roof_ms, &p->st);
	printf("%-12s  variant %d, candidate %lld.%lld, %s%s, blocks %s, sequences %s\n", "", p->v, (long long)p->combo,
	       (long long)p->sub,
	       p->fused < 0 ? "unfused" : p->fused > 0 ? "loop-fused" : "nothing to fuse", p->sched ? ", scheduled" : "",
	       p->blocks, p->key);
}

/* the naive lowering of the program as written (variant 0) */
static void
model_naive(const AxTarget *t, const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals,
            int n, int dtype, double roof_ms)
{
	char why[512];
	ModelStats st;
	double s = naive_latency(T, L, names, vals, n, dtype, &st, why, sizeof why);
	if (s == -1)
		printf("%-12s(cannot be written: %s)\n", "naive", why);
	else if (s < 0)
		printf("%-12s(its tiles do not fit on chip)\n", "naive");
	else
		print_stats(t, "naive", s * 1e3, roof_ms, &st);
}

enum { TOPC = 4 };   /* combinations the second round visits again (compile's SEL_TOPC) */

typedef struct Visit {       /* the candidates met so far */
	const AxTarget *t;
	const Opts *o;
	AxTiling **T;
	LowerNode **L;
	int n, dtype, list;
	Pick first, best, *vbest, topc[TOPC], topp[SEL_TWINS];
	int64_t considered, modelled, nofit, failed;
	double model_ms;
} Visit;

static int shown(const char *want, int64_t combo, int64_t sub, int fused);

/* p into the best n of top by their own latencies (not their twins'), in order (ties: the first
 * met), at most per of one key (the variant, and with by_combo its combination): where there are
 * per already, p replaces the worst of them if faster (compile's insert_capped, select.c).  The
 * best combinations (per 1), the twins' candidates (SEL_TWINS_PER), the best variants (per 1). */
static void
put_capped(Pick *top, int n, const Pick *p, int per, int by_combo)
{
	int same = 0, last = -1;
	for (int i = 0; i < n; i++)
		if (top[i].have && top[i].v == p->v && (!by_combo || top[i].combo == p->combo)) {
			same++;
			last = i;
		}
	if (same >= per) {
		if (p->ms >= top[last].ms)
			return;
		memmove(&top[last], &top[last + 1], sizeof *top * (size_t)(n - 1 - last));
		top[n - 1] = (Pick){ 0 };
	}
	int i = n;
	while (i > 0 && (!top[i - 1].have || p->ms < top[i - 1].ms))
		i--;
	if (i < n) {
		memmove(&top[i + 1], &top[i], sizeof *top * (size_t)(n - 1 - i));
		top[i] = *p;
	}
}

/* every candidate x visits of variant v: modelled, listed, kept if best */
static void
visit_all(Visit *m, int v, Extract *x)
{
	const AxTarget *t = m->t;
	const Opts *o = m->o;
	for (;;) {
		ExtractCand c;
		Nest *ns = extract_next(x, &c);
		if (c.end)
			break;
		m->considered++;
		if (!ns) {
			m->failed++;
			continue;
		}
		Pick p = { .have = 1, .v = v, .combo = c.combo, .sub = c.sub, .fused = c.fused };
		double t0 = ax_now_ms();
		p.ms = model_latency(ns, m->dtype, &c.fp, &p.st) * 1e3;
		m->model_ms += ax_now_ms() - t0;
		if (!p.st.fits) {   /* at this element size */
			m->nofit++;
			nest_free(ns);
			continue;
		}
		m->modelled++;
		blocks_text(m->T[v], c.blocks, p.blocks, sizeof p.blocks);
		if (c.fold)
			snprintf(p.blocks + strlen(p.blocks), sizeof p.blocks - strlen(p.blocks), ",folded");
		choice_text(m->T[v], m->L[v], c.choice, c.engsel, p.key, sizeof p.key);
		if (m->list) {
			printf("cand v=%d i=%lld.%lld fused=%d blocks=%s seq=%s ms=%.9f bottleneck=%s busy=", v,
			       (long long)c.combo, (long long)c.sub, c.fused, p.blocks, p.key, p.ms,
			       t->engines[p.st.bottleneck < 0 ? 0 : p.st.bottleneck].name);
			for (int e = 0; e < t->nengines && e < 32; e++)
				printf("%s%.6f", e ? "," : "", p.st.busy[e] * 1e3);
			printf(" tiles=");
			for (int k = m->n; k < c.env.n; k++)
				printf("%s%s:%.0f", k > m->n ? "," : "", c.env.names[k], c.env.vals[k]);
			printf("\n");
		}
		if (o->show && shown(o->show, c.combo, c.sub, c.fused)) {
			char why[256];
			char *src = nest_kernel_as(ns, o->fn ? o->fn : "kernel", m->dtype, why, sizeof why);
			printf("# candidate i=%lld.%lld fused=%d, %.6f ms\n%s\n", (long long)c.combo, (long long)c.sub,
			       c.fused, p.ms, src ? src : why);
			free(src);
		}
		if (!m->first.have)
			m->first = p;
		if (!m->best.have || p.ms < m->best.ms)
			m->best = p;
		if (!m->vbest[v].have || p.ms < m->vbest[v].ms)
			m->vbest[v] = p;
		put_capped(m->topc, TOPC, &p, 1, 1);
		put_capped(m->topp, SEL_TWINS, &p, SEL_TWINS_PER, 1);
		nest_free(ns);
	}
}

/* the descent (descent.c) from the best choice of each of the best combinations, a step at a
 * time as compile takes it (select.c), until it ends or left visits are spent */
static void
descend(Visit *m, int nv, const char **names, const double *vals, int64_t budget, int64_t left)
{
	Pick cur[TOPC];
	int nc = 0;
	for (int i = 0; i < TOPC; i++)
		if (m->topc[i].have)
			cur[nc++] = m->topc[i];
	Descent *d = descent_new();
	for (int i = 0; i < nc; i++)
		descent_start(d, cur[i].v, cur[i].combo, cur[i].sub);
	int64_t (**list)[2] = calloc((size_t)nv, sizeof *list);
	int *nl = calloc((size_t)nv, sizeof *nl);
	Extract **x = calloc((size_t)nv, sizeof *x);
	if (!list || !nl || !x)
		ax_die("out of memory");
	int64_t base = EXTRACT_FOCUS_BASE + ((int64_t)1 << 29);
	int improved = 1;
	while (left > 0 && descent_next(d, improved)) {
		int64_t total = 0;   /* the starts in order, as compile's steps take them (select.c) */
		for (int v = 0; v < nv; v++)
			nl[v] = 0;
		for (int i = 0; i < nc && total < left; i++) {
			int v = cur[i].v;
			if (!x[v]) {
				x[v] = extract_new(m->T[v], m->L[v], names, vals, m->n, m->o->tile_cap, m->o->no_fusion, budget);
				list[v] = malloc(sizeof *list[v] * (size_t)(left + 1));
				if (!list[v])
					ax_die("out of memory");
			}
			int k = descent_around(d, x[v], v, cur[i].combo, cur[i].sub, list[v] + nl[v],
			                       (int)(left - total < INT32_MAX ? left - total : INT32_MAX));
			nl[v] += k;
			total += k;
		}
		for (int v = 0; v < nv; v++)   /* the variants in order, as the workers' rounds rank them */
			if (nl[v]) {
				Extract *xv = extract_new(m->T[v], m->L[v], names, vals, m->n, m->o->tile_cap, m->o->no_fusion,
				                          budget);
				extract_list(xv, list[v], nl[v], base);
				base += nl[v];
				visit_all(m, v, xv);
				extract_free(xv);
			}
		if (!total)
			break;
		left -= total;
		improved = 0;
		for (int i = 0; i < nc; i++)
			for (int j = 0; j < TOPC; j++)
				if (m->topc[j].have && m->topc[j].v == cur[i].v && m->topc[j].combo == cur[i].combo &&
				    m->topc[j].ms < cur[i].ms) {
					cur[i] = m->topc[j];
					improved = 1;
				}
	}
	for (int v = 0; v < nv; v++) {
		free(list[v]);
		extract_free(x[v]);
	}
	free(list);
	free(nl);
	free(x);
	descent_free(d);
}

/* the neighbours of the best combination of each of the SEL_TOPV best variants, the best
 * variant's first, within left visits, as compile's round takes them (select.c) */
static void
neighbours(Visit *m, int nv, const char **names, const double *vals, int64_t budget, int64_t left)
{
	Pick from[SEL_TOPV] = { 0 };
	for (int v = 0; v < nv; v++)   /* the best variants, by latency, then variant */
		if (m->vbest[v].have)
			put_capped(from, SEL_TOPV, &m->vbest[v], 1, 0);
	int nf = 0;
	while (nf < SEL_TOPV && from[nf].have)
		nf++;
	size_t nvs = nv > 0 ? (size_t)nv : 1;
	int64_t (**list)[2] = calloc(nvs, sizeof *list), total = 0;
	int *nl = calloc(nvs, sizeof *nl);
	if (!list || !nl)
		ax_die("out of memory");
	for (int i = 0; i < nf && total < left; i++) {
		int v = from[i].v;
		Extract *x = extract_new(m->T[v], m->L[v], names, vals, m->n, m->o->tile_cap, m->o->no_fusion, budget);
		int room = (int)(left - total < 1024 ? left - total : 1024);
		list[v] = realloc(list[v], sizeof *list[v] * (size_t)(nl[v] + room + 1));
		if (!list[v])
			ax_die("out of memory");
		int k = extract_neighbour_visits(x, from[i].combo, list[v] + nl[v], room);
		nl[v] += k;
		total += k;
		extract_free(x);
	}
	int64_t base = EXTRACT_FOCUS_BASE + 3 * ((int64_t)1 << 28);
	for (int v = 0; v < nv; v++) {   /* the variants in order, as the workers' rounds rank them */
		if (nl[v]) {
			Extract *xv = extract_new(m->T[v], m->L[v], names, vals, m->n, m->o->tile_cap, m->o->no_fusion, budget);
			extract_list(xv, list[v], nl[v], base);
			visit_all(m, v, xv);
			extract_free(xv);
		}
		base += nl[v];
		free(list[v]);
	}
	free(list);
	free(nl);
}

/* Is the candidate (combo, sub, fused) the one --show names: "COMBO.SUB" or "COMBO.SUB,FUSED"? */
static int
shown(const char *want, int64_t combo, int64_t sub, int fused)
{
	char id[64];
	snprintf(id, sizeof id, "%lld.%lld", (long long)combo, (long long)sub);
	size_t n = strlen(id);
	if (strncmp(want, id, n) != 0)
		return 0;
	if (!want[n])
		return 1;
	return want[n] == ',' && atoi(want + n + 1) == fused;
}

int
cmd_model(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "model");
	int dtype = o->dtype > 0 ? o->dtype : 4, list = o->list;
	model_no_jump = o->no_jump;   /* every loop iteration run: the check of the jumps */
	TermCtx *tc = tc_new(t);
	const char *names[512];
	double vals[512];
	int n = 0, nsizes = 0, rc = 0;
	NuGraph *ng = program_at_sizes(t, tc, o, names, vals, &n, &nsizes, &rc);
	if (rc) {
		for (int i = 0; i < nsizes; i++)
			free((char *)names[i]);
		tc_free(tc);
		return rc;
	}
	AxEnv sizes = { n, names, vals };
	ModelRoof rf;
	double roof_ms = model_roofline(ng->g0, &sizes, dtype, &rf) * 1e3;
	printf("axonc model: %s at %s, %d bytes per element, one core of %s (a model, not a measurement)\n", o->args[0],
	       o->dims ? o->dims : "its literal shapes", dtype, t->name);
	printf("%-12s%10.4f ms  compute %.4f ms (%.4g MACs at %.4g/s, %.4g other flops at %.4g/s), memory %.4f ms "
	       "(%.4g MB at %.4g GB/s)\n",
	       "roofline", roof_ms, rf.compute_s * 1e3, rf.macs, rf.macs_rate, rf.flops, rf.flops_rate, rf.mem_s * 1e3,
	       rf.bytes / 1e6, rf.bandwidth / 1e9);
	LowerCache *cache = lower_cache_new(t, tc, 3);
	Arena *ar = tc_arena(tc);
	AxTiling **T = arena_alloc(ar, sizeof *T * (size_t)(ng->nvariants + 1));
	LowerNode **L = arena_alloc(ar, sizeof *L * (size_t)(ng->nvariants + 1));
	for (int v = 0; v < ng->nvariants; v++) {
		T[v] = tile_graph(ng->variants[v]);
		L[v] = lower_variant(cache, T[v], 64);
	}
	fusion_budget_note(cache, ng->nvariants);
	if (variants_writable(t, ng->nvariants, T, L, &sizes, o->tile_cap)) {   /* what compile refuses, model refuses */
		lower_cache_free(cache);
		for (int i = 0; i < nsizes; i++)
			free((char *)names[i]);
		tc_free(tc);
		return 1;
	}
	model_naive(t, T[0], L[0], names, vals, n, dtype, roof_ms);
	/* the candidates visited: compile's budget unless given, in compile's two rounds (three
	 * quarters shared evenly by the variants, then the best combinations' tiles and blocks) */
	int64_t all = o->budget > 0 ? o->budget : MODEL_BUDGET, nv = ng->nvariants > 0 ? ng->nvariants : 1;
	int64_t budget = (all - all / 4) / nv;
	if (budget < 64)
		budget = 64;
	int64_t refine = all <= budget * nv ? 0 : all - budget * nv;   /* what the first round left */
	Visit m = { .t = t, .o = o, .T = T, .L = L, .n = n, .dtype = dtype, .list = list };
	m.vbest = arena_alloc(ar, sizeof *m.vbest * (size_t)(ng->nvariants + 1));
	for (int v = 0; v <= ng->nvariants; v++)
		m.vbest[v] = (Pick){ 0 };
	for (int v = 0; v < ng->nvariants; v++) {
		Extract *x = extract_new(T[v], L[v], names, vals, n, o->tile_cap, o->no_fusion, budget);
		visit_all(&m, v, x);
		extract_free(x);
	}
	int64_t left = refine - refine / 8;   /* an eighth to the neighbours of the best combinations */
	if (refine > 0)
		neighbours(&m, ng->nvariants, names, vals, budget, refine / 8);
	int nc = 0;
	for (int i = 0; i < TOPC; i++)
		nc += m.topc[i].have;
	for (int v = 0; v < ng->nvariants && nc; v++) {   /* the second round */
		int64_t combos[TOPC];
		int k = 0;
		for (int i = 0; i < TOPC; i++)
			if (m.topc[i].have && m.topc[i].v == v)
				combos[k++] = m.topc[i].combo;
		if (!k)
			continue;
		Extract *x = extract_new(T[v], L[v], names, vals, n, o->tile_cap, o->no_fusion, budget);
		extract_focus(x, combos, k, left / 2 / nc > 1 ? left / 2 / nc : 1);
		visit_all(&m, v, x);
		extract_free(x);
	}
	if (nc)   /* then the descent from their best choices, with the rest (as compile's) */
		descend(&m, ng->nvariants, names, vals, budget, left - left / 2);
	for (int i = 0; i < SEL_TWINS && m.topp[i].have; i++) {   /* the twins of the best, as compile's */
		Pick p = m.topp[i];
		Extract *x = extract_new(T[p.v], L[p.v], names, vals, n, o->tile_cap, o->no_fusion, budget);
		ExtractCand c;
		Nest *ns = extract_at(x, p.combo, p.sub, NEST_FUSE_OF(p.fused), &c);
		if (ns) {
			ModelStats st;
			double s = model_pick_form(&ns, &c, dtype, &st) * 1e3;
			if (list && c.sched)   /* fields as a cand line's: the ms in the 7th */
				printf("twin v=%d i=%lld.%lld fused=%d form=%d - ms=%.9f balanced=%.9f\n", p.v, (long long)p.combo,
				       (long long)p.sub, p.fused, c.sched, s, st.unrefined * 1e3);
			if (c.sched && st.fits && s < p.ms) {
				p.ms = s;
				p.st = st;
				p.sched = c.sched;
				if (s < m.best.ms)
					m.best = p;
				if (s < m.vbest[p.v].ms)
					m.vbest[p.v] = p;
			}
		}
		nest_free(ns);
		extract_free(x);
	}
	for (int v = 0; v < ng->nvariants; v++) {
		const Pick *vb = &m.vbest[v];
		if (vb->have) {
			double busy = 0;
			for (int e = 0; e < t->nengines && e < 32; e++)
				busy += vb->st.busy[e];
			printf("variant %-4d%10.4f ms  best of its candidates; engines busy %.4f ms in all (%.2fx overlap)\n", v,
			       vb->ms, busy * 1e3, vb->ms > 0 ? busy * 1e3 / vb->ms : 0);
		} else
			printf("variant %-4d(no candidate fits)\n", v);
	}
	Pick first = m.first, best = m.best;
	int64_t considered = m.considered, modelled = m.modelled, nofit = m.nofit, failed = m.failed;
	double model_ms = m.model_ms;
	print_pick(t, "first", &first, roof_ms);
	print_pick(t, "best", &best, roof_ms);
	printf("candidates  %lld considered, %lld modelled, %lld do not fit on chip, %lld could not be written; "
	       "modelling took %.1f ms (%.4f ms each)\n",
	       (long long)considered, (long long)modelled, (long long)nofit, (long long)failed, model_ms,
	       modelled ? model_ms / (double)modelled : 0);
	if (!best.have)   /* compile would find nothing to select */
		fprintf(stderr, "axonc: error: no candidate of %d variant%s fits on one core of %s at %s (%lld considered, "
		        "%lld could not be written)\n", ng->nvariants, ng->nvariants == 1 ? "" : "s", t->name,
		        o->dims ? o->dims : "its literal shapes", (long long)considered, (long long)failed);
	lower_cache_free(cache);
	for (int i = 0; i < nsizes; i++)
		free((char *)names[i]);
	tc_free(tc);
	return best.have ? 0 : 1;
}
