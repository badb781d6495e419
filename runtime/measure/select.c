/*
 * select.c — Phase 2 (paper section 4.6): every candidate measured, the best
 * kept.
 *
 * A candidate's structure is its (variant, sequences and engines, fusion
 * form, producers loop-fused).  The first time a worker meets a structure it
 * writes it again at reduced sizes, at the tile/block choice with the
 * smallest tiles and most blocks that fuses the same producers (or, where none
 * does, like a stand-in of its own at the requested sizes), so that its
 * loops, blocks and cross-tile reductions run more than once, and runs its C
 * rendering through libtcc against the program's reference execution.
 * Renderings that differ only in their engines are run once.  A candidate
 * whose structure fails, or cannot be written at the reduced sizes, is
 * dropped and counted: when in doubt, reject.
 *
 * The candidates are streamed (extract.c); each one that fits and whose
 * structure validates is measured: by the performance model (model.c), or by running the user's
 * command on its NKI file and a JSON of its choices and reading the latency
 * it prints (the last word of its standard output that is a number, in
 * microseconds; a
 * failing command makes the candidate infeasible).  The work is shared by
 * `jobs` worker processes forked after Phase 1, each taking every jobs-th
 * visit; verdicts and results come back through shared memory (two workers
 * meeting one structure at once may both run it: same verdict).  The best is the lowest
 * latency, ties broken by stream order (variant, visit, fused before
 * unfused), so the choice does not depend on the number of workers.
 */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "measure.h"
#include "verdict.h"
#include "select_impl.h"


static void *
shared_alloc(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		ax_die("out of memory (shared)");
	return p;
}

/* a before b: by latency, then by place in the stream */
static int
better(const SelPick *a, const SelPick *b)
{
	if (!b->have)
		return a->have;
	if (!a->have)
		return 0;
	if (a->latency != b->latency)
		return a->latency < b->latency;
	if (a->v != b->v)
		return a->v < b->v;
	if (a->visit != b->visit)
		return a->visit < b->visit;
	if (a->fold != b->fold)
		return a->fold < b->fold;
	if (a->unfused != b->unfused)
		return a->unfused < b->unfused;
	return a->fused > b->fused;   /* the form with epilogues first */
}

static void
insert_n(SelPick *top, int n, const SelPick *p)
{
	int i = n;
	while (i > 0 && better(p, &top[i - 1]))
		i--;
	if (i >= n)
		return;
	memmove(&top[i + 1], &top[i], sizeof *top * (size_t)(n - 1 - i));
	top[i] = *p;
}

static void
top_insert(SelPick *top, const SelPick *p)
{
	insert_n(top, SEL_TOP, p);
}

/* p into the best n of top, in order, at most per of one key (the variant, and with by_combo its
 * combination): where there are per already, p replaces the worst of them if better */
static void
insert_capped(SelPick *top, int n, const SelPick *p, int per, int by_combo)
{
	int same = 0, last = -1;
	for (int i = 0; i < n; i++)
		if (top[i].have && top[i].v == p->v && (!by_combo || top[i].combo == p->combo)) {
			same++;
			last = i;
		}
	if (same >= per) {
		if (!better(p, &top[last]))
			return;
		memmove(&top[last], &top[last + 1], sizeof *top * (size_t)(n - 1 - last));
		top[n - 1] = (SelPick){ 0 };
	}
	insert_n(top, n, p);
}

/* the candidates whose twins are modelled (twins()): the best by their own latencies, at most
 * SEL_TWINS_PER of one combination, so that the twins of more than one combination are tried
 * (their own latencies rank combinations; a twin's depends on its order too) */
static void
topp_insert(SelPick *top, const SelPick *p)
{
	insert_capped(top, SEL_TWINS, p, SEL_TWINS_PER, 1);
}

/* the best of each of the best variants (the neighbours' origins, select_rounds.c) */
static void
topv_insert(SelPick *top, const SelPick *p)
{
	insert_capped(top, SEL_TOPV, p, 1, 0);
}

/* the best per combination by the candidates' own latencies (what the second round and the
 * descent start from): p replaces its combination's pick if better */
static void
topc_insert(SelPick *top, const SelPick *p)
{
	insert_capped(top, SEL_TOPC, p, 1, 1);
}

/* ---- validation by structure (verdict.c) ---------------------------------------------- */

/* the verdict of candidate c's structure, validated now if no worker has yet */
static int
verdict(Sel *S, Checker *K, int v, const ExtractCand *c, SelOut *o)
{
	int64_t ci = c->combo % S->stride[v] == 0 && c->combo / S->stride[v] < S->ncv[v] ? c->combo / S->stride[v] : -1;
	for (int k = 0; ci < 0 && k < S->nxcombo[v]; k++)   /* one the first round did not visit */
		if (S->xcombo[v][k] == c->combo)
			ci = S->ncv[v] + k;
	int ne = c->fused / NEST_EPILOGUE, nn = S->W / 3 - 2;
	int slot = c->fused < 0 ? 0 : 1 + c->fused % NEST_EPILOGUE + (ne < 2 ? ne : 2) * (nn + 2);
	if (ci < 0 || slot >= S->W)
		return V_UNBUILT;
	return checker_verdict(K, S->in, v, c->combo, c->fused, S->verdict[v] + ci * S->W + slot, ne < 2, o);
}

/* ---- measuring ---------------------------------------------------------------------- */

/* runs the user's command on candidate c (modelled at modelled_s): its latency in seconds, or -1 and why */
static double
measure_command(Sel *S, int k, int v, const ExtractCand *c, const Nest *ns, double modelled_s, char *why, size_t nwhy)
{
	const SelIn *in = S->in;
	char kp[128], cp[128], ep[128];
	snprintf(kp, sizeof kp, "%s/w%d.py", S->tmpdir, k);
	snprintf(cp, sizeof cp, "%s/w%d.json", S->tmpdir, k);
	snprintf(ep, sizeof ep, "%s/w%d.err", S->tmpdir, k);
	char *src = nest_kernel_as(ns, in->fn, in->dtype, why, nwhy);
	if (!src)
		return -1;
	FILE *f = fopen(kp, "w"), *g = fopen(cp, "w");
	if (f)
		fputs(src, f);
	if (g)
		select_config_json(g, in, v, c);
	free(src);
	if (!f || !g || fclose(f) != 0 || fclose(g) != 0) {
		snprintf(why, nwhy, "cannot write the candidate into %s", S->tmpdir);
		return -1;
	}
	char *cmd = command_line(in->cmd, kp, cp, modelled_s), *sh = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sh, &len);
	fprintf(m, "(\n%s\n) 2>'%s' </dev/null", cmd, ep);
	fclose(m);
	free(cmd);
	pid_t pid;
	FILE *p = ax_popen_group(sh, &pid);
	free(sh);
	if (!p) {
		snprintf(why, nwhy, "cannot run the command: %s", strerror(errno));
		return -1;
	}
	double last = command_last_number(p);
	int st = ax_pclose_group(p, pid);
	return command_verdict(st == 0 ? 0 : WIFEXITED(st) ? WEXITSTATUS(st) : -1, last, ep, why, nwhy);
}

/* --slurm: candidate c written into the work directory instead of measured, its place in the
 * stream and its key kept in this worker's records (select_run measures them all at once) */
typedef struct Deferred {
	SelPick p;
	char key[33];
} Deferred;

static int
defer_command(Sel *S, FILE *rec, int v, const ExtractCand *c, const Nest *ns, const SelPick *p, char *why, size_t nwhy)
{
	const SelIn *in = S->in;
	char *src = nest_kernel_as(ns, in->fn, in->dtype, why, nwhy), *cfg = NULL;
	if (!src)
		return -1;
	size_t len = 0;
	FILE *g = open_memstream(&cfg, &len);
	if (!g)
		ax_die("out of memory");
	select_config_json(g, in, v, c);
	fclose(g);
	Deferred d = { .p = *p };
	int rc = slurm_put(S->slurm, src, cfg, p->latency, d.key, why, nwhy);
	free(src);
	free(cfg);
	if (rc == 0 && fwrite(&d, sizeof d, 1, rec) != 1) {
		snprintf(why, nwhy, "cannot keep a record in %s: %s", S->tmpdir, strerror(errno));
		rc = -1;
	}
	return rc;
}

static void
measure_share(Sel *S, int k, int jobs, SelOut *o)
{
	const SelIn *in = S->in;
	Checker *K = checker_new(in->nv);
	FILE *rec = NULL;
	if (S->slurm) {
		char rp[128];
		snprintf(rp, sizeof rp, "%s/w%d.rec", S->tmpdir, k);
		if (!(rec = fopen(rp, "wb")))
			ax_die("cannot write %s: %s", rp, strerror(errno));
	}
	for (int v = 0; v < in->nv; v++) {
		Extract *x = extract_new(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->no_fusion,
		                         in->budget);
		extract_share(x, k, jobs);
		if (S->focus) {   /* the second round: only the best combinations */
			if (!S->nfocus[v]) {
				extract_free(x);
				continue;
			}
			extract_focus(x, S->focus[v], S->nfocus[v], S->fper);
		} else if (S->list) {   /* a step of the descent */
			if (!S->nlist[v]) {
				extract_free(x);
				continue;
			}
			extract_list(x, S->list[v], S->nlist[v], S->lbase[v]);
		}
		int64_t lastvisit = -1;
		for (;;) {
			ExtractCand c;
			Nest *ns = extract_next(x, &c);
			if ((c.end || !ns) && c.why[0] && !o->first_failure[0]) {
				snprintf(o->first_failure, sizeof o->first_failure, "%.500s", c.why);
				o->failure_variant = v;
				o->failure_node = c.end ? -1 : c.why_node;
			}
			if (c.end)
				break;
			if (c.visit != lastvisit) {
				lastvisit = c.visit;
				S->sh->done[k]++;
				o->visits++;
			}
			o->considered++;
			if (!ns) {
				o->failed++;
				continue;
			}
			if (!footprint_fits(in->g0->t, &c.fp, in->dtype)) {   /* at the element size */
				o->dropped++;
				nest_free(ns);
				continue;
			}
			int unfused = c.fused < 0;
			if (in->rnames) {
				int vd = verdict(S, K, v, &c, o);
				if (vd != V_OK) {
					o->emitted++;
					if (vd == V_BAD)
						o->rejected++;
					else
						o->unvalidated++;
					nest_free(ns);
					continue;
				}
			}
			SelPick p = { .have = 1, .v = v, .visit = c.visit, .combo = c.combo, .sub = c.sub, .unfused = unfused,
			              .fused = c.fused, .fold = c.fold };
			p.latency = model_latency(ns, in->dtype, &c.fp, &p.st);
			if (!p.st.fits) {   /* at this element size, with its double buffers */
				o->dropped++;
				nest_free(ns);
				continue;
			}
			o->emitted++;
			if (in->cmd) {
				char why[600];
				double s = S->slurm ? defer_command(S, rec, v, &c, ns, &p, why, sizeof why)
				                    : measure_command(S, k, v, &c, ns, p.latency, why, sizeof why);
				if (s < 0) {
					o->infeasible++;
					if (!o->first_infeasible[0])
						snprintf(o->first_infeasible, sizeof o->first_infeasible, "variant %d visit %lld: %.500s",
						         v, (long long)c.visit, why);
					nest_free(ns);
					continue;
				}
				if (S->slurm) {   /* measured later, all at once */
					nest_free(ns);
					continue;
				}
				p.latency = s;
			}
			if (!in->cmd)   /* the twins of the best: modelled after the rounds (twins()) */
				topp_insert(o->topp, &p);
			o->feasible++;
			top_insert(o->top, &p);
			topc_insert(o->topc, &p);
			topv_insert(o->topv, &p);
			if (o->top[0].have)
				S->sh->best[k] = o->top[0].latency;
			nest_free(ns);
		}
		extract_free(x);
	}
	checker_free(K);
	if (rec && fclose(rec) != 0)
		ax_die("cannot write the records in %s", S->tmpdir);
}

/* ---- workers ------------------------------------------------------------------------ */

typedef void (*ShareFn)(Sel *S, int k, int jobs, SelOut *o);

static void
progress_line(const Sel *S, int jobs, int64_t total, double t0, int final)
{
	int64_t done = 0;
	double best = 0;
	for (int k = 0; k < jobs; k++) {
		done += S->sh->done[k];
		if (S->sh->best[k] > 0 && (best == 0 || S->sh->best[k] < best))
			best = S->sh->best[k];
	}
	double s = (ax_now_ms() - t0) / 1e3, rate = s > 0 ? (double)done / s : 0;
	char b[32] = "-";
	if (best > 0)
		snprintf(b, sizeof b, "%.4g ms", best * 1e3);
	fprintf(stderr, "\raxonc: phase 2: %lld/%lld visits, %.0f/s, best %s, ETA %.0f s   ", (long long)done,
	        (long long)total, rate, b, rate > 0 && total > done ? (double)(total - done) / rate : 0.0);
	if (final)
		fputc('\n', stderr);
}

/* fn over every share, in jobs processes (or this one); 0 = every worker finished */
static int
run_workers(Sel *S, int jobs, ShareFn fn, int64_t total, int show)
{
	double t0 = ax_now_ms();
	if (jobs <= 1) {
		fn(S, 0, 1, &S->sh->part[0]);
		return 0;
	}
	pid_t pid[SEL_MAXJOBS];
	fflush(NULL);
	for (int k = 0; k < jobs; k++) {
		pid[k] = ax_fork();
		if (pid[k] == 0) {
			fn(S, k, jobs, &S->sh->part[k]);
			_exit(0);
		}
		if (pid[k] < 0) {
			fprintf(stderr, "axonc: error: cannot start a worker: %s\n", strerror(errno));
			for (int j = 0; j < k; j++)
				kill(pid[j], SIGKILL), waitpid(pid[j], NULL, 0);
			return -1;
		}
	}
	int left = jobs, bad = 0;
	while (left > 0) {
		int st;
		pid_t w = waitpid(-1, &st, show ? WNOHANG : 0);
		if (w > 0) {
			left--;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				bad = 1;
				for (int k = 0; k < jobs; k++)
					if (pid[k] == w)
						S->sh->failed[k] = WIFSIGNALED(st) ? -WTERMSIG(st) : WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			}
		} else if (w == 0) {
			progress_line(S, jobs, total, t0, 0);
			nanosleep(&(struct timespec){ 0, 250000000 }, NULL);
		} else if (errno != EINTR)
			break;
	}
	if (show)
		progress_line(S, jobs, total, t0, 1);
	if (bad) {
		for (int k = 0; k < jobs; k++)
			if (S->sh->failed[k] < 0)
				fprintf(stderr, "axonc: error: worker %d of %d died of signal %d (%s)\n", k, jobs, -S->sh->failed[k],
				        strsignal(-S->sh->failed[k]));
			else if (S->sh->failed[k])
				fprintf(stderr, "axonc: error: worker %d of %d exited with status %d\n", k, jobs, S->sh->failed[k]);
		return -1;
	}
	return 0;
}

static void
add_counts(SelOut *o, const SelOut *p)
{
	o->visits += p->visits;
	o->considered += p->considered;
	o->failed += p->failed;
	o->dropped += p->dropped;
	o->emitted += p->emitted;
	o->infeasible += p->infeasible;
	o->rejected += p->rejected;
	o->unvalidated += p->unvalidated;
	o->feasible += p->feasible;
	o->validate_ms += p->validate_ms;
	o->runs += p->runs;
	if (!o->first_failure[0]) {
		memcpy(o->first_failure, p->first_failure, sizeof o->first_failure);
		o->failure_variant = p->failure_variant;
		o->failure_node = p->failure_node;
	}
	if (!o->first_rejection[0])
		memcpy(o->first_rejection, p->first_rejection, sizeof o->first_rejection);
	if (!o->first_infeasible[0])
		memcpy(o->first_infeasible, p->first_infeasible, sizeof o->first_infeasible);
	for (int i = 0; i < SEL_TOP; i++)
		if (p->top[i].have)
			top_insert(o->top, &p->top[i]);
	for (int i = 0; i < SEL_TOPC; i++)
		if (p->topc[i].have)
			topc_insert(o->topc, &p->topc[i]);
	for (int i = 0; i < SEL_TOPV; i++)
		if (p->topv[i].have)
			topv_insert(o->topv, &p->topv[i]);
	for (int i = 0; i < SEL_TWINS; i++)
		if (p->topp[i].have)
			topp_insert(o->topp, &p->topp[i]);
}

/* The scheduled twins (model_pick_form) of the best candidates by their own latencies, after
 * the rounds, which steer by those alone: a twin faster than its candidate takes its place among
 * the best. */
static void
twins(const Sel *S, SelOut *out)
{
	const SelIn *in = S->in;
	for (int i = 0; i < SEL_TWINS && out->topp[i].have; i++) {
		SelPick p = out->topp[i];
		ExtractCand c;
		Extract *x;
		Nest *ns = select_rebuild(in, &p, &c, &x);
		if (ns) {
			ModelStats st;
			double s = model_pick_form(&ns, &c, in->dtype, &st);
			if (c.sched && st.fits && s < p.latency) {
				for (int k = 0; k < SEL_TOP; k++)   /* the candidate itself leaves the best */
					if (out->top[k].have && out->top[k].v == p.v && out->top[k].visit == p.visit &&
					    out->top[k].unfused == p.unfused && out->top[k].fused == p.fused &&
					    out->top[k].fold == p.fold) {
						memmove(&out->top[k], &out->top[k + 1], sizeof *out->top * (size_t)(SEL_TOP - 1 - k));
						out->top[SEL_TOP - 1] = (SelPick){ 0 };
						break;
					}
				p.latency = s;
				p.st = st;
				p.sched = c.sched;
				top_insert(out->top, &p);
			}
		}
		nest_free(ns);
		extract_free(x);
	}
}

/* A step's round over the workers: its visits counted, its results merged into out. */
static int
round_over(Sel *S, int jobs, int64_t total, SelOut *out)
{
	*S->sh = (Shared){ 0 };
	int rc = run_workers(S, jobs, measure_share, total, S->in->progress);
	for (int k = 0; k < jobs && rc == 0; k++) {
		out->refined += S->sh->part[k].visits;
		add_counts(out, &S->sh->part[k]);
	}
	return rc;
}

/* --slurm: the candidates the workers wrote, measured through Slurm, then counted and ranked
 * as a local run would (records in worker order, each in stream order) */
static int
measure_deferred(Sel *S, int jobs, SelOut *out)
{
	Deferred *d = NULL;
	int64_t n = 0, cap = 0;
	for (int k = 0; k < jobs; k++) {
		char rp[128];
		snprintf(rp, sizeof rp, "%s/w%d.rec", S->tmpdir, k);
		FILE *f = fopen(rp, "rb");
		if (!f) {
			fprintf(stderr, "axonc: error: cannot read %s: %s\n", rp, strerror(errno));
			free(d);
			return -1;
		}
		for (;;) {
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				if (!(d = realloc(d, sizeof *d * (size_t)cap)))
					ax_die("out of memory");
			}
			if (fread(&d[n], sizeof *d, 1, f) != 1)
				break;
			n++;
		}
		fclose(f);
	}
	char(*keys)[33] = malloc(sizeof *keys * (size_t)(n + 1));
	if (!keys)
		ax_die("out of memory");
	for (int64_t i = 0; i < n; i++)
		memcpy(keys[i], d[i].key, sizeof keys[i]);
	int rc = slurm_measure(S->slurm, keys, n, S->in->progress);
	for (int64_t i = 0; i < n && rc == 0; i++) {
		char why[600];
		double s = slurm_latency(S->slurm, d[i].key, why, sizeof why);
		if (s > 0) {
			d[i].p.latency = s;
			out->feasible++;
			top_insert(out->top, &d[i].p);
		} else if (s == -1) {
			out->infeasible++;
			if (!out->first_infeasible[0])
				snprintf(out->first_infeasible, sizeof out->first_infeasible, "variant %d visit %lld: %.500s",
				         d[i].p.v, (long long)d[i].p.visit, why);
		} else {
			out->unmeasured++;
			if (!out->first_unmeasured[0])
				snprintf(out->first_unmeasured, sizeof out->first_unmeasured, "variant %d visit %lld: %.500s",
				         d[i].p.v, (long long)d[i].p.visit, why);
		}
	}
	free(keys);
	free(d);
	return rc;
}

int
select_run(const SelIn *in, SelOut *out)
{
	*out = (SelOut){ 0 };
	Sel S = { .in = in, .round_over = round_over };
	int jobs = in->jobs < 1 ? 1 : in->jobs > SEL_MAXJOBS ? SEL_MAXJOBS : in->jobs, rc = 0;
	S.sh = shared_alloc(sizeof *S.sh);   /* zeroed */
	S.verdict = calloc((size_t)in->nv + 1, sizeof *S.verdict);
	S.ncv = calloc((size_t)in->nv + 1, sizeof *S.ncv);
	S.stride = calloc((size_t)in->nv + 1, sizeof *S.stride);
	S.xcombo = calloc((size_t)in->nv + 1, sizeof *S.xcombo);
	S.nxcombo = calloc((size_t)in->nv + 1, sizeof *S.nxcombo);
	if (!S.verdict || !S.ncv || !S.stride || !S.xcombo || !S.nxcombo)
		ax_die("out of memory");
	int nn = in->g0->nnodes;
	for (int v = 0; v < in->nv; v++)
		if (nn < in->T[v]->g->nnodes)
			nn = in->T[v]->g->nnodes;
	S.W = 3 * (2 + nn);   /* the forms with no, one, and more epilogues */
	int64_t total = 0;
	for (int v = 0; v < in->nv; v++) {
		Extract *x = extract_new(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->no_fusion,
		                         in->budget);
		S.stride[v] = extract_stride(x);
		int64_t nc = extract_combinations(x);
		S.ncv[v] = nc / S.stride[v] + (nc % S.stride[v] != 0);   /* no overflow at INT64_MAX */
		extract_free(x);
		if (in->progress)
			total += extract_visits(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->budget);
		S.verdict[v] = shared_alloc((size_t)((S.ncv[v] + SEL_XCOMBO) * S.W));
	}
	if (rc == 0 && in->cmd) {
		snprintf(S.tmpdir, sizeof S.tmpdir, "/tmp/axonc.XXXXXX");
		if (!mkdtemp(S.tmpdir)) {
			fprintf(stderr, "axonc: error: cannot make a temporary directory: %s\n", strerror(errno));
			rc = -1;
		}
	}
	if (rc == 0 && in->cmd && in->slurm) {
		char why[600];
		if (!(S.slurm = slurm_open(in->slurm, in->g0->t->name, in->cmd, why, sizeof why))) {
			fprintf(stderr, "axonc: error: --slurm: %s\n", why);
			rc = -1;
		}
	}
	if (rc == 0) {
		rc = run_workers(&S, jobs, measure_share, total, in->progress);
		for (int k = 0; k < jobs; k++)
			add_counts(out, &S.sh->part[k]);
	}
	if (rc == 0 && !in->cmd)
		rc = sel_refine(&S, jobs, out);
	if (rc == 0 && !in->cmd)
		twins(&S, out);
	if (rc == 0 && S.slurm)
		rc = measure_deferred(&S, jobs, out);
	for (int v = 0; v < in->nv; v++)   /* the structures met */
		for (int64_t i = 0; i < S.ncv[v] * S.W; i++) {
			int vd = cell_summary(S.verdict[v][i]);
			out->structures += vd != 0;
			out->validated += vd == V_OK;
			out->struct_rejected += vd == V_BAD;
			out->struct_unvalidated += vd == V_UNBUILT;
		}
	if (S.tmpdir[0]) {   /* the workers' files, then the directory */
		for (int k = 0; k < jobs; k++) {
			const char *ext[4] = { "py", "json", "err", "rec" };
			for (int e = 0; e < 4; e++) {
				char p[160];
				snprintf(p, sizeof p, "%s/w%d.%s", S.tmpdir, k, ext[e]);
				unlink(p);
			}
		}
		rmdir(S.tmpdir);
	}
	slurm_close(S.slurm);
	for (int v = 0; v < in->nv; v++)
		munmap(S.verdict[v], (size_t)((S.ncv[v] + SEL_XCOMBO) * S.W));
	munmap(S.sh, sizeof *S.sh);
	free(S.verdict);
	free(S.ncv);
	free(S.stride);
	free(S.xcombo);
	free(S.nxcombo);
	return rc;
}

Nest *
select_rebuild(const SelIn *in, const SelPick *p, ExtractCand *c, Extract **xo)
{
	Extract *x = extract_new(in->T[p->v], in->L[p->v], in->names, in->vals, in->n, in->maxtile, in->no_fusion,
	                         in->budget);
	*xo = x;
	Nest *ns = NULL;
	if (p->visit >= EXTRACT_FOCUS_BASE)   /* of the second round: by its choices */
		ns = extract_at(x, p->combo, p->sub, NEST_FUSE_OF(p->unfused ? -1 : p->fused), c);
	else {
		extract_share(x, p->visit, INT64_MAX);
		for (;;) {
			ns = extract_next(x, c);
			if (c->end)
				return NULL;
			if ((c->fused < 0) == p->unfused && c->fold == p->fold && (p->unfused || c->fused == p->fused))
				break;
			nest_free(ns);
		}
	}
	if (ns && p->sched) {   /* the twin the model chose, and its footprint */
		c->sched = model_schedule(ns, p->sched, in->dtype) > 0 ? p->sched : 0;
		nest_room(ns, &c->fp);
	}
	return ns;
}
